/* ravel_gen.h - the public generator (component ravel::gen, libravel_gen):
 * fuzzer bytes (or a seed) -> a valid random SSA function, for a random
 * machine or for YOUR machine (ravel_gen_opts.machine).
 *
 * Guarantees, for EVERY byte string (the empty one and NULL included) and
 * EVERY machine ravel_validate accepts functions of:
 *   - generation never fails and returns a module with one function;
 *   - the function passes ravel_validate(f, RAVEL_VALIDATE_SSA, ...);
 *   - it terminates under the interpreter (bounded loops, fuel on cycles);
 *   - its constraints are satisfiable with the machine's registers (an
 *     allocation exists; checked independently inside the project);
 *   - generation is deterministic in (bytes or seed, options, machine);
 *   - with machine == NULL the output is the same as before the field
 *     existed, byte for byte.
 * With opts.machine set, the module BORROWS that machine: it must outlive
 * the module; ravel_module_machine returns it; ravel_module_free leaves it.
 * All input bytes then go to the function.
 *
 * The subset of a given machine the generator uses: classes 0..k-1 (k <= 3,
 * the longest prefix of classes with an allocatable register; 1 without
 * RAVEL_GEN_CLASSES), in each the first 64 allocatable registers in
 * preference order and its first 2 reserved registers, and the machine's
 * default clobbers (any registers). If class 0 has no allocatable register
 * the function is a plain `ret` and every feature is off.
 * ravel_gen_features says what is honoured. */
#ifndef RAVEL_GEN_PUBLIC_H
#define RAVEL_GEN_PUBLIC_H

#include "ravel.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { /* ravel_gen_opts.features: what the generator may use */
    RAVEL_GEN_LOOPS = 1u << 0,
    RAVEL_GEN_MULTIWAY = 1u << 1,   /* br with 3+ successors, condition-less br */
    RAVEL_GEN_PARAMS = 1u << 2,     /* block parameters */
    RAVEL_GEN_FIXED = 1u << 3,      /* fixed(R) incl. reserved registers */
    RAVEL_GEN_REUSE = 1u << 4,
    RAVEL_GEN_EARLY_LATE = 1u << 5, /* early defs, late uses */
    RAVEL_GEN_ANY_STACK = 1u << 6,  /* any / stack constraints */
    RAVEL_GEN_CALLS = 1u << 7,      /* calls with fixed args/results and clobbers */
    RAVEL_GEN_SAFEPOINTS = 1u << 8, /* safepoints and .ref values */
    RAVEL_GEN_COPY = 1u << 9,
    RAVEL_GEN_CLASSES = 1u << 10,   /* more than one register class */
    RAVEL_GEN_ALL = (1u << 11) - 1,
    /* docs/format.md section 14: on by default (RAVEL_GEN_DEFAULT), not in
     * RAVEL_GEN_ALL (which keeps the meaning it had before they existed:
     * benchmarks pin it). fast and linear allocate on every aliased
     * machine; the other allocators decline them (RAVEL_EDECLINED) */
    RAVEL_GEN_ALIAS = 1u << 11, /* random machine: half the time x86-64-like width names in class 0
                                   (rax eax ax al ah, r8 r8d r8w r8b) and AArch64-like ones in
                                   class 1 (d0 h0 b0), contained in the allocatable registers */
    RAVEL_GEN_UNDEF = 1u << 12, /* `undef` values */
    RAVEL_GEN_REMAT = 1u << 13, /* remat candidates: constants drawn from a few keys */
    RAVEL_GEN_EXT = RAVEL_GEN_ALIAS | RAVEL_GEN_UNDEF | RAVEL_GEN_REMAT,
    RAVEL_GEN_DEFAULT = RAVEL_GEN_ALL | RAVEL_GEN_EXT, /* what ravel_gen_opts_default sets */
};

enum { RAVEL_GEN_CFG_ANY = 0, RAVEL_GEN_CFG_STRUCTURED = 1 };

typedef struct ravel_gen_opts {
    uint32_t max_insts;      /* upper bound on original instructions (default 200) */
    uint32_t max_blocks;     /* upper bound on blocks (default 24) */
    uint32_t min_regs, max_regs; /* random machine: allocatable registers per class (default 1..32) */
    uint32_t pressure;       /* 0..100: how many values are kept live (default 50) */
    unsigned features;       /* RAVEL_GEN_* (default RAVEL_GEN_DEFAULT) */
    uint32_t min_insts;      /* lower bound of the size aimed at (0 = none, the default); clamped to max_insts */
    uint32_t window;         /* 0 (default): a use drawn for pressure may pick any value in scope;
                                N: only among the N newest values of its type in scope */
    uint32_t cfg;            /* RAVEL_GEN_CFG_ANY (default) or RAVEL_GEN_CFG_STRUCTURED */
    const ravel_machine *machine; /* NULL (default): a random machine from the first bytes; else
                                     this machine, borrowed by the module (see above) */
} ravel_gen_opts;

void ravel_gen_opts_default(ravel_gen_opts *o);
/* A module (machine + one function) from bytes. Never fails. o may be NULL (defaults). */
ravel_module *ravel_gen_from_bytes(const uint8_t *data, size_t size, const ravel_gen_opts *o);
/* Same, with bytes drawn from a seeded PRNG (`ravel gen --seed S`). */
ravel_module *ravel_gen_from_seed(uint64_t seed, const ravel_gen_opts *o);
/* Feature names ("loops", "multiway", ...): the bit, or 0 if unknown;
 * ravel_gen_feature_name(i) lists them (NULL after the last). */
unsigned ravel_gen_feature_bit(const char *name);
const char *ravel_gen_feature_name(size_t i);
/* "any" / "structured" -> RAVEL_GEN_CFG_*, or -1 if unknown. */
int ravel_gen_cfg_parse(const char *name);
/* The subset of wanted the generator honours on m (m NULL: a random
 * machine, all of wanted); writes which features are off and why into why
 * (an empty string when none; why may be NULL). */
unsigned ravel_gen_features(const ravel_machine *m, unsigned wanted, char *why, size_t whylen);

#ifdef __cplusplus
}
#endif

#endif
