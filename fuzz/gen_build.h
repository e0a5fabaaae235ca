/* gen_build.h - the function builder's context and the interface between
 * its files (internal to them; gen_func.h is what the rest of fuzz/ sees).
 *
 *   gen_func.c       the function: setup, signature, the region (which
 *                    construct comes next), the end; the guarantees
 *   gen_value.[ch]   values and scopes: the values whose def dominates
 *                    the current point, per type, and the picks among them
 *   gen_inst.c       instructions: operands under the satisfiability
 *                    budget (the rules S1-S7), the instruction kinds,
 *                    emitting, terminators, blocks and their parameters
 *   gen_structured.c structured control flow: diamonds, multi-way
 *                    branches, loops, `break`
 *   gen_tangle.c     tangles: arbitrary control flow (cfg any)
 *
 * No file calls another that calls it back: a construct fills its nested
 * regions through g->region (gen_func.c's region chooser).
 *
 * Every draw from g->s defines what the bytes of an input mean: moving code
 * between these files must keep every draw, in order (gen.h, "seed
 * compatibility").
 *
 * Cost: this runs once per fuzz execution. What is on the path of every
 * instruction (the draws, the picks, the budget, emitting) is inline, here
 * or in gen_value.h, or static in gen_inst.c; what crosses files is called
 * once per construct, block or terminator. docs/perf-log.md has the
 * measurements behind the choices. */
#ifndef RAVEL_GEN_BUILD_H
#define RAVEL_GEN_BUILD_H

#include "fuzz/gen_func.h"

enum { NTYPES = RV_GEN_MAX_CLASSES * 2 }; /* a value's type: class * 2 + ref */
enum { MAX_DEPTH = 6, MAX_PARAMS = 6, MAX_RET = 4 };
/* register ids: of any machine (a given one, rv_gen_opts.machine, may use any id < RV_MAX_REGS) */
enum { NREGS = RV_MAX_REGS };

/* The mnemonics (gen_inst.c: gen_mnemonics): callees (RAVEL_OP_CALL),
 * opaque ops, callsites, the GC poll (RAVEL_OP_OTHER). */
enum {
    NM_CALLEE = 0, NM_NCALLEE = 6,
    NM_OPAQUE = 6, NM_NOPAQUE = 10,
    NM_CALLSITE = 16, NM_NCALLSITE = 3,
    NM_GCPOLL = 19,
    NM_COUNT = 20,
};
#define NM_NONE RAVEL_NONE

/* A loop that may be left by `break`: a jump from inside its body to its
 * exit block X. X then has several predecessors, so the loop test reaches
 * it through a split block XS (no critical edge), and its params (types
 * from the header's scope, which every break point and XS can see) carry
 * values out. */
typedef struct loopctx {
    uint32_t exitb;
    uint32_t params[MAX_PARAMS];
    uint32_t n;
    struct loopctx *outer;
} loopctx;

/* The values in scope (gen_value.[ch]): list[t][0..n[t]) are the values
 * of type t whose def dominates the current point; the lists share one
 * slab (mem, room for cap values each): the caller's buffer (rv_gen_func's
 * stack, up to GEN_VALS_STACK values) until they outgrow it, then the
 * heap (owned). */
enum { GEN_VALS_STACK = NTYPES * 256 };
typedef struct gen_vals {
    uint32_t *list[NTYPES];
    uint32_t n[NTYPES];
    uint32_t cap;
    uint32_t *mem;
    bool owned;        /* mem is on the heap (rv_free it) */
    uint32_t nonempty; /* bit t: list[t] is not empty */
} gen_vals;

