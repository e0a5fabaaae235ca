/* test_reduce.c - the reducer on seeded large failing cases (>= 500
 * instructions): each must shrink to <= 5% of its instructions or <= 15,
 * keeping its property, and the output must show that property again.
 *   (a) wrong allocations: a correct `linear` allocation corrupted here (a
 *       use's location changed; a reload from the wrong slot), CHECK mode;
 *   (b) a planted allocator that crashes (abort) or fails on a pattern;
 *   (c) a planted allocator whose output differs under run --compare;
 * plus the machine reduced with the function, determinism, the time budget
 * and `--keep first-line`. Prints one
 * line of figures per case (ratio, time) for the closing notes. */
#define _DEFAULT_SOURCE
#include "reduce/reduce.h"
#include "tests/test.h"

#include "bench/bench_util.h"
#include <stdlib.h>
#include <unistd.h>

enum { MIN_INSTS = 500 };

static ravel_module *big(uint64_t seed)
{
    rv_gen_opts o;
    rv_gen_opts_default(&o);
    o.max_insts = 700;
    o.min_insts = 550;
    o.window = 32;
    o.features = RV_GEN_ALL; /* (the functions these cases were written on; section 14's reductions: test_passes.c section14) */
    return rv_gen_from_seed(seed, &o);
}

static bool small_enough(const rv_reduce_stats *st)
{
    return st->insts_after <= 15 || st->insts_after * 20 <= st->insts_before;
}

static void report(const char *what, uint64_t seed, const rv_reduce_stats *st)
{
    printf("%-28s seed %-3llu %4u -> %3u instructions (%5.2f%%) %4u -> %3u lines, %5llu tests, %5llu cache hits, %6.2f s\n",
           what, (unsigned long long)seed, st->insts_before, st->insts_after,
           100.0 * st->insts_after / st->insts_before, st->lines_before, st->lines_after,
           (unsigned long long)st->tests, (unsigned long long)st->cache_hits, st->seconds);
}

/* Parses a reduced reproducer and returns its function (module in *m). */
static const ravel_func *reparse(const char *text, ravel_module **m)
{
    ravel_diags *d = ravel_diags_new();
    *m = ravel_module_parse(text, strlen(text), "<reduced>", d);
    CHECK(*m && ravel_diags_count(d) == 0);
    ravel_diags_free(d);
    return *m && ravel_module_nfuncs(*m) == 1 ? ravel_module_func(*m, 0) : NULL;
}

/* The kinds the checker reports on f (against its stripped form), or NULL
 * if it accepts. */
static char *kinds(const ravel_func *f)
{
    ravel_checker *ck = ravel_checker_new();
    ravel_func *o = rv_func_strip(f);
    ravel_report *rep = NULL;
    char *s = NULL;
    if (ravel_check(ck, f, o, &rep) == RAVEL_EFAIL) {
        s = calloc(1, 4096);
        for (size_t i = 0; i < ravel_report_count(rep) && strlen(s) < 4000; i++) {
            strncat(s, ravel_report_error(rep, i)->kind, 48);
            strcat(s, " ");
        }
    }
    ravel_report_free(rep);
    ravel_func_free(o);
    ravel_checker_free(ck);
    return s;
}

/* ---- (a) wrong allocations ---------------------------------------------------------- */

/* A use whose location can be moved to another register of its class, such
 * that the checker rejects the result: the k-th candidate that does. */
static bool corrupt_use(ravel_func *a)
{
    for (uint32_t i = a->insts.len / 2; i < a->insts.len; i++) {
        rv_inst *in = rv_inst_at(a, i);
        if (rv_is_edit(in) || rv_is_term(in)) continue;
        for (uint32_t k = 0; k < in->nuses; k++) {
            rv_operand *u = &rv_inst_uses(a, in)[k];
            if (u->loc == RAVEL_LOC_NONE || !ravel_loc_is_reg(u->loc) || u->kind == RAVEL_C_FIXED) continue;
            const rv_class *c = &a->mach->classes.data[a->mach->regs.data[u->loc].cls];
            for (uint32_t r = 0; r < c->alloc.len; r++) {
                if (c->alloc.data[r] == u->loc) continue;
                ravel_loc old = u->loc;
                u->loc = c->alloc.data[r];
                char *k2 = kinds(a);
                free(k2);
                if (k2) return true;
                u->loc = old;
            }
        }
    }
    return false;
}

