/* hold.h - injection's hold analysis: which vreg each location holds before
 * every instruction of an allocated function, one vreg per location (the
 * sites of the modelled kinds are found with it).
 *
 * It abstracts the checker's reference fixpoint (checker/ck_ref.c, sets of
 * vregs per location) to one vreg per location, and adds what the
 * reference does not keep: copies left behind by a redefinition ("stale").
 * It follows section 6 of docs/format.md in the reference's order (early
 * defs, clobbers and the safepoint, late defs; a def removes the other
 * copies of its vreg, which become stale here; block arguments substituted
 * on edges; the collector's effect at a safepoint by the rule the checker
 * states). tests/inject/test_hold.c holds it to the reference on generated
 * functions: a location this analysis says holds v, the reference's
 * fixpoint says holds v (ck_ref_holders); a stale copy of v, never.
 *
 * A state is one uint32 per location cell (rv_loc_index):
 *   INJ_H_TOP     block not reached yet (identity of the meet; never in a result);
 *   INJ_H_UNK     unknown or conflicted (never written on some path,
 *                 clobbered, dropped at a safepoint, paths disagree);
 *   v             the current value of vreg v (v < INJ_H_STALE);
 *   v|INJ_H_STALE a copy of v left behind by a redefinition of v (a value
 *                 of an earlier definition, e.g. of the previous loop
 *                 iteration).
 */
#ifndef RAVEL_INJECT_HOLD_H
#define RAVEL_INJECT_HOLD_H

#include "ir/ir.h"

#define INJ_H_UNK 0xffffffffu
#define INJ_H_TOP 0xfffffffeu
#define INJ_H_STALE 0x80000000u
static inline bool inj_h_valid(uint32_t h) { return h < INJ_H_STALE; }
static inline bool inj_h_stale(uint32_t h) { return h != INJ_H_UNK && h != INJ_H_TOP && (h & INJ_H_STALE); }

/* What the analysis reads: an allocated, valid, finished function, its CFG
 * (rv_cfg_build) and its location cells (nregs registers, then nslots
 * slots; f's machine's and f->nslots; at least one cell). */
typedef struct inj_hold_fn {
    const ravel_func *f;
    const rv_cfg *cfg;
    uint32_t nregs, nslots;
} inj_hold_fn;

/* The stackmap of in lists slot number slot (false without a stackmap). */
bool inj_smap_lists(const ravel_func *f, const rv_inst *in, uint32_t slot);

/* The states before every instruction into out (insts.len x nlocs cells,
 * instruction i's at out + i * nlocs): the must-analysis over all paths.
 * Unreached blocks' instructions get INJ_H_UNK everywhere. */
void inj_hold_build(const inj_hold_fn *h, uint32_t *out);
/* The states of the second and later iterations of every loop, from must
 * (inj_hold_build's result): a loop header's entry is the meet over its
 * back edges only, of the states must gives at the latches' ends; so a
 * copy of v the latch leaves in L is still seen after the next iteration
 * redefines v (stale). */
void inj_hold_build_steady(const inj_hold_fn *h, const uint32_t *must, uint32_t *out);

#endif
