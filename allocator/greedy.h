/* greedy.h - the internals of the `greedy` allocator (greedy*.c), a
 * backtracking allocator in the style of LLVM's RegAllocGreedy. Only the
 * greedy files include it; the allocator's entry point is rv_alloc_greedy
 * (alloc.h, table.c).
 *
 * Positions. Each original instruction i has four points:
 *   4i     its gap: the edits before i (one parallel move) happen here
 *   4i+1   early: early uses are read, early defs written
 *   4i+2   the clobbers and the safepoint effect
 *   4i+3   late: late defs written, late uses read
 * Block b covers [4*first_inst, 4*(first_inst+ninsts)); blocks are
 * contiguous in layout order. A live range is a set of half-open segments
 * [from, to) of points; a value occupies its location at every point of
 * its segments. A move at gap g reads sources whose segment ends at g and
 * writes destinations whose segment starts at g, so swaps need no extra
 * room.
 *
 * Pieces. Every vreg starts with one live range covering all its live
 * points. Splitting replaces a range by pieces that partition its points;
 * in the end every piece is either assigned a register or spilled (it
 * lives in the vreg's spill slot). A spilled vreg is stored once, right
 * after its def (or by the edges, for a block parameter), so its slot
 * holds it wherever it is live: entering a spilled piece costs nothing,
 * leaving one is a reload. Pieces change only at gaps, at block
 * boundaries (edge moves), or from a register piece into a spilled one.
 *
 * Glossary: union = the ordered set of segments assigned to one register
 * (a treap, O(log n) queries); reservation = a preassigned interval of a
 * register (fixed operands, clobbers), tagged with the vreg allowed there
 * or blocked for all; tiny piece = the unspillable piece a spill leaves
 * around an operand that needs a register; stage = how far a range has
 * gone in assign -> split -> spill. */
#ifndef RAVEL_GREEDY_H
#define RAVEL_GREEDY_H

#include "alloc.h"

/* Reservation tags: free; blocked for every vreg; clobbered (blocked but
 * for the vregs the instruction defines: the format keeps a clobbered
 * register an instruction writes); else the one vreg allowed. */
#define GR_FREE RAVEL_NONE
#define GR_BLOCKED (RAVEL_NONE - 1)
#define GR_CLOBBER (RAVEL_NONE - 2)
#define GR_INF 1e30 /* weight of an unspillable piece */

static inline uint32_t gr_gap(uint32_t inst) { return 4 * inst; }

/* Stages of a live range. */
enum {
    GR_ST_NEW,   /* assign, else evict, else wait for the split stage */
    GR_ST_SPLIT, /* assign, else region split, local split, else spill */
    GR_ST_SPILL, /* assign, else evict, else spill (region split leftovers) */
    GR_ST_SLOT,  /* spilled: lives in its vreg's slot (final) */
    GR_ST_TINY,  /* unspillable piece around one instruction */
    GR_ST_DEAD,  /* replaced by its pieces */
};

typedef struct gr_seg { uint32_t from, to; } gr_seg;
typedef RV_VEC(gr_seg) gr_segvec;
typedef RV_VEC(uint64_t) gr_u64vec;

typedef struct gr_lr {
    uint32_t vreg;
    uint32_t seg0, nseg;   /* segments g->segs.data[seg0 .. seg0+nseg), sorted, disjoint */
    double weight;         /* spill weight (GR_INF: unspillable) */
    uint32_t size;         /* points covered */
    uint32_t reg;          /* assigned register, or RAVEL_NONE */
    uint32_t cascade;      /* eviction generation (0: none yet) */
    uint32_t inst;         /* GR_ST_TINY: its instruction */
    uint32_t next_sib;     /* next live piece of the same vreg (list from g->sib_head) */
    uint32_t next_tiny;    /* next tiny piece of the same instruction (g->tiny_head) */
    uint8_t stage;
    bool queued;
} gr_lr;

