/*
 * ck.h - internal map of the symbolic checker (FORMAT.md section 6).
 *
 * Pipeline of one ravel_check call (check.c):
 *   guard (ck_rules.c)    structural sanity; bad input -> RAVEL_EINVAL
 *   cfg (ck_cfg.c)        predecessors and reverse post-order, own scratch
 *   rules (ck_rules.c)    per-operand constraint/structure checks, --orig match
 *   flow (ck_flow.c)      forward abstract interpretation to a fixpoint as a
 *                         walk of the dominator tree over one state with an
 *                         undo log (ck_state.c), transfer in ck_xfer.c;
 *                         value errors are recorded at the fixpoint; the
 *                         fast verdict walk's loop shortcut in ck_loop.c
 *   report (ck_report.c)  errors, provenance, explain dumps, text and JSON
 *
 * Glossary: a *location index* (li) is a dense number for a location:
 * registers are 0..nregs-1, slot sN is nregs+N. A *value* (ck_val) is the
 * lattice element a location holds in a stored block state:
 *   CK_V_UNKNOWN               unknown (never stored in an edge delta as absent)
 *   v (< CK_V_SETBIT)          the singleton {v} (v a vreg id)
 *   CK_V_SETBIT | id           an interned set of >= 2 vregs
 *   CK_V_EMPTY                 a set from which every vreg was removed
 *   CK_V_CONFLICT              paths disagree (empty intersection)
 * The current state inside a block is dense (ck_state.c): per location a
 * value stamped with the visit; the vregs a block may kill or alias keep
 * chains of their holders, so a def of v visits only the locations that
 * received v (no location scans).
 *
 * Invariants between calls (scratch reuse): stamps only grow, so stale marks
 * never match; nothing is cleared per call.
 */
#ifndef RAVEL_CK_H
#define RAVEL_CK_H

#include "ir/ir.h"

#define CK_NIL 0xffffffffu
#define CK_MAX_PROVENANCE 64u /* errors per function that get a provenance */
#define CK_MAX_EXPLAIN 8u     /* blocks per function that get an explain dump */
#define CK_OPT_EXACT 0x80000000u /* internal option (tests): the exact walk only, no fast verdict walk */
#define CK_OPT_NEED_SCAN 0x20000000u /* internal option (tests): compute_need by its own scan, not from the guard's notes */
#define CK_OPT_NO_REPLAY 0x10000000u /* internal option (tests): a stable loop's final visit iterates its inner loops again */
#define CK_OPT_WALKS_ANY_CFG 0x04000000u /* internal option (tests): the walks decide irreducible CFGs too (known wrong there) */
#define CK_OPT_NO_VN 0x08000000u /* internal option (tests): no value-numbering verdict (ck_vn.c); the fast walk decides */
#define CK_OPT_NO_FAST_GUARD 0x40000000u /* [rules/s2] internal option (tests): guard_inst on every instruction, rules on all */
/* What the allocated function's guard notes of a vreg for compute_need. */
typedef struct ck_gn {
    uint32_t tag; /* guard stamp << 3 | GN_* */
    uint32_t b;   /* block of its (last) definition */
} ck_gn;
#define GN_DEF 1u   /* gn tag: has a definition */
#define GN_MULTI 2u /* gn tag: defined again (or the same instruction looked at twice: more chains, never fewer) */
#define GN_CHAIN 4u /* gn tag: a parameter, a branch argument or a copy source */
#define CK_V_SETBIT 0x80000000u
#define CK_V_UNKNOWN 0xfffffffdu /* dense state only: never stored */
#define CK_V_EMPTY 0xfffffffeu
#define CK_V_CONFLICT 0xffffffffu

enum { CK_UNKNOWN = 0, CK_KNOWN = 1, CK_CONFLICTED = 2 };

typedef uint32_t ck_val;
typedef RV_VEC(uint32_t) ck_u32vec;

typedef struct ck_ent {
    uint32_t li;
    ck_val val;
} ck_ent;
typedef RV_VEC(ck_ent) ck_entvec;

/* A vreg's holder chain: head node, and the location of the head node when
 * known (CK_NIL otherwise; a hint that saves reading the node). */
typedef struct ck_vh {
    uint32_t head, last;
} ck_vh;

/* A node of vreg v's holder chain: location li, next node (the head before
 * it was pushed). A tombstone (li == CK_NIL) records a reset of v's chain
 * and is never linked. Rolling back a node restores vh[v].head = next, so
 * chain heads need no log entries. */
