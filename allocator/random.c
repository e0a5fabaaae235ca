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
 * that are wrong in exactly the ways these shapes can go wrong. */
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

#define RS_INF 0xfffffffeu
#define RS_UNK 0xfffffffdu /* phys: may hold anything (the checker may know more than the engine) */

enum { /* per-register flags for the current instruction */
    RS_USE_E = 1,  /* an early use reads tgt[r] */
    RS_USE_L = 2,  /* a late use reads tgt[r] */
    RS_DEF_E = 4,  /* an early def writes r */
    RS_DEF_L = 8,  /* a late def writes r */
    RS_CLOB = 16,  /* clobbered */
    RS_SAVE = 32,  /* receives a saved value (tgt[r]) before the instruction */
    RS_TOUCHED = 64,
};
#define RS_DEF (RS_DEF_E | RS_DEF_L)
#define RS_TGT (RS_USE_E | RS_USE_L | RS_SAVE)

typedef struct rs_vreg {
    uint32_t reg, slot;    /* hints: a register / slot that may hold the value (checked against content) */
    uint32_t lastuse;      /* last instruction of the current block reading it (RS_INF: live out) */
    uint32_t stamp;        /* lastuse is valid when stamp == current block + 1 */
    uint32_t site;         /* a spill-before-branch site (index into sites) or RAVEL_NONE */
    uint32_t site_block;   /* block that last counted a reload for site */
    bool used;             /* read by an operand, or passed to a used parameter (rs_liveness) */
    uint32_t nreg;         /* registers holding it for the engine (content) */
    uint32_t nslot, sepoch; /* slots holding it for the engine (scont), valid when sepoch == epoch */
} rs_vreg;

typedef struct rs_entry { uint32_t v; ravel_loc loc; } rs_entry;

/* A set of locations, emptied in O(1): l is in it when its stamp (per
 * register, per slot) is the set's current one. */
typedef struct rs_locset {
    uint32_t *r;           /* per register (in the fixed-size block) */
    RV_VEC(uint32_t) s;    /* per slot, grown on demand */
    uint32_t cur;
} rs_locset;
typedef struct rs_undo { ravel_loc l; uint32_t v, p; } rs_undo;

typedef struct rs {
    const ravel_func *f;
    const ravel_machine *m;
    const rv_alloc_opts *opts;
    const rv_random_opts *ro;
    rv_random_stats *st;
    uint64_t rng;
    char *err;
    rv_cfg cfg;
    rv_liveness lv;
    rv_out out;
    rv_pmove pm;
    uint32_t nregs, nv;
    rs_vreg *vs;
    bool *cyclic;             /* per block: on a cycle of the CFG */
    /* state of the current program point */
    uint32_t *content;        /* per register: vreg held, or RAVEL_NONE */
    RV_VEC(uint32_t) scont;   /* per slot: vreg held, or RAVEL_NONE */
    uint32_t *phys;           /* per register: vreg it holds even if dropped from content (bugs are planted only where it differs) */
    RV_VEC(uint32_t) sphys;   /* the same per slot (as long as scont) */
    RV_VEC(uint32_t) sstamp;  /* per slot: epoch of scont/sphys */
    RV_VEC(uint32_t) dirty;   /* slots touched in this epoch */
    uint32_t epoch;
    bool logging;             /* writes go to undo (an edge is being resolved) */
    RV_VEC(rs_undo) undo;
    bool done;                /* the bug asked for is planted */
    uint32_t *copy_of;        /* per vreg: the source of the `copy` defining it, or RAVEL_NONE */
    uint32_t cur;             /* current block */
    /* entry contracts */
    uint32_t *entry_start, *entry_len; /* per block, into entries; entry_start RAVEL_NONE = undecided */
    RV_VEC(rs_entry) entries;
    RV_VEC(ravel_loc) msrc;   /* per entry: the source location on the first edge resolved (merge counting) */
    rs_locset taken;          /* the locations the contract being decided uses */
    uint32_t *mend, mcount;   /* emit_moves: registers ending a move have mend == mcount */
    rs_locset written;        /* move_to: the locations the current moves write */
    uint32_t *harm;           /* save_and_map: the registers it examines */
    /* per instruction */
    uint8_t *rf;
    uint32_t *tgt;
    uint32_t *touched, ntouched;
    RV_VEC(uint32_t) islots;  /* slots read or written by this instruction or its moves */
    RV_VEC(rv_move) moves;
    RV_VEC(uint32_t) mvals;   /* value of each move (parallel with moves) */
    RV_VEC(rv_move) real;     /* emit_moves: the moves not in place */
    RV_VEC(ravel_loc) esrc;   /* rs_edge: where each value the successor needs is */
    void *mem;                /* the block holding the fixed-size arrays (rs_init) */
    RV_VEC(uint32_t) smap;
    uint64_t *scratch_bs;
    RV_VEC(uint32_t) sites;        /* per spill-before-branch site: its slot */
    RV_VEC(uint32_t) site_reloads; /* per site: successors reloading it */
    uint32_t seen[RV_RS_NKINDS]; /* occurrences of each shape so far (corruption index) */
} rs;

/* ---- small helpers ---- */

static inline __attribute__((always_inline)) uint32_t vcls(const rs *a, uint32_t v) { return a->f->vregs.data[v].cls; }
static inline __attribute__((always_inline)) bool vref(const rs *a, uint32_t v) { return a->f->vregs.data[v].ref; }
static bool coin(rs *a, uint32_t n) { return rv_rng_below(&a->rng, n) == 0; }

static bool rs_fail(rs *a, uint32_t inst, const char *msg)
{
    if (!a->err) a->err = rv_alloc_errorf(a->f, inst, "%s", msg);
    return false;
}

/* ---- the state: what each location holds ----
 * Registers: content[] and phys[]. Slots: scont/sphys, valid only when
 * their stamp is the current epoch (a new one per block): an untouched slot
 * holds nothing for the engine and anything physically (RS_UNK). While an
 * edge is resolved, every write is logged to be undone afterwards, so that
 * each edge starts from the state after the branch. */

/* Makes slot s exist; a new slot is touched in this epoch, empty. */
static void slot_grow(rs *a, uint32_t s)
{
    while (a->scont.len <= s) {
        rv_vec_push(a->scont, RAVEL_NONE);
        rv_vec_push(a->sphys, RAVEL_NONE);
        rv_vec_push(a->sstamp, a->epoch);
        rv_vec_push(a->dirty, a->scont.len - 1);
    }
}

static void slot_touch(rs *a, uint32_t s)
{
    slot_grow(a, s);
    if (a->sstamp.data[s] == a->epoch) return;
    a->sstamp.data[s] = a->epoch;
    a->scont.data[s] = RAVEL_NONE;
    a->sphys.data[s] = RS_UNK;
    rv_vec_push(a->dirty, s);
}

static inline __attribute__((always_inline)) uint32_t slot_val(const rs *a, uint32_t s)
{
    return s < a->scont.len && a->sstamp.data[s] == a->epoch ? a->scont.data[s] : RAVEL_NONE;
}

/* What location l holds physically (see phys). */
static uint32_t loc_phys(const rs *a, ravel_loc l)
{
    if (!ravel_loc_is_slot(l)) return a->phys[l];
    uint32_t s = ravel_loc_slot(l);
    if (s >= a->scont.len) return RAVEL_NONE;
    return a->sstamp.data[s] == a->epoch ? a->sphys.data[s] : RS_UNK;
}

static inline __attribute__((always_inline)) uint32_t loc_get(const rs *a, ravel_loc l)
{
    return ravel_loc_is_slot(l) ? slot_val(a, ravel_loc_slot(l)) : a->content[l];
}

