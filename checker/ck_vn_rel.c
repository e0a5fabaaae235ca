/* ck_vn_rel.c - PROOF. The value-numbering verdict's names and the
 * relation it assumes between them (ck_vn.c explains both): leaves and
 * phi nodes, hash-consed per join; classes of names assumed equal
 * (union-find), each union recorded as an obligation; verify, which
 * closes the relation (every obligation holds under the others); trials,
 * which the stackmap candidates use (ck_vn_smap.c): an assumption with
 * all it implies, undone when it fails. What this file answers is what the
 * proof rests on: relate and verify decide which reads are proven.
 * Requires: the CFG's dominator numbering (ck->cfg.g.dom_pre/dom_post). */
#include "ck_vn.h"

#include <string.h>

/* ---- the parts of the context owned here ---- */

void vn_names_init(vn_names *x) { memset(x, 0, sizeof *x); }

void vn_names_free(vn_names *x)
{
    rv_vec_free(x->nblk);
    rv_vec_free(x->nops);
    rv_vec_free(x->ops);
    rv_vec_free(x->leaves);
    rv_vec_free(x->nwit);
    rv_vec_free(x->nnew);
    rv_free(x->htab);
    vn_names_init(x);
}

size_t vn_names_memory(const vn_names *x)
{
#define M(v) ((size_t)x->v.cap * sizeof *x->v.data)
    return (size_t)x->hsize * 4 + M(nblk) + M(nops) + M(ops) + M(leaves) + M(nwit) + M(nnew);
#undef M
}

void vn_rel_init(vn_rel *x) { memset(x, 0, sizeof *x); }

void vn_rel_free(vn_rel *x)
{
    rv_vec_free(x->uf);
    rv_vec_free(x->ufleaf);
    rv_vec_free(x->pairs);
    rv_vec_free(x->snap);
    vn_rel_init(x);
}

size_t vn_rel_memory(const vn_rel *x)
{
#define M(v) ((size_t)x->v.cap * sizeof *x->v.data)
    return M(uf) + M(ufleaf) + M(pairs) + M(snap);
#undef M
}

/* ---- phi nodes ---- */

uint32_t vn_new_node(struct ck_vn *V, uint32_t b, uint32_t nops)
{
    uint32_t id = V->names.nblk.len;
    V->names.full |= id >= VN_IDX;
    rv_vec_push(V->names.nblk, b);
    rv_vec_push(V->names.nops, V->names.ops.len);
    rv_vec_push(V->rel.uf, id);
    rv_vec_push(V->rel.ufleaf, 0);
    rv_vec_push(V->names.nwit, CK_NIL);
    rv_vec_push(V->names.nnew, CK_NIL);
    rv_vec_push(V->smap.nsoft, 0);
    rv_vec_reserve(V->names.ops, nops);
    V->names.ops.len += nops;
    return id;
}

void vn_names_reset(struct ck_vn *V)
{
    V->names.nblk.len = V->names.nops.len = V->names.ops.len = V->rel.uf.len = V->rel.ufleaf.len = V->names.nwit.len = V->names.nnew.len = V->smap.nsoft.len = 0;
    vn_new_node(V, CK_NIL, 0); /* node 0: the unknown name, never a phi */
    V->rel.pairs.len = 0;
    V->names.nleaves = 0;
    V->names.full = false;
    V->names.leaves.len = 0;
}

static uint32_t hash_ops(uint32_t b, const uint32_t *o, uint32_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ b;
    for (uint32_t i = 0; i < n; i++) h = (h ^ o[i]) * 0xff51afd7ed558ccdull;
    return (uint32_t)(h ^ (h >> 29));
}

/* The phis of one join are hash-consed among themselves only (a phi
 * belongs to its block, and each block is entered once): a small table
 * per join, cleared for it, that stays in the cache. */
void vn_htab_prepare(struct ck_vn *V, uint32_t nrows)
{
    uint32_t cap = 16;
    while (cap < 2 * nrows) cap *= 2;
    if (cap > V->names.hsize) {
        rv_free(V->names.htab);
        V->names.htab = rv_xcalloc(cap, sizeof *V->names.htab);
        V->names.hsize = cap;
    } else {
        memset(V->names.htab, 0, (size_t)cap * sizeof *V->names.htab);
    }
    V->names.hcap = cap;
}

