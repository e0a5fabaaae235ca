/* alloc.h - register allocators and their shared machinery.
 *
 * Every allocator is one line of allocators.def (the one list, read by the
 * table in table.c: {name, description, run}, and by the fuzz targets'
 * CMake). The CLI (`ravel alloc -a NAME`), the fuzz targets and the benchmarks
 * iterate the table, so adding an allocator is one file and one line (a
 * large one is a header holding its context and one file per pass:
 * fast*.c, linear*.c, random*.c, color*.c).
 *
 * Contract of run():
 *   requires  f is unallocated, passes ravel_validate(f, RAVEL_VALIDATE_SSA),
 *             and its blocks are in layout order (ravel_func_finish).
 *   returns   a new allocated function: the same blocks, parameters and
 *             original instructions in the same order (same mnemonics, vregs,
 *             constraints, immediates, attributes), every operand with a
 *             location, edits inserted between instructions, a stackmap on
 *             every safepoint; ravel_check(out, f) accepts it.
 *             On failure (only when constraints are unsatisfiable) returns
 *             NULL and a malloc'd message naming the instruction in *err.
 *   never     modifies f, keeps global state, or calls exit().
 *
 * Shared machinery (one copy, used by every allocator), in pipeline order:
 *
 *   rv_cfg_build (ir/cfg.c)   preds/succs, RPO, idom, loop depth
 *   ir/dataflow.c             one generic worklist bitset solver
 *   ir/live.c                 liveness (per block, over vregs: bitsets, or
 *                             sparse lists), program points, live
 *                             intervals with use positions (ir/analysis.h)
 *   pmove.c                   the parallel-move resolver
 *   out.c                     the output builder: locations, edits at
 *                             anchors (before/after instructions, on edges),
 *                             stackmaps -> the allocated ravel_func
 *   cost.c                    the cost model (spills, reloads, moves,
 *                             weighted by 10^loop-depth)
 *   assign.c                  for allocators that give each vreg one home
 *                             (color.c, ssa.c): the moves around each
 *                             instruction and on edges, stackmaps
 *   claims.h                  the fixed-register claims of an instruction
 *                             and the rules they can break (fast, random,
 *                             assign.c)
 *
 * Writing an allocator (fast.c is a complete example):
 *   1. rv_cfg_build(&cfg, f); liveness / intervals if the algorithm needs
 *      them (rv_liveness_build, rv_intervals_build);
 *   2. rv_out_init(&out, f); for every operand k of f: rv_out_set_loc;
 *   3. edits with rv_out_edit / rv_out_copy at rv_anchor_before/after(i),
 *      parallel shuffles through rv_pmove_resolve + rv_out_edits, edge
 *      copies at rv_edge_anchor(f, &cfg, b, k, &at_pred_end);
 *   4. rv_out_stackmap for every safepoint (slots holding live .ref values);
 *   5. return rv_out_finish(&out) (then free out and cfg), or NULL with
 *      *err = rv_alloc_errorf(f, inst, "unsatisfiable: ...");
 *   6. one line in allocators.def (the table and the prototype below come
 *      from it; its ALIAS column says whether it takes aliased machines): the CLI, tests (every corpus
 *      file, thousands of generated functions), fuzz targets and benchmarks
 *      pick it up from the table.
 *
 * Terms (inst index, program point, block params and jump arguments, home,
 * pin): docs/architecture.md, Glossary; their numbering: ir/analysis.h.
 */
#ifndef RAVEL_ALLOC_H
#define RAVEL_ALLOC_H

#include "ir/analysis.h"
#include "ir/ir.h"

#include <stdarg.h>

/* Counters an allocator reports about one run (`ravel alloc --stats`
 * prints them after the cost): n name/value pairs, in the allocator's
 * order. Allocators that count nothing leave n at 0. */
#define RV_ALLOC_MAX_STATS 8
typedef struct rv_alloc_stats {
    uint32_t n;
    const char *name[RV_ALLOC_MAX_STATS];
    uint64_t value[RV_ALLOC_MAX_STATS];
} rv_alloc_stats;

