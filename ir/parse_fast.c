/* parse_fast.c - the reader's fast path (issue 32): a function body's line
 * of one of the common shapes, read in one scan of its bytes.
 *
 *   DEFS = MNEMONIC USES       MNEMONIC USES      call NAME USES too
 *   DEF = undef
 *   LOC = spill|reload|move LOC
 *   jump TARGET | br [COND,] TARGET, TARGET... | ret USES
 *   LABEL[(vN:CLASS[.ref], ...)]:
 *
 * with operands [early|late] vN[:CLASS[.ref]] [reg|any|stack|fixed(R)|
 * reuse(K)] [@LOC] (annotations on defs and parameters only), decimal or
 * hexadecimal immediates, targets LABEL[(vN, ...)], the attributes
 * clobbers(R...), safepoint and stackmap(sN...) (without ranges), and an
 * optional comment.
 *
 * Requires: a parser inside a function (parse_func.c), its current token
 * the line's first, and the module's copy of the source ending with a NUL.
 * Guarantees: rvp_fast_line reads the line in two steps: a scan that
 * changes nothing and gives up (false) at anything it does not know, or at
 * anything parse_func.c would report; then, only if the whole line is
 * well-formed, the same builder steps as parse_func.c, in the same order
 * (vreg ids, blocks, symbols and arrays come out identical). A line it
 * gives up on is read by parse_func.c from its first token, so every
 * diagnostic, with its FILE:LINE:COL and caret, is parse_func.c's.
 * test_parse_fast (tests/api) reads every .ra file of the repository and
 * many generated and mutated texts both ways and requires identical
 * functions and diagnostics. */
#include "parse.h"

#include <string.h>

enum { FL_OPS = 48, FL_TARGETS = 8 };
enum { FL_INST, FL_EDIT, FL_JUMP, FL_BR, FL_RET, FL_LABEL };

/* One use or def: an operand (vreg holds the number until the commit) or
 * an immediate. */
typedef struct fitem {
    opnd o;
    int64_t imm;
    bool is_imm;
} fitem;

typedef struct ftarget {
    const char *s;
    uint32_t n, first, nargs; /* arguments: fline.args[first .. first + nargs) */
} ftarget;

/* A scanned line, before anything is built. */
typedef struct fline {
    int kind;
    ravel_opcode op;
    const char *name; /* mnemonic (OTHER) or callee (CALL) */
    uint32_t nname;
    uint32_t ndefs, nitems, ntargets, nargs;
    ravel_loc dst, src; /* edits */
    fitem it[FL_OPS];   /* defs (ndefs), then uses; a label's parameters */
    ftarget tg[FL_TARGETS];
    uint32_t args[FL_OPS]; /* targets' vreg numbers */
    uint32_t attr_seen, nattrs, nlist; /* attributes: bit kw & 31 of each seen */
    uint8_t attr[3];                   /* KW_CLOBBERS, KW_SAFEPOINT, KW_STACKMAP in their order */
    uint32_t list_end[3];              /* attribute k's list: list[list_end[k - 1] .. list_end[k]) */
    uint32_t list[FL_OPS];             /* registers of clobbers, slots of stackmap */
} fline;

/* ---- scanning: each returns the position after what it read, or NULL ---------- */

static const char *sp(const char *p) { return skip_hspace(p); }

/* The identifier at p (is_id0): its end. */
static const char *ident(const char *p, uint32_t *n)
{
    const char *e = ident_end(p);
    *n = (uint32_t)(e - p);
    return e;
}

/* c followed by decimal digits and no other identifier byte (vN, sN), no
 * leading zero, at most max; NULL if not exactly that. */
static const char *num_name(const char *p, char c, uint32_t max, uint32_t *num)
{
    if (p[0] != c || !is_digit(p[1]) || (p[1] == '0' && is_digit(p[2]))) return NULL;
    uint64_t v = 0;
    const char *q = p + 1;
    for (; is_digit(*q) && q - p <= 10; q++) v = v * 10 + (uint64_t)(*q - '0');
    if (is_id(*q) || v > max) return NULL;
    *num = (uint32_t)v;
    return q;
}

static bool is_word(const char *s, uint32_t n, const char *w, uint32_t wn) { return n == wn && memcmp(s, w, n) == 0; }

/* The end of the line at p (after space and a comment): the byte after its
 * newline; NULL if anything else is there or the input ends first. */
