# Round-trips every .ra file in the repository (globbed at test time, so new
# corpus entries and reproducers are covered without reconfiguring).
# Usage: cmake -DDRIVER=path/to/text_driver -DROOT=source-dir -P roundtrip.cmake
file(GLOB_RECURSE files "${ROOT}/corpus/*.ra" "${ROOT}/reproducers/*.ra" "${ROOT}/tests/*.ra")
list(FILTER files EXCLUDE REGEX "/build")
list(LENGTH files n)
if(n EQUAL 0)
  message(FATAL_ERROR "no .ra files found under ${ROOT}")
endif()
execute_process(COMMAND "${DRIVER}" roundtrip ${files} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "round trip failed (${rc})")
endif()
