/* hold.h - injection's hold analysis: which vreg each location holds before
 * every instruction of an allocated function, one vreg per location (the
 * sites of the modelled kinds are found with it).
 *
 * It has no transfer of its own: the states are the checker's reference
 * fixpoint (checker/ck_sem.h: a reference check of the function, read
 * through the cursor, ck_ref_seek/ck_ref_step/ck_ref_edge), so that
 * section 6 (and whatever the format adds to it) is defined in the checker
 * only. A location holding a set of vregs (a copy bound to a block
 * parameter holds both) is shown as its greatest member live before the
 * instruction (a name the code still reads), else its greatest.
 *
 * What the reference does not keep, the copies a redefinition leaves
 * behind ("stale"), is tracked on top of it for the steady states (the
 * second and later iterations of loops: ck_ref_steady): a stale copy is
 * born where a step or an edge of the cursor reports it, moves with an
 * edit that copies it, is dropped at a safepoint by the collector's rule
 * (ck_gc_keeps) and ends where its location is written (its token,
 * ck_ref_loc_token, changes other than by losing vregs); paths meet by
 * agreement. tests/inject/test_hold.c holds both tables to the reference
 * on generated functions.
 *
 * A state is one uint32 per location cell (rv_loc_index):
 *   INJ_H_UNK     nothing known (unknown, conflicted, empty, unreached);
 *   v             the current value of vreg v (v < INJ_H_STALE);
 *   v|INJ_H_STALE (steady states only) a copy of v left behind by a
 *                 redefinition of v, e.g. of the previous loop iteration.
 */
#ifndef RAVEL_INJECT_HOLD_H
#define RAVEL_INJECT_HOLD_H

#include "checker/ck_sem.h"
#include "ir/ir.h"

#define INJ_H_UNK 0xffffffffu
#define INJ_H_TOP 0xfffffffeu /* (the meet's identity, inside hold.c) */
#define INJ_H_STALE 0x80000000u
static inline bool inj_h_valid(uint32_t h) { return h < INJ_H_STALE; }
static inline bool inj_h_stale(uint32_t h) { return h != INJ_H_UNK && h != INJ_H_TOP && (h & INJ_H_STALE); }

/* The function, its CFG (rv_cfg_build) and its location cells (nregs
 * registers, then nslots slots: f's machine's and f->nslots), and the
 * checker whose reference states are read. */
typedef struct inj_hold {
    const ravel_func *f;
    const rv_cfg *cfg;
    uint32_t nregs, nslots;
    ravel_checker *ck;
    bool ck_shared; /* ck is the caller's (set before the run; not freed) */
    bool ran; /* the reference ran on f (inj_hold_init, or the first row asked for) */
    bool ok;  /* the reference's states of f are there */
    /* optional (NULL): the vregs live after each instruction (lw words
     * each); of a set, a cell then shows the greatest member live there */
    const uint64_t *live;
    uint32_t lw;
    /* the table filled row by row on demand (inj_hold_table): a row is
     * taken as the reference's tokens (ck_ref_loc_tokens), and a cell is
     * made from its token when read (inj_hold_cell): a token below the
     * vreg count is its cell already (that vreg alone, or a cell made),
     * INJ_H_UNK too; the others (sets, unknown, constants) are made from
     * the token's members (ck_ref_token_vregs) and written back */
    uint32_t *tab;
    uint8_t *done;    /* per instruction: INJ_ROW_* */
    uint32_t *blk;    /* instruction -> block */
    uint32_t at, atb; /* the cursor is before instruction at of block atb (RAVEL_NONE: nowhere known) */
    bool steady_plain; /* tests: the steady states' rounds run every block, recording (inj_hold_build_steady) */
    bool plain; /* tests: every cell read at the cursor from its members, when its row is taken (no token kept; held_tok) */
} inj_hold;

/* Runs the reference on f (an allocated, valid, finished function); false
 * (h->ok) if it has no states of f: the checker refused f (bad input, a
 * format extension it does not implement yet) or a limit was passed. */
bool inj_hold_init(inj_hold *h, const ravel_func *f, const rv_cfg *cfg, uint32_t nregs, uint32_t nslots);
/* The same, but the reference runs only when a row is first asked for
 * (inj_hold_row): a kind that reads no cell does not pay for it. A
 * checker of the caller's may be set in h->ck (and h->ck_shared) before
 * that: its scratch is reused, its last states replaced. */
void inj_hold_prepare(inj_hold *h, const ravel_func *f, const rv_cfg *cfg, uint32_t nregs, uint32_t nslots);
void inj_hold_free(inj_hold *h);

/* The stackmap of in lists slot number slot (false without a stackmap). */
bool inj_smap_lists(const ravel_func *f, const rv_inst *in, uint32_t slot);

/* The states before every instruction into out (insts.len x nlocs cells,
 * instruction i's at out + i * nlocs): the reference's fixpoint. */
void inj_hold_build(inj_hold *h, uint32_t *out);
/* The same table, filled lazily: out's row i is valid once inj_hold_row
 * (h, i) returned it (each row written whole then, its cells made; the
 * others are left as they were) (each row taken once, from the cursor;
 * the rows of a block asked in order cost one transfer each, as
 * inj_hold_build). */
void inj_hold_table(inj_hold *h, uint32_t *out);
const uint32_t *inj_hold_row(inj_hold *h, uint32_t i);
/* Cell x of the same table (inj_hold_table), made alone: its row taken
 * as tokens if it was not, then that cell made from its token. */
enum { INJ_ROW_NONE, INJ_ROW_TOKENS, INJ_ROW_CELLS }; /* (h->done: not taken, tokens, every cell made) */
void inj_hold_take(inj_hold *h, uint32_t i);
uint32_t inj_hold_cell_of(inj_hold *h, uint32_t i, uint32_t x);
static inline uint32_t inj_hold_cell(inj_hold *h, uint32_t i, uint32_t x)
{
    if (!h->done[i]) inj_hold_take(h, i);
    uint32_t t = h->tab[(size_t)i * (h->nregs + h->nslots) + x];
    if (t < h->f->vregs.len || t == INJ_H_UNK) return t;
    return t >= CK_TOKEN_UNKNOWN ? INJ_H_UNK : inj_hold_cell_of(h, i, x); /* (unknown, empty, conflicted: no vreg) */
}
/* The same for the second and later iterations of every loop
 * (ck_ref_steady), stale copies included, in the blocks of loops (reached,
 * loop_depth > 0; the other blocks' cells are INJ_H_UNK). Its rounds (until no edge
 * changes) run only the blocks whose entry may have changed: an in-edge
 * carried something new since the block last ran (a block run again from
 * the same entry gives the same cells and edges), and record no cells:
 * once they converged, one more run of every block of a loop records them (from
 * the entry its last run had); h->steady_plain runs every block every
 * round, recording as it goes, as the plain iteration (tests compare the
 * two). Afterwards the reference's
 * fixpoint states are gone (inj_hold_build, or inj_hold_table, must come
 * first: the rows not yet asked for are taken before, as tokens, whose
 * cells can still be made: ck_ref_token_vregs). False if the
 * steady states could not be made (out: all INJ_H_UNK). */
bool inj_hold_build_steady(inj_hold *h, uint32_t *out);

#endif
