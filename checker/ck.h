/*
 * ck.h - internal map of the symbolic checker (docs/format.md section 6).
 *
 * Pipeline of one ravel_check call (check.c, the one driver), each phase
 * with its own context in struct ravel_checker (see there):
 *   guard (ck_guard.c,    structural sanity; bad input -> RAVEL_EINVAL;
 *     ck_guard_inst.c)    writes ck_facts for the phases after it
 *   ext (ck_ext.c)        what f uses of docs/format.md section 14 (alias,
 *                         undef, remat) and the names of tokens, U, C_k
 *   cfg (ck_cfg.c)        ir/cfg.c's rv_cfg plus in-edge indexes,
 *                         dominator/loop children, retreat flags
 *   rules (ck_rules.c)    per-operand constraint/structure checks
 *   --orig (ck_orig.c)    the match against the unallocated function
 *   value numbering       proves a correct allocation in one pass, or
 *     (ck_vn.c)           answers "not proven"
 *   reference (ck_ref.c)  the fixpoint of docs/format.md section 6 as
 *                         written (any CFG): decides what value numbering
 *                         did not prove and records its value errors
 *   report (ck_report.c)  errors, provenance, explain dumps, text and JSON
 *                         (ck_out; explain is run by the driver)
 *
 * Terms (docs/architecture.md, Glossary, defines them; here their
 * encoding): a *location index* (li) is a dense number for a location:
 * registers are 0..nregs-1, slot sN is nregs+N (ir/ir.h: rv_loc_index,
 * rv_loc_at; RAVEL_NONE, which is CK_NIL, for a location the function
 * does not have). A *value* (ck_val) is the
 * lattice element a location holds in the reference's states:
 *   CK_V_UNKNOWN               unknown
 *   v (< CK_V_SETBIT)          the singleton {v} (v a vreg id)
 *   CK_V_SETBIT | id           an interned set of >= 2 vregs (ck_sets.c)
 *   CK_V_EMPTY                 a set from which every vreg was removed
 *   CK_V_CONFLICT              paths disagree (empty intersection)
 *
 * Invariants between calls (scratch reuse): stamps only grow, so stale marks
 * never match; nothing is cleared per call.
 */
#ifndef RAVEL_CK_H
#define RAVEL_CK_H

#include "ck_sem.h"
#include "ir/ir.h"

#define CK_NIL 0xffffffffu
#define CK_MAX_PROVENANCE 64u /* errors per function that get a provenance */
#define CK_MAX_EXPLAIN 8u     /* blocks per function that get an explain dump */
#define CK_OPT_NEED_SCAN 0x20000000u /* internal option (tests): compute_need and ck_ext_scan by their own scans, not from the guard's notes */
#define CK_OPT_NO_VN 0x08000000u /* internal option (tests): no value-numbering verdict (ck_vn.c); the reference decides */
#define CK_OPT_VN_LAZY 0x04000000u /* internal option (tests): value numbering's lazy M(h) from the first walk (ck_vn_knobs.c: vn_build_m) */
#define CK_OPT_VN_NO_P 0x10000000u /* internal option (tests): irreducible targets get no P(t) (ck_vn_knobs.c: vn_build_irr), so that the latches' premise check decides */
#define CK_OPT_NO_FAST_GUARD 0x40000000u /* [rules/s2] internal option (tests): guard_inst on every instruction, rules on all */
/* What the allocated function's guard notes of a vreg for compute_need. */
typedef struct ck_gn {
    uint32_t tag; /* guard stamp << 3 | GN_* */
} ck_gn;
#define GN_DEF 1u   /* gn tag: has a definition */
#define GN_MULTI 2u /* gn tag: defined again (or the same instruction looked at twice: more chains, never fewer) */
#define GN_CHAIN 4u /* gn tag: a parameter, a branch argument or a copy source */
#define CK_V_SETBIT 0x80000000u
#define CK_V_UNKNOWN 0xfffffffdu
#define CK_V_EMPTY 0xfffffffeu
#define CK_V_CONFLICT 0xffffffffu

