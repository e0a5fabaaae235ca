/* ck_ref_view.c - what is read of the reference's fixpoint after
 * ck_ref_check (ck_ref.c): the provenance of its value errors (the
 * fixpoint's edges, for ck_report.c), explain dumps, and the states it
 * holds before any instruction (ck_ref_holders; the cursor of ck_sem.h
 * for code outside the checker: seek, step, edge, a location's vregs).
 * Each replays one block's transfer (ck_ref_xfer.c) from its entry state
 * at the fixpoint, with nothing recorded. Requires: a reference check of
 * the function asked about, the last one of this checker. */
#include "ck_ref.h"

#include <string.h>

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
    for (uint32_t p = r->fix.in_start.data[b]; p < r->fix.in_start.data[b + 1]; p++)
        if (r->fix.xdone.data[r->fix.in_src.data[p]]) *from = r->fix.in_src.data[p], n++;
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
    const char *lb = rv_loc_str(f->mach, rv_loc_at(ck->nregs, li), lbuf);
    ck_bprintf(out, "at the entry of %s, %s is the meet of its incoming edges:\n", rv_block_name(f, x), lb);
    for (uint32_t p = r->fix.in_start.data[x]; p < r->fix.in_start.data[x + 1]; p++) {
        uint32_t q = r->fix.in_src.data[p];
        if (!r->fix.xdone.data[q]) continue;
        const ck_span *xs = &r->fix.xit.data[q];
        ck_val v = CK_V_UNKNOWN;
        for (uint32_t i = 0; i < xs->len; i++)
            if (r->fix.xpool.data[xs->start + i].li == li) v = r->fix.xpool.data[xs->start + i].val;
        v = ref_edge_val(ck, r, &f->succs.data[r->fix.in_edge.data[p]], v);
        ck_bprintf(out, "  from %s (", rv_block_name(f, q));
        where(out, f, (uint32_t)(rv_block_term(f, &f->blocks.data[q]) - f->insts.data));
        ck_bprintf(out, "): %s %s ", lb, v < CK_V_UNKNOWN ? "holds" : "is");
        ck_val_text_in(out, ck, &r->sets, v);
        ck_bprintf(out, "\n");
    }
}

/* Does li hold v right before instruction ii of block b, at the fixpoint? */
static bool ref_held_before(void *ctx, uint32_t b, uint32_t ii, uint32_t li, uint32_t v)
{
    ravel_checker *ck = ctx;
    ck_ref *r = ck->ref;
    if (!r->fix.reached.data[b]) return false;
    bool rec = r->record;
    r->record = false;
    ref_load_entry(ck, r, b);
    for (uint32_t i = ck->f->blocks.data[b].first_inst; i < ii; i++) ref_xfer(ck, r, b, i, rv_inst_at(ck->f, i));
    r->record = rec;
    return ref_val_has(r, ref_loc(r, li), v);
}

/* Provenance for the value errors recorded from index e0 on (the first
 * CK_MAX_PROVENANCE of the report): where the expected vreg is at the read,
 * then how the location got what it holds. */
void ref_add_provenance(ravel_checker *ck, ck_ref *r, uint32_t e0)
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

/* ---- explain, holders ---- */

/* Explain: the state before every instruction of blk, and at its exit. */
void ck_ref_explain(ravel_checker *ck, uint32_t blk)
{
    ck_ref *r = ck->ref;
    const rv_block *bl = &ck->f->blocks.data[blk];
    if (!r || !r->fix.reached.data[blk]) return;
    bool rec = r->record;
    r->record = false;
    ref_load_entry(ck, r, blk);
    ck->out.explain.len = ck->out.explain_base;
    for (uint32_t i = 0; i < bl->ninsts; i++) {
        uint32_t ii = bl->first_inst + i;
        ck_dump_state_of(ck, &r->sets, r->work.cur, blk, ii);
        ref_xfer(ck, r, blk, ii, rv_inst_at(ck->f, ii));
    }
    ck_dump_state_of(ck, &r->sets, r->work.cur, blk, CK_NIL);
    r->record = rec;
}

/* ---- the cursor (ck_sem.h) ---- */

void ref_view_free(ref_view *v)
{
    rv_vec_free(v->ents);
    memset(v, 0, sizeof *v);
}

size_t ref_view_memory(const ref_view *v) { return (size_t)v->ents.cap * sizeof *v->ents.data; }

