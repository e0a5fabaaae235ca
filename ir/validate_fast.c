/* validate_fast.c - the validator's fast path (ir/validate.h): proves a
 * function valid without formatting any text, or gives up.
 *
 * Requires: a finished function with its machine (f->mach). Guarantees:
 * true only if rv_validate_careful (validate.c) would return RAVEL_OK and
 * report nothing, with or without RAVEL_VALIDATE_SSA; it reports nothing
 * itself, and changes nothing.
 *
 * Most functions validated are valid (read from text, built by a JIT, or
 * generated), and for them the careful passes cost ~1,150 machine
 * instructions per IR instruction: five per-call arrays, a CFG with loops, per-operand
 * calls, idom queries through a function. rv_validate_fast proves instead
 * that the careful passes would report nothing, in three scans without any
 * text: (F1) terminators and edges, (F2) reverse post-order, dominators and
 * a dominator-tree interval per block, critical edges, (F3) every block in
 * RPO, each instruction's uses, then its defs and its shape.
 *
 * What it proves is "well formed AND strict SSA": each vreg is defined once,
 * every use is dominated by its definition. With RAVEL_VALIDATE_SSA that is
 * exactly what the careful passes accept; without, it is sufficient (they
 * check less). Visiting blocks in RPO makes dominance one test per use: a
 * definition dominating a use was visited before it (a dominator precedes in
 * RPO; within a block, uses are checked before the instruction's defs are
 * recorded), so each vreg keeps the dominator-tree interval [lo, lo + span)
 * of its block once defined (span 0: not defined yet), and the use in a
 * block numbered L is dominated iff L - lo < span (unsigned).
 *
 * It gives up (false; the careful passes run and report) at the first
 * check that fails, and on valid but unusual shapes: a block unreachable
 * from the entry, an irreducible CFG, a vreg defined twice (valid without
 * RAVEL_VALIDATE_SSA), and, for a function without any location, edit or
 * stackmap, instructions or operands not laid out in order (then
 * rv_func_is_allocated decides, as the careful path does).
 *
 * One allocation per call (ravel_validate has no context to keep scratch).
 * Cost on generated functions of ~250 instructions (callgrind, bench_fuzz
 * --config 250): 144k machine instructions per validation by the careful
 * passes, 39k by the fast path. */

#include "ir.h"
#include "validate.h"

#include <string.h>

typedef struct fdef {
    uint32_t lo, span; /* dominator-tree interval of the defining block; span 0: undefined */
} fdef;

typedef struct fctx {
    const ravel_func *f;
    const ravel_machine *m;
    uint32_t nb, nv;
    fdef *def;        /* vreg -> interval of its definition's block */
    uint32_t *npred;  /* block -> predecessor edges */
    uint32_t *succ0;  /* block -> its terminator's first successor in f->succs */
    uint32_t *nsucc;  /* block -> successor edges */
    uint32_t *rpo;    /* RPO index -> block */
    uint32_t *rpoi;   /* block -> RPO index (RAVEL_NONE while unvisited) */
    uint32_t *idom;   /* RPO index -> RPO index of the immediate dominator */
    uint32_t *pre;    /* RPO index -> dominator-tree preorder number */
    uint32_t *size;   /* RPO index -> dominator subtree size */
    uint32_t *work;   /* DFS stack, then per-node preorder cursor */
    uint32_t *cur;    /* block -> next successor to visit (DFS) */
    uint32_t *op_lo, *op_hi; /* block -> f->ops range of its instructions (if in order) */
    uint32_t nops;     /* operands of the instructions that are not edits */
    uint32_t located;  /* of which with a location */
    uint32_t nosmap;   /* safepoints (not terminators) without a stackmap */
    bool alloc_seen;   /* a location, edit or stackmap was seen */
    bool in_order;     /* blocks and operands laid out back to back */
} fctx;

