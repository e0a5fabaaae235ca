/* undef.c - the vregs undefined on every path (docs/format.md section 14.2):
 * the set U of the checker's state, as a standalone forward must-analysis.
 *
 * Requires: a finished function (allocated or not: edits define no vreg)
 * and its CFG. Guarantees: u->in[b] is U at the entry of every reachable
 * block b (the greatest fixpoint of the rules below, over the reachable
 * edges only; unreachable blocks keep the full set), computed in passes in
 * RPO until nothing changes (the sets only shrink).
 *
 * Rules: an `undef` def enters U; a `copy` whose use is in U puts its def
 * in U; any other def leaves U; on an edge, the target's parameters are in
 * U exactly when their arguments are (all bound at once); at a join, U is
 * the intersection of the incoming edges' sets. The analysis is linear in
 * the function per pass; memory nblocks x nvregs bits (refused past
 * RV_UNDEF_MAX_BYTES: then nothing is computed). */
#include "ir/analysis.h"

#include <string.h>

void rv_undef_step(const ravel_func *f, const rv_inst *in, uint64_t *s)
{
    if (rv_is_edit(in) || !in->ndefs) return;
    const rv_operand *o = rv_ops_of(f, in);
    bool undef_copy = in->op == RAVEL_OP_COPY && in->nuses == 1 && o[in->ndefs].vreg < f->vregs.len &&
                      rv_bs_test(s, o[in->ndefs].vreg);
    for (uint32_t k = 0; k < in->ndefs; k++) {
        if (o[k].vreg >= f->vregs.len) continue;
        if (in->op == RAVEL_OP_UNDEF || (undef_copy && k == 0)) rv_bs_set(s, o[k].vreg);
        else rv_bs_clear(s, o[k].vreg);
    }
}

/* The edge sc applied to s: the target's parameters are in U exactly when
 * their arguments are; the arguments' flags are all read (into argbits,
 * one bit per argument) before any parameter is written. */
static void undef_edge(const ravel_func *f, const rv_succ *sc, uint64_t *s, uint64_t *argbits)
{
    const rv_block *t = &f->blocks.data[sc->block];
    const uint32_t *args = rv_args_of(f, sc), *params = rv_params_of(f, t);
    uint32_t n = sc->nargs < t->nparams ? sc->nargs : t->nparams;
    memset(argbits, 0, rv_bs_words(n) * sizeof *argbits);
    for (uint32_t k = 0; k < n; k++)
        if (args[k] < f->vregs.len && rv_bs_test(s, args[k])) rv_bs_set(argbits, k);
    for (uint32_t k = 0; k < n; k++) {
        if (params[k] >= f->vregs.len) continue;
        if (rv_bs_test(argbits, k)) rv_bs_set(s, params[k]);
        else rv_bs_clear(s, params[k]);
    }
}

/* One pass over the reachable blocks in RPO; true if some in[] changed. */
static bool undef_pass(rv_undef *u, const ravel_func *f, const rv_cfg *cfg, uint64_t *s, uint8_t *reached,
                       uint64_t *argbits)
{
    bool changed = false;
    uint32_t nw = u->nwords;
    for (uint32_t r = 0; r < cfg->nrpo; r++) {
        uint32_t b = cfg->rpo[r];
        if (!reached[b]) continue;
        const rv_block *bl = &f->blocks.data[b];
        uint64_t *e = s + nw;
        memcpy(s, u->in + (size_t)b * nw, nw * sizeof *s);
        for (uint32_t i = bl->first_inst; i < bl->first_inst + bl->ninsts; i++) rv_undef_step(f, rv_inst_at(f, i), s);
        const rv_inst *t = rv_block_term(f, bl);
        for (uint32_t k = 0; t && k < rv_inst_nsuccs(t); k++) {
            const rv_succ *sc = &rv_inst_succs(f, t)[k];
            if (sc->block >= cfg->nblocks) continue;
            memcpy(e, s, nw * sizeof *e);
            undef_edge(f, sc, e, argbits);
            uint64_t *in = u->in + (size_t)sc->block * nw;
            for (uint32_t w = 0; w < nw; w++) {
                uint64_t x = reached[sc->block] ? in[w] & e[w] : e[w];
                changed |= x != in[w];
                in[w] = x;
            }
            reached[sc->block] = 1;
        }
    }
    return changed;
}

bool rv_undef_build(rv_undef *u, const ravel_func *f, const rv_cfg *cfg)
{
    memset(u, 0, sizeof *u);
    u->nblocks = cfg->nblocks;
    u->nwords = rv_bs_words(f->vregs.len);
    if ((size_t)u->nblocks * u->nwords * sizeof(uint64_t) > RV_UNDEF_MAX_BYTES) return false;
    u->in = rv_xmalloc(((size_t)u->nblocks * u->nwords + 1) * sizeof *u->in);
    memset(u->in, 0xff, ((size_t)u->nblocks * u->nwords + 1) * sizeof *u->in);
    uint8_t *reached = rv_xcalloc(u->nblocks + 1, 1);
    uint64_t *s = rv_xcalloc(2 * (size_t)u->nwords + 1, sizeof *s);
    uint32_t maxargs = 0;
    for (uint32_t i = 0; i < f->succs.len; i++)
        if (f->succs.data[i].nargs > maxargs) maxargs = f->succs.data[i].nargs;
    uint64_t *argbits = rv_xcalloc(rv_bs_words(maxargs) + 1, sizeof *argbits);
    if (u->nblocks) {
        memset(u->in, 0, u->nwords * sizeof *u->in); /* the entry: nothing is undefined */
        reached[0] = 1;
    }
    while (u->nblocks && undef_pass(u, f, cfg, s, reached, argbits)) {}
    rv_free(argbits);
    rv_free(s);
    rv_free(reached);
    return true;
}

void rv_undef_free(rv_undef *u)
{
    rv_free(u->in);
    u->in = NULL;
}

bool rv_func_has_undef(const ravel_func *f)
{
    for (uint32_t i = 0; i < f->insts.len; i++)
        if (f->insts.data[i].op == RAVEL_OP_UNDEF) return true;
    return false;
}
