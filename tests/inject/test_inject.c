/* test_inject.c - bug injection (inject/inject.h) and its use by the
 * checker oracle (fuzz/fuzzlib.c):
 *   - the kinds together violate every rule of section 6 (each error kind
 *     of the checker's catalogue appears in some report);
 *   - every kind applies on some generated function of every shape it
 *     needs, and the checker rejects the result with an error of the kind
 *     the bug should cause (a kind that silently does nothing fails here);
 *   - over NFUNCS generated functions per allocator, every kind on every
 *     accepted allocation: no corrupted allocation that the interpreter
 *     (moving collector included) shows different is accepted (0 missed),
 *     and every rule-only kind is detected whenever it changed something;
 *   - injection is deterministic in its seed and reports "no site" /
 *     "unchanged" truthfully (by comparing the function, not by trust);
 *   - an injector (rv_inject_with: the analyses kept across calls on one
 *     allocation, forgotten when it changes) gives what rv_inject gives,
 *     byte for byte, whatever the order of the kinds; and its analyses'
 *     shortcuts give what their plain forms give (rv_injector_set_plain);
 *   - the oracle counts each draw once, and a corruption that changed
 *     nothing as such, never as accepted.
 * Usage: test_inject [NFUNCS] (default 300; ctest runs 200).
 *        test_inject --injector: the injector's test alone.
 *        test_inject --cases DIR: every DIR/KIND.ra, a correct allocation
 *        on which KIND applies (header `# inject: KIND:SEED`, `# expect:
 *        ERROR-KIND`): the checker accepts it as written; injected, it
 *        changes and the checker reports an ERROR-KIND error. */
#define _POSIX_C_SOURCE 200809L /* opendir */
#include "fuzz/campaign.h"
#include "tests/test.h"
#include "tests/support/expect.h"
#include "tests/support/support.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static uint32_t nfuncs = 300, ext_nfuncs = 100;
/* The generator's switches of the format's section 14, asked for explicitly. */
static const unsigned ext_features = RV_GEN_ALL | RV_GEN_ALIAS | RV_GEN_UNDEF | RV_GEN_REMAT;

static ravel_module *gen(uint64_t seed, unsigned features)
{
    rv_gen_opts o;
    rv_gen_opts_default(&o);
    if (features) o.features = features;
    return rv_gen_from_seed(seed, &o);
}

static ravel_func *alloc_ok(rv_fuzz *z, const ravel_func *f, const rv_allocator *a, uint64_t seed)
{
    rv_alloc_opts ao = {.seed = seed};
    char *err = NULL;
    ravel_func *out = a->run(f, &ao, &err);
    free(err);
    if (out && ravel_check(z->ck, out, f, NULL) != RAVEL_OK) {
        ravel_func_free(out);
        out = NULL;
    }
    return out;
}

/* Every modelled kind: found, changed, rejected with an expected error on
 * some function within the first 80 (every allocator tried). */
TEST(each_kind_applies_and_is_caught)
{
    rv_fuzz *z = rv_fuzz_new();
    bool found[RV_INJ_COUNT_] = {0};
    unsigned nfound = 0, want = 0;
    for (unsigned k = 0; k < RV_INJ_COUNT_; k++) want += !(rv_inject_info_of((rv_inject_kind)k)->flags & RV_INJF_GENERIC);
    for (uint64_t s = 0; s < 80 && nfound < want; s++) {
        ravel_module *m = gen(s, s % 2 ? ext_features : 0); /* (family ext: aliased machines, undef, remat) */
        const ravel_func *f = ravel_module_func(m, 0);
        for (size_t a = 0; rv_allocators[a].name; a++) {
            ravel_func *out = alloc_ok(z, f, &rv_allocators[a], s);
            for (unsigned k = 0; out && k < RV_INJ_COUNT_; k++) {
                if (found[k] || (rv_inject_info_of((rv_inject_kind)k)->flags & RV_INJF_GENERIC)) continue;
                rv_fuzz_mutant mu;
                rv_fuzz_mutant_judge(z, f, out, &rv_allocators[a], (rv_inject_kind)k, s * 31 + k, &mu);
                if (mu.status == RV_INJ_CHANGED && mu.rejected && mu.expected) found[k] = true, nfound++;
            }
            ravel_func_free(out);
        }
        ravel_module_free(m);
    }
    for (unsigned k = 0; k < RV_INJ_COUNT_; k++) {
        if (rv_inject_info_of((rv_inject_kind)k)->flags & RV_INJF_GENERIC) continue;
        if (!found[k]) fprintf(stderr, "kind %s: never applied and caught\n", rv_inject_info_of((rv_inject_kind)k)->name);
        CHECK(found[k]);
    }
    rv_fuzz_free(z);
}

