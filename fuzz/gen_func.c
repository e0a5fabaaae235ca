/* gen_func.c - the generator's function builder: a structured CFG (with
 * rv_gen_opts.cfg == RV_GEN_CFG_ANY, arbitrary control flow mixed in: see
 * "tangles"), SSA values drawn from dominating definitions, and
 * instructions with random
 * but satisfiable constraints, written straight into the function's arrays
 * (the builder's invariants kept; see "emitting").
 *
 * Requires: a machine from gen.c (rv_gen_mach) and clamped options.
 * Guarantees (every input):
 *   - valid under ravel_validate(f, RAVEL_VALIDATE_SSA): one terminator per
 *     block, the entry has no params and no preds, every vreg is defined
 *     once and used only where its definition dominates, argument counts
 *     and classes match their parameters, and there are NO CRITICAL EDGES:
 *     a multi-successor `br` only targets fresh blocks with one predecessor
 *     (arms, loop bodies, loop exits, back-edge and exit split blocks,
 *     a tangle's edge blocks, exit split and dispatch blocks); joins, loop
 *     headers, tangle nodes and exits, and the exits of loops left by
 *     `break` are entered by single-successor `jump`s only.
 *   - shapes: straight runs, diamonds and 3-4-way `br` (with or without a
 *     condition, args to arm params), joins with params, top- and
 *     bottom-tested loops (counter or condition-less, carried params with
 *     swaps, nested), early `ret` and `break` (also out of inner loops);
 *     with cfg any also tangles: multi-entry (irreducible) cycles, split
 *     self-loops and critical edges, wide br into cycles, nested in and
 *     around all of the above (about a third of the functions at the
 *     default options are irreducible; tests/gen counts the shapes).
 *   - every block is reachable, every path ends in `ret`.
 *   - termination: loops are bounded. A counter loop's header parameter
 *     starts at 0 and is incremented by one on the only back edge, and the
 *     loop continues only while it is below a small constant K; a
 *     condition-less `br B, X` takes successor (k mod 2) on its k-th
 *     execution, so it exits at least every second time; a tangle's
 *     cycles are bounded by its fuel parameter (see "tangles"). The product of
 *     trip bounds of nested loops is capped so that the whole run stays
 *     well under the interpreter's default step limit.
 *   - original instructions <= max_insts, blocks <= max_blocks: mandatory
 *     instructions (terminators and loop control) are reserved when a
 *     construct opens, optional ones are emitted only while room is left.
 *
 * SATISFIABILITY RULES (what makes an allocation exist for every
 * instruction, whatever the allocator did before it: any value may be
 * spilled and reloaded, so only the instruction itself can be impossible).
 * For an instruction, per class c with A_c allocatable registers:
 *   S1 (points) A use occupies a location at the early point; a late use at
 *      both points; an early def at both points; a late def at the late
 *      point. Non-fixed `reg` operands and `reuse` defs need a register.
 *   S2 (fixed) Two operands fixed to the same register R must not share a
 *      point, except several early uses of the SAME vreg (same value). An
 *      early use and a late def may both be fixed to R (call argument and
 *      result in r0). One vreg may be used in two fixed registers.
 *   S3 (count) Let F_c be the allocatable registers of class c named by any
 *      fixed operand of the instruction (reserved ones do not count: they
 *      are never allocated), NE_c / NL_c the non-fixed register operands
 *      at the early / late point (counted per operand, even when two name
 *      the same vreg). Then |F_c| + NE_c <= A_c and |F_c| + NL_c <= A_c.
 *      Sufficient: give the spanning operands (late uses, early defs)
 *      distinct registers outside F_c, then the early uses and the late
 *      defs the remaining ones; F_c is disjoint from all of them.
 *   S4 (reuse) reuse(K) is a late def whose use K is an early, non-fixed
 *      `reg` use of the same class; no two defs reuse the same K. The def
 *      takes use K's register, which S3 already counted at the early
 *      point; at the late point it is counted as a def.
 *   S5 (clobbers and safepoints) An instruction with a clobber set
 *      (explicit, or a `call`'s default) or a `safepoint` has no late uses
 *      and no early defs: both would have to survive step 3 (clobbered
 *      registers become unknown; at a safepoint .ref copies outside the
 *      stackmap die, and a use must be read from where it is). Early uses
 *      in clobbered registers and defs fixed to clobbered registers are
 *      fine (read before, written after the clobber).
 *   S6 (stack, any) `stack` and `any` operands can always take a fresh slot
 *      and need no register.
 *   S7 `ret` and `br` operands follow the same rules; `copy` has exactly
 *      one def and one vreg use.
 * The code below tracks S1-S3 per instruction in a small budget (free
 * registers per class and point, fixed registers stamped with the
 * instruction's serial number: see budget) and only adds an operand that
 * keeps them; gen_sat.c re-checks the rules on the finished function with
 * independent code.
 *
 * COST: this runs once per fuzz execution (measure with tests/gen/gen_speed,
 * CPU time or under callgrind). An instruction is built in place, nothing
 * is allocated per instruction, value picks are O(1), the decisions about
 * one operand come from one four-byte read, and random data steers few
 * branches where a select does (a select must stay a select). The history
 * and the figures: docs/perf-log.md. */
#include "fuzz/gen_func.h"

#include <stdlib.h>
#include <string.h>

enum { NTYPES = RV_GEN_MAX_CLASSES * 2 }; /* a value's type: class * 2 + ref */
enum { MAX_DEPTH = 6, MAX_PARAMS = 6, MAX_RET = 4 };
enum { PT_E = 1, PT_L = 2 }; /* program points of an instruction */
/* register ids: of any machine (a given one, rv_gen_opts.machine, may use any id < RV_MAX_REGS) */
enum { NREGS = RV_MAX_REGS };

/* Mnemonics (RAVEL_OP_OTHER) and callees (RAVEL_OP_CALL), interned once
 * per function on first use (gen.syms). */
static const char *const mnemonics[] = {
    "f", "g", "alloc", "print", "memcpy", "hash",                                     /* callees */
    "load", "store", "lea", "fma", "select", "cas", "getsp", "vshuf", "cvt", "bswap", /* opaque */
    "statepoint", "patchpoint", "deopt",                                              /* callsites */
    "gcpoll",
};
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

typedef struct gen {
    rv_gen_src *s;
    const rv_gen_opts *o;
    const rv_gen_mach *gm;
    ravel_func *f;
    unsigned feat;
    uint32_t target;    /* instructions to generate, <= max_insts */
    uint32_t ninsts;    /* emitted so far */
    uint32_t reserved;  /* promised to constructs still open */
    uint32_t nblocks;   /* created so far */
    uint32_t weight;    /* product of loop trip bounds around the current point */
    uint32_t max_weight;
    uint32_t exit_pct;  /* chance of an early ret / break per arm: fewer in big functions, so runs still go deep */
    /* avail[t][0..navail[t]): the values of type t whose def dominates the
     * current point; the six lists share one allocation (avail_mem, room for
     * avail_cap values each) */
    uint32_t *avail[NTYPES];
    uint32_t navail[NTYPES];
    uint32_t avail_cap;
    uint32_t *avail_mem;
    uint32_t nonempty;              /* bit t: avail[t] is not empty */
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
    uint32_t syms[NM_COUNT];        /* mnemonics[i]'s symbol in f, RAVEL_NONE until used */
} gen;

static inline uint32_t below(gen *g, uint32_t n) { return rv_gen_below(g->s, n); }
static inline bool chance(gen *g, uint32_t pct) { return rv_gen_chance(g->s, pct); }
static inline bool has(const gen *g, unsigned feature) { return (g->feat & feature) != 0; }
static uint32_t room(const gen *g)
{
    uint64_t used = (uint64_t)g->ninsts + g->reserved;
    return used < g->target ? (uint32_t)(g->target - used) : 0;
}
static uint32_t block_room(const gen *g) { return g->nblocks < g->o->max_blocks ? g->o->max_blocks - g->nblocks : 0; }

/* ---- available values (SSA scopes) ---- */

typedef struct scope { uint32_t len[NTYPES]; } scope;

static void scope_save(const gen *g, scope *sc)
{
    for (int t = 0; t < NTYPES; t++) sc->len[t] = g->navail[t];
}
static void scope_restore(gen *g, const scope *sc)
{
    g->nonempty = 0;
    for (int t = 0; t < NTYPES; t++) {
        g->navail[t] = sc->len[t];
        g->nonempty |= (sc->len[t] != 0) << t;
    }
}
/* Room for cap values of each type. */
static void avail_grow(gen *g, uint32_t cap)
{
    uint32_t *mem = rv_xmalloc(sizeof(uint32_t) * NTYPES * cap);
    for (int t = 0; t < NTYPES; t++) {
        if (g->navail[t]) memcpy(mem + (size_t)t * cap, g->avail[t], sizeof(uint32_t) * g->navail[t]);
        g->avail[t] = mem + (size_t)t * cap;
    }
    free(g->avail_mem);
    g->avail_mem = mem;
    g->avail_cap = cap;
}

static uint32_t vtype(const gen *g, uint32_t v)
{
    const rv_vreg *r = &g->f->vregs.data[v];
    return r->cls * 2u + (r->ref ? 1u : 0u);
}
static inline void make_avail_t(gen *g, uint32_t v, uint32_t t)
{
    if (g->navail[t] == g->avail_cap) avail_grow(g, 2 * g->avail_cap);
    g->avail[t][g->navail[t]++] = v;
    g->nonempty |= 1u << t;
}
static void make_avail(gen *g, uint32_t v) { make_avail_t(g, v, vtype(g, v)); }

/* n - 1 - near[min(n, 4)][k]: one of the newest values (k random). */
static const uint8_t near_tab[5][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 1, 0, 1}, {0, 1, 2, 0}, {0, 1, 2, 3}};

/* A value of type t: with probability `pressure` anywhere in scope (long
 * live ranges, many values live at once; with a window, anywhere among the
 * newest window values of the type), else one of the newest four.
 * Two bytes decide: the first far or near, the second which value (two
 * more when far and n > 256). */
static inline uint32_t pick_of_type_u(gen *g, uint32_t t, uint32_t u)
{
    uint32_t n = g->navail[t];
    const uint32_t *av = g->avail[t];
    if (n > g->window) { /* far picks among the newest window values only */
        av += n - g->window;
        n = g->window;
    }
    bool far = (u >> 8) < g->far256; /* a coin toss at pressure 50: selected, not branched on */
    if (n > 256 && far) return av[below(g, n)]; /* n first: rarely true, well predicted */
    uint32_t near = n - 1 - near_tab[n < 4 ? n : 4][u & 3], anywhere = ((u & 255) * n) >> 8;
    return av[near ^ ((near ^ anywhere) & (0u - far))]; /* far ? anywhere : near, by mask */
}
static inline uint32_t pick_of_type(gen *g, uint32_t t) { return pick_of_type_u(g, t, rv_gen_u16(g->s)); }

