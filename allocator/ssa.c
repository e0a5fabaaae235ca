/* ssa.c - the `ssa` allocator: decoupled SSA-based allocation (spill
 * first, then colour in dominator order), on the shared liveness and live
 * intervals (live.c) and back end (assign.c).
 *
 * Requires: f unallocated, valid SSA, finished. Guarantees: the alloc.h
 * contract; fails only when an instruction's constraints cannot be met.
 *
 * Pipeline:
 *   1. Liveness over vregs and live intervals per value (exact sets of
 *      program points: the def, then every point up to the last use, and
 *      whole blocks where the value is live through).
 *   2. Virtual registers (conventional SSA): each block parameter is
 *      grouped with its arguments unless their intervals overlap (a member
 *      live where another is defined); an argument left out keeps its own
 *      virtual register and is copied on its edge. Members of one virtual
 *      register are never live at once, so they can share one location.
 *   3. Spilling before colouring: walking each block backwards, where the
 *      registers a class needs at an instruction (values live across it in
 *      registers, plus what its operands need: uses not already counted,
 *      defs, early defs on top of the uses) exceed the class's registers,
 *      the live-across value whose next use is farthest (Belady) is
 *      spilled, a whole virtual register at a time into one slot. A .ref
 *      value live across a safepoint is spilled there (its slot is listed
 *      in the stackmap).
 *   4. Colouring: blocks in dominator-tree preorder, each instruction top
 *      down. A value takes a register free at its def (early defs while the
 *      instruction's uses still hold theirs, late defs once the dying uses
 *      released them); by the SSA property every value live there was
 *      coloured before and no later value takes its register while it is
 *      live, so no further spills are needed when the pressure fits (if it
 *      does not, the value is spilled: a safety net). Preferences: the
 *      colour of the virtual register, the fixed register of the operand,
 *      the register of the use a def reuses or copies.
 *   5. Reloads, fixed registers and call clobbers: assign.c puts a local
 *      parallel move before and after each instruction (reload into a
 *      temporary, moves into fixed registers, save and restore of values
 *      whose register the instruction clobbers).
 * Memory: liveness 2 x blocks x vregs bits; intervals linear in the
 * function; virtual registers' merged range lists. */
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

typedef RV_VEC(rv_range) rangevec;

typedef struct sa {
    const ravel_func *f;
    const ravel_machine *m;
    const rv_alloc_opts *opts;
    rv_cfg cfg;
    rv_liveness lv;
    rv_intervals iv;
    uint32_t nv, nregs, ncls;
    /* the per-vreg, per-register and per-class arrays below share one block (mem) */
    void *mem;
    uint32_t *parent;     /* virtual registers: union-find over vregs */
    bool *spilled;        /* per root */
    uint8_t *cls;         /* per vreg: its class */
    uint32_t *vr_color;   /* per root: register of the first coloured member, or RAVEL_NONE */
    uint32_t *home;       /* per vreg: register or RAVEL_NONE (slot) */
    uint32_t *group;      /* per vreg: its root (once build_vregs is done) */
    uint32_t *occ;        /* per register: value holding it during the colouring walk, or RAVEL_NONE */
    uint64_t *avoid;      /* per vreg: registers (class-local index < 64) clobbered or needed by a fixed
                           * operand of another value while it is live: its register is saved around those */
    uint32_t *ridx;       /* register -> index in its class's allocatable list, or RAVEL_NONE */
    /* the live set of the spilling walk (sparse), and counts kept with it */
    rv_sset lset;
    uint32_t *root_live;  /* per root: its members in the live set */
    uint32_t *opstamp, stamp; /* see mark_ops */
    uint32_t *cand, *cand_d;  /* relieve: candidates and their next uses */
    uint8_t *opfl;
    uint32_t *inreg;      /* per class: values in the live set whose root is not spilled */
    /* per instruction of the spilling walk, per class */
    uint64_t *clobmask;   /* registers the instruction clobbers (class-local bits, as avoid) */
    uint64_t *fixmask;    /* registers its fixed operands name */
} sa;

