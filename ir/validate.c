/* validate.c - structural validation of a function (docs/format.md sections
 * 3-7, and the shapes of section 14: undef, remat).
 *
 * Requires: a finished function (ravel_func_finish); nothing else. It never
 * trusts the input: every id is range-checked before use.
 * Guarantees: every error found is reported once to the diagnostics, each
 * naming the function, block and instruction, at the source position of the
 * operand it is about (vpos, rv_src_operand_col), else of the instruction
 * (or the block's, for block-level errors), in source order
 * (unpositioned ones, from API-built functions, last). The result is
 *   RAVEL_EINVAL  bad input (section 7: what cannot be read or resolved),
 *   RAVEL_EFAIL   well formed, but a property fails: the allocated form breaks
 *                 a structural rule of section 6, or (RAVEL_VALIDATE_SSA) the
 *                 function is not in SSA form with dominating definitions,
 *   RAVEL_OK      otherwise.
 * A function that passes (without errors) satisfies what the CFG analyses,
 * the interpreter, the checker and the allocators require: every block ends
 * with exactly one terminator, successors exist and receive the right number
 * of arguments of the right classes, every vreg used has a definition and a
 * class, constraints name registers of the right class, and (allocated) every
 * operand has an in-range location of its class.
 *
 * Two paths. ravel_validate first runs the fast path (validate_fast.c):
 * three scans without any text that prove a function valid when it is well
 * formed and in strict SSA form (the usual case: every generated function),
 * and give up at the first doubt. Only then do the careful passes run; they
 * alone report, so verdicts and messages are theirs on every input
 * (ir/validate.h; tests/validate/test_validate_fast.c compares the two).
 *
 * Careful passes: (1) count definitions and record the first definition of
 * each vreg; (2) per block: parameters, instructions, operands, successors,
 * terminator; (3) edges: critical edges and branches into the entry; (4) with
 * RAVEL_VALIDATE_SSA: single definitions and dominance (cfg.c). */
#include "ir.h"
#include "validate.h"

#include <stdlib.h>
#include <string.h>

enum { /* per-vreg "already reported" bits */
    REP_UNDEF = 1,   /* used but defined nowhere */
    REP_NOCLASS = 2, /* class unknown */
    REP_MULTI = 4,   /* defined more than once (SSA) */
};

typedef struct vctx {
    const ravel_func *f;
    const ravel_machine *m;
    ravel_diags *d;
    unsigned flags;
    bool allocated;
    bool einval, efail;
    uint32_t nb;          /* laid-out blocks */
    uint32_t *ndefs;      /* vreg -> number of definitions (defs and params) */
    uint32_t *def_block;  /* vreg -> block of the first definition */
    uint32_t *def_inst;   /* vreg -> instruction of the first definition, RAVEL_NONE for a param */
    uint8_t *reported;    /* vreg -> REP_* */
    uint32_t *stamp;      /* vreg -> scratch mark (dedup within one block or instruction) */
} vctx;

/* ---- reporting ---- */

static const char *vname(const vctx *c, uint32_t v, char *buf)
{
    if (v >= c->f->vregs.len) {
        snprintf(buf, 32, "v?");
        return buf;
    }
    snprintf(buf, 32, "v%u", c->f->vregs.data[v].num);
    return buf;
}

static const char *class_name(const vctx *c, uint32_t v)
{
    const rv_vreg *r = &c->f->vregs.data[v];
    return r->has_class && r->cls < c->m->classes.len ? c->m->classes.data[r->cls].name : "?";
}

/* Records an error. blk/inst may be RAVEL_NONE; line 0 means "at inst" (or
 * at the block label when inst is RAVEL_NONE). */
