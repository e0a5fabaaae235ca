/* linear_resolve.c - the `linear` allocator's passes 4 (resolution on
 * edges) and 5 (spill slots and the output); see the pipeline at the top
 * of linear.c.
 *
 * Requires: the scan (linear_scan.c) done: every block's entry and end
 * state, the slot hulls of the scan.
 * Guarantees: on every CFG edge, the parallel move (rv_pmove) from the
 * end state of its source to the entry state of its target, block
 * parameters included, slot stores before register loads (edge edits in
 * L->out); then physical slots shared by virtual slots whose hulls do not
 * overlap, and the allocated function (NULL when the output is too big). */
#include "linear.h"

/* ---- 4. resolution on edges ---- */

typedef struct lin_slotctx { lin *L; uint32_t pos; } lin_slotctx;

static uint32_t new_temp_slot(void *ctx)
{
    lin_slotctx *c = ctx;
    rv_vec_push(c->L->hull.tpos, c->pos);
    return c->L->nv + c->L->hull.tpos.len - 1;
}

static void add_move(lin *L, movevec *mv, ravel_loc dst, ravel_loc src, uint32_t cls)
{
    mark_slot(L, dst);
    mark_slot(L, src);
    rv_vec_push(*mv, ((rv_move){dst, src, cls}));
}

/* Moves for one (entry item, source state) pair. src_v: the vreg whose value
 * flows (the argument for a param). */
static void edge_item(lin *L, movevec *mv, const lin_vst *e, uint32_t src_v, const lin_vst *s, bool param)
{
    uint32_t cls = vcls(L, e->v);
    uint32_t sh = s ? s->home : RAVEL_NONE;
    bool ssv = s ? s->sv || L->live.def_stored[src_v] : true; /* stored at its def: valid everywhere */
    ravel_loc from = sh != RAVEL_NONE ? sh : vslot(src_v);
    if (e->home != RAVEL_NONE) {
        if (sh == e->home) { /* already in place */
            rv_bs_set(L->res.pres, e->home);
            L->res.pres_v[e->home] = src_v;
            L->res.pres_sv[e->home] = ssv;
        }
        else add_move(L, mv, e->home, from, cls);
    }
    if (e->sv) {
        if (param) add_move(L, mv, vslot(e->v), from, cls);
        else if (!ssv) add_move(L, mv, vslot(e->v), sh, cls);
    }
}

static bool reg_is_src(const movevec *mv, uint32_t r)
{
    for (uint32_t j = 0; j < mv->len; j++)
        if (mv->data[j].src == r) return true;
    return false;
}

/* Slot-to-slot copies of the slot phase (moves [0, na)) need a register of
 * their class. When every register of the class holds a value the
 * successor keeps, one whose slot is valid is used as the scratch and
 * reloaded in the register phase: one reload instead of a save and a
 * restore around every copy. */
static void free_scratch(lin *L, movevec *mv, uint32_t na, uint32_t anchor)
{
    for (uint32_t j = 0; j < na; j++) {
        const rv_move *x = &mv->data[j];
        if (!ravel_loc_is_slot(x->src)) continue;
        const rv_class *c = &L->m->classes.data[x->cls];
        uint32_t cand = RAVEL_NONE;
        bool have = false;
        for (uint32_t k = 0; k < c->alloc.len && !have; k++) {
            uint32_t r = c->alloc.data[k];
            if (!L->home[r]) continue;
            bool dst_a = false;
            for (uint32_t i = 0; i < na; i++) dst_a |= mv->data[i].dst == r;
            if (reg_is_src(mv, r) || dst_a) continue;
            if (!rv_bs_test(L->res.pres, r)) {
                have = true;
                continue;
            }
            bool slot_written = false; /* the refill must not read a slot this phase writes */
            for (uint32_t i = 0; i < na; i++) slot_written |= mv->data[i].dst == vslot(L->res.pres_v[r]);
            if (!slot_written && (cand == RAVEL_NONE || (L->res.pres_sv[r] && !L->res.pres_sv[cand]))) cand = r;
        }
        if (have || cand == RAVEL_NONE) continue;
        if (!L->res.pres_sv[cand]) { /* store it first (its slot is in its hull here) */
            rv_out_edit(&L->out, anchor, RAVEL_OP_SPILL, vslot(L->res.pres_v[cand]), cand);
            mark_slot(L, vslot(L->res.pres_v[cand]));
            L->res.pres_sv[cand] = 1;
        }
        rv_bs_clear(L->res.pres, cand);
        add_move(L, mv, cand, vslot(L->res.pres_v[cand]), x->cls);
    }
}

