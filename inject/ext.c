/* ext.c - the kinds of the format's section 14 (kinds.def, family ext):
 * a write to a register contained in one that holds a live value, a spill
 * or reload through a narrower register, a remat of the wrong constant, a
 * remat of a value that is a constant on some paths only, and a use that
 * relies on a value being undefined when it is so on some paths only.
 *
 * Requires: the context's analyses (inj.h: c->ok; the hold analysis).
 * Their sites also read what the hold analysis does not show, per vreg
 * before every instruction (a forward analysis of this file, over the
 * function's reachable blocks, docs/format.md sections 14.2-14.4):
 *   must-constant  the vreg is the constant K on every path (C of 14.4);
 *   may-constant   the only constant it can be on some path, or none/many;
 *   must-undef     it is undefined on every path (U of 14.2);
 *   may-undef      it is undefined on some path.
 * (A copy passes all four on, in place or not: the copies of section 14.1
 * that move no bit do not change what these sites need.) A site is only
 * offered where the edit makes a use read a wrong value on some path: the
 * use reads the register written (or not written) next in the block, its
 * value not undefined there; undef-join prefers a register holding another
 * value.
 */
#include "inject/inj.h"

#include <string.h>

/* ---- the per-vreg analysis ---- */

enum { XC_NONE = 0, XC_K = 1, XC_MANY = 2 };

typedef struct xcell {
    uint8_t must; /* XC_NONE (not a constant on every path) or XC_K */
    uint8_t may;  /* XC_NONE, XC_K (pk is the one constant it is on some path) or XC_MANY */
    uint8_t mu, pu; /* must-undef, may-undef */
    int64_t mk, pk; /* the constants of must and may */
} xcell;

static const xcell x_plain = {0};

static void x_meet(xcell *a, const xcell *b)
{
    if (!(a->must == XC_K && b->must == XC_K && a->mk == b->mk)) a->must = XC_NONE, a->mk = 0;
    if (a->may == XC_NONE) a->may = b->may, a->pk = b->pk;
    else if (b->may == XC_MANY || (b->may == XC_K && b->pk != a->pk)) a->may = XC_MANY, a->pk = 0;
    a->mu = a->mu && b->mu;
    a->pu = a->pu || b->pu;
}

static bool x_eq(const xcell *a, const xcell *b)
{
    return a->must == b->must && a->may == b->may && a->mu == b->mu && a->pu == b->pu && a->mk == b->mk && a->pk == b->pk;
}

/* Instruction in applied to the cells s (one per vreg). */
static void x_step(const inj *c, const rv_inst *in, xcell *s)
{
    if (rv_is_edit(in) || !in->ndefs) return;
    const ravel_func *f = c->f;
    const rv_operand *o = rv_ops_of(f, in);
    uint32_t nv = f->vregs.len;
    xcell src = x_plain;
    if (in->op == RAVEL_OP_COPY && in->nuses >= 1 && o[in->ndefs].vreg < nv) src = s[o[in->ndefs].vreg];
    for (uint32_t k = 0; k < in->ndefs; k++) {
        uint32_t d = o[k].vreg;
        if (d >= nv) continue;
        xcell x = x_plain;
        if (in->op == RAVEL_OP_UNDEF) x.mu = x.pu = 1;
        else if (in->op == RAVEL_OP_COPY && k == 0) x = src;
        else if (in->op == RAVEL_OP_CONST && in->nimms == 1 && !in->nuses) {
            x.must = x.may = XC_K;
            x.mk = x.pk = f->imms.data[in->first_imm].value;
        }
        if (is_ref(c, d)) x.must = x.may = XC_NONE, x.mk = x.pk = 0; /* (never constants) */
        s[d] = x;
    }
}

/* The walk's state. Only the vregs whose cells can ever differ from
 * x_plain are carried (the "tracked" ones: the defs of constants and
 * undefs, closed under a copy's def of a tracked source and a parameter
 * bound to a tracked argument); every other cell is x_plain everywhere,
 * so it needs no storage, meet or comparison. in and args are per
 * tracked vreg (k: vreg iv[k]); cur is per vreg, for the visits. With
 * c->an->plain every vreg is tracked (tests compare the two). */
