/* ck_state.c - the current state of the abstract interpreter, one for the
 * whole function, with an undo log.
 *
 * Per location: lval[li] (CK_V_UNKNOWN until written). Every change is
 * logged (location, old value), so the dominator-tree walk of ck_flow.c
 * returns to a dominator's exit state by rolling the log back, in time
 * proportional to what changed; no block state is ever copied whole.
 * A def of v must remove v from every location holding it: a vreg that
 * may be held when it is defined again (or whose holders are looked up:
 * parameters, arguments, copy sources; see compute_need) has a chain of
 * its holders (singly linked nodes; rolling a node back restores the head
 * it replaced, and a reset pushes an unlinked tombstone), appended to
 * whenever a location receives it; chains may hold stale nodes, so every
 * walk re-checks membership. A pseudo-vreg (index nvregs) chains every
 * location that received a .ref vreg, for the safepoint effect. No operation
 * scans every location.
 * Requires: ck->f, nlocs, nvregs set. Guarantees: O(changes) per operation
 * plus the chain walks (amortised by the pushes). */
#include "ck.h"

#include <stdlib.h>
#include <string.h>

static void grow_u32(uint32_t **p, uint32_t n) { *p = rv_xrealloc(*p, (size_t)n * sizeof **p); }

static inline void set_need(ravel_checker *ck, uint32_t v) { ck->vneed[v >> 6] |= 1ull << (v & 63); }

/* vneed: the vregs whose holders must be chained. A chain serves to kill
 * stale copies at a def, to find where a copy's source or a branch
 * argument is, and to find a block parameter's copies when an edge
 * substitutes it. A vreg with a single definition (op or copy def) in a
 * block outside every loop, never a parameter, argument or copy source,
 * is held nowhere when its definition runs (a location only receives v
 * from a definition of v or from a copy of a location holding it) and its
 * definition runs at most once on a path: its chain would never be read,
 * and skipping it saves the holder node and a random access per write.
 * With an irreducible cycle in the function every vreg is chained. The
 * allocated function's guard notes these facts in its own pass (gnf_ok);
 * the scan below is the fallback, and the reference of the tests
 * (CK_OPT_NEED_SCAN), so that a fact the guard failed to note shows as a
 * verdict or report that differs.
 * Requires: ck_cfg_build (loops, retreating edges). */
static void compute_need(ravel_checker *ck)
{
    const ravel_func *f = ck->f;
    size_t nw = ((size_t)ck->nvregs + 64) / 64;
    uint64_t *need = ck->vneed, *seen = ck->vneed + ck->vwords; /* seen: has a definition */
    bool all = false;
    for (uint32_t b = 0; b < ck->nblocks && !all; b++) all = ck->retreat.data[b] != 0;
    memset(need, all ? 0xff : 0, nw * sizeof *need);
    set_need(ck, ck->nvregs); /* the .ref holders' pseudo-vreg */
    if (all) return;
    if (ck->gnf_ok && !(ck->opts & CK_OPT_NEED_SCAN)) { /* the guard noted what it takes (ck_rules.c: gn_def, gn_chain) */
        const ck_gn *gn = ck->gn;
        const uint32_t *loop = ck->loop_of.data, st = ck->gnstamp << 3;
        for (uint32_t v = 0; v < ck->nvregs; v++) {
            uint32_t fl = (gn[v].tag & ~7u) == st ? gn[v].tag & 7u : 0;
            if ((fl & (GN_MULTI | GN_CHAIN)) || ((fl & GN_DEF) && loop[gn[v].b] != CK_NIL)) set_need(ck, v);
        }
        return;
    }
    memset(seen, 0, nw * sizeof *seen);
    for (uint32_t b = 0; b < ck->nblocks; b++) {
        const rv_block *bl = &f->blocks.data[b];
        bool loop = ck->loop_of.data[b] != CK_NIL;
        for (uint32_t p = 0; p < bl->nparams; p++) set_need(ck, ck_params(f, bl)[p]);
        const rv_inst *in = rv_inst_at(f, bl->first_inst), *last = in + bl->ninsts - 1;
        for (; in <= last; in++) {
            if (rv_is_edit(in)) continue;
            const rv_operand *d = ck_defs(f, in), *u = ck_uses(f, in); /* NULL-safe */
            for (uint32_t k = 0; k < in->ndefs; k++) {
                uint32_t v = d[k].vreg, w = v >> 6;
                uint64_t bit = 1ull << (v & 63);
                if (loop || (seen[w] & bit)) need[w] |= bit;
                seen[w] |= bit;
            }
            if (in->op == RAVEL_OP_COPY)
                for (uint32_t k = 0; k < in->nuses; k++) set_need(ck, u[k].vreg);
        }
        for (uint32_t k = 0; k < rv_inst_nsuccs(last); k++) {
            const rv_succ *e = &rv_inst_succs(f, last)[k];
            for (uint32_t a = 0; a < e->nargs; a++) set_need(ck, ck_args(f, e)[a]);
        }
    }
}