/* For a set of candidate types (bit t: type t), type_weight[mask] is their
 * total weight (3 per non-reference type, even bits; 1 per reference type,
 * odd bits) and type_at[mask][x], x < type_weight[mask], the type of weight
 * unit x (the types in increasing order, each repeated by its weight): a
 * weighted pick without a data-dependent loop. */
static const uint8_t type_weight[1u << NTYPES] = {
    0, 3, 1, 4, 3, 6, 4, 7, 1, 4, 2, 5, 4, 7, 5, 8,
    3, 6, 4, 7, 6, 9, 7, 10, 4, 7, 5, 8, 7, 10, 8, 11,
    1, 4, 2, 5, 4, 7, 5, 8, 2, 5, 3, 6, 5, 8, 6, 9,
    4, 7, 5, 8, 7, 10, 8, 11, 5, 8, 6, 9, 8, 11, 9, 12,
};
static const uint8_t type_at[1u << NTYPES][12] = {
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0},
    {2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 2, 2, 2, 0, 0, 0, 0, 0, 0},
    {1, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 2, 2, 2, 0, 0, 0, 0, 0},
    {3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0},
    {1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0},
    {2, 2, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 2, 2, 2, 3, 0, 0, 0, 0, 0},
    {1, 2, 2, 2, 3, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 2, 2, 2, 3, 0, 0, 0, 0},
    {4, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 4, 4, 4, 0, 0, 0, 0, 0, 0},
    {1, 4, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 4, 4, 4, 0, 0, 0, 0, 0},
    {2, 2, 2, 4, 4, 4, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 2, 2, 2, 4, 4, 4, 0, 0, 0},
    {1, 2, 2, 2, 4, 4, 4, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 2, 2, 2, 4, 4, 4, 0, 0},
    {3, 4, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 3, 4, 4, 4, 0, 0, 0, 0, 0},
    {1, 3, 4, 4, 4, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 3, 4, 4, 4, 0, 0, 0, 0},
    {2, 2, 2, 3, 4, 4, 4, 0, 0, 0, 0, 0},
    {0, 0, 0, 2, 2, 2, 3, 4, 4, 4, 0, 0},
    {1, 2, 2, 2, 3, 4, 4, 4, 0, 0, 0, 0},
    {0, 0, 0, 1, 2, 2, 2, 3, 4, 4, 4, 0},
    {5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0},
    {1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0, 0},
    {2, 2, 2, 5, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 2, 2, 2, 5, 0, 0, 0, 0, 0},
    {1, 2, 2, 2, 5, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 2, 2, 2, 5, 0, 0, 0, 0},
    {3, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 3, 5, 0, 0, 0, 0, 0, 0, 0},
    {1, 3, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 3, 5, 0, 0, 0, 0, 0, 0},
    {2, 2, 2, 3, 5, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 2, 2, 2, 3, 5, 0, 0, 0, 0},
    {1, 2, 2, 2, 3, 5, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 2, 2, 2, 3, 5, 0, 0, 0},
    {4, 4, 4, 5, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 4, 4, 4, 5, 0, 0, 0, 0, 0},
    {1, 4, 4, 4, 5, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 4, 4, 4, 5, 0, 0, 0, 0},
    {2, 2, 2, 4, 4, 4, 5, 0, 0, 0, 0, 0},
    {0, 0, 0, 2, 2, 2, 4, 4, 4, 5, 0, 0},
    {1, 2, 2, 2, 4, 4, 4, 5, 0, 0, 0, 0},
    {0, 0, 0, 1, 2, 2, 2, 4, 4, 4, 5, 0},
    {3, 4, 4, 4, 5, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 3, 4, 4, 4, 5, 0, 0, 0, 0},
    {1, 3, 4, 4, 4, 5, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 3, 4, 4, 4, 5, 0, 0, 0},
    {2, 2, 2, 3, 4, 4, 4, 5, 0, 0, 0, 0},
    {0, 0, 0, 2, 2, 2, 3, 4, 4, 4, 5, 0},
    {1, 2, 2, 2, 3, 4, 4, 4, 5, 0, 0, 0},
    {0, 0, 0, 1, 2, 2, 2, 3, 4, 4, 4, 5},
};


/* A type of class cls (-1: any) and ref-ness ref (-1: either) that has a
 * value in scope, or NTYPES when there is none. Non-reference types weigh
 * three times as much as reference types; a single candidate type costs no
 * draw. */
static inline uint32_t type_mask(const gen *g, int cls, int ref)
{
    uint32_t mask = g->nonempty;
    if (cls >= 0) mask &= 3u << (2 * cls);
    if (ref >= 0) mask &= (ref ? 0x2au : 0x15u);
    return mask;
}
static inline uint32_t pick_type(gen *g, int cls, int ref)
{
    uint32_t mask = type_mask(g, cls, ref);
    if (!mask) return NTYPES;
    uint32_t k = mask & (mask - 1) ? below(g, type_weight[mask]) : 0;
    return type_at[mask][k];
}

/* A value of one of the types in mask (not empty) from three random bytes
 * r (the type, far or near, which value); *t gets its type. */
static inline uint32_t pick_in(gen *g, uint32_t mask, uint32_t r, uint32_t *t)
{
    *t = type_at[mask][((r >> 16) * type_weight[mask]) >> 8];
    return pick_of_type_u(g, *t, r & 0xffffu);
}

/* A value of class cls and ref-ness ref (as pick_type), or RAVEL_NONE. */
static inline uint32_t pick_val(gen *g, int cls, int ref)
{
    uint32_t t = pick_type(g, cls, ref);
    return t == NTYPES ? RAVEL_NONE : pick_of_type(g, t);
}

static int64_t pick_imm(gen *g)
{
    uint32_t k = below(g, 10);
    if (k < 6) return (int64_t)below(g, 17) - 8;
    if (k < 8) return (int64_t)below(g, 256);
    return (int64_t)rv_gen_u64(g->s);
}

/* ---- one instruction: operands under the satisfiability budget ----
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
    uint32_t name;           /* mnemonic / callee: index into mnemonics[], or NM_NONE */
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

/* Room for gi_room more instructions in f->ops, f->vregs and f->imms (at
 * least one): checked once per many instructions instead of three times
 * per instruction. */
static void gi_reserve(gen *g)
{
    ravel_func *f = g->f;
    rv_vec_reserve(f->ops, GI_DEFS + GI_USES);
    rv_vec_reserve(f->vregs, GI_DEFS);
    rv_vec_reserve(f->imms, GI_IMMS);
    uint32_t n = (f->ops.cap - f->ops.len) / (GI_DEFS + GI_USES), nv = (f->vregs.cap - f->vregs.len) / GI_DEFS,
             ni = (f->imms.cap - f->imms.len) / GI_IMMS;
    if (nv < n) n = nv;
    g->gi_room = ni < n ? ni : n;
}

