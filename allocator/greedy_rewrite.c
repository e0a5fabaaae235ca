/* greedy_rewrite.c - from the `greedy` allocator's pieces to the allocated
 * function (greedy.h explains points and pieces).
 *
 * Requires: every live range of g is assigned a register or spilled
 * (stage GR_ST_SLOT); each vreg's pieces partition its live points;
 * operands that need a register lie in register pieces (tiny pieces
 * included).
 * Guarantees: the alloc.h contract:
 *   slots     each vreg with a slot gets one; slots are coloured over the
 *             vregs' whole live ranges (first fit among the slots free by
 *             then, or among the last few used whose segments do not
 *             overlap), so vregs never live at once share one;
 *   operands  a fixed operand is in its register, a reused use in its
 *             def's register, a stack operand in its vreg's slot, any other
 *             in the piece covering the point it is read or written;
 *   gaps      before instruction i, one parallel move: pieces starting at
 *             the gap from where the vreg was (a reload, a move), defs of
 *             the previous instruction from where they were written to
 *             their piece and to their slot (the one store of a spilled
 *             vreg), block parameters to their slot (unless stored on the
 *             edges, below), live-ins of a join reloaded at its top (below),
 *             values into the registers of fixed uses and of reused uses;
 *             a reload from a slot that an earlier edit of the same move
 *             mirrors becomes a move;
 *   edges     for each live-in value of the successor that starts in a
 *             register, and each block parameter, a parallel move from the
 *             predecessor's end (at the end of a single-successor
 *             predecessor, else at the start of the successor);
 *   joins     a live-in that starts in a register and is in its slot is
 *             reloaded once at the join's top rather than on each edge that
 *             brings it elsewhere, when that is cheaper (by 10^depth); a
 *             spilled parameter is stored on the edges whose argument is not
 *             in its slot already rather than at the join's top, when that
 *             is cheaper;
 *   stackmaps every reference live across a safepoint is in its slot there
 *             (the allocation made sure) and listed.
 * Moves run through the shared resolver with, as scratch, the registers
 * no piece or reservation holds at the gap. */
#include "greedy.h"
#include "claims.h"

#include <stdlib.h>
#include <string.h>

#define NIL RAVEL_NONE
#define NOVREG (RAVEL_NONE - 3) /* a tag no reservation allows */

typedef struct pent { uint32_t from, to; ravel_loc loc; } pent;

typedef struct rw {
    gr *g;
    const ravel_func *f;
    rv_out out;
    rv_pmove pm;
    uint32_t *pstart;   /* per vreg: its pieces' segments pe[pstart[v] .. pstart[v+1]), sorted */
    pent *pe;
    uint32_t *slot;     /* per vreg: physical slot, or RAVEL_NONE */
    uint32_t nslots, ntmp, tmp_used;
    ravel_loc *defloc;  /* per vreg: where its def wrote it */
    uint32_t *ev_start, *ev_v; /* per instruction: vregs whose piece changes at its gap */
    uint32_t *el_start, *el_v; /* per block: live-ins reloaded at its first gap, not on its edges (ascending) */
    uint8_t *pedge;     /* per vreg: a parameter stored on its block's incoming edges, not at its first gap */
    RV_VEC(rv_move) mv;
    RV_VEC(uint32_t) mvv; /* the vreg of each move */
    uint64_t *scratch;
    RV_VEC(uint64_t) smap; /* inst << 32 | slot */
    uint32_t cur;       /* instruction being rewritten (errors) */
} rw;

static bool internal(rw *w, const char *what)
{
    return gr_fail(w->g, w->cur, "internal error: %s", what);
}

/* ---- the pieces of each vreg ---- */

static int cmp_pent(const void *a, const void *b)
{
    const pent *x = a, *y = b;
    return x->from < y->from ? -1 : x->from > y->from;
}

