/* ck_live.c - backward location liveness over the allocated code.
 * A location is read by an operand use, an edit source or a stackmap slot,
 * and written by a def, an edit destination or a clobber. A location that
 * is not live at a block entry is never read before being written on any
 * path, so the forward analysis may treat it as unknown without changing
 * any verdict: block states stay as small as the set of live values.
 * Requires: ck_cfg_build. Guarantees: live_in[b] (reachable b) is a sorted
 * list of location indexes in lpool. Sparse: no location x block matrix. */
#include "ck.h"

#include <stdlib.h>

typedef struct live_ctx {
    ravel_checker *ck;
    uint32_t stamp;
} live_ctx;

static void lw(live_ctx *c, uint32_t li)
{
    ravel_checker *ck = c->ck;
    if (li == CK_NIL) return;
    ck->lst1[li] = 0; /* no longer upward exposed */
    if (ck->lst2[li] != c->stamp) {
        ck->lst2[li] = c->stamp;
        rv_vec_push(ck->setbuf2, li);
    }
}

static void lr(live_ctx *c, uint32_t li)
{
    ravel_checker *ck = c->ck;
    if (li == CK_NIL) return;
    ck->lst1[li] = c->stamp;
    if (ck->lst3[li] != c->stamp) {
        ck->lst3[li] = c->stamp;
        rv_vec_push(ck->tmp_locs, li);
    }
}

/* Reads and writes of one instruction, walked backward (steps 5..1). */
static void inst_backward(live_ctx *c, const rv_inst *in)
{
    ravel_checker *ck = c->ck;
    const ravel_func *f = ck->f;
    if (rv_is_edit(in)) {
        lw(c, ck_li(ck, in->u.edit.dst));
        lr(c, ck_li(ck, in->u.edit.src));
        return;
    }
    const rv_operand *d = rv_inst_defs(f, in), *u = rv_inst_uses(f, in);
    for (uint32_t k = 0; k < in->nuses; k++)
        if (rv_op_is_late(&u[k])) lr(c, ck_li(ck, u[k].loc));
    for (uint32_t k = 0; k < in->ndefs; k++)
        if (rv_op_is_late(&d[k])) lw(c, ck_li(ck, d[k].loc));
    if (!rv_is_term(in)) {
        const uint32_t *regs;
        uint32_t n = rv_inst_clobbers(f, in, &regs);
        for (uint32_t k = 0; k < n; k++) lw(c, ck_li(ck, regs[k]));
        if (in->flags & RV_IF_STACKMAP)
            for (uint32_t k = 0; k < in->u.smap.n; k++) lr(c, ck_li(ck, ravel_slot(f->u32.data[in->u.smap.first + k])));
    }
    for (uint32_t k = 0; k < in->nuses; k++)
        if (rv_op_is_early(&u[k])) lr(c, ck_li(ck, u[k].loc));
    for (uint32_t k = 0; k < in->ndefs; k++)
        if (rv_op_is_early(&d[k])) lw(c, ck_li(ck, d[k].loc));
}

static ck_list push_list(ravel_checker *ck, const uint32_t *v, uint32_t n)
{
    ck_list l = {ck->lpool.len, n};
    rv_vec_reserve(ck->lpool, n);
    for (uint32_t i = 0; i < n; i++) ck->lpool.data[ck->lpool.len++] = v[i];
    return l;
}

/* gen (upward-exposed reads) and kill (writes) of block b. */
static void block_gen_kill(ravel_checker *ck, uint32_t b)
{
    live_ctx c = {ck, ck_next_stamp(ck)};
    const rv_block *bl = &ck->f->blocks.data[b];
    ck->tmp_locs.len = 0;
    ck->setbuf2.len = 0;
    for (uint32_t i = bl->ninsts; i-- > 0;) inst_backward(&c, rv_inst_at(ck->f, bl->first_inst + i));
    uint32_t w = 0;
    for (uint32_t i = 0; i < ck->tmp_locs.len; i++)
        if (ck->lst1[ck->tmp_locs.data[i]] == c.stamp) ck->tmp_locs.data[w++] = ck->tmp_locs.data[i];
    ck_sort_u32(ck->tmp_locs.data, w);
    ck->gen.data[b] = push_list(ck, ck->tmp_locs.data, w);
    ck->kill.data[b] = push_list(ck, ck->setbuf2.data, ck->setbuf2.len);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Recomputes live_in[b]; returns true if it grew. */
static bool block_live_in(ravel_checker *ck, uint32_t b)
{
    const ravel_func *f = ck->f;
    uint32_t st = ck_next_stamp(ck);
    ck->tmp_locs.len = 0;
    ck_list g = ck->gen.data[b], k = ck->kill.data[b];
    for (uint32_t i = 0; i < k.len; i++) ck->lst2[ck->lpool.data[k.start + i]] = st;
    for (uint32_t i = 0; i < g.len; i++) {
        uint32_t li = ck->lpool.data[g.start + i];
        ck->lst1[li] = st;
        rv_vec_push(ck->tmp_locs, li);
    }
    const rv_inst *t = rv_block_term(f, &f->blocks.data[b]);
    for (uint32_t s = 0; s < rv_inst_nsuccs(t); s++) {
        ck_list in = ck->live_in.data[rv_inst_succs(f, t)[s].block];
        for (uint32_t i = 0; i < in.len; i++) {
            uint32_t li = ck->lpool.data[in.start + i];
            if (ck->lst1[li] == st || ck->lst2[li] == st) continue;
            ck->lst1[li] = st;
            rv_vec_push(ck->tmp_locs, li);
        }
    }
    uint32_t n = ck->tmp_locs.len;
    if (n <= ck->live_in.data[b].len) return false; /* monotone: same length = same set */
    if (n < 32) ck_sort_u32(ck->tmp_locs.data, n);
    else qsort(ck->tmp_locs.data, n, sizeof(uint32_t), cmp_u32);
    ck->live_in.data[b] = push_list(ck, ck->tmp_locs.data, n);
    return true;
}

void ck_live(ravel_checker *ck)
{
    uint32_t n = ck->nblocks;
    ck->lpool.len = 0;
    rv_vec_reserve(ck->live_in, n);
    rv_vec_reserve(ck->gen, n);
    rv_vec_reserve(ck->kill, n);
    rv_vec_reserve(ck->dirty, n);
    ck->live_in.len = ck->gen.len = ck->kill.len = ck->dirty.len = n;
    for (uint32_t b = 0; b < n; b++) {
        ck->live_in.data[b] = (ck_list){0, 0};
        ck->gen.data[b] = ck->kill.data[b] = (ck_list){0, 0};
        ck->dirty.data[b] = 0;
    }
    for (uint32_t i = 0; i < ck->rpo.len; i++) {
        block_gen_kill(ck, ck->rpo.data[i]);
        ck->dirty.data[ck->rpo.data[i]] = 1;
    }
    bool any = true;
    while (any) {
        any = false;
        for (uint32_t i = ck->rpo.len; i-- > 0;) {
            uint32_t b = ck->rpo.data[i];
            if (!ck->dirty.data[b]) continue;
            ck->dirty.data[b] = 0;
            if (!block_live_in(ck, b)) continue;
            for (uint32_t p = ck->pred_start.data[b]; p < ck->pred_start.data[b + 1]; p++) {
                uint32_t q = ck->pred.data[p];
                if (ck_reachable(ck, q) && !ck->dirty.data[q]) {
                    ck->dirty.data[q] = 1;
                    any = true;
                }
            }
        }
    }
}
