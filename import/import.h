/*
 * import.h - the map of ravel_import: LLVM 19's x86-64 register
 * allocations read as text and written as `.ra` files (the contract is
 * docs/import-mapping.md; docs/import.md records the decisions it leaves open).
 *
 * Pipeline of one function (import.c drives it; stage names are
 * docs/import-mapping.md's):
 *
 *   tag.mir ──mir.c/mir_yaml.c──▶ mir_func (pre)      S1 tag.c wrote the tags
 *   dumps   ──mir_dump.c────────▶ mir_func (before, after the rewriter)
 *   post.mir ─mir_yaml.c────────▶ mir_func (frame objects, constants)
 *        │
 *        ├─ check.c     refusals visible before allocation (docs/import-mapping.md §4)
 *        ├─ phys.c      R8-R12: pseudo-vregs for physical registers
 *        ├─ join.c      S4: before ⋈ after on slot indexes (fast: by tag)
 *        ├─ align.c     S5: originals ↔ result, per block, on tags;
 *        │              fold shapes, folded copies, deleted originals
 *        ├─ build.c     S6/S7: the allocated function (ra_func): ops
 *        │  ops.c       (R13-R26), inserted code (classify.c: R34-R40),
 *        │  keys.c      blocks and terminators (blocks.c: R41-R46)
 *        │  classify.c
 *        │  blocks.c
 *        └─ emit.c      the two texts; strip() == the form built from
 *                       tag.mir alone (S7)
 *
 * Glossary:
 *   pre          the function as tag.mir has it (before allocation)
 *   result       the allocator's instructions: the dump before the
 *                rewriter (vregs, "vform") paired with the one after it
 *                (registers, "pform"); for fast only the pform
 *   original     a pre instruction; aligned to at most one result
 *                instruction
 *   inserted     a result instruction aligned to no original
 *   machine reg  a name of docs/import-mapping.md §5.1 (x86.c), dense id
 *                < X86_NREGS
 *   pseudo-vreg  the vreg the import gives a physical register's def (R8)
 *   location     a machine reg id, or RVI_SLOT | N for slot sN
 *
 * Memory: every structure is owned by the context that made it and freed
 * by its *_free; library code allocates through rv_x* only. No global
 * mutable state. Bad input: FILE:LINE:COL diagnostics (ravel_diags),
 * never a crash.
 */
#ifndef RAVEL_IMPORT_H
#define RAVEL_IMPORT_H

#include "ir/ir.h"

#define RVI_NONE 0xffffffffu
#define RVI_SLOT 0x40000000u /* location bit: spill slot */
#define RVI_MAX_SLOTS 1000u  /* R7: frame objects or pool entries refused from here */

/* ===== x86.c: docs/import-mapping.md §5 as data ===================== */
enum { X86_NGPR_ROWS = 16, X86_NVEC_ROWS = 16 };
enum { X86_GPR0 = 0, X86_VEC0 = 80, X86_EFLAGS = 144, X86_NREGS = 145 };
enum x86_kind { XK_NONE, XK_GPR, XK_VEC, XK_FLAGS };
enum x86_rc { RC_GPR, RC_XMM, RC_FLAGS, RC_N };
typedef struct x86_reg {
    const char *name; /* the .ra name (`rax`, `xd3`, `eflags`), NULL for a hole */
    uint8_t kind;     /* enum x86_kind */
    uint8_t row;      /* gpr row 0..15 (rax rcx rdx rbx rsi rdi rbp rsp r8..r15) or vector N */
    uint16_t width;   /* bits */
    uint8_t lo;       /* first bit (8 for ah bh ch dh) */
} x86_reg;
const x86_reg *x86_reg_at(unsigned id);              /* NULL for a hole or out of range */
int x86_reg_find(const char *s, size_t n);           /* .ra name -> id, -1 */
bool x86_contains(unsigned a, unsigned b);           /* a contains b, a != b (§5.1) */
bool x86_overlaps(unsigned a, unsigned b);           /* a contains b or b contains a */
int x86_at_width(unsigned id, unsigned width);       /* the same row's name of that width from bit 0; -1 */
int x86_row_top(unsigned id);                        /* the widest name of id's row */
enum x86_rc x86_reg_rc(unsigned id);
/* Sub-register indexes (LLVM's x86 names). */
enum x86_sub { XS_NONE, XS_8BIT, XS_8BIT_HI, XS_16BIT, XS_32BIT, XS_XMM, XS_OTHER };
enum x86_sub x86_sub_find(const char *s, size_t n);
int x86_subreg(unsigned id, enum x86_sub s);         /* subreg(R, I) of §5.1; -1 */
unsigned x86_sub_width(enum x86_sub s);
/* Physical register names as MIR writes them (without '$'). */
enum x86_pcat {
    XP_MACHINE, /* a machine register (id in *id; $xmmN is the 128-bit name) */
    XP_DROP,    /* R12: rsp and its names, rip, ssp, segments, mxcsr, fpcw, fpsw, df, noreg */
    XP_IGNORE,  /* half registers of register units ($hax, $r8bh, ...) */
    XP_REFUSE,  /* a register outside the model: *why is the refusal reason */
    XP_UNKNOWN
};
enum x86_pcat x86_phys_find(const char *s, size_t n, int *id, const char **why);
/* LLVM register classes (§5.2): RC and width, or a refusal reason. */
typedef struct x86_class {
    int rc;              /* enum x86_rc, or -1: refused */
    unsigned width;      /* bits (0 for flags) */
    const char *refuse;  /* "x87", "mmx", "avx512", "amx", "fp16" or NULL (then class:NAME) */
} x86_class;
x86_class x86_class_find(const char *s, size_t n);
/* §5.3: spill and reload opcodes. Returns the width moved, 0 if not one. */
unsigned x86_spill_width(const char *opc, bool *vec);
unsigned x86_reload_width(const char *opc, bool *vec);
/* §5.5: rematerialisable instructions. */
enum x86_remat { XR_NO, XR_IMM, XR_VZERO, XR_VONES, XR_LOAD, XR_LEA };
enum x86_remat x86_remat_kind(const char *opc);
/* The immediate an immediate move writes, after extension to its own
 * width (MOV32r0 = 0, MOV32r_1 = 0xffffffff, MOV64ri32 sign-extended...);
 * *bits gets the width the opcode writes. false if opc is not one. */
