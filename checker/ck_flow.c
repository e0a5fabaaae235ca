/* ck_flow.c - the abstract interpretation to a fixpoint, as a walk of the
 * dominator tree over one shared state with an undo log (ck_state.c).
 *
 * Visiting block X (a child of D = idom(X) in the dominator tree) starts
 * from D's exit state. X's entry state differs from it only where some
 * incoming edge differs, and each edge P->X records exactly that as its
 * *delta*: the locations written since D's exit along the dominator path to
 * P (the log segment, since the walk has rolled back everything else), plus
 * the locations whose sets the edge's branch arguments substitute. The
 * meet over the incoming edges (intersection, unknown dominating, empty =
 * conflicted; unreached edges are the identity) is then a patch over the
 * union of the deltas: no block state is ever copied or stored whole, so
 * the cost follows the changes, not locations x blocks.
 * Children are visited in reverse post-order, so every forward edge into a
 * block is recorded before the block is visited. Retreating edges (loops,
 * also irreducible ones) start unreached; when all children of D are done,
 * every child with retreating edges recomputes its entry; if one changed,
 * the children are visited again from the first changed one. The lattice
 * only descends, so this reaches the same fixpoint as a worklist.
 * Errors are recorded during the walk; those of a visit that is redone are
 * dropped, so the report reflects the fixpoint only.
 * Rollbacks are lazy: a finished frame leaves its writes in the log, and
 * whoever uses the state next (a sibling's visit, a parent's entry or
 * retreating-edge recomputation) rolls back to its own mark, which lies
 * below them; the log left when the walk ends is never undone.
 * Requires: ck_cfg_build (rpo, preds, idom, dominator-tree children). */
#include "ck.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ROUNDS 100000u /* per dominator-tree node; the lattice height bounds it far below */

/* ---- edges ---- */

/* Marks the parameters of edge e's target (vst = pst) and chains each
 * argument to the parameters it feeds (vst2 = ast, vaux = first index,
 * ck->setbuf2 = next index). */
static void edge_prepare(ravel_checker *ck, const rv_succ *e, uint32_t *pst, uint32_t *ast)
{
    const ravel_func *f = ck->f;
    const rv_block *t = &f->blocks.data[e->block];
    const uint32_t *params = ck_params(f, t), *args = ck_args(f, e);
    *pst = ck_next_stamp(ck);
    *ast = ck_next_stamp(ck);
    ck->setbuf2.len = 0;
    rv_vec_reserve(ck->setbuf2, t->nparams);
    for (uint32_t i = 0; i < t->nparams; i++) ck->vst[params[i]] = *pst;
    for (uint32_t i = 0; i < t->nparams; i++) {
        uint32_t a = args[i];
        ck->setbuf2.data[i] = ck->vst2[a] == *ast ? ck->vaux[a] : CK_NIL;
        ck->vst2[a] = *ast;
        ck->vaux[a] = i;
    }
}

/* The value location li carries along edge e: all parameters substituted
 * at once (each removed, then added where its argument was). */
/* The set of the n vregs in m (any order, repeats allowed; sorts m in place). */
static ck_val intern_list(ravel_checker *ck, uint32_t *m, uint32_t n)
{
    ck_sort_u32(m, n);
    uint32_t w = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!w || m[w - 1] != m[i]) m[w++] = m[i];
    return ck_set_intern(&ck->sets, m, w);
}

/* The substituted values of one walk: the value a location carries along
 * an edge depends on the edge and the value only (the sets keep their ids
 * for the walk), and loops record the same edges again and again. A small
 * direct-mapped table; generation evgen is the current walk's. */
#define CK_EVMEMO 1024u
struct ck_evmemo {
    uint32_t gen, a, b, res; /* res for key (a, b) if gen is the walk's */
};

static ck_val edge_val_compute(ravel_checker *ck, const rv_succ *e, ck_val val, uint32_t pst, uint32_t ast);

