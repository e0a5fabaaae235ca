/* greedy_live.c - what the `greedy` allocator knows before it allocates:
 * the uses of every vreg at their points, the reservations (preassigned
 * intervals) of every register, the safepoints, and one live range per
 * vreg (greedy.h explains the points).
 *
 * Requires: f unallocated, valid SSA, finished.
 * Guarantees (gr_build): g->cfg and the shared sparse liveness (jump
 * arguments live-out of the branching block); per vreg its uses sorted
 * by point (defs, operand uses, jump arguments at the end of their block,
 * block parameters at their block's start); per register its reservations
 * (fixed uses from the gap to the point they are read, fixed defs from
 * the point written to the end of the instruction, clobbers at the
 * clobber point; where two disagree, the point is blocked for every
 * vreg); one live range per vreg whose segments cover exactly its live
 * points (a value live out of a block covers it to the block's end, a
 * jump argument too; a dead def covers its instruction from the def on).
 * Constraints no allocation can meet are reported, naming the
 * instruction, before anything is allocated. Linear in the size of the
 * function plus its liveness lists. */
#include "greedy.h"
#include "claims.h"

#include <stdlib.h>
#include <string.h>

bool gr_fail(gr *g, uint32_t inst, const char *fmt, ...)
{
    if (g->err) return false;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    g->err = rv_alloc_errorf(g->f, inst, "unsatisfiable constraints: %s", msg);
    return false;
}

/* ---- operand points ---- */

static inline const rv_operand *ops_of(const gr *g, const rv_inst *in) { return rv_ops_of(g->f, in); }

uint32_t gr_reuser(const rv_inst *in, const rv_operand *ops, uint32_t k)
{
    uint32_t d = rv_reuser_of(in, ops, in->ndefs + k);
    const rv_operand *u = &ops[in->ndefs + k];
    if (d != RAVEL_NONE || u->kind != RAVEL_C_REG || rv_op_is_late(u)) return d;
    for (uint32_t j = 0; j < in->nuses; j++) { /* the least def reusing a use of u's vreg */
        uint32_t dj = ops[in->ndefs + j].vreg == u->vreg ? rv_reuser_of(in, ops, in->ndefs + j) : RAVEL_NONE;
        if (dj < d) d = dj;
    }
    return d;
}

static uint32_t def_point(uint32_t i, const rv_operand *d)
{
    if (d->kind == RAVEL_C_REUSE || rv_op_is_early(d)) return 4 * i + 1;
    return 4 * i + 3;
}

/* The point a use occupies last (its segment ends one after). */
static uint32_t use_point(uint32_t i, const rv_operand *u, bool reused)
{
    if (reused) return 4 * i;
    return rv_op_is_late(u) ? 4 * i + 3 : 4 * i + 1;
}

/* ---- constraints no allocation meets ---- */

/* The fixed-register claims of one instruction are the shared ones
 * (claims.h, rv_claim_fixed) on this pass's per-register flags; greedy
 * words its refusals itself. */
typedef struct chk {
    const gr *g;
    const rv_operand *ops;            /* the current instruction's operands */
    uint32_t *stamp, *fu_v, cur;      /* per register: instruction it was flagged for, vreg of its fixed use */
    uint32_t *touched, ntouched;      /* registers flagged this instruction */
    uint8_t *fl;                      /* per register: RV_CLAIM_* bits */
} chk;

