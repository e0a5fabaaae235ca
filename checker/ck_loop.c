/* ck_loop.c - the fast walk's loop shortcut: a natural loop whose first
 * round already read what the fixpoint reads is not iterated again.
 *
 * In the fast walk (ck_flow_verdict) a loop header first iterates its loop
 * alone. Round 1 starts from X, the meet over the forward edges (the back
 * edges unreached); then the back edges give the entry H = X meet back1,
 * and normally round 2 runs from H and is the fixpoint. Think of a state as
 * the set of facts "location L holds vreg v" (unknown, conflicted and empty
 * hold nothing: they are read-equivalent). H lacks, against X, the facts
 * F = X \ H: a location of D (where X and H differ) that holds nothing at
 * H lacks all of X(L) ("any" taint), one that holds a smaller set lacks the
 * vregs it lost (one taint bit per lost vreg).
 *
 * ck_loop_shortcut propagates F forward through one iteration, as a may-
 * analysis over the loop's blocks (reverse post-order, edges back to the
 * header excluded, inner cycles iterated): an edit moves its source's taint
 * to its destination, a def or clobber clears its location, a def of a lost
 * vreg clears that vreg's bit everywhere. Round 1 read what round 2 would
 * read unless a tainted fact reaches a read: a use of v at a location with
 * v's bit or "any", a stackmap slot with any taint (the stackmap check and
 * the nonmoving roots read it). A copy moves its source's taint to its def
 * and, like a branch argument substituted for its parameter, spreads the
 * taint of its source vreg to its def vreg wherever it is. A tainted read
 * means no: round 2 runs as usual.
 * Otherwise the first round's reads - and so its errors - are the
 * fixpoint's. H is then the exact fixpoint entry too, provided no tainted
 * fact survives to a back edge where H has it (back2 lacks at most the
 * tainted facts of back1, and H = X meet back1): checked at every latch. The walk
 * then finishes the loop from H (ck_flow.c: the header entered again for
 * its children outside the loop, or the usual final visit when a block
 * outside the loop hangs off an inner block), exactly as for a loop whose
 * entry came out stable, so the states leaving the loop are the fixpoint's.
 *
 * Soundness is tested by comparing the fast verdict with the exact walk's
 * report on every check of tests/checker (mutants, exhaustive small-scope,
 * the loop_* cases).
 * Requires: the walk's state at h's idom's exit, ck->patch = H's patch,
 * bpatch[h] = X's patch, ck->visits[visits0..] = the blocks round 1
 * entered. Uses the scratch lst1..3, lacc, vst2, vaux, bscr (no stamp is
 * taken after the first ones, so a stamp wrap cannot clear a mark in use).
 * Cost: about one cheap pass over the loop's instructions per attempt
 * (a second one, until stable, only when an inner latch carries taint),
 * no allocation per instruction. */
#include "ck.h"

#include <stdlib.h>
#include <string.h>

#define LP_ANY 0x80000000u        /* taint: every fact of the location */
#define LP_MAXV 31u               /* lost vregs (bits 0..30) */
#define LP_MAX_WORK (1u << 26)    /* instruction visits per attempt */

typedef struct lp_ent {
    uint32_t li, mask;
} lp_ent;

struct ck_lpscratch {
    ck_u32vec touched;         /* locations given a taint in the current block */
    RV_VEC(lp_ent) in0, pool;  /* the header's entry taint; out states of the blocks */
    RV_VEC(ck_list) out;       /* per loop block: its out state in pool */
    RV_VEC(uint64_t) outsum;   /* per loop block: sum of its out state's masks (UINT64_MAX: not computed) */
    RV_VEC(uint64_t) insum;    /* per loop block: the same of its entry state when last run */
    ck_u32vec late;            /* first pass: out states read before they were computed (inner latches) */
};

typedef struct lp {
    ravel_checker *ck;
    const ravel_func *f;
    uint32_t h;
    uint32_t st;               /* lst2[li] == st: lacc[li] is li's taint now (0: none) */
    uint32_t sv;               /* vst2[v] == sv: v is lost vreg number vaux[v] */
    uint32_t bst;              /* bscr[2b] == bst: b is a loop block, at index bscr[2b+1] */
    uint32_t *blk, nb;         /* loop blocks, header first, reverse post-order */
    uint32_t lostv[LP_MAXV];   /* the lost vregs */
    uint32_t nlost;
    uint32_t sn;               /* lst3[li] == sn: li is in H's patch (ck->patch) */
    uint32_t work;
    struct ck_lpscratch *s;    /* the vectors, kept in the checker for the walk */
} lp;