/* Counts d (+1, -1) more locations like l holding v for the engine. */
static inline __attribute__((always_inline)) void held(rs *a, ravel_loc l, uint32_t v, int d)
{
    if (v == RAVEL_NONE) return;
    rs_vreg *x = &a->vs[v];
    if (!ravel_loc_is_slot(l)) {
        x->nreg += (uint32_t)d;
        return;
    }
    if (x->sepoch != a->epoch) x->sepoch = a->epoch, x->nslot = 0;
    x->nslot += (uint32_t)d;
}

/* Location l holds v for the engine and p physically. */
static void loc_write(rs *a, ravel_loc l, uint32_t v, uint32_t p)
{
    uint32_t *c, *ph;
    if (ravel_loc_is_slot(l)) {
        uint32_t s = ravel_loc_slot(l);
        slot_touch(a, s);
        c = &a->scont.data[s], ph = &a->sphys.data[s];
        if (v != RAVEL_NONE) a->vs[v].slot = s;
    } else {
        c = &a->content[l], ph = &a->phys[l];
        if (v != RAVEL_NONE) a->vs[v].reg = l;
    }
    if (a->logging) {
        rs_undo u = {l, *c, *ph};
        rv_vec_push(a->undo, u);
    }
    held(a, l, *c, -1);
    held(a, l, v, 1);
    *c = v, *ph = p;
}

static void undo_all(rs *a)
{
    for (uint32_t k = a->undo.len; k-- > 0;) {
        const rs_undo *u = &a->undo.data[k];
        uint32_t *c = ravel_loc_is_slot(u->l) ? &a->scont.data[ravel_loc_slot(u->l)] : &a->content[u->l];
        held(a, u->l, *c, -1);
        held(a, u->l, u->v, 1);
        if (ravel_loc_is_slot(u->l)) a->scont.data[ravel_loc_slot(u->l)] = u->v, a->sphys.data[ravel_loc_slot(u->l)] = u->p;
        else a->content[u->l] = u->v, a->phys[u->l] = u->p;
    }
    a->undo.len = 0;
}

static void loc_set(rs *a, ravel_loc l, uint32_t v) { loc_write(a, l, v, v); }
static void set_phys(rs *a, ravel_loc l, uint32_t p) { loc_write(a, l, loc_get(a, l), p); }

/* The engine stops using l's copy (a split drops the old location). */
static void forget(rs *a, ravel_loc l) { loc_write(a, l, RAVEL_NONE, loc_phys(a, l)); }

/* The value v is a copy of (`v = copy u`, transitively): wherever one of
 * them is, the checker also sees the other (docs/format.md section 6, `copy`). */
static uint32_t copy_root(const rs *a, uint32_t v)
{
    for (uint32_t n = 0; n < a->nv && a->copy_of[v] != RAVEL_NONE; n++) v = a->copy_of[v];
    return v;
}

/* True if l surely does not hold v (so a bug that leaves it there is one). */
static bool surely_not(const rs *a, ravel_loc l, uint32_t v)
{
    uint32_t p = loc_phys(a, l);
    return p == RAVEL_NONE || (p != RS_UNK && copy_root(a, p) != copy_root(a, v));
}

/* The engine stops using every register copy of v. */
static void forget_regs(rs *a, uint32_t v)
{
    for (uint32_t r = 0; r < a->nregs && a->vs[v].nreg; r++)
        if (a->content[r] == v) forget(a, r);
}

/* The number of registers holding v for the engine. */
static uint32_t nregs_of(const rs *a, uint32_t v) { return a->vs[v].nreg; }

static uint32_t new_slot_num(rs *a)
{
    uint32_t s = a->scont.len;
    slot_grow(a, s);
    return s;
}

/* The shape event `kind` happens: counts it and tells whether the bug of
 * that shape is to be planted here (at the corrupt_at-th occurrence, or
 * the first one after it where the bug changes what a location holds:
 * the caller checks that, and calls planted() if it plants). */
static bool shape(rs *a, int kind)
{
    if (a->st) a->st->count[kind]++;
    uint32_t k = a->seen[kind]++;
    return a->ro && a->ro->corrupt == kind && k >= a->ro->corrupt_at && !a->done && a->cfg.rpo_index[a->cur] != RAVEL_NONE;
}

static void planted(rs *a)
{
    a->done = true;
    if (a->st) a->st->planted = true;
}

/* Liveness within the current block. */
static inline __attribute__((always_inline)) bool live_after(const rs *a, uint32_t v, uint32_t i) { return v != RAVEL_NONE && a->vs[v].stamp == a->cur + 1 && a->vs[v].lastuse > i && a->vs[v].lastuse != RAVEL_NONE; }
static inline __attribute__((always_inline)) bool needed(const rs *a, uint32_t v, uint32_t i) { return v != RAVEL_NONE && a->vs[v].stamp == a->cur + 1 && a->vs[v].lastuse != RAVEL_NONE && a->vs[v].lastuse >= i; }

/* The register holding v, or RAVEL_NONE. */
static uint32_t reg_of(rs *a, uint32_t v)
{
    uint32_t r = a->vs[v].reg;
    if (r != RAVEL_NONE && a->content[r] == v) return r;
    if (!a->vs[v].nreg) return RAVEL_NONE;
    for (r = 0; r < a->nregs; r++)
        if (a->content[r] == v && !a->m->regs.data[r].reserved) return a->vs[v].reg = r;
    for (r = 0; r < a->nregs; r++)
        if (a->content[r] == v) return r;
    return RAVEL_NONE;
}

/* The slot holding v, or RAVEL_NONE. */
static uint32_t slot_of(rs *a, uint32_t v)
{
    uint32_t s = a->vs[v].slot; /* the last slot written with v; else one touched in this block */
    if (s != RAVEL_NONE && slot_val(a, s) == v) return s;
    if (a->vs[v].sepoch != a->epoch || !a->vs[v].nslot) return RAVEL_NONE; /* (every slot of this epoch is in dirty) */
    for (uint32_t k = 0; k < a->dirty.len; k++)
        if (slot_val(a, a->dirty.data[k]) == v) return a->vs[v].slot = a->dirty.data[k];
    return RAVEL_NONE;
}

/* A location holding v (register preferred), or RAVEL_LOC_NONE. */
static ravel_loc cur_loc(rs *a, uint32_t v)
{
    uint32_t r = reg_of(a, v);
    if (r != RAVEL_NONE) return r;
    uint32_t s = slot_of(a, v);
    return s != RAVEL_NONE ? ravel_slot(s) : RAVEL_LOC_NONE;
}

static bool slot_in_inst(const rs *a, uint32_t s)
{
    for (uint32_t k = 0; k < a->islots.len; k++)
        if (a->islots.data[k] == s) return true;
    return false;
}

/* A slot that holds nothing needed at instruction i and is not touched by
 * it: a reused one (often), else a new one. `prefer` is tried first. */
static uint32_t free_slot(rs *a, uint32_t i, uint32_t prefer)
{
    if (prefer != RAVEL_NONE && prefer < a->scont.len && !needed(a, slot_val(a, prefer), i) && !slot_in_inst(a, prefer)) return prefer;
    uint32_t n = a->scont.len;
    for (int t = 0; n && t < 8 && !coin(a, 4); t++) { /* probes: most slots hold nothing needed */
        uint32_t s = rv_rng_below(&a->rng, n);
        if (!needed(a, slot_val(a, s), i) && !slot_in_inst(a, s)) return s;
    }
    return new_slot_num(a);
}

/* The slot a jump argument v of the current block's terminator should
 * prefer: the one its parameter's contract expects (slot sharing around
 * cycles), if decided. */
