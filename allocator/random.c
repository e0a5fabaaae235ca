/* random.c - the `random` allocator: a random legal allocation from the
 * seed, made to stress checkers.
 *
 * Requires: f unallocated, valid SSA, finished. Guarantees: the alloc.h
 * contract; deterministic from the seed (the same seed and function always
 * give the same text, whichever compiler built ravel).
 *
 * Two modes, chosen per function from the seed (rs_mode):
 *
 *   classic  the engine of `fast` making random legal choices (rv_fast_run,
 *            fast.c): values cross block boundaries in their spill slots.
 *
 *   shapes   the shapes production allocators (regalloc2's Ion, LLVM's
 *            greedy, Cranelift) leave in their output, on any CFG:
 *            - every block has an entry contract: for each value live into
 *              it (parameters included) one location, register or slot,
 *              chosen at random when the first incoming edge is resolved;
 *            - each edge establishes the contract with one parallel move of
 *              the predecessor's current locations into it, placed in the
 *              predecessor before its jump (one successor) or in the
 *              successor at its entry (one predecessor): a join is reached
 *              with a value in different locations on different edges and
 *              merged by moves into the location it expects;
 *            - between instructions values are split: moved to another
 *              register, spilled (often dropping the register), reloaded;
 *            - before a branch, values live into several successors are
 *              spilled in the predecessor and reloaded by each successor;
 *            - spill slots are shared between values whose live ranges do
 *              not overlap: a slot is reused as soon as its value is dead,
 *              and a jump argument is spilled into the slot its parameter
 *              expects, so the slot carries different values around cycles.
 *            Within a block the engine knows exactly which value each
 *            location holds (content[]); at the entry it knows only the
 *            contract. No step needs dominance or loop structure, so the
 *            allocation is correct on irreducible CFGs too. Instruction
 *            constraints are met as in `fast`: fixed operands, then reused
 *            and register uses, register defs, any/stack operands; values
 *            that the instruction (or the moves before it) overwrite are
 *            saved to a free register or a slot; one parallel move before
 *            the instruction. Where this simpler scheme cannot satisfy a
 *            function (two values fixed to one register, duplicate edges
 *            such as `br v, b2, b2` whose moves have no place of their
 *            own, ...), the function is allocated in classic mode instead,
 *            which also words the error if there is one.
 *
 * For tests, rv_random_run also counts each shape made (rv_random_stats)
 * and can plant one realistic bug at the k-th occurrence of a shape
 * (rv_random_opts.corrupt), so that the checker is tested on allocations
 * that are wrong in exactly the ways these shapes can go wrong.
 *
 * Files: random.h (the context, in parts: live, hold, con, ins, shp; the
 * helpers and state accessors every part uses), random_inst.c (the state
 * of each location, the moves, one instruction), random_edge.c (entry
 * contracts and edges), this file (liveness, blocks, the driver). */
#include "random.h"

/* ---- blocks and driver ---- */

/* Last uses within block b (lastuse, stamp): the last operand of each vreg
 * in b decides, from the shared walk (rv_live_after_walk from b's live-out
 * set; an argument is read only if its parameter is used): live after it
 * (RS_INF), or its instruction; a vreg b does not name but holds at its
 * entry (live through b, or only passed on its jump) is RS_INF. */
static void block_liveness(rs *a, uint32_t b)
{
    const ravel_func *f = a->f;
    const rv_block *bl = &f->blocks.data[b];
    uint32_t st = b + 1;
    a->live.lset.n = 0;
    for (uint32_t w = 0; w < a->live.lv.nwords; w++)
        for (uint64_t bits = a->live.lv.out[(size_t)b * a->live.lv.nwords + w]; bits; bits &= bits - 1)
            rv_sset_add(&a->live.lset, w * 64 + (uint32_t)__builtin_ctzll(bits));
    rv_live_after_walk(f, b, &a->live.lset, a->live.after, RV_LA_USED_ARGS, a->live.used);
    for (uint32_t j = 0; j < bl->ninsts; j++) {
        uint32_t i = bl->first_inst + j;
        const rv_inst *in = rv_inst_at(f, i);
        const rv_operand *ops = rv_ops_of(f, in);
        for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) {
            uint32_t v = ops[k].vreg;
            a->vs[v].stamp = st;
            a->vs[v].lastuse = a->live.after[in->first_op + k] ? RS_INF : i;
        }
    }
    for (uint32_t k = 0; k < a->live.lset.n; k++) {
        uint32_t v = a->live.lset.dense[k];
        if (a->vs[v].stamp == st) continue;
        a->vs[v].stamp = st;
        a->vs[v].lastuse = RS_INF;
    }
}

