/* gen_tangle.c - tangles, the arbitrary control flow of the function
 * builder (gen_build.h; rv_gen_opts.cfg == RV_GEN_CFG_ANY).
 *
 * A tangle is a small arbitrary CFG of k "nodes" N0..Nk-1, entered from
 * the open block E by one terminator (a jump to N0, or a br, with or
 * without a condition, to several entry nodes: a cycle entered at two of
 * them is irreducible) and left through one exit block X, which continues
 * the region. A node is a region of its own (straight code, diamonds,
 * natural loops, nested tangles; calls and safepoints) whose last block
 * ends with edges to any nodes - forward, backward to an earlier node, or
 * to itself - and to X. So irreducible cycles nest in and around natural
 * loops, and E is often a loop header, a block of a loop body or a node of
 * an outer tangle (the shape where the cycle's common dominator is itself
 * re-entered by a retreating edge).
 *
 * The shape is drawn first (tg_shape: edges between node indices), then
 * made legal the way compilers lower such code:
 *   - critical edges: an edge from a block with several successors to a
 *     block with several predecessors is split by an edge block (one
 *     predecessor, a `jump` on; some take block parameters from the br and
 *     forward them, some compute the decremented fuel). docs/format.md section 4
 *     forbids critical edges, so the CFG before splitting has them and the
 *     one generated has their split form: many small forwarding blocks.
 *   - SSA: every node and X take block parameters. Only what E's scope
 *     holds dominates every node (E dominates the tangle), so a node sees
 *     E's scope, its own parameters and what it defines; values computed in
 *     a cycle reach other nodes and X only as arguments.
 *   - termination: when the shape has a backward edge (index order; every
 *     cycle has one), parameter 0 of every node is a fuel counter, F
 *     (1..4) on entry. A node with a backward edge is "gated": its last
 *     block tests the fuel (`eq`/`ne fuel, 0`, or `lt fuel, 1`) and leaves
 *     for X through its exit split block XS when it is 0; otherwise it goes
 *     on through a dispatch block (the br to its successors, when it has
 *     several). Backward edges pass fuel - 1 (computed in the last block or
 *     in the edge block), forward edges pass it unchanged, so the fuel
 *     stays >= 0 and each node runs at most F + 1 times per entry of the
 *     tangle (the loop weight budget counts F + 1).
 *   - every block is reachable: node j > 0 that E does not enter gets a
 *     forward edge from an earlier node. Every node reaches X: a gated
 *     node leaves through XS, the edges of any other node go forward or
 *     to X (by induction from the last node, whose only forward target is
 *     X).
 * Every block and every mandatory instruction (terminators, fuel code) is
 * created / reserved before the first node is filled, so nested regions
 * keep max_blocks and max_insts. */
#include "fuzz/gen_value.h"

#include <string.h>

enum { TG_MAX_NODES = 5, TG_MAX_SUCC = 6 };
enum { TG_X = TG_MAX_NODES }; /* the exit, as an edge's target (and its row in the per-target arrays) */
enum { TG_E = TG_MAX_NODES }; /* the entry, as a source (its row in tangle.src) */

typedef struct tg_edge {
    uint32_t to;          /* a node index, or TG_X */
    uint32_t blk;         /* the edge block that splits it, or RAVEL_NONE */
    uint32_t ep[2], nep;  /* the edge block's params (the br passes them) */
    bool dec;             /* backward: the edge block computes fuel - 1 */
} tg_edge;

typedef struct tg_src {
    tg_edge out[TG_MAX_SUCC];
    uint32_t nout;
    bool gated;           /* a node with a backward edge: tests its fuel first */
    bool dec_tail;        /* gated: fuel - 1 is computed in the node's last block */
    uint32_t xs, disp;    /* gated: its exit split block; its dispatch block (nout >= 2) */
} tg_src;

