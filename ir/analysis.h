/*
 * analysis.h - the shared analyses over a function's CFG (beside ir/cfg.c),
 * for the allocators, injection and the checker: bitsets, the generic
 * bitset dataflow solver (dataflow.c), and liveness, program points and
 * live intervals (live.c).
 *
 * The terms are defined in docs/architecture.md (Glossary); their numbering:
 *   inst index   index into f->insts of the UNALLOCATED function. Such a
 *                function has no edits, and its instructions are in block
 *                layout order (block b owns [first_inst, first_inst+ninsts)).
 *   program point  each instruction i has an early point 2i (early uses read,
 *                early defs written) and a late point 2i+1 (late defs
 *                written, late uses read). Block b covers the points
 *                [2*first_inst, 2*(first_inst+ninsts)).
 *   block params are defined at the block's first point; jump arguments are
 *                used at the early point of the terminator that passes them.
 */
#ifndef RAVEL_ANALYSIS_H
#define RAVEL_ANALYSIS_H

#include "ir/ir.h"

/* ===== bitsets: arrays of 64-bit words ======================================= */
static inline uint32_t rv_bs_words(uint32_t nbits) { return (nbits + 63) / 64; }
static inline bool rv_bs_test(const uint64_t *s, uint32_t i) { return (s[i >> 6] >> (i & 63)) & 1; }
static inline void rv_bs_set(uint64_t *s, uint32_t i) { s[i >> 6] |= (uint64_t)1 << (i & 63); }
static inline void rv_bs_clear(uint64_t *s, uint32_t i) { s[i >> 6] &= ~((uint64_t)1 << (i & 63)); }

/* ===== dataflow.c: one generic worklist solver ============================== */
/* Solves a bitset dataflow problem over the CFG.
 *   forward:  in[b]  = boundary (b = entry) or MEET over preds p of out[p];
 *             out[b] = transfer(b, in[b]).
 *   backward: out[b] = boundary (b without successors) or MEET over succs s
 *             of in[s];  in[b] = transfer(b, out[b]).
 * MEET is union (meet_and = false) or intersection (meet_and = true); for
 * intersection, non-boundary values start at "all ones" (top), for union
 * at "empty". Every block 0..nblocks-1 is solved, unreachable ones too
 * (worklist seeded in RPO, or reverse RPO for backward, then the unreachable
 * blocks). The transfer must be monotone; it may be called several times
 * per block. Gen/kill mode (transfer NULL): the transfer of block b is
 * dst = gen[b] | (src & ~kill[b]), from the caller's per-block sets (nwords
 * words each, block b's at gen + b * nwords), e.g. liveness (backward: gen
 * the vregs read before any def in b, kill those b defines). Requires: cfg built for the function the transfer describes.
 * Guarantees: in/out hold the least (union) / greatest (intersection)
 * fixpoint; memory is owned by the rv_dataflow until rv_dataflow_free. */
typedef struct rv_dataflow {
    /* inputs */
    const rv_cfg *cfg;
    uint32_t nbits;
    bool backward;
    bool meet_and;
    /* dst := transfer_b(src); dst and src do not alias (nwords words each) */
    void (*transfer)(void *ctx, uint32_t block, uint64_t *dst, const uint64_t *src);
    void *ctx;
    const uint64_t *gen, *kill; /* gen/kill mode (transfer NULL) */
    const uint64_t *boundary; /* NULL = empty set */
    /* outputs: block b's sets are in + b*nwords, out + b*nwords */
    uint32_t nwords;
    uint64_t *in, *out;
    uint32_t iterations; /* transfer calls made (for tests and tuning) */
} rv_dataflow;
void rv_dataflow_solve(rv_dataflow *df);
void rv_dataflow_free(rv_dataflow *df);

/* ===== live.c: liveness, program points, live intervals ====================== */
/* Liveness over vregs (path exploration per vreg; equal to the least
 * fixpoint of the backward union dataflow problem).
 *   in[b]:  vregs live at b's entry; b's own params are NOT in it (they are
 *           defined at the entry).
 *   out[b]: vregs live after b's terminator = union of in[s] over successors.
 *           Jump arguments are uses of the terminator, so an argument is in
 *           in[b] (unless defined in b) but only in out[b] if some successor
 *           needs it itself.
 * Memory: 2 * nblocks * nvregs bits. Requires an unallocated SSA function
 * (defs dominate uses) and its cfg. */
