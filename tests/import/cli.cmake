# cli.cmake - `ravel import-mir`: help, usage errors, bad input with
# FILE:LINE:COL, and the stages on files (tag, join) without LLVM.
#   cmake -DRAVEL=... -DSRC=tests/import -DTMP=dir -P cli.cmake
set(failures 0)
file(REMOVE_RECURSE ${TMP})
file(MAKE_DIRECTORY ${TMP})

# expect(EXIT REGEX args...): runs ravel with args; exit status EXIT and
# stdout+stderr matching REGEX.
function(expect code regex)
  execute_process(COMMAND ${RAVEL} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "${code}" OR NOT "${out}${err}" MATCHES "${regex}")
    message("FAIL: ravel ${ARGN}\n  exit ${rc} (want ${code})\n  output: ${out}${err}\n  want: ${regex}")
    math(EXPR f "${failures} + 1")
    set(failures ${f} PARENT_SCOPE)
  endif()
endfunction()

set(HINT "'ravel import-mir [a-z]+ --help' lists the options")
expect(2 "usage: ravel import-mir SUBCOMMAND" import-mir)
expect(0 "usage: ravel import-mir SUBCOMMAND" import-mir --help)
expect(2 "unknown subcommand 'frob'" import-mir frob)
foreach(sub run tag join)
  expect(0 "usage: ravel import-mir ${sub}" import-mir ${sub} --help)
  expect(2 "usage: ravel import-mir ${sub}" import-mir ${sub})
endforeach()
expect(2 "ravel import-mir join: bad value 'linear' for --alloc \\(want greedy, basic, fast or pbqp\\)" import-mir join --alloc linear a b c -o d)
expect(2 "ravel import-mir join: --alloc is required" import-mir join a b c -o d)
expect(2 "ravel import-mir join: needs TAG.mir, DUMPS.txt and POST.mir" import-mir join --alloc greedy a b -o d)
expect(2 "ravel import-mir run: bad value '7' for -O \\(want 0, 1, 2 or 3\\)" import-mir run x.c -O7 -o d)
expect(2 "ravel import-mir run: unknown option '--frob'" import-mir run x.c --frob -o d)
expect(2 "ravel import-mir run: -o DIR is required" import-mir run x.c)
expect(2 "ravel import-mir run: no llc-98 \\(install the Debian package llvm-98\\)" import-mir run x.c --llvm 98 -o ${TMP}/x)
expect(2 "ravel: [^\n]*nothere.mir: No such file" import-mir tag ${TMP}/nothere.mir)

# Bad input: FILE:LINE:COL and a caret, exit 2, never a crash.
file(WRITE ${TMP}/bad.mir "--- |\n  define void @f() !dbg !3 {\n  ret void\n  }\n...\n---\nname: f\nbody: |\n  bb.0:\n    %1:gr64 = COPY %x\n...\n")
expect(2 "bad.mir:10:[0-9]+: error: unsupported virtual register[^\n]*\n[^\n]*COPY %x\n *\\^" import-mir tag ${TMP}/bad.mir)
file(WRITE ${TMP}/empty.mir "")
expect(2 "empty.mir:1:1: error: no machine function in this file" import-mir tag ${TMP}/empty.mir)
expect(2 "empty.mir:1:1: error: no machine function" import-mir join --alloc greedy ${TMP}/empty.mir ${TMP}/empty.mir ${TMP}/empty.mir -o ${TMP}/j)

# The stages on the recorded f6 (greedy): tag gives the recorded tag.mir
# from the recorded pre.mir, join the recorded .ra files.
set(F ${SRC}/fixtures/f6.greedy)
expect(0 "" import-mir tag ${F}/f6.pre.mir -o ${TMP}/f6.tag.mir)
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${F}/f6.tag.mir ${TMP}/f6.tag.mir RESULT_VARIABLE same)
if(NOT same EQUAL 0)
  message("FAIL: import-mir tag does not give the recorded f6.tag.mir")
  math(EXPR failures "${failures} + 1")
