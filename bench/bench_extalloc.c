/* bench_extalloc.c - the overhead of an external allocator (fuzz/extalloc.c,
 * docs/protocol.md) per function, at ~250 instructions:
 *
 *   bench_extalloc [--runs N] [--funcs K] [--rounds R] [--alloc NAME] [--quick]
 *
 * The same K generated functions (about 250 instructions each) are
 * allocated R times per run by allocator NAME (default fast):
 *   in-process   ravel_allocate, as the server calls it (its input
 *                validated, then the built-in allocator);
 *   frames       rv_ext_alloc through bench/extalloc_server (a frames
 *                server answering with the same built-in allocator);
 *   oneshot      rv_ext_alloc with the same server program run once per
 *                function (fork + exec + sh; fewer functions: it is slow).
 * Wall-clock microseconds per function, the median of N runs (default 5);
 * "overhead" = frames - in-process: what the protocol adds (ravel prints
 * the module, two pipe transfers, the server parses and prints, ravel
 * parses the answer, compares the machine block, validates structurally and
 * clones), the allocator's own time subtracted. The aim: at most
 * 50 us per function.
 *
 * The figures measured so far (the aim is not met: the text work costs
 * ten times that): docs/perf-log.md.
 */
#define _GNU_SOURCE
#include "fuzz/campaign.h"
#include "fuzz/extalloc.h"

#include "bench/bench_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#ifndef RAVEL_EXTALLOC_SERVER
#define RAVEL_EXTALLOC_SERVER "extalloc_server"
#endif

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* CPU microseconds of this process, and of its reaped children (the
 * servers, once stopped). */
