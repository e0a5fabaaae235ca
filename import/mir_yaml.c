/*
 * mir_yaml.c - MIR files as llc writes them (pre.mir, tag.mir, post.mir):
 * the IR module of the first YAML document and, per function document, the
 * fields IMPORTER.md reads and the body.
 *
 * Requires: the text of a whole .mir file. Guarantees: each function has
 * its name, the classes of `registers:`, `liveins:`, the frame flags of
 * R2, `fixedStack:` and `stack:` objects (spill slots, immutability,
 * sizes), the values of `constants:`, and its blocks (number, successors,
 * live-ins, EH pads) with their instructions read by mir.c; the IR part
 * gives each `define` its DISubprogram and attribute groups, and the
 * module's DILocations and largest metadata number and line. This is not a
 * YAML parser: it reads the layout llc-14, -16 and -19 print (keys at
 * column 0, list items "  - ", flow mappings "{ k: v, ... }" that may run
 * over several lines, the body as a literal block indented by two).
 */
#include "import/import.h"

#include <ctype.h>
#include <stdlib.h>

typedef struct lines {
    const char *s;
    uint32_t len, pos; /* pos: start of the current line */
    uint32_t line;     /* its number, 1-based */
} lines;

/* The current line [pos, *end); false at the end of the text. */
static bool cur_line(const lines *L, uint32_t *end)
{
    if (L->pos >= L->len) return false;
    const char *nl = memchr(L->s + L->pos, '\n', L->len - L->pos);
    *end = nl ? (uint32_t)(nl - L->s) : L->len;
    return true;
}

static void next_line(lines *L)
{
    uint32_t e = 0;
    if (!cur_line(L, &e)) return;
    L->pos = e < L->len ? e + 1 : e;
    L->line++;
}

static bool starts(const char *s, uint32_t a, uint32_t b, const char *p)
{
    size_t n = strlen(p);
    return b - a >= n && memcmp(s + a, p, n) == 0;
}

static uint32_t indent(const char *s, uint32_t a, uint32_t b)
{
    uint32_t i = a;
    while (i < b && s[i] == ' ') i++;
    return i - a;
}

static void rerr(mir_reader *r, uint32_t pos, const char *msg)
{
    uint32_t ln, col;
    mir_linecol(&r->t, pos, &ln, &col);
    rv_diag_error(r->diags, r->t.file, r->t.src, r->t.len, ln, col, "%s", msg);
}

/* ----- flow mappings: { key: value, ... } ----- */
/* Finds `key:` in s[a,b) at a word boundary; returns the value's span. */
static bool flow_get(const char *s, uint32_t a, uint32_t b, const char *key, uint32_t *va, uint32_t *vb)
{
    size_t n = strlen(key);
    for (uint32_t i = a; i + n + 1 <= b; i++) {
        if (memcmp(s + i, key, n) != 0 || s[i + n] != ':') continue;
        if (i > a && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '-' || s[i - 1] == '_')) continue;
        uint32_t v = i + (uint32_t)n + 1;
        while (v < b && (s[v] == ' ' || s[v] == '\n')) v++;
        uint32_t e = v;
        if (v < b && s[v] == '\'') {
            for (e = v + 1; e < b && !(s[e] == '\'' && (e + 1 >= b || s[e + 1] != '\'')); e++)
                if (s[e] == '\'') e++;
            *va = v + 1;
            *vb = e;
            return true;
        }
        while (e < b && s[e] != ',' && s[e] != '}' && s[e] != '\n') e++;
        while (e > v && s[e - 1] == ' ') e--;
        *va = v;
        *vb = e;
        return true;
    }
    return false;
}

static bool flow_int(const char *s, uint32_t a, uint32_t b, const char *key, int64_t *v)
{
    uint32_t va, vb;
    size_t k;
    if (!flow_get(s, a, b, key, &va, &vb)) return false;
    k = va;
    return mir_scan_int(s, vb, &k, v) && k == vb;
}

static bool flow_is(const char *s, uint32_t a, uint32_t b, const char *key, const char *want)
{
    uint32_t va, vb;
    return flow_get(s, a, b, key, &va, &vb) && vb - va == strlen(want) && memcmp(s + va, want, vb - va) == 0;
}

