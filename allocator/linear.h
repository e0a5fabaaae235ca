/* linear.h - the `linear` allocator's context, shared by its passes
 * (linear.c: order, liveness and the driver; linear_scan.c: the scan;
 * linear_resolve.c: edge resolution and spill slots). Internal to
 * allocator/linear*.c; the pipeline and the glossary are at the top of
 * linear.c.
 *
 * Requires: alloc.h. Guarantees: one definition of the context (its parts
 * are sub-structs, one per pass or kind of state) and of the small helpers
 * every pass uses; the entry points of the passes, in pipeline order. */
#ifndef RAVEL_ALLOC_LINEAR_H
#define RAVEL_ALLOC_LINEAR_H

#include "alloc.h"

#include <stdlib.h>
#include <string.h>

#define LIN_INF 0xffffffffu

enum { /* per-operand flags (index into f->ops) */
    OPK_DIES = 1,  /* use: the vreg is not live after the instruction */
    OPK_DEAD = 2,  /* def: the vreg is never used */
};

typedef struct lin_vst { uint32_t v, home; uint8_t sv; } lin_vst;
typedef RV_VEC(uint32_t) u32vec;
/* A block's entry or end state: a run of the states pool with room for
 * exactly the items it gets (params and live-ins; live-outs). */
typedef struct vstvec { lin_vst *data; uint32_t len; } vstvec;
typedef RV_VEC(rv_move) movevec;

/* The context's parts, one per pass or per kind of state (lin's fields
 * below name them). */

/* 1. order: the scan order and the scan position of every block start and
 * instruction. */
typedef struct lin_ord_s {
    u32vec order;
    uint32_t *bpos, *ipos, *inst_block;
} lin_ord_s;

/* 2. liveness: defs, the shared sparse liveness, per-operand DIES/DEAD and
 * the reads of each vreg at scan positions. */
typedef struct lin_live_s {
    uint32_t *def_inst, *def_reg; /* def_reg: register right after the def */
    uint8_t *def_stored; /* stored right after its def (spill_at_def): its slot is always valid */
    rv_live_sparse ls; /* shared liveness, jump arguments live-out; capped = global */
    uint8_t *opk;
    const uint8_t *global;  /* see LIN_GLOBAL_BLOCKS (ls.capped) */
    u32vec bglob;     /* globals in the state in the current block */
    uint32_t *use_start, *use_pos, *use_cur;
    uint32_t *kmark, *kpos; /* lin_kills' sparse set (dense, pos) */
    uint8_t *nocap;   /* lin_liveness' per-vreg "never capped" */
} lin_live_s;

/* 5. slot hulls (virtual slot v < nv: vreg v; >= nv: temporaries). */
typedef struct lin_hull_s {
    uint32_t *lo, *hi;
    uint8_t *slot_used;
    u32vec tpos; /* position of temporary slot nv + k */
} lin_hull_s;

/* 3. the scan's state between instructions. */
typedef struct lin_state_s {
    uint32_t *home, *owner;
    uint8_t *sv, *instate;
    uint32_t *refpos; /* index in refs + 1, 0 if absent */
    u32vec refs;
    uint32_t ninstate;
} lin_state_s;

/* 3. the scan: the current instruction (flags valid while stamp matches). */
typedef struct lin_inst_s {
    uint32_t stamp;
    uint32_t *rstamp, *rpinv;
    uint8_t *rfl;
    u32vec flagged;
    uint32_t *vstamp, *vpin;
    uint8_t *vfl;
    u32vec smap;
    uint32_t pos, inst, block;
    uint32_t anchor; /* where edits go */
} lin_inst_s;

/* 3./4. block states: every block's entry and end state. */
typedef struct lin_blk_s {
    vstvec *entry, *endst;
    lin_vst *states;  /* the pool of the entry and end states */
    uint32_t *emstamp, *emidx, emcount;
    uint8_t *ent_fresh; /* live-in whose entry register is not read yet */
    uint32_t *ent_idx;  /* its index in entry[cur.block] */
} lin_blk_s;

/* 4. resolution: the parallel moves and the registers they may borrow. */
typedef struct lin_res_s {
    rv_pmove pm;
    uint64_t *scratch, *pres;
    uint32_t *pres_v; /* preserved register -> the vreg it holds (for free_scratch) */
    uint8_t *pres_sv; /* and whether that vreg's slot is valid */
} lin_res_s;

