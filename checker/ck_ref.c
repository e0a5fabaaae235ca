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
#include "ck.h"

#include <stdlib.h>
#include <string.h>

typedef struct ck_hold {
    uint32_t li, next;
} ck_hold;

struct ck_ref {
    bool has_run; /* a check ran: the states below are of ck->f */
    ck_sets sets;
    /* per block: entry state in pool and exit state in xpool (sorted by li,
     * no unknown); reached: has an entry, xdone: has an exit, queued */
    ck_entvec pool, xpool;
    RV_VEC(ck_span) ent, xit;
    RV_VEC(uint8_t) reached, queued, xdone;
    /* in-edges per block, in a fixed order (source block id, then
     * successor order): pairs (source, edge id into f->succs) */
    RV_VEC(uint32_t) in_start, in_src, in_edge;
    /* the dense working state: cur[li], touched list by stamp */
    ck_val *cur;
    uint32_t *lmark, *lmark2; /* lmark: cur[li] is of this visit; lmark2: listed at a safepoint (stamp2) */
    uint32_t *lseen;          /* seen once by live_holders (stamp3) */
    uint32_t loc_cap, stamp, stamp2, stamp3;
    RV_VEC(uint32_t) touched;
    /* holders: per vreg (index nvregs: holders of .ref vregs) a list of
     * locations that received it this visit (stale entries re-checked) */
    uint32_t *vhead, *vmark, *vmark2;
    uint32_t vcap;
    RV_VEC(ck_hold) holds;
    ck_u32vec m1, m2, srcset, hl;
    ck_entvec exitv, edgev, meetv;
    /* recording and verdict */
    bool record;    /* the recording pass: value errors go to ck->out.rep */
    bool stop_at_error;
    uint32_t nerr;  /* value errors seen (any pass) */
    uint32_t err_block; /* provenance: the block of the error being explained */
    uint32_t state_limit; /* CK_MAX_STATE_POOL, or ck->state_limit (tests) */
    bool states_over;     /* a state was not stored: past state_limit */
};

/* ---- context ---- */

static ck_ref *ref_get(ravel_checker *ck)
{
    if (!ck->ref) ck->ref = rv_xcalloc(1, sizeof *ck->ref);
    return ck->ref;
}

void ck_ref_free(ravel_checker *ck)
{
    ck_ref *r = ck->ref;
    if (!r) return;
    ck_sets_free(&r->sets);
    rv_vec_free(r->pool);
    rv_vec_free(r->xpool);
    rv_vec_free(r->ent);
    rv_vec_free(r->xit);
    rv_vec_free(r->reached);
    rv_vec_free(r->queued);
    rv_vec_free(r->xdone);
    rv_vec_free(r->in_start);
    rv_vec_free(r->in_src);
    rv_vec_free(r->in_edge);
    rv_free(r->cur);
    rv_free(r->lmark);
    rv_free(r->lmark2);
    rv_free(r->lseen);
    rv_vec_free(r->touched);
    rv_free(r->vhead);
    rv_free(r->vmark);
    rv_free(r->vmark2);
    rv_vec_free(r->hl);
    rv_vec_free(r->holds);
    rv_vec_free(r->m1);
    rv_vec_free(r->m2);
    rv_vec_free(r->srcset);
    rv_vec_free(r->exitv);
    rv_vec_free(r->edgev);
    rv_vec_free(r->meetv);
    rv_free(r);
    ck->ref = NULL;
}

size_t ck_ref_memory(const ravel_checker *ck)
{
    const ck_ref *r = ck->ref;
    if (!r) return 0;
#define V(x) ((size_t)r->x.cap * sizeof *r->x.data)
    return V(pool) + V(xpool) + V(ent) + V(xit) + V(reached) + V(queued) + V(xdone) + V(in_start) + V(in_src) + V(in_edge) + V(touched) + V(holds) +
           V(m1) + V(m2) + V(srcset) + V(hl) + V(exitv) + V(edgev) + V(meetv) + V(sets.pool) + V(sets.recs) +
           (size_t)r->sets.cap * 4 + (size_t)r->loc_cap * 16 + (size_t)r->vcap * 12;
#undef V
}

/* The dense state back to all unknown (only touched locations differ). */
static void clear_touched(ck_ref *r)
{
    for (uint32_t i = 0; i < r->touched.len; i++) r->cur[r->touched.data[i]] = CK_V_UNKNOWN;
    r->touched.len = 0;
}

