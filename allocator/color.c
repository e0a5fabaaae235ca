/* color.c - the `color` allocator: iterated graph colouring in the
 * Chaitin-Briggs style, on the shared liveness (live.c) and back end
 * (assign.c).
 *
 * Requires: f unallocated, valid SSA, finished. Guarantees: the alloc.h
 * contract; fails only when an instruction's constraints cannot be met.
 *
 * Pipeline, repeated until the graph colours (each round rebuilds it):
 *   1. Phi elimination: a block parameter p is a live range of its own,
 *      defined by one copy per incoming edge (p := argument), placed at the
 *      end of the single-successor predecessor or the start of the
 *      single-predecessor successor (edges are never critical).
 *   2. Build: one backward walk per block over the live nodes. A def
 *      interferes with everything live after its instruction and with the
 *      other defs there, not with a use that dies there (unless the def is
 *      early or the use late), and a `copy`'s def not with its source.
 *      Nodes of different classes never meet: the graph is one graph per
 *      register class sharing one edge table. Physical registers are
 *      precoloured nodes, kept as a per-node "forbidden colours" mask: a
 *      value live across an instruction that clobbers R, writes R through
 *      a fixed def or reads another value from R (a fixed use) interferes
 *      with R; a .ref value live across a safepoint interferes with every
 *      register (it is spilled there: its slot is listed in the stackmap).
 *   3. Conservative coalescing (Briggs): copies, edge copies and reuse
 *      pairs, heaviest (10^loop depth) first, merge two non-interfering
 *      nodes when the merged node has fewer than K significant neighbours
 *      (precoloured ones included).
 *   4. Simplify / select with optimistic colouring: nodes of degree < K are
 *      removed; when none is left the node of least cost/degree is removed
 *      as a potential spill (cost = occurrences weighted by 10^loop depth
 *      over the length of the live range: use density). Select pops the
 *      stack and takes a free colour, preferring a fixed register the value
 *      meets or a copy partner's colour (biased colouring).
 *   5. Spill everywhere: each node left without a colour lives in its slot
 *      for good; every operand of it that needs a register becomes a short
 *      live range of its own (reload right before the instruction, or def
 *      and store right after it) with infinite spill cost; rebuild.
 * The homes (colours, or slots) go to rv_assign_emit, which inserts the
 * moves the constraints need around each instruction; the short ranges'
 * colours are its preferred temporaries.
 *
 * Memory: the edge set is a triangular bit matrix up to 8192 nodes (at
 * most 4 MB), beyond that a hash table holding each interference once (8
 * bytes, load <= 1/2); the build's list of edges (8 bytes each) and two
 * adjacency entries per edge (4 bytes each): about 40 bytes per edge on
 * large graphs; edges are at most the live values at each def, summed over defs.
 * Per node: about 70 bytes. Time per round: linear in the edges. A round
 * reuses the storage of the last one, so that a whole allocation costs
 * about a hundred heap allocations (expensive under AddressSanitizer,
 * where the fuzz targets run). */
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

#define CG_MAX_ROUNDS 40
#define CG_INF 1e300
#define CG_MAX_EDGES ((size_t)1 << 23) /* at most about 300 MB of edge table and lists: refuse beyond */
#define CG_BITMATRIX_NODES 8192 /* up to this many nodes the edge set is a bit matrix (at most 4 MB) */

typedef struct cg_move { uint32_t a, b; double w; } cg_move;
typedef RV_VEC(uint32_t) u32vec;

/* Adjacency lists: the build records each new edge in one list of pairs;
 * once it is done they become one array per round, each node's neighbours
 * contiguous and in the order their edges were made (a counting sort on the
 * degrees). The edges coalescing adds later go to per-node chains of
 * fixed-size chunks from one pool, iterated after the array. A round thus
 * costs a handful of allocations whatever the number of nodes, and the next
 * round reuses the storage. */
#define CG_CHUNK 14
typedef struct cg_chunk { uint32_t next, n, e[CG_CHUNK]; } cg_chunk;

typedef struct cg {
    const ravel_func *f;
    const ravel_machine *m;
    const rv_alloc_opts *opts;
    rv_cfg cfg;
    rv_liveness lv;
    uint32_t nv;
    uint32_t *ridx;      /* register -> index in its class's allocatable list, RAVEL_NONE if reserved */
    uint32_t fw;         /* words of a forbidden-colours mask */
    bool *spilled;       /* per vreg: lives in its slot */
    uint32_t *group;     /* per vreg: slot group */
    uint32_t *home;      /* per vreg: result */
    /* the graph of the current round */
    uint32_t nn;         /* nodes: vregs [0, nv), then short ranges */
    uint32_t *op_node;   /* per operand: its short range, or RAVEL_NONE */
    RV_VEC(uint32_t) ncls;
    uint64_t *htab;      /* edge table: key (lo << 32 | hi) + 1, 0 = empty */
    size_t hcap, hlen;   /* hlen: edges (either representation) */
    uint64_t *bm;        /* instead of htab for small graphs: the triangular bit matrix */
    RV_VEC(uint64_t) pairs;  /* the build's edges, a << 32 | b, in the order made */
    bool csr;                /* the build is over: its edges are in cadj */
    RV_VEC(uint32_t) cadj;   /* the build's adjacency: node n's neighbours are cadj[cbeg[n] .. cend[n]) */
    uint32_t *cbeg, *cend;
    RV_VEC(cg_chunk) chunks; /* edges added after the build (coalescing) */
    uint32_t *head, *tail;   /* per node: first and last chunk of those, RAVEL_NONE if none */
    uint32_t *degree;
    uint64_t *forbid;
    uint32_t *nforb;     /* per node: colours forbidden (bits set in its mask) */
    double *occ;         /* weighted occurrences */
    uint32_t *len;       /* instructions live */
    uint32_t *pref;      /* preferred register (fixed operand), RAVEL_NONE */
    uint32_t *alias;
    uint32_t *color;     /* class-local colour index, RAVEL_NONE */
    RV_VEC(cg_move) moves;
    /* the live set (sparse) */
    rv_sset lset;
    uint32_t *stamp, cur_stamp;
    uint64_t *imask;     /* per class: colours of the registers the current instruction clobbers or fixes */
    uint32_t ncap;       /* nodes the per-node arrays have room for (kept across rounds) */
    size_t bmcap;        /* words the bit matrix has room for */
} cg;

