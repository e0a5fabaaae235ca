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
 * Glossary: home = the register a vreg lives in between instructions; pin =
 * a register that must hold a given vreg when the current instruction reads
 * it (a home or a temporary copy); sv = slot valid; entry/end state = where
 * the live vregs are at a block's start/end.
 *
 * Shared pieces (alloc.h): the cfg, the liveness, the parallel moves, the
 * output builder and the error text. This file's own: the scan order and
 * positions, the reads of each vreg, the global policy, the DIES/DEAD flags
 * and the slot hulls (over scan positions, edge edits included). */
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

#define LIN_INF 0xffffffffu

enum { /* per-register flags, valid for the current instruction only */
    RF_PIN_E = 1,  /* holds rpinv for an early read */
    RF_PIN_L = 2,  /* holds rpinv for a late read */
    RF_FDE = 4,    /* location of an early def */
    RF_FDL = 8,    /* location of a late def (fixed, reuse or chosen) */
    RF_CLOB = 16,  /* clobbered by the instruction */
    RF_FIXU = 32,  /* named by a fixed use */
};
enum { /* per-operand flags (index into f->ops) */
    OPK_DIES = 1,  /* use: the vreg is not live after the instruction */
    OPK_DEAD = 2,  /* def: the vreg is never used */
};
enum { /* per-vreg flags, valid for the current instruction only */
    VF_USED = 1, VF_DIES = 2, VF_LATE = 4,
};

typedef struct lin_vst { uint32_t v, home; uint8_t sv; } lin_vst;
typedef RV_VEC(uint32_t) u32vec;
/* A block's entry or end state: a run of the states pool with room for
 * exactly the items it gets (params and live-ins; live-outs). */
typedef struct vstvec { lin_vst *data; uint32_t len; } vstvec;
typedef RV_VEC(rv_move) movevec;

typedef struct lin {
    const ravel_func *f;
    const ravel_machine *m;
    const rv_alloc_opts *opts;
    rv_cfg cfg;
    uint32_t nv, nb, nr;
    /* 1. order */
    u32vec order;
    uint32_t *bpos, *ipos, *inst_block;
    /* 2. liveness */
    uint32_t *def_inst, *def_reg; /* def_reg: register right after the def */
    uint8_t *def_stored; /* stored right after its def (spill_at_def): its slot is always valid */
    rv_live_sparse ls; /* shared liveness, jump arguments live-out; capped = global */
    uint8_t *opk;
    const uint8_t *global;  /* see LIN_GLOBAL_BLOCKS (ls.capped) */
    u32vec bglob;     /* globals in the state in the current block */
    uint32_t *use_start, *use_pos, *use_cur;
    /* 5. slot hulls (virtual slot v < nv: vreg v; >= nv: temporaries) */
    uint32_t *lo, *hi;
    uint8_t *slot_used;
    u32vec tpos; /* position of temporary slot nv + k */
    /* 3. state */
    uint32_t *home, *owner;
    uint8_t *sv, *instate;
    uint32_t *refpos; /* index in refs + 1, 0 if absent */
    u32vec refs;
    uint32_t ninstate;
    /* per-instruction scratch */
    uint32_t stamp;
    uint32_t *rstamp, *rpinv;
    uint8_t *rfl;
    u32vec flagged;
    uint32_t *vstamp, *vpin;
    uint8_t *vfl;
    u32vec smap;
    uint32_t cur_pos, cur_inst, cur_block;
    uint8_t *ent_fresh; /* live-in whose entry register is not read yet */
    uint32_t *ent_idx;  /* its index in entry[cur_block] */
    uint32_t anchor; /* where edits go */
    /* block states */
    vstvec *entry, *endst;
    lin_vst *states;  /* the pool of the entry and end states */
    uint32_t *emstamp, *emidx, emcount;
    /* output */
    rv_out out;
    u32vec smaps; /* inst, n, virtual slots... */
    rv_pmove pm;
    uint64_t *scratch, *pres;
    uint32_t *pres_v; /* preserved register -> the vreg it holds (for free_scratch) */
    uint8_t *pres_sv; /* and whether that vreg's slot is valid */
    uint32_t *kmark, *kpos; /* lin_kills' sparse set (dense, pos) */
    uint8_t *nocap;   /* lin_liveness' per-vreg "never capped" */
    void *mem; /* the block holding the fixed-size arrays (lin_arrays) */
    char *err;
} lin;

/* ---- small helpers ---- */

static uint32_t *u32_array(size_t n, uint8_t fill)
{
    uint32_t *p = rv_xmalloc(sizeof(uint32_t) * (n ? n : 1));
    memset(p, fill, sizeof(uint32_t) * n);
    return p;
}


static inline __attribute__((always_inline)) const rv_reg *lin_reg(const lin *L, uint32_t r) { return &L->m->regs.data[r]; }
static inline __attribute__((always_inline)) uint8_t vcls(const lin *L, uint32_t v) { return L->f->vregs.data[v].cls; }
static inline __attribute__((always_inline)) bool vref(const lin *L, uint32_t v) { return L->f->vregs.data[v].ref; }
static inline ravel_loc vslot(uint32_t v) { return RAVEL_SLOT_BIT | v; }
static inline bool reg_alloc_of(const lin *L, uint32_t r, uint32_t cls)
{
    return r < L->nr && !lin_reg(L, r)->reserved && lin_reg(L, r)->cls == cls;
}

/* Live-in and live-out (jump arguments included) lists of b. */
static inline const uint32_t *live_in(const lin *L, uint32_t b, uint32_t *n) { return rv_ls_list(&L->ls, b, false, n); }
static inline const uint32_t *live_out(const lin *L, uint32_t b, uint32_t *n) { return rv_ls_list(&L->ls, b, true, n); }

static bool fail(lin *L, const char *what)
{
    if (!L->err) L->err = rv_alloc_errorf(L->f, L->cur_inst, "unsatisfiable constraints: %s", what);
    return false;
}

/* ---- 1. order and positions ---- */

static void lin_order(lin *L)
{
    const ravel_func *f = L->f;
    for (uint32_t k = 0; k < L->cfg.nrpo; k++) rv_vec_push(L->order, L->cfg.rpo[k]);
    for (uint32_t b = 0; b < L->nb; b++)
        if (L->cfg.rpo_index[b] == RAVEL_NONE) rv_vec_push(L->order, b);
    uint32_t pos = 0;
    for (uint32_t k = 0; k < L->order.len; k++) {
        uint32_t b = L->order.data[k];
        const rv_block *bl = &f->blocks.data[b];
        L->bpos[b] = pos++;
        for (uint32_t j = 0; j < bl->ninsts; j++) {
            L->ipos[bl->first_inst + j] = pos++;
            L->inst_block[bl->first_inst + j] = b;
        }
    }
}

static inline uint32_t term_inst(const lin *L, uint32_t b)
{
    const rv_block *bl = &L->f->blocks.data[b];
    return bl->first_inst + bl->ninsts - 1;
}

/* ---- 2. liveness ---- */

/* The instruction defining each vreg (RAVEL_NONE: a block parameter). */
static void lin_defs(lin *L)
{
    const ravel_func *f = L->f;
    for (uint32_t i = 0; i < f->insts.len; i++) {
        const rv_inst *in = rv_inst_at(f, i);
        const rv_operand *d = rv_ops_of(f, in);
        for (uint32_t k = 0; k < in->ndefs; k++) L->def_inst[d[k].vreg] = i;
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
    uint8_t *nocap = L->nocap;
    for (uint32_t v = 0; v < L->nv; v++) nocap[v] = vref(L, v);
    rv_live_sparse_build(&L->ls, L->f, &L->cfg, LIN_GLOBAL_BLOCKS, nocap, RV_LS_ARGS_OUT);
    L->global = L->ls.capped;
}

/* Per-operand DIES/DEAD flags: the shared backward walk per block
 * (rv_live_after_block, its answers first in opk), none for global vregs
 * (jump arguments are in the live-out lists but for global ones). */
static void lin_kills(lin *L)
{
    const ravel_func *f = L->f;
    rv_sset live = {L->kmark, L->kpos, 0};
    for (uint32_t b = 0; b < L->nb; b++) {
        const rv_block *bl = &f->blocks.data[b];
        uint32_t nout;
        const uint32_t *out = live_out(L, b, &nout);
        live.n = 0;
        for (uint32_t k = 0; k < nout; k++) rv_sset_add(&live, out[k]);
        rv_live_after_block(f, b, &live, L->opk);
        for (uint32_t j = 0; j < bl->ninsts; j++) {
            const rv_inst *in = rv_inst_at(f, bl->first_inst + j);
            for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) {
                uint32_t op = in->first_op + k;
                bool dies = !L->opk[op] && !L->global[f->ops.data[op].vreg];
                L->opk[op] = !dies ? 0 : k < in->ndefs ? OPK_DEAD : OPK_DIES;
            }
        }
    }
}

