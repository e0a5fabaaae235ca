/* greedy_split.c - splitting and spilling in the `greedy` allocator
 * (greedy.h, greedy.c), tried in this order for a range that can neither
 * take a free register nor evict its way into one:
 *
 *   region split  (ranges over several blocks) for each register of the
 *                 class, the blocks where it is free over the whole part of
 *                 the range in the block; of those, the region: a free
 *                 block joins it where its uses (4 per use, by 10^depth)
 *                 outweigh the edges it adds (a reload entering the region,
 *                 a store's worth leaving it), by local improvement from
 *                 "every free block in" (a small spill placement). The
 *                 registers are tried in decreasing order of the gain of
 *                 their free blocks holding uses, which bounds their score,
 *                 while that gain can still win. The range becomes: the
 *                 region piece, assigned that register at once; one piece
 *                 per other block holding two or more uses that need a
 *                 register (local split candidates); the rest, which spills
 *                 unless it finds a register.
 *   local split   (ranges within one block) for each register, the longest
 *                 runs of consecutive use instructions between which it is
 *                 free; the best run (uses weighted by 10^depth) becomes a
 *                 piece assigned that register, the parts before and after
 *                 it new ranges. Pieces start and end at gaps, so the
 *                 moves between them have a place.
 *   spill         the range lives in its vreg's slot; each instruction
 *                 where it has an operand needing a register gets a tiny
 *                 piece (from the gap to the operand's last point),
 *                 unspillable. A tiny piece takes a free register, else
 *                 evicts spillable ranges, else (several tiny pieces of one
 *                 instruction placed badly: an early use's register taken
 *                 where a late use needs one for the whole instruction) all
 *                 the tiny pieces of its instruction are placed again,
 *                 those spanning the whole instruction first, which works
 *                 whenever the instruction's constraints can be met.
 *
 * Requires: the range is queued-out and unassigned.
 * Guarantees: its pieces partition its points; each product has fewer
 * points than the range split (region pieces fewer blocks, local pieces
 * fewer use instructions), so splitting ends; a spilled range never comes
 * back to the queue but as tiny pieces, which are never spilled. */
#include "greedy.h"

#include <stdlib.h>
#include <string.h>

#define NIL RAVEL_NONE

typedef gr_clip clip;
typedef gr_segvec segvec;

void gr_split_free(gr *g)
{
    gr_split_scratch *sp = &g->sp;
    rv_vec_free(sp->clips);
    rv_vec_free(sp->edges);
    rv_vec_free(sp->ui);
    rv_vec_free(sp->a);
    rv_vec_free(sp->b);
    rv_vec_free(sp->c);
    rv_vec_free(sp->u32);
    rv_vec_free(sp->u64);
}

static double use_weight(const gr *g, const gr_use *u)
{
    bool needs = (u->flags & (GU_REG | GU_REUSE_SRC)) || u->kind == RAVEL_C_FIXED;
    return g->freq[g->inst_block[u->inst]] * (needs ? 1.0 : 0.25);
}

static bool needs_reg(const gr_use *u) { return (u->flags & (GU_REG | GU_REUSE_SRC)) || u->kind == RAVEL_C_FIXED; }

/* The part of range id in each block it touches, in order. */
static void collect_clips(gr *g, uint32_t id)
{
    const gr_lr *lr = &g->lrs.data[id];
    const gr_seg *s = gr_segs(g, id);
    g->sp.clips.len = 0;
    for (uint32_t k = 0; k < lr->nseg; k++)
        for (uint32_t p = s[k].from; p < s[k].to;) {
            uint32_t b = gr_block_at(g, p), e = gr_block_end(g, b);
            if (e > s[k].to) e = s[k].to;
            clip c = {b, p, e, 0, 0, 0, 0, false, false, 0};
            uint32_t n;
            const gr_use *u = gr_uses_in(g, lr->vreg, p, e, &n);
            for (uint32_t j = 0; j < n; j++) {
                c.uw += use_weight(g, &u[j]);
                c.nreg += needs_reg(&u[j]);
            }
            rv_vec_push(g->sp.clips, c);
            p = e;
        }
}

