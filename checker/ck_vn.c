/* ck_vn.c - PROOF. The value-numbering verdict: one pass over the
 * function that proves "the fixpoint reports no value error" for the
 * usual allocation, or answers "not proven" (the reference fixpoint,
 * ck_ref.c, then decides and reports). This file: the walk, the transfer,
 * single-def vregs and c(t); ck_vn.h maps the others (ck_vn_flow.c and
 * ck_vn_rel.c carry the proof with it; ck_vn_knobs.c and ck_vn_smap.c only
 * decide its precision).
 *
 * Idea. A state of docs/format.md section 6 says, per location, which vregs it
 * holds. Here every vreg and every location (both are *vars*) carries a
 * *name* instead, and location L holds vreg v iff name(L) == name(v) (0,
 * the unknown name, holds nothing). The transfer needs no sets at all:
 *   def v at L          v := fresh leaf, L := the same leaf (every stale
 *                       copy keeps the old name, so it no longer holds v)
 *   edit D <- S         D := name(S)
 *   copy d <- u (at S)  d := name(u), its location := name(S)
 *   clobber R           R := 0
 *   edge arguments      each parameter := name of its argument (at once)
 *   use of v at L       name(L) == name(v) != 0, or the pair is related
 *                       (below)
 * At a join every var whose name differs between the incoming edges gets
 * a phi name, hash-consed on (block, names on each edge): two vars share it
 * iff they agree on every edge, which is the meet's intersection exactly.
 * The walk is the dominator tree in reverse post-order with one dense
 * state and an undo log; an edge into a join carries the
 * vars changed since the join's idom (its delta).
 *
 * Loops without iteration. A loop header h gives every var the loop may
 * write (M(h): defs, locations written or clobbered, parameters of its
 * blocks, inner loops included; in a loop with a safepoint also every
 * location that may hold a .ref name, which the collector may empty;
 * vn_build_m scans the loop's blocks for it)
 * its own placeholder phi, whose operands on the back edges are filled in at
 * the latches, unless the var is unknown on an edge into the loop (then it
 * stays unknown: the meet). Vars the loop never writes keep their names
 * around it; every latch checks that premise over what changed since h,
 * so a write M(h) missed costs the proof, never soundness. Inside the loop
 * a read may then compare two different names that may still denote the
 * same value (a placeholder against the value it keeps, two placeholders
 * of vars that move together): such a pair is *assumed* equal and checked
 * after the walk. Both names are in use at the read, so their blocks lie
 * on one chain of dominators: a class of assumed-equal names (union-find)
 * has an oldest member, its top (a leaf, or the phi of the outermost
 * block), and each union obliges only the younger top to equal the older
 * one - its operand on each in-edge of its block equals the older name
 * there (that name's own operand if it is a phi of the same block). verify
 * closes the relation: every obligation holds under the others, no class
 * holds two leaves (a leaf is a fresh value: it equals no older name) or
 * the unknown name or names of both kinds (below). By induction over the
 * unions, at every block all members of a class in use there have related
 * operands on each in-edge, so the state the relation induces (L holds v
 * iff their names are related) is a post-fixpoint of the equations of docs/format.md section 6:
 * it lies below the greatest fixpoint of section 6, every read proven
 * here is proven there, and the fixpoint records no value error. A read of
 * two different leaves or of the unknown name, or an assumption that
 * fails, answers "not proven".
 *
 * Safepoints. A name is of .ref vregs only or of others only (a leaf
 * takes its vreg's kind, a phi mixing both kinds is unknown, and no
 * assumption relates two kinds), so the collector empties a location
 * holding a .ref name or leaves it (vsafepoint; with gc moving a listed
 * slot holding another name is emptied; the live part of a list of
 * the locations given .ref names says which may). A stackmap slot must
 * hold a .ref name that some vreg has: the vreg last given the name, or,
 * when it has another name now, one of a few candidates whose name at that
 * point is assumed equal after the walk (vn_settle_stackmaps: the first that
 * holds with all it implies; a failed try is undone).
 *
 * Irreducible cycles. A retreating edge u -> t whose target does not
 * dominate its source is a latch too: t gets a placeholder for every var
 * the blocks between c(t), a common dominator of t and u, and u may write
 * (P(t), vn_build_irr) and for every var its forward edges disagree on; u
 * fills their operands, and checks the premise over what changed since
 * c(t) on both dominator paths (record_entry, latch). Names stay on one
 * chain of dominators (a strict dominator of t dominates u), so the
 * relation and its proof above are unchanged.
 *
 * Not handled (answers "not proven" at once): a copy at a safepoint (its
 * source set loses some vregs), a copy between a .ref vreg and another, a
 * copy of a vreg to itself, misses left after VN_MAX_WALKS lazy walks
 * (ck_vn_knobs.c), an M(h) or P(t) larger than the budget,
 * join deltas past theirs (deep nests of joins), 2^30 leaves or phis.
 * Requires: ck_cfg_build, the guard (well-formed function), the rules
 * (with an error among them it answers "not proven" at once: then a
 * location may not exist). Uses its own scratch (ck->vn), kept between
 * calls. */
