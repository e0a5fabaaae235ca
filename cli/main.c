/* main.c - `ravel`: the command table. Each subcommand lives in cmd_NAME.c
 * and answers --help. */
#include "cli.h"

#include <string.h>

static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"fmt", cmd_fmt, "print a .ra file in canonical form"},
    {"validate", cmd_validate, "check a .ra file against the format's structural rules"},
    {"run", cmd_run, "run a function with the concrete interpreter, or compare two forms"},
    {"check", cmd_check, "verify an allocation with the symbolic checker"},
    {"alloc", cmd_alloc, "allocate registers with one of the built-in allocators"},
    {"gen", cmd_gen, "generate a random valid function from a seed"},
    {"fuzz", cmd_fuzz, "fuzz every allocator against the checker"},
    {"bench", cmd_bench, "measure the checker: the mutation table (ravel bench mutation)"},
    {"reduce", cmd_reduce, "shrink a failing case while it keeps failing the same way"},
    {"import-mir", cmd_import_mir, "import LLVM's x86-64 register allocations (llc's MIR) as .ra files"},
    {"export-mir", cmd_export_mir, "write generated functions as x86-64 MIR for LLVM's allocators"},
};

static void usage(FILE *out)
{
    fputs("usage: ravel COMMAND [OPTIONS] [FILE...]\n\ncommands:\n", out);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].summary);
    fputs("\n'ravel COMMAND --help' describes a command.\n"
          "exit status: 0 holds, 1 property failed, 2 unreadable input or bad usage\n", out);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (cli_is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("ravel %d.%d\n", RAVEL_VERSION_MAJOR, RAVEL_VERSION_MINOR);
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "ravel: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return CLI_USAGE;
}