/* The list item starting at the current line: "  - { ... }" over one or
 * more lines, or "  - key: value" followed by "    key: value" lines.
 * Leaves L on the line after it; returns its span. */
static void list_item(lines *L, uint32_t *a, uint32_t *b)
{
    uint32_t e = 0;
    cur_line(L, &e);
    *a = L->pos;
    int depth = 0;
    bool flow = false;
    for (uint32_t i = L->pos; i < e; i++) {
        if (L->s[i] == '{') flow = true, depth++;
        if (L->s[i] == '}') depth--;
    }
    next_line(L);
    *b = e;
    while (cur_line(L, &e)) {
        uint32_t ind = indent(L->s, L->pos, e);
        if (flow ? depth <= 0 : (ind < 4 || starts(L->s, L->pos + ind, e, "- "))) break;
        for (uint32_t i = L->pos; i < e; i++) {
            if (L->s[i] == '{') depth++;
            if (L->s[i] == '}') depth--;
        }
        *b = e;
        next_line(L);
    }
}

/* ----- the function document ----- */
static void read_registers(mir_reader *r, mir_func *f, uint32_t a, uint32_t b)
{
    int64_t id;
    uint32_t va, vb;
    if (!flow_int(r->t.src, a, b, "id", &id) || id < 0 || id >= (int64_t)RV_MAX_VREG_NUM) return;
    if (!flow_get(r->t.src, a, b, "class", &va, &vb) || vb == va || r->t.src[va] == '_') return;
    while (f->vclass.len <= (uint32_t)id) rv_vec_push(f->vclass, RVI_NONE);
    f->vclass.data[id] = rv_sym_intern(r->syms, r->t.src + va, vb - va);
    if (f->max_vreg == RVI_NONE || (uint32_t)id > f->max_vreg) f->max_vreg = (uint32_t)id;
}

static void read_livein(mir_reader *r, mir_func *f, uint32_t a, uint32_t b)
{
    uint32_t va, vb;
    mir_livein li = {PR_UNKNOWN, 0, 0, RVI_NONE};
    if (!flow_get(r->t.src, a, b, "reg", &va, &vb) || vb - va < 2 || r->t.src[va] != '$') return;
    int id;
    const char *why;
    enum x86_pcat c = x86_phys_find(r->t.src + va + 1, vb - va - 1, &id, &why);
    li.preg = (int16_t)(c == XP_MACHINE ? id : c == XP_DROP ? PR_DROP : c == XP_IGNORE ? PR_IGNORE : c == XP_REFUSE ? PR_REFUSE : PR_UNKNOWN);
    li.name = va + 1;
    li.nlen = vb - va - 1;
    if (flow_get(r->t.src, a, b, "virtual-reg", &va, &vb) && vb - va > 1 && r->t.src[va] == '%') {
        size_t k = va + 1;
        int64_t v;
        if (mir_scan_int(r->t.src, vb, &k, &v) && v >= 0) li.vreg = (uint32_t)v;
    }
    rv_vec_push(f->liveins, li);
}

static void read_object(mir_reader *r, mir_func *f, uint32_t a, uint32_t b, bool fixed)
{
    const char *s = r->t.src;
    mir_obj o = {0, false, false, false, 0, 0};
    int64_t v;
    if (!flow_int(s, a, b, "id", &v)) return;
    o.id = (int32_t)v;
    if (flow_int(s, a, b, "size", &v)) o.size = v;
    if (flow_int(s, a, b, "offset", &v)) o.offset = v;
    o.spill = flow_is(s, a, b, "type", "spill-slot");
    o.varsized = flow_is(s, a, b, "type", "variable-sized");
    o.immutable = flow_is(s, a, b, "isImmutable", "true");
    if (fixed) rv_vec_push(f->fixed, o);
    else rv_vec_push(f->stack, o);
}

