/* fuzzlib.c - the one-input oracles of the fuzz targets (see campaign.h).
 *
 * Each oracle requires nothing of its input beyond what its comment says and
 * never crashes on any input; on a bug it builds z->repro, a complete `.ra`
 * reproducer (comment header + machine + function), and returns RV_FUZZ_BUG.
 *
 * Glossary: "vector" = one list of function inputs for the interpreter;
 * "corruption" = a small random change to a correct allocation.
 */
#define _GNU_SOURCE /* open_memstream */
#include "fuzz/campaign.h"
#include "fuzz/anycfg.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- small helpers -------------------------------------------------------- */

typedef struct rng { uint64_t s; } rng;

static uint64_t rng_next(rng *r) { return rv_rng_next(&r->s); }

static uint32_t rng_below(rng *r, uint32_t n) { return n ? (uint32_t)(((rng_next(r) >> 32) * n) >> 32) : 0; }

/* Phase timing (z->timing): phase_start returns a clock reading, or 0 when
 * timing is off (no clock is read); phase_end adds the time since t0 to
 * phase ph and returns the new reading, the start of the next phase. */
static uint64_t cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t phase_start(const rv_fuzz *z) { return z->timing ? cpu_now() : 0; }

static uint64_t phase_end(rv_fuzz *z, rv_fuzz_phase ph, uint64_t t0)
{
    if (!z->timing) return 0;
    uint64_t t = cpu_now();
    z->phase_nanos[ph] += t - t0;
    return t;
}

static const char *const target_names[RV_FT_COUNT_] = {"alloc", "differential", "parse", "moves", "checker_oracle"};

const char *rv_fuzz_target_name(rv_fuzz_target t) { return (unsigned)t < RV_FT_COUNT_ ? target_names[t] : "?"; }

size_t rv_fuzz_nallocators(void)
{
    size_t n = 0;
    while (rv_allocators[n].name) n++;
    return n;
}

int rv_fuzz_allocator_index(const char *name)
{
    for (size_t i = 0; rv_allocators[i].name; i++)
        if (strcmp(rv_allocators[i].name, name) == 0) return (int)i;
    return -1;
}

rv_fuzz *rv_fuzz_new(void)
{
    rv_fuzz *z = rv_xcalloc(1, sizeof *z);
    z->ck = ravel_checker_new();
    if (!z->ck) rv_oom();
    z->step_limit = 20000;
    z->nvectors = 4;
    z->inject_permille = 1000;
    z->inject_kind = -1;
    rv_gen_opts_default(&z->gen);
    return z;
}

void rv_fuzz_free(rv_fuzz *z)
{
    if (!z) return;
    ravel_checker_free(z->ck);
    free(z->repro);
    free(z);
}

/* ---- reproducer text -------------------------------------------------------- */

/* Starts a new reproducer in z->repro; the caller writes to the stream and
 * calls repro_end. */
static FILE *repro_begin(rv_fuzz *z, rv_fuzz_target t, const char *alloc, uint64_t seed)
{
    free(z->repro);
    z->repro = NULL;
    z->repro_len = 0;
    FILE *fp = open_memstream(&z->repro, &z->repro_len);
    if (!fp) rv_oom();
    fprintf(fp, "# ravel fuzz reproducer\n# target: %s\n", rv_fuzz_target_name(t));
    if (alloc) fprintf(fp, "# allocator: %s\n", alloc);
    fprintf(fp, "# seed: 0x%016" PRIx64 "\n", seed);
    return fp;
}

static void repro_end(FILE *fp)
{
    if (fclose(fp) != 0) rv_oom();
}

/* Writes text as comment lines "#   ...". */
static void put_comment(FILE *fp, const char *text, size_t len)
{
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && text[j] != '\n') j++;
        fprintf(fp, "#   %.*s\n", (int)(j - i), text + i);
        i = j + 1;
    }
}

/* Captures what print(arg, stream) writes, as comment lines. */
static void comment_report(FILE *fp, const ravel_report *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) rv_oom();
    ravel_report_print(m, r);
    fclose(m);
    put_comment(fp, buf, len);
    free(buf);
}

static void comment_diags(FILE *fp, const ravel_diags *d)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) rv_oom();
    ravel_diags_print(m, d);
    fclose(m);
    put_comment(fp, buf, len);
    free(buf);
}

void rv_fuzz_put_unallocated(FILE *fp, const ravel_func *f)
{
    ravel_func *g = rv_func_strip(f);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) rv_oom();
    ravel_print_machine(m, f->mach);
    fputc('\n', m);
    ravel_print_func(m, g);
    fclose(m);
    fputs("# the unallocated function (sed -n 's/^#| //p' THIS_FILE > orig.ra):\n", fp);
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && buf[j] != '\n') j++;
        fprintf(fp, "#| %.*s\n", (int)(j - i), buf + i);
        i = j + 1;
    }
    free(buf);
    ravel_func_free(g);
}

void rv_fuzz_put_how(FILE *fp, const ravel_func *f, const rv_allocator *a)
{
    bool builtin = !a || a->run;
    if (rv_func_is_allocated(f)) {
        rv_fuzz_put_unallocated(fp, f);
        if (builtin)
            fputs("# the checker's verdict again: ravel check THIS_FILE; as a regression test: ravel_replay THIS_FILE\n", fp);
        else
            fputs("# the checker's verdict again: sed -n 's/^#| //p' THIS_FILE > orig.ra && ravel check --orig orig.ra THIS_FILE\n",
                  fp);
    } else if (builtin) {
        fputs("# reproduce: ravel alloc -a ALLOCATOR THIS_FILE; as a regression test: ravel_replay THIS_FILE\n", fp);
    } else {
        fputs("# the function given to the allocator:\n", fp);
    }
}

