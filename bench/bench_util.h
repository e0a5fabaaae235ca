/* bench_util.h - the clock and the median that every benchmark program uses.
 * Requires: POSIX clock_gettime (the including file defines
 * _POSIX_C_SOURCE or _GNU_SOURCE first).
 * Guarantees: bench_cpu_sec is the CPU time of the whole process (user and
 * system) in seconds, so a figure holds on a machine shared with other
 * work; bench_median sorts v[0..n) and returns its median (the mean of the
 * middle two when n is even; 0 when n is 0). */
#ifndef RAVEL_BENCH_UTIL_H
#define RAVEL_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

static inline double bench_cpu_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double bench_median(double *v, size_t n)
{
    if (!n) return 0;
    qsort(v, n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