bool x86_imm_move(const char *opc, bool has_imm, int64_t imm, uint64_t *val, unsigned *bits);
/* Store of an immediate into memory (MOV32mi ...): its width, 0 if not. */
unsigned x86_store_imm_width(const char *opc);
/* §5.4: csr_64 preserves the rows of rbx rbp r12 r13 r14 r15 (and rsp). */
bool x86_csr64_preserves(unsigned id);
bool x86_is_test_rr(const char *opc);               /* TEST8rr .. TEST64rr */
bool x86_is_cmp_mi0(const char *opc);               /* CMP8mi .. CMP64mi32 */

/* ===== mir.c: one MIR instruction line ==================================== */
enum mo_kind {
    MO_REG,     /* physical (preg >= 0 or a pcat) or virtual (vreg != RVI_NONE) */
    MO_IMM,     /* integer immediate */
    MO_FI,      /* %stack.N */
    MO_FIXED,   /* %fixed-stack.N */
    MO_CPI,     /* %const.N (val: index, off: offset) */
    MO_GLOBAL,  /* @name [+ off] */
    MO_SYM,     /* &name */
    MO_BB,      /* %bb.N */
    MO_JTI,     /* %jump-table.N */
    MO_REGMASK, /* csr_64 or <regmask ...> */
    MO_SUBIDX,  /* %subreg.NAME */
    MO_OTHER
};
enum {
    MOF_IMPLICIT = 1u << 0,
    MOF_DEF = 1u << 1,
    MOF_DEAD = 1u << 2,
    MOF_KILLED = 1u << 3,
    MOF_UNDEF = 1u << 4,
    MOF_EARLY = 1u << 5,
    MOF_INTERNAL = 1u << 6,
    MOF_RENAMABLE = 1u << 7,
    MOF_DEBUG = 1u << 8
};
/* preg values of a physical operand that is not a machine register */
enum { PR_DROP = -1, PR_IGNORE = -2, PR_REFUSE = -3, PR_UNKNOWN = -4, PR_VIRT = -5 };
typedef struct mir_op {
    uint8_t kind;     /* enum mo_kind */
    uint8_t sub;      /* enum x86_sub of a register operand */
    uint16_t flags;   /* MOF_* */
    int16_t tied;     /* tied-def N, -1 */
    int16_t preg;     /* machine register id, or PR_* */
    uint32_t vreg;    /* virtual register number, RVI_NONE if physical */
    uint32_t cls;     /* class annotation (symbol id), RVI_NONE */
    int64_t val;      /* immediate, frame index, pool index, block number */
    int64_t off;      /* offset of @global + N, %const.N + N */
    uint32_t pos, len;/* text span of the operand (offsets into the source) */
    uint32_t name, nlen; /* register/symbol name span (without $, %, @, &) */
} mir_op;
typedef struct mir_mem {
    bool store, invariant;
    uint32_t bits;    /* access width, 0 unknown */
    uint8_t what;     /* MO_FI, MO_FIXED, MO_CPI, MO_GLOBAL (got), MO_OTHER */
    int64_t index;    /* frame index / pool index */
} mir_mem;
typedef struct mir_inst {
    uint32_t pos;        /* source offset of the instruction's first character */
    uint32_t line, col;  /* of the instruction's first character */
    int32_t slot;        /* slot index (dumps), -1 */
    uint32_t tag;        /* tag (the line of its DILocation), 0 none */
    uint32_t md;         /* !N of a `debug-location !N`, RVI_NONE */
    uint32_t dl_pos, dl_end; /* span of ", debug-location ..." that S1 replaces; dl_end 0: none */
    uint32_t ins_pos;    /* where S1 inserts a tag otherwise: after the last operand or attribute */
    bool dl_first;       /* the debug-location directly follows the opcode */
    bool items;          /* it has operands or attributes other than its debug-location */
    uint32_t opc;        /* opcode symbol */
    uint32_t op0, nops;  /* operands (explicit defs first) in f->ops */
    uint32_t mem0, nmem; /* memory operands in f->mems */
    uint16_t ndefs;      /* explicit defs (before '=') */
    uint16_t block;      /* index of its block in f->blocks */
    bool debug;          /* DBG_* : not numbered, not tagged */
} mir_inst;
typedef struct mir_block {
    int32_t num;         /* N of bb.N */
    uint32_t line;
    int32_t slot;        /* dumps: its slot index, -1 */
    uint32_t i0, n;      /* instructions f->insts[i0 .. i0+n) */
    uint32_t s0, ns;     /* successor block numbers in f->u32 */
    uint32_t l0, nl;     /* live-in machine regs (or PR_*) in f->u32 */
    bool ehpad;
} mir_block;
typedef struct mir_obj {
    int32_t id;
    bool spill, immutable, varsized;
    int64_t size, offset;
} mir_obj;
typedef struct mir_livein {
    int16_t preg;
    uint32_t name, nlen; /* the register's name span */
    uint32_t vreg;
} mir_livein;
enum { FF_FRAMEADDR = 1, FF_OPAQUESP = 2, FF_STACKMAP = 4, FF_PATCHPOINT = 8, FF_UNWINDINIT = 16,
       FF_EHRETURN = 32, FF_FUNCLETS = 64, FF_HASCALLS = 128 };
