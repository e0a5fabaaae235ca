/* live.c - liveness over vregs and live intervals with use positions.
 *
 * Requires: an unallocated SSA function (ravel_validate with
 * RAVEL_VALIDATE_SSA), finished, and its cfg (rv_cfg_build).
 * Guarantees: see rv_liveness and rv_intervals in ir/analysis.h.
 *
 * Liveness is computed by path exploration per variable (linear in the
 * result, see rv_liveness_build), one walk for both forms: bitsets
 * (rv_liveness) and sparse lists (rv_live_sparse, optionally capped per
 * vreg and with jump arguments live-out, for `linear`);
 * rv_liveness_build_dataflow computes the
 * same sets as one instance of the generic solver (dataflow.c): backward,
 * union, in its gen/kill mode (in = gen[b] | (out & ~kill[b])), where gen are the vregs
 * used in b before any def in b (jump arguments are uses of the terminator)
 * and kill the vregs defined in b (params included); the tests compare the
 * two.
 *
 * Intervals follow Wimmer & Franz's BuildIntervals: blocks in reverse
 * layout order, instructions backwards, a range per live-out vreg over the
 * whole block, shortened at its def, extended by each use. Ranges are
 * collected as newest-first linked lists per vreg; since they are produced
 * in decreasing point order, walking a list yields them sorted ascending,
 * which the final flattening into CSR arrays relies on. Use positions,
 * counted per vreg first, are written straight into their CSR rows, each
 * filled from its end (the same ascending order). The
 * use positions alone (rv_intervals_build_sparse without liveness) are
 * counted and placed in two forward passes, in the same order. */
#include "ir/analysis.h"

#include <stdlib.h>
#include <string.h>

/* ---- liveness ---- */

/* Bit x joins gen (a read: live unless a def above kills it) or leaves it
 * and joins kill (a def), for a tracked bit (x < nbits). */
static inline void gk_use(uint64_t *g, uint32_t x, uint32_t nbits)
{
    if (x < nbits) rv_bs_set(g, x);
}
static inline void gk_def(uint64_t *g, uint64_t *k, uint32_t x, uint32_t nbits)
{
    if (x >= nbits) return;
    rv_bs_clear(g, x);
    rv_bs_set(k, x);
}

void rv_block_gen_kill(const ravel_func *f, uint32_t b, uint64_t *g, uint64_t *k, unsigned flags, const uint8_t *used,
                       const uint32_t *map, uint32_t nbits)
{
    const rv_block *bl = &f->blocks.data[b];
#define GK_BIT(v) (map ? map[v] : (v))
    for (uint32_t j = bl->ninsts; j-- > 0;) {
        const rv_inst *in = rv_inst_at(f, bl->first_inst + j);
        if (rv_is_edit(in)) continue;
        const rv_operand *ops = rv_ops_of(f, in);
        for (uint32_t d = 0; d < in->ndefs; d++) gk_def(g, k, GK_BIT(ops[d].vreg), nbits);
        for (uint32_t u = 0; u < in->nuses; u++) gk_use(g, GK_BIT(ops[in->ndefs + u].vreg), nbits);
        for (uint32_t s = 0; s < rv_inst_nsuccs(in); s++) {
            const rv_succ *sc = &rv_inst_succs(f, in)[s];
            const uint32_t *args = rv_args_of(f, sc);
            if (!(flags & RV_LA_USED_ARGS)) {
                for (uint32_t a = 0; a < sc->nargs; a++) gk_use(g, GK_BIT(args[a]), nbits);
                continue;
            }
            const rv_block *sb = &f->blocks.data[sc->block];
            for (uint32_t a = 0; a < sc->nargs && a < sb->nparams; a++)
                if (used[rv_block_params(f, sb)[a]]) gk_use(g, GK_BIT(args[a]), nbits);
        }
    }
    for (uint32_t p = 0; p < bl->nparams; p++) gk_def(g, k, GK_BIT(rv_block_params(f, bl)[p]), nbits);
#undef GK_BIT
}