static void read_constant(mir_reader *r, mir_func *f, uint32_t a, uint32_t b)
{
    uint32_t va, vb;
    int64_t id;
    const char *s = r->t.src;
    /* block style: "- id: 0\n    value: '...'" reads like a flow map here */
    if (!flow_int(s, a, b, "id", &id) || id < 0 || id > 100000) return;
    if (!flow_get(s, a, b, "value", &va, &vb)) return;
    while (f->consts.len < 2 * (uint32_t)id + 2) rv_vec_push(f->consts, 0);
    f->consts.data[2 * id] = va;
    f->consts.data[2 * id + 1] = vb - va;
}

static void read_list(mir_reader *r, lines *L, mir_func *f, int which)
{
    uint32_t e = 0;
    while (cur_line(L, &e)) {
        uint32_t ind = indent(L->s, L->pos, e);
        if (ind == e - L->pos) { next_line(L); continue; }
        if (ind == 0 || !starts(L->s, L->pos + ind, e, "- ")) return;
        uint32_t a, b;
        list_item(L, &a, &b);
        if (which == 0) read_registers(r, f, a, b);
        else if (which == 1) read_livein(r, f, a, b);
        else if (which == 2 || which == 3) read_object(r, f, a, b, which == 3);
        else read_constant(r, f, a, b);
    }
}

static void read_frameinfo(mir_reader *r, lines *L, mir_func *f)
{
    static const struct {
        const char *k;
        unsigned flag;
    } t[] = {{"isFrameAddressTaken", FF_FRAMEADDR}, {"hasOpaqueSPAdjustment", FF_OPAQUESP}, {"hasStackMap", FF_STACKMAP},
             {"hasPatchPoint", FF_PATCHPOINT},      {"hasCalls", FF_HASCALLS}};
    uint32_t e = 0;
    while (cur_line(L, &e) && indent(L->s, L->pos, e) >= 2) {
        uint32_t a = L->pos, va, vb;
        for (size_t k = 0; k < sizeof t / sizeof *t; k++)
            if (flow_is(L->s, a, e, t[k].k, "true")) f->fflags |= t[k].flag;
        int64_t v;
        if (flow_int(L->s, a, e, "maxAlignment", &v)) f->max_align = v;
        (void)va, (void)vb;
        next_line(L);
    }
    (void)r;
}

/* ----- the body ----- */
static void push_reg_list(mir_reader *r, mir_func *f, uint32_t a, uint32_t b, uint32_t *n)
{
    const char *s = r->t.src;
    for (uint32_t i = a; i < b; i++) {
        if (s[i] == ';') break;
        if (s[i] != '$') continue;
        uint32_t e = i + 1;
        while (e < b && (isalnum((unsigned char)s[e]) || s[e] == '_')) e++;
        int id;
        const char *why;
        enum x86_pcat c = x86_phys_find(s + i + 1, e - i - 1, &id, &why);
        rv_vec_push(f->u32, (uint32_t)(int32_t)(c == XP_MACHINE ? id : c == XP_DROP ? PR_DROP : c == XP_IGNORE ? PR_IGNORE : c == XP_REFUSE ? PR_REFUSE : PR_UNKNOWN));
        (*n)++;
        i = e - 1;
    }
}

static void push_succs(mir_reader *r, mir_func *f, uint32_t a, uint32_t b, uint32_t *n)
{
    const char *s = r->t.src;
    for (uint32_t i = a; i + 4 <= b; i++) {
        if (s[i] == ';') break;
        if (memcmp(s + i, "%bb.", 4) != 0) continue;
        size_t k = i + 4;
        int64_t v;
        if (mir_scan_int(s, b, &k, &v) && v >= 0) {
            rv_vec_push(f->u32, (uint32_t)v);
            (*n)++;
        }
        i = (uint32_t)k - 1;
    }
}

/* "bb.N[.name] [(attrs)]:" */
static bool block_header(mir_reader *r, mir_func *f, uint32_t a, uint32_t b, uint32_t line, int32_t slot)
{
    const char *s = r->t.src;
    size_t k = a + 3;
    int64_t v;
    if (!mir_scan_int(s, b, &k, &v) || v < 0 || v > INT32_MAX) return rerr(r, a, "bad block label"), false;
    mir_block blk;
    memset(&blk, 0, sizeof blk);
    blk.num = (int32_t)v;
    blk.line = line;
    blk.slot = slot;
    blk.i0 = f->insts.len;
    for (uint32_t i = (uint32_t)k; i + 11 <= b; i++)
        if (memcmp(s + i, "landing-pad", 11) == 0 || memcmp(s + i, "ehfunclet-e", 11) == 0) blk.ehpad = true;
    rv_vec_push(f->blocks, blk);
    return true;
}