/* F1: every block ends with a terminator (and only its last instruction is
 * one, checked in F3), every successor is a block of the layout other than
 * the entry; counts predecessor edges. */
static bool fast_edges(fctx *x)
{
    const ravel_func *f = x->f;
    uint32_t next = 0;
    for (uint32_t b = 0; b < x->nb; b++) {
        const rv_block *bl = &f->blocks.data[b];
        if (!bl->ninsts) return false;
        x->in_order &= bl->first_inst == next;
        next = bl->first_inst + bl->ninsts;
        const rv_inst *t = rv_inst_at(f, next - 1);
        if (!rv_is_term(t)) return false;
        uint32_t ns = rv_inst_nsuccs(t);
        x->nsucc[b] = ns;
        x->succ0[b] = ns ? t->u.succ.first : 0;
        for (uint32_t k = 0; k < ns; k++) {
            uint32_t s = f->succs.data[t->u.succ.first + k].block;
            if (s == 0 || s >= x->nb) return false; /* the entry has no preds; undefined block */
            x->npred[s]++;
        }
    }
    x->in_order &= next == f->insts.len;
    return true;
}

/* F2a: reverse post-order by an iterative DFS from the entry; also rejects
 * critical edges (every edge is seen once). False if a block is unreachable. */
static bool fast_rpo(fctx *x)
{
    const rv_succ *succs = x->f->succs.data;
    uint32_t *stk = x->work, sp = 0, top = x->nb;
    for (uint32_t b = 0; b < x->nb; b++) x->rpoi[b] = RAVEL_NONE;
    stk[sp++] = 0;
    x->cur[0] = 0;
    x->rpoi[0] = 0;
    while (sp) {
        uint32_t b = stk[sp - 1];
        if (x->cur[b] == x->nsucc[b]) {
            x->rpo[--top] = b;
            sp--;
            continue;
        }
        uint32_t s = succs[x->succ0[b] + x->cur[b]++].block;
        if (x->nsucc[b] >= 2 && x->npred[s] >= 2) return false; /* critical edge */
        if (x->rpoi[s] != RAVEL_NONE) continue;
        x->rpoi[s] = 0;
        x->cur[s] = 0;
        stk[sp++] = s;
    }
    if (top != 0) return false; /* unreachable blocks */
    for (uint32_t i = 0; i < x->nb; i++) x->rpoi[x->rpo[i]] = i;
    return true;
}

/* F2b: dominators of the forward edges in one RPO sweep (a block's forward
 * predecessors all precede it), subtree sizes, then nested preorder
 * intervals: a dominates b iff pre[b] - pre[a] < size[a]. The forward-edge
 * dominators are the dominators when every retreating edge p -> h has h
 * dominating p (reducible CFG), which is verified; false otherwise. */
static bool fast_dominators(fctx *x)
{
    const rv_succ *succs = x->f->succs.data;
    uint32_t n = x->nb, *idom = x->idom, *pre = x->pre, *size = x->size, *next = x->work;
    bool retreating = false;
    idom[0] = 0;
    for (uint32_t i = 1; i < n; i++) idom[i] = RAVEL_NONE;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t b = x->rpo[i];
        for (uint32_t k = 0; k < x->nsucc[b]; k++) {
            uint32_t j = x->rpoi[succs[x->succ0[b] + k].block];
            if (j <= i) retreating = true;
            else idom[j] = idom[j] == RAVEL_NONE ? i : rv_dom_meet(idom, i, idom[j]);
        }
    }
    for (uint32_t i = 0; i < n; i++) size[i] = 1;
    for (uint32_t i = n; i-- > 1;) size[idom[i]] += size[i];
    pre[0] = 0;
    next[0] = 1;
    for (uint32_t i = 1; i < n; i++) { /* a parent precedes its children in RPO */
        pre[i] = next[idom[i]];
        next[idom[i]] += size[i];
        next[i] = pre[i] + 1;
    }
    for (uint32_t i = 0; retreating && i < n; i++) {
        uint32_t b = x->rpo[i];
        for (uint32_t k = 0; k < x->nsucc[b]; k++) {
            uint32_t j = x->rpoi[succs[x->succ0[b] + k].block];
            if (j <= i && pre[i] - pre[j] >= size[j]) return false; /* irreducible */
        }
    }
    return true;
}

