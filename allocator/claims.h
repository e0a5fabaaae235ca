/* claims.h - the fixed-register claims of one instruction, defined once for
 * the allocators that place operands instruction by instruction (fast's
 * engine, assign's back end, random's shapes mode).
 *
 * Requires: alloc.h; an SSA function's instruction with its operands. The
 * caller keeps, per register, flags for the current instruction whose low
 * bits are the RV_CLAIM_* bits below (its own bits above them), the vreg
 * a fixed use claimed the register for, and the list of registers it
 * flagged this instruction (its "touched" list, in first-touch order).
 * Guarantees: the claims are made in one order (clobbers; fixed uses in
 * operand order; defs that are fixed or reuse a fixed use), each through
 * the caller's callbacks, and the first violated rule is returned
 * (rv_claim_error), so every allocator accepts and refuses the same
 * instructions for the same reason. Inline, with the callbacks constant at
 * each call site: the compiler calls them directly. */
#ifndef RAVEL_ALLOC_CLAIMS_H
#define RAVEL_ALLOC_CLAIMS_H

#include "alloc.h"

enum { /* per-register claim bits, the low bits of each allocator's flags */
    RV_CLAIM_USE_E = 1, /* an early fixed use reads the register */
    RV_CLAIM_USE_L = 2, /* a late fixed use reads it */
    RV_CLAIM_DEF_E = 4, /* an early def writes it (fixed, or reusing a fixed use) */
    RV_CLAIM_DEF_L = 8, /* a late def writes it */
    RV_CLAIM_CLOB = 16, /* the instruction clobbers it */
};
#define RV_CLAIM_USE (RV_CLAIM_USE_E | RV_CLAIM_USE_L)
#define RV_CLAIM_DEF (RV_CLAIM_DEF_E | RV_CLAIM_DEF_L)

typedef enum rv_claim_error {
    RV_CLAIM_OK,
    RV_CLAIM_REF_LATE,     /* a late fixed use of a .ref at a moving safepoint */
    RV_CLAIM_TWO_VALUES,   /* two different values fixed to one register */
    RV_CLAIM_TWO_DEFS,     /* two defs need one register */
    RV_CLAIM_EARLY_DEF_USE, /* an early def and a use fixed to one register */
    RV_CLAIM_LATE_USE_WRITTEN, /* a late use fixed to a register the instruction writes or clobbers */
} rv_claim_error;

/* The caller's side of the claims (ctx is its context). */
typedef struct rv_claim_ops {
    void (*clobber)(void *ctx, uint32_t r);          /* flag r RV_CLAIM_CLOB */
    void (*use)(void *ctx, uint32_t u, uint32_t r);  /* fixed use u (index into ops) reads r: flag, target, location */
    void (*def)(void *ctx, uint32_t d, uint32_t r);  /* def d writes r: flag (RV_CLAIM_DEF_E/L), location */
    uint8_t (*flags)(const void *ctx, uint32_t r);   /* r's flags this instruction, 0 if not flagged yet */
    uint32_t (*target)(const void *ctx, uint32_t r); /* the vreg a fixed use claimed r for (with RV_CLAIM_USE) */
    const uint32_t *(*touched)(const void *ctx, uint32_t *n); /* the registers flagged this instruction */
} rv_claim_ops;

/* The register def d of in is fixed to: its own (fixed), or that of the
 * fixed use it reuses; RAVEL_NONE otherwise. */
static inline uint32_t rv_fixed_def_reg(const rv_inst *in, const rv_operand *ops, uint32_t d)
{
    const rv_operand *o = &ops[d];
    if (o->kind == RAVEL_C_FIXED) return o->arg;
    if (o->kind == RAVEL_C_REUSE && o->arg < in->nuses && ops[in->ndefs + o->arg].kind == RAVEL_C_FIXED)
        return ops[in->ndefs + o->arg].arg;
    return RAVEL_NONE;
}

/* The rule a register's claims break (flags: its RV_CLAIM_* bits). */
static inline rv_claim_error rv_claim_conflict(uint8_t fl)
{
    if ((fl & RV_CLAIM_DEF_E) && (fl & RV_CLAIM_USE)) return RV_CLAIM_EARLY_DEF_USE;
    if ((fl & RV_CLAIM_USE_L) && (fl & (RV_CLAIM_DEF | RV_CLAIM_CLOB))) return RV_CLAIM_LATE_USE_WRITTEN;
    return RV_CLAIM_OK;
}

/* Makes the claims of instruction in (ops: its operands; sp_moving: it is
 * a safepoint of a moving collector). uses/defs false skip the fixed uses
 * / the defs (the caller knows there is none). *bad: the vreg of the
 * operand that broke a rule, RAVEL_NONE for a register's conflict. */
static inline rv_claim_error rv_claim_fixed(const ravel_func *f, const rv_inst *in, const rv_operand *ops, bool sp_moving,
                                            bool uses, bool defs, const rv_claim_ops *k, void *ctx, uint32_t *bad)
{
    const uint32_t *clob;
    uint32_t nclob = rv_inst_clobbers(f, in, &clob);
    *bad = RAVEL_NONE;
    for (uint32_t c = 0; c < nclob; c++) k->clobber(ctx, clob[c]);
    for (uint32_t u = in->ndefs; uses && u < (uint32_t)in->ndefs + in->nuses; u++) {
        const rv_operand *o = &ops[u];
        if (o->kind != RAVEL_C_FIXED) continue;
        *bad = o->vreg;
        if (rv_op_is_late(o) && sp_moving && f->vregs.data[o->vreg].ref) return RV_CLAIM_REF_LATE;
        if ((k->flags(ctx, o->arg) & RV_CLAIM_USE) && k->target(ctx, o->arg) != o->vreg) return RV_CLAIM_TWO_VALUES;
        k->use(ctx, u, o->arg);
    }
    for (uint32_t d = 0; defs && d < in->ndefs; d++) {
        uint32_t r = rv_fixed_def_reg(in, ops, d);
        if (r == RAVEL_NONE) continue;
        *bad = ops[d].vreg;
        if (k->flags(ctx, r) & RV_CLAIM_DEF) return RV_CLAIM_TWO_DEFS;
        k->def(ctx, d, r);
    }
    *bad = RAVEL_NONE;
    uint32_t n;
    const uint32_t *t = k->touched(ctx, &n);
    for (uint32_t x = 0; x < n; x++) {
        rv_claim_error e = rv_claim_conflict(k->flags(ctx, t[x]));
        if (e != RV_CLAIM_OK) return e;
    }
    return RV_CLAIM_OK;
}

/* The error text of fast and assign (with "unsatisfiable: "). */
static inline const char *rv_claim_error_text(rv_claim_error e)
{
    switch (e) {
    case RV_CLAIM_REF_LATE: return "unsatisfiable: a .ref value is read from a register after a moving safepoint";
    case RV_CLAIM_TWO_VALUES: return "unsatisfiable: two different values are fixed to the same register";
    case RV_CLAIM_TWO_DEFS: return "unsatisfiable: two defs need the same register";
    case RV_CLAIM_EARLY_DEF_USE: return "unsatisfiable: an early def and a use are fixed to the same register";
    case RV_CLAIM_LATE_USE_WRITTEN: return "unsatisfiable: a late use is fixed to a register the instruction writes or clobbers";
    default: return "ok";
    }
}

#endif
