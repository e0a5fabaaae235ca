/* ck_state.c - the dense current state of the abstract interpreter inside
 * one block: per location a kind (unknown / known set / conflicted) and a
 * list of cells; each cell (location, vreg) is also linked into its vreg's
 * list. A def of v therefore visits only the locations that hold v.
 * Guarantees: ck_reset_state restores the between-calls invariants of ck.h
 * in O(cells + active locations). */
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
        ck->lkind = rv_xrealloc(ck->lkind, n);
        ck->lact = rv_xrealloc(ck->lact, n);
        memset(ck->lkind + old, 0, n - old);
        memset(ck->lact + old, 0, n - old);
        grow_u32(&ck->lhead, old, n, CK_NIL);
        grow_u32(&ck->lst1, old, n, 0);
        grow_u32(&ck->lst2, old, n, 0);
        grow_u32(&ck->lst3, old, n, 0);
        ck->loc_cap = n;
    }
    if (ck->nvregs > ck->vreg_cap) {
        uint32_t n = ck->nvregs + ck->nvregs / 2 + 16, old = ck->vreg_cap;
        grow_u32(&ck->vhead, old, n, CK_NIL);
        grow_u32(&ck->vst, old, n, 0);
        grow_u32(&ck->vst2, old, n, 0);
        grow_u32(&ck->vaux, old, n, 0);
        ck->vreg_cap = n;
    }
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

uint32_t ck_next_vstamp(ravel_checker *ck) { return ck_next_stamp(ck); }

uint32_t ck_li(const ravel_checker *ck, ravel_loc l)
{
    if (l == RAVEL_LOC_NONE) return CK_NIL;
    if (ravel_loc_is_slot(l)) {
        uint32_t s = ravel_loc_slot(l);
        return s < ck->nlocs - ck->nregs ? ck->nregs + s : CK_NIL;
    }
    return l < ck->nregs ? l : CK_NIL;
}

ravel_loc ck_loc_of(const ravel_checker *ck, uint32_t li)
{
    return li < ck->nregs ? li : ravel_slot(li - ck->nregs);
}

void ck_touch(ravel_checker *ck, uint32_t li)
{
    if (!ck->lact[li]) {
        ck->lact[li] = 1;
        rv_vec_push(ck->active, li);
    }
}

static uint32_t new_cell(ravel_checker *ck)
{
    if (ck->free_cell != CK_NIL) {
        uint32_t c = ck->free_cell;
        ck->free_cell = ck->cells.data[c].lnext;
        return c;
    }
    ck_cell z;
    memset(&z, 0, sizeof z);
    rv_vec_push(ck->cells, z);
    return ck->cells.len - 1;
}

void ck_add_cell(ravel_checker *ck, uint32_t li, uint32_t v)
{
    uint32_t c = new_cell(ck);
    ck_cell *x = &ck->cells.data[c];
    x->li = li;
    x->vreg = v;
    x->lprev = CK_NIL;
    x->lnext = ck->lhead[li];
    if (x->lnext != CK_NIL) ck->cells.data[x->lnext].lprev = c;
    ck->lhead[li] = c;
    x->vprev = CK_NIL;
    x->vnext = ck->vhead[v];
    if (x->vnext != CK_NIL) ck->cells.data[x->vnext].vprev = c;
    ck->vhead[v] = c;
}

/* Unlinks cell c from both lists and frees it. */
void ck_drop_cell(ravel_checker *ck, uint32_t c)
{
    ck_cell *x = &ck->cells.data[c];
    if (x->lprev != CK_NIL) ck->cells.data[x->lprev].lnext = x->lnext;
    else ck->lhead[x->li] = x->lnext;
    if (x->lnext != CK_NIL) ck->cells.data[x->lnext].lprev = x->lprev;
    if (x->vprev != CK_NIL) ck->cells.data[x->vprev].vnext = x->vnext;
    else ck->vhead[x->vreg] = x->vnext;
    if (x->vnext != CK_NIL) ck->cells.data[x->vnext].vprev = x->vprev;
    x->lnext = ck->free_cell;
    ck->free_cell = c;
}

void ck_clear_loc(ravel_checker *ck, uint32_t li)
{
    while (ck->lhead[li] != CK_NIL) ck_drop_cell(ck, ck->lhead[li]);
}

