/* rd_ir.c - the reducer's editable copy of a function: from a ravel_func,
 * deep copies, and back to a machine and a ravel_func through the public
 * builder (so every candidate is built exactly as a JIT would build it). */
#include "reduce/rd.h"

#include <stdlib.h>

/* Copies vector src into dst (dst is overwritten, not freed). */
#define VEC_COPY(dst, src)                                                       \
    do {                                                                         \
        (dst).data = NULL;                                                       \
        (dst).len = (dst).cap = 0;                                               \
        if ((src).len) {                                                         \
            rv_vec_reserve(dst, (src).len);                                      \
            memcpy((dst).data, (src).data, sizeof *(src).data * (src).len);      \
            (dst).len = (src).len;                                               \
        }                                                                        \
    } while (0)

static void mach_from(rd_mach *rm, const ravel_machine *m)
{
    memset(rm, 0, sizeof *rm);
    for (uint32_t c = 0; c < m->classes.len; c++) rv_vec_push(rm->classes, m->classes.data[c].name);
    for (uint32_t r = 0; r < m->regs.len; r++) {
        rd_reg g = {m->regs.data[r].name, m->regs.data[r].cls, m->regs.data[r].reserved};
        rv_vec_push(rm->regs, g);
    }
    VEC_COPY(rm->clobbers, m->clobbers);
    for (uint32_t i = 0; i < m->alias_order.len; i++) /* (in the order declared: the printer's) */
        for (uint32_t r = m->alias_order.data[i], k = 0; k < m->alias.data[r].in.len; k++) {
            rv_vec_push(rm->alias, r);
            rv_vec_push(rm->alias, m->alias.data[r].in.data[k]);
        }
    rm->gc_nonmoving = m->gc_nonmoving;
}

/* The vreg uses and immediates of in, merged back into written order. */
static void uses_from(rd_inst *ri, const ravel_func *f, const rv_inst *in)
{
    const rv_operand *u = rv_inst_uses(f, in);
    const rv_imm *im = &f->imms.data[in->first_imm];
    uint32_t nu = 0, ni = 0;
    for (uint32_t p = 0; p < (uint32_t)in->nuses + in->nimms; p++) {
        rd_use x;
        memset(&x, 0, sizeof x);
        if (ni < in->nimms && im[ni].pos == p) {
            x.is_imm = true;
            x.imm = im[ni++].value;
        } else if (nu < in->nuses) {
            x.op = u[nu++];
        } else {
            continue;
        }
        rv_vec_push(ri->uses, x);
    }
}

static void inst_from(rd_inst *ri, const ravel_func *f, const rv_inst *in)
{
    memset(ri, 0, sizeof *ri);
    ri->op = in->op;
    ri->flags = in->flags;
    ri->name = in->name != RAVEL_NONE ? rv_sym_str(&f->syms, in->name) : NULL;
    if (rv_is_edit(in)) {
        ri->dst = in->u.edit.dst;
        ri->src = in->u.edit.src;
        if (in->op != RAVEL_OP_REMAT) return;
        rd_use k = {.is_imm = true, .imm = rv_remat_k(f, in)};
        rv_vec_push(ri->uses, k);
        for (uint32_t j = 0; (in->flags & RV_IF_CLOBBERS) && j < in->nclob; j++)
            rv_vec_push(ri->clob, f->u32.data[in->first_clob + j]);
        return;
    }
    ri->dst = ri->src = RAVEL_LOC_NONE;
    for (uint32_t k = 0; k < in->ndefs; k++) rv_vec_push(ri->defs, rv_inst_defs(f, in)[k]);
    uses_from(ri, f, in);
    for (uint32_t k = 0; (in->flags & RV_IF_CLOBBERS) && k < in->nclob; k++)
        rv_vec_push(ri->clob, f->u32.data[in->first_clob + k]);
    if (rv_is_term(in)) {
        for (uint32_t k = 0; k < rv_inst_nsuccs(in); k++) {
            const rv_succ *s = &rv_inst_succs(f, in)[k];
            rd_succ rs = {s->block, {0}};
            for (uint32_t a = 0; a < s->nargs; a++) rv_vec_push(rs.args, rv_succ_args(f, s)[a]);
            rv_vec_push(ri->succs, rs);
        }
    } else if (in->flags & RV_IF_STACKMAP) {
        for (uint32_t k = 0; k < in->u.smap.n; k++) rv_vec_push(ri->smap, f->u32.data[in->u.smap.first + k]);
    }
}