/* ---- the taint state of the current block ---- */

static inline uint32_t lp_get(const lp *P, uint32_t li)
{
    return li != CK_NIL && P->ck->lst2[li] == P->st ? P->ck->lacc[li] : 0;
}

static inline void lp_set(lp *P, uint32_t li, uint32_t m)
{
    ravel_checker *ck = P->ck;
    if (li == CK_NIL) return;
    if (ck->lst2[li] != P->st) {
        if (!m) return;
        ck->lst2[li] = P->st;
        rv_vec_push(P->s->touched, li);
    }
    ck->lacc[li] = m;
}

static void lp_clear(lp *P)
{
    for (uint32_t i = 0; i < P->s->touched.len; i++) P->ck->lst2[P->s->touched.data[i]] = 0;
    P->s->touched.len = 0;
}

static inline uint32_t lp_bit(const lp *P, uint32_t v)
{
    return P->ck->vst2[v] == P->sv ? 1u << P->ck->vaux[v] : 0;
}

static uint32_t lp_union(const lp *P) /* every taint bit in the state */
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < P->s->touched.len; i++) m |= P->ck->lacc[P->s->touched.data[i]];
    return m;
}

/* A def of v: stale copies of a lost vreg die everywhere, in both rounds. */
static void lp_kill(lp *P, uint32_t v)
{
    uint32_t bit = lp_bit(P, v);
    if (!bit) return;
    for (uint32_t i = 0; i < P->s->touched.len; i++) P->ck->lacc[P->s->touched.data[i]] &= ~bit;
}

/* ---- transfer (the order of ck_xfer.c) ---- */

static void lp_defs(lp *P, const rv_inst *in, bool late)
{
    const rv_operand *d = ck_defs(P->f, in);
    for (uint32_t k = 0; k < in->ndefs; k++) {
        if (rv_op_is_late(&d[k]) != late) continue;
        lp_kill(P, d[k].vreg);
        lp_set(P, ck_li(P->ck, d[k].loc), 0);
    }
}

/* False if a use reads a tainted fact. */
static bool lp_uses(lp *P, const rv_inst *in, bool late)
{
    const rv_operand *u = ck_uses(P->f, in);
    for (uint32_t k = 0; k < in->nuses; k++) {
        if (rv_op_is_late(&u[k]) != late) continue;
        if (lp_get(P, ck_li(P->ck, u[k].loc)) & (LP_ANY | lp_bit(P, u[k].vreg))) return false;
    }
    return true;
}

static bool lp_lost_bit(lp *P, uint32_t v, uint32_t *bit);

/* Where a tainted fact of vreg a is, one of vreg p is too (a branch
 * argument substituted for its parameter, a copy's alias). */
static bool lp_spread(lp *P, uint32_t a, uint32_t p)
{
    uint32_t ab = lp_bit(P, a), pb;
    if (!ab || !(lp_union(P) & ab)) return true;
    if (!lp_lost_bit(P, p, &pb)) return false;
    for (uint32_t i = 0; i < P->s->touched.len; i++)
        if (P->ck->lacc[P->s->touched.data[i]] & ab) P->ck->lacc[P->s->touched.data[i]] |= pb;
    return true;
}

/* copy d <- u (its read was not tainted, so it succeeds or fails in both
 * rounds alike): d's stale facts die, d joins u wherever u is, and d's
 * location takes the source's facts (msrc: the source's taint at the
 * read). Taken as an alias even if the read failed: more taint is safe. */
static bool lp_copy(lp *P, const rv_inst *in, uint32_t msrc)
{
    const rv_operand *d = ck_defs(P->f, in), *u = ck_uses(P->f, in);
    lp_kill(P, d->vreg);
    if (!lp_spread(P, u->vreg, d->vreg)) return false;
    lp_set(P, ck_li(P->ck, d->loc), msrc);
    return true;
}