/* check_constraint and check_operand_loc for an operand that is not plain
 * (fast_plain) and whose vreg exists with class cls: true if they would
 * report nothing. Counts the operand in x->located if it has a location. */
__attribute__((cold)) static bool fast_operand(fctx *x, const rv_inst *in, const rv_operand *o, uint8_t cls)
{
    const ravel_machine *m = x->m;
    if (o->kind == RAVEL_C_FIXED) {
        if (o->arg >= m->regs.len || m->regs.data[o->arg].cls != cls) return false;
    } else if (o->kind == RAVEL_C_REUSE) {
        if (!rv_op_is_def(o) || o->arg >= in->nuses) return false;
        uint32_t u = rv_inst_uses(x->f, in)[o->arg].vreg;
        if (u >= x->nv) return false; /* reported as a use */
        const rv_vreg *du = &x->f->vregs.data[u];
        if (du->has_class && du->cls != cls) return false;
    } else if (o->kind > RAVEL_C_REUSE) {
        return false;
    }
    ravel_loc l = o->loc;
    if (l == RAVEL_LOC_NONE) return true;
    x->located++;
    x->alloc_seen = true;
    if (ravel_loc_is_slot(l)) return ravel_loc_slot(l) <= RAVEL_MAX_SLOT;
    if (l >= m->regs.len) return false;
    const rv_reg *r = &m->regs.data[l];
    return r->cls == cls && (!r->reserved || (o->kind == RAVEL_C_FIXED && o->arg == l));
}

/* A plain operand (reg, any or stack; no location) needs no check beyond
 * its vreg's. */
static inline bool fast_plain(const rv_operand *o)
{
    return o->kind <= RAVEL_C_STACK && o->loc == RAVEL_LOC_NONE;
}

/* fast_operand, with its most common case inline: fixed(R) without a
 * location (R must exist and be of class cls). */
static inline bool fast_fixed_or_operand(fctx *x, const rv_inst *in, const rv_operand *o, uint8_t cls)
{
    if (o->kind != RAVEL_C_FIXED || o->loc != RAVEL_LOC_NONE) return fast_operand(x, in, o, cls);
    return o->arg < x->m->regs.len && x->m->regs.data[o->arg].cls == cls;
}

/* A block parameter v of a block with interval here: v exists, has a
 * class, and was not defined before; it is from now on. */
static bool fast_param(fctx *x, uint32_t v, fdef here)
{
    if (v >= x->nv) return false;
    const rv_vreg *r = &x->f->vregs.data[v];
    if (!r->has_class || r->cls >= x->m->classes.len || x->def[v].span) return false;
    x->def[v] = here;
    return true;
}

/* A use of v in the block numbered L: defined, and dominated by its def. */
static inline bool fast_dominated(const fctx *x, uint32_t v, uint32_t L)
{
    return v < x->nv && L - x->def[v].lo < x->def[v].span;
}

/* What the operand loops of one block read, copied out of fctx so that it
 * stays in registers (stores into def[] could alias fctx's counters). */
typedef struct fblk {
    fdef *def;
    const rv_vreg *vregs;
    uint32_t nv, ncls;
    fdef here; /* the block's interval; here.lo numbers it */
} fblk;

/* The uses of an instruction of block h: each vreg exists and its
 * definition (visited already) dominates the use. */
static inline __attribute__((always_inline)) bool fast_uses(fctx *x, const fblk *h, const rv_inst *in)
{
    const rv_operand *u = rv_inst_uses(x->f, in), *end = u + in->nuses;
    for (; u < end; u++) {
        uint32_t v = u->vreg;
        if (v >= h->nv || h->here.lo - h->def[v].lo >= h->def[v].span) return false;
        if (!fast_plain(u) && !fast_fixed_or_operand(x, in, u, h->vregs[v].cls)) return false;
    }
    return true;
}

