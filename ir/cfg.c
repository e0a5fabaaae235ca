/* cfg.c - CFG analyses: predecessor/successor lists, reverse post-order,
 * immediate dominators, dominance queries, loop nesting.
 *
 * Requires: a finished function (block ids follow the layout). It does not
 * require a valid one: a block whose last instruction is not a terminator has
 * no successors, and successors that name a block outside the layout (an
 * undefined label) are ignored, so the analyses never crash on bad input.
 * Guarantees (for blocks 0 .. nblocks-1, nblocks = f->layout.len):
 *   - succ/pred lists in CSR form, one entry per edge (`br v, b2, b2` gives
 *     two entries), successors in terminator order;
 *   - rpo: the blocks reachable from block 0 in reverse post-order (block 0
 *     first); rpo_index[b] is RAVEL_NONE for unreachable blocks;
 *   - idom (Cooper, Harvey, Kennedy, "A Simple, Fast Dominance Algorithm";
 *     one pass over forward edges when the CFG is reducible): idom[0] = 0,
 *     RAVEL_NONE for unreachable blocks;
 *   - the dominator tree's children lists (dom_child, CSR over dom_start,
 *     each in reverse post-order) and dominance queries in O(1) from its
 *     pre/post numbering; reducible: every retreating edge is a back edge
 *     (its target dominates its source);
 *   - loops: natural loops of back edges p -> h with h dominating p; loops
 *     with one header are merged. loop_header[b] is the innermost header whose
 *     loop contains b (a header belongs to its own loop), loop_depth[b] the
 *     number of loops containing b, loop_parent[h] (h a header) the header
 *     of the innermost loop enclosing h's loop (RAVEL_NONE for an outermost
 *     loop and for blocks that are no header). Retreating edges of
 *     irreducible regions are not back edges: such cycles get no loop (an
 *     approximation).
 * Every step is linear in blocks + edges, except the dominator fixpoint
 * (a few passes in practice) and the loop discovery, which is near-linear
 * (union-find with path compression, as in LLVM's LoopInfo).
 * Memory: two allocations per build (allocators and the validator build a
 * CFG for every function they see, so per-array mallocs dominated small
 * functions): every result array lives in one block whose base is
 * pred_start (rv_cfg_free frees it), and the steps share one scratch block
 * sized for the hungriest of them. rv_cfg_rebuild builds into the storage
 * of an earlier build (kept while large enough: no allocation at all when
 * one context checks or allocates many functions, e.g. the checker). */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

static uint32_t *alloc_u32(size_t n) { return rv_xmalloc(sizeof(uint32_t) * (n ? n : 1)); }

/* Hands out consecutive arrays of one block. */
typedef struct carve { uint32_t *p; } carve;
static uint32_t *take_u32(carve *k, size_t n)
{
    uint32_t *r = k->p;
    k->p += n;
    return r;
}

/* The terminator of laid-out block b, or NULL if the block does not end with one. */
static const rv_inst *block_term(const ravel_func *f, uint32_t b)
{
    const rv_inst *t = rv_block_term(f, &f->blocks.data[b]);
    return t && rv_is_term(t) ? t : NULL;
}

/* Step 1: successor and predecessor lists (CSR, edges with repeats): one
 * pass over the terminators (or the caller's successor lists), then the
 * predecessors from the successors. Requires: the arrays allocated for
 * every terminator's successors (count_edges); scratch of n words. */