/* A reload from another slot, such that the checker rejects the result. */
static bool corrupt_reload(ravel_func *a)
{
    for (uint32_t i = a->insts.len / 3; i < a->insts.len && a->nslots > 1; i++) {
        rv_inst *in = rv_inst_at(a, i);
        if (in->op != RAVEL_OP_RELOAD) continue;
        ravel_loc old = in->u.edit.src;
        in->u.edit.src = ravel_slot((ravel_loc_slot(old) + 1) % a->nslots);
        char *k = kinds(a);
        free(k);
        if (k) return true;
        in->u.edit.src = old;
    }
    return false;
}

static ravel_func *wrong_allocation(uint64_t seed, bool (*corrupt)(ravel_func *), ravel_module **m)
{
    *m = big(seed);
    ravel_func *a = NULL;
    char *err = NULL;
    CHECK(ravel_allocate("linear", ravel_module_func(*m, 0), seed, &a, &err) == RAVEL_OK);
    free(err);
    if (a && !corrupt(a)) {
        ravel_func_free(a);
        a = NULL;
    }
    CHECK(a != NULL);
    return a;
}

static void reduce_wrong(const char *what, uint64_t seed, bool (*corrupt)(ravel_func *), rv_rd_keep keep)
{
    ravel_module *m;
    ravel_func *a = wrong_allocation(seed, corrupt, &m);
    if (!a) {
        ravel_module_free(m);
        return;
    }
    char *before = kinds(a);
    char first[64] = "";
    sscanf(before, "%63s", first);
    rv_reduce_opts o;
    rv_reduce_opts_default(&o);
    o.keep = keep;
    rv_reduce_stats st;
    char *out = NULL, *err = NULL;
    CHECK_EQ_INT(rv_reduce(a, NULL, 0, &o, &out, &st, &err), RAVEL_OK);
    report(what, seed, &st);
    CHECK(st.insts_before >= MIN_INSTS);
    CHECK(small_enough(&st));
    ravel_module *rm;
    const ravel_func *r = out ? reparse(out, &rm) : NULL;
    char *after = r ? kinds(r) : NULL;
    CHECK(after != NULL); /* still rejected ... */
    if (after && keep == RV_KEEP_FIRST) CHECK(strncmp(after, first, strlen(first)) == 0 && after[strlen(first)] == ' ');
    if (after) { /* ... with the input's first kind among its errors */
        char pat[72];
        snprintf(pat, sizeof pat, "%s ", first);
        CHECK(strstr(after, pat) != NULL);
    }
    CHECK(out && strstr(out, "# reduced-from: ") != NULL);
    free(after);
    free(before);
    if (out) ravel_module_free(rm);
    free(out);
    free(err);
    ravel_func_free(a);
    ravel_module_free(m);
}

TEST(wrong_use_location)
{
    for (uint64_t seed = 1; seed <= 2; seed++) reduce_wrong("(a) use location changed", seed, corrupt_use, RV_KEEP_KIND);
}

TEST(wrong_reload_slot)
{
    for (uint64_t seed = 3; seed <= 4; seed++) reduce_wrong("(a) reload from wrong slot", seed, corrupt_reload, RV_KEEP_KIND);
}

TEST(keep_first_line) { reduce_wrong("(a) --keep first-line", 5, corrupt_use, RV_KEEP_FIRST); }

/* ---- (b) a crashing / failing allocator ------------------------------------------------ */

/* An instruction that reads the same value twice (e.g. `add v3, v3`). */
static bool repeated_use(const ravel_func *f)
{
    for (uint32_t i = 0; i < f->insts.len; i++) {
        const rv_inst *in = rv_inst_at(f, i);
        for (uint32_t j = 0; j < in->nuses; j++)
            for (uint32_t k = j + 1; k < in->nuses; k++)
                if (rv_inst_uses(f, in)[j].vreg == rv_inst_uses(f, in)[k].vreg) return true;
    }
    return false;
}

/* A block with three or more parameters. */
static bool many_params(const ravel_func *f)
{
    for (uint32_t b = 0; b < f->blocks.len; b++)
        if (f->blocks.data[b].nparams >= 3) return true;
    return false;
}