/* The catalogue violates every rule of section 6: over a few generated
 * functions, the checker's reports on the corrupted allocations hold every
 * error kind of the catalogue in docs/checker.md but the API-only
 * unknown-location, bad-edit (no allocator emits an edit of the wrong
 * kind: the output builder picks it) and orig-mismatch. */
TEST(every_rule_violated)
{
    static const char *const rules[] = {
        "use-wrong-vreg", "use-unknown", "use-conflicted", "use-empty", "bad-class", "not-reg", "not-stack",
        "not-fixed", "reuse-mismatch", "early-def-overlap", "late-use-overwritten", "def-overlap",
        "stackmap-not-ref", "stackmap-missing", "missing-location", "slot-to-slot", "reserved-misuse",
    };
    enum { NRULES = sizeof rules / sizeof *rules };
    bool seen[NRULES] = {0};
    rv_fuzz *z = rv_fuzz_new();
    for (uint64_t s = 0; s < 12; s++) {
        ravel_module *m = gen(s, 0);
        const ravel_func *f = ravel_module_func(m, 0);
        for (size_t a = 0; rv_allocators[a].name; a++) {
            ravel_func *out = alloc_ok(z, f, &rv_allocators[a], s);
            for (unsigned k = 0; out && k < RV_INJ_COUNT_; k++) {
                ravel_func *g = rv_func_clone(out);
                rv_inject_result r;
                ravel_report *rep = NULL;
                if (rv_inject(g, (rv_inject_kind)k, s, &r) == RV_INJ_CHANGED && ravel_check(z->ck, g, f, &rep) != RAVEL_OK)
                    for (size_t e = 0; rep && e < ravel_report_count(rep); e++)
                        for (unsigned q = 0; q < NRULES; q++)
                            seen[q] |= strcmp(ravel_report_error(rep, e)->kind, rules[q]) == 0;
                ravel_report_free(rep);
                ravel_func_free(g);
            }
            ravel_func_free(out);
        }
        ravel_module_free(m);
    }
    for (unsigned q = 0; q < NRULES; q++) {
        if (!seen[q]) fprintf(stderr, "rule %s never violated\n", rules[q]);
        CHECK(seen[q]);
    }
    rv_fuzz_free(z);
}

/* 0 missed over nfuncs functions per allocator, every kind on each; the
 * constraint-rule kinds are caught whenever they changed something. */
TEST(no_miss)
{
    rv_fuzz *z = rv_fuzz_new();
    ravel_checker *ck = ravel_checker_new(); /* the verdict only, as the fuzz oracle asks it */
    ravel_checker_set_options(ck, RAVEL_CHECK_ORIG_VALID | RAVEL_CHECK_VERDICT_ONLY);
    uint64_t changed = 0, rejected = 0, missed = 0, rule_changed = 0, rule_missed = 0;
    for (size_t a = 0; rv_allocators[a].name; a++) {
        for (uint64_t s = 0; s < nfuncs; s++) {
            uint64_t seed = rv_campaign_iter_seed(7, s);
            ravel_module *m = gen(seed, 0);
            const ravel_func *f = ravel_module_func(m, 0);
            ravel_func *out = alloc_ok(z, f, &rv_allocators[a], seed);
            for (unsigned k = 0; out && k < RV_INJ_COUNT_; k++) {
                ravel_func *g = rv_func_clone(out);
                rv_inject_result r;
                rv_inject(g, (rv_inject_kind)k, seed + k, &r);
                if (r.status == RV_INJ_CHANGED) {
                    changed++;
                    bool acc = ravel_check(ck, g, f, NULL) == RAVEL_OK;
                    rejected += !acc;
                    bool rule = (rv_inject_info_of((rv_inject_kind)k)->flags & RV_INJF_RULE) != 0;
                    rule_changed += rule;
                    if (acc && rule) {
                        rule_missed++;
                        fprintf(stderr, "%s seed %llu kind %s accepted: %s\n", rv_allocators[a].name,
                                (unsigned long long)seed, rv_inject_info_of((rv_inject_kind)k)->name, r.what);
                    }
                    if (acc) {
                        rv_fuzz_mutant mu;
                        rv_fuzz_mutant_judge(z, f, out, &rv_allocators[a], (rv_inject_kind)k, seed + k, &mu);
                        CHECK(mu.status == RV_INJ_CHANGED && !mu.rejected); /* the same mutant */
                        if (mu.different) {
                            missed++;
                            fprintf(stderr, "MISSED (%s seed %llu):\n%.*s\n", rv_allocators[a].name,
                                    (unsigned long long)seed, (int)z->repro_len, z->repro);
                        }
                    }
                }
                ravel_func_free(g);
            }
            ravel_func_free(out);
            ravel_module_free(m);
        }
    }
    printf("no_miss: %llu corrupted allocations, %llu rejected, %llu missed; constraint-rule kinds %llu, accepted %llu\n",
           (unsigned long long)changed, (unsigned long long)rejected, (unsigned long long)missed,
           (unsigned long long)rule_changed, (unsigned long long)rule_missed);
    CHECK(changed > nfuncs * 10);
    CHECK_EQ_INT(missed, 0);
    CHECK_EQ_INT(rule_missed, 0);
    ravel_checker_free(ck);
    rv_fuzz_free(z);
}

