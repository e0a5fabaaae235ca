# citations.cmake - the project carries its own contract (issue 20, part 3).
#
#   cmake -DSRC=SOURCE_DIR -P citations.cmake
#
# Fails when
#   - a file of the source tree names the upstream contract's file, or the
#     contract by its bare upper-case name (the word is built below from
#     pieces so that this script does not match itself): code, help texts
#     and docs cite docs/format.md only;
#   - a file names the upstream importer mapping or the upstream format
#     extension (their file names, or the mapping's bare upper-case name,
#     also built from pieces): the importer's rules, stages and tables are
#     cited from docs/import-mapping.md, the extension from docs/format.md
#     §14;
#   - a citation "docs/import-mapping.md R<n>", "... S<n>" or "... §N[.M]"
#     names a rule, stage or section that docs/import-mapping.md does not
#     have (its "**R<n>." and "**S<n> " paragraphs, its "## N." and
#     "### N.M" headings), or cites one as docs/import.md's;
#   - a citation "docs/format.md §N", "docs/format.md section N[.M]" or
#     "docs/format.md sections N-M, K and L" (possibly wrapped over comment
#     lines or C string literals), or a "§N" inside docs/format.md itself,
#     names a section that docs/format.md does not have (its "## N." and
#     "### N.M" headings).
#
# The files are those git tracks (every text file of the tree when SRC is
# not a git work tree), build directories excluded.

if(NOT SRC)
  message(FATAL_ERROR "usage: cmake -DSRC=SOURCE_DIR -P citations.cmake")
endif()



string(CONCAT upstream_word "FOR" "MAT")
string(CONCAT upstream "${upstream_word}" ".md")
string(CONCAT mapping_word "IMPO" "RTER")
string(CONCAT mapping "${mapping_word}" ".md")
string(CONCAT extension "${upstream_word}" "-import.md")

execute_process(COMMAND git ls-files WORKING_DIRECTORY ${SRC}
                RESULT_VARIABLE git_rc OUTPUT_VARIABLE listing ERROR_QUIET)
if(git_rc EQUAL 0 AND NOT listing STREQUAL "")
  string(REPLACE "\n" ";" files "${listing}")
