/* ck_guard_inst.c - the guard's reference (ck_guard.c runs the pass): every
 * check of one instruction (guard_inst) and of a block's head, the only
 * failures and messages of the guard; its scratch and its last checks.
 * Requires nothing of f beyond the builder's guarantees. */
#include "ck_guard.h"

#include <string.h>

/* Records the failure, each cause once per instruction. */
static void greport(guard *g, const rv_inst *in, const char *msg)
{
    const ravel_func *f = g->f;
    g->ok = false;
    if (g->last_msg == msg && g->last_in == in) return;
    g->last_msg = msg;
    g->last_in = in;
    if (in && in->line)
        ck_bad_input(g->rep, "%s:%u:%u: error: %s", f->file ? f->file : "<input>", in->line, in->col, msg);
    else if (in && g->b < f->blocks.len)
        ck_bad_input(g->rep, "%s: error: func %s, block %s, inst %u: %s", f->file ? f->file : "<input>", rv_func_name(f),
                     rv_block_name(f, g->b), (uint32_t)(in - f->insts.data), msg);
    else if (in)
        ck_bad_input(g->rep, "%s: error: func %s, inst %u: %s", f->file ? f->file : "<input>", rv_func_name(f),
                     (uint32_t)(in - f->insts.data), msg);
    else
        ck_bad_input(g->rep, "%s: error: func %s: %s", f->file ? f->file : "<input>", rv_func_name(f), msg);
}

/* A failure that may leave the function's own structure inconsistent
 * (an index out of range, an opcode that does not fit its operands, ...):
 * ravel_validate may not be run on it. Any failure but gsoft's. */
static void gfail(guard *g, const rv_inst *in, const char *msg)
{
    g->broken = true;
    greport(g, in, msg);
}

/* A failure of a function whose structure is otherwise intact, as text
 * gives it (an undefined vreg or block, an empty block): ravel_validate may
 * run on it, for its messages with line and column. */
static void gsoft(guard *g, const rv_inst *in, const char *msg)
{
    greport(g, in, msg);
}

static bool range_ok(uint32_t first, uint32_t n, uint32_t len) { return first <= len && n <= len - first; }

static void note_slot(guard *g, ravel_loc l)
{
    if (ravel_loc_is_slot(l) && ravel_loc_slot(l) <= RAVEL_MAX_SLOT && ravel_loc_slot(l) >= g->maxslot)
        g->maxslot = ravel_loc_slot(l) + 1;
}

/* A definition of v (def) or a read of v: reads of vregs not yet seen
 * defined are checked once every definition is known (ck_gd_finish). */
static void note_vreg(guard *g, uint32_t v, bool def)
{
    ravel_checker *ck = g->ck;
    if (def) {
        ck->guard.gdef[v] |= GV_DEF;
        gn_def(ck, v, g->b);
    } else if (!(ck->guard.gdef[v] & GV_DEF)) {
        rv_vec_push(ck->guard.gpend, v);
    }
}

/* The terminator's shape as ravel_validate wants it; successor classes. */
static void guard_term_shape(guard *g, const rv_inst *in)
{
    const ravel_func *f = g->f;
    uint32_t ns = rv_inst_nsuccs(in);
    if (in->op == RAVEL_OP_JUMP && (ns != 1 || in->nuses || in->nimms)) g->suspect = true;
    if (in->op == RAVEL_OP_BR && (ns < 2 || in->nimms || in->nuses > 1)) g->suspect = true;
    if (in->ndefs) g->suspect = true;
    if (!range_ok(in->u.succ.first, ns, f->succs.len)) return;
    for (uint32_t k = 0; k < ns; k++) {
        const rv_succ *s = &rv_inst_succs(f, in)[k];
        if (s->block >= f->layout.len || s->block >= f->blocks.len || s->nargs != f->blocks.data[s->block].nparams ||
            !range_ok(s->first_arg, s->nargs, f->u32.len))
            continue; /* the guard fails on these */
        const rv_block *t = &f->blocks.data[s->block];
        if (!range_ok(t->first_param, t->nparams, f->u32.len)) continue;
        g->ck->guard.gnpred.data[s->block]++;
        for (uint32_t a = 0; a < s->nargs; a++) {
            uint32_t v = rv_args_of(f, s)[a], p = rv_params_of(f, t)[a];
            if (v >= f->vregs.len || p >= f->vregs.len) continue;
            note_vreg(g, v, false);
            gn_chain(g->ck, v);
            const rv_vreg *va = &f->vregs.data[v], *vp = &f->vregs.data[p];
            if (!va->has_class || (vp->has_class && (va->cls != vp->cls || va->ref != vp->ref))) g->suspect = true;
        }
    }
}

