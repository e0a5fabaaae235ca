/* bench_alloc.c - the allocators of the table, side by side:
 *   1. allocation time per instruction for functions of 10^3 .. 10^6
 *      instructions (generated: rv_gen_from_seed, 16 registers per class,
 *      blocks growing with the size), median of --runs runs;
 *   2. the weighted cost (rv_cost_compute: reload 4, spill 1, move 0.2,
 *      times 10^loop-depth) summed over the corpus and over generated
 *      functions (register files of 1..32 registers per class), counting
 *      only functions every allocator allocates.
 * The timing functions have realistic pressure: a use drawn for pressure
 * picks among the --window N (default 32) newest values of its type in
 * scope (rv_gen_opts.window), so tens of values are live at once at every
 * size. Safepoints are left out unless --safepoints: a stackmap lists every
 * .ref live across its safepoint, so with --window 0 (any value in scope,
 * thousands of long-lived refs at 10^5) the OUTPUT grows as safepoints x
 * live refs and dominates.
 *   3. with --funcs N: microseconds per fuzz-sized function (N generated
 *      functions of ~250 instructions, max_insts 367 as in bench_fuzz),
 *      allocation only, for every allocator (or only --alloc NAME); this
 *      mode alone is what `valgrind --tool=callgrind` profiles well.
 * With --markdown, parts 1 and 2 are printed again as one markdown table,
 * a row per allocator (docs/allocators.md).
 * Usage: bench_alloc [--runs N] [--max N] [--window N] [--gen N] [--corpus DIR] [--safepoints] [--quick]
 *                    [--markdown] [--funcs N [--alloc NAME]]
 * Run it from a Release build; --quick is the small smoke run used as a test. */
#define _POSIX_C_SOURCE 200809L
#include "allocator/alloc.h"
#include "fuzz/gen.h"

#include "bench/bench_util.h"
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ALLOCS 16

static uint32_t count_insts(const ravel_func *f) { return f->insts.len; }

static uint32_t nallocs(void)
{
    uint32_t n = 0;
    while (rv_allocators[n].name && n < MAX_ALLOCS) n++;
    return n;
}

/* Medians of part 1, kept for the --markdown table. */
typedef struct time_table {
    uint32_t nsizes;
    uint32_t insts[8];
    double ns[8][MAX_ALLOCS]; /* < 0: failed or gave up */
} time_table;

/* Part 1: time per instruction. */
static void bench_time(int runs, uint32_t max_size, bool safepoints, uint32_t window, time_table *tt)
{
    uint32_t na = nallocs();
    bool gave_up[MAX_ALLOCS] = {0};
    printf("allocation time (CPU), ns per instruction (median of %d), window %u%s\n", runs, window,
           safepoints ? "" : ", generated functions without safepoints (--safepoints to include them)");
    printf("%10s %8s", "insts", "blocks");
    for (uint32_t a = 0; a < na; a++) printf(" %12s", rv_allocators[a].name);
    printf("\n");
    for (uint32_t size = 1000; size <= max_size; size *= 10) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.features = RV_GEN_ALL; /* the figures quoted so far: no section 14 */
        o.cfg = RV_GEN_CFG_STRUCTURED; /* the functions of the figures quoted so far */
        o.max_insts = size;
        o.min_insts = size - size / 10; /* rows of the size they are labelled with */
        o.max_blocks = size / 40 > 24 ? size / 40 : 24;
        o.min_regs = o.max_regs = 16;
        o.window = window;
        if (!safepoints) o.features &= ~(unsigned)RV_GEN_SAFEPOINTS;
        ravel_module *m = rv_gen_from_seed(size, &o);
        const ravel_func *f = ravel_module_func(m, 0);
        uint32_t n = count_insts(f);
        uint32_t row = tt->nsizes < 8 ? tt->nsizes++ : 7;
        tt->insts[row] = n;
        printf("%10u %8u", n, f->layout.len);
        fflush(stdout);
        for (uint32_t a = 0; a < na; a++) {
            tt->ns[row][a] = -1;
            if (gave_up[a]) {
                printf(" %12s", "-");
                continue;
            }
            double t[64];
            int r;
            bool failed = false;
            for (r = 0; r < runs && r < 64; r++) {
                rv_alloc_opts ao = {1, false, NULL};
                char *err = NULL;
                double t0 = bench_cpu_sec();
                ravel_func *g = rv_allocators[a].run(f, &ao, &err);
                t[r] = bench_cpu_sec() - t0;
                failed |= g == NULL;
                ravel_func_free(g);
                free(err);
                if (t[r] > 20) { /* too slow to repeat */
                    r++;
                    gave_up[a] = true;
                    break;
                }
            }
            if (failed) printf(" %12s", "failed");
            else printf(" %12.1f", tt->ns[row][a] = bench_median(t, (size_t)r) * 1e9 / (n ? n : 1));
            fflush(stdout);
        }
        printf("\n");
        ravel_module_free(m);
    }
}

