/* test_vn.c - the value-numbering verdict (checker/ck_vn.c).
 * - Coverage: it proves every correct allocation the three allocators make
 *   of generated functions (loops, calls, block arguments, classes, with
 *   and without safepoints) at the sizes below; a regression that makes it
 *   give up shows here, where the reference would hide it behind a
 *   correct verdict.
 * - Agreement: on those functions and on single-edit corruptions of them,
 *   the checker with it and the reference alone give the same report.
 * - The guard's notes (ck_gn) stand for single_defs' scan: with the scan
 *   (CK_OPT_NEED_SCAN) it proves the same allocations, and on these SSA
 *   functions the notes are in use (no vreg noted twice, vregs noted).
 * - The internal option CK_OPT_NO_VN turns it off. */
#define _POSIX_C_SOURCE 200809L
#include "allocator/alloc.h"
#include "inject/inject.h"
#include "checker/ck.h"
#include "fuzz/gen.h"
#include "tests/checker/report_text.h"
#include "tests/support/each.h"
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>

/* Checks g with ck and with the reference; true if the reports agree. */
static bool agree(ravel_checker *ck, ravel_checker *ref, const ravel_func *g, int *rc)
{
    ravel_report *a = NULL, *b = NULL;
    *rc = ravel_check(ck, g, NULL, &a);
    int rr = ravel_check(ref, g, NULL, &b);
    char *ta = report_text(a), *tb = report_text(b);
    bool same = *rc == rr && ta && tb && strcmp(ta, tb) == 0;
    if (!same) fprintf(stderr, "value numbering and the reference differ (%d vs %d):\n%s---\n%s", *rc, rr, ta ? ta : "?", tb ? tb : "?");
    free(ta);
    free(tb);
    ravel_report_free(a);
    ravel_report_free(b);
    return same;
}

/* Every edit of g in turn gets another source (the next location of its
 * class's registers or slots): most such allocations are wrong. */
static void corrupt_and_compare(ravel_checker *ck, ravel_checker *ref, const ravel_func *g, uint32_t *nbad)
{
    for (uint32_t i = 0, done = 0; i < g->insts.len && done < 6; i++) {
        const rv_inst *in = rv_inst_at(g, i);
        if (!rv_is_edit(in)) continue;
        ravel_func *h = rv_func_clone(g);
        rv_inst *e = rv_inst_at(h, i);
        ravel_loc s = e->u.edit.src;
        e->u.edit.src = (s & RAVEL_SLOT_BIT) ? ravel_slot((s & ~RAVEL_SLOT_BIT) + 1) : (s + 1) % g->mach->regs.len;
        int rc;
        if (!agree(ck, ref, h, &rc)) (*nbad)++;
        ravel_func_free(h);
        done++;
    }
}

static uint32_t run(uint32_t size, uint32_t nfuncs, bool safepoints, bool big)
{
    ravel_checker *ck = ravel_checker_new(), *ref = ravel_checker_new(), *scan = ravel_checker_new();
    ravel_checker_set_options(ref, RAVEL_CHECK_REFERENCE);
    ravel_checker_set_options(scan, CK_OPT_NEED_SCAN);
    uint32_t checked = 0, proven = 0, differ = 0, scan_proven = 0, noted = 0, multi = 0, irr = 0;
    for (uint32_t k = 0; k < 2 * nfuncs; k++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.cfg = k < nfuncs ? RV_GEN_CFG_STRUCTURED : RV_GEN_CFG_ANY; /* any: irreducible cycles too */
        o.max_insts = size;
        if (big) {
            o.min_insts = size - size / 10;
            o.max_blocks = size / 40 > 24 ? size / 40 : 24;
            o.min_regs = o.max_regs = 16;
            o.window = 32;
        }
        if (!safepoints) o.features &= ~(unsigned)RV_GEN_SAFEPOINTS;
        ravel_module *m = rv_gen_from_seed(9100 + k, &o);
        for (ts_allocs a = ts_allocs_of(ravel_module_func(m, 0), k); ts_allocs_next(&a);) {
            ravel_func *g = a.g;
            int rc;
            if (!agree(ck, ref, g, &rc)) differ++;
            CHECK_EQ_INT(rc, RAVEL_OK);
            checked++;
            proven += ck->vn_proven;
            bool retreat = false;
            for (uint32_t b = 0; b < ck->nblocks; b++) retreat |= ck->cfg.retreat.data[b] != 0;
            irr += retreat;
            if (!ck->vn_proven) fprintf(stderr, "not proven: seed %u, allocator %s, irreducible %d\n", 9100 + k, a.name, retreat);
            for (uint32_t v = 0; v < ck->nvregs; v++) noted += ck->facts.gnf_ok && (ck->facts.gn[v].tag >> 3) == ck->facts.gnstamp;
            for (uint32_t v = 0; v < ck->nvregs; v++)
                multi += ck->facts.gn[v].tag == (ck->facts.gnstamp << 3 | GN_DEF | GN_MULTI) ||
                         ck->facts.gn[v].tag == (ck->facts.gnstamp << 3 | GN_DEF | GN_MULTI | GN_CHAIN);
            CHECK_EQ_INT(ravel_check(scan, g, NULL, NULL), RAVEL_OK);
            scan_proven += scan->vn_proven;
            if (k % 4 == 0) corrupt_and_compare(ck, ref, g, &differ);
        }
        ravel_module_free(m);
    }
    printf("size %u%s: %u allocations (%u irreducible), %u proven by value numbering (%u with build_m's scan), %u reports "
           "differ; %u vregs noted, %u of them noted defined twice\n",
           size, safepoints ? " with safepoints" : "", checked, irr, proven, scan_proven, differ, noted, multi);
    CHECK(checked > 0);
    CHECK_EQ_INT(proven, checked);
    CHECK_EQ_INT(scan_proven, checked);
    CHECK_EQ_INT(differ, 0);
    CHECK(noted > 0);
    CHECK_EQ_INT(multi, 0);
    ravel_checker_free(ck);
    ravel_checker_free(ref);
    ravel_checker_free(scan);
    return irr;
}