static inline __attribute__((always_inline)) uint32_t vcls(const sa *s, uint32_t v) { return s->cls[v]; }

static uint32_t find(sa *s, uint32_t v)
{
    while (s->parent[v] != v) {
        s->parent[v] = s->parent[s->parent[v]];
        v = s->parent[v];
    }
    return v;
}

/* ---- virtual registers ----
 * The members' merged ranges of each root are a run [off, off + len) of
 * one pool; a merge appends the new run (the old ones become garbage, and
 * the pool is compacted when the garbage outgrows the live runs). */

typedef struct vr_run { uint32_t off, len; } vr_run;
typedef struct vr_pool {
    rangevec r;
    vr_run *run;      /* per root */
    uint32_t live;    /* ranges in the roots' runs */
} vr_pool;

static bool ranges_overlap(const rv_range *a, uint32_t na, const rv_range *b, uint32_t nb)
{
    uint32_t i = 0, j = 0;
    while (i < na && j < nb) {
        const rv_range *x = &a[i], *y = &b[j];
        if (x->from < y->to && y->from < x->to) return true;
        if (x->to <= y->to) i++;
        else j++;
    }
    return false;
}

/* Appends the merge of a and b (runs of the pool, which has room for
 * both) to the pool; returns its length. */
static uint32_t ranges_merge(rangevec *dst, const rv_range *a, uint32_t na, const rv_range *b, uint32_t nb)
{
    uint32_t i = 0, j = 0, start = dst->len;
    while (i < na || j < nb) {
        rv_range r = (j >= nb || (i < na && a[i].from < b[j].from)) ? a[i++] : b[j++];
        if (dst->len > start && dst->data[dst->len - 1].to >= r.from) {
            if (r.to > dst->data[dst->len - 1].to) dst->data[dst->len - 1].to = r.to;
        } else {
            dst->data[dst->len++] = r;
        }
    }
    return dst->len - start;
}

/* Keeps only the roots' runs. */
static void pool_compact(sa *s, vr_pool *P)
{
    rangevec n = {0};
    rv_vec_reserve(n, 2 * (size_t)P->live + 1);
    for (uint32_t v = 0; v < s->nv; v++) {
        if (s->parent[v] != v) continue;
        vr_run *x = &P->run[v];
        if (x->len) memcpy(n.data + n.len, P->r.data + x->off, sizeof(rv_range) * x->len);
        x->off = n.len;
        n.len += x->len;
    }
    rv_vec_free(P->r);
    P->r = n;
}

static void try_union(sa *s, vr_pool *P, uint32_t p, uint32_t a)
{
    uint32_t x = find(s, p), y = find(s, a);
    if (x == y || vcls(s, p) != vcls(s, a) || s->f->vregs.data[p].ref != s->f->vregs.data[a].ref) return;
    vr_run rx = P->run[x], ry = P->run[y];
    if (ranges_overlap(P->r.data + rx.off, rx.len, P->r.data + ry.off, ry.len)) return; /* interfere: keep the copy */
    if (P->r.len - P->live > P->live + 64) { /* mostly garbage */
        pool_compact(s, P);
        rx = P->run[x], ry = P->run[y];
    }
    rv_vec_reserve(P->r, (size_t)rx.len + ry.len + 1); /* (may move the pool: offsets stay) */
    uint32_t off = P->r.len, n = ranges_merge(&P->r, P->r.data + rx.off, rx.len, P->r.data + ry.off, ry.len);
    P->live = P->live - rx.len - ry.len + n;
    if (y < x) {
        uint32_t t = x;
        x = y;
        y = t;
    }
    s->parent[y] = x;
    P->run[x] = (vr_run){off, n};
}

