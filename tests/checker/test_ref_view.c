/* test_ref_view.c - the reference's states read through ck_sem.h's cursor
 * (seek, step, edge, a location's vregs, stale copies, the steady states),
 * against the reference itself, on generated functions allocated by every
 * allocator and corrupted by the value bugs of the injection catalogue
 * (section 14's among them: remats, narrow spills, writes to parts):
 *   - a use is read where the cursor says its location holds its vreg,
 *     exactly where the reference reports no value error on it, and what
 *     a location holds is vregs of the function only (a remat's token,
 *     =K, is the reference's own: never listed);
 *   - stepping from a block's entry gives the state a seek gives;
 *   - an edge into a block with one in-edge gives that block's entry;
 *     into a join, every fact of the entry holds on it;
 *   - a stale copy is a location that held a vreg the instruction defines
 *     and lost it (and every such loss by the def is reported);
 *   - the steady states keep every fact of the fixpoint, and add some;
 *   - a hand-written loop: the copy a latch leaves is stale after the
 *     next iteration's def, in the steady states only;
 *   - ck_smap_lists (the stackmap rule's "listed", which injection and the
 *     provenance notes use) against the stackmaps themselves, every slot
 *     of every instruction of the allocations of generated functions.
 * The gc rule (ck_sem.h: ck_gc_keeps) is the one both transfers call:
 * checker.vn, checker.paths and the gc cases test it through them. */
#define _POSIX_C_SOURCE 200809L
#include "allocator/alloc.h"
#include "inject/inject.h"
#include "checker/ck.h"
#include "fuzz/gen.h"
#include "ir/analysis.h"
#include "ir/ir.h"
#include "tests/support/each.h"
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>

static ravel_loc loc_at(const ravel_checker *ck, uint32_t li) { return li < ck->nregs ? li : ravel_slot(li - ck->nregs); }

/* What every location holds at the cursor: per location its vregs, in a
 * flat array (start[li] .. start[li + 1]); after the locations (li ==
 * nlocs) the vregs undefined on every path (U, docs/format.md section
 * 14.2), which every location holds for a read. */
typedef struct snap {
    uint32_t *start, *v, n, cap;
} snap;

static void take(ravel_checker *ck, snap *s)
{
    s->n = 0;
    s->start = realloc(s->start, (ck->nlocs + 2) * sizeof *s->start);
    for (uint32_t li = 0; li <= ck->nlocs; li++) {
        const uint32_t *m;
        uint32_t k = li < ck->nlocs ? ck_ref_loc_vregs(ck, loc_at(ck, li), &m) : ck_ref_undef_vregs(ck, &m);
        s->start[li] = s->n;
        if (s->n + k > s->cap) s->v = realloc(s->v, (s->cap = 2 * (s->n + k) + 16) * sizeof *s->v);
        if (k) memcpy(s->v + s->n, m, k * sizeof *m);
        s->n += k;
    }
    s->start[ck->nlocs + 1] = s->n;
}

static bool has(const snap *s, uint32_t li, uint32_t v)
{
    for (uint32_t i = s->start[li]; i < s->start[li + 1]; i++)
        if (s->v[i] == v) return true;
    return false;
}

/* Every fact of a is one of b: a vreg a holds in a location, b holds
 * there too or has in U (which every location holds: a state that knows
 * more may list it in U instead of in the location); a vreg in a's U is
 * in b's. */
static bool within(const snap *a, const snap *b, uint32_t nlocs)
{
    for (uint32_t li = 0; li <= nlocs; li++)
        for (uint32_t i = a->start[li]; i < a->start[li + 1]; i++)
            if (!has(b, li, a->v[i]) && !(li < nlocs && has(b, nlocs, a->v[i]))) return false;
    return true;
}

static bool same(const snap *a, const snap *b, uint32_t nlocs) { return within(a, b, nlocs) && within(b, a, nlocs); }

static void snap_free(snap *s)
{
    free(s->start);
    free(s->v);
    memset(s, 0, sizeof *s);
}

typedef struct vstats {
    uint32_t undef_blocks, undef_vregs;
    uint32_t reads, steps, edges1, edgesj, stale, stale_complete, steady_blocks, steady_more, advances, bad;
} vstats;

