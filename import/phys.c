/*
 * phys.c - physical registers named before allocation (IMPORTER.md R8 to
 * R12, R15, R17, R18, R23): for every operand of the pre form, what it
 * becomes in the .ra function.
 *
 * Requires: imp_check passed (every register named is a machine register,
 * dropped or ignored). Guarantees: x->po[i] for every pre operand i:
 *   - PO_DROP for $noreg, the registers of R12 (rbp's names when x->fp),
 *     ignored names, and R11's narrower defs of one instruction;
 *   - PO_UNDEF for a physical use with the `undef` flag (R15);
 *   - PO_CLOBBER for `implicit-def dead $R` (R17, R18);
 *   - PO_PDEF: every other physical def is a fresh pseudo-vreg, numbered
 *     in order of appearance from pv_base (1000, or the first multiple of
 *     1000 above every %N), the function's live-ins first (x->liveins),
 *     located by R9;
 *   - PO_PUSE: a read names the pseudo-vreg of its reaching def in the
 *     same block (or a live-in, in the entry block), at that def's
 *     location (R10);
 * and otherwise refuses: physreg-across-blocks, physreg-wide-read,
 * kill-shape (R23).
 */
#include "import/imp.h"

typedef struct pdef {
    uint32_t vreg, seq;
    uint16_t loc;
    bool valid;
} pdef;

typedef struct pstate {
    pdef last[X86_NREGS]; /* by the register MIR names */
    uint32_t seq;
} pstate;

static bool dropped(const imp *x, const mir_op *o)
{
    if (o->preg == PR_DROP || o->preg == PR_IGNORE) return true;
    if (o->preg < 0) return false;
    const x86_reg *r = x86_reg_at((unsigned)o->preg);
    return x->fp && r && r->kind == XK_GPR && r->row == 6;
}

/* R9: where a pseudo-vreg defined by operand k of `in` lives. */
static uint16_t def_location(const imp *x, const mir_inst *in, const mir_op *o)
{
    const x86_reg *r = x86_reg_at((unsigned)o->preg);
    if (!r || r->kind != XK_VEC || !mir_opc_is(x->rp, in, "COPY") || in->nops < 2) return (uint16_t)o->preg;
    const mir_op *src = &mir_ops(x->pre, in)[1];
    if (src->kind != MO_REG || src->vreg == RVI_NONE) return (uint16_t)o->preg;
    uint8_t rc;
    unsigned w = imp_vreg_width(x, src->vreg, &rc);
    if (src->sub != XS_NONE) w = x86_sub_width((enum x86_sub)src->sub);
    int at = x86_at_width((unsigned)o->preg, w);
    return (uint16_t)(at >= 0 ? at : o->preg);
}

static void new_def(imp *x, pstate *st, int preg, uint16_t loc, uint32_t *vreg)
{
    *vreg = x->pv_next++;
    pdef *d = &st->last[preg];
    d->vreg = *vreg;
    d->loc = loc;
    d->seq = ++st->seq;
    d->valid = true;
}

static void reaching(imp *x, pstate *st, const mir_op *o, po_info *pi, bool entry)
{
    unsigned p = (unsigned)o->preg;
    int best = -1;
    for (unsigned q = 0; q < X86_NREGS; q++) {
        if (!st->last[q].valid || (q != p && !x86_overlaps(q, p))) continue;
        if (best < 0 || st->last[q].seq > st->last[best].seq) best = (int)q;
    }
    const char *name = x->rp->t.src + o->name;
    if (best < 0) {
        imp_refuse_at(x, "physreg-across-blocks", x->rp, o->pos, "$%.*s is read in %s block without a def before it (R8)", (int)o->nlen,
                      name, entry ? "the entry" : "a");
        return;
    }
    if ((unsigned)best != p && !x86_contains((unsigned)best, p)) {
        imp_refuse_at(x, "physreg-wide-read", x->rp, o->pos, "$%.*s is read after a def of only $%s (R10)", (int)o->nlen, name,
                      x86_reg_at((unsigned)best)->name);
        return;
    }
    pi->kind = PO_PUSE;
    pi->vreg = st->last[best].vreg;
    pi->loc = st->last[best].loc;
}

/* The uses of one instruction (read before its defs). */
static void inst_uses(imp *x, pstate *st, const mir_inst *in, bool entry)
{
    for (uint32_t k = 0; k < in->nops && !imp_failed(x); k++) {
        const mir_op *o = &mir_ops(x->pre, in)[k];
        po_info *pi = &x->po[in->op0 + k];
        if (o->kind != MO_REG || (o->flags & MOF_DEF) || o->preg == PR_VIRT) continue;
        if (dropped(x, o)) pi->kind = PO_DROP;
        else if (o->flags & MOF_UNDEF) pi->kind = PO_UNDEF;
        else reaching(x, st, o, pi, entry);
    }
}

