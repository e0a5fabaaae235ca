/* bench_fuzz.c - executions per second per core of every fuzz target, at the
 * generator's default options and at ~250 instructions per function, with
 * where the time of one execution goes, plus the fraction of inputs the
 * generator wastes (must be 0: every byte string yields a valid function).
 *
 *   bench_fuzz [--runs N] [--seconds S] [--quick] [--only TEXT]
 *              [--config default|250] [--count N] [--validate-gen]
 *              [--allocs NAME,NAME,...] [--redefine PERMILLE]
 *
 * Each figure is the median of N runs (default 5) of S seconds (default 0.5)
 * of CPU time on one core. Targets: alloc/NAME (generate from bytes ->
 * allocate -> check, the fuzz_alloc_NAME harness path; the generated
 * function is not validated, fuzz.gen_valid does that on a sample), kit/NAME (the same inputs through the fuzzing kit,
 * include/ravel_fuzz.h, with allocator NAME as the user's callback: what
 * the kit costs over the built-in path), kit/slotalloc and kit/myalloc (the
 * examples' allocators, not in the table, through the kit as their own
 * targets run them: examples/slotalloc on the same inputs, examples/kit's
 * myalloc, which is `linear` behind ravel_allocate and declines safepoints,
 * on functions without them), campaign/NAME (rv_gen_from_seed ->
 * allocate -> check, the `ravel fuzz` path), differential, checker_oracle, parse (round trip of
 * generated .ra text: 64 texts per run, printed before its clock starts),
 * moves.
 *
 * Phases (microseconds per execution, from one more run with the library's
 * phase timing on, rv_fuzz.timing): generate, validate (an output only
 * when the checker rejected it; the generated function only with
 * rv_fuzz.validate_gen, off in the targets), allocate, check, and other (the rest: input hashing, freeing, the
 * interpreter of the differential target, the clock reads themselves),
 * and ravel (everything but allocate: ravel's share of an execution).
 * The first line names the build (CMAKE_BUILD_TYPE and RAVEL_SANITIZE):
 * the ravel column of a -DRAVEL_SANITIZE=address,undefined build is the
 * share under the sanitizers every fuzz engine build runs (issue 32:
 * within 3x of Release).
 *
 * Built in an instrumented configuration (-DRAVEL_FUZZ_ENGINE=libfuzzer
 * -DRAVEL_SANITIZE=address,undefined) it measures the library's work as the
 * fuzz targets run it there, without the engine (README has both builds'
 * figures and libFuzzer's own exec/s).
 *
 * --only TEXT runs the targets whose name contains TEXT; --config one of the
 * two configurations; --count N makes every run exactly N executions (for
 * callgrind: `valgrind --tool=callgrind bench_fuzz --only fuzz_alloc_fast
 * --config 250 --runs 1 --count 300`); --validate-gen has the byte targets
 * validate every generated function (rv_fuzz.validate_gen), as they did
 * before issue 32; --allocs NAME,... has the targets that draw their
 * allocator from the first input byte (differential, checker_oracle)
 * draw it among these, in this order (byte % count), as a build whose
 * table held exactly them would: a comparison with an older build of
 * fewer allocators, like for like (e.g. --allocs
 * fast,linear,random,color,ssa, the table before greedy); --redefine
 * PERMILLE sets how often the checker oracle first makes its allocation
 * non-SSA (rv_fuzz.redefine_permille, default 250; 0: never, as before
 * issue 29 added those runs: the like-for-like comparison with 82ae6de).
 *
 * The history of its figures (profiles, before and after each change):
 * docs/perf-log.md. */
#define _GNU_SOURCE
#include "examples/kit/myalloc.h"
#include "examples/slotalloc/slotalloc.h"
#include "fuzz/campaign.h"
#include "ravel_fuzz.h"
#include "ir/rng.h"

#include "bench/bench_util.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef RAVEL_BENCH_BUILD
#define RAVEL_BENCH_BUILD "unknown"
#endif

