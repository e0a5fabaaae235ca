/* cmd_reduce.c - `ravel reduce`: shrinks a failing case (reduce/reduce.h)
 * while it keeps failing the same way, and writes it as a reproducer.
 * Exit 0 reduced, 1 the input does not have the property, 2 bad input or
 * usage. */
#define _DEFAULT_SOURCE
#include "cli.h"
#include "fuzz/extalloc.h"
#include "reduce/reduce.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out)
{
    fputs("usage: ravel reduce FILE [-o OUT] [--keep kind|any|first-line] [--compare]\n"
          "       ravel reduce -a NAME FILE [--seed S] [--compare] [--target T] [-o OUT]\n"
          "       ravel reduce --alloc-cmd 'CMD' [--alloc-protocol P] [--alloc-timeout S] FILE\n"
          "       ravel reduce --test 'CMD' FILE [-o OUT]\n"
          "       ravel reduce --from-fuzz TARGET CRASHFILE [GENERATOR OPTIONS] [-o OUT]\n"
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
          "  --alloc-cmd 'CMD'\n"
          "                   as -a, but the allocator is an external command speaking the\n"
          "                   ravel-alloc protocol (docs/protocol.md): keep what CMD does\n"
          "                   wrong (the same verdict: checker error kind, invalid output,\n"
          "                   the same failure, e.g. 'exited with status 1' or a timeout);\n"
          "                   the reproducer's header names the command\n"
          "  --alloc-protocol oneshot|frames   (default oneshot)\n"
          "  --alloc-timeout S                 per function (default 10)\n"
          "  --test 'CMD'     keep 'CMD exits 0'; the candidate file's path replaces {}\n"
          "                   in CMD, or is appended as its last argument\n"
          "  --from-fuzz TARGET CRASHFILE\n"
          "                   regenerate the function of a libFuzzer/AFL++ input of a\n"
          "                   fuzz target (fuzz_alloc, fuzz_alloc_NAME, fuzz_differential,\n"
          "                   fuzz_checker_oracle) as the target does, then as -a\n"
          "                   (or against --test 'CMD'); TARGET kit: an input of the\n"
          "                   fuzzing kit's target (include/ravel_fuzz.h: all bytes make\n"
          "                   the function, the allocator is yours: give --alloc-cmd,\n"
          "                   -a or --test), with the kit's generator options:\n"
          "  --insts N, --blocks N, --regs N, --min-regs N, --pressure P, --window N,\n"
          "  --cfg any|structured, --no-FEATURE\n"
          "                   generator options as 'ravel fuzz' has them (for --from-fuzz)\n"
          "  --machine FILE   the generator's machine: the machine block of FILE (a .ra\n"
          "                   file, e.g. the kit's crash report saved to a file), as\n"
          "                   the kit's target was given it (for --from-fuzz)\n"
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
    /* --alloc-cmd: the external allocator (fuzz/extalloc.h) */
    const char *alloc_cmd, *machine;
    int alloc_protocol;
    double alloc_timeout;
    bool protocol_given, timeout_given, gen_given;
    rv_ext *ext;
    rv_allocator ext_alloc;
    rv_gen_opts gen; /* --from-fuzz: the generator's options */
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
    static const char *const opts[] = {"-o",          "--keep",        "-a",          "--test",
                                       "--seed",      "--target",      "--inputs",    "--orig",
                                       "--time",      "--test-timeout", "--alloc-cmd", "--alloc-protocol",
                                       "--alloc-timeout", "--machine", "--insts",     "--blocks",
                                       "--regs",      "--min-regs",    "--pressure",  "--window",
                                       "--cfg"};
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++)
        if (!strcmp(s, opts[i])) return true;
    return false;
}

