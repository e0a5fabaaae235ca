/* cmd_fuzz.c - placeholder until its issue lands. */
#include "cli.h"
int cmd_fuzz(int argc, char **argv)
{
    (void)argc; (void)argv;
    fputs("ravel fuzz: not built yet\n", stderr);
    return CLI_USAGE;
}
