#!/usr/bin/env bash
# ci/fuzz-speed.sh BIN CORPUS [REPEATS] - a libFuzzer target's executions per
# CPU-second in steady state: what the engine runs once it is past loading
# its corpus (and past the harness's warm-up).
#
#   BIN      a libFuzzer build of a fuzz target (e.g. build-lf/fuzz/fuzz_alloc
#            from -DRAVEL_FUZZ_ENGINE=libfuzzer -DRAVEL_SANITIZE=address,undefined)
#   CORPUS   a directory of inputs, read only (copied; the same one for every
#            build compared)
#   REPEATS  runs, seeds 1..REPEATS (default 3); the median is printed last
#
# Each repeat runs the target twice with the same -seed: N1 = |CORPUS| + 1000
# and N2 = N1 + 8000 executions, with the flags of fuzz/TARGET.options; the
# rate is (N2 - N1) / (CPU time of the second - CPU time of the first), so
# start-up, corpus loading and warm-up cancel out. One core.
set -uo pipefail
[ $# -ge 2 ] || { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
bin=$1 corpus=$2 repeats=${3:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$bin" ] || { echo "fuzz-speed: $bin is not executable" >&2; exit 2; }
[ -d "$corpus" ] || { echo "fuzz-speed: $corpus is not a directory" >&2; exit 2; }
name=$(basename "$bin")
base=$name
case "$name" in fuzz_alloc_*) base=fuzz_alloc ;; esac
opts=()
[ -f "$root/fuzz/$base.options" ] && while IFS=' =' read -r k v; do
  case "$k" in max_len|entropic_feature_frequency_threshold) opts+=("-$k=$v") ;; dict) opts+=("-dict=$root/fuzz/$v") ;; esac
done < <(grep -E '^[a-z_]+ *=' "$root/fuzz/$base.options")
n=$(find "$corpus" -maxdepth 1 -type f | wc -l)
n1=$((n + 1000)) n2=$((n + 9000))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
cpu() { # SEED RUNS: CPU seconds of one run on a fresh copy of the corpus
  rm -rf "$tmp/c" && mkdir -p "$tmp/c"
  /usr/bin/time -f '%U %S' -o "$tmp/t" "$bin" -seed="$1" -runs="$2" "${opts[@]}" "$tmp/c" "$corpus" > "$tmp/log" 2>&1 ||
    { tail -20 "$tmp/log" >&2; echo "fuzz-speed: $name failed" >&2; exit 1; }
  awk '{ print $1 + $2 }' "$tmp/t"
}
rates=()
for ((s = 1; s <= repeats; s++)); do
  a=$(cpu "$s" "$n1") b=$(cpu "$s" "$n2")
  r=$(awk -v a="$a" -v b="$b" -v d=$((n2 - n1)) 'BEGIN { printf "%.0f", (b > a) ? d / (b - a) : 0 }')
  echo "$name seed $s: $((n2 - n1)) executions in $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b - a }') CPU-s: $r exec/s"
  rates+=("$r")
done
echo "$name: median $(printf '%s\n' "${rates[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }') exec/s per CPU-second ($repeats runs, corpus of $n)"
