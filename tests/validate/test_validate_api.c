/* test_validate_api.c - the validator on functions built through the C API
 * (no source positions: messages name function, block and instruction). */
#include "ir/ir.h"
#include "tests/test.h"
int main(void) { return TEST_SUMMARY(); }
