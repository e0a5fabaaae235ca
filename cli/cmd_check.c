/* cmd_check.c - `ravel check FILE [--orig UNALLOCATED] [--func NAME]
 * [--json] [--explain] [--reference]`: verifies every allocated function of FILE with the
 * symbolic checker. Exit 0 verified, 1 errors found, 2 unreadable input. */
#include "cli.h"

#include <string.h>

static void usage(FILE *out)
{
    fputs("usage: ravel check FILE [--orig UNALLOCATED] [--func NAME] [--json] [--explain] [--reference]\n"
          "\n"
          "Proves the allocation of every function of FILE correct (FORMAT.md section 6),\n"
          "or reports each error with its kind, location and provenance.\n"
          "\n"
          "  --orig FILE   the unallocated functions (matched by name): every original\n"
          "                instruction must be present, in order, unchanged\n"
          "  --func NAME   check only this function\n"
          "  --json        one JSON object per error (fields: docs/checker.md)\n"
          "  --explain     print the state of each location at every point of each\n"
          "                block where an error occurs\n"
          "  --reference   decide with the reference fixpoint alone (section 6 as written,\n"
          "                no fast paths; slower; the verdict and report are the same)\n"
          "\n"
          "exit status: 0 verified, 1 errors found, 2 unreadable input, bad usage, or a\n"
          "function beyond the checker's limit (docs/format.md section 8)\n",
          out);
}

typedef struct check_args {
    const char *file, *orig, *func;
    bool json, explain, reference;
} check_args;

static int parse_args(int argc, char **argv, check_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (cli_is_help(s)) {
            usage(stdout);
            return -1;
        } else if (strcmp(s, "--json") == 0) {
            a->json = true;
        } else if (strcmp(s, "--explain") == 0) {
            a->explain = true;
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

static int check_one(ravel_checker *ck, const check_args *a, const ravel_func *f, const ravel_module *orig)
{
    const ravel_func *o = NULL;
    if (orig && !(o = find_func(orig, rv_func_name(f)))) {
        fprintf(stderr, "ravel check: %s: no function '%s'\n", a->orig, rv_func_name(f));
        return CLI_USAGE;
    }
    ravel_report *rep = NULL;
    int rc = ravel_check(ck, f, o, &rep);
    if (rc == RAVEL_EINVAL) {
        if (a->json) ravel_report_print_json(stdout, rep);
        else ravel_report_print(stderr, rep);
    } else if (a->json) {
        ravel_report_print_json(stdout, rep);
    } else {
        ravel_report_print(stdout, rep);
    }
    ravel_report_free(rep);
    return rc == RAVEL_OK ? CLI_OK : rc == RAVEL_EFAIL ? CLI_FAIL : CLI_USAGE;
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
    int worst = CLI_OK, nchecked = 0, nerr = 0;
    for (size_t i = 0; i < ravel_module_nfuncs(m); i++) {
        const ravel_func *f = ravel_module_func(m, i);
        if (a.func && strcmp(rv_func_name(f), a.func) != 0) continue;
        nchecked++;
        int r = check_one(ck, &a, f, orig);
        if (r != CLI_OK) nerr++;
        if (r == CLI_USAGE || (r == CLI_FAIL && worst == CLI_OK)) worst = r;
    }
    if (a.func && !nchecked) {
        fprintf(stderr, "ravel check: %s: no function '%s'\n", a.file, a.func);
        worst = CLI_USAGE;
    } else if (!a.json) {
        if (worst == CLI_OK) printf("verified: %d function%s\n", nchecked, nchecked == 1 ? "" : "s");
        else fprintf(stderr, "ravel check: %d of %d function%s not verified\n", nerr, nchecked, nchecked == 1 ? "" : "s");
    }
    ravel_checker_free(ck);
    ravel_module_free(orig);
    ravel_module_free(m);
    return worst;
}
