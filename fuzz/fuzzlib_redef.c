/* fuzzlib_redef.c - non-SSA redefinitions for the oracles: a correct
 * allocation of a generated (SSA) function turned into one where a vreg is
 * defined twice, so that the checker's rule "a def of v removes v from
 * every location: older copies are stale" (docs/format.md section 6) is
 * exercised by generated tests, not only by hand-written cases.
 *
 * Requires: f unallocated and valid SSA; out an allocation of f (the same
 * vreg ids on the same original instructions).
 * Guarantees: when it returns true, *f2 and *out2 are copies of f and out
 * in which every mention of one vreg w (defs, uses, jump arguments) names
 * another vreg v instead: v and w have the same class and ref-ness, both
 * are defined by instructions of one block B, every use of v is in B
 * before w's def, and w is no block parameter. Then v is dead where w
 * lives (v is not live out of B, w not live into it), so both forms
 * compute what they computed before, and out2 is as correct an allocation
 * of f2 as out was of f; f2 is valid but not SSA (v has two defs, and a
 * copy of the first value of v may still sit in a location the second def
 * does not write). Draws from seed only; false (nothing made) when f has
 * no such pair. */
#define _GNU_SOURCE
#include "fuzz/fuzzlib.h"

#include <string.h>

/* Per vreg: where it is defined and where it is last used. */
typedef struct redef_span {
    uint32_t block, def, last; /* def/last: instruction index (RAVEL_NONE: none) */
    bool outside;              /* used in another block than its def's, or a param */
} redef_span;

static void note_use(redef_span *s, uint32_t b, uint32_t i)
{
    if (s->def == RAVEL_NONE || s->block != b) s->outside = true;
    s->last = i;
}

/* The spans of f's vregs (an SSA function: a use follows its def in its
 * block, or is in another block). */
static void spans(const ravel_func *f, redef_span *sp)
{
    for (uint32_t v = 0; v < f->vregs.len; v++) sp[v] = (redef_span){RAVEL_NONE, RAVEL_NONE, RAVEL_NONE, false};
    for (uint32_t b = 0; b < f->blocks.len; b++) {
        const rv_block *bl = &f->blocks.data[b];
        const uint32_t *par = rv_params_of(f, bl);
        for (uint32_t k = 0; k < bl->nparams; k++) sp[par[k]].outside = true;
        for (uint32_t i = bl->first_inst; i < bl->first_inst + bl->ninsts; i++) {
            const rv_inst *in = rv_inst_at(f, i);
            const rv_operand *u = rv_uses_of(f, in), *d = rv_defs_of(f, in);
            for (uint32_t k = 0; k < in->nuses; k++) note_use(&sp[u[k].vreg], b, i);
            for (uint32_t k = 0; k < in->ndefs; k++) sp[d[k].vreg].block = b, sp[d[k].vreg].def = i;
            if (!rv_is_term(in)) continue;
            for (uint32_t s = 0; s < in->u.succ.n; s++) {
                const rv_succ *sc = &rv_inst_succs(f, in)[s];
                const uint32_t *a = rv_args_of(f, sc);
                for (uint32_t k = 0; k < sc->nargs; k++) note_use(&sp[a[k]], b, i);
            }
        }
    }
}

static bool same_type(const ravel_func *f, uint32_t v, uint32_t w)
{
    return f->vregs.data[v].cls == f->vregs.data[w].cls && f->vregs.data[v].ref == f->vregs.data[w].ref;
}

/* Can w be renamed to v (see the top)? */
static bool mergeable(const ravel_func *f, const redef_span *sp, uint32_t v, uint32_t w)
{
    const redef_span *a = &sp[v], *b = &sp[w];
    if (v == w || a->def == RAVEL_NONE || b->def == RAVEL_NONE || b->last == RAVEL_NONE || a->outside ||
        a->block != b->block)
        return false; /* (w read somewhere: a second def nothing reads tests little) */
    uint32_t end = a->last == RAVEL_NONE ? a->def : a->last;
    return b->def > end && same_type(f, v, w);
}

/* Every mention of vreg w in g becomes v. */
static void rename_vreg(ravel_func *g, uint32_t w, uint32_t v)
{
    for (uint32_t k = 0; k < g->ops.len; k++)
        if (g->ops.data[k].vreg == w) g->ops.data[k].vreg = v;
    for (uint32_t s = 0; s < g->succs.len; s++) {
        const rv_succ *sc = &g->succs.data[s];
        for (uint32_t k = 0; k < sc->nargs; k++)
            if (g->u32.data[sc->first_arg + k] == w) g->u32.data[sc->first_arg + k] = v;
    }
}

/* The pair: w the first vreg that has a partner, in a scan of up to 64
 * vregs from a drawn one; v its partner defined last (the likeliest to
 * have a copy still in place). */
static bool pick_pair(const ravel_func *f, const redef_span *sp, uint64_t seed, uint32_t *pv, uint32_t *pw)
{
    uint32_t n = f->vregs.len;
    rng r = {seed};
    uint32_t w0 = rng_below(&r, n);
    for (uint32_t j = 0; j < n && j < 64; j++) { /* 64 tries: linear time in f */
        uint32_t w = (w0 + j) % n, best = RAVEL_NONE;
        for (uint32_t v = 0; v < n; v++)
            if (mergeable(f, sp, v, w) && (best == RAVEL_NONE || sp[v].def > sp[best].def)) best = v;
        if (best != RAVEL_NONE) {
            *pv = best;
            *pw = w;
            return true;
        }
    }
    return false;
}

bool rv_fuzz_redefine(const ravel_func *f, const ravel_func *out, uint64_t seed, ravel_func **f2, ravel_func **out2)
{
    *f2 = *out2 = NULL;
    if (f->vregs.len < 2) return false;
    redef_span *sp = rv_xmalloc(sizeof *sp * f->vregs.len);
    spans(f, sp);
    uint32_t v = 0, w = 0;
    bool found = pick_pair(f, sp, seed, &v, &w);
    rv_free(sp);
    if (!found) return false;
    *f2 = rv_func_clone(f);
    *out2 = rv_func_clone(out);
    rename_vreg(*f2, w, v);
    rename_vreg(*out2, w, v);
    return true;
}