static const char *eol(const parser *P, const char *p)
{
    p = sp(p);
    if (*p == '#') p = memchr(p, '\n', (size_t)(P->lx.end - p));
    return p && *p == '\n' && p < P->lx.end ? p + 1 : NULL;
}

/* A hexadecimal digit's value, or -1. */
static int hex_digit(int c)
{
    if (is_digit(c)) return c - '0';
    c |= 0x20; /* (only A-F become a-f) */
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* An immediate as the lexer reads one (rvp_lex_int): [-] decimal | [-] 0x
 * hex, that fits int64; NULL for one that does not (T_BAD). */
static const char *imm(const char *p, int64_t *v)
{
    bool neg = *p == '-';
    p += neg;
    bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    uint64_t x = 0, base = hex ? 16 : 10, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    const char *q = p += hex ? 2 : 0;
    for (int d; (d = hex ? hex_digit((unsigned char)*q) : is_digit(*q) ? *q - '0' : -1) >= 0; q++) {
        if (x > (lim - (uint64_t)d) / base) return NULL;
        x = x * base + (uint64_t)d;
    }
    if (q == p || is_id(*q)) return NULL;
    *v = !neg ? (int64_t)x : x > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)x;
    return q;
}

/* :CLASS[.ref] after a vreg (p at the ':'). */
static const char *class_ann(const parser *P, const char *p, opnd *o)
{
    uint32_t n;
    p = sp(p + 1);
    if (!is_id0(*p)) return NULL;
    const char *e = ident(p, &n);
    int cls = rvp_find_class(P, p, n);
    if (cls < 0) return NULL;
    o->ann = true;
    o->cls = (uint8_t)cls;
    const char *q = sp(e);
    if (*q != '.' || q[1] == '.') return e;
    q = sp(q + 1);
    if (!is_id0(*q)) return NULL;
    e = ident(q, &n);
    if (!is_word(q, n, "ref", 3)) return NULL;
    o->ref = true;
    return e;
}

/* A location: sN or a register name. */
static const char *loc(const parser *P, const char *p, ravel_loc *l)
{
    uint32_t num, n;
    if (!is_id0(*p)) return NULL;
    const char *e = num_name(p, 's', RAVEL_MAX_SLOT, &num);
    if (e) return *l = ravel_slot(num), e;
    if (*p == 's' && is_digit(p[1])) return NULL; /* a malformed slot, or a name parse_loc tests further */
    e = ident(p, &n);
    int r = rvp_find_reg_src(P, p, n);
    if (r < 0) return NULL;
    *l = (ravel_loc)r;
    return e;
}

/* ( NAME ) or ( K ) after fixed / reuse (p after the keyword). */
static const char *paren_arg(const parser *P, const char *p, bool reg, uint32_t *arg)
{
    uint32_t n;
    p = sp(p);
    if (*p != '(') return NULL;
    p = sp(p + 1);
    if (reg) {
        if (!is_id0(*p)) return NULL;
        const char *e = ident(p, &n);
        int r = rvp_find_reg_src(P, p, n);
        if (r < 0) return NULL;
        *arg = (uint32_t)r;
        p = e;
    } else {
        uint32_t k = 0;
        const char *q = p;
        for (; is_digit(*q) && q - p < 5; q++) k = k * 10 + (uint32_t)(*q - '0');
        if (q == p || is_id(*q) || k > 65535) return NULL;
        *arg = k;
        p = q;
    }
    p = sp(p);
    return *p == ')' ? p + 1 : NULL;
}

/* reg | any | stack | fixed(R) | reuse(K), if there (p at an identifier). */
static const char *constraint(const parser *P, const char *p, opnd *o)
{
    uint32_t n;
    const char *e = ident(p, &n);
    if (is_word(p, n, "reg", 3)) return o->c = RAVEL_C_REG, e;
    if (is_word(p, n, "any", 3)) return o->c = RAVEL_C_ANY, e;
    if (is_word(p, n, "stack", 5)) return o->c = RAVEL_C_STACK, e;
    if (is_word(p, n, "fixed", 5)) return o->c = RAVEL_C_FIXED, paren_arg(P, e, true, &o->arg);
    if (is_word(p, n, "reuse", 5)) return o->c = RAVEL_C_REUSE, paren_arg(P, e, false, &o->arg);
    return p; /* not a constraint: what follows the operand */
}