static void build_vregs(sa *s)
{
    const ravel_func *f = s->f;
    vr_pool P = {{0}, rv_xmalloc(sizeof(vr_run) * (s->nv + 1)), s->iv.nranges_total};
    rv_vec_reserve(P.r, 2 * (size_t)s->iv.nranges_total + 1);
    if (s->iv.nranges_total) memcpy(P.r.data, s->iv.ranges, sizeof(rv_range) * s->iv.nranges_total);
    P.r.len = s->iv.nranges_total;
    for (uint32_t v = 0; v < s->nv; v++) {
        s->parent[v] = v;
        P.run[v] = (vr_run){s->iv.iv[v].first_range, s->iv.iv[v].nranges};
    }
    for (uint32_t k = 0; k < s->cfg.nrpo; k++) { /* blocks in RPO: loop-carried values first meet their entry value */
        uint32_t b = s->cfg.rpo[k];
        const rv_block *bl = &f->blocks.data[b];
        const rv_inst *t = rv_block_term(f, bl);
        for (uint32_t e = 0; e < rv_inst_nsuccs(t); e++) {
            const rv_succ *sc = &rv_inst_succs(f, t)[e];
            const rv_block *sb = &f->blocks.data[sc->block];
            for (uint32_t p = 0; p < sc->nargs && p < sb->nparams; p++) try_union(s, &P, rv_block_params(f, sb)[p], rv_succ_args(f, sc)[p]);
        }
    }
    rv_vec_free(P.r);
    rv_free(P.run);
}

/* ---- spilling ---- */

static inline __attribute__((always_inline)) bool in_live(const sa *s, uint32_t v) { return rv_sset_has(&s->lset, v); }
static void live_add(sa *s, uint32_t v)
{
    if (!rv_sset_add(&s->lset, v)) return;
    uint32_t r = s->group[v];
    s->root_live[r]++;
    if (!s->spilled[r]) s->inreg[vcls(s, v)]++;
}
static void live_del(sa *s, uint32_t v)
{
    if (!rv_sset_del(&s->lset, v)) return;
    uint32_t r = s->group[v];
    s->root_live[r]--;
    if (!s->spilled[r]) s->inreg[vcls(s, v)]--;
}
static void live_clear(sa *s)
{
    for (uint32_t k = 0; k < s->lset.n; k++) s->root_live[s->group[s->lset.dense[k]]] = 0;
    memset(s->inreg, 0, sizeof(uint32_t) * s->ncls);
    s->lset.n = 0;
}

static inline __attribute__((always_inline)) bool vspilled(sa *s, uint32_t v) { return s->spilled[s->group[v]]; }

/* Spills the virtual register of root r (its live members leave inreg). */
static void spill_root(sa *s, uint32_t r)
{
    if (s->spilled[r]) return;
    s->spilled[r] = true;
    s->inreg[vcls(s, r)] -= s->root_live[r];
}

/* Point of v's first use after point p, or UINT32_MAX (no later use in
 * layout order: live around a loop or out of the function's tail). */
static uint32_t next_use(const sa *s, uint32_t v, uint32_t p)
{
    const rv_use_pos *u = rv_iv_uses(&s->iv, v);
    uint32_t lo = 0, hi = s->iv.iv[v].nuses;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (u[mid].pos <= p) lo = mid + 1;
        else hi = mid;
    }
    for (; lo < s->iv.iv[v].nuses; lo++)
        if (!(u[lo].flags & RV_UP_DEF)) return u[lo].pos;
    return UINT32_MAX;
}

/* The operands of the instruction the spilling walk is at: opfl[v] holds
 * v's OPF_* flags there while opstamp[v] == stamp. */
enum { OPF_DEF = 1, OPF_USE = 2, OPF_FIXED = 4 };

static void mark_ops(sa *s, const rv_inst *in, const rv_operand *ops)
{
    s->stamp++;
    for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) {
        uint32_t v = ops[k].vreg;
        if (s->opstamp[v] != s->stamp) {
            s->opstamp[v] = s->stamp;
            s->opfl[v] = 0;
        }
        s->opfl[v] |= (uint8_t)((k < in->ndefs ? OPF_DEF : OPF_USE) | (ops[k].kind == RAVEL_C_FIXED ? OPF_FIXED : 0));
    }
}

static inline __attribute__((always_inline)) uint8_t opf(const sa *s, uint32_t v) { return s->opstamp[v] == s->stamp ? s->opfl[v] : 0; }

/* The live-across values of class cls at instruction i (the live set
 * holds what is live after i): in the live set, in registers (root not
 * spilled), not defined by i. */