static inline __attribute__((always_inline)) void hull(lin *L, uint32_t v, uint32_t p)
{
    if (p < L->lo[v]) L->lo[v] = p;
    if (p > L->hi[v]) L->hi[v] = p;
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
    uint32_t *cnt = L->use_cur; /* first the count of each vreg's reads */
    for (uint32_t pass = 0; pass < 2; pass++) {
        for (uint32_t b = 0; b < L->nb; b++) {
            const rv_block *bl = &f->blocks.data[b];
            for (uint32_t j = 0; j < bl->ninsts; j++) {
                uint32_t i = bl->first_inst + j, p = L->ipos[i];
                const rv_inst *in = rv_inst_at(f, i);
                const rv_operand *ops = rv_ops_of(f, in);
                for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++) {
                    if (pass) L->use_pos[cnt[ops[u].vreg]++] = p;
                    else cnt[ops[u].vreg]++;
                }
                for (uint32_t e = 0; e < rv_inst_nsuccs(in); e++) {
                    const rv_succ *sc = &rv_inst_succs(f, in)[e];
                    const uint32_t *args = rv_args_of(f, sc);
                    for (uint32_t k = 0; k < sc->nargs; k++) {
                        if (pass) L->use_pos[cnt[args[k]]++] = p;
                        else cnt[args[k]]++;
                    }
                }
            }
        }
        if (pass) break;
        uint32_t n = 0; /* rows: use_start; cnt becomes each row's fill point */
        for (uint32_t v = 0; v < L->nv; v++) {
            L->use_start[v] = n;
            n += cnt[v];
            cnt[v] = L->use_start[v];
        }
        L->use_start[L->nv] = n;
        L->use_pos = u32_array(n, 0);
    }
    for (uint32_t v = 0; v < L->nv; v++) { /* rows in layout order; the scan order may differ */
        uint32_t s0 = L->use_start[v], n = L->use_start[v + 1] - s0;
        bool sorted = true;
        for (uint32_t k = 1; k < n && sorted; k++) sorted = L->use_pos[s0 + k - 1] <= L->use_pos[s0 + k];
        if (!sorted) qsort(L->use_pos + s0, n, sizeof(uint32_t), cmp_u32);
        L->use_cur[v] = s0;
    }
}

/* The live hulls of the slots: first to last scan position where the vreg
 * is live or its slot may be touched. */
static void lin_hulls(lin *L)
{
    const ravel_func *f = L->f;
    for (uint32_t b = 0; b < L->nb; b++) {
        const rv_block *bl = &f->blocks.data[b];
        uint32_t tp = L->ipos[term_inst(L, b)];
        uint32_t nin, nout;
        const uint32_t *lins = live_in(L, b, &nin), *lout = live_out(L, b, &nout);
        for (uint32_t k = 0; k < nin; k++) hull(L, lins[k], L->bpos[b]);
        for (uint32_t k = 0; k < nout; k++) hull(L, lout[k], tp);
        const uint32_t *ps = rv_params_of(f, bl);
        for (uint32_t k = 0; k < bl->nparams; k++) hull(L, ps[k], L->bpos[b]);
        /* edge edits read the arguments and write the params where they are
         * placed: the predecessor's end or the successor's start */
        const rv_inst *t = rv_inst_at(f, term_inst(L, b));
        for (uint32_t s = 0; s < rv_inst_nsuccs(t); s++) {
            const rv_succ *sc = &rv_inst_succs(f, t)[s];
            const rv_block *sb = &f->blocks.data[sc->block];
            uint32_t q = rv_inst_nsuccs(t) == 1 ? tp : L->bpos[sc->block];
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
            for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) hull(L, o[k].vreg, L->ipos[i]);
        }
    }
}

static void lin_global_hulls(lin *L)
{
    for (uint32_t v = 0; v < L->nv; v++)
        if (L->global[v]) {
            L->lo[v] = 0;
            L->hi[v] = LIN_INF - 1;
        }
}

/* ---- 3. the scan: state helpers ---- */

/* First use of v at or after the current position (LIN_INF if none). */
static uint32_t next_use(lin *L, uint32_t v)
{
    uint32_t c = L->use_cur[v], e = L->use_start[v + 1];
    while (c < e && L->use_pos[c] < L->cur_pos) c++;
    L->use_cur[v] = c;
    return c < e ? L->use_pos[c] : LIN_INF;
}

static inline __attribute__((always_inline)) uint8_t rfl(const lin *L, uint32_t r) { return L->rstamp[r] == L->stamp ? L->rfl[r] : 0; }
static inline __attribute__((always_inline)) void rset(lin *L, uint32_t r, uint8_t fl)
{
    if (L->rstamp[r] != L->stamp) {
        L->rstamp[r] = L->stamp;
        L->rfl[r] = 0;
        L->rpinv[r] = RAVEL_NONE;
        rv_vec_push(L->flagged, r);
    }
    L->rfl[r] |= fl;
}
static inline __attribute__((always_inline)) uint32_t rpin(const lin *L, uint32_t r) { return (rfl(L, r) & (RF_PIN_E | RF_PIN_L)) ? L->rpinv[r] : RAVEL_NONE; }
static inline __attribute__((always_inline)) uint8_t vfl(const lin *L, uint32_t v) { return L->vstamp[v] == L->stamp ? L->vfl[v] : 0; }
static inline __attribute__((always_inline)) uint32_t vpinned(const lin *L, uint32_t v) { return (L->vstamp[v] == L->stamp) ? L->vpin[v] : RAVEL_NONE; }
static inline __attribute__((always_inline)) void vset(lin *L, uint32_t v, uint8_t fl)
{
    if (L->vstamp[v] != L->stamp) {
        L->vstamp[v] = L->stamp;
        L->vfl[v] = 0;
        L->vpin[v] = RAVEL_NONE;
    }
    L->vfl[v] |= fl;
}
static inline __attribute__((always_inline)) void touch(lin *L, uint32_t v) { L->ent_fresh[v] = 0; } /* v is read */
static void pin(lin *L, uint32_t r, uint32_t v, bool late)
{
    rset(L, r, late ? RF_PIN_L : RF_PIN_E);
    touch(L, v);
    L->rpinv[r] = v;
    vset(L, v, 0);
    L->vpin[v] = r;
}

/* Every virtual slot named anywhere gets a physical slot. */
static inline __attribute__((always_inline)) void mark_slot(lin *L, ravel_loc l)
{
    if (ravel_loc_is_slot(l) && ravel_loc_slot(l) < L->nv) L->slot_used[ravel_loc_slot(l)] = 1;
}

static void emit(lin *L, ravel_opcode kind, ravel_loc dst, ravel_loc src)
{
    mark_slot(L, dst);
    mark_slot(L, src);
    rv_out_edit(&L->out, L->anchor, kind, dst, src);
    if (L->opts && L->opts->trace) {
        char a[32], b[32];
        rv_alloc_trace(L->opts, "linear", "%s %s <- %s",
                       kind == RAVEL_OP_SPILL ? "spill" : kind == RAVEL_OP_RELOAD ? "reload" : "move",
                       rv_loc_str(L->m, dst, a), rv_loc_str(L->m, src, b));
    }
}

static void set_home(lin *L, uint32_t v, uint32_t r)
{
    L->home[v] = r;
    L->owner[r] = v;
}
/* A live-in whose entry register was never read in this block, when it
 * loses the register with its slot valid, enters the block in its slot
 * instead: the edges then load nothing for it. */
