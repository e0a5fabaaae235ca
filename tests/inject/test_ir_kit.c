/* test_ir_kit.c - the small shared pieces of the IR kit that every user
 * trusts without checking:
 *   - the PRNG (ir/rng.h): the stream of a state is splitmix64's, pinned
 *     (seeds name generated functions and corpus inputs: the sequence is
 *     fixed for ever); rv_rng_below(n) stays below n and, for bounds that
 *     are not powers of two too, draws every value about equally often
 *     (an allocator's or injection's random choice that could never pick
 *     some candidate would still give valid results, so no other test can
 *     see it);
 *   - the sparse set (ir/ir.h: rv_sset) against a plain membership array
 *     under random additions, removals and clears: membership, the return
 *     values, the count, and the dense list holding exactly the members;
 *   - dominance (ir/cfg.c, the one dominator computation) on random
 *     graphs, most of them irreducible, against its definition: a
 *     dominates b when b cannot be reached from the entry without a. */
#include "ir/ir.h"
#include "ir/rng.h"
#include "tests/test.h"

#include <stdio.h>
#include <string.h>

TEST(rng_stream_is_splitmix64)
{
    uint64_t s = 0;
    CHECK(rv_rng_next(&s) == 0xe220a8397b1dcdafull);
    CHECK(rv_rng_next(&s) == 0x6e789e6aa1b965f4ull);
    CHECK(rv_rng_next(&s) == 0x06c45d188009454full);
    CHECK(s == 3 * RV_RNG_GAMMA);
}

TEST(rng_below_covers_its_range_evenly)
{
    static const uint32_t bounds[] = {1, 2, 3, 5, 6, 7, 10, 12, 100, 1000};
    uint64_t s = 29;
    uint32_t count[1000];
    for (size_t b = 0; b < sizeof bounds / sizeof *bounds; b++) {
        uint32_t n = bounds[b], draws = 200 * n, lo = draws, hi = 0, above = 0;
        memset(count, 0, sizeof count);
        for (uint32_t k = 0; k < draws; k++) {
            uint32_t x = rv_rng_below(&s, n);
            if (x >= n) above++;
            else count[x]++;
        }
        for (uint32_t x = 0; x < n; x++) {
            lo = count[x] < lo ? count[x] : lo;
            hi = count[x] > hi ? count[x] : hi;
        }
        if (above || lo < 120 || hi > 280) printf("bound %u: %u draws out of range, each value drawn %u to %u times (200 expected)\n", n, above, lo, hi);
        CHECK_EQ_INT(above, 0);
        CHECK(lo >= 120 && hi <= 280); /* (200 expected each; 6 standard deviations is ~85) */
    }
    uint64_t big = 0; /* a large bound: the mean is near the middle */
    for (int k = 0; k < 100000; k++) big += rv_rng_below(&s, 3000000001u);
    CHECK(big / 100000 > 1400000000ull && big / 100000 < 1600000000ull);
}

enum { UNIVERSE = 97 };

TEST(sparse_set_against_a_membership_array)
{
    uint32_t dense[UNIVERSE], pos[UNIVERSE];
    memset(pos, 0xa5, sizeof pos); /* (pos[] need not be cleared) */
    rv_sset set = {dense, pos, 0};
    bool in[UNIVERSE] = {false};
    uint64_t s = 7;
    uint32_t n = 0, bad = 0, dels = 0;
    for (int step = 0; step < 200000; step++) {
        uint32_t x = rv_rng_below(&s, UNIVERSE), op = rv_rng_below(&s, 100);
        if (op < 55) {
            bad += rv_sset_add(&set, x) != !in[x];
            n += !in[x];
            in[x] = true;
        } else if (op < 99) {
            bad += rv_sset_del(&set, x) != in[x];
            dels += in[x];
            n -= in[x];
            in[x] = false;
        } else {
            set.n = 0;
            memset(in, 0, sizeof in);
            n = 0;
        }
        bad += set.n != n;
        for (uint32_t y = 0; y < UNIVERSE; y++) bad += rv_sset_has(&set, y) != in[y];
        for (uint32_t k = 0; k < set.n; k++) bad += dense[k] >= UNIVERSE || !in[dense[k]];
        if (bad) {
            printf("step %d: the sparse set disagrees with the membership array\n", step);
            break;
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(dels > 10000);
}

enum { MAXB = 12 };

/* Reachable from block 0 with block `avoid` removed (RAVEL_NONE: none). */
static void reach(uint32_t n, const uint32_t *start, const uint32_t *succ, uint32_t avoid, bool *seen)
{
    uint32_t stack[MAXB * 4], sp = 0;
    memset(seen, 0, sizeof(bool) * n);
    if (avoid == 0) return;
    seen[0] = true;
    stack[sp++] = 0;
    while (sp) {
        uint32_t b = stack[--sp];
        for (uint32_t e = start[b]; e < start[b + 1]; e++)
            if (succ[e] != avoid && !seen[succ[e]]) seen[succ[e]] = true, stack[sp++] = succ[e];
    }
}

TEST(dominance_on_random_graphs)
{
    uint64_t s = 2901;
    uint32_t graphs = 0, irreducible = 0, pairs = 0, bad = 0;
    for (int t = 0; t < 6000 && !bad; t++) {
        uint32_t n = 2 + rv_rng_below(&s, MAXB - 1), start[MAXB + 1], succ[MAXB * 3], m = 0;
        for (uint32_t b = 0; b < n; b++) {
            start[b] = m;
            for (uint32_t k = rv_rng_below(&s, 4); k > 0; k--) succ[m++] = rv_rng_below(&s, n);
        }
        start[n] = m;
        rv_cfg c;
        memset(&c, 0, sizeof c);
        rv_cfg_build_succs(&c, n, start, succ);
        bool all[MAXB], without[MAXB];
        reach(n, start, succ, RAVEL_NONE, all);
        for (uint32_t a = 0; a < n; a++) {
            reach(n, start, succ, a, without);
            for (uint32_t b = 0; b < n; b++) {
                bool dom = all[a] && all[b] && (a == b || !without[b]);
                pairs += dom;
                if (rv_cfg_dominates(&c, a, b) != dom && bad++ < 5) printf("graph %d: %u dominates %u: %d, expected %d\n", t, a, b, !dom, dom);
            }
        }
        graphs++;
        irreducible += !c.reducible;
        rv_cfg_free(&c);
    }
    printf("%u graphs (%u irreducible), %u dominance pairs\n", graphs, irreducible, pairs);
    CHECK_EQ_INT(bad, 0);
    CHECK(irreducible >= 400);
}

int main(void)
{
    RUN(rng_stream_is_splitmix64);
    RUN(rng_below_covers_its_range_evenly);
    RUN(sparse_set_against_a_membership_array);
    RUN(dominance_on_random_graphs);
    return TEST_SUMMARY();
}
