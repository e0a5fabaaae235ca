/* ck_rules.c - the per-operand constraint and structure rules of
 * docs/format.md section 6: what does not depend on values (locations
 * exist and fit the vreg's class and the operand's constraint; no two
 * operands of an instruction overlap where the order of section 6 makes
 * them clash; edits go between the right kinds; a safepoint has its
 * stackmap).
 * Requires: the guard of ck->f passed with ck->guard.grecord. It visits
 * only the instructions the guard listed (ck->facts.rtodo): on the others
 * no rule can fire (ck_guard_fast.c). On an aliased machine (section 14)
 * also those of the others whose operands overlap (rules_alias, only when
 * ck_ext_scan saw such an instruction). CK_OPT_NO_FAST_GUARD: every
 * instruction (the reference of tests/checker/test_guard_fast.c). Reports
 * through ck_err_rule. */
#include "ck.h"

#include <stdio.h>

static void site_op(ck_site *s, uint32_t b, uint32_t ii, const rv_inst *in, uint32_t k, const rv_operand *o)
{
    bool def = k < in->ndefs;
    s->block = b;
    s->inst = ii;
    s->role = def ? "def" : "use";
    s->k = (int32_t)(def ? k : k - in->ndefs);
    s->op = o;
    s->order = def ? k : 65536u + (k - in->ndefs);
}

/* Location, class, reserved registers and the operand's own constraint. */
static void rule_operand(ravel_checker *ck, ck_site *s, const rv_inst *in, const rv_operand *o)
{
    const ravel_func *f = ck->f;
    const ravel_machine *m = f->mach;
    char lb[32], lb2[32];
    const rv_vreg *v = &f->vregs.data[o->vreg];
    if (o->loc == RAVEL_LOC_NONE) {
        ck_err_rule(ck, s, "missing-location", o->loc, o->vreg, "has no location");
        return;
    }
    if (rv_loc_index(ck->nregs, ck->nslots, o->loc) == CK_NIL) {
        ck_err_rule(ck, s, "unknown-location", o->loc, o->vreg, "location does not exist");
        return;
    }
    bool slot = ravel_loc_is_slot(o->loc);
    if (!slot && m->regs.data[o->loc].cls != v->cls) {
        ck_err_rule(ck, s, "bad-class", o->loc, o->vreg, "%s is of class %s, but the vreg is of class %s",
                    rv_loc_str(m, o->loc, lb), m->classes.data[m->regs.data[o->loc].cls].name, m->classes.data[v->cls].name);
        return;
    }
    if (!slot && m->regs.data[o->loc].reserved && o->kind != RAVEL_C_FIXED) {
        ck_err_rule(ck, s, "reserved-misuse", o->loc, o->vreg, "%s is reserved and may only be used under fixed(%s)",
                    m->regs.data[o->loc].name, m->regs.data[o->loc].name);
        return;
    }
    switch (o->kind) {
    case RAVEL_C_REG:
        if (slot) ck_err_rule(ck, s, "not-reg", o->loc, o->vreg, "constraint reg, but the location is slot %s", rv_loc_str(m, o->loc, lb));
        break;
    case RAVEL_C_STACK:
        if (!slot) ck_err_rule(ck, s, "not-stack", o->loc, o->vreg, "constraint stack, but the location is register %s", rv_loc_str(m, o->loc, lb));
        break;
    case RAVEL_C_FIXED:
        if (o->loc != o->arg)
            ck_err_rule(ck, s, "not-fixed", o->loc, o->vreg, "constraint fixed(%s), but the location is %s",
                        m->regs.data[o->arg].name, rv_loc_str(m, o->loc, lb));
        break;
    case RAVEL_C_REUSE: {
        const rv_operand *u = &rv_uses_of(f, in)[o->arg];
        if (slot || u->loc != o->loc || ravel_loc_is_slot(u->loc))
            ck_err_rule(ck, s, "reuse-mismatch", o->loc, o->vreg, "constraint reuse(%u): the def is in %s but use %u is in %s%s",
                        o->arg, rv_loc_str(m, o->loc, lb), o->arg, rv_loc_str(m, u->loc, lb2),
                        slot || ravel_loc_is_slot(u->loc) ? " (must be a register)" : "");
        break;
    }
    default:
        break;
    }
}

/* Locations a and b are one, or (docs/format.md section 14.1) registers
 * that overlap. */
static bool same_or_overlap(const ravel_checker *ck, ravel_loc a, ravel_loc b)
{
    return a == b || ck_regs_overlap(ck, a, b);
}

/* "shares rax with" or, for two overlapping registers, "in al overlaps rax of". */
static const char *share_text(const ravel_checker *ck, ravel_loc mine, ravel_loc other, char *buf)
{
    char a[32], b[32];
    if (mine == other) snprintf(buf, 80, "shares %s with", rv_loc_str(ck->f->mach, mine, a));
    else snprintf(buf, 80, "in %s overlaps %s of", rv_loc_str(ck->f->mach, mine, a), rv_loc_str(ck->f->mach, other, b));
    return buf;
}

