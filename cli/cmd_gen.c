/* cmd_gen.c - `ravel gen`: prints random valid functions (fuzz/gen.h) in
 * .ra text. Deterministic: the same seed (or input file) and options give
 * the same text. With --count K the seeds S, S+1, ..., S+K-1 are used;
 * with -o DIR each goes to DIR/gen-SEED.ra, otherwise to stdout (or FILE
 * when K is 1). --from FILE generates from the bytes of a file (a fuzzer
 * input), as the fuzz targets do. */
#include "cli.h"
#include "fuzz/gen.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void gen_usage(FILE *out)
{
    fputs("usage: ravel gen [--seed S] [--from FILE [--skip N]] [--insts N] [--blocks N] [--regs MIN..MAX]\n"
          "                 [--pressure P] [--window N] [--cfg any|structured] [--no-FEATURE ...]\n"
          "                 [--with-FEATURE ...]\n"
          "                 [--count K] [-o DIR|FILE] [--machine FILE]\n"
          "Prints random valid SSA functions (one machine and one function per module)\n"
          "in .ra text. The same seed and options always give the same text.\n"
          "  --seed S        first seed (default 0)\n"
          "  --from FILE     generate from the bytes of FILE (a fuzzer input) instead\n"
          "  --skip N        with --from: ignore the first N bytes of FILE (default 0).\n"
          "                  Use --skip 1 for inputs of fuzz_alloc, fuzz_differential\n"
          "                  and fuzz_checker_oracle: their first byte picks the\n"
          "                  allocator and the generator sees the rest; inputs of\n"
          "                  fuzz_alloc_NAME targets (fixed allocator) need no --skip\n"
          "  --insts N       at most N original instructions (default 200)\n"
          "  --blocks N      at most N blocks (default 24)\n"
          "  --regs MIN..MAX allocatable registers per class (default 1..32, at most 64;\n"
          "                  or one number)\n"
          "  --pressure P    0..100, how many values are kept live at once (default 50)\n"
          "  --window N      a use drawn for pressure picks among the N newest values\n"
          "                  of its type in scope only (default 0: any value in scope,\n"
          "                  so large functions keep thousands of values live; N keeps\n"
          "                  them in the tens to hundreds at any size)\n"
          "  --cfg any|structured\n"
          "                  control flow: any (the default) mixes arbitrary CFGs into the\n"
          "                  structured code - multi-entry (irreducible) cycles in and\n"
          "                  around loops, self-loops, br with many successors into\n"
          "                  cycles, blocks with many predecessors, and critical edges\n"
          "                  split by edge blocks (the format forbids unsplit ones);\n"
          "                  about a third of the functions are irreducible. structured:\n"
          "                  only diamonds and natural loops (the output of earlier\n"
          "                  versions, seed for seed)\n"
          "  --no-FEATURE    never use FEATURE; FEATURE is one of:\n"
          "                 ",
          out);
    for (size_t i = 0; rv_gen_feature_name(i); i++) fprintf(out, " %s", rv_gen_feature_name(i));
    fputs("\n"
          "  --with-FEATURE  use FEATURE (every one is on by default; --no-FEATURE wins):\n"
          "                  of docs/format.md section 14, alias gives half of the random\n"
          "                  machines x86-64-like (rax eax ax al ah) and AArch64-like\n"
          "                  (d0 h0 b0) width names, undef makes undefined values, remat\n"
          "                  draws half of the constants from a few keys\n"
          "  --machine FILE  generate for the machine of the .ra file FILE instead of a\n"
          "                  random one (every input byte goes to the function; --regs\n"
          "                  does not apply). Features the generator cannot honour on\n"
          "                  it are turned off, with a note on stderr\n"
          "  --count K       K modules, from seeds S .. S+K-1 (default 1)\n"
          "  -o DIR|FILE     write DIR/gen-SEED.ra per module (DIR must exist), or FILE\n"
          "                  (one module); default stdout, modules separated by a comment\n"
          "exit status: 0 done, 2 bad usage or unwritable output\n",
          out);
}

