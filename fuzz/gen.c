/* gen.c - the generator's entry points: the choice source (bytes, then a
 * PRNG), options, feature names, and the random machine description.
 *
 * Requires: nothing of its input; every byte string is accepted.
 * Guarantees: a module with one machine (1-3 classes named int, float, vec;
 * min_regs..max_regs allocatable registers each; sometimes reserved
 * registers; a default clobber set; gc moving or nonmoving) and one
 * function built by gen_func.c. Deterministic in (bytes, options).
 */
#define RV_GEN_INTERNAL
#include "fuzz/gen.h"

#include <stdlib.h>
#include <string.h>

/* ---- choice source ---- */

/* rv_gen_below for n > 256 with bytes left: two or four bytes. A partial
 * tail is dropped: from then on the PRNG answers. */
uint32_t rv_gen_below_slow(rv_gen_src *s, uint32_t n)
{
    uint32_t need = n <= 65536 ? 2 : 4;
    if (s->size - s->pos >= need) {
        uint32_t x = 0;
        for (uint32_t i = 0; i < need; i++) x = x << 8 | s->data[s->pos++];
        return x % n;
    }
    s->pos = s->size;
    return (uint32_t)(((rv_gen_u64(s) >> 32) * (uint64_t)n) >> 32);
}

void rv_gen_refill(rv_gen_src *s)
{
    for (uint32_t w = 0; w < RV_GEN_POOL / 8; w++) {
        uint64_t x = rv_gen_u64(s);
        for (uint32_t i = 0; i < 8; i++) s->pool[w * 8 + i] = (uint8_t)(x >> (8 * i));
    }
    s->npool = RV_GEN_POOL;
}

uint64_t rv_gen_bits(rv_gen_src *s)
{
    if (s->size - s->pos >= 8) {
        uint64_t x = 0;
        for (int i = 0; i < 8; i++) x = x << 8 | s->data[s->pos++];
        return x;
    }
    s->pos = s->size;
    return rv_gen_u64(s);
}

/* ---- options and feature names ---- */

void rv_gen_opts_default(rv_gen_opts *o)
{
    memset(o, 0, sizeof *o); /* fields added later default to 0 */
    o->max_insts = 200;
    o->max_blocks = 24;
    o->min_regs = 1;
    o->max_regs = 32;
    o->pressure = 50;
    o->features = RV_GEN_ALL;
}

static const struct { const char *name; unsigned bit; } features[] = {
    {"loops", RV_GEN_LOOPS},       {"multiway", RV_GEN_MULTIWAY},
    {"params", RV_GEN_PARAMS},     {"fixed", RV_GEN_FIXED},
    {"reuse", RV_GEN_REUSE},       {"early-late", RV_GEN_EARLY_LATE},
    {"any-stack", RV_GEN_ANY_STACK}, {"calls", RV_GEN_CALLS},
    {"safepoints", RV_GEN_SAFEPOINTS}, {"copy", RV_GEN_COPY},
    {"classes", RV_GEN_CLASSES},
};

unsigned rv_gen_feature_bit(const char *name)
{
    for (size_t i = 0; i < sizeof features / sizeof *features; i++)
        if (strcmp(features[i].name, name) == 0) return features[i].bit;
    return 0;
}

const char *rv_gen_feature_name(size_t i)
{
    return i < sizeof features / sizeof *features ? features[i].name : NULL;
}

/* Options as the generator uses them: sizes at least 1, registers clamped
 * to 1..RV_GEN_MAX_CLASS_REGS, pressure to 0..100. */
static rv_gen_opts clamp_opts(const rv_gen_opts *in)
{
    rv_gen_opts o;
    if (in) o = *in; else rv_gen_opts_default(&o);
    if (o.max_insts < 1) o.max_insts = 1;
    if (o.max_insts > RV_MAX_INSTS / 2) o.max_insts = RV_MAX_INSTS / 2;
    if (o.max_blocks < 1) o.max_blocks = 1;
    if (o.max_blocks > o.max_insts) o.max_blocks = o.max_insts;
    if (o.min_insts > o.max_insts) o.min_insts = o.max_insts;
    if (o.min_regs < 1) o.min_regs = 1;
    if (o.max_regs > RV_GEN_MAX_CLASS_REGS) o.max_regs = RV_GEN_MAX_CLASS_REGS;
    if (o.min_regs > RV_GEN_MAX_CLASS_REGS) o.min_regs = RV_GEN_MAX_CLASS_REGS;
    if (o.max_regs < o.min_regs) o.max_regs = o.min_regs;
    if (o.pressure > 100) o.pressure = 100;
    o.features &= RV_GEN_ALL;
    return o;
}

/* ---- machine ---- */

static const char *const class_names[RV_GEN_MAX_CLASSES] = {"int", "float", "vec"};
static const char class_prefix[RV_GEN_MAX_CLASSES] = {'r', 'f', 'x'};
static const char *const reserved_names[RV_GEN_MAX_CLASSES][RV_GEN_MAX_RESERVED] = {
    {"sp", "fp"}, {"fz", "ft"}, {"xz", "xt"}};

/* "r17" without printf: prefix letter and decimal number (< 100). */
static const char *reg_name(char *buf, char prefix, uint32_t n)
{
    char *p = buf;
    *p++ = prefix;
    if (n >= 10) *p++ = (char)('0' + n / 10);
    *p++ = (char)('0' + n % 10);
    *p = 0;
    return buf;
}

