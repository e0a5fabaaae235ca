# alloc_lint.cmake - library code allocates only through rv_x* and frees
# only through rv_free (ir/ir.h), so that a recovery region knows every
# block an entry point made and RAVEL_ENOMEM leaks nothing.
#
#   cmake -DSRC=SOURCE_DIR -P alloc_lint.cmake
#
# Fails on a call of malloc, calloc, realloc, free, strdup or strndup in the
# library's directories: ir/, checker/, allocator/, inject/, import/, export/,
# fuzz/ (the generator, the fuzzing library, the fuzzing kit) and reduce/.
# Excepted: ir/util.c (it implements them) and fuzz/driver_* (the engines'
# stand-alone drivers: programs, not library code). A call is the name not preceded by an identifier
# character, '.' or '>' (rv_vec_free, ravel_func_free, p->free are fine).
#

cmake_minimum_required(VERSION 3.22)
if(NOT SRC)
  message(FATAL_ERROR "usage: cmake -DSRC=SOURCE_DIR -P alloc_lint.cmake")
endif()
set(dirs ir checker allocator inject fuzz reduce import export)
set(files "")
foreach(d IN LISTS dirs)
  file(GLOB_RECURSE dfiles ${SRC}/${d}/*.c ${SRC}/${d}/*.h)
  list(APPEND files ${dfiles})
endforeach()
set(bad 0)
foreach(f IN LISTS files)
  file(RELATIVE_PATH rel ${SRC} ${f})
  if(rel STREQUAL "ir/util.c" OR rel MATCHES "^fuzz/driver_")
    continue()
  endif()
  file(STRINGS ${f} lines)
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    if(line MATCHES "(^|[^A-Za-z0-9_.>])(malloc|calloc|realloc|free|strdup|strndup)\\(")
      message("${rel}:${n}: plain ${CMAKE_MATCH_2}(): allocate with rv_xmalloc/rv_xcalloc/rv_xrealloc/rv_xstrdup, free with rv_free (ir/ir.h)")
      math(EXPR bad "${bad} + 1")
    endif()
  endforeach()
endforeach()
if(bad GREATER 0)
  message(FATAL_ERROR "${bad} plain allocation call(s) in library code")
endif()
message("library code allocates through rv_x* and rv_free only")
