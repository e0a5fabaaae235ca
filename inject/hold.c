/* hold.c - injection's hold analysis (hold.h), read from the checker's
 * reference fixpoint through ck_sem.h's cursor; the stale copies of the
 * steady states tracked on top of it.
 * Requires: an allocated, valid, finished function and its CFG.
 * Guarantees: a cell holds v (valid) only where the reference's state has
 * v in that location; a stale cell v|INJ_H_STALE only where it does not
 * and a step or an edge of the reference left that copy of v stale. */
#include "inject/hold.h"
#include "checker/ck_sem.h"
#include "ir/analysis.h"

#include <string.h>

enum { MAX_STALE = 64, MAX_ROUNDS = 64 };

bool inj_smap_lists(const ravel_func *f, const rv_inst *in, uint32_t slot) { return ck_smap_lists(f, in, slot); }

static uint32_t nlocs(const inj_hold *h) { return h->nregs + h->nslots; }
static ravel_loc loc_at(const inj_hold *h, uint32_t x) { return rv_loc_at(h->nregs, x); }
static uint32_t cell(const inj_hold *h, ravel_loc l) { return rv_loc_index(h->nregs, h->nslots, l); }
static bool is_ref(const ravel_func *f, uint32_t v) { return v < f->vregs.len && f->vregs.data[v].ref; }

void inj_hold_prepare(inj_hold *h, const ravel_func *f, const rv_cfg *cfg, uint32_t nregs, uint32_t nslots)
{
    *h = (inj_hold){.f = f, .cfg = cfg, .nregs = nregs, .nslots = nslots, .at = RAVEL_NONE};
}

/* The reference's run on h->f, once; h->ok. */
static bool run_ref(inj_hold *h)
{
    if (h->ran) return h->ok;
    const ravel_func *f = h->f;
    h->ran = true;
    if (!h->ck) h->ck = ravel_checker_new();
    ravel_checker_set_options(h->ck, RAVEL_CHECK_REFERENCE | CK_SEM_STATES_ONLY); /* (the states, not the report) */
    ravel_checker_set_max_errors(h->ck, 1);
    int rc = ravel_check(h->ck, f, NULL, NULL);
    h->ok = (rc == RAVEL_OK || rc == RAVEL_EFAIL) && f->layout.len &&
            ck_ref_seek(h->ck, f, f->blocks.data[f->layout.data[0]].first_inst);
    return h->ok;
}

bool inj_hold_init(inj_hold *h, const ravel_func *f, const rv_cfg *cfg, uint32_t nregs, uint32_t nslots)
{
    inj_hold_prepare(h, f, cfg, nregs, nslots);
    return run_ref(h);
}

void inj_hold_free(inj_hold *h)
{
    if (h->ck && !h->ck_shared) ravel_checker_free(h->ck);
    rv_free(h->done);
    rv_free(h->blk);
    memset(h, 0, sizeof *h);
}

/* Vreg v is live right before instruction i: live after it (h->live)
 * or read by it. */
static bool live_before(const inj_hold *h, uint32_t i, uint32_t v)
{
    if (v < h->f->vregs.len && rv_bs_test(h->live + (size_t)i * h->lw, v)) return true;
    const rv_inst *in = &h->f->insts.data[i];
    for (uint32_t k = 0; !rv_is_edit(in) && k < in->nuses; k++)
        if (rv_inst_uses(h->f, in)[k].vreg == v) return true;
    return false;
}

/* Of the vregs m[0..n) (sorted) a location holds before instruction i,
 * the one its cell shows: of a set, its greatest member live there
 * (h->live), else its greatest; INJ_H_UNK if none. */
static uint32_t shown(const inj_hold *h, uint32_t i, const uint32_t *m, uint32_t n)
{
    for (uint32_t k = n; k-- > 0 && n > 1 && h->live;)
        if (live_before(h, i, m[k])) return m[k];
    return n ? m[n - 1] : INJ_H_UNK;
}

/* What location x holds at the cursor (before instruction i), as one
 * vreg (shown), read from its members. */
static uint32_t held(const inj_hold *h, uint32_t x, uint32_t i)
{
    const uint32_t *m;
    uint32_t n = ck_ref_loc_vregs(h->ck, loc_at(h, x), &m);
    return shown(h, i, m, n);
}

/* The same from location x's token: a token that is one vreg or none
 * answers without reading the members (h->plain: always read, tests
 * compare). */
