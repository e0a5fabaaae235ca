/* ck_ref.h - what the reference fixpoint's files share; no other file of
 * the library includes it (tests/checker/test_ref_holders.c does: it
 * compares the states with and without the shortcuts, ck_ref_plain).
 * The reference (ck.h: ck_ref_check) is three files, called
 * one way (ck_ref.c -> the others, ck_ref_view.c -> ck_ref_xfer.c):
 *   ck_ref.c       the fixpoint: per-block states, the worklist, edges and
 *                  the meet; the entry point
 *   ck_ref_xfer.c  the transfer of section 6 on one dense working state
 *                  (values, holder lists, reads and their errors)
 *   ck_ref_view.c  what is read of the fixpoint afterwards: provenance,
 *                  explain dumps, holders, the cursor of ck_sem.h
 * Its context (struct ck_ref) is in three parts: the states (fix,
 * ck_ref.c), the working state (work, ck_ref_xfer.c) and the cursor
 * (view, ck_ref_view.c). */
#ifndef RAVEL_CK_REF_H
#define RAVEL_CK_REF_H

#include "ck.h"

typedef struct ck_hold {
    uint32_t li, next;
} ck_hold;

/* The fixpoint's states (ck_ref.c). */
typedef struct ref_fix {
    /* per block: entry state in pool and exit state in xpool (sorted by li,
     * no unknown); reached: has an entry, xdone: has an exit, queued */
    ck_entvec pool, xpool;
    RV_VEC(ck_span) ent, xit;
    RV_VEC(uint8_t) reached, queued, xdone;
    /* in-edges per block, in a fixed order (source block id, then
     * successor order): pairs (source, edge id into f->succs) */
    RV_VEC(uint32_t) in_start, in_src, in_edge;
    ck_entvec exitv, edgev, meetv, outv; /* outv: the meet of section 14 (with U) is written there */
    ck_u32vec ma, mb; /* scratch: that meet's members */
    ck_u32vec tmp; /* scratch: fill cursors, a meet's members */
    uint32_t state_limit; /* CK_MAX_STATE_POOL, or ck->state_limit (tests) */
    bool states_over;     /* a state was not stored: past state_limit */
    /* the steady states (ck_ref_steady): per loop header (hdr) the meet of
     * its back edges at the first fixpoint (seedspan in seeds) */
    bool steady;
    RV_VEC(uint8_t) hdr;
    RV_VEC(ck_span) seedspan;
    ck_entvec seeds;
} ref_fix;

/* The members whose holders a visit asks for (ck_ref_xfer.c: query_of):
 * those of a load with a block (ref_load_block) are marked, and only
 * their holder lists are kept; a load without one keeps every list. */
typedef struct ref_query {
    bool all;       /* this visit keeps every member's list */
    bool ref;       /* it keeps the list of the .ref pseudo-vreg (all, or a safepoint asks) */
    bool force_all; /* tests (ck_ref_plain): every visit does */
    uint32_t stamp; /* of this visit's marks */
    uint32_t *mark; /* per member (vcap): asked for if stamp */
    uint8_t *isref; /* per member (vcap): a .ref vreg (ref_work_reset) */
} ref_query;

/* What ref_edge_subst answered (ck_ref_xfer.c): per (edge, value) of
 * the function checked, a pure answer, kept in a direct-mapped table whose
 * entries of older generations are empty (a check starts a generation). */
typedef struct ref_memo_ent {
    uint32_t gen, edge, val, res;
} ref_memo_ent;
typedef struct ref_memo {
    bool off;             /* tests (ck_ref_plain): no memo */
    uint32_t gen;         /* this check's */
    const ravel_func *f;  /* the function of this generation */
    ref_memo_ent *tab;    /* REF_MEMO entries, allocated at its first use */
} ref_memo;

/* The dense working state of one block's visit (ck_ref_xfer.c). */
typedef struct ref_work {
    ck_val *cur;              /* per location, unknown where not touched */
    uint32_t *lmark, *lmark2; /* lmark: cur[li] is of this visit; lmark2: listed at a safepoint (stamp2) */
    uint32_t *lseen;          /* seen once by live_holders (stamp3) */
    uint32_t loc_cap, stamp, stamp2, stamp3;
    RV_VEC(uint32_t) touched;
    /* holders: per vreg (index nvregs: holders of .ref vregs) a list of
     * locations that received it this visit (stale entries re-checked) */
    uint32_t *vhead, *vmark, *vmark2;
    uint32_t vcap;
    RV_VEC(ck_hold) holds;
    ref_query q;
    ref_memo memo;
    ck_u32vec m1, m2, srcset, hl;
    uint8_t cmode;   /* the copy being run: CM_* (ck_ref_xfer.c) */
    uint32_t ctok;   /* its source's constant (a token), CK_NIL if none */
    bool log_stale;  /* kill notes in stale every (location, vreg) it removes (ck_ref_step) */
    ck_entvec stale; /* (li, vreg) */
} ref_work;