void rd_from_func(rd_func *r, const ravel_func *f)
{
    memset(r, 0, sizeof *r);
    mach_from(&r->m, f->mach);
    r->name = rv_func_name(f);
    for (uint32_t v = 0; v < f->vregs.len; v++) {
        rd_vreg x = {f->vregs.data[v].num, f->vregs.data[v].cls, f->vregs.data[v].ref};
        rv_vec_push(r->vregs, x);
    }
    for (uint32_t b = 0; b < f->layout.len; b++) {
        const rv_block *bl = &f->blocks.data[b];
        rd_block rb;
        memset(&rb, 0, sizeof rb);
        rb.name = rv_block_name(f, b);
        for (uint32_t k = 0; k < bl->nparams; k++) rv_vec_push(rb.params, rv_block_params(f, bl)[k]);
        for (uint32_t k = 0; k < bl->ninsts; k++) {
            rd_inst ri;
            inst_from(&ri, f, rv_inst_at(f, bl->first_inst + k));
            rv_vec_push(rb.insts, ri);
        }
        rv_vec_push(r->blocks, rb);
    }
}

static void inst_clone(rd_inst *d, const rd_inst *s)
{
    *d = *s;
    VEC_COPY(d->defs, s->defs);
    VEC_COPY(d->uses, s->uses);
    VEC_COPY(d->clob, s->clob);
    VEC_COPY(d->smap, s->smap);
    VEC_COPY(d->succs, s->succs);
    for (uint32_t k = 0; k < s->succs.len; k++) VEC_COPY(d->succs.data[k].args, s->succs.data[k].args);
}

void rd_clone(rd_func *d, const rd_func *s)
{
    memset(d, 0, sizeof *d);
    VEC_COPY(d->m.classes, s->m.classes);
    VEC_COPY(d->m.regs, s->m.regs);
    VEC_COPY(d->m.clobbers, s->m.clobbers);
    VEC_COPY(d->m.alias, s->m.alias);
    d->m.gc_nonmoving = s->m.gc_nonmoving;
    d->name = s->name;
    VEC_COPY(d->vregs, s->vregs);
    VEC_COPY(d->blocks, s->blocks);
    for (uint32_t b = 0; b < s->blocks.len; b++) {
        const rd_block *sb = &s->blocks.data[b];
        rd_block *db = &d->blocks.data[b];
        VEC_COPY(db->params, sb->params);
        VEC_COPY(db->insts, sb->insts);
        for (uint32_t k = 0; k < sb->insts.len; k++) inst_clone(&db->insts.data[k], &sb->insts.data[k]);
    }
}

void rd_inst_free(rd_inst *in)
{
    for (uint32_t k = 0; k < in->succs.len; k++) rv_vec_free(in->succs.data[k].args);
    rv_vec_free(in->succs);
    rv_vec_free(in->defs);
    rv_vec_free(in->uses);
    rv_vec_free(in->clob);
    rv_vec_free(in->smap);
}

void rd_block_free(rd_block *b)
{
    for (uint32_t k = 0; k < b->insts.len; k++) rd_inst_free(&b->insts.data[k]);
    rv_vec_free(b->insts);
    rv_vec_free(b->params);
}

void rd_free(rd_func *r)
{
    for (uint32_t b = 0; b < r->blocks.len; b++) rd_block_free(&r->blocks.data[b]);
    rv_vec_free(r->blocks);
    rv_vec_free(r->vregs);
    rv_vec_free(r->m.classes);
    rv_vec_free(r->m.regs);
    rv_vec_free(r->m.clobbers);
    rv_vec_free(r->m.alias);
}

uint32_t rd_ninsts(const rd_func *r)
{
    uint32_t n = 0;
    for (uint32_t b = 0; b < r->blocks.len; b++) n += r->blocks.data[b].insts.len;
    return n;
}

/* ---- building ------------------------------------------------------------- */

static ravel_machine *build_mach(const rd_mach *rm)
{
    ravel_machine *m = ravel_machine_new();
    bool ok = true;
    for (uint32_t c = 0; c < rm->classes.len; c++) ok &= ravel_machine_add_class(m, rm->classes.data[c]) == (int)c;
    for (uint32_t r = 0; ok && r < rm->regs.len; r++)
        ok &= ravel_machine_add_reg(m, rm->regs.data[r].name, rm->regs.data[r].cls, rm->regs.data[r].reserved) ==
              (int)r;
    if (ok) ok = ravel_machine_set_clobbers(m, rm->clobbers.data, rm->clobbers.len) == RAVEL_OK;
    for (uint32_t k = 0; ok && k + 1 < rm->alias.len; k += 2)
        ok = ravel_machine_alias(m, rm->alias.data[k], rm->alias.data[k + 1]) == RAVEL_OK;
    ravel_machine_set_gc_moving(m, !rm->gc_nonmoving);
    if (!ok) {
        ravel_machine_free(m);
        return NULL;
    }
    return m;
}

