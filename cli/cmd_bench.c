/* cmd_bench.c - `ravel bench mutation [OPTIONS]`: the checker's mutation
 * table (fuzz/mutation.h), the same as bench/bench_mutation. Prints the
 * Markdown of docs/checker.md "Mutation table" on stdout, progress on
 * stderr. Exit 0 nothing missed, 1 a bug was missed (case in -o DIR),
 * 2 bad usage. */
#include "cli.h"
#include "fuzz/mutation.h"

#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fputs("usage: ravel bench mutation [--funcs N] [--trials T] [--max-execs N] [--prob P]\n"
          "                            [--seed S] [-a NAME] [-o DIR] [-q] [--with-FEATURE] [--no-FEATURE]\n"
          "\n"
          "Mutation testing of the checker: every allocation of N generated functions\n"
          "per allocator is corrupted once with each kind of 'ravel alloc --inject list';\n"
          "prints, per kind and allocator, how often the bug applied (changed), changed\n"
          "the results in the interpreter (different; run with a moving collector when the\n"
          "machine says gc moving), was rejected by the checker (detected; and with an\n"
          "error of the kind expected), and MISSED (different, yet accepted: must be 0).\n"
          "Then T simulated 'ravel fuzz --oracle --inject-prob P' campaigns give the\n"
          "median time to find each kind. docs/checker.md shows the table.\n"
          "\n"
          "  --funcs N      functions per allocator (default 100)\n"
          "  --trials T     simulated campaigns (default 5; 0: no timing)\n"
          "  --max-execs N  executions per campaign at most (default 20000)\n"
          "  --prob P       corruption probability of the campaigns (default 0.5)\n"
          "  --seed S       seed of the functions (default 0)\n"
          "  -a NAME        one allocator (default: all)\n"
          "  -o DIR         where missed cases go (default ravel-mutation-out)\n"
          "  -q             no progress on stderr\n"
          "  --with-FEATURE, --no-FEATURE\n"
          "                 generator: use FEATURE or not (as 'ravel gen'); the kinds of\n"
          "                 section 14 (subreg-write ... undef-join) need --with-alias\n"
          "                 --with-undef --with-remat (docs/format.md section 14)\n"
          "\n"
          "exit status: 0 nothing missed, 1 a checker miss (case in DIR), 2 bad usage\n",
          out);
}

static int parse(int argc, char **argv, rv_mutation_opts *o)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) {
            usage(stdout);
            return -1;
        }
        if (!strcmp(a, "-q")) {
            o->progress = NULL;
            continue;
        }
        if (!strncmp(a, "--with-", 7) || !strncmp(a, "--no-", 5)) {
            bool with = a[2] == 'w';
            unsigned bit = rv_gen_feature_bit(a + (with ? 7 : 5));
            if (!bit) return cli_bad_feature("bench", a);
            if (with) o->gen.features |= bit;
            else o->gen.features &= ~bit;
            continue;
        }
        if (i + 1 >= argc) return cli_bad_value("bench", a, NULL, NULL);
        const char *v = argv[++i];
        uint64_t n = 0;
        bool isnum = !cli_parse_u64(v, &n);
        if (!strcmp(a, "--funcs") && isnum && n >= 1 && n <= 1000000) o->nfuncs = (uint32_t)n;
        else if (!strcmp(a, "--trials") && isnum && n <= 64) o->trials = (unsigned)n;
        else if (!strcmp(a, "--max-execs") && isnum && n >= 1) o->max_execs = n;
        else if (!strcmp(a, "--seed") && isnum) o->seed = n;
        else if (!strcmp(a, "-a")) o->allocator = v;
        else if (!strcmp(a, "-o")) o->outdir = v;
        else if (!strcmp(a, "--prob")) {
            char *end = NULL;
            double p = strtod(v, &end);
            if (*end || !(p > 0 && p <= 1)) return cli_bad_value("bench", a, v, "a probability, more than 0, at most 1");
            o->inject_permille = (unsigned)(p * 1000 + 0.5);
        } else if (!strcmp(a, "--funcs") || !strcmp(a, "--trials") || !strcmp(a, "--max-execs") || !strcmp(a, "--seed"))
            return cli_bad_value("bench", a, v, !strcmp(a, "--trials") ? "a whole number from 0 to 64" : "a whole number");
        else
            return cli_usage_error("bench", "unknown option '%s'", a);
    }
    if (o->allocator && !rv_allocator_find(o->allocator))
        return cli_usage_error("bench", "unknown allocator '%s' (see ravel alloc --list)", o->allocator);
    return 0;
}

int cmd_bench(int argc, char **argv)
{
    if (argc < 2 || cli_is_help(argv[1])) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    if (strcmp(argv[1], "mutation") != 0) return cli_usage_error("bench", "unknown benchmark '%s' (there is: mutation)", argv[1]);
    rv_mutation_opts o;
    rv_mutation_opts_default(&o);
    o.outdir = "ravel-mutation-out";
    o.progress = stderr;
    int rc = parse(argc, argv, &o);
    if (rc) return rc < 0 ? CLI_OK : rc;
    rv_mutation_result r;
    rc = rv_mutation_run(&o, &r);
    if (rc == 2) {
        fprintf(stderr, "ravel bench: cannot create '%s'\n", o.outdir);
        return CLI_USAGE;
    }
    rv_mutation_print(stdout, &o, &r);
    return rc ? CLI_FAIL : CLI_OK;
}
