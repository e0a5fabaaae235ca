/* parse.c - the .ra reader (docs/format.md sections 2-5, 7 and 10).
 *
 * Requires: nothing; any byte string is accepted as input.
 * Guarantees: returns a module whose functions are as the builder (func.c)
 * would build them (parse_func.c writes into their arrays directly) and
 * finished with ravel_func_finish, or NULL after at
 * least one "FILE:LINE:COL: error: MESSAGE" diagnostic. Runs in time linear
 * in the input (ranges are bounded by an expansion budget proportional to
 * the input), never recurses, never allocates per token, and frees all it
 * allocated on failure.
 *
 * Structure: a hand-written lexer produces one token at a time from the
 * module's copy of the source; the parser is line-oriented (one machine
 * line, label or instruction per line). A function's line of a common
 * shape is read in one scan by parse_fast.c, any other by parse_func.c. After an error on a line the rest
 * of the line is skipped and parsing goes on, so that several errors can be
 * reported; the module is discarded at the end if any error was seen.
 * This file is the driver (the parser context, the module); the machine
 * block is read by parse_machine.c, the functions by parse_func.c, both
 * with the lexer of parse_lex.c (parse.h).
 *
 * Only lexical and name-resolution errors are reported here; structural
 * rules (terminators, successors, argument counts, SSA, constraint
 * validity) belong to ravel_validate. */
#include "parse.h"

#include <stdlib.h>
#include <string.h>

/* Functions per file: each costs a few KiB even when empty, so that a file
 * of many tiny functions cannot exhaust memory (docs/format.md section 12.1). */
#define PARSE_MAX_FUNCS 65536u

/* ---- module ----------------------------------------------------------------------- */

static void parser_free(parser *P)
{
    rv_free(P->ltab);
    for (uint32_t i = 0; i < 4; i++) rv_vec_free(P->dl.map[i]);
    rv_vec_free(P->dl.touched);
    rv_vec_free(P->param_mark);
    rv_vec_free(P->pend);
    rv_vec_free(P->defs);
    rv_vec_free(P->list);
    rv_vec_free(P->alias);
    rv_free(P->alias_seen);
    rv_vec_free(P->vcache);
    rv_symtab_free(&P->fnames);
    rv_free(P->ntab);
}

static void parser_init(parser *P, ravel_module *mod, ravel_diags *d, bool fast)
{
    memset(P, 0, sizeof *P);
    P->lx.p = P->lx.bol = mod->src;
    P->lx.end = mod->src + mod->srclen;
    P->lx.line = 1;
    P->file = mod->filename;
    P->src = mod->src;
    P->srclen = mod->srclen;
    P->d = d;
    P->fast.on = fast;
    P->mod = mod;
    P->m = mod->mach;
    P->budget = (uint64_t)mod->srclen * 16 + 4096; /* range names: linear in the input, */
    if (P->budget > (1u << 22)) P->budget = 1u << 22; /* and at most 4M per file */
    /* dense vreg table: at most 2 bytes per input byte and 64 MiB */
    P->vlimit = (uint64_t)mod->srclen / 2 + 1024;
    if (P->vlimit > (1u << 24)) P->vlimit = 1u << 24;
    /* dense label tables: about 1 byte per input byte in all (4 of them) */
    P->dl.limit = (uint32_t)(P->vlimit / 8 + 64);
    rvp_next(P);
}

/* MACHINE FUNC+ (after an error in the machine, nothing more is read). */
static void parse_module(parser *P)
{
    if (!rvp_parse_machine(P)) return;
    for (;;) {
        rvp_skip_blank(P);
        if (P->t.k == T_EOF) break;
        if (!tok_is(&P->t, "func")) {
            rvp_unexpected(P, "'func'");
            rvp_skip_line(P);
            continue;
        }
        if (P->mod->funcs.len >= PARSE_MAX_FUNCS) {
            rvp_err(P, P->t.line, P->t.col, "too many functions (limit %u per file)", PARSE_MAX_FUNCS);
            return;
        }
        rvp_parse_func(P);
    }
    if (P->nerr == 0 && P->mod->funcs.len == 0) rvp_err(P, P->t.line, P->t.col, "expected at least one func after the machine");
}

static ravel_module *parse_text(const char *text, size_t len, const char *filename, ravel_diags *d, bool fast);

/* ravel_module_parse, with or without the fast path (parse_fast.c). */
static ravel_module *module_parse(const char *text, size_t len, const char *filename, ravel_diags *d, bool fast)
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
    ravel_module *mod = parse_text(text, len, filename, d, fast);
    if (own) rv_recover_leave(&rec);
    return mod;
}

ravel_module *ravel_module_parse(const char *text, size_t len, const char *filename, ravel_diags *d)
{
    return module_parse(text, len, filename, d, true);
}

ravel_module *rv_module_parse_slow(const char *text, size_t len, const char *filename, ravel_diags *d)
{
    return module_parse(text, len, filename, d, false);
}

static ravel_module *parse_text(const char *text, size_t len, const char *filename, ravel_diags *d, bool fast)
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
     * NUL after it ends the lexer's scans (cclass), and 7 more zero bytes
     * let a name's key be loaded at once (rvp_src_key) */
    mod->src = rv_xmalloc(len + 8);
    if (len) memcpy(mod->src, text, len);
    memset(mod->src + len, 0, 8);
    mod->srclen = len;
    mod->mach = ravel_machine_new();
    parser P;
    parser_init(&P, mod, d, fast);
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