enum { /* gr_use.flags */
    GU_DEF = 1,       /* a def (operand or block parameter) */
    GU_LATE = 2,      /* at the late point */
    GU_REG = 4,       /* needs a register of its own: `reg` operand, `reuse` def */
    GU_ARG = 8,       /* a jump argument (op RAVEL_NONE) */
    GU_PARAM = 16,    /* a block parameter (op RAVEL_NONE) */
    GU_REUSE_SRC = 32,/* use K of a `reuse(K)` def: read at the gap into the def's register */
};
typedef struct gr_use {
    uint32_t pos;  /* the point the operand occupies (defs: where written) */
    uint32_t inst;
    uint32_t op;   /* operand index into f->ops, or RAVEL_NONE */
    uint8_t kind;  /* ravel_constraint (args, params: RAVEL_C_ANY) */
    uint8_t flags; /* GU_* */
    uint16_t arg;  /* fixed register */
} gr_use;

/* Reservations of one register at one instruction: a tag per point. */
typedef struct gr_res { uint32_t inst; uint32_t tag[4]; } gr_res;

/* Ordered segment sets (greedy_union.c): each set is an array of chunks
 * of up to GR_CHUNK segments sorted by start, with the chunks' first
 * starts in one array, so a query is two binary searches over contiguous
 * memory. Chunks come from one pool. */
#define GR_CHUNK 32
typedef struct gr_chunk { uint32_t n, from[GR_CHUNK], to[GR_CHUNK], val[GR_CHUNK]; } gr_chunk;
typedef struct gr_pool { RV_VEC(gr_chunk) c; RV_VEC(uint32_t) free; } gr_pool;
typedef struct gr_set { uint32_t n, cap; uint32_t *key, *ch; } gr_set;
typedef struct gr_iter { uint32_t c, k; } gr_iter; /* chunk index in the set, slot in the chunk */

typedef struct gr_stats {
    uint64_t evictions;      /* by weight (a range evicting lighter ones) */
    uint64_t tiny_evictions; /* by tiny pieces (unspillable: they evict any spillable range) */
    uint64_t region_splits, local_splits, spills, tiny;
    uint64_t fallbacks;      /* instructions whose tiny pieces were all placed again */
} gr_stats;

typedef struct gr_heap_item { uint64_t prio; uint32_t id; } gr_heap_item;

/* greedy_split.c's scratch, kept from one split to the next (no allocation
 * per split once warm): the part of a range in each block it touches
 * (clip), the CFG edges between clips (each listed from both ends), the
 * use instructions of a range, and the pieces being built. */
typedef struct gr_clip {
    uint32_t b, from, to;
    double uw;        /* its uses' weight */
    uint32_t nreg;    /* its uses that need a register */
    uint32_t e0, ne;  /* its edges in gr_split_scratch.edges */
    bool free, in;    /* the register looked at is free there; in the region */
    uint8_t visits;   /* place_region's looks at it */
} gr_clip;
typedef struct gr_cedge { uint32_t other; double f; bool into; } gr_cedge; /* into: other -> this clip */
typedef struct gr_useinst { uint32_t inst; double w; } gr_useinst;
typedef struct gr_split_scratch {
    RV_VEC(gr_clip) clips;
    RV_VEC(gr_cedge) edges;
    RV_VEC(gr_useinst) ui;
    gr_segvec a, b, c;   /* pieces being built */
    RV_VEC(uint32_t) u32;
    gr_u64vec u64;
} gr_split_scratch;

/* Uses and defs per vreg: CSR by vreg, sorted by pos (greedy_live.c). */
typedef struct gr_uses {
    uint32_t *start;       /* per vreg + 1: its first use in list */
    gr_use *list;
    uint32_t *def_inst;    /* per vreg: defining instruction; RAVEL_NONE for a parameter */
    uint8_t *reuse_def;    /* per vreg: defined by a `reuse` def (its range starts at the early
                              point, but its value only at the late one: a safepoint there
                              does not see it) */
} gr_uses;