/* One body line (without its indentation and slot index): a block header,
 * successors, liveins, a comment or an instruction. */
bool mir_body_line(mir_reader *r, mir_func *f, uint32_t a, uint32_t b, uint32_t line, int32_t slot)
{
    const char *s = r->t.src;
    while (a < b && (s[a] == ' ' || s[a] == '\t')) a++;
    while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\r')) b--;
    if (a == b || s[a] == ';') return true;
    if (starts(s, a, b, "bb.") && s[b - 1] == ':') return block_header(r, f, a, b, line, slot);
    if (!f->blocks.len) return rerr(r, a, "an instruction before the first block"), false;
    mir_block *blk = &f->blocks.data[f->blocks.len - 1];
    if (starts(s, a, b, "successors:")) {
        blk->s0 = f->u32.len;
        push_succs(r, f, a + 11, b, &blk->ns);
        return true;
    }
    if (starts(s, a, b, "liveins:")) {
        blk->l0 = f->u32.len;
        push_reg_list(r, f, a + 8, b, &blk->nl);
        return true;
    }
    if (s[a] == '{' || s[a] == '}') return rerr(r, a, "instruction bundles are not supported"), false;
    if (!mir_read_inst(r, f, a, b, line)) return false;
    mir_inst *in = &f->insts.data[f->insts.len - 1];
    in->slot = slot;
    in->block = (uint16_t)(f->blocks.len - 1);
    blk = &f->blocks.data[f->blocks.len - 1];
    blk->n++;
    if (f->blocks.len > 65535) return rerr(r, a, "too many blocks"), false;
    for (uint32_t k = 0; k < in->nops; k++) {
        const mir_op *o = &f->ops.data[in->op0 + k];
        if (o->kind == MO_REG && o->vreg != RVI_NONE && (f->max_vreg == RVI_NONE || o->vreg > f->max_vreg)) f->max_vreg = o->vreg;
    }
    return true;
}

static bool read_body(mir_reader *r, lines *L, mir_func *f)
{
    uint32_t e = 0;
    f->body_line = L->line;
    while (cur_line(L, &e)) {
        uint32_t ind = indent(L->s, L->pos, e);
        if (ind < 2 && ind < e - L->pos) return true;  /* the next key or "..." */
        if (!mir_body_line(r, f, L->pos, e, L->line, -1)) return false;
        next_line(L);
    }
    return true;
}

static const struct {
    const char *key;
    int list;
} list_keys[] = {{"registers:", 0}, {"liveins:", 1}, {"stack:", 2}, {"fixedStack:", 3}, {"constants:", 4}};

static bool read_function(mir_module *m, lines *L, mir_func *f)
{
    mir_reader *r = &m->r;
    const char *s = L->s;
    uint32_t e = 0;
    f->max_vreg = RVI_NONE;
    while (cur_line(L, &e)) {
        uint32_t a = L->pos;
        if (starts(s, a, e, "---") || starts(s, a, e, "...")) return true;
        if (starts(s, a, e, "name:")) {
            uint32_t v = a + 5;
            while (v < e && s[v] == ' ') v++;
            f->name = v;
            f->nlen = e - v;
            while (f->nlen && (s[v + f->nlen - 1] == ' ' || s[v + f->nlen - 1] == '\r')) f->nlen--;
            if (f->nlen >= 2 && s[v] == '\'' && s[v + f->nlen - 1] == '\'') f->name++, f->nlen -= 2;
            f->line = L->line;
        }
        if (starts(s, a, e, "callsEHReturn:") && flow_is(s, a, e, "callsEHReturn", "true")) f->fflags |= FF_EHRETURN;
        if (starts(s, a, e, "callsUnwindInit:") && flow_is(s, a, e, "callsUnwindInit", "true")) f->fflags |= FF_UNWINDINIT;
        if (starts(s, a, e, "hasEHFunclets:") && flow_is(s, a, e, "hasEHFunclets", "true")) f->fflags |= FF_FUNCLETS;
        bool handled = false;
        for (size_t k = 0; k < sizeof list_keys / sizeof *list_keys && !handled; k++) {
            if (!starts(s, a, e, list_keys[k].key)) continue;
            next_line(L);
            read_list(r, L, f, list_keys[k].list);
            handled = true;
        }
        if (handled) continue;
        if (starts(s, a, e, "frameInfo:")) {
            next_line(L);
            read_frameinfo(r, L, f);
            continue;
        }
        if (starts(s, a, e, "body:")) {
            next_line(L);
            if (!read_body(r, L, f)) return false;
            continue;
        }
        next_line(L);
    }
    return true;
}