typedef struct tangle {
    uint32_t k;                           /* nodes */
    bool cycles;                          /* backward edges allowed: the nodes carry fuel */
    uint32_t fuel;                        /* F, the fuel on entry */
    uint32_t maxsucc;                     /* successors of one br */
    tg_src src[TG_MAX_NODES + 1];         /* the nodes' edges, then E's (TG_E) */
    uint32_t npred[TG_MAX_NODES + 1];     /* edges into each node, then into X (TG_X) */
    uint32_t blk[TG_MAX_NODES + 1];       /* node blocks, then X */
    uint32_t params[TG_MAX_NODES + 1][MAX_PARAMS + 1], np[TG_MAX_NODES + 1]; /* [0]: fuel when cycles */
} tangle;

static bool tg_is_back(uint32_t from, uint32_t to) { return from != TG_E && to != TG_X && to <= from; }

/* Adds edge from -> to unless it is there or from's br is full. */
static bool tg_add(tangle *t, uint32_t from, uint32_t to)
{
    tg_src *s = &t->src[from];
    if (s->nout >= t->maxsucc) return false;
    for (uint32_t i = 0; i < s->nout; i++)
        if (s->out[i].to == to) return false;
    s->out[s->nout++] = (tg_edge){to, RAVEL_NONE, {0, 0}, 0, false};
    t->npred[to]++;
    if (tg_is_back(from, to)) s->gated = true;
    return true;
}

/* A random target for node i's extra edges: backward (itself included) when
 * cycles are allowed, forward, or X. */
static uint32_t tg_pick_target(gen *g, const tangle *t, uint32_t i)
{
    uint32_t r = below(g, 100);
    if (t->cycles && r < 45) return below(g, i + 1);
    if (r < 82 && i + 1 < t->k) return i + 1 + below(g, t->k - 1 - i);
    return TG_X;
}

/* Draws the edges (see above). */
static void tg_shape(gen *g, tangle *t)
{
    tg_add(t, TG_E, 0);
    for (uint32_t j = 1; j < t->k; j++)
        if (chance(g, 60)) tg_add(t, TG_E, j);
    if (chance(g, 10)) tg_add(t, TG_E, TG_X);
    if (t->cycles && t->k >= 2 && chance(g, 35)) { /* a two-entry cycle a -> b -> a: irreducible */
        uint32_t b = 1 + below(g, t->k - 1), a = below(g, b);
        tg_add(t, TG_E, a);
        tg_add(t, TG_E, b);
        tg_add(t, a, b);
        tg_add(t, b, a);
    }
    for (uint32_t j = 1; j < t->k; j++) { /* reachability: a forward edge into every node E does not enter */
        if (t->npred[j]) continue;
        uint32_t i = below(g, j);
        for (uint32_t n = 0; n < j && !tg_add(t, i, j); n++) i = i + 1 == j ? 0 : i + 1;
    }
    for (uint32_t i = 0; i < t->k; i++) {
        uint32_t want = 1;
        if (chance(g, 40)) want = 2 + (t->maxsucc > 2 && chance(g, 35) ? below(g, t->maxsucc - 1) : 0);
        for (uint32_t n = 0; n < want + 2 && t->src[i].nout < want; n++) tg_add(t, i, tg_pick_target(g, t, i));
        if (!t->src[i].nout) tg_add(t, i, TG_X); /* an ungated node's edges go forward or to X */
    }
    for (uint32_t i = 0; i < t->k; i++) t->npred[TG_X] += t->src[i].gated; /* XS -> X */
}

/* Whether edge e of source from is split: its br has several successors
 * and its target several predecessors. */
static bool tg_split(const tangle *t, uint32_t from, const tg_edge *e)
{
    const tg_src *s = &t->src[from];
    return (s->gated || s->nout >= 2) && t->npred[e->to] >= 2;
}

/* Blocks and mandatory instructions of the tangle's shape (the node
 * blocks and X included; what the nodes' regions add is not). Decides
 * where each gated node computes fuel - 1. */
