/*
 * mir.c - the MIR line reader: one machine instruction, as llc-19 prints
 * it in a .mir body or in a -print-before/-print-after dump, read into a
 * mir_inst with its operands and memory operands.
 *
 *   [DEFS =] {flag} OPCODE [OPERAND {, OPERAND}] [, debug-location MD]
 *       [:: MEMOP {, MEMOP}] [; comment]
 *
 * Requires: the line's text (no newline). Guarantees: every operand is
 * classified (registers, immediates, frame objects, pool entries, globals,
 * symbols, blocks, regmasks, sub-register indexes; anything else is
 * MO_OTHER with its text, which only its exact text matches); commas inside
 * (), <>, [], {} and quotes do not split operands; the trailing attributes
 * (debug-location, pcsections, ...) are not operands, and S1's spans for
 * them are recorded. Only what IMPORTER.md needs is interpreted: flags of
 * registers, sub-register indexes, class annotations, ties, memory widths
 * and what a memory operand accesses. Bad lines get FILE:LINE:COL errors.
 */
#include "import/import.h"

#include <ctype.h>

static bool is_word(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_' || ch == '-' || ch == '.';
}

static bool is_ident(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_' || ch == '.' || ch == '$' || ch == '-';
}

/* End of the top-level item starting at i: the next ',' at depth 0, the end,
 * a ';' comment or " :: " at depth 0. */
static uint32_t item_end(const char *s, uint32_t i, uint32_t end)
{
    int depth = 0;
    for (; i < end; i++) {
        char ch = s[i];
        if (ch == '"') {
            for (i++; i < end && s[i] != '"'; i++)
                if (s[i] == '\\' && i + 1 < end) i++;
            continue;
        }
        if (ch == '(' || ch == '<' || ch == '[' || ch == '{') depth++;
        else if ((ch == ')' || ch == '>' || ch == ']' || ch == '}') && depth > 0) depth--;
        else if (depth == 0 && (ch == ',' || ch == ';')) return i;
        else if (depth == 0 && ch == ':' && i + 1 < end && s[i + 1] == ':' && i > 0 && s[i - 1] == ' ') return i - 1;
    }
    return end;
}

static void err(mir_reader *r, uint32_t line, uint32_t pos, const char *msg, uint32_t a, uint32_t b)
{
    uint32_t ln, col;
    mir_linecol(&r->t, pos, &ln, &col);
    (void)line;
    rv_diag_error(r->diags, r->t.file, r->t.src, r->t.len, ln, col, "%s '%.*s'", msg, (int)(b > a ? b - a : 0), r->t.src + a);
}

bool mir_scan_int(const char *s, size_t n, size_t *i, int64_t *v)
{
    size_t k = *i;
    bool neg = k < n && s[k] == '-';
    if (neg) k++;
    if (k >= n || !isdigit((unsigned char)s[k])) return false;
    uint64_t x = 0;
    for (; k < n && isdigit((unsigned char)s[k]); k++) {
        unsigned d = (unsigned)(s[k] - '0');
        if (x > (UINT64_MAX - d) / 10) return false;
        x = x * 10 + d;
    }
    if (!neg && x > (uint64_t)INT64_MAX) return false;
    if (neg && x > (uint64_t)INT64_MAX + 1) return false;
    *v = neg ? (int64_t)(0 - x) : (int64_t)x;
    *i = k;
    return true;
}

void mir_linecol(const mir_text *t, uint32_t pos, uint32_t *line, uint32_t *col)
{
    uint32_t ln = 1, start = 0;
    for (uint32_t i = 0; i < pos && i < t->len; i++)
        if (t->src[i] == '\n') ln++, start = i + 1;
    *line = ln;
    *col = pos - start + 1;
}

static bool word_is(const char *s, uint32_t a, uint32_t b, const char *w)
{
    size_t n = strlen(w);
    return b - a == n && memcmp(s + a, w, n) == 0;
}

static uint32_t word_end(const char *s, uint32_t i, uint32_t end)
{
    while (i < end && is_word(s[i])) i++;
    return i;
}

/* ----- register operands ----- */
static const struct {
    const char *w;
    uint16_t f;
} reg_flags[] = {{"implicit", MOF_IMPLICIT}, {"implicit-def", MOF_IMPLICIT | MOF_DEF}, {"def", MOF_DEF},
                 {"dead", MOF_DEAD},         {"killed", MOF_KILLED},                  {"undef", MOF_UNDEF},
                 {"internal", MOF_INTERNAL}, {"early-clobber", MOF_EARLY},            {"debug-use", MOF_DEBUG},
                 {"renamable", MOF_RENAMABLE}};

