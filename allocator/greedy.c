/* greedy.c - the `greedy` allocator: a backtracking allocator in the style
 * of LLVM's RegAllocGreedy (and regalloc.rs's backtracking allocator).
 *
 * Requires: f unallocated, valid SSA (ravel_validate with
 * RAVEL_VALIDATE_SSA), finished (blocks in layout order); any CFG,
 * irreducible ones included.
 * Guarantees: an allocation that ravel_check accepts, or NULL and an error
 * naming the instruction when its constraints cannot be met. No global
 * state; all memory freed before returning. Time O(n log n) in the number
 * of live-range segments for the queue and the unions, plus the splitting
 * work (per split range: its blocks times the registers of its class).
 *
 * Pipeline (one file each):
 *   greedy_live.c     points (four per instruction, greedy.h), uses,
 *                     reservations: fixed operands, clobbers (preassigned
 *                     intervals of the registers), one live range per vreg.
 *   greedy.c          the priority queue: large ranges first (size in
 *                     points), ranges waiting to be split after all others,
 *                     pieces that cannot be spilled before everything.
 *                     Each range dequeued:
 *                       1. takes a free register (its hint first: a fixed
 *                          operand's register, the register of the block
 *                          parameter or jump argument it meets on an edge,
 *                          of the value it reuses, of the neighbouring piece
 *                          of its own vreg);
 *                       2. else evicts the ranges in the register where the
 *                          sum of their spill weights is least, if it is
 *                          below its own and every one of them has an older
 *                          cascade number (the evicted take the evictor's
 *                          cascade, so two ranges never evict each other back
 *                          and forth: eviction terminates), and they return
 *                          to the queue;
 *                       3. else, the first time, waits in the queue at the
 *                          split stage (the others go first: better
 *                          interference to split around);
 *                       4. else is split (greedy_split.c): around the region
 *                          of blocks where some register is free (region
 *                          split), else, within a block, around a cluster of
 *                          uses that fits a free register (local split); the
 *                          pieces go back to the queue;
 *                       5. else is spilled: it lives in its slot, and each
 *                          operand that needs a register gets a tiny piece
 *                          around its instruction, unspillable, which may
 *                          evict any spillable range.
 *                     Spill weight: uses weighted by 10^loop depth over
 *                     the size in instructions plus 25 (LLVM's
 *                     normalisation): dense, hot ranges weigh most.
 *   greedy_union.c    one interference union per register: a treap of
 *                     segments, O(log n) overlap queries.
 *   greedy_rewrite.c  locations of the operands, moves where pieces meet
 *                     and around constrained operands (one parallel move per
 *                     gap), edge moves for live-in values and block
 *                     parameters (the parallel-move resolver), one store per
 *                     spilled vreg right after its def, spill slots coloured
 *                     over the live ranges (spilled vregs that are never live
 *                     at once share a slot), stackmaps: every reference live
 *                     across a safepoint, in its slot there.
 *
 * Statistics (rv_alloc_opts.stats, `ravel alloc --stats`): evictions (by
 * weight), region splits, local splits, spilled ranges, tiny pieces, and
 * evictions by tiny pieces. */
#include "greedy.h"

#include <stdlib.h>
#include <string.h>

#define NIL RAVEL_NONE

/* ---- the queue ---- */

static uint64_t prio_of(const gr *g, uint32_t id)
{
    const gr_lr *lr = &g->lrs.data[id];
    uint64_t size = lr->size;
    if (lr->stage == GR_ST_TINY) return (3ull << 60) | size;
    if (lr->stage == GR_ST_SPLIT) return size;
    return (1ull << 60) | size;
}

static bool heap_before(gr_heap_item a, gr_heap_item b) { return a.prio > b.prio || (a.prio == b.prio && a.id < b.id); }

/* The queue is a 4-ary heap: a node's four children (16 bytes each) share
 * one or two cache lines, and the heap is half as deep as a binary one. */
