/* anycfg.c - allocated functions on arbitrary CFGs (see anycfg.h).
 *
 *   cfg      random successors (jump, br, ret), critical edges split by
 *            edge blocks (at most 64 blocks after splitting); reverse
 *            post-order and dominators by ir/cfg.c
 *   body     per reachable block in reverse post-order: instructions over
 *            the values available (defined in the block's dominators or
 *            parameters), locations from a tracker of "location L holds v"
 *            (ck_sem.h: ck_sem_one) from the immediate dominator's exit
 *   edges    jump arguments for the targets' parameters, and moves into
 *            the parameters' home registers before the jump
 *   repair   the reference fixpoint names the failing uses; a share of
 *            them is pointed at a location that holds the value there
 * Everything is kept in a small fixed-size model, built into functions
 * (allocated and original) through the builder, printed by ir/print.c and
 * read back (so that reports carry lines). */
#define _POSIX_C_SOURCE 200809L
#include "fuzz/anycfg.h"

#include "checker/ck.h"
#include "ir/ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AC_MAXB 64u    /* blocks after splitting */
#define AC_MAXP 3u     /* parameters per block */
#define AC_MAXLOC 40u  /* registers + slots */

enum { K_ARGS, K_OP, K_EDIT, K_TERM };
enum { T_RET, T_JUMP, T_BR };

typedef struct ac_opnd {
    uint32_t v;
    ravel_loc loc;
} ac_opnd;

typedef struct ac_inst {
    uint8_t kind, term;
    const char *mn;            /* op mnemonic or edit name */
    uint32_t nd, nu;
    ac_opnd d[3], u[2];
    bool call, safepoint, has_imm;
    int64_t imm;
    uint32_t nclob, clob[2];   /* registers */
    uint32_t nsmap, smap[6];   /* slots */
    ravel_loc dst, src;        /* edits */
    uint32_t s[2];             /* successors */
    uint32_t nargs, args[AC_MAXP];
    uint32_t navail;           /* values available before it: its block's avail[0 .. navail) */
} ac_inst;

typedef struct ac_block {
    RV_VEC(ac_inst) in;
    uint32_t np, params[AC_MAXP];
    ravel_loc home[AC_MAXP];
    uint32_t nsucc, succ[2];
    uint8_t term;
    uint32_t npred;
    uint32_t idom;
    bool reach;
    uint32_t trk[AC_MAXLOC];   /* tracker at the exit: vreg + 1, 0 nothing */
    RV_VEC(uint32_t) avail;    /* values available at the exit */
} ac_block;

typedef struct ac {
    const uint8_t *data;
    size_t len, pos;
    uint64_t st;
    rv_anycfg_opts o;
    uint32_t nb;
    ac_block b[AC_MAXB];
    uint32_t rpo[AC_MAXB], nrpo, rpoi[AC_MAXB];
    uint32_t nv;
    RV_VEC(uint8_t) isref;     /* per vreg */
    bool nonmoving, irreducible;
} ac;

/* ---- choices ---- */

static uint32_t rnd32(ac *A)
{
    if (A->pos < A->len) {
        uint32_t x = 0;
        for (int i = 0; i < 4 && A->pos < A->len; i++) x = x << 8 | A->data[A->pos++];
        return x;
    }
    return (uint32_t)(rv_rng_next(&A->st) >> 32);
}
static uint32_t below(ac *A, uint32_t n) { return n ? rnd32(A) % n : 0; }
static bool pct(ac *A, uint32_t p) { return below(A, 100) < p; }

static uint32_t nlocs(const ac *A) { return A->o.nregs + A->o.nslots + 1; } /* (+ the parallel moves' scratch slot) */
static ravel_loc loc_of(const ac *A, uint32_t li) { return rv_loc_at(A->o.nregs, li); }
static uint32_t li_of(const ac *A, ravel_loc l) { return rv_loc_index(A->o.nregs, nlocs(A) - A->o.nregs, l); }
static bool is_slot(ravel_loc l) { return (l & RAVEL_SLOT_BIT) != 0; }
static ravel_loc rand_reg(ac *A) { return below(A, A->o.nregs); }
static ravel_loc rand_slot(ac *A) { return ravel_slot(below(A, A->o.nslots)); }

static uint32_t new_vreg(ac *A, bool ref)
{
    rv_vec_push(A->isref, (uint8_t)ref);
    return A->nv++;
}

/* ---- the CFG ---- */

static void add_succ(ac *A, uint32_t b, uint32_t t)
{
    A->b[b].succ[A->b[b].nsucc++] = t;
    A->b[t].npred++;
}

/* Reverse post-order, idoms, and whether some retreating edge's target
 * does not dominate its source: the CFG analyses (ir/cfg.c) of the
 * successor lists. */
