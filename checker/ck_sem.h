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

/* ---- one instruction's effects, in their order ----
 *
 * Section 6 applies an instruction's effects on what locations hold in
 * this order (a phase's effects all before the next phase's):
 *   CK_SEM_EARLY_DEFS  defs marked early are written;
 *   CK_SEM_CLOBBERS    the clobbered registers hold nothing, except
 *                      those the instruction defines (an early def in
 *                      a clobbered register stays);
 *   CK_SEM_COLLECTOR   at a safepoint, the collector's rule (ck_gc_keeps);
 *   CK_SEM_DEFS        the other (late: the default) defs are written.
 * Uses read between (early uses before the clobbers, late uses last) and
 * change nothing. So a call's clobbered register can receive its def, and
 * a def at a safepoint is not touched by the collector. An edit is an
 * instruction of its own: its destination takes what its source holds.
 * The reference (ck_ref_xfer.c: ref_xfer) applies the phases in this
 * order, on sets (with overlaps, undef and constants on top); the
 * enumerators' order is the order.
 *
 * ck_sem_one is that order for a "one vreg per location" state, for
 * trackers (the arbitrary-CFG builder, fuzz/anycfg.c; tests): hold[li] is
 * vreg + 1 or 0 (nothing known), li a location index (rv_loc_index). Each
 * vreg it holds is one the reference's state has in that location too, if
 * the tracker started from a subset of the reference's state
 * (tests/checker/test_sem_step.c checks it on generated functions). */
typedef enum ck_sem_phase {
    CK_SEM_EARLY_DEFS,
    CK_SEM_CLOBBERS,
    CK_SEM_COLLECTOR,
    CK_SEM_DEFS,
    CK_SEM_NPHASES
} ck_sem_phase;

typedef struct ck_sem_one {
    uint32_t *hold;        /* per location index: vreg + 1, 0 nothing known */
    uint32_t nlocs;        /* locations (hold's length) */
    uint32_t nregs;        /* registers: location indices below, slots from */
    const uint8_t *isref;  /* per vreg: a .ref vreg */
    bool moving;           /* the collector moves objects (!gc_nonmoving) */
} ck_sem_one;

/* One instruction, described by location indices (CK_SEM_NOLOC: none). */
#define CK_SEM_NOLOC 0xffffffffu
typedef struct ck_sem_def {
    uint32_t vreg, li;
    bool early;
} ck_sem_def;
typedef struct ck_sem_inst {
    const uint32_t *clob;  /* clobbered registers' location indices */
    uint32_t nclob;
    bool safepoint;
    const uint32_t *listed; /* the stackmap's slots, as location indices */
    uint32_t nlisted;
    const ck_sem_def *defs;
    uint32_t ndefs;
} ck_sem_inst;

/* A def of v into li: v is defined anew, so no other location holds it
 * (the reference's write_def: kill, then set); li holds v. */
static inline void ck_sem_def_at(ck_sem_one *t, uint32_t v, uint32_t li)
{
    for (uint32_t i = 0; i < t->nlocs; i++)
        if (t->hold[i] == v + 1) t->hold[i] = 0;
    if (li != CK_SEM_NOLOC) t->hold[li] = v + 1;
}

/* An edit: dst takes what src holds (nothing if src is none). */
static inline void ck_sem_edit(ck_sem_one *t, uint32_t dst, uint32_t src)
{
    if (dst != CK_SEM_NOLOC) t->hold[dst] = src == CK_SEM_NOLOC ? 0 : t->hold[src];
}

static inline bool ck_sem_listed(const ck_sem_inst *in, uint32_t li)
{
    for (uint32_t k = 0; k < in->nlisted; k++)
        if (in->listed[k] == li) return true;
    return false;
}

/* The collector on every location (ck_gc_keeps; rooted: a listed slot
 * holds the same vreg). In place: the collector removes from a listed
 * slot only what it does not root (gc nonmoving) or reads no roots (gc
 * moving), so no removal changes another location's rooted. */
static inline void ck_sem_collect(ck_sem_one *t, const ck_sem_inst *in)
{
    for (uint32_t li = 0; li < t->nlocs; li++) {
        uint32_t h = t->hold[li];
        if (!h) continue;
        bool ref = t->isref[h - 1], rooted = false;
        for (uint32_t k = 0; !t->moving && ref && k < in->nlisted; k++) rooted |= t->hold[in->listed[k]] == h;
        if (!ck_gc_keeps(t->moving, ref, ck_sem_listed(in, li), rooted)) t->hold[li] = 0;
    }
}

/* in defines location li. */
static inline bool ck_sem_defines(const ck_sem_inst *in, uint32_t li)
{
    for (uint32_t k = 0; k < in->ndefs; k++)
        if (in->defs[k].li == li) return true;
    return false;
}