/* The kinds of section 14 (family ext) on generated functions over aliased
 * machines with undef values and remat candidates (the switches asked for
 * explicitly): each applies, every corrupted allocation is rejected with
 * an error of an expected kind or runs the same (never accepted and
 * different: 0 missed), and most are both rejected and different in the
 * interpreter (the sites are really wrong, not only by the contract). */
TEST(ext_kinds)
{
    static const rv_inject_kind kinds[] = {RV_INJ_SUBREG_WRITE, RV_INJ_NARROW_SPILL, RV_INJ_REMAT_WRONG,
                                           RV_INJ_REMAT_ONE_PATH, RV_INJ_UNDEF_JOIN};
    enum { NK = sizeof kinds / sizeof *kinds };
    uint64_t changed[NK] = {0}, caught[NK] = {0}, differ[NK] = {0}, missed = 0, funcs = 0;
    rv_fuzz *z = rv_fuzz_new();
    for (size_t a = 0; rv_allocators[a].name; a++) {
        for (uint64_t s = 0; s < ext_nfuncs; s++) {
            uint64_t seed = rv_campaign_iter_seed(30, s);
            ravel_module *m = gen(seed, ext_features);
            const ravel_func *f = ravel_module_func(m, 0);
            ravel_func *out = alloc_ok(z, f, &rv_allocators[a], seed);
            funcs += out != NULL;
            for (unsigned q = 0; out && q < NK; q++) {
                rv_fuzz_mutant mu;
                rv_fuzz_mutant_judge(z, f, out, &rv_allocators[a], kinds[q], seed + q, &mu);
                if (mu.status != RV_INJ_CHANGED) continue;
                changed[q]++;
                caught[q] += mu.rejected && mu.expected;
                differ[q] += mu.rejected && mu.different;
                if (mu.rejected && !mu.expected)
                    fprintf(stderr, "%s seed %llu %s: unexpected %s (%s)\n", rv_allocators[a].name, (unsigned long long)seed,
                            rv_inject_info_of(kinds[q])->name, mu.first_kind, mu.what);
                if ((!mu.rejected || (kinds[q] == RV_INJ_UNDEF_JOIN && !mu.different)) && getenv("EXT_VERBOSE"))
                    fprintf(stderr, "accepted %s (%s seed %llu): %s\n%.*s\n", rv_inject_info_of(kinds[q])->name,
                            rv_allocators[a].name, (unsigned long long)seed, mu.what, (int)z->repro_len, z->repro);
                if (!mu.rejected && mu.different) {
                    missed++;
                    fprintf(stderr, "MISSED %s (%s seed %llu): %s\n%.*s\n", rv_inject_info_of(kinds[q])->name,
                            rv_allocators[a].name, (unsigned long long)seed, mu.what, (int)z->repro_len, z->repro);
                }
            }
            ravel_func_free(out);
            ravel_module_free(m);
        }
    }
    printf("ext_kinds: %llu allocations, %llu missed\n", (unsigned long long)funcs, (unsigned long long)missed);
    for (unsigned q = 0; q < NK; q++) {
        printf("  %-14s changed %4llu, rejected as expected %4llu, of which different %4llu\n",
               rv_inject_info_of(kinds[q])->name, (unsigned long long)changed[q], (unsigned long long)caught[q],
               (unsigned long long)differ[q]);
        CHECK(changed[q] >= 5);
        CHECK_EQ_INT(caught[q], changed[q]);
        if (kinds[q] != RV_INJ_UNDEF_JOIN) CHECK(differ[q] * 4 > changed[q]); /* (its sites are rare: 0 is possible) */
    }
    CHECK_EQ_INT(missed, 0);
    rv_fuzz_free(z);
}

