/* cmd_check.c - `ravel check FILE [--orig UNALLOCATED] [--func NAME]
 * [--json] [--explain] [--reference]`: verifies every allocated function of FILE with the
 * symbolic checker. Exit 0 verified, 1 errors found, 2 unreadable input. */
#include "cli.h"

#include <string.h>

static void usage(FILE *out)
{
    fputs("usage: ravel check FILE [--orig UNALLOCATED] [--func NAME] [--json] [--explain] [--reference] [--max-errors N]\n"
          "\n"
          "Proves the allocation of every function of FILE correct (the rules of\n"
          "docs/format.md section 6), or reports each error with its kind, location\n"
          "and provenance.\n"
          "\n"
          "  --orig FILE   the unallocated functions (matched by name): every original\n"
          "                instruction must be present, in order, unchanged\n"
          "  --func NAME   check only this function\n"
          "  --json        one JSON object per error (fields: docs/checker.md)\n"
          "  --explain     print the state of each location at every point of each\n"
          "                block where an error occurs\n"
          "  --max-errors N  report at most N errors per function (default 100; 0: all),\n"
          "                then one line with the count of the others\n"
          "  --reference   decide with the reference fixpoint alone (docs/format.md\n"
          "                section 6 as written, no fast paths; slower; the verdict and\n"
          "                report are the same)\n"
          "\n"
          "exit status: 0 verified, 1 errors found, 2 unreadable input, bad usage, an\n"
          "unallocated function, or a function beyond the checker's limit (docs/format.md\n"
          "section 12.2)\n",
          out);
}

typedef struct check_args {
    const char *file, *orig, *func;
    bool json, explain, reference;
    size_t max_errors;
} check_args;

static int parse_args(int argc, char **argv, check_args *a)
{
    memset(a, 0, sizeof *a);
    a->max_errors = RAVEL_CHECK_DEFAULT_MAX_ERRORS;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (cli_is_help(s)) {
            usage(stdout);
            return -1;
        } else if (strcmp(s, "--json") == 0) {
            a->json = true;
        } else if (strcmp(s, "--explain") == 0) {
            a->explain = true;
        } else if (strcmp(s, "--max-errors") == 0) {
            uint64_t n;
            if (i + 1 >= argc || cli_parse_u64(argv[i + 1], &n) != 0) return cli_bad_value("check", s, i + 1 < argc ? argv[i + 1] : NULL, "a count");
            a->max_errors = (size_t)n;
            i++;
        } else if (strcmp(s, "--reference") == 0) {
            a->reference = true;
        } else if (strcmp(s, "--orig") == 0 || strcmp(s, "--func") == 0) {
            if (i + 1 >= argc) return cli_bad_value("check", s, NULL, NULL);
            *(s[2] == 'o' ? &a->orig : &a->func) = argv[++i];
        } else if (s[0] == '-' && s[1]) {
            return cli_usage_error("check", "unknown option '%s'", s);
        } else if (!a->file) {
            a->file = s;
        } else {
            return cli_usage_error("check", "more than one FILE ('%s', '%s')", a->file, s);
        }
    }
    if (!a->file) {
        usage(stderr);
        return CLI_USAGE;
    }
    return 0;
}

static const ravel_func *find_func(const ravel_module *m, const char *name)
{
    for (size_t i = 0; i < ravel_module_nfuncs(m); i++) {
        const ravel_func *f = ravel_module_func(m, i);
        if (strcmp(rv_func_name(f), name) == 0) return f;
    }
    return NULL;
}

/* One function; the report on out, what `ravel check` writes to standard
 * error on err (the same stream: what `> F 2>&1` holds). */
