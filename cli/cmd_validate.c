/* cmd_validate.c - placeholder until its issue lands. */
#include "cli.h"
int cmd_validate(int argc, char **argv)
{
    (void)argc; (void)argv;
    fputs("ravel validate: not built yet\n", stderr);
    return CLI_USAGE;
}