static bool lin_edge(lin *L, uint32_t p, uint32_t k, movevec *mv)
{
    const ravel_func *f = L->f;
    const rv_inst *t = rv_inst_at(f, term_inst(L, p));
    const rv_succ *sc = &rv_inst_succs(f, t)[k];
    uint32_t s = sc->block;
    const uint32_t *args = rv_args_of(f, sc);
    const vstvec *en = &L->blk.entry[s];
    uint32_t np = f->blocks.data[s].nparams;
    uint32_t nw = rv_bs_words(L->nr);
    memset(L->res.pres, 0, nw * sizeof(uint64_t));
    mv->len = 0; /* (lin_resolve mapped p's end state) */
    for (uint32_t j = 0; j < en->len; j++) {
        const lin_vst *e = &en->data[j];
        uint32_t src_v = j < np ? args[j] : e->v;
        edge_item(L, mv, e, src_v, emap_get(L, &L->blk.endst[p], src_v), j < np);
    }
    if (!mv->len) return true;
    bool at_pred_end = false;
    uint32_t anchor = rv_edge_anchor(f, &L->cfg, p, k, &at_pred_end);
    if (anchor == RAVEL_NONE) anchor = rv_anchor_entry(f->blocks.data[s].first_inst);
    lin_slotctx sctx = {L, at_pred_end ? L->ord.ipos[term_inst(L, p)] : L->ord.bpos[s]};
    /* The moves into slots go first (their own cycles resolved among
     * themselves): the registers about to be loaded are still free to carry
     * slot-to-slot copies. Valid unless a move into a register reads a slot
     * that is written; then one parallel move does everything. */
    bool split = true;
    for (uint32_t j = 0; j < mv->len && split; j++)
        if (ravel_loc_is_slot(mv->data[j].dst))
            for (uint32_t i = 0; i < mv->len && split; i++)
                if (ravel_loc_is_reg(mv->data[i].dst) && mv->data[i].src == mv->data[j].dst) split = false;
    uint32_t na = 0;
    if (split) { /* partition: slot dsts first */
        for (uint32_t j = 0; j < mv->len; j++)
            if (ravel_loc_is_slot(mv->data[j].dst)) {
                rv_move x = mv->data[j];
                mv->data[j] = mv->data[na];
                mv->data[na++] = x;
            }
    }
    if (split) free_scratch(L, mv, na, anchor);
    for (int phase = split ? 0 : 1; phase < 2; phase++) {
        uint32_t from = phase == 0 ? 0 : (split ? na : 0), to = phase == 0 ? na : mv->len;
        if (from == to) continue;
        /* scratch: allocatable, not preserved, not read by any move of the
         * edge, not written by a move of this phase */
        memcpy(L->res.scratch, L->res.pres, nw * sizeof(uint64_t));
        for (uint32_t j = 0; j < mv->len; j++) {
            if (ravel_loc_is_reg(mv->data[j].src)) rv_bs_set(L->res.scratch, mv->data[j].src);
            if (j >= from && j < to && ravel_loc_is_reg(mv->data[j].dst)) rv_bs_set(L->res.scratch, mv->data[j].dst);
        }
        for (uint32_t r = 0; r < L->nr; r++) {
            if (rv_bs_test(L->res.scratch, r) || !L->home[r]) rv_bs_clear(L->res.scratch, r);
            else rv_bs_set(L->res.scratch, r);
        }
        if (rv_pmove_resolve(&L->res.pm, L->m, mv->data + from, to - from, L->res.scratch, new_temp_slot, &sctx) != RAVEL_OK)
            return fail(L, "internal: bad edge moves");
        rv_out_edits(&L->out, anchor, &L->res.pm);
    }
    return true;
}

bool rv_lin_resolve(lin *L)
{
    movevec mv = {0};
    rv_vec_reserve(mv, 16);
    bool ok = true;
    for (uint32_t p = 0; p < L->nb && ok; p++) {
        const rv_inst *t = rv_inst_at(L->f, term_inst(L, p));
        emap_build(L, &L->blk.endst[p]); /* once for all of p's edges */
        for (uint32_t k = 0; k < rv_inst_nsuccs(t) && ok; k++) ok = lin_edge(L, p, k, &mv);
    }
    rv_vec_free(mv);
    return ok;
}

