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
    ck_val val = ck_get(ck, li);
    if (ck_val_has(&ck->sets, val, o->vreg)) return true;
    if (ck->rep) {
        const char *kind = val == CK_V_UNKNOWN ? "use-unknown"
                         : val == CK_V_CONFLICT ? "use-conflicted"
                         : val == CK_V_EMPTY ? "use-empty" : "use-wrong-vreg";
        ck_err_value(ck, s, kind, li, o->vreg);
    }
    return false;
}

static bool holds_ref(const ravel_checker *ck, ck_val val)
{
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ck_val_members(&ck->sets, val, &m, &one);
    for (uint32_t i = 0; i < n; i++)
        if (is_ref(ck, m[i])) return true;
    return false;
}

static void check_stackmap(ravel_checker *ck, ck_site *s, const rv_inst *in)
{
    const ravel_func *f = ck->f;
    for (uint32_t k = 0; k < in->u.smap.n; k++) {
        uint32_t li = ck_li(ck, ravel_slot(f->u32.data[in->u.smap.first + k]));
        if (li == CK_NIL || holds_ref(ck, ck_get(ck, li)) || !ck->rep) continue;
        s->role = "stackmap";
        s->k = (int32_t)k;
        s->op = NULL;
        s->order = 2 * 65536u + k;
        ck_err_value(ck, s, "stackmap-not-ref", li, CK_NIL);
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

/* gc moving: every unlisted location loses its .ref vregs. gc nonmoving: a
 * .ref vreg held by no listed slot is removed everywhere. Scans only the
 * locations this visit has loaded or written. */
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
            if (ck->lst3[li] != st) ck_drop_refs(ck, li, 0);
        }
        return;
    }
    for (uint32_t k = 0; k < n; k++) {
        uint32_t li = ck_li(ck, ravel_slot(f->u32.data[in->u.smap.first + k]));
        if (li == CK_NIL) continue;
        uint32_t one;
        const uint32_t *m;
        uint32_t nm = ck_val_members(&ck->sets, ck_get(ck, li), &m, &one);
        for (uint32_t i = 0; i < nm; i++) ck->vst[m[i]] = st;
    }
    for (uint32_t i = 0; i < ck->active.len; i++) ck_drop_refs(ck, ck->active.data[i], st);
}

static void snapshot_src(ravel_checker *ck, uint32_t li)
{
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ck_val_members(&ck->sets, ck_get(ck, li), &m, &one);
    ck->srcset.len = 0;
    for (uint32_t i = 0; i < n; i++) rv_vec_push(ck->srcset, m[i]);
}

/* copy d <- u whose read succeeded (source set in ck->srcset): every
 * location holding u also holds d; d's location := source set plus d. */
static void alias_def(ravel_checker *ck, uint32_t d, uint32_t u, uint32_t ld)
{
    ck_kill_vreg(ck, d);
    ck_alias(ck, d, u);
    if (ld == CK_NIL) return;
    uint32_t w = 0;
    bool has_d = false;
    for (uint32_t i = 0; i < ck->srcset.len; i++) has_d |= ck->srcset.data[i] == d;
    ck->setbuf2.len = 0;
    rv_vec_reserve(ck->setbuf2, ck->srcset.len + 1);
    for (uint32_t i = 0; i < ck->srcset.len; i++) ck->setbuf2.data[w++] = ck->srcset.data[i];
    if (!has_d) ck->setbuf2.data[w++] = d;
    ck_sort_u32(ck->setbuf2.data, w);
    ck_set(ck, ld, ck_set_intern(&ck->sets, ck->setbuf2.data, w));
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
            if (li != CK_NIL && !defines_loc(f, in, regs[k])) ck_set(ck, li, CK_V_UNKNOWN);
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
        if (src == CK_NIL) ck_set(ck, dst, CK_V_UNKNOWN);
        else ck_copy_loc(ck, dst, src);
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

/* The value that location li carries along edge e (after substitution):
 * CK_V_UNKNOWN when unknown. */
static ck_val edge_val(ravel_checker *ck, const rv_succ *e, uint32_t li, uint32_t pst, uint32_t ast)
{
    ck_val val = ck_get(ck, li);
    if (val >= CK_V_UNKNOWN || !e->nargs) return val;
    if (!(val & CK_V_SETBIT) && ck->vst[val] != pst && ck->vst2[val] != ast) return val; /* untouched singleton */
    const ravel_func *f = ck->f;
    const uint32_t *params = rv_block_params(f, &f->blocks.data[e->block]);
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ck_val_members(&ck->sets, val, &m, &one);
    ck->setbuf.len = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = m[i];
        if (ck->vst[v] != pst) rv_vec_push(ck->setbuf, v);
        if (ck->vst2[v] == ast)
            for (uint32_t p = ck->vaux[v]; p != CK_NIL; p = ck->setbuf2.data[p]) rv_vec_push(ck->setbuf, params[p]);
    }
    uint32_t w = 0;
    n = ck->setbuf.len;
    ck_sort_u32(ck->setbuf.data, n);
    for (uint32_t i = 0; i < n; i++)
        if (!w || ck->setbuf.data[w - 1] != ck->setbuf.data[i]) ck->setbuf.data[w++] = ck->setbuf.data[i];
    return ck_set_intern(&ck->sets, ck->setbuf.data, w);
}

ck_val ck_edge_val_at(ravel_checker *ck, const rv_succ *e, uint32_t li, bool *unknown)
{
    uint32_t pst, ast;
    edge_prepare(ck, e, &pst, &ast);
    ck_val v = edge_val(ck, e, li, pst, ast);
    *unknown = v == CK_V_UNKNOWN;
    return v;
}

/* First time t is reached: its entry state is the edge state over t's
 * live-in locations. */
static void first_reach(ravel_checker *ck, const rv_succ *e, uint32_t pst, uint32_t ast)
{
    ck_bstate *bs = &ck->bst.data[e->block];
    ck_list live = ck->live_in.data[e->block];
    rv_vec_reserve(ck->epool, live.len);
    bs->reached = true;
    bs->start = ck->epool.len;
    for (uint32_t i = 0; i < live.len; i++) {
        uint32_t li = ck->lpool.data[live.start + i];
        ck_val v = edge_val(ck, e, li, pst, ast);
        if (v != CK_V_UNKNOWN) ck->epool.data[ck->epool.len++] = (ck_ent){li, v};
    }
    bs->len = bs->cap = ck->epool.len - bs->start;
}

/* entry(t) := entry(t) meet edge state, in place (the lattice only
 * descends, so entries only disappear or shrink); true if changed. */
static bool meet_edge(ravel_checker *ck, const rv_succ *e, uint32_t pst, uint32_t ast)
{
    ck_bstate *bs = &ck->bst.data[e->block];
    uint32_t w = 0;
    bool changed = false;
    for (uint32_t i = 0; i < bs->len; i++) {
        ck_ent x = ck->epool.data[bs->start + i];
        ck_val v = edge_val(ck, e, x.li, pst, ast);
        if (v == CK_V_UNKNOWN) { /* unknown on this edge */
            changed = true;
            continue;
        }
        ck_val m = ck_val_meet(&ck->sets, x.val, v, &ck->setbuf);
        changed |= m != x.val;
        ck->epool.data[bs->start + w++] = (ck_ent){x.li, m};
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
        if (!ck->bst.data[e->block].reached) {
            first_reach(ck, e, pst, ast);
            ck->dirty.data[e->block] = 1;
        } else if (meet_edge(ck, e, pst, ast)) {
            ck->dirty.data[e->block] = 1;
        }
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
