# bench: mutation - the checker's mutation table (bench/bench_mutation.c; the
# table of docs/checker.md: `bench_mutation` from a Release build, or
# `ravel bench mutation`).
ravel_add_executable(bench_mutation INTERNAL ${CMAKE_CURRENT_SOURCE_DIR}/bench_mutation.c)
target_link_libraries(bench_mutation PRIVATE ravel_fuzzlib)
ravel_fuzz_plain_main(bench_mutation)
# A quick run as a test: it fails if any injected bug that changes the
# program's results is accepted by the checker.
if(RAVEL_BUILD_TESTS)
  add_test(NAME fuzz.bench.mutation_quick COMMAND bench_mutation --funcs 6 --trials 1 --max-execs 60 -q
    -o ${CMAKE_CURRENT_BINARY_DIR}/mutation-quick)
endif()
