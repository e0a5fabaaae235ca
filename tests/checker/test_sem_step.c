/* test_sem_step.c - ck_sem.h's order of effects and its "one vreg per
 * location" state (ck_sem_one, ck_sem_step: what fuzz/anycfg.c's tracker
 * is made of) against the reference (ck_ref_xfer.c), on functions of
 * every CFG shape made by the arbitrary-CFG builder (fuzz/anycfg.h):
 *   in each block the reference reached, a tracker starts from the
 *   reference's state at the block's first instruction (per location one
 *   of the vregs the reference lists there, or nothing) and is stepped by
 *   ck_sem_step / ck_sem_edit over the block's instructions, beside the
 *   reference's cursor (ck_ref_step). Before each instruction, a location
 *   the tracker says holds v, the reference says holds v too (or has v in
 *   U, which every location holds). And the other way where it can be
 *   asked (losses, below): a location a step left empty in the tracker
 *   lost that vreg in the reference too, and a def the reference lists
 *   in its location after the step the tracker holds there.
 * The same from the steady states (ck_ref_steady: a loop header's entry
 * from its back edges), where a block's entry may hold a vreg the block
 * defines anew: the def must remove the old holder.
 * Why that, and not equality: the tracker knows one vreg per location (a
 * subset of the reference's set) and no undef or constants; each rule
 * keeps "subset" - a clobber empties both, an edit copies both, a def
 * removes v everywhere and writes it, the collector removes from the
 * tracker what it removes from the reference (rooted by a listed slot in
 * the tracker implies rooted in the reference) - provided the phases run
 * in the same order. A different order loses what the reference keeps
 * (the losses check): the collector after the defs removes a .ref def,
 * clobbers after the defs empty a call's def. The same on generated
 * functions allocated by every allocator (defs at safepoints, early defs).
 * A hand-written function pins the orders. */
#define _POSIX_C_SOURCE 200809L
#include "allocator/alloc.h"
#include "checker/ck.h"
#include "fuzz/anycfg.h"
#include "fuzz/gen.h"
#include "ir/ir.h"
#include "tests/support/each.h"
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>

enum { MAXL = 64 };

typedef struct run {
    uint64_t facts, bad, steps, losses;
} run;

static ravel_loc loc_at(const ravel_checker *ck, uint32_t li) { return li < ck->nregs ? li : ravel_slot(li - ck->nregs); }
static uint32_t li_of(const ravel_checker *ck, ravel_loc l) { return rv_loc_index(ck->nregs, ck->nslots, l); }

static bool ref_lists(ravel_checker *ck, uint32_t li, uint32_t v)
{
    const uint32_t *m;
    uint32_t n = ck_ref_loc_vregs(ck, loc_at(ck, li), &m);
    for (uint32_t i = 0; i < n; i++)
        if (m[i] == v) return true;
    return false;
}

static bool ref_has(ravel_checker *ck, uint32_t li, uint32_t v)
{
    if (ref_lists(ck, li, v)) return true;
    const uint32_t *m;
    uint32_t n = ck_ref_undef_vregs(ck, &m);
    for (uint32_t i = 0; i < n; i++)
        if (m[i] == v) return true;
    return false;
}

/* Every fact of the tracker is one of the reference's at the cursor. */
static void compare(ravel_checker *ck, const ck_sem_one *t, run *r, const char *what, uint32_t inst)
{
    for (uint32_t li = 0; li < t->nlocs; li++) {
        if (!t->hold[li]) continue;
        r->facts++;
        if (ref_has(ck, li, t->hold[li] - 1)) continue;
        if (r->bad++ < 5) fprintf(stderr, "%s: before instruction %u, the tracker has v%u in location %u; the reference does not\n", what, inst, t->hold[li] - 1, li);
    }
}

/* The tracker's losses are the reference's: a location the step left
 * empty lost its vreg in the reference too. Not after an edit (its source
 * may be empty in the tracker only), a copy (its def joins every location
 * holding its source in the reference: one that held the def's vreg and
 * its source keeps the def's) nor a safepoint of gc nonmoving (the
 * reference may root a vreg through a slot whose other vreg the tracker
 * kept). */
