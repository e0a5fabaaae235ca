/* case_driver.c - runs one self-describing checker case (tests/checker/cases).
 *
 *   case_driver [--self-orig] FILE
 *     Header lines (anywhere in FILE):
 *       # expect: ok                    every function verified
 *       # expect: bad-input             ravel_check returns RAVEL_EINVAL
 *       # expect: KIND @LINE            one error of KIND at LINE (repeat the
 *                                       line for each expected error)
 *       # orig: NAME                    check against the unallocated file
 *                                       NAME (relative to FILE's folder)
 *       # report: TEXT                  the printed report contains TEXT
 *       # explain                       run with RAVEL_CHECK_EXPLAIN
 *       INSTRUCTION  #! KIND [KIND...]  errors expected on this very line
 *     The errors reported must be exactly the expected ones (kind and line,
 *     as a multiset): no false positives, nothing missed. The status and
 *     the printed report (text and JSON) must also equal those of a
 *     context running the full validator without value numbering,
 *     and of the reference fixpoint alone (RAVEL_CHECK_REFERENCE), and the
 *     status that of a check with RAVEL_CHECK_VERDICT_ONLY.
 *     --self-orig: each function is also checked against its own
 *     unallocated form (rv_func_strip), as `ravel check --orig` would, and
 *     must give the same errors. A file the reader rejects passes when it
 *     expects bad-input (the reader's diagnostic is tests/text's to check).
 * Exit status 0 if the case passes, 1 otherwise (with a reason on stderr). */
#define _POSIX_C_SOURCE 200809L
#include "checker/ck.h"
#include "ir/ir.h"
#include "tests/support/expect.h"
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

typedef struct expect {
    char kind[64];
    unsigned line;
    bool seen;
} expect;

typedef struct spec {
    bool ok, bad_input, explain;
    char orig[256];
    RV_VEC(expect) errs;
    RV_VEC(char *) texts;
} spec;

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\r' || s[n - 1] == '\t')) s[--n] = 0;
}

static void inline_marks(const char *line, unsigned lineno, spec *sp)
{
    const char *m = strstr(line, "#! ");
    if (!m) return;
    m += 3;
    while (*m) {
        while (*m == ' ') m++;
        size_t n = strcspn(m, " ");
        if (!n) break;
        expect x = {{0}, lineno, false};
        snprintf(x.kind, sizeof x.kind, "%.*s", (int)n, m);
        rv_vec_push(sp->errs, x);
        m += n;
    }
}

/* The items of one `# expect:` line (tests/support/expect.h): ok,
 * bad-input, KIND @LINE; a bad input's diagnostic (LINE:COL: TEXT, only)
 * is the reader's test's (tests/text: text_driver import). */
static int expect_items(const char *v, spec *sp)
{
    ts_expect x[16];
    int n = ts_expect_parse(v, x, 16);
    if (n < 0 || !ts_expect_only(x, n, 1u << TS_X_OK | 1u << TS_X_BAD_INPUT | 1u << TS_X_KIND | 1u << TS_X_DIAG | 1u << TS_X_ONLY, v))
        return -1;
    for (int i = 0; i < n; i++) {
        if (x[i].what == TS_X_OK) sp->ok = true;
        else if (x[i].what == TS_X_BAD_INPUT) sp->bad_input = true;
        else if (!x[i].line) {
            fprintf(stderr, "bad expect line: %s (KIND @LINE)\n", v);
            return -1;
        } else {
            expect e = {{0}, x[i].line, false};
            memcpy(e.kind, x[i].word, sizeof e.kind);
            rv_vec_push(sp->errs, e);
        }
    }
    return n;
}