static void bad(vstats *st, const char *what, uint32_t inst)
{
    if (st->bad++ < 5) fprintf(stderr, "%s (inst %u)\n", what, inst);
}

/* The report's error on operand k of role at inst: 0 none, 1 a value
 * error (use-*), 2 another. */
static int error_on(const ravel_report *rep, uint32_t inst, const char *role, uint32_t k)
{
    int found = 0;
    for (size_t e = 0; e < ravel_report_count(rep); e++) {
        const ravel_check_error *x = ravel_report_error(rep, e);
        if (x->inst != inst || !x->role || strcmp(x->role, role) || x->operand != (int)k) continue;
        found = !strncmp(x->kind, "use-", 4) ? 1 : found ? found : 2;
    }
    return found;
}

/* Reads: at every instruction without early defs, each early use. */
static void check_reads(ravel_checker *ck, const ravel_func *f, const ravel_report *rep, vstats *st)
{
    for (uint32_t i = 0; i < f->insts.len; i++) {
        const rv_inst *in = &f->insts.data[i];
        if (rv_is_edit(in) || !ck_ref_seek(ck, f, i)) continue;
        bool early_def = false;
        for (uint32_t k = 0; k < in->ndefs; k++) early_def |= rv_op_is_early(&rv_inst_defs(f, in)[k]);
        for (uint32_t k = 0; !early_def && k < in->nuses; k++) {
            const rv_operand *u = &rv_inst_uses(f, in)[k];
            if (rv_op_is_late(u)) continue;
            const uint32_t *m;
            uint32_t n = ck_ref_loc_vregs(ck, u->loc, &m);
            bool holds = false;
            for (uint32_t j = 0; j < n; j++) holds |= m[j] == u->vreg;
            for (uint32_t j = 0; j < n; j++)
                if (m[j] >= f->vregs.len) bad(st, "a location lists a token or no vreg", i);
            int e = error_on(rep, i, "use", k);
            st->reads++;
            if (holds ? e == 1 : e == 0) bad(st, holds ? "held, but a value error" : "not held, but no error", i);
        }
    }
}

/* U at each reached block's entry: the reference's (ck_ref_undef_vregs)
 * is the standalone analysis' (ir/undef.c, the interpreter's). */
static void check_undef(ravel_checker *ck, const ravel_func *f, vstats *st)
{
    rv_cfg cfg;
    rv_cfg_build(&cfg, f);
    rv_undef u;
    if (rv_undef_build(&u, f, &cfg)) {
        for (uint32_t b = 0; b < f->blocks.len; b++) {
            const rv_block *bl = &f->blocks.data[b];
            if (!bl->ninsts || cfg.rpo_index[b] == RAVEL_NONE || !ck_ref_seek(ck, f, bl->first_inst)) continue;
            const uint32_t *m;
            uint32_t n = ck_ref_undef_vregs(ck, &m), k = 0;
            st->undef_blocks++;
            for (uint32_t v = 0; v < f->vregs.len; v++) {
                bool in_u = rv_bs_test(u.in + (size_t)b * u.nwords, v), listed = false;
                for (uint32_t j = 0; j < n; j++) listed |= m[j] == v;
                k += in_u;
                if (in_u != listed) bad(st, in_u ? "U: the reference misses a vreg of ir/undef.c's U" : "U: a vreg not in ir/undef.c's U", bl->first_inst);
            }
            st->undef_vregs += k;
        }
        rv_undef_free(&u);
    }
    rv_cfg_free(&cfg);
}

/* Steps through each reached block, against seeks and advances
 * (ck_ref_advance); the stale copies. */
