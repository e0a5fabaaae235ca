/* ck_state.c - the dense current state of the abstract interpreter inside
 * one visit of a block.
 *
 * Per location: lval[li], valid iff lstamp[li] == ck->visit (otherwise the
 * location is unknown). Loading a block's entry state is two stores per
 * entry; nothing is reset after a visit (the stamp moves on).
 * A def of v must remove v from every location holding it. Only the vregs
 * the block defines or copies from (its *tracked* vregs, marked at the
 * start of the visit) can ever be removed or aliased inside the block, so
 * only their holders are indexed: a singly linked holder chain per tracked
 * vreg, appended to whenever a location receives it. Chains may contain
 * stale nodes; every use re-checks membership. No operation scans every
 * location except the safepoint effect, which scans the locations the
 * visit has loaded or written.
 * Guarantees: O(entries + instructions + operands) per visit. */
#include "ck.h"

#include <stdlib.h>
#include <string.h>

static void grow_u32(uint32_t **p, uint32_t old, uint32_t n, uint32_t fill)
{
    *p = rv_xrealloc(*p, (size_t)n * sizeof **p);
    for (uint32_t i = old; i < n; i++) (*p)[i] = fill;
}

/* Makes the per-location and per-vreg arrays large enough for ck->f. Only
 * newly grown parts are initialised: per-call cost is O(1) when no growth. */
void ck_scratch_ensure(ravel_checker *ck)
{
    if (ck->nlocs > ck->loc_cap) {
        uint32_t n = ck->nlocs + ck->nlocs / 2 + 16, old = ck->loc_cap;
        grow_u32(&ck->lval, old, n, 0);
        grow_u32(&ck->lstamp, old, n, 0);
        grow_u32(&ck->lst1, old, n, 0);
        grow_u32(&ck->lst2, old, n, 0);
        grow_u32(&ck->lst3, old, n, 0);
        ck->loc_cap = n;
    }
    if (ck->nvregs > ck->vreg_cap) {
        uint32_t n = ck->nvregs + ck->nvregs / 2 + 16, old = ck->vreg_cap;
        grow_u32(&ck->vhead, old, n, CK_NIL);
        grow_u32(&ck->vtrack, old, n, 0);
        grow_u32(&ck->vst, old, n, 0);
        grow_u32(&ck->vst2, old, n, 0);
        grow_u32(&ck->vaux, old, n, 0);
        ck->vreg_cap = n;
    }
}

uint32_t ck_next_stamp(ravel_checker *ck)
{
    if (++ck->stamp == 0) { /* wrapped: clear every mark once */
        memset(ck->lstamp, 0, ck->loc_cap * sizeof *ck->lstamp);
        memset(ck->lst1, 0, ck->loc_cap * sizeof *ck->lst1);
        memset(ck->lst2, 0, ck->loc_cap * sizeof *ck->lst2);
        memset(ck->lst3, 0, ck->loc_cap * sizeof *ck->lst3);
        memset(ck->vtrack, 0, ck->vreg_cap * sizeof *ck->vtrack);
        memset(ck->vst, 0, ck->vreg_cap * sizeof *ck->vst);
        memset(ck->vst2, 0, ck->vreg_cap * sizeof *ck->vst2);
        ck->stamp = 1;
        ck->visit = 0;
    }
    return ck->stamp;
}

ravel_loc ck_loc_of(const ravel_checker *ck, uint32_t li)
{
    return li < ck->nregs ? li : ravel_slot(li - ck->nregs);
}

/* ---- values ---- */