static void analyse(ac *A)
{
    uint32_t start[AC_MAXB + 1], succ[2 * AC_MAXB], ne = 0;
    for (uint32_t b = 0; b < A->nb; b++) {
        start[b] = ne;
        for (uint32_t k = 0; k < A->b[b].nsucc; k++) succ[ne++] = A->b[b].succ[k];
    }
    start[A->nb] = ne;
    rv_cfg g;
    rv_cfg_build_succs(&g, A->nb, start, succ);
    A->nrpo = g.nrpo;
    for (uint32_t b = 0; b < A->nb; b++) {
        A->rpoi[b] = g.rpo_index[b]; /* (RAVEL_NONE: unreachable) */
        A->b[b].reach = g.rpo_index[b] != RAVEL_NONE;
        A->b[b].idom = b == 0 || !A->b[b].reach ? UINT32_MAX : g.idom[b];
    }
    for (uint32_t i = 0; i < g.nrpo; i++) A->rpo[i] = g.rpo[i];
    A->irreducible = !g.reducible;
    rv_cfg_free(&g);
}

/* Random successors; then every edge from a two-way branch into a block
 * with several predecessors goes through a new edge block. */
/* One natural loop: b0 -> b1 (header) -> br b3 (latch, back to b1) or b2
 * (the exit, which returns): what the loop shortcut decides alone. */
static void make_loop(ac *A)
{
    for (uint32_t b = 0; b < AC_MAXB; b++) {
        A->b[b].nsucc = A->b[b].npred = 0;
        A->b[b].in.len = 0;
        A->b[b].avail.len = 0;
        A->b[b].np = 0;
    }
    A->nb = 4;
    A->b[0].term = T_JUMP;
    add_succ(A, 0, 1);
    A->b[1].term = T_BR;
    add_succ(A, 1, 3);
    add_succ(A, 1, 2);
    A->b[2].term = T_RET;
    A->b[3].term = T_JUMP;
    add_succ(A, 3, 1);
    analyse(A);
}

static void make_cfg(ac *A)
{
    if (A->o.one_loop) {
        make_loop(A);
        return;
    }
    uint32_t n = 2 + below(A, A->o.max_blocks - 1);
    for (uint32_t b = 0; b < AC_MAXB; b++) {
        A->b[b].nsucc = A->b[b].npred = 0;
        A->b[b].in.len = 0;
        A->b[b].avail.len = 0;
        A->b[b].np = 0;
    }
    A->nb = n;
    for (uint32_t b = 0; b < n; b++) {
        uint32_t r = below(A, 100);
        if (b == n - 1 || (b > 0 && r < 8)) {
            A->b[b].term = T_RET;
            continue;
        }
        /* a forward step most of the time (reachability), any target else
         * (never the entry: it has no predecessors) */
        uint32_t t1 = pct(A, 65) ? b + 1 : 1 + below(A, n - 1);
        if (r < 45) {
            A->b[b].term = T_JUMP;
            add_succ(A, b, t1);
        } else {
            uint32_t t2 = 1 + below(A, n - 1);
            if (t2 == t1) t2 = t1 + 1 < n ? t1 + 1 : 1;
            if (t2 == t1) {
                A->b[b].term = T_JUMP;
                add_succ(A, b, t1);
                continue;
            }
            A->b[b].term = T_BR;
            add_succ(A, b, t1);
            add_succ(A, b, t2);
        }
    }
    for (uint32_t b = 0; b < n; b++) {
        if (A->b[b].term != T_BR) continue;
        for (uint32_t k = 0; k < 2; k++) {
            uint32_t t = A->b[b].succ[k];
            if (A->b[t].npred < 2 || A->nb == AC_MAXB) continue;
            uint32_t e = A->nb++;
            A->b[e].nsucc = A->b[e].npred = 0;
            A->b[e].in.len = A->b[e].avail.len = 0;
            A->b[e].np = 0;
            A->b[e].term = T_JUMP;
            A->b[b].succ[k] = e;
            A->b[e].npred = 1;
            A->b[e].succ[A->b[e].nsucc++] = t; /* (t keeps its count: the edge moved) */
        }
    }
    /* the splitting may leave a critical edge when out of blocks: drop it */
    for (uint32_t b = 0; b < A->nb; b++)
        if (A->b[b].term == T_BR)
            for (uint32_t k = 0; k < 2; k++)
                if (A->b[A->b[b].succ[k]].npred > 1) {
                    A->b[b].term = T_JUMP;
                    A->b[b].succ[0] = A->b[b].succ[k];
                    A->b[A->b[b].succ[1 - k]].npred--;
                    A->b[b].nsucc = 1;
                    break;
                }
    analyse(A);
}

/* ---- bodies ---- */

static ac_inst *push_inst(ac_block *B)
{
    ac_inst z;
    memset(&z, 0, sizeof z);
    z.navail = B->avail.len;
    rv_vec_push(B->in, z);
    return &B->in.data[B->in.len - 1];
}

/* A use: mostly a value where the tracker has it, else any available value
 * at any location. */
