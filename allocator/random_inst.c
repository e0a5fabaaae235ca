/* random_inst.c - the `random` allocator's engine within a block (shapes
 * mode, see the top of random.c): the state of each location and the
 * moves, then one instruction.
 *
 * Requires: the liveness of random.c (live.used, the last uses of the
 * current block: block_liveness) and the state at the point before the
 * instruction (content, the slots of this epoch, or the block's entry
 * contract).
 * Guarantees: the instruction's operands placed legally, values it (or
 * the moves before it) overwrites saved, ONE parallel move before it, its
 * stackmap; the state after it; every write logged while an edge is
 * resolved (undone by rv_rs_undo_all); or false with a->err set when this
 * simpler scheme cannot satisfy the instruction (random.c then falls back
 * to classic mode). */
#include "random.h"

/* ---- the state: what each location holds ----
 * Registers: content[] and phys[]. Slots: scont/sphys, valid only when
 * their stamp is the current epoch (a new one per block): an untouched slot
 * holds nothing for the engine and anything physically (RS_UNK). While an
 * edge is resolved, every write is logged to be undone afterwards, so that
 * each edge starts from the state after the branch. */

/* Makes slot s exist; a new slot is touched in this epoch, empty. */
void rv_rs_slot_grow(rs *a, uint32_t s)
{
    while (a->hold.scont.len <= s) {
        rv_vec_push(a->hold.scont, RAVEL_NONE);
        rv_vec_push(a->hold.sphys, RAVEL_NONE);
        rv_vec_push(a->hold.sstamp, a->hold.epoch);
        rv_vec_push(a->hold.dirty, a->hold.scont.len - 1);
    }
}

static void slot_touch(rs *a, uint32_t s)
{
    rv_rs_slot_grow(a, s);
    if (a->hold.sstamp.data[s] == a->hold.epoch) return;
    a->hold.sstamp.data[s] = a->hold.epoch;
    a->hold.scont.data[s] = RAVEL_NONE;
    a->hold.sphys.data[s] = RS_UNK;
    rv_vec_push(a->hold.dirty, s);
}

/* What location l holds physically (see phys). */
static uint32_t loc_phys(const rs *a, ravel_loc l)
{
    if (!ravel_loc_is_slot(l)) return a->hold.phys[l];
    uint32_t s = ravel_loc_slot(l);
    if (s >= a->hold.scont.len) return RAVEL_NONE;
    return a->hold.sstamp.data[s] == a->hold.epoch ? a->hold.sphys.data[s] : RS_UNK;
}

/* Location l holds v for the engine and p physically. */
static void loc_write(rs *a, ravel_loc l, uint32_t v, uint32_t p)
{
    uint32_t *c, *ph;
    if (ravel_loc_is_slot(l)) {
        uint32_t s = ravel_loc_slot(l);
        slot_touch(a, s);
        c = &a->hold.scont.data[s], ph = &a->hold.sphys.data[s];
        if (v != RAVEL_NONE) a->vs[v].slot = s;
    } else {
        c = &a->hold.content[l], ph = &a->hold.phys[l];
        if (v != RAVEL_NONE) a->vs[v].reg = l;
    }
    if (a->hold.logging) {
        rs_undo u = {l, *c, *ph};
        rv_vec_push(a->hold.undo, u);
    }
    held(a, l, *c, -1);
    held(a, l, v, 1);
    *c = v, *ph = p;
}

void rv_rs_undo_all(rs *a)
{
    for (uint32_t k = a->hold.undo.len; k-- > 0;) {
        const rs_undo *u = &a->hold.undo.data[k];
        uint32_t *c = ravel_loc_is_slot(u->l) ? &a->hold.scont.data[ravel_loc_slot(u->l)] : &a->hold.content[u->l];
        held(a, u->l, *c, -1);
        held(a, u->l, u->v, 1);
        if (ravel_loc_is_slot(u->l)) a->hold.scont.data[ravel_loc_slot(u->l)] = u->v, a->hold.sphys.data[ravel_loc_slot(u->l)] = u->p;
        else a->hold.content[u->l] = u->v, a->hold.phys[u->l] = u->p;
    }
    a->hold.undo.len = 0;
}

void rv_rs_loc_set(rs *a, ravel_loc l, uint32_t v) { loc_write(a, l, v, v); }
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
bool rv_rs_surely_not(const rs *a, ravel_loc l, uint32_t v)
{
    uint32_t p = loc_phys(a, l);
    return p == RAVEL_NONE || (p != RS_UNK && copy_root(a, p) != copy_root(a, v));
}