typedef struct rv_alloc_opts {
    uint64_t seed;  /* for allocators with random choices */
    bool trace;     /* print an event trace (allocate/evict/spill/reload/move) to stderr */
    rv_alloc_stats *stats; /* NULL, or filled by the allocators that count events (greedy) */
} rv_alloc_opts;

typedef struct rv_allocator {
    const char *name;
    const char *description;
    ravel_func *(*run)(const ravel_func *f, const rv_alloc_opts *o, char **err);
    bool alias; /* run takes machines with alias lines (allocators.def's ALIAS column) */
    /* An allocator outside the table (the fuzzing kit's callback, an
     * --alloc-cmd process): run is NULL and fn(user, ...) allocates. */
    ravel_alloc_fn fn;
    void *user;
} rv_allocator;

/* True if the built-in allocator a allocates on machines with containment
 * (docs/format.md section 14.1): its ALIAS column in allocators.def (fast
 * and linear); the others refuse them. */
bool rv_alloc_takes_alias(const rv_allocator *a);

/* Runs a on f, built-in (run) or not (fn): RAVEL_OK with *out set, or
 * RAVEL_EDECLINED (fn; or a built-in allocator that refuses f's machine
 * with containment, rv_alloc_takes_alias), or another negative status (a failure) with
 * *out NULL; *err, malloc'd or NULL, says why (free it with free). The one
 * call every driver (fuzz library, reducer, CLI) makes. */
int rv_alloc_run(const rv_allocator *a, const ravel_func *f, const rv_alloc_opts *o, ravel_func **out, char **err);

/* The table (table.c), terminated by an entry with name == NULL. */
extern const rv_allocator rv_allocators[];
const rv_allocator *rv_allocator_find(const char *name);

/* The allocators (one file each), from the one list (allocators.def). */
#define RV_ALLOCATOR(NAME, RUN, ALIAS, DESCRIPTION) ravel_func *RUN(const ravel_func *f, const rv_alloc_opts *o, char **err);
#include "allocators.def"
#undef RV_ALLOCATOR
/* The engine of `fast` (fast.c); with random = true it makes random legal
 * choices instead of good ones: the `random` allocator's classic mode. */
ravel_func *rv_fast_run(const ravel_func *f, const rv_alloc_opts *o, char **err, bool random);

/* random.c, for tests: the mode, the shapes it made, and one planted bug.
 * Shapes (and, with corrupt = KIND, the bug planted at occurrence
 * corrupt_at of KIND, counting from 0):
 *   EXIT_MOVE      an edge move in the predecessor, before its jump, into a
 *                  block with one predecessor  (bug: the move is dropped)
 *   MERGE_MOVE     the same into a join            (bug: dropped)
 *   ENTRY_MOVE     an edge move at the entry of the successor (bug: dropped)
 *   MERGE          a join reached with a value in different locations on
 *                  different edges (counted once per join and value)
 *   SPLIT_MOVE     a value moved to another register between instructions
 *                  (bug: moved to a different register than recorded)
 *   SPLIT_SPILL    spilled between instructions, register dropped
 *                  (bug: the spill is dropped)
 *   SPLIT_RELOAD   reloaded between instructions into a free register
 *   BRANCH_SPILL   spilled before a branch, register dropped, live into
 *                  several successors                 (bug: spill dropped)
 *   SPILL_RELOADS  a BRANCH_SPILL reloaded by two or more successors
 *   SLOT_REUSE     a slot written with a value while it holds another,
 *                  dead one; _CYCLE when the block is on a CFG cycle
 *   SLOT_CLASH     (bug only) a spill into a slot whose value is still
 *                  needed, later reloaded as if intact. */
