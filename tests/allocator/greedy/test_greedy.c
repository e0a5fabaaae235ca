/* test_greedy.c - tests of the `greedy` allocator (allocator/greedy*.c).
 *
 *   test_greedy --case FILE...   every function of each FILE is allocated,
 *       checked (ravel_check with the original) and run against the
 *       original (tests/support: ts_same_runs). Headers (the one grammar of
 *       tests/support/README.md):
 *         "# expect: error TEXT"   the allocation must fail with TEXT in a
 *                                  message naming the instruction;
 *         "# greedy: ITEM[, ITEM]..."  what the allocation must show, summed
 *                                  over the file's functions; ITEM is
 *                                  "NAME >= N" for a counter (evictions,
 *                                  region splits, local splits, spilled
 *                                  ranges, tiny pieces, tiny evictions),
 *                                  "slots <= N" (slots used), or "cost <= X"
 *                                  (rv_cost_compute's weighted cost).
 *   test_greedy --gen N [FIRST]  N generated functions (1..32 registers per
 *       class, any CFG, irreducible ones included): each allocated, checked
 *       and run; every counter must be non-zero over the run (a change that
 *       stops evicting, splitting or spilling fails here).
 *   test_greedy --rank N         the weighted cost of every allocator of the
 *       table over N generated functions: greedy must be the lowest or the
 *       second lowest.
 *   test_greedy --union N        N random operations on the unions
 *       (greedy_union.c) against a plain list of segments.
 *   test_greedy --dump SEED      prints the generated function of --gen and
 *       --rank for SEED (GREEDY_VERBOSE=1 --rank prints each function's
 *       costs; GREEDY_TRACE, GREEDY_PRINT, GREEDY_BLOCKCOST: --case traces,
 *       prints, prints the cost of each block).
 */
#include "allocator/greedy.h"
#include "fuzz/gen.h"
#include "tests/support/expect.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ravel_check with the original, then both forms run on a few inputs
 * (with and without the moving collector). */
static bool verify(ravel_checker *ck, const ravel_func *f, const ravel_func *g, const char *what)
{
    ravel_report *rep = NULL;
    bool ok = ravel_check(ck, g, f, &rep) == RAVEL_OK;
    if (!ok) {
        fprintf(stderr, "%s: the checker rejects the allocation:\n", what);
        ravel_report_print(stderr, rep);
    }
    ravel_report_free(rep);
    char msg[512];
    if (ok && !ts_same_runs(f, g, 1, 6, false, msg, sizeof msg)) {
        fprintf(stderr, "%s: the allocated function runs differently: %s\n", what, msg);
        ok = false;
    }
    if (!ok) ravel_print_func(stderr, g);
    return ok;
}

static const char *const names[] = {"evictions", "region splits", "local splits", "spilled ranges", "tiny pieces",
                                    "tiny evictions"};
enum { NSTATS = 6 };

/* Adds greedy's counters to sum (by name: the order is greedy's). */
static void add_stats(uint64_t *sum, const rv_alloc_stats *st)
{
    for (uint32_t k = 0; k < st->n && k < RV_ALLOC_MAX_STATS; k++)
        for (int j = 0; j < NSTATS; j++)
            if (strcmp(st->name[k], names[j]) == 0) sum[j] += st->value[k];
}

/* Debug aid (GREEDY_BLOCKCOST): the weighted cost of each block. */
static void block_costs(const ravel_func *g)
{
    rv_cfg c;
    rv_cfg_build(&c, g);
    for (uint32_t b = 0; b < c.nblocks; b++) {
        const rv_block *bl = &g->blocks.data[b];
        double w = 1, cost = 0;
        for (uint32_t d = 0; d < c.loop_depth[b] && d < 10; d++) w *= 10;
        uint32_t n[3] = {0};
        for (uint32_t j = 0; j < bl->ninsts; j++) {
            const rv_inst *in = rv_inst_at(g, bl->first_inst + j);
            if (in->op == RAVEL_OP_SPILL) n[0]++;
            if (in->op == RAVEL_OP_RELOAD) n[1]++;
            if (in->op == RAVEL_OP_MOVE) n[2]++;
        }
        cost = (n[0] * RV_COST_SPILL + n[1] * RV_COST_RELOAD + n[2] * RV_COST_MOVE) * w;
        if (cost > 0) printf("  %s depth %u: %u/%u/%u %.1f\n", rv_block_name(g, b), c.loop_depth[b], n[0], n[1], n[2], cost);
    }
    rv_cfg_free(&c);
}

