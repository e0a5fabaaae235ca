# bench: check - the checker's time per instruction (10^3..10^6), its ratio
# to the fastest allocator on the same function, and its scratch memory per
# instruction (bench/bench_check.c; from a Release build: `bench_check`).
ravel_add_executable(bench_check INTERNAL ${CMAKE_CURRENT_SOURCE_DIR}/bench_check.c)
target_link_libraries(bench_check PRIVATE ravel_anycfg ravel_checker ravel_alloc ravel_gen ravel_ir)
if(RAVEL_BUILD_TESTS)
  add_test(NAME checker.bench.quick COMMAND bench_check --quick)
endif()
