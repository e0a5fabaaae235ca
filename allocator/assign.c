/* assign.c - from homes to an allocation: the back end shared by the
 * allocators that first give every vreg one home for its whole life (a
 * register or its spill slot) and leave the instructions' constraints to
 * local moves (`color`, `ssa`).
 *
 * Requires: f unallocated, valid SSA, finished; cfg and liveness of f; a
 * home per vreg such that two vregs live at one program point never share a
 * home register, except (a) a def and a use of the same instruction when
 * the use dies there and the def is late and the use early, and (b) the
 * def and the source of a `copy` (they hold the same value).
 * Guarantees: the alloc.h contract. Every value sits in its home whenever
 * it is live between instructions; each instruction is surrounded by two
 * parallel moves:
 *   before i  operands whose home does not satisfy their constraint are
 *             loaded into a temporary register (a fixed register, a free
 *             one, the colouring's hint) or stored to their slot (stack);
 *             live-across values whose home register the instruction
 *             writes (a def, a clobber, another value loaded into it) are
 *             saved to their slot; .ref values live across a safepoint are
 *             saved to their slot, which the stackmap lists;
 *   after i   defs placed elsewhere than their home move home; saved values
 *             are restored (and, under a moving collector, .ref values
 *             reloaded from the slot the collector rewrote).
 * Edges copy jump arguments' homes into parameters' homes with the
 * parallel-move resolver, at the end of a single-successor predecessor or
 * the start of a single-predecessor successor.
 * Slots: one per slot group (vregs of a group are never live at once), so a
 * spilled parameter and its spilled arguments can share one slot.
 * Reload cache: a slot-homed value reloaded (or defined) into a register
 * is read from there again while nothing overwrote it, within a block and
 * into a successor whose only predecessor is that block; a value stored to
 * its slot is not stored again later in the block.
 * Time: linear in the function size times the live values per instruction
 * (a backward prepass and a forward walk per block over a sparse live set). */
#include "alloc.h"
#include "claims.h"

#include <stdlib.h>
#include <string.h>

enum { /* per-register flags for the current instruction (claims.h's bits, then the back end's) */
    AF_TGT_E = RV_CLAIM_USE_E, AF_TGT_L = RV_CLAIM_USE_L, AF_DEF_E = RV_CLAIM_DEF_E, AF_DEF_L = RV_CLAIM_DEF_L,
    AF_CLOB = RV_CLAIM_CLOB,
    AF_ACROSS = 32, /* home of a value live across the instruction */
    AF_DYING = 64,  /* home of a use that dies here */
    AF_DEFHOME = 128, /* home of a def live after */
};
#define AF_TGT (AF_TGT_E | AF_TGT_L)
#define AF_DEF (AF_DEF_E | AF_DEF_L)

typedef RV_VEC(rv_move) mvec;

/* Per register, for the current instruction. */
typedef struct asg_regs {
    uint8_t *rf;         /* AF_* */
    uint32_t *tgt;       /* value required in the register before i */
    uint32_t *touched, ntouched;
    uint32_t *saved_to;  /* register -> save slot (stamp below) */
    uint32_t *save_stamp;
    uint64_t *scratch_bs;
    uint32_t cur_op0;    /* first operand of the instruction being claimed (claim_fixed) */
} asg_regs;

/* The reload cache: register -> slot-homed value it still holds a copy of
 * (reloaded or defined there), and back; valid while both agree. */
typedef struct asg_cache {
    uint32_t *v, *r;
    uint32_t *snap;      /* per block: v at its end (nregs entries), for a successor it dominates alone */
} asg_cache;

typedef struct asg {
    const rv_assign_in *in;
    const ravel_func *f;
    const ravel_machine *m;
    char *err;
    rv_out out;
    rv_pmove pm;
    uint32_t nregs, nv;
    uint32_t *slot;      /* per slot group: slot number or RAVEL_NONE */
    uint32_t nslots;
    uint32_t scratch[3];  /* two resolver temporaries, one conflict slot */
    uint32_t scratch_used;
    /* the live set after the current instruction (sparse set over vregs) */
    rv_sset lset;
    asg_regs regs;       /* per register, for the current instruction */
    uint32_t *vstamp;    /* per vreg: 1 + inst at which it was stored to its slot before i */
    mvec before, after;
    RV_VEC(uint32_t) smap;
    bool *used;          /* per vreg: has a use (operand or jump argument) */
    uint8_t *live_after; /* per operand: its vreg is live after the instruction */
    asg_cache cache;     /* the reload cache */
    uint32_t *edit_lo, *edit_hi; /* per block: the edits added for its terminator and edges */
    uint32_t *slot_ok;   /* per vreg: 1 + block in which its slot was written (it holds the value from there on) */
    uint32_t cur_block;
} asg;

static bool fail(asg *a, uint32_t inst, const char *msg, uint32_t v)
{
    if (!a->err) {
        if (v != RAVEL_NONE) a->err = rv_alloc_errorf(a->f, inst, "%s (v%u)", msg, a->f->vregs.data[v].num);
        else a->err = rv_alloc_errorf(a->f, inst, "%s", msg);
    }
    return false;
}

static uint32_t group_of(const asg *a, uint32_t v) { return a->in->group ? a->in->group[v] : v; }
static uint32_t home_reg(const asg *a, uint32_t v) { return a->in->home[v]; }
static bool vref(const asg *a, uint32_t v) { return a->f->vregs.data[v].ref; }
static uint32_t vcls(const asg *a, uint32_t v) { return a->f->vregs.data[v].cls; }

