/* slotalloc.h - "every value lives in its own slot": a small register
 * allocator written against ravel's PUBLIC API only (ravel.h), to be fuzzed
 * and checked by ravel (README.md in this folder).
 *
 * Design: vreg vN (id i) lives in spill slot s<i> for its whole life. Before
 * each instruction every register use is reloaded from its slot into a
 * register chosen for this one instruction (operand placement in the order
 * of the generator's satisfiability rules S1-S6: fixed registers first,
 * then the operands that span both points, then early uses and late defs);
 * after it every register def is spilled to its slot; `any` and `stack`
 * operands use the slot directly. Block arguments are copied slot to slot
 * through a register (through temporary slots when the copies form a
 * cycle); stackmaps list the slots of the live .ref values.
 *
 * Declines (RAVEL_EDECLINED) only what the generator never writes: a
 * reuse(K) of a use that is not an early non-fixed reg use of the def's
 * class, an instruction with too few registers for its operands, a vreg of
 * an unknown class, a critical edge.
 *
 * Planted bugs, chosen with the environment variable SLOTALLOC_BUG (read
 * once by slotalloc_config_from_env; unset or empty: none):
 *   reload    a register cache skips reloads of a value the register still
 *             holds, but the cache is not reset at block starts: a reload is
 *             dropped on the paths that do not come from the layout
 *             predecessor
 *   stackmap  a stackmap of two or more slots misses its last slot
 *   clobber   the register cache skips reloads, but clobbers do not
 *             invalidate it: a value read after a call from a register the
 *             call destroyed */
#ifndef SLOTALLOC_H
#define SLOTALLOC_H

#include <ravel.h>

#include <stdint.h>

typedef struct slotalloc_config {
    int bug_reload;      /* SLOTALLOC_BUG=reload */
    int bug_stackmap;    /* SLOTALLOC_BUG=stackmap */
    int bug_clobber;     /* SLOTALLOC_BUG=clobber */
    const char *unknown; /* the value of SLOTALLOC_BUG when it names no bug, else NULL */
} slotalloc_config;

/* Reads SLOTALLOC_BUG (once; the allocator itself reads no environment). */
slotalloc_config slotalloc_config_from_env(void);

/* The allocator, a ravel_alloc_fn: user is a const slotalloc_config * (NULL:
 * no bug). seed is unused (the allocator makes no random choice). */
int slotalloc_alloc(void *user, const ravel_func *orig, uint64_t seed, ravel_func **out, char **msg);

#endif
