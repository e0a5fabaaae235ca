/* ra_driver.c - runs the self-describing .ra tests of the validator and the
 * interpreter (library only, no CLI needed).
 *
 *   ra_driver validate FILE
 *     Header lines (anywhere in FILE, usually at the top):
 *       # flags: --ssa                  validate with RAVEL_VALIDATE_SSA
 *       # expect: exit N                0 valid, 1 property failed, 2 bad input
 *       # expect: exit N, L:C: TEXT     ... and a diagnostic at L:C containing TEXT
 *       # expect: L:C: TEXT             one more expected diagnostic
 *     The exit status must match, every expected diagnostic must be reported,
 *     and no other one (so each error is reported exactly once).
 *
 *   ra_driver run FILE
 *       # run: [--func NAME] [--args 1,-2,0x10] [--moving-gc] [--steps N] [--alloc-as-orig] [--seed S]
 *       #> out: 55                      expected output lines, in order
 *       #> ret: 55                      (exact match; a line ending in "..."
 *       #> error: block b1...           matches as a prefix)
 *     The function runs in the form it is written in (allocated if it
 *     carries any allocation; --alloc-as-orig runs an allocated function on
 *     vregs). Output lines are those of `ravel run`.
 *
 *   ra_driver compare ORIG ALLOC
 *     ALLOC's header: "# compare: same" or "# compare: differ TEXT", and
 *     optionally "# run: --inputs N --seed S --moving-gc --steps N". Every
 *     function of ORIG is compared with the one of ALLOC with its name on N
 *     input vectors; the first difference must contain TEXT.
 * Exit status 0 if the test passes, 1 otherwise (with a reason on stderr). */
#define _POSIX_C_SOURCE 200809L
#include "ir/ir.h"
#include "tests/support/expect.h"
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

/* Calls fn(line-after-prefix) for each line starting with prefix. */
typedef RV_VEC(char *) strvec;
static void header_lines(const char *text, const char *prefix, strvec *out)
{
    size_t pl = strlen(prefix);
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n >= pl && memcmp(p, prefix, pl) == 0) {
            char *s = rv_xmalloc(n - pl + 1);
            memcpy(s, p + pl, n - pl);
            s[n - pl] = 0;
            while (n - pl && (s[n - pl - 1] == '\r' || s[n - pl - 1] == ' ')) s[--n - pl] = 0;
            rv_vec_push(*out, s);
        }
        p = e ? e + 1 : NULL;
    }
}

static void free_strs(strvec *v)
{
    for (uint32_t i = 0; i < v->len; i++) free(v->data[i]);
    rv_vec_free(*v);
}

static ravel_module *load(const char *path, char **text_out, ravel_diags *d)
{
    size_t len;
    char *text = ts_read_all(path, &len);
    if (!text) return NULL;
    ravel_module *m = ravel_module_parse(text, len, path, d);
    if (m && ravel_diags_count(d)) {
        ravel_module_free(m);
        m = NULL;
    }
    *text_out = text;
    return m;
}

/* ---- validate ---- */

typedef struct expect_diag {
    uint32_t line, col;
    char text[256];
    bool found;
} expect_diag;

static int do_validate(const char *path)
{
    char *text = NULL;
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = load(path, &text, d);
    if (!text) return 1;
    strvec flags = {0};
    header_lines(text, "# flags: ", &flags);
    unsigned vflags = 0;
    for (uint32_t i = 0; i < flags.len; i++)
        if (strstr(flags.data[i], "--ssa")) vflags |= RAVEL_VALIDATE_SSA;
    int want_exit = -1;
    RV_VEC(expect_diag) want = {0};
    char v[512];
    int bad = 0;
    for (const char *p = text; ts_header_next(&p, "expect", v, sizeof v);) { /* exit N, LINE:COL: TEXT */
        ts_expect x[8];
        int n = ts_expect_parse(v, x, 8);
        if (n < 0 || !ts_expect_only(x, n, 1u << TS_X_EXIT | 1u << TS_X_DIAG, v)) bad = 1;
        for (int i = 0; i < n; i++) {
            if (x[i].what == TS_X_EXIT) want_exit = x[i].exit;
            if (x[i].what != TS_X_DIAG) continue;
            expect_diag e = {x[i].line, x[i].col, "", false};
            memcpy(e.text, x[i].text, sizeof e.text);
            rv_vec_push(want, e);
        }
    }
    int got_exit = 0;
    if (!m) {
        got_exit = 2;
    } else {
        for (size_t i = 0; i < ravel_module_nfuncs(m); i++) {
            int st = ravel_validate(ravel_module_func(m, i), vflags, d);
            int ex = st == RAVEL_OK ? 0 : st == RAVEL_EFAIL ? 1 : 2;
            if (ex > got_exit) got_exit = ex;
        }
    }
    if (want_exit < 0) {
        fprintf(stderr, "%s: no '# expect: exit N' line\n", path);
        bad = 1;
    } else if (got_exit != want_exit) {
        fprintf(stderr, "%s: exit %d, expected %d\n", path, got_exit, want_exit);
        bad = 1;
    }
    for (uint32_t k = 0; k < d->v.len; k++) {
        const rv_diag *g = &d->v.data[k];
        bool matched = false;
        for (uint32_t j = 0; j < want.len && !matched; j++) {
            expect_diag *e = &want.data[j];
            if (!e->found && e->line == g->line && e->col == g->col && strstr(g->msg, e->text)) matched = e->found = true;
        }
        if (!matched) {
            fprintf(stderr, "%s: unexpected diagnostic: %s\n", path, g->msg);
            bad = 1;
        }
    }
    for (uint32_t j = 0; j < want.len; j++)
        if (!want.data[j].found) {
            fprintf(stderr, "%s: missing diagnostic at %u:%u: %s\n", path, want.data[j].line, want.data[j].col,
                    want.data[j].text);
            bad = 1;
        }
    if (bad) ravel_diags_print(stderr, d);
    rv_vec_free(want);
    free_strs(&flags);
    ravel_module_free(m);
    ravel_diags_free(d);
    free(text);
    return bad;
}