static uint32_t param_slot_pref(rs *a, uint32_t v)
{
    const ravel_func *f = a->f;
    const rv_block *bl = &f->blocks.data[a->cur];
    const rv_inst *t = rv_block_term(f, bl);
    for (uint32_t k = 0; k < rv_inst_nsuccs(t); k++) {
        const rv_succ *sc = &rv_inst_succs(f, t)[k];
        uint32_t s = sc->block;
        if (a->entry_start[s] == RAVEL_NONE) continue;
        for (uint32_t p = 0; p < sc->nargs; p++) {
            if (rv_succ_args(f, sc)[p] != v) continue;
            uint32_t pv = rv_block_params(f, &f->blocks.data[s])[p];
            for (uint32_t e = 0; e < a->entry_len[s]; e++) {
                const rs_entry *en = &a->entries.data[a->entry_start[s] + e];
                if (en->v == pv && ravel_loc_is_slot(en->loc)) return ravel_loc_slot(en->loc);
            }
        }
    }
    return RAVEL_NONE;
}

static void count_slot_write(rs *a, uint32_t s, uint32_t v, uint32_t i)
{
    uint32_t old = slot_val(a, s);
    if (old == RAVEL_NONE || old == v || needed(a, old, i)) return;
    shape(a, a->cyclic[a->cur] ? RV_RS_SLOT_REUSE_CYCLE : RV_RS_SLOT_REUSE);
}

/* A free allocatable register of class cls at instruction i: holds nothing
 * needed, not touched by the instruction. RAVEL_NONE if none. */
static uint32_t free_reg(rs *a, uint32_t cls, uint32_t i, uint32_t avoid)
{
    const rv_class *c = &a->m->classes.data[cls];
    uint32_t pick = RAVEL_NONE, nacc = 0;
    for (uint32_t k = 0; k < c->alloc.len; k++) {
        uint32_t r = c->alloc.data[k];
        if (r == avoid || (a->rf[r] & RS_TOUCHED) || needed(a, a->content[r], i)) continue;
        if (rv_rng_below(&a->rng, ++nacc) == 0) pick = r;
    }
    return pick;
}

static void touch(rs *a, uint32_t r, uint8_t fl)
{
    if (!(a->rf[r] & RS_TOUCHED)) {
        a->rf[r] = RS_TOUCHED;
        a->tgt[r] = RAVEL_NONE;
        a->touched[a->ntouched++] = r;
    }
    a->rf[r] |= fl;
}

static void add_move(rs *a, ravel_loc dst, ravel_loc src, uint32_t v)
{
    rv_move mv = {dst, src, vcls(a, v)};
    rv_vec_push(a->moves, mv);
    rv_vec_push(a->mvals, v);
    if (ravel_loc_is_slot(dst)) rv_vec_push(a->islots, ravel_loc_slot(dst));
    if (ravel_loc_is_slot(src)) rv_vec_push(a->islots, ravel_loc_slot(src));
}

static bool locset_has(const rs *a, const rs_locset *x, ravel_loc l)
{
    if (!ravel_loc_is_slot(l)) return l < a->nregs && x->r[l] == x->cur;
    uint32_t s = ravel_loc_slot(l);
    return s < x->s.len && x->s.data[s] == x->cur;
}

static void locset_add(const rs *a, rs_locset *x, ravel_loc l)
{
    if (!ravel_loc_is_slot(l)) {
        if (l < a->nregs) x->r[l] = x->cur;
        return;
    }
    uint32_t s = ravel_loc_slot(l);
    while (x->s.len <= s) rv_vec_push(x->s, 0);
    x->s.data[s] = x->cur;
}

/* Whether the current moves write dst (once emit_moves marked them). */
static bool move_to(const rs *a, ravel_loc dst) { return locset_has(a, &a->written, dst); }

static void mark_move_dsts(rs *a)
{
    a->written.cur++;
    for (uint32_t k = 0; k < a->moves.len; k++) locset_add(a, &a->written, a->moves.data[k].dst);
}

static uint32_t scratch_slot_cb(void *ctx) { return new_slot_num(ctx); }

/* Resolves a->moves at `anchor`; every allocatable register that is neither
 * touched, a move's end, nor holding something needed at i (RAVEL_NONE: at
 * an edge, where only the moves' ends matter) may serve as scratch. */
static bool emit_moves(rs *a, uint32_t anchor, uint32_t i)
{
    if (!a->moves.len) return true;
    if (a->opts && a->opts->trace)
        for (uint32_t k = 0; k < a->moves.len; k++) {
            char b1[32], b2[32];
            rv_alloc_trace(a->opts, "random", "move %s <- %s (v%u) at anchor %u", rv_loc_str(a->m, a->moves.data[k].dst, b1),
                           rv_loc_str(a->m, a->moves.data[k].src, b2), a->f->vregs.data[a->mvals.data[k]].num, anchor);
        }
    /* moves in place only keep their ends out of the scratch registers */
    a->real.len = 0;
    rv_vec_reserve(a->real, a->moves.len);
    for (uint32_t k = 0; k < a->moves.len; k++)
        if (a->moves.data[k].dst != a->moves.data[k].src) a->real.data[a->real.len++] = a->moves.data[k];
    if (!rv_pmove_simple(&a->pm, a->real.data, a->real.len)) {
        memset(a->scratch_bs, 0, rv_bs_words(a->nregs) * sizeof(uint64_t));
        a->mcount++;
        for (uint32_t k = 0; k < a->moves.len; k++) {
            ravel_loc d = a->moves.data[k].dst, s = a->moves.data[k].src;
            if (!ravel_loc_is_slot(d) && d < a->nregs) a->mend[d] = a->mcount;
            if (!ravel_loc_is_slot(s) && s < a->nregs) a->mend[s] = a->mcount;
        }
        for (uint32_t r = 0; r < a->nregs; r++) {
            if (a->m->regs.data[r].reserved || (a->rf[r] & RS_TOUCHED)) continue;
            if (i != RAVEL_NONE && needed(a, a->content[r], i)) continue;
            if (a->mend[r] != a->mcount) rv_bs_set(a->scratch_bs, r);
        }
        if (rv_pmove_resolve(&a->pm, a->m, a->real.data, a->real.len, a->scratch_bs, scratch_slot_cb, a) != RAVEL_OK)
            return rs_fail(a, i, "internal error: conflicting moves");
    }
    rv_out_edits(&a->out, anchor, &a->pm);
    /* the state after the moves: every dst gets its value (read at once) */
    mark_move_dsts(a);
    for (uint32_t k = 0; k < a->pm.out.len; k++) { /* temporaries used by the resolver hold nothing known */
        ravel_loc d = a->pm.out.data[k].dst;
        if (!move_to(a, d)) loc_write(a, d, RAVEL_NONE, RS_UNK); /* a borrowed register gets its value back */
    }
    for (uint32_t k = 0; k < a->moves.len; k++) loc_set(a, a->moves.data[k].dst, a->mvals.data[k]);
    return true;
}

/* ---- block entry contracts and edges ---- */

/* Whether the contract being built (decide_entry) already uses l. */
static bool entry_taken(const rs *a, ravel_loc l) { return locset_has(a, &a->taken, l); }

static void entry_add(rs *a, uint32_t v, ravel_loc l)
{
    rv_vec_push(a->entries, ((rs_entry){v, l}));
    locset_add(a, &a->taken, l);
}

/* A location for value v in the contract being built (entries from `from`):
 * `keep` if allowed and not taken, else a random register of the class or
 * a slot. */
static ravel_loc entry_loc(rs *a, uint32_t v, ravel_loc keep)
{
    if (keep != RAVEL_LOC_NONE && !entry_taken(a, keep) && (ravel_loc_is_slot(keep) || !a->m->regs.data[keep].reserved)) return keep;
    const rv_class *c = &a->m->classes.data[vcls(a, v)];
    if (!coin(a, 3))
        for (int t = 0; t < 4; t++) {
            uint32_t r = c->alloc.data[rv_rng_below(&a->rng, c->alloc.len)];
            if (!entry_taken(a, r)) return r;
        }
    for (int t = 0; t < 4; t++) { /* a slot, often one other values use elsewhere */
        uint32_t s = rv_rng_below(&a->rng, a->scont.len + 2);
        if (entry_taken(a, ravel_slot(s))) continue;
        slot_grow(a, s); /* new_slot_num never returns it */
        return ravel_slot(s);
    }
    return ravel_slot(new_slot_num(a));
}

