/* ck_vn.c - the value-numbering verdict: one pass over the function that
 * proves "the fixpoint reports no value error" for the usual allocation,
 * or answers "not proven" (the reference fixpoint, ck_ref.c, then decides
 * and reports).
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
 * build_m reads most of it from the guard's notes, taking every register)
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
 * point is assumed equal after the walk (settle_stackmaps: the first that
 * holds with all it implies; a failed try is undone).
 *
 * Irreducible cycles. A retreating edge u -> t whose target does not
 * dominate its source is a latch too: t gets a placeholder for every var
 * the blocks between c(t), a common dominator of t and u, and u may write
 * (P(t), build_irr) and for every var its forward edges disagree on; u
 * fills their operands, and checks the premise over what changed since
 * c(t) on both dominator paths (record_entry, latch). Names stay on one
 * chain of dominators (a strict dominator of t dominates u), so the
 * relation and its proof above are unchanged.
 *
 * Not handled (answers "not proven" at once): a copy at a safepoint (its
 * source set loses some vregs), a copy between a .ref vreg and another, a
 * copy of a vreg to itself, misses left after VN_MAX_WALKS lazy walks
 * (build_m), a P(t) larger than the budget,
 * join deltas past theirs (deep nests of joins), 2^30 leaves or phis.
 * Requires: ck_cfg_build, the guard (well-formed function), the rules
 * (with an error among them it answers "not proven" at once: then a
 * location may not exist). Uses its own scratch (ck->vn), kept between
 * calls. */
#include "ck.h"

#include <stdlib.h>
#include <string.h>

#define VN_LEAF 0x80000000u   /* name: a def (leaf number in the low bits), else a phi node */
#define VN_REF 0x40000000u    /* name: of .ref vregs (every name is of .ref vregs only or of others only) */
#define VN_IDX 0x3fffffffu    /* name: the leaf number or the phi node */
#define VN_SKIP 0xffffffffu   /* phi operand: unreachable in-edge */
#define VN_SELF 0xfffffffeu   /* phi operand: the phi itself (a var the loop keeps) */
#define VN_SD_SINGLE 1u       /* sdef: a single-def vreg (see build_m) */
#define VN_SD_REF 2u          /* sdef: a .ref vreg */

typedef struct vn_ent {
    uint32_t var, name;
} vn_ent;

typedef struct vn_leaf {
    uint32_t blk, wit, last; /* the block of its def, its vreg, the vreg last given it (CK_NIL: none) */
} vn_leaf;

typedef struct vn_frame {
    uint32_t block, next, mark, rlmark;
} vn_frame;

struct ck_vn {
    uint32_t var_cap;
    uint32_t *cur;          /* name of each var: locations 0..nlocs-1, vreg v at nlocs + v */
    uint32_t *st, *aux;     /* stamp marks and a per-var index */
    uint32_t *st2;
    uint32_t stamp;
    RV_VEC(vn_ent) log;     /* (var, old name) */
    RV_VEC(uint32_t) nblk, nops; /* per phi node (index 0 unused): block, first operand in ops */
    RV_VEC(uint32_t) ops;
    RV_VEC(uint32_t) uf, ufleaf; /* union-find over phi nodes, the root its class's oldest phi; the class's leaf (0: none) */
    RV_VEC(vn_leaf) leaves; /* per leaf */
    RV_VEC(uint32_t) nwit;  /* per phi node: a vreg that had it (CK_NIL: none known) */
    RV_VEC(uint32_t) nnew;  /* per phi node: the vreg last given it (CK_NIL: none) */
    RV_VEC(uint32_t) rl;    /* locations given .ref names; those from cur[refvar] on may hold one */
    RV_VEC(uint32_t) keep, roots; /* safepoint scratch */
    RV_VEC(uint32_t) soft;  /* stackmap reads to settle: (slot's name, first candidate, count), flat */
    RV_VEC(vn_ent) cand;    /* their candidates: (vreg, the name it had there) */
    RV_VEC(uint32_t) nsoft; /* per phi node: its last soft record + 1 (0: none) */
    RV_VEC(vn_ent) snap;    /* settle_stackmaps: a trial's union-find writes (node, old parent), (node, old leaf) */
    bool trial;
    uint32_t *htab, hcap, hsize; /* the current join's phis: node + 1 (hcap used of hsize) */
    RV_VEC(ck_list) edl;    /* per edge (index into f->succs): its delta in dpool */
    RV_VEC(vn_ent) dpool;
    RV_VEC(uint32_t) mexit; /* per block: log length at its exit */
    RV_VEC(uint32_t) hmark; /* per block: log length after its entry (its names made) */
    RV_VEC(uint8_t) sdef;   /* per var: VN_SD_* */
    RV_VEC(ck_list) mlist;  /* per header: M(h) in mpool */
    RV_VEC(uint8_t) lsp;    /* per header: its loop has a safepoint */
    RV_VEC(uint32_t) mpool;
    RV_VEC(uint32_t) chead; /* per header: the vregs defined once in its own blocks, chained: a list in cpool */
    RV_VEC(vn_ent) cpool;   /* (var, next entry or CK_NIL) */
    RV_VEC(ck_list) qlist;  /* per header: its placeholders in qpool */
    RV_VEC(vn_ent) qpool;   /* (var, placeholder node) */
    RV_VEC(ck_list) jlist;  /* per block: the .ref vregs given a phi of it, in jpool */
    RV_VEC(vn_ent) jpool;   /* (vreg, phi) */
    RV_VEC(uint32_t) own, own_start, rows, rowvar, tmpl;
    RV_VEC(vn_frame) frames;
    RV_VEC(uint32_t) pairs; /* assumed pairs (a, b), flat */
    RV_VEC(uint32_t) ic;    /* per block: an irreducible target's c (build_irr), else CK_NIL */
    RV_VEC(ck_list) ilist;  /* per irreducible target: P(t) in mpool */
    RV_VEC(ck_list) tlist;  /* per irreducible target: its entry names of the vars changed since c, in tpool */
    RV_VEC(vn_ent) tpool;
    RV_VEC(uint32_t) bmark; /* per block: build_irr's region stamp */
    RV_VEC(uint32_t) istack;
    bool lazy;              /* M(h) without its inner loops' (over the budget): latches record misses */
    RV_VEC(vn_ent) miss;    /* this walk's misses: (var, header or irreducible target) */
    RV_VEC(vn_ent) xall;    /* all misses so far, for the next M(h) and P(t) */
    RV_VEC(uint32_t) xstart, xvar; /* xall by block, CSR */
    uint32_t nleaves;
    uint64_t scanned, scan_budget; /* log entries record_delta read, and its limit */
    uint64_t *fset;         /* failed stackmap trials (key + 1; 0: free) */
    uint32_t fcap, fcount;
    bool full; /* more leaves or phis than a name can number: no verdict */
};

static uint32_t next_stamp(struct ck_vn *V)
{
    if (++V->stamp == 0) {
        memset(V->st, 0, (size_t)V->var_cap * sizeof *V->st);
        memset(V->st2, 0, (size_t)V->var_cap * sizeof *V->st2);
        V->stamp = 1;
    }
    return V->stamp;
}

void ck_vn_free(ravel_checker *ck)
{
    struct ck_vn *V = ck->vn;
    if (!V) return;
    rv_free(V->cur);
    rv_free(V->st);
    rv_free(V->aux);
    rv_free(V->st2);
    rv_free(V->htab);
    rv_free(V->fset);
    rv_vec_free(V->log);
    rv_vec_free(V->nblk);
    rv_vec_free(V->nops);
    rv_vec_free(V->ops);
    rv_vec_free(V->uf);
    rv_vec_free(V->ufleaf);
    rv_vec_free(V->leaves);
    rv_vec_free(V->nwit);
    rv_vec_free(V->nnew);
    rv_vec_free(V->rl);
    rv_vec_free(V->keep);
    rv_vec_free(V->roots);
    rv_vec_free(V->soft);
    rv_vec_free(V->cand);
    rv_vec_free(V->nsoft);
    rv_vec_free(V->snap);
    rv_vec_free(V->edl);
    rv_vec_free(V->dpool);
    rv_vec_free(V->mexit);
    rv_vec_free(V->hmark);
    rv_vec_free(V->sdef);
    rv_vec_free(V->mlist);
    rv_vec_free(V->lsp);
    rv_vec_free(V->mpool);
    rv_vec_free(V->chead);
    rv_vec_free(V->cpool);
    rv_vec_free(V->qlist);
    rv_vec_free(V->qpool);
    rv_vec_free(V->jlist);
    rv_vec_free(V->jpool);
    rv_vec_free(V->own);
    rv_vec_free(V->own_start);
    rv_vec_free(V->rows);
    rv_vec_free(V->rowvar);
    rv_vec_free(V->tmpl);
    rv_vec_free(V->frames);
    rv_vec_free(V->pairs);
    rv_vec_free(V->ic);
    rv_vec_free(V->ilist);
    rv_vec_free(V->tlist);
    rv_vec_free(V->tpool);
    rv_vec_free(V->bmark);
    rv_vec_free(V->istack);
    rv_vec_free(V->miss);
    rv_vec_free(V->xall);
    rv_vec_free(V->xstart);
    rv_vec_free(V->xvar);
    rv_free(V);
    ck->vn = NULL;
}

