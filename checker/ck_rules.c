/* ck_rules.c - what does not depend on values: the structural guard (bad
 * input that would make the analysis unsafe -> RAVEL_EINVAL), the
 * per-operand constraint and structure rules of docs/format.md section 6, and the
 * match against the unallocated function (--orig).
 * The guard requires nothing of f beyond the builder's guarantees; the
 * rules and the match require the guard. The guard also flags (*suspect)
 * every condition under which ravel_validate (without SSA) may answer
 * RAVEL_EINVAL - a superset, checked in the same O(function) pass - so
 * ravel_check runs the full validator only for suspect input (to give its
 * verdict and its messages) and the verdicts stay those of the validator.
 * The guard of the allocated function and the rules' operand scan are one
 * pass: the guard lists the instructions on which a rule may fire
 * (ck->facts.rtodo) and ck_rules visits only those. */
#include "ck.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- guard ---- */

typedef struct guard {
    ravel_checker *ck;
    const ravel_func *f;
    ravel_report *rep;
    uint32_t maxslot; /* 1 + highest slot number seen */
    uint32_t b;       /* the block being guarded (for gn_def) */
    bool ok;
    bool suspect;     /* ravel_validate may say EINVAL (a superset of its conditions) */
    bool broken;      /* an index out of range, blocks not finished, ...: unsafe for ravel_validate */
    const rv_inst *last_in; /* the last failure, so that a cause repeated on */
    const char *last_msg;   /* every operand of one instruction is said once */
} guard;

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

/* ck->guard.gdef, per vreg of the function guarded: its class (GV_BAD: none; the
 * class may be one the machine does not have: only rk says which exist),
 * | GV_DEF once a definition of it has been seen. Rewritten for every
 * function (guard_scratch). */
#define GV_BAD 0xffu
#define GV_DEF 0x100u

/* For the value-numbering verdict (ck_vn.c), the allocated function's guard notes per
 * vreg whether it is defined, defined again (also when guard_plain_any
 * and guard_inst both look at one instruction, which is rare: that only
 * chains one more vreg and has build_m scan; plain_ops giving up tells
 * guard_plain_any which defs it noted, ck->guard.gnfast, and those are noted
 * again with `again`), where, and whether it is a parameter, a branch
 * argument or a copy source. Every path through the guard notes them, so
 * compute_need needs no pass of its own over the instructions. */
static inline void gn_note_def(ravel_checker *ck, uint32_t v, uint32_t b, bool again) /* grecord */
{
    ck_gn *n = &ck->facts.gn[v];
    uint32_t st = ck->facts.gnstamp << 3, fl = (n->tag & ~7u) == st ? n->tag & 7u : 0;
    if ((fl & GN_DEF) && !again) fl |= GN_MULTI;
    *n = (ck_gn){st | fl | GN_DEF, b};
}

static inline void gn_def_rec(ravel_checker *ck, uint32_t v, uint32_t b) { gn_note_def(ck, v, b, false); }

static inline void gn_def(ravel_checker *ck, uint32_t v, uint32_t b)
{
    if (ck->guard.grecord) gn_def_rec(ck, v, b);
}

static inline void gn_chain(ravel_checker *ck, uint32_t v)
{
    if (!ck->guard.grecord) return;
    ck_gn *n = &ck->facts.gn[v];
    uint32_t st = ck->facts.gnstamp << 3;
    n->tag = (n->tag & ~7u) == st ? n->tag | GN_CHAIN : st | GN_CHAIN;
}

/* A definition of v (def) or a read of v: reads of vregs not yet seen
 * defined are checked once every definition is known (guard_finish). */
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
            uint32_t v = ck_args(f, s)[a], p = ck_params(f, t)[a];
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
    const rv_operand *o = ck_ops(f, in);
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
             (ck_uses(f, in)[o[k].arg].vreg < f->vregs.len && /* else that use fails */
              f->vregs.data[ck_uses(f, in)[o[k].arg].vreg].cls != f->vregs.data[o[k].vreg].cls)))
            gfail(g, in, "reuse(K) out of range, on a use, or across classes");
        note_slot(g, o[k].loc);
    }
    if (in->op == RAVEL_OP_COPY && (in->ndefs != 1 || in->nuses != 1))
        gfail(g, in, "copy needs exactly one def and one vreg use");
    if (in->op == RAVEL_OP_COPY && in->nimms) g->suspect = true;
}

static void guard_inst(guard *g, uint32_t b, const rv_inst *in, bool last)
{
    const ravel_func *f = g->f;
    g->b = b;
    if (rv_is_term(in) != last) {
        gfail(g, in, last ? "block does not end with a terminator" : "instruction after a terminator");
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
                if (ck_args(f, s)[a] >= f->vregs.len) gfail(g, in, "argument vreg out of range");
        }
        return;
    }
    if ((in->flags & RV_IF_CLOBBERS) && !range_ok(in->first_clob, in->nclob, f->u32.len)) gfail(g, in, "clobber list out of range");
    else if (in->flags & RV_IF_CLOBBERS)
        for (uint32_t k = 0; k < in->nclob; k++)
            if (f->u32.data[in->first_clob + k] >= f->mach->regs.len) gfail(g, in, "clobber of an unknown register");
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
    rv_vec_free(g->gwdef);
    memset(g, 0, sizeof *g);
}

size_t ck_guard_memory(const ck_guard_ctx *g)
{
    return (size_t)g->gvcap * (sizeof *g->gdef + sizeof *g->gpar) + (size_t)g->gpend.cap * sizeof *g->gpend.data +
           (size_t)g->gnpred.cap * sizeof *g->gnpred.data + (size_t)g->gwdef.cap * sizeof *g->gwdef.data;
}

void ck_facts_free(ck_facts *x)
{
    rv_free(x->gn);
    rv_vec_free(x->bsucc);
    rv_vec_free(x->rtodo);
    rv_vec_free(x->gw);
    rv_vec_free(x->gwslot);
    memset(x, 0, sizeof *x);
}

size_t ck_facts_memory(const ck_facts *x)
{
    return (size_t)x->gncap * sizeof *x->gn + (size_t)x->bsucc.cap * sizeof *x->bsucc.data +
           (size_t)x->rtodo.cap * sizeof *x->rtodo.data + (size_t)x->gw.cap * sizeof *x->gw.data +
           (size_t)x->gwslot.cap * sizeof *x->gwslot.data;
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
        uint32_t v = ck_params(f, bl)[p];
        if (v >= f->vregs.len) continue;
        if (!f->vregs.data[v].has_class || g->ck->guard.gpar[v] == st) g->suspect = true;
        g->ck->guard.gpar[v] = st;
        note_vreg(g, v, true);
        gn_chain(g->ck, v);
    }
}

/* After the walk: vregs read but defined nowhere; critical edges. */
static void guard_finish(guard *g)
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