/* [early|late] vN[:CLASS[.ref]] [CONSTRAINT] [@LOC]; o->vreg is the number. */
static const char *operand(const parser *P, const char *p, opnd *o)
{
    uint32_t n;
    memset(o, 0, sizeof *o);
    o->loc = RAVEL_LOC_NONE;
    if (*p == 'e' || *p == 'l') {
        const char *e = ident(p, &n);
        bool early = is_word(p, n, "early", 5);
        if (!early && !is_word(p, n, "late", 4)) return NULL;
        if (!is_hspace(*e)) return NULL;
        o->pos = early ? RAVEL_POS_EARLY : RAVEL_POS_LATE;
        p = sp(e);
    }
    p = num_name(p, 'v', RV_MAX_VREG_NUM, &o->vreg);
    if (!p) return NULL;
    const char *q = sp(p);
    if (*q == ':' && !(p = class_ann(P, q, o))) return NULL;
    q = sp(p);
    if (is_id0(*q)) {
        const char *e = constraint(P, q, o);
        if (e == q) return q; /* an identifier that is no constraint follows */
        if (!e) return NULL;
        q = sp(p = e);
    }
    if (*q != '@') return p;
    return loc(P, sp(q + 1), &o->loc);
}

/* clobbers(REG...) | safepoint | stackmap(sN...), each at most once, in
 * any order, the lists without ranges (p at an identifier); returns the
 * end of the line. */
static const char *attrs(const parser *P, const char *p, fline *L)
{
    for (uint32_t n; is_id0(*p); p = sp(p)) {
        const char *e = ident(p, &n);
        int kw = rvp_kw_of(p, n);
        if ((kw != KW_CLOBBERS && kw != KW_SAFEPOINT && kw != KW_STACKMAP) || (L->attr_seen >> (kw & 31) & 1)) return NULL;
        L->attr_seen |= 1u << (kw & 31);
        L->attr[L->nattrs++] = (uint8_t)kw;
        L->list_end[L->nattrs - 1] = L->nlist;
        p = sp(e);
        if (kw == KW_SAFEPOINT) continue;
        if (*p != '(') return NULL;
        for (p = sp(p + 1); *p != ')'; p = sp(p)) {
            uint32_t x;
            if (L->nlist >= FL_OPS || !is_id0(*p)) return NULL;
            if (kw == KW_STACKMAP) {
                if (!(e = num_name(p, 's', RAVEL_MAX_SLOT, &x))) return NULL;
            } else {
                e = ident(p, &n);
                int r = rvp_find_reg_src(P, p, n);
                if (r < 0) return NULL;
                x = (uint32_t)r;
            }
            L->list[L->nlist++] = x;
            p = e;
            if (*sp(p) == '.') return NULL; /* a range */
        }
        L->list_end[L->nattrs - 1] = L->nlist;
        p++;
    }
    return eol(P, p);
}

/* The first use's first bytes: a vreg, `early` or `late` (what at_use of
 * parse_func.c takes for a use, or an error), or an integer. */
static bool at_use(const char *p)
{
    if (*p == 'v' || is_digit(*p) || *p == '-') return true;
    uint32_t n = 0;
    if (is_id0(*p)) ident(p, &n);
    return (n == 5 && memcmp(p, "early", 5) == 0) || (n == 4 && memcmp(p, "late", 4) == 0);
}

/* USES [ATTRS]: items separated by ',' up to the end of the line (none if
 * the line ends at once), attributes if with_attrs; returns the end of the
 * line. */
static const char *uses(const parser *P, const char *p, fline *L, bool with_attrs)
{
    const char *e = eol(P, p);
    if (e) return e;
    p = sp(p);
    if (with_attrs && is_id0(*p) && !at_use(p)) return attrs(P, p, L);
    for (;;) {
        if (L->nitems >= FL_OPS) return NULL;
        fitem *it = &L->it[L->nitems++];
        p = sp(p);
        it->is_imm = is_digit(*p) || (*p == '-' && is_digit(p[1]));
        p = it->is_imm ? imm(p, &it->imm) : operand(P, p, &it->o);
        if (!p || (!it->is_imm && it->o.ann)) return NULL;
        p = sp(p);
        if (with_attrs && is_id0(*p)) return attrs(P, p, L);
        if (*p != ',') return eol(P, p);
        p++;
    }
}

