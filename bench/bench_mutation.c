/* bench_mutation.c - the checker's mutation table (fuzz/mutation.h): for
 * every kind of bug of inject/inject.h and every allocator of the table,
 * how often the bug applies, changes what the program computes, and is
 * detected by the checker (MISSED must be 0), and how long `ravel fuzz
 * --oracle` takes to find it. Prints the Markdown table of docs/checker.md
 * "Mutation table" (same as `ravel bench mutation`).
 *
 *   bench_mutation [--funcs N] [--trials T] [--max-execs N] [--prob P]
 *                  [--seed S] [-a NAME] [-o DIR] [-q]
 *
 * Exit status: 0 nothing missed, 1 some bug was missed (its case is in DIR,
 * default ./ravel-mutation-out), 2 bad usage. */
#include "fuzz/mutation.h"

#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fputs("usage: bench_mutation [--funcs N] [--trials T] [--max-execs N] [--prob P] [--seed S] [-a NAME] [-o DIR] [-q]\n",
          stderr);
    return 2;
}

int main(int argc, char **argv)
{
    rv_mutation_opts o;
    rv_mutation_opts_default(&o);
    o.outdir = "ravel-mutation-out";
    o.progress = stderr;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!strcmp(a, "-q")) {
            o.progress = NULL;
            continue;
        }
        if (!v) return usage();
        i++;
        if (!strcmp(a, "--funcs")) o.nfuncs = (uint32_t)strtoul(v, &end, 0);
        else if (!strcmp(a, "--trials")) o.trials = (unsigned)strtoul(v, &end, 0);
        else if (!strcmp(a, "--max-execs")) o.max_execs = strtoull(v, &end, 0);
        else if (!strcmp(a, "--seed")) o.seed = strtoull(v, &end, 0);
        else if (!strcmp(a, "--prob")) {
            double p = strtod(v, &end);
            if (!(p > 0 && p <= 1)) return usage();
            o.inject_permille = (unsigned)(p * 1000 + 0.5);
        } else if (!strcmp(a, "-a")) o.allocator = v, end = (char *)"";
        else if (!strcmp(a, "-o")) o.outdir = v, end = (char *)"";
        else return usage();
        if (!end || *end) return usage();
    }
    if (o.nfuncs < 1 || o.trials > 64 || o.max_execs < 1) return usage();
    rv_mutation_result r;
    int rc = rv_mutation_run(&o, &r);
    if (rc == 2) {
        fprintf(stderr, "bench_mutation: unknown allocator or cannot create %s\n", o.outdir);
        return 2;
    }
    rv_mutation_print(stdout, &o, &r);
    return rc;
}
