/* fuzz_alloc.c - generate -> allocate -> validate -> check. The allocator is
 * the first input byte (mod the table size), or fixed at build time for the
 * fuzz_alloc_NAME targets (-DRV_FUZZ_ALLOCATOR="NAME"). */
#include "fuzz/fuzz_harness.h"

#ifndef RV_FUZZ_ALLOCATOR
#define RV_FUZZ_ALLOCATOR NULL
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return rv_harness_run(RV_FT_ALLOC, RV_FUZZ_ALLOCATOR, data, size);
}