size_t ck_vn_memory(const ravel_checker *ck)
{
    const struct ck_vn *V = ck->vn;
    if (!V) return 0;
#define M(x) ((size_t)V->x.cap * sizeof *V->x.data)
    return (size_t)V->var_cap * 4 * 4 + (size_t)V->hsize * 4 + (size_t)V->fcap * 8 + M(log) + M(nblk) + M(nops) + M(ops) + M(uf) + M(ufleaf) + M(leaves) + M(nwit) + M(nnew) + M(rl) + M(keep) + M(roots) + M(soft) + M(cand) + M(nsoft) + M(snap) +
           M(edl) + M(dpool) + M(mexit) + M(hmark) + M(sdef) + M(mlist) + M(lsp) + M(mpool) + M(chead) + M(cpool) + M(qlist) + M(qpool) + M(jlist) + M(jpool) + M(own) + M(own_start) +
           M(rows) + M(rowvar) + M(tmpl) + M(frames) + M(pairs) + M(ic) + M(ilist) + M(tlist) + M(tpool) + M(bmark) + M(istack) + M(miss) + M(xall) + M(xstart) + M(xvar);
#undef M
}

/* ---- the state ---- */

typedef struct vn {
    ravel_checker *ck;
    struct ck_vn *V;
    const ravel_func *f;
    const rv_operand *ops; /* f's operands (never NULL: the guard keeps every range within them) */
    uint32_t nlocs;
    uint32_t *cur;
    uint32_t block;  /* the block being run */
    uint32_t refvar; /* pseudo-var: where the live part of V->rl starts (logged like a var) */
    uint32_t nregs;
} vn;

/* Var x := name, logged for the rollback. */
static inline void vwrite(vn *W, uint32_t x, uint32_t name)
{
    struct ck_vn *V = W->V;
    if (__builtin_expect(V->log.len == V->log.cap, 0)) rv_vec_reserve(V->log, 1);
    V->log.data[V->log.len++] = (vn_ent){x, W->cur[x]};
    W->cur[x] = name;
}

/* Location li := name (a location given a .ref name joins the list the
 * collector looks at). */
static inline void vset_loc(vn *W, uint32_t li, uint32_t name)
{
    if (W->cur[li] == name) return;
    vwrite(W, li, name);
    if (name & VN_REF) rv_vec_push(W->V->rl, li);
}

/* The var of location l. Every location the function names exists (the
 * walk runs only when the rules found nothing, ck_vn_verdict), so this is
 * ck_li without its checks, and without a branch: registers and slots come
 * in no predictable order. */
static inline uint32_t vlix(const vn *W, ravel_loc l) { return (l & ~RAVEL_SLOT_BIT) + (W->nregs & (0u - (l >> 31))); }

/* Any var x := name (a vreg given a name is noted as its newest holder: a
 * stackmap's witness). */
static inline void vset(vn *W, uint32_t x, uint32_t name)
{
    if (x < W->nlocs) {
        vset_loc(W, x, name);
        return;
    }
    if (W->cur[x] == name) return;
    vwrite(W, x, name);
    if (!name || x >= W->refvar) return;
    struct ck_vn *V = W->V;
    if (name & VN_LEAF) V->leaves.data[name & VN_IDX].last = x - W->nlocs;
    else V->nnew.data[name & VN_IDX] = x - W->nlocs;
}

static void rollback(vn *W, uint32_t mark)
{
    struct ck_vn *V = W->V;
    for (uint32_t i = V->log.len; i > mark; i--) W->cur[V->log.data[i - 1].var] = V->log.data[i - 1].name;
    V->log.len = mark;
}

static inline uint32_t new_leaf(vn *W, uint32_t v)
{
    struct ck_vn *V = W->V;
    rv_vec_push(V->leaves, ((vn_leaf){W->block, v, CK_NIL}));
    V->full |= V->nleaves >= VN_IDX;
    return VN_LEAF | ((V->sdef.data[W->nlocs + v] & VN_SD_REF) ? VN_REF : 0) | (V->nleaves++ & VN_IDX);
}

/* ---- phi nodes and the assumed relation ---- */

static uint32_t new_node(vn *W, uint32_t b, uint32_t nops)
{
    struct ck_vn *V = W->V;
    uint32_t id = V->nblk.len;
    V->full |= id >= VN_IDX;
    rv_vec_push(V->nblk, b);
    rv_vec_push(V->nops, V->ops.len);
    rv_vec_push(V->uf, id);
    rv_vec_push(V->ufleaf, 0);
    rv_vec_push(V->nwit, CK_NIL);
    rv_vec_push(V->nnew, CK_NIL);
    rv_vec_push(V->nsoft, 0);
    rv_vec_reserve(V->ops, nops);
    V->ops.len += nops;
    return id;
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
static void htab_prepare(struct ck_vn *V, uint32_t nrows)
{
    uint32_t cap = 16;
    while (cap < 2 * nrows) cap *= 2;
    if (cap > V->hsize) {
        rv_free(V->htab);
        V->htab = rv_xcalloc(cap, sizeof *V->htab);
        V->hsize = cap;
    } else {
        memset(V->htab, 0, (size_t)cap * sizeof *V->htab);
    }
    V->hcap = cap;
}

/* The phi of block b (the block being joined) with operands o[0..n)
 * (VN_SELF for back edges the var keeps, VN_SKIP for unreachable
 * in-edges), made once. */
static uint32_t htab_find(const struct ck_vn *V, uint32_t b, const uint32_t *o, uint32_t n, uint32_t *slot)
{
    uint32_t h = hash_ops(b, o, n) & (V->hcap - 1);
    for (uint32_t e; (e = V->htab[h]) != 0; h = (h + 1) & (V->hcap - 1))
        if (!memcmp(&V->ops.data[V->nops.data[e - 1]], o, n * sizeof *o)) return e - 1;
    *slot = h;
    return CK_NIL;
}

static uint32_t phi_of(vn *W, uint32_t b, const uint32_t *o, uint32_t n, uint32_t ref)
{
    struct ck_vn *V = W->V;
    uint32_t h = 0, id = htab_find(V, b, o, n, &h);
    if (id != CK_NIL) return id | ref; /* (same operands: same ref bit) */
    id = new_node(W, b, n);
    memcpy(&V->ops.data[V->nops.data[id]], o, n * sizeof *o);
    V->htab[h] = id + 1;
    return id | ref;
}

static uint32_t uf_find(struct ck_vn *V, uint32_t x)
{
    uint32_t *p = V->uf.data;
    if (V->trial) { /* (no path halving: a trial undoes its own writes only) */
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
    if (!V->trial) return;
    rv_vec_push(V->snap, ((vn_ent){i, V->uf.data[i]}));
    rv_vec_push(V->snap, ((vn_ent){i, V->ufleaf.data[i]}));
}

/* The block where name x is made (a phi's block, a leaf's def). */
static inline uint32_t name_block(const struct ck_vn *V, uint32_t x)
{
    return (x & VN_LEAF) ? V->leaves.data[x & VN_IDX].blk : V->nblk.data[x & VN_IDX];
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
    rv_vec_push(V->pairs, young);
    rv_vec_push(V->pairs, old);
}

/* Assumes names a and b, both in use at one point, equal; false if that
 * cannot hold. Classes: a union-find over phis whose root is the class's
 * oldest phi, and maybe a leaf older than all of them (ufleaf). Each union
 * records one obligation, checked by verify: the younger top equals the
 * older one (its operands on each in-edge of its block do). */
static bool relate(const ravel_checker *ck, struct ck_vn *V, uint32_t a, uint32_t b)
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
    uint32_t la = V->ufleaf.data[ra];
    if (b & VN_LEAF) {
        if (la) return la == b;
        if (age_cmp(ck, V, b, ra) != -1) return false; /* a leaf equal to an older value: never */
        uf_save(V, ra);
        V->ufleaf.data[ra] = b;
        obligation(V, ra | ref, b);
        return true;
    }
    uint32_t rb = uf_find(V, b & VN_IDX);
    if (ra == rb) return true;
    uint32_t lb = V->ufleaf.data[rb];
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
    V->uf.data[other] = root;
    V->ufleaf.data[root] = la ? la : lb;
    return true;
}

static inline uint32_t npreds(const ravel_checker *ck, uint32_t b) { return ck->cfg.g.pred_start[b + 1] - ck->cfg.g.pred_start[b]; }

/* The operand of name x on in-edge k of block b: its own operand if x is
 * a phi of b, else x itself. */
static inline uint32_t proj(const struct ck_vn *V, uint32_t x, uint32_t b, uint32_t k)
{
    if ((x & VN_LEAF) || V->nblk.data[x & VN_IDX] != b) return x;
    uint32_t o = V->ops.data[V->nops.data[x & VN_IDX] + k];
    return o == VN_SELF ? x : o;
}

/* A name's class so far: its leaf, or its root phi (0, SKIP: themselves). */
static uint32_t canon(struct ck_vn *V, uint32_t x)
{
    if (!x || x == VN_SKIP || x == VN_SELF || (x & VN_LEAF)) return x;
    uint32_t r = uf_find(V, x & VN_IDX);
    return V->ufleaf.data[r] ? V->ufleaf.data[r] : r | (x & VN_REF);
}

/* Obligation (y, o): y, a phi, equals the older (or same-block) name o:
 * on each reachable in-edge of y's block, y's operand equals o's (o's
 * own operand if o is a phi of that block too, else o itself). */
static bool verify(const ravel_checker *ck, struct ck_vn *V, uint32_t from)
{
    for (uint32_t i = from; i < V->pairs.len; i += 2) {
        uint32_t y = V->pairs.data[i], o = V->pairs.data[i + 1];
        if (y & VN_LEAF) return false; /* (never recorded) */
        uint32_t blk = V->nblk.data[y & VN_IDX], n = npreds(ck, blk);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t py = proj(V, y, blk, k), po = proj(V, o, blk, k);
            if (py == VN_SKIP || po == VN_SKIP) continue;
            if (!relate(ck, V, py, po)) return false;
        }
    }
    return true;
}