static void chk_touch(chk *c, uint32_t r, uint8_t fl)
{
    if (r >= c->g->nr) return;
    if (c->stamp[r] != c->cur) {
        c->stamp[r] = c->cur;
        c->fl[r] = 0;
        c->fu_v[r] = RAVEL_NONE;
        c->touched[c->ntouched++] = r;
    }
    c->fl[r] |= fl;
}
static void chk_clobber(void *ctx, uint32_t r) { chk_touch(ctx, r, RV_CLAIM_CLOB); }
static void chk_use(void *ctx, uint32_t u, uint32_t r)
{
    chk *c = ctx;
    chk_touch(c, r, rv_op_is_late(&c->ops[u]) ? RV_CLAIM_USE_L : RV_CLAIM_USE_E);
    c->fu_v[r] = c->ops[u].vreg;
}
static void chk_def(void *ctx, uint32_t d, uint32_t r)
{
    chk *c = ctx;
    chk_touch(c, r, rv_op_is_late(&c->ops[d]) ? RV_CLAIM_DEF_L : RV_CLAIM_DEF_E);
}
static uint8_t chk_flags(const void *ctx, uint32_t r)
{
    const chk *c = ctx;
    return c->stamp[r] == c->cur ? c->fl[r] : 0;
}
static uint32_t chk_target(const void *ctx, uint32_t r) { return ((const chk *)ctx)->fu_v[r]; }
static const uint32_t *chk_touched(const void *ctx, uint32_t *n)
{
    const chk *c = ctx;
    *n = c->ntouched;
    return c->touched;
}
static const rv_claim_ops chk_claims = {chk_clobber, chk_use, chk_def, chk_flags, chk_target, chk_touched};

static const char *chk_text(rv_claim_error e)
{
    switch (e) {
    case RV_CLAIM_REF_LATE: return "late use of a reference in a register at a safepoint";
    case RV_CLAIM_TWO_VALUES: return "two values in one fixed register";
    case RV_CLAIM_TWO_DEFS: return "two defs need the same register";
    case RV_CLAIM_EARLY_DEF_USE: return "use in the register of an early def";
    default: return "late use in a defined or clobbered register";
    }
}

static bool chk_reuse(gr *g, uint32_t i, const rv_inst *in, const rv_operand *ops)
{
    for (uint32_t d = 0; d < in->ndefs; d++) {
        if (ops[d].kind != RAVEL_C_REUSE) continue;
        uint32_t k = ops[d].arg;
        if (k >= in->nuses) return gr_fail(g, i, "reuse of a missing use");
        const rv_operand *u = &ops[in->ndefs + k];
        if (rv_op_is_early(&ops[d])) return gr_fail(g, i, "early def reusing a use");
        if (rv_op_is_late(u)) return gr_fail(g, i, "reused use is late");
        if (u->kind == RAVEL_C_STACK) return gr_fail(g, i, "reused use is on the stack");
        if (g->f->vregs.data[u->vreg].cls != g->f->vregs.data[ops[d].vreg].cls) return gr_fail(g, i, "reuse across classes");
        if (gr_reuser(in, ops, k) != d) return gr_fail(g, i, "two defs in one location");
    }
    return true;
}

static bool chk_safepoint(gr *g, uint32_t i, const rv_inst *in, const rv_operand *ops)
{
    if (!(in->flags & RV_IF_SAFEPOINT)) return true;
    for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) {
        const rv_operand *o = &ops[k];
        if (!gr_vref(g, o->vreg)) continue;
        bool reg = o->kind == RAVEL_C_REG || o->kind == RAVEL_C_FIXED || o->kind == RAVEL_C_REUSE;
        if (k >= in->ndefs && rv_op_is_late(o) && reg) return gr_fail(g, i, "late use of a reference in a register at a safepoint");
        if (k < in->ndefs && rv_op_is_early(o) && reg) return gr_fail(g, i, "early def of a reference in a register at a safepoint");
    }
    return true;
}

/* Every fixed register of in (its own, or the one a def reuses) is of
 * the machine and of the operand's class. */
static bool chk_classes(gr *g, uint32_t i, const rv_inst *in, const rv_operand *ops)
{
    for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) {
        uint32_t r = k < in->ndefs ? rv_fixed_def_reg(in, ops, k) : ops[k].kind == RAVEL_C_FIXED ? ops[k].arg : RAVEL_NONE;
        if (r != RAVEL_NONE && (r >= g->nr || g->m->regs.data[r].cls != gr_vcls(g, ops[k].vreg)))
            return gr_fail(g, i, "fixed register of another class");
    }
    return true;
}