static void check_steps(ravel_checker *ck, const ravel_func *f, vstats *st)
{
    snap before = {0}, after = {0}, seek = {0};
    ck_stale out[64];
    for (uint32_t b = 0; b < f->layout.len; b++) {
        const rv_block *bl = &f->blocks.data[b];
        if (!ck_ref_seek(ck, f, bl->first_inst)) continue;
        for (uint32_t i = bl->first_inst; i < bl->first_inst + bl->ninsts; i++) {
            take(ck, &before);
            uint32_t n = ck_ref_step(ck, out, 64);
            take(ck, &after);
            st->steps++;
            const rv_inst *in = &f->insts.data[i];
            for (uint32_t s = 0; s < n && s < 64; s++) { /* held before, defined here, gone after */
                uint32_t li = out[s].loc & RAVEL_SLOT_BIT ? ck->nregs + ravel_loc_slot(out[s].loc) : out[s].loc;
                bool def = false;
                for (uint32_t k = 0; !rv_is_edit(in) && k < in->ndefs; k++) def |= rv_inst_defs(f, in)[k].vreg == out[s].vreg;
                st->stale++;
                if (!has(&before, li, out[s].vreg) || has(&after, li, out[s].vreg) || !def) bad(st, "a stale copy that is not one", i);
            }
            /* complete where nothing else writes: a late def of v, no clobber, safepoint or early def */
            bool plain = !rv_is_edit(in) && !(in->flags & (RV_IF_SAFEPOINT | RV_IF_CLOBBERS)) && in->op != RAVEL_OP_CALL;
            for (uint32_t k = 0; plain && k < in->ndefs; k++) plain = !rv_op_is_early(&rv_inst_defs(f, in)[k]);
            for (uint32_t k = 0; plain && k < in->ndefs; k++) {
                uint32_t v = rv_inst_defs(f, in)[k].vreg;
                for (uint32_t li = 0; li < ck->nlocs; li++) {
                    bool written = false;
                    for (uint32_t j = 0; j < in->ndefs; j++) written |= rv_inst_defs(f, in)[j].loc == loc_at(ck, li);
                    if (written || !has(&before, li, v) || has(&after, li, v)) continue;
                    bool told = false;
                    for (uint32_t s = 0; s < n && s < 64; s++) told |= out[s].vreg == v && out[s].loc == loc_at(ck, li);
                    st->stale_complete++;
                    if (!told) bad(st, "a copy the def left stale, not reported", i);
                }
            }
            if (i + 1 < bl->first_inst + bl->ninsts && (i & 3) == 0) { /* the step's state is the seek's */
                ck_ref_seek(ck, f, i + 1);
                take(ck, &seek);
                if (!same(&after, &seek, ck->nlocs)) bad(st, "a step differs from a seek", i);
                ck_ref_seek(ck, f, bl->first_inst); /* (back to i + 1 by ck_ref_advance: the steps') */
                if (ck_ref_advance(ck, i + 1) != i + 1) bad(st, "an advance stopped short", i);
                take(ck, &seek);
                if (!same(&after, &seek, ck->nlocs)) bad(st, "an advance differs from its steps", i);
                st->advances++;
            }
            if (i + 1 == bl->first_inst + bl->ninsts && ck_ref_seek(ck, f, bl->first_inst) && ck_ref_advance(ck, RAVEL_NONE) != i + 1)
                bad(st, "an advance past the block did not stop at its end", i);
        }
    }
    snap_free(&before);
    snap_free(&after);
    snap_free(&seek);
}

/* In-edges of block t from reached blocks. */
static uint32_t nin(const ravel_func *f, uint32_t t)
{
    uint32_t n = 0;
    for (uint32_t b = 0; b < f->layout.len; b++) {
        const rv_inst *term = rv_block_term(f, &f->blocks.data[b]);
        for (uint32_t k = 0; term && k < rv_inst_nsuccs(term); k++) n += rv_inst_succs(f, term)[k].block == t;
    }
    return n;
}

/* Each edge of a reached block: its state against its target's entry. */
static void check_edges(ravel_checker *ck, const ravel_func *f, vstats *st)
{
    snap e = {0}, entry = {0};
    uint32_t ns;
    for (uint32_t b = 0; b < f->layout.len; b++) {
        const rv_block *bl = &f->blocks.data[b];
        const rv_inst *t = rv_block_term(f, bl);
        for (uint32_t k = 0; t && k < rv_inst_nsuccs(t); k++) {
            uint32_t to = rv_inst_succs(f, t)[k].block;
            if (!ck_ref_seek(ck, f, bl->first_inst + bl->ninsts - 1)) break;
            ck_ref_step(ck, NULL, 0);
            CHECK(ck_ref_edge(ck, k, NULL, 0, &ns));
            take(ck, &e);
            if (!ck_ref_seek(ck, f, f->blocks.data[to].first_inst)) continue;
            take(ck, &entry);
            bool one = nin(f, to) == 1;
            st->edges1 += one;
            st->edgesj += !one;
            if (one ? !same(&e, &entry, ck->nlocs) : !within(&entry, &e, ck->nlocs)) bad(st, "an edge against its target's entry", b);
        }
    }
    snap_free(&e);
    snap_free(&entry);
}