typedef uint32_t ck_val;
typedef RV_VEC(uint32_t) ck_u32vec;

typedef struct ck_ent {
    uint32_t li;
    ck_val val;
} ck_ent;
typedef RV_VEC(ck_ent) ck_entvec;

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
/* Members the interned sets of one check may hold in all (256 MiB; every
 * real function measured stays far below: ~45 bytes of scratch per
 * instruction in all). Sets grow one member per aliasing copy, so a chain
 * of n copies of one value in one location takes n^2/2: past ~11,500 such
 * copies the checker stops making sets (ck_set_intern) instead of running
 * out of memory. */
#define CK_MAX_SET_POOL (1u << 26)
/* Entries (location, value) the reference's per-block entry and exit
 * states may hold in all (2 x 256 MiB). Known locations per block times
 * blocks: real functions stay far below (a 10^6-instruction function:
 * about 10^6), but a nest of d loops each keeping a value of its own in
 * its own slot holds about d^2/2 (12 GB at d = 20,000): past the limit the
 * reference stops, and the check reports "beyond the checker's limit"
 * (bad input) instead of running out of memory. Value numbering proves
 * such nests when they are correct, without states. */
#define CK_MAX_STATE_POOL (1u << 25)

/* A sparse list in some pool: [start, start+len). */
typedef struct ck_list {
    uint32_t start, len;
} ck_list;

/* A block's entry patch of its last visit in ppool, with its room. */
typedef struct ck_span {
    uint32_t start, len, cap;
} ck_span;

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
    char *here;      /* value errors: "vK is in L here" (other locations holding the expected
                        vreg at the read), prepended to the provenance; or NULL */
} ck_err;

struct ravel_report {
    RV_VEC(ck_err) errs;
    RV_VEC(char *) bad_input; /* RAVEL_EINVAL diagnostics */
    int status;
    size_t omitted;           /* errors found beyond the checker's cap (not in errs) */
    RV_VEC(char *) texts;     /* instruction texts, each made once, shared by its errors */
    RV_VEC(char *) srcs;      /* srcs[k]: the source line of the instruction of texts[k], or NULL */
    uint32_t *text_of;        /* per instruction of text_func: 1 + index into texts, 0 if none */
    const void *text_func;
};

/* The guard's working state (ck_guard.c): per-vreg stamps, grow-only. */
typedef struct ck_guard_ctx {
    uint16_t *gdef;        /* class key | defined bit (ck_guard.c: 16 bits, a small table for the cache) */
    uint32_t *gpar;        /* parameter of the block being guarded */
    uint32_t gvcap, gstamp;
    ck_u32vec gpend, gnpred; /* reads not yet seen defined; in-edges per block */
    const void *gnfast;      /* an instruction whose first gnfast_k defs the fast path noted before giving up on it */
    uint32_t gnfast_k;
    bool grecord;  /* set by ravel_check around the allocated function's guard only (not the original's): write ck_facts */
    bool gbroken;  /* the last ck_guard failed on broken structure (ravel_validate unsafe on it) */
} ck_guard_ctx;

/* The facts the allocated function's guard writes (ck->guard.grecord) for
 * the phases after it; each valid only after a passed guard. */
typedef struct ck_facts {
    RV_VEC(ck_list) bsucc; /* per block: its successors in f->succs (rules and ck_cfg read them, not the terminators) */
    ck_u32vec rtodo;       /* [rules/s2] (block, inst) pairs: every instruction a rule may fire on */
    /* for the value-numbering verdict (ck_vn.c: compute_need); valid while gnf_ok */
    struct ck_gn *gn;      /* per vreg (gncap of them) */
    uint32_t gncap;
    uint32_t gnstamp;      /* gn[v].tag >> 3 == gnstamp: gn[v] is of this guard */
    bool gnf_ok;
    /* what the function uses of section 14, for ck_ext_scan: an undef op,
     * a remat (ck_gd_inst_other notes them: every such instruction the
     * guard looks at reaches it); valid while gxf_ok: the guard passed and
     * the blocks' instruction ranges, in layout order, are the function's
     * instructions, each once (so the guard looked at all of them) */
    bool gundef, gremat, gxf_ok;
} ck_facts;

