/*
 * imp.h - the per-function import pipeline of ravel_import (import.c
 * drives it; import.h has the readers, the tables and the public API).
 *
 *   check.c     refusals visible before allocation, frame pointer (R2)
 *   phys.c      R8-R12: what every operand naming a physical register is
 *   join.c      S4: the result (before ⋈ after on slot indexes)
 *   align.c     S5: originals ↔ result, fold shapes, placements (R27-R33)
 *   ops.c       one original instruction as an op (R13-R26, R19-R24)
 *   keys.c      R25, R26: constants and their keys
 *   classify.c  S6: inserted code as edits (R34-R40), R37 widths
 *   blocks.c    R41-R46: labels, terminators, critical edges
 *   build.c     S7: the allocated function and its unallocated twin
 *   emit.c      the .ra texts, the machine block, the comparison of S7
 *
 * One function is imported by one `imp` context; its arena and vectors are
 * freed by imp_free. The first refusal or import error is sticky
 * (imp_refuse, imp_error): later stages see imp_failed() and stop.
 */
#ifndef RAVEL_IMP_H
#define RAVEL_IMP_H

#include "import/import.h"

struct rvi_module {
    rv_symtab syms;
    mir_module tag, post;
    mir_dumps dumps;
    bool has_post;
};

typedef struct fc_state fc_state;

/* ----- the output function (.ra) ----- */
enum ra_cons { CN_REG, CN_ANY, CN_FIXED, CN_REUSE };
typedef struct ra_opnd {
    uint32_t vreg;    /* vreg number */
    uint8_t rc;       /* enum x86_rc */
    uint8_t cons;     /* enum ra_cons */
    bool early;
    uint16_t arg;     /* CN_FIXED: machine reg; CN_REUSE: K */
    uint32_t loc;     /* machine reg, RVI_SLOT | N, or RVI_NONE (unallocated) */
} ra_opnd;
typedef struct ra_use {   /* a use or an immediate, in MIR order */
    bool imm;
    int64_t val;
    ra_opnd o;
} ra_use;
enum ra_kind {
    RK_OP, RK_CALL, RK_ARGS, RK_CONST, RK_UNDEF, RK_COPY, /* ops (RK_COPY: the mnemonic copy) */
    RK_SPILL, RK_RELOAD, RK_MOVE, RK_REMAT,               /* edits */
    RK_JUMP, RK_BR, RK_RET                                /* terminators */
};
enum { RA_NCLOB = (X86_NREGS + 63) / 64 };
typedef struct ra_inst {
    uint8_t kind;          /* enum ra_kind */
    bool has_clob;         /* print clobbers(...) */
    const char *mnem;      /* mnemonic (RK_OP) or callee (RK_CALL) */
    uint32_t d0, nd;       /* defs in f->defs */
    uint32_t u0, nu;       /* uses in f->uses */
    uint64_t clob[RA_NCLOB];
    uint32_t dst, src;     /* edits: locations */
    int64_t key;           /* RK_CONST, RK_REMAT */
    uint32_t s0, ns;       /* terminators: successor labels (indexes in f->labels) in f->u32 */
    uint32_t pre;          /* pre instruction index (originals), RVI_NONE */
    const char *why;       /* where it comes from: a rule or "" (comment) */
    uint32_t cpos, clen;   /* comment: span of the MIR text it stands for, in ctext */
    const mir_text *ctext;
    int32_t slot;          /* slot index for the comment, -1 */
    bool samereg;          /* fast's deleted copy in one register while an overlapping one holds a value (fastrename.c) */
} ra_inst;
typedef struct ra_block {
    uint32_t label;        /* index in f->labels */
    uint32_t i0, n;        /* instructions */
} ra_block;
typedef struct ra_func {
    rv_arena arena;
    const char *name;
    RV_VEC(ra_block) blocks;
    RV_VEC(const char *) labels;
    RV_VEC(ra_inst) insts;
    RV_VEC(ra_opnd) defs;
    RV_VEC(ra_use) uses;
    RV_VEC(uint32_t) u32;
} ra_func;
void ra_func_free(ra_func *f);

/* ----- what phys.c says about each pre operand ----- */
enum po_kind {
    PO_OTHER,    /* not a register, or a vreg (handled by ops.c) */
    PO_DROP,     /* R12 and $noreg, ignored names, R11's narrower defs */
    PO_UNDEF,    /* R15: an undef use, left out */
    PO_CLOBBER,  /* R17, R18: implicit-def dead of a machine register */
    PO_PDEF,     /* a pseudo-vreg def (R8) */
    PO_PUSE      /* a read of a pseudo-vreg (R10) */
};
typedef struct po_info {
    uint8_t kind;
    uint16_t loc;   /* PO_PDEF/PO_PUSE: the pseudo-vreg's location; PO_CLOBBER: the register */
    uint32_t vreg;  /* pseudo-vreg number */
} po_info;
typedef struct livein_pv {
    uint32_t vreg;
    uint16_t loc;
} livein_pv;