static uint32_t slot_of(asg *a, uint32_t v)
{
    uint32_t g = group_of(a, v);
    if (a->slot[g] == RAVEL_NONE) a->slot[g] = a->nslots++;
    return a->slot[g];
}

/* Where v is between instructions: its home register, else its slot. */
static ravel_loc home_loc(asg *a, uint32_t v)
{
    uint32_t r = home_reg(a, v);
    return r != RAVEL_NONE ? (ravel_loc)r : ravel_slot(slot_of(a, v));
}

static uint32_t scratch_slot(asg *a, uint32_t k)
{
    if (a->scratch[k] == RAVEL_NONE) a->scratch[k] = a->nslots++;
    return a->scratch[k];
}

static uint32_t new_slot(void *ctx)
{
    asg *a = ctx;
    uint32_t k = a->scratch_used < 2 ? a->scratch_used++ : 1;
    return scratch_slot(a, k);
}

static inline void touch(asg *a, uint32_t r, uint8_t flag)
{
    if (!a->regs.rf[r] && a->regs.tgt[r] == RAVEL_NONE) a->regs.touched[a->regs.ntouched++] = r;
    a->regs.rf[r] |= flag;
}

static bool in_live(const asg *a, uint32_t v) { return rv_sset_has(&a->lset, v); }
static void live_add(asg *a, uint32_t v) { rv_sset_add(&a->lset, v); }
static void live_del(asg *a, uint32_t v) { rv_sset_del(&a->lset, v); }

/* ---- the reload cache ---- */

static uint32_t cached_reg(const asg *a, uint32_t v)
{
    uint32_t r = a->cache.r[v];
    return r != RAVEL_NONE && a->cache.v[r] == v ? r : RAVEL_NONE;
}
static void cache_kill(asg *a, ravel_loc l)
{
    if (l != RAVEL_LOC_NONE && ravel_loc_is_reg(l) && l < a->nregs) a->cache.v[l] = RAVEL_NONE;
}
static void cache_set(asg *a, uint32_t r, uint32_t v)
{
    a->cache.v[r] = v;
    a->cache.r[v] = r;
}
static void cache_kill_edits(asg *a, const rv_pmove *pm)
{
    for (uint32_t k = 0; k < pm->out.len; k++) cache_kill(a, pm->out.data[k].dst);
}

static void add_move(mvec *mv, ravel_loc dst, ravel_loc src, uint32_t cls)
{
    if (dst == src) return;
    for (uint32_t k = 0; k < mv->len; k++)
        if (mv->data[k].dst == dst) return; /* first writer wins (see callers) */
    rv_move m = {dst, src, cls};
    rv_vec_push(*mv, m);
}

/* ---- one instruction ---- */

static bool is_defined_here(const rv_inst *in, const rv_operand *ops, uint32_t v)
{
    for (uint32_t d = 0; d < in->ndefs; d++)
        if (ops[d].vreg == v) return true;
    return false;
}

/* Cost of taking register r as a temporary: 0 free, 1 or 2 the home of a
 * def (cheap for a use) or of a dying use (cheap for a def), 3 the home of
 * a live-across value (save and restore). */
static uint32_t temp_cost(const asg *a, uint32_t r, bool for_def)
{
    uint8_t fl = a->regs.rf[r];
    if (fl & AF_ACROSS) return 3;
    if (fl & AF_DYING) return for_def ? 1 : 2;
    if (fl & AF_DEFHOME) return for_def ? 2 : 1;
    return 0;
}

/* A temporary register of class cls avoiding `forbid` flags and registers
 * required to hold another value than v; hint first if acceptable. */
static uint32_t pick_temp(asg *a, uint32_t cls, uint8_t forbid, uint32_t v, uint32_t hint, bool for_def)
{
    const rv_class *c = &a->m->classes.data[cls];
    if (hint != RAVEL_NONE && hint < a->nregs && a->m->regs.data[hint].cls == cls && !a->m->regs.data[hint].reserved &&
        !(a->regs.rf[hint] & forbid) && (v == RAVEL_NONE || a->regs.tgt[hint] == RAVEL_NONE || a->regs.tgt[hint] == v) && temp_cost(a, hint, for_def) < 3)
        return hint;
    uint32_t best = RAVEL_NONE, bc = 99;
    for (uint32_t k = 0; k < c->alloc.len; k++) {
        uint32_t r = c->alloc.data[k];
        if ((a->regs.rf[r] & forbid) || (v != RAVEL_NONE && a->regs.tgt[r] != RAVEL_NONE && a->regs.tgt[r] != v)) continue;
        uint32_t cost = temp_cost(a, r, for_def);
        if (cost < bc) {
            bc = cost;
            best = r;
            if (!cost) break;
        }
    }
    return best;
}

static uint32_t hint_of(const asg *a, uint32_t opi) { return a->in->hint ? a->in->hint[opi] : RAVEL_NONE; }

/* True if v's home r may be read for v: nothing else is required there,
 * or what is required there is another value with that home (live at the
 * same time, so a copy of v: r holds both). */
static bool holds(const asg *a, uint32_t r, uint32_t v)
{
    return a->regs.tgt[r] == RAVEL_NONE || a->regs.tgt[r] == v || home_reg(a, a->regs.tgt[r]) == r;
}

static void set_tgt(asg *a, uint32_t r, uint32_t v, bool late)
{
    touch(a, r, late ? AF_TGT_L : AF_TGT_E);
    if (a->regs.tgt[r] == RAVEL_NONE || home_reg(a, a->regs.tgt[r]) != r) a->regs.tgt[r] = v;
}

