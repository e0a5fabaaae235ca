/* test_quiet.c - a check whose caller wants only the status (ravel_check
 * with report NULL: the context fills its own report and empties it,
 * check.c) against a check with a report, on many random functions:
 * generated ones (with and without the switches of docs/format.md section
 * 14), allocated by every allocator, each with every kind of the injection
 * catalogue and unchanged, checked with and without the original. One
 * context checks quietly throughout (its report reused thousands of
 * times), a second one with reports. The status must be the same; right
 * after each quiet check the quiet context, asked for a report, must give
 * the report text of the other (nothing of the quiet report left behind).
 * Fails on any difference, or if no check passed or none failed.
 * Usage: test_quiet [NFUNCS] */
#define _POSIX_C_SOURCE 200809L
#include "fuzz/gen.h"
#include "inject/inject.h"
#include "ir/ir.h"
#include "tests/checker/report_text.h"
#include "tests/support/each.h"

#include <stdlib.h>
#include <string.h>

typedef struct stats {
    unsigned long long checks, ok, failed, differ;
} stats;

static void one(ravel_checker *quiet, ravel_checker *loud, const ravel_func *h, const ravel_func *orig, stats *st)
{
    ravel_report *want = NULL, *got = NULL;
    int q = ravel_check(quiet, h, orig, NULL);
    int w = ravel_check(loud, h, orig, &want);
    int g = ravel_check(quiet, h, orig, &got);
    char *wt = report_text(want), *gt = report_text(got);
    st->checks++;
    st->ok += w == RAVEL_OK;
    st->failed += w != RAVEL_OK;
    if (q != w || g != w || !wt || !gt || strcmp(wt, gt) != 0) {
        if (st->differ++ < 5)
            fprintf(stderr, "differ: quiet %d, with a report %d / %d\n--- want:\n%s--- got:\n%s", q, w, g, wt ? wt : "",
                    gt ? gt : "");
    }
    free(wt);
    free(gt);
    ravel_report_free(want);
    ravel_report_free(got);
}

int main(int argc, char **argv)
{
    int nfuncs = argc > 1 ? atoi(argv[1]) : 24;
    rv_inject_kind kinds[RV_INJ_COUNT_];
    for (unsigned k = 0; k < RV_INJ_COUNT_; k++) kinds[k] = (rv_inject_kind)k;
    ravel_checker *quiet = ravel_checker_new(), *loud = ravel_checker_new();
    stats st = {0, 0, 0, 0};
    for (int i = 0; i < nfuncs; i++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = 20 + (uint32_t)(i % 6) * 40;
        if (i % 3 == 2) o.features |= RV_GEN_ALIAS | RV_GEN_UNDEF | RV_GEN_REMAT;
        ravel_module *mod = rv_gen_from_seed(7100 + (uint64_t)i, &o);
        const ravel_func *f = ravel_module_func(mod, 0);
        for (ts_allocs a = ts_allocs_of(f, (uint64_t)i); ts_allocs_next(&a);)
            for (ts_injs j = ts_injs_of(a.g, kinds, RV_INJ_COUNT_, (uint64_t)i * 31 + a.index, true); ts_injs_next(&j);)
                one(quiet, loud, j.h, (i + (int)j.kind) % 2 ? f : NULL, &st);
        ravel_module_free(mod);
    }
    printf("%llu checks (%llu verified, %llu not): %llu differ between a quiet check and one with a report\n", st.checks,
           st.ok, st.failed, st.differ);
    ravel_checker_free(quiet);
    ravel_checker_free(loud);
    return st.differ != 0 || !st.ok || !st.failed;
}
