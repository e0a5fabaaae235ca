/* text_driver.c - drives the text tests of the reader and printer.
 *   text_driver roundtrip FILE...   every file that parses must round-trip:
 *                                   parse(print(m)) equals m function by
 *                                   function (rv_func_equal), the machine
 *                                   prints the same, and print is a fixpoint.
 *                                   Files that do not parse are skipped.
 *   text_driver golden IN EXPECTED  print(parse(IN)) must equal EXPECTED.
 *   text_driver error FILE          FILE must fail to parse; its header
 *                                   "# expect: LINE:COL: SUBSTRING" (and
 *                                   "# expect: only": no other diagnostic;
 *                                   tests/support/expect.h) says the first
 *                                   diagnostic is at LINE:COL and contains
 *                                   SUBSTRING.
 *   text_driver canonical FILE...   each file must already be canonical.
 *   text_driver import FILE         an example of docs/format.md section 14
 *                                   (tests/checker/cases/import): with
 *                                   "# expect: bad-input", its header
 *                                   "# expect: LINE:COL: SUBSTRING" is checked
 *                                   as for `error`; otherwise it must parse, every
 *                                   function must validate (exit 0), it must
 *                                   round-trip, and each "# expect: KIND @N"
 *                                   must name a line marked "# <- ERROR".
 * Exit status 0 when every check passes, 1 otherwise. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "ir/ir.h"
#include "tests/support/expect.h"
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

static char *render(const ravel_module *m, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&buf, &n);
    if (!mem) return NULL;
    rv_print_module(mem, m);
    fclose(mem);
    *len = n;
    return buf;
}

static ravel_module *parse_quiet(const char *text, size_t len, const char *name, ravel_diags **d)
{
    *d = ravel_diags_new();
    return ravel_module_parse(text, len, name, *d);
}

/* 0 ok, 1 failed, -1 skipped (does not parse). */
static int roundtrip_one(const char *path)
{
    size_t len, l1 = 0, l2 = 0;
    char *text = ts_read_all(path, &len);
    if (!text) return 1;
    ravel_diags *d1, *d2, *d3;
    ravel_module *m1 = parse_quiet(text, len, path, &d1);
    int rc = 0;
    if (!m1) {
        rc = -1;
        goto out1;
    }
    char *p1 = render(m1, &l1);
    ravel_module *m2 = parse_quiet(p1, l1, "<printed>", &d2);
    if (!m2) {
        fprintf(stderr, "%s: the printed form does not parse:\n", path);
        ravel_diags_print(stderr, d2);
        rc = 1;
        goto out2;
    }
    if (ravel_module_nfuncs(m1) != ravel_module_nfuncs(m2)) {
        fprintf(stderr, "%s: function count changed\n", path);
        rc = 1;
    }
    for (size_t i = 0; !rc && i < ravel_module_nfuncs(m1); i++)
        if (!rv_func_equal(ravel_module_func(m1, i), ravel_module_func(m2, i))) {
            fprintf(stderr, "%s: function %zu differs after print+parse\n", path, i);
            rc = 1;
        }
    const ravel_machine *a = ravel_module_machine(m1), *b = ravel_module_machine(m2);
    if (!rc && a->regs.len != b->regs.len) rc = 1;
    for (uint32_t r = 0; !rc && r < a->regs.len; r++)
        if (strcmp(a->regs.data[r].name, b->regs.data[r].name) || a->regs.data[r].cls != b->regs.data[r].cls ||
            a->regs.data[r].reserved != b->regs.data[r].reserved) {
            fprintf(stderr, "%s: register %u changed identity\n", path, r);
            rc = 1;
        }
    if (!rc && (!rv_mach_same_containment(a, b) || a->alias_order.len != b->alias_order.len ||
                (a->alias_order.len &&
                 memcmp(a->alias_order.data, b->alias_order.data, a->alias_order.len * sizeof(uint32_t))))) {
        fprintf(stderr, "%s: the containments changed\n", path);
        rc = 1;
    }
    char *p2 = render(m2, &l2);
    if (!rc && (l1 != l2 || memcmp(p1, p2, l1) != 0)) {
        fprintf(stderr, "%s: print is not a fixpoint\n", path);
        rc = 1;
    }
    free(p2);
    ravel_module_free(m2);
    /* the canonical text itself must parse the same once more */
    ravel_module *m3 = parse_quiet(p1, l1, "<printed>", &d3);
    if (!m3) rc = 1;
    ravel_module_free(m3);
    ravel_diags_free(d3);
out2:
    free(p1);
    ravel_diags_free(d2);
out1:
    ravel_module_free(m1);
    ravel_diags_free(d1);
    free(text);
    return rc;
}