static int parse_spec(const char *text, spec *sp)
{
    unsigned lineno = 0;
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char line[512];
        if (n >= sizeof line) n = sizeof line - 1;
        memcpy(line, p, n);
        line[n] = 0;
        trim(line);
        p += n + (e ? 1 : 0);
        inline_marks(line, ++lineno, sp);
        if (strncmp(line, "# expect: ", 10) == 0) {
            if (expect_items(line + 10, sp) < 0) return -1;
        } else if (strncmp(line, "# orig: ", 8) == 0) {
            size_t l = strlen(line + 8);
            if (l >= sizeof sp->orig) l = sizeof sp->orig - 1; /* truncated: the path will not open */
            memcpy(sp->orig, line + 8, l);
            sp->orig[l] = 0;
        } else if (strncmp(line, "# report: ", 10) == 0) {
            size_t l = strlen(line + 10);
            char *t = rv_xmalloc(l + 1);
            memcpy(t, line + 10, l + 1);
            rv_vec_push(sp->texts, t);
        } else if (strcmp(line, "# explain") == 0) {
            sp->explain = true;
        }
    }
    if (sp->ok + sp->bad_input + (sp->errs.len > 0) != 1) {
        fprintf(stderr, "the case must expect exactly one of: ok, bad-input, errors\n");
        return -1;
    }
    return 0;
}

static ravel_module *load(const char *path, char **text)
{
    size_t len;
    *text = ts_read_all(path, &len);
    if (!*text) return NULL;
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(*text, len, path, d);
    if (!m || ravel_diags_count(d)) {
        fprintf(stderr, "%s: does not parse:\n", path);
        ravel_diags_print(stderr, d);
        ravel_module_free(m);
        m = NULL;
    }
    ravel_diags_free(d);
    return m;
}

static const ravel_func *by_name(const ravel_module *m, const char *name)
{
    for (size_t i = 0; m && i < ravel_module_nfuncs(m); i++)
        if (strcmp(rv_func_name(ravel_module_func(m, i)), name) == 0) return ravel_module_func(m, i);
    return NULL;
}

/* Matches one reported error against the expectations. */
/* The report printed as text and JSON (NULL on failure). */
static char *report_dump(const ravel_report *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return NULL;
    ravel_report_print(m, r);
    ravel_report_print_json(m, r);
    fclose(m);
    return buf;
}

/* The fast paths must not change anything: the same check by another
 * context (full validator, no value numbering, the guard's notes not used)
 * gives the same status and the same report. */
static bool same_as(const ravel_func *f, const ravel_func *o, unsigned opts, int rc, const ravel_report *rep)
{
    ravel_checker *ref = ravel_checker_new();
    ravel_checker_set_options(ref, opts);
    ravel_report *rr = NULL;
    int rc2 = ravel_check(ref, f, o, &rr);
    char *a = report_dump(rep), *b = report_dump(rr);
    bool same = rc == rc2 && a && b && strcmp(a, b) == 0;
    if (!same) fprintf(stderr, "FAIL: the check with options %#x differs (status %d vs %d):\n%s", opts, rc, rc2, b ? b : "?");
    free(a);
    free(b);
    ravel_report_free(rr);
    ravel_checker_free(ref);
    return same;
}

static bool match(spec *sp, const ravel_check_error *e)
{
    for (uint32_t i = 0; i < sp->errs.len; i++) {
        expect *x = &sp->errs.data[i];
        if (!x->seen && x->line == e->line && strcmp(x->kind, e->kind) == 0) return x->seen = true;
    }
    return false;
}