typedef struct gen {
    rv_gen_src *s;
    const rv_gen_opts *o;
    const rv_gen_mach *gm;
    ravel_func *f;
    unsigned feat;
    void (*region)(struct gen *g, uint32_t depth); /* fills a nested region (gen_func.c) */
    uint32_t target;    /* instructions to generate, <= max_insts */
    uint32_t ninsts;    /* emitted so far */
    uint32_t reserved;  /* promised to constructs still open */
    uint32_t nblocks;   /* created so far */
    uint32_t weight;    /* product of loop trip bounds around the current point */
    uint32_t max_weight;
    uint32_t exit_pct;  /* chance of an early ret / break per arm: fewer in big functions, so runs still go deep */
    gen_vals vals;                  /* the values in scope (gen_value.h) */
    struct loopctx *loop;           /* innermost enclosing loop that allows breaks */
    uint32_t nret;                  /* the function's result signature */
    uint32_t ret_cls[MAX_RET], ret_reg[MAX_RET];
    /* ctab[x]: the constraint a drawn byte x stands for (see draw): a
     * ravel_constraint, | CT_SPAN for an early def / late use. A byte below
     * far256 picks a value anywhere in scope (pressure). */
    uint8_t ctab[256];
    uint32_t far256;
    uint32_t window;                /* rv_gen_opts.window: far picks among the newest window values
                                       (UINT32_MAX for 0, all: one comparison per pick) */
    uint32_t free0[RV_GEN_MAX_CLASSES]; /* a fresh instruction's budget (see ginst.free) */
    /* the instruction being built (rule S2): fixed[r] == serial << 2 | points
     * means register r is fixed at those points; stale serials mean none */
    uint32_t serial;
    uint32_t gi_room;               /* instructions that fit in f's arrays without a check (gi_reserve) */
    uint32_t fixed[NREGS];
    bool resv[NREGS];               /* register r is reserved */
    uint32_t syms[NM_COUNT];        /* gen_mnemonics[i]'s symbol in f, RAVEL_NONE until used */
} gen;

/* ---- draws and budgets ---- */

static inline uint32_t below(gen *g, uint32_t n) { return rv_gen_below(g->s, n); }
static inline bool chance(gen *g, uint32_t pct) { return rv_gen_chance(g->s, pct); }
static inline bool has(const gen *g, unsigned feature) { return (g->feat & feature) != 0; }
/* Instructions left to emit (beyond those promised to open constructs). */
static inline uint32_t room(const gen *g)
{
    uint64_t used = (uint64_t)g->ninsts + g->reserved;
    return used < g->target ? (uint32_t)(g->target - used) : 0;
}
static inline uint32_t block_room(const gen *g)
{
    return g->nblocks < g->o->max_blocks ? g->o->max_blocks - g->nblocks : 0;
}

/* ---- one instruction under construction (gen_inst.c) ----
 * An instruction is built in place: gi_mark records where it starts and
 * gi_start resets its budget (gi_init does both); its defs
 * (each a new vreg) and then its uses are appended straight to f->ops, its
 * immediates to f->imms (with their position among the uses), and each
 * operand is added only if the budget (rules S1-S3) still holds. emit()
 * then writes the rv_inst; gi_abandon() drops an unfinished one. Only one
 * instruction is under construction at a time: nothing else may append
 * to f->ops, f->imms or f->vregs in between (values may be picked). */

/* ctab[x] (see draw): a ravel_constraint, | CT_SPAN for an early def / late use */
enum { CT_SPAN = 8 };

#define GI_DEFS 8
#define GI_USES 40
#define GI_IMMS 4

typedef struct gop {
    uint8_t kind;  /* ravel_constraint */
    uint8_t pos;   /* ravel_pos */
    uint16_t arg;  /* register (fixed) or use index (reuse) */
} gop;

typedef struct ginst {
    uint8_t op;              /* ravel_opcode */
    uint8_t iflags;          /* rv_inst.flags: RV_IF_SAFEPOINT, RV_IF_CLOBBERS (explicit list) */
    uint8_t span;            /* CT_SPAN, or 0 (S5: no early defs, no late uses) */
    uint32_t name;           /* mnemonic / callee: index into gen_mnemonics[], or NM_NONE */
    uint32_t first_op, first_imm, first_vreg, first_num; /* f's lengths when it began */
    uint32_t nd, nu, ni;
    uint32_t nclob;          /* explicit clobbers, at clob_room(g) until written */
    uint8_t dtype[GI_DEFS];  /* the defs' types (for emit) */
    /* budget (S3), per class: the registers still free at the early point
     * (A - |F| - N_E, low half) and at the late point (A - |F| - N_L, high
     * half), each with a guard bit (FREE_GUARD) that an overdraft clears */
    uint32_t free[RV_GEN_MAX_CLASSES];
} ginst;

#define FREE_GUARD 0x80008000u
#define FREE_E 1u          /* one register at the early point */
#define FREE_L (1u << 16)  /* one at the late point */

/* Marks where an instruction starts (so that gi_abandon can drop it). */
static inline void gi_mark(const gen *g, ginst *I)
{
    const ravel_func *f = g->f;
    I->first_op = f->ops.len;
    I->first_imm = f->imms.len;
    I->first_vreg = f->vregs.len;
    I->first_num = f->next_num;
}

