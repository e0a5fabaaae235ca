/* ck_cfg.c - predecessors (edges, with repeats) and reverse post-order of
 * the function being checked, in the checker's reusable scratch.
 * Requires: ck_guard passed on the allocated function (every block has a
 * terminator, successors are laid-out blocks; ck->bsucc lists them, so
 * that no terminator is read again: at 10^6 instructions each would be a
 * cache miss). Guarantees: rpo lists the blocks reachable from block 0;
 * rpo_index[b] is CK_NIL for unreachable blocks; idom[b] (reachable b) is
 * its immediate dominator (the entry's is itself); dchild lists each
 * block's dominator-tree children in reverse post-order. */
#include "ck.h"

static void build_preds(ravel_checker *ck)
{
    const ravel_func *f = ck->f;
    uint32_t n = ck->nblocks;
    ck->pred_start.len = 0;
    rv_vec_reserve(ck->pred_start, n + 1);
    ck->pred_start.len = n + 1;
    for (uint32_t b = 0; b <= n; b++) ck->pred_start.data[b] = 0;
    const ck_list *bs = ck->bsucc.data;
    const rv_succ *succ = f->succs.data;
    for (uint32_t b = 0; b < n; b++)
        for (uint32_t k = 0; k < bs[b].len; k++) ck->pred_start.data[succ[bs[b].start + k].block + 1]++;
    for (uint32_t b = 0; b < n; b++) ck->pred_start.data[b + 1] += ck->pred_start.data[b];
    ck->pred.len = 0;
    rv_vec_reserve(ck->pred, ck->pred_start.data[n]);
    ck->pred.len = ck->pred_start.data[n];
    rv_vec_reserve(ck->pedge, ck->pred.len);
    ck->pedge.len = ck->pred.len;
    /* fill using dfs_next as a cursor: per block its in-edges by source
     * block, then by successor index */
    ck->dfs_next.len = 0;
    rv_vec_reserve(ck->dfs_next, n);
    for (uint32_t b = 0; b < n; b++) ck->dfs_next.data[b] = ck->pred_start.data[b];
    for (uint32_t b = 0; b < n; b++)
        for (uint32_t k = 0; k < bs[b].len; k++) {
            uint32_t p = ck->dfs_next.data[succ[bs[b].start + k].block]++;
            ck->pred.data[p] = b;
            ck->pedge.data[p] = bs[b].start + k;
        }
}

/* Iterative DFS from block 0; post-order reversed into rpo. */
static void build_rpo(ravel_checker *ck)
{
    const ravel_func *f = ck->f;
    uint32_t n = ck->nblocks;
    rv_vec_reserve(ck->rpo_index, n);
    ck->rpo_index.len = n;
    rv_vec_reserve(ck->dfs_next, n);
    rv_vec_reserve(ck->dfs_stack, n);
    rv_vec_reserve(ck->rpo, n);
    for (uint32_t b = 0; b < n; b++) ck->rpo_index.data[b] = CK_NIL, ck->dfs_next.data[b] = 0;
    uint32_t *stack = ck->dfs_stack.data, sp = 0, npost = 0;
    uint32_t *post = ck->rpo.data;
    if (n) {
        stack[sp++] = 0;
        ck->rpo_index.data[0] = 0; /* visited mark */
    }
    while (sp) {
        uint32_t b = stack[sp - 1];
        ck_list bs = ck->bsucc.data[b];
        if (ck->dfs_next.data[b] < bs.len) {
            uint32_t s = f->succs.data[bs.start + ck->dfs_next.data[b]++].block;
            if (ck->rpo_index.data[s] == CK_NIL) {
                ck->rpo_index.data[s] = 0;
                stack[sp++] = s;
            }
        } else {
            post[npost++] = b;
            sp--;
        }
    }
    for (uint32_t i = 0; i < npost / 2; i++) {
        uint32_t x = post[i];
        post[i] = post[npost - 1 - i];
        post[npost - 1 - i] = x;
    }
    ck->rpo.len = npost;
    for (uint32_t i = 0; i < npost; i++) ck->rpo_index.data[post[i]] = i;
}

/* Immediate dominators (Cooper, Harvey and Kennedy's iterative algorithm
 * over the reverse post-order), the dominator tree's children in reverse
 * post-order, and which blocks have a retreating in-edge. */
