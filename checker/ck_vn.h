/* ck_vn.h - what the value-numbering verdict's files share; no other file
 * includes it. The verdict (ck.h: ck_vn_verdict) is split along the line
 * between what carries the proof and what only decides its precision:
 *   proof      ck_vn.c      the walk and the transfer; single-def vregs,
 *                           c(t)
 *              ck_vn_flow.c what crosses an edge: deltas, joins, latches
 *                           and their premise
 *              ck_vn_rel.c  names and the assumed relation: relate,
 *                           verify, the trials
 *   precision  ck_vn_knobs.c  M(h), P(t), the walk budgets, lazy M(h)'s
 *                           misses
 *              ck_vn_smap.c the stackmap candidate choice
 * A precision knob only chooses what the proof is asked: a write M(h) or
 * P(t) misses fails a latch's premise, a budget passed or a bad stackmap
 * candidate answers "not proven"; none can make the proof accept a wrong
 * allocation. Calls go one way: ck_vn.c calls the others, the precision
 * files call ck_vn_rel.c, and ck_vn_rel.c calls none of them.
 * Each part of the context (struct ck_vn) is owned by one file, which
 * initialises, frees and measures it. */
#ifndef RAVEL_CK_VN_H
#define RAVEL_CK_VN_H

#include "ck.h"

#include <string.h>

#define VN_LEAF 0x80000000u   /* name: a def (leaf number in the low bits), else a phi node */
#define VN_REF 0x40000000u    /* name: of .ref vregs (every name is of .ref vregs only or of others only) */
#define VN_IDX 0x3fffffffu    /* name: the leaf number or the phi node */
#define VN_SKIP 0xffffffffu   /* phi operand: unreachable in-edge */
#define VN_SELF 0xfffffffeu   /* phi operand: the phi itself (a var the loop keeps) */
#define VN_SD_SINGLE 1u       /* sdef: a single-def vreg (ck_vn.c: single_defs) */
#define VN_SD_REF 2u          /* sdef: a .ref vreg */
#define VN_SD_UPOSS 4u        /* sdef: a vreg that may be undefined (ck_vn.c: undef_closure) */

typedef struct vn_ent {
    uint32_t var, name;
} vn_ent;

typedef struct vn_leaf {
    uint32_t blk, wit, last; /* the block of its def, its vreg, the vreg last given it (CK_NIL: none) */
    bool undef;              /* the value of an undef (or of a copy of one): its vregs are in U */
} vn_leaf;

typedef struct vn_frame {
    uint32_t block, next, mark, rlmark;
} vn_frame;

/* The vars (ck_vn.c): a name per var, the undo log, stamp marks; the
 * state's writes below (vwrite, vset) are every file's. */
typedef struct vn_vars {
    uint32_t cap;           /* vars the arrays below have room for */
    uint32_t *cur;          /* name of each var: locations 0..nlocs-1, vreg v at nlocs + v */
    uint32_t *st, *aux;     /* stamp marks and a per-var index */
    uint32_t *st2;
    uint32_t stamp;
    RV_VEC(vn_ent) log;     /* (var, old name) */
    RV_VEC(uint8_t) sdef;   /* per var: VN_SD_* */
} vn_vars;

/* The names (ck_vn_rel.c): leaves and phi nodes, their witnesses. */
typedef struct vn_names {
    RV_VEC(uint32_t) nblk, nops; /* per phi node (index 0 unused): block, first operand in ops */
    RV_VEC(uint32_t) ops;
    RV_VEC(vn_leaf) leaves; /* per leaf */
    uint32_t nleaves;
    RV_VEC(uint32_t) nwit;  /* per phi node: a vreg that had it (CK_NIL: none known) */
    RV_VEC(uint32_t) nnew;  /* per phi node: the vreg last given it (CK_NIL: none) */
    uint32_t *htab, hcap, hsize; /* the current join's phis: node + 1 (hcap used of hsize) */
    bool full; /* more leaves or phis than a name can number: no verdict */
} vn_names;

/* The assumed relation (ck_vn_rel.c). */
typedef struct vn_rel {
    RV_VEC(uint32_t) uf, ufleaf; /* union-find over phi nodes, the root its class's oldest phi; the class's leaf (0: none) */
    RV_VEC(uint32_t) pairs; /* obligations (young, old), flat */
    RV_VEC(vn_ent) snap;    /* a trial's union-find writes (node, old parent), (node, old leaf) */
    bool trial;
} vn_rel;

