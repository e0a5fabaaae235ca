/* test_allocators.c - every allocator of the table (rv_allocators), on every
 * corpus file and on generated functions:
 *   - the allocation succeeds (the generator only makes satisfiable
 *     functions, rv_gen_satisfiable double-checks);
 *   - ravel_check(alloc, orig) verifies it;
 *   - the interpreter gives equal results before and after allocation on a
 *     few input vectors, with and without the moving-GC model;
 *   - the allocator is deterministic (same seed, same output).
 * Usage: test_allocators [--corpus DIR] [--gen N] [--first SEED] [--insts N] [--alloc NAME] [--overlap N]
 * --overlap N: N generated functions on machines with containment
 * (docs/format.md section 14.1) where some parts (eax, al, ah, h0, ...) are
 * made allocatable at random places of their class's preference order, so
 * that allocatable registers overlap and the function names registers
 * that overlap homes; fast and linear must allocate them, the other
 * allocators may decline (a message naming the machine's alias lines).
 * Iterating the table means a newly added allocator is tested here at once. */
#define _POSIX_C_SOURCE 200809L
#include "allocator/alloc.h"
#include "fuzz/gen.h"
#include "tests/support/support.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

typedef struct tally {
    long funcs, fails;
} tally;

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

/* Checks one allocation of f; returns true if everything holds. */
static bool test_one(ravel_checker *ck, const rv_allocator *al, const ravel_func *f, uint64_t seed, const char *what, bool verbose)
{
    rv_alloc_opts o = {seed, false, NULL};
    char *err = NULL, msg[512];
    ravel_func *g = al->run(f, &o, &err);
    if (!g && !rv_alloc_takes_alias(al) && rv_mach_has_alias(f->mach) && err && strstr(err, "alias lines")) {
        free(err); /* declined, cleanly */
        return true;
    }
    if (!g) {
        fprintf(stderr, "FAIL %s [%s]: allocation failed: %s\n", what, al->name, err ? err : "?");
        if (verbose) dump(what, f, NULL);
        free(err);
        return false;
    }
    free(err);
    bool ok = true;
    ravel_report *rep = NULL;
    int rc = ravel_check(ck, g, f, &rep);
    if (rc != RAVEL_OK) {
        fprintf(stderr, "FAIL %s [%s]: checker rejects the allocation:\n", what, al->name);
        ravel_report_print(stderr, rep);
        ok = false;
    }
    ravel_report_free(rep);
    for (int k = 0; ok && k < 4; k++) {
        if (!ts_same_run(f, g, seed, k, false, msg, sizeof msg)) {
            fprintf(stderr, "FAIL %s [%s]: outputs differ (inputs %d, moving gc %d): %s\n", what, al->name, k, k & 1, msg);
            ok = false;
        }
    }
    ravel_func *g2 = al->run(f, &o, &err);
    free(err);
    if (!g2 || !rv_func_equal(g, g2)) {
        fprintf(stderr, "FAIL %s [%s]: not deterministic for seed %llu\n", what, al->name, (unsigned long long)seed);
        ok = false;
    }
    ravel_func_free(g2);
    if (!ok && verbose) dump(what, f, g);
    ravel_func_free(g);
    return ok;
}

static void run_corpus(ravel_checker *ck, const char *dir, const char *only, tally *t)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "cannot open corpus %s\n", dir);
        t->fails++;
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 3, ".ra") != 0) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        char *src = ts_read_all(path, &len);
        ravel_diags *dg = ravel_diags_new();
        ravel_module *m = src ? ravel_module_parse(src, len, path, dg) : NULL;
        for (size_t i = 0; m && i < ravel_module_nfuncs(m); i++) {
            const ravel_func *f = ravel_module_func(m, i);
            ravel_diags *dv = ravel_diags_new();
            bool usable = ravel_validate(f, RAVEL_VALIDATE_SSA, dv) == RAVEL_OK && !rv_func_is_allocated(f);
            ravel_diags_free(dv);
            if (!usable) continue;
            for (const rv_allocator *al = rv_allocators; al->name; al++) {
                if (only && strcmp(only, al->name) != 0) continue;
                char what[4200];
                snprintf(what, sizeof what, "%s:%s", path, rv_func_name(f));
                for (uint64_t seed = 0; seed < 3; seed++) {
                    t->funcs++;
                    if (!test_one(ck, al, f, seed, what, true)) t->fails++;
                }
            }
        }
        ravel_module_free(m);
        ravel_diags_free(dg);
        free(src);
    }
    closedir(d);
}

