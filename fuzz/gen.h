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
 * any allocator with the machine's registers (rules S1-S7 in gen_inst.c,
 * checked independently by rv_gen_satisfiable in gen_sat.c).
 *
 * Pipeline: bytes -> two rv_gen_src (the first 16 bytes for the machine,
 * the rest for the function; each continues with a PRNG seeded from a hash
 * of its bytes when they run out; gen_src.h) -> gen_machine.c: machine
 * (written straight into its arrays) -> the function builder (gen_func.c
 * and the files gen_build.h maps: values and scopes, instructions,
 * structured control flow, tangles; written straight into the function's
 * arrays) -> gen_module.c: the ravel_module, the entry points below.
 * Options and feature names: gen_machine.c. A choice among n <= 256
 * takes one byte (the decisions about one operand are read as four bytes
 * at once), so a mutated byte changes one decision (and what follows it),
 * never the machine when it lies in the function's part.
 *
 * Seed compatibility: the order of draws defines what each input means.
 * An input (fuzzer bytes, or `--seed S` with its options) stands for the
 * sequence of decisions read from it: which draw comes next (byte, u16,
 * u32, bits, below(n) with which n, chance with which pct) and how its
 * value maps to a choice. Every corpus file (corpus/fuzz_*), every
 * crash input a fuzzer saved and every `ravel gen --seed` command in a
 * report means the function that sequence builds today. Hence:
 *   - A change that must not change behaviour (moving code between the
 *     builder's files, inlining, splitting a function, caching) keeps
 *     every draw, in the same order, with the same n and the same mapping:
 *     the output is byte-identical (tests/support/snapshot.sh; the test
 *     gen.unit, golden_output, pins hashes of generated functions).
 *   - Whether a draw happens depends only on earlier draws, the options
 *     and the machine: never on addresses, hash order, time or the build.
 *   - A new decision (a new feature) draws only where that feature is
 *     enabled and possible (on the machine and in the options), so that
 *     inputs without it keep their meaning where it cannot appear.
 *   - A draw in the function's part never changes the machine (its own
 *     first 16 bytes, its own source).
 *   - A change that does change what inputs mean is a deliberate break:
 *     its commit says so, and reproducers keep the generated `.ra` text,
 *     never only the bytes or the seed.
 */
#ifndef RAVEL_GEN_H
#define RAVEL_GEN_H

#include "ir/ir.h"

#include "ravel_gen.h"

/* The public names (include/ravel_gen.h), under their internal spelling. */
enum {
    RV_GEN_LOOPS = RAVEL_GEN_LOOPS,
    RV_GEN_MULTIWAY = RAVEL_GEN_MULTIWAY,
    RV_GEN_PARAMS = RAVEL_GEN_PARAMS,
    RV_GEN_FIXED = RAVEL_GEN_FIXED,
    RV_GEN_REUSE = RAVEL_GEN_REUSE,
    RV_GEN_EARLY_LATE = RAVEL_GEN_EARLY_LATE,
    RV_GEN_ANY_STACK = RAVEL_GEN_ANY_STACK,
    RV_GEN_CALLS = RAVEL_GEN_CALLS,
    RV_GEN_SAFEPOINTS = RAVEL_GEN_SAFEPOINTS,
    RV_GEN_COPY = RAVEL_GEN_COPY,
    RV_GEN_CLASSES = RAVEL_GEN_CLASSES,
    RV_GEN_ALL = RAVEL_GEN_ALL,
    RV_GEN_ALIAS = RAVEL_GEN_ALIAS,
    RV_GEN_UNDEF = RAVEL_GEN_UNDEF,
    RV_GEN_REMAT = RAVEL_GEN_REMAT,
    RV_GEN_EXT = RAVEL_GEN_EXT,
};
/* One type: fields and defaults documented in ravel_gen.h. */
typedef ravel_gen_opts rv_gen_opts;

enum { RV_GEN_CFG_ANY = RAVEL_GEN_CFG_ANY, RV_GEN_CFG_STRUCTURED = RAVEL_GEN_CFG_STRUCTURED };
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
 * gen_inst.c. Returns true if they hold; otherwise writes the first broken
 * rule into why. Requires a finished function. */
bool rv_gen_satisfiable(const ravel_func *f, char *why, size_t whylen);

#endif