static bool lp_op(lp *P, const rv_inst *in)
{
    ravel_checker *ck = P->ck;
    const ravel_func *f = P->f;
    if (ck_op_plain(f, in)) { /* uses, clobbers, defs */
        if (!lp_uses(P, in, false)) return false;
        if ((in->flags & RV_IF_CLOBBERS) || in->op == RAVEL_OP_CALL) {
            const uint32_t *regs;
            uint32_t n = rv_inst_clobbers(f, in, &regs);
            for (uint32_t k = 0; k < n; k++) lp_set(P, ck_li(ck, regs[k]), 0);
        }
        lp_defs(P, in, true);
        return true;
    }
    bool copy = in->op == RAVEL_OP_COPY && in->ndefs == 1 && in->nuses == 1;
    lp_defs(P, in, false);
    if (!lp_uses(P, in, false)) return false;
    uint32_t msrc = copy ? lp_get(P, ck_li(ck, ck_uses(f, in)->loc)) : 0;
    if (copy && rv_op_is_early(ck_defs(f, in)) && !lp_copy(P, in, msrc)) return false;
    if (!rv_is_term(in)) {
        if (in->flags & RV_IF_STACKMAP)
            for (uint32_t k = 0; k < in->u.smap.n; k++)
                if (lp_get(P, ck_li(ck, ravel_slot(f->u32.data[in->u.smap.first + k])))) return false;
        const uint32_t *regs;
        uint32_t n = rv_inst_clobbers(f, in, &regs);
        for (uint32_t k = 0; k < n; k++) lp_set(P, ck_li(ck, regs[k]), 0);
    }
    if (copy && rv_op_is_late(ck_defs(f, in))) {
        if (!lp_copy(P, in, msrc)) return false;
    } else {
        lp_defs(P, in, true);
    }
    return lp_uses(P, in, true);
}

/* H's value of li (the new entry: ck->patch over the state; only asked
 * for the few tainted locations at a latch). */
static ck_val lp_hval(const lp *P, uint32_t li)
{
    const ravel_checker *ck = P->ck;
    if (ck->lst3[li] == P->sn)
        for (uint32_t i = 0; i < ck->patch.len; i++)
            if (ck->patch.data[i].li == li) return ck->patch.data[i].val;
    return ck->lval[li];
}

/* A back edge e (into h): after its substitution (h's parameters removed,
 * each added where its argument is), no tainted fact may be one H has.
 * (Round 2 starts from H, which has fewer facts than X, so it brings at
 * most round 1's facts to each back edge, and may lack only tainted ones;
 * H = X meet back1 keeps every fact it has unless a back edge loses one.) */
static bool lp_latch_ok(const lp *P, const rv_succ *e)
{
    const ravel_checker *ck = P->ck;
    const ravel_func *f = P->f;
    const uint32_t *params = ck_params(f, &f->blocks.data[P->h]), *args = ck_args(f, e);
    uint32_t pmask = 0;
    for (uint32_t i = 0; i < e->nargs; i++) pmask |= lp_bit(P, params[i]);
    for (uint32_t i = 0; i < P->s->touched.len; i++) {
        uint32_t li = P->s->touched.data[i], m = ck->lacc[li];
        if (!m) continue;
        ck_val x = lp_hval(P, li);
        if (x >= CK_V_UNKNOWN) continue; /* H holds nothing there: nothing to lose */
        if (m & LP_ANY) return false;
        for (uint32_t b = 0; b < P->nlost; b++)
            if (((m & ~pmask) >> b) & 1 && ck_val_has(&ck->sets, x, P->lostv[b])) return false;
        for (uint32_t a = 0; a < e->nargs; a++)
            if ((m & lp_bit(P, args[a])) && ck_val_has(&ck->sets, x, params[a])) return false;
    }
    return true;
}

/* The lost vreg number of v, given one if it has none; false if full. */
static bool lp_lost_bit(lp *P, uint32_t v, uint32_t *bit)
{
    ravel_checker *ck = P->ck;
    if (ck->vst2[v] != P->sv) {
        if (P->nlost == LP_MAXV) return false;
        ck->vst2[v] = P->sv;
        ck->vaux[v] = P->nlost;
        P->lostv[P->nlost++] = v;
    }
    *bit = 1u << ck->vaux[v];
    return true;
}

/* The edges: a tainted argument taints its parameter where it is (the
 * substitution adds the parameter there in the first round only). The
 * parameters' own facts are not removed: a may-analysis can keep more. */