static uint32_t read_flags(const char *s, uint32_t i, uint32_t end, uint16_t *flags)
{
    for (;;) {
        uint32_t e = word_end(s, i, end);
        if (e == i || e >= end || s[e] != ' ') return i;
        bool hit = false;
        for (size_t k = 0; k < sizeof reg_flags / sizeof *reg_flags && !hit; k++)
            if (word_is(s, i, e, reg_flags[k].w)) *flags |= reg_flags[k].f, hit = true;
        if (!hit) return i;
        i = e + 1;
        while (i < end && s[i] == ' ') i++;
    }
}

/* The suffixes of a register: .subidx, :class, (tied-def N), (LLT). */
static bool reg_suffixes(mir_reader *r, mir_op *o, uint32_t i, uint32_t end, uint32_t line)
{
    const char *s = r->t.src;
    if (i < end && s[i] == '.') {
        uint32_t e = i + 1;
        while (e < end && (isalnum((unsigned char)s[e]) || s[e] == '_')) e++;
        o->sub = (uint8_t)x86_sub_find(s + i + 1, e - i - 1);
        i = e;
    }
    if (i < end && s[i] == ':') {
        uint32_t e = i + 1;
        while (e < end && (isalnum((unsigned char)s[e]) || s[e] == '_')) e++;
        if (e == i + 1) return err(r, line, i, "expected a register class after", i, e + 1), false;
        o->cls = rv_sym_intern(r->syms, s + i + 1, e - i - 1);
        i = e;
    }
    while (i < end && s[i] == '(') {
        uint32_t e = i;
        while (e < end && s[e] != ')') e++;
        if (e >= end) return err(r, line, i, "unclosed", i, end), false;
        if (e - i > 10 && memcmp(s + i, "(tied-def ", 10) == 0) {
            size_t k = i + 10;
            int64_t v;
            if (!mir_scan_int(s, e, &k, &v) || k != e || v < 0 || v > 1000) return err(r, line, i, "bad tie", i, e + 1), false;
            o->tied = (int16_t)v;
        }
        i = e + 1;
    }
    if (i != end) return err(r, line, i, "unexpected text after a register:", i, end), false;
    return true;
}

static bool read_reg(mir_reader *r, mir_op *o, uint32_t i, uint32_t end, uint32_t line)
{
    const char *s = r->t.src;
    o->kind = MO_REG;
    uint32_t e = i + 1;
    while (e < end && (isalnum((unsigned char)s[e]) || s[e] == '_')) e++;
    o->name = i + 1;
    o->nlen = e - i - 1;
    if (s[i] == '$') {
        int id;
        const char *why;
        enum x86_pcat c = x86_phys_find(s + i + 1, e - i - 1, &id, &why);
        o->preg = (int16_t)(c == XP_MACHINE ? id : c == XP_DROP ? PR_DROP : c == XP_IGNORE ? PR_IGNORE : c == XP_REFUSE ? PR_REFUSE : PR_UNKNOWN);
    } else {
        size_t k = i + 1;
        int64_t v;
        if (!mir_scan_int(s, e, &k, &v) || k != e || v < 0 || v >= (int64_t)RV_MAX_VREG_NUM)
            return err(r, line, i, "unsupported virtual register (named or out of range)", i, e), false;
        o->preg = PR_VIRT;
        o->vreg = (uint32_t)v;
    }
    return reg_suffixes(r, o, e, end, line);
}

/* ----- other operands ----- */
static bool prefix_at(const char *s, uint32_t i, uint32_t end, const char *p)
{
    size_t n = strlen(p);
    return end - i >= n && memcmp(s + i, p, n) == 0;
}

/* @name or &name, quoted or not; then optional " + N" / " - N". */
static bool read_symbol(mir_reader *r, mir_op *o, uint32_t i, uint32_t end, uint32_t line)
{
    const char *s = r->t.src;
    o->kind = s[i] == '@' ? MO_GLOBAL : MO_SYM;
    uint32_t e = i + 1;
    if (e < end && s[e] == '"') {
        for (e++; e < end && s[e] != '"'; e++)
            if (s[e] == '\\' && e + 1 < end) e++;
        if (e >= end) return err(r, line, i, "unclosed quote in", i, end), false;
        e++;
    } else {
        while (e < end && is_ident(s[e])) e++;
    }
    o->name = i + 1;
    o->nlen = e - i - 1;
    if (e + 2 < end && s[e] == ' ' && (s[e + 1] == '+' || s[e + 1] == '-') && s[e + 2] == ' ') {
        size_t k = e + 3;
        int64_t v;
        if (!mir_scan_int(s, end, &k, &v)) return err(r, line, e, "bad offset", e, end), false;
        o->off = s[e + 1] == '-' ? -v : v;
    }
    return true;
}

