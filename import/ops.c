/*
 * ops.c - one original instruction as an op (docs/import-mapping.md R13
 * to R26).
 *
 * R13: the mnemonic is the pre-allocation opcode; defs first, then the
 * uses and integer immediates in MIR order; other operands are not
 * written. R14: a tied def is reuse(K) of its use (ties from the dumps,
 * keys.c), an early-clobber def is early. R15: an undef use is left out
 * with its tie. R16: a sub-register def without undef also reads its vreg
 * (the tied use, or an added last use at the def's location). R17, R18:
 * dead implicit defs are clobbers. R19: calls. R21: COPY. R22:
 * SUBREG_TO_REG. R23: KILL. R24: IMPLICIT_DEF. R25: const K.
 *
 * Requires: imp_phys (x->po), imp_learn_ties; locations (op_alloc) for
 * the allocated form, none for the unallocated one. Guarantees: the op is
 * appended to f with its defs and uses; an operand of vreg %N is vN with
 * the class of §5.2, a physical operand is its pseudo-vreg fixed at its
 * location (R8, R9); locations are given exactly where op_alloc has them.
 */
#include "import/imp.h"

#include <stdlib.h>

unsigned imp_vreg_width(const imp *x, uint32_t vreg, uint8_t *rc)
{
    const mir_func *f = x->pre;
    *rc = RC_GPR;
    if (vreg >= f->vclass.len || f->vclass.data[vreg] == RVI_NONE) return 0;
    const char *c = rv_sym_str(x->rp->syms, f->vclass.data[vreg]);
    x86_class cl = x86_class_find(c, strlen(c));
    *rc = cl.rc < 0 ? RC_GPR : (uint8_t)cl.rc;
    return cl.rc == RC_FLAGS ? 32 : cl.width;
}

static const mir_op *pre_op(const imp *x, uint32_t k, uint32_t i)
{
    return &mir_ops(x->pre, &x->pre->insts.data[k])[i];
}

static const po_info *pre_po(const imp *x, uint32_t k, uint32_t i)
{
    return &x->po[x->pre->insts.data[k].op0 + i];
}

bool imp_operand(imp *x, uint32_t k, uint32_t i, const op_alloc *a, ra_opnd *out)
{
    const mir_op *o = pre_op(x, k, i);
    const po_info *pi = pre_po(x, k, i);
    memset(out, 0, sizeof *out);
    out->loc = RVI_NONE;
    if (o->kind != MO_REG) return false;
    if (o->vreg != RVI_NONE) {
        if (!(o->flags & MOF_DEF) && (o->flags & MOF_UNDEF)) return false;
        uint8_t rc;
        if (!imp_vreg_width(x, o->vreg, &rc)) {
            imp_error(x, "R3", x->rp, o->pos, "%%%u has no class in tag.mir's registers:", o->vreg);
            return false;
        }
        out->vreg = o->vreg;
        out->rc = rc;
        out->early = (o->flags & MOF_DEF) && (o->flags & MOF_EARLY);
        if (a) {
            out->loc = a->locs[i];
            if (a->any[i]) out->cons = CN_ANY;
        }
        return true;
    }
    if (pi->kind != PO_PDEF && pi->kind != PO_PUSE) return false;
    out->vreg = pi->vreg;
    out->rc = (uint8_t)x86_reg_rc(pi->loc);
    /* fixed(R), except a COPY's source: where the value is, not a
     * constraint of the instruction (docs/import.md, decision 3) */
    bool copy_src = pi->kind == PO_PUSE && mir_opc_is(x->rp, &x->pre->insts.data[k], "COPY");
    out->cons = copy_src ? CN_REG : CN_FIXED;
    out->arg = pi->loc;
    out->early = (o->flags & MOF_DEF) && (o->flags & MOF_EARLY);
    if (a) out->loc = pi->loc;
    return true;
}

static void push_def(ra_func *f, const ra_opnd *o)
{
    rv_vec_push(f->defs, *o);
    f->insts.data[f->insts.len - 1].nd++;
}

static uint32_t push_use(ra_func *f, const ra_opnd *o)
{
    ra_use u;
    memset(&u, 0, sizeof u);
    u.o = *o;
    rv_vec_push(f->uses, u);
    ra_inst *in = &f->insts.data[f->insts.len - 1];
    uint32_t vuses = 0;
    for (uint32_t j = in->u0; j < in->u0 + in->nu; j++) vuses += !f->uses.data[j].imm;
    in->nu++;
    return vuses;
}

static void push_imm(ra_func *f, int64_t v)
{
    ra_use u;
    memset(&u, 0, sizeof u);
    u.imm = true;
    u.val = v;
    rv_vec_push(f->uses, u);
    f->insts.data[f->insts.len - 1].nu++;
}

