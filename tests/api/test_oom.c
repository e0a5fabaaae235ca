/* test_oom.c - out of memory is an error status, not an abort: each entry
 * point a JIT calls (ravel_module_parse, ravel_validate, ravel_allocate
 * with every allocator, ravel_check) is run with its n-th allocation
 * failing, for every n until the call needs fewer (rv_fail_alloc_after).
 * Every failure must give RAVEL_ENOMEM (NULL for the parser), leave the
 * caller's objects as they were (the diagnostics, the checker context,
 * which must then give the same result as a fresh one; ravel_check also
 * with report NULL), and leak nothing
 * (the sanitizer builds run LeakSanitizer at exit). */
#define _POSIX_C_SOURCE 200809L
#include "fuzz/gen.h"
#include "ir/ir.h"
#include "tests/checker/report_text.h"
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>

/* A loop, a call, a join with parameters: the allocators' usual work. */
static const char src[] =
    "machine\n  class int r0 r1 r2\n  clobbers r0\nend\n"
    "func f\nb0:\n  v0:int, v1:int = args\n  jump b1(v0)\n"
    "b1(v2:int):\n  v3:int = add v2, v1\n  v4:int = call v3\n  v5:int = lt v4, v1\n  br v5, b2, b3\n"
    "b2:\n  jump b1(v4)\n"
    "b3:\n  out v3\n  ret v4\nend\n";

static const char bad_text[] = "machine\n  class int r0\nend\nfunc f\nb0:\n  v0:int = args\n  @@@ v0\nend\n";
/* docs/format.md section 14: alias lines (a cycle in the bad one), undef, remat */
static const char ext_text[] = "machine\n  class int r0 r1 r2 r3\n  alias r0 r1 r2\n  alias r1 r2\nend\n"
                               "func f\nb0:\n  v0:int @r3 = args\n  v1:int any @s2 = undef\n  r0 = remat 0xffffffffffffffff clobbers(r2 r1)\n"
                               "  ret v0 @r3\nend\n";
static const char ext_bad[] = "machine\n  class int r0 r1 r2 r3\n  alias r0 r1 r2\n  alias r1 r2\n  alias r2 r0\nend\n"
                              "func f\nb0:\n  ret\nend\n";

static ravel_module *parse_ok(const char *text)
{
    ravel_module *m = ravel_module_parse(text, strlen(text), "t.ra", NULL);
    CHECK(m != NULL);
    return m;
}

TEST(parse)
{
    for (int w = 0; w < 4; w++) {
        int which = w & 1; /* 1: an error expected */
        const char *text = w == 0 ? src : w == 1 ? bad_text : w == 2 ? ext_text : ext_bad;
        uint64_t n = 1, failures = 0;
        for (;; n++) {
            ravel_diags *d = ravel_diags_new();
            rv_fail_alloc_after(n);
            ravel_module *m = ravel_module_parse(text, strlen(text), "t.ra", d);
            bool failed = (which == 0 && !m) || (which == 1 && ravel_diags_count(d) == 0);
            rv_fail_alloc_after(0);
            if (failed) { /* out of memory: nothing new in d */
                CHECK(m == NULL);
                CHECK_EQ_INT((int)ravel_diags_count(d), 0);
                failures++;
            }
            ravel_module_free(m);
            ravel_diags_free(d);
            if (!failed || n > 100000 || test_failed_) break;
        }
        printf("ravel_module_parse (%s): NULL at each of %llu allocations\n", which ? "an error" : "valid",
               (unsigned long long)failures);
        CHECK(failures > 10);
        CHECK(n < 100000);
    }
}

TEST(validate)
{
    ravel_module *m = parse_ok(src);
    /* not SSA (v1 defined twice): diagnostics */
    ravel_module *u = parse_ok("machine\n  class int r0\nend\nfunc f\nb0:\n  v0:int = args\n  v1:int = add v0, v0\n"
                               "  v1:int = add v1, v0\n  ret v1\nend\n");
    const ravel_func *fs[2] = {ravel_module_func(m, 0), ravel_module_func(u, 0)};
    for (int k = 0; k < 2; k++) {
        ravel_diags *d0 = ravel_diags_new();
        int want = ravel_validate(fs[k], RAVEL_VALIDATE_SSA, d0);
        size_t nd = ravel_diags_count(d0);
        ravel_diags_free(d0);
        uint64_t failures = 0, n;
        for (n = 1; n < 100000; n++) {
            ravel_diags *d = ravel_diags_new();
            rv_diag_error(d, "x.ra", NULL, 0, 1, 1, "a diagnostic from before");
            rv_fail_alloc_after(n);
            int rc = ravel_validate(fs[k], RAVEL_VALIDATE_SSA, d);
            rv_fail_alloc_after(0);
            if (rc == RAVEL_ENOMEM) {
                CHECK_EQ_INT((int)ravel_diags_count(d), 1);
                failures++;
            } else {
                CHECK_EQ_INT(rc, want);
                CHECK_EQ_INT((int)ravel_diags_count(d), (int)nd + 1);
            }
            ravel_diags_free(d);
            if (rc != RAVEL_ENOMEM) break;
        }
        CHECK(n < 100000);
        printf("ravel_validate (%s): RAVEL_ENOMEM at each of %llu allocations\n", k ? "errors" : "valid",
               (unsigned long long)failures);
        if (k == 1) CHECK(failures > 0);
    }
    ravel_module_free(m);
    ravel_module_free(u);
}

