/* ck_ref_xfer.c - the reference's transfer: docs/format.md section 6's
 * effect of one instruction on one dense working state, in its order
 * (early defs, early uses, stackmap check, clobbers and the safepoint
 * effect, late defs, late uses; edits copy values; `copy` aliases), and
 * the value an edge carries (branch arguments substituted at once). The
 * other transfer, value numbering's, answers to this one (ck_vn.c).
 * Values (ck_val, ck.h) are interned in the reference's own sets. A read
 * that fails is a value error, counted, and recorded with its "is in"
 * note during the recording pass (ck_ref.c).
 * The working state: cur[li] per location (unknown unless touched this
 * visit), and per vreg a list of the locations that received it (holder
 * lists; index nvregs: the holders of .ref vregs), so that a def or the
 * collector visits only the locations that may hold what it removes. A
 * visit of a block keeps the lists of the members its instructions ask
 * for only (query_of): the vregs they define, a copy's source, the
 * tokens, and the .ref pseudo-vreg if one is a safepoint. What an edge
 * makes of a value is kept per check in a memo (ref_edge_subst).
 * ck_ref_plain (tests) turns both shortcuts off.
 * Requires: the guard passed; ref_work_reset for ck->f (a new check).
 * Guarantees: with or without the shortcuts, the same states, sets (in
 * the same order) and stale notes (tests/checker/test_ref_holders.c). */
#include "ck_ref.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* ---- the part of the context owned here ---- */

/* The edge memo's entries (a power of two). */
enum { REF_MEMO = 1024 };

void ref_work_free(ref_work *w)
{
    rv_free(w->cur);
    rv_free(w->lmark);
    rv_free(w->lmark2);
    rv_free(w->lseen);
    rv_vec_free(w->touched);
    rv_free(w->vhead);
    rv_free(w->vmark);
    rv_free(w->vmark2);
    rv_free(w->q.mark);
    rv_free(w->q.isref);
    rv_free(w->memo.tab);
    rv_vec_free(w->hl);
    rv_vec_free(w->holds);
    rv_vec_free(w->m1);
    rv_vec_free(w->m2);
    rv_vec_free(w->srcset);
    rv_vec_free(w->stale);
    memset(w, 0, sizeof *w);
}

size_t ref_work_memory(const ref_work *w)
{
#define V(x) ((size_t)w->x.cap * sizeof *w->x.data)
    return V(touched) + V(holds) + V(m1) + V(m2) + V(srcset) + V(hl) + V(stale) + (size_t)w->loc_cap * 16 + (size_t)w->vcap * 17 +
           (w->memo.tab ? REF_MEMO * sizeof *w->memo.tab : 0);
#undef V
}

/* The dense state back to all unknown (only touched locations differ). */
static void ref_clear_touched(ck_ref *r)
{
    for (uint32_t i = 0; i < r->work.touched.len; i++) r->work.cur[r->work.touched.data[i]] = CK_V_UNKNOWN;
    r->work.touched.len = 0;
}

/* A new generation of the edge memo: every entry empty. */
static void memo_new_gen(ref_memo *mo, const ravel_func *f)
{
    mo->f = f;
    if (++mo->gen == 0) {
        if (mo->tab) memset(mo->tab, 0, REF_MEMO * sizeof *mo->tab);
        mo->gen = 1;
    }
}

/* The dense state and the holder lists, for ck->f. */
void ref_work_reset(const ravel_checker *ck, ck_ref *r)
{
    ref_clear_touched(r);
    memo_new_gen(&r->work.memo, ck->f);
    uint32_t nstate = ck_nstate(ck), nmemb = ck->ext.tok0 + ck->ext.ntok; /* (pseudo-locations; vregs, .ref, tokens) */
    if (nstate > r->work.loc_cap) {
        rv_free(r->work.cur);
        rv_free(r->work.lmark);
        rv_free(r->work.lmark2);
        rv_free(r->work.lseen);
        r->work.loc_cap = nstate;
        r->work.cur = rv_xmalloc(sizeof *r->work.cur * r->work.loc_cap);
        for (uint32_t li = 0; li < r->work.loc_cap; li++) r->work.cur[li] = CK_V_UNKNOWN;
        r->work.lmark = rv_xcalloc(r->work.loc_cap, sizeof *r->work.lmark);
        r->work.lmark2 = rv_xcalloc(r->work.loc_cap, sizeof *r->work.lmark2);
        r->work.lseen = rv_xcalloc(r->work.loc_cap, sizeof *r->work.lseen);
        r->work.stamp = r->work.stamp2 = r->work.stamp3 = 0;
        if (r->work.vmark) memset(r->work.vmark, 0, sizeof *r->work.vmark * r->work.vcap);
        if (r->work.vmark2) memset(r->work.vmark2, 0, sizeof *r->work.vmark2 * r->work.vcap);
    }
    if (nmemb > r->work.vcap) {
        rv_free(r->work.vhead);
        rv_free(r->work.vmark);
        rv_free(r->work.vmark2);
        rv_free(r->work.q.mark);
        rv_free(r->work.q.isref);
        r->work.vcap = nmemb;
        r->work.vhead = rv_xmalloc(sizeof *r->work.vhead * r->work.vcap);
        r->work.vmark = rv_xcalloc(r->work.vcap, sizeof *r->work.vmark);
        r->work.vmark2 = rv_xcalloc(r->work.vcap, sizeof *r->work.vmark2);
        r->work.q.mark = rv_xcalloc(r->work.vcap, sizeof *r->work.q.mark);
        r->work.q.isref = rv_xmalloc(sizeof *r->work.q.isref * r->work.vcap);
        r->work.stamp = r->work.stamp2 = r->work.q.stamp = 0;
        if (r->work.lmark) memset(r->work.lmark, 0, sizeof *r->work.lmark * r->work.loc_cap);
        if (r->work.lmark2) memset(r->work.lmark2, 0, sizeof *r->work.lmark2 * r->work.loc_cap);
    }
    for (uint32_t v = 0; v < nmemb; v++) r->work.q.isref[v] = v < ck->nvregs && ck->f->vregs.data[v].ref;
}