__attribute__((format(printf, 7, 8)))
static void report(vctx *c, int sev, uint32_t blk, uint32_t inst, uint32_t line, uint32_t col, const char *fmt, ...)
{
    const ravel_func *f = c->f;
    if (sev == RAVEL_EINVAL)
        c->einval = true;
    else
        c->efail = true;
    char body[768], where[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    int n = snprintf(where, sizeof where, "func %s", rv_func_name(f));
    if (blk != RAVEL_NONE && blk < f->blocks.len && n >= 0 && (size_t)n < sizeof where)
        n += snprintf(where + n, sizeof where - (size_t)n, ", block %s", rv_block_name(f, blk));
    if (inst != RAVEL_NONE && n >= 0 && (size_t)n < sizeof where) {
        const rv_inst *in = rv_inst_at(f, inst);
        uint32_t k = blk != RAVEL_NONE ? inst - f->blocks.data[blk].first_inst : inst;
        snprintf(where + n, sizeof where - (size_t)n, ", inst %u (%s)", k, rv_inst_mnemonic(f, in));
        if (!line) {
            line = in->line;
            col = in->col;
        }
    } else if (!line && blk != RAVEL_NONE && blk < f->blocks.len) {
        line = f->blocks.data[blk].line;
        col = f->blocks.data[blk].col;
    }
    rv_diag_error(c->d, f->file, f->src, f->srclen, line, col, "%s: %s", where, body);
}

/* The column of the k-th vreg of `role` (RV_SRC_DEF or RV_SRC_USE) on
 * source line `line` of something that starts at column col0
 * (rv_src_operand_col), so that the caret points at the operand, not at
 * the start of the instruction; col0 without a source. Computed only for a
 * report that is recorded (the diagnostics keep the first d->max). */
static uint32_t src_col(const vctx *c, uint32_t line, uint32_t col0, int role, uint32_t k)
{
    if (!line || c->d->v.len >= c->d->max) return col0;
    char *s = rv_src_line(c->f, line);
    uint32_t col = rv_src_operand_col(s, col0, role, k);
    rv_free(s);
    return col;
}

/* The position of operand k (`what`: "def" or "use") of instruction i. */
static uint32_t op_col(const vctx *c, uint32_t i, const char *what, uint32_t k)
{
    const rv_inst *in = rv_inst_at(c->f, i);
    return src_col(c, in->line, in->col, strcmp(what, "def") ? RV_SRC_USE : RV_SRC_DEF, k);
}
#define OP_AT(c, i, what, k) rv_inst_at((c)->f, (i))->line, op_col((c), (i), (what), (k))

/* Where a vreg is read or written, for a report about it: with inst set,
 * the k-th vreg of `role` on the instruction's line (a successor's
 * arguments come after the uses: succ_arg_index); with inst RAVEL_NONE,
 * parameter k of block blk's label. */
typedef struct vpos {
    uint32_t blk, inst;
    int role;
    uint32_t k;
} vpos;

static uint32_t vpos_line(const vctx *c, const vpos *p)
{
    if (p->inst != RAVEL_NONE) return rv_inst_at(c->f, p->inst)->line;
    return p->blk < c->f->blocks.len ? c->f->blocks.data[p->blk].line : 0;
}

static uint32_t vpos_col(const vctx *c, const vpos *p)
{
    if (p->inst != RAVEL_NONE) {
        const rv_inst *in = rv_inst_at(c->f, p->inst);
        return src_col(c, in->line, in->col, p->role, p->k);
    }
    if (p->blk >= c->f->blocks.len) return 0;
    const rv_block *bl = &c->f->blocks.data[p->blk];
    return src_col(c, bl->line, bl->col, RV_SRC_DEF, p->k); /* (a label has no `=`) */
}
#define VPOS_AT(c, p) (p)->blk, (p)->inst, vpos_line((c), (p)), vpos_col((c), (p))

/* The index among the vreg uses on the line of argument k of successor s
 * of terminator `in`: the uses, then each earlier successor's arguments. */
static uint32_t succ_arg_index(const ravel_func *f, const rv_inst *in, uint32_t s, uint32_t k)
{
    uint32_t n = in->nuses + k;
    for (uint32_t j = 0; j < s; j++) n += rv_inst_succs(f, in)[j].nargs;
    return n;
}

/* ---- pass 1: definitions ---- */

/* v defined at p (def p->k of instruction p->inst, or parameter p->k). */
static void note_def(vctx *c, uint32_t v, const vpos *p)
{
    uint32_t blk = p->blk, inst = p->inst;
    if (v >= c->f->vregs.len) return;
    if (c->ndefs[v]++ == 0) {
        c->def_block[v] = blk;
        c->def_inst[v] = inst;
        return;
    }
    if ((c->flags & RAVEL_VALIDATE_SSA) && !(c->reported[v] & REP_MULTI)) {
        char b[32];
        c->reported[v] |= REP_MULTI;
        report(c, RAVEL_EFAIL, VPOS_AT(c, p), "%s is defined more than once (SSA requires one definition)",
               vname(c, v, b));
    }
}

static void count_defs(vctx *c)
{
    const ravel_func *f = c->f;
    for (uint32_t b = 0; b < c->nb; b++) {
        const rv_block *bl = &f->blocks.data[b];
        for (uint32_t k = 0; k < bl->nparams; k++) {
            vpos at = {b, RAVEL_NONE, RV_SRC_DEF, k};
            note_def(c, rv_block_params(f, bl)[k], &at);
        }
        for (uint32_t i = bl->first_inst; i < bl->first_inst + bl->ninsts; i++) {
            const rv_inst *in = rv_inst_at(f, i);
            if (rv_is_edit(in)) continue;
            for (uint32_t k = 0; k < in->ndefs; k++) {
                vpos at = {b, i, RV_SRC_DEF, k};
                note_def(c, rv_inst_defs(f, in)[k].vreg, &at);
            }
        }
    }
}

/* ---- pass 2: blocks, instructions, operands ---- */

/* Checks that v, at p, exists, is defined and has a class; reports each
 * once, at the operand. */
static bool check_vreg(vctx *c, uint32_t v, const vpos *p)
{
    char b[32];
    if (v >= c->f->vregs.len) {
        report(c, RAVEL_EINVAL, VPOS_AT(c, p), "vreg id %u out of range", v);
        return false;
    }
    if (!c->ndefs[v]) {
        if (!(c->reported[v] & REP_UNDEF))
            report(c, RAVEL_EINVAL, VPOS_AT(c, p), "%s is used but defined nowhere", vname(c, v, b));
        c->reported[v] |= REP_UNDEF;
        return false;
    }
    const rv_vreg *r = &c->f->vregs.data[v];
    if (!r->has_class || r->cls >= c->m->classes.len) {
        if (!(c->reported[v] & REP_NOCLASS))
            report(c, RAVEL_EINVAL, VPOS_AT(c, p), "%s has no known class", vname(c, v, b));
        c->reported[v] |= REP_NOCLASS;
        return false;
    }
    return true;
}

static bool loc_in_range(const vctx *c, ravel_loc l) { return rv_validate_loc_in_range(c->m, l); }

static void check_constraint(vctx *c, uint32_t blk, uint32_t i, uint32_t k, const rv_operand *o, const char *what)
{
    const ravel_func *f = c->f;
    const rv_inst *in = rv_inst_at(f, i);
    char b[32];
    if (o->kind == RAVEL_C_FIXED) {
        if (o->arg >= c->m->regs.len) {
            report(c, RAVEL_EINVAL, blk, i, OP_AT(c, i, what, k), "%s %u (%s): fixed register id %u out of range", what, k,
                   vname(c, o->vreg, b), o->arg);
        } else if (c->m->regs.data[o->arg].cls != f->vregs.data[o->vreg].cls) {
            report(c, RAVEL_EINVAL, blk, i, OP_AT(c, i, what, k), "%s %u (%s): fixed(%s) is of class %s, but %s is of class %s",
                   what, k, vname(c, o->vreg, b), c->m->regs.data[o->arg].name,
                   c->m->classes.data[c->m->regs.data[o->arg].cls].name, b, class_name(c, o->vreg));
        }
    } else if (o->kind == RAVEL_C_REUSE) {
        if (!rv_op_is_def(o)) {
            report(c, RAVEL_EINVAL, blk, i, OP_AT(c, i, what, k), "%s %u (%s): reuse(%u) on a use (only defs may reuse)", what, k,
                   vname(c, o->vreg, b), o->arg);
        } else if (o->arg >= in->nuses) {
            report(c, RAVEL_EINVAL, blk, i, OP_AT(c, i, what, k), "%s %u (%s): reuse(%u) out of range: the instruction has %u vreg uses",
                   what, k, vname(c, o->vreg, b), o->arg, in->nuses);
        } else {
            uint32_t u = rv_inst_uses(f, in)[o->arg].vreg;
            const rv_vreg *du = u < f->vregs.len ? &f->vregs.data[u] : NULL;
            if (du && du->has_class && du->cls != f->vregs.data[o->vreg].cls) {
                char b2[32];
                report(c, RAVEL_EINVAL, blk, i, OP_AT(c, i, what, k), "%s %u (%s:%s): reuse(%u) across classes: use %u is %s:%s", what,
                       k, vname(c, o->vreg, b), class_name(c, o->vreg), o->arg, o->arg, vname(c, u, b2),
                       class_name(c, u));
            }
        }
    } else if (o->kind > RAVEL_C_REUSE) {
        report(c, RAVEL_EINVAL, blk, i, OP_AT(c, i, what, k), "%s %u (%s): bad constraint kind %u", what, k, vname(c, o->vreg, b),
               o->kind);
    }
}

/* Section 6 "Structure" for one operand of an allocated function. */
static void check_operand_loc(vctx *c, uint32_t blk, uint32_t i, uint32_t k, const rv_operand *o, const char *what)
{
    char b[32], lb[32];
    const ravel_machine *m = c->m;
    if (o->loc == RAVEL_LOC_NONE) {
        report(c, RAVEL_EFAIL, blk, i, OP_AT(c, i, what, k), "%s %u (%s) has no location", what, k, vname(c, o->vreg, b));
        return;
    }
    if (!loc_in_range(c, o->loc)) {
        report(c, RAVEL_EFAIL, blk, i, OP_AT(c, i, what, k), "%s %u (%s): location %s out of range", what, k, vname(c, o->vreg, b),
               rv_loc_str(m, o->loc, lb));
        return;
    }
    if (ravel_loc_is_slot(o->loc)) return; /* slots fit any class */
    const rv_reg *r = &m->regs.data[o->loc];
    if (r->cls != c->f->vregs.data[o->vreg].cls)
        report(c, RAVEL_EFAIL, blk, i, OP_AT(c, i, what, k), "%s %u (%s:%s) placed in %s of class %s", what, k, vname(c, o->vreg, b),
               class_name(c, o->vreg), r->name, m->classes.data[r->cls].name);
    else if (r->reserved && !(o->kind == RAVEL_C_FIXED && o->arg == o->loc))
        report(c, RAVEL_EFAIL, blk, i, OP_AT(c, i, what, k), "%s %u (%s) placed in reserved register %s without fixed(%s)", what, k,
               vname(c, o->vreg, b), r->name, r->name);
}

static void check_operands(vctx *c, uint32_t blk, uint32_t i)
{
    const ravel_func *f = c->f;
    const rv_inst *in = rv_inst_at(f, i);
    for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) {
        const rv_operand *o = &rv_inst_ops(f, in)[k];
        bool def = k < in->ndefs;
        const char *what = def ? "def" : "use";
        uint32_t idx = def ? k : k - in->ndefs;
        vpos at = {blk, i, def ? RV_SRC_DEF : RV_SRC_USE, idx};
        if (!check_vreg(c, o->vreg, &at)) continue;
        check_constraint(c, blk, i, idx, o, what);
        if (c->allocated) check_operand_loc(c, blk, i, idx, o, what);
    }
}