typedef struct rv_liveness {
    uint32_t nblocks, nvregs, nwords;
    uint64_t *in, *out;
} rv_liveness;
void rv_liveness_build(rv_liveness *lv, const ravel_func *f, const rv_cfg *cfg);
/* The same sets from the generic iterative solver (a pass per loop nesting
 * level; kept as the reference the tests compare rv_liveness_build with). */
void rv_liveness_build_dataflow(rv_liveness *lv, const ravel_func *f, const rv_cfg *cfg);
void rv_liveness_free(rv_liveness *lv);
/* The gen/kill sets of block b for backward liveness, the one definition of
 * that transfer (rv_liveness_build_dataflow, and the allocators' own
 * dataflow problems): walking b backwards, each instruction's defs leave
 * gen and join kill, then its reads (uses, jump arguments) join gen; b's
 * parameters are defs last; edits are skipped. Bit of vreg v: v, or map[v]
 * when map is given; only bits below nbits are tracked. flags:
 * RV_LA_USED_ARGS, an argument is a read only if used[its parameter]
 * (per vreg). g and k: b's sets, zeroed by the caller. */
void rv_block_gen_kill(const ravel_func *f, uint32_t b, uint64_t *g, uint64_t *k, unsigned flags, const uint8_t *used,
                       const uint32_t *map, uint32_t nbits);
/* Bytes rv_liveness_build allocates for f (allocators refuse functions
 * beyond RV_LIVENESS_MAX_BYTES with a "too large" error). */
static inline size_t rv_liveness_bytes(const ravel_func *f, const rv_cfg *cfg)
{
    return (size_t)cfg->nblocks * rv_bs_words(f->vregs.len) * 2 * sizeof(uint64_t);
}
#define RV_LIVENESS_MAX_BYTES ((size_t)1 << 28)
static inline bool rv_live_in(const rv_liveness *lv, uint32_t b, uint32_t v) { return rv_bs_test(lv->in + (size_t)b * lv->nwords, v); }
static inline bool rv_live_out(const rv_liveness *lv, uint32_t b, uint32_t v) { return rv_bs_test(lv->out + (size_t)b * lv->nwords, v); }

/* The same sets as sparse lists, memory linear in their size (for
 * allocators that must scale to functions where nblocks x nvregs bits is
 * too much): live-in of block b is v[start[2b] .. start[2b+1]), live-out
 * v[start[2b+1] .. start[2b+2]), each ascending. A vreg whose in and out
 * marks together would exceed `cap` (UINT32_MAX: no cap) is left out of
 * every list and flagged in capped[v] (the caller then handles it without
 * block-level liveness, e.g. in memory at block boundaries), unless
 * nocap[v] is set (nocap may be NULL). flags: RV_LS_ARGS_OUT also lists
 * every jump argument live-out of the block whose terminator passes it
 * (for allocators whose edge moves read the arguments at that block's
 * end); its marks count towards cap. Time linear in the result, plus at
 * most cap + 1 marks per capped vreg. */
typedef struct rv_live_sparse {
    uint32_t nblocks, nvregs;
    uint32_t *start; /* 2 * nblocks + 1 entries */
    uint32_t *v;
    uint8_t *capped; /* per vreg */
} rv_live_sparse;
enum { RV_LS_ARGS_OUT = 1 };
void rv_live_sparse_build(rv_live_sparse *ls, const ravel_func *f, const rv_cfg *cfg, uint32_t cap, const uint8_t *nocap,
                          unsigned flags);
void rv_live_sparse_free(rv_live_sparse *ls);
/* The live-in (out = false) or live-out list of b; *n its length. */
static inline const uint32_t *rv_ls_list(const rv_live_sparse *ls, uint32_t b, bool out, uint32_t *n)
{
    uint32_t k = 2 * b + (out ? 1u : 0u);
    *n = ls->start[k + 1] - ls->start[k];
    return ls->v + ls->start[k];
}