static void build_pieces(rw *w)
{
    gr *g = w->g;
    w->pstart = rv_xcalloc(g->nv + 2, sizeof(uint32_t));
    for (uint32_t id = 0; id < g->lrs.len; id++)
        if (g->lrs.data[id].stage != GR_ST_DEAD) w->pstart[g->lrs.data[id].vreg + 1] += g->lrs.data[id].nseg;
    for (uint32_t v = 0; v < g->nv; v++) w->pstart[v + 1] += w->pstart[v];
    uint32_t *fill = rv_xmalloc(sizeof(uint32_t) * (g->nv + 1));
    memcpy(fill, w->pstart, sizeof(uint32_t) * (g->nv + 1));
    w->pe = rv_xmalloc(sizeof(pent) * (w->pstart[g->nv] + 1));
    for (uint32_t id = 0; id < g->lrs.len; id++) {
        const gr_lr *lr = &g->lrs.data[id];
        if (lr->stage == GR_ST_DEAD) continue;
        ravel_loc l = lr->stage == GR_ST_SLOT ? RAVEL_SLOT_BIT : lr->reg; /* slots: mapped once coloured */
        for (uint32_t k = 0; k < lr->nseg; k++) w->pe[fill[lr->vreg]++] = (pent){gr_segs(g, id)[k].from, gr_segs(g, id)[k].to, l};
    }
    rv_free(fill);
    for (uint32_t v = 0; v < g->nv; v++) {
        pent *p = w->pe + w->pstart[v];
        uint32_t n = w->pstart[v + 1] - w->pstart[v];
        bool sorted = true;
        for (uint32_t k = 1; k < n && sorted; k++) sorted = p[k - 1].from < p[k].from;
        if (!sorted) qsort(p, n, sizeof *p, cmp_pent);
    }
}

/* The location of v at point p (its piece there), or RAVEL_LOC_NONE. */
static ravel_loc loc_at(const rw *w, uint32_t v, uint32_t p)
{
    uint32_t lo = w->pstart[v], hi = w->pstart[v + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (w->pe[mid].to <= p) lo = mid + 1;
        else hi = mid;
    }
    return lo < w->pstart[v + 1] && w->pe[lo].from <= p ? w->pe[lo].loc : RAVEL_LOC_NONE;
}

static inline ravel_loc slot_loc(const rw *w, uint32_t v) { return w->slot[v] == NIL ? RAVEL_LOC_NONE : ravel_slot(w->slot[v]); }
static inline bool is_reg(ravel_loc l) { return l != RAVEL_LOC_NONE && ravel_loc_is_reg(l); }

/* ---- spill slots ---- */

typedef struct coloring {
    gr_pool p;
    RV_VEC(gr_set) set;
    RV_VEC(uint32_t) maxend;
    RV_VEC(uint64_t) heap; /* min-heap of maxend << 32 | slot (stale entries skipped) */
    uint32_t recent[8], nrecent;
} coloring;

static void cheap_push(coloring *c, uint64_t x)
{
    rv_vec_push(c->heap, x);
    for (uint32_t i = c->heap.len - 1; i && c->heap.data[(i - 1) / 2] > x; i = (i - 1) / 2) {
        c->heap.data[i] = c->heap.data[(i - 1) / 2];
        c->heap.data[(i - 1) / 2] = x;
    }
}
static uint64_t cheap_pop(coloring *c)
{
    uint64_t top = c->heap.data[0], x = c->heap.data[--c->heap.len];
    uint32_t i = 0, n = c->heap.len;
    for (;;) {
        uint32_t k = 2 * i + 1;
        if (k >= n) break;
        if (k + 1 < n && c->heap.data[k + 1] < c->heap.data[k]) k++;
        if (c->heap.data[k] >= x) break;
        c->heap.data[i] = c->heap.data[k];
        i = k;
    }
    if (n) c->heap.data[i] = x;
    return top;
}

static bool slot_fits(const coloring *c, uint32_t s, const pent *p, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        if (gr_set_overlaps(&c->p, &c->set.data[s], p[k].from, p[k].to)) return false;
    return true;
}

/* A slot for a vreg whose pieces are p[0..n) (sorted): one whose last use
 * ends before them, else a recent one they do not overlap, else a new one. */