/* ---- transfer ---- */

static inline uint32_t vreg_var(const vn *W, uint32_t v) { return W->nlocs + v; }

/* A read of v at location li: proven, or assumed (false: not proven). */
static inline bool vread(vn *W, uint32_t li, uint32_t v)
{
    uint32_t a = W->cur[vreg_var(W, v)], b = W->cur[li];
    if (a == b) return a != 0;
    return relate(W->ck, W->V, a, b);
}

static inline void vdef(vn *W, uint32_t v, uint32_t li)
{
    struct ck_vn *V = W->V;
    uint32_t n = new_leaf(W, v), x = vreg_var(W, v);
    /* A single-def vreg's name is not logged (see build_m): left as it is
     * once its def's subtree is done, it stands only where its def's block
     * does not dominate, where no location can hold a name equal to it (the
     * locations' writes are rolled back, and a leaf equals no older name
     * nor one of a block it does not dominate); deltas, M(h) and the
     * latches' premise leave such vregs out. */
    if (V->sdef.data[x] & VN_SD_SINGLE) W->cur[x] = n;
    else vwrite(W, x, n); /* (a fresh leaf: always a change; its witness is v) */
    vset_loc(W, li, n);
}

static void vclobber(vn *W, const rv_inst *in, bool keep_defined)
{
    const uint32_t *regs;
    uint32_t n = rv_inst_clobbers(W->f, in, &regs);
    for (uint32_t k = 0; k < n; k++) {
        if (!(keep_defined && ck_defines_loc(W->f, in, regs[k]))) vset(W, vlix(W, regs[k]), 0);
    }
}

/* Stackmap: every listed slot holds a .ref vreg - a .ref name that a vreg
 * has (a witness whose name is, or is assumed, the same). */
static bool vstackmap(vn *W, const rv_inst *in)
{
    const ravel_func *f = W->f;
    for (uint32_t k = 0; k < in->u.smap.n; k++) {
        uint32_t x = W->cur[vlix(W, ravel_slot(f->u32.data[in->u.smap.first + k]))];
        if (!(x & VN_REF)) return false;
        struct ck_vn *V = W->V;
        uint32_t i = x & VN_IDX, w1, w2;
        w1 = (x & VN_LEAF) ? V->leaves.data[i].last : V->nnew.data[i];
        w2 = (x & VN_LEAF) ? V->leaves.data[i].wit : V->nwit.data[i];
        if ((w1 != CK_NIL && W->cur[vreg_var(W, w1)] == x) || (w2 != CK_NIL && W->cur[vreg_var(W, w2)] == x))
            continue; /* a vreg has that very name */
        /* else one of a few vregs must have a name equal to it: which one
         * is settled after the walk (settle_stackmaps). The candidates:
         * the vregs noted for x and for the names it is made of, breadth
         * first (a location's placeholder stands for what came in). */
        uint32_t c0 = V->cand.len, q[64], nq = 0;
        if (!(x & VN_LEAF) && V->nsoft.data[i]) {
            /* checked before: the candidates of then that still have their
             * names are candidates now (no search) */
            uint32_t s0 = V->nsoft.data[i] - 1, p0 = V->soft.data[s0 + 1], pn = V->soft.data[s0 + 2];
            for (uint32_t j = 0; j < pn; j++) {
                vn_ent c = V->cand.data[p0 + j];
                if (W->cur[vreg_var(W, c.var)] == c.name) rv_vec_push(V->cand, c);
            }
            if (V->cand.len - c0 == pn) { /* all still current: that record settles this read too */
                V->cand.len = c0;
                continue;
            }
            if (V->cand.len > c0) {
                V->nsoft.data[i] = V->soft.len + 1;
                rv_vec_push(V->soft, x);
                rv_vec_push(V->soft, c0);
                rv_vec_push(V->soft, V->cand.len - c0);
                continue;
            }
        }
        q[nq++] = x;
        for (uint32_t qi = 0; qi < nq && V->cand.len - c0 < 8; qi++) {
            uint32_t y = q[qi], yi = y & VN_IDX;
            uint32_t wa = (y & VN_LEAF) ? V->leaves.data[yi].last : V->nnew.data[yi];
            uint32_t wb = (y & VN_LEAF) ? V->leaves.data[yi].wit : V->nwit.data[yi];
            if (wa != CK_NIL) rv_vec_push(V->cand, ((vn_ent){wa, W->cur[vreg_var(W, wa)]}));
            if (wb != CK_NIL && wb != wa) rv_vec_push(V->cand, ((vn_ent){wb, W->cur[vreg_var(W, wb)]}));
            if (y & VN_LEAF) continue;
            uint32_t n = (yi + 1 < V->nops.len ? V->nops.data[yi + 1] : V->ops.len) - V->nops.data[yi];
            /* .ref vregs still holding a phi of y's block whose operands may
             * equal y's (no two different leaves side by side) */
            ck_list jl = V->jlist.data[V->nblk.data[yi]];
            for (uint32_t j = 0; j < jl.len && V->cand.len - c0 < 8; j++) {
                vn_ent je = V->jpool.data[jl.start + j];
                if (W->cur[vreg_var(W, je.var)] != je.name || je.name == y) continue;
                const uint32_t *oa = &V->ops.data[V->nops.data[yi]], *ob = &V->ops.data[V->nops.data[je.name & VN_IDX]];
                bool fits = true;
                for (uint32_t kk = 0; kk < n && fits; kk++) {
                    uint32_t ca = canon(V, oa[kk] == VN_SELF ? y : oa[kk]), cb = canon(V, ob[kk] == VN_SELF ? je.name : ob[kk]);
                    fits = ca == cb || ca == VN_SKIP || cb == VN_SKIP || (ca && cb && !((ca & cb) & VN_LEAF) && !((ca ^ cb) & VN_REF));
                }
                if (fits) rv_vec_push(V->cand, je);
            }
            for (uint32_t j = 0; j < n && nq < 64; j++) {
                uint32_t o = V->ops.data[V->nops.data[yi] + j];
                bool seen = o == VN_SKIP || o == VN_SELF || !o;
                for (uint32_t t = 0; t < nq && !seen; t++) seen = q[t] == o;
                if (!seen) q[nq++] = o;
            }
        }
        if (V->cand.len == c0) return false;
        if (!(x & VN_LEAF)) V->nsoft.data[i] = V->soft.len + 1;
        rv_vec_push(V->soft, x);
        rv_vec_push(V->soft, c0);
        rv_vec_push(V->soft, V->cand.len - c0);
    }
    return true;
}

/* The stackmap trials that failed, by (candidate, slot's name). */
static bool failed_has(const struct ck_vn *V, uint64_t key)
{
    if (!V->fcount) return false;
    uint32_t m = V->fcap - 1, h = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & m;
    for (; V->fset[h]; h = (h + 1) & m)
        if (V->fset[h] == key + 1) return true;
    return false;
}

static void failed_add(struct ck_vn *V, uint64_t key)
{
    if (2 * (V->fcount + 1) > V->fcap) {
        uint32_t ncap = V->fcap ? 2 * V->fcap : 256;
        uint64_t *t = rv_xcalloc(ncap, sizeof *t);
        for (uint32_t i = 0; i < V->fcap; i++) {
            if (!V->fset[i]) continue;
            uint32_t h = (uint32_t)(((V->fset[i] - 1) * 0x9e3779b97f4a7c15ull) >> 32) & (ncap - 1);
            while (t[h]) h = (h + 1) & (ncap - 1);
            t[h] = V->fset[i];
        }
        rv_free(V->fset);
        V->fset = t;
        V->fcap = ncap;
    }
    uint32_t m = V->fcap - 1, h = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & m;
    while (V->fset[h]) h = (h + 1) & m;
    V->fset[h] = key + 1; /* (names are never all ones: key + 1 is never 0) */
    V->fcount++;
}

/* After the walk's own assumptions hold: each stackmap read left open is
 * settled by the first candidate whose assumed equality (with all it
 * implies) holds; a failed try is undone. */