static void drop_home(lin *L, uint32_t v)
{
    if (L->home[v] != RAVEL_NONE) L->owner[L->home[v]] = RAVEL_NONE;
    L->home[v] = RAVEL_NONE;
    if (L->ent_fresh[v] && L->instate[v] && L->sv[v]) {
        lin_vst *e = &L->entry[L->cur_block].data[L->ent_idx[v]];
        e->home = RAVEL_NONE;
        e->sv = 1;
    }
    L->ent_fresh[v] = 0;
}


/* A register currently holding v (home, else a pin), or RAVEL_NONE. */
static uint32_t vreg_reg(const lin *L, uint32_t v)
{
    if (L->home[v] != RAVEL_NONE) return L->home[v];
    uint32_t r = vpinned(L, v);
    return (r != RAVEL_NONE && rpin(L, r) == v) ? r : RAVEL_NONE;
}

static void add_ref(lin *L, uint32_t v)
{
    if (!vref(L, v) || L->refpos[v]) return;
    rv_vec_push(L->refs, v);
    L->refpos[v] = L->refs.len;
}
static void del_ref(lin *L, uint32_t v)
{
    uint32_t p = L->refpos[v];
    if (!p) return;
    uint32_t last = L->refs.data[--L->refs.len];
    if (last != v) {
        L->refs.data[p - 1] = last;
        L->refpos[last] = p;
    }
    L->refpos[v] = 0;
}

static void enter(lin *L, uint32_t v, uint32_t r, bool sv)
{
    if (!L->instate[v]) L->ninstate++;
    L->instate[v] = 1;
    L->ent_fresh[v] = 0;
    L->sv[v] = sv;
    L->home[v] = RAVEL_NONE;
    if (r != RAVEL_NONE) set_home(L, v, r);
    add_ref(L, v);
}
static void leave(lin *L, uint32_t v)
{
    if (!L->instate[v]) return;
    L->instate[v] = 0;
    L->ninstate--;
    drop_home(L, v);
    L->sv[v] = 0;
    del_ref(L, v);
}

/* Makes v's slot valid (stores it from a register if needed). */
static bool ensure_slot(lin *L, uint32_t v)
{
    if (L->sv[v]) return true;
    uint32_t r = vreg_reg(L, v);
    if (r == RAVEL_NONE) return fail(L, "internal: value lost");
    touch(L, v);
    emit(L, RAVEL_OP_SPILL, vslot(v), r);
    L->sv[v] = 1;
    return true;
}
/* Spill at the definition: a value defined outside the current loop and
 * evicted inside it is stored once, right after its def, rather than on
 * every iteration. Safe because each vreg has its own slot and its def's
 * register holds it at that point (recorded in def_reg). */
static void spill_at_def(lin *L, uint32_t v)
{
    uint32_t d = L->def_inst[v], r = L->def_reg[v];
    if (L->sv[v] || d == RAVEL_NONE || r == RAVEL_NONE || L->cur_inst == RAVEL_NONE) return;
    uint32_t cb = L->inst_block[L->cur_inst], db = L->inst_block[d];
    if (L->cfg.loop_depth[db] >= L->cfg.loop_depth[cb]) return;
    uint32_t saved = L->anchor;
    L->anchor = rv_anchor_after(d);
    emit(L, RAVEL_OP_SPILL, vslot(v), r);
    L->anchor = saved;
    L->sv[v] = 1;
    L->def_stored[v] = 1;
}

static bool evict(lin *L, uint32_t v)
{
    spill_at_def(L, v);
    if (L->ent_fresh[v] && !L->sv[v]) {
        /* its entry register was never read here: it enters the block in
         * its slot instead (the edges store it), no store in the block */
        L->sv[v] = 1;
        drop_home(L, v);
        return true;
    }
    if (!ensure_slot(L, v)) return false;
    rv_alloc_trace(L->opts, "linear", "evict v%u", L->f->vregs.data[v].num);
    drop_home(L, v);
    return true;
}
/* Copies v into register t (which holds nothing needed). */
static bool copy_to(lin *L, uint32_t v, uint32_t t)
{
    uint32_t r = vreg_reg(L, v);
    if (r == t) return true;
    touch(L, v);
    if (r != RAVEL_NONE) emit(L, RAVEL_OP_MOVE, t, r);
    else if (L->sv[v]) emit(L, RAVEL_OP_RELOAD, t, vslot(v));
    else return fail(L, "internal: value lost");
    return true;
}

/* Picks a register of class cls not flagged with excl. Pinned registers are
 * skipped (early pins may be taken by a late def). Prefers free registers
 * (no owner, or for a late def an owner dying here), then hint, then
 * registers outside soft; else, if may_evict, the owner whose next use is
 * farthest (clean ones first on ties). */
static uint32_t pick_reg(lin *L, uint32_t cls, uint8_t excl, bool late_def, uint8_t soft, uint32_t hint, bool may_evict)
{
    const rv_class *c = &L->m->classes.data[cls];
    uint32_t best = RAVEL_NONE;
    uint64_t best_score = 0;
    for (uint32_t k = 0; k < c->alloc.len; k++) {
        uint32_t r = c->alloc.data[k];
        uint8_t fl = rfl(L, r);
        if (fl & excl) continue;
        if ((fl & RF_PIN_L) || ((fl & RF_PIN_E) && !late_def)) continue;
        uint32_t o = L->owner[r];
        uint64_t score;
        if (o == RAVEL_NONE || (late_def && (vfl(L, o) & VF_DIES) && !(vfl(L, o) & VF_LATE))) {
            score = (1ull << 62) + (r == hint ? 4 : 0) + ((fl & soft) ? 0 : 2);
        } else if (may_evict) {
            score = ((uint64_t)next_use(L, o) << 1) | L->sv[o];
        } else {
            continue;
        }
        if (best == RAVEL_NONE || score > best_score) {
            best = r;
            best_score = score;
        }
    }
    return best;
}

/* Frees register r for the current instruction: its owner is dropped when it
 * dies here (late defs only) or evicted. */
static bool take_reg(lin *L, uint32_t r, bool late_def)
{
    uint32_t o = L->owner[r];
    if (o == RAVEL_NONE) return true;
    if (late_def && (vfl(L, o) & VF_DIES) && !(vfl(L, o) & VF_LATE)) {
        drop_home(L, o);
        return true;
    }
    return evict(L, o);
}

/* Places v in a register not flagged excl and pins it. temp_only: always a
 * fresh copy (the home stays); else the home is used or moved. */
static uint32_t place_reg(lin *L, uint32_t v, uint8_t excl, bool late, bool temp_only)
{
    uint32_t cls = vcls(L, v);
    if (!temp_only) {
        uint32_t r = vpinned(L, v);
        if (r != RAVEL_NONE && rpin(L, r) == v && !(rfl(L, r) & excl) && reg_alloc_of(L, r, cls)) {
            pin(L, r, v, late);
            return r;
        }
        uint32_t h = L->home[v];
        if (h != RAVEL_NONE && !(rfl(L, h) & excl)) {
            pin(L, h, v, late);
            return h;
        }
    }
    uint8_t soft = (temp_only || (vfl(L, v) & VF_DIES)) ? RF_FIXU : (RF_CLOB | RF_FDE | RF_FDL | RF_FIXU);
    uint32_t t = pick_reg(L, cls, excl, false, soft, RAVEL_NONE, true);
    if (t == RAVEL_NONE) return RAVEL_NONE;
    if (L->owner[t] == v) { /* a copy in v's own home: v moves to its slot */
        touch(L, v); /* t is read: its entry register must stay */
        if (!ensure_slot(L, v)) return RAVEL_NONE;
        drop_home(L, v);
        pin(L, t, v, late);
        return t;
    }
    if (!take_reg(L, t, false) || !copy_to(L, v, t)) return RAVEL_NONE;
    if (!temp_only) {
        drop_home(L, v);
        set_home(L, v, t);
    }
    pin(L, t, v, late);
    return t;
}