/* ----- the IR part ----- */
static void ir_define(mir_module *m, uint32_t a, uint32_t b)
{
    const char *s = m->r.t.src;
    uint32_t at = a;
    while (at < b && s[at] != '@') at++;
    if (at >= b) return;
    mir_irfunc fn = {at + 1, 0, RVI_NONE, RVI_NONE};
    uint32_t e = at + 1;
    if (e < b && s[e] == '"') {
        for (e++; e < b && s[e] != '"'; e++) {}
        fn.name = at + 2;
        fn.nlen = e - at - 2;
    } else {
        while (e < b && s[e] != '(') e++;
        fn.nlen = e - at - 1;
    }
    int depth = 0;
    uint32_t i = e;
    for (; i < b; i++) {
        if (s[i] == '(') depth++;
        if (s[i] == ')' && --depth == 0) break;
    }
    for (; i < b; i++) {
        size_t k;
        int64_t v;
        if (s[i] == '#' && (k = i + 1, mir_scan_int(s, b, &k, &v)) && v >= 0) fn.attr = (uint32_t)v;
        if (starts(s, i, b, "!dbg !") && (k = i + 6, mir_scan_int(s, b, &k, &v)) && v >= 0) fn.sp = (uint32_t)v;
    }
    rv_vec_push(m->irfuncs, fn);
}

static void ir_metadata(mir_module *m, uint32_t a, uint32_t b)
{
    const char *s = m->r.t.src;
    size_t k = a + 1;
    int64_t id;
    if (!mir_scan_int(s, b, &k, &id) || id < 0 || id > INT32_MAX) return;
    if ((uint32_t)id > m->max_md) m->max_md = (uint32_t)id;
    for (uint32_t i = (uint32_t)k; i + 6 < b; i++) {
        if (memcmp(s + i, "line: ", 6) != 0 || (i > a && isalnum((unsigned char)s[i - 1]))) continue;
        size_t q = i + 6;
        int64_t v;
        if (mir_scan_int(s, b, &q, &v) && v > 0 && v < INT32_MAX && (uint32_t)v > m->max_line) m->max_line = (uint32_t)v;
    }
    const char *loc = strstr(s + k, "!DILocation(line: ");
    if (!loc || loc >= s + b) return;
    if (memchr(s + k, '\n', (size_t)(loc - (s + k)))) return;
    size_t q = (size_t)(loc - s) + 18;
    int64_t v;
    if (!mir_scan_int(s, b, &q, &v) || v <= 0 || v > INT32_MAX) return;
    mir_md md = {(uint32_t)id, (uint32_t)v};
    rv_vec_push(m->tags, md);
}

static void read_ir(mir_module *m, lines *L)
{
    uint32_t e = 0;
    m->ir_pos = L->pos;
    while (cur_line(L, &e)) {
        uint32_t a = L->pos;
        if (starts(L->s, a, e, "...") || starts(L->s, a, e, "---")) break;
        uint32_t ind = indent(L->s, a, e);
        if (starts(L->s, a + ind, e, "define ")) ir_define(m, a + ind, e);
        else if (starts(L->s, a + ind, e, "!") && a + ind + 1 < e && isdigit((unsigned char)L->s[a + ind + 1])) ir_metadata(m, a + ind, e);
        else if (starts(L->s, a + ind, e, "attributes #")) {
            size_t k = a + ind + 12;
            int64_t v;
            if (mir_scan_int(L->s, e, &k, &v) && v >= 0) {
                rv_vec_push(m->attrs, (uint32_t)v);
                rv_vec_push(m->attrs, a + ind);
            }
        }
        next_line(L);
    }
    m->ir_end = L->pos;
}