/* A remat (docs/format.md section 14.3): its destination exists, it has
 * its one constant; its clobbers are registers (the builder checks them). */
static void check_remat(vctx *c, uint32_t blk, uint32_t i)
{
    const rv_inst *in = rv_inst_at(c->f, i);
    char a[32];
    if (!loc_in_range(c, in->u.edit.dst))
        report(c, RAVEL_EFAIL, blk, i, 0, 0, "edit location out of range (%s = remat)", rv_loc_str(c->m, in->u.edit.dst, a));
    if (in->nimms != 1 || in->ndefs || in->nuses)
        report(c, RAVEL_EINVAL, blk, i, 0, 0, "remat needs exactly one constant and no operand");
}

static void check_edit(vctx *c, uint32_t blk, uint32_t i)
{
    const rv_inst *in = rv_inst_at(c->f, i);
    if (in->op == RAVEL_OP_REMAT) return check_remat(c, blk, i);
    ravel_loc dst = in->u.edit.dst, src = in->u.edit.src;
    char a[32], b[32];
    if (!loc_in_range(c, dst) || !loc_in_range(c, src)) {
        report(c, RAVEL_EFAIL, blk, i, 0, 0, "edit location out of range (%s = %s)", rv_loc_str(c->m, dst, a),
               rv_loc_str(c->m, src, b));
        return;
    }
    bool ds = ravel_loc_is_slot(dst), ss = ravel_loc_is_slot(src);
    if (in->op == RAVEL_OP_MOVE && ds && ss)
        report(c, RAVEL_EFAIL, blk, i, 0, 0, "slot-to-slot move %s = move %s (there is no slot-to-slot move)",
               rv_loc_str(c->m, dst, a), rv_loc_str(c->m, src, b));
    else if ((in->op == RAVEL_OP_SPILL && (!ds || ss)) || (in->op == RAVEL_OP_RELOAD && (ds || !ss)) ||
             (in->op == RAVEL_OP_MOVE && (ds || ss)))
        report(c, RAVEL_EFAIL, blk, i, 0, 0, "%s = %s %s: a %s goes from a %s to a %s", rv_loc_str(c->m, dst, a),
               rv_inst_mnemonic(c->f, in), rv_loc_str(c->m, src, b), rv_inst_mnemonic(c->f, in),
               in->op == RAVEL_OP_RELOAD ? "slot" : "register", in->op == RAVEL_OP_SPILL ? "slot" : "register");
}

