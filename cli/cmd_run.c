/* cmd_run.c - `ravel run`: the concrete interpreter (ir/interp.c).
 *
 *   ravel run FILE [--func NAME] [--args 1,-2,0x10] [--moving-gc] [--steps N] [--orig] [--seed S]
 *     Runs one function (default: the first) in the form it is written in
 *     (allocated if it carries any allocation; --orig runs it on vregs).
 *     Prints one line "out: V" per value appended by `out`, then one line
 *     "ret: V" per returned value (V signed decimal). A step-limit stop or a
 *     run error is reported on stderr and exits 1. Undefined values
 *     (docs/format.md section 14.2) read as 0, or with --seed S (S > 0) as
 *     arbitrary values drawn from S, different at each read.
 *   ravel run --compare ORIG ALLOC [--func NAME] [--inputs N] [--seed S] [--moving-gc] [--steps N]
 *     Runs each function of ORIG (or only NAME) and the function of ALLOC with
 *     its name on N deterministic input vectors (default 100; small, negative,
 *     edge and arbitrary values from seed S; undefined values drawn from S
 *     and the vector's number, the same in both forms) and reports the first
 *     difference.
 *     Exit 1 on a difference, 0 if all agree.
 * Exit 2: unreadable or bad input (validation), bad usage. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void run_usage(FILE *out)
{
    fputs("usage: ravel run FILE [--func NAME] [--args LIST] [--moving-gc] [--steps N] [--orig]\n"
          "                [--seed S]\n"
          "       ravel run --compare ORIG ALLOC [--func NAME] [--inputs N] [--seed S]\n"
          "                 [--moving-gc] [--steps N]\n"
          "Runs a function with the concrete interpreter (docs/format.md section 9).\n"
          "  --func NAME    the function to run (default: the first; --compare: all)\n"
          "  --args LIST    comma-separated inputs received by `args` (missing ones are 0),\n"
          "                 decimal or 0x hex, optionally negative: --args 1,10\n"
          "  --moving-gc    model a moving collector at safepoints\n"
          "  --steps N      stop after N original instructions (default 1000000;\n"
          "                 --compare: 100000)\n"
          "  --orig         run an allocated function on its vregs (ignore locations)\n"
          "  --compare      run ORIG (unallocated form) and ALLOC (allocated form) on the\n"
          "                 same random inputs and report the first difference\n"
          "  --inputs N     number of input vectors for --compare (default 100)\n"
          "  --seed S       seed of the input vectors of --compare and of the undefined\n"
          "                 values (docs/format.md section 14.2): without --compare, 0\n"
          "                 (the default) reads them as 0, another S as arbitrary\n"
          "                 values, different at each read\n"
          "output: one line 'out: V' per output value, then one 'ret: V' per result;\n"
          "        at most 1000000 output values (a longer run stops as at the step limit)\n"
          "exit status: 0 ok / all agree, 1 run error, step limit or a difference,\n"
          "             2 unreadable or bad input, bad usage\n",
          out);
}

typedef struct run_opts {
    const char *func;
    const char *files[2];
    int nfiles;
    bool compare, moving_gc, orig;
    uint64_t steps, ninputs, seed;
    RV_VEC(uint64_t) args;
} run_opts;

/* Parses "1,-2,0x10" (empty: no inputs). Returns 0 on success. */
static int parse_args_list(const char *s, run_opts *o)
{
    while (*s) {
        bool neg = *s == '-';
        if (neg) s++;
        if (*s < '0' || *s > '9') return -1;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 0);
        if (errno || end == s) return -1;
        rv_vec_push(o->args, neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
        if (!*end) break;
        if (*end != ',' || !end[1]) return -1;
        s = end + 1;
    }
    return 0;
}

/* Returns CLI_OK or CLI_USAGE (message printed). */
static int parse_options(int argc, char **argv, run_opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--compare")) {
            o->compare = true;
        } else if (!strcmp(a, "--moving-gc")) {
            o->moving_gc = true;
        } else if (!strcmp(a, "--orig")) {
            o->orig = true;
        } else if (!strcmp(a, "--func") || !strcmp(a, "--args") || !strcmp(a, "--steps") || !strcmp(a, "--inputs") ||
                   !strcmp(a, "--seed")) {
            if (i + 1 >= argc) return cli_bad_value("run", a, NULL, NULL);
            const char *v = argv[++i], *want = NULL;
            if (!strcmp(a, "--func"))
                o->func = v;
            else if (!strcmp(a, "--args")) {
                if (parse_args_list(v, o)) want = "integers separated by commas";
            } else if (!strcmp(a, "--steps")) {
                if (cli_parse_u64(v, &o->steps) || o->steps == 0) want = "a whole number, at least 1";
            } else if (cli_parse_u64(v, !strcmp(a, "--seed") ? &o->seed : &o->ninputs)) {
                want = "a whole number";
            }
            if (want) return cli_bad_value("run", a, v, want);
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("run", "unknown option '%s'", a);
        } else if (o->nfiles < 2) {
            o->files[o->nfiles++] = a;
        } else {
            return cli_usage_error("run", "too many files ('%s')", a);
        }
    }
    if (o->nfiles == 0) {
        run_usage(stderr);
        return CLI_USAGE;
    }
    if (o->nfiles != (o->compare ? 2 : 1))
        return cli_usage_error("run", "expected %s", o->compare ? "two files: ORIG ALLOC" : "one FILE (--compare takes two)");
    return CLI_OK;
}

static const ravel_func *find_func(const ravel_module *m, const char *name)
{
    for (size_t i = 0; i < ravel_module_nfuncs(m); i++)
        if (strcmp(rv_func_name(ravel_module_func(m, i)), name) == 0) return ravel_module_func(m, i);
    return NULL;
}

