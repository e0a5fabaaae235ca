# fuzz/targets.cmake - the fuzzing library and the fuzz targets (included by
# fuzz/CMakeLists.txt).
#
#   ravel_fuzzlib     campaign.c (`ravel fuzz`) + fuzzlib*.c (the one-input oracles,
#                       fuzzlib.h maps them)
#                     + extalloc.c (external allocators as processes, --alloc-cmd)
#                     + mutation.c (the checker's mutation table, bench_mutation)
#                     + kit.c (the fuzzing kit, include/ravel_fuzz.h; installed as
#                       ravel::fuzz, libravel_fuzz.a: see the top CMakeLists.txt)
#   fuzz_alloc, fuzz_alloc_<name> (one per allocator of allocator/allocators.def),
#   fuzz_differential, fuzz_parse, fuzz_moves, fuzz_checker_oracle,
#   fuzz_checker_paths (every checker path against the reference, on
#                     allocated functions of any CFG: ravel_anycfg),
#   fuzz_mir          (the MIR readers, S1 and the import: ravel_import)
#                     thin harnesses (LLVMFuzzerTestOneInput), linked to the
#                     engine picked by RAVEL_FUZZ_ENGINE:
#       none       driver_standalone.c: replays files/directories (any compiler)
#       libfuzzer  clang -fsanitize=fuzzer (sanitizers come from RAVEL_SANITIZE)
#       afl        driver_afl.c: AFL++ persistent mode (CC=afl-clang-fast; for the
#                  CMPLOG build, configure a second build dir and build it with
#                  AFL_LLVM_CMPLOG=1 in the environment), or RAVEL_FUZZ_AFL_DRIVER
#                  (e.g. /usr/lib/afl/libAFLDriver.a)
#       env        $LIB_FUZZING_ENGINE (OSS-Fuzz / ClusterFuzzLite)
#   ravel_replay      replays reproducers/*.ra (driver_replay.c), every build
# Executables land in ${CMAKE_BINARY_DIR}/fuzz/.

# Allocated functions on arbitrary CFGs (irreducible cycles included) for
# testing the checker's paths against its reference (fuzz/anycfg.h).
ravel_add_library(ravel_anycfg ${CMAKE_CURRENT_SOURCE_DIR}/anycfg.c)
target_link_libraries(ravel_anycfg PUBLIC ravel_checker ravel_ir)

set(RAVEL_FUZZLIB_SOURCES
  campaign.c                                   # `ravel fuzz`: workers, counts, summary
  fuzzlib.c                                    # the oracles' context, reproducers, entry points, warm-up
  fuzzlib_alloc.c fuzzlib_oracle.c             # the allocation oracle; the checker oracle
  fuzzlib_redef.c                              # non-SSA redefinitions of correct allocations
  fuzzlib_parse.c fuzzlib_replay.c fuzzlib_moves.c # round trip; reproducer replay; parallel moves
  extalloc.c                                   # external allocators as processes
  mutation.c                                   # the checker's mutation table
  kit.c)                                       # the fuzzing kit (include/ravel_fuzz.h)
list(TRANSFORM RAVEL_FUZZLIB_SOURCES PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
ravel_add_library(ravel_fuzzlib ${RAVEL_FUZZLIB_SOURCES})
target_link_libraries(ravel_fuzzlib PUBLIC ravel_gen ravel_checker ravel_alloc ravel_inject ravel_ir PRIVATE ravel_anycfg)

set(RAVEL_FUZZ_AFL_DRIVER "" CACHE FILEPATH "afl engine: link this driver (e.g. libAFLDriver.a) instead of fuzz/driver_afl.c")
set(RAVEL_FUZZ_OUTPUT_DIR ${CMAKE_BINARY_DIR}/fuzz)

# Allocator names, from the one list that allocator/table.c also includes
# (allocators.def: one `RV_ALLOCATOR(NAME, ...` line each). No entry is a
# configuration error: the fuzz_alloc_NAME targets would silently vanish.
set(_rv_alloc_def ${PROJECT_SOURCE_DIR}/allocator/allocators.def)
file(STRINGS ${_rv_alloc_def} _rv_alloc_lines REGEX "^RV_ALLOCATOR\\(")
set(RAVEL_FUZZ_ALLOCATORS "")
foreach(_line IN LISTS _rv_alloc_lines)
  if(NOT _line MATCHES "^RV_ALLOCATOR\\(([a-z0-9_]+),")
    message(FATAL_ERROR "${_rv_alloc_def}: cannot read the allocator's name in: ${_line}")
  endif()
  list(APPEND RAVEL_FUZZ_ALLOCATORS ${CMAKE_MATCH_1})
endforeach()
if(NOT RAVEL_FUZZ_ALLOCATORS)
  message(FATAL_ERROR "${_rv_alloc_def}: no RV_ALLOCATOR(NAME, ...) line")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_rv_alloc_def})

