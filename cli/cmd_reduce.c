/* cmd_reduce.c - `ravel reduce`: shrinks a failing case (reduce/reduce.h)
 * while it keeps failing the same way, and writes it as a reproducer.
 * Exit 0 reduced, 1 the input does not have the property, 2 bad input or
 * usage. */
#define _DEFAULT_SOURCE
#include "cli.h"
#include "reduce/reduce.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out)
{
    fputs("usage: ravel reduce FILE [-o OUT] [--keep kind|any|first-line] [--compare]\n"
          "       ravel reduce -a NAME FILE [--seed S] [--compare] [--target T] [-o OUT]\n"
          "       ravel reduce --test 'CMD' FILE [-o OUT]\n"
          "       ravel reduce --from-fuzz TARGET CRASHFILE [-o OUT]\n"
          "\n"
          "Shrinks a failing case while it keeps failing the same way, and prints it as\n"
          "a reproducer (the input's header kept, '# reduced-from:' added). Every\n"
          "candidate is valid .ra (checked by the validator) before it is tested; the\n"
          "candidates of a '# ravel fuzz reproducer' file must also replay as it does.\n"
          "\n"
          "What is kept:\n"
          "  (default)        FILE is allocated and the checker rejects it: keep a\n"
          "                   rejection with the same error kind (--keep)\n"
          "  --compare        instead: the allocated and unallocated forms differ\n"
          "                   under 'ravel run --compare' (with -a: the allocator's output)\n"
          "  -a NAME          FILE is unallocated (an allocated one is stripped): keep\n"
          "                   what allocator NAME does wrong, as the fuzz harness sees it\n"
          "                   (wrong allocation, invalid output, failure, crash, hang)\n"
          "  --test 'CMD'     keep 'CMD exits 0'; the candidate file's path replaces {}\n"
          "                   in CMD, or is appended as its last argument\n"
          "  --from-fuzz TARGET CRASHFILE\n"
          "                   regenerate the function of a libFuzzer/AFL++ input of a\n"
          "                   fuzz target (fuzz_alloc, fuzz_alloc_NAME, fuzz_differential,\n"
          "                   fuzz_checker_oracle) as the target does, then as -a\n"
          "                   (or against --test 'CMD')\n"
          "\n"
          "  --keep K         kind: the input's first error kind is among the errors\n"
          "                   (default); first-line: it is the first error; any: any\n"
          "                   rejection (with -a: any failure)\n"
          "  --seed S         the allocator's seed and compare's input seed (default: the\n"
          "                   file's '# seed:' header, else 0)\n"
          "  --target T       with -a: alloc (default), differential, checker_oracle\n"
          "  --inputs N       input vectors for --compare (default 100)\n"
          "  --moving-gc      --compare with a moving collector at safepoints\n"
          "  --orig ORIG      the unallocated function; it must be FILE without its\n"
          "                   allocation (the reduced one is written as '#| ' lines)\n"
          "  --time S         stop after S seconds with the best result so far\n"
          "  --test-timeout S a test running longer is a hang (default 10)\n"
          "  --open           add '# status: open' (a bug not fixed yet)\n"
          "  -o OUT           write to OUT (through a temporary file and a rename)\n"
          "  --progress       progress line on stderr even when it is not a terminal\n"
          "  -q               no progress line and no summary\n"
          "\n"
          "exit status: 0 reduced, 1 the input does not have the property,\n"
          "2 unreadable input or bad usage\n",
          out);
}

typedef struct reduce_args {
    rv_reduce_opts o;
    const char *file, *out, *orig, *alloc, *fuzz_target, *target;
    bool quiet, seed_given;
} reduce_args;

static int bad(const char *arg, const char *val, const char *want) { return cli_bad_value("reduce", arg, val, want); }