static uint32_t next_stamp(ck_ref *r)
{
    if (++r->work.stamp == 0) { /* wrapped: clear the marks */
        memset(r->work.lmark, 0, sizeof *r->work.lmark * r->work.loc_cap);
        memset(r->work.vmark, 0, sizeof *r->work.vmark * r->work.vcap);
        r->work.stamp = 1;
    }
    return r->work.stamp;
}

/* ---- values ---- */

static bool ref_is_ref(const ravel_checker *ck, uint32_t v) { return v < ck->nvregs && ck->f->vregs.data[v].ref; }

bool ref_val_has(const ck_ref *r, ck_val val, uint32_t v)
{
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ref_members(r, val, &m, &one);
    for (uint32_t i = 0; i < n; i++)
        if (m[i] == v) return true;
    return false;
}

static bool val_holds_ref(const ravel_checker *ck, const ck_ref *r, ck_val val)
{
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ref_members(r, val, &m, &one);
    for (uint32_t i = 0; i < n; i++)
        if (ref_is_ref(ck, m[i])) return true;
    return false;
}

/* The set of the n vregs in buf (any order, repeats allowed); none: empty. */
ck_val ref_intern(ck_ref *r, uint32_t *buf, uint32_t n)
{
    ck_sort_u32(buf, n);
    uint32_t w = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!w || buf[w - 1] != buf[i]) buf[w++] = buf[i];
    return ck_set_intern(&r->sets, buf, w);
}

/* ---- the dense working state ---- */

static void hold_push(ck_ref *r, uint32_t v, uint32_t li)
{
    if (r->work.vmark[v] != r->work.stamp) {
        r->work.vmark[v] = r->work.stamp;
        r->work.vhead[v] = CK_NIL;
    }
    rv_vec_push(r->work.holds, ((ck_hold){li, r->work.vhead[v]}));
    r->work.vhead[v] = r->work.holds.len - 1;
}

/* The head of v's list (which the visit must have asked for). */
static uint32_t hold_head(const ck_ref *r, uint32_t v)
{
    assert(r->work.q.all || r->work.q.mark[v] == r->work.q.stamp);
    return r->work.vmark[v] == r->work.stamp ? r->work.vhead[v] : CK_NIL;
}

static uint32_t next_seen(ck_ref *r)
{
    if (++r->work.stamp3 == 0) {
        memset(r->work.lseen, 0, sizeof *r->work.lseen * r->work.loc_cap);
        r->work.stamp3 = 1;
    }
    return r->work.stamp3;
}

/* The locations that hold v now (v == nvregs: that hold a .ref vreg),
 * each once, into *out; v's holder list becomes exactly them. A holder
 * list gains an entry per write of a value with v, and keeps it when the
 * location is overwritten: without this rewrite the list of .ref holders,
 * scanned at every safepoint, grows with the block (quadratic work). */
static void live_holders(ravel_checker *ck, ck_ref *r, uint32_t v, ck_u32vec *out)
{
    uint32_t seen = next_seen(r);
    out->len = 0;
    for (uint32_t h = hold_head(r, v); h != CK_NIL; h = r->work.holds.data[h].next) {
        uint32_t li = r->work.holds.data[h].li;
        ck->ref_scans++;
        if (r->work.lseen[li] == seen) continue;
        r->work.lseen[li] = seen;
        ck_val val = ref_loc(r, li);
        if (v == ck->nvregs ? val_holds_ref(ck, r, val) : ref_val_has(r, val, v)) rv_vec_push(*out, li);
    }
    if (r->work.vmark[v] == r->work.stamp) r->work.vhead[v] = CK_NIL;
    for (uint32_t i = out->len; i-- > 0;) hold_push(r, v, out->data[i]);
}