static uint32_t intersect(const ravel_checker *ck, uint32_t a, uint32_t b)
{
    const uint32_t *ri = ck->rpo_index.data, *idom = ck->idom.data;
    while (a != b) {
        while (ri[a] > ri[b]) a = idom[a];
        while (ri[b] > ri[a]) b = idom[b];
    }
    return a;
}

static void build_dom(ravel_checker *ck)
{
    uint32_t n = ck->nblocks;
    rv_vec_reserve(ck->idom, n);
    rv_vec_reserve(ck->retreat, n);
    rv_vec_reserve(ck->dchild_start, n + 1);
    rv_vec_reserve(ck->dchild, n);
    ck->idom.len = ck->retreat.len = n;
    ck->dchild_start.len = n + 1;
    for (uint32_t b = 0; b < n; b++) ck->idom.data[b] = CK_NIL, ck->retreat.data[b] = 0;
    if (!ck->rpo.len) {
        for (uint32_t b = 0; b <= n; b++) ck->dchild_start.data[b] = 0;
        ck->dchild.len = 0;
        return;
    }
    ck->idom.data[0] = 0;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 1; i < ck->rpo.len; i++) {
            uint32_t b = ck->rpo.data[i], nd = CK_NIL;
            for (uint32_t p = ck->pred_start.data[b]; p < ck->pred_start.data[b + 1]; p++) {
                uint32_t q = ck->pred.data[p];
                if (ck->idom.data[q] == CK_NIL) continue; /* unreachable or not yet processed */
                nd = nd == CK_NIL ? q : intersect(ck, q, nd);
            }
            if (nd != ck->idom.data[b]) {
                ck->idom.data[b] = nd;
                changed = true;
            }
        }
    }
    /* children lists in reverse post-order (CSR) */
    for (uint32_t b = 0; b <= n; b++) ck->dchild_start.data[b] = 0;
    for (uint32_t i = 1; i < ck->rpo.len; i++) ck->dchild_start.data[ck->idom.data[ck->rpo.data[i]] + 1]++;
    for (uint32_t b = 0; b < n; b++) ck->dchild_start.data[b + 1] += ck->dchild_start.data[b];
    ck->dchild.len = ck->rpo.len ? ck->rpo.len - 1 : 0;
    for (uint32_t b = 0; b < n; b++) ck->dfs_next.data[b] = ck->dchild_start.data[b];
    for (uint32_t i = 1; i < ck->rpo.len; i++) {
        uint32_t b = ck->rpo.data[i];
        ck->dchild.data[ck->dfs_next.data[ck->idom.data[b]]++] = b;
    }
}

/* Pre- and post-order numbers of the tree under root whose children are
 * child[start[x] .. start[x + 1]), depth first without recursion (stack
 * and next: scratch, n entries), counting on from *pre and *post. Then x
 * is in y's subtree iff pre[y] <= pre[x] && post[x] <= post[y]. */
typedef struct tree_num {
    const uint32_t *start, *child;
    uint32_t *stack, *next, *pre, *post;
    uint32_t npre, npost;
} tree_num;

static void number_tree(tree_num *t, uint32_t root)
{
    uint32_t sp = 0;
    t->stack[sp++] = root;
    t->pre[root] = t->npre++;
    t->next[root] = t->start[root];
    while (sp) {
        uint32_t x = t->stack[sp - 1];
        if (t->next[x] < t->start[x + 1]) {
            uint32_t c = t->child[t->next[x]++];
            t->pre[c] = t->npre++;
            t->next[c] = t->start[c];
            t->stack[sp++] = c;
        } else {
            t->post[x] = t->npost++;
            sp--;
        }
    }
}

/* Pre/post numbers of the dominator tree: a dominates b iff
 * pre[a] <= pre[b] && post[b] <= post[a]. */
static void number_dom(ravel_checker *ck)
{
    uint32_t n = ck->nblocks;
    rv_vec_reserve(ck->dpre, n);
    rv_vec_reserve(ck->dpost, n);
    ck->dpre.len = ck->dpost.len = n;
    if (!ck->rpo.len) return;
    tree_num t = {ck->dchild_start.data, ck->dchild.data, ck->dfs_stack.data, ck->dfs_next.data, ck->dpre.data, ck->dpost.data,
                  0, 0};
    number_tree(&t, 0);
}

static bool dominates(const ravel_checker *ck, uint32_t a, uint32_t b)
{
    return ck->dpre.data[a] <= ck->dpre.data[b] && ck->dpost.data[b] <= ck->dpost.data[a];
}