static uint32_t vcls(const cg *c, uint32_t v) { return c->f->vregs.data[v].cls; }
static uint32_t kof(const cg *c, uint32_t cls) { return c->m->classes.data[cls].alloc.len; }
static bool is_short(const cg *c, uint32_t n) { return n >= c->nv; }
static uint64_t *fmask(const cg *c, uint32_t n) { return c->forbid + (size_t)n * c->fw; }

static uint32_t find(cg *c, uint32_t n)
{
    while (c->alias[n] != n) {
        c->alias[n] = c->alias[c->alias[n]];
        n = c->alias[n];
    }
    return n;
}

static double block_weight(const cg *c, uint32_t b)
{
    uint32_t d = c->cfg.loop_depth[b] > 6 ? 6 : c->cfg.loop_depth[b];
    double w = 1;
    while (d--) w *= 10;
    return w;
}

/* ---- edge table ---- */

static uint64_t ekey(uint32_t a, uint32_t b)
{
    if (a > b) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    return ((uint64_t)a << 32 | b) + 1;
}
static size_t ehash(uint64_t k, size_t cap) { return (size_t)((k * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1); }

/* Bit of the pair (a, b) in the triangular matrix. */
static size_t bm_bit(uint32_t a, uint32_t b)
{
    if (a < b) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    return (size_t)a * (a - 1) / 2 + b;
}

static bool has_edge(const cg *c, uint32_t a, uint32_t b)
{
    if (c->bm) {
        size_t x = bm_bit(a, b);
        return (c->bm[x >> 6] >> (x & 63)) & 1;
    }
    uint64_t k = ekey(a, b);
    for (size_t h = ehash(k, c->hcap);; h = (h + 1) & (c->hcap - 1)) {
        if (c->htab[h] == k) return true;
        if (!c->htab[h]) return false;
    }
}

static bool edge_insert(cg *c, uint64_t k)
{
    for (size_t h = ehash(k, c->hcap);; h = (h + 1) & (c->hcap - 1)) {
        if (c->htab[h] == k) return false;
        if (!c->htab[h]) {
            c->htab[h] = k;
            c->hlen++;
            return true;
        }
    }
}

static void edge_grow(cg *c)
{
    uint64_t *old = c->htab;
    size_t ocap = c->hcap;
    c->hcap = ocap ? ocap * 2 : 1024;
    c->htab = rv_xcalloc(c->hcap, sizeof(uint64_t));
    c->hlen = 0;
    for (size_t h = 0; h < ocap; h++)
        if (old[h]) edge_insert(c, old[h]);
    rv_free(old);
}

static void adj_push(cg *c, uint32_t n, uint32_t x)
{
    uint32_t t = c->tail[n];
    if (t == RAVEL_NONE || c->chunks.data[t].n == CG_CHUNK) {
        uint32_t k = c->chunks.len;
        rv_vec_reserve(c->chunks, 1);
        c->chunks.len++;
        c->chunks.data[k].next = RAVEL_NONE;
        c->chunks.data[k].n = 0;
        if (t == RAVEL_NONE) c->head[n] = k;
        else c->chunks.data[t].next = k;
        c->tail[n] = t = k;
    }
    cg_chunk *ch = &c->chunks.data[t];
    ch->e[ch->n++] = x;
}

/* Iteration over the neighbours of a node: the build's, then the chunks'
 * (the pool may grow while a list is walked: a chunk is looked up afresh
 * for each entry). Requires the build to be over (c->csr). */
typedef struct cg_it { uint32_t k, end, ch, ck; } cg_it;

static inline cg_it adj_begin(const cg *c, uint32_t n) { return (cg_it){c->cbeg[n], c->cend[n], c->head[n], 0}; }

static inline __attribute__((always_inline)) bool adj_next(const cg *c, cg_it *it, uint32_t *t)
{
    if (it->k < it->end) {
        *t = c->cadj.data[it->k++];
        return true;
    }
    while (it->ch != RAVEL_NONE) {
        const cg_chunk *x = &c->chunks.data[it->ch];
        if (it->ck < x->n) {
            *t = x->e[it->ck++];
            return true;
        }
        it->ch = x->next;
        it->ck = 0;
    }
    return false;
}

#define CG_FOR_ADJ(C, N, T) for (uint32_t T, it_ok_ = 1; it_ok_; it_ok_ = 0) for (cg_it it_ = adj_begin(C, N); adj_next(C, &it_, &T);)

/* The build's edges as one array (see cg_chunk). */
static void make_csr(cg *c, uint32_t nn)
{
    uint32_t k = 0;
    for (uint32_t n = 0; n < nn; n++) {
        c->cbeg[n] = c->cend[n] = k;
        k += c->degree[n];
    }
    c->cbeg[nn] = k;
    c->cadj.len = 0;
    rv_vec_reserve(c->cadj, k + 1);
    c->cadj.len = k;
    for (uint32_t e = 0; e < c->pairs.len; e++) {
        uint32_t a = (uint32_t)(c->pairs.data[e] >> 32), b = (uint32_t)c->pairs.data[e];
        c->cadj.data[c->cend[a]++] = b;
        c->cadj.data[c->cend[b]++] = a;
    }
    c->csr = true;
}

/* Adds the interference a -- b (same class, distinct); true if new. */
static bool add_edge(cg *c, uint32_t a, uint32_t b)
{
    if (a == RAVEL_NONE || b == RAVEL_NONE || a == b || c->ncls.data[a] != c->ncls.data[b]) return false;
    if (c->bm) {
        size_t x = bm_bit(a, b);
        if ((c->bm[x >> 6] >> (x & 63)) & 1) return false;
        c->bm[x >> 6] |= (uint64_t)1 << (x & 63);
        c->hlen++;
    } else {
        if (2 * (c->hlen + 1) > c->hcap) edge_grow(c);
        if (!edge_insert(c, ekey(a, b))) return false;
    }
    if (c->csr) {
        adj_push(c, a, b);
        adj_push(c, b, a);
    } else {
        rv_vec_push(c->pairs, (uint64_t)a << 32 | b);
    }
    c->degree[a]++;
    c->degree[b]++;
    return true;
}

static void forbid_colour(cg *c, uint32_t n, uint32_t x)
{
    if (rv_bs_test(fmask(c, n), x)) return;
    rv_bs_set(fmask(c, n), x);
    c->nforb[n]++;
}

static void forbid_reg(cg *c, uint32_t n, uint32_t r)
{
    if (r >= c->m->regs.len || c->ridx[r] == RAVEL_NONE || c->m->regs.data[r].cls != c->ncls.data[n]) return;
    forbid_colour(c, n, c->ridx[r]);
}

static uint32_t popcount_mask(const cg *c, const uint64_t *m)
{
    uint32_t k = 0;
    for (uint32_t w = 0; w < c->fw; w++) k += (uint32_t)__builtin_popcountll(m[w]);
    return k;
}

/* Forbids node n every colour of mask m (of n's class). */
static void forbid_mask(cg *c, uint32_t n, const uint64_t *m)
{
    uint64_t *fm = fmask(c, n);
    for (uint32_t w = 0; w < c->fw; w++) {
        uint64_t add = m[w] & ~fm[w];
        if (!add) continue;
        fm[w] |= add;
        c->nforb[n] += (uint32_t)__builtin_popcountll(add);
    }
}

/* Adds register r to the instruction mask of its class (c->imask). */
static void imask_add(cg *c, uint32_t r)
{
    if (r >= c->m->regs.len || c->ridx[r] == RAVEL_NONE) return;
    rv_bs_set(c->imask + (size_t)c->m->regs.data[r].cls * c->fw, c->ridx[r]);
}

/* ---- the live set ---- */

static void live_add(cg *c, uint32_t n)
{
    if (n != RAVEL_NONE) rv_sset_add(&c->lset, n);
}
static void live_del(cg *c, uint32_t n)
{
    if (n != RAVEL_NONE) rv_sset_del(&c->lset, n);
}

/* ---- build ---- */

/* The node of vreg v (RAVEL_NONE if it lives in its slot). */
static uint32_t vnode(const cg *c, uint32_t v) { return c->spilled[v] ? RAVEL_NONE : v; }

/* The node an operand occupies at its instruction: its vreg's, else its
 * short range (spilled vreg, register needed), else none. */
static uint32_t onode(const cg *c, uint32_t opi)
{
    uint32_t v = c->f->ops.data[opi].vreg;
    return c->spilled[v] ? c->op_node[opi] : v;
}

static uint32_t new_node(cg *c, uint32_t cls)
{
    rv_vec_push(c->ncls, cls);
    return c->ncls.len - 1;
}

/* Short ranges for the operands of spilled vregs that need a register. */
static void make_short_ranges(cg *c)
{
    const ravel_func *f = c->f;
    c->ncls.len = 0;
    for (uint32_t v = 0; v < c->nv; v++) rv_vec_push(c->ncls, vcls(c, v));
    for (uint32_t i = 0; i < f->insts.len; i++) {
        const rv_inst *in = rv_inst_at(f, i);
        const rv_operand *ops = rv_ops_of(f, in);
        for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) {
            uint32_t opi = in->first_op + k, v = ops[k].vreg;
            c->op_node[opi] = RAVEL_NONE;
            if (!c->spilled[v]) continue;
            bool need = ops[k].kind == RAVEL_C_REG;
            if (k >= in->ndefs && ops[k].kind == RAVEL_C_ANY)
                for (uint32_t d = 0; d < in->ndefs; d++) need |= ops[d].kind == RAVEL_C_REUSE && ops[d].arg == k - in->ndefs;
            if (need) c->op_node[opi] = new_node(c, vcls(c, v));
        }
    }
    c->nn = c->ncls.len;
}

