/* fast.c - the `fast` allocator (local, one pass, in the spirit of LLVM's
 * RegAllocFast). Its engine, making random legal choices instead
 * (rv_fast_run with random = true), is one mode of the `random` allocator
 * (random.c).
 *
 * Requires: f unallocated, valid SSA (ravel_validate with
 * RAVEL_VALIDATE_SSA), finished. Guarantees: the alloc.h contract; fails
 * only when an instruction's constraints cannot be met, naming it.
 *
 * Strategy.
 *   - A vreg is GLOBAL if it is a block parameter, used in a block other
 *     than its defining block, or a jump argument (except one passed by
 *     its own block on an edge whose copies go before the jump: that one
 *     stays in its register to the end of the block). A global vreg owns one
 *     spill slot, is spilled right after its definition, and lives in that
 *     slot across block boundaries. Registers are empty at a block's entry,
 *     except in an "heir" block (one predecessor edge, from a block handled
 *     before it): it starts with the registers its predecessor ended with
 *     that hold values it reads (extended basic blocks; the predecessor
 *     keeps those values to its end). Edges copy jump arguments (from their register or slot) into
 *     parameters' slots with the parallel-move resolver, at the end of a
 *     single-successor predecessor or the start of a single-predecessor
 *     successor (there, parameters simply share their argument's slot, so
 *     no copy is needed: share_param_slots).
 *   - Within a block, registers are assigned on demand. Each instruction is
 *     handled in steps (fa_inst): claim fixed registers and clobbers; place
 *     register uses (late, then early), register defs (early, then late),
 *     then the flexible any/stack operands, each step avoiding what the
 *     earlier ones claimed;
 *     rescue values whose register gets overwritten (to a free register,
 *     else their slot); then ONE parallel move (reloads, moves into fixed
 *     registers, rescues, spills) runs before the instruction.
 *   - Safepoints: every .ref value live across the safepoint is in its slot
 *     (spilled if needed), listed in the stackmap, and all register copies
 *     of .ref values are forgotten after it (valid for moving and
 *     non-moving GC).
 * Time: linear in the function size (times registers per instruction for
 * register choice); no allocation per instruction once warm.
 *
 * Random mode: registers are chosen at random among the legal ones, `any`
 * operands go to the stack at random, rescues spill at random, slots get
 * random numbers, and before instructions values are gratuitously moved,
 * spilled, dropped (and reloaded later) or sent through a reserved register
 * and back. Every choice is one the deterministic engine could make
 * legally, so the output is always correct.
 *
 * Trace (--trace): one line per def placed, reload/move into a register,
 * eviction and spill. */
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

enum { /* per-vreg flags */
    VF_GLOBAL = 1,
    VF_SLOT_VALID = 2, /* the vreg's slot holds its value */
    VF_USED = 4,       /* has at least one use (operand or jump argument) */
};

enum { /* per-operand flags */
    OF_KILL = 1, /* use: last use in this block; def: no use later in this block */
};

enum { /* per-register flags for the current instruction */
    RF_TGT_E = 1,   /* an early use reads tgt[r] from r */
    RF_TGT_L = 2,   /* a late use reads tgt[r] from r */
    RF_DEF_E = 4,   /* an early def writes r */
    RF_DEF_L = 8,   /* a late def writes r */
    RF_CLOB = 16,   /* the instruction clobbers r */
    RF_SURV = 32,   /* r receives a rescued value (tgt[r]) before the instruction */
    RF_TOUCHED = 64,
};
#define RF_DEF (RF_DEF_E | RF_DEF_L)
#define RF_TGT (RF_TGT_E | RF_TGT_L | RF_SURV)

/* Per-vreg state, packed so that one vreg is one cache line at most. */
typedef struct fa_vreg {
    uint32_t home;      /* register holding the vreg, or RAVEL_NONE */
    uint32_t slot;      /* slot number or RAVEL_NONE */
    uint32_t kill_at;   /* instruction at which the vreg dies in its current block */
    uint32_t tgt_of;    /* first target register chosen for the vreg at instruction tgt_stamp */
    uint32_t tgt_stamp;
    uint32_t stamp;     /* pre-pass: 1 + block of the latest use seen */
    uint8_t vflags;     /* VF_* */
} fa_vreg;

/* Refs live across each safepoint (see the file comment). Liveness is
 * separable per vreg, so only GLOBAL refs (those that can be live across a
 * block boundary) go through the generic dataflow solver, with per-block
 * gen/kill sets made by prepass's backward scan (the transfer is then
 * O(words), not a walk over the block). A non-global ref is defined and
 * used only in its block, never live out of it; the backward walk over
 * each block that has a safepoint tracks every ref. Memory: 4 x nblocks x
 * global refs bits. Ref indices: globals [0, ng), then locals. */
typedef struct ref_ctx {
    const ravel_func *f;
    uint32_t *ridx;        /* vreg -> ref index or RAVEL_NONE */
    uint32_t *rvreg;       /* ref index -> vreg */
    uint32_t nw;           /* words of the walk set (every ref) */
    uint32_t ng, gw;       /* global refs and words of the dataflow sets */
    uint64_t *gen, *kill;  /* per block, gw words each */
    bool *has_sp;          /* per block: it has a safepoint */
    uint32_t nsp;          /* safepoints in the function (0: nothing else is set) */
} ref_ctx;

typedef struct fa {
    const ravel_func *f;
    const ravel_machine *m;
    const rv_alloc_opts *opts;
    const char *name;
    bool random;
    uint64_t rng;
    char *err;
    rv_cfg cfg;
    rv_out out;
    rv_pmove pm;
    uint32_t nregs;
    fa_vreg *vs;        /* per vreg */
    uint32_t next_slot;
    uint32_t scratch_slot[2], scratch_used;
    /* per operand */
    uint8_t *oflags;
    ravel_loc *loc;     /* = out.loc */
    /* per register */
    uint32_t *content;  /* vreg whose value the register holds (it is that vreg's home) */
    uint8_t *rf;        /* RF_* for the current instruction */
    uint32_t *tgt;      /* RF_TGT: the vreg the register must hold before the instruction */
    uint32_t *touched;
    uint32_t ntouched;
    uint64_t *scratch_bs;
    /* per instruction */
    RV_VEC(rv_move) moves;
    RV_VEC(uint32_t) smap;
    /* extended blocks: a block whose only predecessor edge comes from an
     * earlier block starts with that block's registers (heir_src) */
    uint32_t *heir_src;  /* per block: the predecessor inherited from, or RAVEL_NONE */
    uint32_t *gen_start; /* per block: its upward-exposed operand uses, CSR into gen */
    RV_VEC(uint32_t) gen;
    uint32_t *snap_start, *snap_len; /* per block: (reg, vreg) pairs left at its end */
    RV_VEC(uint32_t) snap;
    /* safepoints: refs live across safepoint i are sp_list[sp_first[i] ..
     * + sp_n[i]) (set for safepoints only) */
    uint32_t *sp_first, *sp_n; /* NULL when the function has no safepoints */
    RV_VEC(uint32_t) sp_list;
    ref_ctx refs; /* .ref liveness (safepoint_refs), from prepass */
} fa;

/* ---- small helpers ---- */

static uint32_t vcls(const fa *a, uint32_t v) { return a->f->vregs.data[v].cls; }
static bool vref(const fa *a, uint32_t v) { return a->f->vregs.data[v].ref; }
static bool reg_reserved(const fa *a, uint32_t r) { return a->m->regs.data[r].reserved; }

static bool fail(fa *a, uint32_t inst, const char *msg, uint32_t v)
{
    if (!a->err) {
        if (v != RAVEL_NONE)
            a->err = rv_alloc_errorf(a->f, inst, "%s (v%u)", msg, a->f->vregs.data[v].num);
        else
            a->err = rv_alloc_errorf(a->f, inst, "%s", msg);
    }
    return false;
}

