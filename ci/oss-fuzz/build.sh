#!/bin/bash -eu
# ci/oss-fuzz/build.sh - builds every ravel fuzz target the OSS-Fuzz way.
#
# Inputs (set by OSS-Fuzz, ClusterFuzzLite, or ci/oss-fuzz-local.sh):
#   $CC $CFLAGS          compiler and flags (sanitizer + coverage instrumentation)
#   $LIB_FUZZING_ENGINE  the engine to link (-fsanitize=fuzzer, libAFLDriver.a, ...)
#   $SRC                 where the source is ($SRC/ravel)
#   $OUT                 where targets, seed corpora, dictionaries and .options go
#   $WORK                scratch space (the CMake build directory)
# Produces in $OUT: every fuzz_* target, <target>_seed_corpus.zip,
# fuzz_parse.dict and <target>.options.
# AFL++ (CC=afl-clang-fast) is built once, as OSS-Fuzz's compile_afl does:
# CMPLOG comes from the environment (AFL_LLVM_CMPLOG=1 instruments the same
# binaries for it; afl-fuzz then runs them with -c 0).
src=${RAVEL_SRC:-$SRC/ravel}
build=$WORK/ravel-build
echo "ravel: building fuzz targets with CC=$CC engine=$LIB_FUZZING_ENGINE"
# AFL++ only (afl-clang-fast reads it): functions left uninstrumented, see
# fuzz/afl_denylist.txt (a stable edge map)
export AFL_LLVM_DENYLIST="$src/fuzz/afl_denylist.txt"
# CMAKE_BUILD_TYPE=None: only OSS-Fuzz's $CFLAGS; sanitizers come from them too.
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_C_COMPILER="$CC" \
  -DRAVEL_FUZZ_ENGINE=env -DRAVEL_SANITIZE= -DRAVEL_BUILD_TESTS=OFF -DRAVEL_BUILD_BENCH=OFF
cmake --build "$build" --target fuzz_targets -j "$(nproc)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for bin in "$build"/fuzz/fuzz_*; do
  [ -f "$bin" ] && [ -x "$bin" ] || continue
  t=$(basename "$bin")
  cp "$bin" "$OUT/$t"
  # corpus and options: fuzz_alloc_NAME shares fuzz_alloc's, each seed
  # without its first byte (fuzz_alloc's allocator selector; NAME fixes it)
  base=$t
  case "$t" in fuzz_alloc_*) base=fuzz_alloc ;; esac
  rm -rf "$tmp/seeds" && mkdir -p "$tmp/seeds"
  if [ "$base" != "$t" ] && [ -d "$src/corpus/$base" ]; then
    for f in "$src/corpus/$base"/*; do [ -f "$f" ] && tail -c +2 "$f" > "$tmp/seeds/$(basename "$f")"; done
  elif [ -d "$src/corpus/$base" ]; then
    cp "$src/corpus/$base"/* "$tmp/seeds/" 2>/dev/null || true
  fi
  if [ "$base" = fuzz_parse ]; then # every .ra file of the repository is a parser seed
    for f in "$src"/corpus/ra/*.ra "$src"/reproducers/*.ra; do [ -f "$f" ] && cp "$f" "$tmp/seeds/"; done
  fi
  rm -f "$OUT/${t}_seed_corpus.zip"
  if [ -n "$(ls -A "$tmp/seeds")" ]; then
    (cd "$tmp/seeds" && zip -q -j "$OUT/${t}_seed_corpus.zip" ./*)
  fi
  [ -f "$src/fuzz/$base.options" ] && cp "$src/fuzz/$base.options" "$OUT/$t.options"
done
cp "$src/fuzz/fuzz_parse.dict" "$OUT/"
echo "ravel: fuzz targets in $OUT:"
ls "$OUT"
