/*
 * join.c - stage S4: the allocator's result as one list per block.
 *
 * greedy, basic, pbqp: the dump before the rewriter (vregs) and the one
 * after it (registers) are paired on slot indexes, which the rewriter
 * neither adds nor renumbers. A line missing after the rewriter is a copy
 * it deleted (p == NULL); one that became a KILL is kept with its
 * registers. Every vreg operand before gets the register of its partner
 * after, at the vreg's width (R5), and greedy, basic and pbqp give each
 * vreg one register: x->vm.reg, with an import error naming both
 * registers when two operands disagree.
 * fast: there is no such pair; the dump after regallocfast is the result
 * and each operand's register stands alone (R5); the dump before it gives
 * the ties (x->fast_before).
 *
 * Requires: imp_check passed. Guarantees: x->rblocks mirror the pre
 * blocks one to one (same numbers, same order; else an import error),
 * x->rs holds every non-debug result instruction in order with its tag
 * and slot index, x->pre_tag every pre instruction's tag.
 */
#include "import/imp.h"

/* The register R of width w in P's row with subreg(R, sub) = P (R5);
 * without an index, P at width w. -1 if none. */
int imp_full_reg(unsigned p, unsigned sub, unsigned w)
{
    const x86_reg *r = x86_reg_at(p);
    if (!r) return -1;
    if (sub == XS_NONE) {
        int at = x86_at_width(p, w);
        if (r->kind == XK_GPR && at != (int)p) return -1;
        return at;
    }
    int top = x86_row_top(p);
    for (unsigned k = 0; k < 5 && top >= 0; k++) {
        const x86_reg *c = x86_reg_at((unsigned)top + k);
        if (c && c->kind == r->kind && c->row == r->row && c->width == w && c->lo == 0 &&
            x86_subreg((unsigned)top + k, (enum x86_sub)sub) == (int)p)
            return top + (int)k;
    }
    return -1;
}

static uint32_t pre_tags(imp *x)
{
    const mir_func *f = x->pre;
    x->pre_tag = rv_arena_alloc(&x->arena, (f->insts.len + 1) * sizeof *x->pre_tag);
    for (uint32_t k = 0; k < f->insts.len; k++) {
        const mir_inst *in = &f->insts.data[k];
        uint32_t t = in->tag;
        if (!t && in->md != RVI_NONE) t = mir_module_md_line(&x->m->tag, in->md);
        x->pre_tag[k] = in->debug ? 0 : t;
    }
    return f->insts.len;
}

static int32_t *positions(imp *x, const mir_func *f, uint32_t *n)
{
    uint32_t top = 0;
    for (uint32_t b = 0; b < f->blocks.len; b++)
        if ((uint32_t)f->blocks.data[b].num + 1 > top) top = (uint32_t)f->blocks.data[b].num + 1;
    if (top > 4 * f->blocks.len + 1024) top = 4 * f->blocks.len + 1024;
    int32_t *pos = rv_arena_alloc(&x->arena, (top + 1) * sizeof *pos);
    for (uint32_t i = 0; i <= top; i++) pos[i] = -1;
    for (uint32_t b = 0; b < f->blocks.len; b++)
        if ((uint32_t)f->blocks.data[b].num < top) pos[f->blocks.data[b].num] = (int32_t)b;
    *n = top;
    return pos;
}

int64_t imp_fi(const imp *x, bool fixed, int64_t v)
{
    const mir_func *p = x->pre, *q = x->post;
    if (!fixed) {
        for (uint32_t i = 0; i < p->stack.len; i++)
            if (p->stack.data[i].id == v) return i;
        return -1;
    }
    for (uint32_t i = 0; i < p->fixed.len; i++) {
        if (p->fixed.data[i].id != v) continue;
        for (uint32_t j = 0; q && j < q->fixed.len; j++)
            if (q->fixed.data[j].offset == p->fixed.data[i].offset) return q->fixed.data[j].id;
        return (int64_t)p->fixed.len - 1 - i;
    }
    return -1;
}

void imp_positions(imp *x)
{
    if (!x->lay.pre) x->lay.pre = positions(x, x->pre, &x->lay.npre);
}

int32_t imp_block_pos(const imp *x, bool result, int64_t num)
{
    const int32_t *pos = result ? x->lay.res : x->lay.pre;
    uint32_t n = result ? x->lay.nres : x->lay.npre;
    return pos && num >= 0 && (uint64_t)num < n ? pos[num] : -1;
}