static uint32_t slot_of(fa *a, uint32_t v)
{
    if (a->vs[v].slot == RAVEL_NONE) {
        a->vs[v].slot = a->next_slot++;
        if (a->random) a->next_slot += rv_rng_below(&a->rng, 3);
    }
    return a->vs[v].slot;
}

static uint32_t new_scratch_slot(void *ctx)
{
    fa *a = ctx;
    uint32_t k = a->scratch_used < 2 ? a->scratch_used++ : 1;
    if (a->scratch_slot[k] == RAVEL_NONE) a->scratch_slot[k] = a->next_slot++;
    return a->scratch_slot[k];
}

static inline void touch(fa *a, uint32_t r, uint8_t flag)
{
    if (!(a->rf[r] & RF_TOUCHED)) {
        a->rf[r] = RF_TOUCHED;
        a->tgt[r] = RAVEL_NONE;
        a->touched[a->ntouched++] = r;
    }
    a->rf[r] |= flag;
}

/* Constraint kinds by position, as bits of the masks of fa_inst: bit K for
 * an early operand of kind K, bit 8 + K for a late one. */
static uint32_t kinds_at(uint32_t kind, int late) { return 1u << (kind + (late ? 8 : 0)); }
static uint32_t kinds_any(uint32_t kind) { return kinds_at(kind, 0) | kinds_at(kind, 1); }
static uint32_t kind_bit(const rv_operand *o) { return kinds_at(o->kind & 7, rv_op_is_late(o)); }

/* True if the vreg's value is needed after instruction i. */
static bool live_after(const fa *a, uint32_t v, uint32_t i) { return a->vs[v].kill_at != i; }

static void set_content(fa *a, uint32_t r, uint32_t v)
{
    uint32_t old = a->content[r];
    if (old != RAVEL_NONE && a->vs[old].home == r) a->vs[old].home = RAVEL_NONE;
    a->content[r] = v;
    if (v != RAVEL_NONE) a->vs[v].home = r;
}

/* Current location of v before the instruction: its register, else its slot. */
static ravel_loc cur_loc(const fa *a, uint32_t v)
{
    if (a->vs[v].home != RAVEL_NONE) return a->vs[v].home;
    if ((a->vs[v].vflags & VF_SLOT_VALID) && a->vs[v].slot != RAVEL_NONE) return ravel_slot(a->vs[v].slot);
    return RAVEL_LOC_NONE;
}

static void add_move(fa *a, ravel_loc dst, ravel_loc src, uint32_t cls)
{
    rv_move mv = {dst, src, cls};
    rv_vec_push(a->moves, mv);
}

/* Makes v's slot valid before the instruction (a spill in the parallel move). */
static bool ensure_spilled(fa *a, uint32_t v, uint32_t i)
{
    if (a->vs[v].vflags & VF_SLOT_VALID) return true;
    ravel_loc l = cur_loc(a, v);
    if (l == RAVEL_LOC_NONE) return fail(a, i, "internal error: value has no location", v);
    add_move(a, ravel_slot(slot_of(a, v)), l, vcls(a, v));
    a->vs[v].vflags |= VF_SLOT_VALID;
    if (a->opts && a->opts->trace) rv_alloc_trace(a->opts, a->name, "spill v%u to s%u before inst %u", a->f->vregs.data[v].num, a->vs[v].slot, i);
    return true;
}

/* ---- pre-passes ---- */

/* Dense sets cost nblocks x global refs bits (four times): refuse beyond this. */
#define FA_MAX_REF_BITS ((uint64_t)1 << 31)

static void ref_ctx_free(ref_ctx *c)
{
    rv_free(c->ridx);
    rv_free(c->rvreg);
    rv_free(c->gen);
    rv_free(c->kill);
    rv_free(c->has_sp);
    memset(c, 0, sizeof *c);
}

/* Forward scan: where each vreg is defined, the GLOBAL and USED flags,
 * each block's upward-exposed operand uses (in SSA a use of a vreg defined
 * in its own block follows the def, so a use whose vreg has no def in the
 * block so far reads a value from elsewhere) and whether it inherits its
 * predecessor's registers (one predecessor edge, from a block processed
 * earlier). Returns the number of safepoints; marks the blocks having one. */
static uint32_t prepass_forward(fa *a, uint32_t *def_block, bool *has_sp)
{
    const ravel_func *f = a->f;
    uint32_t n = a->cfg.nblocks, nsp = 0;
    a->gen_start = rv_xmalloc(sizeof(uint32_t) * (n + 1));
    a->heir_src = rv_xmalloc(sizeof(uint32_t) * (n + 1));
    rv_vec_reserve(a->gen, f->ops.len + 1); /* at most one entry per use: no regrowth */
    for (uint32_t b = 0; b < n; b++) {
        const rv_block *bl = &f->blocks.data[b];
        a->gen_start[b] = a->gen.len;
        uint32_t np = a->cfg.pred_start[b + 1] - a->cfg.pred_start[b];
        uint32_t q = np == 1 ? a->cfg.pred[a->cfg.pred_start[b]] : RAVEL_NONE;
        a->heir_src[b] = q != RAVEL_NONE && q < b ? q : RAVEL_NONE;
        for (uint32_t p = 0; p < bl->nparams; p++) {
            uint32_t v = rv_block_params(f, bl)[p];
            def_block[v] = b;
            a->vs[v].vflags |= VF_GLOBAL;
        }
        /* jump arguments: on the edge of a single-successor block the edge
         * copies run before the jump, where a value of this block may still
         * be in its register; else they must be in slots */
        bool at_exit = a->cfg.succ_start[b + 1] - a->cfg.succ_start[b] == 1;
        uint32_t bsp = 0;
        for (uint32_t j = 0; j < bl->ninsts; j++) {
            const rv_inst *in = rv_inst_at(f, bl->first_inst + j);
            const rv_operand *ops = rv_ops_of(f, in);
            bsp += (in->flags & RV_IF_SAFEPOINT) != 0;
            for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++) {
                uint32_t v = ops[u].vreg;
                a->vs[v].vflags |= VF_USED;
                if (def_block[v] == b) continue;
                a->vs[v].vflags |= VF_GLOBAL;
                if (a->vs[v].stamp == b + 1) continue;
                a->vs[v].stamp = b + 1;
                rv_vec_push(a->gen, v);
            }
            for (uint32_t d = 0; d < in->ndefs; d++) def_block[ops[d].vreg] = b;
            for (uint32_t s = 0; s < rv_inst_nsuccs(in); s++) {
                const rv_succ *sc = &rv_inst_succs(f, in)[s];
                for (uint32_t k = 0; k < sc->nargs; k++) {
                    uint32_t v = rv_succ_args(f, sc)[k];
                    a->vs[v].vflags |= VF_USED;
                    if (!at_exit || def_block[v] != b) a->vs[v].vflags |= VF_GLOBAL;
                }
            }
        }
        has_sp[b] = bsp != 0;
        nsp += bsp;
    }
    a->gen_start[n] = a->gen.len;
    for (uint32_t k = 0; k < a->gen.len; k++) a->vs[a->gen.data[k]].stamp = RAVEL_NONE;
    return nsp;
}

/* The .ref indices (globals first, each part in vreg order) and room for
 * the global refs' gen/kill sets; false if those would be too large. */
