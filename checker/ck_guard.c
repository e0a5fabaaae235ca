/* ck_guard.c - the structural guard: bad input that would make the
 * analysis unsafe -> RAVEL_EINVAL (docs/format.md section 6 assumes a
 * well-formed function).
 * Requires nothing of f beyond the builder's guarantees. Guarantees, when
 * it passes: every index in range, every block ends in its one terminator,
 * successors exist, every vreg read is defined somewhere. It also flags
 * (*suspect) every condition under which ravel_validate (without SSA) may
 * answer RAVEL_EINVAL - a superset, checked in the same O(function) pass -
 * so ravel_check runs the full validator only for suspect input (to give
 * its verdict and its messages) and the verdicts stay those of the
 * validator. The guard of the allocated function writes ck->facts for the
 * phases after it (ck.h), and is fused with the rules' operand scan: it
 * lists the instructions on which a rule may fire (ck->facts.rtodo) and
 * ck_rules (ck_rules.c) visits only those.
 * This file: the pass (the blocks in layout order) and its fast path;
 * ck_guard_inst.c: the guard's reference, every check of an instruction.
 *
 * The fast path.
 * Most instructions are edits or plain operations whose operands sit in
 * registers or slots of the right kind. For those the guard does its work
 * and at the same time decides whether the instruction is *clean*: no rule
 * of rule_edit, rule_operand, rule_overlap or the stackmap rule can fire on
 * it. Clean instructions are not visited again; the others go to ck->facts.rtodo
 * (when ck->guard.grecord), and ck_rules runs on that list only.
 * Three levels, each handing what it does not know to the next (which
 * repeats the work: definitions, reads, slots and suspicion are
 * idempotent, and nothing fails before the last level):
 *   guard_insts     the loop; usual edits inline
 *   guard_plain     a usual operation (a leaf, so that it keeps everything
 *                   in registers): every operand a register of its class
 *                   that its constraint allows, or any/stack in a slot
 *   guard_plain_any any operation: every kind, attributes, overlaps
 *   guard_inst      everything (ck_guard_inst.c: the guard's reference; its
 *                   failures and messages are the only ones)
 * Locations: the guard notes every slot the function names (maxslot), so
 * for the function guarded a slot location exists (ck_li != CK_NIL once
 * nlocs is set) iff its number is <= RAVEL_MAX_SLOT (slot_ok), and a
 * register location iff it is < nregs. CK_OPT_NO_FAST_GUARD turns the
 * fast path off (tests compare). */
#include "ck_guard.h"

#include <string.h>

/* Slot location l names a slot the guard accepts (also: not RAVEL_LOC_NONE). */
static inline bool slot_ok(ravel_loc l) { return l - RAVEL_SLOT_BIT <= RAVEL_MAX_SLOT; }

/* 1 + the slot number of l if it is a slot the guard accepts, else 0. */
static inline uint32_t slot_end(ravel_loc l) { return slot_ok(l) ? l - RAVEL_SLOT_BIT + 1 : 0; }

static inline uint32_t max_u32(uint32_t a, uint32_t b) { return a > b ? a : b; }

/* Register l may hold a value of class cls without fixed(R): rk covers
 * the machine's registers (x->nregs: only those entries are written), and
 * rk[l] == cls implies that cls is a valid class. */
static inline bool reg_fits(const gfast *x, ravel_loc l, uint32_t cls) { return l < x->nregs && x->rk[l] == cls; }

/* The usual operand: a register of its vreg's class that its constraint
 * allows without looking further (reg or any: not reserved; fixed: the
 * register named). */
static inline bool op_usual(const gfast *x, const rv_operand *op, uint32_t cls)
{
    ravel_loc l = op->loc;
    if (op->kind <= RAVEL_C_ANY) return reg_fits(x, l, cls);
    return op->kind == RAVEL_C_FIXED && l == op->arg && l < x->nregs && (x->rk[l] & ~RK_RESERVED) == cls;
}

