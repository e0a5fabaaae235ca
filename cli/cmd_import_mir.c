/* cmd_import_mir.c - `ravel import-mir`: LLVM's x86-64 register
 * allocations as .ra files (docs/import-mapping.md, docs/import.md).
 *   ravel import-mir run FILE.c|FILE.ll|FILE.mir [options] -o DIR
 *   ravel import-mir tag PRE.mir [-o TAG.mir]
 *   ravel import-mir join --alloc A TAG.mir DUMPS.txt POST.mir -o DIR
 * Exit status: 0 every function imported or refused with a reason, 1 an
 * import error (or llc failed), 2 bad usage or unreadable input. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "cli.h"
#include "import/import.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void import_usage(FILE *out)
{
    fputs("usage: ravel import-mir SUBCOMMAND ...\n"
          "Imports LLVM 19's x86-64 register allocations as .ra files (docs/import.md):\n"
          "FUNC.orig.ra (before allocation) and FUNC.ra (LLVM's allocation), which\n"
          "'ravel check DIR/FUNC.ra --orig DIR/FUNC.orig.ra' judges.\n"
          "subcommands:\n"
          "  run FILE.c|FILE.ll|FILE.mir -o DIR   compile, allocate with llc, import every function\n"
          "  tag PRE.mir [-o TAG.mir]             stage S1: a unique debug location on every instruction\n"
          "  join --alloc A TAG.mir DUMPS.txt POST.mir -o DIR\n"
          "                                       stages S4-S7 on llc's printouts\n"
          "'ravel import-mir SUBCOMMAND --help' describes each.\n",
          out);
}

static void tag_usage(FILE *out)
{
    fputs("usage: ravel import-mir tag PRE.mir [-o TAG.mir]\n"
          "Stage S1 of docs/import.md: rewrites the debug location of every instruction\n"
          "of every function body of PRE.mir (llc -stop-before=ALLOC output, from IR\n"
          "compiled with -gline-tables-only) to a fresh DILocation, unique in the\n"
          "function, and appends the nodes to the module's metadata.\n"
          "  -o FILE   write TAG.mir there (default: standard output)\n"
          "exit status: 0 written, 2 unreadable input or bad usage\n",
          out);
}

/* Reads path into a mir_text (cli_read_file); false after a message. */
static bool read_text(const char *path, mir_text *t)
{
    size_t len;
    char *s = cli_read_file(path, &len);
    if (!s) return false;
    t->file = path;
    t->src = s;
    t->len = len;
    return true;
}

static int cmd_tag(int argc, char **argv)
{
    const char *in = NULL, *outpath = NULL;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) return tag_usage(stdout), CLI_OK;
        if (strcmp(argv[i], "-o") == 0) {
            if (i + 1 >= argc) return cli_bad_value("import-mir tag", "-o", NULL, "a file");
            outpath = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("import-mir tag", "unknown option '%s'", argv[i]);
        } else if (in) {
            return cli_usage_error("import-mir tag", "one input file only ('%s' and '%s')", in, argv[i]);
        } else {
            in = argv[i];
        }
    }
    if (!in) return tag_usage(stderr), CLI_USAGE;
    mir_text t;
    if (!read_text(in, &t)) return CLI_USAGE;
    ravel_diags *d = ravel_diags_new();
    size_t n = 0;
    char *tagged = rvi_tag(&t, d, &n);
    ravel_diags_print(stderr, d);
    ravel_diags_free(d);
    free((char *)t.src);
    if (!tagged) return CLI_USAGE;
    cli_out o;
    FILE *fp = cli_out_open(&o, "import-mir tag", outpath);
    int rc = CLI_USAGE;
    if (fp) {
        fwrite(tagged, 1, n, fp);
        rc = cli_out_commit(&o, "import-mir tag", true);
    }
    rv_free(tagged);
    return rc;
}

