/* test_ref_holders.c - the reference keeps the holder lists its visits ask
 * for only (ck_ref_xfer.c: query_of; ck_ref_plain turns that off, and the edge memo):
 * with every list kept, and with only those, each check must run alike -
 * the same status and report, the same fixpoint states entry by entry
 * and the same interned sets (ids included, so sets are made in one
 * order), the same steady states, and through ck_sem.h's cursor the same
 * tokens at every instruction and the same stale copies, in one order, at
 * every step and edge. On:
 *   - arbitrary CFGs (fuzz/anycfg.h) and their mutants (a def renamed to
 *     another vreg: no longer SSA, so a def removes an older copy; a
 *     location or an edit changed);
 *   - generated functions allocated by every allocator, with the switches
 *     of section 14 (aliases, undef, remat) on half of them, and each
 *     kind of the injection catalogue injected into each allocation.
 * Usage: test_ref_holders [N_ANYCFG] [N_GEN]. */
#define _POSIX_C_SOURCE 200809L
#include "allocator/alloc.h" /* rv_rng_below */
#include "checker/ck_ref.h"
#include "checker/ck_sem.h"
#include "fuzz/anycfg.h"
#include "fuzz/gen.h"
#include "inject/inject.h"
#include "ir/ir.h"
#include "tests/support/each.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ST = 64 };

/* A trace: what a check shows, as words. */
typedef struct trace {
    uint32_t *w;
    size_t n, cap;
} trace;

static void put(trace *t, uint32_t x)
{
    if (t->n == t->cap) t->w = realloc(t->w, (t->cap = 2 * t->cap + 256) * sizeof *t->w);
    t->w[t->n++] = x;
}

typedef struct stats {
    uint64_t funcs, failed, stale, steady, differ;
} stats;

/* The fixpoint's states (entry and exit of each block) and its sets. */
static void put_states(trace *t, const ck_ref *r)
{
    for (uint32_t b = 0; b < r->fix.reached.len; b++) {
        put(t, r->fix.reached.data[b] | (uint32_t)r->fix.xdone.data[b] << 1);
        const ck_span *sp[2] = {&r->fix.ent.data[b], &r->fix.xit.data[b]};
        const ck_entvec *pool[2] = {&r->fix.pool, &r->fix.xpool};
        for (int k = 0; k < 2; k++) {
            bool has = k ? r->fix.xdone.data[b] : r->fix.reached.data[b];
            put(t, has ? sp[k]->len : 0);
            for (uint32_t i = 0; has && i < sp[k]->len; i++) {
                put(t, pool[k]->data[sp[k]->start + i].li);
                put(t, pool[k]->data[sp[k]->start + i].val);
            }
        }
    }
    put(t, r->sets.recs.len);
    for (uint32_t i = 0; i < r->sets.recs.len; i++) put(t, r->sets.recs.data[i].start), put(t, r->sets.recs.data[i].len);
    for (uint32_t i = 0; i < r->sets.pool.len; i++) put(t, r->sets.pool.data[i]);
}

static void put_stale(trace *t, const ck_stale *st, uint32_t n, stats *s)
{
    put(t, n);
    s->stale += n;
    for (uint32_t i = 0; i < n && i < MAX_ST; i++) put(t, st[i].loc), put(t, st[i].vreg);
}

/* The cursor through every reached block: the tokens before each
 * instruction, the stale copies of each step, then of each out-edge. */