/* Any other operand op (a def if isdef; uses[0..nuses) the instruction's
 * uses) of vreg class cls: G_SLOW when some check of guard_operands may
 * fail on it; else G_CLEAN if operand_clean holds, else G_UNCLEAN, with
 * its slot (G_SLOTS). */
static uint32_t op_other(const gfast *x, const rv_operand *op, const rv_operand *uses, uint32_t nuses, bool isdef, uint32_t cls)
{
    ravel_loc l = op->loc;
    bool c;
    if (cls >= x->ncls) return G_SLOW;
    switch (op->kind) {
    case RAVEL_C_REG: c = reg_fits(x, l, cls); break;
    case RAVEL_C_ANY: c = reg_fits(x, l, cls) || slot_ok(l); break;
    case RAVEL_C_STACK: c = slot_ok(l); break;
    case RAVEL_C_FIXED:
        if (op->arg >= x->nregs || (x->rk[op->arg] & ~RK_RESERVED) != cls) return G_SLOW;
        c = l == op->arg;
        break;
    case RAVEL_C_REUSE: {
        if (!isdef || !(op->flags & RV_OPF_DEF) || op->arg >= nuses) return G_SLOW;
        const rv_operand *u = &uses[op->arg];
        if (u->vreg >= x->nvregs || x->vregs[u->vreg].cls != cls) return G_SLOW;
        c = reg_fits(x, l, cls) && u->loc == l;
        break;
    }
    default: return G_SLOW;
    }
    return (c ? G_CLEAN : G_UNCLEAN) | slot_end(l) << G_SLOTS;
}

/* The rarer parts of a plain instruction: a copy's shape, and the
 * attributes (guard_inst's checks after the operands), in the form of
 * guard_plain's result (a safepoint without a stackmap is not clean: its
 * rule fires). */
static uint32_t inst_other(const gfast *x, const rv_inst *in)
{
    unsigned fl = in->flags;
    uint32_t r = G_CLEAN, end = 0;
    if (in->op == RAVEL_OP_COPY && (in->ndefs != 1 || in->nuses != 1 || in->nimms)) return G_SLOW;
    if (fl & RV_IF_CLOBBERS) {
        if ((uint64_t)in->first_clob + in->nclob > x->nu32) return G_SLOW;
        for (uint32_t k = 0; k < in->nclob; k++)
            if (x->u32[in->first_clob + k] >= x->nregs) return G_SLOW;
    }
    if (fl & RV_IF_STACKMAP) {
        if ((uint64_t)in->u.smap.first + in->u.smap.n > x->nu32) return G_SLOW;
        for (uint32_t k = 0; k < in->u.smap.n; k++) {
            uint32_t sl = x->u32[in->u.smap.first + k];
            if (sl > RAVEL_MAX_SLOT) return G_SLOW;
            end = max_u32(end, sl + 1);
        }
        if (!(fl & RV_IF_SAFEPOINT)) r |= G_SUSPECT;
    } else if (fl & RV_IF_SAFEPOINT) {
        r = G_UNCLEAN;
    }
    return r | end << G_SLOTS;
}

/* Def d shares its location with no def before it (from o). */
static bool no_def_overlap(const rv_operand *o, const rv_operand *d)
{
    for (const rv_operand *p = o; p < d; p++)
        if (p->loc == d->loc) return false;
    return true;
}

/* Use r shares its location with no def of o..u that is early, or at all
 * if r is late. */
static bool no_use_overlap(const rv_operand *o, const rv_operand *u, const rv_operand *r)
{
    for (const rv_operand *p = o; p < u; p++)
        if (p->loc == r->loc && (rv_op_is_early(p) || rv_op_is_late(r))) return false;
    return true;
}

/* guard_plain for any operation: every operand kind, attributes, reads
 * not yet defined, overlaps. The overlap rules compare locations only
 * where a 64-bit filter of the defs' locations says they may be equal. */
