/* ck_vn_smap.c - PRECISION. The value-numbering verdict's stackmap
 * candidates: a stackmap slot must hold a .ref name that some vreg has
 * (ck_vn.c explains the names). When no vreg has that very name at the
 * safepoint, a few candidates are chosen - vregs whose names there may be
 * equal to it - and after the walk the first whose equality, with all it
 * implies, holds is assumed (a trial of ck_vn_rel.c, the proof); a
 * failed trial is undone and remembered. Only the choice is made here: a
 * bad candidate, or none, answers "not proven", never a wrong proof.
 * Requires: the walk's state (ck_vn.c); its joins note the .ref vregs
 * given each block's phis (jlist), the candidates of later reads. */
#include "ck_vn.h"

#include <string.h>

/* ---- the part of the context owned here ---- */

void vn_smap_init(vn_smap *x) { memset(x, 0, sizeof *x); }

void vn_smap_free(vn_smap *x)
{
    rv_vec_free(x->soft);
    rv_vec_free(x->cand);
    rv_vec_free(x->nsoft);
    rv_vec_free(x->jlist);
    rv_vec_free(x->jpool);
    rv_free(x->fset);
    vn_smap_init(x);
}

size_t vn_smap_memory(const vn_smap *x)
{
#define M(v) ((size_t)x->v.cap * sizeof *x->v.data)
    return (size_t)x->fcap * 8 + M(soft) + M(cand) + M(nsoft) + M(jlist) + M(jpool);
#undef M
}

/* (fset is empty here: ck_vn_verdict empties it after each walk, so which
 * paths a check takes does not depend on the check before it) */
void vn_smap_reset(vn_smap *x, uint32_t nblocks)
{
    x->soft.len = x->cand.len = 0;
    x->jpool.len = x->jlist.len = 0;
    rv_vec_reserve(x->jlist, nblocks);
    x->jlist.len = nblocks;
    memset(x->jlist.data, 0, (size_t)nblocks * sizeof *x->jlist.data);
}

void vn_smap_forget(vn_smap *x)
{
    if (x->fcount) memset(x->fset, 0, (size_t)x->fcap * sizeof *x->fset);
    x->fcount = 0;
}

/* ---- the candidates ---- */

/* After join made block b's placeholders (V->flow.qpool from q0 on, np
 * operands each): a location's placeholder's witness (for stackmaps), a
 * vreg whose placeholder came in with the same names, or with names
 * assumed equal so far (most likely the one the location carries around
 * the loop). */
void vn_placeholder_witnesses(vn *W, uint32_t b, uint32_t q0, uint32_t np)
{
    struct ck_vn *V = W->V;
    uint32_t nq = V->flow.qpool.len - q0;
    for (uint32_t i = q0; i < V->flow.qpool.len; i++) {
        vn_ent q = V->flow.qpool.data[i];
        uint32_t id = q.name & VN_IDX, h = 0, o;
        if (q.var >= W->nlocs) continue;
        const uint32_t *oq = &V->names.ops.data[V->names.nops.data[id]];
        if ((o = vn_htab_find(V, b, oq, np, &h)) != CK_NIL) {
            V->names.nwit.data[id] = V->names.nwit.data[o];
            continue;
        }
        for (uint32_t j = q0; j < V->flow.qpool.len && nq <= 256; j++) {
            vn_ent r = V->flow.qpool.data[j];
            if (r.var < W->nlocs || r.var >= W->refvar || ((r.name ^ q.name) & VN_REF)) continue;
            const uint32_t *orr = &V->names.ops.data[V->names.nops.data[r.name & VN_IDX]];
            bool same = true;
            for (uint32_t k = 0; k < np && same; k++) same = vn_canon(V, oq[k]) == vn_canon(V, orr[k]);
            if (same) {
                V->names.nwit.data[id] = r.var - W->nlocs;
                break;
            }
        }
    }
}

/* The search queue of vn_stackmap as a set (issue 32: its linear
 * look-up per operand was a third of the search at 10^5 instructions):
 * open addressing over VN_QSET entries, at most 64 of them used (the
 * queue's bound), live when stamped with the search's stamp. */
static void qset_clear(vn_smap *S)
{
    if (++S->qstamp == 0) {
        memset(S->qst, 0, sizeof S->qst);
        S->qstamp = 1;
    }
}

