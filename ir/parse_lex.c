/* parse_lex.c - the .ra reader's lexer and what every part of the reader
 * reads with it (parse.h): tokens, diagnostics, vN / sN names, the
 * machine's register and class names, name lists with ranges
 * (docs/format.md section 2).
 *
 * Requires: a parser set up by parse.c over the module's copy of the
 * source, which ends with a NUL byte.
 * Guarantees: one token at a time, in place, without allocating; ranges are
 * expanded within the parser's budget (linear in the input). */
#include "parse.h"

#include <stdlib.h>
#include <string.h>

/* ---- tokens ---------------------------------------------------------------- */

/* The character classes of parse.h. */
#define CC_LETTERS(b) [b] = CC_ID0, [b + 1] = CC_ID0, [b + 2] = CC_ID0, [b + 3] = CC_ID0, [b + 4] = CC_ID0, \
                      [b + 5] = CC_ID0, [b + 6] = CC_ID0, [b + 7] = CC_ID0, [b + 8] = CC_ID0, [b + 9] = CC_ID0, \
                      [b + 10] = CC_ID0, [b + 11] = CC_ID0, [b + 12] = CC_ID0
const uint8_t rvp_cclass[256] = {
    CC_LETTERS('a'), CC_LETTERS('n'), CC_LETTERS('A'), CC_LETTERS('N'), ['_'] = CC_ID0,
    ['0'] = CC_DIGIT, ['1'] = CC_DIGIT, ['2'] = CC_DIGIT, ['3'] = CC_DIGIT, ['4'] = CC_DIGIT,
    ['5'] = CC_DIGIT, ['6'] = CC_DIGIT, ['7'] = CC_DIGIT, ['8'] = CC_DIGIT, ['9'] = CC_DIGIT,
    [' '] = CC_SPACE, ['\t'] = CC_SPACE, ['\v'] = CC_SPACE, ['\f'] = CC_SPACE, ['\r'] = CC_SPACE,
    ['='] = CC_EQSTOP, ['#'] = CC_EQSTOP, ['\n'] = CC_EQSTOP, [0] = CC_EQSTOP,
};
#undef CC_LETTERS