#include "ck_vn.h"

#include <stdlib.h>
#include <string.h>

/* ---- the context: its parts, and those owned here ---- */

static void vn_vars_init(vn_vars *x) { memset(x, 0, sizeof *x); }

static void vn_vars_free(vn_vars *x)
{
    rv_free(x->cur);
    rv_free(x->st);
    rv_free(x->aux);
    rv_free(x->st2);
    rv_vec_free(x->log);
    rv_vec_free(x->sdef);
    vn_vars_init(x);
}

static size_t vn_vars_memory(const vn_vars *x)
{
    return (size_t)x->cap * 4 * 4 + (size_t)x->log.cap * sizeof *x->log.data + (size_t)x->sdef.cap * sizeof *x->sdef.data;
}

static struct ck_vn *vn_new(void)
{
    struct ck_vn *V = rv_xmalloc(sizeof *V);
    vn_vars_init(&V->vars);
    vn_names_init(&V->names);
    vn_rel_init(&V->rel);
    vn_flow_init(&V->flow);
    vn_knobs_init(&V->knobs);
    vn_smap_init(&V->smap);
    return V;
}

void ck_vn_free(ravel_checker *ck)
{
    struct ck_vn *V = ck->vn;
    if (!V) return;
    vn_vars_free(&V->vars);
    vn_names_free(&V->names);
    vn_rel_free(&V->rel);
    vn_flow_free(&V->flow);
    vn_knobs_free(&V->knobs);
    vn_smap_free(&V->smap);
    rv_free(V);
    ck->vn = NULL;
}

size_t ck_vn_memory(const ravel_checker *ck)
{
    const struct ck_vn *V = ck->vn;
    if (!V) return 0;
    return vn_vars_memory(&V->vars) + vn_names_memory(&V->names) + vn_rel_memory(&V->rel) + vn_flow_memory(&V->flow) +
           vn_knobs_memory(&V->knobs) + vn_smap_memory(&V->smap);
}

/* ---- the state ---- */

static void rollback(vn *W, uint32_t mark)
{
    struct ck_vn *V = W->V;
    for (uint32_t i = V->vars.log.len; i > mark; i--) W->cur[V->vars.log.data[i - 1].var] = V->vars.log.data[i - 1].name;
    V->vars.log.len = mark;
}

static inline uint32_t new_leaf_of(vn *W, uint32_t v, bool undef)
{
    struct ck_vn *V = W->V;
    rv_vec_push(V->names.leaves, ((vn_leaf){W->block, v, CK_NIL, undef}));
    V->names.full |= V->names.nleaves >= VN_IDX;
    return VN_LEAF | ((V->vars.sdef.data[W->nlocs + v] & VN_SD_REF) ? VN_REF : 0) | (V->names.nleaves++ & VN_IDX);
}

static inline uint32_t new_leaf(vn *W, uint32_t v) { return new_leaf_of(W, v, false); }

/* ---- transfer ---- */

/* Name a (of a vreg) is the value of an undef, made in a block that
 * dominates the one being run: the vreg is in U (docs/format.md section
 * 14.2). (A single-def vreg's name stands elsewhere too, see vdef: there
 * it is not in U.) */
static bool undef_name(const vn *W, uint32_t a)
{
    if (!(a & VN_LEAF)) return false;
    const vn_leaf *l = &W->V->names.leaves.data[a & VN_IDX];
    return l->undef && vdom(W->ck, l->blk, W->block);
}

/* A read of v at location li: proven, or assumed (false: not proven). A
 * vreg in U is read anywhere. */
static inline bool vread(vn *W, uint32_t li, uint32_t v)
{
    uint32_t a = W->cur[vreg_var(W, v)], b = W->cur[li];
    if (a == b) return a != 0;
    if (__builtin_expect(W->V->vars.sdef.data[vreg_var(W, v)] & VN_SD_UPOSS, 0) && undef_name(W, a)) return true;
    return vn_relate(W->ck, W->V, a, b);
}