TEST(proves_generated_allocations)
{
    uint32_t irr = run(60, 40, false, false);
    irr += run(60, 40, true, false);
    irr += run(250, 30, false, false);
    irr += run(250, 30, true, false);
    irr += run(1000, 4, false, true);
    irr += run(1000, 4, true, true);
    CHECK(irr >= 100); /* (irreducible CFGs among them: proven too) */
}

TEST(option_turns_it_off)
{
    rv_gen_opts o;
    rv_gen_opts_default(&o);
    ravel_module *m = rv_gen_from_seed(7, &o);
    ravel_func *g = NULL;
    CHECK_EQ_INT(ravel_allocate("linear", ravel_module_func(m, 0), 1, &g, NULL), RAVEL_OK);
    ravel_checker *ck = ravel_checker_new();
    CHECK_EQ_INT(ravel_check(ck, g, NULL, NULL), RAVEL_OK);
    CHECK(ck->vn_proven);
    ravel_checker_set_options(ck, CK_OPT_NO_VN);
    CHECK_EQ_INT(ravel_check(ck, g, NULL, NULL), RAVEL_OK);
    CHECK(!ck->vn_proven);
    ravel_checker_free(ck);
    ravel_func_free(g);
    ravel_module_free(m);
}

/* --explain replays the reference for the blocks with errors: a function
 * whose only errors are the rules' (here an unallocated one: no locations)
 * gets the same report, dumps included, as from the reference alone. With
 * errors among the rules' the value numbering does not run (a location may
 * not exist): the reference decides. */
TEST(explain_with_rule_errors_only)
{
    rv_gen_opts o;
    rv_gen_opts_default(&o);
    o.features &= ~rv_gen_feature_bit("copy"); /* (a copy without a location: no verdict) */
    for (uint64_t seed = 1; seed <= 6; seed++) {
        ravel_module *m = rv_gen_from_seed(seed, &o);
        const ravel_func *f = ravel_module_func(m, 0);
        for (unsigned ex = 0; ex < 2; ex++) {
            ravel_checker *ck = ravel_checker_new(), *ref = ravel_checker_new();
            ravel_checker_set_options(ck, ex ? RAVEL_CHECK_EXPLAIN : 0);
            ravel_checker_set_options(ref, (ex ? RAVEL_CHECK_EXPLAIN : 0) | RAVEL_CHECK_REFERENCE);
            int rc;
            CHECK(agree(ck, ref, f, &rc));
            CHECK_EQ_INT(rc, RAVEL_EFAIL);
            CHECK(!ck->vn_proven);
            ravel_checker_free(ck);
            ravel_checker_free(ref);
        }
        ravel_module_free(m);
    }
}

/* Lazy M(h) (a loop's own writes, then the misses its latches find, walk
 * after walk; used past M(h)'s budget), forced from the first walk
 * (CK_OPT_VN_LAZY) on generated functions of any CFG and their
 * corruptions: the reference's report every time, and the correct
 * allocations still proven. */
