/* test_hold.c - injection's hold analysis (inject/hold.h) against the
 * checker's reference (checker/ck_sem.h), on generated functions allocated
 * by every allocator and corrupted by the value kinds of the catalogue:
 *   - a cell that holds v: the reference has v in that location there
 *     (ck_ref_holders, of a checker of its own); a use the reference finds
 *     in its location: its cell holds a vreg (that one, or the greatest of
 *     the set the location holds);
 *   - unreached instructions: nothing held;
 *   - the table filled row by row on demand, in any order, is the table
 *     built in order (both start as garbage: every row is written whole;
 *     on arbitrary CFGs too, with blocks no path reaches); so is the
 *     table read cell by cell (a row kept as the reference's tokens, a
 *     cell made when read), and the plain one (every cell read at the
 *     cursor from its members);
 *   - the steady states: a cell holds v where the reference's steady state
 *     has v; a stale cell v|STALE where it has not v, and of a vreg that
 *     some location held at some reached point of the fixpoint or the
 *     steady states (an edit may move a stale copy where v never was);
 *   - the stale copies' rules, step by step (check_stale_rules);
 *   - the steady table, whose rounds run only the blocks whose entry may
 *     have changed, is the plain iteration's (every block every round);
 *   - hold finds values and steady finds stale copies on some functions
 *     (an analysis that says nothing fails here), and the hand-written
 *     stale-loop case (cases/stale-loop.ra) has its stale copy.
 * Usage: test_hold [NSEEDS] (default 10). */
#define _POSIX_C_SOURCE 200809L
#include "allocator/alloc.h"
#include "checker/ck.h"
#include "fuzz/anycfg.h"
#include "fuzz/gen.h"
#include "inject/hold.h"
#include "inject/inj.h"
#include "inject/inject.h"
#include "tests/support/support.h"
#include "tests/test.h"

static uint32_t nseeds = 10;

typedef struct hstats {
    uint64_t funcs, cells, valid, uses_held, stale, steady_valid, rules, gc_listed, gc_unlisted, rounds_compared, unreached, live_rows, cells_alone, after_steady, bad;
} hstats;

static void bad(hstats *st, const char *what, uint32_t inst, ravel_loc l, uint32_t v)
{
    if (st->bad++ < 8) fprintf(stderr, "%s (inst %u, loc %u, v%u)\n", what, inst, l, v);
}

static bool ref_has(ravel_checker *ck, const ravel_func *f, uint32_t i, ravel_loc l, uint32_t v)
{
    ravel_loc locs[64];
    uint32_t n = ck_ref_holders(ck, f, i, v, locs, 64);
    for (uint32_t k = 0; k < n && k < 64; k++)
        if (locs[k] == l) return true;
    return false;
}

/* The fixpoint's table against a checker of the test's own. */
static void check_must(const ravel_func *f, const uint32_t *tab, uint32_t nregs, uint32_t nslots, hstats *st)
{
    ravel_checker *ck = ravel_checker_new();
    ravel_checker_set_options(ck, RAVEL_CHECK_REFERENCE);
    ravel_check(ck, f, NULL, NULL);
    uint32_t nl = nregs + nslots;
    for (uint32_t i = 0; i < f->insts.len; i++) {
        bool reached = ck_ref_seek(ck, f, i);
        st->unreached += !reached;
        for (uint32_t x = 0; x < nl; x++) {
            uint32_t h = tab[(size_t)i * nl + x];
            st->cells++;
            if (!inj_h_valid(h)) continue;
            st->valid++;
            if (!reached) bad(st, "a value held at an unreached instruction", i, x, h);
            else if (!ref_has(ck, f, i, rv_loc_at(nregs, x), h)) bad(st, "held, but not in the reference", i, x, h);
        }
        const rv_inst *in = &f->insts.data[i];
        for (uint32_t k = 0; reached && !rv_is_edit(in) && k < in->nuses; k++) {
            const rv_operand *u = &rv_inst_uses(f, in)[k];
            uint32_t x = rv_loc_index(nregs, nslots, u->loc);
            if (x == RAVEL_NONE || !ref_has(ck, f, i, u->loc, u->vreg)) continue;
            st->uses_held++;
            uint32_t h = tab[(size_t)i * nl + x];
            if (!inj_h_valid(h) || h < u->vreg) bad(st, "the reference holds a use's vreg, the cell does not", i, x, u->vreg);
        }
    }
    ravel_checker_free(ck);
}