/* Decides block s's contract: its live-in values and used parameters, each
 * at a location. src_in / src_par (may be NULL) give the location of each
 * value in the predecessor resolving the first edge, kept unless a 1 in
 * `reloc` draw says otherwise. */
static void decide_entry(rs *a, uint32_t s, const ravel_loc *src_in, const ravel_loc *src_par, uint32_t reloc)
{
    const ravel_func *f = a->f;
    const rv_block *sb = &f->blocks.data[s];
    uint32_t from = a->entries.len, n = 0;
    a->entry_start[s] = from;
    a->taken.cur++; /* a new contract: no location taken */
    for (uint32_t w = 0; w < a->lv.nwords; w++)
        for (uint64_t bits = a->lv.in[(size_t)s * a->lv.nwords + w]; bits; bits &= bits - 1) {
            uint32_t v = w * 64 + (uint32_t)__builtin_ctzll(bits);
            ravel_loc k = src_in && !coin(a, reloc) ? src_in[n] : RAVEL_LOC_NONE;
            entry_add(a, v, entry_loc(a, v, k));
            n++;
        }
    for (uint32_t p = 0; p < sb->nparams; p++) {
        uint32_t v = rv_block_params(f, sb)[p];
        if (!a->vs[v].used) continue;
        ravel_loc k = src_par && !coin(a, reloc) ? src_par[p] : RAVEL_LOC_NONE;
        entry_add(a, v, entry_loc(a, v, k));
    }
    a->entry_len[s] = a->entries.len - from;
    while (a->msrc.len < a->entries.len) rv_vec_push(a->msrc, RAVEL_LOC_NONE);
}

/* Resolves edge k of the current block's terminator (instruction ti): the
 * moves of the current locations into the successor's contract. */
static bool rs_edge(rs *a, uint32_t ti, uint32_t k)
{
    const ravel_func *f = a->f;
    const rv_inst *t = rv_inst_at(f, ti);
    const rv_succ *sc = &rv_inst_succs(f, t)[k];
    uint32_t s = sc->block;
    const rv_block *sb = &f->blocks.data[s];
    bool at_exit = false;
    uint32_t anchor = rv_edge_anchor(f, &a->cfg, a->cur, k, &at_exit);
    /* where each needed value is now */
    uint32_t nin = 0;
    for (uint32_t w = 0; w < a->lv.nwords; w++) nin += (uint32_t)__builtin_popcountll(a->lv.in[(size_t)s * a->lv.nwords + w]);
    a->esrc.len = 0;
    rv_vec_reserve(a->esrc, (size_t)nin + sb->nparams + 1);
    ravel_loc *src = a->esrc.data; /* (nothing else grows esrc while src is in use) */
    uint32_t n = 0;
    for (uint32_t w = 0; w < a->lv.nwords; w++)
        for (uint64_t bits = a->lv.in[(size_t)s * a->lv.nwords + w]; bits; bits &= bits - 1)
            src[n++] = cur_loc(a, w * 64 + (uint32_t)__builtin_ctzll(bits));
    for (uint32_t p = 0; p < sb->nparams; p++) src[nin + p] = a->vs[rv_block_params(f, sb)[p]].used ? cur_loc(a, rv_succ_args(f, sc)[p]) : RAVEL_LOC_NONE;
    for (uint32_t x = 0; x < nin + sb->nparams; x++)
        if (src[x] == RAVEL_LOC_NONE && (x < nin || a->vs[rv_block_params(f, sb)[x - nin]].used))
            return rs_fail(a, ti, "internal error: a value live on an edge has no location");
    if (a->entry_start[s] == RAVEL_NONE) decide_entry(a, s, src, src + nin, at_exit ? 2 : 4);
    /* the moves, in contract order: live-ins (in liveness order), then parameters */
    a->moves.len = a->mvals.len = a->islots.len = 0;
    bool join = rv_cfg_npreds(&a->cfg, s) > 1;
    uint32_t e0 = a->entry_start[s], ne = a->entry_len[s];
    for (uint32_t e = 0, x = 0; e < ne; e++) {
        const rs_entry *en = &a->entries.data[e0 + e];
        ravel_loc from = RAVEL_LOC_NONE;
        uint32_t val = en->v;
        for (; x < nin + sb->nparams; x++) { /* entries follow the same order as src */
            uint32_t xv = x < nin ? RAVEL_NONE : rv_block_params(f, sb)[x - nin];
            if (x >= nin && !a->vs[xv].used) continue;
            from = src[x];
            if (x >= nin) val = rv_succ_args(f, sc)[x - nin];
            x++;
            break;
        }
        if (loc_get(a, en->loc) == val) from = en->loc; /* already there */
        ravel_loc *ms = &a->msrc.data[e0 + e];
        if (join) {
            if (*ms == RAVEL_LOC_NONE) *ms = from;
            else if (*ms != from && *ms != RAVEL_SLOT_BIT - 1) {
                shape(a, RV_RS_MERGE);
                *ms = RAVEL_SLOT_BIT - 1; /* counted once per join and value */
            }
        }
        if (from != en->loc) {
            bool drop = shape(a, at_exit ? (join ? RV_RS_MERGE_MOVE : RV_RS_EXIT_MOVE) : RV_RS_ENTRY_MOVE);
            if (drop && surely_not(a, en->loc, val)) { /* the bug: this edge's move is forgotten */
                planted(a);
                add_move(a, en->loc, en->loc, val);
                continue;
            }
        }
        add_move(a, en->loc, from, val);
    }
    if (anchor == RAVEL_NONE) return rs_fail(a, ti, "duplicate edges");
    if (!emit_moves(a, anchor, RAVEL_NONE)) return false;
    return true;
}

/* ---- one instruction ---- */

/* Random splits before instruction i (between instructions): a value's
 * register moved to another register, spilled (often dropping the
 * register), or a slot-only value reloaded. */
