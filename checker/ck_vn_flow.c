/* ck_vn_flow.c - PROOF. What crosses an edge in the value-numbering walk
 * (ck_vn.c explains the walk): an edge into a join carries the vars
 * changed since the join's idom (its delta); a join names each var that
 * may differ between its in-edges (a phi, hash-consed on its operands, or
 * a placeholder of a var the loop may write); a retreating edge (a latch)
 * fills the placeholders' operands and checks the premise of the names
 * the loop kept: a var without a placeholder comes back as it came in.
 * That check is what makes M(h) and P(t) (ck_vn_knobs.c) knobs: what they
 * miss fails it. Requires: the walk's state (ck_vn.c), M(h) and P(t). */
#include "ck_vn.h"

#include <string.h>

/* ---- the part of the context owned here ---- */

void vn_flow_init(vn_flow *x) { memset(x, 0, sizeof *x); }

void vn_flow_free(vn_flow *x)
{
    rv_vec_free(x->edl);
    rv_vec_free(x->dpool);
    rv_vec_free(x->mexit);
    rv_vec_free(x->hmark);
    rv_vec_free(x->rl);
    rv_vec_free(x->roots);
    rv_vec_free(x->qlist);
    rv_vec_free(x->qpool);
    rv_vec_free(x->ic);
    rv_vec_free(x->icwork);
    rv_vec_free(x->tlist);
    rv_vec_free(x->tpool);
    rv_vec_free(x->rows);
    rv_vec_free(x->rowvar);
    rv_vec_free(x->tmpl);
    rv_vec_free(x->frames);
    vn_flow_init(x);
}

size_t vn_flow_memory(const vn_flow *x)
{
#define M(v) ((size_t)x->v.cap * sizeof *x->v.data)
    return M(edl) + M(dpool) + M(mexit) + M(hmark) + M(rl) + M(roots) + M(qlist) + M(qpool) + M(ic) + M(icwork) +
           M(tlist) + M(tpool) + M(rows) + M(rowvar) + M(tmpl) + M(frames);
#undef M
}

void vn_flow_reset(vn *W)
{
    vn_flow *fl = &W->V->flow;
    uint32_t ne = W->f->succs.len, n = W->ck->nblocks;
    fl->dpool.len = fl->rl.len = 0;
    fl->edl.len = 0;
    rv_vec_reserve(fl->edl, ne);
    fl->edl.len = ne;
    fl->mexit.len = fl->hmark.len = 0;
    rv_vec_reserve(fl->mexit, n);
    rv_vec_reserve(fl->hmark, n);
    fl->mexit.len = fl->hmark.len = n;
    fl->qlist.len = fl->qpool.len = 0;
    rv_vec_reserve(fl->qlist, n);
    fl->qlist.len = n;
}

/* ---- edges ---- */

/* At irreducible target t's entry: the names of the vars changed since
 * c(t)'s exit on the dominator path (t's join included), for its latches;
 * every other var has c(t)'s name here. */
bool vn_record_entry(vn *W, uint32_t t)
{
    struct ck_vn *V = W->V;
    uint32_t from = V->flow.mexit.data[V->flow.ic.data[t]], st = vn_next_stamp(V), start = V->flow.tpool.len;
    if (!vn_scan(V, V->vars.log.len - from)) return false;
    for (uint32_t i = from; i < V->vars.log.len; i++) {
        uint32_t x = V->vars.log.data[i].var;
        if (V->vars.st[x] == st) continue;
        V->vars.st[x] = st;
        rv_vec_push(V->flow.tpool, ((vn_ent){x, W->cur[x]}));
    }
    V->flow.tlist.data[t] = (ck_list){start, V->flow.tpool.len - start};
    return true;
}

/* The names of e's arguments (read before any parameter is written). */
static void arg_names(vn *W, const rv_succ *e, uint32_t *out)
{
    const uint32_t *args = rv_args_of(W->f, e);
    for (uint32_t a = 0; a < e->nargs; a++) out[a] = W->cur[vreg_var(W, args[a])];
}

