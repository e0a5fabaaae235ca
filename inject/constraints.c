/* constraints.c - the kinds that break one constraint rule of section 6
 * (kinds.def, family constraints): fixed, reuse, early and late operands,
 * two defs in one register, the register class, reserved registers, reg
 * and stack operands, an operand without a location. Where a def moves,
 * an edit after the instruction puts the value back where it was, so that
 * only the rule is broken (inj_move_def).
 * Requires: the context's analyses (inj.h: c->ok). */
#include "inject/inj.h"

/* ---- fixed, reuse: a def in another register ---- */

/* A register of class cls for def k of inst i: not an operand of i, not
 * clobbered by i, not avoid; preferred if it holds nothing live after i. */
static void def_reg_sites(inj *c, uint32_t i, uint32_t k, uint32_t cls, ravel_loc avoid)
{
    const rv_class *cl = cls_of(c, cls);
    const rv_inst *in = IN(c, i);
    for (uint32_t r = 0; r < cl->alloc.len; r++) {
        uint32_t R = cl->alloc.data[r];
        bool busy = R == avoid || inj_clobbers(c, i, R);
        for (uint32_t q = 0; q < (uint32_t)in->ndefs + in->nuses && !busy; q++) busy = OPS(c, i)[q].loc == R;
        if (busy) continue;
        uint32_t h = H(c, i, R);
        inj_add_site(c, !(inj_h_valid(h) && live_after(c, i, h)), i, k, R, 0);
    }
}

/* Site a = an operand of fixed(R) in R, b = another register of R's class
 * (a use: preferred if it holds the use's value). */
void inj_fixed_sites(inj *c)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in)) continue;
        for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) {
            const rv_operand *o = &OPS(c, i)[k];
            if (o->kind != RAVEL_C_FIXED || o->loc != o->arg || o->arg >= c->nregs) continue;
            uint32_t cls = reg_of(c, o->arg)->cls;
            if (k < in->ndefs) {
                def_reg_sites(c, i, k, cls, o->arg);
                continue;
            }
            const rv_class *cl = cls_of(c, cls);
            for (uint32_t r = 0; r < cl->alloc.len; r++)
                if (cl->alloc.data[r] != o->arg) inj_add_site(c, H(c, i, cl->alloc.data[r]) == o->vreg, i, k, cl->alloc.data[r], 0);
        }
    }
}

void inj_fixed_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_operand *o = &OPS(c, s->i)[s->a];
    uint32_t nd = IN(c, s->i)->ndefs;
    char a[32], b[32];
    snprintf(buf, n, "%s %u of v%u in %s despite fixed(%s)", s->a < nd ? "def" : "use", s->a < nd ? s->a : s->a - nd,
             vnum(c, o->vreg), loc_s(c, s->b, a), loc_s(c, o->arg, b));
}

void inj_fixed_edit(inj *c, const inj_site *s)
{
    if (s->a < IN(c, s->i)->ndefs) inj_move_def(c, s->i, s->a, s->b);
    else inj_set_loc_edit(c, s);
}

/* Site a = a reuse(K) def in its use's location, b = another register. */
void inj_reuse_sites(inj *c)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in)) continue;
        for (uint32_t k = 0; k < in->ndefs; k++) {
            const rv_operand *o = &OPS(c, i)[k];
            if (o->kind != RAVEL_C_REUSE || o->arg >= in->nuses) continue;
            const rv_operand *u = &OPS(c, i)[in->ndefs + o->arg];
            if (u->loc != o->loc || o->loc == RAVEL_LOC_NONE) continue;
            def_reg_sites(c, i, k, vcls(c, o->vreg), o->loc);
        }
    }
}

void inj_reuse_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_operand *o = &OPS(c, s->i)[s->a];
    char a[32], b[32];
    snprintf(buf, n, "def %u (reuse(%u)) of v%u in %s instead of %s, then moved back", s->a, o->arg, vnum(c, o->vreg),
             loc_s(c, s->b, a), loc_s(c, o->loc, b));
}

/* ---- early-def, late-use: a def on a use's register ---- */

/* Site a = an early def (not fixed), b = the register of use c (of the
 * def's class, not reserved, not defined by the instruction). */