static bool settle_stackmaps(const ravel_checker *ck, struct ck_vn *V)
{
    for (uint32_t s = 0; s < V->soft.len; s += 3) {
        uint32_t x = V->soft.data[s], c0 = V->soft.data[s + 1], nc = V->soft.data[s + 2];
        bool ok = false;
        for (uint32_t j = 0; j < nc && !ok; j++) {
            uint32_t c = V->cand.data[c0 + j].name;
            if (!c || ((c ^ x) & VN_REF)) continue;
            if (canon(V, c) == canon(V, x)) { /* (equal already, or both equal to one leaf) */
                ok = true;
                break;
            }
            uint64_t key = (uint64_t)c << 32 | x;
            if (failed_has(V, key)) continue; /* (a failed assumption fails again: the relation only grows) */
            uint32_t p0 = V->pairs.len;
            V->snap.len = 0;
            V->trial = true;
            ok = relate(ck, V, c, x) && verify(ck, V, p0);
            V->trial = false;
            if (!ok) { /* undo the trial's writes, newest first */
                for (uint32_t t = V->snap.len; t >= 2; t -= 2) {
                    vn_ent a = V->snap.data[t - 2], l = V->snap.data[t - 1];
                    V->uf.data[a.var] = a.name;
                    V->ufleaf.data[l.var] = l.name;
                }
                V->pairs.len = p0;
                failed_add(V, key);
            }
        }
        if (!ok) return false;
    }
    return true;
}

/* The collector (docs/format.md section 6; names are of .ref vregs only or of
 * none, so a location loses all of its vregs or none): gc moving, every
 * location outside the stackmap holding a .ref name is emptied; gc
 * nonmoving, every one whose name no listed slot holds (fewer facts than
 * the rule when a listed slot holds a name only assumed equal: sound).
 * The live part of V->rl lists every location that may hold a .ref name;
 * the survivors start a new one. */
static bool vsafepoint(vn *W, const rv_inst *in)
{
    struct ck_vn *V = W->V;
    const ravel_func *f = W->f;
    uint32_t n = (in->flags & RV_IF_STACKMAP) ? in->u.smap.n : 0;
    bool moving = !f->mach->gc_nonmoving;
    V->roots.len = 0;
    uint32_t sl = next_stamp(V), sd = next_stamp(V); /* (both first: a wrap clears the marks) */
    for (uint32_t k = 0; k < n; k++) {
        uint32_t li = vlix(W, ravel_slot(f->u32.data[in->u.smap.first + k]));
        V->st2[li] = sl;
        /* (with gc moving a listed slot loses its non-.ref vregs, section
         * 6; here that is a no-op: vstackmap, just before, refused every
         * listed slot whose name is not a .ref name) */
        if (!moving) rv_vec_push(V->roots, W->cur[li]);
    }
    ck_sort_u32(V->roots.data, V->roots.len);
    V->keep.len = 0;
    for (uint32_t i = W->cur[W->refvar], end = V->rl.len; i < end; i++) {
        uint32_t li = V->rl.data[i], x = W->cur[li];
        if (V->st[li] == sd || !(x & VN_REF)) continue;
        V->st[li] = sd;
        bool kept = moving && V->st2[li] == sl;
        if (!moving) { /* the names the listed slots hold, sorted */
            uint32_t lo = 0, hi = V->roots.len;
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (V->roots.data[mid] < x) lo = mid + 1;
                else hi = mid;
            }
            kept = lo < V->roots.len && V->roots.data[lo] == x;
        }
        if (kept) rv_vec_push(V->keep, li);
        else vset(W, li, 0);
    }
    uint32_t base = V->rl.len;
    for (uint32_t i = 0; i < V->keep.len; i++) rv_vec_push(V->rl, V->keep.data[i]);
    vset(W, W->refvar, base);
    return true;
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
            if ((in->flags & RV_IF_CLOBBERS) || in->op == RAVEL_OP_CALL) vclobber(W, in, false);
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
    uint32_t srcname = 0, uname = 0;
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
        }
    }
    if (copy && !rv_op_is_late(&o[0])) { /* an early-def copy aliases right after its read */
        uint32_t li = vlix(W, o[0].loc);
        vset(W, vreg_var(W, o[0].vreg), uname);
        vset(W, li, srcname);
    }
    if (!rv_is_term(in)) { /* step 3: the stackmap's reads, clobbers, the collector */
        if ((in->flags & RV_IF_STACKMAP) && !vstackmap(W, in)) return false;
        vclobber(W, in, true);
        if ((in->flags & RV_IF_SAFEPOINT) && !vsafepoint(W, in)) return false;
    }
    for (uint32_t k = 0; k < nd; k++) {
        if (!rv_op_is_late(&o[k])) continue;
        uint32_t li = vlix(W, o[k].loc);
        if (copy) {
            vset(W, vreg_var(W, o[k].vreg), uname);
            vset(W, li, srcname);
        } else {
            vdef(W, o[k].vreg, li);
        }
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
            vset_loc(W, vlix(W, in->u.edit.dst), W->cur[vlix(W, in->u.edit.src)]);
            continue;
        }
        if (!vop(W, in)) return false;
    }
    return true;
}

/* ---- M(h): the vars each loop may write ---- */

static inline void add_var(struct ck_vn *V, uint32_t st, uint32_t x)
{
    /* room reserved by the caller; without a branch on whether x is new
     * (most are: no predictable order): written always, kept only if new */
    V->mpool.data[V->mpool.len] = x;
    V->mpool.len += V->st[x] != st;
    V->st[x] = st;
}

/* Adds to the list being built in mpool (stamp st) the vars block bl's
 * instructions write: an edit's destination, each def's vreg (not a
 * single-def one: see build_m) and location, the registers a call or a
 * clobber list clobbers. True if one is a safepoint. */
static bool scan_insts(vn *W, uint32_t st, const rv_block *bl)
{
    struct ck_vn *V = W->V;
    const ravel_func *f = W->f;
    const uint8_t *sdef = V->sdef.data;
    bool sp = false;
    /* room: 2 per instruction (an edit adds 1, a one-def operation 2); an
     * instruction that may add more makes room for itself and the rest */
    rv_vec_reserve(V->mpool, 2 * (size_t)bl->ninsts);
    const rv_inst *in = rv_inst_at(f, bl->first_inst), *end = in + bl->ninsts;
    for (; in < end; in++) {
        CK_PREFETCH_AHEAD(in, 12);
        if (rv_is_edit(in)) {
            add_var(V, st, vlix(W, in->u.edit.dst));
            continue;
        }
        const uint32_t *regs = NULL;
        uint32_t nc = 0;
        if (((in->flags & RV_IF_CLOBBERS) || in->op == RAVEL_OP_CALL) && !rv_is_term(in))
            nc = rv_inst_clobbers(f, in, &regs); /* (none otherwise) */
        if (in->ndefs > 1 || nc) rv_vec_reserve(V->mpool, 2 * (size_t)in->ndefs + nc + 2 * (size_t)(end - in));
        const rv_operand *d = W->ops + in->first_op;
        for (uint32_t k = 0; k < in->ndefs; k++) {
            uint32_t x = W->nlocs + d[k].vreg;
            if (!(sdef[x] & VN_SD_SINGLE)) add_var(V, st, x);
            add_var(V, st, vlix(W, d[k].loc));
        }
        sp |= (in->flags & RV_IF_SAFEPOINT) != 0;
        for (uint32_t k = 0; k < nc; k++) add_var(V, st, vlix(W, regs[k]));
    }
    return sp;
}

/* Single-def vregs (V->sdef). v has one assignment in the function: one
 * def, never a parameter (nor
 * an argument or a copy source: the guard's notes do not tell those
 * apart). Then in the walk v's name is 0 at every block its def's block B
 * does not dominate (by induction in reverse post-order: the entry has 0;
 * a block with one in-edge has its idom's, not dominated by B either; a
 * join or header has an in-edge (a forward one) from a block B does not
 * dominate, whose 0 the meet keeps), so at the header of every loop
 * holding B, and at B itself if it is the header, where its forward edges
 * bring 0: a loop that writes v needs no placeholder for it (join() would
 * give it 0 anyway), and leaving v out of M(h) and out of join deltas
 * saves the bookkeeping. */

/* Adds block h's misses of earlier walks (V->xall, lazy M(h)) to the list
 * being built (stamp st). */
static void add_extras(vn *W, uint32_t st, uint32_t h)
{
    struct ck_vn *V = W->V;
    if (!V->xall.len) return;
    uint32_t a = V->xstart.data[h], e = V->xstart.data[h + 1];
    rv_vec_reserve(V->mpool, e - a);
    for (uint32_t i = a; i < e; i++) add_var(V, st, V->xvar.data[i]);
}

/* sdef, then M(h) for every header, inner loops first (their M is part of
 * the enclosing one's). False past the budget. Lazy (V->lazy): M(h) is
 * what h's own blocks write and the misses of earlier walks, not its inner
 * loops' M: linear however deep the nest (a loop nest d deep, each level
 * writing its own slot, has inner loops' writes summing to d^2/2), and a
 * var an inner loop writes that is known at h's entry is found missing by
 * h's latch, then added for the next walk (vn_walk). */