static uint32_t across(sa *s, const rv_inst *in, const rv_operand *ops, uint32_t cls)
{
    uint32_t n = s->inreg[cls];
    for (uint32_t d = 0; d < in->ndefs; d++) {
        uint32_t w = ops[d].vreg;
        if (vcls(s, w) != cls || !in_live(s, w) || vspilled(s, w)) continue;
        bool first = true; /* a value defined twice counts once */
        for (uint32_t d2 = 0; d2 < d; d2++) first &= ops[d2].vreg != w;
        n -= first;
    }
    return n;
}

/* Registers class cls needs at instruction i: the live-across values,
 * plus the operands' needs or the registers the instruction clobbers (no
 * value survives in those), whichever is more. */
static uint32_t pressure(sa *s, uint32_t i, uint32_t cls)
{
    const rv_inst *in = rv_inst_at(s->f, i);
    const rv_operand *ops = rv_ops_of(s->f, in);
    uint32_t uses = 0, early = 0, defs = 0;
    for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++) {
        const rv_operand *o = &ops[u];
        if (vcls(s, o->vreg) != cls || (in_live(s, o->vreg) && !vspilled(s, o->vreg))) continue;
        if (o->kind == RAVEL_C_STACK || (o->kind == RAVEL_C_ANY && vspilled(s, o->vreg))) continue;
        bool first = true; /* count a value read twice once */
        for (uint32_t u2 = in->ndefs; u2 < u; u2++) first &= ops[u2].vreg != o->vreg;
        uses += first;
    }
    for (uint32_t d = 0; d < in->ndefs; d++) {
        const rv_operand *o = &ops[d];
        if (vcls(s, o->vreg) != cls || o->kind == RAVEL_C_STACK || (o->kind == RAVEL_C_ANY && vspilled(s, o->vreg))) continue;
        defs++;
        early += rv_op_is_early(o);
    }
    uint32_t need = uses + early > defs ? uses + early : defs;
    /* registers the instruction clobbers hold no value across it */
    const uint32_t *clob;
    uint32_t nclob = rv_inst_clobbers(s->f, in, &clob), lost = 0;
    for (uint32_t q = 0; q < nclob; q++) lost += s->ridx[clob[q]] != RAVEL_NONE && s->m->regs.data[clob[q]].cls == cls;
    return across(s, in, ops, cls) + (lost > need ? lost : need);
}

/* Spills, at instruction i, the live-across values of class cls with the
 * farthest next use until the class fits. The candidates and their next
 * uses are gathered once: a spill only removes candidates (its root's). */
static void relieve(sa *s, uint32_t i, uint32_t cls)
{
    uint32_t K = s->m->classes.data[cls].alloc.len, ncand = 0;
    bool gathered = false;
    while (pressure(s, i, cls) > K) {
        if (!gathered) {
            for (uint32_t k = 0; k < s->lset.n; k++) {
                uint32_t w = s->lset.dense[k];
                if (vcls(s, w) != cls || vspilled(s, w) || (opf(s, w) & (OPF_DEF | OPF_USE))) continue;
                s->cand[ncand] = w;
                s->cand_d[ncand++] = next_use(s, w, rv_point_late(i));
            }
            gathered = true;
        }
        uint32_t best = RAVEL_NONE, bd = 0;
        for (uint32_t k = 0; k < ncand; k++) {
            uint32_t w = s->cand[k], d = s->cand_d[k];
            if (vspilled(s, w)) continue;
            if (best == RAVEL_NONE || d > bd || (d == bd && w < best)) {
                best = w;
                bd = d;
            }
        }
        if (best == RAVEL_NONE) return; /* only operands left: assign.c copes or reports */
        spill_root(s, s->group[best]);
        rv_alloc_trace(s->opts, "ssa", "spill v%u (virtual register of v%u) at inst %u", s->f->vregs.data[best].num,
                       s->f->vregs.data[s->group[best]].num, i);
    }
}