/* A token that the parser takes for a vreg, well-formed or not
 * (rvp_is_vreg_tok: v, digits, nothing more). */
static bool vreg_like(const char *p)
{
    if (*p != 'v' || !is_digit(p[1])) return false;
    for (p++; is_digit(*p); p++) {}
    return !is_id(*p);
}

/* LABEL [ ( [vN, ...] ) ] */
static const char *target(const parser *P, const char *p, fline *L)
{
    p = sp(p);
    if (!is_id0(*p) || L->ntargets >= FL_TARGETS || vreg_like(p)) return NULL;
    ftarget *t = &L->tg[L->ntargets++];
    t->s = p;
    p = ident(p, &t->n);
    t->first = L->nargs;
    t->nargs = 0;
    const char *q = sp(p);
    if (*q != '(') return p;
    q = sp(q + 1);
    if (*q == ')') return q + 1;
    for (;;) {
        if (L->nargs >= FL_OPS || !(q = num_name(q, 'v', RV_MAX_VREG_NUM, &L->args[L->nargs]))) return NULL;
        L->nargs++, t->nargs++;
        q = sp(q);
        if (*q == ')') return q + 1;
        if (*q != ',') return NULL;
        q = sp(q + 1);
    }
}

/* jump TARGET | br [COND,] TARGET, TARGET... (p after the mnemonic) */
static const char *branch(const parser *P, const char *p, fline *L)
{
    p = sp(p);
    uint32_t n = 0;
    if (L->kind == FL_BR && is_id0(*p)) ident(p, &n);
    if (L->kind == FL_BR && (vreg_like(p) || is_word(p, n, "early", 5) || is_word(p, n, "late", 4))) { /* a condition */
        fitem *it = &L->it[L->nitems++];
        it->is_imm = false;
        if (!(p = operand(P, p, &it->o)) || it->o.ann || *(p = sp(p)) != ',') return NULL;
        p++;
    }
    for (;;) {
        if (!(p = target(P, p, L))) return NULL;
        p = sp(p);
        if (*p != ',' || L->kind == FL_JUMP) break;
        p++;
    }
    if (L->kind == FL_BR && L->ntargets < 2) return NULL;
    return eol(P, p);
}

/* DEFS = MNEMONIC USES | MNEMONIC USES | jump / br / ret (p at the line's
 * first byte; defs only if the line starts with a vreg). */
static const char *inst(const parser *P, const char *p, bool defs, fline *L)
{
    uint32_t n;
    while (defs) {
        if (L->nitems >= FL_OPS) return NULL;
        fitem *it = &L->it[L->nitems++];
        it->is_imm = false;
        if (!(p = operand(P, p, &it->o)) || !it->o.ann) return NULL;
        L->ndefs++;
        p = sp(p);
        if (*p == '=') defs = false;
        else if (*p != ',') return NULL;
        p = sp(p + 1);
    }
    if (!is_id0(*p)) return NULL;
    const char *e = ident(p, &n);
    int kw = rvp_kw_of(p, n);
    if (kw == RAVEL_OP_JUMP || kw == RAVEL_OP_BR || kw == RAVEL_OP_RET) {
        if (L->ndefs) return NULL;
        L->kind = kw == RAVEL_OP_JUMP ? FL_JUMP : kw == RAVEL_OP_BR ? FL_BR : FL_RET;
        L->op = (ravel_opcode)kw;
        return L->kind == FL_RET ? uses(P, e, L, false) : branch(P, e, L);
    }
    if (kw != KW_NONE && (int)kw_opcode(kw) != kw) return NULL; /* an edit, undef, or another keyword */
    L->kind = FL_INST;
    L->op = (ravel_opcode)kw;
    if (kw == RAVEL_OP_UNDEF) return L->ndefs == 1 ? eol(P, e) : NULL; /* one def, nothing after (parse_undef) */
    L->name = p, L->nname = n;
    if (kw == RAVEL_OP_CALL) {
        p = sp(e);
        if (!is_id0(*p)) return NULL;
        L->name = p;
        e = ident(p, &L->nname);
    }
    return uses(P, e, L, true);
}