/* Allocatable register count: half the time anywhere in the range, half the
 * time in its lowest quarter (small machines make pressure interesting). */
static uint32_t pick_nregs(rv_gen_src *s, const rv_gen_opts *o)
{
    uint32_t span = o->max_regs - o->min_regs + 1;
    if (rv_gen_chance(s, 50)) span = (span + 3) / 4;
    return o->min_regs + rv_gen_below(s, span);
}

static void add_class_regs(rv_gen_src *s, const rv_gen_opts *o, rv_gen_mach *gm, uint32_t c)
{
    char buf[8];
    int cls = ravel_machine_add_class(gm->m, class_names[c]);
    uint32_t n = pick_nregs(s, o);
    gm->nalloc[c] = n;
    for (uint32_t i = 0; i < n; i++)
        gm->alloc[c][i] = (uint32_t)ravel_machine_add_reg(gm->m, reg_name(buf, class_prefix[c], i), cls, 0);
    gm->nres[c] = 0;
    if (!(o->features & RV_GEN_FIXED)) return;
    /* reserved registers: class int often (sp, fp), the others sometimes */
    uint32_t nres = rv_gen_below(s, c == 0 ? 3 : 2);
    if (c == 0 && nres == 0 && rv_gen_chance(s, 50)) nres = 1;
    for (uint32_t i = 0; i < nres; i++)
        gm->res[c][gm->nres[c]++] = (uint32_t)ravel_machine_add_reg(gm->m, reserved_names[c][i], cls, 1);
}

/* Default clobbers of `call`: none, all allocatable, a caller-saved prefix
 * of each class, or a random subset. */
static void pick_clobbers(rv_gen_src *s, rv_gen_mach *gm)
{
    uint32_t buf[RV_GEN_MAX_CLASSES * RV_GEN_MAX_CLASS_REGS], n = 0;
    uint32_t mode = rv_gen_below(s, 4);
    for (uint32_t c = 0; c < gm->ncls; c++) {
        uint32_t prefix = rv_gen_below(s, gm->nalloc[c] + 1);
        uint64_t bits = mode == 3 ? rv_gen_bits(s) : 0;
        for (uint32_t i = 0; i < gm->nalloc[c]; i++) {
            bool in = mode == 1 || (mode == 2 && i < prefix) || (mode == 3 && ((bits >> i) & 1));
            if (in) buf[n++] = gm->alloc[c][i];
        }
    }
    ravel_machine_set_clobbers(gm->m, buf, n);
    gm->clob = gm->m->clobbers.data;
    gm->nclob = gm->m->clobbers.len;
}

static ravel_machine *gen_machine(rv_gen_src *s, const rv_gen_opts *o, rv_gen_mach *gm)
{
    memset(gm, 0, sizeof *gm);
    gm->m = ravel_machine_new();
    gm->ncls = (o->features & RV_GEN_CLASSES) ? 1 + rv_gen_below(s, RV_GEN_MAX_CLASSES) : 1;
    for (uint32_t c = 0; c < gm->ncls; c++) add_class_regs(s, o, gm, c);
    if (o->features & RV_GEN_CALLS) pick_clobbers(s, gm);
    ravel_machine_set_gc_moving(gm->m, rv_gen_chance(s, 50));
    return gm->m;
}

/* ---- entry points ---- */

/* The machine and the function draw from separate sources, so that a
 * mutation of the function's bytes keeps the machine and the other way
 * round: the machine reads the first RV_GEN_MACHINE_BYTES bytes, the
 * function the rest; each continues with its own PRNG stream when its
 * bytes run out (the machine's seeded from a hash of its bytes only, the
 * function's from a hash of the whole input). */
#define RV_GEN_MACHINE_BYTES 16

static ravel_module *gen_module(rv_gen_src *ms, rv_gen_src *fs, const rv_gen_opts *in)
{
    rv_gen_opts o = clamp_opts(in);
    rv_gen_mach gm;
    ravel_module *mod = rv_xcalloc(1, sizeof *mod);
    mod->mach = gen_machine(ms, &o, &gm);
    ravel_func *f = rv_gen_func(fs, &o, &gm);
    rv_vec_push(mod->funcs, f);
    return mod;
}

ravel_module *rv_gen_from_bytes(const uint8_t *data, size_t size, const rv_gen_opts *o)
{
    if (!data) size = 0;
    uint64_t h = rv_hash_bytes(data, size);
    size_t mb = size < RV_GEN_MACHINE_BYTES ? size : RV_GEN_MACHINE_BYTES;
    rv_gen_src ms = {data, mb, 0, rv_hash64(rv_hash_bytes(data, mb) ^ 0x6d616368ULL), 0, {0}};
    rv_gen_src fs = {data ? data + mb : NULL, size - mb, 0, h, 0, {0}};
    return gen_module(&ms, &fs, o);
}

ravel_module *rv_gen_from_seed(uint64_t seed, const rv_gen_opts *o)
{
    uint64_t h = rv_hash64(seed ^ 0x5eed5eed5eedULL);
    rv_gen_src ms = {NULL, 0, 0, rv_hash64(h ^ 0x6d616368ULL), 0, {0}};
    rv_gen_src fs = {NULL, 0, 0, h, 0, {0}};
    return gen_module(&ms, &fs, o);
}
