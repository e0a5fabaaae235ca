/* table.c - the allocator table and the public allocation entry points.
 * Adding an allocator: one file defining its run function and one line in
 * allocators.def (the one list: this table, the prototypes in alloc.h and
 * the fuzz_alloc_NAME targets of fuzz/targets.cmake read it). The CLI, fuzz
 * targets and benchmarks iterate this table. */
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

/* Register containment (docs/format.md section 14.1), checked here before
 * an allocator's own code runs (every caller reaches an allocator through
 * this table). The allocators whose ALIAS column (allocators.def) is 1,
 * `fast` and `linear`, model overlap: they keep values in homes
 * of which no two overlap (rv_alloc_homes, alloc_util.c), and a register
 * the function names that overlaps a home (a fixed operand, a clobber)
 * claims that home for the instruction (its value moves out first). The
 * other allocators refuse every machine with containment, with a message
 * naming its alias lines (counted as declined by `ravel fuzz`). An `undef`
 * op is allocated as any op (any location is right for it). */
static bool alias_refused(const ravel_func *f, char **err)
{
    if (!rv_mach_has_alias(f->mach)) return false;
    if (err)
        *err = rv_alloc_errorf(f, RAVEL_NONE, "the machine has alias lines (registers that share bits), which this "
                                              "allocator does not handle (docs/format.md section 14.1)");
    return true;
}

bool rv_alloc_takes_alias(const rv_allocator *a) { return a->run && a->alias; }

#define RV_ALLOCATOR(NAME, RUN, ALIAS, DESCRIPTION)                                            \
    static ravel_func *guarded_##NAME(const ravel_func *f, const rv_alloc_opts *o, char **err) \
    {                                                                                          \
        if (!(ALIAS) && alias_refused(f, err)) return NULL;                                    \
        return RUN(f, o, err);                                                                 \
    }
#include "allocators.def"
#undef RV_ALLOCATOR

const rv_allocator rv_allocators[] = {
#define RV_ALLOCATOR(NAME, RUN, ALIAS, DESCRIPTION) {.name = #NAME, .description = DESCRIPTION, .run = guarded_##NAME, .alias = (ALIAS)},
#include "allocators.def"
#undef RV_ALLOCATOR
    {.name = NULL},
};

const rv_allocator *rv_allocator_find(const char *name)
{
    for (const rv_allocator *a = rv_allocators; name && a->name; a++)
        if (strcmp(a->name, name) == 0) return a;
    return NULL;
}

int rv_alloc_run(const rv_allocator *a, const ravel_func *f, const rv_alloc_opts *o, ravel_func **out, char **err)
{
    *out = NULL;
    *err = NULL;
    if (a->run) {
        /* an aliased machine it does not handle (docs/format.md section 14.7): declined, not failed */
        *out = a->run(f, o, err);
        if (!*out && !rv_alloc_takes_alias(a) && rv_mach_has_alias(f->mach)) return RAVEL_EDECLINED;
        return *out ? RAVEL_OK : RAVEL_EFAIL;
    }
    if (!a->fn) {
        *err = rv_xstrdup("allocator has no entry point");
        return RAVEL_EINVAL;
    }
    int rc = a->fn(a->user, f, o->seed, out, err);
    if (rc == RAVEL_OK && !*out) {
        rc = RAVEL_EFAIL;
        if (!*err) *err = rv_xstrdup("the allocator returned RAVEL_OK without a function");
    }
    if (rc != RAVEL_OK && *out) {
        ravel_func_free(*out);
        *out = NULL;
    }
    if (rc > 0) rc = RAVEL_EFAIL;
    return rc;
}

const char *ravel_allocator_name(size_t i)
{
    size_t n = 0;
    while (rv_allocators[n].name) n++;
    return i < n ? rv_allocators[i].name : NULL;
}

int ravel_allocate(const char *allocator, const ravel_func *f, uint64_t seed, ravel_func **out, char **err)
{
    if (out) *out = NULL;
    if (err) *err = NULL;
    const rv_allocator *a = rv_allocator_find(allocator);
    if (!a || !f || !out) {
        if (err) *err = rv_xstrdup(!a ? "unknown allocator" : "ravel_allocate: NULL argument");
        return RAVEL_EINVAL;
    }
    /* out of memory: every block of the call is freed, RAVEL_ENOMEM (no *err) */
    rv_recover rec;
    bool own = rv_recover_enter(&rec);
    if (own && setjmp(rec.jb)) {
        rv_recover_sweep(&rec);
        return RAVEL_ENOMEM;
    }
    ravel_diags *d = ravel_diags_new();
    int rc = ravel_validate(f, RAVEL_VALIDATE_SSA, d);
    bool allocated = rc == RAVEL_OK && rv_func_is_allocated(f);
    ravel_diags_free(d);
    if (rc != RAVEL_OK || allocated) {
        if (err) *err = rv_xstrdup(allocated ? "input is already allocated" : "input is not a valid SSA function (see ravel validate)");
        if (own) rv_recover_leave(&rec);
        return rc == RAVEL_ENOMEM ? RAVEL_ENOMEM : RAVEL_EINVAL;
    }
    rv_alloc_opts o = {seed, false, NULL};
    char *e = NULL;
    ravel_func *g = a->run(f, &o, &e);
    if (!g) {
        if (err) *err = e ? e : rv_xstrdup("allocation failed");
        else rv_free(e);
        if (own) rv_recover_leave(&rec);
        return !rv_alloc_takes_alias(a) && rv_mach_has_alias(f->mach) ? RAVEL_EDECLINED : RAVEL_EFAIL;
    }
    rv_free(e);
    *out = g;
    if (own) rv_recover_leave(&rec);
    return RAVEL_OK;
}