/* ---- the guard's fast path, fused with the rules' operand scan ----
 * Most instructions are edits or plain operations whose operands sit in
 * registers or slots of the right kind. For those the guard does its work
 * and at the same time decides whether the instruction is *clean*: no rule
 * of rule_edit, rule_operand, rule_overlap or the stackmap rule can fire on
 * it. Clean instructions are not visited again; the others go to ck->facts.rtodo
 * (when ck->guard.grecord), and ck_rules runs on that list only.
 * Three levels, each handing what it does not know to the next (which
 * repeats the work: definitions, reads, slots and suspicion are
 * idempotent, and nothing fails before the last level):
 *   guard_insts     the loop; usual edits inline
 *   guard_plain     a usual operation (a leaf, so that it keeps everything
 *                   in registers): every operand a register of its class
 *                   that its constraint allows, or any/stack in a slot
 *   guard_plain_any any operation: every kind, attributes, overlaps
 *   guard_inst      everything (the guard's reference; its failures and
 *                   messages are the only ones)
 * Locations: the guard notes every slot the function names (maxslot), so
 * for the function guarded a slot location exists (ck_li != CK_NIL once
 * nlocs is set) iff its number is <= RAVEL_MAX_SLOT (slot_ok), and a
 * register location iff it is < nregs. CK_OPT_NO_FAST_GUARD turns the
 * fast path off (tests compare). */

/* What the fast path of one instruction found: G_SLOW (guard_inst must
 * look), G_ANY (guard_plain_any must look), G_UNCLEAN (the guard's work is
 * done, a rule may fire) or G_CLEAN (done, no rule can fire); with
 * G_SUSPECT set when ravel_validate may reject the function, and above
 * G_SLOTS, 1 + the highest slot number the instruction names (0: none). */
enum { G_SLOW = 0, G_UNCLEAN = 1, G_CLEAN = 2, G_ANY = 3, G_STATUS = 3, G_SUSPECT = 4, G_SLOTS = 3 };

/* rk: per register its class, | RK_RESERVED if reserved; RK_BAD for a
 * class the machine does not have and past its registers. */
#define RK_RESERVED 0x100u
#define RK_BAD 0xffffu /* all bytes 0xff (memset); never a class, with or without RK_RESERVED */

/* The fast path's view of one function. */
typedef struct gfast {
    const rv_inst *insts; /* the function's, for instruction indices */
    const rv_operand *ops;
    const rv_vreg *vregs;
    const uint32_t *u32;
    uint16_t *gdef;
    ravel_checker *ck;
    guard *g;
    uint32_t b; /* the block being guarded */
    uint32_t nops, nimms, nvregs, nregs, ncls, nu32;
    bool record; /* the allocated function's guard (ck->guard.grecord): notes for compute_need and the rules */
    bool noloc;  /* the original function's guard: an operand without a location is usual */
    uint16_t rk[RV_MAX_REGS]; /* see RK_* */
} gfast;

/* Slot location l names a slot the guard accepts (also: not RAVEL_LOC_NONE). */
static inline bool slot_ok(ravel_loc l) { return l - RAVEL_SLOT_BIT <= RAVEL_MAX_SLOT; }

/* 1 + the slot number of l if it is a slot the guard accepts, else 0. */
static inline uint32_t slot_end(ravel_loc l) { return slot_ok(l) ? l - RAVEL_SLOT_BIT + 1 : 0; }

static inline uint32_t max_u32(uint32_t a, uint32_t b) { return a > b ? a : b; }

/* Register l may hold a value of class cls without fixed(R): rk covers
 * RV_MAX_REGS registers (RK_BAD past the machine's), and rk[l] == cls
 * implies that cls is a valid class. */
static inline bool reg_fits(const uint16_t *rk, ravel_loc l, uint32_t cls) { return l < RV_MAX_REGS && rk[l] == cls; }

/* The usual operand: a register of its vreg's class that its constraint
 * allows without looking further (reg or any: not reserved; fixed: the
 * register named). */
static inline bool op_usual(const uint16_t *rk, const rv_operand *op, uint32_t cls)
{
    ravel_loc l = op->loc;
    if (op->kind <= RAVEL_C_ANY) return reg_fits(rk, l, cls);
    return op->kind == RAVEL_C_FIXED && l == op->arg && l < RV_MAX_REGS && (rk[l] & ~RK_RESERVED) == cls;
}

/* Any other operand op (a def if isdef; uses[0..nuses) the instruction's
 * uses) of vreg class cls: G_SLOW when some check of guard_operands may
 * fail on it; else G_CLEAN if operand_clean holds, else G_UNCLEAN, with
 * its slot (G_SLOTS). */
static uint32_t op_other(const gfast *x, const rv_operand *op, const rv_operand *uses, uint32_t nuses, bool isdef, uint32_t cls)
{
    ravel_loc l = op->loc;
    bool c;
    if (cls >= x->ncls) return G_SLOW;
    switch (op->kind) {
    case RAVEL_C_REG: c = reg_fits(x->rk, l, cls); break;
    case RAVEL_C_ANY: c = reg_fits(x->rk, l, cls) || slot_ok(l); break;
    case RAVEL_C_STACK: c = slot_ok(l); break;
    case RAVEL_C_FIXED:
        if (op->arg >= x->nregs || (x->rk[op->arg] & ~RK_RESERVED) != cls) return G_SLOW;
        c = l == op->arg;
        break;
    case RAVEL_C_REUSE: {
        if (!isdef || !(op->flags & RV_OPF_DEF) || op->arg >= nuses) return G_SLOW;
        const rv_operand *u = &uses[op->arg];
        if (u->vreg >= x->nvregs || x->vregs[u->vreg].cls != cls) return G_SLOW;
        c = reg_fits(x->rk, l, cls) && u->loc == l;
        break;
    }
    default: return G_SLOW;
    }
    return (c ? G_CLEAN : G_UNCLEAN) | slot_end(l) << G_SLOTS;
}

/* The rarer parts of a plain instruction: a copy's shape, and the
 * attributes (guard_inst's checks after the operands), in the form of
 * guard_plain's result (a safepoint without a stackmap is not clean: its
 * rule fires). */
static uint32_t inst_other(const gfast *x, const rv_inst *in)
{
    unsigned fl = in->flags;
    uint32_t r = G_CLEAN, end = 0;
    if (in->op == RAVEL_OP_COPY && (in->ndefs != 1 || in->nuses != 1 || in->nimms)) return G_SLOW;
    if (fl & RV_IF_CLOBBERS) {
        if ((uint64_t)in->first_clob + in->nclob > x->nu32) return G_SLOW;
        for (uint32_t k = 0; k < in->nclob; k++)
            if (x->u32[in->first_clob + k] >= x->nregs) return G_SLOW;
    }
    if (fl & RV_IF_STACKMAP) {
        if ((uint64_t)in->u.smap.first + in->u.smap.n > x->nu32) return G_SLOW;
        for (uint32_t k = 0; k < in->u.smap.n; k++) {
            uint32_t sl = x->u32[in->u.smap.first + k];
            if (sl > RAVEL_MAX_SLOT) return G_SLOW;
            end = max_u32(end, sl + 1);
        }
        if (!(fl & RV_IF_SAFEPOINT)) r |= G_SUSPECT;
    } else if (fl & RV_IF_SAFEPOINT) {
        r = G_UNCLEAN;
    }
    return r | end << G_SLOTS;
}

/* Def d shares its location with no def before it (from o). */
static bool no_def_overlap(const rv_operand *o, const rv_operand *d)
{
    for (const rv_operand *p = o; p < d; p++)
        if (p->loc == d->loc) return false;
    return true;
}

/* Use r shares its location with no def of o..u that is early, or at all
 * if r is late. */