/* The phi of block b (the block being joined) with operands o[0..n)
 * (VN_SELF for back edges the var keeps, VN_SKIP for unreachable
 * in-edges), made once. */
uint32_t vn_htab_find(const struct ck_vn *V, uint32_t b, const uint32_t *o, uint32_t n, uint32_t *slot)
{
    uint32_t h = hash_ops(b, o, n) & (V->names.hcap - 1);
    for (uint32_t e; (e = V->names.htab[h]) != 0; h = (h + 1) & (V->names.hcap - 1))
        if (!memcmp(&V->names.ops.data[V->names.nops.data[e - 1]], o, n * sizeof *o)) return e - 1;
    *slot = h;
    return CK_NIL;
}

uint32_t vn_phi_of(struct ck_vn *V, uint32_t b, const uint32_t *o, uint32_t n, uint32_t ref)
{
    uint32_t h = 0, id = vn_htab_find(V, b, o, n, &h);
    if (id != CK_NIL) return id | ref; /* (same operands: same ref bit) */
    id = vn_new_node(V, b, n);
    memcpy(&V->names.ops.data[V->names.nops.data[id]], o, n * sizeof *o);
    V->names.htab[h] = id + 1;
    return id | ref;
}

/* ---- the assumed relation ---- */

static uint32_t uf_find(struct ck_vn *V, uint32_t x)
{
    uint32_t *p = V->rel.uf.data;
    if (V->rel.trial) { /* (no path halving: a trial undoes its own writes only) */
        while (p[x] != x) x = p[x];
        return x;
    }
    while (p[x] != x) {
        p[x] = p[p[x]];
        x = p[x];
    }
    return x;
}

/* Before a union-find write during a trial: remember node i's fields. */
static inline void uf_save(struct ck_vn *V, uint32_t i)
{
    if (!V->rel.trial) return;
    rv_vec_push(V->rel.snap, ((vn_ent){i, V->rel.uf.data[i]}));
    rv_vec_push(V->rel.snap, ((vn_ent){i, V->rel.ufleaf.data[i]}));
}

/* The block where name x is made (a phi's block, a leaf's def). */
static inline uint32_t name_block(const struct ck_vn *V, uint32_t x)
{
    return (x & VN_LEAF) ? V->names.leaves.data[x & VN_IDX].blk : V->names.nblk.data[x & VN_IDX];
}

/* Age of two names both in use at one point (so their blocks lie on one
 * chain of dominators): < 0 if x is older (made at a strict dominator of
 * y's block, or a phi of the block of leaf y), > 0 if y is older, 0 for
 * two phis of one block; CK_NIL-like 2 if the blocks are not comparable
 * (never expected: then nothing is assumed). */
static int age_cmp(const ravel_checker *ck, const struct ck_vn *V, uint32_t x, uint32_t y)
{
    uint32_t bx = name_block(V, x), by = name_block(V, y);
    if (bx == by) return (x & VN_LEAF) ? ((y & VN_LEAF) ? 2 : 1) : ((y & VN_LEAF) ? -1 : 0);
    const uint32_t *pre = ck->cfg.g.dom_pre, *post = ck->cfg.g.dom_post;
    if (pre[bx] <= pre[by] && post[by] <= post[bx]) return -1;
    if (pre[by] <= pre[bx] && post[bx] <= post[by]) return 1;
    return 2;
}

static void obligation(struct ck_vn *V, uint32_t young, uint32_t old)
{
    rv_vec_push(V->rel.pairs, young);
    rv_vec_push(V->rel.pairs, old);
}

/* Assumes names a and b, both in use at one point, equal; false if that
 * cannot hold. Classes: a union-find over phis whose root is the class's
 * oldest phi, and maybe a leaf older than all of them (ufleaf). Each union
 * records one obligation, checked by verify: the younger top equals the
 * older one (its operands on each in-edge of its block do). */