static void add_move(cg *c, uint32_t a, uint32_t b, double w)
{
    if (a == RAVEL_NONE || b == RAVEL_NONE || a == b || c->ncls.data[a] != c->ncls.data[b]) return;
    cg_move mv = {a, b, w};
    rv_vec_push(c->moves, mv);
}

static void occur(cg *c, uint32_t n, double w, uint32_t pref)
{
    if (n == RAVEL_NONE) return;
    c->occ[n] += w;
    if (pref != RAVEL_NONE && c->pref[n] == RAVEL_NONE && c->ridx[pref] != RAVEL_NONE && c->m->regs.data[pref].cls == c->ncls.data[n])
        c->pref[n] = pref;
}

/* Interference at instruction i; the live set holds what is live after i
 * (plus the short ranges of the next instruction, which a def here meets). */
static void build_inst(cg *c, uint32_t i, double w, uint32_t nshort_next)
{
    const ravel_func *f = c->f;
    const rv_inst *in = rv_inst_at(f, i);
    const rv_operand *ops = rv_ops_of(f, in);
    uint32_t nd = in->ndefs, nops = nd + in->nuses;
    bool copy = in->op == RAVEL_OP_COPY && nd == 1 && in->nuses == 1 &&
                c->f->vregs.data[ops[0].vreg].ref == c->f->vregs.data[ops[1].vreg].ref;
    uint32_t copy_src = copy ? vnode(c, ops[1].vreg) : RAVEL_NONE;
    /* registers written or read at fixed positions: live-across values must avoid them */
    const uint32_t *clob;
    uint32_t nclob = rv_inst_clobbers(f, in, &clob);
    bool fixed = false;
    for (uint32_t o = 0; o < nops; o++) fixed |= ops[o].kind == RAVEL_C_FIXED;
    if (nclob || fixed) { /* per class: the colours of those registers */
        memset(c->imask, 0, sizeof(uint64_t) * c->fw * c->m->classes.len);
        for (uint32_t q = 0; q < nclob; q++) imask_add(c, clob[q]);
        for (uint32_t o = 0; o < nops; o++)
            if (ops[o].kind == RAVEL_C_FIXED) imask_add(c, ops[o].arg);
    }
    for (uint32_t k = 0; (nclob || fixed || (in->flags & RV_IF_SAFEPOINT)) && k < c->lset.n - nshort_next; k++) {
        uint32_t n = c->lset.dense[k];
        bool def_here = false, own_fixed_use = false;
        for (uint32_t d = 0; d < nd; d++) def_here |= onode(c, in->first_op + d) == n;
        if (def_here) continue;
        for (uint32_t o = nd; o < nops; o++) own_fixed_use |= ops[o].kind == RAVEL_C_FIXED && vnode(c, ops[o].vreg) == n;
        if (!own_fixed_use) {
            if (nclob || fixed) forbid_mask(c, n, c->imask + (size_t)c->ncls.data[n] * c->fw);
        } else { /* n may stay in the register it is read from */
            for (uint32_t q = 0; q < nclob; q++) forbid_reg(c, n, clob[q]);
            for (uint32_t o = 0; o < nops; o++)
                if (ops[o].kind == RAVEL_C_FIXED && !(o >= nd && vnode(c, ops[o].vreg) == n)) forbid_reg(c, n, ops[o].arg);
        }
        if ((in->flags & RV_IF_SAFEPOINT) && !is_short(c, n) && c->f->vregs.data[n].ref)
            for (uint32_t x = 0; x < kof(c, c->ncls.data[n]); x++) forbid_colour(c, n, x);
    }
    for (uint32_t d = 0; d < nd; d++) {
        uint32_t dn = onode(c, in->first_op + d);
        occur(c, dn, w, ops[d].kind == RAVEL_C_FIXED ? ops[d].arg : RAVEL_NONE);
        if (dn == RAVEL_NONE) continue;
        for (uint32_t k = 0; k < c->lset.n; k++)
            if (c->lset.dense[k] != copy_src) add_edge(c, dn, c->lset.dense[k]);
        for (uint32_t d2 = 0; d2 < nd; d2++) {
            if (d2 != d) add_edge(c, dn, onode(c, in->first_op + d2));
            if (ops[d2].kind == RAVEL_C_FIXED && d2 != d) forbid_reg(c, dn, ops[d2].arg);
        }
        for (uint32_t u = nd; u < nops; u++) {
            uint32_t un = onode(c, in->first_op + u);
            if (un != RAVEL_NONE && (rv_op_is_early(&ops[d]) || rv_op_is_late(&ops[u]))) add_edge(c, dn, un);
            if (ops[u].kind == RAVEL_C_FIXED && (rv_op_is_early(&ops[d]) || rv_op_is_late(&ops[u])) && un != dn)
                forbid_reg(c, dn, ops[u].arg);
        }
        if (ops[d].kind == RAVEL_C_REUSE && ops[d].arg < in->nuses) add_move(c, dn, onode(c, in->first_op + nd + ops[d].arg), w);
    }
    if (copy) add_move(c, onode(c, in->first_op), onode(c, in->first_op + 1), w);
    /* short ranges of the next instruction end where it starts */
    c->lset.n -= nshort_next;
    for (uint32_t d = 0; d < nd; d++) live_del(c, vnode(c, ops[d].vreg));
    for (uint32_t k = 0; k < c->lset.n; k++) c->len[c->lset.dense[k]]++;
    for (uint32_t u = nd; u < nops; u++) {
        uint32_t un = onode(c, in->first_op + u);
        occur(c, un, w, ops[u].kind == RAVEL_C_FIXED ? ops[u].arg : RAVEL_NONE);
        if (un == RAVEL_NONE) continue;
        if (!c->spilled[ops[u].vreg]) {
            live_add(c, un);
            /* a value read from another register than a fixed one of this instruction */
            for (uint32_t o = nd; o < nops; o++)
                if (ops[o].kind == RAVEL_C_FIXED && ops[o].vreg != ops[u].vreg) forbid_reg(c, un, ops[o].arg);
            /* an early fixed def writes its register before the uses are read, a late use after the defs */
            for (uint32_t d = 0; d < nd; d++)
                if (ops[d].kind == RAVEL_C_FIXED && (rv_op_is_early(&ops[d]) || rv_op_is_late(&ops[u]))) forbid_reg(c, un, ops[d].arg);
            if (rv_op_is_late(&ops[u]))
                for (uint32_t q = 0; q < nclob; q++) forbid_reg(c, un, clob[q]);
        }
    }
}