# Links target `t` to the chosen engine.
function(ravel_fuzz_engine t)
  if(RAVEL_FUZZ_ENGINE STREQUAL "libfuzzer")
    target_compile_options(${t} PRIVATE -fsanitize=fuzzer)
    target_link_options(${t} PRIVATE -fsanitize=fuzzer)
  elseif(RAVEL_FUZZ_ENGINE STREQUAL "afl")
    if(RAVEL_FUZZ_AFL_DRIVER)
      target_link_libraries(${t} PRIVATE ${RAVEL_FUZZ_AFL_DRIVER} stdc++)
    else()
      target_sources(${t} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/driver_afl.c)
    endif()
  elseif(RAVEL_FUZZ_ENGINE STREQUAL "env")
    if(NOT DEFINED ENV{LIB_FUZZING_ENGINE} OR "$ENV{LIB_FUZZING_ENGINE}" STREQUAL "")
      message(FATAL_ERROR "RAVEL_FUZZ_ENGINE=env needs $LIB_FUZZING_ENGINE")
    endif()
    separate_arguments(_engine UNIX_COMMAND "$ENV{LIB_FUZZING_ENGINE}")
    foreach(_e IN LISTS _engine)
      if(_e MATCHES "^-")
        target_link_options(${t} PRIVATE ${_e})
      else()
        target_link_libraries(${t} PRIVATE ${_e})
        if(_e MATCHES "\\.a$")
          target_link_libraries(${t} PRIVATE stdc++) # engine archives are C++ (libAFLDriver, libFuzzingEngine)
        endif()
      endif()
    endforeach()
  elseif(RAVEL_FUZZ_ENGINE STREQUAL "none")
    target_sources(${t} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/driver_standalone.c)
    target_compile_definitions(${t} PRIVATE RV_HARNESS_WARM_UP=0u) # no coverage: nothing to keep stable
  else()
    message(FATAL_ERROR "RAVEL_FUZZ_ENGINE must be none, libfuzzer, afl or env (got '${RAVEL_FUZZ_ENGINE}')")
  endif()
endfunction()

# ravel_fuzz_plain_main(TARGET): a program with its own main() (tests, the
# replay driver) in a libfuzzer build: the library code carries coverage
# hooks (fuzzer-no-link), which the sanitizer runtimes define; without a
# sanitizer, link libFuzzer's runtime without its main().
function(ravel_fuzz_plain_main t)
  if(RAVEL_FUZZ_ENGINE STREQUAL "libfuzzer" AND NOT RAVEL_SANITIZE)
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libclang_rt.fuzzer_no_main-${CMAKE_SYSTEM_PROCESSOR}.a
      OUTPUT_VARIABLE _nomain OUTPUT_STRIP_TRAILING_WHITESPACE)
    target_link_libraries(${t} PRIVATE ${_nomain} stdc++ m pthread)
  endif()
endfunction()

# ravel_add_fuzz_target(NAME SOURCE [DEFINITIONS...])
function(ravel_add_fuzz_target name src)
  ravel_add_executable(${name} INTERNAL ${CMAKE_CURRENT_SOURCE_DIR}/${src})
  target_link_libraries(${name} PRIVATE ravel_fuzzlib)
  if(ARGN)
    target_compile_definitions(${name} PRIVATE ${ARGN})
  endif()
  ravel_fuzz_engine(${name})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${RAVEL_FUZZ_OUTPUT_DIR})
  set_property(GLOBAL APPEND PROPERTY RAVEL_FUZZ_TARGETS ${name})
endfunction()

ravel_add_fuzz_target(fuzz_alloc fuzz_alloc.c)
foreach(_a IN LISTS RAVEL_FUZZ_ALLOCATORS)
  ravel_add_fuzz_target(fuzz_alloc_${_a} fuzz_alloc.c "RV_FUZZ_ALLOCATOR=\"${_a}\"")
endforeach()
ravel_add_fuzz_target(fuzz_differential fuzz_differential.c)
ravel_add_fuzz_target(fuzz_parse fuzz_parse.c)
ravel_add_fuzz_target(fuzz_moves fuzz_moves.c)
ravel_add_fuzz_target(fuzz_checker_oracle fuzz_checker_oracle.c)
ravel_add_fuzz_target(fuzz_checker_paths fuzz_checker_paths.c)
target_link_libraries(fuzz_checker_paths PRIVATE ravel_anycfg)
ravel_add_fuzz_target(fuzz_mir fuzz_mir.c)
target_link_libraries(fuzz_mir PRIVATE ravel_import)

# One target to build them all: `ninja fuzz_targets` (used by ci/oss-fuzz/build.sh).
get_property(_rv_all GLOBAL PROPERTY RAVEL_FUZZ_TARGETS)
add_custom_target(fuzz_targets DEPENDS ${_rv_all})

# The reproducer replay, independent of the engine (no LLVMFuzzerTestOneInput).
ravel_add_executable(ravel_replay INTERNAL ${CMAKE_CURRENT_SOURCE_DIR}/driver_replay.c)
target_link_libraries(ravel_replay PRIVATE ravel_fuzzlib)
ravel_fuzz_plain_main(ravel_replay)
set_target_properties(ravel_replay PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${RAVEL_FUZZ_OUTPUT_DIR})
# Installed beside `ravel`: every reproducer's header names it.
install(TARGETS ravel_replay RUNTIME DESTINATION bin)