static void join_usage(FILE *out)
{
    fputs("usage: ravel import-mir join --alloc greedy|basic|fast|pbqp TAG.mir DUMPS.txt POST.mir -o DIR\n"
          "Stages S4-S7 of docs/import.md on llc's printouts: TAG.mir (from 'import-mir tag'),\n"
          "DUMPS.txt (llc's -print-before/-print-after of the allocator or the rewriter, its\n"
          "stderr) and POST.mir (llc's -o output). Writes DIR/FUNC.orig.ra and DIR/FUNC.ra for\n"
          "each imported function and prints one line per function and a summary.\n"
          "  --alloc A          the allocator llc ran (required)\n"
          "  -o DIR             the output directory (created if missing)\n"
          "  --full-machine     docs/import-mapping.md §5.1's whole machine block\n"
          "  --no-comments      no MIR text as comments in FUNC.ra\n"
          "  --check            judge each imported function as 'ravel check DIR/FUNC.ra\n"
          "                     --orig DIR/FUNC.orig.ra' would (output, if rejected: DIR/FUNC.check)\n"
          "  -q, --quiet        the summary only\n"
          "exit status: 0 every function imported or refused with a reason (and, with --check,\n"
          "             verified), 1 an import error or a rejection, 2 unreadable input or bad usage\n",
          out);
}

/* A file name for function name: characters outside [A-Za-z0-9_.$-] as '_'. */
static void file_name(char *out, size_t n, const char *dir, const char *func, const char *ext)
{
    size_t k = (size_t)snprintf(out, n, "%s/", dir);
    for (const char *c = func; *c && k + 16 < n; c++) {
        char ch = *c;
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '$' || ch == '-';
        bool lead_dot = ch == '.' && out[k - 1] == '/';
        out[k] = ok && !lead_dot ? ch : '_';
        k++;
    }
    snprintf(out + k, n - k, "%s", ext);
}

static bool write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    if (!fp) {
        fprintf(stderr, "ravel import-mir: cannot write '%s': %s\n", path, strerror(errno));
        return false;
    }
    fputs(text, fp);
    bool ok = fclose(fp) == 0;
    if (!ok) fprintf(stderr, "ravel import-mir: cannot write '%s'\n", path);
    return ok;
}

/* mkdir -p */
static bool make_dir(const char *dir)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) return false;
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(path, 0777) != 0 && errno != EEXIST) break;
        *p = '/';
    }
    if (mkdir(path, 0777) == 0 || errno == EEXIST) return true;
    fprintf(stderr, "ravel import-mir: cannot create '%s': %s\n", dir, strerror(errno));
    return false;
}

/* Counts of one run: imported, refused per reason, import errors. */
typedef struct tally {
    unsigned imported, refused, errors, untagged;
    unsigned verified, rejected; /* with --check */
    ravel_checker *ck;           /* with --check: `ravel check` in this process */
    double t_check;              /* its CPU seconds */
    struct {
        char reason[96];
        unsigned n;
    } reasons[64];
    unsigned nreasons;
} tally;

static void tally_add(tally *t, const rvi_result *r)
{
    if (r->outcome == RVI_IMPORTED) {
        t->imported++;
        t->untagged += r->untagged;
        return;
    }
    if (r->outcome == RVI_REFUSED) t->refused++;
    else t->errors++;
    char key[96];
    snprintf(key, sizeof key, "%s%s", r->outcome == RVI_ERROR ? "error:" : "", r->reason ? r->reason : "?");
    for (unsigned i = 0; i < t->nreasons; i++)
        if (strcmp(t->reasons[i].reason, key) == 0) {
            t->reasons[i].n++;
            return;
        }
    if (t->nreasons < 64) {
        snprintf(t->reasons[t->nreasons].reason, sizeof t->reasons[0].reason, "%s", key);
        t->reasons[t->nreasons++].n = 1;
    }
}

static void tally_print(FILE *out, const tally *t)
{
    fprintf(out, "imported %u, refused %u, import errors %u\n", t->imported, t->refused, t->errors);
    if (t->ck) fprintf(out, "checked: verified %u, rejected %u\n", t->verified, t->rejected);
    if (t->untagged) fprintf(out, "  (%u copies placed without their tag, R28/R29: worth a look by hand)\n", t->untagged);
    for (unsigned i = 0; i < t->nreasons; i++) fprintf(out, "  %-32s %u\n", t->reasons[i].reason, t->reasons[i].n);
}

/* --check: `ravel check DIR/FUNC.ra --orig DIR/FUNC.orig.ra` in this
 * process, on the texts just written; its output goes to DIR/FUNC.check
 * only if the function is not verified (a file per verified function
 * would cost more than the check). Returns false if not verified. */