/* Adds name o to the set; false if it was there. */
static bool qset_add(vn_smap *S, uint32_t o)
{
    _Static_assert(VN_QSET == 128, "the hash below gives 7 bits");
    for (uint32_t h = (o * 0x9e3779b1u) >> 25;; h = (h + 1) & (VN_QSET - 1)) {
        if (S->qst[h] != S->qstamp) {
            S->qst[h] = S->qstamp;
            S->qkey[h] = o;
            return true;
        }
        if (S->qkey[h] == o) return false;
    }
}

/* Stackmap: every listed slot holds a .ref vreg - a .ref name that a vreg
 * has (a witness whose name is, or is assumed, the same). */
bool vn_stackmap(vn *W, const rv_inst *in)
{
    const ravel_func *f = W->f;
    for (uint32_t k = 0; k < in->u.smap.n; k++) {
        uint32_t x = W->cur[vlix(W, ravel_slot(f->u32.data[in->u.smap.first + k]))];
        if (!(x & VN_REF)) return false;
        struct ck_vn *V = W->V;
        uint32_t i = x & VN_IDX, w1, w2;
        w1 = (x & VN_LEAF) ? V->names.leaves.data[i].last : V->names.nnew.data[i];
        w2 = (x & VN_LEAF) ? V->names.leaves.data[i].wit : V->names.nwit.data[i];
        if ((w1 != CK_NIL && W->cur[vreg_var(W, w1)] == x) || (w2 != CK_NIL && W->cur[vreg_var(W, w2)] == x))
            continue; /* a vreg has that very name */
        /* else one of a few vregs must have a name equal to it: which one
         * is settled after the walk (vn_settle_stackmaps). The candidates:
         * the vregs noted for x and for the names it is made of, breadth
         * first (a location's placeholder stands for what came in). */
        uint32_t c0 = V->smap.cand.len, q[64], nq = 0;
        if (!(x & VN_LEAF) && V->smap.nsoft.data[i]) {
            /* checked before: the candidates of then that still have their
             * names are candidates now (no search) */
            uint32_t s0 = V->smap.nsoft.data[i] - 1, p0 = V->smap.soft.data[s0 + 1], pn = V->smap.soft.data[s0 + 2];
            for (uint32_t j = 0; j < pn; j++) {
                vn_ent c = V->smap.cand.data[p0 + j];
                if (W->cur[vreg_var(W, c.var)] == c.name) rv_vec_push(V->smap.cand, c);
            }
            if (V->smap.cand.len - c0 == pn) { /* all still current: that record settles this read too */
                V->smap.cand.len = c0;
                continue;
            }
            if (V->smap.cand.len > c0) {
                V->smap.nsoft.data[i] = V->smap.soft.len + 1;
                rv_vec_push(V->smap.soft, x);
                rv_vec_push(V->smap.soft, c0);
                rv_vec_push(V->smap.soft, V->smap.cand.len - c0);
                continue;
            }
        }
        q[nq++] = x;
        qset_clear(&V->smap);
        qset_add(&V->smap, x);
        for (uint32_t qi = 0; qi < nq && V->smap.cand.len - c0 < 8; qi++) {
            uint32_t y = q[qi], yi = y & VN_IDX;
            uint32_t wa = (y & VN_LEAF) ? V->names.leaves.data[yi].last : V->names.nnew.data[yi];
            uint32_t wb = (y & VN_LEAF) ? V->names.leaves.data[yi].wit : V->names.nwit.data[yi];
            if (wa != CK_NIL) rv_vec_push(V->smap.cand, ((vn_ent){wa, W->cur[vreg_var(W, wa)]}));
            if (wb != CK_NIL && wb != wa) rv_vec_push(V->smap.cand, ((vn_ent){wb, W->cur[vreg_var(W, wb)]}));
            if (y & VN_LEAF) continue;
            uint32_t n = (yi + 1 < V->names.nops.len ? V->names.nops.data[yi + 1] : V->names.ops.len) - V->names.nops.data[yi];
            /* .ref vregs still holding a phi of y's block whose operands may
             * equal y's (no two different leaves side by side) */
            ck_list jl = V->smap.jlist.data[V->names.nblk.data[yi]];
            for (uint32_t j = 0; j < jl.len && V->smap.cand.len - c0 < 8; j++) {
                vn_ent je = V->smap.jpool.data[jl.start + j];
                if (W->cur[vreg_var(W, je.var)] != je.name || je.name == y) continue;
                const uint32_t *oa = &V->names.ops.data[V->names.nops.data[yi]], *ob = &V->names.ops.data[V->names.nops.data[je.name & VN_IDX]];
                bool fits = true;
                for (uint32_t kk = 0; kk < n && fits; kk++) {
                    uint32_t ca = vn_canon(V, oa[kk] == VN_SELF ? y : oa[kk]), cb = vn_canon(V, ob[kk] == VN_SELF ? je.name : ob[kk]);
                    fits = ca == cb || ca == VN_SKIP || cb == VN_SKIP || (ca && cb && !((ca & cb) & VN_LEAF) && !((ca ^ cb) & VN_REF));
                }
                if (fits) rv_vec_push(V->smap.cand, je);
            }
            for (uint32_t j = 0; j < n && nq < 64; j++) {
                uint32_t o = V->names.ops.data[V->names.nops.data[yi] + j];
                if (o != VN_SKIP && o != VN_SELF && o && qset_add(&V->smap, o)) q[nq++] = o;
            }
        }
        if (V->smap.cand.len == c0) return false;
        if (!(x & VN_LEAF)) V->smap.nsoft.data[i] = V->smap.soft.len + 1;
        rv_vec_push(V->smap.soft, x);
        rv_vec_push(V->smap.soft, c0);
        rv_vec_push(V->smap.soft, V->smap.cand.len - c0);
    }
    return true;
}

