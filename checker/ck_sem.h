/*
 * ck_sem.h - docs/format.md section 6's semantics, for code outside the
 * checker too (injection's hold analysis, the arbitrary-CFG builder's
 * tracker, tests): a header that needs only ir/ir.h.
 *
 * Section 6 is defined twice in the checker, deliberately, and the two are
 * tested against each other (tests/checker/test_paths.c, test_vn.c): the
 * reference's transfer (ck_ref_xfer.c) and value numbering's (ck_vn.c).
 * Whatever else needs "what each location holds" should not be a third
 * definition: it uses the rules below, or the reference's own states
 * through the interface at the end of this file.
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

/* ---- the reference's states, location by location ----
 *
 * What each location holds at each point of an allocated function, as the
 * reference fixpoint (ck_ref*.c) computed it: for code that needs "what
 * does L hold here" (injection's hold analysis, the arbitrary-CFG
 * builder's repairs, tests) without a transfer of its own. Requires: the
 * last ravel_check of this checker was of f and ran the reference
 * (RAVEL_CHECK_REFERENCE, or any check the reference decided: value
 * errors). The checker's own checks are not disturbed (nothing is
 * recorded); the next ravel_check ends the states read here.
 *
 * A cursor stands before an instruction of a reached block: ck_ref_seek
 * puts it there (the state the fixpoint has there), ck_ref_step moves it
 * past one instruction (the transfer of section 6), ck_ref_edge from the
 * end of a block into a successor (that edge alone: parameters bound, not
 * the meet of the successor's in-edges). ck_ref_loc_vregs reads what a
 * location holds. A step or an edge also tells which copies it left
 * *stale*: a location that held vreg v, which the instruction (or the
 * edge's parameter binding) defines anew, and that no longer holds v -
 * the older value stays there, no longer v's.
 *
 * ck_ref_steady recomputes the states as the second and later iterations
 * of every loop see them: a loop header's entry is the meet of its back
 * edges only (and of what they carried at the first fixpoint), its forward
 * in-edges ignored; so a copy a latch leaves in L is seen after the next
 * iteration redefines its vreg (stale). The cursor then reads those
 * states, until the next check. Every fact of the first fixpoint holds in
 * them too (tests/checker/test_ref_view.c checks it, with the rest). */
typedef struct ck_stale {
    ravel_loc loc; /* the location left with an older value of vreg */
    uint32_t vreg;
} ck_stale;

/* The cursor before instruction inst of f; false if inst is in no block
 * the fixpoint reached (or the states are not of f). */
bool ck_ref_seek(ravel_checker *ck, const ravel_func *f, uint32_t inst);
/* Past the cursor's instruction; the copies it left stale in out[0..max),
 * how many in all (0 also when the cursor is at its block's end). */
uint32_t ck_ref_step(ravel_checker *ck, ck_stale *out, uint32_t max);
/* At its block's end: along successor k of the terminator, to the
 * target's first instruction; the copies of the target's parameters the
 * binding left stale, as ck_ref_step. False if the cursor is not at a
 * block's end or there is no successor k. */
bool ck_ref_edge(ravel_checker *ck, uint32_t k, ck_stale *out, uint32_t max, uint32_t *nstale);
/* The vregs location l holds at the cursor, sorted, in *vregs (valid
 * until the cursor moves); 0 if it holds none known (unknown, conflicted,
 * or every vreg removed). */
uint32_t ck_ref_loc_vregs(ravel_checker *ck, ravel_loc l, const uint32_t **vregs);
/* The vregs undefined on every path to the cursor (the set U of
 * docs/format.md section 14.2), sorted, in *vregs (valid until the cursor
 * moves); 0 if none or the function has no undef. A vreg in U is held by
 * every location for a read, so the locations do not list it: knowing
 * more (a larger U) can make a location list fewer vregs. */
uint32_t ck_ref_undef_vregs(ravel_checker *ck, const uint32_t **vregs);
/* What location l holds at the cursor as one number, for trackers that
 * follow a location without reading it: two tokens are equal exactly when
 * the contents are (the same set of vregs, the empty set, unknown, or
 * conflicted; CK_TOKEN_UNKNOWN without a cursor or for a location f does
 * not have). A step that leaves l's token as it was did not change l. */
#define CK_TOKEN_UNKNOWN 0xfffffffdu
uint32_t ck_ref_loc_token(ravel_checker *ck, ravel_loc l);
/* The tokens of the first n locations at the cursor, in location-index
 * order (rv_loc_index: registers, then slots), into out (CK_TOKEN_UNKNOWN
 * past those f has); how many f has of them. For a table of every
 * location before every instruction, a copy instead of n calls. */
uint32_t ck_ref_loc_tokens(ravel_checker *ck, uint32_t *out, uint32_t n);
/* The second and later iterations of every loop (above); false if the
 * states are not of f or a limit was passed (then nothing is read). */
bool ck_ref_steady(ravel_checker *ck, const ravel_func *f);

#endif