TEST(deterministic_and_truthful)
{
    rv_fuzz *z = rv_fuzz_new();
    ravel_module *m = gen(3, 0);
    const ravel_func *f = ravel_module_func(m, 0);
    ravel_func *out = alloc_ok(z, f, &rv_allocators[0], 3);
    CHECK(out != NULL);
    unsigned differ = 0;
    for (unsigned k = 0; out && k < RV_INJ_COUNT_; k++) {
        ravel_func *g1 = rv_func_clone(out), *g2 = rv_func_clone(out), *g3 = rv_func_clone(out);
        rv_inject_result r1, r2, r3;
        rv_inject(g1, (rv_inject_kind)k, 11, &r1);
        rv_inject(g2, (rv_inject_kind)k, 11, &r2);
        rv_inject(g3, (rv_inject_kind)k, 12, &r3);
        CHECK_EQ_INT(r1.status, r2.status);
        CHECK(rv_func_equal(g1, g2));
        CHECK_STR(r1.what, r2.what);
        CHECK_EQ_INT(r1.status == RV_INJ_CHANGED, !rv_func_equal(g1, out)); /* the status is the truth */
        differ += r1.status == RV_INJ_CHANGED && r3.status == RV_INJ_CHANGED && !rv_func_equal(g1, g3);
        ravel_func_free(g1);
        ravel_func_free(g2);
        ravel_func_free(g3);
    }
    CHECK(differ > 5); /* the seed picks the site */
    /* no site: a function without safepoints has no stackmap to corrupt */
    ravel_module *m2 = gen(5, RV_GEN_ALL & ~RV_GEN_SAFEPOINTS);
    const ravel_func *f2 = ravel_module_func(m2, 0);
    ravel_func *o2 = alloc_ok(z, f2, &rv_allocators[0], 5);
    CHECK(o2 != NULL);
    for (unsigned k = RV_INJ_SMAP_MISSING; o2 && k <= RV_INJ_REF_IN_REG; k++) {
        rv_inject_result r;
        CHECK_EQ_INT(rv_inject(o2, (rv_inject_kind)k, 1, &r), RV_INJ_NO_SITE);
    }
    CHECK(rv_inject_find("use-reg") == RV_INJ_USE_REG && rv_inject_find("nope") == -1);
    CHECK(rv_inject_expected(RV_INJ_REUSE, "reuse-mismatch") && !rv_inject_expected(RV_INJ_REUSE, "use-unknown"));
    ravel_func_free(o2);
    ravel_module_free(m2);
    ravel_func_free(out);
    ravel_module_free(m);
    rv_fuzz_free(z);
}

/* The sites come from the hold analysis: use-reg prefers a register that
 * holds another known value there, so that its reads are mostly of a
 * wrong vreg (use-wrong-vreg), not of nothing (use-unknown); a kind whose
 * HOLD column is 0 by mistake draws among all registers and fails this. */
/* One injector for a run of draws: every kind, in an order drawn from the
 * seed, on the same allocation (the analyses kept) or on the corrupted
 * one of the draw before (then forgotten), with or without section 14:
 * the same status, description, instruction and function as a fresh
 * rv_inject each time. */