typedef struct cost_sum {
    double cost[MAX_ALLOCS];
    uint64_t spills[MAX_ALLOCS], reloads[MAX_ALLOCS], moves[MAX_ALLOCS];
    uint64_t insts; /* original instructions of the functions counted */
    uint32_t funcs, skipped;
} cost_sum;

/* Allocates f with every allocator; adds the costs only if all succeed. */
static void cost_one(const ravel_func *f, cost_sum *s)
{
    uint32_t na = nallocs();
    rv_cost c[MAX_ALLOCS];
    for (uint32_t a = 0; a < na; a++) {
        rv_alloc_opts ao = {1, false, NULL};
        char *err = NULL;
        ravel_func *g = rv_allocators[a].run(f, &ao, &err);
        free(err);
        if (!g) {
            s->skipped++;
            return;
        }
        rv_cost_compute(g, &c[a]);
        ravel_func_free(g);
    }
    for (uint32_t a = 0; a < na; a++) {
        s->cost[a] += c[a].weighted;
        s->spills[a] += c[a].spills;
        s->reloads[a] += c[a].reloads;
        s->moves[a] += c[a].moves;
    }
    s->insts += f->insts.len;
    s->funcs++;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)(n > 0 ? n : 0) + 1);
    size_t got = fread(buf, 1, (size_t)(n > 0 ? n : 0), fp);
    buf[got] = 0;
    fclose(fp);
    *len = got;
    return buf;
}

static void cost_corpus(const char *dir, cost_sum *s)
{
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 3, ".ra") != 0) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        char *src = read_all(path, &len);
        ravel_diags *dg = ravel_diags_new();
        ravel_module *m = src ? ravel_module_parse(src, len, path, dg) : NULL;
        for (size_t i = 0; m && i < ravel_module_nfuncs(m); i++) {
            const ravel_func *f = ravel_module_func(m, i);
            ravel_diags *dv = ravel_diags_new();
            if (ravel_validate(f, RAVEL_VALIDATE_SSA, dv) == RAVEL_OK && !rv_func_is_allocated(f)) cost_one(f, s);
            ravel_diags_free(dv);
        }
        ravel_module_free(m);
        ravel_diags_free(dg);
        free(src);
    }
    closedir(d);
}

static void cost_generated(uint32_t count, cost_sum *s)
{
    for (uint32_t k = 0; k < count; k++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.features = RV_GEN_ALL; /* the figures quoted so far: no section 14 */
        o.cfg = RV_GEN_CFG_STRUCTURED; /* the functions of the figures quoted so far */
        o.min_regs = o.max_regs = 1 + k % 32;
        ravel_module *m = rv_gen_from_seed(1000 + k, &o);
        cost_one(ravel_module_func(m, 0), s);
        ravel_module_free(m);
    }
}

static void print_costs(const char *what, const cost_sum *s)
{
    uint32_t na = nallocs();
    printf("%-22s %6u", what, s->funcs);
    for (uint32_t a = 0; a < na; a++) printf(" %12.1f", s->cost[a]);
    printf("\n");
    printf("%-22s %6s", "  spills/reloads/moves", "");
    for (uint32_t a = 0; a < na; a++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%llu/%llu/%llu", (unsigned long long)s->spills[a], (unsigned long long)s->reloads[a],
                 (unsigned long long)s->moves[a]);
        printf(" %12s", buf);
    }
    printf("\n");
}

/* --markdown: parts 1 and 2 as one table, a row per allocator (the table
 * of docs/allocators.md). */
static void print_markdown(const time_table *tt, const cost_sum *cc, const cost_sum *cg, int runs)
{
    uint32_t na = nallocs();
    printf("\n| allocator |");
    for (uint32_t k = 0; k < tt->nsizes; k++) printf(" ns/inst, %u insts |", tt->insts[k]);
    printf(" weighted cost, corpus (%u) | weighted cost, generated (%u) | spills / reloads / moves per 100 insts (generated) |\n|---|",
           cc->funcs, cg->funcs);
    for (uint32_t k = 0; k < tt->nsizes; k++) printf("---:|");
    printf("---:|---:|---:|\n");
    for (uint32_t a = 0; a < na; a++) {
        printf("| %s |", rv_allocators[a].name);
        for (uint32_t k = 0; k < tt->nsizes; k++) {
            if (tt->ns[k][a] < 0) printf(" - |");
            else printf(" %.0f |", tt->ns[k][a]);
        }
        double per = cg->insts ? 100.0 / (double)cg->insts : 0;
        printf(" %.1f | %.1f | %.2f / %.2f / %.2f |\n", cc->cost[a], cg->cost[a], (double)cg->spills[a] * per,
               (double)cg->reloads[a] * per, (double)cg->moves[a] * per);
    }
    printf("\n(CPU time, median of %d runs; costs: reload 4, spill 1, move 0.2, x10^loop-depth)\n", runs);
}

