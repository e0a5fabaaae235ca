/* fuzzlib_parse.c - the parser round trip (fuzz_parse): any bytes; what
 * parses must print -> parse -> print to a fixpoint, and survive the later
 * stages (validate, check, run). The reader's fast path (ir/parse_fast.c)
 * must read the bytes as the reader without it does: the same diagnostics,
 * the same module.
 *
 * Requires: nothing (inputs over 64 KiB are skipped).
 * Guarantees: RV_FUZZ_SKIP for text that does not parse; RV_FUZZ_BUG with
 * both prints in the reproducer when the round trip breaks.
 */
#define _GNU_SOURCE /* open_memstream */
#include "fuzz/fuzzlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

/* A module read without any diagnostic, or NULL. */
static ravel_module *quiet(ravel_module *m, const ravel_diags *d)
{
    if (m && ravel_diags_count(d)) {
        ravel_module_free(m);
        m = NULL;
    }
    return m;
}

static ravel_module *parse_quiet(const char *text, size_t len, ravel_diags **d)
{
    *d = ravel_diags_new();
    return quiet(ravel_module_parse(text, len, "<fuzz>", *d), *d);
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
    FILE *fp = fz_repro_begin(z, RV_FT_PARSE, NULL, 0);
    fprintf(fp, "# verdict: %s\n# first print:\n", what);
    fz_put_comment(fp, t1, l1);
    if (t2) {
        fprintf(fp, "# second print:\n");
        fz_put_comment(fp, t2, l2);
    }
    fputs("\n", fp);
    fwrite(t1, 1, l1, fp);
    fz_repro_end(fp);
    return RV_FUZZ_BUG;
}

/* Diagnostics as printed, into a malloc'd string. */
/* The source positions that diagnostics quote (instructions', blocks'),
 * which neither the printer nor rv_func_equal see. */
static bool positions_equal(const ravel_module *a, const ravel_module *b)
{
    for (size_t i = 0; i < ravel_module_nfuncs(a); i++) {
        const ravel_func *f = ravel_module_func(a, i), *g = ravel_module_func(b, i);
        for (uint32_t k = 0; k < f->insts.len; k++)
            if (f->insts.data[k].line != g->insts.data[k].line || f->insts.data[k].col != g->insts.data[k].col) return false;
        for (uint32_t k = 0; k < f->blocks.len; k++) {
            const rv_block *x = &f->blocks.data[k], *y = &g->blocks.data[k];
            if (x->line != y->line || x->col != y->col || x->end_line != y->end_line || x->end_col != y->end_col) return false;
        }
    }
    return true;
}

/* The text read without the fast path (rv_module_parse_slow): the same
 * diagnostics as d0's, and the same module as m0 (NULL: not read). */
static bool slow_reads_same(const char *text, size_t len, const ravel_module *m0, const ravel_diags *d0)
{
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = rv_module_parse_slow(text, len, "<fuzz>", d);
    char *a = rv_diags_text(d0, NULL), *b = rv_diags_text(d, NULL);
    bool same = strcmp(a, b) == 0 && !m == !m0 && (!m || (modules_equal(m, m0) && positions_equal(m, m0)));
    if (same && m) {
        size_t la, lb;
        char *pa = module_text(m0, &la), *pb = module_text(m, &lb);
        same = la == lb && memcmp(pa, pb, la) == 0;
        rv_free(pa);
        rv_free(pb);
    }
    rv_free(a);
    rv_free(b);
    ravel_module_free(m);
    ravel_diags_free(d);
    return same;
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
    d0 = ravel_diags_new();
    ravel_module *m0 = ravel_module_parse(text, size, "<fuzz>", d0);
    bool same = slow_reads_same(text, size, m0, d0);
    m0 = quiet(m0, d0);
    ravel_module *m1 = NULL;
    char *t1 = NULL, *t2 = NULL;
    size_t l1 = 0, l2 = 0;
    int result = RV_FUZZ_SKIP;
    if (!same) {
        result = parse_bug(z, "the reader's fast path reads the input otherwise than the token parser", text, size, NULL, 0);
    } else if (m0) {
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
    rv_free(t1);
    rv_free(t2);
    rv_free(text);
    return result;
}