static bool lp_term(lp *P, const rv_inst *t)
{
    const ravel_func *f = P->f;
    for (uint32_t k = 0; k < rv_inst_nsuccs(t); k++) {
        const rv_succ *e = &rv_inst_succs(f, t)[k];
        if (e->block == P->h && !lp_latch_ok(P, e)) return false;
        const uint32_t *params = ck_params(f, &f->blocks.data[e->block]), *args = ck_args(f, e);
        for (uint32_t a = 0; a < e->nargs; a++)
            if (!lp_spread(P, args[a], params[a])) return false;
    }
    return true;
}

/* Loads block i's entry taint: F for the header, else the union of its
 * predecessors' out states (all loop blocks). False on a predecessor
 * outside the loop (not a natural loop body: no shortcut). */
static bool lp_enter(lp *P, uint32_t i)
{
    ravel_checker *ck = P->ck;
    lp_clear(P);
    if (i == 0) {
        for (uint32_t k = 0; k < P->s->in0.len; k++) lp_set(P, P->s->in0.data[k].li, P->s->in0.data[k].mask);
        return true;
    }
    uint32_t b = P->blk[i];
    for (uint32_t p = ck->pred_start.data[b]; p < ck->pred_start.data[b + 1]; p++) {
        uint32_t q = ck->pred.data[p];
        if (!ck_reachable(ck, q)) continue;
        if (ck->bscr.data[2 * q] != P->bst) return false;
        uint32_t j = ck->bscr.data[2 * q + 1];
        if (P->s->outsum.data[j] == UINT64_MAX) {
            rv_vec_push(P->s->late, j);
            continue;
        }
        ck_list o = P->s->out.data[j];
        for (uint32_t k = 0; k < o.len; k++) {
            lp_ent e = P->s->pool.data[o.start + k];
            lp_set(P, e.li, lp_get(P, e.li) | e.mask);
        }
    }
    return true;
}

/* li carries a taint mark (maybe cleared since: then nothing changes). */
static inline bool lp_on(const lp *P, uint32_t li) { return li != CK_NIL && P->ck->lst2[li] == P->st; }

/* An operation that lp_op would leave as it is: not a copy, terminator,
 * safepoint or stackmap; no operand in a location with a taint mark, no
 * clobbered register with one, no def of a lost vreg. (Its reads then read
 * no taint; its writes and clobbers clear marks that are not there; its
 * defs kill no lost vreg's bit.) Most instructions of a round are such
 * (over 90% on generated loops): they cost this one pass over their
 * operands instead of lp_op's. */
static inline bool lp_quiet(const lp *P, const rv_inst *in)
{
    if ((in->flags & (RV_IF_SAFEPOINT | RV_IF_STACKMAP)) || in->op == RAVEL_OP_COPY || rv_is_term(in)) return false;
    const ravel_checker *ck = P->ck;
    const rv_operand *o = ck_ops(P->f, in);
    uint32_t nd = in->ndefs, n = nd + in->nuses;
    for (uint32_t k = 0; k < n; k++)
        if (lp_on(P, ck_lix(ck, o[k].loc)) || (k < nd && lp_bit(P, o[k].vreg))) return false;
    if (!(in->flags & RV_IF_CLOBBERS) && in->op != RAVEL_OP_CALL) return true; /* (rv_inst_clobbers: none) */
    const uint32_t *regs;
    uint32_t nc = rv_inst_clobbers(P->f, in, &regs);
    for (uint32_t k = 0; k < nc; k++)
        if (lp_on(P, ck_li(ck, regs[k]))) return false;
    return true;
}