static uint32_t guard_plain_any(const gfast *x, const rv_inst *in)
{
    uint32_t nd = in->ndefs, nu = in->nuses, res = G_CLEAN, slots = 0;
    if ((uint64_t)in->first_op + nd + nu > x->nops || (uint64_t)in->first_imm + in->nimms > x->nimms) return G_SLOW;
    if (in->flags || in->op == RAVEL_OP_COPY) {
        res = inst_other(x, in);
        if (!(res & G_STATUS)) return G_SLOW;
    }
    if (!(nd | nu)) return res;
    const rv_vreg *vregs = x->vregs;
    uint16_t *gdef = x->gdef;
    uint32_t noted = x->ck->guard.gnfast == in ? x->ck->guard.gnfast_k : 0; /* defs plain_ops noted before giving up */
    x->ck->guard.gnfast = NULL;
    uint32_t nvregs = x->nvregs, clean = (res & G_STATUS) == G_CLEAN;
    const rv_operand *o = x->ops + in->first_op, *u = o + nd, *e = u + nu;
    uint64_t dmask = 0;
    for (const rv_operand *d = o; d < u; d++) {
        uint32_t v = d->vreg;
        if (v >= nvregs || !vregs[v].has_class) return G_SLOW;
        uint32_t cls = vregs[v].cls;
        if (!op_usual(x, d, cls)) {
            uint32_t r = op_other(x, d, u, nu, true, cls);
            if (!(r & G_STATUS)) return G_SLOW;
            clean &= (r & G_STATUS) == G_CLEAN;
            slots = max_u32(slots, r >> G_SLOTS);
        }
        gdef[v] |= GV_DEF;
        if (x->ck->guard.grecord) gn_note_def(x->ck, v, x->b, (uint32_t)(d - o) < noted);
        uint64_t bit = 1ull << (d->loc & 63);
        if ((dmask & bit) && !no_def_overlap(o, d)) clean = 0; /* def-overlap */
        dmask |= bit;
    }
    for (const rv_operand *r = u; r < e; r++) {
        uint32_t v = r->vreg;
        if (v >= nvregs || !vregs[v].has_class) return G_SLOW;
        uint32_t cls = vregs[v].cls;
        if (!op_usual(x, r, cls)) {
            uint32_t q = op_other(x, r, u, nu, false, cls);
            if (!(q & G_STATUS)) return G_SLOW;
            clean &= (q & G_STATUS) == G_CLEAN;
            slots = max_u32(slots, q >> G_SLOTS);
        }
        if (!(gdef[v] & GV_DEF)) rv_vec_push(x->ck->guard.gpend, v);
        if (in->op == RAVEL_OP_COPY) gn_chain(x->ck, v);
        if (((dmask >> (r->loc & 63)) & 1) && !no_use_overlap(o, u, r)) clean = 0; /* early-def-overlap, late-use-overwritten */
    }
    return (clean ? G_CLEAN : G_UNCLEAN) | (res & G_SUSPECT) | max_u32(slots, res >> G_SLOTS) << G_SLOTS;
}

/* An instruction the fast path did not finish (r: G_SLOW, G_UNCLEAN, or
 * G_ANY for an operation guard_plain_any must look at): its guard, and the
 * rules' list. False if the guard failed. */
static bool guard_inst_rare(const gfast *x, const rv_inst *in, uint32_t r)
{
    guard *g = x->g;
    if (r == G_ANY) {
        r = guard_plain_any(x, in);
        g->maxslot = max_u32(g->maxslot, r >> G_SLOTS);
        if (r & G_SUSPECT) g->suspect = true;
        if ((r & G_STATUS) == G_CLEAN) return true;
    }
    return ck_gd_inst_other(g, x->b, in, false, (r & G_STATUS) == G_SLOW);
}

/* An operand without a location in the original function (x->noloc) of
 * class cls: what guard_operands asks of its constraint. */
static bool op_noloc(const gfast *x, const rv_operand *p, uint32_t cls)
{
    if (!x->noloc) return false;
    if (p->kind <= RAVEL_C_STACK) return cls < x->ncls;
    return p->kind == RAVEL_C_FIXED && p->arg < x->nregs && (x->rk[p->arg] & ~RK_RESERVED) == cls;
}

/* One usual operand (not reuse): a register that fits, or any/stack in a
 * slot (raising *top), or (x->noloc) no location. Sets *w to gdef of its
 * vreg. */
