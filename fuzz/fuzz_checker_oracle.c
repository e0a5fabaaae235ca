/* fuzz_checker_oracle.c - fuzzes the checker itself: corrupt a correct
 * allocation; if the checker accepts it, the interpreter must agree. */
#include "fuzz/fuzz_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return rv_harness_run(RV_FT_ORACLE, NULL, data, size);
}