static void put_func(FILE *fp, const ravel_func *f, const rv_allocator *a)
{
    rv_fuzz_put_how(fp, f, a);
    fputc('\n', fp);
    ravel_print_machine(fp, f->mach);
    fputc('\n', fp);
    ravel_print_func(fp, f);
}

/* ---- interpreter vectors ------------------------------------------------------ */

enum { NINPUTS = 8 };

/* Vector k of a run: 0 = all zeros, 1 = 1..8, 2 = extremes, else random. */
static void make_vector(uint64_t seed, unsigned k, uint64_t *in)
{
    rng r = {rv_hash64(seed ^ (0x51ed27u + k))};
    for (unsigned i = 0; i < NINPUTS; i++) {
        switch (k) {
        case 0: in[i] = 0; break;
        case 1: in[i] = i + 1; break;
        case 2: in[i] = (i & 1) ? (uint64_t)INT64_MIN : UINT64_MAX - i; break;
        default: in[i] = (rng_next(&r) & 1) ? rng_next(&r) : rng_below(&r, 64); break;
        }
    }
}

/* Compares orig and alloc on z->nvectors vectors, with the moving-collector
 * model when the machine's collector moves. Returns true if all agree; else
 * msg describes the first difference. */
static bool compare_runs(rv_fuzz *z, const ravel_func *orig, const ravel_func *alloc, uint64_t seed, char *msg,
                         size_t msglen)
{
    for (unsigned k = 0; k < z->nvectors; k++) {
        uint64_t in[NINPUTS];
        make_vector(seed, k, in);
        rv_run_opts o = {.inputs = in, .ninputs = NINPUTS, .step_limit = z->step_limit,
                         .moving_gc = !orig->mach->gc_nonmoving};
        char m[512] = "";
        if (!rv_interp_compare(orig, alloc, &o, m, sizeof m)) {
            snprintf(msg, msglen, "input vector %u (%" PRIu64 ", %" PRIu64 ", ...)%s: %s", k, in[0], in[1],
                     o.moving_gc ? " with the moving collector" : "", m);
            return false;
        }
    }
    return true;
}

/* ---- the allocation oracle ---------------------------------------------------- */

