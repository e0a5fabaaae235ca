#!/usr/bin/env bash
# ci/fuzz.sh [--fresh] ENGINE TARGET SECONDS [WORKERS] - fuzz one target on all cores.
#
#   ENGINE   libfuzzer: clang -fsanitize=fuzzer,address,undefined, run with
#                       -fork=WORKERS (one process per core, shared corpus)
#            afl:       afl-clang-fast (+ a CMPLOG build), one -M main and
#                       WORKERS-1 -S secondaries, persistent mode
#   TARGET   fuzz_alloc, fuzz_alloc_NAME, fuzz_differential, fuzz_parse,
#            fuzz_moves, fuzz_checker_oracle
#   WORKERS  default: number of CPUs
# The corpus lives in build-fuzz-out/ENGINE/TARGET/ (seeded from corpus/TARGET/),
# crashes in build-fuzz-out/ENGINE/TARGET/crashes/. Prints executions, executions
# per second and coverage at the end (AFL++: and each instance's stability);
# exits 1 if a crash was found. A second run goes on from the first: libFuzzer
# reuses the corpus, AFL++ resumes its queue (AFL_AUTORESUME); --fresh
# deletes the previous run's corpus, queue and crashes first.
# Environment: RAVEL_FUZZ_SANITIZE (default address,undefined), RAVEL_FUZZ_OUT.
# (ci/fuzz.sh --rates EXECS WALL_SECONDS CPU_SECONDS prints libFuzzer's
# summary line of rates alone: for the tests, fuzz.script_rates.)
set -uo pipefail
usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
# rates EXECS WALL CPU: executions, their rate per wall-clock second and per
# CPU-second (0 when a time is 0)
rates() {
  awk -v e="$1" -v d="$2" -v c="$3" 'BEGIN { printf "executions: %d  exec/s (wall clock): %.0f  exec/s per CPU-second: %.0f\n", e, (d > 0 ? e / d : 0), (c > 0 ? e / c : 0) }'
}
if [ "${1:-}" = "--rates" ]; then [ $# -eq 4 ] || usage; rates "$2" "$3" "$4"; exit; fi
fresh=0
if [ "${1:-}" = "--fresh" ]; then fresh=1; shift; fi
[ $# -ge 3 ] || usage
engine=$1 target=$2 secs=$3 workers=${4:-$(nproc 2>/dev/null || echo 1)}
case "$secs$workers" in *[!0-9]*) usage ;; esac
[ "$workers" -ge 1 ] || usage
cd "$(dirname "$0")/.."
root=$(pwd)
san=${RAVEL_FUZZ_SANITIZE-address,undefined}
outroot=${RAVEL_FUZZ_OUT:-$root/build-fuzz-out}
base=$target
case "$target" in fuzz_alloc_*) base=fuzz_alloc ;; esac

case "$engine" in
  libfuzzer) bash ci/deps.sh --for fuzz || exit 2 ;;
  afl) bash ci/deps.sh --for fuzz afl++ lld || exit 2 ;;
  *) usage ;;
esac

# configure DIR CC [env...]: a build of the fuzz targets for this engine.
configure_build() {
  local dir=$1 cc=$2; shift 2
  env "$@" cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER="$cc" \
    -DRAVEL_FUZZ_ENGINE="$engine" -DRAVEL_SANITIZE="$san" -DRAVEL_BUILD_TESTS=OFF -DRAVEL_BUILD_BENCH=OFF \
    > "$dir.log" 2>&1 &&
  env "$@" cmake --build "$dir" --target "$target" -j "$workers" >> "$dir.log" 2>&1 ||
    { tail -40 "$dir.log"; echo "fuzz.sh: build failed (log: $dir.log)" >&2; exit 2; }
}

work=$outroot/$engine/$target
[ "$fresh" = 1 ] && rm -rf "$work"
mkdir -p "$work/corpus" "$work/crashes" "$outroot/build"
seeds=$root/corpus/$base