static void put_walk(trace *t, ravel_checker *ck, const ravel_func *f, stats *s)
{
    ck_stale st[MAX_ST];
    uint32_t nl = ck->nlocs, *tok = malloc((nl + 1) * sizeof *tok);
    for (uint32_t b = 0; b < f->blocks.len; b++) {
        const rv_block *bl = &f->blocks.data[b];
        if (!bl->ninsts || !ck_ref_seek(ck, f, bl->first_inst)) continue;
        put(t, b);
        for (uint32_t i = 0; i < bl->ninsts; i++) {
            ck_ref_loc_tokens(ck, tok, nl);
            for (uint32_t x = 0; x < nl; x++) put(t, tok[x]);
            put_stale(t, st, ck_ref_step(ck, st, MAX_ST), s);
        }
        const rv_inst *term = rv_block_term(f, bl);
        for (uint32_t k = 0; term && k < rv_inst_nsuccs(term); k++) {
            uint32_t n = 0;
            if (k && ck_ref_seek(ck, f, bl->first_inst + bl->ninsts - 1)) ck_ref_step(ck, NULL, 0);
            put(t, ck_ref_edge(ck, k, st, MAX_ST, &n));
            put_stale(t, st, n, s);
        }
    }
    free(tok);
}

/* Everything a check of f shows, every list kept or not (all). */
static void take(ravel_checker *ck, const ravel_func *f, bool all, trace *t, stats *s)
{
    ck_ref_plain(ck, all);
    t->n = 0;
    ravel_checker_set_options(ck, RAVEL_CHECK_REFERENCE);
    ravel_checker_set_max_errors(ck, 0);
    ravel_report *rep = NULL;
    int rc = ravel_check(ck, f, NULL, &rep);
    put(t, (uint32_t)rc);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (rep) ravel_report_print(m, rep);
    fclose(m);
    for (size_t i = 0; i < len; i++) put(t, (unsigned char)text[i]);
    free(text);
    ravel_report_free(rep);
    if (rc == RAVEL_EINVAL) return;
    s->failed += !all && rc == RAVEL_EFAIL;
    /* the hold's way: the states alone, then the cursor, the steady states */
    ravel_checker_set_options(ck, RAVEL_CHECK_REFERENCE | CK_SEM_STATES_ONLY);
    put(t, (uint32_t)ravel_check(ck, f, NULL, NULL));
    put_states(t, ck->ref);
    put_walk(t, ck, f, s);
    put(t, ck_ref_steady(ck, f));
    s->steady += !all;
    put_states(t, ck->ref);
    put_walk(t, ck, f, s);
}

/* One function, both ways; a difference is reported with what. */
static void both(ravel_checker *ca, ravel_checker *cb, const ravel_func *f, stats *s, const char *what)
{
    static trace ta, tb;
    take(ca, f, true, &ta, s);
    take(cb, f, false, &tb, s);
    s->funcs++;
    if (ta.n == tb.n && !memcmp(ta.w, tb.w, ta.n * sizeof *ta.w)) return;
    size_t i = 0;
    while (i < ta.n && i < tb.n && ta.w[i] == tb.w[i]) i++;
    fprintf(stderr, "%s: every list kept and only those asked for differ at word %zu of %zu/%zu\n", what, i, ta.n, tb.n);
    s->differ++;
}

static uint32_t below(uint64_t *s, uint32_t n) { return n ? rv_rng_below(s, n) : 0; }

/* A corruption: a def renamed to another vreg of its class (no longer
 * SSA), an operand's location changed, or an edit's. */
static void mutate(ravel_func *f, uint64_t *s)
{
    for (int tries = 0; tries < 20; tries++) {
        rv_inst *in = &f->insts.data[below(s, f->insts.len)];
        uint32_t nops = in->ndefs + in->nuses;
        if (rv_is_edit(in)) {
            in->u.edit.src = below(s, 3) ? below(s, f->mach->regs.len) : ravel_slot(below(s, f->nslots + 1));
            return;
        }
        if (!nops || in->op == RAVEL_OP_ARGS) continue;
        rv_operand *o = &f->ops.data[in->first_op + below(s, nops)];
        if (below(s, 2)) {
            o->loc = below(s, 3) ? below(s, f->mach->regs.len) : ravel_slot(below(s, f->nslots + 1));
            return;
        }
        const rv_inst *other = &f->insts.data[below(s, f->insts.len)];
        if (!in->ndefs || rv_is_edit(other) || !other->ndefs) continue;
        rv_operand *d = &f->ops.data[in->first_op + below(s, in->ndefs)];
        uint32_t v = f->ops.data[other->first_op].vreg;
        if (f->vregs.data[v].cls != f->vregs.data[d->vreg].cls || f->vregs.data[v].ref != f->vregs.data[d->vreg].ref) continue;
        d->vreg = v;
        return;
    }
}