/* Short use ranges of instruction i: live just before it, with everything
 * live there; returns how many were appended to the live set (kept at its
 * end until the previous instruction's defs have seen them). */
static uint32_t short_uses(cg *c, uint32_t i)
{
    const ravel_func *f = c->f;
    const rv_inst *in = rv_inst_at(f, i);
    const rv_operand *ops = rv_ops_of(f, in);
    uint32_t n = 0, nd = in->ndefs, nops = nd + in->nuses;
    for (uint32_t u = nd; u < nops; u++) {
        uint32_t un = c->op_node[in->first_op + u];
        if (un == RAVEL_NONE || !c->spilled[ops[u].vreg]) continue;
        for (uint32_t k = 0; k < c->lset.n; k++) add_edge(c, un, c->lset.dense[k]);
        for (uint32_t o = nd; o < nops; o++)
            if (ops[o].kind == RAVEL_C_FIXED) forbid_reg(c, un, ops[o].arg);
        for (uint32_t d = 0; d < nd; d++)
            if (ops[d].kind == RAVEL_C_FIXED && (rv_op_is_early(&ops[d]) || rv_op_is_late(&ops[u]))) forbid_reg(c, un, ops[d].arg);
        if (rv_op_is_late(&ops[u])) {
            const uint32_t *clob;
            uint32_t nclob = rv_inst_clobbers(f, in, &clob);
            for (uint32_t q = 0; q < nclob; q++) forbid_reg(c, un, clob[q]);
        }
        live_add(c, un);
        n++;
    }
    return n;
}

