/* driver_standalone.c - a main() for the fuzz targets without a fuzzing
 * engine (RAVEL_FUZZ_ENGINE=none; works with gcc): replays every file and
 * directory named on the command line (stdin if none) through
 * LLVMFuzzerTestOneInput. Arguments starting with '-' (libFuzzer flags) are
 * ignored, so scripts can call every build the same way. A bug aborts in
 * the harness; otherwise prints how many inputs ran and exits 0. */
#define _DEFAULT_SOURCE
#include "fuzz/driver_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_one(const char *path, const uint8_t *data, size_t size, void *ctx)
{
    (void)path, (void)ctx;
    LLVMFuzzerTestOneInput(data, size);
    return 0;
}

int main(int argc, char **argv)
{
    unsigned count = 0;
    int bad = 0, paths = 0;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1]) continue;
        paths++;
        bad |= rv_driver_path(argv[i], run_one, NULL, &count);
    }
    if (!paths) bad |= rv_driver_path("-", run_one, NULL, &count);
    fprintf(stderr, "%s: %u input%s replayed\n", argv[0], count, count == 1 ? "" : "s");
    return bad ? 2 : 0;
}
