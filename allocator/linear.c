/* linear.c - the `linear` allocator: linear scan with interval splitting
 * ("second-chance binpacking", Traub, Holloway & Smith 1998, with Belady
 * eviction as in Wimmer & Franz's linear scan on SSA form).
 *
 * Requires: f unallocated, valid SSA (ravel_validate with
 * RAVEL_VALIDATE_SSA), finished (blocks in layout order).
 * Guarantees: an allocation that ravel_check accepts, or NULL and an error
 * naming the instruction when its constraints cannot be met. Time is
 * O(n log n) in the size of the function (sorting spill slots, and use
 * positions when the layout is not in scan order) plus the liveness
 * lists, which LIN_GLOBAL_BLOCKS bounds by 64 blocks per vreg. No global state; all memory freed before returning.
 *
 * Pipeline:
 *   1. order     blocks in reverse post-order, then unreachable ones; every
 *                block start and instruction gets a position.
 *   2. liveness  the shared analysis (live.c): per block live-in/live-out
 *                lists (rv_live_sparse, jump arguments live-out of the
 *                branching block); the reads of each vreg (the use
 *                positions the intervals would list) at their scan
 *                positions. A vreg live at more than LIN_GLOBAL_BLOCKS
 *                block entries and exits (the lists' cap) is "global":
 *                stored once after its def, in its slot at every block
 *                boundary, in registers only within blocks. Per operand
 *                flags: the use is the last (DIES), the def is never used
 *                (DEAD).
 *   3. scan      one forward pass over the blocks in that order. The state
 *                maps each live vreg to at most one register (its home) and
 *                a flag "its spill slot holds it" (sv). Every live vreg has
 *                a home or sv (invariant). Lifetimes are split where a value
 *                is evicted (Belady: the farthest next use) and get a second
 *                chance: a reload into a new register at the next use. At
 *                each instruction, constraints are met in a fixed order:
 *                fixed uses, reuse targets, late uses, early uses, any/stack
 *                uses; then values live across leave clobbered and fixed-def
 *                registers; safepoint spills; then defs. A value evicted in
 *                a loop deeper than its def is stored right after the def.
 *                Containment (docs/format.md section 14.1): values live
 *                only in homes (rv_alloc_homes: allocatable registers of
 *                which no two overlap); a part the instruction names flags
 *                the homes it overlaps (overlap_flags), and before a value
 *                is moved into a part those homes are vacated.
 *   4. resolve   every CFG edge: a parallel move (rv_pmove) from the state
 *                at the predecessor's end to the successor's entry state,
 *                block parameters included; slot stores first, then the
 *                register loads. The entry state of a block is copied from
 *                one already scanned predecessor (at a loop header, only
 *                values used in the loop keep registers), so most edges
 *                need no moves; an entry register evicted before any read
 *                is turned back into "in its slot" on entry.
 *   5. slots     each vreg has one virtual slot; virtual slots whose live
 *                hulls (first to last position where the vreg is live or
 *                its slot is touched) do not overlap share a physical slot
 *                (interval scheduling).
 *
 * Terms: home and pin as in docs/architecture.md (Glossary); this file's
 * own: sv = slot valid; entry/end state = where the live vregs are at a
 * block's start/end.
 *
 * Files: linear.h (the context, in parts: ord, live, hull, st, cur, blk,
 * res; the helpers every pass uses), this file (passes 1-2, the block
 * state pool and the driver), linear_scan.c (3) and linear_resolve.c (4-5).
 * Shared pieces (alloc.h): the cfg, the liveness, the parallel moves, the
 * output builder and the error text. The allocator's own: the scan order
 * and positions, the reads of each vreg, the global policy, the DIES/DEAD
 * flags and the slot hulls (over scan positions, edge edits included). */
#include "linear.h"

/* ---- 1. order and positions ---- */

