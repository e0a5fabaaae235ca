/* ck_ref.c - the reference fixpoint: docs/format.md section 6, plainly.
 *
 * It decides and reports every function the value-numbering verdict
 * (ck_vn.c) does not prove, and is the definition that verdict answers to
 * (tests compare them, tests/checker/test_paths.c). It is written to be
 * obviously correct first:
 *   - an entry and an exit state per reachable block, stored sparse: the
 *     locations that are not `unknown`, sorted by location index (unknown
 *     is the meet's bottom, so states only shrink);
 *   - a worklist over the reachable blocks in reverse post-order, any CFG
 *     (ck->cfg.g, ir/cfg.c): when a block's exit changes, each successor's entry is
 *     recomputed as the meet over its in-edges of what they carry now
 *     (edges from blocks not run yet are unreached, the meet's identity),
 *     and the successor is queued if it changed; the entry block starts
 *     with every location unknown;
 *   - the transfer of section 6 in its order (early defs, early uses,
 *     stackmap check, clobbers and the safepoint effect, late defs, late
 *     uses; edits copy values; `copy` aliases; branch arguments substituted
 *     at once per edge), on one dense working state;
 *   - no loop shortcut, no replay, no value numbering.
 * Then one recording pass over the reached blocks reads every operand at
 * the fixpoint and records the value errors with the same kinds, texts
 * and provenance (ck_report.c).
 *
 * Lattice per location (ck_val, as in ck.h): unknown, a non-empty vreg
 * set (singletons inline, others interned in this context's own ck_sets),
 * `empty` (every vreg removed: reads as an error), conflicted. Meet:
 * unknown dominates; equal values meet to themselves; conflicted or empty
 * against anything else is conflicted; else the intersection, empty
 * intersection = conflicted.
 *
 * Termination: the facts ("L holds v") only decrease from round to round
 * (the transfer is monotone in them), so every entry changes finitely
 * often; a safety cap on visits reports an internal error instead of
 * looping. Errors found while iterating are certain (a read that fails
 * with more facts fails with fewer), so a verdict-only check stops at the
 * first.
 * Requires: the guard passed (every block ends in a terminator, successors
 * exist), ck->f, nregs, nlocs set. */
#include "ck_ref.h"

#include <stdlib.h>
#include <string.h>

/* ---- context ---- */

static ck_ref *ref_get(ravel_checker *ck)
{
    if (!ck->ref) ck->ref = rv_xcalloc(1, sizeof *ck->ref);
    return ck->ref;
}

static void ref_fix_free(ref_fix *x)
{
    rv_vec_free(x->pool);
    rv_vec_free(x->xpool);
    rv_vec_free(x->ent);
    rv_vec_free(x->xit);
    rv_vec_free(x->reached);
    rv_vec_free(x->queued);
    rv_vec_free(x->xdone);
    rv_vec_free(x->in_start);
    rv_vec_free(x->in_src);
    rv_vec_free(x->in_edge);
    rv_vec_free(x->exitv);
    rv_vec_free(x->edgev);
    rv_vec_free(x->meetv);
    rv_vec_free(x->outv);
    rv_vec_free(x->ma);
    rv_vec_free(x->mb);
    rv_vec_free(x->tmp);
    rv_vec_free(x->hdr);
    rv_vec_free(x->seedspan);
    rv_vec_free(x->seeds);
    memset(x, 0, sizeof *x);
}

static size_t ref_fix_memory(const ref_fix *x)
{
#define V(v) ((size_t)x->v.cap * sizeof *x->v.data)
    return V(pool) + V(xpool) + V(ent) + V(xit) + V(reached) + V(queued) + V(xdone) + V(in_start) + V(in_src) + V(in_edge) +
           V(exitv) + V(edgev) + V(meetv) + V(outv) + V(ma) + V(mb) + V(tmp) + V(hdr) + V(seedspan) + V(seeds);
#undef V
}

void ck_ref_free(ravel_checker *ck)
{
    ck_ref *r = ck->ref;
    if (!r) return;
    ck_sets_free(&r->sets);
    ref_fix_free(&r->fix);
    ref_work_free(&r->work);
    ref_view_free(&r->view);
    rv_free(r);
    ck->ref = NULL;
}

