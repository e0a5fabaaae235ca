/* parse.h - the .ra reader's internal interface, shared by its files:
 *
 *   parse.c          the driver: module, parser context, machine then functions
 *   parse_machine.c  the machine block (class, reserved, alias, clobbers, gc)
 *   parse_func.c     functions: labels, instructions, operands, edits
 *   parse_fast.c     the fast path of parse_func.c: a common instruction, edit
 *                    or label line read in one scan, or left to parse_func.c
 *   parse_label.c    label name -> block, for both
 *   parse_lex.c      the lexer and what both blocks read with it: tokens,
 *                    diagnostics, vN / sN names, register and class names,
 *                    name lists with ranges
 *
 * The files call downwards only (parse.c -> parse_machine.c, parse_func.c ->
 * parse_label.c, parse_lex.c). Everything here is internal to ir/ (prefix rvp_). */
#ifndef RAVEL_PARSE_H
#define RAVEL_PARSE_H

#include "ir.h"

/* ---- tokens ------------------------------------------------------------- */

typedef enum tkind {
    T_EOF, T_EOL, T_IDENT, T_INT, T_EQ, T_COMMA, T_COLON, T_DOT, T_DOTDOT,
    T_LPAREN, T_RPAREN, T_AT, T_BAD
} tkind;

typedef struct token {
    tkind k;
    const char *s;   /* first byte of the token */
    uint32_t n;      /* length in bytes */
    uint32_t line, col;
    uint8_t kw;      /* T_IDENT read by the lexer: its keyword (KW_*, kw_of), KW_NONE if none */
    uint8_t numc;    /* T_IDENT read by the lexer: 'v' or 's' if it is that letter then
                        digits only (num set), 1 if not; 0: not known (a token made by hand) */
    uint32_t num;    /* numc 'v' / 's': the digits' value, saturated at NUM_SAT */
    int64_t ival;    /* T_INT */
    uint64_t wval;   /* a well-formed integer (T_INT, or T_BAD for not fitting int64): its value modulo 2^64 */
    bool wnum;       /* wval is set */
    const char *bad; /* T_BAD: what is wrong */
} token;

/* Lexer position; copying it is how the parser looks ahead. */
typedef struct lexer {
    const char *p, *end;
    const char *bol; /* beginning of the current line */
    uint32_t line;
} lexer;

/* Character classes, one table lookup per byte (c is a byte, possibly
 * sign-extended: bytes >= 0x80 and NUL are in none of the first three
 * classes, so that the NUL after the module's copy of the source stops
 * every scan without a bound check). CC_SPACE: ' ', \t, \v, \f, \r (\r for CR LF). CC_EQSTOP: where
 * the scan for a line's '=' stops: '=', '#', newline and NUL (NUL in no
 * other class). */
enum { CC_ID0 = 1, CC_DIGIT = 2, CC_SPACE = 4, CC_EQSTOP = 8 };
extern const uint8_t rvp_cclass[256];
static inline bool is_id0(int c) { return rvp_cclass[(unsigned char)c] & CC_ID0; }
static inline bool is_digit(int c) { return rvp_cclass[(unsigned char)c] & CC_DIGIT; }
static inline bool is_id(int c) { return rvp_cclass[(unsigned char)c] & (CC_ID0 | CC_DIGIT); }
static inline bool is_hspace(int c) { return rvp_cclass[(unsigned char)c] & CC_SPACE; }
static inline bool is_eqstop(int c) { return rvp_cclass[(unsigned char)c] & CC_EQSTOP; }
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

/* Keywords and mnemonics, recognised once by the lexer (by length and
 * first byte): an opcode's name is its ravel_opcode (every one of
 * rv_opcode_name's, edits and terminators included), the other reserved
 * words follow. KW_NONE (= RAVEL_OP_OTHER) for any other identifier. */
enum {
    KW_NONE = RAVEL_OP_OTHER,
    KW_EARLY = RAVEL_OP_COUNT_, KW_LATE, KW_REG, KW_ANY, KW_STACK, KW_FIXED, KW_REUSE,
    KW_CLOBBERS, KW_SAFEPOINT, KW_STACKMAP, KW_REF, KW_END, KW_FUNC, KW_MACHINE
};
#define NUM_SAT 0xffffffffu
/* Fills kw, numc and num of an identifier token from its text. */
void rvp_classify(token *t);
/* The token's keyword (a token made by hand gets it from rvp_classify). */
static inline int tok_kw(const token *t) { return t->k == T_IDENT ? t->kw : KW_NONE; }
/* The opcode a mnemonic names for ravel_inst_begin (rv_opcode_from_name):
 * ARGS..CALL and UNDEF; RAVEL_OP_OTHER for any other word. */
