/* ck_flow.c - the forward abstract interpretation (FORMAT.md section 6).
 * Transfer of one op, in order: early defs written; early uses checked;
 * stackmap checked, clobbers and the safepoint effect applied; late defs
 * written; late uses checked. Edits copy sets. Branch arguments are a
 * simultaneous substitution on each edge. Block entry states are met
 * (intersection, unknown dominating) in a worklist swept in reverse
 * post-order until nothing changes; the lattice only descends, so
 * entry := entry meet incoming is exact. A replay pass then reports errors.
 * Requires: ck_cfg_build, ck_live. */
#include "ck.h"

#include <string.h>

static bool is_ref(const ravel_checker *ck, uint32_t v) { return ck->f->vregs.data[v].ref; }

/* ---- reads (checked when ck->rep is set) ---- */

static bool read_use(ravel_checker *ck, const ck_site *s, const rv_operand *o)
{
    uint32_t li = ck_li(ck, o->loc);
    if (li == CK_NIL) return false; /* structural error, reported by the rules */
    if (ck_loc_has(ck, li, o->vreg)) return true;
    if (ck->rep) {
        const char *kind = ck->lkind[li] == CK_UNKNOWN ? "use-unknown"
                         : ck->lkind[li] == CK_CONFLICTED ? "use-conflicted"
                         : ck->lhead[li] == CK_NIL ? "use-empty" : "use-wrong-vreg";
        ck_err_value(ck, s, kind, li, o->vreg);
    }
    return false;
}

static void check_stackmap(ravel_checker *ck, ck_site *s, const rv_inst *in)
{
    const ravel_func *f = ck->f;
    for (uint32_t k = 0; k < in->u.smap.n; k++) {
        uint32_t li = ck_li(ck, ravel_slot(f->u32.data[in->u.smap.first + k]));
        if (li == CK_NIL) continue;
        bool ok = false;
        if (ck->lkind[li] == CK_KNOWN)
            for (uint32_t c = ck->lhead[li]; c != CK_NIL && !ok; c = ck->cells.data[c].lnext) ok = is_ref(ck, ck->cells.data[c].vreg);
        if (!ok && ck->rep) {
            s->role = "stackmap";
            s->k = (int32_t)k;
            s->op = NULL;
            s->order = 2 * 65536u + k;
            ck_err_value(ck, s, "stackmap-not-ref", li, CK_NIL);
        }
    }
}

/* ---- effects ---- */

static bool defines_loc(const ravel_func *f, const rv_inst *in, uint32_t reg)
{
    const rv_operand *d = rv_inst_defs(f, in);
    for (uint32_t k = 0; k < in->ndefs; k++)
        if (d[k].loc == reg) return true;
    return false;
}

static void drop_refs_at(ravel_checker *ck, uint32_t li, uint32_t rooted_stamp)
{
    uint32_t c = ck->lhead[li];
    while (c != CK_NIL) {
        uint32_t next = ck->cells.data[c].lnext, v = ck->cells.data[c].vreg;
        if (is_ref(ck, v) && (rooted_stamp == 0 || ck->vst[v] != rooted_stamp)) ck_drop_cell(ck, c);
        c = next;
    }
}

/* gc moving: every unlisted location loses its .ref vregs. gc nonmoving: a
 * .ref vreg held by no listed slot is removed everywhere. */
static void safepoint_effect(ravel_checker *ck, const rv_inst *in)
{
    const ravel_func *f = ck->f;
    uint32_t st = ck_next_stamp(ck);
    uint32_t n = (in->flags & RV_IF_STACKMAP) ? in->u.smap.n : 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t li = ck_li(ck, ravel_slot(f->u32.data[in->u.smap.first + k]));
        if (li != CK_NIL) ck->lst3[li] = st;
    }
    if (!f->mach->gc_nonmoving) {
        for (uint32_t i = 0; i < ck->active.len; i++) {
            uint32_t li = ck->active.data[i];
            if (ck->lst3[li] != st) drop_refs_at(ck, li, 0);
        }
        return;
    }
    for (uint32_t k = 0; k < n; k++) {
        uint32_t li = ck_li(ck, ravel_slot(f->u32.data[in->u.smap.first + k]));
        if (li == CK_NIL || ck->lkind[li] != CK_KNOWN) continue;
        for (uint32_t c = ck->lhead[li]; c != CK_NIL; c = ck->cells.data[c].lnext) ck->vst[ck->cells.data[c].vreg] = st;
    }
    for (uint32_t i = 0; i < ck->active.len; i++) drop_refs_at(ck, ck->active.data[i], st);
}

