/* out.c - the output builder: turns an allocation (a location per operand,
 * edits at anchors, stackmaps) of an unallocated function into the
 * allocated ravel_func, and places edge edits.
 *
 * Requires: f unallocated and finished (instructions in layout order).
 * Guarantees: rv_out_finish returns a copy of f with the original blocks,
 * parameters and instructions in order, each operand carrying the location
 * set for it, the edits inserted by anchor order (stable within an anchor)
 * and a stackmap on every safepoint (empty unless set). Linear time: edits
 * added in anchor order are taken as they are, others bucketed by anchor
 * with a counting sort. */
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

void rv_out_init(rv_out *o, const ravel_func *f)
{
    memset(o, 0, sizeof *o);
    o->f = f;
    o->loc = rv_xmalloc(sizeof(ravel_loc) * (f->ops.len ? f->ops.len : 1));
    memset(o->loc, 0xff, sizeof(ravel_loc) * f->ops.len); /* RAVEL_LOC_NONE */
}

void rv_out_free(rv_out *o)
{
    rv_free(o->loc);
    o->loc = NULL;
    rv_vec_free(o->edits);
    rv_vec_free(o->smap);
}

void rv_out_edit(rv_out *o, uint32_t anchor, ravel_opcode kind, ravel_loc dst, ravel_loc src)
{
    rv_out_edit_rec e = {anchor, {(uint8_t)kind, dst, src}};
    rv_vec_push(o->edits, e);
}

void rv_out_copy(rv_out *o, uint32_t anchor, ravel_loc dst, ravel_loc src)
{
    if (dst == src) return;
    rv_out_edit(o, anchor, rv_edit_kind(dst, src), dst, src);
}

void rv_out_edits(rv_out *o, uint32_t anchor, const rv_pmove *pm)
{
    rv_vec_reserve(o->edits, pm->out.len);
    for (uint32_t k = 0; k < pm->out.len; k++) {
        rv_out_edit_rec e = {anchor, pm->out.data[k]};
        o->edits.data[o->edits.len++] = e;
    }
}

void rv_out_stackmap(rv_out *o, uint32_t inst, const uint32_t *slots, uint32_t n)
{
    if (o->too_big || o->nsmap + n > RV_MAX_STACKMAP_ENTRIES) { /* refused: nothing more is kept */
        o->too_big = true;
        return;
    }
    o->nsmap += n;
    rv_vec_reserve(o->smap, n + 2);
    o->smap.data[o->smap.len++] = inst;
    o->smap.data[o->smap.len++] = n;
    for (uint32_t k = 0; k < n; k++) o->smap.data[o->smap.len++] = slots[k];
}

