/* ck_cfg.c - predecessors (edges, with repeats) and reverse post-order of
 * the function being checked, in the checker's reusable scratch.
 * Requires: ck_guard passed (every block has a terminator, successors are
 * laid-out blocks). Guarantees: rpo lists the blocks reachable from block 0;
 * rpo_index[b] is CK_NIL for unreachable blocks. */
#include "ck.h"

static void build_preds(ravel_checker *ck)
{
    const ravel_func *f = ck->f;
    uint32_t n = ck->nblocks;
    ck->pred_start.len = 0;
    rv_vec_reserve(ck->pred_start, n + 1);
    ck->pred_start.len = n + 1;
    for (uint32_t b = 0; b <= n; b++) ck->pred_start.data[b] = 0;
    for (uint32_t b = 0; b < n; b++) {
        const rv_inst *t = rv_block_term(f, &f->blocks.data[b]);
        for (uint32_t k = 0; k < rv_inst_nsuccs(t); k++) ck->pred_start.data[rv_inst_succs(f, t)[k].block + 1]++;
    }
    for (uint32_t b = 0; b < n; b++) ck->pred_start.data[b + 1] += ck->pred_start.data[b];
    ck->pred.len = 0;
    rv_vec_reserve(ck->pred, ck->pred_start.data[n]);
    ck->pred.len = ck->pred_start.data[n];
    /* fill using dfs_next as a cursor */
    ck->dfs_next.len = 0;
    rv_vec_reserve(ck->dfs_next, n);
    for (uint32_t b = 0; b < n; b++) ck->dfs_next.data[b] = ck->pred_start.data[b];
    for (uint32_t b = 0; b < n; b++) {
        const rv_inst *t = rv_block_term(f, &f->blocks.data[b]);
        for (uint32_t k = 0; k < rv_inst_nsuccs(t); k++) ck->pred.data[ck->dfs_next.data[rv_inst_succs(f, t)[k].block]++] = b;
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
        const rv_inst *t = rv_block_term(f, &f->blocks.data[b]);
        if (ck->dfs_next.data[b] < rv_inst_nsuccs(t)) {
            uint32_t s = rv_inst_succs(f, t)[ck->dfs_next.data[b]++].block;
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

void ck_cfg_build(ravel_checker *ck)
{
    build_preds(ck);
    build_rpo(ck);
}