/* Def of v at li, with a fresh leaf (undef: the value of an undef); over:
 * the registers overlapping li hold nothing (all but an in-place copy). */
static void vdef_of(vn *W, uint32_t v, uint32_t li, bool undef, bool over)
{
    struct ck_vn *V = W->V;
    uint32_t n = new_leaf_of(W, v, undef), x = vreg_var(W, v);
    if (V->vars.sdef.data[x] & VN_SD_SINGLE) W->cur[x] = n;
    else vwrite(W, x, n);
    vset_loc(W, li, n);
    if (over && W->alias) vover(W, li);
}

static inline void vdef(vn *W, uint32_t v, uint32_t li)
{
    struct ck_vn *V = W->V;
    if (__builtin_expect(W->alias, 0)) {
        vdef_of(W, v, li, false, true);
        return;
    }
    uint32_t n = new_leaf(W, v), x = vreg_var(W, v);
    /* A single-def vreg's name is not logged (see single_defs): left as it is
     * once its def's subtree is done, it stands only where its def's block
     * does not dominate, where no location can hold a name equal to it (the
     * locations' writes are rolled back, and a leaf equals no older name
     * nor one of a block it does not dominate); deltas, M(h) and the
     * latches' premise leave such vregs out. */
    if (V->vars.sdef.data[x] & VN_SD_SINGLE) W->cur[x] = n;
    else vwrite(W, x, n); /* (a fresh leaf: always a change; its witness is v) */
    vset_loc(W, li, n);
}

/* The clobbers of in (spare: a remat's destination, else RAVEL_LOC_NONE):
 * each register, and those overlapping it, unknown, except those the
 * instruction defines when keep_defined. */
static void vclobber_reg(vn *W, const rv_inst *in, bool keep_defined, uint32_t reg, ravel_loc spare)
{
    uint32_t li = vlix(W, reg);
    if (W->cur[li] && reg != spare && !(keep_defined && rv_inst_defines_loc(W->f, in, reg))) vset(W, li, 0); /* (empty: nothing to do) */
}

static void vclobber(vn *W, const rv_inst *in, bool keep_defined, ravel_loc spare)
{
    const uint32_t *regs;
    uint32_t n = rv_inst_clobbers(W->f, in, &regs);
    for (uint32_t k = 0; k < n; k++) {
        vclobber_reg(W, in, keep_defined, regs[k], spare);
        if (regs[k] >= W->nal) continue;
        const uint32_t *o = W->al[regs[k]].over.data;
        for (uint32_t i = 0, no = W->al[regs[k]].over.len; i < no; i++) vclobber_reg(W, in, keep_defined, o[i], spare);
    }
}

/* A remat (section 14.3): its clobbers, then its destination holds what
 * value numbering does not name (the constant's vregs are left to the
 * reference: fewer facts, never a wrong one), the registers overlapping
 * it nothing. */
static void vremat(vn *W, const rv_inst *in)
{
    vclobber(W, in, false, in->u.edit.dst);
    uint32_t li = vlix(W, in->u.edit.dst);
    vset(W, li, 0);
    if (W->alias) vover(W, li);
}

/* The names of .ref vregs the listed slots of a safepoint hold (a
 * non-moving collector's roots), as a set: an open-addressing table in
 * V->flow.roots of 2^bits entries, at most 3/4 of them used (0 marks a
 * free entry: such a name is never 0). Replaces a sorted list and a
 * binary search per holder (issue 32: a tenth of a check with safepoints
 * went there); its room is about the sorted list's was (the largest
 * stackmap's length, rounded up to a power of two). */
static inline uint32_t root_slot(uint32_t x, uint32_t bits) { return (x * 0x9e3779b1u) >> (32 - bits); }

static uint32_t roots_clear(struct ck_vn *V, uint32_t n)
{
    uint32_t bits = 4; /* at least 16 entries, at most 3/4 full */
    while ((1u << bits) < n + n / 3 + 1 && bits < 31) bits++;
    V->flow.roots.len = 0;
    rv_vec_reserve(V->flow.roots, 1u << bits); /* (room for that many more than len) */
    V->flow.roots.len = 1u << bits;
    memset(V->flow.roots.data, 0, (size_t)V->flow.roots.len * sizeof *V->flow.roots.data);
    return bits;
}