/* The block of instruction inst of f, f->layout.len if none. */
static uint32_t block_of(const ravel_func *f, uint32_t inst)
{
    uint32_t b = 0;
    while (b < f->layout.len && !(inst >= f->blocks.data[b].first_inst && inst < f->blocks.data[b].first_inst + f->blocks.data[b].ninsts)) b++;
    return b;
}

bool ck_ref_seek(ravel_checker *ck, const ravel_func *f, uint32_t inst)
{
    ck_ref *r = ck->ref;
    if (!ref_states_of(r, f)) return false;
    r->view.f = NULL;
    uint32_t b = block_of(f, inst);
    if (b == f->layout.len || !r->fix.reached.data[b]) return false;
    const ravel_func *f0 = ck->f;
    ck->f = f;
    bool rec = r->record;
    r->record = false;
    ref_load_entry(ck, r, b);
    for (uint32_t ii = f->blocks.data[b].first_inst; ii < inst; ii++) ref_xfer(ck, r, b, ii, rv_inst_at(f, ii));
    r->record = rec;
    ck->f = f0;
    r->view.f = f;
    r->view.block = b;
    r->view.inst = inst;
    return true;
}

/* The stale notes of the last transfer (r->work.stale: (li, v)) whose
 * location no longer holds v, into out; how many in all. */
static uint32_t stale_out(const ravel_checker *ck, ck_ref *r, ck_stale *out, uint32_t max)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->work.stale.len; i++) {
        ck_ent e = r->work.stale.data[i];
        if (ref_val_has(r, ref_loc(r, e.li), e.val)) continue; /* (given v again: by its own def) */
        if (n < max) out[n] = (ck_stale){rv_loc_at(ck->nregs, e.li), e.val};
        n++;
    }
    return n;
}

/* The cursor stepped on, by the transfer, to instruction inst of its
 * block (or to the block's end, if inst is past it); where it is now. */
static uint32_t run_to(ravel_checker *ck, ck_ref *r, uint32_t inst)
{
    const ravel_func *f = r->view.f, *f0 = ck->f;
    const rv_block *bl = &f->blocks.data[r->view.block];
    uint32_t end = inst < bl->first_inst + bl->ninsts ? inst : bl->first_inst + bl->ninsts;
    ck->f = f;
    bool rec = r->record;
    r->record = false;
    for (; r->view.inst < end; r->view.inst++) ref_xfer(ck, r, r->view.block, r->view.inst, rv_inst_at(f, r->view.inst));
    r->record = rec;
    ck->f = f0;
    return r->view.inst;
}

uint32_t ck_ref_step(ravel_checker *ck, ck_stale *out, uint32_t max)
{
    ck_ref *r = ck->ref;
    if (!r || !r->view.f) return 0;
    const rv_block *bl = &r->view.f->blocks.data[r->view.block];
    if (r->view.inst >= bl->first_inst + bl->ninsts) return 0;
    r->work.stale.len = 0;
    r->work.log_stale = out != NULL; /* (NULL: no stale copy asked for, none noted) */
    run_to(ck, r, r->view.inst + 1);
    r->work.log_stale = false;
    return out ? stale_out(ck, r, out, max) : 0;
}

uint32_t ck_ref_advance(ravel_checker *ck, uint32_t inst)
{
    ck_ref *r = ck->ref;
    return r && r->view.f ? run_to(ck, r, inst) : RAVEL_NONE;
}

bool ck_ref_edge(ravel_checker *ck, uint32_t k, ck_stale *out, uint32_t max, uint32_t *nstale)
{
    ck_ref *r = ck->ref;
    *nstale = 0;
    if (!r || !r->view.f) return false;
    const ravel_func *f = r->view.f, *f0 = ck->f;
    const rv_block *bl = &f->blocks.data[r->view.block];
    const rv_inst *t = rv_block_term(f, bl);
    if (r->view.inst != bl->first_inst + bl->ninsts || !t || k >= rv_inst_nsuccs(t)) return false;
    const rv_succ *e = &rv_inst_succs(f, t)[k];
    const uint32_t *params = rv_params_of(f, &f->blocks.data[e->block]), *args = rv_args_of(f, e);
    ck->f = f;
    r->work.stale.len = 0;
    r->view.ents.len = 0;
    for (uint32_t li = 0; li < ck_nstate(ck); li++) { /* (sorted by location, as ref_load wants; U and the C_k too) */
        ck_val v = ref_loc(r, li), w = ref_edge_val(ck, r, e, v);
        if (w != CK_V_UNKNOWN) rv_vec_push(r->view.ents, ((ck_ent){li, w}));
        for (uint32_t p = 0; w != v && p < e->nargs; p++) /* a parameter's older copy, not bound again here */
            if (ref_val_has(r, v, params[p]) && !ref_val_has(r, v, args[p])) rv_vec_push(r->work.stale, ((ck_ent){li, params[p]}));
    }
    ref_load(ck, r, r->view.ents.data, r->view.ents.len);
    *nstale = stale_out(ck, r, out, max);
    ck->f = f0;
    r->view.block = e->block;
    r->view.inst = f->blocks.data[e->block].first_inst;
    return true;
}

