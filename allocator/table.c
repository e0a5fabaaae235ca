/* table.c - the allocator table and the public allocation entry points.
 * Adding an allocator: one file defining its run function, one line here
 * (and its prototype in alloc.h). The CLI, fuzz targets and benchmarks
 * iterate this table. */
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

ravel_func *rv_alloc_linear(const ravel_func *f, const rv_alloc_opts *o, char **err); /* linear.c */
const rv_allocator rv_allocators[] = {
    {"fast", "local one-pass allocator (LLVM RegAllocFast style): registers within extended blocks, slots across block boundaries", rv_alloc_fast},
    {"linear", "linear scan with interval splitting (second-chance binpacking, Belady eviction), edge resolution, slot reuse", rv_alloc_linear},
    {"random", "a random legal allocation from the seed: fast's engine choosing at random, or the shapes of production allocators (edge moves, merges, splits, shared slots) on any CFG; stresses checkers", rv_alloc_random},
    {"color", "iterated graph colouring (Chaitin-Briggs): phi elimination, conservative coalescing, optimistic colouring, spill everywhere", rv_alloc_color},
    {"ssa", "decoupled SSA allocation: virtual registers from block parameters, Belady spilling before colouring, dominator-order colouring", rv_alloc_ssa},
    {NULL, NULL, NULL},
};

const rv_allocator *rv_allocator_find(const char *name)
{
    for (const rv_allocator *a = rv_allocators; name && a->name; a++)
        if (strcmp(a->name, name) == 0) return a;
    return NULL;
}

const char *ravel_allocator_name(size_t i)
{
    size_t n = 0;
    while (rv_allocators[n].name) n++;
    return i < n ? rv_allocators[i].name : NULL;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = rv_xmalloc(n);
    memcpy(p, s, n);
    return p;
}

int ravel_allocate(const char *allocator, const ravel_func *f, uint64_t seed, ravel_func **out, char **err)
{
    if (out) *out = NULL;
    if (err) *err = NULL;
    const rv_allocator *a = rv_allocator_find(allocator);
    if (!a || !f || !out) {
        if (err) *err = dup_str(!a ? "unknown allocator" : "ravel_allocate: NULL argument");
        return RAVEL_EINVAL;
    }
    ravel_diags *d = ravel_diags_new();
    int rc = ravel_validate(f, RAVEL_VALIDATE_SSA, d);
    bool allocated = rc == RAVEL_OK && rv_func_is_allocated(f);
    ravel_diags_free(d);
    if (rc != RAVEL_OK || allocated) {
        if (err) *err = dup_str(allocated ? "input is already allocated" : "input is not a valid SSA function (see ravel validate)");
        return RAVEL_EINVAL;
    }
    rv_alloc_opts o = {seed, false};
    char *e = NULL;
    ravel_func *g = a->run(f, &o, &e);
    if (!g) {
        if (err) *err = e ? e : dup_str("allocation failed");
        else free(e);
        return RAVEL_EFAIL;
    }
    free(e);
    *out = g;
    return RAVEL_OK;
}