static int md_cmp(const void *a, const void *b)
{
    const mir_md *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

bool mir_module_read(mir_module *m, const mir_text *t, rv_symtab *syms, ravel_diags *d)
{
    memset(m, 0, sizeof *m);
    m->r.t = *t;
    m->r.syms = syms;
    m->r.diags = d;
    if (t->len > RV_MAX_INPUT_BYTES) {
        rv_diag_error(d, t->file, NULL, 0, 0, 0, "input larger than %u bytes", RV_MAX_INPUT_BYTES);
        return false;
    }
    lines L = {t->src, (uint32_t)t->len, 0, 1};
    uint32_t e = 0;
    bool ok = true, seen_doc = false;
    while (ok && cur_line(&L, &e)) {
        if (starts(L.s, L.pos, e, "--- |") && !seen_doc) {
            next_line(&L);
            read_ir(m, &L);
            seen_doc = true;
            continue;
        }
        if (starts(L.s, L.pos, e, "---")) {
            seen_doc = true;
            next_line(&L);
            mir_func *f = rv_xcalloc(1, sizeof *f);
            rv_vec_push(m->funcs, f);
            ok = read_function(m, &L, f);
            if (ok && !f->nlen) rerr(&m->r, L.pos < t->len ? L.pos : 0, "a function without a name"), ok = false;
            continue;
        }
        next_line(&L);
    }
    if (ok && !m->funcs.len) {
        rv_diag_error(d, t->file, t->src, t->len, 1, 1, "no machine function in this file (expected a MIR file from llc)");
        ok = false;
    }
    if (m->tags.len) qsort(m->tags.data, m->tags.len, sizeof *m->tags.data, md_cmp);
    return ok;
}

void mir_module_free(mir_module *m)
{
    for (uint32_t i = 0; i < m->funcs.len; i++) {
        mir_func_free(m->funcs.data[i]);
        rv_free(m->funcs.data[i]);
    }
    rv_vec_free(m->funcs);
    rv_vec_free(m->tags);
    rv_vec_free(m->irfuncs);
    rv_vec_free(m->attrs);
}

mir_func *mir_module_func(const mir_module *m, const char *name, size_t n)
{
    for (uint32_t i = 0; i < m->funcs.len; i++) {
        mir_func *f = m->funcs.data[i];
        if (f->nlen == n && memcmp(m->r.t.src + f->name, name, n) == 0) return f;
    }
    return NULL;
}

const mir_irfunc *mir_module_irfunc(const mir_module *m, const char *name, size_t n)
{
    for (uint32_t i = 0; i < m->irfuncs.len; i++) {
        const mir_irfunc *f = &m->irfuncs.data[i];
        if (f->nlen == n && memcmp(m->r.t.src + f->name, name, n) == 0) return f;
    }
    return NULL;
}

uint32_t mir_module_md_line(const mir_module *m, uint32_t md)
{
    uint32_t lo = 0, hi = m->tags.len;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->tags.data[mid].id == md) return m->tags.data[mid].line;
        if (m->tags.data[mid].id < md) lo = mid + 1;
        else hi = mid;
    }
    return 0;
}

const char *mir_module_attrs(const mir_module *m, uint32_t a, size_t *len)
{
    for (uint32_t i = 0; i + 1 < m->attrs.len; i += 2) {
        if (m->attrs.data[i] != a) continue;
        const char *s = m->r.t.src + m->attrs.data[i + 1];
        const char *nl = memchr(s, '\n', m->r.t.len - m->attrs.data[i + 1]);
        *len = nl ? (size_t)(nl - s) : m->r.t.len - m->attrs.data[i + 1];
        return s;
    }
    return NULL;
}
