/* ck_orig.c - the match against the unallocated function (--orig): the
 * allocated function must be the original plus locations, edits and
 * stackmaps (docs/format.md section 6), on machines that declare the same
 * containments (section 14.5). Requires: both functions passed
 * the guard. Reports "orig-mismatch" at the first difference. */
#include "ck.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The match's view of the two functions: their symbol tables agree on ids
 * below agree (an allocator's output is usually a clone of its input:
 * then names compare by id), and they may share one machine (registers
 * compare by id). */
typedef struct omatch {
    const ravel_func *a, *b;
    uint32_t agree;  /* symbols below this id are the same string in both */
    uint32_t vagree; /* vregs below this id are the same vreg in both */
    bool same_mach;
} omatch;

static bool sym_eq(const ravel_func *a, uint32_t x, const ravel_func *b, uint32_t y)
{
    return a->syms.lens.data[x] == b->syms.lens.data[y] &&
           memcmp(rv_sym_str(&a->syms, x), rv_sym_str(&b->syms, y), a->syms.lens.data[x]) == 0;
}

static void omatch_init(omatch *m, const ravel_func *a, const ravel_func *b)
{
    m->a = a;
    m->b = b;
    m->same_mach = a->mach == b->mach;
    uint32_t n = a->syms.strs.len < b->syms.strs.len ? a->syms.strs.len : b->syms.strs.len, i = 0;
    while (i < n && sym_eq(a, i, b, i)) i++;
    m->agree = i;
    /* an allocator usually keeps the vreg table: one pass here, then an
     * operand's vreg compares by id */
    const rv_vreg *p = a->vregs.data, *q = b->vregs.data;
    n = a->vregs.len < b->vregs.len ? a->vregs.len : b->vregs.len;
    for (i = 0; i < n && p[i].num == q[i].num && p[i].cls == q[i].cls && p[i].ref == q[i].ref;) i++;
    m->vagree = i;
}

static bool sym_same(const omatch *m, uint32_t x, uint32_t y)
{
    if (x == RAVEL_NONE || y == RAVEL_NONE) return x == y;
    if (x == y && x < m->agree) return true;
    return sym_eq(m->a, x, m->b, y);
}

static bool vreg_same(const omatch *m, uint32_t x, uint32_t y)
{
    const ravel_func *a = m->a, *b = m->b;
    if (x == y && x < m->vagree) return true;
    if (x >= a->vregs.len || y >= b->vregs.len) return false;
    const rv_vreg *p = &a->vregs.data[x], *q = &b->vregs.data[y];
    return p->num == q->num && p->cls == q->cls && p->ref == q->ref;
}

/* (Both functions passed the guard: their registers exist.) */
static bool reg_same(const omatch *m, uint32_t x, uint32_t y)
{
    const ravel_func *a = m->a, *b = m->b;
    if (m->same_mach) return x == y;
    if (x >= a->mach->regs.len || y >= b->mach->regs.len) return false;
    return strcmp(a->mach->regs.data[x].name, b->mach->regs.data[y].name) == 0;
}

/* Whether two operands agree in what inst_diff compares besides the vreg
 * (constraint, position, argument): one masked word (kind, flags, arg are
 * adjacent; the mask is built from the struct, so byte order does not
 * matter). */
_Static_assert(offsetof(rv_operand, flags) == offsetof(rv_operand, kind) + 1 &&
                   offsetof(rv_operand, arg) == offsetof(rv_operand, kind) + 2 && sizeof(((rv_operand *)0)->arg) == 2,
               "op_same_key: kind, flags and arg fill one 32-bit word");
static inline bool op_same_key(const rv_operand *p, const rv_operand *q)
{
    rv_operand mk = {0, 0, 0xff, RV_OPF_DEF | RV_OPF_LATE, 0xffff};
    uint32_t x, y, mask;
    memcpy(&mask, &mk.kind, sizeof mask);
    memcpy(&x, &p->kind, sizeof x);
    memcpy(&y, &q->kind, sizeof y);
    return ((x ^ y) & mask) == 0;
}

