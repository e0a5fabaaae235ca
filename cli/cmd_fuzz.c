/* cmd_fuzz.c - `ravel fuzz`: the built-in fuzzing campaign (fuzz/campaign.c).
 * Parses options into rv_campaign_opts, runs, prints the summary table. */
#define _POSIX_C_SOURCE 200809L /* sigaction, isatty */
#include "cli.h"
#include "fuzz/campaign.h"
#include "fuzz/extalloc.h"

#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void fuzz_usage(FILE *out)
{
    fputs("usage: ravel fuzz [OPTIONS]\n"
          "\n"
          "Generates random valid functions, allocates each with every built-in allocator\n"
          "(or one), and checks every allocation with the checker. Failing cases are\n"
          "written as .ra files (machine, function, wrong allocation, checker report).\n"
          "Deterministic: the same --seed and --count give the same functions and\n"
          "verdicts, whatever -j (which files are written under the --max-files cap\n"
          "depends on timing with several workers).\n"
          "\n"
          "options:\n"
          "  -t, --time SECONDS     run for this long (default 60)\n"
          "  -n, --count N          run N iterations instead of a time budget\n"
          "  -s, --seed S           campaign seed (default: a fresh one, printed; give it\n"
          "                         again to replay the campaign)\n"
          "  -j, --jobs N           worker processes (default: number of CPUs)\n"
          "  -a, --allocator NAME   only this allocator (default: all of them)\n"
          "      --alloc-cmd 'CMD'  also an external allocator: a shell command speaking the\n"
          "                         ravel-alloc protocol (docs/protocol.md); repeatable; named\n"
          "                         cmd1, cmd2, ... in the summary; without -a only the\n"
          "                         commands run. A command that cannot run at all (not\n"
          "                         found, no output) is an error (exit 2) before the start\n"
          "      --alloc-protocol oneshot|frames\n"
          "                         oneshot (default): CMD runs once per function, module on\n"
          "                         stdin, allocated module on stdout, exit 3 = declined;\n"
          "                         frames: CMD runs once per worker and serves many\n"
          "      --alloc-timeout S  a command taking longer on one function fails it (default 10)\n"
          "  -d, --differential     also run both forms in the interpreter and compare\n"
          "      --oracle           also fuzz the checker: corrupt every accepted allocation;\n"
          "                         if the checker accepts it, the interpreter must agree;\n"
          "                         the corruptions are the bugs of 'ravel alloc --inject list',\n"
          "                         counted per kind in the summary\n"
          "      --inject KIND      --oracle: inject only bugs of this kind\n"
          "      --inject-prob P    --oracle: corrupt an allocation with probability P (0..1,\n"
          "                         default 1)\n"
          "      --paths            also fuzz the checker's shortcuts: every checker path must\n"
          "                         give the reference fixpoint's verdict and report on each\n"
          "                         allocation (and, with --oracle, each corruption)\n"
          "  -o, --out DIR          where failing cases go (default ./ravel-fuzz-out)\n"
          "      --insts N          generator: at most N instructions per function (default 200)\n"
          "      --blocks N         generator: at most N blocks per function\n"
          "      --machine FILE     generator: functions for the machine of the .ra file FILE\n"
          "                         (every input byte to the function; --regs, --min-regs\n"
          "                         do not apply; features it cannot honour are turned off)\n"
          "      --regs N           generator: at most N registers per class (1..32)\n"
          "      --min-regs N       generator: at least N registers per class\n"
          "      --pressure P       generator: register pressure 0..100\n"
          "      --window N         generator: pressure picks among the N newest values of\n"
          "                         a type (default 0: any in scope; see ravel gen --help)\n"
          "      --cfg any|structured\n"
          "                         generator: arbitrary control flow mixed in (any, the\n"
          "                         default: a third of the functions irreducible) or only\n"
          "                         structured code (see ravel gen --help)\n"
          "      --no-FEATURE       generator: never use FEATURE (as ravel gen: loops multiway\n"
          "                         params fixed reuse early-late any-stack calls safepoints\n"
          "                         copy classes)\n"
          "      --with-FEATURE     generator: use FEATURE (alias undef remat: docs/format.md\n"
          "                         section 14: on by default, like every feature)\n"
          "      --max-files N      failure files per allocator (default 20)\n"
          "      --stall-timeout S  a worker that makes no progress for S seconds is killed\n"
          "                         and its case written as a failure (default 60)\n"
          "  -q, --quiet            no progress line\n"
          "      --json             print the summary as one JSON object (fields: README)\n"
          "  -h, --help             this text\n"
          "\n"
          "exit status: 0 no failure, 1 failures found, 2 bad usage, 130 interrupted\n"
          "(Ctrl-C: the summary of the work done, then 130)\n",
          out);
}

