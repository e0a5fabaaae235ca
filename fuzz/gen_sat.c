/* gen_sat.c - an independent check of the generator's satisfiability rules
 * (S1-S7 in gen_inst.c) on a finished function, so that tests and fuzz
 * targets can tell a generator bug from an allocator bug.
 *
 * Requires: a finished function (ravel_func_finish) on a machine with at
 * most RV_MAX_REGS registers. Reads only; no allocation.
 * Guarantees: true iff every instruction keeps the rules; otherwise the
 * first broken rule, with its instruction index, is written to why.
 */
#include "fuzz/gen.h"

#include <string.h>

enum { PT_E = 1, PT_L = 2 };

typedef struct sat_ctx {
    const ravel_func *f;
    char *why;
    size_t whylen;
    uint32_t inst;
} sat_ctx;

static bool broken(sat_ctx *s, const char *rule)
{
    if (s->why && s->whylen) snprintf(s->why, s->whylen, "instruction %u: %s", s->inst, rule);
    return false;
}

static unsigned points(const rv_operand *o)
{
    if (rv_op_is_def(o)) return rv_op_is_late(o) ? PT_L : PT_E | PT_L;
    return rv_op_is_late(o) ? PT_E | PT_L : PT_E;
}

static uint32_t vcls(const ravel_func *f, const rv_operand *o) { return f->vregs.data[o->vreg].cls; }

/* S2: fixed operands sharing a register must not share a point, unless
 * they are uses of one vreg. */
static bool check_fixed_pairs(sat_ctx *s, const rv_operand *ops, uint32_t n)
{
    const ravel_machine *m = s->f->mach;
    for (uint32_t a = 0; a < n; a++) {
        if (ops[a].kind != RAVEL_C_FIXED) continue;
        if (ops[a].arg >= m->regs.len || m->regs.data[ops[a].arg].cls != vcls(s->f, &ops[a]))
            return broken(s, "fixed register missing or of another class");
        for (uint32_t b = a + 1; b < n; b++) {
            if (ops[b].kind != RAVEL_C_FIXED || ops[b].arg != ops[a].arg) continue;
            bool same_use = !rv_op_is_def(&ops[a]) && !rv_op_is_def(&ops[b]) && ops[a].vreg == ops[b].vreg;
            if ((points(&ops[a]) & points(&ops[b])) && !same_use) return broken(s, "S2: two operands fixed to one register at one point");
        }
    }
    return true;
}

/* S4: reuse(K) is a late def; use K an early non-fixed reg use of its class;
 * K reused once. */
static bool check_reuse(sat_ctx *s, const rv_inst *in, const rv_operand *ops)
{
    for (uint32_t d = 0; d < in->ndefs; d++) {
        if (ops[d].kind != RAVEL_C_REUSE) continue;
        if (!rv_op_is_late(&ops[d])) return broken(s, "S4: early reuse def");
        if (ops[d].arg >= in->nuses) return broken(s, "S4: reuse index out of range");
        const rv_operand *u = &ops[in->ndefs + ops[d].arg];
        if (u->kind != RAVEL_C_REG || rv_op_is_late(u) || vcls(s->f, u) != vcls(s->f, &ops[d]))
            return broken(s, "S4: reused use is not an early reg use of the same class");
        for (uint32_t e = d + 1; e < in->ndefs; e++)
            if (ops[e].kind == RAVEL_C_REUSE && ops[e].arg == ops[d].arg) return broken(s, "S4: one use reused twice");
    }
    return true;
}

/* S3: per class, distinct fixed allocatable registers plus non-fixed
 * register operands at each point fit the allocatable registers. */
static bool check_counts(sat_ctx *s, const rv_operand *ops, uint32_t n)
{
    const ravel_machine *m = s->f->mach;
    uint32_t nf[RV_MAX_CLASSES] = {0}, ne[RV_MAX_CLASSES] = {0}, nl[RV_MAX_CLASSES] = {0};
    for (uint32_t a = 0; a < n; a++) {
        uint32_t c = vcls(s->f, &ops[a]);
        if (ops[a].kind == RAVEL_C_FIXED) {
            if (m->regs.data[ops[a].arg].reserved) continue;
            bool seen = false;
            for (uint32_t b = 0; b < a; b++)
                if (ops[b].kind == RAVEL_C_FIXED && ops[b].arg == ops[a].arg) seen = true;
            if (!seen) nf[c]++;
        } else if (ops[a].kind == RAVEL_C_REG || ops[a].kind == RAVEL_C_REUSE) {
            unsigned p = points(&ops[a]);
            if (p & PT_E) ne[c]++;
            if (p & PT_L) nl[c]++;
        }
    }
    for (uint32_t c = 0; c < m->classes.len && c < RV_MAX_CLASSES; c++) {
        uint32_t a = m->classes.data[c].alloc.len;
        if (nf[c] + ne[c] > a || nf[c] + nl[c] > a) return broken(s, "S3: more register operands than registers");
    }
    return true;
}

/* S5: clobbering instructions and safepoints have no late uses or early
 * defs. */
static bool check_span(sat_ctx *s, const rv_inst *in, const rv_operand *ops, uint32_t n)
{
    const uint32_t *regs;
    if (!rv_inst_clobbers(s->f, in, &regs) && !(in->flags & RV_IF_SAFEPOINT)) return true;
    for (uint32_t a = 0; a < n; a++)
        if (points(&ops[a]) == (PT_E | PT_L)) return broken(s, "S5: late use or early def on a clobbering instruction or safepoint");
    return true;
}

bool rv_gen_satisfiable(const ravel_func *f, char *why, size_t whylen)
{
    sat_ctx s = {f, why, whylen, 0};
    if (why && whylen) why[0] = 0;
    for (uint32_t i = 0; i < f->insts.len; i++) {
        const rv_inst *in = &f->insts.data[i];
        if (rv_is_edit(in)) continue;
        s.inst = i;
        const rv_operand *ops = rv_inst_ops(f, in);
        uint32_t n = (uint32_t)in->ndefs + in->nuses;
        if (in->op == RAVEL_OP_COPY && (in->ndefs != 1 || in->nuses != 1)) return broken(&s, "S7: copy without one def and one use");
        if (!check_fixed_pairs(&s, ops, n) || !check_reuse(&s, in, ops) || !check_counts(&s, ops, n) ||
            !check_span(&s, in, ops, n))
            return false;
    }
    return true;
}