/* Returns NULL if the instructions match, else what differs. */
static const char *inst_diff(const omatch *m, const rv_inst *x, const rv_inst *y)
{
    const ravel_func *a = m->a, *b = m->b;
    if (x->op != y->op || ((x->name != y->name || x->name >= m->agree) && !sym_same(m, x->name, y->name)))
        return "a different mnemonic";
    if (x->ndefs != y->ndefs || x->nuses != y->nuses || x->nimms != y->nimms) return "a different number of operands";
    const rv_operand *p = rv_ops_of(a, x), *q = rv_ops_of(b, y);
    for (uint32_t k = 0; k < (uint32_t)x->ndefs + x->nuses; k++) {
        if (p[k].vreg == q[k].vreg && p[k].vreg < m->vagree && m->same_mach && op_same_key(&p[k], &q[k]))
            continue; /* the usual case: the same vreg, constraint, position and argument */
        if (!vreg_same(m, p[k].vreg, q[k].vreg)) return "a different vreg";
        if (p[k].kind != q[k].kind || (p[k].flags & (RV_OPF_DEF | RV_OPF_LATE)) != (q[k].flags & (RV_OPF_DEF | RV_OPF_LATE)))
            return "a different constraint or position";
        if (p[k].kind == RAVEL_C_FIXED && !reg_same(m, p[k].arg, q[k].arg)) return "a different fixed register";
        if (p[k].kind == RAVEL_C_REUSE && p[k].arg != q[k].arg) return "a different reuse index";
    }
    for (uint32_t k = 0; k < x->nimms; k++) {
        const rv_imm *i = &a->imms.data[x->first_imm + k], *j = &b->imms.data[y->first_imm + k];
        if (i->value != j->value || i->pos != j->pos) return "different immediates";
    }
    if ((x->flags & (RV_IF_SAFEPOINT | RV_IF_CLOBBERS)) != (y->flags & (RV_IF_SAFEPOINT | RV_IF_CLOBBERS)))
        return "different attributes";
    if (x->flags & RV_IF_CLOBBERS) {
        if (x->nclob != y->nclob) return "a different clobber list";
        if (m->same_mach) { /* register ids compare as they are */
            if (x->nclob && memcmp(&a->u32.data[x->first_clob], &b->u32.data[y->first_clob], x->nclob * sizeof(uint32_t)))
                return "a different clobber list";
        } else {
            for (uint32_t k = 0; k < x->nclob; k++)
                if (!reg_same(m, a->u32.data[x->first_clob + k], b->u32.data[y->first_clob + k])) return "a different clobber list";
        }
    }
    if (rv_is_term(x)) {
        if (rv_inst_nsuccs(x) != rv_inst_nsuccs(y)) return "different successors";
        for (uint32_t k = 0; k < rv_inst_nsuccs(x); k++) {
            const rv_succ *s = &rv_inst_succs(a, x)[k], *t = &rv_inst_succs(b, y)[k];
            if (t->block >= b->blocks.len || !sym_same(m, a->blocks.data[s->block].name, b->blocks.data[t->block].name))
                return "different successors";
            if (s->nargs != t->nargs) return "different block arguments";
            for (uint32_t i = 0; i < s->nargs; i++)
                if (!vreg_same(m, rv_args_of(a, s)[i], rv_args_of(b, t)[i])) return "different block arguments";
        }
    }
    return NULL;
}

static void orig_err(ravel_checker *ck, uint32_t b, uint32_t ii, const char *what)
{
    ck_site s = {b, ii, ii == CK_NIL ? "block" : "inst", -1, NULL, 4 * 65536u};
    ck_err_rule(ck, &s, "orig-mismatch", RAVEL_LOC_NONE, CK_NIL, "does not match the original function: %s", what);
}

static bool orig_block(ravel_checker *ck, const omatch *m, uint32_t b)
{
    const ravel_func *f = m->a, *o = m->b;
    const rv_block *x = &f->blocks.data[b], *y = &o->blocks.data[b];
    char tmp[160];
    if (!sym_same(m, x->name, y->name) || x->nparams != y->nparams) {
        orig_err(ck, b, CK_NIL, "a different block name or parameter count");
        return false;
    }
    for (uint32_t p = 0; p < x->nparams; p++)
        if (!vreg_same(m, rv_params_of(f, x)[p], rv_params_of(o, y)[p])) {
            orig_err(ck, b, CK_NIL, "different block parameters");
            return false;
        }
    uint32_t j = 0, last = x->first_inst;
    for (uint32_t i = 0; i < x->ninsts; i++) {
        const rv_inst *in = rv_inst_at(f, x->first_inst + i);
        if (rv_is_edit(in)) continue;
        last = x->first_inst + i;
        if (j >= y->ninsts) {
            orig_err(ck, b, last, "an instruction the original does not have");
            return false;
        }
        const rv_inst *on = rv_inst_at(o, y->first_inst + j);
        const char *d = rv_is_edit(on) ? "the original has an edit here" : inst_diff(m, in, on);
        if (d) {
            if (on->line) snprintf(tmp, sizeof tmp, "%s (original line %u)", d, on->line);
            else snprintf(tmp, sizeof tmp, "%s (original inst %u)", d, y->first_inst + j);
            orig_err(ck, b, last, tmp);
            return false;
        }
        j++;
    }
    if (j != y->ninsts) {
        snprintf(tmp, sizeof tmp, "original instruction %u of block %s is missing", j, rv_block_name(o, b));
        orig_err(ck, b, last, tmp);
        return false;
    }
    return true;
}

void ck_match_orig(ravel_checker *ck, const ravel_func *o)
{
    const ravel_func *f = ck->f;
    if (o->layout.len != f->layout.len || o->blocks.len < o->layout.len) {
        orig_err(ck, CK_NIL, CK_NIL, "a different number of blocks");
        return;
    }
    omatch m;
    omatch_init(&m, f, o);
    if (!sym_same(&m, f->name, o->name)) {
        orig_err(ck, CK_NIL, CK_NIL, "a different function name");
        return;
    }
    if (!m.same_mach && !rv_mach_same_containment(f->mach, o->mach)) { /* docs/format.md section 14.5 */
        orig_err(ck, CK_NIL, CK_NIL, "the machines declare different register containments (alias lines)");
        return;
    }
    for (uint32_t b = 0; b < f->layout.len; b++)
        if (!orig_block(ck, &m, b)) return;
}
