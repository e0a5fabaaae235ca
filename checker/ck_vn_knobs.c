/* ck_vn_knobs.c - PRECISION. What the value-numbering verdict assumes a
 * loop keeps, and how much work it may do (ck_vn.c explains the walk):
 *   M(h)   the vars loop h may write (its own blocks' defs, locations
 *          written or clobbered, parameters, its inner loops' M; in a loop
 *          with a safepoint the collector's writes too, ck_vn.c: join): a
 *          placeholder each at h;
 *   P(t)   the same for an irreducible target t: the vars the region
 *          between c(t) and t's irreducible predecessors writes;
 *   lazy   M(h) without its inner loops' past the budget: the latches
 *          record the vars they find missing (misses), and the next walk
 *          (at most VN_MAX_WALKS) adds them;
 *   budgets on M(h), P(t) and the log segments the walk rescans.
 * None of these carries the proof: every latch checks the premise they
 * stand for (a var without a placeholder comes back as it came in), so a
 * write they miss costs the proof ("not proven": the reference decides),
 * never soundness; a budget passed answers "not proven".
 * Requires: the CFG (ck_cfg.c), the single-def vregs (ck_vn.c:
 * single_defs) and, for P(t), each irreducible target's c(t) (ck_vn.c:
 * irr_heads). */
#include "ck_vn.h"

#include <string.h>

/* ---- the part of the context owned here ---- */

void vn_knobs_init(vn_knobs *x) { memset(x, 0, sizeof *x); }

void vn_knobs_free(vn_knobs *x)
{
    rv_vec_free(x->mlist);
    rv_vec_free(x->ilist);
    rv_vec_free(x->mpool);
    rv_vec_free(x->lsp);
    rv_vec_free(x->own);
    rv_vec_free(x->own_start);
    rv_vec_free(x->cursor);
    rv_vec_free(x->bmark);
    rv_vec_free(x->istack);
    rv_vec_free(x->miss);
    rv_vec_free(x->xall);
    rv_vec_free(x->xstart);
    rv_vec_free(x->xvar);
    vn_knobs_init(x);
}

size_t vn_knobs_memory(const vn_knobs *x)
{
#define M(v) ((size_t)x->v.cap * sizeof *x->v.data)
    return M(mlist) + M(ilist) + M(mpool) + M(lsp) + M(own) + M(own_start) + M(cursor) + M(bmark) +
           M(istack) + M(miss) + M(xall) + M(xstart) + M(xvar);
#undef M
}

void vn_knobs_reset(vn *W)
{
    W->V->knobs.scanned = 0;
    W->V->knobs.scan_budget = 16ull * W->f->insts.len + 65536;
}

/* M(h) and P(t) may list this many vars (each list: 2x for P(t)'s). */
static uint64_t list_budget(const vn *W) { return 8ull * W->f->insts.len + 4096; }

/* ---- M(h): the vars each loop may write ---- */

static inline void add_var(struct ck_vn *V, uint32_t st, uint32_t x)
{
    /* room reserved by the caller; without a branch on whether x is new
     * (most are: no predictable order): written always, kept only if new */
    V->knobs.mpool.data[V->knobs.mpool.len] = x;
    V->knobs.mpool.len += V->vars.st[x] != st;
    V->vars.st[x] = st;
}

/* Location li and, on an aliased machine, the registers overlapping it. */
static void add_loc_over(vn *W, uint32_t st, uint32_t li)
{
    struct ck_vn *V = W->V;
    const uint32_t *o;
    uint32_t n = ck_overlaps(W->ck, li, &o);
    rv_vec_reserve(V->knobs.mpool, n + 1);
    add_var(V, st, li);
    for (uint32_t i = 0; i < n; i++) add_var(V, st, o[i]);
}

/* scan_insts for one instruction of a function using section 14 (any
 * instruction on an aliased machine, a remat): every var it writes. */
