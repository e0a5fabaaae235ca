/* ck_ext.c - what a function uses of docs/format.md section 14 (register
 * containment, undef, remat), scanned once per check or read from the
 * guard's notes, and the names the reference gives to what that section
 * adds to its states (ck.h: ck_ext): tokens =K, the pseudo-locations of U
 * and of each C_k.
 * Requires: ck->f, nvregs and nlocs set (check.c), the allocated
 * function's guard just before (its notes in ck->facts). */
#include "ck.h"

#include <stdio.h>
#include <stdlib.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* ck->ext for ck->f: from the guard's notes when they say all (no remat,
 * no alias lines: an undef op or not), else one pass over its
 * instructions (on an aliased machine, over their operands too, until
 * one operation's overlap). (The pass over a function of 10^5
 * instructions cost 4% of its check: issue 32.) */
void ck_ext_scan(ravel_checker *ck)
{
    const ravel_func *f = ck->f;
    ck_ext *x = &ck->ext;
    x->alias = rv_mach_has_alias(f->mach);
    x->undef = x->remat = x->opairs = false;
    x->keys.len = 0;
    bool pairs = x->alias; /* still to look for operands that overlap */
    bool notes = ck->facts.gxf_ok && !ck->facts.gremat && !x->alias && !(ck->opts & CK_OPT_NEED_SCAN);
    if (notes) x->undef = ck->facts.gundef;
    for (uint32_t i = 0; i < f->insts.len && !notes; i++) {
        const rv_inst *in = &f->insts.data[i];
        if (in->op == RAVEL_OP_UNDEF) x->undef = true;
        if (pairs && in->ndefs && !rv_is_edit(in) && (uint64_t)in->first_op + in->ndefs + in->nuses <= f->ops.len &&
            !ck_ops_overlap_clean(ck, in))
            x->opairs = true, pairs = false;
        if (in->op != RAVEL_OP_REMAT || !in->nimms) continue;
        x->remat = true;
        rv_vec_push(x->keys, rv_remat_k(f, in));
    }
    if (x->keys.len > 1) qsort(x->keys.data, x->keys.len, sizeof *x->keys.data, cmp_i64);
    uint32_t w = 0;
    for (uint32_t i = 0; i < x->keys.len; i++)
        if (!w || x->keys.data[w - 1] != x->keys.data[i]) x->keys.data[w++] = x->keys.data[i];
    x->keys.len = w;
    x->ntok = w;
    x->tok0 = ck->nvregs + 1;
    x->uli = ck->nlocs;
}

void ck_ext_free(ck_ext *x) { rv_vec_free(x->keys); }

uint32_t ck_token_of(const ravel_checker *ck, int64_t k)
{
    uint32_t lo = 0, hi = ck->ext.ntok;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ck->ext.keys.data[mid] < k) lo = mid + 1;
        else hi = mid;
    }
    return lo < ck->ext.ntok && ck->ext.keys.data[lo] == k ? ck->ext.tok0 + lo : CK_NIL;
}

uint32_t ck_const_token(const ravel_checker *ck, const rv_inst *in)
{
    if (!ck->ext.ntok || in->op != RAVEL_OP_CONST || in->ndefs != 1 || in->nuses || in->nimms != 1) return CK_NIL;
    const ravel_func *f = ck->f;
    if (f->vregs.data[rv_defs_of(f, in)[0].vreg].ref) return CK_NIL; /* (.ref vregs are never constants) */
    return ck_token_of(ck, f->imms.data[in->first_imm].value);
}

bool ck_copy_in_place(const ravel_checker *ck, const rv_inst *in)
{
    if (!ck->ext.alias || in->op != RAVEL_OP_COPY || in->ndefs != 1 || in->nuses < 1) return false;
    const rv_operand *o = rv_ops_of(ck->f, in);
    ravel_loc d = o[0].loc, u = o[1].loc;
    return d < ck->nregs && u < ck->nregs && rv_mach_contains(ck->f->mach, u, d);
}

const char *ck_member_name(const ravel_checker *ck, uint32_t m, char *buf)
{
    if (ck_is_token(ck, m)) {
        snprintf(buf, 32, "=%lld", (long long)ck->ext.keys.data[m - ck->ext.tok0]);
        return buf;
    }
    return ck_vname(ck->f, m, buf);
}