static bool ref_index(fa *a, ref_ctx *c)
{
    const ravel_func *f = a->f;
    uint32_t nrefs = 0, ng = 0, nv = f->vregs.len;
    for (uint32_t v = 0; v < nv; v++)
        if (f->vregs.data[v].ref) {
            nrefs++;
            ng += (a->vs[v].vflags & VF_GLOBAL) != 0;
        }
    if ((uint64_t)ng * a->cfg.nblocks > FA_MAX_REF_BITS)
        return fail(a, RAVEL_NONE, "too large: .ref liveness over this many blocks and references exceeds the memory limit", RAVEL_NONE);
    c->f = f;
    c->ridx = rv_xmalloc(sizeof(uint32_t) * (nv + 1));
    c->rvreg = rv_xmalloc(sizeof(uint32_t) * (nrefs + 1));
    c->nw = rv_bs_words(nrefs);
    c->ng = ng;
    c->gw = rv_bs_words(ng);
    uint32_t gi = 0, li = ng;
    for (uint32_t v = 0; v < nv; v++) {
        c->ridx[v] = RAVEL_NONE;
        if (!f->vregs.data[v].ref) continue;
        c->ridx[v] = (a->vs[v].vflags & VF_GLOBAL) ? gi++ : li++;
        c->rvreg[c->ridx[v]] = v;
    }
    size_t gsize = (size_t)a->cfg.nblocks * c->gw + 1;
    c->gen = rv_xcalloc(gsize, sizeof(uint64_t));
    c->kill = rv_xcalloc(gsize, sizeof(uint64_t));
    return true;
}

/* A def of v, walking a block backward: a global ref is killed there and
 * not upward exposed (rg, rk: the block's gen and kill sets). */
static inline void ref_def(const ref_ctx *c, uint64_t *rg, uint64_t *rk, uint32_t v)
{
    uint32_t x = c->ridx[v];
    if (x >= c->ng) return;
    rv_bs_clear(rg, x);
    rv_bs_set(rk, x);
}

/* Global vregs, use flags, kill flags (a backward scan per block), the
 * blocks' upward-exposed uses and heirs, and, when the function has
 * safepoints, the gen/kill sets of the global refs (a->refs): one forward
 * and one backward scan of the function. False only when the .ref sets
 * would be too large. */
static bool prepass(fa *a)
{
    const ravel_func *f = a->f;
    uint32_t nv = f->vregs.len, n = a->cfg.nblocks;
    ref_ctx *c = &a->refs;
    uint32_t *def_block = rv_xmalloc(sizeof(uint32_t) * (nv + 1));
    for (uint32_t v = 0; v < nv; v++) def_block[v] = RAVEL_NONE;
    c->has_sp = rv_xcalloc(n + 1, 1);
    uint32_t nsp = prepass_forward(a, def_block, c->has_sp);
    bool refs = nsp != 0;
    c->nsp = nsp;
    if (refs && !ref_index(a, c)) {
        rv_free(def_block);
        return false;
    }
    for (uint32_t b = 0; b < n; b++) {
        const rv_block *bl = &f->blocks.data[b];
        uint64_t *rg = refs ? c->gen + (size_t)b * c->gw : NULL, *rk = refs ? c->kill + (size_t)b * c->gw : NULL;
        /* values an heir block reads stay in their registers to the end */
        for (uint32_t e = a->cfg.succ_start[b]; e < a->cfg.succ_start[b + 1]; e++) {
            uint32_t sb = a->cfg.succ[e];
            if (a->heir_src[sb] != b) continue;
            for (uint32_t k = a->gen_start[sb]; k < a->gen_start[sb + 1]; k++) a->vs[a->gen.data[k]].stamp = b + 1;
        }
        bool at_exit = a->cfg.succ_start[b + 1] - a->cfg.succ_start[b] == 1;
        for (uint32_t j = bl->ninsts; j-- > 0;) {
            const rv_inst *in = rv_inst_at(f, bl->first_inst + j);
            const rv_operand *ops = rv_ops_of(f, in);
            for (uint32_t d = 0; refs && d < in->ndefs; d++) ref_def(c, rg, rk, ops[d].vreg); /* .ref gen/kill: defs, then reads */
            for (uint32_t s = 0; s < rv_inst_nsuccs(in); s++) {
                const rv_succ *sc = &rv_inst_succs(f, in)[s];
                for (uint32_t k = 0; k < sc->nargs; k++) {
                    uint32_t v = rv_succ_args(f, sc)[k];
                    if (at_exit && def_block[v] == b) a->vs[v].stamp = b + 1; /* live to the end of the block */
                    if (refs && c->ridx[v] < c->ng) rv_bs_set(rg, c->ridx[v]);
                }
            }
            for (uint32_t k = in->ndefs + in->nuses; k-- > 0;) {
                uint32_t opi = in->first_op + k;
                uint32_t v = f->ops.data[opi].vreg;
                if (a->vs[v].stamp != b + 1) a->oflags[opi] |= OF_KILL;
                if (k < in->ndefs) continue;
                a->vs[v].stamp = b + 1;
                if (refs && c->ridx[v] < c->ng) rv_bs_set(rg, c->ridx[v]);
            }
        }
        for (uint32_t p = 0; refs && p < bl->nparams; p++) ref_def(c, rg, rk, rv_block_params(f, bl)[p]);
    }
    for (uint32_t v = 0; v < nv; v++) {
        if (a->vs[v].vflags & VF_GLOBAL) a->vs[v].vflags |= VF_SLOT_VALID; /* spilled at its def, which dominates its uses */
        a->vs[v].stamp = RAVEL_NONE;
    }
    rv_free(def_block);
    return true;
}

/* A block with one predecessor edge whose copies would go at its entry
 * (the predecessor branches several ways) lets each parameter share its
 * argument's slot: the argument is global, so its slot holds it at the
 * branch, and in SSA that slot is not written again while the parameter
 * is live (the argument's def would have to be dominated by the block,
 * which the branch into it makes impossible for reachable blocks). The
 * edge copy then vanishes (dst == src). Blocks in RPO, so that an argument
 * that is itself a shared parameter has its final slot first. */
static void share_param_slots(fa *a)
{
    const ravel_func *f = a->f;
    const rv_cfg *c = &a->cfg;
    for (uint32_t k = 0; k < c->nrpo; k++) {
        uint32_t s = c->rpo[k];
        if (c->pred_start[s + 1] - c->pred_start[s] != 1) continue;
        uint32_t q = c->pred[c->pred_start[s]];
        if (c->succ_start[q + 1] - c->succ_start[q] < 2) continue; /* copies go before q's jump */
        const rv_block *qb = &f->blocks.data[q], *sb = &f->blocks.data[s];
        const rv_inst *t = rv_block_term(f, qb);
        for (uint32_t e = 0; e < rv_inst_nsuccs(t); e++) {
            const rv_succ *sc = &rv_inst_succs(f, t)[e];
            if (sc->block != s) continue;
            for (uint32_t p = 0; p < sc->nargs && p < sb->nparams; p++) {
                uint32_t pv = rv_block_params(f, sb)[p], av = rv_succ_args(f, sc)[p];
                if (a->vs[pv].slot == RAVEL_NONE && (a->vs[av].vflags & VF_GLOBAL)) a->vs[pv].slot = slot_of(a, av);
            }
        }
    }
}

static void ref_step_inst(const ref_ctx *c, const rv_inst *in, uint64_t *live)
{
    const rv_operand *ops = rv_ops_of(c->f, in);
    for (uint32_t d = 0; d < in->ndefs; d++)
        if (c->ridx[ops[d].vreg] != RAVEL_NONE) rv_bs_clear(live, c->ridx[ops[d].vreg]);
    for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++)
        if (c->ridx[ops[u].vreg] != RAVEL_NONE) rv_bs_set(live, c->ridx[ops[u].vreg]);
    for (uint32_t s = 0; s < rv_inst_nsuccs(in); s++) {
        const rv_succ *sc = &rv_inst_succs(c->f, in)[s];
        for (uint32_t k = 0; k < sc->nargs; k++) {
            uint32_t v = rv_succ_args(c->f, sc)[k];
            if (c->ridx[v] != RAVEL_NONE) rv_bs_set(live, c->ridx[v]);
        }
    }
}