static bool rs_block(rs *a, uint32_t b)
{
    const ravel_func *f = a->f;
    const rv_block *bl = &f->blocks.data[b];
    a->cur = b;
    block_liveness(a, b);
    if (a->con.entry_start[b] == RAVEL_NONE) rv_rs_decide_entry(a, b, NULL, NULL, 2);
    a->hold.epoch++;
    a->hold.dirty.len = 0;
    for (uint32_t r = 0; r < a->nregs; r++) {
        held(a, r, a->hold.content[r], -1);
        a->hold.content[r] = RAVEL_NONE, a->hold.phys[r] = RS_UNK;
    }
    for (uint32_t e = 0; e < a->con.entry_len[b]; e++) {
        const rs_entry *en = &a->con.entries.data[a->con.entry_start[b] + e];
        rv_rs_loc_set(a, en->loc, en->v);
    }
    for (uint32_t j = 0; j < bl->ninsts; j++)
        if (!rv_rs_inst(a, bl->first_inst + j)) return false;
    uint32_t ti = bl->first_inst + bl->ninsts - 1;
    for (uint32_t k = 0; k < rv_inst_nsuccs(rv_inst_at(f, ti)); k++) {
        /* ENTRY moves of successor k read the state after the branch;
         * each edge starts from it */
        a->hold.logging = true;
        bool ok = rv_rs_edge(a, ti, k);
        a->hold.logging = false;
        rv_rs_undo_all(a);
        if (!ok) return false;
    }
    return true;
}

/* Blocks on a cycle (Tarjan's SCCs, iterative), for the statistics. */
static void find_cycles(rs *a)
{
    uint32_t n = a->cfg.nblocks, idx = 0;
    size_t n1 = (size_t)n + 1;
    uint32_t *num = rv_xmalloc(sizeof(uint32_t) * 5 * n1 + n1), *low = num + n1; /* one block for all six */
    uint32_t *stk = low + n1, *cs = stk + n1, *ce = cs + n1;
    bool *on = (bool *)(ce + n1);
    memset(on, 0, n1);
    uint32_t sp = 0, csp = 0;
    for (uint32_t b = 0; b < n; b++) num[b] = RAVEL_NONE;
    for (uint32_t root = 0; root < n; root++) {
        if (num[root] != RAVEL_NONE) continue;
        cs[csp] = root, ce[csp++] = a->cfg.succ_start[root];
        num[root] = low[root] = idx++, stk[sp++] = root, on[root] = true;
        while (csp) {
            uint32_t b = cs[csp - 1];
            if (ce[csp - 1] < a->cfg.succ_start[b + 1]) {
                uint32_t s = a->cfg.succ[ce[csp - 1]++];
                if (s == b) a->live.cyclic[b] = true;
                if (num[s] == RAVEL_NONE) {
                    num[s] = low[s] = idx++, stk[sp++] = s, on[s] = true;
                    cs[csp] = s, ce[csp++] = a->cfg.succ_start[s];
                } else if (on[s] && num[s] < low[b]) low[b] = num[s];
                continue;
            }
            csp--;
            if (csp && low[b] < low[cs[csp - 1]]) low[cs[csp - 1]] = low[b];
            if (low[b] != num[b]) continue;
            uint32_t first = sp;
            do first--; while (stk[first] != b);
            for (uint32_t k = first; k < sp; k++) {
                on[stk[k]] = false;
                if (sp - first > 1) a->live.cyclic[stk[k]] = true;
            }
            sp = first;
        }
    }
    rv_free(num); /* (and low, stk, cs, ce, on) */
}

