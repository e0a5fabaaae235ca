/* gen_func.h - the generated function (internal to fuzz/gen*.c). */
#ifndef RAVEL_GEN_FUNC_H
#define RAVEL_GEN_FUNC_H

#include "fuzz/gen_machine.h"

/* gen_func.c: builds the function; never fails. */
ravel_func *rv_gen_func(rv_gen_src *s, const rv_gen_opts *o, const rv_gen_mach *gm);
/* The same with the value lists on the heap from the start when
 * !stack_vals (rv_gen_func keeps a small function's on its stack): the
 * reference that test gen.unit (vals_slab) compares rv_gen_func with. */
ravel_func *rv_gen_func_slab(rv_gen_src *s, const rv_gen_opts *o, const rv_gen_mach *gm, bool stack_vals);

#endif