/* Reservations: CSR by register, sorted by instruction (the instructions
 * apart from the tags: the binary searches touch only them). */
typedef struct gr_rsv {
    uint32_t *start;       /* per register + 1: its first reservation */
    uint32_t *inst;        /* the instructions alone, for the binary searches */
    gr_res *list;          /* instruction and tags side by side, for the checks */
    uint64_t *mask;        /* machines of at most 64 registers: per instruction, bit r: some point
                              of it is reserved in register r (NULL otherwise) */
    uint32_t *bidx;        /* [r*(nb+1)+b]: register r's first reservation in block b or after
                              (NULL when too large to keep: the queries then search) */
} gr_rsv;

/* Seen marks: a stamp per live range and per block, bumped per walk. */
typedef struct gr_marks {
    uint32_t *lr, nlr, lrv;     /* per LR: seen marks (nlr: their number) */
    uint32_t *blk, blkv, *bidx; /* per block */
} gr_marks;

typedef struct gr {
    const ravel_func *f;
    const ravel_machine *m;
    const rv_alloc_opts *o;
    rv_cfg cfg;
    rv_live_sparse ls;
    uint32_t nv, nb, nr, ni;
    uint32_t *inst_block;  /* block of each instruction */
    double *freq;          /* per block: 10^loop depth (capped) */
    gr_uses use;           /* uses and defs per vreg (greedy_live.c) */
    gr_rsv rsv;            /* reservations per register (greedy_live.c) */
    uint32_t *safe;        /* safepoint instructions, ascending */
    uint32_t nsafe;
    /* live ranges */
    gr_segvec segs;
    RV_VEC(gr_lr) lrs;
    uint32_t *sib_head;    /* per vreg: first live piece */
    uint32_t *tiny_head;   /* per instruction: first tiny piece */
    uint8_t *has_slot;     /* per vreg: spilled somewhere (stored after its def) */
    /* register unions */
    gr_pool pool;
    gr_set *uni;           /* per register: its union */
    /* the queue */
    RV_VEC(gr_heap_item) heap;
    uint32_t next_cascade;
    uint64_t evict_budget;
    /* scratch */
    RV_VEC(uint32_t) tmp;
    gr_segvec stmp;
    gr_split_scratch sp;
    gr_marks mark;         /* seen marks per range and per block */
    gr_stats st;
    char *err;
} gr;

/* ---- greedy_live.c: positions, live ranges, uses, reservations ---- */
/* Builds the cfg, liveness, uses, reservations and one live range per
 * vreg with live points; false with g->err on unsatisfiable constraints
 * or a function too large. */
bool gr_build(gr *g);
/* Weight and size of a range from its uses. */
void gr_lr_measure(gr *g, uint32_t id);
/* A new range of vreg v over segs[0..n) (copied), at `stage`; linked
 * into v's pieces. Returns its id. */
uint32_t gr_lr_new(gr *g, uint32_t v, const gr_seg *segs, uint32_t n, uint8_t stage);
/* Unlinks a range that was replaced by its pieces. */
void gr_lr_kill(gr *g, uint32_t id);
/* The uses of v with pos in [from, to): *n of them from the returned pointer. */
const gr_use *gr_uses_in(const gr *g, uint32_t v, uint32_t from, uint32_t to, uint32_t *n);
static inline const gr_seg *gr_segs(const gr *g, uint32_t id) { return g->segs.data + g->lrs.data[id].seg0; }
static inline uint32_t gr_block_start(const gr *g, uint32_t b) { return 4 * g->f->blocks.data[b].first_inst; }
static inline uint32_t gr_block_end(const gr *g, uint32_t b)
{
    const rv_block *bl = &g->f->blocks.data[b];
    return 4 * (bl->first_inst + bl->ninsts);
}
static inline uint32_t gr_block_at(const gr *g, uint32_t pos) { return g->inst_block[pos / 4]; }
static inline uint32_t gr_vcls(const gr *g, uint32_t v) { return g->f->vregs.data[v].cls; }
static inline bool gr_vref(const gr *g, uint32_t v) { return g->f->vregs.data[v].ref; }
/* The def whose register use k of in reads: the def reusing use k, or,
 * for an early `reg` use of the vreg of a reused use, the def reusing that
 * one (its register holds the value at the early point); else RAVEL_NONE. */
