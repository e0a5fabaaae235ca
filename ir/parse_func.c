/* parse_func.c - the functions of a .ra file (docs/format.md sections 4,
 * 5, 7 and 14): labels and block parameters, instructions with their
 * operands and attributes, terminators, edits (spill, reload, move,
 * remat), undef.
 *
 * Requires: a parser whose machine is read (rvp_parse_machine succeeded).
 * Guarantees: each function is built as the builder (func.c) would build
 * it (instructions, operands, immediates and blocks written straight into
 * its arrays; edits, successors and lists through the builder) and
 * finished, even after errors (its lines are read, reported and skipped one
 * by one); lexical and name-resolution errors, and the shapes of undef
 * and remat (section 14.5), are reported here at their token, the
 * structural rules by ravel_validate. */
#define _GNU_SOURCE /* memmem */
#include "parse.h"

#include <stdlib.h>
#include <string.h>

/* ---- writing into the function's arrays ------------------------------------------- */

/* The reader writes instructions, operands and immediates straight into
 * the function's arrays, as the builder (func.c) would write them: each
 * check the builder makes holds here by construction (a block is open and
 * no instruction, the vreg ids are the reader's, locations come from
 * parse_loc, operand counts are bounded by RV_MAX_OPERANDS before each
 * one, instructions by count_inst). */
static void note_slot(ravel_func *f, ravel_loc loc)
{
    if (ravel_loc_is_slot(loc) && ravel_loc_slot(loc) >= f->nslots) f->nslots = ravel_loc_slot(loc) + 1;
}

/* ravel_inst_begin (name: a symbol of f, or RAVEL_NONE). */
void rvp_put_inst(parser *P, ravel_opcode op, uint32_t name, uint32_t line, uint32_t col)
{
    ravel_func *f = P->f;
    rv_inst in;
    memset(&in, 0, sizeof in);
    in.op = (uint8_t)op;
    in.first_op = f->ops.len;
    in.first_imm = f->imms.len;
    in.name = name;
    in.line = line, in.col = col;
    if (op == RAVEL_OP_JUMP || op == RAVEL_OP_BR) in.u.succ.first = f->succs.len;
    f->cur_inst = f->insts.len;
    f->building_uses = false;
    rv_vec_push(f->insts, in);
    f->blocks.data[f->cur_block].ninsts++;
}

/* ravel_edit (op spill, reload or move; no instruction open; dst and src
 * valid locations). */
void rvp_put_edit(parser *P, ravel_opcode op, ravel_loc dst, ravel_loc src, uint32_t line, uint32_t col)
{
    ravel_func *f = P->f;
    rvp_put_inst(P, op, RAVEL_NONE, line, col);
    rv_inst *in = &f->insts.data[f->cur_inst];
    in->u.edit.dst = dst;
    in->u.edit.src = src;
    f->cur_inst = RAVEL_NONE;
    note_slot(f, dst);
    note_slot(f, src);
}

/* ravel_inst_def / ravel_inst_use of the open instruction. */
void rvp_put_operand(parser *P, bool def, const opnd *o)
{
    ravel_func *f = P->f;
    rv_inst *in = &f->insts.data[f->cur_inst];
    rv_operand op;
    op.vreg = o->vreg;
    op.loc = o->loc;
    op.kind = o->c;
    op.arg = (uint16_t)o->arg;
    bool late = def ? o->pos != RAVEL_POS_EARLY : o->pos == RAVEL_POS_LATE;
    op.flags = (uint8_t)((def ? RV_OPF_DEF : 0) | (o->pos != RAVEL_POS_DEFAULT ? RV_OPF_EXPLICIT_POS : 0) | (late ? RV_OPF_LATE : 0));
    rv_vec_push(f->ops, op);
    if (def) {
        in->ndefs++;
    } else {
        in->nuses++;
        f->building_uses = true;
    }
    note_slot(f, o->loc);
}

/* ravel_inst_imm of the open instruction. */
void rvp_put_imm(parser *P, int64_t value)
{
    ravel_func *f = P->f;
    rv_inst *in = &f->insts.data[f->cur_inst];
    rv_imm im = {value, (uint16_t)(in->nuses + in->nimms)};
    rv_vec_push(f->imms, im);
    in->nimms++;
    f->building_uses = true;
}

/* ---- functions: operands ----------------------------------------------------------- */

/* Records the class of a def or block parameter; two different classes are
 * an error. */