static void lin_order(lin *L)
{
    const ravel_func *f = L->f;
    for (uint32_t k = 0; k < L->cfg.nrpo; k++) rv_vec_push(L->ord.order, L->cfg.rpo[k]);
    for (uint32_t b = 0; b < L->nb; b++)
        if (L->cfg.rpo_index[b] == RAVEL_NONE) rv_vec_push(L->ord.order, b);
    uint32_t pos = 0;
    for (uint32_t k = 0; k < L->ord.order.len; k++) {
        uint32_t b = L->ord.order.data[k];
        const rv_block *bl = &f->blocks.data[b];
        L->ord.bpos[b] = pos++;
        for (uint32_t j = 0; j < bl->ninsts; j++) {
            L->ord.ipos[bl->first_inst + j] = pos++;
            L->ord.inst_block[bl->first_inst + j] = b;
        }
    }
}


/* ---- 2. liveness ---- */

/* The instruction defining each vreg (RAVEL_NONE: a block parameter). */
static void lin_defs(lin *L)
{
    const ravel_func *f = L->f;
    for (uint32_t i = 0; i < f->insts.len; i++) {
        const rv_inst *in = rv_inst_at(f, i);
        const rv_operand *d = rv_ops_of(f, in);
        for (uint32_t k = 0; k < in->ndefs; k++) L->live.def_inst[d[k].vreg] = i;
    }
}

/* A vreg live across more than this many block boundaries is "global":
 * it lives in its slot at every block boundary (stored once after its
 * def) and gets registers only within blocks, like `fast` does for every
 * value. This bounds the liveness lists (and the time) by
 * O(LIN_GLOBAL_BLOCKS * size) on functions whose values live across
 * thousands of blocks. References are never global (a safepoint must see
 * every live reference). */
#define LIN_GLOBAL_BLOCKS 64u

/* Liveness (shared, live.c) in sparse lists, capped at LIN_GLOBAL_BLOCKS
 * marks per vreg (references never capped): a capped vreg is global. Jump
 * arguments count as live-out of the branching block: the edge moves read
 * them at its end. */
static void lin_liveness(lin *L)
{
    uint8_t *nocap = L->live.nocap;
    for (uint32_t v = 0; v < L->nv; v++) nocap[v] = vref(L, v);
    rv_live_sparse_build(&L->live.ls, L->f, &L->cfg, LIN_GLOBAL_BLOCKS, nocap, RV_LS_ARGS_OUT);
    L->live.global = L->live.ls.capped;
}

/* Per-operand DIES/DEAD flags: the shared backward walk per block
 * (rv_live_after_block, its answers first in opk), none for global vregs
 * (jump arguments are in the live-out lists but for global ones). */
static void lin_kills(lin *L)
{
    const ravel_func *f = L->f;
    rv_sset live = {L->live.kmark, L->live.kpos, 0};
    for (uint32_t b = 0; b < L->nb; b++) {
        const rv_block *bl = &f->blocks.data[b];
        uint32_t nout;
        const uint32_t *out = live_out(L, b, &nout);
        live.n = 0;
        for (uint32_t k = 0; k < nout; k++) rv_sset_add(&live, out[k]);
        rv_live_after_block(f, b, &live, L->live.opk);
        for (uint32_t j = 0; j < bl->ninsts; j++) {
            const rv_inst *in = rv_inst_at(f, bl->first_inst + j);
            for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) {
                uint32_t op = in->first_op + k;
                bool dies = !L->live.opk[op] && !L->live.global[f->ops.data[op].vreg];
                L->live.opk[op] = !dies ? 0 : k < in->ndefs ? OPK_DEAD : OPK_DIES;
            }
        }
    }
}