static ck_val edge_val(ravel_checker *ck, const rv_succ *e, uint32_t eid, uint32_t li, uint32_t pst, uint32_t ast)
{
    ck_val val = ck->lval[li];
    if (val >= CK_V_UNKNOWN || !e->nargs) return val;
    if (!(val & CK_V_SETBIT) && ck->vst[val] != pst && ck->vst2[val] != ast) return val; /* untouched singleton */
    struct ck_evmemo *m = &ck->evmemo[(eid * 0x9e3779b1u ^ val * 0x85ebca6bu) >> 22]; /* 10 bits: CK_EVMEMO */
    if (m->gen == ck->evgen && m->a == eid && m->b == val) return m->res;
    ck_val res = edge_val_compute(ck, e, val, pst, ast);
    *m = (struct ck_evmemo){ck->evgen, eid, val, res};
    return res;
}

static ck_val edge_val_compute(ravel_checker *ck, const rv_succ *e, ck_val val, uint32_t pst, uint32_t ast)
{
    const ravel_func *f = ck->f;
    const uint32_t *params = ck_params(f, &f->blocks.data[e->block]);
    if (!(val & CK_V_SETBIT)) { /* a singleton (the usual case): itself unless a parameter, plus what it feeds */
        uint32_t sm[8], sn = 0, v = val;
        if (ck->vst[v] != pst) sm[sn++] = v;
        bool fits = true;
        if (ck->vst2[v] == ast)
            for (uint32_t p = ck->vaux[v]; p != CK_NIL && (fits = sn < 8); p = ck->setbuf2.data[p]) sm[sn++] = params[p];
        if (fits) return intern_list(ck, sm, sn);
    }
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ck_val_members(&ck->sets, val, &m, &one);
    ck->setbuf.len = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = m[i];
        if (ck->vst[v] != pst) rv_vec_push(ck->setbuf, v);
        if (ck->vst2[v] == ast)
            for (uint32_t p = ck->vaux[v]; p != CK_NIL; p = ck->setbuf2.data[p]) rv_vec_push(ck->setbuf, params[p]);
    }
    return intern_list(ck, ck->setbuf.data, ck->setbuf.len);
}

static inline void mark_loc(ravel_checker *ck, uint32_t li, uint32_t st)
{
    if (ck->lst1[li] == st) return;
    ck->lst1[li] = st;
    rv_vec_push(ck->tmp_locs, li);
}

/* Adds the valid holders of v to the marked list. */
static void mark_holders(ravel_checker *ck, uint32_t v, uint32_t st)
{
    for (uint32_t h = ck->vh[v].head; h != CK_NIL; h = ck->hnodes.data[h].next) {
        uint32_t li = ck->hnodes.data[h].li;
        if (ck_val_has(&ck->sets, ck->lval[li], v)) mark_loc(ck, li, st);
    }
}

/* Room for n entries in pool at *start: the room of an earlier recording
 * (*cap entries) when it fits (had: there is one), else new room at the
 * pool's end (the old one is left). */
static void pool_room(ck_entvec *pool, uint32_t *start, uint32_t *cap, uint32_t n, bool had)
{
    if (had && n <= *cap) return;
    rv_vec_reserve(*pool, n);
    *start = pool->len;
    *cap = n;
    pool->len += n;
}

/* Records the delta of every edge leaving x (x's exit state is current). */
static void record_edges(ravel_checker *ck, uint32_t x)
{
    const ravel_func *f = ck->f;
    const rv_inst *t = rv_block_term(f, &f->blocks.data[x]);
    for (uint32_t k = 0; k < rv_inst_nsuccs(t); k++) {
        const rv_succ *e = &rv_inst_succs(f, t)[k];
        uint32_t eid = t->u.succ.first + k, d = ck->idom.data[e->block];
        ck_mark m = ck->frames.data[ck->frame_of.data[d]].mark_exit;
        uint32_t pst, ast, st = ck_next_stamp(ck);
        ck->tmp_locs.len = 0;
        for (uint32_t i = m.log; i < ck->log.len; i++)
            mark_loc(ck, ck->log.data[i].key, st);
        edge_prepare(ck, e, &pst, &ast);
        if (e->nargs) {
            const uint32_t *params = ck_params(f, &f->blocks.data[e->block]), *args = ck_args(f, e);
            for (uint32_t i = 0; i < e->nargs; i++) {
                mark_holders(ck, params[i], st);
                mark_holders(ck, args[i], st);
            }
        }
        ck_edelta *ed = &ck->edelta.data[eid];
        uint32_t n = ck->tmp_locs.len;
        pool_room(&ck->dpool, &ed->start, &ed->cap, n, ed->recorded);
        ed->len = n;
        ed->recorded = true;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t li = ck->tmp_locs.data[i];
            ck->dpool.data[ed->start + i] = (ck_ent){li, edge_val(ck, e, eid, li, pst, ast)};
        }
    }
}

