# json_summary.cmake - `ravel fuzz --json` end to end: the summary is one JSON
# object (parsed here with CMake's JSON reader) whose figures match the run.
#   cmake -DRAVEL=path -DOUT=dir -P json_summary.cmake
execute_process(COMMAND ${RAVEL} fuzz --count 12 --seed 42 -j 2 -q --json -o ${OUT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ravel fuzz --json: exit ${rc}\n${out}${err}")
endif()
string(JSON seed GET "${out}" seed)
string(JSON funcs GET "${out}" functions)
string(JSON jobs GET "${out}" jobs)
string(JSON oracle GET "${out}" oracle)
string(JSON crashes GET "${out}" crashes)
string(JSON outdir GET "${out}" outdir)
string(JSON nalloc LENGTH "${out}" allocators)
if(NOT seed STREQUAL "0x2a" OR NOT funcs EQUAL 12 OR NOT jobs EQUAL 2 OR NOT oracle STREQUAL "OFF"
   OR NOT crashes EQUAL 0 OR NOT outdir STREQUAL "${OUT}" OR NOT nalloc EQUAL 3)
  message(FATAL_ERROR "unexpected summary: seed ${seed} functions ${funcs} jobs ${jobs} oracle ${oracle} "
          "crashes ${crashes} outdir ${outdir} allocators ${nalloc}\n${out}")
endif()
set(names "")
math(EXPR last "${nalloc} - 1")
foreach(k RANGE ${last})
  string(JSON name GET "${out}" allocators ${k} name)
  string(JSON n GET "${out}" allocators ${k} functions)
  string(JSON insts GET "${out}" allocators ${k} instructions)
  string(JSON fails GET "${out}" allocators ${k} failures)
  string(JSON misses GET "${out}" allocators ${k} checker_misses)
  string(JSON us GET "${out}" allocators ${k} cpu_us_per_exec)
  if(NOT n EQUAL 12 OR NOT insts GREATER 12 OR NOT fails EQUAL 0 OR NOT misses EQUAL 0 OR NOT us GREATER 0)
    message(FATAL_ERROR "allocator ${name}: functions ${n} instructions ${insts} failures ${fails} "
            "checker_misses ${misses} cpu_us_per_exec ${us}\n${out}")
  endif()
  list(APPEND names ${name})
endforeach()
if(NOT names STREQUAL "fast;linear;random")
  message(FATAL_ERROR "allocators: ${names}")
endif()
