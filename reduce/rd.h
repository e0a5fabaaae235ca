/*
 * rd.h - the reducer's internal map: the editable copy of a function
 * (rd_ir.c), the edits that keep it consistent (rd_edit.c), the passes
 * (rd_pass_*.c), the oracles (rd_oracle.c).
 *
 * An rd_func is a plain tree (blocks own instructions, instructions own their
 * operand lists) that a pass may change freely: block ids are indices into
 * blocks, vreg ids are indices into vregs (both shared with successors and
 * operands), register ids index m.regs. Strings point into the input function
 * and machine, which outlive every rd_func; NULL names are printed as bN/fN.
 */
#ifndef RAVEL_RD_H
#define RAVEL_RD_H

#include "reduce/reduce.h"

typedef struct rd_use {
    bool is_imm;
    int64_t imm;
    rv_operand op; /* when !is_imm */
} rd_use;

typedef RV_VEC(uint32_t) rd_u32s;

typedef struct rd_succ {
    uint32_t block;
    rd_u32s args; /* vreg ids */
} rd_succ;

typedef struct rd_inst {
    uint8_t op, flags;    /* ravel_opcode, RV_IF_* */
    const char *name;     /* mnemonic (OTHER) or callee (CALL), else NULL */
    RV_VEC(rv_operand) defs;
    RV_VEC(rd_use) uses;  /* vreg uses and immediates in their written order */
    rd_u32s clob;         /* explicit clobbers (RV_IF_CLOBBERS) */
    rd_u32s smap;         /* stackmap slots (RV_IF_STACKMAP) */
    RV_VEC(rd_succ) succs;
    ravel_loc dst, src;   /* edits (a remat: its K is its one immediate use, its clobbers clob) */
} rd_inst;

typedef struct rd_block {
    const char *name;
    rd_u32s params;
    RV_VEC(rd_inst) insts; /* the last one is the terminator */
} rd_block;

typedef struct rd_vreg {
    uint32_t num;
    uint8_t cls;
    bool ref;
} rd_vreg;

typedef struct rd_reg {
    const char *name;
    uint8_t cls;
    bool reserved;
} rd_reg;

typedef struct rd_mach {
    RV_VEC(const char *) classes;
    RV_VEC(rd_reg) regs;
    rd_u32s clobbers;
    rd_u32s alias; /* containment pairs: alias[2i] contains alias[2i+1] (docs/format.md section 14.1) */
    bool gc_nonmoving;
} rd_mach;

typedef struct rd_func {
    rd_mach m;
    const char *name;
    RV_VEC(rd_vreg) vregs;
    RV_VEC(rd_block) blocks; /* block 0 is the entry */
} rd_func;

/* ===== rd_ir.c: copy in, build out ========================================== */
/* Requires f finished and resolved (it passed ravel_validate without EINVAL). */
void rd_from_func(rd_func *r, const ravel_func *f);
void rd_clone(rd_func *dst, const rd_func *src);
void rd_free(rd_func *r);
/* Builds the machine and function; NULL if a builder call refuses (the
 * candidate is then invalid). Free with ravel_func_free, then the machine. */
ravel_func *rd_build(const rd_func *r, ravel_machine **m);
uint32_t rd_ninsts(const rd_func *r);
void rd_inst_free(rd_inst *in);
void rd_block_free(rd_block *b);

/* ===== rd_edit.c: consistent edits ========================================== */
/* Removes every value marked in dead (indexed by vreg id) and then every
 * value that depended on one: an instruction using a dead value is removed
 * (its defs die too); a br condition or ret value is dropped from its
 * terminator; an edge argument kills the block parameter it feeds (the
 * parameter and its argument on every edge into that block). dead is
 * updated in place (f->vregs.len entries). */
void rd_kill_values(rd_func *f, bool *dead);
/* Removes the blocks not reachable from the entry, and the values they
 * define (rd_kill_values). */
void rd_drop_unreachable(rd_func *f);
/* Removes instruction k of block b (not its terminator) and kills its defs. */
void rd_remove_inst(rd_func *f, uint32_t b, uint32_t k, bool *dead);
/* Removes successor edge k of terminator t; a br left with one successor
 * becomes a jump (its condition dropped). */
void rd_remove_edge(rd_inst *t, uint32_t k);
/* Drops use k (vreg or immediate) of in; reuse(K) constraints naming later
 * vreg uses follow them, one naming the dropped use becomes `reg`. */
