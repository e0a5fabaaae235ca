/* fast_inst.c - the `fast` allocator's register choice and its handling of
 * one instruction (the steps of rv_fast_inst in the strategy at the top of
 * fast.c).
 *
 * Requires: the pre-passes (fast_prepass.c) done; the register state
 * (a->regs.content, a->vs[].home/slot/vflags) that of the point before
 * instruction i.
 * Guarantees: every operand of i gets a location meeting its constraint;
 * ONE parallel move before i (reloads, moves into fixed registers, rescues,
 * spills) in a->out; the stackmap of a safepoint (every live .ref in its
 * slot); the register state after i; or false with a->err naming i. In
 * random mode each choice is one the deterministic engine could make. */
#include "fast.h"

/* ---- register choice ---- */

/* Cost of taking register r for vreg v (lower is better), given the value it
 * holds now: 0 = already holds v, 1 = empty or dying here, 2 = holds a live
 * value with a valid slot, 3 = holds a live value that would need saving. */
static uint32_t take_cost(const fa *a, uint32_t r, uint32_t v, uint32_t i)
{
    uint32_t w = (a->regs.rf[r] & RF_TGT) ? a->regs.tgt[r] : a->regs.content[r]; /* what r will hold */
    if (w == v && v != RAVEL_NONE) return 0;
    if (w == RAVEL_NONE || !live_after(a, w, i)) return 1;
    return (a->vs[w].vflags & VF_SLOT_VALID) ? 2 : 3;
}

/* Picks an allocatable register of v's class whose per-instruction flags
 * share nothing with `forbid`. For a use (for_use), a register already
 * targeted must be targeted to v itself (and share_v allow sharing). The
 * cheapest by take_cost wins, ties by preference order; random mode picks
 * uniformly among the acceptable ones (often v's home). max_cost limits the
 * choice (1 = "only if free"). */
static uint32_t pick_reg(fa *a, uint32_t v, uint32_t cls, uint8_t forbid, bool for_use, bool share_v, uint32_t i,
                         uint32_t max_cost)
{
    const rv_class *c = &a->m->classes.data[cls];
    uint32_t best = RAVEL_NONE, best_cost = max_cost + 1, nacc = 0;
    if (!a->random) { /* fast paths: v's own register, else the first empty one */
        uint32_t cand[2] = {a->vs[v].home, a->vs[v].tgt_stamp == i ? a->vs[v].tgt_of : RAVEL_NONE};
        for (int k = 0; for_use && k < 2; k++) {
            uint32_t r = cand[k];
            if (r == RAVEL_NONE || !reg_home(a, r) || a->m->regs.data[r].cls != cls || (a->regs.rf[r] & forbid)) continue;
            bool shared = (a->regs.rf[r] & RF_TGT) && a->regs.tgt[r] == v;
            if ((a->regs.rf[r] & RF_TGT) && !(share_v && shared)) continue;
            if (shared || a->regs.content[r] == v) return r;
        }
        for (uint32_t k = 0; max_cost >= 1 && k < c->alloc.len; k++) {
            uint32_t r = c->alloc.data[k];
            if (reg_home(a, r) && a->regs.content[r] == RAVEL_NONE && !(a->regs.rf[r] & (forbid | RF_TGT))) return r;
        }
    }
    for (uint32_t k = 0; k < c->alloc.len; k++) {
        uint32_t r = c->alloc.data[k];
        uint8_t fl = a->regs.rf[r];
        if ((fl & forbid) || !reg_home(a, r)) continue;
        bool shared = for_use && (fl & RF_TGT) && a->regs.tgt[r] == v;
        if (for_use && (fl & RF_TGT) && !(share_v && shared)) continue;
        uint32_t cost = shared ? 0 : take_cost(a, r, v, i);
        if (cost > max_cost) continue;
        if (a->random) {
            nacc++;
            if (cost == 0 && rv_rng_below(&a->rng, 2)) return r;
            if (rv_rng_below(&a->rng, nacc) == 0) best = r;
            continue;
        }
        if (cost < best_cost) {
            best = r;
            best_cost = cost;
            if (cost == 0) break;
        }
    }
    return best;
}

/* ---- one instruction ---- */

/* Step 1: clobbers, fixed uses and defs, reuse of fixed uses; conflicts
 * (the shared claims, claims.h, on this engine's flags). */
