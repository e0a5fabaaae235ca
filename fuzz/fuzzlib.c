/* fuzzlib.c - the one-input oracles of the fuzz targets (campaign.h;
 * fuzzlib.h maps the files): the context, reproducer text, the
 * interpreter's input vectors, the checker call, the byte entry points and
 * the warm-up of a reused context.
 *
 * Requires: nothing of an input beyond what each entry point says.
 * Guarantees: no crash on any input; a bug leaves its reproducer in
 * z->repro.
 */
#define _GNU_SOURCE /* open_memstream */
#include "fuzz/fuzzlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- the context ---- */

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
    z->inj = rv_injector_new();
    z->step_limit = 20000;
    z->nvectors = 4;
    z->inject_permille = 1000;
    z->inject_kind = -1;
    z->redefine_permille = 250;
    rv_gen_opts_default(&z->gen);
    return z;
}

void rv_fuzz_free(rv_fuzz *z)
{
    if (!z) return;
    ravel_checker_free(z->ck);
    rv_injector_free(z->inj);
    rv_free(z->repro);
    rv_free(z);
}

/* ---- reproducer text -------------------------------------------------------- */

/* Starts a new reproducer in z->repro; the caller writes to the stream and
 * calls fz_repro_end. */
FILE *fz_repro_begin(rv_fuzz *z, rv_fuzz_target t, const char *alloc, uint64_t seed)
{
    rv_free(z->repro);
    z->repro = NULL;
    z->repro_len = 0;
    FILE *fp = open_memstream(&z->repro, &z->repro_len);
    if (!fp) rv_oom();
    fprintf(fp, "# ravel fuzz reproducer\n# target: %s\n", rv_fuzz_target_name(t));
    if (alloc) fprintf(fp, "# allocator: %s\n", alloc);
    fprintf(fp, "# seed: 0x%016" PRIx64 "\n", seed);
    return fp;
}

void fz_repro_end(FILE *fp)
{
    if (fclose(fp) != 0) rv_oom();
}

/* Writes text as comment lines "#   ...". */
void fz_put_comment(FILE *fp, const char *text, size_t len)
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
void fz_comment_report(FILE *fp, const ravel_report *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) rv_oom();
    ravel_report_print(m, r);
    fclose(m);
    fz_put_comment(fp, buf, len);
    rv_free(buf);
}

void fz_comment_diags(FILE *fp, const ravel_diags *d)
{
    size_t len;
    char *buf = rv_diags_text(d, &len);
    fz_put_comment(fp, buf, len);
    rv_free(buf);
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
    rv_free(buf);
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

void fz_put_func(FILE *fp, const ravel_func *f, const rv_allocator *a)
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
bool fz_compare_runs(rv_fuzz *z, const ravel_func *orig, const ravel_func *alloc, uint64_t seed, char *msg,
                         size_t msglen)
{
    for (unsigned k = 0; k < z->nvectors; k++) {
        uint64_t in[NINPUTS];
        make_vector(seed, k, in);
        rv_run_opts o = {.inputs = in, .ninputs = NINPUTS, .step_limit = z->step_limit,
                         .moving_gc = !orig->mach->gc_nonmoving, .undef_seed = rv_interp_undef_seed(seed, k)};
        char m[512] = "";
        if (!rv_interp_compare(orig, alloc, &o, m, sizeof m)) {
            snprintf(msg, msglen, "input vector %u (%" PRIu64 ", %" PRIu64 ", ...)%s: %s", k, in[0], in[1],
                     o.moving_gc ? " with the moving collector" : "", m);
            return false;
        }
    }
    return true;
}

/* ravel_check of out against f, which the caller validated (the
 * requirement of rv_fuzz_alloc and rv_fuzz_oracle): the checker need not
 * look at f on its own (RAVEL_CHECK_ORIG_VALID). Without rep only the
 * verdict is wanted (RAVEL_CHECK_VERDICT_ONLY: the oracle's corrupted
 * allocations are mostly rejected, and their reports cost more than the
 * check). */
int fz_check_out(rv_fuzz *z, const ravel_func *out, const ravel_func *f, ravel_report **rep)
{
    unsigned opts = ravel_checker_options(z->ck);
    ravel_checker_set_options(z->ck, opts | RAVEL_CHECK_ORIG_VALID | (rep ? 0 : RAVEL_CHECK_VERDICT_ONLY));
    int rc = ravel_check(z->ck, out, f, rep);
    ravel_checker_set_options(z->ck, opts);
    return rc;
}

/* ---- byte entry point ---------------------------------------------------------------- */

/* Generates the function of an input; reports a bug if the generator made
 * none, or (z->validate_gen) if it broke its promise of a valid SSA
 * function. The validator is skipped by default: it cost about a third of
 * the check's time per execution, and the generator's validity is a test's
 * (fuzz.gen_valid), not every execution's. */
static int gen_input(rv_fuzz *z, rv_fuzz_target t, const uint8_t *data, size_t size, ravel_module **mod)
{
    uint64_t t0 = fz_phase_start(z);
    *mod = rv_gen_from_bytes(data, size, &z->gen);
    t0 = fz_phase_end(z, RV_PH_GENERATE, t0);
    if (!*mod || ravel_module_nfuncs(*mod) != 1) {
        FILE *fp = fz_repro_begin(z, t, NULL, rv_hash_bytes(data, size));
        fprintf(fp, "# verdict: the generator returned no function\n");
        fz_repro_end(fp);
        return RV_FUZZ_BUG;
    }
    if (!z->validate_gen) return RV_FUZZ_PASS;
    const ravel_func *f = ravel_module_func(*mod, 0);
    ravel_diags *d = ravel_diags_new();
    int v = ravel_validate(f, RAVEL_VALIDATE_SSA, d);
    fz_phase_end(z, RV_PH_VALIDATE, t0);
    if (v != RAVEL_OK) {
        FILE *fp = fz_repro_begin(z, t, NULL, rv_hash_bytes(data, size));
        fprintf(fp, "# verdict: the generator produced an invalid function:\n");
        fz_comment_diags(fp, d);
        fz_put_func(fp, f, NULL);
        fz_repro_end(fp);
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
    rv_free(err);
    if (!out) return;
    rng r = {seed};
    for (unsigned c = 0; c < 4; c++) {
        ravel_report *rep = NULL;
        if (c) {
            rv_inject_result res;
            rv_inject(out, (rv_inject_kind)((i + c * 7) % RV_INJ_COUNT_), rng_next(&r), &res);
        }
        fz_check_out(z, out, f, &rep);
        ravel_report_free(rep);
        fz_check_out(z, out, f, NULL);
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
    rv_free(z->repro);
    z->repro = NULL;
    z->repro_len = 0;
    z->oracle_tried = z->oracle_rejected = z->oracle_accepted = 0;
    z->oracle_miss = z->paths_diff = z->declined = false;
    memset(z->oracle_kinds, 0, sizeof z->oracle_kinds);
    z->oracle_redefs = 0;
}

void rv_fuzz_warm_up(rv_fuzz *z, rv_fuzz_target t, int alloc, unsigned nfuncs) { warm_up(z, t, alloc, NULL, nfuncs); }

void rv_fuzz_warm_up_alloc(rv_fuzz *z, rv_fuzz_target t, const rv_allocator *a, unsigned nfuncs)
{
    if (a) warm_up(z, t, -1, a, nfuncs);
}