/* The allocators keep the blocks and the CFG: the same number of blocks,
 * and block i's successors are, in layout positions, block i's. llc may
 * renumber the blocks it reads (in layout order), so numbers are compared
 * through positions. */
static bool same_blocks(imp *x, const mir_func *r)
{
    const mir_func *p = x->pre;
    if (p->blocks.len != r->blocks.len) {
        imp_error(x, "S4", x->rv, 0, "the allocator's output has %u blocks, the input %u", r->blocks.len, p->blocks.len);
        return false;
    }
    if (!x->lay.pre) x->lay.pre = positions(x, p, &x->lay.npre);
    uint32_t n;
    int32_t *rp = positions(x, r, &n);
    if (!x->lay.res) x->lay.res = rp, x->lay.nres = n;
    for (uint32_t b = 0; b < p->blocks.len; b++) {
        const mir_block *pb = &p->blocks.data[b], *rb = &r->blocks.data[b];
        bool same = pb->ns == rb->ns;
        for (uint32_t s = 0; same && s < pb->ns; s++) {
            uint32_t pn = p->u32.data[pb->s0 + s], rn = r->u32.data[rb->s0 + s];
            same = imp_block_pos(x, false, pn) == (rn < n ? rp[rn] : -1);
        }
        if (!same) {
            imp_error(x, "S4", x->rv, 0, "block %u (bb.%d) has other successors in the allocator's output", b, pb->num);
            return false;
        }
    }
    return true;
}

static void push_rinst(imp *x, const mir_inst *v, const mir_inst *p)
{
    rinst ri;
    memset(&ri, 0, sizeof ri);
    ri.v = v;
    ri.p = p;
    const mir_inst *t = v ? v : p;
    ri.tag = t->tag;
    ri.slot = t->slot;
    ri.orig = RVI_NONE;
    ri.mem = -1;
    rv_vec_push(x->rs, ri);
}

/* R5 for one vreg operand of the dump before, paired with its register. */
static void note_vreg(imp *x, const mir_op *vo, const mir_op *po, const mir_inst *pin)
{
    if (po->kind != MO_REG || po->preg < 0) {
        imp_error(x, "R12", x->rv, po->pos, "%%%u is placed in $%.*s, outside the machine", vo->vreg, (int)po->nlen,
                  x->rv->t.src + po->name);
        return;
    }
    if (vo->cls == RVI_NONE) {
        imp_error(x, "S4", x->rv, vo->pos, "%%%u has no class in the dump", vo->vreg);
        return;
    }
    const char *cn = rv_sym_str(x->rv->syms, vo->cls);
    x86_class c = x86_class_find(cn, strlen(cn));
    int r = imp_full_reg((unsigned)po->preg, vo->sub, c.rc == RC_FLAGS ? 32 : c.width);
    if (r < 0) {
        imp_error(x, "R5", x->rv, po->pos, "%%%u (%s) in $%s: no register of its width has that as its %s part", vo->vreg, cn,
                  x86_reg_at((unsigned)po->preg)->name, vo->sub ? "sub-register" : "whole");
        return;
    }
    if (vo->vreg >= x->vm.nreg) return;
    uint32_t *slot = &x->vm.reg[vo->vreg];
    if (*slot == RVI_NONE) *slot = (uint32_t)r;
    else if (*slot != (uint32_t)r)
        imp_error(x, "R5", x->rv, po->pos, "%%%u is in %s here and in %s elsewhere", vo->vreg, x86_reg_at((unsigned)r)->name,
                  x86_reg_at(*slot)->name);
    (void)pin;
}

static void pair_operands(imp *x, const mir_inst *v, const mir_inst *p)
{
    if (p->nops < v->nops) {
        imp_error(x, "S4", x->rv, p->pos, "the rewriter's line has fewer operands than the allocator's (slot %dB)", v->slot);
        return;
    }
    for (uint32_t j = 0; j < v->nops && !imp_failed(x); j++) {
        const mir_op *vo = &mir_ops(x->bf, v)[j], *po = &mir_ops(x->af, p)[j];
        if (vo->kind == MO_REG && vo->vreg != RVI_NONE) note_vreg(x, vo, po, p);
        else if (vo->kind != po->kind)
            imp_error(x, "S4", x->rv, po->pos, "operand %u differs in kind before and after the rewriter", j);
        else if (vo->kind == MO_REG && (vo->preg != po->preg || (vo->preg < 0 && vo->nlen != po->nlen)))
            imp_error(x, "S4", x->rv, po->pos, "the rewriter changed physical register $%.*s to $%.*s", (int)vo->nlen,
                      x->rv->t.src + vo->name, (int)po->nlen, x->rv->t.src + po->name);
    }
}

