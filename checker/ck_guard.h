/* ck_guard.h - what the guard's two files share (ck_guard.c: the pass and
 * its fast path; ck_guard_inst.c: the guard's reference); no other file
 * includes it. */
#ifndef RAVEL_CK_GUARD_H
#define RAVEL_CK_GUARD_H

#include "ck.h"

/* One guard call (ck_guard): the function guarded and what it found. */
typedef struct guard {
    ravel_checker *ck;
    const ravel_func *f;
    ravel_report *rep;
    uint32_t maxslot; /* 1 + highest slot number seen */
    uint32_t b;       /* the block being guarded (for gn_def) */
    bool ok;
    bool suspect;     /* ravel_validate may say EINVAL (a superset of its conditions) */
    bool broken;      /* an index out of range, blocks not finished, ...: unsafe for ravel_validate */
    bool part;        /* the blocks' instruction ranges, in layout order, are f's instructions, each once (so far) */
    const rv_inst *last_in; /* the last failure, so that a cause repeated on */
    const char *last_msg;   /* every operand of one instruction is said once */
} guard;

/* ck->guard.gdef, per vreg of the function guarded: its class (GV_BAD: none; the
 * class may be one the machine does not have: only rk says which exist),
 * | GV_DEF once a definition of it has been seen. Rewritten for every
 * function (guard_scratch). */
#define GV_BAD 0xffu
#define GV_DEF 0x100u

/* For the value-numbering verdict (ck_vn.c), the allocated function's guard notes per
 * vreg whether it is defined, defined again (also when guard_plain_any
 * and guard_inst both look at one instruction, which is rare: that only
 * makes one more vreg not single-def; plain_ops giving up tells
 * guard_plain_any which defs it noted, ck->guard.gnfast, and those are noted
 * again with `again`), and whether it is a parameter, a branch argument or
 * a copy source. Every path through the guard notes them, so single_defs
 * needs no pass of its own over the instructions. */
static inline void gn_note_def(ravel_checker *ck, uint32_t v, uint32_t b, bool again) /* grecord */
{
    ck_gn *n = &ck->facts.gn[v];
    uint32_t st = ck->facts.gnstamp << 3, fl = (n->tag & ~7u) == st ? n->tag & 7u : 0;
    if ((fl & GN_DEF) && !again) fl |= GN_MULTI;
    (void)b; /* (the block: the callers name it, no note keeps it) */
    *n = (ck_gn){st | fl | GN_DEF};
}

static inline void gn_def_rec(ravel_checker *ck, uint32_t v, uint32_t b) { gn_note_def(ck, v, b, false); }

static inline void gn_def(ravel_checker *ck, uint32_t v, uint32_t b)
{
    if (ck->guard.grecord) gn_def_rec(ck, v, b);
}

static inline void gn_chain(ravel_checker *ck, uint32_t v)
{
    if (!ck->guard.grecord) return;
    ck_gn *n = &ck->facts.gn[v];
    uint32_t st = ck->facts.gnstamp << 3;
    n->tag = (n->tag & ~7u) == st ? n->tag | GN_CHAIN : st | GN_CHAIN;
}

/* What the fast path of one instruction found: G_SLOW (guard_inst must
 * look), G_ANY (guard_plain_any must look), G_UNCLEAN (the guard's work is
 * done, a rule may fire) or G_CLEAN (done, no rule can fire); with
 * G_SUSPECT set when ravel_validate may reject the function, and above
 * G_SLOTS, 1 + the highest slot number the instruction names (0: none). */
enum { G_SLOW = 0, G_UNCLEAN = 1, G_CLEAN = 2, G_ANY = 3, G_STATUS = 3, G_SUSPECT = 4, G_SLOTS = 3 };

/* rk: per register of the machine its class, | RK_RESERVED if reserved;
 * RK_BAD for a class the machine does not have (past its registers rk is
 * not written: every read is of a register below nregs). */
#define RK_RESERVED 0x100u
#define RK_BAD 0xffffu /* never a class, with or without RK_RESERVED */

/* The fast path's view of one function. */
typedef struct gfast {
    const rv_inst *insts; /* the function's, for instruction indices */
    const rv_operand *ops;
    const rv_vreg *vregs;
    const uint32_t *u32;
    uint16_t *gdef;
    ravel_checker *ck;
    guard *g;
    uint32_t b; /* the block being guarded */
    uint32_t nops, nimms, nvregs, nregs, ncls, nu32;
    bool record; /* the allocated function's guard (ck->guard.grecord): notes for compute_need and the rules */
    bool noloc;  /* the original function's guard: an operand without a location is usual */
    uint16_t rk[RV_MAX_REGS]; /* see RK_*: entries below nregs written */
} gfast;

/* ck_guard_inst.c (the guard's reference; ck_guard.c calls it, never the
 * other way): */
/* The first checks of f and the scratch; false: nothing to guard. */
bool ck_gd_begin(guard *g);
/* Block b's own checks and its parameters: 1 if its instructions are to be
 * guarded, 0 if not, -1 if no later block is to be looked at. */
int ck_gd_block_head(guard *g, uint32_t b, const rv_block *bl);
/* What the fast path leaves to guard_inst (slow) and what the rules must
 * visit; false if the guard failed. */
bool ck_gd_inst_other(guard *g, uint32_t b, const rv_inst *in, bool last, bool slow);
/* After every block: vregs read but defined nowhere; critical edges. */
void ck_gd_finish(guard *g);

#endif