/* A register use (kind reg, or any needing a register for a reuse). */
static bool place_reg_use(asg *a, uint32_t i, const rv_inst *in, const rv_operand *ops, uint32_t u, uint32_t reuser)
{
    const rv_operand *o = &ops[u];
    uint32_t v = o->vreg, opi = in->first_op + u;
    bool late = rv_op_is_late(o);
    if (reuser != RAVEL_NONE && late) return fail(a, i, "unsatisfiable: a def reuses a late use", v);
    uint8_t forbid = late ? (AF_DEF | AF_CLOB) : AF_DEF_E;
    if (reuser != RAVEL_NONE) forbid |= AF_DEF | AF_TGT_L;
    uint32_t h = home_reg(a, v);
    uint32_t r = RAVEL_NONE;
    bool dies = !in_live(a, v);
    if (h != RAVEL_NONE && !(a->regs.rf[h] & forbid) && holds(a, h, v) && (reuser == RAVEL_NONE || dies)) r = h;
    uint32_t cr = h == RAVEL_NONE ? cached_reg(a, v) : RAVEL_NONE; /* a copy left by an earlier reload */
    if (r == RAVEL_NONE && cr != RAVEL_NONE && !(a->regs.rf[cr] & forbid) && (a->regs.tgt[cr] == RAVEL_NONE || a->regs.tgt[cr] == v) &&
        temp_cost(a, cr, false) < 3)
        r = cr;
    if (r == RAVEL_NONE) r = pick_temp(a, vcls(a, v), forbid, v, hint_of(a, opi), false);
    if (r == RAVEL_NONE) return fail(a, i, "unsatisfiable: no register left for a use", v);
    set_tgt(a, r, v, late);
    a->out.loc[opi] = r;
    if (reuser != RAVEL_NONE) {
        touch(a, r, rv_op_is_late(&ops[reuser]) ? AF_DEF_L : AF_DEF_E);
        a->out.loc[in->first_op + reuser] = r;
    }
    return true;
}

/* True if i is a `copy` whose use is read from r: its def may land in r
 * without destroying the source (r then holds both). */
static bool copy_keeps(const asg *a, const rv_inst *in, uint32_t r)
{
    return in->op == RAVEL_OP_COPY && in->ndefs == 1 && in->nuses == 1 && a->out.loc[in->first_op + 1] == r;
}

static bool place_reg_def(asg *a, uint32_t i, const rv_inst *in, const rv_operand *ops, uint32_t d)
{
    const rv_operand *o = &ops[d];
    uint32_t v = o->vreg, opi = in->first_op + d;
    bool early = rv_op_is_early(o);
    uint8_t forbid = AF_DEF | AF_TGT_L | (early ? AF_TGT_E : 0);
    uint32_t h = home_reg(a, v), r = RAVEL_NONE;
    if (h != RAVEL_NONE && !(a->regs.rf[h] & forbid) && (!(a->regs.rf[h] & AF_ACROSS) || copy_keeps(a, in, h))) r = h;
    if (r == RAVEL_NONE) r = pick_temp(a, vcls(a, v), forbid, RAVEL_NONE, hint_of(a, opi), true);
    if (r == RAVEL_NONE) return fail(a, i, "unsatisfiable: no register left for a def", v);
    touch(a, r, early ? AF_DEF_E : AF_DEF_L);
    a->out.loc[opi] = r;
    return true;
}

/* Stores v to its slot before i (once per instruction). */
static void store_before(asg *a, uint32_t i, uint32_t v)
{
    uint32_t h = home_reg(a, v);
    if (h == RAVEL_NONE || a->vstamp[v] == i + 1) return;
    a->vstamp[v] = i + 1;
    if (a->slot_ok[v] == a->cur_block + 1) return; /* stored earlier in this block: still there */
    add_move(&a->before, ravel_slot(slot_of(a, v)), h, vcls(a, v));
    a->slot_ok[v] = a->cur_block + 1;
}

static void place_flex_use(asg *a, uint32_t i, const rv_inst *in, const rv_operand *ops, uint32_t u, bool sp)
{
    const rv_operand *o = &ops[u];
    uint32_t v = o->vreg, opi = in->first_op + u;
    bool late = rv_op_is_late(o);
    uint32_t h = home_reg(a, v);
    if (o->kind == RAVEL_C_ANY && h != RAVEL_NONE && !(late && sp && vref(a, v))) {
        uint8_t forbid = late ? (AF_DEF | AF_CLOB) : AF_DEF_E;
        if (!(a->regs.rf[h] & forbid) && holds(a, h, v)) {
            set_tgt(a, h, v, late);
            a->out.loc[opi] = h;
            return;
        }
    }
    store_before(a, i, v);
    a->out.loc[opi] = ravel_slot(slot_of(a, v));
}

/* True if slot location l is read by a use of i that conflicts with an
 * early def (any use) or a late use conflicting with any def. */
static bool slot_clash(const asg *a, const rv_inst *in, const rv_operand *ops, ravel_loc l, bool early_def)
{
    for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++)
        if (a->out.loc[in->first_op + u] == l && (early_def || rv_op_is_late(&ops[u]))) return true;
    return false;
}

static void place_flex_def(asg *a, const rv_inst *in, const rv_operand *ops, uint32_t d, bool sp_early_ref)
{
    const rv_operand *o = &ops[d];
    uint32_t v = o->vreg, opi = in->first_op + d;
    bool early = rv_op_is_early(o);
    uint32_t h = home_reg(a, v);
    if (o->kind == RAVEL_C_ANY && h != RAVEL_NONE && !sp_early_ref) {
        uint8_t forbid = AF_DEF | AF_TGT_L | (early ? AF_TGT_E : 0) | AF_ACROSS;
        if (!(a->regs.rf[h] & forbid)) {
            touch(a, h, early ? AF_DEF_E : AF_DEF_L);
            a->out.loc[opi] = h;
            return;
        }
    }
    ravel_loc l = ravel_slot(slot_of(a, v));
    if (slot_clash(a, in, ops, l, early)) l = ravel_slot(scratch_slot(a, 2));
    a->out.loc[opi] = l;
}

