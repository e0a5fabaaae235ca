# bench: fuzz - executions per second per core of every fuzz target
# (bench/bench_fuzz.c; run it from a Release build: `bench_fuzz --runs 5`).
# (with the examples' allocators, which are not in the table, for the rows
# kit/slotalloc and kit/myalloc: examples/slotalloc's library, built in the
# tree, and examples/kit/myalloc.c, a stand-alone project's, compiled here)
ravel_add_library(bench_myalloc ${PROJECT_SOURCE_DIR}/examples/kit/myalloc.c)
ravel_add_executable(bench_fuzz INTERNAL ${CMAKE_CURRENT_SOURCE_DIR}/bench_fuzz.c)
target_link_libraries(bench_fuzz PRIVATE ravel_fuzzlib slotalloc bench_myalloc)
ravel_fuzz_plain_main(bench_fuzz)
# (its first line names the build: the sanitizers change what a fuzz execution costs;
# the `ravel` column of a -DRAVEL_SANITIZE=address,undefined build over a Release
# build's, both `--config 250`, is issue 32's sanitizer ratio: docs/benchmarks.md)
if(RAVEL_SANITIZE)
  set(_bench_build "${CMAKE_BUILD_TYPE}, sanitizers ${RAVEL_SANITIZE}")
else()
  set(_bench_build "${CMAKE_BUILD_TYPE}, no sanitizer")
endif()
target_compile_definitions(bench_fuzz PRIVATE "RAVEL_BENCH_BUILD=\"${_bench_build}\"")
# A quick run as a test: it fails if the generator rejects any input.
if(RAVEL_BUILD_TESTS)
  add_test(NAME fuzz.bench.quick COMMAND bench_fuzz --quick)
endif()