static void fx_clobber(void *ctx, uint32_t r) { touch(ctx, r, RF_CLOB); }
static void fx_use(void *ctx, uint32_t u, uint32_t r)
{
    fa *a = ctx;
    const rv_operand *o = &a->f->ops.data[a->cur_op0 + u];
    touch(a, r, rv_op_is_late(o) ? RF_TGT_L : RF_TGT_E);
    a->regs.tgt[r] = o->vreg;
    a->loc[a->cur_op0 + u] = r;
}
static void fx_def(void *ctx, uint32_t d, uint32_t r)
{
    fa *a = ctx;
    touch(a, r, rv_op_is_late(&a->f->ops.data[a->cur_op0 + d]) ? RF_DEF_L : RF_DEF_E);
    a->loc[a->cur_op0 + d] = r;
}
static uint8_t fx_flags(const void *ctx, uint32_t r)
{
    const fa *a = ctx;
    return (a->regs.rf[r] & RF_TOUCHED) ? a->regs.rf[r] : 0;
}
static uint32_t fx_target(const void *ctx, uint32_t r) { return ((const fa *)ctx)->regs.tgt[r]; }
static const uint32_t *fx_touched(const void *ctx, uint32_t *n)
{
    const fa *a = ctx;
    *n = a->regs.ntouched;
    return a->regs.touched;
}
static const rv_claim_ops fx_claims = {fx_clobber, fx_use, fx_def, fx_flags, fx_target, fx_touched};

/* The claim on a home h overlapping a part (a register that is not a home)
 * with claims pf: h's value is destroyed (clobbered, so rescued); a value
 * moved into the part before the instruction destroys h before it (h is
 * targeted early by no value: no use and no early def goes there, a late
 * def may); a def of the part is one of h (the overlap forms of the
 * constraint rules). */
static uint8_t overlap_claim(uint8_t pf)
{
    uint8_t c = RF_CLOB;
    if (pf & RF_TGT) c |= RF_TGT_E;
    return c | (pf & RF_DEF);
}

/* Step 1b, on a machine with containment: a register the instruction names
 * (a fixed operand, a clobber) that is not a home destroys what the homes
 * overlapping it hold (docs/format.md section 14.1): those homes get
 * overlap_claim. When the instruction also reads or writes such a home
 * itself, it is refused. */
static bool claim_overlaps(fa *a, uint32_t i)
{
    uint32_t nt = a->regs.ntouched;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t t = 0; t < nt; t++) {
            uint32_t r = a->regs.touched[t];
            uint8_t pf = a->regs.rf[r];
            const uint32_t *ov;
            uint32_t no = reg_home(a, r) ? 0 : rv_mach_overlaps(a->m, r, &ov);
            for (uint32_t k = 0; k < no; k++) {
                uint32_t h = ov[k];
                if (!reg_home(a, h)) continue;
                if (pass == 1) touch(a, h, overlap_claim(pf)); /* (touch leaves tgt[h] RAVEL_NONE on a first touch) */
                else if ((pf & (RF_TGT | RF_DEF)) && (a->regs.rf[h] & RF_TOUCHED) && (a->regs.rf[h] & (RF_TGT | RF_DEF)))
                    return fail(a, i, "unsatisfiable: the instruction names two registers that overlap", RAVEL_NONE);
            }
        }
    return true;
}

static bool claim_fixed(fa *a, uint32_t i, const rv_inst *in, const rv_operand *ops, uint32_t ukinds, uint32_t dkinds)
{
    bool sp_moving = (in->flags & RV_IF_SAFEPOINT) && !a->m->gc_nonmoving;
    bool uses = (ukinds & kinds_any(RAVEL_C_FIXED)) != 0;
    bool defs = (dkinds & (kinds_any(RAVEL_C_FIXED) | kinds_any(RAVEL_C_REUSE))) != 0;
    uint32_t bad;
    a->cur_op0 = in->first_op;
    rv_claim_error e = rv_claim_fixed(a->f, in, ops, sp_moving, uses, defs, &fx_claims, a, &bad);
    if (e != RV_CLAIM_OK) return fail(a, i, rv_claim_error_text(e), bad);
    return !a->alias || claim_overlaps(a, i);
}