/* Runs loop block i; stores its out state; *changed if it grew. */
static bool lp_block(lp *P, uint32_t i, bool *changed)
{
    const ravel_func *f = P->f;
    const rv_block *bl = &f->blocks.data[P->blk[i]];
    if (!lp_enter(P, i)) return false;
    uint64_t entry = 0; /* taints only grow: the same sum is the same entry, so the same out */
    for (uint32_t k = 0; k < P->s->touched.len; k++) entry += P->ck->lacc[P->s->touched.data[k]];
    if (P->s->insum.data[i] == entry) return true;
    P->s->insum.data[i] = entry;
    if (!P->s->touched.len) { /* nothing tainted: nothing to read, move or spread */
        if (P->s->outsum.data[i] != 0) *changed = true;
        P->s->outsum.data[i] = 0;
        P->s->out.data[i] = (ck_list){0, 0};
        return true;
    }
    P->work += bl->ninsts;
    if (P->work > LP_MAX_WORK) return false;
    for (uint32_t k = 0; k < bl->ninsts; k++) {
        const rv_inst *in = rv_inst_at(f, bl->first_inst + k);
        if (rv_is_edit(in)) {
            uint32_t d = ck_lix(P->ck, in->u.edit.dst), sr = ck_lix(P->ck, in->u.edit.src);
            if (lp_on(P, d) || lp_on(P, sr)) lp_set(P, d, lp_get(P, sr)); /* else: nothing moves */
            continue;
        }
        if (lp_quiet(P, in)) continue;
        if (!lp_op(P, in)) return false;
        if (rv_is_term(in) && !lp_term(P, in)) return false;
    }
    uint32_t start = P->s->pool.len;
    uint64_t sum = 0;
    for (uint32_t k = 0; k < P->s->touched.len; k++) {
        uint32_t li = P->s->touched.data[k], m = P->ck->lacc[li];
        if (!m) continue;
        rv_vec_push(P->s->pool, ((lp_ent){li, m}));
        sum += m;
    }
    if (P->s->outsum.data[i] != sum) *changed = true; /* taints only grow: a bit more is a larger sum */
    P->s->outsum.data[i] = sum;
    P->s->out.data[i] = (ck_list){start, P->s->pool.len - start};
    return true;
}

/* ---- setting up ---- */

/* The loop's blocks (entered during the round), header first, in reverse
 * post-order, marked in bscr with their index. */
static void sift(const uint32_t *key, uint32_t *a, uint32_t r, uint32_t n)
{
    for (;;) {
        uint32_t c = 2 * r + 1;
        if (c >= n) return;
        if (c + 1 < n && key[a[c]] < key[a[c + 1]]) c++;
        if (key[a[r]] >= key[a[c]]) return;
        uint32_t t = a[r];
        a[r] = a[c];
        a[c] = t;
        r = c;
    }
}

static bool lp_blocks(lp *P, uint32_t visits0)
{
    ravel_checker *ck = P->ck;
    if (ck->bscr.len < 2 * ck->nblocks) {
        uint32_t old = ck->bscr.len;
        rv_vec_reserve(ck->bscr, 2 * ck->nblocks - old);
        ck->bscr.len = 2 * ck->nblocks;
        for (uint32_t i = old; i < ck->bscr.len; i++) ck->bscr.data[i] = 0;
    }
    P->bst = ++ck->bstamp;
    uint32_t n = 0;
    for (uint32_t i = visits0; i < ck->visits.len; i++) {
        uint32_t b = ck->visits.data[i];
        if (ck->bscr.data[2 * b] == P->bst) continue;
        if (!ck_in_loop(ck, b, P->h)) return false;
        ck->bscr.data[2 * b] = P->bst;
        ck->visits.data[visits0 + n++] = b; /* compacted in place: the round's list is not needed again */
    }
    ck->visits.len = visits0 + n;
    uint32_t *a = &ck->visits.data[visits0];
    const uint32_t *key = ck->rpo_index.data; /* heap sort (qsort takes no context in C11) */
    for (uint32_t r = n / 2; r-- > 0;) sift(key, a, r, n);
    for (uint32_t end = n; end-- > 1;) {
        uint32_t t = a[0];
        a[0] = a[end];
        a[end] = t;
        sift(key, a, 0, end);
    }
    if (!n || a[0] != P->h) return false;
    for (uint32_t i = 0; i < n; i++) ck->bscr.data[2 * a[i] + 1] = i;
    P->blk = a;
    P->nb = n;
    return true;
}

/* The taint of location li whose value goes from was (X) to now (H);
 * false if it cannot be expressed (too many lost vregs; or a location
 * holding nothing at X and something at H, which the meet never gives). */
static bool lp_taint(lp *P, uint32_t li, ck_val was, ck_val now)
{
    ravel_checker *ck = P->ck;
    if (was == now || (was >= CK_V_UNKNOWN && now >= CK_V_UNKNOWN)) return true; /* read-equivalent */
    if (was >= CK_V_UNKNOWN) return false;
    uint32_t mask = 0;
    if (now >= CK_V_UNKNOWN) {
        mask = LP_ANY;
    } else {
        uint32_t o1, o2, j = 0;
        const uint32_t *a, *b;
        uint32_t na = ck_val_members(&ck->sets, was, &a, &o1), nb = ck_val_members(&ck->sets, now, &b, &o2);
        for (uint32_t k = 0; k < na; k++) { /* both sorted */
            while (j < nb && b[j] < a[k]) j++;
            if (j < nb && b[j] == a[k]) continue;
            uint32_t bit;
            if (!lp_lost_bit(P, a[k], &bit)) return false;
            mask |= bit;
        }
        if (!mask) return false; /* now is not a subset of was: never, the meet only descends */
    }
    rv_vec_push(P->s->in0, ((lp_ent){li, mask}));
    return true;
}

