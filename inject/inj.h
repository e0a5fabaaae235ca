/* inj.h - the injection component's internal interface: the context of one
 * rv_inject call, the sites, the helpers the kinds share, and every kind's
 * functions (declared from kinds.def).
 *
 * One call (inject.c): the analyses, for the kinds whose HOLD column
 * says so (live: which vregs are live after every instruction; hold.h:
 * which vreg each location holds before it), then the kind's three
 * steps, the same for every kind:
 *   SITES  adds every site of the function (inj_add_site); the preferred
 *          ones (where the bug is most likely to matter: the value
 *          overwritten is live, the register picked holds another value,
 *          ...) are drawn first, the others only when there is none; a
 *          generic kind's DRAW draws its one site at random instead;
 *   SAY    describes the drawn site (after its place, for modelled kinds);
 *   EDIT   edits the function there (ir/edit.c for instructions).
 * SAY runs before EDIT and neither draws from the RNG: what a seed picks
 * is decided by the sites alone.
 *
 * A site is four numbers: the instruction i (of the function as it was,
 * before the edit) and three the kind defines (an operand index among the
 * instruction's operands, a location, another instruction, ...).
 */
#ifndef RAVEL_INJ_H
#define RAVEL_INJ_H

#include "inject/hold.h"
#include "inject/inject.h"
#include "ir/analysis.h"
#include "ir/rng.h"

#include <stdio.h>

typedef struct inj_site {
    uint32_t i, a, b, c; /* instruction and kind-specific values */
} inj_site;
typedef RV_VEC(inj_site) inj_sites;

/* The analyses of one function (inject.c), built as the kinds ask for
 * them and kept by an rv_injector while the function is unchanged: they
 * are of its copy `of`, so they outlive the caller's function. */
typedef struct inj_an {
    ravel_func *of;       /* the function analysed (a copy); NULL: none */
    ravel_checker *ck;    /* the reference's checker, reused (the injector's) */
    bool base;            /* cfg and blk built */
    bool tried, ok;       /* the analyses were tried; they were built (within MAX_CELLS) */
    bool steady_tried, steady_ok;
    bool plain;           /* tests: the plain forms of the analyses (rv_injector_set_plain) */
    rv_cfg cfg;
    uint32_t *blk;        /* instruction -> block */
    uint32_t lw;          /* words of a vreg bitset */
    uint64_t *live;       /* after each instruction: lw words (built with the hold analysis) */
    uint32_t *hold;       /* before each instruction: nlocs cells, rows filled on demand (hh) */
    inj_hold *hh;         /* the hold analysis (the reference's states) */
    uint32_t *steady;     /* the same in the second and later iterations of loops */
    inj_sites pref, other; /* the calls' site lists, kept for their room (inj.pref, inj.other) */
} inj_an;

typedef struct inj {
    ravel_func *f;
    const ravel_machine *m;
    uint64_t rng;
    uint32_t nregs, nslots, nlocs, ninsts, nblocks;
    inj_an *an;       /* the analyses (shared by the calls of an injector) */
    uint32_t *blk;    /* instruction -> block (an's) */
    uint32_t *hold;   /* an's hold table; NULL for a kind without HOLD */
    uint32_t *steady; /* an's steady table, once inj_steady made it (stale-loop only) */
    uint32_t lw;      /* words of a vreg bitset */
    uint64_t *live;   /* after each instruction: lw words (an's; NULL for a kind without HOLD) */
    rv_cfg cfg;       /* of the allocated function (an's, a shallow copy) */
    bool ok;          /* the analyses the kind reads were built */
    inj_sites pref, other; /* the sites found, preferred first (an's room, lent for the call) */
} inj;

/* ---- the kinds' functions (kinds.def) ---- */
#define RV_INJ_KIND(ID, NAME, FAMILY, HOLD, FLAGS, EXPECT, SUMMARY, SITES, SAY, EDIT) \
    void SITES(inj *c);                                                        \
    void SAY(const inj *c, const inj_site *s, char *buf, size_t n);            \
    void EDIT(inj *c, const inj_site *s);
#define RV_INJ_RAND(ID, NAME, FLAGS, SUMMARY, DRAW, SAY, EDIT)      \
    bool DRAW(inj *c, inj_site *s);                                 \
    void SAY(const inj *c, const inj_site *s, char *buf, size_t n); \
    void EDIT(inj *c, const inj_site *s);
#include "inject/kinds.def"

