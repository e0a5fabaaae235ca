/* greedy_union.c - the interference unions of the `greedy` allocator
 * (greedy.h): ordered sets of disjoint segments, one per register (and, in
 * the slot colouring, one per spill slot), and the queries built on them.
 *
 * Requires: segments inserted into one set never overlap (the callers
 * check interference first).
 * Guarantees: insert, remove and the first/next overlap queries take
 * O(log n) expected time in the set's size (a treap keyed by segment
 * start, priorities from a hash of the node index, so runs are
 * deterministic); nodes come from one pool with a free list, so a set
 * costs no allocation per operation once the pool is warm. */
#include "greedy.h"

#include <string.h>

#define NIL RAVEL_NONE

void gr_tree_init(gr_tree *t)
{
    memset(t, 0, sizeof *t);
    t->free = NIL;
}

void gr_tree_free(gr_tree *t) { rv_vec_free(t->n); }

static uint32_t node_new(gr_tree *t, uint32_t from, uint32_t to, uint32_t val)
{
    uint32_t x;
    if (t->free != NIL) {
        x = t->free;
        t->free = t->n.data[x].l;
    } else {
        rv_vec_reserve(t->n, 1);
        x = t->n.len++;
    }
    gr_node *n = &t->n.data[x];
    n->from = from;
    n->to = to;
    n->val = val;
    n->l = n->r = NIL;
    n->prio = (uint32_t)rv_hash64(x + 1);
    return x;
}

/* Splits the treap at key k: *a gets keys < k, *b keys >= k. */
static void split(gr_tree *t, uint32_t x, uint32_t k, uint32_t *a, uint32_t *b)
{
    if (x == NIL) {
        *a = *b = NIL;
        return;
    }
    gr_node *n = &t->n.data[x];
    if (n->from < k) {
        split(t, n->r, k, &n->r, b);
        *a = x;
    } else {
        split(t, n->l, k, a, &n->l);
        *b = x;
    }
}

/* Joins two treaps, every key of a below every key of b. */
static uint32_t merge(gr_tree *t, uint32_t a, uint32_t b)
{
    if (a == NIL) return b;
    if (b == NIL) return a;
    if (t->n.data[a].prio > t->n.data[b].prio) {
        uint32_t r = merge(t, t->n.data[a].r, b);
        t->n.data[a].r = r;
        return a;
    }
    uint32_t l = merge(t, a, t->n.data[b].l);
    t->n.data[b].l = l;
    return b;
}

static uint32_t insert_at(gr_tree *t, uint32_t x, uint32_t nx)
{
    if (x == NIL) return nx;
    gr_node *n = &t->n.data[x], *m = &t->n.data[nx];
    if (m->prio > n->prio) {
        uint32_t l, r;
        split(t, x, m->from, &l, &r);
        m = &t->n.data[nx];
        m->l = l;
        m->r = r;
        return nx;
    }
    if (m->from < n->from) {
        uint32_t l = insert_at(t, n->l, nx);
        t->n.data[x].l = l;
    } else {
        uint32_t r = insert_at(t, n->r, nx);
        t->n.data[x].r = r;
    }
    return x;
}

void gr_set_insert(gr_tree *t, uint32_t *root, uint32_t from, uint32_t to, uint32_t val)
{
    uint32_t nx = node_new(t, from, to, val);
    *root = insert_at(t, *root, nx);
}

static uint32_t remove_at(gr_tree *t, uint32_t x, uint32_t from)
{
    if (x == NIL) return NIL;
    gr_node *n = &t->n.data[x];
    if (n->from == from) {
        uint32_t y = merge(t, n->l, n->r);
        n->l = t->free;
        t->free = x;
        return y;
    }
    if (from < n->from) {
        uint32_t l = remove_at(t, n->l, from);
        t->n.data[x].l = l;
    } else {
        uint32_t r = remove_at(t, n->r, from);
        t->n.data[x].r = r;
    }
    return x;
}

void gr_set_remove(gr_tree *t, uint32_t *root, uint32_t from) { *root = remove_at(t, *root, from); }

uint32_t gr_set_first(const gr_tree *t, uint32_t root, uint32_t from, uint32_t to)
{
    uint32_t floor = NIL, ceil = NIL;
    for (uint32_t x = root; x != NIL;) {
        const gr_node *n = &t->n.data[x];
        if (n->from <= from) {
            floor = x;
            x = n->r;
        } else {
            ceil = x;
            x = n->l;
        }
    }
    if (floor != NIL && t->n.data[floor].to > from) return floor;
    if (ceil != NIL && t->n.data[ceil].from < to) return ceil;
    return NIL;
}

