/*
 * tag.c - stage S1: give every pre-allocation instruction a unique debug
 * location, so that the allocator's output can be aligned with it (S5).
 *
 * Requires: pre.mir as llc-19 -stop-before=ALLOC writes it, with its IR
 * part and a DISubprogram on each function (clang -gline-tables-only).
 * Guarantees: in each function body, the k-th non-debug instruction (k =
 * 1, 2, ... in layout order) carries `debug-location !M` with M a fresh
 * node `!M = !DILocation(line: BASE+k, scope: !S)`, S the function's
 * DISubprogram; BASE is the first multiple of 1000 above every line the
 * module's metadata names, so no tag equals a location clang made (equal
 * DILocations are one node, which the dumps would print by number). An
 * instruction without operands takes the attribute without a comma. The
 * nodes are appended to the IR part. DBG_* instructions keep their
 * locations (their scope must match their variable's). Nothing else of
 * the text changes.
 */
#include "import/import.h"
#include "import/textbuf.h"

#include <stdlib.h>

typedef struct edit {
    uint32_t a, b;   /* replace src[a, b) */
    uint32_t md;     /* by the tag !md */
    bool comma;
} edit;

typedef RV_VEC(edit) editvec;

static int edit_cmp(const void *x, const void *y)
{
    const edit *p = x, *q = y;
    return p->a < q->a ? -1 : p->a > q->a;
}

/* The edits of one function; false if it has no DISubprogram. */
static bool function_edits(const mir_module *m, const mir_func *f, uint32_t *next_md, uint32_t base, editvec *ed,
                           rvi_buf *nodes, ravel_diags *d)
{
    const mir_irfunc *irf = mir_module_irfunc(m, m->r.t.src + f->name, f->nlen);
    if (!irf || irf->sp == RVI_NONE) {
        rv_diag_error(d, m->r.t.file, m->r.t.src, m->r.t.len, f->line, 1,
                      "function '%.*s' has no DISubprogram to tag with (compile with -gline-tables-only)", (int)f->nlen,
                      m->r.t.src + f->name);
        return false;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < f->insts.len; i++) {
        const mir_inst *in = &f->insts.data[i];
        if (in->debug) continue;
        edit e;
        e.md = (*next_md)++;
        if (in->dl_end) {
            e.a = in->dl_pos;
            e.b = in->dl_end;
            e.comma = !in->dl_first;
        } else {
            e.a = e.b = in->ins_pos;
            e.comma = in->items;
        }
        rv_vec_push(*ed, e);
        rvi_putf(nodes, "  !%u = !DILocation(line: %u, scope: !%u)\n", e.md, base + ++k, irf->sp);
    }
    return true;
}

char *rvi_tag(const mir_text *pre, ravel_diags *d, size_t *outlen)
{
    rv_symtab syms;
    memset(&syms, 0, sizeof syms);
    mir_module m;
    bool ok = mir_module_read(&m, pre, &syms, d);
    if (ok && m.ir_end == 0) {
        rv_diag_error(d, pre->file, pre->src, pre->len, 1, 1, "no IR part (`--- |`) to add tags to: give llc's pre.mir");
        ok = false;
    }
    editvec ed = {0};
    rvi_buf nodes = {0}, out = {0};
    uint32_t next_md = m.max_md + 1, base = (m.max_line / 1000 + 1) * 1000;
    for (uint32_t i = 0; ok && i < m.funcs.len; i++) ok = function_edits(&m, m.funcs.data[i], &next_md, base, &ed, &nodes, d);
    if (ok) {
        if (ed.len) qsort(ed.data, ed.len, sizeof *ed.data, edit_cmp);
        uint32_t at = 0;
        rvi_put(&out, pre->src, m.ir_end);
        if (nodes.len) rvi_put(&out, nodes.p, nodes.len);
        at = m.ir_end;
        for (uint32_t i = 0; i < ed.len; i++) {
            rvi_put(&out, pre->src + at, ed.data[i].a - at);
            rvi_putf(&out, ed.data[i].comma ? ", debug-location !%u" : " debug-location !%u", ed.data[i].md);
            at = ed.data[i].b;
        }
        rvi_put(&out, pre->src + at, pre->len - at);
        *outlen = out.len;
    }
    rv_vec_free(ed);
    rv_free(nodes.p);
    mir_module_free(&m);
    rv_symtab_free(&syms);
    if (!ok) {
        rv_free(out.p);
        return NULL;
    }
    if (!out.p) rvi_put(&out, "", 0);
    return out.p;
}