static uint32_t pick_slot(coloring *c, const pent *p, uint32_t n)
{
    while (c->heap.len && (uint32_t)(c->heap.data[0] >> 32) <= p[0].from) {
        uint64_t x = cheap_pop(c);
        uint32_t s = (uint32_t)x;
        if (c->maxend.data[s] == (uint32_t)(x >> 32)) return s;
    }
    for (uint32_t k = 0; k < c->nrecent; k++)
        if (slot_fits(c, c->recent[k], p, n)) return c->recent[k];
    rv_vec_push(c->set, ((gr_set){0, 0, NULL, NULL}));
    rv_vec_push(c->maxend, 0);
    return c->set.len - 1;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void color_slots(rw *w)
{
    gr *g = w->g;
    RV_VEC(uint64_t) order = {0};
    for (uint32_t v = 0; v < g->nv; v++)
        if (g->has_slot[v] && w->pstart[v + 1] > w->pstart[v]) rv_vec_push(order, ((uint64_t)w->pe[w->pstart[v]].from << 32) | v);
    if (order.len > 1) qsort(order.data, order.len, sizeof *order.data, cmp_u64);
    coloring c;
    memset(&c, 0, sizeof c);
    for (uint32_t k = 0; k < order.len; k++) {
        uint32_t v = (uint32_t)order.data[k], n = w->pstart[v + 1] - w->pstart[v];
        const pent *p = w->pe + w->pstart[v];
        uint32_t s = pick_slot(&c, p, n);
        for (uint32_t j = 0; j < n; j++) gr_set_insert(&c.p, &c.set.data[s], p[j].from, p[j].to, v);
        if (p[n - 1].to > c.maxend.data[s]) c.maxend.data[s] = p[n - 1].to;
        cheap_push(&c, ((uint64_t)c.maxend.data[s] << 32) | s);
        c.recent[c.nrecent < 8 ? c.nrecent++ : (uint32_t)(k % 8)] = s;
        w->slot[v] = s;
    }
    w->nslots = c.set.len;
    for (uint32_t v = 0; v < g->nv; v++) /* the pieces in slots, now numbered */
        for (uint32_t k = w->pstart[v]; k < w->pstart[v + 1]; k++)
            if (w->pe[k].loc == RAVEL_SLOT_BIT) w->pe[k].loc = slot_loc(w, v);
    for (uint32_t s = 0; s < c.set.len; s++) gr_set_free(&c.set.data[s]);
    rv_vec_free(c.set);
    gr_pool_free(&c.p);
    rv_vec_free(c.maxend);
    rv_vec_free(c.heap);
    rv_vec_free(order);
}

/* ---- piece changes at gaps ---- */

static bool block_start(const gr *g, uint32_t p) { return p == gr_block_start(g, gr_block_at(g, p)); }

/* Per instruction, the vregs whose piece changes at its gap (the first
 * instructions of blocks excepted: edges make those). Changes elsewhere
 * may only enter the vreg's slot, which holds it already. */
static bool build_events(rw *w)
{
    gr *g = w->g;
    w->ev_start = rv_xcalloc(g->ni + 2, sizeof(uint32_t));
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t v = 0; v < g->nv; v++)
            for (uint32_t k = w->pstart[v] + 1; k < w->pstart[v + 1]; k++) {
                const pent *a = &w->pe[k - 1], *b = &w->pe[k];
                if (a->to != b->from || block_start(g, b->from) || a->loc == b->loc) continue;
                if (b->from % 4) {
                    if (ravel_loc_is_slot(b->loc)) continue;
                    w->cur = b->from / 4;
                    return internal(w, "a piece starts between two points of an instruction");
                }
                if (pass) w->ev_v[w->ev_start[b->from / 4]++] = v;
                else w->ev_start[b->from / 4 + 1]++;
            }
        if (pass) break;
        for (uint32_t i = 0; i < g->ni; i++) w->ev_start[i + 1] += w->ev_start[i];
        w->ev_v = rv_xmalloc(sizeof(uint32_t) * (w->ev_start[g->ni] + 1));
    }
    for (uint32_t i = g->ni; i > 0; i--) w->ev_start[i] = w->ev_start[i - 1]; /* back to row starts */
    w->ev_start[0] = 0;
    return true;
}