static void guard_operands(guard *g, const rv_inst *in)
{
    const ravel_func *f = g->f;
    const ravel_machine *m = f->mach;
    if (!range_ok(in->first_op, (uint32_t)in->ndefs + in->nuses, f->ops.len) || !range_ok(in->first_imm, in->nimms, f->imms.len)) {
        gfail(g, in, "operand list out of range");
        return;
    }
    const rv_operand *o = rv_ops_of(f, in);
    for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) {
        bool def = k < in->ndefs;
        if (o[k].vreg >= f->vregs.len) { gfail(g, in, "operand vreg out of range"); continue; }
        note_vreg(g, o[k].vreg, def);
        if (!def && in->op == RAVEL_OP_COPY) gn_chain(g->ck, o[k].vreg);
        if (o[k].kind == RAVEL_C_REUSE && def != rv_op_is_def(&o[k])) g->suspect = true;
        if (!f->vregs.data[o[k].vreg].has_class || f->vregs.data[o[k].vreg].cls >= m->classes.len)
            gsoft(g, in, "vreg without a valid class (used but defined nowhere?)");
        if (o[k].kind > RAVEL_C_REUSE) gfail(g, in, "bad constraint");
        if (o[k].kind == RAVEL_C_FIXED && (o[k].arg >= m->regs.len || m->regs.data[o[k].arg].cls != f->vregs.data[o[k].vreg].cls))
            gfail(g, in, "fixed(R) of another class or unknown register");
        if (o[k].kind == RAVEL_C_REUSE &&
            (!def || o[k].arg >= in->nuses ||
             (rv_uses_of(f, in)[o[k].arg].vreg < f->vregs.len && /* else that use fails */
              f->vregs.data[rv_uses_of(f, in)[o[k].arg].vreg].cls != f->vregs.data[o[k].vreg].cls)))
            gfail(g, in, "reuse(K) out of range, on a use, or across classes");
        note_slot(g, o[k].loc);
    }
    if (in->op == RAVEL_OP_COPY && (in->ndefs != 1 || in->nuses != 1))
        gfail(g, in, "copy needs exactly one def and one vreg use");
    if (in->op == RAVEL_OP_COPY && in->nimms) g->suspect = true;
}

/* The explicit clobbers of an op or a remat: in range, registers of the machine. */
static void guard_clobbers(guard *g, const rv_inst *in)
{
    const ravel_func *f = g->f;
    if ((in->flags & RV_IF_CLOBBERS) && !range_ok(in->first_clob, in->nclob, f->u32.len)) gfail(g, in, "clobber list out of range");
    else if (in->flags & RV_IF_CLOBBERS)
        for (uint32_t k = 0; k < in->nclob; k++)
            if (f->u32.data[in->first_clob + k] >= f->mach->regs.len) gfail(g, in, "clobber of an unknown register");
}

static void guard_inst(guard *g, uint32_t b, const rv_inst *in, bool last)
{
    const ravel_func *f = g->f;
    g->b = b;
    if (rv_is_term(in) != last) {
        gfail(g, in, last ? "block does not end with a terminator" : "instruction after a terminator");
        return;
    }
    if (in->op == RAVEL_OP_REMAT) { /* a destination, one K, clobbers (docs/format.md section 14.3) */
        if (in->u.edit.dst == RAVEL_LOC_NONE) gfail(g, in, "remat without a destination");
        if (in->nimms != 1 || !range_ok(in->first_imm, in->nimms, f->imms.len)) gfail(g, in, "remat without its constant");
        guard_clobbers(g, in);
        note_slot(g, in->u.edit.dst);
        return;
    }
    if (rv_is_edit(in)) {
        if (in->u.edit.dst == RAVEL_LOC_NONE || in->u.edit.src == RAVEL_LOC_NONE) gfail(g, in, "edit without locations");
        note_slot(g, in->u.edit.dst);
        note_slot(g, in->u.edit.src);
        return;
    }
    if (in->op >= RAVEL_OP_COUNT_) {
        gfail(g, in, "bad opcode");
        return;
    }
    guard_operands(g, in);
    if (g->ok && rv_is_term(in)) guard_term_shape(g, in);
    else if ((in->flags & RV_IF_STACKMAP) && !(in->flags & RV_IF_SAFEPOINT)) g->suspect = true;
    if (rv_is_term(in)) {
        if (!range_ok(in->u.succ.first, rv_inst_nsuccs(in), f->succs.len)) {
            gfail(g, in, "successor list out of range");
            return;
        }
        for (uint32_t k = 0; k < rv_inst_nsuccs(in); k++) {
            const rv_succ *s = &rv_inst_succs(f, in)[k];
            if (s->block >= f->layout.len) {
                if (s->block >= f->blocks.len) gfail(g, in, "branch to an undefined block");
                else gsoft(g, in, "branch to an undefined block");
                continue;
            }
            if (s->block == 0) gfail(g, in, "branch to the entry block");
            if (s->nargs != f->blocks.data[s->block].nparams) gfail(g, in, "argument count does not match the parameters");
            if (!range_ok(s->first_arg, s->nargs, f->u32.len)) { gfail(g, in, "argument list out of range"); continue; }
            for (uint32_t a = 0; a < s->nargs; a++)
                if (rv_args_of(f, s)[a] >= f->vregs.len) gfail(g, in, "argument vreg out of range");
        }
        return;
    }
    guard_clobbers(g, in);
    if (in->flags & RV_IF_STACKMAP) {
        if (!range_ok(in->u.smap.first, in->u.smap.n, f->u32.len)) gfail(g, in, "stackmap out of range");
        else
            for (uint32_t k = 0; k < in->u.smap.n; k++) {
                uint32_t s = f->u32.data[in->u.smap.first + k];
                if (s > RAVEL_MAX_SLOT) gfail(g, in, "stackmap slot out of range");
                else note_slot(g, ravel_slot(s));
            }
    }
    (void)b;
}

