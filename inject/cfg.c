/* cfg.c - the kinds of control flow and parallel moves (kinds.def, family
 * cfg): a parallel move sequentialised wrongly, an edge's resolution move
 * missing, a spill on one path only, block arguments swapped, a loop's use
 * reading the previous iteration's copy.
 * Edge runs: the edits just before a jump into a join, and those at the
 * start of a block whose single predecessor branches (where allocators
 * put an edge's moves).
 * Requires: the context's analyses (inj.h: c->ok). */
#include "inject/inj.h"

/* The end of the run of consecutive edits starting at i (exclusive). */
static uint32_t run_end(const inj *c, uint32_t i)
{
    const rv_block *b = &c->f->blocks.data[c->blk[i]];
    uint32_t e = i;
    while (e < b->first_inst + b->ninsts && rv_is_edit(IN(c, e))) e++;
    return e;
}

static bool writes_between(const inj *c, uint32_t p, uint32_t q, ravel_loc l) /* an edit in (p, q) writes l */
{
    for (uint32_t w = p + 1; w < q; w++)
        if (IN(c, w)->u.edit.dst == l) return true;
    return false;
}

/* Calls fn(c, a, e, target block) for each edge run [a, e). */
static void edge_runs(inj *c, void (*fn)(inj *, uint32_t, uint32_t, uint32_t))
{
    const ravel_func *f = c->f;
    for (uint32_t b = 0; b < c->nblocks; b++) {
        const rv_block *bb = &f->blocks.data[b];
        if (!bb->ninsts) continue;
        uint32_t t = bb->first_inst + bb->ninsts - 1;
        const rv_inst *T = IN(c, t);
        if (T->op == RAVEL_OP_JUMP && rv_inst_nsuccs(T) == 1 && rv_cfg_npreds(&c->cfg, rv_inst_succs(f, T)[0].block) >= 2) {
            uint32_t a = t;
            while (a > bb->first_inst && rv_is_edit(IN(c, a - 1))) a--;
            if (a < t) fn(c, a, t, rv_inst_succs(f, T)[0].block);
        }
        if (rv_cfg_npreds(&c->cfg, b) == 1 && rv_cfg_nsuccs(&c->cfg, c->cfg.pred[c->cfg.pred_start[b]]) >= 2 &&
            rv_is_edit(IN(c, bb->first_inst)))
            fn(c, bb->first_inst, run_end(c, bb->first_inst), b);
    }
}

/* ---- pmove-cycle (and arg-swap's reorderings) ---- */

/* Sites in the edit run [a, e): cycles (T <- X ... X <- ... ... Y <- T)
 * as preferred sites with b = 1 (i = the save to T, a = the edit reading
 * T), read-before-write pairs (Z <- X ... X <- W) as others with b = 0
 * (i = the read, a = the write). */
static void run_sites(inj *c, uint32_t a, uint32_t e)
{
    for (uint32_t p = a; p < e; p++) {
        const rv_inst *P = IN(c, p);
        ravel_loc T = P->u.edit.dst, X = P->u.edit.src;
        if (T == X) continue;
        for (uint32_t q = p + 1; q < e; q++) {
            const rv_inst *Q = IN(c, q);
            if (Q->u.edit.src == T && Q->u.edit.dst != X && writes_between(c, p, q, X) && !writes_between(c, p, q, T) &&
                rv_edit_kind(Q->u.edit.dst, X) != RAVEL_OP_OTHER)
                inj_add_site(c, true, p, q, 1, 0);
            if (Q->u.edit.dst == X && Q->u.edit.src != X && !writes_between(c, p, q, X)) inj_add_site(c, false, p, q, 0, 0);
        }
    }
}

void inj_pmove_cycle_sites(inj *c)
{
    for (uint32_t i = 0; i < c->ninsts;) {
        if (!rv_is_edit(IN(c, i))) {
            i++;
            continue;
        }
        uint32_t e = run_end(c, i);
        run_sites(c, i, e);
        i = e;
    }
}

void inj_run_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_inst *Q = IN(c, s->a);
    char a[32], b[32], x[32];
    if (s->b == 1)
        snprintf(buf, n, "cycle broken without its temporary %s (%s now read from %s after it was overwritten)",
                 loc_s(c, IN(c, s->i)->u.edit.dst, a), loc_s(c, Q->u.edit.dst, b), loc_s(c, IN(c, s->i)->u.edit.src, x));
    else
        snprintf(buf, n, "%s written before it is read (edits %u and %u reordered)", loc_s(c, Q->u.edit.dst, a), s->i, s->a);
}

/* A cycle: the save to T dropped, X read where T was read. A pair: the
 * write moved before the read. */