static void build_block(cg *c, uint32_t b)
{
    const ravel_func *f = c->f;
    const rv_block *bl = &f->blocks.data[b];
    double w = block_weight(c, b);
    c->lset.n = 0;
    const uint64_t *outb = c->lv.out + (size_t)b * c->lv.nwords;
    for (uint32_t x = 0; x < c->lv.nwords; x++)
        for (uint64_t bits = outb[x]; bits; bits &= bits - 1) live_add(c, vnode(c, x * 64 + (uint32_t)__builtin_ctzll(bits)));
    const rv_inst *t = rv_block_term(f, bl);
    for (uint32_t s = 0; s < rv_inst_nsuccs(t); s++) { /* arguments: live after the branch; edge copies */
        const rv_succ *sc = &rv_inst_succs(f, t)[s];
        const rv_block *sb = &f->blocks.data[sc->block];
        for (uint32_t k = 0; k < sc->nargs; k++) {
            uint32_t av = rv_succ_args(f, sc)[k];
            live_add(c, vnode(c, av));
            occur(c, vnode(c, av), w, RAVEL_NONE);
            if (k < sb->nparams) add_move(c, vnode(c, av), vnode(c, rv_block_params(f, sb)[k]), w);
        }
    }
    uint32_t nshort = 0;
    for (uint32_t j = bl->ninsts; j-- > 0;) {
        uint32_t i = bl->first_inst + j;
        build_inst(c, i, w, nshort);
        nshort = short_uses(c, i);
    }
    c->lset.n -= nshort;
    for (uint32_t p = 0; p < bl->nparams; p++) { /* parameters: defined together at the entry */
        uint32_t pn = vnode(c, rv_block_params(f, bl)[p]);
        if (pn == RAVEL_NONE) continue;
        occur(c, pn, w, RAVEL_NONE);
        for (uint32_t k = 0; k < c->lset.n; k++) add_edge(c, pn, c->lset.dense[k]);
        for (uint32_t q = 0; q < bl->nparams; q++) add_edge(c, pn, vnode(c, rv_block_params(f, bl)[q]));
    }
}

/* Frees the graph's storage (at the end; rounds reuse it). */
static void graph_free(cg *c)
{
    rv_vec_free(c->pairs);
    rv_vec_free(c->cadj);
    rv_free(c->cbeg);
    rv_free(c->cend);
    rv_vec_free(c->chunks);
    rv_free(c->head);
    rv_free(c->tail);
    rv_free(c->degree);
    rv_free(c->forbid);
    rv_free(c->nforb);
    rv_free(c->occ);
    rv_free(c->len);
    rv_free(c->pref);
    rv_free(c->alias);
    rv_free(c->color);
    rv_free(c->lset.dense);
    rv_free(c->lset.pos);
    rv_free(c->stamp);
    rv_free(c->htab);
    rv_free(c->bm);
    c->htab = NULL;
    c->bm = NULL;
    c->hcap = c->hlen = 0;
    c->ncap = 0;
    c->bmcap = 0;
}

/* Room for nn nodes in every per-node array (grown, never shrunk: a later
 * round has at least as many nodes). */
static void graph_room(cg *c, uint32_t nn)
{
    if (nn <= c->ncap) return;
    uint32_t cap = c->ncap * 2 > nn ? c->ncap * 2 : nn;
    c->cbeg = rv_xrealloc(c->cbeg, sizeof(uint32_t) * (cap + 1));
    c->cend = rv_xrealloc(c->cend, sizeof(uint32_t) * cap);
    c->head = rv_xrealloc(c->head, sizeof(uint32_t) * cap);
    c->tail = rv_xrealloc(c->tail, sizeof(uint32_t) * cap);
    c->degree = rv_xrealloc(c->degree, sizeof(uint32_t) * cap);
    c->forbid = rv_xrealloc(c->forbid, sizeof(uint64_t) * c->fw * cap);
    c->nforb = rv_xrealloc(c->nforb, sizeof(uint32_t) * cap);
    c->occ = rv_xrealloc(c->occ, sizeof(double) * cap);
    c->len = rv_xrealloc(c->len, sizeof(uint32_t) * cap);
    c->pref = rv_xrealloc(c->pref, sizeof(uint32_t) * cap);
    c->alias = rv_xrealloc(c->alias, sizeof(uint32_t) * cap);
    c->color = rv_xrealloc(c->color, sizeof(uint32_t) * cap);
    c->lset.dense = rv_xrealloc(c->lset.dense, sizeof(uint32_t) * cap);
    c->lset.pos = rv_xrealloc(c->lset.pos, sizeof(uint32_t) * cap);
    c->stamp = rv_xrealloc(c->stamp, sizeof(uint32_t) * cap);
    c->ncap = cap;
}

