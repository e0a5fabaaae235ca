/* print.c - the canonical printer (docs/format.md section 11).
 *
 * Requires: a finished function (ravel_func_finish) whose ids are in range.
 * Guarantees: one canonical text per function: print(parse(x)) is a
 * fixpoint and parse(print(f)) is rv_func_equal to f. Canonical choices:
 *   - labels at column 0, instructions and machine lines indented by two
 *     spaces, `end` at column 0;
 *   - the class annotation on every def and block parameter, never on uses
 *     or branch arguments;
 *   - the default constraint `reg` and default positions (early uses, late
 *     defs) are omitted;
 *   - attributes in the order clobbers(...) safepoint stackmap(...), the
 *     clobber list only when explicit; lists are written name by name in
 *     ascending register id / slot number, without ranges;
 *   - immediates in decimal; `b1:` rather than `b1():`;
 *   - `DST = remat K` with K in signed decimal and its clobbers(...) when
 *     not empty (docs/format.md section 14.3);
 *   - the machine: lines in register-id order, one `class` line per class
 *     (allocatable registers in preference order) and one `reserved` line
 *     per run of consecutive reserved registers of a class, then one
 *     `alias R S...` line per register containing others (in order of
 *     first appearance; the contained ones by id), `clobbers` (if not
 *     empty) and `gc nonmoving` (if so).
 * Returns 0, or RAVEL_EFAIL if the stream reports a write error. */
#include "ir.h"

#include <string.h>

/* Lines are built in a buffer and written in large pieces: printing the
 * text of a function is on the path of the parse fuzz target and of every
 * reproducer, and stdio's per-call costs (vfprintf, locking) were a third
 * of that target's time. Integers are formatted by hand and names are
 * copied with their known lengths; no line goes through printf. */
typedef struct pbuf {
    FILE *out;
    size_t n;
    char b[4096];
} pbuf;

static void pb_flush(pbuf *p)
{
    if (p->n) fwrite(p->b, 1, p->n, p->out);
    p->n = 0;
}

static void pb_mem(pbuf *p, const char *s, size_t len)
{
    if (len > sizeof p->b - p->n) {
        pb_flush(p);
        if (len > sizeof p->b) {
            fwrite(s, 1, len, p->out);
            return;
        }
    }
    memcpy(p->b + p->n, s, len);
    p->n += len;
}

static void pb_str(pbuf *p, const char *s) { pb_mem(p, s, strlen(s)); }

static void pb_chr(pbuf *p, char c)
{
    if (p->n == sizeof p->b) pb_flush(p);
    p->b[p->n++] = c;
}

/* A symbol of f (a block's name, a mnemonic, a callee), its length known. */
static void pb_sym(pbuf *p, const ravel_func *f, uint32_t sym)
{
    pb_mem(p, rv_sym_str(&f->syms, sym), f->syms.lens.data[sym]);
}

/* Decimal, by hand, straight into the buffer. */
static void pb_u64(pbuf *p, unsigned long long v)
{
    if (sizeof p->b - p->n < 20) pb_flush(p);
    char t[20], *d = p->b + p->n;
    size_t i = sizeof t;
    do t[--i] = (char)('0' + v % 10);
    while (v /= 10);
    memcpy(d, t + i, sizeof t - i);
    p->n += sizeof t - i;
}

static void pb_i64(pbuf *p, long long v)
{
    if (v < 0) {
        pb_chr(p, '-');
        pb_u64(p, 0ull - (unsigned long long)v);
    } else {
        pb_u64(p, (unsigned long long)v);
    }
}

/* vN */
static void pb_vreg(pbuf *p, const ravel_func *f, uint32_t vreg)
{
    pb_chr(p, 'v');
    pb_u64(p, f->vregs.data[vreg].num);
}

static void print_loc(pbuf *p, const ravel_machine *m, ravel_loc l)
{
    char buf[32];
    if (ravel_loc_is_slot(l)) { /* sN, as rv_loc_str writes it */
        pb_chr(p, 's');
        pb_u64(p, ravel_loc_slot(l));
        return;
    }
    pb_str(p, rv_loc_str(m, l, buf));
}

static const char *class_name(const ravel_machine *m, uint32_t cls)
{
    return cls < m->classes.len ? m->classes.data[cls].name : "?";
}

static void print_vreg_class(pbuf *p, const ravel_func *f, uint32_t vreg)
{
    const rv_vreg *v = &f->vregs.data[vreg];
    pb_vreg(p, f, vreg);
    if (v->has_class) {
        pb_chr(p, ':');
        pb_str(p, class_name(f->mach, v->cls));
        if (v->ref) pb_mem(p, ".ref", 4);
    }
}

