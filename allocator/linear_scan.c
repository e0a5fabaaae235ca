/* linear_scan.c - the `linear` allocator's pass 3, the scan (see the
 * pipeline at the top of linear.c): one forward pass over the blocks in
 * scan order that gives every operand a location.
 *
 * Requires: passes 1 (order and positions) and 2 (liveness: DIES/DEAD,
 * the reads of each vreg, the global vregs, the hulls from liveness) and
 * the pool of block states (lin_states).
 * Guarantees: each block's entry state (copied from a scanned predecessor)
 * and end state; every live vreg has a home or a valid slot between
 * instructions; the instructions' locations, edits and stackmaps in
 * L->out and L->smaps; the hulls of the slots it touched; or false with
 * L->err naming the instruction whose constraints cannot be met. */
#include "linear.h"

enum { /* per-register flags, valid for the current instruction only */
    RF_PIN_E = 1,  /* holds rpinv for an early read */
    RF_PIN_L = 2,  /* holds rpinv for a late read */
    RF_FDE = 4,    /* location of an early def */
    RF_FDL = 8,    /* location of a late def (fixed, reuse or chosen) */
    RF_CLOB = 16,  /* clobbered by the instruction */
    RF_FIXU = 32,  /* named by a fixed use */
};
enum { /* per-vreg flags, valid for the current instruction only */
    VF_USED = 1, VF_DIES = 2, VF_LATE = 4,
};

/* ---- 3. the scan: state helpers ---- */

/* First use of v at or after the current position (LIN_INF if none). */
static uint32_t next_use(lin *L, uint32_t v)
{
    uint32_t c = L->live.use_cur[v], e = L->live.use_start[v + 1];
    while (c < e && L->live.use_pos[c] < L->cur.pos) c++;
    L->live.use_cur[v] = c;
    return c < e ? L->live.use_pos[c] : LIN_INF;
}

static inline __attribute__((always_inline)) uint8_t rfl(const lin *L, uint32_t r) { return L->cur.rstamp[r] == L->cur.stamp ? L->cur.rfl[r] : 0; }
static inline __attribute__((always_inline)) void rset(lin *L, uint32_t r, uint8_t fl)
{
    if (L->cur.rstamp[r] != L->cur.stamp) {
        L->cur.rstamp[r] = L->cur.stamp;
        L->cur.rfl[r] = 0;
        L->cur.rpinv[r] = RAVEL_NONE;
        rv_vec_push(L->cur.flagged, r);
    }
    L->cur.rfl[r] |= fl;
}
static inline __attribute__((always_inline)) uint32_t rpin(const lin *L, uint32_t r) { return (rfl(L, r) & (RF_PIN_E | RF_PIN_L)) ? L->cur.rpinv[r] : RAVEL_NONE; }
static inline __attribute__((always_inline)) uint8_t vfl(const lin *L, uint32_t v) { return L->cur.vstamp[v] == L->cur.stamp ? L->cur.vfl[v] : 0; }
static inline __attribute__((always_inline)) uint32_t vpinned(const lin *L, uint32_t v) { return (L->cur.vstamp[v] == L->cur.stamp) ? L->cur.vpin[v] : RAVEL_NONE; }
static inline __attribute__((always_inline)) void vset(lin *L, uint32_t v, uint8_t fl)
{
    if (L->cur.vstamp[v] != L->cur.stamp) {
        L->cur.vstamp[v] = L->cur.stamp;
        L->cur.vfl[v] = 0;
        L->cur.vpin[v] = RAVEL_NONE;
    }
    L->cur.vfl[v] |= fl;
}
static inline __attribute__((always_inline)) void touch(lin *L, uint32_t v) { L->blk.ent_fresh[v] = 0; } /* v is read */
static void pin(lin *L, uint32_t r, uint32_t v, bool late)
{
    rset(L, r, late ? RF_PIN_L : RF_PIN_E);
    touch(L, v);
    L->cur.rpinv[r] = v;
    vset(L, v, 0);
    L->cur.vpin[v] = r;
}

