/* ck_report.c - errors: recording, sorting (instruction order, at most one
 * per operand), provenance (computed only on error), explain dumps, and the
 * text and JSON printers. */
#include "ck.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- text buffer ---- */

void ck_bprintf(ck_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[256];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t c = b->cap ? b->cap : 128;
        while (c < b->len + (size_t)n + 1) c *= 2;
        b->s = rv_xrealloc(b->s, c);
        b->cap = c;
    }
    if ((size_t)n < sizeof tmp) {
        memcpy(b->s + b->len, tmp, (size_t)n + 1);
    } else {
        va_start(ap, fmt);
        vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
}

char *ck_bdetach(ck_buf *b)
{
    char *s = b->s ? b->s : rv_xcalloc(1, 1);
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}

/* ---- naming ---- */

const char *ck_vname(const ravel_func *f, uint32_t v, char *buf)
{
    snprintf(buf, 32, "v%u", f->vregs.data[v].num);
    return buf;
}

static const char *loc_name(const ravel_checker *ck, uint32_t li, char *buf)
{
    return rv_loc_str(ck->f->mach, rv_loc_at(ck->nregs, li), buf);
}

static void op_text(ck_buf *b, const ravel_func *f, const rv_operand *o, bool locs)
{
    char vb[32], lb[32];
    ck_bprintf(b, "%s", ck_vname(f, o->vreg, vb));
    if (locs && o->loc != RAVEL_LOC_NONE) ck_bprintf(b, " @%s", rv_loc_str(f->mach, o->loc, lb));
}

/* "v5 = add v3, v2", "jump b1(v6, v5)", "r1 = reload s0". */
static void inst_text(ck_buf *b, const ravel_func *f, const rv_inst *in, bool locs)
{
    char l1[32], l2[32], vb[32];
    if (in->op == RAVEL_OP_REMAT) {
        ck_bprintf(b, "%s = remat %lld", rv_loc_str(f->mach, in->u.edit.dst, l1), (long long)rv_remat_k(f, in));
        return;
    }
    if (rv_is_edit(in)) {
        ck_bprintf(b, "%s = %s %s", rv_loc_str(f->mach, in->u.edit.dst, l1), rv_opcode_name(in->op),
                   rv_loc_str(f->mach, in->u.edit.src, l2));
        return;
    }
    const rv_operand *d = rv_defs_of(f, in), *u = rv_uses_of(f, in);
    for (uint32_t k = 0; k < in->ndefs; k++) {
        if (k) ck_bprintf(b, ", ");
        op_text(b, f, &d[k], locs);
    }
    ck_bprintf(b, "%s%s", in->ndefs ? " = " : "", rv_inst_mnemonic(f, in));
    if (in->op == RAVEL_OP_CALL && in->name != RAVEL_NONE) ck_bprintf(b, " %s", rv_sym_str(&f->syms, in->name));
    uint32_t nall = (uint32_t)in->nuses + in->nimms, ku = 0, ki = 0;
    for (uint32_t p = 0; p < nall; p++) {
        ck_bprintf(b, p ? ", " : " ");
        if (ki < in->nimms && f->imms.data[in->first_imm + ki].pos == p)
            ck_bprintf(b, "%lld", (long long)f->imms.data[in->first_imm + ki++].value);
        else if (ku < in->nuses)
            op_text(b, f, &u[ku++], locs);
    }
    for (uint32_t k = 0; k < rv_inst_nsuccs(in); k++) {
        const rv_succ *s = &rv_inst_succs(f, in)[k];
        ck_bprintf(b, "%s%s", (k || nall) ? ", " : " ", s->block < f->blocks.len ? rv_block_name(f, s->block) : "?");
        if (s->nargs) {
            ck_bprintf(b, "(");
            for (uint32_t a = 0; a < s->nargs; a++) ck_bprintf(b, "%s%s", a ? ", " : "", ck_vname(f, rv_args_of(f, s)[a], vb));
            ck_bprintf(b, ")");
        }
    }
}

void ck_inst_text(ck_buf *b, const ravel_func *f, const rv_inst *in) { inst_text(b, f, in, false); }

/* "line 12" or "inst 5" (functions built through the API have no lines). */
static void where(ck_buf *b, const ravel_func *f, uint32_t ii)
{
    if (f->insts.data[ii].line) ck_bprintf(b, "line %u", f->insts.data[ii].line);
    else ck_bprintf(b, "inst %u", ii);
}