typedef struct mir_func {
    uint32_t name, nlen;   /* span of the function's name */
    uint32_t line;         /* of `name:` or of the dump's header */
    uint32_t body_line;    /* first line of the body */
    int64_t max_align;
    unsigned fflags;       /* FF_* */
    RV_VEC(uint32_t) vclass;   /* vreg number -> class symbol, RVI_NONE (registers:) */
    RV_VEC(mir_livein) liveins;
    RV_VEC(mir_obj) stack, fixed;
    RV_VEC(uint32_t) consts;   /* pool entry i: span start, span length pairs (value text) */
    RV_VEC(mir_block) blocks;
    RV_VEC(mir_inst) insts;
    RV_VEC(mir_op) ops;
    RV_VEC(mir_mem) mems;
    RV_VEC(uint32_t) u32;
    uint32_t max_vreg;     /* largest %N seen, RVI_NONE if none */
} mir_func;
/* A text and what its readers need to quote it. */
typedef struct mir_text {
    const char *file; /* for diagnostics */
    const char *src;
    size_t len;
} mir_text;
/* Per-module reading context: the text, interned names, diagnostics. */
typedef struct mir_reader {
    mir_text t;
    rv_symtab *syms;      /* shared by the texts of one import */
    ravel_diags *diags;
    bool dump;            /* dialect: a -print-before/after dump */
} mir_reader;
/* Reads the instruction at src[pos..end) (one line) into f. Returns false
 * after a diagnostic. line is its 1-based line, for messages. */
bool mir_read_inst(mir_reader *r, mir_func *f, uint32_t pos, uint32_t end, uint32_t line);
void mir_func_free(mir_func *f);
/* Accessors. */
static inline const mir_op *mir_ops(const mir_func *f, const mir_inst *in) { return f->ops.data + in->op0; }
static inline const mir_inst *mir_block_inst(const mir_func *f, const mir_block *b, uint32_t k) { return f->insts.data + b->i0 + k; }
const char *mir_opc(const mir_reader *r, const mir_inst *in);
bool mir_opc_is(const mir_reader *r, const mir_inst *in, const char *name);
bool mir_op_text_eq(const mir_text *ta, const mir_op *a, const mir_text *tb, const mir_op *b);
/* Line and column of a source offset (1-based). */
void mir_linecol(const mir_text *t, uint32_t pos, uint32_t *line, uint32_t *col);
/* Scans the integer at s[*i..n): optional '-', decimal. */
bool mir_scan_int(const char *s, size_t n, size_t *i, int64_t *v);