/* Starts an instruction whose start gi_mark has recorded. */
static inline void gi_start(gen *g, ginst *I, ravel_opcode op, uint32_t name)
{
    if (g->gi_room == 0) gi_reserve(g);
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

/* Drops everything the unfinished instruction appended. */
static void gi_abandon(gen *g, const ginst *I)
{
    ravel_func *f = g->f;
    f->ops.len = I->first_op;
    f->imms.len = I->first_imm;
    f->vregs.len = I->first_vreg;
    f->next_num = I->first_num;
}

/* Points an operand occupies (S1): [def][ravel_pos]. */
static const uint8_t op_pts[2][3] = {
    [0] = {[RAVEL_POS_DEFAULT] = PT_E, [RAVEL_POS_EARLY] = PT_E, [RAVEL_POS_LATE] = PT_E | PT_L},
    [1] = {[RAVEL_POS_DEFAULT] = PT_L, [RAVEL_POS_EARLY] = PT_E | PT_L, [RAVEL_POS_LATE] = PT_L},
};
/* What a register operand takes from the budget at the points it occupies
 * (op_pts): [def][ravel_pos]. */
static const uint32_t pos_cost[2][3] = {
    [0] = {[RAVEL_POS_DEFAULT] = FREE_E, [RAVEL_POS_EARLY] = FREE_E, [RAVEL_POS_LATE] = FREE_E | FREE_L},
    [1] = {[RAVEL_POS_DEFAULT] = FREE_L, [RAVEL_POS_EARLY] = FREE_E | FREE_L, [RAVEL_POS_LATE] = FREE_L},
};
/* Which kinds need a register (S6: `any` and `stack` cost nothing), as a
 * mask: the kind is random, so it is not branched on. */
static const uint32_t kind_needs_reg[5] = {
    [RAVEL_C_REG] = ~0u, [RAVEL_C_ANY] = 0, [RAVEL_C_STACK] = 0, [RAVEL_C_FIXED] = ~0u, [RAVEL_C_REUSE] = ~0u};

/* S2/S3: if operand o (a def or a use) of class c keeps the budget, counts
 * it and returns true (`any` and `stack` always do: they cost nothing). A
 * new allocatable fixed register is taken at both points (it is in F); a
 * non-fixed one at its own points. Stricter than S2: a register
 * already fixed at a point is never named again at that point, not even
 * for the same vreg. */
static inline bool budget(gen *g, ginst *I, uint32_t c, const gop *o, bool def)
{
    uint32_t cost = pos_cost[def][o->pos] & kind_needs_reg[o->kind], x, r = 0, cur = 0, pts = 0;
    if (o->kind == RAVEL_C_FIXED) {
        pts = op_pts[def][o->pos];
        r = o->arg;
        x = g->fixed[r];
        cur = (x >> 2) == g->serial ? x & 3u : 0u;
        if (cur & pts) return false;
        cost = cur || g->resv[r] ? 0 : FREE_E | FREE_L; /* reserved ones are never allocated */
    }
    x = I->free[c] - cost;
    if ((x & FREE_GUARD) != FREE_GUARD) return false;
    I->free[c] = x;
    if (o->kind == RAVEL_C_FIXED) g->fixed[r] = g->serial << 2 | cur | pts;
    return true;
}

/* A register of class c for fixed(R), from one byte: reserved ones a
 * quarter of the time (when the class has any). */
static inline uint32_t pick_fixed_reg(gen *g, uint32_t c)
{
    const rv_gen_mach *gm = g->gm;
    uint32_t y = below(g, 256);
    if (!gm->nres[c]) return gm->alloc[c][(y * gm->nalloc[c]) >> 8];
    if (y < 64) return gm->res[c][gm->nres[c] == 2 ? y & 1 : 0];
    return gm->alloc[c][(y - 64) * gm->nalloc[c] / 192];
}

/* Draws a constraint from one byte (ctab): mostly `reg`; `fixed`, `any`,
 * `stack` and the non-default positions when enabled (never early defs or
 * late uses on clobbering instructions or safepoints: S5). */
static inline gop draw_x(gen *g, const ginst *I, uint32_t c, bool def, uint32_t x)
{
    uint32_t t = g->ctab[x];
    gop o = {(uint8_t)(t & 7u), RAVEL_POS_DEFAULT, 0};
    if (o.kind == RAVEL_C_FIXED) o.arg = (uint16_t)pick_fixed_reg(g, c);
    if (t & I->span) o.pos = def ? RAVEL_POS_EARLY : RAVEL_POS_LATE;
    return o;
}
static inline gop draw(gen *g, const ginst *I, uint32_t c, bool def) { return draw_x(g, I, c, def, below(g, 256)); }

/* The constraint table of draw, from the features: of 256 bytes, 36 mean
 * `fixed`, 31 `any`, 15 `stack`, the rest `reg` (features off: `reg`);
 * the top 20 also mean the non-default position. */
static void init_ctab(gen *g)
{
    memset(g->ctab, RAVEL_C_REG, sizeof g->ctab);
    if (has(g, RV_GEN_FIXED)) memset(g->ctab, RAVEL_C_FIXED, 36);
    if (has(g, RV_GEN_ANY_STACK)) {
        memset(g->ctab + 36, RAVEL_C_ANY, 67 - 36);
        memset(g->ctab + 67, RAVEL_C_STACK, 82 - 67);
    }
    if (has(g, RV_GEN_EARLY_LATE)) memset(g->ctab + 236, RAVEL_C_REG | CT_SPAN, 256 - 236);
}

/* Places *o under the budget: as drawn, else `reg` at the default
 * position, else `any` (when enabled). False if nothing fits. */
static inline bool place(gen *g, ginst *I, uint32_t c, bool def, gop *o)
{
    if (budget(g, I, c, o, def)) return true;
    *o = (gop){RAVEL_C_REG, RAVEL_POS_DEFAULT, 0};
    if (budget(g, I, c, o, def)) return true;
    if (!has(g, RV_GEN_ANY_STACK)) return false;
    o->kind = RAVEL_C_ANY;
    return true;
}

/* rv_operand.flags of a use / def at a ravel_pos, as add_operand in
 * func.c computes them. */
static const uint8_t op_flags[2][3] = {
    [0] = {[RAVEL_POS_DEFAULT] = 0, [RAVEL_POS_EARLY] = RV_OPF_EXPLICIT_POS,
           [RAVEL_POS_LATE] = RV_OPF_EXPLICIT_POS | RV_OPF_LATE},
    [1] = {[RAVEL_POS_DEFAULT] = RV_OPF_DEF | RV_OPF_LATE, [RAVEL_POS_EARLY] = RV_OPF_DEF | RV_OPF_EXPLICIT_POS,
           [RAVEL_POS_LATE] = RV_OPF_DEF | RV_OPF_EXPLICIT_POS | RV_OPF_LATE},
};

/* Appends an operand (room reserved by gi_start). */
static inline void push_op(ravel_func *f, uint32_t vreg, gop o, bool def)
{
    f->ops.data[f->ops.len++] = (rv_operand){vreg, RAVEL_LOC_NONE, o.kind, op_flags[def][o.pos], o.arg};
}

/* A vreg of type t (class * 2 + ref) with the next number (outside an
 * instruction: a block parameter). */
static inline uint32_t new_vreg(gen *g, uint32_t t)
{
    ravel_func *f = g->f;
    g->gi_room = 0; /* it may take the room gi_reserve counted */
    rv_vec_reserve(f->vregs, 1);
    f->vregs.data[f->vregs.len] = (rv_vreg){f->next_num++, (uint8_t)(t / 2), (t & 1) != 0, true};
    return f->vregs.len++;
}

/* Adds a def (a new vreg of class c) with constraint o, if it fits. Defs
 * precede uses. */
static inline bool add_def_as(gen *g, ginst *I, uint32_t c, bool ref, gop o)
{
    if (I->nd >= GI_DEFS || I->nu || !place(g, I, c, true, &o)) return false;
    ravel_func *f = g->f;
    uint32_t t = c * 2u + (ref ? 1u : 0u), v = f->vregs.len++; /* room reserved by gi_start */
    f->vregs.data[v] = (rv_vreg){f->next_num++, (uint8_t)c, ref, true};
    push_op(f, v, o, true);
    I->dtype[I->nd++] = (uint8_t)t;
    return true;
}
static inline bool add_def(gen *g, ginst *I, uint32_t c, bool ref) { return add_def_as(g, I, c, ref, draw(g, I, c, true)); }

/* Adds a use of v (of class c) with constraint o, if it fits. Always
 * inlined: without it gcc -O3 keeps it out of line and inlines less of the
 * operand pipeline around it (docs/perf-log.md). */
static inline __attribute__((always_inline)) bool add_use_c(gen *g, ginst *I, uint32_t v, uint32_t c, gop o)
{
    if (I->nu >= GI_USES || !place(g, I, c, false, &o)) return false;
    push_op(g->f, v, o, false);
    I->nu++;
    return true;
}
static inline bool add_use_as(gen *g, ginst *I, uint32_t v, gop o)
{
    return v != RAVEL_NONE && add_use_c(g, I, v, g->f->vregs.data[v].cls, o);
}
/* A use of v (RAVEL_NONE: none) with a drawn constraint. */
static inline bool add_use(gen *g, ginst *I, uint32_t v)
{
    if (v == RAVEL_NONE) return false;
    uint32_t c = g->f->vregs.data[v].cls;
    return add_use_c(g, I, v, c, draw(g, I, c, false));
}
/* A use of a value picked as pick_val does, with a drawn constraint: four
 * bytes decide the type, far or near, which value and the constraint. */
static inline bool use_pick(gen *g, ginst *I, int cls, int ref)
{
    uint32_t mask = type_mask(g, cls, ref), t;
    if (!mask) return false;
    uint32_t r = rv_gen_u32(g->s);
    uint32_t v = pick_in(g, mask, r >> 8, &t);
    return add_use_c(g, I, v, t >> 1, draw_x(g, I, t >> 1, false, r & 255u));
}

static gop fixed_op(uint32_t reg) { return (gop){RAVEL_C_FIXED, RAVEL_POS_DEFAULT, (uint16_t)reg}; }
static gop kind_op(ravel_constraint k) { return (gop){(uint8_t)k, RAVEL_POS_DEFAULT, 0}; }

/* An immediate after the uses added so far. */
static inline void add_imm(gen *g, ginst *I, int64_t x)
{
    if (I->ni >= GI_IMMS) return;
    rv_imm *im = &g->f->imms.data[g->f->imms.len++];
    im->value = x;
    im->pos = (uint16_t)(I->nu + I->ni);
    I->ni++;
}

/* S4: turns one late `reg` def into reuse(K) of an early `reg` use of its
 * class (the budget is unchanged: both are non-fixed late registers). */
static void make_reuse(gen *g, ginst *I, uint32_t x);
static inline void maybe_reuse(gen *g, ginst *I)
{
    if (!has(g, RV_GEN_REUSE) || !I->nd || !I->nu) return;
    uint32_t x = rv_gen_u16(g->s); /* 35%; which def */
    if ((x >> 8) < 90) make_reuse(g, I, x);
}
static void make_reuse(gen *g, ginst *I, uint32_t x)
{
    const ravel_func *f = g->f;
    rv_operand *ops = f->ops.data + I->first_op, *d = &ops[((x & 255) * I->nd) >> 8];
    if (d->kind != RAVEL_C_REG || !rv_op_is_late(d)) return;
    uint32_t dc = f->vregs.data[d->vreg].cls, k = below(g, I->nu);
    for (uint32_t i = 0; i < I->nu; i++, k = k + 1 == I->nu ? 0 : k + 1) {
        const rv_operand *u = &ops[I->nd + k];
        if (u->kind != RAVEL_C_REG || rv_op_is_late(u) || f->vregs.data[u->vreg].cls != dc) continue;
        bool taken = false;
        for (uint32_t j = 0; j < I->nd; j++)
            if (ops[j].kind == RAVEL_C_REUSE && ops[j].arg == k) taken = true;
        if (taken) continue;
        d->kind = RAVEL_C_REUSE;
        d->arg = (uint16_t)k;
        return;
    }
}

/* Where the clobber list of the instruction being built goes: the free room
 * of f->u32, which write_inst takes over (nothing else appends to f->u32
 * while an instruction is built), so the list is never copied. */
static inline uint32_t *clob_room(gen *g)
{
    rv_vec_reserve(g->f->u32, NREGS);
    return g->f->u32.data + g->f->u32.len;
}

/* A random explicit clobber list (possibly empty): per class a random
 * subset of the allocatable registers (density: 0 none, 1 a quarter,
 * 2 half, 3 three quarters), a reserved one rarely. Sorted by register id. */
static void random_clobbers(gen *g, ginst *I, uint32_t density)
{
    const rv_gen_mach *gm = g->gm;
    uint32_t *clob = clob_room(g), n = 0;
    I->iflags |= RV_IF_CLOBBERS;
    I->span = 0;
    for (uint32_t c = 0; c < gm->ncls && density; c++) {
        uint64_t bits = rv_gen_bits(g->s);
        if (density == 1) bits &= rv_gen_bits(g->s);
        if (density == 3) bits |= rv_gen_bits(g->s);
        if (gm->nalloc[c] < 64) bits &= (1ull << gm->nalloc[c]) - 1;
        for (; bits; bits &= bits - 1) clob[n++] = gm->alloc[c][__builtin_ctzll(bits)]; /* the set bits, in order */
        if (gm->nres[c] && chance(g, 5)) clob[n++] = gm->res[c][0];
    }
    /* Sorted by register id, as the builders and the reader keep clobber
     * lists (the checker compares them entry by entry). The random machine
     * draws them in id order already; a given machine's preference order
     * and reserved registers need not be (insertion sort: n is small, and a
     * sorted list costs one comparison per entry). */
    for (uint32_t i = 1; i < n; i++) {
        uint32_t x = clob[i], j = i;
        for (; j > 0 && clob[j - 1] > x; j--) clob[j] = clob[j - 1];
        clob[j] = x;
    }
    I->nclob = n;
}

/* ---- emitting: straight into the function's arrays ----
 * The generator's instructions are valid by construction, so they do not go
 * through ravel_inst_begin/def/use/imm/succ (their argument checks and the
 * per-call interning of names cost more than the generation itself). This
 * keeps the builder's guarantees (ir/func.c): the instruction is appended to
 * f->insts and to the open block; its defs then uses are in f->ops (put
 * there by add_def/add_use); immediates carry their position among the
 * uses; a clobber list is sorted and unique in f->u32; new vregs take fresh
 * numbers (next_num) with their class known; successors are appended to
 * f->succs with their arguments in f->u32. The vreg number map is never
 * built on this path (vmap_built stays false). A terminator is left open in
 * the builder (f->cur_inst) while its successors are added (add_succ), then
 * closed (end_inst). Requires: a block is open, no instruction is. */

static uint32_t name_sym(gen *g, uint32_t nm)
{
    if (g->syms[nm] == RAVEL_NONE) g->syms[nm] = rv_sym_intern(&g->f->syms, mnemonics[nm], strlen(mnemonics[nm]));
    return g->syms[nm];
}

/* Writes the instruction built in I (its operands and immediates are in
 * place); returns its id. */
static inline uint32_t write_inst(gen *g, const ginst *I)
{
    ravel_func *f = g->f;
    rv_vec_reserve(f->insts, 1);
    uint32_t id = f->insts.len;
    uint32_t name = I->name == NM_NONE ? RAVEL_NONE : name_sym(g, I->name);
    rv_inst *in = &f->insts.data[id];
    *in = (rv_inst){.op = I->op, .flags = I->iflags, .ndefs = (uint16_t)I->nd, .nuses = (uint16_t)I->nu,
                    .nimms = (uint16_t)I->ni, .first_op = I->first_op, .first_imm = I->first_imm, .name = name};
    if (I->op == RAVEL_OP_JUMP || I->op == RAVEL_OP_BR) in->u.succ.first = f->succs.len;
    if (I->iflags & RV_IF_CLOBBERS) {
        in->first_clob = f->u32.len; /* the list is there already (clob_room) */
        in->nclob = I->nclob;
        f->u32.len += I->nclob;
    }
    f->insts.len++;
    f->blocks.data[f->cur_block].ninsts++;
    g->ninsts++;
    return id;
}

/* Writes a terminator and leaves it open for its successors. */
static inline void emit_begin(gen *g, const ginst *I)
{
    uint32_t id = write_inst(g, I);
    g->f->cur_inst = id;
    g->f->building_uses = I->nu + I->ni > 0;
}

/* Closes the open instruction (what ravel_inst_end does). */
static inline void end_inst(ravel_func *f)
{
    f->cur_inst = RAVEL_NONE;
    f->building_uses = false;
}

/* A successor of the open terminator, with arguments (what ravel_inst_succ
 * does, unchecked). */
static void add_succ(ravel_func *f, uint32_t block, const uint32_t *args, uint32_t nargs)
{
    rv_succ s = {block, f->u32.len, nargs};
    rv_vec_reserve(f->u32, nargs);
    if (nargs) memcpy(f->u32.data + f->u32.len, args, nargs * sizeof *args);
    f->u32.len += nargs;
    rv_vec_push(f->succs, s);
    f->insts.data[f->cur_inst].u.succ.n++;
}

/* Emits a non-terminator; its defs come into scope. Returns the first def's
 * vreg (or RAVEL_NONE). */
static inline uint32_t emit(gen *g, const ginst *I)
{
    write_inst(g, I); /* and closed at once: the builder state stays "no instruction open" */
    for (uint32_t i = 0; i < I->nd; i++) make_avail_t(g, I->first_vreg + i, I->dtype[i]); /* defs: consecutive vregs */
    return I->nd ? I->first_vreg : RAVEL_NONE;
}

/* ---- instruction kinds (each returns false if it could not be built;
 * the caller then drops it and emits a const, which always fits) ---- */

static inline uint32_t pick_class(gen *g) { return below(g, g->gm->ncls); }
static inline bool maybe_ref(gen *g, uint32_t pct) { return has(g, RV_GEN_SAFEPOINTS) && chance(g, pct); }

static void inst_const(gen *g)
{
    ginst I;
    gi_init(g, &I, RAVEL_OP_CONST, NM_NONE);
    uint32_t c = pick_class(g);
    if (!add_def(g, &I, c, maybe_ref(g, 10))) add_def_as(g, &I, c, false, kind_op(RAVEL_C_REG));
    add_imm(g, &I, pick_imm(g));
    emit(g, &I);
}

/* `add`..`le` (opb: a byte that picks which). The second input is an
 * immediate a quarter of the time, else a value, usually of the class. */
static bool inst_arith(gen *g, ginst *I, uint32_t opb)
{
    gi_start(g, I, (ravel_opcode)(RAVEL_OP_ADD + ((opb * (RAVEL_OP_LE - RAVEL_OP_ADD + 1)) >> 8)), NM_NONE);
    uint32_t mask = type_mask(g, -1, -1), t;
    if (!mask) return false;
    /* r: the first input (three bytes), ref (4%); r2: the def's and the use's
     * constraints, the second input (< 64: an immediate, 25%; else 80% of the
     * rest: a value of the same class) */
    uint64_t rr = rv_gen_bits(g->s); /* both in one read */
    uint32_t r = (uint32_t)(rr >> 32), r2 = (uint32_t)rr;
    uint32_t v0 = pick_in(g, mask, r >> 8, &t), c = t >> 1, x = (r2 >> 8) & 255u;
    bool ref = has(g, RV_GEN_SAFEPOINTS) && (r & 255u) < 10;
    if (!add_def_as(g, I, c, ref, draw_x(g, I, c, true, r2 >> 24))) return false;
    if (!add_use_c(g, I, v0, c, draw_x(g, I, c, false, (r2 >> 16) & 255u))) add_imm(g, I, pick_imm(g));
    if (x < 64 || !use_pick(g, I, x < 64 + 154 ? (int)c : -1, -1)) add_imm(g, I, pick_imm(g));
    maybe_reuse(g, I);
    emit(g, I);
    return true;
}

static bool inst_copy(gen *g, ginst *I)
{
    gi_start(g, I, RAVEL_OP_COPY, NM_NONE);
    uint32_t v = pick_val(g, -1, -1);
    if (v == RAVEL_NONE) return false;
    const rv_vreg *r = &g->f->vregs.data[v];
    if (!add_def(g, I, r->cls, r->ref) || !add_use(g, I, v)) return false;
    emit(g, I);
    return true;
}

static bool inst_out(gen *g, ginst *I)
{
    gi_start(g, I, RAVEL_OP_OUT, NM_NONE);
    uint32_t n = 1 + below(g, 2 + g->o->pressure / 16);
    for (uint32_t i = 0; i < n; i++) use_pick(g, I, -1, -1);
    if (!I->nu) return false;
    emit(g, I);
    return true;
}

/* Pressure on purpose: an `out` at the end of the function of up to
 * pressure/4 values drawn from the whole scope, so that they are all live
 * from their definitions (often at the top, before loops) to the end. */
static void inst_keepalive(gen *g)
{
    ginst I;
    gi_init(g, &I, RAVEL_OP_OUT, NM_NONE);
    uint32_t n = 1 + below(g, 1 + g->o->pressure / 4);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t t = pick_type(g, -1, -1);
        if (t == NTYPES) break;
        add_use(g, &I, g->avail[t][below(g, g->navail[t])]);
    }
    if (I.nu) emit(g, &I);
    else gi_abandon(g, &I);
}