static bool no_use_overlap(const rv_operand *o, const rv_operand *u, const rv_operand *r)
{
    for (const rv_operand *p = o; p < u; p++)
        if (p->loc == r->loc && (rv_op_is_early(p) || rv_op_is_late(r))) return false;
    return true;
}

/* guard_plain for any operation: every operand kind, attributes, reads
 * not yet defined, overlaps. The overlap rules compare locations only
 * where a 64-bit filter of the defs' locations says they may be equal. */
static uint32_t guard_plain_any(const gfast *x, const rv_inst *in)
{
    uint32_t nd = in->ndefs, nu = in->nuses, res = G_CLEAN, slots = 0;
    if ((uint64_t)in->first_op + nd + nu > x->nops || (uint64_t)in->first_imm + in->nimms > x->nimms) return G_SLOW;
    if (in->flags || in->op == RAVEL_OP_COPY) {
        res = inst_other(x, in);
        if (!(res & G_STATUS)) return G_SLOW;
    }
    if (!(nd | nu)) return res;
    const rv_vreg *vregs = x->vregs;
    const uint16_t *rk = x->rk;
    uint16_t *gdef = x->gdef;
    uint32_t noted = x->ck->guard.gnfast == in ? x->ck->guard.gnfast_k : 0; /* defs plain_ops noted before giving up */
    x->ck->guard.gnfast = NULL;
    uint32_t nvregs = x->nvregs, clean = (res & G_STATUS) == G_CLEAN;
    const rv_operand *o = x->ops + in->first_op, *u = o + nd, *e = u + nu;
    uint64_t dmask = 0;
    for (const rv_operand *d = o; d < u; d++) {
        uint32_t v = d->vreg;
        if (v >= nvregs || !vregs[v].has_class) return G_SLOW;
        uint32_t cls = vregs[v].cls;
        if (!op_usual(rk, d, cls)) {
            uint32_t r = op_other(x, d, u, nu, true, cls);
            if (!(r & G_STATUS)) return G_SLOW;
            clean &= (r & G_STATUS) == G_CLEAN;
            slots = max_u32(slots, r >> G_SLOTS);
        }
        gdef[v] |= GV_DEF;
        if (x->ck->guard.grecord) gn_note_def(x->ck, v, x->b, (uint32_t)(d - o) < noted);
        uint64_t bit = 1ull << (d->loc & 63);
        if ((dmask & bit) && !no_def_overlap(o, d)) clean = 0; /* def-overlap */
        dmask |= bit;
    }
    for (const rv_operand *r = u; r < e; r++) {
        uint32_t v = r->vreg;
        if (v >= nvregs || !vregs[v].has_class) return G_SLOW;
        uint32_t cls = vregs[v].cls;
        if (!op_usual(rk, r, cls)) {
            uint32_t q = op_other(x, r, u, nu, false, cls);
            if (!(q & G_STATUS)) return G_SLOW;
            clean &= (q & G_STATUS) == G_CLEAN;
            slots = max_u32(slots, q >> G_SLOTS);
        }
        if (!(gdef[v] & GV_DEF)) rv_vec_push(x->ck->guard.gpend, v);
        if (in->op == RAVEL_OP_COPY) gn_chain(x->ck, v);
        if (((dmask >> (r->loc & 63)) & 1) && !no_use_overlap(o, u, r)) clean = 0; /* early-def-overlap, late-use-overwritten */
    }
    return (clean ? G_CLEAN : G_UNCLEAN) | (res & G_SUSPECT) | max_u32(slots, res >> G_SLOTS) << G_SLOTS;
}

/* What the fast path leaves to guard_inst (slow) and what the rules must
 * visit; false if the guard failed. */
static bool guard_inst_other(guard *g, uint32_t b, const rv_inst *in, bool last, bool slow)
{
    ravel_checker *ck = g->ck;
    if (slow) {
        guard_inst(g, b, in, last);
        if (!g->ok) return false;
    }
    if (ck->guard.grecord) {
        rv_vec_reserve(ck->facts.rtodo, 2);
        ck->facts.rtodo.data[ck->facts.rtodo.len++] = b;
        ck->facts.rtodo.data[ck->facts.rtodo.len++] = (uint32_t)(in - g->f->insts.data);
    }
    return true;
}

/* An instruction the fast path did not finish (r: G_SLOW, G_UNCLEAN, or
 * G_ANY for an operation guard_plain_any must look at): its guard, and the
 * rules' list. False if the guard failed. */
static bool guard_inst_rare(const gfast *x, const rv_inst *in, uint32_t r)
{
    guard *g = x->g;
    if (r == G_ANY) {
        r = guard_plain_any(x, in);
        g->maxslot = max_u32(g->maxslot, r >> G_SLOTS);
        if (r & G_SUSPECT) g->suspect = true;
        if ((r & G_STATUS) == G_CLEAN) return true;
    }
    return guard_inst_other(g, x->b, in, false, (r & G_STATUS) == G_SLOW);
}

/* An operand without a location in the original function (x->noloc) of
 * class cls: what guard_operands asks of its constraint. */
static bool op_noloc(const gfast *x, const rv_operand *p, uint32_t cls)
{
    if (!x->noloc) return false;
    if (p->kind <= RAVEL_C_STACK) return cls < x->ncls;
    return p->kind == RAVEL_C_FIXED && p->arg < RV_MAX_REGS && (x->rk[p->arg] & ~RK_RESERVED) == cls;
}

/* One usual operand (not reuse): a register that fits, or any/stack in a
 * slot (raising *top), or (x->noloc) no location. Sets *w to gdef of its
 * vreg. */
static inline bool op_fast(const gfast *x, const rv_operand *p, ravel_loc *top, uint32_t *w)
{
    uint32_t v = p->vreg, kind = p->kind;
    ravel_loc l = p->loc;
    if (v >= x->nvregs) return false;
    uint32_t cls = (*w = x->gdef[v]) & 0xff;
    if (l < RV_MAX_REGS)
        return kind <= RAVEL_C_ANY ? x->rk[l] == cls : kind == RAVEL_C_FIXED && l == p->arg && (x->rk[l] & ~RK_RESERVED) == cls;
    if (l == RAVEL_LOC_NONE) return op_noloc(x, p, cls);
    if (!slot_ok(l) || (kind != RAVEL_C_ANY && kind != RAVEL_C_STACK) || cls >= x->ncls) return false;
    *top = l > *top ? l : *top;
    return true;
}

/* A usual reuse(K) def p (uses u[0..nu)): K in range, the use in the same
 * register, which fits, and of the same class (or, x->noloc, both without
 * a location). Sets *w as op_fast. */
static inline bool reuse_fast(const gfast *x, const rv_operand *p, const rv_operand *u, uint32_t nu, uint32_t *w)
{
    uint32_t v = p->vreg;
    ravel_loc l = p->loc;
    if (p->kind != RAVEL_C_REUSE || !(p->flags & RV_OPF_DEF) || p->arg >= nu || v >= x->nvregs) return false;
    uint32_t cls = (*w = x->gdef[v]) & 0xff;
    const rv_operand *q = &u[p->arg];
    if (l == RAVEL_LOC_NONE)
        return x->noloc && cls < x->ncls && q->vreg < x->nvregs && (x->gdef[q->vreg] & 0xff) == cls;
    return l < RV_MAX_REGS && x->rk[l] == cls && q->loc == l && q->vreg < x->nvregs && (x->gdef[q->vreg] & 0xff) == cls;
}

