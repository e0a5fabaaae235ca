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
 *     no copy is needed: rv_fast_share_param_slots).
 *   - Within a block, registers are assigned on demand. Each instruction is
 *     handled in steps (rv_fast_inst): claim fixed registers and clobbers; place
 *     register uses (late, then early), register defs (early, then late),
 *     then the flexible any/stack operands, each step avoiding what the
 *     earlier ones claimed;
 *     rescue values whose register gets overwritten (to a free register,
 *     else their slot); then ONE parallel move (reloads, moves into fixed
 *     registers, rescues, spills) runs before the instruction.
 *   - Containment (docs/format.md section 14.1): values live only in homes
 *     (rv_alloc_homes: allocatable registers of which no two overlap; the
 *     others act as reserved). A register the instruction names that
 *     overlaps homes (a part) claims them (claim_overlaps: their values are
 *     rescued, no operand goes there, a def of the part is one of them), and
 *     a value moved into a part is written after the parallel move, from a
 *     slot (part_move), so no move reads a home that a part write destroyed.
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
 * eviction and spill.
 *
 * Files: fast.h (the context, in parts: regs, eb, sp; the helpers every
 * pass uses), fast_prepass.c (the pre-passes), fast_inst.c (register
 * choice and one instruction), this file (edges, blocks, the driver). */
#include "fast.h"

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
        for (uint32_t w = 0; w < nw; w++) a->regs.scratch_bs[w] = 0;
        for (uint32_t r = 0; r < a->nregs; r++) /* registers holding values may be inherited or read */
            if (reg_home(a, r) && a->regs.content[r] == RAVEL_NONE) rv_bs_set(a->regs.scratch_bs, r);
        a->scratch_used = 0;
        if (rv_pmove_resolve(&a->pm, a->m, a->moves.data, a->moves.len, a->regs.scratch_bs, new_scratch_slot, a) != RAVEL_OK)
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
    uint32_t q = a->eb.heir_src[b];
    if (q == RAVEL_NONE || a->eb.snap_start[q] == RAVEL_NONE) return;
    for (uint32_t k = a->eb.gen_start[b]; k < a->eb.gen_start[b + 1]; k++) a->vs[a->eb.gen.data[k]].stamp = b;
    for (uint32_t k = 0; k < a->eb.snap_len[q]; k += 2) {
        uint32_t r = a->eb.snap.data[a->eb.snap_start[q] + k], v = a->eb.snap.data[a->eb.snap_start[q] + k + 1];
        if (a->vs[v].stamp == b && (a->vs[v].vflags & VF_GLOBAL) && a->vs[v].home == RAVEL_NONE) set_content(a, r, v);
    }
    for (uint32_t k = a->eb.gen_start[b]; k < a->eb.gen_start[b + 1]; k++) a->vs[a->eb.gen.data[k]].stamp = RAVEL_NONE;
}

static bool fa_block(fa *a, uint32_t b)
{
    const rv_block *bl = &a->f->blocks.data[b];
    for (uint32_t r = 0; r < a->nregs; r++)
        if (a->regs.content[r] != RAVEL_NONE) set_content(a, r, RAVEL_NONE);
    inherit(a, b);
    for (uint32_t p = 0; p < bl->nparams; p++) {
        uint32_t v = rv_block_params(a->f, bl)[p];
        slot_of(a, v);
        a->vs[v].vflags |= VF_SLOT_VALID;
    }
    for (uint32_t j = 0; j < bl->ninsts; j++)
        if (!rv_fast_inst(a, bl->first_inst + j)) return false;
    if (!fa_edges(a, b)) return false;
    a->eb.snap_start[b] = a->eb.snap.len; /* what an heir may inherit */
    for (uint32_t r = 0; r < a->nregs; r++)
        if (a->regs.content[r] != RAVEL_NONE) {
            rv_vec_push(a->eb.snap, r);
            rv_vec_push(a->eb.snap, a->regs.content[r]);
        }
    a->eb.snap_len[b] = a->eb.snap.len - a->eb.snap_start[b];
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
    a->home_ok = rv_alloc_homes(a->m);
    a->alias = rv_mach_has_alias(a->m);
    uint32_t nv = f->vregs.len + 1, nr = a->nregs + 1;
    a->vs = rv_xmalloc(sizeof(fa_vreg) * nv);
    for (uint32_t v = 0; v < nv; v++) {
        fa_vreg x = {RAVEL_NONE, RAVEL_NONE, RAVEL_NONE, RAVEL_NONE, RAVEL_NONE, RAVEL_NONE, 0};
        a->vs[v] = x;
    }
    a->live_after = rv_xcalloc(f->ops.len + 1, 1);
    a->regs.content = rv_xmalloc(sizeof(uint32_t) * nr);
    memset(a->regs.content, 0xff, sizeof(uint32_t) * nr);
    a->regs.rf = rv_xcalloc(nr, 1);
    a->regs.tgt = rv_xmalloc(sizeof(uint32_t) * nr);
    a->regs.touched = rv_xmalloc(sizeof(uint32_t) * nr);
    a->regs.scratch_bs = rv_xcalloc(rv_bs_words(a->nregs) + 1, sizeof(uint64_t));
    a->scratch_slot[0] = a->scratch_slot[1] = RAVEL_NONE;
    if (random) a->next_slot = rv_rng_below(&a->rng, 4);
    rv_cfg_build(&a->cfg, f);
    a->eb.snap_start = rv_xmalloc(sizeof(uint32_t) * (a->cfg.nblocks + 1));
    a->eb.snap_len = rv_xcalloc(a->cfg.nblocks + 1, sizeof(uint32_t));
    memset(a->eb.snap_start, 0xff, sizeof(uint32_t) * (a->cfg.nblocks + 1));
    rv_out_init(&a->out, f);
    a->loc = a->out.loc;
    rv_vec_reserve(a->out.edits, f->insts.len + f->insts.len / 2 + 16); /* typical edit count: no regrowth */
    rv_pmove_init(&a->pm);
}

static void fa_free(fa *a)
{
    rv_free(a->vs);
    rv_free(a->home_ok);
    rv_vec_free(a->part_moves);
    rv_free(a->live_after);
    rv_free(a->regs.content);
    rv_free(a->regs.rf);
    rv_free(a->regs.tgt);
    rv_free(a->regs.touched);
    rv_free(a->regs.scratch_bs);
    rv_free(a->sp.first);
    rv_free(a->sp.n);
    rv_free(a->eb.heir_src);
    rv_free(a->eb.gen_start);
    rv_free(a->eb.snap_start);
    rv_free(a->eb.snap_len);
    rv_vec_free(a->eb.gen);
    rv_vec_free(a->eb.snap);
    rv_vec_free(a->sp.list);
    rv_fast_ref_free(&a->sp.refs);
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
    bool ok = rv_fast_prepass(&a);
    if (ok) {
        rv_fast_share_param_slots(&a);
        ok = rv_fast_safepoint_refs(&a);
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

