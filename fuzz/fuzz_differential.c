/* fuzz_differential.c - fuzz_alloc plus the interpreter on both forms
 * (rv_interp_compare on several input vectors). Allocator: first byte. */
#include "fuzz/fuzz_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return rv_harness_run(RV_FT_DIFFERENTIAL, NULL, data, size);
}