static uint32_t held_tok(const inj_hold *h, uint32_t tok, uint32_t x, uint32_t i)
{
    if (tok == CK_TOKEN_UNKNOWN) return INJ_H_UNK; /* (no members to read) */
    uint32_t one = h->plain ? CK_TOKEN_SET : ck_ref_token_single(h->ck, tok);
    if (one == CK_TOKEN_SET) return held(h, x, i);
    return one == CK_TOKEN_UNKNOWN ? INJ_H_UNK : one;
}

static void fill_unk(uint32_t *out, size_t n)
{
    for (size_t k = 0; k < n; k++) out[k] = INJ_H_UNK;
}

/* (hold.h: inj_hold_cell, for the tokens it does not answer itself) */
uint32_t inj_hold_cell_of(inj_hold *h, uint32_t i, uint32_t x)
{
    uint32_t *c = h->tab + (size_t)i * nlocs(h) + x, t = *c;
    if (t < h->f->vregs.len || t == INJ_H_UNK) return t;
    uint32_t one = ck_ref_token_single(h->ck, t);
    if (one != CK_TOKEN_SET) return *c = one == CK_TOKEN_UNKNOWN ? INJ_H_UNK : one;
    const uint32_t *m;
    uint32_t n = ck_ref_token_vregs(h->ck, t, &m);
    return *c = shown(h, i, m, n); /* (a vreg, or INJ_H_UNK: read again as the cell it is) */
}

void inj_hold_table(inj_hold *h, uint32_t *out)
{
    const ravel_func *f = h->f;
    h->tab = out;
    h->done = rv_xcalloc(f->insts.len + 1, sizeof *h->done);
    h->blk = rv_xcalloc(f->insts.len + 1, sizeof *h->blk);
    for (uint32_t b = 0; b < f->layout.len; b++)
        for (uint32_t i = 0; i < f->blocks.data[b].ninsts; i++) h->blk[f->blocks.data[b].first_inst + i] = b;
    /* (out is not filled here: each row is written whole when asked for) */
}

/* The cursor before instruction i (of block b): stepped on from where it
 * is if it is before i in b, else sought; false if b was not reached. */
static bool cursor_to(inj_hold *h, uint32_t i, uint32_t b)
{
    if (h->at == RAVEL_NONE || h->atb != b || h->at > i) {
        uint32_t first = h->f->blocks.data[b].first_inst;
        h->at = RAVEL_NONE;
        if (!ck_ref_seek(h->ck, h->f, first)) return false;
        h->at = first, h->atb = b;
    }
    if (h->at < i) h->at = ck_ref_advance(h->ck, i);
    return true;
}

void inj_hold_take(inj_hold *h, uint32_t i)
{
    uint32_t nl = nlocs(h), *row = h->tab + (size_t)i * nl;
    h->done[i] = INJ_ROW_TOKENS;
    if (!run_ref(h) || !cursor_to(h, i, h->blk[i])) { /* (unreached, or no states: nothing known) */
        fill_unk(row, nl);
        h->done[i] = INJ_ROW_CELLS;
        return;
    }
    ck_ref_loc_tokens(h->ck, row, nl);
    if (!h->plain) return;
    for (uint32_t x = 0; x < nl; x++) row[x] = held_tok(h, row[x], x, i); /* (plain: every cell at the cursor) */
    h->done[i] = INJ_ROW_CELLS;
}

const uint32_t *inj_hold_row(inj_hold *h, uint32_t i)
{
    uint32_t nl = nlocs(h);
    if (!h->done[i]) inj_hold_take(h, i);
    uint32_t *row = h->tab + (size_t)i * nl;
    if (h->done[i] == INJ_ROW_TOKENS) {
        for (uint32_t x = 0; x < nl; x++) row[x] = inj_hold_cell(h, i, x);
        h->done[i] = INJ_ROW_CELLS;
    }
    return row;
}

/* Every row not asked for yet. */
static void fill_rows(inj_hold *h)
{
    for (uint32_t i = 0; h->tab && i < h->f->insts.len; i++) inj_hold_row(h, i);
}

void inj_hold_build(inj_hold *h, uint32_t *out)
{
    if (h->tab != out) {
        rv_free(h->done), rv_free(h->blk);
        inj_hold_table(h, out);
    }
    fill_rows(h);
}

/* ---- the steady states and their stale copies ---- */

/* The stale tracker: per location the vreg whose stale copy it holds, or
 * INJ_H_UNK (none), or INJ_H_TOP (the meet's identity). Per edge (an
 * index of f->succs) what it carries, valid where done. */