/* [early|late] vN[:CLASS[.ref]] [any|stack|fixed(R)|reuse(K)] [@LOC] */
static void print_operand(pbuf *p, const ravel_func *f, const rv_operand *o)
{
    bool def = rv_op_is_def(o);
    if (def && !rv_op_is_late(o)) pb_str(p, "early ");
    if (!def && rv_op_is_late(o)) pb_str(p, "late ");
    if (def) print_vreg_class(p, f, o->vreg);
    else pb_vreg(p, f, o->vreg);
    switch (o->kind) {
    case RAVEL_C_ANY: pb_str(p, " any"); break;
    case RAVEL_C_STACK: pb_str(p, " stack"); break;
    case RAVEL_C_FIXED: pb_str(p, " fixed("); print_loc(p, f->mach, o->arg); pb_chr(p, ')'); break;
    case RAVEL_C_REUSE: pb_str(p, " reuse("); pb_u64(p, o->arg); pb_chr(p, ')'); break;
    default: break;
    }
    if (o->loc != RAVEL_LOC_NONE) {
        pb_str(p, " @");
        print_loc(p, f->mach, o->loc);
    }
}

/* Uses and immediates, interleaved by position, comma-separated. */
static void print_uses(pbuf *p, const ravel_func *f, const rv_inst *in)
{
    /* (no pointer arithmetic on empty, possibly NULL, arrays) */
    const rv_operand *uses = rv_uses_of(f, in);
    const rv_imm *imms = in->nimms ? &f->imms.data[in->first_imm] : NULL;
    uint32_t u = 0, k = 0, n = (uint32_t)in->nuses + in->nimms;
    for (uint32_t pos = 0; pos < n; pos++) {
        pb_mem(p, pos ? ", " : " ", pos ? 2 : 1);
        if (k < in->nimms && (imms[k].pos == pos || u >= in->nuses))
            pb_i64(p, (long long)imms[k++].value);
        else
            print_operand(p, f, &uses[u++]);
    }
}

static void print_list(pbuf *p, const ravel_func *f, const char *name, uint32_t first, uint32_t n, bool slots)
{
    pb_chr(p, ' ');
    pb_str(p, name);
    pb_chr(p, '(');
    for (uint32_t i = 0; i < n; i++) {
        if (i) pb_chr(p, ' ');
        uint32_t x = f->u32.data[first + i];
        print_loc(p, f->mach, slots ? ravel_slot(x) : x);
    }
    pb_chr(p, ')');
}

static void print_term(pbuf *p, const ravel_func *f, const rv_inst *in)
{
    pb_str(p, rv_opcode_name((ravel_opcode)in->op));
    if (in->op == RAVEL_OP_RET) {
        print_uses(p, f, in);
        return;
    }
    if (in->nuses) {
        pb_chr(p, ' ');
        print_operand(p, f, rv_inst_uses(f, in));
        pb_chr(p, ',');
    }
    for (uint32_t k = 0; k < rv_inst_nsuccs(in); k++) {
        const rv_succ *s = &rv_inst_succs(f, in)[k];
        pb_mem(p, k ? ", " : " ", k ? 2 : 1);
        pb_sym(p, f, f->blocks.data[s->block].name);
        if (!s->nargs) continue;
        pb_chr(p, '(');
        for (uint32_t a = 0; a < s->nargs; a++) {
            if (a) pb_str(p, ", ");
            pb_vreg(p, f, rv_succ_args(f, s)[a]);
        }
        pb_chr(p, ')');
    }
}

static void print_inst(pbuf *p, const ravel_func *f, const rv_inst *in)
{
    pb_mem(p, "  ", 2);
    if (in->op == RAVEL_OP_REMAT) {
        print_loc(p, f->mach, in->u.edit.dst);
        pb_str(p, " = remat ");
        pb_i64(p, in->nimms ? (long long)rv_remat_k(f, in) : 0);
        if (in->flags & RV_IF_CLOBBERS) print_list(p, f, "clobbers", in->first_clob, in->nclob, false);
    } else if (rv_is_edit(in)) {
        print_loc(p, f->mach, in->u.edit.dst);
        pb_str(p, " = ");
        pb_str(p, rv_opcode_name((ravel_opcode)in->op));
        pb_chr(p, ' ');
        print_loc(p, f->mach, in->u.edit.src);
    } else if (rv_is_term(in)) {
        print_term(p, f, in);
    } else {
        for (uint32_t k = 0; k < in->ndefs; k++) {
            if (k) pb_str(p, ", ");
            print_operand(p, f, &rv_inst_defs(f, in)[k]);
        }
        if (in->ndefs) pb_mem(p, " = ", 3);
        if (in->op == RAVEL_OP_CALL) {
            pb_mem(p, "call ", 5);
            if (in->name != RAVEL_NONE) pb_sym(p, f, in->name);
            else pb_chr(p, '?');
        } else if (in->op == RAVEL_OP_OTHER && in->name != RAVEL_NONE) {
            pb_sym(p, f, in->name);
        } else {
            pb_str(p, rv_inst_mnemonic(f, in));
        }
        print_uses(p, f, in);
        if (in->flags & RV_IF_CLOBBERS) print_list(p, f, "clobbers", in->first_clob, in->nclob, false);
        if (in->flags & RV_IF_SAFEPOINT) pb_str(p, " safepoint");
        if (in->flags & RV_IF_STACKMAP) print_list(p, f, "stackmap", in->u.smap.first, in->u.smap.n, true);
    }
    pb_chr(p, '\n');
}