static int bug_alloc_failed(rv_fuzz *z, rv_fuzz_target t, const ravel_func *f, const rv_allocator *a, uint64_t seed,
                            const char *err)
{
    FILE *fp = repro_begin(z, t, a->name, seed);
    fprintf(fp, "# verdict: allocation failed on a satisfiable function:\n");
    put_comment(fp, err ? err : "(no message)", strlen(err ? err : "(no message)"));
    put_func(fp, f, a);
    repro_end(fp);
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

static int oracle_on(rv_fuzz *z, const ravel_func *f, ravel_func *out, const rv_allocator *a, uint64_t seed);

/* RV_FUZZ_PATHS: every checker path against the reference fixpoint on out
 * (an allocation of f, or a corruption of one: what says which). True on a
 * difference, with the reproducer in z and the difference in its header. */
static bool paths_differ(rv_fuzz *z, const ravel_func *f, const ravel_func *out, const rv_allocator *a, uint64_t seed,
                         const char *what)
{
    char msg[2048];
    int st = 0;
    if (rv_anycfg_paths_agree(out, f, &st, msg, sizeof msg)) return false;
    FILE *fp = repro_begin(z, RV_FT_ALLOC, a->name, seed);
    fprintf(fp, "# verdict: a checker path differs from the reference fixpoint on %s:\n", what);
    put_comment(fp, msg, strlen(msg));
    put_func(fp, out, a);
    repro_end(fp);
    z->oracle_miss = z->paths_diff = true;
    return true;
}

/* ravel_check of out against f, which the caller validated (the
 * requirement of rv_fuzz_alloc and rv_fuzz_oracle): the checker need not
 * look at f on its own (RAVEL_CHECK_ORIG_VALID). Without rep only the
 * verdict is wanted (RAVEL_CHECK_VERDICT_ONLY: the oracle's corrupted
 * allocations are mostly rejected, and their reports cost more than the
 * check). */
static int check_out(rv_fuzz *z, const ravel_func *out, const ravel_func *f, ravel_report **rep)
{
    unsigned opts = ravel_checker_options(z->ck);
    ravel_checker_set_options(z->ck, opts | RAVEL_CHECK_ORIG_VALID | (rep ? 0 : RAVEL_CHECK_VERDICT_ONLY));
    int rc = ravel_check(z->ck, out, f, rep);
    ravel_checker_set_options(z->ck, opts);
    return rc;
}

enum { V_OK, V_INVALID, V_REJECTED };

/* The verdict on an allocated output: V_INVALID (the validator's messages
 * in *d), V_REJECTED (the checker's report in *rep) or V_OK. */
static int judge(rv_fuzz *z, const ravel_func *out, const ravel_func *f, ravel_report **rep, ravel_diags **d)
{
    bool first = validate_first(z);
    uint64_t t0 = phase_start(z);
    if (!first) {
        int rc = check_out(z, out, f, rep);
        t0 = phase_end(z, RV_PH_CHECK, t0);
        if (rc == RAVEL_OK) return V_OK; /* then the validator accepts it too */
    }
    *d = ravel_diags_new();
    int v = ravel_validate(out, 0, *d);
    t0 = phase_end(z, RV_PH_VALIDATE, t0);
    if (v != RAVEL_OK) return V_INVALID;
    if (!first) return V_REJECTED;
    int rc = check_out(z, out, f, rep);
    phase_end(z, RV_PH_CHECK, t0);
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
    uint64_t t0 = phase_start(z);
    int arc = rv_alloc_run(a, f, &ao, &out, &err);
    phase_end(z, RV_PH_ALLOCATE, t0);
    if (arc == RAVEL_EDECLINED) { /* the allocator does not handle f: counted, not a bug */
        z->declined = true;
        free(err);
        return RV_FUZZ_SKIP;
    }
    if (!out) {
        int r = bug_alloc_failed(z, t, f, a, seed, err);
        free(err);
        return r;
    }
    free(err);
    int result = RV_FUZZ_PASS;
    ravel_diags *d = NULL;
    ravel_report *rep = NULL;
    char msg[1024];
    int v = judge(z, out, f, &rep, &d);
    if (v == V_INVALID) {
        FILE *fp = repro_begin(z, t, a->name, seed);
        fprintf(fp, "# verdict: the allocated function does not validate:\n");
        comment_diags(fp, d);
        put_func(fp, out, a);
        repro_end(fp);
        result = RV_FUZZ_BUG;
    } else if (v == V_REJECTED) {
        FILE *fp = repro_begin(z, t, a->name, seed);
        fprintf(fp, "# verdict: the checker rejects the allocation:\n");
        if (rep) comment_report(fp, rep);
        put_func(fp, out, a);
        repro_end(fp);
        result = RV_FUZZ_BUG;
    } else if ((flags & RV_FUZZ_DIFF) && !compare_runs(z, f, out, seed, msg, sizeof msg)) {
        FILE *fp = repro_begin(z, t, a->name, seed);
        fprintf(fp, "# verdict: the checker accepts, but the interpreter disagrees:\n");
        put_comment(fp, msg, strlen(msg));
        put_func(fp, out, a);
        repro_end(fp);
        result = RV_FUZZ_BUG;
    } else if (z->paths && paths_differ(z, f, out, a, seed, "the allocation")) {
        result = RV_FUZZ_BUG;
    } else if ((flags & RV_FUZZ_ORACLE) && oracle_on(z, f, out, a, seed) == RV_FUZZ_BUG) {
        z->oracle_miss = true;
        result = RV_FUZZ_BUG;
    }
    z->paths = false;
    ravel_report_free(rep);
    if (d) ravel_diags_free(d);
    ravel_func_free(out);
    return result;
}

/* ---- corruptions (checker oracle) ------------------------------------------------ */

static const char *const count_names[RV_ORC_COUNT_] = {"tried", "no_site", "unchanged", "rejected", "accepted", "missed"};

const char *rv_oracle_count_name(rv_oracle_count c) { return (unsigned)c < RV_ORC_COUNT_ ? count_names[c] : "?"; }

static void write_miss(rv_fuzz *z, const rv_allocator *a, uint64_t seed, rv_inject_kind k, const char *what,
                       const char *msg, const ravel_func *out)
{
    FILE *fp = repro_begin(z, RV_FT_ORACLE, a ? a->name : NULL, seed);
    fprintf(fp, "# expect: reject\n# injected: %s\n# injection: %s\n", rv_inject_info_of(k)->name, what);
    fprintf(fp, "# verdict: the checker accepts a wrong allocation (injected %s: %s); the interpreter disagrees:\n",
            rv_inject_info_of(k)->name, rv_inject_info_of(k)->summary);
    put_comment(fp, msg, strlen(msg));
    put_func(fp, out, a);
    repro_end(fp);
}

/* The checker oracle on out, an allocation of f the checker accepted (it is
 * corrupted in place): with probability z->inject_permille, draws a kind of
 * the catalogue (up to three draws until one changes out) and asserts: if
 * the checker accepts the corrupted allocation, the interpreter agrees with
 * f on every vector. Every draw is counted in z->oracle_kinds. Returns
 * RV_FUZZ_PASS or RV_FUZZ_BUG (the reproducer in z). */
static int oracle_on(rv_fuzz *z, const ravel_func *f, ravel_func *out, const rv_allocator *a, uint64_t seed)
{
    rng r = {rv_hash64(seed ^ 0x0c0ffee)};
    if (z->inject_permille < 1000 && rng_below(&r, 1000) >= z->inject_permille) return RV_FUZZ_PASS;
    z->oracle_tried++; /* an oracle run: a corruption is attempted */
    rv_inject_result res;
    int kind = -1;
    for (unsigned t = 0; t < 3 && kind < 0; t++) {
        int k = z->inject_kind >= 0 && z->inject_kind < RV_INJ_COUNT_ ? z->inject_kind : (int)rng_below(&r, RV_INJ_COUNT_);
        z->oracle_kinds[k][RV_ORC_TRIED]++;
        rv_inject(out, (rv_inject_kind)k, rng_next(&r), &res);
        if (res.status == RV_INJ_CHANGED) kind = k;
        else z->oracle_kinds[k][res.status == RV_INJ_NO_SITE ? RV_ORC_NO_SITE : RV_ORC_UNCHANGED]++;
    }
    if (kind < 0) return RV_FUZZ_PASS;
    if (z->paths && paths_differ(z, f, out, a, seed, res.what)) return RV_FUZZ_BUG;
    uint64_t t0 = phase_start(z);
    bool accepted = check_out(z, out, f, NULL) == RAVEL_OK;
    phase_end(z, RV_PH_CHECK, t0);
    z->oracle_kinds[kind][accepted ? RV_ORC_ACCEPTED : RV_ORC_REJECTED]++;
    if (!accepted) {
        z->oracle_rejected++;
        return RV_FUZZ_PASS;
    }
    z->oracle_accepted++;
    char msg[1024];
    if (compare_runs(z, f, out, seed, msg, sizeof msg)) return RV_FUZZ_PASS;
    z->oracle_kinds[kind][RV_ORC_MISSED]++;
    write_miss(z, a, seed, (rv_inject_kind)kind, res.what, msg, out);
    return RV_FUZZ_BUG;
}

void rv_fuzz_mutant_judge(rv_fuzz *z, const ravel_func *f, const ravel_func *alloc, const rv_allocator *a,
                          rv_inject_kind k, uint64_t seed, rv_fuzz_mutant *m)
{
    memset(m, 0, sizeof *m);
    ravel_func *out = rv_func_clone(alloc);
    rv_inject_result res;
    m->status = rv_inject(out, k, seed, &res);
    snprintf(m->what, sizeof m->what, "%s", res.what);
    if (m->status == RV_INJ_CHANGED) {
        ravel_report *rep = NULL;
        m->rejected = check_out(z, out, f, &rep) != RAVEL_OK;
        for (size_t e = 0; rep && e < ravel_report_count(rep); e++) {
            const ravel_check_error *x = ravel_report_error(rep, e);
            if (e == 0) snprintf(m->first_kind, sizeof m->first_kind, "%s", x->kind);
            m->expected |= rv_inject_expected(k, x->kind);
        }
        if (rep && ravel_report_status(rep) == RAVEL_EINVAL && !m->first_kind[0])
            snprintf(m->first_kind, sizeof m->first_kind, "bad-input");
        ravel_report_free(rep);
        char msg[1024];
        m->different = !compare_runs(z, f, out, seed, msg, sizeof msg);
        if (m->different && !m->rejected) write_miss(z, a, seed, k, m->what, msg, out);
    }
    ravel_func_free(out);
}

/* Requires: f unallocated and valid SSA. Allocates f with a; if the checker
 * accepts that allocation, runs the checker oracle on it (oracle_on). (A
 * rejected original allocation is fuzz_alloc's business: RV_FUZZ_SKIP.) */
int rv_fuzz_oracle(rv_fuzz *z, const ravel_func *f, const rv_allocator *a, uint64_t seed)
{
    rv_alloc_opts ao = {.seed = seed};
    char *err = NULL;
    ravel_func *out = NULL;
    z->declined = false;
    uint64_t t0 = phase_start(z);
    int arc = rv_alloc_run(a, f, &ao, &out, &err);
    t0 = phase_end(z, RV_PH_ALLOCATE, t0);
    free(err);
    z->declined = arc == RAVEL_EDECLINED;
    if (!out) return RV_FUZZ_SKIP;
    int first = check_out(z, out, f, NULL);
    phase_end(z, RV_PH_CHECK, t0);
    int result = first == RAVEL_OK ? oracle_on(z, f, out, a, seed) : RV_FUZZ_SKIP;
    ravel_func_free(out);
    return result;
}

/* ---- the parser round trip -------------------------------------------------------- */

/* Prints a module into a malloc'd string. */
static char *module_text(const ravel_module *m, size_t *len)
{
    char *buf = NULL;
    *len = 0;
    FILE *fp = open_memstream(&buf, len);
    if (!fp) rv_oom();
    rv_print_module(fp, m);
    if (fclose(fp) != 0) rv_oom();
    return buf;
}

static ravel_module *parse_quiet(const char *text, size_t len, ravel_diags **d)
{
    *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, len, "<fuzz>", *d);
    if (m && ravel_diags_count(*d)) {
        ravel_module_free(m);
        m = NULL;
    }
    return m;
}

