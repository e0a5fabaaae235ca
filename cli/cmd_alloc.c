/* cmd_alloc.c - `ravel alloc -a NAME [--seed S] [--stats] [--trace]
 * [--inject KIND[:SEED]] [-o OUT] IN.ra`, `ravel alloc --list` and
 * `ravel alloc --inject list`: allocates every function of IN.ra with a
 * built-in allocator (allocator/table.c) and prints the machine and the
 * allocated functions in the allocated form of docs/format.md section 1, which
 * `ravel check --orig IN.ra` verifies. With --inject, each allocation is
 * then corrupted with one bug of the catalogue (inject/inject.h).
 * Exit 0 allocated (and, with --inject, some function changed), 1 an
 * allocation failed (unsatisfiable constraints) or the injection found no
 * site / changed nothing, 2 unreadable input or bad usage. */
#include "cli.h"
#include "allocator/alloc.h"
#include "inject/inject.h"

#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fputs("usage: ravel alloc -a NAME [--seed S] [--stats] [--trace] [--inject KIND[:SEED]] [-o OUT] IN.ra\n"
          "       ravel alloc --list\n"
          "       ravel alloc --inject list\n"
          "\n"
          "Allocates registers for every function of IN.ra (unallocated, SSA) and prints\n"
          "the machine and the allocated functions (docs/format.md section 1).\n"
          "\n"
          "  -a NAME    the allocator (see --list)\n"
          "  --seed S   seed for allocators with random choices (default 0)\n"
          "  --stats    print spills, reloads, moves and the weighted cost per function\n"
          "             to stderr (reload 4, spill 1, move 0.2, times 10^loop-depth), then\n"
          "             the allocator's own counters if it keeps any (greedy: evictions,\n"
          "             region splits, local splits, spilled ranges, tiny pieces, tiny\n"
          "             evictions)\n"
          "  --trace    print the allocator's event trace to stderr\n"
          "  -o OUT     write the allocated module to OUT instead of stdout\n"
          "  --list     list the allocators\n"
          "  --inject KIND[:SEED]\n"
          "             corrupt each allocation with one bug of kind KIND at a site drawn\n"
          "             from SEED (default 0); says on stderr where, or that it found no\n"
          "             site ('--inject list': the kinds)\n"
          "\n"
          "exit status: 0 allocated (with --inject: and corrupted), 1 allocation failed\n"
          "(with --inject: no site, nothing changed; then nothing is written), 2 unreadable\n"
          "input or bad usage\n",
          out);
}

typedef struct alloc_args {
    const char *alloc, *in, *out;
    uint64_t seed;
    bool stats, trace, list;
    int inject;           /* rv_inject_kind, or -1 */
    bool inject_list;
    uint64_t inject_seed;
} alloc_args;

/* "KIND[:SEED]" or "list". */
static int parse_inject(const char *v, alloc_args *a)
{
    if (strcmp(v, "list") == 0) {
        a->inject_list = true;
        return 0;
    }
    char name[64];
    const char *colon = strchr(v, ':');
    size_t n = colon ? (size_t)(colon - v) : strlen(v);
    if (n >= sizeof name) return cli_bad_value("alloc", "--inject", v, "KIND[:SEED], see --inject list");
    memcpy(name, v, n);
    name[n] = 0;
    a->inject = rv_inject_find(name);
    if (a->inject < 0) return cli_bad_value("alloc", "--inject", v, "KIND[:SEED], see --inject list");
    if (colon && cli_parse_u64(colon + 1, &a->inject_seed))
        return cli_bad_value("alloc", "--inject", v, "KIND:SEED with a whole number SEED");
    return 0;
}

static int parse_args(int argc, char **argv, alloc_args *a)
{
    memset(a, 0, sizeof *a);
    a->inject = -1;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (cli_is_help(s)) {
            usage(stdout);
            return -1;
        } else if (strcmp(s, "--list") == 0) {
            a->list = true;
        } else if (strcmp(s, "--stats") == 0) {
            a->stats = true;
        } else if (strcmp(s, "--trace") == 0) {
            a->trace = true;
        } else if (strcmp(s, "--inject") == 0) {
            if (i + 1 >= argc) return cli_bad_value("alloc", s, NULL, NULL);
            int rc = parse_inject(argv[++i], a);
            if (rc) return rc;
        } else if (strcmp(s, "-a") == 0 || strcmp(s, "--allocator") == 0 || strcmp(s, "-o") == 0 ||
                   strcmp(s, "--seed") == 0) {
            if (i + 1 >= argc) return cli_bad_value("alloc", s, NULL, NULL);
            const char *v = argv[++i];
            if (strcmp(s, "-o") == 0)
                a->out = v;
            else if (strcmp(s, "--seed") != 0)
                a->alloc = v;
            else if (cli_parse_u64(v, &a->seed))
                return cli_bad_value("alloc", s, v, "a whole number");
        } else if (s[0] == '-' && s[1]) {
            return cli_usage_error("alloc", "unknown option '%s'", s);
        } else if (!a->in) {
            a->in = s;
        } else {
            return cli_usage_error("alloc", "more than one input file ('%s', '%s')", a->in, s);
        }
    }
    if (a->list || a->inject_list) return 0;
    if (a->in && !a->alloc) return cli_usage_error("alloc", "no allocator: give -a NAME (ravel alloc --list names them)");
    if (!a->in || !a->alloc) {
        usage(stderr);
        return CLI_USAGE;
    }
    return 0;
}

static void list_allocators(void)
{
    for (const rv_allocator *x = rv_allocators; x->name; x++) printf("%-10s %s\n", x->name, x->description);
}

