/* cmd_export_mir.c - `ravel export-mir`: ravel's generated functions (or
 * the functions of a .ra file) as x86-64 MIR in SSA (export/export.h), for
 * `ravel import-mir run --ssa` to put through LLVM's allocators. Generated
 * functions are drawn for the x86-64 machine of rvx_x86_machine, seeds S ..
 * S+K-1, to DIR/gen-SEED.mir; each function prints `NAME: exported` or
 * `NAME: skipped REASON: ...`, then a summary. Deterministic. */
#include "cli.h"
#include "export/export.h"
#include "fuzz/gen.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

static void usage(FILE *out)
{
    fputs("usage: ravel export-mir [--seed S] [--count K] [--insts N] [--blocks N] [--pressure P]\n"
          "                        [--window N] [--cfg any|structured] [--no-FEATURE ...] -o DIR\n"
          "       ravel export-mir FILE.ra [-o DIR|FILE.mir]\n"
          "Writes functions as x86-64 MIR over virtual registers, in SSA (block\n"
          "parameters as PHIs), for llc to allocate from phi elimination on:\n"
          "  ravel import-mir run --ssa DIR/gen-S.mir --alloc greedy -o OUT\n"
          "Without FILE.ra, ravel's generator draws K functions (seeds S .. S+K-1)\n"
          "for x86-64's 14 general registers (not rsp, rbp; Linux's caller-saved\n"
          "ones as a call's clobbers) and writes DIR/gen-SEED.mir. The generator's\n"
          "options are `ravel gen`'s (see ravel gen --help); safepoints are off\n"
          "(no MIR form here). A function the exporter cannot write is skipped with\n"
          "its reason. With FILE.ra, its functions (on that machine, whose register\n"
          "names must be x86-64's 64-bit ones) go to DIR/FUNC.mir, or to FILE.mir\n"
          "for one function.\n"
          "  --seed S     first seed (default 0)\n"
          "  --count K    functions to draw (default 1)\n"
          "  -o DIR|FILE  where to write (DIR must exist)\n"
          "exit status: 0 every function exported or skipped with a reason,\n"
          "2 bad usage, unreadable input or unwritable output\n",
          out);
}

typedef struct xargs {
    rv_gen_opts opts;
    uint64_t seed, count;
    const char *out, *file;
    uint32_t skipped[32], exported;
} xargs;

static int get_u32(const char *s, uint32_t *out)
{
    uint64_t v;
    if (cli_parse_u64(s, &v) || v > UINT32_MAX) return -1;
    *out = (uint32_t)v;
    return 0;
}

static int feature(const char *o, xargs *a, bool on)
{
    unsigned bit = rv_gen_feature_bit(o + (on ? 7 : 5));
    if (!bit) return cli_bad_feature("export-mir", o);
    if (on) a->opts.features |= bit;
    else a->opts.features &= ~bit;
    return -1;
}

/* One valued option; NULL when fine, else what the value should be. */
static const char *value(const char *o, const char *v, xargs *a)
{
    const char *num = "a whole number", *pos = "a whole number, at least 1";
    if (!strcmp(o, "--seed")) return cli_parse_u64(v, &a->seed) ? num : NULL;
    if (!strcmp(o, "--count")) return cli_parse_u64(v, &a->count) || !a->count ? pos : NULL;
    if (!strcmp(o, "--insts")) return get_u32(v, &a->opts.max_insts) || !a->opts.max_insts ? pos : NULL;
    if (!strcmp(o, "--blocks")) return get_u32(v, &a->opts.max_blocks) || !a->opts.max_blocks ? pos : NULL;
    if (!strcmp(o, "--pressure")) return get_u32(v, &a->opts.pressure) || a->opts.pressure > 100 ? "0..100" : NULL;
    if (!strcmp(o, "--window")) return get_u32(v, &a->opts.window) ? num : NULL;
    if (!strcmp(o, "--cfg")) {
        int cfg = rv_gen_cfg_parse(v);
        if (cfg < 0) return "any or structured";
        a->opts.cfg = (uint32_t)cfg;
        return NULL;
    }
    a->out = v;
    return NULL;
}

static int parse(int argc, char **argv, xargs *a)
{
    static const char *const valued[] = {"--seed", "--count", "--insts", "--blocks", "--pressure", "--window", "--cfg", "-o", NULL};
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (cli_is_help(o)) return usage(stdout), CLI_OK;
        if (!strncmp(o, "--no-", 5) || !strncmp(o, "--with-", 7)) {
            int st = feature(o, a, o[2] == 'w');
            if (st >= 0) return st;
            continue;
        }
        if (o[0] != '-') {
            if (a->file) return cli_usage_error("export-mir", "one .ra file at a time ('%s' and '%s')", a->file, o);
            a->file = o;
            continue;
        }
        bool takes = false;
        for (size_t k = 0; valued[k]; k++) takes |= !strcmp(o, valued[k]);
        if (!takes) return cli_usage_error("export-mir", "unknown option '%s'", o);
        if (!v) return cli_bad_value("export-mir", o, NULL, NULL);
        i++;
        const char *want = value(o, v, a);
        if (want) return cli_bad_value("export-mir", o, v, want);
    }
    if (!a->out) return cli_usage_error("export-mir", "-o DIR (or -o FILE.mir with a .ra file) is required");
    return -1;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int reason_index(const char *r)
{
    const char *const *rs = rvx_reasons();
    for (int i = 0; rs[i]; i++)
        if (!strcmp(rs[i], r)) return i;
    return 0;
}