static int hexval(int c)
{
    if (is_digit(c)) return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Integer: [-] (decimal | 0x hex). The value must fit int64 (T_INT); one
 * that does not is T_BAD, but keeps its value modulo 2^64 (wval, wnum) for
 * the one integer that may have any magnitude, remat's K. */
void rvp_lex_int(lexer *lx, token *t)
{
    const char *p = lx->p;
    bool neg = *p == '-';
    if (neg) p++;
    uint64_t v = 0, w = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    bool over = false, any = false;
    if (p + 1 < lx->end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        for (int h; p < lx->end && (h = hexval((unsigned char)*p)) >= 0; p++, any = true) {
            w = w * 16 + (uint64_t)h;
            if (v > (lim - (uint64_t)h) / 16) over = true;
            else v = v * 16 + (uint64_t)h;
        }
    } else {
        for (; p < lx->end && is_digit(*p); p++, any = true) {
            uint64_t dgt = (uint64_t)(*p - '0');
            w = w * 10 + dgt;
            if (v > (lim - dgt) / 10) over = true;
            else v = v * 10 + dgt;
        }
    }
    if (p < lx->end && is_id(*p)) {
        while (p < lx->end && is_id(*p)) p++;
        t->k = T_BAD, t->bad = "malformed number";
        return (void)(lx->p = p);
    }
    t->wnum = any;
    t->wval = neg ? 0 - w : w;
    if (!any) {
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

/* Punctuation, or T_BAD for any other byte (c is *lx->p, consumed). */
void rvp_lex_punct(lexer *lx, int c, token *t)
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

/* The keyword an identifier spells (KW_*), by its length and first byte,
 * then one comparison. */
#define KW(word, id) \
    if (memcmp(s, word, sizeof(word) - 1) == 0) return id
int rvp_kw_of(const char *s, uint32_t n)
{
    switch (n) {
    case 2:
        switch (s[0]) {
        case 'b': KW("br", RAVEL_OP_BR); break;
        case 'o': KW("or", RAVEL_OP_OR); break;
        case 'e': KW("eq", RAVEL_OP_EQ); break;
        case 'n': KW("ne", RAVEL_OP_NE); break;
        case 'l': KW("lt", RAVEL_OP_LT); KW("le", RAVEL_OP_LE); break;
        }
        break;
    case 3:
        switch (s[0]) {
        case 'a': KW("add", RAVEL_OP_ADD); KW("and", RAVEL_OP_AND); KW("any", KW_ANY); break;
        case 's': KW("sub", RAVEL_OP_SUB); KW("shl", RAVEL_OP_SHL); KW("shr", RAVEL_OP_SHR); KW("sar", RAVEL_OP_SAR); break;
        case 'm': KW("mul", RAVEL_OP_MUL); break;
        case 'x': KW("xor", RAVEL_OP_XOR); break;
        case 'o': KW("out", RAVEL_OP_OUT); break;
        case 'r': KW("ret", RAVEL_OP_RET); KW("reg", KW_REG); KW("ref", KW_REF); break;
        case 'e': KW("end", KW_END); break;
        }
        break;
    case 4:
        switch (s[0]) {
        case 'a': KW("args", RAVEL_OP_ARGS); break;
        case 'c': KW("copy", RAVEL_OP_COPY); KW("call", RAVEL_OP_CALL); break;
        case 'j': KW("jump", RAVEL_OP_JUMP); break;
        case 'm': KW("move", RAVEL_OP_MOVE); break;
        case 'l': KW("late", KW_LATE); break;
        case 'f': KW("func", KW_FUNC); break;
        }
        break;
    case 5:
        switch (s[0]) {
        case 'c': KW("const", RAVEL_OP_CONST); break;
        case 's': KW("spill", RAVEL_OP_SPILL); KW("stack", KW_STACK); break;
        case 'r': KW("remat", RAVEL_OP_REMAT); KW("reuse", KW_REUSE); break;
        case 'u': KW("undef", RAVEL_OP_UNDEF); break;
        case 'e': KW("early", KW_EARLY); break;
        case 'f': KW("fixed", KW_FIXED); break;
        }
        break;
    case 6: KW("reload", RAVEL_OP_RELOAD); break;
    case 7: KW("machine", KW_MACHINE); break;
    case 8: KW("clobbers", KW_CLOBBERS); KW("stackmap", KW_STACKMAP); break;
    case 9: KW("safepoint", KW_SAFEPOINT); break;
    }
    return KW_NONE;
}
#undef KW

void rvp_classify(token *t)
{
    t->kw = KW_NONE;
    t->numc = 0;
    t->num = 0;
    if (t->k != T_IDENT) return;
    t->kw = (uint8_t)rvp_kw_of(t->s, t->n);
    t->numc = 1;
    if (t->n < 2 || (t->s[0] != 'v' && t->s[0] != 's')) return;
    uint64_t v = 0;
    for (uint32_t k = 1; k < t->n; k++) {
        if (!is_digit(t->s[k])) return;
        if (v <= NUM_SAT) v = v * 10 + (uint64_t)(t->s[k] - '0');
    }
    t->numc = (uint8_t)t->s[0];
    t->num = v > NUM_SAT ? NUM_SAT : (uint32_t)v;
}

/* rvp_lex_into for lookahead on a copy of the lexer. */
static token lex(lexer *lx)
{
    token t;
    rvp_lex_into(lx, &t);
    return t;
}

token rvp_peek(const parser *P)
{
    lexer l = P->lx;
    return lex(&l);
}

bool rvp_err(parser *P, uint32_t line, uint32_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rv_diag_verror(P->d, P->file, P->src, P->srclen, line, col, fmt, ap);
    va_end(ap);
    P->nerr++;
    return false;
}

/* Describes the current token for "expected X, found Y". */
bool rvp_unexpected(parser *P, const char *what)
{
    const token *t = &P->t;
    if (t->k == T_BAD) return rvp_err(P, t->line, t->col, "%s", t->bad);
    if (t->k == T_EOL || t->k == T_EOF)
        return rvp_err(P, t->line, t->col, "expected %s, found end of %s", what, t->k == T_EOL ? "line" : "input");
    return rvp_err(P, t->line, t->col, "expected %s, found '%.*s'", what, (int)(t->n > 40 ? 40 : t->n), t->s);
}

bool rvp_accept(parser *P, tkind k)
{
    if (P->t.k != k) return false;
    rvp_next(P);
    return true;
}

bool rvp_expect(parser *P, tkind k, const char *what)
{
    if (P->t.k != k) return rvp_unexpected(P, what);
    rvp_next(P);
    return true;
}

bool rvp_expect_eol(parser *P)
{
    if (P->t.k == T_EOL || P->t.k == T_EOF) {
        rvp_next(P);
        return true;
    }
    return rvp_unexpected(P, "end of line");
}

/* Skips the rest of the current line after an error. */
void rvp_skip_line(parser *P)
{
    while (P->t.k != T_EOL && P->t.k != T_EOF) rvp_next(P);
    if (P->t.k == T_EOL) rvp_next(P);
}

void rvp_skip_blank(parser *P)
{
    while (P->t.k == T_EOL) rvp_next(P);
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

/* Is the token C followed by decimal digits (vN, sN)? NUMNAME_NO if not;
 * NUMNAME_ZERO for a leading zero; NUMNAME_BIG above max; else the number. */
int rvp_num_name(const token *t, char c, uint32_t max, uint32_t *num)
{
    if (t->k != T_IDENT || t->n < 2 || t->s[0] != c) return NUMNAME_NO;
    if (t->numc) { /* read by the lexer */
        if (t->numc != c) return NUMNAME_NO;
        if (t->n > 2 && t->s[1] == '0') return NUMNAME_ZERO;
        if (t->num > max) return NUMNAME_BIG;
        *num = t->num;
        return NUMNAME_OK;
    }
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

/* Reports a malformed vN / sN name; rc from num_name. */
bool rvp_bad_num_name(struct parser *P, const token *t, int rc, const char *what)
{
    int n = (int)(t->n > 40 ? 40 : t->n);
    if (rc == NUMNAME_ZERO) return rvp_err(P, t->line, t->col, "%s name '%.*s' has a leading zero", what, n, t->s);
    return rvp_err(P, t->line, t->col, "%s number in '%.*s' exceeds the limit %u", what, n, t->s,
                t->s[0] == 'v' ? RV_MAX_VREG_NUM : RAVEL_MAX_SLOT);
}

/* The functions look up the machine's names (registers, classes) at most
 * operands: once the machine is read they go through ntab, an open-
 * addressing table of symbol id + 1 (0: empty) with a hash cheaper than the
 * symbol table's (rvp_name_key), as names are short; a class name, when
 * there are at most 8 classes, through their list. */
/* The names table's hash: one multiply (its keys are short names). */
static inline uint32_t name_hash(uint64_t key, uint32_t n) { return (uint32_t)(((key ^ n) * 0x9e3779b97f4a7c15ull) >> 32); }

void rvp_machine_names(parser *P)
{
    const rv_symtab *t = &P->m->names;
    uint32_t cap = 16;
    while (cap < 2 * t->strs.len) cap *= 2;
    P->ntab = rv_xcalloc(cap, sizeof *P->ntab);
    P->nmask = cap - 1;
    for (uint32_t id = 0; id < t->strs.len; id++) {
        uint32_t n = t->lens.data[id];
        uint64_t key = rvp_name_key(t->strs.data[id], n);
        uint32_t i = name_hash(key, n) & P->nmask;
        while (P->ntab[i].sym1) i = (i + 1) & P->nmask;
        P->ntab[i] = (struct name_slot){key, t->strs.data[id], n, id + 1};
    }
    if (P->m->classes.len <= 8)
        for (uint32_t c = 0; c < P->m->classes.len; c++) {
            P->cname[c] = P->m->classes.data[c].name;
            P->clen[c] = (uint32_t)strlen(P->cname[c]);
        }
    P->ncls = P->m->classes.len <= 8 ? P->m->classes.len : 0;
}

/* The name with key `key` in P->ntab (the machine is read). */
static uint32_t find_key(const parser *P, const char *s, uint32_t n, uint64_t key)
{
    for (uint32_t i = name_hash(key, n) & P->nmask; P->ntab[i].sym1; i = (i + 1) & P->nmask) {
        const struct name_slot *e = &P->ntab[i];
        if (rvp_name_eq(s, n, key, e->s, e->n, e->key)) return e->sym1 - 1;
    }
    return RAVEL_NONE;
}

static uint32_t find_name(const parser *P, const char *s, uint32_t n)
{
    if (!P->ntab) return rv_sym_find(&P->m->names, s, n); /* the machine is being read */
    return find_key(P, s, n, rvp_name_key(s, n));
}

int rvp_find_reg(const parser *P, const char *s, uint32_t n)
{
    uint32_t sym = find_name(P, s, n);
    return sym == RAVEL_NONE ? -1 : P->m->name_reg.data[sym];
}

int rvp_find_reg_src(const parser *P, const char *s, uint32_t n)
{
    uint32_t sym = find_key(P, s, n, rvp_src_key(s, n));
    return sym == RAVEL_NONE ? -1 : P->m->name_reg.data[sym];
}

int rvp_find_class(const parser *P, const char *s, uint32_t n)
{
    for (uint32_t c = 0; c < P->ncls; c++)
        if (P->clen[c] == n && rvp_same(P->cname[c], s, n)) return (int)c;
    if (P->ncls) return -1;
    uint32_t sym = find_name(P, s, n);
    return sym == RAVEL_NONE ? -1 : P->m->name_class.data[sym];
}

/* ---- names and ranges ---------------------------------------------------------- */

/* One item of a name list (rvp_name_list): a single identifier or a range
 * A..B. The current token is the item's first identifier. */
static bool list_item(parser *P, name_fn fn, void *ctx)
{
    token lo = P->t;
    if (lo.k != T_IDENT) return rvp_unexpected(P, "a name");
    rvp_next(P);
    if (P->t.k != T_DOTDOT) return fn(P, lo.s, lo.n, &lo, ctx);
    rvp_next(P);
    token hi = P->t;
    if (hi.k != T_IDENT) return rvp_unexpected(P, "the last name of a range");
    rvp_next(P);
    uint32_t pl, ph, a, b;
    if (!split_num(lo.s, lo.n, &pl, &a) || !split_num(hi.s, hi.n, &ph, &b) || pl != ph ||
        memcmp(lo.s, hi.s, pl) != 0)
        return rvp_err(P, lo.line, lo.col, "bad range '%.*s..%.*s': both ends need the same prefix and a numeric suffix",
                    (int)(lo.n > 40 ? 40 : lo.n), lo.s, (int)(hi.n > 40 ? 40 : hi.n), hi.s);
    if (a > b) return rvp_err(P, lo.line, lo.col, "empty range: %u > %u", a, b);
    if (pl > 64) return rvp_err(P, lo.line, lo.col, "range prefix too long");
    if ((uint64_t)b - a + 1 > P->budget)
        return rvp_err(P, lo.line, lo.col, "ranges expand to too many names (limit: proportional to input size)");
    P->budget -= (uint64_t)b - a + 1;
    if (fn == rvp_add_slot_to_list && pl == 1 && lo.s[0] == 's') { /* sA..sB: no names needed */
        if (b > RAVEL_MAX_SLOT) return rvp_err(P, hi.line, hi.col, "slot number %u exceeds the limit %u", b, RAVEL_MAX_SLOT);
        rv_vec_reserve(P->list, b - a + 1);
        for (uint32_t i = a; i <= b; i++) P->list.data[P->list.len++] = i;
        return true;
    }
    memcpy(P->name, lo.s, pl); /* PREFIX then the number, by hand (pl <= 64, 9 digits at most) */
    for (uint64_t i = a; i <= b; i++) {
        char d[10];
        uint32_t k = sizeof d, v = (uint32_t)i;
        do d[--k] = (char)('0' + v % 10);
        while (v /= 10);
        memcpy(P->name + pl, d + k, sizeof d - k);
        P->name[pl + sizeof d - k] = 0;
        if (!fn(P, P->name, pl + (uint32_t)(sizeof d - k), &lo, ctx)) return false;
    }
    return true;
}

/* Items until ')' (if paren) or end of line. */
bool rvp_name_list(parser *P, bool paren, name_fn fn, void *ctx)
{
    for (;;) {
        if (paren ? P->t.k == T_RPAREN : (P->t.k == T_EOL || P->t.k == T_EOF)) return true;
        if (!list_item(P, fn, ctx)) return false;
    }
}

bool rvp_add_reg_to_list(parser *P, const char *s, uint32_t n, const token *at, void *ctx)
{
    (void)ctx;
    int r = rvp_find_reg(P, s, n);
    if (r < 0) return rvp_err(P, at->line, at->col, "unknown register '%.*s'", (int)(n > 40 ? 40 : n), s);
    rv_vec_push(P->list, (uint32_t)r);
    return true;
}

bool rvp_add_slot_to_list(parser *P, const char *s, uint32_t n, const token *at, void *ctx)
{
    (void)ctx;
    token t = *at;
    t.s = s, t.n = n;
    rvp_classify(&t);
    uint32_t num;
    int rc = rvp_is_slot_tok(&t, &num);
    if (rc == NUMNAME_NO) return rvp_err(P, at->line, at->col, "expected a spill slot sN, found '%.*s'", (int)(n > 40 ? 40 : n), s);
    if (rc < 0) return rvp_bad_num_name(P, &t, rc, "slot");
    rv_vec_push(P->list, num);
    return true;
}

/* Where a missing `end` is reported: just after the last character of the
 * input that is not white space (on the last line, not past it). */
void rvp_eof_pos(const parser *P, uint32_t *line, uint32_t *col)
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
