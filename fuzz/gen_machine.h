/* gen_machine.h - the generated machine (internal to fuzz/gen*.c):
 * gen_machine.c makes it, gen_func.c reads it. */
#ifndef RAVEL_GEN_MACHINE_H
#define RAVEL_GEN_MACHINE_H

#include "fuzz/gen.h"
#include "fuzz/gen_src.h"

#define RV_GEN_MAX_CLASSES 3
#define RV_GEN_MAX_CLASS_REGS 64 /* allocatable registers per class (opts clamped) */
#define RV_GEN_MAX_RESERVED 2
/* What gen_func.c needs to know about the generated machine. */
typedef struct rv_gen_mach {
    const ravel_machine *m;
    uint32_t ncls;
    uint32_t nalloc[RV_GEN_MAX_CLASSES];
    uint32_t alloc[RV_GEN_MAX_CLASSES][RV_GEN_MAX_CLASS_REGS];
    uint32_t nres[RV_GEN_MAX_CLASSES];
    uint32_t res[RV_GEN_MAX_CLASSES][RV_GEN_MAX_RESERVED];
    uint32_t nclob;          /* default clobbers, a copy of m->clobbers */
    const uint32_t *clob;
} rv_gen_mach;

/* Options as the generator uses them: sizes at least 1, registers clamped
 * to 1..RV_GEN_MAX_CLASS_REGS, pressure to 0..100. */
rv_gen_opts rv_gen_clamp_opts(const rv_gen_opts *in);
/* A machine drawn from s within o (gm: what gen_func.c needs of it). */
ravel_machine *rv_gen_machine(rv_gen_src *s, const rv_gen_opts *o, rv_gen_mach *gm);

/* The view of a given machine m (rv_gen_opts.machine; subset: see
 * rv_gen_view_features in gen.h); returns the features honoured among wanted. */
unsigned rv_gen_view_machine(const ravel_machine *m, unsigned wanted, rv_gen_mach *gm, char *why, size_t whylen);

#endif