static bool chk_inst(gr *g, chk *c, uint32_t i)
{
    const rv_inst *in = rv_inst_at(g->f, i);
    const rv_operand *ops = ops_of(g, in);
    c->cur++;
    c->ntouched = 0;
    c->ops = ops;
    if (!chk_reuse(g, i, in, ops) || !chk_safepoint(g, i, in, ops) || !chk_classes(g, i, in, ops)) return false;
    bool sp_moving = (in->flags & RV_IF_SAFEPOINT) && !g->m->gc_nonmoving;
    uint32_t bad;
    rv_claim_error e = rv_claim_fixed(g->f, in, ops, sp_moving, true, true, &chk_claims, c, &bad);
    return e == RV_CLAIM_OK || gr_fail(g, i, "%s", chk_text(e));
}

static bool check_constraints(gr *g)
{
    uint32_t n = g->nr + 1;
    chk c = {g, NULL, rv_xcalloc(n, sizeof(uint32_t)), rv_xmalloc(sizeof(uint32_t) * n), 0, rv_xmalloc(sizeof(uint32_t) * n), 0,
             rv_xcalloc(n, 1)};
    bool ok = true;
    for (uint32_t i = 0; ok && i < g->ni; i++) ok = chk_inst(g, &c, i);
    rv_free(c.stamp);
    rv_free(c.fu_v);
    rv_free(c.touched);
    rv_free(c.fl);
    return ok;
}

/* ---- uses ---- */

/* Calls add(v, use) for every use of instruction i, in point order;
 * params of the block are added before its first instruction. */
typedef struct use_sink { gr *g; bool fill; uint32_t *cur; } use_sink;

static void sink(use_sink *s, uint32_t v, gr_use u)
{
    if (s->fill) s->g->use.list[s->cur[v]++] = u;
    else s->cur[v]++;
}

static void inst_uses(use_sink *s, uint32_t i)
{
    const ravel_func *f = s->g->f;
    const rv_inst *in = rv_inst_at(f, i);
    const rv_operand *ops = rv_ops_of(f, in);
    for (uint32_t pass = 0; pass < 3; pass++) /* points 4i, 4i+1, 4i+3 */
        for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) {
            const rv_operand *o = &ops[k];
            bool def = k < in->ndefs, reused = !def && gr_reuser(in, ops, k - in->ndefs) != RAVEL_NONE;
            uint32_t p = def ? def_point(i, o) : use_point(i, o, reused);
            if (p - 4 * i != (pass == 0 ? 0u : pass == 1 ? 1u : 3u)) continue;
            uint8_t fl = (uint8_t)((def ? GU_DEF : 0) | (p == 4 * i + 3 ? GU_LATE : 0) | (reused ? GU_REUSE_SRC : 0));
            bool fixed_reuse = def && o->kind == RAVEL_C_REUSE && ops[in->ndefs + o->arg].kind == RAVEL_C_FIXED;
            if (!reused && (o->kind == RAVEL_C_REG || (o->kind == RAVEL_C_REUSE && !fixed_reuse))) fl |= GU_REG;
            uint16_t arg = fixed_reuse ? ops[in->ndefs + o->arg].arg : o->arg;
            sink(s, o->vreg, (gr_use){p, i, in->first_op + k, fixed_reuse ? RAVEL_C_FIXED : o->kind, fl, arg});
        }
    for (uint32_t e = 0; e < rv_inst_nsuccs(in); e++) {
        const rv_succ *sc = &rv_inst_succs(f, in)[e];
        for (uint32_t k = 0; k < sc->nargs; k++)
            sink(s, rv_succ_args(f, sc)[k], (gr_use){4 * i + 3, i, RAVEL_NONE, RAVEL_C_ANY, GU_ARG, 0});
    }
}