/* Fixed operands and clobbers: the shared claims (claims.h) on the back
 * end's flags and targets. */
static void ax_clobber(void *ctx, uint32_t r) { touch(ctx, r, AF_CLOB); }
static void ax_use(void *ctx, uint32_t u, uint32_t r)
{
    asg *a = ctx;
    const rv_operand *o = &a->f->ops.data[a->regs.cur_op0 + u];
    set_tgt(a, r, o->vreg, rv_op_is_late(o));
    a->out.loc[a->regs.cur_op0 + u] = r;
}
static void ax_def(void *ctx, uint32_t d, uint32_t r)
{
    asg *a = ctx;
    touch(a, r, rv_op_is_late(&a->f->ops.data[a->regs.cur_op0 + d]) ? AF_DEF_L : AF_DEF_E);
    a->out.loc[a->regs.cur_op0 + d] = r;
}
static uint8_t ax_flags(const void *ctx, uint32_t r) { return ((const asg *)ctx)->regs.rf[r]; }
static uint32_t ax_target(const void *ctx, uint32_t r) { return ((const asg *)ctx)->regs.tgt[r]; }
static const uint32_t *ax_touched(const void *ctx, uint32_t *n)
{
    const asg *a = ctx;
    *n = a->regs.ntouched;
    return a->regs.touched;
}
static const rv_claim_ops ax_claims = {ax_clobber, ax_use, ax_def, ax_flags, ax_target, ax_touched};

static bool claim_fixed(asg *a, uint32_t i, const rv_inst *in, const rv_operand *ops, bool sp_moving)
{
    uint32_t bad;
    a->regs.cur_op0 = in->first_op;
    rv_claim_error e = rv_claim_fixed(a->f, in, ops, sp_moving, true, true, &ax_claims, a, &bad);
    return e == RV_CLAIM_OK || fail(a, i, rv_claim_error_text(e), bad);
}

/* Marks the homes of the values live around i (occupancy for temporaries). */
static void mark_homes(asg *a, const rv_inst *in, const rv_operand *ops)
{
    for (uint32_t k = 0; k < a->lset.n; k++) {
        uint32_t w = a->lset.dense[k], h = home_reg(a, w);
        if (h == RAVEL_NONE) continue;
        touch(a, h, is_defined_here(in, ops, w) ? AF_DEFHOME : AF_ACROSS);
    }
    for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++) {
        uint32_t w = ops[u].vreg, h = home_reg(a, w);
        if (h != RAVEL_NONE && !in_live(a, w)) touch(a, h, AF_DYING);
    }
}

/* True if register r (home of a value live across i) loses its content at
 * i: a def or clobber writes it, or another value is loaded into it. A
 * `copy` whose def lands where its source is read leaves the source there. */
static bool disturbed(const asg *a, const rv_inst *in, uint32_t r)
{
    uint8_t fl = a->regs.rf[r];
    if (a->regs.tgt[r] != RAVEL_NONE && home_reg(a, a->regs.tgt[r]) != r) return true;
    if (fl & AF_CLOB) return true;
    if (!(fl & AF_DEF)) return false;
    return !(copy_keeps(a, in, r) && a->out.loc[in->first_op] == r);
}

static bool resolve(asg *a, uint32_t i, uint32_t anchor, mvec *mv, bool after)
{
    if (!mv->len) return true;
    if (rv_pmove_simple(&a->pm, mv->data, mv->len)) {
        rv_out_edits(&a->out, anchor, &a->pm);
        cache_kill_edits(a, &a->pm);
        return true;
    }
    uint32_t nw = rv_bs_words(a->nregs);
    memset(a->regs.scratch_bs, 0, sizeof(uint64_t) * nw);
    for (uint32_t r = 0; r < a->nregs; r++) {
        if (a->m->regs.data[r].reserved) continue;
        uint8_t fl = a->regs.rf[r];
        if (after ? (fl & (AF_ACROSS | AF_DEFHOME | AF_DEF)) : (fl & (AF_ACROSS | AF_DYING | AF_TGT))) continue;
        bool in_moves = false;
        for (uint32_t k = 0; k < mv->len && !in_moves; k++) in_moves = mv->data[k].dst == r || mv->data[k].src == r;
        if (!in_moves) rv_bs_set(a->regs.scratch_bs, r);
    }
    a->scratch_used = 0;
    if (rv_pmove_resolve(&a->pm, a->m, mv->data, mv->len, a->regs.scratch_bs, new_slot, a) != RAVEL_OK)
        return fail(a, i, "internal error: conflicting moves", RAVEL_NONE);
    rv_out_edits(&a->out, anchor, &a->pm);
    cache_kill_edits(a, &a->pm);
    return true;
}

/* The safepoint: .ref values live across i (and late .ref uses) are stored
 * to their slots, listed, and reloaded after: under a moving collector the
 * register copies are stale; under a non-moving one they stay valid, but
 * reloading keeps the allocation right for a moving collector too (the
 * interpreter's --moving-gc model relocates listed slots either way). */
