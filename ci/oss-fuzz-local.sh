#!/usr/bin/env bash
# ci/oss-fuzz-local.sh [ENGINE...] - runs ci/oss-fuzz/build.sh here, with the
# variables OSS-Fuzz sets ($CC $CFLAGS $LIB_FUZZING_ENGINE $SRC $OUT $WORK),
# into a temporary $OUT, then runs every built target briefly and checks it
# the way OSS-Fuzz's check_build does (instrumented, starts, runs its seed
# corpus and fuzzes for a few seconds without crashing). Prints one line per
# target and a summary; exits 1 if any target fails.
#
#   ENGINE                 libfuzzer, afl (default: both). afl builds once, as
#                          OSS-Fuzz's compile_afl: with RAVEL_AFL_CMPLOG=1 (the
#                          default) AFL_LLVM_CMPLOG=1 instruments the same binaries
#                          for CMPLOG ($OUT/afl_cmplog.txt marks it) and afl-fuzz
#                          runs them with -c 0.
# Each target runs with the flags of its $OUT/TARGET.options ([libfuzzer]
# section: max_len, dict, ...), as OSS-Fuzz's runner passes them.
#   SANITIZER=address      or undefined (OSS-Fuzz's flag sets)
#   RAVEL_CHECK_SECONDS=5  fuzzing time per target
#   RAVEL_KEEP=1           keep the temporary directory (printed)
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
engines=("$@")
[ ${#engines[@]} -gt 0 ] || engines=(libfuzzer afl)
secs=${RAVEL_CHECK_SECONDS:-5}
sanitizer=${SANITIZER:-address}
bash ci/deps.sh --for fuzz afl++ lld zip unzip || { echo "oss-fuzz-local: cannot install dependencies" >&2; exit 2; }

tmp=$(mktemp -d /tmp/ravel-oss-fuzz.XXXXXX)
[ "${RAVEL_KEEP:-0}" = 1 ] && echo "work directory: $tmp" || trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" && ln -s "$root" "$tmp/src/ravel"

common="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION"
case "$sanitizer" in
  address) san="-fsanitize=address -fsanitize-address-use-after-scope" ;;
  undefined)
    checks=array-bounds,bool,builtin,enum,float-divide-by-zero,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unreachable,vla-bound
    san="-fsanitize=$checks -fno-sanitize-recover=$checks" ;;
  *) echo "oss-fuzz-local: SANITIZER must be address or undefined" >&2; exit 2 ;;
esac

afl_driver() {
  for p in /usr/lib/libAFLDriver.a /usr/lib/afl/libAFLDriver.a /usr/local/lib/afl/libAFLDriver.a; do
    [ -f "$p" ] && { echo "$p"; return; }
  done
}

# build ENGINE OUT WORK [extra env...]: runs build.sh like OSS-Fuzz's `compile`.
build() {
  local engine=$1 out=$2 work=$3; shift 3
  mkdir -p "$out" "$work"
  local cc cflags lfe
  if [ "$engine" = libfuzzer ]; then
    cc=clang cflags="$common $san -fsanitize=fuzzer-no-link" lfe=-fsanitize=fuzzer
  else
    cc=afl-clang-fast cflags="$common $san" lfe=$(afl_driver)
    [ -n "$lfe" ] || { echo "oss-fuzz-local: libAFLDriver.a not found" >&2; return 1; }
  fi
  env "$@" CC=$cc CXX=${cc/clang/clang++} CFLAGS="$cflags" CXXFLAGS="$cflags" LIB_FUZZING_ENGINE="$lfe" \
    SRC="$tmp/src" OUT="$out" WORK="$work" AFL_QUIET=1 \
    bash "$root/ci/oss-fuzz/build.sh" > "$work.log" 2>&1 || { tail -30 "$work.log"; return 1; }
}

