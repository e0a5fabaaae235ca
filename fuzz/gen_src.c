/* gen_src.c - the generator's choice source: the fuzzer's bytes first,
 * then a splitmix64 stream seeded from them (rv_gen_src, fuzz/gen_src.h; the
 * one-byte fast paths are inline there).
 *
 * Requires: nothing of its input. Guarantees: the same choices for the
 * same (bytes, seed) on every platform (multi-byte values are assembled
 * byte by byte or stored little-endian explicitly). Used by gen.c (the
 * machine) and gen_func.c (the function); it calls neither. */
#include "fuzz/gen_src.h"

#include <string.h>

void rv_gen_src_init(rv_gen_src *s, const uint8_t *data, size_t size, uint64_t seed)
{
    s->p = size ? data : s->pool;
    s->end = size ? data + size : s->pool;
    s->rng = seed;
}

void rv_gen_refill(rv_gen_src *s)
{
    for (uint32_t w = 0; w < RV_GEN_POOL / 8; w++) {
        uint64_t x = rv_gen_u64(s);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(s->pool + w * 8, &x, 8); /* low byte first: one store */
#else
        for (uint32_t i = 0; i < 8; i++) s->pool[w * 8 + i] = (uint8_t)(x >> (8 * i));
#endif
    }
    s->p = s->pool;
    s->end = s->pool + RV_GEN_POOL;
}

/* rv_gen_below for n > 256: two or four bytes, big-endian, scaled. */
uint32_t rv_gen_below_slow(rv_gen_src *s, uint32_t n)
{
    if (n <= 65536) {
        uint32_t x = rv_gen_byte(s) << 8;
        x |= rv_gen_byte(s);
        return (x * n) >> 16;
    }
    uint64_t x = 0;
    for (int i = 0; i < 4; i++) x = x << 8 | rv_gen_byte(s);
    return (uint32_t)((x * n) >> 32);
}
