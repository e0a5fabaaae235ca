/*
 * ravel.h - public C API of libravel.
 *
 * ravel proves register allocations correct. A JIT (or any compiler) builds a
 * function and its allocation through this header, asks the checker whether
 * the allocation is correct, and gets a report. No text format is needed, the
 * library never calls exit(), and keeps no global mutable state: distinct
 * functions, machines and checker contexts may be used from different threads.
 *
 * Terms (a summary; the glossary is docs/architecture.md):
 *   vreg      virtual register of the unallocated program (v0, v17, ...)
 *   location  a machine register named in the machine, or a spill slot sN
 *   edit      spill / reload / move inserted by the allocator between insts
 *   safepoint an instruction where a GC may run; carries a stackmap
 *
 * Conventions: functions returning int return 0 (RAVEL_OK) on success and a
 * negative ravel_status on failure. Ids (vregs, blocks, classes, registers,
 * instructions) are dense indices starting at 0.
 *
 * Misuse: every entry point accepts NULL for any pointer argument and any
 * id or index out of range, and then does nothing and fails: int functions
 * return RAVEL_EINVAL, id-returning ones RAVEL_NONE (ravel_vreg_new,
 * ravel_block_new) or -1 (the find functions), constructors and lookups
 * NULL, counts 0; the *_free functions accept NULL. A builder call that
 * fails on a function or a machine also records why: ravel_func_error,
 * ravel_machine_error. The readers ("reading a machine and a function")
 * follow the same rule. (Pointers to
 * freed objects, and objects used from two threads at once, remain
 * undefined behaviour.)
 */
#ifndef RAVEL_H
#define RAVEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RAVEL_VERSION_MAJOR 0
#define RAVEL_VERSION_MINOR 1

typedef struct ravel_machine ravel_machine;
typedef struct ravel_func ravel_func;
typedef struct ravel_module ravel_module;
typedef struct ravel_diags ravel_diags;

typedef enum ravel_status {
    RAVEL_OK = 0,
    RAVEL_EINVAL = -1,   /* bad input / API misuse (exit status 2 in the CLI) */
    RAVEL_EFAIL = -2,    /* the property checked does not hold (exit status 1) */
    RAVEL_ELIMIT = -3,   /* an implementation limit was exceeded */
    RAVEL_ENOMEM = -4,   /* out of memory: ravel_check, ravel_validate and ravel_allocate return
                            it, having freed what the call allocated (a checker context stays
                            usable); ravel_module_parse returns NULL with no new diagnostic.
                            Other calls (builders, constructors) still abort (docs/architecture.md) */
    RAVEL_EDECLINED = -5, /* a user's allocator does not handle this function (ravel_alloc_fn,
                             exit status 3 of an --alloc-cmd): counted, not a failure */
} ravel_status;

/* ---- locations ---------------------------------------------------------- */
/* A location is a register id (0 .. nregs-1) or a slot encoded with
 * ravel_slot(n). RAVEL_LOC_NONE means "no location" (unallocated). */
typedef uint32_t ravel_loc;
#define RAVEL_LOC_NONE 0xffffffffu
#define RAVEL_SLOT_BIT 0x80000000u
#define RAVEL_MAX_SLOT 1048575u /* slot numbers are 0 .. RAVEL_MAX_SLOT */
static inline ravel_loc ravel_slot(uint32_t n) { return RAVEL_SLOT_BIT | n; }
static inline int ravel_loc_is_slot(ravel_loc l) { return l != RAVEL_LOC_NONE && (l & RAVEL_SLOT_BIT); }
static inline int ravel_loc_is_reg(ravel_loc l) { return !(l & RAVEL_SLOT_BIT); }
static inline uint32_t ravel_loc_slot(ravel_loc l) { return l & ~RAVEL_SLOT_BIT; }

#define RAVEL_NONE 0xffffffffu /* "no id" for vregs, blocks, instructions */

/* ---- machine ------------------------------------------------------------ */
ravel_machine *ravel_machine_new(void);
void ravel_machine_free(ravel_machine *m);
/* Returns the class id, or a negative status (duplicate name, too many). */
int ravel_machine_add_class(ravel_machine *m, const char *name);
/* Adds a register of class cls; allocatable ones are kept in the order
 * added (preference order). Returns the register id or a negative status. */
