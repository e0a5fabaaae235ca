/* gen_speed.c - the generator's cost per function and per instruction (CPU
 * time, so that a loaded machine disturbs it less; for exact figures run it
 * under `valgrind --tool=callgrind` and divide by the instructions made).
 *
 *   gen_speed [--insts N] [--blocks B] [--count K] [--bytes] [--all] [--seed S] [--check-linear]
 *
 * Generates K functions with max_insts N (default: the generator's default
 * options, 2000 functions) from seeds, or with --bytes from random inputs of
 * 16..4096 bytes (the fuzz_alloc path, rv_gen_from_bytes); --all: the
 * features bench_fuzz uses (RV_GEN_ALL; `--insts 361 --bytes --all` is its
 * ~250-instruction configuration, in CPU time and under valgrind's
 * callgrind or dhat). Prints the mean
 * instructions per function and ns per function / per instruction.
 * --check-linear: the ctest mode; times functions of ~1e3 and ~1e5
 * instructions and fails if the cost per instruction of the big ones exceeds
 * 4x that of the small ones (generation must stay linear in max_insts). */
#define _POSIX_C_SOURCE 199309L
#include "fuzz/gen.h"
#include "fuzz/gen_src.h"
#include "ir/rng.h"

#include "bench/bench_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct run {
    uint64_t funcs, insts;
    double secs;
} run;

/* Generates count functions; inputs are drawn before the clock starts. */
static run measure(const rv_gen_opts *o, uint64_t count, uint64_t seed, bool bytes)
{
    enum { CAP = 4096 };
    uint8_t *buf = malloc(CAP);
    run r = {0, 0, 0};
    uint64_t s = seed;
    for (uint64_t k = 0; k < count; k++) {
        size_t n = 0;
        if (bytes) {
            n = 16 + rv_rng_next(&s) % (CAP - 16);
            for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)rv_rng_next(&s);
        }
        double t0 = bench_cpu_sec();
        ravel_module *m = bytes ? rv_gen_from_bytes(buf, n, o) : rv_gen_from_seed(seed + k, o);
        r.insts += ravel_module_func(m, 0)->insts.len;
        ravel_module_free(m);
        r.secs += bench_cpu_sec() - t0;
        r.funcs++;
    }
    free(buf);
    return r;
}

static void print_run(const char *what, const run *r)
{
    printf("%-28s %8llu funcs %10.1f insts/func %10.2f us/func %8.1f ns/inst\n", what, (unsigned long long)r->funcs,
           (double)r->insts / (double)r->funcs, r->secs * 1e6 / (double)r->funcs, r->secs * 1e9 / (double)r->insts);
}

/* ns per instruction at ~1e3 and ~1e5 instructions; fails when the big
 * functions cost more than 4x per instruction (a quadratic step would show
 * up as 100x). */
static int check_linear(void)
{
    rv_gen_opts o;
    rv_gen_opts_default(&o);
    o.max_insts = 1000;
    o.max_blocks = 100;
    run small = measure(&o, 200, 1, false);
    o.max_insts = 100000;
    o.max_blocks = 10000;
    run big = measure(&o, 3, 1, false);
    print_run("~1e3 insts", &small);
    print_run("~1e5 insts", &big);
    double a = small.secs / (double)small.insts, b = big.secs / (double)big.insts;
    if (b > 4 * a) {
        printf("FAIL: not linear (%.1f vs %.1f ns/inst)\n", b * 1e9, a * 1e9);
        return 1;
    }
    printf("ok: linear\n");
    return 0;
}

int main(int argc, char **argv)
{
    rv_gen_opts o;
    rv_gen_opts_default(&o);
    uint64_t count = 2000, seed = 1;
    bool bytes = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--insts") && i + 1 < argc) {
            o.max_insts = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--blocks") && i + 1 < argc) {
            o.max_blocks = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--count") && i + 1 < argc) {
            count = strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--bytes")) {
            bytes = true;
        } else if (!strcmp(argv[i], "--all")) {
            o.features = RV_GEN_ALL;
        } else if (!strcmp(argv[i], "--check-linear")) {
            return check_linear();
        } else {
            fprintf(stderr, "usage: gen_speed [--insts N] [--blocks B] [--count K] [--bytes] [--all] [--seed S] [--check-linear]\n");
            return 2;
        }
    }
    char what[64];
    snprintf(what, sizeof what, "max_insts %u%s", o.max_insts, bytes ? " (bytes)" : " (seeds)");
    run r = measure(&o, count, seed, bytes);
    print_run(what, &r);
    return 0;
}