/* ---- entry states ---- */

/* The meet of two values at a join; meets that need the sets are
 * memoized for the walk like the edge values (the meet is symmetric: the
 * pair is keyed in order). */
static inline ck_val meet2(ravel_checker *ck, ck_val a, ck_val b)
{
    if (a == CK_V_UNKNOWN || b == CK_V_UNKNOWN) return CK_V_UNKNOWN;
    if (a == b) return a;
    if (a < CK_V_SETBIT && b < CK_V_SETBIT) return CK_V_CONFLICT; /* two different singletons */
    ck_val x = a < b ? a : b, y = a < b ? b : a;
    struct ck_evmemo *m = &ck->mtmemo[(x * 0x9e3779b1u ^ y * 0x85ebca6bu) >> 22];
    if (m->gen == ck->evgen && m->a == x && m->b == y) return m->res;
    ck_val res = ck_val_meet(&ck->sets, x, y, &ck->setbuf);
    *m = (struct ck_evmemo){ck->evgen, x, y, res};
    return res;
}

/* Runs body for every recorded edge eid into x (each edge once; in the
 * order of ck->pred: by source block q_, then successor index). */
#define FOR_IN_EDGES(ck, x, eid, body)                                                     \
    do {                                                                                   \
        for (uint32_t p_ = (ck)->pred_start.data[x]; p_ < (ck)->pred_start.data[(x) + 1]; p_++) { \
            uint32_t eid = (ck)->pedge.data[p_], q_ = (ck)->pred.data[p_];                 \
            if (!(ck)->edelta.data[eid].recorded || !ck_reachable(ck, q_)) continue;       \
            (void)q_;                                                                      \
            body                                                                           \
        }                                                                                  \
    } while (0)

/* The entry patch of x against the current state (x's idom's exit): every
 * location some incoming delta mentions, with the meet over the edges. */
static void compute_entry(ravel_checker *ck, uint32_t x)
{
    ck->patch.len = 0;
    if (x == 0) return;
    uint32_t nin = 0, one = 0;
    FOR_IN_EDGES(ck, x, eid, {
        nin++;
        one = eid;
    });
    if (nin == 1) { /* one edge (the usual case): its delta is the patch (locations unique) */
        const ck_edelta *ed = &ck->edelta.data[one];
        if (ed->len) {
            rv_vec_reserve(ck->patch, ed->len);
            memcpy(ck->patch.data, &ck->dpool.data[ed->start], ed->len * sizeof *ck->patch.data);
            ck->patch.len = ed->len;
        }
        return;
    }
    uint32_t st = ck_next_stamp(ck);
    ck->tmp_locs.len = 0;
    FOR_IN_EDGES(ck, x, eid, {
        const ck_edelta *ed = &ck->edelta.data[eid];
        for (uint32_t i = 0; i < ed->len; i++) mark_loc(ck, ck->dpool.data[ed->start + i].li, st);
    });
    bool first = true;
    FOR_IN_EDGES(ck, x, eid, {
        const ck_edelta *ed = &ck->edelta.data[eid];
        uint32_t se = ck_next_stamp(ck);
        for (uint32_t i = 0; i < ed->len; i++) {
            ck_ent d = ck->dpool.data[ed->start + i];
            ck->lst2[d.li] = se;
            ck->lacc[d.li] = first ? d.val : meet2(ck, ck->lacc[d.li], d.val);
        }
        for (uint32_t i = 0; i < ck->tmp_locs.len; i++) {
            uint32_t li = ck->tmp_locs.data[i];
            if (ck->lst2[li] != se) ck->lacc[li] = first ? ck->lval[li] : meet2(ck, ck->lacc[li], ck->lval[li]);
        }
        first = false;
    });
    rv_vec_reserve(ck->patch, ck->tmp_locs.len);
    for (uint32_t i = 0; i < ck->tmp_locs.len; i++) {
        uint32_t li = ck->tmp_locs.data[i];
        ck->patch.data[ck->patch.len++] = (ck_ent){li, ck->lacc[li]};
    }
}