/* The SIGINT flag: the one piece of process state, owned by the CLI. */
static volatile sig_atomic_t fuzz_interrupted;
static void on_sigint(int sig) { (void)sig; fuzz_interrupted = 1; }

static int bad(const char *arg, const char *val, const char *want) { return cli_bad_value("fuzz", arg, val, want); }

/* If argv[*i] is the option with short name sh ("-j") or long name lg
 * ("--jobs"), sets *val to its value (attached: "-j4", "--jobs=4"; else the
 * next argument, or NULL if none) and returns true. */
static bool opt(int argc, char **argv, int *i, const char *sh, const char *lg, const char **val)
{
    const char *a = argv[*i];
    size_t n = lg ? strlen(lg) : 0;
    if ((sh && !strcmp(a, sh)) || (lg && !strcmp(a, lg))) {
        *val = *i + 1 < argc ? argv[++*i] : NULL;
        return true;
    }
    if (sh && !strncmp(a, sh, 2) && a[2]) return *val = a + 2, true;
    if (lg && !strncmp(a, lg, n) && a[n] == '=') return *val = a + n + 1, true;
    return false;
}

/* A numeric value in [lo, hi]; returns 0 and stores it, or -1. */
static int num(const char *val, uint64_t lo, uint64_t hi, uint64_t *v)
{
    return val && !cli_parse_u64(val, v) && *v >= lo && *v <= hi ? 0 : -1;
}

/* Generator knobs: --insts --blocks --regs --min-regs --pressure --window --cfg --no-FEATURE --with-FEATURE. Returns
 * 1 if argv[*i] was one, 0 if not, -1 after reporting a bad value. */
static int gen_opt(int argc, char **argv, int *i, rv_gen_opts *g)
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
    const char *a = argv[*i], *val;
    uint64_t v;
    if (strncmp(a, "--no-", 5) == 0 || strncmp(a, "--with-", 7) == 0) {
        bool with = a[2] == 'w';
        unsigned bit = rv_gen_feature_bit(a + (with ? 7 : 5));
        if (!bit) {
            cli_bad_feature("fuzz", a);
            return -1;
        }
        if (with) g->features |= bit;
        else g->features &= ~bit;
        return 1;
    }
    if (opt(argc, argv, i, NULL, "--cfg", &val)) {
        int cfg = val ? rv_gen_cfg_parse(val) : -1;
        if (cfg < 0) {
            bad(a, val, "any or structured");
            return -1;
        }
        g->cfg = (uint32_t)cfg;
        return 1;
    }
    for (size_t k = 0; k < sizeof knobs / sizeof *knobs; k++) {
        if (!opt(argc, argv, i, NULL, knobs[k].name, &val)) continue;
        if (num(val, knobs[k].lo, knobs[k].hi, &v)) {
            bad(a, val, knobs[k].want);
            return -1;
        }
        *(uint32_t *)((char *)g + knobs[k].field) = (uint32_t)v;
        return 1;
    }
    return 0;
}

/* A fresh campaign seed: the clock and the process id, mixed. */
static uint64_t fresh_seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    x ^= (uint64_t)getpid() << 32;
    x ^= x >> 33, x *= 0xff51afd7ed558ccdull, x ^= x >> 33, x *= 0xc4ceb9fe1a85ec53ull, x ^= x >> 33;
    return x;
}