void ck_val_text_in(ck_buf *b, const ravel_checker *ck, const ck_sets *sets, ck_val v)
{
    char vb[32];
    if (v == CK_V_UNKNOWN) { ck_bprintf(b, "unknown"); return; }
    if (v == CK_V_CONFLICT) { ck_bprintf(b, "conflicted"); return; }
    if (v == CK_V_EMPTY) { ck_bprintf(b, "empty"); return; }
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ck_val_members(sets, v, &m, &one);
    ck_bprintf(b, "{");
    for (uint32_t i = 0; i < n; i++) ck_bprintf(b, "%s%s", i ? ", " : "", ck_member_name(ck, m[i], vb));
    ck_bprintf(b, "}");
}

/* ---- recording ---- */

void ck_out_free(ck_out *o)
{
    rv_free(o->explain.s);
    rv_vec_free(o->tmp_locs);
    memset(o, 0, sizeof *o);
}

size_t ck_out_memory(const ck_out *o) { return o->explain.cap + (size_t)o->tmp_locs.cap * sizeof *o->tmp_locs.data; }

ravel_report *ck_report_quiet(ck_out *o)
{
    memset(&o->quiet, 0, sizeof o->quiet);
    o->quiet.status = RAVEL_OK;
    return &o->quiet;
}

ravel_report *ck_report_new(void)
{
    ravel_report *r = rv_xcalloc(1, sizeof *r);
    r->status = RAVEL_OK;
    return r;
}

void ck_bad_input(ravel_report *rep, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    rv_vec_push(rep->bad_input, rv_xstrdup(tmp));
    rep->status = RAVEL_EINVAL;
}

void ck_truncate_bad_input(ravel_report *rep, uint32_t n)
{
    while (rep->bad_input.len > n) rv_free(rep->bad_input.data[--rep->bad_input.len]);
}

/* The text of instruction ii, made once per report and shared by all its
 * errors: an instruction with n operands all wrong costs O(n), not O(n^2). */
static uint32_t inst_text_once(ravel_report *rep, const ravel_func *f, uint32_t ii)
{
    if (rep->text_func != f) {
        rv_free(rep->text_of);
        rep->text_of = rv_xcalloc(f->insts.len ? f->insts.len : 1, sizeof *rep->text_of);
        rep->text_func = f;
    }
    if (!rep->text_of[ii]) {
        ck_buf b = {0};
        inst_text(&b, f, &f->insts.data[ii], true);
        rv_vec_push(rep->texts, ck_bdetach(&b));
        rv_vec_push(rep->srcs, rv_src_line(f, f->insts.data[ii].line));
        rep->text_of[ii] = rep->texts.len;
    }
    return rep->text_of[ii] - 1;
}

static ck_err *new_err(ravel_checker *ck, const ck_site *s, const char *kind, uint32_t expect)
{
    const ravel_func *f = ck->f;
    ravel_report *rep = ck->out.rep;
    ck_err e;
    memset(&e, 0, sizeof e);
    e.block_id = s->block;
    e.inst_id = s->inst;
    e.order = s->order;
    e.li = CK_NIL;
    e.expect = expect;
    e.seq = rep->errs.len;
    e.late = s->op && rv_op_is_late(s->op);
    e.pub.kind = kind;
    e.pub.file = f->file;
    e.pub.func = rv_func_name(f);
    e.pub.block = s->block != CK_NIL ? rv_block_name(f, s->block) : NULL;
    e.pub.inst = s->inst != CK_NIL ? s->inst : RAVEL_NONE;
    e.pub.line = s->inst != CK_NIL ? f->insts.data[s->inst].line : (s->block != CK_NIL ? f->blocks.data[s->block].line : 0);
    e.pub.operand = s->k;
    e.pub.role = s->role;
    e.pub.position = s->op ? (rv_op_is_late(s->op) ? "late" : "early") : NULL;
    if (expect != CK_NIL) {
        char vb[32];
        e.pub.expected = rv_xstrdup(ck_vname(f, expect, vb));
    }
    if (s->inst != CK_NIL) {
        uint32_t t = inst_text_once(rep, f, s->inst);
        e.pub.inst_text = rep->texts.data[t];
        e.pub.source = rep->srcs.data[t];
        int role = !s->role || s->k < 0 ? -1 : !strcmp(s->role, "def") ? RV_SRC_DEF : !strcmp(s->role, "use") ? RV_SRC_USE
                 : !strcmp(s->role, "stackmap") ? RV_SRC_STACKMAP : -1;
        e.pub.col = role < 0 ? f->insts.data[s->inst].col
                             : rv_src_operand_col(e.pub.source, f->insts.data[s->inst].col, role, (uint32_t)s->k);
    } else if (s->block != CK_NIL) {
        e.pub.col = f->blocks.data[s->block].col;
    }
    rv_vec_push(rep->errs, e);
    rep->status = RAVEL_EFAIL;
    return &rep->errs.data[rep->errs.len - 1];
}