/* The class-local bit of register r for class cls, or 0 (see avoid). */
static uint64_t reg_bit(const sa *s, uint32_t r, uint32_t *cls)
{
    if (r >= s->nregs || s->ridx[r] >= 64 || s->m->regs.data[r].cls >= s->m->classes.len) return 0;
    *cls = s->m->regs.data[r].cls;
    return (uint64_t)1 << s->ridx[r];
}

/* Registers instruction i clobbers or fixes for another value are to be
 * avoided by the values live across it. */
static void note_avoid(sa *s, uint32_t i)
{
    const rv_inst *in = rv_inst_at(s->f, i);
    const rv_operand *ops = rv_ops_of(s->f, in);
    const uint32_t *clob;
    uint32_t nclob = rv_inst_clobbers(s->f, in, &clob), nops = (uint32_t)in->ndefs + in->nuses;
    bool fixed = false;
    for (uint32_t k = 0; k < nops; k++) fixed |= ops[k].kind == RAVEL_C_FIXED;
    if (!nclob && !fixed) return;
    memset(s->clobmask, 0, sizeof(uint64_t) * s->ncls);
    memset(s->fixmask, 0, sizeof(uint64_t) * s->ncls);
    for (uint32_t q = 0; q < nclob; q++) {
        uint32_t c = 0;
        uint64_t bit = reg_bit(s, clob[q], &c);
        s->clobmask[c] |= bit;
    }
    for (uint32_t o = 0; fixed && o < nops; o++)
        if (ops[o].kind == RAVEL_C_FIXED) {
            uint32_t c = 0;
            uint64_t bit = reg_bit(s, ops[o].arg, &c);
            s->fixmask[c] |= bit;
        }
    for (uint32_t k = 0; k < s->lset.n; k++) {
        uint32_t w = s->lset.dense[k], c = vcls(s, w);
        if (!(s->clobmask[c] | s->fixmask[c])) continue; /* nothing of w's class to avoid here */
        uint8_t fl = opf(s, w);
        if (fl & OPF_DEF) continue;
        uint64_t m = s->clobmask[c];
        if (!(fl & OPF_FIXED)) { /* (w's own fixed operands are not to be avoided by w) */
            m |= s->fixmask[c];
        } else {
            for (uint32_t o = 0; o < nops; o++)
                if (ops[o].kind == RAVEL_C_FIXED && ops[o].vreg != w) {
                    uint32_t rc = UINT32_MAX;
                    uint64_t bit = reg_bit(s, ops[o].arg, &rc);
                    if (rc == c) m |= bit;
                }
        }
        s->avoid[w] |= m;
    }
}

/* A .ref value live across a safepoint would be stored, listed and
 * reloaded there in a register; in its slot it is only listed. */
static void spill_refs_across(sa *s)
{
    for (uint32_t k = 0; k < s->lset.n; k++) {
        uint32_t w = s->lset.dense[k];
        if (s->f->vregs.data[w].ref && !(opf(s, w) & OPF_DEF)) spill_root(s, s->group[w]);
    }
}

static void spill_block(sa *s, uint32_t b)
{
    const ravel_func *f = s->f;
    const rv_block *bl = &f->blocks.data[b];
    live_clear(s);
    const uint64_t *outb = s->lv.out + (size_t)b * s->lv.nwords;
    for (uint32_t w = 0; w < s->lv.nwords; w++)
        for (uint64_t bits = outb[w]; bits; bits &= bits - 1) live_add(s, w * 64 + (uint32_t)__builtin_ctzll(bits));
    for (uint32_t j = bl->ninsts; j-- > 0;) {
        uint32_t i = bl->first_inst + j;
        const rv_inst *in = rv_inst_at(f, i);
        const rv_operand *ops = rv_ops_of(f, in);
        for (uint32_t e = 0; e < rv_inst_nsuccs(in); e++) {
            const rv_succ *sc = &rv_inst_succs(f, in)[e];
            for (uint32_t k = 0; k < sc->nargs; k++) live_add(s, rv_succ_args(f, sc)[k]);
        }
        mark_ops(s, in, ops);
        if (in->flags & RV_IF_SAFEPOINT) spill_refs_across(s);
        for (uint32_t c = 0; c < s->m->classes.len; c++) relieve(s, i, c);
        note_avoid(s, i);
        for (uint32_t d = 0; d < in->ndefs; d++) live_del(s, ops[d].vreg);
        for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++) live_add(s, ops[u].vreg);
    }
}

