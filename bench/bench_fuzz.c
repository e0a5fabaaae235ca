/* bench_fuzz.c - executions per second per core of every fuzz target, at the
 * generator's default options and at ~250 instructions per function, plus the
 * fraction of inputs the generator wastes (must be 0: every byte string
 * yields a valid function).
 *
 *   bench_fuzz [--runs N] [--seconds S] [--quick]
 *
 * Each figure is the median of N runs (default 5) of S seconds (default 0.5)
 * of CPU time on one core. Targets: alloc/NAME (generate from bytes -> validate ->
 * allocate -> validate -> check, the fuzz_alloc_NAME harness path),
 * campaign/NAME (rv_gen_from_seed -> allocate -> validate -> check, the
 * `ravel fuzz` path), differential, checker_oracle, parse (round trip of
 * generated .ra text), moves. */
#define _GNU_SOURCE
#include "fuzz/campaign.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct bench {
    unsigned runs;
    double seconds;
    rv_gen_opts gen;
    const char *config;
    unsigned ninputs; /* inputs tried for the rejection figure */
} bench;

/* CPU time of this (single-threaded) process: figures per core that hold on
 * a machine shared with other work. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Random input bytes: sizes spread over 16..4096 like a fuzzer's corpus. */
static size_t random_input(uint64_t *s, uint8_t *buf, size_t cap)
{
    size_t n = 16 + next(s) % (cap - 16);
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = next(s);
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
} target;

/* Runs one target for b->seconds; returns executions per second, adds
 * instructions seen to *insts and executions to *execs. */