typedef struct stale_run {
    inj_hold *h;
    uint32_t nl, nedges;
    uint32_t *edge; /* nedges x nl */
    bool *edone;    /* per edge: carried once */
    bool *dirty;    /* per block: to run in the next round (an in-edge changed since it ran) */
    uint32_t *cur;  /* the walk's marks */
    uint32_t *row;  /* the tokens at the cursor (the cells being recorded; after a step) */
    uint32_t *tok;  /* the tokens before a step (then scratch) */
    ck_stale st[MAX_STALE];
} stale_run;

static void run_init(stale_run *r, inj_hold *h)
{
    memset(r, 0, sizeof *r);
    r->h = h;
    r->nl = nlocs(h);
    r->nedges = h->f->succs.len;
    r->edge = rv_xmalloc(sizeof *r->edge * ((size_t)r->nedges * r->nl + 1));
    r->edone = rv_xcalloc(r->nedges + 1, sizeof *r->edone);
    r->dirty = rv_xmalloc(sizeof *r->dirty * (h->f->blocks.len + 1));
    memset(r->dirty, 1, sizeof *r->dirty * (h->f->blocks.len + 1)); /* (the first round runs them all) */
    r->cur = rv_xmalloc(sizeof *r->cur * (r->nl + 1));
    r->row = rv_xmalloc(sizeof *r->row * (r->nl + 1));
    r->tok = rv_xmalloc(sizeof *r->tok * (r->nl + 1));
}

static void run_free(stale_run *r)
{
    rv_free(r->edge);
    rv_free(r->edone);
    r->edone = NULL;
    rv_free(r->dirty);
    rv_free(r->cur);
    rv_free(r->row);
    rv_free(r->tok);
}

static uint32_t edge_index(const ravel_func *f, const rv_succ *s) { return (uint32_t)(s - f->succs.data); }

/* A back edge p -> b: b dominates p. */
static bool back_edge(const inj_hold *h, uint32_t p, uint32_t b) { return rv_cfg_dominates(h->cfg, b, p); }

static bool is_header(const inj_hold *h, uint32_t b)
{
    for (uint32_t k = h->cfg->pred_start[b]; k < h->cfg->pred_start[b + 1]; k++)
        if (back_edge(h, h->cfg->pred[k], b)) return true;
    return false;
}

/* The marks at b's entry: the meet (agreement) of what its carried
 * in-edges carry (a loop header's back edges only, as the steady states
 * see it; none carried yet: no marks). False if b is no header and none
 * of its in-edges was carried yet (not reached). */
static bool entry_marks(stale_run *r, uint32_t b)
{
    const inj_hold *h = r->h;
    const ravel_func *f = h->f;
    bool hdr = is_header(h, b), any = false;
    for (uint32_t x = 0; x < r->nl; x++) r->cur[x] = INJ_H_TOP;
    for (uint32_t q = h->cfg->pred_start[b]; q < h->cfg->pred_start[b + 1]; q++) {
        uint32_t p = h->cfg->pred[q];
        const rv_inst *t = rv_block_term(f, &f->blocks.data[p]);
        for (uint32_t k = 0; t && k < rv_inst_nsuccs(t) && !(hdr && !back_edge(h, p, b)); k++) {
            const rv_succ *s = &rv_inst_succs(f, t)[k];
            uint32_t e = edge_index(f, s);
            if (s->block != b || !r->edone[e]) continue;
            any = true;
            for (uint32_t x = 0; x < r->nl; x++) {
                uint32_t a = r->cur[x], c = r->edge[(size_t)e * r->nl + x];
                r->cur[x] = a == INJ_H_TOP ? c : a == c ? a : INJ_H_UNK;
            }
        }
    }
    for (uint32_t x = 0; x < r->nl; x++)
        if (r->cur[x] == INJ_H_TOP) r->cur[x] = INJ_H_UNK;
    return any || hdr;
}

static bool has(const uint32_t *m, uint32_t n, uint32_t v)
{
    for (uint32_t k = 0; k < n; k++)
        if (m[k] == v) return true;
    return false;
}

/* The vregs of token t (ck_ref_token_vregs; one vreg into *one). */
static uint32_t members(const stale_run *r, uint32_t t, const uint32_t **m, uint32_t *one)
{
    if (t < r->h->f->vregs.len) {
        *one = t, *m = one;
        return 1;
    }
    return ck_ref_token_vregs(r->h->ck, t, m);
}

/* A location whose token went from old to now lost vregs only: it holds
 * some (now is known), each among old's first MAX_STALE. */
static bool lost_only(const stale_run *r, uint32_t old, uint32_t now)
{
    if (now == CK_TOKEN_UNKNOWN) return false;
    const uint32_t *m, *o;
    uint32_t one, one2, k = members(r, now, &m, &one), n = members(r, old, &o, &one2);
    n = n < MAX_STALE ? n : MAX_STALE;
    bool all = true;
    for (uint32_t q = 0; q < k && all; q++) all = has(o, n, m[q]);
    return all;
}