/* ---- run ---- */

typedef struct run_args {
    const char *func;
    RV_VEC(uint64_t) inputs;
    bool moving_gc, as_orig;
    uint64_t steps, ninputs, seed;
} run_args;

static void parse_run_args(const char *line, run_args *a)
{
    char *s = rv_xmalloc(strlen(line) + 1), *save = NULL;
    strcpy(s, line);
    for (char *t = strtok_r(s, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        char *v = NULL;
        if (!strcmp(t, "--moving-gc")) a->moving_gc = true;
        else if (!strcmp(t, "--alloc-as-orig")) a->as_orig = true;
        else if (!strcmp(t, "--func") && (v = strtok_r(NULL, " ", &save))) a->func = strstr(line, v); /* stays valid */
        else if (!strcmp(t, "--steps") && (v = strtok_r(NULL, " ", &save))) a->steps = strtoull(v, NULL, 0);
        else if (!strcmp(t, "--inputs") && (v = strtok_r(NULL, " ", &save))) a->ninputs = strtoull(v, NULL, 0);
        else if (!strcmp(t, "--seed") && (v = strtok_r(NULL, " ", &save))) a->seed = strtoull(v, NULL, 0);
        else if (!strcmp(t, "--args") && (v = strtok_r(NULL, " ", &save)))
            for (char *p = v; *p;) {
                char *end;
                uint64_t x = (uint64_t)strtoll(p, &end, 0);
                if (end == p) break;
                rv_vec_push(a->inputs, x);
                p = *end == ',' ? end + 1 : end;
            }
    }
    free(s);
}

static const ravel_func *find_func(const ravel_module *m, const char *name)
{
    for (size_t i = 0; i < ravel_module_nfuncs(m); i++) {
        const ravel_func *f = ravel_module_func(m, i);
        size_t n = strcspn(name, " ");
        if (strlen(rv_func_name(f)) == n && strncmp(rv_func_name(f), name, n) == 0) return f;
    }
    return NULL;
}

static bool line_matches(const char *want, const char *got)
{
    size_t n = strlen(want);
    if (n >= 3 && strcmp(want + n - 3, "...") == 0) return strncmp(want, got, n - 3) == 0;
    return strcmp(want, got) == 0;
}

static int do_run(const char *path)
{
    char *text = NULL;
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = load(path, &text, d);
    if (!m) {
        ravel_diags_print(stderr, d);
        ravel_diags_free(d);
        free(text);
        return 1;
    }
    strvec runs = {0}, want = {0}, got = {0};
    header_lines(text, "# run: ", &runs);
    header_lines(text, "#> ", &want);
    run_args a = {0};
    for (uint32_t i = 0; i < runs.len; i++) parse_run_args(runs.data[i], &a);
    const ravel_func *f = a.func ? find_func(m, a.func) : ravel_module_func(m, 0);
    int bad = 0;
    if (!f || ravel_validate(f, 0, d) != RAVEL_OK) {
        fprintf(stderr, "%s: function missing or invalid\n", path);
        ravel_diags_print(stderr, d);
        bad = 1;
    } else {
        rv_run_opts o = {a.inputs.data, a.inputs.len, a.steps, a.moving_gc, rv_func_is_allocated(f) && !a.as_orig, a.seed};
        rv_run_result r;
        rv_interp_run(f, &o, &r);
        char buf[400];
        for (uint32_t k = 0; k < r.out.len; k++) {
            snprintf(buf, sizeof buf, "out: %lld", (long long)r.out.data[k]);
            rv_vec_push(got, strdup(buf));
        }
        for (uint32_t k = 0; k < r.rets.len; k++) {
            snprintf(buf, sizeof buf, "ret: %lld", (long long)r.rets.data[k]);
            rv_vec_push(got, strdup(buf));
        }
        if (r.status == RV_RUN_STEP_LIMIT) {
            snprintf(buf, sizeof buf, "stopped: step limit after %llu steps", (unsigned long long)r.steps);
            rv_vec_push(got, strdup(buf));
        } else if (r.status == RV_RUN_ERROR) {
            snprintf(buf, sizeof buf, "error: %s", r.msg);
            rv_vec_push(got, strdup(buf));
        }
        rv_run_result_free(&r);
        for (uint32_t k = 0; k < got.len || k < want.len; k++) {
            const char *w = k < want.len ? want.data[k] : "(nothing)", *g = k < got.len ? got.data[k] : "(nothing)";
            if (k < want.len && k < got.len && line_matches(w, g)) continue;
            fprintf(stderr, "%s: output line %u: got '%s', expected '%s'\n", path, k + 1, g, w);
            bad = 1;
            break;
        }
    }
    rv_vec_free(a.inputs);
    free_strs(&runs);
    free_strs(&want);
    free_strs(&got);
    ravel_module_free(m);
    ravel_diags_free(d);
    free(text);
    return bad;
}

/* ---- compare ---- */

static int do_compare(const char *orig_path, const char *alloc_path)
{
    char *t1 = NULL, *t2 = NULL;
    ravel_diags *d = ravel_diags_new();
    ravel_module *m1 = load(orig_path, &t1, d), *m2 = load(alloc_path, &t2, d);
    int bad = 0;
    strvec runs = {0}, cmp = {0};
    run_args a = {0};
    a.ninputs = 50;
    if (!m1 || !m2) {
        ravel_diags_print(stderr, d);
        bad = 1;
        goto out;
    }
    header_lines(t2, "# run: ", &runs);
    header_lines(t2, "# compare: ", &cmp);
    for (uint32_t i = 0; i < runs.len; i++) parse_run_args(runs.data[i], &a);
    if (cmp.len != 1) {
        fprintf(stderr, "%s: needs one '# compare:' line\n", alloc_path);
        bad = 1;
        goto out;
    }
    bool want_same = strcmp(cmp.data[0], "same") == 0;
    const char *want_text = strncmp(cmp.data[0], "differ ", 7) == 0 ? cmp.data[0] + 7 : "";
    char msg[512] = "";
    bool all_same = true;
    for (size_t i = 0; i < ravel_module_nfuncs(m1) && all_same; i++) {
        const ravel_func *fo = ravel_module_func(m1, i), *fa = find_func(m2, rv_func_name(fo));
        if (!fa) {
            fprintf(stderr, "%s: no function %s\n", alloc_path, rv_func_name(fo));
            bad = 1;
            goto out;
        }
        uint32_t n = rv_interp_ninputs(fo);
        uint64_t *in = rv_xcalloc(n + 1, sizeof *in);
        for (uint64_t k = 0; k < a.ninputs && all_same; k++) {
            rv_interp_inputs(a.seed, k, in, n);
            rv_run_opts o = {in, n, a.steps ? a.steps : 10000, a.moving_gc, true, rv_interp_undef_seed(a.seed, k)};
            all_same = rv_interp_compare(fo, fa, &o, msg, sizeof msg);
        }
        free(in);
    }
    if (all_same != want_same || (!all_same && !strstr(msg, want_text))) {
        fprintf(stderr, "%s: compare gave %s (%s), expected %s\n", alloc_path, all_same ? "same" : "differ", msg,
                cmp.data[0]);
        bad = 1;
    }
out:
    free_strs(&runs);
    free_strs(&cmp);
    ravel_module_free(m1);
    ravel_module_free(m2);
    ravel_diags_free(d);
    free(t1);
    free(t2);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "validate") == 0) return do_validate(argv[2]);
    if (argc == 3 && strcmp(argv[1], "run") == 0) return do_run(argv[2]);
    if (argc == 4 && strcmp(argv[1], "compare") == 0) return do_compare(argv[2], argv[3]);
    fputs("usage: ra_driver validate FILE | run FILE | compare ORIG ALLOC\n", stderr);
    return 2;
}