static ac_opnd pick_use(ac *A, const uint32_t *trk, const ac_block *B)
{
    uint32_t cand[AC_MAXLOC], nc = 0;
    for (uint32_t li = 0; li < nlocs(A); li++)
        if (trk[li]) cand[nc++] = li;
    if (nc && pct(A, 88)) {
        uint32_t li = cand[below(A, nc)];
        return (ac_opnd){trk[li] - 1, loc_of(A, li)};
    }
    uint32_t v = B->avail.data[below(A, B->avail.len)];
    return (ac_opnd){v, pct(A, 70) ? rand_reg(A) : rand_slot(A)};
}

static ac_opnd new_def(ac *A, bool ref)
{
    uint32_t v = new_vreg(A, ref);
    ravel_loc l = pct(A, 75) ? rand_reg(A) : rand_slot(A);
    return (ac_opnd){v, l};
}

/* The tracker is a "one vreg per location" state of section 6
 * (ck_sem.h: ck_sem_one): its defs, edits and instructions are the
 * checker's shared rules, in their order. */
static ck_sem_one tracker(const ac *A, uint32_t *trk)
{
    return (ck_sem_one){trk, nlocs(A), A->o.nregs, A->isref.data, !A->nonmoving};
}

static void def_done(ac *A, uint32_t *trk, ac_block *B, const ac_opnd *d)
{
    ck_sem_one t = tracker(A, trk);
    ck_sem_def_at(&t, d->v, li_of(A, d->loc));
    rv_vec_push(B->avail, d->v);
}

static void edit(ac *A, ac_block *B, uint32_t *trk, const char *mn, ravel_loc dst, ravel_loc src)
{
    ac_inst *i = push_inst(B);
    i->kind = K_EDIT;
    i->mn = mn;
    i->dst = dst;
    i->src = src;
    ck_sem_one t = tracker(A, trk);
    ck_sem_edit(&t, li_of(A, dst), li_of(A, src));
}

/* An edit copying something the tracker has (spill, reload or move). */
static void random_edit(ac *A, ac_block *B, uint32_t *trk)
{
    uint32_t r = below(A, 3);
    ravel_loc src = r == 1 ? rand_slot(A) : rand_reg(A);
    for (int t = 0; t < 4 && !trk[li_of(A, src)]; t++) src = r == 1 ? rand_slot(A) : rand_reg(A);
    if (r == 0) edit(A, B, trk, "spill", rand_slot(A), src);
    else if (r == 1) edit(A, B, trk, "reload", rand_reg(A), src);
    else {
        ravel_loc dst = rand_reg(A);
        if (dst != src) edit(A, B, trk, "move", dst, src);
    }
}

/* The effects of an op on the tracker (ck_sem.h: ck_sem_step): clobbers,
 * the collector, then the defs. */
static void inst_track(ac *A, uint32_t *trk, const ac_inst *in)
{
    uint32_t clob[2], listed[6];
    ck_sem_def defs[3];
    for (uint32_t k = 0; k < in->nclob; k++) clob[k] = li_of(A, in->clob[k]);
    for (uint32_t k = 0; k < in->nsmap; k++) listed[k] = li_of(A, ravel_slot(in->smap[k]));
    for (uint32_t k = 0; k < in->nd; k++) defs[k] = (ck_sem_def){in->d[k].v, li_of(A, in->d[k].loc), false};
    ck_sem_one t = tracker(A, trk);
    ck_sem_step(&t, &(ck_sem_inst){clob, in->nclob, in->safepoint, listed, in->nsmap, defs, in->nd});
}

static void one_inst(ac *A, ac_block *B, uint32_t *trk)
{
    uint32_t r = below(A, 100);
    if (r < 14) {
        random_edit(A, B, trk);
        return;
    }
    ac_inst *in = push_inst(B);
    in->kind = K_OP;
    if (r < 40) { /* binary op */
        static const char *const mn[] = {"add", "sub", "and", "xor", "mul"};
        in->mn = mn[below(A, 5)];
        in->nu = 2;
        in->u[0] = pick_use(A, trk, B);
        in->u[1] = pick_use(A, trk, B);
        in->nd = 1;
        in->d[0] = new_def(A, pct(A, 15));
    } else if (r < 50) {
        in->mn = "const";
        in->has_imm = true;
        in->imm = (int64_t)below(A, 100) - 20;
        in->nd = 1;
        in->d[0] = new_def(A, pct(A, 20));
    } else if (r < 62) {
        in->mn = "copy";
        in->nu = 1;
        in->u[0] = pick_use(A, trk, B);
        in->nd = 1;
        in->d[0] = new_def(A, pct(A, 50) ? A->isref.data[in->u[0].v] : pct(A, 30));
    } else if (r < 78) {
        in->mn = "out";
        in->nu = 1 + below(A, 2);
        for (uint32_t k = 0; k < in->nu; k++) in->u[k] = pick_use(A, trk, B);
    } else if (r < 88) { /* a call with clobbers */
        in->mn = "call";
        in->call = true;
        in->nu = below(A, 2);
        if (in->nu) in->u[0] = pick_use(A, trk, B);
        in->nclob = 1 + below(A, 2);
        for (uint32_t k = 0; k < in->nclob; k++) in->clob[k] = rand_reg(A);
        if (in->nclob == 2 && in->clob[0] == in->clob[1]) in->nclob = 1;
        in->nd = 1;
        in->d[0] = new_def(A, false);
    } else { /* a safepoint: the stackmap lists slots holding references (mostly) */
        in->mn = "call";
        in->call = true;
        in->safepoint = true;
        in->nu = below(A, 2);
        if (in->nu) in->u[0] = pick_use(A, trk, B);
        for (uint32_t s = 0; s < A->o.nslots && in->nsmap < 6; s++) {
            uint32_t v = trk[li_of(A, ravel_slot(s))];
            if ((v && A->isref.data[v - 1] && pct(A, 90)) || pct(A, 4)) in->smap[in->nsmap++] = s;
        }
    }
    for (uint32_t k = 0; k < in->nd; k++) {
        if (!strcmp(in->mn, "copy")) (void)pct(A, 50); /* (a choice with no effect, kept: the seeds' functions stay as they were) */
        rv_vec_push(B->avail, in->d[k].v);
    }
    inst_track(A, trk, in);
}