/* True if the patch in ck->patch gives x another entry state than the one
 * x was last visited with (both against the current state). */
static bool entry_changed(ravel_checker *ck, uint32_t x)
{
    const ck_span old = ck->bpatch.data[x];
    uint32_t so = ck_next_stamp(ck), sn = ck_next_stamp(ck);
    for (uint32_t i = 0; i < old.len; i++) {
        ck_ent e = ck->ppool.data[old.start + i];
        ck->lst2[e.li] = so;
        ck->lacc[e.li] = e.val;
    }
    for (uint32_t i = 0; i < ck->patch.len; i++) {
        ck_ent e = ck->patch.data[i];
        ck->lst3[e.li] = sn;
        if ((ck->lst2[e.li] == so ? ck->lacc[e.li] : ck->lval[e.li]) != e.val) return true;
    }
    for (uint32_t i = 0; i < old.len; i++) {
        ck_ent e = ck->ppool.data[old.start + i];
        if (ck->lst3[e.li] != sn && ck->lval[e.li] != e.val) return true;
    }
    return false;
}

/* ---- the walk ---- */

/* While a loop is iterated, only its own blocks are visited. */
static bool child_allowed(const ravel_checker *ck, const ck_frame *fr, uint32_t c)
{
    if (fr->outside_only && ck_in_loop(ck, c, fr->block)) return false;
    uint32_t r = fr->iterating ? fr->block : fr->restrict_to;
    return r == CK_NIL || ck_in_loop(ck, c, r);
}

/* Enters block x from its idom's exit state: applies the entry patch,
 * runs x, records its out-edges. */
static void enter_block(ravel_checker *ck, uint32_t idx)
{
    uint32_t x = ck->frames.data[idx].block;
    ck->nvisits++;
    ck->berr.data[x] = ck->rep ? ck->rep->errs.len : 0;
    if (ck->fast) rv_vec_push(ck->visits, x);
    compute_entry(ck, x);
    ck_span *bp = &ck->bpatch.data[x];
    pool_room(&ck->ppool, &bp->start, &bp->cap, ck->patch.len, true); /* cap 0 until the first visit */
    bp->len = ck->patch.len;
    for (uint32_t i = 0; i < ck->patch.len; i++) {
        ck->ppool.data[bp->start + i] = ck->patch.data[i];
        ck_set(ck, ck->patch.data[i].li, ck->patch.data[i].val);
    }
    ck_xfer_block(ck, x);
    ck->frames.data[idx].mark_exit = ck_mark_now(ck);
    record_edges(ck, x);
}

/* Pushes block x. A loop header first iterates its loop alone (children
 * outside the loop wait, errors are not recorded) until its entry is
 * stable; then it is visited once more like any block, with everything. */
static void push_frame(ravel_checker *ck, uint32_t x, uint32_t restrict_to)
{
    ck_frame fr;
    memset(&fr, 0, sizeof fr);
    fr.block = x;
    fr.mark_entry = ck_mark_now(ck);
    fr.restrict_to = restrict_to;
    fr.saved_rep = ck->rep;
    fr.errs0 = ck->rep ? ck->rep->errs.len : 0;
    fr.visits0 = ck->visits.len;
    fr.replay_of = CK_NIL;
    if (ck->frames.len) { /* inside a stable loop's final visit: its blocks, inner loops included, are at their fixpoint */
        uint32_t r = ck->frames.data[ck->frames.len - 1].replay_of;
        if (r != CK_NIL && ck_in_loop(ck, x, r)) fr.replay_of = r;
    }
    if (ck->is_header.data[x] && fr.replay_of == CK_NIL) {
        fr.iterating = true;
        if (!ck->fast) ck->rep = NULL;
    }
    uint32_t idx = ck->frames.len;
    rv_vec_push(ck->frames, fr); /* on the stack before the visit: provenance walks it */
    ck->frame_of.data[x] = idx;
    enter_block(ck, idx);
}

