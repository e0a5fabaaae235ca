/*
 * xp.h - the exporter's per-function context (export.c drives, lower.c
 * writes instructions and terminators, text.c holds the text buffer).
 * Requires what export.h requires. Internal to export/.
 */
#ifndef RAVEL_EXPORT_XP_H
#define RAVEL_EXPORT_XP_H

#include "export/export.h"

#include <setjmp.h>

/* A growing text buffer (rv_x* memory). */
typedef struct xbuf {
    char *s;
    size_t len, cap;
} xbuf;
void xb_printf(xbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void xb_free(xbuf *b);

/* The x86-64 general registers by 64-bit name, and the order the exporter
 * hands out registers to operands that name none. */
enum { XR_N = 14 };
extern const char *const xr_name[XR_N];
int xr_find(const char *name); /* index or -1 */

/* One edge of a terminator: the MIR block it leaves from. */
typedef struct xedge {
    uint32_t from_mbb, to_block, nargs;
    const uint32_t *args;
} xedge;

typedef struct xp {
    const ravel_func *f;
    xbuf body;
    uint32_t next;            /* next MIR vreg number */
    uint32_t *mbb;            /* ravel block -> its first MIR block */
    int8_t *xreg;             /* machine register id -> xr index, -1 if none */
    RV_VEC(xedge) edges;
    RV_VEC(const char *) callees; /* interned in f's symbols or static, unique */
    bool calls;
    int livein[XR_N];         /* MIR vreg of the argument in each register, -1 */
    char extra[XR_N * 32];    /* the current op's clobbers as implicit defs */
    size_t livein_at;         /* where in body the entry's `liveins:` line goes */
    const char *reason;
    char msg[256];
    jmp_buf skip;             /* longjmp here on a skip (nothing to free: all in xp) */
} xp;

/* Skips the function: reason (a string of rvx_reasons) and a message. */
_Noreturn void xp_skip(xp *x, const char *reason, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A fresh MIR vreg number. */
static inline uint32_t xp_new(xp *x) { return x->next++; }
/* The x86 register of a `fixed` operand (skips if it is not one). */
int xp_fixed_reg(xp *x, const rv_operand *o);

/* lower.c: one block's instructions and terminator. */
void xp_lower_block(xp *x, uint32_t b);
/* The edges of block b's terminator (as xp_lower_block will branch). */
void xp_block_edges(xp *x, uint32_t b);
/* How many MIR blocks ravel block b becomes (its compare chain). */
uint32_t xp_block_mbbs(const ravel_func *f, uint32_t b);

#endif