static bool check_imported(const char *dir, const rvi_result *r, tally *t)
{
    char ra[4096], orig[4096], out[4096];
    file_name(ra, sizeof ra, dir, r->func, ".ra");
    file_name(orig, sizeof orig, dir, r->func, ".orig.ra");
    file_name(out, sizeof out, dir, r->func, ".check");
    clock_t c0 = clock();
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    int rc = fp ? cli_check_texts(t->ck, ra, r->alloc, orig, r->orig, fp) : CLI_USAGE;
    if (fp && fclose(fp) != 0) rc = CLI_USAGE;
    if (rc != CLI_OK && buf) write_file(out, buf);
    else if (rc == CLI_OK) remove(out); /* none left from an earlier run */
    free(buf);
    t->t_check += (double)(clock() - c0) / CLOCKS_PER_SEC;
    if (rc == CLI_OK) t->verified++;
    else t->rejected++;
    return rc == CLI_OK;
}

/* One imported function: its two files, then (--check) its verdict. */
static bool write_imported(const rvi_result *r, const char *dir, bool quiet, tally *t)
{
    char path[4096];
    file_name(path, sizeof path, dir, r->func, ".orig.ra");
    bool ok = write_file(path, r->orig);
    file_name(path, sizeof path, dir, r->func, ".ra");
    ok = write_file(path, r->alloc) && ok;
    const char *verdict = "";
    if (ok && t->ck) verdict = check_imported(dir, r, t) ? ", verified" : ", rejected";
    if (!quiet && r->untagged)
        printf("%s: imported (%u cop%s placed without its tag)%s\n", r->func, r->untagged, r->untagged == 1 ? "y" : "ies", verdict);
    else if (!quiet) printf("%s: imported%s\n", r->func, verdict);
    return ok;
}

/* Imports every function of the three texts into dir. Returns false on
 * unreadable input (diagnostics printed). */
static bool import_all(const rvi_texts *tx, const rvi_opts *o, const char *dir, bool quiet, tally *t)
{
    ravel_diags *d = ravel_diags_new();
    rvi_module *m = rvi_module_read(tx, d);
    ravel_diags_print(stderr, d);
    ravel_diags_free(d);
    if (!m) return false;
    bool ok = true;
    for (uint32_t i = 0; i < rvi_module_nfuncs(m); i++) {
        rvi_result r;
        rvi_import(m, i, o, &r);
        tally_add(t, &r);
        if (r.outcome == RVI_IMPORTED) {
            ok = write_imported(&r, dir, quiet, t) && ok;
        } else if (!quiet) {
            printf("%s: %s %s: %s\n", r.func, r.outcome == RVI_REFUSED ? "refused" : "import error", r.reason, r.message ? r.message : "");
        }
        rvi_result_free(&r);
    }
    rvi_module_free(m);
    return ok;
}

static int cmd_join(int argc, char **argv)
{
    const char *files[3] = {NULL, NULL, NULL}, *dir = NULL;
    int nfiles = 0;
    bool quiet = false, check = false;
    rvi_opts o = {RVI_NALLOC, false, true, NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) return join_usage(stdout), CLI_OK;
        if (strcmp(a, "--alloc") == 0) {
            if (i + 1 >= argc || rvi_alloc_find(argv[i + 1]) < 0)
                return cli_bad_value("import-mir join", a, i + 1 < argc ? argv[i + 1] : NULL, "greedy, basic, fast or pbqp");
            o.alloc = (enum rvi_alloc)rvi_alloc_find(argv[++i]);
        } else if (strcmp(a, "-o") == 0) {
            if (i + 1 >= argc) return cli_bad_value("import-mir join", a, NULL, "a directory");
            dir = argv[++i];
        } else if (strcmp(a, "--full-machine") == 0) {
            o.full_machine = true;
        } else if (strcmp(a, "--no-comments") == 0) {
            o.comments = false;
        } else if (strcmp(a, "--check") == 0) {
            check = true;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            quiet = true;
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("import-mir join", "unknown option '%s'", a);
        } else if (nfiles < 3) {
            files[nfiles++] = a;
        } else {
            return cli_usage_error("import-mir join", "three input files only");
        }
    }
    if (nfiles == 0 && !dir) return join_usage(stderr), CLI_USAGE;
    if (nfiles != 3) return cli_usage_error("import-mir join", "needs TAG.mir, DUMPS.txt and POST.mir");
    if (o.alloc == RVI_NALLOC) return cli_usage_error("import-mir join", "--alloc is required");
    if (!dir) return cli_usage_error("import-mir join", "-o DIR is required");
    rvi_texts tx;
    memset(&tx, 0, sizeof tx);
    mir_text *slots[3] = {&tx.tag, &tx.dumps, &tx.post};
    int rc = CLI_USAGE;
    bool read = true;
    for (int i = 0; i < 3 && read; i++) read = read_text(files[i], slots[i]);
    tally t;
    memset(&t, 0, sizeof t);
    if (check) t.ck = ravel_checker_new();
    if (read && make_dir(dir) && import_all(&tx, &o, dir, quiet, &t)) {
        tally_print(stdout, &t);
        rc = t.errors || t.rejected ? CLI_FAIL : CLI_OK;
    }
    ravel_checker_free(t.ck);
    for (int i = 0; i < 3; i++) free((char *)slots[i]->src);
    return rc;
}