/* Per-function reset: the in-edge lists, empty states (the CFG is ck->cfg). */
static void ref_reset(ravel_checker *ck, ck_ref *r)
{
    const ravel_func *f = ck->f;
    uint32_t n = ck->nblocks;
    r->has_run = true;
    ck_sets_reset(&r->sets);
    if (ck->set_limit) r->sets.limit = ck->set_limit;
    r->state_limit = ck->state_limit ? ck->state_limit : CK_MAX_STATE_POOL;
    r->states_over = false;
    r->pool.len = r->xpool.len = 0;
    rv_vec_reserve(r->ent, n);
    rv_vec_reserve(r->xit, n);
    rv_vec_reserve(r->reached, n);
    rv_vec_reserve(r->queued, n);
    rv_vec_reserve(r->xdone, n);
    r->ent.len = r->xit.len = r->reached.len = r->queued.len = r->xdone.len = n;
    memset(r->reached.data, 0, n);
    memset(r->queued.data, 0, n);
    memset(r->xdone.data, 0, n);
    /* in-edges: counted, then filled in block order */
    r->in_start.len = 0;
    rv_vec_reserve(r->in_start, n + 1);
    r->in_start.len = n + 1;
    memset(r->in_start.data, 0, (n + 1) * sizeof *r->in_start.data);
    for (uint32_t b = 0; b < n; b++) {
        const rv_inst *t = rv_block_term(f, &f->blocks.data[b]);
        for (uint32_t k = 0; t && k < rv_inst_nsuccs(t); k++) r->in_start.data[rv_inst_succs(f, t)[k].block + 1]++;
    }
    for (uint32_t b = 0; b < n; b++) r->in_start.data[b + 1] += r->in_start.data[b];
    uint32_t ne = r->in_start.data[n];
    r->in_src.len = r->in_edge.len = 0;
    rv_vec_reserve(r->in_src, ne);
    rv_vec_reserve(r->in_edge, ne);
    r->in_src.len = r->in_edge.len = ne;
    r->m1.len = 0;
    rv_vec_reserve(r->m1, n);
    for (uint32_t b = 0; b < n; b++) r->m1.data[b] = r->in_start.data[b];
    for (uint32_t b = 0; b < n; b++) {
        const rv_inst *t = rv_block_term(f, &f->blocks.data[b]);
        for (uint32_t k = 0; t && k < rv_inst_nsuccs(t); k++) {
            uint32_t to = rv_inst_succs(f, t)[k].block, p = r->m1.data[to]++;
            r->in_src.data[p] = b;
            r->in_edge.data[p] = t->u.succ.first + k;
        }
    }
    /* the dense state and the holder lists */
    clear_touched(r);
    if (ck->nlocs > r->loc_cap) {
        rv_free(r->cur);
        rv_free(r->lmark);
        rv_free(r->lmark2);
        rv_free(r->lseen);
        r->loc_cap = ck->nlocs;
        r->cur = rv_xmalloc(sizeof *r->cur * r->loc_cap);
        for (uint32_t li = 0; li < r->loc_cap; li++) r->cur[li] = CK_V_UNKNOWN;
        r->lmark = rv_xcalloc(r->loc_cap, sizeof *r->lmark);
        r->lmark2 = rv_xcalloc(r->loc_cap, sizeof *r->lmark2);
        r->lseen = rv_xcalloc(r->loc_cap, sizeof *r->lseen);
        r->stamp = r->stamp2 = r->stamp3 = 0;
        if (r->vmark) memset(r->vmark, 0, sizeof *r->vmark * r->vcap);
        if (r->vmark2) memset(r->vmark2, 0, sizeof *r->vmark2 * r->vcap);
    }
    if (ck->nvregs + 1 > r->vcap) {
        rv_free(r->vhead);
        rv_free(r->vmark);
        rv_free(r->vmark2);
        r->vcap = ck->nvregs + 1;
        r->vhead = rv_xmalloc(sizeof *r->vhead * r->vcap);
        r->vmark = rv_xcalloc(r->vcap, sizeof *r->vmark);
        r->vmark2 = rv_xcalloc(r->vcap, sizeof *r->vmark2);
        r->stamp = r->stamp2 = 0;
        if (r->lmark) memset(r->lmark, 0, sizeof *r->lmark * r->loc_cap);
        if (r->lmark2) memset(r->lmark2, 0, sizeof *r->lmark2 * r->loc_cap);
    }
    r->nerr = 0;
    r->record = false;
}

static uint32_t next_stamp(ck_ref *r)
{
    if (++r->stamp == 0) { /* wrapped: clear the marks */
        memset(r->lmark, 0, sizeof *r->lmark * r->loc_cap);
        memset(r->vmark, 0, sizeof *r->vmark * r->vcap);
        r->stamp = 1;
    }
    return r->stamp;
}

/* ---- values ---- */

static bool is_ref(const ravel_checker *ck, uint32_t v) { return ck->f->vregs.data[v].ref; }

static uint32_t members(const ck_ref *r, ck_val v, const uint32_t **m, uint32_t *one)
{
    return ck_val_members(&r->sets, v, m, one);
}

static bool val_has(const ck_ref *r, ck_val val, uint32_t v)
{
    uint32_t one;
    const uint32_t *m;
    uint32_t n = members(r, val, &m, &one);
    for (uint32_t i = 0; i < n; i++)
        if (m[i] == v) return true;
    return false;
}

static bool val_holds_ref(const ravel_checker *ck, const ck_ref *r, ck_val val)
{
    uint32_t one;
    const uint32_t *m;
    uint32_t n = members(r, val, &m, &one);
    for (uint32_t i = 0; i < n; i++)
        if (is_ref(ck, m[i])) return true;
    return false;
}

/* The set of the n vregs in buf (any order, repeats allowed); none: empty. */
static ck_val intern(ck_ref *r, uint32_t *buf, uint32_t n)
{
    ck_sort_u32(buf, n);
    uint32_t w = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!w || buf[w - 1] != buf[i]) buf[w++] = buf[i];
    return ck_set_intern(&r->sets, buf, w);
}

