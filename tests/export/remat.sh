#!/bin/sh
# export.llvm_remat (label llvm): reproducers/llvm/remat-implicit-def.mir,
# LLVM's rematerialisation that keeps an extra `implicit-def dead $rbx`
# and clobbers a live rbx, must be imported and REJECTED by the checker for
# greedy, basic and pbqp (R39: a remat's dead physical defs are clobbers;
# without them the wrong allocation would verify). Skipped (77) without llc-19.
ravel=$1 out=$2
command -v llc-19 > /dev/null || { echo "export.llvm_remat: no llc-19: skipped"; exit 77; }
root=$(cd "$(dirname "$0")/../.." && pwd)
for a in greedy basic pbqp; do
  rm -rf "$out/$a"
  "$ravel" import-mir run --ssa "$root/reproducers/llvm/remat-implicit-def.mir" --llvm 19 --alloc $a -o "$out/$a" -q || exit 1
  "$ravel" check "$out/$a/f.ra" --orig "$out/$a/f.orig.ra" > "$out/$a.check" 2>&1
  rc=$?
  [ $rc = 1 ] && grep -q 'clobbered (becomes unknown) by `[a-z0-9]* = remat 42`' "$out/$a.check" ||
    { echo "export.llvm_remat: $a: exit $rc, expected a rejection naming the remat"; cat "$out/$a.check"; exit 1; }
  echo "$a: rejected as expected"
done