static void tg_cost(gen *g, tangle *t, uint32_t *blocks, uint32_t *insts)
{
    uint32_t nb = t->k + 1, ni = t->cycles + 1; /* [fuel = const F] and E's terminator */
    for (uint32_t from = 0; from <= TG_E; from = from + 1 == t->k ? TG_E : from + 1) {
        tg_src *s = &t->src[from];
        uint32_t unsplit_back = 0, back = 0;
        for (uint32_t i = 0; i < s->nout; i++) {
            bool split = tg_split(t, from, &s->out[i]), bk = tg_is_back(from, s->out[i].to);
            nb += split, ni += split;
            back += bk;
            unsplit_back += bk && !split;
        }
        if (from == TG_E) break;
        if (!s->gated) {
            ni++; /* the terminator */
            continue;
        }
        s->dec_tail = unsplit_back || chance(g, 50);
        nb += 1 + (s->nout >= 2);               /* XS, [dispatch] */
        ni += 3 + (s->nout >= 2);               /* test, gate br, XS jump, [dispatch br] */
        ni += s->dec_tail ? 1 : back;           /* fuel - 1 */
        for (uint32_t i = 0; i < s->nout; i++) s->out[i].dec = !s->dec_tail && tg_is_back(from, s->out[i].to);
    }
    *blocks = nb;
    *insts = ni;
}

/* Arguments for edge e's target from the current scope: the fuel (fuel, or
 * dec, fuel - 1, on a backward edge) and the carried values. Returns the
 * count. */
static uint32_t tg_args(gen *g, const tangle *t, uint32_t from, const tg_edge *e, uint32_t fuel, uint32_t dec,
                        uint32_t *args)
{
    bool back = tg_is_back(from, e->to);
    const uint32_t *p = t->params[e->to];
    uint32_t c = t->cycles && e->to != TG_X ? 1 : 0, n = t->np[e->to];
    if (c) args[0] = back ? dec : fuel;
    gen_pick_args(g, p + c, n - c, args + c, false); /* not gen_pick_args' swap: the target's params are not in scope */
    return n;
}

/* Edge e as a successor of the open terminator: to its edge block (with
 * arguments for the edge block's params) or straight to its target. */
static void tg_succ(gen *g, const tangle *t, uint32_t from, const tg_edge *e, uint32_t fuel, uint32_t dec)
{
    uint32_t args[MAX_PARAMS + 1];
    if (e->blk != RAVEL_NONE) {
        gen_pick_args(g, e->ep, e->nep, args, false);
        gen_add_succ(g->f, e->blk, args, e->nep);
    } else {
        uint32_t n = tg_args(g, t, from, e, fuel, dec, args);
        gen_add_succ(g->f, t->blk[e->to], args, n);
    }
}

/* Ends the open block with the terminator that carries source from's
 * edges: a jump (one edge) or a br with or without a condition (cond, or
 * when it is RAVEL_NONE a value picked now). */
static void tg_carrier(gen *g, const tangle *t, uint32_t from, uint32_t fuel, uint32_t dec, uint32_t cond)
{
    const tg_src *s = &t->src[from];
    ginst I;
    g->reserved--;
    gi_init(g, &I, s->nout >= 2 ? RAVEL_OP_BR : RAVEL_OP_JUMP, NM_NONE);
    if (s->nout >= 2 && (!has(g, RV_GEN_MULTIWAY) || chance(g, 75))) {
        uint32_t c = cond != RAVEL_NONE ? cond : pick_val(g, -1, -1); /* not none: a tangle starts with a value in scope */
        if (!gen_use(g, &I, c)) gen_use_as(g, &I, c, kind_op(RAVEL_C_REG));
    }
    gen_emit_begin(g, &I);
    for (uint32_t i = 0; i < s->nout; i++) tg_succ(g, t, from, &s->out[i], fuel, dec);
    end_inst(g->f);
}