static void walk_uses(use_sink *s)
{
    const ravel_func *f = s->g->f;
    for (uint32_t b = 0; b < s->g->nb; b++) {
        const rv_block *bl = &f->blocks.data[b];
        for (uint32_t k = 0; k < bl->nparams; k++)
            sink(s, rv_block_params(f, bl)[k], (gr_use){4 * bl->first_inst, bl->first_inst, RAVEL_NONE, RAVEL_C_ANY, GU_DEF | GU_PARAM, 0});
        for (uint32_t j = 0; j < bl->ninsts; j++) inst_uses(s, bl->first_inst + j);
    }
}

static void build_uses(gr *g)
{
    uint32_t *cur = rv_xcalloc(g->nv + 1, sizeof(uint32_t));
    use_sink s = {g, false, cur};
    walk_uses(&s);
    g->use.start = rv_xmalloc(sizeof(uint32_t) * (g->nv + 1));
    uint32_t n = 0;
    for (uint32_t v = 0; v < g->nv; v++) {
        g->use.start[v] = n;
        n += cur[v];
        cur[v] = g->use.start[v];
    }
    g->use.start[g->nv] = n;
    g->use.list = rv_xmalloc(sizeof(gr_use) * (n + 1));
    s.fill = true;
    walk_uses(&s);
    rv_free(cur);
    for (uint32_t v = 0; v < g->nv; v++) g->use.def_inst[v] = RAVEL_NONE;
    for (uint32_t k = 0; k < n; k++) {
        const gr_use *u = &g->use.list[k];
        if (!(u->flags & GU_DEF) || (u->flags & GU_PARAM)) continue;
        const rv_operand *o = &g->f->ops.data[u->op];
        g->use.def_inst[o->vreg] = u->inst;
        g->use.reuse_def[o->vreg] = o->kind == RAVEL_C_REUSE;
    }
}

const gr_use *gr_uses_in(const gr *g, uint32_t v, uint32_t from, uint32_t to, uint32_t *n)
{
    uint32_t lo = g->use.start[v], hi = g->use.start[v + 1], end = hi;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->use.list[mid].pos < from) lo = mid + 1;
        else hi = mid;
    }
    uint32_t k = lo;
    while (k < end && g->use.list[k].pos < to) k++;
    *n = k - lo;
    return g->use.list + lo;
}

/* ---- reservations ---- */

typedef struct resb {
    uint32_t *tag;   /* nr * 4, GR_FREE when untouched */
    uint32_t *touched, ntouched;
    uint32_t *rstamp, cur; /* per register: touched by instruction cur - 1 */
    RV_VEC(uint32_t) reg;
    RV_VEC(gr_res) e;
} resb;

/* Two claims on one point: the same, or a clobber and a vreg the
 * instruction defines (which the clobber spares), else nobody's. */
static uint32_t combine(const gr *g, uint32_t i, uint32_t a, uint32_t b)
{
    if (a == GR_FREE || a == b) return b;
    if (a == GR_CLOBBER && b < g->nv && g->use.def_inst[b] == i) return b;
    if (b == GR_CLOBBER && a < g->nv && g->use.def_inst[a] == i) return a;
    return GR_BLOCKED;
}

static void paint(const gr *g, resb *R, uint32_t r, uint32_t from, uint32_t to, uint32_t base, uint32_t tag)
{
    uint32_t *t = R->tag + 4 * (size_t)r;
    if (R->rstamp[r] != R->cur) {
        R->rstamp[r] = R->cur;
        R->touched[R->ntouched++] = r;
    }
    for (uint32_t p = from; p < to; p++) t[p - base] = combine(g, base / 4, t[p - base], tag);
}