static void losses(ravel_checker *ck, const ck_sem_one *t, const uint32_t *before, const rv_inst *in, run *r, const char *what,
                   uint32_t inst)
{
    if (rv_is_edit(in) || in->op == RAVEL_OP_COPY || ((in->flags & RV_IF_SAFEPOINT) && !t->moving)) return;
    for (uint32_t li = 0; li < t->nlocs; li++) {
        if (!before[li] || t->hold[li]) continue;
        r->losses++;
        if (!ref_lists(ck, li, before[li] - 1)) continue;
        if (r->bad++ < 5) fprintf(stderr, "%s: instruction %u: the tracker lost v%u in location %u; the reference did not\n", what, inst, before[li] - 1, li);
    }
}

/* Each def of in: where the reference lists it after the step, the
 * tracker holds it (a def is written after everything that removes). */
static void defs_kept(ravel_checker *ck, const ck_sem_one *t, const ravel_func *f, const rv_inst *in, run *r, const char *what,
                      uint32_t inst)
{
    const rv_operand *d = rv_defs_of(f, in);
    for (uint32_t k = 0; !rv_is_edit(in) && k < in->ndefs; k++) {
        uint32_t li = li_of(ck, d[k].loc);
        if (li == CK_NIL || t->hold[li] == d[k].vreg + 1) continue;
        r->losses++;
        if (!ref_lists(ck, li, d[k].vreg)) continue;
        if (r->bad++ < 5) fprintf(stderr, "%s: instruction %u: the tracker lost its def v%u in location %u; the reference did not\n", what, inst, d[k].vreg, li);
    }
}

/* ck_sem_step (or ck_sem_edit) for instruction in of f. */
static void track(const ravel_checker *ck, ck_sem_one *t, const ravel_func *f, const rv_inst *in)
{
    if (rv_is_edit(in)) {
        uint32_t src = in->op == RAVEL_OP_REMAT ? CK_SEM_NOLOC : li_of(ck, in->u.edit.src);
        ck_sem_edit(t, li_of(ck, in->u.edit.dst), src);
        return;
    }
    const uint32_t *regs;
    uint32_t nr = rv_inst_clobbers(f, in, &regs), nlisted = 0, nsm = (in->flags & RV_IF_STACKMAP) ? in->u.smap.n : 0;
    uint32_t *listed = calloc(nsm + 1, sizeof *listed);
    ck_sem_def *defs = calloc(in->ndefs + 1u, sizeof *defs);
    for (uint32_t k = 0; k < nsm; k++) {
        uint32_t li = li_of(ck, ravel_slot(f->u32.data[in->u.smap.first + k]));
        if (li != CK_NIL) listed[nlisted++] = li;
    }
    const rv_operand *d = rv_defs_of(f, in);
    for (uint32_t k = 0; k < in->ndefs; k++) defs[k] = (ck_sem_def){d[k].vreg, li_of(ck, d[k].loc), rv_op_is_early(&d[k])};
    ck_sem_step(t, &(ck_sem_inst){regs, nr, (in->flags & RV_IF_SAFEPOINT) != 0, listed, nlisted, defs, in->ndefs});
    free(listed);
    free(defs);
}