/* ===== mir_yaml.c: MIR files (tag.mir, post.mir) and the IR they carry ==== */
typedef struct mir_md {       /* !N = !DILocation(line: L, ...) of the IR part */
    uint32_t id, line;
} mir_md;
typedef struct mir_irfunc {   /* define ... @NAME(...) ... #A !dbg !S */
    uint32_t name, nlen;
    uint32_t sp;              /* !S, RVI_NONE */
    uint32_t attr;            /* attribute group #A, RVI_NONE */
} mir_irfunc;
typedef struct mir_module {
    mir_reader r;
    RV_VEC(mir_func *) funcs;
    /* the IR part (`--- |` block): */
    uint32_t ir_pos, ir_end;  /* span of its lines ("..." excluded), 0 0 if none */
    uint32_t max_md;          /* largest !N defined, 0 */
    uint32_t max_line;        /* largest `line: N` of its metadata */
    RV_VEC(mir_md) tags;      /* DILocations, sorted by id */
    RV_VEC(mir_irfunc) irfuncs;
    RV_VEC(uint32_t) attrs;   /* attribute group A: pairs (A, span start), span to end of line */
} mir_module;
/* One body line src[a, b) of a .mir body or of a dump (its slot index, if
 * any, already read into slot; -1 none): a block header, `successors:`,
 * `liveins:`, a comment or an instruction, added to f. */
bool mir_body_line(mir_reader *r, mir_func *f, uint32_t a, uint32_t b, uint32_t line, int32_t slot);
/* Reads a whole MIR file. Returns false after diagnostics (the module is
 * still freed by mir_module_free). */
bool mir_module_read(mir_module *m, const mir_text *t, rv_symtab *syms, ravel_diags *d);
void mir_module_free(mir_module *m);
mir_func *mir_module_func(const mir_module *m, const char *name, size_t n);
const mir_irfunc *mir_module_irfunc(const mir_module *m, const char *name, size_t n);
/* The tag of `debug-location !N`: the line of DILocation !N, 0 if none. */
uint32_t mir_module_md_line(const mir_module *m, uint32_t md);
/* The text of attribute group #A (to the end of its line), NULL if none. */
const char *mir_module_attrs(const mir_module *m, uint32_t a, size_t *len);

/* ===== mir_dump.c: the dumps llc prints (-print-before/-print-after) ===== */
typedef struct mir_dumpfn {
    uint32_t name, nlen;
    mir_func *before, *after; /* NULL if missing */
} mir_dumpfn;
typedef struct mir_dumps {
    mir_reader r;
    RV_VEC(mir_dumpfn) fns;
} mir_dumps;
bool mir_dumps_read(mir_dumps *d, const mir_text *t, rv_symtab *syms, ravel_diags *diags);
void mir_dumps_free(mir_dumps *d);
const mir_dumpfn *mir_dumps_func(const mir_dumps *d, const char *name, size_t n);

/* ===== tag.c: S1 ========================================================== */
/* Rewrites pre.mir's text so that every non-debug instruction of every
 * function body carries `debug-location !M`, M a fresh DILocation of line
 * base+k (k = 1, 2, ... in layout order per function; base the first
 * multiple of 1000 above every line the module's metadata names) in the
 * function's DISubprogram; the nodes are appended to the IR part. Returns a
 * malloc'd text (rv_free) or NULL after a diagnostic (a function without a
 * DISubprogram, a MIR file without an IR part). */
char *rvi_tag(const mir_text *pre, ravel_diags *d, size_t *outlen);

/* ===== proc.c: processes ================================================== */
enum rvi_proc_how { RVI_PROC_EXITED, RVI_PROC_SIGNALED, RVI_PROC_TIMEOUT, RVI_PROC_FAILED };
typedef struct rvi_proc {
    int how;        /* enum rvi_proc_how (FAILED: could not start) */
    int code;       /* exit status or signal */
    double seconds; /* wall-clock time */
    double cpu;     /* CPU seconds, user + system */
} rvi_proc;
/* Runs argv (argv[0] looked up on PATH) with stdin from /dev/null and
 * stdout/stderr into files (NULL: /dev/null), killing it after timeout_s
 * seconds (<= 0: no limit). No shell is involved. */
