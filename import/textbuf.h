/* textbuf.h - a growing text buffer, for the importer's stages that write
 * text (tag.c: the tagged pre.mir; emit.c: the .ra texts).
 * Guarantees: p is NUL-terminated after any put (NULL before the first);
 * the caller owns p (rv_free). Allocates through rv_x*. */
#ifndef RAVEL_IMPORT_TEXTBUF_H
#define RAVEL_IMPORT_TEXTBUF_H

#include <stddef.h>

typedef struct rvi_buf {
    char *p;
    size_t len, cap;
} rvi_buf;

/* Appends n bytes of s. */
void rvi_put(rvi_buf *b, const char *s, size_t n);
/* Appends the string s. */
void rvi_puts(rvi_buf *b, const char *s);
/* Appends printf(fmt, ...), cut at 511 bytes. */
__attribute__((format(printf, 2, 3))) void rvi_putf(rvi_buf *b, const char *fmt, ...);

#endif
