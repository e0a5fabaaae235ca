# bench: alloc - allocation time per instruction (10^3..10^6 instructions)
# and weighted cost on the corpus and generated functions, for every
# allocator of the table (bench/bench_alloc.c; from a Release build:
# `bench_alloc --runs 5 --corpus corpus/ra`); `bench_alloc --funcs 2000
# [--alloc fast]` times fuzz-sized (~250-instruction) functions alone, the
# mode to profile with valgrind --tool=callgrind.
ravel_add_executable(bench_alloc INTERNAL ${CMAKE_CURRENT_SOURCE_DIR}/bench_alloc.c)
target_link_libraries(bench_alloc PRIVATE ravel_alloc ravel_gen ravel_ir)
target_compile_definitions(bench_alloc PRIVATE RAVEL_DEFAULT_CORPUS="${PROJECT_SOURCE_DIR}/corpus/ra")
if(RAVEL_BUILD_TESTS)
  add_test(NAME allocator.bench.quick COMMAND bench_alloc --quick --corpus ${PROJECT_SOURCE_DIR}/corpus/ra)
endif()