static void emit(lin *L, ravel_opcode kind, ravel_loc dst, ravel_loc src)
{
    mark_slot(L, dst);
    mark_slot(L, src);
    rv_out_edit(&L->out, L->cur.anchor, kind, dst, src);
    if (L->opts && L->opts->trace) {
        char a[32], b[32];
        rv_alloc_trace(L->opts, "linear", "%s %s <- %s",
                       kind == RAVEL_OP_SPILL ? "spill" : kind == RAVEL_OP_RELOAD ? "reload" : "move",
                       rv_loc_str(L->m, dst, a), rv_loc_str(L->m, src, b));
    }
}

static void set_home(lin *L, uint32_t v, uint32_t r)
{
    L->st.home[v] = r;
    L->st.owner[r] = v;
}
/* A live-in whose entry register was never read in this block, when it
 * loses the register with its slot valid, enters the block in its slot
 * instead: the edges then load nothing for it. */
static void drop_home(lin *L, uint32_t v)
{
    if (L->st.home[v] != RAVEL_NONE) L->st.owner[L->st.home[v]] = RAVEL_NONE;
    L->st.home[v] = RAVEL_NONE;
    if (L->blk.ent_fresh[v] && L->st.instate[v] && L->st.sv[v]) {
        lin_vst *e = &L->blk.entry[L->cur.block].data[L->blk.ent_idx[v]];
        e->home = RAVEL_NONE;
        e->sv = 1;
    }
    L->blk.ent_fresh[v] = 0;
}


/* A register currently holding v (home, else a pin), or RAVEL_NONE. */
static uint32_t vreg_reg(const lin *L, uint32_t v)
{
    if (L->st.home[v] != RAVEL_NONE) return L->st.home[v];
    uint32_t r = vpinned(L, v);
    return (r != RAVEL_NONE && rpin(L, r) == v) ? r : RAVEL_NONE;
}

static void add_ref(lin *L, uint32_t v)
{
    if (!vref(L, v) || L->st.refpos[v]) return;
    rv_vec_push(L->st.refs, v);
    L->st.refpos[v] = L->st.refs.len;
}
static void del_ref(lin *L, uint32_t v)
{
    uint32_t p = L->st.refpos[v];
    if (!p) return;
    uint32_t last = L->st.refs.data[--L->st.refs.len];
    if (last != v) {
        L->st.refs.data[p - 1] = last;
        L->st.refpos[last] = p;
    }
    L->st.refpos[v] = 0;
}

static void enter(lin *L, uint32_t v, uint32_t r, bool sv)
{
    if (!L->st.instate[v]) L->st.ninstate++;
    L->st.instate[v] = 1;
    L->blk.ent_fresh[v] = 0;
    L->st.sv[v] = sv;
    L->st.home[v] = RAVEL_NONE;
    if (r != RAVEL_NONE) set_home(L, v, r);
    add_ref(L, v);
}
static void leave(lin *L, uint32_t v)
{
    if (!L->st.instate[v]) return;
    L->st.instate[v] = 0;
    L->st.ninstate--;
    drop_home(L, v);
    L->st.sv[v] = 0;
    del_ref(L, v);
}

/* Makes v's slot valid (stores it from a register if needed). */
static bool ensure_slot(lin *L, uint32_t v)
{
    if (L->st.sv[v]) return true;
    uint32_t r = vreg_reg(L, v);
    if (r == RAVEL_NONE) return fail(L, "internal: value lost");
    touch(L, v);
    emit(L, RAVEL_OP_SPILL, vslot(v), r);
    L->st.sv[v] = 1;
    return true;
}
/* Spill at the definition: a value defined outside the current loop and
 * evicted inside it is stored once, right after its def, rather than on
 * every iteration. Safe because each vreg has its own slot and its def's
 * register holds it at that point (recorded in def_reg). */
static void spill_at_def(lin *L, uint32_t v)
{
    uint32_t d = L->live.def_inst[v], r = L->live.def_reg[v];
    if (L->st.sv[v] || d == RAVEL_NONE || r == RAVEL_NONE || L->cur.inst == RAVEL_NONE) return;
    uint32_t cb = L->ord.inst_block[L->cur.inst], db = L->ord.inst_block[d];
    if (L->cfg.loop_depth[db] >= L->cfg.loop_depth[cb]) return;
    uint32_t saved = L->cur.anchor;
    L->cur.anchor = rv_anchor_after(d);
    emit(L, RAVEL_OP_SPILL, vslot(v), r);
    L->cur.anchor = saved;
    L->st.sv[v] = 1;
    L->live.def_stored[v] = 1;
}

