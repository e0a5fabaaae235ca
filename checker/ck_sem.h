/*
 * ck_sem.h - docs/format.md section 6's semantics, for code outside the
 * checker too (injection's hold analysis, the arbitrary-CFG builder's
 * tracker, tests): a header that needs only ir/ir.h.
 *
 * Section 6 is defined twice in the checker, deliberately, and the two are
 * tested against each other (tests/checker/test_paths.c, test_vn.c): the
 * reference's transfer (ck_ref_xfer.c) and value numbering's (ck_vn.c).
 * Whatever else needs "what each location holds" should not be a third
 * definition: it uses the rules below.
 */
#ifndef RAVEL_CK_SEM_H
#define RAVEL_CK_SEM_H

#include "ir/ir.h"

/* ---- the collector at a safepoint ----
 *
 * The rule, once: after a safepoint, does location L still hold vreg v
 * (which it held before)?
 *   moving   the machine's collector moves objects (gc moving, the
 *            default: !f->mach->gc_nonmoving);
 *   ref      v is a .ref vreg;
 *   listed   L is a slot the safepoint's stackmap lists;
 *   rooted   some listed slot holds v (read only when !moving).
 * gc moving: a location the stackmap does not list loses its .ref vregs
 * (the collector may move the object: only listed slots are updated), and
 * a listed slot loses its other vregs (the collector rewrote its bits).
 * gc nonmoving: a .ref vreg that no listed slot holds is dead to the
 * collector and is removed everywhere; everything else stays.
 * The reference (ck_ref_xfer.c: safepoint_effect) and value numbering
 * (ck_vn.c: vsafepoint) call it; a one-vreg-per-location tracker calls it
 * per location, with rooted = "a listed slot holds the same vreg". */
static inline bool ck_gc_keeps(bool moving, bool ref, bool listed, bool rooted)
{
    return moving ? ref == listed : !ref || rooted;
}

/* The stackmap of in (a safepoint) lists slot number s. */
static inline bool ck_smap_lists(const ravel_func *f, const rv_inst *in, uint32_t s)
{
    if (!(in->flags & RV_IF_STACKMAP)) return false;
    for (uint32_t k = 0; k < in->u.smap.n; k++)
        if (f->u32.data[in->u.smap.first + k] == s) return true;
    return false;
}

#endif