static inline bool op_fast(const gfast *x, const rv_operand *p, ravel_loc *top, uint32_t *w)
{
    uint32_t v = p->vreg, kind = p->kind;
    ravel_loc l = p->loc;
    if (v >= x->nvregs) return false;
    uint32_t cls = (*w = x->gdef[v]) & 0xff;
    if (l < x->nregs)
        return kind <= RAVEL_C_ANY ? x->rk[l] == cls : kind == RAVEL_C_FIXED && l == p->arg && (x->rk[l] & ~RK_RESERVED) == cls;
    if (l == RAVEL_LOC_NONE) return op_noloc(x, p, cls);
    if (!slot_ok(l) || (kind != RAVEL_C_ANY && kind != RAVEL_C_STACK) || cls >= x->ncls) return false;
    *top = l > *top ? l : *top;
    return true;
}

/* A usual reuse(K) def p (uses u[0..nu)): K in range, the use in the same
 * register, which fits, and of the same class (or, x->noloc, both without
 * a location). Sets *w as op_fast. */
static inline bool reuse_fast(const gfast *x, const rv_operand *p, const rv_operand *u, uint32_t nu, uint32_t *w)
{
    uint32_t v = p->vreg;
    ravel_loc l = p->loc;
    if (p->kind != RAVEL_C_REUSE || !(p->flags & RV_OPF_DEF) || p->arg >= nu || v >= x->nvregs) return false;
    uint32_t cls = (*w = x->gdef[v]) & 0xff;
    const rv_operand *q = &u[p->arg];
    if (l == RAVEL_LOC_NONE)
        return x->noloc && cls < x->ncls && q->vreg < x->nvregs && (x->gdef[q->vreg] & 0xff) == cls;
    return l < x->nregs && x->rk[l] == cls && q->loc == l && q->vreg < x->nvregs && (x->gdef[q->vreg] & 0xff) == cls;
}

/* The operands of operation in (in range, at least one) when all are
 * usual: registers that fit, any/stack in a slot, reads of vregs defined
 * before, no overlap that matters. Returns G_CLEAN (raising *top to the
 * highest slot location named) with guard_operands' work done, or G_ANY
 * (work possibly half done) when guard_plain_any must look. Calls
 * nothing. A 64-bit filter of the defs' locations tells where the
 * overlap rules need a comparison. */
static inline __attribute__((always_inline)) uint32_t plain_ops(const gfast *x, const rv_inst *in, ravel_loc *top)
{
    const rv_operand *o = x->ops + in->first_op, *u = o + in->ndefs, *e = u + in->nuses;
    uint64_t dmask = 0;
    uint32_t w;
    /* giving up after noting the first k defs: guard_plain_any notes them again, not as GN_MULTI */
#define GIVE_UP(k)                       \
    do {                                 \
        x->ck->guard.gnfast = in;              \
        x->ck->guard.gnfast_k = (uint32_t)(k); \
        return G_ANY;                    \
    } while (0)
    for (const rv_operand *p = o; p < u; p++) { /* defs */
        if (!op_fast(x, p, top, &w) && !reuse_fast(x, p, u, in->nuses, &w)) GIVE_UP(p - o);
        x->gdef[p->vreg] = (uint16_t)(w | GV_DEF);
        if (x->record) gn_def_rec(x->ck, p->vreg, x->b);
        uint64_t bit = (uint64_t)(p->loc != RAVEL_LOC_NONE) << (p->loc & 63); /* (none: x->noloc, no overlap) */
        if (dmask & bit) GIVE_UP(p - o + 1); /* maybe a def-overlap */
        dmask |= bit;
    }
    if (in->op == RAVEL_OP_COPY && u < e && u->vreg < x->nvregs) gn_chain(x->ck, u->vreg); /* a copy's source */
    for (const rv_operand *p = u; p < e; p++) { /* uses */
        if (!op_fast(x, p, top, &w) || !(w & GV_DEF)) GIVE_UP(u - o);
        if ((dmask >> (p->loc & 63)) & 1) /* early-def-overlap, late-use-overwritten? */
            for (const rv_operand *q = o; q < u; q++)
                if (q->loc == p->loc && (rv_op_is_early(q) || rv_op_is_late(p))) GIVE_UP(u - o);
    }
#undef GIVE_UP
    return G_CLEAN;
}

