/* random.h - the `random` allocator's context, shared by its parts
 * (random.c: liveness, blocks and the driver; random_inst.c: the state of
 * each location and one instruction; random_edge.c: entry contracts and
 * edges). Internal to allocator/random*.c; the modes and shapes are
 * described at the top of random.c.
 *
 * Requires: alloc.h. Guarantees: one definition of the context (its parts
 * are sub-structs: live, hold, con, ins, shp), of the small helpers and
 * of the state accessors every part uses; the functions one part calls in
 * another. */
#ifndef RAVEL_ALLOC_RANDOM_H
#define RAVEL_ALLOC_RANDOM_H

#include "alloc.h"
#include "claims.h"

#include <stdlib.h>
#include <string.h>

#define RS_INF 0xfffffffeu
#define RS_UNK 0xfffffffdu /* phys: may hold anything (the checker may know more than the engine) */

enum { /* per-register flags for the current instruction */
    RS_USE_E = RV_CLAIM_USE_E, /* an early use reads tgt[r] (claims.h's bits, then this engine's) */
    RS_USE_L = RV_CLAIM_USE_L, /* a late use reads tgt[r] */
    RS_DEF_E = RV_CLAIM_DEF_E, /* an early def writes r */
    RS_DEF_L = RV_CLAIM_DEF_L, /* a late def writes r */
    RS_CLOB = RV_CLAIM_CLOB,   /* clobbered */
    RS_SAVE = 32,  /* receives a saved value (tgt[r]) before the instruction */
    RS_TOUCHED = 64,
};
#define RS_DEF (RS_DEF_E | RS_DEF_L)
#define RS_TGT (RS_USE_E | RS_USE_L | RS_SAVE)

typedef struct rs_vreg {
    uint32_t reg, slot;    /* hints: a register / slot that may hold the value (checked against content) */
    uint32_t lastuse;      /* last instruction of the current block reading it (RS_INF: live out) */
    uint32_t stamp;        /* lastuse is valid when stamp == current block + 1 */
    uint32_t site;         /* a spill-before-branch site (index into sites) or RAVEL_NONE */
    uint32_t site_block;   /* block that last counted a reload for site */
    uint32_t nreg;         /* registers holding it for the engine (content) */
    uint32_t nslot, sepoch; /* slots holding it for the engine (scont), valid when sepoch == epoch */
} rs_vreg;

typedef struct rs_entry { uint32_t v; ravel_loc loc; } rs_entry;

/* A set of locations, emptied in O(1): l is in it when its stamp (per
 * register, per slot) is the set's current one. */
typedef struct rs_locset {
    uint32_t *r;           /* per register (in the fixed-size block) */
    RV_VEC(uint32_t) s;    /* per slot, grown on demand */
    uint32_t cur;
} rs_locset;
typedef struct rs_undo { ravel_loc l; uint32_t v, p; } rs_undo;

/* The context's parts. */

/* Liveness: the shared analysis and what the engine derives from it. */
typedef struct rs_live {
    rv_liveness lv;
    bool *cyclic;             /* per block: on a cycle of the CFG */
    uint8_t *used;            /* per vreg: read by an operand, or passed to a used parameter (rs_liveness) */
    rv_sset lset;             /* block_liveness: the live set of its walk */
    uint8_t *after;           /* block_liveness: per operand, its vreg is live after its instruction */
} rs_live;

/* The state of the current program point: what each location holds. */
typedef struct rs_hold {
    uint32_t *content;        /* per register: vreg held, or RAVEL_NONE */
    RV_VEC(uint32_t) scont;   /* per slot: vreg held, or RAVEL_NONE */
    uint32_t *phys;           /* per register: vreg it holds even if dropped from content (bugs are planted only where it differs) */
    RV_VEC(uint32_t) sphys;   /* the same per slot (as long as scont) */
    RV_VEC(uint32_t) sstamp;  /* per slot: epoch of scont/sphys */
    RV_VEC(uint32_t) dirty;   /* slots touched in this epoch */
    uint32_t epoch;
    bool logging;             /* writes go to undo (an edge is being resolved) */
    RV_VEC(rs_undo) undo;
} rs_hold;

/* Entry contracts. */
typedef struct rs_con {
    uint32_t *entry_start, *entry_len; /* per block, into entries; entry_start RAVEL_NONE = undecided */
    RV_VEC(rs_entry) entries;
    RV_VEC(ravel_loc) msrc;   /* per entry: the source location on the first edge resolved (merge counting) */
    rs_locset taken;          /* the locations the contract being decided uses */
} rs_con;

