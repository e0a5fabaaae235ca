/* test_linear.c - tests of the `linear` allocator (allocator/linear.c).
 *
 *   test_linear --case FILE.ra    every function of FILE is allocated and the
 *       result must pass ravel_check --orig and rv_interp_compare on a few
 *       input vectors. A header line "# expect: error TEXT" instead requires
 *       the allocation to fail with a message containing TEXT and naming the
 *       instruction.
 *   test_linear --random N MINREGS MAXREGS [SEED [INSTS BLOCKS]]   N
 *       generated functions (rv_gen_from_seed), registers per class in
 *       [MINREGS, MAXREGS], optionally larger ones: same checks; prints the
 *       weighted cost of linear and fast.
 *   test_linear --cost N          linear's mean weighted cost over N generated
 *       functions must not exceed fast's.
 */
#include "allocator/alloc.h"
#include "fuzz/gen.h"
#include "tests/support/expect.h"
#include "tests/support/support.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ravel_func *rv_alloc_linear(const ravel_func *f, const rv_alloc_opts *o, char **err);

/* Checks one allocation of f; returns true if verified and equivalent. */
static bool verify(const ravel_func *f, const ravel_func *g, const char *what)
{
    ravel_checker *ck = ravel_checker_new();
    ravel_report *rep = NULL;
    int rc = ravel_check(ck, g, f, &rep);
    bool ok = rc == RAVEL_OK;
    if (!ok) {
        fprintf(stderr, "%s: checker rejects the allocation (%d):\n", what, rc);
        if (rep) ravel_report_print(stderr, rep);
        ravel_print_func(stderr, g);
    }
    ravel_report_free(rep);
    ravel_checker_free(ck);
    static const uint64_t in1[] = {1, 10}, in2[] = {7, 3, 5, 9, 11, 2}, in3[] = {0xffffffffffffffffull, 0, 42};
    const uint64_t *ins[] = {NULL, in1, in2, in3};
    size_t nin[] = {0, 2, 6, 3};
    for (int k = 0; ok && k < 4; k++) {
        rv_run_opts o = {ins[k], nin[k], 20000, k == 2 && !f->mach->gc_nonmoving, false, 0};
        char msg[512];
        if (!rv_interp_compare(f, g, &o, msg, sizeof msg)) {
            fprintf(stderr, "%s: run --compare differs (inputs %d): %s\n", what, k, msg);
            ravel_print_func(stderr, g);
            ok = false;
        }
    }
    return ok;
}

/* Debug aid (LINEAR_BLOCKCOST): the weighted cost of each block. */
static void block_costs(const ravel_func *g)
{
    rv_cfg c;
    rv_cfg_build(&c, g);
    for (uint32_t b = 0; b < c.nblocks; b++) {
        const rv_block *bl = &g->blocks.data[b];
        double w = 1, cost = 0;
        for (uint32_t d = 0; d < c.loop_depth[b]; d++) w *= 10;
        for (uint32_t j = 0; j < bl->ninsts; j++) {
            const rv_inst *in = rv_inst_at(g, bl->first_inst + j);
            cost += in->op == RAVEL_OP_SPILL ? 1 : in->op == RAVEL_OP_RELOAD ? 4 : in->op == RAVEL_OP_MOVE ? 0.2 : 0;
        }
        if (cost > 0) printf("  %s depth %u: %.1f\n", rv_block_name(g, b), c.loop_depth[b], cost * w);
    }
    rv_cfg_free(&c);
}