static void build_preds(rv_cfg *c, uint32_t *fill);
static void build_edges(rv_cfg *c, const ravel_func *f, uint32_t *fill)
{
    uint32_t n = c->nblocks, nedges = 0;
    memset(c->pred_start, 0, sizeof(uint32_t) * (n + 1));
    for (uint32_t b = 0; b < n; b++) {
        c->succ_start[b] = nedges;
        const rv_inst *t = block_term(f, b);
        for (uint32_t k = 0; t && k < rv_inst_nsuccs(t); k++) {
            uint32_t s = rv_inst_succs(f, t)[k].block;
            if (s < n) {
                c->succ[nedges++] = s;
                c->pred_start[s + 1]++;
            }
        }
    }
    c->succ_start[n] = nedges;
    build_preds(c, fill);
}
static void copy_edges(rv_cfg *c, const uint32_t *succ_start, const uint32_t *succ, uint32_t *fill)
{
    uint32_t n = c->nblocks, nedges = 0;
    memset(c->pred_start, 0, sizeof(uint32_t) * (n + 1));
    for (uint32_t b = 0; b < n; b++) {
        c->succ_start[b] = nedges;
        for (uint32_t e = succ_start[b]; e < succ_start[b + 1]; e++)
            if (succ[e] < n) {
                c->succ[nedges++] = succ[e];
                c->pred_start[succ[e] + 1]++;
            }
    }
    c->succ_start[n] = nedges;
    build_preds(c, fill);
}
/* (pred_start[s + 1] holds the count of s's predecessors) */
static void build_preds(rv_cfg *c, uint32_t *fill)
{
    uint32_t n = c->nblocks;
    for (uint32_t b = 0; b < n; b++) c->pred_start[b + 1] += c->pred_start[b];
    if (n) memcpy(fill, c->pred_start, sizeof(uint32_t) * n);
    for (uint32_t b = 0; b < n; b++)
        for (uint32_t e = c->succ_start[b]; e < c->succ_start[b + 1]; e++) c->pred[fill[c->succ[e]]++] = b;
}

/* Step 2: reverse post-order by an iterative depth-first search from block 0.
 * Requires: scratch of 3n words. */
static void build_rpo(rv_cfg *c, uint32_t *scratch)
{
    uint32_t n = c->nblocks;
    c->nrpo = 0;
    for (uint32_t b = 0; b < n; b++) c->rpo_index[b] = RAVEL_NONE;
    if (n == 0) return;
    uint32_t *stack = scratch, *next = scratch + n, *post = scratch + 2 * (size_t)n;
    uint32_t sp = 0, npost = 0;
    /* rpo_index doubles as the "visited" mark until the numbering below. */
    stack[sp++] = 0;
    next[0] = c->succ_start[0];
    c->rpo_index[0] = 0;
    while (sp) {
        uint32_t b = stack[sp - 1];
        if (next[b] < c->succ_start[b + 1]) {
            uint32_t s = c->succ[next[b]++];
            if (c->rpo_index[s] == RAVEL_NONE) {
                c->rpo_index[s] = 0;
                next[s] = c->succ_start[s];
                stack[sp++] = s;
            }
        } else {
            post[npost++] = b;
            sp--;
        }
    }
    for (uint32_t i = 0; i < npost; i++) {
        c->rpo[i] = post[npost - 1 - i];
        c->rpo_index[c->rpo[i]] = i;
    }
    c->nrpo = npost;
}

/* Step 3: immediate dominators (Cooper-Harvey-Kennedy), iterated in RPO,
 * over RPO indices (ridom[i]: the RPO index of the idom of rpo[i]; the meet
 * is rv_dom_meet), c->idom kept in step. */

/* One CHK pass in RPO; forward_only ignores retreating edges (from a block
 * at or after b in RPO). Returns true if some idom changed. */
static bool idom_pass(rv_cfg *c, uint32_t *ridom, bool forward_only)
{
    bool changed = false;
    for (uint32_t i = 1; i < c->nrpo; i++) {
        uint32_t b = c->rpo[i], nd = RAVEL_NONE;
        for (uint32_t e = c->pred_start[b]; e < c->pred_start[b + 1]; e++) {
            uint32_t p = c->rpo_index[c->pred[e]];
            if (p == RAVEL_NONE || ridom[p] == RAVEL_NONE) continue; /* unreachable or not yet processed */
            if (forward_only && p >= i) continue;
            nd = nd == RAVEL_NONE ? p : rv_dom_meet(ridom, p, nd);
        }
        if (nd != ridom[i]) {
            ridom[i] = nd;
            c->idom[b] = nd == RAVEL_NONE ? RAVEL_NONE : c->rpo[nd];
            changed = true;
        }
    }
    return changed;
}

