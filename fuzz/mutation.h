/* mutation.h - mutation testing of the checker, kind by kind: the
 * measurement behind bench_mutation, `ravel bench mutation` and the
 * "Mutation table" of docs/checker.md.
 *
 * Part 1 (the table): for every allocator of the table and N generated
 * functions (seed rv_campaign_iter_seed(seed, n), the `ravel fuzz`
 * functions), the allocation the checker accepts is corrupted once with
 * every kind of inject/inject.h (seed-derived site) and judged in full
 * (rv_fuzz_mutant_judge): changed, checker verdict (and whether an error of
 * an expected kind is among its errors), interpreter difference (with the
 * moving-collector model when the machine's collector moves). MISSED =
 * different but accepted: a checker bug; its reproducer is written to
 * outdir when set.
 *
 * Part 2 (time to find): T simulated `ravel fuzz --oracle` campaigns
 * (seeds seed+1 .. seed+T, every allocator on each function, corruption
 * with probability inject_permille/1000 as in `ravel fuzz --inject-prob`):
 * for each kind the number of executions until the checker first rejects
 * an allocation corrupted with that kind; its median over the trials times
 * the mean CPU time of one execution is the time `ravel fuzz` needs to find
 * the kind on one core.
 */
#ifndef RAVEL_FUZZ_MUTATION_H
#define RAVEL_FUZZ_MUTATION_H

#include "fuzz/campaign.h"

typedef struct rv_mutation_opts {
    uint64_t seed;            /* default 0 */
    uint32_t nfuncs;          /* functions per allocator (default 100) */
    const char *allocator;    /* NULL = every allocator of the table */
    rv_gen_opts gen;          /* generator options (default rv_gen_opts_default) */
    unsigned trials;          /* part 2 campaigns (default 5; 0 = skip part 2) */
    uint64_t max_execs;       /* executions per trial at most (default 20000) */
    unsigned inject_permille; /* part 2 corruption probability (default 500) */
    const char *outdir;       /* where missed cases go (NULL = not written) */
    FILE *progress;           /* one line per allocator / trial, or NULL */
} rv_mutation_opts;

typedef struct rv_mutation_row {
    uint64_t injected, changed, different, detected, expected, missed;
} rv_mutation_row;

typedef struct rv_mutation_result {
    unsigned nalloc;
    const char *names[RV_CAMPAIGN_MAX_ALLOCS];
    uint64_t funcs[RV_CAMPAIGN_MAX_ALLOCS];   /* functions whose allocation the checker accepted */
    uint64_t skipped[RV_CAMPAIGN_MAX_ALLOCS]; /* allocation failed or rejected: not mutated */
    rv_mutation_row rows[RV_CAMPAIGN_MAX_ALLOCS][RV_INJ_COUNT_];
    uint64_t missed;                          /* total */
    /* part 2 */
    unsigned trials;
    uint64_t max_execs, total_execs;
    unsigned inject_permille;
    double exec_us;                           /* mean CPU microseconds per execution */
    double median_execs[RV_INJ_COUNT_];       /* < 0: not found within max_execs in most trials */
    unsigned found[RV_INJ_COUNT_];            /* trials in which the kind was found */
    double seconds;                           /* CPU time of the whole measurement */
} rv_mutation_result;

void rv_mutation_opts_default(rv_mutation_opts *o);
/* Returns 0 (no miss), 1 (some missed: a checker bug; reproducers in
 * outdir) or 2 (unknown allocator, cannot write outdir). */
int rv_mutation_run(const rv_mutation_opts *o, rv_mutation_result *r);
/* The table in Markdown (docs/checker.md "Mutation table"). */
void rv_mutation_print(FILE *out, const rv_mutation_opts *o, const rv_mutation_result *r);

#endif
