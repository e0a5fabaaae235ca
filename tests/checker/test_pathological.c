/* test_pathological.c - bounded work and memory on pathological shapes.
 *
 * Deep loop nests: each level of the nest is a loop whose latch rotates
 * eight registers (so the first round never holds: every loop needs a
 * second), leaving either from its header or from its body (then the block
 * after the loop hangs off the body in the dominator tree: a "deep exit"),
 * with or without a read of a rotated register in each header (then every
 * level has an error and the reference fixpoint runs for the report). An
 * earlier walk's stable loops iterated every inner loop again on their
 * final visit, which doubled the visits per level (2^depth); the block
 * visits of one ravel_check (ck->nvisits: value numbering's and the
 * reference's) are bounded here by a cubic in the depth, with the verdict,
 * the number of errors, and the report with explain dumps. The checker's
 * scratch must not grow with the visits either (each block's states reuse
 * their room).
 *
 * Long copy chains: n copies of one value kept in one register make sets
 * of 2..n+1 vregs, n^2/2 members in all. Past the limit on interned sets
 * (CK_MAX_SET_POOL; lowered here through ck->set_limit) the checker stops
 * making sets: a verdict without value errors stands (only facts were
 * lost), value errors become one bad-input diagnostic.
 *
 * Work, not time, is measured: the bounds cannot depend on the machine. */
#define _POSIX_C_SOURCE 200809L
#include "checker/ck.h"
#include "tests/checker/report_text.h"
#include "tests/test.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
        /* memory follows the size, not the visits: each block's entry and
         * exit states reuse their room (at most every location each) */
        const ravel_func *f = ravel_module_func(m, 0);
        uint64_t size = (uint64_t)f->layout.len * (ck->nlocs + 1) + f->insts.len + f->ops.len + f->vregs.len + f->succs.len;
        CHECK(ck_memory(ck) <= 64 * size + 65536);
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

/* The nest of gen_deep.py (hardening cases) as `fast` allocates it: level
 * i's header reloads two slots, its body spills a value to slot i + 1, and
 * the block after the inner loop reloads it; so loop i and its inner loops
 * write d - i slots, d^2/2 in all over the nest. */
static char *spilled_nest(int d)
{
    text t = {malloc(256), 0, 256};
    if (!t.s) abort();
    put(&t, "machine\n  class int r0 r1 r2 r3\n  clobbers r0 r1\nend\n\nfunc f\nb0:\n");
    put(&t, "  v0:int @r0, v1:int @r1 = args\n  s0 = spill r0\n  s1 = spill r1\n  jump H1\n");
    for (int i = 1; i <= d; i++) {
        put(&t, "H%d:\n  r0 = reload s0\n  r1 = reload s1\n  v%d0:int @r2 = lt v0 @r0, v1 @r1\n", i, i);
        put(&t, "  br v%d0 @r2, A%d, X%d\nA%d:\n  v%d1:int @r1 = add v0 @r0, %d\n  s%d = spill r1\n", i, i, i, i, i, i, i + 1);
        put(&t, i < d ? "  jump H%d\n" : "  jump L%d\n", i < d ? i + 1 : i);
        put(&t, "X%d:\n", i);
        if (i == 1) put(&t, "  ret v0 @r0\n");
        else put(&t, "  r0 = reload s%d\n  out v%d1 @r0\n  jump L%d\n", i, i - 1, i - 1);
        put(&t, "L%d:\n  jump H%d\n", i, i);
    }
    put(&t, "end\n");
    return t.s;
}

/* Nests of 10^4 levels check in near-linear work: value numbering proves
 * them (lazy M(h): the inner loops' writes are not summed per level) in a
 * few walks, one visit per block each; before, M(h) passed its budget and
 * the reference took about d^2 visits (a depth of 20,000: 48 s, 12 GB). */