static void noise(rs *a, uint32_t i)
{
    if (!coin(a, 3) || a->nregs == 0) return;
    uint32_t r = rv_rng_below(&a->rng, a->nregs), v = a->content[r];
    if (a->m->regs.data[r].reserved || !live_after(a, v, i)) {
        /* reload a value that lives only in a slot */
        uint32_t s = a->scont.len ? rv_rng_below(&a->rng, a->scont.len) : RAVEL_NONE;
        v = s != RAVEL_NONE ? slot_val(a, s) : RAVEL_NONE;
        if (v == RAVEL_NONE || !live_after(a, v, i) || reg_of(a, v) != RAVEL_NONE || (vref(a, v) && coin(a, 2))) return;
        uint32_t fr = free_reg(a, vcls(a, v), i, RAVEL_NONE);
        if (fr == RAVEL_NONE) return;
        shape(a, RV_RS_SPLIT_RELOAD);
        rv_out_edit(&a->out, rv_anchor_before(i), RAVEL_OP_RELOAD, fr, ravel_slot(s));
        loc_set(a, fr, v);
        return;
    }
    if (coin(a, 2)) { /* to another register: the old one is dropped */
        uint32_t fr = free_reg(a, vcls(a, v), i, r);
        if (fr == RAVEL_NONE) return;
        uint32_t to = fr;
        if (shape(a, RV_RS_SPLIT_MOVE) && surely_not(a, fr, v) && slot_of(a, v) == RAVEL_NONE && nregs_of(a, v) == 1) { /* the bug: the move goes to another register */
            const rv_class *c = &a->m->classes.data[vcls(a, v)];
            for (uint32_t k = 0; k < c->alloc.len && to == fr; k++)
                if (c->alloc.data[k] != fr && c->alloc.data[k] != r) to = c->alloc.data[k];
            if (to != fr) planted(a);
        }
        rv_out_edit(&a->out, rv_anchor_before(i), RAVEL_OP_MOVE, to, r);
        loc_set(a, fr, v);
        if (to != fr) loc_write(a, fr, v, RS_UNK), loc_write(a, to, RAVEL_NONE, v);
        forget(a, r);
        return;
    }
    /* to a slot; the register is dropped (reloaded on demand) or kept */
    bool drop = coin(a, 3) != 0 || slot_of(a, v) != RAVEL_NONE;
    if (slot_of(a, v) == RAVEL_NONE) {
        uint32_t s = free_slot(a, i, param_slot_pref(a, v));
        count_slot_write(a, s, v, i);
        bool bug = drop && shape(a, RV_RS_SPLIT_SPILL) && surely_not(a, ravel_slot(s), v);
        if (!bug) {
            uint32_t u = RAVEL_NONE, us = RAVEL_NONE;
            /* the slot-reuse bug: the spill goes into a slot whose value is still needed */
            for (uint32_t k = 0; a->ro && a->ro->corrupt == RV_RS_SLOT_CLASH && k < a->dirty.len && u == RAVEL_NONE; k++) {
                uint32_t t = a->dirty.data[k], w = slot_val(a, t);
                if (w != RAVEL_NONE && copy_root(a, w) != copy_root(a, v) && loc_phys(a, ravel_slot(t)) == w && live_after(a, w, i) && reg_of(a, w) == RAVEL_NONE) u = w, us = t;
            }
            if (u != RAVEL_NONE && shape(a, RV_RS_SLOT_CLASH)) {
                planted(a);
                rv_out_edit(&a->out, rv_anchor_before(i), RAVEL_OP_SPILL, ravel_slot(us), r);
                set_phys(a, ravel_slot(us), v);
                return; /* the engine still believes us holds u, and v stays in r */
            }
            rv_out_edit(&a->out, rv_anchor_before(i), RAVEL_OP_SPILL, ravel_slot(s), r);
            loc_set(a, ravel_slot(s), v);
        } else {
            planted(a); /* the bug: the spill is forgotten */
            loc_write(a, ravel_slot(s), v, loc_phys(a, ravel_slot(s)));
        }
    }
    if (drop) forget_regs(a, v);
}

/* Before a branch with several successors: values in registers live into
 * at least two of them are spilled and their registers dropped, so that
 * each successor reloads them (spill in the predecessor, reloads in the
 * successors). */
static void spill_before_branch(rs *a, uint32_t i)
{
    const ravel_func *f = a->f;
    const rv_inst *t = rv_inst_at(f, i);
    if (rv_inst_nsuccs(t) < 2 || !coin(a, 2)) return;
    for (uint32_t r = 0; r < a->nregs; r++) {
        uint32_t v = a->content[r];
        if (v == RAVEL_NONE || a->m->regs.data[r].reserved || !live_after(a, v, i) || coin(a, 2)) continue;
        uint32_t nlive = 0;
        for (uint32_t k = 0; k < rv_inst_nsuccs(t); k++) nlive += rv_live_in(&a->lv, rv_inst_succs(f, t)[k].block, v);
        if (nlive < 2) continue;
        /* the condition is read from r: keep it there as well */
        bool cond = false;
        for (uint32_t u = 0; u < t->nuses; u++) cond |= rv_inst_uses(f, t)[u].vreg == v;
        uint32_t s = slot_of(a, v);
        if (s == RAVEL_NONE) {
            s = free_slot(a, i, RAVEL_NONE);
            count_slot_write(a, s, v, i);
            bool bug = shape(a, RV_RS_BRANCH_SPILL) && surely_not(a, ravel_slot(s), v) && !cond;
            if (!bug) rv_out_edit(&a->out, rv_anchor_before(i), RAVEL_OP_SPILL, ravel_slot(s), r);
            loc_set(a, ravel_slot(s), v);
            if (bug) planted(a), set_phys(a, ravel_slot(s), RAVEL_NONE); /* the bug: the spill is forgotten */
        }
        a->vs[v].site = a->sites.len;
        a->vs[v].site_block = a->cur;
        rv_vec_push(a->sites, s);
        rv_vec_push(a->site_reloads, 0);
        if (!cond) forget_regs(a, v);
    }
}

/* A register of class cls for an operand: none of `forbid`'s flags, not
 * the target of another value; v's own register first, often. */
static uint32_t pick_reg(rs *a, uint32_t v, uint8_t forbid, bool for_use, bool share)
{
    const rv_class *c = &a->m->classes.data[vcls(a, v)];
    uint32_t home = reg_of(a, v), pick = RAVEL_NONE, nacc = 0;
    for (uint32_t k = 0; k < c->alloc.len; k++) {
        uint32_t r = c->alloc.data[k];
        uint8_t fl = a->rf[r];
        if (fl & forbid) continue;
        if (for_use && (fl & RS_TGT) && !(share && a->tgt[r] == v)) continue;
        if (r == home && !coin(a, 3)) return r;
        if (rv_rng_below(&a->rng, ++nacc) == 0) pick = r;
    }
    return pick;
}

/* Puts use u in register r (the parallel move brings v there). */
static void use_in_reg(rs *a, uint32_t opi, const rv_operand *o, uint32_t r)
{
    touch(a, r, rv_op_is_late(o) ? RS_USE_L : RS_USE_E);
    a->tgt[r] = o->vreg;
    rv_out_set_loc(&a->out, opi, r);
}

/* Puts use u in a slot holding v (spilling it there if needed). */
static bool use_in_slot(rs *a, uint32_t i, uint32_t opi, uint32_t v)
{
    uint32_t s = slot_of(a, v);
    if (s == RAVEL_NONE) {
        for (uint32_t k = 0; k < a->moves.len; k++)
            if (a->mvals.data[k] == v && ravel_loc_is_slot(a->moves.data[k].dst)) s = ravel_loc_slot(a->moves.data[k].dst);
    }
    if (s == RAVEL_NONE) {
        ravel_loc l = cur_loc(a, v);
        if (l == RAVEL_LOC_NONE) return rs_fail(a, i, "internal error: a used value has no location");
        s = free_slot(a, i, RAVEL_NONE);
        count_slot_write(a, s, v, i);
        add_move(a, ravel_slot(s), l, v);
    }
    rv_vec_push(a->islots, s);
    rv_out_set_loc(&a->out, opi, ravel_slot(s));
    return true;
}

/* Operand locations of instruction i (any_slot: every `any` operand not
 * reused in a slot); false if this scheme cannot meet them. */