/* One phase of in on t. */
static inline void ck_sem_phase_do(ck_sem_one *t, const ck_sem_inst *in, ck_sem_phase p)
{
    if (p == CK_SEM_CLOBBERS) {
        for (uint32_t k = 0; k < in->nclob; k++)
            if (!ck_sem_defines(in, in->clob[k])) t->hold[in->clob[k]] = 0;
    } else if (p == CK_SEM_COLLECTOR && in->safepoint) {
        ck_sem_collect(t, in);
    } else if (p == CK_SEM_EARLY_DEFS || p == CK_SEM_DEFS) {
        for (uint32_t k = 0; k < in->ndefs; k++)
            if (in->defs[k].early == (p == CK_SEM_EARLY_DEFS)) ck_sem_def_at(t, in->defs[k].vreg, in->defs[k].li);
    }
}

/* Every effect of in on t, in section 6's order. */
static inline void ck_sem_step(ck_sem_one *t, const ck_sem_inst *in)
{
    for (int p = 0; p < CK_SEM_NPHASES; p++) ck_sem_phase_do(t, in, (ck_sem_phase)p);
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
 * them too (tests/checker/test_ref_view.c checks it, with the rest). The
 * tokens read before it keep their members (ck_ref_token_vregs).
 *
 * CK_SEM_STATES_ONLY (an option of ravel_checker_set_options, with
 * RAVEL_CHECK_REFERENCE) asks for the states alone: the reference runs its
 * fixpoint to the end as always (the same states), but makes no recording
 * pass, so the report lists no value error; the status is RAVEL_EFAIL if
 * there was one. */
#define CK_SEM_STATES_ONLY 0x02000000u
typedef struct ck_stale {
    ravel_loc loc; /* the location left with an older value of vreg */
    uint32_t vreg;
} ck_stale;

/* The cursor before instruction inst of f; false if inst is in no block
 * the fixpoint reached (or the states are not of f). */
bool ck_ref_seek(ravel_checker *ck, const ravel_func *f, uint32_t inst);
/* Past the cursor's instruction; the copies it left stale in out[0..max),
 * how many in all (0 also when the cursor is at its block's end, and with
 * out NULL: then they are not looked for). */
uint32_t ck_ref_step(ravel_checker *ck, ck_stale *out, uint32_t max);
/* ck_ref_step (out NULL) until the cursor is before instruction inst, or
 * at its block's end if inst is past it (nothing if the cursor is at inst
 * or past it already); where the cursor is then (RAVEL_NONE without one). */
uint32_t ck_ref_advance(ravel_checker *ck, uint32_t inst);
/* At its block's end: along successor k of the terminator, to the
 * target's first instruction; the copies of the target's parameters the
 * binding left stale, as ck_ref_step. False if the cursor is not at a
 * block's end or there is no successor k. */
bool ck_ref_edge(ravel_checker *ck, uint32_t k, ck_stale *out, uint32_t max, uint32_t *nstale);
/* The vregs location l holds at the cursor, sorted, in *vregs (valid
 * until the cursor moves; with 0, a valid pointer to nothing); 0 if it
 * holds none known (unknown, conflicted, or every vreg removed). */
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
/* What a token stands for, when that is one vreg or none: the vreg v if
 * the location holds v alone, CK_TOKEN_UNKNOWN if it holds no vreg
 * (unknown, conflicted, empty, or a constant's token alone), and
 * CK_TOKEN_SET for a set of several members (read them with
 * ck_ref_loc_vregs). For tables that follow many locations: most hold
 * one vreg, and this is a test on the number alone. */
#define CK_TOKEN_SET 0xfffffffcu
uint32_t ck_ref_token_single(const ravel_checker *ck, uint32_t token);
/* A token below the function's number of vregs is that vreg alone
 * (ck_ref_token_single gives it back), and one from CK_TOKEN_UNKNOWN up
 * holds no vreg: a table of tokens can test those on the number, and
 * call for the rest. */
/* The vregs of a token read at any cursor of the last check's states (or
 * of its steady states), as ck_ref_loc_vregs would have given them there,
 * in *vregs (valid until the next call that reads vregs); a token stays
 * readable while the cursor moves on, and through ck_ref_steady (also
 * one that failed), until the next check. So a table
 * can keep the tokens and read the members of the few it needs later. */
uint32_t ck_ref_token_vregs(ravel_checker *ck, uint32_t token, const uint32_t **vregs);
/* The tokens of the first n locations at the cursor, in location-index
 * order (rv_loc_index: registers, then slots), into out (CK_TOKEN_UNKNOWN
 * past those f has); how many f has of them. For a table of every
 * location before every instruction, a copy instead of n calls. */
uint32_t ck_ref_loc_tokens(ravel_checker *ck, uint32_t *out, uint32_t n);
/* The second and later iterations of every loop (above); false if the
 * states are not of f or a limit was passed (then nothing is read). */
bool ck_ref_steady(ravel_checker *ck, const ravel_func *f);

#endif