/* Sizes the per-location and per-vreg arrays for ck->f and resets the
 * state: O(locations + vregs) of the function, nothing more. */
void ck_state_init(ravel_checker *ck)
{
    if (ck->nlocs > ck->loc_cap) {
        uint32_t n = ck->nlocs + ck->nlocs / 2 + 16;
        grow_u32(&ck->lval, n);
        grow_u32(&ck->lst1, n);
        grow_u32(&ck->lst2, n);
        grow_u32(&ck->lst3, n);
        grow_u32(&ck->lacc, n);
        memset(ck->lst1, 0, n * sizeof *ck->lst1);
        memset(ck->lst2, 0, n * sizeof *ck->lst2);
        memset(ck->lst3, 0, n * sizeof *ck->lst3);
        ck->loc_cap = n;
    }
    if (ck->nvregs + 1 > ck->vreg_cap) {
        uint32_t n = ck->nvregs + ck->nvregs / 2 + 16;
        ck->vh = rv_xrealloc(ck->vh, (size_t)n * sizeof *ck->vh);
        ck->vref = rv_xrealloc(ck->vref, 3 * (((size_t)n + 63) / 64) * sizeof *ck->vref); /* refs, vneed, seen */
        grow_u32(&ck->vst, n);
        grow_u32(&ck->vst2, n);
        grow_u32(&ck->vaux, n);
        memset(ck->vst, 0, n * sizeof *ck->vst);
        memset(ck->vst2, 0, n * sizeof *ck->vst2);
        ck->vreg_cap = n;
    }
    ck->vwords = ((size_t)ck->vreg_cap + 63) / 64;
    ck->vneed = ck->vref + ck->vwords;
    compute_need(ck);
    for (uint32_t i = 0; i < ck->nlocs; i++) ck->lval[i] = CK_V_UNKNOWN;
    for (uint32_t v = 0; v <= ck->nvregs; v++) ck->vh[v] = (ck_vh){CK_NIL, CK_NIL};
    memset(ck->vref, 0, ((size_t)ck->nvregs + 1 + 63) / 64 * sizeof *ck->vref);
    ck->has_refs = false;
    for (uint32_t v = 0; v < ck->nvregs; v++)
        if (ck->f->vregs.data[v].ref) {
            ck->vref[v >> 6] |= 1ull << (v & 63);
            ck->has_refs = true;
        }
    ck->log.len = 0;
    ck->hnodes.len = 0;
}

uint32_t ck_next_stamp(ravel_checker *ck)
{
    if (++ck->stamp == 0) { /* wrapped: clear every mark once */
        memset(ck->lst1, 0, ck->loc_cap * sizeof *ck->lst1);
        memset(ck->lst2, 0, ck->loc_cap * sizeof *ck->lst2);
        memset(ck->lst3, 0, ck->loc_cap * sizeof *ck->lst3);
        memset(ck->vst, 0, ck->vreg_cap * sizeof *ck->vst);
        memset(ck->vst2, 0, ck->vreg_cap * sizeof *ck->vst2);
        ck->stamp = 1;
    }
    return ck->stamp;
}

ravel_loc ck_loc_of(const ravel_checker *ck, uint32_t li)
{
    return li < ck->nregs ? li : ravel_slot(li - ck->nregs);
}

/* ---- values ---- */

bool ck_set_has(const ck_sets *s, ck_val val, uint32_t v)
{
    const ck_setrec *r = &s->recs.data[val & ~CK_V_SETBIT];
    const uint32_t *m = &s->pool.data[r->start];
    for (uint32_t i = 0; i < r->len; i++)
        if (m[i] == v) return true;
    return false;
}

/* val without v (val a known set containing v). */
static ck_val val_minus(ravel_checker *ck, ck_val val, uint32_t v)
{
    if (!(val & CK_V_SETBIT)) return CK_V_EMPTY;
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ck_val_members(&ck->sets, val, &m, &one);
    ck->setbuf.len = 0;
    rv_vec_reserve(ck->setbuf, n);
    for (uint32_t i = 0; i < n; i++)
        if (m[i] != v) ck->setbuf.data[ck->setbuf.len++] = m[i];
    return ck_set_intern(&ck->sets, ck->setbuf.data, ck->setbuf.len);
}