static void roots_add(struct ck_vn *V, uint32_t bits, uint32_t x)
{
    uint32_t mask = (1u << bits) - 1, *t = V->flow.roots.data;
    for (uint32_t i = root_slot(x, bits);; i = (i + 1) & mask) {
        if (t[i] == x) return;
        if (!t[i]) {
            t[i] = x;
            return;
        }
    }
}

/* Name x (a name of .ref vregs) is among the roots. */
static bool rooted_name(const struct ck_vn *V, uint32_t bits, uint32_t x)
{
    uint32_t mask = (1u << bits) - 1;
    const uint32_t *t = V->flow.roots.data;
    for (uint32_t i = root_slot(x, bits);; i = (i + 1) & mask) {
        if (t[i] == x) return true;
        if (!t[i]) return false;
    }
}

/* The collector (docs/format.md section 6; its rule: ck_sem.h,
 * ck_gc_keeps). Names are of .ref vregs only or of none, so a location
 * loses all of its vregs or none: a location holding a .ref name keeps it
 * by the rule, rooted when a listed slot holds that name (fewer facts than
 * the rule when a listed slot holds a name only assumed equal: sound). A
 * location holding another name keeps it unless it is a listed slot with
 * gc moving, which vn_stackmap, just before, refused. The live part of
 * V->flow.rl lists every location that may hold a .ref name; the
 * survivors start a new one, appended as they are found. */
static bool vsafepoint(vn *W, const rv_inst *in)
{
    struct ck_vn *V = W->V;
    const ravel_func *f = W->f;
    uint32_t n = (in->flags & RV_IF_STACKMAP) ? in->u.smap.n : 0;
    bool moving = !f->mach->gc_nonmoving;
    uint32_t bits = moving ? 0 : roots_clear(V, n);
    uint32_t sl = vn_next_stamp(V), sd = vn_next_stamp(V); /* (both first: a wrap clears the marks) */
    for (uint32_t k = 0; k < n; k++) {
        uint32_t li = vlix(W, ravel_slot(f->u32.data[in->u.smap.first + k]));
        V->vars.st2[li] = sl;
        if (!moving && (W->cur[li] & VN_REF)) roots_add(V, bits, W->cur[li]);
    }
    uint32_t base = V->flow.rl.len; /* the survivors go after it (vset of 0 pushes nothing) */
    for (uint32_t i = W->cur[W->refvar]; i < base; i++) {
        uint32_t li = V->flow.rl.data[i], x = W->cur[li];
        if (V->vars.st[li] == sd || !(x & VN_REF)) continue;
        V->vars.st[li] = sd;
        bool rooted = !moving && rooted_name(V, bits, x);
        if (ck_gc_keeps(moving, true, V->vars.st2[li] == sl, rooted)) rv_vec_push(V->flow.rl, li);
        else vset(W, li, 0);
    }
    vset(W, W->refvar, base);
    return true;
}

/* How a copy whose read is proven writes its def (the reference's CM_*,
 * ck_ref_xfer.c): a full copy aliases, an in-place one is a fresh def
 * that leaves the registers overlapping it alone, a copy of a vreg in U
 * a fresh undefined value. */
enum { CM_FULL, CM_IN_PLACE, CM_UNDEF };

/* The mode of copy in of vreg u (name uname); false (not proven) when u
 * may be in U at the reference's fixpoint although its name does not say
 * so (its copy would move nothing there). */
static bool copy_mode(vn *W, const rv_inst *in, uint32_t u, uint32_t uname, uint32_t *mode)
{
    *mode = CM_FULL;
    if (__builtin_expect(W->V->vars.sdef.data[vreg_var(W, u)] & VN_SD_UPOSS, 0)) {
        if (!undef_name(W, uname)) return false;
        *mode = CM_UNDEF;
        return true;
    }
    if (W->alias && ck_copy_in_place(W->ck, in)) *mode = CM_IN_PLACE;
    return true;
}

static void vcopy_def(vn *W, uint32_t mode, uint32_t d, uint32_t li, uint32_t uname, uint32_t srcname)
{
    if (mode != CM_FULL) {
        vdef_of(W, d, li, mode == CM_UNDEF, mode == CM_UNDEF);
        return;
    }
    vset(W, vreg_var(W, d), uname);
    vset(W, li, srcname);
    if (W->alias) vover(W, li);
}

/* The order of docs/format.md section 6's transfer: early defs, early uses, clobbers, late
 * defs, late uses; a copy whose read is proven aliases. */
