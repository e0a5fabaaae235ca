# alloc_lint.cmake - library code allocates only through rv_x* and frees
# only through rv_free (ir/ir.h), so that a recovery region knows every
# block an entry point made and RAVEL_ENOMEM leaks nothing.
#
#   cmake -DSRC=SOURCE_DIR -P alloc_lint.cmake
#
# Fails on a call of malloc, calloc, realloc, free, strdup or strndup in the
# library's directories (ir/, checker/, allocator/, import/), ir/util.c excepted (it
# implements them). A call is the name not preceded by an identifier
# character, '.' or '>' (rv_vec_free, ravel_func_free, p->free are fine).

if(NOT SRC)
  message(FATAL_ERROR "usage: cmake -DSRC=SOURCE_DIR -P alloc_lint.cmake")
endif()
file(GLOB files ${SRC}/ir/*.c ${SRC}/ir/*.h ${SRC}/checker/*.c ${SRC}/checker/*.h ${SRC}/allocator/*.c ${SRC}/allocator/*.h ${SRC}/import/*.c ${SRC}/import/*.h)
set(bad 0)
foreach(f IN LISTS files)
  if(f MATCHES "/ir/util\\.c$")
    continue()
  endif()
  file(STRINGS ${f} lines)
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    if(line MATCHES "(^|[^A-Za-z0-9_.>])(malloc|calloc|realloc|free|strdup|strndup)\\(")
      file(RELATIVE_PATH rel ${SRC} ${f})
      message("${rel}:${n}: plain ${CMAKE_MATCH_2}(): allocate with rv_xmalloc/rv_xcalloc/rv_xrealloc/rv_xstrdup, free with rv_free (ir/ir.h)")
      math(EXPR bad "${bad} + 1")
    endif()
  endforeach()
endforeach()
if(bad GREATER 0)
  message(FATAL_ERROR "${bad} plain allocation call(s) in library code")
endif()
message("library code allocates through rv_x* and rv_free only")