/* Places use operand u (non-fixed). */
static bool place_use(fa *a, uint32_t i, const rv_inst *in, const rv_operand *ops, uint32_t u)
{
    const rv_operand *o = &ops[u];
    uint32_t v = o->vreg, opi = in->first_op + u;
    bool late = rv_op_is_late(o), sp_moving = (in->flags & RV_IF_SAFEPOINT) && !a->m->gc_nonmoving;
    uint32_t d = rv_reuser_of(in, ops, u);
    uint8_t kind = o->kind;
    if (d != RAVEL_NONE && kind == RAVEL_C_STACK) return fail(a, i, "unsatisfiable: reuse of a stack use", v);
    if (d != RAVEL_NONE && kind == RAVEL_C_ANY) kind = RAVEL_C_REG;
    if (d != RAVEL_NONE && late) return fail(a, i, "unsatisfiable: a def reuses a late use", v);
    if (late && sp_moving && vref(a, v) && kind == RAVEL_C_REG)
        return fail(a, i, "unsatisfiable: a .ref value is read from a register after a moving safepoint", v);
    uint8_t forbid = late ? (RF_DEF | RF_CLOB) : RF_DEF_E;
    if (d != RAVEL_NONE) forbid |= RF_DEF | RF_TGT_L;
    if (kind == RAVEL_C_ANY) {
        uint32_t h = a->vs[v].home;
        bool use_slot = late && sp_moving && vref(a, v);
        if (a->random && rv_rng_below(&a->rng, 3) == 0) use_slot = true;
        if (!use_slot && h != RAVEL_NONE) {
            uint8_t fl = (a->regs.rf[h] & RF_TOUCHED) ? a->regs.rf[h] : 0;
            if (!(fl & forbid) && (!(fl & RF_TGT) || a->regs.tgt[h] == v)) {
                touch(a, h, late ? RF_TGT_L : RF_TGT_E);
                a->regs.tgt[h] = v;
                a->loc[opi] = h;
                return true;
            }
        }
        kind = RAVEL_C_STACK;
    }
    if (kind == RAVEL_C_STACK) {
        if (!ensure_spilled(a, v, i)) return false;
        a->loc[opi] = ravel_slot(slot_of(a, v));
        return true;
    }
    uint32_t r = pick_reg(a, v, vcls(a, v), forbid, true, d == RAVEL_NONE, i, 3);
    if (r == RAVEL_NONE) return fail(a, i, "unsatisfiable: no register left for a use", v);
    touch(a, r, late ? RF_TGT_L : RF_TGT_E);
    a->regs.tgt[r] = v;
    a->loc[opi] = r;
    if (a->vs[v].tgt_stamp != i) {
        a->vs[v].tgt_stamp = i;
        a->vs[v].tgt_of = r;
    }
    if (d != RAVEL_NONE) {
        touch(a, r, rv_op_is_late(&ops[d]) ? RF_DEF_L : RF_DEF_E);
        a->loc[in->first_op + d] = r;
    }
    return true;
}

/* Places def operand d (not fixed, not reuse). */
static bool place_def(fa *a, uint32_t i, const rv_inst *in, const rv_operand *ops, uint32_t d)
{
    const rv_operand *o = &ops[d];
    uint32_t v = o->vreg, opi = in->first_op + d;
    bool early = rv_op_is_early(o);
    bool sp_ref = early && (in->flags & RV_IF_SAFEPOINT) && vref(a, v);
    uint8_t forbid = RF_DEF | RF_TGT_L | RF_SURV | (early ? RF_TGT_E : 0);
    uint8_t kind = o->kind;
    if (sp_ref && kind != RAVEL_C_STACK && kind != RAVEL_C_ANY && (a->vs[v].vflags & VF_USED))
        return fail(a, i, "unsatisfiable: an early .ref def in a register does not survive the safepoint", v);
    if (kind == RAVEL_C_ANY) {
        uint32_t r = RAVEL_NONE;
        if (!sp_ref && !(a->random && rv_rng_below(&a->rng, 3) == 0)) r = pick_reg(a, v, vcls(a, v), forbid, false, false, i, 1);
        if (r == RAVEL_NONE) kind = RAVEL_C_STACK;
    }
    if (kind == RAVEL_C_STACK) {
        a->loc[opi] = ravel_slot(slot_of(a, v));
        return true;
    }
    uint32_t r = pick_reg(a, v, vcls(a, v), forbid, false, false, i, 3);
    if (r == RAVEL_NONE) return fail(a, i, "unsatisfiable: no register left for a def", v);
    touch(a, r, early ? RF_DEF_E : RF_DEF_L);
    a->loc[opi] = r;
    return true;
}