/* Successor sk of terminator i. */
static void check_succ(vctx *c, uint32_t blk, uint32_t i, uint32_t sk)
{
    const ravel_func *f = c->f;
    const rv_inst *in = rv_inst_at(f, i);
    const rv_succ *s = &rv_inst_succs(f, in)[sk];
    char a[32], b[32];
    if (s->block >= c->nb) {
        report(c, RAVEL_EINVAL, blk, i, 0, 0, "undefined block %s",
               s->block < f->blocks.len ? rv_block_name(f, s->block) : "?");
        return;
    }
    const rv_block *t = &f->blocks.data[s->block];
    if (s->nargs != t->nparams) {
        report(c, RAVEL_EINVAL, blk, i, 0, 0, "edge %s -> %s passes %u argument%s, but %s has %u parameter%s",
               rv_block_name(f, blk), rv_block_name(f, s->block), s->nargs, s->nargs == 1 ? "" : "s",
               rv_block_name(f, s->block), t->nparams, t->nparams == 1 ? "" : "s");
    }
    for (uint32_t k = 0; k < s->nargs; k++) {
        uint32_t v = rv_succ_args(f, s)[k];
        vpos at = {blk, i, RV_SRC_USE, succ_arg_index(f, in, sk, k)};
        if (!check_vreg(c, v, &at) || k >= t->nparams) continue;
        uint32_t p = rv_block_params(f, t)[k];
        if (p >= f->vregs.len || !f->vregs.data[p].has_class) continue; /* reported with the params */
        const rv_vreg *va = &f->vregs.data[v], *vp = &f->vregs.data[p];
        if (va->cls != vp->cls || va->ref != vp->ref)
            report(c, RAVEL_EINVAL, VPOS_AT(c, &at),
                   "argument %u (%s:%s%s) of edge %s -> %s does not match parameter %s:%s%s", k, vname(c, v, a),
                   class_name(c, v), va->ref ? ".ref" : "", rv_block_name(f, blk), rv_block_name(f, s->block),
                   vname(c, p, b), class_name(c, p), vp->ref ? ".ref" : "");
    }
}