void ck_guard_free(ck_guard_ctx *g)
{
    rv_free(g->gdef);
    rv_free(g->gpar);
    rv_vec_free(g->gpend);
    rv_vec_free(g->gnpred);
    memset(g, 0, sizeof *g);
}

size_t ck_guard_memory(const ck_guard_ctx *g)
{
    return (size_t)g->gvcap * (sizeof *g->gdef + sizeof *g->gpar) + (size_t)g->gpend.cap * sizeof *g->gpend.data +
           (size_t)g->gnpred.cap * sizeof *g->gnpred.data;
}

void ck_facts_free(ck_facts *x)
{
    rv_free(x->gn);
    rv_vec_free(x->bsucc);
    rv_vec_free(x->rtodo);
    memset(x, 0, sizeof *x);
}

size_t ck_facts_memory(const ck_facts *x)
{
    return (size_t)x->gncap * sizeof *x->gn + (size_t)x->bsucc.cap * sizeof *x->bsucc.data +
           (size_t)x->rtodo.cap * sizeof *x->rtodo.data;
}

/* The facts' notes of nvregs vregs: room for them, and a new stamp (so
 * every note of an earlier guard is stale). The grown part's tags are
 * zero, a stamp never taken. */
static void facts_reset_notes(ck_facts *x, uint32_t nvregs)
{
    if (nvregs > x->gncap) {
        uint32_t n = nvregs + nvregs / 2 + 16;
        x->gn = rv_xrealloc(x->gn, (size_t)n * sizeof *x->gn);
        memset(x->gn + x->gncap, 0, (size_t)(n - x->gncap) * sizeof *x->gn);
        x->gncap = n;
    }
    if (++x->gnstamp >= (1u << 29)) { /* stamps are 29 bits: wrap, clear once */
        memset(x->gn, 0, (size_t)x->gncap * sizeof *x->gn);
        x->gnstamp = 1;
    }
}

/* Sizes the guard's scratch for f and sets gdef (requires f->mach). */
static void guard_scratch(guard *g)
{
    ravel_checker *ck = g->ck;
    const ravel_func *f = g->f;
    if (f->vregs.len > ck->guard.gvcap) {
        uint32_t n = f->vregs.len + f->vregs.len / 2 + 16;
        ck->guard.gdef = rv_xrealloc(ck->guard.gdef, (size_t)n * sizeof *ck->guard.gdef);
        ck->guard.gpar = rv_xrealloc(ck->guard.gpar, (size_t)n * sizeof *ck->guard.gpar);
        memset(ck->guard.gdef, 0, (size_t)n * sizeof *ck->guard.gdef);
        memset(ck->guard.gpar, 0, (size_t)n * sizeof *ck->guard.gpar);
        ck->guard.gvcap = n;
    }
    if (ck->guard.grecord) facts_reset_notes(&ck->facts, f->vregs.len);
    if (ck->guard.gstamp > 0xffffffffu - f->layout.len - 2) { /* wrap: clear every mark once */
        memset(ck->guard.gpar, 0, (size_t)ck->guard.gvcap * sizeof *ck->guard.gpar);
        ck->guard.gstamp = 0;
    }
    const rv_vreg *vr = f->vregs.data;
    for (uint32_t v = 0, n = f->vregs.len; v < n; v++) ck->guard.gdef[v] = (uint16_t)(vr[v].has_class ? vr[v].cls : GV_BAD);
    ck->guard.gpend.len = 0;
    rv_vec_reserve(ck->guard.gnpred, f->layout.len);
    ck->guard.gnpred.len = f->layout.len;
    memset(ck->guard.gnpred.data, 0, (size_t)f->layout.len * sizeof *ck->guard.gnpred.data);
}

