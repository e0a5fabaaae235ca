/* anycfg.h - allocated functions on arbitrary CFGs, for testing the checker.
 *
 * rv_anycfg_build makes one small function, already allocated, on a random
 * CFG of any shape: irreducible (multi-entry) cycles, self-loops, loops
 * entered or left in the middle, dominators re-entered by retreating
 * edges; critical edges are split by edge blocks (the format forbids them).
 * It is valid SSA with block parameters (every use is dominated by its
 * def; values reach a join through parameters). Its instructions are
 * arithmetic, copies, outputs, calls with clobbers, safepoints with
 * stackmaps (.ref values, gc moving or nonmoving) and edits, over a few
 * registers and slots. Locations are chosen by a simple tracker that
 * follows the dominator tree (so joins and cycles often break them), then
 * a few rounds "repair" failing uses toward correctness with the reference
 * fixpoint (RAVEL_CHECK_REFERENCE): a mix of correct and nearly correct
 * allocations. The unallocated original is built alongside (the same
 * instructions without locations and edits), for `--orig` and for the
 * interpreter.
 *
 * Deterministic: the choices come from the bytes given (a fuzzer's input),
 * then from a splitmix64 stream seeded by seed. Not part of the product:
 * tests (tests/checker/test_paths.c), the fuzz target fuzz_checker_paths
 * and bench_check's irreducible column use it. */
#ifndef RAVEL_FUZZ_ANYCFG_H
#define RAVEL_FUZZ_ANYCFG_H

#include "ravel.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct rv_anycfg_opts {
    uint32_t max_blocks;  /* before edge blocks (2..40; default 8) */
    uint32_t max_insts;   /* per block (1..20000; default 6) */
    uint32_t nregs;       /* registers of the one class (2..16; default 4) */
    uint32_t nslots;      /* slots used (1..16; default 3) */
    uint32_t repairs;     /* rounds of repair (default 2) */
    uint32_t repair_pct;  /* failing uses repaired per round, in percent (default 70) */
    int irreducible;      /* 1: insist on an irreducible cycle (a few tries), 0: any shape, -1: reducible only */
    bool clean;           /* after the repairs, rounds that repair at any cost until the reference accepts (mostly) */
    bool one_loop;        /* the CFG is one natural loop (entry, header, latch, exit): the loop shortcut's ground */
} rv_anycfg_opts;

void rv_anycfg_opts_default(rv_anycfg_opts *o);

typedef struct rv_anycfg {
    ravel_module *alloc, *orig; /* one function "f" each */
    char *alloc_text, *orig_text;
    bool irreducible;           /* the CFG has a retreating edge whose target does not dominate its source */
} rv_anycfg;

/* Builds one function; 0 on success (frees nothing on failure: call
 * rv_anycfg_free either way). */
int rv_anycfg_build(const uint8_t *data, size_t len, uint64_t seed, const rv_anycfg_opts *o, rv_anycfg *out);
void rv_anycfg_free(rv_anycfg *a);

/* Checks alloc (against orig, or NULL) by every path of the checker - the
 * default pipeline, without value numbering, value numbering by its own
 * scan with the full validator, verdict only, explain - and requires
 * the reference's (RAVEL_CHECK_REFERENCE) status and normalized report of
 * each. *ref_status: the reference's status. False with a description in
 * msg on the first difference. */
bool rv_anycfg_paths_agree(const ravel_func *alloc, const ravel_func *orig, int *ref_status, char *msg, size_t msglen);

#endif