int ravel_machine_add_reg(ravel_machine *m, const char *name, int cls, int reserved);
/* The default clobber set of `call`. */
int ravel_machine_set_clobbers(ravel_machine *m, const uint32_t *regs, size_t n);
/* Register containment (an `alias` line, docs/format.md section 14.1):
 * register r contains register s, every bit of s being a bit of r; either
 * may be of any class, reserved or not. Containment is never inferred
 * (r contains s and s contains t do not make r contain t: declare every
 * pair) and stays acyclic: RAVEL_EINVAL for r == s, an id out of range, or
 * a pair by which s would contain r, directly or through other registers.
 * Declaring a pair twice is no error. O(containments) per call. */
int ravel_machine_alias(ravel_machine *m, uint32_t r, uint32_t s);
void ravel_machine_set_gc_moving(ravel_machine *m, int moving);
int ravel_machine_find_reg(const ravel_machine *m, const char *name);   /* -1 if none */
int ravel_machine_find_class(const ravel_machine *m, const char *name); /* -1 if none */
uint32_t ravel_machine_nregs(const ravel_machine *m);
uint32_t ravel_machine_nclasses(const ravel_machine *m);
const char *ravel_machine_reg_name(const ravel_machine *m, uint32_t reg);
/* The message of the last machine call that failed on m (e.g.
 * "ravel_machine_add_reg: bad class id"), or NULL if none failed. */
const char *ravel_machine_error(const ravel_machine *m);

/* ---- functions ------------------------------------------------------------ */
/* Opcodes. Edits and terminators are instructions too. */
typedef enum ravel_opcode {
    RAVEL_OP_OTHER = 0, /* any mnemonic not listed below (opaque) */
    RAVEL_OP_ARGS, RAVEL_OP_CONST, RAVEL_OP_COPY,
    RAVEL_OP_ADD, RAVEL_OP_SUB, RAVEL_OP_MUL, RAVEL_OP_AND, RAVEL_OP_OR, RAVEL_OP_XOR,
    RAVEL_OP_SHL, RAVEL_OP_SHR, RAVEL_OP_SAR,
    RAVEL_OP_EQ, RAVEL_OP_NE, RAVEL_OP_LT, RAVEL_OP_LE,
    RAVEL_OP_OUT, RAVEL_OP_CALL,
    /* terminators */
    RAVEL_OP_JUMP, RAVEL_OP_BR, RAVEL_OP_RET,
    /* edits (allocated form only) */
    RAVEL_OP_SPILL, RAVEL_OP_RELOAD, RAVEL_OP_MOVE,
    RAVEL_OP_REMAT, /* LOC = remat K [clobbers(...)]: built with ravel_remat (docs/format.md section 14.3) */
    /* an op, numbered after the edits so that the values above stay */
    RAVEL_OP_UNDEF, /* DEF = undef: one def, nothing else; the def is undefined (docs/format.md section 14.2) */
    RAVEL_OP_COUNT_
} ravel_opcode;

typedef enum ravel_constraint {
    RAVEL_C_REG = 0, RAVEL_C_ANY, RAVEL_C_STACK, RAVEL_C_FIXED, RAVEL_C_REUSE
} ravel_constraint;

typedef enum ravel_pos { RAVEL_POS_DEFAULT = 0, RAVEL_POS_EARLY, RAVEL_POS_LATE } ravel_pos;

ravel_func *ravel_func_new(const ravel_machine *m, const char *name); /* NULL if m is NULL */
void ravel_func_free(ravel_func *f);
/* New vreg with the next free number; returns its id. */
uint32_t ravel_vreg_new(ravel_func *f, int cls, int is_ref);
/* New vreg numbered `number` (the N of vN, not used yet in f); returns its
 * id, RAVEL_NONE on a bad class, a used or too large number. */
uint32_t ravel_vreg_new_num(ravel_func *f, uint32_t number, int cls, int is_ref);
/* New block (not yet started); returns its id. name may be NULL ("bN"). */
uint32_t ravel_block_new(ravel_func *f, const char *name);
int ravel_block_add_param(ravel_func *f, uint32_t block, uint32_t vreg);
/* Starts appending instructions to block. Blocks are laid out in the order
 * they are started; the first started block is the entry. A block can be
 * started once. */
int ravel_block_begin(ravel_func *f, uint32_t block);