static void op_desc(ck_buf *b, const ravel_checker *ck, const ck_site *s)
{
    char vb[32];
    ck_bprintf(b, "%s %d", s->role, s->k);
    if (s->op) ck_bprintf(b, " (%s)", ck_vname(ck->f, s->op->vreg, vb));
}

/* A value error: location li held `held` (in sets) where vreg expect (or a
 * reference, expect == CK_NIL) was needed. No provenance (the caller adds it). */
ck_err *ck_err_value_rec(ravel_checker *ck, const ck_site *s, const char *kind, uint32_t li, uint32_t expect,
                         const ck_sets *sets, ck_val held)
{
    ck_err *e = new_err(ck, s, kind, expect);
    char lb[32], vb[32];
    e->li = li;
    e->value = true;
    e->pub.loc = rv_xstrdup(loc_name(ck, li, lb));
    ck_buf h = {0};
    ck_val_text_in(&h, ck, sets, held);
    e->pub.held = ck_bdetach(&h);
    ck_buf m = {0};
    op_desc(&m, ck, s);
    const char *verb = e->pub.held[0] == '{' ? "holds" : "is";
    if (expect != CK_NIL)
        ck_bprintf(&m, " expects %s to hold %s, but %s %s %s", e->pub.loc, ck_vname(ck->f, expect, vb), e->pub.loc, verb, e->pub.held);
    else
        ck_bprintf(&m, " %s must hold a reference, but %s %s %s", e->pub.loc, e->pub.loc, verb, e->pub.held);
    if (!strcmp(e->pub.held, "empty")) ck_bprintf(&m, " (every vreg it held was redefined or dropped)");
    e->pub.message = ck_bdetach(&m);
    return e;
}

void ck_err_rule(ravel_checker *ck, const ck_site *s, const char *kind, ravel_loc loc, uint32_t expect, const char *fmt, ...)
{
    ck_err *e = new_err(ck, s, kind, expect);
    char lb[32], tmp[400];
    if (loc != RAVEL_LOC_NONE) e->pub.loc = rv_xstrdup(rv_loc_str(ck->f->mach, loc, lb));
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    ck_buf m = {0};
    if (s->role && (s->op || s->k >= 0)) {
        op_desc(&m, ck, s);
        ck_bprintf(&m, ": ");
    }
    ck_bprintf(&m, "%s", tmp);
    e->pub.message = ck_bdetach(&m);
}

/* ---- provenance (on error only; the analysis supplies its edges) ---- */

/* Register location a overlaps register location b (section 14.1). */
static bool overlaps_li(const ravel_checker *ck, uint32_t a, uint32_t b)
{
    return ck->ext.alias && a < ck->nregs && b < ck->nregs && rv_mach_overlap(ck->f->mach, a, b);
}

/* Clobber list of in (an op or a remat) makes li unknown: li or a register
 * overlapping it is listed. */
static bool clobbers_li(const ravel_checker *ck, const rv_inst *in, uint32_t li)
{
    const uint32_t *regs;
    uint32_t n = rv_inst_clobbers(ck->f, in, &regs);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t c = rv_loc_index(ck->nregs, ck->nslots, regs[k]);
        if (c == li || overlaps_li(ck, c, li)) return true;
    }
    return false;
}

/* How op in writes li: a def there (*defk), a def in a register
 * overlapping it (*over: that def's index; not an in-place copy, which
 * destroys nothing), or a clobber (*clobber). */
static bool writes_loc(const ravel_checker *ck, const rv_inst *in, uint32_t li, bool *clobber, uint32_t *defk, uint32_t *over)
{
    const ravel_func *f = ck->f;
    *clobber = false;
    *defk = *over = CK_NIL;
    const rv_operand *d = rv_defs_of(f, in);
    for (uint32_t k = 0; k < in->ndefs; k++) {
        uint32_t dl = rv_loc_index(ck->nregs, ck->nslots, d[k].loc);
        if (dl == li) *defk = k;
        else if (overlaps_li(ck, dl, li) && !ck_copy_in_place(ck, in)) *over = k;
    }
    if (*defk != CK_NIL || *over != CK_NIL) return true;
    if (rv_is_term(in)) return false;
    return *clobber = clobbers_li(ck, in, li);
}