/* The engine stops using every register copy of v. */
static void forget_regs(rs *a, uint32_t v)
{
    for (uint32_t r = 0; r < a->nregs && a->vs[v].nreg; r++)
        if (a->hold.content[r] == v) forget(a, r);
}

/* The number of registers holding v for the engine. */
static uint32_t nregs_of(const rs *a, uint32_t v) { return a->vs[v].nreg; }

uint32_t rv_rs_new_slot_num(rs *a)
{
    uint32_t s = a->hold.scont.len;
    rv_rs_slot_grow(a, s);
    return s;
}

/* The shape event `kind` happens: counts it and tells whether the bug of
 * that shape is to be planted here (at the corrupt_at-th occurrence, or
 * the first one after it where the bug changes what a location holds:
 * the caller checks that, and calls rv_rs_planted() if it plants). */
bool rv_rs_shape(rs *a, int kind)
{
    if (a->st) a->st->count[kind]++;
    uint32_t k = a->shp.seen[kind]++;
    return a->ro && a->ro->corrupt == kind && k >= a->ro->corrupt_at && !a->shp.done && a->cfg.rpo_index[a->cur] != RAVEL_NONE;
}

void rv_rs_planted(rs *a)
{
    a->shp.done = true;
    if (a->st) a->st->planted = true;
}

/* Liveness within the current block. */
static inline __attribute__((always_inline)) bool live_after(const rs *a, uint32_t v, uint32_t i) { return v != RAVEL_NONE && a->vs[v].stamp == a->cur + 1 && a->vs[v].lastuse > i && a->vs[v].lastuse != RAVEL_NONE; }
static inline __attribute__((always_inline)) bool needed(const rs *a, uint32_t v, uint32_t i) { return v != RAVEL_NONE && a->vs[v].stamp == a->cur + 1 && a->vs[v].lastuse != RAVEL_NONE && a->vs[v].lastuse >= i; }

/* The register holding v, or RAVEL_NONE. */
static uint32_t reg_of(rs *a, uint32_t v)
{
    uint32_t r = a->vs[v].reg;
    if (r != RAVEL_NONE && a->hold.content[r] == v) return r;
    if (!a->vs[v].nreg) return RAVEL_NONE;
    for (r = 0; r < a->nregs; r++)
        if (a->hold.content[r] == v && !a->m->regs.data[r].reserved) return a->vs[v].reg = r;
    for (r = 0; r < a->nregs; r++)
        if (a->hold.content[r] == v) return r;
    return RAVEL_NONE;
}

/* The slot holding v, or RAVEL_NONE. */
static uint32_t slot_of(rs *a, uint32_t v)
{
    uint32_t s = a->vs[v].slot; /* the last slot written with v; else one touched in this block */
    if (s != RAVEL_NONE && slot_val(a, s) == v) return s;
    if (a->vs[v].sepoch != a->hold.epoch || !a->vs[v].nslot) return RAVEL_NONE; /* (every slot of this epoch is in dirty) */
    for (uint32_t k = 0; k < a->hold.dirty.len; k++)
        if (slot_val(a, a->hold.dirty.data[k]) == v) return a->vs[v].slot = a->hold.dirty.data[k];
    return RAVEL_NONE;
}

/* A location holding v (register preferred), or RAVEL_LOC_NONE. */
ravel_loc rv_rs_cur_loc(rs *a, uint32_t v)
{
    uint32_t r = reg_of(a, v);
    if (r != RAVEL_NONE) return r;
    uint32_t s = slot_of(a, v);
    return s != RAVEL_NONE ? ravel_slot(s) : RAVEL_LOC_NONE;
}

static bool slot_in_inst(const rs *a, uint32_t s)
{
    for (uint32_t k = 0; k < a->ins.islots.len; k++)
        if (a->ins.islots.data[k] == s) return true;
    return false;
}

/* A slot that holds nothing needed at instruction i and is not touched by
 * it: a reused one (often), else a new one. `prefer` is tried first. */