/* Moves the live-after owner of r elsewhere (a safe free register, else its slot). */
static bool relocate(lin *L, uint32_t r)
{
    uint32_t w = L->owner[r];
    /* a value read by this instruction may push out one used later */
    bool used = vfl(L, w) & VF_USED;
    uint32_t t = pick_reg(L, vcls(L, w), RF_CLOB | RF_FDE | RF_FDL | RF_FIXU, false, 0, RAVEL_NONE, used);
    if (t != RAVEL_NONE && L->owner[t] != RAVEL_NONE && next_use(L, L->owner[t]) <= next_use(L, w)) t = RAVEL_NONE;
    if (t == RAVEL_NONE) return evict(L, w);
    if (!take_reg(L, t, false)) return false;
    touch(L, w);
    emit(L, RAVEL_OP_MOVE, t, r);
    drop_home(L, w);
    set_home(L, w, t);
    return true;
}

/* ---- 3. the scan: one instruction ---- */

static bool place_fixed_use(lin *L, uint32_t v, uint32_t R, bool late)
{
    if (R >= L->nr || lin_reg(L, R)->cls != vcls(L, v)) return fail(L, "fixed register of another class");
    uint32_t p = rpin(L, R);
    if (p != RAVEL_NONE && p != v) return fail(L, "two values in one fixed register");
    if (p == v || L->owner[R] == v) {
        pin(L, R, v, late);
        return true;
    }
    if (L->owner[R] != RAVEL_NONE && !relocate(L, R)) return false;
    if (!copy_to(L, v, R)) return false;
    if (L->home[v] == RAVEL_NONE && !lin_reg(L, R)->reserved) set_home(L, v, R);
    pin(L, R, v, late);
    return true;
}

/* Precomputes the flags of the instruction; reports fixed conflicts. */
static bool inst_flags(lin *L, const rv_inst *in, const rv_operand *defs, const rv_operand *uses)
{
    for (uint32_t k = 0; k < in->nuses; k++) {
        uint32_t v = uses[k].vreg;
        if (L->global[v] && !L->instate[v]) { /* in its slot since its def */
            enter(L, v, RAVEL_NONE, true);
            rv_vec_push(L->bglob, v);
        }
    }
    for (uint32_t k = 0; k < in->nuses; k++) {
        uint8_t fl = VF_USED;
        if (L->opk[in->first_op + in->ndefs + k] & OPK_DIES) fl |= VF_DIES;
        if (rv_op_is_late(&uses[k])) fl |= VF_LATE;
        vset(L, uses[k].vreg, fl);
    }
    const uint32_t *cl;
    uint32_t ncl = rv_inst_clobbers(L->f, in, &cl);
    for (uint32_t k = 0; k < ncl; k++)
        if (cl[k] < L->nr) rset(L, cl[k], RF_CLOB);
    for (uint32_t k = 0; k < in->ndefs; k++) {
        const rv_operand *d = &defs[k];
        if (d->kind == RAVEL_C_FIXED) {
            if (d->arg >= L->nr) return fail(L, "bad fixed register");
            if (rfl(L, d->arg) & (RF_FDE | RF_FDL)) return fail(L, "two defs in one fixed register");
            rset(L, d->arg, rv_op_is_late(d) ? RF_FDL : RF_FDE);
        } else if (d->kind == RAVEL_C_REUSE) {
            if (d->arg >= in->nuses) return fail(L, "reuse of a missing use");
            const rv_operand *u = &uses[d->arg];
            if (rv_op_is_early(d)) return fail(L, "early def reusing a use");
            if (rv_op_is_late(u)) return fail(L, "reused use is late");
            if (u->kind == RAVEL_C_STACK) return fail(L, "reused use is on the stack");
        }
    }
    for (uint32_t k = 0; k < in->nuses; k++) {
        const rv_operand *u = &uses[k];
        if (u->kind != RAVEL_C_FIXED) continue;
        if (u->arg >= L->nr) return fail(L, "bad fixed register");
        rset(L, u->arg, RF_FIXU);
        uint8_t fl = rfl(L, u->arg);
        if (fl & RF_FDE) return fail(L, "use in the register of an early def");
        if (rv_op_is_late(u) && (fl & (RF_FDL | RF_CLOB))) return fail(L, "late use in a defined or clobbered register");
    }
    return true;
}

static bool moving_ref(const lin *L, const rv_inst *in, uint32_t v)
{
    return (in->flags & RV_IF_SAFEPOINT) && !L->m->gc_nonmoving && vref(L, v);
}

/* Step 2: the locations of every use. */
static bool place_uses(lin *L, const rv_inst *in, const rv_operand *defs, const rv_operand *uses, ravel_loc *loc)
{
    uint32_t u0 = in->first_op + in->ndefs;
    /* fixed */
    for (uint32_t k = 0; k < in->nuses; k++)
        if (uses[k].kind == RAVEL_C_FIXED) {
            if (rv_op_is_late(&uses[k]) && moving_ref(L, in, uses[k].vreg))
                return fail(L, "late use of a reference in a register at a safepoint");
            if (!place_fixed_use(L, uses[k].vreg, uses[k].arg, rv_op_is_late(&uses[k]))) return false;
            loc[u0 + k] = uses[k].arg;
        }
    /* reuse targets */
    for (uint32_t k = 0; k < in->ndefs; k++) {
        if (defs[k].kind != RAVEL_C_REUSE) continue;
        uint32_t K = defs[k].arg, v = uses[K].vreg;
        uint32_t r = loc[u0 + K];
        if (r == RAVEL_LOC_NONE) {
            bool copy = !(vfl(L, v) & VF_DIES) || (vfl(L, v) & VF_LATE);
            r = place_reg(L, v, RF_FDE | RF_FDL | RF_PIN_L, false, copy);
            if (r == RAVEL_NONE) return fail(L, "no register for a reused use");
            loc[u0 + K] = r;
        } else if (rfl(L, r) & (RF_FDE | RF_FDL)) {
            return fail(L, "two defs in one location");
        }
        rset(L, r, RF_FDL);
    }
    /* late, then early uses in registers; then any and stack */
    for (int late = 1; late >= 0; late--)
        for (uint32_t k = 0; k < in->nuses; k++) {
            const rv_operand *u = &uses[k];
            if (loc[u0 + k] != RAVEL_LOC_NONE || u->kind != RAVEL_C_REG || rv_op_is_late(u) != (bool)late) continue;
            if (late && moving_ref(L, in, u->vreg)) return fail(L, "late use of a reference in a register at a safepoint");
            uint8_t excl = late ? (RF_FDE | RF_FDL | RF_CLOB) : RF_FDE;
            uint32_t r = place_reg(L, u->vreg, excl, late, false);
            if (r == RAVEL_NONE) return fail(L, "not enough registers for the uses");
            loc[u0 + k] = r;
        }
    for (uint32_t k = 0; k < in->nuses; k++) {
        const rv_operand *u = &uses[k];
        if (loc[u0 + k] != RAVEL_LOC_NONE) continue;
        uint32_t v = u->vreg;
        bool late = rv_op_is_late(u);
        if (u->kind == RAVEL_C_ANY && !(late && moving_ref(L, in, v))) {
            uint8_t excl = late ? (RF_FDE | RF_FDL | RF_CLOB) : RF_FDE;
            uint32_t h = L->home[v];
            if (h != RAVEL_NONE && !(rfl(L, h) & excl)) {
                pin(L, h, v, late);
                loc[u0 + k] = h;
                continue;
            }
        }
        if (!ensure_slot(L, v)) return false;
        loc[u0 + k] = vslot(v);
        mark_slot(L, vslot(v));
    }
    return true;
}

/* Step 3: values live after the instruction leave clobbered and defined
 * registers. */
static bool relocate_live(lin *L)
{
    for (uint32_t k = 0; k < L->flagged.len; k++) {
        uint32_t r = L->flagged.data[k];
        if (!(rfl(L, r) & (RF_CLOB | RF_FDE | RF_FDL))) continue;
        uint32_t o = L->owner[r];
        if (o != RAVEL_NONE && !(vfl(L, o) & VF_DIES) && !relocate(L, r)) return false;
    }
    return true;
}

/* Step 4: every reference needed after the safepoint effect is in its slot,
 * listed in the stackmap. */