int ravel_print_func(FILE *out, const ravel_func *f)
{
    if (!out || !f || !f->mach) return RAVEL_EINVAL;
    pbuf pb, *p = &pb;
    p->out = out;
    p->n = 0;
    pb_str(p, "func ");
    pb_str(p, rv_func_name(f));
    pb_chr(p, '\n');
    for (uint32_t li = 0; li < f->layout.len; li++) {
        uint32_t b = f->layout.data[li];
        const rv_block *blk = &f->blocks.data[b];
        pb_sym(p, f, blk->name);
        if (blk->nparams) {
            pb_chr(p, '(');
            for (uint32_t k = 0; k < blk->nparams; k++) {
                if (k) pb_str(p, ", ");
                print_vreg_class(p, f, rv_block_params(f, blk)[k]);
            }
            pb_chr(p, ')');
        }
        pb_str(p, ":\n");
        for (uint32_t k = 0; k < blk->ninsts; k++) print_inst(p, f, &f->insts.data[blk->first_inst + k]);
    }
    pb_str(p, "end\n");
    pb_flush(p);
    return ferror(out) ? RAVEL_EFAIL : RAVEL_OK;
}

/* One `class` line when the first allocatable register of a class comes up
 * in id order; one `reserved` line per run of consecutive reserved
 * registers of one class. For a machine read from text this reproduces
 * every register id. */
/* " NAME" of register r. */
static void pb_reg(pbuf *p, const ravel_machine *m, uint32_t r)
{
    pb_chr(p, ' ');
    pb_str(p, m->regs.data[r].name);
}

int ravel_print_machine(FILE *out, const ravel_machine *m)
{
    if (!out || !m) return RAVEL_EINVAL;
    pbuf pb, *p = &pb;
    p->out = out;
    p->n = 0;
    pb_str(p, "machine\n");
    for (uint32_t r = 0; r < m->regs.len;) {
        const rv_reg *g = &m->regs.data[r];
        if (!g->reserved) {
            const rv_class *c = &m->classes.data[g->cls];
            if (c->alloc.len && c->alloc.data[0] == r) {
                pb_str(p, "  class ");
                pb_str(p, c->name);
                for (uint32_t i = 0; i < c->alloc.len; i++) pb_reg(p, m, c->alloc.data[i]);
                pb_chr(p, '\n');
            }
            r++;
            continue;
        }
        pb_str(p, "  reserved ");
        pb_str(p, class_name(m, g->cls));
        uint32_t cls = g->cls;
        for (; r < m->regs.len && m->regs.data[r].reserved && m->regs.data[r].cls == cls; r++) pb_reg(p, m, r);
        pb_chr(p, '\n');
    }
    /* classes without allocatable registers (only possible through the C
     * API) are printed for completeness; the reader rejects them */
    for (uint32_t c = 0; c < m->classes.len; c++)
        if (!m->classes.data[c].alloc.len) {
            pb_str(p, "  class ");
            pb_str(p, m->classes.data[c].name);
            pb_chr(p, '\n');
        }
    for (uint32_t i = 0; i < m->alias_order.len; i++) {
        uint32_t r = m->alias_order.data[i];
        const uint32_t *in;
        uint32_t n = rv_mach_contained(m, r, &in);
        pb_str(p, "  alias");
        pb_reg(p, m, r);
        for (uint32_t k = 0; k < n; k++) pb_reg(p, m, in[k]);
        pb_chr(p, '\n');
    }
    if (m->clobbers.len) {
        pb_str(p, "  clobbers");
        for (uint32_t i = 0; i < m->clobbers.len; i++) pb_reg(p, m, m->clobbers.data[i]);
        pb_chr(p, '\n');
    }
    if (m->gc_nonmoving) pb_str(p, "  gc nonmoving\n");
    pb_str(p, "end\n");
    pb_flush(p);
    return ferror(out) ? RAVEL_EFAIL : RAVEL_OK;
}

int rv_print_module(FILE *out, const ravel_module *mod)
{
    int rc = ravel_print_machine(out, mod->mach);
    for (uint32_t i = 0; i < mod->funcs.len; i++) {
        fputc('\n', out);
        if (ravel_print_func(out, mod->funcs.data[i])) rc = RAVEL_EFAIL;
    }
    return rc;
}
