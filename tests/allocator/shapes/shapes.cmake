# Hand-written allocations of the shapes the random allocator makes, each
# NAME.ok.ra correct and NAME.wrong.ra the same with the shape's bug:
# `ravel check --orig NAME.orig.ra` must verify the first and reject the
# second, and the interpreter must agree with the first and see the second
# differ (so the wrong ones are really wrong). Inputs: RAVEL, DIR.
include(${CMAKE_CURRENT_LIST_DIR}/../../support/expect_rc.cmake)

file(GLOB origs ${DIR}/*.orig.ra)
set(n 0)
foreach(orig IN LISTS origs)
  string(REGEX REPLACE "\\.orig\\.ra$" "" base ${orig})
  expect_rc(0 ${RAVEL} check --orig ${orig} ${base}.ok.ra)
  expect_rc(0 ${RAVEL} run --compare ${orig} ${base}.ok.ra)
  expect_rc(1 ${RAVEL} check --orig ${orig} ${base}.wrong.ra)
  expect_rc(1 ${RAVEL} check ${base}.wrong.ra)
  expect_rc(1 ${RAVEL} run --compare ${orig} ${base}.wrong.ra)
  math(EXPR n "${n} + 1")
endforeach()
if(n LESS 5)
  message(FATAL_ERROR "only ${n} shape cases in ${DIR}")
endif()