/* li's members' holder entries (every member the visit asks for, and the
 * .ref pseudo-vreg if it asks for it and one is .ref), pushed in one
 * reserved run (hold_push, inline; inline itself: it runs for every
 * location a visit loads or writes). */
static inline __attribute__((always_inline)) void hold_members(const ravel_checker *ck, ck_ref *r, uint32_t li, ck_val val)
{
    if (val >= CK_V_UNKNOWN) return;
    ref_work *w = &r->work;
    if (!(val & CK_V_SETBIT)) { /* (a singleton: its member is val) */
        if (w->q.all || w->q.mark[val] == w->q.stamp) hold_push(r, val, li);
        if (w->q.ref && w->q.isref[val]) hold_push(r, ck->nvregs, li);
        return;
    }
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ref_members(r, val, &m, &one);
    rv_vec_reserve(w->holds, n + 1);
    uint32_t stamp = w->stamp, len = w->holds.len, *vmark = w->vmark, *vhead = w->vhead, qstamp = w->q.stamp, *qmark = w->q.mark;
    const uint8_t *isref = w->q.isref;
    ck_hold *hd = w->holds.data; /* (locals: the stores below cannot alias the context) */
    bool ref = false, all = w->q.all;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = m[i];
        ref |= isref[v];
        if (!all && qmark[v] != qstamp) continue; /* (not asked for) */
        uint32_t head = vmark[v] == stamp ? vhead[v] : CK_NIL;
        vmark[v] = stamp;
        hd[len] = (ck_hold){li, head};
        vhead[v] = len++;
    }
    w->holds.len = len;
    if (ref && w->q.ref) hold_push(r, ck->nvregs, li);
}

/* cur[li] := val; every member (and the .ref pseudo-vreg) lists li. (A
 * pseudo-location holding no vreg is absent: unknown.) */
static void set_loc(const ravel_checker *ck, ck_ref *r, uint32_t li, ck_val val)
{
    ref_work *w = &r->work;
    if (val >= CK_V_EMPTY && li >= ck->nlocs) val = CK_V_UNKNOWN;
    if (w->lmark[li] != w->stamp) {
        w->lmark[li] = w->stamp;
        rv_vec_push(w->touched, li);
    }
    w->cur[li] = val;
    hold_members(ck, r, li, val);
}

/* The members a visit of block b asks for the holders of (kill, and
 * live_holders' callers): the vregs its instructions define, each copy's
 * source, the .ref pseudo-vreg if one is a safepoint, and every token
 * (the constant a copy's source is may be any). */
static void query_of(const ravel_checker *ck, ck_ref *r, uint32_t b)
{
    ref_query *q = &r->work.q;
    q->all = q->ref = q->force_all;
    if (q->all) return;
    if (++q->stamp == 0) {
        memset(q->mark, 0, sizeof *q->mark * r->work.vcap);
        q->stamp = 1;
    }
    const ravel_func *f = ck->f;
    const rv_block *bl = &f->blocks.data[b];
    for (uint32_t i = 0; i < bl->ninsts; i++) {
        const rv_inst *in = rv_inst_at(f, bl->first_inst + i);
        if (rv_is_edit(in)) continue;
        const rv_operand *d = rv_defs_of(f, in);
        for (uint32_t k = 0; k < in->ndefs; k++) q->mark[d[k].vreg] = q->stamp;
        if (in->op == RAVEL_OP_COPY && in->nuses) q->mark[rv_uses_of(f, in)[0].vreg] = q->stamp;
        if (in->flags & RV_IF_SAFEPOINT) q->mark[ck->nvregs] = q->stamp;
    }
    for (uint32_t k = 0; k < ck->ext.ntok; k++) q->mark[ck->ext.tok0 + k] = q->stamp;
    q->ref = q->mark[ck->nvregs] == q->stamp;
}

/* Starts a visit from the state ents[0..n) (sorted by location, so each
 * location once: set_loc's steps for a fresh visit, inline). */
static void load(const ravel_checker *ck, ck_ref *r, const ck_ent *ents, uint32_t n)
{
    ref_clear_touched(r);
    next_stamp(r);
    ref_work *w = &r->work;
    w->holds.len = 0;
    rv_vec_reserve(w->touched, n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t li = ents[i].li;
        ck_val val = ents[i].val >= CK_V_EMPTY && li >= ck->nlocs ? CK_V_UNKNOWN : ents[i].val;
        w->lmark[li] = w->stamp;
        w->touched.data[i] = li;
        w->cur[li] = val;
        hold_members(ck, r, li, val);
    }
    w->touched.len = n;
}