static int run_case(const char *path)
{
    size_t len;
    char *src = ts_read_all(path, &len);
    if (!src) {
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    char want[256] = "", v[512];
    for (const char *p = src; ts_header_next(&p, "expect", v, sizeof v);) { /* error TEXT */
        ts_expect x;
        if (ts_expect_parse(v, &x, 1) != 1 || !ts_expect_only(&x, 1, 1u << TS_X_ERROR, v)) {
            free(src);
            return 1;
        }
        memcpy(want, x.text, sizeof want);
    }
    ravel_diags *d = ravel_diags_new();
    ravel_module *mod = ravel_module_parse(src, len, path, d);
    int bad = 0;
    if (!mod) {
        ravel_diags_print(stderr, d);
        bad = 1;
    }
    for (size_t i = 0; mod && i < ravel_module_nfuncs(mod); i++) {
        const ravel_func *f = ravel_module_func(mod, i);
        if (ravel_validate(f, RAVEL_VALIDATE_SSA, d) != RAVEL_OK) {
            ravel_diags_print(stderr, d);
            bad = 1;
            continue;
        }
        rv_alloc_opts o = {0, getenv("LINEAR_TRACE") != NULL, NULL};
        char *err = NULL;
        /* LINEAR_USE_FAST: the same checks on `fast`, to compare outputs */
        ravel_func *g = getenv("LINEAR_USE_FAST") ? rv_alloc_fast(f, &o, &err) : rv_alloc_linear(f, &o, &err);
        if (want[0]) {
            if (g || !err || !strstr(err, want) || !strstr(err, "instruction")) {
                fprintf(stderr, "%s: expected error '%s', got %s\n", path, want, err ? err : "success");
                bad = 1;
            }
        } else if (!g) {
            fprintf(stderr, "%s: allocation failed: %s\n", path, err ? err : "?");
            bad = 1;
        } else {
            if (getenv("LINEAR_PRINT")) ravel_print_func(stdout, g);
            if (getenv("LINEAR_BLOCKCOST")) block_costs(g);
            if (!verify(f, g, path)) bad = 1;
        }
        free(err);
        if (g) ravel_func_free(g);
    }
    ravel_module_free(mod);
    ravel_diags_free(d);
    free(src);
    printf("%s: %s\n", path, bad ? "FAIL" : "ok");
    return bad;
}

/* Allocates generated functions; sums the weighted costs of linear and fast. */
static uint32_t big_insts, big_blocks; /* --random ... SEED INSTS BLOCKS */

static int run_random(uint32_t n, uint32_t minr, uint32_t maxr, uint64_t seed0, double *clin, double *cfast)
{
    int bad = 0;
    *clin = *cfast = 0;
    for (uint32_t s = 0; s < n; s++) {
        rv_gen_opts go;
        rv_gen_opts_default(&go);
        go.min_regs = minr;
        go.max_regs = maxr;
        if (big_insts) go.max_insts = big_insts;
        if (big_blocks) go.max_blocks = big_blocks;
        uint64_t seed = seed0 + s;
        ravel_module *mod = rv_gen_from_seed(seed, &go);
        const ravel_func *f = ravel_module_func(mod, 0);
        rv_alloc_opts o = {seed, false, NULL};
        char *err = NULL, what[64];
        snprintf(what, sizeof what, "seed %llu", (unsigned long long)seed);
        ravel_func *g = rv_alloc_linear(f, &o, &err);
        if (!g) {
            fprintf(stderr, "%s: linear failed: %s\n", what, err ? err : "?");
            bad++;
        } else if (!verify(f, g, what)) {
            bad++;
        } else {
            rv_cost c;
            rv_cost_compute(g, &c);
            *clin += c.weighted;
            char *e2 = NULL;
            ravel_func *h = rv_alloc_fast(f, &o, &e2);
            if (h) {
                double lw = c.weighted;
                rv_cost_compute(h, &c);
                if (getenv("LINEAR_VERBOSE")) printf("seed %llu: linear %.1f fast %.1f\n", (unsigned long long)seed, lw, c.weighted);
                *cfast += c.weighted;
                ravel_func_free(h);
            } else {
                *cfast += 0;
            }
            free(e2);
        }
        free(err);
        if (g) ravel_func_free(g);
        ravel_module_free(mod);
        if (bad > 3) break;
    }
    return bad;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--case") == 0) return run_case(argv[2]);
    if (argc >= 5 && strcmp(argv[1], "--random") == 0) {
        double cl, cf;
        uint64_t seed0 = argc >= 6 ? strtoull(argv[5], NULL, 0) : 1;
        if (argc >= 8) {
            big_insts = (uint32_t)atoi(argv[6]);
            big_blocks = (uint32_t)atoi(argv[7]);
        }
        int bad = run_random((uint32_t)atoi(argv[2]), (uint32_t)atoi(argv[3]), (uint32_t)atoi(argv[4]), seed0, &cl, &cf);
        printf("random %s regs %s..%s: %d bad; weighted cost linear %.1f fast %.1f\n", argv[2], argv[3], argv[4], bad, cl, cf);
        return bad != 0;
    }
    if (argc >= 5 && strcmp(argv[1], "--dump") == 0) { /* prints a generated function */
        rv_gen_opts go;
        rv_gen_opts_default(&go);
        go.min_regs = (uint32_t)atoi(argv[3]);
        go.max_regs = (uint32_t)atoi(argv[4]);
        ravel_module *mod = rv_gen_from_seed(strtoull(argv[2], NULL, 0), &go);
        rv_print_module(stdout, mod);
        ravel_module_free(mod);
        return 0;
    }
    if (argc >= 3 && strcmp(argv[1], "--cost") == 0) {
        double cl, cf;
        int bad = run_random((uint32_t)atoi(argv[2]), 1, 16, 1000000, &cl, &cf);
        printf("cost over %s functions: linear %.1f, fast %.1f (%.1f%%)\n", argv[2], cl, cf, cf > 0 ? 100.0 * cl / cf : 0.0);
        return bad != 0 || cl > cf;
    }
    fprintf(stderr, "usage: test_linear --case FILE | --random N MINREGS MAXREGS [SEED] | --cost N\n");
    return 2;
}