/* Part 3: fuzz-sized functions, generated first, then allocated in a loop. */
static void bench_funcs(uint32_t count, const char *only)
{
    ravel_module **mods = rv_xcalloc(count + 1, sizeof *mods);
    uint64_t ninsts = 0;
    rv_gen_opts o;
    rv_gen_opts_default(&o);
    o.features = RV_GEN_ALL; /* the figures quoted so far: no section 14 */
    o.cfg = RV_GEN_CFG_STRUCTURED; /* the functions of the figures quoted so far */
    o.max_insts = 367;
    for (uint32_t k = 0; k < count; k++) {
        mods[k] = rv_gen_from_seed(7000 + k, &o);
        ninsts += ravel_module_func(mods[k], 0)->insts.len;
    }
    printf("%u generated functions, %.0f instructions on average\n", count, (double)ninsts / (count ? count : 1));
    for (uint32_t a = 0; a < nallocs(); a++) {
        if (only && strcmp(only, rv_allocators[a].name) != 0) continue;
        uint32_t failed = 0;
        double t0 = bench_cpu_sec();
        for (uint32_t k = 0; k < count; k++) {
            rv_alloc_opts ao = {k, false, NULL};
            char *err = NULL;
            ravel_func *g = rv_allocators[a].run(ravel_module_func(mods[k], 0), &ao, &err);
            failed += g == NULL;
            ravel_func_free(g);
            free(err);
        }
        double t = bench_cpu_sec() - t0;
        printf("%-10s %8.2f us/function %8.1f ns/inst (CPU)%s\n", rv_allocators[a].name, t * 1e6 / (count ? count : 1),
               t * 1e9 / (double)(ninsts ? ninsts : 1), failed ? " (some failed)" : "");
    }
    for (uint32_t k = 0; k < count; k++) ravel_module_free(mods[k]);
    free(mods);
}

int main(int argc, char **argv)
{
    int runs = 5;
    uint32_t max_size = 1000000, ngen = 500, window = 32;
#ifdef RAVEL_DEFAULT_CORPUS
    const char *corpus = RAVEL_DEFAULT_CORPUS; /* the source tree's corpus/ra */
#else
    const char *corpus = NULL;
#endif
    bool safepoints = false, markdown = false;
    uint32_t nfuncs = 0;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            runs = 1;
            max_size = 1000;
            ngen = 20;
        } else if (strcmp(argv[i], "--safepoints") == 0) {
            safepoints = true;
        } else if (strcmp(argv[i], "--markdown") == 0) {
            markdown = true;
        } else if (i + 1 < argc && strcmp(argv[i], "--window") == 0) {
            window = (uint32_t)strtoul(argv[++i], NULL, 0);
        } else if (i + 1 < argc && strcmp(argv[i], "--runs") == 0) {
            runs = atoi(argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "--max") == 0) {
            max_size = (uint32_t)strtoul(argv[++i], NULL, 0);
        } else if (i + 1 < argc && strcmp(argv[i], "--gen") == 0) {
            ngen = (uint32_t)strtoul(argv[++i], NULL, 0);
        } else if (i + 1 < argc && strcmp(argv[i], "--funcs") == 0) {
            nfuncs = (uint32_t)strtoul(argv[++i], NULL, 0);
        } else if (i + 1 < argc && strcmp(argv[i], "--alloc") == 0) {
            only = argv[++i];
        } else if (i + 1 < argc && strcmp(argv[i], "--corpus") == 0) {
            corpus = argv[++i];
        }
    }
    if (runs < 1) runs = 1;
    if (nfuncs) {
        bench_funcs(nfuncs, only);
        return 0;
    }
    time_table tt;
    memset(&tt, 0, sizeof tt);
    bench_time(runs, max_size, safepoints, window, &tt);
    cost_sum cc, cg;
    memset(&cc, 0, sizeof cc);
    memset(&cg, 0, sizeof cg);
    cost_corpus(corpus, &cc);
    cost_generated(ngen, &cg);
    uint32_t na = nallocs();
    printf("\nweighted cost (reload 4, spill 1, move 0.2, x10^loop-depth), summed\n");
    printf("%-22s %6s", "functions", "count");
    for (uint32_t a = 0; a < na; a++) printf(" %12s", rv_allocators[a].name);
    printf("\n");
    print_costs("corpus", &cc);
    print_costs("generated (1..32 regs)", &cg);
    if (cc.skipped || cg.skipped) printf("(skipped: %u corpus, %u generated: some allocator failed)\n", cc.skipped, cg.skipped);
    if (markdown) print_markdown(&tt, &cc, &cg, runs);
    return 0;
}
