/* cmd_check.c - placeholder until its issue lands. */
#include "cli.h"
int cmd_check(int argc, char **argv)
{
    (void)argc; (void)argv;
    fputs("ravel check: not built yet\n", stderr);
    return CLI_USAGE;
}
