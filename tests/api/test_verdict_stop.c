/* test_verdict_stop.c - a verdict-only check stops at the first value error:
 * its work (block visits) does not grow with the blocks after the error,
 * and a report is capped with the count of the rest. */
#include "checker/ck.h"
#include "tests/test.h"

#include <stdlib.h>

/* b0 reads v0 from the wrong register, then a chain of n blocks. */
static ravel_module *chain(uint32_t n)
{
    size_t cap = 200 + (size_t)n * 64, len = 0;
    char *t = malloc(cap);
    len += (size_t)snprintf(t + len, cap - len,
                            "machine\n  class int r0 r1\nend\nfunc f\nb0:\n  v0:int @r0 = const 1\n  out v0 @r1\n  jump b1\n");
    for (uint32_t i = 1; i <= n; i++) {
        len += (size_t)snprintf(t + len, cap - len, "b%u:\n  out v0 @r0\n", i);
        if (i < n) len += (size_t)snprintf(t + len, cap - len, "  jump b%u\n", i + 1);
        else len += (size_t)snprintf(t + len, cap - len, "  ret\n");
    }
    len += (size_t)snprintf(t + len, cap - len, "end\n");
    ravel_module *m = ravel_module_parse(t, len, "chain.ra", NULL);
    free(t);
    return m;
}

TEST(verdict_only_stops)
{
    ravel_module *m = chain(400);
    CHECK(m != NULL);
    if (!m) return;
    const ravel_func *f = ravel_module_func(m, 0);
    ravel_checker *ck = ravel_checker_new();
    ravel_checker_add_options(ck, CK_OPT_NO_VN); /* the reference decides */
    CHECK_EQ_INT(ravel_check(ck, f, NULL, NULL), RAVEL_EFAIL);
    uint64_t full = ck->nvisits;
    ravel_checker_add_options(ck, RAVEL_CHECK_VERDICT_ONLY);
    CHECK_EQ_INT(ravel_check(ck, f, NULL, NULL), RAVEL_EFAIL);
    uint64_t vo = ck->nvisits;
    CHECK(full >= 400);
    CHECK(vo <= 4);
    /* the context is reusable after a stopped check */
    ravel_checker_clear_options(ck, RAVEL_CHECK_VERDICT_ONLY);
    ravel_report *rep = NULL;
    CHECK_EQ_INT(ravel_check(ck, f, NULL, &rep), RAVEL_EFAIL);
    CHECK_EQ_INT(ravel_report_count(rep), 1);
    CHECK_EQ_INT(ck->nvisits, full);
    ravel_report_free(rep);
    ravel_checker_free(ck);
    ravel_module_free(m);
}

/* 300 wrong reads: 100 kept by default, the rest counted; the cap is set
 * per context; 0 keeps all. */
TEST(report_cap)
{
    ravel_module *m = chain(300);
    CHECK(m != NULL);
    if (!m) return;
    /* every block but b0 reads v0 in r0, correct; make them wrong: use r1 */
    const ravel_func *f = ravel_module_func(m, 0);
    ravel_func *g = (ravel_func *)f;
    for (uint32_t i = 0; i < g->ops.len; i++)
        if (g->ops.data[i].loc == 0 && !rv_op_is_def(&g->ops.data[i])) g->ops.data[i].loc = 1;
    ravel_checker *ck = ravel_checker_new();
    ravel_report *rep = NULL;
    CHECK_EQ_INT(ravel_check(ck, f, NULL, &rep), RAVEL_EFAIL);
    CHECK_EQ_INT(ravel_report_count(rep), RAVEL_CHECK_DEFAULT_MAX_ERRORS);
    CHECK_EQ_INT(ravel_report_omitted(rep), 301 - RAVEL_CHECK_DEFAULT_MAX_ERRORS);
    /* the first ones, in instruction order */
    CHECK_EQ_INT(ravel_report_error(rep, 0)->line, 7);
    ravel_report_free(rep);
    ravel_checker_set_max_errors(ck, 0);
    CHECK_EQ_INT(ravel_check(ck, f, NULL, &rep), RAVEL_EFAIL);
    CHECK_EQ_INT(ravel_report_count(rep), 301);
    CHECK_EQ_INT(ravel_report_omitted(rep), 0);
    ravel_report_free(rep);
    ravel_checker_set_max_errors(ck, 3);
    CHECK_EQ_INT(ravel_check(ck, f, NULL, &rep), RAVEL_EFAIL);
    CHECK_EQ_INT(ravel_report_count(rep), 3);
    CHECK_EQ_INT(ravel_report_omitted(rep), 298);
    ravel_report_free(rep);
    ravel_checker_free(ck);
    ravel_module_free(m);
}

int main(void)
{
    RUN(verdict_only_stops);
    RUN(report_cap);
    return TEST_SUMMARY();
}