typedef struct gen_args {
    rv_gen_opts opts;
    uint64_t seed, count, skip;
    const char *from, *out, *machine;
    bool regs_given;
} gen_args;

static int bad(const char *msg, const char *arg) { return cli_usage_error("gen", "%s '%s'", msg, arg); }

/* Parses a u32 option value. */
static int get_u32(const char *s, uint32_t *out)
{
    uint64_t v;
    if (cli_parse_u64(s, &v) || v > UINT32_MAX) return -1;
    *out = (uint32_t)v;
    return 0;
}

/* "MIN..MAX" or "N". */
static int get_range(const char *s, uint32_t *lo, uint32_t *hi)
{
    const char *dots = strstr(s, "..");
    if (!dots) {
        if (get_u32(s, lo)) return -1;
        *hi = *lo;
        return 0;
    }
    char buf[32];
    size_t n = (size_t)(dots - s);
    if (n == 0 || n >= sizeof buf) return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    if (get_u32(buf, lo) || get_u32(dots + 2, hi) || *lo > *hi) return -1;
    return 0;
}

/* Returns -1 when done (ok), else a CLI status. */
static int parse_args(int argc, char **argv, gen_args *a)
{
    rv_gen_opts_default(&a->opts);
    a->seed = 0;
    a->count = 1;
    a->skip = 0;
    a->machine = NULL;
    a->regs_given = false;
    a->from = a->out = NULL;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (cli_is_help(o)) {
            gen_usage(stdout);
            return CLI_OK;
        }
        if (strncmp(o, "--no-", 5) == 0) {
            unsigned bit = rv_gen_feature_bit(o + 5);
            if (!bit) return cli_bad_feature("gen", o);
            a->opts.features &= ~bit;
            continue;
        }
        if (strncmp(o, "--with-", 7) == 0) {
            unsigned bit = rv_gen_feature_bit(o + 7);
            if (!bit) return cli_bad_feature("gen", o);
            a->opts.features |= bit;
            continue;
        }
        bool takes = !strcmp(o, "--seed") || !strcmp(o, "--from") || !strcmp(o, "--insts") || !strcmp(o, "--blocks") ||
                     !strcmp(o, "--regs") || !strcmp(o, "--pressure") || !strcmp(o, "--window") || !strcmp(o, "--cfg") || !strcmp(o, "--count") || !strcmp(o, "-o") || !strcmp(o, "--skip") || !strcmp(o, "--machine");
        if (!takes) return bad("unknown option", o);
        if (!v) return cli_bad_value("gen", o, NULL, NULL);
        i++;
        const char *want = NULL, *num = "a whole number", *pos = "a whole number, at least 1";
        if (!strcmp(o, "--seed")) want = cli_parse_u64(v, &a->seed) ? num : NULL;
        else if (!strcmp(o, "--from")) a->from = v;
        else if (!strcmp(o, "--insts")) want = get_u32(v, &a->opts.max_insts) || a->opts.max_insts == 0 ? pos : NULL;
        else if (!strcmp(o, "--blocks")) want = get_u32(v, &a->opts.max_blocks) || a->opts.max_blocks == 0 ? pos : NULL;
        else if (!strcmp(o, "--machine")) a->machine = v;
        else if (!strcmp(o, "--regs") && (a->regs_given = true))
            want = get_range(v, &a->opts.min_regs, &a->opts.max_regs) || a->opts.min_regs == 0 || a->opts.max_regs > 64 /* the generator's most */
                       ? "N or MIN..MAX, from 1 to 64" : NULL;
        else if (!strcmp(o, "--pressure")) want = get_u32(v, &a->opts.pressure) || a->opts.pressure > 100 ? "0..100" : NULL;
        else if (!strcmp(o, "--window")) want = get_u32(v, &a->opts.window) ? num : NULL;
        else if (!strcmp(o, "--cfg")) {
            int cfg = rv_gen_cfg_parse(v);
            if (cfg >= 0) a->opts.cfg = (uint32_t)cfg;
            else want = "any or structured";
        } else if (!strcmp(o, "--count")) want = cli_parse_u64(v, &a->count) || a->count == 0 ? pos : NULL;
        else if (!strcmp(o, "--skip")) want = cli_parse_u64(v, &a->skip) ? num : NULL;
        else a->out = v;
        if (want) return cli_bad_value("gen", o, v, want);
    }
    if (a->from && a->count != 1) return bad("--from makes one module; drop", "--count");
    if (a->skip && !a->from) return bad("--skip needs", "--from");
    if (a->machine && a->regs_given) return bad("--regs does not apply with", "--machine");
    return -1;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Generates module number k (seed + k, or from the bytes). */