/* %stack.N[.name], %fixed-stack.N, %const.N [+ off], %jump-table.N, %bb.N, %subreg.X */
static bool read_percent(mir_reader *r, mir_op *o, uint32_t i, uint32_t end, uint32_t line)
{
    static const struct {
        const char *p;
        uint8_t kind;
    } t[] = {{"%stack.", MO_FI}, {"%fixed-stack.", MO_FIXED}, {"%const.", MO_CPI}, {"%jump-table.", MO_JTI}, {"%bb.", MO_BB}};
    const char *s = r->t.src;
    if (prefix_at(s, i, end, "%subreg.")) {
        o->kind = MO_SUBIDX;
        o->sub = (uint8_t)x86_sub_find(s + i + 8, end - i - 8);
        return true;
    }
    for (size_t k = 0; k < sizeof t / sizeof *t; k++) {
        if (!prefix_at(s, i, end, t[k].p)) continue;
        size_t j = i + strlen(t[k].p);
        int64_t v;
        if (!mir_scan_int(s, end, &j, &v) || v < 0) return err(r, line, i, "bad index in", i, end), false;
        o->kind = t[k].kind;
        o->val = v;
        while (j < end && (is_ident(s[j]) && s[j] != '$')) j++; /* .name of a frame object */
        if (j + 2 < end && s[j] == ' ' && (s[j + 1] == '+' || s[j + 1] == '-')) {
            size_t q = j + 3;
            int64_t off;
            if (mir_scan_int(s, end, &q, &off)) o->off = s[j + 1] == '-' ? -off : off;
        }
        return true;
    }
    if (prefix_at(s, i, end, "%ir")) return o->kind = MO_OTHER, true;
    return read_reg(r, o, i, end, line);
}

static bool read_operand(mir_reader *r, mir_op *o, uint32_t i, uint32_t end, uint32_t line)
{
    const char *s = r->t.src;
    memset(o, 0, sizeof *o);
    o->tied = -1;
    o->preg = PR_VIRT;
    o->vreg = RVI_NONE;
    o->cls = RVI_NONE;
    o->pos = i;
    o->len = end - i;
    i = read_flags(s, i, end, &o->flags);
    if (prefix_at(s, i, end, "target-flags(")) {
        while (i < end && s[i] != ')') i++;
        i++;
        while (i < end && s[i] == ' ') i++;
    }
    if (i >= end) return err(r, line, o->pos, "empty operand", o->pos, end), false;
    char ch = s[i];
    if (o->flags && ch != '$' && ch != '%') return err(r, line, i, "register flags on a non-register", o->pos, end), false;
    if (ch == '$') return read_reg(r, o, i, end, line);
    if (ch == '%') return read_percent(r, o, i, end, line);
    if (ch == '@' || ch == '&') return read_symbol(r, o, i, end, line);
    if (ch == '-' || isdigit((unsigned char)ch)) {
        size_t k = i;
        int64_t v;
        if (mir_scan_int(s, end, &k, &v) && k == end) return o->kind = MO_IMM, o->val = v, true;
        return o->kind = MO_OTHER, true;
    }
    if (ch == '<' && prefix_at(s, i, end, "<regmask")) return o->kind = MO_REGMASK, true;
    if (prefix_at(s, i, end, "csr_") || prefix_at(s, i, end, "CSR_")) {
        o->kind = MO_REGMASK;
        o->name = i;
        o->nlen = word_end(s, i, end) - i;
        return true;
    }
    o->kind = MO_OTHER;
    return true;
}

/* ----- memory operands ----- */
static uint32_t llt_bits(const char *s, uint32_t i, uint32_t end)
{
    int64_t v;
    size_t k = i + 1;
    if (i < end && (s[i] == 's' || s[i] == 'i') && mir_scan_int(s, end, &k, &v)) return (uint32_t)v;
    if (i < end && s[i] == 'p' && mir_scan_int(s, end, &k, &v)) return 64;
    if (i < end && s[i] == '<') {
        k = i + 1;
        if (!mir_scan_int(s, end, &k, &v) || k + 3 > end || memcmp(s + k, " x ", 3) != 0) return 0;
        return (uint32_t)v * llt_bits(s, (uint32_t)k + 3, end);
    }
    return 0;
}