static void build_domtree_numbers(rv_cfg *c, uint32_t *scratch);

/* True if every retreating edge p -> b has b dominating p (with the current
 * idom and dominator-tree numbers): then the CFG is reducible and the
 * dominators of its acyclic part are its dominators. */
static bool retreating_edges_are_back_edges(const rv_cfg *c)
{
    for (uint32_t i = 0; i < c->nrpo; i++) {
        uint32_t b = c->rpo[i];
        for (uint32_t e = c->pred_start[b]; e < c->pred_start[b + 1]; e++) {
            uint32_t p = c->pred[e];
            if (c->rpo_index[p] != RAVEL_NONE && c->rpo_index[p] >= i && !rv_cfg_dominates(c, b, p)) return false;
        }
    }
    return true;
}

/* Dominators: one pass over the acyclic part (forward edges in RPO) is exact
 * for reducible CFGs, which we verify; irreducible ones iterate the full
 * Cooper-Harvey-Kennedy fixpoint. This avoids CHK's quadratic passes on deep
 * loop nests. Also builds the dominator tree (scratch: 3n: the tree's 2n,
 * then ridom). */
static void build_idom(rv_cfg *c, uint32_t *scratch)
{
    uint32_t n = c->nblocks, *ridom = scratch + 2 * (size_t)n;
    for (uint32_t b = 0; b < n; b++) c->idom[b] = ridom[b] = RAVEL_NONE;
    c->reducible = true;
    if (!c->nrpo) {
        build_domtree_numbers(c, scratch);
        return;
    }
    c->idom[0] = 0;
    ridom[0] = 0;
    idom_pass(c, ridom, true);
    build_domtree_numbers(c, scratch);
    if (retreating_edges_are_back_edges(c)) return;
    c->reducible = false;
    while (idom_pass(c, ridom, false)) {
    }
    build_domtree_numbers(c, scratch);
}

/* Step 4: the dominator tree's children lists (in reverse post-order) and
 * its pre/post numbers for O(1) dominance. Requires: scratch of 2n words. */
static void build_domtree_numbers(rv_cfg *c, uint32_t *scratch)
{
    uint32_t n = c->nblocks;
    uint32_t *start = c->dom_start, *kids = c->dom_child, *fill = scratch;
    for (uint32_t b = 0; b < n; b++) c->dom_pre[b] = c->dom_post[b] = RAVEL_NONE;
    memset(start, 0, sizeof(uint32_t) * (n + 1));
    if (!c->nrpo) return;
    /* children lists in CSR form */
    for (uint32_t i = 1; i < c->nrpo; i++) start[c->idom[c->rpo[i]] + 1]++;
    for (uint32_t b = 0; b < n; b++) start[b + 1] += start[b];
    memcpy(fill, start, sizeof(uint32_t) * n);
    for (uint32_t i = 1; i < c->nrpo; i++) kids[fill[c->idom[c->rpo[i]]]++] = c->rpo[i];
    /* iterative DFS; fill[] is reused as the per-node child cursor */
    uint32_t *stack = fill + n, sp = 0, clock = 0;
    memcpy(fill, start, sizeof(uint32_t) * n);
    stack[sp++] = 0;
    c->dom_pre[0] = clock++;
    while (sp) {
        uint32_t b = stack[sp - 1];
        if (fill[b] < start[b + 1]) {
            uint32_t k = kids[fill[b]++];
            c->dom_pre[k] = clock++;
            stack[sp++] = k;
        } else {
            c->dom_post[b] = clock++;
            sp--;
        }
    }
}

