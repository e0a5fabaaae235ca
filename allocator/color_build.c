/* color_build.c - the `color` allocator's interference graph: the edge
 * set (a triangular bit matrix, or a hash table beyond CG_BITMATRIX_NODES
 * nodes), the adjacency lists, the forbidden-colour masks, the live set,
 * and the build of each round (steps 1-2 of the pipeline at the top of
 * color.c: phi elimination, short ranges of spilled values, one backward
 * walk per block).
 *
 * Requires: the context initialised (cfg, the shared liveness, ridx/fw),
 * the spill decisions of earlier rounds (spilled[]).
 * Guarantees: nodes (vregs, then the short ranges of spilled ones) with
 * their class, weighted occurrences, live length, preferred register and
 * forbidden colours; every interference recorded once in eg, with the
 * build's adjacency in CSR form; the copy/reuse moves to coalesce; or
 * false when the edges would exceed CG_MAX_EDGES. */
#include "color.h"

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

bool rv_cg_has_edge(const cg *c, uint32_t a, uint32_t b)
{
    if (c->eg.bm) {
        size_t x = bm_bit(a, b);
        return (c->eg.bm[x >> 6] >> (x & 63)) & 1;
    }
    uint64_t k = ekey(a, b);
    for (size_t h = ehash(k, c->eg.hcap);; h = (h + 1) & (c->eg.hcap - 1)) {
        if (c->eg.htab[h] == k) return true;
        if (!c->eg.htab[h]) return false;
    }
}

static bool edge_insert(cg *c, uint64_t k)
{
    for (size_t h = ehash(k, c->eg.hcap);; h = (h + 1) & (c->eg.hcap - 1)) {
        if (c->eg.htab[h] == k) return false;
        if (!c->eg.htab[h]) {
            c->eg.htab[h] = k;
            c->eg.hlen++;
            return true;
        }
    }
}

static void edge_grow(cg *c)
{
    uint64_t *old = c->eg.htab;
    size_t ocap = c->eg.hcap;
    c->eg.hcap = ocap ? ocap * 2 : 1024;
    c->eg.htab = rv_xcalloc(c->eg.hcap, sizeof(uint64_t));
    c->eg.hlen = 0;
    for (size_t h = 0; h < ocap; h++)
        if (old[h]) edge_insert(c, old[h]);
    rv_free(old);
}

static void adj_push(cg *c, uint32_t n, uint32_t x)
{
    uint32_t t = c->eg.tail[n];
    if (t == RAVEL_NONE || c->eg.chunks.data[t].n == CG_CHUNK) {
        uint32_t k = c->eg.chunks.len;
        rv_vec_reserve(c->eg.chunks, 1);
        c->eg.chunks.len++;
        c->eg.chunks.data[k].next = RAVEL_NONE;
        c->eg.chunks.data[k].n = 0;
        if (t == RAVEL_NONE) c->eg.head[n] = k;
        else c->eg.chunks.data[t].next = k;
        c->eg.tail[n] = t = k;
    }
    cg_chunk *ch = &c->eg.chunks.data[t];
    ch->e[ch->n++] = x;
}

/* The build's edges as one array (see cg_chunk). */
static void make_csr(cg *c, uint32_t nn)
{
    uint32_t k = 0;
    for (uint32_t n = 0; n < nn; n++) {
        c->eg.cbeg[n] = c->eg.cend[n] = k;
        k += c->degree[n];
    }
    c->eg.cbeg[nn] = k;
    c->eg.cadj.len = 0;
    rv_vec_reserve(c->eg.cadj, k + 1);
    c->eg.cadj.len = k;
    for (uint32_t e = 0; e < c->eg.pairs.len; e++) {
        uint32_t a = (uint32_t)(c->eg.pairs.data[e] >> 32), b = (uint32_t)c->eg.pairs.data[e];
        c->eg.cadj.data[c->eg.cend[a]++] = b;
        c->eg.cadj.data[c->eg.cend[b]++] = a;
    }
    c->eg.csr = true;
}