/* Step 3: values held in registers that get overwritten (a def, a clobber,
 * another value moved in) and still needed afterwards are rescued to a
 * free register, or spilled. */
static bool rescue(fa *a, uint32_t i)
{
    uint32_t nt = a->regs.ntouched;
    for (uint32_t t = 0; t < nt; t++) {
        uint32_t r = a->regs.touched[t];
        uint32_t w = a->regs.content[r];
        uint8_t fl = a->regs.rf[r];
        if (w == RAVEL_NONE || !live_after(a, w, i) || (a->vs[w].vflags & VF_SLOT_VALID)) continue;
        if (!(fl & (RF_DEF | RF_CLOB)) && (!(fl & RF_TGT) || a->regs.tgt[r] == w)) continue;
        /* w also moved into an unharmed register for a use of this instruction? */
        uint32_t r2 = a->vs[w].tgt_stamp == i ? a->vs[w].tgt_of : RAVEL_NONE;
        if (r2 != RAVEL_NONE && !(a->regs.rf[r2] & (RF_DEF | RF_CLOB)) && reg_home(a, r2)) continue;
        uint32_t s = RAVEL_NONE;
        if (!(a->random && rv_rng_below(&a->rng, 2) == 0)) s = pick_reg(a, w, vcls(a, w), 0xff & ~RF_TOUCHED, false, false, i, 1);
        if (s != RAVEL_NONE && a->regs.content[s] != RAVEL_NONE && live_after(a, a->regs.content[s], i)) s = RAVEL_NONE;
        if (s != RAVEL_NONE) {
            touch(a, s, RF_SURV);
            a->regs.tgt[s] = w;
            a->vs[w].tgt_stamp = i;
            a->vs[w].tgt_of = s;
            if (a->opts && a->opts->trace) rv_alloc_trace(a->opts, a->name, "evict v%u from reg %u to reg %u at inst %u", a->f->vregs.data[w].num, r, s, i);
        } else if (!ensure_spilled(a, w, i)) {
            return false;
        }
    }
    return true;
}

/* A move into a part r (a register that is not a home and overlaps one)
 * writes r after the parallel move, from a slot: the write destroys the
 * homes overlapping r, which the parallel move may still read (their values
 * were rescued by claim_overlaps). A value in a register is stored first
 * into a fresh slot, within the parallel move, so that it is read before
 * any of the moves writes its register. */
static void part_move(fa *a, uint32_t r, ravel_loc src, uint32_t cls)
{
    if (!ravel_loc_is_slot(src)) {
        ravel_loc tmp = ravel_slot(a->next_slot++);
        add_move(a, tmp, src, cls);
        src = tmp;
    }
    rv_move mv = {r, src, cls};
    rv_vec_push(a->part_moves, mv);
}

/* The part moves of the instruction, after its parallel move. */
static void part_moves_out(fa *a, uint32_t i)
{
    for (uint32_t k = 0; k < a->part_moves.len; k++)
        rv_out_edit(&a->out, rv_anchor_before(i), RAVEL_OP_RELOAD, a->part_moves.data[k].dst, a->part_moves.data[k].src);
    a->part_moves.len = 0;
}