/* ---- reloads at a join's entry ---- */

/* A live-in of a join that starts in a register and is in its slot:
 * one reload at the join's first gap, rather than one on each incoming
 * edge that has it elsewhere, when that is cheaper (a loop header whose
 * entry and back edges both reload it). */
static bool entry_load(const rw *w, uint32_t s, uint32_t v)
{
    const gr *g = w->g;
    ravel_loc r = loc_at(w, v, gr_block_start(g, s));
    if (!g->has_slot[v] || !is_reg(r)) return false;
    double edges = 0;
    for (uint32_t e = g->cfg.pred_start[s]; e < g->cfg.pred_start[s + 1]; e++) {
        uint32_t p = g->cfg.pred[e];
        ravel_loc src = loc_at(w, v, gr_block_end(g, p) - 1);
        if (src != r) edges += g->freq[p] * (src != RAVEL_LOC_NONE && ravel_loc_is_slot(src) ? RV_COST_RELOAD : RV_COST_MOVE);
    }
    return RV_COST_RELOAD * g->freq[s] < edges;
}

/* The argument of block s's parameter number j on the edge from p. */
static uint32_t arg_from(const rw *w, uint32_t p, uint32_t s, uint32_t j)
{
    const rv_inst *t = rv_block_term(w->f, &w->f->blocks.data[p]);
    for (uint32_t k = 0; t && k < rv_inst_nsuccs(t); k++) {
        const rv_succ *sc = &rv_inst_succs(w->f, t)[k];
        if (sc->block == s && j < sc->nargs) return rv_succ_args(w->f, sc)[j];
    }
    return NIL;
}

/* A spilled parameter starting in a register is stored once at its
 * block's first gap, or on the edges whose argument is not in that slot
 * already (the parameter itself around a loop, or a vreg coloured into
 * the same slot), whichever is cheaper. */
static bool param_edge_store(const rw *w, uint32_t s, uint32_t j)
{
    const gr *g = w->g;
    uint32_t v = rv_block_params(w->f, &w->f->blocks.data[s])[j];
    if (!g->has_slot[v] || !is_reg(loc_at(w, v, gr_block_start(g, s)))) return false;
    double edges = 0;
    for (uint32_t e = g->cfg.pred_start[s]; e < g->cfg.pred_start[s + 1]; e++) {
        uint32_t p = g->cfg.pred[e], a = arg_from(w, p, s, j);
        if (a == NIL || !g->has_slot[a] || w->slot[a] != w->slot[v]) edges += g->freq[p];
    }
    return edges < g->freq[s];
}

static void build_entry_loads(rw *w)
{
    gr *g = w->g;
    w->el_start = rv_xcalloc(g->nb + 2, sizeof(uint32_t));
    RV_VEC(uint32_t) vs = {0};
    for (uint32_t s = 0; s < g->nb; s++) {
        w->el_start[s] = vs.len;
        if (rv_cfg_npreds(&g->cfg, s) < 2) continue;
        for (uint32_t j = 0; j < w->f->blocks.data[s].nparams; j++)
            w->pedge[rv_block_params(w->f, &w->f->blocks.data[s])[j]] = param_edge_store(w, s, j);
        uint32_t nin;
        const uint32_t *in = rv_ls_list(&g->ls, s, false, &nin);
        for (uint32_t j = 0; j < nin; j++)
            if (entry_load(w, s, in[j])) rv_vec_push(vs, in[j]);
    }
    w->el_start[g->nb] = vs.len;
    w->el_v = vs.data;
}