static bool place_operands(rs *a, uint32_t i, const rv_inst *in, const rv_operand *ops, bool any_slot)
{
    uint32_t nd = in->ndefs, nops = nd + in->nuses;
    bool sp = (in->flags & RV_IF_SAFEPOINT) != 0, moving = sp && !a->m->gc_nonmoving;
    const uint32_t *clob;
    uint32_t nclob = rv_inst_clobbers(a->f, in, &clob);
    for (uint32_t k = 0; k < nclob; k++) touch(a, clob[k], RS_CLOB);
    for (uint32_t u = nd; u < nops; u++) { /* fixed uses */
        if (ops[u].kind != RAVEL_C_FIXED) continue;
        uint32_t r = ops[u].arg;
        if ((a->rf[r] & RS_TGT) && a->tgt[r] != ops[u].vreg) return rs_fail(a, i, "two values fixed to one register");
        if (rv_op_is_late(&ops[u]) && moving && vref(a, ops[u].vreg)) return rs_fail(a, i, "late .ref use in a register");
        use_in_reg(a, in->first_op + u, &ops[u], r);
    }
    for (uint32_t d = 0; d < nd; d++) { /* fixed defs and defs reusing fixed uses */
        uint32_t r = RAVEL_NONE;
        if (ops[d].kind == RAVEL_C_FIXED) r = ops[d].arg;
        else if (ops[d].kind == RAVEL_C_REUSE && ops[d].arg < in->nuses && ops[nd + ops[d].arg].kind == RAVEL_C_FIXED) r = ops[nd + ops[d].arg].arg;
        if (r == RAVEL_NONE) continue;
        if (a->rf[r] & RS_DEF) return rs_fail(a, i, "two defs in one register");
        touch(a, r, rv_op_is_late(&ops[d]) ? RS_DEF_L : RS_DEF_E);
        rv_out_set_loc(&a->out, in->first_op + d, r);
    }
    for (uint32_t t = 0; t < a->ntouched; t++) {
        uint8_t fl = a->rf[a->touched[t]];
        if ((fl & RS_DEF_E) && (fl & (RS_USE_E | RS_USE_L))) return rs_fail(a, i, "early def on a use");
        if ((fl & RS_USE_L) && (fl & (RS_DEF | RS_CLOB))) return rs_fail(a, i, "late use on a def");
    }
    for (uint32_t u = nd; u < nops; u++) { /* uses a def takes over: a register of their own */
        uint32_t d = rv_reuser_of(in, ops, u);
        if (d == RAVEL_NONE || ops[u].kind == RAVEL_C_FIXED) continue;
        if (ops[u].kind == RAVEL_C_STACK || rv_op_is_late(&ops[u]) || rv_op_is_early(&ops[d])) return rs_fail(a, i, "bad reuse");
        uint32_t r = pick_reg(a, ops[u].vreg, RS_DEF | RS_TGT, true, false);
        if (r == RAVEL_NONE) return rs_fail(a, i, "no register for a reused use");
        use_in_reg(a, in->first_op + u, &ops[u], r);
        touch(a, r, RS_DEF_L);
        rv_out_set_loc(&a->out, in->first_op + d, r);
    }
    for (int late = 1; late >= 0; late--) /* register uses (late first: they avoid every def) */
        for (uint32_t u = nd; u < nops; u++) {
            const rv_operand *o = &ops[u];
            if (rv_op_is_late(o) != (late != 0) || rv_reuser_of(in, ops, u) != RAVEL_NONE) continue;
            if (o->kind != RAVEL_C_REG && o->kind != RAVEL_C_ANY) continue;
            bool ref_late = late && moving && vref(a, o->vreg);
            if (o->kind == RAVEL_C_ANY && (ref_late || any_slot || coin(a, 3))) continue; /* to a slot, below */
            if (ref_late) return rs_fail(a, i, "late .ref use in a register");
            uint32_t r = pick_reg(a, o->vreg, late ? (RS_DEF | RS_CLOB) : RS_DEF_E, true, true);
            if (r == RAVEL_NONE) {
                if (o->kind == RAVEL_C_ANY) continue;
                return rs_fail(a, i, "no register for a use");
            }
            use_in_reg(a, in->first_op + u, o, r);
        }
    for (uint32_t u = nd; u < nops; u++) /* slot uses */
        if (a->out.loc[in->first_op + u] == RAVEL_LOC_NONE && !use_in_slot(a, i, in->first_op + u, ops[u].vreg)) return false;
    for (int late = 0; late < 2; late++) /* register defs, early first */
        for (uint32_t d = 0; d < nd; d++) {
            const rv_operand *o = &ops[d];
            if (rv_op_is_late(o) != (late != 0) || (o->kind != RAVEL_C_REG && o->kind != RAVEL_C_ANY)) continue;
            bool ref_early = !late && sp && vref(a, o->vreg);
            if (o->kind == RAVEL_C_ANY && (ref_early || any_slot || coin(a, 3))) continue;
            if (ref_early && a->vs[o->vreg].used) return rs_fail(a, i, "early .ref def in a register");
            uint32_t r = pick_reg(a, o->vreg, RS_DEF | RS_USE_L | RS_SAVE | (late ? 0 : RS_USE_E), false, false);
            if (r == RAVEL_NONE) {
                if (o->kind == RAVEL_C_ANY) continue;
                return rs_fail(a, i, "no register for a def");
            }
            touch(a, r, late ? RS_DEF_L : RS_DEF_E);
            rv_out_set_loc(&a->out, in->first_op + d, r);
        }
    for (uint32_t d = 0; d < nd; d++) /* slot defs: a slot holding nothing needed */
        if (a->out.loc[in->first_op + d] == RAVEL_LOC_NONE) {
            if (ops[d].kind == RAVEL_C_REUSE) return rs_fail(a, i, "bad reuse");
            uint32_t s = free_slot(a, i, RAVEL_NONE);
            count_slot_write(a, s, ops[d].vreg, i);
            rv_vec_push(a->islots, s);
            rv_out_set_loc(&a->out, in->first_op + d, ravel_slot(s));
        }
    return true;
}

/* Whether instruction i defines v. */
static bool defines(const rv_inst *in, const rv_operand *ops, uint32_t v)
{
    for (uint32_t d = 0; d < in->ndefs; d++)
        if (ops[d].vreg == v) return true;
    return false;
}

/* Values live across i whose only copy the instruction or its moves
 * overwrite are saved (to a free register or a slot); .ref values live
 * across a safepoint are put in slots and listed in its stackmap. */
static bool save_and_map(rs *a, uint32_t i, const rv_inst *in, const rv_operand *ops)
{
    bool sp = (in->flags & RV_IF_SAFEPOINT) != 0;
    a->smap.len = 0;
    /* only a register the instruction touches can be harmed (a save below
     * touches only free ones): those, in register order */
    uint32_t nh = 0;
    for (uint32_t t = 0; t < a->ntouched; t++) {
        uint32_t r = a->touched[t], k;
        if (!(a->rf[r] & (RS_DEF | RS_CLOB | RS_TGT))) continue;
        for (k = nh++; k > 0 && a->harm[k - 1] > r; k--) a->harm[k] = a->harm[k - 1];
        a->harm[k] = r;
    }
    for (uint32_t h = 0; h < nh; h++) {
        uint32_t r = a->harm[h], w = a->content[r];
        if (w == RAVEL_NONE || !live_after(a, w, i) || defines(in, ops, w)) continue;
        if (sp && vref(a, w)) continue; /* below */
        uint8_t fl = a->rf[r];
        bool harmed = (fl & (RS_DEF | RS_CLOB)) || ((fl & RS_TGT) && a->tgt[r] != w);
        if (!harmed) continue;
        bool safe = slot_of(a, w) != RAVEL_NONE; /* slots written here are free ones */
        for (uint32_t t = 0; t < a->ntouched && !safe; t++) { /* also moved into an unharmed register */
            uint32_t r2 = a->touched[t];
            safe = (a->rf[r2] & RS_TGT) && a->tgt[r2] == w && !(a->rf[r2] & (RS_DEF | RS_CLOB));
        }
        for (uint32_t k = 0; k < a->moves.len && !safe; k++) safe = a->mvals.data[k] == w && ravel_loc_is_slot(a->moves.data[k].dst);
        if (safe) continue;
        uint32_t fr = coin(a, 2) ? free_reg(a, vcls(a, w), i, RAVEL_NONE) : RAVEL_NONE;
        if (fr != RAVEL_NONE) {
            touch(a, fr, RS_SAVE);
            a->tgt[fr] = w;
        } else {
            uint32_t s = free_slot(a, i, param_slot_pref(a, w));
            count_slot_write(a, s, w, i);
            add_move(a, ravel_slot(s), r, w);
        }
    }
    if (!sp) return true;
    /* .ref values live across the safepoint (or read late by it) in slots */
    for (uint32_t l = 0; l < a->nregs + a->dirty.len; l++) { /* registers, then the slots touched here */
        uint32_t w = l < a->nregs ? a->content[l] : slot_val(a, a->dirty.data[l - a->nregs]);
        if (w == RAVEL_NONE || !vref(a, w) || defines(in, ops, w)) continue;
        bool late_use = false;
        for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++) late_use |= ops[u].vreg == w && rv_op_is_late(&ops[u]);
        if (!live_after(a, w, i) && !late_use) continue;
        uint32_t s = slot_of(a, w);
        if (s == RAVEL_NONE)
            for (uint32_t k = 0; k < a->moves.len; k++)
                if (a->mvals.data[k] == w && ravel_loc_is_slot(a->moves.data[k].dst)) s = ravel_loc_slot(a->moves.data[k].dst);
        if (s == RAVEL_NONE) {
            s = free_slot(a, i, RAVEL_NONE);
            count_slot_write(a, s, w, i);
            add_move(a, ravel_slot(s), cur_loc(a, w), w);
        }
        bool dup = false;
        for (uint32_t k = 0; k < a->smap.len; k++) dup |= a->smap.data[k] == s;
        if (!dup) rv_vec_push(a->smap, s);
    }
    for (uint32_t d = 0; d < in->ndefs; d++) { /* early .ref defs in slots */
        ravel_loc l = a->out.loc[in->first_op + d];
        if (rv_op_is_early(&ops[d]) && vref(a, ops[d].vreg) && ravel_loc_is_slot(l)) rv_vec_push(a->smap, ravel_loc_slot(l));
    }
    rv_out_stackmap(&a->out, i, a->smap.data, a->smap.len);
    return true;
}

