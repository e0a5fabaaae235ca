# `ravel alloc --inject` end to end: --inject list names every kind; a
# corruption is deterministic in its seed, said on stderr, and rejected by
# `ravel check --orig` for the kinds that break a rule; no site is exit 1;
# a bad kind or seed is exit 2. Inputs: RAVEL, ROOT, OUT.
include(${CMAKE_CURRENT_LIST_DIR}/../support/expect_rc.cmake)

file(MAKE_DIRECTORY ${OUT})
expect_rc(0 ${RAVEL} alloc --inject list)
set(kinds use-reg drop-spill drop-reload reload-slot slot-reuse move-swap pmove-cycle call-clobber fixed reuse
    early-def edge-move spill-one-path stale-loop arg-swap smap-missing smap-nonref ref-in-reg reg-on-stack
    stack-in-reg late-use defs-one-reg wrong-class reserved smap-dropped no-loc slot-to-slot
    subreg-write narrow-spill remat-wrong remat-one-path undef-join)
foreach(k IN LISTS kinds)
  if(NOT LAST_OUT MATCHES "(^|\n)${k} ")
    message(FATAL_ERROR "--inject list does not show ${k}:\n${LAST_OUT}")
  endif()
endforeach()

# Rule-breaking kinds: on one of a few generated functions, applied and rejected.
foreach(seed 1 2 3 4 5)
  expect_rc(0 ${RAVEL} gen --seed ${seed} -o ${OUT}/g${seed}.ra)
endforeach()
foreach(k use-reg fixed reuse early-def smap-nonref)
  set(caught 0)
  foreach(seed 1 2 3 4 5)
    set(o ${OUT}/g${seed}.${k}.ra)
    execute_process(COMMAND ${RAVEL} alloc -a linear --inject ${k}:3 -o ${o} ${OUT}/g${seed}.ra
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(rc EQUAL 0)
      if(NOT err MATCHES "inject ${k}: f: block ")
        message(FATAL_ERROR "--inject ${k} does not say where:\n${err}")
      endif()
      execute_process(COMMAND ${RAVEL} check ${o} --orig ${OUT}/g${seed}.ra RESULT_VARIABLE crc OUTPUT_QUIET ERROR_QUIET)
      if(crc EQUAL 1)
        set(caught 1)
        break()
      endif()
    elseif(NOT rc EQUAL 1)
      message(FATAL_ERROR "--inject ${k}: exit ${rc}\n${err}")
    endif()
  endforeach()
  if(NOT caught)
    message(FATAL_ERROR "--inject ${k}: never applied and rejected on 5 generated functions")
  endif()
endforeach()

# Deterministic: the same seed gives the same file.
expect_rc(0 ${RAVEL} alloc -a linear --inject use-reg:9 -o ${OUT}/d1.ra ${OUT}/g1.ra)
expect_rc(0 ${RAVEL} alloc -a linear --inject use-reg:9 -o ${OUT}/d2.ra ${OUT}/g1.ra)
file(READ ${OUT}/d1.ra d1)
file(READ ${OUT}/d2.ra d2)
if(NOT d1 STREQUAL d2)
  message(FATAL_ERROR "--inject use-reg:9 is not deterministic")
endif()

# No site (sum.ra has no safepoint): exit 1, said, and no file written.
file(REMOVE ${OUT}/sum.ra)
expect_rc(1 ${RAVEL} alloc -a fast --inject smap-nonref -o ${OUT}/sum.ra ${ROOT}/corpus/ra/sum.ra)
if(NOT LAST_ERR MATCHES "not applicable")
  message(FATAL_ERROR "no site is not reported:\n${LAST_ERR}")
endif()
if(EXISTS ${OUT}/sum.ra)
  message(FATAL_ERROR "--inject with no site wrote ${OUT}/sum.ra")
endif()

# Bad usage.
expect_rc(2 ${RAVEL} alloc -a fast --inject no-such-kind ${ROOT}/corpus/ra/sum.ra)
expect_rc(2 ${RAVEL} alloc -a fast --inject use-reg:x ${ROOT}/corpus/ra/sum.ra)
expect_rc(2 ${RAVEL} alloc -a fast ${ROOT}/corpus/ra/sum.ra --inject)

# No site: nothing is written (stdout empty, -o OUT left untouched), exit 1.
file(WRITE ${OUT}/nocall.ra "machine\n  class int r0 r1\nend\nfunc f\nb0:\n  v0:int = const 1\n  ret v0\nend\n")
execute_process(COMMAND ${RAVEL} alloc -a linear --inject call-clobber ${OUT}/nocall.ra
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT out STREQUAL "" OR NOT err MATCHES "no site")
  message(FATAL_ERROR "--inject with no site: exit ${rc}, stdout '${out}', stderr '${err}'")
endif()
file(WRITE ${OUT}/keep.ra "untouched\n")
execute_process(COMMAND ${RAVEL} alloc -a linear --inject call-clobber -o ${OUT}/keep.ra ${OUT}/nocall.ra RESULT_VARIABLE rc)
file(READ ${OUT}/keep.ra kept)
if(NOT rc EQUAL 1 OR NOT kept STREQUAL "untouched\n")
  message(FATAL_ERROR "--inject with no site: -o OUT changed (exit ${rc}): ${kept}")
endif()
