# cli_expect.cmake - runs one `ravel` command and checks its exit status and
# output (stdout and stderr together).
#   cmake -DRAVEL=path -DARGS="a;b;c" -DEXIT=N [-DMATCH=regex] [-DNOMATCH=regex] -P cli_expect.cmake
execute_process(COMMAND ${RAVEL} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
if(NOT rc EQUAL EXIT)
  message(FATAL_ERROR "ravel ${ARGS}: exit ${rc}, expected ${EXIT}\n${all}")
endif()
if(DEFINED MATCH AND NOT all MATCHES "${MATCH}")
  message(FATAL_ERROR "ravel ${ARGS}: output does not match '${MATCH}':\n${all}")
endif()
if(DEFINED NOMATCH AND all MATCHES "${NOMATCH}")
  message(FATAL_ERROR "ravel ${ARGS}: output matches '${NOMATCH}':\n${all}")
endif()