/* The generator's knobs (--insts ... --window, --cfg), as ravel fuzz has them. */
static int parse_gen(reduce_args *a, const char *s, const char *v, bool *done)
{
    static const struct {
        const char *name;
        size_t field; /* offset of the uint32_t knob in rv_gen_opts */
        uint64_t lo, hi;
        const char *want;
    } knobs[] = {
        {"--insts", offsetof(rv_gen_opts, max_insts), 1, 100000, "a whole number from 1 to 100000"},
        {"--blocks", offsetof(rv_gen_opts, max_blocks), 1, 10000, "a whole number from 1 to 10000"},
        {"--regs", offsetof(rv_gen_opts, max_regs), 1, 32, "a whole number from 1 to 32"},
        {"--min-regs", offsetof(rv_gen_opts, min_regs), 1, 32, "a whole number from 1 to 32"},
        {"--pressure", offsetof(rv_gen_opts, pressure), 0, 100, "a whole number from 0 to 100"},
        {"--window", offsetof(rv_gen_opts, window), 0, UINT32_MAX, "a whole number from 0 to 4294967295"},
    };
    *done = true;
    if (!strcmp(s, "--cfg")) {
        int cfg = rv_gen_cfg_parse(v);
        if (cfg < 0) return bad(s, v, "any or structured");
        a->gen.cfg = (uint32_t)cfg;
        return 0;
    }
    for (size_t k = 0; k < sizeof knobs / sizeof *knobs; k++) {
        uint64_t x;
        if (strcmp(s, knobs[k].name)) continue;
        if (cli_parse_u64(v, &x) || x < knobs[k].lo || x > knobs[k].hi) return bad(s, v, knobs[k].want);
        *(uint32_t *)((char *)&a->gen + knobs[k].field) = (uint32_t)x;
        return 0;
    }
    *done = false;
    return 0;
}