static bool subset_of(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb)
{
    for (uint32_t i = 0; i < na; i++) {
        bool in = false;
        for (uint32_t j = 0; j < nb && !in; j++) in = a[i] == b[j];
        if (!in) return false;
    }
    return true;
}

/* The stale copies' rules, instruction by instruction inside each block of
 * the steady table (its cursor in ck, whose steady states are made), where
 * a cell holds no value after the step: a copy the step reports stale is
 * marked; an edit's destination takes its source's mark; a mark stays
 * where the token did not change, or changed by losing vregs only, but at
 * a safepoint whose collector (ck_gc_keeps) drops it. */
static void check_stale_rules(ravel_checker *ck, const ravel_func *f, const uint32_t *tab, uint32_t nregs, uint32_t nslots, hstats *st)
{
    uint32_t nl = nregs + nslots, *t0 = malloc(sizeof *t0 * (nl + 1)), *t1 = malloc(sizeof *t1 * (nl + 1)), m0[64], n0[64];
    ck_stale rep[64];
    for (uint32_t b = 0; b < f->layout.len; b++) {
        const rv_block *bl = &f->blocks.data[b];
        for (uint32_t i = bl->first_inst; i + 1 < bl->first_inst + bl->ninsts && ck_ref_seek(ck, f, i); i++) {
            const rv_inst *in = &f->insts.data[i];
            const uint32_t *c0 = tab + (size_t)i * nl, *c1 = tab + (size_t)(i + 1) * nl;
            ck_ref_loc_tokens(ck, t0, nl);
            uint32_t nmark = 0, xm[64];
            for (uint32_t x = 0; x < nl && nmark < 64; x++) /* the marked locations' members before */
                if (inj_h_stale(c0[x])) {
                    const uint32_t *m;
                    n0[nmark] = ck_ref_loc_vregs(ck, rv_loc_at(nregs, x), &m);
                    m0[nmark] = n0[nmark] ? m[0] : RAVEL_NONE; /* (one member is enough: sets here are small) */
                    if (n0[nmark] > 1) continue;
                    xm[nmark++] = x;
                }
            uint32_t nrep = ck_ref_step(ck, rep, 64);
            ck_ref_loc_tokens(ck, t1, nl);
            for (uint32_t k = 0; k < nrep && k < 64; k++) {
                uint32_t x = rv_loc_index(nregs, nslots, rep[k].loc);
                if (x != RAVEL_NONE && !inj_h_valid(c1[x]) && c1[x] != (rep[k].vreg | INJ_H_STALE)) bad(st, "stale rules: a reported copy not marked", i, x, rep[k].vreg);
            }
            uint32_t dst = rv_is_edit(in) ? rv_loc_index(nregs, nslots, in->u.edit.dst) : RAVEL_NONE;
            uint32_t src = rv_is_edit(in) ? rv_loc_index(nregs, nslots, in->u.edit.src) : RAVEL_NONE;
            if (dst != RAVEL_NONE && src != RAVEL_NONE && inj_h_stale(c0[src]) && !inj_h_valid(c1[dst]) && c1[dst] != c0[src])
                bad(st, "stale rules: an edit did not move its source's mark", i, dst, c0[src]);
            for (uint32_t q = 0; q < nmark; q++) {
                uint32_t x = xm[q], v = c0[x] & ~INJ_H_STALE;
                if (x == dst || inj_h_valid(c1[x])) continue;
                bool reported = false;
                for (uint32_t k = 0; k < nrep && k < 64; k++) reported |= rv_loc_index(nregs, nslots, rep[k].loc) == x;
                if (reported) continue;
                const uint32_t *m;
                uint32_t n1 = ck_ref_loc_vregs(ck, rv_loc_at(nregs, x), &m);
                bool kept = t1[x] == t0[x] || (t1[x] != CK_TOKEN_UNKNOWN && (n1 == 0 || subset_of(m, n1, &m0[q], n0[q])));
                if ((in->flags & RV_IF_SAFEPOINT) && !rv_is_edit(in) && !f->mach->gc_nonmoving) { /* moving: listed iff ref */
                    bool listed = x >= nregs && ck_smap_lists(f, in, x - nregs), ref = v < f->vregs.len && f->vregs.data[v].ref;
                    kept &= ck_gc_keeps(true, ref, listed, false);
                    *(listed ? &st->gc_listed : &st->gc_unlisted) += 1;
                }
                if (kept != (c1[x] == c0[x])) bad(st, kept ? "stale rules: a mark lost" : "stale rules: a mark kept", i, x, v);
                else st->rules += kept;
            }
        }
    }
    free(t0);
    free(t1);
}