static bool safepoint_spills(lin *L, const rv_inst *in)
{
    if (!(in->flags & RV_IF_SAFEPOINT)) return true;
    for (uint32_t k = 0; k < L->refs.len; k++) {
        uint32_t v = L->refs.data[k];
        uint8_t fl = vfl(L, v);
        if ((fl & VF_DIES) && !(fl & VF_LATE)) continue;
        if (!ensure_slot(L, v)) return false;
        rv_vec_push(L->smap, v);
    }
    return true;
}

/* Under pressure, moves the `any` uses read from one register of class cls
 * to their slots, so that a def can have the register. False if none. */
static bool unpin_any(lin *L, const rv_inst *in, const rv_operand *uses, ravel_loc *loc)
{
    uint32_t u0 = in->first_op + in->ndefs;
    for (uint32_t k = 0; k < in->nuses; k++) {
        ravel_loc r = loc[u0 + k];
        if (uses[k].kind != RAVEL_C_ANY || !ravel_loc_is_reg(r) || rfl(L, r) & (RF_FDE | RF_FDL)) continue;
        bool only_any = true;
        for (uint32_t j = 0; j < in->nuses; j++)
            if (loc[u0 + j] == r && uses[j].kind != RAVEL_C_ANY) only_any = false;
        if (!only_any) continue;
        uint32_t v = uses[k].vreg;
        if (!ensure_slot(L, v)) return false;
        for (uint32_t j = 0; j < in->nuses; j++)
            if (loc[u0 + j] == r) loc[u0 + j] = vslot(v);
        L->rfl[r] &= (uint8_t)~(RF_PIN_E | RF_PIN_L);
        if (L->owner[r] == v) drop_home(L, v);
        return true;
    }
    return false;
}

/* Step 5: the locations of the defs. */
static bool place_defs(lin *L, const rv_inst *in, const rv_operand *defs, const rv_operand *uses, ravel_loc *loc)
{
    uint32_t u0 = in->first_op + in->ndefs;
    for (uint32_t k = 0; k < in->ndefs; k++) {
        const rv_operand *d = &defs[k];
        if (d->kind == RAVEL_C_FIXED) loc[in->first_op + k] = d->arg;
        else if (d->kind == RAVEL_C_REUSE) loc[in->first_op + k] = loc[u0 + d->arg];
    }
    for (int pass = 0; pass < 3; pass++)
        for (uint32_t k = 0; k < in->ndefs; k++) {
            const rv_operand *d = &defs[k];
            uint32_t op = in->first_op + k, v = d->vreg;
            bool late = rv_op_is_late(d), dead = L->opk[op] & OPK_DEAD;
            bool ref_sp = !late && !dead && (in->flags & RV_IF_SAFEPOINT) && vref(L, v);
            if (d->kind == RAVEL_C_FIXED || d->kind == RAVEL_C_REUSE) {
                if (pass == 0 && ref_sp) return fail(L, "early def of a reference in a register at a safepoint");
                continue;
            }
            /* pass 0: early reg defs, 1: late reg defs, 2: any and stack */
            if (pass == 2 ? d->kind == RAVEL_C_REG : (d->kind != RAVEL_C_REG || late != (pass == 1))) continue;
            uint32_t r = RAVEL_NONE;
            if (ref_sp) {
                if (d->kind == RAVEL_C_REG) return fail(L, "early def of a reference in a register at a safepoint");
            } else if (d->kind != RAVEL_C_STACK) {
                uint32_t hint = RAVEL_NONE;
                if (in->op == RAVEL_OP_COPY && in->nuses == 1 && ravel_loc_is_reg(loc[u0]) && (vfl(L, uses[0].vreg) & VF_DIES))
                    hint = loc[u0];
                r = pick_reg(L, vcls(L, v), RF_FDE | RF_FDL, late, 0, hint, d->kind == RAVEL_C_REG);
                while (r == RAVEL_NONE && d->kind == RAVEL_C_REG && unpin_any(L, in, uses, loc))
                    r = pick_reg(L, vcls(L, v), RF_FDE | RF_FDL, late, 0, hint, true);
                if (r == RAVEL_NONE && d->kind == RAVEL_C_REG) return fail(L, "not enough registers for the defs");
            }
            if (r != RAVEL_NONE) {
                if (!take_reg(L, r, late)) return false;
                rset(L, r, late ? RF_FDL : RF_FDE);
                loc[op] = r;
            } else {
                loc[op] = vslot(v);
                L->slot_used[v] = 1;
                if (ref_sp) rv_vec_push(L->smap, v);
            }
        }
    return true;
}

/* Step 6: the state after the instruction. */
static bool after_inst(lin *L, uint32_t i, const rv_inst *in, const rv_operand *defs, const rv_operand *uses, const ravel_loc *loc)
{
    for (uint32_t k = 0; k < in->nuses; k++)
        if (vfl(L, uses[k].vreg) & VF_DIES) leave(L, uses[k].vreg);
    /* register copies of references die at a safepoint; under `gc nonmoving`
     * they would stay valid, but dropping them keeps the allocation right
     * under the interpreter's moving-collector model too */
    if (in->flags & RV_IF_SAFEPOINT)
        for (uint32_t k = 0; k < L->smap.len; k++) drop_home(L, L->smap.data[k]);
    for (uint32_t k = 0; k < L->flagged.len; k++) {
        uint32_t r = L->flagged.data[k], o = L->owner[r];
        if ((rfl(L, r) & RF_CLOB) && o != RAVEL_NONE) {
            if (!L->sv[o]) return fail(L, "internal: live value in a clobbered register");
            drop_home(L, o);
        }
    }
    L->anchor = rv_anchor_after(i);
    L->stamp++; /* pins are over */
    for (uint32_t k = 0; k < in->ndefs; k++) {
        uint32_t op = in->first_op + k, v = defs[k].vreg;
        if (L->opk[op] & OPK_DEAD) continue;
        ravel_loc l = loc[op];
        if (ravel_loc_is_slot(l)) {
            enter(L, v, RAVEL_NONE, true);
        } else if (!lin_reg(L, l)->reserved) {
            if (L->owner[l] != RAVEL_NONE) return fail(L, "internal: def over a live value");
            enter(L, v, l, false);
            L->def_reg[v] = l;
        }
    }
    for (uint32_t k = 0; k < in->ndefs; k++) {
        uint32_t op = in->first_op + k, v = defs[k].vreg;
        ravel_loc l = loc[op];
        if ((L->opk[op] & OPK_DEAD) || ravel_loc_is_slot(l) || !lin_reg(L, l)->reserved) continue;
        /* a def in a reserved register moves out at once */
        uint32_t t = pick_reg(L, vcls(L, v), 0, false, 0, RAVEL_NONE, false);
        if (t != RAVEL_NONE) {
            emit(L, RAVEL_OP_MOVE, t, l);
            enter(L, v, t, false);
            L->def_reg[v] = t;
        } else {
            emit(L, RAVEL_OP_SPILL, vslot(v), l);
            enter(L, v, RAVEL_NONE, true);
        }
    }
    for (uint32_t k = 0; k < in->ndefs; k++) { /* a global is stored right after its def */
        uint32_t v = defs[k].vreg;
        if (!L->global[v] || !L->instate[v]) continue;
        rv_vec_push(L->bglob, v);
        if (L->home[v] != RAVEL_NONE && !ensure_slot(L, v)) return false;
    }
    return true;
}

static bool lin_inst(lin *L, uint32_t i)
{
    const ravel_func *f = L->f;
    const rv_inst *in = rv_inst_at(f, i);
    const rv_operand *defs = rv_inst_defs(f, in), *uses = rv_inst_uses(f, in);
    ravel_loc *loc = L->out.loc;
    L->stamp++;
    L->flagged.len = 0;
    L->smap.len = 0;
    L->cur_pos = L->ipos[i];
    L->cur_inst = i;
    L->anchor = rv_anchor_before(i);
    if (!inst_flags(L, in, defs, uses)) return false;
    if (!place_uses(L, in, defs, uses, loc)) return false;
    if (!relocate_live(L)) return false;
    if (!safepoint_spills(L, in)) return false;
    if (!place_defs(L, in, defs, uses, loc)) return false;
    if (in->flags & RV_IF_SAFEPOINT) {
        if ((uint64_t)L->smaps.len + L->smap.len > 2ull * RV_MAX_STACKMAP_ENTRIES) { /* bounded: refused */
            L->out.too_big = true;
            if (!L->err) L->err = rv_out_limit_error(&L->out);
            return false;
        }
        rv_vec_push(L->smaps, i);
        rv_vec_push(L->smaps, L->smap.len);
        for (uint32_t k = 0; k < L->smap.len; k++) rv_vec_push(L->smaps, L->smap.data[k]);
    }
    return after_inst(L, i, in, defs, uses, loc);
}