/* The bug modelled: an assertion that two uses of an instruction never
 * share a value (as an allocator assigning one register per use would). */
static ravel_func *crashing(const ravel_func *f, const rv_alloc_opts *o, char **err)
{
    if (repeated_use(f)) abort();
    return rv_allocator_find("linear")->run(f, o, err);
}

/* Gives up on blocks with many parameters ("unsupported"), as a young
 * allocator might. */
static ravel_func *failing(const ravel_func *f, const rv_alloc_opts *o, char **err)
{
    if (many_params(f)) {
        *err = strdup("unsupported: a block with 3 or more parameters");
        return NULL;
    }
    return rv_allocator_find("linear")->run(f, o, err);
}

/* Never returns on blocks with many parameters (a resolver that loops). */
static ravel_func *hanging(const ravel_func *f, const rv_alloc_opts *o, char **err)
{
    if (many_params(f))
        for (;;) sleep(1);
    return rv_allocator_find("linear")->run(f, o, err);
}

/* Fails on blocks with many parameters, and never returns on functions of
 * fewer than 40 instructions. */
static ravel_func *failing_then_hanging(const ravel_func *f, const rv_alloc_opts *o, char **err)
{
    if (f->insts.len < 40)
        for (;;) sleep(1);
    return failing(f, o, err);
}

/* Reloads from the next slot (a slot-numbering off-by-one). */
static ravel_func *wrong_slot(const ravel_func *f, const rv_alloc_opts *o, char **err)
{
    ravel_func *a = rv_allocator_find("linear")->run(f, o, err);
    for (uint32_t i = 0; a && i < a->insts.len && a->nslots > 1; i++) {
        rv_inst *in = rv_inst_at(a, i);
        if (in->op == RAVEL_OP_RELOAD) in->u.edit.src = ravel_slot((ravel_loc_slot(in->u.edit.src) + 1) % a->nslots);
    }
    return a;
}

static const rv_allocator planted[] = {
    {.name = "crashing", .description = "aborts on an instruction that reads one value twice", .run = crashing},
    {.name = "failing", .description = "fails on blocks with 3+ parameters", .run = failing},
    {.name = "wrong-slot", .description = "reloads from the next slot", .run = wrong_slot},
    {.name = "hanging", .description = "loops forever on blocks with 3+ parameters", .run = hanging},
    {.name = "failing-then-hanging", .description = "fails on 3+ parameters, loops forever on small functions", .run = failing_then_hanging},
};

/* big(seed), or of the next seed whose function has the pattern (so that
 * the cases do not depend on what one seed of the generator makes). */
static ravel_module *big_with(uint64_t *seed, bool (*pattern)(const ravel_func *))
{
    for (uint64_t s = *seed; s < *seed + 64; s++) {
        ravel_module *m = big(s);
        if (!pattern || pattern(ravel_module_func(m, 0))) {
            *seed = s;
            return m;
        }
        ravel_module_free(m);
    }
    CHECK(!"no seed gives the pattern");
    return big(*seed);
}

/* Reduces a generated function against a planted allocator; returns the
 * reduced text (or NULL). */
static char *reduce_alloc(const char *what, uint64_t seed, bool (*pattern)(const ravel_func *), const rv_allocator *a,
                          bool compare, rv_reduce_stats *st)
{
    ravel_module *m = big_with(&seed, pattern);
    rv_reduce_opts o;
    rv_reduce_opts_default(&o);
    o.mode = RV_RD_ALLOC;
    o.alloc = a;
    o.seed = seed;
    o.compare = compare;
    o.inputs = 20;
    char *out = NULL, *err = NULL;
    int rc = rv_reduce(ravel_module_func(m, 0), NULL, 0, &o, &out, st, &err);
    if (rc != RAVEL_OK) fprintf(stderr, "%s seed %llu: %s\n", what, (unsigned long long)seed, err ? err : "?");
    CHECK_EQ_INT(rc, RAVEL_OK);
    if (rc == RAVEL_OK) {
        report(what, seed, st);
        CHECK(st->insts_before >= MIN_INSTS);
        CHECK(small_enough(st));
    }
    free(err);
    ravel_module_free(m);
    return out;
}

/* The unallocated function of a reduced reproducer (its `#| ` lines when it
 * holds an allocation). */