void ref_load(const ravel_checker *ck, ck_ref *r, const ck_ent *ents, uint32_t n)
{
    r->work.q.all = r->work.q.ref = true;
    load(ck, r, ents, n);
}

void ref_load_block(const ravel_checker *ck, ck_ref *r, uint32_t b, const ck_ent *ents, uint32_t n)
{
    query_of(ck, r, b);
    load(ck, r, ents, n);
}

/* The members of li's value that keep(ck, v, arg) accepts stay. */
static void filter_loc(const ravel_checker *ck, ck_ref *r, uint32_t li, bool (*keep)(const ravel_checker *, uint32_t, uint32_t),
                       uint32_t arg)
{
    ck_val val = ref_loc(r, li);
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ref_members(r, val, &m, &one);
    if (!n) return;
    r->work.m1.len = 0;
    rv_vec_reserve(r->work.m1, n);
    for (uint32_t i = 0; i < n; i++)
        if (keep(ck, m[i], arg)) r->work.m1.data[r->work.m1.len++] = m[i];
    if (r->work.m1.len != n) set_loc(ck, r, li, ref_intern(r, r->work.m1.data, r->work.m1.len));
}

static bool keep_not(const ravel_checker *ck, uint32_t v, uint32_t arg) { (void)ck; return v != arg; }

/* A def of v: v is removed from every location that holds it. */
static void kill(ravel_checker *ck, ck_ref *r, uint32_t v)
{
    for (uint32_t h = hold_head(r, v); h != CK_NIL; h = r->work.holds.data[h].next, ck->ref_scans++) {
        uint32_t li = r->work.holds.data[h].li;
        if (r->work.log_stale && ref_val_has(r, ref_loc(r, li), v)) rv_vec_push(r->work.stale, ((ck_ent){li, v})); /* (ck_ref_step) */
        filter_loc(ck, r, li, keep_not, v);
    }
    if (r->work.vmark[v] == r->work.stamp) r->work.vhead[v] = CK_NIL;
}

/* ---- section 14: overlap, U, constants and tokens ---- */

/* The registers overlapping li hold nothing (a write to li). */
static void empty_overlaps(const ravel_checker *ck, ck_ref *r, uint32_t li)
{
    const uint32_t *o;
    uint32_t n = ck_overlaps(ck, li, &o);
    for (uint32_t i = 0; i < n; i++)
        if (ref_loc(r, o[i]) != CK_V_EMPTY) set_loc(ck, r, o[i], CK_V_EMPTY);
}

/* Location li gains member m. */
static void add_member(const ravel_checker *ck, ck_ref *r, uint32_t li, uint32_t m)
{
    ck_val val = ref_loc(r, li);
    uint32_t one;
    const uint32_t *mm;
    uint32_t n = val < CK_V_UNKNOWN ? ref_members(r, val, &mm, &one) : 0;
    r->work.m1.len = 0;
    rv_vec_reserve(r->work.m1, n + 1);
    for (uint32_t k = 0; k < n; k++) r->work.m1.data[r->work.m1.len++] = mm[k];
    r->work.m1.data[r->work.m1.len++] = m;
    set_loc(ck, r, li, ref_intern(r, r->work.m1.data, r->work.m1.len));
}

/* v is in U (undefined on every path). */
static bool in_undef(const ravel_checker *ck, const ck_ref *r, uint32_t v)
{
    return ck->ext.undef && ref_val_has(r, ref_loc(r, ck->ext.uli), v);
}

/* The token of the constant v is (C(v) = K), CK_NIL if none. */
static uint32_t const_of(const ravel_checker *ck, const ck_ref *r, uint32_t v)
{
    for (uint32_t k = 0; k < ck->ext.ntok; k++)
        if (ref_val_has(r, ref_loc(r, ck->ext.uli + 1 + k), v)) return ck->ext.tok0 + k;
    return CK_NIL;
}

/* v becomes the constant of token tok: it is in C_k, and every location
 * holding the token holds v. */
static void become_const(ravel_checker *ck, ck_ref *r, uint32_t v, uint32_t tok)
{
    add_member(ck, r, ck->ext.uli + 1 + (tok - ck->ext.tok0), v);
    live_holders(ck, r, tok, &r->work.m2);
    for (uint32_t i = 0; i < r->work.m2.len; i++)
        if (!ref_val_has(r, ref_loc(r, r->work.m2.data[i]), v)) add_member(ck, r, r->work.m2.data[i], v);
}

static void write_def(ravel_checker *ck, ck_ref *r, uint32_t v, uint32_t li)
{
    kill(ck, r, v);
    if (li == CK_NIL) return;
    set_loc(ck, r, li, v);
    empty_overlaps(ck, r, li);
}

/* A def of an op (not a copy that moves its source): written, then an
 * undef's is in U, a keyed const's is that constant. */