static bool note_def_class(parser *P, const opnd *o)
{
    rv_vreg *v = &P->f->vregs.data[o->vreg];
    if (!o->ann) return rvp_err(P, o->line, o->col, "class annotation required on the def of v%u (write v%u:CLASS)", v->num, v->num);
    if (!v->has_class) {
        v->has_class = true;
        v->cls = o->cls;
        v->ref = o->ref;
        return true;
    }
    if (v->cls != o->cls || v->ref != o->ref)
        return rvp_err(P, o->line, o->col, "v%u defined with two classes: %s%s and %s%s", v->num,
                    P->m->classes.data[v->cls].name, v->ref ? ".ref" : "", P->m->classes.data[o->cls].name,
                    o->ref ? ".ref" : "");
    return true;
}

static bool check_use_ann(parser *P, uint32_t vreg, uint8_t cls, bool ref, uint32_t line, uint32_t col)
{
    const rv_vreg *v = &P->f->vregs.data[vreg];
    if (v->cls != cls || v->ref != ref)
        return rvp_err(P, line, col, "annotation %s%s of v%u differs from its class %s%s", P->m->classes.data[cls].name,
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
uint32_t rvp_vreg_id(parser *P, uint32_t num)
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

/* Clears the table. The function's number -> id map is built lazily (on
 * its first lookup, func.c) unless a large number built it while reading:
 * only then are the table's vregs entered into it. */
static void vcache_flush(parser *P)
{
    ravel_func *f = P->f;
    bool map = f->vmap_built;
    if (map) rv_map_reserve(&f->vreg_by_num, f->vregs.len); /* one allocation, no rehash */
    for (uint32_t i = 0; i < f->vregs.len; i++) {
        uint32_t num = f->vregs.data[i].num;
        if (num >= P->vlimit) continue;
        if (map) rv_map_put(&f->vreg_by_num, num, i);
        P->vcache.data[num] = 0;
    }
}

/* vN[:CLASS[.ref]] */
static bool parse_vreg_ann(parser *P, opnd *o)
{
    uint32_t num;
    int rc = rvp_is_vreg_tok(&P->t, &num);
    if (rc == NUMNAME_NO) return rvp_unexpected(P, "a vreg (vN)");
    if (rc < 0) return rvp_bad_num_name(P, &P->t, rc, "vreg");
    o->vreg = rvp_vreg_id(P, num);
    if (P->param_mark.len < P->f->vregs.len) {
        rv_vec_reserve(P->param_mark, P->f->vregs.len - P->param_mark.len);
        while (P->param_mark.len < P->f->vregs.len) P->param_mark.data[P->param_mark.len++] = 0;
    }
    rvp_next(P);
    if (!rvp_accept(P, T_COLON)) return true;
    token c = P->t;
    if (c.k != T_IDENT) return rvp_unexpected(P, "a class name");
    int cls = rvp_find_class(P, c.s, c.n);
    if (cls < 0) return rvp_err(P, c.line, c.col, "unknown class '%.*s'", (int)(c.n > 40 ? 40 : c.n), c.s);
    rvp_next(P);
    o->ann = true;
    o->cls = (uint8_t)cls;
    if (rvp_accept(P, T_DOT)) {
        if (tok_kw(&P->t) != KW_REF) return rvp_unexpected(P, "'ref'");
        rvp_next(P);
        o->ref = true;
    }
    return true;
}

/* A location: register name or sN. */
static bool parse_loc(parser *P, ravel_loc *loc)
{
    token t = P->t;
    uint32_t num = 0;
    if (t.k != T_IDENT) return rvp_unexpected(P, "a location (register or sN)");
    int rc = rvp_is_slot_tok(&t, &num), r;
    if (rc != NUMNAME_NO) { /* no register reads as a slot (define_reg) */
        if (rc < 0) return rvp_bad_num_name(P, &t, rc, "slot");
        *loc = ravel_slot(num);
    } else if ((r = rvp_find_reg(P, t.s, t.n)) >= 0) {
        *loc = (ravel_loc)r;
    } else if (rvp_is_vreg_tok(&t, &num)) {
        return rvp_err(P, t.line, t.col, "expected a location (register or sN), found vreg '%.*s'", (int)t.n, t.s);
    } else {
        return rvp_err(P, t.line, t.col, "unknown register '%.*s'", (int)(t.n > 40 ? 40 : t.n), t.s);
    }
    rvp_next(P);
    return true;
}

/* [early|late] vN[:CLASS[.ref]] [reg|any|stack|fixed(R)|reuse(K)] [@LOC] */
/* Words a mistyped keyword is compared with (rv_near_word). */
static const char *const constraint_words[] = {"reg", "any", "stack", "fixed", "reuse", "early", "late", NULL};
static const char *const attr_words[] = {"clobbers", "safepoint", "stackmap", NULL};
static const char *const term_words[] = {"jump", "br", "ret", NULL};
static const char *const edit_words[] = {"spill", "reload", "move", "remat", NULL};

/* After an operand: an identifier that is a near miss of a constraint or
 * position (`fixd(r0)`) is reported as one, instead of the "expected an
 * attribute" that would follow. */
static bool constraint_typo(parser *P)
{
    const token t = P->t;
    if (t.k != T_IDENT || tok_kw(&t) == KW_CLOBBERS || tok_kw(&t) == KW_SAFEPOINT || tok_kw(&t) == KW_STACKMAP) return true;
    const char *w = rv_near_word(t.s, t.n, constraint_words);
    if (!w || rv_near_word(t.s, t.n, attr_words)) return true;
    return rvp_err(P, t.line, t.col, "unknown constraint '%.*s' (did you mean '%s'?)", (int)t.n, t.s, w);
}

static bool parse_operand(parser *P, opnd *o)
{
    memset(o, 0, sizeof *o);
    o->loc = RAVEL_LOC_NONE;
    o->line = P->t.line;
    o->col = P->t.col;
    if ((tok_kw(&P->t) == KW_EARLY || tok_kw(&P->t) == KW_LATE) && rvp_peek(P).k == T_IDENT) {
        o->pos = tok_kw(&P->t) == KW_EARLY ? RAVEL_POS_EARLY : RAVEL_POS_LATE;
        rvp_next(P);
    }
    if (!parse_vreg_ann(P, o)) return false;
    token t = P->t;
    if (tok_kw(&t) == KW_REG) {
        o->c = RAVEL_C_REG;
        rvp_next(P);
    } else if (tok_kw(&t) == KW_ANY) {
        o->c = RAVEL_C_ANY;
        rvp_next(P);
    } else if (tok_kw(&t) == KW_STACK) {
        o->c = RAVEL_C_STACK;
        rvp_next(P);
    } else if (tok_kw(&t) == KW_FIXED) {
        rvp_next(P);
        if (!rvp_expect(P, T_LPAREN, "'(' after fixed")) return false;
        token r = P->t;
        if (r.k != T_IDENT) return rvp_unexpected(P, "a register name");
        int reg = rvp_find_reg(P, r.s, r.n);
        if (reg < 0) return rvp_err(P, r.line, r.col, "unknown register '%.*s'", (int)(r.n > 40 ? 40 : r.n), r.s);
        rvp_next(P);
        if (!rvp_expect(P, T_RPAREN, "')'")) return false;
        o->c = RAVEL_C_FIXED;
        o->arg = (uint32_t)reg;
    } else if (tok_kw(&t) == KW_REUSE) {
        rvp_next(P);
        if (!rvp_expect(P, T_LPAREN, "'(' after reuse")) return false;
        token k = P->t;
        if (k.k != T_INT) return rvp_unexpected(P, "a use index");
        if (k.ival < 0 || k.ival > 65535) return rvp_err(P, k.line, k.col, "reuse index %lld out of range 0..65535", (long long)k.ival);
        rvp_next(P);
        if (!rvp_expect(P, T_RPAREN, "')'")) return false;
        o->c = RAVEL_C_REUSE;
        o->arg = (uint32_t)k.ival;
    }
    if (rvp_accept(P, T_AT)) return parse_loc(P, &o->loc);
    return constraint_typo(P);
}

/* A use starts with a vreg, `early`/`late` followed by a name, or an integer. */
static bool at_use(const parser *P)
{
    uint32_t num;
    if (P->t.k == T_INT) return true;
    if (rvp_is_vreg_tok(&P->t, &num)) return true;
    return (tok_kw(&P->t) == KW_EARLY || tok_kw(&P->t) == KW_LATE) && rvp_peek(P).k == T_IDENT;
}

/* ---- functions: instructions ------------------------------------------------------ */

static bool builder_failed(parser *P, int rc, uint32_t line, uint32_t col)
{
    if (rc >= 0) return false;
    const char *m = rv_func_error(P->f);
    rvp_err(P, line, col, "%s", m ? m : "cannot build the instruction");
    return true;
}

/* Instructions and labels of the whole file count against RV_MAX_INSTS, so
 * that memory stays bounded whatever the input. */
static bool count_inst(parser *P, uint32_t line, uint32_t col)
{
    if (++P->ninsts > RV_MAX_INSTS)
        return rvp_err(P, line, col, "too many instructions and labels (limit %u per file)", RV_MAX_INSTS);
    return true;
}

/* Uses: a comma-separated list of operands and immediates. */
static bool parse_uses(parser *P, uint32_t *nuses)
{
    uint32_t n = 0;
    if (!at_use(P)) return true;
    for (;;) {
        if (n >= RV_MAX_OPERANDS) return rvp_err(P, P->t.line, P->t.col, "too many operands (limit %u)", RV_MAX_OPERANDS);
        if (P->t.k == T_INT) {
            rvp_put_imm(P, P->t.ival);
            rvp_next(P);
        } else {
            opnd o;
            if (!parse_operand(P, &o)) return false;
            if (!note_use_ann(P, &o)) return false;
            rvp_put_operand(P, false, &o);
        }
        n++;
        if (!rvp_accept(P, T_COMMA)) break;
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
        bool *seen = tok_kw(&a) == KW_CLOBBERS ? &seen_c : tok_kw(&a) == KW_SAFEPOINT ? &seen_s : tok_kw(&a) == KW_STACKMAP ? &seen_m : NULL;
        if (!seen && at_use(P)) return rvp_err(P, a.line, a.col, "missing ',' between uses");
        if (!seen && !constraint_typo(P)) return false; /* `const 1 fixd(r0)` */
        if (!seen) return rvp_unexpected(P, "an attribute (clobbers, safepoint, stackmap)");
        if (*seen) return rvp_err(P, a.line, a.col, "attribute '%.*s' repeated", (int)a.n, a.s);
        *seen = true;
        rvp_next(P);
        if (seen == &seen_s) {
            ravel_inst_safepoint(P->f);
            continue;
        }
        if (!rvp_expect(P, T_LPAREN, "'('")) return false;
        P->list.len = 0;
        if (!rvp_name_list(P, true, seen == &seen_c ? rvp_add_reg_to_list : rvp_add_slot_to_list, NULL)) return false;
        rvp_next(P); /* ')' */
        int rc = seen == &seen_c ? ravel_inst_clobbers(P->f, P->list.data, P->list.len)
                                 : ravel_inst_stackmap(P->f, P->list.data, P->list.len);
        if (builder_failed(P, rc, a.line, a.col)) return false;
    }
    return true;
}

/* LABEL [ '(' [ARG (',' ARG)*] ')' ] with ARG = vN[:CLASS[.ref]] */
static bool parse_target(parser *P)
{
    token l = P->t;
    uint32_t num;
    if (l.k != T_IDENT || rvp_is_vreg_tok(&l, &num)) return rvp_unexpected(P, "a block label");
    rvp_next(P);
    P->list.len = 0;
    if (rvp_accept(P, T_LPAREN)) {
        if (P->t.k != T_RPAREN) {
            for (;;) {
                if (P->list.len >= RV_MAX_OPERANDS) return rvp_err(P, P->t.line, P->t.col, "too many arguments (limit %u)", RV_MAX_OPERANDS);
                opnd o;
                memset(&o, 0, sizeof o);
                o.line = P->t.line, o.col = P->t.col;
                if (!parse_vreg_ann(P, &o) || !note_use_ann(P, &o)) return false;
                rv_vec_push(P->list, o.vreg);
                if (!rvp_accept(P, T_COMMA)) break;
            }
        }
        if (!rvp_expect(P, T_RPAREN, "',' or ')'")) return false;
    }
    uint32_t b = rvp_block_ref(P, l.s, l.n);
    return !builder_failed(P, ravel_inst_succ(P->f, b, P->list.data, P->list.len), l.line, l.col);
}

/* jump TARGET | br [COND,] TARGET, TARGET... | ret USES */
static bool parse_term(parser *P, ravel_opcode op, const token *mn)
{
    rvp_put_inst(P, op, RAVEL_NONE, mn->line, mn->col);
    if (op == RAVEL_OP_RET) {
        uint32_t n;
        if (!parse_uses(P, &n)) return false;
    } else if (op == RAVEL_OP_JUMP) {
        if (!parse_target(P)) return false;
    } else {
        uint32_t num, ntargets = 0;
        if (rvp_is_vreg_tok(&P->t, &num) || ((tok_kw(&P->t) == KW_EARLY || tok_kw(&P->t) == KW_LATE) && rvp_peek(P).k == T_IDENT)) {
            opnd o;
            if (!parse_operand(P, &o) || !note_use_ann(P, &o)) return false;
            rvp_put_operand(P, false, &o);
            if (!rvp_expect(P, T_COMMA, "',' after the branch condition")) return false;
        }
        for (;;) {
            if (!parse_target(P)) return false;
            ntargets++;
            if (!rvp_accept(P, T_COMMA)) break;
        }
        if (ntargets < 2) return rvp_err(P, mn->line, mn->col, "br needs at least two successors");
    }
    if (P->t.k == T_IDENT && (tok_kw(&P->t) == KW_CLOBBERS || tok_kw(&P->t) == KW_SAFEPOINT || tok_kw(&P->t) == KW_STACKMAP))
        return rvp_err(P, P->t.line, P->t.col, "terminators take no attributes");
    return true;
}

/* remat's K (the current token): an integer of any magnitude, taken modulo
 * 2^64 (docs/format.md section 14.3). */
static bool remat_const(parser *P, int64_t *k)
{
    const token *t = &P->t;
    uint32_t num;
    if (t->wnum) {
        uint64_t u = t->wval; /* as int64, two's complement, without implementation-defined casts */
        *k = u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
        rvp_next(P);
        return true;
    }
    if (rvp_is_vreg_tok(t, &num))
        return rvp_err(P, t->line, t->col, "remat takes an integer constant, not a vreg ('%.*s')", (int)(t->n > 40 ? 40 : t->n),
                       t->s);
    return rvp_unexpected(P, "an integer constant after remat");
}

/* ... = remat K [clobbers(R...)], the current token K; clobbers(...) is the
 * only attribute. */
static bool parse_remat(parser *P, ravel_loc dst, const token *first)
{
    int64_t k = 0; /* (set by remat_const on success; gcc -O2 cannot see it) */
    bool seen = false;
    if (!remat_const(P, &k)) return false;
    P->list.len = 0;
    while (P->t.k == T_IDENT) {
        token a = P->t;
        int ln = (int)(a.n > 40 ? 40 : a.n);
        if (tok_kw(&a) != KW_CLOBBERS)
            return rvp_err(P, a.line, a.col, "a remat takes no attribute but clobbers(...), found '%.*s'", ln, a.s);
        if (seen) return rvp_err(P, a.line, a.col, "attribute 'clobbers' repeated");
        seen = true;
        rvp_next(P);
        if (!rvp_expect(P, T_LPAREN, "'('") || !rvp_name_list(P, true, rvp_add_reg_to_list, NULL)) return false;
        rvp_next(P); /* ')' */
    }
    int id = ravel_remat(P->f, dst, k, P->list.data, P->list.len);
    if (builder_failed(P, id, first->line, first->col)) return false;
    P->f->insts.data[id].line = first->line;
    P->f->insts.data[id].col = first->col;
    return true;
}

/* LOC = spill|reload|move LOC | LOC = remat K ... (the current token is LOC) */
static bool parse_edit(parser *P, const token *first)
{
    ravel_loc dst, src;
    if (!parse_loc(P, &dst)) return false;
    if (!rvp_expect(P, T_EQ, "'='")) return false;
    token kw = P->t;
    rvp_next(P);
    if (tok_kw(&kw) == RAVEL_OP_REMAT) return parse_remat(P, dst, first);
    ravel_opcode kind = tok_kw(&kw) == RAVEL_OP_SPILL ? RAVEL_OP_SPILL : tok_kw(&kw) == RAVEL_OP_RELOAD ? RAVEL_OP_RELOAD : RAVEL_OP_MOVE;
    if (!parse_loc(P, &src)) return false;
    int id = ravel_edit(P->f, kind, dst, src);
    if (builder_failed(P, id, first->line, first->col)) return false;
    P->f->insts.data[id].line = first->line;
    P->f->insts.data[id].col = first->col;
    return true;
}

static bool is_edit_kw(const token *t)
{
    return tok_kw(t) == RAVEL_OP_SPILL || tok_kw(t) == RAVEL_OP_RELOAD || tok_kw(t) == RAVEL_OP_MOVE || tok_kw(t) == RAVEL_OP_REMAT;
}
static bool is_term_kw(const token *t) { return tok_kw(t) == RAVEL_OP_JUMP || tok_kw(t) == RAVEL_OP_BR || tok_kw(t) == RAVEL_OP_RET; }

/* True if '=' occurs on the current line (outside a comment) at or after
 * the current token: the line has defs or is an edit. */
static bool line_has_eq(const parser *P, const char **after)
{
    const char *p = P->t.s, *end = P->lx.end;
    for (;; p++) { /* one scan to the first '=', '#' or newline (a NUL before the end is skipped) */
        while (!is_eqstop(*p)) p++;
        if (*p == '=') break;
        if (*p != 0 || p >= end) return false;
    }
    *after = p + 1;
    return true;
}

/* DEFS: operand (',' operand)* '=' -- collected in P->defs, handed to the
 * builder once the instruction is begun. */
static bool parse_defs(parser *P)
{
    P->defs.len = 0;
    for (;;) {
        if (P->defs.len >= RV_MAX_OPERANDS) return rvp_err(P, P->t.line, P->t.col, "too many operands (limit %u)", RV_MAX_OPERANDS);
        opnd o;
        if (!parse_operand(P, &o)) return false;
        rv_vec_push(P->defs, o);
        if (!rvp_accept(P, T_COMMA)) break;
    }
    return rvp_expect(P, T_EQ, "',' or '='");
}

/* MNEMONIC | call NAME, then the instruction is begun with P->defs as its
 * defs; the current token is the mnemonic. */
static bool begin_op(parser *P, const token *first)
{
    token mn = P->t, name = P->t;
    rvp_next(P);
    ravel_opcode op = kw_opcode(tok_kw(&mn));
    if (op == RAVEL_OP_CALL) {
        name = P->t;
        if (name.k != T_IDENT) return rvp_unexpected(P, "the callee's name after call");
        rvp_next(P);
    }
    uint32_t nm = RAVEL_NONE;
    if (op == RAVEL_OP_OTHER || op == RAVEL_OP_CALL) {
        rvp_other_name(P, name.s, name.n);
        nm = rv_sym_intern(&P->f->syms, name.s, name.n);
    }
    rvp_put_inst(P, op, nm, first->line, first->col);
    for (uint32_t i = 0; i < P->defs.len; i++) {
        const opnd *o = &P->defs.data[i];
        if (!note_def_class(P, o)) return false;
        rvp_put_operand(P, true, o);
    }
    return true;
}

/* DEF = undef, with the defs read (P->defs) and the current token `undef`:
 * exactly one def, nothing after the mnemonic (docs/format.md section 14.2). */
static bool parse_undef(parser *P, const token *first)
{
    token mn = P->t;
    if (!P->defs.len) return rvp_err(P, mn.line, mn.col, "undef needs a def (write vN:CLASS = undef)");
    if (P->defs.len > 1)
        return rvp_err(P, P->defs.data[1].line, P->defs.data[1].col, "undef has exactly one def (this is a second one)");
    if (!begin_op(P, first)) return false;
    token t = P->t;
    if (t.k == T_EOL || t.k == T_EOF) return true;
    if (t.k == T_BAD) return rvp_unexpected(P, "end of line");
    return rvp_err(P, t.line, t.col, "nothing follows undef (no use, immediate or attribute), found '%.*s'",
                   (int)(t.n > 40 ? 40 : t.n), t.s);
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
            rvp_classify(&mn);
        }
        if (is_edit_kw(&mn)) return parse_edit(P, &first);
        /* `r0 = mov r1`: a location, '=', a near miss of an edit (a vreg,
         * the usual first word, is no location: register names never look
         * like one) */
        uint32_t num;
        bool at_loc = first.k == T_IDENT && rvp_is_vreg_tok(&first, &num) == NUMNAME_NO &&
                      (rvp_find_reg(P, first.s, first.n) >= 0 || rvp_is_slot_tok(&first, &num) > 0) && rvp_peek(P).k == T_EQ;
        const char *w = at_loc && mn.k == T_IDENT ? rv_near_word(mn.s, mn.n, edit_words) : NULL;
        if (w && kw_opcode(tok_kw(&mn)) == RAVEL_OP_OTHER)
            return rvp_err(P, first.line, first.col + (uint32_t)(mn.s - first.s),
                        "unknown edit '%.*s' (did you mean '%s'?)", (int)mn.n, mn.s, w);
        if (!parse_defs(P)) return false;
    } else {
        P->defs.len = 0;
    }
    token mn = P->t;
    if (mn.k != T_IDENT) return rvp_unexpected(P, "a mnemonic");
    if (is_term_kw(&mn)) {
        if (has_eq) return rvp_err(P, mn.line, mn.col, "a terminator has no results");
        rvp_next(P);
        ravel_opcode op = tok_kw(&mn) == RAVEL_OP_JUMP ? RAVEL_OP_JUMP : tok_kw(&mn) == RAVEL_OP_BR ? RAVEL_OP_BR : RAVEL_OP_RET;
        return parse_term(P, op, &mn);
    }
    if (is_edit_kw(&mn))
        return rvp_err(P, mn.line, mn.col, "'%.*s' is an edit: write LOC = %.*s %s", (int)mn.n, mn.s, (int)mn.n, mn.s,
                       tok_kw(&mn) == RAVEL_OP_REMAT ? "K" : "LOC");
    if (tok_kw(&mn) == RAVEL_OP_UNDEF) return parse_undef(P, &first);
    if (!has_eq && kw_opcode(tok_kw(&mn)) == RAVEL_OP_OTHER) { /* `jmp b1`: a block where a use would be */
        token nx = rvp_peek(P);
        uint32_t num;
        /* (the near-miss distances last: most such lines have a use next) */
        const char *w = nx.k == T_IDENT && !rvp_is_vreg_tok(&nx, &num) && tok_kw(&nx) != KW_EARLY && tok_kw(&nx) != KW_LATE &&
                                tok_kw(&nx) != KW_CLOBBERS && tok_kw(&nx) != KW_SAFEPOINT && tok_kw(&nx) != KW_STACKMAP
                            ? rv_near_word(mn.s, mn.n, term_words)
                            : NULL;
        if (w && !rv_near_word(nx.s, nx.n, attr_words))
            return rvp_err(P, mn.line, mn.col, "unknown mnemonic '%.*s' before a block name (did you mean '%s'?)", (int)mn.n,
                        mn.s, w);
    }
    uint32_t n;
    return begin_op(P, &first) && parse_uses(P, &n) && parse_attrs(P);
}

