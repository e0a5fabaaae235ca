/* test_gen_slab.c - where the generator keeps its value lists does not
 * change what it generates: rv_gen_func (the lists of a small function on
 * its stack, moved to the heap when they outgrow it) against
 * rv_gen_func_slab(..., false) (on the heap from the start, the reference),
 * on the same choice streams, must print the same module. Sizes span the
 * stack slab's limit (GEN_VALS_STACK: lists of up to 256 values each, a
 * target up to ~510 instructions) on both sides, from seeds and from random
 * bytes, at the default features and at RV_GEN_ALL (bench_fuzz's). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "allocator/alloc.h" /* rv_rng_next (header only) */
#include "fuzz/gen.h"
#include "fuzz/gen_func.h"
#include "fuzz/gen_src.h"
#include "tests/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The module of one generation, printed: the machine from the first 16 of
 * data's len bytes (none: the PRNG from seed ms), the function from the
 * rest (then seed fs), the value lists on the stack (stack_vals) or the
 * heap. (A source points into itself: each generation starts its own.) */
typedef struct input { const uint8_t *data; size_t len; uint64_t ms, fs; } input;

static char *generate(const input *x, const rv_gen_opts *in, bool stack_vals)
{
    rv_gen_src ms, fs;
    rv_gen_src_init(&ms, x->len ? x->data : NULL, x->len ? 16 : 0, x->ms);
    rv_gen_src_init(&fs, x->len ? x->data + 16 : NULL, x->len ? x->len - 16 : 0, x->fs);
    rv_gen_opts o = rv_gen_clamp_opts(in);
    rv_gen_mach gm;
    ravel_module *mod = rv_xcalloc(1, sizeof *mod);
    mod->mach = rv_gen_machine(&ms, &o, &gm);
    rv_vec_push(mod->funcs, rv_gen_func_slab(&fs, &o, &gm, stack_vals));
    char *buf = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&buf, &n);
    rv_print_module(mem, mod);
    fclose(mem);
    ravel_module_free(mod);
    return buf;
}

TEST(stack_and_heap_lists_agree)
{
    static const uint32_t sizes[] = {1, 12, 60, 200, 361, 480, 505, 508, 509, 510, 511, 512, 515, 520, 600, 1000, 2500};
    enum { CAP = 2048 };
    uint8_t *buf = malloc(CAP);
    uint64_t r = 32, cases = 0, differ = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (unsigned k = 0; k < 48; k++) {
            rv_gen_opts o;
            rv_gen_opts_default(&o);
            o.max_insts = sizes[i];
            o.min_insts = sizes[i] / 2; /* targets near the size: both sides of the limit */
            o.max_blocks = sizes[i] / 10 + 4;
            if (k & 1) o.features = RV_GEN_ALL;
            if (k & 2) o.cfg = RV_GEN_CFG_STRUCTURED;
            input x = {buf, 0, rv_rng_next(&r), rv_rng_next(&r)};
            if (k & 4) { /* random bytes: the fuzz targets' path */
                x.len = 16 + rv_rng_next(&r) % (CAP - 16);
                for (size_t j = 0; j < x.len; j++) buf[j] = (uint8_t)rv_rng_next(&r);
            }
            char *a = generate(&x, &o, true), *b = generate(&x, &o, false);
            cases++;
            if (!a || !b || strcmp(a, b) != 0) {
                if (differ++ < 3) printf("differ: max_insts %u, case %u\n", sizes[i], k);
            }
            free(a);
            free(b);
        }
    free(buf);
    printf("%llu generations both ways, %llu differ\n", (unsigned long long)cases, (unsigned long long)differ);
    CHECK(differ == 0);
}

int main(void)
{
    RUN(stack_and_heap_lists_agree);
    return TEST_SUMMARY();
}