static bool safepoint(asg *a, uint32_t i, const rv_inst *in, const rv_operand *ops)
{
    a->smap.len = 0;
    for (uint32_t k = 0; k < a->lset.n; k++) {
        uint32_t w = a->lset.dense[k];
        if (!vref(a, w) || is_defined_here(in, ops, w)) continue;
        uint32_t h = home_reg(a, w);
        if (h != RAVEL_NONE && a->regs.save_stamp[h] == i + 1) { /* shares a saved register: listed with it */
            rv_vec_push(a->smap, a->regs.saved_to[h]);
            if (a->regs.saved_to[h] != slot_of(a, w)) a->slot_ok[w] = 0; /* its own slot loses it */
            continue;
        }
        store_before(a, i, w);
        uint32_t s = slot_of(a, w);
        rv_vec_push(a->smap, s);
        if (h != RAVEL_NONE) {
            a->regs.save_stamp[h] = i + 1;
            a->regs.saved_to[h] = s;
            add_move(&a->after, h, ravel_slot(s), vcls(a, w)); /* the collector may have moved it (either gc) */
        }
    }
    for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++) {
        const rv_operand *o = &ops[u];
        if (!rv_op_is_late(o) || !vref(a, o->vreg)) continue;
        store_before(a, i, o->vreg);
        rv_vec_push(a->smap, slot_of(a, o->vreg));
    }
    for (uint32_t d = 0; d < in->ndefs; d++) {
        const rv_operand *o = &ops[d];
        ravel_loc l = a->out.loc[in->first_op + d];
        if (!rv_op_is_early(o) || !vref(a, o->vreg)) continue;
        if (ravel_loc_is_slot(l)) rv_vec_push(a->smap, ravel_loc_slot(l));
        else if (in_live(a, o->vreg))
            return fail(a, i, "unsatisfiable: an early .ref def in a register does not survive the safepoint", o->vreg);
    }
    rv_out_stackmap(&a->out, i, a->smap.data, a->smap.len);
    return true;
}

/* The reload cache across instruction i (its before-moves already
 * resolved): slot-homed uses now in registers are cached; what i writes
 * (defs, clobbers) is dropped, a slot-homed def left in a register is
 * cached (it is stored from there); a safepoint drops cached .ref copies. */
static void cache_update(asg *a, const rv_inst *in, const rv_operand *ops, bool sp)
{
    for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++) {
        ravel_loc l = a->out.loc[in->first_op + u];
        if (ravel_loc_is_reg(l) && l < a->nregs && home_reg(a, ops[u].vreg) == RAVEL_NONE && !a->m->regs.data[l].reserved)
            cache_set(a, l, ops[u].vreg);
    }
    const uint32_t *clob;
    uint32_t nclob = rv_inst_clobbers(a->f, in, &clob);
    for (uint32_t k = 0; k < nclob; k++) cache_kill(a, clob[k]);
    for (uint32_t d = 0; d < in->ndefs; d++) cache_kill(a, a->out.loc[in->first_op + d]);
    if (sp)
        for (uint32_t r = 0; r < a->nregs; r++)
            if (a->cache.v[r] != RAVEL_NONE && vref(a, a->cache.v[r])) a->cache.v[r] = RAVEL_NONE;
    for (uint32_t d = 0; d < in->ndefs; d++) {
        ravel_loc l = a->out.loc[in->first_op + d];
        if (ravel_loc_is_reg(l) && l < a->nregs && home_reg(a, ops[d].vreg) == RAVEL_NONE && !a->m->regs.data[l].reserved)
            cache_set(a, l, ops[d].vreg);
    }
}

/* The moves after a branch (restores of values its operand moves
 * displaced) go at the entry of each successor, ahead of the edge copies
 * added there later: a branch with operands has several successors, each
 * with this block as its only predecessor (no critical edges). */
static bool after_branch(asg *a, uint32_t i, const rv_inst *in)
{
    const rv_cfg *cfg = a->in->cfg;
    for (uint32_t k = 0; k < rv_inst_nsuccs(in); k++) {
        uint32_t s = rv_inst_succs(a->f, in)[k].block;
        bool seen = false;
        for (uint32_t k2 = 0; k2 < k; k2++) seen |= rv_inst_succs(a->f, in)[k2].block == s;
        if (seen) continue;
        for (uint32_t q = cfg->pred_start[s]; q < cfg->pred_start[s + 1]; q++)
            if (cfg->pred[q] != cfg->pred[cfg->pred_start[s]] || rv_cfg_nsuccs(cfg, cfg->pred[q]) < 2)
                return fail(a, i, "internal error: moves after a branch into a join", RAVEL_NONE);
        if (!resolve(a, i, rv_anchor_entry(a->f->blocks.data[s].first_inst), &a->after, true)) return false;
    }
    return true;
}