static inline __attribute__((always_inline)) void hull(lin *L, uint32_t v, uint32_t p)
{
    if (p < L->hull.lo[v]) L->hull.lo[v] = p;
    if (p > L->hull.hi[v]) L->hull.hi[v] = p;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The reads of each vreg (operand uses and jump arguments: the non-def
 * use positions of the shared intervals, counted and placed here directly)
 * as scan positions, ascending (CSR). They are placed in layout order:
 * when the scan order (RPO) differs, a vreg's row is sorted. */
static void lin_uses(lin *L)
{
    const ravel_func *f = L->f;
    uint32_t *cnt = L->live.use_cur; /* first the count of each vreg's reads */
    for (uint32_t pass = 0; pass < 2; pass++) {
        for (uint32_t b = 0; b < L->nb; b++) {
            const rv_block *bl = &f->blocks.data[b];
            for (uint32_t j = 0; j < bl->ninsts; j++) {
                uint32_t i = bl->first_inst + j, p = L->ord.ipos[i];
                const rv_inst *in = rv_inst_at(f, i);
                const rv_operand *ops = rv_ops_of(f, in);
                for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++) {
                    if (pass) L->live.use_pos[cnt[ops[u].vreg]++] = p;
                    else cnt[ops[u].vreg]++;
                }
                for (uint32_t e = 0; e < rv_inst_nsuccs(in); e++) {
                    const rv_succ *sc = &rv_inst_succs(f, in)[e];
                    const uint32_t *args = rv_args_of(f, sc);
                    for (uint32_t k = 0; k < sc->nargs; k++) {
                        if (pass) L->live.use_pos[cnt[args[k]]++] = p;
                        else cnt[args[k]]++;
                    }
                }
            }
        }
        if (pass) break;
        uint32_t n = 0; /* rows: use_start; cnt becomes each row's fill point */
        for (uint32_t v = 0; v < L->nv; v++) {
            L->live.use_start[v] = n;
            n += cnt[v];
            cnt[v] = L->live.use_start[v];
        }
        L->live.use_start[L->nv] = n;
        L->live.use_pos = u32_array(n, 0);
    }
    for (uint32_t v = 0; v < L->nv; v++) { /* rows in layout order; the scan order may differ */
        uint32_t s0 = L->live.use_start[v], n = L->live.use_start[v + 1] - s0;
        bool sorted = true;
        for (uint32_t k = 1; k < n && sorted; k++) sorted = L->live.use_pos[s0 + k - 1] <= L->live.use_pos[s0 + k];
        if (!sorted) qsort(L->live.use_pos + s0, n, sizeof(uint32_t), cmp_u32);
        L->live.use_cur[v] = s0;
    }
}

/* The live hulls of the slots: first to last scan position where the vreg
 * is live or its slot may be touched. */
static void lin_hulls(lin *L)
{
    const ravel_func *f = L->f;
    for (uint32_t b = 0; b < L->nb; b++) {
        const rv_block *bl = &f->blocks.data[b];
        uint32_t tp = L->ord.ipos[term_inst(L, b)];
        uint32_t nin, nout;
        const uint32_t *lins = live_in(L, b, &nin), *lout = live_out(L, b, &nout);
        for (uint32_t k = 0; k < nin; k++) hull(L, lins[k], L->ord.bpos[b]);
        for (uint32_t k = 0; k < nout; k++) hull(L, lout[k], tp);
        const uint32_t *ps = rv_params_of(f, bl);
        for (uint32_t k = 0; k < bl->nparams; k++) hull(L, ps[k], L->ord.bpos[b]);
        /* edge edits read the arguments and write the params where they are
         * placed: the predecessor's end or the successor's start */
        const rv_inst *t = rv_inst_at(f, term_inst(L, b));
        for (uint32_t s = 0; s < rv_inst_nsuccs(t); s++) {
            const rv_succ *sc = &rv_inst_succs(f, t)[s];
            const rv_block *sb = &f->blocks.data[sc->block];
            uint32_t q = rv_inst_nsuccs(t) == 1 ? tp : L->ord.bpos[sc->block];
            const uint32_t *args = rv_args_of(f, sc), *sps = rv_params_of(f, sb);
            for (uint32_t k = 0; k < sc->nargs && k < sb->nparams; k++) {
                hull(L, args[k], q);
                hull(L, sps[k], q);
            }
        }
        for (uint32_t j = 0; j < bl->ninsts; j++) {
            uint32_t i = bl->first_inst + j;
            const rv_inst *in = rv_inst_at(f, i);
            const rv_operand *o = rv_inst_ops(f, in);
            for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) hull(L, o[k].vreg, L->ord.ipos[i]);
        }
    }
}