/* ---- colouring ---- */

static void occupy(sa *s, uint32_t r, uint32_t v) { s->occ[r] = v; }

static bool reg_free(const sa *s, uint32_t r, uint32_t cls)
{
    return r < s->nregs && !s->m->regs.data[r].reserved && s->m->regs.data[r].cls == cls && s->occ[r] == RAVEL_NONE;
}

/* Gives v a free register (preferring pref[0..npref)); spills it if none. */
static bool avoided(const sa *s, uint32_t v, uint32_t r)
{
    return s->ridx[r] < 64 && (s->avoid[v] >> s->ridx[r]) & 1;
}

static void colour(sa *s, uint32_t v, const uint32_t *pref, uint32_t npref)
{
    uint32_t root = s->group[v], cls = vcls(s, v);
    if (s->spilled[root]) return;
    uint32_t r = RAVEL_NONE;
    /* preferences first, unless an instruction disturbs them while v lives */
    if (s->vr_color[root] != RAVEL_NONE && reg_free(s, s->vr_color[root], cls) && !avoided(s, v, s->vr_color[root]))
        r = s->vr_color[root];
    for (uint32_t k = 0; r == RAVEL_NONE && k < npref; k++)
        if (reg_free(s, pref[k], cls) && !avoided(s, v, pref[k])) r = pref[k];
    const rv_class *c = &s->m->classes.data[cls];
    for (uint32_t k = 0; r == RAVEL_NONE && k < c->alloc.len; k++) /* a register nothing disturbs while v lives */
        if (s->occ[c->alloc.data[k]] == RAVEL_NONE && !(k < 64 && (s->avoid[v] >> k) & 1)) r = c->alloc.data[k];
    for (uint32_t k = 0; r == RAVEL_NONE && k < c->alloc.len; k++)
        if (s->occ[c->alloc.data[k]] == RAVEL_NONE) r = c->alloc.data[k];
    if (r == RAVEL_NONE) {
        rv_alloc_trace(s->opts, "ssa", "no register for v%u: spilled", s->f->vregs.data[v].num);
        return; /* home stays RAVEL_NONE: its slot */
    }
    s->home[v] = r;
    occupy(s, r, v);
    if (s->vr_color[root] == RAVEL_NONE) s->vr_color[root] = r;
}

static void release(sa *s, uint32_t v)
{
    uint32_t r = s->home[v];
    if (r != RAVEL_NONE && s->occ[r] == v) s->occ[r] = RAVEL_NONE;
}

static bool live_after(const sa *s, uint32_t v, uint32_t i, bool term)
{
    return !term && rv_iv_covers(&s->iv, v, rv_point_early(i + 1));
}

static bool read_late(const rv_inst *in, const rv_operand *ops, uint32_t v)
{
    for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++)
        if (ops[u].vreg == v && rv_op_is_late(&ops[u])) return true;
    return false;
}

/* True if v has a use (operand or jump argument). */
static bool has_uses(const sa *s, uint32_t v)
{
    const rv_use_pos *u = rv_iv_uses(&s->iv, v);
    for (uint32_t k = 0; k < s->iv.iv[v].nuses; k++)
        if (!(u[k].flags & RV_UP_DEF)) return true;
    return false;
}