/* The fast path of an operation (not an edit, not a terminator) that is
 * not its block's last instruction: G_CLEAN (guard_inst's work done, no
 * rule can fire), G_SLOW (guard_inst must look), or G_ANY (guard_plain_any
 * must look: attributes other than clobbers, anything unusual). */
static inline uint32_t guard_plain(const gfast *x, const rv_inst *in, ravel_loc *top)
{
    uint32_t nd = in->ndefs, nu = in->nuses, fl = in->flags;
    if ((fl & ~RV_IF_CLOBBERS) || (in->op == RAVEL_OP_COPY && (nd != 1 || nu != 1 || in->nimms))) return G_ANY;
    if ((uint64_t)in->first_op + nd + nu > x->nops || (uint64_t)in->first_imm + in->nimms > x->nimms) return G_SLOW;
    if (fl) { /* clobbers only */
        if ((uint64_t)in->first_clob + in->nclob > x->nu32) return G_SLOW;
        for (uint32_t k = 0; k < in->nclob; k++)
            if (x->u32[in->first_clob + k] >= x->nregs) return G_SLOW;
    }
    return nd | nu ? plain_ops(x, in, top) : G_CLEAN;
}

/* The usual instructions from in on, before last: returns the first one
 * the fast path does not finish (or last), with *res what it found there
 * (G_SLOW, G_ANY or G_UNCLEAN), raising *top to the highest slot location
 * seen. A leaf that calls nothing, so that its loops keep everything in
 * registers. */
static __attribute__((noinline)) const rv_inst *guard_run(const gfast *x, const rv_inst *in, const rv_inst *last,
                                                         ravel_loc *top, uint32_t *res)
{
    ravel_loc t = *top;
    uint32_t r = G_SLOW, nregs = x->nregs;
    for (; in < last; in++) {
        CK_PREFETCH_AHEAD(in, 12); /* the instruction stream (44-byte records): measured -4% at 10^6 */
        uint32_t op = in->op;
        r = G_SLOW;
        if (op >= RAVEL_OP_SPILL) { /* an edit (or a bad opcode), without a branch on its kind */
            ravel_loc d = in->u.edit.dst, s = in->u.edit.src;
            uint32_t dk = (uint32_t)(d < nregs) | (uint32_t)slot_ok(d) << 1; /* 1: register, 2: slot, 0: neither */
            uint32_t sk = (uint32_t)(s < nregs) | (uint32_t)slot_ok(s) << 1;
            uint32_t e = op - RAVEL_OP_SPILL; /* spill: slot <- register (9), reload (6), move (5) */
            uint32_t want = e < 3 ? (0x569u >> (4 * e)) & 15u : 16u; /* (never a remat or an undef: ck_gd_inst_other notes those) */
            if ((dk << 2 | sk) != want) break;
            ravel_loc hi = max_u32(d & (0u - (dk >> 1)), s & (0u - (sk >> 1))); /* the slot named, else 0 */
            t = max_u32(t, hi);
            continue;
        }
        if (op >= RAVEL_OP_JUMP) break; /* a terminator before the block's end */
        r = guard_plain(x, in, &t); /* an operation */
        if (r != G_CLEAN) break;
    }
    *top = t;
    *res = r;
    return in;
}

/* Successor s of a terminator when guard_inst finds nothing wrong with it
 * and guard_term_shape nothing suspect: the target exists and is not the
 * entry, its parameters and the arguments match in number, lie in range
 * and in class (each argument has a class; a parameter with one has the
 * same, and the same .ref). */