static bool build_m(vn *W)
{
    ravel_checker *ck = W->ck;
    struct ck_vn *V = W->V;
    const ravel_func *f = W->f;
    uint32_t n = ck->nblocks;
    uint32_t nv = W->refvar + 1;
    V->sdef.len = 0;
    rv_vec_reserve(V->sdef, nv);
    V->sdef.len = nv;
    memset(V->sdef.data, 0, W->nlocs);
    V->sdef.data[W->refvar] = 0;
    /* The guard's write notes (ck_gw) stand for a noted block's scan:
     * its slots are listed, all registers are taken (a loop that does not
     * write one keeps it: its placeholder comes back unchanged), and the
     * vregs it defines that are not single-def are those defined once and
     * chained (below, by their def's innermost loop; a vreg defined more
     * than once, GN_MULTI, turns the notes off). */
    bool notes = ck->facts.gnf_ok && !(ck->opts & CK_OPT_NEED_SCAN), wnotes = notes && ck->facts.gwf_ok;
    V->chead.len = 0;
    rv_vec_reserve(V->chead, n);
    V->chead.len = n;
    memset(V->chead.data, 0xff, (size_t)n * sizeof *V->chead.data);
    V->cpool.len = 0;
    { /* the single-def vregs (above), from the guard's notes; the .ref vregs */
        const ck_gn *gn = ck->facts.gn;
        const rv_vreg *vr = f->vregs.data;
        const uint32_t *loop = ck->cfg.g.loop_header;
        uint32_t st = ck->facts.gnstamp << 3, want = notes ? st | GN_DEF : 0, chained = st | GN_DEF | GN_CHAIN;
        uint32_t multi = st | GN_DEF | GN_MULTI, anymulti = 0;
        uint8_t *sd = V->sdef.data + W->nlocs;
        for (uint32_t v = 0; v < ck->nvregs; v++) {
            uint32_t t = gn[v].tag;
            sd[v] = (uint8_t)((notes && t == want) | (vr[v].ref ? VN_SD_REF : 0));
            anymulti |= (t & ~GN_CHAIN) == multi;
            if (t == chained && loop[gn[v].b] != CK_NIL) {
                uint32_t h = loop[gn[v].b];
                rv_vec_push(V->cpool, ((vn_ent){W->nlocs + v, V->chead.data[h]}));
                V->chead.data[h] = V->cpool.len - 1;
            }
        }
        wnotes &= !anymulti;
    }
    V->mlist.len = V->qlist.len = 0;
    V->qpool.len = 0;
    rv_vec_reserve(V->mlist, n);
    rv_vec_reserve(V->qlist, n);
    V->mlist.len = V->qlist.len = n;
    V->mpool.len = 0;
    V->lsp.len = 0;
    rv_vec_reserve(V->lsp, n);
    V->lsp.len = n;
    memset(V->lsp.data, 0, n);
    memset(V->mlist.data, 0, (size_t)n * sizeof *V->mlist.data);
    /* each header's own blocks (innermost loop), CSR */
    V->own_start.len = 0;
    rv_vec_reserve(V->own_start, n + 1);
    V->own_start.len = n + 1;
    memset(V->own_start.data, 0, (size_t)(n + 1) * sizeof *V->own_start.data);
    bool any = false;
    for (uint32_t b = 0; b < n; b++)
        if (ck_reachable(ck, b) && ck->cfg.g.loop_header[b] != CK_NIL) V->own_start.data[ck->cfg.g.loop_header[b] + 1]++, any = true;
    if (!any) return true;
    for (uint32_t b = 0; b < n; b++) V->own_start.data[b + 1] += V->own_start.data[b];
    V->own.len = 0;
    rv_vec_reserve(V->own, V->own_start.data[n]);
    V->own.len = V->own_start.data[n];
    rv_vec_reserve(V->rows, n); /* (rows: a fill cursor per header here) */
    for (uint32_t b = 0; b < n; b++) V->rows.data[b] = V->own_start.data[b];
    for (uint32_t b = 0; b < n; b++)
        if (ck_reachable(ck, b) && ck->cfg.g.loop_header[b] != CK_NIL) V->own.data[V->rows.data[ck->cfg.g.loop_header[b]]++] = b;
    /* M(h): what h's own blocks write, then its inner loops' M (inner
     * headers come later in reverse post-order); budget: all lists */
    uint64_t budget = 8ull * f->insts.len + 4096;
    for (uint32_t i = ck->cfg.g.nrpo; i-- > 0;) {
        uint32_t h = ck->cfg.g.rpo[i];
        if (!ck_is_header(ck, h)) continue;
        uint32_t st = next_stamp(V), start = V->mpool.len;
        bool sp = false, allregs = false;
        for (uint32_t j = V->own_start.data[h]; j < V->own_start.data[h + 1]; j++) {
            uint32_t b = V->own.data[j];
            const rv_block *bl = &f->blocks.data[b];
            rv_vec_reserve(V->mpool, bl->nparams); /* (add_var's room) */
            for (uint32_t p = 0; p < bl->nparams; p++) add_var(V, st, W->nlocs + ck_params(f, bl)[p]);
            if (wnotes && ck->facts.gw.data[b].len != CK_NIL) { /* noted: the slots listed, every register */
                const uint32_t *sl = ck->facts.gwslot.data + ck->facts.gw.data[b].start;
                rv_vec_reserve(V->mpool, ck->facts.gw.data[b].len);
                for (uint32_t k = 0; k < ck->facts.gw.data[b].len; k++) add_var(V, st, vlix(W, sl[k]));
                allregs = true;
                continue;
            }
            sp |= scan_insts(W, st, bl);
        }
        rv_vec_reserve(V->mpool, W->nregs);
        for (uint32_t r = 0; allregs && r < W->nregs; r++) add_var(V, st, r); /* (register r: var r) */
        for (uint32_t c = V->chead.data[h]; c != CK_NIL; c = V->cpool.data[c].name) {
            rv_vec_reserve(V->mpool, 1);
            add_var(V, st, V->cpool.data[c].var);
        }
        for (uint32_t j = ck->cfg.lchild_start.data[h]; j < ck->cfg.lchild_start.data[h + 1]; j++) {
            sp |= V->lsp.data[ck->cfg.lchild.data[j]] != 0;
            ck_list m = V->lazy ? (ck_list){0, 0} : V->mlist.data[ck->cfg.lchild.data[j]];
            rv_vec_reserve(V->mpool, m.len);
            for (uint32_t k = 0; k < m.len; k++) add_var(V, st, V->mpool.data[m.start + k]);
        }
        add_extras(W, st, h);
        V->lsp.data[h] = sp;
        V->mlist.data[h] = (ck_list){start, V->mpool.len - start};
        if (V->mpool.len > budget) return false;
    }
    return true;
}

/* ---- irreducible cycles ---- */

static inline bool vdom(const ravel_checker *ck, uint32_t a, uint32_t b)
{
    return ck->cfg.g.dom_pre[a] <= ck->cfg.g.dom_pre[b] && ck->cfg.g.dom_post[b] <= ck->cfg.g.dom_post[a];
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
 * predecessors other than c(t): the search stays below it). P(t): the vars
 * R(t) writes (parameters included; single-def vregs need none: a vreg
 * whose def's block dominates t has that name at every u too, one that
 * does not is unknown at t), a placeholder each at t, as M(h) at a
 * header; lsp[t] if R(t) has a safepoint. The latch of u then checks the
 * premise over what changed since c(t) (latch). False past the budget. */
static bool build_irr(vn *W)
{
    ravel_checker *ck = W->ck;
    struct ck_vn *V = W->V;
    const ravel_func *f = W->f;
    uint32_t n = ck->nblocks;
    V->ic.len = V->ilist.len = V->tlist.len = V->bmark.len = 0;
    rv_vec_reserve(V->ic, n);
    rv_vec_reserve(V->ilist, n);
    rv_vec_reserve(V->tlist, n);
    rv_vec_reserve(V->bmark, n);
    V->ic.len = V->ilist.len = V->tlist.len = V->bmark.len = n;
    memset(V->ic.data, 0xff, (size_t)n * sizeof *V->ic.data);
    memset(V->bmark.data, 0, (size_t)n * sizeof *V->bmark.data);
    V->tpool.len = 0;
    memset(V->ilist.data, 0, (size_t)n * sizeof *V->ilist.data);
    uint64_t work = 0, budget = 8ull * f->insts.len + 4096;
    uint32_t bst = 0;
    bool again = true;
    for (uint32_t pass = 0; pass < 2 && again; pass++) {
      again = false;
      for (uint32_t i = 0; i < ck->cfg.g.nrpo; i++) {
        uint32_t t = ck->cfg.g.rpo[i];
        if (!ck->cfg.retreat.data[t]) continue;
        uint32_t c = CK_NIL, p0 = ck->cfg.g.pred_start[t], p1 = ck->cfg.g.pred_start[t + 1];
        V->istack.len = 0;
        for (uint32_t p = p0; p < p1; p++) {
            uint32_t u = ck->cfg.g.pred[p], x = u;
            if (!ck_reachable(ck, u) || ck->cfg.g.rpo_index[u] < i || vdom(ck, t, u)) continue;
            while (!vdom(ck, x, t)) x = ck->cfg.g.idom[x], work++;
            if (c == CK_NIL || vdom(ck, x, c)) c = x;
            rv_vec_push(V->istack, u);
        }
        V->ic.data[t] = c;
        uint32_t st = next_stamp(V), start = V->mpool.len;
        bool sp = false;
        bst++;
        while (V->istack.len) {
            uint32_t b = V->istack.data[--V->istack.len];
            if (b == c || V->bmark.data[b] == bst || (ck->opts & CK_OPT_VN_NO_P)) continue;
            V->bmark.data[b] = bst;
            const rv_block *bl = &f->blocks.data[b];
            rv_vec_reserve(V->mpool, bl->nparams); /* (add_var's room) */
            for (uint32_t p = 0; p < bl->nparams; p++) add_var(V, st, W->nlocs + ck_params(f, bl)[p]);
            sp |= scan_insts(W, st, bl);
            work += bl->ninsts + 1;
            /* placeholders in R(t) make new names too: a natural header's
             * M(h) (with the guard's notes it lists every register, written
             * or not), another irreducible target's P (one of later in
             * reverse post-order is known from a second pass) */
            ck_list ml[2] = {ck_is_header(ck, b) ? V->mlist.data[b] : (ck_list){0, 0},
                             b != t && V->ic.data[b] != CK_NIL ? V->ilist.data[b] : (ck_list){0, 0}};
            if (b != t && ck->cfg.retreat.data[b] && ck->cfg.g.rpo_index[b] > i && pass == 0) again = true; /* (its P not made yet) */
            for (int l = 0; l < 2; l++) {
                rv_vec_reserve(V->mpool, ml[l].len);
                for (uint32_t k = 0; k < ml[l].len; k++) add_var(V, st, V->mpool.data[ml[l].start + k]);
                work += ml[l].len;
            }
            for (uint32_t p = ck->cfg.g.pred_start[b]; p < ck->cfg.g.pred_start[b + 1]; p++)
                if (ck_reachable(ck, ck->cfg.g.pred[p])) rv_vec_push(V->istack, ck->cfg.g.pred[p]);
            work += ck->cfg.g.pred_start[b + 1] - ck->cfg.g.pred_start[b];
        }
        add_extras(W, st, t);
        V->ilist.data[t] = (ck_list){start, V->mpool.len - start};
        V->lsp.data[t] |= sp;
        if (work > budget || V->mpool.len > 2 * budget) return false;
      }
    }
    return true;
}

