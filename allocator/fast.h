/* fast.h - the `fast` allocator's context, shared by its passes (fast.c:
 * edges, blocks and the driver; fast_prepass.c: the pre-passes;
 * fast_inst.c: register choice and one instruction). Internal to
 * allocator/fast*.c; the strategy is at the top of fast.c.
 *
 * Requires: alloc.h. Guarantees: one definition of the context (its parts
 * are sub-structs: regs, eb, sp) and of the small helpers every pass uses;
 * the entry points of the passes, in pipeline order. */
#ifndef RAVEL_ALLOC_FAST_H
#define RAVEL_ALLOC_FAST_H

#include "alloc.h"
#include "claims.h"

#include <stdlib.h>
#include <string.h>

enum { /* per-vreg flags */
    VF_GLOBAL = 1,
    VF_SLOT_VALID = 2, /* the vreg's slot holds its value */
    VF_USED = 4,       /* has at least one use (operand or jump argument) */
};

enum { /* per-register flags for the current instruction (claims.h's bits, then this engine's) */
    RF_TGT_E = RV_CLAIM_USE_E, /* an early use reads tgt[r] from r */
    RF_TGT_L = RV_CLAIM_USE_L, /* a late use reads tgt[r] from r */
    RF_DEF_E = RV_CLAIM_DEF_E, /* an early def writes r */
    RF_DEF_L = RV_CLAIM_DEF_L, /* a late def writes r */
    RF_CLOB = RV_CLAIM_CLOB,   /* the instruction clobbers r */
    RF_SURV = 32,   /* r receives a rescued value (tgt[r]) before the instruction */
    RF_TOUCHED = 64,
};
#define RF_DEF (RF_DEF_E | RF_DEF_L)
#define RF_TGT (RF_TGT_E | RF_TGT_L | RF_SURV)

/* Per-vreg state, packed so that one vreg is one cache line at most. */
typedef struct fa_vreg {
    uint32_t home;      /* register holding the vreg, or RAVEL_NONE */
    uint32_t slot;      /* slot number or RAVEL_NONE */
    uint32_t kill_at;   /* instruction at which the vreg dies in its current block */
    uint32_t tgt_of;    /* first target register chosen for the vreg at instruction tgt_stamp */
    uint32_t tgt_stamp;
    uint32_t stamp;     /* pre-pass: 1 + block of the latest use seen */
    uint8_t vflags;     /* VF_* */
} fa_vreg;

/* Refs live across each safepoint (see the file comment). Liveness is
 * separable per vreg, so only GLOBAL refs (those that can be live across a
 * block boundary) go through the generic dataflow solver, with per-block
 * gen/kill sets made by rv_fast_prepass's backward scan (the transfer is then
 * O(words), not a walk over the block). A non-global ref is defined and
 * used only in its block, never live out of it; the backward walk over
 * each block that has a safepoint tracks every ref. Memory: 4 x nblocks x
 * global refs bits. Ref indices: globals [0, ng), then locals. */
typedef struct ref_ctx {
    const ravel_func *f;
    uint32_t *ridx;        /* vreg -> ref index or RAVEL_NONE */
    uint32_t *rvreg;       /* ref index -> vreg */
    uint32_t nw;           /* words of the walk set (every ref) */
    uint32_t ng, gw;       /* global refs and words of the dataflow sets */
    uint64_t *gen, *kill;  /* per block, gw words each */
    bool *has_sp;          /* per block: it has a safepoint */
    uint32_t nsp;          /* safepoints in the function (0: nothing else is set) */
} ref_ctx;

/* Per register: what it holds, and its flags for the current instruction. */
typedef struct fa_regs {
    uint32_t *content;  /* vreg whose value the register holds (it is that vreg's home) */
    uint8_t *rf;        /* RF_* for the current instruction */
    uint32_t *tgt;      /* RF_TGT: the vreg the register must hold before the instruction */
    uint32_t *touched;  /* the registers with flags (rf) this instruction */
    uint32_t ntouched;
    uint64_t *scratch_bs;
} fa_regs;