bool ck_val_has(const ck_sets *s, ck_val val, uint32_t v)
{
    if (val == v) return true;
    if (!(val & CK_V_SETBIT) || val >= CK_V_UNKNOWN) return false;
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

/* ---- holder chains ---- */

static void push_holder(ravel_checker *ck, uint32_t li, uint32_t v)
{
    if (ck->vtrack[v] != ck->visit) return;
    ck_hnode h = {li, ck->vhead[v]};
    rv_vec_push(ck->hnodes, h);
    ck->vhead[v] = ck->hnodes.len - 1;
}

static void push_holders(ravel_checker *ck, uint32_t li, ck_val val)
{
    if (val >= CK_V_UNKNOWN) return;
    if (!(val & CK_V_SETBIT)) {
        push_holder(ck, li, val);
        return;
    }
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ck_val_members(&ck->sets, val, &m, &one);
    for (uint32_t i = 0; i < n; i++) push_holder(ck, li, m[i]);
}

/* ---- state operations ---- */

void ck_set(ravel_checker *ck, uint32_t li, ck_val val)
{
    if (ck->lstamp[li] != ck->visit) {
        ck->lstamp[li] = ck->visit;
        rv_vec_push(ck->active, li);
    }
    ck->lval[li] = val;
    push_holders(ck, li, val);
}

/* Removes v from every location (its stale copies die). v is tracked. */
void ck_kill_vreg(ravel_checker *ck, uint32_t v)
{
    if (ck->vtrack[v] != ck->visit) return;
    for (uint32_t h = ck->vhead[v]; h != CK_NIL; h = ck->hnodes.data[h].next) {
        uint32_t li = ck->hnodes.data[h].li;
        if (ck->lstamp[li] == ck->visit && ck_val_has(&ck->sets, ck->lval[li], v))
            ck->lval[li] = val_minus(ck, ck->lval[li], v);
    }
    ck->vhead[v] = CK_NIL;
}

void ck_write_def(ravel_checker *ck, uint32_t v, uint32_t li)
{
    ck_kill_vreg(ck, v);
    if (li != CK_NIL) ck_set(ck, li, v);
}

void ck_copy_loc(ravel_checker *ck, uint32_t dst, uint32_t src)
{
    if (dst != src) ck_set(ck, dst, ck_get(ck, src));
}

/* Every location holding u also holds d (d was just removed everywhere). */
void ck_alias(ravel_checker *ck, uint32_t d, uint32_t u)
{
    if (ck->vtrack[u] != ck->visit || d == u) return;
    uint32_t h = ck->vhead[u];
    while (h != CK_NIL) {
        uint32_t li = ck->hnodes.data[h].li;
        h = ck->hnodes.data[h].next;
        if (ck->lstamp[li] == ck->visit && ck_val_has(&ck->sets, ck->lval[li], u) && !ck_val_has(&ck->sets, ck->lval[li], d)) {
            ck->lval[li] = val_plus(ck, ck->lval[li], d);
            push_holder(ck, li, d);
        }
    }
}

/* Starts a visit of block b: marks the vregs it may kill or alias, then
 * loads the stored entry state. */
void ck_load(ravel_checker *ck, uint32_t b)
{
    const ravel_func *f = ck->f;
    ck->visit = ck_next_stamp(ck);
    ck->active.len = 0;
    ck->hnodes.len = 0;
    const rv_block *bl = &f->blocks.data[b];
    for (uint32_t i = 0; i < bl->ninsts; i++) {
        const rv_inst *in = rv_inst_at(f, bl->first_inst + i);
        if (rv_is_edit(in)) continue;
        const rv_operand *o = rv_inst_ops(f, in);
        uint32_t n = in->ndefs + (in->op == RAVEL_OP_COPY ? 1u : 0u);
        for (uint32_t k = 0; k < n && k < (uint32_t)in->ndefs + in->nuses; k++) {
            ck->vtrack[o[k].vreg] = ck->visit;
            ck->vhead[o[k].vreg] = CK_NIL;
        }
    }
    const ck_bstate *bs = &ck->bst.data[b];
    const ck_ent *e = ck->epool.data + bs->start;
    for (uint32_t i = 0; i < bs->len; i++) ck_set(ck, e[i].li, e[i].val);
}

/* Kept for symmetry with ck_load: a visit needs no cleanup. */
void ck_reset_state(ravel_checker *ck) { ck->visit = ck_next_stamp(ck); }

/* gc effects: removes the .ref members of li's value (all of them, or those
 * not marked rooted with vst == rooted). */
void ck_drop_refs(ravel_checker *ck, uint32_t li, uint32_t rooted)
{
    ck_val val = ck->lval[li];
    if (val >= CK_V_UNKNOWN) return;
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ck_val_members(&ck->sets, val, &m, &one), keep = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!ck->f->vregs.data[m[i]].ref || (rooted && ck->vst[m[i]] == rooted)) keep++;
    if (keep == n) return;
    ck->setbuf2.len = 0;
    rv_vec_reserve(ck->setbuf2, n);
    for (uint32_t i = 0; i < n; i++)
        if (!ck->f->vregs.data[m[i]].ref || (rooted && ck->vst[m[i]] == rooted)) ck->setbuf2.data[ck->setbuf2.len++] = m[i];
    ck->lval[li] = ck_set_intern(&ck->sets, ck->setbuf2.data, ck->setbuf2.len);
}