typedef struct bench {
    unsigned runs;
    double seconds;
    uint64_t count;   /* executions per run instead of seconds (0: seconds) */
    const char *only; /* run targets whose name contains this (NULL: all) */
    rv_gen_opts gen;
    const char *config;
    unsigned ninputs; /* inputs tried for the rejection figure */
    bool validate_gen; /* --validate-gen: the byte targets validate each generated function (as before issue 32) */
    int redefine; /* --redefine: rv_fuzz.redefine_permille (-1: the library's default) */
    const rv_allocator *allocs[16]; /* --allocs: the allocators the first byte picks among (nallocs 0: the table) */
    unsigned nallocs;
} bench;

/* Random input bytes: sizes spread over 16..4096 like a fuzzer's corpus. */
static size_t random_input(uint64_t *s, uint8_t *buf, size_t cap)
{
    size_t n = 16 + rv_rng_next(s) % (cap - 16);
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = rv_rng_next(s);
        memcpy(buf + i, &v, n - i < 8 ? n - i : 8);
    }
    return n;
}

enum { INPUT_CAP = 4096 };

typedef struct target {
    char name[48];
    rv_fuzz_target t;
    int alloc;     /* allocator index or -1 */
    bool campaign; /* the rv_gen_from_seed path */
    ravel_fuzz_kit *kit; /* kit/NAME: the fuzzing kit with allocator NAME as its callback */
} target;

/* kit/NAME's callback: the built-in allocator user, called as the table's
 * entry is (no ravel_allocate, whose input validation a user's wrapper
 * would add): the rows differ by the kit alone. */
static int builtin_callback(void *user, const ravel_func *orig, uint64_t seed, ravel_func **out, char **msg)
{
    const rv_allocator *a = user;
    rv_alloc_opts o = {.seed = seed};
    *out = a->run(orig, &o, msg);
    return *out ? RAVEL_OK : RAVEL_EFAIL;
}

/* Runs one target for b->seconds (or b->count executions); returns
 * executions per second, adds instructions seen to *insts and executions to
 * *execs. With z->timing, the campaign path's generator is timed here. */
static double run_once(const bench *b, rv_fuzz *z, const target *tg, uint64_t seed, uint64_t *insts, uint64_t *execs,
                       uint64_t *bugs)
{
    uint8_t *buf = malloc(INPUT_CAP);
    uint64_t s = seed, n = 0;
    /* the parse target's inputs: .ra texts of generated functions, made
     * before the clock starts (a fuzzer hands the target its bytes) */
    enum { NTEXTS = 64 };
    char *text[NTEXTS] = {0};
    size_t tlen[NTEXTS] = {0};
    uint32_t tinsts[NTEXTS] = {0};
    for (unsigned k = 0; tg->t == RV_FT_PARSE && k < NTEXTS; k++) {
        ravel_module *m = rv_gen_from_seed(rv_rng_next(&s), &b->gen);
        FILE *fp = open_memstream(&text[k], &tlen[k]);
        rv_print_module(fp, m);
        fclose(fp);
        tinsts[k] = ravel_module_func(m, 0)->insts.len;
        ravel_module_free(m);
    }
    double t0 = bench_cpu_sec(), t;
    do {
        for (int k = 0; k < 16 && (!b->count || n < b->count); k++, n++) {
            if (tg->campaign) {
                double g0 = z->timing ? bench_cpu_sec() : 0;
                ravel_module *m = rv_gen_from_seed(rv_rng_next(&s), &b->gen);
                if (z->timing) z->phase_nanos[RV_PH_GENERATE] += (uint64_t)((bench_cpu_sec() - g0) * 1e9);
                const ravel_func *f = ravel_module_func(m, 0);
                *insts += f->insts.len;
                *bugs += rv_fuzz_alloc(z, f, &rv_allocators[tg->alloc], s, 0) == RV_FUZZ_BUG;
                ravel_module_free(m);
            } else if (tg->t == RV_FT_PARSE) {
                unsigned x = (unsigned)(n % NTEXTS);
                *insts += tinsts[x];
                *bugs += rv_fuzz_parse(z, (const uint8_t *)text[x], tlen[x]) == RV_FUZZ_BUG;
            } else if (tg->kit) {
                size_t len = random_input(&s, buf, INPUT_CAP);
                if (tg->alloc >= 0) buf[0] = (uint8_t)tg->alloc; /* the same inputs as fuzz_alloc_NAME's */
                *bugs += ravel_fuzz_kit_check(tg->kit, buf, len) == RAVEL_EFAIL;
            } else {
                size_t len = random_input(&s, buf, tg->t == RV_FT_MOVES ? 256 : INPUT_CAP);
                if (tg->alloc >= 0) buf[0] = (uint8_t)tg->alloc;
                if (tg->alloc < 0 && b->nallocs && tg->t != RV_FT_MOVES) /* (--allocs: the first byte picks among them) */
                    *bugs += rv_fuzz_bytes_alloc(z, tg->t, b->allocs[buf[0] % b->nallocs], buf + 1, len - 1) == RV_FUZZ_BUG;
                else *bugs += rv_fuzz_bytes(z, tg->t, tg->alloc, buf, len) == RV_FUZZ_BUG;
            }
        }
        t = bench_cpu_sec();
    } while (b->count ? n < b->count : t - t0 < b->seconds);
    free(buf);
    for (unsigned j = 0; j < NTEXTS; j++) free(text[j]);
    *execs += n;
    return n / (t - t0);
}

