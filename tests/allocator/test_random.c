/* test_random.c - the `random` allocator's shapes mode (allocator/random.c):
 *
 *   shapes   on generated functions and on every function of the given
 *            files, shapes mode gives allocations that ravel_check accepts
 *            and that the interpreter runs like the original (with and
 *            without the moving-GC model), deterministically; every shape
 *            of rv_random_stats occurs at least --min-shape times in all,
 *            so a change that silently stops making one fails here; shapes
 *            mode is used (no fallback to classic mode) on at least 90% of
 *            the generated functions;
 *   bugs     for each shape, the bug rv_random_opts plants at one of its
 *            occurrences (a dropped merge or edge move, a split move to the
 *            wrong register, a dropped spill before a branch or between
 *            instructions, a slot reused while its value is still needed)
 *            makes an allocation that the checker must reject. One that it
 *            accepts must run like the original (else the checker missed a
 *            bug: failure), and those are allowed only rarely (at most 3%
 *            per shape: the location may hold the value anyway on every
 *            path, which a correct checker then accepts).
 *
 * Usage: test_random [--gen N] [--first SEED] [--min-shape K] [--save DIR] [FILE.ra ...]
 * Every CFG shape is held to the same bar, irreducible ones included.
 * --save DIR writes each failing case there (the function as
 * NAME.orig.ra, the allocation as NAME.ra). */
#define _POSIX_C_SOURCE 200809L
#include "allocator/alloc.h"
#include "fuzz/gen.h"
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

static const char *kind_name[RV_RS_NKINDS] = {
    "exit-move", "merge-move", "entry-move", "merge", "split-move", "split-spill", "split-reload",
    "branch-spill", "spill-reloads", "slot-reuse", "slot-reuse-cycle", "slot-clash",
};
/* the shapes with a plantable bug */
static const int bug_kinds[] = {RV_RS_EXIT_MOVE, RV_RS_MERGE_MOVE, RV_RS_ENTRY_MOVE, RV_RS_SPLIT_MOVE,
                                RV_RS_SPLIT_SPILL, RV_RS_BRANCH_SPILL, RV_RS_SLOT_CLASH};
#define NBUGS (sizeof bug_kinds / sizeof bug_kinds[0])

typedef struct totals {
    long funcs, fails, fallbacks;
    unsigned long shapes[RV_RS_NKINDS];
    long planted[RV_RS_NKINDS], rejected[RV_RS_NKINDS], benign[RV_RS_NKINDS];
} totals;

static void dump(const char *what, const ravel_func *f, const ravel_func *g)
{
    fprintf(stderr, "---- %s: original ----\n", what);
    ravel_print_machine(stderr, f->mach);
    ravel_print_func(stderr, f);
    if (g) {
        fprintf(stderr, "---- allocated ----\n");
        ravel_print_func(stderr, g);
    }
}

/* --save DIR: where SUSPECT cases are written (NULL: nowhere). */
static const char *save_dir;

/* Writes f and its allocation g as DIR/NAME.orig.ra and DIR/NAME.ra. */
static void save_case(const char *name, const ravel_func *f, const ravel_func *g)
{
    if (!save_dir) return;
    char path[4096];
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s%s", save_dir, name, k ? ".ra" : ".orig.ra");
        FILE *fp = fopen(path, "w");
        if (!fp) continue;
        ravel_print_machine(fp, f->mach);
        ravel_print_func(fp, k ? g : f);
        fclose(fp);
        fprintf(stderr, "  saved %s\n", path);
    }
}