static int parse_seconds(const char *arg, const char *v, double *out)
{
    char *end;
    errno = 0;
    double d = v ? strtod(v, &end) : 0;
    if (!v || errno || *end || !(d > 0) || d > 1e7) return bad(arg, v, "a number of seconds > 0");
    *out = d;
    return 0;
}

static int parse_keep(const char *v, rv_rd_keep *k)
{
    if (v && !strcmp(v, "kind")) *k = RV_KEEP_KIND;
    else if (v && !strcmp(v, "any")) *k = RV_KEEP_ANY;
    else if (v && !strcmp(v, "first-line")) *k = RV_KEEP_FIRST;
    else return bad("--keep", v, "kind, any or first-line");
    return 0;
}

static bool takes_value(const char *s)
{
    static const char *const opts[] = {"-o", "--keep", "-a", "--test", "--seed", "--target", "--inputs",
                                       "--orig", "--time", "--test-timeout"};
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++)
        if (!strcmp(s, opts[i])) return true;
    return false;
}

static int parse_value(reduce_args *a, const char *s, const char *v)
{
    if (!strcmp(s, "-o")) a->out = v;
    else if (!strcmp(s, "--keep")) return parse_keep(v, &a->o.keep);
    else if (!strcmp(s, "-a")) a->alloc = v;
    else if (!strcmp(s, "--test")) a->o.command = v;
    else if (!strcmp(s, "--target")) a->target = v;
    else if (!strcmp(s, "--orig")) a->orig = v;
    else if (!strcmp(s, "--seed")) {
        a->seed_given = true;
        if (cli_parse_u64(v, &a->o.seed)) return bad(s, v, "a whole number");
    } else if (!strcmp(s, "--inputs")) {
        if (cli_parse_u64(v, &a->o.inputs) || !a->o.inputs || a->o.inputs > 1000000) return bad(s, v, "1 to 1000000");
    } else if (!strcmp(s, "--time")) return parse_seconds(s, v, &a->o.seconds);
    else return parse_seconds(s, v, &a->o.test_timeout);
    return 0;
}

static int parse_args(int argc, char **argv, reduce_args *a)
{
    memset(a, 0, sizeof *a);
    rv_reduce_opts_default(&a->o);
    a->o.progress = isatty(STDERR_FILENO);
    bool progress = false;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        int rc;
        if (cli_is_help(s)) {
            usage(stdout);
            return -1;
        } else if (!strcmp(s, "--compare")) {
            a->o.compare = true;
        } else if (!strcmp(s, "--moving-gc")) {
            a->o.moving_gc = true;
        } else if (!strcmp(s, "--open")) {
            a->o.status_open = true;
        } else if (!strcmp(s, "--progress")) {
            progress = true;
        } else if (!strcmp(s, "-q")) {
            a->quiet = true;
        } else if (!strcmp(s, "--from-fuzz")) {
            if (i + 2 >= argc) return cli_usage_error("reduce", "--from-fuzz needs TARGET and CRASHFILE");
            a->fuzz_target = argv[++i];
            a->file = argv[++i];
        } else if (takes_value(s)) {
            if (i + 1 >= argc) return bad(s, NULL, NULL);
            if ((rc = parse_value(a, s, argv[++i]))) return rc;
        } else if (s[0] == '-' && s[1]) {
            return cli_usage_error("reduce", "unknown option '%s'", s);
        } else if (!a->file) {
            a->file = s;
        } else {
            return cli_usage_error("reduce", "more than one FILE ('%s', '%s')", a->file, s);
        }
    }
    if (!a->file) {
        usage(stderr);
        return CLI_USAGE;
    }
    a->o.progress = !a->quiet && (a->o.progress || progress);
    if (a->o.command && a->alloc) return cli_usage_error("reduce", "--test cannot be combined with -a");
    if (a->alloc && a->fuzz_target) return cli_usage_error("reduce", "--from-fuzz names its allocator; drop -a");
    if (a->target && !a->alloc) return cli_usage_error("reduce", "--target needs -a NAME");
    if (a->o.moving_gc && !a->o.compare) return cli_usage_error("reduce", "--moving-gc needs --compare");
    return 0;
}