static bool modules_equal(const ravel_module *a, const ravel_module *b)
{
    if (ravel_module_nfuncs(a) != ravel_module_nfuncs(b)) return false;
    for (size_t i = 0; i < ravel_module_nfuncs(a); i++)
        if (!rv_func_equal(ravel_module_func(a, i), ravel_module_func(b, i))) return false;
    return true;
}

/* Beyond the round trip, every later stage must survive what parses:
 * validate, and (when valid) check or run with a small step limit. */
static void exercise(rv_fuzz *z, const ravel_module *m)
{
    for (size_t i = 0; i < ravel_module_nfuncs(m); i++) {
        const ravel_func *f = ravel_module_func(m, i);
        ravel_diags *d = ravel_diags_new();
        int v = ravel_validate(f, 0, d);
        ravel_diags_free(d);
        if (v == RAVEL_EINVAL) continue;
        if (rv_func_is_allocated(f)) {
            ravel_report *rep = NULL;
            ravel_check(z->ck, f, NULL, &rep);
            ravel_report_free(rep);
        }
        if (v != RAVEL_OK) continue; /* the interpreter requires a valid function */
        rv_run_result res;
        memset(&res, 0, sizeof res);
        rv_run_opts o = {.step_limit = 2000, .allocated = rv_func_is_allocated(f)};
        rv_interp_run(f, &o, &res);
        rv_run_result_free(&res);
    }
}

static int parse_bug(rv_fuzz *z, const char *what, const char *t1, size_t l1, const char *t2, size_t l2)
{
    FILE *fp = repro_begin(z, RV_FT_PARSE, NULL, 0);
    fprintf(fp, "# verdict: %s\n# first print:\n", what);
    put_comment(fp, t1, l1);
    if (t2) {
        fprintf(fp, "# second print:\n");
        put_comment(fp, t2, l2);
    }
    fputs("\n", fp);
    fwrite(t1, 1, l1, fp);
    repro_end(fp);
    return RV_FUZZ_BUG;
}

enum { PARSE_MAX_BYTES = 1 << 16 };

/* Any bytes: parse; if accepted, print -> parse -> print must be a
 * fixpoint, in text and structurally (rv_func_equal): x, t1 = print(x),
 * m1 = parse(t1), t2 = print(m1) with t1 == t2 and m1 equal to x. Then
 * parse(t2) is parse(t1) = m1 (the reader is a function of its text), so it
 * is not parsed a third time. */