TEST(allocate)
{
    rv_gen_opts go;
    rv_gen_opts_default(&go);
    go.max_insts = 150; /* (hundreds of blocks live at once: the region's set grows under a failure too) */
    go.features = RV_GEN_ALL; /* (a machine every allocator takes: color runs on it) */
    ravel_module *gm = rv_gen_from_seed(5, &go);
    ravel_module *u = parse_ok(src);
    for (size_t a = 0; ravel_allocator_name(a) || a < 7; a++) {
        const ravel_func *f = ravel_module_func(ravel_allocator_name(a) ? u : gm, 0);
        const char *name = ravel_allocator_name(a) ? ravel_allocator_name(a) : a == 5 ? "linear" : "color";
        ravel_func *want = NULL;
        CHECK_EQ_INT(ravel_allocate(name, f, 3, &want, NULL), RAVEL_OK);
        uint64_t failures = 0, n;
        for (n = 1; n < 1000000; n++) {
            ravel_func *g = (ravel_func *)1;
            char *err = NULL;
            rv_fail_alloc_after(n);
            int rc = ravel_allocate(name, f, 3, &g, &err);
            rv_fail_alloc_after(0);
            if (rc == RAVEL_ENOMEM) {
                CHECK(g == NULL);
                CHECK(err == NULL);
                failures++;
                continue;
            }
            CHECK_EQ_INT(rc, RAVEL_OK);
            /* the same allocation as without a failure */
            char *a_txt = NULL, *b_txt = NULL;
            size_t la = 0, lb = 0;
            FILE *fa = open_memstream(&a_txt, &la), *fb = open_memstream(&b_txt, &lb);
            ravel_print_func(fa, want);
            ravel_print_func(fb, g);
            fclose(fa);
            fclose(fb);
            CHECK(la == lb && memcmp(a_txt, b_txt, la) == 0);
            free(a_txt);
            free(b_txt);
            ravel_func_free(g);
            free(err);
            break;
        }
        printf("ravel_allocate %s (%s): RAVEL_ENOMEM at each of %llu allocations, then the same output\n", name,
               f == ravel_module_func(u, 0) ? "small" : "generated", (unsigned long long)failures);
        CHECK(failures >= 20);
        CHECK(n < 1000000);
        ravel_func_free(want);
    }
    ravel_module_free(u);
    ravel_module_free(gm);
}

/* A new context per failure point (all its scratch still to grow); after
 * RAVEL_ENOMEM the same context, unfailed, must give the report a fresh
 * one gives. */
TEST(check)
{
    ravel_module *u = parse_ok(src);
    ravel_func *good = NULL;
    CHECK_EQ_INT(ravel_allocate("linear", ravel_module_func(u, 0), 1, &good, NULL), RAVEL_OK);
    /* wrong: v1 read from r0 after the call clobbered it */
    ravel_module *w = parse_ok("machine\n  class int r0 r1\n  clobbers r0\nend\nfunc f\nb0:\n"
                               "  v0:int @r0, v1:int @r1 = args\n  r0 = move r1\n  v2:int @r1 = call g v0 @r1\n"
                               "  v3:int @r1 = add v2 @r1, v1 @r0\n  ret v3 @r1\nend\n");
    const ravel_func *fs[2] = {good, ravel_module_func(w, 0)};
    static const unsigned opts[3] = {0, RAVEL_CHECK_REFERENCE, RAVEL_CHECK_EXPLAIN};
    for (int k = 0; k < 2; k++)
        for (int o = 0; o < 3; o++) {
            ravel_checker *fresh = ravel_checker_new();
            ravel_checker_set_options(fresh, opts[o]);
            ravel_report *want = NULL;
            int want_rc = ravel_check(fresh, fs[k], k == 0 ? ravel_module_func(u, 0) : NULL, &want);
            char *want_txt = report_text(want);
            uint64_t failures = 0, n;
            for (n = 1; n < 200000 && !test_failed_; n++) {
                /* odd n: the failing call wants only the status (report NULL:
                 * the context's own report, check.c), then a report */
                bool quiet = n & 1;
                ravel_checker *ck = ravel_checker_new(); /* (cold: every scratch buffer still to grow) */
                ravel_checker_set_options(ck, opts[o]);
                ravel_report *rep = (ravel_report *)1;
                rv_fail_alloc_after((n + 1) / 2);
                int rc = ravel_check(ck, fs[k], k == 0 ? ravel_module_func(u, 0) : NULL, quiet ? NULL : &rep);
                rv_fail_alloc_after(0);
                bool oom = rc == RAVEL_ENOMEM;
                if (!oom && quiet) CHECK_EQ_INT(rc, want_rc);
                if (oom || quiet) {
                    CHECK(quiet ? rep == (ravel_report *)1 : rep == NULL);
                    failures += oom;
                    rc = ravel_check(ck, fs[k], k == 0 ? ravel_module_func(u, 0) : NULL, &rep); /* reusable */
                }
                CHECK_EQ_INT(rc, want_rc);
                char *txt = report_text(rep);
                CHECK(strcmp(txt, want_txt) == 0);
                free(txt);
                ravel_report_free(rep);
                ravel_checker_free(ck);
                if (!oom && !quiet) break;
            }
            printf("ravel_check (%s, options %u): RAVEL_ENOMEM at each of %llu allocations, then the same report\n",
                   k ? "errors" : "correct", opts[o], (unsigned long long)failures);
            CHECK(failures >= 5);
            CHECK(n < 200000);
            free(want_txt);
            ravel_report_free(want);
            ravel_checker_free(fresh);
        }
    ravel_func_free(good);
    ravel_module_free(u);
    ravel_module_free(w);
}

int main(void)
{
    RUN(check);
    RUN(parse);
    RUN(validate);
    RUN(allocate);
    return TEST_SUMMARY();
}