static bool asg_inst(asg *a, uint32_t i)
{
    const rv_inst *in = rv_inst_at(a->f, i);
    const rv_operand *ops = rv_ops_of(a->f, in);
    uint32_t nd = in->ndefs, nops = nd + in->nuses;
    bool sp = (in->flags & RV_IF_SAFEPOINT) != 0, sp_moving = sp && !a->m->gc_nonmoving;
    a->before.len = a->after.len = 0;
    a->regs.ntouched = 0;
    mark_homes(a, in, ops);
    bool ok = claim_fixed(a, i, in, ops, sp_moving);
    for (int late = 1; ok && late >= 0; late--) /* register uses, late first, then those reused by a def */
        for (uint32_t u = nd; ok && u < nops; u++) {
            const rv_operand *o = &ops[u];
            if (rv_op_is_late(o) != (late != 0) || o->kind == RAVEL_C_FIXED) continue;
            uint32_t r = rv_reuser_of(in, ops, u);
            if (o->kind == RAVEL_C_STACK && r != RAVEL_NONE) ok = fail(a, i, "unsatisfiable: reuse of a stack use", o->vreg);
            else if (o->kind == RAVEL_C_REG && late && sp_moving && vref(a, o->vreg))
                ok = fail(a, i, "unsatisfiable: a .ref value is read from a register after a moving safepoint", o->vreg);
            else if (r != RAVEL_NONE || (o->kind == RAVEL_C_REG && late))
                ok = place_reg_use(a, i, in, ops, u, r);
        }
    for (uint32_t u = nd; ok && u < nops; u++)
        if (ops[u].kind == RAVEL_C_REG && rv_op_is_early(&ops[u]) && rv_reuser_of(in, ops, u) == RAVEL_NONE)
            ok = place_reg_use(a, i, in, ops, u, RAVEL_NONE);
    for (int late = 0; ok && late < 2; late++)
        for (uint32_t d = 0; ok && d < nd; d++)
            if (ops[d].kind == RAVEL_C_REG && rv_op_is_late(&ops[d]) == (late != 0)) ok = place_reg_def(a, i, in, ops, d);
    for (int late = 1; ok && late >= 0; late--)
        for (uint32_t u = nd; u < nops; u++)
            if ((ops[u].kind == RAVEL_C_ANY || ops[u].kind == RAVEL_C_STACK) && rv_op_is_late(&ops[u]) == (late != 0) &&
                rv_reuser_of(in, ops, u) == RAVEL_NONE)
                place_flex_use(a, i, in, ops, u, sp);
    for (uint32_t d = 0; ok && d < nd; d++)
        if (ops[d].kind == RAVEL_C_ANY || ops[d].kind == RAVEL_C_STACK)
            place_flex_def(a, in, ops, d, sp && rv_op_is_early(&ops[d]) && vref(a, ops[d].vreg) && in_live(a, ops[d].vreg));
    for (uint32_t d = 0; ok && d < nd; d++)
        if (a->out.loc[in->first_op + d] == RAVEL_LOC_NONE) ok = fail(a, i, "unsatisfiable: bad reuse", ops[d].vreg);
    if (!ok) return false;
    /* values loaded for uses */
    for (uint32_t u = nd; u < nops; u++) {
        uint32_t v = ops[u].vreg;
        ravel_loc l = a->out.loc[in->first_op + u];
        if (ravel_loc_is_slot(l) || (home_reg(a, v) == RAVEL_NONE && cached_reg(a, v) == l)) continue;
        add_move(&a->before, l, home_loc(a, v), vcls(a, v));
    }
    /* live-across values whose register is overwritten: save, restore.
     * Such a register is the home of a live value not defined here
     * (AF_ACROSS, from mark_homes) and disturbed, so it is among the
     * touched ones (every flag and target is set through touch): without
     * one the scan below is idle, and so is the restoring one unless the
     * safepoint saved values (most instructions disturb no home). */
    bool saves = false;
    for (uint32_t t = 0; t < a->regs.ntouched && !saves; t++)
        saves = (a->regs.rf[a->regs.touched[t]] & AF_ACROSS) && disturbed(a, in, a->regs.touched[t]);
    for (uint32_t k = 0; saves && k < a->lset.n; k++) {
        uint32_t w = a->lset.dense[k], h = home_reg(a, w);
        if (h == RAVEL_NONE || is_defined_here(in, ops, w) || !disturbed(a, in, h) || a->regs.save_stamp[h] == i + 1) continue;
        a->regs.save_stamp[h] = i + 1;
        a->regs.saved_to[h] = slot_of(a, w);
        store_before(a, i, w);
    }
    /* defs placed away from home go home (first: they win over restores) */
    for (uint32_t d = 0; d < nd; d++) {
        uint32_t v = ops[d].vreg;
        if (!in_live(a, v)) continue;
        add_move(&a->after, home_loc(a, v), a->out.loc[in->first_op + d], vcls(a, v));
    }
    if (sp && !safepoint(a, i, in, ops)) return false;
    for (uint32_t d = 0; d < nd; d++) /* a def written to its own slot leaves it there */
        if (a->out.loc[in->first_op + d] == ravel_slot(slot_of(a, ops[d].vreg))) a->slot_ok[ops[d].vreg] = a->cur_block + 1;
    for (uint32_t k = 0; (saves || sp) && k < a->lset.n; k++) {
        uint32_t w = a->lset.dense[k], h = home_reg(a, w);
        if (h == RAVEL_NONE || is_defined_here(in, ops, w) || a->regs.save_stamp[h] != i + 1) continue;
        if (disturbed(a, in, h)) add_move(&a->after, h, ravel_slot(a->regs.saved_to[h]), vcls(a, w));
    }
    if (!resolve(a, i, rv_anchor_before(i), &a->before, false)) return false;
    cache_update(a, in, ops, sp);
    if (!rv_is_term(in)) {
        if (!resolve(a, i, rv_anchor_after(i), &a->after, true)) return false;
    } else if (a->after.len && !after_branch(a, i, in)) {
        return false;
    }
    for (uint32_t t = 0; t < a->regs.ntouched; t++) {
        a->regs.rf[a->regs.touched[t]] = 0;
        a->regs.tgt[a->regs.touched[t]] = RAVEL_NONE;
    }
    a->regs.ntouched = 0;
    return true;
}

/* ---- edges ---- */