/* The walk's joins, edges and latches (ck_vn_flow.c). */
typedef struct vn_flow {
    RV_VEC(ck_list) edl;    /* per edge (index into f->succs): its delta in dpool */
    RV_VEC(vn_ent) dpool;
    RV_VEC(uint32_t) mexit; /* per block: log length at its exit */
    RV_VEC(uint32_t) hmark; /* per block: log length after its entry (its names made) */
    RV_VEC(uint32_t) rl;    /* locations given .ref names; those from cur[refvar] on may hold one */
    RV_VEC(uint32_t) roots; /* safepoint scratch: a non-moving collector's roots (ck_vn.c: vsafepoint) */
    RV_VEC(ck_list) qlist;  /* per header or irreducible target: its placeholders in qpool */
    RV_VEC(vn_ent) qpool;   /* (var, placeholder node) */
    RV_VEC(uint32_t) ic;    /* per block: an irreducible target's c (irr_heads), else CK_NIL */
    RV_VEC(uint32_t) icwork; /* per irreducible target: the work of finding c (P(t)'s budget counts it) */
    RV_VEC(ck_list) tlist;  /* per irreducible target: its entry names of the vars changed since c, in tpool */
    RV_VEC(vn_ent) tpool;
    RV_VEC(uint32_t) rows, rowvar, tmpl; /* a join's rows: per var its name on each in-edge */
    RV_VEC(vn_frame) frames;
} vn_flow;

/* The precision knobs (ck_vn_knobs.c): M(h), P(t), the budgets, lazy M(h). */
typedef struct vn_knobs {
    RV_VEC(ck_list) mlist;  /* per header: M(h) in mpool */
    RV_VEC(ck_list) ilist;  /* per irreducible target: P(t) in mpool */
    RV_VEC(uint32_t) mpool;
    RV_VEC(uint8_t) lsp;    /* per header or irreducible target: its loop (region) has a safepoint */
    RV_VEC(uint32_t) own, own_start; /* each header's own blocks (its innermost loop), CSR */
    RV_VEC(uint32_t) cursor; /* scratch: a fill cursor per block */
    RV_VEC(uint32_t) bmark; /* per block: vn_build_irr's region stamp */
    RV_VEC(uint32_t) istack;
    bool lazy;              /* M(h) without its inner loops' (over the budget): latches record misses */
    RV_VEC(vn_ent) miss;    /* this walk's misses: (var, header or irreducible target) */
    RV_VEC(vn_ent) xall;    /* all misses so far, for the next M(h) and P(t) */
    RV_VEC(uint32_t) xstart, xvar; /* xall by block, CSR */
    uint64_t scanned, scan_budget; /* log entries record_delta and record_entry read, and its limit */
} vn_knobs;

/* The stackmap candidates (ck_vn_smap.c). */
#define VN_QSET 128 /* entries of the search queue's set: twice the queue's 64 */
typedef struct vn_smap {
    RV_VEC(uint32_t) soft;  /* stackmap reads to settle: (slot's name, first candidate, count), flat */
    RV_VEC(vn_ent) cand;    /* their candidates: (vreg, the name it had there) */
    RV_VEC(uint32_t) nsoft; /* per phi node: its last soft record + 1 (0: none) */
    RV_VEC(ck_list) jlist;  /* per block: the .ref vregs given a phi of it, in jpool */
    RV_VEC(vn_ent) jpool;   /* (vreg, phi) */
    uint64_t *fset;         /* failed stackmap trials (key + 1; 0: free) */
    uint32_t fcap, fcount;
    uint32_t qkey[VN_QSET], qst[VN_QSET], qstamp; /* vn_stackmap's queue as a set: a name per entry, live if qst == qstamp */
} vn_smap;

/* The value-numbering verdict's context (ck->vn), kept between checks. */
struct ck_vn {
    vn_vars vars;
    vn_names names;
    vn_rel rel;
    vn_flow flow;
    vn_knobs knobs;
    vn_smap smap;
};

/* One walk's view (ck_vn.c: vn_walk). */
typedef struct vn {
    ravel_checker *ck;
    struct ck_vn *V;
    const ravel_func *f;
    const rv_operand *ops; /* f's operands (never NULL: the guard keeps every range within them) */
    uint32_t nlocs;
    uint32_t *cur;
    uint32_t block;  /* the block being run */
    uint32_t refvar; /* pseudo-var: where the live part of V->flow.rl starts (logged like a var) */
    uint32_t nregs;
    bool alias;      /* the machine has alias lines: a write empties the registers overlapping it */
    const rv_reg_alias *al; /* alias: the machine's containment, per register (vover) */
    uint32_t nal;    /* registers in al (0 without alias lines; at most nregs) */
    bool uref;       /* a .ref vreg may be undefined (VN_SD_UPOSS): stackmaps are left to the reference */
} vn;