static void lin_global_hulls(lin *L)
{
    for (uint32_t v = 0; v < L->nv; v++)
        if (L->live.global[v]) {
            L->hull.lo[v] = 0;
            L->hull.hi[v] = LIN_INF - 1;
        }
}

/* ---- driver ---- */

/* Places the fixed-size arrays in one block at base, each initialised
 * (base NULL: only sums their sizes into *total). */
static void lin_arrays(lin *L, char *base, size_t *total)
{
    size_t off = 0, ni = L->f->insts.len, nops = L->f->ops.len, nv = L->nv, nb = L->nb, nr = L->nr;
    size_t nw = rv_bs_words(L->nr) + 1;
#define LIN_TAKE(field, n, fill)                                                  \
    do {                                                                          \
        size_t bytes_ = sizeof *L->field * ((n) + 1);                             \
        if (base) {                                                               \
            L->field = (void *)(base + off);                                      \
            memset(L->field, (fill), bytes_);                                     \
        }                                                                         \
        off += (bytes_ + 7) & ~(size_t)7;                                         \
    } while (0)
    LIN_TAKE(res.scratch, nw, 0);
    LIN_TAKE(res.pres, nw, 0);
    LIN_TAKE(blk.entry, nb, 0);
    LIN_TAKE(blk.endst, nb, 0);
    LIN_TAKE(ord.bpos, nb, 0);
    LIN_TAKE(ord.ipos, ni, 0);
    LIN_TAKE(ord.inst_block, ni, 0xff);
    LIN_TAKE(live.def_inst, nv, 0xff);
    LIN_TAKE(live.def_reg, nv, 0xff);
    LIN_TAKE(live.use_start, nv + 1, 0);
    LIN_TAKE(live.use_cur, nv, 0);
    LIN_TAKE(hull.lo, nv, 0xff);
    LIN_TAKE(hull.hi, nv, 0);
    LIN_TAKE(st.home, nv, 0xff);
    LIN_TAKE(blk.ent_idx, nv, 0);
    LIN_TAKE(st.refpos, nv, 0);
    LIN_TAKE(cur.vstamp, nv, 0);
    LIN_TAKE(cur.vpin, nv, 0xff);
    LIN_TAKE(blk.emstamp, nv, 0);
    LIN_TAKE(blk.emidx, nv, 0);
    LIN_TAKE(live.kmark, nv, 0);
    LIN_TAKE(live.kpos, nv, 0);
    LIN_TAKE(st.owner, nr, 0xff);
    LIN_TAKE(cur.rstamp, nr, 0);
    LIN_TAKE(cur.rpinv, nr, 0xff);
    LIN_TAKE(res.pres_v, nr, 0xff);
    LIN_TAKE(live.def_stored, nv, 0);
    LIN_TAKE(hull.slot_used, nv, 0);
    LIN_TAKE(st.sv, nv, 0);
    LIN_TAKE(st.instate, nv, 0);
    LIN_TAKE(blk.ent_fresh, nv, 0);
    LIN_TAKE(cur.vfl, nv, 0);
    LIN_TAKE(live.nocap, nv, 0);
    LIN_TAKE(live.opk, nops, 0);
    LIN_TAKE(cur.rfl, nr, 0);
    LIN_TAKE(res.pres_sv, nr, 0);
#undef LIN_TAKE
    *total = off;
}