static void scan_ext(vn *W, uint32_t st, const rv_inst *in)
{
    struct ck_vn *V = W->V;
    const ravel_func *f = W->f;
    const uint32_t *regs = NULL;
    uint32_t nc = ((in->flags & RV_IF_CLOBBERS) || in->op == RAVEL_OP_CALL) && !rv_is_term(in) ? rv_inst_clobbers(f, in, &regs) : 0;
    for (uint32_t k = 0; k < nc; k++) add_loc_over(W, st, vlix(W, regs[k]));
    if (rv_is_edit(in)) {
        add_loc_over(W, st, vlix(W, in->u.edit.dst));
        return;
    }
    const rv_operand *d = W->ops + in->first_op;
    for (uint32_t k = 0; k < in->ndefs; k++) {
        uint32_t x = W->nlocs + d[k].vreg;
        rv_vec_reserve(V->knobs.mpool, 1);
        if (!(V->vars.sdef.data[x] & VN_SD_SINGLE)) add_var(V, st, x);
        add_loc_over(W, st, vlix(W, d[k].loc));
    }
}

/* Adds to the list being built in mpool (stamp st) the vars block bl's
 * instructions write: an edit's destination, each def's vreg (not a
 * single-def one: ck_vn.c, single_defs) and location, the registers a call or a
 * clobber list clobbers. True if one is a safepoint. */
static bool scan_insts(vn *W, uint32_t st, const rv_block *bl)
{
    struct ck_vn *V = W->V;
    const ravel_func *f = W->f;
    const uint8_t *sdef = V->vars.sdef.data;
    bool sp = false;
    /* room: 2 per instruction (an edit adds 1, a one-def operation 2); an
     * instruction that may add more makes room for itself and the rest */
    rv_vec_reserve(V->knobs.mpool, 2 * (size_t)bl->ninsts);
    const rv_inst *in = rv_inst_at(f, bl->first_inst), *end = in + bl->ninsts;
    for (; in < end; in++) {
        CK_PREFETCH_AHEAD(in, 12);
        if (__builtin_expect(W->alias || in->op == RAVEL_OP_REMAT, 0)) { /* section 14: overlaps, a remat's clobbers */
            scan_ext(W, st, in);
            sp |= (in->flags & RV_IF_SAFEPOINT) && !rv_is_edit(in);
            rv_vec_reserve(V->knobs.mpool, 2 * (size_t)(end - in)); /* (the room the others count on) */
            continue;
        }
        if (rv_is_edit(in)) {
            add_var(V, st, vlix(W, in->u.edit.dst));
            continue;
        }
        const uint32_t *regs = NULL;
        uint32_t nc = 0;
        if (((in->flags & RV_IF_CLOBBERS) || in->op == RAVEL_OP_CALL) && !rv_is_term(in))
            nc = rv_inst_clobbers(f, in, &regs); /* (none otherwise) */
        if (in->ndefs > 1 || nc) rv_vec_reserve(V->knobs.mpool, 2 * (size_t)in->ndefs + nc + 2 * (size_t)(end - in));
        const rv_operand *d = W->ops + in->first_op;
        for (uint32_t k = 0; k < in->ndefs; k++) {
            uint32_t x = W->nlocs + d[k].vreg;
            if (!(sdef[x] & VN_SD_SINGLE)) add_var(V, st, x);
            add_var(V, st, vlix(W, d[k].loc));
        }
        sp |= (in->flags & RV_IF_SAFEPOINT) != 0;
        for (uint32_t k = 0; k < nc; k++) add_var(V, st, vlix(W, regs[k]));
    }
    return sp;
}

/* Adds block h's misses of earlier walks (V->knobs.xall, lazy M(h)) to the list
 * being built (stamp st). */
static void add_extras(vn *W, uint32_t st, uint32_t h)
{
    struct ck_vn *V = W->V;
    if (!V->knobs.xall.len) return;
    uint32_t a = V->knobs.xstart.data[h], e = V->knobs.xstart.data[h + 1];
    rv_vec_reserve(V->knobs.mpool, e - a);
    for (uint32_t i = a; i < e; i++) add_var(V, st, V->knobs.xvar.data[i]);
}

/* Every header's M(h) empty, no safepoint noted. */
static void m_reset(vn *W)
{
    struct ck_vn *V = W->V;
    uint32_t n = W->ck->nblocks;
    V->knobs.mlist.len = 0;
    rv_vec_reserve(V->knobs.mlist, n);
    V->knobs.mlist.len = n;
    V->knobs.mpool.len = 0;
    V->knobs.lsp.len = 0;
    rv_vec_reserve(V->knobs.lsp, n);
    V->knobs.lsp.len = n;
    memset(V->knobs.lsp.data, 0, n);
    memset(V->knobs.mlist.data, 0, (size_t)n * sizeof *V->knobs.mlist.data);
}