/* The CFG phase's context (ck_cfg.c): rv_cfg (ir/cfg.c) and what only the
 * checker reads on top of it; kept between checks. */
typedef struct ck_cfg {
    rv_cfg g;                       /* preds, rpo, idom, dominator tree, loop_header, loop_parent */
    ck_u32vec pedge;                /* pedge[p]: the edge (index into f->succs) of in-edge p = g.pred[p] -> its block */
    ck_u32vec lchild_start, lchild; /* the loop tree's children lists */
    RV_VEC(uint8_t) retreat;        /* block has an irreducible retreating in-edge */
    ck_u32vec next;                 /* scratch: per-block cursors */
} ck_cfg;

/* Growable text buffer. */
typedef struct ck_buf {
    char *s;
    size_t len, cap;
} ck_buf;
void ck_bprintf(ck_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *ck_bdetach(ck_buf *b); /* returns the malloc'd string ("" if empty), resets b */

/* The report phase's context (ck_report.c): where the current call's
 * errors go, and the explain dumps' buffers (kept between checks). */
typedef struct ck_out {
    ravel_report *rep;   /* NULL when not collecting */
    ck_buf explain;      /* explain dump target */
    size_t explain_base; /* length of its header */
    ck_u32vec tmp_locs;  /* explain dumps: the locations a block names */
    ravel_report quiet;  /* the report of a check whose caller wants only the status (report NULL):
                            emptied after each check, so that such a check allocates nothing of it */
} ck_out;
void ck_out_free(ck_out *o);
ravel_report *ck_report_quiet(ck_out *o); /* o->quiet, empty, status RAVEL_OK */
void ck_report_clear(ravel_report *r);    /* frees what r holds (not r): r empty */
size_t ck_out_memory(const ck_out *o);

/* What a function uses of docs/format.md section 14 (check.c: ck_ext_scan),
 * and how the reference names what it adds to its states: a *token* =K
 * (section 14.3) is the set member tok0 + k (k: K's index in keys, the
 * distinct remat keys of the function, ascending; tok0 = nvregs + 1, past
 * every vreg and the reference's .ref pseudo-vreg); the set U of undefined
 * vregs is held by the pseudo-location uli = nlocs, and C_k (the vregs
 * that are the constant keys[k]) by the pseudo-location uli + 1 + k. In a
 * function that uses none of section 14 all of this is empty: ntok = 0 and
 * U is never written. */
typedef struct ck_ext {
    bool alias;         /* the machine has alias lines */
    bool undef, remat;  /* the function has an undef op, a remat edit */
    bool opairs;        /* alias: an operation has two operands that overlap where the rules
                           forbid it (ck_ops_overlap_clean false): the rules visit every instruction */
    uint32_t ntok, tok0, uli;
    RV_VEC(int64_t) keys; /* the remat keys, ascending, once each */
} ck_ext;

/* The checker: options, the function being checked, and one context per
 * phase, each kept between checks and owned by its phase's file (init:
 * zeroed; free and memory: ck_<phase>_free/_memory, called by check.c). */
struct ravel_checker {
    /* options (the API's setters) */
    unsigned opts; /* RAVEL_CHECK_* (never RAVEL_CHECK_VERIFY: see verify) */
    bool verify;   /* verification requested (ravel_check_if_enabled); no option call clears it */
    size_t max_errors; /* errors kept in a report (ravel_checker_set_max_errors); 0: all */
    uint32_t set_limit; /* tests: the interned sets' limit instead of CK_MAX_SET_POOL (0: that) */
    uint32_t state_limit; /* tests: the reference's state limit instead of CK_MAX_STATE_POOL (0: that) */
    /* per function (set by ravel_check) */
    const ravel_func *f;
    uint32_t nregs, nslots, nlocs, nblocks, nvregs; /* nlocs = nregs + nslots */
    ck_ext ext;         /* section 14: what f uses, the tokens' names */
    /* the phases, in the driver's order */
    ck_guard_ctx guard; /* the guard's working state (ck_guard.c) */
    ck_facts facts;     /* what the allocated function's guard found, for the phases after it */
    ck_cfg cfg;         /* the CFG (ck_cfg.c) */
    struct ck_vn *vn;   /* the value-numbering verdict's context (ck_vn.c) */
    struct ck_ref *ref; /* the reference fixpoint's context (ck_ref.c) */
    ck_out out;         /* the report being written (ck_report.c) */
    /* what the last ravel_check did (the driver, tests and benchmarks read it) */
    bool vn_proven;     /* decided by the value-numbering verdict */
    bool ref_decided;   /* decided and reported by the reference */
    bool diverged;      /* the reference passed its safety cap */
    bool states_over;   /* the reference passed CK_MAX_STATE_POOL: nothing decided */
    uint64_t nvisits;   /* block visits (value numbering, reference): tests bound the work */
    uint64_t ref_scans; /* holder-list entries the reference scanned: tests bound the work */
    uint64_t ref_states; /* entries the reference's states took in all, both pools (tests put state_limit at its edge) */
};

/* Where an error happens: block, instruction, operand role and index. */
typedef struct ck_site {
    uint32_t block, inst;
    const char *role; /* "def", "use", "stackmap", "edit", "inst", "block" */
    int32_t k;
    const rv_operand *op;
    uint32_t order;   /* sort key within the instruction: defs, uses, stackmap */
} ck_site;

/* The common op: no early def, no late use, not a copy, no safepoint or
 * stackmap; its transfer reduces to: check the uses, make the clobbered
 * registers unknown, write the defs (ck_vn.c). (A clobbered
 * register the op defines is written by its late def right after: the
 * same state as docs/format.md section 6's "except those the instruction defines".) */
static inline bool ck_op_plain(const ravel_func *f, const rv_inst *in)
{
    if ((in->flags & (RV_IF_SAFEPOINT | RV_IF_STACKMAP)) || in->op == RAVEL_OP_COPY) return false;
    const rv_operand *o = rv_ops_of(f, in);
    for (uint32_t k = 0; k < in->ndefs; k++)
        if (!rv_op_is_late(&o[k])) return false;
    for (uint32_t k = in->ndefs; k < (uint32_t)in->ndefs + in->nuses; k++)
        if (rv_op_is_late(&o[k])) return false;
    return true;
}

/* Block b's successors in f->succs: from ck->facts.bsucc for the allocated
 * function's guard (ck->guard.grecord), else from its terminator. */
static inline ck_list ck_succ_list(const ravel_checker *ck, const ravel_func *f, uint32_t b)
{
    if (ck->guard.grecord) return ck->facts.bsucc.data[b];
    const rv_inst *t = rv_block_term(f, &f->blocks.data[b]);
    return (ck_list){rv_inst_nsuccs(t) ? t->u.succ.first : 0, rv_inst_nsuccs(t)};
}

/* Prefetches the record n records after p in an array being streamed
 * (an address computed as an integer: p + n may lie past the array's end,
 * where forming the pointer itself would be undefined). */
#define CK_PREFETCH_AHEAD(p, n) __builtin_prefetch((const void *)((uintptr_t)(p) + (n) * sizeof *(p)))

/* Section 14 (ck_ext.c). */
void ck_ext_scan(ravel_checker *ck);
void ck_ext_free(ck_ext *x);
static inline bool ck_is_token(const ravel_checker *ck, uint32_t m) { return m >= ck->ext.tok0 && ck->ext.ntok; }
/* The reference's locations and pseudo-locations (U, then each C_k). */
static inline uint32_t ck_nstate(const ravel_checker *ck) { return ck->nlocs + 1 + ck->ext.ntok; }
/* The token of key K, CK_NIL if no remat names K. */
uint32_t ck_token_of(const ravel_checker *ck, int64_t k);
/* The const K op in (one def, one immediate, no use) whose K some remat
 * names: its token; else CK_NIL. */
uint32_t ck_const_token(const ravel_checker *ck, const rv_inst *in);
/* The registers overlapping register location li (none for a slot, or on
 * a machine without alias lines). */
static inline uint32_t ck_overlaps(const ravel_checker *ck, uint32_t li, const uint32_t **list)
{
    if (!ck->ext.alias || li >= ck->nregs) {
        *list = NULL;
        return 0;
    }
    return rv_mach_overlaps(ck->f->mach, li, list);
}
/* Registers a and b overlap (section 14.1; not for one register, nor a slot). */
static inline bool ck_regs_overlap(const ravel_checker *ck, ravel_loc a, ravel_loc b)
{
    return ck->ext.alias && a < ck->nregs && b < ck->nregs && rv_mach_overlap(ck->f->mach, a, b);
}
/* True if no two operands of operation in are registers that overlap
 * (ck_regs_overlap: not one register) where the rules forbid a shared
 * location: two defs, an early def and a use, a def and a late use. Only
 * pairs in such a position are compared, so the usual operation (one late
 * def, early uses) costs a look at its operands' flags. */
static inline bool ck_ops_overlap_clean(const ravel_checker *ck, const rv_inst *in)
{
    const rv_operand *ops = rv_ops_of(ck->f, in);
    uint32_t nd = in->ndefs, n = nd + in->nuses;
    for (uint32_t j = 0; j < nd; j++) {
        bool early = rv_op_is_early(&ops[j]);
        for (uint32_t k = j + 1; k < n; k++) {
            if (k >= nd && !early && !rv_op_is_late(&ops[k])) continue;
            if (ops[j].loc != ops[k].loc && ck_regs_overlap(ck, ops[j].loc, ops[k].loc)) return false;
        }
    }
    return true;
}
/* Copy in (a copy) is in place: its def register is contained in its use's. */
bool ck_copy_in_place(const ravel_checker *ck, const rv_inst *in);
/* "v3" for a vreg, "=K" for a token. */
const char *ck_member_name(const ravel_checker *ck, uint32_t m, char *buf);

/* ck_sets (ck_sets.c) */
void ck_sets_reset(ck_sets *s);
void ck_sets_free(ck_sets *s);
ck_val ck_set_intern(ck_sets *s, const uint32_t *sorted, uint32_t n);
/* The members of a value, sorted (none for unknown, empty, conflicted):
 * *out points at them (at *one for a singleton); returns how many. (Inline:
 * every transfer step reads members.) */
static inline uint32_t ck_val_members(const ck_sets *s, ck_val v, const uint32_t **out, uint32_t *one)
{
    if (v >= CK_V_UNKNOWN) {
        *out = NULL;
        return 0;
    }
    if (!(v & CK_V_SETBIT)) {
        *one = v;
        *out = one;
        return 1;
    }
    const ck_setrec *r = &s->recs.data[v & ~CK_V_SETBIT];
    *out = &s->pool.data[r->start];
    return r->len;
}
void ck_sort_u32(uint32_t *a, uint32_t n);

/* ck_cfg.c: built from the allocated function and its guard's successor lists */
void ck_cfg_init(ck_cfg *c);
void ck_cfg_build(ck_cfg *c, const ravel_func *f, const ck_list *bsucc);
void ck_cfg_free(ck_cfg *c);
size_t ck_cfg_memory(const ck_cfg *c);
static inline bool ck_reachable(const ravel_checker *ck, uint32_t b) { return ck->cfg.g.rpo_index[b] != CK_NIL; }
static inline bool ck_is_header(const ravel_checker *ck, uint32_t b) { return ck->cfg.g.loop_header[b] == b; }

/* ck_vn.c: the value-numbering verdict. True: the fixpoint records no
 * value error (proven in one pass); false: not proven (the reference decides). */
bool ck_vn_verdict(ravel_checker *ck);
void ck_vn_free(ravel_checker *ck);
size_t ck_vn_memory(const ravel_checker *ck);

/* ck_ref.c: the reference fixpoint (docs/format.md section 6 as written:
 * a worklist over the reachable blocks in reverse post-order, any CFG). It
 * uses only ck->f, nregs, nlocs, nblocks, nvregs, set_limit, the CFG's
 * rv_cfg (ck->cfg.g: reverse post-order, dominance) and ck->out.rep, and
 * records the value errors there (with provenance). verdict_only: it
 * may stop at the first (certain) value error, setting the status. True if
 * no value error. *overflow: the set limit was passed (errors undecided);
 * *limit: that limit. Sets ck->diverged past its safety cap, and
 * ck->states_over past CK_MAX_STATE_POOL (then nothing is decided). */
typedef struct ck_ref ck_ref;
bool ck_ref_check(ravel_checker *ck, bool verdict_only, bool *overflow, uint32_t *limit);
void ck_ref_explain(ravel_checker *ck, uint32_t blk); /* after ck_ref_check: dumps blk into ck->explain */
void ck_ref_free(ravel_checker *ck);
/* Tests: where v is before instruction inst, at the last reference check's fixpoint (of f). */
uint32_t ck_ref_holders(ravel_checker *ck, const ravel_func *f, uint32_t inst, uint32_t v, ravel_loc *out, uint32_t max);
size_t ck_ref_memory(const ravel_checker *ck);

/* check.c: bytes of scratch memory the context holds (benchmarks). */
size_t ck_memory(const ravel_checker *ck);

/* ck_guard.c: structural sanity (anything that would make the analysis unsafe); on
 * failure appends diagnostics to rep->bad_input and returns false. On
 * success *suspect tells whether ravel_validate might reject f (EINVAL). */
bool ck_guard(ravel_checker *ck, const ravel_func *f, ravel_report *rep, uint32_t *nslots, bool *suspect);
void ck_guard_free(ck_guard_ctx *g);
size_t ck_guard_memory(const ck_guard_ctx *g);
void ck_facts_free(ck_facts *x);
size_t ck_facts_memory(const ck_facts *x);
void ck_rules(ravel_checker *ck);                           /* ck_rules.c */
void ck_match_orig(ravel_checker *ck, const ravel_func *orig); /* ck_orig.c */

/* ck_report.c */
ravel_report *ck_report_new(void);
void ck_truncate_bad_input(ravel_report *rep, uint32_t n); /* keeps the first n diagnostics */
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
    /* Does li hold vreg v right before instruction ii of block b, at the fixpoint
     * (on every path)? Possible only in a function that is not SSA (the checker
     * takes those: a vreg defined twice). */
    bool (*held_before)(void *ctx, uint32_t b, uint32_t ii, uint32_t li, uint32_t v);
} ck_prov_ops;
char *ck_provenance_text(const ravel_checker *ck, const ck_prov_ops *ops, uint32_t x, uint32_t ii, uint32_t li, uint32_t v,
                         bool late, bool held);
void ck_val_text_in(ck_buf *b, const ravel_checker *ck, const ck_sets *sets, ck_val v);
void ck_dump_state_of(ravel_checker *ck, const ck_sets *sets, const ck_val *vals, uint32_t b, uint32_t ii);
void ck_err_rule(ravel_checker *ck, const ck_site *s, const char *kind, ravel_loc loc, uint32_t expect,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void ck_bad_input(ravel_report *rep, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ck_drop_value_errors(ravel_report *rep); /* keeps the rules' errors */
void ck_finish_report(ravel_checker *ck); /* sort, one error per operand, the cap */
const char *ck_vname(const ravel_func *f, uint32_t v, char *buf); /* "v3" */
void ck_inst_text(ck_buf *b, const ravel_func *f, const rv_inst *in);

#endif