results=()
pass=0 fail=0
record() { results+=("$(printf '%-10s %-24s %-5s %s' "$1" "$2" "$3" "$4")"); if [ "$3" = PASS ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi; }

seeds_of() { # OUT TARGET DIR: unzips the seed corpus into DIR
  mkdir -p "$3"
  [ -f "$1/$2_seed_corpus.zip" ] && unzip -q -o "$1/$2_seed_corpus.zip" -d "$3"
}

# libfuzzer_options OUT TARGET: the [libfuzzer] section of OUT/TARGET.options
# as flags, one per line (-max_len=4096, -dict=OUT/fuzz_parse.dict, ...).
libfuzzer_options() {
  local f=$1/$2.options section="" k v
  [ -f "$f" ] || return 0
  while IFS= read -r line; do
    line=${line%%#*}
    case "$line" in
      \[*\]*) section=${line#[}; section=${section%%]*}; continue ;;
    esac
    [ "$section" = libfuzzer ] || continue
    k=$(echo "${line%%=*}" | tr -d ' ') v=$(echo "${line#*=}" | sed 's/^ *//; s/ *$//')
    [ -n "$k" ] && [ "$line" != "${line#*=}" ] || continue
    [ "$k" = dict ] && v=$1/$v
    echo "-$k=$v"
  done < "$f"
}

targets_in() { for f in "$1"/fuzz_*; do [ -f "$f" ] && [ -x "$f" ] && echo "$f"; done; }

check_libfuzzer() {
  local out=$1 t name dir log line
  for t in $(targets_in "$out"); do
    name=$(basename "$t") dir=$tmp/check/libfuzzer/$name log=$tmp/check/libfuzzer/$name.log
    mkdir -p "$dir"
    nm "$t" > "$log.nm" 2>/dev/null # (not piped into grep -q: pipefail would see SIGPIPE)
    if ! grep -q LLVMFuzzerTestOneInput "$log.nm" || ! grep -q __sanitizer_cov "$log.nm"; then
      record libfuzzer "$name" FAIL "not instrumented"; continue
    fi
    seeds_of "$out" "$name" "$dir/seeds"; mkdir -p "$dir/corpus"
    local opts=()
    mapfile -t opts < <(libfuzzer_options "$out" "$name")
    if "$t" -max_total_time="$secs" -timeout=25 -rss_limit_mb=2560 -print_final_stats=1 "${opts[@]}" \
         -artifact_prefix="$dir/" "$dir/corpus" "$dir/seeds" > "$log" 2>&1; then
      line=$(grep -E '^#[0-9]+' "$log" | tail -1)
      record libfuzzer "$name" PASS "$(echo "$line" | grep -oE 'cov: [0-9]+|exec/s: [0-9]+' | tr '\n' ' ')"
    else
      tail -40 "$log"; record libfuzzer "$name" FAIL "crashed or failed to start (see above)"
    fi
  done
}

check_afl() {
  local out=$1 t name dir stats
  for t in $(targets_in "$out"); do
    name=$(basename "$t") dir=$tmp/check/afl/$name
    mkdir -p "$dir"
    nm "$t" > "$dir.nm" 2>/dev/null
    if ! grep -q __afl_ "$dir.nm"; then record afl "$name" FAIL "not instrumented"; continue; fi
    seeds_of "$out" "$name" "$dir/seeds"
    find "$dir/seeds" -type f -size 0 -delete # afl-fuzz refuses empty seeds
    [ -n "$(ls -A "$dir/seeds")" ] || printf 'x' > "$dir/seeds/x"
    local extra=() mode=""
    [ -f "$out/afl_cmplog.txt" ] && extra+=(-c 0) mode=" (with CMPLOG, -c 0)"
    [ "$name" = fuzz_parse ] && extra+=(-x "$out/fuzz_parse.dict")
    AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
      AFL_SKIP_CRASHES=1 AFL_FAST_CAL=1 ASAN_OPTIONS=abort_on_error=1:symbolize=0:detect_leaks=0 \
      timeout $((secs + 60)) afl-fuzz -i "$dir/seeds" -o "$dir/findings" -V "$secs" -m none -t 5000 "${extra[@]}" \
      -- "$t" > "$dir.log" 2>&1
    stats=$dir/findings/default/fuzzer_stats
    if [ -f "$stats" ]; then
      local crashes execs eps edges
      crashes=$(awk -F': *' '/^saved_crashes|^unique_crashes/ {print $2; exit}' "$stats")
      execs=$(awk -F': *' '/^execs_done/ {print $2}' "$stats")
      eps=$(awk -F': *' '/^execs_per_sec/ {print $2}' "$stats")
      edges=$(awk -F': *' '/^edges_found/ {print $2}' "$stats")
      if [ "${crashes:-0}" = 0 ] && [ "${execs:-0}" -gt 0 ]; then
        record afl "$name" PASS "execs: $execs exec/s: $eps edges: $edges$mode"
      else
        record afl "$name" FAIL "crashes: $crashes (see $dir/findings/default/crashes)"
      fi
    else
      tail -30 "$dir.log"; record afl "$name" FAIL "afl-fuzz did not start"
    fi
  done
}

for e in "${engines[@]}"; do
  case "$e" in
    libfuzzer)
      echo "=== libFuzzer build ($sanitizer)"
      if build libfuzzer "$tmp/out/libfuzzer" "$tmp/work/libfuzzer"; then check_libfuzzer "$tmp/out/libfuzzer"
      else record libfuzzer build FAIL "build.sh failed"; fi ;;
    afl)
      cmplog=${RAVEL_AFL_CMPLOG:-1}
      echo "=== AFL++ build ($sanitizer), one build, CMPLOG $([ "$cmplog" = 1 ] && echo on || echo off)"
      if build afl "$tmp/out/afl" "$tmp/work/afl" $([ "$cmplog" = 1 ] && echo AFL_LLVM_CMPLOG=1); then
        [ "$cmplog" = 1 ] && touch "$tmp/out/afl/afl_cmplog.txt" # as compile_afl marks a CMPLOG build
        check_afl "$tmp/out/afl"
      else record afl build FAIL "build.sh failed"; fi ;;
    *) echo "oss-fuzz-local: unknown engine '$e' (libfuzzer, afl)" >&2; exit 2 ;;
  esac
done

echo "=== check_build-style results (${secs}s per target)"
printf '%s\n' "${results[@]}"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