static uint32_t free_slot(rs *a, uint32_t i, uint32_t prefer)
{
    if (prefer != RAVEL_NONE && prefer < a->hold.scont.len && !needed(a, slot_val(a, prefer), i) && !slot_in_inst(a, prefer)) return prefer;
    uint32_t n = a->hold.scont.len;
    for (int t = 0; n && t < 8 && !coin(a, 4); t++) { /* probes: most slots hold nothing needed */
        uint32_t s = rv_rng_below(&a->rng, n);
        if (!needed(a, slot_val(a, s), i) && !slot_in_inst(a, s)) return s;
    }
    return rv_rs_new_slot_num(a);
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
        if (a->con.entry_start[s] == RAVEL_NONE) continue;
        for (uint32_t p = 0; p < sc->nargs; p++) {
            if (rv_succ_args(f, sc)[p] != v) continue;
            uint32_t pv = rv_block_params(f, &f->blocks.data[s])[p];
            for (uint32_t e = 0; e < a->con.entry_len[s]; e++) {
                const rs_entry *en = &a->con.entries.data[a->con.entry_start[s] + e];
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
    rv_rs_shape(a, a->live.cyclic[a->cur] ? RV_RS_SLOT_REUSE_CYCLE : RV_RS_SLOT_REUSE);
}

/* A free allocatable register of class cls at instruction i: holds nothing
 * needed, not touched by the instruction. RAVEL_NONE if none. */
static uint32_t free_reg(rs *a, uint32_t cls, uint32_t i, uint32_t avoid)
{
    const rv_class *c = &a->m->classes.data[cls];
    uint32_t pick = RAVEL_NONE, nacc = 0;
    for (uint32_t k = 0; k < c->alloc.len; k++) {
        uint32_t r = c->alloc.data[k];
        if (r == avoid || (a->ins.rf[r] & RS_TOUCHED) || needed(a, a->hold.content[r], i)) continue;
        if (rv_rng_below(&a->rng, ++nacc) == 0) pick = r;
    }
    return pick;
}

static void touch(rs *a, uint32_t r, uint8_t fl)
{
    if (!(a->ins.rf[r] & RS_TOUCHED)) {
        a->ins.rf[r] = RS_TOUCHED;
        a->ins.tgt[r] = RAVEL_NONE;
        a->ins.touched[a->ins.ntouched++] = r;
    }
    a->ins.rf[r] |= fl;
}

void rv_rs_add_move(rs *a, ravel_loc dst, ravel_loc src, uint32_t v)
{
    rv_move mv = {dst, src, vcls(a, v)};
    rv_vec_push(a->ins.moves, mv);
    rv_vec_push(a->ins.mvals, v);
    if (ravel_loc_is_slot(dst)) rv_vec_push(a->ins.islots, ravel_loc_slot(dst));
    if (ravel_loc_is_slot(src)) rv_vec_push(a->ins.islots, ravel_loc_slot(src));
}

bool rv_rs_locset_has(const rs *a, const rs_locset *x, ravel_loc l)
{
    if (!ravel_loc_is_slot(l)) return l < a->nregs && x->r[l] == x->cur;
    uint32_t s = ravel_loc_slot(l);
    return s < x->s.len && x->s.data[s] == x->cur;
}

void rv_rs_locset_add(const rs *a, rs_locset *x, ravel_loc l)
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
static bool move_to(const rs *a, ravel_loc dst) { return rv_rs_locset_has(a, &a->ins.written, dst); }

static void mark_move_dsts(rs *a)
{
    a->ins.written.cur++;
    for (uint32_t k = 0; k < a->ins.moves.len; k++) rv_rs_locset_add(a, &a->ins.written, a->ins.moves.data[k].dst);
}

static uint32_t scratch_slot_cb(void *ctx) { return rv_rs_new_slot_num(ctx); }

/* Resolves a->ins.moves at `anchor`; every allocatable register that is neither
 * touched, a move's end, nor holding something needed at i (RAVEL_NONE: at
 * an edge, where only the moves' ends matter) may serve as scratch. */
bool rv_rs_emit_moves(rs *a, uint32_t anchor, uint32_t i)
{
    if (!a->ins.moves.len) return true;
    if (a->opts && a->opts->trace)
        for (uint32_t k = 0; k < a->ins.moves.len; k++) {
            char b1[32], b2[32];
            rv_alloc_trace(a->opts, "random", "move %s <- %s (v%u) at anchor %u", rv_loc_str(a->m, a->ins.moves.data[k].dst, b1),
                           rv_loc_str(a->m, a->ins.moves.data[k].src, b2), a->f->vregs.data[a->ins.mvals.data[k]].num, anchor);
        }
    /* moves in place only keep their ends out of the scratch registers */
    a->ins.real.len = 0;
    rv_vec_reserve(a->ins.real, a->ins.moves.len);
    for (uint32_t k = 0; k < a->ins.moves.len; k++)
        if (a->ins.moves.data[k].dst != a->ins.moves.data[k].src) a->ins.real.data[a->ins.real.len++] = a->ins.moves.data[k];
    if (!rv_pmove_simple(&a->pm, a->ins.real.data, a->ins.real.len)) {
        memset(a->ins.scratch_bs, 0, rv_bs_words(a->nregs) * sizeof(uint64_t));
        a->ins.mcount++;
        for (uint32_t k = 0; k < a->ins.moves.len; k++) {
            ravel_loc d = a->ins.moves.data[k].dst, s = a->ins.moves.data[k].src;
            if (!ravel_loc_is_slot(d) && d < a->nregs) a->ins.mend[d] = a->ins.mcount;
            if (!ravel_loc_is_slot(s) && s < a->nregs) a->ins.mend[s] = a->ins.mcount;
        }
        for (uint32_t r = 0; r < a->nregs; r++) {
            if (a->m->regs.data[r].reserved || (a->ins.rf[r] & RS_TOUCHED)) continue;
            if (i != RAVEL_NONE && needed(a, a->hold.content[r], i)) continue;
            if (a->ins.mend[r] != a->ins.mcount) rv_bs_set(a->ins.scratch_bs, r);
        }
        if (rv_pmove_resolve(&a->pm, a->m, a->ins.real.data, a->ins.real.len, a->ins.scratch_bs, scratch_slot_cb, a) != RAVEL_OK)
            return rs_fail(a, i, "internal error: conflicting moves");
    }
    rv_out_edits(&a->out, anchor, &a->pm);
    /* the state after the moves: every dst gets its value (read at once) */
    mark_move_dsts(a);
    for (uint32_t k = 0; k < a->pm.out.len; k++) { /* temporaries used by the resolver hold nothing known */
        ravel_loc d = a->pm.out.data[k].dst;
        if (!move_to(a, d)) loc_write(a, d, RAVEL_NONE, RS_UNK); /* a borrowed register gets its value back */
    }
    for (uint32_t k = 0; k < a->ins.moves.len; k++) rv_rs_loc_set(a, a->ins.moves.data[k].dst, a->ins.mvals.data[k]);
    return true;
}

/* ---- one instruction ---- */

/* Random splits before instruction i (between instructions): a value's
 * register moved to another register, spilled (often dropping the
 * register), or a slot-only value reloaded. */
static void noise(rs *a, uint32_t i)
{
    if (!coin(a, 3) || a->nregs == 0) return;
    uint32_t r = rv_rng_below(&a->rng, a->nregs), v = a->hold.content[r];
    if (a->m->regs.data[r].reserved || !live_after(a, v, i)) {
        /* reload a value that lives only in a slot */
        uint32_t s = a->hold.scont.len ? rv_rng_below(&a->rng, a->hold.scont.len) : RAVEL_NONE;
        v = s != RAVEL_NONE ? slot_val(a, s) : RAVEL_NONE;
        if (v == RAVEL_NONE || !live_after(a, v, i) || reg_of(a, v) != RAVEL_NONE || (vref(a, v) && coin(a, 2))) return;
        uint32_t fr = free_reg(a, vcls(a, v), i, RAVEL_NONE);
        if (fr == RAVEL_NONE) return;
        rv_rs_shape(a, RV_RS_SPLIT_RELOAD);
        rv_out_edit(&a->out, rv_anchor_before(i), RAVEL_OP_RELOAD, fr, ravel_slot(s));
        rv_rs_loc_set(a, fr, v);
        return;
    }
    if (coin(a, 2)) { /* to another register: the old one is dropped */
        uint32_t fr = free_reg(a, vcls(a, v), i, r);
        if (fr == RAVEL_NONE) return;
        uint32_t to = fr;
        if (rv_rs_shape(a, RV_RS_SPLIT_MOVE) && rv_rs_surely_not(a, fr, v) && slot_of(a, v) == RAVEL_NONE && nregs_of(a, v) == 1) { /* the bug: the move goes to another register */
            const rv_class *c = &a->m->classes.data[vcls(a, v)];
            for (uint32_t k = 0; k < c->alloc.len && to == fr; k++)
                if (c->alloc.data[k] != fr && c->alloc.data[k] != r) to = c->alloc.data[k];
            if (to != fr) rv_rs_planted(a);
        }
        rv_out_edit(&a->out, rv_anchor_before(i), RAVEL_OP_MOVE, to, r);
        rv_rs_loc_set(a, fr, v);
        if (to != fr) loc_write(a, fr, v, RS_UNK), loc_write(a, to, RAVEL_NONE, v);
        forget(a, r);
        return;
    }
    /* to a slot; the register is dropped (reloaded on demand) or kept */
    bool drop = coin(a, 3) != 0 || slot_of(a, v) != RAVEL_NONE;
    if (slot_of(a, v) == RAVEL_NONE) {
        uint32_t s = free_slot(a, i, param_slot_pref(a, v));
        count_slot_write(a, s, v, i);
        bool bug = drop && rv_rs_shape(a, RV_RS_SPLIT_SPILL) && rv_rs_surely_not(a, ravel_slot(s), v);
        if (!bug) {
            uint32_t u = RAVEL_NONE, us = RAVEL_NONE;
            /* the slot-reuse bug: the spill goes into a slot whose value is still needed */
            for (uint32_t k = 0; a->ro && a->ro->corrupt == RV_RS_SLOT_CLASH && k < a->hold.dirty.len && u == RAVEL_NONE; k++) {
                uint32_t t = a->hold.dirty.data[k], w = slot_val(a, t);
                if (w != RAVEL_NONE && copy_root(a, w) != copy_root(a, v) && loc_phys(a, ravel_slot(t)) == w && live_after(a, w, i) && reg_of(a, w) == RAVEL_NONE) u = w, us = t;
            }
            if (u != RAVEL_NONE && rv_rs_shape(a, RV_RS_SLOT_CLASH)) {
                rv_rs_planted(a);
                rv_out_edit(&a->out, rv_anchor_before(i), RAVEL_OP_SPILL, ravel_slot(us), r);
                set_phys(a, ravel_slot(us), v);
                return; /* the engine still believes us holds u, and v stays in r */
            }
            rv_out_edit(&a->out, rv_anchor_before(i), RAVEL_OP_SPILL, ravel_slot(s), r);
            rv_rs_loc_set(a, ravel_slot(s), v);
        } else {
            rv_rs_planted(a); /* the bug: the spill is forgotten */
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
        uint32_t v = a->hold.content[r];
        if (v == RAVEL_NONE || a->m->regs.data[r].reserved || !live_after(a, v, i) || coin(a, 2)) continue;
        uint32_t nlive = 0;
        for (uint32_t k = 0; k < rv_inst_nsuccs(t); k++) nlive += rv_live_in(&a->live.lv, rv_inst_succs(f, t)[k].block, v);
        if (nlive < 2) continue;
        /* the condition is read from r: keep it there as well */
        bool cond = false;
        for (uint32_t u = 0; u < t->nuses; u++) cond |= rv_inst_uses(f, t)[u].vreg == v;
        uint32_t s = slot_of(a, v);
        if (s == RAVEL_NONE) {
            s = free_slot(a, i, RAVEL_NONE);
            count_slot_write(a, s, v, i);
            bool bug = rv_rs_shape(a, RV_RS_BRANCH_SPILL) && rv_rs_surely_not(a, ravel_slot(s), v) && !cond;
            if (!bug) rv_out_edit(&a->out, rv_anchor_before(i), RAVEL_OP_SPILL, ravel_slot(s), r);
            rv_rs_loc_set(a, ravel_slot(s), v);
            if (bug) rv_rs_planted(a), set_phys(a, ravel_slot(s), RAVEL_NONE); /* the bug: the spill is forgotten */
        }
        a->vs[v].site = a->shp.sites.len;
        a->vs[v].site_block = a->cur;
        rv_vec_push(a->shp.sites, s);
        rv_vec_push(a->shp.site_reloads, 0);
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
        uint8_t fl = a->ins.rf[r];
        if (fl & forbid) continue;
        if (for_use && (fl & RS_TGT) && !(share && a->ins.tgt[r] == v)) continue;
        if (r == home && !coin(a, 3)) return r;
        if (rv_rng_below(&a->rng, ++nacc) == 0) pick = r;
    }
    return pick;
}

/* Puts use u in register r (the parallel move brings v there). */
static void use_in_reg(rs *a, uint32_t opi, const rv_operand *o, uint32_t r)
{
    touch(a, r, rv_op_is_late(o) ? RS_USE_L : RS_USE_E);
    a->ins.tgt[r] = o->vreg;
    rv_out_set_loc(&a->out, opi, r);
}

/* Puts use u in a slot holding v (spilling it there if needed). */
static bool use_in_slot(rs *a, uint32_t i, uint32_t opi, uint32_t v)
{
    uint32_t s = slot_of(a, v);
    if (s == RAVEL_NONE) {
        for (uint32_t k = 0; k < a->ins.moves.len; k++)
            if (a->ins.mvals.data[k] == v && ravel_loc_is_slot(a->ins.moves.data[k].dst)) s = ravel_loc_slot(a->ins.moves.data[k].dst);
    }
    if (s == RAVEL_NONE) {
        ravel_loc l = rv_rs_cur_loc(a, v);
        if (l == RAVEL_LOC_NONE) return rs_fail(a, i, "internal error: a used value has no location");
        s = free_slot(a, i, RAVEL_NONE);
        count_slot_write(a, s, v, i);
        rv_rs_add_move(a, ravel_slot(s), l, v);
    }
    rv_vec_push(a->ins.islots, s);
    rv_out_set_loc(&a->out, opi, ravel_slot(s));
    return true;
}

/* The fixed claims (claims.h) on this engine's flags: clobbers, fixed
 * uses (use_in_reg), fixed defs and defs reusing fixed uses. */
static void rx_clobber(void *ctx, uint32_t r) { touch(ctx, r, RS_CLOB); }
static void rx_use(void *ctx, uint32_t u, uint32_t r)
{
    rs *a = ctx;
    use_in_reg(a, a->ins.cur_op0 + u, &a->f->ops.data[a->ins.cur_op0 + u], r);
}
static void rx_def(void *ctx, uint32_t d, uint32_t r)
{
    rs *a = ctx;
    touch(a, r, rv_op_is_late(&a->f->ops.data[a->ins.cur_op0 + d]) ? RS_DEF_L : RS_DEF_E);
    rv_out_set_loc(&a->out, a->ins.cur_op0 + d, r);
}
static uint8_t rx_flags(const void *ctx, uint32_t r)
{
    const rs *a = ctx;
    return (a->ins.rf[r] & RS_TOUCHED) ? a->ins.rf[r] : 0;
}
static uint32_t rx_target(const void *ctx, uint32_t r) { return ((const rs *)ctx)->ins.tgt[r]; }
static const uint32_t *rx_touched(const void *ctx, uint32_t *n)
{
    const rs *a = ctx;
    *n = a->ins.ntouched;
    return a->ins.touched;
}
static const rv_claim_ops rx_claims = {rx_clobber, rx_use, rx_def, rx_flags, rx_target, rx_touched};

/* This engine's words for a broken claim (a reason to fall back to
 * classic mode, seen in the trace). */
static const char *rx_claim_text(rv_claim_error e)
{
    switch (e) {
    case RV_CLAIM_REF_LATE: return "late .ref use in a register";
    case RV_CLAIM_TWO_VALUES: return "two values fixed to one register";
    case RV_CLAIM_TWO_DEFS: return "two defs in one register";
    case RV_CLAIM_EARLY_DEF_USE: return "early def on a use";
    default: return "late use on a def";
    }
}

/* Operand locations of instruction i (any_slot: every `any` operand not
 * reused in a slot); false if this scheme cannot meet them. */
static bool place_operands(rs *a, uint32_t i, const rv_inst *in, const rv_operand *ops, bool any_slot)
{
    uint32_t nd = in->ndefs, nops = nd + in->nuses;
    bool sp = (in->flags & RV_IF_SAFEPOINT) != 0, moving = sp && !a->m->gc_nonmoving;
    uint32_t bad;
    a->ins.cur_op0 = in->first_op;
    rv_claim_error e = rv_claim_fixed(a->f, in, ops, moving, true, true, &rx_claims, a, &bad);
    if (e != RV_CLAIM_OK) return rs_fail(a, i, rx_claim_text(e));
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
            if (ref_early && a->live.used[o->vreg]) return rs_fail(a, i, "early .ref def in a register");
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
            rv_vec_push(a->ins.islots, s);
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
    a->ins.smap.len = 0;
    /* only a register the instruction touches can be harmed (a save below
     * touches only free ones): those, in register order */
    uint32_t nh = 0;
    for (uint32_t t = 0; t < a->ins.ntouched; t++) {
        uint32_t r = a->ins.touched[t], k;
        if (!(a->ins.rf[r] & (RS_DEF | RS_CLOB | RS_TGT))) continue;
        for (k = nh++; k > 0 && a->ins.harm[k - 1] > r; k--) a->ins.harm[k] = a->ins.harm[k - 1];
        a->ins.harm[k] = r;
    }
    for (uint32_t h = 0; h < nh; h++) {
        uint32_t r = a->ins.harm[h], w = a->hold.content[r];
        if (w == RAVEL_NONE || !live_after(a, w, i) || defines(in, ops, w)) continue;
        if (sp && vref(a, w)) continue; /* below */
        uint8_t fl = a->ins.rf[r];
        bool harmed = (fl & (RS_DEF | RS_CLOB)) || ((fl & RS_TGT) && a->ins.tgt[r] != w);
        if (!harmed) continue;
        bool safe = slot_of(a, w) != RAVEL_NONE; /* slots written here are free ones */
        for (uint32_t t = 0; t < a->ins.ntouched && !safe; t++) { /* also moved into an unharmed register */
            uint32_t r2 = a->ins.touched[t];
            safe = (a->ins.rf[r2] & RS_TGT) && a->ins.tgt[r2] == w && !(a->ins.rf[r2] & (RS_DEF | RS_CLOB));
        }
        for (uint32_t k = 0; k < a->ins.moves.len && !safe; k++) safe = a->ins.mvals.data[k] == w && ravel_loc_is_slot(a->ins.moves.data[k].dst);
        if (safe) continue;
        uint32_t fr = coin(a, 2) ? free_reg(a, vcls(a, w), i, RAVEL_NONE) : RAVEL_NONE;
        if (fr != RAVEL_NONE) {
            touch(a, fr, RS_SAVE);
            a->ins.tgt[fr] = w;
        } else {
            uint32_t s = free_slot(a, i, param_slot_pref(a, w));
            count_slot_write(a, s, w, i);
            rv_rs_add_move(a, ravel_slot(s), r, w);
        }
    }
    if (!sp) return true;
    /* .ref values live across the safepoint (or read late by it) in slots */
    for (uint32_t l = 0; l < a->nregs + a->hold.dirty.len; l++) { /* registers, then the slots touched here */
        uint32_t w = l < a->nregs ? a->hold.content[l] : slot_val(a, a->hold.dirty.data[l - a->nregs]);
        if (w == RAVEL_NONE || !vref(a, w) || defines(in, ops, w)) continue;
        bool late_use = false;
        for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++) late_use |= ops[u].vreg == w && rv_op_is_late(&ops[u]);
        if (!live_after(a, w, i) && !late_use) continue;
        uint32_t s = slot_of(a, w);
        if (s == RAVEL_NONE)
            for (uint32_t k = 0; k < a->ins.moves.len; k++)
                if (a->ins.mvals.data[k] == w && ravel_loc_is_slot(a->ins.moves.data[k].dst)) s = ravel_loc_slot(a->ins.moves.data[k].dst);
        if (s == RAVEL_NONE) {
            s = free_slot(a, i, RAVEL_NONE);
            count_slot_write(a, s, w, i);
            rv_rs_add_move(a, ravel_slot(s), rv_rs_cur_loc(a, w), w);
        }
        bool dup = false;
        for (uint32_t k = 0; k < a->ins.smap.len; k++) dup |= a->ins.smap.data[k] == s;
        if (!dup) rv_vec_push(a->ins.smap, s);
    }
    for (uint32_t d = 0; d < in->ndefs; d++) { /* early .ref defs in slots */
        ravel_loc l = a->out.loc[in->first_op + d];
        if (rv_op_is_early(&ops[d]) && vref(a, ops[d].vreg) && ravel_loc_is_slot(l)) rv_vec_push(a->ins.smap, ravel_loc_slot(l));
    }
    rv_out_stackmap(&a->out, i, a->ins.smap.data, a->ins.smap.len);
    return true;
}

bool rv_rs_inst(rs *a, uint32_t i)
{
    const rv_inst *in = rv_inst_at(a->f, i);
    const rv_operand *ops = rv_ops_of(a->f, in);
    noise(a, i);
    if (rv_is_term(in)) spill_before_branch(a, i);
    a->ins.ntouched = 0;
    a->ins.moves.len = a->ins.mvals.len = a->ins.islots.len = 0;
    bool ok = place_operands(a, i, in, ops, false);
    if (!ok) { /* registers chosen for `any` operands may be what the others need: once more, with those in slots */
        rv_free(a->err);
        a->err = NULL;
        for (uint32_t t = 0; t < a->ins.ntouched; t++) a->ins.rf[a->ins.touched[t]] = 0;
        a->ins.ntouched = 0;
        a->ins.moves.len = a->ins.mvals.len = a->ins.islots.len = 0;
        for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) rv_out_set_loc(&a->out, in->first_op + k, RAVEL_LOC_NONE);
        ok = place_operands(a, i, in, ops, true);
    }
    ok = ok && save_and_map(a, i, in, ops);
    if (ok) { /* the parallel move brings each use's value to its register */
        for (uint32_t t = 0; t < a->ins.ntouched && ok; t++) {
            uint32_t r = a->ins.touched[t], v = a->ins.tgt[r];
            if (!(a->ins.rf[r] & RS_TGT) || v == RAVEL_NONE || a->hold.content[r] == v) continue;
            ravel_loc src = RAVEL_LOC_NONE;
            if (a->ins.rf[r] & RS_SAVE) { /* saved from the register being overwritten */
                for (uint32_t q = 0; q < a->nregs && src == RAVEL_LOC_NONE; q++)
                    if (a->hold.content[q] == v && q != r) src = q;
            }
            if (src == RAVEL_LOC_NONE) src = rv_rs_cur_loc(a, v);
            if (src == RAVEL_LOC_NONE) ok = rs_fail(a, i, "internal error: a used value has no location");
            else rv_rs_add_move(a, r, src, v);
        }
    }
    if (ok) {
        for (uint32_t k = 0; k < a->ins.moves.len; k++) /* reloads and spills of the move (slot reuse is counted where chosen) */
            if (ravel_loc_is_slot(a->ins.moves.data[k].src) && !ravel_loc_is_slot(a->ins.moves.data[k].dst)) {
                uint32_t v = a->ins.mvals.data[k];
                if (a->vs[v].site != RAVEL_NONE && a->vs[v].site_block != a->cur && ravel_loc_slot(a->ins.moves.data[k].src) == a->shp.sites.data[a->vs[v].site]) {
                    a->vs[v].site_block = a->cur;
                    a->shp.site_reloads.data[a->vs[v].site]++;
                }
            }
        ok = rv_rs_emit_moves(a, rv_anchor_before(i), i);
    }
    if (ok) { /* after: clobbers, the safepoint's effect, defs */
        for (uint32_t t = 0; t < a->ins.ntouched; t++)
            if (a->ins.rf[a->ins.touched[t]] & RS_CLOB) rv_rs_loc_set(a, a->ins.touched[t], RAVEL_NONE);
        if (in->flags & RV_IF_SAFEPOINT)
            for (uint32_t l = 0; l < a->nregs + a->hold.dirty.len; l++) {
                ravel_loc loc = l < a->nregs ? l : ravel_slot(a->hold.dirty.data[l - a->nregs]);
                uint32_t w = loc_get(a, loc);
                if (w == RAVEL_NONE || !vref(a, w)) continue;
                bool listed = false;
                for (uint32_t k = 0; k < a->ins.smap.len && ravel_loc_is_slot(loc); k++) listed |= a->ins.smap.data[k] == ravel_loc_slot(loc);
                if (listed) continue;
                rv_rs_loc_set(a, loc, RAVEL_NONE);
                if (a->m->gc_nonmoving) set_phys(a, loc, RS_UNK); /* still there if some listed slot roots it */
            }
        for (uint32_t d = 0; d < in->ndefs; d++) {
            ravel_loc l = a->out.loc[in->first_op + d];
            uint32_t v = ops[d].vreg;
            for (uint32_t r = 0; r < a->nregs && a->vs[v].nreg; r++) /* SSA: no other copy, but be exact */
                if (a->hold.content[r] == v) rv_rs_loc_set(a, r, RAVEL_NONE);
            rv_rs_loc_set(a, l, v);
        }
    }
    for (uint32_t t = 0; t < a->ins.ntouched; t++) a->ins.rf[a->ins.touched[t]] = 0;
    a->ins.ntouched = 0;
    return ok;
}