/* Extended blocks: a block whose only predecessor edge comes from an
 * earlier block starts with that block's registers (heir_src). */
typedef struct fa_eb {
    uint32_t *heir_src;  /* per block: the predecessor inherited from, or RAVEL_NONE */
    uint32_t *gen_start; /* per block: its upward-exposed operand uses, CSR into gen */
    RV_VEC(uint32_t) gen;
    uint32_t *snap_start, *snap_len; /* per block: (reg, vreg) pairs left at its end */
    RV_VEC(uint32_t) snap;
} fa_eb;

/* Safepoints: refs live across safepoint i are list[first[i] .. + n[i])
 * (set for safepoints only). */
typedef struct fa_sp {
    uint32_t *first, *n; /* NULL when the function has no safepoints */
    RV_VEC(uint32_t) list;
    ref_ctx refs; /* .ref liveness (rv_fast_safepoint_refs), from rv_fast_prepass */
} fa_sp;

typedef struct fa {
    const ravel_func *f;
    const ravel_machine *m;
    const rv_alloc_opts *opts;
    const char *name;
    bool random;
    uint64_t rng;
    char *err;
    rv_cfg cfg;
    rv_out out;
    rv_pmove pm;
    uint32_t nregs;
    fa_vreg *vs;        /* per vreg */
    uint32_t next_slot;
    uint32_t scratch_slot[2], scratch_used;
    /* per operand: its vreg is read later in the block or kept to its end
     * (fa_kills); a use without it is a last use, a def without it dead */
    uint8_t *live_after;
    ravel_loc *loc;     /* = out.loc */
    uint32_t cur_op0;   /* first operand of the instruction being claimed (claim_fixed) */
    fa_regs regs;       /* per register, for the current instruction */
    /* per register: may hold values (rv_alloc_homes: the allocatable ones,
     * on a machine with containment a set of them of which no two overlap) */
    uint8_t *home_ok;
    bool alias;         /* the machine has containment */
    RV_VEC(rv_move) part_moves; /* moves into a non-home part, after the parallel move */
    /* per instruction */
    RV_VEC(rv_move) moves;
    RV_VEC(uint32_t) smap;
    fa_eb eb;           /* extended blocks */
    fa_sp sp;           /* safepoints */
} fa;

/* ---- small helpers ---- */

static inline uint32_t vcls(const fa *a, uint32_t v) { return a->f->vregs.data[v].cls; }
static inline bool vref(const fa *a, uint32_t v) { return a->f->vregs.data[v].ref; }
static inline bool reg_reserved(const fa *a, uint32_t r) { return a->m->regs.data[r].reserved; }
/* r may hold values (a home): allocatable, and on a machine with
 * containment one of the non-overlapping set (rv_alloc_homes). */
static inline bool reg_home(const fa *a, uint32_t r) { return a->home_ok[r] != 0; }

static inline bool fail(fa *a, uint32_t inst, const char *msg, uint32_t v)
{
    if (!a->err) {
        if (v != RAVEL_NONE)
            a->err = rv_alloc_errorf(a->f, inst, "%s (v%u)", msg, a->f->vregs.data[v].num);
        else
            a->err = rv_alloc_errorf(a->f, inst, "%s", msg);
    }
    return false;
}

static inline uint32_t slot_of(fa *a, uint32_t v)
{
    if (a->vs[v].slot == RAVEL_NONE) {
        a->vs[v].slot = a->next_slot++;
        if (a->random) a->next_slot += rv_rng_below(&a->rng, 3);
    }
    return a->vs[v].slot;
}

static inline uint32_t new_scratch_slot(void *ctx)
{
    fa *a = ctx;
    uint32_t k = a->scratch_used < 2 ? a->scratch_used++ : 1;
    if (a->scratch_slot[k] == RAVEL_NONE) a->scratch_slot[k] = a->next_slot++;
    return a->scratch_slot[k];
}