/* Records, for each safepoint of block b, the refs live across it in
 * sp_list (backward walk of the block from its live-out set in `live`).
 * False when sp_list passes the stackmaps' limit (the output would be
 * refused: stop before it takes gigabytes). */
static bool ref_walk_block(fa *a, const ref_ctx *c, uint32_t b, uint64_t *live)
{
    const ravel_func *f = a->f;
    const rv_block *bl = &f->blocks.data[b];
    for (uint32_t j = bl->ninsts; j-- > 0;) {
        uint32_t i = bl->first_inst + j;
        const rv_inst *in = rv_inst_at(f, i);
        if (in->flags & RV_IF_SAFEPOINT) {
            const rv_operand *ops = rv_ops_of(f, in);
            a->sp_first[i] = a->sp_list.len;
            for (uint32_t w = 0; w < c->nw; w++)
                for (uint64_t bits = live[w]; bits; bits &= bits - 1) {
                    uint32_t v = c->rvreg[w * 64 + (uint32_t)__builtin_ctzll(bits)];
                    bool defined_here = false;
                    for (uint32_t d = 0; d < in->ndefs; d++) defined_here |= ops[d].vreg == v;
                    if (!defined_here) rv_vec_push(a->sp_list, v);
                }
            for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++)
                if (rv_op_is_late(&ops[u]) && c->ridx[ops[u].vreg] != RAVEL_NONE && !rv_bs_test(live, c->ridx[ops[u].vreg]))
                    rv_vec_push(a->sp_list, ops[u].vreg);
            a->sp_n[i] = a->sp_list.len - a->sp_first[i];
            if (a->sp_list.len > RV_MAX_STACKMAP_ENTRIES) return false;
        }
        ref_step_inst(c, in, live);
    }
    return true;
}

/* The refs live across each safepoint (sp_first, sp_n, sp_list), from the
 * gen/kill sets prepass made. */
static bool safepoint_refs(fa *a)
{
    const ravel_func *f = a->f;
    ref_ctx *c = &a->refs;
    uint32_t nb = a->cfg.nblocks;
    if (!c->nsp) return true;
    rv_dataflow df;
    memset(&df, 0, sizeof df);
    df.cfg = &a->cfg;
    df.nbits = c->ng;
    df.backward = true;
    df.gen = c->gen; /* gen/kill mode (c->gw words per block) */
    df.kill = c->kill;
    rv_dataflow_solve(&df);
    a->sp_first = rv_xmalloc(sizeof(uint32_t) * (f->insts.len + 1));
    a->sp_n = rv_xmalloc(sizeof(uint32_t) * (f->insts.len + 1));
    uint64_t *live = rv_xmalloc(sizeof(uint64_t) * (c->nw + 1));
    bool ok = true;
    for (uint32_t b = 0; b < nb && ok; b++) {
        if (!c->has_sp[b]) continue;
        memset(live, 0, sizeof(uint64_t) * c->nw);
        if (c->gw) memcpy(live, df.out + (size_t)b * c->gw, c->gw * sizeof *live);
        ok = ref_walk_block(a, c, b, live);
    }
    rv_free(live);
    rv_dataflow_free(&df);
    if (!ok) {
        a->out.too_big = true;
        a->err = rv_out_limit_error(&a->out);
        return false;
    }
    /* the stackmaps: inst, count, then the live refs and the rare early .ref defs */
    rv_vec_reserve(a->out.smap, a->sp_list.len + 3 * c->nsp);
    return true;
}

/* ---- register choice ---- */

/* Cost of taking register r for vreg v (lower is better), given the value it
 * holds now: 0 = already holds v, 1 = empty or dying here, 2 = holds a live
 * value with a valid slot, 3 = holds a live value that would need saving. */
static uint32_t take_cost(const fa *a, uint32_t r, uint32_t v, uint32_t i)
{
    uint32_t w = (a->rf[r] & RF_TGT) ? a->tgt[r] : a->content[r]; /* what r will hold */
    if (w == v && v != RAVEL_NONE) return 0;
    if (w == RAVEL_NONE || !live_after(a, w, i)) return 1;
    return (a->vs[w].vflags & VF_SLOT_VALID) ? 2 : 3;
}

/* Picks an allocatable register of v's class whose per-instruction flags
 * share nothing with `forbid`. For a use (for_use), a register already
 * targeted must be targeted to v itself (and share_v allow sharing). The
 * cheapest by take_cost wins, ties by preference order; random mode picks
 * uniformly among the acceptable ones (often v's home). max_cost limits the
 * choice (1 = "only if free"). */
static uint32_t pick_reg(fa *a, uint32_t v, uint32_t cls, uint8_t forbid, bool for_use, bool share_v, uint32_t i,
                         uint32_t max_cost)
{
    const rv_class *c = &a->m->classes.data[cls];
    uint32_t best = RAVEL_NONE, best_cost = max_cost + 1, nacc = 0;
    if (!a->random) { /* fast paths: v's own register, else the first empty one */
        uint32_t cand[2] = {a->vs[v].home, a->vs[v].tgt_stamp == i ? a->vs[v].tgt_of : RAVEL_NONE};
        for (int k = 0; for_use && k < 2; k++) {
            uint32_t r = cand[k];
            if (r == RAVEL_NONE || a->m->regs.data[r].reserved || a->m->regs.data[r].cls != cls || (a->rf[r] & forbid)) continue;
            bool shared = (a->rf[r] & RF_TGT) && a->tgt[r] == v;
            if ((a->rf[r] & RF_TGT) && !(share_v && shared)) continue;
            if (shared || a->content[r] == v) return r;
        }
        for (uint32_t k = 0; max_cost >= 1 && k < c->alloc.len; k++) {
            uint32_t r = c->alloc.data[k];
            if (a->content[r] == RAVEL_NONE && !(a->rf[r] & (forbid | RF_TGT))) return r;
        }
    }
    for (uint32_t k = 0; k < c->alloc.len; k++) {
        uint32_t r = c->alloc.data[k];
        uint8_t fl = a->rf[r];
        if (fl & forbid) continue;
        bool shared = for_use && (fl & RF_TGT) && a->tgt[r] == v;
        if (for_use && (fl & RF_TGT) && !(share_v && shared)) continue;
        uint32_t cost = shared ? 0 : take_cost(a, r, v, i);
        if (cost > max_cost) continue;
        if (a->random) {
            nacc++;
            if (cost == 0 && rv_rng_below(&a->rng, 2)) return r;
            if (rv_rng_below(&a->rng, nacc) == 0) best = r;
            continue;
        }
        if (cost < best_cost) {
            best = r;
            best_cost = cost;
            if (cost == 0) break;
        }
    }
    return best;
}

/* ---- one instruction ---- */