static ravel_pos op_pos(const rv_operand *o)
{
    if (!(o->flags & RV_OPF_EXPLICIT_POS)) return RAVEL_POS_DEFAULT;
    return (o->flags & RV_OPF_LATE) ? RAVEL_POS_LATE : RAVEL_POS_EARLY;
}

static bool build_inst(ravel_func *f, const rd_inst *in)
{
    if (in->op >= RAVEL_OP_SPILL && in->op <= RAVEL_OP_MOVE)
        return ravel_edit(f, (ravel_opcode)in->op, in->dst, in->src) >= 0;
    if (in->op == RAVEL_OP_REMAT)
        return in->uses.len == 1 && in->uses.data[0].is_imm &&
               ravel_remat(f, in->dst, in->uses.data[0].imm, in->clob.data,
                           (in->flags & RV_IF_CLOBBERS) ? in->clob.len : 0) >= 0;
    bool ok = ravel_inst_begin(f, (ravel_opcode)in->op, in->name) >= 0;
    for (uint32_t k = 0; ok && k < in->defs.len; k++) {
        const rv_operand *o = &in->defs.data[k];
        ok = ravel_inst_def(f, o->vreg, (ravel_constraint)o->kind, o->arg, op_pos(o), o->loc) == RAVEL_OK;
    }
    for (uint32_t k = 0; ok && k < in->uses.len; k++) {
        const rd_use *u = &in->uses.data[k];
        if (u->is_imm) ok = ravel_inst_imm(f, u->imm) == RAVEL_OK;
        else ok = ravel_inst_use(f, u->op.vreg, (ravel_constraint)u->op.kind, u->op.arg, op_pos(&u->op),
                                 u->op.loc) == RAVEL_OK;
    }
    if (ok && (in->flags & RV_IF_CLOBBERS)) ok = ravel_inst_clobbers(f, in->clob.data, in->clob.len) == RAVEL_OK;
    if (ok && (in->flags & RV_IF_SAFEPOINT)) ok = ravel_inst_safepoint(f) == RAVEL_OK;
    if (ok && (in->flags & RV_IF_STACKMAP)) ok = ravel_inst_stackmap(f, in->smap.data, in->smap.len) == RAVEL_OK;
    for (uint32_t k = 0; ok && k < in->succs.len; k++) {
        const rd_succ *s = &in->succs.data[k];
        ok = ravel_inst_succ(f, s->block, s->args.data, s->args.len) == RAVEL_OK;
    }
    return ok && ravel_inst_end(f) == RAVEL_OK;
}

static bool build_vregs(ravel_func *f, const rd_func *r)
{
    for (uint32_t v = 0; v < r->vregs.len; v++) {
        if (rv_vreg_by_num(f, r->vregs.data[v].num) != v) return false; /* numbers must be unique */
        f->vregs.data[v].cls = r->vregs.data[v].cls;
        f->vregs.data[v].ref = r->vregs.data[v].ref;
        f->vregs.data[v].has_class = true;
    }
    return true;
}

ravel_func *rd_build(const rd_func *r, ravel_machine **mp)
{
    ravel_machine *m = build_mach(&r->m);
    *mp = m;
    if (!m) return NULL;
    ravel_func *f = ravel_func_new(m, r->name);
    bool ok = f && build_vregs(f, r);
    for (uint32_t b = 0; ok && b < r->blocks.len; b++) ok = ravel_block_new(f, r->blocks.data[b].name) == b;
    for (uint32_t b = 0; ok && b < r->blocks.len; b++)
        for (uint32_t k = 0; ok && k < r->blocks.data[b].params.len; k++)
            ok = ravel_block_add_param(f, b, r->blocks.data[b].params.data[k]) == RAVEL_OK;
    for (uint32_t b = 0; ok && b < r->blocks.len; b++) {
        const rd_block *rb = &r->blocks.data[b];
        ok = ravel_block_begin(f, b) == RAVEL_OK;
        for (uint32_t k = 0; ok && k < rb->insts.len; k++) ok = build_inst(f, &rb->insts.data[k]);
    }
    if (ok) ok = ravel_func_finish(f) == RAVEL_OK;
    if (!ok) {
        ravel_func_free(f);
        return NULL;
    }
    return f;
}