/* ---- 3. the scan: blocks ---- */

/* Maps the vregs of a block-state list to their index (stamped). */
static void emap_build(lin *L, const vstvec *s)
{
    L->emcount++;
    for (uint32_t k = 0; k < s->len; k++) {
        L->emstamp[s->data[k].v] = L->emcount;
        L->emidx[s->data[k].v] = k;
    }
}
static inline __attribute__((always_inline)) const lin_vst *emap_get(const lin *L, const vstvec *s, uint32_t v)
{
    return L->emstamp[v] == L->emcount ? &s->data[L->emidx[v]] : NULL;
}

/* The scanned predecessor the entry state copies: deepest loop, then the
 * latest scanned. RAVEL_NONE if none. */
static uint32_t best_pred(const lin *L, uint32_t b)
{
    uint32_t best = RAVEL_NONE, bi = L->cfg.rpo_index[b];
    if (bi == RAVEL_NONE) return RAVEL_NONE;
    for (uint32_t e = L->cfg.pred_start[b]; e < L->cfg.pred_start[b + 1]; e++) {
        uint32_t p = L->cfg.pred[e], pi = L->cfg.rpo_index[p];
        if (pi == RAVEL_NONE || pi >= bi) continue;
        if (best == RAVEL_NONE || L->cfg.loop_depth[p] > L->cfg.loop_depth[best] ||
            (L->cfg.loop_depth[p] == L->cfg.loop_depth[best] && pi > L->cfg.rpo_index[best]))
            best = p;
    }
    return best;
}

/* The arguments of the edge p -> b (first such edge), or NULL. */
static const uint32_t *edge_args(const lin *L, uint32_t p, uint32_t b)
{
    const rv_inst *t = rv_inst_at(L->f, term_inst(L, p));
    for (uint32_t s = 0; s < rv_inst_nsuccs(t); s++) {
        const rv_succ *sc = &rv_inst_succs(L->f, t)[s];
        if (sc->block == b) return rv_args_of(L->f, sc);
    }
    return NULL;
}

/* For a loop header b: the last position of its back-edge predecessors;
 * else RAVEL_NONE. */
static uint32_t loop_end_pos(const lin *L, uint32_t b)
{
    uint32_t bi = L->cfg.rpo_index[b], end = RAVEL_NONE;
    if (bi == RAVEL_NONE) return RAVEL_NONE;
    for (uint32_t e = L->cfg.pred_start[b]; e < L->cfg.pred_start[b + 1]; e++) {
        uint32_t p = L->cfg.pred[e], pi = L->cfg.rpo_index[p];
        if (pi == RAVEL_NONE || pi < bi) continue;
        uint32_t tp = L->ipos[term_inst(L, p)];
        if (end == RAVEL_NONE || tp > end) end = tp;
    }
    return end;
}

static void lin_block_entry(lin *L, uint32_t b)
{
    const ravel_func *f = L->f;
    const rv_block *bl = &f->blocks.data[b];
    const uint32_t *ps = rv_params_of(f, bl);
    uint32_t p = best_pred(L, b);
    const uint32_t *args = p == RAVEL_NONE ? NULL : edge_args(L, p, b);
    vstvec *en = &L->entry[b];
    if (p != RAVEL_NONE) emap_build(L, &L->endst[p]);
    /* live-ins keep their place at p's end; at a loop header only those
     * used inside the loop keep a register (else the back edges reload
     * values the loop body had to evict) */
    uint32_t loop_end = loop_end_pos(L, b), nin;
    const uint32_t *lins = live_in(L, b, &nin);
    for (uint32_t k = 0; k < nin; k++) {
        uint32_t v = lins[k];
        const lin_vst *s = p != RAVEL_NONE ? emap_get(L, &L->endst[p], v) : NULL;
        uint32_t h = s && s->home != RAVEL_NONE && L->owner[s->home] == RAVEL_NONE ? s->home : RAVEL_NONE;
        if (loop_end != RAVEL_NONE && next_use(L, v) > loop_end) h = RAVEL_NONE;
        /* with one or two registers, a merge keeps only values read in it */
        if (loop_end == RAVEL_NONE && L->cfg.pred_start[b + 1] - L->cfg.pred_start[b] > 1 &&
            L->m->classes.data[vcls(L, v)].alloc.len <= 2 && next_use(L, v) > L->ipos[term_inst(L, b)])
            h = RAVEL_NONE;
        enter(L, v, h, h == RAVEL_NONE || s->sv || L->def_stored[v]);
    }
    /* params: the argument's register if the argument dies on the edge, else a free one */
    for (uint32_t k = 0; k < bl->nparams; k++) {
        uint32_t v = ps[k], h = RAVEL_NONE;
        if (L->use_start[v] == L->use_start[v + 1]) continue; /* never used: never in the state */
        if (L->global[v]) continue; /* enters at its first use, in its slot */
        if (args) {
            uint32_t a = args[k];
            const lin_vst *s = emap_get(L, &L->endst[p], a);
            if (s && s->home != RAVEL_NONE && L->owner[s->home] == RAVEL_NONE && !L->instate[a]) h = s->home;
            if (h == RAVEL_NONE) {
                const rv_class *c = &L->m->classes.data[vcls(L, v)];
                for (uint32_t j = 0; j < c->alloc.len && h == RAVEL_NONE; j++)
                    if (L->owner[c->alloc.data[j]] == RAVEL_NONE) h = c->alloc.data[j];
            }
        }
        enter(L, v, h, h == RAVEL_NONE);
    }
    for (uint32_t k = 0; k < bl->nparams; k++) { /* a dead param: no home, no slot, no moves */
        L->ent_fresh[ps[k]] = L->home[ps[k]] != RAVEL_NONE;
        L->ent_idx[ps[k]] = en->len;
        en->data[en->len++] = (lin_vst){ps[k], L->home[ps[k]], L->global[ps[k]] || (L->instate[ps[k]] && L->sv[ps[k]])};
    }
    for (uint32_t k = 0; k < nin; k++) {
        uint32_t v = lins[k];
        L->ent_fresh[v] = L->home[v] != RAVEL_NONE;
        L->ent_idx[v] = en->len;
        en->data[en->len++] = (lin_vst){v, L->home[v], L->sv[v]};
    }
}

static void lin_block_exit(lin *L, uint32_t b)
{
    vstvec *ex = &L->endst[b];
    uint32_t nout;
    const uint32_t *outs = live_out(L, b, &nout);
    for (uint32_t k = 0; k < nout; k++) {
        uint32_t v = outs[k];
        if (L->instate[v]) ex->data[ex->len++] = (lin_vst){v, L->home[v], L->sv[v]};
        else ex->data[ex->len++] = (lin_vst){v, RAVEL_NONE, 1}; /* not SSA-reachable here */
        leave(L, v);
    }
    for (uint32_t k = 0; k < L->bglob.len; k++) leave(L, L->bglob.data[k]);
    L->bglob.len = 0;
    if (L->ninstate) { /* defensive: values the liveness did not list */
        for (uint32_t v = 0; v < L->nv; v++) leave(L, v);
    }
}

static bool lin_scan(lin *L)
{
    for (uint32_t o = 0; o < L->order.len; o++) {
        uint32_t b = L->order.data[o];
        const rv_block *bl = &L->f->blocks.data[b];
        L->cur_pos = L->bpos[b];
        L->cur_block = b;
        lin_block_entry(L, b);
        for (uint32_t j = 0; j < bl->ninsts; j++)
            if (!lin_inst(L, bl->first_inst + j)) return false;
        lin_block_exit(L, b);
    }
    return true;
}

/* ---- 4. resolution on edges ---- */

