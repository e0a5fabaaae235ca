/* test_paths.c - one reference that every path of the checker answers to.
 *
 * On many functions of every CFG shape, correct and corrupted allocations,
 * every path (the default pipeline with value numbering, without it, value
 * numbering by its own scan, verdict only, explain) must give the status and the normalized report of the
 * reference fixpoint (RAVEL_CHECK_REFERENCE; rv_anycfg_paths_agree). And
 * the reference never looks away: whatever it accepts runs as its original
 * does in the interpreter (moving collector too where the machine says so).
 *
 *   1. arbitrary CFGs (fuzz/anycfg.h): irreducible, reducible, any, and
 *      one natural loop (repaired to nearly correct); each
 *      after 0..3 rounds of repair (from wild to nearly correct); and
 *      mutants of them (an operand's or an edit's location changed, an
 *      edit deleted or inserted, a stackmap slot dropped, a def renamed
 *      to another vreg: no longer SSA, stale copies must die);
 *   2. generated structured functions (fuzz/gen.h) allocated by every
 *      allocator of the table, and mutants of those;
 *   3. the same with the switches of the format's section 14 asked for
 *      explicitly (aliased machines, undef values, remat candidates): their
 *      mutants, and every kind of the injection catalogue (inject/kinds.def,
 *      the section 14 ones included) on each allocation.
 * Fails on any difference, if an accepted allocation runs differently, or
 * if a group has no accepted or no rejected function (the test would then
 * prove nothing). Usage: test_paths [N_ANYCFG] [N_GEN] [N_EXT]. */
#define _POSIX_C_SOURCE 200809L
#include "allocator/alloc.h" /* rv_rng_below */
#include "fuzz/anycfg.h"
#include "fuzz/gen.h"
#include "inject/inject.h"
#include "ir/ir.h"
#include "tests/support/each.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct stats {
    uint64_t funcs, ok, fail, differ, wrong, irreducible;
} stats;

static char msg[1 << 16];

static bool runs_alike(const ravel_func *orig, const ravel_func *f)
{
    uint64_t in[8];
    uint32_t n = rv_interp_ninputs(orig);
    if (n > 8) n = 8;
    for (uint64_t k = 0; k < 4; k++) {
        rv_interp_inputs(3, k, in, n);
        for (int gc = 0; gc < (orig->mach->gc_nonmoving ? 1 : 2); gc++) {
            rv_run_opts o;
            memset(&o, 0, sizeof o);
            o.inputs = in;
            o.ninputs = n;
            o.step_limit = 4000;
            o.moving_gc = gc;
            if (!rv_interp_compare(orig, f, &o, msg, sizeof msg)) return false;
        }
    }
    return true;
}

static void one(const ravel_func *f, const ravel_func *orig, bool use_orig, bool same_program, stats *st, const char *what)
{
    int rs = 0;
    st->funcs++;
    if (!rv_anycfg_paths_agree(f, use_orig ? orig : NULL, &rs, msg, sizeof msg)) {
        if (st->differ++ < 3) {
            fprintf(stderr, "%s: %s\n", what, msg);
            ravel_print_machine(stderr, f->mach);
            ravel_print_func(stderr, f);
        }
        return;
    }
    if (rs == RAVEL_OK) {
        st->ok++;
        if (same_program && !runs_alike(orig, f) && st->wrong++ < 3) {
            fprintf(stderr, "%s: the reference accepted an allocation that runs differently: %s\n", what, msg);
            ravel_print_machine(stderr, f->mach);
            ravel_print_func(stderr, f);
        }
    } else if (rs == RAVEL_EFAIL) {
        st->fail++;
    }
}

/* ---- corruptions (as tests/checker/test_mutants.c's) ---- */

static uint32_t below(uint64_t *s, uint32_t n) { return n ? rv_rng_below(s, n) : 0; }

static ravel_loc random_loc(const ravel_func *f, uint64_t *s)
{
    uint32_t nslots = f->nslots ? f->nslots : 1;
    if (below(s, 3) == 0) return ravel_slot(below(s, nslots));
    return below(s, f->mach->regs.len);
}

/* A new edit before instruction ii (not before a block's first place when
 * that is an `args`): a move between registers, a spill or a reload. */