/* After every child of fr's block is done: the first child (in order)
 * whose entry changed through an irreducible retreating edge, or CK_NIL. */
static uint32_t first_changed_child(ravel_checker *ck, const ck_frame *fr)
{
    uint32_t b = fr->block;
    for (uint32_t i = ck->dchild_start.data[b]; i < ck->dchild_start.data[b + 1]; i++) {
        uint32_t c = ck->dchild.data[i];
        if (!ck->retreat.data[c] || !child_allowed(ck, fr, c)) continue;
        ck_rollback(ck, fr->mark_exit); /* b's exit state (a no-op after the first) */
        compute_entry(ck, c);
        if (entry_changed(ck, c)) return i - ck->dchild_start.data[b];
    }
    return CK_NIL;
}

/* Fast mode, a loop whose entry was stable: the round just done was at the
 * fixpoint (a natural loop's blocks are entered only through its header, so
 * each of them saw the state the final visit would give it; inner loops
 * started from their fixpoint of the previous round and stay there), and
 * its errors stand. The header is entered once more without recording (its
 * errors are counted already) for its children outside the loop. Only for
 * loops without deep_exit (ck_cfg.c): every block left to visit hangs off
 * the header, and no irreducible in-loop child waits for a final re-check. */
static void finish_loop_fast(ravel_checker *ck, uint32_t idx)
{
    ck_frame *fr = &ck->frames.data[idx];
    uint32_t b = fr->block, berr = ck->berr.data[b];
    ravel_report *rep = ck->rep;
    fr->iterating = false;
    fr->outside_only = true;
    fr->rounds++;
    fr->child = 0;
    ck->rep = NULL;
    enter_block(ck, idx);
    ck->rep = rep;
    ck->berr.data[b] = berr;
}

/* All children of the frame on top are done. Returns true if the frame
 * continues (another round), false when it is finished. */
static bool frame_done(ravel_checker *ck)
{
    uint32_t idx = ck->frames.len - 1;
    ck_frame *fr = &ck->frames.data[idx];
    uint32_t b = fr->block;
    if (fr->iterating) { /* loop header: is its entry stable? */
        bool quick = ck->fast && !ck->deep_exit.data[b];
        ck_rollback(ck, fr->mark_entry);
        compute_entry(ck, b);
        bool fixed = !entry_changed(ck, b) || (ck->fast && ck_loop_shortcut(ck, b, fr->visits0));
        if (quick && fixed) {
            finish_loop_fast(ck, idx);
            return true;
        }
        if (ck->fast && ck->rep) ck_truncate_errors(ck->rep, fr->errs0); /* the round is redone */
        if (fixed || fr->rounds >= MAX_ROUNDS) {
            if (!fixed) ck->diverged = true;
            fr->iterating = false; /* final visit, with everything, errors recorded */
            if (fixed && !(ck->opts & CK_OPT_NO_REPLAY)) fr->replay_of = b; /* a replay: inner loops do not iterate again */
            ck->rep = fr->saved_rep;
        }
        fr->rounds++;
        fr->child = 0;
        fr->visits0 = ck->visits.len;
        enter_block(ck, idx);
        return true;
    }
    if (fr->replay_of != CK_NIL && fr->replay_of != b && ck->is_header.data[b]) {
        /* An inner header visited once in a replay: that visit is the old
         * walk's first round of it, and if its entry is stable the old walk's
         * final visit would repeat it exactly. If not (the states before it
         * differ from the round that converged, e.g. an earlier inner loop
         * finished by the shortcut from another entry), iterate as usual. */
        ck_rollback(ck, fr->mark_entry);
        compute_entry(ck, b);
        if (entry_changed(ck, b)) {
            if (ck->rep) ck_truncate_errors(ck->rep, fr->errs0);
            fr->replay_of = CK_NIL;
            fr->iterating = true;
            if (!ck->fast) ck->rep = NULL;
            fr->rounds++;
            fr->child = 0;
            fr->visits0 = ck->visits.len;
            enter_block(ck, idx);
            return true;
        }
    }
    uint32_t i = first_changed_child(ck, fr);
    if (i != CK_NIL && fr->rounds < MAX_ROUNDS) {
        fr->rounds++;
        if (ck->rep) ck_truncate_errors(ck->rep, ck->berr.data[ck->dchild.data[ck->dchild_start.data[b] + i]]);
        fr->child = i;
        return true;
    }
    if (i != CK_NIL) ck->diverged = true;
    return false;
}