typedef struct ck_hnode {
    uint32_t li, next, v;
} ck_hnode;

/* Interned immutable sets of >= 2 vregs (hash-consed). */
typedef struct ck_setrec {
    uint32_t start, len, slot;
} ck_setrec;

typedef struct ck_sets {
    RV_VEC(uint32_t) pool;
    RV_VEC(ck_setrec) recs;
    uint32_t *tab; /* open addressing: set id + 1, 0 = free */
    uint32_t cap;
    uint32_t limit; /* members in all: CK_MAX_SET_POOL, or ck->set_limit (tests) */
    bool overflow;  /* a set was not made: the pool would pass the limit (see ck_set_intern) */
} ck_sets;
/* Members the interned sets of one walk may hold in all (256 MiB; every
 * real function measured stays far below: ~45 bytes of scratch per
 * instruction in all). Sets grow one member per aliasing copy, so a chain
 * of n copies of one value in one location takes n^2/2: past ~11,500 such
 * copies the checker stops making sets (ck_set_intern) instead of running
 * out of memory. */
#define CK_MAX_SET_POOL (1u << 26)

/* A sparse list in some pool: [start, start+len). */
typedef struct ck_list {
    uint32_t start, len;
} ck_list;

/* Undo log entry: a location index and its old value. */
typedef struct ck_logent {
    uint32_t key, old;
} ck_logent;

typedef struct ck_mark {
    uint32_t log, nodes;
} ck_mark;

/* The delta an edge carries relative to its target's idom's exit state.
 * A visit that records it again reuses its room (cap entries at start)
 * when it fits, so the pool grows with the largest deltas, not with the
 * number of visits (deep loop nests visit blocks many times). */
typedef struct ck_edelta {
    uint32_t start, len, cap; /* in dpool */
    bool recorded;
} ck_edelta;

/* A block's entry patch of its last visit in ppool, with its room. */
typedef struct ck_span {
    uint32_t start, len, cap;
} ck_span;

/* A node of the dominator-tree walk. */
typedef struct ck_frame {
    uint32_t block, child, rounds;
    uint32_t restrict_to; /* innermost loop being iterated (children outside it wait), or CK_NIL */
    uint32_t replay_of;   /* the loop whose final visit this block is part of (its blocks are at their fixpoint), or CK_NIL */
    bool iterating;       /* a header iterating its loop (phase 1), errors not recorded (fast: recorded, dropped per round) */
    bool outside_only;    /* fast: the loop's last round was at the fixpoint; only children outside it remain */
    uint32_t errs0;       /* fast: errors before the header's current round */
    uint32_t visits0;     /* fast: ck->visits.len when the header's current round began */
    ravel_report *saved_rep;
    ck_mark mark_entry, mark_exit;
} ck_frame;

/* One error found. Strings are malloc'd and owned by the report. */
typedef struct ck_err {
    ravel_check_error pub;
    uint32_t block_id, inst_id;
    uint32_t order;  /* operand order within the instruction, for sorting */
    uint32_t li;     /* location index read (value errors), CK_NIL otherwise */
    uint32_t expect; /* expected vreg id or CK_NIL */
    uint32_t seq;    /* insertion order (stable sort) */
    bool value;      /* a value error: provenance is computed */
    bool late;       /* the read happens after the instruction's own writes */
} ck_err;

struct ravel_report {
    RV_VEC(ck_err) errs;
    RV_VEC(char *) bad_input; /* RAVEL_EINVAL diagnostics */
    int status;
    size_t omitted;           /* errors found beyond the checker's cap (not in errs) */
    RV_VEC(char *) texts;     /* instruction texts, each made once, shared by its errors */
    uint32_t *text_of;        /* per instruction of text_func: 1 + index into texts, 0 if none */
    const void *text_func;
};