enum {
    RV_RS_EXIT_MOVE, RV_RS_MERGE_MOVE, RV_RS_ENTRY_MOVE, RV_RS_MERGE,
    RV_RS_SPLIT_MOVE, RV_RS_SPLIT_SPILL, RV_RS_SPLIT_RELOAD,
    RV_RS_BRANCH_SPILL, RV_RS_SPILL_RELOADS,
    RV_RS_SLOT_REUSE, RV_RS_SLOT_REUSE_CYCLE, RV_RS_SLOT_CLASH,
    RV_RS_NKINDS
};
enum { RV_RS_MODE_AUTO, RV_RS_MODE_CLASSIC, RV_RS_MODE_SHAPES };
typedef struct rv_random_opts {
    int mode;            /* RV_RS_MODE_*; AUTO = chosen from the seed */
    int corrupt;         /* RV_RS_* kind whose bug to plant, or -1 */
    uint32_t corrupt_at; /* which occurrence of it */
} rv_random_opts;
typedef struct rv_random_stats {
    int mode;               /* the mode used */
    bool fallback;          /* shapes mode asked for but classic used */
    bool planted;           /* the bug was planted */
    uint32_t count[RV_RS_NKINDS];
} rv_random_stats;
/* rv_alloc_random with options (ro may be NULL) and statistics (st may be NULL). */
ravel_func *rv_random_run(const ravel_func *f, const rv_alloc_opts *o, const rv_random_opts *ro, rv_random_stats *st, char **err);

/* ===== helpers (util in alloc_util.c) ====================================== */

/* Bitsets (rv_bs_*), dataflow, liveness, intervals: ir/analysis.h. */

/* The PRNG for allocators with random choices: rv_rng_next, rv_rng_below
 * (ir/rng.h). Null-safe operand lists: rv_ops_of and the like (ir/ir.h). */

/* A malloc'd error message naming the function, the block and instruction
 * `inst` of f (with its source line when known), then the formatted text.
 * inst may be RAVEL_NONE. */