/* The defs of one instruction: clobbers, R11, pseudo-vregs. */
static void inst_defs(imp *x, pstate *st, const mir_inst *in)
{
    const mir_op *ops = mir_ops(x->pre, in);
    for (uint32_t k = 0; k < in->nops; k++) {
        const mir_op *o = &ops[k];
        po_info *pi = &x->po[in->op0 + k];
        if (o->kind != MO_REG || !(o->flags & MOF_DEF) || o->preg == PR_VIRT) continue;
        if (dropped(x, o)) {
            pi->kind = PO_DROP;
            continue;
        }
        if ((o->flags & MOF_IMPLICIT) && (o->flags & MOF_DEAD)) {
            pi->kind = PO_CLOBBER;
            pi->loc = (uint16_t)o->preg;
            continue;
        }
        bool narrower = false;
        for (uint32_t j = 0; j < in->nops && !narrower; j++) {
            const mir_op *w = &ops[j];
            if (j == k || w->kind != MO_REG || !(w->flags & MOF_DEF) || w->preg < 0 || dropped(x, w)) continue;
            if ((w->flags & MOF_IMPLICIT) && (w->flags & MOF_DEAD)) continue;
            narrower = x86_contains((unsigned)w->preg, (unsigned)o->preg) || (w->preg == o->preg && j < k);
        }
        if (narrower) {
            pi->kind = PO_DROP;
            continue;
        }
        pi->kind = PO_PDEF;
        pi->loc = def_location(x, in, o);
        new_def(x, st, o->preg, pi->loc, &pi->vreg);
    }
}

/* R23: `$cl = KILL killed $rcx`: the destination is inside the source. */
static void check_kill(imp *x, const mir_inst *in)
{
    if (!mir_opc_is(x->rp, in, "KILL") || in->nops < 2) return;
    const po_info *d = &x->po[in->op0], *s = &x->po[in->op0 + 1];
    const mir_op *o = mir_ops(x->pre, in);
    if (o[0].vreg != RVI_NONE || o[1].vreg != RVI_NONE) {
        imp_refuse(x, "kill-shape", "a KILL of virtual registers before allocation (R23)");
        return;
    }
    if (d->kind != PO_PDEF || s->kind != PO_PUSE || (d->loc != s->loc && !x86_contains(s->loc, d->loc)))
        imp_refuse(x, "kill-shape", "the KILL's destination is not contained in its source (R23)");
}

static void entry_liveins(imp *x, pstate *st)
{
    const mir_func *f = x->pre;
    for (uint32_t i = 0; i < f->liveins.len; i++) {
        const mir_livein *li = &f->liveins.data[i];
        if (li->preg < 0) continue;
        const x86_reg *r = x86_reg_at((unsigned)li->preg);
        if (x->fp && r->kind == XK_GPR && r->row == 6) continue;
        livein_pv pv;
        pv.loc = (uint16_t)li->preg;
        new_def(x, st, li->preg, pv.loc, &pv.vreg);
        rv_vec_push(x->liveins, pv);
    }
}

void imp_phys(imp *x)
{
    const mir_func *f = x->pre;
    x->po = rv_arena_alloc(&x->arena, (f->ops.len + 1) * sizeof *x->po);
    uint32_t top = f->max_vreg == RVI_NONE ? 0 : f->max_vreg;
    x->pv_base = f->max_vreg == RVI_NONE || top < 1000 ? 1000 : (top / 1000 + 1) * 1000;
    x->pv_next = x->pv_base;
    pstate *st = rv_xcalloc(1, sizeof *st);
    entry_liveins(x, st);
    for (uint32_t b = 0; b < f->blocks.len && !imp_failed(x); b++) {
        if (b > 0) memset(st, 0, sizeof *st);
        const mir_block *blk = &f->blocks.data[b];
        for (uint32_t k = 0; k < blk->n && !imp_failed(x); k++) {
            const mir_inst *in = mir_block_inst(f, blk, k);
            if (in->debug) continue;
            inst_uses(x, st, in, b == 0);
            if (!imp_failed(x)) inst_defs(x, st, in);
            if (!imp_failed(x)) check_kill(x, in);
        }
    }
    rv_free(st);
}