static void read_memop(const char *s, uint32_t i, uint32_t end, mir_mem *m)
{
    memset(m, 0, sizeof *m);
    m->what = MO_OTHER;
    m->index = -1;
    for (uint32_t k = i; k < end;) {
        while (k < end && (s[k] == ' ' || s[k] == '(')) k++;
        uint32_t e = word_end(s, k, end);
        if (word_is(s, k, e, "store")) m->store = true;
        if (word_is(s, k, e, "invariant")) m->invariant = true;
        if ((word_is(s, k, e, "load") || word_is(s, k, e, "store")) && !m->bits) {
            uint32_t q = e;
            while (q < end && s[q] == ' ') q++;
            if (q < end && s[q] == '(') m->bits = llt_bits(s, q + 1, end);
            else if (q < end && isdigit((unsigned char)s[q])) { /* LLVM <= 12: bytes */
                size_t z = q;
                int64_t v;
                if (mir_scan_int(s, end, &z, &v)) m->bits = (uint32_t)v * 8;
            }
        }
        if (word_is(s, k, e, "from") || word_is(s, k, e, "into")) {
            uint32_t q = e + 1;
            if (prefix_at(s, q, end, "%stack.")) m->what = MO_FI;
            else if (prefix_at(s, q, end, "%fixed-stack.")) m->what = MO_FIXED;
            else if (prefix_at(s, q, end, "constant-pool")) m->what = MO_CPI;
            else if (prefix_at(s, q, end, "got")) m->what = MO_GLOBAL;
            if (m->what == MO_FI || m->what == MO_FIXED) {
                size_t z = q + (m->what == MO_FI ? 7 : 13);
                int64_t v;
                if (mir_scan_int(s, end, &z, &v)) m->index = v;
            }
            return;
        }
        if (e == k) k++;
        else k = e;
    }
}

static bool read_memops(mir_reader *r, mir_func *f, mir_inst *in, uint32_t i, uint32_t end, uint32_t line)
{
    const char *s = r->t.src;
    in->mem0 = f->mems.len;
    while (i < end) {
        while (i < end && (s[i] == ' ' || s[i] == ',')) i++;
        if (i >= end || s[i] == ';') break;
        if (s[i] != '(') return err(r, line, i, "expected a memory operand at", i, end), false;
        uint32_t e = item_end(s, i, end);
        mir_mem m;
        read_memop(s, i, e, &m);
        rv_vec_push(f->mems, m);
        in->nmem++;
        i = e;
    }
    return true;
}

/* ----- the instruction ----- */
static const char *const trailers[] = {"debug-location", "pre-instr-symbol", "post-instr-symbol", "heap-alloc-marker",
                                       "pcsections",     "mmra",             "cfi-type",          "debug-instr-number",
                                       NULL};

static bool is_trailer(const char *s, uint32_t i, uint32_t end)
{
    uint32_t e = word_end(s, i, end);
    for (size_t k = 0; trailers[k]; k++)
        if (word_is(s, i, e, trailers[k])) return true;
    return false;
}

/* A `debug-location` item: its MD number or inline DILocation line. */
static void read_dl(mir_reader *r, mir_inst *in, uint32_t i, uint32_t end)
{
    const char *s = r->t.src;
    i += (uint32_t)strlen("debug-location");
    while (i < end && s[i] == ' ') i++;
    if (prefix_at(s, i, end, "!DILocation(line: ")) {
        size_t k = i + 18;
        int64_t v;
        if (mir_scan_int(s, end, &k, &v) && v > 0 && v < INT32_MAX) in->tag = (uint32_t)v;
    } else if (i < end && s[i] == '!') {
        size_t k = i + 1;
        int64_t v;
        if (mir_scan_int(s, end, &k, &v) && v >= 0 && v < INT32_MAX) in->md = (uint32_t)v;
    }
}

/* Operands and trailers from i to the end of the operand list. */
static bool read_operands(mir_reader *r, mir_func *f, mir_inst *in, uint32_t i, uint32_t end, uint32_t line, uint32_t *stop)
{
    const char *s = r->t.src;
    uint32_t prev_end = i; /* where the previous item ended (for S1's span) */
    bool first = true;
    for (;;) {
        uint32_t start = i;
        while (i < end && s[i] == ' ') i++;
        if (i >= end || s[i] == ';' || (s[i] == ':' && i + 1 < end && s[i + 1] == ':')) break;
        uint32_t e = item_end(s, i, end);
        uint32_t te = e;
        while (te > i && s[te - 1] == ' ') te--;
        if (is_trailer(s, i, te) && word_is(s, i, word_end(s, i, te), "debug-location")) {
            in->dl_pos = first ? start : prev_end;
            in->dl_end = te;
            in->dl_first = first;
            read_dl(r, in, i, te);
        } else if (is_trailer(s, i, te)) {
            in->items = true;
            in->ins_pos = te;
        } else {
            mir_op o;
            if (!read_operand(r, &o, i, te, line)) return false;
            rv_vec_push(f->ops, o);
            in->nops++;
            in->items = true;
            in->ins_pos = te;
        }
        first = false;
        prev_end = te;
        i = e;
        if (i < end && s[i] == ',') i++;
        else break;
    }
    *stop = i;
    return true;
}