/* ---- --case ---- */

typedef struct expect {
    char error[256];
    uint64_t min[NSTATS];
    uint32_t max_slots; /* 0: no bound */
    double max_cost;    /* < 0: no bound */
} expect;

/* One "# greedy:" item into e; false if it is not one. */
static bool greedy_item(const char *it, expect *e)
{
    unsigned long long n;
    double x;
    if (sscanf(it, "slots <= %llu", &n) == 1) {
        e->max_slots = (uint32_t)n;
        return true;
    }
    if (sscanf(it, "cost <= %lf", &x) == 1) {
        e->max_cost = x;
        return true;
    }
    for (int k = 0; k < NSTATS; k++) {
        size_t len = strlen(names[k]);
        if (!strncmp(it, names[k], len) && sscanf(it + len, " >= %llu", &n) == 1) {
            e->min[k] = n;
            return true;
        }
    }
    return false;
}

/* The headers of a case; false (and a message) on a bad one. */
static bool read_expect(const char *src, expect *e)
{
    memset(e, 0, sizeof *e);
    e->max_cost = -1;
    char v[512];
    for (const char *p = src; ts_header_next(&p, "expect", v, sizeof v);) {
        ts_expect x;
        if (ts_expect_parse(v, &x, 1) != 1 || !ts_expect_only(&x, 1, 1u << TS_X_ERROR, v)) return false;
        snprintf(e->error, sizeof e->error, "%s", x.text);
    }
    for (const char *p = src; ts_header_next(&p, "greedy", v, sizeof v);)
        for (char *it = strtok(v, ","); it; it = strtok(NULL, ",")) {
            while (*it == ' ') it++;
            if (!greedy_item(it, e)) {
                fprintf(stderr, "bad '# greedy:' item: %s\n", it);
                return false;
            }
        }
    return true;
}

static int check_func(ravel_checker *ck, const char *path, const ravel_func *f, const expect *e, uint64_t *sum, double *cost)
{
    rv_alloc_stats st;
    memset(&st, 0, sizeof st);
    rv_alloc_opts o = {0, getenv("GREEDY_TRACE") != NULL, &st};
    char *err = NULL;
    ravel_func *g = rv_alloc_greedy(f, &o, &err);
    int bad = 0;
    if (e->error[0]) {
        if (g || !err || !strstr(err, e->error) || !strstr(err, "instruction")) {
            fprintf(stderr, "%s: expected the error '%s', got %s\n", path, e->error, err ? err : "an allocation");
            bad = 1;
        }
    } else if (!g) {
        fprintf(stderr, "%s: the allocation failed: %s\n", path, err ? err : "?");
        bad = 1;
    } else {
        if (getenv("GREEDY_PRINT")) ravel_print_func(stdout, g);
        if (getenv("GREEDY_BLOCKCOST")) block_costs(g);
        bad = !verify(ck, f, g, path);
        rv_cost c;
        rv_cost_compute(g, &c);
        *cost += c.weighted;
        if (e->max_slots && g->nslots > e->max_slots) {
            fprintf(stderr, "%s: %s uses %u slots, expected at most %u\n", path, rv_func_name(f), g->nslots, e->max_slots);
            bad = 1;
        }
    }
    add_stats(sum, &st);
    free(err);
    ravel_func_free(g);
    return bad;
}

static int run_case(ravel_checker *ck, const char *path)
{
    size_t len;
    char *src = ts_read_all(path, &len);
    if (!src) return 1;
    expect e;
    if (!read_expect(src, &e)) {
        free(src);
        return 1;
    }
    ravel_diags *d = ravel_diags_new();
    ravel_module *mod = ravel_module_parse(src, len, path, d);
    int bad = mod ? 0 : 1;
    if (!mod) ravel_diags_print(stderr, d);
    uint64_t sum[NSTATS] = {0};
    double cost = 0;
    for (size_t i = 0; mod && i < ravel_module_nfuncs(mod); i++) {
        const ravel_func *f = ravel_module_func(mod, i);
        if (ravel_validate(f, RAVEL_VALIDATE_SSA, d) != RAVEL_OK) {
            ravel_diags_print(stderr, d);
            bad = 1;
            continue;
        }
        bad |= check_func(ck, path, f, &e, sum, &cost);
    }
    if (e.max_cost >= 0 && cost > e.max_cost + 1e-9) {
        fprintf(stderr, "%s: weighted cost %.1f, expected at most %.1f\n", path, cost, e.max_cost);
        bad = 1;
    }
    for (int k = 0; k < NSTATS; k++)
        if (sum[k] < e.min[k]) {
            fprintf(stderr, "%s: %llu %s, expected at least %llu\n", path, (unsigned long long)sum[k], names[k],
                    (unsigned long long)e.min[k]);
            bad = 1;
        }
    ravel_module_free(mod);
    ravel_diags_free(d);
    free(src);
    printf("%s: %s\n", path, bad ? "FAIL" : "ok");
    return bad;
}