/* `call NAME`: arguments in the first registers of their class, results
 * in the first registers, extra arguments on the stack; the default or an
 * explicit clobber set (possibly empty); sometimes a safepoint. */
static bool inst_call(gen *g, ginst *I)
{
    const rv_gen_mach *gm = g->gm;
    gi_start(g, I, RAVEL_OP_CALL, NM_CALLEE + below(g, NM_NCALLEE));
    I->span = 0; /* S5 */
    uint32_t mode = below(g, 10);
    if (mode >= 6) random_clobbers(g, I, mode == 9 ? 0 : 1 + below(g, 3));
    if (has(g, RV_GEN_SAFEPOINTS) && chance(g, 30)) I->iflags |= RV_IF_SAFEPOINT;
    uint32_t next[RV_GEN_MAX_CLASSES] = {0};
    uint32_t nres = below(g, 3);
    for (uint32_t i = 0; i < nres; i++) {
        uint32_t c = pick_class(g);
        bool ref = maybe_ref(g, 30);
        if (has(g, RV_GEN_FIXED) && next[c] < gm->nalloc[c]) add_def_as(g, I, c, ref, fixed_op(gm->alloc[c][next[c]++]));
        else add_def(g, I, c, ref);
    }
    memset(next, 0, sizeof next);
    uint32_t nargs = below(g, 6);
    uint32_t mask = type_mask(g, -1, -1);
    for (uint32_t i = 0; i < nargs && mask; i++) {
        uint32_t r = rv_gen_u32(g->s), t; /* the value (three bytes); fixed 85%, else stack or any */
        uint32_t v = pick_in(g, mask, r >> 8, &t), c = t >> 1, y = r & 255u;
        gop w = kind_op(RAVEL_C_REG);
        if (has(g, RV_GEN_FIXED) && next[c] < gm->nalloc[c] && y < 218)
            w = fixed_op(gm->alloc[c][next[c]++]);
        else if (has(g, RV_GEN_ANY_STACK))
            w = kind_op((y & 1) ? RAVEL_C_STACK : RAVEL_C_ANY);
        add_use_c(g, I, v, c, w);
    }
    emit(g, I);
    return true;
}

/* An opaque op: 0-3 defs, 0-5 uses, 0-2 immediates, every constraint kind;
 * sometimes explicit clobbers or a safepoint. */
static bool inst_opaque(gen *g, ginst *I)
{
    /* r: the mnemonic, clobbers (8%), safepoint (8%), defs 0-3; r2: uses 0-5, immediates 0-2 */
    uint32_t r = rv_gen_u32(g->s), r2 = rv_gen_u16(g->s);
    gi_start(g, I, RAVEL_OP_OTHER, NM_OPAQUE + (((r >> 24) * NM_NOPAQUE) >> 8));
    if (has(g, RV_GEN_CALLS) && ((r >> 16) & 255u) < 21) random_clobbers(g, I, below(g, 3));
    if (has(g, RV_GEN_SAFEPOINTS) && ((r >> 8) & 255u) < 21) {
        I->iflags |= RV_IF_SAFEPOINT;
        I->span = 0;
    }
    uint32_t nd = ((r & 255u) * 4) >> 8, nu = ((r2 >> 8) * 6) >> 8, ni = ((r2 & 255u) * 3) >> 8;
    for (uint32_t i = 0; i < nd; i++) { /* class, ref (10%), constraint: one read */
        uint32_t d = rv_gen_u32(g->s), c = ((d >> 24) * g->gm->ncls) >> 8;
        bool ref = has(g, RV_GEN_SAFEPOINTS) && ((d >> 16) & 255u) < 26;
        add_def_as(g, I, c, ref, draw_x(g, I, c, true, d & 255u));
    }
    for (uint32_t i = 0; i < nu; i++) {
        if (ni && chance(g, 30)) {
            add_imm(g, I, pick_imm(g));
            ni--;
        }
        use_pick(g, I, -1, -1);
    }
    for (; ni; ni--) add_imm(g, I, pick_imm(g));
    maybe_reuse(g, I);
    emit(g, I);
    return true;
}

/* A callsite-like op: per class, values in many distinct fixed registers
 * (allocatable and reserved), one vreg in two of them, extra state on the
 * stack or anywhere, results fixed, clobbers, sometimes a safepoint. */
