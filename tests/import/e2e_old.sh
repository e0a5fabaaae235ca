#!/bin/sh
# e2e_old.sh RAVEL TMPDIR VERSION - llc-16 or llc-14 on the fixtures' C files
# that have NAME-llvmVERSION.ALLOC fixtures: each function must import
# exactly as recorded (docs/import-mapping.md §1.4); with llc-14, a module
# with __builtin_eh_return is refused with the reason §1.4 gives. Exit 77
# (skipped) without llc-VERSION and clang-VERSION.
set -u
ravel=$1 tmp=$2 v=$3
if ! command -v llc-$v > /dev/null 2>&1 || ! command -v clang-$v > /dev/null 2>&1; then
  echo "import.e2e_llvm$v: skipped: no llc-$v/clang-$v"
  exit 77
fi
cd "$(dirname "$0")/fixtures" || exit 2
rm -rf "$tmp"
mkdir -p "$tmp"
fail=0 n=0
for d in *-llvm$v.*; do
  a=${d##*.} s=${d%.*} c=${d%-llvm*}
  lvl=2; [ "$a" = fast ] && lvl=0
  out=$tmp/$d
  "$ravel" import-mir run "$c.c" --llvm "$v" --alloc "$a" -O $lvl --keep -q --clang-arg "-fdebug-prefix-map=$(pwd)=." -o "$out/run" > /dev/null 2>&1
  for e in tag.mir dumps.txt post.mir; do cp "$out/run/llvm/$c.$e" "$out/$s.$e" 2> /dev/null; done
  "$ravel" import-mir join --alloc "$a" "$out/$s.tag.mir" "$out/$s.dumps.txt" "$out/$s.post.mir" -o "$out/join" > /dev/null 2>&1
  for f in "$d"/*.ra; do
    n=$((n + 1))
    if ! cmp -s "$f" "$out/join/$(basename "$f")"; then echo "import.e2e_llvm$v: $d: $(basename "$f") differs"; fail=1; fi
  done
done
[ $n -gt 0 ] || { echo "import.e2e_llvm$v: no fixtures"; fail=1; }
if [ "$v" = 14 ]; then
  printf 'long g(long);\nlong f(long a) { return g(a) + a; }\nvoid er(long off, void *h) { __builtin_eh_return(off, h); }\n' > "$tmp/eh.c"
  "$ravel" import-mir run "$tmp/eh.c" --llvm 14 -o "$tmp/eh" > "$tmp/eh.log" 2>&1
  grep -q "^f: refused llc: llc-14's MIR does not keep callsEHReturn" "$tmp/eh.log" || { echo "import.e2e_llvm14: eh_return: not the reason of §1.4"; cat "$tmp/eh.log"; fail=1; }
fi
[ $fail = 0 ] && echo "import.e2e_llvm$v: $n files import as recorded"
exit $fail