char *rv_alloc_errorf(const ravel_func *f, uint32_t inst, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Event trace (allocate/evict/spill/reload/move): prints "[NAME] ..." and a
 * newline to stderr when o->trace is set; costs one branch when off. */
void rv_alloc_trace(const rv_alloc_opts *o, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Homes on a machine with containment (docs/format.md section 14.1), for
 * an allocator that keeps each value in one register at a time: a malloc'd
 * array, per register of m, 1 for an allocatable register that may hold
 * values. No two homes overlap; on a machine without containment every
 * allocatable register is one. The class's other allocatable registers
 * are used as reserved ones: named by fixed operands and clobbers only. */
uint8_t *rv_alloc_homes(const ravel_machine *m);
bool rv_alloc_reg_overlaps(const ravel_machine *m, uint32_t r);

/* Block of each instruction of an unallocated function: a malloc'd array
 * of f->insts.len block ids. */
uint32_t *rv_inst_blocks(const ravel_func *f);

/* ===== pmove.c: the parallel-move resolver ================================ */
/* An edit as produced by the resolver and consumed by the output builder. */
typedef struct rv_edit {
    uint8_t kind; /* RAVEL_OP_SPILL (reg -> slot), RAVEL_OP_RELOAD (slot -> reg), RAVEL_OP_MOVE (reg -> reg) */
    ravel_loc dst, src;
} rv_edit;

/* A move of the parallel set: dst := src, both register or slot; cls is
 * the register class of the value moved (used to pick a temporary register
 * for slot->slot copies and cycles). */
typedef struct rv_move {
    ravel_loc dst, src;
    uint32_t cls;
} rv_move;

/* Resolver context: scratch memory reused across calls (no per-call
 * allocation once warm), and the output. Zero-initialise or rv_pmove_init. */
typedef struct rv_pmove {
    RV_VEC(rv_edit) out;   /* result of the last rv_pmove_resolve */
    RV_VEC(rv_move) work;  /* internal */
    RV_VEC(uint32_t) tmp;  /* internal */
} rv_pmove;
void rv_pmove_init(rv_pmove *pm);
void rv_pmove_free(rv_pmove *pm);

/* Sequentialises the simultaneous moves[0..n): afterwards every dst holds
 * what its src held before (reading all sources "at once").
 * Requires: each dst appears at most once (a src may fan out to several
 * dsts; dst == src is allowed and emits nothing); registers are < nregs of
 * m. scratch_regs: bitset over m's registers that hold nothing needed at
 * this point and are not a dst or src of any move (may be NULL = none).
 * new_slot(slot_ctx) returns a spill slot number that holds nothing needed
 * and differs from every slot in the moves; it is called at most twice per
 * resolve (a cycle temporary, a borrowed register's save), and only when
 * scratch registers of the needed class run short.
 * Guarantees (result in pm->out): only spill/reload/move edits (never slot
 * to slot); writes only the dsts, the scratch registers, the slots from
 * new_slot, and a register R borrowed for a slot->slot copy when no scratch
 * register of the class is free (R is spilled to a new_slot slot first and
 * reloaded after, so it ends with its original content). Cycles are broken
 * through a scratch register of the class, else through a new_slot slot
 * (also when the cycle holds a slot -> slot move and the class has only one
 * scratch register, which that copy needs).
 * Returns RAVEL_OK, or RAVEL_EINVAL if a dst appears twice (pm->out empty). */
int rv_pmove_resolve(rv_pmove *pm, const ravel_machine *m, const rv_move *moves, uint32_t n,
                     const uint64_t *scratch_regs, uint32_t (*new_slot)(void *slot_ctx), void *slot_ctx);

/* The fast path of rv_pmove_resolve, for callers that want to skip
 * computing scratch registers: if moves[0..n) (n <= 12) has distinct dsts,
 * no slot -> slot move and no cycle, puts a valid sequence in pm->out (each
 * move with dst != src once, no temporary) and returns true; else returns
 * false with pm->out empty (then call rv_pmove_resolve). */
bool rv_pmove_simple(rv_pmove *pm, const rv_move *moves, uint32_t n);

/* (rv_edit_kind, the edit kind for dst := src: ir/ir.h) */

/* ===== out.c: the output builder and stackmaps ============================ */
/* Anchors: where an edit goes, relative to instruction i of the unallocated
 * function. At one instruction, edits run in this order:
 *   ENTRY(i)   block-entry edits (edge edits placed in a single-predecessor
 *              successor); only meaningful when i is the block's first inst
 *   BEFORE(i)  the allocator's edits before i
 *   EXIT(i)    edge edits placed in a single-successor predecessor; only
 *              when i is the block's terminator (they run after BEFORE(i))
 *   (instruction i)
 *   AFTER(i)   the allocator's edits after i (i not a terminator)
 * Edits at the same anchor keep the order in which they were added. */
static inline uint32_t rv_anchor_entry(uint32_t inst) { return 4 * inst; }
static inline uint32_t rv_anchor_before(uint32_t inst) { return 4 * inst + 1; }
static inline uint32_t rv_anchor_exit(uint32_t inst) { return 4 * inst + 2; }
static inline uint32_t rv_anchor_after(uint32_t inst) { return 4 * inst + 3; }

/* Where the edits of the edge (block b, successor k of its terminator) go:
 * EXIT(terminator of b) if b's terminator has exactly one successor edge,
 * else ENTRY(first inst of the successor) if the successor has exactly one
 * predecessor edge; else RAVEL_NONE (a critical edge, which docs/format.md section 4 forbids,
 * or `br v, b2, b2` style duplicate edges: the caller must then use edits
 * that are equal on every such edge, placed at the successor's ENTRY).
 * *at_pred_end (may be NULL) tells which of the two was chosen. */
uint32_t rv_edge_anchor(const ravel_func *f, const rv_cfg *cfg, uint32_t b, uint32_t k, bool *at_pred_end);

typedef struct rv_out_edit_rec {
    uint32_t anchor;
    rv_edit e;
} rv_out_edit_rec;

/* Accumulates an allocation of the unallocated function f. */
typedef struct rv_out {
    const ravel_func *f;
    ravel_loc *loc;               /* per operand of f (index into f->ops), initially RAVEL_LOC_NONE */
    RV_VEC(rv_out_edit_rec) edits;    /* in the order added */
    RV_VEC(uint32_t) smap;        /* stackmaps: inst, n, then n slot numbers, ... */
    uint64_t nsmap;               /* slot entries in smap */
    bool too_big;                 /* the stackmaps passed RV_MAX_STACKMAP_ENTRIES: refused */
} rv_out;
/* The most stackmap entries (slots, summed over every safepoint) of an
 * allocated function: past it the allocation is refused with a message
 * (rv_out_limit_error) instead of holding and printing gigabytes (a 10^6-
 * instruction function with safepoints would have about 6 * 10^8). Each
 * entry costs 8 bytes of memory and about 8 of text. docs/format.md section 12.2. */
#define RV_MAX_STACKMAP_ENTRIES (1u << 25)
/* The message for a function refused by the limit (malloc'd). */
char *rv_out_limit_error(const rv_out *o);
void rv_out_init(rv_out *o, const ravel_func *f);
void rv_out_free(rv_out *o);
static inline void rv_out_set_loc(rv_out *o, uint32_t op, ravel_loc l) { o->loc[op] = l; }
/* Adds one edit (kind: RAVEL_OP_SPILL/RELOAD/MOVE) at an anchor. */
void rv_out_edit(rv_out *o, uint32_t anchor, ravel_opcode kind, ravel_loc dst, ravel_loc src);
/* Adds dst := src with the right kind (src and dst not both slots; no-op if equal). */
void rv_out_copy(rv_out *o, uint32_t anchor, ravel_loc dst, ravel_loc src);
/* Adds every edit of pm->out at an anchor, in order. */
void rv_out_edits(rv_out *o, uint32_t anchor, const rv_pmove *pm);
/* Sets the stackmap of safepoint inst (slot numbers, any order, duplicates
 * allowed). A safepoint never given one gets an empty stackmap. At most one
 * call per instruction. */
void rv_out_stackmap(rv_out *o, uint32_t inst, const uint32_t *slots, uint32_t n);
/* Builds the allocated function: a copy of f with the locations, the edits
 * (sorted by anchor, stable) and the stackmaps; NULL if o->too_big. Operands left at
 * RAVEL_LOC_NONE stay unallocated (the checker reports them). Linear in the
 * size of f plus the edits. The rv_out may be freed afterwards. */
ravel_func *rv_out_finish(rv_out *o);

/* ===== assign.c: from one home per vreg to an allocation =================== */
/* The back end of the allocators that give every vreg one home for its
 * whole life (`color`, `ssa`): each instruction gets a parallel move
 * before it (operands into the registers their constraints need, stores to
 * slots, saves of live-across values whose register the instruction writes
 * or clobbers, .ref values to their slots at safepoints) and one after it
 * (defs to their homes, restores); edges copy arguments' homes into
 * parameters' homes.
 * Requires: the homes never give one register to two vregs live at the
 * same point (between instructions, or at an instruction's early or late
 * point), except a late def with a use of the same instruction that dies
 * there, and the def and source of a `copy`; jump arguments count as live
 * after their branch, block parameters as defined at their block's entry.
 * Guarantees: the alloc.h contract; fails only on unsatisfiable
 * constraints. */
typedef struct rv_assign_in {
    const ravel_func *f;
    const rv_cfg *cfg;
    const rv_liveness *lv;
    const uint32_t *home;  /* per vreg: home register, or RAVEL_NONE = its slot */
    const uint32_t *group; /* per vreg: slot group (one slot each; members never live at once); NULL = one per vreg */
    const uint32_t *hint;  /* per operand: temporary register to prefer, or RAVEL_NONE; NULL = none */
} rv_assign_in;
ravel_func *rv_assign_emit(const rv_assign_in *in, char **err);

/* ===== cost.c: the cost model ============================================= */
/* Loads (reload) 4, stores (spill) 1, moves 0.2, each weighted by
 * 10^loop-depth of its block (depth from rv_cfg_build on the allocated
 * function itself; capped at 10 levels). Works on any allocated function, so
 * it scores every allocator alike. */
typedef struct rv_cost {
    uint64_t spills, reloads, moves;
    double weighted;
} rv_cost;
void rv_cost_compute(const ravel_func *alloc, rv_cost *c);
#define RV_COST_RELOAD 4.0
#define RV_COST_SPILL 1.0
#define RV_COST_MOVE 0.2

#endif