static bool is_entry_load(const rw *w, uint32_t s, uint32_t v)
{
    uint32_t lo = w->el_start[s], hi = w->el_start[s + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (w->el_v[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo < w->el_start[s + 1] && w->el_v[lo] == v;
}

/* ---- operands ---- */

/* Where def d of in goes: its fixed register (its own or the reused
 * use's, claims.h), its slot, else its range's register at its point. */
static ravel_loc def_loc(const rw *w, uint32_t i, const rv_inst *in, const rv_operand *ops, uint32_t d)
{
    uint32_t r = rv_fixed_def_reg(in, ops, d);
    if (r != RAVEL_NONE) return r;
    if (ops[d].kind == RAVEL_C_STACK) return slot_loc(w, ops[d].vreg);
    bool early = ops[d].kind == RAVEL_C_REUSE || rv_op_is_early(&ops[d]);
    return loc_at(w, ops[d].vreg, early ? 4 * i + 1 : 4 * i + 3);
}

static bool op_locs(rw *w, uint32_t i)
{
    const rv_inst *in = rv_inst_at(w->f, i);
    const rv_operand *ops = rv_ops_of(w->f, in);
    ravel_loc *loc = w->out.loc + in->first_op;
    for (uint32_t d = 0; d < in->ndefs; d++) {
        ravel_loc l = def_loc(w, i, in, ops, d);
        if (l == RAVEL_LOC_NONE || ((ops[d].kind == RAVEL_C_REG || ops[d].kind == RAVEL_C_REUSE) && !is_reg(l)))
            return internal(w, "a def without a location");
        loc[d] = l;
        w->defloc[ops[d].vreg] = l;
    }
    for (uint32_t k = 0; k < in->nuses; k++) {
        const rv_operand *u = &ops[in->ndefs + k];
        uint32_t d = gr_reuser(in, ops, k);
        ravel_loc l;
        if (d != NIL) l = loc[d];
        else if (u->kind == RAVEL_C_FIXED) l = u->arg;
        else if (u->kind == RAVEL_C_STACK) l = slot_loc(w, u->vreg);
        else l = loc_at(w, u->vreg, rv_op_is_late(u) ? 4 * i + 3 : 4 * i + 1);
        if (l == RAVEL_LOC_NONE || (u->kind == RAVEL_C_REG && !is_reg(l))) return internal(w, "a use without a location");
        loc[in->ndefs + k] = l;
    }
    return true;
}

/* ---- parallel moves ---- */

static bool add_move(rw *w, ravel_loc dst, ravel_loc src, uint32_t v)
{
    if (dst == src) return true;
    if (src == RAVEL_LOC_NONE || dst == RAVEL_LOC_NONE) return internal(w, "a value moved from or to nowhere");
    for (uint32_t k = 0; k < w->mv.len; k++)
        if (w->mv.data[k].dst == dst) return w->mvv.data[k] == v || internal(w, "two values moved into one location");
    rv_vec_push(w->mv, ((rv_move){dst, src, gr_vcls(w->g, v)}));
    rv_vec_push(w->mvv, v);
    return true;
}

static uint32_t tmp_slot(void *ctx)
{
    rw *w = ctx;
    uint32_t k = w->tmp_used < 2 ? w->tmp_used++ : 1;
    if (k + 1 > w->ntmp) w->ntmp = k + 1;
    return w->nslots + k;
}

/* Scratch registers: allocatable, held by no piece and no reservation
 * over [a0, a1) and [b0, b1), and not in the moves. */
static void scratch(rw *w, uint32_t a0, uint32_t a1, uint32_t b0, uint32_t b1)
{
    gr *g = w->g;
    memset(w->scratch, 0, sizeof(uint64_t) * rv_bs_words(g->nr + 1));
    for (uint32_t r = 0; r < g->nr; r++) {
        if (g->m->regs.data[r].reserved) continue;
        if (gr_set_overlaps(&g->pool, &g->uni[r], a0, a1) || gr_res_conflict(g, r, NOVREG, a0, a1)) continue;
        if (b0 < b1 && (gr_set_overlaps(&g->pool, &g->uni[r], b0, b1) || gr_res_conflict(g, r, NOVREG, b0, b1))) continue;
        rv_bs_set(w->scratch, r);
    }
    for (uint32_t k = 0; k < w->mv.len; k++) {
        if (is_reg(w->mv.data[k].dst)) rv_bs_clear(w->scratch, w->mv.data[k].dst);
        if (is_reg(w->mv.data[k].src)) rv_bs_clear(w->scratch, w->mv.data[k].src);
    }
}

/* In a sequence of edits, a reload from a slot that a register written
 * earlier in the sequence still mirrors (it was reloaded from the slot or
 * stored to it, and neither changed since) becomes a move from that
 * register: one load where a value goes to several fixed registers. */
static void reuse_reloads(rw *w)
{
    rv_edit *e = w->pm.out.data;
    for (uint32_t k = 0; k < w->pm.out.len; k++) {
        if (e[k].kind != RAVEL_OP_RELOAD) continue;
        for (uint32_t j = k; j-- > 0;) {
            bool mirror = (e[j].kind == RAVEL_OP_RELOAD && e[j].src == e[k].src) ||
                          (e[j].kind == RAVEL_OP_SPILL && e[j].dst == e[k].src);
            ravel_loc r = e[j].kind == RAVEL_OP_RELOAD ? e[j].dst : e[j].src;
            if (mirror) {
                bool clobbered = false; /* r or the slot written since */
                for (uint32_t i = j + 1; i < k && !clobbered; i++) clobbered = e[i].dst == r || e[i].dst == e[k].src;
                if (!clobbered && r != e[k].dst) e[k] = (rv_edit){RAVEL_OP_MOVE, e[k].dst, r};
                break;
            }
            if (e[j].dst == e[k].src) break; /* the slot was written otherwise */
        }
    }
}

static bool emit_moves(rw *w, uint32_t anchor, uint32_t a0, uint32_t a1, uint32_t b0, uint32_t b1)
{
    if (!w->mv.len) return true;
    if (!rv_pmove_simple(&w->pm, w->mv.data, w->mv.len)) {
        scratch(w, a0, a1, b0, b1);
        w->tmp_used = 0;
        if (rv_pmove_resolve(&w->pm, w->g->m, w->mv.data, w->mv.len, w->scratch, tmp_slot, w) != RAVEL_OK)
            return internal(w, "conflicting moves");
    }
    reuse_reloads(w);
    rv_out_edits(&w->out, anchor, &w->pm);
    if (w->g->o && w->g->o->trace)
        for (uint32_t k = 0; k < w->pm.out.len; k++) {
            char a[32], b[32];
            const rv_edit *e = &w->pm.out.data[k];
            rv_alloc_trace(w->g->o, "greedy", "%s %s <- %s at inst %u", e->kind == RAVEL_OP_SPILL ? "spill" : e->kind == RAVEL_OP_RELOAD ? "reload" : "move",
                           rv_loc_str(w->g->m, e->dst, a), rv_loc_str(w->g->m, e->src, b), anchor / 4);
        }
    w->mv.len = w->mvv.len = 0;
    return true;
}

/* Where v is just before gap g of instruction i (first: i starts its block). */
static ravel_loc src_loc(const rw *w, uint32_t v, uint32_t i, bool first)
{
    if (!first && w->g->use.def_inst[v] == i - 1) return w->defloc[v];
    if (first && is_entry_load(w, w->g->inst_block[i], v)) return slot_loc(w, v); /* its register is loaded here */
    return loc_at(w, v, first ? 4 * i : 4 * i - 1);
}

/* The defs of instruction i - 1 to their pieces and slots. */
static bool def_moves(rw *w, uint32_t i)
{
    const rv_inst *in = rv_inst_at(w->f, i - 1);
    const rv_operand *ops = rv_ops_of(w->f, in);
    for (uint32_t d = 0; d < in->ndefs; d++) {
        uint32_t v = ops[d].vreg;
        ravel_loc l = w->defloc[v], dst = loc_at(w, v, 4 * i);
        if (dst == RAVEL_LOC_NONE) continue; /* dead */
        if (is_reg(dst) && !add_move(w, dst, l, v)) return false;
        if (w->g->has_slot[v] && !add_move(w, slot_loc(w, v), l, v)) return false;
    }
    return true;
}

static bool gap_moves(rw *w, uint32_t b, uint32_t i)
{
    gr *g = w->g;
    const rv_block *bl = &w->f->blocks.data[b];
    bool first = i == bl->first_inst;
    if (!first && !def_moves(w, i)) return false;
    for (uint32_t k = first ? w->el_start[b] : 0; first && k < w->el_start[b + 1]; k++) {
        uint32_t v = w->el_v[k];
        if (!add_move(w, loc_at(w, v, 4 * i), slot_loc(w, v), v)) return false;
    }
    for (uint32_t k = 0; first && k < bl->nparams; k++) { /* a spilled parameter's one store */
        uint32_t v = rv_block_params(w->f, bl)[k];
        ravel_loc l = loc_at(w, v, 4 * i);
        if (g->has_slot[v] && is_reg(l) && !w->pedge[v] && !add_move(w, slot_loc(w, v), l, v)) return false;
    }
    for (uint32_t k = w->ev_start[i]; k < w->ev_start[i + 1]; k++) {
        uint32_t v = w->ev_v[k];
        ravel_loc dst = loc_at(w, v, 4 * i);
        if ((first || g->use.def_inst[v] != i - 1) && is_reg(dst) && !add_move(w, dst, src_loc(w, v, i, first), v)) return false;
    }
    const rv_inst *in = rv_inst_at(w->f, i);
    const rv_operand *ops = rv_ops_of(w->f, in);
    for (uint32_t k = 0; k < in->nuses; k++) {
        const rv_operand *u = &ops[in->ndefs + k];
        if (u->kind != RAVEL_C_FIXED && gr_reuser(in, ops, k) == NIL) continue;
        if (!add_move(w, w->out.loc[in->first_op + in->ndefs + k], src_loc(w, u->vreg, i, first), u->vreg)) return false;
    }
    uint32_t g0 = 4 * i;
    return emit_moves(w, rv_anchor_before(i), first ? g0 : g0 - 1, g0 + 1, 0, 0);
}

/* ---- edges ---- */

static bool edge_moves(rw *w, uint32_t p, uint32_t k)
{
    gr *g = w->g;
    const rv_block *pb = &w->f->blocks.data[p];
    const rv_inst *t = rv_block_term(w->f, pb);
    const rv_succ *sc = &rv_inst_succs(w->f, t)[k];
    uint32_t s = sc->block, ps = gr_block_start(g, s), pend = gr_block_end(g, p) - 1;
    bool reach = g->cfg.rpo_index[p] != NIL;
    uint32_t nin;
    const uint32_t *in = rv_ls_list(&g->ls, s, false, &nin);
    for (uint32_t j = 0; j < nin; j++) {
        if (is_entry_load(w, s, in[j])) continue;
        ravel_loc dst = loc_at(w, in[j], ps), src = loc_at(w, in[j], pend);
        if (is_reg(dst) && (reach || src != RAVEL_LOC_NONE) && !add_move(w, dst, src, in[j])) return false;
    }
    const rv_block *sb = &w->f->blocks.data[s];
    for (uint32_t j = 0; j < sb->nparams && j < sc->nargs; j++) {
        uint32_t v = rv_block_params(w->f, sb)[j], a = rv_succ_args(w->f, sc)[j];
        ravel_loc dst = loc_at(w, v, ps), src = loc_at(w, a, pend);
        if (dst == RAVEL_LOC_NONE || (!reach && src == RAVEL_LOC_NONE)) continue;
        if (!add_move(w, dst, src, v)) return false;
        if (w->pedge[v] && (!g->has_slot[a] || w->slot[a] != w->slot[v]) && !add_move(w, slot_loc(w, v), src, v)) return false;
    }
    if (!w->mv.len) return true;
    uint32_t anchor = rv_edge_anchor(w->f, &g->cfg, p, k, NULL);
    if (anchor == NIL) return gr_fail(g, pb->first_inst + pb->ninsts - 1, "critical edge (split it)");
    return emit_moves(w, anchor, pend, pend + 1, ps, ps + 1);
}

/* ---- stackmaps ---- */

static bool stackmaps(rw *w)
{
    gr *g = w->g;
    for (uint32_t v = 0; v < g->nv; v++) {
        if (!gr_vref(g, v)) continue;
        for (uint32_t k = w->pstart[v]; k < w->pstart[v + 1]; k++) {
            const pent *e = &w->pe[k];
            uint32_t lo = 0, hi = g->nsafe;
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (4 * g->safe[mid] + 2 < e->from) lo = mid + 1;
                else hi = mid;
            }
            for (; lo < g->nsafe && 4 * g->safe[lo] + 2 < e->to; lo++) {
                if (g->use.reuse_def[v] && g->use.def_inst[v] == g->safe[lo]) continue; /* written after it */
                w->cur = g->safe[lo];
                if (!ravel_loc_is_slot(e->loc)) return internal(w, "a reference in a register across a safepoint");
                rv_vec_push(w->smap, ((uint64_t)g->safe[lo] << 32) | ravel_loc_slot(e->loc));
            }
        }
    }
    if (w->smap.len > 1) qsort(w->smap.data, w->smap.len, sizeof *w->smap.data, cmp_u64);
    RV_VEC(uint32_t) sl = {0};
    for (uint32_t k = 0; k < w->smap.len;) {
        uint32_t i = (uint32_t)(w->smap.data[k] >> 32);
        sl.len = 0;
        for (; k < w->smap.len && (uint32_t)(w->smap.data[k] >> 32) == i; k++) rv_vec_push(sl, (uint32_t)w->smap.data[k]);
        rv_out_stackmap(&w->out, i, sl.data, sl.len);
    }
    rv_vec_free(sl);
    return true;
}

/* ---- driver ---- */

static bool rewrite_blocks(rw *w)
{
    gr *g = w->g;
    for (uint32_t b = 0; b < g->nb; b++) {
        const rv_block *bl = &w->f->blocks.data[b];
        for (uint32_t j = 0; j < bl->ninsts; j++) {
            w->cur = bl->first_inst + j;
            if (!op_locs(w, w->cur) || !gap_moves(w, b, w->cur)) return false;
        }
        const rv_inst *t = rv_block_term(w->f, bl);
        for (uint32_t k = 0; t && k < rv_inst_nsuccs(t); k++)
            if (!edge_moves(w, b, k)) return false;
    }
    return true;
}

ravel_func *gr_rewrite(gr *g)
{
    rw w;
    memset(&w, 0, sizeof w);
    w.g = g;
    w.f = g->f;
    w.cur = NIL;
    rv_out_init(&w.out, g->f);
    rv_pmove_init(&w.pm);
    w.slot = rv_xmalloc(sizeof(uint32_t) * (g->nv + 1));
    memset(w.slot, 0xff, sizeof(uint32_t) * (g->nv + 1));
    w.defloc = rv_xmalloc(sizeof(ravel_loc) * (g->nv + 1));
    w.pedge = rv_xcalloc(g->nv + 1, 1);
    w.scratch = rv_xcalloc(rv_bs_words(g->nr + 1) + 1, sizeof(uint64_t));
    build_pieces(&w);
    color_slots(&w);
    ravel_func *out = NULL;
    build_entry_loads(&w);
    bool ok = build_events(&w) && rewrite_blocks(&w) && stackmaps(&w);
    if (ok && w.nslots + w.ntmp > RAVEL_MAX_SLOT + 1) ok = gr_fail(g, NIL, "too many spill slots");
    if (ok) out = rv_out_finish(&w.out);
    if (ok && !out && !g->err) g->err = rv_out_limit_error(&w.out);
    rv_out_free(&w.out);
    rv_pmove_free(&w.pm);
    rv_free(w.pstart);
    rv_free(w.pe);
    rv_free(w.slot);
    rv_free(w.defloc);
    rv_free(w.pedge);
    rv_free(w.ev_start);
    rv_free(w.ev_v);
    rv_free(w.el_start);
    rv_free(w.el_v);
    rv_free(w.scratch);
    rv_vec_free(w.mv);
    rv_vec_free(w.mvv);
    rv_vec_free(w.smap);
    return out;
}
