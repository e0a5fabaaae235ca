#!/bin/bash
# llvm-reduce.sh KEPT [--ravel PATH] [--time SEC] - the first reduction of a
# rejection ci/llvm-campaign.sh kept (KEPT = OUT/rejected/sSEED-OLEVEL-ALLOC):
# cvise on its csmith program, the interestingness test being "import +
# check still fails the same way": some function is rejected with the same
# first error class of the checker (error[use-wrong-vreg], ...), or has an
# import error under the same rule (R27, S5, ...). Writes KEPT/reduced.c
# and KEPT/interesting.sh (the test, reusable by hand). The second level is
# `ravel reduce` on the reduced program's rejected FUNC.ra.
# Exit status: 0 reduced, 1 the failure did not reproduce, 2 bad usage,
# 77 no cvise.
set -u
kept= ravel= tlimit=1800
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/ci/opts.sh"
ci_opts llvm-reduce.sh "--ravel=ravel --time=tlimit" "$@"
[ ${#CI_ARGS[@]} -gt 0 ] && kept=${CI_ARGS[${#CI_ARGS[@]}-1]}
[ -n "$kept" ] && [ -d "$kept" ] || { echo "llvm-reduce.sh: KEPT directory required" >&2; exit 2; }
command -v cvise > /dev/null || { echo "llvm-reduce.sh: cvise is not installed: skipped"; exit 77; }
kept=$(cd "$kept" && pwd)
ci_ravel llvm-reduce.sh
base=$(basename "$kept")
seed=${base%%-*}; seed=${seed#s}
rest=${base#*-O}; lvl=${rest%%-*}; alloc=${rest#*-}
src=$kept/s$seed.c
[ -e "$src" ] || { echo "llvm-reduce.sh: no $src" >&2; exit 2; }
# the signature: the first rejected function's first error class, else the first import error's rule
sig=
for c in "$kept"/*.check; do
  [ -e "$c" ] || continue
  sig=$(grep -o 'error\[[a-z-]*\]' "$c" | head -1); kind=check; break
done
if [ -z "$sig" ]; then
  sig=$(grep -o ': import error [A-Z0-9]*:' "$kept/import.log" | head -1); kind=import
fi
[ -n "$sig" ] || { echo "llvm-reduce.sh: nothing to reproduce in $kept" >&2; exit 2; }
cat > "$kept/interesting.sh" <<EOF
#!/bin/bash
# interesting: clang-19 compiles it without the warnings that mean undefined
# behaviour crept in, and '$ravel import-mir run --alloc $alloc -O $lvl' + check fails with '$sig'
timeout 30 clang-19 -O$lvl -fsyntax-only -I /usr/include/csmith -Werror=implicit-int -Werror=implicit-function-declaration \\
  -Werror=return-type -Werror=uninitialized -Werror=int-conversion s$seed.c > /dev/null 2>&1 || exit 1
rm -rf o
timeout 120 "$ravel" import-mir run s$seed.c --llvm 19 --alloc $alloc -O $lvl -I /usr/include/csmith --clang-arg -w -o o > log 2>&1
if [ $kind = import ]; then grep -qF -- '$sig' log; exit \$?; fi
for r in o/*.orig.ra; do
  [ -e "\$r" ] || continue
  "$ravel" check "\${r%.orig.ra}.ra" --orig "\$r" 2>&1 | grep -qF -- '$sig' && exit 0
done
exit 1
EOF
chmod +x "$kept/interesting.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/ravel-reduce-XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$src" "$work/" && cp "$kept/interesting.sh" "$work/"
cd "$work" || exit 2
./interesting.sh || { echo "llvm-reduce.sh: $base: '$sig' does not reproduce with $ravel"; exit 1; }
timeout "$tlimit" cvise --n 1 --timeout 60 ./interesting.sh "s$seed.c" > cvise.log 2>&1
cp "s$seed.c" "$kept/reduced.c"
echo "llvm-reduce.sh: $base: '$sig': $(wc -l < "$src") lines reduced to $(wc -l < "$kept/reduced.c"): $kept/reduced.c"