/* Each header's own blocks (its innermost loop), CSR in own_start/own;
 * false if no block is in a loop. */
static bool own_blocks(vn *W)
{
    ravel_checker *ck = W->ck;
    struct ck_vn *V = W->V;
    uint32_t n = ck->nblocks;
    V->knobs.own_start.len = 0;
    rv_vec_reserve(V->knobs.own_start, n + 1);
    V->knobs.own_start.len = n + 1;
    memset(V->knobs.own_start.data, 0, (size_t)(n + 1) * sizeof *V->knobs.own_start.data);
    bool any = false;
    for (uint32_t b = 0; b < n; b++)
        if (ck_reachable(ck, b) && ck->cfg.g.loop_header[b] != CK_NIL) V->knobs.own_start.data[ck->cfg.g.loop_header[b] + 1]++, any = true;
    if (!any) return false;
    for (uint32_t b = 0; b < n; b++) V->knobs.own_start.data[b + 1] += V->knobs.own_start.data[b];
    V->knobs.own.len = 0;
    rv_vec_reserve(V->knobs.own, V->knobs.own_start.data[n]);
    V->knobs.own.len = V->knobs.own_start.data[n];
    rv_vec_reserve(V->knobs.cursor, n); /* (a fill cursor per header) */
    for (uint32_t b = 0; b < n; b++) V->knobs.cursor.data[b] = V->knobs.own_start.data[b];
    for (uint32_t b = 0; b < n; b++)
        if (ck_reachable(ck, b) && ck->cfg.g.loop_header[b] != CK_NIL) V->knobs.own.data[V->knobs.cursor.data[ck->cfg.g.loop_header[b]]++] = b;
    return true;
}

/* M(h) of header h into mpool (its inner loops' are made): what its own
 * blocks write (scanned: exact, so a register the loop keeps gets no
 * placeholder), its inner loops' M (not lazy), its misses so far. */
static void m_of(vn *W, uint32_t h)
{
    ravel_checker *ck = W->ck;
    struct ck_vn *V = W->V;
    const ravel_func *f = W->f;
    uint32_t st = vn_next_stamp(V), start = V->knobs.mpool.len;
    bool sp = false;
    for (uint32_t j = V->knobs.own_start.data[h]; j < V->knobs.own_start.data[h + 1]; j++) {
        const rv_block *bl = &f->blocks.data[V->knobs.own.data[j]];
        rv_vec_reserve(V->knobs.mpool, bl->nparams); /* (add_var's room) */
        for (uint32_t p = 0; p < bl->nparams; p++) add_var(V, st, W->nlocs + rv_params_of(f, bl)[p]);
        sp |= scan_insts(W, st, bl);
    }
    for (uint32_t j = ck->cfg.lchild_start.data[h]; j < ck->cfg.lchild_start.data[h + 1]; j++) {
        sp |= V->knobs.lsp.data[ck->cfg.lchild.data[j]] != 0;
        ck_list m = V->knobs.lazy ? (ck_list){0, 0} : V->knobs.mlist.data[ck->cfg.lchild.data[j]];
        rv_vec_reserve(V->knobs.mpool, m.len);
        for (uint32_t k = 0; k < m.len; k++) add_var(V, st, V->knobs.mpool.data[m.start + k]);
    }
    add_extras(W, st, h);
    V->knobs.lsp.data[h] = sp;
    V->knobs.mlist.data[h] = (ck_list){start, V->knobs.mpool.len - start};
}

/* M(h) for every header, inner loops first (their M is part of the
 * enclosing one's; inner headers come later in reverse post-order). False
 * past the budget (all lists together). Lazy (V->knobs.lazy): M(h) is what
 * h's own blocks write and the misses of earlier walks, not its inner
 * loops' M: linear however deep the nest (a loop nest d deep, each level
 * writing its own slot, has inner loops' writes summing to d^2/2), and a
 * var an inner loop writes that is known at h's entry is found missing by
 * h's latch, then added for the next walk (ck_vn.c: vn_walk). */
bool vn_build_m(vn *W)
{
    ravel_checker *ck = W->ck;
    m_reset(W);
    if (!own_blocks(W)) return true;
    uint64_t budget = list_budget(W);
    for (uint32_t i = ck->cfg.g.nrpo; i-- > 0;) {
        uint32_t h = ck->cfg.g.rpo[i];
        if (!ck_is_header(ck, h)) continue;
        m_of(W, h);
        if (W->V->knobs.mpool.len > budget) return false;
    }
    return true;
}