static void fill_block(ac *A, uint32_t b)
{
    ac_block *B = &A->b[b];
    uint32_t trk[AC_MAXLOC] = {0};
    if (b != 0 && B->idom != UINT32_MAX) {
        memcpy(trk, A->b[B->idom].trk, sizeof trk);
        for (uint32_t i = 0; i < A->b[B->idom].avail.len; i++) rv_vec_push(B->avail, A->b[B->idom].avail.data[i]);
    } else if (b != 0) {
        for (uint32_t v = 0; v < 3; v++) rv_vec_push(B->avail, v); /* unreachable: the entry's values (defined) */
    }
    for (uint32_t p = 0; p < B->np; p++) {
        def_done(A, trk, B, &(ac_opnd){B->params[p], B->home[p]});
    }
    if (b == 0) {
        ac_inst *in = push_inst(B);
        in->kind = K_ARGS;
        in->nd = 3;
        for (uint32_t k = 0; k < 3; k++) { /* v0, v1 and the reference v2, made first */
            in->d[k] = (ac_opnd){k, k};
            def_done(A, trk, B, &in->d[k]);
        }
    }
    uint32_t n = 1 + below(A, A->o.max_insts);
    for (uint32_t i = 0; i < n; i++) one_inst(A, B, trk);
    if (B->term == T_BR) { /* the condition in a register */
        ac_opnd c = pick_use(A, trk, B);
        if (is_slot(c.loc)) {
            ravel_loc r = rand_reg(A);
            edit(A, B, trk, "reload", r, c.loc);
            c.loc = r;
        }
        ac_inst *in = push_inst(B);
        in->kind = K_TERM;
        in->term = T_BR;
        in->nu = 1;
        in->u[0] = c;
    }
    memcpy(B->trk, trk, sizeof trk);
}

/* Parameters (blocks entered by jumps only), their home registers. */
static void make_params(ac *A)
{
    bool by_br[AC_MAXB] = {0};
    for (uint32_t b = 0; b < A->nb; b++)
        if (A->b[b].term == T_BR)
            for (uint32_t k = 0; k < 2; k++) by_br[A->b[b].succ[k]] = true;
    for (uint32_t b = 1; b < A->nb; b++) {
        ac_block *B = &A->b[b];
        if (by_br[b] || !B->npred) continue;
        B->np = below(A, AC_MAXP + 1);
        if (B->np > A->o.nregs) B->np = A->o.nregs;
        for (uint32_t p = 0; p < B->np; p++) {
            B->params[p] = new_vreg(A, pct(A, 20));
            ravel_loc h;
            bool dup;
            do { /* distinct homes */
                h = rand_reg(A);
                dup = false;
                for (uint32_t q = 0; q < p; q++) dup |= B->home[q] == h;
            } while (dup);
            B->home[p] = h;
        }
    }
}

/* Jump arguments (values of the parameter's kind available at the
 * source's exit, preferably where the tracker has them) and the moves
 * into the parameters' homes before the jump. */