static int parse_value(reduce_args *a, const char *s, const char *v)
{
    bool gen;
    int rc = parse_gen(a, s, v, &gen);
    if (gen) {
        a->gen_given = true;
        return rc;
    }
    if (!strcmp(s, "-o")) a->out = v;
    else if (!strcmp(s, "--alloc-cmd")) {
        if (!*v) return bad(s, v, "a shell command");
        a->alloc_cmd = v;
    } else if (!strcmp(s, "--alloc-protocol")) {
        a->protocol_given = true;
        if ((a->alloc_protocol = rv_ext_protocol_parse(v)) < 0) return bad(s, v, "oneshot or frames");
    } else if (!strcmp(s, "--alloc-timeout")) {
        a->timeout_given = true;
        return parse_seconds(s, v, &a->alloc_timeout);
    } else if (!strcmp(s, "--machine")) a->machine = v;
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
    rv_gen_opts_default(&a->gen);
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
        } else if (!strncmp(s, "--no-", 5)) {
            unsigned bit = rv_gen_feature_bit(s + 5);
            if (!bit) return cli_bad_feature("reduce", s);
            a->gen.features &= ~bit;
            a->gen_given = true;
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
    if (a->alloc_cmd && (a->alloc || a->o.command))
        return cli_usage_error("reduce", "--alloc-cmd cannot be combined with -a or --test");
    if ((a->protocol_given || a->timeout_given) && !a->alloc_cmd)
        return cli_usage_error("reduce", "--alloc-protocol and --alloc-timeout need --alloc-cmd");
    if ((a->gen_given || a->machine) && !a->fuzz_target)
        return cli_usage_error("reduce", "generator options (--machine, --insts, ...) need --from-fuzz");
    if (a->gen.min_regs > a->gen.max_regs) return cli_usage_error("reduce", "--min-regs is larger than --regs");
    if (a->alloc && a->fuzz_target && strcmp(a->fuzz_target, "kit") != 0)
        return cli_usage_error("reduce", "--from-fuzz names its allocator; drop -a");
    if (a->target && !a->alloc && !a->alloc_cmd) return cli_usage_error("reduce", "--target needs -a NAME or --alloc-cmd");
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
 * allocator and seed it uses (fuzz/fuzzlib.c, rv_fuzz_bytes). The kit's
 * target (include/ravel_fuzz.h) gives all its bytes to the generator with
 * its options (a->gen: --machine, --insts, ...) and its seed is the hash of
 * the bytes, as rv_fuzz_bytes's; its allocator is the user's: --alloc-cmd,
 * -a or --test. An --alloc-cmd replaces a fuzz target's allocator. */
static ravel_module *from_fuzz(reduce_args *a, const uint8_t *data, size_t size, char *header, size_t hlen)
{
    const char *t = a->fuzz_target;
    if (!strncmp(t, "fuzz_", 5)) t += 5;
    size_t n = rv_fuzz_nallocators();
    int alloc = -1;
    if (!strcmp(t, "kit")) {
        if (!a->ext && !a->alloc && !a->o.command) {
            cli_usage_error("reduce", "--from-fuzz kit: the allocator is yours: give --alloc-cmd 'CMD', -a NAME or --test 'CMD'");
            return NULL;
        }
        if (a->alloc && !(a->o.alloc = rv_allocator_find(a->alloc))) {
            bad("-a", a->alloc, "an allocator of 'ravel alloc --list'");
            return NULL;
        }
        if (a->ext) a->o.alloc = &a->ext_alloc;
        a->o.target = RV_FT_ALLOC;
        a->o.seed = rv_hash_bytes(data, size);
        snprintf(header, hlen, "# ravel fuzz reproducer\n# target: %s\n# allocator: %s\n# seed: 0x%016llx\n",
                 rv_fuzz_target_name(a->o.target), a->o.alloc ? a->o.alloc->name : "all", (unsigned long long)a->o.seed);
        return rv_gen_from_bytes(data, size, &a->gen);
    }
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
    a->o.alloc = a->ext ? &a->ext_alloc : &rv_allocators[alloc];
    a->o.seed = rv_hash_bytes(data, size);
    rv_gen_opts go = a->gen; /* the fuzz targets' options are the defaults */
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
    if (rc == RAVEL_OK && a->ext) { /* the header names the command */
        size_t n;
        char *t = rv_ext_annotate(a->ext, out, strlen(out), &n);
        free(out);
        out = t;
    }
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

/* --alloc-cmd: the handle, probed once (a command that cannot run at all is
 * a usage error, not a "failure" to reduce); the test timeout is raised
 * above the command's own, so that the command's timeout is what a hang
 * shows (with the command's stderr). */
static int make_ext(reduce_args *a)
{
    a->ext = rv_ext_new(a->alloc_cmd, a->alloc_protocol, a->alloc_timeout);
    a->ext_alloc = rv_ext_allocator(a->ext, "alloc-cmd");
    char *why = NULL;
    if (rv_ext_probe(a->ext, &a->gen, &why) != 0) {
        fprintf(stderr, "ravel reduce: error: --alloc-cmd '%s': %s\n", a->alloc_cmd, why);
        rv_free(why);
        return CLI_USAGE;
    }
    double t = rv_ext_timeout(a->ext);
    if (a->o.test_timeout < t * 1.5 + 5) a->o.test_timeout = t * 1.5 + 5;
    return 0;
}

static int reduce_main(reduce_args *a);

int cmd_reduce(int argc, char **argv)
{
    reduce_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc < 0 ? CLI_OK : rc;
    ravel_module *mm = NULL; /* --machine: the generator's machine, alive until the end */
    if (a.machine) {
        if (!(mm = cli_read_machine("reduce", a.machine))) return CLI_USAGE;
        a.gen.machine = ravel_module_machine(mm);
    }
    if (a.alloc_cmd && (rc = make_ext(&a)) != 0) {
        rv_ext_free(a.ext);
        ravel_module_free(mm);
        return rc;
    }
    rc = reduce_main(&a);
    rv_ext_free(a.ext);
    ravel_module_free(mm);
    return rc;
}

static int reduce_main(reduce_args *ap)
{
    reduce_args a = *ap;
    int rc;
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
        if (a.ext) a.o.alloc = &a.ext_alloc;
        a.o.mode = a.o.command ? RV_RD_COMMAND : a.alloc || a.ext ? RV_RD_ALLOC : RV_RD_CHECK;
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