void gr_enqueue(gr *g, uint32_t id)
{
    gr_lr *lr = &g->lrs.data[id];
    if (lr->queued) return;
    lr->queued = true;
    gr_heap_item x = {prio_of(g, id), id};
    rv_vec_reserve(g->heap, 1);
    uint32_t i = g->heap.len++;
    while (i && heap_before(x, g->heap.data[(i - 1) / 4])) {
        g->heap.data[i] = g->heap.data[(i - 1) / 4];
        i = (i - 1) / 4;
    }
    g->heap.data[i] = x;
}

static uint32_t dequeue(gr *g)
{
    gr_heap_item top = g->heap.data[0], x = g->heap.data[--g->heap.len];
    uint32_t i = 0, n = g->heap.len;
    for (;;) {
        uint32_t c = 4 * i + 1, best = c;
        if (c >= n) break;
        for (uint32_t k = c + 1; k < c + 4 && k < n; k++)
            if (heap_before(g->heap.data[k], g->heap.data[best])) best = k;
        if (!heap_before(g->heap.data[best], x)) break;
        g->heap.data[i] = g->heap.data[best];
        i = best;
    }
    if (n) g->heap.data[i] = x;
    g->lrs.data[top.id].queued = false;
    return top.id;
}

/* ---- hints ---- */

typedef struct hints { uint32_t reg[8]; double w[8]; uint32_t n; } hints;

static void hint_add(const gr *g, hints *h, uint32_t v, uint32_t r, double w)
{
    if (r >= g->nr || g->m->regs.data[r].reserved || g->m->regs.data[r].cls != gr_vcls(g, v)) return;
    for (uint32_t k = 0; k < h->n; k++)
        if (h->reg[k] == r) {
            h->w[k] += w;
            return;
        }
    if (h->n < 8) {
        h->reg[h->n] = r;
        h->w[h->n++] = w;
    }
}

/* The register of w's piece at point p, or RAVEL_NONE. */
static uint32_t reg_at(const gr *g, uint32_t w, uint32_t p)
{
    uint32_t id = gr_piece_at(g, w, p, 8);
    return id == NIL ? NIL : g->lrs.data[id].reg;
}

/* Hints from a block parameter's incoming arguments. */
static void hint_param(const gr *g, hints *h, uint32_t v, const gr_use *u, double w)
{
    uint32_t b = g->inst_block[u->inst];
    const rv_block *bl = &g->f->blocks.data[b];
    uint32_t k = 0;
    while (k < bl->nparams && rv_block_params(g->f, bl)[k] != v) k++;
    for (uint32_t e = g->cfg.pred_start[b]; e < g->cfg.pred_start[b + 1] && e < g->cfg.pred_start[b] + 8; e++) {
        uint32_t p = g->cfg.pred[e];
        const rv_inst *t = rv_block_term(g->f, &g->f->blocks.data[p]);
        for (uint32_t s = 0; s < rv_inst_nsuccs(t); s++) {
            const rv_succ *sc = &rv_inst_succs(g->f, t)[s];
            if (sc->block != b || k >= sc->nargs) continue;
            hint_add(g, h, v, reg_at(g, rv_succ_args(g->f, sc)[k], gr_block_end(g, p) - 1), w);
            break;
        }
    }
}