/* The steady table: its values in the reference's steady states, its
 * stale copies not, each of a vreg the fixpoint or the steady states have
 * somewhere at some reached point. */
static void check_steady(const ravel_func *f, const uint32_t *tab, uint32_t nregs, uint32_t nslots, hstats *st)
{
    ravel_checker *ck = ravel_checker_new();
    ravel_checker_set_options(ck, RAVEL_CHECK_REFERENCE);
    ravel_check(ck, f, NULL, NULL);
    uint32_t nl = nregs + nslots;
    uint8_t *seen = calloc(f->vregs.len + 1, 1); /* vregs held somewhere */
    for (uint32_t pass = 0; pass < 2; pass++) {
        if (pass == 1) CHECK(ck_ref_steady(ck, f));
        for (uint32_t i = 0; i < f->insts.len; i++)
            for (uint32_t x = 0; x < nl && ck_ref_seek(ck, f, i); x++) {
                const uint32_t *m;
                uint32_t n = ck_ref_loc_vregs(ck, rv_loc_at(nregs, x), &m);
                for (uint32_t k = 0; k < n; k++) seen[m[k]] = 1;
            }
    }
    for (uint32_t i = 0; i < f->insts.len; i++) {
        bool reached = ck_ref_seek(ck, f, i);
        st->unreached += !reached;
        for (uint32_t x = 0; x < nl; x++) {
            uint32_t h = tab[(size_t)i * nl + x], v = h & ~INJ_H_STALE;
            if (h == INJ_H_UNK) continue;
            if (!reached) bad(st, "steady: a cell at an unreached instruction", i, x, h);
            else if (inj_h_valid(h)) st->steady_valid++, ref_has(ck, f, i, rv_loc_at(nregs, x), h) ? (void)0 : bad(st, "steady: held, not in the reference", i, x, h);
            else if (ref_has(ck, f, i, rv_loc_at(nregs, x), v)) bad(st, "steady: stale, but the reference holds it", i, x, v);
            else if (v >= f->vregs.len || !seen[v]) bad(st, "steady: a stale copy of a vreg never held", i, x, v);
            else st->stale++;
        }
    }
    check_stale_rules(ck, f, tab, nregs, nslots, st);
    free(seen);
    ravel_checker_free(ck);
}

/* The table filled lazily (inj_hold_prepare, inj_hold_row), its rows asked
 * for in an order drawn from seed (backwards, skipping, again), equals tab,
 * the one built in order; plain: every row whole, every cell read from
 * its members (inj_hold.plain: no row taken from an earlier one). */