static void insert_edit(ravel_func *f, uint32_t ii, uint64_t *s)
{
    if (f->insts.data[ii].op == RAVEL_OP_ARGS) return;
    uint32_t nregs = f->mach->regs.len, nslots = f->nslots ? f->nslots : 1;
    ravel_opcode op;
    ravel_loc dst, src;
    switch (below(s, 3)) {
    case 0: op = RAVEL_OP_MOVE, dst = below(s, nregs), src = below(s, nregs); break;
    case 1: op = RAVEL_OP_SPILL, dst = ravel_slot(below(s, nslots)), src = below(s, nregs); break;
    default: op = RAVEL_OP_RELOAD, dst = below(s, nregs), src = ravel_slot(below(s, nslots)); break;
    }
    if (dst == src) return;
    uint32_t line = f->insts.data[ii].line;
    rv_edit_insert(f, rv_block_of_inst(f, ii), ii, op, dst, src); /* ir/edit.c */
    f->insts.data[ii].line = line;
}

/* A def renamed to another vreg of the same kind that some other
 * instruction defines: the function is no longer SSA (the checker accepts
 * that: stale copies of the vreg must die at its second def). The program
 * changes, so the interpreter has nothing to compare. */
static bool redefine(ravel_func *f, uint32_t ii, uint64_t *s)
{
    rv_inst *in = &f->insts.data[ii];
    if (rv_is_edit(in) || in->op == RAVEL_OP_ARGS || !in->ndefs) return false;
    rv_operand *d = &f->ops.data[in->first_op + below(s, in->ndefs)];
    for (int t = 0; t < 20; t++) {
        const rv_inst *o = &f->insts.data[below(s, f->insts.len)];
        if (o == in || rv_is_edit(o) || !o->ndefs) continue;
        uint32_t v = f->ops.data[o->first_op].vreg;
        if (v == d->vreg || f->vregs.data[v].cls != f->vregs.data[d->vreg].cls || f->vregs.data[v].ref != f->vregs.data[d->vreg].ref)
            continue;
        d->vreg = v;
        return true;
    }
    return false;
}

/* Applies one corruption; false if it changed the program itself (not
 * only the allocation). */
static bool mutate(ravel_func *f, uint64_t *s)
{
    for (int tries = 0; tries < 20; tries++) {
        uint32_t ii = below(s, f->insts.len);
        rv_inst *in = &f->insts.data[ii];
        switch (below(s, 6)) {
        case 5: /* a second def of a vreg */
            if (redefine(f, ii, s)) return false;
            continue;
        case 4: /* a new edit (e.g. a move at a latch that a later read after the loop depends on) */
            insert_edit(f, ii, s);
            return true;
        case 0:
            if (rv_is_edit(in) || !(in->ndefs + in->nuses)) continue;
            f->ops.data[in->first_op + below(s, (uint32_t)in->ndefs + in->nuses)].loc = random_loc(f, s);
            return true;
        case 1:
            if (!rv_is_edit(in)) continue;
            if (below(s, 2)) in->u.edit.src = random_loc(f, s);
            else in->u.edit.dst = random_loc(f, s);
            return true;
        case 2:
            if (!rv_is_edit(in)) continue;
            rv_inst_remove(f, ii); /* ir/edit.c */
            return true;
        case 3:
            if (rv_is_edit(in) || rv_is_term(in) || !(in->flags & RV_IF_STACKMAP) || !in->u.smap.n) continue;
            in->u.smap.n--;
            return true;
        }
    }
    return true;
}

static void with_mutants(const ravel_func *f, const ravel_func *orig, uint64_t seed, int n, stats *st, const char *what)
{
    one(f, orig, seed & 1, true, st, what);
    uint64_t s = seed;
    for (int m = 0; m < n; m++) {
        ravel_func *g = rv_func_clone(f);
        bool same = mutate(g, &s);
        one(g, orig, (seed + (uint64_t)m) & 1, same, st, what);
        ravel_func_free(g);
    }
}

static bool report(const char *group, const stats *st)
{
    printf("%s: %llu functions (%llu irreducible): %llu accepted, %llu rejected; %llu differ from the reference, %llu accepted but run "
           "differently\n",
           group, (unsigned long long)st->funcs, (unsigned long long)st->irreducible, (unsigned long long)st->ok,
           (unsigned long long)st->fail, (unsigned long long)st->differ, (unsigned long long)st->wrong);
    return st->differ == 0 && st->wrong == 0 && st->ok > 0 && st->fail > 0;
}