/* Section 6's meet of two values of reached edges. */
static ck_val meet(ck_ref *r, ck_val a, ck_val b)
{
    if (a == CK_V_UNKNOWN || b == CK_V_UNKNOWN) return CK_V_UNKNOWN;
    if (a == b) return a;
    if (a >= CK_V_EMPTY || b >= CK_V_EMPTY) return CK_V_CONFLICT;
    uint32_t oa, ob;
    const uint32_t *ma, *mb;
    uint32_t na = members(r, a, &ma, &oa), nb = members(r, b, &mb, &ob);
    r->m2.len = 0;
    rv_vec_reserve(r->m2, na);
    for (uint32_t i = 0; i < na; i++)
        for (uint32_t j = 0; j < nb; j++)
            if (ma[i] == mb[j]) r->m2.data[r->m2.len++] = ma[i];
    if (!r->m2.len) return CK_V_CONFLICT;
    return intern(r, r->m2.data, r->m2.len);
}

/* ---- the dense working state ---- */

static void hold_push(ck_ref *r, uint32_t v, uint32_t li)
{
    if (r->vmark[v] != r->stamp) {
        r->vmark[v] = r->stamp;
        r->vhead[v] = CK_NIL;
    }
    rv_vec_push(r->holds, ((ck_hold){li, r->vhead[v]}));
    r->vhead[v] = r->holds.len - 1;
}

static uint32_t hold_head(const ck_ref *r, uint32_t v) { return r->vmark[v] == r->stamp ? r->vhead[v] : CK_NIL; }

static uint32_t next_seen(ck_ref *r)
{
    if (++r->stamp3 == 0) {
        memset(r->lseen, 0, sizeof *r->lseen * r->loc_cap);
        r->stamp3 = 1;
    }
    return r->stamp3;
}

/* cur[li] is unknown wherever the visit has not touched li. */
static ck_val get_loc(const ck_ref *r, uint32_t li) { return r->cur[li]; }

/* The locations that hold v now (v == nvregs: that hold a .ref vreg),
 * each once, into *out; v's holder list becomes exactly them. A holder
 * list gains an entry per write of a value with v, and keeps it when the
 * location is overwritten: without this rewrite the list of .ref holders,
 * scanned at every safepoint, grows with the block (quadratic work). */
static void live_holders(ravel_checker *ck, ck_ref *r, uint32_t v, ck_u32vec *out)
{
    uint32_t seen = next_seen(r);
    out->len = 0;
    for (uint32_t h = hold_head(r, v); h != CK_NIL; h = r->holds.data[h].next) {
        uint32_t li = r->holds.data[h].li;
        ck->ref_scans++;
        if (r->lseen[li] == seen) continue;
        r->lseen[li] = seen;
        ck_val val = get_loc(r, li);
        if (v == ck->nvregs ? val_holds_ref(ck, r, val) : val_has(r, val, v)) rv_vec_push(*out, li);
    }
    if (r->vmark[v] == r->stamp) r->vhead[v] = CK_NIL;
    for (uint32_t i = out->len; i-- > 0;) hold_push(r, v, out->data[i]);
}

/* cur[li] := val; every member (and the .ref pseudo-vreg) lists li. */
static void set_loc(const ravel_checker *ck, ck_ref *r, uint32_t li, ck_val val)
{
    if (r->lmark[li] != r->stamp) {
        r->lmark[li] = r->stamp;
        rv_vec_push(r->touched, li);
    }
    r->cur[li] = val;
    uint32_t one;
    const uint32_t *m;
    uint32_t n = members(r, val, &m, &one);
    bool ref = false;
    for (uint32_t i = 0; i < n; i++) {
        hold_push(r, m[i], li);
        ref |= is_ref(ck, m[i]);
    }
    if (ref) hold_push(r, ck->nvregs, li);
}

/* Starts a visit of b from its entry state. */
static void load_entry(const ravel_checker *ck, ck_ref *r, uint32_t b)
{
    clear_touched(r);
    next_stamp(r);
    r->holds.len = 0;
    const ck_span *e = &r->ent.data[b];
    for (uint32_t i = 0; i < e->len; i++) set_loc(ck, r, r->pool.data[e->start + i].li, r->pool.data[e->start + i].val);
}

/* The members of li's value that keep(ck, v, arg) accepts stay. */
static void filter_loc(const ravel_checker *ck, ck_ref *r, uint32_t li, bool (*keep)(const ravel_checker *, uint32_t, uint32_t),
                       uint32_t arg)
{
    ck_val val = get_loc(r, li);
    uint32_t one;
    const uint32_t *m;
    uint32_t n = members(r, val, &m, &one);
    if (!n) return;
    r->m1.len = 0;
    rv_vec_reserve(r->m1, n);
    for (uint32_t i = 0; i < n; i++)
        if (keep(ck, m[i], arg)) r->m1.data[r->m1.len++] = m[i];
    if (r->m1.len != n) set_loc(ck, r, li, intern(r, r->m1.data, r->m1.len));
}

static bool keep_not(const ravel_checker *ck, uint32_t v, uint32_t arg) { (void)ck; return v != arg; }

/* A def of v: v is removed from every location that holds it. */
static void kill(ravel_checker *ck, ck_ref *r, uint32_t v)
{
    for (uint32_t h = hold_head(r, v); h != CK_NIL; h = r->holds.data[h].next, ck->ref_scans++)
        filter_loc(ck, r, r->holds.data[h].li, keep_not, v);
    if (r->vmark[v] == r->stamp) r->vhead[v] = CK_NIL;
}

