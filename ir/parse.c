/* parse.c - the .ra reader (docs/format.md sections 2-5, 7 and 10).
 *
 * Requires: nothing; any byte string is accepted as input.
 * Guarantees: returns a module whose functions were built through the
 * builder (func.c) and finished with ravel_func_finish, or NULL after at
 * least one "FILE:LINE:COL: error: MESSAGE" diagnostic. Runs in time linear
 * in the input (ranges are bounded by an expansion budget proportional to
 * the input), never recurses, never allocates per token, and frees all it
 * allocated on failure.
 *
 * Structure: a hand-written lexer produces one token at a time from the
 * module's copy of the source; the parser is line-oriented (one machine
 * line, label or instruction per line). After an error on a line the rest
 * of the line is skipped and parsing goes on, so that several errors can be
 * reported; the module is discarded at the end if any error was seen.
 *
 * Only lexical and name-resolution errors are reported here; structural
 * rules (terminators, successors, argument counts, SSA, constraint
 * validity) belong to ravel_validate. */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

/* Functions per file: each costs a few KiB even when empty, so that a file
 * of many tiny functions cannot exhaust memory (docs/format.md section 12.1). */
#define PARSE_MAX_FUNCS 65536u

/* ---- tokens ---------------------------------------------------------------- */

typedef enum tkind {
    T_EOF, T_EOL, T_IDENT, T_INT, T_EQ, T_COMMA, T_COLON, T_DOT, T_DOTDOT,
    T_LPAREN, T_RPAREN, T_AT, T_BAD
} tkind;

typedef struct token {
    tkind k;
    const char *s;   /* first byte of the token */
    uint32_t n;      /* length in bytes */
    uint32_t line, col;
    int64_t ival;    /* T_INT */
    const char *bad; /* T_BAD: what is wrong */
} token;

/* Lexer position; copying it is how the parser looks ahead. */
typedef struct lexer {
    const char *p, *end;
    const char *bol; /* beginning of the current line */
    uint32_t line;
} lexer;

/* Character classes, one table lookup per byte (c is a byte, possibly
 * sign-extended: bytes >= 0x80 and NUL are in no class, so that the NUL
 * after the module's copy of the source stops every scan without a bound
 * check). CC_SPACE: ' ', \t, \v, \f, \r (\r for CR LF). */
enum { CC_ID0 = 1, CC_DIGIT = 2, CC_SPACE = 4 };
#define CC_LETTERS(b) [b] = CC_ID0, [b + 1] = CC_ID0, [b + 2] = CC_ID0, [b + 3] = CC_ID0, [b + 4] = CC_ID0, \
                      [b + 5] = CC_ID0, [b + 6] = CC_ID0, [b + 7] = CC_ID0, [b + 8] = CC_ID0, [b + 9] = CC_ID0, \
                      [b + 10] = CC_ID0, [b + 11] = CC_ID0, [b + 12] = CC_ID0
static const uint8_t cclass[256] = {
    CC_LETTERS('a'), CC_LETTERS('n'), CC_LETTERS('A'), CC_LETTERS('N'), ['_'] = CC_ID0,
    ['0'] = CC_DIGIT, ['1'] = CC_DIGIT, ['2'] = CC_DIGIT, ['3'] = CC_DIGIT, ['4'] = CC_DIGIT,
    ['5'] = CC_DIGIT, ['6'] = CC_DIGIT, ['7'] = CC_DIGIT, ['8'] = CC_DIGIT, ['9'] = CC_DIGIT,
    [' '] = CC_SPACE, ['\t'] = CC_SPACE, ['\v'] = CC_SPACE, ['\f'] = CC_SPACE, ['\r'] = CC_SPACE,
};
#undef CC_LETTERS
static inline bool is_id0(int c) { return cclass[(unsigned char)c] & CC_ID0; }
static inline bool is_digit(int c) { return cclass[(unsigned char)c] & CC_DIGIT; }
static inline bool is_id(int c) { return cclass[(unsigned char)c] & (CC_ID0 | CC_DIGIT); }
static inline bool is_hspace(int c) { return cclass[(unsigned char)c] & CC_SPACE; }
/* Scans from p (in the module's copy of the source) over horizontal space,
 * or over the rest of an identifier whose first byte is at p. */
static inline const char *skip_hspace(const char *p)
{
    while (is_hspace(*p)) p++;
    return p;
}
static inline const char *ident_end(const char *p)
{
    while (is_id(*++p)) {}
    return p;
}

static int hexval(int c)
{
    if (is_digit(c)) return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Integer: [-] (decimal | 0x hex). The value must fit int64. */
static void lex_int(lexer *lx, token *t)
{
    const char *p = lx->p;
    bool neg = *p == '-';
    if (neg) p++;
    uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    bool over = false, any = false;
    if (p + 1 < lx->end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        for (int h; p < lx->end && (h = hexval((unsigned char)*p)) >= 0; p++, any = true) {
            if (v > (lim - (uint64_t)h) / 16) over = true;
            else v = v * 16 + (uint64_t)h;
        }
    } else {
        for (; p < lx->end && is_digit(*p); p++, any = true) {
            uint64_t dgt = (uint64_t)(*p - '0');
            if (v > (lim - dgt) / 10) over = true;
            else v = v * 10 + dgt;
        }
    }
    if (p < lx->end && is_id(*p)) {
        while (p < lx->end && is_id(*p)) p++;
        t->k = T_BAD, t->bad = "malformed number";
    } else if (!any) {
        t->k = T_BAD, t->bad = "malformed number";
    } else if (over) {
        t->k = T_BAD, t->bad = "integer does not fit in 64 bits (int64)";
    } else {
        t->k = T_INT;
        if (!neg) t->ival = (int64_t)v;
        else t->ival = v > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)v;
    }
    lx->p = p;
}

/* Skips horizontal white space (\r included, for CR LF) and a comment. */
static void skip_space(lexer *lx)
{
    const char *p = skip_hspace(lx->p), *end = lx->end;
    if (p < end && *p == '#') {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl : end;
    }
    lx->p = p;
}

/* Punctuation, or T_BAD for any other byte (c is *lx->p, consumed). */
static void lex_punct(lexer *lx, int c, token *t)
{
    lx->p++;
    switch (c) {
    case '=': t->k = T_EQ; break;
    case ',': t->k = T_COMMA; break;
    case ':': t->k = T_COLON; break;
    case '(': t->k = T_LPAREN; break;
    case ')': t->k = T_RPAREN; break;
    case '@': t->k = T_AT; break;
    case '.':
        t->k = T_DOT;
        if (lx->p < lx->end && *lx->p == '.') {
            lx->p++;
            t->k = T_DOTDOT;
        }
        break;
    default:
        t->k = T_BAD;
        t->bad = c == 0 ? "NUL byte in input" : "unexpected character";
        /* swallow a whole UTF-8 sequence so the message appears once */
        while (c >= 0x80 && lx->p < lx->end && ((unsigned char)*lx->p & 0xc0) == 0x80) lx->p++;
        break;
    }
}

/* Next token into *t, every field written (the parser lexes into its
 * current token in place: no 48-byte copy per token). A newline is a T_EOL
 * token; the end of input yields T_EOL once if the last line had no
 * newline, then T_EOF forever. */
static void lex_into(lexer *lx, token *t)
{
    skip_space(lx);
    t->s = lx->p;
    t->n = 0;
    t->line = lx->line;
    t->col = (uint32_t)(lx->p - lx->bol) + 1;
    t->ival = 0;
    t->bad = NULL;
    if (lx->p >= lx->end) {
        t->k = lx->bol < lx->end ? T_EOL : T_EOF; /* a final line without newline still ends */
        lx->bol = lx->end;
        return;
    }
    int c = (unsigned char)*lx->p;
    if (c == '\n') {
        lx->p++;
        lx->line++;
        lx->bol = lx->p;
        t->k = T_EOL;
    } else if (is_id0(c)) {
        lx->p = ident_end(lx->p);
        t->k = T_IDENT;
    } else if (is_digit(c) || (c == '-' && lx->p + 1 < lx->end && is_digit(lx->p[1]))) {
        lex_int(lx, t);
    } else {
        lex_punct(lx, c, t);
    }
    t->n = (uint32_t)(lx->p - t->s);
}