/* Group 3: generated functions with aliases, undef and remat. */
static bool ext_group(int ngen)
{
    stats st;
    memset(&st, 0, sizeof st);
    uint64_t aliased = 0;
    for (int i = 0; i < ngen; i++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.features |= RV_GEN_ALIAS | RV_GEN_UNDEF | RV_GEN_REMAT;
        o.max_insts = 30 + (uint32_t)(i % 4) * 30;
        o.max_blocks = 3 + (uint32_t)(i % 6);
        o.min_regs = 2;
        o.max_regs = 6;
        ravel_module *mod = rv_gen_from_seed(900 + (uint64_t)i, &o);
        const ravel_func *f = ravel_module_func(mod, 0);
        aliased += rv_mach_has_alias(f->mach);
        for (ts_allocs a = ts_allocs_of(f, (uint64_t)i); ts_allocs_next(&a);) {
            char what[128];
            snprintf(what, sizeof what, "generated seed %d (alias, undef, remat), allocator %s", 900 + i, a.name);
            with_mutants(a.g, f, (uint64_t)i * 31 + a.index, 3, &st, what);
            for (unsigned q = 0; q < RV_INJ_COUNT_; q++) {
                ravel_func *h = rv_func_clone(a.g);
                rv_inject_result r;
                if (rv_inject(h, (rv_inject_kind)q, (uint64_t)i + q, &r) == RV_INJ_CHANGED) one(h, f, q & 1, true, &st, what);
                ravel_func_free(h);
            }
        }
        ravel_module_free(mod);
    }
    printf("(%llu of %d machines aliased)\n", (unsigned long long)aliased, ngen);
    return report("generated functions with alias, undef, remat", &st) && aliased * 3 > (uint64_t)ngen;
}

int main(int argc, char **argv)
{
    int nany = argc > 1 ? atoi(argv[1]) : 300, ngen = argc > 2 ? atoi(argv[2]) : 12, next = argc > 3 ? atoi(argv[3]) : 12;
    bool ok = true;
    /* 1. arbitrary CFGs, each shape, each repair depth */
    static const int shapes[] = {1, -1, 0, 2};
    static const char *const shape_name[] = {"irreducible CFGs", "reducible CFGs", "any CFG", "one loop"};
    for (int sh = 0; sh < 4; sh++) {
        stats st;
        memset(&st, 0, sizeof st);
        for (int i = 0; i < nany; i++) {
            rv_anycfg_opts o;
            rv_anycfg_opts_default(&o);
            o.irreducible = shapes[sh] == 2 ? 0 : shapes[sh];
            o.one_loop = shapes[sh] == 2;
            o.repairs = shapes[sh] == 2 ? 4 : (uint32_t)(i % 4); /* (a clean loop takes the shortcut) */
            if (shapes[sh] == 2) o.repair_pct = 100;
            o.clean = i % 4 == 3; /* mostly correct: the interpreter's ground */
            o.max_blocks = 3 + (uint32_t)(i % 9);
            o.max_insts = 2 + (uint32_t)(i % 7);
            o.nregs = 3 + (uint32_t)(i % 3);
            rv_anycfg a;
            char what[96];
            snprintf(what, sizeof what, "%s, seed %d", shape_name[sh], i);
            if (rv_anycfg_build(NULL, 0, (uint64_t)i * 7919 + (uint64_t)sh, &o, &a) != 0) {
                fprintf(stderr, "%s: the builder's text does not parse:\n%s\n", what, a.alloc_text ? a.alloc_text : "");
                st.differ++;
                rv_anycfg_free(&a);
                continue;
            }
            st.irreducible += a.irreducible;
            with_mutants(ravel_module_func(a.alloc, 0), ravel_module_func(a.orig, 0), (uint64_t)i, shapes[sh] == 2 ? 6 : 2, &st, what);
            rv_anycfg_free(&a);
        }
        ok &= report(shape_name[sh], &st);
        if (sh == 0 && st.irreducible * 4 < st.funcs) { /* (three mutants per function) */
            fprintf(stderr, "too few irreducible functions\n");
            ok = false;
        }
    }
    /* 2. structured generated functions, every allocator, corrupted too */
    stats st;
    memset(&st, 0, sizeof st);
    for (int i = 0; i < ngen; i++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = 40 + (uint32_t)(i % 4) * 40;
        o.max_blocks = 4 + (uint32_t)(i % 6);
        o.min_regs = 2;
        o.max_regs = 6;
        ravel_module *mod = rv_gen_from_seed(500 + (uint64_t)i, &o);
        const ravel_func *f = ravel_module_func(mod, 0);
        for (size_t k = 0; ravel_allocator_name(k); k++) {
            ravel_func *g = NULL;
            char what[96];
            snprintf(what, sizeof what, "generated seed %d, allocator %s", 500 + i, ravel_allocator_name(k));
            if (ravel_allocate(ravel_allocator_name(k), f, (uint64_t)i, &g, NULL) == RAVEL_OK && g)
                with_mutants(g, f, (uint64_t)i * 31 + k, 6, &st, what);
            ravel_func_free(g);
        }
        ravel_module_free(mod);
    }
    ok &= report("generated functions", &st);
    ok &= ext_group(next);
    return ok ? 0 : 1;
}
