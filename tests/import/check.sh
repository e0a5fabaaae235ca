#!/bin/sh
# check.sh RAVEL FIXTURES - `ravel check FUNC.ra --orig FUNC.orig.ra` on every
# recorded import: LLVM's allocations verified.
set -u
ravel=$1
fail=0 n=0
for o in "$2"/*/*.orig.ra; do
  r=${o%.orig.ra}.ra
  n=$((n + 1))
  if ! "$ravel" check "$r" --orig "$o" > /dev/null 2>&1; then echo "import.check: $r: rejected"; "$ravel" check "$r" --orig "$o" 2>&1 | head -20; fail=1; fi
done
echo "import.check: $n functions"
exit $fail
