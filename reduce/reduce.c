/* reduce.c - the reducer's driver: ddmin-style chunking over each pass's
 * items (all at once, halves, quarters, ... single items), the passes
 * repeated until a whole round changes nothing, a cache of every candidate
 * tested (by the hash of its canonical text), the time budget, progress,
 * and the reduced reproducer's text (header kept, `# reduced-from:` added).
 */
#define _DEFAULT_SOURCE
#include "reduce/rd.h"

#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

/* The passes, in the order a round runs them: big cuts first. */
static const rd_pass *const passes[] = {
    &rd_pass_cut_blocks, &rd_pass_edges,     &rd_pass_insts,       &rd_pass_values,
    &rd_pass_edits,      &rd_pass_bypass,    &rd_pass_merge,       &rd_pass_operands,
    &rd_pass_attrs,      &rd_pass_smap,      &rd_pass_clobber_regs, &rd_pass_constraints,
    &rd_pass_imm_zero,   &rd_pass_imm_halve, &rd_pass_regs,         &rd_pass_classes,
    &rd_pass_mach_clobbers, &rd_pass_gc,
};

void rv_reduce_opts_default(rv_reduce_opts *o)
{
    memset(o, 0, sizeof *o);
    o->mode = RV_RD_CHECK;
    o->keep = RV_KEEP_KIND;
    o->inputs = 100;
    o->target = RV_FT_ALLOC;
    o->test_timeout = 10;
}

typedef struct ctx {
    const rv_reduce_opts *o;
    rd_oracle *q;
    rd_result ref;        /* the input's verdict */
    unsigned vflags;      /* validator flags a candidate must pass */
    bool allow_efail;     /* an allocated input that breaks a structural rule */
    bool orig_ssa;        /* CHECK: the stripped form must be valid SSA */
    const char *header;   /* the input's text, for its header lines */
    size_t header_len;
    rv_map cache;         /* text hash -> 1 interesting, 2 not */
    rd_func cur;
    uint64_t cur_hash;
    rv_reduce_stats *st;
    double t0, deadline, last_progress;
    const char *pass;
    bool replay;          /* a reproducer (banner): candidates must replay as the input does */
    int replay_ref;
    bool stop;
    char *err;
} ctx;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- text ---------------------------------------------------------------------- */

/* The canonical text of r (machine, blank line, function), or NULL if the
 * builder refuses it. */
static char *func_text(const rd_func *r, size_t *len)
{
    ravel_machine *m = NULL;
    ravel_func *f = rd_build(r, &m);
    char *buf = NULL;
    *len = 0;
    if (f) {
        FILE *fp = open_memstream(&buf, len);
        if (!fp) rv_oom();
        ravel_print_machine(fp, m);
        fputc('\n', fp);
        ravel_print_func(fp, f);
        if (fclose(fp) != 0) rv_oom();
    }
    ravel_func_free(f);
    if (m) ravel_machine_free(m);
    return buf;
}

static uint32_t count_lines(const char *s, size_t n)
{
    uint32_t k = 0;
    for (size_t i = 0; i < n; i++) k += s[i] == '\n';
    return k;
}

/* The `# KEY: ...` line of the input's header, whole, or NULL. */
static bool header_line(const ctx *c, const char *key, const char **line, size_t *len)
{
    size_t kl = strlen(key);
    for (size_t i = 0; c->header && i < c->header_len;) {
        size_t j = i;
        while (j < c->header_len && c->header[j] != '\n') j++;
        if (j - i > kl + 2 && c->header[i] == '#' && c->header[i + 1] == ' ' &&
            !memcmp(c->header + i + 2, key, kl) && c->header[i + 2 + kl] == ':') {
            *line = c->header + i;
            *len = j - i;
            return true;
        }
        if (j - i && c->header[i] != '#') break; /* the header ends at the first non-comment line */
        i = j + 1;
    }
    return false;
}

static bool has_banner(const ctx *c)
{
    return c->header && c->header_len >= 23 && !memcmp(c->header, "# ravel fuzz reproducer", 23);
}

/* The header: the input's banner and keys, then reduced-from. With -a the
 * target, allocator and seed are those the reduction used (what a replay
 * must re-run), and an `expect:` about the input's own allocation goes. */