static void op_def(ravel_checker *ck, ck_ref *r, const rv_inst *in, uint32_t v, uint32_t li)
{
    write_def(ck, r, v, li);
    if (in->op == RAVEL_OP_UNDEF) add_member(ck, r, ck->ext.uli, v);
    uint32_t tok = ck_const_token(ck, in);
    if (tok != CK_NIL) become_const(ck, r, v, tok);
}

/* copy d <- u whose read succeeded (its source set in r->work.srcset): d is
 * removed everywhere, every location holding u also holds d, and d's
 * location := the source set plus d. */
static void alias_def(ravel_checker *ck, ck_ref *r, uint32_t d, uint32_t u, uint32_t ld)
{
    kill(ck, r, d);
    if (d != u) {
        live_holders(ck, r, u, &r->work.m2); /* the holders of u, first (adding d pushes holders) */
        for (uint32_t i = 0; i < r->work.m2.len; i++) {
            uint32_t li = r->work.m2.data[i];
            ck_val val = ref_loc(r, li);
            if (!ref_val_has(r, val, u) || ref_val_has(r, val, d)) continue;
            uint32_t one;
            const uint32_t *m;
            uint32_t n = ref_members(r, val, &m, &one);
            r->work.m1.len = 0;
            rv_vec_reserve(r->work.m1, n + 1);
            for (uint32_t k = 0; k < n; k++) r->work.m1.data[r->work.m1.len++] = m[k];
            r->work.m1.data[r->work.m1.len++] = d;
            set_loc(ck, r, li, ref_intern(r, r->work.m1.data, r->work.m1.len));
        }
    }
    if (ld == CK_NIL) return;
    r->work.m1.len = 0;
    rv_vec_reserve(r->work.m1, r->work.srcset.len + 1);
    for (uint32_t i = 0; i < r->work.srcset.len; i++) r->work.m1.data[r->work.m1.len++] = r->work.srcset.data[i];
    r->work.m1.data[r->work.m1.len++] = d;
    set_loc(ck, r, ld, ref_intern(r, r->work.m1.data, r->work.m1.len));
}

/* ---- reads ---- */

/* "vK is in L here" (or "in L1, L2 and L3"): the other locations that hold
 * vreg v at the read, in location order; NULL if none. Only on errors. */