/* Instructions are built in the current block: begin, operands (defs before
 * uses), attributes, end. name is the mnemonic for RAVEL_OP_OTHER and the
 * callee for RAVEL_OP_CALL, otherwise NULL. Returns the instruction id. */
int ravel_inst_begin(ravel_func *f, ravel_opcode op, const char *name);
/* arg: register id for RAVEL_C_FIXED, use index K for RAVEL_C_REUSE. */
int ravel_inst_def(ravel_func *f, uint32_t vreg, ravel_constraint c, uint32_t arg, ravel_pos pos, ravel_loc loc);
int ravel_inst_use(ravel_func *f, uint32_t vreg, ravel_constraint c, uint32_t arg, ravel_pos pos, ravel_loc loc);
int ravel_inst_imm(ravel_func *f, int64_t value);
int ravel_inst_clobbers(ravel_func *f, const uint32_t *regs, size_t n);
int ravel_inst_safepoint(ravel_func *f);
int ravel_inst_stackmap(ravel_func *f, const uint32_t *slots, size_t n);
/* Successor of a jump/br, with its block arguments (vreg ids). */
int ravel_inst_succ(ravel_func *f, uint32_t block, const uint32_t *args, size_t nargs);
int ravel_inst_end(ravel_func *f);
/* An edit in the current block: spill (reg -> slot), reload (slot -> reg),
 * move (reg -> reg). */
int ravel_edit(ravel_func *f, ravel_opcode kind, ravel_loc dst, ravel_loc src);
/* A rematerialisation in the current block (docs/format.md section 14.3):
 * `dst = remat k clobbers(...)`, the content named k (a key, compared as 64
 * bits) recomputed into dst, a register or a slot, by an instruction that
 * destroys the n registers `clobbers` (NULL when n is 0; an empty list is
 * the same as none). Returns the instruction id. An `undef` op is built as
 * any op: ravel_inst_begin(f, RAVEL_OP_UNDEF, NULL) and its one def. */
int ravel_remat(ravel_func *f, ravel_loc dst, int64_t k, const uint32_t *clobbers, size_t n);
/* Ends construction: closes an open instruction and renumbers blocks so that
 * block ids follow the layout (block i is the i-th started block). Call it
 * before validating, checking, printing or allocating a built function;
 * block ids returned earlier are remapped. */
int ravel_func_finish(ravel_func *f);
/* Sets the location of operand k (defs first, then uses) of instruction i. */
int ravel_set_loc(ravel_func *f, uint32_t inst, uint32_t k, ravel_loc loc);
/* The message of the last builder call that failed on f (e.g. "succ: bad
 * block id"), or NULL if none failed; owned by f, valid until the next
 * failing call or ravel_func_free. */
const char *ravel_func_error(const ravel_func *f);

/* ---- modules and text ------------------------------------------------------ */
/* A module is one machine and its functions, as read from a .ra file. NULL
 * on bad input (diagnostics in d) or out of memory (nothing added to d). */
ravel_module *ravel_module_parse(const char *text, size_t len, const char *filename, ravel_diags *d);
void ravel_module_free(ravel_module *mod);
const ravel_machine *ravel_module_machine(const ravel_module *mod);
size_t ravel_module_nfuncs(const ravel_module *mod);
ravel_func *ravel_module_func(const ravel_module *mod, size_t i);
/* Prints a function (canonical form) / a machine block. */
int ravel_print_func(FILE *out, const ravel_func *f);
int ravel_print_machine(FILE *out, const ravel_machine *m);

/* Diagnostics collect "FILE:LINE:COL: error: MESSAGE" records. */
ravel_diags *ravel_diags_new(void);
void ravel_diags_free(ravel_diags *d);
size_t ravel_diags_count(const ravel_diags *d);
/* Prints every diagnostic, with the source line and a caret when known. */
void ravel_diags_print(FILE *out, const ravel_diags *d);

/* Structural validation (docs/format.md sections 3-5 and the structural part of
 * section 6). flags: RAVEL_VALIDATE_SSA also checks SSA and dominance.
 * Returns RAVEL_OK, RAVEL_EINVAL (bad input: unreadable or unresolved),
 * RAVEL_EFAIL (well formed, but the allocated form breaks a structural
 * rule of section 6) or RAVEL_ENOMEM (d as it was). Messages go to d. */
#define RAVEL_VALIDATE_SSA 1u
int ravel_validate(const ravel_func *f, unsigned flags, ravel_diags *d);