static void check_lazy(const ravel_func *f, const rv_cfg *cfg, const uint32_t *tab, const uint64_t *live, uint64_t seed, bool plain, hstats *st)
{
    uint32_t nregs = f->mach->regs.len, nl = nregs + f->nslots, n = f->insts.len;
    uint32_t *lazy = malloc(sizeof *lazy * ((size_t)n * nl + 1));
    memset(lazy, 0x3c, sizeof *lazy * ((size_t)n * nl + 1)); /* (a row not written whole differs from tab's) */
    inj_hold h;
    inj_hold_prepare(&h, f, cfg, nregs, f->nslots);
    h.plain = plain;
    h.live = live, h.lw = rv_bs_words(f->vregs.len);
    inj_hold_table(&h, lazy);
    for (uint32_t t = 0; n && t < 2 * n; t++) {
        uint32_t i = t % 3 ? (uint32_t)rv_rng_below(&seed, n) : t / 2 % n;
        if (memcmp(inj_hold_row(&h, i), tab + (size_t)i * nl, sizeof *tab * nl) != 0) bad(st, "a row asked for lazily differs", i, 0, 0);
    }
    for (uint32_t i = 0; i < n; i++)
        if (memcmp(inj_hold_row(&h, i), tab + (size_t)i * nl, sizeof *tab * nl) != 0) bad(st, "a row asked for lazily differs", i, 0, 0);
    inj_hold_free(&h);
    free(lazy);
}

/* The same table read cell by cell (inj_hold_cell: a row taken as tokens,
 * each cell made when read), cells drawn from seed, each read twice (the
 * second read sees the cell made), then (odd seeds) the steady states
 * made, which end the fixpoint's (the rows not taken yet are taken as
 * tokens, their cells made after: they equal std, made from a table built
 * whole, ok: it was made), then every row asked whole: equal to tab, the
 * one built in order. */
static void check_cells(const ravel_func *f, const rv_cfg *cfg, const uint32_t *tab, const uint64_t *live, uint64_t seed,
                        const uint32_t *std, bool ok, hstats *st)
{
    uint32_t nregs = f->mach->regs.len, nl = nregs + f->nslots, n = f->insts.len;
    uint32_t *lazy = malloc(sizeof *lazy * ((size_t)n * nl + 1));
    memset(lazy, 0x3c, sizeof *lazy * ((size_t)n * nl + 1));
    inj_hold h;
    inj_hold_prepare(&h, f, cfg, nregs, f->nslots);
    h.live = live, h.lw = rv_bs_words(f->vregs.len);
    inj_hold_table(&h, lazy);
    for (uint32_t t = 0; n && nl && t < 4 * n; t++) {
        uint32_t i = (uint32_t)rv_rng_below(&seed, n), x = (uint32_t)rv_rng_below(&seed, nl), want = tab[(size_t)i * nl + x];
        if (inj_hold_cell(&h, i, x) != want || inj_hold_cell(&h, i, x) != want) bad(st, "a cell read alone differs", i, x, want);
        st->cells_alone++;
    }
    uint32_t *std2 = malloc(sizeof *std2 * ((size_t)n * nl + 1));
    if (seed % 2 && inj_hold_build_steady(&h, std2) != ok) bad(st, "steady states made from a lazy table, not from a whole one", 0, 0, 0);
    for (uint32_t i = 0; seed % 2 && ok && i < n; i++)
        if (memcmp(std2 + (size_t)i * nl, std + (size_t)i * nl, sizeof *std * nl) != 0) bad(st, "a steady row of a lazy table differs", i, 0, 0);
    for (uint32_t i = 0; i < n; i++)
        if (memcmp(inj_hold_row(&h, i), tab + (size_t)i * nl, sizeof *tab * nl) != 0) bad(st, "a row asked for after its cells differs", i, 0, 0);
    st->after_steady += seed % 2 && ok;
    inj_hold_free(&h);
    free(std2);
    free(lazy);
}