static void run_generated(ravel_checker *ck, uint64_t first, long count, uint32_t insts, const char *only, tally *t)
{
    for (long k = 0; k < count; k++) {
        uint64_t seed = first + (uint64_t)k;
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.min_regs = o.max_regs = 1 + (uint32_t)(seed % 32);
        o.max_insts = insts ? insts : 40 + (uint32_t)(seed % 5) * 40;
        o.pressure = (uint32_t)(seed * 37 % 101);
        if (seed % 4 == 3) o.features = (unsigned)(rv_hash64(seed) & RV_GEN_ALL); /* feature subsets */
        ravel_module *m = rv_gen_from_seed(seed, &o);
        const ravel_func *f = ravel_module_func(m, 0);
        char why[256];
        if (!rv_gen_satisfiable(f, why, sizeof why)) { /* a generator problem, not ours */
            ravel_module_free(m);
            continue;
        }
        for (const rv_allocator *al = rv_allocators; al->name; al++) {
            if (only && strcmp(only, al->name) != 0) continue;
            char what[64];
            snprintf(what, sizeof what, "gen seed %llu", (unsigned long long)seed);
            t->funcs++;
            if (!test_one(ck, al, f, seed, what, t->fails < 3)) t->fails++;
        }
        ravel_module_free(m);
    }
}

/* Makes some of m's parts (reserved registers inside an allocatable one)
 * allocatable, each at a random place of its class's preference order. */
static void expose_parts(ravel_machine *m, uint64_t seed)
{
    uint64_t rng = rv_hash64(seed ^ 0xa11a5ull);
    uint32_t pct = rv_rng_below(&rng, 101);
    for (uint32_t r = 0; r < m->regs.len; r++) {
        const uint32_t *ov;
        if (!m->regs.data[r].reserved || !rv_mach_overlaps(m, r, &ov) || rv_rng_below(&rng, 100) >= pct) continue;
        rv_class *c = &m->classes.data[m->regs.data[r].cls];
        uint32_t at = rv_rng_below(&rng, c->alloc.len + 1);
        rv_vec_push(c->alloc, r);
        memmove(c->alloc.data + at + 1, c->alloc.data + at, sizeof(uint32_t) * (c->alloc.len - 1 - at));
        c->alloc.data[at] = r;
        m->regs.data[r].reserved = false;
    }
}

/* Generated functions on machines whose allocatable registers overlap. */
static void run_overlap(ravel_checker *ck, uint64_t first, long count, const char *only, tally *t, long *declined)
{
    for (long k = 0; k < count; k++) {
        uint64_t seed = first + (uint64_t)k;
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.features = RV_GEN_ALL | RV_GEN_EXT;
        o.min_regs = 1 + (uint32_t)(seed % 6);
        o.max_regs = o.min_regs + (uint32_t)(seed % 9);
        o.max_insts = 20 + (uint32_t)(seed % 6) * 30;
        o.pressure = (uint32_t)(seed * 37 % 101);
        ravel_module *m = rv_gen_from_seed(seed, &o);
        const ravel_func *f = ravel_module_func(m, 0);
        if (!rv_mach_has_alias(f->mach)) {
            ravel_module_free(m);
            continue;
        }
        expose_parts((ravel_machine *)f->mach, seed);
        for (const rv_allocator *al = rv_allocators; al->name; al++) {
            if (only && strcmp(only, al->name) != 0) continue;
            char what[64];
            snprintf(what, sizeof what, "overlap seed %llu", (unsigned long long)seed);
            if (strcmp(al->name, "fast") && strcmp(al->name, "linear")) { /* may decline, cleanly */
                rv_alloc_opts ao = {seed, false, NULL};
                char *err = NULL;
                ravel_func *g = al->run(f, &ao, &err);
                bool clean = g || (err && strstr(err, "alias lines"));
                if (!g) ++*declined;
                ravel_func_free(g);
                if (!clean) fprintf(stderr, "FAIL %s [%s]: refused without naming the alias lines: %s\n", what, al->name, err ? err : "?");
                free(err);
                if (g || !clean) t->funcs++;
                if (!clean) t->fails++;
                if (g) t->funcs--; /* (an allocator that takes it is tested below) */
                if (!g) continue;
            }
            t->funcs++;
            if (!test_one(ck, al, f, seed, what, t->fails < 3)) t->fails++;
        }
        ravel_module_free(m);
    }
}

int main(int argc, char **argv)
{
    const char *corpus = NULL, *only = NULL;
    long ngen = 0, nover = 0, declined = 0;
    uint64_t first = 0;
    uint32_t insts = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--corpus") == 0) corpus = argv[i + 1];
        else if (strcmp(argv[i], "--gen") == 0) ngen = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--first") == 0) first = strtoull(argv[i + 1], NULL, 0);
        else if (strcmp(argv[i], "--alloc") == 0) only = argv[i + 1];
        else if (strcmp(argv[i], "--overlap") == 0) nover = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--insts") == 0) insts = (uint32_t)atol(argv[i + 1]);
    }
    ravel_checker *ck = ravel_checker_new();
    tally t = {0, 0};
    if (corpus) run_corpus(ck, corpus, only, &t);
    if (ngen) run_generated(ck, first, ngen, insts, only, &t);
    if (nover) run_overlap(ck, first, nover, only, &t, &declined);
    if (nover) printf("%ld declined (aliased machines)\n", declined);
    ravel_checker_free(ck);
    printf("%ld allocations tested, %ld failed\n", t.funcs, t.fails);
    printf("%ld passed, %ld failed\n", t.funcs - t.fails, t.fails);
    return t.fails != 0 || t.funcs == 0;
}
