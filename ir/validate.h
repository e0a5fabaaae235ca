/* validate.h - the two paths of ravel_validate (ir/validate.c), exposed for
 * its tests (tests/validate/test_validate_fast.c) and benchmark.
 *
 * ravel_validate(f, flags, d) == (rv_validate_fast(f) ? RAVEL_OK
 *                                  : rv_validate_careful(f, flags, d))
 *
 * rv_validate_fast proves, without formatting any text, that the careful
 * path would report nothing for either value of flags. It answers false on
 * anything invalid and on some valid but unusual shapes (see validate.c);
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

#endif
