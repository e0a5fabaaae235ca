#!/bin/sh
# check.sh RAVEL FIXTURES [EDITED] - `ravel check FUNC.ra --orig FUNC.orig.ra`
# on every recorded import: LLVM's allocations verified; and on every import
# of llc output edited by hand under EDITED (tests/import/edited/): those
# of a directory named ok-* verified, those of wrong-* rejected (exit 1, a
# verdict, not a usage or input error).
set -u
ravel=$1
fail=0 n=0
for o in "$2"/*/*.orig.ra; do
  r=${o%.orig.ra}.ra
  n=$((n + 1))
  if ! "$ravel" check "$r" --orig "$o" > /dev/null 2>&1; then echo "import.check: $r: rejected"; "$ravel" check "$r" --orig "$o" 2>&1 | head -20; fail=1; fi
done
echo "import.check: $n functions"
if [ -n "${3:-}" ]; then
  w=0
  for o in "$3"/*/*.orig.ra; do
    r=${o%.orig.ra}.ra
    w=$((w + 1))
    want=1
    case $(basename "$(dirname "$o")") in ok-*) want=0;; esac
    "$ravel" check "$r" --orig "$o" > /dev/null 2>&1
    rc=$?
    if [ $rc -ne $want ]; then echo "import.check: $r: edited llc output, ravel check exits $rc (want $want)"; fail=1; fi
  done
  echo "import.check: $w edited allocations"
  [ $w -gt 0 ] || fail=1
fi
exit $fail