/* The " = " that ends the defs, at depth 0 before a comment or " :: ". */
static uint32_t find_eq(const char *s, uint32_t i, uint32_t end)
{
    uint32_t e = i;
    for (;;) {
        uint32_t k = item_end(s, e, end);
        for (uint32_t q = e; q < k; q++) {
            if (s[q] == '"' || s[q] == '(' || s[q] == '<' || s[q] == '[' || s[q] == '{') break;
            if (s[q] == '=' && q > i && s[q - 1] == ' ' && q + 1 < end && s[q + 1] == ' ') return q;
        }
        if (k >= end || s[k] != ',') return RVI_NONE;
        e = k + 1;
    }
}

static bool read_defs(mir_reader *r, mir_func *f, mir_inst *in, uint32_t i, uint32_t eq, uint32_t line)
{
    const char *s = r->t.src;
    while (i < eq) {
        while (i < eq && s[i] == ' ') i++;
        uint32_t e = item_end(s, i, eq);
        uint32_t te = e;
        while (te > i && s[te - 1] == ' ') te--;
        mir_op o;
        if (!read_operand(r, &o, i, te, line)) return false;
        if (o.kind != MO_REG) return err(r, line, i, "a def must be a register:", i, te), false;
        o.flags |= MOF_DEF;
        rv_vec_push(f->ops, o);
        in->ndefs++;
        in->nops++;
        i = e + 1;
    }
    return true;
}

bool mir_read_inst(mir_reader *r, mir_func *f, uint32_t pos, uint32_t end, uint32_t line)
{
    const char *s = r->t.src;
    mir_inst in;
    memset(&in, 0, sizeof in);
    in.slot = -1;
    in.md = RVI_NONE;
    in.op0 = f->ops.len;
    in.line = line;
    while (pos < end && (s[pos] == ' ' || s[pos] == '\t')) pos++;
    while (end > pos && (s[end - 1] == ' ' || s[end - 1] == '\r')) end--;
    in.pos = pos;
    in.col = 1;
    uint32_t eq = find_eq(s, pos, end);
    uint32_t i = pos;
    if (eq != RVI_NONE) {
        if (!read_defs(r, f, &in, pos, eq, line)) return false;
        i = eq + 1;
    }
    /* instruction flags: lower-case words before the opcode */
    for (;;) {
        while (i < end && s[i] == ' ') i++;
        uint32_t e = word_end(s, i, end);
        if (e == i) return err(r, line, i, "expected an opcode at", i, end), false;
        if (isupper((unsigned char)s[i]) || s[i] == '_') {
            in.opc = rv_sym_intern(r->syms, s + i, e - i);
            in.debug = e - i > 4 && memcmp(s + i, "DBG_", 4) == 0;
            i = e;
            break;
        }
        i = e;
    }
    in.ins_pos = i;
    uint32_t stop;
    if (!read_operands(r, f, &in, i, end, line, &stop)) return false;
    i = stop;
    while (i < end && s[i] == ' ') i++;
    if (i + 1 < end && s[i] == ':' && s[i + 1] == ':' && !read_memops(r, f, &in, i + 2, end, line)) return false;
    rv_vec_push(f->insts, in);
    return true;
}

void mir_func_free(mir_func *f)
{
    rv_vec_free(f->vclass);
    rv_vec_free(f->liveins);
    rv_vec_free(f->stack);
    rv_vec_free(f->fixed);
    rv_vec_free(f->consts);
    rv_vec_free(f->blocks);
    rv_vec_free(f->insts);
    rv_vec_free(f->ops);
    rv_vec_free(f->mems);
    rv_vec_free(f->u32);
}

const char *mir_opc(const mir_reader *r, const mir_inst *in)
{
    return rv_sym_str(r->syms, in->opc);
}

bool mir_opc_is(const mir_reader *r, const mir_inst *in, const char *name)
{
    return strcmp(rv_sym_str(r->syms, in->opc), name) == 0;
}

bool mir_op_text_eq(const mir_text *ta, const mir_op *a, const mir_text *tb, const mir_op *b)
{
    return a->len == b->len && memcmp(ta->src + a->pos, tb->src + b->pos, a->len) == 0;
}