static int check_one(ravel_checker *ck, const check_args *a, const ravel_func *f, const ravel_module *orig, FILE *out, FILE *err)
{
    const ravel_func *o = NULL;
    if (orig && !(o = find_func(orig, rv_func_name(f)))) {
        fprintf(err, "ravel check: %s: no function '%s'\n", a->orig, rv_func_name(f));
        return CLI_USAGE;
    }
    ravel_report *rep = NULL;
    int rc = ravel_check(ck, f, o, &rep);
    if (rc == RAVEL_EFAIL && !rv_func_is_allocated(f)) { /* one line, not a missing-location per operand */
        ravel_report_free(rep);
        if (a->json) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s:%u: error: func %s is not allocated (no operand has a location, no edit): "
                     "allocate it first (ravel alloc -a NAME)", a->file, f->line, rv_func_name(f));
            fputs("{\"kind\":\"bad-input\",\"message\":", out);
            rv_json_str(out, msg);
            fputs("}\n", out);
        } else {
            fprintf(err, "%s:%u: error: func %s is not allocated (no operand has a location, no edit): "
                    "allocate it first (ravel alloc -a NAME)\n", a->file, f->line, rv_func_name(f));
        }
        return CLI_USAGE;
    }
    if (rc == RAVEL_EINVAL) {
        if (a->json) ravel_report_print_json(out, rep);
        else ravel_report_print(err, rep);
    } else if (a->json) {
        ravel_report_print_json(out, rep);
    } else {
        ravel_report_print(out, rep);
        if (ravel_report_omitted(rep)) fputs("ravel check: note: --max-errors N reports up to N errors per function (0: all)\n", out);
    }
    ravel_report_free(rep);
    return rc == RAVEL_OK ? CLI_OK : rc == RAVEL_EFAIL ? CLI_FAIL : CLI_USAGE;
}

/* Every function of m (or a->func), then the summary line. */
static int check_all(ravel_checker *ck, const check_args *a, const ravel_module *m, const ravel_module *orig, FILE *out, FILE *err)
{
    int worst = CLI_OK, nchecked = 0, nerr = 0;
    for (size_t i = 0; i < ravel_module_nfuncs(m); i++) {
        const ravel_func *f = ravel_module_func(m, i);
        if (a->func && strcmp(rv_func_name(f), a->func) != 0) continue;
        nchecked++;
        int r = check_one(ck, a, f, orig, out, err);
        if (r != CLI_OK) nerr++;
        if (r == CLI_USAGE || (r == CLI_FAIL && worst == CLI_OK)) worst = r;
    }
    if (a->func && !nchecked) {
        fprintf(err, "ravel check: %s: no function '%s'\n", a->file, a->func);
        worst = CLI_USAGE;
    } else if (!a->json) {
        if (worst == CLI_OK) fprintf(out, "verified: %d function%s\n", nchecked, nchecked == 1 ? "" : "s");
        else {
            fflush(out); /* the report first: out and err may be one file */
            fprintf(err, "ravel check: %d of %d function%s not verified\n", nerr, nchecked, nchecked == 1 ? "" : "s");
        }
    }
    return worst;
}

int cli_check_texts(ravel_checker *ck, const char *file, const char *text, const char *orig_file, const char *orig_text, FILE *out)
{
    check_args a;
    memset(&a, 0, sizeof a);
    a.file = file;
    a.orig = orig_file;
    a.max_errors = RAVEL_CHECK_DEFAULT_MAX_ERRORS;
    ravel_checker_set_options(ck, 0);
    ravel_checker_set_max_errors(ck, a.max_errors);
    ravel_module *m = cli_parse_text(text, strlen(text), file),
                 *orig = m ? cli_parse_text(orig_text, strlen(orig_text), orig_file) : NULL;
    int rc = m && orig ? check_all(ck, &a, m, orig, out, out) : CLI_USAGE;
    ravel_module_free(orig);
    ravel_module_free(m);
    return rc;
}

int cmd_check(int argc, char **argv)
{
    check_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc < 0 ? CLI_OK : rc;
    ravel_module *m = cli_load_json(a.file, a.json ? stdout : NULL);
    if (!m) return CLI_USAGE;
    ravel_module *orig = NULL;
    if (a.orig && !(orig = cli_load_json(a.orig, a.json ? stdout : NULL))) {
        ravel_module_free(m);
        return CLI_USAGE;
    }
    ravel_checker *ck = ravel_checker_new();
    ravel_checker_set_options(ck, (a.explain ? RAVEL_CHECK_EXPLAIN : 0) | (a.reference ? RAVEL_CHECK_REFERENCE : 0));
    ravel_checker_set_max_errors(ck, a.max_errors);
    int worst = check_all(ck, &a, m, orig, stdout, stderr);
    ravel_checker_free(ck);
    ravel_module_free(orig);
    ravel_module_free(m);
    return worst;
}