/* ---- --gen ---- */

static ravel_module *gen(uint64_t seed)
{
    rv_gen_opts go;
    rv_gen_opts_default(&go);
    go.features = RV_GEN_ALL; /* greedy refuses machines with alias lines (docs/format.md section 14.1) */
    go.min_regs = go.max_regs = 1 + (uint32_t)(seed % 32);
    go.max_insts = 40 + (uint32_t)(seed % 5) * 60;
    go.pressure = (uint32_t)(seed * 37 % 101);
    return rv_gen_from_seed(seed, &go);
}

static int run_gen(ravel_checker *ck, uint32_t n, uint64_t first)
{
    uint64_t sum[NSTATS] = {0};
    int bad = 0;
    for (uint32_t k = 0; k < n && bad < 4; k++) {
        uint64_t seed = first + k;
        ravel_module *mod = gen(seed);
        const ravel_func *f = ravel_module_func(mod, 0);
        rv_alloc_stats st;
        memset(&st, 0, sizeof st);
        rv_alloc_opts o = {seed, false, &st};
        char *err = NULL, what[64];
        snprintf(what, sizeof what, "generated seed %llu", (unsigned long long)seed);
        ravel_func *g = rv_alloc_greedy(f, &o, &err);
        if (!g) {
            fprintf(stderr, "%s: the allocation failed: %s\n", what, err ? err : "?");
            bad++;
        } else if (!verify(ck, f, g, what)) {
            ravel_print_func(stderr, f);
            bad++;
        }
        add_stats(sum, &st);
        free(err);
        ravel_func_free(g);
        ravel_module_free(mod);
    }
    printf("%u generated functions:", n);
    for (int k = 0; k < NSTATS; k++) printf(" %s %llu%s", names[k], (unsigned long long)sum[k], k + 1 < NSTATS ? "," : "\n");
    for (int k = 0; k < NSTATS; k++)
        if (!sum[k]) {
            fprintf(stderr, "no %s over %u generated functions\n", names[k], n);
            bad++;
        }
    return bad != 0;
}

/* ---- --rank ---- */

static int run_rank(uint32_t n)
{
    double cost[16] = {0};
    uint32_t na = 0;
    while (rv_allocators[na].name && na < 16) na++;
    uint32_t counted = 0;
    for (uint32_t k = 0; k < n; k++) {
        ravel_module *mod = gen(5000000 + k);
        const ravel_func *f = ravel_module_func(mod, 0);
        double c[16];
        bool all = true;
        for (uint32_t a = 0; a < na && all; a++) {
            rv_alloc_opts o = {k, false, NULL};
            char *err = NULL;
            ravel_func *g = rv_allocators[a].run(f, &o, &err);
            free(err);
            all = g != NULL;
            if (g) {
                rv_cost rc;
                rv_cost_compute(g, &rc);
                c[a] = rc.weighted;
            }
            ravel_func_free(g);
        }
        for (uint32_t a = 0; all && a < na; a++) cost[a] += c[a];
        if (all && getenv("GREEDY_VERBOSE")) { /* per function: seed, then each allocator's cost */
            printf("seed %u:", 5000000 + k);
            for (uint32_t a = 0; a < na; a++) printf(" %.1f", c[a]);
            printf("\n");
        }
        counted += all;
        ravel_module_free(mod);
    }
    uint32_t greedy = 0, rank = 1;
    while (greedy < na && strcmp(rv_allocators[greedy].name, "greedy") != 0) greedy++;
    for (uint32_t a = 0; a < na; a++) {
        printf("%-8s %.1f\n", rv_allocators[a].name, cost[a]);
        if (a != greedy && cost[a] < cost[greedy]) rank++;
    }
    printf("greedy ranks %u of %u over %u functions\n", rank, na, counted);
    return greedy == na || rank > 2 || counted < n / 2;
}

