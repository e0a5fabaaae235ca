/* alloc.h - register allocators and their shared machinery.
 *
 * Every allocator is one entry of the table in table.c: {name, description,
 * run}. The CLI (`ravel alloc -a NAME`), the fuzz targets and the benchmarks
 * iterate the table, so adding an allocator is one file and one line.
 *
 * Contract of run():
 *   requires  f is unallocated, passes ravel_validate(f, RAVEL_VALIDATE_SSA),
 *             and its blocks are in layout order (ravel_func_finish).
 *   returns   a new allocated function: the same blocks, parameters and
 *             original instructions in the same order (same mnemonics, vregs,
 *             constraints, immediates, attributes), every operand with a
 *             location, edits inserted between instructions, a stackmap on
 *             every safepoint; ravel_check(out, f) accepts it.
 *             On failure (only when constraints are unsatisfiable) returns
 *             NULL and a malloc'd message naming the instruction in *err.
 *   never     modifies f, keeps global state, or calls exit().
 */
#ifndef RAVEL_ALLOC_H
#define RAVEL_ALLOC_H

#include "ir/ir.h"

typedef struct rv_alloc_opts {
    uint64_t seed;  /* for allocators with random choices */
    bool trace;     /* print an event trace (allocate/evict/spill/reload/move) to stderr */
} rv_alloc_opts;

typedef struct rv_allocator {
    const char *name;
    const char *description;
    ravel_func *(*run)(const ravel_func *f, const rv_alloc_opts *o, char **err);
} rv_allocator;

/* The table (table.c), terminated by an entry with name == NULL. */
extern const rv_allocator rv_allocators[];
const rv_allocator *rv_allocator_find(const char *name);

#endif
