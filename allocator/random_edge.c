/* random_edge.c - the `random` allocator's entry contracts and edges
 * (shapes mode, see the top of random.c).
 *
 * Requires: the state at the end of the branching block (random_inst.c),
 * the liveness (live.lv, live.used).
 * Guarantees: each block's entry contract (one location per value live
 * into it, parameters included) decided at its first resolved edge; on
 * each edge one parallel move of the predecessor's current locations into
 * the contract, placed before the jump (one successor) or at the
 * successor's entry (one predecessor). */
#include "random.h"

/* ---- block entry contracts and edges ---- */

/* Whether the contract being built (decide_entry) already uses l. */
static bool entry_taken(const rs *a, ravel_loc l) { return rv_rs_locset_has(a, &a->con.taken, l); }

static void entry_add(rs *a, uint32_t v, ravel_loc l)
{
    rv_vec_push(a->con.entries, ((rs_entry){v, l}));
    rv_rs_locset_add(a, &a->con.taken, l);
}

/* A location for value v in the contract being built (entries from `from`):
 * `keep` if allowed and not taken, else a random register of the class or
 * a slot. */
static ravel_loc entry_loc(rs *a, uint32_t v, ravel_loc keep)
{
    if (keep != RAVEL_LOC_NONE && !entry_taken(a, keep) && (ravel_loc_is_slot(keep) || !a->m->regs.data[keep].reserved)) return keep;
    const rv_class *c = &a->m->classes.data[vcls(a, v)];
    if (!coin(a, 3))
        for (int t = 0; t < 4; t++) {
            uint32_t r = c->alloc.data[rv_rng_below(&a->rng, c->alloc.len)];
            if (!entry_taken(a, r)) return r;
        }
    for (int t = 0; t < 4; t++) { /* a slot, often one other values use elsewhere */
        uint32_t s = rv_rng_below(&a->rng, a->hold.scont.len + 2);
        if (entry_taken(a, ravel_slot(s))) continue;
        rv_rs_slot_grow(a, s); /* new_slot_num never returns it */
        return ravel_slot(s);
    }
    return ravel_slot(rv_rs_new_slot_num(a));
}

/* Decides block s's contract: its live-in values and used parameters, each
 * at a location. src_in / src_par (may be NULL) give the location of each
 * value in the predecessor resolving the first edge, kept unless a 1 in
 * `reloc` draw says otherwise. */
void rv_rs_decide_entry(rs *a, uint32_t s, const ravel_loc *src_in, const ravel_loc *src_par, uint32_t reloc)
{
    const ravel_func *f = a->f;
    const rv_block *sb = &f->blocks.data[s];
    uint32_t from = a->con.entries.len, n = 0;
    a->con.entry_start[s] = from;
    a->con.taken.cur++; /* a new contract: no location taken */
    for (uint32_t w = 0; w < a->live.lv.nwords; w++)
        for (uint64_t bits = a->live.lv.in[(size_t)s * a->live.lv.nwords + w]; bits; bits &= bits - 1) {
            uint32_t v = w * 64 + (uint32_t)__builtin_ctzll(bits);
            ravel_loc k = src_in && !coin(a, reloc) ? src_in[n] : RAVEL_LOC_NONE;
            entry_add(a, v, entry_loc(a, v, k));
            n++;
        }
    for (uint32_t p = 0; p < sb->nparams; p++) {
        uint32_t v = rv_block_params(f, sb)[p];
        if (!a->live.used[v]) continue;
        ravel_loc k = src_par && !coin(a, reloc) ? src_par[p] : RAVEL_LOC_NONE;
        entry_add(a, v, entry_loc(a, v, k));
    }
    a->con.entry_len[s] = a->con.entries.len - from;
    while (a->con.msrc.len < a->con.entries.len) rv_vec_push(a->con.msrc, RAVEL_LOC_NONE);
}

/* Resolves edge k of the current block's terminator (instruction ti): the
 * moves of the current locations into the successor's contract. */