/* One block: the tracker from the reference's entry, both stepped. */
static void block(ravel_checker *ck, const ravel_func *f, uint32_t b, const uint8_t *isref, uint64_t pick, run *r, const char *what)
{
    const rv_block *bl = &f->blocks.data[b];
    if (!bl->ninsts || !ck_ref_seek(ck, f, bl->first_inst)) return;
    uint32_t *hold = calloc(ck->nlocs + 1, sizeof *hold);
    ck_sem_one t = {hold, ck->nlocs, ck->nregs, isref, !f->mach->gc_nonmoving};
    for (uint32_t li = 0; li < t.nlocs; li++) {
        const uint32_t *m;
        uint32_t n = ck_ref_loc_vregs(ck, loc_at(ck, li), &m);
        if (n) hold[li] = m[(pick + li) % n] + 1;
    }
    uint32_t *before = calloc(ck->nlocs + 1, sizeof *before);
    for (uint32_t i = 0; i + 1 < bl->ninsts; i++) { /* (the terminator changes no location) */
        const rv_inst *in = rv_inst_at(f, bl->first_inst + i);
        memcpy(before, hold, ck->nlocs * sizeof *hold);
        track(ck, &t, f, in);
        ck_ref_step(ck, NULL, 0);
        r->steps++;
        compare(ck, &t, r, what, bl->first_inst + i + 1);
        losses(ck, &t, before, in, r, what, bl->first_inst + i);
        defs_kept(ck, &t, f, in, r, what, bl->first_inst + i);
    }
    free(before);
    free(hold);
}

static void one_func(ravel_checker *ck, const ravel_func *f, uint64_t seed, run *r, const char *what)
{
    if (ravel_check(ck, f, NULL, NULL) == RAVEL_EINVAL) return;
    uint8_t *isref = calloc(f->vregs.len + 1, 1);
    for (uint32_t v = 0; v < f->vregs.len; v++) isref[v] = f->vregs.data[v].ref;
    for (uint32_t b = 0; b < f->blocks.len; b++) block(ck, f, b, isref, seed + b, r, what);
    if (ck_ref_steady(ck, f)) /* a loop's entry may hold a vreg its body defines again: a def's removal */
        for (uint32_t b = 0; b < f->blocks.len; b++) block(ck, f, b, isref, seed + b, r, what);
    free(isref);
}

TEST(tracker_within_reference)
{
    ravel_checker *ck = ravel_checker_new();
    ravel_checker_set_options(ck, RAVEL_CHECK_REFERENCE);
    run r = {0};
    for (int i = 0; i < 1200; i++) {
        rv_anycfg_opts o;
        rv_anycfg_opts_default(&o);
        o.irreducible = i % 3 - 1;
        o.repairs = (uint32_t)(i % 3);
        o.clean = i % 5 == 4;
        o.max_blocks = 3 + (uint32_t)(i % 9);
        o.max_insts = 3 + (uint32_t)(i % 11);
        o.nregs = 3 + (uint32_t)(i % 4);
        o.nslots = 2 + (uint32_t)(i % 5);
        rv_anycfg a;
        char what[64];
        snprintf(what, sizeof what, "anycfg seed %d", i);
        CHECK(rv_anycfg_build(NULL, 0, (uint64_t)i * 104729u + 11u, &o, &a) == 0);
        if (a.alloc) one_func(ck, ravel_module_func(a.alloc, 0), (uint64_t)i, &r, what);
        rv_anycfg_free(&a);
    }
    ravel_checker_free(ck);
    printf("tracker within reference: %llu steps, %llu facts, %llu losses, %llu not the reference's\n", (unsigned long long)r.steps,
           (unsigned long long)r.facts, (unsigned long long)r.losses, (unsigned long long)r.bad);
    CHECK(r.bad == 0);
    CHECK(r.steps > 20000 && r.facts > 100000 && r.losses > 2000); /* (not vacuous) */
}

/* The same on generated functions allocated by every allocator: defs at
 * safepoints (the collector's place before the defs), early defs, two
 * classes; machines without alias lines (the tracker knows no overlaps). */