void gen_gi_reserve(gen *g);

/* Starts an instruction whose start gi_mark has recorded. */
static inline void gi_start(gen *g, ginst *I, ravel_opcode op, uint32_t name)
{
    if (g->gi_room == 0) gen_gi_reserve(g);
    g->gi_room--;
    I->op = (uint8_t)op;
    I->name = name;
    I->iflags = 0;
    I->span = CT_SPAN;
    I->nd = I->nu = I->ni = 0; /* nclob: set with RV_IF_CLOBBERS */
    for (int c = 0; c < RV_GEN_MAX_CLASSES; c++) I->free[c] = g->free0[c];
    g->serial++; /* forgets the previous instruction's fixed registers */
}

static inline void gi_init(gen *g, ginst *I, ravel_opcode op, uint32_t name)
{
    gi_mark(g, I);
    gi_start(g, I, op, name);
}

/* Closes the open instruction (what ravel_inst_end does). */
static inline void end_inst(ravel_func *f)
{
    f->cur_inst = RAVEL_NONE;
    f->building_uses = false;
}

static inline gop fixed_op(uint32_t reg) { return (gop){RAVEL_C_FIXED, RAVEL_POS_DEFAULT, (uint16_t)reg}; }
static inline gop kind_op(ravel_constraint k) { return (gop){(uint8_t)k, RAVEL_POS_DEFAULT, 0}; }
static inline uint32_t pick_class(gen *g) { return below(g, g->gm->ncls); }
static inline bool maybe_ref(gen *g, uint32_t pct) { return has(g, RV_GEN_SAFEPOINTS) && chance(g, pct); }

/* ---- gen_inst.c: instructions, terminators, blocks ---- */

/* Sets up the instruction builder (constraint table, budgets, reserved
 * registers, symbols) from g->gm and g->feat; draws nothing. */
void gen_inst_init(gen *g);
/* A use of v (RAVEL_NONE: none) with a drawn constraint / with o. */
bool gen_use(gen *g, ginst *I, uint32_t v);
bool gen_use_as(gen *g, ginst *I, uint32_t v, gop o);
/* Writes a terminator built in I and leaves it open for its successors
 * (gen_add_succ), which end_inst closes. */
void gen_emit_begin(gen *g, const ginst *I);
void gen_add_succ(ravel_func *f, uint32_t block, const uint32_t *args, uint32_t nargs);
/* Up to n random non-terminators, while room is left. */
void gen_insts(gen *g, uint32_t n);
/* `args` at the entry; the keep-alive `out` at the end (pressure). */
void gen_args(gen *g);
void gen_keepalive(gen *g);
/* `dst = OP a, imm` and `v = const imm`, of class 0 (loop and fuel control:
 * always emitted). Return the def. */
uint32_t gen_emit_binop_imm(gen *g, ravel_opcode op, uint32_t a, int64_t imm);
uint32_t gen_emit_const(gen *g, int64_t imm);
/* Terminators: `ret` with the signature's values; `jump target(args)`, with
 * arguments picked for params (gen_pick_args; swap: two same-typed params
 * sometimes get each other). */
void gen_emit_ret(gen *g);
void gen_pick_args(gen *g, const uint32_t *params, uint32_t n, uint32_t *args, bool swap);
void gen_emit_jump_args(gen *g, uint32_t target, const uint32_t *args, uint32_t n);
void gen_emit_jump(gen *g, uint32_t target, const uint32_t *params, uint32_t n, bool swap);
/* Blocks: a new one (bN); a vreg of type t outside an instruction (a block
 * parameter); n params of types in scope for block b (returns how many);
 * opens block b with its params in scope. */
uint32_t gen_new_block(gen *g);
uint32_t gen_new_vreg(gen *g, uint32_t t);
uint32_t gen_make_params(gen *g, uint32_t b, uint32_t n, uint32_t *params);
void gen_begin_block(gen *g, uint32_t b, const uint32_t *params, uint32_t n);

/* ---- gen_structured.c and gen_tangle.c: constructs at the open block,
 * each true if the options and budgets allowed one (then the block where
 * the region continues is open) ---- */

bool gen_diamond(gen *g, uint32_t depth);
bool gen_loop(gen *g, uint32_t depth);
bool gen_tangle(gen *g, uint32_t depth);

#endif
