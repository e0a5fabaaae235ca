/* test_gen_valid.c - the byte fuzz targets no longer validate each
 * generated function (fuzz/fuzzlib.c: gen_input, rv_fuzz.validate_gen off
 * by default): this test does it instead, on every function of a large
 * sample of inputs, under the options those targets generate with
 * (rv_fuzz_new's z->gen, the defaults), under the old meaning of the bytes
 * (RV_GEN_ALL: bench_fuzz's figures) and at bench_fuzz's ~250-instruction
 * configuration. Inputs: random byte strings of every length from empty to
 * a few hundred bytes (short ones run on the generator's PRNG), and
 * structured ones (runs of one byte). Also: the opt-in validation still
 * runs and passes through the byte entry point. Requires: nothing.
 * Guarantees: exit 0 iff every generated function passes
 * ravel_validate(RAVEL_VALIDATE_SSA). */
#include "fuzz/campaign.h"
#include "ir/rng.h"
#include "tests/test.h"

#include <string.h>

#define NSAMPLE 3000u

/* One input: its function exists and validates; prints the bytes if not. */
static bool valid_input(const uint8_t *data, size_t size, const rv_gen_opts *o, const char *what)
{
    ravel_module *mod = rv_gen_from_bytes(data, size, o);
    bool ok = mod && ravel_module_nfuncs(mod) == 1;
    ravel_diags *d = ravel_diags_new();
    if (ok && ravel_validate(ravel_module_func(mod, 0), RAVEL_VALIDATE_SSA, d) != RAVEL_OK) ok = false;
    if (!ok) {
        fprintf(stderr, "%s: input of %zu bytes does not make a valid function:", what, size);
        for (size_t i = 0; i < size; i++) fprintf(stderr, " %02x", data[i]);
        fprintf(stderr, "\n");
        ravel_diags_print(stderr, d);
    }
    ravel_diags_free(d);
    ravel_module_free(mod);
    return ok;
}

/* NSAMPLE inputs under options o (seed s): true if every one validates. */
static bool sample(const rv_gen_opts *o, uint64_t s, const char *what)
{
    uint8_t buf[512];
    for (uint32_t k = 0; k < NSAMPLE; k++) {
        size_t n = (size_t)(rv_rng_next(&s) % (k % 4 ? sizeof buf : 24u));
        if (k % 16 == 15) memset(buf, (int)(rv_rng_next(&s) & 0xff), n); /* a run of one byte */
        else
            for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)rv_rng_next(&s);
        if (!valid_input(buf, n, o, what)) return false;
    }
    return true;
}

TEST(default_options)
{
    rv_fuzz *z = rv_fuzz_new(); /* the byte targets' options */
    CHECK(!z->validate_gen);
    CHECK(sample(&z->gen, 1, "z->gen"));
    rv_fuzz_free(z);
}

TEST(old_meaning_of_the_bytes)
{
    rv_gen_opts o;
    rv_gen_opts_default(&o);
    o.features = RV_GEN_ALL;
    CHECK(sample(&o, 2, "RV_GEN_ALL"));
}

TEST(bench_fuzz_250)
{
    rv_gen_opts o;
    rv_gen_opts_default(&o);
    o.max_insts = 361; /* bench_fuzz --config 250: ~250 instructions on average */
    CHECK(sample(&o, 3, "max_insts 361"));
    o.features = RV_GEN_ALL;
    CHECK(sample(&o, 4, "max_insts 361, RV_GEN_ALL"));
}

/* The opt-in validation through the byte entry point: valid functions
 * pass with it on as with it off. */
TEST(validate_gen_opt_in)
{
    rv_fuzz *z = rv_fuzz_new();
    uint64_t s = 5;
    uint8_t buf[64];
    for (int on = 0; on < 2; on++) {
        z->validate_gen = on != 0;
        for (uint32_t k = 0; k < 20; k++) {
            for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)rv_rng_next(&s);
            int r = rv_fuzz_bytes_alloc(z, RV_FT_ALLOC, &rv_allocators[0], buf, sizeof buf);
            CHECK(r == RV_FUZZ_PASS || r == RV_FUZZ_SKIP);
        }
    }
    rv_fuzz_free(z);
}

int main(void)
{
    RUN(default_options);
    RUN(old_meaning_of_the_bytes);
    RUN(bench_fuzz_250);
    RUN(validate_gen_opt_in);
    return TEST_SUMMARY();
}