static int parse_args(int argc, char **argv, rv_campaign_opts *o, bool *quiet, bool *json, bool *seeded)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        uint64_t v = 0;
        int g;
        if (cli_is_help(a)) {
            fuzz_usage(stdout);
            return -1;
        } else if (opt(argc, argv, &i, "-t", "--time", &val)) {
            char *end;
            double s = val ? strtod(val, &end) : 0;
            if (!val || *end || !(s > 0) || s > 1e9) return bad(a, val, "seconds, more than 0");
            o->seconds = s;
        } else if (opt(argc, argv, &i, NULL, "--stall-timeout", &val)) {
            char *end;
            double s = val ? strtod(val, &end) : 0;
            if (!val || *end || !(s > 0) || s > 1e9) return bad(a, val, "seconds, more than 0");
            o->stall_seconds = s;
        } else if (opt(argc, argv, &i, "-n", "--count", &val)) {
            if (num(val, 1, UINT64_MAX, &o->count)) return bad(a, val, "a whole number, at least 1");
        } else if (opt(argc, argv, &i, "-s", "--seed", &val)) {
            if (num(val, 0, UINT64_MAX, &o->seed)) return bad(a, val, "a whole number");
            *seeded = true;
        } else if (opt(argc, argv, &i, "-j", "--jobs", &val)) {
            if (num(val, 1, 1024, &v)) return bad(a, val, "a whole number from 1 to 1024");
            o->jobs = (unsigned)v;
        } else if (opt(argc, argv, &i, "-a", "--allocator", &val)) {
            if (!val || !*val) return bad(a, val, "an allocator's name");
            o->allocator = val;
        } else if (opt(argc, argv, &i, NULL, "--alloc-cmd", &val)) {
            if (!val || !*val) return bad(a, val, "a shell command");
            if (o->ext.ncmds >= RV_CAMPAIGN_MAX_ALLOCS) return bad(a, val, "at most 32 commands");
            const char **cmds = realloc((void *)o->ext.cmds, (o->ext.ncmds + 1) * sizeof *cmds);
            if (!cmds) rv_oom();
            cmds[o->ext.ncmds++] = val;
            o->ext.cmds = cmds;
        } else if (opt(argc, argv, &i, NULL, "--alloc-protocol", &val)) {
            if ((o->ext.protocol = rv_ext_protocol_parse(val)) < 0) return bad(a, val, "oneshot or frames");
        } else if (opt(argc, argv, &i, NULL, "--alloc-timeout", &val)) {
            char *end;
            double s = val ? strtod(val, &end) : 0;
            if (!val || *end || !(s > 0) || s > 1e6) return bad(a, val, "seconds, more than 0");
            o->ext.timeout = s;
        } else if (opt(argc, argv, &i, "-o", "--out", &val)) {
            if (!val || !*val) return bad(a, val, "a directory");
            o->outdir = val;
        } else if (opt(argc, argv, &i, NULL, "--max-files", &val)) {
            if (num(val, 0, 1000000, &v)) return bad(a, val, "a whole number from 0 to 1000000");
            o->max_files = (unsigned)v;
        } else if ((g = gen_opt(argc, argv, &i, &o->gen)) != 0) {
            if (g < 0) return CLI_USAGE;
        } else if (!strcmp(a, "-d") || !strcmp(a, "--differential")) {
            o->differential = true;
        } else if (!strcmp(a, "--oracle")) {
            o->oracle = true;
        } else if (!strcmp(a, "--paths")) {
            o->paths = true;
        } else if (opt(argc, argv, &i, NULL, "--inject", &val)) {
            if ((o->inject_kind = rv_inject_find(val)) < 0) return bad(a, val, "a kind of 'ravel alloc --inject list'");
        } else if (opt(argc, argv, &i, NULL, "--inject-prob", &val)) {
            char *end = NULL;
            double p = val ? strtod(val, &end) : -1;
            if (!val || *end || !(p >= 0 && p <= 1)) return bad(a, val, "a probability from 0 to 1");
            o->inject_permille = (unsigned)(p * 1000 + 0.5);
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            *quiet = true;
        } else if (!strcmp(a, "--json")) {
            *json = true;
        } else {
            return cli_usage_error("fuzz", "unknown option '%s'", a);
        }
    }
    if (!o->oracle && (o->inject_kind >= 0 || o->inject_permille != 1000))
        return cli_usage_error("fuzz", "--inject and --inject-prob need --oracle");
    if (!o->ext.ncmds && (o->ext.protocol != 0 || o->ext.timeout > 0))
        return cli_usage_error("fuzz", "--alloc-protocol and --alloc-timeout need --alloc-cmd");
    if (o->gen.min_regs > o->gen.max_regs) {
        return cli_usage_error("fuzz", "--min-regs is larger than --regs");
    }
    if (o->allocator && rv_fuzz_allocator_index(o->allocator) < 0) {
        char list[512];
        size_t n = 0;
        list[0] = 0;
        for (size_t k = 0; rv_allocators[k].name && n < sizeof list; k++) {
            int w = snprintf(list + n, sizeof list - n, "%s%s", k ? " " : "", rv_allocators[k].name);
            if (w < 0) break;
            n += (size_t)w;
        }
        return cli_usage_error("fuzz", "unknown allocator '%s' (built in: %s)", o->allocator, list);
    }
    return 0;
}