static bool vop(vn *W, const rv_inst *in)
{
    const rv_operand *o = W->ops + in->first_op;
    uint32_t nd = in->ndefs, n = nd + in->nuses;
    if (!(in->flags & (RV_IF_SAFEPOINT | RV_IF_STACKMAP)) && in->op != RAVEL_OP_COPY) {
        /* the usual op (ck_op_plain): uses, clobbers, defs, in one pass
         * over the operands while it stays usual (a read is repeated
         * harmlessly by the general order below if it does not) */
        bool plain = true;
        for (uint32_t k = nd; k < n && plain; k++) {
            if (rv_op_is_late(&o[k])) plain = false;
            else if (!vread(W, vlix(W, o[k].loc), o[k].vreg)) return false;
        }
        for (uint32_t k = 0; k < nd && plain; k++) plain = rv_op_is_late(&o[k]);
        if (plain) {
            if ((in->flags & RV_IF_CLOBBERS) || in->op == RAVEL_OP_CALL) vclobber(W, in, false, RAVEL_LOC_NONE);
            if (__builtin_expect(in->op == RAVEL_OP_UNDEF, 0)) {
                for (uint32_t k = 0; k < nd; k++) vdef_of(W, o[k].vreg, vlix(W, o[k].loc), true, true);
                return true;
            }
            for (uint32_t k = 0; k < nd; k++) vdef(W, o[k].vreg, vlix(W, o[k].loc));
            return true;
        }
    }
    /* a copy aliases when its use is read at step 2 (a late use makes it a
     * plain def, as in the reference) */
    bool copy = in->op == RAVEL_OP_COPY && nd == 1 && in->nuses >= 1 && !rv_op_is_late(&o[1]);
    if (copy && (in->flags & RV_IF_SAFEPOINT)) return false; /* (its source set loses its .ref vregs: left to the reference) */
    /* a copy between kinds (a .ref copy of an int, or back) would give a
     * name of one kind to vregs of both, which the safepoint rule cannot
     * tell apart: left to the reference */
    if (copy && W->f->vregs.data[o[0].vreg].ref != W->f->vregs.data[o[1].vreg].ref) return false;
    uint32_t srcname = 0, uname = 0, mode = CM_FULL;
    for (uint32_t k = 0; k < nd; k++)
        if (!rv_op_is_late(&o[k])) vdef(W, o[k].vreg, vlix(W, o[k].loc));
    for (uint32_t k = nd; k < n; k++) {
        if (rv_op_is_late(&o[k])) continue;
        uint32_t li = vlix(W, o[k].loc);
        if (!vread(W, li, o[k].vreg)) return false;
        if (copy && k == nd) {
            if (o[0].vreg == o[k].vreg) return false;
            srcname = W->cur[li];
            uname = W->cur[vreg_var(W, o[k].vreg)];
            if (!copy_mode(W, in, o[k].vreg, uname, &mode)) return false;
        }
    }
    if (copy && !rv_op_is_late(&o[0])) /* an early-def copy aliases right after its read */
        vcopy_def(W, mode, o[0].vreg, vlix(W, o[0].loc), uname, srcname);
    if (!rv_is_term(in)) { /* step 3: the stackmap's reads, clobbers, the collector */
        if ((in->flags & RV_IF_STACKMAP) && (W->uref || !vn_stackmap(W, in))) return false;
        vclobber(W, in, true, RAVEL_LOC_NONE);
        if ((in->flags & RV_IF_SAFEPOINT) && !vsafepoint(W, in)) return false;
    }
    for (uint32_t k = 0; k < nd; k++) {
        if (!rv_op_is_late(&o[k])) continue;
        uint32_t li = vlix(W, o[k].loc);
        if (copy) vcopy_def(W, mode, o[k].vreg, li, uname, srcname);
        else vdef(W, o[k].vreg, li);
    }
    for (uint32_t k = nd; k < n; k++)
        if (rv_op_is_late(&o[k]) && !vread(W, vlix(W, o[k].loc), o[k].vreg)) return false;
    return true;
}