/* Per-operand liveness inside block b: the one definition of "the vreg of
 * this operand is live after its instruction" (a use whose vreg is not is
 * its last use; a def whose vreg is not is dead). A backward walk from b's
 * live-out set, kept in the caller's sparse set `live` over vregs (b's
 * live-out on entry; on return the vregs live at b's entry, as a forward
 * walk starts from them, params that b reads included). At each
 * instruction, bottom up: its jump arguments join the set (they are read
 * at its end); after[op] = whether the operand's vreg is in the set, for
 * each operand op (an index into f->ops); its defs leave the set; its uses
 * join it. So every use of one vreg by one instruction gets one answer.
 * Requires an SSA function without edits (an allocator's input). Inline:
 * the allocators' hot loop. The options (rv_live_after_walk's flags):
 *   RV_LA_NO_ARGS    no jump argument is a read: the caller seeds `live`
 *                    with the ones it wants live at the block's end (fast:
 *                    only its own values passed on a jump, which it keeps
 *                    in registers to the end);
 *   RV_LA_USED_ARGS  an argument is a read only if its parameter is marked
 *                    in used[] (per vreg): one passed only to parameters
 *                    nothing reads needs no location (random);
 *   RV_LA_NEXT_READ  after[op] = whether the vreg is read again below op:
 *                    by a later instruction, by a use of op's instruction
 *                    after op (its uses follow its defs, in operand order),
 *                    or is in the seed; defs never leave the set. In a
 *                    reachable block of an SSA function this is the answer
 *                    above but for duplicate uses (only the last one of an
 *                    instruction is a last use); it differs where a use
 *                    comes before its def, which the validator allows in
 *                    unreachable blocks (fast's rule).
 * rv_live_step_back is one instruction of it without options (after may be
 * NULL): bug injection keeps the set before each step, the vregs live after
 * each instruction of an allocated function (whose edits it steps over). */
enum { RV_LA_NO_ARGS = 1, RV_LA_USED_ARGS = 2, RV_LA_NEXT_READ = 4 };

/* The jump arguments of `in` that are reads (flags: RV_LA_*) join `live`. */
static inline void rv_live_add_args(const ravel_func *f, const rv_inst *in, rv_sset *live, unsigned flags, const uint8_t *used)
{
    if (flags & RV_LA_NO_ARGS) return;
    for (uint32_t s = 0; s < rv_inst_nsuccs(in); s++) {
        const rv_succ *sc = &rv_inst_succs(f, in)[s];
        const uint32_t *args = rv_args_of(f, sc);
        if (!(flags & RV_LA_USED_ARGS)) {
            for (uint32_t k = 0; k < sc->nargs; k++) rv_sset_add(live, args[k]);
            continue;
        }
        const rv_block *sb = &f->blocks.data[sc->block];
        for (uint32_t k = 0; k < sc->nargs && k < sb->nparams; k++)
            if (used[rv_block_params(f, sb)[k]]) rv_sset_add(live, args[k]);
    }
}

/* An instruction's operands, walking back: after[op] (if after) whether
 * its vreg is live below; its defs leave the set; its uses join it. */
static inline void rv_live_step_ops(const ravel_func *f, const rv_inst *in, rv_sset *live, uint8_t *after)
{
    const rv_operand *ops = rv_ops_of(f, in);
    uint32_t n = (uint32_t)in->ndefs + in->nuses;
    for (uint32_t k = 0; after && k < n; k++) after[in->first_op + k] = rv_sset_has(live, ops[k].vreg);
    for (uint32_t d = 0; d < in->ndefs; d++) rv_sset_del(live, ops[d].vreg);
    for (uint32_t u = in->ndefs; u < n; u++) rv_sset_add(live, ops[u].vreg);
}

/* One instruction of rv_live_after_walk without options. */
static inline void rv_live_step_back(const ravel_func *f, const rv_inst *in, rv_sset *live, uint8_t *after)
{
    rv_live_add_args(f, in, live, 0, NULL);
    rv_live_step_ops(f, in, live, after);
}

static inline void rv_live_after_walk(const ravel_func *f, uint32_t b, rv_sset *live, uint8_t *after, unsigned flags,
                                      const uint8_t *used)
{
    const rv_block *bl = &f->blocks.data[b];
    for (uint32_t j = bl->ninsts; j-- > 0;) {
        const rv_inst *in = rv_inst_at(f, bl->first_inst + j);
        const rv_operand *ops = rv_ops_of(f, in);
        uint32_t n = (uint32_t)in->ndefs + in->nuses;
        rv_live_add_args(f, in, live, flags, used);
        if (flags & RV_LA_NEXT_READ) {
            for (uint32_t k = n; k-- > 0;) {
                after[in->first_op + k] = rv_sset_has(live, ops[k].vreg);
                if (k >= in->ndefs) rv_sset_add(live, ops[k].vreg);
            }
            continue;
        }
        rv_live_step_ops(f, in, live, after);
    }
}

/* rv_live_after_walk without options: every jump argument is a read. */
static inline void rv_live_after_block(const ravel_func *f, uint32_t b, rv_sset *live, uint8_t *after)
{
    rv_live_after_walk(f, b, live, after, 0, NULL);
}