bool rv_rs_edge(rs *a, uint32_t ti, uint32_t k)
{
    const ravel_func *f = a->f;
    const rv_inst *t = rv_inst_at(f, ti);
    const rv_succ *sc = &rv_inst_succs(f, t)[k];
    uint32_t s = sc->block;
    const rv_block *sb = &f->blocks.data[s];
    bool at_exit = false;
    uint32_t anchor = rv_edge_anchor(f, &a->cfg, a->cur, k, &at_exit);
    /* where each needed value is now */
    uint32_t nin = 0;
    for (uint32_t w = 0; w < a->live.lv.nwords; w++) nin += (uint32_t)__builtin_popcountll(a->live.lv.in[(size_t)s * a->live.lv.nwords + w]);
    a->ins.esrc.len = 0;
    rv_vec_reserve(a->ins.esrc, (size_t)nin + sb->nparams + 1);
    ravel_loc *src = a->ins.esrc.data; /* (nothing else grows esrc while src is in use) */
    uint32_t n = 0;
    for (uint32_t w = 0; w < a->live.lv.nwords; w++)
        for (uint64_t bits = a->live.lv.in[(size_t)s * a->live.lv.nwords + w]; bits; bits &= bits - 1)
            src[n++] = rv_rs_cur_loc(a, w * 64 + (uint32_t)__builtin_ctzll(bits));
    for (uint32_t p = 0; p < sb->nparams; p++) src[nin + p] = a->live.used[rv_block_params(f, sb)[p]] ? rv_rs_cur_loc(a, rv_succ_args(f, sc)[p]) : RAVEL_LOC_NONE;
    for (uint32_t x = 0; x < nin + sb->nparams; x++)
        if (src[x] == RAVEL_LOC_NONE && (x < nin || a->live.used[rv_block_params(f, sb)[x - nin]]))
            return rs_fail(a, ti, "internal error: a value live on an edge has no location");
    if (a->con.entry_start[s] == RAVEL_NONE) rv_rs_decide_entry(a, s, src, src + nin, at_exit ? 2 : 4);
    /* the moves, in contract order: live-ins (in liveness order), then parameters */
    a->ins.moves.len = a->ins.mvals.len = a->ins.islots.len = 0;
    bool join = rv_cfg_npreds(&a->cfg, s) > 1;
    uint32_t e0 = a->con.entry_start[s], ne = a->con.entry_len[s];
    for (uint32_t e = 0, x = 0; e < ne; e++) {
        const rs_entry *en = &a->con.entries.data[e0 + e];
        ravel_loc from = RAVEL_LOC_NONE;
        uint32_t val = en->v;
        for (; x < nin + sb->nparams; x++) { /* entries follow the same order as src */
            uint32_t xv = x < nin ? RAVEL_NONE : rv_block_params(f, sb)[x - nin];
            if (x >= nin && !a->live.used[xv]) continue;
            from = src[x];
            if (x >= nin) val = rv_succ_args(f, sc)[x - nin];
            x++;
            break;
        }
        if (loc_get(a, en->loc) == val) from = en->loc; /* already there */
        ravel_loc *ms = &a->con.msrc.data[e0 + e];
        if (join) {
            if (*ms == RAVEL_LOC_NONE) *ms = from;
            else if (*ms != from && *ms != RAVEL_SLOT_BIT - 1) {
                rv_rs_shape(a, RV_RS_MERGE);
                *ms = RAVEL_SLOT_BIT - 1; /* counted once per join and value */
            }
        }
        if (from != en->loc) {
            bool drop = rv_rs_shape(a, at_exit ? (join ? RV_RS_MERGE_MOVE : RV_RS_EXIT_MOVE) : RV_RS_ENTRY_MOVE);
            if (drop && rv_rs_surely_not(a, en->loc, val)) { /* the bug: this edge's move is forgotten */
                rv_rs_planted(a);
                rv_rs_add_move(a, en->loc, en->loc, val);
                continue;
            }
        }
        rv_rs_add_move(a, en->loc, from, val);
    }
    if (anchor == RAVEL_NONE) return rs_fail(a, ti, "duplicate edges");
    if (!rv_rs_emit_moves(a, anchor, RAVEL_NONE)) return false;
    return true;
}