static bool inst_callsite(gen *g, ginst *I)
{
    const rv_gen_mach *gm = g->gm;
    gi_start(g, I, RAVEL_OP_OTHER, NM_CALLSITE + below(g, NM_NCALLSITE));
    if (chance(g, 50)) {
        I->iflags |= RV_IF_CLOBBERS; /* the machine default, written out */
        I->span = 0;
        if (gm->nclob) memcpy(clob_room(g), gm->clob, gm->nclob * sizeof *gm->clob);
        I->nclob = gm->nclob;
    } else {
        random_clobbers(g, I, 1 + below(g, 3));
    }
    if (has(g, RV_GEN_SAFEPOINTS) && chance(g, 50)) I->iflags |= RV_IF_SAFEPOINT;
    uint32_t nres = 1 + below(g, 2);
    for (uint32_t i = 0; i < nres; i++) {
        uint32_t c = pick_class(g);
        gop w = fixed_op(gm->alloc[c][below(g, gm->nalloc[c])]);
        add_def_as(g, I, c, maybe_ref(g, 20), w);
    }
    for (uint32_t c = 0; c < gm->ncls; c++) {
        uint32_t nregs = gm->nalloc[c] + gm->nres[c];
        uint32_t n = below(g, (nregs < 6 ? nregs : 6) + 1), k = below(g, nregs), dup = RAVEL_NONE;
        for (uint32_t i = 0; i < n; i++, k = k + 1 == nregs ? 0 : k + 1) {
            uint32_t reg = k < gm->nalloc[c] ? gm->alloc[c][k] : gm->res[c][k - gm->nalloc[c]];
            uint32_t mask = type_mask(g, (int)c, -1), r = rv_gen_u32(g->s), t; /* dup 40%, else a value */
            if (!mask) break;
            uint32_t v = dup != RAVEL_NONE && (r & 255u) < 102 ? dup : pick_in(g, mask, r >> 8, &t);
            if (dup == RAVEL_NONE) dup = v; /* passed again in a later register */
            add_use_c(g, I, v, c, fixed_op(reg));
        }
    }
    if (has(g, RV_GEN_ANY_STACK)) {
        uint32_t n = below(g, 4);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t v = pick_val(g, -1, -1); /* two draws: in this order whatever the compiler */
            add_use_as(g, I, v, kind_op(chance(g, 50) ? RAVEL_C_STACK : RAVEL_C_ANY));
        }
    }
    emit(g, I);
    return true;
}

/* A GC poll: a safepoint with a few uses. */
static bool inst_gcpoll(gen *g, ginst *I)
{
    gi_start(g, I, RAVEL_OP_OTHER, NM_GCPOLL);
    I->iflags = RV_IF_SAFEPOINT;
    I->span = 0;
    uint32_t n = below(g, 3);
    for (uint32_t i = 0; i < n; i++) use_pick(g, I, -1, 1);
    emit(g, I);
    return true;
}

/* One random non-terminator. Needs room for one instruction. */
static void gen_inst(gen *g)
{
    ginst I;
    gi_mark(g, &I);
    uint32_t u = rv_gen_u16(g->s), x = ((u >> 8) * 100) >> 8; /* the kind; the low byte: arith's op */
    bool ok;
    if (x < 40) ok = inst_arith(g, &I, u & 255);
    else if (x < 48) ok = false; /* const */
    else if (x < 56) ok = has(g, RV_GEN_COPY) && inst_copy(g, &I);
    else if (x < 64) ok = inst_out(g, &I);
    else if (x < 74) ok = has(g, RV_GEN_CALLS) && inst_call(g, &I);
    else if (x < 88) ok = inst_opaque(g, &I);
    else if (x < 93) ok = has(g, RV_GEN_CALLS) && has(g, RV_GEN_FIXED) && inst_callsite(g, &I);
    else ok = has(g, RV_GEN_SAFEPOINTS) && inst_gcpoll(g, &I);
    if (ok) return;
    gi_abandon(g, &I);
    inst_const(g);
}

/* Up to n instructions, while room is left. Each gen_inst writes exactly
 * one instruction and leaves g->reserved alone, so the room is known up
 * front. */
static void gen_insts(gen *g, uint32_t n)
{
    uint32_t r = room(g);
    if (n > r) n = r;
    for (uint32_t i = 0; i < n; i++) gen_inst(g);
}

/* ---- terminators ---- */

static void emit_ret(gen *g)
{
    ginst I;
    gi_init(g, &I, RAVEL_OP_RET, NM_NONE);
    for (uint32_t j = 0; j < g->nret; j++) {
        if (chance(g, 10)) {
            add_imm(g, &I, pick_imm(g));
            continue;
        }
        uint32_t v = pick_val(g, (int)g->ret_cls[j], -1);
        gop w = g->ret_reg[j] != RAVEL_NONE ? fixed_op(g->ret_reg[j]) : kind_op(RAVEL_C_REG);
        if (v == RAVEL_NONE) { /* nothing of that class in scope: any value, in a register */
            v = pick_val(g, -1, -1);
            w = kind_op(RAVEL_C_REG);
        }
        if (v == RAVEL_NONE || !add_use_as(g, &I, v, w)) add_imm(g, &I, pick_imm(g));
    }
    emit_begin(g, &I);
    end_inst(g->f);
}

/* Arguments for params (vreg ids) from the values in scope of the same
 * type; swap: sometimes two same-typed params get each other (loops). */
static void pick_args(gen *g, const uint32_t *params, uint32_t n, uint32_t *args, bool swap)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t t = vtype(g, params[i]);
        args[i] = pick_of_type(g, t);
    }
    if (!swap || n < 2 || !chance(g, 50)) return;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++)
            if (vtype(g, params[i]) == vtype(g, params[j])) {
                args[i] = params[j];
                args[j] = params[i];
                return;
            }
}

/* `jump target(args)`. */
static void emit_jump_args(gen *g, uint32_t target, const uint32_t *args, uint32_t n)
{
    ginst I;
    gi_init(g, &I, RAVEL_OP_JUMP, NM_NONE);
    emit_begin(g, &I);
    add_succ(g->f, target, args, n);
    end_inst(g->f);
}

static void emit_jump(gen *g, uint32_t target, const uint32_t *params, uint32_t n, bool swap)
{
    uint32_t args[MAX_PARAMS + 1];
    pick_args(g, params, n, args, swap);
    emit_jump_args(g, target, args, n);
}

/* A new block named bN, N its creation number (formatted by hand: this is
 * on the hot path). */
static uint32_t new_block(gen *g)
{
    char buf[16], *p = buf + sizeof buf;
    uint32_t n = g->nblocks++;
    do *--p = (char)('0' + n % 10); while ((n /= 10) != 0);
    *--p = 'b';
    ravel_func *f = g->f; /* what ravel_block_new does with a (new, unique) name */
    rv_vec_reserve(f->blocks, 1);
    rv_block *b = &f->blocks.data[f->blocks.len];
    memset(b, 0, sizeof *b);
    b->name = rv_sym_intern(&f->syms, p, (size_t)(buf + sizeof buf - p));
    b->first_param = f->u32.len;
    return f->blocks.len++;
}

/* Creates n params of types in scope for block b; returns how many. */
static uint32_t make_params(gen *g, uint32_t b, uint32_t n, uint32_t *params)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t t = pick_type(g, -1, -1);
        if (t == NTYPES) break;
        params[k] = new_vreg(g, t);
        ravel_block_add_param(g->f, b, params[k]);
        k++;
    }
    return k;
}

static void begin_block(gen *g, uint32_t b, const uint32_t *params, uint32_t n)
{
    ravel_block_begin(g->f, b);
    for (uint32_t i = 0; i < n; i++) make_avail(g, params[i]);
}

/* ---- structured control flow ---- */

/* `break`: jump to the exit of the innermost breakable loop, or sometimes
 * of an outer one, with arguments from the current scope. */
static void emit_break(gen *g)
{
    loopctx *l = g->loop;
    while (l->outer && chance(g, 30)) l = l->outer;
    emit_jump(g, l->exitb, l->params, l->n, false);
}

/* Sets up a breakable loop's exit params from the current scope. */
static void loop_breakable(gen *g, loopctx *l, uint32_t exitb)
{
    l->exitb = exitb;
    l->n = has(g, RV_GEN_PARAMS) ? make_params(g, exitb, below(g, 3), l->params) : 0;
    l->outer = g->loop;
    g->loop = l;
}

static void gen_region(gen *g, uint32_t depth);
static bool gen_tangle(gen *g, uint32_t depth);

/* Diamond / multi-way: the open block ends in `br` (condition, or none)
 * to k fresh arm blocks (one predecessor each, sometimes with params fed
 * by the br); each arm is a region ending in `jump J(args)` or, for all
 * but one, sometimes an early `ret`. J continues the open region. */
static bool gen_diamond(gen *g, uint32_t depth)
{
    uint32_t k = has(g, RV_GEN_MULTIWAY) && chance(g, 30) ? 3 + below(g, 2) : 2;
    while (k > 2 && (block_room(g) < k + 1 || room(g) < k + 1)) k--;
    if (block_room(g) < k + 1 || room(g) < k + 1) return false;
    uint32_t cond = RAVEL_NONE;
    if (!has(g, RV_GEN_MULTIWAY) || !chance(g, 20)) {
        cond = pick_val(g, -1, -1);
        if (cond == RAVEL_NONE && !has(g, RV_GEN_MULTIWAY)) return false;
    }
    uint32_t arms[4], aparams[4][2], nap[4] = {0}, aargs[4][2];
    for (uint32_t i = 0; i < k; i++) {
        arms[i] = new_block(g);
        if (has(g, RV_GEN_PARAMS) && chance(g, 20)) {
            nap[i] = make_params(g, arms[i], 1 + below(g, 2), aparams[i]);
            pick_args(g, aparams[i], nap[i], aargs[i], false);
        }
    }
    uint32_t join = new_block(g), jparams[MAX_PARAMS], njp = 0;
    if (has(g, RV_GEN_PARAMS)) njp = make_params(g, join, below(g, 2 + g->o->pressure / 25), jparams);
    ginst I;
    gi_init(g, &I, RAVEL_OP_BR, NM_NONE);
    if (cond != RAVEL_NONE) add_use(g, &I, cond);
    emit_begin(g, &I);
    for (uint32_t i = 0; i < k; i++) add_succ(g->f, arms[i], aargs[i], nap[i]);
    end_inst(g->f);
    g->reserved += k;
    uint32_t must = below(g, k);
    scope sc;
    scope_save(g, &sc);
    for (uint32_t i = 0; i < k; i++) {
        begin_block(g, arms[i], aparams[i], nap[i]);
        gen_region(g, depth + 1);
        g->reserved--;
        if (i != must && chance(g, g->exit_pct)) {
            if (g->loop && chance(g, 60)) emit_break(g);
            else emit_ret(g);
        } else {
            emit_jump(g, join, jparams, njp, false);
        }
        scope_restore(g, &sc);
    }
    begin_block(g, join, jparams, njp);
    return true;
}

/* The trip bound of a new loop: 1..4, capped by the nesting budget. */
static uint32_t pick_trip(gen *g)
{
    uint32_t k = 1 + below(g, 4);
    while (k > 1 && (uint64_t)g->weight * k > g->max_weight) k--;
    return k;
}

/* Emits `dst = OP a, imm` (loop control: the use of `a` must not be lost,
 * or the counter would stop counting). Drawn constraints first; if either
 * operand did not fit, plain `reg` operands, which always do (S3 with
 * A >= 1: one early use, one late def). */
