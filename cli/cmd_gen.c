/* cmd_gen.c - placeholder until its issue lands. */
#include "cli.h"
int cmd_gen(int argc, char **argv)
{
    (void)argc; (void)argv;
    fputs("ravel gen: not built yet\n", stderr);
    return CLI_USAGE;
}