static void inst_res(gr *g, resb *R, uint32_t i)
{
    const rv_inst *in = rv_inst_at(g->f, i);
    const rv_operand *ops = ops_of(g, in);
    uint32_t base = 4 * i;
    R->cur = i + 1;
    const uint32_t *cl;
    uint32_t ncl = rv_inst_clobbers(g->f, in, &cl);
    for (uint32_t k = 0; k < ncl; k++)
        if (cl[k] < g->nr) paint(g, R, cl[k], base + 2, base + 3, base, GR_CLOBBER);
    for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) {
        const rv_operand *o = &ops[k];
        bool def = k < in->ndefs;
        if (def && o->kind == RAVEL_C_REUSE && ops[in->ndefs + o->arg].kind == RAVEL_C_FIXED)
            paint(g, R, ops[in->ndefs + o->arg].arg, base + 1, base + 4, base, o->vreg);
        if (o->kind != RAVEL_C_FIXED) continue;
        if (def) paint(g, R, o->arg, def_point(i, o), base + 4, base, o->vreg);
        else paint(g, R, o->arg, base, use_point(i, o, gr_reuser(in, ops, k - in->ndefs) != RAVEL_NONE) + 1, base, o->vreg);
    }
    for (uint32_t k = 0; k < R->ntouched; k++) {
        uint32_t r = R->touched[k];
        gr_res e = {i, {0}};
        memcpy(e.tag, R->tag + 4 * (size_t)r, sizeof e.tag);
        rv_vec_push(R->e, e);
        rv_vec_push(R->reg, r);
        for (uint32_t p = 0; p < 4; p++) R->tag[4 * (size_t)r + p] = GR_FREE;
    }
    R->ntouched = 0;
}

static void build_res(gr *g)
{
    resb R = {0};
    R.tag = rv_xmalloc(sizeof(uint32_t) * 4 * ((size_t)g->nr + 1));
    memset(R.tag, 0xff, sizeof(uint32_t) * 4 * ((size_t)g->nr + 1));
    R.touched = rv_xmalloc(sizeof(uint32_t) * (g->nr + 1));
    R.rstamp = rv_xcalloc(g->nr + 1, sizeof(uint32_t));
    for (uint32_t i = 0; i < g->ni; i++) inst_res(g, &R, i);
    g->rsv.start = rv_xcalloc(g->nr + 2, sizeof(uint32_t));
    for (uint32_t k = 0; k < R.e.len; k++) g->rsv.start[R.reg.data[k] + 1]++;
    for (uint32_t r = 0; r < g->nr; r++) g->rsv.start[r + 1] += g->rsv.start[r];
    uint32_t *fill = rv_xmalloc(sizeof(uint32_t) * (g->nr + 1));
    memcpy(fill, g->rsv.start, sizeof(uint32_t) * (g->nr + 1));
    g->rsv.list = rv_xmalloc(sizeof(gr_res) * (R.e.len + 1));
    for (uint32_t k = 0; k < R.e.len; k++) g->rsv.list[fill[R.reg.data[k]]++] = R.e.data[k]; /* stable: by instruction */
    g->rsv.inst = rv_xmalloc(sizeof(uint32_t) * (R.e.len + 1));
    for (uint32_t k = 0; k < R.e.len; k++) g->rsv.inst[k] = g->rsv.list[k].inst;
    rv_free(fill);
    if (g->nr <= 64) {
        g->rsv.mask = rv_xcalloc(g->ni + 1, sizeof(uint64_t));
        for (uint32_t r = 0; r < g->nr; r++)
            for (uint32_t k = g->rsv.start[r]; k < g->rsv.start[r + 1]; k++) g->rsv.mask[g->rsv.list[k].inst] |= (uint64_t)1 << r;
    }
    if ((uint64_t)g->nr * (g->nb + 1) <= ((uint64_t)1 << 22)) {
        g->rsv.bidx = rv_xmalloc(sizeof(uint32_t) * g->nr * (g->nb + 1) + 1);
        for (uint32_t r = 0; r < g->nr; r++) {
            uint32_t k = g->rsv.start[r], *row = g->rsv.bidx + (size_t)r * (g->nb + 1);
            for (uint32_t b = 0; b <= g->nb; b++) {
                uint32_t first = b < g->nb ? g->f->blocks.data[b].first_inst : g->ni;
                while (k < g->rsv.start[r + 1] && g->rsv.list[k].inst < first) k++;
                row[b] = k;
            }
        }
    }
    rv_free(R.tag);
    rv_free(R.touched);
    rv_free(R.rstamp);
    rv_vec_free(R.reg);
    rv_vec_free(R.e);
    RV_VEC(uint32_t) sp = {0};
    for (uint32_t i = 0; i < g->ni; i++)
        if (rv_inst_at(g->f, i)->flags & RV_IF_SAFEPOINT) rv_vec_push(sp, i);
    g->safe = sp.data;
    g->nsafe = sp.len;
}

