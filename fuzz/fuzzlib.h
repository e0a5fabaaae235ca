/* fuzzlib.h - what the files of the one-input oracles share (internal to
 * fuzz/fuzzlib*.c; campaign.h is the library's interface):
 *
 *   fuzzlib.c          the context; reproducer text; the interpreter's input
 *                      vectors; the checker call; the byte entry points;
 *                      the warm-up of a reused context
 *   fuzzlib_alloc.c    the allocation oracle (allocate, validate, check,
 *                      compare runs, compare the checker's paths)
 *   fuzzlib_oracle.c   the checker oracle (corruptions of a correct
 *                      allocation) and the judge of one injected bug
 *   fuzzlib_redef.c    non-SSA redefinitions of a correct allocation
 *   fuzzlib_parse.c    the parser round trip
 *   fuzzlib_replay.c   the replay of a reproducer
 *   fuzzlib_moves.c    the parallel-move resolver, simulated
 *
 * Each oracle requires nothing of its input beyond what its comment says
 * and never crashes on any input; on a bug it builds z->repro, a complete
 * `.ra` reproducer (comment header + machine + function), and returns
 * RV_FUZZ_BUG. Terms (oracle, vector, corruption, reproducer):
 * docs/architecture.md, Glossary.
 */
#ifndef RAVEL_FUZZ_FUZZLIB_H
#define RAVEL_FUZZ_FUZZLIB_H

#include "fuzz/campaign.h"

#include <stdio.h>
#include <time.h>

/* An oracle's PRNG (the seed's stream: ir/rng.h). */
typedef struct rng { uint64_t s; } rng;

static inline uint64_t rng_next(rng *r) { return rv_rng_next(&r->s); }

static inline uint32_t rng_below(rng *r, uint32_t n) { return n ? (uint32_t)(((rng_next(r) >> 32) * n) >> 32) : 0; }

/* Phase timing (z->timing): fz_phase_start returns a clock reading, or 0
 * when timing is off (no clock is read); fz_phase_end adds the time since
 * t0 to phase ph and returns the new reading, the start of the next phase. */
static inline uint64_t fz_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t fz_phase_start(const rv_fuzz *z) { return z->timing ? fz_cpu_now() : 0; }

static inline uint64_t fz_phase_end(rv_fuzz *z, rv_fuzz_phase ph, uint64_t t0)
{
    if (!z->timing) return 0;
    uint64_t t = fz_cpu_now();
    z->phase_nanos[ph] += t - t0;
    return t;
}

/* ---- reproducer text (fuzzlib.c) ---- */

/* Starts a new reproducer in z->repro (header: target, allocator, seed);
 * the caller writes to the stream and calls fz_repro_end. */
FILE *fz_repro_begin(rv_fuzz *z, rv_fuzz_target t, const char *alloc, uint64_t seed);
void fz_repro_end(FILE *fp);
/* text (len bytes), a report, diagnostics as comment lines "#   ...". */
void fz_put_comment(FILE *fp, const char *text, size_t len);
void fz_comment_report(FILE *fp, const ravel_report *r);
void fz_comment_diags(FILE *fp, const ravel_diags *d);
/* How to reproduce (rv_fuzz_put_how), then f's machine and f. */
void fz_put_func(FILE *fp, const ravel_func *f, const rv_allocator *a);

/* ---- the interpreter and the checker (fuzzlib.c) ---- */

/* Compares orig and alloc on z->nvectors input vectors, with the
 * moving-collector model when the machine's collector moves. True if all
 * agree; else msg describes the first difference. */
bool fz_compare_runs(rv_fuzz *z, const ravel_func *orig, const ravel_func *alloc, uint64_t seed, char *msg,
                     size_t msglen);
/* ravel_check of out against a validated f (RAVEL_CHECK_ORIG_VALID); only
 * the verdict when rep is NULL (RAVEL_CHECK_VERDICT_ONLY). */
int fz_check_out(rv_fuzz *z, const ravel_func *out, const ravel_func *f, ravel_report **rep);

/* ---- between the two oracles ---- */

/* fuzzlib_alloc.c: RV_FUZZ_PATHS, every checker path against the reference
 * on out; true on a difference (the reproducer in z, paths_diff set). */
bool fz_paths_differ(rv_fuzz *z, const ravel_func *f, const ravel_func *out, const rv_allocator *a, uint64_t seed,
                     const char *what);
/* fuzzlib_oracle.c: the checker oracle on out, an accepted allocation of f
 * (corrupted in place). */
int fz_oracle_on(rv_fuzz *z, const ravel_func *f, ravel_func *out, const rv_allocator *a, uint64_t seed);

#endif