/* LOC = spill|reload|move LOC (p at the line's first byte) */
static const char *edit(const parser *P, const char *p, fline *L)
{
    uint32_t n;
    if (!(p = loc(P, p, &L->dst))) return NULL;
    p = sp(p);
    if (*p != '=') return NULL;
    p = sp(p + 1);
    if (!is_id0(*p)) return NULL;
    const char *e = ident(p, &n);
    int kw = rvp_kw_of(p, n);
    if (kw != RAVEL_OP_SPILL && kw != RAVEL_OP_RELOAD && kw != RAVEL_OP_MOVE) return NULL;
    L->kind = FL_EDIT;
    L->op = (ravel_opcode)kw;
    if (!(p = loc(P, sp(e), &L->src))) return NULL;
    return eol(P, p);
}

/* LABEL [( PARAM, ... )] : with PARAM = vN:CLASS[.ref] (p after LABEL) */
static const char *label(const parser *P, const char *p, fline *L)
{
    L->kind = FL_LABEL;
    p = sp(p);
    if (*p == '(') {
        p = sp(p + 1);
        for (;;) {
            if (L->nitems >= FL_OPS) return NULL;
            fitem *it = &L->it[L->nitems++];
            memset(&it->o, 0, sizeof it->o);
            it->is_imm = false;
            if (!(p = num_name(p, 'v', RV_MAX_VREG_NUM, &it->o.vreg))) return NULL;
            p = sp(p);
            if (*p != ':' || !(p = class_ann(P, p, &it->o))) return NULL;
            p = sp(p);
            if (*p == ')') break;
            if (*p != ',') return NULL;
            p = sp(p + 1);
        }
        p = sp(p + 1);
    }
    return *p == ':' ? eol(P, p + 1) : NULL;
}

/* ---- checking and building -------------------------------------------------------- */

/* Would the defs (or parameters) it[0..n) be taken as parse_func.c takes
 * them, without an error: each annotated (the caller checked), each vreg
 * once, of the class it already has if any, below the dense table's limit? */
static bool defs_ok(const parser *P, const fitem *it, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t num = it[i].o.vreg;
        if (num >= P->vlimit) return false;
        for (uint32_t j = 0; j < i; j++)
            if (it[j].o.vreg == num) return false;
        uint32_t id1 = num < P->vcache.len ? P->vcache.data[num] : 0;
        if (!id1) continue;
        const rv_vreg *v = &P->f->vregs.data[id1 - 1];
        if (v->has_class && (v->cls != it[i].o.cls || v->ref != it[i].o.ref)) return false;
    }
    return true;
}

/* note_def_class of parse_func.c, known to succeed. */
static void set_class(parser *P, const opnd *o)
{
    rv_vreg *v = &P->f->vregs.data[o->vreg];
    v->has_class = true;
    v->cls = o->cls;
    v->ref = o->ref;
}

/* The uses (or a branch's condition) it[from..to), in order. */
static void put_uses(parser *P, fitem *it, uint32_t from, uint32_t to)
{
    for (uint32_t i = from; i < to; i++) {
        if (it[i].is_imm) {
            rvp_put_imm(P, it[i].imm);
            continue;
        }
        it[i].o.vreg = rvp_vreg_id(P, it[i].o.vreg);
        rvp_put_operand(P, false, &it[i].o);
    }
}

/* jump / br successors, as parse_target adds them. */
static void put_targets(parser *P, const fline *L)
{
    uint32_t ids[FL_OPS];
    for (uint32_t t = 0; t < L->ntargets; t++) {
        const ftarget *g = &L->tg[t];
        for (uint32_t a = 0; a < g->nargs; a++) ids[a] = rvp_vreg_id(P, L->args[g->first + a]);
        uint32_t b = rvp_block_ref(P, g->s, g->n);
        ravel_inst_succ(P->f, b, ids, g->nargs); /* cannot fail: an open jump/br, ids of f, few arguments */
    }
}

/* rv_sym_intern(&f->syms, s, n), through the cache of the function's last
 * names (most lines repeat a dozen mnemonics): a hit is a name interned
 * before, so the id is the one rv_sym_intern would return. */
static uint32_t intern(parser *P, const char *s, uint32_t n)
{
    uint64_t key = rvp_src_key(s, n);
    struct sym_slot *e = &P->fast.scache[((key ^ n) * 0x9e3779b97f4a7c15ull) >> 60];
    if (e->sym1 && e->key == key && e->n == n && (n <= 8 || rvp_same(rv_sym_str(&P->f->syms, e->sym1 - 1), s, n)))
        return e->sym1 - 1;
    rvp_other_name(P, s, n);
    uint32_t id = rv_sym_intern(&P->f->syms, s, n);
    *e = (struct sym_slot){key, n, id + 1};
    return id;
}

