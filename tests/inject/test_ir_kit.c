/* test_ir_kit.c - the small shared pieces of the IR kit that every user
 * trusts without checking:
 *   - the PRNG (ir/rng.h): the stream of a state is splitmix64's, pinned
 *     (seeds name generated functions and corpus inputs: the sequence is
 *     fixed for ever); rv_rng_below(n) stays below n and, for bounds that
 *     are not powers of two too, draws every value about equally often
 *     (an allocator's or injection's random choice that could never pick
 *     some candidate would still give valid results, so no other test can
 *     see it);
 *   - the sparse set (ir/ir.h: rv_sset) against a plain membership array
 *     under random additions, removals and clears: membership, the return
 *     values, the count, and the dense list holding exactly the members;
 *   - dominance (ir/cfg.c, the one dominator computation) on random
 *     graphs, most of them irreducible, against its definition: a
 *     dominates b when b cannot be reached from the entry without a;
 *   - U, the vregs undefined on every path (ir/undef.c, docs/format.md
 *     section 14.2), on random functions that copy, redefine and pass
 *     undefined values along any CFG, against this file's own plain
 *     fixpoint of the section's rules (generated functions never copy a
 *     value that is undefined on every path, so no other test sees a slip
 *     in the copy rule). */
#include "ir/analysis.h"
#include "ir/ir.h"
#include "ir/rng.h"
#include "tests/test.h"

#include <stdio.h>
#include <string.h>

TEST(rng_stream_is_splitmix64)
{
    uint64_t s = 0;
    CHECK(rv_rng_next(&s) == 0xe220a8397b1dcdafull);
    CHECK(rv_rng_next(&s) == 0x6e789e6aa1b965f4ull);
    CHECK(rv_rng_next(&s) == 0x06c45d188009454full);
    CHECK(s == 3 * RV_RNG_GAMMA);
}

TEST(rng_below_covers_its_range_evenly)
{
    static const uint32_t bounds[] = {1, 2, 3, 5, 6, 7, 10, 12, 100, 1000};
    uint64_t s = 29;
    uint32_t count[1000];
    for (size_t b = 0; b < sizeof bounds / sizeof *bounds; b++) {
        uint32_t n = bounds[b], draws = 200 * n, lo = draws, hi = 0, above = 0;
        memset(count, 0, sizeof count);
        for (uint32_t k = 0; k < draws; k++) {
            uint32_t x = rv_rng_below(&s, n);
            if (x >= n) above++;
            else count[x]++;
        }
        for (uint32_t x = 0; x < n; x++) {
            lo = count[x] < lo ? count[x] : lo;
            hi = count[x] > hi ? count[x] : hi;
        }
        if (above || lo < 120 || hi > 280) printf("bound %u: %u draws out of range, each value drawn %u to %u times (200 expected)\n", n, above, lo, hi);
        CHECK_EQ_INT(above, 0);
        CHECK(lo >= 120 && hi <= 280); /* (200 expected each; 6 standard deviations is ~85) */
    }
    uint64_t big = 0; /* a large bound: the mean is near the middle */
    for (int k = 0; k < 100000; k++) big += rv_rng_below(&s, 3000000001u);
    CHECK(big / 100000 > 1400000000ull && big / 100000 < 1600000000ull);
}

enum { UNIVERSE = 97 };