/* lex_into for lookahead on a copy of the lexer. */
static token lex(lexer *lx)
{
    token t;
    lex_into(lx, &t);
    return t;
}

/* ---- parser state ------------------------------------------------------------ */

/* A use annotation seen before its vreg's class was known: checked at the
 * end of the function. */
typedef struct pending_ann {
    uint32_t vreg, line, col;
    uint8_t cls;
    bool ref;
} pending_ann;

/* An operand as written, before it is handed to the builder. */
typedef struct opnd {
    uint32_t vreg;
    uint32_t arg;
    ravel_loc loc;
    uint32_t line, col;
    uint8_t c;   /* ravel_constraint */
    uint8_t pos; /* ravel_pos */
    uint8_t cls;
    bool ann, ref;
} opnd;

typedef struct parser {
    lexer lx;
    token t; /* current token */
    const char *file, *src;
    size_t srclen;
    ravel_diags *d;
    uint32_t nerr;
    uint64_t ninsts;
    uint64_t budget; /* names left for range expansion */
    ravel_module *mod;
    ravel_machine *m;
    ravel_func *f;        /* function being read */
    RV_VEC(uint32_t) block_of; /* label symbol id -> block id + 1 (0: none), current function */
    uint64_t vlimit;      /* vreg numbers below this use vcache */
    RV_VEC(uint8_t) param_mark; /* vreg id -> 1 while reading one label's params */
    RV_VEC(pending_ann) pend;
    RV_VEC(opnd) defs;
    RV_VEC(uint32_t) list; /* registers, slots or arguments being collected */
    RV_VEC(uint32_t) vcache; /* vreg number -> id + 1 (0: not seen) for small numbers */
    char name[96];        /* a register name built from a range */
    rv_symtab fnames;     /* names of the functions read so far */
    uint32_t *ntab, nmask; /* the machine's names once it is read (machine_names) */
} parser;

static void next(parser *P) { lex_into(&P->lx, &P->t); }

static token peek(const parser *P)
{
    lexer l = P->lx;
    return lex(&l);
}