uint32_t rv_edge_anchor(const ravel_func *f, const rv_cfg *cfg, uint32_t b, uint32_t k, bool *at_pred_end)
{
    const rv_block *bl = &f->blocks.data[b];
    const rv_inst *t = rv_block_term(f, bl);
    uint32_t s = rv_inst_succs(f, t)[k].block;
    if (cfg->succ_start[b + 1] - cfg->succ_start[b] == 1) {
        if (at_pred_end) *at_pred_end = true;
        return rv_anchor_exit(bl->first_inst + bl->ninsts - 1);
    }
    if (at_pred_end) *at_pred_end = false;
    if (cfg->pred_start[s + 1] - cfg->pred_start[s] == 1) return rv_anchor_entry(f->blocks.data[s].first_inst);
    return RAVEL_NONE;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* 1 + the highest slot among top - 1 and l (slot numbers as in nslots). */
static uint32_t slot_top(uint32_t top, ravel_loc l)
{
    return ravel_loc_is_slot(l) && ravel_loc_slot(l) >= top ? ravel_loc_slot(l) + 1 : top;
}

/* Attaches the stackmaps recorded in o to g's instructions: insts[pos[i]]
 * is instruction i of f (RAVEL_NONE: not placed). Every safepoint already
 * carries an empty one. Returns slot_top over their slots. */
static uint32_t attach_stackmaps(rv_out *o, ravel_func *g, rv_inst *insts, const uint32_t *pos, uint32_t top)
{
    for (uint32_t p = 0; p < o->smap.len;) {
        uint32_t i = o->smap.data[p], n = o->smap.data[p + 1];
        const uint32_t *slots = &o->smap.data[p + 2];
        p += 2 + n;
        if (i >= o->f->insts.len) continue;
        uint32_t first = g->u32.len;
        rv_vec_reserve(g->u32, n + 1);
        uint32_t *dst = g->u32.data + first;
        if (n) memcpy(dst, slots, n * sizeof *dst);
        if (n > 24) qsort(dst, n, sizeof *dst, cmp_u32);
        else
            for (uint32_t k = 1; k < n; k++) { /* insertion sort: stackmaps are short */
                uint32_t x = dst[k], j = k;
                for (; j > 0 && dst[j - 1] > x; j--) dst[j] = dst[j - 1];
                dst[j] = x;
            }
        uint32_t w = 0;
        for (uint32_t k = 0; k < n; k++)
            if (!w || dst[w - 1] != dst[k]) dst[w++] = dst[k];
        g->u32.len += w;
        for (uint32_t k = 0; k < w; k++) top = slot_top(top, ravel_slot(dst[k]));
        if (pos[i] == RAVEL_NONE) continue;
        rv_inst *in = &insts[pos[i]];
        in->flags |= RV_IF_STACKMAP;
        in->u.smap.first = first;
        in->u.smap.n = w;
    }
    return top;
}

/* Edits sorted by anchor (stable), bucketed by a counting sort: returns
 * start offsets per anchor in *pstart (4*ninsts+1 entries). Only used when
 * the edits were not added in anchor order already. */
static rv_out_edit_rec *sort_edits(const rv_out *o, uint32_t ninsts, uint32_t **pstart)
{
    uint32_t na = 4 * ninsts;
    uint32_t *start = rv_xcalloc((size_t)na + 1, sizeof(uint32_t));
    for (uint32_t k = 0; k < o->edits.len; k++)
        if (o->edits.data[k].anchor < na) start[o->edits.data[k].anchor + 1]++;
    for (uint32_t a = 0; a < na; a++) start[a + 1] += start[a];
    rv_out_edit_rec *sorted = rv_xmalloc(sizeof(rv_out_edit_rec) * (o->edits.len ? o->edits.len : 1));
    uint32_t *fill = rv_xmalloc(sizeof(uint32_t) * ((size_t)na + 1));
    memcpy(fill, start, sizeof(uint32_t) * ((size_t)na + 1));
    for (uint32_t k = 0; k < o->edits.len; k++) {
        uint32_t a = o->edits.data[k].anchor;
        if (a < na) sorted[fill[a]++] = o->edits.data[k];
    }
    rv_free(fill);
    *pstart = start;
    return sorted;
}

/* Writes edit e as an instruction at dst (a copy of tmpl, an edit without
 * operands); returns slot_top(top) over its locations. */
static inline uint32_t put_edit(const rv_inst *tmpl, rv_inst *dst, const rv_edit *e, uint32_t top)
{
    *dst = *tmpl;
    dst->op = e->kind;
    dst->u.edit.dst = e->dst;
    dst->u.edit.src = e->src;
    return slot_top(slot_top(top, e->dst), e->src);
}

/* True if the edits were added in anchor order (allocators that walk the
 * function forward mostly do): then no sort is needed. */
static bool edits_in_order(const rv_out *o)
{
    for (uint32_t k = 1; k < o->edits.len; k++)
        if (o->edits.data[k].anchor < o->edits.data[k - 1].anchor) return false;
    return true;
}

char *rv_out_limit_error(const rv_out *o)
{
    return rv_alloc_errorf(o->f, RAVEL_NONE,
                           "too large: the stackmaps would hold more than %u slot entries in all "
                           "(the limit on an allocated function's stackmaps, docs/format.md section 12.2)",
                           RV_MAX_STACKMAP_ENTRIES);
}

ravel_func *rv_out_finish(rv_out *o)
{
    if (o->too_big) return NULL;
    const ravel_func *f = o->f;
    /* a clone of everything but the instructions and operands, which are
     * written once below with their allocation (cloning them too would copy
     * them twice, the largest arrays of the function) */
    ravel_func shell = *f;
    shell.insts.len = 0;
    shell.ops.len = 0;
    ravel_func *g = rv_func_clone(&shell);
    uint32_t top = 0; /* becomes g->nslots */
    /* never NULL arrays, even when empty: pointer arithmetic on them stays defined */
    rv_vec_reserve(g->ops, f->ops.len + 1);
    for (uint32_t k = 0; k < f->ops.len; k++) {
        rv_operand op = f->ops.data[k];
        op.loc = o->loc[k];
        g->ops.data[k] = op;
        top = slot_top(top, op.loc);
    }
    g->ops.len = f->ops.len;
    rv_vec_reserve(g->u32, 1);
    rv_vec_reserve(g->imms, 1);
    rv_vec_reserve(g->succs, 1);
    /* edits in anchor order: as added (cursor), else bucketed (start[]) */
    uint32_t *start = NULL;
    const rv_out_edit_rec *e = o->edits.data;
    rv_out_edit_rec *sorted = NULL;
    if (!edits_in_order(o)) e = sorted = sort_edits(o, f->insts.len, &start);
    uint32_t ne = o->edits.len, cur = 0, cap = f->insts.len + ne + 1;
    rv_inst *insts = rv_xmalloc(sizeof(rv_inst) * cap);
    uint32_t *pos = o->smap.len ? rv_xmalloc(sizeof(uint32_t) * (f->insts.len + 1)) : NULL; /* inst -> index in insts */
    if (pos)
        for (uint32_t i = 0; i < f->insts.len; i++) pos[i] = RAVEL_NONE;
    rv_inst tmpl;
    memset(&tmpl, 0, sizeof tmpl);
    tmpl.first_op = g->ops.len;
    tmpl.first_imm = g->imms.len;
    tmpl.name = RAVEL_NONE;
    uint32_t n = 0;
    for (uint32_t b = 0; b < g->layout.len; b++) {
        rv_block *bl = &g->blocks.data[b];
        uint32_t first = n;
        for (uint32_t j = 0; j < bl->ninsts; j++) {
            uint32_t i = bl->first_inst + j, from, mid, to;
            if (start) {
                from = start[4 * i], mid = start[4 * i + 3], to = start[4 * i + 4];
            } else {
                while (cur < ne && e[cur].anchor < 4 * i) cur++; /* anchors of no instruction of a block: dropped */
                for (from = cur; cur < ne && e[cur].anchor < 4 * i + 3; cur++) {}
                for (mid = cur; cur < ne && e[cur].anchor < 4 * i + 4; cur++) {}
                to = cur;
            }
            for (uint32_t k = from; k < mid; k++) top = put_edit(&tmpl, &insts[n++], &e[k].e, top);
            rv_inst *in = &insts[n];
            *in = f->insts.data[i];
            if ((in->flags & RV_IF_SAFEPOINT) && !rv_is_term(in)) { /* empty unless one was recorded */
                in->flags |= RV_IF_STACKMAP;
                in->u.smap.first = in->u.smap.n = 0;
            }
            if (pos) pos[i] = n;
            n++;
            for (uint32_t k = mid; k < to; k++) top = put_edit(&tmpl, &insts[n++], &e[k].e, top);
        }
        bl->first_inst = first;
        bl->ninsts = n - first;
    }
    top = attach_stackmaps(o, g, insts, pos, top);
    g->nslots = top;
    rv_free(g->insts.data);
    g->insts.data = insts;
    g->insts.len = n;
    g->insts.cap = cap;
    rv_free(pos);
    rv_free(sorted);
    rv_free(start);
    return g;
}