/* ---- reading a machine and a function ------------------------------------
 * Readers follow the misuse rule: NULL or an id / index out of range gives
 * RAVEL_NONE (ids), NULL (strings), -1 (int queries), 0 (counts),
 * RAVEL_LOC_NONE (locations) or RAVEL_EINVAL (int-status calls). Function
 * readers need a finished function (ravel_func_finish called, or parsed):
 * instructions are 0..n-1 in layout order (edits included), blocks 0..n-1 in
 * layout order (0 = entry), and these indexes are stable until f is freed. */
const char *ravel_machine_class_name(const ravel_machine *m, uint32_t cls); /* NULL if bad */
int ravel_machine_reg_class(const ravel_machine *m, uint32_t reg);          /* class id, -1 */
int ravel_machine_reg_reserved(const ravel_machine *m, uint32_t reg);       /* 1, 0, -1 */
/* Allocatable registers of a class, in preference order (RAVEL_NONE if bad). */
uint32_t ravel_machine_class_nallocatable(const ravel_machine *m, uint32_t cls);
uint32_t ravel_machine_class_allocatable(const ravel_machine *m, uint32_t cls, uint32_t i);
/* The default clobber set of `call`, sorted (RAVEL_NONE if i is bad). */
uint32_t ravel_machine_nclobbers(const ravel_machine *m);
uint32_t ravel_machine_clobber(const ravel_machine *m, uint32_t i);
int ravel_machine_gc_moving(const ravel_machine *m);                        /* 1, 0, -1 */
/* Register containment (docs/format.md section 14.1). The containers are
 * the registers that contain another, in the order of their first
 * containment (the order of the printed alias lines); each contains
 * registers listed by ascending id. r contains s as declared (not
 * transitively); r overlaps s when one contains the other (symmetric, not
 * transitive, never r itself): 1, 0, or -1 for a bad id. The registers
 * overlapping reg are listed by ascending id (precomputed: O(1) each). */
uint32_t ravel_machine_ncontainers(const ravel_machine *m);
uint32_t ravel_machine_container(const ravel_machine *m, uint32_t i);
uint32_t ravel_machine_ncontained(const ravel_machine *m, uint32_t reg);
uint32_t ravel_machine_contained(const ravel_machine *m, uint32_t reg, uint32_t k);
int ravel_machine_contains(const ravel_machine *m, uint32_t r, uint32_t s);
int ravel_machine_overlap(const ravel_machine *m, uint32_t r, uint32_t s);
uint32_t ravel_machine_noverlapping(const ravel_machine *m, uint32_t reg);
uint32_t ravel_machine_overlapping(const ravel_machine *m, uint32_t reg, uint32_t k);

const ravel_machine *ravel_func_machine(const ravel_func *f);
const char *ravel_func_name(const ravel_func *f);
uint32_t ravel_func_nvregs(const ravel_func *f);                            /* ids 0..n-1 */
int ravel_vreg_class(const ravel_func *f, uint32_t v);   /* class id; -1 if bad or class unknown */
int ravel_vreg_is_ref(const ravel_func *f, uint32_t v);  /* 1, 0, -1 */
uint32_t ravel_vreg_number(const ravel_func *f, uint32_t v); /* the N of vN, RAVEL_NONE if bad */
uint32_t ravel_func_find_vreg(const ravel_func *f, uint32_t number); /* id of vN, RAVEL_NONE */
/* Started blocks only: labels never defined (which the validator rejects)
 * are not counted, and a successor naming one has an id >= nblocks. */