static ravel_func *input_of(const char *text, ravel_module **m)
{
    const ravel_func *f = reparse(text, m);
    return f ? (rv_func_is_allocated(f) ? rv_func_strip(f) : rv_func_clone(f)) : NULL;
}

TEST(allocator_crash)
{
    rv_reduce_stats st;
    char *out = reduce_alloc("(b) allocator crash", 11, repeated_use, &planted[0], false, &st);
    CHECK(out && strstr(out, "# verdict: the allocator crashed (signal 6)"));
    ravel_module *m;
    ravel_func *f = out ? input_of(out, &m) : NULL;
    CHECK(f && repeated_use(f)); /* the pattern that crashes it survived */
    if (f) ravel_func_free(f), ravel_module_free(m);
    free(out);
}

TEST(allocator_failure)
{
    rv_reduce_stats st;
    char *out = reduce_alloc("(b) allocator failure", 12, many_params, &planted[1], false, &st);
    CHECK(out && strstr(out, "# verdict: allocation failed"));
    CHECK(out && strstr(out, "unsupported: a block with 3 or more parameters"));
    ravel_module *m;
    ravel_func *f = out ? input_of(out, &m) : NULL;
    CHECK(f && many_params(f));
    if (f) ravel_func_free(f), ravel_module_free(m);
    free(out);
}

/* (a smaller function: every candidate that keeps the bug costs the whole
 * timeout, which must stay well above a normal test's time under load) */
TEST(allocator_hang)
{
    rv_gen_opts go;
    rv_gen_opts_default(&go);
    go.max_insts = 150;
    ravel_module *m = NULL;
    uint64_t seed = 12;
    for (; seed < 40 && !m; seed++) { /* the first with a block of 3+ parameters */
        m = rv_gen_from_seed(seed, &go);
        if (!many_params(ravel_module_func(m, 0))) ravel_module_free(m), m = NULL;
    }
    CHECK(m != NULL);
    if (!m) return;
    rv_reduce_opts o;
    rv_reduce_opts_default(&o);
    o.mode = RV_RD_ALLOC;
    o.alloc = &planted[3];
    o.test_timeout = 0.5;
    rv_reduce_stats st;
    char *out = NULL, *err = NULL;
    CHECK_EQ_INT(rv_reduce(ravel_module_func(m, 0), NULL, 0, &o, &out, &st, &err), RAVEL_OK);
    report("(b) allocator hang", seed - 1, &st);
    CHECK(small_enough(&st));
    CHECK(out && strstr(out, "# verdict: the allocator ran longer than 0.5 s"));
    ravel_module *rm;
    ravel_func *f = out ? input_of(out, &rm) : NULL;
    CHECK(f && many_params(f));
    if (f) ravel_func_free(f), ravel_module_free(rm);
    free(out);
    free(err);
    ravel_module_free(m);
}

TEST(differs_under_compare)
{
    rv_reduce_stats st;
    char *out = reduce_alloc("(c) differs, run --compare", 13, NULL, &planted[2], true, &st);
    CHECK(out && strstr(out, "# verdict: the allocation differs under ravel run --compare"));
    ravel_module *m;
    ravel_func *f = out ? input_of(out, &m) : NULL;
    if (f) { /* the planted allocator's output still differs */
        char *err = NULL;
        rv_alloc_opts ao = {.seed = 13};
        ravel_func *a = wrong_slot(f, &ao, &err);
        bool diff = false;
        uint32_t n = rv_interp_ninputs(f);
        uint64_t in[64] = {0};
        for (uint64_t k = 0; k < 20 && a && !diff && n <= 64; k++) {
            rv_interp_inputs(13, k, in, n);
            rv_run_opts ro = {in, n, 100000, false, true, 0};
            char msg[256];
            diff = !rv_interp_compare(f, a, &ro, msg, sizeof msg);
        }
        CHECK(diff);
        ravel_func_free(a);
        free(err);
        ravel_func_free(f);
        ravel_module_free(m);
    }
    CHECK(f != NULL);
    free(out);
}

/* ---- the machine ----------------------------------------------------------------------------- */

/* A wrong allocation on a machine far larger than it needs: the reducer's
 * machine passes must shrink the machine too (a candidate that changes
 * only the machine is a different candidate: the cache key covers the
 * machine's text, so it is tested, not taken for the current one). */