static bool vblock(vn *W, uint32_t b)
{
    const ravel_func *f = W->f;
    const rv_block *bl = &f->blocks.data[b];
    const rv_inst *in = rv_inst_at(f, bl->first_inst), *end = in + bl->ninsts;
    for (; in < end; in++) {
        CK_PREFETCH_AHEAD(in, 12);
        if (rv_is_edit(in)) {
            if (__builtin_expect(in->op == RAVEL_OP_REMAT, 0)) {
                vremat(W, in);
                continue;
            }
            uint32_t d = vlix(W, in->u.edit.dst);
            vset_loc(W, d, W->cur[vlix(W, in->u.edit.src)]);
            if (__builtin_expect(W->alias, 0)) vover(W, d);
            continue;
        }
        if (!vop(W, in)) return false;
    }
    return true;
}

/* ---- what the walk relies on: single-def vregs, c(t) ---- */

/* Marks (VN_SD_UPOSS in sd, per vreg) every vreg that may be in U at the
 * reference's fixpoint: the defs of undef ops, then those of copies of
 * marked vregs and the parameters bound to marked arguments, to a
 * fixpoint (a function with undef ops only). W->uref: a .ref one is. */
static void undef_closure(vn *W, uint8_t *sd)
{
    const ravel_func *f = W->f;
    for (bool more = true; more;) {
        more = false;
        for (uint32_t b = 0; b < f->layout.len; b++) {
            const rv_block *bl = &f->blocks.data[b];
            for (uint32_t i = 0; i < bl->ninsts; i++) {
                const rv_inst *in = rv_inst_at(f, bl->first_inst + i);
                const rv_operand *o = rv_ops_of(f, in);
                uint32_t v = CK_NIL;
                if (in->op == RAVEL_OP_UNDEF && in->ndefs) v = o[0].vreg;
                else if (in->op == RAVEL_OP_COPY && in->ndefs == 1 && in->nuses >= 1 && (sd[o[1].vreg] & VN_SD_UPOSS)) v = o[0].vreg;
                for (uint32_t k = 0; k < rv_inst_nsuccs(in); k++) {
                    const rv_succ *e = &rv_inst_succs(f, in)[k];
                    const uint32_t *args = rv_args_of(f, e), *params = rv_params_of(f, &f->blocks.data[e->block]);
                    for (uint32_t a = 0; a < e->nargs; a++)
                        if ((sd[args[a]] & VN_SD_UPOSS) && !(sd[params[a]] & VN_SD_UPOSS)) sd[params[a]] |= VN_SD_UPOSS, more = true;
                }
                if (v != CK_NIL && !(sd[v] & VN_SD_UPOSS)) sd[v] |= VN_SD_UPOSS, more = true;
            }
        }
    }
    for (uint32_t v = 0; v < W->ck->nvregs; v++) W->uref |= (sd[v] & (VN_SD_UPOSS | VN_SD_REF)) == (VN_SD_UPOSS | VN_SD_REF);
}

/* Single-def vregs (V->vars.sdef). v has one assignment in the function:
 * one def, never a parameter (nor an argument or a copy source: the
 * guard's notes do not tell those apart). Then in the walk v's name is 0
 * at every block its def's block B does not dominate (by induction in
 * reverse post-order: the entry has 0; a block with one in-edge has its
 * idom's, not dominated by B either; a join or header has an in-edge (a
 * forward one) from a block B does not dominate, whose 0 the meet keeps),
 * so at the header of every loop holding B, and at B itself if it is the
 * header, where its forward edges bring 0: a loop that writes v needs no
 * placeholder for it (join() would give it 0 anyway), and leaving v out
 * of M(h), out of join deltas and out of the latches' premise saves the
 * bookkeeping. (Not a knob: a vreg taken as single-def wrongly would be
 * left out of the premise.) Also each vreg's kind (VN_SD_REF). */
static void single_defs(vn *W)
{
    ravel_checker *ck = W->ck;
    struct ck_vn *V = W->V;
    uint32_t nv = W->refvar + 1;
    V->vars.sdef.len = 0;
    rv_vec_reserve(V->vars.sdef, nv);
    V->vars.sdef.len = nv;
    memset(V->vars.sdef.data, 0, W->nlocs);
    V->vars.sdef.data[W->refvar] = 0;
    bool notes = ck->facts.gnf_ok && !(ck->opts & CK_OPT_NEED_SCAN);
    const ck_gn *gn = ck->facts.gn;
    const rv_vreg *vr = W->f->vregs.data;
    uint32_t want = notes ? (ck->facts.gnstamp << 3) | GN_DEF : 0;
    uint8_t *sd = V->vars.sdef.data + W->nlocs;
    for (uint32_t v = 0; v < ck->nvregs; v++)
        sd[v] = (uint8_t)((notes && gn[v].tag == want) | (vr[v].ref ? VN_SD_REF : 0));
    W->alias = ck->ext.alias;
    W->al = W->f->mach->alias.data;
    W->nal = !W->alias ? 0 : W->f->mach->alias.len < W->nregs ? W->f->mach->alias.len : W->nregs;
    W->uref = false;
    if (ck->ext.undef) undef_closure(W, sd);
}