TEST(spilled_nests_near_linear)
{
    for (int d = 100; d <= 10000; d *= 10) {
        char *src = spilled_nest(d);
        ravel_diags *dg = ravel_diags_new();
        ravel_module *m = ravel_module_parse(src, strlen(src), "spilled_nest.ra", dg);
        CHECK(m != NULL);
        if (m) {
            ravel_checker *ck = ravel_checker_new();
            const ravel_func *f = ravel_module_func(m, 0);
            CHECK_EQ_INT(ravel_check(ck, f, NULL, NULL), RAVEL_OK);
            CHECK(ck->vn_proven);
            if (ck->nvisits > 4u * f->layout.len)
                fprintf(stderr, "depth %d: %llu visits for %u blocks\n", d, (unsigned long long)ck->nvisits, f->layout.len);
            CHECK(ck->nvisits <= 4u * f->layout.len);
            CHECK(ck_memory(ck) <= 512u * (f->insts.len + f->layout.len) + 65536);
            ravel_checker_free(ck);
            ravel_module_free(m);
        }
        ravel_diags_free(dg);
        free(src);
    }
}

/* The same nest with one wrong reload (level 2 reads slot 3): value
 * numbering declines, and the reference's states hold about d^2/2
 * entries. Under the default limit a depth of 300 is decided; past a
 * lowered limit (ck->state_limit) the check stops with one "beyond the
 * checker's limit" diagnostic, RAVEL_EINVAL, and memory within the limit. */
TEST(spilled_nest_error_bounded)
{
    char *src = spilled_nest(300);
    char *p = strstr(src, "X2:\n  r0 = reload s2");
    CHECK(p != NULL);
    if (p) p[strlen("X2:\n  r0 = reload s")] = '3';
    ravel_diags *dg = ravel_diags_new();
    ravel_module *m = ravel_module_parse(src, strlen(src), "spilled_nest.ra", dg);
    CHECK(m != NULL);
    if (m) {
        const ravel_func *f = ravel_module_func(m, 0);
        ravel_checker *ck = ravel_checker_new();
        ravel_report *rep = NULL;
        CHECK_EQ_INT(ravel_check(ck, f, NULL, &rep), RAVEL_EFAIL);
        CHECK_EQ_INT((int)ravel_report_count(rep), 1);
        ravel_report_free(rep);
        ck->state_limit = 20000;
        CHECK_EQ_INT(ravel_check(ck, f, NULL, &rep), RAVEL_EINVAL);
        CHECK_EQ_INT((int)ravel_report_count(rep), 0);
        CHECK(ravel_report_ndiags(rep) == 1 && strstr(ravel_report_diag(rep, 0), "beyond the checker's limit") != NULL);
        ravel_report_free(rep);
        ravel_checker_free(ck);
        ck = ravel_checker_new();
        ck->state_limit = 20000;
        CHECK_EQ_INT(ravel_check(ck, f, NULL, NULL), RAVEL_EINVAL);
        CHECK(ck_memory(ck) <= 40u * 20000 + 256u * (f->insts.len + f->layout.len) + 65536);
        ravel_checker_free(ck);
        ravel_module_free(m);
    }
    ravel_diags_free(dg);
    free(src);
}

/* The state limit at its edge: the same nest with its error (depth 40)
 * takes T entries in the reference's two pools of states together
 * (ck->ref_states); with the limit at T it is decided (the same report),
 * at T - 1 it is refused. A limit that counted only one of the pools would
 * decide it at T - 1. */
