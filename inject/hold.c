/* hold.c - injection's hold analysis (hold.h): a forward must-analysis,
 * one vreg per location, round-robin in reverse post-order to its
 * fixpoint, the states before every instruction recorded on the way.
 * Requires: an allocated, valid, finished function and its CFG.
 * Guarantees: out holds no INJ_H_TOP; a location holds v (valid) only if
 * every path to the instruction leaves the current value of v in it. */
#include "inject/hold.h"

#include <string.h>

bool inj_smap_lists(const ravel_func *f, const rv_inst *in, uint32_t slot)
{
    if (!(in->flags & RV_IF_STACKMAP)) return false;
    for (uint32_t k = 0; k < in->u.smap.n; k++)
        if (f->u32.data[in->u.smap.first + k] == slot) return true;
    return false;
}

static uint32_t nlocs(const inj_hold_fn *h) { return h->nregs + h->nslots; }
static uint32_t cell(const inj_hold_fn *h, ravel_loc l) { return rv_loc_index(h->nregs, h->nslots, l); }
static bool is_ref(const ravel_func *f, uint32_t v) { return v < f->vregs.len && f->vregs.data[v].ref; }

/* ---- one instruction ---- */

/* v defined in l: the other copies of v are stale. */
static void h_def(const inj_hold_fn *h, uint32_t *st, uint32_t v, ravel_loc l)
{
    uint32_t x = cell(h, l);
    if (x == RAVEL_NONE) return;
    for (uint32_t k = 0; k < nlocs(h); k++)
        if (st[k] == v) st[k] = v | INJ_H_STALE;
    st[x] = v;
}

/* The collector's rule: after the safepoint, does a location still hold
 * vreg v (a .ref vreg: ref), listed: a slot the stackmap lists, rooted:
 * some listed slot holds v. A moving collector updates only the listed
 * slots, so a location keeps v iff v is a reference exactly when the
 * location is listed; a non-moving one frees a reference no listed slot
 * holds. */
static bool gc_keeps(bool moving, bool ref, bool listed, bool rooted) { return moving ? ref == listed : !ref || rooted; }

/* Some slot of in's stackmap holds v (its current value). */
static bool rooted(const inj_hold_fn *h, const uint32_t *st, const rv_inst *in, uint32_t v)
{
    bool r = false;
    for (uint32_t k = 0; k < in->u.smap.n && (in->flags & RV_IF_STACKMAP); k++) {
        uint32_t y = cell(h, ravel_slot(h->f->u32.data[in->u.smap.first + k]));
        r |= y != RAVEL_NONE && st[y] == v;
    }
    return r;
}

static void h_safepoint(const inj_hold_fn *h, uint32_t *st, const rv_inst *in)
{
    const ravel_func *f = h->f;
    bool moving = !f->mach->gc_nonmoving;
    for (uint32_t x = 0; x < nlocs(h); x++) {
        uint32_t s = st[x];
        if (s == INJ_H_UNK || s == INJ_H_TOP) continue;
        uint32_t v = s & ~INJ_H_STALE;
        bool ref = is_ref(f, v), listed = x >= h->nregs && inj_smap_lists(f, in, x - h->nregs);
        if (!gc_keeps(moving, ref, listed, !moving && ref && rooted(h, st, in, v))) st[x] = INJ_H_UNK;
    }
}

/* Instruction i in section 6's order: early defs, clobbers (a register
 * the instruction defines is spared), the safepoint, late defs. An edit
 * copies what its source holds. */
static void h_inst(const inj_hold_fn *h, uint32_t *st, uint32_t i)
{
    const ravel_func *f = h->f;
    const rv_inst *in = &f->insts.data[i];
    if (rv_is_edit(in)) {
        uint32_t d = cell(h, in->u.edit.dst), s = cell(h, in->u.edit.src);
        if (d != RAVEL_NONE) st[d] = s == RAVEL_NONE ? INJ_H_UNK : st[s];
        return;
    }
    const rv_operand *o = &f->ops.data[in->first_op];
    for (uint32_t k = 0; k < in->ndefs; k++)
        if (rv_op_is_early(&o[k])) h_def(h, st, o[k].vreg, o[k].loc);
    if (!((in->flags & RV_IF_CLOBBERS) && !in->nclob)) {
        const uint32_t *regs;
        uint32_t n = rv_inst_clobbers(f, in, &regs);
        for (uint32_t k = 0; k < n; k++)
            if (regs[k] < h->nregs && !rv_inst_defines_loc(f, in, regs[k])) st[regs[k]] = INJ_H_UNK;
    }
    if (in->flags & RV_IF_SAFEPOINT) h_safepoint(h, st, in);
    for (uint32_t k = 0; k < in->ndefs; k++)
        if (!rv_op_is_early(&o[k])) h_def(h, st, o[k].vreg, o[k].loc);
}