TEST(injector_as_inject)
{
    rv_fuzz *z = rv_fuzz_new();
    rv_injector *ij = rv_injector_new();
    unsigned calls = 0, kept = 0;
    for (uint64_t seed = 1; seed <= 24; seed++) {
        ravel_module *m = gen(seed, seed & 1 ? ext_features : 0);
        const ravel_func *f = ravel_module_func(m, 0);
        const rv_allocator *a = &rv_allocators[seed % 2]; /* (fast, linear: they take aliased machines) */
        ravel_func *out = alloc_ok(z, f, a, seed);
        uint64_t r = seed;
        for (unsigned t = 0; out && t < 2 * RV_INJ_COUNT_; t++) {
            rv_inject_kind k = (rv_inject_kind)rv_rng_below(&r, RV_INJ_COUNT_);
            ravel_func *g = rv_func_clone(out);
            rv_inject_result r1, r2;
            rv_inject(g, k, seed + t, &r1);
            rv_inject_with(ij, out, k, seed + t, &r2); /* (out itself: a change carries on to the next draw) */
            CHECK_EQ_INT(r1.status, r2.status);
            CHECK_EQ_INT(r1.inst, r2.inst);
            CHECK_STR(r1.what, r2.what);
            CHECK(rv_func_equal(g, out));
            kept += r2.status != RV_INJ_CHANGED;
            calls++;
            ravel_func_free(g);
        }
        if (seed % 3 == 0) rv_injector_forget(ij);
        ravel_func_free(out);
        ravel_module_free(m);
    }
    CHECK(calls > 500 && kept > 50); /* (draws on an unchanged function: the kept analyses were read) */
    rv_injector_free(ij);
    rv_fuzz_free(z);
}

/* The injector's shortcuts (rv_injector_set_plain: the hold's cells read
 * from their tokens, the steady rounds that skip unchanged blocks, the
 * ext kinds' walk over the tracked vregs alone) change nothing: on
 * generated functions (the ext switches on every other one) and every
 * allocator, every kind at two seeds gives the same status, site,
 * description and function as the plain analyses; and so does every
 * fifth kind on each corrupted function (a remat of the wrong constant
 * leaves a register holding a constant's token alone, ...). */
TEST(plain_as_fast)
{
    rv_fuzz *z = rv_fuzz_new();
    rv_injector *fast = rv_injector_new(), *plain = rv_injector_new();
    rv_injector_set_plain(plain, true);
    unsigned changed = 0, ext = 0;
    for (uint64_t seed = 1; seed <= 10; seed++) {
        ravel_module *m = gen(rv_campaign_iter_seed(29, seed), seed & 1 ? ext_features : 0);
        const ravel_func *f = ravel_module_func(m, 0);
        for (size_t a = 0; rv_allocators[a].name; a++) {
            ravel_func *out = alloc_ok(z, f, &rv_allocators[a], seed);
            for (unsigned t = 0; out && t < 2 * RV_INJ_COUNT_; t++) {
                rv_inject_kind k = (rv_inject_kind)(t % RV_INJ_COUNT_);
                ravel_func *g1 = rv_func_clone(out), *g2 = rv_func_clone(out);
                rv_inject_result r1, r2;
                rv_inject_with(fast, g1, k, seed * 977 + t, &r1);
                rv_inject_with(plain, g2, k, seed * 977 + t, &r2);
                CHECK_EQ_INT(r1.status, r2.status);
                CHECK_EQ_INT(r1.inst, r2.inst);
                CHECK_STR(r1.what, r2.what);
                CHECK(rv_func_equal(g1, g2));
                changed += r1.status == RV_INJ_CHANGED;
                ext += r1.status == RV_INJ_CHANGED && strcmp(rv_inject_info_of(k)->family, "ext") == 0;
                for (unsigned q = 0; r1.status == RV_INJ_CHANGED && q < RV_INJ_COUNT_; q += 5) { /* (on a wrong allocation too) */
                    ravel_func *h1 = rv_func_clone(g1), *h2 = rv_func_clone(g2);
                    rv_inject_with(fast, h1, (rv_inject_kind)q, seed + t + q, &r1);
                    rv_inject_with(plain, h2, (rv_inject_kind)q, seed + t + q, &r2);
                    CHECK_STR(r1.what, r2.what);
                    CHECK(rv_func_equal(h1, h2));
                    ravel_func_free(h1);
                    ravel_func_free(h2);
                    r1.status = RV_INJ_CHANGED;
                }
                ravel_func_free(g1);
                ravel_func_free(g2);
            }
            ravel_func_free(out);
        }
        ravel_module_free(m);
    }
    printf("plain_as_fast: %u changed (%u of family ext)\n", changed, ext);
    CHECK(changed > 1000 && ext > 50);
    rv_injector_free(fast);
    rv_injector_free(plain);
    rv_fuzz_free(z);
}