/* ---- 5. spill slots ---- */

typedef struct lin_iv { uint32_t lo, hi, id; } lin_iv;

static int cmp_iv(const void *a, const void *b)
{
    const lin_iv *x = a, *y = b;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

typedef struct lin_heap { uint64_t *d; uint32_t n; } lin_heap; /* (hi << 32 | slot), min-heap */

static void heap_push(lin_heap *h, uint64_t x)
{
    uint32_t i = h->n++;
    while (i && h->d[(i - 1) / 2] > x) {
        h->d[i] = h->d[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->d[i] = x;
}
static uint64_t heap_pop(lin_heap *h)
{
    uint64_t top = h->d[0], x = h->d[--h->n];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && h->d[c + 1] < h->d[c]) c++;
        if (h->d[c] >= x) break;
        h->d[i] = h->d[c];
        i = c;
    }
    if (h->n) h->d[i] = x;
    return top;
}

/* Virtual slot -> physical slot: interval scheduling over the hulls. */
static uint32_t *lin_color_slots(lin *L, uint32_t *nslots)
{
    uint32_t nvirt = L->nv + L->hull.tpos.len;
    uint32_t *phys = u32_array(nvirt, 0xff);
    RV_VEC(lin_iv) ivs = {0};
    rv_vec_reserve(ivs, (size_t)L->nv + L->hull.tpos.len + 1);
    for (uint32_t v = 0; v < L->nv; v++)
        if (L->hull.slot_used[v]) rv_vec_push(ivs, ((lin_iv){L->hull.lo[v] == LIN_INF ? 0 : L->hull.lo[v], L->hull.hi[v], v}));
    for (uint32_t k = 0; k < L->hull.tpos.len; k++) rv_vec_push(ivs, ((lin_iv){L->hull.tpos.data[k], L->hull.tpos.data[k], L->nv + k}));
    if (ivs.len > 1) qsort(ivs.data, ivs.len, sizeof *ivs.data, cmp_iv);
    lin_heap h = {rv_xmalloc(sizeof(uint64_t) * (ivs.len + 1)), 0};
    u32vec freel = {0};
    rv_vec_reserve(freel, ivs.len + 1); /* (a slot is freed at most once per interval) */
    uint32_t n = 0;
    for (uint32_t k = 0; k < ivs.len; k++) {
        lin_iv iv = ivs.data[k];
        while (h.n && (uint32_t)(h.d[0] >> 32) < iv.lo) rv_vec_push(freel, (uint32_t)heap_pop(&h));
        uint32_t s = freel.len ? freel.data[--freel.len] : n++;
        phys[iv.id] = s;
        heap_push(&h, ((uint64_t)iv.hi << 32) | s);
    }
    rv_free(h.d);
    rv_vec_free(freel);
    rv_vec_free(ivs);
    *nslots = n;
    return phys;
}

static inline ravel_loc map_loc(const uint32_t *phys, ravel_loc l)
{
    return ravel_loc_is_slot(l) ? ravel_slot(phys[ravel_loc_slot(l)]) : l;
}

ravel_func *rv_lin_finish(lin *L)
{
    uint32_t nslots;
    uint32_t *phys = lin_color_slots(L, &nslots);
    if (nslots > RAVEL_MAX_SLOT + 1) {
        rv_free(phys);
        L->cur.inst = RAVEL_NONE;
        if (!L->err) L->err = rv_alloc_errorf(L->f, RAVEL_NONE, "too many spill slots");
        return NULL;
    }
    for (uint32_t k = 0; k < L->f->ops.len; k++) L->out.loc[k] = map_loc(phys, L->out.loc[k]);
    for (uint32_t k = 0; k < L->out.edits.len; k++) {
        rv_edit *e = &L->out.edits.data[k].e;
        e->dst = map_loc(phys, e->dst);
        e->src = map_loc(phys, e->src);
    }
    for (uint32_t k = 0; k < L->smaps.len;) {
        uint32_t i = L->smaps.data[k], n = L->smaps.data[k + 1];
        uint32_t *sl = &L->smaps.data[k + 2];
        for (uint32_t j = 0; j < n; j++) sl[j] = phys[sl[j]];
        rv_out_stackmap(&L->out, i, sl, n);
        k += 2 + n;
    }
    rv_free(phys);
    return rv_out_finish(&L->out);
}

