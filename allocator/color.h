/* color.h - the `color` allocator's context, shared by its two files
 * (color_build.c: the interference graph and its build; color.c:
 * coalescing, simplify/select, spilling and the driver). Internal to
 * allocator/color*.c; the pipeline is at the top of color.c.
 *
 * Requires: alloc.h. Guarantees: one definition of the context (the edge
 * set and adjacency lists are its part eg) and of the small helpers both
 * files use; the graph's entry points. */
#ifndef RAVEL_ALLOC_COLOR_H
#define RAVEL_ALLOC_COLOR_H

#include "alloc.h"

#include <stdlib.h>
#include <string.h>


#define CG_MAX_ROUNDS 40
#define CG_INF 1e300
#define CG_MAX_EDGES ((size_t)1 << 23) /* at most about 300 MB of edge table and lists: refuse beyond */
#define CG_BITMATRIX_NODES 8192 /* up to this many nodes the edge set is a bit matrix (at most 4 MB) */

typedef struct cg_move { uint32_t a, b; double w; } cg_move;
typedef RV_VEC(uint32_t) u32vec;

/* Adjacency lists: the build records each new edge in one list of pairs;
 * once it is done they become one array per round, each node's neighbours
 * contiguous and in the order their edges were made (a counting sort on the
 * degrees). The edges coalescing adds later go to per-node chains of
 * fixed-size chunks from one pool, iterated after the array. A round thus
 * costs a handful of allocations whatever the number of nodes, and the next
 * round reuses the storage. */
#define CG_CHUNK 14
typedef struct cg_chunk { uint32_t next, n, e[CG_CHUNK]; } cg_chunk;

/* The interference edges of the current round: the set (a bit matrix or
 * a hash table) and the adjacency lists. */
typedef struct cg_edges {
    uint64_t *htab;      /* edge table: key (lo << 32 | hi) + 1, 0 = empty */
    size_t hcap, hlen;   /* hlen: edges (either representation) */
    uint64_t *bm;        /* instead of htab for small graphs: the triangular bit matrix */
    size_t bmcap;        /* words the bit matrix has room for */
    RV_VEC(uint64_t) pairs;  /* the build's edges, a << 32 | b, in the order made */
    bool csr;                /* the build is over: its edges are in cadj */
    RV_VEC(uint32_t) cadj;   /* the build's adjacency: node n's neighbours are cadj[cbeg[n] .. cend[n]) */
    uint32_t *cbeg, *cend;
    RV_VEC(cg_chunk) chunks; /* edges added after the build (coalescing) */
    uint32_t *head, *tail;   /* per node: first and last chunk of those, RAVEL_NONE if none */
} cg_edges;

typedef struct cg {
    const ravel_func *f;
    const ravel_machine *m;
    const rv_alloc_opts *opts;
    rv_cfg cfg;
    rv_liveness lv;
    uint32_t nv;
    uint32_t *ridx;      /* register -> index in its class's allocatable list, RAVEL_NONE if reserved */
    uint32_t fw;         /* words of a forbidden-colours mask */
    bool *spilled;       /* per vreg: lives in its slot */
    uint32_t *group;     /* per vreg: slot group */
    uint32_t *home;      /* per vreg: result */
    /* the graph of the current round */
    uint32_t nn;         /* nodes: vregs [0, nv), then short ranges */
    uint32_t *op_node;   /* per operand: its short range, or RAVEL_NONE */
    RV_VEC(uint32_t) ncls;
    cg_edges eg;         /* the edge set and the adjacency lists */
    uint32_t *degree;
    uint64_t *forbid;
    uint32_t *nforb;     /* per node: colours forbidden (bits set in its mask) */
    double *occ;         /* weighted occurrences */
    uint32_t *len;       /* instructions live */
    uint32_t *pref;      /* preferred register (fixed operand), RAVEL_NONE */
    uint32_t *alias;
    uint32_t *color;     /* class-local colour index, RAVEL_NONE */
    RV_VEC(cg_move) moves;
    /* the live set (sparse) */
    rv_sset lset;
    uint32_t *stamp, cur_stamp;
    uint64_t *imask;     /* per class: colours of the registers the current instruction clobbers or fixes */
    uint32_t ncap;       /* nodes the per-node arrays have room for (kept across rounds) */
} cg;

static inline uint32_t vcls(const cg *c, uint32_t v) { return c->f->vregs.data[v].cls; }
static inline uint32_t kof(const cg *c, uint32_t cls) { return c->m->classes.data[cls].alloc.len; }
static inline bool is_short(const cg *c, uint32_t n) { return n >= c->nv; }
static inline uint64_t *fmask(const cg *c, uint32_t n) { return c->forbid + (size_t)n * c->fw; }

static inline uint32_t find(cg *c, uint32_t n)
{
    while (c->alias[n] != n) {
        c->alias[n] = c->alias[c->alias[n]];
        n = c->alias[n];
    }
    return n;
}

static inline double block_weight(const cg *c, uint32_t b)
{
    uint32_t d = c->cfg.loop_depth[b] > 6 ? 6 : c->cfg.loop_depth[b];
    double w = 1;
    while (d--) w *= 10;
    return w;
}


/* Iteration over the neighbours of a node: the build's, then the chunks'
 * (the pool may grow while a list is walked: a chunk is looked up afresh
 * for each entry). Requires the build to be over (c->eg.csr). */
typedef struct cg_it { uint32_t k, end, ch, ck; } cg_it;

static inline cg_it adj_begin(const cg *c, uint32_t n) { return (cg_it){c->eg.cbeg[n], c->eg.cend[n], c->eg.head[n], 0}; }

static inline __attribute__((always_inline)) bool adj_next(const cg *c, cg_it *it, uint32_t *t)
{
    if (it->k < it->end) {
        *t = c->eg.cadj.data[it->k++];
        return true;
    }
    while (it->ch != RAVEL_NONE) {
        const cg_chunk *x = &c->eg.chunks.data[it->ch];
        if (it->ck < x->n) {
            *t = x->e[it->ck++];
            return true;
        }
        it->ch = x->next;
        it->ck = 0;
    }
    return false;
}

#define CG_FOR_ADJ(C, N, T) for (uint32_t T, it_ok_ = 1; it_ok_; it_ok_ = 0) for (cg_it it_ = adj_begin(C, N); adj_next(C, &it_, &T);)

/* The graph (color_build.c). rv_cg_build: phi elimination and the graph
 * of this round (steps 1-2 of the pipeline), on the storage of the last
 * round; false if it grows beyond CG_MAX_EDGES. rv_cg_graph_free: frees
 * every round's storage. rv_cg_has_edge: whether a and b interfere.
 * rv_cg_popcount_mask: the colours set in a forbidden-colours mask.
 * rv_cg_add_edge: records the interference a -- b (same class, distinct);
 * true if new (coalescing adds the merged node's). */
bool rv_cg_build(cg *c);
void rv_cg_graph_free(cg *c);
bool rv_cg_has_edge(const cg *c, uint32_t a, uint32_t b);
uint32_t rv_cg_popcount_mask(const cg *c, const uint64_t *m);
bool rv_cg_add_edge(cg *c, uint32_t a, uint32_t b);

#endif