static uint32_t outermost(const ravel_checker *ck, uint32_t h)
{
    while (ck->loop_parent.data[h] != CK_NIL) h = ck->loop_parent.data[h];
    return h;
}

/* Adds q (or the outermost loop already containing it) to the loop of h;
 * each block is pushed at most once per header. */
static void loop_push(ravel_checker *ck, uint32_t h, uint32_t q, uint32_t *stack, uint32_t *sp)
{
    if (ck->loop_of.data[q] == CK_NIL) {
        ck->loop_of.data[q] = h;
        stack[(*sp)++] = q;
        return;
    }
    uint32_t top = outermost(ck, ck->loop_of.data[q]);
    if (top == h) return;
    ck->loop_parent.data[top] = h;
    stack[(*sp)++] = top;
}

/* Natural loops: loop_of[b] = innermost header whose loop contains b (a
 * header is in its own loop), loop_parent[h] = the enclosing loop's header.
 * Headers are processed innermost first (decreasing reverse post-order).
 * A retreating edge whose target does not dominate its source is
 * irreducible: its target gets retreat[] (the value-numbering verdict
 * then answers "not proven"). */
static void build_loops(ravel_checker *ck)
{
    uint32_t n = ck->nblocks;
    rv_vec_reserve(ck->loop_of, n);
    rv_vec_reserve(ck->loop_parent, n);
    rv_vec_reserve(ck->is_header, n);
    ck->loop_of.len = ck->loop_parent.len = ck->is_header.len = n;
    for (uint32_t b = 0; b < n; b++) ck->loop_of.data[b] = ck->loop_parent.data[b] = CK_NIL, ck->is_header.data[b] = 0;
    for (uint32_t i = ck->rpo.len; i-- > 0;) {
        uint32_t h = ck->rpo.data[i], sp = 0;
        uint32_t *stack = ck->dfs_stack.data;
        for (uint32_t p = ck->pred_start.data[h]; p < ck->pred_start.data[h + 1]; p++) {
            uint32_t q = ck->pred.data[p];
            if (!ck_reachable(ck, q) || ck->rpo_index.data[q] < ck->rpo_index.data[h]) continue;
            if (!dominates(ck, h, q)) {
                ck->retreat.data[h] = 1;
                continue;
            }
            if (!ck->is_header.data[h]) {
                ck->is_header.data[h] = 1;
                ck->loop_of.data[h] = h;
            }
            if (q != h) loop_push(ck, h, q, stack, &sp);
        }
        while (sp) {
            uint32_t b = stack[--sp];
            for (uint32_t p = ck->pred_start.data[b]; p < ck->pred_start.data[b + 1]; p++) {
                uint32_t q = ck->pred.data[p];
                if (ck_reachable(ck, q) && q != h && dominates(ck, h, q)) loop_push(ck, h, q, stack, &sp);
            }
        }
    }
}

/* The loop tree's children lists: lchild[lchild_start[h] ..
 * lchild_start[h + 1]] are the headers whose loop_parent is h. */
static void build_loop_children(ravel_checker *ck)
{
    uint32_t n = ck->nblocks;
    rv_vec_reserve(ck->lchild_start, n + 1);
    rv_vec_reserve(ck->lchild, n);
    rv_vec_reserve(ck->dfs_next, n);
    uint32_t *start = ck->lchild_start.data, *child = ck->lchild.data, *next = ck->dfs_next.data;
    for (uint32_t b = 0; b <= n; b++) start[b] = 0;
    for (uint32_t h = 0; h < n; h++)
        if (ck->is_header.data[h] && ck->loop_parent.data[h] != CK_NIL) start[ck->loop_parent.data[h] + 1]++;
    for (uint32_t b = 0; b < n; b++) start[b + 1] += start[b];
    for (uint32_t b = 0; b < n; b++) next[b] = start[b];
    for (uint32_t h = 0; h < n; h++)
        if (ck->is_header.data[h] && ck->loop_parent.data[h] != CK_NIL) child[next[ck->loop_parent.data[h]]++] = h;
}

void ck_cfg_build(ravel_checker *ck)
{
    build_preds(ck);
    build_rpo(ck);
    build_dom(ck);
    number_dom(ck);
    build_loops(ck);
    build_loop_children(ck);
}