rvi_proc rvi_run(char *const argv[], const char *out, const char *err, double timeout_s);
/* The first of names found on PATH (or given as a path), into out. */
bool rvi_which(const char *const *names, char *out, size_t n);

/* ===== import.c: the function-level API ==================================== */
enum rvi_alloc { RVI_GREEDY, RVI_BASIC, RVI_FAST, RVI_PBQP, RVI_NALLOC };
const char *rvi_alloc_name(enum rvi_alloc a);
int rvi_alloc_find(const char *s); /* -1 if unknown */
enum rvi_outcome { RVI_IMPORTED, RVI_REFUSED, RVI_ERROR };
typedef struct rvi_opts {
    enum rvi_alloc alloc;
    bool full_machine;   /* the machine block of §5.1 whole, not cut down */
    bool comments;       /* MIR text as comments in FUNC.ra (default on) */
    const char *header;  /* a comment line for both files (commands), or NULL */
} rvi_opts;
typedef struct rvi_result {
    char *func;          /* function name */
    enum rvi_outcome outcome;
    char *reason;        /* refusal reason (docs/import-mapping.md §4) or the import error's rule (R5, S5, ...) */
    char *message;       /* FILE:LINE:COL: ... for errors and refusals, or NULL */
    char *orig, *alloc;  /* the two .ra texts when imported */
    uint32_t untagged;   /* originals placed without their tag (R28, R29) */
} rvi_result;
void rvi_result_free(rvi_result *r);
/* The three texts of one llc run. */
typedef struct rvi_texts {
    mir_text tag, dumps, post;
} rvi_texts;
/* Reads the texts once; then any function can be imported. */
typedef struct rvi_module rvi_module;
rvi_module *rvi_module_read(const rvi_texts *t, ravel_diags *d);  /* NULL after diagnostics */
void rvi_module_free(rvi_module *m);
uint32_t rvi_module_nfuncs(const rvi_module *m);
const char *rvi_module_func_name(const rvi_module *m, uint32_t i, size_t *n);
/* Imports function i: always fills *res (outcome, reason, texts). */
void rvi_import(const rvi_module *m, uint32_t i, const rvi_opts *o, rvi_result *res);
/* One function given the three texts (reads them, imports NAME). Returns
 * false if the texts cannot be read (diagnostics in d). */
bool rvi_import_func(const rvi_texts *t, const char *name, const rvi_opts *o, rvi_result *res, ravel_diags *d);

/* ===== pipeline.c: clang -> llc -> S1 -> llc -> texts ================
 * (docs/import-mapping.md §1.1) */
typedef struct rvi_llvm {
    int version;        /* major version, 0 if unknown */
    char clang[512], llc[512];
} rvi_llvm;
/* Finds clang and llc of `version` (0: 19, then 16, then 14, then the
 * unversioned ones). false with a message in why. */
bool rvi_llvm_find(int version, rvi_llvm *t, char *why, size_t n);
typedef struct rvi_pipe_opts {
    enum rvi_alloc alloc;
    int olevel;           /* -O level; -1: 2 (greedy, basic, pbqp) or 0 (fast) */
    double timeout;       /* per process, seconds */
    const char *workdir;  /* an existing directory for the intermediate files */
    const char *stem;     /* their base name */
    const char *const *cflags; /* extra clang arguments (-I, -D, ...), NULL-terminated, or NULL */
    bool ssa;             /* a .mir input is SSA (ravel export-mir): llc runs it from phi
                             elimination (-O0) or detect-dead-lanes (-O1 on) to the allocator first */
} rvi_pipe_opts;
enum rvi_pipe_status { RVI_PIPE_OK, RVI_PIPE_BAD_INPUT, RVI_PIPE_LLC };
typedef struct rvi_pipe {
    enum rvi_pipe_status status;
    char msg[1024];       /* why it failed */
    char *commands;       /* the commands run, one per line (rv_free) */
    char paths[3][4096];  /* of the texts: tag.mir, dumps, post.mir */
    rvi_texts texts;      /* read when status is OK (rv_free each src) */
    char *pre_text;       /* pre.mir (tag.mir's source), for refusing every function when llc fails */
    size_t pre_len;
    double t_clang, t_llc; /* CPU seconds of the clang and llc processes */
} rvi_pipe;
/* Compiles input (.c, .ll, an llc -stop-before .mir, or an SSA .mir with
 * o->ssa) and runs the
 * allocator, leaving WORKDIR/STEM.{ll,pre.mir,tag.mir,dumps.txt,post.mir}. */
void rvi_pipeline(const rvi_llvm *t, const char *input, const rvi_pipe_opts *o, rvi_pipe *r);
void rvi_pipe_free(rvi_pipe *r);

#endif
