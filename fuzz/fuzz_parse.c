/* fuzz_parse.c - any bytes: parse -> print -> parse -> print is a fixpoint
 * (text and structure); validator, checker and interpreter survive it. */
#include "fuzz/fuzz_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return rv_harness_run(RV_FT_PARSE, NULL, data, size);
}