static void put_header(FILE *fp, const ctx *c, bool final)
{
    static const char *const keys[] = {"target", "allocator", "seed", "expect", "status"};
    bool alloc = c->o->mode == RV_RD_ALLOC;
    if (has_banner(c) || alloc) fputs("# ravel fuzz reproducer\n", fp);
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        const char *l;
        size_t n;
        if (alloc && k == 0)
            fprintf(fp, "# target: %s\n", rv_fuzz_target_name(c->o->compare ? RV_FT_DIFFERENTIAL : c->o->target));
        else if (alloc && k == 1) fprintf(fp, "# allocator: %s\n", c->o->alloc->name);
        else if (alloc && k == 2) fprintf(fp, "# seed: 0x%016" PRIx64 "\n", c->o->seed);
        else if (alloc && k == 3) continue;
        else if (header_line(c, keys[k], &l, &n)) fprintf(fp, "%.*s\n", (int)n, l);
        else if (k == 4 && c->o->status_open) fputs("# status: open\n", fp);
    }
    if (final) fprintf(fp, "# reduced-from: %u lines, %u instructions\n", c->st->lines_before, c->st->insts_before);
}


/* What a command (and the replay) sees: the header, the unallocated form of
 * an allocated f as `#| ` lines, then the function. */
static char *command_text(const ctx *c, const ravel_func *f, const char *body, size_t blen, size_t *len)
{
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, len);
    if (!fp) rv_oom();
    put_header(fp, c, false);
    if (f && rv_func_is_allocated(f)) rv_fuzz_put_unallocated(fp, f);
    fputc('\n', fp);
    fwrite(body, 1, blen, fp);
    if (fclose(fp) != 0) rv_oom();
    return buf;
}

/* ---- testing a candidate ---------------------------------------------------------------- */

static void progress(ctx *c, bool force)
{
    if (!c->o->progress) return;
    double t = now_s();
    if (!force && t - c->last_progress < 0.2) return;
    c->last_progress = t;
    fprintf(c->o->progress_out ? c->o->progress_out : stderr,
            "\rravel reduce: %.1fs round %" PRIu64 " %-16s %u instructions (from %u), %" PRIu64 " tests, %" PRIu64
            " cached \033[K",
            t - c->t0, c->st->rounds + 1, c->pass ? c->pass : "", rd_ninsts(&c->cur), c->st->insts_before,
            c->st->tests, c->st->cache_hits);
    fflush(c->o->progress_out ? c->o->progress_out : stderr);
}

static bool valid(const ctx *c, const ravel_func *f)
{
    ravel_diags *d = ravel_diags_new();
    int v = ravel_validate(f, c->vflags, d);
    bool ok = v == RAVEL_OK || (v == RAVEL_EFAIL && c->allow_efail);
    if (ok && c->orig_ssa) {
        ravel_func *orig = rv_func_strip(f);
        ok = ravel_validate(orig, RAVEL_VALIDATE_SSA, d) == RAVEL_OK;
        ravel_func_free(orig);
    }
    ravel_diags_free(d);
    return ok;
}

/* Parses, validates and tests text; *r gets the verdict. Returns -1 if the
 * candidate is invalid, 0 if the test could not run (c->err). */
static int test_text(ctx *c, const char *text, size_t len, bool want_text, rd_result *r)
{
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, len, "<candidate>", d);
    int res = -1;
    if (m && !ravel_diags_count(d) && ravel_module_nfuncs(m) == 1 && valid(c, ravel_module_func(m, 0))) {
        size_t clen = len;
        char *ctext = c->o->mode == RV_RD_COMMAND ? command_text(c, ravel_module_func(m, 0), text, len, &clen) : NULL;
        res = rd_oracle_run(c->q, ravel_module_func(m, 0), ctext ? ctext : text, clen, want_text, r, &c->err) ? 1 : 0;
        rv_free(ctext);
    }
    ravel_module_free(m);
    ravel_diags_free(d);
    return res;
}

/* The replay's result on the reproducer the candidate text would become. */
static int replay_of(ctx *c, const char *body, size_t blen)
{
    size_t len;
    char *t = command_text(c, NULL, body, blen, &len);
    int r = rd_oracle_replay(c->q, t, len);
    rv_free(t);
    return r;
}

/* Tests cand; if it keeps the property it becomes the current function
 * (taking cand over) and true is returned; else cand is freed. */