void inj_early_def_sites(inj *c)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in)) continue;
        for (uint32_t k = 0; k < in->ndefs; k++) {
            const rv_operand *o = &OPS(c, i)[k];
            if (!rv_op_is_early(o) || o->kind == RAVEL_C_FIXED) continue;
            for (uint32_t u = 0; u < in->nuses; u++) {
                ravel_loc U = OPS(c, i)[in->ndefs + u].loc;
                if (!ravel_loc_is_reg(U) || U >= c->nregs || U == o->loc || reg_of(c, U)->reserved ||
                    reg_of(c, U)->cls != vcls(c, o->vreg) || defines_loc(c, i, U))
                    continue;
                inj_add_site(c, true, i, k, U, u);
            }
        }
    }
}

void inj_early_def_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_operand *o = &OPS(c, s->i)[s->a];
    char a[32], b[32];
    snprintf(buf, n, "early def %u of v%u placed on %s (use %u) instead of %s", s->a, vnum(c, o->vreg), loc_s(c, s->b, a),
             s->c, loc_s(c, o->loc, b));
}

/* Site c = a late use in a register, a = a def (reg or any, of the
 * register's class) placed there, b = the register. */
void inj_late_use_sites(inj *c)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in)) continue;
        for (uint32_t u = 0; u < in->nuses; u++) {
            const rv_operand *o = &OPS(c, i)[in->ndefs + u];
            if (!rv_op_is_late(o) || !ravel_loc_is_reg(o->loc) || o->loc >= c->nregs || reg_of(c, o->loc)->reserved) continue;
            for (uint32_t k = 0; k < in->ndefs; k++) {
                const rv_operand *d = &OPS(c, i)[k];
                if ((d->kind != RAVEL_C_REG && d->kind != RAVEL_C_ANY) || d->loc == o->loc ||
                    vcls(c, d->vreg) != reg_of(c, o->loc)->cls || defines_loc(c, i, o->loc))
                    continue;
                inj_add_site(c, true, i, k, o->loc, u);
            }
        }
    }
}

void inj_late_use_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_operand *o = &OPS(c, s->i)[s->a];
    char a[32], b[32];
    snprintf(buf, n, "def %u of v%u placed on %s, read late by use %u, instead of %s", s->a, vnum(c, o->vreg),
             loc_s(c, s->b, a), s->c, loc_s(c, o->loc, b));
}

/* ---- defs-one-reg, reserved ---- */

/* Site a = a def (reg or any), b = the register of def c (of a's class). */
void inj_defs_one_reg_sites(inj *c)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in)) continue;
        for (uint32_t k = 0; k < in->ndefs; k++)
            for (uint32_t j = 0; j < in->ndefs; j++) {
                const rv_operand *a = &OPS(c, i)[k], *b = &OPS(c, i)[j];
                if (j != k && a->loc != b->loc && (b->kind == RAVEL_C_REG || b->kind == RAVEL_C_ANY) && ravel_loc_is_reg(a->loc) &&
                    a->loc < c->nregs && reg_of(c, a->loc)->cls == vcls(c, b->vreg))
                    inj_add_site(c, true, i, j, a->loc, k);
            }
    }
}

void inj_defs_one_reg_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_operand *o = &OPS(c, s->i)[s->a];
    char a[32];
    snprintf(buf, n, "def %u of v%u given %s, the register of def %u", s->a, vnum(c, o->vreg), loc_s(c, s->b, a), s->c);
}

/* Site a = a def (reg or any) of an instruction that is not its block's
 * last, b = a reserved register of its class that no operand uses. */
void inj_reserved_sites(inj *c)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in) || is_block_last(c, i)) continue;
        for (uint32_t k = 0; k < in->ndefs; k++) {
            const rv_operand *o = &OPS(c, i)[k];
            if (o->kind != RAVEL_C_REG && o->kind != RAVEL_C_ANY) continue;
            for (uint32_t r = 0; r < c->nregs; r++) {
                bool busy = !reg_of(c, r)->reserved || reg_of(c, r)->cls != vcls(c, o->vreg);
                for (uint32_t q = 0; q < (uint32_t)in->ndefs + in->nuses && !busy; q++) busy = OPS(c, i)[q].loc == r;
                if (!busy) inj_add_site(c, true, i, k, r, 0);
            }
        }
    }
}