/* ---- live ranges ---- */

typedef struct segb {
    uint32_t *open, *ostamp, cur; /* per vreg: open segment end, valid when ostamp == cur */
    RV_VEC(uint32_t) olist;
    RV_VEC(uint32_t) sv;   /* vreg of each segment */
    RV_VEC(gr_seg) s;
} segb;

static void seg_emit(segb *B, uint32_t v, uint32_t from, uint32_t to)
{
    rv_vec_push(B->sv, v);
    rv_vec_push(B->s, ((gr_seg){from, to}));
}

static void seg_use(segb *B, uint32_t v, uint32_t end)
{
    if (B->ostamp[v] != B->cur) {
        B->ostamp[v] = B->cur;
        B->open[v] = end;
        rv_vec_push(B->olist, v);
    } else if (B->open[v] < end) {
        B->open[v] = end;
    }
}

static void seg_inst(gr *g, segb *B, uint32_t i)
{
    const rv_inst *in = rv_inst_at(g->f, i);
    const rv_operand *ops = ops_of(g, in);
    for (uint32_t d = 0; d < in->ndefs; d++) {
        uint32_t v = ops[d].vreg, p = def_point(i, &ops[d]);
        bool open = B->ostamp[v] == B->cur && B->open[v] != 0;
        seg_emit(B, v, p, open ? B->open[v] : 4 * i + 4);
        if (open) B->open[v] = 0;
    }
    for (uint32_t k = in->ndefs; k < (uint32_t)in->ndefs + in->nuses; k++) {
        bool reused = gr_reuser(in, ops, k - in->ndefs) != RAVEL_NONE;
        uint32_t v = ops[k].vreg, end = use_point(i, &ops[k], reused) + 1;
        if (B->ostamp[v] == B->cur && B->open[v] == 0) B->open[v] = end; /* used above its def: unreachable code */
        else seg_use(B, v, end);
    }
}

static void seg_block(gr *g, segb *B, uint32_t b)
{
    const rv_block *bl = &g->f->blocks.data[b];
    B->cur++;
    B->olist.len = 0;
    uint32_t nout;
    const uint32_t *out = rv_ls_list(&g->ls, b, true, &nout);
    for (uint32_t k = 0; k < nout; k++) seg_use(B, out[k], gr_block_end(g, b));
    for (uint32_t j = bl->ninsts; j-- > 0;) seg_inst(g, B, bl->first_inst + j);
    for (uint32_t k = 0; k < B->olist.len; k++) {
        uint32_t v = B->olist.data[k];
        if (B->open[v]) seg_emit(B, v, gr_block_start(g, b), B->open[v]);
    }
}

static int cmp_seg(const void *a, const void *b)
{
    const gr_seg *x = a, *y = b;
    return x->from < y->from ? -1 : x->from > y->from;
}

/* Sorts (rarely needed: unreachable code) and merges v's segments in
 * place; returns the new count. */
static uint32_t seg_normalize(gr_seg *s, uint32_t n)
{
    bool sorted = true;
    for (uint32_t k = 1; k < n && sorted; k++) sorted = s[k - 1].from <= s[k].from;
    if (!sorted) qsort(s, n, sizeof *s, cmp_seg);
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (s[k].from >= s[k].to) continue;
        if (m && s[k].from <= s[m - 1].to) {
            if (s[k].to > s[m - 1].to) s[m - 1].to = s[k].to;
        } else {
            s[m++] = s[k];
        }
    }
    return m;
}