bool ck_loc_has(const ravel_checker *ck, uint32_t li, uint32_t v)
{
    if (ck->lkind[li] != CK_KNOWN) return false;
    for (uint32_t c = ck->lhead[li]; c != CK_NIL; c = ck->cells.data[c].lnext)
        if (ck->cells.data[c].vreg == v) return true;
    return false;
}

/* Removes v from every location (its stale copies die). */
void ck_kill_vreg(ravel_checker *ck, uint32_t v)
{
    while (ck->vhead[v] != CK_NIL) ck_drop_cell(ck, ck->vhead[v]);
}

void ck_write_def(ravel_checker *ck, uint32_t v, uint32_t li)
{
    ck_kill_vreg(ck, v);
    if (li == CK_NIL) return;
    ck_touch(ck, li);
    ck_clear_loc(ck, li);
    ck->lkind[li] = CK_KNOWN;
    ck_add_cell(ck, li, v);
}

void ck_set_unknown(ravel_checker *ck, uint32_t li)
{
    ck_clear_loc(ck, li);
    ck->lkind[li] = CK_UNKNOWN;
}

void ck_copy_loc(ravel_checker *ck, uint32_t dst, uint32_t src)
{
    if (dst == src) return;
    ck_touch(ck, dst);
    ck_clear_loc(ck, dst);
    ck->lkind[dst] = ck->lkind[src];
    if (ck->lkind[src] != CK_KNOWN) return;
    for (uint32_t c = ck->lhead[src]; c != CK_NIL; c = ck->cells.data[c].lnext) ck_add_cell(ck, dst, ck->cells.data[c].vreg);
}

/* Loads block b's stored entry state into the (empty) dense state. */
void ck_load(ravel_checker *ck, uint32_t b)
{
    const ck_bstate *bs = &ck->bst.data[b];
    for (uint32_t i = 0; i < bs->len; i++) {
        ck_ent e = ck->epool.data[bs->start + i];
        ck_touch(ck, e.li);
        if (e.val == CK_V_CONFLICT) {
            ck->lkind[e.li] = CK_CONFLICTED;
            continue;
        }
        ck->lkind[e.li] = CK_KNOWN;
        uint32_t one;
        const uint32_t *m;
        uint32_t n = ck_val_members(&ck->sets, e.val, &m, &one);
        for (uint32_t k = n; k-- > 0;) ck_add_cell(ck, e.li, m[k]);
    }
}

/* Empties the dense state: every active location back to unknown. */
void ck_reset_state(ravel_checker *ck)
{
    for (uint32_t i = 0; i < ck->cells.len; i++) ck->vhead[ck->cells.data[i].vreg] = CK_NIL;
    for (uint32_t i = 0; i < ck->active.len; i++) {
        uint32_t li = ck->active.data[i];
        ck->lhead[li] = CK_NIL;
        ck->lkind[li] = CK_UNKNOWN;
        ck->lact[li] = 0;
    }
    ck->active.len = 0;
    ck->cells.len = 0;
    ck->free_cell = CK_NIL;
}

uint32_t ck_gather(ravel_checker *ck, uint32_t li, uint32_t *buf)
{
    uint32_t n = 0;
    for (uint32_t c = ck->lhead[li]; c != CK_NIL; c = ck->cells.data[c].lnext) buf[n++] = ck->cells.data[c].vreg;
    ck_sort_u32(buf, n);
    return n;
}

/* The lattice value at li (interned); *unknown set when li is unknown. */
ck_val ck_read_val(ravel_checker *ck, uint32_t li, bool *unknown)
{
    *unknown = ck->lkind[li] == CK_UNKNOWN;
    if (*unknown) return CK_V_EMPTY;
    if (ck->lkind[li] == CK_CONFLICTED) return CK_V_CONFLICT;
    uint32_t c = ck->lhead[li];
    if (c == CK_NIL) return CK_V_EMPTY;
    if (ck->cells.data[c].lnext == CK_NIL) return ck->cells.data[c].vreg;
    uint32_t n = 0;
    for (; c != CK_NIL; c = ck->cells.data[c].lnext) n++;
    ck->setbuf.len = 0;
    rv_vec_reserve(ck->setbuf, n);
    n = ck_gather(ck, li, ck->setbuf.data);
    return ck_set_intern(&ck->sets, ck->setbuf.data, n);
}