/* What *vregs points to when there are none (a caller may pass it on to
 * memcpy or a loop with a count of 0). */
static const uint32_t no_vregs[1];

uint32_t ck_ref_token_vregs(ravel_checker *ck, uint32_t token, const uint32_t **vregs)
{
    ck_ref *r = ck->ref;
    *vregs = no_vregs;
    if (!r || token >= CK_V_UNKNOWN) return 0;
    if ((token & CK_V_SETBIT) && (token & ~CK_V_SETBIT) >= r->sets.recs.len) return 0; /* (no set of these states) */
    /* (the sets are only added to until the next check resets them: also
     * through ck_ref_steady, and after one that passed a limit) */
    uint32_t n = ref_members(r, token, vregs, &r->view.one);
    while (n && ck_is_token(ck, (*vregs)[n - 1])) n--; /* (tokens, =K, sort after every vreg) */
    return n;
}

uint32_t ck_ref_loc_vregs(ravel_checker *ck, ravel_loc l, const uint32_t **vregs)
{
    ck_ref *r = ck->ref;
    uint32_t li = r && r->view.f ? rv_loc_index(ck->nregs, ck->nslots, l) : CK_NIL;
    *vregs = no_vregs;
    return li == CK_NIL ? 0 : ck_ref_token_vregs(ck, ref_loc(r, li), vregs);
}

uint32_t ck_ref_undef_vregs(ravel_checker *ck, const uint32_t **vregs)
{
    ck_ref *r = ck->ref;
    *vregs = no_vregs;
    if (!r || !r->view.f || !ck->ext.undef) return 0;
    ck_val v = ref_loc(r, ck->ext.uli);
    return v >= CK_V_UNKNOWN ? 0 : ref_members(r, v, vregs, &r->view.one);
}

_Static_assert(CK_TOKEN_UNKNOWN == CK_V_UNKNOWN, "ck_sem.h and ck.h agree on unknown");

uint32_t ck_ref_loc_token(ravel_checker *ck, ravel_loc l)
{
    ck_ref *r = ck->ref;
    uint32_t li = r && r->view.f ? rv_loc_index(ck->nregs, ck->nslots, l) : CK_NIL;
    return li == CK_NIL ? CK_V_UNKNOWN : ref_loc(r, li); /* (interned: one set, one value) */
}

uint32_t ck_ref_token_single(const ravel_checker *ck, uint32_t token)
{
    if (token >= CK_V_UNKNOWN) return CK_TOKEN_UNKNOWN;
    if (token & CK_V_SETBIT) return CK_TOKEN_SET;
    return ck_is_token(ck, token) ? CK_TOKEN_UNKNOWN : token; /* (a singleton is its member) */
}

uint32_t ck_ref_loc_tokens(ravel_checker *ck, uint32_t *out, uint32_t n)
{
    ck_ref *r = ck->ref;
    uint32_t k = r && r->view.f ? (n < ck->nlocs ? n : ck->nlocs) : 0;
    if (k) memcpy(out, r->work.cur, sizeof *out * k);
    for (uint32_t x = k; x < n; x++) out[x] = CK_V_UNKNOWN;
    return k;
}

/* Tests and generators: the locations holding vreg v before instruction
 * inst of f, at the fixpoint of the last check, which must have been the
 * reference's on f (RAVEL_CHECK_REFERENCE). Writes up to max of them;
 * returns how many hold it (0 also when inst is unreached). */
uint32_t ck_ref_holders(ravel_checker *ck, const ravel_func *f, uint32_t inst, uint32_t v, ravel_loc *out, uint32_t max)
{
    ck_ref *r = ck->ref;
    if (v >= f->vregs.len || !ck_ref_seek(ck, f, inst)) return 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->work.touched.len; i++) {
        uint32_t li = r->work.touched.data[i];
        if (li >= ck->nlocs || !ref_val_has(r, r->work.cur[li], v)) continue;
        if (n < max) out[n] = rv_loc_at(ck->nregs, li);
        n++;
    }
    return n;
}
