#!/bin/sh
# gen_fixtures.sh RAVEL [--llvm V] [NAME...] - regenerate tests/import/fixtures
# from the C files there (and the SSA MIR files NAME.mir that `ravel
# export-mir` wrote, run with `import-mir run --ssa`) with the installed llc-19 (--llvm 16 or 14: llc-V,
# into NAME-llvmV.ALLOC/ with files NAME-llvmV.*): for each NAME.c and each allocator
# (greedy, basic, pbqp at -O2; fast at -O0, or at -ON if NAME.c says
# "fixture: fast at -ON"), fixtures/NAME.ALLOC/ holds the
# three texts llc printed (NAME.tag.mir, NAME.dumps.txt, NAME.post.mir) and
# what `ravel import-mir join` makes of them (FUNC.orig.ra, FUNC.ra, and
# summary.txt). Run it when the importer's output changes on purpose, and
# read the diff. Paths in the debug info are made relative
# (-fdebug-prefix-map) so that the texts do not name this machine.
set -eu
ravel=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
v=19
if [ "${1:-}" = --llvm ]; then v=$2; shift 2; fi
cd "$(dirname "$0")/fixtures"
names=${*:-$(ls *.c *.mir | sed 's/\.c$//; s/\.mir$//')}
tmp=.gen # relative: llc's ModuleID comments name it, the same on every machine
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT
for n in $names; do
  src=$n.c ssa=
  if [ -f "$n.mir" ]; then src=$n.mir ssa=--ssa; fi # ravel export-mir's SSA MIR: llc from phi elimination on
  for a in greedy basic pbqp fast; do
    lvl=2; [ "$a" = fast ] && lvl=$(sed -n 's/.*fixture: fast at -O\([0-3]\).*/\1/p' "$src" | head -1) && lvl=${lvl:-0}
    s=$n; [ "$v" = 19 ] || s=$n-llvm$v
    d=$s.$a
    rm -rf "$d" "$tmp/out"
    "$ravel" import-mir run $ssa "$src" --llvm "$v" --alloc "$a" -O $lvl --keep -q \
      --clang-arg "-fdebug-prefix-map=$(pwd)=." -o "$tmp/out" > /dev/null || true
    mkdir -p "$d"
    for e in tag.mir dumps.txt post.mir; do cp "$tmp/out/llvm/$n.$e" "$d/$s.$e"; done
    if [ "$s.$a" = f6.greedy ]; then cp "$tmp/out/llvm/$n.pre.mir" "$d/$n.pre.mir"; fi # import.cli: S1 on it
    "$ravel" import-mir join --alloc "$a" "$d/$s.tag.mir" "$d/$s.dumps.txt" "$d/$s.post.mir" -o "$d" > "$d/summary.txt" || true
  done
done
