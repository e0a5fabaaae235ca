#!/bin/sh
# gen_fixtures.sh RAVEL [NAME...] - regenerate tests/import/fixtures from the
# C files there with the installed llc-19: for each NAME.c and each allocator
# (greedy, basic, pbqp at -O2; fast at -O0), fixtures/NAME.ALLOC/ holds the
# three texts llc printed (NAME.tag.mir, NAME.dumps.txt, NAME.post.mir) and
# what `ravel import-mir join` makes of them (FUNC.orig.ra, FUNC.ra, and
# summary.txt). Run it when the importer's output changes on purpose, and
# read the diff. Paths in the debug info are made relative
# (-fdebug-prefix-map) so that the texts do not name this machine.
set -eu
ravel=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
cd "$(dirname "$0")/fixtures"
names=${*:-$(ls *.c | sed 's/\.c$//')}
tmp=.gen # relative: llc's ModuleID comments name it, the same on every machine
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT
for n in $names; do
  for a in greedy basic pbqp fast; do
    lvl=2; [ "$a" = fast ] && lvl=0
    d=$n.$a
    rm -rf "$d" "$tmp/out"
    "$ravel" import-mir run "$n.c" --llvm 19 --alloc "$a" -O $lvl --keep -q \
      --clang-arg "-fdebug-prefix-map=$(pwd)=." -o "$tmp/out" > /dev/null || true
    mkdir -p "$d"
    for e in tag.mir dumps.txt post.mir; do cp "$tmp/out/llvm/$n.$e" "$d/$n.$e"; done
    if [ "$n.$a" = f6.greedy ]; then cp "$tmp/out/llvm/$n.pre.mir" "$d/$n.pre.mir"; fi # import.cli: S1 on it
    "$ravel" import-mir join --alloc "$a" "$d/$n.tag.mir" "$d/$n.dumps.txt" "$d/$n.post.mir" -o "$d" > "$d/summary.txt" || true
  done
done