/* Growable text buffer. */
typedef struct ck_buf {
    char *s;
    size_t len, cap;
} ck_buf;
void ck_bprintf(ck_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *ck_bdetach(ck_buf *b); /* returns the malloc'd string ("" if empty), resets b */

struct ravel_checker {
    unsigned opts; /* RAVEL_CHECK_* (never RAVEL_CHECK_VERIFY: see verify) */
    bool verify;   /* verification requested (ravel_check_if_enabled); no option call clears it */
    size_t max_errors; /* errors kept in a report (ravel_checker_set_max_errors); 0: all */
    bool stop_at_error; /* fast walk: stop at the first value error (verdict only) */
    bool stopped;       /* the fast walk stopped so */
    bool gbroken;  /* the last ck_guard failed on broken structure (ravel_validate unsafe on it) */
    /* per function (set by ravel_check) */
    const ravel_func *f;
    uint32_t nregs, nlocs, nblocks, nvregs;
    /* cfg (ck_cfg.c) */
    RV_VEC(uint32_t) pred_start, pred, rpo, rpo_index, dfs_stack, dfs_next;
    RV_VEC(uint32_t) pedge; /* pedge[p]: the edge (index into f->succs) of in-edge p = pred[p] -> its block */
    RV_VEC(uint32_t) idom, dchild_start, dchild;
    RV_VEC(uint32_t) dpre, dpost;           /* dominator-tree numbering */
    RV_VEC(uint32_t) loop_of, loop_parent;  /* natural loops (innermost header; enclosing header) */
    RV_VEC(uint32_t) lpre, lpost;           /* loop-tree numbering of the headers (ck_in_loop in O(1)) */
    RV_VEC(uint32_t) lchild_start, lchild;  /* the loop tree's children lists (scratch of ck_cfg.c) */
    RV_VEC(uint8_t) is_header;
    RV_VEC(uint8_t) retreat; /* block has an irreducible retreating in-edge */
    bool irreducible;        /* some block has one: the walks' premises fail, the reference decides */
    RV_VEC(uint8_t) deep_exit; /* header: a block outside its loop has its idom inside, not the header
                                  (or a child of the header in the loop has a retreating in-edge) */
    /* the guard (ck_rules.c): per-vreg stamps, grow-only */
    uint16_t *gdef;        /* class key | defined bit (ck_rules.c: 16 bits, a small table for the cache) */
    uint32_t *gpar;        /* parameter of the block being guarded */
    uint32_t gvcap, gstamp;
    RV_VEC(uint32_t) gpend, gnpred; /* reads not yet seen defined; in-edges per block */
    RV_VEC(ck_list) bsucc;  /* per block: its successors in f->succs (the allocated function's guard, once passed) */
    /* [rules/s2] the rules' work list, filled by the guard of the allocated function */
    RV_VEC(uint32_t) rtodo; /* (block, inst) pairs: every instruction a rule may fire on */
    bool grecord;           /* set by ravel_check around that guard only (not the original's) */
    /* the same guard's facts for compute_need (ck_state.c); valid while gnf_ok */
    struct ck_gn *gn;     /* per vreg */
    uint32_t gnstamp;     /* gn[v].tag >> 3 == gnstamp: gn[v] is of this guard */
    bool gnf_ok;
    /* and its notes of the slots each block writes, for M(h) (ck_vn.c:
     * build_m); valid while gwf_ok. A block is *noted* (gw[b].len !=
     * CK_NIL) when the guard's fast path ran every one of its
     * instructions: then every slot they write is listed in
     * gwslot[gw[b].start ..], it has no safepoint, and each vreg they
     * define has its ck_gn note of that def (so a vreg defined once has
     * the block in gn[v].b). */
    RV_VEC(ck_list) gw;      /* per block: its slot locations in gwslot (len CK_NIL: not noted) */
    RV_VEC(uint32_t) gwslot; /* (repeats possible) */
    RV_VEC(uint32_t) gwdef;  /* the block's defs in slots (scratch; at most cap, else not noted) */
    bool gwf_ok, gwover;
    const void *gnfast;      /* an instruction whose first gnfast_k defs the fast path noted before giving up on it */
    uint32_t gnfast_k;
    /* the state (ck_state.c), grow-only arrays */
    uint32_t loc_cap;
    uint32_t *lval;               /* value of each location */
    uint32_t *lacc;               /* scratch value per location */
    uint32_t *lst1, *lst2, *lst3; /* stamp marks */
    uint32_t stamp;
    uint32_t vreg_cap;
    ck_vh *vh;                    /* holder chains (index nvregs: .ref holders) */
    uint64_t *vref;               /* bitmap: vreg is a .ref */
    uint64_t *vneed;              /* bitmap (in vref's allocation): vreg's holders are chained (ck_state.c) */
    size_t vwords;                /* words per bitmap in vref's allocation (refs, vneed, scratch) */
    bool has_refs;                /* the function has .ref vregs */
    uint32_t *vst, *vst2;         /* stamp marks */
    uint32_t *vaux;               /* per-vreg data valid where vst2 == stamp */
    RV_VEC(ck_hnode) hnodes;
    RV_VEC(ck_logent) log;
    RV_VEC(uint32_t) tmp_locs;
    /* the walk (ck_flow.c) */
    struct ck_evmemo *evmemo;     /* edge values computed this walk, by (edge, value): see edge_val */
    struct ck_evmemo *mtmemo;     /* meets computed this walk, by value pair (in evmemo's allocation) */
    uint32_t evgen;               /* evmemo entries of other generations are empty (new per fresh walk) */
    ck_sets sets;
    ck_entvec dpool, patch, ppool;
    RV_VEC(ck_edelta) edelta;     /* per edge (index into f->succs) */
    RV_VEC(ck_span) bpatch;       /* per block: the entry patch of its last visit */
    RV_VEC(ck_frame) frames;
    RV_VEC(uint32_t) frame_of, berr;
    ck_u32vec setbuf, setbuf2, srcset;
    bool diverged;
    /* fast mode (ck_flow_verdict): value errors only counted into frep (no
     * strings), and a loop whose last round was at its fixpoint is not
     * visited again; any error sends the caller to the exact walk */
    bool fast;
    uint32_t fast_nerr; /* value errors the last fast walk counted */
    struct ravel_report *frep;
    RV_VEC(uint32_t) visits; /* fast: blocks entered, in order (loop shortcut, ck_flow.c); emptied per walk */
    bool locs_ok;            /* fast walk, no rule error: every location named exists (ck_lix) */
    uint64_t nvisits;        /* block visits of the last ravel_check (both walks): tests bound the work */
    uint32_t set_limit;      /* tests: the interned sets' limit instead of CK_MAX_SET_POOL (0: that) */
    RV_VEC(uint32_t) bscr;   /* fast: per block a stamp and an index (loop shortcut); emptied per walk */
    struct ck_lpscratch *lps; /* fast: the loop shortcut's vectors (ck_loop.c); kept between checks */
    struct ck_vn *vn;         /* the value-numbering verdict's scratch (ck_vn.c); kept between checks */
    bool vn_proven;           /* the last ravel_check was decided by the value-numbering verdict (tests) */
    struct ck_ref *ref;       /* the reference fixpoint's own context (ck_ref.c); kept between checks */
    bool ref_decided;         /* the last ravel_check was decided and reported by the reference */
    uint32_t bstamp;
    /* errors of the current call */
    ravel_report *rep; /* NULL when not collecting */
    ck_buf explain;    /* explain dump target */
    size_t explain_base; /* length of its header */
    bool dumping;
    uint32_t dump_block;
};

/* Where an error happens: block, instruction, operand role and index. */
typedef struct ck_site {
    uint32_t block, inst;
    const char *role; /* "def", "use", "stackmap", "edit", "inst", "block" */
    int32_t k;
    const rv_operand *op;
    uint32_t order;   /* sort key within the instruction: defs, uses, stackmap */
} ck_site;

/* Null-safe accessors: the IR's arrays are NULL while empty, and forming
 * &NULL[0] is undefined behaviour (UBSan flags it). */
static inline const rv_operand *ck_ops(const ravel_func *f, const rv_inst *i)
{
    return (i->ndefs || i->nuses) ? &f->ops.data[i->first_op] : NULL;
}
static inline const rv_operand *ck_defs(const ravel_func *f, const rv_inst *i) { return i->ndefs ? &f->ops.data[i->first_op] : NULL; }
static inline const rv_operand *ck_uses(const ravel_func *f, const rv_inst *i)
{
    return i->nuses ? &f->ops.data[i->first_op + i->ndefs] : NULL;
}
static inline const uint32_t *ck_params(const ravel_func *f, const rv_block *b) { return b->nparams ? &f->u32.data[b->first_param] : NULL; }
static inline const uint32_t *ck_args(const ravel_func *f, const rv_succ *s) { return s->nargs ? &f->u32.data[s->first_arg] : NULL; }

/* The common op: no early def, no late use, not a copy, no safepoint or
 * stackmap; its transfer reduces to: check the uses, make the clobbered
 * registers unknown, write the defs (ck_xfer.c, ck_loop.c). (A clobbered
 * register the op defines is written by its late def right after: the
 * same state as FORMAT's "except those the instruction defines".) */
static inline bool ck_op_plain(const ravel_func *f, const rv_inst *in)
{
    if ((in->flags & (RV_IF_SAFEPOINT | RV_IF_STACKMAP)) || in->op == RAVEL_OP_COPY) return false;
    const rv_operand *o = ck_ops(f, in);
    for (uint32_t k = 0; k < in->ndefs; k++)
        if (!rv_op_is_late(&o[k])) return false;
    for (uint32_t k = in->ndefs; k < (uint32_t)in->ndefs + in->nuses; k++)
        if (rv_op_is_late(&o[k])) return false;
    return true;
}

/* Block b's successors in f->succs: from ck->bsucc for the allocated
 * function's guard (ck->grecord), else from its terminator. */
static inline ck_list ck_succ_list(const ravel_checker *ck, const ravel_func *f, uint32_t b)
{
    if (ck->grecord) return ck->bsucc.data[b];
    const rv_inst *t = rv_block_term(f, &f->blocks.data[b]);
    return (ck_list){rv_inst_nsuccs(t) ? t->u.succ.first : 0, rv_inst_nsuccs(t)};
}

/* in has a def in location reg (step 3's clobbers spare those). */
static inline bool ck_defines_loc(const ravel_func *f, const rv_inst *in, ravel_loc reg)
{
    const rv_operand *d = ck_defs(f, in);
    for (uint32_t k = 0; k < in->ndefs; k++)
        if (d[k].loc == reg) return true;
    return false;
}

/* Prefetches the record n records after p in an array being streamed
 * (an address computed as an integer: p + n may lie past the array's end,
 * where forming the pointer itself would be undefined). */
#define CK_PREFETCH_AHEAD(p, n) __builtin_prefetch((const void *)((uintptr_t)(p) + (n) * sizeof *(p)))

/* ck_sets (ck_sets.c) */
void ck_sets_reset(ck_sets *s);
void ck_sets_free(ck_sets *s);
ck_val ck_set_intern(ck_sets *s, const uint32_t *sorted, uint32_t n);
/* Members of a value (not unknown/conflict): writes into *buf (reserving), returns count. */
uint32_t ck_val_members(const ck_sets *s, ck_val v, const uint32_t **out, uint32_t *one);
ck_val ck_val_meet(ck_sets *s, ck_val a, ck_val b, ck_u32vec *tmp);
void ck_sort_u32(uint32_t *a, uint32_t n);

/* ck_cfg.c */
void ck_cfg_build(ravel_checker *ck);
static inline bool ck_reachable(const ravel_checker *ck, uint32_t b) { return ck->rpo_index.data[b] != CK_NIL; }
/* True if block b is in the natural loop headed by h: h is b's innermost
 * header or one enclosing it (an ancestor in the loop tree, by its
 * pre/post numbers: O(1) however deep the nest). */
static inline bool ck_in_loop(const ravel_checker *ck, uint32_t b, uint32_t h)
{
    uint32_t x = ck->loop_of.data[b];
    if (x == CK_NIL || !ck->is_header.data[h]) return false;
    return ck->lpre.data[h] <= ck->lpre.data[x] && ck->lpost.data[x] <= ck->lpost.data[h];
}

/* ck_state.c: the current state with its undo log */
void ck_state_init(ravel_checker *ck);
uint32_t ck_next_stamp(ravel_checker *ck);
static inline uint32_t ck_li(const ravel_checker *ck, ravel_loc l)
{
    if (l & RAVEL_SLOT_BIT) {
        if (l == RAVEL_LOC_NONE) return CK_NIL;
        uint32_t s = l & ~RAVEL_SLOT_BIT;
        return s < ck->nlocs - ck->nregs ? ck->nregs + s : CK_NIL;
    }
    return l < ck->nregs ? l : CK_NIL;
}
/* ck_li without range checks while locs_ok (the fast walk of a function
 * whose rules found nothing: every location it names exists); a slot's
 * var is nregs + its number, taken from the top bit without a branch. */
_Static_assert(RAVEL_SLOT_BIT == 1u << 31, "ck_lix, vlix: the slot bit is the top bit");
static inline uint32_t ck_lix(const ravel_checker *ck, ravel_loc l)
{
    if (ck->locs_ok) return (l & ~RAVEL_SLOT_BIT) + (ck->nregs & (0u - (l >> 31))); /* (no branch) */
    return ck_li(ck, l);
}
ravel_loc ck_loc_of(const ravel_checker *ck, uint32_t li);
static inline ck_val ck_get(const ravel_checker *ck, uint32_t li) { return ck->lval[li]; }
static inline bool ck_is_ref(const ravel_checker *ck, uint32_t v) { return (ck->vref[v >> 6] >> (v & 63)) & 1; }
/* (The pseudo-vreg nvregs, holders of .ref vregs, is always chained.) */
static inline bool ck_needs_chain(const ravel_checker *ck, uint32_t v) { return (ck->vneed[v >> 6] >> (v & 63)) & 1; }
bool ck_set_has(const ck_sets *s, ck_val val, uint32_t v); /* val an interned set */
static inline bool ck_val_has(const ck_sets *s, ck_val val, uint32_t v)
{
    if (val == v) return true;
    if (!(val & CK_V_SETBIT) || val >= CK_V_UNKNOWN) return false;
    return ck_set_has(s, val, v);
}
/* val holds a .ref vreg (a singleton is the vreg itself: no set lookup). */
static inline bool ck_holds_ref(const ravel_checker *ck, ck_val val)
{
    if (val < CK_V_SETBIT) return ck_is_ref(ck, val);
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ck_val_members(&ck->sets, val, &m, &one);
    for (uint32_t i = 0; i < n; i++)
        if (ck_is_ref(ck, m[i])) return true;
    return false;
}
static inline bool ck_loc_has(const ravel_checker *ck, uint32_t li, uint32_t v) { return ck_val_has(&ck->sets, ck->lval[li], v); }
ck_mark ck_mark_now(const ravel_checker *ck);
void ck_rollback(ravel_checker *ck, ck_mark m);
void ck_log_grow(ravel_checker *ck);                             /* cold */
void ck_push_holders(ravel_checker *ck, uint32_t li, ck_val val); /* li now holds val's members */
/* lval[li] := val, logged; chains li to the members that need it. The hot
 * path of the whole analysis: inline, calls only on its rare branches. */
static inline void ck_set_changed(ravel_checker *ck, uint32_t li, ck_val val)
{
    if (__builtin_expect(ck->log.len == ck->log.cap, 0)) ck_log_grow(ck);
    ck->log.data[ck->log.len++] = (ck_logent){li, ck->lval[li]};
    ck->lval[li] = val;
    if (val < CK_V_SETBIT ? ck_needs_chain(ck, val) || (ck->has_refs && ck_is_ref(ck, val)) : val < CK_V_UNKNOWN)
        ck_push_holders(ck, li, val);
}
static inline void ck_set(ravel_checker *ck, uint32_t li, ck_val val)
{
    if (ck->lval[li] != val) ck_set_changed(ck, li, val);
}
void ck_kill_vreg(ravel_checker *ck, uint32_t v);
void ck_write_def(ravel_checker *ck, uint32_t v, uint32_t li); /* li may be CK_NIL */
static inline void ck_copy_loc(ravel_checker *ck, uint32_t dst, uint32_t src)
{
    if (dst != src) ck_set(ck, dst, ck->lval[src]);
}
void ck_alias(ravel_checker *ck, uint32_t d, uint32_t u, ck_val pair); /* pair: {u, d} or CK_NIL */
void ck_gc_effect(ravel_checker *ck, uint32_t listed, uint32_t rooted);
void ck_keep_refs(ravel_checker *ck, uint32_t li); /* gc moving: a listed slot loses its non-.ref vregs */

/* ck_xfer.c */
void ck_xfer_block(ravel_checker *ck, uint32_t b);

/* ck_loop.c: the fast walk's loop shortcut (see there); its scratch is
 * emptied after each walk (ck_loop_reset, keeping its room for the next
 * check, as the context's other vectors do) and freed with the context
 * (ck_loop_free). */
bool ck_loop_shortcut(ravel_checker *ck, uint32_t h, uint32_t visits0);
void ck_loop_reset(ravel_checker *ck);
void ck_loop_free(ravel_checker *ck);

/* ck_vn.c: the value-numbering verdict. True: the fixpoint records no
 * value error (proven in one pass); false: not proven (the walks decide). */
bool ck_vn_verdict(ravel_checker *ck);
void ck_vn_free(ravel_checker *ck);
size_t ck_vn_memory(const ravel_checker *ck);

/* ck_ref.c: the reference fixpoint (docs/format.md section 6 as written:
 * a worklist over the reachable blocks in reverse post-order, any CFG). It
 * uses only ck->f, nregs, nlocs, nblocks, nvregs, set_limit and ck->rep,
 * and records the value errors there (with provenance). verdict_only: it
 * may stop at the first (certain) value error, setting the status. True if
 * no value error. *overflow: the set limit was passed (errors undecided);
 * *limit: that limit. Sets ck->diverged past its safety cap. */
typedef struct ck_ref ck_ref;
bool ck_ref_check(ravel_checker *ck, bool verdict_only, bool *overflow, uint32_t *limit);
void ck_ref_explain(ravel_checker *ck, uint32_t blk); /* after ck_ref_check: dumps blk into ck->explain */
void ck_ref_free(ravel_checker *ck);
/* Tests: where v is before instruction inst, at the last reference check's fixpoint (of f). */
uint32_t ck_ref_holders(ravel_checker *ck, const ravel_func *f, uint32_t inst, uint32_t v, ravel_loc *out, uint32_t max);
size_t ck_ref_memory(const ravel_checker *ck);

/* ck_flow.c */
void ck_flow(ravel_checker *ck, bool fresh);
/* The walk in fast mode: true if it found no value error (and converged),
 * i.e. ck_flow(ck, true) would record none. Leaves the edge deltas of the
 * fast walk (call ck_flow(ck, true) for a report). */
bool ck_flow_verdict(ravel_checker *ck);
char *ck_provenance(ravel_checker *ck, uint32_t x, uint32_t ii, uint32_t li, uint32_t v, bool late, bool held);

/* check.c: bytes of scratch memory the context holds (benchmarks). */
size_t ck_memory(const ravel_checker *ck);

/* ck_rules.c */
/* Structural sanity (anything that would make the analysis unsafe); on
 * failure appends diagnostics to rep->bad_input and returns false. On
 * success *suspect tells whether ravel_validate might reject f (EINVAL). */
bool ck_guard(ravel_checker *ck, const ravel_func *f, ravel_report *rep, uint32_t *nslots, bool *suspect);
void ck_rules(ravel_checker *ck);
void ck_match_orig(ravel_checker *ck, const ravel_func *orig);

/* ck_report.c */
ravel_report *ck_report_new(void);
void ck_truncate_bad_input(ravel_report *rep, uint32_t n); /* keeps the first n diagnostics */
void ck_err_value(ravel_checker *ck, const ck_site *s, const char *kind, uint32_t li, uint32_t expect);
/* A value error of li holding `held` (a value of sets), without provenance. */
ck_err *ck_err_value_rec(ravel_checker *ck, const ck_site *s, const char *kind, uint32_t li, uint32_t expect,
                         const ck_sets *sets, ck_val held);
/* What an analysis tells the provenance of an error at block x: which
 * blocks lie on the path it explains (x and its dominators), how many
 * in-edges take part in a block's meet (*from: the source of the last),
 * and what each of them brings in li (one line per edge). */
typedef struct ck_prov_ops {
    void *ctx;
    bool (*on_path)(void *ctx, uint32_t b);
    uint32_t (*nin)(void *ctx, uint32_t b, uint32_t *from);
    void (*join)(void *ctx, ck_buf *out, uint32_t b, uint32_t li);
} ck_prov_ops;
char *ck_provenance_text(const ravel_checker *ck, const ck_prov_ops *ops, uint32_t x, uint32_t ii, uint32_t li, uint32_t v,
                         bool late, bool held);
void ck_val_text_in(ck_buf *b, const ravel_func *f, const ck_sets *sets, ck_val v);
void ck_dump_state_of(ravel_checker *ck, const ck_sets *sets, const ck_val *vals, uint32_t b, uint32_t ii);
void ck_err_rule(ravel_checker *ck, const ck_site *s, const char *kind, ravel_loc loc, uint32_t expect,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void ck_bad_input(ravel_report *rep, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ck_truncate_errors(ravel_report *rep, uint32_t n);
void ck_drop_value_errors(ravel_report *rep); /* keeps the rules' errors */
void ck_dump_state(ravel_checker *ck, uint32_t b, uint32_t ii);
void ck_val_text(ck_buf *b, const ravel_checker *ck, ck_val v);
void ck_finish_report(ravel_checker *ck); /* sort, dedupe, explain */
const char *ck_vname(const ravel_func *f, uint32_t v, char *buf); /* "v3" */
void ck_inst_text(ck_buf *b, const ravel_func *f, const rv_inst *in);

#endif