static char *here_note(const ravel_checker *ck, ck_ref *r, uint32_t v)
{
    uint32_t n = 0, shown = 0;
    for (uint32_t li = 0; li < ck->nlocs; li++) n += ref_val_has(r, ref_loc(r, li), v);
    if (!n) return NULL;
    ck_buf b = {0};
    char vb[32], lb[32];
    ck_bprintf(&b, "%s is in ", ck_vname(ck->f, v, vb));
    for (uint32_t li = 0; li < ck->nlocs && shown < 8; li++) {
        if (!ref_val_has(r, ref_loc(r, li), v)) continue;
        if (shown) ck_bprintf(&b, shown + 1 == n ? " and " : ", ");
        ck_bprintf(&b, "%s", rv_loc_str(ck->f->mach, rv_loc_at(ck->nregs, li), lb));
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
    ck_err *e = ck_err_value_rec(ck, s, kind, li, expect, &r->sets, ref_loc(r, li));
    if (expect != CK_NIL && ck->out.rep->errs.len <= CK_MAX_PROVENANCE) e->here = here_note(ck, r, expect);
}

/* Use k (o) of instruction ii of block b is read: true if its location
 * holds its vreg (or the vreg is in U), else a value error. */
static bool read_use(ravel_checker *ck, ck_ref *r, uint32_t b, uint32_t ii, uint32_t k, const rv_operand *o)
{
    uint32_t li = rv_loc_index(ck->nregs, ck->nslots, o->loc);
    if (li == CK_NIL) return false; /* a structural error: the rules report it */
    ck_val val = ref_loc(r, li);
    if (val == o->vreg || ref_val_has(r, val, o->vreg) || in_undef(ck, r, o->vreg)) return true; /* (a singleton first) */
    const char *kind = val == CK_V_UNKNOWN ? "use-unknown"
                     : val == CK_V_CONFLICT ? "use-conflicted"
                     : val == CK_V_EMPTY ? "use-empty" : "use-wrong-vreg";
    ck_site s = {b, ii, "use", (int32_t)k, o, 65536u + k};
    value_error(ck, r, &s, kind, li, o->vreg);
    return false;
}

/* How a copy's def is written (docs/format.md sections 6 and 14), decided
 * at its read: a plain def (the read failed), a full copy (its source
 * set, srcset), in place (the def alone, nothing else changes), or of a
 * vreg in U (the def alone, in U). */
enum { CM_PLAIN, CM_FULL, CM_IN_PLACE, CM_UNDEF };

static void uses_at(ravel_checker *ck, ck_ref *r, uint32_t b, uint32_t ii, const rv_inst *in, bool late, bool *copy_ok)
{
    const rv_operand *u = rv_uses_of(ck->f, in);
    for (uint32_t k = 0; k < in->nuses; k++) {
        if (rv_op_is_late(&u[k]) != late) continue;
        bool ok = read_use(ck, r, b, ii, k, &u[k]);
        if (copy_ok && k == 0 && in->op == RAVEL_OP_COPY && in->ndefs == 1 && ok) {
            *copy_ok = true;
            r->work.cmode = in_undef(ck, r, u[k].vreg) ? CM_UNDEF : ck_copy_in_place(ck, in) ? CM_IN_PLACE : CM_FULL;
            r->work.ctok = r->work.cmode == CM_FULL ? const_of(ck, r, u[k].vreg) : CK_NIL;
            uint32_t one;
            const uint32_t *m;
            uint32_t n = ref_members(r, ref_loc(r, rv_loc_index(ck->nregs, ck->nslots, u[k].loc)), &m, &one);
            r->work.srcset.len = 0;
            for (uint32_t i = 0; i < n; i++) rv_vec_push(r->work.srcset, m[i]);
        }
    }
}

/* The def of a copy whose read succeeded (r->work.cmode). */
static void copy_def(ravel_checker *ck, ck_ref *r, uint32_t d, uint32_t u, uint32_t ld)
{
    switch (r->work.cmode) {
    case CM_UNDEF:
        write_def(ck, r, d, ld);
        add_member(ck, r, ck->ext.uli, d);
        return;
    case CM_IN_PLACE: /* no bit moves: the def alone in its register, its container and the others kept */
        kill(ck, r, d);
        if (ld != CK_NIL) set_loc(ck, r, ld, d);
        return;
    default:
        alias_def(ck, r, d, u, ld);
        if (ld != CK_NIL) empty_overlaps(ck, r, ld);
        if (r->work.ctok != CK_NIL) become_const(ck, r, d, r->work.ctok);
    }
}

/* ---- step 3: stackmap, clobbers, the safepoint effect ---- */

/* val holds a .ref vreg that is not in U (a root). */
static bool val_holds_root(const ravel_checker *ck, const ck_ref *r, ck_val val)
{
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ref_members(r, val, &m, &one);
    for (uint32_t i = 0; i < n; i++)
        if (ref_is_ref(ck, m[i]) && !in_undef(ck, r, m[i])) return true;
    return false;
}

static uint32_t smap_li(const ravel_checker *ck, const rv_inst *in, uint32_t k)
{
    return rv_loc_index(ck->nregs, ck->nslots, ravel_slot(ck->f->u32.data[in->u.smap.first + k]));
}

static void check_stackmap(ravel_checker *ck, ck_ref *r, uint32_t b, uint32_t ii, const rv_inst *in)
{
    for (uint32_t k = 0; k < in->u.smap.n; k++) {
        uint32_t li = smap_li(ck, in, k);
        if (li == CK_NIL || val_holds_root(ck, r, ref_loc(r, li))) continue;
        ck_site s = {b, ii, "stackmap", (int32_t)k, NULL, 2 * 65536u + k};
        value_error(ck, r, &s, "stackmap-not-ref", li, CK_NIL);
    }
}

/* Register reg becomes unknown unless the instruction writes it (spare). */
static void clobber_reg(const ravel_checker *ck, ck_ref *r, const rv_inst *in, uint32_t reg, ravel_loc spare)
{
    uint32_t li = rv_loc_index(ck->nregs, ck->nslots, reg);
    if (li == CK_NIL || reg == spare || ref_loc(r, li) == CK_V_UNKNOWN) return;
    if (spare == RAVEL_LOC_NONE && rv_inst_defines_loc(ck->f, in, reg)) return;
    set_loc(ck, r, li, CK_V_UNKNOWN);
}

/* The clobbers of in: each register and those overlapping it become
 * unknown, except those the instruction defines (a remat: its
 * destination, spare). */
static void clobber(const ravel_checker *ck, ck_ref *r, const rv_inst *in, ravel_loc spare)
{
    const uint32_t *regs;
    uint32_t n = rv_inst_clobbers(ck->f, in, &regs);
    for (uint32_t k = 0; k < n; k++) {
        clobber_reg(ck, r, in, regs[k], spare);
        const uint32_t *o;
        uint32_t no = regs[k] < ck->nregs ? ck_overlaps(ck, regs[k], &o) : 0;
        for (uint32_t i = 0; i < no; i++) clobber_reg(ck, r, in, o[i], spare);
    }
}

/* A new mark for lmark2/vmark2 (its own counter: the visit's stamp stays). */
static uint32_t next_mark(ck_ref *r)
{
    if (++r->work.stamp2 == 0) {
        memset(r->work.lmark2, 0, sizeof *r->work.lmark2 * r->work.loc_cap);
        memset(r->work.vmark2, 0, sizeof *r->work.vmark2 * r->work.vcap);
        r->work.stamp2 = 1;
    }
    return r->work.stamp2;
}

/* The collector's rule (ck_sem.h: ck_gc_keeps) for vreg v in a location
 * the stackmap lists or not; v is rooted if vmark2[v] == mark. */
static bool gc_keeps(const ravel_checker *ck, uint32_t v, uint32_t mark, bool listed)
{
    return ck_gc_keeps(!ck->f->mach->gc_nonmoving, ref_is_ref(ck, v), listed, ck->ref->work.vmark2[v] == mark);
}
static bool keep_unlisted(const ravel_checker *ck, uint32_t v, uint32_t mark) { return gc_keeps(ck, v, mark, false); }
static bool keep_listed(const ravel_checker *ck, uint32_t v, uint32_t mark) { return gc_keeps(ck, v, mark, true); }

/* The safepoint effect: the collector's rule on every location that may
 * lose a vreg by it - the listed slots, and the locations holding a .ref
 * vreg (a location holding none that is not listed keeps all). The vregs
 * the listed slots hold are rooted (vmark2). */
static void safepoint_effect(ravel_checker *ck, ck_ref *r, const rv_inst *in)
{
    uint32_t n = (in->flags & RV_IF_STACKMAP) ? in->u.smap.n : 0;
    uint32_t listed = next_mark(r);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t li = smap_li(ck, in, k), one;
        if (li == CK_NIL) continue;
        r->work.lmark2[li] = listed;
        const uint32_t *m;
        uint32_t nm = ref_members(r, ref_loc(r, li), &m, &one);
        for (uint32_t i = 0; i < nm; i++) r->work.vmark2[m[i]] = listed;
    }
    live_holders(ck, r, ck->nvregs, &r->work.hl); /* the holders of .ref vregs, first (filtering pushes holders) */
    for (uint32_t i = 0; i < r->work.hl.len; i++) /* (U, a pseudo-location, is not changed by a safepoint) */
        if (r->work.lmark2[r->work.hl.data[i]] != listed && r->work.hl.data[i] < ck->nlocs)
            filter_loc(ck, r, r->work.hl.data[i], keep_unlisted, listed);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t li = smap_li(ck, in, k);
        if (li != CK_NIL) filter_loc(ck, r, li, keep_listed, listed);
    }
}