/* b has one in-edge (from its idom): its parameters take the arguments'
 * names. */
void vn_enter_single(vn *W, uint32_t b)
{
    ravel_checker *ck = W->ck;
    const rv_block *bl = &W->f->blocks.data[b];
    if (!bl->nparams) return;
    uint32_t p0 = ck->cfg.g.pred_start[b];
    for (uint32_t k = p0; k < ck->cfg.g.pred_start[b + 1]; k++) {
        if (!ck_reachable(ck, ck->cfg.g.pred[k])) continue;
        const rv_succ *e = &W->f->succs.data[ck->cfg.pedge.data[k]];
        struct ck_vn *V = W->V;
        rv_vec_reserve(V->flow.rows, e->nargs);
        arg_names(W, e, V->flow.rows.data);
        const uint32_t *params = rv_params_of(W->f, bl);
        for (uint32_t a = 0; a < e->nargs; a++) vset(W, vreg_var(W, params[a]), V->flow.rows.data[a]);
        return;
    }
}

/* Edge e of block b into join t: the vars changed since t's idom's exit,
 * with their names at the end of e (parameters substituted). */
bool vn_record_delta(vn *W, uint32_t eidx, const rv_succ *e)
{
    ravel_checker *ck = W->ck;
    struct ck_vn *V = W->V;
    uint32_t t = e->block, from = V->flow.mexit.data[ck->cfg.g.idom[t]];
    if (!vn_scan(V, V->vars.log.len - from)) return false; /* (the budget: all edges together) */
    uint32_t st = vn_next_stamp(V), start = V->flow.dpool.len;
    const uint32_t *params = rv_params_of(W->f, &W->f->blocks.data[t]), *args = rv_args_of(W->f, e);
    rv_vec_reserve(V->flow.dpool, e->nargs);
    for (uint32_t a = 0; a < e->nargs; a++) { /* parameters first: their names win */
        uint32_t x = vreg_var(W, params[a]);
        V->flow.dpool.data[V->flow.dpool.len++] = (vn_ent){x, W->cur[vreg_var(W, args[a])]};
    }
    for (uint32_t a = 0; a < e->nargs; a++) V->vars.st[vreg_var(W, params[a])] = st;
    V->vars.st[W->refvar] = st; /* (not a var: the list of .ref holders is the dominator path's) */
    const uint8_t *sdef = V->vars.sdef.data;
    const vn_ent *log = V->vars.log.data;
    uint32_t *stv = V->vars.st, end = V->vars.log.len;
    rv_vec_reserve(V->flow.dpool, end - from);
    vn_ent *dp = V->flow.dpool.data;
    size_t n = V->flow.dpool.len;
    for (uint32_t i = from; i < end; i++) { /* (without a branch per entry: written always, kept if new) */
        uint32_t x = log[i].var;
        dp[n] = (vn_ent){x, W->cur[x]};
        /* a single-def vreg defined since t's idom: its def's block does
         * not dominate t, so t gives it 0 (see single_defs), as at the idom */
        n += (stv[x] != st) & !(sdef[x] & VN_SD_SINGLE);
        stv[x] = st;
    }
    V->flow.dpool.len = n;
    V->flow.edl.data[eidx] = (ck_list){start, V->flow.dpool.len - start};
    return true;
}

/* ---- latches ---- */

/* A back edge e (pred number k of header t): the operands of t's
 * placeholders on it. */