static void walk(ravel_checker *ck)
{
    ck->frames.len = 0;
    push_frame(ck, 0, CK_NIL);
    while (ck->frames.len && !ck->stopped) { /* stopped: a verdict-only fast walk found an error */
        ck_frame *fr = &ck->frames.data[ck->frames.len - 1];
        uint32_t b = fr->block, nchild = ck->dchild_start.data[b + 1] - ck->dchild_start.data[b];
        if (fr->child < nchild) {
            uint32_t c = ck->dchild.data[ck->dchild_start.data[b] + fr->child++];
            if (!child_allowed(ck, fr, c)) continue;
            ck_rollback(ck, fr->mark_exit);
            push_frame(ck, c, fr->iterating ? b : fr->restrict_to);
            continue;
        }
        if (frame_done(ck)) continue;
        fr = &ck->frames.data[ck->frames.len - 1];
        ck->rep = fr->saved_rep; /* no rollback: whoever uses the state next rolls back to its own mark */
        ck->frames.len--;
    }
}

/* The fixpoint walk, recording errors into ck->rep. With fresh = false the
 * edge deltas of a previous walk are kept, so loops start at their fixpoint
 * (used to replay for explain dumps). */
void ck_flow(ravel_checker *ck, bool fresh)
{
    const ravel_func *f = ck->f;
    uint32_t n = ck->nblocks;
    if (fresh) {
        ck_sets_reset(&ck->sets); /* set ids start again: so do the memoized edge values */
        if (!ck->evmemo) { /* edge values, then meets */
            ck->evmemo = rv_xcalloc(2 * CK_EVMEMO, sizeof *ck->evmemo);
            ck->mtmemo = ck->evmemo + CK_EVMEMO;
        }
        if (++ck->evgen == 0) { /* wrapped: generation 0 is "empty" */
            memset(ck->evmemo, 0, 2 * CK_EVMEMO * sizeof *ck->evmemo);
            ck->evgen = 1;
        }
        if (ck->set_limit) ck->sets.limit = ck->set_limit;
        ck->dpool.len = 0;
        rv_vec_reserve(ck->edelta, f->succs.len);
        ck->edelta.len = f->succs.len;
        for (uint32_t i = 0; i < f->succs.len; i++) ck->edelta.data[i] = (ck_edelta){0, 0, 0, false};
    }
    ck->ppool.len = 0;
    ck->diverged = false;
    rv_vec_reserve(ck->bpatch, n);
    rv_vec_reserve(ck->frame_of, n);
    rv_vec_reserve(ck->berr, n);
    ck->bpatch.len = ck->frame_of.len = ck->berr.len = n;
    for (uint32_t b = 0; b < n; b++) ck->bpatch.data[b] = (ck_span){0, 0, 0}; /* ppool starts empty */
    ck_state_init(ck);
    if (ck->rpo.len) walk(ck);
}

