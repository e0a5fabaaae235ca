# bench: validate - ravel_validate --ssa on generated functions, fast path
# against the careful path (bench/bench_validate.c; Release build:
# `bench_validate --runs 5`).
ravel_add_executable(bench_validate ${CMAKE_CURRENT_SOURCE_DIR}/bench_validate.c)
target_link_libraries(bench_validate PRIVATE ravel_gen)