size_t ck_ref_memory(const ravel_checker *ck)
{
    const ck_ref *r = ck->ref;
    if (!r) return 0;
    return ref_fix_memory(&r->fix) + ref_work_memory(&r->work) + ref_view_memory(&r->view) + (size_t)r->sets.pool.cap * sizeof *r->sets.pool.data +
           (size_t)r->sets.recs.cap * sizeof *r->sets.recs.data + (size_t)r->sets.cap * 4;
}

/* Per-function reset: the in-edge lists, empty states (the CFG is ck->cfg). */
static void ref_reset(ravel_checker *ck, ck_ref *r)
{
    const ravel_func *f = ck->f;
    uint32_t n = ck->nblocks;
    r->has_run = true;
    r->view.f = NULL;
    ck_sets_reset(&r->sets);
    if (ck->set_limit) r->sets.limit = ck->set_limit;
    r->fix.state_limit = ck->state_limit ? ck->state_limit : CK_MAX_STATE_POOL;
    r->fix.states_over = false;
    r->fix.pool.len = r->fix.xpool.len = 0;
    rv_vec_reserve(r->fix.ent, n);
    rv_vec_reserve(r->fix.xit, n);
    rv_vec_reserve(r->fix.reached, n);
    rv_vec_reserve(r->fix.queued, n);
    rv_vec_reserve(r->fix.xdone, n);
    r->fix.ent.len = r->fix.xit.len = r->fix.reached.len = r->fix.queued.len = r->fix.xdone.len = n;
    memset(r->fix.reached.data, 0, n);
    memset(r->fix.queued.data, 0, n);
    memset(r->fix.xdone.data, 0, n);
    /* in-edges: counted, then filled in block order */
    r->fix.in_start.len = 0;
    rv_vec_reserve(r->fix.in_start, n + 1);
    r->fix.in_start.len = n + 1;
    memset(r->fix.in_start.data, 0, (n + 1) * sizeof *r->fix.in_start.data);
    for (uint32_t b = 0; b < n; b++) {
        const rv_inst *t = rv_block_term(f, &f->blocks.data[b]);
        for (uint32_t k = 0; t && k < rv_inst_nsuccs(t); k++) r->fix.in_start.data[rv_inst_succs(f, t)[k].block + 1]++;
    }
    for (uint32_t b = 0; b < n; b++) r->fix.in_start.data[b + 1] += r->fix.in_start.data[b];
    uint32_t ne = r->fix.in_start.data[n];
    r->fix.in_src.len = r->fix.in_edge.len = 0;
    rv_vec_reserve(r->fix.in_src, ne);
    rv_vec_reserve(r->fix.in_edge, ne);
    r->fix.in_src.len = r->fix.in_edge.len = ne;
    r->fix.tmp.len = 0;
    rv_vec_reserve(r->fix.tmp, n);
    for (uint32_t b = 0; b < n; b++) r->fix.tmp.data[b] = r->fix.in_start.data[b];
    for (uint32_t b = 0; b < n; b++) {
        const rv_inst *t = rv_block_term(f, &f->blocks.data[b]);
        for (uint32_t k = 0; t && k < rv_inst_nsuccs(t); k++) {
            uint32_t to = rv_inst_succs(f, t)[k].block, p = r->fix.tmp.data[to]++;
            r->fix.in_src.data[p] = b;
            r->fix.in_edge.data[p] = t->u.succ.first + k;
        }
    }
    ref_work_reset(ck, r);
    r->nerr = 0;
    r->record = false;
}

/* ---- the meet ---- */