/* A retreating edge u -> t whose target does not dominate its source (an
 * irreducible edge; ck->cfg.retreat[t]). Let c(t) be the outermost of the
 * nearest common dominators of t and its irreducible predecessors u (they
 * all lie on t's chain of dominators; c(t) dominates every such u, and
 * c(t) != t). A var can have different names at t's entry and at the end
 * of u only if a block on a path from c(t) to t or to u, c(t) excluded,
 * writes it: such paths end in u (t itself reaches u), so these blocks are
 * the region R(t), the blocks that reach some u without passing through
 * c(t) (every one is strictly dominated by c(t), and so are their
 * predecessors other than c(t): the search stays below it). The vars R(t)
 * writes get a placeholder at t (P(t), ck_vn_knobs.c), as M(h) at a
 * header; the latch of u then checks the premise over what changed since
 * c(t) on both dominator paths (record_entry, latch), which is why c(t)
 * must be a common dominator: this is the proof's. Here: c(t) of every
 * target (V->flow.ic, CK_NIL for other blocks), and the steps it took
 * (P(t)'s budget counts them). */
static void irr_heads(vn *W)
{
    ravel_checker *ck = W->ck;
    struct ck_vn *V = W->V;
    uint32_t n = ck->nblocks;
    V->flow.ic.len = V->flow.icwork.len = V->flow.tlist.len = 0;
    rv_vec_reserve(V->flow.ic, n);
    rv_vec_reserve(V->flow.icwork, n);
    rv_vec_reserve(V->flow.tlist, n);
    V->flow.ic.len = V->flow.icwork.len = V->flow.tlist.len = n;
    memset(V->flow.ic.data, 0xff, (size_t)n * sizeof *V->flow.ic.data);
    V->flow.tpool.len = 0;
    for (uint32_t i = 0; i < ck->cfg.g.nrpo; i++) {
        uint32_t t = ck->cfg.g.rpo[i], c = CK_NIL, work = 0;
        if (!ck->cfg.retreat.data[t]) continue;
        for (uint32_t p = ck->cfg.g.pred_start[t]; p < ck->cfg.g.pred_start[t + 1]; p++) {
            uint32_t u = ck->cfg.g.pred[p], x = u;
            if (!vn_irr_pred(ck, t, i, u)) continue;
            while (!vdom(ck, x, t)) x = ck->cfg.g.idom[x], work++;
            if (c == CK_NIL || vdom(ck, x, c)) c = x;
        }
        V->flow.ic.data[t] = c;
        V->flow.icwork.data[t] = work;
    }
}

/* ---- the walk ---- */

/* The walk's own parts at its start (the vars unknown, no log, no
 * delta), then the others'. */
static void walk_reset(vn *W)
{
    ravel_checker *ck = W->ck;
    struct ck_vn *V = W->V;
    uint32_t nv = ck->nlocs + ck->nvregs + 1; /* (+1: the pseudo-var refvar) */
    vn_vars *x = &V->vars;
    if (nv > x->cap) {
        uint32_t c = nv + nv / 2 + 16;
        x->cur = rv_xrealloc(x->cur, (size_t)c * sizeof *x->cur);
        x->aux = rv_xrealloc(x->aux, (size_t)c * sizeof *x->aux);
        rv_free(x->st);
        rv_free(x->st2);
        x->st = rv_xcalloc(c, sizeof *x->st);
        x->st2 = rv_xcalloc(c, sizeof *x->st2);
        x->cap = c;
    }
    memset(x->cur, 0, (size_t)nv * sizeof *x->cur);
    x->log.len = 0;
    vn_names_reset(V);
    vn_knobs_reset(W);
    vn_smap_reset(&V->smap, ck->nblocks);
    vn_flow_reset(W);
}

