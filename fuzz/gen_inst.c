/* gen_inst.c - instructions of the function builder (gen_build.h): one
 * instruction's operands under the satisfiability budget, the instruction
 * kinds, emitting straight into the function's arrays, terminators, blocks
 * and their parameters.
 *
 * Requires: gen_inst_init has run; a block is open for anything that emits.
 * Guarantees: every instruction keeps the rules below (so an allocation
 * exists for it whatever the allocator did before), and the builder's
 * invariants (see "emitting").
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
 * COST: an instruction is built in place, nothing is allocated per
 * instruction, the decisions about one operand come from one four-byte
 * read, and random data steers few branches where a select does (a select
 * must stay a select: mispredicted branches are about half of the CPU
 * time). docs/perf-log.md has the measurements. */
#include "fuzz/gen_value.h"

#include <stdlib.h>
#include <string.h>

enum { PT_E = 1, PT_L = 2 }; /* program points of an instruction */

/* Mnemonics (RAVEL_OP_OTHER) and callees (RAVEL_OP_CALL), interned once
 * per function on first use (gen.syms); the NM_* ranges index it. */
static const char *const mnemonics[NM_COUNT] = {
    "f", "g", "alloc", "print", "memcpy", "hash",                                     /* callees */
    "load", "store", "lea", "fma", "select", "cas", "getsp", "vshuf", "cvt", "bswap", /* opaque */
    "statepoint", "patchpoint", "deopt",                                              /* callsites */
    "gcpoll",
};

/* ---- one instruction: operands under the satisfiability budget ---- */

/* Room for gi_room more instructions in f->ops, f->vregs and f->imms (at
 * least one): checked once per many instructions instead of three times
 * per instruction. */
void gen_gi_reserve(gen *g)
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