/* The edge blocks of source from, each in the scope sc of its source's
 * last block: [fuel - 1;] jump on. */
static void tg_edge_blocks(gen *g, const tangle *t, uint32_t from, const scope *sc, uint32_t fuel, uint32_t dec)
{
    const tg_src *s = &t->src[from];
    for (uint32_t i = 0; i < s->nout; i++) {
        const tg_edge *e = &s->out[i];
        if (e->blk == RAVEL_NONE) continue;
        gen_scope_restore(g, sc);
        gen_begin_block(g, e->blk, e->ep, e->nep);
        uint32_t d = dec, args[MAX_PARAMS + 1];
        if (e->dec) {
            g->reserved--;
            d = gen_emit_binop_imm(g, RAVEL_OP_SUB, fuel, 1);
        }
        uint32_t n = tg_args(g, t, from, e, fuel, d, args);
        g->reserved--;
        gen_emit_jump_args(g, t->blk[e->to], args, n);
    }
}

/* The end of gated node i: [dec = sub fuel, 1;] z = test of fuel; br z
 * to XS (fuel 0) and on (the dispatch block, or the one edge); then XS:
 * jump X(...), the dispatch block and the edge blocks. */
static void tg_gate(gen *g, const tangle *t, uint32_t i)
{
    const tg_src *s = &t->src[i];
    uint32_t fuel = t->params[i][0], dec = RAVEL_NONE;
    if (s->dec_tail) {
        g->reserved--;
        dec = gen_emit_binop_imm(g, RAVEL_OP_SUB, fuel, 1);
    }
    uint32_t kind = below(g, 3); /* eq fuel, 0 / lt fuel, 1: XS first; ne fuel, 0: XS second */
    static const ravel_opcode test_op[3] = {RAVEL_OP_EQ, RAVEL_OP_LT, RAVEL_OP_NE};
    g->reserved -= 2;
    uint32_t z = gen_emit_binop_imm(g, test_op[kind], fuel, kind == 1 ? 1 : 0);
    ginst I;
    gi_init(g, &I, RAVEL_OP_BR, NM_NONE);
    if (!gen_use(g, &I, z)) gen_use_as(g, &I, z, kind_op(RAVEL_C_REG));
    gen_emit_begin(g, &I);
    if (kind != 2) gen_add_succ(g->f, s->xs, NULL, 0);
    if (s->nout >= 2) gen_add_succ(g->f, s->disp, NULL, 0);
    else tg_succ(g, t, i, &s->out[0], fuel, dec);
    if (kind == 2) gen_add_succ(g->f, s->xs, NULL, 0);
    end_inst(g->f);
    scope sc;
    gen_scope_save(g, &sc);
    gen_begin_block(g, s->xs, NULL, 0);
    g->reserved--;
    gen_emit_jump(g, t->blk[TG_X], t->params[TG_X], t->np[TG_X], false);
    if (s->nout >= 2) {
        gen_scope_restore(g, &sc);
        gen_begin_block(g, s->disp, NULL, 0);
        tg_carrier(g, t, i, fuel, dec, RAVEL_NONE);
    }
    tg_edge_blocks(g, t, i, &sc, fuel, dec);
}

/* Creates the tangle's blocks and params in E's scope: nodes [fuel +
 * carried values], X [values out], and per source its XS, dispatch and
 * edge blocks (a quarter of them with params). */