/* Liveness (a->live.lv, the layout of rv_liveness) where an argument counts as
 * a use only if its parameter is used: a value passed only to unused
 * parameters needs no location (a contract holding it would make some
 * planted bugs harmless). used: read by an operand, or passed to a used
 * parameter (a fixpoint over the jumps). */
static void rs_liveness(rs *a)
{
    const ravel_func *f = a->f;
    for (uint32_t i = 0; i < f->insts.len; i++) {
        const rv_inst *in = rv_inst_at(f, i);
        const rv_operand *ops = rv_ops_of(f, in);
        for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++) a->live.used[ops[u].vreg] = true;
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t b = 0; b < a->cfg.nblocks; b++) {
            const rv_block *bl = &f->blocks.data[b];
            const rv_inst *t = rv_block_term(f, bl);
            for (uint32_t k = 0; t && k < rv_inst_nsuccs(t); k++) {
                const rv_succ *sc = &rv_inst_succs(f, t)[k];
                const rv_block *sb = &f->blocks.data[sc->block];
                for (uint32_t p = 0; p < sc->nargs && p < sb->nparams; p++) {
                    uint32_t v = rv_succ_args(f, sc)[p];
                    if (a->live.used[rv_block_params(f, sb)[p]] && !a->live.used[v]) a->live.used[v] = changed = true;
                }
            }
        }
    }
    uint32_t n = a->cfg.nblocks;
    uint32_t nw;
    a->live.lv.nblocks = n;
    a->live.lv.nvregs = a->nv;
    nw = a->live.lv.nwords = rv_bs_words(a->nv);
    uint64_t *gen = rv_xcalloc((size_t)n * nw + 1, sizeof(uint64_t));
    uint64_t *kill = rv_xcalloc((size_t)n * nw + 1, sizeof(uint64_t));
    for (uint32_t b = 0; b < n; b++) /* the shared transfer; an argument is read if its parameter is used */
        rv_block_gen_kill(f, b, gen + (size_t)b * nw, kill + (size_t)b * nw, RV_LA_USED_ARGS, a->live.used, NULL, a->nv);
    rv_dataflow df;
    memset(&df, 0, sizeof df);
    df.cfg = &a->cfg;
    df.nbits = a->nv;
    df.backward = true;
    df.gen = gen; /* gen/kill mode */
    df.kill = kill;
    rv_dataflow_solve(&df);
    a->live.lv.in = df.in;
    a->live.lv.out = df.out;
    rv_free(gen);
    rv_free(kill);
}