TEST(preferred_sites)
{
    rv_fuzz *z = rv_fuzz_new();
    uint64_t changed = 0, wrong = 0;
    for (uint64_t s = 0; s < 30; s++) {
        ravel_module *m = gen(s + 500, 0);
        const ravel_func *f = ravel_module_func(m, 0);
        for (size_t a = 0; rv_allocators[a].name; a++) {
            ravel_func *out = alloc_ok(z, f, &rv_allocators[a], s);
            rv_inject_result r;
            if (out && rv_inject(out, RV_INJ_USE_REG, s, &r) == RV_INJ_CHANGED) {
                ravel_report *rep = NULL;
                changed++;
                if (ravel_check(z->ck, out, f, &rep) != RAVEL_OK && rep)
                    for (size_t e = 0; e < ravel_report_count(rep); e++)
                        if (ravel_report_error(rep, e)->inst == r.inst) {
                            wrong += strcmp(ravel_report_error(rep, e)->kind, "use-wrong-vreg") == 0;
                            break;
                        }
                ravel_report_free(rep);
            }
            ravel_func_free(out);
        }
        ravel_module_free(m);
    }
    printf("preferred_sites: use-reg changed %llu, read a wrong vreg %llu\n", (unsigned long long)changed, (unsigned long long)wrong);
    CHECK(changed > 100);
    CHECK(wrong * 10 > changed * 7);
    rv_fuzz_free(z);
}

/* The oracle's per-kind counters: tried = no_site + unchanged + rejected +
 * accepted for every kind; a kind that finds no site is never "accepted". */
TEST(oracle_counts)
{
    rv_fuzz *z = rv_fuzz_new();
    for (uint64_t s = 0; s < 40; s++) {
        ravel_module *m = gen(s, 0);
        for (size_t a = 0; rv_allocators[a].name; a++)
            CHECK(rv_fuzz_oracle(z, ravel_module_func(m, 0), &rv_allocators[a], s) != RV_FUZZ_BUG);
        ravel_module_free(m);
    }
    uint64_t total = 0;
    for (unsigned k = 0; k < RV_INJ_COUNT_; k++) {
        const uint64_t *n = z->oracle_kinds[k];
        CHECK_EQ_INT(n[RV_ORC_TRIED], n[RV_ORC_NO_SITE] + n[RV_ORC_UNCHANGED] + n[RV_ORC_REJECTED] + n[RV_ORC_ACCEPTED]);
        CHECK_EQ_INT(n[RV_ORC_MISSED], 0);
        total += n[RV_ORC_REJECTED] + n[RV_ORC_ACCEPTED];
    }
    CHECK_EQ_INT(total, z->oracle_rejected + z->oracle_accepted);
    CHECK(z->oracle_rejected > 60);
    rv_fuzz_free(z);
    /* one kind without a site anywhere: all counted as no_site, none accepted */
    z = rv_fuzz_new();
    z->inject_kind = RV_INJ_SMAP_NONREF;
    for (uint64_t s = 0; s < 10; s++) {
        ravel_module *m = gen(s, RV_GEN_ALL & ~RV_GEN_SAFEPOINTS);
        CHECK(rv_fuzz_oracle(z, ravel_module_func(m, 0), &rv_allocators[0], s) != RV_FUZZ_BUG);
        ravel_module_free(m);
    }
    const uint64_t *n = z->oracle_kinds[RV_INJ_SMAP_NONREF];
    CHECK(n[RV_ORC_TRIED] >= 10);
    CHECK_EQ_INT(n[RV_ORC_NO_SITE], n[RV_ORC_TRIED]);
    CHECK_EQ_INT(n[RV_ORC_ACCEPTED] + z->oracle_accepted + z->oracle_rejected, 0);
    /* probability 0: nothing drawn */
    rv_fuzz_free(z);
    z = rv_fuzz_new();
    z->inject_permille = 0;
    ravel_module *m = gen(1, 0);
    rv_fuzz_oracle(z, ravel_module_func(m, 0), &rv_allocators[0], 1);
    uint64_t tried = 0;
    for (unsigned k = 0; k < RV_INJ_COUNT_; k++) tried += z->oracle_kinds[k][RV_ORC_TRIED];
    CHECK_EQ_INT(tried, 0);
    ravel_module_free(m);
    rv_fuzz_free(z);
}