static void tg_blocks(gen *g, tangle *t)
{
    for (uint32_t j = 0; j < t->k; j++) t->blk[j] = gen_new_block(g);
    t->blk[TG_X] = gen_new_block(g);
    for (uint32_t j = 0; j < t->k; j++) {
        uint32_t c = 0;
        if (t->cycles) {
            t->params[j][0] = gen_new_vreg(g, 0);
            ravel_block_add_param(g->f, t->blk[j], t->params[j][0]);
            c = 1;
        }
        t->np[j] = c + gen_make_params(g, t->blk[j], below(g, 2 + g->o->pressure / 25), t->params[j] + c);
    }
    t->np[TG_X] = gen_make_params(g, t->blk[TG_X], below(g, 3), t->params[TG_X]);
    for (uint32_t from = 0; from <= TG_E; from = from + 1 == t->k ? TG_E : from + 1) {
        tg_src *s = &t->src[from];
        s->xs = s->disp = RAVEL_NONE;
        if (s->gated) s->xs = gen_new_block(g);
        if (s->gated && s->nout >= 2) s->disp = gen_new_block(g);
        for (uint32_t i = 0; i < s->nout; i++) {
            tg_edge *e = &s->out[i];
            if (!tg_split(t, from, e)) continue;
            e->blk = gen_new_block(g);
            if (chance(g, 25)) e->nep = gen_make_params(g, e->blk, 1 + below(g, 2), e->ep);
        }
        if (from == TG_E) break;
    }
}

/* A tangle at the open block E (see above), if the options and budgets
 * allow one; X is open afterwards. */
bool gen_tangle(gen *g, uint32_t depth)
{
    if (g->o->cfg != RV_GEN_CFG_ANY || !has(g, RV_GEN_LOOPS) || !has(g, RV_GEN_PARAMS) || depth >= MAX_DEPTH ||
        !type_mask(g, -1, -1) || block_room(g) < 3)
        return false;
    tangle t;
    memset(&t, 0, sizeof t);
    t.cycles = (uint64_t)g->weight * 2 <= g->max_weight;
    if (t.cycles) {
        t.fuel = 1 + below(g, 4);
        while (t.fuel > 1 && (uint64_t)g->weight * (t.fuel + 1) > g->max_weight) t.fuel--;
    }
    t.maxsucc = has(g, RV_GEN_MULTIWAY) ? TG_MAX_SUCC : 2;
    uint32_t k = 2 + below(g, TG_MAX_NODES - 1), nb, ni;
    for (;; k--) { /* smaller shapes until one fits */
        memset(t.src, 0, sizeof t.src);
        memset(t.npred, 0, sizeof t.npred);
        t.k = k;
        tg_shape(g, &t);
        tg_cost(g, &t, &nb, &ni);
        if (nb <= block_room(g) && ni < room(g)) break;
        if (k == 1) return false;
    }
    g->reserved += ni;
    tg_blocks(g, &t);
    uint32_t fuel0 = RAVEL_NONE, cond = pick_val(g, -1, -1); /* E's condition: not the constant fuel */
    if (t.cycles) {
        g->reserved--;
        fuel0 = gen_emit_const(g, t.fuel);
    }
    tg_carrier(g, &t, TG_E, fuel0, RAVEL_NONE, cond);
    scope sc, sct;
    gen_scope_save(g, &sc);
    tg_edge_blocks(g, &t, TG_E, &sc, fuel0, RAVEL_NONE);
    g->weight *= t.fuel + 1;
    for (uint32_t i = 0; i < t.k; i++) {
        gen_scope_restore(g, &sc);
        gen_begin_block(g, t.blk[i], t.params[i], t.np[i]);
        if (chance(g, 30)) gen_tangle(g, depth + 1); /* its E: this node, re-entered by a retreating edge */
        g->region(g, depth + 1);
        uint32_t fuel = t.cycles ? t.params[i][0] : RAVEL_NONE;
        if (t.src[i].gated) {
            tg_gate(g, &t, i);
            continue;
        }
        tg_carrier(g, &t, i, fuel, RAVEL_NONE, RAVEL_NONE);
        gen_scope_save(g, &sct);
        tg_edge_blocks(g, &t, i, &sct, fuel, RAVEL_NONE);
    }
    g->weight /= t.fuel + 1;
    gen_scope_restore(g, &sc);
    gen_begin_block(g, t.blk[TG_X], t.params[TG_X], t.np[TG_X]);
    return true;
}