static bool perr(parser *P, uint32_t line, uint32_t col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static bool perr(parser *P, uint32_t line, uint32_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rv_diag_verror(P->d, P->file, P->src, P->srclen, line, col, fmt, ap);
    va_end(ap);
    P->nerr++;
    return false;
}

/* Describes the current token for "expected X, found Y". */
static bool unexpected(parser *P, const char *what)
{
    const token *t = &P->t;
    if (t->k == T_BAD) return perr(P, t->line, t->col, "%s", t->bad);
    if (t->k == T_EOL || t->k == T_EOF)
        return perr(P, t->line, t->col, "expected %s, found end of %s", what, t->k == T_EOL ? "line" : "input");
    return perr(P, t->line, t->col, "expected %s, found '%.*s'", what, (int)(t->n > 40 ? 40 : t->n), t->s);
}

/* Is the token the keyword KW (a string literal)? */
#define tok_is(t, kw) ((t)->k == T_IDENT && (t)->n == sizeof(kw) - 1 && memcmp((t)->s, kw, sizeof(kw) - 1) == 0)

static bool accept(parser *P, tkind k)
{
    if (P->t.k != k) return false;
    next(P);
    return true;
}

static bool expect(parser *P, tkind k, const char *what)
{
    if (P->t.k != k) return unexpected(P, what);
    next(P);
    return true;
}

static bool expect_eol(parser *P)
{
    if (P->t.k == T_EOL || P->t.k == T_EOF) {
        next(P);
        return true;
    }
    return unexpected(P, "end of line");
}

/* Skips the rest of the current line after an error. */
static void skip_line(parser *P)
{
    while (P->t.k != T_EOL && P->t.k != T_EOF) next(P);
    if (P->t.k == T_EOL) next(P);
}

static void skip_blank(parser *P)
{
    while (P->t.k == T_EOL) next(P);
}

/* "PREFIX DIGITS" with DIGITS a decimal number without leading zero (unless
 * "0") and of at most 9 digits: range ends. */
static bool split_num(const char *s, uint32_t n, uint32_t *plen, uint32_t *num)
{
    uint32_t i = n;
    while (i > 0 && is_digit(s[i - 1])) i--;
    if (i == n || n - i > 9 || (n - i > 1 && s[i] == '0')) return false;
    uint32_t v = 0;
    for (uint32_t k = i; k < n; k++) v = v * 10 + (uint32_t)(s[k] - '0');
    *plen = i;
    *num = v;
    return true;
}

enum { NUMNAME_NO = 0, NUMNAME_OK = 1, NUMNAME_ZERO = -1, NUMNAME_BIG = -2 };

/* Is the token C followed by decimal digits (vN, sN)? NUMNAME_NO if not;
 * NUMNAME_ZERO for a leading zero; NUMNAME_BIG above max; else the number. */
static int num_name(const token *t, char c, uint32_t max, uint32_t *num)
{
    if (t->k != T_IDENT || t->n < 2 || t->s[0] != c) return NUMNAME_NO;
    uint64_t v = 0;
    for (uint32_t k = 1; k < t->n; k++) {
        if (!is_digit(t->s[k])) return NUMNAME_NO;
        if (v <= max) v = v * 10 + (uint64_t)(t->s[k] - '0');
    }
    if (t->n > 2 && t->s[1] == '0') return NUMNAME_ZERO;
    if (v > max) return NUMNAME_BIG;
    *num = (uint32_t)v;
    return NUMNAME_OK;
}

/* vN: nonzero if the token reads as a vreg (possibly a malformed one). */
static int is_vreg_tok(const token *t, uint32_t *num) { return num_name(t, 'v', RV_MAX_VREG_NUM, num); }
/* sN: a spill slot name. */
static int is_slot_tok(const token *t, uint32_t *num) { return num_name(t, 's', RAVEL_MAX_SLOT, num); }

/* Reports a malformed vN / sN name; rc from num_name. */
static bool bad_num_name(struct parser *P, const token *t, int rc, const char *what)
{
    int n = (int)(t->n > 40 ? 40 : t->n);
    if (rc == NUMNAME_ZERO) return perr(P, t->line, t->col, "%s name '%.*s' has a leading zero", what, n, t->s);
    return perr(P, t->line, t->col, "%s number in '%.*s' exceeds the limit %u", what, n, t->s,
                t->s[0] == 'v' ? RV_MAX_VREG_NUM : RAVEL_MAX_SLOT);
}

/* The functions look up the machine's names (registers, classes) at most
 * operands: once the machine is read they go through ntab, an open-
 * addressing table of symbol id + 1 (0: empty) with a hash cheaper than the
 * symbol table's, as names are short. */
static uint32_t name_hash(const char *s, uint32_t n)
{
    uint32_t h = n * 0x9e3779b1u;
    for (uint32_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x01000193u;
    return h ^ (h >> 16);
}

static void machine_names(parser *P)
{
    const rv_symtab *t = &P->m->names;
    uint32_t cap = 16;
    while (cap < 2 * t->strs.len) cap *= 2;
    P->ntab = rv_xcalloc(cap, sizeof *P->ntab);
    P->nmask = cap - 1;
    for (uint32_t id = 0; id < t->strs.len; id++) {
        uint32_t i = name_hash(t->strs.data[id], t->lens.data[id]) & P->nmask;
        while (P->ntab[i]) i = (i + 1) & P->nmask;
        P->ntab[i] = id + 1;
    }
}

static uint32_t find_name(const parser *P, const char *s, uint32_t n)
{
    if (!P->ntab) return rv_sym_find(&P->m->names, s, n); /* the machine is being read */
    const rv_symtab *t = &P->m->names;
    for (uint32_t i = name_hash(s, n) & P->nmask; P->ntab[i]; i = (i + 1) & P->nmask) {
        uint32_t id = P->ntab[i] - 1;
        if (t->lens.data[id] == n && memcmp(t->strs.data[id], s, n) == 0) return id;
    }
    return RAVEL_NONE;
}

static int find_reg(const parser *P, const char *s, uint32_t n)
{
    uint32_t sym = find_name(P, s, n);
    return sym == RAVEL_NONE ? -1 : P->m->name_reg.data[sym];
}

static int find_class(const parser *P, const char *s, uint32_t n)
{
    uint32_t sym = find_name(P, s, n);
    return sym == RAVEL_NONE ? -1 : P->m->name_class.data[sym];
}

/* ---- names and ranges ---------------------------------------------------------- */

/* Calls fn(P, name, len, line, col, ctx) for each name of a list item: a
 * single identifier or a range A..B (same prefix, numeric suffixes, A <= B).
 * The current token is the item's first identifier. */
typedef bool (*name_fn)(parser *P, const char *s, uint32_t n, const token *at, void *ctx);

static bool add_slot_to_list(parser *P, const char *s, uint32_t n, const token *at, void *ctx);

static bool list_item(parser *P, name_fn fn, void *ctx)
{
    token lo = P->t;
    if (lo.k != T_IDENT) return unexpected(P, "a name");
    next(P);
    if (P->t.k != T_DOTDOT) return fn(P, lo.s, lo.n, &lo, ctx);
    next(P);
    token hi = P->t;
    if (hi.k != T_IDENT) return unexpected(P, "the last name of a range");
    next(P);
    uint32_t pl, ph, a, b;
    if (!split_num(lo.s, lo.n, &pl, &a) || !split_num(hi.s, hi.n, &ph, &b) || pl != ph ||
        memcmp(lo.s, hi.s, pl) != 0)
        return perr(P, lo.line, lo.col, "bad range '%.*s..%.*s': both ends need the same prefix and a numeric suffix",
                    (int)(lo.n > 40 ? 40 : lo.n), lo.s, (int)(hi.n > 40 ? 40 : hi.n), hi.s);
    if (a > b) return perr(P, lo.line, lo.col, "empty range: %u > %u", a, b);
    if (pl > 64) return perr(P, lo.line, lo.col, "range prefix too long");
    if ((uint64_t)b - a + 1 > P->budget)
        return perr(P, lo.line, lo.col, "ranges expand to too many names (limit: proportional to input size)");
    P->budget -= (uint64_t)b - a + 1;
    if (fn == add_slot_to_list && pl == 1 && lo.s[0] == 's') { /* sA..sB: no names needed */
        if (b > RAVEL_MAX_SLOT) return perr(P, hi.line, hi.col, "slot number %u exceeds the limit %u", b, RAVEL_MAX_SLOT);
        rv_vec_reserve(P->list, b - a + 1);
        for (uint32_t i = a; i <= b; i++) P->list.data[P->list.len++] = i;
        return true;
    }
    for (uint64_t i = a; i <= b; i++) {
        int k = snprintf(P->name, sizeof P->name, "%.*s%u", (int)pl, lo.s, (unsigned)i);
        if (!fn(P, P->name, (uint32_t)k, &lo, ctx)) return false;
    }
    return true;
}

/* Items until ')' (if paren) or end of line. */
static bool name_list(parser *P, bool paren, name_fn fn, void *ctx)
{
    for (;;) {
        if (paren ? P->t.k == T_RPAREN : (P->t.k == T_EOL || P->t.k == T_EOF)) return true;
        if (!list_item(P, fn, ctx)) return false;
    }
}

static bool add_reg_to_list(parser *P, const char *s, uint32_t n, const token *at, void *ctx)
{
    (void)ctx;
    int r = find_reg(P, s, n);
    if (r < 0) return perr(P, at->line, at->col, "unknown register '%.*s'", (int)(n > 40 ? 40 : n), s);
    rv_vec_push(P->list, (uint32_t)r);
    return true;
}

static bool add_slot_to_list(parser *P, const char *s, uint32_t n, const token *at, void *ctx)
{
    (void)ctx;
    token t = *at;
    t.s = s, t.n = n;
    uint32_t num;
    int rc = is_slot_tok(&t, &num);
    if (rc == NUMNAME_NO) return perr(P, at->line, at->col, "expected a spill slot sN, found '%.*s'", (int)(n > 40 ? 40 : n), s);
    if (rc < 0) return bad_num_name(P, &t, rc, "slot");
    rv_vec_push(P->list, num);
    return true;
}

/* ---- machine -------------------------------------------------------------------- */

typedef struct reg_def_ctx {
    int cls;
    bool reserved;
} reg_def_ctx;

static bool define_reg(parser *P, const char *s, uint32_t n, const token *at, void *vctx)
{
    const reg_def_ctx *c = vctx;
    token t = *at;
    t.s = s, t.n = n;
    uint32_t num;
    int ln = (int)(n > 40 ? 40 : n);
    if (is_vreg_tok(&t, &num) || is_slot_tok(&t, &num))
        return perr(P, at->line, at->col, "register name '%.*s' would read as a %s", ln, s, s[0] == 'v' ? "vreg" : "spill slot");
    if (find_reg(P, s, n) >= 0) return perr(P, at->line, at->col, "duplicate register name '%.*s'", ln, s);
    if (P->m->regs.len >= RV_MAX_REGS) return perr(P, at->line, at->col, "too many registers (limit %u)", RV_MAX_REGS);
    char buf[128];
    char *name = n < sizeof buf ? buf : rv_xmalloc(n + 1);
    memcpy(name, s, n);
    name[n] = 0;
    int r = ravel_machine_add_reg(P->m, name, c->cls, c->reserved);
    if (name != buf) rv_free(name);
    if (r < 0) return perr(P, at->line, at->col, "cannot add register '%.*s'", ln, s);
    return true;
}

/* class NAME REGS... */
static bool machine_class(parser *P)
{
    token nm = P->t;
    if (nm.k != T_IDENT) return unexpected(P, "a class name");
    int ln = (int)(nm.n > 40 ? 40 : nm.n);
    if (find_class(P, nm.s, nm.n) >= 0) return perr(P, nm.line, nm.col, "duplicate class name '%.*s'", ln, nm.s);
    if (P->m->classes.len >= RV_MAX_CLASSES) return perr(P, nm.line, nm.col, "too many classes (limit %u)", RV_MAX_CLASSES);
    char *name = rv_xmalloc(nm.n + 1);
    memcpy(name, nm.s, nm.n);
    name[nm.n] = 0;
    int cls = ravel_machine_add_class(P->m, name);
    rv_free(name);
    if (cls < 0) return perr(P, nm.line, nm.col, "cannot add class '%.*s'", ln, nm.s);
    next(P);
    if (P->t.k == T_EOL || P->t.k == T_EOF)
        return perr(P, nm.line, nm.col, "class '%.*s' has no allocatable registers", ln, nm.s);
    reg_def_ctx c = {cls, false};
    return name_list(P, false, define_reg, &c);
}

/* reserved CLASS REGS... */
static bool machine_reserved(parser *P)
{
    token nm = P->t;
    if (nm.k != T_IDENT) return unexpected(P, "a class name");
    int cls = find_class(P, nm.s, nm.n);
    if (cls < 0) return perr(P, nm.line, nm.col, "unknown class '%.*s'", (int)(nm.n > 40 ? 40 : nm.n), nm.s);
    next(P);
    reg_def_ctx c = {cls, true};
    return name_list(P, false, define_reg, &c);
}

static bool machine_line(parser *P, bool *done, bool *seen_clob, bool *seen_gc)
{
    token kw = P->t;
    if (kw.k != T_IDENT) return unexpected(P, "a machine line (class, reserved, clobbers, gc or end)");
    next(P);
    if (tok_is(&kw, "end")) {
        *done = true;
        return true;
    }
    if (tok_is(&kw, "class")) return machine_class(P);
    if (tok_is(&kw, "reserved")) return machine_reserved(P);
    if (tok_is(&kw, "clobbers")) {
        if (*seen_clob) return perr(P, kw.line, kw.col, "duplicate clobbers line");
        *seen_clob = true;
        P->list.len = 0;
        if (!name_list(P, false, add_reg_to_list, NULL)) return false;
        ravel_machine_set_clobbers(P->m, P->list.data, P->list.len);
        return true;
    }
    if (tok_is(&kw, "gc")) {
        if (*seen_gc) return perr(P, kw.line, kw.col, "duplicate gc line");
        *seen_gc = true;
        if (tok_is(&P->t, "moving")) ravel_machine_set_gc_moving(P->m, 1);
        else if (tok_is(&P->t, "nonmoving")) ravel_machine_set_gc_moving(P->m, 0);
        else return unexpected(P, "'moving' or 'nonmoving'");
        next(P);
        return true;
    }
    return perr(P, kw.line, kw.col, "unknown machine line '%.*s' (expected class, reserved, clobbers, gc or end)",
                (int)(kw.n > 40 ? 40 : kw.n), kw.s);
}

/* Where a missing `end` is reported: just after the last character of the
 * input that is not white space (on the last line, not past it). */
static void eof_pos(const parser *P, uint32_t *line, uint32_t *col)
{
    size_t n = P->srclen;
    while (n && (P->src[n - 1] == ' ' || P->src[n - 1] == '\t' || P->src[n - 1] == '\n' || P->src[n - 1] == '\r')) n--;
    uint32_t l = 1;
    size_t start = 0;
    for (size_t i = 0; i < n; i++)
        if (P->src[i] == '\n') l++, start = i + 1;
    *line = l;
    *col = (uint32_t)(n - start) + 1;
}

/* machine NL LINES... end NL */
static bool parse_machine(parser *P)
{
    skip_blank(P);
    if (!tok_is(&P->t, "machine")) {
        unexpected(P, "'machine'");
        return false;
    }
    next(P);
    if (!expect_eol(P)) return false;
    bool done = false, seen_clob = false, seen_gc = false;
    uint32_t nerr0 = P->nerr;
    while (!done) {
        skip_blank(P);
        if (P->t.k == T_EOF) {
            uint32_t line, col;
            eof_pos(P, &line, &col);
            return perr(P, line, col, "missing 'end' of machine");
        }
        /* one error, not one per line of the function that follows */
        if (tok_is(&P->t, "func")) return perr(P, P->t.line, P->t.col, "missing 'end' of machine before 'func'");
        if (machine_line(P, &done, &seen_clob, &seen_gc) && expect_eol(P)) continue;
        skip_line(P);
    }
    if (P->nerr == nerr0 && P->m->classes.len == 0)
        return perr(P, P->t.line, P->t.col, "the machine declares no register class");
    if (P->nerr != nerr0) return false;
    machine_names(P);
    return true;
}

/* ---- functions: operands ----------------------------------------------------------- */

/* Records the class of a def or block parameter; two different classes are
 * an error. */
static bool note_def_class(parser *P, const opnd *o)
{
    rv_vreg *v = &P->f->vregs.data[o->vreg];
    if (!o->ann) return perr(P, o->line, o->col, "class annotation required on the def of v%u (write v%u:CLASS)", v->num, v->num);
    if (!v->has_class) {
        v->has_class = true;
        v->cls = o->cls;
        v->ref = o->ref;
        return true;
    }
    if (v->cls != o->cls || v->ref != o->ref)
        return perr(P, o->line, o->col, "v%u defined with two classes: %s%s and %s%s", v->num,
                    P->m->classes.data[v->cls].name, v->ref ? ".ref" : "", P->m->classes.data[o->cls].name,
                    o->ref ? ".ref" : "");
    return true;
}

static bool check_use_ann(parser *P, uint32_t vreg, uint8_t cls, bool ref, uint32_t line, uint32_t col)
{
    const rv_vreg *v = &P->f->vregs.data[vreg];
    if (v->cls != cls || v->ref != ref)
        return perr(P, line, col, "annotation %s%s of v%u differs from its class %s%s", P->m->classes.data[cls].name,
                    ref ? ".ref" : "", v->num, P->m->classes.data[v->cls].name, v->ref ? ".ref" : "");
    return true;
}

/* A use or argument annotation: checked now if the class is known, at the
 * end of the function otherwise. */
static bool note_use_ann(parser *P, const opnd *o)
{
    if (!o->ann) return true;
    if (P->f->vregs.data[o->vreg].has_class) return check_use_ann(P, o->vreg, o->cls, o->ref, o->line, o->col);
    pending_ann pa = {o->vreg, o->line, o->col, o->cls, o->ref};
    rv_vec_push(P->pend, pa);
    return true;
}

/* The id of vreg vNUM in the current function. Numbers below P->vlimit
 * (half the input size: all of them in sensibly numbered files) go through a dense table
 * and enter the function's hash map only when the function is complete
 * (vcache_flush); larger ones go through the map directly. */
static uint32_t vreg_id(parser *P, uint32_t num)
{
    if (num >= P->vlimit) return rv_vreg_by_num(P->f, num);
    if (num >= P->vcache.len) {
        rv_vec_reserve(P->vcache, num + 1 - P->vcache.len);
        memset(P->vcache.data + P->vcache.len, 0, sizeof(uint32_t) * (num + 1 - P->vcache.len));
        P->vcache.len = num + 1;
    }
    uint32_t c = P->vcache.data[num];
    if (c) return c - 1;
    ravel_func *f = P->f;
    uint32_t id = f->vregs.len;
    rv_vreg v = {num, 0, false, false};
    rv_vec_push(f->vregs, v);
    if (num >= f->next_num) f->next_num = num + 1;
    P->vcache.data[num] = id + 1;
    return id;
}

/* Enters the table's vregs into the function's map and clears the table. */
static void vcache_flush(parser *P)
{
    ravel_func *f = P->f;
    for (uint32_t i = 0; i < f->vregs.len; i++) {
        uint32_t num = f->vregs.data[i].num;
        if (num >= P->vlimit) continue;
        rv_map_put(&f->vreg_by_num, num, i);
        P->vcache.data[num] = 0;
    }
}

/* vN[:CLASS[.ref]] */
static bool parse_vreg_ann(parser *P, opnd *o)
{
    uint32_t num;
    int rc = is_vreg_tok(&P->t, &num);
    if (rc == NUMNAME_NO) return unexpected(P, "a vreg (vN)");
    if (rc < 0) return bad_num_name(P, &P->t, rc, "vreg");
    o->vreg = vreg_id(P, num);
    if (P->param_mark.len < P->f->vregs.len) {
        rv_vec_reserve(P->param_mark, P->f->vregs.len - P->param_mark.len);
        while (P->param_mark.len < P->f->vregs.len) P->param_mark.data[P->param_mark.len++] = 0;
    }
    next(P);
    if (!accept(P, T_COLON)) return true;
    token c = P->t;
    if (c.k != T_IDENT) return unexpected(P, "a class name");
    int cls = find_class(P, c.s, c.n);
    if (cls < 0) return perr(P, c.line, c.col, "unknown class '%.*s'", (int)(c.n > 40 ? 40 : c.n), c.s);
    next(P);
    o->ann = true;
    o->cls = (uint8_t)cls;
    if (accept(P, T_DOT)) {
        if (!tok_is(&P->t, "ref")) return unexpected(P, "'ref'");
        next(P);
        o->ref = true;
    }
    return true;
}

/* A location: register name or sN. */
static bool parse_loc(parser *P, ravel_loc *loc)
{
    token t = P->t;
    uint32_t num = 0;
    if (t.k != T_IDENT) return unexpected(P, "a location (register or sN)");
    int rc = is_slot_tok(&t, &num), r;
    if (rc != NUMNAME_NO) { /* no register reads as a slot (define_reg) */
        if (rc < 0) return bad_num_name(P, &t, rc, "slot");
        *loc = ravel_slot(num);
    } else if ((r = find_reg(P, t.s, t.n)) >= 0) {
        *loc = (ravel_loc)r;
    } else if (is_vreg_tok(&t, &num)) {
        return perr(P, t.line, t.col, "expected a location (register or sN), found vreg '%.*s'", (int)t.n, t.s);
    } else {
        return perr(P, t.line, t.col, "unknown register '%.*s'", (int)(t.n > 40 ? 40 : t.n), t.s);
    }
    next(P);
    return true;
}

/* [early|late] vN[:CLASS[.ref]] [reg|any|stack|fixed(R)|reuse(K)] [@LOC] */
/* Words a mistyped keyword is compared with (rv_near_word). */
static const char *const constraint_words[] = {"reg", "any", "stack", "fixed", "reuse", "early", "late", NULL};
static const char *const attr_words[] = {"clobbers", "safepoint", "stackmap", NULL};
static const char *const term_words[] = {"jump", "br", "ret", NULL};
static const char *const edit_words[] = {"spill", "reload", "move", NULL};

/* After an operand: an identifier that is a near miss of a constraint or
 * position (`fixd(r0)`) is reported as one, instead of the "expected an
 * attribute" that would follow. */
static bool constraint_typo(parser *P)
{
    const token t = P->t;
    if (t.k != T_IDENT || tok_is(&t, "clobbers") || tok_is(&t, "safepoint") || tok_is(&t, "stackmap")) return true;
    const char *w = rv_near_word(t.s, t.n, constraint_words);
    if (!w || rv_near_word(t.s, t.n, attr_words)) return true;
    return perr(P, t.line, t.col, "unknown constraint '%.*s' (did you mean '%s'?)", (int)t.n, t.s, w);
}

static bool parse_operand(parser *P, opnd *o)
{
    memset(o, 0, sizeof *o);
    o->loc = RAVEL_LOC_NONE;
    o->line = P->t.line;
    o->col = P->t.col;
    if ((tok_is(&P->t, "early") || tok_is(&P->t, "late")) && peek(P).k == T_IDENT) {
        o->pos = tok_is(&P->t, "early") ? RAVEL_POS_EARLY : RAVEL_POS_LATE;
        next(P);
    }
    if (!parse_vreg_ann(P, o)) return false;
    token t = P->t;
    if (tok_is(&t, "reg")) {
        o->c = RAVEL_C_REG;
        next(P);
    } else if (tok_is(&t, "any")) {
        o->c = RAVEL_C_ANY;
        next(P);
    } else if (tok_is(&t, "stack")) {
        o->c = RAVEL_C_STACK;
        next(P);
    } else if (tok_is(&t, "fixed")) {
        next(P);
        if (!expect(P, T_LPAREN, "'(' after fixed")) return false;
        token r = P->t;
        if (r.k != T_IDENT) return unexpected(P, "a register name");
        int reg = find_reg(P, r.s, r.n);
        if (reg < 0) return perr(P, r.line, r.col, "unknown register '%.*s'", (int)(r.n > 40 ? 40 : r.n), r.s);
        next(P);
        if (!expect(P, T_RPAREN, "')'")) return false;
        o->c = RAVEL_C_FIXED;
        o->arg = (uint32_t)reg;
    } else if (tok_is(&t, "reuse")) {
        next(P);
        if (!expect(P, T_LPAREN, "'(' after reuse")) return false;
        token k = P->t;
        if (k.k != T_INT) return unexpected(P, "a use index");
        if (k.ival < 0 || k.ival > 65535) return perr(P, k.line, k.col, "reuse index %lld out of range 0..65535", (long long)k.ival);
        next(P);
        if (!expect(P, T_RPAREN, "')'")) return false;
        o->c = RAVEL_C_REUSE;
        o->arg = (uint32_t)k.ival;
    }
    if (accept(P, T_AT)) return parse_loc(P, &o->loc);
    return constraint_typo(P);
}

/* A use starts with a vreg, `early`/`late` followed by a name, or an integer. */
static bool at_use(const parser *P)
{
    uint32_t num;
    if (P->t.k == T_INT) return true;
    if (is_vreg_tok(&P->t, &num)) return true;
    return (tok_is(&P->t, "early") || tok_is(&P->t, "late")) && peek(P).k == T_IDENT;
}

/* ---- functions: instructions ------------------------------------------------------ */

static bool builder_failed(parser *P, int rc, uint32_t line, uint32_t col)
{
    if (rc >= 0) return false;
    const char *m = rv_func_error(P->f);
    perr(P, line, col, "%s", m ? m : "cannot build the instruction");
    return true;
}

/* Instructions and labels of the whole file count against RV_MAX_INSTS, so
 * that memory stays bounded whatever the input. */
static bool count_inst(parser *P, uint32_t line, uint32_t col)
{
    if (++P->ninsts > RV_MAX_INSTS)
        return perr(P, line, col, "too many instructions and labels (limit %u per file)", RV_MAX_INSTS);
    return true;
}

/* Uses: a comma-separated list of operands and immediates. */
static bool parse_uses(parser *P, uint32_t *nuses)
{
    uint32_t n = 0;
    if (!at_use(P)) return true;
    for (;;) {
        if (n >= RV_MAX_OPERANDS) return perr(P, P->t.line, P->t.col, "too many operands (limit %u)", RV_MAX_OPERANDS);
        if (P->t.k == T_INT) {
            if (builder_failed(P, ravel_inst_imm(P->f, P->t.ival), P->t.line, P->t.col)) return false;
            next(P);
        } else {
            opnd o;
            if (!parse_operand(P, &o)) return false;
            if (!note_use_ann(P, &o)) return false;
            if (builder_failed(P, ravel_inst_use(P->f, o.vreg, o.c, o.arg, o.pos, o.loc), o.line, o.col)) return false;
        }
        n++;
        if (!accept(P, T_COMMA)) break;
    }
    *nuses = n;
    return true;
}

/* clobbers(REGS) safepoint stackmap(SLOTS), each at most once, any order. */
static bool parse_attrs(parser *P)
{
    bool seen_c = false, seen_s = false, seen_m = false;
    while (P->t.k == T_IDENT) {
        token a = P->t;
        bool *seen = tok_is(&a, "clobbers") ? &seen_c : tok_is(&a, "safepoint") ? &seen_s : tok_is(&a, "stackmap") ? &seen_m : NULL;
        if (!seen && at_use(P)) return perr(P, a.line, a.col, "missing ',' between uses");
        if (!seen && !constraint_typo(P)) return false; /* `const 1 fixd(r0)` */
        if (!seen) return unexpected(P, "an attribute (clobbers, safepoint, stackmap)");
        if (*seen) return perr(P, a.line, a.col, "attribute '%.*s' repeated", (int)a.n, a.s);
        *seen = true;
        next(P);
        if (seen == &seen_s) {
            ravel_inst_safepoint(P->f);
            continue;
        }
        if (!expect(P, T_LPAREN, "'('")) return false;
        P->list.len = 0;
        if (!name_list(P, true, seen == &seen_c ? add_reg_to_list : add_slot_to_list, NULL)) return false;
        next(P); /* ')' */
        int rc = seen == &seen_c ? ravel_inst_clobbers(P->f, P->list.data, P->list.len)
                                 : ravel_inst_stackmap(P->f, P->list.data, P->list.len);
        if (builder_failed(P, rc, a.line, a.col)) return false;
    }
    return true;
}

static uint32_t block_ref(parser *P, const char *s, uint32_t n)
{
    uint32_t sym = rv_sym_intern(&P->f->syms, s, n);
    while (P->block_of.len <= sym) rv_vec_push(P->block_of, 0);
    uint32_t b = P->block_of.data[sym];
    if (b) return b - 1;
    b = ravel_block_new(P->f, rv_sym_str(&P->f->syms, sym));
    P->block_of.data[sym] = b + 1;
    return b;
}

/* LABEL [ '(' [ARG (',' ARG)*] ')' ] with ARG = vN[:CLASS[.ref]] */
static bool parse_target(parser *P)
{
    token l = P->t;
    uint32_t num;
    if (l.k != T_IDENT || is_vreg_tok(&l, &num)) return unexpected(P, "a block label");
    next(P);
    P->list.len = 0;
    if (accept(P, T_LPAREN)) {
        if (P->t.k != T_RPAREN) {
            for (;;) {
                if (P->list.len >= RV_MAX_OPERANDS) return perr(P, P->t.line, P->t.col, "too many arguments (limit %u)", RV_MAX_OPERANDS);
                opnd o;
                memset(&o, 0, sizeof o);
                o.line = P->t.line, o.col = P->t.col;
                if (!parse_vreg_ann(P, &o) || !note_use_ann(P, &o)) return false;
                rv_vec_push(P->list, o.vreg);
                if (!accept(P, T_COMMA)) break;
            }
        }
        if (!expect(P, T_RPAREN, "',' or ')'")) return false;
    }
    uint32_t b = block_ref(P, l.s, l.n);
    return !builder_failed(P, ravel_inst_succ(P->f, b, P->list.data, P->list.len), l.line, l.col);
}

/* jump TARGET | br [COND,] TARGET, TARGET... | ret USES */
static bool parse_term(parser *P, ravel_opcode op, const token *mn)
{
    if (builder_failed(P, ravel_inst_begin(P->f, op, NULL), mn->line, mn->col)) return false;
    rv_inst *in = &P->f->insts.data[P->f->cur_inst];
    in->line = mn->line, in->col = mn->col;
    if (op == RAVEL_OP_RET) {
        uint32_t n;
        if (!parse_uses(P, &n)) return false;
    } else if (op == RAVEL_OP_JUMP) {
        if (!parse_target(P)) return false;
    } else {
        uint32_t num, ntargets = 0;
        if (is_vreg_tok(&P->t, &num) || ((tok_is(&P->t, "early") || tok_is(&P->t, "late")) && peek(P).k == T_IDENT)) {
            opnd o;
            if (!parse_operand(P, &o) || !note_use_ann(P, &o)) return false;
            if (builder_failed(P, ravel_inst_use(P->f, o.vreg, o.c, o.arg, o.pos, o.loc), o.line, o.col)) return false;
            if (!expect(P, T_COMMA, "',' after the branch condition")) return false;
        }
        for (;;) {
            if (!parse_target(P)) return false;
            ntargets++;
            if (!accept(P, T_COMMA)) break;
        }
        if (ntargets < 2) return perr(P, mn->line, mn->col, "br needs at least two successors");
    }
    if (P->t.k == T_IDENT && (tok_is(&P->t, "clobbers") || tok_is(&P->t, "safepoint") || tok_is(&P->t, "stackmap")))
        return perr(P, P->t.line, P->t.col, "terminators take no attributes");
    return true;
}

/* LOC = spill|reload|move LOC (the current token is LOC) */
static bool parse_edit(parser *P, const token *first)
{
    ravel_loc dst, src;
    if (!parse_loc(P, &dst)) return false;
    if (!expect(P, T_EQ, "'='")) return false;
    token kw = P->t;
    ravel_opcode kind = tok_is(&kw, "spill") ? RAVEL_OP_SPILL : tok_is(&kw, "reload") ? RAVEL_OP_RELOAD : RAVEL_OP_MOVE;
    next(P);
    if (!parse_loc(P, &src)) return false;
    int id = ravel_edit(P->f, kind, dst, src);
    if (builder_failed(P, id, first->line, first->col)) return false;
    P->f->insts.data[id].line = first->line;
    P->f->insts.data[id].col = first->col;
    return true;
}

static bool is_edit_kw(const token *t) { return tok_is(t, "spill") || tok_is(t, "reload") || tok_is(t, "move"); }
static bool is_term_kw(const token *t) { return tok_is(t, "jump") || tok_is(t, "br") || tok_is(t, "ret"); }

/* True if '=' occurs on the current line (outside a comment) at or after
 * the current token: the line has defs or is an edit. */
static bool line_has_eq(const parser *P, const char **after)
{
    const char *p = P->t.s, *end = P->lx.end;
    if (p >= end) return false;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *eq = memchr(p, '=', (size_t)((nl ? nl : end) - p));
    if (!eq || memchr(p, '#', (size_t)(eq - p))) return false;
    *after = eq + 1;
    return true;
}

/* DEFS: operand (',' operand)* '=' -- collected in P->defs, handed to the
 * builder once the instruction is begun. */
static bool parse_defs(parser *P)
{
    P->defs.len = 0;
    for (;;) {
        if (P->defs.len >= RV_MAX_OPERANDS) return perr(P, P->t.line, P->t.col, "too many operands (limit %u)", RV_MAX_OPERANDS);
        opnd o;
        if (!parse_operand(P, &o)) return false;
        rv_vec_push(P->defs, o);
        if (!accept(P, T_COMMA)) break;
    }
    return expect(P, T_EQ, "',' or '='");
}

/* MNEMONIC | call NAME, then the instruction is begun with P->defs as its
 * defs; the current token is the mnemonic. */
static bool begin_op(parser *P, const token *first)
{
    token mn = P->t, name = P->t;
    next(P);
    ravel_opcode op = rv_opcode_from_name(mn.s, mn.n);
    if (op == RAVEL_OP_CALL) {
        name = P->t;
        if (name.k != T_IDENT) return unexpected(P, "the callee's name after call");
        next(P);
    }
    const char *nm = NULL; /* NUL-terminated copy for the builder, which interns it */
    if ((op == RAVEL_OP_OTHER || op == RAVEL_OP_CALL) && name.n < sizeof P->name) {
        memcpy(P->name, name.s, name.n);
        P->name[name.n] = 0;
        nm = P->name;
    } else if (op == RAVEL_OP_OTHER || op == RAVEL_OP_CALL) {
        nm = rv_sym_str(&P->f->syms, rv_sym_intern(&P->f->syms, name.s, name.n));
    }
    if (builder_failed(P, ravel_inst_begin(P->f, op, nm), first->line, first->col)) return false;
    rv_inst *in = &P->f->insts.data[P->f->cur_inst];
    in->line = first->line, in->col = first->col;
    for (uint32_t i = 0; i < P->defs.len; i++) {
        const opnd *o = &P->defs.data[i];
        if (!note_def_class(P, o)) return false;
        if (builder_failed(P, ravel_inst_def(P->f, o->vreg, o->c, o->arg, o->pos, o->loc), o->line, o->col)) return false;
    }
    return true;
}

/* DEFS = MNEMONIC USES ATTRS | MNEMONIC USES ATTRS | edit | terminator */
static bool parse_inst(parser *P)
{
    token first = P->t;
    if (!count_inst(P, first.line, first.col)) return false;
    const char *after;
    bool has_eq = line_has_eq(P, &after);
    if (has_eq) {
        token mn = {.k = T_BAD}; /* the identifier after '=', if any (as lex_into reads it) */
        after = skip_hspace(after);
        if (is_id0(*after)) {
            mn.k = T_IDENT;
            mn.s = after;
            mn.n = (uint32_t)(ident_end(after) - after);
        }
        if (is_edit_kw(&mn)) return parse_edit(P, &first);
        /* `r0 = mov r1`: a location, '=', a near miss of an edit (a vreg,
         * the usual first word, is no location: register names never look
         * like one) */
        uint32_t num;
        bool at_loc = first.k == T_IDENT && is_vreg_tok(&first, &num) == NUMNAME_NO &&
                      (find_reg(P, first.s, first.n) >= 0 || is_slot_tok(&first, &num) > 0) && peek(P).k == T_EQ;
        const char *w = at_loc && mn.k == T_IDENT ? rv_near_word(mn.s, mn.n, edit_words) : NULL;
        if (w && rv_opcode_from_name(mn.s, mn.n) == RAVEL_OP_OTHER)
            return perr(P, first.line, first.col + (uint32_t)(mn.s - first.s),
                        "unknown edit '%.*s' (did you mean '%s'?)", (int)mn.n, mn.s, w);
        if (!parse_defs(P)) return false;
    } else {
        P->defs.len = 0;
    }
    token mn = P->t;
    if (mn.k != T_IDENT) return unexpected(P, "a mnemonic");
    if (is_term_kw(&mn)) {
        if (has_eq) return perr(P, mn.line, mn.col, "a terminator has no results");
        next(P);
        ravel_opcode op = tok_is(&mn, "jump") ? RAVEL_OP_JUMP : tok_is(&mn, "br") ? RAVEL_OP_BR : RAVEL_OP_RET;
        return parse_term(P, op, &mn);
    }
    if (is_edit_kw(&mn)) return perr(P, mn.line, mn.col, "'%.*s' is an edit: write LOC = %.*s LOC", (int)mn.n, mn.s, (int)mn.n, mn.s);
    if (!has_eq && rv_opcode_from_name(mn.s, mn.n) == RAVEL_OP_OTHER) { /* `jmp b1`: a block where a use would be */
        token nx = peek(P);
        uint32_t num;
        /* (the near-miss distances last: most such lines have a use next) */
        const char *w = nx.k == T_IDENT && !is_vreg_tok(&nx, &num) && !tok_is(&nx, "early") && !tok_is(&nx, "late") &&
                                !tok_is(&nx, "clobbers") && !tok_is(&nx, "safepoint") && !tok_is(&nx, "stackmap")
                            ? rv_near_word(mn.s, mn.n, term_words)
                            : NULL;
        if (w && !rv_near_word(nx.s, nx.n, attr_words))
            return perr(P, mn.line, mn.col, "unknown mnemonic '%.*s' before a block name (did you mean '%s'?)", (int)mn.n,
                        mn.s, w);
    }
    uint32_t n;
    return begin_op(P, &first) && parse_uses(P, &n) && parse_attrs(P);
}

/* ---- functions: blocks ---------------------------------------------------------- */

static void close_block(parser *P, uint32_t line, uint32_t col)
{
    if (P->f->cur_block == RAVEL_NONE) return;
    rv_block *b = &P->f->blocks.data[P->f->cur_block];
    b->end_line = line;
    b->end_col = col;
}

/* PARAM (',' PARAM)* with PARAM = vN:CLASS[.ref], into P->defs; a vreg
 * may appear once (P->param_mark, cleared by the caller). */
static bool label_params(parser *P)
{
    for (;;) {
        if (P->defs.len >= RV_MAX_OPERANDS) return perr(P, P->t.line, P->t.col, "too many parameters (limit %u)", RV_MAX_OPERANDS);
        opnd o;
        memset(&o, 0, sizeof o);
        o.line = P->t.line, o.col = P->t.col;
        if (!parse_vreg_ann(P, &o) || !note_def_class(P, &o)) return false;
        if (P->param_mark.data[o.vreg]) return perr(P, o.line, o.col, "duplicate parameter v%u", P->f->vregs.data[o.vreg].num);
        P->param_mark.data[o.vreg] = 1;
        rv_vec_push(P->defs, o);
        if (!accept(P, T_COMMA)) return true;
    }
}

/* LABEL [ '(' PARAM (',' PARAM)* ')' ] ':' with PARAM = vN:CLASS[.ref] */
static bool parse_label(parser *P)
{
    token l = P->t;
    uint32_t num;
    if (!count_inst(P, l.line, l.col)) return false;
    if (is_vreg_tok(&l, &num)) return perr(P, l.line, l.col, "block label '%.*s' would read as a vreg", (int)l.n, l.s);
    next(P);
    if (P->f->cur_inst != RAVEL_NONE) ravel_inst_end(P->f);
    close_block(P, l.line, l.col);
    P->f->cur_block = RAVEL_NONE;
    uint32_t b = block_ref(P, l.s, l.n);
    if (P->f->blocks.data[b].started) {
        /* give the following lines a (nameless) block to avoid cascades */
        ravel_block_begin(P->f, ravel_block_new(P->f, NULL));
        return perr(P, l.line, l.col, "block '%.*s' defined twice", (int)(l.n > 40 ? 40 : l.n), l.s);
    }
    P->defs.len = 0;
    bool paren = accept(P, T_LPAREN);
    bool ok = !paren || P->t.k == T_RPAREN || label_params(P);
    if (ok && paren) ok = expect(P, T_RPAREN, "',' or ')'");
    for (uint32_t i = 0; i < P->defs.len; i++) P->param_mark.data[P->defs.data[i].vreg] = 0;
    if (ok) ok = expect(P, T_COLON, "':' after the block label");
    /* start the block even after an error so that later lines have a home */
    for (uint32_t i = 0; ok && i < P->defs.len; i++) ravel_block_add_param(P->f, b, P->defs.data[i].vreg);
    ravel_block_begin(P->f, b);
    rv_block *blk = &P->f->blocks.data[b];
    blk->line = l.line, blk->col = l.col;
    return ok;
}

/* NAME ':' or NAME '(' where NAME is not a vreg (`v1:int = ...` is a def);
 * `vN:` followed by the end of the line is a label that reads as a vreg. */
static bool at_label(const parser *P)
{
    uint32_t num;
    if (P->t.k != T_IDENT) return false;
    /* the next token, by its first byte (as lex_into would read it) */
    const char *p = skip_hspace(P->lx.p);
    if (!is_vreg_tok(&P->t, &num)) return *p == ':' || *p == '(';
    if (*p != ':') return false;
    p = skip_hspace(p + 1);
    return p >= P->lx.end || *p == '\n' || *p == '#'; /* then the line ends */
}

/* Checks use annotations recorded before their vreg's def. */
static void check_pending(parser *P)
{
    for (uint32_t i = 0; i < P->pend.len; i++) {
        const pending_ann *pa = &P->pend.data[i];
        if (P->f->vregs.data[pa->vreg].has_class) check_use_ann(P, pa->vreg, pa->cls, pa->ref, pa->line, pa->col);
    }
}

/* func NAME NL: creates the function (also after an error, so that its
 * lines can be read); the current token is `func`. */
/* Room in f's arrays for the function whose text starts at p: its bytes
 * up to the next line `end` (or the input's end), at least 8 per
 * instruction line and about 2 operands per instruction, so that the
 * arrays are not grown a dozen times each (a hint: they still grow past
 * it; the memory stays linear in the text). */
static void reserve_for_text(ravel_func *f, const char *p, const char *end)
{
    const char *e = p;
    while ((e = memchr(e, '\n', (size_t)(end - e))) && !(end - e > 3 && e[1] == 'e' && e[2] == 'n' && e[3] == 'd')) e++;
    size_t bytes = (size_t)((e ? e : end) - p), n = bytes / 32;
    if (n > (1u << 20)) n = 1u << 20;
    rv_vec_reserve(f->insts, n);
    rv_vec_reserve(f->ops, 2 * n);
    rv_vec_reserve(f->vregs, n);
    rv_vec_reserve(f->u32, n / 2);
}

static ravel_func *func_header(parser *P)
{
    token fk = P->t;
    next(P);
    token nm = P->t;
    if (nm.k != T_IDENT) {
        unexpected(P, "a function name");
        skip_line(P);
        nm.s = "f", nm.n = 1;
    } else {
        /* tools match functions by name (check --orig, run --compare) */
        if (rv_sym_find(&P->fnames, nm.s, nm.n) != RAVEL_NONE)
            perr(P, nm.line, nm.col, "function '%.*s' defined twice", (int)(nm.n > 40 ? 40 : nm.n), nm.s);
        rv_sym_intern(&P->fnames, nm.s, nm.n);
        next(P);
        if (!expect_eol(P)) skip_line(P);
    }
    char *name = rv_xmalloc(nm.n + 1);
    memcpy(name, nm.s, nm.n);
    name[nm.n] = 0;
    ravel_func *f = ravel_func_new(P->m, name);
    rv_free(name);
    rv_vec_push(P->mod->funcs, f);
    f->line = fk.line, f->col = fk.col;
    f->file = P->mod->filename, f->src = P->mod->src, f->srclen = P->mod->srclen;
    reserve_for_text(f, P->lx.p, P->lx.end);
    P->f = f;
    P->block_of.len = 0; /* symbol ids restart with each function */
    P->pend.len = 0;
    P->param_mark.len = 0;
    return f;
}

/* One line of a function body: a label, an instruction, or `end` (sets
 * *done). A `func` or `machine` line, or the end of the input, means `end`
 * is missing (sets *done after the error). */
static bool func_line(parser *P, bool *done)
{
    ravel_func *f = P->f;
    token t = P->t;
    if (t.k == T_EOF) {
        *done = true;
        uint32_t line, col;
        eof_pos(P, &line, &col);
        return perr(P, line, col, "missing 'end' of func '%s'", rv_func_name(f));
    }
    if (at_label(P)) return parse_label(P) && expect_eol(P);
    if (tok_is(&t, "end") && peek(P).k != T_EQ) { /* `end = move r0`: a register named end */
        next(P);
        close_block(P, t.line, t.col);
        f->end_line = t.line;
        *done = true;
        if (expect_eol(P)) return true;
        skip_line(P);
        return false;
    }
    if ((tok_is(&t, "func") || tok_is(&t, "machine")) && peek(P).k != T_EQ) {
        *done = true;
        return perr(P, t.line, t.col, "missing 'end' of func '%s' before '%.*s'", rv_func_name(f), (int)t.n, t.s);
    }
    if (f->cur_block == RAVEL_NONE) return perr(P, t.line, t.col, "expected a block label (NAME:) before the first instruction");
    return parse_inst(P) && expect_eol(P);
}

/* func NAME NL (LABEL NL | INST NL)* end NL; the current token is `func`.
 * Always leaves a finished function in the module. */
static bool parse_func(parser *P)
{
    uint32_t nerr0 = P->nerr;
    token fk = P->t;
    ravel_func *f = func_header(P);
    for (bool done = false; !done;) {
        skip_blank(P);
        bool ok = func_line(P, &done);
        /* an instruction left open by an error is closed here */
        if (f->cur_inst != RAVEL_NONE) ravel_inst_end(f);
        if (!ok && !done) skip_line(P);
    }
    if (f->layout.len == 0 && P->nerr == nerr0) perr(P, fk.line, fk.col, "func '%s' has no blocks", rv_func_name(f));
    check_pending(P);
    vcache_flush(P);
    ravel_func_finish(f);
    return P->nerr == nerr0;
}

/* ---- module ----------------------------------------------------------------------- */

static void parser_free(parser *P)
{
    rv_vec_free(P->block_of);
    rv_vec_free(P->param_mark);
    rv_vec_free(P->pend);
    rv_vec_free(P->defs);
    rv_vec_free(P->list);
    rv_vec_free(P->vcache);
    rv_symtab_free(&P->fnames);
    rv_free(P->ntab);
}

static void parser_init(parser *P, ravel_module *mod, ravel_diags *d)
{
    memset(P, 0, sizeof *P);
    P->lx.p = P->lx.bol = mod->src;
    P->lx.end = mod->src + mod->srclen;
    P->lx.line = 1;
    P->file = mod->filename;
    P->src = mod->src;
    P->srclen = mod->srclen;
    P->d = d;
    P->mod = mod;
    P->m = mod->mach;
    P->budget = (uint64_t)mod->srclen * 16 + 4096; /* range names: linear in the input, */
    if (P->budget > (1u << 22)) P->budget = 1u << 22; /* and at most 4M per file */
    /* dense vreg table: at most 2 bytes per input byte and 64 MiB */
    P->vlimit = (uint64_t)mod->srclen / 2 + 1024;
    if (P->vlimit > (1u << 24)) P->vlimit = 1u << 24;
    next(P);
}

/* MACHINE FUNC+ (after an error in the machine, nothing more is read). */
static void parse_module(parser *P)
{
    if (!parse_machine(P)) return;
    for (;;) {
        skip_blank(P);
        if (P->t.k == T_EOF) break;
        if (!tok_is(&P->t, "func")) {
            unexpected(P, "'func'");
            skip_line(P);
            continue;
        }
        if (P->mod->funcs.len >= PARSE_MAX_FUNCS) {
            perr(P, P->t.line, P->t.col, "too many functions (limit %u per file)", PARSE_MAX_FUNCS);
            return;
        }
        parse_func(P);
    }
    if (P->nerr == 0 && P->mod->funcs.len == 0) perr(P, P->t.line, P->t.col, "expected at least one func after the machine");
}

static ravel_module *parse_text(const char *text, size_t len, const char *filename, ravel_diags *d);

ravel_module *ravel_module_parse(const char *text, size_t len, const char *filename, ravel_diags *d)
{
    /* out of memory: NULL, d as it was (no new diagnostic), nothing kept */
    rv_recover rec;
    bool own = rv_recover_enter(&rec);
    uint64_t volatile mark = rv_diags_mark(d);
    if (own && setjmp(rec.jb)) {
        rv_diags_truncate(d, mark);
        rv_recover_sweep(&rec);
        return NULL;
    }
    ravel_module *mod = parse_text(text, len, filename, d);
    if (own) rv_recover_leave(&rec);
    return mod;
}

static ravel_module *parse_text(const char *text, size_t len, const char *filename, ravel_diags *d)
{
    ravel_module *mod = rv_xcalloc(1, sizeof *mod);
    mod->filename = rv_xstrdup(filename ? filename : "<input>");
    if (len > RV_MAX_INPUT_BYTES || (len && !text)) {
        if (!text) rv_diag_error(d, mod->filename, NULL, 0, 0, 0, "no input text (NULL with a length)");
        else rv_diag_error(d, mod->filename, NULL, 0, 0, 0, "input larger than %u MiB, refused", RV_MAX_INPUT_BYTES >> 20);
        ravel_module_free(mod);
        return NULL;
    }
    /* the module keeps its own copy: functions point into it (f->src); the
     * NUL after it ends the lexer's scans (cclass) */
    mod->src = rv_xmalloc(len + 1);
    if (len) memcpy(mod->src, text, len);
    mod->src[len] = 0;
    mod->srclen = len;
    mod->mach = ravel_machine_new();
    parser P;
    parser_init(&P, mod, d);
    parse_module(&P);
    parser_free(&P);
    if (P.nerr) {
        ravel_module_free(mod);
        return NULL;
    }
    return mod;
}

void ravel_module_free(ravel_module *mod)
{
    if (!mod) return;
    for (uint32_t i = 0; i < mod->funcs.len; i++) ravel_func_free(mod->funcs.data[i]);
    rv_vec_free(mod->funcs);
    if (!mod->mach_borrowed) ravel_machine_free(mod->mach);
    rv_free(mod->filename);
    rv_free(mod->src);
    rv_free(mod);
}

const ravel_machine *ravel_module_machine(const ravel_module *mod) { return mod ? mod->mach : NULL; }
size_t ravel_module_nfuncs(const ravel_module *mod) { return mod ? mod->funcs.len : 0; }
ravel_func *ravel_module_func(const ravel_module *mod, size_t i)
{
    return mod && i < mod->funcs.len ? mod->funcs.data[i] : NULL;
}

ravel_func *rv_module_take_func(ravel_module *mod, size_t i)
{
    if (!mod || i >= mod->funcs.len) return NULL;
    ravel_func *f = mod->funcs.data[i];
    memmove(mod->funcs.data + i, mod->funcs.data + i + 1, sizeof *mod->funcs.data * (mod->funcs.len - i - 1));
    mod->funcs.len--;
    f->file = NULL;
    f->src = NULL;
    f->srclen = 0;
    return f;
}
