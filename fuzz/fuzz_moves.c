/* fuzz_moves.c - the parallel-move resolver on random move sets, simulated
 * concretely: destinations right, nothing else changed outside the scratch. */
#include "fuzz/fuzz_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return rv_harness_run(RV_FT_MOVES, NULL, data, size);
}