static const char wide_machine_text[] =
    "machine\n  class int r0 r1 r2 r3 r4 r5\n  class flt f0 f1 f2\nend\n\nfunc f\nb0:\n"
    "  v0:int @r0, v1:int @r1 = args\n  v2:int @r1 = add v0 @r0, v0 @r0\n"
    "  v3:int @r0 = add v2 @r1, v1 @r1\n  ret v3 @r0\nend\n";

TEST(machine_reduced)
{
    ravel_module *m;
    const ravel_func *f = reparse(wide_machine_text, &m);
    if (!f) return;
    rv_reduce_opts o;
    rv_reduce_opts_default(&o);
    rv_reduce_stats st;
    char *out = NULL, *err = NULL;
    CHECK_EQ_INT(rv_reduce(f, NULL, 0, &o, &out, &st, &err), RAVEL_OK);
    report("wide machine", 0, &st);
    ravel_module *rm = NULL;
    const ravel_func *r = out ? reparse(out, &rm) : NULL;
    CHECK(r != NULL);
    if (r) {
        CHECK_EQ_INT(r->mach->classes.len, 1);         /* the unused class went */
        CHECK(r->mach->regs.len <= 2);                 /* and the registers no operand names */
        CHECK(st.lines_after + 1 <= st.lines_before);  /* the machine's class line */
        char *k = kinds(r);
        CHECK(k && strstr(k, "use-wrong-vreg ") != NULL); /* still the same rejection */
        free(k);
        ravel_module_free(rm);
    }
    free(out);
    free(err);
    ravel_module_free(m);
}

/* ---- determinism and the time budget ------------------------------------------------------- */

TEST(deterministic)
{
    ravel_module *m;
    ravel_func *a = wrong_allocation(6, corrupt_use, &m);
    char *out[2] = {NULL, NULL};
    for (int k = 0; a && k < 2; k++) {
        rv_reduce_opts o;
        rv_reduce_opts_default(&o);
        rv_reduce_stats st;
        char *err = NULL;
        CHECK_EQ_INT(rv_reduce(a, NULL, 0, &o, &out[k], &st, &err), RAVEL_OK);
        free(err);
    }
    CHECK(out[0] && out[1] && strcmp(out[0], out[1]) == 0);
    free(out[0]);
    free(out[1]);
    ravel_func_free(a);
    ravel_module_free(m);
}

/* A slow property (each test sleeps 50 ms): the budget must stop it. */
TEST(time_budget)
{
    ravel_module *m = big(14);
    rv_reduce_opts o;
    rv_reduce_opts_default(&o);
    o.mode = RV_RD_COMMAND;
    o.command = "sleep 0.05; grep -q ' = mul ' {}";
    o.seconds = 1.5; /* some tests must finish in it, even on a loaded machine */
    rv_reduce_stats st;
    char *out = NULL, *err = NULL;
    CHECK_EQ_INT(rv_reduce(ravel_module_func(m, 0), NULL, 0, &o, &out, &st, &err), RAVEL_OK);
    CHECK(st.timed_out);
    CHECK(st.seconds < 1.5 + 2.0); /* the budget, plus the final text */
    CHECK(st.insts_after < st.insts_before);
    CHECK(out && strstr(out, "# reduced-from: ") && strstr(out, " = mul ")); /* the best result so far */
    printf("time budget 1.5 s: stopped after %.2f s at %u of %u instructions, %llu tests\n", st.seconds,
           st.insts_after, st.insts_before, (unsigned long long)st.tests);
    free(out);
    free(err);
    ravel_module_free(m);
}

/* A test still running when the budget runs out is stopped (not waited for
 * until its own timeout, 60 s here, nor taken for a hang). */
TEST(time_budget_cuts_a_test)
{
    uint64_t seed = 12;
    ravel_module *m = big_with(&seed, many_params);
    rv_reduce_opts o;
    rv_reduce_opts_default(&o);
    o.mode = RV_RD_ALLOC;
    o.alloc = &planted[4];
    o.test_timeout = 60;
    o.seconds = 2;
    rv_reduce_stats st;
    char *out = NULL, *err = NULL;
    CHECK_EQ_INT(rv_reduce(ravel_module_func(m, 0), NULL, 0, &o, &out, &st, &err), RAVEL_OK);
    CHECK(st.timed_out);
    CHECK(st.seconds < 2 + 3.0);
    CHECK(out && strstr(out, "# verdict: allocation failed")); /* the best so far, not a hang */
    printf("time budget 2 s with a 60 s test running: stopped after %.2f s\n", st.seconds);
    free(out);
    free(err);
    ravel_module_free(m);
}

