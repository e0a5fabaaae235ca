/*
 * phys.c - physical registers named before allocation
 * (docs/import-mapping.md R8 to R12, R15, R17, R18, R23): for every
 * operand of the pre form, what it becomes in the .ra function.
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
 *   - PO_PUSE: a read names the pseudo-vreg of its reaching def, at that
 *     def's location (R10);
 * and otherwise refuses: physreg-across-blocks, physreg-wide-read,
 * kill-shape (R23).
 *
 * The reaching def is the last def, in the block, of the register read or
 * of one containing it (a narrower one last: physreg-wide-read). R8 says a
 * register is live across a block boundary only as a function live-in;
 * llc-19 also keeps EFLAGS live into a block whose one predecessor set it
 * (`liveins: $eflags`, two branches on one compare). docs/import.md
 * decides: a read with no def before it in its block names the def that
 * reaches the block's entry on every incoming edge (forward, to a
 * fixpoint, over the blocks' successor lists); if the edges disagree or
 * one has none, the function is refused (physreg-across-blocks). The
 * checker then verifies that the value did reach the read.
 */
#include "import/imp.h"

typedef struct pdef {
    uint32_t vreg, seq;
    uint16_t loc;
    uint8_t state; /* PD_NONE, PD_DEF, PD_TOP (not computed yet), PD_CONFLICT */
} pdef;
enum { PD_NONE, PD_DEF, PD_TOP, PD_CONFLICT };

typedef struct ptable {
    pdef r[X86_NREGS]; /* by the register MIR names */
} ptable;

typedef struct pwalk {
    ptable *exit;      /* per block: its own defs (pass 1) */
    ptable *entry;     /* per block: the defs reaching its entry (pass 2) */
    uint32_t seq;
} pwalk;

static bool dropped(const imp *x, const mir_op *o)
{
    if (o->preg == PR_DROP || o->preg == PR_IGNORE) return true;
    if (o->preg < 0) return false;
    const x86_reg *r = x86_reg_at((unsigned)o->preg);
    return x->fp && r && r->kind == XK_GPR && r->row == 6;
}

/* R9: where a pseudo-vreg defined by operand o of `in` lives. */
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

static void new_def(imp *x, pwalk *w, ptable *t, int preg, uint16_t loc, uint32_t *vreg)
{
    *vreg = x->pv.next++;
    pdef *d = &t->r[preg];
    d->vreg = *vreg;
    d->loc = loc;
    d->seq = ++w->seq;
    d->state = PD_DEF;
}

/* The last def in t of p or of a register overlapping it, -1. */
static int latest(const ptable *t, unsigned p, uint8_t state)
{
    int best = -1;
    for (unsigned q = 0; q < X86_NREGS; q++) {
        if (t->r[q].state != state || (q != p && !x86_overlaps(q, p))) continue;
        if (best < 0 || t->r[q].seq > t->r[best].seq) best = (int)q;
    }
    return best;
}

static bool resolve(imp *x, const ptable *t, const mir_op *o, po_info *pi, uint8_t state)
{
    int best = latest(t, (unsigned)o->preg, state);
    if (best < 0) return false;
    if ((unsigned)best != (unsigned)o->preg && !x86_contains((unsigned)best, (unsigned)o->preg)) {
        imp_refuse_at(x, "physreg-wide-read", x->rp, o->pos, "$%.*s is read after a def of only $%s (R10)", (int)o->nlen,
                      x->rp->t.src + o->name, x86_reg_at((unsigned)best)->name);
        return true;
    }
    pi->kind = PO_PUSE;
    pi->vreg = t->r[best].vreg;
    pi->loc = t->r[best].loc;
    return true;
}

/* The uses of one instruction (read before its defs); a read with no def
 * before it in the block waits for pass 2 (kind PO_PUSE, vreg RVI_NONE). */