static void colour_inst(sa *s, uint32_t i)
{
    const rv_inst *in = rv_inst_at(s->f, i);
    const rv_operand *ops = rv_ops_of(s->f, in);
    bool term = rv_is_term(in);
    for (int late = 0; late < 2; late++) {
        if (late) /* early uses dying here release their registers to the late defs */
            for (uint32_t u = in->ndefs; u < (uint32_t)in->ndefs + in->nuses; u++)
                if (!live_after(s, ops[u].vreg, i, term) && !read_late(in, ops, ops[u].vreg)) release(s, ops[u].vreg);
        for (uint32_t d = 0; d < in->ndefs; d++) {
            const rv_operand *o = &ops[d];
            if (rv_op_is_late(o) != (late != 0)) continue;
            uint32_t pref[2], np = 0;
            if (o->kind == RAVEL_C_FIXED) pref[np++] = o->arg;
            if (o->kind == RAVEL_C_REUSE && o->arg < in->nuses) {
                const rv_operand *u = &ops[in->ndefs + o->arg];
                pref[np++] = u->kind == RAVEL_C_FIXED ? u->arg : s->home[u->vreg];
            }
            if (in->op == RAVEL_OP_COPY && in->nuses == 1) pref[np++] = s->home[ops[in->ndefs].vreg];
            colour(s, o->vreg, pref, np);
        }
    }
    for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) /* dead defs, late uses dying here */
        if (!live_after(s, ops[k].vreg, i, term)) release(s, ops[k].vreg);
}

static void colour_block(sa *s, uint32_t b)
{
    const ravel_func *f = s->f;
    const rv_block *bl = &f->blocks.data[b];
    for (uint32_t r = 0; r < s->nregs; r++) s->occ[r] = RAVEL_NONE;
    const uint64_t *inb = s->lv.in + (size_t)b * s->lv.nwords;
    for (uint32_t w = 0; w < s->lv.nwords; w++)
        for (uint64_t bits = inb[w]; bits; bits &= bits - 1) {
            uint32_t v = w * 64 + (uint32_t)__builtin_ctzll(bits);
            if (s->home[v] != RAVEL_NONE) occupy(s, s->home[v], v);
        }
    for (uint32_t p = 0; p < bl->nparams; p++) { /* parameters: prefer an argument's register */
        uint32_t v = rv_block_params(f, bl)[p], pref[4], np = 0;
        for (uint32_t q = s->cfg.pred_start[b]; q < s->cfg.pred_start[b + 1] && np < 4; q++) {
            const rv_inst *t = rv_block_term(f, &f->blocks.data[s->cfg.pred[q]]);
            for (uint32_t e = 0; e < rv_inst_nsuccs(t) && np < 4; e++) {
                const rv_succ *sc = &rv_inst_succs(f, t)[e];
                if (sc->block == b && p < sc->nargs && s->home[rv_succ_args(f, sc)[p]] != RAVEL_NONE)
                    pref[np++] = s->home[rv_succ_args(f, sc)[p]];
            }
        }
        colour(s, v, pref, np);
    }
    for (uint32_t p = 0; p < bl->nparams; p++) { /* unused parameters hold nothing */
        uint32_t v = rv_block_params(f, bl)[p];
        if (!has_uses(s, v)) release(s, v);
    }
    for (uint32_t j = 0; j < bl->ninsts; j++) colour_inst(s, bl->first_inst + j);
}

/* Dominator-tree preorder (reachable blocks), then the unreachable ones. */
static void colour_all(sa *s)
{
    uint32_t n = s->cfg.nblocks;
    uint32_t *kids = rv_xmalloc(sizeof(uint32_t) * (4 * (size_t)n + 5)), *start = kids + n + 1;
    uint32_t *fill = start + n + 2, *stack = fill + n + 1, sp = 0;
    memset(start, 0, sizeof(uint32_t) * (n + 2));
    for (uint32_t b = 0; b < n; b++)
        if (s->cfg.idom[b] != RAVEL_NONE && b != 0) start[s->cfg.idom[b] + 1]++;
    for (uint32_t b = 0; b < n; b++) start[b + 1] += start[b];
    memcpy(fill, start, sizeof(uint32_t) * (n + 1));
    for (uint32_t b = 0; b < n; b++)
        if (s->cfg.idom[b] != RAVEL_NONE && b != 0) kids[fill[s->cfg.idom[b]]++] = b;
    if (n) stack[sp++] = 0;
    while (sp) {
        uint32_t b = stack[--sp];
        colour_block(s, b);
        for (uint32_t k = start[b + 1]; k-- > start[b];) stack[sp++] = kids[k];
    }
    for (uint32_t b = 0; b < n; b++)
        if (s->cfg.rpo_index[b] == RAVEL_NONE) colour_block(s, b);
    rv_free(kids); /* (and start, fill, stack) */
}