static inline ravel_opcode kw_opcode(int kw)
{
    return (kw >= RAVEL_OP_ARGS && kw <= RAVEL_OP_CALL) || kw == RAVEL_OP_UNDEF ? (ravel_opcode)kw : RAVEL_OP_OTHER;
}

/* Is the token the keyword KW (a string literal)? */
#define tok_is(t, kw) ((t)->k == T_IDENT && (t)->n == sizeof(kw) - 1 && memcmp((t)->s, kw, sizeof(kw) - 1) == 0)

/* ---- parser state --------------------------------------------------------- */

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

/* A containment of an alias line (r contains s), with where s is written. */
typedef struct alias_pair {
    uint32_t r, s, line, col;
} alias_pair;

typedef struct parser {
    /* reading and reporting (parse_lex.c) */
    lexer lx;
    token t; /* current token */
    const char *file, *src;
    size_t srclen;
    ravel_diags *d;
    uint32_t nerr;
    uint64_t budget;       /* names left for range expansion */
    char name[96];         /* a register name built from a range */
    RV_VEC(uint32_t) list; /* registers, slots or arguments being collected */
    struct name_slot { uint64_t key; const char *s; uint32_t n, sym1; } *ntab; /* the machine's names
                              once it is read (rvp_machine_names): key, text, length, symbol id + 1
                              (0: empty) */
    uint32_t nmask;
    ravel_module *mod;
    ravel_machine *m;
    /* the machine block (parse_machine.c) */
    RV_VEC(alias_pair) alias; /* containments in file order, each once, checked and recorded at `end` */
    uint64_t *alias_seen;     /* bit r * RV_MAX_REGS + s: "r contains s" is in alias (allocated on the first) */
    /* functions (parse_func.c) */
    uint64_t ninsts;
    ravel_func *f;        /* function being read */
    struct label_slot { uint64_t key; uint32_t n, b1; } *ltab; /* labels of the current function: the
                              name's rvp_name_key and length, block id + 1 (0: empty); open addressing
                              by rvp_key_hash, at most 3/4 full */
    uint32_t lcap, nlabels; /* lcap a power of two (or 0) */
    struct label_dense {  /* labels PREFIX N (with the fast path on; parse_func.c, label_num),
                             without hashing: one table N -> block id + 1 per prefix */
        uint32_t key[4];  /* the prefixes' rvp_name_key (1 to 4 bytes: nonzero), nkeys of them */
        uint32_t nkeys, limit; /* N below limit (at most 2^24) */
        rv_idvec map[4];
        rv_idvec touched; /* prefix << 24 | N of each entry set in the current function */
        uint32_t unmapped; /* the first symbol of the function not in its symbol map (a block
                              name, rv_sym_push), RAVEL_NONE if none (rvp_syms_flush) */
        bool digit_name;   /* a name of the function that is no label ends with a digit: its
                              labels' names are interned at once (they may be that name) */
    } dl;
    const char *cname[8]; /* the classes' names and lengths when there are at most 8 */
    uint32_t clen[8], ncls;
    uint64_t vlimit;      /* vreg numbers below this use vcache */
    RV_VEC(uint8_t) param_mark; /* vreg id -> 1 while reading one label's params */
    RV_VEC(pending_ann) pend;
    RV_VEC(opnd) defs;
    RV_VEC(uint32_t) vcache; /* vreg number -> id + 1 (0: not seen) for small numbers */
    rv_symtab fnames;     /* names of the functions read so far */
    struct fast_state {
        bool on;          /* lines of the common shapes are read by parse_fast.c, and
                             labels PREFIX N through the dense tables (dl) */
        struct sym_slot { uint64_t key; uint32_t n, sym1; } scache[16]; /* the current function's
                             last mnemonics and callees: rvp_name_key, length, symbol id + 1
                             (0: empty), by the key's hash; emptied for each function */
    } fast;
} parser;

/* ---- parse_lex.c ------------------------------------------------------------ */

/* The lexer. Its hot path (space, identifiers, newlines) is inline, so
 * that the parser's call sites keep the position in registers; integers,
 * punctuation and keywords are read by parse_lex.c. */
void rvp_lex_int(lexer *lx, token *t);          /* [-] decimal | 0x hex (T_INT, or T_BAD) */
void rvp_lex_punct(lexer *lx, int c, token *t); /* punctuation, or T_BAD for any other byte */
int rvp_kw_of(const char *s, uint32_t n);       /* the keyword an identifier spells (KW_*) */

/* Skips horizontal white space (\r included, for CR LF) and a comment. */
static inline void rvp_skip_space(lexer *lx)
{
    const char *p = lx->p, *end = lx->end;
    p += *p == ' '; /* most tokens follow one space or none: no branch for that one */
    p = skip_hspace(p);
    if (p < end && *p == '#') {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl : end;
    }
    lx->p = p;
}