/* ---- P(t): the vars an irreducible region may write ---- */

/* P(t) of irreducible target t (reverse post-order index i), a
 * placeholder each at t (ck_vn.c, irr_heads, explains c(t) and the region
 * R(t): the blocks that reach an irreducible predecessor u of t without
 * passing through c(t)): the vars R(t) writes, parameters included
 * (single-def vregs need none: a vreg whose def's block dominates t has
 * that name at every u too, one that does not is unknown at t), and the
 * placeholders R(t)'s own headers and targets make; lsp[t] if R(t) has a
 * safepoint. *work counts the search (c(t)'s included); *again: a target
 * in R(t) later in reverse post-order has no P yet (pass 0). */
static void p_of(vn *W, uint32_t t, uint32_t i, uint32_t pass, uint32_t bst, uint64_t *work, bool *again)
{
    ravel_checker *ck = W->ck;
    struct ck_vn *V = W->V;
    const ravel_func *f = W->f;
    uint32_t c = V->flow.ic.data[t];
    V->knobs.istack.len = 0;
    for (uint32_t p = ck->cfg.g.pred_start[t]; p < ck->cfg.g.pred_start[t + 1]; p++)
        if (vn_irr_pred(ck, t, i, ck->cfg.g.pred[p])) rv_vec_push(V->knobs.istack, ck->cfg.g.pred[p]);
    *work += V->flow.icwork.data[t];
    uint32_t st = vn_next_stamp(V), start = V->knobs.mpool.len;
    bool sp = false;
    while (V->knobs.istack.len) {
        uint32_t b = V->knobs.istack.data[--V->knobs.istack.len];
        if (b == c || V->knobs.bmark.data[b] == bst || (ck->opts & CK_OPT_VN_NO_P)) continue;
        V->knobs.bmark.data[b] = bst;
        const rv_block *bl = &f->blocks.data[b];
        rv_vec_reserve(V->knobs.mpool, bl->nparams); /* (add_var's room) */
        for (uint32_t p = 0; p < bl->nparams; p++) add_var(V, st, W->nlocs + rv_params_of(f, bl)[p]);
        sp |= scan_insts(W, st, bl);
        *work += bl->ninsts + 1;
        /* placeholders in R(t) make new names too: a natural header's
         * M(h), another irreducible target's P (one of later in
         * reverse post-order is known from a second pass) */
        ck_list ml[2] = {ck_is_header(ck, b) ? V->knobs.mlist.data[b] : (ck_list){0, 0},
                         b != t && V->flow.ic.data[b] != CK_NIL ? V->knobs.ilist.data[b] : (ck_list){0, 0}};
        if (b != t && ck->cfg.retreat.data[b] && ck->cfg.g.rpo_index[b] > i && pass == 0) *again = true; /* (its P not made yet) */
        for (int l = 0; l < 2; l++) {
            rv_vec_reserve(V->knobs.mpool, ml[l].len);
            for (uint32_t k = 0; k < ml[l].len; k++) add_var(V, st, V->knobs.mpool.data[ml[l].start + k]);
            *work += ml[l].len;
        }
        for (uint32_t p = ck->cfg.g.pred_start[b]; p < ck->cfg.g.pred_start[b + 1]; p++)
            if (ck_reachable(ck, ck->cfg.g.pred[p])) rv_vec_push(V->knobs.istack, ck->cfg.g.pred[p]);
        *work += ck->cfg.g.pred_start[b + 1] - ck->cfg.g.pred_start[b];
    }
    add_extras(W, st, t);
    V->knobs.ilist.data[t] = (ck_list){start, V->knobs.mpool.len - start};
    V->knobs.lsp.data[t] |= sp;
}

/* P(t) for every irreducible target, in reverse post-order, twice if a
 * region holds a target of later (its P then known). False past the
 * budget. */