static void run_usage(FILE *out)
{
    fputs("usage: ravel import-mir run FILE.c|FILE.ll|FILE.mir [options] -o DIR\n"
          "Compiles FILE with clang (-gline-tables-only), stops llc before the allocator,\n"
          "tags every instruction (S1), runs the allocator and the rewriter with llc printing\n"
          "both, and imports every function (docs/import.md): DIR/FUNC.orig.ra and DIR/FUNC.ra,\n"
          "then 'ravel check DIR/FUNC.ra --orig DIR/FUNC.orig.ra'. A .ll file starts at llc;\n"
          "a .mir file is taken as llc's -stop-before output, or with --ssa as SSA machine\n"
          "code (ravel export-mir) that llc first runs from phi elimination (-O0) or\n"
          "detect-dead-lanes to the allocator. One line per function and a\n"
          "summary (imported, refused per reason, import errors) go to standard output.\n"
          "  --alloc A        greedy (default), basic, pbqp or fast\n"
          "  -O LEVEL         clang's and llc's level (default 2; 0 for fast)\n"
          "  --llvm VERSION   the LLVM to use (default: 19, else 16, else 14, else llc)\n"
          "  --keep           keep the intermediate files and commands in DIR/llvm/\n"
          "  --timeout SEC    per clang or llc process (default 120)\n"
          "  -I DIR, -D DEF   passed to clang (also -IDIR, -DDEF)\n"
          "  --clang-arg ARG  any other clang argument (repeatable)\n"
          "  --ssa            FILE.mir is SSA machine code (ravel export-mir's output)\n"
          "  --full-machine   docs/import-mapping.md §5.1's whole machine block\n"
          "  --check          also judge each imported function in this process, as\n"
          "                   'ravel check DIR/FUNC.ra --orig DIR/FUNC.orig.ra' would\n"
          "                   (its output in DIR/FUNC.check if rejected; ', verified' or\n"
          "                   ', rejected' ends the function's line; exit status 1 if\n"
          "                   any is rejected)\n"
          "  --times          a last line 'times: clang C llc L import I' (CPU seconds;\n"
          "                   import: this process, the tag stage included), with --check\n"
          "                   followed by ' check K' (not counted in I)\n"
          "  -q, --quiet      the summary only\n"
          "  -o DIR           the output directory (created if missing)\n"
          "exit status: 0 every function imported or refused with a reason (and, with\n"
          "             --check, verified), 1 an import error, a rejection or llc failed,\n"
          "             2 the input cannot be compiled, bad usage\n",
          out);
}

typedef struct run_args {
    const char *input, *dir;
    rvi_opts o;
    int olevel, llvm;
    bool keep, quiet, times, ssa, check;
    double timeout;
    const char **cflags; /* NULL-terminated; the argv strings */
    int ncflags;
} run_args;