/* One case file; returns the kind it covers, or -1 (after a CHECK). */
static int run_case(ravel_checker *ck, const char *path)
{
    size_t len;
    char *text = ts_read_all(path, &len), spec[96] = "", expect[64] = "";
    CHECK(text != NULL);
    if (!text) return -1;
    const char *p1 = text, *p2 = text;
    ts_expect x;
    CHECK(ts_header_next(&p1, "inject", spec, sizeof spec) && ts_header_next(&p2, "expect", expect, sizeof expect));
    CHECK(ts_expect_parse(expect, &x, 1) == 1 && ts_expect_only(&x, 1, 1u << TS_X_KIND, expect) && !x.line); /* KIND */
    char *colon = strchr(spec, ':');
    uint64_t seed = colon ? strtoull(colon + 1, NULL, 0) : 0;
    if (colon) *colon = 0;
    int kind = rv_inject_find(spec);
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, len, path, d);
    CHECK(m && ravel_diags_count(d) == 0 && kind >= 0);
    int result = -1;
    if (m && kind >= 0) {
        ravel_func *f = ravel_module_func(m, 0);
        CHECK(ravel_check(ck, f, NULL, NULL) == RAVEL_OK); /* correct as written */
        rv_inject_result r;
        CHECK_EQ_INT(rv_inject(f, (rv_inject_kind)kind, seed, &r), RV_INJ_CHANGED);
        ravel_report *rep = NULL;
        CHECK(ravel_check(ck, f, NULL, &rep) == RAVEL_EFAIL);
        bool seen = false;
        for (size_t e = 0; rep && e < ravel_report_count(rep); e++) seen |= strcmp(ravel_report_error(rep, e)->kind, expect) == 0;
        if (!seen) fprintf(stderr, "%s: no %s error after %s\n", path, expect, r.what);
        CHECK(seen);
        CHECK(rv_inject_expected((rv_inject_kind)kind, expect));
        ravel_report_free(rep);
        result = seen ? kind : -1;
    }
    ravel_module_free(m);
    ravel_diags_free(d);
    free(text);
    return result;
}

static const char *cases_dir;

/* Every file of cases_dir passes, and there is one for every modelled kind. */
TEST(cases)
{
    const char *dir = cases_dir;
    ravel_checker *ck = ravel_checker_new();
    bool covered[RV_INJ_COUNT_] = {0};
    DIR *dp = opendir(dir);
    CHECK(dp != NULL);
    for (struct dirent *e; dp && (e = readdir(dp));) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 3, ".ra") != 0) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        int k = run_case(ck, path);
        if (k >= 0) covered[k] = true;
    }
    if (dp) closedir(dp);
    for (unsigned k = 0; k < RV_INJ_COUNT_; k++) {
        if (rv_inject_info_of((rv_inject_kind)k)->flags & RV_INJF_GENERIC) continue;
        if (!covered[k]) fprintf(stderr, "no passing case for %s in %s\n", rv_inject_info_of((rv_inject_kind)k)->name, dir);
        CHECK(covered[k]);
    }
    ravel_checker_free(ck);
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--cases") == 0) {
        cases_dir = argv[2];
        RUN(cases);
        return TEST_SUMMARY();
    }
    if (argc > 1) nfuncs = (uint32_t)strtoul(argv[1], NULL, 0);
    if (argc > 2 && strcmp(argv[1], "--ext") == 0) {
        ext_nfuncs = (uint32_t)strtoul(argv[2], NULL, 0);
        RUN(ext_kinds);
        return TEST_SUMMARY();
    }
    if (argc > 1 && strcmp(argv[1], "--injector") == 0) {
        RUN(injector_as_inject);
        RUN(plain_as_fast);
        return TEST_SUMMARY();
    }
    RUN(deterministic_and_truthful);
    RUN(injector_as_inject);
    RUN(plain_as_fast);
    RUN(oracle_counts);
    RUN(preferred_sites);
    RUN(each_kind_applies_and_is_caught);
    RUN(every_rule_violated);
    RUN(no_miss);
    RUN(ext_kinds);
    return TEST_SUMMARY();
}