static bool rs_inst(rs *a, uint32_t i)
{
    const rv_inst *in = rv_inst_at(a->f, i);
    const rv_operand *ops = rv_ops_of(a->f, in);
    noise(a, i);
    if (rv_is_term(in)) spill_before_branch(a, i);
    a->ntouched = 0;
    a->moves.len = a->mvals.len = a->islots.len = 0;
    bool ok = place_operands(a, i, in, ops, false);
    if (!ok) { /* registers chosen for `any` operands may be what the others need: once more, with those in slots */
        rv_free(a->err);
        a->err = NULL;
        for (uint32_t t = 0; t < a->ntouched; t++) a->rf[a->touched[t]] = 0;
        a->ntouched = 0;
        a->moves.len = a->mvals.len = a->islots.len = 0;
        for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) rv_out_set_loc(&a->out, in->first_op + k, RAVEL_LOC_NONE);
        ok = place_operands(a, i, in, ops, true);
    }
    ok = ok && save_and_map(a, i, in, ops);
    if (ok) { /* the parallel move brings each use's value to its register */
        for (uint32_t t = 0; t < a->ntouched && ok; t++) {
            uint32_t r = a->touched[t], v = a->tgt[r];
            if (!(a->rf[r] & RS_TGT) || v == RAVEL_NONE || a->content[r] == v) continue;
            ravel_loc src = RAVEL_LOC_NONE;
            if (a->rf[r] & RS_SAVE) { /* saved from the register being overwritten */
                for (uint32_t q = 0; q < a->nregs && src == RAVEL_LOC_NONE; q++)
                    if (a->content[q] == v && q != r) src = q;
            }
            if (src == RAVEL_LOC_NONE) src = cur_loc(a, v);
            if (src == RAVEL_LOC_NONE) ok = rs_fail(a, i, "internal error: a used value has no location");
            else add_move(a, r, src, v);
        }
    }
    if (ok) {
        for (uint32_t k = 0; k < a->moves.len; k++) /* reloads and spills of the move (slot reuse is counted where chosen) */
            if (ravel_loc_is_slot(a->moves.data[k].src) && !ravel_loc_is_slot(a->moves.data[k].dst)) {
                uint32_t v = a->mvals.data[k];
                if (a->vs[v].site != RAVEL_NONE && a->vs[v].site_block != a->cur && ravel_loc_slot(a->moves.data[k].src) == a->sites.data[a->vs[v].site]) {
                    a->vs[v].site_block = a->cur;
                    a->site_reloads.data[a->vs[v].site]++;
                }
            }
        ok = emit_moves(a, rv_anchor_before(i), i);
    }
    if (ok) { /* after: clobbers, the safepoint's effect, defs */
        for (uint32_t t = 0; t < a->ntouched; t++)
            if (a->rf[a->touched[t]] & RS_CLOB) loc_set(a, a->touched[t], RAVEL_NONE);
        if (in->flags & RV_IF_SAFEPOINT)
            for (uint32_t l = 0; l < a->nregs + a->dirty.len; l++) {
                ravel_loc loc = l < a->nregs ? l : ravel_slot(a->dirty.data[l - a->nregs]);
                uint32_t w = loc_get(a, loc);
                if (w == RAVEL_NONE || !vref(a, w)) continue;
                bool listed = false;
                for (uint32_t k = 0; k < a->smap.len && ravel_loc_is_slot(loc); k++) listed |= a->smap.data[k] == ravel_loc_slot(loc);
                if (listed) continue;
                loc_set(a, loc, RAVEL_NONE);
                if (a->m->gc_nonmoving) set_phys(a, loc, RS_UNK); /* still there if some listed slot roots it */
            }
        for (uint32_t d = 0; d < in->ndefs; d++) {
            ravel_loc l = a->out.loc[in->first_op + d];
            uint32_t v = ops[d].vreg;
            for (uint32_t r = 0; r < a->nregs && a->vs[v].nreg; r++) /* SSA: no other copy, but be exact */
                if (a->content[r] == v) loc_set(a, r, RAVEL_NONE);
            loc_set(a, l, v);
        }
    }
    for (uint32_t t = 0; t < a->ntouched; t++) a->rf[a->touched[t]] = 0;
    a->ntouched = 0;
    return ok;
}

/* ---- blocks and driver ---- */

/* Last uses within block b (lastuse, stamp), from its live-out set and the
 * terminator's arguments. */
static void block_liveness(rs *a, uint32_t b)
{
    const ravel_func *f = a->f;
    const rv_block *bl = &f->blocks.data[b];
    uint32_t st = b + 1;
    for (uint32_t w = 0; w < a->lv.nwords; w++)
        for (uint64_t bits = a->lv.out[(size_t)b * a->lv.nwords + w]; bits; bits &= bits - 1) {
            uint32_t v = w * 64 + (uint32_t)__builtin_ctzll(bits);
            a->vs[v].stamp = st;
            a->vs[v].lastuse = RS_INF;
        }
    for (uint32_t j = bl->ninsts; j-- > 0;) {
        uint32_t i = bl->first_inst + j;
        const rv_inst *in = rv_inst_at(f, i);
        const rv_operand *ops = rv_ops_of(f, in);
        for (uint32_t s = 0; s < rv_inst_nsuccs(in); s++) {
            const rv_succ *sc = &rv_inst_succs(f, in)[s];
            const rv_block *sb = &f->blocks.data[sc->block];
            for (uint32_t k = 0; k < sc->nargs && k < sb->nparams; k++) {
                uint32_t v = rv_succ_args(f, sc)[k];
                if (!a->vs[rv_block_params(f, sb)[k]].used) continue; /* an unused parameter needs no argument */
                a->vs[v].stamp = st;
                a->vs[v].lastuse = RS_INF;
            }
        }
        for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) {
            uint32_t v = ops[k].vreg;
            if (a->vs[v].stamp == st) continue;
            a->vs[v].stamp = st;
            a->vs[v].lastuse = i;
        }
    }
}