int rv_fuzz_parse(rv_fuzz *z, const uint8_t *data, size_t size)
{
    if (size > PARSE_MAX_BYTES) return RV_FUZZ_SKIP;
    char *text = rv_xmalloc(size + 1);
    if (size) memcpy(text, data, size);
    text[size] = 0;
    ravel_diags *d0, *d1 = NULL;
    ravel_module *m0 = parse_quiet(text, size, &d0);
    ravel_module *m1 = NULL;
    char *t1 = NULL, *t2 = NULL;
    size_t l1 = 0, l2 = 0;
    int result = RV_FUZZ_SKIP;
    if (m0) {
        exercise(z, m0);
        t1 = module_text(m0, &l1);
        m1 = parse_quiet(t1, l1, &d1);
        if (!m1) {
            result = parse_bug(z, "the printed text does not parse", t1, l1, NULL, 0);
        } else {
            t2 = module_text(m1, &l2);
            if (l1 != l2 || memcmp(t1, t2, l1) != 0)
                result = parse_bug(z, "print(parse(print(x))) differs from print(x)", t1, l1, t2, l2);
            else if (!modules_equal(m0, m1))
                result = parse_bug(z, "parse(print(x)) is not structurally equal to x", t1, l1, NULL, 0);
            else
                result = RV_FUZZ_PASS;
        }
    }
    ravel_module_free(m0);
    ravel_module_free(m1);
    ravel_diags_free(d0);
    if (d1) ravel_diags_free(d1);
    free(t1);
    free(t2);
    free(text);
    return result;
}

/* ---- byte entry point ---------------------------------------------------------------- */

/* Generates the function of an input and checks that the generator kept its
 * promise (a valid SSA function); reports a bug otherwise. */
static int gen_input(rv_fuzz *z, rv_fuzz_target t, const uint8_t *data, size_t size, ravel_module **mod)
{
    uint64_t t0 = phase_start(z);
    *mod = rv_gen_from_bytes(data, size, &z->gen);
    t0 = phase_end(z, RV_PH_GENERATE, t0);
    if (!*mod || ravel_module_nfuncs(*mod) != 1) {
        FILE *fp = repro_begin(z, t, NULL, rv_hash_bytes(data, size));
        fprintf(fp, "# verdict: the generator returned no function\n");
        repro_end(fp);
        return RV_FUZZ_BUG;
    }
    const ravel_func *f = ravel_module_func(*mod, 0);
    ravel_diags *d = ravel_diags_new();
    int v = ravel_validate(f, RAVEL_VALIDATE_SSA, d);
    phase_end(z, RV_PH_VALIDATE, t0);
    if (v != RAVEL_OK) {
        FILE *fp = repro_begin(z, t, NULL, rv_hash_bytes(data, size));
        fprintf(fp, "# verdict: the generator produced an invalid function:\n");
        comment_diags(fp, d);
        put_func(fp, f, NULL);
        repro_end(fp);
    }
    ravel_diags_free(d);
    return v == RAVEL_OK ? RV_FUZZ_PASS : RV_FUZZ_BUG;
}

int rv_fuzz_bytes(rv_fuzz *z, rv_fuzz_target t, int alloc, const uint8_t *data, size_t size)
{
    if (t == RV_FT_PARSE) return rv_fuzz_parse(z, data, size);
    if (t == RV_FT_MOVES) return rv_fuzz_moves(z, data, size);
    size_t n = rv_fuzz_nallocators();
    if (n == 0 || alloc >= (int)n) return RV_FUZZ_SKIP;
    if (alloc < 0) {
        alloc = size ? data[0] % n : 0;
        if (size) data++, size--;
    }
    return rv_fuzz_bytes_alloc(z, t, &rv_allocators[alloc], data, size);
}

/* The mapping of every allocator target once its allocator is known (the
 * fuzzing kit's too, `ravel reduce --from-fuzz`): all bytes make the
 * function, their hash is the allocator's seed. */
int rv_fuzz_bytes_alloc(rv_fuzz *z, rv_fuzz_target t, const rv_allocator *a, const uint8_t *data, size_t size)
{
    if (!a || (t != RV_FT_ALLOC && t != RV_FT_DIFFERENTIAL && t != RV_FT_ORACLE)) return RV_FUZZ_SKIP;
    z->declined = false;
    uint64_t seed = rv_hash_bytes(data, size);
    ravel_module *mod = NULL;
    int r = gen_input(z, t, data, size, &mod);
    if (r == RV_FUZZ_PASS) {
        const ravel_func *f = ravel_module_func(mod, 0);
        if (t == RV_FT_ORACLE) r = rv_fuzz_oracle(z, f, a, seed);
        else r = rv_fuzz_alloc(z, f, a, seed, t == RV_FT_DIFFERENTIAL ? RV_FUZZ_DIFF : 0);
    }
    ravel_module_free(mod);
    return r;
}

/* ---- warm-up of the reused context ------------------------------------------------------- */

/* The checker context of a fuzz process is reused from one execution to the
 * next; its scratch grows on demand. A growth (a realloc, a rehash) is
 * taken by the first input that needs the room and not by the same input
 * run again, which a coverage-guided engine sees as an unstable input
 * (AFL++'s stability). The byte entry points' functions are bounded by
 * z->gen (max_insts, max_blocks, max_regs), so checking a few of the
 * largest before the engine starts grows the scratch to about what any
 * input reaches: later executions take the same paths whatever ran before
 * them. */
/* Checks corruptions of f's allocation by a, with and without a report:
 * the rules' errors and value numbering's "not proven" are where the
 * reference fixpoint and the report get their scratch. The parser's target
 * also checks without the original function. */
static void warm_corrupt(rv_fuzz *z, rv_fuzz_target t, const ravel_func *f, const rv_allocator *a, uint64_t seed,
                         unsigned i)
{
    rv_alloc_opts ao = {.seed = seed};
    char *err = NULL;
    ravel_func *out = NULL;
    rv_alloc_run(a, f, &ao, &out, &err);
    free(err);
    if (!out) return;
    rng r = {seed};
    for (unsigned c = 0; c < 4; c++) {
        ravel_report *rep = NULL;
        if (c) {
            rv_inject_result res;
            rv_inject(out, (rv_inject_kind)((i + c * 7) % RV_INJ_COUNT_), rng_next(&r), &res);
        }
        check_out(z, out, f, &rep);
        ravel_report_free(rep);
        check_out(z, out, f, NULL);
        if (t == RV_FT_PARSE) {
            rep = NULL;
            ravel_check(z->ck, out, NULL, &rep);
            ravel_report_free(rep);
        }
    }
    ravel_func_free(out);
}

