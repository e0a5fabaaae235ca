/* fast_prepass.c - the `fast` allocator's pre-passes (see the strategy at
 * the top of fast.c), run once before the blocks are allocated.
 *
 * Requires: the context initialised (fa_init in fast.c: cfg, per-vreg
 * state, the output); f as fast.c requires.
 * Guarantees: the GLOBAL/USED flags and slots' validity at defs of global
 * vregs; per operand, whether its vreg is live after it (the shared walk,
 * rv_live_after_walk); each block's upward-exposed uses and heir source
 * (a->eb); parameters sharing their argument's slot where no copy is
 * needed; the refs live across every safepoint (a->sp), from one gen/kill
 * dataflow over the global refs and a walk of each block with a safepoint.
 * False (a->err set) only when the .ref sets would be too large. */
#include "fast.h"

/* ---- pre-passes ---- */

/* Dense sets cost nblocks x global refs bits (four times): refuse beyond this. */
#define FA_MAX_REF_BITS ((uint64_t)1 << 31)

void rv_fast_ref_free(ref_ctx *c)
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
    a->eb.gen_start = rv_xmalloc(sizeof(uint32_t) * (n + 1));
    a->eb.heir_src = rv_xmalloc(sizeof(uint32_t) * (n + 1));
    rv_vec_reserve(a->eb.gen, f->ops.len + 1); /* at most one entry per use: no regrowth */
    for (uint32_t b = 0; b < n; b++) {
        const rv_block *bl = &f->blocks.data[b];
        a->eb.gen_start[b] = a->eb.gen.len;
        uint32_t np = a->cfg.pred_start[b + 1] - a->cfg.pred_start[b];
        uint32_t q = np == 1 ? a->cfg.pred[a->cfg.pred_start[b]] : RAVEL_NONE;
        a->eb.heir_src[b] = q != RAVEL_NONE && q < b ? q : RAVEL_NONE;
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
                rv_vec_push(a->eb.gen, v);
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
    a->eb.gen_start[n] = a->eb.gen.len;
    for (uint32_t k = 0; k < a->eb.gen.len; k++) a->vs[a->eb.gen.data[k]].stamp = RAVEL_NONE;
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

/* The per-operand answers of block b (a->live_after): the shared walk
 * (rv_live_after_walk) with fast's rule, RV_LA_NEXT_READ: an operand's
 * vreg is live after it if read again below it in b, or kept to b's end;
 * what b keeps to its end is what an heir successor reads (it inherits
 * b's registers) and, on a jump whose copies run before it (one
 * successor), the values b itself defines and passes (in their registers
 * to the end); other arguments are read from their slots. */
static void fa_kills(fa *a, uint32_t b, const uint32_t *def_block, rv_sset *live)
{
    const ravel_func *f = a->f;
    const rv_block *bl = &f->blocks.data[b];
    live->n = 0;
    for (uint32_t e = a->cfg.succ_start[b]; e < a->cfg.succ_start[b + 1]; e++) {
        uint32_t sb = a->cfg.succ[e];
        if (a->eb.heir_src[sb] != b) continue;
        for (uint32_t k = a->eb.gen_start[sb]; k < a->eb.gen_start[sb + 1]; k++) rv_sset_add(live, a->eb.gen.data[k]);
    }
    const rv_inst *t = rv_block_term(f, bl);
    bool at_exit = a->cfg.succ_start[b + 1] - a->cfg.succ_start[b] == 1;
    for (uint32_t s = 0; at_exit && t && s < rv_inst_nsuccs(t); s++) {
        const rv_succ *sc = &rv_inst_succs(f, t)[s];
        for (uint32_t k = 0; k < sc->nargs; k++)
            if (def_block[rv_succ_args(f, sc)[k]] == b) rv_sset_add(live, rv_succ_args(f, sc)[k]);
    }
    rv_live_after_walk(f, b, live, a->live_after, RV_LA_NO_ARGS | RV_LA_NEXT_READ, NULL);
}

/* Global vregs, use flags, the per-operand answers (fa_kills), the
 * blocks' upward-exposed uses and heirs, and, when the function has
 * safepoints, the gen/kill sets of the global refs (a->sp.refs). False only
 * when the .ref sets would be too large. */
bool rv_fast_prepass(fa *a)
{
    const ravel_func *f = a->f;
    uint32_t nv = f->vregs.len, n = a->cfg.nblocks;
    ref_ctx *c = &a->sp.refs;
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
    rv_sset live = {rv_xmalloc(sizeof(uint32_t) * (nv + 1)), rv_xcalloc(nv + 1, sizeof(uint32_t)), 0};
    for (uint32_t b = 0; b < n; b++) {
        fa_kills(a, b, def_block, &live);
        if (refs) /* the global refs' gen/kill sets: the shared transfer, bit ridx[v] (< ng) */
            rv_block_gen_kill(f, b, c->gen + (size_t)b * c->gw, c->kill + (size_t)b * c->gw, 0, NULL, c->ridx, c->ng);
    }
    rv_free(live.dense);
    rv_free(live.pos);
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
void rv_fast_share_param_slots(fa *a)
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
            a->sp.first[i] = a->sp.list.len;
            for (uint32_t w = 0; w < c->nw; w++)
                for (uint64_t bits = live[w]; bits; bits &= bits - 1) {
                    uint32_t v = c->rvreg[w * 64 + (uint32_t)__builtin_ctzll(bits)];
                    bool defined_here = false;
                    for (uint32_t d = 0; d < in->ndefs; d++) defined_here |= ops[d].vreg == v;
                    if (!defined_here) rv_vec_push(a->sp.list, v);
                }
            for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++)
                if (rv_op_is_late(&ops[u]) && c->ridx[ops[u].vreg] != RAVEL_NONE && !rv_bs_test(live, c->ridx[ops[u].vreg]))
                    rv_vec_push(a->sp.list, ops[u].vreg);
            a->sp.n[i] = a->sp.list.len - a->sp.first[i];
            if (a->sp.list.len > RV_MAX_STACKMAP_ENTRIES) return false;
        }
        ref_step_inst(c, in, live);
    }
    return true;
}

/* The refs live across each safepoint (sp_first, sp_n, sp_list), from the
 * gen/kill sets rv_fast_prepass made. */
bool rv_fast_safepoint_refs(fa *a)
{
    const ravel_func *f = a->f;
    ref_ctx *c = &a->sp.refs;
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
    a->sp.first = rv_xmalloc(sizeof(uint32_t) * (f->insts.len + 1));
    a->sp.n = rv_xmalloc(sizeof(uint32_t) * (f->insts.len + 1));
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
    rv_vec_reserve(a->out.smap, a->sp.list.len + 3 * c->nsp);
    return true;
}