static uint32_t emit_binop_imm(gen *g, ravel_opcode op, uint32_t a, int64_t imm)
{
    ginst I;
    gi_init(g, &I, op, NM_NONE);
    if (!add_def(g, &I, 0, false) || !add_use(g, &I, a)) {
        gi_abandon(g, &I);
        gi_init(g, &I, op, NM_NONE);
        add_def_as(g, &I, 0, false, kind_op(RAVEL_C_REG));
        add_use_as(g, &I, a, kind_op(RAVEL_C_REG));
    }
    add_imm(g, &I, imm);
    maybe_reuse(g, &I);
    return emit(g, &I);
}

/* `v = const imm` of class 0 (a loop counter's or a tangle's fuel's start). */
static uint32_t emit_const(gen *g, int64_t imm)
{
    ginst I;
    gi_init(g, &I, RAVEL_OP_CONST, NM_NONE);
    if (!add_def(g, &I, 0, false)) add_def_as(g, &I, 0, false, kind_op(RAVEL_C_REG));
    add_imm(g, &I, imm);
    return emit(g, &I);
}

/* Loop header params: [counter] + carried values; the preheader (the open
 * block) passes their initial values. Returns the count. */
static uint32_t loop_enter(gen *g, uint32_t head, bool counter, uint32_t *params)
{
    uint32_t n = 0, init[MAX_PARAMS + 1];
    if (counter) {
        init[0] = emit_const(g, 0);
        params[0] = new_vreg(g, 0);
        ravel_block_add_param(g->f, head, params[0]);
        n = 1;
    }
    if (has(g, RV_GEN_PARAMS)) n += make_params(g, head, below(g, 2 + g->o->pressure / 25), params + n);
    pick_args(g, params + counter, n - counter, init + counter, false);
    emit_jump_args(g, head, init, n);
    return n;
}

/* Back edge from the open latch: counter + 1 (already computed in next)
 * and carried values (swapped sometimes). */
static void loop_back(gen *g, uint32_t head, const uint32_t *params, uint32_t n, uint32_t next)
{
    uint32_t args[MAX_PARAMS + 1];
    uint32_t c = next != RAVEL_NONE ? 1 : 0;
    if (c) args[0] = next;
    pick_args(g, params + c, n - c, args + c, true);
    emit_jump_args(g, head, args, n);
}

/* Ends the open block with the loop's exit test: `c = lt cnt, K; br c, stay,
 * leave` (or `eq` with the successors swapped), or condition-less
 * `br stay, leave` when there is no counter. */
static void loop_test(gen *g, uint32_t cnt, uint32_t trip, uint32_t stay, uint32_t leave)
{
    bool swap = false;
    uint32_t c = RAVEL_NONE;
    if (cnt != RAVEL_NONE) {
        swap = chance(g, 50);
        c = emit_binop_imm(g, swap ? RAVEL_OP_EQ : RAVEL_OP_LT, cnt, trip);
    }
    ginst I; /* after the compare: one instruction is built at a time */
    gi_init(g, &I, RAVEL_OP_BR, NM_NONE);
    if (c != RAVEL_NONE) add_use(g, &I, c);
    emit_begin(g, &I);
    add_succ(g->f, swap ? leave : stay, NULL, 0);
    add_succ(g->f, swap ? stay : leave, NULL, 0);
    end_inst(g->f);
}

/* Top-tested loop: pre -> H(params); H: insts; test; br B, X; B..latch:
 * region; [cnt' = add cnt, 1]; jump H(...). X sees what H defined.
 * Breakable: the test goes to a split block XS -> X(params). */
static void gen_loop_top(gen *g, uint32_t depth, bool counter, bool breakable)
{
    uint32_t trip = counter ? pick_trip(g) : 1;
    uint32_t head = new_block(g), body = new_block(g), exitb = new_block(g);
    uint32_t split = breakable ? new_block(g) : RAVEL_NONE;
    uint32_t params[MAX_PARAMS + 1];
    g->reserved += (counter ? 4 : 2) + (breakable ? 1 : 0); /* [lt] br, [add] jump, [XS jump] */
    uint32_t n = loop_enter(g, head, counter, params);
    begin_block(g, head, params, n);
    gen_insts(g, below(g, 4));
    g->reserved -= counter ? 2 : 1;
    loop_test(g, counter ? params[0] : RAVEL_NONE, trip, body, breakable ? split : exitb);
    scope sc;
    scope_save(g, &sc);
    loopctx lc;
    if (breakable) loop_breakable(g, &lc, exitb);
    begin_block(g, body, NULL, 0);
    g->weight *= trip;
    gen_region(g, depth + 1);
    g->reserved -= counter ? 2 : 1;
    uint32_t next = counter ? emit_binop_imm(g, RAVEL_OP_ADD, params[0], 1) : RAVEL_NONE;
    loop_back(g, head, params, n, next);
    g->weight /= trip;
    scope_restore(g, &sc);
    if (breakable) {
        g->loop = lc.outer;
        begin_block(g, split, NULL, 0);
        g->reserved--;
        emit_jump(g, exitb, lc.params, lc.n, false);
        begin_block(g, exitb, lc.params, lc.n);
    } else {
        begin_block(g, exitb, NULL, 0);
    }
}

/* Bottom-tested loop: pre -> H(params); H..latch: region; [cnt' = add cnt,
 * 1; c = lt cnt', K]; br BK, X; BK: jump H(...) (the split block that keeps
 * the back edge from being critical). X sees what the latch sees; if
 * breakable, the test goes to XS -> X(params) and X sees what H saw. */
static void gen_loop_bottom(gen *g, uint32_t depth, bool counter, bool breakable)
{
    uint32_t trip = counter ? pick_trip(g) : 2;
    uint32_t head = new_block(g), back = new_block(g), exitb = new_block(g);
    uint32_t split = breakable ? new_block(g) : RAVEL_NONE;
    uint32_t params[MAX_PARAMS + 1];
    g->reserved += (counter ? 4 : 2) + (breakable ? 1 : 0); /* [add lt] br, jump, [XS jump] */
    uint32_t n = loop_enter(g, head, counter, params);
    begin_block(g, head, params, n);
    scope sc;
    scope_save(g, &sc);
    loopctx lc;
    if (breakable) loop_breakable(g, &lc, exitb);
    g->weight *= trip;
    if (g->o->cfg == RV_GEN_CFG_ANY && chance(g, 25)) gen_tangle(g, depth + 1); /* its E: this loop's header */
    gen_region(g, depth + 1);
    g->reserved -= counter ? 3 : 1;
    uint32_t next = counter ? emit_binop_imm(g, RAVEL_OP_ADD, params[0], 1) : RAVEL_NONE;
    loop_test(g, next, trip, back, breakable ? split : exitb);
    begin_block(g, back, NULL, 0);
    g->reserved -= 1;
    loop_back(g, head, params, n, next);
    g->weight /= trip;
    if (breakable) {
        g->loop = lc.outer;
        begin_block(g, split, NULL, 0);
        g->reserved--;
        emit_jump(g, exitb, lc.params, lc.n, false);
        scope_restore(g, &sc);
        begin_block(g, exitb, lc.params, lc.n);
    } else {
        begin_block(g, exitb, NULL, 0);
    }
}

/* A loop if the budgets allow: counter loops need params, condition-less
 * ones need multiway. */
static bool gen_loop(gen *g, uint32_t depth)
{
    bool can_counter = has(g, RV_GEN_PARAMS), can_free = has(g, RV_GEN_MULTIWAY);
    if (!has(g, RV_GEN_LOOPS) || (!can_counter && !can_free) || block_room(g) < 3) return false;
    bool counter = can_counter && (!can_free || chance(g, 75));
    bool breakable = block_room(g) >= 4 && chance(g, 40);
    if (room(g) < (counter ? 6u : 3u) + (breakable ? 1u : 0u)) return false;
    bool top = chance(g, 50);
    if (!counter && !top && g->weight * 2 > g->max_weight) return false;
    if (top) gen_loop_top(g, depth, counter, breakable);
    else gen_loop_bottom(g, depth, counter, breakable);
    return true;
}

/* ---- any control flow: tangles (rv_gen_opts.cfg == RV_GEN_CFG_ANY) ----
 * A tangle is a small arbitrary CFG of k "nodes" N0..Nk-1, entered from
 * the open block E by one terminator (a jump to N0, or a br, with or
 * without a condition, to several entry nodes: a cycle entered at two of
 * them is irreducible) and left through one exit block X, which continues
 * the region. A node is a region of its own (straight code, diamonds,
 * natural loops, nested tangles; calls and safepoints) whose last block
 * ends with edges to any nodes - forward, backward to an earlier node, or
 * to itself - and to X. So irreducible cycles nest in and around natural
 * loops, and E is often a loop header, a block of a loop body or a node of
 * an outer tangle (the shape where the cycle's common dominator is itself
 * re-entered by a retreating edge).
 *
 * The shape is drawn first (tg_shape: edges between node indices), then
 * made legal the way compilers lower such code:
 *   - critical edges: an edge from a block with several successors to a
 *     block with several predecessors is split by an edge block (one
 *     predecessor, a `jump` on; some take block parameters from the br and
 *     forward them, some compute the decremented fuel). docs/format.md section 4
 *     forbids critical edges, so the CFG before splitting has them and the
 *     one generated has their split form: many small forwarding blocks.
 *   - SSA: every node and X take block parameters. Only what E's scope
 *     holds dominates every node (E dominates the tangle), so a node sees
 *     E's scope, its own parameters and what it defines; values computed in
 *     a cycle reach other nodes and X only as arguments.
 *   - termination: when the shape has a backward edge (index order; every
 *     cycle has one), parameter 0 of every node is a fuel counter, F
 *     (1..4) on entry. A node with a backward edge is "gated": its last
 *     block tests the fuel (`eq`/`ne fuel, 0`, or `lt fuel, 1`) and leaves
 *     for X through its exit split block XS when it is 0; otherwise it goes
 *     on through a dispatch block (the br to its successors, when it has
 *     several). Backward edges pass fuel - 1 (computed in the last block or
 *     in the edge block), forward edges pass it unchanged, so the fuel
 *     stays >= 0 and each node runs at most F + 1 times per entry of the
 *     tangle (the loop weight budget counts F + 1).
 *   - every block is reachable: node j > 0 that E does not enter gets a
 *     forward edge from an earlier node. Every node reaches X: a gated
 *     node leaves through XS, the edges of any other node go forward or
 *     to X (by induction from the last node, whose only forward target is
 *     X).
 * Every block and every mandatory instruction (terminators, fuel code) is
 * created / reserved before the first node is filled, so nested regions
 * keep max_blocks and max_insts. */
enum { TG_MAX_NODES = 5, TG_MAX_SUCC = 6 };
enum { TG_X = TG_MAX_NODES }; /* the exit, as an edge's target (and its row in the per-target arrays) */
enum { TG_E = TG_MAX_NODES }; /* the entry, as a source (its row in tangle.src) */