static void write_def(ravel_checker *ck, ck_ref *r, uint32_t v, uint32_t li)
{
    kill(ck, r, v);
    if (li != CK_NIL) set_loc(ck, r, li, v);
}

/* copy d <- u whose read succeeded (its source set in r->srcset): d is
 * removed everywhere, every location holding u also holds d, and d's
 * location := the source set plus d. */
static void alias_def(ravel_checker *ck, ck_ref *r, uint32_t d, uint32_t u, uint32_t ld)
{
    kill(ck, r, d);
    if (d != u) {
        live_holders(ck, r, u, &r->m2); /* the holders of u, first (adding d pushes holders) */
        for (uint32_t i = 0; i < r->m2.len; i++) {
            uint32_t li = r->m2.data[i];
            ck_val val = get_loc(r, li);
            if (!val_has(r, val, u) || val_has(r, val, d)) continue;
            uint32_t one;
            const uint32_t *m;
            uint32_t n = members(r, val, &m, &one);
            r->m1.len = 0;
            rv_vec_reserve(r->m1, n + 1);
            for (uint32_t k = 0; k < n; k++) r->m1.data[r->m1.len++] = m[k];
            r->m1.data[r->m1.len++] = d;
            set_loc(ck, r, li, intern(r, r->m1.data, r->m1.len));
        }
    }
    if (ld == CK_NIL) return;
    r->m1.len = 0;
    rv_vec_reserve(r->m1, r->srcset.len + 1);
    for (uint32_t i = 0; i < r->srcset.len; i++) r->m1.data[r->m1.len++] = r->srcset.data[i];
    r->m1.data[r->m1.len++] = d;
    set_loc(ck, r, ld, intern(r, r->m1.data, r->m1.len));
}

/* ---- reads ---- */

/* "vK is in L here" (or "in L1, L2 and L3"): the other locations that hold
 * vreg v at the read, in location order; NULL if none. Only on errors. */
static char *here_note(const ravel_checker *ck, ck_ref *r, uint32_t v)
{
    uint32_t n = 0, shown = 0;
    for (uint32_t li = 0; li < ck->nlocs; li++) n += val_has(r, get_loc(r, li), v);
    if (!n) return NULL;
    ck_buf b = {0};
    char vb[32], lb[32];
    ck_bprintf(&b, "%s is in ", ck_vname(ck->f, v, vb));
    for (uint32_t li = 0; li < ck->nlocs && shown < 8; li++) {
        if (!val_has(r, get_loc(r, li), v)) continue;
        if (shown) ck_bprintf(&b, shown + 1 == n ? " and " : ", ");
        ck_bprintf(&b, "%s", rv_loc_str(ck->f->mach, ck_loc_of(ck, li), lb));
        shown++;
    }
    if (shown < n) ck_bprintf(&b, " and %u more locations", n - shown);
    ck_bprintf(&b, " here");
    return ck_bdetach(&b);
}

static void value_error(ravel_checker *ck, ck_ref *r, const ck_site *s, const char *kind, uint32_t li, uint32_t expect)
{
    r->nerr++;
    if (!r->record || !ck->out.rep) return;
    ck_err *e = ck_err_value_rec(ck, s, kind, li, expect, &r->sets, get_loc(r, li));
    if (expect != CK_NIL && ck->out.rep->errs.len <= CK_MAX_PROVENANCE) e->here = here_note(ck, r, expect);
}

static bool read_use(ravel_checker *ck, ck_ref *r, const ck_site *s, const rv_operand *o)
{
    uint32_t li = ck_li(ck, o->loc);
    if (li == CK_NIL) return false; /* a structural error: the rules report it */
    ck_val val = get_loc(r, li);
    if (val_has(r, val, o->vreg)) return true;
    const char *kind = val == CK_V_UNKNOWN ? "use-unknown"
                     : val == CK_V_CONFLICT ? "use-conflicted"
                     : val == CK_V_EMPTY ? "use-empty" : "use-wrong-vreg";
    value_error(ck, r, s, kind, li, o->vreg);
    return false;
}

static void uses_at(ravel_checker *ck, ck_ref *r, uint32_t b, uint32_t ii, const rv_inst *in, bool late, bool *copy_ok)
{
    const rv_operand *u = ck_uses(ck->f, in);
    for (uint32_t k = 0; k < in->nuses; k++) {
        if (rv_op_is_late(&u[k]) != late) continue;
        ck_site s = {b, ii, "use", (int32_t)k, &u[k], 65536u + k};
        bool ok = read_use(ck, r, &s, &u[k]);
        if (copy_ok && k == 0 && in->op == RAVEL_OP_COPY && in->ndefs == 1 && ok) {
            *copy_ok = true;
            uint32_t one;
            const uint32_t *m;
            uint32_t n = members(r, get_loc(r, ck_li(ck, u[k].loc)), &m, &one);
            r->srcset.len = 0;
            for (uint32_t i = 0; i < n; i++) rv_vec_push(r->srcset, m[i]);
        }
    }
}

/* ---- step 3: stackmap, clobbers, the safepoint effect ---- */