static ra_inst *start(imp *x, ra_func *f, uint32_t k, uint8_t kind, const char *mnem)
{
    uint32_t id = ra_add_inst(f, kind);
    ra_inst *in = &f->insts.data[id];
    in->mnem = mnem;
    in->pre = k;
    in->d0 = f->defs.len;
    in->u0 = f->uses.len;
    in->ctext = &x->rp->t;
    in->cpos = x->pre->insts.data[k].pos;
    return in;
}

static void add_clobbers(imp *x, ra_func *f, uint32_t k)
{
    const mir_inst *p = &x->pre->insts.data[k];
    for (uint32_t i = 0; i < p->nops; i++)
        if (pre_po(x, k, i)->kind == PO_CLOBBER) {
            ra_inst *in = &f->insts.data[f->insts.len - 1];
            ra_clob_set(in, pre_po(x, k, i)->loc);
            in->has_clob = true;
        }
}

/* ----- generic ops (R13-R16) ----- */
typedef struct opmap {
    int32_t *use_of; /* pre operand -> index among the op's vreg uses, -1 */
    int32_t *def_of; /* pre operand -> index among its defs, -1 */
} opmap;

static void generic_defs(imp *x, ra_func *f, uint32_t k, const op_alloc *a, opmap *m)
{
    const mir_inst *p = &x->pre->insts.data[k];
    uint32_t nd = 0;
    for (uint32_t i = 0; i < p->nops; i++) {
        ra_opnd o;
        if (!(pre_op(x, k, i)->flags & MOF_DEF) || !imp_operand(x, k, i, a, &o)) continue;
        push_def(f, &o);
        m->def_of[i] = (int32_t)nd++;
    }
}

static void generic_uses(imp *x, ra_func *f, uint32_t k, const op_alloc *a, opmap *m)
{
    const mir_inst *p = &x->pre->insts.data[k];
    for (uint32_t i = 0; i < p->nops; i++) {
        const mir_op *o = pre_op(x, k, i);
        ra_opnd r;
        if (o->flags & MOF_DEF) continue;
        if (o->kind == MO_IMM) push_imm(f, o->val);
        else if (imp_operand(x, k, i, a, &r)) m->use_of[i] = (int32_t)push_use(f, &r);
    }
}

/* The n-th vreg use of instruction id. */
static ra_use *vuse_at(ra_func *f, uint32_t id, uint32_t n)
{
    const ra_inst *in = &f->insts.data[id];
    for (uint32_t j = in->u0; j < in->u0 + in->nu; j++) {
        if (f->uses.data[j].imm) continue;
        if (n-- == 0) return &f->uses.data[j];
    }
    return NULL;
}

/* R14 and R16 on the defs of pre instruction k. */
static void generic_ties(imp *x, ra_func *f, uint32_t k, opmap *m)
{
    const mir_inst *p = &x->pre->insts.data[k];
    uint32_t id = f->insts.len - 1;
    for (uint32_t i = 0; i < p->nops; i++) {
        const mir_op *o = pre_op(x, k, i);
        if (m->def_of[i] < 0 || o->vreg == RVI_NONE) continue;
        ra_opnd *d = &f->defs.data[f->insts.data[id].d0 + (uint32_t)m->def_of[i]];
        int u = imp_tied_use(x, p, i);
        bool tied = u >= 0 && m->use_of[u] >= 0;
        ra_use *tu = tied ? vuse_at(f, id, (uint32_t)m->use_of[u]) : NULL;
        if (tu && d->cons != CN_ANY && tu->o.cons == CN_REG) {
            d->cons = CN_REUSE;
            d->arg = (uint16_t)m->use_of[u];
        }
        if (o->sub == XS_NONE || (o->flags & MOF_UNDEF) || tied) continue;
        ra_opnd r = *d; /* R16: the def also reads its vreg */
        r.early = false;
        if (r.cons == CN_REUSE) r.cons = CN_REG;
        uint32_t K = push_use(f, &r);
        d = &f->defs.data[f->insts.data[id].d0 + (uint32_t)m->def_of[i]];
        if (d->cons != CN_ANY) {
            d->cons = CN_REUSE;
            d->arg = (uint16_t)K;
        }
    }
}

static void op_generic(imp *x, ra_func *f, uint32_t k, const op_alloc *a)
{
    const mir_inst *p = &x->pre->insts.data[k];
    start(x, f, k, RK_OP, mir_opc(x->rp, p));
    opmap m;
    m.use_of = rv_xmalloc((p->nops + 1) * sizeof(int32_t) * 2);
    m.def_of = m.use_of + p->nops + 1;
    for (uint32_t i = 0; i <= p->nops; i++) m.use_of[i] = m.def_of[i] = -1;
    generic_defs(x, f, k, a, &m);
    generic_uses(x, f, k, a, &m);
    generic_ties(x, f, k, &m);
    add_clobbers(x, f, k);
    rv_free(m.use_of);
}