typedef struct tg_edge {
    uint32_t to;          /* a node index, or TG_X */
    uint32_t blk;         /* the edge block that splits it, or RAVEL_NONE */
    uint32_t ep[2], nep;  /* the edge block's params (the br passes them) */
    bool dec;             /* backward: the edge block computes fuel - 1 */
} tg_edge;

typedef struct tg_src {
    tg_edge out[TG_MAX_SUCC];
    uint32_t nout;
    bool gated;           /* a node with a backward edge: tests its fuel first */
    bool dec_tail;        /* gated: fuel - 1 is computed in the node's last block */
    uint32_t xs, disp;    /* gated: its exit split block; its dispatch block (nout >= 2) */
} tg_src;

typedef struct tangle {
    uint32_t k;                           /* nodes */
    bool cycles;                          /* backward edges allowed: the nodes carry fuel */
    uint32_t fuel;                        /* F, the fuel on entry */
    uint32_t maxsucc;                     /* successors of one br */
    tg_src src[TG_MAX_NODES + 1];         /* the nodes' edges, then E's (TG_E) */
    uint32_t npred[TG_MAX_NODES + 1];     /* edges into each node, then into X (TG_X) */
    uint32_t blk[TG_MAX_NODES + 1];       /* node blocks, then X */
    uint32_t params[TG_MAX_NODES + 1][MAX_PARAMS + 1], np[TG_MAX_NODES + 1]; /* [0]: fuel when cycles */
} tangle;

static bool tg_is_back(uint32_t from, uint32_t to) { return from != TG_E && to != TG_X && to <= from; }

/* Adds edge from -> to unless it is there or from's br is full. */
static bool tg_add(tangle *t, uint32_t from, uint32_t to)
{
    tg_src *s = &t->src[from];
    if (s->nout >= t->maxsucc) return false;
    for (uint32_t i = 0; i < s->nout; i++)
        if (s->out[i].to == to) return false;
    s->out[s->nout++] = (tg_edge){to, RAVEL_NONE, {0, 0}, 0, false};
    t->npred[to]++;
    if (tg_is_back(from, to)) s->gated = true;
    return true;
}

/* A random target for node i's extra edges: backward (itself included) when
 * cycles are allowed, forward, or X. */
static uint32_t tg_pick_target(gen *g, const tangle *t, uint32_t i)
{
    uint32_t r = below(g, 100);
    if (t->cycles && r < 45) return below(g, i + 1);
    if (r < 82 && i + 1 < t->k) return i + 1 + below(g, t->k - 1 - i);
    return TG_X;
}

/* Draws the edges (see above). */
static void tg_shape(gen *g, tangle *t)
{
    tg_add(t, TG_E, 0);
    for (uint32_t j = 1; j < t->k; j++)
        if (chance(g, 60)) tg_add(t, TG_E, j);
    if (chance(g, 10)) tg_add(t, TG_E, TG_X);
    if (t->cycles && t->k >= 2 && chance(g, 35)) { /* a two-entry cycle a -> b -> a: irreducible */
        uint32_t b = 1 + below(g, t->k - 1), a = below(g, b);
        tg_add(t, TG_E, a);
        tg_add(t, TG_E, b);
        tg_add(t, a, b);
        tg_add(t, b, a);
    }
    for (uint32_t j = 1; j < t->k; j++) { /* reachability: a forward edge into every node E does not enter */
        if (t->npred[j]) continue;
        uint32_t i = below(g, j);
        for (uint32_t n = 0; n < j && !tg_add(t, i, j); n++) i = i + 1 == j ? 0 : i + 1;
    }
    for (uint32_t i = 0; i < t->k; i++) {
        uint32_t want = 1;
        if (chance(g, 40)) want = 2 + (t->maxsucc > 2 && chance(g, 35) ? below(g, t->maxsucc - 1) : 0);
        for (uint32_t n = 0; n < want + 2 && t->src[i].nout < want; n++) tg_add(t, i, tg_pick_target(g, t, i));
        if (!t->src[i].nout) tg_add(t, i, TG_X); /* an ungated node's edges go forward or to X */
    }
    for (uint32_t i = 0; i < t->k; i++) t->npred[TG_X] += t->src[i].gated; /* XS -> X */
}

/* Whether edge e of source from is split: its br has several successors
 * and its target several predecessors. */
static bool tg_split(const tangle *t, uint32_t from, const tg_edge *e)
{
    const tg_src *s = &t->src[from];
    return (s->gated || s->nout >= 2) && t->npred[e->to] >= 2;
}

/* Blocks and mandatory instructions of the tangle's shape (the node
 * blocks and X included; what the nodes' regions add is not). Decides
 * where each gated node computes fuel - 1. */
static void tg_cost(gen *g, tangle *t, uint32_t *blocks, uint32_t *insts)
{
    uint32_t nb = t->k + 1, ni = t->cycles + 1; /* [fuel = const F] and E's terminator */
    for (uint32_t from = 0; from <= TG_E; from = from + 1 == t->k ? TG_E : from + 1) {
        tg_src *s = &t->src[from];
        uint32_t unsplit_back = 0, back = 0;
        for (uint32_t i = 0; i < s->nout; i++) {
            bool split = tg_split(t, from, &s->out[i]), bk = tg_is_back(from, s->out[i].to);
            nb += split, ni += split;
            back += bk;
            unsplit_back += bk && !split;
        }
        if (from == TG_E) break;
        if (!s->gated) {
            ni++; /* the terminator */
            continue;
        }
        s->dec_tail = unsplit_back || chance(g, 50);
        nb += 1 + (s->nout >= 2);               /* XS, [dispatch] */
        ni += 3 + (s->nout >= 2);               /* test, gate br, XS jump, [dispatch br] */
        ni += s->dec_tail ? 1 : back;           /* fuel - 1 */
        for (uint32_t i = 0; i < s->nout; i++) s->out[i].dec = !s->dec_tail && tg_is_back(from, s->out[i].to);
    }
    *blocks = nb;
    *insts = ni;
}

/* Arguments for edge e's target from the current scope: the fuel (fuel, or
 * dec, fuel - 1, on a backward edge) and the carried values. Returns the
 * count. */
static uint32_t tg_args(gen *g, const tangle *t, uint32_t from, const tg_edge *e, uint32_t fuel, uint32_t dec,
                        uint32_t *args)
{
    bool back = tg_is_back(from, e->to);
    const uint32_t *p = t->params[e->to];
    uint32_t c = t->cycles && e->to != TG_X ? 1 : 0, n = t->np[e->to];
    if (c) args[0] = back ? dec : fuel;
    pick_args(g, p + c, n - c, args + c, false); /* not pick_args' swap: the target's params are not in scope */
    return n;
}

/* Edge e as a successor of the open terminator: to its edge block (with
 * arguments for the edge block's params) or straight to its target. */
static void tg_succ(gen *g, const tangle *t, uint32_t from, const tg_edge *e, uint32_t fuel, uint32_t dec)
{
    uint32_t args[MAX_PARAMS + 1];
    if (e->blk != RAVEL_NONE) {
        pick_args(g, e->ep, e->nep, args, false);
        add_succ(g->f, e->blk, args, e->nep);
    } else {
        uint32_t n = tg_args(g, t, from, e, fuel, dec, args);
        add_succ(g->f, t->blk[e->to], args, n);
    }
}

/* Ends the open block with the terminator that carries source from's
 * edges: a jump (one edge) or a br with or without a condition (cond, or
 * when it is RAVEL_NONE a value picked now). */
static void tg_carrier(gen *g, const tangle *t, uint32_t from, uint32_t fuel, uint32_t dec, uint32_t cond)
{
    const tg_src *s = &t->src[from];
    ginst I;
    g->reserved--;
    gi_init(g, &I, s->nout >= 2 ? RAVEL_OP_BR : RAVEL_OP_JUMP, NM_NONE);
    if (s->nout >= 2 && (!has(g, RV_GEN_MULTIWAY) || chance(g, 75))) {
        uint32_t c = cond != RAVEL_NONE ? cond : pick_val(g, -1, -1); /* not none: a tangle starts with a value in scope */
        if (!add_use(g, &I, c)) add_use_as(g, &I, c, kind_op(RAVEL_C_REG));
    }
    emit_begin(g, &I);
    for (uint32_t i = 0; i < s->nout; i++) tg_succ(g, t, from, &s->out[i], fuel, dec);
    end_inst(g->f);
}

/* The edge blocks of source from, each in the scope sc of its source's
 * last block: [fuel - 1;] jump on. */
static void tg_edge_blocks(gen *g, const tangle *t, uint32_t from, const scope *sc, uint32_t fuel, uint32_t dec)
{
    const tg_src *s = &t->src[from];
    for (uint32_t i = 0; i < s->nout; i++) {
        const tg_edge *e = &s->out[i];
        if (e->blk == RAVEL_NONE) continue;
        scope_restore(g, sc);
        begin_block(g, e->blk, e->ep, e->nep);
        uint32_t d = dec, args[MAX_PARAMS + 1];
        if (e->dec) {
            g->reserved--;
            d = emit_binop_imm(g, RAVEL_OP_SUB, fuel, 1);
        }
        uint32_t n = tg_args(g, t, from, e, fuel, d, args);
        g->reserved--;
        emit_jump_args(g, t->blk[e->to], args, n);
    }
}

/* The end of gated node i: [dec = sub fuel, 1;] z = test of fuel; br z
 * to XS (fuel 0) and on (the dispatch block, or the one edge); then XS:
 * jump X(...), the dispatch block and the edge blocks. */
static void tg_gate(gen *g, const tangle *t, uint32_t i)
{
    const tg_src *s = &t->src[i];
    uint32_t fuel = t->params[i][0], dec = RAVEL_NONE;
    if (s->dec_tail) {
        g->reserved--;
        dec = emit_binop_imm(g, RAVEL_OP_SUB, fuel, 1);
    }
    uint32_t kind = below(g, 3); /* eq fuel, 0 / lt fuel, 1: XS first; ne fuel, 0: XS second */
    static const ravel_opcode test_op[3] = {RAVEL_OP_EQ, RAVEL_OP_LT, RAVEL_OP_NE};
    g->reserved -= 2;
    uint32_t z = emit_binop_imm(g, test_op[kind], fuel, kind == 1 ? 1 : 0);
    ginst I;
    gi_init(g, &I, RAVEL_OP_BR, NM_NONE);
    if (!add_use(g, &I, z)) add_use_as(g, &I, z, kind_op(RAVEL_C_REG));
    emit_begin(g, &I);
    if (kind != 2) add_succ(g->f, s->xs, NULL, 0);
    if (s->nout >= 2) add_succ(g->f, s->disp, NULL, 0);
    else tg_succ(g, t, i, &s->out[0], fuel, dec);
    if (kind == 2) add_succ(g->f, s->xs, NULL, 0);
    end_inst(g->f);
    scope sc;
    scope_save(g, &sc);
    begin_block(g, s->xs, NULL, 0);
    g->reserved--;
    emit_jump(g, t->blk[TG_X], t->params[TG_X], t->np[TG_X], false);
    if (s->nout >= 2) {
        scope_restore(g, &sc);
        begin_block(g, s->disp, NULL, 0);
        tg_carrier(g, t, i, fuel, dec, RAVEL_NONE);
    }
    tg_edge_blocks(g, t, i, &sc, fuel, dec);
}