/* The stackmap trials that failed, by (candidate, slot's name). */
static bool failed_has(const vn_smap *S, uint64_t key)
{
    if (!S->fcount) return false;
    uint32_t m = S->fcap - 1, h = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & m;
    for (; S->fset[h]; h = (h + 1) & m)
        if (S->fset[h] == key + 1) return true;
    return false;
}

static void failed_add(vn_smap *S, uint64_t key)
{
    if (2 * (S->fcount + 1) > S->fcap) {
        uint32_t ncap = S->fcap ? 2 * S->fcap : 256;
        uint64_t *t = rv_xcalloc(ncap, sizeof *t);
        for (uint32_t i = 0; i < S->fcap; i++) {
            if (!S->fset[i]) continue;
            uint32_t h = (uint32_t)(((S->fset[i] - 1) * 0x9e3779b97f4a7c15ull) >> 32) & (ncap - 1);
            while (t[h]) h = (h + 1) & (ncap - 1);
            t[h] = S->fset[i];
        }
        rv_free(S->fset);
        S->fset = t;
        S->fcap = ncap;
    }
    uint32_t m = S->fcap - 1, h = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & m;
    while (S->fset[h]) h = (h + 1) & m;
    S->fset[h] = key + 1; /* (names are never all ones: key + 1 is never 0) */
    S->fcount++;
}

/* After the walk's own assumptions hold: each stackmap read left open is
 * settled by the first candidate whose assumed equality (with all it
 * implies) holds (vn_try_relate: a failed try is undone). */
bool vn_settle_stackmaps(const ravel_checker *ck, struct ck_vn *V)
{
    for (uint32_t s = 0; s < V->smap.soft.len; s += 3) {
        uint32_t x = V->smap.soft.data[s], c0 = V->smap.soft.data[s + 1], nc = V->smap.soft.data[s + 2];
        bool ok = false;
        for (uint32_t j = 0; j < nc && !ok; j++) {
            uint32_t c = V->smap.cand.data[c0 + j].name;
            if (!c || ((c ^ x) & VN_REF)) continue;
            if (vn_canon(V, c) == vn_canon(V, x)) { /* (equal already, or both equal to one leaf) */
                ok = true;
                break;
            }
            uint64_t key = (uint64_t)c << 32 | x;
            if (failed_has(&V->smap, key)) continue; /* (a failed assumption fails again: the relation only grows) */
            ok = vn_try_relate(ck, V, c, x);
            if (!ok) failed_add(&V->smap, key);
        }
        if (!ok) return false;
    }
    return true;
}