/* Fraction of b->ninputs random inputs whose generated function fails validation. */
static double rejected(const bench *b, double *mean_insts)
{
    uint8_t *buf = malloc(INPUT_CAP);
    uint64_t s = 12345, bad = 0, insts = 0;
    const unsigned n = b->ninputs;
    for (unsigned i = 0; i < n; i++) {
        size_t len = i < 64 ? i : random_input(&s, buf, INPUT_CAP); /* includes empty and tiny inputs */
        if (i < 64) memset(buf, (int)i * 37, len);
        ravel_module *m = rv_gen_from_bytes(buf, len, &b->gen);
        const ravel_func *f = m && ravel_module_nfuncs(m) == 1 ? ravel_module_func(m, 0) : NULL;
        ravel_diags *d = ravel_diags_new();
        if (!f || ravel_validate(f, RAVEL_VALIDATE_SSA, d) != RAVEL_OK) bad++;
        else insts += f->insts.len;
        ravel_diags_free(d);
        ravel_module_free(m);
    }
    free(buf);
    *mean_insts = n > bad ? (double)insts / (n - bad) : 0;
    return (double)bad / n;
}

/* The phase columns of a target: one more run with phase timing on. */
static void phase_columns(const bench *b, rv_fuzz *z, const target *tg, char *out, size_t len)
{
    if (tg->t == RV_FT_PARSE || tg->t == RV_FT_MOVES || tg->kit) { /* (the kit's context is its own) */
        snprintf(out, len, "%9s %9s %9s %9s %9s %9s", "-", "-", "-", "-", "-", "-");
        return;
    }
    uint64_t insts = 0, execs = 0, bugs = 0;
    memset(z->phase_nanos, 0, sizeof z->phase_nanos);
    z->timing = true;
    double rate = run_once(b, z, tg, 999, &insts, &execs, &bugs);
    z->timing = false;
    double us[RV_PH_COUNT_], sum = 0;
    for (int p = 0; p < RV_PH_COUNT_; p++) sum += us[p] = z->phase_nanos[p] / 1e3 / (execs ? execs : 1);
    double other = 1e6 / rate - sum;
    other = other > 0 ? other : 0;
    snprintf(out, len, "%9.1f %9.1f %9.1f %9.1f %9.1f %9.1f", us[RV_PH_GENERATE], us[RV_PH_VALIDATE], us[RV_PH_ALLOCATE],
             us[RV_PH_CHECK], other, 1e6 / rate - us[RV_PH_ALLOCATE]);
}