/* ---- the input ----------------------------------------------------------------------- */

static int set_target(reduce_args *a)
{
    if (!a->target || !strcmp(a->target, "alloc")) a->o.target = RV_FT_ALLOC;
    else if (!strcmp(a->target, "differential")) a->o.target = RV_FT_DIFFERENTIAL;
    else if (!strcmp(a->target, "checker_oracle")) a->o.target = RV_FT_ORACLE;
    else return bad("--target", a->target, "alloc, differential or checker_oracle");
    return 0;
}

/* --from-fuzz: the function the target generates from the bytes, and the
 * allocator and seed it uses (fuzz/fuzzlib.c, rv_fuzz_bytes). */
static ravel_module *from_fuzz(reduce_args *a, const uint8_t *data, size_t size, char *header, size_t hlen)
{
    const char *t = a->fuzz_target;
    if (!strncmp(t, "fuzz_", 5)) t += 5;
    size_t n = rv_fuzz_nallocators();
    int alloc = -1;
    if (!strcmp(t, "alloc")) a->o.target = RV_FT_ALLOC;
    else if (!strcmp(t, "differential")) a->o.target = RV_FT_DIFFERENTIAL;
    else if (!strcmp(t, "checker_oracle")) a->o.target = RV_FT_ORACLE;
    else if (!strncmp(t, "alloc_", 6) && (alloc = rv_fuzz_allocator_index(t + 6)) >= 0) a->o.target = RV_FT_ALLOC;
    else {
        bad("--from-fuzz", a->fuzz_target, "fuzz_alloc, fuzz_alloc_NAME, fuzz_differential or fuzz_checker_oracle");
        return NULL;
    }
    if (alloc < 0) { /* the first byte picks the allocator */
        alloc = size ? data[0] % (int)n : 0;
        if (size) data++, size--;
    }
    a->o.alloc = &rv_allocators[alloc];
    a->o.seed = rv_hash_bytes(data, size);
    rv_gen_opts go;
    rv_gen_opts_default(&go);
    snprintf(header, hlen, "# ravel fuzz reproducer\n# target: %s\n# allocator: %s\n# seed: 0x%016llx\n",
             rv_fuzz_target_name(a->o.target), a->o.alloc->name, (unsigned long long)a->o.seed);
    return rv_gen_from_bytes(data, size, &go);
}

static int load_orig(const reduce_args *a, const ravel_func *f)
{
    ravel_module *om = cli_load(a->orig);
    if (!om) return CLI_USAGE;
    ravel_func *s = rv_func_strip(f);
    bool same = ravel_module_nfuncs(om) == 1 && rv_func_equal(s, ravel_module_func(om, 0));
    ravel_func_free(s);
    ravel_module_free(om);
    if (!same) {
        fprintf(stderr,
                "ravel reduce: %s is not %s without its allocation (the allocator changed the instructions):\n"
                "  reduce %s with -a ALLOCATOR instead (the allocation is redone for every candidate),\n"
                "  or the pair with --test\n",
                a->orig, a->file, a->orig);
        return CLI_USAGE;
    }
    return 0;
}

/* The validator's own diagnostics (FILE:LINE:COL) for an input the reducer
 * cannot start from: one that does not validate, or (for -a) is not SSA. */
static int precheck(const reduce_args *a, const ravel_func *f)
{
    ravel_diags *d = ravel_diags_new();
    bool ssa = a->o.mode == RV_RD_ALLOC;
    int v = ravel_validate(f, ssa ? RAVEL_VALIDATE_SSA : 0, d);
    bool bad_input = ssa ? v != RAVEL_OK : v == RAVEL_EINVAL;
    if (bad_input) {
        ravel_diags_print(stderr, d);
        fprintf(stderr, "ravel reduce: %s: %s\n", a->file,
                ssa ? "not a valid SSA function (the allocator needs one)" : "does not validate");
    }
    ravel_diags_free(d);
    return bad_input ? CLI_USAGE : 0;
}