static void edge_scratch(asg *a, uint32_t s, const rv_succ *sc)
{
    const ravel_func *f = a->f;
    const rv_liveness *lv = a->in->lv;
    uint32_t nw = rv_bs_words(a->nregs);
    memset(a->regs.scratch_bs, 0, sizeof(uint64_t) * nw);
    for (uint32_t r = 0; r < a->nregs; r++)
        if (!a->m->regs.data[r].reserved) rv_bs_set(a->regs.scratch_bs, r);
    const uint64_t *inb = lv->in + (size_t)s * lv->nwords;
    for (uint32_t w = 0; w < lv->nwords; w++)
        for (uint64_t bits = inb[w]; bits; bits &= bits - 1) {
            uint32_t v = w * 64 + (uint32_t)__builtin_ctzll(bits), h = home_reg(a, v);
            if (h != RAVEL_NONE) rv_bs_clear(a->regs.scratch_bs, h);
        }
    const rv_block *sb = &f->blocks.data[s];
    for (uint32_t p = 0; p < sb->nparams; p++) {
        uint32_t h = home_reg(a, rv_block_params(f, sb)[p]);
        if (h != RAVEL_NONE) rv_bs_clear(a->regs.scratch_bs, h);
    }
    for (uint32_t k = 0; k < sc->nargs; k++) {
        uint32_t h = home_reg(a, rv_succ_args(f, sc)[k]);
        if (h != RAVEL_NONE) rv_bs_clear(a->regs.scratch_bs, h);
    }
}

static bool asg_edges(asg *a, uint32_t b)
{
    const ravel_func *f = a->f;
    const rv_cfg *cfg = a->in->cfg;
    const rv_block *bl = &f->blocks.data[b];
    const rv_inst *t = rv_block_term(f, bl);
    uint32_t ti = bl->first_inst + bl->ninsts - 1;
    for (uint32_t k = 0; k < rv_inst_nsuccs(t); k++) {
        const rv_succ *sc = &rv_inst_succs(f, t)[k];
        const rv_block *sb = &f->blocks.data[sc->block];
        a->before.len = 0;
        uint32_t anchor = rv_edge_anchor(f, cfg, b, k, NULL);
        for (uint32_t p = 0; p < sc->nargs && p < sb->nparams; p++) {
            uint32_t pv = rv_block_params(f, sb)[p], av = rv_succ_args(f, sc)[p];
            if (!a->used[pv]) continue;
            add_move(&a->before, home_loc(a, pv), home_loc(a, av), vcls(a, pv));
        }
        if (!a->before.len) continue;
        if (anchor == RAVEL_NONE) { /* duplicate edges b -> s: fine if all carry the same arguments */
            bool first = true;
            for (uint32_t k2 = 0; k2 < rv_inst_nsuccs(t); k2++) {
                const rv_succ *s2 = &rv_inst_succs(f, t)[k2];
                if (s2->block != sc->block) continue;
                if (k2 < k) first = false;
                if (sc->nargs && memcmp(rv_succ_args(f, s2), rv_succ_args(f, sc), sizeof(uint32_t) * sc->nargs) != 0)
                    return fail(a, ti, "unsatisfiable: critical edge with different arguments", RAVEL_NONE);
            }
            if (!first) continue;
            for (uint32_t q = cfg->pred_start[sc->block]; q < cfg->pred_start[sc->block + 1]; q++)
                if (cfg->pred[q] != b) return fail(a, ti, "unsatisfiable: critical edge (split it)", RAVEL_NONE);
            anchor = rv_anchor_entry(sb->first_inst);
        }
        if (rv_pmove_simple(&a->pm, a->before.data, a->before.len)) {
            rv_out_edits(&a->out, anchor, &a->pm);
            continue;
        }
        edge_scratch(a, sc->block, sc);
        a->scratch_used = 0;
        if (rv_pmove_resolve(&a->pm, a->m, a->before.data, a->before.len, a->regs.scratch_bs, new_slot, a) != RAVEL_OK)
            return fail(a, ti, "internal error: conflicting edge moves", RAVEL_NONE);
        rv_out_edits(&a->out, anchor, &a->pm);
    }
    return true;
}

/* ---- driver ---- */

/* Backward prepass: which operands' vregs are live after their
 * instruction (rv_live_after_block: jump arguments count as live after
 * their branch); leaves the live set at the block's entry. */
static void live_prepass(asg *a, uint32_t b)
{
    const ravel_func *f = a->f;
    const rv_liveness *lv = a->in->lv;
    a->lset.n = 0;
    const uint64_t *outb = lv->out + (size_t)b * lv->nwords;
    for (uint32_t w = 0; w < lv->nwords; w++)
        for (uint64_t bits = outb[w]; bits; bits &= bits - 1) live_add(a, w * 64 + (uint32_t)__builtin_ctzll(bits));
    rv_live_after_block(f, b, &a->lset, a->live_after);
}

/* The reload cache at the entry of block b: empty, except when b's only
 * predecessor edge comes from a block walked before it (a block before it
 * in layout), whose cache b inherits minus every register written by that
 * block's branch and edge edits (b's entry edits among them). */
static void cache_enter(asg *a, uint32_t b)
{
    const rv_cfg *cfg = a->in->cfg;
    uint32_t q = rv_cfg_npreds(cfg, b) == 1 ? cfg->pred[cfg->pred_start[b]] : RAVEL_NONE;
    if (q == RAVEL_NONE || q >= b) {
        for (uint32_t r = 0; r < a->nregs; r++) a->cache.v[r] = RAVEL_NONE;
        return;
    }
    memcpy(a->cache.v, a->cache.snap + (size_t)q * a->nregs, sizeof(uint32_t) * a->nregs);
    for (uint32_t r = 0; r < a->nregs; r++)
        if (a->cache.v[r] != RAVEL_NONE) a->cache.r[a->cache.v[r]] = r;
    for (uint32_t k = a->edit_lo[q]; k < a->edit_hi[q]; k++) cache_kill(a, a->out.edits.data[k].e.dst);
}