/* At irreducible target t's entry: the names of the vars changed since
 * c(t)'s exit on the dominator path (t's join included), for its latches;
 * every other var has c(t)'s name here. */
static bool record_entry(vn *W, uint32_t t)
{
    struct ck_vn *V = W->V;
    uint32_t from = V->mexit.data[V->ic.data[t]], st = next_stamp(V), start = V->tpool.len;
    V->scanned += V->log.len - from;
    if (V->scanned > V->scan_budget) return false;
    for (uint32_t i = from; i < V->log.len; i++) {
        uint32_t x = V->log.data[i].var;
        if (V->st[x] == st) continue;
        V->st[x] = st;
        rv_vec_push(V->tpool, ((vn_ent){x, W->cur[x]}));
    }
    V->tlist.data[t] = (ck_list){start, V->tpool.len - start};
    return true;
}

/* ---- edges ---- */

/* The names of e's arguments (read before any parameter is written). */
static void arg_names(vn *W, const rv_succ *e, uint32_t *out)
{
    const uint32_t *args = ck_args(W->f, e);
    for (uint32_t a = 0; a < e->nargs; a++) out[a] = W->cur[vreg_var(W, args[a])];
}

/* Edge e of block b into join t: the vars changed since t's idom's exit,
 * with their names at the end of e (parameters substituted). */
static bool record_delta(vn *W, uint32_t eidx, const rv_succ *e)
{
    ravel_checker *ck = W->ck;
    struct ck_vn *V = W->V;
    uint32_t t = e->block, from = V->mexit.data[ck->cfg.g.idom[t]];
    /* the log segments scanned for all edges together stay within a budget
     * (deep nests of joins rescan their arms once per level) */
    V->scanned += V->log.len - from;
    if (V->scanned > V->scan_budget) return false;
    uint32_t st = next_stamp(V), start = V->dpool.len;
    const uint32_t *params = ck_params(W->f, &W->f->blocks.data[t]), *args = ck_args(W->f, e);
    rv_vec_reserve(V->dpool, e->nargs);
    for (uint32_t a = 0; a < e->nargs; a++) { /* parameters first: their names win */
        uint32_t x = vreg_var(W, params[a]);
        V->dpool.data[V->dpool.len++] = (vn_ent){x, W->cur[vreg_var(W, args[a])]};
    }
    for (uint32_t a = 0; a < e->nargs; a++) V->st[vreg_var(W, params[a])] = st;
    V->st[W->refvar] = st; /* (not a var: the list of .ref holders is the dominator path's) */
    const uint8_t *sdef = V->sdef.data;
    const vn_ent *log = V->log.data;
    uint32_t *stv = V->st, end = V->log.len;
    rv_vec_reserve(V->dpool, end - from);
    vn_ent *dp = V->dpool.data;
    size_t n = V->dpool.len;
    for (uint32_t i = from; i < end; i++) { /* (without a branch per entry: written always, kept if new) */
        uint32_t x = log[i].var;
        dp[n] = (vn_ent){x, W->cur[x]};
        /* a single-def vreg defined since t's idom: its def's block does
         * not dominate t, so t gives it 0 (see build_m), as at the idom */
        n += (stv[x] != st) & !(sdef[x] & VN_SD_SINGLE);
        stv[x] = st;
    }
    V->dpool.len = n;
    V->edl.data[eidx] = (ck_list){start, V->dpool.len - start};
    return true;
}

/* Lazy M(h): the latch into t found vars that changed without a
 * placeholder; the same test as latch's, var by var, records them as
 * misses of t for the next walk (this one goes on to find the others). */
static bool record_misses(vn *W, uint32_t t, uint32_t from, bool irr, uint32_t st, uint32_t sq)
{
    struct ck_vn *V = W->V;
    uint32_t sd = next_stamp(V);
    if (sd <= sq) return false; /* (the marks wrapped, latch's with them: no record) */
    uint32_t before = V->miss.len;
    const uint32_t *cur = W->cur;
    ck_list tl = irr ? V->tlist.data[t] : (ck_list){0, 0};
    for (uint32_t i = 0; i < tl.len; i++) {
        vn_ent te = V->tpool.data[tl.start + i];
        uint32_t x = te.var;
        if (V->st2[x] == sq) continue;
        V->st2[x] = sd;
        if (x == W->refvar || !te.name || (V->sdef.data[x] & VN_SD_SINGLE)) continue;
        if ((V->st[x] == st ? V->aux[x] : cur[x]) != te.name) rv_vec_push(V->miss, ((vn_ent){x, t}));
    }
    for (uint32_t i = from; i < V->log.len; i++) {
        uint32_t x = V->log.data[i].var, was = V->log.data[i].name;
        if (V->st2[x] == sq || V->st2[x] == sd) continue;
        V->st2[x] = sd;
        if (x == W->refvar || (V->sdef.data[x] & VN_SD_SINGLE) || !was) continue;
        if ((V->st[x] == st ? V->aux[x] : cur[x]) != was) rv_vec_push(V->miss, ((vn_ent){x, t}));
    }
    return V->miss.len > before; /* (a failed premise with no miss to show: not proven) */
}

/* A back edge e (pred number k of header t): the operands of t's
 * placeholders on it. */
static bool latch(vn *W, uint32_t k, const rv_succ *e)
{
    struct ck_vn *V = W->V;
    uint32_t t = e->block;
    uint32_t st = next_stamp(V), sq = next_stamp(V), sd = next_stamp(V); /* (all first: a wrap clears the marks) */
    const uint32_t *params = ck_params(W->f, &W->f->blocks.data[t]), *args = ck_args(W->f, e);
    for (uint32_t a = 0; a < e->nargs; a++) {
        uint32_t x = vreg_var(W, params[a]);
        V->st[x] = st;
        V->aux[x] = W->cur[vreg_var(W, args[a])];
    }
    ck_list q = V->qlist.data[t];
    for (uint32_t i = 0; i < q.len; i++) {
        vn_ent qe = V->qpool.data[q.start + i];
        V->ops.data[V->nops.data[qe.name & VN_IDX] + k] = V->st[qe.var] == st ? V->aux[qe.var] : W->cur[qe.var];
        V->st2[qe.var] = sq;
    }
    /* The premise of the loop's names: a var without a placeholder comes
     * back as it came in (or came in unknown). M(h) is built to ensure it;
     * checked here over what the dominator path since h changed, so that
     * a write M(h) missed costs a proof, never a wrong one. */
    const vn_ent *log = V->log.data;
    const uint8_t *sdef = V->sdef.data;
    const uint32_t *stv = V->st, *aux = V->aux, *cur = W->cur;
    uint32_t *st2 = V->st2, bad = 0, from = V->hmark.data[t];
    bool irr = !vdom(W->ck, t, W->block);
    if (irr) {
        /* an irreducible edge (build_irr): t is not on this dominator
         * path, c(t) is. A var changed since c(t) on t's path has the
         * entry name recorded there (record_entry); any other has c(t)'s
         * name at t, the first old name logged since c(t) here. */
        ck_list tl = V->tlist.data[t];
        for (uint32_t i = 0; i < tl.len; i++) {
            vn_ent te = V->tpool.data[tl.start + i];
            uint32_t x = te.var;
            if (st2[x] == sq) continue;
            st2[x] = sd;
            if (x == W->refvar || !te.name || (sdef[x] & VN_SD_SINGLE)) continue;
            bad |= (stv[x] == st ? aux[x] : cur[x]) != te.name;
        }
        from = V->mexit.data[V->ic.data[t]];
    }
    for (uint32_t i = from, end = V->log.len; i < end; i++) { /* (without a branch per entry) */
        uint32_t x = log[i].var, was = log[i].name, s2 = st2[x];
        uint32_t skip = (s2 == sq) | (x == W->refvar) | (sdef[x] & VN_SD_SINGLE); /* (0 at every header of its loops) */
        uint32_t now = stv[x] == st ? aux[x] : cur[x];
        bad |= !skip & (s2 != sd) & (was != 0) & (now != was); /* (the first entry since h holds h's name) */
        st2[x] = s2 == sq ? sq : sd;
    }
    if (bad && V->lazy) return record_misses(W, t, from, irr, st, sq);
    return !bad;
}