/* ---- one instruction, one block ---- */

/* An edit: the destination takes the source's value (a remat: the
 * token of its K and every vreg that is that constant, after its
 * clobbers); the registers overlapping it hold nothing. */
static void edit_xfer(ravel_checker *ck, ck_ref *r, const rv_inst *in)
{
    uint32_t dst = rv_loc_index(ck->nregs, ck->nslots, in->u.edit.dst);
    if (in->op == RAVEL_OP_REMAT) {
        clobber(ck, r, in, in->u.edit.dst);
        if (dst == CK_NIL) return;
        uint32_t tok = ck_token_of(ck, rv_remat_k(ck->f, in)), one;
        const uint32_t *m;
        ck_val c = ref_loc(r, ck->ext.uli + 1 + (tok - ck->ext.tok0));
        uint32_t n = c < CK_V_UNKNOWN ? ref_members(r, c, &m, &one) : 0;
        r->work.m1.len = 0;
        rv_vec_reserve(r->work.m1, n + 1);
        for (uint32_t k = 0; k < n; k++) r->work.m1.data[r->work.m1.len++] = m[k];
        r->work.m1.data[r->work.m1.len++] = tok;
        set_loc(ck, r, dst, ref_intern(r, r->work.m1.data, r->work.m1.len));
    } else {
        uint32_t src = rv_loc_index(ck->nregs, ck->nslots, in->u.edit.src);
        if (dst == CK_NIL) return;
        set_loc(ck, r, dst, src == CK_NIL ? CK_V_UNKNOWN : ref_loc(r, src));
    }
    empty_overlaps(ck, r, dst);
}

/* One instruction: its phases in ck_sem.h's order (ck_sem_phase: early
 * defs, clobbers, the collector, defs), the uses read between them. The
 * phases are inline here, on sets, not through ck_sem_step (a
 * one-vreg-per-location state); tests/checker/test_sem_step.c checks that
 * this transfer and ck_sem_step agree, instruction by instruction. */