TEST(not_interesting)
{
    ravel_module *m = big(15);
    ravel_func *a = NULL;
    char *err = NULL;
    CHECK(ravel_allocate("linear", ravel_module_func(m, 0), 15, &a, &err) == RAVEL_OK);
    free(err);
    rv_reduce_opts o;
    rv_reduce_opts_default(&o);
    rv_reduce_stats st;
    char *out = NULL;
    err = NULL;
    CHECK_EQ_INT(rv_reduce(a, NULL, 0, &o, &out, &st, &err), RAVEL_EFAIL); /* a correct allocation */
    CHECK(err && strstr(err, "does not have the property"));
    CHECK(out == NULL);
    free(err);
    ravel_func_free(a);
    ravel_module_free(m);
}

/* ---- figures: RAVEL_REDUCE_MEASURE=N runs N more seeds per case ------------------------- */

/* One case of class k on seed; false if it does not apply (no such bug). */
static bool measure_one(int k, uint64_t seed, rv_reduce_stats *st)
{
    ravel_module *m = big(seed);
    ravel_func *a = NULL;
    char *out = NULL, *err = NULL;
    rv_reduce_opts o;
    rv_reduce_opts_default(&o);
    int rc = RAVEL_EINVAL;
    if (k < 2) {
        if (ravel_allocate("linear", ravel_module_func(m, 0), seed, &a, &err) == RAVEL_OK &&
            (k == 0 ? corrupt_use(a) : corrupt_reload(a)))
            rc = rv_reduce(a, NULL, 0, &o, &out, st, &err);
    } else {
        o.mode = RV_RD_ALLOC;
        o.alloc = &planted[k - 2];
        o.seed = seed;
        o.compare = k == 4;
        o.inputs = 20;
        rc = rv_reduce(ravel_module_func(m, 0), NULL, 0, &o, &out, st, &err);
    }
    if (rc == RAVEL_OK) CHECK(small_enough(st));
    free(out);
    free(err);
    ravel_func_free(a);
    ravel_module_free(m);
    return rc == RAVEL_OK;
}

static void measure(unsigned n)
{
    static const char *const names[] = {"(a) use location", "(a) reload slot", "(b) crash", "(b) failure",
                                        "(c) differs"};
    double all_r[5 * 64], all_t[5 * 64];
    size_t na = 0;
    for (int k = 0; k < 5; k++) {
        double r[64], t[64];
        size_t m = 0;
        for (uint64_t seed = 100; seed < 100 + n && m < 64; seed++) {
            rv_reduce_stats st;
            if (!measure_one(k, seed, &st)) continue;
            r[m] = all_r[na] = (double)st.insts_after / st.insts_before;
            t[m] = all_t[na] = st.seconds;
            m++, na++;
        }
        printf("%-18s %2zu cases: median ratio %.4f, median time %.2f s\n", names[k], m, bench_median(r, m), bench_median(t, m));
    }
    printf("%-18s %2zu cases: median ratio %.4f, median time %.2f s\n", "all", na, bench_median(all_r, na),
           bench_median(all_t, na));
}

int main(void)
{
    const char *mv = getenv("RAVEL_REDUCE_MEASURE");
    if (mv && atoi(mv) > 0) {
        measure((unsigned)(atoi(mv) < 64 ? atoi(mv) : 64));
        return TEST_SUMMARY();
    }
    RUN(wrong_use_location);
    RUN(wrong_reload_slot);
    RUN(keep_first_line);
    RUN(machine_reduced);
    RUN(allocator_crash);
    RUN(allocator_failure);
    RUN(allocator_hang);
    RUN(differs_under_compare);
    RUN(deterministic);
    RUN(time_budget);
    RUN(time_budget_cuts_a_test);
    RUN(not_interesting);
    return TEST_SUMMARY();
}