int main(int argc, char **argv)
{
    bool self_orig = argc == 3 && strcmp(argv[1], "--self-orig") == 0;
    if (self_orig) argv++, argc--;
    if (argc != 2) {
        fputs("usage: case_driver [--self-orig] FILE\n", stderr);
        return 2;
    }
    char *text = NULL, *otext = NULL;
    spec sp;
    memset(&sp, 0, sizeof sp);
    ravel_module *m = load(argv[1], &text), *om = NULL;
    if (text && !m) { /* the reader rejected it: bad input before any check */
        int fail = !strstr(text, "# expect: bad-input");
        rv_vec_free(sp.errs);
        for (uint32_t i = 0; i < sp.texts.len; i++) free(sp.texts.data[i]);
        rv_vec_free(sp.texts);
        free(text);
        if (!fail) printf("ok %s (rejected by the reader)\n", argv[1]);
        return fail;
    }
    int fail = !m || parse_spec(text, &sp) != 0;
    if (!fail && sp.orig[0]) {
        char path[1024];
        const char *slash = strrchr(argv[1], '/');
        int dl = slash ? (int)(slash - argv[1] + 1) : 0;
        snprintf(path, sizeof path, "%.*s%s", dl, argv[1], sp.orig);
        om = load(path, &otext);
        fail = !om;
    }
    ravel_checker *ck = ravel_checker_new();
    ravel_checker_set_options(ck, sp.explain ? RAVEL_CHECK_EXPLAIN : 0);
    FILE *mem = tmpfile();
    int einval = 0;
    for (size_t i = 0; !fail && i < ravel_module_nfuncs(m); i++) {
        const ravel_func *f = ravel_module_func(m, i);
        ravel_report *rep = NULL;
        ravel_func *own = self_orig ? rv_func_strip(f) : NULL;
        const ravel_func *o = own ? own : om ? by_name(om, rv_func_name(f)) : NULL;
        int rc = ravel_check(ck, f, o, &rep);
        if (rc == RAVEL_EINVAL) einval++;
        unsigned base = ravel_checker_options(ck);
        if (!same_as(f, o, base | RAVEL_CHECK_FULL_VALIDATE | CK_OPT_NO_VN | CK_OPT_NEED_SCAN, rc, rep)) fail = 1;
        if (!same_as(f, o, base | RAVEL_CHECK_REFERENCE, rc, rep)) fail = 1; /* the definition */
        ravel_checker *vo = ravel_checker_new(); /* only the verdict: the same status */
        ravel_checker_set_options(vo, RAVEL_CHECK_VERDICT_ONLY);
        int rv = ravel_check(vo, f, o, NULL);
        ravel_checker_free(vo);
        if (rv != rc) {
            fprintf(stderr, "FAIL: status %d with RAVEL_CHECK_VERDICT_ONLY, %d without\n", rv, rc);
            fail = 1;
        }
        ravel_report_print(stderr, rep);
        if (mem) ravel_report_print(mem, rep);
        if (mem) ravel_report_print_json(mem, rep);
        for (size_t k = 0; k < ravel_report_count(rep); k++) {
            const ravel_check_error *e = ravel_report_error(rep, k);
            if (!match(&sp, e)) {
                fprintf(stderr, "FAIL: unexpected error %s @%u\n", e->kind, e->line);
                fail = 1;
            }
        }
        if ((rc == RAVEL_OK) != (ravel_report_count(rep) == 0 && rc != RAVEL_EINVAL)) {
            fprintf(stderr, "FAIL: status %d inconsistent with %zu errors\n", rc, ravel_report_count(rep));
            fail = 1;
        }
        ravel_report_free(rep);
        ravel_func_free(own);
    }
    if (!fail) {
        if (sp.bad_input != (einval > 0)) {
            fprintf(stderr, "FAIL: expected %s\n", sp.bad_input ? "bad input" : "no bad input");
            fail = 1;
        }
        for (uint32_t i = 0; i < sp.errs.len; i++)
            if (!sp.errs.data[i].seen) {
                fprintf(stderr, "FAIL: missing error %s @%u\n", sp.errs.data[i].kind, sp.errs.data[i].line);
                fail = 1;
            }
    }
    if (!fail && mem && sp.texts.len) {
        long n = ftell(mem);
        char *all = rv_xmalloc((size_t)(n > 0 ? n : 0) + 1);
        rewind(mem);
        size_t got = fread(all, 1, (size_t)(n > 0 ? n : 0), mem);
        all[got] = 0;
        for (uint32_t i = 0; i < sp.texts.len; i++)
            if (!strstr(all, sp.texts.data[i])) {
                fprintf(stderr, "FAIL: report lacks \"%s\"\n", sp.texts.data[i]);
                fail = 1;
            }
        free(all);
    }
    if (mem) fclose(mem);
    for (uint32_t i = 0; i < sp.texts.len; i++) free(sp.texts.data[i]);
    rv_vec_free(sp.texts);
    rv_vec_free(sp.errs);
    ravel_checker_free(ck);
    ravel_module_free(m);
    ravel_module_free(om);
    free(text);
    free(otext);
    if (!fail) printf("ok %s\n", argv[1]);
    return fail;
}
