/* gen.h - the generator: fuzzer bytes (or a seed) -> a machine and a valid
 * random SSA function.
 *
 * Guarantees: every byte string, including the empty one, yields a module
 * with one machine and one function that passes
 * ravel_validate(f, RAVEL_VALIDATE_SSA); generation is deterministic in its
 * input and options; memory and time are bounded by the options (linear in
 * max_insts). Every generated function terminates under the interpreter
 * (loops have bounded trip counts, the cycles of arbitrary control flow a
 * fuel counter) and its constraints are satisfiable by
 * any allocator with the machine's registers (rules in gen_func.c, checked
 * independently by rv_gen_satisfiable in gen_sat.c).
 *
 * Pipeline: bytes -> two rv_gen_src (the first 16 bytes for the machine,
 * the rest for the function; each continues with a PRNG seeded from a hash
 * of its bytes when they run out; gen_src.h) -> gen_machine.c: machine
 * (written straight into its arrays) -> gen_func.c: CFG, values,
 * instructions (written straight into the function's arrays) ->
 * gen_module.c: the ravel_module, the entry points below. Options and
 * feature names: gen_machine.c. A choice among n <= 256
 * takes one byte (the decisions about one operand are read as four bytes
 * at once), so a mutated byte changes one decision (and what follows it),
 * never the machine when it lies in the function's part.
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
    uint32_t min_insts;      /* lower bound of the size aimed at (0 = none, the default; benchmarks
                                set it to get functions of a given size); clamped to max_insts */
    uint32_t window;         /* 0 (the default): a use drawn for pressure may pick any value in
                                scope, so in a large function thousands of values are live at
                                once; N: only among the N newest values of its type in scope, so
                                live values stay in the tens to hundreds whatever the size (the
                                checker benchmark's "realistic pressure"). Functions whose scopes
                                never exceed N values are the same either way */
    uint32_t cfg;            /* RV_GEN_CFG_ANY (0, the default): structured code with arbitrary
                                control flow mixed in (gen_func.c, "tangles": multi-entry cycles,
                                split critical edges, self-loops, wide br); RV_GEN_CFG_STRUCTURED:
                                only structured code (diamonds, natural loops), as before
                                2026-11-27 (same output for the same seed) */
    const ravel_machine *machine; /* NULL (the default): a machine drawn from the first bytes;
                                     else the function is for this machine (all input bytes go
                                     to the function, the module BORROWS the machine: it must
                                     outlive the module). Subset used: rv_gen_view_features */
} rv_gen_opts;

enum { RV_GEN_CFG_ANY = 0, RV_GEN_CFG_STRUCTURED = 1 };
/* "any" / "structured" -> RV_GEN_CFG_*, or -1 if unknown (`--cfg`). */
int rv_gen_cfg_parse(const char *name);

void rv_gen_opts_default(rv_gen_opts *o);
/* Generates a module (machine + one function) from bytes. Never fails. */
ravel_module *rv_gen_from_bytes(const uint8_t *data, size_t size, const rv_gen_opts *o);
/* Same, with bytes drawn from a seeded PRNG (`ravel gen --seed S`). */
ravel_module *rv_gen_from_seed(uint64_t seed, const rv_gen_opts *o);

/* The features the generator honours on machine m among wanted (RV_GEN_*);
 * writes which are off and why into why (empty if none). The view of m it
 * uses: its classes 0..k-1 (k <= 3, the longest prefix of classes that have
 * an allocatable register), in each the first 64 allocatable registers in
 * preference order and its first 2 reserved registers, and m's default
 * clobbers. k == 0 (class 0 has no allocatable register): every feature is
 * off and the function is a plain `ret`. */
unsigned rv_gen_view_features(const ravel_machine *m, unsigned wanted, char *why, size_t whylen);

/* Feature names for `ravel gen --no-FEATURE` ("loops", "multiway", ...):
 * returns the RV_GEN_* bit, or 0 if unknown. rv_gen_feature_name(i) lists
 * them (NULL after the last). */
unsigned rv_gen_feature_bit(const char *name);
const char *rv_gen_feature_name(size_t i);

/* Independent check of the generator's promise that an allocation exists
 * (gen_sat.c): for every instruction, the satisfiability rules documented in
 * gen_func.c. Returns true if they hold; otherwise writes the first broken
 * rule into why. Requires a finished function. */
bool rv_gen_satisfiable(const ravel_func *f, char *why, size_t whylen);

#endif
