/* test_campaign_fail.c - a campaign whose only failures are an allocator's
 * wrong allocations (no crash, no hang) still fails: rv_campaign_run returns
 * 1 (`ravel fuzz` exits 1), with the failures counted, nothing counted as a
 * crash or as a checker miss; a correct allocator alone returns 0, and the
 * oracle's checker misses are never counted as its failures. */
#define _DEFAULT_SOURCE
#include "fuzz/campaign.h"
#include "tests/test.h"

#include <stdlib.h>

/* Every operand in register 0: wrong as soon as two values are live. */
static ravel_func *all_in_r0(const ravel_func *f, const rv_alloc_opts *o, char **err)
{
    ravel_func *out = rv_allocators[0].run(f, o, err);
    for (uint32_t i = 0; out && i < out->ops.len; i++) out->ops.data[i].loc = 0;
    return out;
}

static int campaign_kind(const rv_allocator *table, bool oracle, int kind, rv_campaign_result *r)
{
    char dir[] = "/tmp/ravel-fuzz-fail-XXXXXX";
    if (!mkdtemp(dir)) return -1;
    rv_campaign_opts o;
    rv_campaign_opts_default(&o);
    o.table = table;
    o.seed = 11;
    o.count = 12;
    o.jobs = 1;
    o.oracle = oracle;
    o.inject_kind = kind;
    o.outdir = dir;
    o.gen.max_insts = 40;
    int rc = rv_campaign_run(&o, r);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) rc = -1;
    return rc;
}

static int campaign(const rv_allocator *table, bool oracle, rv_campaign_result *r)
{
    return campaign_kind(table, oracle, -1, r);
}

TEST(wrong_allocations_fail_the_campaign)
{
    const rv_allocator bad[] = {{.name = "all_in_r0", .description = "planted bug", .run = all_in_r0}, {.name = NULL}};
    rv_campaign_result r;
    CHECK_EQ_INT(campaign(bad, false, &r), 1);
    CHECK(r.per[0].fails > 0);
    CHECK_EQ_INT(r.crashes, 0);
    CHECK_EQ_INT(r.per[0].misses, 0);
    /* with the oracle on: allocator failures are still failures, not checker misses */
    CHECK_EQ_INT(campaign(bad, true, &r), 1);
    CHECK(r.per[0].fails > 0);
    CHECK_EQ_INT(r.per[0].misses, 0);
    CHECK_EQ_INT(r.crashes, 0);
}

TEST(correct_allocator_passes)
{
    const rv_allocator good[] = {rv_allocators[0], {.name = NULL}};
    rv_campaign_result r;
    CHECK_EQ_INT(campaign(good, true, &r), 0);
    CHECK_EQ_INT(r.per[0].fails, 0);
    CHECK_EQ_INT(r.per[0].funcs, 12);
    CHECK(r.per[0].oracle_tried > 0); /* the oracle worked */
    CHECK_EQ_INT(r.per[0].oracle_tried >= r.per[0].oracle_rejected + r.per[0].oracle_accepted, 1);
}

/* The oracle's finds are checker misses, never the allocator's failures:
 * a correct allocator has 0 failures whatever the oracle finds, and the
 * campaign fails exactly when it finds a miss (smap-nonref: a kind whose
 * misses the checker has had, reproducers/inject-smap-nonref-*.ra). */
TEST(checker_misses_are_not_allocator_failures)
{
    const rv_allocator good[] = {rv_allocators[0], {.name = NULL}};
    int kinds[] = {-1, rv_inject_find("smap-nonref")};
    for (unsigned q = 0; q < 2; q++) {
        rv_campaign_result r;
        int rc = campaign_kind(good, true, kinds[q], &r);
        CHECK_EQ_INT(r.per[0].fails, 0);
        CHECK_EQ_INT(r.crashes, 0);
        CHECK_EQ_INT(rc, r.per[0].misses ? 1 : 0);
    }
}

int main(void)
{
    RUN(checker_misses_are_not_allocator_failures);
    RUN(wrong_allocations_fail_the_campaign);
    RUN(correct_allocator_passes);
    return TEST_SUMMARY();
}
