/* random.c - the `random` allocator: a random legal allocation from the
 * seed, to stress checkers.
 *
 * Requires: f unallocated, valid SSA, finished. Guarantees: the alloc.h
 * contract; deterministic from the seed.
 *
 * Its mode is the engine of `fast` making random legal choices
 * (rv_fast_run, see fast.c): random registers, `any` operands sent to the
 * stack, rescues spilled, random slot numbers, gratuitous moves, spills,
 * drops and round trips through reserved registers. */
#include "alloc.h"

ravel_func *rv_alloc_random(const ravel_func *f, const rv_alloc_opts *o, char **err) { return rv_fast_run(f, o, err, true); }