static void bench_target(const bench *b, rv_fuzz *z, const target *tg)
{
    if (b->only && !strstr(tg->name, b->only)) return;
    double rate[64];
    uint64_t insts = 0, execs = 0, bugs = 0;
    unsigned runs = b->runs < 64 ? b->runs : 64;
    for (unsigned r = 0; r < runs; r++) rate[r] = run_once(b, z, tg, 1000 + r, &insts, &execs, &bugs);
    double med = bench_median(rate, runs);
    bool per_func = tg->campaign || tg->t == RV_FT_PARSE;
    char insts_col[32] = "-", phases[128];
    if (per_func) snprintf(insts_col, sizeof insts_col, "%.0f", (double)insts / execs);
    uint64_t rejected = z->oracle_rejected, accepted = z->oracle_accepted;
    phase_columns(b, z, tg, phases, sizeof phases);
    printf("%-10s %-24s %11.0f %9.2f %6s %5" PRIu64 " %s\n", b->config, tg->name, med, 1e6 / med, insts_col, bugs, phases);
    if (tg->t == RV_FT_ORACLE && rejected + accepted)
        printf("%-10s   (corrupted allocations: %" PRIu64 ", rejected by the checker %.1f%%, accepted %.1f%%)\n", b->config,
               rejected + accepted, 100.0 * rejected / (rejected + accepted), 100.0 * accepted / (rejected + accepted));
    fflush(stdout);
}

/* The row kit/NAME: the kit with callback fn (user) and generator options
 * gen, on the random inputs (alloc: the built-in allocator's index, whose
 * fuzz_alloc_NAME inputs these are, or -1). */
static void bench_kit(const bench *b, rv_fuzz *z, const char *name, ravel_alloc_fn fn, void *user,
                      const rv_gen_opts *gen, int alloc)
{
    target tg = {.t = RV_FT_ALLOC, .alloc = alloc};
    snprintf(tg.name, sizeof tg.name, "kit/%s", name);
    if (b->only && !strstr(tg.name, b->only)) return;
    ravel_fuzz_kit_opts ko;
    ravel_fuzz_kit_opts_default(&ko);
    ko.name = name;
    ko.alloc = fn;
    ko.user = user;
    ko.gen = *gen;
    ko.warm_up = 0; /* as fuzz_alloc_NAME here */
    tg.kit = ravel_fuzz_kit_new(&ko);
    bench_target(b, z, &tg);
    uint64_t execs = ravel_fuzz_kit_executions(tg.kit), declined = ravel_fuzz_kit_declined(tg.kit);
    if (declined) printf("%-10s   (kit/%s declined %.1f%% of its functions)\n", b->config, name, 100.0 * declined / execs);
    ravel_fuzz_kit_free(tg.kit);
}

/* The examples' allocators (examples/, not in the table) through the kit:
 * slotalloc on the same generator options, myalloc without safepoints (it
 * declines them, so does its own target, fuzz_myalloc.c). */
static void bench_examples(const bench *b, rv_fuzz *z)
{
    static const slotalloc_config sa = {0};
    static const myalloc_config my = {0};
    bench_kit(b, z, "slotalloc", slotalloc_alloc, (void *)&sa, &b->gen, -1);
    rv_gen_opts g = b->gen;
    g.features &= ~RAVEL_GEN_SAFEPOINTS;
    bench_kit(b, z, "myalloc", myalloc_alloc, (void *)&my, &g, -1);
}

/* Returns false if the generator rejected inputs. */
static bool bench_config(const bench *b)
{
    double mean;
    double rej = rejected(b, &mean);
    printf("%-10s generator: max_insts %u, mean %.0f instructions/function (from bytes), rejected %.2f%%\n", b->config,
           b->gen.max_insts, mean, rej * 100);
    rv_fuzz *z = rv_fuzz_new();
    z->gen = b->gen;
    z->validate_gen = b->validate_gen;
    if (b->redefine >= 0) z->redefine_permille = (unsigned)b->redefine;
    target tg;
    for (size_t a = 0; rv_allocators[a].name; a++) {
        tg = (target){.t = RV_FT_ALLOC, .alloc = (int)a, .campaign = true};
        snprintf(tg.name, sizeof tg.name, "campaign/%s", rv_allocators[a].name);
        bench_target(b, z, &tg);
        tg.campaign = false;
        snprintf(tg.name, sizeof tg.name, "fuzz_alloc_%s", rv_allocators[a].name);
        bench_target(b, z, &tg);
        bench_kit(b, z, rv_allocators[a].name, builtin_callback, (void *)&rv_allocators[a], &b->gen, (int)a);
    }
    bench_examples(b, z);
    const rv_fuzz_target others[] = {RV_FT_DIFFERENTIAL, RV_FT_ORACLE, RV_FT_PARSE, RV_FT_MOVES};
    for (size_t k = 0; k < sizeof others / sizeof *others; k++) {
        tg = (target){.t = others[k], .alloc = -1};
        snprintf(tg.name, sizeof tg.name, "fuzz_%s", rv_fuzz_target_name(others[k]));
        bench_target(b, z, &tg);
    }
    rv_fuzz_free(z);
    if (rej > 0) printf("%-10s FAIL: the generator rejected inputs\n", b->config);
    return rej == 0;
}