/* ---- the function and its analyses ---- */
static inline rv_inst *IN(const inj *c, uint32_t i) { return &c->f->insts.data[i]; }
static inline rv_operand *OPS(const inj *c, uint32_t i) { return &c->f->ops.data[IN(c, i)->first_op]; }
static inline uint32_t vcls(const inj *c, uint32_t v) { return c->f->vregs.data[v].cls; }
static inline uint32_t vnum(const inj *c, uint32_t v) { return c->f->vregs.data[v].num; }
static inline bool is_ref(const inj *c, uint32_t v) { return v < c->f->vregs.len && c->f->vregs.data[v].ref; }
static inline const rv_class *cls_of(const inj *c, uint32_t cls) { return &c->m->classes.data[cls]; }
static inline const rv_reg *reg_of(const inj *c, ravel_loc r) { return &c->m->regs.data[r]; }
/* What location l holds before instruction i (hold.h; INJ_H_UNK for a
 * location out of range, and for a kind whose HOLD column is 0). The
 * reference runs at the first cell asked for, each row is taken when
 * first asked for and each cell made when read (inj_hold_cell): a kind
 * pays for what it reads. */
static inline uint32_t H(const inj *c, uint32_t i, ravel_loc l)
{
    uint32_t x = rv_loc_index(c->nregs, c->nslots, l);
    if (x == RAVEL_NONE || !c->hold) return INJ_H_UNK;
    return inj_hold_cell(c->an->hh, i, x);
}
static inline bool live_after(const inj *c, uint32_t i, uint32_t v)
{
    return v < c->f->vregs.len && rv_bs_test(c->live + (size_t)i * c->lw, v);
}
static inline bool is_block_last(const inj *c, uint32_t i)
{
    const rv_block *b = &c->f->blocks.data[c->blk[i]];
    return i + 1 == b->first_inst + b->ninsts;
}
static inline bool defines_loc(const inj *c, uint32_t i, ravel_loc l) { return rv_inst_defines_loc(c->f, IN(c, i), l); }
/* A safepoint that may carry a stackmap (not a terminator, not an edit). */
static inline bool is_sp(const rv_inst *in) { return (in->flags & RV_IF_SAFEPOINT) && !rv_is_term(in) && !rv_is_edit(in); }
bool inj_clobbers(const inj *c, uint32_t i, ravel_loc r);    /* instruction i clobbers register r */
/* Use k of instruction i is the operand a reuse def takes its register from. */
bool inj_is_reuse_target(const inj *c, uint32_t i, uint32_t k);
/* Use k of i may be placed anywhere of its kind (not fixed, not tied to a reuse def). */
bool inj_free_use(const inj *c, uint32_t i, uint32_t k);

/* ---- sites ---- */
static inline uint32_t below(inj *c, uint32_t n) { return n ? rv_rng_below(&c->rng, n) : 0; }
static inline void inj_add_site(inj *c, bool pref, uint32_t i, uint32_t a, uint32_t b, uint32_t d)
{
    inj_site s = {i, a, b, d};
    if (pref) rv_vec_push(c->pref, s);
    else rv_vec_push(c->other, s);
}
static inline size_t inj_nsites(const inj *c) { return (size_t)c->pref.len + c->other.len; }

/* ---- descriptions ---- */
/* The text of location l (buf: >= 32 bytes). */
static inline const char *loc_s(const inj *c, ravel_loc l, char *buf) { return rv_loc_str(c->m, l, buf); }
/* "block NAME inst K (MNEMONIC)": where instruction i is. */
void inj_where(const inj *c, uint32_t i, char *buf, size_t n);

/* ---- edits shared by several kinds ---- */
/* Def k of i goes to R, and an edit after i puts the value back where the
 * def was: only the constraint is broken. */
void inj_move_def(inj *c, uint32_t i, uint32_t k, ravel_loc R);
/* Replaces the stackmap of instruction i by its slots without the one at
 * index drop, or, with drop == RAVEL_NONE, with slot add appended. */
void inj_rewrite_smap(inj *c, uint32_t i, uint32_t drop, uint32_t add);
/* The steady table (hold.h: inj_hold_build_steady) into c->steady, made
 * once per function; false if it could not be made. */
bool inj_steady(inj *c);
/* The vregs live after each instruction of f (an allocated function; cfg
 * its CFG) into out (insts.len rows of lw words, zeroed): block liveness
 * (live.c skips edits, so the allocated function gives that of its
 * unallocated form), then each block bottom up by the one per-instruction
 * step of analysis.h (rv_live_step_back; edits stepped over), the set
 * before each step recorded: a block's last row from the set, each row
 * above it a copy of the row below with the bits that step may have
 * changed (its operands' and jump arguments' vregs); plain: every row
 * from the set, the live-out set read vreg by vreg (tests compare). */
void inj_live_build(const ravel_func *f, const rv_cfg *cfg, bool plain, uint64_t *out, uint32_t lw);
/* The sites of call-clobber (refs false) and ref-in-reg (values.c). */
void inj_keep_across_sites(inj *c, bool refs);

#endif