bool ck_flow_verdict(ravel_checker *ck)
{
    ravel_report *rep = ck->rep;
    if (!ck->frep) ck->frep = ck_report_new();
    ck_truncate_errors(ck->frep, 0);
    ck->rep = ck->frep;
    ck->fast = true;
    ck->locs_ok = rep && rep->errs.len == 0; /* the rules report every location that does not exist */
    ck->visits.len = 0;
    ck->stop_at_error = (ck->opts & RAVEL_CHECK_VERDICT_ONLY) && !(ck->opts & (CK_OPT_EXACT | RAVEL_CHECK_EXPLAIN));
    ck->stopped = false;
    ck_flow(ck, true);
    ck->stop_at_error = ck->stopped = false;
    ck->fast = false;
    ck->locs_ok = false;
    ck_loop_reset(ck); /* the loop shortcut's scratch: empty, its room kept */
    ck->rep = rep;
    ck->fast_nerr = ck->frep->errs.len;
    bool ok = !ck->frep->errs.len && !ck->diverged;
    ck_truncate_errors(ck->frep, 0);
    return ok;
}

/* ---- provenance (on error only) ---- */

/* Value of li when the log was at position m (scan back over the log). */
static ck_val value_at(const ravel_checker *ck, uint32_t li, uint32_t m)
{
    ck_val v = ck->lval[li];
    for (uint32_t i = ck->log.len; i-- > m;)
        if (ck->log.data[i].key == li) v = ck->log.data[i].old;
    return v;
}

static void where(ck_buf *b, const ravel_func *f, uint32_t ii)
{
    if (f->insts.data[ii].line) ck_bprintf(b, "line %u", f->insts.data[ii].line);
    else ck_bprintf(b, "inst %u", ii);
}

/* What each incoming edge of the join x brings in li. */
static void prov_join(ravel_checker *ck, ck_buf *b, uint32_t x, uint32_t li)
{
    const ravel_func *f = ck->f;
    char lbuf[32];
    const char *lb = rv_loc_str(f->mach, ck_loc_of(ck, li), lbuf);
    ck_val base = value_at(ck, li, ck->frames.data[ck->frame_of.data[x]].mark_entry.log);
    ck_bprintf(b, "at the entry of %s, %s is the meet of its incoming edges:\n", rv_block_name(f, x), lb);
    FOR_IN_EDGES(ck, x, eid, {
        const ck_edelta *ed = &ck->edelta.data[eid];
        ck_val v = base;
        for (uint32_t i = 0; i < ed->len; i++)
            if (ck->dpool.data[ed->start + i].li == li) v = ck->dpool.data[ed->start + i].val;
        ck_bprintf(b, "  from %s (", rv_block_name(f, q_));
        where(b, f, (uint32_t)(rv_block_term(f, &f->blocks.data[q_]) - f->insts.data));
        ck_bprintf(b, "): %s %s ", lb, v < CK_V_UNKNOWN ? "holds" : "is");
        ck_val_text(b, ck, v);
        ck_bprintf(b, "\n");
    });
}

/* Number of recorded edges into x; *from = the source of the last one. */
static uint32_t reached_in_edges(ravel_checker *ck, uint32_t x, uint32_t *from)
{
    uint32_t n = 0;
    FOR_IN_EDGES(ck, x, eid, {
        (void)eid;
        *from = q_;
        n++;
    });
    return n;
}

static bool on_stack(const ravel_checker *ck, uint32_t b)
{
    uint32_t i = ck->frame_of.data[b];
    return i < ck->frames.len && ck->frames.data[i].block == b;
}

static bool prov_on_path(void *ctx, uint32_t b) { return on_stack(ctx, b); }
static uint32_t prov_nin(void *ctx, uint32_t b, uint32_t *from) { return reached_in_edges(ctx, b, from); }
static void prov_join_cb(void *ctx, ck_buf *out, uint32_t b, uint32_t li) { prov_join(ctx, out, b, li); }

/* The provenance of an error of the walk (its blocks on the walk's stack:
 * x and its dominators; the edges recorded, with their deltas). */
char *ck_provenance(ravel_checker *ck, uint32_t x, uint32_t ii, uint32_t li, uint32_t v, bool late, bool held)
{
    const ck_prov_ops ops = {ck, prov_on_path, prov_nin, prov_join_cb};
    return ck_provenance_text(ck, &ops, x, ii, li, v, late, held);
}