typedef struct xflow {
    xcell *in;      /* nblocks x nt: at the entry of every block */
    uint8_t *reach; /* the block was reached */
    xcell *cur, *args;
    uint32_t nv, nt;
    uint32_t *iv;     /* the tracked vregs, nt of them */
    uint8_t *tracked; /* per vreg */
} xflow;

static bool x_track(xflow *x, uint32_t v)
{
    if (v >= x->nv || x->tracked[v]) return false;
    x->tracked[v] = 1;
    return true;
}

/* Tracks the parameters that the edges out of terminator in bind to a
 * tracked argument; true if one was added. */
static bool x_track_params(const inj *c, xflow *x, const rv_inst *in)
{
    const ravel_func *f = c->f;
    bool grew = false;
    for (uint32_t k = 0; k < rv_inst_nsuccs(in); k++) {
        const rv_succ *sc = &rv_inst_succs(f, in)[k];
        if (sc->block >= f->blocks.len) continue;
        const rv_block *t = &f->blocks.data[sc->block];
        const uint32_t *args = rv_args_of(f, sc), *params = rv_params_of(f, t);
        for (uint32_t q = 0; q < sc->nargs && q < t->nparams; q++)
            if (args[q] < x->nv && x->tracked[args[q]]) grew |= x_track(x, params[q]);
    }
    return grew;
}

/* The tracked vregs (above), in vreg order, into x->iv (all: every vreg). */
static void x_tracked(const inj *c, xflow *x, bool all)
{
    const ravel_func *f = c->f;
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (!rv_is_edit(in) && (in->op == RAVEL_OP_UNDEF || in->op == RAVEL_OP_CONST))
            for (uint32_t k = 0; k < in->ndefs; k++) x_track(x, rv_ops_of(f, in)[k].vreg);
    }
    for (bool grew = true; grew;) {
        grew = false;
        for (uint32_t i = 0; i < c->ninsts; i++) {
            const rv_inst *in = IN(c, i);
            if (rv_is_edit(in)) continue;
            const rv_operand *o = rv_ops_of(f, in);
            if (in->op == RAVEL_OP_COPY && in->ndefs && in->nuses >= 1 && o[in->ndefs].vreg < x->nv && x->tracked[o[in->ndefs].vreg])
                grew |= x_track(x, o[0].vreg);
            if (rv_is_term(in)) grew |= x_track_params(c, x, in);
        }
    }
    for (uint32_t v = 0; v < x->nv; v++)
        if (all || x->tracked[v]) x->iv[x->nt++] = v;
}

/* Edge sc from state s into the target's entry; true if it changed. */
static bool x_edge(const inj *c, xflow *x, const rv_succ *sc, const xcell *s)
{
    const ravel_func *f = c->f;
    const rv_block *t = &f->blocks.data[sc->block];
    const uint32_t *args = rv_args_of(f, sc), *params = rv_params_of(f, t);
    uint32_t n = sc->nargs < t->nparams ? sc->nargs : t->nparams;
    for (uint32_t k = 0; k < x->nt; k++) x->args[k] = s[x->iv[k]];
    for (uint32_t k = 0; k < n; k++) /* (a parameter is tracked if an argument bound to it is) */
        for (uint32_t q = 0; params[k] < x->nv && q < x->nt; q++)
            if (x->iv[q] == params[k]) x->args[q] = args[k] < x->nv ? s[args[k]] : x_plain;
    xcell *in = x->in + (size_t)sc->block * x->nt;
    bool changed = false;
    for (uint32_t v = 0; v < x->nt; v++) {
        xcell m = x->args[v];
        if (x->reach[sc->block]) {
            m = in[v];
            x_meet(&m, &x->args[v]);
        }
        changed |= !x_eq(&m, &in[v]);
        in[v] = m;
    }
    changed |= !x->reach[sc->block];
    x->reach[sc->block] = 1;
    return changed;
}

/* cur := the entry cells of block b (the untracked ones stay x_plain). */
static void x_enter(xflow *x, uint32_t b)
{
    for (uint32_t k = 0; k < x->nt; k++) x->cur[x->iv[k]] = x->in[(size_t)b * x->nt + k];
}

