/* mutation.c - the checker's mutation table (mutation.h). */
#define _POSIX_C_SOURCE 200809L
#include "fuzz/mutation.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static uint64_t cpu_nanos(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void rv_mutation_opts_default(rv_mutation_opts *o)
{
    memset(o, 0, sizeof *o);
    o->nfuncs = 100;
    o->trials = 5;
    o->max_execs = 20000;
    o->inject_permille = 500;
    rv_gen_opts_default(&o->gen);
}

static bool write_miss_file(const rv_mutation_opts *o, const rv_fuzz *z, const char *alloc, rv_inject_kind k,
                            uint64_t n)
{
    if (!o->outdir || !z->repro) return true;
    char path[4096];
    snprintf(path, sizeof path, "%s/miss-%s-%s-%" PRIu64 ".ra", o->outdir, alloc, rv_inject_info_of(k)->name, n);
    FILE *fp = fopen(path, "wb");
    bool ok = fp && fwrite(z->repro, 1, z->repro_len, fp) == z->repro_len;
    if (fp && fclose(fp) != 0) ok = false;
    if (o->progress) fprintf(o->progress, "MISSED: %s\n", ok ? path : "(could not write the case)");
    return ok;
}

/* Part 1: every kind on every accepted allocation of every function. */
static void table(const rv_mutation_opts *o, rv_mutation_result *r, rv_fuzz *z)
{
    for (unsigned a = 0; a < r->nalloc; a++) {
        const rv_allocator *al = rv_allocator_find(r->names[a]);
        for (uint32_t n = 0; n < o->nfuncs; n++) {
            uint64_t seed = rv_campaign_iter_seed(o->seed, n);
            ravel_module *mod = rv_gen_from_seed(seed, &o->gen);
            const ravel_func *f = ravel_module_func(mod, 0);
            rv_alloc_opts ao = {.seed = seed};
            char *err = NULL;
            ravel_func *out = al->run(f, &ao, &err);
            rv_free(err);
            if (!out || ravel_check(z->ck, out, f, NULL) != RAVEL_OK) {
                r->skipped[a]++;
            } else {
                r->funcs[a]++;
                for (unsigned k = 0; k < RV_INJ_COUNT_; k++) {
                    rv_fuzz_mutant m;
                    rv_fuzz_mutant_judge(z, f, out, al, (rv_inject_kind)k, rv_hash64(seed + k), &m);
                    rv_mutation_row *w = &r->rows[a][k];
                    w->injected++;
                    if (m.status != RV_INJ_CHANGED) continue;
                    w->changed++;
                    w->different += m.different;
                    w->detected += m.rejected;
                    w->expected += m.rejected && m.expected;
                    if (m.different && !m.rejected) {
                        w->missed++;
                        r->missed++;
                        write_miss_file(o, z, r->names[a], (rv_inject_kind)k, n);
                    }
                }
            }
            ravel_func_free(out);
            ravel_module_free(mod);
        }
        if (o->progress) fprintf(o->progress, "mutation table: %s: %" PRIu64 " functions\n", r->names[a], r->funcs[a]);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Part 2: simulated `ravel fuzz --oracle` campaigns; first detection of
 * each kind. */
static void time_to_find(const rv_mutation_opts *o, rv_mutation_result *r)
{
    double first[RV_INJ_COUNT_][64];
    unsigned trials = o->trials < 64 ? o->trials : 64;
    uint64_t nanos = 0;
    for (unsigned t = 0; t < trials; t++) {
        rv_fuzz *z = rv_fuzz_new();
        z->inject_permille = o->inject_permille;
        for (unsigned k = 0; k < RV_INJ_COUNT_; k++) first[k][t] = -1;
        unsigned left = RV_INJ_COUNT_;
        uint64_t execs = 0, t0 = cpu_nanos();
        for (uint64_t i = 0; left && execs < o->max_execs; i++) {
            uint64_t seed = rv_campaign_iter_seed(o->seed + 1 + t, i);
            ravel_module *mod = rv_gen_from_seed(seed, &o->gen);
            const ravel_func *f = ravel_module_func(mod, 0);
            for (unsigned a = 0; a < r->nalloc && execs < o->max_execs; a++) {
                rv_fuzz_alloc(z, f, rv_allocator_find(r->names[a]), seed, RV_FUZZ_ORACLE);
                execs++;
                for (unsigned k = 0; k < RV_INJ_COUNT_; k++)
                    if (first[k][t] < 0 && z->oracle_kinds[k][RV_ORC_REJECTED]) first[k][t] = (double)execs, left--;
            }
            ravel_module_free(mod);
        }
        nanos += cpu_nanos() - t0;
        r->total_execs += execs;
        rv_fuzz_free(z);
        if (o->progress) fprintf(o->progress, "time to find: trial %u: %" PRIu64 " executions\n", t + 1, execs);
    }
    r->trials = trials;
    r->exec_us = r->total_execs ? nanos / 1e3 / r->total_execs : 0;
    for (unsigned k = 0; k < RV_INJ_COUNT_ && trials; k++) {
        double v[64];
        for (unsigned t = 0; t < trials; t++) {
            v[t] = first[k][t] < 0 ? 1e300 : first[k][t]; /* not found: larger than any */
            r->found[k] += first[k][t] >= 0;
        }
        qsort(v, trials, sizeof *v, cmp_double);
        double med = trials % 2 ? v[trials / 2] : (v[trials / 2 - 1] + v[trials / 2]) / 2;
        r->median_execs[k] = med >= 1e300 / 2 ? -1 : med;
    }
}

int rv_mutation_run(const rv_mutation_opts *o, rv_mutation_result *r)
{
    memset(r, 0, sizeof *r);
    for (size_t i = 0; rv_allocators[i].name && r->nalloc < RV_CAMPAIGN_MAX_ALLOCS; i++)
        if (!o->allocator || strcmp(o->allocator, rv_allocators[i].name) == 0) r->names[r->nalloc++] = rv_allocators[i].name;
    if (!r->nalloc) return 2;
    struct stat st;
    bool made = o->outdir && stat(o->outdir, &st) != 0; /* created here: removed below if it stays empty */
    if (o->outdir && mkdir(o->outdir, 0777) != 0 && errno != EEXIST) return 2;
    r->max_execs = o->max_execs;
    r->inject_permille = o->inject_permille;
    uint64_t t0 = cpu_nanos();
    rv_fuzz *z = rv_fuzz_new();
    table(o, r, z);
    rv_fuzz_free(z);
    if (o->trials) time_to_find(o, r);
    r->seconds = (cpu_nanos() - t0) / 1e9;
    if (made) rmdir(o->outdir); /* (fails, as it should, when a miss was written) */
    return r->missed ? 1 : 0;
}

static void pct(char *buf, size_t n, uint64_t x, uint64_t of)
{
    if (of) snprintf(buf, n, "%" PRIu64 " (%.0f%%)", x, 100.0 * x / of);
    else snprintf(buf, n, "0");
}

void rv_mutation_print(FILE *out, const rv_mutation_opts *o, const rv_mutation_result *r)
{
    rv_gen_opts def;
    rv_gen_opts_default(&def);
    fprintf(out, "Functions: `ravel fuzz --seed %" PRIu64 "` iterations 0..%u (generator defaults", o->seed,
            o->nfuncs ? o->nfuncs - 1 : 0);
    for (size_t i = 0; rv_gen_feature_name(i); i++) { /* the switches --with-/--no- changed */
        unsigned bit = rv_gen_feature_bit(rv_gen_feature_name(i));
        if ((o->gen.features & bit) != (def.features & bit))
            fprintf(out, ", --%s-%s", (o->gen.features & bit) ? "with" : "no", rv_gen_feature_name(i));
    }
    fprintf(out, ")");
    for (unsigned a = 0; a < r->nalloc; a++)
        fprintf(out, "%s %s %" PRIu64 " allocations accepted (%" PRIu64 " skipped)", a ? "," : ";", r->names[a],
                r->funcs[a], r->skipped[a]);
    fprintf(out, ". Each allocation is corrupted once per kind.\n\n");
    fprintf(out, "| kind | allocator | injected | changed | different | detected | expected error | MISSED |\n");
    fprintf(out, "|---|---|--:|--:|--:|--:|--:|--:|\n");
    for (unsigned k = 0; k < RV_INJ_COUNT_; k++) {
        const rv_inject_info *in = rv_inject_info_of((rv_inject_kind)k);
        for (unsigned a = 0; a < r->nalloc; a++) {
            const rv_mutation_row *w = &r->rows[a][k];
            char ch[32], df[32], de[32], ex[32];
            pct(ch, sizeof ch, w->changed, w->injected);
            pct(df, sizeof df, w->different, w->changed);
            pct(de, sizeof de, w->detected, w->changed);
            pct(ex, sizeof ex, w->expected, w->detected);
            fprintf(out, "| %s%s%s | %s | %" PRIu64 " | %s | %s | %s | %s | **%" PRIu64 "** |\n", a ? "" : "`",
                    a ? "" : in->name, a ? "" : "`", r->names[a], w->injected, ch, df, de,
                    (in->flags & RV_INJF_GENERIC) ? "-" : ex, w->missed);
        }
    }
    fprintf(out, "\nMissed in total: **%" PRIu64 "**.\n", r->missed);
    if (!r->trials) return;
    fprintf(out,
            "\nTime to find each kind with `ravel fuzz --oracle --inject-prob %.2f` (all allocators, one core): "
            "executions until the checker first rejects an allocation corrupted with the kind, median of %u "
            "campaigns (seeds %" PRIu64 "..%" PRIu64 ", at most %" PRIu64 " executions each), times %.0f us, the "
            "mean CPU time of one execution.\n\n",
            r->inject_permille / 1000.0, r->trials, o->seed + 1, o->seed + r->trials, r->max_execs, r->exec_us);
    fprintf(out, "| kind | found in | median executions | median time |\n|---|--:|--:|--:|\n");
    for (unsigned k = 0; k < RV_INJ_COUNT_; k++) {
        const char *name = rv_inject_info_of((rv_inject_kind)k)->name;
        if (r->median_execs[k] < 0)
            fprintf(out, "| `%s` | %u/%u | > %" PRIu64 " | > %.1f s |\n", name, r->found[k], r->trials, r->max_execs,
                    r->max_execs * r->exec_us / 1e6);
        else
            fprintf(out, "| `%s` | %u/%u | %.0f | %.2f s |\n", name, r->found[k], r->trials, r->median_execs[k],
                    r->median_execs[k] * r->exec_us / 1e6);
    }
}
