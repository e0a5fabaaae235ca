/* fuzz_checker_paths.c - every path of the checker against its reference.
 * The input's bytes build an allocated function on an arbitrary CFG
 * (fuzz/anycfg.h: irreducible cycles, self-loops, loops entered in the
 * middle; correct or nearly correct allocations); every checker path
 * (value numbering, without it, verdict only, explain) must give the reference fixpoint's
 * status and report, and an allocation the reference accepts must run as
 * its original does in the interpreter. On a difference: the function and
 * the difference on stderr, then abort(). */
#include "fuzz/anycfg.h"
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
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
    if (st == RAVEL_OK) { /* accepted: the interpreter must agree */
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
                if (!rv_interp_compare(g, f, &ro, msg, sizeof msg)) fail(&a, msg);
            }
        }
    }
    rv_anycfg_free(&a);
    return 0;
}