if [ "$engine" = libfuzzer ]; then
  bdir=$outroot/build/libfuzzer
  configure_build "$bdir" clang
  bin=$bdir/fuzz/$target
  opts=()
  [ -f "$root/fuzz/$base.options" ] && while IFS=' =' read -r k v; do
    case "$k" in max_len|timeout|rss_limit_mb|entropic_feature_frequency_threshold) opts+=("-$k=$v") ;; dict) opts+=("-dict=$root/fuzz/$v") ;; esac
  done < <(grep -E '^[a-z_]+ *=' "$root/fuzz/$base.options")
  par=()
  [ "$workers" -gt 1 ] && par=(-fork="$workers" -ignore_crashes=1)
  echo "fuzz.sh: libFuzzer, $target, ${secs}s, $workers worker(s)"
  times >"$work/times0" # the build's CPU time, subtracted below
  start=$(date +%s.%N)
  "$bin" "${par[@]}" "${opts[@]}" -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$work/crashes/" \
    "$work/corpus" "$seeds" 2>&1 | tee "$work/log" | grep -E '^#[0-9]+' | tail -n 3
  end=$(date +%s.%N)
  # CPU seconds of the fuzzing processes (the shell's children: second line of `times`)
  # (`times` itself must run in this shell: in a pipe or $(...) it sees a subshell's)
  times >"$work/times"
  secs_of() { tail -n 1 "$1" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] } print t }'; }
  cpu=$(awk -v a="$(secs_of "$work/times")" -v b="$(secs_of "$work/times0")" 'BEGIN { print a - b }')
  last=$(grep -E '^#[0-9]+' "$work/log" | tail -1)
  execs=$(echo "$last" | grep -oE '^#[0-9]+' | tr -d '#')
  cov=$(echo "$last" | grep -oE 'cov: [0-9]+' | grep -oE '[0-9]+')
  ft=$(echo "$last" | grep -oE 'ft: [0-9]+' | grep -oE '[0-9]+')
  crashes=$(find "$work/crashes" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \) | wc -l)
  echo "=== $target (libFuzzer, $workers worker(s), ${secs}s)"
  # In fork mode (-fork=N, N > 1) the parent counts the executions of the
  # jobs that finished, and every job is a new process that starts up, reads
  # the corpus and warms up before it fuzzes: a short run's wall-clock rate
  # is far below the steady state. exec/s per CPU-second (all processes'
  # CPU time) is the figure to compare with ci/fuzz-speed.sh and bench_fuzz.
  rates "${execs:-0}" "$(awk -v s="$start" -v t="$end" 'BEGIN { print t - s }')" "${cpu:-0}"
  [ "$workers" -gt 1 ] && echo "(fork mode: jobs restart and load the corpus, so a short run's rates are low; see the comment in ci/fuzz.sh)"
  echo "coverage: ${cov:-?} edges (cov), ${ft:-?} features (ft); corpus: $(ls "$work/corpus" | wc -l) inputs"
  echo "crashes: $crashes (in $work/crashes)"
  [ "$crashes" -eq 0 ]
  exit
fi

# AFL++: a normal and a CMPLOG build, then -M main + -S secondaries.
bdir=$outroot/build/afl
deny=AFL_LLVM_DENYLIST=$root/fuzz/afl_denylist.txt # (see that file)
configure_build "$bdir" afl-clang-fast AFL_QUIET=1 "$deny"
configure_build "$bdir-cmplog" afl-clang-fast AFL_QUIET=1 AFL_LLVM_CMPLOG=1 "$deny"
bin=$bdir/fuzz/$target cmp=$bdir-cmplog/fuzz/$target
in=$work/seeds
rm -rf "$in" && mkdir -p "$in"
cp "$seeds"/* "$in"/ 2>/dev/null
find "$in" -type f -size 0 -delete
[ -n "$(ls -A "$in")" ] || printf 'x' > "$in/x"
dict=()
[ "$base" = fuzz_parse ] && dict=(-x "$root/fuzz/fuzz_parse.dict")
export AFL_AUTORESUME=1 # an existing queue is resumed (--fresh deleted it)
export AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1 AFL_FAST_CAL=1
export ASAN_OPTIONS=abort_on_error=1:symbolize=0:detect_leaks=0
findings=$work/findings
echo "fuzz.sh: AFL++, $target, ${secs}s, $workers worker(s) (main with CMPLOG)"
pids=()
afl-fuzz -i "$in" -o "$findings" -M main -V "$secs" -m none -t 5000 -c "$cmp" "${dict[@]}" -- "$bin" > "$work/main.log" 2>&1 &
pids+=($!)
for ((k = 1; k < workers; k++)); do
  afl-fuzz -i "$in" -o "$findings" -S "s$k" -V "$secs" -m none -t 5000 "${dict[@]}" -- "$bin" > "$work/s$k.log" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
echo "=== $target (AFL++, $workers worker(s), ${secs}s)"
total=0 eps=0 crashes=0
for s in "$findings"/*/fuzzer_stats; do
  [ -f "$s" ] || continue
  n=$(basename "$(dirname "$s")")
  e=$(awk -F': *' '/^execs_done/ {print $2}' "$s")
  r=$(awk -F': *' '/^execs_per_sec/ {print $2}' "$s")
  c=$(awk -F': *' '/^saved_crashes|^unique_crashes/ {print $2; exit}' "$s")
  g=$(awk -F': *' '/^bitmap_cvg/ {print $2}' "$s")
  x=$(awk -F': *' '/^edges_found/ {print $2}' "$s")
  st=$(awk -F': *' '/^stability/ {print $2}' "$s")
  echo "  $n: executions $e, exec/s $r, edges $x, map coverage $g, stability $st, crashes $c"
  total=$((total + ${e:-0})); crashes=$((crashes + ${c:-0}))
  eps=$(awk -v a="$eps" -v b="${r:-0}" 'BEGIN { print a + b }')
done
if [ "$total" -eq 0 ]; then tail -30 "$work/main.log"; echo "fuzz.sh: afl-fuzz did not run" >&2; exit 2; fi
echo "executions: $total  exec/s: $eps  exec/s per worker: $(awk -v a="$eps" -v w="$workers" 'BEGIN { printf "%.0f", a / w }')"
echo "coverage: $(awk -F': *' '/^edges_found/ {print $2}' "$findings/main/fuzzer_stats") edges found by main"
for d in "$findings"/*/crashes; do cp "$d"/id:* "$work/crashes/" 2>/dev/null; done
echo "crashes: $crashes (in $work/crashes)"
[ "$crashes" -eq 0 ]