bool vn_latch(vn *W, uint32_t k, const rv_succ *e)
{
    struct ck_vn *V = W->V;
    uint32_t t = e->block;
    uint32_t st = vn_next_stamp(V), sq = vn_next_stamp(V), sd = vn_next_stamp(V); /* (all first: a wrap clears the marks) */
    const uint32_t *params = rv_params_of(W->f, &W->f->blocks.data[t]), *args = rv_args_of(W->f, e);
    for (uint32_t a = 0; a < e->nargs; a++) {
        uint32_t x = vreg_var(W, params[a]);
        V->vars.st[x] = st;
        V->vars.aux[x] = W->cur[vreg_var(W, args[a])];
    }
    ck_list q = V->flow.qlist.data[t];
    for (uint32_t i = 0; i < q.len; i++) {
        vn_ent qe = V->flow.qpool.data[q.start + i];
        V->names.ops.data[V->names.nops.data[qe.name & VN_IDX] + k] = V->vars.st[qe.var] == st ? V->vars.aux[qe.var] : W->cur[qe.var];
        V->vars.st2[qe.var] = sq;
    }
    /* The premise of the loop's names: a var without a placeholder comes
     * back as it came in (or came in unknown). M(h) is built to ensure it;
     * checked here over what the dominator path since h changed, so that
     * a write M(h) missed costs a proof, never a wrong one. */
    const vn_ent *log = V->vars.log.data;
    const uint8_t *sdef = V->vars.sdef.data;
    const uint32_t *stv = V->vars.st, *aux = V->vars.aux, *cur = W->cur;
    uint32_t *st2 = V->vars.st2, bad = 0, from = V->flow.hmark.data[t];
    bool irr = !vdom(W->ck, t, W->block);
    if (irr) {
        /* an irreducible edge (irr_heads): t is not on this dominator
         * path, c(t) is. A var changed since c(t) on t's path has the
         * entry name recorded there (record_entry); any other has c(t)'s
         * name at t, the first old name logged since c(t) here. */
        ck_list tl = V->flow.tlist.data[t];
        for (uint32_t i = 0; i < tl.len; i++) {
            vn_ent te = V->flow.tpool.data[tl.start + i];
            uint32_t x = te.var;
            if (st2[x] == sq) continue;
            st2[x] = sd;
            if (x == W->refvar || !te.name || (sdef[x] & VN_SD_SINGLE)) continue;
            bad |= (stv[x] == st ? aux[x] : cur[x]) != te.name;
        }
        from = V->flow.mexit.data[V->flow.ic.data[t]];
    }
    for (uint32_t i = from, end = V->vars.log.len; i < end; i++) { /* (without a branch per entry) */
        uint32_t x = log[i].var, was = log[i].name, s2 = st2[x];
        uint32_t skip = (s2 == sq) | (x == W->refvar) | (sdef[x] & VN_SD_SINGLE); /* (0 at every header of its loops) */
        uint32_t now = stv[x] == st ? aux[x] : cur[x];
        bad |= !skip & (s2 != sd) & (was != 0) & (now != was); /* (the first entry since h holds h's name) */
        st2[x] = s2 == sq ? sq : sd;
    }
    if (bad && V->knobs.lazy) return vn_record_misses(W, t, from, irr, st, sq);
    return !bad;
}

/* ---- joins ---- */

/* One join being made (join): block b, its np in-edges from pred p0 on,
 * and per in-edge tmpl[k]: VN_SKIP (unreachable), 0 (a back edge: a latch
 * fills a placeholder's operand), 1 (forward: the var's name there). A
 * row per var (V->flow.rows: its name on each in-edge, rowvar: the var;
 * st marks a var with a row, aux its row), sm marks a var the loop may
 * write (a placeholder). */
typedef struct jrows {
    uint32_t b, p0, np, st, sm, nrows;
    uint32_t *tmpl;
    bool irr, header; /* an irreducible target (irr_heads); a header or one */
} jrows;

static inline void new_row(vn *W, jrows *J, uint32_t x)
{
    struct ck_vn *V = W->V;
    uint32_t np = J->np;
    V->vars.st[x] = J->st;
    V->vars.aux[x] = J->nrows++;
    rv_vec_push(V->flow.rowvar, x);
    rv_vec_reserve(V->flow.rows, np);
    uint32_t *r = &V->flow.rows.data[V->flow.rows.len], c = W->cur[x];
    for (uint32_t k = 0; k < np; k++) r[k] = J->tmpl[k] == 1 ? c : J->tmpl[k];
    V->flow.rows.len += np;
}

