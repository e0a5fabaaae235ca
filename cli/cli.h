/* cli.h - the `ravel` command-line tool: one file per subcommand (cmd_*.c),
 * dispatched from main.c's table. Exit status everywhere:
 *   0  the property holds (valid, verified, outputs equal, ...)
 *   1  the property failed (invalid program, wrong allocation, outputs differ)
 *   2  unreadable input or bad usage */
#ifndef RAVEL_CLI_H
#define RAVEL_CLI_H

#include "ir/ir.h"

enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Subcommands: argv[0] is the subcommand name. */
int cmd_fmt(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_alloc(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_fuzz(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_reduce(int argc, char **argv);
int cmd_import_mir(int argc, char **argv);
int cmd_export_mir(int argc, char **argv);

/* Reads a whole file ("-" = stdin). Returns a malloc'd NUL-terminated buffer
 * or NULL after printing "ravel: PATH: reason" to stderr. Refuses files over
 * RV_MAX_INPUT_BYTES. */
char *cli_read_file(const char *path, size_t *len);
/* Reads and parses a .ra file; on failure prints diagnostics to stderr and
 * returns NULL. */
ravel_module *cli_load(const char *path);
/* Reads and parses the .ra file at path for its machine (`--machine FILE`):
 * on error prints the diagnostics (FILE:LINE:COL) or "ravel CMD: error: ..."
 * and returns NULL. The caller keeps the module alive while the machine
 * (ravel_module_machine) is used, then frees it. */
ravel_module *cli_read_machine(const char *cmd, const char *path);
/* A module from text in memory, named file in messages; its diagnostics go
 * to stderr, and any diagnostic makes it NULL. */
ravel_module *cli_parse_text(const char *text, size_t len, const char *file);
/* cli_load that also writes each failure to json, if not NULL, as a
 * {"kind":"bad-input","message":...} line (the checker's JSON report form). */
ravel_module *cli_load_json(const char *path, FILE *json);
/* `ravel check FILE --orig ORIG` in this process, on the files' texts
 * (text, orig_text: NUL-terminated, what the files hold), with ck (its
 * options are reset to the defaults): everything that command prints to
 * standard output and error goes to out, in the order `> F 2>&1` would
 * hold it, except a parse error of either text (printed to stderr).
 * Returns its exit status. */
int cli_check_texts(ravel_checker *ck, const char *file, const char *text, const char *orig, const char *orig_text, FILE *out);
/* A usage error: prints "ravel CMD: MESSAGE" and a pointer to
 * 'ravel CMD --help' on stderr, returns CLI_USAGE. (A command given nothing
 * to work on prints its whole usage instead.) */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The usage error for option argument arg ("-j", "-j0", "--jobs=0": the
 * option's name is reported alone) with value val: "ARG needs a value" if
 * val is NULL, else "bad value 'VAL' for ARG"; want (if not NULL) says
 * what is accepted. Returns CLI_USAGE. */
int cli_bad_value(const char *cmd, const char *arg, const char *val, const char *want);
/* The usage error for an unknown --no-FEATURE, listing the generator's
 * features. Returns CLI_USAGE. */
int cli_bad_feature(const char *cmd, const char *arg);
/* True if s equals "--help" or "-h". */
int cli_is_help(const char *s);
/* Parses an unsigned decimal/hex integer; returns 0 on success. */
int cli_parse_u64(const char *s, uint64_t *out);

/* An output file that replaces PATH only on success: written to a
 * temporary file next to it, renamed over PATH by cli_out_commit(ok=true),
 * removed otherwise, so no command destroys a user's file on failure.
 * path NULL: standard output. */
typedef struct cli_out {
    FILE *fp;
    const char *path;
    char *tmp;
} cli_out;
/* Returns o->fp, or NULL after printing "ravel CMD: cannot write PATH: reason". */
FILE *cli_out_open(cli_out *o, const char *cmd, const char *path);
/* Closes; with ok, renames into place. Returns CLI_OK, or CLI_USAGE after a
 * message when writing failed (the temporary file is removed). */
int cli_out_commit(cli_out *o, const char *cmd, bool ok);

#endif