/* The steady states keep every fact of the fixpoint (f's reference check
 * ran last); then the fixpoint's states are gone. */
static void check_steady(ravel_checker *ck, const ravel_func *f, vstats *st)
{
    snap *first = calloc(f->insts.len ? f->insts.len : 1, sizeof *first), now = {0};
    bool *had = calloc(f->insts.len ? f->insts.len : 1, sizeof *had);
    for (uint32_t i = 0; i < f->insts.len; i++)
        if ((had[i] = ck_ref_seek(ck, f, i))) take(ck, &first[i]);
    CHECK(ck_ref_steady(ck, f));
    bool more = false;
    for (uint32_t i = 0; i < f->insts.len; i++) {
        if (!had[i]) continue;
        if (!ck_ref_seek(ck, f, i)) {
            bad(st, "reached by the fixpoint, not by the steady states", i);
            continue;
        }
        take(ck, &now);
        if (!within(&first[i], &now, ck->nlocs)) bad(st, "a fact of the fixpoint not in the steady states", i);
        more |= !within(&now, &first[i], ck->nlocs);
        snap_free(&first[i]);
    }
    st->steady_blocks++;
    st->steady_more += more;
    snap_free(&now);
    free(first);
    free(had);
}

TEST(cursor_against_the_reference)
{
    static const rv_inject_kind kinds[] = {RV_INJ_DROP_SPILL, RV_INJ_DROP_RELOAD, RV_INJ_EDGE_MOVE, RV_INJ_STALE_LOOP,
                                           RV_INJ_USE_REG,    RV_INJ_CALL_CLOBBER, RV_INJ_RAND_REDIRECT,
                                           RV_INJ_SUBREG_WRITE, RV_INJ_NARROW_SPILL, RV_INJ_REMAT_WRONG,
                                           RV_INJ_REMAT_ONE_PATH, RV_INJ_UNDEF_JOIN};
    ravel_checker *ck = ravel_checker_new();
    ravel_checker_set_options(ck, RAVEL_CHECK_REFERENCE);
    ravel_checker_set_max_errors(ck, 0); /* (every error: the reads are compared with all) */
    vstats st;
    memset(&st, 0, sizeof st);
    for (uint32_t seed = 0; seed < 16; seed++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = 80;
        ravel_module *m = rv_gen_from_seed(6100 + seed, &o);
        for (ts_allocs a = ts_allocs_of(ravel_module_func(m, 0), seed); ts_allocs_next(&a);)
            for (ts_injs j = ts_injs_of(a.g, kinds, sizeof kinds / sizeof *kinds, seed, true); ts_injs_next(&j);) {
                ravel_func *h = j.h; /* (the last: the allocation as it is) */
                ravel_report *rep = NULL;
                if (ravel_check(ck, h, NULL, &rep) != RAVEL_EINVAL) {
                    check_reads(ck, h, rep, &st);
                    check_undef(ck, h, &st);
                    check_steps(ck, h, &st);
                    check_edges(ck, h, &st);
                    check_steady(ck, h, &st);
                    check_steps(ck, h, &st); /* (in the steady states: the stale copies of loops) */
                }
                ravel_report_free(rep);
            }
        ravel_module_free(m);
    }
    printf("%u reads, %u steps, %u edges into a block with one in-edge and %u into joins, %u stale copies (%u losses "
           "checked reported), %u functions in steady states (%u with more facts); %u wrong\n",
           st.reads, st.steps, st.edges1, st.edgesj, st.stale, st.stale_complete, st.steady_blocks, st.steady_more, st.bad);
    CHECK(st.reads >= 1000 && st.steps >= 1000 && st.edges1 >= 100 && st.edgesj >= 100);
    CHECK(st.stale >= 50 && st.stale_complete >= 50 && st.steady_more >= 20);
    CHECK(st.advances >= 50);
    printf("U at %u block entries, %u vregs in it\n", st.undef_blocks, st.undef_vregs);
    CHECK(st.undef_vregs >= 100);
    CHECK_EQ_INT(st.bad, 0);
    ravel_checker_free(ck);
}

