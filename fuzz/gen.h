/* gen.h - the generator: fuzzer bytes (or a seed) -> a machine and a valid
 * random SSA function.
 *
 * Guarantees: every byte string, including the empty one, yields a module
 * with one machine and one function that passes
 * ravel_validate(f, RAVEL_VALIDATE_SSA); generation is deterministic in its
 * input and options; memory and time are bounded by the options.
 */
#ifndef RAVEL_GEN_H
#define RAVEL_GEN_H

#include "ir/ir.h"

enum { /* rv_gen_opts.features: what the generator may use */
    RV_GEN_LOOPS = 1u << 0,
    RV_GEN_MULTIWAY = 1u << 1,     /* br with 3+ successors, condition-less br */
    RV_GEN_PARAMS = 1u << 2,       /* block parameters */
    RV_GEN_FIXED = 1u << 3,        /* fixed(R) incl. reserved registers */
    RV_GEN_REUSE = 1u << 4,
    RV_GEN_EARLY_LATE = 1u << 5,   /* early defs, late uses */
    RV_GEN_ANY_STACK = 1u << 6,    /* any / stack constraints */
    RV_GEN_CALLS = 1u << 7,        /* calls with fixed args/results and clobbers */
    RV_GEN_SAFEPOINTS = 1u << 8,   /* safepoints and .ref values */
    RV_GEN_COPY = 1u << 9,
    RV_GEN_CLASSES = 1u << 10,     /* more than one register class */
    RV_GEN_ALL = (1u << 11) - 1,
};

typedef struct rv_gen_opts {
    uint32_t max_insts;      /* upper bound on original instructions (default 200) */
    uint32_t max_blocks;     /* upper bound on blocks (default 24) */
    uint32_t min_regs, max_regs; /* allocatable registers per class (default 1..32) */
    uint32_t pressure;       /* 0..100: how many values are kept live (default 50) */
    unsigned features;       /* RV_GEN_* (default RV_GEN_ALL) */
} rv_gen_opts;

void rv_gen_opts_default(rv_gen_opts *o);
/* Generates a module (machine + one function) from bytes. Never fails. */
ravel_module *rv_gen_from_bytes(const uint8_t *data, size_t size, const rv_gen_opts *o);
/* Same, with bytes drawn from a seeded PRNG (`ravel gen --seed S`). */
ravel_module *rv_gen_from_seed(uint64_t seed, const rv_gen_opts *o);

#endif