/* ---- --union ---- */

typedef struct plain { uint32_t from, to, val; bool live; } plain;

static bool plain_overlap(const plain *p, uint32_t n, uint32_t from, uint32_t to, uint32_t *first)
{
    bool any = false;
    for (uint32_t k = 0; k < n; k++)
        if (p[k].live && p[k].from < to && p[k].to > from && (!any || p[k].from < p[*first].from)) {
            *first = k;
            any = true;
        }
    return any;
}

/* Random inserts, removes and overlap queries on one set, compared with a
 * list; the walk from first to next must list the overlapping segments in
 * order. */
static int run_union(uint32_t n)
{
    gr_pool pool;
    memset(&pool, 0, sizeof pool);
    gr_set s;
    memset(&s, 0, sizeof s);
    plain *p = calloc(n + 1, sizeof *p);
    uint32_t np = 0, live = 0, most = 0;
    uint64_t rng = 12345;
    int bad = 0;
    for (uint32_t op = 0; op < n && !bad; op++) {
        uint32_t from = rv_rng_below(&rng, 20000), to = from + 1 + rv_rng_below(&rng, 30), first = 0;
        uint32_t kind = rv_rng_below(&rng, 8) + (op > n / 2 ? 0 : 1); /* grows, then shrinks */
        if (kind <= 1 && live) { /* remove a random live one */
            uint32_t k = rv_rng_below(&rng, np);
            while (!p[k].live) k = (k + 1) % np;
            gr_set_remove(&pool, &s, p[k].from);
            p[k].live = false;
            live--;
        } else if (kind <= 4 && !plain_overlap(p, np, from, to, &first)) {
            gr_set_insert(&pool, &s, from, to, op);
            p[np++] = (plain){from, to, op, true};
            if (++live > most) most = live;
        } else { /* query: the walk lists exactly the overlapping segments, in order */
            gr_iter it;
            uint32_t seen = 0, last = 0;
            for (bool more = gr_set_first(&pool, &s, from, to, &it); more; more = gr_set_next(&pool, &s, &it, to)) {
                uint32_t v = gr_iter_val(&pool, &s, &it), k = 0;
                while (k < np && !(p[k].live && p[k].val == v)) k++;
                if (k == np || p[k].from >= to || p[k].to <= from || (seen && p[k].from <= last)) bad = 1;
                last = k < np ? p[k].from : 0;
                seen++;
            }
            uint32_t want = 0;
            for (uint32_t k = 0; k < np; k++) want += p[k].live && p[k].from < to && p[k].to > from;
            if (seen != want) bad = 1;
        }
        if (bad) fprintf(stderr, "union: operation %u ([%u, %u), kind %u) disagrees with the list\n", op, from, to, kind);
    }
    printf("union: %u operations, %u segments at most, %u left in %u chunks: %s\n", n, most, live, s.n, bad ? "FAIL" : "ok");
    gr_set_free(&s);
    gr_pool_free(&pool);
    free(p);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--union") == 0) return run_union((uint32_t)atoi(argv[2]));
    if (argc >= 3 && strcmp(argv[1], "--rank") == 0) return run_rank((uint32_t)atoi(argv[2]));
    if (argc >= 3 && strcmp(argv[1], "--dump") == 0) { /* the generated function of a seed (debugging) */
        ravel_module *mod = gen(strtoull(argv[2], NULL, 0));
        rv_print_module(stdout, mod);
        ravel_module_free(mod);
        return 0;
    }
    ravel_checker *ck = ravel_checker_new();
    int bad = 0;
    if (argc >= 3 && strcmp(argv[1], "--case") == 0) {
        for (int i = 2; i < argc; i++) bad |= run_case(ck, argv[i]);
    } else if (argc >= 3 && strcmp(argv[1], "--gen") == 0) {
        bad = run_gen(ck, (uint32_t)atoi(argv[2]), argc >= 4 ? strtoull(argv[3], NULL, 0) : 1);
    } else {
        fprintf(stderr, "usage: test_greedy --case FILE... | --gen N [FIRST] | --rank N | --union N\n");
        bad = 2;
    }
    ravel_checker_free(ck);
    return bad;
}
