/* myalloc.c - the example allocator (myalloc.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "myalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int myalloc_config_from_env(myalloc_config *c)
{
    memset(c, 0, sizeof *c);
    const char *bug = getenv("MYALLOC_BUG");
    if (!bug || !*bug) return 0;
    if (!strcmp(bug, "sub-use")) {
        c->bug_sub_use = 1;
        return 0;
    }
    fprintf(stderr, "myalloc: unknown MYALLOC_BUG '%s' (known: sub-use)\n", bug);
    return -1;
}

static int has_safepoint(const ravel_func *f)
{
    for (uint32_t i = 0; i < ravel_func_ninsts(f); i++)
        if (ravel_inst_is_safepoint(f, i) == 1) return 1;
    return 0;
}

/* The next allocatable register of r's class after r (itself if alone). */
static ravel_loc next_reg(const ravel_machine *m, ravel_loc r)
{
    int cls = ravel_machine_reg_class(m, r);
    if (cls < 0) return r;
    uint32_t n = ravel_machine_class_nallocatable(m, (uint32_t)cls);
    for (uint32_t i = 0; i < n; i++)
        if (ravel_machine_class_allocatable(m, (uint32_t)cls, i) == r)
            return ravel_machine_class_allocatable(m, (uint32_t)cls, (i + 1) % n);
    return r;
}

/* The planted bug: the first use of every `sub` read from another register. */
static void plant_sub_use(ravel_func *f)
{
    const ravel_machine *m = ravel_func_machine(f);
    for (uint32_t i = 0; i < ravel_func_ninsts(f); i++) {
        if (ravel_inst_opcode(f, i) != RAVEL_OP_SUB || ravel_inst_nuses(f, i) == 0) continue;
        uint32_t k = ravel_inst_ndefs(f, i); /* the first use */
        ravel_operand op;
        if (ravel_inst_operand(f, i, k, &op) == RAVEL_OK && op.loc != RAVEL_LOC_NONE && ravel_loc_is_reg(op.loc))
            ravel_set_loc(f, i, k, next_reg(m, op.loc));
    }
}

int myalloc_alloc(void *user, const ravel_func *orig, uint64_t seed, ravel_func **out, char **msg)
{
    const myalloc_config *c = user;
    if (has_safepoint(orig)) {
        *msg = strdup("myalloc: no GC support yet (the function has safepoints)");
        return RAVEL_EDECLINED;
    }
    int rc = ravel_allocate("linear", orig, seed, out, msg);
    if (rc == RAVEL_OK && c && c->bug_sub_use) plant_sub_use(*out);
    return rc;
}