/* The defs of an instruction of block h: each vreg exists, has a class and
 * was not defined before; it is from now on. */
static inline __attribute__((always_inline)) bool fast_defs(fctx *x, const fblk *h, const rv_inst *in)
{
    const rv_operand *o = rv_inst_defs(x->f, in), *end = o + in->ndefs;
    for (; o < end; o++) {
        uint32_t v = o->vreg;
        if (v >= h->nv) return false;
        const rv_vreg *r = &h->vregs[v];
        if (!r->has_class || r->cls >= h->ncls || h->def[v].span) return false;
        h->def[v] = h->here;
        if (!fast_plain(o) && !fast_fixed_or_operand(x, in, o, r->cls)) return false;
    }
    return true;
}

__attribute__((cold)) static bool fast_edit(const fctx *x, const rv_inst *in)
{
    ravel_loc dst = in->u.edit.dst, src = in->u.edit.src;
    if (in->op == RAVEL_OP_REMAT) return rv_validate_loc_in_range(x->m, dst) && in->nimms == 1 && !in->ndefs && !in->nuses;
    if (!rv_validate_loc_in_range(x->m, dst) || !rv_validate_loc_in_range(x->m, src)) return false;
    bool ds = ravel_loc_is_slot(dst), ss = ravel_loc_is_slot(src);
    if (in->op == RAVEL_OP_SPILL) return ds && !ss;
    if (in->op == RAVEL_OP_RELOAD) return !ds && ss;
    return !ds && !ss;
}

/* The terminator of block h: no defs, its uses, then
 * check_term_shape and check_succ (argument count; each argument dominated,
 * of its parameter's class and .ref). */
static bool fast_term(fctx *x, const fblk *h, const rv_inst *in)
{
    const ravel_func *f = x->f;
    uint32_t ns = rv_inst_nsuccs(in), L = h->here.lo;
    if (in->ndefs || !fast_uses(x, h, in)) return false;
    if (in->op == RAVEL_OP_JUMP && (ns != 1 || in->nuses || in->nimms)) return false;
    if (in->op == RAVEL_OP_BR && (ns < 2 || in->nimms || in->nuses > 1)) return false;
    for (uint32_t k = 0; k < ns; k++) {
        const rv_succ *s = &f->succs.data[in->u.succ.first + k];
        const rv_block *t = &f->blocks.data[s->block];
        if (s->nargs != t->nparams) return false;
        const uint32_t *args = rv_succ_args(f, s), *params = rv_block_params(f, t);
        for (uint32_t a = 0; a < s->nargs; a++) {
            uint32_t v = args[a], p = params[a];
            if (!fast_dominated(x, v, L) || p >= x->nv) return false;
            const rv_vreg *va = &f->vregs.data[v], *vp = &f->vregs.data[p];
            if (va->cls != vp->cls || va->ref != vp->ref) return false;
        }
    }
    return true;
}

/* An instruction of block h that is neither an edit nor a terminator: its
 * uses before its defs (an instruction's def does not reach its own uses),
 * copy's shape, safepoint and stackmap. */
static inline __attribute__((always_inline)) bool fast_inst(fctx *x, const fblk *h, const rv_inst *in)
{
    if (!fast_uses(x, h, in) || !fast_defs(x, h, in)) return false;
    if (in->op == RAVEL_OP_COPY && (in->ndefs != 1 || in->nuses != 1 || in->nimms)) return false;
    if (in->op == RAVEL_OP_UNDEF && !rv_validate_undef_shape(in)) return false;
    if (!(in->flags & (RV_IF_STACKMAP | RV_IF_SAFEPOINT))) return true;
    if (!(in->flags & RV_IF_SAFEPOINT)) return false; /* a stackmap without a safepoint */
    if (in->flags & RV_IF_STACKMAP) x->alloc_seen = true;
    else x->nosmap++;
    return true;
}