/* ----- the result of the allocator (S4) ----- */
typedef struct rinst {
    const mir_inst *v;     /* the dump before the rewriter (vregs); NULL for fast */
    const mir_inst *p;     /* the dump after it (registers); NULL: deleted by the rewriter */
    uint32_t tag;
    int32_t slot;
    uint32_t orig;         /* the aligned pre instruction, RVI_NONE */
    bool fold_copy;        /* orig is a COPY realised by this load or store (R28, R29) */
    int32_t *map;          /* aligned: pre operand i -> result operand, MAP_FOLD, MAP_NONE */
    int32_t mem;           /* the memory reference a fold reads or writes (result operand index), -1 */
    int32_t *alt;          /* a commutative fold matching both ways: the commuted map, until S5 decides; NULL */
} rinst;
enum { MAP_FOLD = -1, MAP_NONE = -2 };
typedef struct rblock {
    int32_t num;
    uint32_t i0, n;        /* in imp.rs */
} rblock;
/* One position of the allocated block: a result instruction, or an
 * original the allocator deleted (R33, fast's identity copies). */
typedef struct item {
    bool deleted;
    uint32_t idx;          /* rinst index, or pre instruction index if deleted */
} item;

typedef struct tblock {
    uint32_t label;      /* in f->labels */
    int32_t pre_block;   /* the pre block whose body it holds, -1: added */
    bool entry_args;     /* holds the args op */
    uint8_t term;        /* RK_JUMP, RK_BR, RK_RET */
    uint32_t cond_k;     /* br: the pre instruction whose first vreg use (or EFLAGS use) decides, RVI_NONE */
    uint32_t t0, nt;     /* targets: tblock indexes in x->tb.tt */
} tblock;

/* The parts of the importer's context, each owned by the stage that fills
 * it (freed with the context, import.c). */
typedef struct imp_mask {      /* check.c */
    const char *ok;            /* the last dump regmask list found right (same text: same verdict) */
    uint32_t len;
} imp_mask;
typedef struct imp_pv {        /* phys.c: pseudo-vreg numbers */
    uint32_t base, next;
} imp_pv;
typedef struct imp_vmap {      /* join.c and align.c: the dump's vregs (greedy family) */
    uint32_t *reg;             /* after-allocation vreg -> machine reg (full width), RVI_NONE */
    uint32_t nreg;
    uint32_t *origin;          /* a vreg of the dump -> the tag.mir vreg it stands for (split products), RVI_NONE */
    uint32_t norigin;
} imp_vmap;
typedef struct imp_layout {    /* join.c: block number -> layout position (llc may renumber the blocks it reads) */
    int32_t *pre, *res;
    uint32_t npre, nres;
} imp_layout;
typedef struct imp_drop {      /* align.c: imp_dropped; NULL before S5 */
    uint8_t *erased;           /* by vreg number: no kept instruction names it */
    uint32_t nerased;
    uint8_t *dropped;          /* by pre instruction */
} imp_drop;
typedef struct imp_tblocks {   /* blocks.c */
    RV_VEC(tblock) list;
    RV_VEC(uint32_t) tt;       /* targets */
    uint32_t *of_pre;          /* pre block -> its main tblock */
} imp_tblocks;
typedef struct imp_keys {      /* keys.c */
    RV_VEC(const char *) names;
    RV_VEC(uint64_t) vals;
    uint32_t next;
} imp_keys;

typedef struct imp_status {    /* import.c: the outcome so far */
    enum rvi_outcome status;
    bool failed;
    char reason[96];
    char *msg;
} imp_status;
typedef struct imp_bstate {    /* build.c */
    uint32_t fresh_next;       /* R33: s2000 + j */
    fc_state *fc;              /* fast: fastcopy.c's state */
    uint32_t *copy_loc;        /* a deleted copy's def location, by pre instruction (R22's walk), RVI_NONE */
    RV_VEC(const char *) globals; /* invariant globals read by folds (s1700+k) */
} imp_bstate;