static bool rs_block(rs *a, uint32_t b)
{
    const ravel_func *f = a->f;
    const rv_block *bl = &f->blocks.data[b];
    a->cur = b;
    block_liveness(a, b);
    if (a->entry_start[b] == RAVEL_NONE) decide_entry(a, b, NULL, NULL, 2);
    a->epoch++;
    a->dirty.len = 0;
    for (uint32_t r = 0; r < a->nregs; r++) {
        held(a, r, a->content[r], -1);
        a->content[r] = RAVEL_NONE, a->phys[r] = RS_UNK;
    }
    for (uint32_t e = 0; e < a->entry_len[b]; e++) {
        const rs_entry *en = &a->entries.data[a->entry_start[b] + e];
        loc_set(a, en->loc, en->v);
    }
    for (uint32_t j = 0; j < bl->ninsts; j++)
        if (!rs_inst(a, bl->first_inst + j)) return false;
    uint32_t ti = bl->first_inst + bl->ninsts - 1;
    for (uint32_t k = 0; k < rv_inst_nsuccs(rv_inst_at(f, ti)); k++) {
        /* ENTRY moves of successor k read the state after the branch;
         * each edge starts from it */
        a->logging = true;
        bool ok = rs_edge(a, ti, k);
        a->logging = false;
        undo_all(a);
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
                if (s == b) a->cyclic[b] = true;
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
                if (sp - first > 1) a->cyclic[stk[k]] = true;
            }
            sp = first;
        }
    }
    rv_free(num); /* (and low, stk, cs, ce, on) */
}

/* Liveness (a->lv, the layout of rv_liveness) where an argument counts as
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
        for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++) a->vs[ops[u].vreg].used = true;
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
                    if (a->vs[rv_block_params(f, sb)[p]].used && !a->vs[v].used) a->vs[v].used = changed = true;
                }
            }
        }
    }
    uint32_t n = a->cfg.nblocks;
    uint32_t nw;
    a->lv.nblocks = n;
    a->lv.nvregs = a->nv;
    nw = a->lv.nwords = rv_bs_words(a->nv);
    uint64_t *gen = rv_xcalloc((size_t)n * nw + 1, sizeof(uint64_t));
    uint64_t *kill = rv_xcalloc((size_t)n * nw + 1, sizeof(uint64_t));
    for (uint32_t b = 0; b < n; b++) {
        const rv_block *bl = &f->blocks.data[b];
        uint64_t *g = gen + (size_t)b * nw, *k = kill + (size_t)b * nw;
        for (uint32_t j = bl->ninsts; j-- > 0;) {
            const rv_inst *in = rv_inst_at(f, bl->first_inst + j);
            const rv_operand *ops = rv_ops_of(f, in);
            for (uint32_t d = 0; d < in->ndefs; d++) rv_bs_clear(g, ops[d].vreg), rv_bs_set(k, ops[d].vreg);
            for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++) rv_bs_set(g, ops[u].vreg);
            for (uint32_t s = 0; s < rv_inst_nsuccs(in); s++) {
                const rv_succ *sc = &rv_inst_succs(f, in)[s];
                const rv_block *sb = &f->blocks.data[sc->block];
                for (uint32_t p = 0; p < sc->nargs && p < sb->nparams; p++)
                    if (a->vs[rv_block_params(f, sb)[p]].used) rv_bs_set(g, rv_succ_args(f, sc)[p]);
            }
        }
        for (uint32_t p = 0; p < bl->nparams; p++) rv_bs_clear(g, rv_block_params(f, bl)[p]), rv_bs_set(k, rv_block_params(f, bl)[p]);
    }
    rv_dataflow df;
    memset(&df, 0, sizeof df);
    df.cfg = &a->cfg;
    df.nbits = a->nv;
    df.backward = true;
    df.gen = gen; /* gen/kill mode */
    df.kill = kill;
    rv_dataflow_solve(&df);
    a->lv.in = df.in;
    a->lv.out = df.out;
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
    size_t nw = rv_bs_words(a->nregs) + 1, n32 = nv + 8 * nr + 2 * nb;
    a->mem = rv_xmalloc(sizeof(uint64_t) * nw + sizeof(rs_vreg) * nv + sizeof(uint32_t) * n32 + nr + nb);
    a->scratch_bs = a->mem;
    memset(a->scratch_bs, 0, sizeof(uint64_t) * nw);
    a->vs = (rs_vreg *)(a->scratch_bs + nw);
    uint32_t *p32 = (uint32_t *)(a->vs + nv);
    a->copy_of = p32, a->content = p32 + nv, a->phys = a->content + nr, a->tgt = a->phys + nr, a->touched = a->tgt + nr;
    a->taken.r = a->touched + nr, a->mend = a->taken.r + nr, a->written.r = a->mend + nr;
    a->harm = a->written.r + nr;
    a->entry_start = a->harm + nr, a->entry_len = a->entry_start + nb;
    a->rf = (uint8_t *)(p32 + n32), a->cyclic = (bool *)(a->rf + nr);
    for (uint32_t v = 0; v < a->nv; v++) {
        rs_vreg x = {RAVEL_NONE, RAVEL_NONE, RAVEL_NONE, 0, RAVEL_NONE, RAVEL_NONE, false, 0, 0, 0};
        a->vs[v] = x;
    }
    memset(a->copy_of, 0xff, sizeof(uint32_t) * nv);
    for (uint32_t i = 0; i < f->insts.len; i++) {
        const rv_inst *in = rv_inst_at(f, i);
        const rv_operand *ops = rv_ops_of(f, in);
        if (in->op == RAVEL_OP_COPY && in->ndefs == 1 && in->nuses == 1) a->copy_of[ops[0].vreg] = ops[1].vreg;
    }
    memset(a->rf, 0, nr);
    memset(a->taken.r, 0, sizeof(uint32_t) * 3 * nr); /* (and mend, written.r) */
    memset(a->content, 0xff, sizeof(uint32_t) * nr); /* (rs_block uncounts what it held) */
    rs_liveness(a);
    memset(a->entry_start, 0xff, sizeof(uint32_t) * nb);
    memset(a->entry_len, 0, sizeof(uint32_t) * nb);
    memset(a->cyclic, 0, nb);
    find_cycles(a);
    /* room for every contract (live-ins and parameters of each block) at once */
    size_t nent = 0;
    for (uint32_t b = 0; b < a->cfg.nblocks; b++) {
        nent += f->blocks.data[b].nparams;
        for (uint32_t w = 0; w < a->lv.nwords; w++) nent += (size_t)__builtin_popcountll(a->lv.in[(size_t)b * a->lv.nwords + w]);
    }
    rv_vec_reserve(a->entries, nent + 1);
    rv_vec_reserve(a->msrc, nent + 1);
    /* the state's growable arrays start big enough for most functions */
    rv_vec_reserve(a->scont, 64);
    rv_vec_reserve(a->sphys, 64);
    rv_vec_reserve(a->sstamp, 64);
    rv_vec_reserve(a->dirty, 64);
    rv_vec_reserve(a->undo, 64);
    rv_vec_reserve(a->moves, 32);
    rv_vec_reserve(a->mvals, 32);
    rv_vec_reserve(a->islots, 32);
    rv_out_init(&a->out, f);
    rv_pmove_init(&a->pm);
}

static void rs_free(rs *a)
{
    rv_free(a->mem);
    rv_vec_free(a->sphys);
    rv_vec_free(a->sstamp);
    rv_vec_free(a->dirty);
    rv_vec_free(a->undo);
    rv_vec_free(a->site_reloads);
    rv_vec_free(a->scont);
    rv_vec_free(a->entries);
    rv_vec_free(a->msrc);
    rv_vec_free(a->taken.s);
    rv_vec_free(a->written.s);
    rv_vec_free(a->islots);
    rv_vec_free(a->moves);
    rv_vec_free(a->mvals);
    rv_vec_free(a->real);
    rv_vec_free(a->esrc);
    rv_vec_free(a->smap);
    rv_vec_free(a->sites);
    rv_liveness_free(&a->lv);
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
        for (uint32_t k = 0; k < a.sites.len; k++) st->count[RV_RS_SPILL_RELOADS] += a.site_reloads.data[k] >= 2;
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