/* ---- the vars, shared by every file ---- */

static inline uint32_t vn_next_stamp(struct ck_vn *V)
{
    vn_vars *x = &V->vars;
    if (++x->stamp == 0) {
        memset(x->st, 0, (size_t)x->cap * sizeof *x->st);
        memset(x->st2, 0, (size_t)x->cap * sizeof *x->st2);
        x->stamp = 1;
    }
    return x->stamp;
}

/* The var of location l: its location index (ir/ir.h, rv_loc_index), here
 * without the checks: every location the function names exists (the walk
 * runs only when the rules found nothing, ck_vn_verdict), so this is that
 * index computed without a branch (registers and slots come in no
 * predictable order; rv_loc_index's checks cost the walk 3-9%). */
static inline uint32_t vlix(const vn *W, ravel_loc l) { return (l & ~RAVEL_SLOT_BIT) + (W->nregs & (0u - (l >> 31))); }

static inline uint32_t vreg_var(const vn *W, uint32_t v) { return W->nlocs + v; }

/* Var x := name, logged for the rollback. */
static inline void vwrite(vn *W, uint32_t x, uint32_t name)
{
    struct ck_vn *V = W->V;
    if (__builtin_expect(V->vars.log.len == V->vars.log.cap, 0)) rv_vec_reserve(V->vars.log, 1);
    V->vars.log.data[V->vars.log.len++] = (vn_ent){x, W->cur[x]};
    W->cur[x] = name;
}

/* Location li := name (a location given a .ref name joins the list the
 * collector looks at). */
static inline void vset_loc(vn *W, uint32_t li, uint32_t name)
{
    if (W->cur[li] == name) return;
    vwrite(W, li, name);
    if (name & VN_REF) rv_vec_push(W->V->flow.rl, li);
}

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
    if (name & VN_LEAF) V->names.leaves.data[name & VN_IDX].last = x - W->nlocs;
    else V->names.nnew.data[name & VN_IDX] = x - W->nlocs;
}

/* The registers overlapping location li hold nothing (section 14.1: a
 * write to li); nothing for a slot, or without alias lines. */
static inline void vover(vn *W, uint32_t li)
{
    if (li >= W->nal) return;
    const uint32_t *o = W->al[li].over.data;
    for (uint32_t i = 0, n = W->al[li].over.len; i < n; i++) vset(W, o[i], 0);
}

static inline uint32_t npreds(const ravel_checker *ck, uint32_t b) { return ck->cfg.g.pred_start[b + 1] - ck->cfg.g.pred_start[b]; }

static inline bool vdom(const ravel_checker *ck, uint32_t a, uint32_t b)
{
    return ck->cfg.g.dom_pre[a] <= ck->cfg.g.dom_pre[b] && ck->cfg.g.dom_post[b] <= ck->cfg.g.dom_post[a];
}

/* u is an irreducible predecessor of t (reverse post-order index i): u is
 * reachable, t does not come before it and does not dominate it. */
static inline bool vn_irr_pred(const ravel_checker *ck, uint32_t t, uint32_t i, uint32_t u)
{
    return ck_reachable(ck, u) && ck->cfg.g.rpo_index[u] >= i && !vdom(ck, t, u);
}

/* The walk budget (a knob, ck_vn_knobs.c sets it): the log segments that
 * record_delta and record_entry scan stay within it in all (deep nests of
 * joins rescan their arms once per level); false past it. */
static inline bool vn_scan(struct ck_vn *V, uint64_t n)
{
    V->knobs.scanned += n;
    return V->knobs.scanned <= V->knobs.scan_budget;
}

/* ---- ck_vn_flow.c: what crosses an edge (proof) ---- */
void vn_flow_init(vn_flow *x);
void vn_flow_free(vn_flow *x);
size_t vn_flow_memory(const vn_flow *x);
/* A walk's start (V->vars sized): no delta, no .ref holder, no placeholder. */
void vn_flow_reset(vn *W);
/* Block b's entry: from its in-edges (a join or a header), or from its one
 * in-edge (its parameters take the arguments' names). */
