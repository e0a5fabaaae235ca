/* parse_machine.c - the machine block of a .ra file (docs/format.md
 * section 3): class, reserved, clobbers and gc lines.
 *
 * Requires: a parser at the start of the input (parse.c).
 * Guarantees: on success the machine is complete (classes, registers in id
 * order, default clobbers, gc model) and its names are indexed for the
 * functions (rvp_machine_names); after an error, false, with every error
 * of the block reported. */
#include "parse.h"

#include <stdlib.h>
#include <string.h>

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
    if (rvp_is_vreg_tok(&t, &num) || rvp_is_slot_tok(&t, &num))
        return rvp_err(P, at->line, at->col, "register name '%.*s' would read as a %s", ln, s, s[0] == 'v' ? "vreg" : "spill slot");
    if (rvp_find_reg(P, s, n) >= 0) return rvp_err(P, at->line, at->col, "duplicate register name '%.*s'", ln, s);
    if (P->m->regs.len >= RV_MAX_REGS) return rvp_err(P, at->line, at->col, "too many registers (limit %u)", RV_MAX_REGS);
    char buf[128];
    char *name = n < sizeof buf ? buf : rv_xmalloc(n + 1);
    memcpy(name, s, n);
    name[n] = 0;
    int r = ravel_machine_add_reg(P->m, name, c->cls, c->reserved);
    if (name != buf) rv_free(name);
    if (r < 0) return rvp_err(P, at->line, at->col, "cannot add register '%.*s'", ln, s);
    return true;
}

/* class NAME REGS... */
static bool machine_class(parser *P)
{
    token nm = P->t;
    if (nm.k != T_IDENT) return rvp_unexpected(P, "a class name");
    int ln = (int)(nm.n > 40 ? 40 : nm.n);
    if (rvp_find_class(P, nm.s, nm.n) >= 0) return rvp_err(P, nm.line, nm.col, "duplicate class name '%.*s'", ln, nm.s);
    if (P->m->classes.len >= RV_MAX_CLASSES) return rvp_err(P, nm.line, nm.col, "too many classes (limit %u)", RV_MAX_CLASSES);
    char *name = rv_xmalloc(nm.n + 1);
    memcpy(name, nm.s, nm.n);
    name[nm.n] = 0;
    int cls = ravel_machine_add_class(P->m, name);
    rv_free(name);
    if (cls < 0) return rvp_err(P, nm.line, nm.col, "cannot add class '%.*s'", ln, nm.s);
    rvp_next(P);
    if (P->t.k == T_EOL || P->t.k == T_EOF)
        return rvp_err(P, nm.line, nm.col, "class '%.*s' has no allocatable registers", ln, nm.s);
    reg_def_ctx c = {cls, false};
    return rvp_name_list(P, false, define_reg, &c);
}

/* reserved CLASS REGS... */
static bool machine_reserved(parser *P)
{
    token nm = P->t;
    if (nm.k != T_IDENT) return rvp_unexpected(P, "a class name");
    int cls = rvp_find_class(P, nm.s, nm.n);
    if (cls < 0) return rvp_err(P, nm.line, nm.col, "unknown class '%.*s'", (int)(nm.n > 40 ? 40 : nm.n), nm.s);
    rvp_next(P);
    reg_def_ctx c = {cls, true};
    return rvp_name_list(P, false, define_reg, &c);
}

static bool machine_line(parser *P, bool *done, bool *seen_clob, bool *seen_gc)
{
    token kw = P->t;
    if (kw.k != T_IDENT) return rvp_unexpected(P, "a machine line (class, reserved, clobbers, gc or end)");
    rvp_next(P);
    if (tok_is(&kw, "end")) {
        *done = true;
        return true;
    }
    if (tok_is(&kw, "class")) return machine_class(P);
    if (tok_is(&kw, "reserved")) return machine_reserved(P);
    if (tok_is(&kw, "clobbers")) {
        if (*seen_clob) return rvp_err(P, kw.line, kw.col, "duplicate clobbers line");
        *seen_clob = true;
        P->list.len = 0;
        if (!rvp_name_list(P, false, rvp_add_reg_to_list, NULL)) return false;
        ravel_machine_set_clobbers(P->m, P->list.data, P->list.len);
        return true;
    }
    if (tok_is(&kw, "gc")) {
        if (*seen_gc) return rvp_err(P, kw.line, kw.col, "duplicate gc line");
        *seen_gc = true;
        if (tok_is(&P->t, "moving")) ravel_machine_set_gc_moving(P->m, 1);
        else if (tok_is(&P->t, "nonmoving")) ravel_machine_set_gc_moving(P->m, 0);
        else return rvp_unexpected(P, "'moving' or 'nonmoving'");
        rvp_next(P);
        return true;
    }
    return rvp_err(P, kw.line, kw.col, "unknown machine line '%.*s' (expected class, reserved, clobbers, gc or end)",
                (int)(kw.n > 40 ? 40 : kw.n), kw.s);
}

/* machine NL LINES... end NL */
bool rvp_parse_machine(parser *P)
{
    rvp_skip_blank(P);
    if (!tok_is(&P->t, "machine")) {
        rvp_unexpected(P, "'machine'");
        return false;
    }
    rvp_next(P);
    if (!rvp_expect_eol(P)) return false;
    bool done = false, seen_clob = false, seen_gc = false;
    uint32_t nerr0 = P->nerr;
    while (!done) {
        rvp_skip_blank(P);
        if (P->t.k == T_EOF) {
            uint32_t line, col;
            rvp_eof_pos(P, &line, &col);
            return rvp_err(P, line, col, "missing 'end' of machine");
        }
        /* one error, not one per line of the function that follows */
        if (tok_is(&P->t, "func")) return rvp_err(P, P->t.line, P->t.col, "missing 'end' of machine before 'func'");
        if (machine_line(P, &done, &seen_clob, &seen_gc) && rvp_expect_eol(P)) continue;
        rvp_skip_line(P);
    }
    if (P->nerr == nerr0 && P->m->classes.len == 0)
        return rvp_err(P, P->t.line, P->t.col, "the machine declares no register class");
    if (P->nerr != nerr0) return false;
    rvp_machine_names(P);
    return true;
}