static void make_edges(ac *A)
{
    for (uint32_t b = 0; b < A->nb; b++) {
        ac_block *B = &A->b[b];
        if (B->term == T_RET) {
            ac_inst *in = push_inst(B);
            in->kind = K_TERM;
            in->term = T_RET;
            continue;
        }
        if (B->term == T_BR) {
            B->in.data[B->in.len - 1].s[0] = B->succ[0];
            B->in.data[B->in.len - 1].s[1] = B->succ[1];
            continue;
        }
        ac_block *T = &A->b[B->succ[0]];
        uint32_t args[AC_MAXP];
        for (uint32_t p = 0; p < T->np; p++) {
            bool ref = A->isref.data[T->params[p]];
            uint32_t cand[AC_MAXLOC + 8], nc = 0;
            for (uint32_t li = 0; li < nlocs(A); li++)
                if (B->trk[li] && A->isref.data[B->trk[li] - 1] == ref) cand[nc++] = B->trk[li] - 1;
            if (!nc || pct(A, 10))
                for (uint32_t i = 0; i < B->avail.len && nc < AC_MAXLOC + 8; i++)
                    if (A->isref.data[B->avail.data[i]] == ref) cand[nc++] = B->avail.data[i];
            args[p] = nc ? cand[below(A, nc)] : (ref ? 2u : 0u); /* (v2 is the entry's reference) */
        }
        /* the moves into the homes, as a parallel move: a move whose
         * destination no pending move reads goes first; a cycle is broken
         * through the scratch slot (the one past the slots in use) */
        ravel_loc dst[AC_MAXP], src[AC_MAXP];
        uint32_t nm = 0;
        for (uint32_t p = 0; p < T->np; p++) {
            uint32_t from = UINT32_MAX;
            for (uint32_t li = 0; li < nlocs(A); li++)
                if (B->trk[li] == args[p] + 1 && (from == UINT32_MAX || pct(A, 50))) from = li;
            if (from == UINT32_MAX || loc_of(A, from) == T->home[p]) continue;
            dst[nm] = T->home[p];
            src[nm++] = loc_of(A, from);
        }
        while (nm) {
            uint32_t k = 0;
            for (; k < nm; k++) {
                bool read = false;
                for (uint32_t j = 0; j < nm; j++) read |= j != k && src[j] == dst[k];
                if (!read) break;
            }
            if (k == nm) { /* a cycle: park the first source in the scratch slot */
                ravel_loc scratch = ravel_slot(A->o.nslots);
                edit(A, B, B->trk, "spill", scratch, src[0]);
                src[0] = scratch;
                continue;
            }
            edit(A, B, B->trk, is_slot(src[k]) ? "reload" : "move", dst[k], src[k]);
            dst[k] = dst[nm - 1];
            src[k] = src[nm - 1];
            nm--;
        }
        ac_inst *in = push_inst(B);
        in->kind = K_TERM;
        in->term = T_JUMP;
        in->s[0] = B->succ[0];
        in->nargs = T->np;
        memcpy(in->args, args, sizeof args);
    }
}

/* ---- the function: built, printed (ir/print.c), read back ---- */

typedef struct ac_out {
    char *s;             /* the text */
    size_t len;
    RV_VEC(uint32_t) at; /* per instruction of the function: block << 20 | model instruction + 1 */
} ac_out;

static ravel_machine *make_machine(const ac *A)
{
    ravel_machine *m = ravel_machine_new();
    int cls = ravel_machine_add_class(m, "int");
    char name[16];
    for (uint32_t r = 0; r < A->o.nregs; r++) {
        snprintf(name, sizeof name, "r%u", r);
        ravel_machine_add_reg(m, name, cls, 0);
    }
    if (A->nonmoving) ravel_machine_set_gc_moving(m, 0);
    return m;
}

static ravel_opcode edit_op(const char *mn)
{
    return !strcmp(mn, "spill") ? RAVEL_OP_SPILL : !strcmp(mn, "reload") ? RAVEL_OP_RELOAD : RAVEL_OP_MOVE;
}

/* A terminator of the model. */
static void build_term(ravel_func *f, const ac_inst *in, bool alloc)
{
    if (in->term == T_RET) {
        ravel_inst_begin(f, RAVEL_OP_RET, NULL);
    } else if (in->term == T_BR) {
        ravel_inst_begin(f, RAVEL_OP_BR, NULL);
        ravel_inst_use(f, in->u[0].v, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, alloc ? in->u[0].loc : RAVEL_LOC_NONE);
        ravel_inst_succ(f, in->s[0], NULL, 0);
        ravel_inst_succ(f, in->s[1], NULL, 0);
    } else {
        ravel_inst_begin(f, RAVEL_OP_JUMP, NULL);
        ravel_inst_succ(f, in->s[0], in->args, in->nargs);
    }
    ravel_inst_end(f);
}

/* An instruction of the model that is no terminator and no edit. */
static void build_inst(ravel_func *f, const ac_inst *in, bool alloc)
{
    if (in->kind == K_ARGS) {
        ravel_inst_begin(f, RAVEL_OP_ARGS, NULL);
        for (uint32_t k = 0; k < in->nd; k++)
            ravel_inst_def(f, in->d[k].v, RAVEL_C_FIXED, in->d[k].loc, RAVEL_POS_DEFAULT, alloc ? in->d[k].loc : RAVEL_LOC_NONE);
        ravel_inst_end(f);
        return;
    }
    ravel_opcode op = in->call ? RAVEL_OP_CALL : rv_opcode_from_name(in->mn, strlen(in->mn));
    ravel_inst_begin(f, op, in->call ? "g" : op == RAVEL_OP_OTHER ? in->mn : NULL);
    for (uint32_t k = 0; k < in->nd; k++)
        ravel_inst_def(f, in->d[k].v, RAVEL_C_ANY, 0, RAVEL_POS_DEFAULT, alloc ? in->d[k].loc : RAVEL_LOC_NONE);
    for (uint32_t k = 0; k < in->nu; k++)
        ravel_inst_use(f, in->u[k].v, RAVEL_C_ANY, 0, RAVEL_POS_DEFAULT, alloc ? in->u[k].loc : RAVEL_LOC_NONE);
    if (in->has_imm) ravel_inst_imm(f, in->imm);
    if (in->call) ravel_inst_clobbers(f, in->clob, in->nclob);
    if (in->safepoint) ravel_inst_safepoint(f);
    if (in->safepoint && alloc) ravel_inst_stackmap(f, in->smap, in->nsmap);
    ravel_inst_end(f);
}