/* ---- edges and the meet ---- */

/* The state on edge s: arguments become parameters, old copies of the
 * parameters become stale. */
static void h_edge(const inj_hold_fn *h, const uint32_t *st, uint32_t *out, const rv_succ *s)
{
    const ravel_func *f = h->f;
    const rv_block *b = &f->blocks.data[s->block];
    const uint32_t *par = rv_block_params(f, b), *arg = rv_succ_args(f, s);
    uint32_t n = s->nargs < b->nparams ? s->nargs : b->nparams;
    for (uint32_t x = 0; x < nlocs(h); x++) {
        uint32_t v = st[x], r = v;
        if (inj_h_valid(v)) {
            bool done = false;
            for (uint32_t k = 0; k < n && !done; k++)
                if (arg[k] == v) r = par[k], done = true;
            for (uint32_t k = 0; k < b->nparams && !done; k++)
                if (par[k] == v) r = v | INJ_H_STALE, done = true;
        }
        out[x] = r;
    }
}

static uint32_t h_meet(uint32_t a, uint32_t b)
{
    if (a == INJ_H_TOP) return b;
    if (b == INJ_H_TOP || a == b) return a;
    return INJ_H_UNK;
}

/* d := d meet e over the cells; true if d changed. */
static bool meet_into(const inj_hold_fn *h, uint32_t *d, const uint32_t *e)
{
    bool changed = false;
    for (uint32_t x = 0; x < nlocs(h); x++) {
        uint32_t m = h_meet(d[x], e[x]);
        if (m != d[x]) d[x] = m, changed = true;
    }
    return changed;
}

/* A back edge p -> b: b dominates p. */
static bool back_edge(const inj_hold_fn *h, uint32_t p, uint32_t b) { return rv_cfg_dominates(h->cfg, b, p); }

static bool is_header(const inj_hold_fn *h, uint32_t b)
{
    for (uint32_t k = h->cfg->pred_start[b]; k < h->cfg->pred_start[b + 1]; k++)
        if (back_edge(h, h->cfg->pred[k], b)) return true;
    return false;
}

/* ---- the fixpoint ---- */

typedef struct hold_run {
    const inj_hold_fn *h;
    uint32_t nl, nblocks;
    uint32_t *entry;  /* nblocks x nl: each block's entry state */
    uint32_t *st, *e; /* the working state, an edge's state */
    bool *hdr;        /* steady: loop headers (their entry edges ignored) */
    bool *dirty, *done;
} hold_run;

static void run_init(hold_run *r, const inj_hold_fn *h)
{
    memset(r, 0, sizeof *r);
    r->h = h;
    r->nl = nlocs(h);
    r->nblocks = h->f->layout.len;
    size_t nb = r->nblocks ? r->nblocks : 1;
    r->entry = rv_xmalloc(sizeof *r->entry * (size_t)r->nblocks * r->nl);
    r->st = rv_xmalloc(sizeof *r->st * r->nl);
    r->e = rv_xmalloc(sizeof *r->e * r->nl);
    for (size_t k = 0; k < (size_t)r->nblocks * r->nl; k++) r->entry[k] = INJ_H_TOP;
    for (uint32_t k = 0; k < r->nl && r->nblocks; k++) r->entry[k] = INJ_H_UNK;
    r->hdr = rv_xcalloc(nb, sizeof *r->hdr);
    r->dirty = rv_xcalloc(nb, sizeof *r->dirty);
    r->done = rv_xcalloc(nb, sizeof *r->done);
}

static void run_free(hold_run *r)
{
    rv_free(r->dirty);
    rv_free(r->done);
    rv_free(r->hdr);
    rv_free(r->entry);
    rv_free(r->st);
    rv_free(r->e);
}

/* Steady: each loop header's entry is the meet, over its back edges, of
 * the state must gives at the latch's end carried along the edge. */
