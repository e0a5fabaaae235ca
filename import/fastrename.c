/*
 * fastrename.c - R27's copies that fast deleted in one register, where
 * writing them would lose a value (docs/import-mapping.md R27).
 *
 * fast deletes `%2120:gr8 = COPY %2119` when both vregs got `cl`, here
 * right after the in-place extract `%2119:gr8 = COPY %2118.sub_8bit` with
 * %2118 in `ecx`. Nothing executes: `ecx` still holds %2118. Written as
 * `v2120 @cl = copy v2119 @cl`, the copy is a write of `cl`, which empties
 * every register overlapping `cl` (docs/format.md §14.1: containment is
 * irreflexive, so this is no in-place copy), and a later read of %2118
 * through `ecx` is rejected although the allocation is right. The format
 * cannot say "a copy in place within one register"; so such a copy (build.c
 * marks it: a register overlapping its register held a value where it was
 * placed) is dropped, and the readers of its def read its source instead.
 * That substitution changes nothing the original computes provided every
 * reader lies in the copy's block, before the def's next definition there,
 * and the source is not redefined in between; otherwise the copy stays.
 * The readers keep their registers, so the checker still verifies that
 * the source is where each of them reads it: a wrong deletion is still
 * rejected (tests/import/edited/wrong-samereg-*).
 *
 * Requires: imp_same has compared the two forms (both texts are emitted
 * from the allocated function). Guarantees: each dropped copy's def is
 * read nowhere but where its source now is read; edits are untouched.
 */
#include "import/imp.h"

static bool is_op(const ra_inst *in)
{
    return in->kind < RK_SPILL || in->kind >= RK_JUMP; /* ops and terminators name vregs; edits do not */
}

static bool defines(const ra_func *f, const ra_inst *in, uint32_t v)
{
    for (uint32_t j = in->d0; j < in->d0 + in->nd; j++)
        if (f->defs.data[j].vreg == v) return true;
    return false;
}

/* The instruction of block b after copy c that next defines vd (its uses
 * are the last renamed); RVI_NONE when the block ends first, or when vs is
 * redefined before it. */
static uint32_t window_end(const ra_func *f, const ra_block *b, uint32_t c, uint32_t vd, uint32_t vs)
{
    for (uint32_t i = c + 1; i < b->i0 + b->n; i++) {
        const ra_inst *in = &f->insts.data[i];
        if (!is_op(in)) continue;
        if (defines(f, in, vd)) return i;
        if (defines(f, in, vs)) return RVI_NONE;
    }
    return RVI_NONE;
}

static void rename_uses(ra_func *f, uint32_t from, uint32_t to, uint32_t vd, uint32_t vs)
{
    for (uint32_t i = from; i <= to; i++) {
        const ra_inst *in = &f->insts.data[i];
        for (uint32_t j = in->u0; j < in->u0 + in->nu; j++)
            if (!f->uses.data[j].imm && f->uses.data[j].o.vreg == vd) f->uses.data[j].o.vreg = vs;
    }
}

/* Removes the instructions marked in gone, keeping each block's range. */
static void compact(ra_func *f, const uint8_t *gone)
{
    uint32_t w = 0;
    for (uint32_t bi = 0; bi < f->blocks.len; bi++) {
        ra_block *b = &f->blocks.data[bi];
        uint32_t i0 = w;
        for (uint32_t i = b->i0; i < b->i0 + b->n; i++)
            if (!gone[i]) f->insts.data[w++] = f->insts.data[i];
        b->i0 = i0;
        b->n = w - i0;
    }
    f->insts.len = w;
}

void imp_fast_renames(imp *x, ra_func *f)
{
    uint8_t *gone = NULL;
    for (uint32_t bi = 0; bi < f->blocks.len; bi++) {
        const ra_block *b = &f->blocks.data[bi];
        for (uint32_t c = b->i0; c < b->i0 + b->n; c++) {
            const ra_inst *in = &f->insts.data[c];
            if (!in->samereg) continue;
            uint32_t vd = f->defs.data[in->d0].vreg, vs = f->uses.data[in->u0].o.vreg;
            uint32_t e = window_end(f, b, c, vd, vs);
            if (e == RVI_NONE) continue;
            rename_uses(f, c + 1, e, vd, vs);
            if (!gone) gone = rv_arena_alloc(&x->arena, f->insts.len); /* zeroed */
            gone[c] = 1;
        }
    }
    if (gone) compact(f, gone);
}
