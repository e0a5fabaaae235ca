/* print.c - the canonical printer (docs/format.md "Canonical form").
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
 *   - the machine: lines in register-id order, one `class` line per class
 *     (allocatable registers in preference order) and one `reserved` line
 *     per run of consecutive reserved registers of a class, then
 *     `clobbers` (if not empty) and `gc nonmoving` (if so).
 * Returns 0, or RAVEL_EFAIL if the stream reports a write error. */
#include "ir.h"

static void print_loc(FILE *out, const ravel_machine *m, ravel_loc l)
{
    char buf[32];
    fputs(rv_loc_str(m, l, buf), out);
}

static const char *class_name(const ravel_machine *m, uint32_t cls)
{
    return cls < m->classes.len ? m->classes.data[cls].name : "?";
}

static void print_vreg_class(FILE *out, const ravel_func *f, uint32_t vreg)
{
    const rv_vreg *v = &f->vregs.data[vreg];
    fprintf(out, "v%u", v->num);
    if (v->has_class) fprintf(out, ":%s%s", class_name(f->mach, v->cls), v->ref ? ".ref" : "");
}

/* [early|late] vN[:CLASS[.ref]] [any|stack|fixed(R)|reuse(K)] [@LOC] */
static void print_operand(FILE *out, const ravel_func *f, const rv_operand *o)
{
    bool def = rv_op_is_def(o);
    if (def && !rv_op_is_late(o)) fputs("early ", out);
    if (!def && rv_op_is_late(o)) fputs("late ", out);
    if (def) print_vreg_class(out, f, o->vreg);
    else fprintf(out, "v%u", f->vregs.data[o->vreg].num);
    switch (o->kind) {
    case RAVEL_C_ANY: fputs(" any", out); break;
    case RAVEL_C_STACK: fputs(" stack", out); break;
    case RAVEL_C_FIXED: fputs(" fixed(", out); print_loc(out, f->mach, o->arg); fputc(')', out); break;
    case RAVEL_C_REUSE: fprintf(out, " reuse(%u)", o->arg); break;
    default: break;
    }
    if (o->loc != RAVEL_LOC_NONE) {
        fputs(" @", out);
        print_loc(out, f->mach, o->loc);
    }
}

/* Uses and immediates, interleaved by position, comma-separated. */
static void print_uses(FILE *out, const ravel_func *f, const rv_inst *in)
{
    /* (no pointer arithmetic on empty, possibly NULL, arrays) */
    const rv_operand *uses = in->nuses ? rv_inst_uses(f, in) : NULL;
    const rv_imm *imms = in->nimms ? &f->imms.data[in->first_imm] : NULL;
    uint32_t u = 0, k = 0, n = (uint32_t)in->nuses + in->nimms;
    for (uint32_t pos = 0; pos < n; pos++) {
        fputs(pos ? ", " : " ", out);
        if (k < in->nimms && (imms[k].pos == pos || u >= in->nuses))
            fprintf(out, "%lld", (long long)imms[k++].value);
        else
            print_operand(out, f, &uses[u++]);
    }
}

static void print_list(FILE *out, const ravel_func *f, const char *name, uint32_t first, uint32_t n, bool slots)
{
    fprintf(out, " %s(", name);
    for (uint32_t i = 0; i < n; i++) {
        if (i) fputc(' ', out);
        uint32_t x = f->u32.data[first + i];
        print_loc(out, f->mach, slots ? ravel_slot(x) : x);
    }
    fputc(')', out);
}

static void print_term(FILE *out, const ravel_func *f, const rv_inst *in)
{
    fputs(rv_opcode_name((ravel_opcode)in->op), out);
    if (in->op == RAVEL_OP_RET) {
        print_uses(out, f, in);
        return;
    }
    if (in->nuses) {
        fputc(' ', out);
        print_operand(out, f, rv_inst_uses(f, in));
        fputc(',', out);
    }
    for (uint32_t k = 0; k < rv_inst_nsuccs(in); k++) {
        const rv_succ *s = &rv_inst_succs(f, in)[k];
        fprintf(out, "%s %s", k ? "," : "", rv_block_name(f, s->block));
        if (!s->nargs) continue;
        fputc('(', out);
        for (uint32_t a = 0; a < s->nargs; a++)
            fprintf(out, "%sv%u", a ? ", " : "", f->vregs.data[rv_succ_args(f, s)[a]].num);
        fputc(')', out);
    }
}