/* An instruction or terminator line, built as parse_inst builds it. */
static void build_inst(parser *P, fline *L, uint32_t line, uint32_t col)
{
    for (uint32_t i = 0; i < L->ndefs; i++) L->it[i].o.vreg = rvp_vreg_id(P, L->it[i].o.vreg);
    uint32_t nm = L->op == RAVEL_OP_OTHER || L->op == RAVEL_OP_CALL ? intern(P, L->name, L->nname) : RAVEL_NONE;
    rvp_put_inst(P, L->op, nm, line, col);
    for (uint32_t i = 0; i < L->ndefs; i++) {
        set_class(P, &L->it[i].o);
        rvp_put_operand(P, true, &L->it[i].o);
    }
    put_uses(P, L->it, L->ndefs, L->nitems);
    if (L->kind == FL_JUMP || L->kind == FL_BR) put_targets(P, L);
    for (uint32_t k = 0, from = 0; k < L->nattrs; from = L->list_end[k++]) { /* cannot fail: an open op, ids of f */
        if (L->attr[k] == KW_SAFEPOINT) ravel_inst_safepoint(P->f);
        else if (L->attr[k] == KW_CLOBBERS) ravel_inst_clobbers(P->f, L->list + from, L->list_end[k] - from);
        else ravel_inst_stackmap(P->f, L->list + from, L->list_end[k] - from);
    }
}

/* A label line, built as parse_label builds it; false (nothing changed)
 * if the block was defined before. */
static bool build_label(parser *P, fline *L, const token *l)
{
    ravel_func *f = P->f;
    uint32_t b = rvp_block_ref(P, l->s, l->n); /* creates a block only if it is new, then not started */
    if (f->blocks.data[b].started) return false;
    P->ninsts++;
    if (f->cur_inst != RAVEL_NONE) ravel_inst_end(f);
    rvp_close_block(P, l->line, l->col);
    f->cur_block = RAVEL_NONE;
    for (uint32_t i = 0; i < L->nitems; i++) {
        L->it[i].o.vreg = rvp_vreg_id(P, L->it[i].o.vreg);
        set_class(P, &L->it[i].o);
    }
    for (uint32_t i = 0; i < L->nitems; i++) ravel_block_add_param(f, b, L->it[i].o.vreg);
    ravel_block_begin(f, b);
    rv_block *blk = &f->blocks.data[b];
    blk->line = l->line, blk->col = l->col;
    return true;
}

/* The line scanned into L: its end (after the newline), or NULL. */
static const char *scan(const parser *P, fline *L)
{
    const token *t = &P->t;
    L->ndefs = L->nitems = L->ntargets = L->nargs = 0;
    L->attr_seen = L->nattrs = L->nlist = 0;
    if (t->numc == 'v' || t->kw == KW_EARLY || t->kw == KW_LATE) return inst(P, t->s, true, L);
    const char *q = sp(P->lx.p);
    if (*q == ':' || *q == '(') return label(P, P->lx.p, L);
    if (*q == '=') return edit(P, t->s, L);
    return inst(P, t->s, false, L);
}

bool rvp_fast_line(parser *P)
{
    const token t = P->t;
    ravel_func *f = P->f;
    fline L;
    if (!P->fast.on || t.k != T_IDENT || P->ninsts >= RV_MAX_INSTS) return false;
    const char *next = scan(P, &L);
    if (!next) return false;
    if (L.kind == FL_LABEL) {
        if (!defs_ok(P, L.it, L.nitems) || !build_label(P, &L, &t)) return false;
    } else if (f->cur_block == RAVEL_NONE) {
        return false;
    } else if (L.kind == FL_EDIT) {
        if (f->cur_inst != RAVEL_NONE) return false; /* (ravel_edit would fail; parse_func.c reports it) */
        P->ninsts++;
        rvp_put_edit(P, L.op, L.dst, L.src, t.line, t.col);
    } else {
        if (!defs_ok(P, L.it, L.ndefs)) return false;
        P->ninsts++;
        build_inst(P, &L, t.line, t.col);
    }
    P->lx.p = P->lx.bol = next;
    P->lx.line++;
    rvp_next(P);
    return true;
}
