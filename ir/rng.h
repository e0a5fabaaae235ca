/*
 * rng.h - the one pseudo-random generator of ravel (splitmix64), for the
 * library, the tests and the benchmarks alike. Self-contained (stdint
 * only): a test or a benchmark includes it without the IR.
 *
 * Guarantees: the sequence drawn from a state is fixed for ever (seeds
 * name generated functions, injections and corpus inputs: changing a
 * constant here changes what every seed means). rv_mix64 is splitmix64's
 * finalizer, also a good 64-bit hash (rv_hash64).
 */
#ifndef RAVEL_RNG_H
#define RAVEL_RNG_H

#include <stdint.h>

#define RV_RNG_GAMMA 0x9e3779b97f4a7c15ull /* splitmix64's increment (2^64 / golden ratio) */

/* splitmix64's finalizer: a bijective 64-bit mix. */
static inline uint64_t rv_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
/* The next word of the stream whose state is *state (any value is a seed). */
static inline uint64_t rv_rng_next(uint64_t *state) { return rv_mix64(*state += RV_RNG_GAMMA); }
/* Uniform in [0, n) by the remainder (n > 0). */
static inline uint32_t rv_rng_below(uint64_t *state, uint32_t n) { return (uint32_t)(rv_rng_next(state) % n); }

#endif