/* Overlaps between operands of one instruction. */
static void rule_overlap(ravel_checker *ck, ck_site *s, const rv_inst *in, uint32_t k, const rv_operand *o)
{
    const ravel_func *f = ck->f;
    const rv_operand *ops = rv_ops_of(f, in);
    uint32_t nd = in->ndefs, n = nd + in->nuses;
    char sb[80];
    if (o->loc == RAVEL_LOC_NONE) return;
    if (k < nd) {
        for (uint32_t j = 0; j < k; j++)
            if (same_or_overlap(ck, ops[j].loc, o->loc)) {
                ck_err_rule(ck, s, "def-overlap", o->loc, o->vreg, "def %u %s def %u", k, share_text(ck, o->loc, ops[j].loc, sb), j);
                return;
            }
        if (rv_op_is_early(o))
            for (uint32_t j = nd; j < n; j++)
                if (same_or_overlap(ck, ops[j].loc, o->loc)) {
                    ck_err_rule(ck, s, "early-def-overlap", o->loc, o->vreg, "early def %s use %u", share_text(ck, o->loc, ops[j].loc, sb), j - nd);
                    return;
                }
        return;
    }
    if (rv_op_is_late(o))
        for (uint32_t j = 0; j < nd; j++)
            if (same_or_overlap(ck, ops[j].loc, o->loc)) {
                ck_err_rule(ck, s, "late-use-overwritten", o->loc, o->vreg, "late use %s def %u", share_text(ck, o->loc, ops[j].loc, sb), j);
                return;
            }
}

static void rule_edit(ravel_checker *ck, uint32_t b, uint32_t ii, const rv_inst *in)
{
    ck_site s = {b, ii, "edit", -1, NULL, 0};
    if (in->op == RAVEL_OP_REMAT) { /* any register or slot (docs/format.md section 14.3) */
        if (rv_loc_index(ck->nregs, ck->nslots, in->u.edit.dst) == CK_NIL)
            ck_err_rule(ck, &s, "unknown-location", RAVEL_LOC_NONE, CK_NIL, "edit names a location that does not exist");
        return;
    }
    bool ds = ravel_loc_is_slot(in->u.edit.dst), ss = ravel_loc_is_slot(in->u.edit.src);
    if (rv_loc_index(ck->nregs, ck->nslots, in->u.edit.dst) == CK_NIL || rv_loc_index(ck->nregs, ck->nslots, in->u.edit.src) == CK_NIL)
        ck_err_rule(ck, &s, "unknown-location", RAVEL_LOC_NONE, CK_NIL, "edit names a location that does not exist");
    else if (ds && ss)
        ck_err_rule(ck, &s, "slot-to-slot", in->u.edit.dst, CK_NIL, "there is no slot-to-slot move");
    else if ((in->op == RAVEL_OP_SPILL && (!ds || ss)) || (in->op == RAVEL_OP_RELOAD && (ds || !ss)) ||
             (in->op == RAVEL_OP_MOVE && (ds || ss)))
        ck_err_rule(ck, &s, "bad-edit", in->u.edit.dst, CK_NIL, "%s must go %s", rv_opcode_name(in->op),
                    in->op == RAVEL_OP_SPILL ? "from a register to a slot"
                    : in->op == RAVEL_OP_RELOAD ? "from a slot to a register" : "from a register to a register");
}

/* True if operand o of in breaks none of rule_operand's rules (a fast
 * test; the rules themselves run only when it fails). */
static bool operand_clean(const ravel_checker *ck, const rv_inst *in, const rv_operand *o)
{
    const ravel_func *f = ck->f;
    ravel_loc l = o->loc;
    if (l & RAVEL_SLOT_BIT) return l != RAVEL_LOC_NONE && rv_loc_index(ck->nregs, ck->nslots, l) != CK_NIL && (o->kind == RAVEL_C_ANY || o->kind == RAVEL_C_STACK);
    if (l >= ck->nregs) return false;
    const rv_reg *r = &f->mach->regs.data[l];
    if (r->cls != f->vregs.data[o->vreg].cls) return false;
    switch (o->kind) {
    case RAVEL_C_REG:
    case RAVEL_C_ANY: return !r->reserved;
    case RAVEL_C_FIXED: return l == o->arg;
    case RAVEL_C_REUSE: return !r->reserved && rv_uses_of(f, in)[o->arg].loc == l;
    default: return false;
    }
}

/* True if no rule can fire on in's operands: each is clean and no two
 * share a location where rule_overlap forbids it. */