uint32_t ravel_func_nblocks(const ravel_func *f);
const char *ravel_block_name(const ravel_func *f, uint32_t b);
uint32_t ravel_block_nparams(const ravel_func *f, uint32_t b);            /* `b1():` has 0, like `b1:` */
uint32_t ravel_block_param(const ravel_func *f, uint32_t b, uint32_t k);   /* vreg id */
/* First instruction (RAVEL_NONE if bad or empty) and count; the last one is the terminator. */
uint32_t ravel_block_first_inst(const ravel_func *f, uint32_t b);
uint32_t ravel_block_ninsts(const ravel_func *f, uint32_t b);
uint32_t ravel_func_ninsts(const ravel_func *f);
uint32_t ravel_inst_block(const ravel_func *f, uint32_t i);                 /* RAVEL_NONE if bad */
int ravel_inst_opcode(const ravel_func *f, uint32_t i);                     /* ravel_opcode or -1 */
/* The callee (CALL) or mnemonic (OTHER), else NULL. */
const char *ravel_inst_name(const ravel_func *f, uint32_t i);
/* "add", "jump", "spill", ...; NULL for RAVEL_OP_OTHER and bad values. */
const char *ravel_opcode_name(int op);
uint32_t ravel_inst_ndefs(const ravel_func *f, uint32_t i);
uint32_t ravel_inst_nuses(const ravel_func *f, uint32_t i);                 /* vreg uses only */
typedef struct ravel_operand {
    uint32_t vreg;
    int is_def;
    ravel_constraint constraint;
    uint32_t arg;      /* register id (FIXED), use index K (REUSE), else 0 */
    ravel_pos pos;     /* effective position: RAVEL_POS_EARLY or RAVEL_POS_LATE */
    ravel_loc loc;     /* RAVEL_LOC_NONE when unallocated */
} ravel_operand;
/* Operand k (defs first, then uses, as ravel_set_loc) into *out; RAVEL_OK or RAVEL_EINVAL. */
int ravel_inst_operand(const ravel_func *f, uint32_t i, uint32_t k, ravel_operand *out);
uint32_t ravel_inst_nimms(const ravel_func *f, uint32_t i);
/* Immediate k: its value and use_pos, its index in the use list (vreg uses
 * and immediates, in written order); either pointer may be NULL. */
int ravel_inst_imm_at(const ravel_func *f, uint32_t i, uint32_t k, int64_t *value, uint32_t *use_pos);
/* Explicit clobbers(...) attribute: 1 if written (possibly empty), 0, -1; its registers. */
int ravel_inst_has_clobbers(const ravel_func *f, uint32_t i);
uint32_t ravel_inst_nclobbers(const ravel_func *f, uint32_t i);
uint32_t ravel_inst_clobber(const ravel_func *f, uint32_t i, uint32_t k);
/* Effective clobbers: the explicit list, else the machine's default for call, else none. */
uint32_t ravel_inst_nclobbered(const ravel_func *f, uint32_t i);
uint32_t ravel_inst_clobbered(const ravel_func *f, uint32_t i, uint32_t k);
int ravel_inst_is_safepoint(const ravel_func *f, uint32_t i);               /* 1, 0, -1 */
/* stackmap(...) written (1, possibly empty; 0; -1), its length and slot numbers. */
int ravel_inst_has_stackmap(const ravel_func *f, uint32_t i);
uint32_t ravel_inst_stackmap_len(const ravel_func *f, uint32_t i);
uint32_t ravel_inst_stackmap_slot(const ravel_func *f, uint32_t i, uint32_t k);
/* Successors of jump / br (0 for others): block id and argument vreg ids. */
uint32_t ravel_inst_nsuccs(const ravel_func *f, uint32_t i);
uint32_t ravel_inst_succ_block(const ravel_func *f, uint32_t i, uint32_t k);
uint32_t ravel_inst_succ_nargs(const ravel_func *f, uint32_t i, uint32_t k);
uint32_t ravel_inst_succ_arg(const ravel_func *f, uint32_t i, uint32_t k, uint32_t j);
/* Locations of an edit (spill / reload / move; a remat has a destination
 * only); RAVEL_LOC_NONE for others. */
ravel_loc ravel_edit_dst(const ravel_func *f, uint32_t i);
ravel_loc ravel_edit_src(const ravel_func *f, uint32_t i);
int ravel_inst_is_edit(const ravel_func *f, uint32_t i);                    /* 1, 0, -1 (remat: 1) */
/* docs/format.md section 14: an `undef` op (1, 0, -1); the constant K of a
 * remat into *k (RAVEL_OK, or RAVEL_EINVAL for another instruction; k may
 * be NULL). A remat's clobbers are read with ravel_inst_has_clobbers,
 * ravel_inst_nclobbers and ravel_inst_clobber, as an op's. */
int ravel_inst_is_undef(const ravel_func *f, uint32_t i);
int ravel_remat_const(const ravel_func *f, uint32_t i, int64_t *k);
int ravel_inst_is_terminator(const ravel_func *f, uint32_t i);              /* 1, 0, -1 */
uint32_t ravel_func_nslots(const ravel_func *f);                            /* 1 + highest slot used */
int ravel_func_is_allocated(const ravel_func *f); /* any location, edit or stackmap: 1, 0, -1 */