/* One walk over the dominator tree (false: not proven, or misses found). */
static bool walk(vn *W)
{
    ravel_checker *ck = W->ck;
    struct ck_vn *V = W->V;
    const ravel_func *f = W->f;
    V->flow.frames.len = 0;
    rv_vec_push(V->flow.frames, ((vn_frame){0, ck->cfg.g.dom_start[0], 0, 0}));
    bool first = true;
    while (V->flow.frames.len) {
        vn_frame *fr = &V->flow.frames.data[V->flow.frames.len - 1];
        uint32_t b = fr->block;
        if (first) { /* entering b */
            first = false;
            ck->nvisits++;
            if (b != 0) {
                if (npreds(ck, b) > 1 || ck_is_header(ck, b)) vn_join(W, b);
                else vn_enter_single(W, b);
            }
            if (V->flow.ic.data[b] != CK_NIL && !vn_record_entry(W, b)) return false;
            V->flow.hmark.data[b] = V->vars.log.len;
            W->block = b;
            if (!vblock(W, b)) return false;
            V->flow.mexit.data[b] = V->vars.log.len;
            const rv_inst *t = rv_block_term(f, &f->blocks.data[b]);
            for (uint32_t k = 0; k < rv_inst_nsuccs(t); k++) {
                uint32_t eidx = t->u.succ.first + k;
                const rv_succ *e = &f->succs.data[eidx];
                uint32_t s = e->block;
                if (ck->cfg.g.rpo_index[s] <= ck->cfg.g.rpo_index[b]) { /* a retreating edge: a back edge, or an irreducible one (irr_heads) */
                    uint32_t p0 = ck->cfg.g.pred_start[s], j = 0;
                    while (ck->cfg.pedge.data[p0 + j] != eidx) j++;
                    if (!vn_latch(W, j, e)) return false;
                } else if (npreds(ck, s) > 1 || ck_is_header(ck, s)) {
                    if (!vn_record_delta(W, eidx, e)) return false;
                }
            }
            fr = &V->flow.frames.data[V->flow.frames.len - 1];
        }
        if (fr->next < ck->cfg.g.dom_start[b + 1]) {
            uint32_t c = ck->cfg.g.dom_child[fr->next++];
            rv_vec_push(V->flow.frames, ((vn_frame){c, ck->cfg.g.dom_start[c], V->vars.log.len, V->flow.rl.len}));
            first = true;
            continue;
        }
        rollback(W, fr->mark);
        V->flow.rl.len = fr->rlmark;
        V->flow.frames.len--;
    }
    return !V->knobs.miss.len;
}

/* The walk and the checks after it (ck_vn_verdict). M(h) over its budget
 * makes the walk lazy (ck_vn_knobs.c): a walk that finds misses is
 * followed by another with them added, at most VN_MAX_WALKS in all. */
static bool vn_walk(ravel_checker *ck)
{
    const ravel_func *f = ck->f;
    static const rv_operand none; /* (a function without operands) */
    vn W = {.ck = ck, .V = ck->vn, .f = f, .ops = f->ops.data ? f->ops.data : &none, .nlocs = ck->nlocs, .cur = NULL, .block = 0,
            .refvar = ck->nlocs + ck->nvregs, .nregs = ck->nregs};
    struct ck_vn *V = W.V;
    V->knobs.lazy = (ck->opts & CK_OPT_VN_LAZY) != 0;
    V->knobs.miss.len = V->knobs.xall.len = 0;
    for (uint32_t attempt = 0;; attempt++) {
        walk_reset(&W);
        W.cur = V->vars.cur;
        single_defs(&W);
        if (!vn_build_m(&W)) {
            if (V->knobs.lazy) return false;
            V->knobs.lazy = true; /* (over the budget: lazy from now on) */
            if (!vn_build_m(&W)) return false;
        }
        irr_heads(&W);
        if (!vn_build_irr(&W)) return false;
        bool ok = walk(&W);
        if (!V->knobs.miss.len) return ok && !V->names.full && vn_verify(ck, V, 0) && vn_settle_stackmaps(ck, V);
        if (attempt + 1 == VN_MAX_WALKS) return false;
        vn_index_misses(&W);
        vn_smap_forget(&V->smap); /* (the next walk's names are new) */
    }
}

bool ck_vn_verdict(ravel_checker *ck)
{
    if (!ck->cfg.g.nrpo) return true; /* (no reachable block: nothing to read) */
    /* The rules report every location that does not exist: the walk runs
     * only when they found nothing (else the reference decides,
     * and the report has errors anyway). */
    if (!ck->out.rep || ck->out.rep->errs.len) return false;
    if (!ck->vn) ck->vn = vn_new();
    bool ok = vn_walk(ck);
    vn_smap_forget(&ck->vn->smap);
    return ok;
}