static void snapshot_src(ravel_checker *ck, uint32_t li)
{
    ck->srcset.len = 0;
    for (uint32_t c = ck->lhead[li]; c != CK_NIL; c = ck->cells.data[c].lnext) rv_vec_push(ck->srcset, ck->cells.data[c].vreg);
}

/* copy d <- u whose read succeeded (source set in ck->srcset): every
 * location holding u also holds d; d's location := source set plus d. */
static void alias_def(ravel_checker *ck, uint32_t d, uint32_t u, uint32_t ld)
{
    ck_kill_vreg(ck, d);
    if (u != d) {
        /* cells are appended while walking u's list: walk by index */
        for (uint32_t c = ck->vhead[u]; c != CK_NIL; c = ck->cells.data[c].vnext) {
            uint32_t li = ck->cells.data[c].li;
            if (li != ld) ck_add_cell(ck, li, d);
        }
    }
    if (ld == CK_NIL) return;
    ck_touch(ck, ld);
    ck_clear_loc(ck, ld);
    ck->lkind[ld] = CK_KNOWN;
    for (uint32_t i = 0; i < ck->srcset.len; i++)
        if (ck->srcset.data[i] != d) ck_add_cell(ck, ld, ck->srcset.data[i]);
    ck_add_cell(ck, ld, d);
}

static void defs_at(ravel_checker *ck, const rv_inst *in, bool late, bool copy_ok)
{
    const rv_operand *d = rv_inst_defs(ck->f, in);
    for (uint32_t k = 0; k < in->ndefs; k++) {
        if (rv_op_is_late(&d[k]) != late) continue;
        if (copy_ok && late) alias_def(ck, d[k].vreg, rv_inst_uses(ck->f, in)[0].vreg, ck_li(ck, d[k].loc));
        else ck_write_def(ck, d[k].vreg, ck_li(ck, d[k].loc));
    }
}

static void uses_at(ravel_checker *ck, ck_site *s, const rv_inst *in, bool late, bool *copy_ok)
{
    const rv_operand *u = rv_inst_uses(ck->f, in);
    for (uint32_t k = 0; k < in->nuses; k++) {
        if (rv_op_is_late(&u[k]) != late) continue;
        s->role = "use";
        s->k = (int32_t)k;
        s->op = &u[k];
        s->order = 65536u + k;
        bool ok = read_use(ck, s, &u[k]);
        if (copy_ok && k == 0 && in->op == RAVEL_OP_COPY && in->ndefs == 1 && ok) {
            *copy_ok = true;
            snapshot_src(ck, ck_li(ck, u[k].loc));
        }
    }
}

static void xfer_op(ravel_checker *ck, ck_site *s, const rv_inst *in)
{
    const ravel_func *f = ck->f;
    bool copy_ok = false;
    defs_at(ck, in, false, false);                 /* 1. early defs */
    uses_at(ck, s, in, false, &copy_ok);           /* 2. early uses */
    if (copy_ok && rv_op_is_early(rv_inst_defs(f, in))) {
        alias_def(ck, rv_inst_defs(f, in)->vreg, rv_inst_uses(f, in)->vreg, ck_li(ck, rv_inst_defs(f, in)->loc));
        copy_ok = false;
    }
    if (!rv_is_term(in)) {                         /* 3. stackmap, clobbers, gc */
        if (in->flags & RV_IF_STACKMAP) check_stackmap(ck, s, in);
        const uint32_t *regs;
        uint32_t n = rv_inst_clobbers(f, in, &regs);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t li = ck_li(ck, regs[k]);
            if (li != CK_NIL && !defines_loc(f, in, regs[k])) ck_set_unknown(ck, li);
        }
        if (in->flags & RV_IF_SAFEPOINT) {
            safepoint_effect(ck, in);
            if (copy_ok) {
                uint32_t w = 0;
                for (uint32_t i = 0; i < ck->srcset.len; i++)
                    if (!is_ref(ck, ck->srcset.data[i])) ck->srcset.data[w++] = ck->srcset.data[i];
                ck->srcset.len = w;
            }
        }
    }
    defs_at(ck, in, true, copy_ok);                /* 4. late defs */
    uses_at(ck, s, in, true, NULL);                /* 5. late uses */
}