/* A def in slot l, for the block's write notes (ck_gw); past the room
 * made for the block, the block is not noted. */
static void gw_slot_def(ravel_checker *ck, ravel_loc l)
{
    if (ck->guard.gwdef.len < ck->guard.gwdef.cap) ck->guard.gwdef.data[ck->guard.gwdef.len++] = l;
    else ck->guard.gwover = true;
}

/* The operands of operation in (in range, at least one) when all are
 * usual: registers that fit, any/stack in a slot, reads of vregs defined
 * before, no overlap that matters. Returns G_CLEAN (raising *top to the
 * highest slot location named) with guard_operands' work done, or G_ANY
 * (work possibly half done) when guard_plain_any must look. Calls
 * nothing. A 64-bit filter of the defs' locations tells where the
 * overlap rules need a comparison. */
static inline __attribute__((always_inline)) uint32_t plain_ops(const gfast *x, const rv_inst *in, ravel_loc *top)
{
    const rv_operand *o = x->ops + in->first_op, *u = o + in->ndefs, *e = u + in->nuses;
    uint64_t dmask = 0;
    uint32_t w;
    /* giving up after noting the first k defs: guard_plain_any notes them again, not as GN_MULTI */
#define GIVE_UP(k)                       \
    do {                                 \
        x->ck->guard.gnfast = in;              \
        x->ck->guard.gnfast_k = (uint32_t)(k); \
        return G_ANY;                    \
    } while (0)
    for (const rv_operand *p = o; p < u; p++) { /* defs */
        if (!op_fast(x, p, top, &w) && !reuse_fast(x, p, u, in->nuses, &w)) GIVE_UP(p - o);
        x->gdef[p->vreg] = (uint16_t)(w | GV_DEF);
        if (x->record) {
            gn_def_rec(x->ck, p->vreg, x->b);
            if (p->loc & RAVEL_SLOT_BIT) gw_slot_def(x->ck, p->loc); /* (rare: any/stack in a slot) */
        }
        uint64_t bit = (uint64_t)(p->loc != RAVEL_LOC_NONE) << (p->loc & 63); /* (none: x->noloc, no overlap) */
        if (dmask & bit) GIVE_UP(p - o + 1); /* maybe a def-overlap */
        dmask |= bit;
    }
    if (in->op == RAVEL_OP_COPY && u < e && u->vreg < x->nvregs) gn_chain(x->ck, u->vreg); /* a copy's source */
    for (const rv_operand *p = u; p < e; p++) { /* uses */
        if (!op_fast(x, p, top, &w) || !(w & GV_DEF)) GIVE_UP(u - o);
        if ((dmask >> (p->loc & 63)) & 1) /* early-def-overlap, late-use-overwritten? */
            for (const rv_operand *q = o; q < u; q++)
                if (q->loc == p->loc && (rv_op_is_early(q) || rv_op_is_late(p))) GIVE_UP(u - o);
    }
#undef GIVE_UP
    return G_CLEAN;
}

/* The fast path of an operation (not an edit, not a terminator) that is
 * not its block's last instruction: G_CLEAN (guard_inst's work done, no
 * rule can fire), G_SLOW (guard_inst must look), or G_ANY (guard_plain_any
 * must look: attributes other than clobbers, anything unusual). */
static inline uint32_t guard_plain(const gfast *x, const rv_inst *in, ravel_loc *top)
{
    uint32_t nd = in->ndefs, nu = in->nuses, fl = in->flags;
    if ((fl & ~RV_IF_CLOBBERS) || (in->op == RAVEL_OP_COPY && (nd != 1 || nu != 1 || in->nimms))) return G_ANY;
    if ((uint64_t)in->first_op + nd + nu > x->nops || (uint64_t)in->first_imm + in->nimms > x->nimms) return G_SLOW;
    if (fl) { /* clobbers only */
        if ((uint64_t)in->first_clob + in->nclob > x->nu32) return G_SLOW;
        for (uint32_t k = 0; k < in->nclob; k++)
            if (x->u32[in->first_clob + k] >= x->nregs) return G_SLOW;
    }
    return nd | nu ? plain_ops(x, in, top) : G_CLEAN;
}

/* The usual instructions from in on, before last: returns the first one
 * the fast path does not finish (or last), with *res what it found there
 * (G_SLOW, G_ANY or G_UNCLEAN), raising *top to the highest slot location
 * seen. A leaf that calls nothing, so that its loops keep everything in
 * registers. */
static __attribute__((noinline)) const rv_inst *guard_run(const gfast *x, const rv_inst *in, const rv_inst *last,
                                                         ravel_loc *top, uint32_t *res, uint32_t **wslots)
{
    ravel_loc t = *top;
    uint32_t r = G_SLOW, nregs = x->nregs;
    uint32_t *ws = *wslots; /* the slots edits write (room for one per instruction) */
    for (; in < last; in++) {
        CK_PREFETCH_AHEAD(in, 12); /* the instruction stream (44-byte records): measured -4% at 10^6 */
        uint32_t op = in->op;
        r = G_SLOW;
        if (op >= RAVEL_OP_SPILL) { /* an edit (or a bad opcode), without a branch on its kind */
            ravel_loc d = in->u.edit.dst, s = in->u.edit.src;
            uint32_t dk = (uint32_t)(d < nregs) | (uint32_t)slot_ok(d) << 1; /* 1: register, 2: slot, 0: neither */
            uint32_t sk = (uint32_t)(s < nregs) | (uint32_t)slot_ok(s) << 1;
            uint32_t e = op - RAVEL_OP_SPILL; /* spill: slot <- register (9), reload (6), move (5) */
            uint32_t want = e < 3 ? (0x569u >> (4 * e)) & 15u : 16u;
            if ((dk << 2 | sk) != want) break;
            ravel_loc hi = max_u32(d & (0u - (dk >> 1)), s & (0u - (sk >> 1))); /* the slot named, else 0 */
            t = max_u32(t, hi);
            *ws = d; /* kept if a slot, without a branch */
            ws += dk >> 1;
            continue;
        }
        if (op >= RAVEL_OP_JUMP) break; /* a terminator before the block's end */
        r = guard_plain(x, in, &t); /* an operation */
        if (r != G_CLEAN) break;
    }
    *top = t;
    *res = r;
    *wslots = ws;
    return in;
}

/* Successor s of a terminator when guard_inst finds nothing wrong with it
 * and guard_term_shape nothing suspect: the target exists and is not the
 * entry, its parameters and the arguments match in number, lie in range
 * and in class (each argument has a class; a parameter with one has the
 * same, and the same .ref). */
static bool succ_usual(const gfast *x, const ravel_func *f, const rv_succ *s)
{
    if (s->block == 0 || s->block >= f->layout.len || s->block >= f->blocks.len) return false;
    const rv_block *t = &f->blocks.data[s->block];
    if (s->nargs != t->nparams || (uint64_t)s->first_arg + s->nargs > x->nu32 || (uint64_t)t->first_param + t->nparams > x->nu32)
        return false;
    for (uint32_t a = 0; a < s->nargs; a++) {
        uint32_t v = x->u32[s->first_arg + a], p = x->u32[t->first_param + a];
        if (v >= x->nvregs || p >= x->nvregs) return false;
        const rv_vreg *va = &x->vregs[v], *vp = &x->vregs[p];
        if (!va->has_class || (vp->has_class && (va->cls != vp->cls || va->ref != vp->ref))) return false;
    }
    return true;
}