/* F: X's patch (bpatch[h]) against H's (ck->patch), both over the current
 * state (h's idom's exit). so, sn: fresh stamps. */
static bool lp_diff(lp *P, uint32_t so, uint32_t sn)
{
    ravel_checker *ck = P->ck;
    const ck_span old = ck->bpatch.data[P->h];
    const ck_ent *xold = old.len ? &ck->ppool.data[old.start] : NULL;
    for (uint32_t i = 0; i < old.len; i++) {
        ck->lst1[xold[i].li] = so;
        ck->lacc[xold[i].li] = xold[i].val;
    }
    for (uint32_t i = 0; i < ck->patch.len; i++) {
        ck_ent e = ck->patch.data[i];
        ck->lst3[e.li] = sn;
        if (!lp_taint(P, e.li, ck->lst1[e.li] == so ? ck->lacc[e.li] : ck->lval[e.li], e.val)) return false;
    }
    for (uint32_t i = 0; i < old.len; i++) {
        ck_ent e = xold[i];
        if (ck->lst3[e.li] != sn && !lp_taint(P, e.li, e.val, ck->lval[e.li])) return false;
    }
    return true;
}

void ck_loop_reset(ravel_checker *ck)
{
    ck->visits.len = 0;
    ck->bscr.len = 0; /* lp_blocks zeroes it again as it grows it: no stale stamp survives */
    ck->bstamp = 0;
}

void ck_loop_free(ravel_checker *ck)
{
    rv_vec_free(ck->visits);
    rv_vec_free(ck->bscr);
    ck->bstamp = 0;
    struct ck_lpscratch *x = ck->lps;
    if (!x) return;
    rv_vec_free(x->touched);
    rv_vec_free(x->in0);
    rv_vec_free(x->pool);
    rv_vec_free(x->out);
    rv_vec_free(x->outsum);
    rv_vec_free(x->insum);
    rv_vec_free(x->late);
    free(x);
    ck->lps = NULL;
}

bool ck_loop_shortcut(ravel_checker *ck, uint32_t h, uint32_t visits0)
{
    lp P;
    memset(&P, 0, sizeof P);
    P.ck = ck;
    P.f = ck->f;
    P.h = h;
    if (!ck->lps) ck->lps = rv_xcalloc(1, sizeof *ck->lps);
    P.s = ck->lps;
    P.s->touched.len = P.s->in0.len = P.s->pool.len = P.s->out.len = P.s->outsum.len = P.s->insum.len = P.s->late.len = 0;
    uint32_t so = ck_next_stamp(ck), sn = ck_next_stamp(ck);
    P.sn = sn;
    P.st = ck_next_stamp(ck);
    P.sv = ck_next_stamp(ck);
    bool ok = lp_diff(&P, so, sn) && lp_blocks(&P, visits0);
    if (ok) {
        rv_vec_reserve(P.s->out, P.nb);
        rv_vec_reserve(P.s->outsum, P.nb);
        rv_vec_reserve(P.s->insum, P.nb);
        P.s->out.len = P.s->outsum.len = P.s->insum.len = P.nb;
        for (uint32_t i = 0; i < P.nb; i++) P.s->outsum.data[i] = P.s->insum.data[i] = UINT64_MAX;
        bool changed = false, again = false;
        for (uint32_t i = 0; ok && i < P.nb; i++) ok = lp_block(&P, i, &changed);
        for (uint32_t i = 0; i < P.s->late.len; i++) again |= P.s->outsum.data[P.s->late.data[i]] != 0;
        changed = again; /* an inner latch carried taint its header did not see: iterate to the (may) fixpoint */
        while (ok && changed) {
            changed = false;
            for (uint32_t i = 0; ok && i < P.nb; i++) ok = lp_block(&P, i, &changed);
        }
        lp_clear(&P);
    }
    return ok;
}