static void rs_init(rs *a, const ravel_func *f, const rv_alloc_opts *o, const rv_random_opts *ro, rv_random_stats *st)
{
    memset(a, 0, sizeof *a);
    a->f = f;
    a->m = f->mach;
    a->opts = o;
    a->ro = ro;
    a->st = st;
    a->rng = rv_hash64((o ? o->seed : 0) ^ 0x5a4e5ull);
    a->nregs = a->m->regs.len;
    a->nv = f->vregs.len;
    rv_cfg_build(&a->cfg, f);
    /* the fixed-size arrays in one block: 64-bit, then the vregs, 32-bit, bytes */
    size_t nr = (size_t)a->nregs + 1, nb = (size_t)a->cfg.nblocks + 1, nv = (size_t)a->nv + 1;
    size_t nw = rv_bs_words(a->nregs) + 1, n32 = 3 * nv + 8 * nr + 2 * nb;
    a->mem = rv_xmalloc(sizeof(uint64_t) * nw + sizeof(rs_vreg) * nv + sizeof(uint32_t) * n32 + nr + nb + nv);
    a->ins.scratch_bs = a->mem;
    memset(a->ins.scratch_bs, 0, sizeof(uint64_t) * nw);
    a->vs = (rs_vreg *)(a->ins.scratch_bs + nw);
    uint32_t *p32 = (uint32_t *)(a->vs + nv);
    a->copy_of = p32, a->hold.content = p32 + nv, a->hold.phys = a->hold.content + nr, a->ins.tgt = a->hold.phys + nr, a->ins.touched = a->ins.tgt + nr;
    a->con.taken.r = a->ins.touched + nr, a->ins.mend = a->con.taken.r + nr, a->ins.written.r = a->ins.mend + nr;
    a->ins.harm = a->ins.written.r + nr;
    a->con.entry_start = a->ins.harm + nr, a->con.entry_len = a->con.entry_start + nb;
    a->live.lset.dense = a->con.entry_len + nb, a->live.lset.pos = a->live.lset.dense + nv;
    a->ins.rf = (uint8_t *)(p32 + n32), a->live.cyclic = (bool *)(a->ins.rf + nr), a->live.used = (uint8_t *)(a->live.cyclic + nb);
    for (uint32_t v = 0; v < a->nv; v++) {
        rs_vreg x = {RAVEL_NONE, RAVEL_NONE, RAVEL_NONE, 0, RAVEL_NONE, RAVEL_NONE, 0, 0, 0};
        a->vs[v] = x;
    }
    memset(a->live.used, 0, nv);
    memset(a->live.lset.pos, 0, sizeof(uint32_t) * nv);
    a->live.after = rv_xcalloc(f->ops.len + 1, 1);
    memset(a->copy_of, 0xff, sizeof(uint32_t) * nv);
    for (uint32_t i = 0; i < f->insts.len; i++) {
        const rv_inst *in = rv_inst_at(f, i);
        const rv_operand *ops = rv_ops_of(f, in);
        if (in->op == RAVEL_OP_COPY && in->ndefs == 1 && in->nuses == 1) a->copy_of[ops[0].vreg] = ops[1].vreg;
    }
    memset(a->ins.rf, 0, nr);
    memset(a->con.taken.r, 0, sizeof(uint32_t) * 3 * nr); /* (and mend, written.r) */
    memset(a->hold.content, 0xff, sizeof(uint32_t) * nr); /* (rs_block uncounts what it held) */
    rs_liveness(a);
    memset(a->con.entry_start, 0xff, sizeof(uint32_t) * nb);
    memset(a->con.entry_len, 0, sizeof(uint32_t) * nb);
    memset(a->live.cyclic, 0, nb);
    find_cycles(a);
    /* room for every contract (live-ins and parameters of each block) at once */
    size_t nent = 0;
    for (uint32_t b = 0; b < a->cfg.nblocks; b++) {
        nent += f->blocks.data[b].nparams;
        for (uint32_t w = 0; w < a->live.lv.nwords; w++) nent += (size_t)__builtin_popcountll(a->live.lv.in[(size_t)b * a->live.lv.nwords + w]);
    }
    rv_vec_reserve(a->con.entries, nent + 1);
    rv_vec_reserve(a->con.msrc, nent + 1);
    /* the state's growable arrays start big enough for most functions */
    rv_vec_reserve(a->hold.scont, 64);
    rv_vec_reserve(a->hold.sphys, 64);
    rv_vec_reserve(a->hold.sstamp, 64);
    rv_vec_reserve(a->hold.dirty, 64);
    rv_vec_reserve(a->hold.undo, 64);
    rv_vec_reserve(a->ins.moves, 32);
    rv_vec_reserve(a->ins.mvals, 32);
    rv_vec_reserve(a->ins.islots, 32);
    rv_out_init(&a->out, f);
    rv_pmove_init(&a->pm);
}

