/*
 * edit.c - in-place edits of a finished function: insert an edit
 * (spill/reload/move), remove or move an instruction, replace a stackmap.
 * Bug injection (inject/) and the tests that corrupt
 * allocations edit functions only through these.
 *
 * Requires: f finished (ravel_func_finish: blocks 0..layout.len-1 in layout
 * order, each block's instructions contiguous in f->insts).
 * Guarantees: the blocks' instruction ranges follow the edit and f->nslots
 * covers every slot an edit adds. Instruction indices past the edit shift,
 * and analyses built before (rv_cfg, liveness) no longer describe f. The
 * operands, immediates and stackmap lists of other instructions are left
 * where they are (an instruction's fields point into them).
 */
#include "ir/ir.h"

void rv_note_slot(ravel_func *f, ravel_loc l)
{
    if (ravel_loc_is_slot(l) && ravel_loc_slot(l) >= f->nslots) f->nslots = ravel_loc_slot(l) + 1;
}

uint32_t rv_block_of_inst(const ravel_func *f, uint32_t i)
{
    for (uint32_t b = 0; b < f->layout.len; b++) {
        const rv_block *bb = &f->blocks.data[b];
        if (i >= bb->first_inst && i < bb->first_inst + bb->ninsts) return b;
    }
    return RAVEL_NONE;
}

void rv_inst_remove(ravel_func *f, uint32_t i)
{
    uint32_t b = rv_block_of_inst(f, i);
    memmove(&f->insts.data[i], &f->insts.data[i + 1], (f->insts.len - i - 1) * sizeof *f->insts.data);
    f->insts.len--;
    f->blocks.data[b].ninsts--;
    for (uint32_t k = 0; k < f->blocks.len; k++)
        if (k != b && f->blocks.data[k].ninsts && f->blocks.data[k].first_inst > i) f->blocks.data[k].first_inst--;
}

void rv_edit_insert(ravel_func *f, uint32_t b, uint32_t i, ravel_opcode kind, ravel_loc dst, ravel_loc src)
{
    rv_inst in;
    memset(&in, 0, sizeof in);
    in.op = (uint8_t)kind;
    in.name = RAVEL_NONE;
    in.u.edit.dst = dst;
    in.u.edit.src = src;
    rv_vec_reserve(f->insts, 1);
    memmove(&f->insts.data[i + 1], &f->insts.data[i], (f->insts.len - i) * sizeof *f->insts.data);
    f->insts.data[i] = in;
    f->insts.len++;
    f->blocks.data[b].ninsts++;
    for (uint32_t k = 0; k < f->blocks.len; k++)
        if (k != b && f->blocks.data[k].ninsts && f->blocks.data[k].first_inst >= i) f->blocks.data[k].first_inst++;
    rv_note_slot(f, dst);
    rv_note_slot(f, src);
}

void rv_inst_move_before(ravel_func *f, uint32_t p, uint32_t q)
{
    rv_inst t = f->insts.data[q];
    memmove(&f->insts.data[p + 1], &f->insts.data[p], (q - p) * sizeof *f->insts.data);
    f->insts.data[p] = t;
}

void rv_inst_swap(ravel_func *f, uint32_t i, uint32_t j)
{
    rv_inst t = f->insts.data[i];
    f->insts.data[i] = f->insts.data[j];
    f->insts.data[j] = t;
}

void rv_inst_set_stackmap(ravel_func *f, uint32_t i, const uint32_t *slots, uint32_t n)
{
    uint32_t first = f->u32.len;
    rv_vec_reserve(f->u32, n ? n : 1);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t s = slots[k], pos = f->u32.len;
        bool dup = false;
        for (uint32_t j = first; j < f->u32.len; j++) dup |= f->u32.data[j] == s;
        if (dup) continue;
        while (pos > first && f->u32.data[pos - 1] > s) { /* insertion sort */
            f->u32.data[pos] = f->u32.data[pos - 1];
            pos--;
        }
        f->u32.data[pos] = s;
        f->u32.len++;
        rv_note_slot(f, ravel_slot(s));
    }
    rv_inst *in = &f->insts.data[i];
    in->u.smap.first = first;
    in->u.smap.n = f->u32.len - first;
    in->flags |= RV_IF_STACKMAP;
}
