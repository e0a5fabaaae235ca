/* driver_afl.c - a main() for AFL++ builds (CC=afl-clang-fast): persistent
 * mode with the test case in shared memory (__AFL_FUZZ_INIT / __AFL_LOOP),
 * deferred fork server after the one-time setup. With file or directory
 * arguments (`@@`, or replaying a corpus) it runs those instead, like the
 * standalone driver. Built without afl-clang-fast it reads stdin once. */
#define _DEFAULT_SOURCE
#include "fuzz/driver_files.h"

#include <unistd.h>

#ifdef __AFL_FUZZ_TESTCASE_LEN
__AFL_FUZZ_INIT();
#endif

int main(int argc, char **argv)
{
#ifndef __AFL_FUZZ_TESTCASE_LEN /* under afl-fuzz stdin is never a terminal; --help always answers */
    int u = rv_driver_usage(argc, argv, "AFL++ driver of this fuzz target: run it under afl-fuzz, or give inputs to\n"
                                        "replay (a file, or every file of a directory).");
    if (u) return u == 1 ? 0 : 2;
#else
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return rv_driver_usage(argc, argv, "AFL++ driver of this fuzz target: run it under afl-fuzz, or give inputs to\nreplay (a file, or every file of a directory).") == 1 ? 0 : 2;
#endif
    unsigned count = 0;
    int bad = 0, paths = rv_driver_args(argc, argv, &count, &bad);
    if (paths) return bad ? 2 : 0;
    LLVMFuzzerTestOneInput((const uint8_t *)"", 0); /* warm up before the fork server (one-time allocations, rv_fuzz_warm_up) */
#ifdef __AFL_FUZZ_TESTCASE_LEN
    __AFL_INIT();
    const uint8_t *buf = __AFL_FUZZ_TESTCASE_BUF;
    while (__AFL_LOOP(100000)) LLVMFuzzerTestOneInput(buf, (size_t)__AFL_FUZZ_TESTCASE_LEN);
    return 0;
#else
    return rv_driver_path("-", rv_driver_run_one, NULL, &count) ? 2 : 0;
#endif
}