static void join_block(imp *x, const mir_block *bb, const mir_block *ab)
{
    uint32_t j = 0;
    for (uint32_t k = 0; k < bb->n && !imp_failed(x); k++) {
        const mir_inst *v = mir_block_inst(x->bf, bb, k);
        if (v->debug) continue;
        if (v->slot < 0) {
            imp_error(x, "S4", x->rv, v->pos, "an instruction without a slot index in the dump before the rewriter");
            return;
        }
        while (j < ab->n && mir_block_inst(x->af, ab, j)->debug) j++;
        const mir_inst *p = j < ab->n ? mir_block_inst(x->af, ab, j) : NULL;
        if (p && p->slot < v->slot) {
            imp_error(x, "S4", x->rv, p->pos, "the rewriter's output has an instruction at %dB that the allocator's has not", p->slot);
            return;
        }
        if (p && p->slot == v->slot) {
            j++;
            pair_operands(x, v, p);
        } else {
            p = NULL;
        }
        push_rinst(x, v, p);
    }
    while (j < ab->n && mir_block_inst(x->af, ab, j)->debug) j++;
    if (j < ab->n && !imp_failed(x))
        imp_error(x, "S4", x->rv, mir_block_inst(x->af, ab, j)->pos, "the rewriter's output has an instruction the allocator's has not");
}

static unsigned class_width(const imp *x, const mir_op *o)
{
    if (o->cls == RVI_NONE) return 0;
    const char *cn = rv_sym_str(x->rv->syms, o->cls);
    x86_class c = x86_class_find(cn, strlen(cn));
    return c.rc == RC_FLAGS ? 32 : c.width;
}

/* The register part operand o of a deleted copy names, -1 if unknown. */
static int part_of(const imp *x, const mir_op *o)
{
    if (o->vreg == RVI_NONE) return o->preg;
    if (o->vreg >= x->vm.nreg || x->vm.reg[o->vreg] == RVI_NONE) return -1;
    return o->sub ? x86_subreg(x->vm.reg[o->vreg], (enum x86_sub)o->sub) : (int)x->vm.reg[o->vreg];
}

/* R27: a copy the rewriter deleted has its source and destination in one
 * register, which gives a vreg seen only in such copies its register
 * (`%2 = COPY $rdx` ... `$rdx = COPY %2`). To a fixpoint. */
static void infer_deleted(imp *x)
{
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0; i < x->rs.len; i++) {
            const rinst *ri = &x->rs.data[i];
            if (ri->p || !ri->v || ri->v->nops < 2 || !mir_opc_is(x->rv, ri->v, "COPY")) continue;
            const mir_op *d = &mir_ops(x->bf, ri->v)[0], *s = &mir_ops(x->bf, ri->v)[1];
            int sp = part_of(x, s), dp = part_of(x, d);
            if (sp >= 0 && dp < 0 && d->vreg != RVI_NONE && d->vreg < x->vm.nreg && class_width(x, d)) {
                int r = imp_full_reg((unsigned)sp, d->sub, class_width(x, d));
                if (r < 0 && !d->sub) r = x86_at_width((unsigned)sp, class_width(x, d));
                if (r >= 0) x->vm.reg[d->vreg] = (uint32_t)r, changed = true;
            } else if (dp >= 0 && sp < 0 && s->vreg != RVI_NONE && s->vreg < x->vm.nreg && class_width(x, s)) {
                int r = imp_full_reg((unsigned)dp, s->sub, class_width(x, s));
                if (r >= 0) x->vm.reg[s->vreg] = (uint32_t)r, changed = true;
            }
        }
    }
}

static void join_pair(imp *x)
{
    if (!same_blocks(x, x->bf) || !same_blocks(x, x->af)) return;
    x->vm.nreg = 0;
    for (uint32_t i = 0; i < x->bf->ops.len; i++) {
        const mir_op *o = &x->bf->ops.data[i];
        if (o->kind == MO_REG && o->vreg != RVI_NONE && o->vreg + 1 > x->vm.nreg) x->vm.nreg = o->vreg + 1;
    }
    if (x->vm.nreg > 4u * x->bf->ops.len + 1024) x->vm.nreg = 4u * x->bf->ops.len + 1024;
    x->vm.reg = rv_arena_alloc(&x->arena, (x->vm.nreg + 1) * sizeof *x->vm.reg);
    for (uint32_t i = 0; i <= x->vm.nreg; i++) x->vm.reg[i] = RVI_NONE;
    for (uint32_t b = 0; b < x->bf->blocks.len && !imp_failed(x); b++) {
        rblock rb = {x->bf->blocks.data[b].num, x->rs.len, 0};
        join_block(x, &x->bf->blocks.data[b], &x->af->blocks.data[b]);
        rb.n = x->rs.len - rb.i0;
        rv_vec_push(x->rblocks, rb);
    }
    if (!imp_failed(x)) infer_deleted(x);
}

