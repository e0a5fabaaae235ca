/* cmd_validate.c - `ravel validate [--ssa] FILE...`: checks every function
 * of each .ra file against the format's structural rules (ir/validate.c).
 * Diagnostics go to stderr; "FILE: valid" to stdout for each good file.
 * Exit status: the worst over all files: 0 valid, 1 a property failed (an
 * allocated form breaks a structural rule, or --ssa and not SSA), 2
 * unreadable input, bad input or bad usage. */
#include "cli.h"

#include <string.h>

static void validate_usage(FILE *out)
{
    fputs("usage: ravel validate [--ssa] FILE...\n"
          "Checks each .ra FILE ('-' = stdin) against the format's structural rules:\n"
          "terminators, successors and their arguments, critical edges, the entry\n"
          "block, definitions, classes, constraints, and for allocated functions\n"
          "locations, edits, reserved registers and stackmaps.\n"
          "  --ssa   also require SSA: one definition per vreg, dominating every use\n"
          "exit status: 0 valid, 1 property failed (wrong allocation structure, not SSA),\n"
          "             2 unreadable or bad input, bad usage\n",
          out);
}

/* Returns the CLI status for one file. */
static int validate_file(const char *path, unsigned flags)
{
    ravel_module *m = cli_load(path);
    if (!m) return CLI_USAGE;
    int rc = CLI_OK;
    ravel_diags *d = ravel_diags_new();
    for (size_t i = 0; i < ravel_module_nfuncs(m); i++) {
        int st = ravel_validate(ravel_module_func(m, i), flags, d);
        int r = st == RAVEL_OK ? CLI_OK : st == RAVEL_EFAIL ? CLI_FAIL : CLI_USAGE;
        if (r > rc) rc = r;
    }
    ravel_diags_print(stderr, d);
    if (rc == CLI_OK) printf("%s: valid\n", path);
    ravel_diags_free(d);
    ravel_module_free(m);
    return rc;
}

int cmd_validate(int argc, char **argv)
{
    unsigned flags = 0;
    int nfiles = 0, rc = CLI_OK;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            validate_usage(stdout);
            return CLI_OK;
        }
        if (strcmp(argv[i], "--ssa") == 0)
            flags |= RAVEL_VALIDATE_SSA;
        else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("validate", "unknown option '%s'", argv[i]);
        }
    }
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1]) continue;
        nfiles++;
        int r = validate_file(argv[i], flags);
        if (r > rc) rc = r;
    }
    if (!nfiles) {
        validate_usage(stderr);
        return CLI_USAGE;
    }
    return rc;
}