static void print_inst(FILE *out, const ravel_func *f, const rv_inst *in)
{
    fputs("  ", out);
    if (rv_is_edit(in)) {
        print_loc(out, f->mach, in->u.edit.dst);
        fprintf(out, " = %s ", rv_opcode_name((ravel_opcode)in->op));
        print_loc(out, f->mach, in->u.edit.src);
    } else if (rv_is_term(in)) {
        print_term(out, f, in);
    } else {
        for (uint32_t k = 0; k < in->ndefs; k++) {
            if (k) fputs(", ", out);
            print_operand(out, f, &rv_inst_defs(f, in)[k]);
        }
        if (in->ndefs) fputs(" = ", out);
        if (in->op == RAVEL_OP_CALL) fprintf(out, "call %s", in->name != RAVEL_NONE ? rv_sym_str(&f->syms, in->name) : "?");
        else fputs(rv_inst_mnemonic(f, in), out);
        print_uses(out, f, in);
        if (in->flags & RV_IF_CLOBBERS) print_list(out, f, "clobbers", in->first_clob, in->nclob, false);
        if (in->flags & RV_IF_SAFEPOINT) fputs(" safepoint", out);
        if (in->flags & RV_IF_STACKMAP) print_list(out, f, "stackmap", in->u.smap.first, in->u.smap.n, true);
    }
    fputc('\n', out);
}

int ravel_print_func(FILE *out, const ravel_func *f)
{
    fprintf(out, "func %s\n", rv_func_name(f));
    for (uint32_t li = 0; li < f->layout.len; li++) {
        uint32_t b = f->layout.data[li];
        const rv_block *blk = &f->blocks.data[b];
        fputs(rv_block_name(f, b), out);
        if (blk->nparams) {
            fputc('(', out);
            for (uint32_t p = 0; p < blk->nparams; p++) {
                if (p) fputs(", ", out);
                print_vreg_class(out, f, rv_block_params(f, blk)[p]);
            }
            fputc(')', out);
        }
        fputs(":\n", out);
        for (uint32_t k = 0; k < blk->ninsts; k++) print_inst(out, f, &f->insts.data[blk->first_inst + k]);
    }
    fputs("end\n", out);
    return ferror(out) ? RAVEL_EFAIL : RAVEL_OK;
}

/* One `class` line when the first allocatable register of a class comes up
 * in id order; one `reserved` line per run of consecutive reserved
 * registers of one class. For a machine read from text this reproduces
 * every register id. */
int ravel_print_machine(FILE *out, const ravel_machine *m)
{
    fputs("machine\n", out);
    for (uint32_t r = 0; r < m->regs.len;) {
        const rv_reg *g = &m->regs.data[r];
        if (!g->reserved) {
            const rv_class *c = &m->classes.data[g->cls];
            if (c->alloc.len && c->alloc.data[0] == r) {
                fprintf(out, "  class %s", c->name);
                for (uint32_t i = 0; i < c->alloc.len; i++) fprintf(out, " %s", m->regs.data[c->alloc.data[i]].name);
                fputc('\n', out);
            }
            r++;
            continue;
        }
        fprintf(out, "  reserved %s", class_name(m, g->cls));
        uint32_t cls = g->cls;
        for (; r < m->regs.len && m->regs.data[r].reserved && m->regs.data[r].cls == cls; r++)
            fprintf(out, " %s", m->regs.data[r].name);
        fputc('\n', out);
    }
    /* classes without allocatable registers (only possible through the C
     * API) are printed for completeness; the reader rejects them */
    for (uint32_t c = 0; c < m->classes.len; c++)
        if (!m->classes.data[c].alloc.len) fprintf(out, "  class %s\n", m->classes.data[c].name);
    if (m->clobbers.len) {
        fputs("  clobbers", out);
        for (uint32_t i = 0; i < m->clobbers.len; i++) fprintf(out, " %s", m->regs.data[m->clobbers.data[i]].name);
        fputc('\n', out);
    }
    if (m->gc_nonmoving) fputs("  gc nonmoving\n", out);
    fputs("end\n", out);
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