/* The fast path of block b's terminator: G_CLEAN or G_UNCLEAN with
 * guard_inst's work done (guard_term_shape's counts of in-edges and reads
 * of the arguments, done last: they are not idempotent), or G_SLOW with
 * nothing done that guard_inst would not repeat harmlessly. */
static uint32_t guard_term(const gfast *x, const rv_inst *in, ravel_loc *top)
{
    const ravel_func *f = x->g->f;
    uint32_t nd = in->ndefs, nu = in->nuses, ns = rv_inst_nsuccs(in), r = G_CLEAN;
    if (in->flags || nd || (in->op == RAVEL_OP_JUMP && (ns != 1 || nu || in->nimms)) ||
        (in->op == RAVEL_OP_BR && (ns < 2 || in->nimms || nu > 1)))
        return G_SLOW;
    if ((uint64_t)in->first_op + nu > x->nops || (uint64_t)in->first_imm + in->nimms > x->nimms) return G_SLOW;
    if ((uint64_t)in->u.succ.first + ns > f->succs.len) return G_SLOW;
    const rv_succ *succ = ns ? rv_inst_succs(f, in) : NULL;
    for (uint32_t k = 0; k < ns; k++)
        if (!succ_usual(x, f, &succ[k])) return G_SLOW;
    if (nu) {
        r = plain_ops(x, in, top);
        if (r == G_ANY) return G_SLOW;
    }
    ravel_checker *ck = x->ck;
    for (uint32_t k = 0; k < ns; k++) {
        ck->guard.gnpred.data[succ[k].block]++;
        for (uint32_t a = 0; a < succ[k].nargs; a++) {
            uint32_t v = x->u32[succ[k].first_arg + a];
            if (!(x->gdef[v] & GV_DEF)) rv_vec_push(ck->guard.gpend, v);
            gn_chain(ck, v);
        }
    }
    return r;
}

/* The instructions of block b (whose range the caller checked), in order,
 * until the guard fails: runs of usual ones in guard_run, each other one
 * through guard_inst_rare; what is not clean goes to ck->facts.rtodo. */
static void guard_insts(const gfast *x, const rv_block *bl)
{
    const rv_inst *in = rv_inst_at(x->g->f, bl->first_inst), *last = in + bl->ninsts - 1;
    ravel_loc top = 0; /* the highest slot location the fast path saw */
    bool ok = true, noted = true;
    ravel_checker *ck = x->ck;
    /* the write notes (ck_gw): room for a slot per instruction */
    rv_vec_reserve(ck->facts.gwslot, bl->ninsts);
    uint32_t *start = ck->facts.gwslot.data + ck->facts.gwslot.len, *ws = start;
    ck->guard.gwdef.len = 0;
    ck->guard.gwover = false;
    while (ok) {
        uint32_t r;
        in = guard_run(x, in, last, &top, &r, &ws);
        if (in == last) break;
        ok = guard_inst_rare(x, in, r);
        noted = false;
        in++;
    }
    if (!ok) {
        if (top) x->g->maxslot = max_u32(x->g->maxslot, top - RAVEL_SLOT_BIT + 1);
        return;
    }
    uint32_t r = rv_is_term(last) ? guard_term(x, last, &top) : G_SLOW;
    if (top) x->g->maxslot = max_u32(x->g->maxslot, top - RAVEL_SLOT_BIT + 1);
    if (r != G_CLEAN) guard_inst_other(x->g, x->b, last, true, r == G_SLOW); /* the terminator */
    if (noted && r == G_CLEAN && !ck->guard.gwover && x->record) {
        uint32_t n = (uint32_t)(ws - start), nd = ck->guard.gwdef.len;
        rv_vec_reserve(ck->facts.gwslot, n + nd);
        memcpy(ck->facts.gwslot.data + ck->facts.gwslot.len + n, ck->guard.gwdef.data, (size_t)nd * sizeof *ck->guard.gwdef.data);
        ck->facts.gw.data[x->b] = (ck_list){ck->facts.gwslot.len, n + nd};
        ck->facts.gwslot.len += n + nd;
    }
}

/* The fast path's register table rk (RV_MAX_REGS entries); false if the
 * machine has more registers than that (no fast path). */
static bool guard_fast_init(const ravel_machine *m, uint16_t *rk)
{
    if (m->regs.len > RV_MAX_REGS) return false;
    for (uint32_t r = 0; r < m->regs.len; r++)
        rk[r] = m->regs.data[r].cls >= m->classes.len
                    ? RK_BAD
                    : (uint16_t)(m->regs.data[r].cls | (m->regs.data[r].reserved ? RK_RESERVED : 0));
    memset(rk + m->regs.len, 0xff, (RV_MAX_REGS - m->regs.len) * sizeof *rk); /* RK_BAD */
    return true;
}

/* Block b's own checks and its parameters: 1 if its instructions are to be
 * guarded, 0 if not, -1 if no later block is to be looked at. */
static int guard_block_head(guard *g, uint32_t b, const rv_block *bl)
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
        if (ck_params(f, bl)[p] >= f->vregs.len) gfail(g, NULL, "parameter vreg out of range");
    guard_params(g, bl);
    return g->ok;
}

/* Every block in layout order. */
static void guard_blocks(guard *g)
{
    const ravel_func *f = g->f;
    ravel_checker *ck = g->ck;
    gfast x; /* rk: guard_fast_init */
    x.insts = f->insts.data;
    x.ops = f->ops.data;
    x.vregs = f->vregs.data;
    x.u32 = f->u32.data;
    x.gdef = ck->guard.gdef;
    x.ck = ck;
    x.g = g;
    x.b = 0;
    x.nops = f->ops.len;
    x.nimms = f->imms.len;
    x.nvregs = f->vregs.len;
    x.nregs = f->mach->regs.len;
    x.ncls = f->mach->classes.len;
    x.nu32 = f->u32.len;
    x.record = ck->guard.grecord;
    x.noloc = !ck->guard.grecord; /* the original function (--orig): its operands have no locations */
    bool fast = !(ck->opts & CK_OPT_NO_FAST_GUARD) && guard_fast_init(f->mach, x.rk);
    ck->guard.gwdef.len = 0;
    rv_vec_reserve(ck->guard.gwdef, 64); /* room for a block's defs in slots */
    if (ck->guard.grecord) { /* the write notes (ck_gw): none until a block's fast path notes it; the successor lists */
        rv_vec_reserve(ck->facts.gw, f->layout.len);
        ck->facts.gw.len = f->layout.len;
        for (uint32_t b = 0; b < f->layout.len; b++) ck->facts.gw.data[b].len = CK_NIL;
        ck->facts.gwslot.len = 0;
        rv_vec_reserve(ck->facts.bsucc, f->layout.len);
        ck->facts.bsucc.len = f->layout.len;
        memset(ck->facts.bsucc.data, 0, (size_t)f->layout.len * sizeof *ck->facts.bsucc.data);
    }
    for (uint32_t b = 0; b < f->layout.len && b < f->blocks.len; b++) {
        const rv_block *bl = &f->blocks.data[b];
        int h = guard_block_head(g, b, bl);
        if (h < 0) break;
        if (h == 0) continue;
        if (fast) {
            x.b = b;
            guard_insts(&x, bl);
        } else {
            const rv_inst *in = rv_inst_at(f, bl->first_inst), *last = in + bl->ninsts - 1;
            for (; in <= last; in++)
                if (!guard_inst_other(g, b, in, in == last, true)) break;
        }
        if (ck->guard.grecord) { /* (its terminator is in the cache now, and will not be later) */
            const rv_inst *t = rv_inst_at(f, bl->first_inst + bl->ninsts - 1);
            ck->facts.bsucc.data[b] = (ck_list){t->u.succ.first, rv_inst_nsuccs(t)};
        }
    }
}