static void inst_uses(imp *x, const ptable *t, const mir_inst *in)
{
    for (uint32_t k = 0; k < in->nops && !imp_failed(x); k++) {
        const mir_op *o = &mir_ops(x->pre, in)[k];
        po_info *pi = &x->po[in->op0 + k];
        if (o->kind != MO_REG || (o->flags & MOF_DEF) || o->preg == PR_VIRT) continue;
        if (dropped(x, o)) pi->kind = PO_DROP;
        else if (o->flags & MOF_UNDEF) pi->kind = PO_UNDEF;
        else if (!resolve(x, t, o, pi, PD_DEF)) pi->kind = PO_PUSE, pi->vreg = RVI_NONE;
    }
}

/* The defs of one instruction: clobbers, R11, pseudo-vregs. */
static void inst_defs(imp *x, pwalk *w, ptable *t, const mir_inst *in)
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
            const mir_op *v = &ops[j];
            if (j == k || v->kind != MO_REG || !(v->flags & MOF_DEF) || v->preg < 0 || dropped(x, v)) continue;
            if ((v->flags & MOF_IMPLICIT) && (v->flags & MOF_DEAD)) continue;
            narrower = x86_contains((unsigned)v->preg, (unsigned)o->preg) || (v->preg == o->preg && j < k);
        }
        if (narrower) {
            pi->kind = PO_DROP;
            continue;
        }
        pi->kind = PO_PDEF;
        pi->loc = def_location(x, in, o);
        new_def(x, w, t, o->preg, pi->loc, &pi->vreg);
    }
}

/* R23: `$cl = KILL killed $rcx`: the destination is inside the source. */
static void check_kill(imp *x, const mir_inst *in)
{
    if (!mir_opc_is(x->rp, in, "KILL") || in->nops < 2 || (mir_ops(x->pre, in)[0].flags & (MOF_IMPLICIT | MOF_DEF)) != MOF_DEF) return; /* without a destination: nothing (R23) */
    const po_info *d = &x->po[in->op0], *s = &x->po[in->op0 + 1];
    const mir_op *o = mir_ops(x->pre, in);
    if (o[0].vreg != RVI_NONE || o[1].vreg != RVI_NONE) {
        imp_refuse_at(x, "kill-shape", x->rp, in->pos, "a KILL of virtual registers before allocation (R23)");
        return;
    }
    if (d->kind != PO_PDEF || s->kind != PO_PUSE || s->vreg == RVI_NONE || (d->loc != s->loc && !x86_contains(s->loc, d->loc)))
        imp_refuse_at(x, "kill-shape", x->rp, in->pos, "the KILL's destination is not contained in its source (R23)");
}

static void entry_liveins(imp *x, pwalk *w, ptable *t)
{
    const mir_func *f = x->pre;
    for (uint32_t i = 0; i < f->liveins.len; i++) {
        const mir_livein *li = &f->liveins.data[i];
        if (li->preg < 0) continue;
        const x86_reg *r = x86_reg_at((unsigned)li->preg);
        if (x->fp && r->kind == XK_GPR && r->row == 6) continue;
        livein_pv pv;
        pv.loc = (uint16_t)li->preg;
        new_def(x, w, t, li->preg, pv.loc, &pv.vreg);
        rv_vec_push(x->liveins, pv);
    }
}

/* Pass 1: every block alone, in layout order (pseudo-vregs numbered). */
static void pass_blocks(imp *x, pwalk *w)
{
    const mir_func *f = x->pre;
    for (uint32_t b = 0; b < f->blocks.len && !imp_failed(x); b++) {
        ptable *t = &w->exit[b];
        if (b == 0) entry_liveins(x, w, t);
        const mir_block *blk = &f->blocks.data[b];
        for (uint32_t k = 0; k < blk->n && !imp_failed(x); k++) {
            const mir_inst *in = mir_block_inst(f, blk, k);
            if (in->debug) continue;
            inst_uses(x, t, in);
            if (!imp_failed(x)) inst_defs(x, w, t, in);
        }
    }
}

