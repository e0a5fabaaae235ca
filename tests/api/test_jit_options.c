/* test_jit_options.c - verification requested through RAVEL_VERIFY survives
 * every option call: the README's JIT sequence (RAVEL_VERIFY=1, then
 * RAVEL_CHECK_VERDICT_ONLY) still rejects a wrong allocation in
 * ravel_check_if_enabled; options are additive. */
#define _POSIX_C_SOURCE 200809L
#include "ravel.h"
#include "tests/test.h"

#include <stdlib.h>

static const char wrong[] =
    "machine\n  class int r0 r1\nend\n"
    "func f\nb0:\n  v0:int @r0, v1:int @r1 = args\n"
    "  v2:int @r0 = add v0 @r1, v1 @r1\n  ret v2 @r0\nend\n";

static ravel_module *parse(void)
{
    ravel_module *m = ravel_module_parse(wrong, sizeof wrong - 1, "wrong.ra", NULL);
    CHECK(m && ravel_module_nfuncs(m) == 1);
    return m;
}

/* exactly the sequence */
TEST(verify_env_then_verdict_only)
{
    ravel_module *m = parse();
    setenv("RAVEL_VERIFY", "1", 1);
    ravel_checker *ck = ravel_checker_new();
    unsetenv("RAVEL_VERIFY");
    CHECK_EQ_INT(ravel_checker_verify(ck), 1);
    ravel_checker_set_options(ck, RAVEL_CHECK_VERDICT_ONLY);
    CHECK_EQ_INT(ravel_check_if_enabled(ck, ravel_module_func(m, 0), NULL, NULL), RAVEL_EFAIL);
    ravel_checker_add_options(ck, RAVEL_CHECK_NO_VALIDATE);
    ravel_checker_clear_options(ck, ~0u);
    CHECK_EQ_INT(ravel_checker_options(ck), 0);
    CHECK_EQ_INT(ravel_check_if_enabled(ck, ravel_module_func(m, 0), NULL, NULL), RAVEL_EFAIL);
    ravel_checker_set_verify(ck, 0);
    CHECK_EQ_INT(ravel_check_if_enabled(ck, ravel_module_func(m, 0), NULL, NULL), RAVEL_OK);
    ravel_checker_free(ck);
    ravel_module_free(m);
}

TEST(options_are_additive)
{
    unsetenv("RAVEL_VERIFY");
    ravel_checker *ck = ravel_checker_new();
    CHECK_EQ_INT(ravel_checker_verify(ck), 0);
    ravel_checker_add_options(ck, RAVEL_CHECK_VERDICT_ONLY);
    ravel_checker_add_options(ck, RAVEL_CHECK_NO_VALIDATE);
    CHECK_EQ_INT(ravel_checker_options(ck), RAVEL_CHECK_VERDICT_ONLY | RAVEL_CHECK_NO_VALIDATE);
    ravel_checker_clear_options(ck, RAVEL_CHECK_NO_VALIDATE);
    CHECK_EQ_INT(ravel_checker_options(ck), RAVEL_CHECK_VERDICT_ONLY);
    /* RAVEL_CHECK_VERIFY turns verification on and stays out of the word */
    ravel_checker_add_options(ck, RAVEL_CHECK_VERIFY);
    CHECK_EQ_INT(ravel_checker_verify(ck), 1);
    CHECK_EQ_INT(ravel_checker_options(ck), RAVEL_CHECK_VERDICT_ONLY);
    ravel_checker_clear_options(ck, RAVEL_CHECK_VERIFY);
    CHECK_EQ_INT(ravel_checker_verify(ck), 1);
    ravel_checker_free(ck);
}

int main(void)
{
    RUN(verify_env_then_verdict_only);
    RUN(options_are_additive);
    return TEST_SUMMARY();
}
