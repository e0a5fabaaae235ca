/* cmd_alloc.c - placeholder until its issue lands. */
#include "cli.h"
int cmd_alloc(int argc, char **argv)
{
    (void)argc; (void)argv;
    fputs("ravel alloc: not built yet\n", stderr);
    return CLI_USAGE;
}