/* Can block b reach itself (is it on a CFG cycle)? Only on errors: a
 * search over the successors. */
static bool on_cycle(const ravel_checker *ck, uint32_t b)
{
    const rv_cfg *c = &ck->cfg.g;
    uint8_t *seen = rv_xcalloc(c->nblocks ? c->nblocks : 1, 1);
    uint32_t *stack = rv_xmalloc(((size_t)c->nblocks + 1) * sizeof *stack), n = 0;
    bool found = false;
    for (uint32_t e = c->succ_start[b]; e < c->succ_start[b + 1]; e++)
        if (!seen[c->succ[e]]) seen[c->succ[e]] = 1, stack[n++] = c->succ[e];
    while (n && !found) {
        uint32_t x = stack[--n];
        if (x == b) found = true;
        for (uint32_t e = c->succ_start[x]; e < c->succ_start[x + 1]; e++)
            if (!seen[c->succ[e]]) seen[c->succ[e]] = 1, stack[n++] = c->succ[e];
    }
    rv_free(stack);
    rv_free(seen);
    return found;
}

/* The walk back from a read of li reached a definition d of the expected
 * vreg (instruction ii of block blk) without meeting a write of li: what is
 * true of li then. If li held the vreg on every path right before the def
 * (possible only when the vreg has another definition: the checker takes
 * functions that are not SSA), the def made that copy stale. Otherwise, in
 * SSA, every path from the entry reaches the def before the vreg exists:
 * if the def is on no cycle, li cannot have held the vreg at all; on a
 * cycle an older value of it may have been left in li on some path (made
 * stale by the def), so only "not given it" is certain. */
static void def_note(ck_buf *b, const ravel_checker *ck, const ck_prov_ops *ops, uint32_t blk, uint32_t ii,
                     const rv_operand *d, uint32_t li)
{
    const ravel_func *f = ck->f;
    char vb[32], lb[32], db[32];
    const char *ln = rv_loc_str(f->mach, rv_loc_at(ck->nregs, li), lb), *dn = rv_loc_str(f->mach, d->loc, db);
    if (ops->held_before && ops->held_before(ops->ctx, blk, ii, li, d->vreg)) {
        ck_bprintf(b, "%s was redefined at ", ck_vname(f, d->vreg, vb));
        where(b, f, ii);
        ck_bprintf(b, " (in %s): the older copy in %s is stale\n", dn, ln);
        return;
    }
    ck_bprintf(b, "%s was defined at ", ck_vname(f, d->vreg, vb));
    where(b, f, ii);
    if (rv_loc_index(ck->nregs, ck->nslots, d->loc) == li) ck_bprintf(b, " in %s\n", dn);
    else if (!on_cycle(ck, blk)) ck_bprintf(b, " in %s; %s never held it\n", dn, ln);
    else ck_bprintf(b, " in %s; %s was not given it after that definition (an older value of it there is stale)\n", dn, ln);
}

/* The provenance of li at edit in (instruction i) when section 14 makes
 * it end there: a remat that writes li or clobbers it, an edit that writes
 * a register overlapping li. False otherwise (a plain edit into li is
 * followed to its source). */
static bool ext_edit_note(ck_buf *b, const ravel_checker *ck, const rv_inst *in, uint32_t i, uint32_t li)
{
    const ravel_func *f = ck->f;
    char lb[32], db[32];
    uint32_t dl = rv_loc_index(ck->nregs, ck->nslots, in->u.edit.dst);
    const char *ln = rv_loc_str(f->mach, rv_loc_at(ck->nregs, li), lb), *dn = rv_loc_str(f->mach, in->u.edit.dst, db);
    if (in->op == RAVEL_OP_REMAT && dl == li) {
        ck_bprintf(b, "%s was rematerialised with =%lld at ", ln, (long long)rv_remat_k(f, in));
        where(b, f, i);
        ck_bprintf(b, " (it holds the constant's token and the vregs that were that constant then)\n");
        return true;
    }
    if (overlaps_li(ck, dl, li)) {
        ck_bprintf(b, "%s was destroyed by the write to %s at ", ln, dn);
        where(b, f, i);
        ck_bprintf(b, " (`");
        ck_inst_text(b, f, in);
        ck_bprintf(b, "`: they overlap)\n");
        return true;
    }
    if (in->op == RAVEL_OP_REMAT && clobbers_li(ck, in, li)) {
        ck_bprintf(b, "%s was clobbered (becomes unknown) by `", ln);
        ck_inst_text(b, f, in);
        ck_bprintf(b, "` at ");
        where(b, f, i);
        ck_bprintf(b, "\n");
        return true;
    }
    return false;
}

