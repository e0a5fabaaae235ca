/* fuzzlib_oracle.c - the checker oracle (fuzz_checker_oracle, `ravel fuzz
 * --oracle`): corrupt a correct allocation with a kind of the injection
 * catalogue; if the checker accepts it, the interpreter must agree. And
 * rv_fuzz_mutant_judge, one injected bug judged in full (bench_mutation).
 *
 * Requires: f unallocated and valid SSA; out an allocation of f the checker
 * accepted.
 * Guarantees: every draw of a kind is counted in z->oracle_kinds (tried =
 * no_site + unchanged + rejected + accepted); a miss leaves its reproducer.
 */
#define _GNU_SOURCE /* open_memstream */
#include "fuzz/fuzzlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- corruptions (checker oracle) ------------------------------------------------ */

static const char *const count_names[RV_ORC_COUNT_] = {"tried", "no_site", "unchanged", "rejected", "accepted", "missed"};

const char *rv_oracle_count_name(rv_oracle_count c) { return (unsigned)c < RV_ORC_COUNT_ ? count_names[c] : "?"; }

static void write_miss(rv_fuzz *z, const rv_allocator *a, uint64_t seed, rv_inject_kind k, const char *what,
                       const char *msg, const ravel_func *out)
{
    FILE *fp = fz_repro_begin(z, RV_FT_ORACLE, a ? a->name : NULL, seed);
    fprintf(fp, "# expect: reject\n# injected: %s\n# injection: %s\n", rv_inject_info_of(k)->name, what);
    fprintf(fp, "# verdict: the checker accepts a wrong allocation (injected %s: %s); the interpreter disagrees:\n",
            rv_inject_info_of(k)->name, rv_inject_info_of(k)->summary);
    fz_put_comment(fp, msg, strlen(msg));
    fz_put_func(fp, out, a);
    fz_repro_end(fp);
}

/* A correct allocation made non-SSA (rv_fuzz_redefine) must still be
 * accepted: a rejection is a checker bug (a false alarm), reported as a
 * checker miss. */
static bool redefinition_accepted(rv_fuzz *z, const ravel_func *f2, const ravel_func *out2, const rv_allocator *a,
                                  uint64_t seed)
{
    ravel_report *rep = NULL;
    bool ok = fz_check_out(z, out2, f2, &rep) == RAVEL_OK;
    if (!ok) {
        FILE *fp = fz_repro_begin(z, RV_FT_ORACLE, a ? a->name : NULL, seed);
        fprintf(fp, "# expect: accept\n# verdict: the checker rejects a correct allocation in which a vreg is defined "
                    "again (a non-SSA redefinition of a correct one):\n");
        if (rep) fz_comment_report(fp, rep);
        fz_put_func(fp, out2, a);
        fz_repro_end(fp);
        z->oracle_miss = true;
    }
    ravel_report_free(rep);
    return ok;
}

/* The corruption and its verdict (fz_oracle_on), once the run is decided. */
static int corrupt_and_judge(rv_fuzz *z, const ravel_func *f, ravel_func *out, const rv_allocator *a, uint64_t seed,
                             rng r)
{
    z->oracle_tried++; /* an oracle run: a corruption is attempted */
    rv_inject_result res;
    int kind = -1;
    rv_injector_forget(z->inj); /* (each execution from scratch: an input run twice takes the same paths) */
    for (unsigned t = 0; t < 3 && kind < 0; t++) {
        int k = z->inject_kind >= 0 && z->inject_kind < RV_INJ_COUNT_ ? z->inject_kind : (int)rng_below(&r, RV_INJ_COUNT_);
        z->oracle_kinds[k][RV_ORC_TRIED]++;
        rv_inject_with(z->inj, out, (rv_inject_kind)k, rng_next(&r), &res);
        if (res.status == RV_INJ_CHANGED) kind = k;
        else z->oracle_kinds[k][res.status == RV_INJ_NO_SITE ? RV_ORC_NO_SITE : RV_ORC_UNCHANGED]++;
    }
    if (kind < 0) return RV_FUZZ_PASS;
    if (z->paths && fz_paths_differ(z, f, out, a, seed, res.what)) return RV_FUZZ_BUG;
    uint64_t t0 = fz_phase_start(z);
    bool accepted = fz_check_out(z, out, f, NULL) == RAVEL_OK;
    fz_phase_end(z, RV_PH_CHECK, t0);
    z->oracle_kinds[kind][accepted ? RV_ORC_ACCEPTED : RV_ORC_REJECTED]++;
    if (!accepted) {
        z->oracle_rejected++;
        return RV_FUZZ_PASS;
    }
    z->oracle_accepted++;
    char msg[1024];
    if (fz_compare_runs(z, f, out, seed, msg, sizeof msg)) return RV_FUZZ_PASS;
    z->oracle_kinds[kind][RV_ORC_MISSED]++;
    write_miss(z, a, seed, (rv_inject_kind)kind, res.what, msg, out);
    return RV_FUZZ_BUG;
}