static bool x_pass(const inj *c, xflow *x)
{
    const ravel_func *f = c->f;
    bool changed = false;
    for (uint32_t r = 0; r < c->cfg.nrpo; r++) {
        uint32_t b = c->cfg.rpo[r];
        if (!x->reach[b]) continue;
        const rv_block *bl = &f->blocks.data[b];
        x_enter(x, b);
        for (uint32_t i = bl->first_inst; i < bl->first_inst + bl->ninsts; i++) x_step(c, IN(c, i), x->cur);
        const rv_inst *t = rv_block_term(f, bl);
        for (uint32_t k = 0; t && k < rv_inst_nsuccs(t); k++) {
            const rv_succ *sc = &rv_inst_succs(f, t)[k];
            if (sc->block < c->nblocks) changed |= x_edge(c, x, sc, x->cur);
        }
    }
    return changed;
}

typedef void (*x_visit)(inj *c, uint32_t i, const xcell *s);

static void x_free(xflow *x)
{
    rv_free(x->in);
    rv_free(x->reach);
    rv_free(x->cur);
    rv_free(x->args);
    rv_free(x->iv);
    rv_free(x->tracked);
}

/* Runs the analysis, then calls visit before every instruction of every
 * reached block with the cells there (nothing if the function is too big). */
static void x_walk(inj *c, x_visit visit)
{
    xflow x = {.nv = c->f->vregs.len};
    if (!c->nblocks || !x.nv || (size_t)c->nblocks * x.nv > ((size_t)1 << 22)) return;
    x.iv = rv_xmalloc(sizeof *x.iv * x.nv);
    x.tracked = rv_xcalloc(x.nv, 1);
    x_tracked(c, &x, c->an->plain);
    x.in = rv_xcalloc((size_t)c->nblocks * x.nt + 1, sizeof *x.in);
    x.reach = rv_xcalloc(c->nblocks, 1);
    x.cur = rv_xcalloc(x.nv, sizeof *x.cur);
    x.args = rv_xcalloc(x.nt + 1, sizeof *x.args);
    x.reach[0] = 1;
    for (unsigned pass = 0; pass < 64 && x_pass(c, &x); pass++) {}
    for (uint32_t b = 0; b < c->nblocks; b++) {
        if (!x.reach[b]) continue;
        const rv_block *bl = &c->f->blocks.data[b];
        x_enter(&x, b);
        for (uint32_t i = bl->first_inst; i < bl->first_inst + bl->ninsts; i++) {
            visit(c, i, x.cur);
            x_step(c, IN(c, i), x.cur);
        }
    }
    x_free(&x);
}

/* ---- shared helpers ---- */

/* Some register of the machine contains others (section 14.1): else
 * subreg-write and narrow-spill have no site, and neither the walk nor
 * the hold analysis is run for them. */
static bool has_contained(const inj *c)
{
    const uint32_t *list;
    for (uint32_t r = 0; r < c->nregs; r++)
        if (rv_mach_contained(c->m, r, &list)) return true;
    return false;
}

/* The function has an instruction of opcode op: a constant (must- and
 * may-constant cells come only from one) or an undef (must- and
 * may-undef): else the kinds that need them have no site. */
static bool has_op(const inj *c, ravel_opcode op)
{
    for (uint32_t i = 0; i < c->ninsts; i++)
        if (IN(c, i)->op == op) return true;
    return false;
}

/* Instruction j writes register r or a register overlapping it. */
static bool writes_over(const inj *c, uint32_t j, ravel_loc r)
{
    const rv_inst *in = IN(c, j);
    const uint32_t *ov;
    uint32_t n = rv_mach_overlaps(c->m, r, &ov);
    for (uint32_t k = 0; k <= n; k++) {
        ravel_loc x = k < n ? ov[k] : r;
        if (rv_is_edit(in) ? in->u.edit.dst == x : defines_loc(c, j, x) || inj_clobbers(c, j, x)) return true;
    }
    return false;
}

/* The vreg the first use reading register r from instruction j on (in j's
 * block) expects there, or INJ_H_UNK if r is written first or not read
 * (an edit copying r does not count: its copy may be dead). */
static uint32_t next_read(const inj *c, uint32_t j, ravel_loc r)
{
    for (uint32_t b = j < c->ninsts ? c->blk[j] : 0; j < c->ninsts && c->blk[j] == b; j++) {
        const rv_inst *in = IN(c, j);
        for (uint32_t k = 0; !rv_is_edit(in) && k < in->nuses; k++)
            if (OPS(c, j)[in->ndefs + k].loc == r) return OPS(c, j)[in->ndefs + k].vreg;
        if (writes_over(c, j, r)) return INJ_H_UNK;
    }
    return INJ_H_UNK;
}