static bool succ_usual(const gfast *x, const ravel_func *f, const rv_succ *s)
{
    if (s->block == 0 || s->block >= f->layout.len || s->block >= f->blocks.len) return false;
    const rv_block *t = &f->blocks.data[s->block];
    if (s->nargs != t->nparams || (uint64_t)s->first_arg + s->nargs > x->nu32 || (uint64_t)t->first_param + t->nparams > x->nu32)
        return false;
    for (uint32_t a = 0; a < s->nargs; a++) {
        uint32_t v = x->u32[s->first_arg + a], p = x->u32[t->first_param + a];
        if (v >= x->nvregs || p >= x->nvregs) return false;
        const rv_vreg *va = &x->vregs[v], *vp = &x->vregs[p];
        if (!va->has_class || (vp->has_class && (va->cls != vp->cls || va->ref != vp->ref))) return false;
    }
    return true;
}

/* The fast path of block b's terminator: G_CLEAN or G_UNCLEAN with
 * guard_inst's work done (guard_term_shape's counts of in-edges and reads
 * of the arguments, done last: they are not idempotent), or G_SLOW with
 * nothing done that guard_inst would not repeat harmlessly. */
static uint32_t guard_term(const gfast *x, const rv_inst *in, ravel_loc *top)
{
    const ravel_func *f = x->g->f;
    uint32_t nd = in->ndefs, nu = in->nuses, ns = rv_inst_nsuccs(in), r = G_CLEAN;
    if (in->flags || nd || (in->op == RAVEL_OP_JUMP && (ns != 1 || nu || in->nimms)) ||
        (in->op == RAVEL_OP_BR && (ns < 2 || in->nimms || nu > 1)))
        return G_SLOW;
    if ((uint64_t)in->first_op + nu > x->nops || (uint64_t)in->first_imm + in->nimms > x->nimms) return G_SLOW;
    if ((uint64_t)in->u.succ.first + ns > f->succs.len) return G_SLOW;
    const rv_succ *succ = ns ? rv_inst_succs(f, in) : NULL;
    for (uint32_t k = 0; k < ns; k++)
        if (!succ_usual(x, f, &succ[k])) return G_SLOW;
    if (nu) {
        r = plain_ops(x, in, top);
        if (r == G_ANY) return G_SLOW;
    }
    ravel_checker *ck = x->ck;
    for (uint32_t k = 0; k < ns; k++) {
        ck->guard.gnpred.data[succ[k].block]++;
        for (uint32_t a = 0; a < succ[k].nargs; a++) {
            uint32_t v = x->u32[succ[k].first_arg + a];
            if (!(x->gdef[v] & GV_DEF)) rv_vec_push(ck->guard.gpend, v);
            gn_chain(ck, v);
        }
    }
    return r;
}

/* The instructions of block b (whose range the caller checked), in order,
 * until the guard fails: runs of usual ones in guard_run, each other one
 * through guard_inst_rare; what is not clean goes to ck->facts.rtodo. */
static void guard_insts(const gfast *x, const rv_block *bl)
{
    const rv_inst *in = rv_inst_at(x->g->f, bl->first_inst), *last = in + bl->ninsts - 1;
    ravel_loc top = 0; /* the highest slot location the fast path saw */
    bool ok = true;
    while (ok) {
        uint32_t r;
        in = guard_run(x, in, last, &top, &r);
        if (in == last) break;
        ok = guard_inst_rare(x, in, r);
        in++;
    }
    if (!ok) {
        if (top) x->g->maxslot = max_u32(x->g->maxslot, top - RAVEL_SLOT_BIT + 1);
        return;
    }
    uint32_t r = rv_is_term(last) ? guard_term(x, last, &top) : G_SLOW;
    if (top) x->g->maxslot = max_u32(x->g->maxslot, top - RAVEL_SLOT_BIT + 1);
    if (r != G_CLEAN) ck_gd_inst_other(x->g, x->b, last, true, r == G_SLOW); /* the terminator */
}

/* The fast path's register table rk (room for RV_MAX_REGS entries, the
 * machine's written: every read is below nregs); false if the machine has
 * more registers than that (no fast path). */