/* ===== undef.c: the vregs undefined on every path ============================= */
/* U of docs/format.md section 14.2 at every block entry: the vregs whose
 * current value is undefined on every path from the entry (an `undef`, or
 * a copy or branch argument of a vreg in U, and not redefined since);
 * joins intersect, unreachable edges take no part. Works on allocated
 * functions too (edits define no vreg). */
typedef struct rv_undef {
    uint32_t nblocks, nwords;
    uint64_t *in; /* block b's set: in + b * nwords (unreachable blocks: all ones) */
} rv_undef;
#define RV_UNDEF_MAX_BYTES ((size_t)1 << 28)
/* False (and u->in NULL) when the sets would exceed RV_UNDEF_MAX_BYTES. */
bool rv_undef_build(rv_undef *u, const ravel_func *f, const rv_cfg *cfg);
void rv_undef_free(rv_undef *u);
/* U after instruction in, from U before it (s, nwords words): the walk
 * inside a block. */
void rv_undef_step(const ravel_func *f, const rv_inst *in, uint64_t *s);
/* f has an `undef` op (else U is empty everywhere). O(instructions). */
bool rv_func_has_undef(const ravel_func *f);

/* Program points (see the glossary). */
static inline uint32_t rv_point_early(uint32_t inst) { return 2 * inst; }
static inline uint32_t rv_point_late(uint32_t inst) { return 2 * inst + 1; }
static inline uint32_t rv_point_inst(uint32_t point) { return point / 2; }

typedef struct rv_range { uint32_t from, to; } rv_range; /* points [from, to) */

enum { /* rv_use_pos.flags */
    RV_UP_DEF = 1,   /* a definition (operand def or block parameter) */
    RV_UP_PARAM = 2, /* a block parameter (op == RAVEL_NONE) */
    RV_UP_ARG = 4,   /* a jump argument (op == RAVEL_NONE; kind RAVEL_C_ANY) */
};
typedef struct rv_use_pos {
    uint32_t pos;  /* program point */
    uint32_t inst; /* instruction (for params: the block's first instruction) */
    uint32_t op;   /* operand index into f->ops, or RAVEL_NONE (param, jump arg) */
    uint8_t kind;  /* ravel_constraint (params and jump args: RAVEL_C_ANY) */
    uint8_t flags; /* RV_UP_* */
    uint16_t arg;  /* fixed register id / reuse index, as in rv_operand */
} rv_use_pos;

/* The live interval of one vreg: ranges sorted, disjoint and non-adjacent
 * (merged); use positions (defs included) sorted by pos, then defs first.
 * A vreg that is never defined or used has no ranges and no uses. A def
 * without uses gets the range [def, def+1). A use at point p makes the
 * range cover p (so `to` >= p+1); a value live out of block b covers up to
 * the block's end. */
typedef struct rv_interval {
    uint32_t first_range, nranges; /* into rv_intervals.ranges */
    uint32_t first_use, nuses;     /* into rv_intervals.uses */
} rv_interval;
typedef struct rv_intervals {
    uint32_t nvregs;
    uint32_t npoints;   /* 2 * f->insts.len */
    rv_interval *iv;    /* per vreg id */
    rv_range *ranges;
    rv_use_pos *uses;
    uint32_t nranges_total, nuses_total;
} rv_intervals;
/* Requires: unallocated SSA function, its cfg and liveness. Linear in the
 * function size plus the number of ranges. */
void rv_intervals_build(rv_intervals *iv, const ravel_func *f, const rv_cfg *cfg, const rv_liveness *lv);
/* The same from sparse liveness. Use positions are identical; ranges are
 * too, except that a capped vreg (absent from the lists) gets only the
 * parts within the blocks that define or read it, and with RV_LS_ARGS_OUT
 * a jump argument's range reaches its block's end. ls may be NULL: then
 * only the use positions are built (no vreg has ranges), for allocators
 * that need the positions alone. */
void rv_intervals_build_sparse(rv_intervals *iv, const ravel_func *f, const rv_cfg *cfg, const rv_live_sparse *ls);
void rv_intervals_free(rv_intervals *iv);
static inline const rv_range *rv_iv_ranges(const rv_intervals *s, uint32_t v) { return s->ranges + s->iv[v].first_range; }
static inline const rv_use_pos *rv_iv_uses(const rv_intervals *s, uint32_t v) { return s->uses + s->iv[v].first_use; }
/* True if point p lies in one of v's ranges (binary search). */
bool rv_iv_covers(const rv_intervals *s, uint32_t v, uint32_t p);

#endif