static uint32_t smap_li(const ravel_checker *ck, const rv_inst *in, uint32_t k)
{
    return ck_li(ck, ravel_slot(ck->f->u32.data[in->u.smap.first + k]));
}

static void check_stackmap(ravel_checker *ck, ck_ref *r, uint32_t b, uint32_t ii, const rv_inst *in)
{
    for (uint32_t k = 0; k < in->u.smap.n; k++) {
        uint32_t li = smap_li(ck, in, k);
        if (li == CK_NIL || val_holds_ref(ck, r, get_loc(r, li))) continue;
        ck_site s = {b, ii, "stackmap", (int32_t)k, NULL, 2 * 65536u + k};
        value_error(ck, r, &s, "stackmap-not-ref", li, CK_NIL);
    }
}

static void clobber(const ravel_checker *ck, ck_ref *r, const rv_inst *in)
{
    const uint32_t *regs;
    uint32_t n = rv_inst_clobbers(ck->f, in, &regs);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t li = ck_li(ck, regs[k]);
        if (li != CK_NIL && !ck_defines_loc(ck->f, in, regs[k]) && get_loc(r, li) != CK_V_UNKNOWN) set_loc(ck, r, li, CK_V_UNKNOWN);
    }
}

static bool keep_nonref(const ravel_checker *ck, uint32_t v, uint32_t arg) { (void)arg; return !is_ref(ck, v); }
static bool keep_ref(const ravel_checker *ck, uint32_t v, uint32_t arg) { (void)arg; return is_ref(ck, v); }

/* A new mark for lmark2/vmark2 (its own counter: the visit's stamp stays). */
static uint32_t next_mark(ck_ref *r)
{
    if (++r->stamp2 == 0) {
        memset(r->lmark2, 0, sizeof *r->lmark2 * r->loc_cap);
        memset(r->vmark2, 0, sizeof *r->vmark2 * r->vcap);
        r->stamp2 = 1;
    }
    return r->stamp2;
}

/* gc nonmoving: the vregs a listed slot holds are rooted (vmark2 == arg). */
static bool keep_rooted(const ravel_checker *ck, uint32_t v, uint32_t arg)
{
    return !is_ref(ck, v) || ck->ref->vmark2[v] == arg;
}

/* The safepoint effect. gc moving: every location not in the stackmap
 * loses its .ref vregs, and every listed slot its other vregs (the
 * collector rewrote its bits). gc nonmoving: a .ref vreg held by no listed
 * slot is removed everywhere. */
static void safepoint_effect(ravel_checker *ck, ck_ref *r, const rv_inst *in)
{
    uint32_t n = (in->flags & RV_IF_STACKMAP) ? in->u.smap.n : 0;
    uint32_t listed = next_mark(r);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t li = smap_li(ck, in, k);
        if (li != CK_NIL) r->lmark2[li] = listed;
    }
    live_holders(ck, r, ck->nvregs, &r->hl); /* the holders of .ref vregs, first (filtering pushes holders) */
    if (!ck->f->mach->gc_nonmoving) {
        for (uint32_t i = 0; i < r->hl.len; i++)
            if (r->lmark2[r->hl.data[i]] != listed) filter_loc(ck, r, r->hl.data[i], keep_nonref, 0);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t li = smap_li(ck, in, k);
            if (li != CK_NIL) filter_loc(ck, r, li, keep_ref, 0);
        }
        return;
    }
    for (uint32_t k = 0; k < n; k++) {
        uint32_t li = smap_li(ck, in, k), one;
        const uint32_t *m;
        uint32_t nm = li == CK_NIL ? 0 : members(r, get_loc(r, li), &m, &one);
        for (uint32_t i = 0; i < nm; i++) r->vmark2[m[i]] = listed;
    }
    for (uint32_t i = 0; i < r->hl.len; i++)
        if (r->lmark2[r->hl.data[i]] != listed) filter_loc(ck, r, r->hl.data[i], keep_rooted, listed);
}

/* ---- one instruction, one block ---- */

static void xfer(ravel_checker *ck, ck_ref *r, uint32_t b, uint32_t ii, const rv_inst *in)
{
    const ravel_func *f = ck->f;
    if (rv_is_edit(in)) { /* the destination takes the source's value */
        uint32_t dst = ck_li(ck, in->u.edit.dst), src = ck_li(ck, in->u.edit.src);
        if (dst != CK_NIL) set_loc(ck, r, dst, src == CK_NIL ? CK_V_UNKNOWN : get_loc(r, src));
        return;
    }
    const rv_operand *d = ck_defs(f, in);
    bool copy_ok = false;
    for (uint32_t k = 0; k < in->ndefs; k++) /* 1. early defs */
        if (!rv_op_is_late(&d[k])) write_def(ck, r, d[k].vreg, ck_li(ck, d[k].loc));
    uses_at(ck, r, b, ii, in, false, &copy_ok); /* 2. early uses (a copy's source set) */
    if (copy_ok && rv_op_is_early(&d[0])) {
        alias_def(ck, r, d[0].vreg, ck_uses(f, in)[0].vreg, ck_li(ck, d[0].loc));
        copy_ok = false;
    }
    if (!rv_is_term(in)) { /* 3. stackmap, clobbers, the safepoint effect */
        if (in->flags & RV_IF_STACKMAP) check_stackmap(ck, r, b, ii, in);
        clobber(ck, r, in);
        if (in->flags & RV_IF_SAFEPOINT) {
            safepoint_effect(ck, r, in);
            if (copy_ok) { /* the copy's source set loses its .ref vregs */
                uint32_t w = 0;
                for (uint32_t i = 0; i < r->srcset.len; i++)
                    if (!is_ref(ck, r->srcset.data[i])) r->srcset.data[w++] = r->srcset.data[i];
                r->srcset.len = w;
            }
        }
    }
    for (uint32_t k = 0; k < in->ndefs; k++) /* 4. late defs */
        if (rv_op_is_late(&d[k])) {
            if (copy_ok) alias_def(ck, r, d[k].vreg, ck_uses(f, in)[0].vreg, ck_li(ck, d[k].loc));
            else write_def(ck, r, d[k].vreg, ck_li(ck, d[k].loc));
        }
    uses_at(ck, r, b, ii, in, true, NULL); /* 5. late uses */
}

