# bench: validate - ravel_validate --ssa on generated functions, fast path
# against the careful path (bench/bench_validate.c; Release build:
# `bench_validate --runs 5`).
ravel_add_executable(bench_validate INTERNAL ${CMAKE_CURRENT_SOURCE_DIR}/bench_validate.c)
target_link_libraries(bench_validate PRIVATE ravel_gen)
# A quick run as a test: it fails if any generated function does not validate.
if(RAVEL_BUILD_TESTS)
  add_test(NAME validate.bench.quick COMMAND bench_validate --funcs 20 --runs 1 --seconds 0)
endif()
