#!/bin/bash -eu
# examples/oss-fuzz/build.sh - OSS-Fuzz (and ClusterFuzzLite) build script for
# YOUR project's fuzzing-kit targets (include/ravel_fuzz.h): copy it to
# projects/<yours>/build.sh and adapt the last step.
#
#   1. builds ravel with OSS-Fuzz's $CC and $CFLAGS (sanitizers and coverage
#      instrumentation, as your code) and installs it into a prefix;
#   2. builds your kit targets against that install, linked with
#      $LIB_FUZZING_ENGINE (libFuzzer, AFL++'s libAFLDriver, ...), into $OUT.
#
# Assumed layout (Dockerfile here): ravel in $SRC/ravel, your project in
# $PROJECT_SRC (default: ravel's own examples/kit, which builds as is).
# Your project's CMakeLists.txt takes the engine as FUZZ_ENGINE_LIBS and
# extra flags as FUZZ_ENGINE_FLAGS (examples/kit/CMakeLists.txt).
ravel_src=${RAVEL_SRC:-$SRC/ravel}
project_src=${PROJECT_SRC:-$ravel_src/examples/kit}
prefix=$WORK/ravel-install

# 1. ravel, instrumented like your code. CMAKE_BUILD_TYPE=None: only
# $CFLAGS; RAVEL_SANITIZE= because the sanitizers come from $CFLAGS.
cmake -S "$ravel_src" -B "$WORK/ravel-build" -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_C_COMPILER="$CC" \
  -DRAVEL_SANITIZE= -DRAVEL_BUILD_TESTS=OFF -DRAVEL_BUILD_BENCH=OFF -DCMAKE_INSTALL_PREFIX="$prefix"
cmake --build "$WORK/ravel-build" -j "$(nproc)"
cmake --install "$WORK/ravel-build"

# 2. your targets, against the install (find_package(ravel COMPONENTS fuzz)).
cmake -S "$project_src" -B "$WORK/project-build" -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_C_COMPILER="$CC" \
  -DCMAKE_PREFIX_PATH="$prefix" -DFUZZ_ENGINE_FLAGS= -DFUZZ_ENGINE_LIBS="$LIB_FUZZING_ENGINE"
cmake --build "$WORK/project-build" -j "$(nproc)"
for t in fuzz_myalloc; do # your targets
  cp "$WORK/project-build/$t" "$OUT/"
done
# A seed corpus is optional: every input is a valid function. An .options
# file may set libFuzzer's flags, e.g. ravel's own targets use
#   [libfuzzer]
#   entropic_feature_frequency_threshold = 4
printf '[libfuzzer]\nentropic_feature_frequency_threshold = 4\n' > "$OUT/fuzz_myalloc.options"
echo "kit targets in $OUT:"
ls "$OUT"
