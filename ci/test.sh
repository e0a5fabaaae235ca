#!/usr/bin/env bash
# ci/test.sh - the test command (README): builds ravel with gcc and with clang,
# both under AddressSanitizer + UndefinedBehaviorSanitizer (Debug), and with gcc
# in Release, all with -Werror; runs the whole ctest suite in each; checks
# install + find_package from the Release build, and a libFuzzer target of
# the fuzzing kit built against that install (examples/kit); and prints
# "N passed, N failed" as its last line. It exits non-zero on any build error,
# failed test, ctest error or empty test suite.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bash ci/deps.sh --for test || { echo "ravel: could not install dependencies" >&2; exit 2; }

jobs=$(nproc 2>/dev/null || echo 2)
out=${RAVEL_TEST_DIR:-$root/build-test}
passed=0; failed=0; status=0
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# run_suite NAME COMPILER BUILD_TYPE [cmake options...]: configure, build and
# run the whole ctest suite. A suite fails on a build error, on ctest's
# non-zero exit status (a failed, crashed or timed-out test) and on zero tests.
run_suite() {
  local name=$1 cc=$2 type=$3 dir=$out/$1
  shift 3
  echo "=== $name: $cc, $type $* (build log: $dir.build.log)"
  if ! cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" -DCMAKE_C_COMPILER="$cc" \
        -DRAVEL_WERROR=ON "$@" >"$dir.configure.log" 2>&1; then
    cat "$dir.configure.log"; echo "=== $name: CONFIGURE FAILED"; failed=$((failed + 1)); status=1; return
  fi
  if ! cmake --build "$dir" -j "$jobs" >"$dir.build.log" 2>&1; then
    tail -50 "$dir.build.log"; echo "=== $name: BUILD FAILED"; failed=$((failed + 1)); status=1; return
  fi
  local rc=0
  ctest --test-dir "$dir" -j "$jobs" --output-on-failure --no-tests=error --timeout 900 >"$dir.ctest.log" 2>&1 || rc=$?
  local p f
  p=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed' "$dir.ctest.log" || true)
  f=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*(\*\*\*|Failed|Not Run|Timeout|Exception)' "$dir.ctest.log" || true)
  passed=$((passed + p)); failed=$((failed + f))
  # one line per suite; the whole log only when the suite failed
  echo "$name: $p passed, $f failed (ctest log: $dir.ctest.log)"
  if [ "$rc" -ne 0 ] || [ "$f" -ne 0 ]; then cat "$dir.ctest.log"; fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    # ctest failed without a failed test line: no tests, an aborted run, ...
    echo "=== $name: ctest exited with status $rc"; failed=$((failed + 1))
  fi
  if [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ "$rc" -eq 0 ]; then
    echo "=== $name: no test ran"; failed=$((failed + 1)); rc=1
  fi
  [ "$rc" -eq 0 ] && [ "$f" -eq 0 ] || status=1
}

mkdir -p "$out"
run_suite gcc-asan gcc Debug -DRAVEL_SANITIZE=address,undefined
run_suite clang-asan clang Debug -DRAVEL_SANITIZE=address,undefined
# Release with -Werror: the optimiser's warnings (-Wmaybe-uninitialized, ...)
# only show there; the suite runs there too (optimised code, no sanitizer).
inst=$out/install-tree
run_suite gcc-release gcc Release -DRAVEL_BUILD_BENCH=OFF -DRAVEL_INSTALL_SHARED=ON -DCMAKE_INSTALL_PREFIX="$inst"

# The installed package works with find_package(ravel): one library,
# ravel::ravel (libravel.a), and the shared libravel.so. Installed from the
# gcc Release build above (no extra build).
echo "=== install: find_package(ravel) from a consumer project"
rm -rf "$inst" "$out/consumer"
if cmake --install "$out/gcc-release" >"$out/install.log" 2>&1 &&
   cmake -S "$root/tests/install" -B "$out/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$inst" >>"$out/install.log" 2>&1 &&
   cmake --build "$out/consumer" >>"$out/install.log" 2>&1 &&
   "$out/consumer/jit_example" --verify >>"$out/install.log" 2>&1 &&
   "$out/consumer/jit_example_shared" --verify >>"$out/install.log" 2>&1 &&
   "$out/consumer/gen_consumer" >>"$out/install.log" 2>&1 &&
   # the tools a reproducer's header names are installed and run
   { "$inst/bin/ravel" check "$root/reproducers/linear-stale-slot-value.ra" >>"$out/install.log" 2>&1; [ $? -eq 1 ]; } &&
   "$inst/bin/ravel_replay" "$root/reproducers" >>"$out/install.log" 2>&1 &&
   # without CMake: the pkg-config file
   PKG_CONFIG_PATH="$inst/lib/pkgconfig" gcc -std=c11 "$root/examples/jit_example.c" \
     $(PKG_CONFIG_PATH="$inst/lib/pkgconfig" pkg-config --cflags --libs ravel) -o "$out/jit_example_pc" >>"$out/install.log" 2>&1 &&
   # libravel.so is installed too (RAVEL_INSTALL_SHARED): -lravel links it, so
   # the program finds it at run time through the prefix's lib directory
   LD_LIBRARY_PATH="$inst/lib" RAVEL_VERIFY=1 "$out/jit_example_pc" >>"$out/install.log" 2>&1 &&
   # one library: the static example links libravel.a and nothing else of ravel's
   # (its own build statement: gen_consumer links libravel_gen.a too)
   [ "$(sed -n '/^build jit_example:/,/^$/p' "$out/consumer/build.ninja" | grep -o 'lib/libravel[a-z_]*\.a' | sort -u)" = "lib/libravel.a" ]; then
  echo "install: 1 passed, 0 failed (log: $out/install.log)"; passed=$((passed + 1))