bool vn_build_irr(vn *W)
{
    ravel_checker *ck = W->ck;
    struct ck_vn *V = W->V;
    uint32_t n = ck->nblocks;
    V->knobs.ilist.len = V->knobs.bmark.len = 0;
    rv_vec_reserve(V->knobs.ilist, n);
    rv_vec_reserve(V->knobs.bmark, n);
    V->knobs.ilist.len = V->knobs.bmark.len = n;
    memset(V->knobs.bmark.data, 0, (size_t)n * sizeof *V->knobs.bmark.data);
    memset(V->knobs.ilist.data, 0, (size_t)n * sizeof *V->knobs.ilist.data);
    uint64_t work = 0, budget = list_budget(W);
    uint32_t bst = 0;
    bool again = true;
    for (uint32_t pass = 0; pass < 2 && again; pass++) {
        again = false;
        for (uint32_t i = 0; i < ck->cfg.g.nrpo; i++) {
            uint32_t t = ck->cfg.g.rpo[i];
            if (!ck->cfg.retreat.data[t]) continue;
            p_of(W, t, i, pass, ++bst, &work, &again);
            if (work > budget || V->knobs.mpool.len > 2 * budget) return false;
        }
    }
    return true;
}

/* ---- lazy M(h): misses ---- */

/* Lazy M(h): the latch into t found vars that changed without a
 * placeholder; the same test as latch's, var by var, records them as
 * misses of t for the next walk (this one goes on to find the others). */
bool vn_record_misses(vn *W, uint32_t t, uint32_t from, bool irr, uint32_t st, uint32_t sq)
{
    struct ck_vn *V = W->V;
    uint32_t sd = vn_next_stamp(V);
    if (sd <= sq) return false; /* (the marks wrapped, latch's with them: no record) */
    uint32_t before = V->knobs.miss.len;
    const uint32_t *cur = W->cur;
    ck_list tl = irr ? V->flow.tlist.data[t] : (ck_list){0, 0};
    for (uint32_t i = 0; i < tl.len; i++) {
        vn_ent te = V->flow.tpool.data[tl.start + i];
        uint32_t x = te.var;
        if (V->vars.st2[x] == sq) continue;
        V->vars.st2[x] = sd;
        if (x == W->refvar || !te.name || (V->vars.sdef.data[x] & VN_SD_SINGLE)) continue;
        if ((V->vars.st[x] == st ? V->vars.aux[x] : cur[x]) != te.name) rv_vec_push(V->knobs.miss, ((vn_ent){x, t}));
    }
    for (uint32_t i = from; i < V->vars.log.len; i++) {
        uint32_t x = V->vars.log.data[i].var, was = V->vars.log.data[i].name;
        if (V->vars.st2[x] == sq || V->vars.st2[x] == sd) continue;
        V->vars.st2[x] = sd;
        if (x == W->refvar || (V->vars.sdef.data[x] & VN_SD_SINGLE) || !was) continue;
        if ((V->vars.st[x] == st ? V->vars.aux[x] : cur[x]) != was) rv_vec_push(V->knobs.miss, ((vn_ent){x, t}));
    }
    return V->knobs.miss.len > before; /* (a failed premise with no miss to show: not proven) */
}

/* The misses so far by block (CSR in xstart/xvar), for vn_build_m and vn_build_irr. */
void vn_index_misses(vn *W)
{
    struct ck_vn *V = W->V;
    uint32_t n = W->ck->nblocks;
    for (uint32_t i = 0; i < V->knobs.miss.len; i++) rv_vec_push(V->knobs.xall, V->knobs.miss.data[i]);
    V->knobs.miss.len = 0;
    V->knobs.xstart.len = 0;
    rv_vec_reserve(V->knobs.xstart, n + 1);
    V->knobs.xstart.len = n + 1;
    memset(V->knobs.xstart.data, 0, (size_t)(n + 1) * sizeof *V->knobs.xstart.data);
    for (uint32_t i = 0; i < V->knobs.xall.len; i++) V->knobs.xstart.data[V->knobs.xall.data[i].name + 1]++;
    for (uint32_t b = 0; b < n; b++) V->knobs.xstart.data[b + 1] += V->knobs.xstart.data[b];
    V->knobs.xvar.len = 0;
    rv_vec_reserve(V->knobs.xvar, V->knobs.xall.len);
    V->knobs.xvar.len = V->knobs.xall.len;
    rv_vec_reserve(V->knobs.cursor, n); /* (a fill cursor per block) */
    memcpy(V->knobs.cursor.data, V->knobs.xstart.data, (size_t)n * sizeof *V->knobs.cursor.data);
    for (uint32_t i = 0; i < V->knobs.xall.len; i++) V->knobs.xvar.data[V->knobs.cursor.data[V->knobs.xall.data[i].name]++] = V->knobs.xall.data[i].var;
}
