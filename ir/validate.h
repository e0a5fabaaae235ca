/* validate.h - the two paths of ravel_validate (ir/validate.c, the careful
 * one, and ir/validate_fast.c), exposed for
 * its tests (tests/validate/test_validate_fast.c) and benchmark.
 *
 * ravel_validate(f, flags, d) == (rv_validate_fast(f) ? RAVEL_OK
 *                                  : rv_validate_careful(f, flags, d))
 *
 * rv_validate_fast proves, without formatting any text, that the careful
 * path would report nothing for either value of flags. It answers false on
 * anything invalid and on some valid but unusual shapes (see validate_fast.c);
 * the careful path then decides and reports. */
#ifndef RAVEL_VALIDATE_H
#define RAVEL_VALIDATE_H

#include "ir.h"

/* True only if f is well formed and in strict SSA form: then
 * rv_validate_careful(f, flags, d) returns RAVEL_OK and reports nothing,
 * with or without RAVEL_VALIDATE_SSA. Requires f finished, f->mach set. */
bool rv_validate_fast(const ravel_func *f);
/* The original passes: every error, in source order (ravel.h, validate.c). */
int rv_validate_careful(const ravel_func *f, unsigned flags, ravel_diags *d);

/* Shared by both paths: one definition of each rule they both test. */

/* A location that names a register of the machine or a slot in range. */
static inline bool rv_validate_loc_in_range(const ravel_machine *m, ravel_loc l)
{
    if (l == RAVEL_LOC_NONE) return false;
    return ravel_loc_is_slot(l) ? ravel_loc_slot(l) <= RAVEL_MAX_SLOT : l < m->regs.len;
}

/* An undef op: one def, no use, immediate or attribute (docs/format.md 14.2). */
static inline bool rv_validate_undef_shape(const rv_inst *in)
{
    return in->ndefs == 1 && !in->nuses && !in->nimms && !(in->flags & (RV_IF_CLOBBERS | RV_IF_SAFEPOINT | RV_IF_STACKMAP));
}

#endif