/* Hints of one use of v (in range id). */
static void hint_use(const gr *g, hints *h, uint32_t v, const gr_use *u)
{
    const ravel_func *f = g->f;
    double w = g->freq[g->inst_block[u->inst]];
    if (u->kind == RAVEL_C_FIXED) hint_add(g, h, v, u->arg, w);
    if (u->flags & GU_ARG) {
        const rv_inst *t = rv_inst_at(f, u->inst);
        for (uint32_t s = 0; s < rv_inst_nsuccs(t); s++) {
            const rv_succ *sc = &rv_inst_succs(f, t)[s];
            const rv_block *sb = &f->blocks.data[sc->block];
            for (uint32_t k = 0; k < sc->nargs && k < sb->nparams; k++)
                if (rv_succ_args(f, sc)[k] == v) hint_add(g, h, v, reg_at(g, rv_block_params(f, sb)[k], gr_block_start(g, sc->block)), w);
        }
    } else if (u->flags & GU_PARAM) {
        hint_param(g, h, v, u, w);
    } else if (u->op != NIL && ((u->flags & GU_REUSE_SRC) || u->kind == RAVEL_C_REUSE)) { /* the instruction only then */
        const rv_inst *in = rv_inst_at(f, u->inst);
        const rv_operand *ops = rv_ops_of(f, in), *o = &f->ops.data[u->op];
        if (u->flags & GU_REUSE_SRC) {
            for (uint32_t d = 0; d < in->ndefs; d++)
                if (ops[d].kind == RAVEL_C_REUSE && &ops[in->ndefs + ops[d].arg] == o) hint_add(g, h, v, reg_at(g, ops[d].vreg, 4 * u->inst + 1), w);
        } else if ((u->flags & GU_DEF) && o->kind == RAVEL_C_REUSE) {
            hint_add(g, h, v, reg_at(g, ops[in->ndefs + o->arg].vreg, 4 * u->inst), w);
        }
    }
}

static uint32_t hint_of(const gr *g, uint32_t id)
{
    const gr_lr *lr = &g->lrs.data[id];
    const gr_seg *s = gr_segs(g, id);
    hints h = {{0}, {0}, 0};
    uint32_t v = lr->vreg;
    uint32_t budget = 32; /* uses looked at: a hint is a preference, not worth a long walk */
    for (uint32_t k = 0; k < lr->nseg && budget; k++) {
        uint32_t n;
        const gr_use *u = gr_uses_in(g, v, s[k].from, s[k].to, &n);
        for (uint32_t j = 0; j < n && budget; j++, budget--) hint_use(g, &h, v, &u[j]);
        uint32_t b = gr_block_at(g, s[k].from);
        if (s[k].from > gr_block_start(g, b)) hint_add(g, &h, v, reg_at(g, v, s[k].from - 1), g->freq[b]);
        if (s[k].to < gr_block_end(g, gr_block_at(g, s[k].to - 1))) hint_add(g, &h, v, reg_at(g, v, s[k].to), g->freq[b]);
    }
    uint32_t best = NIL;
    double bw = 0;
    for (uint32_t k = 0; k < h.n; k++)
        if (h.w[k] > bw) {
            bw = h.w[k];
            best = h.reg[k];
        }
    return best;
}

/* ---- assignment and eviction ---- */

static const rv_class *cls_of(const gr *g, uint32_t id) { return &g->m->classes.data[gr_vcls(g, g->lrs.data[id].vreg)]; }

static uint32_t try_free(gr *g, uint32_t id)
{
    uint32_t h = hint_of(g, id);
    if (h != NIL && gr_reg_free(g, id, h, NULL, 0)) return h;
    const rv_class *c = cls_of(g, id);
    for (uint32_t k = 0; k < c->alloc.len; k++)
        if (c->alloc.data[k] != h && gr_reg_free(g, id, c->alloc.data[k], NULL, 0)) return c->alloc.data[k];
    return NIL;
}

static bool seen(gr *g, uint32_t x)
{
    if (x >= g->mark.nlr) {
        uint32_t n = g->lrs.cap + 64;
        g->mark.lr = rv_xrealloc(g->mark.lr, sizeof(uint32_t) * n);
        for (uint32_t k = g->mark.nlr; k < n; k++) g->mark.lr[k] = 0;
        g->mark.nlr = n;
    }
    if (g->mark.lr[x] == g->mark.lrv) return true;
    g->mark.lr[x] = g->mark.lrv;
    return false;
}

/* The ranges assigned to r overlapping range id, into g->tmp; false if
 * one may not be evicted (unspillable, a newer cascade, or the weights
 * add up to id's own; urgent: only unspillable ones stop it). */