enum { RV_WARM_SCALE = 4, RV_WARM_BYTE_INPUTS = 16 };

/* The warm-up with the table's allocator alloc (every one if alloc < 0),
 * or with a alone when a is not NULL (rv_fuzz_warm_up_alloc). */
static void warm_up(rv_fuzz *z, rv_fuzz_target t, int alloc, const rv_allocator *one, unsigned nfuncs)
{
    if (t == RV_FT_MOVES) return; /* no checker */
    size_t n = one ? 1 : rv_fuzz_nallocators();
    /* functions RV_WARM_SCALE times the largest the inputs can give: most
     * scratch grows with the function, so what an input needs stays below
     * what the warm-up left even where a dimension's maximum is rare */
    rv_gen_opts o = z->gen;
    o.max_insts *= RV_WARM_SCALE;
    o.max_blocks *= RV_WARM_SCALE;
    o.min_insts = o.max_insts;
    for (unsigned i = 0; i < nfuncs; i++) {
        uint64_t seed = rv_hash64(0x7761726dull + i);
        ravel_module *m = rv_gen_from_seed(seed, &o);
        const ravel_func *f = m && ravel_module_nfuncs(m) == 1 ? ravel_module_func(m, 0) : NULL;
        for (size_t k = 0; f && k < n; k++) {
            if (!one && alloc >= 0 && (size_t)alloc != k) continue;
            const rv_allocator *a = one ? one : &rv_allocators[k];
            if (t == RV_FT_ORACLE) rv_fuzz_oracle(z, f, a, seed);
            else rv_fuzz_alloc(z, f, a, seed, 0);
            warm_corrupt(z, t, f, a, seed, i);
        }
        ravel_module_free(m);
        /* and inputs as the engine makes them, of the inputs' own sizes:
         * some paths (value numbering's stackmap trials) depend on shapes
         * more than on size */
        rng r = {seed};
        for (unsigned j = 0; j < RV_WARM_BYTE_INPUTS; j++) {
            uint8_t buf[1024];
            size_t len = 16 + rng_below(&r, sizeof buf - 16);
            for (size_t b = 0; b < len; b++) buf[b] = (uint8_t)rng_next(&r);
            if (one) rv_fuzz_bytes_alloc(z, t, one, buf, len);
            else rv_fuzz_bytes(z, t, alloc, buf, len);
        }
    }
    /* what the warm-up found is not the engine's business (its inputs
     * find the same); its counts are not the campaign's */
    free(z->repro);
    z->repro = NULL;
    z->repro_len = 0;
    z->oracle_tried = z->oracle_rejected = z->oracle_accepted = 0;
    z->oracle_miss = z->paths_diff = z->declined = false;
    memset(z->oracle_kinds, 0, sizeof z->oracle_kinds);
}

void rv_fuzz_warm_up(rv_fuzz *z, rv_fuzz_target t, int alloc, unsigned nfuncs) { warm_up(z, t, alloc, NULL, nfuncs); }

void rv_fuzz_warm_up_alloc(rv_fuzz *z, rv_fuzz_target t, const rv_allocator *a, unsigned nfuncs)
{
    if (a) warm_up(z, t, -1, a, nfuncs);
}

/* ---- reproducer replay ------------------------------------------------------------------ */

/* Finds "# KEY: VALUE" in the comment lines of text; copies VALUE (one word). */
bool rv_fuzz_header(const char *text, size_t len, const char *key, char *out, size_t outlen)
{
    size_t klen = strlen(key);
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && text[j] != '\n') j++;
        size_t p = i;
        while (p < j && (text[p] == ' ' || text[p] == '\t')) p++;
        if (p < j && text[p] == '#') {
            p++;
            while (p < j && text[p] == ' ') p++;
            if (j - p > klen && memcmp(text + p, key, klen) == 0 && text[p + klen] == ':') {
                p += klen + 1;
                while (p < j && text[p] == ' ') p++;
                size_t q = p;
                while (q < j && text[q] != ' ' && text[q] != '\t' && text[q] != '\r') q++;
                if (q - p >= outlen) return false;
                memcpy(out, text + p, q - p);
                out[q - p] = 0;
                return true;
            }
        }
        i = j + 1;
    }
    return false;
}

static int replay_fail(rv_fuzz *z, const char *name, const char *why, const ravel_diags *d)
{
    FILE *fp = repro_begin(z, RV_FT_ALLOC, NULL, 0);
    fprintf(fp, "# replay of %s: %s\n", name, why);
    if (d) comment_diags(fp, d);
    repro_end(fp);
    return RV_FUZZ_BUG;
}

/* One function of a reproducer: the written verdict, then re-allocation. */
static int replay_func(rv_fuzz *z, const ravel_func *f, const char *name, const char *alloc, const char *expect,
                       uint64_t seed)
{
    ravel_func *orig = rv_func_is_allocated(f) ? rv_func_strip(f) : rv_func_clone(f);
    int result = RV_FUZZ_PASS;
    if (rv_func_is_allocated(f) && *expect) {
        int rc = ravel_check(z->ck, f, orig, NULL);
        bool want_ok = strcmp(expect, "accept") == 0;
        if ((rc == RAVEL_OK) != want_ok) result = replay_fail(z, name, want_ok ? "the checker rejects the allocation (expect: accept)" : "the checker accepts the allocation (expect: reject)", NULL);
    }
    ravel_diags *d = ravel_diags_new();
    bool ssa = ravel_validate(orig, RAVEL_VALIDATE_SSA, d) == RAVEL_OK;
    ravel_diags_free(d);
    for (size_t i = 0; ssa && result == RV_FUZZ_PASS && rv_allocators[i].name; i++)
        if (strcmp(alloc, "all") == 0 || strcmp(alloc, rv_allocators[i].name) == 0)
            result = rv_fuzz_alloc(z, orig, &rv_allocators[i], seed, RV_FUZZ_DIFF);
    ravel_func_free(orig);
    return result;
}