bool ck_guard(ravel_checker *ck, const ravel_func *f, ravel_report *rep, uint32_t *nslots, bool *suspect)
{
    guard g = {ck, f, rep, 0, 0, true, false, false, NULL, NULL};
    *suspect = false;
    ck->guard.gbroken = true;
    if (!f->mach) {
        gfail(&g, NULL, "function without a machine");
        return false;
    }
    if (f->layout.len == 0) { /* nothing to guard (and no scratch to size) */
        gfail(&g, NULL, "function without blocks");
        return false;
    }
    if (f->blocks.len != f->layout.len) gsoft(&g, NULL, "a block is referenced but never defined");
    guard_scratch(&g);
    ck->guard.gnfast = NULL;
    if (ck->guard.grecord) ck->facts.rtodo.len = 0, ck->facts.gnf_ok = ck->facts.gwf_ok = false;
    guard_blocks(&g);
    if (ck->guard.grecord) ck->facts.gnf_ok = ck->facts.gwf_ok = g.ok;
    *nslots = g.maxslot;
    if (g.ok) guard_finish(&g);
    *suspect = g.suspect;
    ck->guard.gbroken = g.broken;
    return g.ok;
}

/* ---- rules ---- */

static void site_op(ck_site *s, uint32_t b, uint32_t ii, const rv_inst *in, uint32_t k, const rv_operand *o)
{
    bool def = k < in->ndefs;
    s->block = b;
    s->inst = ii;
    s->role = def ? "def" : "use";
    s->k = (int32_t)(def ? k : k - in->ndefs);
    s->op = o;
    s->order = def ? k : 65536u + (k - in->ndefs);
}

/* Location, class, reserved registers and the operand's own constraint. */
static void rule_operand(ravel_checker *ck, ck_site *s, const rv_inst *in, const rv_operand *o)
{
    const ravel_func *f = ck->f;
    const ravel_machine *m = f->mach;
    char lb[32], lb2[32];
    const rv_vreg *v = &f->vregs.data[o->vreg];
    if (o->loc == RAVEL_LOC_NONE) {
        ck_err_rule(ck, s, "missing-location", o->loc, o->vreg, "has no location");
        return;
    }
    if (ck_li(ck, o->loc) == CK_NIL) {
        ck_err_rule(ck, s, "unknown-location", o->loc, o->vreg, "location does not exist");
        return;
    }
    bool slot = ravel_loc_is_slot(o->loc);
    if (!slot && m->regs.data[o->loc].cls != v->cls) {
        ck_err_rule(ck, s, "bad-class", o->loc, o->vreg, "%s is of class %s, but the vreg is of class %s",
                    rv_loc_str(m, o->loc, lb), m->classes.data[m->regs.data[o->loc].cls].name, m->classes.data[v->cls].name);
        return;
    }
    if (!slot && m->regs.data[o->loc].reserved && o->kind != RAVEL_C_FIXED) {
        ck_err_rule(ck, s, "reserved-misuse", o->loc, o->vreg, "%s is reserved and may only be used under fixed(%s)",
                    m->regs.data[o->loc].name, m->regs.data[o->loc].name);
        return;
    }
    switch (o->kind) {
    case RAVEL_C_REG:
        if (slot) ck_err_rule(ck, s, "not-reg", o->loc, o->vreg, "constraint reg, but the location is slot %s", rv_loc_str(m, o->loc, lb));
        break;
    case RAVEL_C_STACK:
        if (!slot) ck_err_rule(ck, s, "not-stack", o->loc, o->vreg, "constraint stack, but the location is register %s", rv_loc_str(m, o->loc, lb));
        break;
    case RAVEL_C_FIXED:
        if (o->loc != o->arg)
            ck_err_rule(ck, s, "not-fixed", o->loc, o->vreg, "constraint fixed(%s), but the location is %s",
                        m->regs.data[o->arg].name, rv_loc_str(m, o->loc, lb));
        break;
    case RAVEL_C_REUSE: {
        const rv_operand *u = &ck_uses(f, in)[o->arg];
        if (slot || u->loc != o->loc || ravel_loc_is_slot(u->loc))
            ck_err_rule(ck, s, "reuse-mismatch", o->loc, o->vreg, "constraint reuse(%u): the def is in %s but use %u is in %s%s",
                        o->arg, rv_loc_str(m, o->loc, lb), o->arg, rv_loc_str(m, u->loc, lb2),
                        slot || ravel_loc_is_slot(u->loc) ? " (must be a register)" : "");
        break;
    }
    default:
        break;
    }
}

/* Overlaps between operands of one instruction. */
static void rule_overlap(ravel_checker *ck, ck_site *s, const rv_inst *in, uint32_t k, const rv_operand *o)
{
    const ravel_func *f = ck->f;
    const rv_operand *ops = ck_ops(f, in);
    uint32_t nd = in->ndefs, n = nd + in->nuses;
    char lb[32];
    if (o->loc == RAVEL_LOC_NONE) return;
    if (k < nd) {
        for (uint32_t j = 0; j < k; j++)
            if (ops[j].loc == o->loc) {
                ck_err_rule(ck, s, "def-overlap", o->loc, o->vreg, "def %u shares %s with def %u", k, rv_loc_str(f->mach, o->loc, lb), j);
                return;
            }
        if (rv_op_is_early(o))
            for (uint32_t j = nd; j < n; j++)
                if (ops[j].loc == o->loc) {
                    ck_err_rule(ck, s, "early-def-overlap", o->loc, o->vreg, "early def shares %s with use %u", rv_loc_str(f->mach, o->loc, lb), j - nd);
                    return;
                }
        return;
    }
    if (rv_op_is_late(o))
        for (uint32_t j = 0; j < nd; j++)
            if (ops[j].loc == o->loc) {
                ck_err_rule(ck, s, "late-use-overwritten", o->loc, o->vreg, "late use shares %s with def %u", rv_loc_str(f->mach, o->loc, lb), j);
                return;
            }
}