void inj_reserved_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_operand *o = &OPS(c, s->i)[s->a];
    char a[32], b[32];
    snprintf(buf, n, "def %u of v%u in reserved %s instead of %s, then moved there", s->a, vnum(c, o->vreg),
             loc_s(c, s->b, a), loc_s(c, o->loc, b));
}

/* ---- reg-on-stack, stack-in-reg, wrong-class, no-loc: an operand's location ---- */

/* "operand A of vV in B instead of L (why)". */
static void say_use_loc(const inj *c, const inj_site *s, char *buf, size_t n, const char *why)
{
    const rv_operand *o = &OPS(c, s->i)[s->a];
    char a[32], b[32];
    snprintf(buf, n, "operand %u of v%u in %s instead of %s (%s)", s->a, vnum(c, o->vreg), loc_s(c, s->b, a),
             loc_s(c, o->loc, b), why);
}

/* Site a = a use (operand index) of constraint reg (to_stack) or stack,
 * b = a slot that holds its value (to_stack), or a register of its class
 * (preferred if it holds the value). */
static void reg_stack_sites(inj *c, bool to_stack)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in)) continue;
        for (uint32_t k = 0; k < in->nuses; k++) {
            const rv_operand *o = &OPS(c, i)[in->ndefs + k];
            if (o->kind != (to_stack ? RAVEL_C_REG : RAVEL_C_STACK) || inj_is_reuse_target(c, i, k)) continue;
            if (to_stack) {
                for (uint32_t s = 0; s < c->nslots; s++)
                    if (H(c, i, ravel_slot(s)) == o->vreg) inj_add_site(c, true, i, in->ndefs + k, ravel_slot(s), 0);
            } else {
                const rv_class *cl = cls_of(c, vcls(c, o->vreg));
                for (uint32_t r = 0; r < cl->alloc.len; r++)
                    inj_add_site(c, H(c, i, cl->alloc.data[r]) == o->vreg, i, in->ndefs + k, cl->alloc.data[r], 0);
            }
        }
    }
}

void inj_reg_on_stack_sites(inj *c) { reg_stack_sites(c, true); }
void inj_reg_on_stack_say(const inj *c, const inj_site *s, char *buf, size_t n) { say_use_loc(c, s, buf, n, "constraint reg"); }
void inj_stack_in_reg_sites(inj *c) { reg_stack_sites(c, false); }
void inj_stack_in_reg_say(const inj *c, const inj_site *s, char *buf, size_t n) { say_use_loc(c, s, buf, n, "constraint stack"); }

/* Site a = a free use in a register, b = an unreserved register of
 * another class. */
void inj_wrong_class_sites(inj *c)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in)) continue;
        for (uint32_t k = 0; k < in->nuses; k++) {
            const rv_operand *o = &OPS(c, i)[in->ndefs + k];
            if (!inj_free_use(c, i, k) || !ravel_loc_is_reg(o->loc)) continue;
            for (uint32_t r = 0; r < c->nregs; r++)
                if (!reg_of(c, r)->reserved && reg_of(c, r)->cls != vcls(c, o->vreg)) inj_add_site(c, true, i, in->ndefs + k, r, 0);
        }
    }
}

void inj_wrong_class_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    say_use_loc(c, s, buf, n, "a register of another class");
}

/* Site a = an operand with a location (not a reuse def, nor the use it
 * reuses), b = none. */
void inj_no_loc_sites(inj *c)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in)) continue;
        for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++)
            if (OPS(c, i)[k].loc != RAVEL_LOC_NONE && OPS(c, i)[k].kind != RAVEL_C_REUSE &&
                (k < in->ndefs || !inj_is_reuse_target(c, i, k - in->ndefs)))
                inj_add_site(c, true, i, k, RAVEL_LOC_NONE, 0);
    }
}

void inj_no_loc_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_operand *o = &OPS(c, s->i)[s->a];
    char a[32];
    snprintf(buf, n, "operand %u of v%u left without a location (was %s)", s->a, vnum(c, o->vreg), loc_s(c, o->loc, a));
}