static bool inst_clean(const ravel_checker *ck, const rv_inst *in)
{
    const rv_operand *ops = rv_ops_of(ck->f, in);
    uint32_t nd = in->ndefs, n = nd + in->nuses;
    for (uint32_t k = 0; k < n; k++) {
        if (!operand_clean(ck, in, &ops[k])) return false;
        for (uint32_t j = 0; j < k; j++) {
            if (!same_or_overlap(ck, ops[j].loc, ops[k].loc)) continue;
            if (k < nd) return false;                                   /* def-overlap */
            if (j < nd && (rv_op_is_early(&ops[j]) || rv_op_is_late(&ops[k]))) return false; /* early def / late use */
        }
    }
    return true;
}

static bool edit_clean(const ravel_checker *ck, const rv_inst *in)
{
    ravel_loc d = in->u.edit.dst, s = in->u.edit.src;
    if (in->op == RAVEL_OP_REMAT) return rv_loc_index(ck->nregs, ck->nslots, d) != CK_NIL;
    if (rv_loc_index(ck->nregs, ck->nslots, d) == CK_NIL || rv_loc_index(ck->nregs, ck->nslots, s) == CK_NIL) return false;
    bool ds = ravel_loc_is_slot(d), ss = ravel_loc_is_slot(s);
    return in->op == RAVEL_OP_SPILL ? ds && !ss : in->op == RAVEL_OP_RELOAD ? !ds && ss : !ds && !ss;
}

/* The rules on instruction ii of block b. */
static void rules_inst(ravel_checker *ck, uint32_t b, uint32_t ii)
{
    const ravel_func *f = ck->f;
    const rv_inst *in = rv_inst_at(f, ii);
    if (rv_is_edit(in)) {
        if (!edit_clean(ck, in)) rule_edit(ck, b, ii, in);
        return;
    }
    const rv_operand *ops = rv_ops_of(f, in);
    bool clean = inst_clean(ck, in); /* the usual case: no rule to run */
    for (uint32_t k = 0; !clean && k < (uint32_t)in->ndefs + in->nuses; k++) {
        ck_site s;
        site_op(&s, b, ii, in, k, &ops[k]);
        uint32_t before = ck->out.rep->errs.len;
        rule_operand(ck, &s, in, &ops[k]);
        if (ck->out.rep->errs.len == before) rule_overlap(ck, &s, in, k, &ops[k]);
    }
    if ((in->flags & RV_IF_SAFEPOINT) && !(in->flags & RV_IF_STACKMAP)) {
        ck_site s = {b, ii, "inst", -1, NULL, 3 * 65536u};
        ck_err_rule(ck, &s, "stackmap-missing", RAVEL_LOC_NONE, CK_NIL, "safepoint without a stackmap");
    }
}

/* On an aliased machine where two operands of an operation overlap
 * (ck->ext.opairs): the guard's list compares locations, not overlap, so
 * every instruction it did not list is also visited when two of its
 * operands overlap (ck_ops_overlap_clean). The list is in layout order, and so is
 * this walk (the guard requires layout[b] == b): each instruction is
 * visited at most once, in the order of a visit of every instruction. */
static void rules_alias(ravel_checker *ck)
{
    const ravel_func *f = ck->f;
    const uint32_t *todo = ck->facts.rtodo.data;
    uint32_t t = 0, nt = ck->facts.rtodo.len & ~1u;
    for (uint32_t b = 0; b < f->layout.len; b++)
        for (uint32_t i = 0; i < f->blocks.data[b].ninsts; i++) {
            uint32_t ii = f->blocks.data[b].first_inst + i;
            bool listed = false;
            while (t < nt && todo[t] == b && todo[t + 1] == ii) t += 2, listed = true;
            const rv_inst *in = rv_inst_at(f, ii);
            if (listed || (!rv_is_edit(in) && !ck_ops_overlap_clean(ck, in))) rules_inst(ck, b, ii);
        }
}

/* Requires: the guard of ck->f ran with ck->guard.grecord (ck->facts.rtodo lists, in
 * layout order, every instruction on which a rule may fire; on the others
 * none can, see guard_fast_*). */
void ck_rules(ravel_checker *ck)
{
    if (ck->opts & CK_OPT_NO_FAST_GUARD) { /* the rules' reference (tests compare): every instruction */
        for (uint32_t b = 0; b < ck->f->layout.len; b++)
            for (uint32_t i = 0; i < ck->f->blocks.data[b].ninsts; i++) rules_inst(ck, b, ck->f->blocks.data[b].first_inst + i);
        return;
    }
    if (ck->ext.opairs) { /* (else the guard's list is every instruction rules_alias would visit) */
        rules_alias(ck);
        return;
    }
    for (uint32_t t = 0; t + 1 < ck->facts.rtodo.len; t += 2) rules_inst(ck, ck->facts.rtodo.data[t], ck->facts.rtodo.data[t + 1]);
}