/* Parameters: a definition each; listed twice in one block is bad input. */
static void guard_params(guard *g, const rv_block *bl)
{
    const ravel_func *f = g->f;
    uint32_t st = ++g->ck->guard.gstamp;
    for (uint32_t p = 0; p < bl->nparams; p++) {
        uint32_t v = rv_params_of(f, bl)[p];
        if (v >= f->vregs.len) continue;
        if (!f->vregs.data[v].has_class || g->ck->guard.gpar[v] == st) g->suspect = true;
        g->ck->guard.gpar[v] = st;
        note_vreg(g, v, true);
        gn_chain(g->ck, v);
    }
}

/* After the walk: vregs read but defined nowhere; critical edges. */
void ck_gd_finish(guard *g)
{
    ravel_checker *ck = g->ck;
    const ravel_func *f = g->f;
    for (uint32_t i = 0; i < ck->guard.gpend.len; i++)
        if (!(ck->guard.gdef[ck->guard.gpend.data[i]] & GV_DEF)) g->suspect = true;
    for (uint32_t b = 0; b < f->layout.len && !g->suspect; b++) {
        ck_list s = ck_succ_list(ck, f, b);
        for (uint32_t k = 0; s.len >= 2 && k < s.len; k++)
            if (ck->guard.gnpred.data[f->succs.data[s.start + k].block] >= 2) g->suspect = true;
    }
}

/* What the fast path leaves to guard_inst (slow) and what the rules must
 * visit; false if the guard failed. */
bool ck_gd_inst_other(guard *g, uint32_t b, const rv_inst *in, bool last, bool slow)
{
    ravel_checker *ck = g->ck;
    if (slow) {
        guard_inst(g, b, in, last);
        if (!g->ok) return false;
    }
    if (ck->guard.grecord) {
        ck->facts.gundef |= in->op == RAVEL_OP_UNDEF; /* (the fast path leaves both here: ck_guard.c, guard_run) */
        ck->facts.gremat |= in->op == RAVEL_OP_REMAT;
        rv_vec_reserve(ck->facts.rtodo, 2);
        ck->facts.rtodo.data[ck->facts.rtodo.len++] = b;
        ck->facts.rtodo.data[ck->facts.rtodo.len++] = (uint32_t)(in - g->f->insts.data);
    }
    return true;
}

/* Block b's own checks and its parameters: 1 if its instructions are to be
 * guarded, 0 if not, -1 if no later block is to be looked at. */
int ck_gd_block_head(guard *g, uint32_t b, const rv_block *bl)
{
    const ravel_func *f = g->f;
    if (f->layout.data[b] != b) {
        gfail(g, NULL, "blocks not finished (call ravel_func_finish)");
        return -1;
    }
    if (!range_ok(bl->first_inst, bl->ninsts, f->insts.len)) {
        gfail(g, NULL, "instruction list out of range");
        return 0;
    }
    if (bl->ninsts == 0) {
        if (bl->end_line || bl->line)
            ck_bad_input(g->rep, "%s:%u: error: block %s has no terminator", f->file ? f->file : "<input>",
                         bl->end_line ? bl->end_line : bl->line, rv_block_name(f, b));
        else /* built through the API: no line */
            ck_bad_input(g->rep, "%s: error: func %s, block %s: block %s has no terminator", f->file ? f->file : "<input>",
                         rv_func_name(f), rv_block_name(f, b), rv_block_name(f, b));
        g->ok = false;
        return 0;
    }
    if (!range_ok(bl->first_param, bl->nparams, f->u32.len)) {
        gfail(g, NULL, "parameter list out of range");
        return 0;
    }
    g->b = b; /* (the parameters' defs are noted in b) */
    if (b == 0 && bl->nparams) gfail(g, NULL, "the entry block has parameters");
    for (uint32_t p = 0; p < bl->nparams; p++)
        if (rv_params_of(f, bl)[p] >= f->vregs.len) gfail(g, NULL, "parameter vreg out of range");
    guard_params(g, bl);
    return g->ok;
}

/* The guard's first checks of f, and its scratch sized for f; false if
 * there is nothing to guard (the failure reported). */
bool ck_gd_begin(guard *g)
{
    const ravel_func *f = g->f;
    if (!f->mach) {
        gfail(g, NULL, "function without a machine");
        return false;
    }
    if (f->layout.len == 0) { /* nothing to guard (and no scratch to size) */
        gfail(g, NULL, "function without blocks");
        return false;
    }
    if (f->blocks.len != f->layout.len) gsoft(g, NULL, "a block is referenced but never defined");
    guard_scratch(g);
    return true;
}