TEST(sparse_set_against_a_membership_array)
{
    uint32_t dense[UNIVERSE], pos[UNIVERSE];
    memset(pos, 0xa5, sizeof pos); /* (pos[] need not be cleared) */
    rv_sset set = {dense, pos, 0};
    bool in[UNIVERSE] = {false};
    uint64_t s = 7;
    uint32_t n = 0, bad = 0, dels = 0;
    for (int step = 0; step < 200000; step++) {
        uint32_t x = rv_rng_below(&s, UNIVERSE), op = rv_rng_below(&s, 100);
        if (op < 55) {
            bad += rv_sset_add(&set, x) != !in[x];
            n += !in[x];
            in[x] = true;
        } else if (op < 99) {
            bad += rv_sset_del(&set, x) != in[x];
            dels += in[x];
            n -= in[x];
            in[x] = false;
        } else {
            set.n = 0;
            memset(in, 0, sizeof in);
            n = 0;
        }
        bad += set.n != n;
        for (uint32_t y = 0; y < UNIVERSE; y++) bad += rv_sset_has(&set, y) != in[y];
        for (uint32_t k = 0; k < set.n; k++) bad += dense[k] >= UNIVERSE || !in[dense[k]];
        if (bad) {
            printf("step %d: the sparse set disagrees with the membership array\n", step);
            break;
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(dels > 10000);
}

enum { MAXB = 12 };

/* Reachable from block 0 with block `avoid` removed (RAVEL_NONE: none). */
static void reach(uint32_t n, const uint32_t *start, const uint32_t *succ, uint32_t avoid, bool *seen)
{
    uint32_t stack[MAXB * 4], sp = 0;
    memset(seen, 0, sizeof(bool) * n);
    if (avoid == 0) return;
    seen[0] = true;
    stack[sp++] = 0;
    while (sp) {
        uint32_t b = stack[--sp];
        for (uint32_t e = start[b]; e < start[b + 1]; e++)
            if (succ[e] != avoid && !seen[succ[e]]) seen[succ[e]] = true, stack[sp++] = succ[e];
    }
}

TEST(dominance_on_random_graphs)
{
    uint64_t s = 2901;
    uint32_t graphs = 0, irreducible = 0, pairs = 0, bad = 0;
    for (int t = 0; t < 6000 && !bad; t++) {
        uint32_t n = 2 + rv_rng_below(&s, MAXB - 1), start[MAXB + 1], succ[MAXB * 3], m = 0;
        for (uint32_t b = 0; b < n; b++) {
            start[b] = m;
            for (uint32_t k = rv_rng_below(&s, 4); k > 0; k--) succ[m++] = rv_rng_below(&s, n);
        }
        start[n] = m;
        rv_cfg c;
        memset(&c, 0, sizeof c);
        rv_cfg_build_succs(&c, n, start, succ);
        bool all[MAXB], without[MAXB];
        reach(n, start, succ, RAVEL_NONE, all);
        for (uint32_t a = 0; a < n; a++) {
            reach(n, start, succ, a, without);
            for (uint32_t b = 0; b < n; b++) {
                bool dom = all[a] && all[b] && (a == b || !without[b]);
                pairs += dom;
                if (rv_cfg_dominates(&c, a, b) != dom && bad++ < 5) printf("graph %d: %u dominates %u: %d, expected %d\n", t, a, b, !dom, dom);
            }
        }
        graphs++;
        irreducible += !c.reducible;
        rv_cfg_free(&c);
    }
    printf("%u graphs (%u irreducible), %u dominance pairs\n", graphs, irreducible, pairs);
    CHECK_EQ_INT(bad, 0);
    CHECK(irreducible >= 400);
}

/* ---- U: ir/undef.c against a plain fixpoint ---- */

enum { UB = 8, UV = 6, UP = 2, UI = 4 }; /* blocks, vregs v0..v5, params per block, ops per block */

typedef struct uop { int kind, d, a; } uop;           /* 0 undef, 1 copy a, 2 const, 3 add a, a */
typedef struct uedge { int to, args[UP]; } uedge;
typedef struct ufun {
    int nb, np[UB], nop[UB], ne[UB];
    uop op[UB][UI];
    uedge e[UB][2];
} ufun;

/* vreg ids in the text: v0..v5 the shared ones, v(10 + 2b + k) block b's
 * parameter k. */
static int upar(int b, int k) { return 10 + 2 * b + k; }

static void urandom(ufun *u, uint64_t *s)
{
    memset(u, 0, sizeof *u);
    u->nb = 2 + (int)rv_rng_below(s, UB - 1);
    for (int b = 0; b < u->nb; b++) {
        u->np[b] = b ? (int)rv_rng_below(s, UP + 1) : 0;
        u->nop[b] = (int)rv_rng_below(s, UI + 1);
        for (int i = 0; i < u->nop[b]; i++) {
            uop *o = &u->op[b][i];
            uint32_t r = rv_rng_below(s, 10);
            o->kind = r < 3 ? 0 : r < 7 ? 1 : r < 8 ? 2 : 3;
            o->d = (int)rv_rng_below(s, UV);
            o->a = (int)rv_rng_below(s, UV);
        }
        u->ne[b] = (int)rv_rng_below(s, 3); /* 0: ret */
        for (int k = 0; k < u->ne[b]; k++) u->e[b][k].to = 1 + (int)rv_rng_below(s, (uint32_t)u->nb - 1);
        for (int k = 0; k < u->ne[b]; k++)
            for (int j = 0; j < UP; j++) u->e[b][k].args[j] = (int)rv_rng_below(s, UV + (uint32_t)u->np[b]);
    }
}

/* An argument: a shared vreg, or one of the block's own parameters. */
static int uarg(int b, int a) { return a < UV ? a : upar(b, a - UV); }

static size_t utext(const ufun *u, char *t, size_t cap)
{
    size_t n = (size_t)snprintf(t, cap, "machine\n  class int r0 r1\nend\n\nfunc u\nb0:\n  v0:int, v1:int = args\n"
                                        "  v2:int = undef\n  v3:int = copy v2\n  v4:int = const 4\n  v5:int = undef\n");
    for (int b = 0; b < u->nb; b++) {
        if (b) {
            n += (size_t)snprintf(t + n, cap - n, "b%d", b);
            for (int k = 0; k < u->np[b]; k++) n += (size_t)snprintf(t + n, cap - n, "%sv%d:int", k ? ", " : "(", upar(b, k));
            n += (size_t)snprintf(t + n, cap - n, "%s:\n", u->np[b] ? ")" : "");
        }
        for (int i = 0; i < u->nop[b]; i++) {
            const uop *o = &u->op[b][i];
            static const char *const fmt[] = {"  v%d:int = undef\n", "  v%d:int = copy v%d\n", "  v%d:int = const 7\n",
                                              "  v%d:int = add v%d, v%d\n"};
            n += (size_t)snprintf(t + n, cap - n, fmt[o->kind], o->d, o->a, o->a);
        }
        if (!u->ne[b]) {
            n += (size_t)snprintf(t + n, cap - n, "  ret v0\n");
            continue;
        }
        n += (size_t)snprintf(t + n, cap - n, u->ne[b] == 1 ? "  jump" : "  br v0,");
        for (int k = 0; k < u->ne[b]; k++) {
            int to = u->e[b][k].to;
            n += (size_t)snprintf(t + n, cap - n, "%s b%d", k ? "," : "", to);
            for (int j = 0; j < u->np[to]; j++)
                n += (size_t)snprintf(t + n, cap - n, "%sv%d", j ? ", " : "(", uarg(b, u->e[b][k].args[j]));
            n += (size_t)snprintf(t + n, cap - n, "%s", u->np[to] ? ")" : "");
        }
        n += (size_t)snprintf(t + n, cap - n, "\n");
    }
    return n + (size_t)snprintf(t + n, cap - n, "end\n");
}

/* The model's state: one flag per text vreg number (0..UV-1, params from 10). */
typedef struct ustate { bool in[10 + 2 * UB]; } ustate;

/* Section 14.2 in this test's words: `undef` makes its def undefined; a
 * copy makes its def undefined exactly when its source is; anything else
 * defines. */
static void ustep(const uop *o, ustate *x)
{
    x->in[o->d] = o->kind == 0 || (o->kind == 1 && x->in[o->a]);
}

/* Greatest fixpoint by plain rounds over every block until nothing
 * changes: reachable non-entry blocks start with everything undefined,
 * the entry after b0's head; a target's parameters are undefined exactly
 * when their arguments are; joins intersect. */
static void ufix(const ufun *u, ustate *ent, bool *reach)
{
    memset(reach, 0, sizeof(bool) * UB);
    reach[0] = true;
    for (bool more = true; more;) {
        more = false;
        for (int b = 0; b < u->nb; b++)
            for (int k = 0; reach[b] && k < u->ne[b]; k++)
                if (!reach[u->e[b][k].to]) reach[u->e[b][k].to] = more = true;
    }
    for (int b = 0; b < u->nb; b++) memset(ent[b].in, b != 0, sizeof ent[b].in);
    ent[0].in[2] = ent[0].in[3] = ent[0].in[5] = true;
    for (bool more = true; more;) {
        more = false;
        ustate next[UB];
        for (int b = 0; b < u->nb; b++) memset(next[b].in, 1, sizeof next[b].in);
        next[0] = ent[0];
        for (int b = 0; b < u->nb; b++) {
            if (!reach[b]) continue;
            ustate x = ent[b];
            for (int i = 0; i < u->nop[b]; i++) ustep(&u->op[b][i], &x);
            for (int k = 0; k < u->ne[b]; k++) {
                int to = u->e[b][k].to;
                ustate y = x;
                for (int j = 0; j < u->np[to]; j++) y.in[upar(to, j)] = x.in[uarg(b, u->e[b][k].args[j])];
                for (size_t v = 0; v < sizeof y.in; v++) next[to].in[v] &= y.in[v];
            }
        }
        for (int b = 0; b < u->nb; b++)
            if (reach[b] && memcmp(next[b].in, ent[b].in, sizeof next[b].in)) ent[b] = next[b], more = true;
    }
}

/* ir/undef.c's flag for text vreg number tv (absent vregs: false). */
static bool uget(const ravel_func *f, const uint64_t *set, int tv)
{
    uint32_t id = ravel_func_find_vreg(f, (uint32_t)tv);
    return id != RAVEL_NONE && rv_bs_test(set, id);
}

/* Compares one function; returns its disagreements. */
static uint32_t ucompare(const ufun *u, const ravel_func *f, uint32_t *copies_in_u)
{
    ustate ent[UB];
    bool reach[UB];
    ufix(u, ent, reach);
    rv_cfg cfg;
    rv_undef un;
    rv_cfg_build(&cfg, f);
    uint32_t bad = 0;
    if (!rv_undef_build(&un, f, &cfg)) return rv_cfg_free(&cfg), 1;
    uint64_t s[4];
    for (int b = 0; b < u->nb; b++) {
        if (!reach[b]) continue;
        const rv_block *bl = &f->blocks.data[b];
        memcpy(s, un.in + (size_t)b * un.nwords, un.nwords * sizeof *s);
        ustate x = ent[b];
        uint32_t first = bl->first_inst + (b == 0 ? 5u : 0u); /* b0: after its head */
        for (uint32_t i = bl->first_inst; i < first; i++) rv_undef_step(f, rv_inst_at(f, i), s);
        for (int i = 0; i <= u->nop[b]; i++) {
            for (int tv = 0; tv < 10 + 2 * UB; tv++)
                if (ravel_func_find_vreg(f, (uint32_t)tv) != RAVEL_NONE && uget(f, s, tv) != x.in[tv] && bad++ < 3)
                    printf("block b%d, before op %d: v%d undefined %d, expected %d\n", b, i, tv, uget(f, s, tv), x.in[tv]);
            if (i == u->nop[b]) break;
            const uop *o = &u->op[b][i];
            *copies_in_u += o->kind == 1 && x.in[o->a];
            ustep(o, &x);
            rv_undef_step(f, rv_inst_at(f, first + (uint32_t)i), s);
        }
    }
    rv_undef_free(&un);
    rv_cfg_free(&cfg);
    return bad;
}

TEST(undef_against_a_plain_fixpoint)
{
    uint64_t s = 1402;
    uint32_t funcs = 0, bad = 0, copies_in_u = 0;
    char text[8192];
    for (int t = 0; t < 3000 && bad == 0; t++) {
        ufun u;
        urandom(&u, &s);
        size_t n = utext(&u, text, sizeof text);
        ravel_diags *d = ravel_diags_new();
        ravel_module *mod = ravel_module_parse(text, n, "undef.ra", d);
        if (!mod || ravel_module_nfuncs(mod) != 1) {
            printf("function %d does not parse:\n%s", t, text);
            bad++;
        } else {
            uint32_t k = ucompare(&u, ravel_module_func(mod, 0), &copies_in_u);
            if (k) printf("function %d:\n%s", t, text);
            bad += k;
            funcs++;
        }
        ravel_module_free(mod);
        ravel_diags_free(d);
    }
    printf("%u functions, %u copies of an undefined value\n", funcs, copies_in_u);
    CHECK_EQ_INT(bad, 0);
    CHECK(copies_in_u >= 1000);
}

int main(void)
{
    RUN(rng_stream_is_splitmix64);
    RUN(rng_below_covers_its_range_evenly);
    RUN(sparse_set_against_a_membership_array);
    RUN(dominance_on_random_graphs);
    RUN(undef_against_a_plain_fixpoint);
    return TEST_SUMMARY();
}
