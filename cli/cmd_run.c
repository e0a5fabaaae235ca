/* cmd_run.c - placeholder until its issue lands. */
#include "cli.h"
int cmd_run(int argc, char **argv)
{
    (void)argc; (void)argv;
    fputs("ravel run: not built yet\n", stderr);
    return CLI_USAGE;
}