/* ---- the output ---------------------------------------------------------------------- */

static int write_out(const char *path, const char *text)
{
    if (!path || !strcmp(path, "-")) return fputs(text, stdout) < 0 ? CLI_USAGE : CLI_OK;
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp) rv_oom();
    snprintf(tmp, n + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
    bool ok = fp && fputs(text, fp) >= 0;
    if (fp) ok &= fclose(fp) == 0;
    else if (fd >= 0) close(fd);
    if (ok) ok = rename(tmp, path) == 0;
    if (!ok) {
        fprintf(stderr, "ravel reduce: %s: %s\n", path, strerror(errno));
        if (fd >= 0) unlink(tmp);
    }
    free(tmp);
    return ok ? CLI_OK : CLI_USAGE;
}

static int run(reduce_args *a, const ravel_func *f, const char *header, size_t hlen)
{
    char *out = NULL, *err = NULL;
    rv_reduce_stats st;
    int rc = rv_reduce(f, header, hlen, &a->o, &out, &st, &err);
    int status = CLI_OK;
    if (rc == RAVEL_OK) {
        status = write_out(a->out, out);
        if (!a->quiet) rv_reduce_print_summary(stderr, &st);
    } else {
        fprintf(stderr, "ravel reduce: %s: %s\n", a->file, err ? err : "failed");
        status = rc == RAVEL_EFAIL ? CLI_FAIL : CLI_USAGE;
    }
    free(out);
    free(err);
    return status;
}

int cmd_reduce(int argc, char **argv)
{
    reduce_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if ((rc = set_target(&a))) return rc;
    size_t len = 0;
    char *text = cli_read_file(a.file, &len);
    if (!text) return CLI_USAGE;
    char fuzz_header[256] = "";
    ravel_module *m = NULL;
    if (a.fuzz_target) {
        m = from_fuzz(&a, (const uint8_t *)text, len, fuzz_header, sizeof fuzz_header);
        a.o.mode = a.o.command ? RV_RD_COMMAND : RV_RD_ALLOC;
    } else {
        m = cli_load(a.file);
        char seedtxt[32];
        if (!a.seed_given && rv_fuzz_header(text, len, "seed", seedtxt, sizeof seedtxt))
            a.o.seed = strtoull(seedtxt, NULL, 0);
        if (a.alloc && !(a.o.alloc = rv_allocator_find(a.alloc))) {
            ravel_module_free(m);
            free(text);
            return bad("-a", a.alloc, "an allocator of 'ravel alloc --list'");
        }
        a.o.mode = a.o.command ? RV_RD_COMMAND : a.alloc ? RV_RD_ALLOC : RV_RD_CHECK;
    }
    if (!m) {
        free(text);
        return CLI_USAGE;
    }
    if (ravel_module_nfuncs(m) != 1) {
        fprintf(stderr, "ravel reduce: %s: has %zu functions; reduce one function per file\n", a.file,
                ravel_module_nfuncs(m));
        rc = CLI_USAGE;
    } else {
        ravel_func *f = ravel_module_func(m, 0), *stripped = NULL;
        if (a.o.mode == RV_RD_ALLOC && rv_func_is_allocated(f)) f = stripped = rv_func_strip(f);
        rc = a.fuzz_target ? 0 : precheck(&a, f);
        if (!rc && a.orig) rc = load_orig(&a, f);
        if (!rc) rc = a.fuzz_target ? run(&a, f, fuzz_header, strlen(fuzz_header)) : run(&a, f, text, len);
        ravel_func_free(stripped);
    }
    ravel_module_free(m);
    free(text);
    return rc;
}