/* Step 1: clobbers, fixed uses and defs, reuse of fixed uses; conflicts. */
static bool claim_fixed(fa *a, uint32_t i, const rv_inst *in, const rv_operand *ops, uint32_t ukinds, uint32_t dkinds)
{
    const uint32_t *clob;
    uint32_t nclob = rv_inst_clobbers(a->f, in, &clob);
    for (uint32_t k = 0; k < nclob; k++) touch(a, clob[k], RF_CLOB);
    for (uint32_t u = in->ndefs; (ukinds & kinds_any(RAVEL_C_FIXED)) && u < (uint32_t)in->ndefs + in->nuses; u++) {
        const rv_operand *o = &ops[u];
        if (o->kind != RAVEL_C_FIXED) continue;
        uint32_t r = o->arg;
        if (rv_op_is_late(o) && (in->flags & RV_IF_SAFEPOINT) && !a->m->gc_nonmoving && vref(a, o->vreg))
            return fail(a, i, "unsatisfiable: a .ref value is read from a register after a moving safepoint", o->vreg);
        if ((a->rf[r] & RF_TOUCHED) && (a->rf[r] & RF_TGT) && a->tgt[r] != o->vreg)
            return fail(a, i, "unsatisfiable: two different values are fixed to the same register", o->vreg);
        touch(a, r, rv_op_is_late(o) ? RF_TGT_L : RF_TGT_E);
        a->tgt[r] = o->vreg;
        a->loc[in->first_op + u] = r;
    }
    for (uint32_t d = 0; (dkinds & (kinds_any(RAVEL_C_FIXED) | kinds_any(RAVEL_C_REUSE))) && d < in->ndefs; d++) {
        const rv_operand *o = &ops[d];
        uint32_t r;
        if (o->kind == RAVEL_C_FIXED) r = o->arg;
        else if (o->kind == RAVEL_C_REUSE && o->arg < in->nuses && ops[in->ndefs + o->arg].kind == RAVEL_C_FIXED)
            r = ops[in->ndefs + o->arg].arg;
        else continue;
        if ((a->rf[r] & RF_TOUCHED) && (a->rf[r] & RF_DEF))
            return fail(a, i, "unsatisfiable: two defs need the same register", o->vreg);
        touch(a, r, rv_op_is_late(o) ? RF_DEF_L : RF_DEF_E);
        a->loc[in->first_op + d] = r;
    }
    for (uint32_t t = 0; t < a->ntouched; t++) {
        uint8_t fl = a->rf[a->touched[t]];
        if ((fl & RF_DEF_E) && (fl & (RF_TGT_E | RF_TGT_L)))
            return fail(a, i, "unsatisfiable: an early def and a use are fixed to the same register", RAVEL_NONE);
        if ((fl & RF_TGT_L) && (fl & (RF_DEF | RF_CLOB)))
            return fail(a, i, "unsatisfiable: a late use is fixed to a register the instruction writes or clobbers", RAVEL_NONE);
    }
    return true;
}

/* Places use operand u (non-fixed). */
static bool place_use(fa *a, uint32_t i, const rv_inst *in, const rv_operand *ops, uint32_t u)
{
    const rv_operand *o = &ops[u];
    uint32_t v = o->vreg, opi = in->first_op + u;
    bool late = rv_op_is_late(o), sp_moving = (in->flags & RV_IF_SAFEPOINT) && !a->m->gc_nonmoving;
    uint32_t d = rv_reuser_of(in, ops, u);
    uint8_t kind = o->kind;
    if (d != RAVEL_NONE && kind == RAVEL_C_STACK) return fail(a, i, "unsatisfiable: reuse of a stack use", v);
    if (d != RAVEL_NONE && kind == RAVEL_C_ANY) kind = RAVEL_C_REG;
    if (d != RAVEL_NONE && late) return fail(a, i, "unsatisfiable: a def reuses a late use", v);
    if (late && sp_moving && vref(a, v) && kind == RAVEL_C_REG)
        return fail(a, i, "unsatisfiable: a .ref value is read from a register after a moving safepoint", v);
    uint8_t forbid = late ? (RF_DEF | RF_CLOB) : RF_DEF_E;
    if (d != RAVEL_NONE) forbid |= RF_DEF | RF_TGT_L;
    if (kind == RAVEL_C_ANY) {
        uint32_t h = a->vs[v].home;
        bool use_slot = late && sp_moving && vref(a, v);
        if (a->random && rv_rng_below(&a->rng, 3) == 0) use_slot = true;
        if (!use_slot && h != RAVEL_NONE) {
            uint8_t fl = (a->rf[h] & RF_TOUCHED) ? a->rf[h] : 0;
            if (!(fl & forbid) && (!(fl & RF_TGT) || a->tgt[h] == v)) {
                touch(a, h, late ? RF_TGT_L : RF_TGT_E);
                a->tgt[h] = v;
                a->loc[opi] = h;
                return true;
            }
        }
        kind = RAVEL_C_STACK;
    }
    if (kind == RAVEL_C_STACK) {
        if (!ensure_spilled(a, v, i)) return false;
        a->loc[opi] = ravel_slot(slot_of(a, v));
        return true;
    }
    uint32_t r = pick_reg(a, v, vcls(a, v), forbid, true, d == RAVEL_NONE, i, 3);
    if (r == RAVEL_NONE) return fail(a, i, "unsatisfiable: no register left for a use", v);
    touch(a, r, late ? RF_TGT_L : RF_TGT_E);
    a->tgt[r] = v;
    a->loc[opi] = r;
    if (a->vs[v].tgt_stamp != i) {
        a->vs[v].tgt_stamp = i;
        a->vs[v].tgt_of = r;
    }
    if (d != RAVEL_NONE) {
        touch(a, r, rv_op_is_late(&ops[d]) ? RF_DEF_L : RF_DEF_E);
        a->loc[in->first_op + d] = r;
    }
    return true;
}

/* Places def operand d (not fixed, not reuse). */
static bool place_def(fa *a, uint32_t i, const rv_inst *in, const rv_operand *ops, uint32_t d)
{
    const rv_operand *o = &ops[d];
    uint32_t v = o->vreg, opi = in->first_op + d;
    bool early = rv_op_is_early(o);
    bool sp_ref = early && (in->flags & RV_IF_SAFEPOINT) && vref(a, v);
    uint8_t forbid = RF_DEF | RF_TGT_L | RF_SURV | (early ? RF_TGT_E : 0);
    uint8_t kind = o->kind;
    if (sp_ref && kind != RAVEL_C_STACK && kind != RAVEL_C_ANY && (a->vs[v].vflags & VF_USED))
        return fail(a, i, "unsatisfiable: an early .ref def in a register does not survive the safepoint", v);
    if (kind == RAVEL_C_ANY) {
        uint32_t r = RAVEL_NONE;
        if (!sp_ref && !(a->random && rv_rng_below(&a->rng, 3) == 0)) r = pick_reg(a, v, vcls(a, v), forbid, false, false, i, 1);
        if (r == RAVEL_NONE) kind = RAVEL_C_STACK;
    }
    if (kind == RAVEL_C_STACK) {
        a->loc[opi] = ravel_slot(slot_of(a, v));
        return true;
    }
    uint32_t r = pick_reg(a, v, vcls(a, v), forbid, false, false, i, 3);
    if (r == RAVEL_NONE) return fail(a, i, "unsatisfiable: no register left for a def", v);
    touch(a, r, early ? RF_DEF_E : RF_DEF_L);
    a->loc[opi] = r;
    return true;
}

/* Step 3: values held in registers that get overwritten (a def, a clobber,
 * another value moved in) and still needed afterwards are rescued to a
 * free register, or spilled. */
static bool rescue(fa *a, uint32_t i)
{
    uint32_t nt = a->ntouched;
    for (uint32_t t = 0; t < nt; t++) {
        uint32_t r = a->touched[t];
        uint32_t w = a->content[r];
        uint8_t fl = a->rf[r];
        if (w == RAVEL_NONE || !live_after(a, w, i) || (a->vs[w].vflags & VF_SLOT_VALID)) continue;
        if (!(fl & (RF_DEF | RF_CLOB)) && (!(fl & RF_TGT) || a->tgt[r] == w)) continue;
        /* w also moved into an unharmed register for a use of this instruction? */
        uint32_t r2 = a->vs[w].tgt_stamp == i ? a->vs[w].tgt_of : RAVEL_NONE;
        if (r2 != RAVEL_NONE && !(a->rf[r2] & (RF_DEF | RF_CLOB)) && !reg_reserved(a, r2)) continue;
        uint32_t s = RAVEL_NONE;
        if (!(a->random && rv_rng_below(&a->rng, 2) == 0)) s = pick_reg(a, w, vcls(a, w), 0xff & ~RF_TOUCHED, false, false, i, 1);
        if (s != RAVEL_NONE && a->content[s] != RAVEL_NONE && live_after(a, a->content[s], i)) s = RAVEL_NONE;
        if (s != RAVEL_NONE) {
            touch(a, s, RF_SURV);
            a->tgt[s] = w;
            a->vs[w].tgt_stamp = i;
            a->vs[w].tgt_of = s;
            if (a->opts && a->opts->trace) rv_alloc_trace(a->opts, a->name, "evict v%u from reg %u to reg %u at inst %u", a->f->vregs.data[w].num, r, s, i);
        } else if (!ensure_spilled(a, w, i)) {
            return false;
        }
    }
    return true;
}