void rd_drop_use(rd_inst *in, uint32_t k);
/* Replaces every use of vreg from by vreg to (operands and edge arguments). */
void rd_replace_uses(rd_func *f, uint32_t from, uint32_t to);
/* Renumbers blocks (names bN in layout order), vregs (numbers in order of
 * definition, unused ones dropped) and slots (in order of first mention). */
void rd_renumber(rd_func *f);

/* ===== rd_pass_*.c: the passes ============================================== */
/* A pass offers items (count) and applies its change to items [lo, hi) of a
 * copy (apply returns false if that changes nothing). Items are counted on
 * the current function each time, so a pass that removes items sees them
 * renumbered after every accepted candidate. */
typedef struct rd_pass {
    const char *name;
    uint32_t (*count)(const rd_func *f);
    bool (*apply)(rd_func *f, uint32_t lo, uint32_t hi);
} rd_pass;
extern const rd_pass rd_pass_cut_blocks, rd_pass_edges, rd_pass_bypass, rd_pass_merge; /* rd_pass_cfg.c */
extern const rd_pass rd_pass_insts, rd_pass_edits, rd_pass_values, rd_pass_operands;   /* rd_pass_inst.c */
extern const rd_pass rd_pass_constraints, rd_pass_attrs, rd_pass_smap, rd_pass_clobber_regs; /* rd_pass_attr.c */
extern const rd_pass rd_pass_imm_zero, rd_pass_imm_halve;
extern const rd_pass rd_pass_regs, rd_pass_classes, rd_pass_mach_clobbers, rd_pass_gc; /* rd_pass_mach.c */

/* ===== rd_oracle.c: is a candidate still interesting? ======================= */
typedef enum rd_outcome {
    RD_PASS,     /* nothing wrong */
    RD_REJECT,   /* the checker rejects (kind) */
    RD_INVALID,  /* an allocator's output does not validate */
    RD_FAIL,     /* the allocator returned an error */
    RD_DIFFERS,  /* the interpreter shows a difference */
    RD_MISS,     /* the checker oracle: a wrong allocation accepted */
    RD_CRASH,    /* the allocator process died (signal in kind) */
    RD_HANG,     /* it ran past the test timeout */
    RD_CMD_FAIL, /* COMMAND: nonzero exit (or killed) */
    RD_CMD_OK,   /* COMMAND: exit 0, still interesting */
    RD_STOPPED,  /* the time budget ran out during the test (no verdict) */
} rd_outcome;

typedef struct rd_result {
    rd_outcome outcome;
    char kind[48];      /* checker error kind of the first error, or the signal number */
    char *kinds;        /* every error kind, space separated (malloc'd) or NULL */
    char *text;         /* ALLOC: the harness's reproducer text (malloc'd) or NULL */
    char *detail;       /* ALLOC with compare: the difference or the failure (malloc'd) or NULL */
} rd_result;
void rd_result_free(rd_result *r);

typedef struct rd_oracle rd_oracle;
rd_oracle *rd_oracle_new(const rv_reduce_opts *o);
void rd_oracle_free(rd_oracle *q);
/* Runs the property on f (valid; parsed from text: the candidate's machine
 * and function, with the header for COMMAND). want_text: keep the
 * reproducer text. Returns false if the test could not run (*err set). */
bool rd_oracle_run(rd_oracle *q, const ravel_func *f, const char *text, size_t len, bool want_text, rd_result *r,
                   char **err);
/* The reduction's deadline (0: none): a test still running then is killed
 * and its result is RD_STOPPED. */
void rd_oracle_set_budget(rd_oracle *q, double deadline);
/* rv_fuzz_replay_ra on a reproducer text, in the worker process (the
 * allocators it re-runs may crash); -1 if the worker died or hung, -3 if
 * the budget ran out. */
int rd_oracle_replay(rd_oracle *q, const char *text, size_t len);
/* Does r keep what the input's result ref showed? */
bool rd_oracle_keeps(const rv_reduce_opts *o, const rd_result *ref, const rd_result *r);
const char *rd_outcome_name(rd_outcome o);
/* Do orig and alloc differ under `ravel run --compare` (o->inputs vectors
 * of seed o->seed)? msg gets the first difference. */
bool rd_differs(const rv_reduce_opts *o, const ravel_func *orig, const ravel_func *alloc, char *msg, size_t len);

#endif