/* Adds the interference a -- b (same class, distinct); true if new. */
bool rv_cg_add_edge(cg *c, uint32_t a, uint32_t b)
{
    if (a == RAVEL_NONE || b == RAVEL_NONE || a == b || c->ncls.data[a] != c->ncls.data[b]) return false;
    if (c->eg.bm) {
        size_t x = bm_bit(a, b);
        if ((c->eg.bm[x >> 6] >> (x & 63)) & 1) return false;
        c->eg.bm[x >> 6] |= (uint64_t)1 << (x & 63);
        c->eg.hlen++;
    } else {
        if (2 * (c->eg.hlen + 1) > c->eg.hcap) edge_grow(c);
        if (!edge_insert(c, ekey(a, b))) return false;
    }
    if (c->eg.csr) {
        adj_push(c, a, b);
        adj_push(c, b, a);
    } else {
        rv_vec_push(c->eg.pairs, (uint64_t)a << 32 | b);
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

uint32_t rv_cg_popcount_mask(const cg *c, const uint64_t *m)
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
            if (k >= in->ndefs && ops[k].kind == RAVEL_C_ANY) need |= rv_reuser_of(in, ops, k) != RAVEL_NONE;
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
            if (c->lset.dense[k] != copy_src) rv_cg_add_edge(c, dn, c->lset.dense[k]);
        for (uint32_t d2 = 0; d2 < nd; d2++) {
            if (d2 != d) rv_cg_add_edge(c, dn, onode(c, in->first_op + d2));
            if (ops[d2].kind == RAVEL_C_FIXED && d2 != d) forbid_reg(c, dn, ops[d2].arg);
        }
        for (uint32_t u = nd; u < nops; u++) {
            uint32_t un = onode(c, in->first_op + u);
            if (un != RAVEL_NONE && (rv_op_is_early(&ops[d]) || rv_op_is_late(&ops[u]))) rv_cg_add_edge(c, dn, un);
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
        for (uint32_t k = 0; k < c->lset.n; k++) rv_cg_add_edge(c, un, c->lset.dense[k]);
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
        for (uint32_t k = 0; k < c->lset.n; k++) rv_cg_add_edge(c, pn, c->lset.dense[k]);
        for (uint32_t q = 0; q < bl->nparams; q++) rv_cg_add_edge(c, pn, vnode(c, rv_block_params(f, bl)[q]));
    }
}

/* Frees the graph's storage (at the end; rounds reuse it). */
void rv_cg_graph_free(cg *c)
{
    rv_vec_free(c->eg.pairs);
    rv_vec_free(c->eg.cadj);
    rv_free(c->eg.cbeg);
    rv_free(c->eg.cend);
    rv_vec_free(c->eg.chunks);
    rv_free(c->eg.head);
    rv_free(c->eg.tail);
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
    rv_free(c->eg.htab);
    rv_free(c->eg.bm);
    c->eg.htab = NULL;
    c->eg.bm = NULL;
    c->eg.hcap = c->eg.hlen = 0;
    c->ncap = 0;
    c->eg.bmcap = 0;
}

/* Room for nn nodes in every per-node array (grown, never shrunk: a later
 * round has at least as many nodes). */
static void graph_room(cg *c, uint32_t nn)
{
    if (nn <= c->ncap) return;
    uint32_t cap = c->ncap * 2 > nn ? c->ncap * 2 : nn;
    c->eg.cbeg = rv_xrealloc(c->eg.cbeg, sizeof(uint32_t) * (cap + 1));
    c->eg.cend = rv_xrealloc(c->eg.cend, sizeof(uint32_t) * cap);
    c->eg.head = rv_xrealloc(c->eg.head, sizeof(uint32_t) * cap);
    c->eg.tail = rv_xrealloc(c->eg.tail, sizeof(uint32_t) * cap);
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
bool rv_cg_build(cg *c)
{
    make_short_ranges(c);
    uint32_t nn = c->nn + 1;
    graph_room(c, nn);
    c->eg.chunks.len = 0;
    c->eg.pairs.len = 0;
    c->eg.csr = false;
    c->moves.len = 0;
    memset(c->eg.head, 0xff, sizeof(uint32_t) * nn);
    memset(c->eg.tail, 0xff, sizeof(uint32_t) * nn);
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
    c->eg.hlen = 0;
    if (c->nn <= CG_BITMATRIX_NODES) {
        size_t words = ((size_t)c->nn * c->nn / 2 + 64) / 64;
        if (words > c->eg.bmcap) {
            rv_free(c->eg.bm);
            c->eg.bm = rv_xmalloc(sizeof(uint64_t) * words);
            c->eg.bmcap = words;
        }
        memset(c->eg.bm, 0, sizeof(uint64_t) * words);
    } else {
        rv_free(c->eg.bm);
        c->eg.bm = NULL;
        c->eg.bmcap = 0;
        rv_free(c->eg.htab);
        c->eg.htab = NULL;
        c->eg.hcap = 0;
        edge_grow(c);
    }
    for (uint32_t b = 0; b < c->cfg.nblocks; b++) {
        build_block(c, b);
        if (c->eg.hlen > CG_MAX_EDGES) return false;
    }
    make_csr(c, nn);
    return true;
}