else
  tail -30 "$out/install.log"; echo "install: 0 passed, 1 failed (log: $out/install.log)"; failed=$((failed + 1)); status=1
fi

# The fuzzing kit against the installed package (find_package(ravel
# COMPONENTS fuzz)): examples/kit builds the libFuzzer target of the example
# allocator with clang -fsanitize=fuzzer,address,undefined; a bounded run
# without a bug is clean, with the planted bug (MYALLOC_BUG=sub-use) it
# crashes within the bound with the reproducer on stderr, and the crash
# input is reduced outside the process against the allocator's one-shot
# command (ravel reduce --from-fuzz kit). About 30 s.
echo "=== kit: a libFuzzer target of the fuzzing kit against the install (examples/kit)"
kit=$out/kit
rm -rf "$kit"
mkdir -p "$kit"
if [ -d "$inst/lib/cmake/ravel" ] &&
   cmake -S "$root/examples/kit" -B "$kit/build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_PREFIX_PATH="$inst" >"$out/kit.log" 2>&1 &&
   cmake --build "$kit/build" >>"$out/kit.log" 2>&1 &&
   [ -x "$kit/build/fuzz_myalloc" ] &&
   # no bug: a clean bounded run
   "$kit/build/fuzz_myalloc" -runs=3000 -seed=1 -artifact_prefix="$kit/clean-" >>"$out/kit.log" 2>&1 &&
   # the planted bug: a crash within the bound, the reproducer on stderr
   { MYALLOC_BUG=sub-use "$kit/build/fuzz_myalloc" -runs=3000 -seed=1 -artifact_prefix="$kit/" >"$kit/bug.log" 2>&1; [ $? -ne 0 ]; } &&
   grep -q '^==== ravel: bug found; reproducer follows ====$' "$kit/bug.log" &&
   grep -q '^# kit: myalloc' "$kit/bug.log" &&
   crash=$(ls "$kit"/crash-* 2>/dev/null | head -1) && [ -n "$crash" ] &&
   # reduced outside the process, against the same allocator as a command
   MYALLOC_BUG=sub-use "$inst/bin/ravel" reduce -q --time 60 --machine "$root/examples/kit/machine.ra" --no-safepoints \
     --alloc-cmd "$kit/build/myalloc_cmd" --from-fuzz kit "$crash" -o "$kit/reduced.ra" >>"$out/kit.log" 2>&1 &&
   grep -q 'error\[use-wrong-vreg\]' "$kit/reduced.ra"; then
  echo "kit: 1 passed, 0 failed (log: $out/kit.log, $kit/bug.log)"; passed=$((passed + 1))
else
  tail -30 "$out/kit.log"; tail -30 "$kit/bug.log" 2>/dev/null
  echo "kit: 0 passed, 1 failed (log: $out/kit.log)"; failed=$((failed + 1)); status=1
fi

# The same for the slot allocator of examples/slotalloc (an allocator on the
# public API with planted bugs, SLOTALLOC_BUG): its kit target
# (fuzz_slotalloc.c, consumer/ against the install) clean, then a planted
# bug found, and the crash input reduced against slotalloc_server (frames),
# the printed reproducer giving the machine (--machine). About 20 s.
if [ -f "$root/examples/slotalloc/slotalloc.c" ]; then
  echo "=== kit-slotalloc: the slot allocator's kit target against the install (examples/slotalloc/consumer)"
  sa=$out/kit-slotalloc
  rm -rf "$sa"
  mkdir -p "$sa"
  if [ -d "$inst/lib/cmake/ravel" ] &&
     cmake -S "$root/examples/slotalloc/consumer" -B "$sa/build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_PREFIX_PATH="$inst" >"$out/kit-slotalloc.log" 2>&1 &&
     cmake --build "$sa/build" >>"$out/kit-slotalloc.log" 2>&1 &&
     "$sa/build/fuzz_slotalloc" -runs=3000 -seed=1 -artifact_prefix="$sa/clean-" >>"$out/kit-slotalloc.log" 2>&1 &&
     { SLOTALLOC_BUG=reload "$sa/build/fuzz_slotalloc" -runs=3000 -seed=1 -artifact_prefix="$sa/" >"$sa/bug.log" 2>&1; [ $? -ne 0 ]; } &&
     grep -q '^# kit: slotalloc' "$sa/bug.log" &&
     sed -n '/^==== ravel: bug found; reproducer follows ====$/,/^==== end of reproducer ====$/p' "$sa/bug.log" | sed '1d;$d' >"$sa/repro.ra" &&
     crash=$(ls "$sa"/crash-* 2>/dev/null | head -1) && [ -n "$crash" ] &&
     SLOTALLOC_BUG=reload "$inst/bin/ravel" reduce -q --time 60 --machine "$sa/repro.ra" \
       --alloc-cmd "$sa/build/slotalloc/slotalloc_server" --alloc-protocol frames --from-fuzz kit "$crash" \
       -o "$sa/reduced.ra" >>"$out/kit-slotalloc.log" 2>&1 &&
     grep -q '^#   .*error\[' "$sa/reduced.ra"; then
    echo "kit-slotalloc: 1 passed, 0 failed (log: $out/kit-slotalloc.log, $sa/bug.log)"; passed=$((passed + 1))
  else
    tail -30 "$out/kit-slotalloc.log"; tail -30 "$sa/bug.log" 2>/dev/null
    echo "kit-slotalloc: 0 passed, 1 failed (log: $out/kit-slotalloc.log)"; failed=$((failed + 1)); status=1
  fi
else
  echo "kit-slotalloc: skipped (no examples/slotalloc/slotalloc.c)"
fi

echo "$passed passed, $failed failed"
exit $status
