/* ravel_fuzz.h - the fuzzing kit (component ravel::fuzz, libravel_fuzz):
 * fuzz YOUR register allocator in-process with libFuzzer, AFL++ or OSS-Fuzz.
 *
 * One call per input does everything: the input bytes become a valid random
 * SSA function for your machine (ravel_gen_from_bytes, ravel_gen.h), your
 * allocator (a ravel_alloc_fn, ravel.h) allocates it, the checker proves the
 * allocation against the original (and, with RAVEL_FUZZ_KIT_DIFFERENTIAL,
 * the interpreter compares both forms). A wrong allocation (rejected by the
 * checker, not valid, a failure on a satisfiable function, or a different
 * result in the interpreter) is a bug: the kit keeps a complete reproducer,
 * a `.ra` text with the machine, the unallocated function ("#| " lines),
 * your allocation and the checker's report, which ravel_fuzz_kit_run prints
 * on stderr before abort(), so that the engine saves the input.
 *
 * A libFuzzer / AFL++ (libAFLDriver) / OSS-Fuzz target:
 *
 *     static ravel_fuzz_kit *kit;
 *     int LLVMFuzzerInitialize(int *argc, char ***argv)
 *     {
 *         ravel_fuzz_kit_opts o;
 *         ravel_fuzz_kit_opts_default(&o);
 *         o.name = "myalloc";
 *         o.alloc = my_alloc;          // int my_alloc(void *user, const ravel_func *orig,
 *                                      //              uint64_t seed, ravel_func **out, char **msg)
 *         o.gen.machine = my_machine(); // NULL: a random machine from the first bytes
 *         kit = ravel_fuzz_kit_new(&o);
 *         return 0;
 *     }
 *     int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
 *     {
 *         return ravel_fuzz_kit_run(kit, data, size);
 *     }
 *
 * Build it with `find_package(ravel COMPONENTS fuzz)` and ravel::fuzz, or
 * `pkg-config --cflags --libs ravel-fuzz` (README, "Fuzzing your own
 * allocator"; examples/slotalloc/fuzz_slotalloc.c).
 *
 * The mapping from bytes to a case is fixed, so that a crash input can be
 * turned back into its function outside the process:
 *   - ALL the input bytes go to ravel_gen_from_bytes(data, size, &opts.gen);
 *   - the seed passed to the callback is a hash of all the bytes;
 * `ravel reduce [--machine M.ra] [generator options] --alloc-cmd 'CMD'
 * --from-fuzz kit CRASHFILE` regenerates the same function and reduces it
 * (the reproducer's header prints that command line).
 *
 * Contexts: one kit per thread; no global state. The kit reuses its checker
 * context from one input to the next, and ravel_fuzz_kit_new grows it first
 * on a few large functions (the warm-up, calling your callback), so that an
 * input's paths do not depend on the inputs before it (AFL++'s
 * "stability"). Library calls never exit; only ravel_fuzz_kit_run aborts,
 * on a bug, by design. */
#ifndef RAVEL_FUZZ_PUBLIC_H
#define RAVEL_FUZZ_PUBLIC_H

#include "ravel.h"
#include "ravel_gen.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { /* ravel_fuzz_kit_opts.flags */
    RAVEL_FUZZ_KIT_DIFFERENTIAL = 1u, /* also run both forms in the interpreter on a few input
                                          vectors (about twice the time per input); a difference
                                          the checker accepted is a bug too */
};

typedef struct ravel_fuzz_kit_opts {
    const char *name;     /* your allocator's name, in reproducers (default "user"; copied) */
    ravel_alloc_fn alloc; /* your allocator (required) */
    void *user;           /* its first argument */
    ravel_gen_opts gen;   /* generator options (ravel_gen.h; default ravel_gen_opts_default):
                             gen.machine is YOUR machine (borrowed: it must outlive the kit),
                             NULL for a random machine from the first bytes */
    unsigned flags;       /* RAVEL_FUZZ_KIT_* (default 0) */
    unsigned warm_up;     /* functions checked by ravel_fuzz_kit_new's warm-up (default 8; 0:
                             none, e.g. to replay files) */
} ravel_fuzz_kit_opts;

typedef struct ravel_fuzz_kit ravel_fuzz_kit;

/* The defaults above: name "user", no allocator, ravel_gen_opts_default,
 * no flags, warm_up 8. */
void ravel_fuzz_kit_opts_default(ravel_fuzz_kit_opts *o);

/* A kit for o (copied; o->gen.machine is borrowed), after its warm-up
 * (opts.warm_up functions through your callback: what they find is
 * dropped and not counted). NULL if o or o->alloc is NULL. Free with
 * ravel_fuzz_kit_free. */
ravel_fuzz_kit *ravel_fuzz_kit_new(const ravel_fuzz_kit_opts *o);
void ravel_fuzz_kit_free(ravel_fuzz_kit *k);

/* One input: generate, allocate with the callback, validate, check (and
 * compare with RAVEL_FUZZ_KIT_DIFFERENTIAL). Returns
 *   RAVEL_OK      the allocation is right, or the callback declined the
 *                 function (RAVEL_EDECLINED: counted, never a bug);
 *   RAVEL_EFAIL   a bug: ravel_fuzz_kit_reproducer says what and how to
 *                 reproduce it (kept until the next bug or the kit's end);
 *   RAVEL_EINVAL  k is NULL, or data is NULL with size > 0.
 * Never aborts, never exits. */
int ravel_fuzz_kit_check(ravel_fuzz_kit *k, const uint8_t *data, size_t size);

/* The last bug's reproducer (NUL-terminated `.ra` text; *len its length if
 * len is not NULL), or NULL when there was none. Owned by the kit. */
const char *ravel_fuzz_kit_reproducer(const ravel_fuzz_kit *k, size_t *len);

/* LLVMFuzzerTestOneInput's body: ravel_fuzz_kit_check, and on a bug prints
 *   ==== ravel: bug found; reproducer follows ====
 *   <the reproducer>
 *   ==== end of reproducer ====
 * on stderr and calls abort() (the engine then saves the input). Returns 0
 * otherwise (libFuzzer's "keep going"); a NULL k aborts as well, with a
 * message (a target whose kit was not made). */
int ravel_fuzz_kit_run(ravel_fuzz_kit *k, const uint8_t *data, size_t size);

/* Counters since ravel_fuzz_kit_new (the warm-up not included): inputs
 * checked (ravel_fuzz_kit_check calls with a valid k), inputs the callback
 * declined, and bugs found. 0 for a NULL k. */
uint64_t ravel_fuzz_kit_executions(const ravel_fuzz_kit *k);
uint64_t ravel_fuzz_kit_declined(const ravel_fuzz_kit *k);
uint64_t ravel_fuzz_kit_bugs(const ravel_fuzz_kit *k);

#ifdef __cplusplus
}
#endif

#endif