/* fast: the dump after is the result; the dump before gives the ties. */
static void join_fast(imp *x)
{
    if (!same_blocks(x, x->af) || !same_blocks(x, x->bf)) return;
    for (uint32_t b = 0; b < x->af->blocks.len; b++) {
        const mir_block *ab = &x->af->blocks.data[b];
        rblock rb = {ab->num, x->rs.len, 0};
        for (uint32_t k = 0; k < ab->n; k++) {
            const mir_inst *p = mir_block_inst(x->af, ab, k);
            if (!p->debug) push_rinst(x, NULL, p);
        }
        rb.n = x->rs.len - rb.i0;
        rv_vec_push(x->rblocks, rb);
    }
    /* tag -> the dump before's line, for each pre instruction */
    uint32_t n = x->pre->insts.len;
    x->fast_before = rv_arena_alloc(&x->arena, (n + 1) * sizeof *x->fast_before);
    const mir_func *bf = x->bf;
    uint32_t k = 0;
    for (uint32_t i = 0; i < bf->insts.len; i++) {
        const mir_inst *v = &bf->insts.data[i];
        if (v->debug || !v->tag) continue;
        while (k < n && x->pre_tag[k] < v->tag) k++;
        if (k < n && x->pre_tag[k] == v->tag) x->fast_before[k] = v;
    }
}

void imp_join(imp *x)
{
    pre_tags(x);
    if (x->alloc == RVI_FAST) join_fast(x);
    else join_pair(x);
}

int imp_memref_at(const imp *x, const mir_reader *r, const mir_func *f, const mir_inst *in, uint32_t j, int64_t *index)
{
    if (j + 5 > in->nops) return MR_NONE;
    const mir_op *o = mir_ops(f, in) + j;
    if (o[1].kind != MO_IMM || o[1].val != 1 || o[2].kind != MO_REG || o[4].kind != MO_REG) return MR_NONE;
    const mir_func *pf = x->post;
    if ((o[0].kind == MO_FI || o[0].kind == MO_FIXED) && o[3].kind == MO_IMM && o[3].val == 0) {
        bool fixed = o[0].kind == MO_FIXED;
        const mir_obj *objs = fixed ? pf->fixed.data : pf->stack.data;
        uint32_t n = fixed ? pf->fixed.len : pf->stack.len;
        for (uint32_t i = 0; i < n; i++)
            if (objs[i].id == o[0].val && (fixed ? objs[i].immutable : objs[i].spill)) {
                *index = o[0].val;
                return fixed ? MR_FIXED : MR_SPILL;
            }
        return MR_NONE;
    }
    bool rip = o[0].kind == MO_REG && o[0].preg == PR_DROP && o[0].nlen == 3 && memcmp(r->t.src + o[0].name, "rip", 3) == 0;
    if (rip && o[3].kind == MO_CPI && o[3].off == 0) {
        *index = o[3].val;
        return MR_POOL;
    }
    if (rip && o[3].kind == MO_GLOBAL) {
        for (uint32_t m = 0; m < in->nmem; m++) {
            const mir_mem *mm = &f->mems.data[in->mem0 + m];
            if (!mm->store && (mm->what == MO_GLOBAL || mm->invariant)) {
                *index = (int64_t)j + 3;
                return MR_GLOBAL;
            }
        }
    }
    return MR_NONE;
}

uint32_t imp_invariant_slot(imp *x, int kind, int64_t index, const char *gname)
{
    if (kind != MR_GLOBAL) return RVI_SLOT | (uint32_t)((kind == MR_POOL ? 1000 : 1500) + index);
    uint32_t k = 0;
    while (k < x->bd.globals.len && strcmp(x->bd.globals.data[k], gname) != 0) k++;
    if (k == x->bd.globals.len) rv_vec_push(x->bd.globals, rv_arena_strndup(&x->arena, gname, strlen(gname)));
    if (k >= 300) imp_refuse(x, "slots", "300 or more invariant globals read by folds (R7)");
    return RVI_SLOT | (1700u + k);
}
