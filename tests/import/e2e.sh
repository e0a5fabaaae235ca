#!/bin/sh
# e2e.sh RAVEL TMPDIR - `ravel import-mir run` with clang-19 and llc-19 on
# the fixtures' C files (and, with --ssa, their SSA MIR files), every allocator: each function must import (or be
# refused or fail) exactly as recorded in tests/import/fixtures, with the
# same texts. Exit 77 (skipped) without llc-19 and clang-19.
set -u
ravel=$1
tmp=$2
if ! command -v llc-19 > /dev/null 2>&1 || ! command -v clang-19 > /dev/null 2>&1; then
  echo "import.e2e: skipped: no llc-19/clang-19 (install the Debian packages llvm-19 and clang-19)"
  exit 77
fi
cd "$(dirname "$0")/fixtures" || exit 2
rm -rf "$tmp"
mkdir -p "$tmp"
fail=0
for c in *.c *.mir; do
  n=${c%.*} ssa=
  case $c in *.mir) ssa=--ssa;; esac # ravel export-mir's SSA MIR
  for a in greedy basic pbqp fast; do
    lvl=2; [ "$a" = fast ] && lvl=$(sed -n 's/.*fixture: fast at -O\([0-3]\).*/\1/p' "$c" | head -1) && lvl=${lvl:-0}
    out=$tmp/$n.$a
    "$ravel" import-mir run $ssa "$c" --llvm 19 --alloc "$a" -O $lvl --keep -q --clang-arg "-fdebug-prefix-map=$(pwd)=." -o "$out/run" > "$out.log" 2>&1
    "$ravel" import-mir join --alloc "$a" "$out/run/llvm/$n.tag.mir" "$out/run/llvm/$n.dumps.txt" "$out/run/llvm/$n.post.mir" -o "$out/join" > "$out.summary" 2>&1
    # the outcomes (the paths in messages differ), then every text
    if ! diff -q "$n.$a/summary.txt" "$out.summary" > /dev/null 2>&1; then
      sed 's/: [^ ]*\(tag\.mir\|dumps\.txt\|post\.mir\):[0-9]*:[0-9]*:.*//' "$n.$a/summary.txt" > "$out.want"
      sed 's/: [^ ]*\(tag\.mir\|dumps\.txt\|post\.mir\):[0-9]*:[0-9]*:.*//' "$out.summary" > "$out.got"
      if ! diff "$out.want" "$out.got"; then echo "import.e2e: $n $a: outcomes differ"; fail=1; fi
    fi
    for f in "$n.$a"/*.ra; do
      [ -e "$f" ] || continue
      if ! cmp -s "$f" "$out/join/$(basename "$f")"; then echo "import.e2e: $n $a: $(basename "$f") differs"; diff "$f" "$out/join/$(basename "$f")" | head -20; fail=1; fi
    done
  done
done
# A .ll input starts at llc, a .mir input is llc's -stop-before output:
# both give f6's recorded texts (after their header line).
k=$tmp/f6.greedy/run/llvm
for input in "$k/f6.ll" "$k/f6.pre.mir"; do
  "$ravel" import-mir run "$input" --llvm 19 -q -o "$tmp/in" > /dev/null 2>&1
  for f in f6.ra f6.orig.ra; do
    if ! tail -n +2 "$tmp/in/$f" | cmp -s - f6.greedy/$f; then echo "import.e2e: run $(basename "$input"): $f differs"; fail=1; fi
  done
done
[ $fail = 0 ] && echo "import.e2e: every fixture imports as recorded"
exit $fail