typedef struct lin_slotctx { lin *L; uint32_t pos; } lin_slotctx;

static uint32_t new_temp_slot(void *ctx)
{
    lin_slotctx *c = ctx;
    rv_vec_push(c->L->tpos, c->pos);
    return c->L->nv + c->L->tpos.len - 1;
}

static void add_move(lin *L, movevec *mv, ravel_loc dst, ravel_loc src, uint32_t cls)
{
    mark_slot(L, dst);
    mark_slot(L, src);
    rv_vec_push(*mv, ((rv_move){dst, src, cls}));
}

/* Moves for one (entry item, source state) pair. src_v: the vreg whose value
 * flows (the argument for a param). */
static void edge_item(lin *L, movevec *mv, const lin_vst *e, uint32_t src_v, const lin_vst *s, bool param)
{
    uint32_t cls = vcls(L, e->v);
    uint32_t sh = s ? s->home : RAVEL_NONE;
    bool ssv = s ? s->sv || L->def_stored[src_v] : true; /* stored at its def: valid everywhere */
    ravel_loc from = sh != RAVEL_NONE ? sh : vslot(src_v);
    if (e->home != RAVEL_NONE) {
        if (sh == e->home) { /* already in place */
            rv_bs_set(L->pres, e->home);
            L->pres_v[e->home] = src_v;
            L->pres_sv[e->home] = ssv;
        }
        else add_move(L, mv, e->home, from, cls);
    }
    if (e->sv) {
        if (param) add_move(L, mv, vslot(e->v), from, cls);
        else if (!ssv) add_move(L, mv, vslot(e->v), sh, cls);
    }
}

static bool reg_is_src(const movevec *mv, uint32_t r)
{
    for (uint32_t j = 0; j < mv->len; j++)
        if (mv->data[j].src == r) return true;
    return false;
}

/* Slot-to-slot copies of the slot phase (moves [0, na)) need a register of
 * their class. When every register of the class holds a value the
 * successor keeps, one whose slot is valid is used as the scratch and
 * reloaded in the register phase: one reload instead of a save and a
 * restore around every copy. */
static void free_scratch(lin *L, movevec *mv, uint32_t na, uint32_t anchor)
{
    for (uint32_t j = 0; j < na; j++) {
        const rv_move *x = &mv->data[j];
        if (!ravel_loc_is_slot(x->src)) continue;
        const rv_class *c = &L->m->classes.data[x->cls];
        uint32_t cand = RAVEL_NONE;
        bool have = false;
        for (uint32_t k = 0; k < c->alloc.len && !have; k++) {
            uint32_t r = c->alloc.data[k];
            bool dst_a = false;
            for (uint32_t i = 0; i < na; i++) dst_a |= mv->data[i].dst == r;
            if (reg_is_src(mv, r) || dst_a) continue;
            if (!rv_bs_test(L->pres, r)) {
                have = true;
                continue;
            }
            bool slot_written = false; /* the refill must not read a slot this phase writes */
            for (uint32_t i = 0; i < na; i++) slot_written |= mv->data[i].dst == vslot(L->pres_v[r]);
            if (!slot_written && (cand == RAVEL_NONE || (L->pres_sv[r] && !L->pres_sv[cand]))) cand = r;
        }
        if (have || cand == RAVEL_NONE) continue;
        if (!L->pres_sv[cand]) { /* store it first (its slot is in its hull here) */
            rv_out_edit(&L->out, anchor, RAVEL_OP_SPILL, vslot(L->pres_v[cand]), cand);
            mark_slot(L, vslot(L->pres_v[cand]));
            L->pres_sv[cand] = 1;
        }
        rv_bs_clear(L->pres, cand);
        add_move(L, mv, cand, vslot(L->pres_v[cand]), x->cls);
    }
}

static bool lin_edge(lin *L, uint32_t p, uint32_t k, movevec *mv)
{
    const ravel_func *f = L->f;
    const rv_inst *t = rv_inst_at(f, term_inst(L, p));
    const rv_succ *sc = &rv_inst_succs(f, t)[k];
    uint32_t s = sc->block;
    const uint32_t *args = rv_args_of(f, sc);
    const vstvec *en = &L->entry[s];
    uint32_t np = f->blocks.data[s].nparams;
    uint32_t nw = rv_bs_words(L->nr);
    memset(L->pres, 0, nw * sizeof(uint64_t));
    mv->len = 0; /* (lin_resolve mapped p's end state) */
    for (uint32_t j = 0; j < en->len; j++) {
        const lin_vst *e = &en->data[j];
        uint32_t src_v = j < np ? args[j] : e->v;
        edge_item(L, mv, e, src_v, emap_get(L, &L->endst[p], src_v), j < np);
    }
    if (!mv->len) return true;
    bool at_pred_end = false;
    uint32_t anchor = rv_edge_anchor(f, &L->cfg, p, k, &at_pred_end);
    if (anchor == RAVEL_NONE) anchor = rv_anchor_entry(f->blocks.data[s].first_inst);
    lin_slotctx sctx = {L, at_pred_end ? L->ipos[term_inst(L, p)] : L->bpos[s]};
    /* The moves into slots go first (their own cycles resolved among
     * themselves): the registers about to be loaded are still free to carry
     * slot-to-slot copies. Valid unless a move into a register reads a slot
     * that is written; then one parallel move does everything. */
    bool split = true;
    for (uint32_t j = 0; j < mv->len && split; j++)
        if (ravel_loc_is_slot(mv->data[j].dst))
            for (uint32_t i = 0; i < mv->len && split; i++)
                if (ravel_loc_is_reg(mv->data[i].dst) && mv->data[i].src == mv->data[j].dst) split = false;
    uint32_t na = 0;
    if (split) { /* partition: slot dsts first */
        for (uint32_t j = 0; j < mv->len; j++)
            if (ravel_loc_is_slot(mv->data[j].dst)) {
                rv_move x = mv->data[j];
                mv->data[j] = mv->data[na];
                mv->data[na++] = x;
            }
    }
    if (split) free_scratch(L, mv, na, anchor);
    for (int phase = split ? 0 : 1; phase < 2; phase++) {
        uint32_t from = phase == 0 ? 0 : (split ? na : 0), to = phase == 0 ? na : mv->len;
        if (from == to) continue;
        /* scratch: allocatable, not preserved, not read by any move of the
         * edge, not written by a move of this phase */
        memcpy(L->scratch, L->pres, nw * sizeof(uint64_t));
        for (uint32_t j = 0; j < mv->len; j++) {
            if (ravel_loc_is_reg(mv->data[j].src)) rv_bs_set(L->scratch, mv->data[j].src);
            if (j >= from && j < to && ravel_loc_is_reg(mv->data[j].dst)) rv_bs_set(L->scratch, mv->data[j].dst);
        }
        for (uint32_t r = 0; r < L->nr; r++) {
            if (rv_bs_test(L->scratch, r) || lin_reg(L, r)->reserved) rv_bs_clear(L->scratch, r);
            else rv_bs_set(L->scratch, r);
        }
        if (rv_pmove_resolve(&L->pm, L->m, mv->data + from, to - from, L->scratch, new_temp_slot, &sctx) != RAVEL_OK)
            return fail(L, "internal: bad edge moves");
        rv_out_edits(&L->out, anchor, &L->pm);
    }
    return true;
}

static bool lin_resolve(lin *L)
{
    movevec mv = {0};
    rv_vec_reserve(mv, 16);
    bool ok = true;
    for (uint32_t p = 0; p < L->nb && ok; p++) {
        const rv_inst *t = rv_inst_at(L->f, term_inst(L, p));
        emap_build(L, &L->endst[p]); /* once for all of p's edges */
        for (uint32_t k = 0; k < rv_inst_nsuccs(t) && ok; k++) ok = lin_edge(L, p, k, &mv);
    }
    rv_vec_free(mv);
    return ok;
}

/* ---- 5. spill slots ---- */

typedef struct lin_iv { uint32_t lo, hi, id; } lin_iv;