static double cpu_us(int who)
{
    struct rusage u;
    getrusage(who, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 + (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

/* The in-process row: the allocator as bench/extalloc_server calls it
 * (ravel_allocate, seed 0), so that frames - in-process is the protocol's
 * work alone. user: the allocator's name. */
static int in_process(void *user, const ravel_func *f, uint64_t seed, ravel_func **out, char **err)
{
    (void)seed;
    return ravel_allocate(user, f, 0, out, err);
}

/* Microseconds per function of R rounds over the functions with a (wall
 * clock; *cpu: CPU time of this process and of the children reaped since
 * the start, per function); -1 if an allocation failed. An external
 * allocator's server is stopped at the end, so its CPU time is counted. */
static double per_func(const rv_allocator *a, ravel_module **mods, unsigned k, unsigned rounds, double *cpu)
{
    double t0 = now_us(), c0 = cpu_us(RUSAGE_SELF) + cpu_us(RUSAGE_CHILDREN);
    for (unsigned r = 0; r < rounds; r++)
        for (unsigned i = 0; i < k; i++) {
            rv_alloc_opts ao = {.seed = i};
            ravel_func *out = NULL;
            char *err = NULL;
            int rc = rv_alloc_run(a, ravel_module_func(mods[i], 0), &ao, &out, &err);
            if (rc != RAVEL_OK) {
                fprintf(stderr, "bench_extalloc: %s failed: %s\n", a->name, err ? err : "?");
                free(err);
                if (cpu) *cpu = -1;
                return -1;
            }
            ravel_func_free(out);
            free(err);
        }
    double t = now_us() - t0;
    if (rv_ext_of(a)) rv_ext_stop(rv_ext_of(a));
    if (cpu) *cpu = (cpu_us(RUSAGE_SELF) + cpu_us(RUSAGE_CHILDREN) - c0) / ((double)rounds * k);
    return t / ((double)rounds * k);
}

/* The text work of one exchange done in-process, per function (CPU us):
 * print the input, parse it (the server's side), print the allocation (the
 * server's), parse it and validate it (ravel's): the floor of the text
 * protocol's overhead, pipes and processes aside. */
static double text_floor(const rv_allocator *a, ravel_module **mods, unsigned k, unsigned rounds, double *print)
{
    double tp = 0;
    ravel_func **outs = calloc(k, sizeof *outs);
    for (unsigned i = 0; i < k; i++) {
        rv_alloc_opts ao = {.seed = i};
        char *err = NULL;
        rv_alloc_run(a, ravel_module_func(mods[i], 0), &ao, &outs[i], &err);
        free(err);
    }
    double c0 = cpu_us(RUSAGE_SELF);
    for (unsigned r = 0; r < rounds; r++)
        for (unsigned i = 0; i < k; i++)
            for (int side = 0; side < 2 && outs[i]; side++) {
                double c0p = cpu_us(RUSAGE_SELF);
                const ravel_func *f = side ? outs[i] : ravel_module_func(mods[i], 0);
                char *buf = NULL;
                size_t len = 0;
                FILE *fp = open_memstream(&buf, &len);
                ravel_print_machine(fp, ravel_module_machine(mods[i]));
                fputc('\n', fp);
                ravel_print_func(fp, f);
                fclose(fp);
                double c1 = cpu_us(RUSAGE_SELF);
                tp += c1 - c0p;
                ravel_diags *d = ravel_diags_new();
                ravel_module *m = ravel_module_parse(buf, len, "<text>", d);
                if (side && m) ravel_validate(ravel_module_func(m, 0), 0, d);
                ravel_module_free(m);
                ravel_diags_free(d);
                free(buf);
            }
    double t = (cpu_us(RUSAGE_SELF) - c0) / ((double)rounds * k);
    *print = tp / ((double)rounds * k);
    for (unsigned i = 0; i < k; i++) ravel_func_free(outs[i]);
    free(outs);
    return t;
}

int main(int argc, char **argv)
{
    unsigned runs = 5, k = 64, rounds = 4;
    const char *alloc = "fast";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--funcs") && i + 1 < argc) k = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--alloc") && i + 1 < argc) alloc = argv[++i];
        else if (!strcmp(argv[i], "--quick")) runs = 1, k = 8, rounds = 1;
        else {
            fprintf(stderr, "usage: bench_extalloc [--runs N] [--funcs K] [--rounds R] [--alloc NAME] [--quick]\n");
            return 2;
        }
    }
    if (runs < 1 || runs > 99 || k < 1 || k > 10000 || rounds < 1) return 2;
    if (!rv_allocator_find(alloc)) {
        fprintf(stderr, "bench_extalloc: unknown allocator %s\n", alloc);
        return 2;
    }
    const rv_allocator in_entry = {.name = alloc, .fn = in_process, .user = (void *)alloc}, *in = &in_entry;
    rv_gen_opts g;
    rv_gen_opts_default(&g);
    g.features = RV_GEN_ALL; /* the figures quoted so far: no section 14 */
    g.max_insts = 300, g.min_insts = 200;
    ravel_module **mods = calloc(k, sizeof *mods);
    uint64_t insts = 0;
    for (unsigned i = 0; i < k; i++) {
        mods[i] = rv_gen_from_seed(rv_hash64(0xbe7c4ull + i), &g);
        insts += ravel_module_func(mods[i], 0)->insts.len;
    }
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "exec '%s' %s", RAVEL_EXTALLOC_SERVER, alloc);
    rv_ext *xf = rv_ext_new(cmd, RV_EXT_FRAMES, 30), *xo = rv_ext_new(cmd, RV_EXT_ONESHOT, 30);
    rv_allocator af = rv_ext_allocator(xf, "frames"), ao = rv_ext_allocator(xo, "oneshot");
    unsigned ko = k < 8 ? k : 8; /* one-shot: a process per function */
    double *tin = calloc(runs, sizeof *tin), *tfr = calloc(runs, sizeof *tfr), *tos = calloc(runs, sizeof *tos);
    double *dif = calloc(runs, sizeof *dif), *cin = calloc(runs, sizeof *cin), *cfr = calloc(runs, sizeof *cfr);
    double *cdif = calloc(runs, sizeof *cdif);
    if (per_func(&af, mods, 1, 1, NULL) < 0) return 1; /* the server works */
    int bad = 0;
    for (unsigned r = 0; r < runs && !bad; r++) {
        tin[r] = per_func(in, mods, k, rounds, &cin[r]);
        tfr[r] = per_func(&af, mods, k, rounds, &cfr[r]);
        tos[r] = per_func(&ao, mods, ko, 1, NULL);
        dif[r] = tfr[r] - tin[r];
        cdif[r] = cfr[r] - cin[r];
        bad = tin[r] < 0 || tfr[r] < 0 || tos[r] < 0;
    }
    if (!bad) {
        printf("bench_extalloc: %s, %u functions of %.0f instructions on average, %u round%s, median of %u run%s\n",
               alloc, k, (double)insts / k, rounds, rounds == 1 ? "" : "s", runs, runs == 1 ? "" : "s");
        double din = bench_median(tin, runs), dfr = bench_median(tfr, runs), dos = bench_median(tos, runs), dd = bench_median(dif, runs);
        double ein = bench_median(cin, runs), efr = bench_median(cfr, runs), ed = bench_median(cdif, runs);
        printf("                      wall us/function   cpu us/function (ravel + server)\n");
        printf("  in-process %-8s %10.1f %17.1f\n", alloc, din, ein);
        printf("  frames server       %10.1f %17.1f\n", dfr, efr);
        printf("  oneshot             %10.1f   (a process per function)\n", dos);
        printf("  frames overhead     %10.1f %17.1f   (frames - in-process; aim: <= 50)\n", dd, ed);
        double tprint, ttext = text_floor(in, mods, k, rounds, &tprint);
        printf("  of which text work  %10s %17.1f   (print + parse both ways, validate: in-process;\n"
               "%39s of which printing %.1f)\n", "", ttext, "", tprint);
    }
    rv_ext_free(xf);
    rv_ext_free(xo);
    for (unsigned i = 0; i < k; i++) ravel_module_free(mods[i]);
    free(mods), free(tin), free(tfr), free(tos), free(dif), free(cin), free(cfr), free(cdif);
    return bad;
}
