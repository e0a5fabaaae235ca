# bench: fuzz - executions per second per core of every fuzz target
# (bench/bench_fuzz.c; run it from a Release build: `bench_fuzz --runs 5`).
ravel_add_executable(bench_fuzz ${CMAKE_CURRENT_SOURCE_DIR}/bench_fuzz.c)
target_link_libraries(bench_fuzz PRIVATE ravel_fuzzlib)
ravel_fuzz_plain_main(bench_fuzz)
# A quick run as a test: it fails if the generator rejects any input.
if(RAVEL_BUILD_TESTS)
  add_test(NAME fuzz.bench.quick COMMAND bench_fuzz --quick)
endif()