/* The steady table std (ok: it was made), of rounds that run only the
 * blocks whose entry may have changed, equals the plain iteration's, whose
 * rounds run every block (inj_hold.steady_plain). */
static void check_rounds(const ravel_func *f, const rv_cfg *cfg, const uint64_t *live, const uint32_t *std, bool ok, hstats *st)
{
    uint32_t nregs = f->mach->regs.len, nl = nregs + f->nslots, n = f->insts.len;
    uint32_t *tab = malloc(sizeof *tab * ((size_t)n * nl + 1)), *plain = malloc(sizeof *plain * ((size_t)n * nl + 1));
    inj_hold h;
    if (inj_hold_init(&h, f, cfg, nregs, f->nslots)) {
        h.live = live, h.lw = rv_bs_words(f->vregs.len);
        inj_hold_build(&h, tab);
        h.steady_plain = true;
        bool pok = inj_hold_build_steady(&h, plain);
        if (pok != ok) bad(st, "the steady states are made by one iteration only", 0, 0, 0);
        for (uint32_t i = 0; pok && ok && i < n; i++)
            if (memcmp(plain + (size_t)i * nl, std + (size_t)i * nl, sizeof *std * nl) != 0)
                bad(st, "a steady row differs from the plain iteration's", i, 0, 0);
        st->rounds_compared += pok && ok;
    }
    inj_hold_free(&h);
    free(tab);
    free(plain);
}

/* Injection's live-after table (inj_live_build), each row a copy of the
 * row below with the bits its step may change, equals the plain one, each
 * row from the set. */
static uint64_t *check_live(const ravel_func *f, const rv_cfg *cfg, hstats *st)
{
    uint32_t lw = rv_bs_words(f->vregs.len), n = f->insts.len;
    uint64_t *fast = calloc((size_t)n * lw + 1, sizeof *fast), *plain = calloc((size_t)n * lw + 1, sizeof *plain);
    inj_live_build(f, cfg, false, fast, lw);
    inj_live_build(f, cfg, true, plain, lw);
    for (uint32_t i = 0; i < n; i++) {
        if (memcmp(fast + (size_t)i * lw, plain + (size_t)i * lw, sizeof *fast * lw) != 0) bad(st, "a live-after row differs from the plain one", i, 0, 0);
        st->live_rows++;
    }
    free(plain);
    return fast; /* (the tables below show of a set a member live there, as injection's) */
}

static void check_func(const ravel_func *f, hstats *st)
{
    rv_cfg cfg;
    rv_cfg_build(&cfg, f);
    uint64_t *live = check_live(f, &cfg, st);
    uint32_t nregs = f->mach->regs.len, nslots = f->nslots, nl = nregs + nslots;
    uint32_t *tab = malloc(sizeof *tab * ((size_t)f->insts.len * nl + 1)), *std = malloc(sizeof *std * ((size_t)f->insts.len * nl + 1));
    memset(tab, 0x5a, sizeof *tab * ((size_t)f->insts.len * nl + 1)); /* (every row is written whole: check_must, check_lazy) */
    inj_hold h;
    if (inj_hold_init(&h, f, &cfg, nregs, nslots)) {
        st->funcs++;
        h.live = live, h.lw = rv_bs_words(f->vregs.len);
        inj_hold_build(&h, tab);
        check_must(f, tab, nregs, nslots, st);
        check_lazy(f, &cfg, tab, live, st->funcs, false, st);
        check_lazy(f, &cfg, tab, live, st->funcs * 31u, true, st);
        bool ok = inj_hold_build_steady(&h, std);
        check_cells(f, &cfg, tab, live, st->funcs * 17u, std, ok, st);
        if (ok) check_steady(f, std, nregs, nslots, st);
        check_rounds(f, &cfg, live, std, ok, st);
    }
    inj_hold_free(&h);
    free(tab);
    free(std);
    free(live);
    rv_cfg_free(&cfg);
}

