/* test_nesting.c - the checker's work on deep loop nests is polynomial in
 * the depth. Each level of the nest is a loop whose latch rotates eight
 * registers (so the first round never holds: every loop needs a second),
 * leaving either from its header or from its body (then the block after
 * the loop hangs off the body in the dominator tree: a "deep exit"), with
 * or without a read of a rotated register in each header (then every
 * level has an error and the exact walk runs for the report). A stable
 * loop's final visit used to iterate every inner loop again, which doubled
 * the visits per level (2^depth); this test bounds the block visits of one
 * ravel_check (ck->nvisits) by a cubic in the depth, checks the verdict and
 * the number of errors, and compares the report with the reference walk
 * (CK_OPT_NO_REPLAY) where that one is still cheap. Work, not time, is
 * measured: the bound cannot depend on the machine. */
#define _POSIX_C_SOURCE 200809L
#include "checker/ck.h"
#include "tests/test.h"

#include <stdarg.h>
#include <stdlib.h>

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        t->cap = t->cap * 2 + (size_t)(n > 0 ? n : 0) + 64;
        t->s = realloc(t->s, t->cap);
        if (!t->s) abort();
    }
}

enum { K = 8 }; /* rotated registers r0..r7; r8 scratch, r9 the condition */

static void rotate(text *t)
{
    put(t, "  r%d = move r0\n", K);
    for (int j = 0; j < K - 1; j++) put(t, "  r%d = move r%d\n", j, j + 1);
    put(t, "  r%d = move r%d\n", K - 1, K);
}

/* The nest of depth d; body_exit: loops leave from their body, not their
 * header; reads: each header reads a rotated register (an error). */
static char *nest(int d, bool body_exit, bool reads)
{
    text t = {malloc(256), 0, 256};
    if (!t.s) abort();
    put(&t, "machine\n  class int");
    for (int j = 0; j < K + 2; j++) put(&t, " r%d", j);
    put(&t, "\nend\n\nfunc f\nb0:\n");
    for (int j = 0; j < K; j++) put(&t, "  v%d:int @r%d = const %d\n", j, j, j);
    put(&t, "  v99:int @r%d = const 1\n  jump bh0\n", K + 1);
    for (int i = 0; i < d; i++) {
        put(&t, "bh%d:\n", i);
        if (reads) put(&t, "  out v%d @r%d\n", i % K, i % K);
        if (body_exit) put(&t, "  jump bb%d\nbb%d:\n", i, i);
        put(&t, "  br v99 @r%d, be%d, bx%d\nbe%d:\n", K + 1, i, i, i);
        if (i < d - 1) {
            put(&t, "  jump bh%d\n", i + 1);
        } else {
            rotate(&t);
            put(&t, "  jump bh%d\n", i);
        }
        put(&t, "bx%d:\n", i);
        if (i > 0) {
            rotate(&t);
            put(&t, "  jump bh%d\n", i - 1);
        } else {
            put(&t, "  ret\n");
        }
    }
    put(&t, "end\n");
    return t.s;
}

static char *report_text(const ravel_report *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return NULL;
    if (r) ravel_report_print(m, r);
    fclose(m);
    return buf;
}

/* Checks the nest of depth d with the options; returns the visits. */
static uint64_t check_nest(int d, bool body_exit, bool reads, unsigned opts, char **rtext)
{
    char *src = nest(d, body_exit, reads);
    ravel_diags *dg = ravel_diags_new();
    ravel_module *m = ravel_module_parse(src, strlen(src), "nest.ra", dg);
    CHECK(m != NULL);
    uint64_t visits = UINT64_MAX;
    if (m) {
        ravel_checker *ck = ravel_checker_new();
        ravel_checker_set_options(ck, opts);
        ravel_report *rep = NULL;
        int rc = ravel_check(ck, ravel_module_func(m, 0), NULL, &rep);
        CHECK_EQ_INT(rc, reads ? RAVEL_EFAIL : RAVEL_OK);
        CHECK_EQ_INT(ravel_report_count(rep), reads ? d : 0); /* one conflicted read per header */
        visits = ck->nvisits;
        if (rtext) *rtext = report_text(rep);
        ravel_report_free(rep);
        ravel_checker_free(ck);
        ravel_module_free(m);
    }
    ravel_diags_free(dg);
    free(src);
    return visits;
}

/* Cubic in the depth (blocks per level x levels entered x rounds): at
 * depth 24 about 55,000, where 2^depth would be 16.7 million. */
static uint64_t bound(int d) { return 4u * (uint64_t)(d + 2) * (uint64_t)(d + 2) * (uint64_t)(d + 2); }

TEST(deep_nests_cost_polynomial_work)
{
    for (int shape = 0; shape < 4; shape++) {
        bool body_exit = shape & 1, reads = shape & 2;
        for (int d = 4; d <= 24; d += 4) {
            uint64_t v = check_nest(d, body_exit, reads, 0, NULL);
            if (v > bound(d))
                fprintf(stderr, "depth %d, %s exits, %s: %llu visits > %llu\n", d, body_exit ? "body" : "header",
                        reads ? "errors" : "correct", (unsigned long long)v, (unsigned long long)bound(d));
            CHECK(v <= bound(d));
        }
    }
}

/* The exact walk alone (the report's walk) too. */
TEST(exact_walk_on_deep_nests)
{
    for (int shape = 0; shape < 2; shape++) {
        uint64_t v = check_nest(24, shape, true, CK_OPT_EXACT, NULL);
        CHECK(v <= bound(24));
    }
}

/* The final visits that do not iterate inner loops again give the reports
 * of those that do (depth 8: the reference is still cheap). */
TEST(reports_as_the_reference_walk)
{
    for (int shape = 0; shape < 2; shape++) {
        char *a = NULL, *b = NULL;
        uint64_t va = check_nest(8, shape, true, CK_OPT_EXACT | RAVEL_CHECK_EXPLAIN, &a);
        uint64_t vb = check_nest(8, shape, true, CK_OPT_EXACT | CK_OPT_NO_REPLAY | RAVEL_CHECK_EXPLAIN, &b);
        CHECK(a && b && strcmp(a, b) == 0);
        CHECK(va < vb); /* the reference does more work */
        free(a);
        free(b);
    }
}

int main(void)
{
    RUN(deep_nests_cost_polynomial_work);
    RUN(exact_walk_on_deep_nests);
    RUN(reports_as_the_reference_walk);
    return TEST_SUMMARY();
}