/* Walks back from an error (block x, instruction ii, location li, expected
 * vreg v) through edits, defs and single-predecessor edges, explaining what
 * put the content of li there; at a join, lists what each edge brought.
 * Every block it enters is on the path (x and its dominators). */
char *ck_provenance_text(const ravel_checker *ck, const ck_prov_ops *ops, uint32_t x, uint32_t ii, uint32_t li, uint32_t v, bool late, bool held)
{
    const ravel_func *f = ck->f;
    ck_buf b = {0};
    char lbuf[32], lb2[32], vb[32];
    const char *lb = "";
    uint32_t blk = x, stop = ii + (late ? 1 : 0);
    for (int steps = 0; steps < 64; steps++) {
        const rv_block *bl = &f->blocks.data[blk];
        bool done = false;
        for (uint32_t i = stop; i-- > bl->first_inst && !done;) {
            const rv_inst *in = &f->insts.data[i];
            lb = rv_loc_str(f->mach, rv_loc_at(ck->nregs, li), lbuf);
            if (rv_is_edit(in) && ext_edit_note(&b, ck, in, i, li)) {
                done = true;
                break;
            }
            if (rv_is_edit(in)) {
                if (rv_loc_index(ck->nregs, ck->nslots, in->u.edit.dst) != li) continue;
                ck_bprintf(&b, "%s was %s from %s at ", lb,
                           in->op == RAVEL_OP_SPILL ? "spilled" : in->op == RAVEL_OP_RELOAD ? "reloaded" : "moved",
                           rv_loc_str(f->mach, in->u.edit.src, lb2));
                where(&b, f, i);
                ck_bprintf(&b, "\n");
                li = rv_loc_index(ck->nregs, ck->nslots, in->u.edit.src);
                if (li == CK_NIL) return ck_bdetach(&b);
                continue;
            }
            bool clob;
            uint32_t dk, ok;
            if (writes_loc(ck, in, li, &clob, &dk, &ok)) {
                ck_bprintf(&b, "%s was ", lb);
                if (dk == CK_NIL && ok != CK_NIL) {
                    ck_bprintf(&b, "destroyed by the write to %s at ", rv_loc_str(f->mach, rv_defs_of(f, in)[ok].loc, lb2));
                    where(&b, f, i);
                    ck_bprintf(&b, " (`");
                    ck_inst_text(&b, f, in);
                    ck_bprintf(&b, "`: they overlap)\n");
                    done = true;
                    break;
                }
                if (clob) ck_bprintf(&b, "clobbered (becomes unknown) by `");
                else ck_bprintf(&b, "written with %s by `", ck_vname(f, rv_defs_of(f, in)[dk].vreg, vb));
                ck_inst_text(&b, f, in);
                ck_bprintf(&b, "` at ");
                where(&b, f, i);
                ck_bprintf(&b, "\n");
                done = true;
                break;
            }
            if (v != CK_NIL && (in->flags & RV_IF_SAFEPOINT) && f->vregs.data[v].ref && !(li >= ck->nregs && ck_smap_lists(f, in, li - ck->nregs))) {
                ck_bprintf(&b, "%s is a reference: the copy in %s did not survive the safepoint at ", ck_vname(f, v, vb), lb);
                where(&b, f, i);
                ck_bprintf(&b, " (%s not in its stackmap)\n", lb);
            }
            const rv_operand *d = rv_defs_of(f, in);
            for (uint32_t k = 0; v != CK_NIL && held && k < in->ndefs; k++)
                if (d[k].vreg == v) /* li was not written between this def and the read */
                    def_note(&b, ck, ops, blk, i, &d[k], li);
        }
        if (done) break;
        lb = rv_loc_str(f->mach, rv_loc_at(ck->nregs, li), lbuf);
        uint32_t q = CK_NIL, np = ops->nin(ops->ctx, blk, &q);
        if (blk == 0 || np == 0) {
            ck_bprintf(&b, "%s was never written on the path from the function entry\n", lb);
            break;
        }
        if (np > 1 || !ops->on_path(ops->ctx, blk)) {
            if (ops->on_path(ops->ctx, blk)) ops->join(ops->ctx, &b, blk, li);
            break;
        }
        if (!ops->on_path(ops->ctx, q)) break;
        const rv_inst *t = rv_block_term(f, &f->blocks.data[q]);
        ck_bprintf(&b, "(coming from %s)\n", rv_block_name(f, q));
        if (v != CK_NIL) { /* a parameter of blk: follow its argument */
            const uint32_t *params = rv_params_of(f, bl);
            for (uint32_t k = 0; k < rv_inst_nsuccs(t); k++) {
                const rv_succ *s = &rv_inst_succs(f, t)[k];
                if (s->block != blk) continue;
                for (uint32_t p = 0; p < bl->nparams && p < s->nargs; p++)
                    if (params[p] == v) {
                        uint32_t a = rv_args_of(f, s)[p];
                        ck_bprintf(&b, "%s is the parameter bound to %s on that edge\n", ck_vname(f, v, vb), ck_vname(f, a, lb2));
                        v = a;
                        break;
                    }
            }
        }
        blk = q;
        stop = f->blocks.data[q].first_inst + f->blocks.data[q].ninsts;
    }
    return ck_bdetach(&b);
}