static void run_block(ravel_checker *ck, ck_ref *r, uint32_t b)
{
    const rv_block *bl = &ck->f->blocks.data[b];
    load_entry(ck, r, b);
    for (uint32_t i = 0; i < bl->ninsts; i++) xfer(ck, r, b, bl->first_inst + i, rv_inst_at(ck->f, bl->first_inst + i));
}

/* ---- edges and the meet ---- */

static int cmp_ent(const void *a, const void *b)
{
    uint32_t x = ((const ck_ent *)a)->li, y = ((const ck_ent *)b)->li;
    return (x > y) - (x < y);
}

/* The exit state of the block just run, sparse and sorted. */
static void exit_state(ck_ref *r)
{
    r->exitv.len = 0;
    for (uint32_t i = 0; i < r->touched.len; i++) {
        uint32_t li = r->touched.data[i];
        if (r->cur[li] != CK_V_UNKNOWN) rv_vec_push(r->exitv, ((ck_ent){li, r->cur[li]}));
    }
    if (r->exitv.len > 1) qsort(r->exitv.data, r->exitv.len, sizeof *r->exitv.data, cmp_ent);
}

/* The value carried along edge e: every parameter of its target removed,
 * then parameter p added wherever its argument was (all at once). */
static ck_val edge_val(const ravel_checker *ck, ck_ref *r, const rv_succ *e, ck_val val)
{
    const ravel_func *f = ck->f;
    const rv_block *t = &f->blocks.data[e->block];
    if (!t->nparams || val >= CK_V_UNKNOWN) return val;
    const uint32_t *params = ck_params(f, t), *args = ck_args(f, e);
    uint32_t one;
    const uint32_t *m;
    uint32_t n = members(r, val, &m, &one);
    bool touched = false; /* no member is a parameter or an argument: the value passes as it is */
    for (uint32_t i = 0; i < n && !touched; i++)
        for (uint32_t p = 0; p < t->nparams && !touched; p++) touched = params[p] == m[i] || args[p] == m[i];
    if (!touched) return val;
    r->m1.len = 0;
    for (uint32_t i = 0; i < n; i++) {
        bool param = false;
        for (uint32_t p = 0; p < t->nparams; p++) {
            param |= params[p] == m[i];
            if (args[p] == m[i]) rv_vec_push(r->m1, params[p]);
        }
        if (!param) rv_vec_push(r->m1, m[i]);
    }
    return intern(r, r->m1.data, r->m1.len);
}

/* Stores vec into the span *sp of pool (in place when it fits); true if
 * it differs from what was there (or nothing was: had false). */