/* One function, one seed: the correct allocation, then each shape's bug. */
static void test_func(ravel_checker *ck, const ravel_func *f, uint64_t seed, const char *what, totals *t)
{
    rv_alloc_opts o = {seed, false, NULL};
    rv_random_opts ro = {RV_RS_MODE_SHAPES, -1, 0};
    rv_random_stats st;
    char *err = NULL, msg[512];
    t->funcs++;
    ravel_func *g = rv_random_run(f, &o, &ro, &st, &err);
    if (!g) {
        fprintf(stderr, "FAIL %s seed %llu: allocation failed: %s\n", what, (unsigned long long)seed, err ? err : "?");
        free(err);
        t->fails++;
        return;
    }
    free(err);
    if (st.fallback) {
        t->fallbacks++;
        ravel_func_free(g);
        return;
    }
    ravel_report *rep = NULL;
    bool runs = ts_same_runs(f, g, seed, 6, true, msg, sizeof msg);
    if (ravel_check(ck, g, f, &rep) != RAVEL_OK) {
        {
            fprintf(stderr, "FAIL %s seed %llu: checker rejects the allocation:\n", what, (unsigned long long)seed);
            ravel_report_print(stderr, rep);
            if (t->fails < 2) dump(what, f, g);
            char name[64];
            snprintf(name, sizeof name, "fp-%ld", t->fails);
            save_case(name, f, g);
            t->fails++;
        }
    }
    ravel_report_free(rep);
    if (!runs) {
        fprintf(stderr, "FAIL %s seed %llu: outputs differ: %s\n", what, (unsigned long long)seed, msg);
        if (t->fails < 2) dump(what, f, g);
        t->fails++;
    }
    ravel_func *g2 = rv_random_run(f, &o, &ro, NULL, &err);
    free(err);
    if (!g2 || !rv_func_equal(g, g2)) {
        fprintf(stderr, "FAIL %s seed %llu: not deterministic\n", what, (unsigned long long)seed);
        t->fails++;
    }
    ravel_func_free(g2);
    for (int k = 0; k < RV_RS_NKINDS; k++) t->shapes[k] += st.count[k];
    /* the bugs: one occurrence per shape, chosen from the seed */
    for (size_t b = 0; b < NBUGS; b++) {
        int kind = bug_kinds[b];
        uint32_t n = st.count[kind];
        if (kind == RV_RS_SLOT_CLASH) { /* counted only when asked for */
            rv_random_opts cnt = {RV_RS_MODE_SHAPES, kind, UINT32_MAX};
            rv_random_stats cs;
            ravel_func *h = rv_random_run(f, &o, &cnt, &cs, &err);
            free(err);
            ravel_func_free(h);
            n = cs.count[kind];
        }
        if (!n) continue;
        rv_random_opts bad = {RV_RS_MODE_SHAPES, kind, (uint32_t)(rv_hash64(seed * 131 + (uint64_t)kind) % n)};
        rv_random_stats bs;
        rv_alloc_opts ot = o;
        ot.trace = getenv("RAVEL_TEST_SHOW_BENIGN") != NULL;
        ravel_func *h = rv_random_run(f, &ot, &bad, &bs, &err);
        free(err);
        if (!h || !bs.planted) {
            ravel_func_free(h);
            continue;
        }
        t->planted[kind]++;
        rep = NULL;
        if (ravel_check(ck, h, f, &rep) != RAVEL_OK) t->rejected[kind]++;
        else if (ts_same_runs(f, h, seed, 6, true, msg, sizeof msg)) {
            t->benign[kind]++;
            if (getenv("RAVEL_TEST_SHOW_BENIGN") && atoi(getenv("RAVEL_TEST_SHOW_BENIGN")) == kind) {
                fprintf(stderr, "benign %s bug, %s seed %llu\n", kind_name[kind], what, (unsigned long long)seed);
                dump(what, f, h);
                ravel_print_func(stderr, g);
            }
        }
        else {
            fprintf(stderr, "FAIL %s seed %llu: the checker accepts a planted %s bug that the interpreter sees: %s\n", what,
                    (unsigned long long)seed, kind_name[kind], msg);
            if (t->fails < 2) dump(what, f, h);
            char name[64];
            snprintf(name, sizeof name, "fn-%ld", t->fails);
            save_case(name, f, h);
            t->fails++;
        }
        ravel_report_free(rep);
        ravel_func_free(h);
    }
    ravel_func_free(g);
}