bool rv_cfg_dominates(const rv_cfg *c, uint32_t a, uint32_t b)
{
    if (a >= c->nblocks || b >= c->nblocks) return false;
    if (c->dom_pre[a] == RAVEL_NONE || c->dom_pre[b] == RAVEL_NONE) return false;
    return c->dom_pre[a] <= c->dom_pre[b] && c->dom_post[b] <= c->dom_post[a];
}

/* Step 5: natural loops. Headers are visited innermost first (decreasing
 * RPO index: an inner header is dominated by, so comes after, its outer
 * header). From each back-edge source we walk predecessors up to the header;
 * a block already claimed by an inner loop is skipped by jumping to the
 * outermost loop found so far that contains it (find with path compression
 * over `outer`), which then becomes a child of the current loop. */
static uint32_t find_outer(uint32_t *outer, uint32_t h)
{
    uint32_t r = h;
    while (outer[r] != r) r = outer[r];
    while (outer[h] != r) {
        uint32_t nx = outer[h];
        outer[h] = r;
        h = nx;
    }
    return r;
}

static void push_preds(const rv_cfg *c, uint32_t b, uint32_t *work, uint32_t *nw)
{
    for (uint32_t e = c->pred_start[b]; e < c->pred_start[b + 1]; e++)
        if (c->rpo_index[c->pred[e]] != RAVEL_NONE) work[(*nw)++] = c->pred[e];
}

static void discover_loop(rv_cfg *c, uint32_t h, uint32_t *parent, uint32_t *outer, uint32_t *work)
{
    uint32_t nw = 0;
    for (uint32_t e = c->pred_start[h]; e < c->pred_start[h + 1]; e++) {
        uint32_t p = c->pred[e];
        if (rv_cfg_dominates(c, h, p)) work[nw++] = p;
    }
    if (!nw) return;
    c->loop_header[h] = h;
    outer[h] = h;
    while (nw) {
        uint32_t x = work[--nw];
        if (c->loop_header[x] == RAVEL_NONE) { /* first (innermost) loop to claim x */
            c->loop_header[x] = h;
            push_preds(c, x, work, &nw);
            continue;
        }
        uint32_t top = find_outer(outer, c->loop_header[x]);
        if (top == h) continue;
        parent[top] = h; /* first claim is by the immediately enclosing loop */
        outer[top] = h;
        push_preds(c, top, work, &nw);
    }
}

/* Requires: scratch of 2n + 2 * edges + 1 words. */
static void build_loops(rv_cfg *c, uint32_t *scratch)
{
    uint32_t n = c->nblocks;
    for (uint32_t b = 0; b < n; b++) {
        c->loop_header[b] = RAVEL_NONE;
        c->loop_depth[b] = 0;
    }
    uint32_t *parent = c->loop_parent, *outer = scratch, *depth = outer + n;
    /* within one discover_loop, the predecessors of a block are pushed at
     * most once (when it is claimed, or linked as an inner header), plus the
     * back-edge sources: at most 2 * edges entries */
    uint32_t *work = depth + n;
    for (uint32_t b = 0; b < n; b++) parent[b] = outer[b] = RAVEL_NONE;
    for (uint32_t i = c->nrpo; i-- > 0;) discover_loop(c, c->rpo[i], parent, outer, work);
    /* depths: headers in RPO order, outer before inner */
    for (uint32_t i = 0; i < c->nrpo; i++) {
        uint32_t h = c->rpo[i];
        if (c->loop_header[h] != h) continue;
        depth[h] = parent[h] == RAVEL_NONE ? 1 : depth[parent[h]] + 1;
    }
    for (uint32_t b = 0; b < n; b++)
        if (c->loop_header[b] != RAVEL_NONE) c->loop_depth[b] = depth[c->loop_header[b]];
}

/* *p holds at least need words (a new block if the old one, of *room
 * words, is too small; never NULL). The old block is released first and
 * *p cleared, so that an allocation failure (unwinding to a recovery
 * region) leaves no dangling pointer in c. */