/* The cursor of ck_sem.h (ck_ref_view.c): before instruction inst of
 * block, in f; ents: scratch. */
typedef struct ref_view {
    const ravel_func *f; /* NULL: no cursor */
    uint32_t block, inst;
    uint32_t one; /* a singleton's member, for ck_ref_loc_vregs */
    ck_entvec ents;
} ref_view;

struct ck_ref {
    bool has_run; /* a check ran: the states below are of ck->f */
    ck_sets sets;
    ref_fix fix;
    ref_work work;
    ref_view view;
    /* recording and verdict */
    bool record;    /* the recording pass: value errors go to ck->out.rep */
    bool stop_at_error;
    uint32_t nerr;  /* value errors seen (any pass) */
    uint32_t err_block; /* provenance: the block of the error being explained */
};

/* ---- ck_ref_xfer.c ---- */
void ref_work_free(ref_work *w);
size_t ref_work_memory(const ref_work *w);
/* The working state for ck->f: all unknown, room for its locations and vregs. */
void ref_work_reset(const ravel_checker *ck, ck_ref *r);
/* The members of a value (not unknown/conflict), see ck_val_members. */
static inline uint32_t ref_members(const ck_ref *r, ck_val v, const uint32_t **m, uint32_t *one)
{
    return ck_val_members(&r->sets, v, m, one);
}
bool ref_val_has(const ck_ref *r, ck_val val, uint32_t v);
/* The set of the n vregs in buf (any order, repeats allowed); none: empty. */
ck_val ref_intern(ck_ref *r, uint32_t *buf, uint32_t n);
/* Starts a visit from the state ents[0..n) (sorted by location): of any
 * instructions (ref_load), or of block b's only (ref_load_block: only the
 * holder lists b's instructions ask for are kept). */
void ref_load(const ravel_checker *ck, ck_ref *r, const ck_ent *ents, uint32_t n);
void ref_load_block(const ravel_checker *ck, ck_ref *r, uint32_t b, const ck_ent *ents, uint32_t n);
/* Instruction ii (in) of block b: the transfer of section 6 on the
 * working state; value errors counted (recorded when r->record). */
void ref_xfer(ravel_checker *ck, ck_ref *r, uint32_t b, uint32_t ii, const rv_inst *in);
/* A visit of block b from its entry state. */
void ref_run_block(ravel_checker *ck, ck_ref *r, uint32_t b);
/* The value along edge e whose target has parameters (ref_edge_val). */
ck_val ref_edge_subst(const ravel_checker *ck, ck_ref *r, const rv_succ *e, ck_val val);

/* cur[li] is unknown wherever the visit has not touched li. */
static inline ck_val ref_loc(const ck_ref *r, uint32_t li) { return r->work.cur[li]; }

/* Starts a visit of b from its entry state at the fixpoint. */
static inline void ref_load_entry(const ravel_checker *ck, ck_ref *r, uint32_t b)
{
    const ck_span *e = &r->fix.ent.data[b];
    ref_load_block(ck, r, b, e->len ? r->fix.pool.data + e->start : NULL, e->len); /* (no offset of a NULL pool) */
}

/* The value carried along edge e: every parameter of its target removed,
 * then parameter p added wherever its argument was (all at once). */
static inline ck_val ref_edge_val(const ravel_checker *ck, ck_ref *r, const rv_succ *e, ck_val val)
{
    if (!ck->f->blocks.data[e->block].nparams || val >= CK_V_UNKNOWN) return val;
    return ref_edge_subst(ck, r, e, val);
}

/* ---- ck_ref.c ---- */
/* Tests: the checks that follow run the reference plainly (on): every
 * visit keeps every member's holder list, and no edge value is taken from
 * the memo; or with those shortcuts (off, the default). */
void ck_ref_plain(ravel_checker *ck, bool on);

/* ---- ck_ref_view.c ---- */
/* Provenance for the value errors recorded from index e0 on. */
void ref_add_provenance(ravel_checker *ck, ck_ref *r, uint32_t e0);
void ref_view_free(ref_view *v);
size_t ref_view_memory(const ref_view *v);
/* The last states are of f (a reference check of f ran last). */
static inline bool ref_states_of(const ck_ref *r, const ravel_func *f) { return r && r->has_run && r->fix.reached.len == f->layout.len; }

#endif