uint32_t gr_set_next(const gr_tree *t, uint32_t root, uint32_t x, uint32_t to)
{
    uint32_t k = t->n.data[x].from, cand = NIL;
    for (uint32_t y = root; y != NIL;) {
        const gr_node *n = &t->n.data[y];
        if (n->from > k) {
            cand = y;
            y = n->l;
        } else {
            y = n->r;
        }
    }
    return cand != NIL && t->n.data[cand].from < to ? cand : NIL;
}

/* ---- interference ---- */

bool gr_res_conflict(const gr *g, uint32_t r, uint32_t v, uint32_t from, uint32_t to)
{
    uint32_t lo = g->res_start[r], hi = g->res_start[r + 1], i0 = from / 4;
    while (lo < hi) { /* first reservation at an instruction >= i0 */
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->res[mid].inst < i0) lo = mid + 1;
        else hi = mid;
    }
    for (uint32_t k = lo; k < g->res_start[r + 1] && 4 * g->res[k].inst < to; k++) {
        const gr_res *e = &g->res[k];
        uint32_t base = 4 * e->inst;
        for (uint32_t p = base > from ? base : from; p < base + 4 && p < to; p++) {
            uint32_t tag = e->tag[p - base];
            if (tag != GR_FREE && tag != v) return true;
        }
    }
    return false;
}

bool gr_seg_crosses_safepoint(const gr *g, uint32_t v, uint32_t from, uint32_t to)
{
    uint32_t lo = 0, hi = g->nsafe;
    while (lo < hi) { /* first safepoint whose effect point is >= from */
        uint32_t mid = lo + (hi - lo) / 2;
        if (4 * g->safe[mid] + 2 < from) lo = mid + 1;
        else hi = mid;
    }
    if (lo < g->nsafe && g->reuse_def[v] && g->safe[lo] == g->def_inst[v]) lo++;
    return lo < g->nsafe && 4 * g->safe[lo] + 2 < to;
}

bool gr_crosses_safepoint(const gr *g, uint32_t id)
{
    const gr_lr *lr = &g->lrs.data[id];
    const gr_seg *s = gr_segs(g, id);
    for (uint32_t k = 0; k < lr->nseg; k++)
        if (gr_seg_crosses_safepoint(g, lr->vreg, s[k].from, s[k].to)) return true;
    return false;
}

bool gr_reg_free(const gr *g, uint32_t id, uint32_t r, const gr_seg *segs, uint32_t n)
{
    const gr_lr *lr = &g->lrs.data[id];
    if (!segs) {
        segs = gr_segs(g, id);
        n = lr->nseg;
    }
    bool ref = gr_vref(g, lr->vreg);
    for (uint32_t k = 0; k < n; k++) {
        if (ref && gr_seg_crosses_safepoint(g, lr->vreg, segs[k].from, segs[k].to)) return false;
        if (gr_res_conflict(g, r, lr->vreg, segs[k].from, segs[k].to)) return false;
        if (gr_set_first(&g->tree, g->uroot[r], segs[k].from, segs[k].to) != NIL) return false;
    }
    return true;
}

void gr_assign(gr *g, uint32_t id, uint32_t r)
{
    gr_lr *lr = &g->lrs.data[id];
    const gr_seg *s = gr_segs(g, id);
    for (uint32_t k = 0; k < lr->nseg; k++) gr_set_insert(&g->tree, &g->uroot[r], s[k].from, s[k].to, id);
    lr->reg = r;
    g->st.assigned++;
}

void gr_unassign(gr *g, uint32_t id)
{
    gr_lr *lr = &g->lrs.data[id];
    const gr_seg *s = gr_segs(g, id);
    for (uint32_t k = 0; k < lr->nseg; k++) gr_set_remove(&g->tree, &g->uroot[lr->reg], s[k].from);
    lr->reg = RAVEL_NONE;
}

static bool lr_covers(const gr *g, uint32_t id, uint32_t p)
{
    const gr_seg *s = gr_segs(g, id);
    uint32_t lo = 0, hi = g->lrs.data[id].nseg;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s[mid].to <= p) lo = mid + 1;
        else hi = mid;
    }
    return lo < g->lrs.data[id].nseg && s[lo].from <= p;
}

uint32_t gr_piece_at(const gr *g, uint32_t v, uint32_t p, uint32_t limit)
{
    uint32_t n = 0;
    for (uint32_t id = g->sib_head[v]; id != NIL && n < limit; id = g->lrs.data[id].next_sib, n++)
        if (lr_covers(g, id, p)) return id;
    return NIL;
}