int rv_fuzz_replay_ra(rv_fuzz *z, const char *text, size_t len, const char *name)
{
    char alloc[64] = "all", expect[16] = "", seedtxt[32] = "0";
    rv_fuzz_header(text, len, "allocator", alloc, sizeof alloc);
    rv_fuzz_header(text, len, "expect", expect, sizeof expect);
    rv_fuzz_header(text, len, "seed", seedtxt, sizeof seedtxt);
    uint64_t seed = strtoull(seedtxt, NULL, 0);
    char cmd[4096];
    if (rv_fuzz_header(text, len, "alloc-cmd", cmd, sizeof cmd)) { /* `ravel fuzz --alloc-cmd`'s */
        replay_fail(z, name, "a reproducer of an external allocator (# alloc-cmd:): not replayed against the built-in "
                             "ones (ravel reduce --alloc-cmd CMD reruns the command)", NULL);
        return RV_FUZZ_SKIP;
    }
    if (strcmp(alloc, "all") != 0 && rv_fuzz_allocator_index(alloc) < 0)
        return replay_fail(z, name, "the allocator named in the header does not exist", NULL);
    if (*expect && strcmp(expect, "accept") != 0 && strcmp(expect, "reject") != 0)
        return replay_fail(z, name, "bad 'expect:' (accept or reject)", NULL);
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, len, name, d);
    int result = RV_FUZZ_PASS;
    if (!m || ravel_diags_count(d)) {
        result = replay_fail(z, name, "does not parse", d);
    } else {
        for (size_t i = 0; result == RV_FUZZ_PASS && i < ravel_module_nfuncs(m); i++) {
            const ravel_func *f = ravel_module_func(m, i);
            if (ravel_validate(f, 0, d) == RAVEL_EINVAL) result = replay_fail(z, name, "does not validate", d);
            else result = replay_func(z, f, name, alloc, expect, seed);
        }
    }
    ravel_module_free(m);
    ravel_diags_free(d);
    return result;
}

/* ---- the parallel-move resolver ------------------------------------------------------------ */

/* Input bytes, read one at a time; 0 when exhausted. */
typedef struct bytes { const uint8_t *p; size_t n; } bytes;
static uint8_t take(bytes *b) { return b->n ? (b->n--, *b->p++) : 0; }

enum { MV_SLOTS = 8, MV_NEW_SLOT = 100, MV_MAX = 24 };

typedef struct mv_case {
    ravel_machine *m;
    rv_move moves[MV_MAX];
    uint32_t n;
    uint64_t scratch[1]; /* bitset over <= 64 registers */
    uint32_t new_slots;  /* calls of new_slot */
    bool dup;            /* a dst appears twice: the resolver must refuse */
} mv_case;

static uint32_t mv_new_slot(void *ctx)
{
    mv_case *c = ctx;
    return MV_NEW_SLOT + c->new_slots++;
}

/* A register of class cls, the k-th (mod count). */
static ravel_loc mv_reg(const ravel_machine *m, uint32_t cls, uint8_t k)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->regs.len; i++) n += m->regs.data[i].cls == cls;
    k = (uint8_t)(k % n);
    for (uint32_t i = 0; i < m->regs.len; i++)
        if (m->regs.data[i].cls == cls && k-- == 0) return i;
    return 0;
}

static ravel_loc mv_loc(bytes *b, const ravel_machine *m, uint32_t cls)
{
    uint8_t x = take(b);
    return (x & 3) == 0 ? ravel_slot((x >> 2) % MV_SLOTS) : mv_reg(m, cls, (uint8_t)(x >> 2));
}

/* Builds a machine (1-3 classes of 1-6 registers, some reserved) and a move
 * set from the bytes. */
static void mv_build(mv_case *c, bytes *b)
{
    memset(c, 0, sizeof *c);
    c->m = ravel_machine_new();
    uint32_t ncls = 1 + take(b) % 3;
    for (uint32_t k = 0; k < ncls; k++) {
        char name[32];
        snprintf(name, sizeof name, "c%u", k);
        int cls = ravel_machine_add_class(c->m, name);
        uint32_t nregs = 1 + take(b) % 6;
        uint8_t reserved = take(b);
        for (uint32_t r = 0; r < nregs; r++) {
            snprintf(name, sizeof name, "c%ur%u", k, r);
            ravel_machine_add_reg(c->m, name, cls, r > 0 && ((reserved >> r) & 1));
        }
    }
    uint32_t want = take(b) % (MV_MAX + 1);
    bool allow_dup = take(b) % 16 == 0;
    for (uint32_t k = 0; k < want && b->n; k++) {
        rv_move mv = {.cls = take(b) % ncls};
        mv.dst = mv_loc(b, c->m, mv.cls);
        mv.src = mv_loc(b, c->m, mv.cls);
        /* a repeated dst is a duplicate the resolver must refuse when both
         * moves copy something (identity moves are dropped first) */
        bool seen = false, identity = mv.dst == mv.src;
        for (uint32_t j = 0; j < c->n; j++)
            if (c->moves[j].dst == mv.dst) seen = true, identity |= c->moves[j].src == mv.dst;
        if (seen && (!allow_dup || identity)) continue;
        c->dup |= seen;
        c->moves[c->n++] = mv;
    }
    /* scratch: registers named by no move, each kept with probability 1/2 */
    uint64_t used = 0, bits = (uint64_t)take(b) << 8; /* two takes: in this order whatever the compiler */
    bits |= take(b);
    for (uint32_t k = 0; k < c->n; k++) {
        if (ravel_loc_is_reg(c->moves[k].dst)) used |= 1ull << c->moves[k].dst;
        if (ravel_loc_is_reg(c->moves[k].src)) used |= 1ull << c->moves[k].src;
    }
    for (uint32_t r = 0; r < c->m->regs.len; r++)
        if (!((used >> r) & 1) && ((bits >> (r % 16)) & 1)) rv_bs_set(c->scratch, r);
}