TEST(lazy_m_agrees)
{
    ravel_checker *ck = ravel_checker_new(), *ref = ravel_checker_new();
    ravel_checker_set_options(ck, CK_OPT_VN_LAZY);
    ravel_checker_set_options(ref, RAVEL_CHECK_REFERENCE);
    uint32_t checked = 0, proven = 0, differ = 0, rewalked = 0;
    for (uint32_t k = 0; k < 200; k++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = 300;
        o.min_regs = o.max_regs = 3; /* (high pressure: slots reused across loops) */
        ravel_module *m = rv_gen_from_seed(9900 + k, &o);
        ravel_func *g = NULL;
        if (ravel_allocate(k % 3 ? "random" : "linear", ravel_module_func(m, 0), k, &g, NULL) == RAVEL_OK && g) {
            int rc;
            if (!agree(ck, ref, g, &rc)) differ++;
            checked++;
            proven += ck->vn_proven;
            rewalked += ck->nvisits > ck->cfg.g.nrpo;
            for (int kind = 0; kind < RV_INJ_COUNT_; kind++) { /* every bug of the catalogue */
                ravel_func *h = rv_func_clone(g);
                rv_inject_result res;
                if (rv_inject(h, (rv_inject_kind)kind, k, &res) == RV_INJ_CHANGED && !agree(ck, ref, h, &rc)) differ++;
                ravel_func_free(h);
            }
        }
        ravel_func_free(g);
        ravel_module_free(m);
    }
    printf("lazy M(h): %u allocations, %u proven by value numbering (%u after more than one walk), %u reports differ\n",
           checked, proven, rewalked, differ);
    CHECK(checked >= 100);
    CHECK(proven * 10 >= checked * 9);
    CHECK_EQ_INT(differ, 0);
    ravel_checker_free(ck);
    ravel_checker_free(ref);
}

/* The irreducible latches' premise check is what keeps the proof sound
 * when P(t) misses a var: with P(t) left empty (CK_OPT_VN_NO_P) value
 * numbering must still give the reference's report on every irreducible
 * function and on its corruptions, and prove fewer of them. */
TEST(irreducible_premise_check)
{
    ravel_checker *ck = ravel_checker_new(), *ref = ravel_checker_new();
    ravel_checker_set_options(ck, CK_OPT_VN_NO_P);
    ravel_checker_set_options(ref, RAVEL_CHECK_REFERENCE);
    uint32_t irr = 0, proven = 0, differ = 0;
    for (uint32_t k = 0; k < 160; k++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = 120;
        ravel_module *m = rv_gen_from_seed(9700 + k, &o);
        ravel_func *g = NULL;
        if (ravel_allocate("linear", ravel_module_func(m, 0), k, &g, NULL) == RAVEL_OK && g) {
            int rc;
            if (!agree(ck, ref, g, &rc)) differ++;
            bool retreat = false;
            for (uint32_t b = 0; b < ck->nblocks; b++) retreat |= ck->cfg.retreat.data[b] != 0;
            if (retreat) {
                irr++;
                proven += ck->vn_proven;
                for (uint32_t i = 0; i < g->insts.len; i++) { /* every edit corrupted in turn */
                    if (!rv_is_edit(rv_inst_at(g, i))) continue;
                    ravel_func *h = rv_func_clone(g);
                    rv_inst *e = rv_inst_at(h, i);
                    ravel_loc s = e->u.edit.src;
                    e->u.edit.src = (s & RAVEL_SLOT_BIT) ? ravel_slot((s & ~RAVEL_SLOT_BIT) + 1) : (s + 1) % g->mach->regs.len;
                    if (!agree(ck, ref, h, &rc)) differ++;
                    ravel_func_free(h);
                }
            }
        }
        ravel_func_free(g);
        ravel_module_free(m);
    }
    printf("without P(t): %u irreducible allocations, %u proven by value numbering, %u reports differ\n", irr, proven, differ);
    CHECK(irr >= 20);
    CHECK(proven < irr);
    CHECK_EQ_INT(differ, 0);
    ravel_checker_free(ck);
    ravel_checker_free(ref);
}

int main(void)
{
    RUN(irreducible_premise_check);
    RUN(lazy_m_agrees);
    RUN(proves_generated_allocations);
    RUN(explain_with_rule_errors_only);
    RUN(option_turns_it_off);
    return TEST_SUMMARY();
}
