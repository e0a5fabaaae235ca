/* bench_validate.c - ravel_validate(f, RAVEL_VALIDATE_SSA) on generated
 * functions (the fuzzer's validation of every generated function), through
 * the fast path and through the careful path alone (ir/validate.h).
 *
 *   bench_validate [--funcs N] [--max-insts M] [--runs R] [--seconds S] [--careful-only | --fast-only]
 *
 * Generates N functions (default 300; seeds 1..N; max_insts default 381,
 * which averages ~250 instructions like bench_fuzz --config 250), then for
 * each path reports the median over R runs (default 5) of S seconds
 * (default 0.3) of CPU time: microseconds per validation and machine-
 * independent context (instructions per function, how many the fast path
 * accepted). For callgrind, one pass over the functions per path:
 *   valgrind --tool=callgrind --toggle-collect=ravel_validate \
 *     bench_validate --runs 1 --seconds 0 --careful-only   (careful path)
 *   valgrind --tool=callgrind --toggle-collect=ravel_validate \
 *     bench_validate --runs 1 --seconds 0                  (fast path)
 * (--seconds 0: exactly one pass over the functions). */
#define _GNU_SOURCE
#include "fuzz/gen.h"
#include "ir/validate.h"

#include "bench/bench_util.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct funcs {
    ravel_module **mods;
    size_t n;
} funcs;

/* One pass: validates every function; returns how many were not RAVEL_OK. */
static size_t pass(const funcs *fs, bool careful)
{
    size_t bad = 0;
    for (size_t i = 0; i < fs->n; i++) {
        const ravel_func *f = ravel_module_func(fs->mods[i], 0);
        ravel_diags *d = ravel_diags_new();
        int st = careful ? rv_validate_careful(f, RAVEL_VALIDATE_SSA, d) : ravel_validate(f, RAVEL_VALIDATE_SSA, d);
        bad += st != RAVEL_OK;
        ravel_diags_free(d);
    }
    return bad;
}

/* Median microseconds per validation over runs of at least `seconds`. */
static double measure(const funcs *fs, bool careful, unsigned runs, double seconds, size_t *bad)
{
    double *us = calloc(runs ? runs : 1, sizeof *us);
    for (unsigned r = 0; r < runs; r++) {
        double t0 = bench_cpu_sec(), t;
        size_t n = 0;
        do {
            *bad += pass(fs, careful);
            n += fs->n;
            t = bench_cpu_sec();
        } while (t - t0 < seconds);
        us[r] = (t - t0) * 1e6 / (double)n;
    }
    double med = bench_median(us, runs);
    free(us);
    return med;
}

int main(int argc, char **argv)
{
    size_t nfuncs = 300;
    unsigned runs = 5;
    double seconds = 0.3;
    bool careful_only = false, fast_only = false;
    rv_gen_opts o;
    rv_gen_opts_default(&o);
    o.features = RV_GEN_ALL; /* the figures quoted so far: no section 14 */
    o.cfg = RV_GEN_CFG_STRUCTURED; /* the functions of the figures quoted so far */
    o.max_insts = 381;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--funcs") && i + 1 < argc) nfuncs = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--max-insts") && i + 1 < argc) o.max_insts = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "--careful-only")) careful_only = true;
        else if (!strcmp(argv[i], "--fast-only")) fast_only = true;
        else {
            fprintf(stderr, "usage: bench_validate [--funcs N] [--max-insts M] [--runs R] [--seconds S] [--careful-only | --fast-only]\n");
            return 2;
        }
    }
    funcs fs = {calloc(nfuncs ? nfuncs : 1, sizeof *fs.mods), nfuncs};
    size_t insts = 0, accepted = 0, bad = 0;
    for (size_t i = 0; i < nfuncs; i++) {
        fs.mods[i] = rv_gen_from_seed(i + 1, &o);
        const ravel_func *f = ravel_module_func(fs.mods[i], 0);
        insts += f->insts.len;
        accepted += rv_validate_fast(f);
    }
    printf("%zu functions, %.1f instructions on average, fast path accepts %zu\n", nfuncs,
           nfuncs ? (double)insts / (double)nfuncs : 0.0, accepted);
    double careful = fast_only ? 0 : measure(&fs, true, runs, seconds, &bad);
    if (!fast_only)
        printf("careful path   %8.2f us/validation  %8.1f ns/instruction\n", careful,
               insts ? careful * 1e3 * (double)nfuncs / (double)insts : 0.0);
    if (!careful_only) {
        double fast = measure(&fs, false, runs, seconds, &bad);
        printf("ravel_validate %8.2f us/validation  %8.1f ns/instruction  (%.2fx)\n", fast,
               insts ? fast * 1e3 * (double)nfuncs / (double)insts : 0.0, fast > 0 ? careful / fast : 0.0);
    }
    for (size_t i = 0; i < nfuncs; i++) ravel_module_free(fs.mods[i]);
    free(fs.mods);
    if (bad) fprintf(stderr, "bench_validate: %zu validations failed\n", bad);
    return bad ? 1 : 0;
}