static double run_once(const bench *b, rv_fuzz *z, const target *tg, uint64_t seed, uint64_t *insts, uint64_t *execs,
                       uint64_t *bugs)
{
    uint8_t *buf = malloc(INPUT_CAP);
    uint64_t s = seed, n = 0;
    double t0 = now(), t;
    do {
        for (int k = 0; k < 16; k++, n++) {
            if (tg->campaign) {
                ravel_module *m = rv_gen_from_seed(next(&s), &b->gen);
                const ravel_func *f = ravel_module_func(m, 0);
                *insts += f->insts.len;
                *bugs += rv_fuzz_alloc(z, f, &rv_allocators[tg->alloc], s, 0) == RV_FUZZ_BUG;
                ravel_module_free(m);
            } else if (tg->t == RV_FT_PARSE) {
                ravel_module *m = rv_gen_from_seed(next(&s), &b->gen);
                char *text = NULL;
                size_t len = 0;
                FILE *fp = open_memstream(&text, &len);
                rv_print_module(fp, m);
                fclose(fp);
                *insts += ravel_module_func(m, 0)->insts.len;
                ravel_module_free(m);
                *bugs += rv_fuzz_parse(z, (const uint8_t *)text, len) == RV_FUZZ_BUG;
                free(text);
            } else {
                size_t len = random_input(&s, buf, tg->t == RV_FT_MOVES ? 256 : INPUT_CAP);
                if (tg->alloc >= 0) buf[0] = (uint8_t)tg->alloc;
                *bugs += rv_fuzz_bytes(z, tg->t, tg->alloc, buf, len) == RV_FUZZ_BUG;
            }
        }
        t = now();
    } while (t - t0 < b->seconds);
    free(buf);
    *execs += n;
    return n / (t - t0);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
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

static void bench_target(const bench *b, rv_fuzz *z, const target *tg)
{
    double rate[64];
    uint64_t insts = 0, execs = 0, bugs = 0;
    unsigned runs = b->runs < 64 ? b->runs : 64;
    for (unsigned r = 0; r < runs; r++) rate[r] = run_once(b, z, tg, 1000 + r, &insts, &execs, &bugs);
    qsort(rate, runs, sizeof *rate, cmp_double);
    double med = runs % 2 ? rate[runs / 2] : (rate[runs / 2 - 1] + rate[runs / 2]) / 2;
    bool per_func = tg->campaign || tg->t == RV_FT_PARSE;
    char insts_col[32] = "-";
    if (per_func) snprintf(insts_col, sizeof insts_col, "%.0f", (double)insts / execs);
    printf("%-10s %-26s %12.0f %10.2f %10s %8" PRIu64 "\n", b->config, tg->name, med, 1e6 / med, insts_col, bugs);
    if (tg->t == RV_FT_ORACLE && z->oracle_rejected + z->oracle_accepted)
        printf("%-10s   (corrupted allocations: %" PRIu64 ", rejected by the checker %.1f%%, accepted %.1f%%)\n", b->config,
               z->oracle_rejected + z->oracle_accepted,
               100.0 * z->oracle_rejected / (z->oracle_rejected + z->oracle_accepted),
               100.0 * z->oracle_accepted / (z->oracle_rejected + z->oracle_accepted));
    fflush(stdout);
}

/* Where the time of one campaign iteration goes, per allocator: generate,
 * allocate, validate the output, check (microseconds per function). */
static void phases(const bench *b)
{
    ravel_checker *ck = ravel_checker_new();
    unsigned n = b->ninputs / 10 ? b->ninputs / 10 : 1;
    for (size_t a = 0; rv_allocators[a].name; a++) {
        double tg = 0, ta = 0, tv = 0, tc = 0;
        uint64_t s = 77;
        for (unsigned i = 0; i < n; i++) {
            double t0 = now();
            ravel_module *m = rv_gen_from_seed(next(&s), &b->gen);
            const ravel_func *f = ravel_module_func(m, 0);
            double t1 = now();
            rv_alloc_opts ao = {.seed = s};
            char *err = NULL;
            ravel_func *out = rv_allocators[a].run(f, &ao, &err);
            double t2 = now();
            ravel_diags *d = ravel_diags_new();
            if (out) ravel_validate(out, 0, d);
            ravel_diags_free(d);
            double t3 = now();
            if (out) ravel_check(ck, out, f, NULL);
            double t4 = now();
            tg += t1 - t0, ta += t2 - t1, tv += t3 - t2, tc += t4 - t3;
            free(err);
            ravel_func_free(out);
            ravel_module_free(m);
        }
        printf("%-10s   phases with %-10s generate %.1f us, allocate %.1f us, validate %.1f us, check %.1f us\n",
               b->config, rv_allocators[a].name, tg / n * 1e6, ta / n * 1e6, tv / n * 1e6, tc / n * 1e6);
    }
    ravel_checker_free(ck);
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
    target tg;
    for (size_t a = 0; rv_allocators[a].name; a++) {
        tg = (target){.t = RV_FT_ALLOC, .alloc = (int)a, .campaign = true};
        snprintf(tg.name, sizeof tg.name, "campaign/%s", rv_allocators[a].name);
        bench_target(b, z, &tg);
        tg.campaign = false;
        snprintf(tg.name, sizeof tg.name, "fuzz_alloc_%s", rv_allocators[a].name);
        bench_target(b, z, &tg);
    }
    const rv_fuzz_target others[] = {RV_FT_DIFFERENTIAL, RV_FT_ORACLE, RV_FT_PARSE, RV_FT_MOVES};
    for (size_t k = 0; k < sizeof others / sizeof *others; k++) {
        tg = (target){.t = others[k], .alloc = -1};
        snprintf(tg.name, sizeof tg.name, "fuzz_%s", rv_fuzz_target_name(others[k]));
        bench_target(b, z, &tg);
    }
    rv_fuzz_free(z);
    phases(b);
    if (rej > 0) printf("%-10s FAIL: the generator rejected inputs\n", b->config);
    return rej == 0;
}

int main(int argc, char **argv)
{
    bench b = {.runs = 5, .seconds = 0.5, .ninputs = 2000};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc) b.runs = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) b.seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--quick")) b.runs = 1, b.seconds = 0.05, b.ninputs = 200;
        else {
            fprintf(stderr, "usage: bench_fuzz [--runs N] [--seconds S] [--quick]\n");
            return 2;
        }
    }
    if (b.runs < 1) b.runs = 1;
    printf("%-10s %-26s %12s %10s %10s %8s\n", "config", "target", "exec/s/core", "us/exec", "insts", "bugs");
    rv_gen_opts_default(&b.gen);
    b.config = "default";
    bool ok = bench_config(&b);
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