/* Forward walk: before each instruction the live set is updated to what
 * is live after it (dying uses out, live defs in). */
static bool asg_block(asg *a, uint32_t b)
{
    const ravel_func *f = a->f;
    const rv_block *bl = &f->blocks.data[b];
    live_prepass(a, b);
    a->cur_block = b;
    cache_enter(a, b);
    for (uint32_t j = 0; j < bl->ninsts; j++) {
        uint32_t i = bl->first_inst + j;
        const rv_inst *in = rv_inst_at(f, i);
        const rv_operand *ops = rv_ops_of(f, in);
        if (j + 1 == bl->ninsts) a->edit_lo[b] = a->out.edits.len;
        for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++)
            if (!a->live_after[in->first_op + u]) live_del(a, ops[u].vreg);
        for (uint32_t d = 0; d < in->ndefs; d++) {
            if (a->live_after[in->first_op + d]) live_add(a, ops[d].vreg);
            else live_del(a, ops[d].vreg);
        }
        if (!asg_inst(a, i)) return false;
    }
    memcpy(a->cache.snap + (size_t)b * a->nregs, a->cache.v, sizeof(uint32_t) * a->nregs);
    bool ok = asg_edges(a, b);
    a->edit_hi[b] = a->out.edits.len;
    return ok;
}

static void mark_used(asg *a)
{
    const ravel_func *f = a->f;
    for (uint32_t k = 0; k < f->ops.len; k++)
        if (!rv_op_is_def(&f->ops.data[k])) a->used[f->ops.data[k].vreg] = true;
    for (uint32_t s = 0; s < f->succs.len; s++) {
        const rv_succ *sc = &f->succs.data[s];
        for (uint32_t k = 0; k < sc->nargs; k++) a->used[rv_succ_args(f, sc)[k]] = true;
    }
}

ravel_func *rv_assign_emit(const rv_assign_in *in, char **err)
{
    asg a;
    memset(&a, 0, sizeof a);
    a.in = in;
    a.f = in->f;
    a.m = in->f->mach;
    a.nregs = a.m->regs.len;
    a.nv = in->f->vregs.len;
    uint32_t nv = a.nv + 1, nr = a.nregs + 1;
    a.slot = rv_xmalloc(sizeof(uint32_t) * nv);
    memset(a.slot, 0xff, sizeof(uint32_t) * nv);
    a.scratch[0] = a.scratch[1] = a.scratch[2] = RAVEL_NONE;
    a.lset.dense = rv_xmalloc(sizeof(uint32_t) * nv);
    a.lset.pos = rv_xcalloc(nv, sizeof(uint32_t));
    a.vstamp = rv_xcalloc(nv, sizeof(uint32_t));
    a.used = rv_xcalloc(nv, sizeof(bool));
    a.live_after = rv_xcalloc(a.f->ops.len + 1, 1);
    a.cache.v = rv_xmalloc(sizeof(uint32_t) * nr);
    a.cache.r = rv_xmalloc(sizeof(uint32_t) * nv);
    a.cache.snap = rv_xmalloc(sizeof(uint32_t) * ((size_t)in->cfg->nblocks * a.nregs + 1));
    a.edit_lo = rv_xcalloc(in->cfg->nblocks + 1, sizeof(uint32_t));
    a.edit_hi = rv_xcalloc(in->cfg->nblocks + 1, sizeof(uint32_t));
    a.slot_ok = rv_xcalloc(nv, sizeof(uint32_t));
    memset(a.cache.r, 0xff, sizeof(uint32_t) * nv);
    a.regs.rf = rv_xcalloc(nr, 1);
    a.regs.tgt = rv_xmalloc(sizeof(uint32_t) * nr);
    memset(a.regs.tgt, 0xff, sizeof(uint32_t) * nr);
    a.regs.touched = rv_xmalloc(sizeof(uint32_t) * nr * 2);
    a.regs.saved_to = rv_xcalloc(nr, sizeof(uint32_t));
    a.regs.save_stamp = rv_xcalloc(nr, sizeof(uint32_t));
    a.regs.scratch_bs = rv_xcalloc(rv_bs_words(a.nregs) + 1, sizeof(uint64_t));
    rv_out_init(&a.out, a.f);
    rv_pmove_init(&a.pm);
    mark_used(&a);
    bool ok = true;
    for (uint32_t b = 0; ok && b < in->cfg->nblocks; b++) ok = asg_block(&a, b);
    ravel_func *g = ok ? rv_out_finish(&a.out) : NULL;
    if (err) *err = a.err;
    else rv_free(a.err);
    rv_free(a.slot);
    rv_free(a.lset.dense);
    rv_free(a.lset.pos);
    rv_free(a.vstamp);
    rv_free(a.used);
    rv_free(a.live_after);
    rv_free(a.cache.v);
    rv_free(a.cache.r);
    rv_free(a.cache.snap);
    rv_free(a.edit_lo);
    rv_free(a.edit_hi);
    rv_free(a.slot_ok);
    rv_free(a.regs.rf);
    rv_free(a.regs.tgt);
    rv_free(a.regs.touched);
    rv_free(a.regs.saved_to);
    rv_free(a.regs.save_stamp);
    rv_free(a.regs.scratch_bs);
    rv_vec_free(a.before);
    rv_vec_free(a.after);
    rv_vec_free(a.smap);
    rv_out_free(&a.out);
    rv_pmove_free(&a.pm);
    return g;
}