typedef struct imp {
    const rvi_module *m;
    const rvi_opts *o;
    enum rvi_alloc alloc;
    const mir_reader *rp, *rv, *rpost; /* readers of the texts (tag.mir, dumps, post.mir) */
    const mir_func *pre, *bf, *af, *post;
    rv_arena arena;
    imp_status st;             /* import.c */
    /* check.c */
    bool fp;                   /* rbp reserved (R2) */
    imp_mask mask;
    /* phys.c */
    po_info *po;               /* per pre operand */
    RV_VEC(livein_pv) liveins; /* the args op */
    imp_pv pv;
    /* join.c */
    RV_VEC(rinst) rs;
    RV_VEC(rblock) rblocks;
    imp_vmap vm;
    const mir_inst **fast_before; /* fast: pre instruction -> its line in the dump before (ties) */
    imp_layout lay;
    uint32_t *pre_tag;         /* tag of each pre instruction, 0 none */
    /* align.c */
    uint32_t *pre_slot;        /* expected slot index of each pre instruction */
    uint32_t *aligned;         /* pre instruction -> rinst, RVI_NONE */
    imp_drop drop;
    RV_VEC(item) items;        /* the allocated blocks' positions, per rblock in order */
    uint32_t *item0;           /* rblock -> first item; item0[nrblocks] = items.len */
    uint32_t untagged;
    /* blocks.c */
    imp_tblocks tb;
    imp_bstate bd;
    imp_keys key;
    /* ties: opcode symbol -> (def k tied to operand u) learnt from the dumps */
    RV_VEC(uint32_t) ties;     /* triples: opcode, def index, operand index */
    /* machine registers named anywhere (for the cut-down machine block) */
    bool touched[X86_NREGS];
} imp;