/* F3: one block, the RPO-th: its parameters, then its instructions (the
 * last is its terminator, F1; no other is one). */
static bool fast_block(fctx *x, uint32_t b, uint32_t rpo_index)
{
    const ravel_func *f = x->f;
    const rv_block *bl = &f->blocks.data[b];
    fdef here = {x->pre[rpo_index], x->size[rpo_index]};
    if (b == 0 && bl->nparams) return false;
    for (uint32_t k = 0; k < bl->nparams; k++)
        if (!fast_param(x, rv_block_params(f, bl)[k], here)) return false;
    const rv_inst *in = rv_inst_at(f, bl->first_inst), *last = in + bl->ninsts - 1;
    const fblk h = {x->def, f->vregs.data, x->nv, x->m->classes.len, here};
    uint32_t op = in->first_op, edit_ops = 0;
    bool ordered = true;
    x->op_lo[b] = op;
    for (; in <= last; in++) {
        uint32_t n = (uint32_t)in->ndefs + in->nuses;
        ordered &= in->first_op == op;
        op += n;
        if (rv_is_edit(in)) {
            if (!fast_edit(x, in)) return false;
            x->alloc_seen = true;
            edit_ops += n;
            continue;
        }
        if (in == last) break;
        if (rv_is_term(in) || !fast_inst(x, &h, in)) return false; /* a terminator before the last */
    }
    if (last->flags & RV_IF_STACKMAP) x->alloc_seen = true;
    x->op_hi[b] = op;
    x->nops += op - x->op_lo[b] - edit_ops; /* operands of the block's instructions that are not edits */
    x->in_order &= ordered;
    return fast_term(x, &h, last);
}

/* Whether the careful path would treat f as allocated (rv_func_is_allocated),
 * known here without its scan when every instruction and operand was seen. */
static bool fast_allocated(const fctx *x)
{
    if (x->alloc_seen) return true;
    bool seen_all = x->in_order && x->op_lo[0] == 0 && x->op_hi[x->nb - 1] == x->f->ops.len;
    for (uint32_t b = 1; seen_all && b < x->nb; b++) seen_all = x->op_lo[b] == x->op_hi[b - 1];
    return seen_all ? false : rv_func_is_allocated(x->f);
}

static bool fast_run(fctx *x)
{
    if (!fast_edges(x) || !fast_rpo(x) || !fast_dominators(x)) return false;
    for (uint32_t i = 0; i < x->nb; i++)
        if (!fast_block(x, x->rpo[i], i)) return false;
    /* operands without a location and safepoints without a stackmap are
     * errors only in an allocated function */
    return (x->nops == x->located && !x->nosmap) || !fast_allocated(x);
}

bool rv_validate_fast(const ravel_func *f)
{
    fctx x = {.f = f, .m = f->mach, .nb = f->layout.len, .nv = f->vregs.len, .in_order = true};
    if (x.nb == 0) return false;
    uint32_t **arrays[] = {&x.npred, &x.succ0, &x.nsucc, &x.rpo, &x.rpoi, &x.idom, &x.pre,
                           &x.size, &x.work, &x.cur, &x.op_lo, &x.op_hi};
    size_t nb = x.nb, narrays = sizeof arrays / sizeof *arrays;
    uint32_t *mem = rv_xmalloc(sizeof *mem * (2 * (size_t)x.nv + narrays * nb)), *p = mem + 2 * (size_t)x.nv;
    memset(mem, 0, sizeof *mem * (2 * (size_t)x.nv + nb)); /* def and npred (the first array) */
    x.def = (fdef *)mem;
    for (size_t k = 0; k < narrays; k++, p += nb) *arrays[k] = p;
    bool ok = fast_run(&x);
    rv_free(mem);
    return ok;
}