/* Section 6's meet of two values of reached edges. */
static ck_val meet(ck_ref *r, ck_val a, ck_val b)
{
    if (a == CK_V_UNKNOWN || b == CK_V_UNKNOWN) return CK_V_UNKNOWN;
    if (a == b) return a;
    if (a >= CK_V_EMPTY || b >= CK_V_EMPTY) return CK_V_CONFLICT;
    uint32_t oa, ob;
    const uint32_t *ma, *mb;
    uint32_t na = ref_members(r, a, &ma, &oa), nb = ref_members(r, b, &mb, &ob);
    r->fix.tmp.len = 0;
    rv_vec_reserve(r->fix.tmp, na);
    uint32_t *t = r->fix.tmp.data, n = 0;
    for (uint32_t i = 0, j = 0; i < na && j < nb;) { /* (members are sorted: a merge, its result sorted too) */
        if (ma[i] < mb[j]) i++;
        else if (ma[i] > mb[j]) j++;
        else t[n++] = ma[i++], j++;
    }
    if (!n) return CK_V_CONFLICT;
    return ck_set_intern(&r->sets, t, n);
}

/* ---- edges and the meet ---- */

static int cmp_ent(const void *a, const void *b)
{
    uint32_t x = ((const ck_ent *)a)->li, y = ((const ck_ent *)b)->li;
    return (x > y) - (x < y);
}

/* The exit state of the block just run, sparse and sorted. */
static void exit_state(const ravel_checker *ck, ck_ref *r)
{
    uint32_t nstate = ck_nstate(ck);
    r->fix.exitv.len = 0;
    if (r->work.touched.len > 32 && nstate <= 8 * r->work.touched.len) {
        /* (many: a scan of every location, in order; cur is unknown
         * wherever the visit did not touch) */
        rv_vec_reserve(r->fix.exitv, r->work.touched.len);
        const ck_val *cur = r->work.cur;
        ck_ent *out = r->fix.exitv.data;
        uint32_t n = 0;
        for (uint32_t li = 0; li < nstate; li++)
            if (cur[li] != CK_V_UNKNOWN) out[n++] = (ck_ent){li, cur[li]}; /* (at most the touched ones) */
        r->fix.exitv.len = n;
        return;
    }
    for (uint32_t i = 0; i < r->work.touched.len; i++) {
        uint32_t li = r->work.touched.data[i];
        if (r->work.cur[li] != CK_V_UNKNOWN) rv_vec_push(r->fix.exitv, ((ck_ent){li, r->work.cur[li]}));
    }
    ck_ent *e = r->fix.exitv.data;
    uint32_t n = r->fix.exitv.len;
    if (n > 32) { /* (the locations are distinct: any sort gives the one order) */
        qsort(e, n, sizeof *e, cmp_ent);
        return;
    }
    for (uint32_t i = 1; i < n; i++) { /* (short: an insertion sort, without qsort's copy) */
        ck_ent x = e[i];
        uint32_t j = i;
        for (; j > 0 && e[j - 1].li > x.li; j--) e[j] = e[j - 1];
        e[j] = x;
    }
}

/* Stores vec into the span *sp of pool (in place when it fits); true if
 * it differs from what was there (or nothing was: had false). */
static bool store(ck_ref *r, ck_entvec *pool, ck_span *sp, const ck_entvec *vec, bool had)
{
    if (had && sp->len == vec->len && (!vec->len || !memcmp(pool->data + sp->start, vec->data, vec->len * sizeof *vec->data)))
        return false;
    if (!had || vec->len > sp->cap) {
        if ((uint64_t)r->fix.pool.len + r->fix.xpool.len + vec->len > r->fix.state_limit) { /* bounded: the check stops */
            r->fix.states_over = true;
            return false;
        }
        rv_vec_reserve(*pool, vec->len);
        *sp = (ck_span){pool->len, 0, vec->len};
        pool->len += vec->len;
    }
    if (vec->len) memcpy(pool->data + sp->start, vec->data, vec->len * sizeof *vec->data);
    sp->len = vec->len;
    return true;
}

/* A filter for the vregs an edge's binding names (its target's
 * parameters and its arguments): bit v % 64 per vreg. */
static uint64_t edge_vreg_bits(const ravel_checker *ck, const rv_succ *e)
{
    const rv_block *t = &ck->f->blocks.data[e->block];
    if (!t->nparams) return 0;
    const uint32_t *params = rv_params_of(ck->f, t), *args = rv_args_of(ck->f, e);
    uint64_t bits = 0;
    for (uint32_t p = 0; p < t->nparams; p++) bits |= (1ull << (params[p] & 63)) | (1ull << (args[p] & 63));
    return bits;
}