static bool evict(lin *L, uint32_t v)
{
    spill_at_def(L, v);
    if (L->blk.ent_fresh[v] && !L->st.sv[v]) {
        /* its entry register was never read here: it enters the block in
         * its slot instead (the edges store it), no store in the block */
        L->st.sv[v] = 1;
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
    else if (L->st.sv[v]) emit(L, RAVEL_OP_RELOAD, t, vslot(v));
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
        if ((fl & excl) || !L->home[r]) continue;
        if ((fl & RF_PIN_L) || ((fl & RF_PIN_E) && !late_def)) continue;
        uint32_t o = L->st.owner[r];
        uint64_t score;
        if (o == RAVEL_NONE || (late_def && (vfl(L, o) & VF_DIES) && !(vfl(L, o) & VF_LATE))) {
            score = (1ull << 62) + (r == hint ? 4 : 0) + ((fl & soft) ? 0 : 2);
        } else if (may_evict) {
            score = ((uint64_t)next_use(L, o) << 1) | L->st.sv[o];
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
    uint32_t o = L->st.owner[r];
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
        uint32_t h = L->st.home[v];
        if (h != RAVEL_NONE && !(rfl(L, h) & excl)) {
            pin(L, h, v, late);
            return h;
        }
    }
    uint8_t soft = (temp_only || (vfl(L, v) & VF_DIES)) ? RF_FIXU : (RF_CLOB | RF_FDE | RF_FDL | RF_FIXU);
    uint32_t t = pick_reg(L, cls, excl, false, soft, RAVEL_NONE, true);
    if (t == RAVEL_NONE) return RAVEL_NONE;
    if (L->st.owner[t] == v) { /* a copy in v's own home: v moves to its slot */
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
    uint32_t w = L->st.owner[r];
    /* a value read by this instruction may push out one used later */
    bool used = vfl(L, w) & VF_USED;
    uint32_t t = pick_reg(L, vcls(L, w), RF_CLOB | RF_FDE | RF_FDL | RF_FIXU, false, 0, RAVEL_NONE, used);
    if (t != RAVEL_NONE && L->st.owner[t] != RAVEL_NONE && next_use(L, L->st.owner[t]) <= next_use(L, w)) t = RAVEL_NONE;
    if (t == RAVEL_NONE) return evict(L, w);
    if (!take_reg(L, t, false)) return false;
    touch(L, w);
    emit(L, RAVEL_OP_MOVE, t, r);
    drop_home(L, w);
    set_home(L, w, t);
    return true;
}

/* ---- 3. the scan: one instruction ---- */

/* Before a value is moved into a part R (a register that is not a home),
 * the homes overlapping R lose their owners (moved elsewhere, or to their
 * slots): the write destroys what they hold (docs/format.md section 14.1).
 * overlap_flags keeps every operand of the instruction out of them. */
static bool vacate_overlaps(lin *L, uint32_t R)
{
    const uint32_t *ov;
    uint32_t no = rv_mach_overlaps(L->m, R, &ov);
    for (uint32_t k = 0; k < no; k++)
        if (L->home[ov[k]] && L->st.owner[ov[k]] != RAVEL_NONE && !relocate(L, ov[k])) return false;
    return true;
}

static bool place_fixed_use(lin *L, uint32_t v, uint32_t R, bool late)
{
    if (R >= L->nr || lin_reg(L, R)->cls != vcls(L, v)) return fail(L, "fixed register of another class");
    uint32_t p = rpin(L, R);
    if (p != RAVEL_NONE && p != v) return fail(L, "two values in one fixed register");
    if (p == v || L->st.owner[R] == v) {
        pin(L, R, v, late);
        return true;
    }
    if (L->st.owner[R] != RAVEL_NONE && !relocate(L, R)) return false;
    if (!L->home[R] && !vacate_overlaps(L, R)) return false;
    if (!copy_to(L, v, R)) return false;
    if (L->st.home[v] == RAVEL_NONE && L->home[R]) set_home(L, v, R);
    pin(L, R, v, late);
    return true;
}

/* The flags of a home h overlapping a part (a register that is not a home)
 * with flags pf: h's value is destroyed (clobbered: relocated, or moved out
 * by vacate_overlaps); a value moved into the part before the instruction
 * destroys h before it (pinned early to no value: no use and no early def
 * goes to h, a late def may); a def of the part is one of h (the overlap
 * forms of the constraint rules). */
static uint8_t overlap_flag(uint8_t pf)
{
    uint8_t c = RF_CLOB;
    if (pf & RF_FIXU) c |= RF_PIN_E;
    return c | (pf & (RF_FDE | RF_FDL));
}

/* On a machine with containment, the parts the instruction names (fixed
 * operands, clobbers) flag the homes they overlap (overlap_flag); an
 * instruction that also reads or writes such a home itself is refused. */
static bool overlap_flags(lin *L)
{
    uint32_t nf = L->cur.flagged.len;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t t = 0; t < nf; t++) {
            uint32_t r = L->cur.flagged.data[t];
            uint8_t pf = rfl(L, r);
            const uint32_t *ov;
            uint32_t no = L->home[r] ? 0 : rv_mach_overlaps(L->m, r, &ov);
            for (uint32_t k = 0; k < no; k++) {
                uint32_t h = ov[k];
                if (!L->home[h]) continue;
                if (pass == 1) rset(L, h, overlap_flag(pf));
                else if ((pf & (RF_FIXU | RF_FDE | RF_FDL)) && (rfl(L, h) & (RF_FIXU | RF_FDE | RF_FDL)))
                    return fail(L, "the instruction names two registers that overlap");
            }
        }
    return true;
}

/* Precomputes the flags of the instruction; reports fixed conflicts. */
static bool inst_flags(lin *L, const rv_inst *in, const rv_operand *defs, const rv_operand *uses)
{
    for (uint32_t k = 0; k < in->nuses; k++) {
        uint32_t v = uses[k].vreg;
        if (L->live.global[v] && !L->st.instate[v]) { /* in its slot since its def */
            enter(L, v, RAVEL_NONE, true);
            rv_vec_push(L->live.bglob, v);
        }
    }
    for (uint32_t k = 0; k < in->nuses; k++) {
        uint8_t fl = VF_USED;
        if (L->live.opk[in->first_op + in->ndefs + k] & OPK_DIES) fl |= VF_DIES;
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
    return !rv_mach_has_alias(L->m) || overlap_flags(L);
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
            uint32_t h = L->st.home[v];
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
    for (uint32_t k = 0; k < L->cur.flagged.len; k++) {
        uint32_t r = L->cur.flagged.data[k];
        if (!(rfl(L, r) & (RF_CLOB | RF_FDE | RF_FDL))) continue;
        uint32_t o = L->st.owner[r];
        if (o != RAVEL_NONE && !(vfl(L, o) & VF_DIES) && !relocate(L, r)) return false;
    }
    return true;
}

/* Step 4: every reference needed after the safepoint effect is in its slot,
 * listed in the stackmap. */
static bool safepoint_spills(lin *L, const rv_inst *in)
{
    if (!(in->flags & RV_IF_SAFEPOINT)) return true;
    for (uint32_t k = 0; k < L->st.refs.len; k++) {
        uint32_t v = L->st.refs.data[k];
        uint8_t fl = vfl(L, v);
        if ((fl & VF_DIES) && !(fl & VF_LATE)) continue;
        if (!ensure_slot(L, v)) return false;
        rv_vec_push(L->cur.smap, v);
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
        L->cur.rfl[r] &= (uint8_t)~(RF_PIN_E | RF_PIN_L);
        if (L->st.owner[r] == v) drop_home(L, v);
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
            bool late = rv_op_is_late(d), dead = L->live.opk[op] & OPK_DEAD;
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
                L->hull.slot_used[v] = 1;
                if (ref_sp) rv_vec_push(L->cur.smap, v);
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
        for (uint32_t k = 0; k < L->cur.smap.len; k++) drop_home(L, L->cur.smap.data[k]);
    for (uint32_t k = 0; k < L->cur.flagged.len; k++) {
        uint32_t r = L->cur.flagged.data[k], o = L->st.owner[r];
        if ((rfl(L, r) & RF_CLOB) && o != RAVEL_NONE) {
            if (!L->st.sv[o]) return fail(L, "internal: live value in a clobbered register");
            drop_home(L, o);
        }
    }
    L->cur.anchor = rv_anchor_after(i);
    L->cur.stamp++; /* pins are over */
    for (uint32_t k = 0; k < in->ndefs; k++) {
        uint32_t op = in->first_op + k, v = defs[k].vreg;
        if (L->live.opk[op] & OPK_DEAD) continue;
        ravel_loc l = loc[op];
        if (ravel_loc_is_slot(l)) {
            enter(L, v, RAVEL_NONE, true);
        } else if (L->home[l]) {
            if (L->st.owner[l] != RAVEL_NONE) return fail(L, "internal: def over a live value");
            enter(L, v, l, false);
            L->live.def_reg[v] = l;
        }
    }
    for (uint32_t k = 0; k < in->ndefs; k++) { /* the moves below write no home overlapping such a def */
        ravel_loc l = loc[in->first_op + k];
        const uint32_t *ov;
        uint32_t no = ravel_loc_is_slot(l) || L->home[l] ? 0 : rv_mach_overlaps(L->m, l, &ov);
        for (uint32_t j = 0; j < no; j++) rset(L, ov[j], RF_CLOB);
    }
    for (uint32_t k = 0; k < in->ndefs; k++) {
        uint32_t op = in->first_op + k, v = defs[k].vreg;
        ravel_loc l = loc[op];
        if ((L->live.opk[op] & OPK_DEAD) || ravel_loc_is_slot(l) || L->home[l]) continue;
        /* a def in a reserved register (or a part, not a home) moves out at once */
        uint32_t t = pick_reg(L, vcls(L, v), RF_CLOB, false, 0, RAVEL_NONE, false);
        if (t != RAVEL_NONE) {
            emit(L, RAVEL_OP_MOVE, t, l);
            enter(L, v, t, false);
            L->live.def_reg[v] = t;
        } else {
            emit(L, RAVEL_OP_SPILL, vslot(v), l);
            enter(L, v, RAVEL_NONE, true);
        }
    }
    for (uint32_t k = 0; k < in->ndefs; k++) { /* a global is stored right after its def */
        uint32_t v = defs[k].vreg;
        if (!L->live.global[v] || !L->st.instate[v]) continue;
        rv_vec_push(L->live.bglob, v);
        if (L->st.home[v] != RAVEL_NONE && !ensure_slot(L, v)) return false;
    }
    return true;
}

static bool lin_inst(lin *L, uint32_t i)
{
    const ravel_func *f = L->f;
    const rv_inst *in = rv_inst_at(f, i);
    const rv_operand *defs = rv_inst_defs(f, in), *uses = rv_inst_uses(f, in);
    ravel_loc *loc = L->out.loc;
    L->cur.stamp++;
    L->cur.flagged.len = 0;
    L->cur.smap.len = 0;
    L->cur.pos = L->ord.ipos[i];
    L->cur.inst = i;
    L->cur.anchor = rv_anchor_before(i);
    if (!inst_flags(L, in, defs, uses)) return false;
    if (!place_uses(L, in, defs, uses, loc)) return false;
    if (!relocate_live(L)) return false;
    if (!safepoint_spills(L, in)) return false;
    if (!place_defs(L, in, defs, uses, loc)) return false;
    if (in->flags & RV_IF_SAFEPOINT) {
        if ((uint64_t)L->smaps.len + L->cur.smap.len > 2ull * RV_MAX_STACKMAP_ENTRIES) { /* bounded: refused */
            L->out.too_big = true;
            if (!L->err) L->err = rv_out_limit_error(&L->out);
            return false;
        }
        rv_vec_push(L->smaps, i);
        rv_vec_push(L->smaps, L->cur.smap.len);
        for (uint32_t k = 0; k < L->cur.smap.len; k++) rv_vec_push(L->smaps, L->cur.smap.data[k]);
    }
    return after_inst(L, i, in, defs, uses, loc);
}

/* ---- 3. the scan: blocks ---- */

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
        uint32_t tp = L->ord.ipos[term_inst(L, p)];
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
    vstvec *en = &L->blk.entry[b];
    if (p != RAVEL_NONE) emap_build(L, &L->blk.endst[p]);
    /* live-ins keep their place at p's end; at a loop header only those
     * used inside the loop keep a register (else the back edges reload
     * values the loop body had to evict) */
    uint32_t loop_end = loop_end_pos(L, b), nin;
    const uint32_t *lins = live_in(L, b, &nin);
    for (uint32_t k = 0; k < nin; k++) {
        uint32_t v = lins[k];
        const lin_vst *s = p != RAVEL_NONE ? emap_get(L, &L->blk.endst[p], v) : NULL;
        uint32_t h = s && s->home != RAVEL_NONE && L->st.owner[s->home] == RAVEL_NONE ? s->home : RAVEL_NONE;
        if (loop_end != RAVEL_NONE && next_use(L, v) > loop_end) h = RAVEL_NONE;
        /* with one or two registers, a merge keeps only values read in it */
        if (loop_end == RAVEL_NONE && L->cfg.pred_start[b + 1] - L->cfg.pred_start[b] > 1 &&
            L->m->classes.data[vcls(L, v)].alloc.len <= 2 && next_use(L, v) > L->ord.ipos[term_inst(L, b)])
            h = RAVEL_NONE;
        enter(L, v, h, h == RAVEL_NONE || s->sv || L->live.def_stored[v]);
    }
    /* params: the argument's register if the argument dies on the edge, else a free one */
    for (uint32_t k = 0; k < bl->nparams; k++) {
        uint32_t v = ps[k], h = RAVEL_NONE;
        if (L->live.use_start[v] == L->live.use_start[v + 1]) continue; /* never used: never in the state */
        if (L->live.global[v]) continue; /* enters at its first use, in its slot */
        if (args) {
            uint32_t a = args[k];
            const lin_vst *s = emap_get(L, &L->blk.endst[p], a);
            if (s && s->home != RAVEL_NONE && L->st.owner[s->home] == RAVEL_NONE && !L->st.instate[a]) h = s->home;
            if (h == RAVEL_NONE) {
                const rv_class *c = &L->m->classes.data[vcls(L, v)];
                for (uint32_t j = 0; j < c->alloc.len && h == RAVEL_NONE; j++)
                    if (L->home[c->alloc.data[j]] && L->st.owner[c->alloc.data[j]] == RAVEL_NONE) h = c->alloc.data[j];
            }
        }
        enter(L, v, h, h == RAVEL_NONE);
    }
    for (uint32_t k = 0; k < bl->nparams; k++) { /* a dead param: no home, no slot, no moves */
        L->blk.ent_fresh[ps[k]] = L->st.home[ps[k]] != RAVEL_NONE;
        L->blk.ent_idx[ps[k]] = en->len;
        en->data[en->len++] = (lin_vst){ps[k], L->st.home[ps[k]], L->live.global[ps[k]] || (L->st.instate[ps[k]] && L->st.sv[ps[k]])};
    }
    for (uint32_t k = 0; k < nin; k++) {
        uint32_t v = lins[k];
        L->blk.ent_fresh[v] = L->st.home[v] != RAVEL_NONE;
        L->blk.ent_idx[v] = en->len;
        en->data[en->len++] = (lin_vst){v, L->st.home[v], L->st.sv[v]};
    }
}

static void lin_block_exit(lin *L, uint32_t b)
{
    vstvec *ex = &L->blk.endst[b];
    uint32_t nout;
    const uint32_t *outs = live_out(L, b, &nout);
    for (uint32_t k = 0; k < nout; k++) {
        uint32_t v = outs[k];
        if (L->st.instate[v]) ex->data[ex->len++] = (lin_vst){v, L->st.home[v], L->st.sv[v]};
        else ex->data[ex->len++] = (lin_vst){v, RAVEL_NONE, 1}; /* not SSA-reachable here */
        leave(L, v);
    }
    for (uint32_t k = 0; k < L->live.bglob.len; k++) leave(L, L->live.bglob.data[k]);
    L->live.bglob.len = 0;
    if (L->st.ninstate) { /* defensive: values the liveness did not list */
        for (uint32_t v = 0; v < L->nv; v++) leave(L, v);
    }
}

bool rv_lin_scan(lin *L)
{
    for (uint32_t o = 0; o < L->ord.order.len; o++) {
        uint32_t b = L->ord.order.data[o];
        const rv_block *bl = &L->f->blocks.data[b];
        L->cur.pos = L->ord.bpos[b];
        L->cur.block = b;
        lin_block_entry(L, b);
        for (uint32_t j = 0; j < bl->ninsts; j++)
            if (!lin_inst(L, bl->first_inst + j)) return false;
        lin_block_exit(L, b);
    }
    return true;
}

