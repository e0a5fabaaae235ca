#!/bin/sh
# check.sh RAVEL FIXTURES [WRONG] - `ravel check FUNC.ra --orig FUNC.orig.ra`
# on every recorded import: LLVM's allocations verified; and on every import
# of a hand-edited wrong allocation under WRONG (tests/import/wrong/): each
# rejected (exit 1, a verdict, not a usage or input error).
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
    "$ravel" check "$r" --orig "$o" > /dev/null 2>&1
    rc=$?
    if [ $rc -ne 1 ]; then echo "import.check: $r: a wrong allocation, but ravel check exits $rc (want 1: rejected)"; fail=1; fi
  done
  echo "import.check: $w wrong allocations"
  [ $w -gt 0 ] || fail=1
fi
exit $fail