static bool try_accept(ctx *c, rd_func *cand)
{
    size_t len;
    char *text = func_text(cand, &len);
    uint64_t h = text ? rv_hash_bytes(text, len) : 0;
    int verdict = 2;
    if (!text) {
        c->st->invalid++;
    } else if (h == c->cur_hash) {
        verdict = 2;
    } else if ((verdict = (int)rv_map_get(&c->cache, h, 0)) != 0) {
        c->st->cache_hits++;
    } else if (c->deadline && now_s() > c->deadline) {
        c->stop = c->st->timed_out = true;
        verdict = 2;
    } else {
        rd_result r;
        int t = test_text(c, text, len, false, &r);
        if (t > 0 && r.outcome == RD_STOPPED) { /* the budget ran out: no verdict, nothing cached */
            rd_result_free(&r);
            t = 0;
            c->st->timed_out = true;
        }
        if (t < 0) c->st->invalid++;
        else if (t == 0) c->stop = true;
        else c->st->tests++;
        verdict = t > 0 && rd_oracle_keeps(c->o, &c->ref, &r) ? 1 : 2;
        if (t > 0) rd_result_free(&r);
        int rr = verdict == 1 && c->replay ? replay_of(c, text, len) : c->replay_ref;
        if (rr == -3) { /* the budget ran out in the replay */
            verdict = 2;
            t = 0;
            c->stop = c->st->timed_out = true;
        } else if (rr != c->replay_ref) {
            verdict = 2;
        }
        if (t != 0) rv_map_put(&c->cache, h, (uint32_t)verdict);
    }
    rv_free(text);
    progress(c, false);
    if (verdict != 1) {
        rd_free(cand);
        return false;
    }
    rd_free(&c->cur);
    c->cur = *cand;
    c->cur_hash = h;
    return true;
}

/* One pass, ddmin-style: chunks of n, n/2, ..., 1 items. */
static bool run_pass(ctx *c, const rd_pass *p)
{
    bool progressed = false;
    c->pass = p->name;
    uint32_t n = p->count(&c->cur);
    for (uint32_t chunk = n; chunk && !c->stop; chunk = chunk == 1 ? 0 : (chunk + 1) / 2) {
        for (uint32_t i = 0; !c->stop;) {
            uint32_t cnt = p->count(&c->cur);
            if (i >= cnt) break;
            rd_func cand;
            rd_clone(&cand, &c->cur);
            bool changed = p->apply(&cand, i, i + chunk < cnt ? i + chunk : cnt);
            if (!changed) {
                rd_free(&cand);
                i += chunk;
            } else if (try_accept(c, &cand)) {
                progressed = true;
                if (p->count(&c->cur) >= cnt) i += chunk; /* items stay: move on */
            } else {
                i += chunk;
            }
        }
    }
    return progressed;
}

/* Rounds of every pass until one changes nothing, then dense renumbering. */
static void reduce_loop(ctx *c)
{
    for (bool more = true; more && !c->stop; c->st->rounds++) {
        more = false;
        for (size_t k = 0; k < sizeof passes / sizeof *passes && !c->stop; k++) more |= run_pass(c, passes[k]);
    }
    if (c->stop) return;
    rd_func cand;
    rd_clone(&cand, &c->cur);
    rd_renumber(&cand);
    c->pass = "renumber";
    try_accept(c, &cand);
}

/* ---- the result's text ---------------------------------------------------------------- */

static void put_comment(FILE *fp, const char *text)
{
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        fprintf(fp, "#   %.*s\n", (int)n, p);
        p += n + (e != NULL);
    }
}

/* The verdict lines of CHECK mode: the checker's report, or the difference. */
static void put_check_verdict(FILE *fp, ctx *c, const ravel_func *f)
{
    ravel_func *orig = rv_func_strip(f);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) rv_oom();
    if (c->o->compare) {
        char msg[512] = "";
        rd_differs(c->o, orig, f, msg, sizeof msg);
        fprintf(fp, "# verdict: the allocated and unallocated forms differ (ravel run --compare):\n");
        fputs(msg, m);
    } else {
        ravel_report *rep = NULL;
        ravel_checker *ck = ravel_checker_new();
        ravel_check(ck, f, orig, &rep);
        ravel_checker_free(ck);
        fprintf(fp, "# verdict: the checker rejects the allocation:\n");
        if (rep) ravel_report_print(m, rep);
        ravel_report_free(rep);
    }
    fclose(m);
    put_comment(fp, buf ? buf : "");
    rv_free(buf);
    ravel_func_free(orig);
}