/* The collector at safepoint in, on the marks (ck_gc_keeps; rooted: a
 * listed slot holds v before the safepoint). */
static void gc_marks(stale_run *r, const rv_inst *in)
{
    const ravel_func *f = r->h->f;
    bool moving = !f->mach->gc_nonmoving;
    for (uint32_t x = 0; x < r->nl; x++) {
        uint32_t v = r->cur[x];
        if (v == INJ_H_UNK) continue;
        bool listed = x >= r->h->nregs && ck_smap_lists(f, in, x - r->h->nregs), rooted = false;
        for (uint32_t k = 0; !moving && is_ref(f, v) && (in->flags & RV_IF_STACKMAP) && k < in->u.smap.n; k++) {
            uint32_t y = cell(r->h, ravel_slot(f->u32.data[in->u.smap.first + k]));
            const uint32_t *m;
            uint32_t n = y == RAVEL_NONE ? 0 : ck_ref_loc_vregs(r->h->ck, loc_at(r->h, y), &m);
            rooted |= n && has(m, n, v);
        }
        if (!ck_gc_keeps(moving, is_ref(f, v), listed, rooted)) r->cur[x] = INJ_H_UNK;
    }
}

/* Past instruction i: marks whose location was written end (its token
 * changed, other than by losing vregs), an edit's destination takes its
 * source's mark, the copies the step left stale are marked. */
static void step(stale_run *r, uint32_t i)
{
    const ravel_func *f = r->h->f;
    const rv_inst *in = &f->insts.data[i];
    uint32_t dst = RAVEL_NONE, srcmark = INJ_H_UNK;
    if (rv_is_edit(in)) {
        uint32_t s = cell(r->h, in->u.edit.src);
        dst = cell(r->h, in->u.edit.dst);
        srcmark = s == RAVEL_NONE ? INJ_H_UNK : r->cur[s];
    } else if (in->flags & RV_IF_SAFEPOINT) {
        gc_marks(r, in);
    }
    ck_ref_loc_tokens(r->h->ck, r->tok, r->nl); /* (before; tokens keep their members) */
    uint32_t n = ck_ref_step(r->h->ck, r->st, MAX_STALE);
    ck_ref_loc_tokens(r->h->ck, r->row, r->nl); /* (after) */
    for (uint32_t x = 0; x < r->nl; x += 4) {
        uint64_t a[2], b[2]; /* (four tokens at once: most stay) */
        if (x + 4 <= r->nl && (memcpy(a, r->row + x, sizeof a), memcpy(b, r->tok + x, sizeof b), a[0] == b[0] && a[1] == b[1])) continue;
        for (uint32_t y = x; y < x + 4 && y < r->nl; y++)
            if (r->cur[y] != INJ_H_UNK && r->row[y] != r->tok[y] && !lost_only(r, r->tok[y], r->row[y])) r->cur[y] = INJ_H_UNK;
    }
    if (dst != RAVEL_NONE) r->cur[dst] = srcmark;
    for (uint32_t k = 0; k < n && k < MAX_STALE; k++) {
        uint32_t x = cell(r->h, r->st[k].loc);
        if (x != RAVEL_NONE) r->cur[x] = r->st[k].vreg;
    }
}

/* The cell of location x at the cursor (before i), whose token is t: what
 * it holds (a token below the vreg count is that vreg; from
 * CK_TOKEN_UNKNOWN up, none; h->plain: every one read by held_tok), else
 * its mark. */
static uint32_t steady_cell(const stale_run *r, uint32_t x, uint32_t i, uint32_t t)
{
    uint32_t v = r->h->plain || (t >= r->h->f->vregs.len && t < CK_TOKEN_UNKNOWN) ? held_tok(r->h, t, x, i)
                 : t < r->h->f->vregs.len                                           ? t
                                                                                    : INJ_H_UNK;
    return v != INJ_H_UNK || r->cur[x] == INJ_H_UNK ? v : r->cur[x] | INJ_H_STALE;
}

/* The cells before instruction i (the cursor there) into out's row i. */
static void record(stale_run *r, uint32_t i, uint32_t *out)
{
    uint32_t *o = out + (size_t)i * r->nl;
    ck_ref_loc_tokens(r->h->ck, r->row, r->nl);
    for (uint32_t x = 0; x < r->nl; x++) o[x] = steady_cell(r, x, i, r->row[x]);
}

/* What the edges out of b (the cursor at its end, marks in cur) carry:
 * the marks, and the copies of the targets' parameters each binding left
 * stale. True if one changed. */
