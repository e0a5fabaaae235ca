/* kit.c - the fuzzing kit (include/ravel_fuzz.h) on the fuzz library.
 *
 * A kit is an rv_fuzz context (checker reused across inputs, generator
 * options z->gen = the user's) and an rv_allocator entry {name, fn, user}
 * for the user's callback. One input is rv_fuzz_bytes_alloc on it: the
 * mapping of `ravel reduce --from-fuzz kit` (all bytes make the function,
 * their hash is the seed). On RV_FUZZ_BUG the kit's reproducer is the fuzz
 * library's (header, verdict, report, "#| " unallocated function, machine,
 * allocation) with two kit lines after its first line: the kit's name and
 * the `ravel reduce` command that regenerates the case.
 *
 * Invariants: k->repro is NULL or the last bug's text; counters count
 * ravel_fuzz_kit_check calls only (never the warm-up). Nothing here exits;
 * only ravel_fuzz_kit_run aborts, on a bug. */
#define _GNU_SOURCE /* open_memstream */
#include "ravel_fuzz.h"

#include "fuzz/campaign.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ravel_fuzz_kit {
    rv_fuzz *z;
    rv_allocator a; /* .name = name, .fn = the callback, .user */
    char *name;
    rv_fuzz_target target; /* RV_FT_ALLOC, or RV_FT_DIFFERENTIAL */
    char *repro;           /* malloc'd (open_memstream), or NULL */
    size_t repro_len;
    uint64_t executions, declined, bugs;
};

void ravel_fuzz_kit_opts_default(ravel_fuzz_kit_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->name = "user";
    ravel_gen_opts_default(&o->gen);
    o->warm_up = RV_FUZZ_WARM_UP_FUNCS;
}

ravel_fuzz_kit *ravel_fuzz_kit_new(const ravel_fuzz_kit_opts *o)
{
    if (!o || !o->alloc) return NULL;
    ravel_fuzz_kit *k = rv_xcalloc(1, sizeof *k);
    k->z = rv_fuzz_new();
    k->z->gen = o->gen;
    k->name = rv_xstrdup(o->name && *o->name ? o->name : "user");
    k->a.name = k->name;
    k->a.description = "a user's allocator (ravel_fuzz.h)";
    k->a.fn = o->alloc;
    k->a.user = o->user;
    k->target = (o->flags & RAVEL_FUZZ_KIT_DIFFERENTIAL) ? RV_FT_DIFFERENTIAL : RV_FT_ALLOC;
    rv_fuzz_warm_up_alloc(k->z, k->target, &k->a, o->warm_up);
    return k;
}

void ravel_fuzz_kit_free(ravel_fuzz_kit *k)
{
    if (!k) return;
    rv_fuzz_free(k->z);
    rv_free(k->name);
    rv_free(k->repro); /* open_memstream's */
    rv_free(k);
}

/* The generator options of `ravel reduce` that give o (those that differ
 * from the defaults), as command-line words. */
static void put_gen_options(FILE *fp, const rv_gen_opts *o)
{
    rv_gen_opts d;
    rv_gen_opts_default(&d);
    if (o->max_insts != d.max_insts) fprintf(fp, " --insts %u", o->max_insts);
    if (o->max_blocks != d.max_blocks) fprintf(fp, " --blocks %u", o->max_blocks);
    if (o->max_regs != d.max_regs) fprintf(fp, " --regs %u", o->max_regs);
    if (o->min_regs != d.min_regs) fprintf(fp, " --min-regs %u", o->min_regs);
    if (o->pressure != d.pressure) fprintf(fp, " --pressure %u", o->pressure);
    if (o->window != d.window) fprintf(fp, " --window %u", o->window);
    if (o->cfg != d.cfg) fprintf(fp, " --cfg %s", o->cfg == RV_GEN_CFG_STRUCTURED ? "structured" : "any");
    for (size_t i = 0; rv_gen_feature_name(i); i++) {
        unsigned bit = rv_gen_feature_bit(rv_gen_feature_name(i));
        if ((d.features & bit) && !(o->features & bit)) fprintf(fp, " --no-%s", rv_gen_feature_name(i));
        if (!(d.features & bit) && (o->features & bit)) fprintf(fp, " --with-%s", rv_gen_feature_name(i));
    }
}

/* k->repro := the library's reproducer with the kit's lines after its
 * first line. */
static void make_repro(ravel_fuzz_kit *k)
{
    const rv_fuzz *z = k->z;
    rv_free(k->repro);
    k->repro = NULL;
    k->repro_len = 0;
    FILE *fp = open_memstream(&k->repro, &k->repro_len);
    if (!fp) rv_oom();
    const char *text = z->repro ? z->repro : "# ravel fuzz reproducer\n";
    size_t len = z->repro ? z->repro_len : strlen(text);
    const char *nl = memchr(text, '\n', len);
    size_t first = nl ? (size_t)(nl - text) + 1 : len;
    fwrite(text, 1, first, fp);
    fprintf(fp, "# kit: %s (include/ravel_fuzz.h)%s\n", k->name,
            k->target == RV_FT_DIFFERENTIAL ? ", differential" : "");
    if (z->gen.machine) /* the report is printed, not written: the fuzzer keeps only the input */
        fputs("# THIS_FILE: this report saved to a file (the fuzzer printed it before the crash; its machine is yours)\n", fp);
    fputs("# regenerate and reduce from the crash input: ravel reduce", fp);
    if (z->gen.machine) fputs(" --machine THIS_FILE", fp);
    put_gen_options(fp, &z->gen);
    fputs(" --alloc-cmd 'YOUR_ALLOCATOR_COMMAND' --from-fuzz kit CRASH_INPUT\n", fp);
    fwrite(text + first, 1, len - first, fp);
    if (fclose(fp) != 0) rv_oom();
}

int ravel_fuzz_kit_check(ravel_fuzz_kit *k, const uint8_t *data, size_t size)
{
    if (!k || (!data && size)) return RAVEL_EINVAL;
    if (!data) data = (const uint8_t *)"";
    k->executions++;
    int r = rv_fuzz_bytes_alloc(k->z, k->target, &k->a, data, size);
    if (r == RV_FUZZ_BUG) {
        k->bugs++;
        make_repro(k);
        return RAVEL_EFAIL;
    }
    if (r == RV_FUZZ_SKIP && k->z->declined) k->declined++;
    return RAVEL_OK;
}

const char *ravel_fuzz_kit_reproducer(const ravel_fuzz_kit *k, size_t *len)
{
    if (len) *len = k && k->repro ? k->repro_len : 0;
    return k ? k->repro : NULL;
}

int ravel_fuzz_kit_run(ravel_fuzz_kit *k, const uint8_t *data, size_t size)
{
    if (!k) {
        fputs("ravel_fuzz_kit_run: no kit (ravel_fuzz_kit_new returned NULL: opts.alloc missing?)\n", stderr);
        abort();
    }
    if (ravel_fuzz_kit_check(k, data, size) != RAVEL_EFAIL) return 0;
    fflush(stdout);
    fputs("==== ravel: bug found; reproducer follows ====\n", stderr);
    fwrite(k->repro, 1, k->repro_len, stderr);
    fputs("==== end of reproducer ====\n", stderr);
    fflush(stderr);
    abort();
}

uint64_t ravel_fuzz_kit_executions(const ravel_fuzz_kit *k) { return k ? k->executions : 0; }
uint64_t ravel_fuzz_kit_declined(const ravel_fuzz_kit *k) { return k ? k->declined : 0; }
uint64_t ravel_fuzz_kit_bugs(const ravel_fuzz_kit *k) { return k ? k->bugs : 0; }
