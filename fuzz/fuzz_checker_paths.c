/* fuzz_checker_paths.c - every path of the checker against its reference.
 * The input's bytes build an allocated function on an arbitrary CFG
 * (fuzz/anycfg.h: irreducible cycles, self-loops, loops entered in the
 * middle; correct or nearly correct allocations); every checker path
 * (value numbering, without it, verdict only, explain) must give the reference fixpoint's
 * status and report, and an allocation the reference accepts must run as
 * its original does in the interpreter. With bit 6 of the first byte set,
 * the function is instead one of the generator with the switches of the
 * format's section 14 asked for (aliased machines, undef values, remat
 * candidates), allocated by fast or linear (bit 7) and corrupted by the
 * kind of the injection catalogue that the second byte draws (or none).
 * On a difference: the function and the difference on stderr, then
 * abort(). */
#include "allocator/alloc.h"
#include "fuzz/anycfg.h"
#include "fuzz/gen.h"
#include "inject/inject.h"
#include "ir/ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const rv_anycfg *a, const char *what)
{
    fputs("==== ravel: checker paths disagree; reproducer follows ====\n", stderr);
    fputs(a->alloc_text ? a->alloc_text : "", stderr);
    fprintf(stderr, "# original:\n%s==== %s\n", a->orig_text ? a->orig_text : "", what);
    fflush(stderr);
    abort();
}

static void fail_func(const ravel_func *f, const ravel_func *orig, const char *what)
{
    fputs("==== ravel: checker paths disagree; reproducer follows ====\n", stderr);
    ravel_print_machine(stderr, f->mach);
    ravel_print_func(stderr, f);
    fputs("# original:\n", stderr);
    ravel_print_func(stderr, orig);
    fprintf(stderr, "==== %s\n", what);
    fflush(stderr);
    abort();
}

/* The allocation f runs as its original g on three input vectors, under
 * each collector model the machine allows (undef: undefined values drawn
 * from the interpreter's seed, for functions that have them). */
static bool runs_alike(const ravel_func *g, const ravel_func *f, bool undef, char *msg, size_t n)
{
    uint64_t in[3];
    for (uint64_t k = 0; k < 3; k++) {
        rv_interp_inputs(11, k, in, 3);
        for (int gc = 0; gc < (f->mach->gc_nonmoving ? 1 : 2); gc++) {
            rv_run_opts ro;
            memset(&ro, 0, sizeof ro);
            ro.inputs = in;
            ro.ninputs = 3;
            ro.step_limit = 3000;
            ro.moving_gc = gc;
            ro.undef_seed = undef ? rv_interp_undef_seed(11, k) : 0;
            if (!rv_interp_compare(g, f, &ro, msg, n)) return false;
        }
    }
    return true;
}

/* Bit 6: a generated function over section 14's constructs. */
static void generated(const uint8_t *data, size_t size, uint8_t knobs)
{
    rv_gen_opts o;
    rv_gen_opts_default(&o);
    o.features |= RV_GEN_ALIAS | RV_GEN_UNDEF | RV_GEN_REMAT;
    o.max_insts = 20 + (knobs & 7u) * 10;
    o.max_blocks = 2 + (knobs >> 3 & 3u) * 2;
    uint8_t pick = size > 1 ? data[1] : 0;
    ravel_module *m = rv_gen_from_bytes(size > 2 ? data + 2 : data, size > 2 ? size - 2 : 0, &o);
    const ravel_func *f = m ? ravel_module_func(m, 0) : NULL;
    const rv_allocator *a = rv_allocator_find(knobs & 0x80 ? "linear" : "fast");
    rv_alloc_opts ao = {.seed = pick};
    char *err = NULL;
    ravel_func *out = f && a ? a->run(f, &ao, &err) : NULL;
    rv_free(err);
    if (out) {
        static char msg[1 << 16];
        rv_inject_result r = {0};
        if (pick % (RV_INJ_COUNT_ + 1) < RV_INJ_COUNT_) rv_inject(out, (rv_inject_kind)(pick % (RV_INJ_COUNT_ + 1)), pick, &r);
        int st = 0;
        if (!rv_anycfg_paths_agree(out, (knobs & 0x20) ? f : NULL, &st, msg, sizeof msg)) fail_func(out, f, msg);
        if (st == RAVEL_OK && !runs_alike(f, out, true, msg, sizeof msg)) fail_func(out, f, msg);
        ravel_func_free(out);
    }
    ravel_module_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size && (data[0] & 0x40)) {
        generated(data, size, data[0]);
        return 0;
    }
    rv_anycfg_opts o;
    rv_anycfg_opts_default(&o);
    uint8_t knobs = size ? data[0] : 0; /* the first byte: sizes and whether --orig is given */
    o.max_blocks = 4 + (knobs & 7u) * 2;
    o.max_insts = 3 + (knobs >> 3 & 3u) * 3;
    bool with_orig = knobs >> 5 & 1u;
    rv_anycfg a;
    if (rv_anycfg_build(size ? data + 1 : data, size ? size - 1 : 0, 0x5eed, &o, &a) != 0) fail(&a, "the builder made text that does not parse");
    const ravel_func *f = ravel_module_func(a.alloc, 0), *g = ravel_module_func(a.orig, 0);
    static char msg[1 << 16];
    int st = 0;
    if (!rv_anycfg_paths_agree(f, with_orig ? g : NULL, &st, msg, sizeof msg)) fail(&a, msg);
    if (st == RAVEL_OK && !runs_alike(g, f, false, msg, sizeof msg)) fail(&a, msg); /* accepted: the interpreter must agree */
    rv_anycfg_free(&a);
    return 0;
}
