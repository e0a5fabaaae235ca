# bench: parse - .ra reader throughput, alone and with the validator
# (bench/bench_parse.c; run it from a Release build: `bench_parse --runs 5`).
ravel_add_executable(bench_parse INTERNAL ${CMAKE_CURRENT_SOURCE_DIR}/bench_parse.c)
target_link_libraries(bench_parse PRIVATE ravel_ir)