/* ---- functions: blocks ---------------------------------------------------------- */

void rvp_close_block(parser *P, uint32_t line, uint32_t col)
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
        if (P->defs.len >= RV_MAX_OPERANDS) return rvp_err(P, P->t.line, P->t.col, "too many parameters (limit %u)", RV_MAX_OPERANDS);
        opnd o;
        memset(&o, 0, sizeof o);
        o.line = P->t.line, o.col = P->t.col;
        if (!parse_vreg_ann(P, &o) || !note_def_class(P, &o)) return false;
        if (P->param_mark.data[o.vreg]) return rvp_err(P, o.line, o.col, "duplicate parameter v%u", P->f->vregs.data[o.vreg].num);
        P->param_mark.data[o.vreg] = 1;
        rv_vec_push(P->defs, o);
        if (!rvp_accept(P, T_COMMA)) return true;
    }
}

/* LABEL [ '(' PARAM (',' PARAM)* ')' ] ':' with PARAM = vN:CLASS[.ref] */
static bool parse_label(parser *P)
{
    token l = P->t;
    uint32_t num;
    if (!count_inst(P, l.line, l.col)) return false;
    if (rvp_is_vreg_tok(&l, &num)) return rvp_err(P, l.line, l.col, "block label '%.*s' would read as a vreg", (int)l.n, l.s);
    rvp_next(P);
    if (P->f->cur_inst != RAVEL_NONE) ravel_inst_end(P->f);
    rvp_close_block(P, l.line, l.col);
    P->f->cur_block = RAVEL_NONE;
    uint32_t b = rvp_block_ref(P, l.s, l.n);
    if (P->f->blocks.data[b].started) {
        /* give the following lines a (nameless) block to avoid cascades */
        rvp_other_name(P, "b0", 2); /* (its name, bN, is looked up) */
        ravel_block_begin(P->f, ravel_block_new(P->f, NULL));
        return rvp_err(P, l.line, l.col, "block '%.*s' defined twice", (int)(l.n > 40 ? 40 : l.n), l.s);
    }
    P->defs.len = 0;
    bool paren = rvp_accept(P, T_LPAREN);
    bool ok = !paren || P->t.k == T_RPAREN || label_params(P);
    if (ok && paren) ok = rvp_expect(P, T_RPAREN, "',' or ')'");
    for (uint32_t i = 0; i < P->defs.len; i++) P->param_mark.data[P->defs.data[i].vreg] = 0;
    if (ok) ok = rvp_expect(P, T_COLON, "':' after the block label");
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
    if (!rvp_is_vreg_tok(&P->t, &num)) return *p == ':' || *p == '(';
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

/* Room in f's arrays for the function whose text starts at p, so that
 * they are not grown a dozen times each (a hint: they still grow past it;
 * the memory stays linear in the text). After a function of fewer than
 * 2^14 instructions in the same module: a quarter more than each of its
 * arrays held, and at most one instruction per 8 bytes left (no scan: a
 * module of many small functions is read without reading it twice).
 * Else from the function's bytes up to the next line `end` (or the
 * input's end), at least 8 per instruction line and about 2 operands per
 * instruction. */
static void reserve_like(ravel_func *f, const ravel_func *prev, size_t left)
{
    size_t cap = left / 8 + 8;
#define RESERVE_LIKE(v) rv_vec_reserve(f->v, prev->v.len + prev->v.len / 4 < cap ? prev->v.len + prev->v.len / 4 : cap)
    RESERVE_LIKE(insts);
    RESERVE_LIKE(ops);
    RESERVE_LIKE(vregs);
    RESERVE_LIKE(u32);
    RESERVE_LIKE(blocks);
    RESERVE_LIKE(succs);
    RESERVE_LIKE(imms);
    RESERVE_LIKE(syms.strs);
    RESERVE_LIKE(syms.lens);
#undef RESERVE_LIKE
    rv_map_reserve(&f->syms.index, f->syms.strs.cap - f->syms.strs.len);
}

static void reserve_for_text(parser *P, ravel_func *f, const char *p, const char *end)
{
    const ravel_func *prev = P->mod->funcs.len >= 2 ? P->mod->funcs.data[P->mod->funcs.len - 2] : NULL;
    if (prev && prev->insts.len < (1u << 14)) {
        reserve_like(f, prev, (size_t)(end - p));
        return;
    }
    const char *e = memmem(p, (size_t)(end - p), "\nend", 4); /* one scan, not one call per line */
    size_t bytes = (size_t)((e ? e : end) - p), n = bytes / 32;
    if (n > (1u << 20)) n = 1u << 20;
    rv_vec_reserve(f->insts, n);
    rv_vec_reserve(f->ops, 2 * n);
    rv_vec_reserve(f->vregs, n);
    rv_vec_reserve(f->u32, n / 2);
    rv_vec_reserve(f->blocks, n / 8);
    rv_vec_reserve(f->succs, n / 8);
    if (n >= 1024) { /* symbols: about one block name per 8 instructions (the map's growth
                        rehashes, with a cache miss per symbol, on large functions) */
        rv_vec_reserve(f->syms.strs, n / 8);
        rv_vec_reserve(f->syms.lens, n / 8);
        rv_map_reserve(&f->syms.index, (uint32_t)(n / 8));
    }
}

/* func NAME NL: creates the function (also after an error, so that its
 * lines can be read); the current token is `func`. */
static ravel_func *func_header(parser *P)
{
    token fk = P->t;
    rvp_next(P);
    token nm = P->t;
    if (nm.k != T_IDENT) {
        rvp_unexpected(P, "a function name");
        rvp_skip_line(P);
        nm.s = "f", nm.n = 1;
    } else {
        /* tools match functions by name (check --orig, run --compare) */
        if (rv_sym_find(&P->fnames, nm.s, nm.n) != RAVEL_NONE)
            rvp_err(P, nm.line, nm.col, "function '%.*s' defined twice", (int)(nm.n > 40 ? 40 : nm.n), nm.s);
        rv_sym_intern(&P->fnames, nm.s, nm.n);
        rvp_next(P);
        if (!rvp_expect_eol(P)) rvp_skip_line(P);
    }
    char *name = rv_xmalloc(nm.n + 1);
    memcpy(name, nm.s, nm.n);
    name[nm.n] = 0;
    ravel_func *f = ravel_func_new(P->m, name);
    rv_free(name);
    rv_vec_push(P->mod->funcs, f);
    f->line = fk.line, f->col = fk.col;
    f->file = P->mod->filename, f->src = P->mod->src, f->srclen = P->mod->srclen;
    reserve_for_text(P, f, P->lx.p, P->lx.end);
    P->f = f;
    rvp_labels_reset(P);
    rvp_other_name(P, rv_func_name(f), (uint32_t)strlen(rv_func_name(f)));
    memset(P->fast.scache, 0, sizeof P->fast.scache);
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
    if (rvp_fast_line(P)) return true;
    token t = P->t;
    if (t.k == T_EOF) {
        *done = true;
        uint32_t line, col;
        rvp_eof_pos(P, &line, &col);
        return rvp_err(P, line, col, "missing 'end' of func '%s'", rv_func_name(f));
    }
    if (at_label(P)) return parse_label(P) && rvp_expect_eol(P);
    if (tok_kw(&t) == KW_END && rvp_peek(P).k != T_EQ) { /* `end = move r0`: a register named end */
        rvp_next(P);
        rvp_close_block(P, t.line, t.col);
        f->end_line = t.line;
        *done = true;
        if (rvp_expect_eol(P)) return true;
        rvp_skip_line(P);
        return false;
    }
    if ((tok_kw(&t) == KW_FUNC || tok_kw(&t) == KW_MACHINE) && rvp_peek(P).k != T_EQ) {
        *done = true;
        return rvp_err(P, t.line, t.col, "missing 'end' of func '%s' before '%.*s'", rv_func_name(f), (int)t.n, t.s);
    }
    if (f->cur_block == RAVEL_NONE) return rvp_err(P, t.line, t.col, "expected a block label (NAME:) before the first instruction");
    return parse_inst(P) && rvp_expect_eol(P);
}

/* func NAME NL (LABEL NL | INST NL)* end NL; the current token is `func`.
 * Always leaves a finished function in the module. */
bool rvp_parse_func(parser *P)
{
    uint32_t nerr0 = P->nerr;
    token fk = P->t;
    ravel_func *f = func_header(P);
    for (bool done = false; !done;) {
        rvp_skip_blank(P);
        bool ok = func_line(P, &done);
        /* an instruction left open by an error is closed here */
        if (f->cur_inst != RAVEL_NONE) ravel_inst_end(f);
        if (!ok && !done) rvp_skip_line(P);
    }
    if (f->layout.len == 0 && P->nerr == nerr0) rvp_err(P, fk.line, fk.col, "func '%s' has no blocks", rv_func_name(f));
    rvp_syms_flush(P);
    check_pending(P);
    vcache_flush(P);
    ravel_func_finish(f);
    return P->nerr == nerr0;
}