/* val plus v (val a known set or empty, not containing v). */
static ck_val val_plus(ravel_checker *ck, ck_val val, uint32_t v)
{
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ck_val_members(&ck->sets, val, &m, &one);
    ck->setbuf.len = 0;
    rv_vec_reserve(ck->setbuf, n + 1);
    uint32_t i = 0;
    for (; i < n && m[i] < v; i++) ck->setbuf.data[ck->setbuf.len++] = m[i];
    ck->setbuf.data[ck->setbuf.len++] = v;
    for (; i < n; i++) ck->setbuf.data[ck->setbuf.len++] = m[i];
    return ck_set_intern(&ck->sets, ck->setbuf.data, ck->setbuf.len);
}

/* ---- the log and the holder chains ---- */

/* Resets v's chain (a tombstone node remembers the old head). */
static inline void reset_chain(ravel_checker *ck, uint32_t v)
{
    rv_vec_push(ck->hnodes, ((ck_hnode){CK_NIL, ck->vh[v].head, v}));
    ck->vh[v] = (ck_vh){CK_NIL, CK_NIL};
}

static inline void push_holder(ravel_checker *ck, uint32_t li, uint32_t v)
{
    if (!ck_needs_chain(ck, v)) return;
    ck_vh *h = &ck->vh[v];
    if (h->last == li) return; /* already the newest holder */
    rv_vec_push(ck->hnodes, ((ck_hnode){li, h->head, v}));
    *h = (ck_vh){ck->hnodes.len - 1, li};
}

static void push_members(ravel_checker *ck, uint32_t li, ck_val val)
{
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ck_val_members(&ck->sets, val, &m, &one);
    bool ref = false;
    for (uint32_t i = 0; i < n; i++) {
        push_holder(ck, li, m[i]);
        ref |= ck->has_refs && ck_is_ref(ck, m[i]);
    }
    if (ref) push_holder(ck, li, ck->nvregs);
}

ck_mark ck_mark_now(const ravel_checker *ck) { return (ck_mark){ck->log.len, ck->hnodes.len}; }

/* Values and chain heads are independent: each is restored from its own
 * stack, newest first. */
void ck_rollback(ravel_checker *ck, ck_mark m)
{
    const ck_logent *log = ck->log.data;
    for (uint32_t i = ck->log.len; i > m.log; i--) ck->lval[log[i - 1].key] = log[i - 1].old;
    ck->log.len = m.log;
    const ck_hnode *nd = ck->hnodes.data;
    for (uint32_t i = ck->hnodes.len; i > m.nodes; i--) ck->vh[nd[i - 1].v] = (ck_vh){nd[i - 1].next, CK_NIL};
    ck->hnodes.len = m.nodes;
}

/* ---- state operations ---- */

void ck_log_grow(ravel_checker *ck) { rv_vec_reserve(ck->log, 1); }

/* The holders' side of ck_set_changed: a singleton is the vreg itself (no
 * set lookup); unknown/empty/conflicted have no holders. */
void ck_push_holders(ravel_checker *ck, uint32_t li, ck_val val)
{
    if (val < CK_V_SETBIT) {
        push_holder(ck, li, val);
        if (ck->has_refs && ck_is_ref(ck, val)) push_holder(ck, li, ck->nvregs);
    } else if (val < CK_V_UNKNOWN) {
        push_members(ck, li, val);
    }
}

/* Sets a value whose members already chain li (a subset of the old value). */
static void set_shrunk(ravel_checker *ck, uint32_t li, ck_val val)
{
    ck_logent e = {li, ck->lval[li]};
    rv_vec_push(ck->log, e);
    ck->lval[li] = val;
}

/* Removes v from every location (its stale copies die). */
void ck_kill_vreg(ravel_checker *ck, uint32_t v)
{
    if (!ck_needs_chain(ck, v) || ck->vh[v].head == CK_NIL) return;
    for (uint32_t h = ck->vh[v].head; h != CK_NIL; h = ck->hnodes.data[h].next) {
        uint32_t li = ck->hnodes.data[h].li;
        if (ck_val_has(&ck->sets, ck->lval[li], v)) set_shrunk(ck, li, val_minus(ck, ck->lval[li], v));
    }
    reset_chain(ck, v);
}

void ck_write_def(ravel_checker *ck, uint32_t v, uint32_t li)
{
    ck_kill_vreg(ck, v);
    if (li != CK_NIL) ck_set(ck, li, v);
}