/* An identifier (its first byte at lx->p): vN and sN have their digits'
 * value taken on the way, keywords are looked up by length. */
static inline void rvp_lex_ident(lexer *lx, token *t)
{
    const char *s = lx->p, *p = s + 1;
    t->k = T_IDENT;
    t->numc = 1;
    t->num = 0;
    if ((*s == 'v' || *s == 's') && is_digit(*p)) {
        uint64_t v = 0;
        for (; is_digit(*p); p++)
            if (v <= NUM_SAT) v = v * 10 + (uint64_t)(*p - '0');
        if (!is_id(*p)) {
            lx->p = p;
            t->kw = KW_NONE;
            t->numc = (uint8_t)*s;
            t->num = v > NUM_SAT ? NUM_SAT : (uint32_t)v;
            return;
        }
    }
    lx->p = p = ident_end(p - 1);
    t->kw = (uint8_t)rvp_kw_of(s, (uint32_t)(p - s));
}

/* Next token into *t, every field written (the parser lexes into its
 * current token in place: no 48-byte copy per token). A newline is a T_EOL
 * token; the end of input yields T_EOL once if the last line had no
 * newline, then T_EOF forever. */
static inline void rvp_lex_into(lexer *lx, token *t)
{
    rvp_skip_space(lx);
    t->s = lx->p;
    t->n = 0;
    t->line = lx->line;
    t->col = (uint32_t)(lx->p - lx->bol) + 1;
    t->kw = KW_NONE;
    t->numc = 0;
    t->wnum = false; /* ival, wval, bad: only in the kinds that have them */
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
        rvp_lex_ident(lx, t);
    } else if (is_digit(c) || (c == '-' && lx->p + 1 < lx->end && is_digit(lx->p[1]))) {
        rvp_lex_int(lx, t);
    } else {
        rvp_lex_punct(lx, c, t);
    }
    t->n = (uint32_t)(lx->p - t->s);
}