/* --allocs NAME,NAME,...: false (and a message) on an unknown name. */
static bool parse_allocs(bench *b, const char *list)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    b->nallocs = 0;
    for (char *save = NULL, *n = strtok_r(buf, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
        const rv_allocator *a = rv_allocator_find(n);
        if (!a || b->nallocs == sizeof b->allocs / sizeof *b->allocs) {
            fprintf(stderr, "bench_fuzz: --allocs: %s\n", a ? "too many allocators" : "unknown allocator");
            return false;
        }
        b->allocs[b->nallocs++] = a;
    }
    return b->nallocs > 0;
}

int main(int argc, char **argv)
{
    bench b = {.runs = 5, .seconds = 0.5, .ninputs = 2000, .redefine = -1};
    const char *config = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc) b.runs = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) b.seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--count") && i + 1 < argc) b.count = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) b.only = argv[++i];
        else if (!strcmp(argv[i], "--config") && i + 1 < argc) config = argv[++i];
        else if (!strcmp(argv[i], "--quick")) b.runs = 1, b.seconds = 0.05, b.ninputs = 200;
        else if (!strcmp(argv[i], "--validate-gen")) b.validate_gen = true;
        else if (!strcmp(argv[i], "--redefine") && i + 1 < argc) {
            char *end;
            long p = strtol(argv[++i], &end, 10);
            if (*end || p < 0 || p > 1000) {
                fprintf(stderr, "bench_fuzz: --redefine: a permille, 0 to 1000\n");
                return 2;
            }
            b.redefine = (int)p;
        }
        else if (!strcmp(argv[i], "--allocs") && i + 1 < argc) {
            if (!parse_allocs(&b, argv[++i])) return 2;
        } else {
            fprintf(stderr, "usage: bench_fuzz [--runs N] [--seconds S] [--quick] [--only TEXT] [--config default|250] [--count N] "
                            "[--validate-gen] [--allocs NAME,NAME,...] [--redefine PERMILLE]\n");
            return 2;
        }
    }
    if (config && strcmp(config, "default") != 0 && strcmp(config, "250") != 0) {
        fprintf(stderr, "bench_fuzz: --config default or 250\n");
        return 2;
    }
    if (b.runs < 1) b.runs = 1;
    if (b.count && b.ninputs > 200) b.ninputs = 200; /* profiling: little besides the runs */
    printf("build: %s\n", RAVEL_BENCH_BUILD);
    printf("%-10s %-24s %11s %9s %6s %5s %9s %9s %9s %9s %9s %9s\n", "config", "target", "exec/s/core", "us/exec", "insts",
           "bugs", "generate", "validate", "allocate", "check", "other", "ravel");
    printf("%-10s %-24s %11s %9s %6s %5s %59s\n", "", "", "", "", "", "", "(phases: us/exec, CPU time; ravel: all but allocate)");
    rv_gen_opts_default(&b.gen);
    b.gen.features = RV_GEN_ALL; /* the figures quoted so far: no section 14 */
    b.config = "default";
    bool ok = true;
    if (!config || !strcmp(config, "default")) ok &= bench_config(&b);
    if (config && !strcmp(config, "default")) return ok ? 0 : 1;
    double mean;
    b.gen.max_insts = 250;
    rejected(&b, &mean);
    /* max_insts is an upper bound: raise it until functions average ~250 */
    for (int k = 0; k < 4 && mean > 0 && (mean < 225 || mean > 275); k++) {
        b.gen.max_insts = (uint32_t)(b.gen.max_insts * 250 / mean);
        rejected(&b, &mean);
    }
    b.config = "250-insts";
    ok &= bench_config(&b);
    return ok ? 0 : 1;
}