static void check_term_shape(vctx *c, uint32_t blk, uint32_t i)
{
    const rv_inst *in = rv_inst_at(c->f, i);
    uint32_t ns = rv_inst_nsuccs(in);
    if (in->op == RAVEL_OP_JUMP) {
        if (ns != 1) report(c, RAVEL_EINVAL, blk, i, 0, 0, "jump needs exactly one successor, has %u", ns);
        if (in->nuses || in->nimms) report(c, RAVEL_EINVAL, blk, i, 0, 0, "jump takes no operands");
    } else if (in->op == RAVEL_OP_BR) {
        if (ns < 2) report(c, RAVEL_EINVAL, blk, i, 0, 0, "br needs at least two successors, has %u", ns);
        if (in->nimms) report(c, RAVEL_EINVAL, blk, i, 0, 0, "br condition must be a vreg, not an immediate");
        if (in->nuses > 1) report(c, RAVEL_EINVAL, blk, i, 0, 0, "br takes at most one condition, has %u", in->nuses);
    }
    if (in->ndefs) report(c, RAVEL_EINVAL, blk, i, 0, 0, "a terminator has no defs");
    for (uint32_t k = 0; k < ns; k++) check_succ(c, blk, i, k);
}

static void check_inst(vctx *c, uint32_t blk, uint32_t i)
{
    const rv_inst *in = rv_inst_at(c->f, i);
    if (rv_is_edit(in)) {
        check_edit(c, blk, i);
        return;
    }
    check_operands(c, blk, i);
    if (in->op == RAVEL_OP_COPY && (in->ndefs != 1 || in->nuses != 1 || in->nimms))
        report(c, RAVEL_EINVAL, blk, i, 0, 0,
               "copy needs exactly one def and one vreg use (has %u defs, %u vreg uses, %u immediates)", in->ndefs,
               in->nuses, in->nimms);
    if (in->op == RAVEL_OP_UNDEF && !rv_validate_undef_shape(in))
        report(c, RAVEL_EINVAL, blk, i, 0, 0,
               "undef takes exactly one def and nothing else (has %u defs, %u vreg uses, %u immediates%s)", in->ndefs,
               in->nuses, in->nimms, in->flags & (RV_IF_CLOBBERS | RV_IF_SAFEPOINT | RV_IF_STACKMAP) ? ", attributes" : "");
    if (rv_is_term(in)) {
        check_term_shape(c, blk, i);
        return;
    }
    if ((in->flags & RV_IF_STACKMAP) && !(in->flags & RV_IF_SAFEPOINT))
        report(c, RAVEL_EINVAL, blk, i, 0, 0, "stackmap on an instruction that is not a safepoint");
    if (c->allocated && (in->flags & RV_IF_SAFEPOINT) && !(in->flags & RV_IF_STACKMAP))
        report(c, RAVEL_EFAIL, blk, i, 0, 0, "safepoint without a stackmap");
}