ravel_func *rv_alloc_ssa(const ravel_func *f, const rv_alloc_opts *o, char **err)
{
    sa s;
    memset(&s, 0, sizeof s);
    s.f = f;
    s.m = f->mach;
    s.opts = o;
    s.nv = f->vregs.len;
    s.nregs = s.m->regs.len;
    rv_cfg_build(&s.cfg, f);
    if (rv_liveness_bytes(f, &s.cfg) > RV_LIVENESS_MAX_BYTES) {
        if (err) *err = rv_alloc_errorf(f, RAVEL_NONE, "too large: liveness over %u blocks and %u vregs exceeds the memory limit",
                                        s.cfg.nblocks, s.nv);
        rv_cfg_free(&s.cfg);
        return NULL;
    }
    rv_liveness_build(&s.lv, f, &s.cfg);
    rv_intervals_build(&s.iv, f, &s.cfg, &s.lv);
    uint32_t nv = s.nv + 1, nr = s.nregs + 1, nc = s.ncls = s.m->classes.len + 1;
    /* one block: 64-bit arrays first, then 32-bit, then bytes */
    size_t n64 = (size_t)nv + 2 * (size_t)nc, n32 = 10 * (size_t)nv + 2 * (size_t)nr + nc;
    uint64_t *p64 = s.mem = rv_xmalloc(sizeof(uint64_t) * n64 + sizeof(uint32_t) * n32 + 3 * (size_t)nv);
    s.avoid = p64, s.clobmask = p64 + nv, s.fixmask = p64 + nv + nc;
    uint32_t *p32 = (uint32_t *)(p64 + n64);
    s.parent = p32, s.vr_color = p32 + nv, s.home = p32 + 2 * (size_t)nv, s.group = p32 + 3 * (size_t)nv;
    s.lset.dense = p32 + 4 * (size_t)nv, s.lset.pos = p32 + 5 * (size_t)nv, s.occ = p32 + 6 * (size_t)nv;
    s.ridx = s.occ + nr, s.inreg = s.ridx + nr, s.root_live = s.inreg + nc;
    s.opstamp = s.root_live + nv, s.cand = s.opstamp + nv, s.cand_d = s.cand + nv;
    s.spilled = (bool *)(p32 + n32), s.cls = (uint8_t *)(s.spilled + nv), s.opfl = s.cls + nv;
    memset(s.avoid, 0, sizeof(uint64_t) * nv);
    memset(s.vr_color, 0xff, sizeof(uint32_t) * nv);
    memset(s.home, 0xff, sizeof(uint32_t) * nv);
    memset(s.lset.pos, 0, sizeof(uint32_t) * nv);
    memset(s.root_live, 0, sizeof(uint32_t) * nv);
    memset(s.opstamp, 0, sizeof(uint32_t) * nv);
    memset(s.inreg, 0, sizeof(uint32_t) * nc);
    memset(s.ridx, 0xff, sizeof(uint32_t) * nr);
    memset(s.spilled, 0, nv);
    for (uint32_t v = 0; v < s.nv; v++) s.cls[v] = f->vregs.data[v].cls;
    for (uint32_t k = 0; k < s.m->classes.len; k++)
        for (uint32_t x = 0; x < s.m->classes.data[k].alloc.len; x++) s.ridx[s.m->classes.data[k].alloc.data[x]] = x;
    build_vregs(&s);
    for (uint32_t v = 0; v < s.nv; v++) s.group[v] = find(&s, v); /* the unions are final */
    for (uint32_t b = 0; b < s.cfg.nblocks; b++) spill_block(&s, b);
    colour_all(&s);
    rv_assign_in ai = {f, &s.cfg, &s.lv, s.home, s.group, NULL};
    ravel_func *g = rv_assign_emit(&ai, err);
    rv_free(s.mem);
    rv_intervals_free(&s.iv);
    rv_liveness_free(&s.lv);
    rv_cfg_free(&s.cfg);
    return g;
}