static bool interferers(gr *g, uint32_t id, uint32_t r, uint32_t cascade, bool urgent, double *sum, double *max)
{
    const gr_lr *lr = &g->lrs.data[id];
    const gr_seg *s = gr_segs(g, id);
    g->tmp.len = 0;
    g->mark.lrv++;
    *sum = *max = 0;
    for (uint32_t k = 0; k < lr->nseg; k++) {
        if (gr_res_conflict(g, r, lr->vreg, s[k].from, s[k].to)) return false;
        gr_iter it;
        for (bool more = gr_set_first(&g->pool, &g->uni[r], s[k].from, s[k].to, &it); more;
             more = gr_set_next(&g->pool, &g->uni[r], &it, s[k].to)) {
            uint32_t o = gr_iter_val(&g->pool, &g->uni[r], &it);
            if (seen(g, o)) continue;
            const gr_lr *ol = &g->lrs.data[o];
            if (ol->stage == GR_ST_TINY) return false;
            if (!urgent && ol->cascade >= cascade) return false;
            *sum += ol->weight;
            if (ol->weight > *max) *max = ol->weight;
            if (!urgent && *sum >= lr->weight) return false;
            rv_vec_push(g->tmp, o);
        }
    }
    return true;
}

void gr_evict_overlaps(gr *g, uint32_t id, uint32_t r)
{
    gr_lr *lr = &g->lrs.data[id];
    double sum, max;
    bool tiny = lr->stage == GR_ST_TINY;
    if (!lr->cascade) lr->cascade = g->next_cascade++;
    interferers(g, id, r, UINT32_MAX, true, &sum, &max);
    for (uint32_t k = 0; k < g->tmp.len; k++) {
        uint32_t o = g->tmp.data[k];
        rv_alloc_trace(g->o, "greedy", "evict v%u#%u from %s for v%u#%u%s", g->f->vregs.data[g->lrs.data[o].vreg].num, o,
                       g->m->regs.data[r].name, g->f->vregs.data[lr->vreg].num, id, tiny ? " (tiny)" : "");
        gr_unassign(g, o);
        g->lrs.data[o].cascade = lr->cascade;
        if (tiny) g->st.tiny_evictions++;
        else g->st.evictions++;
        gr_enqueue(g, o);
    }
}

/* The register whose interference is cheapest to evict for range id, or
 * RAVEL_NONE. */
uint32_t gr_evict_choice(gr *g, uint32_t id, bool urgent)
{
    const gr_lr *lr = &g->lrs.data[id];
    uint32_t cascade = lr->cascade ? lr->cascade : g->next_cascade, best = NIL;
    double bmax = 0, bsum = 0;
    const rv_class *c = cls_of(g, id);
    for (uint32_t k = 0; k < c->alloc.len; k++) {
        double sum, max;
        if (!interferers(g, id, c->alloc.data[k], cascade, urgent, &sum, &max)) continue;
        if (best == NIL || max < bmax || (max == bmax && sum < bsum)) {
            best = c->alloc.data[k];
            bmax = max;
            bsum = sum;
        }
    }
    return best;
}

static bool try_evict(gr *g, uint32_t id)
{
    if (g->st.evictions + g->st.tiny_evictions >= g->evict_budget) return false;
    uint32_t r = gr_evict_choice(g, id, false);
    if (r == NIL) return false;
    gr_evict_overlaps(g, id, r);
    gr_assign(g, id, r);
    return true;
}

static void trace_assign(const gr *g, uint32_t id, const char *how)
{
    const gr_lr *lr = &g->lrs.data[id];
    rv_alloc_trace(g->o, "greedy", "%s v%u#%u [%u..%u) -> %s", how, g->f->vregs.data[lr->vreg].num, id,
                   gr_segs(g, id)[0].from, gr_segs(g, id)[lr->nseg - 1].to, g->m->regs.data[lr->reg].name);
}