static bool store(ck_ref *r, ck_entvec *pool, ck_span *sp, const ck_entvec *vec, bool had)
{
    if (had && sp->len == vec->len && (!vec->len || !memcmp(pool->data + sp->start, vec->data, vec->len * sizeof *vec->data)))
        return false;
    if (!had || vec->len > sp->cap) {
        if ((uint64_t)r->pool.len + r->xpool.len + vec->len > r->state_limit) { /* bounded: the check stops */
            r->states_over = true;
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

/* r->edgev := the state edge e carries from the stored exit of its source. */
static void edge_state(const ravel_checker *ck, ck_ref *r, uint32_t src, const rv_succ *e)
{
    const ck_span *x = &r->xit.data[src];
    r->edgev.len = 0;
    rv_vec_reserve(r->edgev, x->len);
    for (uint32_t i = 0; i < x->len; i++) {
        ck_ent en = r->xpool.data[x->start + i];
        r->edgev.data[r->edgev.len++] = (ck_ent){en.li, edge_val(ck, r, e, en.val)};
    }
}

/* r->meetv := r->meetv meet r->edgev, location-wise (a location absent on
 * either side is unknown, the meet's bottom). */
static void meet_edge(ck_ref *r)
{
    uint32_t i = 0, j = 0, w = 0;
    while (i < r->meetv.len && j < r->edgev.len) {
        ck_ent a = r->meetv.data[i], b = r->edgev.data[j];
        if (a.li < b.li) {
            i++;
        } else if (a.li > b.li) {
            j++;
        } else {
            ck_val v = meet(r, a.val, b.val);
            if (v != CK_V_UNKNOWN) r->meetv.data[w++] = (ck_ent){a.li, v}; /* w <= i: in place */
            i++, j++;
        }
    }
    r->meetv.len = w;
}

/* t's entry := the meet over its in-edges whose source has an exit state
 * (the others are unreached: the meet's identity); true if it changed. */
static bool recompute_entry(const ravel_checker *ck, ck_ref *r, uint32_t t)
{
    bool first = true;
    for (uint32_t p = r->in_start.data[t]; p < r->in_start.data[t + 1]; p++) {
        uint32_t q = r->in_src.data[p];
        if (!r->xdone.data[q]) continue;
        edge_state(ck, r, q, &ck->f->succs.data[r->in_edge.data[p]]);
        if (first) {
            r->meetv.len = 0;
            rv_vec_reserve(r->meetv, r->edgev.len);
            if (r->edgev.len) memcpy(r->meetv.data, r->edgev.data, r->edgev.len * sizeof *r->edgev.data);
            r->meetv.len = r->edgev.len;
            first = false;
        } else {
            meet_edge(r);
        }
    }
    bool had = r->reached.data[t];
    r->reached.data[t] = 1;
    return store(r, &r->pool, &r->ent.data[t], &r->meetv, had);
}

/* After a visit of b: its exit state stored; each successor whose entry
 * changed is queued. */
static void propagate(ravel_checker *ck, ck_ref *r, uint32_t b)
{
    const ravel_func *f = ck->f;
    exit_state(r);
    bool had = r->xdone.data[b];
    r->xdone.data[b] = 1;
    if (!store(r, &r->xpool, &r->xit.data[b], &r->exitv, had)) return;
    const rv_inst *t = rv_block_term(f, &f->blocks.data[b]);
    for (uint32_t k = 0; t && k < rv_inst_nsuccs(t); k++) {
        uint32_t to = rv_inst_succs(f, t)[k].block;
        if (recompute_entry(ck, r, to)) r->queued.data[to] = 1;
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
    r->reached.data[entry] = 1;
    r->ent.data[entry] = (ck_span){r->pool.len, 0, 0}; /* every location unknown */
    r->queued.data[entry] = 1;
    for (bool any = true; any;) {
        any = false;
        for (uint32_t i = 0; i < c->nrpo; i++) {
            uint32_t b = c->rpo[i];
            if (!r->queued.data[b]) continue;
            r->queued.data[b] = 0;
            any = true;
            if (++visits > cap) {
                *diverged = true;
                return false;
            }
            ck->nvisits++; /* (tests bound the work) */
            run_block(ck, r, b);
            if (r->stop_at_error && r->nerr && !r->sets.overflow) return false;
            propagate(ck, r, b);
            if (r->states_over) return false;
        }
    }
    return true;
}

/* ---- provenance: the fixpoint's edges ---- */

static bool ref_on_path(void *ctx, uint32_t b)
{
    ravel_checker *ck = ctx;
    return rv_cfg_dominates(&ck->cfg.g, b, ck->ref->err_block);
}

static uint32_t ref_nin(void *ctx, uint32_t b, uint32_t *from)
{
    ravel_checker *ck = ctx;
    ck_ref *r = ck->ref;
    uint32_t n = 0;
    for (uint32_t p = r->in_start.data[b]; p < r->in_start.data[b + 1]; p++)
        if (r->xdone.data[r->in_src.data[p]]) *from = r->in_src.data[p], n++;
    return n;
}

static void where(ck_buf *b, const ravel_func *f, uint32_t ii)
{
    if (f->insts.data[ii].line) ck_bprintf(b, "line %u", f->insts.data[ii].line);
    else ck_bprintf(b, "inst %u", ii);
}

/* What each reached in-edge of x carries in li (from its source's exit). */
static void ref_join(void *ctx, ck_buf *out, uint32_t x, uint32_t li)
{
    ravel_checker *ck = ctx;
    ck_ref *r = ck->ref;
    const ravel_func *f = ck->f;
    char lbuf[32];
    const char *lb = rv_loc_str(f->mach, ck_loc_of(ck, li), lbuf);
    ck_bprintf(out, "at the entry of %s, %s is the meet of its incoming edges:\n", rv_block_name(f, x), lb);
    for (uint32_t p = r->in_start.data[x]; p < r->in_start.data[x + 1]; p++) {
        uint32_t q = r->in_src.data[p];
        if (!r->xdone.data[q]) continue;
        const ck_span *xs = &r->xit.data[q];
        ck_val v = CK_V_UNKNOWN;
        for (uint32_t i = 0; i < xs->len; i++)
            if (r->xpool.data[xs->start + i].li == li) v = r->xpool.data[xs->start + i].val;
        v = edge_val(ck, r, &f->succs.data[r->in_edge.data[p]], v);
        ck_bprintf(out, "  from %s (", rv_block_name(f, q));
        where(out, f, (uint32_t)(rv_block_term(f, &f->blocks.data[q]) - f->insts.data));
        ck_bprintf(out, "): %s %s ", lb, v < CK_V_UNKNOWN ? "holds" : "is");
        ck_val_text_in(out, f, &r->sets, v);
        ck_bprintf(out, "\n");
    }
}

/* Does li hold v right before instruction ii of block b, at the fixpoint? */
static bool ref_held_before(void *ctx, uint32_t b, uint32_t ii, uint32_t li, uint32_t v)
{
    ravel_checker *ck = ctx;
    ck_ref *r = ck->ref;
    if (!r->reached.data[b]) return false;
    bool rec = r->record;
    r->record = false;
    load_entry(ck, r, b);
    for (uint32_t i = ck->f->blocks.data[b].first_inst; i < ii; i++) xfer(ck, r, b, i, rv_inst_at(ck->f, i));
    r->record = rec;
    return val_has(r, get_loc(r, li), v);
}

/* Provenance for the value errors recorded from index e0 on (the first
 * CK_MAX_PROVENANCE of the report): where the expected vreg is at the read,
 * then how the location got what it holds. */
static void add_provenance(ravel_checker *ck, ck_ref *r, uint32_t e0)
{
    const ck_prov_ops ops = {ck, ref_on_path, ref_nin, ref_join, ref_held_before};
    ravel_report *rep = ck->out.rep;
    for (uint32_t i = e0; i < rep->errs.len && i < CK_MAX_PROVENANCE; i++) {
        ck_err *e = &rep->errs.data[i];
        if (!e->value) continue;
        r->err_block = e->block_id;
        char *p = ck_provenance_text(ck, &ops, e->block_id, e->inst_id, e->li, e->expect, e->late,
                                     strcmp(e->pub.kind, "use-unknown") != 0);
        if (e->here) { /* the "is in" note first: it points at the missing reload or the wrong register */
            ck_buf b = {0};
            ck_bprintf(&b, "%s\n%s", e->here, p ? p : "");
            rv_free(p);
            p = ck_bdetach(&b);
            rv_free(e->here);
            e->here = NULL;
        }
        rep->errs.data[i].pub.provenance = p; /* (the report may not move: nothing is pushed here) */
    }
}

/* ---- entry points ---- */

bool ck_ref_check(ravel_checker *ck, bool verdict_only, bool *overflow, uint32_t *limit)
{
    ck_ref *r = ref_get(ck);
    ref_reset(ck, r);
    bool diverged = false;
    r->stop_at_error = verdict_only;
    bool done = fixpoint(ck, r, &diverged);
    r->stop_at_error = false;
    *overflow = r->sets.overflow;
    *limit = r->sets.limit;
    if (diverged) {
        ck->diverged = true;
        return false;
    }
    if (r->states_over) {
        ck->states_over = true;
        return false;
    }
    if (!done) { /* a certain value error: the verdict is known */
        if (ck->out.rep) ck->out.rep->status = RAVEL_EFAIL;
        return false;
    }
    bool ok = r->nerr == 0;
    if (verdict_only && ok) return true;
    /* the recording pass: every reached block once, at the fixpoint */
    r->record = true;
    r->nerr = 0;
    uint32_t e0 = ck->out.rep ? ck->out.rep->errs.len : 0;
    for (uint32_t i = 0; i < ck->cfg.g.nrpo; i++) run_block(ck, r, ck->cfg.g.rpo[i]);
    r->record = false;
    if (ck->out.rep) add_provenance(ck, r, e0);
    *overflow = r->sets.overflow;
    return r->nerr == 0;
}

/* Explain: the state before every instruction of blk, and at its exit. */
void ck_ref_explain(ravel_checker *ck, uint32_t blk)
{
    ck_ref *r = ck->ref;
    const rv_block *bl = &ck->f->blocks.data[blk];
    if (!r || !r->reached.data[blk]) return;
    bool rec = r->record;
    r->record = false;
    load_entry(ck, r, blk);
    ck->out.explain.len = ck->out.explain_base;
    for (uint32_t i = 0; i < bl->ninsts; i++) {
        uint32_t ii = bl->first_inst + i;
        ck_dump_state_of(ck, &r->sets, r->cur, blk, ii);
        xfer(ck, r, blk, ii, rv_inst_at(ck->f, ii));
    }
    ck_dump_state_of(ck, &r->sets, r->cur, blk, CK_NIL);
    r->record = rec;
}

/* Tests and generators: the locations holding vreg v before instruction
 * inst of f, at the fixpoint of the last check, which must have been the
 * reference's on f (RAVEL_CHECK_REFERENCE). Writes up to max of them;
 * returns how many hold it (0 also when inst is unreached). */
uint32_t ck_ref_holders(ravel_checker *ck, const ravel_func *f, uint32_t inst, uint32_t v, ravel_loc *out, uint32_t max)
{
    ck_ref *r = ck->ref;
    if (!r || !r->has_run || r->reached.len != f->layout.len || v >= f->vregs.len) return 0;
    uint32_t b = 0;
    while (b < f->layout.len && !(inst >= f->blocks.data[b].first_inst && inst < f->blocks.data[b].first_inst + f->blocks.data[b].ninsts)) b++;
    if (b == f->layout.len || !r->reached.data[b]) return 0;
    const ravel_func *f0 = ck->f;
    ck->f = f;
    bool rec = r->record;
    r->record = false;
    load_entry(ck, r, b);
    for (uint32_t ii = f->blocks.data[b].first_inst; ii < inst; ii++) xfer(ck, r, b, ii, rv_inst_at(f, ii));
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->touched.len; i++) {
        uint32_t li = r->touched.data[i];
        if (!val_has(r, r->cur[li], v)) continue;
        if (n < max) out[n] = ck_loc_of(ck, li);
        n++;
    }
    r->record = rec;
    ck->f = f0;
    return n;
}
