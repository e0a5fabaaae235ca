/* test_gen_src.c - the generator's choice source (rv_gen_src, fuzz/gen.h):
 * one byte per small choice while the input lasts, the multi-byte reads
 * equal to that many one-byte reads (also across the end of the input),
 * the PRNG continuation deterministic in its seed, every choice in range. */
#include "fuzz/gen.h"
#include "fuzz/gen_src.h"
#include "tests/test.h"

TEST(one_byte_per_choice)
{
    static const uint8_t in[] = {0, 128, 255, 64, 7};
    rv_gen_src s;
    rv_gen_src_init(&s, in, sizeof in, 1);
    CHECK_EQ_INT(rv_gen_below(&s, 2), 0);   /* 0 * 2 >> 8 */
    CHECK_EQ_INT(rv_gen_below(&s, 1), 0);   /* no choice: no byte */
    CHECK_EQ_INT(rv_gen_below(&s, 2), 1);   /* 128 */
    CHECK_EQ_INT(rv_gen_below(&s, 256), 255);
    CHECK_EQ_INT(rv_gen_below(&s, 4), 1);   /* 64 * 4 >> 8 */
    CHECK_EQ_INT(rv_gen_below(&s, 100), 2); /* 7 * 100 >> 8 */
    CHECK(s.p == s.end);                    /* exactly five bytes used */
}

/* Reads of two, four and eight bytes are big-endian runs of one-byte
 * reads, wherever the input ends (the PRNG bytes follow it). */
TEST(multi_byte_reads)
{
    static const uint8_t in[] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde};
    for (size_t n = 0; n <= sizeof in; n++)
        for (int kind = 0; kind < 3; kind++) {
            rv_gen_src a, b;
            rv_gen_src_init(&a, n ? in : NULL, n, 42);
            rv_gen_src_init(&b, n ? in : NULL, n, 42);
            for (int round = 0; round < 40; round++) { /* also across PRNG pools */
                uint64_t x = kind == 0 ? rv_gen_u16(&a) : kind == 1 ? rv_gen_u32(&a) : rv_gen_bits(&a), y = 0;
                int len = kind == 0 ? 2 : kind == 1 ? 4 : 8;
                for (int i = 0; i < len; i++) y = y << 8 | rv_gen_byte(&b);
                if (x != y) {
                    fprintf(stderr, "input %zu bytes, %d-byte read %d: %llx vs %llx\n", n, len, round,
                            (unsigned long long)x, (unsigned long long)y);
                    CHECK(0);
                    return;
                }
            }
        }
    rv_gen_src s;
    rv_gen_src_init(&s, in, sizeof in, 42);
    CHECK_EQ_INT((int)rv_gen_u16(&s), 0x1234);
    CHECK(rv_gen_u32(&s) == 0x56789abcu);
}

/* After the input: the PRNG, the same for the same seed, another for
 * another seed. */
TEST(prng_continuation)
{
    static const uint8_t in[] = {1, 2, 3};
    rv_gen_src a, b, c;
    rv_gen_src_init(&a, in, sizeof in, 7);
    rv_gen_src_init(&b, in, sizeof in, 7);
    rv_gen_src_init(&c, in, sizeof in, 8);
    int same = 1, differ = 0;
    for (int i = 0; i < 1000; i++) {
        uint32_t x = rv_gen_below(&a, 256), y = rv_gen_below(&b, 256), z = rv_gen_below(&c, 256);
        if (i < 3) CHECK_EQ_INT((int)x, in[i]);
        same &= x == y;
        differ |= i >= 3 && x != z;
    }
    CHECK(same);
    CHECK(differ);
}

/* Every choice lies in [0, n), for small and large n (two and four bytes). */
TEST(choices_in_range)
{
    static const uint32_t ns[] = {2, 3, 7, 100, 255, 256, 257, 1000, 65536, 65537, 1000000, 4000000000u};
    rv_gen_src s;
    static const uint8_t in[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    rv_gen_src_init(&s, in, sizeof in, 3);
    uint32_t hit_top = 0;
    for (int i = 0; i < 20000; i++) {
        uint32_t n = ns[i % (sizeof ns / sizeof *ns)], x = rv_gen_below(&s, n);
        if (x >= n) {
            fprintf(stderr, "below(%u) gave %u\n", n, x);
            CHECK(0);
            return;
        }
        hit_top += x == n - 1;
    }
    CHECK(hit_top > 0); /* 0xff bytes give the top choice */
}

int main(void)
{
    RUN(one_byte_per_choice);
    RUN(multi_byte_reads);
    RUN(prng_continuation);
    RUN(choices_in_range);
    return TEST_SUMMARY();
}