void gen_inst_init(gen *g)
{
    const rv_gen_mach *gm = g->gm;
    for (int i = 0; i < NM_COUNT; i++) g->syms[i] = RAVEL_NONE;
    for (uint32_t c = 0; c < gm->ncls; c++)
        for (uint32_t i = 0; i < gm->nres[c]; i++) g->resv[gm->res[c][i]] = true;
    init_ctab(g);
    for (uint32_t c = 0; c < gm->ncls; c++) g->free0[c] = FREE_GUARD | gm->nalloc[c] | gm->nalloc[c] << 16;
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
uint32_t gen_new_vreg(gen *g, uint32_t t)
{
    ravel_func *f = g->f;
    g->gi_room = 0; /* it may take the room gen_gi_reserve counted */
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
bool gen_use(gen *g, ginst *I, uint32_t v) { return add_use(g, I, v); }
bool gen_use_as(gen *g, ginst *I, uint32_t v, gop o) { return add_use_as(g, I, v, o); }
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

static int64_t pick_imm(gen *g)
{
    uint32_t k = below(g, 10);
    if (k < 6) return (int64_t)below(g, 17) - 8;
    if (k < 8) return (int64_t)below(g, 256);
    return (int64_t)rv_gen_u64(g->s);
}

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
 * while an instruction is built), so the list is never copied. A list names
 * distinct registers of the machine, so it fits in room for all of them
 * (new_func reserves that much beyond the target: no growth, usually). */
static inline uint32_t *clob_room(gen *g)
{
    rv_vec_reserve(g->f->u32, g->gm->m->regs.len);
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
 * the builder (f->cur_inst) while its successors are added (gen_add_succ), then
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
void gen_emit_begin(gen *g, const ginst *I) { emit_begin(g, I); }

/* A successor of the open terminator, with arguments (what ravel_inst_succ
 * does, unchecked). */
void gen_add_succ(ravel_func *f, uint32_t block, const uint32_t *args, uint32_t nargs)
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

/* Remat candidates (RV_GEN_REMAT): one of a few keys, so that several
 * values are the same constant and a remat of one key stands for them. */
static int64_t pick_key(gen *g)
{
    static const int64_t keys[4] = {0, 1, 16, -1};
    return keys[below(g, 4)];
}

/* `v = undef` (RV_GEN_UNDEF): never a reference (an undefined reference
 * in a stackmap roots nothing: docs/format.md section 14.2). */
static void inst_undef(gen *g)
{
    ginst I;
    gi_init(g, &I, RAVEL_OP_UNDEF, NM_NONE);
    uint32_t c = pick_class(g);
    if (!add_def(g, &I, c, false)) add_def_as(g, &I, c, false, kind_op(RAVEL_C_REG));
    emit(g, &I);
}

/* A constant (or, with RV_GEN_UNDEF, an eighth of the time an undefined
 * value; the features draw only when they are on, so inputs keep their
 * meaning without them). */
static void inst_const(gen *g)
{
    ginst I;
    if (has(g, RV_GEN_UNDEF) && below(g, 8) == 0) {
        inst_undef(g);
        return;
    }
    gi_init(g, &I, RAVEL_OP_CONST, NM_NONE);
    uint32_t c = pick_class(g);
    if (!add_def(g, &I, c, maybe_ref(g, 10))) add_def_as(g, &I, c, false, kind_op(RAVEL_C_REG));
    add_imm(g, &I, has(g, RV_GEN_REMAT) && chance(g, 50) ? pick_key(g) : pick_imm(g));
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
void gen_keepalive(gen *g)
{
    ginst I;
    gi_init(g, &I, RAVEL_OP_OUT, NM_NONE);
    uint32_t n = 1 + below(g, 1 + g->o->pressure / 4);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t t = pick_type(g, -1, -1);
        if (t == NTYPES) break;
        add_use(g, &I, g->vals.list[t][below(g, g->vals.n[t])]);
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
void gen_insts(gen *g, uint32_t n)
{
    uint32_t r = room(g);
    if (n > r) n = r;
    for (uint32_t i = 0; i < n; i++) gen_inst(g);
}

/* Emits `dst = OP a, imm` (loop control: the use of `a` must not be lost,
 * or the counter would stop counting). Drawn constraints first; if either
 * operand did not fit, plain `reg` operands, which always do (S3 with
 * A >= 1: one early use, one late def). */
uint32_t gen_emit_binop_imm(gen *g, ravel_opcode op, uint32_t a, int64_t imm)
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
uint32_t gen_emit_const(gen *g, int64_t imm)
{
    ginst I;
    gi_init(g, &I, RAVEL_OP_CONST, NM_NONE);
    if (!add_def(g, &I, 0, false)) add_def_as(g, &I, 0, false, kind_op(RAVEL_C_REG));
    add_imm(g, &I, imm);
    return emit(g, &I);
}

/* ---- terminators ---- */

void gen_emit_ret(gen *g)
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
void gen_pick_args(gen *g, const uint32_t *params, uint32_t n, uint32_t *args, bool swap)
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
void gen_emit_jump_args(gen *g, uint32_t target, const uint32_t *args, uint32_t n)
{
    ginst I;
    gi_init(g, &I, RAVEL_OP_JUMP, NM_NONE);
    emit_begin(g, &I);
    gen_add_succ(g->f, target, args, n);
    end_inst(g->f);
}

void gen_emit_jump(gen *g, uint32_t target, const uint32_t *params, uint32_t n, bool swap)
{
    uint32_t args[MAX_PARAMS + 1];
    gen_pick_args(g, params, n, args, swap);
    gen_emit_jump_args(g, target, args, n);
}

/* A new block named bN, N its creation number (formatted by hand: this is
 * on the hot path). */
uint32_t gen_new_block(gen *g)
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
uint32_t gen_make_params(gen *g, uint32_t b, uint32_t n, uint32_t *params)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t t = pick_type(g, -1, -1);
        if (t == NTYPES) break;
        params[k] = gen_new_vreg(g, t);
        ravel_block_add_param(g->f, b, params[k]);
        k++;
    }
    return k;
}

void gen_begin_block(gen *g, uint32_t b, const uint32_t *params, uint32_t n)
{
    ravel_block_begin(g->f, b);
    for (uint32_t i = 0; i < n; i++) make_avail(g, params[i]);
}

/* `args`: inputs in the first registers of their class (or anywhere). */
void gen_args(gen *g)
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