/* Some member of val may be named by the binding (bits: edge_vreg_bits). */
static bool may_bind(const ck_ref *r, ck_val val, uint64_t bits)
{
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ref_members(r, val, &m, &one);
    for (uint32_t i = 0; i < n; i++)
        if (bits >> (m[i] & 63) & 1) return true;
    return false;
}

/* r->fix.edgev := the state edge e carries from the stored exit of its
 * source. (A value no member of which the binding may name passes as it
 * is, ref_edge_val's own answer, without asking it.) */
static void edge_state(const ravel_checker *ck, ck_ref *r, uint32_t src, const rv_succ *e)
{
    const ck_span *x = &r->fix.xit.data[src];
    uint64_t bits = edge_vreg_bits(ck, e);
    r->fix.edgev.len = 0;
    rv_vec_reserve(r->fix.edgev, x->len);
    if (x->len) memcpy(r->fix.edgev.data, r->fix.xpool.data + x->start, x->len * sizeof *r->fix.edgev.data);
    r->fix.edgev.len = x->len;
    for (uint32_t i = 0; bits && i < x->len; i++) { /* (then the values the binding may name; no binding: none) */
        ck_ent *en = &r->fix.edgev.data[i];
        if (may_bind(r, en->val, bits)) en->val = ref_edge_val(ck, r, e, en->val);
    }
}

/* The value of li in the sparse sorted state v (unknown if absent); U
 * and the C_k, pseudo-locations, are at its end. */
static ck_val ent_val(const ck_entvec *v, uint32_t li)
{
    for (uint32_t i = v->len; i-- > 0 && v->data[i].li >= li;)
        if (v->data[i].li == li) return v->data[i].val;
    return CK_V_UNKNOWN;
}

/* The members of a value (none for unknown, empty, conflicted) appended to *out. */
static void push_members(ck_ref *r, ck_val v, ck_u32vec *out)
{
    if (v >= CK_V_UNKNOWN) return;
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ref_members(r, v, &m, &one);
    for (uint32_t i = 0; i < n; i++) rv_vec_push(*out, m[i]);
}

/* Section 14.4's meet of a location's values a and b, the states' U being
 * ua and ub and the met U u: ((S_a + ua) & (S_b + ub)) - u; if that is
 * empty, unknown if a or b is, empty if both are, else conflicted. */
static ck_val meet_undef(ck_ref *r, ck_val a, ck_val b, ck_val ua, ck_val ub, ck_val u)
{
    r->fix.ma.len = r->fix.mb.len = 0;
    push_members(r, a, &r->fix.ma);
    push_members(r, ua, &r->fix.ma);
    push_members(r, b, &r->fix.mb);
    push_members(r, ub, &r->fix.mb);
    r->fix.tmp.len = 0;
    for (uint32_t i = 0; i < r->fix.ma.len; i++) {
        uint32_t x = r->fix.ma.data[i];
        bool inb = false;
        for (uint32_t j = 0; j < r->fix.mb.len && !inb; j++) inb = r->fix.mb.data[j] == x;
        if (inb && !(u < CK_V_UNKNOWN && ref_val_has(r, u, x))) rv_vec_push(r->fix.tmp, x);
    }
    if (r->fix.tmp.len) return ref_intern(r, r->fix.tmp.data, r->fix.tmp.len);
    if (a == CK_V_UNKNOWN || b == CK_V_UNKNOWN) return CK_V_UNKNOWN;
    return a == CK_V_EMPTY && b == CK_V_EMPTY ? CK_V_EMPTY : CK_V_CONFLICT;
}

/* The meet of two values at location li: a pseudo-location (U, C_k) is an
 * intersection, absent (unknown) when empty. */
static ck_val meet_at(const ravel_checker *ck, ck_ref *r, uint32_t li, ck_val a, ck_val b)
{
    ck_val v = meet(r, a, b);
    return li >= ck->nlocs && v >= CK_V_EMPTY ? CK_V_UNKNOWN : v;
}

