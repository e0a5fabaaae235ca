/*
 * import.c - the function-level API of ravel_import and the driver of one
 * function's import (the stages of imp.h, in order).
 *
 * Requires: the three texts of one llc run (tag.mir, the dumps, post.mir).
 * Guarantees: every function gets exactly one outcome - imported (both
 * texts), refused (a reason of docs/import-mapping.md §4, nothing written) or
 * an import error (its rule and a FILE:LINE:COL message) - and nothing is
 * guessed: a stage that cannot place something stops the import with an
 * error. The output is a function of the input texts alone (no hashing
 * of addresses, no clock), so runs are deterministic.
 */
#include "import/imp.h"

#include <stdarg.h>
#include <stdlib.h>

static const char *const alloc_names[RVI_NALLOC] = {"greedy", "basic", "fast", "pbqp"};

const char *rvi_alloc_name(enum rvi_alloc a)
{
    return (unsigned)a < RVI_NALLOC ? alloc_names[a] : "?";
}

int rvi_alloc_find(const char *s)
{
    for (int i = 0; i < RVI_NALLOC; i++)
        if (strcmp(s, alloc_names[i]) == 0) return i;
    return -1;
}

void rvi_result_free(rvi_result *r)
{
    rv_free(r->func);
    rv_free(r->reason);
    rv_free(r->message);
    rv_free(r->orig);
    rv_free(r->alloc);
    memset(r, 0, sizeof *r);
}

