/* driver_standalone.c - a main() for the fuzz targets without a fuzzing
 * engine (RAVEL_FUZZ_ENGINE=none; works with gcc): replays every file and
 * directory named on the command line (stdin if none) through
 * LLVMFuzzerTestOneInput. Arguments starting with '-' (libFuzzer flags) are
 * ignored, so scripts can call every build the same way. A bug aborts in
 * the harness; otherwise prints how many inputs ran and exits 0. */
#define _DEFAULT_SOURCE
#include "fuzz/driver_files.h"

int main(int argc, char **argv)
{
    int u = rv_driver_usage(argc, argv, "Replays each input (a file, or every file of a directory) through this fuzz\n"
                                        "target without a fuzzing engine; a bug aborts with its reproducer.");
    if (u) return u == 1 ? 0 : 2;
    unsigned count = 0;
    int bad = 0, paths = rv_driver_args(argc, argv, &count, &bad);
    if (!paths) bad |= rv_driver_path("-", rv_driver_run_one, NULL, &count);
    fprintf(stderr, "%s: %u input%s replayed\n", argv[0], count, count == 1 ? "" : "s");
    return bad ? 2 : 0;
}
