/* gen_module.c - the generator's entry points (fuzz/gen.h): the input's
 * first bytes draw the machine (gen_machine.c), the rest the function
 * (gen_func.c), each from its own choice source (gen_src.c).
 * Requires: nothing of its input; every byte string is accepted.
 * Guarantees: see fuzz/gen.h. */
#include "fuzz/gen_func.h"

#include <stdlib.h>
#include <string.h>

/* The machine and the function draw from separate sources, so that a
 * mutation of the function's bytes keeps the machine and the other way
 * round: the machine reads the first RV_GEN_MACHINE_BYTES bytes, the
 * function the rest; each continues with its own PRNG stream when its
 * bytes run out (the machine's seeded from a hash of its bytes only, the
 * function's from a hash of the whole input). */
#define RV_GEN_MACHINE_BYTES 16

/* The function for a machine whose view has no class: `ret`. */
static ravel_func *plain_ret(const ravel_machine *m)
{
    ravel_func *f = ravel_func_new(m, "f");
    ravel_block_begin(f, ravel_block_new(f, "b0"));
    ravel_inst_begin(f, RAVEL_OP_RET, NULL);
    ravel_inst_end(f);
    ravel_func_finish(f);
    return f;
}

static ravel_module *gen_module(rv_gen_src *ms, rv_gen_src *fs, const rv_gen_opts *in)
{
    rv_gen_opts o = rv_gen_clamp_opts(in);
    rv_gen_mach gm;
    ravel_module *mod = rv_xcalloc(1, sizeof *mod);
    ravel_func *f;
    if (o.machine) { /* borrowed: the caller's machine, all bytes to the function */
        mod->mach = (ravel_machine *)(uintptr_t)o.machine;
        mod->mach_borrowed = true;
        o.features = rv_gen_view_machine(o.machine, o.features, &gm, NULL, 0);
        f = gm.ncls ? rv_gen_func(fs, &o, &gm) : plain_ret(o.machine);
    } else {
        mod->mach = rv_gen_machine(ms, &o, &gm);
        f = rv_gen_func(fs, &o, &gm);
    }
    rv_vec_push(mod->funcs, f);
    return mod;
}

/* A hash of data[0..n), eight bytes (read little-endian) per step: fuzz
 * inputs run to kilobytes, and a byte-wise hash of them cost as much as
 * generating a small function. */
static uint64_t hash_input(const uint8_t *p, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        h = (h ^ rv_load_le64(p + i)) * 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 31;
    }
    for (; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
    return rv_hash64(h);
}

ravel_module *rv_gen_from_bytes(const uint8_t *data, size_t size, const rv_gen_opts *o)
{
    if (!data) size = 0;
    uint64_t h = hash_input(data, size);
    size_t mb = size < RV_GEN_MACHINE_BYTES ? size : RV_GEN_MACHINE_BYTES;
    if (o && o->machine) mb = 0; /* a given machine: every byte is the function's */
    rv_gen_src ms, fs;
    rv_gen_src_init(&ms, data, mb, rv_hash64(hash_input(data, mb) ^ 0x6d616368ULL));
    rv_gen_src_init(&fs, data ? data + mb : NULL, size - mb, h);
    return gen_module(&ms, &fs, o);
}

ravel_module *rv_gen_from_seed(uint64_t seed, const rv_gen_opts *o)
{
    uint64_t h = rv_hash64(seed ^ 0x5eed5eed5eedULL);
    rv_gen_src ms, fs;
    rv_gen_src_init(&ms, NULL, 0, rv_hash64(h ^ 0x6d616368ULL));
    rv_gen_src_init(&fs, NULL, 0, h);
    return gen_module(&ms, &fs, o);
}

/* ---- the public names (include/ravel_gen.h) ---- */
void ravel_gen_opts_default(ravel_gen_opts *o) { if (o) rv_gen_opts_default(o); }
ravel_module *ravel_gen_from_bytes(const uint8_t *data, size_t size, const ravel_gen_opts *o) { return rv_gen_from_bytes(data, size, o); }
ravel_module *ravel_gen_from_seed(uint64_t seed, const ravel_gen_opts *o) { return rv_gen_from_seed(seed, o); }
unsigned ravel_gen_feature_bit(const char *name) { return name ? rv_gen_feature_bit(name) : 0; }
const char *ravel_gen_feature_name(size_t i) { return rv_gen_feature_name(i); }
int ravel_gen_cfg_parse(const char *name) { return name ? rv_gen_cfg_parse(name) : -1; }
unsigned ravel_gen_features(const ravel_machine *m, unsigned wanted, char *why, size_t whylen)
{
    return rv_gen_view_features(m, wanted, why, whylen);
}