/* Step 4: the parallel move before the instruction. */
static bool shuffle(fa *a, uint32_t i)
{
    for (uint32_t t = 0; t < a->regs.ntouched; t++) {
        uint32_t r = a->regs.touched[t];
        uint32_t v = a->regs.tgt[r];
        if (!(a->regs.rf[r] & RF_TGT) || v == RAVEL_NONE || a->regs.content[r] == v) continue;
        ravel_loc src = cur_loc(a, v);
        if (src == RAVEL_LOC_NONE) return fail(a, i, "internal error: a used value has no location", v);
        if (a->alias && !reg_home(a, r) && rv_alloc_reg_overlaps(a->m, r)) { /* see part_move */
            part_move(a, r, src, vcls(a, v));
            continue;
        }
        add_move(a, r, src, vcls(a, v));
        if (a->opts && a->opts->trace)
            rv_alloc_trace(a->opts, a->name, "%s v%u into %s before inst %u", ravel_loc_is_slot(src) ? "reload" : "move",
                           a->f->vregs.data[v].num, a->m->regs.data[r].name, i);
    }
    if (!a->moves.len) return true;
    if (a->moves.len == 1 && rv_edit_kind(a->moves.data[0].dst, a->moves.data[0].src) != RAVEL_OP_OTHER) {
        rv_out_copy(&a->out, rv_anchor_before(i), a->moves.data[0].dst, a->moves.data[0].src); /* the most common case */
        return true;
    }
    if (rv_pmove_simple(&a->pm, a->moves.data, a->moves.len)) { /* the common case: no cycle, no scratch needed */
        rv_out_edits(&a->out, rv_anchor_before(i), &a->pm);
        return true;
    }
    /* scratch: allocatable registers not touched and holding nothing */
    uint32_t nw = rv_bs_words(a->nregs);
    memset(a->regs.scratch_bs, 0, nw * sizeof(uint64_t));
    for (uint32_t r = 0; r < a->nregs; r++)
        if (reg_home(a, r) && a->regs.content[r] == RAVEL_NONE && !(a->regs.rf[r] & RF_TOUCHED)) rv_bs_set(a->regs.scratch_bs, r);
    a->scratch_used = 0;
    if (rv_pmove_resolve(&a->pm, a->m, a->moves.data, a->moves.len, a->regs.scratch_bs, new_scratch_slot, a) != RAVEL_OK)
        return fail(a, i, "internal error: conflicting moves", RAVEL_NONE);
    rv_out_edits(&a->out, rv_anchor_before(i), &a->pm);
    return true;
}

/* Step 5: register state after the instruction. */
static void update_state(fa *a, uint32_t i, const rv_inst *in, const rv_operand *ops)
{
    bool sp = (in->flags & RV_IF_SAFEPOINT) != 0;
    /* pass 1: registers overwritten or given another value lose their content */
    for (uint32_t t = 0; t < a->regs.ntouched; t++) {
        uint32_t r = a->regs.touched[t];
        uint8_t fl = a->regs.rf[r];
        bool keeps = (fl & RF_TGT) && !(fl & (RF_DEF | RF_CLOB)) && a->regs.tgt[r] == a->regs.content[r];
        if (!keeps && a->regs.content[r] != RAVEL_NONE) set_content(a, r, RAVEL_NONE);
    }
    /* pass 2: a value moved into an unharmed register lives there unless it
     * still has a home (reserved registers are never homes) */
    for (uint32_t t = 0; t < a->regs.ntouched; t++) {
        uint32_t r = a->regs.touched[t];
        uint8_t fl = a->regs.rf[r];
        uint32_t v = a->regs.tgt[r];
        if (!(fl & RF_TGT) || (fl & (RF_DEF | RF_CLOB)) || v == RAVEL_NONE || !reg_home(a, r)) continue;
        if (a->vs[v].home == RAVEL_NONE) set_content(a, r, v);
    }
    /* values whose home survived but were only copies elsewhere are fine;
     * dying values are forgotten */
    for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++) {
        uint32_t v = ops[u].vreg;
        if (!live_after(a, v, i) && a->vs[v].home != RAVEL_NONE) set_content(a, a->vs[v].home, RAVEL_NONE);
    }
    if (sp)
        for (uint32_t r = 0; r < a->nregs; r++)
            if (a->regs.content[r] != RAVEL_NONE && vref(a, a->regs.content[r])) set_content(a, r, RAVEL_NONE);
}

/* Step 6: defs land; global defs are spilled, dead ones forgotten, defs in
 * reserved registers moved to a free register or spilled. */