/* meetv meet edgev when a side has undefined vregs (section 14.4): a
 * location absent on one side may still hold what the other's U has. */
static void meet_edge_undef(const ravel_checker *ck, ck_ref *r, ck_val ua, ck_val ub)
{
    ck_val u = meet_at(ck, r, ck->ext.uli, ua, ub);
    ck_entvec *A = &r->fix.meetv, *B = &r->fix.edgev, *O = &r->fix.outv;
    O->len = 0;
    uint32_t i = 0, j = 0;
    while (i < A->len || j < B->len) {
        uint32_t la = i < A->len ? A->data[i].li : CK_NIL, lb = j < B->len ? B->data[j].li : CK_NIL, li = la < lb ? la : lb;
        ck_val a = la == li ? A->data[i++].val : CK_V_UNKNOWN, b = lb == li ? B->data[j++].val : CK_V_UNKNOWN;
        ck_val v = li >= ck->nlocs ? (li == ck->ext.uli ? u : meet_at(ck, r, li, a, b)) : meet_undef(r, a, b, ua, ub, u);
        if (v != CK_V_UNKNOWN) rv_vec_push(*O, ((ck_ent){li, v}));
    }
    ck_entvec t = *A;
    *A = *O;
    *O = t;
}

/* r->fix.meetv := r->fix.meetv meet r->fix.edgev, location-wise (a location absent on
 * either side is unknown, the meet's bottom, unless that side has
 * undefined vregs: meet_edge_undef). */
static void meet_edge(const ravel_checker *ck, ck_ref *r)
{
    if (ck->ext.undef) {
        ck_val ua = ent_val(&r->fix.meetv, ck->ext.uli), ub = ent_val(&r->fix.edgev, ck->ext.uli);
        if (ua != CK_V_UNKNOWN || ub != CK_V_UNKNOWN) {
            meet_edge_undef(ck, r, ua, ub);
            return;
        }
    }
    uint32_t i = 0, j = 0, w = 0;
    while (i < r->fix.meetv.len && j < r->fix.edgev.len) {
        ck_ent a = r->fix.meetv.data[i], b = r->fix.edgev.data[j];
        if (a.li < b.li) {
            i++;
        } else if (a.li > b.li) {
            j++;
        } else {
            ck_val v = a.val == b.val && a.val < CK_V_EMPTY ? a.val : meet_at(ck, r, a.li, a.val, b.val); /* (equal: itself, inline) */
            if (v != CK_V_UNKNOWN) r->fix.meetv.data[w++] = (ck_ent){a.li, v}; /* w <= i: in place */
            i++, j++;
        }
    }
    r->fix.meetv.len = w;
}

/* r->fix.meetv := r->fix.edgev (the first in-edge), or its meet with it. */
static void meet_in(const ravel_checker *ck, ck_ref *r, bool *first)
{
    if (!*first) {
        meet_edge(ck, r);
        return;
    }
    r->fix.meetv.len = 0;
    rv_vec_reserve(r->fix.meetv, r->fix.edgev.len);
    if (r->fix.edgev.len) memcpy(r->fix.meetv.data, r->fix.edgev.data, r->fix.edgev.len * sizeof *r->fix.edgev.data);
    r->fix.meetv.len = r->fix.edgev.len;
    *first = false;
}

/* In the steady states (ck_ref_steady) a loop header's forward in-edges
 * (from q, which t does not dominate) do not count, and its first
 * fixpoint's back edges (its seed) do. */
static bool steady_header(const ck_ref *r, uint32_t t) { return r->fix.steady && r->fix.hdr.data[t]; }

static void meet_seed(const ravel_checker *ck, ck_ref *r, uint32_t t, bool *first)
{
    ck_span sp = r->fix.seedspan.data[t];
    r->fix.edgev.len = 0;
    rv_vec_reserve(r->fix.edgev, sp.len);
    if (sp.len) memcpy(r->fix.edgev.data, r->fix.seeds.data + sp.start, sp.len * sizeof *r->fix.edgev.data);
    r->fix.edgev.len = sp.len;
    meet_in(ck, r, first);
}

