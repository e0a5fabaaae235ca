/*
 * claims.c - R22: a SUBREG_TO_REG that executes nothing claims that bits
 * 32..63 of its register are zero; the importer checks the claim on the
 * code after allocation (docs/format.md §14.6, obligation 4).
 *
 * The claim holds if, on every path backwards from the SUBREG_TO_REG, the
 * last instruction that writes any part of the register is an executed
 * write of its 32-bit name: an explicit 32-bit def (a MOV32rm reload and a
 * MOV32rr move included). A KILL, an IMPLICIT_DEF, a copy fast deleted
 * (build.c placed it: it stands for a write), a write of a 64-bit name, a
 * call that does not preserve the register, or the function's entry fails
 * it: an import error. An executed write of an 8- or 16-bit name leaves
 * bits 32..63 as they were (x86-64 zero-extends 32-bit writes only), and
 * an identity copy the rewriter deleted executes nothing: the walk goes on
 * past both (docs/import-mapping.md R22). Operands the rewriter or fast added to an instruction (beyond
 * those of its form before allocation) are not writes.
 *
 * Requires: imp_align (items), the blocks' successor lists. Guarantees:
 * no SUBREG_TO_REG in one register is imported with a claim that a path
 * contradicts.
 */
#include "import/imp.h"

enum { W_NONE, W_OK, W_FAIL };

/* How item `it` writes register row `row` (its 32-bit name: u32). */
static int item_writes(imp *x, uint32_t it, unsigned u32)
{
    const item *I = &x->items.data[it];
    int top = x86_row_top(u32);
    if (I->deleted) {
        const mir_inst *p = &x->pre->insts.data[I->idx];
        if (!mir_opc_is(x->rp, p, "COPY") && !mir_opc_is(x->rp, p, "KILL")) return W_NONE; /* R33: a fresh slot */
        uint32_t loc = x->bd.copy_loc[I->idx]; /* fast's deleted copy, where build.c placed it (unknown: a write) */
        return loc != RVI_NONE && ((loc & RVI_SLOT) || x86_row_top(loc) != top) ? W_NONE : W_FAIL;
    }
    const rinst *ri = &x->rs.data[I->idx];
    if (!ri->p) /* an identity copy the rewriter deleted: nothing executes, so bits 32..63 stay as they were */
        return W_NONE;
    const mir_func *af = x->af;
    const mir_inst *p = ri->p;
    bool nothing = mir_opc_is(x->rv, p, "KILL") || mir_opc_is(x->rv, p, "IMPLICIT_DEF");
    uint32_t n = ri->v ? ri->v->nops : ri->orig != RVI_NONE ? x->pre->insts.data[ri->orig].nops : p->nops;
    int w = W_NONE;
    for (uint32_t j = 0; j < p->nops; j++) {
        const mir_op *o = &mir_ops(af, p)[j];
        if (o->kind == MO_REGMASK) {
            if (!x86_csr64_preserves(u32)) return W_FAIL;
            continue;
        }
        if (j >= n || o->kind != MO_REG || !(o->flags & MOF_DEF) || o->preg < 0 || x86_row_top((unsigned)o->preg) != top) continue;
        if (nothing) return W_FAIL;
        if ((unsigned)o->preg == u32) {
            w = W_OK;
            continue;
        }
        if (x86_reg_at((unsigned)o->preg)->width >= 32) return W_FAIL;
        /* an executed write of an 8- or 16-bit name leaves bits 32..63 as they
         * were: the walk goes on past it */
    }
    return w;
}

/* Does every path into block b (from its end backwards) write u32 last? */
static bool paths_ok(imp *x, uint32_t b, unsigned u32, uint8_t *seen, uint32_t from)
{
    for (uint32_t it = from; it > x->item0[b]; it--) {
        int w = item_writes(x, it - 1, u32);
        if (w == W_OK) return true;
        if (w == W_FAIL) return false;
    }
    if (b == 0) return false; /* the function's entry */
    int32_t num = x->pre->blocks.data[b].num;
    bool any = false;
    for (uint32_t c = 0; c < x->pre->blocks.len; c++) {
        const mir_block *cb = &x->pre->blocks.data[c];
        bool pred = false;
        for (uint32_t s = 0; s < cb->ns; s++) pred |= (int32_t)x->pre->u32.data[cb->s0 + s] == num;
        if (!pred) continue;
        any = true;
        if (seen[c]) continue;
        seen[c] = 1;
        if (!paths_ok(x, c, u32, seen, x->item0[c + 1])) return false;
    }
    return any;
}

void imp_claim32(imp *x, uint32_t b, uint32_t it, uint32_t k, const op_alloc *a)
{
    const rinst *ri = &x->rs.data[x->items.data[it].idx];
    const mir_inst *p = &x->pre->insts.data[k];
    uint32_t dl = RVI_NONE, ul = RVI_NONE;
    for (uint32_t i = 0; i < p->nops; i++) {
        const mir_op *o = &mir_ops(x->pre, p)[i];
        if (o->kind != MO_REG || o->vreg == RVI_NONE) continue;
        if (o->flags & MOF_DEF) dl = a->locs[i];
        else ul = a->locs[i];
    }
    if (dl == RVI_NONE || ul == RVI_NONE || (dl | ul) & RVI_SLOT || x86_row_top(dl) != x86_row_top(ul)) return;
    if (ri->p && !mir_opc_is(x->rv, ri->p, "KILL") && !mir_opc_is(x->rv, ri->p, "SUBREG_TO_REG")) return;
    if (x86_reg_at(ul)->width != 32) {
        imp_error(x, "R22", x->rp, p->pos, "SUBREG_TO_REG of %s in one register", x86_reg_at(ul)->name);
        return;
    }
    uint8_t *seen = rv_xcalloc(x->pre->blocks.len + 1, 1);
    bool ok = paths_ok(x, b, ul, seen, it);
    rv_free(seen);
    if (!ok)
        imp_error(x, "R22", x->rv, (ri->v ? ri->v : ri->p)->pos,
                  "SUBREG_TO_REG in %s claims bits 32..63 are zero, but a path reaches it whose last write of %s is not an executed write of %s",
                  x86_reg_at(dl)->name, x86_reg_at(dl)->name, x86_reg_at(ul)->name);
}