else()
  file(GLOB_RECURSE files RELATIVE ${SRC} ${SRC}/*)
endif()

# The sections docs/format.md has.
file(STRINGS ${SRC}/docs/format.md heads REGEX "^###? [0-9]+(\\.[0-9]+)?\\.? ")
set(sections "")
foreach(h IN LISTS heads)
  string(REGEX MATCH "^###? ([0-9]+(\\.[0-9]+)?)" m "${h}")
  list(APPEND sections "${CMAKE_MATCH_1}")
endforeach()
list(LENGTH sections nsections)
if(nsections LESS 13)
  message(FATAL_ERROR "docs/format.md: found ${nsections} numbered sections (${sections}); want at least 13")
endif()

# The rules, stages and sections docs/import-mapping.md has.
file(STRINGS ${SRC}/docs/import-mapping.md mheads REGEX "^(###? [0-9]+(\\.[0-9]+)?\\.? |\\*\\*[RS][0-9]+[. ])")
set(msections "")
foreach(h IN LISTS mheads)
  if(h MATCHES "^###? ([0-9]+(\\.[0-9]+)?)")
    list(APPEND msections "§${CMAKE_MATCH_1}")
  elseif(h MATCHES "^\\*\\*([RS][0-9]+)")
    list(APPEND msections "${CMAKE_MATCH_1}")
  endif()
endforeach()
foreach(need R1 R46 S1 S7 §5.1 §6)
  list(FIND msections "${need}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "docs/import-mapping.md: no ${need} found among (${msections}): the scan is broken")
  endif()
endforeach()

set(failures 0)
set(ncitations 0)
set(nmcitations 0)

# Checks every section number of the text `cite` (found in `file`).
function(check_numbers file cite)
  string(REGEX MATCHALL "[0-9]+(\\.[0-9]+)?" nums "${cite}")
  foreach(n IN LISTS nums)
    list(FIND sections "${n}" at)
    if(at EQUAL -1)
      message(SEND_ERROR "${file}: '${cite}' cites section ${n}, which docs/format.md does not have (it has: ${sections})")
      math(EXPR f "${failures} + 1")
      set(failures ${f} PARENT_SCOPE)
    endif()
  endforeach()
endfunction()

foreach(file IN LISTS files)
  if(file MATCHES "^build|/build[^/]*/|^\\.git/|citations\\.cmake$")
    continue()
  endif()
  if(NOT file MATCHES "(\\.(c|h|md|ra|txt|cmake|sh|py|yml|yaml|json|in)|CMakeLists\\.txt|Dockerfile)$")
    continue()
  endif()
  if(NOT EXISTS ${SRC}/${file} OR IS_DIRECTORY ${SRC}/${file})
    continue()
  endif()
  file(READ ${SRC}/${file} text)

  string(FIND "${text}" "${mapping}" at_map)
  string(FIND "${text}" "${extension}" at_ext)
  if(NOT at_map EQUAL -1 OR text MATCHES "(^|[^A-Za-z0-9_])${mapping_word}([^A-Za-z0-9_.]|$)")
    message(SEND_ERROR "${file}: names the upstream importer mapping (${mapping}), a file users do not have; cite docs/import-mapping.md (a rule as 'docs/import-mapping.md R22', a stage as 'docs/import-mapping.md S4', a section as 'docs/import-mapping.md §5.1')")
    math(EXPR failures "${failures} + 1")
  endif()
  if(NOT at_ext EQUAL -1)
    message(SEND_ERROR "${file}: names ${extension}, a file users do not have; cite docs/format.md §14 (e.g. 'docs/format.md §14.6' for the producer's obligations)")
    math(EXPR failures "${failures} + 1")
  endif()

  string(FIND "${text}" "${upstream}" at)
  if(NOT at_ext EQUAL -1)
    # reported above
  elseif(NOT at EQUAL -1)
    message(SEND_ERROR "${file}: names ${upstream}, a file users do not have; cite docs/format.md")
    math(EXPR failures "${failures} + 1")
  elseif(text MATCHES "(^|[^A-Za-z0-9_])${upstream_word}([^A-Za-z0-9_]|$)")
    message(SEND_ERROR "${file}: cites the upstream contract as ${upstream_word}; cite docs/format.md sections")
    math(EXPR failures "${failures} + 1")
  endif()

  string(FIND "${text}" "format.md" at)
  string(FIND "${text}" "§" at2)
  string(FIND "${text}" "import" at3)
  if(at EQUAL -1 AND at2 EQUAL -1 AND at3 EQUAL -1)
    continue()
  endif()
  # Join wrapped lines: C string literals ("...\n"  "..."), then comment
  # leaders (" * ", "# ", "// "), then runs of white space.
  string(REGEX REPLACE "(\\\\n)?\"[ \t]*\n[ \t]*\"" " " flat "${text}")
  string(REGEX REPLACE "\n[ \t]*(\\*|#|//)?[ \t]*" " " flat "${flat}")
  string(REGEX REPLACE "[ \t]+" " " flat "${flat}")

  string(REGEX MATCHALL "docs/format\\.md`?,? (§[0-9]+(\\.[0-9]+)?(-§?[0-9]+)?|sections? [0-9][-0-9., and]*)" cites "${flat}")
  foreach(c IN LISTS cites)
    math(EXPR ncitations "${ncitations} + 1")
    string(REGEX REPLACE "^docs/format\\.md`?,? " "" nums "${c}")
    check_numbers("${file}" "${nums}")
  endforeach()
  string(REGEX MATCHALL "docs/import-mapping\\.md`?,? (§[0-9]+(\\.[0-9]+)?|[RS][0-9]+)" mcites "${flat}")
  foreach(c IN LISTS mcites)
    math(EXPR nmcitations "${nmcitations} + 1")
    string(REGEX REPLACE "^docs/import-mapping\\.md`?,? " "" what "${c}")
    list(FIND msections "${what}" at)
    if(at EQUAL -1)
      message(SEND_ERROR "${file}: '${c}' cites ${what}, which docs/import-mapping.md does not have")
      math(EXPR failures "${failures} + 1")
    endif()
  endforeach()
  string(REGEX MATCHALL "docs/import\\.md`?,? (§[0-9]+(\\.[0-9]+)?|[RS][0-9]+)" wrong "${flat}")
  foreach(c IN LISTS wrong)
    message(SEND_ERROR "${file}: '${c}': docs/import.md has no numbered rules, stages or sections; cite docs/import-mapping.md")
    math(EXPR failures "${failures} + 1")
  endforeach()
  if(file STREQUAL "docs/format.md")
    string(REGEX MATCHALL "§[0-9]+(\\.[0-9]+)?(-§[0-9]+)?" own "${flat}")
    foreach(c IN LISTS own)
      math(EXPR ncitations "${ncitations} + 1")
      check_numbers("${file}" "${c}")
    endforeach()
  endif()
endforeach()

if(ncitations EQUAL 0)
  message(FATAL_ERROR "no citation of docs/format.md found: the scan is broken")
endif()
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} bad citation(s)")
endif()
if(nmcitations EQUAL 0)
  message(FATAL_ERROR "no citation of docs/import-mapping.md found: the scan is broken")
endif()
message(STATUS "${ncitations} citations of docs/format.md checked against sections: ${sections}")
message(STATUS "${nmcitations} citations of docs/import-mapping.md checked against its rules, stages and sections")
