# expect_rc.cmake - the one exit-status check of the CMake test scripts
# (run with cmake -P; include()d by tests/allocator/cli/cli_alloc.cmake,
# tests/allocator/shapes/shapes.cmake, tests/inject/cli_inject.cmake).
#
# expect_rc(WANT COMMAND...) runs COMMAND; a fatal error, with the command,
# its stdout and its stderr, unless it exits WANT. Sets LAST_OUT and
# LAST_ERR (its stdout and stderr) in the caller's scope.
function(expect_rc want)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL want)
    message(FATAL_ERROR "expected exit ${want}, got ${rc}: ${ARGN}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  set(LAST_OUT "${out}" PARENT_SCOPE)
  set(LAST_ERR "${err}" PARENT_SCOPE)
endfunction()