/* import.c: status */
void imp_refuse(imp *x, const char *reason, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same, at a source position (FILE:LINE:COL in the message). */
void imp_refuse_at(imp *x, const char *reason, const mir_reader *r, uint32_t pos, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void imp_error(imp *x, const char *rule, const mir_reader *r, uint32_t pos, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static inline bool imp_failed(const imp *x) { return x->st.failed; }
const char *imp_name(const imp *x, size_t *n);

/* check.c */
void imp_check(imp *x);
/* phys.c */
void imp_phys(imp *x);
/* join.c */
void imp_join(imp *x);
/* What operands j .. j+4 of `in` (an instruction of f) reference: a spill
 * slot (%stack.N, 1, $noreg, 0, $noreg, N a spill slot of post.mir), a
 * pool entry ($rip, 1, $noreg, %const.N, $noreg) or an immutable
 * fixed-stack object (%fixed-stack.N, 1, $noreg, 0, $noreg); *index: N. */
enum { MR_NONE, MR_SPILL, MR_POOL, MR_FIXED, MR_GLOBAL };
/* MR_GLOBAL: $rip, 1, $noreg, @G [+ off], $noreg read invariantly (a GOT
 * entry or an `invariant` load); *index: the operand index of @G. */
int imp_memref_at(const imp *x, const mir_reader *r, const mir_func *f, const mir_inst *in, uint32_t j, int64_t *index);
/* The slot a fold of a rematerialisable load reads (R32): pool entry i is
 * s(1000+i), immutable fixed-stack object i is s(1500+i), the k-th
 * invariant global the function's folds read (in order of first use) is
 * s(1700+k); gname: that global's name and offset (MR_GLOBAL). */
uint32_t imp_invariant_slot(imp *x, int kind, int64_t index, const char *gname);
int imp_full_reg(unsigned p, unsigned sub, unsigned w);
int32_t imp_block_pos(const imp *x, bool result, int64_t num); /* layout position of bb.num, -1 */
void imp_positions(imp *x); /* the pre blocks' positions (before imp_block_pos(x, false, ...)) */
/* The number llc gives frame object %stack.v (fixed: %fixed-stack.v) of
 * tag.mir once it has read it back (it renumbers them densely, in the
 * order tag.mir lists them; fixed objects are matched by offset); -1. */
int64_t imp_fi(const imp *x, bool fixed, int64_t v);
/* align.c */
void imp_align(imp *x);
/* *alt (if alt): the commuted map of an ambiguous commutative fold (freed by the caller), else NULL. */
bool imp_shape(const imp *x, const mir_inst *p, const mir_reader *rr, const mir_inst *q, int32_t *map, int32_t *mem, int32_t **alt);
/* keys.c */
bool imp_is_const(const imp *x, const mir_reader *r, const mir_func *f, const mir_inst *in);
int64_t imp_key(imp *x, const mir_reader *r, const mir_func *f, const mir_inst *in, unsigned bits, bool gpr);
int64_t imp_key_pool(imp *x, int64_t index, unsigned bits);
int64_t imp_key_fixed(imp *x, int64_t index, int64_t disp, unsigned bits, unsigned membits); /* result-side index */
/* An invariant load of global operand o (a GOT entry when got). */
int64_t imp_key_global(imp *x, const mir_reader *r, const mir_op *o, bool got, unsigned bits, unsigned membits);
void imp_global_name(const mir_reader *r, const mir_op *o, char *buf, size_t n);
unsigned imp_pool_bits(const imp *x, int64_t index); /* the size of pool entry index (its type in post.mir), 0 */
int64_t imp_key_imm(imp *x, uint64_t value, unsigned bits, bool gpr); /* an immediate of `bits` bits */
/* ties */
void imp_learn_ties(imp *x);
int imp_tied_use(const imp *x, const mir_inst *p, uint32_t def); /* the pre operand tied to def, -1 */
/* ops.c: the op of pre instruction k; locs[i]: the location of pre
 * operand i (RVI_NONE unallocated), anyops[i]: operand i is `any`
 * (folded, R29-R33); tied uses as the dumps show them. */
typedef struct op_alloc {
    const uint32_t *locs; /* per pre operand */
    const bool *any;      /* per pre operand */
    unsigned store_bits;  /* a def folded into a store: its width (R26) */
} op_alloc;
enum copy_kind { CK_FULL, CK_INPLACE, CK_MOVES, CK_UNDEF, CK_OPAQUE, CK_EXTRACT };
/* R21 for pre instruction k (a COPY); CK_EXTRACT: an extract whose
 * placement is not known (unallocated). */
enum copy_kind imp_copy_kind(const imp *x, uint32_t k, const op_alloc *a);
uint32_t imp_op(imp *x, ra_func *f, uint32_t k, const op_alloc *a);
bool imp_operand(imp *x, uint32_t k, uint32_t i, const op_alloc *a, ra_opnd *out);
unsigned imp_vreg_width(const imp *x, uint32_t vreg, uint8_t *rc);
/* classify.c: an inserted result instruction as an edit (or nothing). */
void imp_inserted(imp *x, ra_func *f, const rinst *ri);
bool imp_slot_width_ok(imp *x, const mir_reader *r, uint32_t pos, int64_t n, unsigned bits, bool low_part);
/* blocks.c: the output blocks (R41-R46). */
void imp_plan(imp *x, ra_func *f);
bool imp_is_term(const imp *x, uint32_t k);
/* Emits tblock t's terminator; locs: the allocation of cond_k (or NULL). */
void imp_term(imp *x, ra_func *f, uint32_t t, const op_alloc *a);
/* build.c */
void imp_build(imp *x, ra_func *alloc, ra_func *orig);
uint32_t ra_add_inst(ra_func *f, uint8_t kind);
uint32_t ra_add_label(ra_func *f, const char *name);
void ra_clob_set(ra_inst *in, unsigned reg);
/* claims.c: R22's claim for SUBREG_TO_REG k at item `it` of block b. */
void imp_claim32(imp *x, uint32_t b, uint32_t it, uint32_t k, const op_alloc *a);
/* fastcopy.c: the values registers and slots hold, for fast's deleted copies. */
fc_state *fc_new(void);
void fc_free(fc_state *s);
void fc_pass_start(fc_state *s, uint32_t ntb);
bool fc_pass_changed(const fc_state *s);
void fc_block_start(fc_state *s, const struct imp *x, uint32_t t);
void fc_block_end(fc_state *s, uint32_t t, bool ok);
void fc_apply(fc_state *s, const ra_func *f, uint32_t id);
int fc_where(const fc_state *s, uint32_t v, int want);
bool fc_holds(const fc_state *s, uint32_t reg, uint32_t v);
void fc_push(fc_state *s, uint32_t k);
uint32_t fc_npending(const fc_state *s);
uint32_t fc_pending(const fc_state *s, uint32_t i);
void fc_drop(fc_state *s, uint32_t n);
bool fc_overlap_held(const fc_state *s, uint32_t reg); /* a register overlapping reg holds a vreg */
/* fastrename.c: R27's same-register copies fast deleted, dropped where
 * their readers can read the source (after imp_same: both texts come from
 * the allocated function). */
void imp_fast_renames(imp *x, ra_func *f);
/* emit.c */
char *imp_emit(imp *x, const ra_func *f, bool allocated, size_t *len);
bool imp_same(imp *x, const ra_func *alloc, const ra_func *orig);

/* align.c: original k was deleted by the allocator together with every
 * other instruction that names its defs (an erased vreg: greedy's
 * dead-def elimination, transitively), and is no call and touches no
 * memory: it is dropped from both forms (build.c). R33's own deletions
 * (constants, IMPLICIT_DEF, fast's copies) are not dropped. */
bool imp_dropped(const imp *x, uint32_t k);

#endif