/* Builds the graph of this round (on the storage of the last one); false
 * if it grows beyond CG_MAX_EDGES. */
static bool build(cg *c)
{
    make_short_ranges(c);
    uint32_t nn = c->nn + 1;
    graph_room(c, nn);
    c->chunks.len = 0;
    c->pairs.len = 0;
    c->csr = false;
    c->moves.len = 0;
    memset(c->head, 0xff, sizeof(uint32_t) * nn);
    memset(c->tail, 0xff, sizeof(uint32_t) * nn);
    memset(c->degree, 0, sizeof(uint32_t) * nn);
    memset(c->forbid, 0, sizeof(uint64_t) * c->fw * nn);
    memset(c->nforb, 0, sizeof(uint32_t) * nn);
    memset(c->occ, 0, sizeof(double) * nn);
    memset(c->len, 0, sizeof(uint32_t) * nn);
    memset(c->pref, 0xff, sizeof(uint32_t) * nn);
    for (uint32_t n = 0; n < nn; n++) c->alias[n] = n;
    memset(c->color, 0xff, sizeof(uint32_t) * nn);
    memset(c->lset.pos, 0, sizeof(uint32_t) * nn);
    memset(c->stamp, 0, sizeof(uint32_t) * nn);
    c->cur_stamp = 0;
    c->hlen = 0;
    if (c->nn <= CG_BITMATRIX_NODES) {
        size_t words = ((size_t)c->nn * c->nn / 2 + 64) / 64;
        if (words > c->bmcap) {
            rv_free(c->bm);
            c->bm = rv_xmalloc(sizeof(uint64_t) * words);
            c->bmcap = words;
        }
        memset(c->bm, 0, sizeof(uint64_t) * words);
    } else {
        rv_free(c->bm);
        c->bm = NULL;
        c->bmcap = 0;
        rv_free(c->htab);
        c->htab = NULL;
        c->hcap = 0;
        edge_grow(c);
    }
    for (uint32_t b = 0; b < c->cfg.nblocks; b++) {
        build_block(c, b);
        if (c->hlen > CG_MAX_EDGES) return false;
    }
    make_csr(c, nn);
    return true;
}

/* ---- coalescing (Briggs) ---- */

static uint32_t eff_degree(const cg *c, uint32_t n) { return c->degree[n] + c->nforb[n]; }

static bool briggs_ok(cg *c, uint32_t a, uint32_t b)
{
    uint32_t K = kof(c, c->ncls.data[a]), sig = 0;
    for (uint32_t w = 0; w < c->fw; w++) sig += (uint32_t)__builtin_popcountll(fmask(c, a)[w] | fmask(c, b)[w]);
    if (sig >= K) return false;
    c->cur_stamp++;
    uint32_t both[2] = {a, b};
    for (int s = 0; s < 2; s++) {
        CG_FOR_ADJ(c, both[s], t) {
            if (c->alias[t] != t || c->stamp[t] == c->cur_stamp) continue;
            c->stamp[t] = c->cur_stamp;
            uint32_t d = eff_degree(c, t);
            if (has_edge(c, t, a) && has_edge(c, t, b)) d--; /* loses one neighbour */
            if (d >= K && ++sig >= K) return false;
        }
    }
    return true;
}

static void combine(cg *c, uint32_t a, uint32_t b)
{
    c->alias[b] = a;
    CG_FOR_ADJ(c, b, t) {
        if (c->alias[t] != t) continue;
        add_edge(c, a, t); /* t gains a if new (counted there) */
        c->degree[t]--;    /* and loses b */
    }
    c->head[b] = c->tail[b] = RAVEL_NONE;
    c->cend[b] = c->cbeg[b];
    for (uint32_t w = 0; w < c->fw; w++) fmask(c, a)[w] |= fmask(c, b)[w];
    c->nforb[a] = popcount_mask(c, fmask(c, a));
    c->occ[a] += c->occ[b];
    c->len[a] += c->len[b];
    if (c->pref[a] == RAVEL_NONE) c->pref[a] = c->pref[b];
}

static int cmp_move(const void *x, const void *y)
{
    const cg_move *a = x, *b = y;
    return (a->w < b->w) - (a->w > b->w);
}

static void coalesce(cg *c)
{
    if (c->moves.len > 1) qsort(c->moves.data, c->moves.len, sizeof(cg_move), cmp_move);
    for (uint32_t k = 0; k < c->moves.len; k++) {
        uint32_t a = find(c, c->moves.data[k].a), b = find(c, c->moves.data[k].b);
        if (a == b || is_short(c, a) || is_short(c, b) || has_edge(c, a, b)) continue;
        if (c->f->vregs.data[a].ref != c->f->vregs.data[b].ref) continue;
        if (!briggs_ok(c, a, b)) continue;
        if (b < a) {
            uint32_t t = a;
            a = b;
            b = t;
        }
        combine(c, a, b);
    }
}

/* ---- simplify / select ---- */

