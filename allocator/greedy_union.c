/* greedy_union.c - the interference unions of the `greedy` allocator
 * (greedy.h): ordered sets of disjoint segments, one per register (and, in
 * the slot colouring, one per spill slot), and the queries built on them:
 * reservations, the safepoint rule for references, "is this register free
 * for this range", assignment.
 *
 * Requires: segments inserted into one set never overlap (the callers
 * check interference first).
 * Guarantees: the overlap queries (first, then next) take O(log n) in the
 * set's size: a binary search over the chunks' first starts, one inside a
 * chunk of at most GR_CHUNK segments (contiguous memory: a query touches a
 * few cache lines, where a tree of n nodes would chase log n pointers).
 * An insert or a remove moves at most GR_CHUNK segments within a chunk,
 * and splitting or dropping a chunk moves the chunk index (n / GR_CHUNK
 * words at most, once per GR_CHUNK / 2 inserts). Chunks come from one pool
 * with a free list: no allocation per operation once warm. */
#include "greedy.h"

#include <string.h>

#define NIL RAVEL_NONE

void gr_pool_free(gr_pool *p)
{
    rv_vec_free(p->c);
    rv_vec_free(p->free);
}

void gr_set_free(gr_set *s)
{
    rv_free(s->key);
    rv_free(s->ch);
    memset(s, 0, sizeof *s);
}

static uint32_t chunk_new(gr_pool *p)
{
    if (p->free.len) return p->free.data[--p->free.len];
    rv_vec_reserve(p->c, 1);
    p->c.data[p->c.len].n = 0;
    return p->c.len++;
}

/* Makes room for a chunk at index at of s. */
static void set_open(gr_set *s, uint32_t at, uint32_t chunk, uint32_t key)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 4;
        s->key = rv_xrealloc(s->key, sizeof(uint32_t) * s->cap);
        s->ch = rv_xrealloc(s->ch, sizeof(uint32_t) * s->cap);
    }
    memmove(s->key + at + 1, s->key + at, sizeof(uint32_t) * (s->n - at));
    memmove(s->ch + at + 1, s->ch + at, sizeof(uint32_t) * (s->n - at));
    s->key[at] = key;
    s->ch[at] = chunk;
    s->n++;
}

/* The last chunk whose first start is <= x, or RAVEL_NONE. */
static uint32_t chunk_floor(const gr_set *s, uint32_t x)
{
    uint32_t lo = 0, hi = s->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->key[mid] <= x) lo = mid + 1;
        else hi = mid;
    }
    return lo ? lo - 1 : NIL;
}