/* A vreg with no use but its def: its range is the def's instruction. */
static bool dead_def(const gr *g, uint32_t v)
{
    return g->use.start[v + 1] - g->use.start[v] == 1 && (g->use.list[g->use.start[v]].flags & GU_DEF);
}

static void make_lr(gr *g, uint32_t v, const gr_seg *s, uint32_t n)
{
    uint8_t stage = GR_ST_NEW;
    const gr_use *u = &g->use.list[g->use.start[v]];
    if (dead_def(g, v)) {
        if (u->kind == RAVEL_C_FIXED) return; /* its reservation holds it */
        if (u->flags & GU_REG) stage = GR_ST_TINY;
        if (u->kind == RAVEL_C_STACK) stage = GR_ST_SLOT;
    }
    for (uint32_t k = g->use.start[v]; k < g->use.start[v + 1]; k++)
        if (g->use.list[k].kind == RAVEL_C_STACK) g->has_slot[v] = 1;
    uint32_t id = gr_lr_new(g, v, s, n, stage);
    if (stage == GR_ST_TINY) {
        g->lrs.data[id].inst = u->inst;
        g->lrs.data[id].next_tiny = g->tiny_head[u->inst];
        g->tiny_head[u->inst] = id;
    }
    if (stage != GR_ST_SLOT) gr_enqueue(g, id);
}

static void build_lrs(gr *g)
{
    segb B = {rv_xcalloc(g->nv + 1, sizeof(uint32_t)), rv_xcalloc(g->nv + 1, sizeof(uint32_t)), 0, {0}, {0}, {0}};
    for (uint32_t b = 0; b < g->nb; b++) seg_block(g, &B, b);
    uint32_t *start = rv_xcalloc(g->nv + 2, sizeof(uint32_t));
    for (uint32_t k = 0; k < B.sv.len; k++) start[B.sv.data[k] + 1]++;
    for (uint32_t v = 0; v < g->nv; v++) start[v + 1] += start[v];
    gr_seg *all = rv_xmalloc(sizeof(gr_seg) * (B.s.len + 1));
    memcpy(B.open, start, sizeof(uint32_t) * g->nv);
    for (uint32_t k = 0; k < B.sv.len; k++) all[B.open[B.sv.data[k]]++] = B.s.data[k];
    rv_vec_reserve(g->segs, B.s.len + 16);
    rv_vec_reserve(g->lrs, g->nv + 16);
    for (uint32_t v = 0; v < g->nv; v++) {
        uint32_t n = seg_normalize(all + start[v], start[v + 1] - start[v]);
        if (n) make_lr(g, v, all + start[v], n);
    }
    rv_free(all);
    rv_free(start);
    rv_free(B.open);
    rv_free(B.ostamp);
    rv_vec_free(B.olist);
    rv_vec_free(B.sv);
    rv_vec_free(B.s);
}

void gr_lr_measure(gr *g, uint32_t id)
{
    gr_lr *lr = &g->lrs.data[id];
    const gr_seg *s = gr_segs(g, id);
    double w = 0;
    uint32_t size = 0;
    for (uint32_t k = 0; k < lr->nseg; k++) {
        size += s[k].to - s[k].from;
        uint32_t n;
        const gr_use *u = gr_uses_in(g, lr->vreg, s[k].from, s[k].to, &n);
        for (uint32_t j = 0; j < n; j++) {
            bool needs = (u[j].flags & (GU_REG | GU_REUSE_SRC)) || u[j].kind == RAVEL_C_FIXED;
            w += g->freq[g->inst_block[u[j].inst]] * (needs ? 1.0 : 0.5);
        }
    }
    lr->size = size;
    lr->weight = lr->stage == GR_ST_TINY ? GR_INF : w / ((double)size / 4 + 25);
}