TEST(state_limit_at_its_edge)
{
    char *src = spilled_nest(40);
    char *p = strstr(src, "X2:\n  r0 = reload s2");
    CHECK(p != NULL);
    if (p) p[strlen("X2:\n  r0 = reload s")] = '3';
    ravel_module *m = ravel_module_parse(src, strlen(src), "spilled_nest.ra", NULL);
    CHECK(m != NULL);
    if (m) {
        const ravel_func *f = ravel_module_func(m, 0);
        ravel_checker *ck = ravel_checker_new();
        ravel_report *rep = NULL;
        CHECK_EQ_INT(ravel_check(ck, f, NULL, &rep), RAVEL_EFAIL);
        char *want = report_text(rep);
        ravel_report_free(rep);
        uint64_t t = ck->ref_states;
        CHECK(t > 100 && t < 100000);
        ck->state_limit = (uint32_t)t;
        CHECK_EQ_INT(ravel_check(ck, f, NULL, &rep), RAVEL_EFAIL);
        char *got = report_text(rep);
        CHECK(want && got && !strcmp(want, got));
        CHECK_EQ_INT(ck->ref_states, t);
        free(got);
        ravel_report_free(rep);
        ck->state_limit = (uint32_t)t - 1;
        CHECK_EQ_INT(ravel_check(ck, f, NULL, &rep), RAVEL_EINVAL);
        CHECK(ravel_report_ndiags(rep) == 1 && strstr(ravel_report_diag(rep, 0), "beyond the checker's limit") != NULL);
        ravel_report_free(rep);
        free(want);
        ravel_checker_free(ck);
        ravel_module_free(m);
    }
    free(src);
}

/* The reference alone (the report's path) too. */
TEST(reference_on_deep_nests)
{
    for (int shape = 0; shape < 2; shape++) {
        uint64_t v = check_nest(24, shape, true, RAVEL_CHECK_REFERENCE, NULL);
        CHECK(v <= bound(24));
    }
}

/* The default pipeline gives the reports, explain dumps included, of the
 * reference alone (depth 8). */
TEST(reports_as_the_reference)
{
    for (int shape = 0; shape < 2; shape++) {
        char *a = NULL, *b = NULL;
        check_nest(8, shape, true, RAVEL_CHECK_EXPLAIN, &a);
        check_nest(8, shape, true, RAVEL_CHECK_REFERENCE | RAVEL_CHECK_EXPLAIN, &b);
        CHECK(a && b && strcmp(a, b) == 0);
        free(a);
        free(b);
    }
}

/* A chain of n copies of v0 in r0, then (reread) reads of v0 and vn in r0,
 * or (redefine) r0 written anew and only that read. */
static char *chain(int n, bool reread)
{
    text t = {malloc(256), 0, 256};
    if (!t.s) abort();
    put(&t, "machine\n  class int r0 r1\nend\n\nfunc f\nb0:\n  v0:int @r0 = const 1\n");
    for (int i = 1; i <= n; i++) put(&t, "  v%d:int @r0 = copy v%d @r0\n", i, i - 1);
    if (reread) put(&t, "  out v%d @r0\n  out v0 @r0\n", n);
    else put(&t, "  v%d:int @r0 = const 5\n  out v%d @r0\n", n + 1, n + 1);
    put(&t, "  ret\nend\n");
    return t.s;
}

/* Checks the chain with the sets limited to limit members (0: the
 * default); returns the status, *msg the report's text. The reference's
 * sets are what is limited: the value-numbering verdict (ck_vn.c), which
 * makes no sets, is off unless vn. */
static int check_chain_vn(int n, bool reread, uint32_t limit, char **msg, bool vn)
{
    char *src = chain(n, reread);
    ravel_diags *dg = ravel_diags_new();
    ravel_module *m = ravel_module_parse(src, strlen(src), "chain.ra", dg);
    CHECK(m != NULL);
    int rc = -1;
    if (m) {
        ravel_checker *ck = ravel_checker_new();
        ck->set_limit = limit;
        if (!vn) ravel_checker_set_options(ck, CK_OPT_NO_VN);
        ravel_report *rep = NULL;
        rc = ravel_check(ck, ravel_module_func(m, 0), NULL, &rep);
        *msg = report_text(rep);
        ravel_report_free(rep);
        ravel_checker_free(ck);
        ravel_module_free(m);
    }
    ravel_diags_free(dg);
    free(src);
    return rc;
}

static int check_chain(int n, bool reread, uint32_t limit, char **msg) { return check_chain_vn(n, reread, limit, msg, false); }

