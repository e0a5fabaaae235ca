/* myalloc.h - a small register allocator to fuzz with ravel's fuzzing kit
 * (the example of README "Fuzzing your own allocator"). It stands for
 * YOUR allocator: the interface is ravel's callback (ravel_alloc_fn,
 * ravel.h), so the same function serves the in-process kit target
 * (fuzz_myalloc.c) and the one-shot protocol command (myalloc_cmd.c,
 * `ravel fuzz/reduce --alloc-cmd`).
 *
 * What it does: ravel's built-in "linear" allocator does the work; myalloc
 * declines functions with safepoints ("no GC support yet": RAVEL_EDECLINED,
 * counted by the kit, never a bug) and can plant one bug, chosen with the
 * environment variable MYALLOC_BUG:
 *   sub-use   the first use of every `sub` is read from the next register
 *             of its class instead of the one that holds the value
 *             (a wrong register for a use: the checker's use-wrong-vreg)
 * (unset or empty: no bug). */
#ifndef MYALLOC_H
#define MYALLOC_H

#include <ravel.h>

#include <stdint.h>

typedef struct myalloc_config {
    int bug_sub_use; /* MYALLOC_BUG=sub-use */
} myalloc_config;

/* Reads MYALLOC_BUG; returns 0, or -1 (with a message on stderr) for an
 * unknown bug name. */
int myalloc_config_from_env(myalloc_config *c);

/* The allocator, as a ravel_alloc_fn: user is a const myalloc_config *. */
int myalloc_alloc(void *user, const ravel_func *orig, uint64_t seed, ravel_func **out, char **msg);

#endif