static void steady_entries(hold_run *r, const uint32_t *must)
{
    const inj_hold_fn *h = r->h;
    const ravel_func *f = h->f;
    for (uint32_t b = 0; b < r->nblocks; b++) {
        if (h->cfg->rpo_index[b] == RAVEL_NONE || !(r->hdr[b] = is_header(h, b))) continue;
        for (uint32_t k = h->cfg->pred_start[b]; k < h->cfg->pred_start[b + 1]; k++) {
            uint32_t p = h->cfg->pred[k];
            if (!back_edge(h, p, b)) continue;
            const rv_block *pb = &f->blocks.data[p];
            uint32_t t = pb->first_inst + pb->ninsts - 1;
            memcpy(r->st, must + (size_t)t * r->nl, sizeof *r->st * r->nl);
            h_inst(h, r->st, t);
            const rv_inst *T = &f->insts.data[t];
            for (uint32_t q = 0; q < rv_inst_nsuccs(T); q++) {
                const rv_succ *sc = &rv_inst_succs(f, T)[q];
                if (sc->block != b) continue;
                h_edge(h, r->st, r->e, sc);
                meet_into(h, r->entry + (size_t)b * r->nl, r->e);
            }
        }
    }
}

/* Block b from its entry: its states recorded into out, its successors'
 * entries met with what it passes them (dirty when they change); true if
 * one changed. */
static bool run_block(hold_run *r, uint32_t b, uint32_t *out)
{
    const inj_hold_fn *h = r->h;
    const ravel_func *f = h->f;
    const rv_block *bb = &f->blocks.data[b];
    r->dirty[b] = false;
    r->done[b] = true;
    memcpy(r->st, r->entry + (size_t)b * r->nl, sizeof *r->st * r->nl);
    for (uint32_t x = 0; x < r->nl; x++)
        if (r->st[x] == INJ_H_TOP) r->st[x] = INJ_H_UNK;
    for (uint32_t i = bb->first_inst; i < bb->first_inst + bb->ninsts; i++) {
        memcpy(out + (size_t)i * r->nl, r->st, sizeof *r->st * r->nl);
        h_inst(h, r->st, i);
    }
    bool changed = false;
    const rv_inst *t = rv_block_term(f, bb);
    for (uint32_t k = 0; k < rv_inst_nsuccs(t); k++) {
        const rv_succ *s = &rv_inst_succs(f, t)[k];
        if (r->hdr[s->block] && !back_edge(h, b, s->block)) continue; /* steady: entry edges ignored */
        h_edge(h, r->st, r->e, s);
        if (meet_into(h, r->entry + (size_t)s->block * r->nl, r->e)) changed = r->dirty[s->block] = true;
    }
    return changed;
}

/* Round-robin in reverse post-order over the blocks whose entry changed;
 * a block's states are recorded each time it is processed, so the last
 * recording is that of its final entry. Unreached blocks: nothing known. */
static void run_fixpoint(hold_run *r, uint32_t *out)
{
    const inj_hold_fn *h = r->h;
    for (uint32_t b = 0; b < r->nblocks; b++) r->dirty[b] = r->entry[(size_t)b * r->nl] != INJ_H_TOP;
    bool changed = true;
    for (unsigned round = 0; changed && round < 64; round++) {
        changed = false;
        for (uint32_t k = 0; k < h->cfg->nrpo; k++) {
            uint32_t b = h->cfg->rpo[k];
            if (r->dirty[b] && h->f->blocks.data[b].ninsts) changed |= run_block(r, b, out);
        }
    }
    for (uint32_t b = 0; b < r->nblocks; b++) {
        const rv_block *bb = &h->f->blocks.data[b];
        if (r->done[b]) continue;
        for (size_t k = (size_t)bb->first_inst * r->nl; k < (size_t)(bb->first_inst + bb->ninsts) * r->nl; k++)
            out[k] = INJ_H_UNK;
    }
}

void inj_hold_build(const inj_hold_fn *h, uint32_t *out)
{
    if (!nlocs(h)) return;
    hold_run r;
    run_init(&r, h);
    run_fixpoint(&r, out);
    run_free(&r);
}

void inj_hold_build_steady(const inj_hold_fn *h, const uint32_t *must, uint32_t *out)
{
    if (!nlocs(h)) return;
    hold_run r;
    run_init(&r, h);
    steady_entries(&r, must);
    run_fixpoint(&r, out);
    run_free(&r);
}