void rv_liveness_build_dataflow(rv_liveness *lv, const ravel_func *f, const rv_cfg *cfg)
{
    uint32_t n = cfg->nblocks;
    lv->nblocks = n;
    lv->nvregs = f->vregs.len;
    uint32_t nw = lv->nwords = rv_bs_words(lv->nvregs);
    uint64_t *gen = rv_xcalloc((size_t)n * nw + 1, sizeof(uint64_t));
    uint64_t *kill = rv_xcalloc((size_t)n * nw + 1, sizeof(uint64_t));
    for (uint32_t b = 0; b < n; b++) rv_block_gen_kill(f, b, gen + (size_t)b * nw, kill + (size_t)b * nw, 0, NULL, NULL, lv->nvregs);
    rv_dataflow df;
    memset(&df, 0, sizeof df);
    df.cfg = cfg;
    df.nbits = lv->nvregs;
    df.backward = true;
    df.gen = gen; /* gen/kill mode */
    df.kill = kill;
    rv_dataflow_solve(&df);
    lv->in = df.in;
    lv->out = df.out;
    rv_free(gen);
    rv_free(kill);
}

/* Path exploration (per variable, SSA): from each block where v is read
 * before any def of it in that block (an operand use, or a jump argument of
 * its terminator), walk predecessors upwards marking v live-in, and live-out
 * of every predecessor, stopping at v's defining block and at blocks already
 * marked. Each (vreg, block) pair is visited once: time linear in the size
 * of the result, whatever the loop nesting (the iterative solver needs a
 * pass per nesting level there). Same sets as the dataflow solution.
 *
 * One walk serves both forms (rv_liveness_build: bitsets, rv_live_sparse_build:
 * lists): the reads are grouped by vreg, each vreg is walked alone with
 * per-block stamps (v + 1) telling which marks are new, and every new mark
 * goes to the form's sink (pe_mark) in vreg order. */
typedef struct sp_mark { uint32_t key, v; } sp_mark; /* key: block << 1 | out */
typedef struct sp_sink { RV_VEC(sp_mark) m; } sp_sink;

typedef struct pe_ctx {
    const rv_cfg *cfg;
    uint32_t *mem;                /* one block: def_block, read_start, in_st, out_st, and pe_init's seen, aseen */
    uint32_t *def_block;          /* per vreg, RAVEL_NONE if never defined */
    uint32_t *read_start, *read;  /* CSR per vreg: block << 1 | is_arg; see pe_read */
    bool args_out;                /* jump arguments are live-out of their block too */
    uint32_t *in_st, *out_st;     /* per block: v + 1 once marked for v */
    RV_VEC(uint32_t) stack;
    uint32_t count, cap;          /* marks of the current vreg; stop beyond cap */
    rv_liveness *bits;            /* the sink: bitsets, or else */
    sp_sink *list;                /* lists */
} pe_ctx;

static void pe_mark(pe_ctx *c, uint32_t b, bool out, uint32_t v)
{
    c->count++;
    if (c->bits) rv_bs_set((out ? c->bits->out : c->bits->in) + (size_t)b * c->bits->nwords, v);
    else rv_vec_push(c->list->m, ((sp_mark){b << 1 | (uint32_t)out, v}));
}

/* v is read in b before any def of it there: live-in at b, and upwards. */
static void pe_live_in(pe_ctx *c, uint32_t b, uint32_t v)
{
    c->stack.len = 0;
    rv_vec_push(c->stack, b);
    while (c->stack.len && c->count <= c->cap) {
        uint32_t x = c->stack.data[--c->stack.len];
        if ((c->def_block[v] == x && x != b) || c->in_st[x] == v + 1) continue;
        c->in_st[x] = v + 1;
        pe_mark(c, x, false, v);
        for (uint32_t q = c->cfg->pred_start[x]; q < c->cfg->pred_start[x + 1]; q++) {
            uint32_t p = c->cfg->pred[q];
            if (c->out_st[p] != v + 1) {
                c->out_st[p] = v + 1;
                pe_mark(c, p, true, v);
            }
            rv_vec_push(c->stack, p);
        }
    }
}

/* A read of v in block b; the first one there before any def of v (seen:
 * 1 + block of v's latest def or read) counts (pass 0) or is placed in v's
 * row (pass 1). With args_out, every jump argument is recorded once per
 * block (aseen) as is_arg: the walk marks it live-out of b, then live-in
 * unless b defines it. */
typedef struct pe_rd { uint32_t v, key; } pe_rd;
typedef RV_VEC(pe_rd) pe_rdvec;