/* The first slot of c whose start is > x. */
static uint32_t slot_above(const gr_chunk *c, uint32_t x)
{
    uint32_t lo = 0, hi = c->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->from[mid] <= x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Splits full chunk number ci of s in two halves. */
static void chunk_split(gr_pool *p, gr_set *s, uint32_t ci)
{
    uint32_t nc = chunk_new(p);
    gr_chunk *a = &p->c.data[s->ch[ci]], *b = &p->c.data[nc];
    uint32_t h = a->n / 2;
    b->n = a->n - h;
    memcpy(b->from, a->from + h, sizeof(uint32_t) * b->n);
    memcpy(b->to, a->to + h, sizeof(uint32_t) * b->n);
    memcpy(b->val, a->val + h, sizeof(uint32_t) * b->n);
    a->n = h;
    set_open(s, ci + 1, nc, b->from[0]);
}

void gr_set_insert(gr_pool *p, gr_set *s, uint32_t from, uint32_t to, uint32_t val)
{
    if (!s->n) set_open(s, 0, chunk_new(p), from);
    uint32_t ci = chunk_floor(s, from);
    if (ci == NIL) ci = 0;
    if (p->c.data[s->ch[ci]].n == GR_CHUNK) {
        chunk_split(p, s, ci);
        if (from >= s->key[ci + 1]) ci++;
    }
    gr_chunk *c = &p->c.data[s->ch[ci]];
    uint32_t k = slot_above(c, from), m = c->n - k;
    memmove(c->from + k + 1, c->from + k, sizeof(uint32_t) * m);
    memmove(c->to + k + 1, c->to + k, sizeof(uint32_t) * m);
    memmove(c->val + k + 1, c->val + k, sizeof(uint32_t) * m);
    c->from[k] = from;
    c->to[k] = to;
    c->val[k] = val;
    c->n++;
    s->key[ci] = c->from[0];
}

void gr_set_remove(gr_pool *p, gr_set *s, uint32_t from)
{
    uint32_t ci = chunk_floor(s, from);
    if (ci == NIL) return;
    gr_chunk *c = &p->c.data[s->ch[ci]];
    uint32_t k = slot_above(c, from);
    if (!k || c->from[k - 1] != from) return;
    uint32_t m = c->n - k;
    memmove(c->from + k - 1, c->from + k, sizeof(uint32_t) * m);
    memmove(c->to + k - 1, c->to + k, sizeof(uint32_t) * m);
    memmove(c->val + k - 1, c->val + k, sizeof(uint32_t) * m);
    if (--c->n) {
        s->key[ci] = c->from[0];
        return;
    }
    rv_vec_push(p->free, s->ch[ci]);
    memmove(s->key + ci, s->key + ci + 1, sizeof(uint32_t) * (s->n - ci - 1));
    memmove(s->ch + ci, s->ch + ci + 1, sizeof(uint32_t) * (s->n - ci - 1));
    s->n--;
}

static bool starts_before(const gr_pool *p, const gr_set *s, const gr_iter *it, uint32_t to)
{
    return it->c < s->n && p->c.data[s->ch[it->c]].from[it->k] < to;
}

bool gr_set_first(const gr_pool *p, const gr_set *s, uint32_t from, uint32_t to, gr_iter *it)
{
    if (!s->n) return false;
    uint32_t ci = chunk_floor(s, from);
    if (ci == NIL) {
        *it = (gr_iter){0, 0};
        return starts_before(p, s, it, to);
    }
    const gr_chunk *c = &p->c.data[s->ch[ci]];
    uint32_t k = slot_above(c, from); /* >= 1: the chunk starts at or before from */
    if (c->to[k - 1] > from) {
        *it = (gr_iter){ci, k - 1};
        return true;
    }
    *it = k < c->n ? (gr_iter){ci, k} : (gr_iter){ci + 1, 0};
    return starts_before(p, s, it, to);
}

bool gr_set_next(const gr_pool *p, const gr_set *s, gr_iter *it, uint32_t to)
{
    if (++it->k == p->c.data[s->ch[it->c]].n) *it = (gr_iter){it->c + 1, 0};
    return starts_before(p, s, it, to);
}

/* ---- interference ---- */

/* The first reservation of register r at an instruction >= i. */
static uint32_t res_first(const gr *g, uint32_t r, uint32_t i)
{
    uint32_t lo = g->rsv.start[r], hi = g->rsv.start[r + 1];
    if (g->rsv.bidx) { /* within i's block: usually a few entries */
        uint32_t b = g->inst_block[i];
        lo = g->rsv.bidx[(size_t)r * (g->nb + 1) + b];
        hi = g->rsv.bidx[(size_t)r * (g->nb + 1) + b + 1];
        if (lo == hi || g->rsv.inst[lo] >= i) return lo;
    }
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->rsv.inst[mid] < i) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* False if no instruction of [from, to) reserves r (a short segment: the
 * per-instruction masks, read in order); true if one may. */
static bool res_maybe(const gr *g, uint32_t r, uint32_t from, uint32_t to)
{
    uint32_t i0 = from / 4, i1 = (to + 3) / 4;
    if (!g->rsv.mask || i1 - i0 > 16) return true;
    uint64_t bit = (uint64_t)1 << r;
    for (uint32_t i = i0; i < i1; i++)
        if (g->rsv.mask[i] & bit) return true;
    return false;
}

bool gr_res_conflict(const gr *g, uint32_t r, uint32_t v, uint32_t from, uint32_t to)
{
    uint32_t hi = g->rsv.start[r + 1];
    if (g->rsv.start[r] == hi || !res_maybe(g, r, from, to)) return false;
    for (uint32_t k = res_first(g, r, from / 4); k < hi && 4 * g->rsv.inst[k] < to; k++) {
        const gr_res *e = &g->rsv.list[k];
        uint32_t at = 4 * e->inst;
        for (uint32_t p = at > from ? at : from; p < at + 4 && p < to; p++) {
            uint32_t tag = e->tag[p - at];
            if (tag == GR_CLOBBER && v < g->nv && g->use.def_inst[v] == e->inst) continue; /* spared */
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
    if (lo < g->nsafe && g->use.reuse_def[v] && g->safe[lo] == g->use.def_inst[v]) lo++;
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
        if (gr_set_overlaps(&g->pool, &g->uni[r], segs[k].from, segs[k].to)) return false; /* the likelier conflict first */
        if (gr_res_conflict(g, r, lr->vreg, segs[k].from, segs[k].to)) return false;
    }
    return true;
}

void gr_assign(gr *g, uint32_t id, uint32_t r)
{
    gr_lr *lr = &g->lrs.data[id];
    const gr_seg *s = gr_segs(g, id);
    for (uint32_t k = 0; k < lr->nseg; k++) gr_set_insert(&g->pool, &g->uni[r], s[k].from, s[k].to, id);
    lr->reg = r;
}

void gr_unassign(gr *g, uint32_t id)
{
    gr_lr *lr = &g->lrs.data[id];
    const gr_seg *s = gr_segs(g, id);
    for (uint32_t k = 0; k < lr->nseg; k++) gr_set_remove(&g->pool, &g->uni[lr->reg], s[k].from);
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
