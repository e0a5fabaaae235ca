/* cmd_fmt.c - `ravel fmt [-o OUT] [--check] FILE...`: prints .ra files in
 * canonical form (ir/print.c). With --check nothing is printed and the exit
 * status says whether every file already is canonical (0) or not (1).
 * Unreadable input or bad usage exits 2. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static void fmt_usage(FILE *out)
{
    fputs("usage: ravel fmt [-o OUT] [--check] FILE...\n"
          "Prints each .ra FILE ('-' = stdin) in canonical form (docs/format.md),\n"
          "one after the other, separated by a blank line. Nothing is written\n"
          "unless every FILE reads without error.\n"
          "  -o OUT    write to OUT instead of standard output\n"
          "  --check   print nothing; exit 1 if some FILE is not canonical\n"
          "exit status: 0 ok, 1 not canonical (--check), 2 unreadable input or bad usage\n",
          out);
}

/* Renders a module into a malloc'd buffer (canonical text). */
static char *render(const ravel_module *m, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&buf, &n);
    if (!mem) return NULL;
    rv_print_module(mem, m);
    fclose(mem);
    *len = n;
    return buf;
}

/* 0 canonical, 1 not canonical, 2 unreadable. */
static int check_one(const char *path)
{
    size_t len, outlen;
    char *text = cli_read_file(path, &len);
    if (!text) return CLI_USAGE;
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, len, path, d);
    int rc = CLI_USAGE;
    if (m) {
        char *out = render(m, &outlen);
        rc = out && outlen == len && memcmp(out, text, len) == 0 ? CLI_OK : CLI_FAIL;
        if (rc == CLI_FAIL) fprintf(stderr, "ravel fmt: %s: not in canonical form\n", path);
        free(out);
    } else {
        ravel_diags_print(stderr, d);
    }
    ravel_module_free(m);
    ravel_diags_free(d);
    free(text);
    return rc;
}

int cmd_fmt(int argc, char **argv)
{
    const char *outpath = NULL;
    bool check = false;
    int first = argc;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            fmt_usage(stdout);
            return CLI_OK;
        } else if (strcmp(argv[i], "-o") == 0) {
            if (i + 1 >= argc) return cli_bad_value("fmt", argv[i], NULL, NULL);
            outpath = argv[++i];
        } else if (strcmp(argv[i], "--check") == 0) {
            check = true;
        } else if (strcmp(argv[i], "--") == 0) {
            first = i + 1;
            break;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("fmt", "unknown option '%s'", argv[i]);
        } else {
            first = i;
            break;
        }
    }
    if (first >= argc) {
        fmt_usage(stderr);
        return CLI_USAGE;
    }
    if (check) {
        int worst = CLI_OK;
        for (int i = first; i < argc; i++) {
            int rc = check_one(argv[i]);
            if (rc > worst) worst = rc;
        }
        return worst;
    }
    /* parse everything first so that a bad file leaves OUT untouched */
    int nfiles = argc - first;
    ravel_module **mods = rv_xcalloc((size_t)nfiles, sizeof *mods);
    int rc = CLI_OK;
    for (int i = 0; i < nfiles && rc == CLI_OK; i++)
        if (!(mods[i] = cli_load(argv[first + i]))) rc = CLI_USAGE;
    if (rc == CLI_OK) {
        cli_out o; /* OUT is replaced only when everything was written */
        FILE *out = cli_out_open(&o, "fmt", outpath);
        if (!out) {
            rc = CLI_USAGE;
        } else {
            for (int i = 0; i < nfiles; i++) {
                if (i) fputc('\n', out);
                if (rv_print_module(out, mods[i])) rc = CLI_USAGE;
            }
            int wr = cli_out_commit(&o, "fmt", rc == CLI_OK);
            if (rc == CLI_OK) rc = wr;
        }
    }
    for (int i = 0; i < nfiles; i++) ravel_module_free(mods[i]);
    free(mods);
    return rc;
}