/* Slot l is reloaded (in j's block, from j on, before it is written) into
 * a register whose next use reads v. */
static bool slot_reloaded(const inj *c, uint32_t j, ravel_loc l, uint32_t v)
{
    for (uint32_t b = j < c->ninsts ? c->blk[j] : 0; j < c->ninsts && c->blk[j] == b; j++) {
        const rv_inst *in = IN(c, j);
        if (in->op == RAVEL_OP_RELOAD && in->u.edit.src == l && next_read(c, j + 1, in->u.edit.dst) == v) return true;
        if (rv_is_edit(in) ? in->u.edit.dst == l : defines_loc(c, j, l)) return false;
    }
    return false;
}

/* The vreg a reload at i brings, if it is read from its register next. */
static uint32_t reload_value(const inj *c, uint32_t i)
{
    const rv_inst *in = IN(c, i);
    if (in->op != RAVEL_OP_RELOAD || in->u.edit.dst >= c->nregs) return INJ_H_UNK;
    uint32_t v = H(c, i, in->u.edit.src);
    return inj_h_valid(v) ? v : INJ_H_UNK;
}

/* ---- subreg-write ---- */

/* Site a = the contained register written, b = its container read at i. */
static void subreg_visit(inj *c, uint32_t i, const xcell *s)
{
    const rv_inst *in = IN(c, i);
    if (rv_is_edit(in)) return;
    for (uint32_t k = 0; k < in->nuses; k++) {
        const rv_operand *o = &OPS(c, i)[in->ndefs + k];
        const uint32_t *list;
        uint32_t n = o->loc < c->nregs ? rv_mach_contained(c->m, o->loc, &list) : 0; /* (before the hold analysis: cheaper) */
        if (!n || o->vreg >= c->f->vregs.len || s[o->vreg].mu || H(c, i, o->loc) != o->vreg) continue;
        for (uint32_t q = 0; q < n; q++) inj_add_site(c, true, i, list[q], o->loc, 0);
    }
}

void inj_subreg_write_sites(inj *c)
{
    if (has_contained(c)) x_walk(c, subreg_visit);
}

void inj_subreg_write_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    char a[32], b[32];
    const char *x = loc_s(c, s->a, a), *y = loc_s(c, s->b, b);
    uint32_t h = H(c, s->i, s->b);
    snprintf(buf, n, "%s = move %s inserted: %s is written while %s holds v%u, read here", x, y, x, y,
             inj_h_valid(h) ? vnum(c, h) : 0);
}

void inj_subreg_write_edit(inj *c, const inj_site *s) { rv_edit_insert(c->f, c->blk[s->i], s->i, RAVEL_OP_MOVE, s->a, s->b); }

/* ---- narrow-spill ---- */

/* Site a = 0 (a spill's source) or 1 (a reload's destination), b = the
 * narrower register it names instead. */
static void narrow_visit(inj *c, uint32_t i, const xcell *s)
{
    (void)s;
    const rv_inst *in = IN(c, i);
    bool spill = in->op == RAVEL_OP_SPILL;
    if (!spill && in->op != RAVEL_OP_RELOAD) return;
    ravel_loc R = spill ? in->u.edit.src : in->u.edit.dst;
    if (R >= c->nregs) return;
    uint32_t h = spill ? H(c, i, R) : reload_value(c, i);
    if (!inj_h_valid(h) || (spill ? !slot_reloaded(c, i + 1, in->u.edit.dst, h) : next_read(c, i + 1, R) != h)) return;
    const uint32_t *list;
    uint32_t n = rv_mach_contained(c->m, R, &list);
    for (uint32_t q = 0; q < n; q++) inj_add_site(c, true, i, !spill, list[q], 0);
}

void inj_narrow_spill_sites(inj *c)
{
    if (has_contained(c)) x_walk(c, narrow_visit);
}

void inj_narrow_spill_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_inst *in = IN(c, s->i);
    char a[32], b[32], d[32];
    snprintf(buf, n, "%s = %s %s through the narrower %s", loc_s(c, in->u.edit.dst, a), rv_opcode_name(in->op),
             loc_s(c, in->u.edit.src, b), loc_s(c, s->b, d));
}

void inj_narrow_spill_edit(inj *c, const inj_site *s)
{
    rv_inst *in = IN(c, s->i);
    if (s->a) in->u.edit.dst = s->b;
    else in->u.edit.src = s->b;
}

