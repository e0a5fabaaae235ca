/* test_stability.c - a fuzz process's executions take the same paths
 * whatever ran before them (what AFL++ measures as stability).
 *
 * The fuzz harness keeps one checker context for the whole process
 * (fuzz/fuzz_harness.h), warmed up first (rv_fuzz_warm_up with
 * RV_FUZZ_WARM_UP_FUNCS functions, as here). This program
 * is linked with the checker's sources compiled with
 * -fsanitize-coverage=trace-pc (tests/fuzz/CMakeLists.txt), so every basic
 * block of the checker calls __sanitizer_cov_trace_pc below, which marks
 * its address in a map, as an engine's edge map would. Generated inputs
 * run through one warmed-up context in order, then again in the reverse
 * order: each input should mark the same blocks both times. A path taken
 * because of what an earlier input left in the context (a flag left set,
 * a growth) differs between the two passes. A leak that every input sees
 * fails the test at once (before value numbering emptied its failed-trial
 * set after each check, 35% of an AFL++ queue differed); the warm-up's
 * growths are a bound, not a proof, so a rare input whose shape needs
 * more room than the warm-up made is tolerated (MAX_DIFFERING). */
#include "fuzz/campaign.h"
#include "ir/rng.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAP_BITS = 1 << 16, NINPUTS = 160, MAX_DIFFERING = 2 };

static uint8_t cov_map[MAP_BITS / 8];
static uintptr_t cov_pc[MAP_BITS]; /* a block that marks each bit (to name it) */

void __sanitizer_cov_trace_pc(void);
void __sanitizer_cov_trace_pc(void)
{
    uintptr_t pc = (uintptr_t)__builtin_return_address(0);
    uint32_t h = (uint32_t)(((uint64_t)pc * 0x9e3779b97f4a7c15ull) >> 48);
    cov_map[h >> 3] |= (uint8_t)(1u << (h & 7));
    cov_pc[h] = pc;
}

static unsigned popcount_map(const uint8_t *m)
{
    unsigned n = 0;
    for (size_t i = 0; i < sizeof cov_map; i++)
        for (uint8_t b = m[i]; b; b &= (uint8_t)(b - 1)) n++;
    return n;
}

/* Runs the inputs through one context of target t twice (forward, then
 * backward); returns the number of inputs whose blocks differ. */
static unsigned differing(rv_fuzz_target t, unsigned warm, uint8_t **in, const size_t *len, unsigned *blocks)
{
    rv_fuzz *z = rv_fuzz_new();
    rv_fuzz_warm_up(z, t, -1, warm);
    uint8_t(*maps)[sizeof cov_map] = calloc(NINPUTS, sizeof *maps);
    if (!maps) abort();
    *blocks = 0;
    for (unsigned i = 0; i < NINPUTS; i++) {
        memset(cov_map, 0, sizeof cov_map);
        rv_fuzz_bytes(z, t, -1, in[i], len[i]);
        memcpy(maps[i], cov_map, sizeof cov_map);
        unsigned b = popcount_map(cov_map);
        if (b > *blocks) *blocks = b;
    }
    unsigned bad = 0;
    for (unsigned i = NINPUTS; i-- > 0;) {
        memset(cov_map, 0, sizeof cov_map);
        rv_fuzz_bytes(z, t, -1, in[i], len[i]);
        if (memcmp(maps[i], cov_map, sizeof cov_map) != 0) {
            unsigned d = 0;
            uintptr_t pc = 0;
            for (uint32_t h = 0; h < MAP_BITS; h++)
                if ((maps[i][h >> 3] ^ cov_map[h >> 3]) >> (h & 7) & 1) d++, pc = cov_pc[h];
            if (bad < 5)
                fprintf(stderr, "  %s: input %u (%zu bytes): %u blocks differ, one at %p (addr2line -fie test_stability ADDR-load base)\n",
                        rv_fuzz_target_name(t), i, len[i], d, (void *)pc);
            bad++;
        }
    }
    free(maps);
    rv_fuzz_free(z);
    return bad;
}

int main(void)
{
    uint8_t *in[NINPUTS];
    size_t len[NINPUTS];
    uint64_t s = 20261127;
    for (unsigned i = 0; i < NINPUTS; i++) {
        len[i] = 16 + rv_rng_next(&s) % 1500;
        in[i] = malloc(len[i]);
        if (!in[i]) abort();
        for (size_t k = 0; k < len[i]; k++) in[i][k] = (uint8_t)rv_rng_next(&s);
    }
    int fail = 0;
    static const rv_fuzz_target targets[] = {RV_FT_ALLOC, RV_FT_ORACLE};
    for (size_t k = 0; k < sizeof targets / sizeof *targets; k++) {
        unsigned blocks = 0;
        unsigned bad = differing(targets[k], RV_FUZZ_WARM_UP_FUNCS, in, len, &blocks);
        printf("%s: %u of %u inputs take other checker blocks on their second run (at most %u allowed; up to %u blocks per input)\n",
               rv_fuzz_target_name(targets[k]), bad, NINPUTS, MAX_DIFFERING, blocks);
        /* the map must see the checker at all, or the test proves nothing */
        if (blocks < 200) {
            fprintf(stderr, "FAIL: the checker's blocks are not traced (-fsanitize-coverage=trace-pc)\n");
            fail = 1;
        }
        if (bad > MAX_DIFFERING) fail = 1;
    }
    for (unsigned i = 0; i < NINPUTS; i++) free(in[i]);
    if (fail) fprintf(stderr, "FAIL: executions of the fuzz targets depend on the executions before them\n");
    return fail;
}