static void xfer(ravel_checker *ck, ck_site *s, const rv_inst *in)
{
    if (rv_is_edit(in)) {
        uint32_t dst = ck_li(ck, in->u.edit.dst), src = ck_li(ck, in->u.edit.src);
        if (dst == CK_NIL) return;
        if (src == CK_NIL) {
            ck_touch(ck, dst);
            ck_set_unknown(ck, dst);
        } else {
            ck_copy_loc(ck, dst, src);
        }
        return;
    }
    xfer_op(ck, s, in);
}

/* Runs block b from its stored entry state through every instruction; the
 * dense state then holds the exit state (caller resets it). */
void ck_run_block(ravel_checker *ck, uint32_t b)
{
    const rv_block *bl = &ck->f->blocks.data[b];
    ck_load(ck, b);
    for (uint32_t i = 0; i < bl->ninsts; i++) {
        uint32_t ii = bl->first_inst + i;
        ck_site s = {b, ii, NULL, -1, NULL, 0};
        if (ck->dumping) ck_dump_state(ck, ii);
        xfer(ck, &s, rv_inst_at(ck->f, ii));
    }
    if (ck->dumping) ck_dump_state(ck, CK_NIL);
}

/* ---- edges ---- */

/* Marks the parameters of edge e's target (vst = pst) and chains each
 * argument to the parameters it feeds (vst2 = ast, vaux = first index,
 * ck->setbuf2 = next index). */
static void edge_prepare(ravel_checker *ck, const rv_succ *e, uint32_t *pst, uint32_t *ast)
{
    const ravel_func *f = ck->f;
    const rv_block *t = &f->blocks.data[e->block];
    const uint32_t *params = rv_block_params(f, t), *args = rv_succ_args(f, e);
    *pst = ck_next_stamp(ck);
    *ast = ck_next_stamp(ck);
    ck->setbuf2.len = 0;
    rv_vec_reserve(ck->setbuf2, t->nparams);
    for (uint32_t i = 0; i < t->nparams; i++) ck->vst[params[i]] = *pst;
    for (uint32_t i = 0; i < t->nparams; i++) {
        uint32_t a = args[i];
        ck->setbuf2.data[i] = ck->vst2[a] == *ast ? ck->vaux[a] : CK_NIL;
        ck->vst2[a] = *ast;
        ck->vaux[a] = i;
    }
}

/* The value that location li carries along edge e (after substitution). */
static ck_val edge_val(ravel_checker *ck, const rv_succ *e, uint32_t li, uint32_t pst, uint32_t ast, bool *unknown)
{
    *unknown = ck->lkind[li] == CK_UNKNOWN;
    if (*unknown) return CK_V_EMPTY;
    if (ck->lkind[li] == CK_CONFLICTED) return CK_V_CONFLICT;
    const ravel_func *f = ck->f;
    if (f->blocks.data[e->block].nparams == 0) return ck_read_val(ck, li, unknown);
    const uint32_t *params = rv_block_params(f, &f->blocks.data[e->block]);
    ck->setbuf.len = 0;
    for (uint32_t c = ck->lhead[li]; c != CK_NIL; c = ck->cells.data[c].lnext) {
        uint32_t v = ck->cells.data[c].vreg;
        if (ck->vst[v] != pst) rv_vec_push(ck->setbuf, v);
        if (ck->vst2[v] == ast)
            for (uint32_t p = ck->vaux[v]; p != CK_NIL; p = ck->setbuf2.data[p]) rv_vec_push(ck->setbuf, params[p]);
    }
    uint32_t n = ck->setbuf.len, w = 0;
    ck_sort_u32(ck->setbuf.data, n);
    for (uint32_t i = 0; i < n; i++)
        if (!w || ck->setbuf.data[w - 1] != ck->setbuf.data[i]) ck->setbuf.data[w++] = ck->setbuf.data[i];
    return ck_set_intern(&ck->sets, ck->setbuf.data, w);
}