TEST(copy_chains_within_the_limit)
{
    char *msg = NULL;
    CHECK_EQ_INT(check_chain(300, true, 0, &msg), RAVEL_OK); /* 45,450 members: far below the default */
    free(msg);
    CHECK_EQ_INT(check_chain(300, true, 45450, &msg), RAVEL_OK); /* just enough */
    free(msg);
}

/* Copy i makes the set of i + 1 vregs: 45,149 members up to copy 299, so
 * with a limit of 45,300 only the last copy's set is not made. */
TEST(copy_chains_past_the_limit)
{
    char *msg = NULL;
    /* the reads of the location whose set was not made cannot be decided */
    CHECK_EQ_INT(check_chain(300, true, 45300, &msg), RAVEL_EINVAL);
    CHECK(msg && strstr(msg, "chain.ra: error: func f: beyond the checker's limit") && strstr(msg, "2 value errors not decided"));
    free(msg);
    CHECK_EQ_INT(check_chain(300, true, 45449, &msg), RAVEL_EINVAL);
    free(msg);
    CHECK_EQ_INT(check_chain(300, true, 20000, &msg), RAVEL_EINVAL); /* the chain's own reads fail from there on */
    free(msg);
    /* nothing read from it: the verdict stands */
    CHECK_EQ_INT(check_chain(300, false, 45300, &msg), RAVEL_OK);
    CHECK(msg && !strstr(msg, "error"));
    free(msg);
    /* the value-numbering verdict makes no sets: it proves the chain at any limit */
    CHECK_EQ_INT(check_chain_vn(300, true, 20000, &msg, true), RAVEL_OK);
    CHECK(msg && !strstr(msg, "error"));
    free(msg);
}

/* One block: a .ref value kept in s0, and n times a reload of it into
 * r1 then a safepoint listing s0 (r1 loses it). Each reload adds r1 to the
 * holders of .ref vregs, which every safepoint scans: the reference keeps
 * only the live holders (ck->ref_scans linear in n; it was quadratic). */
static uint64_t check_safepoints(int n, int *rc)
{
    text t = {malloc(256), 0, 256};
    if (!t.s) abort();
    put(&t, "machine\n  class int r0 r1\nend\n\nfunc f\nb0:\n  v0:int.ref fixed(r0) @r0 = args\n  s0 = spill r0\n");
    for (int i = 0; i < n; i++) put(&t, "  r1 = reload s0\n  call g safepoint stackmap(s0) clobbers()\n");
    put(&t, "  out v0 any @s0\n  ret\nend\n");
    ravel_diags *dg = ravel_diags_new();
    ravel_module *m = ravel_module_parse(t.s, t.len, "sp.ra", dg);
    CHECK(m != NULL);
    uint64_t scans = UINT64_MAX;
    if (m) {
        ravel_checker *ck = ravel_checker_new();
        ravel_checker_set_options(ck, RAVEL_CHECK_REFERENCE);
        *rc = ravel_check(ck, ravel_module_func(m, 0), NULL, NULL);
        scans = ck->ref_scans;
        ravel_checker_free(ck);
        ravel_module_free(m);
    }
    ravel_diags_free(dg);
    free(t.s);
    return scans;
}

TEST(safepoints_scan_live_holders_only)
{
    for (int n = 1000; n <= 8000; n *= 2) {
        int rc = -1;
        uint64_t scans = check_safepoints(n, &rc);
        CHECK_EQ_INT(rc, RAVEL_OK);
        if (scans > 8u * (uint64_t)n + 64) fprintf(stderr, "%d safepoints: %llu holder entries scanned\n", n, (unsigned long long)scans);
        CHECK(scans <= 8u * (uint64_t)n + 64);
    }
}

int main(void)
{
    RUN(deep_nests_cost_polynomial_work);
    RUN(spilled_nests_near_linear);
    RUN(spilled_nest_error_bounded);
    RUN(state_limit_at_its_edge);
    RUN(reference_on_deep_nests);
    RUN(reports_as_the_reference);
    RUN(copy_chains_within_the_limit);
    RUN(copy_chains_past_the_limit);
    RUN(safepoints_scan_live_holders_only);
    return TEST_SUMMARY();
}