void inj_run_edit(inj *c, const inj_site *s)
{
    rv_inst *Q = IN(c, s->a);
    if (s->b == 1) {
        ravel_loc X = IN(c, s->i)->u.edit.src;
        Q->u.edit.src = X;
        Q->op = (uint8_t)rv_edit_kind(Q->u.edit.dst, X);
        rv_inst_remove(c->f, s->i);
    } else {
        rv_inst_move_before(c->f, s->i, s->a);
    }
}

/* ---- edge-move ---- */

static void edge_move_sites(inj *c, uint32_t a, uint32_t e, uint32_t target)
{
    (void)target;
    for (uint32_t i = a; i < e; i++) {
        uint32_t h = H(c, i, IN(c, i)->u.edit.src);
        inj_add_site(c, inj_h_valid(h) && live_after(c, i, h), i, 0, 0, 0);
    }
}

void inj_edge_move_sites(inj *c) { edge_runs(c, edge_move_sites); }

void inj_edge_move_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_inst *in = IN(c, s->i);
    char a[32], b[32];
    snprintf(buf, n, "edge edit %s = %s %s dropped", loc_s(c, in->u.edit.dst, a), rv_opcode_name(in->op),
             loc_s(c, in->u.edit.src, b));
}

/* ---- arg-swap ---- */

/* Into a block with parameters: read-before-write pairs (reordered), or
 * else two edits into locations of one kind (their destinations swapped:
 * b = 2). */
static void arg_swap_sites(inj *c, uint32_t a, uint32_t e, uint32_t target)
{
    if (!c->f->blocks.data[target].nparams) return;
    size_t before = inj_nsites(c);
    for (uint32_t p = a; p < e; p++)
        for (uint32_t q = p + 1; q < e; q++) {
            ravel_loc X = IN(c, p)->u.edit.src;
            if (IN(c, q)->u.edit.dst == X && IN(c, p)->u.edit.dst != X && !writes_between(c, p, q, X))
                inj_add_site(c, true, p, q, 0, 0);
        }
    if (inj_nsites(c) > before) return;
    for (uint32_t p = a; p < e; p++)
        for (uint32_t q = p + 1; q < e; q++) {
            ravel_loc d1 = IN(c, p)->u.edit.dst, d2 = IN(c, q)->u.edit.dst;
            bool same = ravel_loc_is_slot(d1) ? ravel_loc_is_slot(d2)
                                              : ravel_loc_is_reg(d2) && d1 < c->nregs && d2 < c->nregs &&
                                                    reg_of(c, d1)->cls == reg_of(c, d2)->cls;
            if (d1 != d2 && same && IN(c, p)->u.edit.src != IN(c, q)->u.edit.src) inj_add_site(c, false, p, q, 2, 0);
        }
}

void inj_arg_swap_sites(inj *c) { edge_runs(c, arg_swap_sites); }

void inj_arg_swap_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    if (s->b != 2) {
        inj_run_say(c, s, buf, n);
        return;
    }
    char a[32], b[32];
    snprintf(buf, n, "edge edits into %s and %s swapped their destinations", loc_s(c, IN(c, s->i)->u.edit.dst, a),
             loc_s(c, IN(c, s->a)->u.edit.dst, b));
}

void inj_arg_swap_edit(inj *c, const inj_site *s)
{
    if (s->b != 2) {
        inj_run_edit(c, s);
        return;
    }
    rv_inst *P = IN(c, s->i), *Q = IN(c, s->a);
    ravel_loc d = P->u.edit.dst;
    P->u.edit.dst = Q->u.edit.dst;
    Q->u.edit.dst = d;
}

/* ---- spill-one-path ---- */

static void spill_edge_sites(inj *c, uint32_t a, uint32_t e, uint32_t target)
{
    (void)target;
    for (uint32_t i = a; i < e; i++)
        if (IN(c, i)->op == RAVEL_OP_SPILL) inj_add_site(c, false, i, RAVEL_NONE, 0, 0);
}

/* Preferred: a spill before a branch whose register and slot keep the
 * value to the branch, moved into one successor (site a = the successor).
 * Else a spill on an edge run, dropped (a = RAVEL_NONE). */
void inj_spill_one_path_sites(inj *c)
{
    const ravel_func *f = c->f;
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (in->op != RAVEL_OP_SPILL) continue;
        const rv_block *bb = &f->blocks.data[c->blk[i]];
        uint32_t t = bb->first_inst + bb->ninsts - 1, v = H(c, i, in->u.edit.src);
        const rv_inst *T = IN(c, t);
        if (T->op != RAVEL_OP_BR || rv_inst_nsuccs(T) < 2 || !inj_h_valid(v)) continue;
        bool ok = true;
        for (uint32_t k = 0; k < rv_inst_nsuccs(T); k++) ok &= rv_cfg_npreds(&c->cfg, rv_inst_succs(f, T)[k].block) == 1;
        for (uint32_t m = i + 1; ok && m <= t; m++) ok = H(c, m, in->u.edit.src) == v && H(c, m, in->u.edit.dst) == v;
        for (uint32_t k = 0; ok && k < rv_inst_nsuccs(T); k++) inj_add_site(c, true, i, rv_inst_succs(f, T)[k].block, 0, 0);
    }
    if (!c->pref.len) edge_runs(c, spill_edge_sites);
}