/* ----- status ----- */
static char *vfmt(const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    char *s = rv_xmalloc((size_t)(n > 0 ? n : 0) + 1);
    vsnprintf(s, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
    return s;
}

const char *imp_name(const imp *x, size_t *n)
{
    *n = x->pre->nlen;
    return x->rp->t.src + x->pre->name;
}

void imp_refuse(imp *x, const char *reason, const char *fmt, ...)
{
    if (x->st.failed) return;
    x->st.failed = true;
    x->st.status = RVI_REFUSED;
    snprintf(x->st.reason, sizeof x->st.reason, "%s", reason);
    va_list ap;
    va_start(ap, fmt);
    x->st.msg = vfmt(fmt, ap);
    va_end(ap);
}

static void vfail(imp *x, enum rvi_outcome st, const char *rule, const mir_reader *r, uint32_t pos, const char *fmt, va_list ap)
{
    if (x->st.failed) return;
    x->st.failed = true;
    x->st.status = st;
    snprintf(x->st.reason, sizeof x->st.reason, "%s", rule);
    char *m = vfmt(fmt, ap);
    uint32_t line = 0, col = 0;
    if (r) mir_linecol(&r->t, pos, &line, &col);
    size_t n = strlen(m) + 256 + (r && r->t.file ? strlen(r->t.file) : 0);
    x->st.msg = rv_xmalloc(n);
    const char *what = st == RVI_ERROR ? "import error" : "refused";
    if (r) snprintf(x->st.msg, n, "%s:%u:%u: %s [%s]: %s", r->t.file ? r->t.file : "<input>", line, col, what, rule, m);
    else snprintf(x->st.msg, n, "%s [%s]: %s", what, rule, m);
    rv_free(m);
}

void imp_error(imp *x, const char *rule, const mir_reader *r, uint32_t pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(x, RVI_ERROR, rule, r, pos, fmt, ap);
    va_end(ap);
}

void imp_refuse_at(imp *x, const char *reason, const mir_reader *r, uint32_t pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(x, RVI_REFUSED, reason, r, pos, fmt, ap);
    va_end(ap);
}

/* ----- the module ----- */
rvi_module *rvi_module_read(const rvi_texts *t, ravel_diags *d)
{
    rvi_module *m = rv_xcalloc(1, sizeof *m);
    bool ok = mir_module_read(&m->tag, &t->tag, &m->syms, d);
    ok = mir_dumps_read(&m->dumps, &t->dumps, &m->syms, d) && ok;
    if (t->post.src) {
        m->has_post = true;
        ok = mir_module_read(&m->post, &t->post, &m->syms, d) && ok;
    }
    if (!ok) {
        rvi_module_free(m);
        return NULL;
    }
    return m;
}

void rvi_module_free(rvi_module *m)
{
    if (!m) return;
    mir_module_free(&m->tag);
    mir_dumps_free(&m->dumps);
    if (m->has_post) mir_module_free(&m->post);
    rv_symtab_free(&m->syms);
    rv_free(m);
}

uint32_t rvi_module_nfuncs(const rvi_module *m)
{
    return m->tag.funcs.len;
}

const char *rvi_module_func_name(const rvi_module *m, uint32_t i, size_t *n)
{
    const mir_func *f = m->tag.funcs.data[i];
    *n = f->nlen;
    return m->tag.r.t.src + f->name;
}

/* ----- one function ----- */
static void imp_init(imp *x, const rvi_module *m, uint32_t i, const rvi_opts *o)
{
    memset(x, 0, sizeof *x);
    x->m = m;
    x->o = o;
    x->alloc = o->alloc;
    x->rp = &m->tag.r;
    x->rv = &m->dumps.r;
    x->rpost = m->has_post ? &m->post.r : NULL;
    x->pre = m->tag.funcs.data[i];
    size_t n;
    const char *name = imp_name(x, &n);
    const mir_dumpfn *df = mir_dumps_func(&m->dumps, name, n);
    x->bf = df ? df->before : NULL;
    x->af = df ? df->after : NULL;
    x->post = m->has_post ? mir_module_func(&m->post, name, n) : NULL;
}

static void imp_free(imp *x)
{
    rv_arena_free(&x->arena);
    rv_vec_free(x->liveins);
    rv_vec_free(x->rs);
    rv_vec_free(x->rblocks);
    rv_vec_free(x->items);
    rv_vec_free(x->key.names);
    rv_vec_free(x->key.vals);
    rv_vec_free(x->ties);
    rv_vec_free(x->tb.list);
    rv_vec_free(x->bd.globals);
    rv_vec_free(x->tb.tt);
    rv_free(x->st.msg);
    fc_free(x->bd.fc);
}

static char *strndup_x(const char *s, size_t n)
{
    char *p = rv_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void rvi_import(const rvi_module *m, uint32_t i, const rvi_opts *o, rvi_result *res)
{
    memset(res, 0, sizeof *res);
    imp x;
    imp_init(&x, m, i, o);
    size_t n;
    const char *name = imp_name(&x, &n);
    res->func = strndup_x(name, n);
    ra_func alloc, orig;
    memset(&alloc, 0, sizeof alloc);
    memset(&orig, 0, sizeof orig);
    imp_check(&x);
    if (!imp_failed(&x)) imp_phys(&x);
    if (!imp_failed(&x)) imp_join(&x);
    if (!imp_failed(&x)) imp_align(&x);
    if (!imp_failed(&x)) imp_build(&x, &alloc, &orig);
    if (!imp_failed(&x)) imp_same(&x, &alloc, &orig);
    if (!imp_failed(&x) && x.alloc == RVI_FAST) imp_fast_renames(&x, &alloc);
    if (!imp_failed(&x)) {
        size_t len;
        res->alloc = imp_emit(&x, &alloc, true, &len);
        res->orig = imp_emit(&x, &alloc, false, &len);
    }
    res->outcome = x.st.failed ? x.st.status : RVI_IMPORTED;
    if (x.st.failed) {
        res->reason = strndup_x(x.st.reason, strlen(x.st.reason));
        res->message = x.st.msg;
        x.st.msg = NULL;
    }
    res->untagged = x.untagged;
    ra_func_free(&alloc);
    ra_func_free(&orig);
    imp_free(&x);
}

bool rvi_import_func(const rvi_texts *t, const char *name, const rvi_opts *o, rvi_result *res, ravel_diags *d)
{
    rvi_module *m = rvi_module_read(t, d);
    if (!m) return false;
    for (uint32_t i = 0; i < rvi_module_nfuncs(m); i++) {
        size_t n;
        const char *s = rvi_module_func_name(m, i, &n);
        if (strlen(name) == n && memcmp(s, name, n) == 0) {
            rvi_import(m, i, o, res);
            rvi_module_free(m);
            return true;
        }
    }
    rv_diag_error(d, t->tag.file, NULL, 0, 0, 0, "no function '%s' in this file", name);
    rvi_module_free(m);
    return false;
}
