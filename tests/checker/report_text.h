/* report_text.h - the checker tests' view of a report: its text as
 * `ravel check` prints it (malloc'd; "" when r is NULL, NULL if no memory
 * stream). Include after _POSIX_C_SOURCE (open_memstream). */
#ifndef RAVEL_TESTS_REPORT_TEXT_H
#define RAVEL_TESTS_REPORT_TEXT_H

#include "ravel.h"

#include <stdio.h>

static inline char *report_text(const ravel_report *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return NULL;
    if (r) ravel_report_print(m, r);
    fclose(m);
    return buf;
}

#endif