/* Creates the tangle's blocks and params in E's scope: nodes [fuel +
 * carried values], X [values out], and per source its XS, dispatch and
 * edge blocks (a quarter of them with params). */
static void tg_blocks(gen *g, tangle *t)
{
    for (uint32_t j = 0; j < t->k; j++) t->blk[j] = new_block(g);
    t->blk[TG_X] = new_block(g);
    for (uint32_t j = 0; j < t->k; j++) {
        uint32_t c = 0;
        if (t->cycles) {
            t->params[j][0] = new_vreg(g, 0);
            ravel_block_add_param(g->f, t->blk[j], t->params[j][0]);
            c = 1;
        }
        t->np[j] = c + make_params(g, t->blk[j], below(g, 2 + g->o->pressure / 25), t->params[j] + c);
    }
    t->np[TG_X] = make_params(g, t->blk[TG_X], below(g, 3), t->params[TG_X]);
    for (uint32_t from = 0; from <= TG_E; from = from + 1 == t->k ? TG_E : from + 1) {
        tg_src *s = &t->src[from];
        s->xs = s->disp = RAVEL_NONE;
        if (s->gated) s->xs = new_block(g);
        if (s->gated && s->nout >= 2) s->disp = new_block(g);
        for (uint32_t i = 0; i < s->nout; i++) {
            tg_edge *e = &s->out[i];
            if (!tg_split(t, from, e)) continue;
            e->blk = new_block(g);
            if (chance(g, 25)) e->nep = make_params(g, e->blk, 1 + below(g, 2), e->ep);
        }
        if (from == TG_E) break;
    }
}

/* A tangle at the open block E (see above), if the options and budgets
 * allow one; X is open afterwards. */
static bool gen_tangle(gen *g, uint32_t depth)
{
    if (g->o->cfg != RV_GEN_CFG_ANY || !has(g, RV_GEN_LOOPS) || !has(g, RV_GEN_PARAMS) || depth >= MAX_DEPTH ||
        !type_mask(g, -1, -1) || block_room(g) < 3)
        return false;
    tangle t;
    memset(&t, 0, sizeof t);
    t.cycles = (uint64_t)g->weight * 2 <= g->max_weight;
    if (t.cycles) {
        t.fuel = 1 + below(g, 4);
        while (t.fuel > 1 && (uint64_t)g->weight * (t.fuel + 1) > g->max_weight) t.fuel--;
    }
    t.maxsucc = has(g, RV_GEN_MULTIWAY) ? TG_MAX_SUCC : 2;
    uint32_t k = 2 + below(g, TG_MAX_NODES - 1), nb, ni;
    for (;; k--) { /* smaller shapes until one fits */
        memset(t.src, 0, sizeof t.src);
        memset(t.npred, 0, sizeof t.npred);
        t.k = k;
        tg_shape(g, &t);
        tg_cost(g, &t, &nb, &ni);
        if (nb <= block_room(g) && ni < room(g)) break;
        if (k == 1) return false;
    }
    g->reserved += ni;
    tg_blocks(g, &t);
    uint32_t fuel0 = RAVEL_NONE, cond = pick_val(g, -1, -1); /* E's condition: not the constant fuel */
    if (t.cycles) {
        g->reserved--;
        fuel0 = emit_const(g, t.fuel);
    }
    tg_carrier(g, &t, TG_E, fuel0, RAVEL_NONE, cond);
    scope sc, sct;
    scope_save(g, &sc);
    tg_edge_blocks(g, &t, TG_E, &sc, fuel0, RAVEL_NONE);
    g->weight *= t.fuel + 1;
    for (uint32_t i = 0; i < t.k; i++) {
        scope_restore(g, &sc);
        begin_block(g, t.blk[i], t.params[i], t.np[i]);
        if (chance(g, 30)) gen_tangle(g, depth + 1); /* its E: this node, re-entered by a retreating edge */
        gen_region(g, depth + 1);
        uint32_t fuel = t.cycles ? t.params[i][0] : RAVEL_NONE;
        if (t.src[i].gated) {
            tg_gate(g, &t, i);
            continue;
        }
        tg_carrier(g, &t, i, fuel, RAVEL_NONE, RAVEL_NONE);
        scope_save(g, &sct);
        tg_edge_blocks(g, &t, i, &sct, fuel, RAVEL_NONE);
    }
    g->weight /= t.fuel + 1;
    scope_restore(g, &sc);
    begin_block(g, t.blk[TG_X], t.params[TG_X], t.np[TG_X]);
    return true;
}

/* The longest straight run to draw now: 8, or twice the instructions left
 * per block left when that is more. Loops and diamonds take blocks, runs
 * take none; with runs of at most 8 a large budget outlived its blocks and
 * the rest piled up in the last one (about 90% of a 10^5-instruction
 * function in one block). Pacing spreads the instructions over the blocks
 * instead, so large functions have loops throughout. */
static uint32_t run_max(const gen *g)
{
    uint32_t per = (uint32_t)((2ull * room(g)) / (block_room(g) + 1u));
    return per > 8 ? per : 8;
}

/* A region: items (straight runs, diamonds, loops) in the open block, which
 * is open again at the end. The top level runs until the budget is spent. */
static void gen_region(gen *g, uint32_t depth)
{
    uint32_t items = depth == 0 ? UINT32_MAX : below(g, 4);
    for (uint32_t i = 0; i < items && room(g) > 0; i++) {
        uint32_t w = below(g, 10);
        bool done = false;
        if (depth < MAX_DEPTH && w < 2) done = gen_loop(g, depth);
        else if (depth < MAX_DEPTH && w < 4) done = gen_diamond(g, depth);
        else if (w < 5 && g->o->cfg == RV_GEN_CFG_ANY) done = gen_tangle(g, depth);
        if (!done) gen_insts(g, 1 + below(g, run_max(g)));
    }
}

/* ---- the function ---- */

/* `args`: inputs in the first registers of their class (or anywhere). */
static void gen_args(gen *g)
{
    const rv_gen_mach *gm = g->gm;
    ginst I;
    gi_init(g, &I, RAVEL_OP_ARGS, NM_NONE);
    uint32_t next[RV_GEN_MAX_CLASSES] = {0}, n = 1 + below(g, 6);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = pick_class(g);
        bool ref = maybe_ref(g, 15);
        if (has(g, RV_GEN_FIXED) && next[c] < gm->nalloc[c] && chance(g, 80)) {
            add_def_as(g, &I, c, ref, fixed_op(gm->alloc[c][next[c]++]));
        } else {
            add_def(g, &I, c, ref);
        }
    }
    emit(g, &I);
}

/* The result signature: up to 4 values, in distinct registers per class. */
static void pick_signature(gen *g)
{
    uint32_t next[RV_GEN_MAX_CLASSES] = {0};
    g->nret = below(g, MAX_RET + 1);
    for (uint32_t j = 0; j < g->nret; j++) {
        uint32_t c = pick_class(g);
        g->ret_cls[j] = c;
        g->ret_reg[j] = RAVEL_NONE;
        if (has(g, RV_GEN_FIXED) && next[c] < g->gm->nalloc[c] && chance(g, 90)) g->ret_reg[j] = g->gm->alloc[c][next[c]++];
    }
}

/* Instructions to aim for: usually between half and all of max_insts,
 * sometimes anything from 1 (small functions are good fuzz inputs too);
 * never below min_insts. Straight-line runs fill what structured code leaves,
 * so the target is reached. */
static uint32_t pick_target(gen *g)
{
    uint32_t max = g->o->max_insts, min = g->o->min_insts;
    uint32_t t = chance(g, 25) ? 1 + below(g, max) : max - below(g, max / 2 + 1);
    return t < min ? min : t;
}

/* The function, its arrays sized once for the target: what ravel_func_new
 * does (ir/func.c), without reserving one element of each first (growing
 * them later would reallocate every one of them). */
static ravel_func *new_func(gen *g)
{
    ravel_func *f = rv_xcalloc(1, sizeof *f);
    uint32_t n = g->target, nb = (g->o->max_blocks < n ? g->o->max_blocks : n) + 1u;
    f->mach = g->gm->m;
    rv_vec_reserve(f->syms.strs, 1u + nb + NM_COUNT); /* the name, blocks, mnemonics */
    rv_vec_reserve(f->syms.lens, 1u + nb + NM_COUNT);
    f->name = rv_sym_intern(&f->syms, "f", 1);
    f->cur_block = RAVEL_NONE;
    f->cur_inst = RAVEL_NONE;
    rv_vec_reserve(f->insts, n);
    rv_vec_reserve(f->ops, n * 3u);
    rv_vec_reserve(f->vregs, n * 2u);
    rv_vec_reserve(f->u32, n);
    rv_vec_reserve(f->imms, n / 2u + 1u);
    rv_vec_reserve(f->blocks, nb);
    rv_vec_reserve(f->layout, nb);
    rv_vec_reserve(f->succs, 2u * nb);
    return f;
}

ravel_func *rv_gen_func(rv_gen_src *s, const rv_gen_opts *o, const rv_gen_mach *gm)
{
    gen g;
    memset(&g, 0, sizeof g);
    for (int i = 0; i < NM_COUNT; i++) g.syms[i] = RAVEL_NONE;
    for (uint32_t c = 0; c < gm->ncls; c++)
        for (uint32_t i = 0; i < gm->nres[c]; i++) g.resv[gm->res[c][i]] = true;
    g.s = s;
    g.o = o;
    g.gm = gm;
    g.feat = o->features;
    init_ctab(&g);
    for (uint32_t c = 0; c < gm->ncls; c++) g.free0[c] = FREE_GUARD | gm->nalloc[c] | gm->nalloc[c] << 16;
    g.far256 = o->pressure * 256u / 100u;
    g.window = o->window ? o->window : UINT32_MAX;
    g.target = pick_target(&g);
    g.f = new_func(&g);
    avail_grow(&g, g.target / 2u + 1u);
    g.weight = 1;
    g.max_weight = 200000u / g.target;
    if (g.max_weight > 64) g.max_weight = 64;
    if (g.max_weight < 1) g.max_weight = 1;
    g.exit_pct = 400u / o->max_blocks;
    if (g.exit_pct > 20) g.exit_pct = 20;
    if (g.exit_pct < 1) g.exit_pct = 1;
    pick_signature(&g);
    bool keep = g.target >= 3 && chance(&g, 80);
    g.reserved = keep ? 2 : 1; /* [the keep-alive out] and the final ret */
    ravel_block_begin(g.f, new_block(&g));
    if (room(&g) > 0 && chance(&g, 85)) gen_args(&g);
    gen_region(&g, 0);
    if (keep) {
        g.reserved--;
        inst_keepalive(&g);
    }
    g.reserved--;
    emit_ret(&g);
    ravel_func_finish(g.f);
    free(g.avail_mem);
    return g.f;
}
