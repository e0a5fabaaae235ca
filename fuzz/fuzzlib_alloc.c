/* fuzzlib_alloc.c - the allocation oracle (fuzz_alloc, fuzz_differential,
 * `ravel fuzz`): allocate, judge the output (the validator only on what the
 * checker rejects), compare runs (RV_FUZZ_DIFF), compare the checker's
 * paths (RV_FUZZ_PATHS), then the checker oracle (RV_FUZZ_ORACLE).
 *
 * Requires: f unallocated and valid SSA.
 * Guarantees: RV_FUZZ_BUG exactly when the allocator failed or its output
 * is invalid, rejected, runs differently, or a checker oracle finds a miss
 * or a path difference (z->oracle_miss, z->paths_diff tell which).
 */
#define _GNU_SOURCE /* open_memstream */
#include "fuzz/fuzzlib.h"
#include "fuzz/anycfg.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- the allocation oracle ---------------------------------------------------- */

static int bug_alloc_failed(rv_fuzz *z, rv_fuzz_target t, const ravel_func *f, const rv_allocator *a, uint64_t seed,
                            const char *err)
{
    FILE *fp = fz_repro_begin(z, t, a->name, seed);
    fprintf(fp, "# verdict: allocation failed on a satisfiable function:\n");
    fz_put_comment(fp, err ? err : "(no message)", strlen(err ? err : "(no message)"));
    fz_put_func(fp, f, a);
    fz_repro_end(fp);
    return RV_FUZZ_BUG;
}

/* Is the allocated function structurally invalid? The harness guarantees
 * that such an output is reported with the validator's verdict ("does not
 * validate" and its messages), but it does not pay for the validator on
 * every execution: ravel_check already rejects every output the validator
 * (without SSA) would reject, because
 *   - its guard flags as suspect every condition under which ravel_validate
 *     may answer RAVEL_EINVAL, and then runs ravel_validate itself, whose
 *     EINVAL is its verdict (checker/check.c, input_ok; ck_rules.c, ck_guard);
 *   - the conditions for which ravel_validate answers RAVEL_EFAIL (docs/format.md
 *     section 6 "Structure": an operand without a location, or out of range,
 *     of the wrong class, in a reserved register without fixed(R); an edit
 *     out of range, slot to slot, or of the wrong kind; a safepoint without a
 *     stackmap) are all rules of the checker (ck_rules.c: missing-location,
 *     unknown-location, bad-class, reserved-misuse / not-fixed,
 *     unknown-location, slot-to-slot, bad-edit, stackmap-missing).
 * So the validator runs only once the checker has rejected the output, to
 * pick the verdict: reports are exactly those of validating first. A context
 * told not to validate (RAVEL_CHECK_NO_VALIDATE) breaks the first premise:
 * then the output is validated up front, as before. */
static bool validate_first(const rv_fuzz *z)
{
    return (ravel_checker_options(z->ck) & RAVEL_CHECK_NO_VALIDATE) != 0;
}

/* RV_FUZZ_PATHS: every checker path against the reference fixpoint on out
 * (an allocation of f, or a corruption of one: what says which). True on a
 * difference, with the reproducer in z and the difference in its header. */
bool fz_paths_differ(rv_fuzz *z, const ravel_func *f, const ravel_func *out, const rv_allocator *a, uint64_t seed,
                         const char *what)
{
    char msg[2048];
    int st = 0;
    rv_fuzz_paths_fn agree = z->paths_agree ? z->paths_agree : rv_anycfg_paths_agree;
    if (agree(out, f, &st, msg, sizeof msg)) return false;
    FILE *fp = fz_repro_begin(z, RV_FT_ALLOC, a->name, seed);
    fprintf(fp, "# verdict: a checker path differs from the reference fixpoint on %s:\n", what);
    fz_put_comment(fp, msg, strlen(msg));
    fz_put_func(fp, out, a);
    fz_repro_end(fp);
    z->oracle_miss = z->paths_diff = true;
    return true;
}


enum { V_OK, V_INVALID, V_REJECTED };

/* The verdict on an allocated output: V_INVALID (the validator's messages
 * in *d), V_REJECTED (the checker's report in *rep) or V_OK. */