/* The model's function (alloc: with locations, edits and stackmaps),
 * through the builder; o->at maps its instructions to the model's. */
static ravel_func *build(const ac *A, ac_out *o, const ravel_machine *m, bool alloc)
{
    ravel_func *f = ravel_func_new(m, "f");
    for (uint32_t v = 0; v < A->nv; v++) ravel_vreg_new_num(f, v, 0, A->isref.data[v]);
    char name[16];
    for (uint32_t b = 0; b < A->nb; b++) {
        snprintf(name, sizeof name, "b%u", b);
        ravel_block_new(f, name);
    }
    o->at.len = 0;
    for (uint32_t b = 0; b < A->nb; b++) {
        const ac_block *B = &A->b[b];
        ravel_block_begin(f, b);
        for (uint32_t p = 0; p < B->np; p++) ravel_block_add_param(f, b, B->params[p]);
        for (uint32_t i = 0; i < B->in.len; i++) {
            const ac_inst *in = &B->in.data[i];
            if (in->kind == K_EDIT && !alloc) continue;
            rv_vec_push(o->at, b << 20 | (i + 1));
            if (in->kind == K_EDIT) ravel_edit(f, edit_op(in->mn), in->dst, in->src);
            else if (in->kind == K_TERM) build_term(f, in, alloc);
            else build_inst(f, in, alloc);
        }
    }
    ravel_func_finish(f);
    return f;
}

/* The text of the model's function (the canonical printer's) in o->s. */
static void render(const ac *A, ac_out *o, bool alloc)
{
    ravel_machine *m = make_machine(A);
    ravel_func *f = build(A, o, m, alloc);
    rv_free(o->s);
    o->s = NULL;
    o->len = 0;
    FILE *fp = open_memstream(&o->s, &o->len);
    ravel_print_machine(fp, m);
    fputc('\n', fp);
    ravel_print_func(fp, f);
    fclose(fp);
    ravel_func_free(f);
    ravel_machine_free(m);
}

static ravel_module *parse(const ac_out *o)
{
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(o->s, o->len, "anycfg.ra", d);
    if (m && ravel_diags_count(d)) {
        ravel_module_free(m);
        m = NULL;
    }
    ravel_diags_free(d);
    return m;
}

/* ---- repair ---- */

static ac_inst *inst_at(ac *A, const ac_out *o, uint32_t inst)
{
    if (inst >= o->at.len || !o->at.data[inst]) return NULL;
    uint32_t b = o->at.data[inst] >> 20, i = (o->at.data[inst] & 0xfffffu) - 1;
    return b < A->nb && i < A->b[b].in.len ? &A->b[b].in.data[i] : NULL;
}

static const ac_block *block_of(const ac *A, const ac_inst *in)
{
    for (uint32_t b = 0; b < A->nb; b++)
        if (A->b[b].in.len && in >= A->b[b].in.data && in < A->b[b].in.data + A->b[b].in.len) return &A->b[b];
    return NULL;
}

/* The parsed function's vreg id of each vreg number of the model. */
static void vreg_ids(const ravel_func *f, uint32_t nv, ck_u32vec *ids)
{
    ids->len = 0;
    for (uint32_t v = 0; v < nv; v++) rv_vec_push(*ids, UINT32_MAX);
    for (uint32_t v = 0; v < f->vregs.len; v++)
        if (f->vregs.data[v].num < nv) ids->data[f->vregs.data[v].num] = v;
}

/* One round: the reference's failing uses, a share of them pointed at a
 * location that holds the value there; stackmap slots without a reference
 * dropped (the same share). False if nothing failed. */
/* The last resort for a use whose value is nowhere: the operation does
 * without it (a copy becomes a const, a binary op takes an immediate, an
 * output or a call drops it; a const writes the scratch slot). */
static void drop_use(ac *A, ac_inst *in, uint32_t k)
{
    if (in->kind != K_OP) return;
    memmove(&in->u[k], &in->u[k + 1], (in->nu - k - 1) * sizeof *in->u);
    in->nu--;
    if (!strcmp(in->mn, "copy") || (!strcmp(in->mn, "out") && !in->nu)) {
        bool out = !strcmp(in->mn, "out");
        in->mn = "const";
        in->nu = 0;
        in->has_imm = true;
        in->imm = 1;
        if (out) {
            in->nd = 1;
            in->d[0] = (ac_opnd){new_vreg(A, false), ravel_slot(A->o.nslots)};
        }
    } else if (in->nd && in->nu == 1 && !in->call && strcmp(in->mn, "out")) {
        in->has_imm = true; /* a binary op: `add v, 1` */
        in->imm = 1;
    } else if (in->nd && !in->nu && !in->call) {
        in->mn = "const";
    }
}