/* Block b's entry from its in-edges (b a join or a loop header; the state
 * is its idom's exit). */
static void join(vn *W, uint32_t b)
{
    ravel_checker *ck = W->ck;
    struct ck_vn *V = W->V;
    uint32_t p0 = ck->cfg.g.pred_start[b], np = npreds(ck, b), rb = ck->cfg.g.rpo_index[b];
    bool irr = V->ic.data[b] != CK_NIL; /* an irreducible target (build_irr) */
    bool header = ck_is_header(ck, b) || irr;
    uint32_t st = next_stamp(V), sm = next_stamp(V), nrows = 0; /* (both first: a wrap clears the marks) */
    V->rowvar.len = 0;
    V->rows.len = 0;
    /* per in-edge: VN_SKIP (unreachable), 0 (a back edge: a latch fills a
     * placeholder's operand), 1 (forward: the var's name there) */
    V->tmpl.len = 0;
    rv_vec_reserve(V->tmpl, np);
    V->tmpl.len = np;
    uint32_t *tmpl = V->tmpl.data;
    for (uint32_t k = 0; k < np; k++) {
        uint32_t q = ck->cfg.g.pred[p0 + k];
        tmpl[k] = !ck_reachable(ck, q) ? VN_SKIP : ck->cfg.g.rpo_index[q] >= rb ? 0 : 1;
    }
    /* a row per var: its name on each in-edge */
#define NEW_ROW(x)                                                                                   \
    do {                                                                                             \
        V->st[x] = st;                                                                               \
        V->aux[x] = nrows++;                                                                         \
        rv_vec_push(V->rowvar, x);                                                                   \
        rv_vec_reserve(V->rows, np);                                                                 \
        uint32_t *r_ = &V->rows.data[V->rows.len], c_ = W->cur[x];                                   \
        for (uint32_t k_ = 0; k_ < np; k_++) r_[k_] = tmpl[k_] == 1 ? c_ : tmpl[k_];                 \
        V->rows.len += np;                                                                           \
    } while (0)
    /* A var unknown at the idom's exit (cur 0) that an in-edge's delta
     * leaves out is unknown on that edge, so here (the meet): only the
     * first edge's delta, the shortest, makes rows for such vars (most
     * rows of a join are of vars its arms define, unknown at the idom). */
    uint32_t k0 = CK_NIL;
    for (uint32_t k = 0; k < np; k++)
        if (tmpl[k] == 1 &&
            (k0 == CK_NIL || V->edl.data[ck->cfg.pedge.data[p0 + k]].len < V->edl.data[ck->cfg.pedge.data[p0 + k0]].len))
            k0 = k;
    for (uint32_t j = 0; j < np && k0 != CK_NIL; j++) {
        uint32_t k = j == 0 ? k0 : j == k0 ? 0 : j; /* k0 first */
        if (tmpl[k] != 1) continue;
        ck_list d = V->edl.data[ck->cfg.pedge.data[p0 + k]];
        for (uint32_t i = 0; i < d.len; i++) {
            vn_ent e = V->dpool.data[d.start + i];
            if (V->st[e.var] != st) {
                if (j && !W->cur[e.var]) continue;
                NEW_ROW(e.var);
            }
            V->rows.data[V->aux[e.var] * np + k] = e.name;
        }
    }
    /* the vars the loop may write: a placeholder each, unless unknown on
     * an edge into the loop (not in any delta and 0 now: 0 on every one) */
    for (int li = 0; li < 2; li++) {
        ck_list m = li == 0 ? (ck_is_header(ck, b) ? V->mlist.data[b] : (ck_list){0, 0})
                            : (irr ? V->ilist.data[b] : (ck_list){0, 0});
        for (uint32_t i = 0; i < m.len; i++) {
            uint32_t x = V->mpool.data[m.start + i];
            if (V->st[x] != st) {
                if (!W->cur[x]) continue;
                NEW_ROW(x);
            }
            V->st2[x] = sm;
        }
    }
    if (header && V->lsp.data[b]) {
        /* the collector writes too: in a loop with a safepoint every
         * location that may hold a .ref name on entry (the live .ref list,
         * the rows from the deltas) is one the loop may write */
        for (uint32_t i = W->cur[W->refvar]; i < V->rl.len; i++) {
            uint32_t x = V->rl.data[i];
            if (V->st[x] != st) {
                if (!(W->cur[x] & VN_REF)) continue;
                NEW_ROW(x);
            }
            V->st2[x] = sm;
        }
        for (uint32_t r = 0; r < nrows; r++) {
            uint32_t x = V->rowvar.data[r];
            if (x >= W->nlocs || V->st2[x] == sm) continue;
            for (uint32_t k = 0; k < np; k++) {
                uint32_t o = V->rows.data[r * np + k];
                if (o != VN_SKIP && (o & VN_REF)) {
                    V->st2[x] = sm;
                    break;
                }
            }
        }
    }
#undef NEW_ROW
    uint32_t q0 = V->qpool.len, j0 = V->jpool.len;
    htab_prepare(V, nrows);
    for (uint32_t r = 0; r < nrows; r++) {
        uint32_t x = V->rowvar.data[r], *row = &V->rows.data[r * np];
        /* the forward edges: unknown on one (or .ref names and others: no
         * vreg has that mix) makes it unknown here for good (the meet) */
        uint32_t same = VN_SKIP, refs = 0, nrefs = 0;
        bool all = true, unk = false;
        for (uint32_t k = 0; k < np; k++) {
            if (tmpl[k] != 1) continue;
            unk |= row[k] == 0;
            refs |= row[k] & VN_REF;
            nrefs |= ~row[k] & VN_REF;
            if (same == VN_SKIP) same = row[k];
            else all &= row[k] == same;
        }
        if (unk || same == VN_SKIP || (refs & nrefs)) {
            vset(W, x, 0);
            continue;
        }
        uint32_t wit = x >= W->nlocs && x < W->refvar ? x - W->nlocs : CK_NIL, name;
        /* a var the loop may write: its placeholder, back operands filled
         * by the latches; at an irreducible target also a var the forward
         * edges disagree on (a phi of t is not in use at an irreducible
         * latch: the var there cannot be "itself") */
        if (V->st2[x] == sm || (irr && !all)) {
            uint32_t id = new_node(W, b, np), h = 0;
            memcpy(&V->ops.data[V->nops.data[id]], row, np * sizeof *row);
            name = id | refs;
            rv_vec_push(V->qpool, ((vn_ent){x, name}));
            if (wit != CK_NIL && htab_find(V, b, row, np, &h) == CK_NIL) V->htab[h] = id + 1; /* (back operands 0: never a phi's) */
        } else if (all) {
            vset(W, x, same);
            continue;
        } else {
            for (uint32_t k = 0; k < np; k++) /* a var the loop keeps: itself on the back edges */
                if (tmpl[k] == 0) row[k] = VN_SELF;
            name = phi_of(W, b, row, np, refs);
        }
        if (wit != CK_NIL && V->nwit.data[name & VN_IDX] == CK_NIL) V->nwit.data[name & VN_IDX] = wit;
        vset(W, x, name);
        if (wit != CK_NIL && (name & VN_REF)) rv_vec_push(V->jpool, ((vn_ent){wit, name}));
    }
    if (header) V->qlist.data[b] = (ck_list){q0, V->qpool.len - q0};
    V->jlist.data[b] = (ck_list){j0, V->jpool.len - j0};
    /* a location's placeholder's witness (for stackmaps): a vreg whose
     * placeholder came in with the same names, or with names assumed equal
     * so far (most likely the one the location carries around the loop) */
    uint32_t nq = V->qpool.len - q0;
    for (uint32_t i = q0; i < V->qpool.len; i++) {
        vn_ent q = V->qpool.data[i];
        uint32_t id = q.name & VN_IDX, h = 0, o;
        if (q.var >= W->nlocs) continue;
        const uint32_t *oq = &V->ops.data[V->nops.data[id]];
        if ((o = htab_find(V, b, oq, np, &h)) != CK_NIL) {
            V->nwit.data[id] = V->nwit.data[o];
            continue;
        }
        for (uint32_t j = q0; j < V->qpool.len && nq <= 256; j++) {
            vn_ent r = V->qpool.data[j];
            if (r.var < W->nlocs || r.var >= W->refvar || ((r.name ^ q.name) & VN_REF)) continue;
            const uint32_t *orr = &V->ops.data[V->nops.data[r.name & VN_IDX]];
            bool same = true;
            for (uint32_t k = 0; k < np && same; k++) same = canon(V, oq[k]) == canon(V, orr[k]);
            if (same) {
                V->nwit.data[id] = r.var - W->nlocs;
                break;
            }
        }
    }
}