/* The entry and end states of every block in one pool: entry[b] has room
 * for b's params and live-ins, endst[b] for its live-outs (what
 * lin_block_entry and lin_block_exit put there). */
static void lin_states(lin *L)
{
    size_t n = L->live.ls.start[2 * (size_t)L->nb];
    for (uint32_t b = 0; b < L->nb; b++) n += L->f->blocks.data[b].nparams;
    L->blk.states = rv_xmalloc(sizeof(lin_vst) * (n + 1));
    size_t at = 0;
    for (uint32_t b = 0; b < L->nb; b++) {
        uint32_t nin, nout;
        live_in(L, b, &nin);
        live_out(L, b, &nout);
        L->blk.entry[b] = (vstvec){L->blk.states + at, 0};
        at += (size_t)L->f->blocks.data[b].nparams + nin;
        L->blk.endst[b] = (vstvec){L->blk.states + at, 0};
        at += nout;
    }
}

static void lin_init(lin *L, const ravel_func *f, const rv_alloc_opts *o)
{
    memset(L, 0, sizeof *L);
    L->f = f;
    L->m = f->mach;
    L->opts = o;
    rv_cfg_build(&L->cfg, f);
    L->nv = f->vregs.len;
    L->nb = L->cfg.nblocks;
    L->nr = L->m->regs.len;
    L->home = rv_alloc_homes(L->m);
    size_t total = 0;
    lin_arrays(L, NULL, &total);
    L->mem = rv_xmalloc(total);
    lin_arrays(L, L->mem, &total);
    rv_vec_reserve(L->ord.order, L->nb);
    rv_vec_reserve(L->cur.flagged, L->nr + 1); /* (each register at most once per instruction) */
    uint32_t nsafe = 0;
    for (uint32_t i = 0; i < f->insts.len; i++) nsafe += (f->insts.data[i].flags & RV_IF_SAFEPOINT) != 0;
    if (nsafe) { /* stackmaps: two words per safepoint and its slots (a first guess) */
        rv_vec_reserve(L->smaps, 6 * (size_t)nsafe);
        rv_vec_reserve(L->cur.smap, 16);
    }
    L->cur.inst = RAVEL_NONE;
    rv_out_init(&L->out, f);
    rv_pmove_init(&L->res.pm);
}

static void lin_free(lin *L)
{
    rv_free(L->home);
    rv_live_sparse_free(&L->live.ls);
    rv_free(L->blk.states);
    rv_free(L->live.use_pos);
    rv_free(L->mem);
    rv_vec_free(L->ord.order);
    rv_vec_free(L->live.bglob);
    rv_vec_free(L->hull.tpos);
    rv_vec_free(L->st.refs);
    rv_vec_free(L->cur.flagged);
    rv_vec_free(L->cur.smap);
    rv_vec_free(L->smaps);
    rv_out_free(&L->out);
    rv_pmove_free(&L->res.pm);
    rv_cfg_free(&L->cfg);
}

ravel_func *rv_alloc_linear(const ravel_func *f, const rv_alloc_opts *o, char **err)
{
    if (err) *err = NULL;
    lin *L = rv_xmalloc(sizeof *L);
    lin_init(L, f, o);
    lin_order(L);
    lin_defs(L);
    lin_liveness(L);
    lin_kills(L);
    lin_uses(L);
    lin_hulls(L);
    lin_global_hulls(L);
    lin_states(L);
    ravel_func *g = NULL;
    if (rv_lin_scan(L) && rv_lin_resolve(L)) g = rv_lin_finish(L);
    if (!g && L->out.too_big && !L->err) L->err = rv_out_limit_error(&L->out);
    if (!g) {
        if (err) *err = L->err ? L->err : rv_alloc_errorf(f, RAVEL_NONE, "allocation failed");
        else rv_free(L->err);
    } else {
        rv_free(L->err);
    }
    lin_free(L);
    rv_free(L);
    return g;
}