bool vn_relate(const ravel_checker *ck, struct ck_vn *V, uint32_t a, uint32_t b)
{
    if (a == b) return a != 0;
    if (!a || !b) return false;
    if ((a ^ b) & VN_REF) return false;  /* .ref vregs and others never share a name */
    if ((a & b) & VN_LEAF) return false; /* two different leaves */
    if (a & VN_LEAF) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    uint32_t ref = a & VN_REF; /* (classes are of one kind: roots and leaves carry it) */
    uint32_t ra = uf_find(V, a & VN_IDX);
    uint32_t la = V->rel.ufleaf.data[ra];
    if (b & VN_LEAF) {
        if (la) return la == b;
        if (age_cmp(ck, V, b, ra) != -1) return false; /* a leaf equal to an older value: never */
        uf_save(V, ra);
        V->rel.ufleaf.data[ra] = b;
        obligation(V, ra | ref, b);
        return true;
    }
    uint32_t rb = uf_find(V, b & VN_IDX);
    if (ra == rb) return true;
    uint32_t lb = V->rel.ufleaf.data[rb];
    int c = age_cmp(ck, V, ra, rb);
    if (c == 2) return false;
    uint32_t root = c <= 0 ? ra : rb, other = root == ra ? rb : ra;
    if (la && lb) {
        if (la != lb) return false; /* both equal one leaf: no obligation */
    } else if (la || lb) {
        uint32_t l = la ? la : lb, young = la ? rb : ra; /* the phi top of the class without the leaf */
        if (age_cmp(ck, V, l, young) != -1) return false;
        obligation(V, young | ref, l);
    } else {
        obligation(V, other | ref, root | ref); /* (two phis of one block: operand by operand) */
    }
    uf_save(V, other);
    uf_save(V, root);
    V->rel.uf.data[other] = root;
    V->rel.ufleaf.data[root] = la ? la : lb;
    return true;
}

/* The operand of name x on in-edge k of block b: its own operand if x is
 * a phi of b, else x itself. */
static inline uint32_t proj(const struct ck_vn *V, uint32_t x, uint32_t b, uint32_t k)
{
    if ((x & VN_LEAF) || V->names.nblk.data[x & VN_IDX] != b) return x;
    uint32_t o = V->names.ops.data[V->names.nops.data[x & VN_IDX] + k];
    return o == VN_SELF ? x : o;
}

/* A name's class so far: its leaf, or its root phi (0, SKIP, SELF: themselves). */
uint32_t vn_canon(struct ck_vn *V, uint32_t x)
{
    if (!x || x == VN_SKIP || x == VN_SELF || (x & VN_LEAF)) return x;
    uint32_t r = uf_find(V, x & VN_IDX);
    return V->rel.ufleaf.data[r] ? V->rel.ufleaf.data[r] : r | (x & VN_REF);
}

/* Obligation (y, o): y, a phi, equals the older (or same-block) name o:
 * on each reachable in-edge of y's block, y's operand equals o's (o's
 * own operand if o is a phi of that block too, else o itself). */
bool vn_verify(const ravel_checker *ck, struct ck_vn *V, uint32_t from)
{
    for (uint32_t i = from; i < V->rel.pairs.len; i += 2) {
        uint32_t y = V->rel.pairs.data[i], o = V->rel.pairs.data[i + 1];
        if (y & VN_LEAF) return false; /* (never recorded) */
        uint32_t blk = V->names.nblk.data[y & VN_IDX], n = npreds(ck, blk);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t py = proj(V, y, blk, k), po = proj(V, o, blk, k);
            if (py == VN_SKIP || po == VN_SKIP) continue;
            if (!vn_relate(ck, V, py, po)) return false;
        }
    }
    return true;
}

/* A trial (the stackmap candidates, ck_vn_smap.c): assumes a and b equal
 * with all it implies (the obligations it adds hold under the others),
 * or, if that fails, undoes its union-find writes, newest first, and its
 * obligations. */
bool vn_try_relate(const ravel_checker *ck, struct ck_vn *V, uint32_t a, uint32_t b)
{
    vn_rel *R = &V->rel;
    uint32_t p0 = R->pairs.len;
    R->snap.len = 0;
    R->trial = true;
    bool ok = vn_relate(ck, V, a, b) && vn_verify(ck, V, p0);
    R->trial = false;
    if (!ok) {
        for (uint32_t t = R->snap.len; t >= 2; t -= 2) {
            vn_ent u = R->snap.data[t - 2], l = R->snap.data[t - 1];
            R->uf.data[u.var] = u.name;
            R->ufleaf.data[l.var] = l.name;
        }
        R->pairs.len = p0;
    }
    return ok;
}