static int cmd_roundtrip(int n, char **files)
{
    int bad = 0, skipped = 0, ok = 0;
    for (int i = 0; i < n; i++) {
        int rc = roundtrip_one(files[i]);
        if (rc < 0) skipped++;
        else if (rc) bad++;
        else ok++;
    }
    printf("roundtrip: %d ok, %d failed, %d skipped (do not parse)\n", ok, bad, skipped);
    return bad != 0 || ok == 0;
}

static int cmd_golden(const char *in, const char *expected)
{
    size_t len, elen, plen;
    char *text = ts_read_all(in, &len), *want = ts_read_all(expected, &elen);
    if (!text || !want) return 1;
    ravel_diags *d;
    ravel_module *m = parse_quiet(text, len, in, &d);
    int rc = 1;
    if (!m) {
        ravel_diags_print(stderr, d);
    } else {
        char *got = render(m, &plen);
        if (plen == elen && memcmp(got, want, elen) == 0) rc = 0;
        else fprintf(stderr, "%s: printed form differs from %s; got:\n%s", in, expected, got);
        free(got);
    }
    ravel_module_free(m);
    ravel_diags_free(d);
    free(text);
    free(want);
    return rc;
}

/* Whether the printed first diagnostic quotes line `line` of text (up to
 * 400 bytes, non-printing bytes as '?') and puts its caret under column
 * col: "MSG\n  SOURCE\n  <col-1 blanks, tabs kept>^\n". */