/* The current instruction (or edge) and the moves before it. */
typedef struct rs_ins {
    uint8_t *rf;
    uint32_t *tgt;
    uint32_t *touched, ntouched;
    RV_VEC(uint32_t) islots;  /* slots read or written by this instruction or its moves */
    RV_VEC(rv_move) moves;
    RV_VEC(uint32_t) mvals;   /* value of each move (parallel with moves) */
    RV_VEC(rv_move) real;     /* emit_moves: the moves not in place */
    RV_VEC(ravel_loc) esrc;   /* rs_edge: where each value the successor needs is */
    RV_VEC(uint32_t) smap;
    uint64_t *scratch_bs;
    uint32_t *mend, mcount;   /* emit_moves: registers ending a move have mend == mcount */
    rs_locset written;        /* move_to: the locations the current moves write */
    uint32_t *harm;           /* save_and_map: the registers it examines */
    uint32_t cur_op0;         /* first operand of the instruction being claimed */
} rs_ins;

/* Shapes: the spill-before-branch sites, and the shape counts for the
 * planted bug. */
typedef struct rs_shp {
    RV_VEC(uint32_t) sites;        /* per spill-before-branch site: its slot */
    RV_VEC(uint32_t) site_reloads; /* per site: successors reloading it */
    uint32_t seen[RV_RS_NKINDS]; /* occurrences of each shape so far (corruption index) */
    bool done;                /* the bug asked for is planted */
} rs_shp;

typedef struct rs {
    const ravel_func *f;
    const ravel_machine *m;
    const rv_alloc_opts *opts;
    const rv_random_opts *ro;
    rv_random_stats *st;
    uint64_t rng;
    char *err;
    rv_cfg cfg;
    rv_out out;
    rv_pmove pm;
    uint32_t nregs, nv;
    rs_vreg *vs;
    uint32_t *copy_of;        /* per vreg: the source of the `copy` defining it, or RAVEL_NONE */
    uint32_t cur;             /* current block */
    void *mem;                /* the block holding the fixed-size arrays (rs_init) */
    rs_live live;
    rs_hold hold;
    rs_con con;
    rs_ins ins;
    rs_shp shp;
} rs;

/* ---- small helpers ---- */

static inline __attribute__((always_inline)) uint32_t vcls(const rs *a, uint32_t v) { return a->f->vregs.data[v].cls; }
static inline __attribute__((always_inline)) bool vref(const rs *a, uint32_t v) { return a->f->vregs.data[v].ref; }
static inline bool coin(rs *a, uint32_t n) { return rv_rng_below(&a->rng, n) == 0; }

static inline bool rs_fail(rs *a, uint32_t inst, const char *msg)
{
    if (!a->err) a->err = rv_alloc_errorf(a->f, inst, "%s", msg);
    return false;
}

/* ---- the state's accessors (the state is described in random_inst.c) ---- */

static inline __attribute__((always_inline)) uint32_t slot_val(const rs *a, uint32_t s)
{
    return s < a->hold.scont.len && a->hold.sstamp.data[s] == a->hold.epoch ? a->hold.scont.data[s] : RAVEL_NONE;
}

static inline __attribute__((always_inline)) uint32_t loc_get(const rs *a, ravel_loc l)
{
    return ravel_loc_is_slot(l) ? slot_val(a, ravel_loc_slot(l)) : a->hold.content[l];
}

/* Counts d (+1, -1) more locations like l holding v for the engine. */
static inline __attribute__((always_inline)) void held(rs *a, ravel_loc l, uint32_t v, int d)
{
    if (v == RAVEL_NONE) return;
    rs_vreg *x = &a->vs[v];
    if (!ravel_loc_is_slot(l)) {
        x->nreg += (uint32_t)d;
        return;
    }
    if (x->sepoch != a->hold.epoch) x->sepoch = a->hold.epoch, x->nslot = 0;
    x->nslot += (uint32_t)d;
}

/* The state and the moves (random_inst.c). */
void rv_rs_slot_grow(rs *a, uint32_t s);
bool rv_rs_surely_not(const rs *a, ravel_loc l, uint32_t v);
uint32_t rv_rs_new_slot_num(rs *a);
bool rv_rs_shape(rs *a, int kind);
void rv_rs_planted(rs *a);
ravel_loc rv_rs_cur_loc(rs *a, uint32_t v);
void rv_rs_add_move(rs *a, ravel_loc dst, ravel_loc src, uint32_t v);
bool rv_rs_locset_has(const rs *a, const rs_locset *x, ravel_loc l);
void rv_rs_locset_add(const rs *a, rs_locset *x, ravel_loc l);
bool rv_rs_emit_moves(rs *a, uint32_t anchor, uint32_t i);
void rv_rs_undo_all(rs *a);
void rv_rs_loc_set(rs *a, ravel_loc l, uint32_t v);

/* Entry contracts and edges (random_edge.c): the contract of block s,
 * decided when its first incoming edge is resolved; the moves on edge k of
 * the block ending at terminator ti. */
void rv_rs_decide_entry(rs *a, uint32_t s, const ravel_loc *src_in, const ravel_loc *src_par, uint32_t reloc);
bool rv_rs_edge(rs *a, uint32_t ti, uint32_t k);

/* One instruction (random_inst.c): false (a->err set) when this scheme
 * cannot meet its constraints. */
bool rv_rs_inst(rs *a, uint32_t i);

#endif