static void rs_free(rs *a)
{
    rv_free(a->mem);
    rv_free(a->live.after);
    rv_vec_free(a->hold.sphys);
    rv_vec_free(a->hold.sstamp);
    rv_vec_free(a->hold.dirty);
    rv_vec_free(a->hold.undo);
    rv_vec_free(a->shp.site_reloads);
    rv_vec_free(a->hold.scont);
    rv_vec_free(a->con.entries);
    rv_vec_free(a->con.msrc);
    rv_vec_free(a->con.taken.s);
    rv_vec_free(a->ins.written.s);
    rv_vec_free(a->ins.islots);
    rv_vec_free(a->ins.moves);
    rv_vec_free(a->ins.mvals);
    rv_vec_free(a->ins.real);
    rv_vec_free(a->ins.esrc);
    rv_vec_free(a->ins.smap);
    rv_vec_free(a->shp.sites);
    rv_liveness_free(&a->live.lv);
    rv_cfg_free(&a->cfg);
    rv_out_free(&a->out);
    rv_pmove_free(&a->pm);
}

/* Shapes mode; NULL (with *err) where the scheme cannot meet a constraint. */
static ravel_func *rs_run(const ravel_func *f, const rv_alloc_opts *o, const rv_random_opts *ro, rv_random_stats *st, char **err)
{
    rs a;
    rs_init(&a, f, o, ro, st);
    bool ok = true;
    for (uint32_t b = 0; ok && b < a.cfg.nblocks; b++) /* duplicate edges need equal edge moves: not made here */
        for (uint32_t k = 0; ok && k < rv_cfg_nsuccs(&a.cfg, b); k++)
            if (rv_edge_anchor(f, &a.cfg, b, k, NULL) == RAVEL_NONE) ok = rs_fail(&a, RAVEL_NONE, "duplicate edges");
    for (uint32_t k = 0; ok && k < a.cfg.nrpo; k++) ok = rs_block(&a, a.cfg.rpo[k]);
    for (uint32_t b = 0; ok && b < a.cfg.nblocks; b++) /* unreachable blocks: any contract will do */
        if (a.cfg.rpo_index[b] == RAVEL_NONE) ok = rs_block(&a, b);
    ravel_func *g = ok ? rv_out_finish(&a.out) : NULL;
    if (ok && st)
        for (uint32_t k = 0; k < a.shp.sites.len; k++) st->count[RV_RS_SPILL_RELOADS] += a.shp.site_reloads.data[k] >= 2;
    *err = ok ? NULL : a.err;
    if (ok) rv_free(a.err);
    rs_free(&a);
    return g;
}

/* The mode of this function and seed: shapes two times in three (the
 * function's size takes part, so that one seed over many functions, as in
 * the benchmarks, gives both). */
static int rs_mode(const ravel_func *f, uint64_t seed)
{
    uint64_t h = rv_hash64(seed ^ 0x6d6f6465ull ^ ((uint64_t)f->insts.len << 32) ^ f->vregs.len);
    return h % 3 == 0 ? RV_RS_MODE_CLASSIC : RV_RS_MODE_SHAPES;
}

ravel_func *rv_random_run(const ravel_func *f, const rv_alloc_opts *o, const rv_random_opts *ro, rv_random_stats *st, char **err)
{
    if (st) memset(st, 0, sizeof *st);
    int mode = ro && ro->mode != RV_RS_MODE_AUTO ? ro->mode : rs_mode(f, o ? o->seed : 0);
    if (mode == RV_RS_MODE_SHAPES) {
        char *e = NULL;
        ravel_func *g = rs_run(f, o, ro, st, &e);
        if (g) {
            if (st) st->mode = RV_RS_MODE_SHAPES;
            if (err) *err = NULL;
            return g;
        }
        rv_alloc_trace(o, "random", "shapes mode cannot allocate this function (%s): classic mode", e ? e : "?");
        rv_free(e);
        if (st) {
            memset(st, 0, sizeof *st);
            st->fallback = true;
        }
    }
    if (st) st->mode = RV_RS_MODE_CLASSIC;
    return rv_fast_run(f, o, err, true);
}

ravel_func *rv_alloc_random(const ravel_func *f, const rv_alloc_opts *o, char **err) { return rv_random_run(f, o, NULL, NULL, err); }