static bool carry(stale_run *r, uint32_t b)
{
    const ravel_func *f = r->h->f;
    const rv_block *bl = &f->blocks.data[b];
    const rv_inst *t = rv_block_term(f, bl);
    bool changed = false;
    for (uint32_t k = 0; t && k < rv_inst_nsuccs(t); k++) {
        uint32_t e = edge_index(f, &rv_inst_succs(f, t)[k]), n = 0, *d = r->edge + (size_t)e * r->nl;
        if (k && ck_ref_seek(r->h->ck, f, bl->first_inst + bl->ninsts - 1)) ck_ref_step(r->h->ck, NULL, 0);
        if (!ck_ref_edge(r->h->ck, k, r->st, MAX_STALE, &n)) n = 0;
        uint32_t *tmp = r->tok; /* (scratch: the new marks) */
        memcpy(tmp, r->cur, sizeof *tmp * r->nl);
        for (uint32_t q = 0; q < n && q < MAX_STALE; q++) {
            uint32_t x = cell(r->h, r->st[q].loc);
            if (x != RAVEL_NONE) tmp[x] = r->st[q].vreg;
        }
        bool now = !r->edone[e] || memcmp(d, tmp, sizeof *d * r->nl) != 0;
        changed |= now;
        if (now) r->dirty[rv_inst_succs(f, t)[k].block] = true;
        memcpy(d, tmp, sizeof *d * r->nl);
        r->edone[e] = true;
    }
    return changed;
}

/* Block b is in a loop (reached): its cells are recorded. */
static bool in_loop(const inj_hold *h, uint32_t b) { return h->cfg->rpo_index[b] != RAVEL_NONE && h->cfg->loop_depth[b]; }

/* Block b in the steady states from its entry marks: its cells recorded
 * into out if it is in a loop (none if out is NULL), its edges carried;
 * true if an edge changed. */
static bool run_block(stale_run *r, uint32_t b, uint32_t *out)
{
    const ravel_func *f = r->h->f;
    const rv_block *bl = &f->blocks.data[b];
    if (!bl->ninsts || !entry_marks(r, b) || !ck_ref_seek(r->h->ck, f, bl->first_inst)) return false;
    if (!in_loop(r->h, b)) out = NULL; /* (its cells stay unknown) */
    for (uint32_t i = bl->first_inst; i < bl->first_inst + bl->ninsts; i++) {
        if (out) record(r, i, out);
        step(r, i);
    }
    return carry(r, b);
}

/* The rounds, until no edge changes (at most MAX_ROUNDS): each runs the
 * blocks whose entry may have changed (every block with plain), their
 * cells recorded into out (NULL: none). True if they converged. */
static bool rounds(stale_run *r, uint32_t *out, bool plain)
{
    const rv_cfg *cfg = r->h->cfg;
    bool changed = true;
    for (unsigned round = 0; changed && round < MAX_ROUNDS; round++) {
        changed = false;
        for (uint32_t k = 0; k < cfg->nrpo; k++) {
            uint32_t b = cfg->rpo[k];
            if (!r->dirty[b] && !plain) continue;
            r->dirty[b] = false;
            changed |= run_block(r, b, out);
        }
    }
    return !changed;
}

/* The steady table: the rounds without cells, then one run of every block
 * in a loop recording them. Once the rounds converged, every edge into a block
 * carries what it carried at the block's last run (a later change would
 * have made it run again), so that run gives the cells the block's last
 * run of the rounds would have recorded. Rounds that did not converge are
 * run again, recording as they go (h->steady_plain: that, every block in
 * every round; tests compare). */
bool inj_hold_build_steady(inj_hold *h, uint32_t *out)
{
    const ravel_func *f = h->f;
    for (uint32_t i = 0; h->tab && i < f->insts.len; i++) /* (the fixpoint's states end here; tokens outlive them) */
        if (!h->done[i]) inj_hold_take(h, i);
    h->at = RAVEL_NONE;
    fill_unk(out, (size_t)f->insts.len * nlocs(h));
    if (!run_ref(h) || !ck_ref_steady(h->ck, f)) return h->ok = false;
    stale_run r;
    run_init(&r, h);
    if (h->steady_plain || !rounds(&r, NULL, false)) {
        run_free(&r);
        run_init(&r, h);
        rounds(&r, out, h->steady_plain);
    } else {
        for (uint32_t k = 0; k < h->cfg->nrpo; k++)
            if (in_loop(h, h->cfg->rpo[k])) run_block(&r, h->cfg->rpo[k], out);
    }
    run_free(&r);
    return true;
}