/* ---- explain: the state before each instruction ---- */

/* A location the block names, and (section 14) the registers overlapping it. */
static void mark_dump_loc(ravel_checker *ck, ravel_loc l)
{
    uint32_t li = rv_loc_index(ck->nregs, ck->nslots, l);
    if (li == CK_NIL) return;
    rv_vec_push(ck->out.tmp_locs, li);
    const uint32_t *o;
    uint32_t n = ck_overlaps(ck, li, &o);
    for (uint32_t i = 0; i < n; i++) rv_vec_push(ck->out.tmp_locs, o[i]);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The locations block b names (operands, edits, stackmaps), sorted, once each. */
static void block_locs(ravel_checker *ck, uint32_t b)
{
    const ravel_func *f = ck->f;
    const rv_block *bl = &f->blocks.data[b];
    ck->out.tmp_locs.len = 0;
    for (uint32_t i = 0; i < bl->ninsts; i++) {
        const rv_inst *in = rv_inst_at(f, bl->first_inst + i);
        if (rv_is_edit(in)) {
            mark_dump_loc(ck, in->u.edit.dst);
            mark_dump_loc(ck, in->u.edit.src);
            continue;
        }
        for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) mark_dump_loc(ck, rv_ops_of(f, in)[k].loc);
        if (!rv_is_term(in) && (in->flags & RV_IF_STACKMAP))
            for (uint32_t k = 0; k < in->u.smap.n; k++) mark_dump_loc(ck, ravel_slot(f->u32.data[in->u.smap.first + k]));
    }
    if (ck->out.tmp_locs.len > 1) qsort(ck->out.tmp_locs.data, ck->out.tmp_locs.len, sizeof *ck->out.tmp_locs.data, cmp_u32);
    uint32_t w = 0;
    for (uint32_t i = 0; i < ck->out.tmp_locs.len; i++)
        if (!w || ck->out.tmp_locs.data[w - 1] != ck->out.tmp_locs.data[i]) ck->out.tmp_locs.data[w++] = ck->out.tmp_locs.data[i];
    ck->out.tmp_locs.len = w;
}

void ck_dump_state_of(ravel_checker *ck, const ck_sets *sets, const ck_val *vals, uint32_t blk, uint32_t ii)
{
    ck_buf *b = &ck->out.explain;
    char lb[32];
    if (ii == CK_NIL) ck_bprintf(b, "  at block exit:");
    else {
        ck_bprintf(b, "  before ");
        where(b, ck->f, ii);
        ck_bprintf(b, " `");
        ck_inst_text(b, ck->f, &ck->f->insts.data[ii]);
        ck_bprintf(b, "`:");
    }
    block_locs(ck, blk);
    for (uint32_t i = 0; i < ck->out.tmp_locs.len; i++) {
        uint32_t li = ck->out.tmp_locs.data[i];
        ck_bprintf(b, " %s=", loc_name(ck, li, lb));
        ck_val_text_in(b, ck, sets, vals[li]);
    }
    if (ck->ext.undef && vals[ck->ext.uli] != CK_V_UNKNOWN) { /* section 14.2: U */
        ck_bprintf(b, " undefined=");
        ck_val_text_in(b, ck, sets, vals[ck->ext.uli]);
    }
    ck_bprintf(b, "\n");
}

