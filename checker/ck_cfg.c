/* ck_cfg.c - the CFG phase: ir/cfg.c's analyses (rv_cfg: predecessors,
 * reverse post-order, the dominator tree, natural loops and their nesting) plus
 * what only the checker reads on top of them, in a context kept between
 * checks (rv_cfg_rebuild reuses its storage: no allocation per call once
 * warm).
 * Requires: ck_guard passed on the allocated function (every block has a
 * terminator, successors are laid-out blocks) and its facts' successor
 * lists (bsucc: no terminator is read again for the in-edges' indexes).
 * Guarantees, on top of rv_cfg's (whose predecessors are listed per block
 * by source block, then by successor index):
 *   pedge[p]       the edge (index into f->succs) of in-edge g.pred[p];
 *   lchild         each header's inner loops' headers, by block id (CSR
 *                  over lchild_start);
 *   retreat[b]     b has a retreating in-edge from a block it does not
 *                  dominate (an irreducible target: ck_vn.c irr_heads). */
#include "ck.h"

#include <stdlib.h>
#include <string.h>

void ck_cfg_init(ck_cfg *c) { memset(c, 0, sizeof *c); }

void ck_cfg_free(ck_cfg *c)
{
    rv_cfg_free(&c->g);
    rv_vec_free(c->pedge);
    rv_vec_free(c->lchild_start);
    rv_vec_free(c->lchild);
    rv_vec_free(c->next);
    rv_vec_free(c->retreat);
    ck_cfg_init(c);
}

size_t ck_cfg_memory(const ck_cfg *c)
{
#define V(x) ((size_t)c->x.cap * sizeof *c->x.data)
    return (c->g.room + c->g.scratch_room) * sizeof(uint32_t) + V(pedge) + V(lchild_start) + V(lchild) + V(next) + V(retreat);
#undef V
}

/* In-edges' edge indexes, in rv_cfg's order of predecessors (by source
 * block, then by successor index), with next as the per-block cursor. */
static void build_pedge(ck_cfg *c, const ck_list *bsucc, const rv_succ *succ)
{
    const rv_cfg *g = &c->g;
    uint32_t n = g->nblocks, *next = c->next.data;
    rv_vec_reserve(c->pedge, g->pred_start[n]);
    c->pedge.len = g->pred_start[n];
    for (uint32_t b = 0; b < n; b++) next[b] = g->pred_start[b];
    for (uint32_t b = 0; b < n; b++)
        for (uint32_t k = 0; k < bsucc[b].len; k++) c->pedge.data[next[succ[bsucc[b].start + k].block]++] = bsucc[b].start + k;
}

/* The loop tree's children lists (CSR): each header appended to its
 * loop_parent's list, by block id. */
static void build_loop_children(ck_cfg *c)
{
    const uint32_t *parent = c->g.loop_parent;
    uint32_t n = c->g.nblocks, *next = c->next.data;
    rv_vec_reserve(c->lchild_start, n + 1);
    rv_vec_reserve(c->lchild, n);
    c->lchild_start.len = n + 1;
    uint32_t *st = c->lchild_start.data;
    for (uint32_t b = 0; b <= n; b++) st[b] = 0;
    for (uint32_t h = 0; h < n; h++)
        if (parent[h] != CK_NIL) st[parent[h] + 1]++;
    for (uint32_t b = 0; b < n; b++) st[b + 1] += st[b];
    c->lchild.len = st[n];
    for (uint32_t b = 0; b < n; b++) next[b] = st[b];
    for (uint32_t h = 0; h < n; h++)
        if (parent[h] != CK_NIL) c->lchild.data[next[parent[h]]++] = h;
}

/* retreat[h]: some reachable q -> h with rpo_index[q] >= rpo_index[h] and
 * h not dominating q. */
static void build_retreat(ck_cfg *c)
{
    const rv_cfg *g = &c->g;
    uint32_t n = g->nblocks;
    rv_vec_reserve(c->retreat, n);
    c->retreat.len = n;
    for (uint32_t b = 0; b < n; b++) c->retreat.data[b] = 0;
    if (g->reducible) return; /* (rv_cfg checked every retreating edge) */
    for (uint32_t i = 0; i < g->nrpo; i++) {
        uint32_t h = g->rpo[i];
        for (uint32_t p = g->pred_start[h]; p < g->pred_start[h + 1]; p++) {
            uint32_t q = g->pred[p];
            if (g->rpo_index[q] != CK_NIL && g->rpo_index[q] >= i && !rv_cfg_dominates(g, h, q)) c->retreat.data[h] = 1;
        }
    }
}

void ck_cfg_build(ck_cfg *c, const ravel_func *f, const ck_list *bsucc)
{
    rv_cfg_rebuild(&c->g, f);
    const rv_cfg *g = &c->g;
    uint32_t n = g->nblocks;
    rv_vec_reserve(c->next, n);
    c->next.len = n;
    build_pedge(c, bsucc, f->succs.data);
    build_loop_children(c);
    build_retreat(c);
}