static void land_defs(fa *a, uint32_t i, const rv_inst *in, const rv_operand *ops)
{
    for (uint32_t d = 0; d < in->ndefs; d++) {
        uint32_t v = ops[d].vreg, opi = in->first_op + d;
        ravel_loc l = a->loc[opi];
        bool used_later = a->live_after[opi];
        if (a->opts && a->opts->trace) {
            char buf[32];
            rv_alloc_trace(a->opts, a->name, "allocate v%u to %s at inst %u", a->f->vregs.data[v].num, rv_loc_str(a->m, l, buf), i);
        }
        bool global = (a->vs[v].vflags & VF_GLOBAL) != 0;
        if (ravel_loc_is_slot(l)) {
            a->vs[v].vflags |= VF_SLOT_VALID;
            continue;
        }
        if (global) {
            rv_out_edit(&a->out, rv_anchor_after(i), RAVEL_OP_SPILL, ravel_slot(slot_of(a, v)), l);
            a->vs[v].vflags |= VF_SLOT_VALID;
        }
        if (!used_later) continue;
        if (reg_home(a, l)) {
            set_content(a, l, v);
            continue;
        }
        uint32_t r = pick_reg(a, v, vcls(a, v), 0xff & ~RF_TOUCHED, false, false, i, 1);
        if (r != RAVEL_NONE && a->regs.content[r] == RAVEL_NONE) {
            rv_out_edit(&a->out, rv_anchor_after(i), RAVEL_OP_MOVE, r, l);
            set_content(a, r, v);
        } else if (!global) {
            rv_out_edit(&a->out, rv_anchor_after(i), RAVEL_OP_SPILL, ravel_slot(slot_of(a, v)), l);
            a->vs[v].vflags |= VF_SLOT_VALID;
        }
    }
}

/* The stackmap of safepoint i: slots of the refs live across it and of the
 * early .ref defs placed in slots. Spills them first if needed. */
static bool safepoint(fa *a, uint32_t i, const rv_inst *in, const rv_operand *ops)
{
    a->smap.len = 0;
    if (a->sp.first)
        for (uint32_t k = a->sp.first[i]; k < a->sp.first[i] + a->sp.n[i]; k++) {
            uint32_t v = a->sp.list.data[k];
            if (!ensure_spilled(a, v, i)) return false;
            rv_vec_push(a->smap, a->vs[v].slot);
        }
    for (uint32_t d = 0; d < in->ndefs; d++) {
        ravel_loc l = a->loc[in->first_op + d];
        if (!rv_op_is_early(&ops[d]) || !vref(a, ops[d].vreg)) continue;
        if (ravel_loc_is_slot(l)) rv_vec_push(a->smap, ravel_loc_slot(l));
        else if (a->vs[ops[d].vreg].vflags & VF_USED)
            return fail(a, i, "unsatisfiable: an early .ref def in a register does not survive the safepoint", ops[d].vreg);
    }
    rv_out_stackmap(&a->out, i, a->smap.data, a->smap.len);
    return true;
}

/* Random mode: a gratuitous move, spill, drop (reloaded on demand) or round
 * trip through a reserved register of one register's value. */
static void random_noise(fa *a, uint32_t i)
{
    if (rv_rng_below(&a->rng, 4) != 0 || a->nregs == 0) return;
    uint32_t r = rv_rng_below(&a->rng, a->nregs), v = a->regs.content[r];
    if (v == RAVEL_NONE || !reg_home(a, r)) return;
    uint32_t what = rv_rng_below(&a->rng, 4);
    if (what == 3) { /* a round trip through a reserved register of the class, if any */
        for (uint32_t t = 0; t < a->nregs; t++)
            if (reg_reserved(a, t) && a->m->regs.data[t].cls == vcls(a, v) && !rv_alloc_reg_overlaps(a->m, t)) {
                rv_out_edit(&a->out, rv_anchor_before(i), RAVEL_OP_MOVE, t, r);
                rv_out_edit(&a->out, rv_anchor_before(i), RAVEL_OP_MOVE, r, t);
                break;
            }
        return;
    }
    if (what == 0) { /* move to an empty register of the class */
        const rv_class *c = &a->m->classes.data[vcls(a, v)];
        uint32_t s = c->alloc.data[rv_rng_below(&a->rng, c->alloc.len)];
        if (a->regs.content[s] != RAVEL_NONE || !reg_home(a, s)) return;
        rv_out_edit(&a->out, rv_anchor_before(i), RAVEL_OP_MOVE, s, r);
        set_content(a, r, RAVEL_NONE);
        set_content(a, s, v);
        return;
    }
    if (!(a->vs[v].vflags & VF_SLOT_VALID)) {
        rv_out_edit(&a->out, rv_anchor_before(i), RAVEL_OP_SPILL, ravel_slot(slot_of(a, v)), r);
        a->vs[v].vflags |= VF_SLOT_VALID;
    }
    if (what == 2) set_content(a, r, RAVEL_NONE); /* drop: reloaded on demand */
}