static void list_kinds(void)
{
    for (int k = 0; k < RV_INJ_COUNT_; k++) {
        const rv_inject_info *in = rv_inject_info_of((rv_inject_kind)k);
        printf("%-17s %s\n", in->name, in->summary);
    }
}

/* Corrupts out (an allocation of f) as --inject asks; true if it changed. */
static bool inject_one(const alloc_args *a, const ravel_func *f, size_t idx, ravel_func *out)
{
    rv_inject_result r;
    /* function idx of a module gets seed SEED + idx: one bug per function, each reproducible */
    rv_inject(out, (rv_inject_kind)a->inject, a->inject_seed + idx, &r);
    const char *name = rv_inject_info_of((rv_inject_kind)a->inject)->name;
    if (r.status == RV_INJ_CHANGED)
        fprintf(stderr, "ravel alloc: inject %s: %s: %s\n", name, rv_func_name(f), r.what);
    else
        fprintf(stderr, "ravel alloc: inject %s: %s: %s\n", name, rv_func_name(f),
                r.status == RV_INJ_NO_SITE ? "not applicable (no site)" : "applied but changed nothing");
    return r.status == RV_INJ_CHANGED;
}

/* Validates and allocates f; returns CLI_OK and *out, or an exit status. */
static int alloc_one(const rv_allocator *al, const alloc_args *a, const ravel_func *f, ravel_func **out)
{
    ravel_diags *d = ravel_diags_new();
    int rc = ravel_validate(f, RAVEL_VALIDATE_SSA, d);
    if (rc != RAVEL_OK || rv_func_is_allocated(f)) {
        ravel_diags_print(stderr, d);
        if (rc == RAVEL_OK) fprintf(stderr, "ravel alloc: function '%s' is already allocated\n", rv_func_name(f));
        ravel_diags_free(d);
        return CLI_USAGE;
    }
    ravel_diags_free(d);
    rv_alloc_stats st;
    memset(&st, 0, sizeof st);
    rv_alloc_opts o = {a->seed, a->trace, &st};
    char *err = NULL;
    *out = al->run(f, &o, &err);
    if (!*out) {
        if (err && f->file && strncmp(err, f->file, strlen(f->file)) == 0) /* "FILE:LINE:COL: error: ..." */
            fprintf(stderr, "%s (allocator %s)\n", err, al->name);
        else
            fprintf(stderr, "ravel alloc: %s: %s\n", al->name, err ? err : "allocation failed");
        free(err);
        return CLI_FAIL;
    }
    free(err);
    if (a->stats) {
        rv_cost c;
        rv_cost_compute(*out, &c);
        fprintf(stderr, "%s: %s: spills %llu reloads %llu moves %llu cost %.1f", rv_func_name(f), al->name,
                (unsigned long long)c.spills, (unsigned long long)c.reloads, (unsigned long long)c.moves, c.weighted);
        for (uint32_t k = 0; k < st.n && k < RV_ALLOC_MAX_STATS; k++)
            fprintf(stderr, "%s %s %llu", k ? "," : ";", st.name[k], (unsigned long long)st.value[k]);
        fputc('\n', stderr);
    }
    return CLI_OK;
}

/* *written: the whole module was printed (every function allocated and,
 * with --inject, some function corrupted: when no function had a site,
 * nothing is written, so `> bad.ra` never leaves a correct allocation
 * behind a name that promises a bug). */
static int run(const alloc_args *a, const rv_allocator *al, const ravel_module *m, FILE *out, bool *written)
{
    size_t n = ravel_module_nfuncs(m);
    ravel_func **res = rv_xcalloc(n + 1, sizeof *res);
    int rc = CLI_OK;
    for (size_t i = 0; i < n && rc == CLI_OK; i++) rc = alloc_one(al, a, ravel_module_func(m, i), &res[i]);
    bool changed = false;
    for (size_t i = 0; i < n && rc == CLI_OK && a->inject >= 0; i++)
        changed |= inject_one(a, ravel_module_func(m, i), i, res[i]);
    *written = rc == CLI_OK && (a->inject < 0 || changed);
    if (*written) {
        ravel_print_machine(out, ravel_module_machine(m));
        for (size_t i = 0; i < n; i++) {
            fputc('\n', out);
            ravel_print_func(out, res[i]);
        }
    }
    for (size_t i = 0; i < n; i++) ravel_func_free(res[i]);
    free(res);
    return rc == CLI_OK && a->inject >= 0 && !changed ? CLI_FAIL : rc;
}

int cmd_alloc(int argc, char **argv)
{
    alloc_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if (a.list) {
        list_allocators();
        return CLI_OK;
    }
    if (a.inject_list) {
        list_kinds();
        return CLI_OK;
    }
    const rv_allocator *al = rv_allocator_find(a.alloc);
    if (!al) {
        fprintf(stderr, "ravel alloc: unknown allocator '%s'; available:\n", a.alloc);
        for (const rv_allocator *x = rv_allocators; x->name; x++) fprintf(stderr, "  %s\n", x->name);
        return CLI_USAGE;
    }
    ravel_module *m = cli_load(a.in);
    if (!m) return CLI_USAGE;
    cli_out o; /* OUT is replaced only when every function was allocated and printed */
    FILE *out = cli_out_open(&o, "alloc", a.out);
    if (!out) {
        ravel_module_free(m);
        return CLI_USAGE;
    }
    bool written = false;
    rc = run(&a, al, m, out, &written);
    int wr = cli_out_commit(&o, "alloc", written);
    if (written && wr != CLI_OK) rc = wr;
    ravel_module_free(m);
    return rc;
}