/* Writes the reduced reproducer: header, verdict, body. */
static char *result_text(ctx *c)
{
    size_t blen, len = 0;
    char *body = func_text(&c->cur, &blen), *out = NULL;
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(body, blen, NULL, d);
    const ravel_func *f = ravel_module_func(m, 0);
    rd_result r;
    memset(&r, 0, sizeof r);
    if (c->o->mode == RV_RD_ALLOC) test_text(c, body, blen, true, &r);
    FILE *fp = open_memstream(&out, &len);
    if (!fp) rv_oom();
    put_header(fp, c, true);
    const char *skip = r.text;
    if (c->o->mode == RV_RD_ALLOC && skip) {
        /* the harness's reproducer: keep it from its verdict on */
        const char *v = strstr(skip, "# verdict: ");
        fputs(v ? v : skip, fp);
    } else {
        if (c->o->mode == RV_RD_CHECK) put_check_verdict(fp, c, f);
        else if (c->o->mode == RV_RD_COMMAND) fprintf(fp, "# verdict: interesting for the command: %s\n", c->o->command);
        else if (r.outcome == RD_CRASH) fprintf(fp, "# verdict: the allocator crashed (%s)\n", r.kind);
        else if (r.outcome == RD_HANG) fprintf(fp, "# verdict: the allocator ran longer than %g s\n", c->o->test_timeout);
        else if (r.outcome == RD_DIFFERS) fprintf(fp, "# verdict: the allocation differs under ravel run --compare:\n");
        else if (r.outcome == RD_FAIL) fprintf(fp, "# verdict: allocation failed:\n");
        else fprintf(fp, "# verdict: %s\n", rd_outcome_name(r.outcome));
        if (r.detail) put_comment(fp, r.detail);
        rv_fuzz_put_how(fp, f, c->o->mode == RV_RD_ALLOC ? c->o->alloc : NULL);
        fputc('\n', fp);
        fwrite(body, 1, blen, fp);
    }
    if (fclose(fp) != 0) rv_oom();
    rd_result_free(&r);
    ravel_module_free(m);
    ravel_diags_free(d);
    rv_free(body);
    return out;
}

/* ---- entry ---------------------------------------------------------------------------- */

/* Validation demands of the input, by mode; false (c->err) if unusable. */
static bool input_rules(ctx *c, const ravel_func *f)
{
    ravel_diags *d = ravel_diags_new();
    bool allocated = rv_func_is_allocated(f), ok = true;
    if (c->o->mode == RV_RD_ALLOC || (!allocated && ravel_validate(f, RAVEL_VALIDATE_SSA, d) == RAVEL_OK)) {
        c->vflags = RAVEL_VALIDATE_SSA;
        if (ravel_validate(f, RAVEL_VALIDATE_SSA, d) != RAVEL_OK) {
            c->err = rv_xstrdup("the input is not a valid SSA function (an allocator needs one)");
            ok = false;
        }
    } else {
        int v = ravel_validate(f, 0, d);
        c->allow_efail = v == RAVEL_EFAIL;
        if (v == RAVEL_EINVAL) c->err = rv_xstrdup("the input does not validate"), ok = false;
        if (allocated) {
            ravel_func *orig = rv_func_strip(f);
            c->orig_ssa = ravel_validate(orig, RAVEL_VALIDATE_SSA, d) == RAVEL_OK;
            ravel_func_free(orig);
        }
    }
    ravel_diags_free(d);
    return ok;
}