static void join_start(vn *W, jrows *J, uint32_t b)
{
    ravel_checker *ck = W->ck;
    struct ck_vn *V = W->V;
    uint32_t rb = ck->cfg.g.rpo_index[b];
    J->b = b;
    J->p0 = ck->cfg.g.pred_start[b];
    J->np = npreds(ck, b);
    J->irr = V->flow.ic.data[b] != CK_NIL;
    J->header = ck_is_header(ck, b) || J->irr;
    J->st = vn_next_stamp(V);
    J->sm = vn_next_stamp(V); /* (both first: a wrap clears the marks) */
    J->nrows = 0;
    V->flow.rowvar.len = 0;
    V->flow.rows.len = 0;
    V->flow.tmpl.len = 0;
    rv_vec_reserve(V->flow.tmpl, J->np);
    V->flow.tmpl.len = J->np;
    J->tmpl = V->flow.tmpl.data;
    for (uint32_t k = 0; k < J->np; k++) {
        uint32_t q = ck->cfg.g.pred[J->p0 + k];
        J->tmpl[k] = !ck_reachable(ck, q) ? VN_SKIP : ck->cfg.g.rpo_index[q] >= rb ? 0 : 1;
    }
}

/* Rows from the forward in-edges' deltas. A var unknown at the idom's
 * exit (cur 0) that an in-edge's delta leaves out is unknown on that
 * edge, so here (the meet): only the first edge's delta, the shortest,
 * makes rows for such vars (most rows of a join are of vars its arms
 * define, unknown at the idom). */
static void rows_of_deltas(vn *W, jrows *J)
{
    ravel_checker *ck = W->ck;
    struct ck_vn *V = W->V;
    uint32_t p0 = J->p0, np = J->np, k0 = CK_NIL;
    const uint32_t *tmpl = J->tmpl;
    for (uint32_t k = 0; k < np; k++)
        if (tmpl[k] == 1 &&
            (k0 == CK_NIL || V->flow.edl.data[ck->cfg.pedge.data[p0 + k]].len < V->flow.edl.data[ck->cfg.pedge.data[p0 + k0]].len))
            k0 = k;
    for (uint32_t j = 0; j < np && k0 != CK_NIL; j++) {
        uint32_t k = j == 0 ? k0 : j == k0 ? 0 : j; /* k0 first */
        if (tmpl[k] != 1) continue;
        ck_list d = V->flow.edl.data[ck->cfg.pedge.data[p0 + k]];
        for (uint32_t i = 0; i < d.len; i++) {
            vn_ent e = V->flow.dpool.data[d.start + i];
            if (V->vars.st[e.var] != J->st) {
                if (j && !W->cur[e.var]) continue;
                new_row(W, J, e.var);
            }
            V->flow.rows.data[V->vars.aux[e.var] * np + k] = e.name;
        }
    }
}

/* The vars the loop may write (M(h), P(t)): a placeholder each, unless
 * unknown on an edge into the loop (not in any delta and 0 now: 0 on
 * every one). */
static void rows_of_loop(vn *W, jrows *J)
{
    ravel_checker *ck = W->ck;
    struct ck_vn *V = W->V;
    uint32_t b = J->b;
    for (int li = 0; li < 2; li++) {
        ck_list m = li == 0 ? (ck_is_header(ck, b) ? V->knobs.mlist.data[b] : (ck_list){0, 0})
                            : (J->irr ? V->knobs.ilist.data[b] : (ck_list){0, 0});
        for (uint32_t i = 0; i < m.len; i++) {
            uint32_t x = V->knobs.mpool.data[m.start + i];
            if (V->vars.st[x] != J->st) {
                if (!W->cur[x]) continue;
                new_row(W, J, x);
            }
            V->vars.st2[x] = J->sm;
        }
    }
}

/* The collector writes too: in a loop with a safepoint every location
 * that may hold a .ref name on entry (the live .ref list, the rows from
 * the deltas) is one the loop may write. */