static int parse_run(int argc, char **argv, run_args *a)
{
    const char *cmd = "import-mir run";
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t n;
        if (cli_is_help(s)) return run_usage(stdout), -1;
        if (strcmp(s, "--alloc") == 0) {
            if (!v || rvi_alloc_find(v) < 0) return cli_bad_value(cmd, s, v, "greedy, basic, fast or pbqp");
            a->o.alloc = (enum rvi_alloc)rvi_alloc_find(v), i++;
        } else if (strcmp(s, "-O") == 0 || (s[0] == '-' && s[1] == 'O' && s[2])) {
            const char *lv = s[2] ? s + 2 : v;
            if (!lv || cli_parse_u64(lv, &n) != 0 || n > 3) return cli_bad_value(cmd, "-O", lv, "0, 1, 2 or 3");
            a->olevel = (int)n;
            if (!s[2]) i++;
        } else if (strcmp(s, "--llvm") == 0) {
            if (!v || cli_parse_u64(v, &n) != 0 || n < 10 || n > 99) return cli_bad_value(cmd, s, v, "a major version such as 19");
            a->llvm = (int)n, i++;
        } else if (strcmp(s, "--timeout") == 0) {
            if (!v || cli_parse_u64(v, &n) != 0 || n == 0 || n > 86400) return cli_bad_value(cmd, s, v, "seconds");
            a->timeout = (double)n, i++;
        } else if (strcmp(s, "-o") == 0) {
            if (!v) return cli_bad_value(cmd, s, NULL, "a directory");
            a->dir = v, i++;
        } else if ((s[0] == '-' && (s[1] == 'I' || s[1] == 'D')) || strcmp(s, "--clang-arg") == 0) {
            bool split = strcmp(s, "--clang-arg") == 0 || !s[2];
            if (split && !v) return cli_bad_value(cmd, s, NULL, "an argument");
            if (split && strcmp(s, "--clang-arg") != 0) a->cflags[a->ncflags++] = s;
            a->cflags[a->ncflags++] = split ? v : s;
            if (split) i++;
        } else if (strcmp(s, "--keep") == 0) {
            a->keep = true;
        } else if (strcmp(s, "--ssa") == 0) {
            a->ssa = true;
        } else if (strcmp(s, "--full-machine") == 0) {
            a->o.full_machine = true;
        } else if (strcmp(s, "--times") == 0) {
            a->times = true;
        } else if (strcmp(s, "--check") == 0) {
            a->check = true;
        } else if (strcmp(s, "-q") == 0 || strcmp(s, "--quiet") == 0) {
            a->quiet = true;
        } else if (s[0] == '-' && s[1]) {
            return cli_usage_error(cmd, "unknown option '%s'", s);
        } else if (a->input) {
            return cli_usage_error(cmd, "one input file only ('%s' and '%s')", a->input, s);
        } else {
            a->input = s;
        }
    }
    if (!a->input && !a->dir) return run_usage(stderr), CLI_USAGE;
    if (!a->input) return cli_usage_error(cmd, "no input file");
    if (!a->dir) return cli_usage_error(cmd, "-o DIR is required");
    size_t il = strlen(a->input);
    if (a->ssa && (il < 4 || strcmp(a->input + il - 4, ".mir"))) return cli_usage_error(cmd, "--ssa needs a .mir input, not '%s'", a->input);
    return 0;
}

/* llc failed on the module: every function of pre.mir is refused (llc). */
static void refuse_all(const rvi_pipe *p, const char *file, bool quiet, tally *t)
{
    mir_text tx = {file, p->pre_text, p->pre_len};
    rv_symtab syms;
    memset(&syms, 0, sizeof syms);
    ravel_diags *d = ravel_diags_new();
    mir_module m;
    mir_module_read(&m, &tx, &syms, d);
    for (uint32_t i = 0; i < m.funcs.len; i++) {
        rvi_result r;
        memset(&r, 0, sizeof r);
        r.outcome = RVI_REFUSED;
        r.reason = (char *)"llc";
        tally_add(t, &r);
        if (!quiet) printf("%.*s: refused llc: %s\n", (int)m.funcs.data[i]->nlen, p->pre_text + m.funcs.data[i]->name, p->msg);
    }
    mir_module_free(&m);
    rv_symtab_free(&syms);
    ravel_diags_free(d);
}

static void stem_of(const char *path, char *out, size_t n)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, n, "%s", b);
    char *dot = strrchr(out, '.');
    if (dot && dot != out) *dot = 0;
    if (strlen(out) > 4 && strcmp(out + strlen(out) - 4, ".pre") == 0) out[strlen(out) - 4] = 0;
}

static void remove_work(const char *work, const char *stem)
{
    static const char *const ext[] = {".ll", ".pre.mir", ".tag.mir", ".dumps.txt", ".post.mir", ".err.txt"};
    char path[4096];
    for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
        if (snprintf(path, sizeof path, "%s/%s%s", work, stem, ext[i]) < (int)sizeof path) remove(path);
    }
    rmdir(work);
}

static int run_parsed(run_args a);