/* ---- finishing ---- */

static int cmp_err(const void *a, const void *b)
{
    const ck_err *x = a, *y = b;
    uint32_t xi = x->inst_id == CK_NIL ? 0 : x->inst_id + 1, yi = y->inst_id == CK_NIL ? 0 : y->inst_id + 1;
    if (xi != yi) return xi < yi ? -1 : 1;
    if (x->order != y->order) return x->order < y->order ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static void free_err(ck_err *e);

void ck_drop_value_errors(ravel_report *rep)
{
    uint32_t w = 0;
    for (uint32_t i = 0; i < rep->errs.len; i++) {
        if (rep->errs.data[i].value) free_err(&rep->errs.data[i]);
        else rep->errs.data[w++] = rep->errs.data[i];
    }
    rep->errs.len = w;
    if (!rep->errs.len && !rep->bad_input.len) rep->status = RAVEL_OK;
}

static void free_err(ck_err *e)
{
    rv_free((char *)e->pub.loc);
    rv_free((char *)e->pub.expected);
    rv_free((char *)e->pub.held); /* (inst_text belongs to the report's texts) */
    rv_free((char *)e->pub.message);
    rv_free((char *)e->pub.provenance);
    rv_free((char *)e->pub.explain);
    rv_free(e->here);
}

void ck_finish_report(ravel_checker *ck)
{
    ravel_report *r = ck->out.rep;
    if (!r || !r->errs.len) return;
    qsort(r->errs.data, r->errs.len, sizeof(ck_err), cmp_err);
    uint32_t w = 0;
    for (uint32_t i = 0; i < r->errs.len; i++) {
        ck_err *e = &r->errs.data[i];
        if (w && e->inst_id != CK_NIL && r->errs.data[w - 1].inst_id == e->inst_id && r->errs.data[w - 1].order == e->order &&
            e->order != CK_NIL) {
            free_err(e); /* at most one error per operand: the first (structural) wins */
            continue;
        }
        r->errs.data[w++] = *e;
    }
    r->errs.len = w;
    if (ck->max_errors && r->errs.len > ck->max_errors) { /* the first ones, in instruction order */
        r->omitted = r->errs.len - ck->max_errors;
        while (r->errs.len > ck->max_errors) free_err(&r->errs.data[--r->errs.len]);
    }
}

/* ---- public report API ---- */

size_t ravel_report_count(const ravel_report *r) { return r ? r->errs.len : 0; }
size_t ravel_report_omitted(const ravel_report *r) { return r ? r->omitted : 0; }
int ravel_report_status(const ravel_report *r) { return r ? r->status : RAVEL_OK; }
const ravel_check_error *ravel_report_error(const ravel_report *r, size_t i)
{
    return r && i < r->errs.len ? &r->errs.data[i].pub : NULL;
}
size_t ravel_report_ndiags(const ravel_report *r) { return r ? r->bad_input.len : 0; }
const char *ravel_report_diag(const ravel_report *r, size_t i)
{
    return r && i < r->bad_input.len ? r->bad_input.data[i] : NULL;
}

void ck_report_clear(ravel_report *r)
{
    for (uint32_t i = 0; i < r->errs.len; i++) free_err(&r->errs.data[i]);
    for (uint32_t i = 0; i < r->bad_input.len; i++) rv_free(r->bad_input.data[i]);
    for (uint32_t i = 0; i < r->texts.len; i++) rv_free(r->texts.data[i]);
    for (uint32_t i = 0; i < r->srcs.len; i++) rv_free(r->srcs.data[i]);
    rv_vec_free(r->errs);
    rv_vec_free(r->bad_input);
    rv_vec_free(r->texts);
    rv_vec_free(r->srcs);
    rv_free(r->text_of);
    memset(r, 0, sizeof *r);
}

void ravel_report_free(ravel_report *r)
{
    if (!r) return;
    ck_report_clear(r);
    rv_free(r);
}

static void print_lines(FILE *out, const char *s, const char *prefix)
{
    while (s && *s) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        fprintf(out, "%s%.*s\n", prefix, (int)n, s);
        s += n + (nl ? 1 : 0);
    }
}