/* Exports f to path; prints its line. CLI_USAGE if the file cannot be written. */
static int export_one(xargs *a, const ravel_func *f, const char *label, const char *path, const char *source)
{
    rvx_result r;
    rvx_export(f, rv_func_name(f), source, &r);
    if (!r.text) {
        printf("%s: skipped %s: %s\n", label, r.reason, r.msg);
        a->skipped[reason_index(r.reason)]++;
        return CLI_OK;
    }
    FILE *fp = fopen(path, "w");
    bool ok = fp && fwrite(r.text, 1, r.len, fp) == r.len;
    if (fp && fclose(fp) != 0) ok = false;
    rvx_result_free(&r);
    if (!ok) {
        fprintf(stderr, "ravel export-mir: cannot write %s: %s\n", path, strerror(errno));
        return CLI_USAGE;
    }
    printf("%s: exported\n", label);
    a->exported++;
    return CLI_OK;
}

static void summary(const xargs *a)
{
    uint32_t n = 0;
    for (int i = 0; rvx_reasons()[i]; i++) n += a->skipped[i];
    printf("exported %u, skipped %u\n", a->exported, n);
    for (int i = 0; rvx_reasons()[i]; i++)
        if (a->skipped[i]) printf("  %-32s %u\n", rvx_reasons()[i], a->skipped[i]);
}

static int from_generator(xargs *a)
{
    if (!is_dir(a->out)) return cli_usage_error("export-mir", "-o '%s' is not a directory", a->out);
    char mt[512]; /* the format wants a function after the machine */
    snprintf(mt, sizeof mt, "%sfunc machine_only\nb0:\n  ret\nend\n", rvx_x86_machine());
    ravel_diags *d = ravel_diags_new();
    ravel_module *mm = ravel_module_parse(mt, strlen(mt), "<x86-64>", d);
    ravel_diags_free(d);
    if (!mm) return fprintf(stderr, "ravel export-mir: error: the x86-64 machine does not parse\n"), CLI_USAGE;
    a->opts.machine = ravel_module_machine(mm);
    a->opts.features &= ~(unsigned)RAVEL_GEN_SAFEPOINTS;
    int rc = CLI_OK;
    for (uint64_t k = 0; k < a->count && rc == CLI_OK; k++) {
        char path[4096], label[64], src[64];
        unsigned long long s = (unsigned long long)(a->seed + k);
        snprintf(label, sizeof label, "gen-%llu", s);
        snprintf(src, sizeof src, "gen-%llu.ra", s);
        if ((size_t)snprintf(path, sizeof path, "%s/gen-%llu.mir", a->out, s) >= sizeof path)
            return ravel_module_free(mm), cli_usage_error("export-mir", "-o: path too long");
        ravel_module *mod = rv_gen_from_seed(a->seed + k, &a->opts);
        rc = export_one(a, ravel_module_func(mod, 0), label, path, src);
        ravel_module_free(mod);
    }
    ravel_module_free(mm);
    summary(a);
    return rc;
}

static int from_file(xargs *a)
{
    ravel_module *mod = cli_load(a->file);
    if (!mod) return CLI_USAGE;
    size_t n = ravel_module_nfuncs(mod);
    bool dir = is_dir(a->out);
    int rc = CLI_OK;
    if (!dir && n != 1) rc = cli_usage_error("export-mir", "%s has %zu functions: -o needs a directory", a->file, n);
    const char *base = strrchr(a->file, '/') ? strrchr(a->file, '/') + 1 : a->file;
    for (size_t i = 0; i < n && rc == CLI_OK; i++) {
        const ravel_func *f = ravel_module_func(mod, i);
        char path[4096];
        if (dir) snprintf(path, sizeof path, "%s/%s.mir", a->out, rv_func_name(f));
        else snprintf(path, sizeof path, "%s", a->out);
        rc = export_one(a, f, rv_func_name(f), path, base);
    }
    ravel_module_free(mod);
    if (rc == CLI_OK) summary(a);
    return rc;
}

int cmd_export_mir(int argc, char **argv)
{
    xargs a;
    memset(&a, 0, sizeof a);
    rv_gen_opts_default(&a.opts);
    a.count = 1;
    if (argc < 2) return usage(stderr), CLI_USAGE;
    int st = parse(argc, argv, &a);
    if (st >= 0) return st;
    int rc = a.file ? from_file(&a) : from_generator(&a);
    if (fflush(stdout) != 0) rc = CLI_USAGE;
    return rc;
}