/* ---- the checker (checker/) -------------------------------------------------
 * A checker context owns reusable scratch memory; use one per thread
 * (distinct contexts may run concurrently). See docs/checker.md. */
typedef struct ravel_checker ravel_checker;
typedef struct ravel_report ravel_report;
ravel_checker *ravel_checker_new(void);
void ravel_checker_free(ravel_checker *ck);
/* Options: a bitwise or, added with ravel_checker_add_options and removed
 * with ravel_checker_clear_options (ravel_checker_set_options replaces the
 * whole option word). Verification (ravel_check_if_enabled) is a separate
 * flag, not an option: no option call turns it off. */
#define RAVEL_CHECK_EXPLAIN 1u /* attach per-location state dumps of every block with errors */
#define RAVEL_CHECK_VERIFY 2u  /* not stored in the option word: passed to set/add_options it
                                  turns verification on (ravel_checker_set_verify) */
#define RAVEL_CHECK_NO_VALIDATE 4u /* skip ravel_validate (callers that validated the function
                                      already); the checker's own guard still rejects anything
                                      that would make the analysis unsafe */
#define RAVEL_CHECK_FULL_VALIDATE 8u /* always run ravel_validate; by default it runs only when the
                                        guard sees a condition it may reject (same verdicts) */
#define RAVEL_CHECK_ORIG_VALID 16u /* orig (the unallocated function) passed ravel_validate already
                                      (e.g. it was just generated and validated): the checker's own
                                      pass over it is skipped. An orig that does not validate is then
                                      undefined behaviour; without the option it is a RAVEL_EINVAL */
#define RAVEL_CHECK_VERDICT_ONLY 32u /* only the verdict is wanted (a JIT that falls back to a
                                        safe allocator, a fuzzing oracle): once a value error is
                                        certain, the report of the value errors (messages,
                                        provenance: as costly as the check itself) is not built,
                                        and the walk stops at the first value error.
                                        The status is RAVEL_EFAIL as without the option (or, for a
                                        function the full check would find beyond the checker's
                                        set limit, RAVEL_EFAIL instead of RAVEL_EINVAL: the error
                                        found is certain); the report lists the rule errors only,
                                        so it may hold no error at all. Ignored with EXPLAIN */
#define RAVEL_CHECK_REFERENCE 64u /* decide and report with the reference fixpoint alone: section 6
                                     of docs/format.md as written (a worklist over every reachable
                                     block, any CFG), without the faster paths. Slower; every other
                                     path gives the same verdict and report (docs/checker.md) */
void ravel_checker_add_options(ravel_checker *ck, unsigned opts);   /* opts |= */
void ravel_checker_clear_options(ravel_checker *ck, unsigned opts); /* opts &= ~ */
void ravel_checker_set_options(ravel_checker *ck, unsigned opts);   /* opts = */
unsigned ravel_checker_options(const ravel_checker *ck);
/* Verification requested: set by ravel_checker_new from
 * ravel_verify_requested() (the RAVEL_VERIFY environment variable), changed
 * only by ravel_checker_set_verify. */
void ravel_checker_set_verify(ravel_checker *ck, int on);
int ravel_checker_verify(const ravel_checker *ck);
/* Checks the allocated function `alloc` (docs/format.md section 6). orig, if not
 * NULL, is the unallocated function it came from (instructions must match).
 * Returns RAVEL_OK (verified), RAVEL_EFAIL (errors found) or RAVEL_EINVAL
 * (bad input). If report is not NULL, *report receives the errors (free it
 * with ravel_report_free). */
int ravel_check(ravel_checker *ck, const ravel_func *alloc, const ravel_func *orig, ravel_report **report);
/* As ravel_check when verification is requested (ravel_checker_verify),
 * else returns RAVEL_OK at once (and *report = NULL). */
int ravel_check_if_enabled(ravel_checker *ck, const ravel_func *alloc, const ravel_func *orig, ravel_report **report);
/* At most n errors are kept in a report (the first ones in instruction
 * order); the count of the others is ravel_report_omitted. 0: no cap.
 * Default RAVEL_CHECK_DEFAULT_MAX_ERRORS. */