void ref_xfer(ravel_checker *ck, ck_ref *r, uint32_t b, uint32_t ii, const rv_inst *in)
{
    const ravel_func *f = ck->f;
    if (rv_is_edit(in)) {
        edit_xfer(ck, r, in);
        return;
    }
    const rv_operand *d = rv_defs_of(f, in);
    bool copy_ok = false;
    for (uint32_t k = 0; k < in->ndefs; k++) /* 1. early defs */
        if (!rv_op_is_late(&d[k])) op_def(ck, r, in, d[k].vreg, rv_loc_index(ck->nregs, ck->nslots, d[k].loc));
    uses_at(ck, r, b, ii, in, false, &copy_ok); /* 2. early uses (a copy's source set) */
    if (copy_ok && rv_op_is_early(&d[0])) {
        copy_def(ck, r, d[0].vreg, rv_uses_of(f, in)[0].vreg, rv_loc_index(ck->nregs, ck->nslots, d[0].loc));
        copy_ok = false;
    }
    if (!rv_is_term(in)) { /* 3. stackmap, clobbers, the safepoint effect */
        if (in->flags & RV_IF_STACKMAP) check_stackmap(ck, r, b, ii, in);
        clobber(ck, r, in, RAVEL_LOC_NONE);
        if (in->flags & RV_IF_SAFEPOINT) {
            safepoint_effect(ck, r, in);
            if (copy_ok) { /* the copy's source set loses its .ref vregs */
                uint32_t w = 0;
                for (uint32_t i = 0; i < r->work.srcset.len; i++)
                    if (!ref_is_ref(ck, r->work.srcset.data[i])) r->work.srcset.data[w++] = r->work.srcset.data[i];
                r->work.srcset.len = w;
            }
        }
    }
    for (uint32_t k = 0; k < in->ndefs; k++) /* 4. late defs */
        if (rv_op_is_late(&d[k])) {
            if (copy_ok) copy_def(ck, r, d[k].vreg, rv_uses_of(f, in)[0].vreg, rv_loc_index(ck->nregs, ck->nslots, d[k].loc));
            else op_def(ck, r, in, d[k].vreg, rv_loc_index(ck->nregs, ck->nslots, d[k].loc));
        }
    uses_at(ck, r, b, ii, in, true, NULL); /* 5. late uses */
}

void ref_run_block(ravel_checker *ck, ck_ref *r, uint32_t b)
{
    const rv_block *bl = &ck->f->blocks.data[b];
    ref_load_entry(ck, r, b);
    for (uint32_t i = 0; i < bl->ninsts; i++) ref_xfer(ck, r, b, bl->first_inst + i, rv_inst_at(ck->f, bl->first_inst + i));
}

/* ---- edges ---- */

/* ref_edge_val's substitution, computed: every parameter of e's target
 * (t) removed, then parameter p added wherever its argument was (all at
 * once). */
static ck_val edge_subst(const ravel_checker *ck, ck_ref *r, const rv_succ *e, const rv_block *t, ck_val val)
{
    const uint32_t *params = rv_params_of(ck->f, t), *args = rv_args_of(ck->f, e);
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ref_members(r, val, &m, &one);
    bool touched = false; /* no member is a parameter or an argument: the value passes as it is */
    for (uint32_t i = 0; i < n && !touched; i++)
        for (uint32_t p = 0; p < t->nparams && !touched; p++) touched = params[p] == m[i] || args[p] == m[i];
    if (!touched) return val;
    r->work.m1.len = 0;
    for (uint32_t i = 0; i < n; i++) {
        bool param = false;
        for (uint32_t p = 0; p < t->nparams; p++) {
            param |= params[p] == m[i];
            if (args[p] == m[i]) rv_vec_push(r->work.m1, params[p]);
        }
        if (!param) rv_vec_push(r->work.m1, m[i]);
    }
    return ref_intern(r, r->work.m1.data, r->work.m1.len);
}

/* ref_edge_val's substitution (ck_ref.h: its target has parameters, val
 * has members): edge_subst, or its answer for (e, val) in this check's
 * memo (a pure function of them: values are interned once per check). */
ck_val ref_edge_subst(const ravel_checker *ck, ck_ref *r, const rv_succ *e, ck_val val)
{
    const rv_block *t = &ck->f->blocks.data[e->block];
    if (!t->nparams || val >= CK_V_UNKNOWN) return val;
    ref_memo *mo = &r->work.memo;
    if (mo->off) return edge_subst(ck, r, e, t, val);
    if (mo->f != ck->f) memo_new_gen(mo, ck->f);
    if (!mo->tab) mo->tab = rv_xcalloc(REF_MEMO, sizeof *mo->tab);
    uint32_t edge = (uint32_t)(e - ck->f->succs.data);
    ref_memo_ent *x = &mo->tab[(uint32_t)(((uint64_t)edge << 32 | val) * 0x9e3779b97f4a7c15ull >> 54) & (REF_MEMO - 1)];
    if (x->gen == mo->gen && x->edge == edge && x->val == val) return x->res;
    ck_val res = edge_subst(ck, r, e, t, val);
    if (!r->sets.overflow) *x = (ref_memo_ent){mo->gen, edge, val, res}; /* (past the limit a set may fail to be made: not kept) */
    return res;
}