static inline void rvp_next(parser *P) { rvp_lex_into(&P->lx, &P->t); } /* the next token into P->t */
token rvp_peek(const parser *P); /* the token after P->t */
bool rvp_err(parser *P, uint32_t line, uint32_t col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
bool rvp_unexpected(parser *P, const char *what); /* "expected WHAT, found ..." at P->t; false */
bool rvp_accept(parser *P, tkind k);
bool rvp_expect(parser *P, tkind k, const char *what);
bool rvp_expect_eol(parser *P);
void rvp_skip_line(parser *P); /* the rest of the line, after an error */
void rvp_skip_blank(parser *P);
/* Where a missing `end` is reported: just after the last character of the
 * input that is not white space. */
void rvp_eof_pos(const parser *P, uint32_t *line, uint32_t *col);

enum { NUMNAME_NO = 0, NUMNAME_OK = 1, NUMNAME_ZERO = -1, NUMNAME_BIG = -2 };
/* vN / sN: NUMNAME_NO if the token is not one, NUMNAME_ZERO (leading zero)
 * or NUMNAME_BIG (above the limit) if malformed, else NUMNAME_OK and *num.
 * rvp_num_name is the whole test; the inline ones answer a token read by
 * the lexer at once in the common cases. */
int rvp_num_name(const token *t, char c, uint32_t max, uint32_t *num);
static inline int rvp_is_vreg_tok(const token *t, uint32_t *num)
{
    if (t->numc == 1) return NUMNAME_NO;
    if (t->numc == 'v' && t->s[1] != '0' && t->num <= RV_MAX_VREG_NUM) return *num = t->num, NUMNAME_OK;
    return rvp_num_name(t, 'v', RV_MAX_VREG_NUM, num);
}
static inline int rvp_is_slot_tok(const token *t, uint32_t *num)
{
    if (t->numc == 1) return NUMNAME_NO;
    if (t->numc == 's' && t->s[1] != '0' && t->num <= RAVEL_MAX_SLOT) return *num = t->num, NUMNAME_OK;
    return rvp_num_name(t, 's', RAVEL_MAX_SLOT, num);
}

/* Are the n bytes at a and b the same? (Names are short: a loop, not a call.) */
static inline bool rvp_same(const char *a, const char *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (a[i] != b[i]) return false;
    return true;
}

/* A name's key: up to 8 bytes packed (little-endian order) in 64 bits,
 * with no multiply per byte; two names of at most 8 bytes are the same
 * exactly when their lengths and keys are. A longer name's key is a hash
 * of all its bytes. */
static inline uint64_t rvp_name_key(const char *s, uint32_t n)
{
    uint64_t k = 0;
    if (n <= 8) {
        for (uint32_t i = 0; i < n; i++) k |= (uint64_t)(unsigned char)s[i] << (8 * i);
        return k;
    }
    for (uint32_t i = 0; i < n; i++) k = (k ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return k;
}

/* rvp_name_key of a name in the module's copy of the source, which has 8
 * readable bytes after each of its bytes (parse.c pads it): one load. */
static inline uint64_t rvp_src_key(const char *s, uint32_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n <= 8) {
        uint64_t k;
        memcpy(&k, s, 8);
        return n == 8 ? k : k & ((1ull << (8 * n)) - 1);
    }
#endif
    return rvp_name_key(s, n);
}

/* The hash of a name (labels) from its key. */
static inline uint32_t rvp_key_hash(uint64_t key, uint32_t n)
{
    uint64_t h = (key ^ n) * 0x9e3779b97f4a7c15ull; /* keys differ in their low bytes: mix all bits down */
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return (uint32_t)(h ^ (h >> 32));
}

/* Is the name (s, n) with key `key` the one stored as (ts, tn, tkey)? */
static inline bool rvp_name_eq(const char *s, uint32_t n, uint64_t key, const char *ts, uint32_t tn, uint64_t tkey)
{
    return tn == n && tkey == key && (n <= 8 || rvp_same(ts, s, n));
}
bool rvp_bad_num_name(parser *P, const token *t, int rc, const char *what); /* reports a malformed vN / sN */

/* Names of the machine: once it is read (rvp_machine_names) through a table
 * of its own, before through the machine's symbol table. -1 if unknown. */
void rvp_machine_names(parser *P);
int rvp_find_reg(const parser *P, const char *s, uint32_t n);
int rvp_find_reg_src(const parser *P, const char *s, uint32_t n); /* s in the module's source copy, machine read */
int rvp_find_class(const parser *P, const char *s, uint32_t n);

/* Calls fn(P, name, len, at, ctx) for each name of a list: identifiers or
 * ranges A..B (same prefix, numeric suffixes, A <= B), until ')' (paren) or
 * the end of the line. `at` is where the item (a range: its first name)
 * is written. */
typedef bool (*name_fn)(parser *P, const char *s, uint32_t n, const token *at, void *ctx);
bool rvp_name_list(parser *P, bool paren, name_fn fn, void *ctx);
bool rvp_add_reg_to_list(parser *P, const char *s, uint32_t n, const token *at, void *ctx);  /* P->list += register */
bool rvp_add_slot_to_list(parser *P, const char *s, uint32_t n, const token *at, void *ctx); /* P->list += slot number */

/* ---- parse_machine.c, parse_func.c -------------------------------------------- */

/* machine NL LINES... end NL; false after an error (nothing more is read). */
bool rvp_parse_machine(parser *P);
/* func NAME NL (LABEL NL | INST NL)* end NL; the current token is `func`.
 * Always leaves a finished function in the module. */
bool rvp_parse_func(parser *P);

/* What parse_fast.c writes with (parse_func.c): the builder's steps, done
 * straight into the function's arrays (parse_func.c says what each
 * assumes). */
void rvp_put_inst(parser *P, ravel_opcode op, uint32_t name, uint32_t line, uint32_t col);
void rvp_put_operand(parser *P, bool def, const opnd *o);
void rvp_put_imm(parser *P, int64_t value);
void rvp_put_edit(parser *P, ravel_opcode op, ravel_loc dst, ravel_loc src, uint32_t line, uint32_t col);
uint32_t rvp_vreg_id(parser *P, uint32_t num);              /* vNUM's id, created on its first mention */
void rvp_close_block(parser *P, uint32_t line, uint32_t col);

/* ---- parse_label.c ---------------------------------------------------------------- */

uint32_t rvp_block_ref(parser *P, const char *s, uint32_t n); /* the block a label names, created on its first mention */
void rvp_labels_reset(parser *P); /* no labels known: a new function */
/* The labels' names go into the function's symbol map in one batch, at
 * the function's end (rvp_syms_flush), as long as no other name of the
 * function could be one: rvp_other_name is told of every other name
 * interned (function name, mnemonics, callees), before it is interned. */
void rvp_syms_flush(parser *P);
void rvp_other_name(parser *P, const char *s, uint32_t n);

/* ---- parse_fast.c --------------------------------------------------------------- */

/* The line at the current token (its first), inside a function, read in
 * one scan if it has one of the common shapes and is well-formed: then it
 * is built exactly as parse_func.c would build it, the lexer stands at the
 * next line's first token, and the result is true. Otherwise nothing has
 * changed (false), and parse_func.c reads the line, with its diagnostics. */
bool rvp_fast_line(parser *P);

#endif
