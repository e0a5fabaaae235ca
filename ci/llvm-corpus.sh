#!/bin/bash
# llvm-corpus.sh - the fixed corpus of issue 31: the project's own C sources
# through LLVM's four register allocators (greedy, basic and pbqp at -O2,
# fast at -O0), every function imported by `ravel import-mir run --check`,
# which judges every imported one as `ravel check FUNC.ra --orig FUNC.orig.ra`
# would, in its own process
# (docs/import.md, "The fixed corpus").
#
#   ci/llvm-corpus.sh [--ravel PATH] [--build DIR] [--sample] [--alloc A]...
#                     [--out DIR] [--llvm VERSION] [FILE.c...]
#
#   --ravel PATH   the ravel binary (default: build-rel/cli/ravel, else build/cli/ravel)
#   --build DIR    the build tree whose generated headers the sources include
#                  (default: the one holding --ravel)
#   --sample       the fixed sample of 15 files that CI runs (ctest import.corpus)
#   --alloc A      only this allocator (repeatable; default all four)
#   --out DIR      keep everything there (default: a temporary directory,
#                  removed unless something was rejected)
#   FILE.c...      these files instead of the corpus (paths from the source root)
#
# Prints one line per file and allocator, then per allocator: functions,
# imported (%), refused per reason, import errors, verified, rejected, and
# the CPU time split (clang, llc, import, check) with functions/s/core.
# Exit status: 0 every function imported or refused with a reason and every
# imported one verified; 1 any rejection, import error or failed compile;
# 77 no llc/clang of the LLVM asked for (ctest's skip); 2 bad usage.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
ravel= build= out= sample=0 llvm=19 allocs=() files=()
. "$root/ci/opts.sh"
ci_opts llvm-corpus.sh "--ravel=ravel --build=build --sample!sample --alloc+=allocs --out=out --llvm=llvm" "$@"
files=(${CI_ARGS[@]+"${CI_ARGS[@]}"})
ci_ravel llvm-corpus.sh
[ -n "$build" ] || build=$(dirname "$(dirname "$ravel")")
if ! command -v "llc-$llvm" > /dev/null && [ ! -x "/usr/lib/llvm-$llvm/bin/llc" ]; then
  echo "llvm-corpus.sh: llc-$llvm is not installed: skipped"; exit 77
fi
if ! command -v "clang-$llvm" > /dev/null && [ ! -x "/usr/lib/llvm-$llvm/bin/clang" ]; then
  echo "llvm-corpus.sh: clang-$llvm is not installed: skipped"; exit 77
fi
[ ${#allocs[@]} -gt 0 ] || allocs=(greedy basic pbqp fast)

# The sample: small and large files of every component, chosen once (the
# whole corpus takes about 20 minutes of one core per allocator).
SAMPLE="ir/cfg.c ir/parse.c checker/ck_vn_flow.c checker/ck_guard_inst.c allocator/linear_scan.c
allocator/color_build.c inject/inject.c reduce/rd_pass_inst.c cli/cmd_bench.c cli/util.c
import/align.c import/keys.c import/mir.c import/proc.c fuzz/gen_inst.c"
if [ ${#files[@]} -eq 0 ]; then
  if [ $sample = 1 ]; then read -r -a files <<< "$(echo $SAMPLE)"
  else
    mapfile -t files < <(cd "$root" && ls ir/*.c checker/*.c allocator/*.c inject/*.c fuzz/*.c reduce/*.c cli/*.c import/*.c)
  fi
fi

keep=1
if [ -z "$out" ]; then out=$(mktemp -d "${TMPDIR:-/tmp}/ravel-corpus-XXXXXX"); keep=0; fi
mkdir -p "$out"
status=0
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a + b }'; }

for a in "${allocs[@]}"; do
  lvl=2; [ "$a" = fast ] && lvl=0
  fn=0 imp=0 ref=0 err=0 ver=0 rej=0 bad=0 tc=0 tl=0 ti=0 tk=0
  : > "$out/$a.refused"
  for f in "${files[@]}"; do
    d=$out/$a/$(echo "$f" | tr / _)
    rm -rf "$d"; mkdir -p "$d"
    "$ravel" import-mir run "$root/$f" --llvm "$llvm" --alloc "$a" -O $lvl --times --check -I "$root" -I "$root/include" -I "$build" \
      -o "$d" > "$d.log" 2>&1
    rc=$?
    if [ $rc = 2 ] || ! grep -q '^times: ' "$d.log"; then
      echo "$a $f: could not be compiled or imported (exit $rc): $d.log"; bad=$((bad + 1)); status=1; continue
    fi
    set -- $(grep '^times: ' "$d.log")
    tc=$(add $tc $3); tl=$(add $tl $5); ti=$(add $ti $7); tk=$(add $tk $9)
    n_imp=$(grep -c ': imported' "$d.log")
    n_ref=$(grep -c ': refused ' "$d.log")
    n_err=$(grep -c ': import error ' "$d.log")
    grep ': refused ' "$d.log" | sed 's/^[^:]*: refused \([^:]*\):.*/\1/' >> "$out/$a.refused"
    grep ': import error ' "$d.log" | sed "s|^|$a $f: |"
    n_rej=$(grep -c ': imported.*, rejected$' "$d.log") # --check: `ravel check FUNC.ra --orig FUNC.orig.ra` in the import's process
    grep ': imported.*, rejected$' "$d.log" | sed 's/: imported.*//' | while read -r fnc; do
      echo "$a $f: REJECTED $d/$fnc.ra (report: $d/$fnc.check)"; done
    find "$d" -name '*.check' -exec grep -l '^verified: ' {} + 2> /dev/null | xargs -r rm -f
    fn=$((fn + n_imp + n_ref + n_err)); imp=$((imp + n_imp)); ref=$((ref + n_ref)); err=$((err + n_err))
    rej=$((rej + n_rej)); ver=$((ver + n_imp - n_rej))
    [ $n_err -gt 0 ] || [ $n_rej -gt 0 ] && status=1
    echo "$a $f: $((n_imp + n_ref + n_err)) functions, $n_imp imported, $n_ref refused, $n_err import errors, $n_rej rejected"
  done
  tot=$(add "$(add $tc $tl)" "$(add $ti $tk)")
  share=$(awk -v r="$(add $ti $tk)" -v t=$tot 'BEGIN { printf "%.1f", (t > 0 ? 100 * r / t : 0) }')
  rate=$(awk -v n=$fn -v t=$tot 'BEGIN { printf "%.2f", (t > 0 ? n / t : 0) }')
  echo "== $a (-O$lvl): $fn functions, $imp imported ($(awk -v i=$imp -v n=$fn 'BEGIN { printf "%.2f", n ? 100 * i / n : 0 }')%)," \
       "$ref refused, $err import errors, $bad files failed; $ver verified, $rej rejected"
  sort "$out/$a.refused" | uniq -c | sort -rn | sed 's/^/   refused: /'
  echo "   CPU seconds: clang $tc, llc $tl, import $ti, check $tk (ravel's share $share%);" \
       "$rate functions/s/core"
done
if [ $status = 0 ] && [ $keep = 0 ]; then rm -rf "$out"; else echo "outputs: $out"; fi
exit $status