/* t's entry := the meet over its in-edges whose source has an exit state
 * (the others are unreached: the meet's identity); true if it changed. */
static bool recompute_entry(const ravel_checker *ck, ck_ref *r, uint32_t t)
{
    bool first = true, steady = steady_header(r, t);
    for (uint32_t p = r->fix.in_start.data[t]; p < r->fix.in_start.data[t + 1]; p++) {
        uint32_t q = r->fix.in_src.data[p];
        if (!r->fix.xdone.data[q] || (steady && !rv_cfg_dominates(&ck->cfg.g, t, q))) continue;
        edge_state(ck, r, q, &ck->f->succs.data[r->fix.in_edge.data[p]]);
        meet_in(ck, r, &first);
    }
    if (steady) meet_seed(ck, r, t, &first);
    bool had = r->fix.reached.data[t];
    r->fix.reached.data[t] = 1;
    return store(r, &r->fix.pool, &r->fix.ent.data[t], &r->fix.meetv, had);
}

/* After a visit of b: its exit state stored; each successor whose entry
 * changed is queued. */
static void propagate(ravel_checker *ck, ck_ref *r, uint32_t b)
{
    const ravel_func *f = ck->f;
    exit_state(ck, r);
    bool had = r->fix.xdone.data[b];
    r->fix.xdone.data[b] = 1;
    if (!store(r, &r->fix.xpool, &r->fix.xit.data[b], &r->fix.exitv, had)) return;
    const rv_inst *t = rv_block_term(f, &f->blocks.data[b]);
    for (uint32_t k = 0; t && k < rv_inst_nsuccs(t); k++) {
        uint32_t to = rv_inst_succs(f, t)[k].block;
        if (recompute_entry(ck, r, to)) r->fix.queued.data[to] = 1;
    }
}

/* ---- the fixpoint ---- */

/* Iterates to the fixpoint: sweeps the reachable blocks in reverse
 * post-order, running each queued one. False if it stopped at a value
 * error (stop_at_error) or hit the safety cap (*diverged). */
static bool fixpoint(ravel_checker *ck, ck_ref *r, bool *diverged)
{
    const rv_cfg *c = &ck->cfg.g;
    if (!c->nrpo) return true;
    uint64_t cap = (uint64_t)ck->nblocks * ((uint64_t)ck->nlocs * (ck->nvregs + 3u) + 1u) + 1000u, visits = 0;
    uint32_t entry = c->rpo[0];
    r->fix.reached.data[entry] = 1;
    r->fix.ent.data[entry] = (ck_span){r->fix.pool.len, 0, 0}; /* every location unknown */
    r->fix.queued.data[entry] = 1;
    for (bool any = true; any;) {
        any = false;
        for (uint32_t i = 0; i < c->nrpo; i++) {
            uint32_t b = c->rpo[i];
            if (!r->fix.queued.data[b]) continue;
            r->fix.queued.data[b] = 0;
            any = true;
            if (++visits > cap) {
                *diverged = true;
                return false;
            }
            ck->nvisits++; /* (tests bound the work) */
            ref_run_block(ck, r, b);
            if (r->stop_at_error && r->nerr && !r->sets.overflow) return false;
            propagate(ck, r, b);
            if (r->fix.states_over) return false;
        }
    }
    return true;
}

/* ---- the steady states (ck_sem.h) ---- */

/* The seeds: per block t with a back edge (from a block it dominates) the
 * meet of what its back edges carry at the fixpoint just made. */