void inj_spill_one_path_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_inst *in = IN(c, s->i);
    char a[32], b[32];
    if (s->a == RAVEL_NONE)
        snprintf(buf, n, "spill %s = spill %s on an edge into a join dropped", loc_s(c, in->u.edit.dst, a),
                 loc_s(c, in->u.edit.src, b));
    else
        snprintf(buf, n, "spill %s = spill %s moved into successor %s only", loc_s(c, in->u.edit.dst, a),
                 loc_s(c, in->u.edit.src, b), rv_block_name(c->f, s->a));
}

void inj_spill_one_path_edit(inj *c, const inj_site *s)
{
    if (s->a == RAVEL_NONE) {
        rv_inst_remove(c->f, s->i);
        return;
    }
    ravel_loc dst = IN(c, s->i)->u.edit.dst, src = IN(c, s->i)->u.edit.src;
    uint32_t at = c->f->blocks.data[s->a].first_inst;
    rv_edit_insert(c->f, s->a, at, RAVEL_OP_SPILL, dst, src);
    rv_inst_remove(c->f, at < s->i ? s->i + 1 : s->i);
}

/* ---- stale-loop ---- */

/* May location l serve use operand o (by its constraint)? */
static bool fits(const inj *c, const rv_operand *o, ravel_loc l)
{
    if (ravel_loc_is_slot(l)) return o->kind == RAVEL_C_ANY || o->kind == RAVEL_C_STACK;
    return (o->kind == RAVEL_C_ANY || o->kind == RAVEL_C_REG) && l < c->nregs && !reg_of(c, l)->reserved &&
           reg_of(c, l)->cls == vcls(c, o->vreg);
}

/* Instruction i (in a loop) could read L, which holds a stale copy of v
 * in later iterations only: an edit copying v from elsewhere (site a =
 * RAVEL_NONE), or a use of v that L fits (a = the use's index). */
static void stale_sites_at(inj *c, uint32_t i, ravel_loc L, uint32_t v)
{
    const rv_inst *in = IN(c, i);
    if (rv_is_edit(in)) {
        ravel_loc S = in->u.edit.src;
        if (S != L && H(c, i, S) == v && ravel_loc_is_slot(S) == ravel_loc_is_slot(L) &&
            (ravel_loc_is_slot(L) || (reg_of(c, L)->cls == vcls(c, v) && !reg_of(c, L)->reserved)))
            inj_add_site(c, true, i, RAVEL_NONE, L, 0);
        return;
    }
    for (uint32_t k = 0; k < in->nuses; k++) {
        const rv_operand *o = &OPS(c, i)[in->ndefs + k];
        if (o->vreg == v && o->loc != L && !inj_is_reuse_target(c, i, k) && fits(c, o, L)) inj_add_site(c, true, i, k, L, 0);
    }
}

/* Some reached block is in a loop: else stale-loop has no site (and the
 * steady states are not made). */
static bool has_loop(const inj *c)
{
    for (uint32_t b = 0; b < c->nblocks; b++)
        if (c->cfg.rpo_index[b] != RAVEL_NONE && c->cfg.loop_depth[b]) return true;
    return false;
}

void inj_stale_loop_sites(inj *c)
{
    if (!has_loop(c) || !inj_steady(c)) return;
    for (uint32_t i = 0; i < c->ninsts; i++) {
        uint32_t b = c->blk[i];
        if (c->cfg.rpo_index[b] == RAVEL_NONE || !c->cfg.loop_depth[b]) continue;
        for (uint32_t x = 0; x < c->nlocs; x++) {
            uint32_t h = c->steady[(size_t)i * c->nlocs + x];
            if (!inj_h_stale(h) || inj_hold_cell(c->an->hh, i, x) == (h & ~INJ_H_STALE)) continue;
            stale_sites_at(c, i, rv_loc_at(c->nregs, x), h & ~INJ_H_STALE);
        }
    }
}

void inj_stale_loop_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_inst *in = IN(c, s->i);
    ravel_loc read = s->a == RAVEL_NONE ? in->u.edit.src : OPS(c, s->i)[in->ndefs + s->a].loc;
    char a[32], b[32];
    snprintf(buf, n, "%s reads %s, a copy left from before the redefinition, instead of %s",
             s->a == RAVEL_NONE ? "edit" : "use", loc_s(c, s->b, a), loc_s(c, read, b));
}

void inj_stale_loop_edit(inj *c, const inj_site *s)
{
    rv_inst *in = IN(c, s->i);
    if (s->a == RAVEL_NONE) in->u.edit.src = s->b;
    else OPS(c, s->i)[in->ndefs + s->a].loc = s->b;
}
