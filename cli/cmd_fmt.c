/* cmd_fmt.c - placeholder until its issue lands. */
#include "cli.h"
int cmd_fmt(int argc, char **argv)
{
    (void)argc; (void)argv;
    fputs("ravel fmt: not built yet\n", stderr);
    return CLI_USAGE;
}