void vn_join(vn *W, uint32_t b);
void vn_enter_single(vn *W, uint32_t b);
/* At irreducible target t's entry: the vars changed since c(t), for its latches. */
bool vn_record_entry(vn *W, uint32_t t);
/* Edge e (index eidx) into a join: its delta. Retreating edge e (pred k
 * of its target): the placeholders' operands on it, and the premise. */
bool vn_record_delta(vn *W, uint32_t eidx, const rv_succ *e);
bool vn_latch(vn *W, uint32_t k, const rv_succ *e);

/* ---- ck_vn_rel.c: names and the assumed relation (proof) ---- */
void vn_names_init(vn_names *x);
void vn_names_free(vn_names *x);
size_t vn_names_memory(const vn_names *x);
void vn_rel_init(vn_rel *x);
void vn_rel_free(vn_rel *x);
size_t vn_rel_memory(const vn_rel *x);
/* A walk's start: no leaf, no phi but node 0 (the unknown name), nothing assumed. */
void vn_names_reset(struct ck_vn *V);
/* A new phi node of block b with nops operands (uninitialised). */
uint32_t vn_new_node(struct ck_vn *V, uint32_t b, uint32_t nops);
/* The join's table of phis, for nrows rows; the phi of the block being
 * joined with operands o[0..n) if made (else CK_NIL, *slot its place);
 * the phi made once (ref: its kind). */
void vn_htab_prepare(struct ck_vn *V, uint32_t nrows);
uint32_t vn_htab_find(const struct ck_vn *V, uint32_t b, const uint32_t *o, uint32_t n, uint32_t *slot);
uint32_t vn_phi_of(struct ck_vn *V, uint32_t b, const uint32_t *o, uint32_t n, uint32_t ref);
/* Assumes names a and b, both in use at one point, equal; false if that cannot hold. */
bool vn_relate(const ravel_checker *ck, struct ck_vn *V, uint32_t a, uint32_t b);
/* The obligations recorded from index from on hold (under each other). */
bool vn_verify(const ravel_checker *ck, struct ck_vn *V, uint32_t from);
/* relate(a, b) and all it implies, or nothing (undone) if that fails. */
bool vn_try_relate(const ravel_checker *ck, struct ck_vn *V, uint32_t a, uint32_t b);
/* A name's class so far: its leaf, or its root phi (0, SKIP, SELF: themselves). */
uint32_t vn_canon(struct ck_vn *V, uint32_t x);

/* ---- ck_vn_knobs.c: M(h), P(t), budgets, lazy misses (precision) ---- */
void vn_knobs_init(vn_knobs *x);
void vn_knobs_free(vn_knobs *x);
size_t vn_knobs_memory(const vn_knobs *x);
/* A walk's start: the scan budget for W's function. */
void vn_knobs_reset(vn *W);
/* M(h) for every header (requires the single-def vregs); P(t) for every
 * irreducible target (requires M(h) and c(t)). False past their budgets. */
bool vn_build_m(vn *W);
bool vn_build_irr(vn *W);
/* Lazy M(h): records the vars the latch into t found changed without a
 * placeholder (see latch); false if it has none to show. */
bool vn_record_misses(vn *W, uint32_t t, uint32_t from, bool irr, uint32_t st, uint32_t sq);
/* The misses so far by block, for the next walk's M(h) and P(t). */
void vn_index_misses(vn *W);
#define VN_MAX_WALKS 4 /* lazy M(h): walks before "not proven" */

/* ---- ck_vn_smap.c: the stackmap candidates (precision) ---- */
void vn_smap_init(vn_smap *x);
void vn_smap_free(vn_smap *x);
size_t vn_smap_memory(const vn_smap *x);
/* A walk's start (nblocks blocks). */
void vn_smap_reset(vn_smap *x, uint32_t nblocks);
/* The stackmap of in: every listed slot holds a .ref name some vreg has,
 * or has candidates to settle after the walk; false: not proven. */
bool vn_stackmap(vn *W, const rv_inst *in);
/* The witnesses of the location placeholders join made at block b (from
 * V->flow.qpool[q0] on, np operands each). */
void vn_placeholder_witnesses(vn *W, uint32_t b, uint32_t q0, uint32_t np);
/* After the walk's own assumptions hold: every stackmap read settled. */
bool vn_settle_stackmaps(const ravel_checker *ck, struct ck_vn *V);
/* Forgets the failed trials (the next walk's names are new). */
void vn_smap_forget(vn_smap *x);

#endif