/* A loop whose latch keeps a spilled copy of v1 in s0: after the next
 * iteration's def of v1, s0 holds the previous iteration's value. The
 * fixpoint cannot see it (s0 is unknown on the entry edge); the steady
 * states do, and the step over the def reports s0 stale. */
TEST(steady_states_see_the_previous_iteration)
{
    static const char src[] = "machine\n  class int r0 r1 r2\nend\n"
                              "func f\nb0:\n  v0:int @r0 = args\n  jump b1\n"
                              "b1:\n  v1:int @r1 = add v0 @r0\n  s0 = spill r1\n  br v1 @r1, b3, b2\n"
                              "b3:\n  jump b1\n"
                              "b2:\n  ret v0 @r0\nend\n";
    ravel_module *m = ravel_module_parse(src, strlen(src), "loop.ra", NULL);
    CHECK(m != NULL);
    if (!m) return;
    const ravel_func *f = ravel_module_func(m, 0);
    ravel_checker *ck = ravel_checker_new();
    ravel_checker_set_options(ck, RAVEL_CHECK_REFERENCE);
    CHECK_EQ_INT(ravel_check(ck, f, NULL, NULL), RAVEL_OK);
    uint32_t def = f->blocks.data[1].first_inst; /* v1 = add v0 */
    ck_stale out[4];
    const uint32_t *m1;
    CHECK(ck_ref_seek(ck, f, def));
    CHECK_EQ_INT(ck_ref_loc_vregs(ck, ravel_slot(0), &m1), 0);
    CHECK_EQ_INT(ck_ref_step(ck, out, 4), 0);
    CHECK(ck_ref_steady(ck, f));
    CHECK(ck_ref_seek(ck, f, def));
    CHECK(ck_ref_loc_vregs(ck, ravel_slot(0), &m1) == 1 && m1[0] == 1);
    CHECK_EQ_INT(ck_ref_step(ck, out, 4), 1);
    CHECK(out[0].loc == ravel_slot(0) && out[0].vreg == 1);
    CHECK_EQ_INT(ck_ref_loc_vregs(ck, ravel_slot(0), &m1), 0);
    ravel_checker_free(ck);
    ravel_module_free(m);
}

/* Slot s is listed by in's stackmap, read from the list itself. */
static bool listed_here(const ravel_func *f, const rv_inst *in, uint32_t s)
{
    bool found = false;
    for (uint32_t k = 0; (in->flags & RV_IF_STACKMAP) && k < in->u.smap.n; k++) found |= f->u32.data[in->u.smap.first + k] == s;
    return found;
}

TEST(stackmap_lists_every_entry)
{
    uint32_t maps = 0, listed = 0, wrong = 0;
    for (uint32_t seed = 0; seed < 16; seed++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = 80;
        ravel_module *m = rv_gen_from_seed(6200 + seed, &o);
        for (size_t a = 0; ravel_allocator_name(a); a++) {
            ravel_func *g = NULL;
            if (ravel_allocate(ravel_allocator_name(a), ravel_module_func(m, 0), seed, &g, NULL) != RAVEL_OK) continue;
            for (uint32_t i = 0; i < g->insts.len; i++) {
                const rv_inst *in = &g->insts.data[i];
                maps += (in->flags & RV_IF_STACKMAP) && in->u.smap.n;
                for (uint32_t s = 0; s <= g->nslots; s++) {
                    bool want = listed_here(g, in, s);
                    listed += want;
                    if (ck_smap_lists(g, in, s) != want && wrong++ < 5) fprintf(stderr, "slot %u at inst %u\n", s, i);
                }
            }
            ravel_func_free(g);
        }
        ravel_module_free(m);
    }
    printf("%u stackmaps, %u listed slots; %u wrong\n", maps, listed, wrong);
    CHECK(maps >= 20 && listed >= 20);
    CHECK_EQ_INT(wrong, 0);
}

int main(void)
{
    RUN(cursor_against_the_reference);
    RUN(steady_states_see_the_previous_iteration);
    RUN(stackmap_lists_every_entry);
    return TEST_SUMMARY();
}