static bool repair(ac *A, ravel_checker *ck, ac_out *o, bool drastic)
{
    render(A, o, true);
    ravel_module *m = parse(o);
    if (!m) return false;
    const ravel_func *f = ravel_module_func(m, 0);
    ravel_report *rep = NULL;
    ravel_check(ck, f, NULL, &rep);
    ck_u32vec ids = {0};
    vreg_ids(f, A->nv, &ids);
    bool any = false;
    for (size_t i = 0; i < ravel_report_count(rep); i++) {
        const ravel_check_error *e = ravel_report_error(rep, i);
        ac_inst *in = inst_at(A, o, e->inst);
        if (!in || !e->role || !pct(A, A->o.repair_pct)) continue;
        any = true;
        if (!strcmp(e->role, "stackmap") && e->operand >= 0 && (uint32_t)e->operand < in->nsmap) {
            memmove(&in->smap[e->operand], &in->smap[e->operand + 1], (in->nsmap - (uint32_t)e->operand - 1) * sizeof *in->smap);
            in->nsmap--;
            continue;
        }
        if (strcmp(e->role, "use") || e->operand < 0 || (uint32_t)e->operand >= in->nu) continue;
        ac_opnd *u = &in->u[e->operand];
        ravel_loc locs[8];
        uint32_t v = ids.data[u->v], n = v == UINT32_MAX ? 0 : ck_ref_holders(ck, f, e->inst, v, locs, 8);
        if (n > 8) n = 8;
        uint32_t w = 0;
        for (uint32_t k = 0; k < n; k++)
            if (!(in->kind == K_TERM && is_slot(locs[k])) && li_of(A, locs[k]) < nlocs(A)) locs[w++] = locs[k];
        if (w) {
            u->loc = locs[below(A, w)];
            continue;
        }
        /* the value is nowhere: use another available one that is somewhere
         * (the model is the program: the original changes alike) */
        const ac_block *B = block_of(A, in);
        uint32_t na = B ? in->navail : 0, k0 = below(A, na ? na : 1);
        for (uint32_t t = 0; t < na && t < (drastic ? 32u : 8u) && !w; t++) { /* (a few tries: each runs the block) */
            uint32_t c = B->avail.data[(k0 + t) % na], cv = ids.data[c];
            n = cv == UINT32_MAX ? 0 : ck_ref_holders(ck, f, e->inst, cv, locs, 8);
            if (n > 8) n = 8;
            for (uint32_t k = 0; k < n; k++)
                if (!(in->kind == K_TERM && is_slot(locs[k])) && li_of(A, locs[k]) < nlocs(A)) locs[w++] = locs[k];
            if (w) u->v = c, u->loc = locs[below(A, w)];
        }
        if (!w && drastic) drop_use(A, in, (uint32_t)e->operand);
    }
    rv_vec_free(ids);
    ravel_report_free(rep);
    ravel_module_free(m);
    return any;
}

/* ---- the entry point ---- */

void rv_anycfg_opts_default(rv_anycfg_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_blocks = 8;
    o->max_insts = 6;
    o->nregs = 4;
    o->nslots = 3;
    o->repairs = 2;
    o->repair_pct = 70;
}

static void clamp(uint32_t *x, uint32_t lo, uint32_t hi) { *x = *x < lo ? lo : *x > hi ? hi : *x; }

int rv_anycfg_build(const uint8_t *data, size_t len, uint64_t seed, const rv_anycfg_opts *opts, rv_anycfg *out)
{
    memset(out, 0, sizeof *out);
    ac *A = rv_xcalloc(1, sizeof *A);
    A->data = data;
    A->len = len;
    A->st = seed;
    A->o = *opts;
    clamp(&A->o.max_blocks, 2, 40);
    clamp(&A->o.max_insts, 1, 20000);
    clamp(&A->o.nregs, 3, 16);
    clamp(&A->o.nslots, 1, 16);
    A->nonmoving = pct(A, 25);
    for (int t = 0; t < 30; t++) {
        make_cfg(A);
        if (A->o.irreducible == 0 || (A->o.irreducible > 0) == A->irreducible) break;
    }
    A->nv = 0;
    A->isref.len = 0;
    for (uint32_t k = 0; k < 3; k++) new_vreg(A, k == 2); /* the entry's arguments */
    make_params(A);
    for (uint32_t i = 0; i < A->nrpo; i++) fill_block(A, A->rpo[i]);
    for (uint32_t b = 0; b < A->nb; b++)
        if (!A->b[b].reach) fill_block(A, b);
    make_edges(A);
    ac_out o = {0};
    ravel_checker *ck = ravel_checker_new();
    ravel_checker_set_options(ck, RAVEL_CHECK_REFERENCE);
    for (uint32_t r = 0; r < A->o.repairs && repair(A, ck, &o, false); r++) {}
    for (uint32_t r = 0; A->o.clean && r < 8 && repair(A, ck, &o, true); r++) {}
    ravel_checker_free(ck);
    render(A, &o, true);
    rv_vec_free(o.at);
    out->alloc_text = o.s;
    out->alloc = parse(&o);
    ac_out q = {0};
    render(A, &q, false);
    rv_vec_free(q.at);
    out->orig_text = q.s;
    out->orig = parse(&q);
    out->irreducible = A->irreducible;
    for (uint32_t b = 0; b < AC_MAXB; b++) {
        rv_vec_free(A->b[b].in);
        rv_vec_free(A->b[b].avail);
    }
    rv_vec_free(A->isref);
    rv_free(A);
    return out->alloc && out->orig ? 0 : -1;
}