static int start(ctx *c, const ravel_func *f, size_t *len, char **text)
{
    if (c->o->mode == RV_RD_CHECK && !rv_func_is_allocated(f))
        return c->err = rv_xstrdup("the input is not allocated (reduce an unallocated function with -a NAME)"), RAVEL_EINVAL;
    if (c->o->mode == RV_RD_ALLOC && !c->o->alloc) return c->err = rv_xstrdup("no allocator"), RAVEL_EINVAL;
    if (c->o->mode == RV_RD_COMMAND && !c->o->command) return c->err = rv_xstrdup("no command"), RAVEL_EINVAL;
    if (!input_rules(c, f)) return RAVEL_EINVAL;
    rd_from_func(&c->cur, f);
    *text = func_text(&c->cur, len);
    if (!*text) return c->err = rv_xstrdup("the function cannot be rebuilt through the builder"), RAVEL_EINVAL;
    c->cur_hash = rv_hash_bytes(*text, *len);
    c->st->lines_before = count_lines(*text, *len);
    c->st->insts_before = rd_ninsts(&c->cur);
    int t = test_text(c, *text, *len, false, &c->ref);
    if (t < 0) return c->err = rv_xstrdup("the input does not survive printing and reading back"), RAVEL_EINVAL;
    if (t == 0) return RAVEL_EINVAL;
    c->st->tests++;
    bool interesting = c->o->mode == RV_RD_COMMAND ? c->ref.outcome == RD_CMD_OK
                       : c->o->mode == RV_RD_CHECK ? c->ref.outcome == (c->o->compare ? RD_DIFFERS : RD_REJECT)
                       : c->o->compare ? c->ref.outcome == RD_DIFFERS || c->ref.outcome == RD_FAIL ||
                                             c->ref.outcome == RD_CRASH || c->ref.outcome == RD_HANG
                                       : c->ref.outcome != RD_PASS;
    if (!interesting) {
        char buf[160];
        snprintf(buf, sizeof buf, "the input does not have the property to keep (its verdict: %s)",
                 rd_outcome_name(c->ref.outcome));
        c->err = rv_xstrdup(buf);
        return RAVEL_EFAIL;
    }
    if (has_banner(c) && c->o->mode == RV_RD_CHECK) { /* keep the replay's verdict (ctest runs it) */
        c->replay = true;
        c->replay_ref = replay_of(c, *text, *len);
    }
    rv_map_put(&c->cache, c->cur_hash, 1);
    return RAVEL_OK;
}

int rv_reduce(const ravel_func *f, const char *header, size_t header_len, const rv_reduce_opts *o, char **out,
              rv_reduce_stats *st, char **err)
{
    ctx c;
    memset(&c, 0, sizeof c);
    memset(st, 0, sizeof *st);
    c.o = o;
    c.st = st;
    c.header = header;
    c.header_len = header_len;
    c.t0 = now_s();
    c.deadline = o->seconds > 0 ? c.t0 + o->seconds : 0;
    c.q = rd_oracle_new(o);
    *out = NULL;
    size_t len = 0;
    char *text = NULL;
    int rc = start(&c, f, &len, &text);
    rv_free(text);
    if (rc == RAVEL_OK) {
        rd_oracle_set_budget(c.q, c.deadline); /* the input's own test is not cut short */
        reduce_loop(&c);
        if (c.err) rc = RAVEL_EINVAL;
    }
    if (rc == RAVEL_OK) {
        rd_oracle_set_budget(c.q, 0); /* the verdict text of a case already tested */
        *out = result_text(&c);
        size_t blen;
        char *body = func_text(&c.cur, &blen);
        st->lines_after = count_lines(body, blen);
        st->insts_after = rd_ninsts(&c.cur);
        rv_free(body);
    }
    st->seconds = now_s() - c.t0;
    if (o->progress) {
        progress(&c, true);
        fputc('\n', o->progress_out ? o->progress_out : stderr);
    }
    *err = c.err;
    rd_result_free(&c.ref);
    rd_free(&c.cur);
    rv_map_free(&c.cache);
    rd_oracle_free(c.q);
    return rc;
}

void rv_reduce_print_summary(FILE *fp, const rv_reduce_stats *st)
{
    fprintf(fp,
            "ravel reduce: %u -> %u lines, %u -> %u instructions (%.1f%%), %" PRIu64 " tests, %" PRIu64
            " cache hits, %" PRIu64 " invalid candidates, %" PRIu64 " rounds, %.2f s%s\n",
            st->lines_before, st->lines_after, st->insts_before, st->insts_after,
            st->insts_before ? 100.0 * st->insts_after / st->insts_before : 0.0, st->tests, st->cache_hits,
            st->invalid, st->rounds, st->seconds, st->timed_out ? " (time budget reached)" : "");
}
