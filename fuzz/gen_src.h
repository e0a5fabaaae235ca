/* gen_src.h - the generator's choice source (internal to fuzz/gen*.c and
 * its tests; defined in gen_src.c, the one-byte paths inline here). */
#ifndef RAVEL_GEN_SRC_H
#define RAVEL_GEN_SRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/rng.h"

/* The source of every choice: the input bytes in order, then (when they run
 * out) a splitmix64 PRNG seeded from a hash of the whole input, so short
 * inputs still give varied programs. Both are one stream of bytes: p..end
 * is the unread part of the current run (the input, then one PRNG pool
 * after another), so that a draw is one comparison and one load. */
enum { RV_GEN_POOL = 64 };
typedef struct rv_gen_src {
    const uint8_t *p, *end;       /* unread bytes of the current run (the input, then pool) */
    uint64_t rng;                 /* the PRNG state */
    uint8_t pool[RV_GEN_POOL];    /* eight PRNG words, low byte first */
} rv_gen_src;
/* Starts a source on data[0..size) (data may be NULL when size is 0), the
 * PRNG seeded with seed. The source points into itself: do not copy it. */
void rv_gen_src_init(rv_gen_src *s, const uint8_t *data, size_t size, uint64_t seed);
void rv_gen_refill(rv_gen_src *s);                 /* p == end: the next PRNG pool */
/* The PRNG alone (splitmix64; also immediates). */
static inline uint64_t rv_gen_u64(rv_gen_src *s)
{
    return rv_rng_next(&s->rng);
}
/* The next byte of the stream. */
static inline uint32_t rv_gen_byte(rv_gen_src *s)
{
    if (s->p == s->end) rv_gen_refill(s);
    return *s->p++;
}
/* The next two bytes, big-endian (two decisions that are usually made
 * together, for the price of one stream check). */
static inline uint32_t rv_gen_u16(rv_gen_src *s)
{
    if (s->end - s->p >= 2) {
        uint32_t x = (uint32_t)s->p[0] << 8 | s->p[1];
        s->p += 2;
        return x;
    }
    uint32_t x = rv_gen_byte(s) << 8;
    return x | rv_gen_byte(s);
}
/* The next four bytes, big-endian (the decisions about one operand). */
static inline uint32_t rv_gen_u32(rv_gen_src *s)
{
    if (s->end - s->p >= 4) {
        uint32_t x = (uint32_t)s->p[0] << 24 | (uint32_t)s->p[1] << 16 | (uint32_t)s->p[2] << 8 | s->p[3];
        s->p += 4;
        return x;
    }
    uint32_t x = rv_gen_u16(s) << 16;
    return x | rv_gen_u16(s);
}
/* The next eight bytes, big-endian (64 random bits; two operands'
 * decisions, or a register set). */
static inline uint64_t rv_gen_bits(rv_gen_src *s)
{
    if (s->end - s->p >= 8) { /* the common case: no refill in between */
        const uint8_t *p = s->p;
        uint64_t x = (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48 | (uint64_t)p[2] << 40 | (uint64_t)p[3] << 32 |
                     (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 | (uint64_t)p[6] << 8 | p[7];
        s->p += 8;
        return x;
    }
    uint64_t x = (uint64_t)rv_gen_u32(s) << 32;
    return x | rv_gen_u32(s);
}
uint32_t rv_gen_below_slow(rv_gen_src *s, uint32_t n);
/* A choice in [0, n) (0, and no byte used, if n <= 1). One byte decides it
 * when n <= 256 (two when n <= 65536, four above), so that a mutated input
 * byte changes one decision. Scaled by a multiply, not a division. */
static inline uint32_t rv_gen_below(rv_gen_src *s, uint32_t n)
{
    if (n <= 1) return 0;
    if (n <= 256) return (rv_gen_byte(s) * n) >> 8;
    return rv_gen_below_slow(s, n);
}
/* True with probability pct/100. */
static inline bool rv_gen_chance(rv_gen_src *s, uint32_t pct) { return rv_gen_below(s, 100) < pct; }

#endif