static ravel_module *make_module(const gen_args *a, const uint8_t *bytes, size_t nbytes, uint64_t k)
{
    if (a->from) return rv_gen_from_bytes(bytes, nbytes, &a->opts);
    return rv_gen_from_seed(a->seed + k, &a->opts);
}

static int write_file(const char *path, const ravel_module *mod)
{
    FILE *fp = fopen(path, "w");
    if (!fp) {
        fprintf(stderr, "ravel gen: %s: %s\n", path, strerror(errno));
        return CLI_USAGE;
    }
    rv_print_module(fp, mod);
    if (fclose(fp) != 0) {
        fprintf(stderr, "ravel gen: %s: write error\n", path);
        return CLI_USAGE;
    }
    return CLI_OK;
}

static int emit_all(const gen_args *a, const uint8_t *bytes, size_t nbytes)
{
    bool dir = a->out && is_dir(a->out);
    if (a->out && !dir && a->count > 1) return bad("--count > 1 needs an existing directory for -o, not", a->out);
    int rc = CLI_OK;
    for (uint64_t k = 0; k < a->count && rc == CLI_OK; k++) {
        ravel_module *mod = make_module(a, bytes, nbytes, k);
        if (dir) {
            size_t n = strlen(a->out) + 48;
            char *path = malloc(n);
            if (!path) rv_oom();
            snprintf(path, n, "%s/gen-%llu.ra", a->out, (unsigned long long)(a->seed + k));
            rc = write_file(path, mod);
            free(path);
        } else if (a->out) {
            rc = write_file(a->out, mod);
        } else {
            if (a->count > 1) printf("%s# ravel gen --seed %llu\n", k ? "\n" : "", (unsigned long long)(a->seed + k));
            rv_print_module(stdout, mod);
        }
        ravel_module_free(mod);
    }
    if (!a->out && fflush(stdout) != 0) rc = CLI_USAGE;
    return rc;
}

int cmd_gen(int argc, char **argv)
{
    gen_args a;
    int st = parse_args(argc, argv, &a);
    if (st >= 0) return st;
    size_t nbytes = 0;
    char *bytes = NULL;
    ravel_module *mm = NULL;
    if (a.machine) {
        if (!(mm = cli_read_machine("gen", a.machine))) return CLI_USAGE;
        a.opts.machine = ravel_module_machine(mm);
        char why[256];
        rv_gen_view_features(a.opts.machine, a.opts.features, why, sizeof why);
        if (why[0]) fprintf(stderr, "ravel gen: note: %s\n", why);
    }
    if (a.from && !(bytes = cli_read_file(a.from, &nbytes))) {
        ravel_module_free(mm);
        return CLI_USAGE;
    }
    size_t skip = a.skip < nbytes ? (size_t)a.skip : nbytes;
    int rc = emit_all(&a, bytes ? (const uint8_t *)bytes + skip : NULL, nbytes - skip); /* no NULL + 0 */
    free(bytes);
    ravel_module_free(mm);
    return rc;
}