void ravel_report_print(FILE *out, const ravel_report *r)
{
    if (!r) return;
    for (uint32_t i = 0; i < r->bad_input.len; i++) fprintf(out, "%s\n", r->bad_input.data[i]);
    const char *last_text = NULL, *last_source = NULL;
    for (uint32_t i = 0; i < r->errs.len; i++) {
        const ravel_check_error *e = &r->errs.data[i].pub;
        fprintf(out, "%s:", e->file ? e->file : "<input>");
        if (e->line) fprintf(out, "%u:", e->line);
        if (e->line && e->col) fprintf(out, "%u:", e->col);
        fprintf(out, " error[%s]: in func %s", e->kind, e->func);
        if (e->block) fprintf(out, ", block %s", e->block);
        if (!e->line && e->inst != RAVEL_NONE) fprintf(out, ", inst %u", e->inst);
        /* without a source line, the instruction's text once, on its first
         * error (shared pointer); with one, the line and a caret, as every
         * other diagnostic (ravel_diags_print) */
        if (!e->source && e->inst_text && e->inst_text != last_text) fprintf(out, ", `%s`", e->inst_text);
        last_text = e->inst_text;
        fprintf(out, ": %s\n", e->message);
        const char *prev_source = last_source;
        last_source = e->source;
        /* the source line and caret: on the instruction's first error, and on
         * the others only when the line is short (a report stays linear in
         * the errors when one long line has thousands) */
        if (e->source && (e->source != prev_source || strlen(e->source) <= 160)) {
            fprintf(out, "  %s\n", e->source);
            if (e->col) {
                fputs("  ", out);
                for (uint32_t k = 1; k < e->col && e->source[k - 1]; k++) fputc(e->source[k - 1] == '\t' ? '\t' : ' ', out);
                fputs("^\n", out);
            }
        }
        print_lines(out, e->provenance, "  note: ");
        print_lines(out, e->explain, "  ");
    }
    if (r->omitted) {
        const ravel_check_error *e = &r->errs.data[r->errs.len - 1].pub;
        fprintf(out, "%s: note: in func %s, %zu more error%s not reported (the report keeps the first %zu)\n",
                e->file ? e->file : "<input>", e->func, r->omitted, r->omitted == 1 ? "" : "s", (size_t)r->errs.len);
    }
}

static void json_str(FILE *out, const char *key, const char *s, bool comma)
{
    fprintf(out, "%s\"%s\":", comma ? "," : "", key);
    if (s) rv_json_str(out, s);
    else fputs("null", out);
}

void ravel_report_print_json(FILE *out, const ravel_report *r)
{
    if (!r) return;
    for (uint32_t i = 0; i < r->bad_input.len; i++) {
        fputs("{", out);
        json_str(out, "kind", "bad-input", false);
        json_str(out, "message", r->bad_input.data[i], true);
        fputs("}\n", out);
    }
    for (uint32_t i = 0; i < r->errs.len; i++) {
        const ravel_check_error *e = &r->errs.data[i].pub;
        fputs("{", out);
        json_str(out, "kind", e->kind, false);
        json_str(out, "file", e->file, true);
        json_str(out, "func", e->func, true);
        json_str(out, "block", e->block, true);
        if (e->inst != RAVEL_NONE) fprintf(out, ",\"inst\":%u", e->inst);
        else fputs(",\"inst\":null", out);
        fprintf(out, ",\"line\":%u,\"col\":%u", e->line, e->col);
        if (e->operand >= 0) fprintf(out, ",\"operand\":%d", e->operand);
        else fputs(",\"operand\":null", out);
        json_str(out, "role", e->role, true);
        json_str(out, "position", e->position, true);
        json_str(out, "loc", e->loc, true);
        json_str(out, "expected", e->expected, true);
        json_str(out, "held", e->held, true);
        /* an instruction's text once, on its first error; null on the next */
        json_str(out, "inst_text", i && e->inst_text == r->errs.data[i - 1].pub.inst_text ? NULL : e->inst_text, true);
        json_str(out, "source", i && e->source && e->source == r->errs.data[i - 1].pub.source ? NULL : e->source, true);
        json_str(out, "message", e->message, true);
        json_str(out, "provenance", e->provenance, true);
        json_str(out, "explain", e->explain, true);
        fputs("}\n", out);
    }
    if (r->omitted) {
        fputs("{", out);
        json_str(out, "kind", "omitted", false);
        fprintf(out, ",\"count\":%zu", r->omitted);
        fputs("}\n", out);
    }
}
