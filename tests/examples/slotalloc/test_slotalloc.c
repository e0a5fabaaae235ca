/* test_slotalloc.c - examples/slotalloc in process, on the public API only:
 * every generated function (ravel_gen_from_seed, seeds 1..N) on the random
 * machines and on a machine file is allocated by slotalloc_alloc and
 * ravel_check(alloc, orig) must accept it; declines stay under 1%. With a
 * planted bug (SLOTALLOC_BUG names, given in the config, not the
 * environment) ravel_check must reject some function within a bounded
 * number of seeds; the seed and the count are printed.
 *
 * usage: test_slotalloc clean N [MACHINE.ra]
 *        test_slotalloc bug NAME MAX [MACHINE.ra]
 * Exit 0 = pass. */
#include "slotalloc.h"

#include <ravel_gen.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ravel_module *read_machine(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(buf, n, path, d);
    if (ravel_diags_count(d)) ravel_diags_print(stderr, d);
    ravel_diags_free(d);
    return m;
}

/* One seed: RAVEL_OK (accepted), RAVEL_EDECLINED, RAVEL_EFAIL (rejected) or
 * another status (the allocator or the check failed: printed). */
static int one(ravel_checker *ck, const slotalloc_config *c, const ravel_gen_opts *o, uint64_t seed, int verbose)
{
    ravel_module *mod = ravel_gen_from_seed(seed, o);
    const ravel_func *f = ravel_module_func(mod, 0);
    ravel_func *alloc = NULL;
    char *msg = NULL;
    int rc = slotalloc_alloc((void *)c, f, seed, &alloc, &msg);
    if (rc == RAVEL_OK) {
        ravel_report *r = NULL;
        rc = ravel_check(ck, alloc, f, &r);
        ravel_report_free(r);
        r = NULL;
        if (rc != RAVEL_OK && verbose) { /* the full report (ck gives the verdict only) */
            ravel_checker *full = ravel_checker_new();
            ravel_check(full, alloc, f, &r);
            fprintf(stderr, "seed %llu: rejected:\n", (unsigned long long)seed);
            ravel_report_print(stderr, r);
            ravel_print_func(stderr, alloc);
            ravel_report_free(r);
            ravel_checker_free(full);
        }
        if (rc == RAVEL_EINVAL) rc = -100;
    } else if (rc != RAVEL_EDECLINED) {
        fprintf(stderr, "seed %llu: slotalloc failed (%d): %s\n", (unsigned long long)seed, rc, msg ? msg : "");
        rc = -100;
    }
    free(msg);
    ravel_func_free(alloc);
    ravel_module_free(mod);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_slotalloc clean N [MACHINE] | bug NAME MAX [MACHINE]\n");
        return 2;
    }
    int bug = !strcmp(argv[1], "bug");
    slotalloc_config c = {0, 0, 0, NULL};
    if (bug) {
        if (argc < 4) return 2;
        c.bug_reload = !strcmp(argv[2], "reload");
        c.bug_stackmap = !strcmp(argv[2], "stackmap");
        c.bug_clobber = !strcmp(argv[2], "clobber");
        if (!c.bug_reload && !c.bug_stackmap && !c.bug_clobber) return 2;
    }
    uint64_t n = strtoull(argv[bug ? 3 : 2], NULL, 10);
    const char *mfile = argc > (bug ? 4 : 3) ? argv[bug ? 4 : 3] : NULL;
    ravel_gen_opts o;
    ravel_gen_opts_default(&o);
    ravel_module *mm = NULL;
    if (mfile) {
        if (!(mm = read_machine(mfile))) {
            fprintf(stderr, "test_slotalloc: cannot read %s\n", mfile);
            return 1;
        }
        o.machine = ravel_module_machine(mm);
    }
    ravel_checker *ck = ravel_checker_new();
    ravel_checker_add_options(ck, RAVEL_CHECK_VERDICT_ONLY);
    uint64_t declined = 0, rejected = 0, failed = 0, seed;
    int status = 1;
    for (seed = 1; seed <= n; seed++) {
        int rc = one(ck, &c, &o, seed, !bug);
        declined += rc == RAVEL_EDECLINED;
        rejected += rc == RAVEL_EFAIL;
        failed += rc == -100;
        if (bug && rc == RAVEL_EFAIL) break;
        if (!bug && rc != RAVEL_OK && rc != RAVEL_EDECLINED && failed + rejected >= 3) break;
    }
    if (bug) {
        if (rejected) {
            printf("SLOTALLOC_BUG=%s%s%s: found at seed %llu, after %llu functions (%llu declined)\n", argv[2],
                   mfile ? " on " : "", mfile ? mfile : "", (unsigned long long)seed, (unsigned long long)seed,
                   (unsigned long long)declined);
            status = failed ? 1 : 0;
        } else {
            fprintf(stderr, "SLOTALLOC_BUG=%s: not found in %llu functions\n", argv[2], (unsigned long long)n);
        }
    } else {
        printf("%llu functions%s%s: %llu declined, %llu rejected, %llu failed\n", (unsigned long long)n,
               mfile ? " on " : "", mfile ? mfile : "", (unsigned long long)declined, (unsigned long long)rejected,
               (unsigned long long)failed);
        status = rejected || failed || declined * 100 >= n ? 1 : 0;
    }
    ravel_checker_free(ck);
    ravel_module_free(mm);
    return status;
}