/* b has one in-edge (from its idom): its parameters take the arguments'
 * names. */
static void enter_single(vn *W, uint32_t b)
{
    ravel_checker *ck = W->ck;
    const rv_block *bl = &W->f->blocks.data[b];
    if (!bl->nparams) return;
    uint32_t p0 = ck->cfg.g.pred_start[b];
    for (uint32_t k = p0; k < ck->cfg.g.pred_start[b + 1]; k++) {
        if (!ck_reachable(ck, ck->cfg.g.pred[k])) continue;
        const rv_succ *e = &W->f->succs.data[ck->cfg.pedge.data[k]];
        struct ck_vn *V = W->V;
        rv_vec_reserve(V->rows, e->nargs);
        arg_names(W, e, V->rows.data);
        const uint32_t *params = ck_params(W->f, bl);
        for (uint32_t a = 0; a < e->nargs; a++) vset(W, vreg_var(W, params[a]), V->rows.data[a]);
        return;
    }
}

static void size_arrays(vn *W)
{
    ravel_checker *ck = W->ck;
    struct ck_vn *V = W->V;
    uint32_t nv = ck->nlocs + ck->nvregs + 1; /* (+1: the pseudo-var refvar) */
    if (nv > V->var_cap) {
        uint32_t c = nv + nv / 2 + 16;
        V->cur = rv_xrealloc(V->cur, (size_t)c * sizeof *V->cur);
        V->aux = rv_xrealloc(V->aux, (size_t)c * sizeof *V->aux);
        rv_free(V->st);
        rv_free(V->st2);
        V->st = rv_xcalloc(c, sizeof *V->st);
        V->st2 = rv_xcalloc(c, sizeof *V->st2);
        V->var_cap = c;
    }
    memset(V->cur, 0, (size_t)nv * sizeof *V->cur);
    V->log.len = 0;
    V->nblk.len = V->nops.len = V->ops.len = V->uf.len = V->ufleaf.len = V->nwit.len = V->nnew.len = V->nsoft.len = 0;
    new_node(W, CK_NIL, 0); /* node 0: the unknown name, never a phi */
    V->dpool.len = 0;
    V->pairs.len = 0;
    V->nleaves = 0;
    V->scanned = 0;
    /* (fset is empty here: ck_vn_verdict empties it after each walk, so
     * which paths a check takes does not depend on the check before it) */
    V->scan_budget = 16ull * W->f->insts.len + 65536;
    V->full = false;
    V->leaves.len = V->rl.len = V->soft.len = V->cand.len = 0;
    uint32_t ne = W->f->succs.len, n = ck->nblocks;
    V->edl.len = 0;
    rv_vec_reserve(V->edl, ne);
    V->edl.len = ne;
    V->jpool.len = V->jlist.len = 0;
    rv_vec_reserve(V->jlist, n);
    V->jlist.len = n;
    memset(V->jlist.data, 0, (size_t)n * sizeof *V->jlist.data);
    V->mexit.len = V->hmark.len = 0;
    rv_vec_reserve(V->mexit, n);
    rv_vec_reserve(V->hmark, n);
    V->mexit.len = V->hmark.len = n;
}

/* One walk over the dominator tree (false: not proven, or misses found). */
static bool walk(vn *W)
{
    ravel_checker *ck = W->ck;
    struct ck_vn *V = W->V;
    const ravel_func *f = W->f;
    V->frames.len = 0;
    rv_vec_push(V->frames, ((vn_frame){0, ck->cfg.g.dom_start[0], 0, 0}));
    bool first = true;
    while (V->frames.len) {
        vn_frame *fr = &V->frames.data[V->frames.len - 1];
        uint32_t b = fr->block;
        if (first) { /* entering b */
            first = false;
            ck->nvisits++;
            if (b != 0) {
                if (npreds(ck, b) > 1 || ck_is_header(ck, b)) join(W, b);
                else enter_single(W, b);
            }
            if (V->ic.data[b] != CK_NIL && !record_entry(W, b)) return false;
            V->hmark.data[b] = V->log.len;
            W->block = b;
            if (!vblock(W, b)) return false;
            V->mexit.data[b] = V->log.len;
            const rv_inst *t = rv_block_term(f, &f->blocks.data[b]);
            for (uint32_t k = 0; k < rv_inst_nsuccs(t); k++) {
                uint32_t eidx = t->u.succ.first + k;
                const rv_succ *e = &f->succs.data[eidx];
                uint32_t s = e->block;
                if (ck->cfg.g.rpo_index[s] <= ck->cfg.g.rpo_index[b]) { /* a retreating edge: a back edge, or an irreducible one (build_irr) */
                    uint32_t p0 = ck->cfg.g.pred_start[s], j = 0;
                    while (ck->cfg.pedge.data[p0 + j] != eidx) j++;
                    if (!latch(W, j, e)) return false;
                } else if (npreds(ck, s) > 1 || ck_is_header(ck, s)) {
                    if (!record_delta(W, eidx, e)) return false;
                }
            }
            fr = &V->frames.data[V->frames.len - 1];
        }
        if (fr->next < ck->cfg.g.dom_start[b + 1]) {
            uint32_t c = ck->cfg.g.dom_child[fr->next++];
            rv_vec_push(V->frames, ((vn_frame){c, ck->cfg.g.dom_start[c], V->log.len, V->rl.len}));
            first = true;
            continue;
        }
        rollback(W, fr->mark);
        V->rl.len = fr->rlmark;
        V->frames.len--;
    }
    return !V->miss.len;
}

/* The misses so far by block (CSR in xstart/xvar), for build_m and build_irr. */
static void index_misses(vn *W)
{
    struct ck_vn *V = W->V;
    uint32_t n = W->ck->nblocks;
    for (uint32_t i = 0; i < V->miss.len; i++) rv_vec_push(V->xall, V->miss.data[i]);
    V->miss.len = 0;
    V->xstart.len = 0;
    rv_vec_reserve(V->xstart, n + 1);
    V->xstart.len = n + 1;
    memset(V->xstart.data, 0, (size_t)(n + 1) * sizeof *V->xstart.data);
    for (uint32_t i = 0; i < V->xall.len; i++) V->xstart.data[V->xall.data[i].name + 1]++;
    for (uint32_t b = 0; b < n; b++) V->xstart.data[b + 1] += V->xstart.data[b];
    V->xvar.len = 0;
    rv_vec_reserve(V->xvar, V->xall.len);
    V->xvar.len = V->xall.len;
    rv_vec_reserve(V->rows, n); /* (a fill cursor per block) */
    memcpy(V->rows.data, V->xstart.data, (size_t)n * sizeof *V->rows.data);
    for (uint32_t i = 0; i < V->xall.len; i++) V->xvar.data[V->rows.data[V->xall.data[i].name]++] = V->xall.data[i].var;
}

#define VN_MAX_WALKS 4 /* lazy M(h): walks before "not proven" */

/* The walk and the checks after it (ck_vn_verdict). M(h) over its budget
 * makes the walk lazy (build_m): a walk that finds misses is followed by
 * another with them added, at most VN_MAX_WALKS in all. */
static bool vn_walk(ravel_checker *ck)
{
    const ravel_func *f = ck->f;
    static const rv_operand none; /* (a function without operands) */
    vn W = {ck, ck->vn, f, f->ops.data ? f->ops.data : &none, ck->nlocs, NULL, 0, ck->nlocs + ck->nvregs, ck->nregs};
    struct ck_vn *V = W.V;
    V->lazy = (ck->opts & CK_OPT_VN_LAZY) != 0;
    V->miss.len = V->xall.len = 0;
    for (uint32_t attempt = 0;; attempt++) {
        size_arrays(&W);
        W.cur = V->cur;
        if (!build_m(&W)) {
            if (V->lazy) return false;
            V->lazy = true; /* (over the budget: lazy from now on) */
            if (!build_m(&W)) return false;
        }
        if (!build_irr(&W)) return false;
        bool ok = walk(&W);
        if (!V->miss.len) return ok && !V->full && verify(ck, V, 0) && settle_stackmaps(ck, V);
        if (attempt + 1 == VN_MAX_WALKS) return false;
        index_misses(&W);
        if (V->fcount) memset(V->fset, 0, (size_t)V->fcap * sizeof *V->fset); /* (the next walk's names are new) */
        V->fcount = 0;
    }
}

bool ck_vn_verdict(ravel_checker *ck)
{
    if (!ck->cfg.g.nrpo) return true; /* (no reachable block: nothing to read) */
    /* The rules report every location that does not exist: the walk runs
     * only when they found nothing (else the reference decides,
     * and the report has errors anyway). */
    if (!ck->out.rep || ck->out.rep->errs.len) return false;
    if (!ck->vn) ck->vn = rv_xcalloc(1, sizeof *ck->vn);
    bool ok = vn_walk(ck);
    struct ck_vn *V = ck->vn;
    if (V->fcount) memset(V->fset, 0, (size_t)V->fcap * sizeof *V->fset);
    V->fcount = 0;
    return ok;
}