/* ---- remat-wrong-const, remat-one-path ---- */

static int64_t site_k(const inj_site *s) { return (int64_t)(((uint64_t)s->b << 32) | s->a); }

/* Another constant of the function than k (the first one), else k + 1. */
static int64_t other_key(const inj *c, int64_t k)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (in->op == RAVEL_OP_CONST && in->nimms == 1 && c->f->imms.data[in->first_imm].value != k)
            return c->f->imms.data[in->first_imm].value;
    }
    return (int64_t)((uint64_t)k + 1);
}

static void remat_site(inj *c, uint32_t i, int64_t k, uint32_t v)
{
    uint64_t u = (uint64_t)k;
    if (next_read(c, i + 1, IN(c, i)->u.edit.dst) == v) inj_add_site(c, true, i, (uint32_t)u, (uint32_t)(u >> 32), v);
}

/* A reload of a value that is the constant K on every path: remat K' != K. */
static void wrong_visit(inj *c, uint32_t i, const xcell *s)
{
    uint32_t v = reload_value(c, i);
    if (v != INJ_H_UNK && s[v].must == XC_K) remat_site(c, i, other_key(c, s[v].mk), v);
}

/* A reload of a value that is K on some paths only: remat K. */
static void onepath_visit(inj *c, uint32_t i, const xcell *s)
{
    uint32_t v = reload_value(c, i);
    if (v != INJ_H_UNK && s[v].must != XC_K && s[v].may == XC_K) remat_site(c, i, s[v].pk, v);
}

void inj_remat_wrong_sites(inj *c)
{
    if (has_op(c, RAVEL_OP_CONST)) x_walk(c, wrong_visit);
}

void inj_remat_one_path_sites(inj *c)
{
    if (has_op(c, RAVEL_OP_CONST)) x_walk(c, onepath_visit);
}

void inj_remat_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_inst *in = IN(c, s->i);
    char a[32], b[32];
    const char *d = loc_s(c, in->u.edit.dst, a);
    snprintf(buf, n, "%s = reload %s (v%u) replaced by %s = remat %lld", d, loc_s(c, in->u.edit.src, b), vnum(c, s->c), d,
             (long long)site_k(s));
}

void inj_remat_edit(inj *c, const inj_site *s)
{
    rv_imm im = {site_k(s), 0};
    rv_vec_push(c->f->imms, im);
    rv_inst *in = IN(c, s->i);
    in->op = RAVEL_OP_REMAT;
    in->u.edit.src = RAVEL_LOC_NONE;
    in->first_imm = c->f->imms.len - 1;
    in->nimms = 1;
}

/* ---- undef-join ---- */

/* Site a = the operand index of a use of a vreg undefined on some paths
 * only, b = a register of its class that does not hold it. */
static void undef_join_visit(inj *c, uint32_t i, const xcell *s)
{
    const rv_inst *in = IN(c, i);
    if (rv_is_edit(in)) return;
    for (uint32_t k = 0; k < in->nuses; k++) {
        const rv_operand *o = &OPS(c, i)[in->ndefs + k];
        if (o->vreg >= c->f->vregs.len || !s[o->vreg].pu || s[o->vreg].mu || !inj_free_use(c, i, k)) continue;
        if (!ravel_loc_is_reg(o->loc) || o->loc >= c->nregs) continue;
        const rv_class *cl = cls_of(c, vcls(c, o->vreg));
        for (uint32_t r = 0; r < cl->alloc.len; r++) {
            uint32_t R = cl->alloc.data[r], h = H(c, i, R);
            if (R != o->loc && h != o->vreg && !writes_over(c, i, R)) inj_add_site(c, inj_h_valid(h), i, in->ndefs + k, R, 0);
        }
    }
}

void inj_undef_join_sites(inj *c)
{
    if (has_op(c, RAVEL_OP_UNDEF)) x_walk(c, undef_join_visit);
}

void inj_undef_join_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_operand *o = &OPS(c, s->i)[s->a];
    char a[32], b[32];
    snprintf(buf, n, "use %u of v%u (undefined on some paths only) read from %s instead of %s",
             s->a - IN(c, s->i)->ndefs, vnum(c, o->vreg), loc_s(c, s->b, a), loc_s(c, o->loc, b));
}