TEST(against_the_reference)
{
    static const rv_inject_kind kinds[] = {RV_INJ_DROP_SPILL, RV_INJ_EDGE_MOVE, RV_INJ_STALE_LOOP, RV_INJ_USE_REG, RV_INJ_CALL_CLOBBER};
    hstats st = {0};
    for (uint32_t seed = 0; seed < nseeds; seed++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = 80;
        ravel_module *m = rv_gen_from_seed(7300 + seed, &o);
        const ravel_func *f = ravel_module_func(m, 0);
        for (size_t a = 0; rv_allocators[a].name; a++) {
            rv_alloc_opts ao = {.seed = seed};
            char *err = NULL;
            ravel_func *g = rv_allocators[a].run(f, &ao, &err);
            free(err);
            if (!g) continue;
            check_func(g, &st);
            rv_inject_result r;
            rv_inject(g, kinds[(seed + a) % (sizeof kinds / sizeof *kinds)], seed, &r);
            check_func(g, &st);
            ravel_func_free(g);
        }
        ravel_module_free(m);
    }
    printf("hold: %llu functions, %llu cells, %llu held, %llu uses held; steady: %llu held, %llu stale, %llu kept by the rules; "
           "marks at moving safepoints: %llu in listed slots, %llu elsewhere; %llu steady tables as the plain iteration's\n",
           (unsigned long long)st.funcs, (unsigned long long)st.cells, (unsigned long long)st.valid,
           (unsigned long long)st.uses_held, (unsigned long long)st.steady_valid, (unsigned long long)st.stale,
           (unsigned long long)st.rules, (unsigned long long)st.gc_listed, (unsigned long long)st.gc_unlisted,
           (unsigned long long)st.rounds_compared);
    CHECK_EQ_INT(st.bad, 0);
    CHECK(st.funcs > nseeds);
    CHECK(st.valid * 20 > st.cells); /* (an analysis that holds nothing is no analysis) */
    CHECK(st.uses_held > st.funcs * 10);
    CHECK(st.stale > 0);
    CHECK(st.rules > 0);
    CHECK(st.rounds_compared * 2 > st.funcs); /* (the steady rounds compared with the plain iteration's) */
    CHECK(st.live_rows > st.funcs * 10); /* (the live-after tables compared with the plain ones) */
    CHECK(st.cells_alone > st.funcs * 10); /* (cells read alone compared) */
    CHECK(st.after_steady * 4 > st.funcs); /* (cells made after the steady states compared) */
}

/* The same on arbitrary CFGs (fuzz/anycfg.h: irreducible cycles, blocks
 * no path reaches, nearly correct allocations): unreached rows hold
 * nothing, rows filled lazily are those built in order (each row is
 * written whole: the tables start as garbage). */
TEST(arbitrary_cfgs)
{
    hstats st = {0};
    for (uint32_t i = 0; i < 40 * nseeds; i++) {
        rv_anycfg_opts o;
        rv_anycfg_opts_default(&o);
        o.irreducible = (int)(i % 3) - 1;
        o.max_blocks = 3 + i % 9;
        o.max_insts = 2 + i % 7;
        rv_anycfg a;
        CHECK(rv_anycfg_build(NULL, 0, (uint64_t)i * 7919u + 5u, &o, &a) == 0);
        if (a.alloc) check_func(ravel_module_func(a.alloc, 0), &st);
        rv_anycfg_free(&a);
    }
    printf("arbitrary CFGs: %llu functions, %llu cells, %llu held, %llu unreached instructions; %llu steady tables as the plain "
           "iteration's\n",
           (unsigned long long)st.funcs, (unsigned long long)st.cells, (unsigned long long)st.valid,
           (unsigned long long)st.unreached, (unsigned long long)st.rounds_compared);
    CHECK_EQ_INT(st.bad, 0);
    CHECK(st.funcs > 20 * nseeds);
    CHECK(st.unreached > 0); /* (unreached rows are tested) */
    CHECK(st.live_rows > st.funcs * 5); /* (the live-after tables compared with the plain ones) */
}