uint32_t gr_reuser(const rv_inst *in, const rv_operand *ops, uint32_t k);
bool gr_fail(gr *g, uint32_t inst, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- greedy_union.c: ordered segment sets and interference ---- */
void gr_pool_free(gr_pool *p);
void gr_set_free(gr_set *s);
/* Inserts [from, to) -> val (no overlap with the set allowed). */
void gr_set_insert(gr_pool *p, gr_set *s, uint32_t from, uint32_t to, uint32_t val);
/* Removes the segment starting at from. */
void gr_set_remove(gr_pool *p, gr_set *s, uint32_t from);
/* The segment overlapping [from, to) with the least start, into *it; false if none. */
bool gr_set_first(const gr_pool *p, const gr_set *s, uint32_t from, uint32_t to, gr_iter *it);
/* The segment after *it if it starts before to; false if none. */
bool gr_set_next(const gr_pool *p, const gr_set *s, gr_iter *it, uint32_t to);
static inline uint32_t gr_iter_val(const gr_pool *p, const gr_set *s, const gr_iter *it) { return p->c.data[s->ch[it->c]].val[it->k]; }
static inline bool gr_set_overlaps(const gr_pool *p, const gr_set *s, uint32_t from, uint32_t to)
{
    gr_iter it;
    return gr_set_first(p, s, from, to, &it);
}
/* True if a reservation of register r over [from, to) excludes vreg v. */
bool gr_res_conflict(const gr *g, uint32_t r, uint32_t v, uint32_t from, uint32_t to);
/* True if range id covers the safepoint effect of some safepoint (a
 * reference there must be in its slot). */
bool gr_crosses_safepoint(const gr *g, uint32_t id);
/* True if vreg v live over [from, to) is live across a safepoint's effect. */
bool gr_seg_crosses_safepoint(const gr *g, uint32_t v, uint32_t from, uint32_t to);
/* True if register r is free for range id over segs[0..n) (its own
 * segments when segs is NULL): no reservation, no assigned segment. */
bool gr_reg_free(const gr *g, uint32_t id, uint32_t r, const gr_seg *segs, uint32_t n);
void gr_assign(gr *g, uint32_t id, uint32_t r);
void gr_unassign(gr *g, uint32_t id);
/* The live piece of v covering point p, or RAVEL_NONE (looks at most
 * `limit` pieces). */
uint32_t gr_piece_at(const gr *g, uint32_t v, uint32_t p, uint32_t limit);

/* ---- greedy.c: the queue ---- */
void gr_enqueue(gr *g, uint32_t id);
/* Evicts the ranges assigned to register r that overlap range id (their
 * weights allowed them) and requeues them. */
void gr_evict_overlaps(gr *g, uint32_t id, uint32_t r);
/* The register whose interference is cheapest to evict for range id
 * (urgent: any spillable range may go), or RAVEL_NONE. */
uint32_t gr_evict_choice(gr *g, uint32_t id, bool urgent);

/* ---- greedy_split.c: splitting and spilling ---- */
bool gr_region_split(gr *g, uint32_t id);
bool gr_local_split(gr *g, uint32_t id);
void gr_spill(gr *g, uint32_t id);
/* Places a tiny piece: free register, else evicting spillable ranges,
 * else re-placing every tiny piece of its instruction. */
bool gr_assign_tiny(gr *g, uint32_t id);
void gr_split_free(gr *g);

/* ---- greedy_rewrite.c: the allocated function ---- */
ravel_func *gr_rewrite(gr *g);

#endif