/* Appends [from, to) to sv, merging with the last segment when adjacent. */
static void seg_append(segvec *sv, uint32_t from, uint32_t to)
{
    if (from >= to) return;
    if (sv->len && sv->data[sv->len - 1].to == from) sv->data[sv->len - 1].to = to;
    else rv_vec_push(*sv, ((gr_seg){from, to}));
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- region split ---- */

static void block_index(gr *g)
{
    if (!g->mark.blk) {
        g->mark.blk = rv_xcalloc(g->nb + 1, sizeof(uint32_t));
        g->mark.bidx = rv_xmalloc(sizeof(uint32_t) * (g->nb + 1));
    }
    g->mark.blkv++;
    for (uint32_t k = g->sp.clips.len; k-- > 0;) {
        g->mark.blk[g->sp.clips.data[k].b] = g->mark.blkv;
        g->mark.bidx[g->sp.clips.data[k].b] = k;
    }
}

/* The clip of block b, if the range covers b's end (at_end) or start. */
static uint32_t clip_at(const gr *g, uint32_t b, bool at_end)
{
    if (g->mark.blk[b] != g->mark.blkv) return NIL;
    const clip *c = &g->sp.clips.data[g->mark.bidx[b]];
    return (at_end ? c->to == gr_block_end(g, b) : c->from == gr_block_start(g, b)) ? g->mark.bidx[b] : NIL;
}

/* The CFG edges inside the range between two clips, listed at both ends,
 * weighted by the colder block's frequency. */
static void clip_edges_build(gr *g)
{
    gr_split_scratch *sp = &g->sp;
    sp->edges.len = 0;
    for (uint32_t k = 0; k < sp->clips.len; k++) {
        clip *c = &sp->clips.data[k];
        c->e0 = sp->edges.len;
        if (c->from == gr_block_start(g, c->b))
            for (uint32_t e = g->cfg.pred_start[c->b]; e < g->cfg.pred_start[c->b + 1]; e++) {
                uint32_t p = g->cfg.pred[e], o = clip_at(g, p, true);
                double f = g->freq[p] < g->freq[c->b] ? g->freq[p] : g->freq[c->b];
                if (o != NIL && o != k) rv_vec_push(sp->edges, ((gr_cedge){o, f, true}));
            }
        if (c->to == gr_block_end(g, c->b))
            for (uint32_t e = g->cfg.succ_start[c->b]; e < g->cfg.succ_start[c->b + 1]; e++) {
                uint32_t s = g->cfg.succ[e], o = clip_at(g, s, false);
                double f = g->freq[s] < g->freq[c->b] ? g->freq[s] : g->freq[c->b];
                if (o != NIL && o != k) rv_vec_push(sp->edges, ((gr_cedge){o, f, false}));
            }
        sp->clips.data[k].ne = sp->edges.len - sp->clips.data[k].e0;
    }
}

/* An edge inside the range between a region block and another one: a
 * reload (4) on entering the region, a store's worth (1) on leaving it. */
static double edge_cost(bool from_in, bool to_in, double f) { return from_in == to_in ? 0 : f * (to_in ? 4.0 : 1.0); }

/* The cost of the edges into and out of clip k, were it in the region
 * (in) or not, the other clips as they are. */
static double clip_edges(const gr *g, uint32_t k, bool in)
{
    const clip *c = &g->sp.clips.data[k];
    double cost = 0;
    for (uint32_t j = c->e0; j < c->e0 + c->ne; j++) {
        const gr_cedge *e = &g->sp.edges.data[j];
        bool oin = g->sp.clips.data[e->other].in;
        cost += e->into ? edge_cost(oin, in, e->f) : edge_cost(in, oin, e->f);
    }
    return cost;
}

/* Which free clips join the region: each where its uses' gain outweighs
 * the edges it adds, by local improvement from "every free clip in" (a
 * small version of LLVM's spill placement): a clip is looked at again only
 * when a neighbour changed, at most 4 times each; returns the region's
 * score. */
static double place_region(gr *g)
{
    gr_split_scratch *sp = &g->sp;
    clip *cl = sp->clips.data;
    uint32_t n = sp->clips.len;
    sp->u32.len = 0;
    for (uint32_t k = 0; k < n; k++) {
        cl[k].in = cl[k].free;
        cl[k].visits = 0;
        if (cl[k].free) rv_vec_push(sp->u32, k);
    }
    for (uint32_t w = 0; w < sp->u32.len; w++) { /* the worklist grows while clips change */
        uint32_t k = sp->u32.data[w];
        if (cl[k].visits >= 4) continue;
        cl[k].visits++;
        bool want = clip_edges(g, k, true) - 4 * cl[k].uw < clip_edges(g, k, false);
        if (want == cl[k].in) continue;
        cl[k].in = want;
        for (uint32_t j = cl[k].e0; j < cl[k].e0 + cl[k].ne; j++)
            if (cl[sp->edges.data[j].other].free) rv_vec_push(sp->u32, sp->edges.data[j].other);
    }
    double score = 0;
    uint32_t nin = 0;
    for (uint32_t k = 0; k < n; k++) {
        nin += cl[k].in;
        if (cl[k].in) score += 4 * cl[k].uw;
        for (uint32_t j = cl[k].e0; j < cl[k].e0 + cl[k].ne; j++) { /* each edge once: from its head */
            const gr_cedge *e = &sp->edges.data[j];
            if (e->into) score -= edge_cost(cl[e->other].in, cl[k].in, e->f);
        }
    }
    return nin && nin < n ? score : -1;
}

/* The gain of register r for range id: its uses in the clips where r is
 * free (sets those clips' free flags; the others' are set when pass 1). */
static double region_gain(gr *g, uint32_t id, uint32_t r, int pass)
{
    double gain = 0;
    for (uint32_t k = 0; k < g->sp.clips.len; k++) {
        clip *c = &g->sp.clips.data[k];
        if ((c->uw > 0) != (pass == 0)) continue;
        gr_seg s = {c->from, c->to};
        c->free = gr_reg_free(g, id, r, &s, 1);
        if (c->free) gain += 4 * c->uw;
    }
    return gain;
}

/* Score of a region split of range id around register r (sets the clips'
 * free and in flags); -1 when no region helps. */
static double region_score(gr *g, uint32_t id, uint32_t r)
{
    if (region_gain(g, id, r, 0) <= 0) return -1;
    region_gain(g, id, r, 1);
    return place_region(g);
}

/* The register whose region scores best: every register's gain first
 * (the clips holding uses only), then the full score in decreasing order
 * of gain while the gain, which bounds the score, can still win. */
static uint32_t best_region(gr *g, uint32_t id)
{
    const rv_class *cls = &g->m->classes.data[gr_vcls(g, g->lrs.data[id].vreg)];
    gr_u64vec *order = &g->sp.u64;
    order->len = 0;
    for (uint32_t k = 0; k < cls->alloc.len; k++) {
        double gain = region_gain(g, id, cls->alloc.data[k], 0);
        uint64_t key = gain > 4e9 ? 0xffffffffu : (uint64_t)gain; /* descending gain, then class order */
        if (gain > 0) rv_vec_push(*order, ((0xffffffffull - key) << 32) | k);
    }
    if (order->len > 1) qsort(order->data, order->len, sizeof *order->data, cmp_u64);
    uint32_t best = NIL;
    double bscore = 0;
    for (uint32_t j = 0; j < order->len; j++) {
        uint32_t r = cls->alloc.data[(uint32_t)order->data[j]];
        if ((double)(0xffffffffull - (order->data[j] >> 32)) + 1 <= bscore) break; /* its gain cannot beat the best */
        double s = region_score(g, id, r);
        if (s > bscore) {
            bscore = s;
            best = r;
        }
    }
    return best;
}

bool gr_region_split(gr *g, uint32_t id)
{
    gr_split_scratch *sp = &g->sp;
    collect_clips(g, id);
    if (sp->clips.len < 2 || sp->clips.data[0].b == sp->clips.data[sp->clips.len - 1].b) return false;
    block_index(g);
    clip_edges_build(g);
    uint32_t best = best_region(g, id);
    if (best == NIL) return false;
    region_score(g, id, best);
    uint32_t v = g->lrs.data[id].vreg, nin = 0;
    sp->a.len = sp->b.len = 0;
    gr_lr_kill(g, id);
    for (uint32_t k = 0; k < sp->clips.len; k++) {
        const clip *c = &sp->clips.data[k];
        nin += c->in;
        if (c->in) seg_append(&sp->a, c->from, c->to);
        else if (c->nreg >= 2) gr_enqueue(g, gr_lr_new(g, v, &(gr_seg){c->from, c->to}, 1, GR_ST_NEW));
        else seg_append(&sp->b, c->from, c->to);
    }
    uint32_t rid = gr_lr_new(g, v, sp->a.data, sp->a.len, GR_ST_NEW);
    gr_assign(g, rid, best);
    if (sp->b.len) gr_enqueue(g, gr_lr_new(g, v, sp->b.data, sp->b.len, GR_ST_SPILL));
    g->st.region_splits++;
    rv_alloc_trace(g->o, "greedy", "region split v%u#%u around %s: %u of %u blocks -> #%u", g->f->vregs.data[v].num, id,
                   g->m->regs.data[best].name, nin, sp->clips.len, rid);
    return true;
}

/* ---- local split ---- */

/* The segments of range id within [from, to), into sv. */
static void clip_range(const gr *g, uint32_t id, uint32_t from, uint32_t to, segvec *sv)
{
    const gr_seg *s = gr_segs(g, id);
    sv->len = 0;
    for (uint32_t k = 0; k < g->lrs.data[id].nseg; k++) {
        uint32_t a = s[k].from > from ? s[k].from : from, b = s[k].to < to ? s[k].to : to;
        seg_append(sv, a, b);
    }
}

typedef gr_useinst useinst;
typedef struct lsplit { uint32_t reg, a, b; double gain; } lsplit;

/* Distinct instructions with uses in range id, with their weights. */
static void use_insts(gr *g, uint32_t id)
{
    const gr_lr *lr = &g->lrs.data[id];
    const gr_seg *s = gr_segs(g, id);
    g->sp.ui.len = 0;
    for (uint32_t k = 0; k < lr->nseg; k++) {
        uint32_t n;
        const gr_use *u = gr_uses_in(g, lr->vreg, s[k].from, s[k].to, &n);
        for (uint32_t j = 0; j < n; j++) {
            double w = needs_reg(&u[j]) ? g->freq[g->inst_block[u[j].inst]] : 0;
            if (g->sp.ui.len && g->sp.ui.data[g->sp.ui.len - 1].inst == u[j].inst) g->sp.ui.data[g->sp.ui.len - 1].w += w;
            else rv_vec_push(g->sp.ui, ((useinst){u[j].inst, w}));
        }
    }
}

/* The best run of use instructions of range id that register r holds free. */
static void best_run(gr *g, uint32_t id, uint32_t r, lsplit *best)
{
    const gr_seg *s = gr_segs(g, id);
    uint32_t lo = s[0].from, hi = s[g->lrs.data[id].nseg - 1].to;
    segvec *w = &g->stmp;
    const gr_useinst *ui = g->sp.ui.data;
    uint32_t nui = g->sp.ui.len;
    uint32_t a = 0;
    double gain = ui[0].w;
    for (uint32_t k = 0; k + 1 < nui; k++) {
        clip_range(g, id, 4 * ui[k].inst, 4 * ui[k + 1].inst + 4, w);
        bool fits = gr_reg_free(g, id, r, w->data, w->len);
        if (fits) gain += ui[k + 1].w;
        bool whole = 4 * ui[a].inst <= lo && 4 * ui[k + 1].inst + 4 >= hi;
        if (fits && k + 1 > a && !whole && gain > best->gain) *best = (lsplit){r, a, k + 1, gain};
        if (!fits) {
            a = k + 1;
            gain = ui[a].w;
        }
    }
}

static uint32_t piece(gr *g, uint32_t id, uint32_t v, uint32_t from, uint32_t to)
{
    clip_range(g, id, from, to, &g->stmp);
    if (!g->stmp.len) return NIL;
    return gr_lr_new(g, v, g->stmp.data, g->stmp.len, GR_ST_NEW);
}

bool gr_local_split(gr *g, uint32_t id)
{
    const gr_lr *lr = &g->lrs.data[id];
    const gr_seg *s = gr_segs(g, id);
    uint32_t v = lr->vreg, lo = s[0].from, hi = s[lr->nseg - 1].to;
    if (gr_block_at(g, lo) != gr_block_at(g, hi - 1)) return false;
    use_insts(g, id);
    lsplit best = {NIL, 0, 0, 0};
    const rv_class *c = &g->m->classes.data[gr_vcls(g, v)];
    for (uint32_t k = 0; g->sp.ui.len >= 2 && k < c->alloc.len; k++) best_run(g, id, c->alloc.data[k], &best);
    if (best.reg == NIL) return false;
    uint32_t from = 4 * g->sp.ui.data[best.a].inst, to = 4 * g->sp.ui.data[best.b].inst + 4;
    uint32_t cl = piece(g, id, v, from, to), head = piece(g, id, v, lo, from), tail = piece(g, id, v, to, hi);
    gr_lr_kill(g, id);
    gr_assign(g, cl, best.reg);
    if (head != NIL) gr_enqueue(g, head);
    if (tail != NIL) gr_enqueue(g, tail);
    g->st.local_splits++;
    rv_alloc_trace(g->o, "greedy", "local split v%u#%u around %s: [%u..%u) -> #%u", g->f->vregs.data[v].num, id,
                   g->m->regs.data[best.reg].name, from, to, cl);
    return true;
}

/* ---- spilling ---- */

/* The tiny span of instruction i's operands needing a register, among
 * uses u[0..n) (all at i), within [lo, hi); false if none. */
static bool tiny_span(const gr_use *u, uint32_t n, uint32_t i, gr_seg *out)
{
    bool any = false, use = false, late = false;
    uint32_t def = 4 * i + 4;
    for (uint32_t j = 0; j < n; j++) {
        if (!(u[j].flags & GU_REG)) continue;
        any = true;
        if (u[j].flags & GU_DEF) {
            late = true;
            if (u[j].pos < def) def = u[j].pos;
        } else {
            use = true;
            late |= (u[j].flags & GU_LATE) != 0;
        }
    }
    *out = (gr_seg){use ? 4 * i : def, late ? 4 * i + 4 : 4 * i + 2};
    return any;
}

static void add_tiny(gr *g, uint32_t v, gr_seg s, uint32_t i)
{
    uint32_t t = gr_lr_new(g, v, &s, 1, GR_ST_TINY);
    gr_lr *tl = &g->lrs.data[t];
    tl->inst = i;
    tl->next_tiny = g->tiny_head[i];
    g->tiny_head[i] = t;
    g->st.tiny++;
    gr_enqueue(g, t);
}

void gr_spill(gr *g, uint32_t id)
{
    const gr_lr *lr = &g->lrs.data[id];
    uint32_t v = lr->vreg, nseg = lr->nseg;
    segvec *old = &g->sp.a, *slot = &g->sp.b, *tiny = &g->sp.c;
    old->len = slot->len = tiny->len = g->sp.u32.len = 0;
    rv_vec_reserve(*old, nseg);
    memcpy(old->data, gr_segs(g, id), sizeof(gr_seg) * nseg);
    old->len = nseg;
    gr_lr_kill(g, id);
    for (uint32_t k = 0; k < old->len; k++) {
        uint32_t n, at = old->data[k].from;
        const gr_use *u = gr_uses_in(g, v, old->data[k].from, old->data[k].to, &n);
        for (uint32_t j = 0; j < n;) {
            uint32_t i = u[j].inst, m = j;
            while (m < n && u[m].inst == i) m++;
            gr_seg t;
            if (tiny_span(u + j, m - j, i, &t)) {
                if (t.from < old->data[k].from) t.from = old->data[k].from;
                if (t.to > old->data[k].to) t.to = old->data[k].to;
                seg_append(slot, at, t.from);
                rv_vec_push(*tiny, t);
                rv_vec_push(g->sp.u32, i);
                at = t.to;
            }
            j = m;
        }
        seg_append(slot, at, old->data[k].to);
    }
    if (slot->len) {
        gr_lr_new(g, v, slot->data, slot->len, GR_ST_SLOT);
        g->has_slot[v] = 1;
    }
    for (uint32_t k = 0; k < tiny->len; k++) add_tiny(g, v, tiny->data[k], g->sp.u32.data[k]);
    g->st.spills++;
    rv_alloc_trace(g->o, "greedy", "spill v%u#%u (%u tiny pieces)", g->f->vregs.data[v].num, id, tiny->len);
}

/* ---- tiny pieces ---- */

static uint32_t tiny_free(gr *g, uint32_t id)
{
    const gr_lr *lr = &g->lrs.data[id];
    uint32_t n;
    const gr_use *u = gr_uses_in(g, lr->vreg, 4 * lr->inst, 4 * lr->inst + 4, &n);
    for (uint32_t j = 0; j < n; j++) /* the register of a fixed operand of the same value */
        if (u[j].kind == RAVEL_C_FIXED && u[j].arg < g->nr && !g->m->regs.data[u[j].arg].reserved &&
            gr_reg_free(g, id, u[j].arg, NULL, 0))
            return u[j].arg;
    const rv_class *c = &g->m->classes.data[gr_vcls(g, lr->vreg)];
    for (uint32_t k = 0; k < c->alloc.len; k++)
        if (gr_reg_free(g, id, c->alloc.data[k], NULL, 0)) return c->alloc.data[k];
    return NIL;
}

static bool tiny_place(gr *g, uint32_t id)
{
    uint32_t r = tiny_free(g, id);
    if (r == NIL) {
        r = gr_evict_choice(g, id, true);
        if (r == NIL) return false;
        gr_evict_overlaps(g, id, r);
    }
    gr_assign(g, id, r);
    rv_alloc_trace(g->o, "greedy", "tiny v%u#%u at inst %u -> %s", g->f->vregs.data[g->lrs.data[id].vreg].num, id,
                   g->lrs.data[id].inst, g->m->regs.data[r].name);
    return true;
}

/* Places every tiny piece of the instruction of id (of its class) again,
 * those covering the most points first. */
static bool tiny_replace(gr *g, uint32_t id)
{
    uint32_t i = g->lrs.data[id].inst, cls = gr_vcls(g, g->lrs.data[id].vreg);
    RV_VEC(uint64_t) order = {0}; /* rare: allocated here */
    for (uint32_t t = g->tiny_head[i]; t != NIL; t = g->lrs.data[t].next_tiny) {
        gr_lr *tl = &g->lrs.data[t];
        if (gr_vcls(g, tl->vreg) != cls) continue;
        if (tl->reg != NIL) gr_unassign(g, t);
        rv_vec_push(order, ((uint64_t)(8 - tl->size) << 32) | t);
    }
    if (order.len > 1) qsort(order.data, order.len, sizeof *order.data, cmp_u64);
    bool ok = true;
    for (uint32_t k = 0; k < order.len && ok; k++) ok = tiny_place(g, (uint32_t)order.data[k]);
    rv_vec_free(order);
    g->st.fallbacks++;
    rv_alloc_trace(g->o, "greedy", "tiny pieces of inst %u placed again: %s", i, ok ? "placed" : "no room");
    return ok || gr_fail(g, i, "not enough registers for the operands");
}

bool gr_assign_tiny(gr *g, uint32_t id)
{
    return tiny_place(g, id) || tiny_replace(g, id);
}