/* Step 4: the parallel move before the instruction. */
static bool shuffle(fa *a, uint32_t i)
{
    for (uint32_t t = 0; t < a->ntouched; t++) {
        uint32_t r = a->touched[t];
        uint32_t v = a->tgt[r];
        if (!(a->rf[r] & RF_TGT) || v == RAVEL_NONE || a->content[r] == v) continue;
        ravel_loc src = cur_loc(a, v);
        if (src == RAVEL_LOC_NONE) return fail(a, i, "internal error: a used value has no location", v);
        add_move(a, r, src, vcls(a, v));
        if (a->opts && a->opts->trace)
            rv_alloc_trace(a->opts, a->name, "%s v%u into %s before inst %u", ravel_loc_is_slot(src) ? "reload" : "move",
                           a->f->vregs.data[v].num, a->m->regs.data[r].name, i);
    }
    if (!a->moves.len) return true;
    if (a->moves.len == 1 && rv_edit_kind(a->moves.data[0].dst, a->moves.data[0].src) != RAVEL_OP_OTHER) {
        rv_out_copy(&a->out, rv_anchor_before(i), a->moves.data[0].dst, a->moves.data[0].src); /* the most common case */
        return true;
    }
    if (rv_pmove_simple(&a->pm, a->moves.data, a->moves.len)) { /* the common case: no cycle, no scratch needed */
        rv_out_edits(&a->out, rv_anchor_before(i), &a->pm);
        return true;
    }
    /* scratch: allocatable registers not touched and holding nothing */
    uint32_t nw = rv_bs_words(a->nregs);
    memset(a->scratch_bs, 0, nw * sizeof(uint64_t));
    for (uint32_t r = 0; r < a->nregs; r++)
        if (!reg_reserved(a, r) && a->content[r] == RAVEL_NONE && !(a->rf[r] & RF_TOUCHED)) rv_bs_set(a->scratch_bs, r);
    a->scratch_used = 0;
    if (rv_pmove_resolve(&a->pm, a->m, a->moves.data, a->moves.len, a->scratch_bs, new_scratch_slot, a) != RAVEL_OK)
        return fail(a, i, "internal error: conflicting moves", RAVEL_NONE);
    rv_out_edits(&a->out, rv_anchor_before(i), &a->pm);
    return true;
}

/* Step 5: register state after the instruction. */
static void update_state(fa *a, uint32_t i, const rv_inst *in, const rv_operand *ops)
{
    bool sp = (in->flags & RV_IF_SAFEPOINT) != 0;
    /* pass 1: registers overwritten or given another value lose their content */
    for (uint32_t t = 0; t < a->ntouched; t++) {
        uint32_t r = a->touched[t];
        uint8_t fl = a->rf[r];
        bool keeps = (fl & RF_TGT) && !(fl & (RF_DEF | RF_CLOB)) && a->tgt[r] == a->content[r];
        if (!keeps && a->content[r] != RAVEL_NONE) set_content(a, r, RAVEL_NONE);
    }
    /* pass 2: a value moved into an unharmed register lives there unless it
     * still has a home (reserved registers are never homes) */
    for (uint32_t t = 0; t < a->ntouched; t++) {
        uint32_t r = a->touched[t];
        uint8_t fl = a->rf[r];
        uint32_t v = a->tgt[r];
        if (!(fl & RF_TGT) || (fl & (RF_DEF | RF_CLOB)) || v == RAVEL_NONE || reg_reserved(a, r)) continue;
        if (a->vs[v].home == RAVEL_NONE) set_content(a, r, v);
    }
    /* values whose home survived but were only copies elsewhere are fine;
     * dying values are forgotten */
    for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++) {
        uint32_t v = ops[u].vreg;
        if (!live_after(a, v, i) && a->vs[v].home != RAVEL_NONE) set_content(a, a->vs[v].home, RAVEL_NONE);
    }
    if (sp)
        for (uint32_t r = 0; r < a->nregs; r++)
            if (a->content[r] != RAVEL_NONE && vref(a, a->content[r])) set_content(a, r, RAVEL_NONE);
}

/* Step 6: defs land; global defs are spilled, dead ones forgotten, defs in
 * reserved registers moved to a free register or spilled. */
static void land_defs(fa *a, uint32_t i, const rv_inst *in, const rv_operand *ops)
{
    for (uint32_t d = 0; d < in->ndefs; d++) {
        uint32_t v = ops[d].vreg, opi = in->first_op + d;
        ravel_loc l = a->loc[opi];
        bool used_later = !(a->oflags[opi] & OF_KILL);
        if (a->opts && a->opts->trace) {
            char buf[32];
            rv_alloc_trace(a->opts, a->name, "allocate v%u to %s at inst %u", a->f->vregs.data[v].num, rv_loc_str(a->m, l, buf), i);
        }
        bool global = (a->vs[v].vflags & VF_GLOBAL) != 0;
        if (ravel_loc_is_slot(l)) {
            a->vs[v].vflags |= VF_SLOT_VALID;
            continue;
        }
        if (global) {
            rv_out_edit(&a->out, rv_anchor_after(i), RAVEL_OP_SPILL, ravel_slot(slot_of(a, v)), l);
            a->vs[v].vflags |= VF_SLOT_VALID;
        }
        if (!used_later) continue;
        if (!reg_reserved(a, l)) {
            set_content(a, l, v);
            continue;
        }
        uint32_t r = pick_reg(a, v, vcls(a, v), 0xff & ~RF_TOUCHED, false, false, i, 1);
        if (r != RAVEL_NONE && a->content[r] == RAVEL_NONE) {
            rv_out_edit(&a->out, rv_anchor_after(i), RAVEL_OP_MOVE, r, l);
            set_content(a, r, v);
        } else if (!global) {
            rv_out_edit(&a->out, rv_anchor_after(i), RAVEL_OP_SPILL, ravel_slot(slot_of(a, v)), l);
            a->vs[v].vflags |= VF_SLOT_VALID;
        }
    }
}

/* The stackmap of safepoint i: slots of the refs live across it and of the
 * early .ref defs placed in slots. Spills them first if needed. */
static bool safepoint(fa *a, uint32_t i, const rv_inst *in, const rv_operand *ops)
{
    a->smap.len = 0;
    if (a->sp_first)
        for (uint32_t k = a->sp_first[i]; k < a->sp_first[i] + a->sp_n[i]; k++) {
            uint32_t v = a->sp_list.data[k];
            if (!ensure_spilled(a, v, i)) return false;
            rv_vec_push(a->smap, a->vs[v].slot);
        }
    for (uint32_t d = 0; d < in->ndefs; d++) {
        ravel_loc l = a->loc[in->first_op + d];
        if (!rv_op_is_early(&ops[d]) || !vref(a, ops[d].vreg)) continue;
        if (ravel_loc_is_slot(l)) rv_vec_push(a->smap, ravel_loc_slot(l));
        else if (a->vs[ops[d].vreg].vflags & VF_USED)
            return fail(a, i, "unsatisfiable: an early .ref def in a register does not survive the safepoint", ops[d].vreg);
    }
    rv_out_stackmap(&a->out, i, a->smap.data, a->smap.len);
    return true;
}

/* Random mode: a gratuitous move, spill, drop (reloaded on demand) or round
 * trip through a reserved register of one register's value. */