static int cmp_iv(const void *a, const void *b)
{
    const lin_iv *x = a, *y = b;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

typedef struct lin_heap { uint64_t *d; uint32_t n; } lin_heap; /* (hi << 32 | slot), min-heap */

static void heap_push(lin_heap *h, uint64_t x)
{
    uint32_t i = h->n++;
    while (i && h->d[(i - 1) / 2] > x) {
        h->d[i] = h->d[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->d[i] = x;
}
static uint64_t heap_pop(lin_heap *h)
{
    uint64_t top = h->d[0], x = h->d[--h->n];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && h->d[c + 1] < h->d[c]) c++;
        if (h->d[c] >= x) break;
        h->d[i] = h->d[c];
        i = c;
    }
    if (h->n) h->d[i] = x;
    return top;
}

/* Virtual slot -> physical slot: interval scheduling over the hulls. */
static uint32_t *lin_color_slots(lin *L, uint32_t *nslots)
{
    uint32_t nvirt = L->nv + L->tpos.len;
    uint32_t *phys = u32_array(nvirt, 0xff);
    RV_VEC(lin_iv) ivs = {0};
    rv_vec_reserve(ivs, (size_t)L->nv + L->tpos.len + 1);
    for (uint32_t v = 0; v < L->nv; v++)
        if (L->slot_used[v]) rv_vec_push(ivs, ((lin_iv){L->lo[v] == LIN_INF ? 0 : L->lo[v], L->hi[v], v}));
    for (uint32_t k = 0; k < L->tpos.len; k++) rv_vec_push(ivs, ((lin_iv){L->tpos.data[k], L->tpos.data[k], L->nv + k}));
    if (ivs.len > 1) qsort(ivs.data, ivs.len, sizeof *ivs.data, cmp_iv);
    lin_heap h = {rv_xmalloc(sizeof(uint64_t) * (ivs.len + 1)), 0};
    u32vec freel = {0};
    rv_vec_reserve(freel, ivs.len + 1); /* (a slot is freed at most once per interval) */
    uint32_t n = 0;
    for (uint32_t k = 0; k < ivs.len; k++) {
        lin_iv iv = ivs.data[k];
        while (h.n && (uint32_t)(h.d[0] >> 32) < iv.lo) rv_vec_push(freel, (uint32_t)heap_pop(&h));
        uint32_t s = freel.len ? freel.data[--freel.len] : n++;
        phys[iv.id] = s;
        heap_push(&h, ((uint64_t)iv.hi << 32) | s);
    }
    rv_free(h.d);
    rv_vec_free(freel);
    rv_vec_free(ivs);
    *nslots = n;
    return phys;
}

static inline ravel_loc map_loc(const uint32_t *phys, ravel_loc l)
{
    return ravel_loc_is_slot(l) ? ravel_slot(phys[ravel_loc_slot(l)]) : l;
}

static ravel_func *lin_finish(lin *L)
{
    uint32_t nslots;
    uint32_t *phys = lin_color_slots(L, &nslots);
    if (nslots > RAVEL_MAX_SLOT + 1) {
        rv_free(phys);
        L->cur_inst = RAVEL_NONE;
        if (!L->err) L->err = rv_alloc_errorf(L->f, RAVEL_NONE, "too many spill slots");
        return NULL;
    }
    for (uint32_t k = 0; k < L->f->ops.len; k++) L->out.loc[k] = map_loc(phys, L->out.loc[k]);
    for (uint32_t k = 0; k < L->out.edits.len; k++) {
        rv_edit *e = &L->out.edits.data[k].e;
        e->dst = map_loc(phys, e->dst);
        e->src = map_loc(phys, e->src);
    }
    for (uint32_t k = 0; k < L->smaps.len;) {
        uint32_t i = L->smaps.data[k], n = L->smaps.data[k + 1];
        uint32_t *sl = &L->smaps.data[k + 2];
        for (uint32_t j = 0; j < n; j++) sl[j] = phys[sl[j]];
        rv_out_stackmap(&L->out, i, sl, n);
        k += 2 + n;
    }
    rv_free(phys);
    return rv_out_finish(&L->out);
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
    LIN_TAKE(scratch, nw, 0);
    LIN_TAKE(pres, nw, 0);
    LIN_TAKE(entry, nb, 0);
    LIN_TAKE(endst, nb, 0);
    LIN_TAKE(bpos, nb, 0);
    LIN_TAKE(ipos, ni, 0);
    LIN_TAKE(inst_block, ni, 0xff);
    LIN_TAKE(def_inst, nv, 0xff);
    LIN_TAKE(def_reg, nv, 0xff);
    LIN_TAKE(use_start, nv + 1, 0);
    LIN_TAKE(use_cur, nv, 0);
    LIN_TAKE(lo, nv, 0xff);
    LIN_TAKE(hi, nv, 0);
    LIN_TAKE(home, nv, 0xff);
    LIN_TAKE(ent_idx, nv, 0);
    LIN_TAKE(refpos, nv, 0);
    LIN_TAKE(vstamp, nv, 0);
    LIN_TAKE(vpin, nv, 0xff);
    LIN_TAKE(emstamp, nv, 0);
    LIN_TAKE(emidx, nv, 0);
    LIN_TAKE(kmark, nv, 0);
    LIN_TAKE(kpos, nv, 0);
    LIN_TAKE(owner, nr, 0xff);
    LIN_TAKE(rstamp, nr, 0);
    LIN_TAKE(rpinv, nr, 0xff);
    LIN_TAKE(pres_v, nr, 0xff);
    LIN_TAKE(def_stored, nv, 0);
    LIN_TAKE(slot_used, nv, 0);
    LIN_TAKE(sv, nv, 0);
    LIN_TAKE(instate, nv, 0);
    LIN_TAKE(ent_fresh, nv, 0);
    LIN_TAKE(vfl, nv, 0);
    LIN_TAKE(nocap, nv, 0);
    LIN_TAKE(opk, nops, 0);
    LIN_TAKE(rfl, nr, 0);
    LIN_TAKE(pres_sv, nr, 0);
#undef LIN_TAKE
    *total = off;
}

/* The entry and end states of every block in one pool: entry[b] has room
 * for b's params and live-ins, endst[b] for its live-outs (what
 * lin_block_entry and lin_block_exit put there). */
static void lin_states(lin *L)
{
    size_t n = L->ls.start[2 * (size_t)L->nb];
    for (uint32_t b = 0; b < L->nb; b++) n += L->f->blocks.data[b].nparams;
    L->states = rv_xmalloc(sizeof(lin_vst) * (n + 1));
    size_t at = 0;
    for (uint32_t b = 0; b < L->nb; b++) {
        uint32_t nin, nout;
        live_in(L, b, &nin);
        live_out(L, b, &nout);
        L->entry[b] = (vstvec){L->states + at, 0};
        at += (size_t)L->f->blocks.data[b].nparams + nin;
        L->endst[b] = (vstvec){L->states + at, 0};
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
    size_t total = 0;
    lin_arrays(L, NULL, &total);
    L->mem = rv_xmalloc(total);
    lin_arrays(L, L->mem, &total);
    rv_vec_reserve(L->order, L->nb);
    rv_vec_reserve(L->flagged, L->nr + 1); /* (each register at most once per instruction) */
    uint32_t nsafe = 0;
    for (uint32_t i = 0; i < f->insts.len; i++) nsafe += (f->insts.data[i].flags & RV_IF_SAFEPOINT) != 0;
    if (nsafe) { /* stackmaps: two words per safepoint and its slots (a first guess) */
        rv_vec_reserve(L->smaps, 6 * (size_t)nsafe);
        rv_vec_reserve(L->smap, 16);
    }
    L->cur_inst = RAVEL_NONE;
    rv_out_init(&L->out, f);
    rv_pmove_init(&L->pm);
}

static void lin_free(lin *L)
{
    rv_live_sparse_free(&L->ls);
    rv_free(L->states);
    rv_free(L->use_pos);
    rv_free(L->mem);
    rv_vec_free(L->order);
    rv_vec_free(L->bglob);
    rv_vec_free(L->tpos);
    rv_vec_free(L->refs);
    rv_vec_free(L->flagged);
    rv_vec_free(L->smap);
    rv_vec_free(L->smaps);
    rv_out_free(&L->out);
    rv_pmove_free(&L->pm);
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
    if (lin_scan(L) && lin_resolve(L)) g = lin_finish(L);
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