int main(int argc, char **argv)
{
    long ngen = 0, min_shape = 1;
    uint64_t first = 1;
    totals t;
    memset(&t, 0, sizeof t);
    ravel_checker *ck = ravel_checker_new();
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--gen") == 0 && i + 1 < argc) ngen = atol(argv[++i]);
        else if (strcmp(argv[i], "--first") == 0 && i + 1 < argc) first = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--min-shape") == 0 && i + 1 < argc) min_shape = atol(argv[++i]);
        else if (strcmp(argv[i], "--save") == 0 && i + 1 < argc) save_dir = argv[++i];
        else { /* a file: every unallocated valid function, on 20 seeds */
            size_t len;
            char *src = ts_read_all(argv[i], &len);
            ravel_diags *dg = ravel_diags_new();
            ravel_module *m = src ? ravel_module_parse(src, len, argv[i], dg) : NULL;
            if (!m) {
                fprintf(stderr, "FAIL cannot read %s\n", argv[i]);
                t.fails++;
            }
            for (size_t k = 0; m && k < ravel_module_nfuncs(m); k++) {
                const ravel_func *f = ravel_module_func(m, k);
                ravel_diags *dv = ravel_diags_new();
                bool usable = ravel_validate(f, RAVEL_VALIDATE_SSA, dv) == RAVEL_OK && !rv_func_is_allocated(f);
                ravel_diags_free(dv);
                for (uint64_t seed = 0; usable && seed < 20; seed++) test_func(ck, f, seed, argv[i], &t);
            }
            ravel_module_free(m);
            ravel_diags_free(dg);
            free(src);
        }
    }
    long gen_funcs = t.funcs, gen_fallbacks = t.fallbacks;
    for (long k = 0; k < ngen; k++) {
        uint64_t seed = first + (uint64_t)k;
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.min_regs = o.max_regs = 1 + (uint32_t)(seed % 16);
        o.max_insts = 40 + (uint32_t)(seed % 4) * 40;
        o.pressure = (uint32_t)(seed * 37 % 101);
        if (seed % 4 == 3) o.features = (unsigned)(rv_hash64(seed) & RV_GEN_ALL);
        ravel_module *m = rv_gen_from_seed(seed, &o);
        const ravel_func *f = ravel_module_func(m, 0);
        char why[256], what[64];
        snprintf(what, sizeof what, "gen seed %llu", (unsigned long long)seed);
        if (rv_gen_satisfiable(f, why, sizeof why)) test_func(ck, f, seed, what, &t);
        ravel_module_free(m);
    }
    gen_funcs = t.funcs - gen_funcs;
    gen_fallbacks = t.fallbacks - gen_fallbacks;
    ravel_checker_free(ck);
    printf("%ld allocations, %ld failed, %ld fell back to classic mode (%ld of %ld generated)\n",
           t.funcs, t.fails, t.fallbacks, gen_fallbacks, gen_funcs);
    printf("%-18s %8s %8s %8s %8s\n", "shape", "made", "bugs", "rejected", "benign");
    for (int k = 0; k < RV_RS_NKINDS; k++) {
        printf("%-18s %8lu %8ld %8ld %8ld\n", kind_name[k], t.shapes[k], t.planted[k], t.rejected[k], t.benign[k]);
        if (k != RV_RS_SLOT_CLASH && (long)t.shapes[k] < min_shape) {
            printf("FAIL shape %s made %lu times (want at least %ld)\n", kind_name[k], t.shapes[k], min_shape);
            t.fails++;
        }
    }
    for (size_t b = 0; b < NBUGS; b++) {
        int k = bug_kinds[b];
        if (t.planted[k] < (min_shape > 1 ? 5 : 1)) {
            printf("FAIL bug %s planted %ld times\n", kind_name[k], t.planted[k]);
            t.fails++;
        }
        if (t.benign[k] * 100 > t.planted[k] * 3) {
            printf("FAIL bug %s accepted (harmlessly) %ld of %ld times: more than 3%%\n", kind_name[k], t.benign[k], t.planted[k]);
            t.fails++;
        }
    }
    if (gen_funcs && gen_fallbacks * 10 > gen_funcs) {
        printf("FAIL shapes mode fell back on %ld of %ld generated functions (more than 10%%)\n", gen_fallbacks, gen_funcs);
        t.fails++;
    }
    return t.fails != 0 || t.funcs == 0;
}