static void random_noise(fa *a, uint32_t i)
{
    if (rv_rng_below(&a->rng, 4) != 0 || a->nregs == 0) return;
    uint32_t r = rv_rng_below(&a->rng, a->nregs), v = a->content[r];
    if (v == RAVEL_NONE || reg_reserved(a, r)) return;
    uint32_t what = rv_rng_below(&a->rng, 4);
    if (what == 3) { /* a round trip through a reserved register of the class, if any */
        for (uint32_t t = 0; t < a->nregs; t++)
            if (reg_reserved(a, t) && a->m->regs.data[t].cls == vcls(a, v)) {
                rv_out_edit(&a->out, rv_anchor_before(i), RAVEL_OP_MOVE, t, r);
                rv_out_edit(&a->out, rv_anchor_before(i), RAVEL_OP_MOVE, r, t);
                break;
            }
        return;
    }
    if (what == 0) { /* move to an empty register of the class */
        const rv_class *c = &a->m->classes.data[vcls(a, v)];
        uint32_t s = c->alloc.data[rv_rng_below(&a->rng, c->alloc.len)];
        if (a->content[s] != RAVEL_NONE) return;
        rv_out_edit(&a->out, rv_anchor_before(i), RAVEL_OP_MOVE, s, r);
        set_content(a, r, RAVEL_NONE);
        set_content(a, s, v);
        return;
    }
    if (!(a->vs[v].vflags & VF_SLOT_VALID)) {
        rv_out_edit(&a->out, rv_anchor_before(i), RAVEL_OP_SPILL, ravel_slot(slot_of(a, v)), r);
        a->vs[v].vflags |= VF_SLOT_VALID;
    }
    if (what == 2) set_content(a, r, RAVEL_NONE); /* drop: reloaded on demand */
}

static bool fa_inst(fa *a, uint32_t i)
{
    const rv_inst *in = rv_inst_at(a->f, i);
    const rv_operand *ops = rv_ops_of(a->f, in);
    uint32_t nd = in->ndefs, nops = nd + in->nuses;
    if (a->random) random_noise(a, i);
    a->moves.len = 0;
    a->ntouched = 0;
    /* which constraint kinds occur at which position among the uses / defs:
     * the steps below skip the absent ones (most instructions have one or
     * two) */
    uint32_t ukinds = 0, dkinds = 0;
    for (uint32_t d = 0; d < nd; d++) dkinds |= kind_bit(&ops[d]);
    for (uint32_t u = nd; u < nops; u++) {
        if (a->oflags[in->first_op + u] & OF_KILL) a->vs[ops[u].vreg].kill_at = i;
        ukinds |= kind_bit(&ops[u]);
    }
    bool reuse = (dkinds & kinds_any(RAVEL_C_REUSE)) != 0; /* else rv_reuser_of() is always RAVEL_NONE */
    bool ok = claim_fixed(a, i, in, ops, ukinds, dkinds);
    /* register uses (late first: they avoid every def), then register
     * defs (early first), then the flexible any/stack operands */
    for (int late = 1; late >= 0; late--)
        for (uint32_t u = nd; ok && u < nops && (ukinds & kinds_at(RAVEL_C_REG, late)); u++)
            if (ops[u].kind == RAVEL_C_REG && rv_op_is_late(&ops[u]) == (late != 0)) ok = place_use(a, i, in, ops, u);
    for (uint32_t u = nd; ok && u < nops && (ukinds & kinds_any(RAVEL_C_FIXED)); u++) /* fixed uses: remember the target for rescue */
        if (ops[u].kind == RAVEL_C_FIXED && !reg_reserved(a, ops[u].arg) && a->vs[ops[u].vreg].tgt_stamp != i) {
            a->vs[ops[u].vreg].tgt_stamp = i;
            a->vs[ops[u].vreg].tgt_of = ops[u].arg;
        }
    for (uint32_t u = nd; ok && reuse && u < nops && (ukinds & kinds_any(RAVEL_C_ANY)); u++) /* uses reused by a def need a register now */
        if (ops[u].kind == RAVEL_C_ANY && rv_reuser_of(in, ops, u) != RAVEL_NONE) ok = place_use(a, i, in, ops, u);
    for (int late = 0; late < 2; late++)
        for (uint32_t d = 0; ok && d < nd && (dkinds & kinds_at(RAVEL_C_REG, late)); d++)
            if (ops[d].kind == RAVEL_C_REG && rv_op_is_late(&ops[d]) == (late != 0)) ok = place_def(a, i, in, ops, d);
    for (int late = 1; late >= 0; late--)
        for (uint32_t u = nd; ok && u < nops && (ukinds & (kinds_at(RAVEL_C_STACK, late) | kinds_at(RAVEL_C_ANY, late))); u++)
            if ((ops[u].kind == RAVEL_C_STACK || (ops[u].kind == RAVEL_C_ANY && (!reuse || rv_reuser_of(in, ops, u) == RAVEL_NONE))) &&
                rv_op_is_late(&ops[u]) == (late != 0))
                ok = place_use(a, i, in, ops, u);
    for (uint32_t d = 0; ok && d < nd && (dkinds & (kinds_any(RAVEL_C_STACK) | kinds_any(RAVEL_C_ANY))); d++)
        if (ops[d].kind == RAVEL_C_ANY || ops[d].kind == RAVEL_C_STACK) ok = place_def(a, i, in, ops, d);
    for (uint32_t d = 0; ok && reuse && d < nd; d++) /* other defs are placed by now */
        if (a->loc[in->first_op + d] == RAVEL_LOC_NONE) ok = fail(a, i, "unsatisfiable: bad reuse", ops[d].vreg);
    if (ok && (in->flags & RV_IF_SAFEPOINT)) ok = safepoint(a, i, in, ops);
    if (ok) ok = rescue(a, i);
    if (ok) ok = shuffle(a, i);
    if (ok) {
        update_state(a, i, in, ops);
        land_defs(a, i, in, ops);
    }
    for (uint32_t t = 0; t < a->ntouched; t++) a->rf[a->touched[t]] = 0;
    a->ntouched = 0;
    return ok;
}

/* ---- edges ---- */

/* Copies the jump arguments' slots into the used parameters' slots. */
static bool fa_edges(fa *a, uint32_t b)
{
    const ravel_func *f = a->f;
    const rv_block *bl = &f->blocks.data[b];
    const rv_inst *t = rv_block_term(f, bl);
    uint32_t ti = bl->first_inst + bl->ninsts - 1;
    for (uint32_t k = 0; k < rv_inst_nsuccs(t); k++) {
        const rv_succ *sc = &rv_inst_succs(f, t)[k];
        const rv_block *sb = &f->blocks.data[sc->block];
        a->moves.len = 0;
        bool at_exit = false;
        uint32_t anchor = rv_edge_anchor(f, &a->cfg, b, k, &at_exit);
        if (anchor == RAVEL_NONE) at_exit = false;
        for (uint32_t p = 0; p < sc->nargs && p < sb->nparams; p++) {
            uint32_t pv = rv_block_params(f, sb)[p], av = rv_succ_args(f, sc)[p];
            if (!(a->vs[pv].vflags & VF_USED)) continue;
            ravel_loc src = at_exit ? cur_loc(a, av) : ravel_slot(slot_of(a, av));
            if (src == RAVEL_LOC_NONE) return fail(a, ti, "internal error: a jump argument has no location", av);
            add_move(a, ravel_slot(slot_of(a, pv)), src, vcls(a, pv));
        }
        if (!a->moves.len) continue;
        if (anchor == RAVEL_NONE) { /* duplicate edges b -> s: fine if all carry the same arguments */
            for (uint32_t k2 = 0; k2 < rv_inst_nsuccs(t); k2++) {
                const rv_succ *s2 = &rv_inst_succs(f, t)[k2];
                if (s2->block != sc->block) continue;
                if (k2 < k) goto next_edge; /* done at the first such edge */
                if (sc->nargs && memcmp(rv_succ_args(f, s2), rv_succ_args(f, sc), sizeof(uint32_t) * sc->nargs) != 0)
                    return fail(a, ti, "unsatisfiable: critical edge with different arguments", RAVEL_NONE);
            }
            uint32_t np = a->cfg.pred_start[sc->block + 1] - a->cfg.pred_start[sc->block];
            for (uint32_t q = 0; q < np; q++)
                if (a->cfg.pred[a->cfg.pred_start[sc->block] + q] != b)
                    return fail(a, ti, "unsatisfiable: critical edge (split it)", RAVEL_NONE);
            anchor = rv_anchor_entry(sb->first_inst);
        }
        if (rv_pmove_simple(&a->pm, a->moves.data, a->moves.len)) { /* no cycle: no scratch needed */
            rv_out_edits(&a->out, anchor, &a->pm);
            continue;
        }
        uint32_t nw = rv_bs_words(a->nregs);
        for (uint32_t w = 0; w < nw; w++) a->scratch_bs[w] = 0;
        for (uint32_t r = 0; r < a->nregs; r++) /* registers holding values may be inherited or read */
            if (!reg_reserved(a, r) && a->content[r] == RAVEL_NONE) rv_bs_set(a->scratch_bs, r);
        a->scratch_used = 0;
        if (rv_pmove_resolve(&a->pm, a->m, a->moves.data, a->moves.len, a->scratch_bs, new_scratch_slot, a) != RAVEL_OK)
            return fail(a, ti, "internal error: conflicting edge moves", RAVEL_NONE);
        rv_out_edits(&a->out, anchor, &a->pm);
    next_edge:;
    }
    return true;
}