static bool fast_regs(const ravel_machine *m, uint16_t *rk)
{
    if (m->regs.len > RV_MAX_REGS) return false;
    for (uint32_t r = 0; r < m->regs.len; r++)
        rk[r] = m->regs.data[r].cls >= m->classes.len
                    ? RK_BAD
                    : (uint16_t)(m->regs.data[r].cls | (m->regs.data[r].reserved ? RK_RESERVED : 0));
    return true;
}

/* x for g's function; false if there is no fast path (CK_OPT_NO_FAST_GUARD,
 * or more registers than RV_MAX_REGS). */
static bool fast_init(gfast *x, guard *g)
{
    const ravel_func *f = g->f;
    ravel_checker *ck = g->ck;
    x->insts = f->insts.data;
    x->ops = f->ops.data;
    x->vregs = f->vregs.data;
    x->u32 = f->u32.data;
    x->gdef = ck->guard.gdef;
    x->ck = ck;
    x->g = g;
    x->b = 0;
    x->nops = f->ops.len;
    x->nimms = f->imms.len;
    x->nvregs = f->vregs.len;
    x->nregs = f->mach->regs.len;
    x->ncls = f->mach->classes.len;
    x->nu32 = f->u32.len;
    x->record = ck->guard.grecord;
    x->noloc = !ck->guard.grecord; /* the original function (--orig): its operands have no locations */
    return !(ck->opts & CK_OPT_NO_FAST_GUARD) && fast_regs(f->mach, x->rk);
}

/* Every block in layout order. */
static void guard_blocks(guard *g)
{
    const ravel_func *f = g->f;
    ravel_checker *ck = g->ck;
    gfast x;
    bool fast = fast_init(&x, g);
    if (ck->guard.grecord) { /* the successor lists */
        rv_vec_reserve(ck->facts.bsucc, f->layout.len);
        ck->facts.bsucc.len = f->layout.len;
        memset(ck->facts.bsucc.data, 0, (size_t)f->layout.len * sizeof *ck->facts.bsucc.data);
    }
    uint32_t next = 0; /* where the next block's instructions start if the ranges partition f's (g->part) */
    g->part = f->blocks.len == f->layout.len;
    for (uint32_t b = 0; b < f->layout.len && b < f->blocks.len; b++) {
        const rv_block *bl = &f->blocks.data[b];
        g->part &= bl->first_inst == next;
        next = bl->first_inst + bl->ninsts;
        int h = ck_gd_block_head(g, b, bl);
        if (h < 0) break;
        if (h == 0) continue;
        if (fast) {
            x.b = b;
            guard_insts(&x, bl);
        } else {
            const rv_inst *in = rv_inst_at(f, bl->first_inst), *last = in + bl->ninsts - 1;
            for (; in <= last; in++)
                if (!ck_gd_inst_other(g, b, in, in == last, true)) break;
        }
        if (ck->guard.grecord) { /* (its terminator is in the cache now, and will not be later) */
            const rv_inst *t = rv_inst_at(f, bl->first_inst + bl->ninsts - 1);
            ck->facts.bsucc.data[b] = (ck_list){t->u.succ.first, rv_inst_nsuccs(t)};
        }
    }
    g->part &= next == f->insts.len;
}

bool ck_guard(ravel_checker *ck, const ravel_func *f, ravel_report *rep, uint32_t *nslots, bool *suspect)
{
    guard g = {ck, f, rep, 0, 0, true, false, false, false, NULL, NULL};
    *suspect = false;
    ck->guard.gbroken = true;
    if (!ck_gd_begin(&g)) return false;
    ck->guard.gnfast = NULL;
    if (ck->guard.grecord) {
        ck->facts.rtodo.len = 0;
        ck->facts.gnf_ok = ck->facts.gxf_ok = false;
        ck->facts.gundef = ck->facts.gremat = false;
    }
    guard_blocks(&g);
    if (ck->guard.grecord) ck->facts.gnf_ok = g.ok, ck->facts.gxf_ok = g.ok && g.part;
    *nslots = g.maxslot;
    if (g.ok) ck_gd_finish(&g);
    *suspect = g.suspect;
    ck->guard.gbroken = g.broken;
    return g.ok;
}
