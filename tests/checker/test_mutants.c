/* test_mutants.c - the checker against the interpreter on mutated real
 * allocations. For generated functions (fuzz/gen.h: loops, calls,
 * safepoints, classes, block arguments ...) allocated by every allocator of
 * the table, each allocation is mutated many times (an operand moved to
 * another location, an edit's source or destination changed, an edit
 * deleted, two edits swapped, a stackmap slot dropped). Whenever the checker
 * accepts a mutant, the interpreter must agree with the original function
 * on every input vector (with a moving collector too when the machine is
 * `gc moving`): the checker
 * never looks away. Prints how many mutants were checked, rejected and
 * accepted. Every check is also done by a reference context (the full
 * validator and the reference fixpoint alone, RAVEL_CHECK_REFERENCE), by
 * one without the value-numbering verdict (CK_OPT_NO_VN) and by a
 * verdict-only one; verdicts and report texts must be identical.
 * Usage: test_mutants [NFUNCS] [MUTANTS_PER_ALLOCATION] [SCALE] (SCALE
 * multiplies the functions' sizes and block counts: deeper loop nests). */
#define _POSIX_C_SOURCE 200809L
#include "allocator/alloc.h" /* rv_rng_next */
#include "checker/ck.h"
#include "tests/checker/report_text.h"
#include "fuzz/gen.h"
#include "ir/ir.h"
#include "tests/support/each.h"

#include <stdlib.h>
#include <string.h>

static uint32_t below(uint64_t *s, uint32_t n) { return n ? rv_rng_below(s, n) : 0; } /* 0 for an empty range */

/* A random location of the function's machine: a register or a used slot. */
static ravel_loc random_loc(const ravel_func *f, uint64_t *s)
{
    uint32_t nslots = f->nslots ? f->nslots : 1;
    if (below(s, 3) == 0) return ravel_slot(below(s, nslots));
    return below(s, f->mach->regs.len);
}

/* Applies one random mutation; returns false if none applied. */
static bool mutate(ravel_func *f, uint64_t *s)
{
    uint32_t ni = f->insts.len;
    for (int tries = 0; tries < 20; tries++) {
        uint32_t ii = below(s, ni);
        rv_inst *in = &f->insts.data[ii];
        switch (below(s, 5)) {
        case 0: /* operand location */
            if (rv_is_edit(in) || !(in->ndefs + in->nuses)) continue;
            f->ops.data[in->first_op + below(s, (uint32_t)in->ndefs + in->nuses)].loc = random_loc(f, s);
            return true;
        case 1: /* edit source or destination */
            if (!rv_is_edit(in)) continue;
            if (below(s, 2)) in->u.edit.src = random_loc(f, s);
            else in->u.edit.dst = random_loc(f, s);
            return true;
        case 2: /* delete an edit */
            if (!rv_is_edit(in)) continue;
            rv_inst_remove(f, ii); /* ir/edit.c */
            return true;
        case 3: /* swap an edit with the next edit */
            if (!rv_is_edit(in) || ii + 1 >= ni || !rv_is_edit(&f->insts.data[ii + 1])) continue;
            rv_inst_swap(f, ii, ii + 1);
            return true;
        case 4: /* drop a stackmap slot */
            if (rv_is_edit(in) || rv_is_term(in) || !(in->flags & RV_IF_STACKMAP) || !in->u.smap.n) continue;
            in->u.smap.n--;
            return true;
        }
    }
    return false;
}

typedef struct stats {
    uint64_t allocs, alloc_rejected, mutants, rejected, accepted, wrong, differ, vn_proven;
    ravel_checker *fw; /* no value numbering (CK_OPT_NO_VN): also compared with the reference */
    ravel_checker *vo; /* RAVEL_CHECK_VERDICT_ONLY, without a report: the same status */
} stats;

/* True if f and orig agree on a few input vectors (both collector models). */
static bool agrees(const ravel_func *orig, const ravel_func *f, char *msg, size_t len)
{
    uint64_t in[16];
    uint32_t n = rv_interp_ninputs(orig);
    if (n > 16) n = 16;
    for (uint64_t k = 0; k < 4; k++) {
        rv_interp_inputs(7, k, in, n);
        /* a moving collector only where the machine says so (gc nonmoving
         * lets rooted references stay in registers) */
        for (int gc = 0; gc < (orig->mach->gc_nonmoving ? 1 : 2); gc++) {
            rv_run_opts o;
            memset(&o, 0, sizeof o);
            o.inputs = in;
            o.ninputs = n;
            o.step_limit = 20000;
            o.moving_gc = gc;
            if (!rv_interp_compare(orig, f, &o, msg, len)) return false;
        }
    }
    return true;
}