static int judge(rv_fuzz *z, const ravel_func *out, const ravel_func *f, ravel_report **rep, ravel_diags **d)
{
    bool first = validate_first(z);
    uint64_t t0 = fz_phase_start(z);
    if (!first) {
        int rc = fz_check_out(z, out, f, rep);
        t0 = fz_phase_end(z, RV_PH_CHECK, t0);
        if (rc == RAVEL_OK) return V_OK; /* then the validator accepts it too */
    }
    *d = ravel_diags_new();
    int v = ravel_validate(out, 0, *d);
    t0 = fz_phase_end(z, RV_PH_VALIDATE, t0);
    if (v != RAVEL_OK) return V_INVALID;
    if (!first) return V_REJECTED;
    int rc = fz_check_out(z, out, f, rep);
    fz_phase_end(z, RV_PH_CHECK, t0);
    return rc == RAVEL_OK ? V_OK : V_REJECTED;
}

/* Requires: f unallocated and valid SSA. Allocates with a, checks the
 * result against f (an output that does not validate is reported as such,
 * see validate_first), with RV_FUZZ_DIFF runs both forms, and with
 * RV_FUZZ_ORACLE runs the checker oracle on an accepted result. */
int rv_fuzz_alloc(rv_fuzz *z, const ravel_func *f, const rv_allocator *a, uint64_t seed, unsigned flags)
{
    rv_fuzz_target t = (flags & RV_FUZZ_DIFF) ? RV_FT_DIFFERENTIAL : RV_FT_ALLOC;
    z->oracle_miss = z->paths_diff = false;
    z->paths = (flags & RV_FUZZ_PATHS) != 0;
    z->declined = false;
    rv_alloc_opts ao = {.seed = seed};
    char *err = NULL;
    ravel_func *out = NULL;
    uint64_t t0 = fz_phase_start(z);
    int arc = rv_alloc_run(a, f, &ao, &out, &err);
    fz_phase_end(z, RV_PH_ALLOCATE, t0);
    if (arc == RAVEL_EDECLINED) { /* the allocator does not handle f: counted, not a bug */
        z->declined = true;
        rv_free(err);
        return RV_FUZZ_SKIP;
    }
    if (!out) {
        int r = bug_alloc_failed(z, t, f, a, seed, err);
        rv_free(err);
        return r;
    }
    rv_free(err);
    int result = RV_FUZZ_PASS;
    ravel_diags *d = NULL;
    ravel_report *rep = NULL;
    char msg[1024];
    int v = judge(z, out, f, &rep, &d);
    if (v == V_INVALID) {
        FILE *fp = fz_repro_begin(z, t, a->name, seed);
        fprintf(fp, "# verdict: the allocated function does not validate:\n");
        fz_comment_diags(fp, d);
        fz_put_func(fp, out, a);
        fz_repro_end(fp);
        result = RV_FUZZ_BUG;
    } else if (v == V_REJECTED) {
        FILE *fp = fz_repro_begin(z, t, a->name, seed);
        fprintf(fp, "# verdict: the checker rejects the allocation:\n");
        if (rep) fz_comment_report(fp, rep);
        fz_put_func(fp, out, a);
        fz_repro_end(fp);
        result = RV_FUZZ_BUG;
    } else if ((flags & RV_FUZZ_DIFF) && !fz_compare_runs(z, f, out, seed, msg, sizeof msg)) {
        FILE *fp = fz_repro_begin(z, t, a->name, seed);
        fprintf(fp, "# verdict: the checker accepts, but the interpreter disagrees:\n");
        fz_put_comment(fp, msg, strlen(msg));
        fz_put_func(fp, out, a);
        fz_repro_end(fp);
        result = RV_FUZZ_BUG;
    } else if (z->paths && fz_paths_differ(z, f, out, a, seed, "the allocation")) {
        result = RV_FUZZ_BUG;
    } else if ((flags & RV_FUZZ_ORACLE) && fz_oracle_on(z, f, out, a, seed) == RV_FUZZ_BUG) {
        z->oracle_miss = true;
        result = RV_FUZZ_BUG;
    }
    z->paths = false;
    ravel_report_free(rep);
    if (d) ravel_diags_free(d);
    ravel_func_free(out);
    return result;
}