/* The meet of a predecessor's exit into an entry table. */
static bool meet(ptable *e, const ptable *in_entry, const ptable *own)
{
    bool changed = false;
    for (unsigned r = 0; r < X86_NREGS; r++) {
        pdef v = own->r[r].state == PD_DEF ? own->r[r] : in_entry->r[r];
        pdef *d = &e->r[r];
        if (v.state == PD_TOP) continue;
        if (d->state == PD_TOP) *d = v, changed = true;
        else if (d->state == PD_DEF && (v.state != PD_DEF || v.vreg != d->vreg)) d->state = PD_CONFLICT, changed = true;
        else if (d->state == PD_NONE && v.state != PD_NONE) d->state = PD_CONFLICT, changed = true;
    }
    return changed;
}

/* Pass 2: the defs reaching each block's entry, to a fixpoint. */
static void pass_edges(imp *x, pwalk *w)
{
    const mir_func *f = x->pre;
    for (uint32_t b = 0; b < f->blocks.len; b++)
        for (unsigned r = 0; r < X86_NREGS; r++) w->entry[b].r[r].state = b == 0 ? PD_NONE : PD_TOP;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t b = 0; b < f->blocks.len; b++) {
            const mir_block *blk = &f->blocks.data[b];
            for (uint32_t s = 0; s < blk->ns; s++) {
                int32_t t = imp_block_pos(x, false, f->u32.data[blk->s0 + s]);
                if (t > 0) changed |= meet(&w->entry[t], &w->entry[b], &w->exit[b]);
            }
        }
    }
}

/* Pass 2's reads: those with no def before them in their block. */
static void pass_reads(imp *x, pwalk *w)
{
    const mir_func *f = x->pre;
    for (uint32_t b = 0; b < f->blocks.len && !imp_failed(x); b++) {
        const mir_block *blk = &f->blocks.data[b];
        for (uint32_t k = 0; k < blk->n && !imp_failed(x); k++) {
            const mir_inst *in = mir_block_inst(f, blk, k);
            for (uint32_t i = 0; i < in->nops && !imp_failed(x) && !in->debug; i++) {
                po_info *pi = &x->po[in->op0 + i];
                const mir_op *o = &mir_ops(f, in)[i];
                if (pi->kind != PO_PUSE || pi->vreg != RVI_NONE) continue;
                if (b == 0 || !resolve(x, &w->entry[b], o, pi, PD_DEF) || latest(&w->entry[b], (unsigned)o->preg, PD_CONFLICT) >= 0)
                    imp_refuse_at(x, "physreg-across-blocks", x->rp, o->pos,
                                  "$%.*s is read in %s block with no def before it%s (R8)", (int)o->nlen, x->rp->t.src + o->name,
                                  b == 0 ? "the entry" : "a", b == 0 ? "" : " that reaches it on every edge");
            }
            if (!imp_failed(x)) check_kill(x, in);
        }
    }
}

void imp_phys(imp *x)
{
    const mir_func *f = x->pre;
    imp_positions(x);
    x->po = rv_arena_alloc(&x->arena, (f->ops.len + 1) * sizeof *x->po);
    uint32_t top = f->max_vreg == RVI_NONE ? 0 : f->max_vreg;
    x->pv.base = f->max_vreg == RVI_NONE || top < 1000 ? 1000 : (top / 1000 + 1) * 1000;
    x->pv.next = x->pv.base;
    pwalk w;
    w.seq = 0;
    w.exit = rv_xcalloc(f->blocks.len + 1, sizeof *w.exit);
    w.entry = rv_xcalloc(f->blocks.len + 1, sizeof *w.entry);
    pass_blocks(x, &w);
    if (!imp_failed(x)) pass_edges(x, &w);
    if (!imp_failed(x)) pass_reads(x, &w);
    rv_free(w.exit);
    rv_free(w.entry);
}