static void pe_read(const pe_ctx *c, pe_rdvec *rd, uint32_t *seen, uint32_t *aseen, uint32_t v, uint32_t b, bool arg)
{
    if (arg && c->args_out) {
        if (aseen[v] == b + 1) return;
        aseen[v] = b + 1;
    } else {
        if (seen[v] == b + 1) return;
        seen[v] = b + 1;
        arg = false;
    }
    rv_vec_push(*rd, ((pe_rd){v, b << 1 | (uint32_t)arg}));
}

/* Collects def_block and the upward-exposed reads in one pass over the
 * instructions, then groups the reads by vreg (a stable counting sort:
 * each (vreg, block) pair at most once, blocks ascending). */
static void pe_init(pe_ctx *c, const ravel_func *f, const rv_cfg *cfg, bool args_out)
{
    uint32_t n = cfg->nblocks, nv = f->vregs.len;
    memset(c, 0, sizeof *c);
    c->cfg = cfg;
    c->args_out = args_out;
    size_t n1 = (size_t)n + 1, nv1 = (size_t)nv + 1;
    c->mem = rv_xmalloc(sizeof(uint32_t) * (4 * nv1 + 1 + 2 * n1));
    c->def_block = c->mem;
    uint32_t *seen = c->def_block + nv1, *aseen = seen + nv1;
    c->read_start = aseen + nv1; /* nv + 2 entries */
    c->in_st = c->read_start + nv1 + 1;
    c->out_st = c->in_st + n1;
    for (uint32_t v = 0; v < nv; v++) c->def_block[v] = RAVEL_NONE;
    memset(seen, 0, sizeof(uint32_t) * 2 * nv1); /* (and aseen) */
    memset(c->read_start, 0, sizeof(uint32_t) * (nv1 + 1 + 2 * n1)); /* (and in_st, out_st) */
    pe_rdvec rd = {0};
    rv_vec_reserve(rd, (size_t)f->ops.len + f->u32.len + 1); /* every read is an operand or a jump argument */
    for (uint32_t b = 0; b < n; b++) {
        const rv_block *bl = &f->blocks.data[b];
        for (uint32_t p = 0; p < bl->nparams; p++) {
            uint32_t v = rv_block_params(f, bl)[p];
            c->def_block[v] = b;
            seen[v] = b + 1;
        }
        for (uint32_t j = 0; j < bl->ninsts; j++) {
            const rv_inst *in = rv_inst_at(f, bl->first_inst + j);
            const rv_operand *ops = rv_ops_of(f, in);
            for (uint32_t d = 0; d < in->ndefs; d++) c->def_block[ops[d].vreg] = b;
            if (rv_is_edit(in)) continue;
            for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++) pe_read(c, &rd, seen, aseen, ops[u].vreg, b, false);
            for (uint32_t s = 0; s < rv_inst_nsuccs(in); s++) {
                const rv_succ *sc = &rv_inst_succs(f, in)[s];
                for (uint32_t a = 0; a < sc->nargs; a++) pe_read(c, &rd, seen, aseen, rv_succ_args(f, sc)[a], b, true);
            }
            for (uint32_t d = 0; d < in->ndefs; d++) seen[ops[d].vreg] = b + 1;
        }
    }
    for (uint32_t k = 0; k < rd.len; k++) c->read_start[rd.data[k].v + 2]++;
    for (uint32_t v = 0; v < nv; v++) c->read_start[v + 2] += c->read_start[v + 1];
    c->read = rv_xmalloc(sizeof(uint32_t) * (rd.len + 1));
    for (uint32_t k = 0; k < rd.len; k++) c->read[c->read_start[rd.data[k].v + 1]++] = rd.data[k].key;
    rv_vec_free(rd); /* read_start[v + 1] advanced to v's end = v + 1's start */
    rv_vec_reserve(c->stack, n1);
    c->cap = UINT32_MAX;
}

/* Walks vreg v from all its reads; returns false if it stopped beyond cap. */
static bool pe_walk_vreg(pe_ctx *c, uint32_t v)
{
    c->count = 0;
    for (uint32_t k = c->read_start[v]; k < c->read_start[v + 1] && c->count <= c->cap; k++) {
        uint32_t b = c->read[k] >> 1;
        if (c->read[k] & 1) { /* args_out: live-out of b; live-in if not defined there */
            if (c->out_st[b] != v + 1) {
                c->out_st[b] = v + 1;
                pe_mark(c, b, true, v);
            }
            if (c->def_block[v] == b) continue;
        }
        pe_live_in(c, b, v);
    }
    return c->count <= c->cap;
}