static void check_params(vctx *c, uint32_t blk)
{
    const ravel_func *f = c->f;
    const rv_block *bl = &f->blocks.data[blk];
    char b[32];
    if (blk == 0 && bl->nparams)
        report(c, RAVEL_EINVAL, blk, RAVEL_NONE, 0, 0, "the entry block %s has parameters", rv_block_name(f, blk));
    for (uint32_t k = 0; k < bl->nparams; k++) {
        uint32_t p = rv_block_params(f, bl)[k];
        vpos at = {blk, RAVEL_NONE, RV_SRC_DEF, k};
        if (!check_vreg(c, p, &at)) continue;
        if (c->stamp[p] == blk + 1)
            report(c, RAVEL_EINVAL, blk, RAVEL_NONE, 0, 0, "parameter %s listed twice", vname(c, p, b));
        c->stamp[p] = blk + 1;
    }
}

static void check_block(vctx *c, uint32_t blk)
{
    const ravel_func *f = c->f;
    const rv_block *bl = &f->blocks.data[blk];
    check_params(c, blk);
    bool has_term = false;
    for (uint32_t k = 0; k < bl->ninsts; k++) {
        uint32_t i = bl->first_inst + k;
        if (k > 0 && rv_is_term(rv_inst_at(f, i - 1)))
            report(c, RAVEL_EINVAL, blk, i, 0, 0, "instruction after the terminator of block %s", rv_block_name(f, blk));
        has_term |= rv_is_term(rv_inst_at(f, i));
        check_inst(c, blk, i);
    }
    if (has_term) return;
    uint32_t line = bl->end_line, col = bl->end_col;
    if (!line && bl->ninsts) {
        const rv_inst *last = rv_inst_at(f, bl->first_inst + bl->ninsts - 1);
        line = last->line;
        col = last->col;
    }
    /* a last instruction whose mnemonic is a near miss of a terminator (`rte v0`) */
    static const char *const terms[] = {"jump", "br", "ret", NULL};
    const rv_inst *last = bl->ninsts ? rv_inst_at(f, bl->first_inst + bl->ninsts - 1) : NULL;
    const char *mn = last && last->op == RAVEL_OP_OTHER ? rv_inst_mnemonic(f, last) : NULL;
    const char *w = mn ? rv_near_word(mn, strlen(mn), terms) : NULL;
    if (w)
        report(c, RAVEL_EINVAL, blk, RAVEL_NONE, line ? line : bl->line, line ? col : bl->col,
               "block %s has no terminator (is '%s' meant to be '%s'?)", rv_block_name(f, blk), mn, w);
    else
        report(c, RAVEL_EINVAL, blk, RAVEL_NONE, line ? line : bl->line, line ? col : bl->col,
               "block %s has no terminator", rv_block_name(f, blk));
}

