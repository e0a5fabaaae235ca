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
 * this table). `fast` and `linear` keep each value in one allocatable
 * register at a time (or its slot) and write only allocatable registers
 * and the registers the function names, whole: on a machine with
 * containment their allocation is right when no two allocatable registers
 * overlap and no register the function names (fixed operands, clobbers, a
 * call's default clobbers) overlaps an allocatable one without being
 * allocatable itself. Then a write of the allocation empties only
 * registers it never uses, a spill moves a whole allocatable register and
 * a reload fills one. They refuse any other machine with containment,
 * naming the pair; the other allocators refuse every such machine. An
 * `undef` op is allocated as any op (any location is right for it). */
static ravel_func *refuse_aliased(const ravel_func *f, const char *why, char **err)
{
    if (err)
        *err = rv_alloc_errorf(f, RAVEL_NONE, "the machine has alias lines (registers that share bits)%s%s, which this "
                                              "allocator does not handle (docs/format.md section 14.1)",
                               why ? ": " : "", why ? why : "");
    return NULL;
}

/* The register x named by instruction in overlaps an allocatable register
 * without being allocatable: why (into buf) or NULL. */
static const char *named_overlap(const ravel_func *f, const uint8_t *alloc, uint32_t x, char *buf, size_t n)
{
    const uint32_t *ov;
    if (x >= f->mach->regs.len || alloc[x]) return NULL;
    uint32_t no = rv_mach_overlaps(f->mach, x, &ov);
    for (uint32_t k = 0; k < no; k++)
        if (alloc[ov[k]]) {
            snprintf(buf, n, "the function names %s, which overlaps the allocatable %s", f->mach->regs.data[x].name,
                     f->mach->regs.data[ov[k]].name);
            return buf;
        }
    return NULL;
}

/* Why fast and linear cannot allocate f on its machine (see above), or NULL. */
static const char *alias_misfit(const ravel_func *f, char *buf, size_t n)
{
    const ravel_machine *m = f->mach;
    uint8_t *alloc = rv_xcalloc(m->regs.len + 1, 1);
    const char *why = NULL;
    for (uint32_t c = 0; c < m->classes.len; c++)
        for (uint32_t i = 0; i < m->classes.data[c].alloc.len; i++) alloc[m->classes.data[c].alloc.data[i]] = 1;
    for (uint32_t r = 0; r < m->regs.len && !why; r++) {
        const uint32_t *ov;
        uint32_t no = alloc[r] ? rv_mach_overlaps(m, r, &ov) : 0;
        for (uint32_t k = 0; k < no && !why; k++)
            if (alloc[ov[k]]) {
                snprintf(buf, n, "the allocatable %s and %s overlap", m->regs.data[r].name, m->regs.data[ov[k]].name);
                why = buf;
            }
    }
    for (uint32_t i = 0; i < f->insts.len && !why; i++) {
        const rv_inst *in = &f->insts.data[i];
        const rv_operand *ops = rv_ops_of(f, in);
        for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses && !why; k++)
            if (ops[k].kind == RAVEL_C_FIXED) why = named_overlap(f, alloc, ops[k].arg, buf, n);
        const uint32_t *regs;
        uint32_t nc = rv_is_term(in) || rv_is_edit(in) || ((in->flags & RV_IF_CLOBBERS) && !in->nclob)
                          ? 0 : rv_inst_clobbers(f, in, &regs);
        for (uint32_t k = 0; k < nc && !why; k++) why = named_overlap(f, alloc, regs[k], buf, n);
    }
    rv_free(alloc);
    return why;
}

/* True if the allocator (fits: fast or linear) refuses f for its
 * machine's containment; *err then says why. */
static bool alias_refused(const ravel_func *f, bool fits, char **err)
{
    if (!rv_mach_has_alias(f->mach)) return false;
    char buf[200];
    const char *why = fits ? alias_misfit(f, buf, sizeof buf) : NULL;
    if (fits && !why) return false;
    refuse_aliased(f, why, err);
    return true;
}

#define RV_ALLOCATOR(NAME, RUN, DESCRIPTION)                                                     \
    static ravel_func *guarded_##NAME(const ravel_func *f, const rv_alloc_opts *o, char **err) \
    {                                                                                          \
        if (strcmp(#NAME, "fast") && alias_refused(f, !strcmp(#NAME, "linear"), err)) return NULL; \
        return RUN(f, o, err);                                                                 \
    }
#include "allocators.def"
#undef RV_ALLOCATOR

const rv_allocator rv_allocators[] = {
#define RV_ALLOCATOR(NAME, RUN, DESCRIPTION) {.name = #NAME, .description = DESCRIPTION, .run = guarded_##NAME},
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
        *out = a->run(f, o, err);
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
        return RAVEL_EFAIL;
    }
    rv_free(e);
    *out = g;
    if (own) rv_recover_leave(&rec);
    return RAVEL_OK;
}