endif()
expect(0 "f6: imported[^\n]*\nimported 1, refused 0, import errors 0\n" import-mir join --alloc greedy ${F}/f6.tag.mir ${F}/f6.dumps.txt ${F}/f6.post.mir -o ${TMP}/j6)
foreach(f f6.ra f6.orig.ra)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${F}/${f} ${TMP}/j6/${f} RESULT_VARIABLE same)
  if(NOT same EQUAL 0)
    message("FAIL: import-mir join writes another ${f}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
# An import error is exit 1, located in the dumps: %6 in rbx at one
# operand, r14 at the others (R5); the rewriter changing a physical
# register (S4).
file(READ ${F}/f6.dumps.txt dumps)
string(REPLACE "LEA64r renamable $r14, 1" "LEA64r renamable $rbx, 1" bad "${dumps}")
file(WRITE ${TMP}/r5.dumps.txt "${bad}")
expect(1 "f6: import error R5: [^\n]*r5.dumps.txt:[0-9]+:[0-9]+: import error \\[R5\\]: %6 is in rbx here and in r14 elsewhere"
       import-mir join --alloc greedy ${F}/f6.tag.mir ${TMP}/r5.dumps.txt ${F}/f6.post.mir -o ${TMP}/je)
string(REPLACE "$rdi = COPY renamable $rbp" "$rsi = COPY renamable $rbp" bad "${dumps}")
file(WRITE ${TMP}/s4.dumps.txt "${bad}")
expect(1 "import error \\[S4\\]: the rewriter changed physical register \\$rdi to \\$rsi"
       import-mir join --alloc greedy ${F}/f6.tag.mir ${TMP}/s4.dumps.txt ${F}/f6.post.mir -o ${TMP}/je)

# --check: a value in rbx across both calls moved to r11 (clobbered) in the
# dump after the rewriter and in post.mir: imported, rejected, and
# FUNC.check holds exactly what `ravel check FUNC.ra --orig FUNC.orig.ra`
# prints (standard output and error); a verified function leaves no .check.
string(FIND "${dumps}" "# *** IR Dump After" at)
string(SUBSTRING "${dumps}" 0 ${at} before)
string(SUBSTRING "${dumps}" ${at} -1 after)
string(REPLACE "renamable $rbx" "renamable $r11" after "${after}")
file(WRITE ${TMP}/r11.dumps.txt "${before}${after}")
file(READ ${F}/f6.post.mir post)
string(REPLACE "renamable $rbx" "renamable $r11" post "${post}")
file(WRITE ${TMP}/r11.post.mir "${post}")
expect(1 "f6: imported[^\n]*, rejected\nimported 1, refused 0, import errors 0\nchecked: verified 0, rejected 1\n"
       import-mir join --alloc greedy --check ${F}/f6.tag.mir ${TMP}/r11.dumps.txt ${TMP}/r11.post.mir -o ${TMP}/jr11)
execute_process(COMMAND ${RAVEL} check ${TMP}/jr11/f6.ra --orig ${TMP}/jr11/f6.orig.ra OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(READ ${TMP}/jr11/f6.check got)
if(NOT got STREQUAL "${out}${err}" OR NOT got MATCHES "r11")
  message("FAIL: import-mir join --check: f6.check is not what ravel check prints:\n${got}\n---\n${out}${err}")
  math(EXPR failures "${failures} + 1")
endif()
expect(0 "f6: imported[^\n]*, verified\n" import-mir join --alloc greedy --check ${F}/f6.tag.mir ${F}/f6.dumps.txt ${F}/f6.post.mir -o ${TMP}/jr11)
if(EXISTS ${TMP}/jr11/f6.check)
  message("FAIL: import-mir join --check leaves a .check for a verified function")
  math(EXPR failures "${failures} + 1")
endif()

# R22: a SUBREG_TO_REG in one register (fast: $rax = SUBREG_TO_REG 0, $eax)
# claims bits 32..63 are zero; a KILL of eax just before it breaks the claim.
set(N ${SRC}/fixtures/narrow.fast)
file(READ ${N}/narrow.dumps.txt dumps)
string(REPLACE "  renamable $rax = SUBREG_TO_REG 0, killed renamable $eax, %subreg.sub_32bit, debug-location !DILocation(line: 1011"
               "  $eax = KILL $eax\n  renamable $rax = SUBREG_TO_REG 0, killed renamable $eax, %subreg.sub_32bit, debug-location !DILocation(line: 1011"
               bad "${dumps}")
file(WRITE ${TMP}/r22.dumps.txt "${bad}")
expect(1 "widen: import error R22: [^\n]*r22.dumps.txt:[0-9]+:[0-9]+: import error \\[R22\\]: SUBREG_TO_REG in rax claims bits 32..63 are zero"
       import-mir join --alloc fast ${N}/narrow.tag.mir ${TMP}/r22.dumps.txt ${N}/narrow.post.mir -o ${TMP}/j22)
expect(0 "imported 5, refused 0, import errors 0" import-mir join --alloc fast ${N}/narrow.tag.mir ${N}/narrow.dumps.txt ${N}/narrow.post.mir -o ${TMP}/j22ok)

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} import-mir CLI check(s) failed")
endif()
message("import-mir CLI: all checks passed")