uint32_t gr_lr_new(gr *g, uint32_t v, const gr_seg *segs, uint32_t n, uint8_t stage)
{
    size_t off = (size_t)(segs - g->segs.data);
    bool inside = g->segs.data && segs >= g->segs.data && off < g->segs.len;
    rv_vec_reserve(g->segs, n);
    if (inside) segs = g->segs.data + off;
    uint32_t seg0 = g->segs.len;
    memmove(g->segs.data + seg0, segs, sizeof(gr_seg) * n);
    g->segs.len += n;
    gr_lr lr = {v, seg0, n, 0, 0, RAVEL_NONE, 0, RAVEL_NONE, g->sib_head[v], RAVEL_NONE, stage, false};
    uint32_t id = g->lrs.len;
    rv_vec_push(g->lrs, lr);
    g->sib_head[v] = id;
    gr_lr_measure(g, id);
    return id;
}

void gr_lr_kill(gr *g, uint32_t id)
{
    gr_lr *lr = &g->lrs.data[id];
    uint32_t *p = &g->sib_head[lr->vreg];
    while (*p != id && *p != RAVEL_NONE) p = &g->lrs.data[*p].next_sib;
    if (*p == id) *p = lr->next_sib;
    lr->stage = GR_ST_DEAD;
}

/* ---- driver ---- */

/* The stackmap entries any allocation needs: a reference live across a
 * safepoint is listed there, wherever its pieces end up. Counted before
 * allocating, so that a function past RV_MAX_STACKMAP_ENTRIES is refused
 * at once rather than after the work. */
static bool stackmaps_fit(gr *g)
{
    uint64_t n = 0;
    for (uint32_t id = 0; id < g->lrs.len && g->nsafe; id++) {
        const gr_lr *lr = &g->lrs.data[id];
        if (!gr_vref(g, lr->vreg)) continue;
        for (uint32_t k = 0; k < lr->nseg; k++) {
            const gr_seg *s = &gr_segs(g, id)[k];
            uint32_t lo = 0, hi = g->nsafe;
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (4 * g->safe[mid] + 2 < s->from) lo = mid + 1;
                else hi = mid;
            }
            for (; lo < g->nsafe && 4 * g->safe[lo] + 2 < s->to; lo++) n += !(g->use.reuse_def[lr->vreg] && g->use.def_inst[lr->vreg] == g->safe[lo]);
        }
        if (n > RV_MAX_STACKMAP_ENTRIES) {
            rv_out o = {.f = g->f};
            g->err = rv_out_limit_error(&o);
            return false;
        }
    }
    return true;
}

bool gr_build(gr *g)
{
    const ravel_func *f = g->f;
    g->nv = f->vregs.len;
    g->ni = f->insts.len;
    g->nr = g->m->regs.len;
    rv_cfg_build(&g->cfg, f);
    g->nb = g->cfg.nblocks;
    g->inst_block = rv_inst_blocks(f);
    g->freq = rv_xmalloc(sizeof(double) * (g->nb + 1));
    for (uint32_t b = 0; b < g->nb; b++) {
        double w = 1;
        for (uint32_t d = 0; d < g->cfg.loop_depth[b] && d < 10; d++) w *= 10;
        g->freq[b] = w;
    }
    g->use.def_inst = rv_xmalloc(sizeof(uint32_t) * (g->nv + 1));
    g->sib_head = rv_xmalloc(sizeof(uint32_t) * (g->nv + 1));
    memset(g->sib_head, 0xff, sizeof(uint32_t) * (g->nv + 1));
    g->tiny_head = rv_xmalloc(sizeof(uint32_t) * (g->ni + 1));
    memset(g->tiny_head, 0xff, sizeof(uint32_t) * (g->ni + 1));
    g->has_slot = rv_xcalloc(g->nv + 1, 1);
    g->use.reuse_def = rv_xcalloc(g->nv + 1, 1);
    g->uni = rv_xcalloc(g->nr + 1, sizeof *g->uni);
    if (!check_constraints(g)) return false;
    rv_live_sparse_build(&g->ls, f, &g->cfg, UINT32_MAX, NULL, RV_LS_ARGS_OUT);
    build_uses(g);
    build_res(g);
    build_lrs(g);
    return stackmaps_fit(g);
}