static void pe_free(pe_ctx *c)
{
    rv_vec_free(c->stack);
    rv_free(c->mem);
    rv_free(c->read);
}

void rv_liveness_build(rv_liveness *lv, const ravel_func *f, const rv_cfg *cfg)
{
    uint32_t n = cfg->nblocks, nv = f->vregs.len;
    lv->nblocks = n;
    lv->nvregs = nv;
    lv->nwords = rv_bs_words(nv);
    lv->in = rv_xcalloc((size_t)n * lv->nwords + 1, sizeof(uint64_t));
    lv->out = rv_xcalloc((size_t)n * lv->nwords + 1, sizeof(uint64_t));
    pe_ctx c;
    pe_init(&c, f, cfg, false);
    c.bits = lv;
    for (uint32_t v = 0; v < nv; v++) pe_walk_vreg(&c, v);
    pe_free(&c);
}

/* ---- sparse liveness ---- */

void rv_live_sparse_build(rv_live_sparse *ls, const ravel_func *f, const rv_cfg *cfg, uint32_t cap, const uint8_t *nocap,
                          unsigned flags)
{
    uint32_t n = cfg->nblocks, nv = f->vregs.len;
    ls->nblocks = n;
    ls->nvregs = nv;
    ls->capped = rv_xcalloc(nv + 1, 1);
    pe_ctx c;
    pe_init(&c, f, cfg, (flags & RV_LS_ARGS_OUT) != 0);
    sp_sink s = {{0}};
    rv_vec_reserve(s.m, (size_t)f->ops.len + f->u32.len + 2 * (size_t)n); /* (a first guess: it grows) */
    c.list = &s;
    for (uint32_t v = 0; v < nv; v++) {
        uint32_t undo = s.m.len;
        c.cap = nocap && nocap[v] ? UINT32_MAX : cap;
        if (!pe_walk_vreg(&c, v)) { /* its marks are the last ones */
            s.m.len = undo;
            ls->capped[v] = 1;
        }
    }
    pe_free(&c);
    /* marks come in vreg order: a stable counting sort by (block, out)
     * gives every list ascending */
    uint32_t *start = rv_xcalloc(2 * (size_t)n + 2, sizeof(uint32_t));
    for (uint32_t k = 0; k < s.m.len; k++) start[s.m.data[k].key + 1]++;
    for (uint32_t k = 0; k < 2 * n; k++) start[k + 1] += start[k];
    ls->v = rv_xmalloc(sizeof(uint32_t) * (s.m.len + 1));
    ls->start = start;
    uint32_t *cur = rv_xmalloc(sizeof(uint32_t) * (2 * (size_t)n + 1));
    memcpy(cur, start, sizeof(uint32_t) * 2 * n);
    for (uint32_t k = 0; k < s.m.len; k++) ls->v[cur[s.m.data[k].key]++] = s.m.data[k].v;
    rv_free(cur);
    rv_vec_free(s.m);
}

void rv_live_sparse_free(rv_live_sparse *ls)
{
    rv_free(ls->start);
    rv_free(ls->v);
    rv_free(ls->capped);
    ls->start = ls->v = NULL;
    ls->capped = NULL;
}

void rv_liveness_free(rv_liveness *lv)
{
    rv_free(lv->in);
    rv_free(lv->out);
    lv->in = lv->out = NULL;
}

/* ---- intervals ---- */

typedef struct rnode { uint32_t from, to, next; } rnode;

/* Ranges go to per-vreg lists (their number is known only at the end);
 * use positions, whose number per vreg is counted first, straight into
 * their rows, each filled from its end. */
typedef struct iv_build {
    RV_VEC(rnode) r;
    uint32_t *rhead;   /* per vreg, RAVEL_NONE = empty */
    rv_use_pos *uses;  /* the result's rows */
    uint32_t *ucur;    /* per vreg: one past the next record to fill */
} iv_build;

/* Adds [from, to) to v, merging with v's newest range when they touch. */
static void add_range(iv_build *B, uint32_t v, uint32_t from, uint32_t to)
{
    uint32_t h = B->rhead[v];
    if (h != RAVEL_NONE && B->r.data[h].from <= to) {
        rnode *n = &B->r.data[h];
        if (from < n->from) n->from = from;
        if (to > n->to) n->to = to;
        return;
    }
    rnode n = {from, to, h};
    B->rhead[v] = B->r.len;
    rv_vec_push(B->r, n);
}