/* Takes `--machine FILE` (or --machine=FILE) out of argv (in place; returns
 * the new argc); *path: FILE, NULL if absent; -1 if its value is missing. */
static int take_machine(int argc, char **argv, const char **path)
{
    int n = 0;
    *path = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--machine")) {
            if (i + 1 >= argc) return -1;
            *path = argv[++i];
        } else if (!strncmp(argv[i], "--machine=", 10)) {
            *path = argv[i] + 10;
        } else {
            argv[n++] = argv[i];
        }
    }
    return n;
}

int cmd_fuzz(int argc, char **argv)
{
    rv_campaign_opts o;
    rv_campaign_opts_default(&o);
    bool quiet = false, json = false, seeded = false;
    const char *machine_path;
    if ((argc = take_machine(argc, argv, &machine_path)) < 0) return bad("--machine", NULL, "a .ra file");
    int rc = parse_args(argc, argv, &o, &quiet, &json, &seeded);
    if (rc) {
        free((void *)o.ext.cmds);
        return rc < 0 ? CLI_OK : rc;
    }
    ravel_module *mm = machine_path ? cli_read_machine("fuzz", machine_path) : NULL;
    if (machine_path && !mm) {
        free((void *)o.ext.cmds);
        return CLI_USAGE;
    }
    if (mm) {
        char why[256];
        o.gen.machine = ravel_module_machine(mm);
        rv_gen_view_features(o.gen.machine, o.gen.features, why, sizeof why);
        if (why[0]) fprintf(stderr, "ravel fuzz: note: %s\n", why);
    }
    if (!seeded) o.seed = fresh_seed(); /* new ground on every run; --seed replays */
    fprintf(stderr, "ravel fuzz: seed 0x%llx (replay with --seed 0x%llx)\n", (unsigned long long)o.seed,
            (unsigned long long)o.seed);
    o.progress = quiet ? NULL : stderr;
    o.tty = isatty(STDERR_FILENO);
    o.interrupt = &fuzz_interrupted;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    rv_campaign_result r;
    rc = rv_campaign_run(&o, &r);
    sigaction(SIGINT, &old, NULL);
    free((void *)o.ext.cmds);
    ravel_module_free(mm);
    if (rc == 2) return CLI_USAGE;
    if (json) {
        rv_campaign_print_json(stdout, &r, o.outdir);
    } else {
        rv_campaign_print_summary(stdout, &r);
        if (rc == 1) printf("failing cases in %s/\n", o.outdir);
    }
    if (r.interrupted) return 130; /* Ctrl-C: after the summary, as a shell reports SIGINT */
    return rc ? CLI_FAIL : CLI_OK;
}
