/* fuzz_harness.h - the shared body of every fuzz target (fuzz_*.c): hand the
 * input to the library's oracle, and on a bug print the complete reproducer
 * (.ra text with the checker's report) and abort(), so that the engine saves
 * the input as a crash file. Harnesses are programs, not library code: the
 * context below is kept for the life of the process (reused checker memory,
 * warmed up before the first input; RAVEL_FUZZ_FRESH_STATE: see
 * rv_harness_run). */
#ifndef RAVEL_FUZZ_HARNESS_H
#define RAVEL_FUZZ_HARNESS_H

#include "fuzz/campaign.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Functions checked by the warm-up of a fuzz process (rv_fuzz_warm_up);
 * builds without an engine (replaying files) define it to 0. */
#ifndef RV_HARNESS_WARM_UP
#define RV_HARNESS_WARM_UP RV_FUZZ_WARM_UP_FUNCS
#endif

/* alloc_name: a fixed allocator (fuzz_alloc_NAME targets) or NULL. */
static inline int rv_harness_run(rv_fuzz_target t, const char *alloc_name, const uint8_t *data, size_t size)
{
    static rv_fuzz *z;
    static int alloc = -2; /* -2: not looked up yet */
    if (alloc == -2) {
        alloc = alloc_name ? rv_fuzz_allocator_index(alloc_name) : -1;
        if (alloc_name && alloc < 0) {
            fprintf(stderr, "fuzz target built for allocator '%s', which is not in the table\n", alloc_name);
            abort();
        }
    }
    if (!z) {
        z = rv_fuzz_new();
#ifndef RAVEL_FUZZ_FRESH_STATE
        /* Grow the reused checker scratch first (rv_fuzz_warm_up), so that
         * an execution's paths do not depend on the ones before it (AFL++'s
         * stability; docs/fuzzing-internals.md). The first call is
         * LLVMFuzzerInitialize's (below), before any engine's first input
         * and before AFL++'s fork server.
         * RAVEL_FUZZ_WARM_UP=N sets the number of functions (0: none, to
         * measure without). */
        const char *w = getenv("RAVEL_FUZZ_WARM_UP");
        rv_fuzz_warm_up(z, t, alloc, w ? (unsigned)strtoul(w, NULL, 10) : RV_HARNESS_WARM_UP);
#endif
    }
#ifdef RAVEL_FUZZ_FRESH_STATE
    /* -DRAVEL_FUZZ_FRESH_STATE=ON: a fresh checker context for every
     * execution, nothing carried over (and no warm-up): the reference for
     * the stability of a harness without leaks (fuzz_alloc on an AFL++
     * secondary: 99.98%), at about a third of the speed. */
    ravel_checker_free(z->ck);
    z->ck = ravel_checker_new();
#endif
    if (rv_fuzz_bytes(z, t, alloc, data, size) == RV_FUZZ_BUG) {
        fflush(stdout);
        fputs("==== ravel: bug found; reproducer follows ====\n", stderr);
        fwrite(z->repro, 1, z->repro_len, stderr);
        fputs("==== end of reproducer ====\n", stderr);
        fflush(stderr);
        abort();
    }
    return 0;
}

/* Called once before the first input by libFuzzer and by AFL++'s
 * libAFLDriver (the OSS-Fuzz builds), which calls it before its deferred
 * fork server: the harness's context and its warm-up are made here, in
 * the parent, instead of in the first execution of every forked child.
 * (driver_afl.c does the same with an empty input before __AFL_INIT.) */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    LLVMFuzzerTestOneInput((const uint8_t *)"", 0);
    return 0;
}

#endif