static void rule_edit(ravel_checker *ck, uint32_t b, uint32_t ii, const rv_inst *in)
{
    ck_site s = {b, ii, "edit", -1, NULL, 0};
    bool ds = ravel_loc_is_slot(in->u.edit.dst), ss = ravel_loc_is_slot(in->u.edit.src);
    if (ck_li(ck, in->u.edit.dst) == CK_NIL || ck_li(ck, in->u.edit.src) == CK_NIL)
        ck_err_rule(ck, &s, "unknown-location", RAVEL_LOC_NONE, CK_NIL, "edit names a location that does not exist");
    else if (ds && ss)
        ck_err_rule(ck, &s, "slot-to-slot", in->u.edit.dst, CK_NIL, "there is no slot-to-slot move");
    else if ((in->op == RAVEL_OP_SPILL && (!ds || ss)) || (in->op == RAVEL_OP_RELOAD && (ds || !ss)) ||
             (in->op == RAVEL_OP_MOVE && (ds || ss)))
        ck_err_rule(ck, &s, "bad-edit", in->u.edit.dst, CK_NIL, "%s must go %s", rv_opcode_name(in->op),
                    in->op == RAVEL_OP_SPILL ? "from a register to a slot"
                    : in->op == RAVEL_OP_RELOAD ? "from a slot to a register" : "from a register to a register");
}

/* True if operand o of in breaks none of rule_operand's rules (a fast
 * test; the rules themselves run only when it fails). */
static bool operand_clean(const ravel_checker *ck, const rv_inst *in, const rv_operand *o)
{
    const ravel_func *f = ck->f;
    ravel_loc l = o->loc;
    if (l & RAVEL_SLOT_BIT) return l != RAVEL_LOC_NONE && ck_li(ck, l) != CK_NIL && (o->kind == RAVEL_C_ANY || o->kind == RAVEL_C_STACK);
    if (l >= ck->nregs) return false;
    const rv_reg *r = &f->mach->regs.data[l];
    if (r->cls != f->vregs.data[o->vreg].cls) return false;
    switch (o->kind) {
    case RAVEL_C_REG:
    case RAVEL_C_ANY: return !r->reserved;
    case RAVEL_C_FIXED: return l == o->arg;
    case RAVEL_C_REUSE: return !r->reserved && ck_uses(f, in)[o->arg].loc == l;
    default: return false;
    }
}

/* True if no rule can fire on in's operands: each is clean and no two
 * share a location where rule_overlap forbids it. */
static bool inst_clean(const ravel_checker *ck, const rv_inst *in)
{
    const rv_operand *ops = ck_ops(ck->f, in);
    uint32_t nd = in->ndefs, n = nd + in->nuses;
    for (uint32_t k = 0; k < n; k++) {
        if (!operand_clean(ck, in, &ops[k])) return false;
        for (uint32_t j = 0; j < k; j++) {
            if (ops[j].loc != ops[k].loc) continue;
            if (k < nd) return false;                                   /* def-overlap */
            if (j < nd && (rv_op_is_early(&ops[j]) || rv_op_is_late(&ops[k]))) return false; /* early def / late use */
        }
    }
    return true;
}

static bool edit_clean(const ravel_checker *ck, const rv_inst *in)
{
    ravel_loc d = in->u.edit.dst, s = in->u.edit.src;
    if (ck_li(ck, d) == CK_NIL || ck_li(ck, s) == CK_NIL) return false;
    bool ds = ravel_loc_is_slot(d), ss = ravel_loc_is_slot(s);
    return in->op == RAVEL_OP_SPILL ? ds && !ss : in->op == RAVEL_OP_RELOAD ? !ds && ss : !ds && !ss;
}

/* The rules on instruction ii of block b. */
static void rules_inst(ravel_checker *ck, uint32_t b, uint32_t ii)
{
    const ravel_func *f = ck->f;
    const rv_inst *in = rv_inst_at(f, ii);
    if (rv_is_edit(in)) {
        if (!edit_clean(ck, in)) rule_edit(ck, b, ii, in);
        return;
    }
    const rv_operand *ops = ck_ops(f, in);
    bool clean = inst_clean(ck, in); /* the usual case: no rule to run */
    for (uint32_t k = 0; !clean && k < (uint32_t)in->ndefs + in->nuses; k++) {
        ck_site s;
        site_op(&s, b, ii, in, k, &ops[k]);
        uint32_t before = ck->out.rep->errs.len;
        rule_operand(ck, &s, in, &ops[k]);
        if (ck->out.rep->errs.len == before) rule_overlap(ck, &s, in, k, &ops[k]);
    }
    if ((in->flags & RV_IF_SAFEPOINT) && !(in->flags & RV_IF_STACKMAP)) {
        ck_site s = {b, ii, "inst", -1, NULL, 3 * 65536u};
        ck_err_rule(ck, &s, "stackmap-missing", RAVEL_LOC_NONE, CK_NIL, "safepoint without a stackmap");
    }
}

/* Requires: the guard of ck->f ran with ck->guard.grecord (ck->facts.rtodo lists, in
 * layout order, every instruction on which a rule may fire; on the others
 * none can, see guard_fast_*). */
void ck_rules(ravel_checker *ck)
{
    for (uint32_t t = 0; t + 1 < ck->facts.rtodo.len; t += 2) rules_inst(ck, ck->facts.rtodo.data[t], ck->facts.rtodo.data[t + 1]);
}

/* ---- --orig: the allocated function must be the original plus locations,
 * edits and stackmaps ---- */

/* The match's view of the two functions: their symbol tables agree on ids
 * below agree (an allocator's output is usually a clone of its input:
 * then names compare by id), and they may share one machine (registers
 * compare by id). */
typedef struct omatch {
    const ravel_func *a, *b;
    uint32_t agree;  /* symbols below this id are the same string in both */
    uint32_t vagree; /* vregs below this id are the same vreg in both */
    bool same_mach;
} omatch;

static bool sym_eq(const ravel_func *a, uint32_t x, const ravel_func *b, uint32_t y)
{
    return a->syms.lens.data[x] == b->syms.lens.data[y] &&
           memcmp(rv_sym_str(&a->syms, x), rv_sym_str(&b->syms, y), a->syms.lens.data[x]) == 0;
}

static void omatch_init(omatch *m, const ravel_func *a, const ravel_func *b)
{
    m->a = a;
    m->b = b;
    m->same_mach = a->mach == b->mach;
    uint32_t n = a->syms.strs.len < b->syms.strs.len ? a->syms.strs.len : b->syms.strs.len, i = 0;
    while (i < n && sym_eq(a, i, b, i)) i++;
    m->agree = i;
    /* an allocator usually keeps the vreg table: one pass here, then an
     * operand's vreg compares by id */
    const rv_vreg *p = a->vregs.data, *q = b->vregs.data;
    n = a->vregs.len < b->vregs.len ? a->vregs.len : b->vregs.len;
    for (i = 0; i < n && p[i].num == q[i].num && p[i].cls == q[i].cls && p[i].ref == q[i].ref;) i++;
    m->vagree = i;
}

static bool sym_same(const omatch *m, uint32_t x, uint32_t y)
{
    if (x == RAVEL_NONE || y == RAVEL_NONE) return x == y;
    if (x == y && x < m->agree) return true;
    return sym_eq(m->a, x, m->b, y);
}

static bool vreg_same(const omatch *m, uint32_t x, uint32_t y)
{
    const ravel_func *a = m->a, *b = m->b;
    if (x == y && x < m->vagree) return true;
    if (x >= a->vregs.len || y >= b->vregs.len) return false;
    const rv_vreg *p = &a->vregs.data[x], *q = &b->vregs.data[y];
    return p->num == q->num && p->cls == q->cls && p->ref == q->ref;
}

