/* textbuf.c - the importer's text buffer (textbuf.h). */
#include "import/textbuf.h"
#include "ir/ir.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void rvi_put(rvi_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->len + n + 1) cap *= 2;
        b->p = rv_xrealloc(b->p, cap);
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

void rvi_puts(rvi_buf *b, const char *s) { rvi_put(b, s, strlen(s)); }

void rvi_putf(rvi_buf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    rvi_put(b, tmp, n < 0 ? 0 : (size_t)n >= sizeof tmp ? sizeof tmp - 1 : (size_t)n);
}