/* A def of v at point p of a block starting at bfrom. */
static void def_range(iv_build *B, uint32_t v, uint32_t p)
{
    uint32_t h = B->rhead[v];
    if (h != RAVEL_NONE && B->r.data[h].from <= p && B->r.data[h].to > p) {
        B->r.data[h].from = p;
        return;
    }
    add_range(B, v, p, p + 1);
}

static void add_use(iv_build *B, uint32_t v, uint32_t pos, uint32_t inst, uint32_t op, uint8_t kind, uint8_t flags, uint16_t arg)
{
    B->uses[--B->ucur[v]] = (rv_use_pos){pos, inst, op, kind, flags, arg};
}

static void op_use_pos(iv_build *B, const ravel_func *f, uint32_t i, uint32_t opi)
{
    const rv_operand *o = &f->ops.data[opi];
    uint32_t p = rv_op_is_late(o) ? rv_point_late(i) : rv_point_early(i);
    add_use(B, o->vreg, p, i, opi, o->kind, rv_op_is_def(o) ? RV_UP_DEF : 0, o->arg);
}

/* One instruction, backwards: ranges (defs then uses), then use positions
 * added latest point first (each row fills from its end), so rows come out ascending. */
static void iv_inst(iv_build *B, const ravel_func *f, uint32_t i, uint32_t bfrom)
{
    const rv_inst *in = rv_inst_at(f, i);
    const rv_operand *ops = rv_ops_of(f, in);
    uint32_t nd = in->ndefs, nops = nd + in->nuses;
    for (uint32_t d = 0; d < nd; d++) def_range(B, ops[d].vreg, rv_op_is_late(&ops[d]) ? rv_point_late(i) : rv_point_early(i));
    for (uint32_t u = nd; u < nops; u++) {
        uint32_t p = rv_op_is_late(&ops[u]) ? rv_point_late(i) : rv_point_early(i);
        add_range(B, ops[u].vreg, bfrom, p + 1);
    }
    for (uint32_t s = 0; s < rv_inst_nsuccs(in); s++) {
        const rv_succ *sc = &rv_inst_succs(f, in)[s];
        for (uint32_t a = 0; a < sc->nargs; a++) add_range(B, rv_succ_args(f, sc)[a], bfrom, rv_point_early(i) + 1);
    }
    /* use positions: late uses, late defs, early uses (and jump args), early defs */
    for (int late = 1; late >= 0; late--) {
        for (uint32_t u = nops; u-- > nd;)
            if (rv_op_is_late(&ops[u]) == (late != 0)) op_use_pos(B, f, i, in->first_op + u);
        if (!late)
            for (uint32_t s = rv_inst_nsuccs(in); s-- > 0;) {
                const rv_succ *sc = &rv_inst_succs(f, in)[s];
                for (uint32_t a = sc->nargs; a-- > 0;)
                    add_use(B, rv_succ_args(f, sc)[a], rv_point_early(i), i, RAVEL_NONE, RAVEL_C_ANY, RV_UP_ARG, 0);
            }
        for (uint32_t d = nd; d-- > 0;)
            if (rv_op_is_late(&ops[d]) == (late != 0)) op_use_pos(B, f, i, in->first_op + d);
    }
}

/* Block b from its live-out set: bitsets (lv) or the sparse lists (ls). */
static void iv_block(iv_build *B, const ravel_func *f, const rv_liveness *lv, const rv_live_sparse *ls, uint32_t b)
{
    const rv_block *bl = &f->blocks.data[b];
    uint32_t bfrom = rv_point_early(bl->first_inst), bto = rv_point_early(bl->first_inst + bl->ninsts);
    if (lv) {
        const uint64_t *out = lv->out + (size_t)b * lv->nwords;
        for (uint32_t w = 0; w < lv->nwords; w++)
            for (uint64_t bits = out[w]; bits; bits &= bits - 1) add_range(B, w * 64 + (uint32_t)__builtin_ctzll(bits), bfrom, bto);
    } else {
        uint32_t n;
        const uint32_t *out = rv_ls_list(ls, b, true, &n);
        for (uint32_t k = 0; k < n; k++) add_range(B, out[k], bfrom, bto);
    }
    for (uint32_t j = bl->ninsts; j-- > 0;) iv_inst(B, f, bl->first_inst + j, bfrom);
    for (uint32_t p = bl->nparams; p-- > 0;) {
        uint32_t v = rv_block_params(f, bl)[p];
        def_range(B, v, bfrom);
        add_use(B, v, bfrom, bl->first_inst, RAVEL_NONE, RAVEL_C_ANY, RV_UP_DEF | RV_UP_PARAM, 0);
    }
}