static void ensure_u32(uint32_t **p, size_t *room, size_t need)
{
    if (*p && need <= *room) return;
    rv_free(*p);
    *p = NULL;
    *room = 0;
    *p = alloc_u32(need);
    *room = need;
}

/* The result arrays, carved from one block (base: pred_start). */
static void alloc_results(rv_cfg *c, uint32_t nedges)
{
    size_t n = c->nblocks;
    ensure_u32(&c->pred_start, &c->room, 3 * (n + 1) + 2 * (size_t)nedges + 9 * n);
    carve k = {c->pred_start};
    c->pred_start = take_u32(&k, n + 1);
    c->succ_start = take_u32(&k, n + 1);
    c->pred = take_u32(&k, nedges);
    c->succ = take_u32(&k, nedges);
    c->rpo = take_u32(&k, n);
    c->rpo_index = take_u32(&k, n);
    c->idom = take_u32(&k, n);
    c->dom_pre = take_u32(&k, n);
    c->dom_post = take_u32(&k, n);
    c->loop_depth = take_u32(&k, n);
    c->loop_header = take_u32(&k, n);
    c->loop_parent = take_u32(&k, n);
    c->dom_start = take_u32(&k, n + 1);
    c->dom_child = take_u32(&k, n);
}

/* The results and scratch for nblocks blocks and at most nedges edges. */
static void prepare(rv_cfg *c, uint32_t nblocks, uint32_t nedges)
{
    c->nblocks = nblocks;
    alloc_results(c, nedges);
    /* scratch: edges n, rpo 3n, dominators 3n, loops 2n + 2e + 1 */
    size_t n = c->nblocks, need = 3 * n + 1;
    if (2 * n + 2 * (size_t)nedges + 1 > need) need = 2 * n + 2 * (size_t)nedges + 1;
    ensure_u32(&c->scratch, &c->scratch_room, need);
}

/* Steps 2 to 5, on the edges. */
static void analyse(rv_cfg *c)
{
    build_rpo(c, c->scratch);
    build_idom(c, c->scratch);
    build_loops(c, c->scratch);
}

/* The edges build_edges will make: every terminator's successors. (Not
 * f->succs.len: the guard checks that each terminator's successor range is
 * within f->succs, not that two ranges are apart, so a function corrupted
 * in memory can count a record twice.) */
static uint32_t count_edges(const ravel_func *f, uint32_t n)
{
    uint64_t e = 0;
    for (uint32_t b = 0; b < n; b++) {
        const rv_inst *t = block_term(f, b);
        if (t) e += rv_inst_nsuccs(t);
    }
    return e > UINT32_MAX ? UINT32_MAX : (uint32_t)e;
}

void rv_cfg_rebuild(rv_cfg *c, const ravel_func *f)
{
    prepare(c, f->layout.len, count_edges(f, f->layout.len)); /* the edges (build_edges) */
    build_edges(c, f, c->scratch);
    analyse(c);
}

void rv_cfg_build_succs(rv_cfg *c, uint32_t nblocks, const uint32_t *succ_start, const uint32_t *succ)
{
    memset(c, 0, sizeof *c);
    prepare(c, nblocks, succ_start[nblocks]);
    copy_edges(c, succ_start, succ, c->scratch);
    analyse(c);
    rv_free(c->scratch);
    c->scratch = NULL;
    c->scratch_room = 0;
}

void rv_cfg_build(rv_cfg *c, const ravel_func *f)
{
    memset(c, 0, sizeof *c);
    rv_cfg_rebuild(c, f);
    rv_free(c->scratch); /* a one-off build keeps only its results */
    c->scratch = NULL;
    c->scratch_room = 0;
}

void rv_cfg_free(rv_cfg *c)
{
    rv_free(c->pred_start); /* the block of every array (alloc_results) */
    rv_free(c->scratch);
    memset(c, 0, sizeof *c);
}
