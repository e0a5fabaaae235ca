/* support.h - helpers shared by the C test programs (header only; see
 * tests/support/README.md):
 *   ts_read_all     a whole file in memory
 *   rv_rng_next / rv_rng_below / rv_mix64   the one PRNG (ir/rng.h)
 *   ts_inputs, ts_same_run(s)  "run both forms": the original and an
 *                   allocation of it on the same inputs, by the interpreter
 *                   (the last step of "for every allocator: allocate, check,
 *                   run both forms")
 */
#ifndef RAVEL_TESTS_SUPPORT_H
#define RAVEL_TESTS_SUPPORT_H

#include "ir/ir.h"
#include "ir/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The bytes of the file at path, NUL-terminated (malloc'd: free it), their
 * count in *len; NULL (and a message) if it cannot be read. */
static inline char *ts_read_all(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        perror(path);
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    for (size_t k; buf && (k = fread(buf + n, 1, cap - n, fp)) > 0;) {
        n += k;
        if (n == cap) {
            char *more = realloc(buf, (cap *= 2) + 1);
            if (!more) free(buf);
            buf = more;
        }
    }
    fclose(fp);
    if (!buf) return NULL;
    buf[n] = 0;
    *len = n;
    return buf;
}

/* Input vector k (eight values) of the runs for seed. */
static inline void ts_inputs(uint64_t seed, int k, uint64_t in[8])
{
    for (int j = 0; j < 8; j++) in[j] = (uint64_t)(k * 7 + j * 13) ^ (seed * RV_RNG_GAMMA >> (k * 8));
}

/* Runs f and its allocation g on input vector k (ts_inputs; vectors 4
 * and 5 are small counts instead: 0..7, 1..8), at most 20,000 steps, an
 * odd k with a moving collector (machine_gc: only when the machine does
 * not declare a nonmoving one). True if both runs agree; else the
 * difference is in msg. */
static inline bool ts_same_run(const ravel_func *f, const ravel_func *g, uint64_t seed, int k, bool machine_gc, char *msg, size_t n)
{
    uint64_t in[8];
    ts_inputs(seed, k, in);
    if (k >= 4)
        for (int j = 0; j < 8; j++) in[j] = (uint64_t)(j + k - 4);
    rv_run_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.inputs = in;
    ro.ninputs = 8;
    ro.step_limit = 20000;
    ro.moving_gc = (k & 1) && !(machine_gc && f->mach->gc_nonmoving);
    return rv_interp_compare(f, g, &ro, msg, n);
}
/* ts_same_run on vectors 0 .. nruns-1: true if every run agrees. */
static inline bool ts_same_runs(const ravel_func *f, const ravel_func *g, uint64_t seed, int nruns, bool machine_gc, char *msg,
                                size_t n)
{
    for (int k = 0; k < nruns; k++)
        if (!ts_same_run(f, g, seed, k, machine_gc, msg, n)) return false;
    return true;
}

#endif
