/*
 * mir_dump.c - the machine-code dumps llc prints on stderr with
 * -print-before=PASS and -print-after=PASS: per function, the code before
 * the pass and after it, each line of greedy's and the rewriter's dumps
 * prefixed by its slot index ("16B\t").
 *
 *   # *** IR Dump Before Virtual Register Rewriter (virtregrewriter) ***:
 *   # Machine code for function f6: NoPHIs, TracksLiveness, ...
 *   Frame Objects: ... / Constant Pool: ... / Function Live Ins: ...
 *   0B	bb.0 (%ir-block.6):
 *   16B	  %13:gr64 = COPY $r9, debug-location !DILocation(...); f6.c:1
 *   # End machine code for function f6.
 *
 * Requires: the text of the dumps (other lines, such as llc's warnings,
 * are skipped). Guarantees: each function has its first "Before" dump and
 * its last "After" dump read into mir_funcs (blocks, instructions with
 * their slot indexes and inline tags, through mir.c); the header sections
 * are skipped.
 */
#include "import/import.h"

#include <ctype.h>

static bool has(const char *s, uint32_t a, uint32_t b, const char *p)
{
    size_t n = strlen(p);
    if (b - a < n) return false;
    for (uint32_t i = a; i + n <= b; i++)
        if (memcmp(s + i, p, n) == 0) return true;
    return false;
}

static bool starts(const char *s, uint32_t a, uint32_t b, const char *p)
{
    size_t n = strlen(p);
    return b - a >= n && memcmp(s + a, p, n) == 0;
}

static mir_dumpfn *find_or_add(mir_dumps *d, uint32_t name, uint32_t nlen)
{
    for (uint32_t i = 0; i < d->fns.len; i++) {
        mir_dumpfn *f = &d->fns.data[i];
        if (f->nlen == nlen && memcmp(d->r.t.src + f->name, d->r.t.src + name, nlen) == 0) return f;
    }
    mir_dumpfn fn = {name, nlen, NULL, NULL};
    rv_vec_push(d->fns, fn);
    return &d->fns.data[d->fns.len - 1];
}

/* A slot index "NNNB" then a tab: its value, and where the rest starts. */
static int32_t slot_prefix(const char *s, uint32_t a, uint32_t b, uint32_t *rest)
{
    uint32_t i = a;
    int64_t v = 0;
    while (i < b && isdigit((unsigned char)s[i]) && v < INT32_MAX / 10) v = v * 10 + (s[i++] - '0');
    if (i > a && i + 1 < b + 1 && i < b && s[i] == 'B' && (i + 1 == b || s[i + 1] == '\t')) {
        *rest = i + 1;
        return (int32_t)v;
    }
    *rest = a;
    return -1;
}

typedef struct dstate {
    mir_func *cur;   /* the function being read, or NULL */
    bool in_code;    /* past the header sections (the first block seen) */
} dstate;

static bool dump_line(mir_dumps *d, dstate *st, uint32_t a, uint32_t b, uint32_t line)
{
    const char *s = d->r.t.src;
    if (!st->cur) return true;
    if (starts(s, a, b, "# End machine code for function")) {
        st->cur = NULL;
        return true;
    }
    uint32_t rest;
    int32_t slot = slot_prefix(s, a, b, &rest);
    uint32_t k = rest;
    while (k < b && (s[k] == ' ' || s[k] == '\t')) k++;
    if (!st->in_code) {
        if (!starts(s, k, b, "bb.")) return true; /* Frame Objects, Constant Pool, Live Ins, ... */
        st->in_code = true;
    }
    return mir_body_line(&d->r, st->cur, rest, b, line, slot);
}

/* "# Machine code for function NAME: ..." after a Before/After banner. */
static void start_function(mir_dumps *d, dstate *st, uint32_t a, uint32_t b, int which)
{
    const char *s = d->r.t.src;
    uint32_t n0 = a + (uint32_t)strlen("# Machine code for function "), n1 = n0;
    while (n1 < b && s[n1] != ':') n1++;
    mir_dumpfn *fn = find_or_add(d, n0, n1 - n0);
    mir_func *f = rv_xcalloc(1, sizeof *f);
    f->name = n0;
    f->nlen = n1 - n0;
    f->max_vreg = RVI_NONE;
    if (which == 0 && !fn->before) fn->before = f;
    else if (which == 1) {
        if (fn->after) {
            mir_func_free(fn->after);
            rv_free(fn->after);
        }
        fn->after = f;
    } else {
        rv_free(f); /* a second Before dump: ignored */
        f = NULL;
    }
    st->cur = f;
    st->in_code = false;
}

bool mir_dumps_read(mir_dumps *d, const mir_text *t, rv_symtab *syms, ravel_diags *diags)
{
    memset(d, 0, sizeof *d);
    d->r.t = *t;
    d->r.syms = syms;
    d->r.diags = diags;
    d->r.dump = true;
    if (t->len > RV_MAX_INPUT_BYTES) {
        rv_diag_error(diags, t->file, NULL, 0, 0, 0, "input larger than %u bytes", RV_MAX_INPUT_BYTES);
        return false;
    }
    const char *s = t->src;
    dstate st = {NULL, false};
    int which = -1;
    uint32_t line = 1;
    for (uint32_t a = 0; a < t->len;) {
        const char *nl = memchr(s + a, '\n', t->len - a);
        uint32_t b = nl ? (uint32_t)(nl - s) : (uint32_t)t->len;
        if (starts(s, a, b, "# *** IR Dump")) {
            which = has(s, a, b, "IR Dump Before") ? 0 : has(s, a, b, "IR Dump After") ? 1 : -1;
            st.cur = NULL;
        } else if (starts(s, a, b, "# Machine code for function ") && which >= 0) {
            start_function(d, &st, a, b, which);
            which = -1;
        } else if (!dump_line(d, &st, a, b, line)) {
            return false;
        }
        a = b + 1;
        line++;
    }
    return true;
}

void mir_dumps_free(mir_dumps *d)
{
    for (uint32_t i = 0; i < d->fns.len; i++) {
        if (d->fns.data[i].before) mir_func_free(d->fns.data[i].before);
        if (d->fns.data[i].after) mir_func_free(d->fns.data[i].after);
        rv_free(d->fns.data[i].before);
        rv_free(d->fns.data[i].after);
    }
    rv_vec_free(d->fns);
}

const mir_dumpfn *mir_dumps_func(const mir_dumps *d, const char *name, size_t n)
{
    for (uint32_t i = 0; i < d->fns.len; i++) {
        const mir_dumpfn *f = &d->fns.data[i];
        if (f->nlen == n && memcmp(d->r.t.src + f->name, name, n) == 0) return f;
    }
    return NULL;
}