/* Validates f; prints diagnostics. Returns a CLI status. */
static int check_valid(const ravel_func *f)
{
    ravel_diags *d = ravel_diags_new();
    int st = ravel_validate(f, 0, d);
    ravel_diags_print(stderr, d);
    ravel_diags_free(d);
    return st == RAVEL_OK ? CLI_OK : st == RAVEL_EFAIL ? CLI_FAIL : CLI_USAGE;
}

static int run_one(const run_opts *o)
{
    ravel_module *m = cli_load(o->files[0]);
    if (!m) return CLI_USAGE;
    const ravel_func *f = o->func ? find_func(m, o->func) : ravel_module_nfuncs(m) ? ravel_module_func(m, 0) : NULL;
    int rc = CLI_USAGE;
    if (!f) {
        fprintf(stderr, "ravel run: %s: no function %s\n", o->files[0], o->func ? o->func : "");
    } else if ((rc = check_valid(f)) == CLI_OK) {
        rv_run_opts ro = {o->args.data, o->args.len, o->steps, o->moving_gc, rv_func_is_allocated(f) && !o->orig,
                          o->seed};
        rv_run_result r;
        rv_interp_run(f, &ro, &r);
        for (uint32_t k = 0; k < r.out.len; k++) printf("out: %lld\n", (long long)r.out.data[k]);
        for (uint32_t k = 0; k < r.rets.len; k++) printf("ret: %lld\n", (long long)r.rets.data[k]);
        if (r.status == RV_RUN_STEP_LIMIT && r.out_limited)
            fprintf(stderr, "ravel run: %s: func %s: output limit reached: stopped before writing more than %u values "
                    "(after %llu steps)\n", o->files[0], rv_func_name(f), RV_RUN_OUT_LIMIT, (unsigned long long)r.steps);
        else if (r.status == RV_RUN_STEP_LIMIT)
            fprintf(stderr, "ravel run: %s: func %s: step limit reached after %llu steps\n", o->files[0],
                    rv_func_name(f), (unsigned long long)r.steps);
        else if (r.status == RV_RUN_ERROR)
            fprintf(stderr, "ravel run: %s: func %s: error: %s\n", o->files[0], rv_func_name(f), r.msg);
        rc = r.status == RV_RUN_OK ? CLI_OK : CLI_FAIL;
        rv_run_result_free(&r);
    }
    ravel_module_free(m);
    return rc;
}

static void print_inputs(FILE *out, const uint64_t *in, uint32_t n)
{
    fputs("inputs (", out);
    for (uint32_t i = 0; i < n; i++) fprintf(out, "%s%lld", i ? ", " : "", (long long)in[i]);
    fputs(")", out);
}

/* Compares one pair on o->ninputs vectors. Returns a CLI status. */
static int compare_func(const run_opts *o, const ravel_func *fo, const ravel_func *fa)
{
    int rc = check_valid(fo);
    int ra = check_valid(fa);
    if (ra > rc) rc = ra;
    if (rc != CLI_OK) return rc;
    uint32_t n = rv_interp_ninputs(fo);
    uint64_t *in = rv_xcalloc(n + 1, sizeof *in);
    char msg[1024];
    for (uint64_t k = 0; k < o->ninputs && rc == CLI_OK; k++) {
        rv_interp_inputs(o->seed, k, in, n);
        rv_run_opts ro = {in, n, o->steps ? o->steps : 100000, o->moving_gc, true, rv_interp_undef_seed(o->seed, k)};
        if (rv_interp_compare(fo, fa, &ro, msg, sizeof msg)) continue;
        printf("%s: func %s: input vector %llu, ", o->files[1], rv_func_name(fa), (unsigned long long)k);
        print_inputs(stdout, in, n);
        printf(":\n  %s\n", msg);
        rc = CLI_FAIL;
    }
    free(in);
    return rc;
}

static int run_compare(const run_opts *o)
{
    ravel_module *mo = cli_load(o->files[0]), *ma = mo ? cli_load(o->files[1]) : NULL;
    int rc = CLI_OK, nfuncs = 0;
    if (!mo || !ma) rc = CLI_USAGE;
    for (size_t i = 0; rc != CLI_USAGE && i < ravel_module_nfuncs(mo); i++) {
        const ravel_func *fo = ravel_module_func(mo, i);
        if (o->func && strcmp(o->func, rv_func_name(fo)) != 0) continue;
        const ravel_func *fa = find_func(ma, rv_func_name(fo));
        if (!fa) {
            fprintf(stderr, "ravel run: %s: no function %s\n", o->files[1], rv_func_name(fo));
            rc = CLI_USAGE;
            break;
        }
        nfuncs++;
        int r = compare_func(o, fo, fa);
        if (r > rc) rc = r;
    }
    if (rc != CLI_USAGE && !nfuncs) {
        fprintf(stderr, "ravel run: %s: no function %s\n", o->files[0], o->func ? o->func : "");
        rc = CLI_USAGE;
    }
    if (rc == CLI_OK)
        printf("%s: %d function%s on %llu input vectors\n", o->files[1], nfuncs, nfuncs == 1 ? " agrees" : "s agree",
               (unsigned long long)o->ninputs);
    ravel_module_free(mo);
    ravel_module_free(ma);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i])) {
            run_usage(stdout);
            return CLI_OK;
        }
    run_opts o;
    memset(&o, 0, sizeof o);
    o.ninputs = 100;
    int rc = parse_options(argc, argv, &o);
    if (rc == CLI_OK) rc = o.compare ? run_compare(&o) : run_one(&o);
    rv_vec_free(o.args);
    return rc;
}