static void rows_of_collector(vn *W, jrows *J)
{
    struct ck_vn *V = W->V;
    uint32_t np = J->np;
    for (uint32_t i = W->cur[W->refvar]; i < V->flow.rl.len; i++) {
        uint32_t x = V->flow.rl.data[i];
        if (V->vars.st[x] != J->st) {
            if (!(W->cur[x] & VN_REF)) continue;
            new_row(W, J, x);
        }
        V->vars.st2[x] = J->sm;
    }
    for (uint32_t r = 0; r < J->nrows; r++) {
        uint32_t x = V->flow.rowvar.data[r];
        if (x >= W->nlocs || V->vars.st2[x] == J->sm) continue;
        for (uint32_t k = 0; k < np; k++) {
            uint32_t o = V->flow.rows.data[r * np + k];
            if (o != VN_SKIP && (o & VN_REF)) {
                V->vars.st2[x] = J->sm;
                break;
            }
        }
    }
}

/* The name of row r's var at the join: unknown, the name every forward
 * edge brings, a placeholder (back operands filled by the latches), or a
 * phi of the block. */
static void name_row(vn *W, jrows *J, uint32_t r)
{
    struct ck_vn *V = W->V;
    uint32_t b = J->b, np = J->np;
    const uint32_t *tmpl = J->tmpl;
    uint32_t x = V->flow.rowvar.data[r], *row = &V->flow.rows.data[r * np];
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
        return;
    }
    uint32_t wit = x >= W->nlocs && x < W->refvar ? x - W->nlocs : CK_NIL, name;
    /* a var the loop may write: its placeholder, back operands filled
     * by the latches; at an irreducible target also a var the forward
     * edges disagree on (a phi of t is not in use at an irreducible
     * latch: the var there cannot be "itself") */
    if (V->vars.st2[x] == J->sm || (J->irr && !all)) {
        uint32_t id = vn_new_node(V, b, np), h = 0;
        memcpy(&V->names.ops.data[V->names.nops.data[id]], row, np * sizeof *row);
        name = id | refs;
        rv_vec_push(V->flow.qpool, ((vn_ent){x, name}));
        if (wit != CK_NIL && vn_htab_find(V, b, row, np, &h) == CK_NIL) V->names.htab[h] = id + 1; /* (back operands 0: never a phi's) */
    } else if (all) {
        vset(W, x, same);
        return;
    } else {
        for (uint32_t k = 0; k < np; k++) /* a var the loop keeps: itself on the back edges */
            if (tmpl[k] == 0) row[k] = VN_SELF;
        name = vn_phi_of(V, b, row, np, refs);
    }
    if (wit != CK_NIL && V->names.nwit.data[name & VN_IDX] == CK_NIL) V->names.nwit.data[name & VN_IDX] = wit;
    vset(W, x, name);
    if (wit != CK_NIL && (name & VN_REF)) rv_vec_push(V->smap.jpool, ((vn_ent){wit, name})); /* (a stackmap candidate) */
}

/* Block b's entry from its in-edges (b a join or a loop header; the state
 * is its idom's exit): a row per var that may differ between them, then
 * each row's name (a phi is hash-consed on its operands: two vars share
 * it iff they agree on every edge, the meet's intersection exactly). */
void vn_join(vn *W, uint32_t b)
{
    struct ck_vn *V = W->V;
    jrows J;
    join_start(W, &J, b);
    rows_of_deltas(W, &J);
    rows_of_loop(W, &J);
    if (J.header && V->knobs.lsp.data[b]) rows_of_collector(W, &J);
    uint32_t q0 = V->flow.qpool.len, j0 = V->smap.jpool.len;
    vn_htab_prepare(V, J.nrows);
    for (uint32_t r = 0; r < J.nrows; r++) name_row(W, &J, r);
    if (J.header) V->flow.qlist.data[b] = (ck_list){q0, V->flow.qpool.len - q0};
    V->smap.jlist.data[b] = (ck_list){j0, V->smap.jpool.len - j0};
    vn_placeholder_witnesses(W, b, q0, J.np);
}