/* ravel_check by ck, compared with the reference context ref. */
static int check_both(ravel_checker *ck, ravel_checker *ref, const ravel_func *g, const ravel_func *orig, stats *st)
{
    ravel_report *a = NULL, *b = NULL;
    int rc = ravel_check(ck, g, orig, &a), rr = ravel_check(ref, g, orig, &b);
    st->vn_proven += ck->vn_proven;
    char *ta = report_text(a), *tb = report_text(b);
    ravel_report *c = NULL;
    int rf = ravel_check(st->fw, g, orig, &c);
    char *tc = report_text(c);
    if (rf != rr || !tc || !tb || strcmp(tc, tb) != 0) {
        if (st->differ++ < 3)
            fprintf(stderr, "the check without value numbering and the reference differ (%d vs %d):\n--- no-vn\n%s--- reference\n%s", rf,
                    rr, tc ? tc : "?", tb ? tb : "?");
    }
    free(tc);
    ravel_report_free(c);
    int rv = ravel_check(st->vo, g, orig, NULL);
    if (rv != rr && st->differ++ < 3) fprintf(stderr, "the verdict-only check and the reference differ (%d vs %d)\n", rv, rr);
    if (rc != rr || !ta || !tb || strcmp(ta, tb) != 0) {
        if (st->differ++ < 3) {
            fprintf(stderr, "the default check and the reference differ (%d vs %d):\n--- default\n%s--- reference\n%s", rc, rr, ta ? ta : "?",
                    tb ? tb : "?");
            ravel_print_machine(stderr, g->mach);
            ravel_print_func(stderr, g);
        }
    }
    free(ta);
    free(tb);
    ravel_report_free(a);
    ravel_report_free(b);
    return rc;
}

static void one_allocation(ravel_checker *ck, ravel_checker *ref, const ravel_func *orig, const ravel_func *alloc, uint64_t seed,
                           int nmut, stats *st)
{
    st->allocs++;
    if (check_both(ck, ref, alloc, orig, st) != RAVEL_OK) {
        st->alloc_rejected++; /* an allocator bug (the fuzz campaign's business) */
        return;
    }
    uint64_t s = seed;
    for (int m = 0; m < nmut; m++) {
        ravel_func *g = rv_func_clone(alloc);
        int k = 1 + (int)below(&s, 2);
        for (int i = 0; i < k; i++) mutate(g, &s);
        st->mutants++;
        int rc = check_both(ck, ref, g, orig, st);
        if (rc != RAVEL_OK) {
            st->rejected++;
        } else {
            char msg[256];
            st->accepted++;
            if (!agrees(orig, g, msg, sizeof msg) && st->wrong++ < 3) {
                fprintf(stderr, "the checker accepted a wrong allocation (seed %llu): %s\n", (unsigned long long)seed, msg);
                ravel_print_machine(stderr, g->mach);
                ravel_print_func(stderr, g);
            }
        }
        ravel_func_free(g);
    }
}

int main(int argc, char **argv)
{
    int nfuncs = argc > 1 ? atoi(argv[1]) : 60, nmut = argc > 2 ? atoi(argv[2]) : 40;
    uint32_t scale = argc > 3 ? (uint32_t)atoi(argv[3]) : 1; /* bigger functions, deeper loop nests */
    if (scale < 1) scale = 1;
    ravel_checker *ck = ravel_checker_new(), *ref = ravel_checker_new();
    ravel_checker_set_options(ref, RAVEL_CHECK_FULL_VALIDATE | RAVEL_CHECK_REFERENCE | CK_OPT_NEED_SCAN);
    stats st;
    memset(&st, 0, sizeof st);
    st.fw = ravel_checker_new();
    ravel_checker_set_options(st.fw, CK_OPT_NO_VN);
    st.vo = ravel_checker_new();
    ravel_checker_set_options(st.vo, RAVEL_CHECK_VERDICT_ONLY);
    for (int i = 0; i < nfuncs; i++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = (40 + (uint32_t)(i % 5) * 30) * scale;
        o.max_blocks = (4 + (uint32_t)(i % 7)) * scale;
        o.min_regs = 2;
        o.max_regs = 6;
        if (i % 3 == 2) o.features &= ~(unsigned)RV_GEN_SAFEPOINTS; /* the value-numbering verdict's ground */
        ravel_module *mod = rv_gen_from_seed(1000 + (uint64_t)i, &o);
        const ravel_func *f = ravel_module_func(mod, 0);
        for (ts_allocs a = ts_allocs_of(f, (uint64_t)i); ts_allocs_next(&a);)
            one_allocation(ck, ref, f, a.g, (uint64_t)i * 131 + a.index, nmut, &st);
        ravel_module_free(mod);
    }
    printf("%llu allocations (%llu rejected as they are), %llu mutants: %llu rejected, %llu accepted, %llu accepted but wrong; "
           "%llu differ from the reference; %llu checks proven by the value-numbering verdict\n",
           (unsigned long long)st.allocs, (unsigned long long)st.alloc_rejected, (unsigned long long)st.mutants,
           (unsigned long long)st.rejected, (unsigned long long)st.accepted, (unsigned long long)st.wrong,
           (unsigned long long)st.differ, (unsigned long long)st.vn_proven);
    ravel_checker_free(st.fw);
    ravel_checker_free(st.vo);
    ravel_checker_free(ck);
    ravel_checker_free(ref);
    return st.wrong != 0 || st.rejected == 0 || st.differ != 0 || st.vn_proven == 0;
}