static bool caret_ok(const char *text, size_t len, const ravel_diags *d, unsigned line, unsigned col)
{
    const char *p = text, *end = text + len;
    for (unsigned l = 1; l < line && p < end; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    char want[2048];
    int w = snprintf(want, sizeof want, "%s\n  ", d->v.data[0].msg);
    size_t n = 0;
    while (p + n < end && p[n] != '\n' && p[n] != '\r' && n < 400) n++;
    for (size_t k = 0; k < n && w < 1900; k++) {
        unsigned char c = (unsigned char)p[k];
        want[w++] = (c == '\t' || (c >= 32 && c < 127)) ? (char)c : '?';
    }
    w += snprintf(want + w, sizeof want - (size_t)w, "\n  ");
    for (unsigned k = 1; k < col && k <= n && w < 2040; k++) want[w++] = p[k - 1] == '\t' ? '\t' : ' ';
    snprintf(want + w, sizeof want - (size_t)w, "^\n");
    size_t glen;
    char *got = rv_diags_text(d, &glen);
    bool ok = strncmp(got, want, strlen(want)) == 0;
    if (!ok) fprintf(stderr, "expected the first diagnostic to print as:\n%sgot:\n%s", want, got);
    rv_free(got);
    return ok;
}

/* The reader must reject text (of the file path) with its first diagnostic
 * as its header "# expect: LINE:COL: SUBSTRING" (tests/support/expect.h,
 * read from `head` on) says; "# expect: only": and no other. */
static int expect_error(const char *path, char *text, size_t len, const char *head)
{
    ts_expect x[3] = {{0}, {0}, {0}};
    char v[512];
    const char *p = head;
    int n = 0;
    while (n >= 0 && ts_header_next(&p, "expect", v, sizeof v)) { /* LINE:COL: TEXT, only (bad-input: import) */
        int k = n < 3 ? ts_expect_parse(v, x + n, 3 - n) : -1;
        n = k < 0 || !ts_expect_only(x + n, k, 1u << TS_X_DIAG | 1u << TS_X_ONLY | 1u << TS_X_BAD_INPUT, v) ? -1 : n + k;
    }
    const ts_expect *diag = NULL;
    bool only = false;
    for (int i = 0; i < n; i++) {
        if (x[i].what == TS_X_DIAG) diag = diag ? NULL : x + i;
        if (x[i].what == TS_X_ONLY) only = true;
    }
    if (n < 1 || !diag) {
        fprintf(stderr, "%s: needs one '# expect: LINE:COL: MESSAGE' (and '# expect: only')\n", path);
        free(text);
        return 1;
    }
    unsigned line = diag->line, col = diag->col;
    const char *sub = diag->text;
    char where[512];
    snprintf(where, sizeof where, "%s:%u:%u: error: ", path, line, col);
    ravel_diags *d;
    ravel_module *m = parse_quiet(text, len, path, &d);
    int rc = 1;
    if (m) {
        fprintf(stderr, "%s: parsed, but an error was expected\n", path);
    } else if (ravel_diags_count(d) == 0 || d->v.len == 0) {
        fprintf(stderr, "%s: parse failed without a diagnostic\n", path);
    } else if (strncmp(d->v.data[0].msg, where, strlen(where)) != 0 || !strstr(d->v.data[0].msg, sub)) {
        fprintf(stderr, "%s: expected '%s...%s', got:\n", path, where, sub);
        ravel_diags_print(stderr, d);
    } else if (!caret_ok(text, len, d, line, col)) {
        fprintf(stderr, "%s: the source line or the caret is wrong\n", path);
    } else if (only && ravel_diags_count(d) != 1) {
        fprintf(stderr, "%s: expected this one error, got %zu:\n", path, ravel_diags_count(d));
        ravel_diags_print(stderr, d);
    } else {
        rc = 0;
    }
    ravel_module_free(m);
    ravel_diags_free(d);
    free(text);
    return rc;
}

static int cmd_error(const char *path)
{
    size_t len;
    char *text = ts_read_all(path, &len);
    return text ? expect_error(path, text, len, text) : 1;
}

/* Each "# expect: KIND @N" of text names a line N marked "# <- ERROR". */
static int expect_lines_marked(const char *path, const char *text)
{
    int bad = 0;
    for (const char *h = strstr(text, "# expect: "); h; h = strstr(h + 1, "# expect: ")) {
        const char *at = strchr(h, '@'), *eol = strchr(h, '\n');
        if (!at || (eol && at > eol)) continue;
        unsigned n = (unsigned)strtoul(at + 1, NULL, 10), k = 1;
        const char *l = text;
        while (k < n && (l = strchr(l, '\n'))) l++, k++;
        const char *le = l ? strchr(l, '\n') : NULL;
        if (!l || !n || !strstr(l, "# <- ERROR") || (le && strstr(l, "# <- ERROR") > le)) {
            fprintf(stderr, "%s: '# expect: ... @%u' names a line not marked '# <- ERROR'\n", path, n);
            bad = 1;
        }
    }
    return bad;
}

static int cmd_import(const char *path)
{
    size_t len;
    char *text = ts_read_all(path, &len);
    if (!text) return 1;
    if (strstr(text, "\n# expect: bad-input\n")) return expect_error(path, text, len, text);
    int rc = expect_lines_marked(path, text);
    if (!strstr(text, "\n# expect: ")) {
        fprintf(stderr, "%s: no '# expect:' line\n", path);
        rc = 1;
    }
    ravel_diags *d;
    ravel_module *m = parse_quiet(text, len, path, &d);
    if (!m) rc = 1;
    for (size_t i = 0; m && i < ravel_module_nfuncs(m); i++)
        if (ravel_validate(ravel_module_func(m, i), 0, d) != RAVEL_OK) rc = 1;
    ravel_diags_print(stderr, d);
    if (m && roundtrip_one(path) != 0) rc = 1;
    ravel_module_free(m);
    ravel_diags_free(d);
    free(text);
    return rc;
}

static int cmd_canonical(int n, char **files)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        size_t len, plen;
        char *text = ts_read_all(files[i], &len);
        if (!text) {
            bad++;
            continue;
        }
        ravel_diags *d;
        ravel_module *m = parse_quiet(text, len, files[i], &d);
        char *p = m ? render(m, &plen) : NULL;
        if (!p || plen != len || memcmp(p, text, len) != 0) {
            fprintf(stderr, "%s: not canonical\n", files[i]);
            ravel_diags_print(stderr, d);
            bad++;
        }
        free(p);
        ravel_module_free(m);
        ravel_diags_free(d);
        free(text);
    }
    return bad != 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "roundtrip") == 0) return cmd_roundtrip(argc - 2, argv + 2);
    if (argc == 4 && strcmp(argv[1], "golden") == 0) return cmd_golden(argv[2], argv[3]);
    if (argc == 3 && strcmp(argv[1], "error") == 0) return cmd_error(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "canonical") == 0) return cmd_canonical(argc - 2, argv + 2);
    if (argc == 3 && strcmp(argv[1], "import") == 0) return cmd_import(argv[2]);
    fputs("usage: text_driver roundtrip FILE... | golden IN EXPECTED | error FILE | canonical FILE... | import FILE\n", stderr);
    return 2;
}