ck_val ck_edge_val_at(ravel_checker *ck, const rv_succ *e, uint32_t li, bool *unknown)
{
    uint32_t pst, ast;
    edge_prepare(ck, e, &pst, &ast);
    return edge_val(ck, e, li, pst, ast, unknown);
}

/* Meets the edge state in ck->edge into block t's entry; true if changed. */
static bool meet_into(ravel_checker *ck, uint32_t t)
{
    ck_bstate *bs = &ck->bst.data[t];
    if (!bs->reached) {
        bs->reached = true;
        bs->start = ck->epool.len;
        bs->len = bs->cap = ck->edge.len;
        rv_vec_reserve(ck->epool, ck->edge.len);
        if (ck->edge.len) memcpy(ck->epool.data + ck->epool.len, ck->edge.data, ck->edge.len * sizeof(ck_ent));
        ck->epool.len += ck->edge.len;
        return true;
    }
    ck_ent *e = ck->epool.data + bs->start;
    const ck_ent *in = ck->edge.data;
    uint32_t w = 0, j = 0, n = ck->edge.len;
    bool changed = false;
    for (uint32_t i = 0; i < bs->len; i++) {
        while (j < n && in[j].li < e[i].li) j++;
        if (j == n || in[j].li != e[i].li) { /* unknown on this edge */
            changed = true;
            continue;
        }
        ck_val m = ck_val_meet(&ck->sets, e[i].val, in[j].val, &ck->setbuf);
        if (m != e[i].val) changed = true;
        e[w].li = e[i].li;
        e[w++].val = m;
    }
    bs->len = w;
    return changed;
}

static void propagate(ravel_checker *ck, uint32_t b)
{
    const ravel_func *f = ck->f;
    const rv_inst *t = rv_block_term(f, &f->blocks.data[b]);
    for (uint32_t k = 0; k < rv_inst_nsuccs(t); k++) {
        const rv_succ *e = &rv_inst_succs(f, t)[k];
        uint32_t pst, ast;
        edge_prepare(ck, e, &pst, &ast);
        ck_list live = ck->live_in.data[e->block];
        ck->edge.len = 0;
        rv_vec_reserve(ck->edge, live.len);
        for (uint32_t i = 0; i < live.len; i++) {
            uint32_t li = ck->lpool.data[live.start + i];
            bool unk;
            ck_val v = edge_val(ck, e, li, pst, ast, &unk);
            if (!unk) ck->edge.data[ck->edge.len++] = (ck_ent){li, v};
        }
        if (meet_into(ck, e->block)) ck->dirty.data[e->block] = 1;
    }
}

/* Fixpoint, then the replay that collects value errors into ck->rep. */
void ck_flow(ravel_checker *ck)
{
    uint32_t n = ck->nblocks;
    ck_sets_reset(&ck->sets);
    ck->epool.len = 0;
    rv_vec_reserve(ck->bst, n);
    ck->bst.len = n;
    for (uint32_t b = 0; b < n; b++) {
        ck->bst.data[b] = (ck_bstate){0, 0, 0, false};
        ck->dirty.data[b] = 0;
    }
    if (!ck->rpo.len) return;
    ck->bst.data[0].reached = true; /* entry: every location unknown */
    ck->dirty.data[0] = 1;
    ravel_report *rep = ck->rep;
    ck->rep = NULL;
    bool progress = true;
    while (progress) {
        progress = false;
        for (uint32_t i = 0; i < ck->rpo.len; i++) {
            uint32_t b = ck->rpo.data[i];
            if (!ck->dirty.data[b]) continue;
            ck->dirty.data[b] = 0;
            progress = true;
            ck_run_block(ck, b);
            propagate(ck, b);
            ck_reset_state(ck);
        }
    }
    ck->rep = rep;
    if (!rep) return;
    for (uint32_t i = 0; i < ck->rpo.len; i++) {
        ck_run_block(ck, ck->rpo.data[i]);
        ck_reset_state(ck);
    }
}