TEST(generated_within_reference)
{
    ravel_checker *ck = ravel_checker_new();
    ravel_checker_set_options(ck, RAVEL_CHECK_REFERENCE);
    run r = {0};
    for (uint32_t seed = 0; seed < 24; seed++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = 60;
        ravel_module *m = rv_gen_from_seed(7300 + seed, &o);
        for (ts_allocs a = ts_allocs_of(ravel_module_func(m, 0), seed); ts_allocs_next(&a);) {
            char what[64];
            snprintf(what, sizeof what, "gen seed %u by %s", 7300 + seed, a.name);
            if (ravel_check(ck, a.g, NULL, NULL) != RAVEL_EINVAL && !ck->ext.alias) one_func(ck, a.g, seed, &r, what);
        }
        ravel_module_free(m);
    }
    ravel_checker_free(ck);
    printf("generated, tracker within reference: %llu steps, %llu facts, %llu losses, %llu not the reference's\n",
           (unsigned long long)r.steps, (unsigned long long)r.facts, (unsigned long long)r.losses, (unsigned long long)r.bad);
    CHECK(r.bad == 0);
    CHECK(r.steps > 2000 && r.facts > 10000 && r.losses > 300); /* (not vacuous) */
}

/* The order, pinned: r0 is clobbered by a call that defines v3 into it;
 * the .ref v4 is defined by a safepoint into r1 (not listed; gc moving);
 * an edit copies s0 into r2 and s0 then loses its value to a def; an
 * early def in r3 by a call that clobbers r3. */
static const char *const order_src =
    "machine\n  class int r0 r1 r2 r3\nend\n\nfunc f\nb0:\n"
    "  v0:int fixed(r0) @r0, v1:int fixed(r1) @r1, v2:int.ref fixed(r2) @r2 = args\n"
    "  s0 = spill r0\n"
    "  v3:int any @r0 = call g v1 any @r1 clobbers(r0 r1)\n"
    "  v4:int.ref any @r1 = call g clobbers() safepoint stackmap()\n"
    "  r2 = reload s0\n"
    "  v5:int any @s0 = copy v3 any @r0\n"
    "  out v3 any @r0, v4 any @r1\n"
    "  out v0 any @r2, v5 any @s0\n"
    "  early v6:int @r3 = call g clobbers(r3)\n"
    "  ret\nend\n";

TEST(order_pinned)
{
    ravel_diags *dl = ravel_diags_new();
    ravel_module *m = ravel_module_parse(order_src, strlen(order_src), "order.ra", dl);
    CHECK(m != NULL);
    if (!m) {
        ravel_diags_print(stderr, dl);
        ravel_diags_free(dl);
        return;
    }
    const ravel_func *f = ravel_module_func(m, 0);
    ravel_checker *ck = ravel_checker_new();
    ravel_checker_set_options(ck, RAVEL_CHECK_REFERENCE);
    run r = {0};
    one_func(ck, f, 0, &r, "order");
    CHECK_EQ_INT((int)r.bad, 0);
    CHECK_EQ_INT((int)r.steps, 18); /* (the fixpoint, then the steady states) */
    /* by the tracker alone, from nothing at b0's first instruction */
    uint32_t hold[MAXL] = {0};
    uint8_t isref[8] = {0, 0, 1, 0, 1, 0, 0};
    ck_sem_one t = {hold, ck->nlocs, ck->nregs, isref, true};
    const rv_block *bl = &f->blocks.data[0];
    for (uint32_t i = 0; i + 1 < bl->ninsts; i++) track(ck, &t, f, rv_inst_at(f, bl->first_inst + i));
    CHECK_EQ_INT((int)hold[0], 3 + 1); /* clobbered, then the call's def */
    CHECK_EQ_INT((int)hold[1], 4 + 1); /* the collector, then the safepoint's def */
    CHECK_EQ_INT((int)hold[2], 0 + 1); /* the reload copied s0's v0 */
    CHECK_EQ_INT((int)hold[ck->nregs], 5 + 1); /* s0: v0 gone to the def of v5 */
    CHECK_EQ_INT((int)hold[3], 6 + 1); /* an early def in a clobbered register stays */
    ravel_checker_free(ck);
    ravel_module_free(m);
    ravel_diags_free(dl);
}

int main(void)
{
    RUN(tracker_within_reference);
    RUN(generated_within_reference);
    RUN(order_pinned);
    return TEST_SUMMARY();
}
