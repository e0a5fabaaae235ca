/* rd_pass_inst.c - passes on instructions and values: remove instructions
 * (and whatever used their defs), remove edits, remove values (a def or a
 * block parameter, with its arguments and whatever used it), remove use
 * operands. */
#include "reduce/rd.h"

#include <stdlib.h>

/* Visits the items of a pass in order: calls fn(f, b, k, ctx) for each
 * instruction k of block b that sel accepts, and counts them. */
typedef bool (*inst_sel)(const rd_inst *in, bool last);

static bool is_edit(const rd_inst *in) { return in->op >= RAVEL_OP_SPILL && in->op <= RAVEL_OP_REMAT; } /* a remat too (docs/format.md section 14.5) */
static bool sel_inst(const rd_inst *in, bool last) { return !last && !is_edit(in); }
static bool sel_edit(const rd_inst *in, bool last) { return !last && is_edit(in); }

static uint32_t count_sel(const rd_func *f, inst_sel sel)
{
    uint32_t n = 0;
    for (uint32_t b = 0; b < f->blocks.len; b++) {
        const rd_block *bl = &f->blocks.data[b];
        for (uint32_t k = 0; k < bl->insts.len; k++) n += sel(&bl->insts.data[k], k + 1 == bl->insts.len);
    }
    return n;
}

/* Removes the selected instructions number lo .. hi-1, then what used them. */
static bool remove_sel(rd_func *f, uint32_t lo, uint32_t hi, inst_sel sel)
{
    bool *dead = rv_xcalloc(f->vregs.len + 1, sizeof *dead);
    uint32_t item = 0;
    bool changed = false;
    for (uint32_t b = 0; b < f->blocks.len && item < hi; b++) {
        rd_block *bl = &f->blocks.data[b];
        for (uint32_t k = 0; k < bl->insts.len && item < hi;) {
            if (!sel(&bl->insts.data[k], k + 1 == bl->insts.len)) {
                k++;
                continue;
            }
            if (item++ >= lo) {
                rd_remove_inst(f, b, k, dead);
                changed = true;
            } else {
                k++;
            }
        }
    }
    if (changed) rd_kill_values(f, dead);
    rv_free(dead);
    return changed;
}

static uint32_t insts_count(const rd_func *f) { return count_sel(f, sel_inst); }
static bool insts_apply(rd_func *f, uint32_t lo, uint32_t hi) { return remove_sel(f, lo, hi, sel_inst); }
const rd_pass rd_pass_insts = {"instructions", insts_count, insts_apply};

static uint32_t edits_count(const rd_func *f) { return count_sel(f, sel_edit); }
static bool edits_apply(rd_func *f, uint32_t lo, uint32_t hi) { return remove_sel(f, lo, hi, sel_edit); }
const rd_pass rd_pass_edits = {"edits", edits_count, edits_apply};

/* ---- values: block parameters and defs -------------------------------------------- */

/* Marks (or counts) the values number lo .. hi-1: parameters of each block,
 * then the defs of its instructions, in layout order. */
static uint32_t walk_values(const rd_func *f, uint32_t lo, uint32_t hi, bool *dead)
{
    uint32_t item = 0;
    for (uint32_t b = 0; b < f->blocks.len; b++) {
        const rd_block *bl = &f->blocks.data[b];
        for (uint32_t k = 0; k < bl->params.len; k++, item++)
            if (dead && item >= lo && item < hi) dead[bl->params.data[k]] = true;
        for (uint32_t k = 0; k < bl->insts.len; k++)
            for (uint32_t d = 0; d < bl->insts.data[k].defs.len; d++, item++)
                if (dead && item >= lo && item < hi) dead[bl->insts.data[k].defs.data[d].vreg] = true;
    }
    return item;
}

static uint32_t values_count(const rd_func *f) { return walk_values(f, 0, 0, NULL); }

static bool values_apply(rd_func *f, uint32_t lo, uint32_t hi)
{
    bool *dead = rv_xcalloc(f->vregs.len + 1, sizeof *dead);
    walk_values(f, lo, hi, dead);
    rd_kill_values(f, dead);
    rv_free(dead);
    return true;
}

const rd_pass rd_pass_values = {"values", values_count, values_apply};

/* ---- use operands ---------------------------------------------------------------------- */

/* A vreg use that may go: not of a copy (exactly one use) nor a jump. */
static bool use_removable(const rd_inst *in, uint32_t u)
{
    return !in->uses.data[u].is_imm && in->op != RAVEL_OP_COPY && in->op != RAVEL_OP_JUMP;
}

static uint32_t operands_count(const rd_func *f)
{
    uint32_t n = 0;
    for (uint32_t b = 0; b < f->blocks.len; b++)
        for (uint32_t k = 0; k < f->blocks.data[b].insts.len; k++) {
            const rd_inst *in = &f->blocks.data[b].insts.data[k];
            for (uint32_t u = 0; u < in->uses.len; u++) n += use_removable(in, u);
        }
    return n;
}

static bool operands_apply(rd_func *f, uint32_t lo, uint32_t hi)
{
    uint32_t item = 0;
    bool changed = false;
    for (uint32_t b = 0; b < f->blocks.len && item < hi; b++)
        for (uint32_t k = 0; k < f->blocks.data[b].insts.len && item < hi; k++) {
            rd_inst *in = &f->blocks.data[b].insts.data[k];
            uint32_t first = item, n = 0;
            for (uint32_t u = 0; u < in->uses.len; u++) n += use_removable(in, u);
            item += n;
            for (uint32_t u = in->uses.len, j = n; u-- > 0;) { /* from the last use */
                if (!use_removable(in, u)) continue;
                j--;
                if (first + j >= lo && first + j < hi) rd_drop_use(in, u), changed = true;
            }
        }
    return changed;
}

const rd_pass rd_pass_operands = {"operands", operands_count, operands_apply};
