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
 * where the fuzz targets run).
 *
 * Files: color.h (the context, the edge set in its part eg), color_build.c
 * (the graph and steps 1-2), this file (steps 3-5 and the driver). */
#include "color.h"

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
            if (rv_cg_has_edge(c, t, a) && rv_cg_has_edge(c, t, b)) d--; /* loses one neighbour */
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
        rv_cg_add_edge(c, a, t); /* t gains a if new (counted there) */
        c->degree[t]--;    /* and loses b */
    }
    c->eg.head[b] = c->eg.tail[b] = RAVEL_NONE;
    c->eg.cend[b] = c->eg.cbeg[b];
    for (uint32_t w = 0; w < c->fw; w++) fmask(c, a)[w] |= fmask(c, b)[w];
    c->nforb[a] = rv_cg_popcount_mask(c, fmask(c, a));
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
        if (a == b || is_short(c, a) || is_short(c, b) || rv_cg_has_edge(c, a, b)) continue;
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
    if (!rv_cg_build(c)) return RAVEL_NONE;
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
        rv_alloc_trace(o, "color", "round %u: %u nodes, %zu edges, %u spilled", r, c.nn, c.eg.hlen, nspill);
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
    rv_cg_graph_free(&c);
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