/* Location -> index into the simulated state: registers, then slots 0..7,
 * then slots from new_slot. */
static uint32_t mv_index(const mv_case *c, ravel_loc l)
{
    uint32_t nr = c->m->regs.len;
    if (ravel_loc_is_reg(l)) return l < nr ? l : RAVEL_NONE;
    uint32_t s = ravel_loc_slot(l);
    if (s < MV_SLOTS) return nr + s;
    if (s >= MV_NEW_SLOT && s < MV_NEW_SLOT + c->new_slots) return nr + MV_SLOTS + (s - MV_NEW_SLOT);
    return RAVEL_NONE;
}

static void mv_describe(FILE *fp, const mv_case *c, const rv_pmove *pm)
{
    char a[32], b[32];
    fprintf(fp, "#\n# machine:\n");
    for (uint32_t r = 0; r < c->m->regs.len; r++)
        fprintf(fp, "#   %s class %u%s%s\n", c->m->regs.data[r].name, c->m->regs.data[r].cls,
                c->m->regs.data[r].reserved ? " reserved" : "", rv_bs_test(c->scratch, r) ? " scratch" : "");
    fprintf(fp, "# parallel moves:\n");
    for (uint32_t k = 0; k < c->n; k++)
        fprintf(fp, "#   %s := %s (class %u)\n", rv_loc_str(c->m, c->moves[k].dst, a), rv_loc_str(c->m, c->moves[k].src, b),
                c->moves[k].cls);
    fprintf(fp, "# emitted (%u slot%s from new_slot):\n", c->new_slots, c->new_slots == 1 ? "" : "s");
    for (uint32_t k = 0; k < pm->out.len; k++)
        fprintf(fp, "#   %s = %s %s\n", rv_loc_str(c->m, pm->out.data[k].dst, a), rv_opcode_name(pm->out.data[k].kind) ? rv_opcode_name(pm->out.data[k].kind) : "?",
                rv_loc_str(c->m, pm->out.data[k].src, b));
}

/* Executes the emitted edits on a state where every location holds its own
 * token; returns NULL if all is right, else what is wrong. */
static const char *mv_simulate(const mv_case *c, const rv_pmove *pm)
{
    uint32_t nloc = c->m->regs.len + MV_SLOTS + c->new_slots;
    uint32_t *val = rv_xmalloc(sizeof *val * nloc);
    for (uint32_t i = 0; i < nloc; i++) val[i] = i;
    const char *why = NULL;
    for (uint32_t k = 0; !why && k < pm->out.len; k++) {
        const rv_edit *e = &pm->out.data[k];
        uint32_t d = mv_index(c, e->dst), s = mv_index(c, e->src);
        if (d == RAVEL_NONE || s == RAVEL_NONE) why = "an edit names a location that is not a register, a move slot or a new_slot slot";
        else if (e->kind != rv_edit_kind(e->dst, e->src) || e->kind == RAVEL_OP_OTHER) why = "an edit's kind does not match its locations (or copies slot to slot)";
        else val[d] = val[s];
    }
    for (uint32_t k = 0; !why && k < c->n; k++)
        if (val[mv_index(c, c->moves[k].dst)] != mv_index(c, c->moves[k].src)) why = "a destination does not hold its source's value";
    for (uint32_t i = 0; !why && i < c->m->regs.len + MV_SLOTS; i++) {
        bool dst = false;
        for (uint32_t k = 0; k < c->n; k++) dst |= mv_index(c, c->moves[k].dst) == i;
        bool scratch = i < c->m->regs.len && rv_bs_test(c->scratch, i);
        if (!dst && !scratch && val[i] != i) why = "a location that is neither a destination nor scratch was modified";
    }
    if (!why && c->new_slots > 2) why = "new_slot was called more than twice";
    free(val);
    return why;
}

/* Random move sets: the resolver's output, executed, must put every source
 * in its destinations and leave every other location (outside the scratch
 * registers and new_slot slots) as it was; duplicate destinations must be
 * refused. */
int rv_fuzz_moves(rv_fuzz *z, const uint8_t *data, size_t size)
{
    bytes b = {data, size};
    mv_case c;
    mv_build(&c, &b);
    rv_pmove pm;
    rv_pmove_init(&pm);
    int rc = rv_pmove_resolve(&pm, c.m, c.moves, c.n, c.scratch, mv_new_slot, &c);
    const char *why = NULL;
    if (c.dup) why = rc == RAVEL_EINVAL && pm.out.len == 0 ? NULL : "a duplicate destination was not refused";
    else if (rc != RAVEL_OK) why = "the resolver refused a valid move set";
    else why = mv_simulate(&c, &pm);
    if (why) {
        FILE *fp = repro_begin(z, RV_FT_MOVES, NULL, rv_hash_bytes(data, size));
        fprintf(fp, "# verdict: %s\n", why);
        mv_describe(fp, &c, &pm);
        repro_end(fp);
    }
    rv_pmove_free(&pm);
    ravel_machine_free(c.m);
    return why ? RV_FUZZ_BUG : RV_FUZZ_PASS;
}