typedef struct heap_ent { double key; uint32_t n; } heap_ent;
typedef RV_VEC(heap_ent) heapvec;

static void heap_push(heapvec *h, double key, uint32_t n)
{
    heap_ent e = {key, n};
    rv_vec_push(*h, e);
    uint32_t i = h->len - 1;
    while (i && h->data[(i - 1) / 2].key > h->data[i].key) {
        heap_ent t = h->data[i];
        h->data[i] = h->data[(i - 1) / 2];
        h->data[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static heap_ent heap_pop(heapvec *h)
{
    heap_ent top = h->data[0];
    h->data[0] = h->data[--h->len];
    for (uint32_t i = 0;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->len && h->data[l].key < h->data[m].key) m = l;
        if (r < h->len && h->data[r].key < h->data[m].key) m = r;
        if (m == i) break;
        heap_ent t = h->data[i];
        h->data[i] = h->data[m];
        h->data[m] = t;
        i = m;
    }
    return top;
}

static double spill_key(const cg *c, uint32_t n)
{
    if (is_short(c, n)) return CG_INF;
    double density = c->occ[n] / (double)(c->len[n] + 1);
    return density / (double)(eff_degree(c, n) + 1);
}

/* Simplify: the removal order onto stack (low-degree nodes first, else the
 * cheapest potential spill). */
static void simplify(cg *c, u32vec *stack)
{
    bool *removed = rv_xcalloc(c->nn + 1, 1);
    u32vec low = {0};
    heapvec heap = {0};
    uint32_t left = 0;
    for (uint32_t n = 0; n < c->nn; n++) {
        if (c->alias[n] != n || (!is_short(c, n) && c->spilled[n])) {
            removed[n] = true;
            continue;
        }
        left++;
        if (eff_degree(c, n) < kof(c, c->ncls.data[n])) rv_vec_push(low, n);
        else heap_push(&heap, spill_key(c, n), n);
    }
    while (left) {
        uint32_t n = RAVEL_NONE;
        while (low.len && n == RAVEL_NONE) {
            uint32_t x = low.data[--low.len];
            if (!removed[x]) n = x;
        }
        while (n == RAVEL_NONE && heap.len) {
            heap_ent e = heap_pop(&heap);
            if (removed[e.n]) continue;
            double k = spill_key(c, e.n);
            if (k > e.key && heap.len) heap_push(&heap, k, e.n); /* degree dropped since: requeue */
            else n = e.n;
        }
        if (n == RAVEL_NONE) break;
        removed[n] = true;
        left--;
        rv_vec_push(*stack, n);
        uint32_t K = kof(c, c->ncls.data[n]);
        CG_FOR_ADJ(c, n, t) {
            if (removed[t] || c->alias[t] != t) continue;
            c->degree[t]--;
            if (eff_degree(c, t) == K - 1) rv_vec_push(low, t);
        }
    }
    rv_free(removed);
    rv_vec_free(low);
    rv_vec_free(heap);
}

/* Colours free for n (bit per class-local index) in `ok`; false if none. */
static bool free_colours(cg *c, uint32_t n, uint64_t *ok)
{
    uint32_t K = kof(c, c->ncls.data[n]);
    memset(ok, 0, sizeof(uint64_t) * c->fw);
    for (uint32_t x = 0; x < K; x++) rv_bs_set(ok, x);
    for (uint32_t w = 0; w < c->fw; w++) ok[w] &= ~fmask(c, n)[w];
    CG_FOR_ADJ(c, n, t) {
        if (c->alias[t] != t) t = find(c, t);
        if (c->color[t] != RAVEL_NONE) rv_bs_clear(ok, c->color[t]);
    }
    for (uint32_t w = 0; w < c->fw; w++)
        if (ok[w]) return true;
    return false;
}

/* Select: pops the stack; returns the number of real nodes left without a
 * colour (actual spills). */
static uint32_t select_colours(cg *c, const u32vec *stack, const u32vec *partners, const uint32_t *pstart)
{
    uint64_t *ok = rv_xcalloc(c->fw + 1, sizeof(uint64_t));
    uint32_t nspill = 0;
    for (uint32_t s = stack->len; s-- > 0;) {
        uint32_t n = stack->data[s];
        if (!free_colours(c, n, ok)) {
            nspill += !is_short(c, n);
            continue;
        }
        uint32_t col = RAVEL_NONE;
        if (c->pref[n] != RAVEL_NONE && rv_bs_test(ok, c->ridx[c->pref[n]])) col = c->ridx[c->pref[n]];
        for (uint32_t k = pstart[n]; col == RAVEL_NONE && k < pstart[n + 1]; k++) { /* a copy partner's colour */
            uint32_t t = find(c, partners->data[k]);
            if (c->color[t] != RAVEL_NONE && rv_bs_test(ok, c->color[t])) col = c->color[t];
        }
        for (uint32_t x = 0; col == RAVEL_NONE; x++)
            if (rv_bs_test(ok, x)) col = x;
        c->color[n] = col;
    }
    rv_free(ok);
    return nspill;
}

/* Copy partners per root node, CSR (for biased colouring). */
static uint32_t *partner_lists(cg *c, u32vec *partners)
{
    uint32_t *start = rv_xcalloc(c->nn + 2, sizeof(uint32_t));
    for (uint32_t k = 0; k < c->moves.len; k++) {
        start[find(c, c->moves.data[k].a) + 1]++;
        start[find(c, c->moves.data[k].b) + 1]++;
    }
    for (uint32_t n = 0; n < c->nn + 1; n++) start[n + 1] += start[n];
    rv_vec_reserve(*partners, 2 * c->moves.len + 1);
    partners->len = 2 * c->moves.len;
    uint32_t *fill = rv_xmalloc(sizeof(uint32_t) * (c->nn + 1));
    memcpy(fill, start, sizeof(uint32_t) * (c->nn + 1));
    for (uint32_t k = 0; k < c->moves.len; k++) {
        uint32_t a = find(c, c->moves.data[k].a), b = find(c, c->moves.data[k].b);
        partners->data[fill[a]++] = b;
        partners->data[fill[b]++] = a;
    }
    rv_free(fill);
    return start;
}

/* One round: build, coalesce, simplify, select. Returns the actual spills
 * (marked spilled, members of a coalesced node sharing one slot), or
 * RAVEL_NONE if the graph is too large. */
static uint32_t colour_round(cg *c)
{
    if (!build(c)) return RAVEL_NONE;
    coalesce(c);
    u32vec stack = {0}, partners = {0};
    simplify(c, &stack);
    uint32_t *pstart = partner_lists(c, &partners);
    uint32_t nspill = select_colours(c, &stack, &partners, pstart);
    rv_free(pstart);
    rv_vec_free(partners);
    rv_vec_free(stack);
    for (uint32_t v = 0; v < c->nv; v++) {
        if (c->spilled[v]) continue;
        uint32_t r = find(c, v);
        c->group[v] = r;
        if (c->color[r] == RAVEL_NONE) {
            c->spilled[v] = true;
            rv_alloc_trace(c->opts, "color", "spill v%u", c->f->vregs.data[v].num);
        }
    }
    return nspill;
}

static void cg_homes(cg *c, uint32_t *hint)
{
    for (uint32_t v = 0; v < c->nv; v++) {
        c->home[v] = RAVEL_NONE;
        if (c->spilled[v]) continue;
        uint32_t col = c->color[find(c, v)];
        if (col != RAVEL_NONE) c->home[v] = c->m->classes.data[vcls(c, v)].alloc.data[col];
    }
    for (uint32_t k = 0; k < c->f->ops.len; k++) {
        uint32_t n = c->op_node[k];
        hint[k] = RAVEL_NONE;
        if (n == RAVEL_NONE || c->color[n] == RAVEL_NONE) continue;
        hint[k] = c->m->classes.data[c->ncls.data[n]].alloc.data[c->color[n]];
    }
}

ravel_func *rv_alloc_color(const ravel_func *f, const rv_alloc_opts *o, char **err)
{
    cg c;
    memset(&c, 0, sizeof c);
    c.f = f;
    c.m = f->mach;
    c.opts = o;
    c.nv = f->vregs.len;
    rv_cfg_build(&c.cfg, f);
    if (rv_liveness_bytes(f, &c.cfg) > RV_LIVENESS_MAX_BYTES) {
        if (err) *err = rv_alloc_errorf(f, RAVEL_NONE, "too large: liveness over %u blocks and %u vregs exceeds the memory limit",
                                        c.cfg.nblocks, c.nv);
        rv_cfg_free(&c.cfg);
        return NULL;
    }
    rv_liveness_build(&c.lv, f, &c.cfg);
    uint32_t nr = c.m->regs.len, maxk = 1;
    c.ridx = rv_xmalloc(sizeof(uint32_t) * (nr + 1));
    memset(c.ridx, 0xff, sizeof(uint32_t) * (nr + 1));
    for (uint32_t k = 0; k < c.m->classes.len; k++) {
        const rv_class *cl = &c.m->classes.data[k];
        for (uint32_t x = 0; x < cl->alloc.len; x++) c.ridx[cl->alloc.data[x]] = x;
        if (cl->alloc.len > maxk) maxk = cl->alloc.len;
    }
    c.fw = rv_bs_words(maxk);
    c.imask = rv_xcalloc((size_t)c.m->classes.len * c.fw + 1, sizeof(uint64_t));
    c.spilled = rv_xcalloc(c.nv + 1, sizeof(bool));
    c.group = rv_xmalloc(sizeof(uint32_t) * (c.nv + 1));
    for (uint32_t v = 0; v < c.nv; v++) c.group[v] = v;
    c.home = rv_xmalloc(sizeof(uint32_t) * (c.nv + 1));
    c.op_node = rv_xmalloc(sizeof(uint32_t) * (f->ops.len + 1));
    uint32_t *hint = rv_xmalloc(sizeof(uint32_t) * (f->ops.len + 1));
    bool too_big = false;
    for (uint32_t r = 0;; r++) {
        bool last = r + 1 >= CG_MAX_ROUNDS; /* then the uncoloured live in their slots, without short ranges */
        uint32_t nspill = colour_round(&c);
        if (nspill == RAVEL_NONE) {
            too_big = true;
            break;
        }
        rv_alloc_trace(o, "color", "round %u: %u nodes, %zu edges, %u spilled", r, c.nn, c.hlen, nspill);
        if (!nspill || last) break;
    }
    ravel_func *g = NULL;
    if (too_big) {
        if (err) *err = rv_alloc_errorf(f, RAVEL_NONE, "too large: the interference graph exceeds %zu edges", (size_t)CG_MAX_EDGES);
    } else {
        cg_homes(&c, hint);
        rv_assign_in ai = {f, &c.cfg, &c.lv, c.home, c.group, hint};
        g = rv_assign_emit(&ai, err);
    }
    graph_free(&c);
    rv_vec_free(c.ncls);
    rv_vec_free(c.moves);
    rv_free(hint);
    rv_free(c.imask);
    rv_free(c.ridx);
    rv_free(c.spilled);
    rv_free(c.group);
    rv_free(c.home);
    rv_free(c.op_node);
    rv_liveness_free(&c.lv);
    rv_cfg_free(&c.cfg);
    return g;
}