static void steady_seeds(const ravel_checker *ck, ck_ref *r)
{
    uint32_t n = ck->nblocks;
    r->fix.hdr.len = r->fix.seedspan.len = r->fix.seeds.len = 0;
    rv_vec_reserve(r->fix.hdr, n);
    rv_vec_reserve(r->fix.seedspan, n);
    r->fix.hdr.len = r->fix.seedspan.len = n;
    memset(r->fix.hdr.data, 0, n);
    for (uint32_t t = 0; t < n; t++) {
        bool first = true;
        for (uint32_t p = r->fix.in_start.data[t]; r->fix.reached.data[t] && p < r->fix.in_start.data[t + 1]; p++) {
            uint32_t q = r->fix.in_src.data[p];
            if (!r->fix.xdone.data[q] || !rv_cfg_dominates(&ck->cfg.g, t, q)) continue;
            edge_state(ck, r, q, &ck->f->succs.data[r->fix.in_edge.data[p]]);
            meet_in(ck, r, &first);
        }
        if (first) continue;
        r->fix.hdr.data[t] = 1;
        r->fix.seedspan.data[t] = (ck_span){r->fix.seeds.len, r->fix.meetv.len, r->fix.meetv.len};
        for (uint32_t i = 0; i < r->fix.meetv.len; i++) rv_vec_push(r->fix.seeds, r->fix.meetv.data[i]);
    }
}

bool ck_ref_steady(ravel_checker *ck, const ravel_func *f)
{
    ck_ref *r = ck->ref;
    if (!ref_states_of(r, f)) return false;
    const ravel_func *f0 = ck->f;
    ck->f = f;
    r->view.f = NULL;
    steady_seeds(ck, r);
    uint32_t n = ck->nblocks;
    r->fix.pool.len = r->fix.xpool.len = 0;
    memset(r->fix.reached.data, 0, n);
    memset(r->fix.queued.data, 0, n);
    memset(r->fix.xdone.data, 0, n);
    r->fix.states_over = false;
    r->fix.steady = true;
    for (uint32_t t = 0; t < n; t++) { /* the headers start from their seeds */
        if (!r->fix.hdr.data[t]) continue;
        bool first = true;
        meet_seed(ck, r, t, &first);
        store(r, &r->fix.pool, &r->fix.ent.data[t], &r->fix.meetv, false);
        r->fix.reached.data[t] = r->fix.queued.data[t] = 1;
    }
    bool rec = r->record, diverged = false;
    r->record = r->stop_at_error = false;
    fixpoint(ck, r, &diverged);
    r->record = rec;
    r->fix.steady = false;
    ck->f = f0;
    if (diverged || r->fix.states_over) r->has_run = false; /* (half made: nothing to read) */
    return r->has_run;
}

void ck_ref_plain(ravel_checker *ck, bool on)
{
    ck_ref *r = ref_get(ck);
    r->work.q.force_all = r->work.memo.off = on;
}

/* ---- the entry point ---- */

bool ck_ref_check(ravel_checker *ck, bool verdict_only, bool *overflow, uint32_t *limit)
{
    ck_ref *r = ref_get(ck);
    ref_reset(ck, r);
    bool diverged = false;
    r->stop_at_error = verdict_only;
    bool done = fixpoint(ck, r, &diverged);
    r->stop_at_error = false;
    ck->ref_states = (uint64_t)r->fix.pool.len + r->fix.xpool.len;
    *overflow = r->sets.overflow;
    *limit = r->sets.limit;
    if (diverged) {
        ck->diverged = true;
        return false;
    }
    if (r->fix.states_over) {
        ck->states_over = true;
        return false;
    }
    if (!done) { /* a certain value error: the verdict is known */
        if (ck->out.rep) ck->out.rep->status = RAVEL_EFAIL;
        return false;
    }
    bool ok = r->nerr == 0;
    if (verdict_only && ok) return true;
    if (ck->opts & CK_SEM_STATES_ONLY) { /* (the states are wanted: no recording pass) */
        if (!ok && ck->out.rep) ck->out.rep->status = RAVEL_EFAIL;
        return ok;
    }
    /* the recording pass: every reached block once, at the fixpoint */
    r->record = true;
    r->nerr = 0;
    uint32_t e0 = ck->out.rep ? ck->out.rep->errs.len : 0;
    for (uint32_t i = 0; i < ck->cfg.g.nrpo; i++) ref_run_block(ck, r, ck->cfg.g.rpo[i]);
    r->record = false;
    if (ck->out.rep) ref_add_provenance(ck, r, e0);
    *overflow = r->sets.overflow;
    return r->nerr == 0;
}