#define RAVEL_CHECK_DEFAULT_MAX_ERRORS 100u
void ravel_checker_set_max_errors(ravel_checker *ck, size_t n);
size_t ravel_report_count(const ravel_report *r);
size_t ravel_report_omitted(const ravel_report *r); /* errors found beyond the cap */
/* RAVEL_OK, RAVEL_EFAIL or RAVEL_EINVAL, as returned by ravel_check. */
int ravel_report_status(const ravel_report *r);
/* One error. Strings are owned by the report; optional ones may be NULL. */
typedef struct ravel_check_error {
    const char *kind;       /* stable kind name, e.g. "use-wrong-vreg" */
    const char *file;       /* source file or NULL */
    const char *func;       /* function name */
    const char *block;      /* block name */
    uint32_t inst;          /* instruction index in the function, RAVEL_NONE if none */
    uint32_t line;          /* file line of the instruction, 0 if unknown */
    int32_t operand;        /* operand index within its role (def k, use k, stackmap k), -1 if none */
    const char *role;       /* "def", "use", "stackmap", "edit", "inst" or "block" */
    const char *position;   /* "early", "late" or NULL */
    const char *loc;        /* location name ("r2", "s1") or NULL */
    const char *expected;   /* expected vreg ("v3") or NULL */
    const char *held;       /* "unknown", "conflicted", "empty", "{v5, v9}" or NULL */
    const char *inst_text;  /* the instruction with its locations, e.g. "v4 @r1 = add v3 @r0, v2 @s1";
                               one string per instruction, shared by all its errors */
    const char *message;    /* one-line description */
    const char *provenance; /* explanation lines separated by '\n', or NULL */
    const char *explain;    /* per-point state dump (RAVEL_CHECK_EXPLAIN), or NULL */
    uint32_t col;           /* column of the operand in the source (of the instruction when the
                               operand is not found there), 0 if unknown */
    const char *source;     /* the instruction's source line as written, locations included, or
                               NULL (built through the API); shared by all its errors */
} ravel_check_error;
const ravel_check_error *ravel_report_error(const ravel_report *r, size_t i);
/* Bad-input diagnostics (status RAVEL_EINVAL). */
size_t ravel_report_ndiags(const ravel_report *r);
const char *ravel_report_diag(const ravel_report *r, size_t i);
/* Compiler-style text: "FILE:LINE:COL: error[KIND]: ...", the source line
 * with a caret under the operand, then the provenance notes. */
void ravel_report_print(FILE *out, const ravel_report *r);
/* One JSON object per error per line (fields: docs/checker.md). */
void ravel_report_print_json(FILE *out, const ravel_report *r);
void ravel_report_free(ravel_report *r);
/* Run-time switch for JITs: nonzero when the environment variable
 * RAVEL_VERIFY is set to a value other than "" or "0". */
int ravel_verify_requested(void);

/* ---- allocators (allocator/) ------------------------------------------------ */
/* Allocates f (unallocated, valid, SSA) with the named built-in allocator
 * ("fast", "linear", "random", ...). On success *out is the allocated
 * function (free with ravel_func_free). On failure returns a negative status
 * and, if err is not NULL, *err is a malloc'd message (none for
 * RAVEL_ENOMEM, which frees everything the call allocated).
 * RAVEL_EDECLINED: the allocator does not handle f's machine with alias
 * lines (docs/format.md section 14.1; only "fast" and "linear" do). */
int ravel_allocate(const char *allocator, const ravel_func *f, uint64_t seed, ravel_func **out, char **err);
/* Names of the built-in allocators: i = 0, 1, ... until NULL. */
const char *ravel_allocator_name(size_t i);

/* A user's allocator, as the fuzzing kit (ravel_fuzz.h) and the fuzz
 * library call it. orig is unallocated, valid SSA and finished; the
 * callback must not modify it. Returns:
 *   RAVEL_OK        *out is a new allocated function of orig's machine
 *                   (built with the builders, or parsed), owned by the caller;
 *   RAVEL_EDECLINED the allocator does not handle this function (counted,
 *                   not a failure); *msg may say why;
 *   any other negative status: the allocator failed on a satisfiable
 *                   function (a bug); *msg may say why.
 * *msg, if set, is malloc'd (freed by the caller with free). seed is for
 * allocators with random choices (0 unless the caller draws one). */
typedef int (*ravel_alloc_fn)(void *user, const ravel_func *orig, uint64_t seed, ravel_func **out, char **msg);

#ifdef __cplusplus
}
#endif
#endif