/* ----- R25: const K ----- */
static void op_const(imp *x, ra_func *f, uint32_t k, const op_alloc *a)
{
    const mir_inst *p = &x->pre->insts.data[k];
    ra_opnd d;
    uint32_t di = 0; /* the def R11 keeps (`dead $eax = MOV32r0 ..., implicit-def $rax`: $rax) */
    while (di < p->nops && !((pre_op(x, k, di)->flags & MOF_DEF) && imp_operand(x, k, di, a, &d))) di++;
    if (di == p->nops) {
        imp_error(x, "R25", x->rp, p->pos, "a constant without a register def");
        return;
    }
    unsigned bits;
    if (pre_op(x, k, di)->vreg != RVI_NONE) {
        uint8_t rc;
        bits = imp_vreg_width(x, pre_op(x, k, di)->vreg, &rc);
    } else {
        bits = x86_reg_at(d.arg)->width;
    }
    if (a && a->any[di] && a->store_bits) bits = a->store_bits;
    int64_t key = imp_key(x, x->rp, x->pre, p, bits, d.rc == RC_GPR);
    ra_inst *in = start(x, f, k, RK_CONST, "const");
    in->key = key;
    push_def(f, &d);
    add_clobbers(x, f, k);
}

/* ----- R21: COPY ----- */
static unsigned loc_width(const imp *x, uint32_t k, uint32_t i)
{
    const mir_op *o = pre_op(x, k, i);
    if (o->vreg != RVI_NONE) {
        uint8_t rc;
        return imp_vreg_width(x, o->vreg, &rc);
    }
    const po_info *pi = pre_po(x, k, i);
    return pi->kind == PO_PDEF || pi->kind == PO_PUSE ? x86_reg_at(pi->loc)->width : 0;
}

/* The part of its source an extract reads, after allocation (R21.2). */
static int extract_part(const imp *x, uint32_t k, const op_alloc *a, unsigned dw)
{
    const mir_op *s = pre_op(x, k, 1);
    if (s->vreg != RVI_NONE) {
        uint32_t sl = a->locs[1];
        if (sl == RVI_NONE || (sl & RVI_SLOT)) return -1;
        return s->sub != XS_NONE ? x86_subreg(sl, (enum x86_sub)s->sub) : x86_at_width(sl, dw);
    }
    if (s->preg < 0) return -1;
    const x86_reg *r = x86_reg_at((unsigned)s->preg);
    return r->kind == XK_VEC ? x86_at_width((unsigned)s->preg, dw) : s->preg;
}

enum copy_kind imp_copy_kind(const imp *x, uint32_t k, const op_alloc *a)
{
    const mir_op *d = pre_op(x, k, 0), *s = pre_op(x, k, 1);
    const po_info *dp = pre_po(x, k, 0), *sp = pre_po(x, k, 1);
    if (s->flags & MOF_UNDEF) return CK_UNDEF;
    if (dp->kind == PO_DROP || sp->kind == PO_DROP || d->sub != XS_NONE) return CK_OPAQUE;
    unsigned sw = loc_width(x, k, 1), dw = loc_width(x, k, 0);
    if (s->sub != XS_NONE) sw = x86_sub_width((enum x86_sub)s->sub);
    if (s->sub == XS_NONE && sw == dw) return CK_FULL;
    if (dw > sw) return CK_OPAQUE;
    if (!a) return CK_EXTRACT;
    int part = extract_part(x, k, a, dw);
    uint32_t dl = d->vreg != RVI_NONE ? a->locs[0] : dp->loc;
    return part >= 0 && dl == (uint32_t)part ? CK_INPLACE : CK_MOVES;
}

static void op_copy(imp *x, ra_func *f, uint32_t k, const op_alloc *a)
{
    enum copy_kind ck = imp_copy_kind(x, k, a);
    ra_opnd d, s;
    bool hd = imp_operand(x, k, 0, a, &d), hs = imp_operand(x, k, 1, a, &s);
    if (ck == CK_UNDEF) {
        start(x, f, k, RK_UNDEF, "undef");
        if (hd) push_def(f, &d);
        return;
    }
    if (ck == CK_OPAQUE || ck == CK_MOVES) {
        op_generic(x, f, k, a); /* R21.4: a plain def, R16's added use for a sub-register def */
        return;
    }
    ra_inst *in = start(x, f, k, RK_COPY, "copy");
    in->why = ck == CK_EXTRACT ? "extract" : ck == CK_INPLACE ? "in-place" : "";
    if (hd) push_def(f, &d);
    if (hs) push_use(f, &s);
}

/* ----- R19: calls ----- */
static bool is_call(const char *opc)
{
    return strncmp(opc, "CALL64", 6) == 0 || strncmp(opc, "TCRETURN", 8) == 0;
}