/* One dequeued range: assign, evict, wait, split or spill. */
static bool select_reg(gr *g, uint32_t id)
{
    gr_lr *lr = &g->lrs.data[id];
    if (lr->stage == GR_ST_TINY) return gr_assign_tiny(g, id);
    bool blocked = gr_vref(g, lr->vreg) && gr_crosses_safepoint(g, id); /* a reference across a safepoint */
    uint32_t r = blocked ? NIL : try_free(g, id);
    if (r != NIL) {
        gr_assign(g, id, r);
        trace_assign(g, id, "assign");
        return true;
    }
    if (!blocked && lr->stage != GR_ST_SPLIT && try_evict(g, id)) {
        trace_assign(g, id, "assign (evicting)");
        return true;
    }
    if (lr->stage == GR_ST_NEW) {
        lr->stage = GR_ST_SPLIT;
        gr_enqueue(g, id);
        return true;
    }
    if (lr->stage == GR_ST_SPLIT && (gr_region_split(g, id) || gr_local_split(g, id))) return true;
    gr_spill(g, id);
    return !g->err;
}

static bool gr_run(gr *g)
{
    g->evict_budget = 32 * (uint64_t)g->lrs.len + 10000;
    while (g->heap.len) {
        uint32_t id = dequeue(g);
        const gr_lr *lr = &g->lrs.data[id];
        if (lr->stage == GR_ST_DEAD || lr->stage == GR_ST_SLOT || lr->reg != NIL) continue;
        if (!select_reg(g, id)) return false;
    }
    return true;
}

/* ---- driver ---- */

static void report_stats(const gr *g, rv_alloc_stats *s)
{
    if (!s) return;
    static const char *const names[] = {"evictions", "region splits", "local splits", "spilled ranges", "tiny pieces",
                                        "tiny evictions"};
    const uint64_t vals[] = {g->st.evictions, g->st.region_splits, g->st.local_splits, g->st.spills, g->st.tiny,
                             g->st.tiny_evictions};
    s->n = 0;
    for (uint32_t k = 0; k < 6 && k < RV_ALLOC_MAX_STATS; k++) {
        s->name[k] = names[k];
        s->value[k] = vals[k];
        s->n++;
    }
}

static void gr_free(gr *g)
{
    rv_cfg_free(&g->cfg);
    rv_live_sparse_free(&g->ls);
    rv_free(g->inst_block);
    rv_free(g->freq);
    rv_free(g->use.start);
    rv_free(g->use.list);
    rv_free(g->use.def_inst);
    rv_free(g->rsv.start);
    rv_free(g->rsv.list);
    rv_free(g->rsv.inst);
    rv_free(g->rsv.bidx);
    rv_free(g->rsv.mask);
    rv_free(g->safe);
    rv_vec_free(g->segs);
    rv_vec_free(g->lrs);
    rv_free(g->sib_head);
    rv_free(g->tiny_head);
    rv_free(g->has_slot);
    rv_free(g->use.reuse_def);
    for (uint32_t r = 0; g->uni && r < g->nr; r++) gr_set_free(&g->uni[r]);
    rv_free(g->uni);
    gr_pool_free(&g->pool);
    rv_vec_free(g->heap);
    rv_vec_free(g->tmp);
    rv_vec_free(g->stmp);
    gr_split_free(g);
    rv_free(g->mark.lr);
    rv_free(g->mark.blk);
    rv_free(g->mark.bidx);
}

ravel_func *rv_alloc_greedy(const ravel_func *f, const rv_alloc_opts *o, char **err)
{
    if (err) *err = NULL;
    gr *g = rv_xcalloc(1, sizeof *g);
    g->f = f;
    g->m = f->mach;
    g->o = o;
    g->next_cascade = 1;
    ravel_func *out = NULL;
    if (gr_build(g) && gr_run(g)) out = gr_rewrite(g);
    if (o) report_stats(g, o->stats);
    if (!out && !g->err) g->err = rv_alloc_errorf(f, RAVEL_NONE, "allocation failed");
    if (out || !err) rv_free(g->err);
    else *err = g->err;
    gr_free(g);
    rv_free(g);
    return out;
}