/* The checker oracle on out, an allocation of f the checker accepted (it is
 * corrupted in place): with probability z->inject_permille, draws a kind of
 * the catalogue (up to three draws until one changes out) and asserts: if
 * the checker accepts the corrupted allocation, the interpreter agrees with
 * f on every vector. Every draw is counted in z->oracle_kinds. With
 * probability z->redefine_permille (its own stream: the kinds drawn stay
 * those of the seed) the run is made on copies of f and out in which a vreg
 * is defined again (rv_fuzz_redefine; counted in z->oracle_redefs), which
 * the checker must accept before they are corrupted. Returns RV_FUZZ_PASS
 * or RV_FUZZ_BUG (the reproducer in z). */
int fz_oracle_on(rv_fuzz *z, const ravel_func *f, ravel_func *out, const rv_allocator *a, uint64_t seed)
{
    rng r = {rv_hash64(seed ^ 0x0c0ffee)};
    if (z->inject_permille < 1000 && rng_below(&r, 1000) >= z->inject_permille) return RV_FUZZ_PASS;
    rng rd = {rv_hash64(seed ^ 0x72656465ull)};
    ravel_func *f2 = NULL, *out2 = NULL;
    if (rng_below(&rd, 1000) >= z->redefine_permille || !rv_fuzz_redefine(f, out, rng_next(&rd), &f2, &out2))
        return corrupt_and_judge(z, f, out, a, seed, r);
    z->oracle_redefs++;
    int result = redefinition_accepted(z, f2, out2, a, seed) ? corrupt_and_judge(z, f2, out2, a, seed, r) : RV_FUZZ_BUG;
    ravel_func_free(f2);
    ravel_func_free(out2);
    return result;
}

void rv_fuzz_mutant_judge(rv_fuzz *z, const ravel_func *f, const ravel_func *alloc, const rv_allocator *a,
                          rv_inject_kind k, uint64_t seed, rv_fuzz_mutant *m)
{
    memset(m, 0, sizeof *m);
    ravel_func *out = rv_func_clone(alloc);
    rv_inject_result res;
    m->status = rv_inject_with(z->inj, out, k, seed, &res); /* (the kinds of one allocation share its analyses) */
    snprintf(m->what, sizeof m->what, "%s", res.what);
    if (m->status == RV_INJ_CHANGED) {
        ravel_report *rep = NULL;
        m->rejected = fz_check_out(z, out, f, &rep) != RAVEL_OK;
        for (size_t e = 0; rep && e < ravel_report_count(rep); e++) {
            const ravel_check_error *x = ravel_report_error(rep, e);
            if (e == 0) snprintf(m->first_kind, sizeof m->first_kind, "%s", x->kind);
            m->expected |= rv_inject_expected(k, x->kind);
        }
        if (rep && ravel_report_status(rep) == RAVEL_EINVAL && !m->first_kind[0])
            snprintf(m->first_kind, sizeof m->first_kind, "bad-input");
        ravel_report_free(rep);
        char msg[1024];
        m->different = !fz_compare_runs(z, f, out, seed, msg, sizeof msg);
        if (m->different && !m->rejected) write_miss(z, a, seed, k, m->what, msg, out);
    }
    ravel_func_free(out);
}

/* Requires: f unallocated and valid SSA. Allocates f with a; if the checker
 * accepts that allocation, runs the checker oracle on it (fz_oracle_on). (A
 * rejected original allocation is fuzz_alloc's business: RV_FUZZ_SKIP.) */
int rv_fuzz_oracle(rv_fuzz *z, const ravel_func *f, const rv_allocator *a, uint64_t seed)
{
    rv_alloc_opts ao = {.seed = seed};
    char *err = NULL;
    ravel_func *out = NULL;
    z->declined = false;
    uint64_t t0 = fz_phase_start(z);
    int arc = rv_alloc_run(a, f, &ao, &out, &err);
    t0 = fz_phase_end(z, RV_PH_ALLOCATE, t0);
    rv_free(err);
    z->declined = arc == RAVEL_EDECLINED;
    if (!out) return RV_FUZZ_SKIP;
    int first = fz_check_out(z, out, f, NULL);
    fz_phase_end(z, RV_PH_CHECK, t0);
    int result = first == RAVEL_OK ? fz_oracle_on(z, f, out, a, seed) : RV_FUZZ_SKIP;
    ravel_func_free(out);
    return result;
}