static void with_mutants(ravel_checker *ca, ravel_checker *cb, const ravel_func *f, uint64_t seed, stats *s, const char *what)
{
    both(ca, cb, f, s, what);
    uint64_t r = seed;
    for (int m = 0; m < 3; m++) {
        ravel_func *g = rv_func_clone(f);
        mutate(g, &r);
        both(ca, cb, g, s, what);
        ravel_func_free(g);
    }
}

static const rv_inject_kind kinds[] = {RV_INJ_DROP_SPILL,   RV_INJ_DROP_RELOAD,  RV_INJ_EDGE_MOVE,     RV_INJ_STALE_LOOP,
                                       RV_INJ_USE_REG,      RV_INJ_CALL_CLOBBER, RV_INJ_RAND_REDIRECT, RV_INJ_SUBREG_WRITE,
                                       RV_INJ_NARROW_SPILL, RV_INJ_REMAT_WRONG,  RV_INJ_REMAT_ONE_PATH, RV_INJ_UNDEF_JOIN};

int main(int argc, char **argv)
{
    int nany = argc > 1 ? atoi(argv[1]) : 200, ngen = argc > 2 ? atoi(argv[2]) : 14;
    ravel_checker *ca = ravel_checker_new(), *cb = ravel_checker_new();
    stats s;
    memset(&s, 0, sizeof s);
    char what[128];
    for (int i = 0; i < nany; i++) {
        rv_anycfg_opts o;
        rv_anycfg_opts_default(&o);
        o.irreducible = i % 3 - 1;
        o.repairs = (uint32_t)(i % 4);
        o.max_blocks = 3 + (uint32_t)(i % 9);
        o.max_insts = 2 + (uint32_t)(i % 7);
        rv_anycfg a;
        snprintf(what, sizeof what, "anycfg seed %d", i);
        if (rv_anycfg_build(NULL, 0, (uint64_t)i * 7919 + 5, &o, &a) == 0)
            with_mutants(ca, cb, ravel_module_func(a.alloc, 0), (uint64_t)i, &s, what);
        rv_anycfg_free(&a);
    }
    for (int i = 0; i < ngen; i++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        if (i % 2) o.features |= RV_GEN_ALIAS | RV_GEN_UNDEF | RV_GEN_REMAT;
        o.max_insts = 40 + (uint32_t)(i % 4) * 30;
        o.max_blocks = 3 + (uint32_t)(i % 6);
        ravel_module *m = rv_gen_from_seed(7300 + (uint64_t)i, &o);
        for (ts_allocs a = ts_allocs_of(ravel_module_func(m, 0), (uint64_t)i); ts_allocs_next(&a);) {
            snprintf(what, sizeof what, "generated seed %d, allocator %s", 7300 + i, a.name);
            with_mutants(ca, cb, a.g, (uint64_t)i * 31 + a.index, &s, what);
            for (ts_injs j = ts_injs_of(a.g, kinds, sizeof kinds / sizeof *kinds, (uint64_t)i, false); ts_injs_next(&j);) {
                snprintf(what, sizeof what, "generated seed %d, allocator %s, %s", 7300 + i, a.name, rv_inject_info_of(j.kind)->name);
                both(ca, cb, j.h, &s, what);
            }
        }
        ravel_module_free(m);
    }
    printf("%llu functions (%llu rejected), %llu stale copies, %llu steady runs; %llu differ\n", (unsigned long long)s.funcs,
           (unsigned long long)s.failed, (unsigned long long)s.stale, (unsigned long long)s.steady, (unsigned long long)s.differ);
    ravel_checker_free(ca);
    ravel_checker_free(cb);
    bool ok = s.differ == 0 && s.funcs >= 500 && s.failed >= 100 && s.stale >= 200 && s.steady >= 400;
    return ok ? 0 : 1;
}