void rv_anycfg_free(rv_anycfg *a)
{
    ravel_module_free(a->alloc);
    ravel_module_free(a->orig);
    rv_free(a->alloc_text);
    rv_free(a->orig_text);
    memset(a, 0, sizeof *a);
}

/* ---- every checker path against the reference ---- */

/* The report normalized: status, diagnostics, and per error its kind,
 * line, operand, role, position, location, expected vreg, what was held
 * and the message; the provenance and explain text too while there are at
 * most CK_MAX_PROVENANCE errors (beyond, which errors get one depends on
 * the order a path records them in). */
static char *normal(int st, const ravel_report *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return NULL;
    fprintf(m, "status %d\n", st);
    for (size_t i = 0; i < ravel_report_ndiags(r); i++) fprintf(m, "diag %s\n", ravel_report_diag(r, i));
    size_t n = ravel_report_count(r);
    for (size_t i = 0; i < n; i++) {
        const ravel_check_error *e = ravel_report_error(r, i);
        fprintf(m, "%s line %u op %d %s %s loc %s exp %s held %s: %s\n", e->kind, e->line, e->operand, e->role ? e->role : "-",
                e->position ? e->position : "-", e->loc ? e->loc : "-", e->expected ? e->expected : "-", e->held ? e->held : "-",
                e->message ? e->message : "-");
        if (n <= CK_MAX_PROVENANCE) fprintf(m, "%s%s", e->provenance ? e->provenance : "", e->explain ? e->explain : "");
    }
    fclose(m);
    return buf;
}

static int run_path(unsigned opts, const ravel_func *alloc, const ravel_func *orig, char **text)
{
    ravel_checker *ck = ravel_checker_new();
    ravel_checker_set_options(ck, opts);
    ravel_report *r = NULL;
    int st = ravel_check(ck, alloc, orig, text ? &r : NULL);
    if (text) *text = normal(st, r);
    ravel_report_free(r);
    ravel_checker_free(ck);
    return st;
}

bool rv_anycfg_paths_agree(const ravel_func *alloc, const ravel_func *orig, int *ref_status, char *msg, size_t msglen)
{
    static const struct {
        unsigned opts;
        const char *name;
        bool report;
    } paths[] = {
        {0, "default", true},
        {CK_OPT_NO_VN, "no-vn", true},
        {CK_OPT_NEED_SCAN | RAVEL_CHECK_FULL_VALIDATE, "value numbering by its own scan, full validate", true},
        {RAVEL_CHECK_VERDICT_ONLY, "verdict only", false},
        {RAVEL_CHECK_VERDICT_ONLY | RAVEL_CHECK_REFERENCE, "reference, verdict only", false},
    };
    char *ref = NULL, *x = NULL;
    int rs = run_path(RAVEL_CHECK_REFERENCE, alloc, orig, &ref);
    if (ref_status) *ref_status = rs;
    bool ok = ref != NULL;
    for (size_t i = 0; ok && i < sizeof paths / sizeof *paths; i++) {
        int st = run_path(paths[i].opts, alloc, orig, paths[i].report ? &x : NULL);
        if (st != rs || (paths[i].report && (!x || strcmp(x, ref) != 0))) {
            snprintf(msg, msglen, "path '%s' differs from the reference (status %d vs %d):\n--- %s\n%s--- reference\n%s", paths[i].name,
                     st, rs, paths[i].name, x ? x : "(no report)\n", ref);
            ok = false;
        }
        rv_free(x);
        x = NULL;
    }
    if (ok && rs == RAVEL_EFAIL) { /* explain dumps: the default pipeline's against the reference's */
        char *a = NULL, *b = NULL;
        run_path(RAVEL_CHECK_EXPLAIN, alloc, orig, &a);
        run_path(RAVEL_CHECK_EXPLAIN | RAVEL_CHECK_REFERENCE, alloc, orig, &b);
        if (!a || !b || strcmp(a, b) != 0) {
            snprintf(msg, msglen, "explain differs from the reference's:\n--- default\n%s--- reference\n%s", a ? a : "", b ? b : "");
            ok = false;
        }
        rv_free(a);
        rv_free(b);
    }
    rv_free(ref);
    return ok;
}
