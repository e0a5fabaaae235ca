/* parse_machine.c - the machine block of a .ra file (docs/format.md
 * sections 3 and 14.1): class, reserved, alias, clobbers and gc lines.
 *
 * Requires: a parser at the start of the input (parse.c).
 * Guarantees: on success the machine is complete (classes, registers in id
 * order, containments without a cycle, default clobbers, gc model) and
 * its names are indexed for the functions (rvp_machine_names); after an
 * error, false, with every error of the block reported. Memory stays
 * linear in the input and bounded: a containment is kept once, however
 * often it is written (at most 1024 x 1024 of them). */
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
    rvp_classify(&t);
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

/* ---- alias lines (docs/format.md section 14.1) ---- */

static bool alias_member(parser *P, const char *s, uint32_t n, const token *at, void *vr)
{
    uint32_t r = *(const uint32_t *)vr;
    int x = rvp_find_reg(P, s, n);
    if (x < 0) return rvp_err(P, at->line, at->col, "unknown register '%.*s'", (int)(n > 40 ? 40 : n), s);
    if ((uint32_t)x == r)
        return rvp_err(P, at->line, at->col, "register %s cannot contain itself", P->m->regs.data[r].name);
    /* a pair written again changes nothing (its first occurrence is the
     * one that could close a cycle): kept once */
    size_t bit = (size_t)r * RV_MAX_REGS + (uint32_t)x;
    if (!P->alias_seen) P->alias_seen = rv_xcalloc((size_t)RV_MAX_REGS * RV_MAX_REGS / 64, sizeof *P->alias_seen);
    if (P->alias_seen[bit / 64] >> (bit % 64) & 1) return true;
    P->alias_seen[bit / 64] |= (uint64_t)1 << (bit % 64);
    alias_pair pr = {r, (uint32_t)x, at->line, at->col};
    rv_vec_push(P->alias, pr);
    return true;
}

/* alias R S...: R and at least one S; the pairs are recorded at `end`,
 * once the whole block is known to have no containment cycle. */
static bool machine_alias(parser *P, const token *kw)
{
    token r = P->t;
    if (r.k == T_EOL || r.k == T_EOF)
        return rvp_err(P, kw->line, kw->col, "alias needs a register and at least one register it contains");
    if (r.k != T_IDENT) return rvp_unexpected(P, "a register name");
    int ri = rvp_find_reg(P, r.s, r.n);
    if (ri < 0) return rvp_err(P, r.line, r.col, "unknown register '%.*s'", (int)(r.n > 40 ? 40 : r.n), r.s);
    rvp_next(P);
    if (P->t.k == T_DOTDOT)
        return rvp_err(P, r.line, r.col, "the first name of an alias line is one register, not a range");
    if (P->t.k == T_EOL || P->t.k == T_EOF)
        return rvp_err(P, kw->line, kw->col, "alias needs a register and at least one register it contains");
    uint32_t ru = (uint32_t)ri;
    return rvp_name_list(P, false, alias_member, &ru);
}

/* "R contains S, but S contains R [through X, Y]" for the pair that closes
 * a cycle; path: S, ..., R (rv_alias_first_cycle). */
static bool cycle_error(parser *P, const alias_pair *a, const uint32_t *path, uint32_t plen, uint32_t maxpath)
{
    const ravel_machine *m = P->m;
    char via[512] = "";
    size_t n = 0;
    for (uint32_t k = 1; k + 1 < plen && n < sizeof via; k++) {
        if (k + 1 >= maxpath) {
            snprintf(via + n, sizeof via - n, ", ...");
            break;
        }
        int w = snprintf(via + n, sizeof via - n, "%s%s", k == 1 ? " through " : ", ", m->regs.data[path[k]].name);
        n += w > 0 ? (size_t)w : 0;
    }
    const char *r = m->regs.data[a->r].name, *s = m->regs.data[a->s].name;
    return rvp_err(P, a->line, a->col, "containment cycle: %s contains %s, but %s contains %s%s", r, s, s, r, via);
}

/* At `end`: the first containment (in file order) closing a cycle is an
 * error; without one, every pair is recorded in the machine. */
static bool record_aliases(parser *P)
{
    uint32_t n = P->alias.len, plen, path[8];
    if (!n) return true;
    uint32_t *pairs = rv_xmalloc(sizeof *pairs * 2 * (size_t)n);
    for (uint32_t i = 0; i < n; i++) pairs[2 * i] = P->alias.data[i].r, pairs[2 * i + 1] = P->alias.data[i].s;
    uint32_t k = rv_alias_first_cycle(P->m->regs.len, pairs, n, path, 8, &plen);
    rv_free(pairs);
    if (k != RAVEL_NONE) return cycle_error(P, &P->alias.data[k], path, plen, 8);
    for (uint32_t i = 0; i < n; i++) rv_mach_add_containment(P->m, P->alias.data[i].r, P->alias.data[i].s);
    return true;
}

/* ---- the block ---- */

static bool machine_line(parser *P, bool *done, bool *seen_clob, bool *seen_gc)
{
    token kw = P->t;
    if (kw.k != T_IDENT) return rvp_unexpected(P, "a machine line (class, reserved, alias, clobbers, gc or end)");
    rvp_next(P);
    if (tok_is(&kw, "end")) {
        *done = true;
        return true;
    }
    if (tok_is(&kw, "class")) return machine_class(P);
    if (tok_is(&kw, "reserved")) return machine_reserved(P);
    if (tok_is(&kw, "alias")) return machine_alias(P, &kw);
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
    return rvp_err(P, kw.line, kw.col, "unknown machine line '%.*s' (expected class, reserved, alias, clobbers, gc or end)",
                (int)(kw.n > 40 ? 40 : kw.n), kw.s);
}

/* machine NL LINES... end NL */
/* Room for the names of a machine of up to 64 registers and classes (most
 * machines), so that the tables are not grown five times each while the
 * block is read (a third of the read of a 1 KB file, issue 32); a larger
 * machine grows them as before. */
static void reserve_names(ravel_machine *m)
{
    enum { N = 64 };
    rv_vec_reserve(m->regs, N);
    rv_vec_reserve(m->name_reg, N);
    rv_vec_reserve(m->name_class, N);
    rv_vec_reserve(m->names.strs, N);
    rv_vec_reserve(m->names.lens, N);
    rv_map_reserve(&m->names.index, N);
}

bool rvp_parse_machine(parser *P)
{
    rvp_skip_blank(P);
    if (!tok_is(&P->t, "machine")) {
        rvp_unexpected(P, "'machine'");
        return false;
    }
    rvp_next(P);
    if (!rvp_expect_eol(P)) return false;
    reserve_names(P->m);
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
    if (P->nerr != nerr0 || !record_aliases(P)) return false;
    rvp_machine_names(P);
    return true;
}