static inline void touch(fa *a, uint32_t r, uint8_t flag)
{
    if (!(a->regs.rf[r] & RF_TOUCHED)) {
        a->regs.rf[r] = RF_TOUCHED;
        a->regs.tgt[r] = RAVEL_NONE;
        a->regs.touched[a->regs.ntouched++] = r;
    }
    a->regs.rf[r] |= flag;
}

/* Constraint kinds by position, as bits of the masks of rv_fast_inst: bit K for
 * an early operand of kind K, bit 8 + K for a late one. */
static inline uint32_t kinds_at(uint32_t kind, int late) { return 1u << (kind + (late ? 8 : 0)); }
static inline uint32_t kinds_any(uint32_t kind) { return kinds_at(kind, 0) | kinds_at(kind, 1); }
static inline uint32_t kind_bit(const rv_operand *o) { return kinds_at(o->kind & 7, rv_op_is_late(o)); }

/* True if the vreg's value is needed after instruction i. */
static inline bool live_after(const fa *a, uint32_t v, uint32_t i) { return a->vs[v].kill_at != i; }

static inline void set_content(fa *a, uint32_t r, uint32_t v)
{
    uint32_t old = a->regs.content[r];
    if (old != RAVEL_NONE && a->vs[old].home == r) a->vs[old].home = RAVEL_NONE;
    a->regs.content[r] = v;
    if (v != RAVEL_NONE) a->vs[v].home = r;
}

/* Current location of v before the instruction: its register, else its slot. */
static inline ravel_loc cur_loc(const fa *a, uint32_t v)
{
    if (a->vs[v].home != RAVEL_NONE) return a->vs[v].home;
    if ((a->vs[v].vflags & VF_SLOT_VALID) && a->vs[v].slot != RAVEL_NONE) return ravel_slot(a->vs[v].slot);
    return RAVEL_LOC_NONE;
}

static inline void add_move(fa *a, ravel_loc dst, ravel_loc src, uint32_t cls)
{
    rv_move mv = {dst, src, cls};
    rv_vec_push(a->moves, mv);
}

/* Makes v's slot valid before the instruction (a spill in the parallel move). */
static inline bool ensure_spilled(fa *a, uint32_t v, uint32_t i)
{
    if (a->vs[v].vflags & VF_SLOT_VALID) return true;
    ravel_loc l = cur_loc(a, v);
    if (l == RAVEL_LOC_NONE) return fail(a, i, "internal error: value has no location", v);
    add_move(a, ravel_slot(slot_of(a, v)), l, vcls(a, v));
    a->vs[v].vflags |= VF_SLOT_VALID;
    if (a->opts && a->opts->trace) rv_alloc_trace(a->opts, a->name, "spill v%u to s%u before inst %u", a->f->vregs.data[v].num, a->vs[v].slot, i);
    return true;
}


/* Pre-passes (fast_prepass.c), in this order. rv_fast_prepass: global
 * vregs, use flags, the per-operand live-after answers, upward-exposed
 * uses and heirs, and the .ref gen/kill sets; false only when the .ref
 * sets would be too large (a->err set). rv_fast_share_param_slots: a
 * parameter whose copies would go at its block's entry shares its
 * argument's slot. rv_fast_safepoint_refs: the refs live across each
 * safepoint (a->sp). rv_fast_ref_free: frees a->sp.refs. */
bool rv_fast_prepass(fa *a);
void rv_fast_share_param_slots(fa *a);
bool rv_fast_safepoint_refs(fa *a);
void rv_fast_ref_free(ref_ctx *c);

/* One instruction (fast_inst.c): its operands' locations, the parallel
 * move before it, its stackmap; false (a->err set) when its constraints
 * cannot be met. Requires the pre-passes and the block's entry state. */
bool rv_fast_inst(fa *a, uint32_t i);

#endif