static int cmd_import_run(int argc, char **argv)
{
    run_args a;
    memset(&a, 0, sizeof a);
    a.o = (rvi_opts){RVI_GREEDY, false, true, NULL};
    a.olevel = -1;
    a.timeout = 120;
    a.cflags = rv_xcalloc((size_t)argc + 1, sizeof *a.cflags);
    int rc = parse_run(argc, argv, &a);
    if (rc == 0) rc = run_parsed(a);
    else if (rc < 0) rc = CLI_OK;
    rv_free(a.cflags);
    return rc;
}

static int run_parsed(run_args a)
{
    int rc;
    rvi_llvm llvm;
    char why[512], work[4096], stem[256], header[512];
    clock_t c0 = clock();
    if (!rvi_llvm_find(a.llvm, &llvm, why, sizeof why)) {
        fprintf(stderr, "ravel import-mir run: %s\n", why);
        return CLI_USAGE;
    }
    if (!make_dir(a.dir)) return CLI_USAGE;
    stem_of(a.input, stem, sizeof stem);
    if (a.keep) {
        snprintf(work, sizeof work, "%s/llvm", a.dir);
        if (!make_dir(work)) return CLI_USAGE;
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(work, sizeof work, "%s/ravel-import-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(work)) {
            fprintf(stderr, "ravel import-mir run: cannot create a temporary directory: %s\n", strerror(errno));
            return CLI_USAGE;
        }
    }
    rvi_pipe_opts po = {a.o.alloc, a.olevel, a.timeout, work, stem, a.cflags, a.ssa};
    rvi_pipe p;
    rvi_pipeline(&llvm, a.input, &po, &p);
    int lvl = a.olevel >= 0 ? a.olevel : a.o.alloc == RVI_FAST ? 0 : 2;
    snprintf(header, sizeof header, "llc-%d -O%d, %s (ravel import-mir run %s)", llvm.version, lvl, rvi_alloc_name(a.o.alloc), a.input);
    a.o.header = header;
    tally t;
    memset(&t, 0, sizeof t);
    if (a.check) t.ck = ravel_checker_new();
    if (p.status == RVI_PIPE_BAD_INPUT) {
        fprintf(stderr, "ravel import-mir run: %s\n", p.msg);
        rc = CLI_USAGE;
    } else if (p.status == RVI_PIPE_LLC) {
        refuse_all(&p, a.input, a.quiet, &t);
        tally_print(stdout, &t);
        rc = CLI_FAIL;
    } else {
        if (!a.keep) { /* messages name the texts without the temporary directory: the output is the same every run */
            mir_text *tx[3] = {&p.texts.tag, &p.texts.dumps, &p.texts.post};
            for (int i = 0; i < 3; i++) {
                const char *slash = strrchr(tx[i]->file, '/');
                if (slash) tx[i]->file = slash + 1;
            }
        }
        rc = import_all(&p.texts, &a.o, a.dir, a.quiet, &t) ? CLI_OK : CLI_USAGE;
        tally_print(stdout, &t);
        if (rc == CLI_OK && (t.errors || t.rejected)) rc = CLI_FAIL;
    }
    if (a.keep && p.commands) {
        char path[4096 + 300];
        snprintf(path, sizeof path, "%s/%s.commands.txt", work, stem);
        write_file(path, p.commands);
        if (!a.quiet) printf("intermediate files: %s\n", work);
    } else if (!a.keep) {
        remove_work(work, stem);
    }
    if (a.times) {
        printf("times: clang %.3f llc %.3f import %.3f", p.t_clang, p.t_llc, (double)(clock() - c0) / CLOCKS_PER_SEC - t.t_check);
        if (t.ck) printf(" check %.3f", t.t_check);
        putchar('\n');
    }
    ravel_checker_free(t.ck);
    rvi_pipe_free(&p);
    return rc;
}

int cmd_import_mir(int argc, char **argv)
{
    if (argc < 2) return import_usage(stderr), CLI_USAGE;
    if (cli_is_help(argv[1])) return import_usage(stdout), CLI_OK;
    if (strcmp(argv[1], "tag") == 0) return cmd_tag(argc - 1, argv + 1);
    if (strcmp(argv[1], "join") == 0) return cmd_join(argc - 1, argv + 1);
    if (strcmp(argv[1], "run") == 0) return cmd_import_run(argc - 1, argv + 1);
    fprintf(stderr, "ravel import-mir: unknown subcommand '%s'\n", argv[1]);
    import_usage(stderr);
    return CLI_USAGE;
}