static const char *callee(imp *x, uint32_t k, bool *indirect)
{
    const mir_inst *p = &x->pre->insts.data[k];
    for (uint32_t i = 0; i < p->nops; i++) {
        const mir_op *o = pre_op(x, k, i);
        if (o->kind == MO_REG && !(o->flags & MOF_IMPLICIT)) break;
        if (o->kind != MO_GLOBAL && o->kind != MO_SYM) continue;
        const char *s = x->rp->t.src + o->name;
        uint32_t n = o->nlen;
        if (n >= 2 && s[0] == '"') s++, n -= 2;
        char *name = rv_arena_alloc(&x->arena, n + 2);
        uint32_t j = 0;
        if (n == 0 || (s[0] >= '0' && s[0] <= '9')) name[j++] = '_';
        for (uint32_t c = 0; c < n; c++) {
            char ch = s[c];
            name[j++] = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ? ch : '_';
        }
        name[j] = 0;
        *indirect = false;
        return name;
    }
    *indirect = true;
    return "indirect";
}

static void op_call(imp *x, ra_func *f, uint32_t k, const op_alloc *a)
{
    const mir_inst *p = &x->pre->insts.data[k];
    bool indirect, mask = false;
    const char *name = callee(x, k, &indirect);
    ra_inst *in = start(x, f, k, RK_CALL, name);
    for (uint32_t i = 0; i < p->nops; i++) {
        ra_opnd o;
        if ((pre_op(x, k, i)->flags & MOF_DEF) && imp_operand(x, k, i, a, &o)) push_def(f, &o);
    }
    for (uint32_t i = 0; i < p->nops; i++) {
        const mir_op *o = pre_op(x, k, i);
        ra_opnd r;
        mask |= o->kind == MO_REGMASK;
        if (!(o->flags & MOF_DEF) && imp_operand(x, k, i, a, &r)) push_use(f, &r);
    }
    if (!mask) {
        imp_refuse(x, "regmask:none", "a call without a regmask (R19)");
        return;
    }
    in = &f->insts.data[f->insts.len - 1];
    bool extra = false;
    for (uint32_t i = 0; i < p->nops; i++)
        if (pre_po(x, k, i)->kind == PO_CLOBBER && x86_csr64_preserves(pre_po(x, k, i)->loc)) extra = true;
    if (!extra) return;
    for (unsigned r = 0; r < X86_NREGS; r++)
        if (x86_reg_at(r) && !x86_csr64_preserves(r) && !(x86_reg_at(r)->kind == XK_GPR && x86_reg_at(r)->row == 7)) ra_clob_set(in, r);
    add_clobbers(x, f, k);
}

/* ----- R22, R23, R24 ----- */
static void op_named(imp *x, ra_func *f, uint32_t k, const op_alloc *a, uint8_t kind, const char *mnem, bool uses)
{
    const mir_inst *p = &x->pre->insts.data[k];
    start(x, f, k, kind, mnem);
    for (uint32_t i = 0; i < p->nops; i++) {
        ra_opnd o;
        if ((pre_op(x, k, i)->flags & MOF_DEF) && imp_operand(x, k, i, a, &o)) push_def(f, &o);
    }
    for (uint32_t i = 0; uses && i < p->nops; i++) {
        ra_opnd o;
        if (!(pre_op(x, k, i)->flags & MOF_DEF) && imp_operand(x, k, i, a, &o)) push_use(f, &o);
    }
    add_clobbers(x, f, k);
}

uint32_t imp_op(imp *x, ra_func *f, uint32_t k, const op_alloc *a)
{
    const mir_inst *p = &x->pre->insts.data[k];
    const char *opc = mir_opc(x->rp, p);
    uint32_t before = f->insts.len;
    if (p->debug) return RVI_NONE;
    if (strcmp(opc, "KILL") == 0 && !(p->nops && (mir_ops(x->pre, p)[0].flags & (MOF_IMPLICIT | MOF_DEF)) == MOF_DEF)) return RVI_NONE; /* R23: no destination, nothing */
    if (strcmp(opc, "COPY") == 0 && p->nops >= 2) op_copy(x, f, k, a);
    else if (strcmp(opc, "IMPLICIT_DEF") == 0) op_named(x, f, k, a, RK_UNDEF, "undef", false);
    else if (strcmp(opc, "KILL") == 0) op_named(x, f, k, a, RK_COPY, "copy", true);
    else if (strcmp(opc, "SUBREG_TO_REG") == 0) op_named(x, f, k, a, RK_OP, "SUBREG_TO_REG", true);
    else if (is_call(opc)) op_call(x, f, k, a);
    else if (imp_is_const(x, x->rp, x->pre, p)) op_const(x, f, k, a);
    else op_generic(x, f, k, a);
    return f->insts.len > before ? f->insts.len - 1 : RVI_NONE;
}