/* Flattens the per-vreg range lists into CSR arrays (lists are already
 * ascending). */
static void iv_flatten(rv_intervals *s, iv_build *B)
{
    s->ranges = rv_xmalloc(sizeof(rv_range) * (B->r.len ? B->r.len : 1));
    uint32_t nr = 0;
    for (uint32_t v = 0; v < s->nvregs; v++) {
        rv_interval *it = &s->iv[v];
        it->first_range = nr;
        for (uint32_t h = B->rhead[v]; h != RAVEL_NONE; h = B->r.data[h].next) {
            rv_range r = {B->r.data[h].from, B->r.data[h].to};
            s->ranges[nr++] = r;
        }
        it->nranges = nr - it->first_range;
    }
    s->nranges_total = nr;
}

static void uo_count(rv_intervals *s, const ravel_func *f, uint32_t nblocks);

static void iv_build_all(rv_intervals *s, const ravel_func *f, const rv_cfg *cfg, const rv_liveness *lv, const rv_live_sparse *ls)
{
    iv_build B;
    memset(&B, 0, sizeof B);
    s->nvregs = f->vregs.len;
    s->npoints = 2 * f->insts.len;
    s->iv = rv_xcalloc(s->nvregs + 1, sizeof(rv_interval));
    B.rhead = rv_xmalloc(sizeof(uint32_t) * 2 * ((size_t)s->nvregs + 1));
    B.ucur = B.rhead + s->nvregs + 1;
    memset(B.rhead, 0xff, sizeof(uint32_t) * ((size_t)s->nvregs + 1));
    uo_count(s, f, cfg->nblocks); /* the rows of the use positions */
    uint32_t nu = 0;
    for (uint32_t v = 0; v < s->nvregs; v++) {
        s->iv[v].first_use = nu;
        nu += s->iv[v].nuses;
        B.ucur[v] = nu;
    }
    s->uses = B.uses = rv_xmalloc(sizeof(rv_use_pos) * (nu ? nu : 1));
    s->nuses_total = nu;
    /* most ranges start at an operand, a jump argument or a block's start */
    rv_vec_reserve(B.r, (size_t)f->ops.len + f->u32.len + cfg->nblocks + 1);
    for (uint32_t b = cfg->nblocks; b-- > 0;) iv_block(&B, f, lv, ls, b);
    iv_flatten(s, &B);
    rv_vec_free(B.r);
    rv_free(B.rhead); /* (and ucur) */
}

void rv_intervals_build(rv_intervals *s, const ravel_func *f, const rv_cfg *cfg, const rv_liveness *lv)
{
    iv_build_all(s, f, cfg, lv, NULL);
}

/* Use positions alone: a forward pass counting them per vreg, then one
 * placing them (CSR) in the order iv_inst's lists give: per block its
 * params, then per instruction early defs, jump arguments, early uses,
 * late defs, late uses, each group in operand order. */
typedef struct uo_ctx {
    rv_intervals *s;
    uint32_t *cur;  /* next free record per vreg */
} uo_ctx;

static void uo_add(uo_ctx *c, uint32_t v, uint32_t pos, uint32_t inst, uint32_t op, uint8_t kind, uint8_t flags, uint16_t arg)
{
    c->s->uses[c->cur[v]++] = (rv_use_pos){pos, inst, op, kind, flags, arg};
}

static void uo_ops(uo_ctx *c, const ravel_func *f, uint32_t i, const rv_inst *in, bool defs, bool late)
{
    const rv_operand *ops = rv_ops_of(f, in);
    uint32_t from = defs ? 0 : in->ndefs, to = defs ? in->ndefs : (uint32_t)in->ndefs + in->nuses;
    for (uint32_t k = from; k < to; k++)
        if (rv_op_is_late(&ops[k]) == late)
            uo_add(c, ops[k].vreg, late ? rv_point_late(i) : rv_point_early(i), i, in->first_op + k, ops[k].kind,
                   defs ? RV_UP_DEF : 0, ops[k].arg);
}