/* ---- pass 3: edges ---- */

static const rv_inst *last_term(const ravel_func *f, uint32_t blk)
{
    const rv_inst *t = rv_block_term(f, &f->blocks.data[blk]);
    return t && rv_is_term(t) ? t : NULL;
}

static uint32_t count_edges(const vctx *c, const rv_inst *t)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < rv_inst_nsuccs(t); k++) n += rv_inst_succs(c->f, t)[k].block < c->nb;
    return n;
}

static void check_edges(vctx *c)
{
    const ravel_func *f = c->f;
    uint32_t *npred = rv_xcalloc(c->nb ? c->nb : 1, sizeof *npred);
    for (uint32_t b = 0; b < c->nb; b++) {
        const rv_inst *t = last_term(f, b);
        for (uint32_t k = 0; t && k < rv_inst_nsuccs(t); k++) {
            uint32_t s = rv_inst_succs(f, t)[k].block;
            if (s < c->nb) npred[s]++;
        }
    }
    for (uint32_t b = 0; b < c->nb; b++) {
        const rv_inst *t = last_term(f, b);
        if (!t) continue;
        uint32_t i = (uint32_t)(t - f->insts.data), nsucc = count_edges(c, t);
        bool entry_reported = false;
        for (uint32_t k = 0; k < rv_inst_nsuccs(t); k++) {
            uint32_t s = rv_inst_succs(f, t)[k].block;
            if (s >= c->nb) continue;
            bool seen = false;
            for (uint32_t j = 0; j < k; j++) seen |= rv_inst_succs(f, t)[j].block == s;
            if (seen) continue;
            if (s == 0 && !entry_reported) {
                report(c, RAVEL_EINVAL, b, i, 0, 0, "branch to the entry block %s (the entry has no predecessors)",
                       rv_block_name(f, 0));
                entry_reported = true;
            }
            if (nsucc >= 2 && npred[s] >= 2)
                report(c, RAVEL_EINVAL, b, i, 0, 0, "critical edge %s -> %s (%s has %u successor edges, %s has %u predecessor edges)",
                       rv_block_name(f, b), rv_block_name(f, s), rv_block_name(f, b), nsucc, rv_block_name(f, s),
                       npred[s]);
        }
    }
    rv_free(npred);
}

/* ---- pass 4: dominance (SSA) ---- */

/* A use of v at p, an operand of instruction p->inst of block p->blk (jump
 * arguments: of the terminator); reported once per instruction, at the
 * first such use. */
static void check_dominated(vctx *c, const rv_cfg *g, uint32_t v, const vpos *p)
{
    uint32_t blk = p->blk, i = p->inst;
    if (v >= c->f->vregs.len || c->ndefs[v] != 1 || c->stamp[v] == i + 1) return;
    if (g->rpo_index[blk] == RAVEL_NONE) return; /* unreachable: a definition exists, enough */
    uint32_t db = c->def_block[v], di = c->def_inst[v];
    bool ok = db == blk ? (di == RAVEL_NONE || di < i) : rv_cfg_dominates(g, db, blk);
    if (ok) return;
    char b[32];
    c->stamp[v] = i + 1;
    report(c, RAVEL_EFAIL, VPOS_AT(c, p), "use of %s is not dominated by its definition (in block %s)", vname(c, v, b),
           rv_block_name(c->f, db));
}

static void check_ssa(vctx *c)
{
    const ravel_func *f = c->f;
    rv_cfg g;
    rv_cfg_build(&g, f);
    memset(c->stamp, 0, sizeof(uint32_t) * (f->vregs.len ? f->vregs.len : 1));
    for (uint32_t b = 0; b < c->nb; b++) {
        const rv_block *bl = &f->blocks.data[b];
        for (uint32_t i = bl->first_inst; i < bl->first_inst + bl->ninsts; i++) {
            const rv_inst *in = rv_inst_at(f, i);
            if (rv_is_edit(in)) continue;
            for (uint32_t k = 0; k < in->nuses; k++) {
                vpos at = {b, i, RV_SRC_USE, k};
                check_dominated(c, &g, rv_inst_uses(f, in)[k].vreg, &at);
            }
            for (uint32_t s = 0; s < rv_inst_nsuccs(in); s++) {
                const rv_succ *sc = &rv_inst_succs(f, in)[s];
                for (uint32_t k = 0; k < sc->nargs; k++) {
                    vpos at = {b, i, RV_SRC_USE, succ_arg_index(f, in, s, k)};
                    check_dominated(c, &g, rv_succ_args(f, sc)[k], &at);
                }
            }
        }
    }
    rv_cfg_free(&g);
}