/* (Both functions passed the guard: their registers exist.) */
static bool reg_same(const omatch *m, uint32_t x, uint32_t y)
{
    const ravel_func *a = m->a, *b = m->b;
    if (m->same_mach) return x == y;
    if (x >= a->mach->regs.len || y >= b->mach->regs.len) return false;
    return strcmp(a->mach->regs.data[x].name, b->mach->regs.data[y].name) == 0;
}

/* Whether two operands agree in what inst_diff compares besides the vreg
 * (constraint, position, argument): one masked word (kind, flags, arg are
 * adjacent; the mask is built from the struct, so byte order does not
 * matter). */
_Static_assert(offsetof(rv_operand, flags) == offsetof(rv_operand, kind) + 1 &&
                   offsetof(rv_operand, arg) == offsetof(rv_operand, kind) + 2 && sizeof(((rv_operand *)0)->arg) == 2,
               "op_same_key: kind, flags and arg fill one 32-bit word");
static inline bool op_same_key(const rv_operand *p, const rv_operand *q)
{
    rv_operand mk = {0, 0, 0xff, RV_OPF_DEF | RV_OPF_LATE, 0xffff};
    uint32_t x, y, mask;
    memcpy(&mask, &mk.kind, sizeof mask);
    memcpy(&x, &p->kind, sizeof x);
    memcpy(&y, &q->kind, sizeof y);
    return ((x ^ y) & mask) == 0;
}

/* Returns NULL if the instructions match, else what differs. */
static const char *inst_diff(const omatch *m, const rv_inst *x, const rv_inst *y)
{
    const ravel_func *a = m->a, *b = m->b;
    if (x->op != y->op || ((x->name != y->name || x->name >= m->agree) && !sym_same(m, x->name, y->name)))
        return "a different mnemonic";
    if (x->ndefs != y->ndefs || x->nuses != y->nuses || x->nimms != y->nimms) return "a different number of operands";
    const rv_operand *p = ck_ops(a, x), *q = ck_ops(b, y);
    for (uint32_t k = 0; k < (uint32_t)x->ndefs + x->nuses; k++) {
        if (p[k].vreg == q[k].vreg && p[k].vreg < m->vagree && m->same_mach && op_same_key(&p[k], &q[k]))
            continue; /* the usual case: the same vreg, constraint, position and argument */
        if (!vreg_same(m, p[k].vreg, q[k].vreg)) return "a different vreg";
        if (p[k].kind != q[k].kind || (p[k].flags & (RV_OPF_DEF | RV_OPF_LATE)) != (q[k].flags & (RV_OPF_DEF | RV_OPF_LATE)))
            return "a different constraint or position";
        if (p[k].kind == RAVEL_C_FIXED && !reg_same(m, p[k].arg, q[k].arg)) return "a different fixed register";
        if (p[k].kind == RAVEL_C_REUSE && p[k].arg != q[k].arg) return "a different reuse index";
    }
    for (uint32_t k = 0; k < x->nimms; k++) {
        const rv_imm *i = &a->imms.data[x->first_imm + k], *j = &b->imms.data[y->first_imm + k];
        if (i->value != j->value || i->pos != j->pos) return "different immediates";
    }
    if ((x->flags & (RV_IF_SAFEPOINT | RV_IF_CLOBBERS)) != (y->flags & (RV_IF_SAFEPOINT | RV_IF_CLOBBERS)))
        return "different attributes";
    if (x->flags & RV_IF_CLOBBERS) {
        if (x->nclob != y->nclob) return "a different clobber list";
        if (m->same_mach) { /* register ids compare as they are */
            if (x->nclob && memcmp(&a->u32.data[x->first_clob], &b->u32.data[y->first_clob], x->nclob * sizeof(uint32_t)))
                return "a different clobber list";
        } else {
            for (uint32_t k = 0; k < x->nclob; k++)
                if (!reg_same(m, a->u32.data[x->first_clob + k], b->u32.data[y->first_clob + k])) return "a different clobber list";
        }
    }
    if (rv_is_term(x)) {
        if (rv_inst_nsuccs(x) != rv_inst_nsuccs(y)) return "different successors";
        for (uint32_t k = 0; k < rv_inst_nsuccs(x); k++) {
            const rv_succ *s = &rv_inst_succs(a, x)[k], *t = &rv_inst_succs(b, y)[k];
            if (t->block >= b->blocks.len || !sym_same(m, a->blocks.data[s->block].name, b->blocks.data[t->block].name))
                return "different successors";
            if (s->nargs != t->nargs) return "different block arguments";
            for (uint32_t i = 0; i < s->nargs; i++)
                if (!vreg_same(m, ck_args(a, s)[i], ck_args(b, t)[i])) return "different block arguments";
        }
    }
    return NULL;
}

static void orig_err(ravel_checker *ck, uint32_t b, uint32_t ii, const char *what)
{
    ck_site s = {b, ii, ii == CK_NIL ? "block" : "inst", -1, NULL, 4 * 65536u};
    ck_err_rule(ck, &s, "orig-mismatch", RAVEL_LOC_NONE, CK_NIL, "does not match the original function: %s", what);
}

static bool orig_block(ravel_checker *ck, const omatch *m, uint32_t b)
{
    const ravel_func *f = m->a, *o = m->b;
    const rv_block *x = &f->blocks.data[b], *y = &o->blocks.data[b];
    char tmp[160];
    if (!sym_same(m, x->name, y->name) || x->nparams != y->nparams) {
        orig_err(ck, b, CK_NIL, "a different block name or parameter count");
        return false;
    }
    for (uint32_t p = 0; p < x->nparams; p++)
        if (!vreg_same(m, ck_params(f, x)[p], ck_params(o, y)[p])) {
            orig_err(ck, b, CK_NIL, "different block parameters");
            return false;
        }
    uint32_t j = 0, last = x->first_inst;
    for (uint32_t i = 0; i < x->ninsts; i++) {
        const rv_inst *in = rv_inst_at(f, x->first_inst + i);
        if (rv_is_edit(in)) continue;
        last = x->first_inst + i;
        if (j >= y->ninsts) {
            orig_err(ck, b, last, "an instruction the original does not have");
            return false;
        }
        const rv_inst *on = rv_inst_at(o, y->first_inst + j);
        const char *d = rv_is_edit(on) ? "the original has an edit here" : inst_diff(m, in, on);
        if (d) {
            if (on->line) snprintf(tmp, sizeof tmp, "%s (original line %u)", d, on->line);
            else snprintf(tmp, sizeof tmp, "%s (original inst %u)", d, y->first_inst + j);
            orig_err(ck, b, last, tmp);
            return false;
        }
        j++;
    }
    if (j != y->ninsts) {
        snprintf(tmp, sizeof tmp, "original instruction %u of block %s is missing", j, rv_block_name(o, b));
        orig_err(ck, b, last, tmp);
        return false;
    }
    return true;
}

void ck_match_orig(ravel_checker *ck, const ravel_func *o)
{
    const ravel_func *f = ck->f;
    if (o->layout.len != f->layout.len || o->blocks.len < o->layout.len) {
        orig_err(ck, CK_NIL, CK_NIL, "a different number of blocks");
        return;
    }
    omatch m;
    omatch_init(&m, f, o);
    if (!sym_same(&m, f->name, o->name)) {
        orig_err(ck, CK_NIL, CK_NIL, "a different function name");
        return;
    }
    for (uint32_t b = 0; b < f->layout.len; b++)
        if (!orig_block(ck, &m, b)) return;
}
