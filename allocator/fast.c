/* fast.c - placeholder: the `fast` allocator is being written. */
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

ravel_func *rv_alloc_fast(const ravel_func *f, const rv_alloc_opts *o, char **err)
{
    (void)o;
    *err = rv_alloc_errorf(f, RAVEL_NONE, "the fast allocator is not built yet");
    return NULL;
}

ravel_func *rv_alloc_random(const ravel_func *f, const rv_alloc_opts *o, char **err)
{
    (void)o;
    *err = rv_alloc_errorf(f, RAVEL_NONE, "the random allocator is not built yet");
    return NULL;
}
