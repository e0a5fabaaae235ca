# bench: extalloc - the per-function overhead of an external allocator's
# frames protocol (bench/bench_extalloc.c) against a trivial server that
# answers with a built-in allocator (bench/extalloc_server.c).
ravel_add_executable(extalloc_server ${CMAKE_CURRENT_SOURCE_DIR}/extalloc_server.c)
target_link_libraries(extalloc_server PRIVATE ravel)
ravel_fuzz_plain_main(extalloc_server)
ravel_add_executable(bench_extalloc INTERNAL ${CMAKE_CURRENT_SOURCE_DIR}/bench_extalloc.c)
target_link_libraries(bench_extalloc PRIVATE ravel_fuzzlib)
target_compile_definitions(bench_extalloc PRIVATE RAVEL_EXTALLOC_SERVER="$<TARGET_FILE:extalloc_server>")
add_dependencies(bench_extalloc extalloc_server)
ravel_fuzz_plain_main(bench_extalloc)
if(RAVEL_BUILD_TESTS)
  add_test(NAME fuzz.bench.extalloc_quick COMMAND bench_extalloc --quick)
  set_tests_properties(fuzz.bench.extalloc_quick PROPERTIES PASS_REGULAR_EXPRESSION "frames overhead")
endif()