bool rv_fast_inst(fa *a, uint32_t i)
{
    const rv_inst *in = rv_inst_at(a->f, i);
    const rv_operand *ops = rv_ops_of(a->f, in);
    uint32_t nd = in->ndefs, nops = nd + in->nuses;
    if (a->random) random_noise(a, i);
    a->moves.len = 0;
    a->regs.ntouched = 0;
    /* which constraint kinds occur at which position among the uses / defs:
     * the steps below skip the absent ones (most instructions have one or
     * two) */
    uint32_t ukinds = 0, dkinds = 0;
    for (uint32_t d = 0; d < nd; d++) dkinds |= kind_bit(&ops[d]);
    for (uint32_t u = nd; u < nops; u++) {
        if (!a->live_after[in->first_op + u]) a->vs[ops[u].vreg].kill_at = i;
        ukinds |= kind_bit(&ops[u]);
    }
    bool reuse = (dkinds & kinds_any(RAVEL_C_REUSE)) != 0; /* else rv_reuser_of() is always RAVEL_NONE */
    bool ok = claim_fixed(a, i, in, ops, ukinds, dkinds);
    /* register uses (late first: they avoid every def), then register
     * defs (early first), then the flexible any/stack operands */
    for (int late = 1; late >= 0; late--)
        for (uint32_t u = nd; ok && u < nops && (ukinds & kinds_at(RAVEL_C_REG, late)); u++)
            if (ops[u].kind == RAVEL_C_REG && rv_op_is_late(&ops[u]) == (late != 0)) ok = place_use(a, i, in, ops, u);
    for (uint32_t u = nd; ok && u < nops && (ukinds & kinds_any(RAVEL_C_FIXED)); u++) /* fixed uses: remember the target for rescue */
        if (ops[u].kind == RAVEL_C_FIXED && reg_home(a, ops[u].arg) && a->vs[ops[u].vreg].tgt_stamp != i) {
            a->vs[ops[u].vreg].tgt_stamp = i;
            a->vs[ops[u].vreg].tgt_of = ops[u].arg;
        }
    for (uint32_t u = nd; ok && reuse && u < nops && (ukinds & kinds_any(RAVEL_C_ANY)); u++) /* uses reused by a def need a register now */
        if (ops[u].kind == RAVEL_C_ANY && rv_reuser_of(in, ops, u) != RAVEL_NONE) ok = place_use(a, i, in, ops, u);
    for (int late = 0; late < 2; late++)
        for (uint32_t d = 0; ok && d < nd && (dkinds & kinds_at(RAVEL_C_REG, late)); d++)
            if (ops[d].kind == RAVEL_C_REG && rv_op_is_late(&ops[d]) == (late != 0)) ok = place_def(a, i, in, ops, d);
    for (int late = 1; late >= 0; late--)
        for (uint32_t u = nd; ok && u < nops && (ukinds & (kinds_at(RAVEL_C_STACK, late) | kinds_at(RAVEL_C_ANY, late))); u++)
            if ((ops[u].kind == RAVEL_C_STACK || (ops[u].kind == RAVEL_C_ANY && (!reuse || rv_reuser_of(in, ops, u) == RAVEL_NONE))) &&
                rv_op_is_late(&ops[u]) == (late != 0))
                ok = place_use(a, i, in, ops, u);
    for (uint32_t d = 0; ok && d < nd && (dkinds & (kinds_any(RAVEL_C_STACK) | kinds_any(RAVEL_C_ANY))); d++)
        if (ops[d].kind == RAVEL_C_ANY || ops[d].kind == RAVEL_C_STACK) ok = place_def(a, i, in, ops, d);
    for (uint32_t d = 0; ok && reuse && d < nd; d++) /* other defs are placed by now */
        if (a->loc[in->first_op + d] == RAVEL_LOC_NONE) ok = fail(a, i, "unsatisfiable: bad reuse", ops[d].vreg);
    if (ok && (in->flags & RV_IF_SAFEPOINT)) ok = safepoint(a, i, in, ops);
    if (ok) ok = rescue(a, i);
    a->part_moves.len = 0;
    if (ok) ok = shuffle(a, i);
    if (ok) part_moves_out(a, i);
    if (ok) {
        update_state(a, i, in, ops);
        land_defs(a, i, in, ops);
    }
    for (uint32_t t = 0; t < a->regs.ntouched; t++) a->regs.rf[a->regs.touched[t]] = 0;
    a->regs.ntouched = 0;
    return ok;
}

