/* test_campaign_fail.c - a campaign whose only failures are an allocator's
 * wrong allocations (no crash, no hang) still fails: rv_campaign_run returns
 * 1 (`ravel fuzz` exits 1), with the failures counted, nothing counted as a
 * crash or as a checker miss; a correct allocator alone returns 0, and the
 * oracle's checker misses are never counted as its failures; with --paths,
 * differences between the checker's paths alone fail it too. */
#define _DEFAULT_SOURCE
#include "fuzz/campaign.h"
#include "tests/test.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

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

/* A planted checker-path difference (rv_campaign_opts.paths_agree): the
 * comparison finds one on every allocation with an even number of
 * operands, and nothing else is wrong. */
static bool planted_paths_differ(const ravel_func *alloc, const ravel_func *orig, int *ref_status, char *msg,
                                 size_t msglen)
{
    (void)orig;
    *ref_status = RAVEL_OK;
    snprintf(msg, msglen, "planted: the fast path's report differs");
    return alloc->ops.len % 2 != 0;
}

/* A --paths campaign of a correct allocator with comparison agree (NULL:
 * the real one); *files: how many of its reproducers are checker-paths
 * cases that name the difference. */
static int campaign_paths(rv_fuzz_paths_fn agree, bool oracle, rv_campaign_result *r, unsigned *files)
{
    const rv_allocator good[] = {rv_allocators[0], {.name = NULL}};
    char dir[] = "/tmp/ravel-fuzz-paths-XXXXXX";
    if (!mkdtemp(dir)) return -1;
    rv_campaign_opts o;
    rv_campaign_opts_default(&o);
    o.table = good;
    o.seed = 11;
    o.count = 12;
    o.jobs = 1;
    o.paths = true;
    o.oracle = oracle;
    o.paths_agree = agree;
    o.outdir = dir;
    o.gen.max_insts = 40;
    int rc = rv_campaign_run(&o, r);
    *files = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[512], text[4096] = "";
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *fp = strncmp(e->d_name, "checker-paths-", 14) == 0 ? fopen(path, "r") : NULL;
        if (!fp) continue;
        size_t n = fread(text, 1, sizeof text - 1, fp);
        text[n] = 0;
        fclose(fp);
        *files += strstr(text, "a checker path differs") && strstr(text, "planted: the fast path") ? 1 : 0;
    }
    if (d) closedir(d);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) rc = -1;
    return rc;
}

/* `ravel fuzz --paths` fails (exit 1) on differences between the checker's
 * paths alone: no allocator failure, no oracle miss, no crash. */
TEST(path_differences_alone_fail_the_campaign)
{
    for (int oracle = 0; oracle < 2; oracle++) {
        rv_campaign_result r;
        unsigned files = 0;
        CHECK_EQ_INT(campaign_paths(planted_paths_differ, oracle, &r, &files), 1);
        CHECK(r.per[0].pathdiffs > 0);
        CHECK(r.per[0].pathdiffs < r.per[0].funcs); /* the planted comparison agrees on some */
        CHECK_EQ_INT(r.per[0].fails, 0);
        CHECK_EQ_INT(r.per[0].misses, 0);
        CHECK_EQ_INT(r.crashes, 0);
        CHECK(files > 0);
        /* the same campaign with the real comparison: nothing differs */
        CHECK_EQ_INT(campaign_paths(NULL, oracle, &r, &files), 0);
        CHECK_EQ_INT(r.per[0].pathdiffs, 0);
        CHECK_EQ_INT(files, 0);
    }
}

int main(void)
{
    RUN(path_differences_alone_fail_the_campaign);
    RUN(checker_misses_are_not_allocator_failures);
    RUN(wrong_allocations_fail_the_campaign);
    RUN(correct_allocator_passes);
    return TEST_SUMMARY();
}