/* cases/stale-loop.ra: its injection reads a stale copy the steady table has. */
TEST(stale_loop_case)
{
    size_t len;
    char *text = ts_read_all(RAVEL_INJECT_CASES "/stale-loop.ra", &len);
    CHECK(text != NULL);
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = text ? ravel_module_parse(text, len, "stale-loop.ra", d) : NULL;
    CHECK(m != NULL);
    if (m) {
        const ravel_func *f = ravel_module_func(m, 0);
        rv_cfg cfg;
        rv_cfg_build(&cfg, f);
        uint32_t nregs = f->mach->regs.len, nl = nregs + f->nslots, nstale = 0;
        uint32_t *tab = malloc(sizeof *tab * ((size_t)f->insts.len * nl + 1)), *std = malloc(sizeof *std * ((size_t)f->insts.len * nl + 1));
        inj_hold h;
        CHECK(inj_hold_init(&h, f, &cfg, nregs, f->nslots));
        inj_hold_build(&h, tab);
        CHECK(inj_hold_build_steady(&h, std));
        for (size_t k = 0; k < (size_t)f->insts.len * nl; k++) nstale += inj_h_stale(std[k]) && !inj_h_stale(tab[k]);
        CHECK(nstale > 0);
        hstats st = {0};
        check_steady(f, std, nregs, f->nslots, &st);
        CHECK_EQ_INT(st.bad, 0);
        inj_hold_free(&h);
        free(tab);
        free(std);
        rv_cfg_free(&cfg);
    }
    ravel_module_free(m);
    ravel_diags_free(d);
    free(text);
}

/* Every hand-written case of tests/inject/cases (section 14 among them:
 * constants, aliases, undef), and each of them after every kind's
 * injection (a remat of the wrong constant leaves a location holding a
 * constant alone): the checks of check_func. */
TEST(case_files)
{
    static const char *const names[] = {"remat-wrong.ra", "remat-one-path.ra", "narrow-spill.ra", "subreg-write.ra", "undef-join.ra",
                                        "stale-loop.ra", "call-clobber.ra", "ref-in-reg.ra", "slot-reuse.ra", "edge-move.ra"};
    hstats st = {0};
    for (size_t c = 0; c < sizeof names / sizeof *names; c++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", RAVEL_INJECT_CASES, names[c]);
        size_t len;
        char *text = ts_read_all(path, &len);
        CHECK(text != NULL);
        ravel_diags *d = ravel_diags_new();
        ravel_module *m = text ? ravel_module_parse(text, len, names[c], d) : NULL;
        CHECK(m != NULL);
        for (int k = -1; m && k < RV_INJ_COUNT_; k++) {
            ravel_func *g = rv_func_clone(ravel_module_func(m, 0));
            rv_inject_result r = {0};
            if (k < 0 || rv_inject(g, (rv_inject_kind)k, (uint64_t)c, &r) == RV_INJ_CHANGED) check_func(g, &st);
            ravel_func_free(g);
        }
        ravel_module_free(m);
        ravel_diags_free(d);
        free(text);
    }
    printf("case files: %llu functions, %llu cells, %llu held\n", (unsigned long long)st.funcs, (unsigned long long)st.cells,
           (unsigned long long)st.valid);
    CHECK_EQ_INT(st.bad, 0);
    CHECK(st.funcs > 100);
}

int main(int argc, char **argv)
{
    if (argc > 1) nseeds = (uint32_t)strtoul(argv[1], NULL, 0);
    RUN(stale_loop_case);
    RUN(case_files);
    RUN(against_the_reference);
    RUN(arbitrary_cfgs);
    return TEST_SUMMARY();
}