typedef struct lin {
    const ravel_func *f;
    const ravel_machine *m;
    const rv_alloc_opts *opts;
    rv_cfg cfg;
    uint32_t nv, nb, nr;
    /* per register: may hold values (rv_alloc_homes: the allocatable ones,
     * on a machine with containment a set of them of which no two overlap;
     * the others are used as reserved ones) */
    uint8_t *home;
    lin_ord_s ord;
    lin_live_s live;
    lin_hull_s hull;
    lin_state_s st;
    lin_inst_s cur;
    lin_blk_s blk;
    lin_res_s res;
    /* output */
    rv_out out;
    u32vec smaps; /* inst, n, virtual slots... */
    void *mem; /* the block holding the fixed-size arrays (lin_arrays) */
    char *err;
} lin;

/* ---- small helpers ---- */

static inline uint32_t *u32_array(size_t n, uint8_t fill)
{
    uint32_t *p = rv_xmalloc(sizeof(uint32_t) * (n ? n : 1));
    memset(p, fill, sizeof(uint32_t) * n);
    return p;
}

static inline __attribute__((always_inline)) const rv_reg *lin_reg(const lin *L, uint32_t r) { return &L->m->regs.data[r]; }
static inline __attribute__((always_inline)) uint8_t vcls(const lin *L, uint32_t v) { return L->f->vregs.data[v].cls; }
static inline __attribute__((always_inline)) bool vref(const lin *L, uint32_t v) { return L->f->vregs.data[v].ref; }
static inline ravel_loc vslot(uint32_t v) { return RAVEL_SLOT_BIT | v; }
static inline bool reg_alloc_of(const lin *L, uint32_t r, uint32_t cls)
{
    return r < L->nr && L->home[r] && lin_reg(L, r)->cls == cls;
}

/* Live-in and live-out (jump arguments included) lists of b. */
static inline const uint32_t *live_in(const lin *L, uint32_t b, uint32_t *n) { return rv_ls_list(&L->live.ls, b, false, n); }
static inline const uint32_t *live_out(const lin *L, uint32_t b, uint32_t *n) { return rv_ls_list(&L->live.ls, b, true, n); }

static inline bool fail(lin *L, const char *what)
{
    if (!L->err) L->err = rv_alloc_errorf(L->f, L->cur.inst, "unsatisfiable constraints: %s", what);
    return false;
}

static inline uint32_t term_inst(const lin *L, uint32_t b)
{
    const rv_block *bl = &L->f->blocks.data[b];
    return bl->first_inst + bl->ninsts - 1;
}

/* Every virtual slot named anywhere gets a physical slot. */
static inline __attribute__((always_inline)) void mark_slot(lin *L, ravel_loc l)
{
    if (ravel_loc_is_slot(l) && ravel_loc_slot(l) < L->nv) L->hull.slot_used[ravel_loc_slot(l)] = 1;
}

/* Maps the vregs of a block-state list to their index (stamped). */
static inline void emap_build(lin *L, const vstvec *s)
{
    L->blk.emcount++;
    for (uint32_t k = 0; k < s->len; k++) {
        L->blk.emstamp[s->data[k].v] = L->blk.emcount;
        L->blk.emidx[s->data[k].v] = k;
    }
}

static inline __attribute__((always_inline)) const lin_vst *emap_get(const lin *L, const vstvec *s, uint32_t v)
{
    return L->blk.emstamp[v] == L->blk.emcount ? &s->data[L->blk.emidx[v]] : NULL;
}

/* 3. the scan (linear_scan.c): every block in scan order; false with
 * L->err set when an instruction's constraints cannot be met. Requires
 * passes 1-2 and the block state pool; guarantees each block's entry and
 * end states, the edits of the blocks in L->out, the hulls of the slots
 * it touched. */
bool rv_lin_scan(lin *L);
/* 4. resolution (linear_resolve.c): the moves on every CFG edge from the
 * end state of its source to the entry state of its target. */
bool rv_lin_resolve(lin *L);
/* 5. spill slots and the output (linear_resolve.c): virtual slots mapped
 * to physical ones by their hulls; the allocated function, or NULL. */
ravel_func *rv_lin_finish(lin *L);

#endif