/* Pass 0 counts every record of every vreg (order does not matter). */
static void uo_count(rv_intervals *s, const ravel_func *f, uint32_t nblocks)
{
    for (uint32_t b = 0; b < nblocks; b++) {
        const rv_block *bl = &f->blocks.data[b];
        for (uint32_t p = 0; p < bl->nparams; p++) s->iv[rv_block_params(f, bl)[p]].nuses++;
        for (uint32_t j = 0; j < bl->ninsts; j++) {
            const rv_inst *in = rv_inst_at(f, bl->first_inst + j);
            const rv_operand *ops = rv_ops_of(f, in);
            for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) s->iv[ops[k].vreg].nuses++;
            for (uint32_t t = 0; t < rv_inst_nsuccs(in); t++) {
                const rv_succ *sc = &rv_inst_succs(f, in)[t];
                for (uint32_t a = 0; a < sc->nargs; a++) s->iv[rv_succ_args(f, sc)[a]].nuses++;
            }
        }
    }
}

static void uo_walk(uo_ctx *c, const ravel_func *f, uint32_t nblocks)
{
    for (uint32_t b = 0; b < nblocks; b++) {
        const rv_block *bl = &f->blocks.data[b];
        for (uint32_t p = 0; p < bl->nparams; p++)
            uo_add(c, rv_block_params(f, bl)[p], rv_point_early(bl->first_inst), bl->first_inst, RAVEL_NONE, RAVEL_C_ANY,
                   RV_UP_DEF | RV_UP_PARAM, 0);
        for (uint32_t j = 0; j < bl->ninsts; j++) {
            uint32_t i = bl->first_inst + j;
            const rv_inst *in = rv_inst_at(f, i);
            const rv_operand *ops = rv_ops_of(f, in);
            bool late = false;
            for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) late |= rv_op_is_late(&ops[k]);
            uo_ops(c, f, i, in, true, false);
            for (uint32_t s = 0; s < rv_inst_nsuccs(in); s++) {
                const rv_succ *sc = &rv_inst_succs(f, in)[s];
                for (uint32_t a = 0; a < sc->nargs; a++)
                    uo_add(c, rv_succ_args(f, sc)[a], rv_point_early(i), i, RAVEL_NONE, RAVEL_C_ANY, RV_UP_ARG, 0);
            }
            uo_ops(c, f, i, in, false, false);
            if (!late) continue;
            uo_ops(c, f, i, in, true, true);
            uo_ops(c, f, i, in, false, true);
        }
    }
}

static void iv_uses_only(rv_intervals *s, const ravel_func *f, const rv_cfg *cfg)
{
    s->nvregs = f->vregs.len;
    s->npoints = 2 * f->insts.len;
    s->iv = rv_xcalloc(s->nvregs + 1, sizeof(rv_interval));
    uo_ctx c = {s, NULL};
    uo_count(s, f, cfg->nblocks);
    uint32_t n = 0;
    c.cur = rv_xmalloc(sizeof(uint32_t) * (s->nvregs + 1));
    for (uint32_t v = 0; v < s->nvregs; v++) {
        s->iv[v].first_use = c.cur[v] = n;
        n += s->iv[v].nuses;
    }
    s->uses = rv_xmalloc(sizeof(rv_use_pos) * (n ? n : 1));
    s->ranges = rv_xmalloc(sizeof(rv_range));
    s->nuses_total = n;
    s->nranges_total = 0;
    uo_walk(&c, f, cfg->nblocks);
    rv_free(c.cur);
}

void rv_intervals_build_sparse(rv_intervals *s, const ravel_func *f, const rv_cfg *cfg, const rv_live_sparse *ls)
{
    if (ls) iv_build_all(s, f, cfg, NULL, ls);
    else iv_uses_only(s, f, cfg);
}

void rv_intervals_free(rv_intervals *s)
{
    rv_free(s->iv);
    rv_free(s->ranges);
    rv_free(s->uses);
    s->iv = NULL;
    s->ranges = NULL;
    s->uses = NULL;
}

bool rv_iv_covers(const rv_intervals *s, uint32_t v, uint32_t p)
{
    const rv_range *r = rv_iv_ranges(s, v);
    uint32_t lo = 0, hi = s->iv[v].nranges;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (r[mid].to <= p) lo = mid + 1;
        else if (r[mid].from > p) hi = mid;
        else return true;
    }
    return false;
}