/* Every location holding u also holds d (d was just removed everywhere).
 * pair is the set {u, d} when the caller has it (CK_NIL if not): a holder
 * of u alone (the usual case) then takes it without a set lookup. */
void ck_alias(ravel_checker *ck, uint32_t d, uint32_t u, ck_val pair)
{
    if (d == u) return;
    uint32_t h = ck->vh[u].head;
    while (h != CK_NIL) {
        uint32_t li = ck->hnodes.data[h].li;
        h = ck->hnodes.data[h].next;
        ck_val val = ck->lval[li];
        if (val == u && pair != CK_NIL) {
            set_shrunk(ck, li, pair);
        } else if (ck_val_has(&ck->sets, val, u) && !ck_val_has(&ck->sets, val, d)) {
            set_shrunk(ck, li, val_plus(ck, val, d));
        } else {
            continue;
        }
        push_holder(ck, li, d);
        /* a .ref alias of a non-reference: li now holds a reference, so the
         * safepoint effect must find it on the .ref holders' chain */
        if (ck->has_refs && ck_is_ref(ck, d)) push_holder(ck, li, ck->nvregs);
    }
}

/* gc moving, a listed slot: the collector rewrote its bits, so it keeps
 * only its .ref vregs (every member left is already chained to li). */
void ck_keep_refs(ravel_checker *ck, uint32_t li)
{
    ck_val val = ck->lval[li];
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ck_val_members(&ck->sets, val, &m, &one), keep = 0;
    for (uint32_t i = 0; i < n; i++) keep += ck_is_ref(ck, m[i]);
    if (keep == n) return;
    ck->setbuf2.len = 0;
    rv_vec_reserve(ck->setbuf2, n);
    for (uint32_t i = 0; i < n; i++)
        if (ck_is_ref(ck, m[i])) ck->setbuf2.data[ck->setbuf2.len++] = m[i];
    set_shrunk(ck, li, ck_set_intern(&ck->sets, ck->setbuf2.data, ck->setbuf2.len));
}

/* The .ref members of li's value, except those marked rooted (vst ==
 * rooted, when rooted != 0), are removed. */
static void drop_refs(ravel_checker *ck, uint32_t li, uint32_t rooted)
{
    ck_val val = ck->lval[li];
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ck_val_members(&ck->sets, val, &m, &one), keep = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!ck_is_ref(ck, m[i]) || (rooted && ck->vst[m[i]] == rooted)) keep++;
    if (keep == n) return;
    ck->setbuf2.len = 0;
    rv_vec_reserve(ck->setbuf2, n);
    for (uint32_t i = 0; i < n; i++)
        if (!ck_is_ref(ck, m[i]) || (rooted && ck->vst[m[i]] == rooted)) ck->setbuf2.data[ck->setbuf2.len++] = m[i];
    set_shrunk(ck, li, ck_set_intern(&ck->sets, ck->setbuf2.data, ck->setbuf2.len));
}

/* The safepoint effect. Locations listed (lst3 == listed) keep their refs;
 * gc moving: every other location loses its .ref vregs; gc nonmoving: refs
 * rooted by a listed slot (vst == rooted) survive everywhere. The ref chain
 * is rebuilt from the survivors, so each holder is walked once per
 * safepoint it survives. */
void ck_gc_effect(ravel_checker *ck, uint32_t listed, uint32_t rooted)
{
    uint32_t rc = ck->nvregs, st = ck_next_stamp(ck);
    ck->tmp_locs.len = 0;
    for (uint32_t h = ck->vh[rc].head; h != CK_NIL; h = ck->hnodes.data[h].next) {
        uint32_t li = ck->hnodes.data[h].li;
        ck_val val = ck->lval[li];
        if (ck->lst1[li] == st || !ck_holds_ref(ck, val)) continue;
        ck->lst1[li] = st;
        if (val < CK_V_SETBIT) { /* a single .ref vreg (the usual holder): kept or gone */
            if (ck->lst3[li] == listed || (rooted && ck->vst[val] == rooted)) rv_vec_push(ck->tmp_locs, li);
            else set_shrunk(ck, li, CK_V_EMPTY);
            continue;
        }
        if (ck->lst3[li] != listed) drop_refs(ck, li, rooted);
        if (ck_holds_ref(ck, ck->lval[li])) rv_vec_push(ck->tmp_locs, li);
    }
    reset_chain(ck, rc);
    for (uint32_t i = ck->tmp_locs.len; i-- > 0;) push_holder(ck, ck->tmp_locs.data[i], rc);
}