/* ---- output: diagnostics in source order ---- */

typedef struct diag_ref {
    const rv_diag *g;
    uint32_t seq;
} diag_ref;

static int cmp_diag(const void *a, const void *b)
{
    const diag_ref *x = a, *y = b;
    /* positioned ones first, by line then column; ties keep report order */
    uint64_t kx = x->g->line ? ((uint64_t)x->g->line << 32 | x->g->col) : UINT64_MAX;
    uint64_t ky = y->g->line ? ((uint64_t)y->g->line << 32 | y->g->col) : UINT64_MAX;
    if (kx != ky) return kx < ky ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Moves the diagnostics of `from` into `to` sorted by position, honouring
 * to's limit; frees from. */
static void flush_sorted(ravel_diags *from, ravel_diags *to)
{
    uint32_t n = from->v.len;
    diag_ref *refs = rv_xmalloc(sizeof *refs * (n ? n : 1));
    for (uint32_t i = 0; i < n; i++) refs[i] = (diag_ref){&from->v.data[i], i};
    qsort(refs, n, sizeof *refs, cmp_diag);
    for (uint32_t i = 0; i < n; i++) {
        rv_diag g = *refs[i].g;
        if (to && to->v.len < to->max) {
            rv_vec_push(to->v, g);
        } else {
            if (to) to->dropped++;
            rv_free(g.msg);
            rv_free(g.srcline);
        }
    }
    if (to) to->dropped += from->dropped;
    rv_free(refs);
    rv_vec_free(from->v);
    rv_free(from);
}

/* The careful passes 1-4: every error, with its message. */
int rv_validate_careful(const ravel_func *f, unsigned flags, ravel_diags *d)
{
    if (!f || !f->mach) return RAVEL_EINVAL;
    vctx c;
    memset(&c, 0, sizeof c);
    c.f = f;
    c.m = f->mach;
    c.d = ravel_diags_new(); /* sorted into d at the end */
    c.d->max = d ? d->max : 0;
    c.flags = flags;
    c.allocated = rv_func_is_allocated(f);
    c.nb = f->layout.len;
    size_t nv = f->vregs.len ? f->vregs.len : 1;
    c.ndefs = rv_xcalloc(nv, sizeof *c.ndefs);
    c.def_block = rv_xcalloc(nv, sizeof *c.def_block);
    c.def_inst = rv_xcalloc(nv, sizeof *c.def_inst);
    c.reported = rv_xcalloc(nv, 1);
    c.stamp = rv_xcalloc(nv, sizeof *c.stamp);
    if (c.nb == 0) report(&c, RAVEL_EINVAL, RAVEL_NONE, RAVEL_NONE, f->line, f->col, "function has no blocks");
    count_defs(&c);
    for (uint32_t b = 0; b < c.nb; b++) check_block(&c, b);
    check_edges(&c);
    if (flags & RAVEL_VALIDATE_SSA) check_ssa(&c);
    rv_free(c.ndefs);
    rv_free(c.def_block);
    rv_free(c.def_inst);
    rv_free(c.reported);
    rv_free(c.stamp);
    flush_sorted(c.d, d);
    return c.einval ? RAVEL_EINVAL : c.efail ? RAVEL_EFAIL : RAVEL_OK;
}

int ravel_validate(const ravel_func *f, unsigned flags, ravel_diags *d)
{
    if (!f || !f->mach) return RAVEL_EINVAL;
    /* out of memory: d loses what this call added, RAVEL_ENOMEM */
    rv_recover rec;
    bool own = rv_recover_enter(&rec);
    uint64_t volatile mark = rv_diags_mark(d);
    if (own && setjmp(rec.jb)) {
        rv_diags_truncate(d, mark);
        rv_recover_sweep(&rec);
        return RAVEL_ENOMEM;
    }
    int rc = rv_validate_fast(f) ? RAVEL_OK : rv_validate_careful(f, flags, d);
    if (own) rv_recover_leave(&rec);
    return rc;
}
