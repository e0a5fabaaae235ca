/* dataflow.c - one generic worklist solver for bitset dataflow problems.
 *
 * Requires: df->cfg built for the function the transfer describes, nbits,
 * direction, meet and transfer set. Guarantees: df->in / df->out hold the
 * fixpoint described in ir/analysis.h; every block (reachable or not) is solved.
 *
 * The worklist is a FIFO ring over block ids with an "on list" flag, seeded
 * in RPO (forward) or reverse RPO (backward) followed by the unreachable
 * blocks, so acyclic problems settle in one pass and loops in a few. */
#include "ir/analysis.h"

#include <stdlib.h>
#include <string.h>

/* Seeds order[0..n) with the visiting order. */
static void seed_order(const rv_cfg *c, bool backward, uint32_t *order)
{
    uint32_t n = c->nblocks, k = 0;
    for (uint32_t i = 0; i < c->nrpo; i++) order[k++] = backward ? c->rpo[c->nrpo - 1 - i] : c->rpo[i];
    for (uint32_t b = 0; b < n; b++)
        if (c->rpo_index[b] == RAVEL_NONE) order[k++] = b;
}

/* dst := MEET of the neighbours' values (or the boundary when none). */
static void meet_into(rv_dataflow *df, uint32_t b, uint64_t *dst)
{
    const rv_cfg *c = df->cfg;
    uint32_t nw = df->nwords;
    const uint32_t *nb = df->backward ? c->succ + c->succ_start[b] : c->pred + c->pred_start[b];
    uint32_t nn = df->backward ? c->succ_start[b + 1] - c->succ_start[b] : c->pred_start[b + 1] - c->pred_start[b];
    const uint64_t *src = df->backward ? df->in : df->out;
    bool boundary = df->backward ? nn == 0 : b == 0;
    if (boundary) {
        if (df->boundary) memcpy(dst, df->boundary, nw * sizeof *dst);
        else memset(dst, 0, nw * sizeof *dst);
        return;
    }
    memset(dst, df->meet_and ? 0xff : 0, nw * sizeof *dst);
    for (uint32_t k = 0; k < nn; k++) {
        const uint64_t *s = src + (size_t)nb[k] * nw;
        for (uint32_t w = 0; w < nw; w++) dst[w] = df->meet_and ? dst[w] & s[w] : dst[w] | s[w];
    }
}

/* The gen/kill transfer: dst = gen[b] | (src & ~kill[b]). */
static void gen_kill(const rv_dataflow *df, uint32_t b, uint64_t *dst, const uint64_t *src)
{
    uint32_t nw = df->nwords;
    const uint64_t *g = df->gen + (size_t)b * nw, *k = df->kill + (size_t)b * nw;
    for (uint32_t w = 0; w < nw; w++) dst[w] = g[w] | (src[w] & ~k[w]);
}

void rv_dataflow_solve(rv_dataflow *df)
{
    const rv_cfg *c = df->cfg;
    uint32_t n = c->nblocks, nw = df->nwords = rv_bs_words(df->nbits);
    size_t total = (size_t)n * nw;
    df->in = rv_xmalloc(sizeof(uint64_t) * (total ? total : 1));
    df->out = rv_xmalloc(sizeof(uint64_t) * (total ? total : 1));
    memset(df->in, df->meet_and ? 0xff : 0, total * sizeof(uint64_t));
    memset(df->out, df->meet_and ? 0xff : 0, total * sizeof(uint64_t));
    df->iterations = 0;
    if (n == 0) return;
    uint32_t *ring = rv_xmalloc(sizeof(uint32_t) * n);
    bool *onlist = rv_xmalloc(n);
    uint64_t *tmp = rv_xmalloc(sizeof(uint64_t) * (nw ? nw : 1));
    seed_order(c, df->backward, ring);
    memset(onlist, 1, n);
    uint32_t head = 0, count = n;
    while (count) {
        uint32_t b = ring[head];
        head = (head + 1) % n;
        count--;
        onlist[b] = 0;
        /* "into" is the meet side, "from" the transfer side */
        uint64_t *into = (df->backward ? df->out : df->in) + (size_t)b * nw;
        uint64_t *res = (df->backward ? df->in : df->out) + (size_t)b * nw;
        meet_into(df, b, into);
        if (df->transfer) df->transfer(df->ctx, b, tmp, into);
        else gen_kill(df, b, tmp, into);
        df->iterations++;
        if (memcmp(tmp, res, nw * sizeof *tmp) == 0) continue;
        memcpy(res, tmp, nw * sizeof *tmp);
        /* the neighbours on the other side must be revisited */
        const uint32_t *nb = df->backward ? c->pred + c->pred_start[b] : c->succ + c->succ_start[b];
        uint32_t nn = df->backward ? c->pred_start[b + 1] - c->pred_start[b] : c->succ_start[b + 1] - c->succ_start[b];
        for (uint32_t k = 0; k < nn; k++) {
            uint32_t s = nb[k];
            if (onlist[s]) continue;
            onlist[s] = 1;
            ring[(head + count) % n] = s;
            count++;
        }
    }
    rv_free(ring);
    rv_free(onlist);
    rv_free(tmp);
}

void rv_dataflow_free(rv_dataflow *df)
{
    rv_free(df->in);
    rv_free(df->out);
    df->in = df->out = NULL;
}