/* An heir block starts with the registers its predecessor ended with,
 * restricted to the values it reads. Sound: the only way in is that edge,
 * whose copies use only empty registers as scratch (fa_edges), and every
 * inherited value is global, so its slot stays valid too. */
static void inherit(fa *a, uint32_t b)
{
    uint32_t q = a->heir_src[b];
    if (q == RAVEL_NONE || a->snap_start[q] == RAVEL_NONE) return;
    for (uint32_t k = a->gen_start[b]; k < a->gen_start[b + 1]; k++) a->vs[a->gen.data[k]].stamp = b;
    for (uint32_t k = 0; k < a->snap_len[q]; k += 2) {
        uint32_t r = a->snap.data[a->snap_start[q] + k], v = a->snap.data[a->snap_start[q] + k + 1];
        if (a->vs[v].stamp == b && (a->vs[v].vflags & VF_GLOBAL) && a->vs[v].home == RAVEL_NONE) set_content(a, r, v);
    }
    for (uint32_t k = a->gen_start[b]; k < a->gen_start[b + 1]; k++) a->vs[a->gen.data[k]].stamp = RAVEL_NONE;
}

static bool fa_block(fa *a, uint32_t b)
{
    const rv_block *bl = &a->f->blocks.data[b];
    for (uint32_t r = 0; r < a->nregs; r++)
        if (a->content[r] != RAVEL_NONE) set_content(a, r, RAVEL_NONE);
    inherit(a, b);
    for (uint32_t p = 0; p < bl->nparams; p++) {
        uint32_t v = rv_block_params(a->f, bl)[p];
        slot_of(a, v);
        a->vs[v].vflags |= VF_SLOT_VALID;
    }
    for (uint32_t j = 0; j < bl->ninsts; j++)
        if (!fa_inst(a, bl->first_inst + j)) return false;
    if (!fa_edges(a, b)) return false;
    a->snap_start[b] = a->snap.len; /* what an heir may inherit */
    for (uint32_t r = 0; r < a->nregs; r++)
        if (a->content[r] != RAVEL_NONE) {
            rv_vec_push(a->snap, r);
            rv_vec_push(a->snap, a->content[r]);
        }
    a->snap_len[b] = a->snap.len - a->snap_start[b];
    return true;
}

/* ---- driver ---- */

static void fa_init(fa *a, const ravel_func *f, const rv_alloc_opts *o, bool random)
{
    memset(a, 0, sizeof *a);
    a->f = f;
    a->m = f->mach;
    a->opts = o;
    a->random = random;
    a->name = random ? "random" : "fast";
    a->rng = (o ? o->seed : 0) ^ 0x5eedf00dull;
    a->nregs = a->m->regs.len;
    uint32_t nv = f->vregs.len + 1, nr = a->nregs + 1;
    a->vs = rv_xmalloc(sizeof(fa_vreg) * nv);
    for (uint32_t v = 0; v < nv; v++) {
        fa_vreg x = {RAVEL_NONE, RAVEL_NONE, RAVEL_NONE, RAVEL_NONE, RAVEL_NONE, RAVEL_NONE, 0};
        a->vs[v] = x;
    }
    a->oflags = rv_xcalloc(f->ops.len + 1, 1);
    a->content = rv_xmalloc(sizeof(uint32_t) * nr);
    memset(a->content, 0xff, sizeof(uint32_t) * nr);
    a->rf = rv_xcalloc(nr, 1);
    a->tgt = rv_xmalloc(sizeof(uint32_t) * nr);
    a->touched = rv_xmalloc(sizeof(uint32_t) * nr);
    a->scratch_bs = rv_xcalloc(rv_bs_words(a->nregs) + 1, sizeof(uint64_t));
    a->scratch_slot[0] = a->scratch_slot[1] = RAVEL_NONE;
    if (random) a->next_slot = rv_rng_below(&a->rng, 4);
    rv_cfg_build(&a->cfg, f);
    a->snap_start = rv_xmalloc(sizeof(uint32_t) * (a->cfg.nblocks + 1));
    a->snap_len = rv_xcalloc(a->cfg.nblocks + 1, sizeof(uint32_t));
    memset(a->snap_start, 0xff, sizeof(uint32_t) * (a->cfg.nblocks + 1));
    rv_out_init(&a->out, f);
    a->loc = a->out.loc;
    rv_vec_reserve(a->out.edits, f->insts.len + f->insts.len / 2 + 16); /* typical edit count: no regrowth */
    rv_pmove_init(&a->pm);
}

static void fa_free(fa *a)
{
    rv_free(a->vs);
    rv_free(a->oflags);
    rv_free(a->content);
    rv_free(a->rf);
    rv_free(a->tgt);
    rv_free(a->touched);
    rv_free(a->scratch_bs);
    rv_free(a->sp_first);
    rv_free(a->sp_n);
    rv_free(a->heir_src);
    rv_free(a->gen_start);
    rv_free(a->snap_start);
    rv_free(a->snap_len);
    rv_vec_free(a->gen);
    rv_vec_free(a->snap);
    rv_vec_free(a->sp_list);
    ref_ctx_free(&a->refs);
    rv_vec_free(a->moves);
    rv_vec_free(a->smap);
    rv_cfg_free(&a->cfg);
    rv_out_free(&a->out);
    rv_pmove_free(&a->pm);
}

ravel_func *rv_fast_run(const ravel_func *f, const rv_alloc_opts *o, char **err, bool random)
{
    fa a;
    fa_init(&a, f, o, random);
    bool ok = prepass(&a);
    if (ok) {
        share_param_slots(&a);
        ok = safepoint_refs(&a);
    }
    for (uint32_t b = 0; ok && b < a.cfg.nblocks; b++) ok = fa_block(&a, b);
    ravel_func *g = ok ? rv_out_finish(&a.out) : NULL;
    if (ok && !g && !a.err) a.err = rv_out_limit_error(&a.out);
    if (g) { /* (a.err is NULL then) */
        rv_free(a.err);
        a.err = NULL;
    }
    if (err) *err = a.err;
    else rv_free(a.err);
    fa_free(&a);
    return g;
}

ravel_func *rv_alloc_fast(const ravel_func *f, const rv_alloc_opts *o, char **err) { return rv_fast_run(f, o, err, false); }
