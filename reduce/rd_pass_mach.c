/* rd_pass_mach.c - passes that simplify the machine: registers the function
 * never names go (the allocators then have fewer to choose from), classes
 * without registers or values go, the default clobber set shrinks. Register
 * and class ids are dense, so every mention is renumbered. */
#include "reduce/rd.h"

#include <stdlib.h>

/* Calls fn on every register id the function names: locations, fixed(R),
 * edits, clobber lists. */
static void for_regs(rd_func *f, void (*fn)(uint32_t *r, void *ctx), void *ctx)
{
    for (uint32_t b = 0; b < f->blocks.len; b++)
        for (uint32_t k = 0; k < f->blocks.data[b].insts.len; k++) {
            rd_inst *in = &f->blocks.data[b].insts.data[k];
            for (uint32_t j = 0; j < in->defs.len + in->uses.len; j++) {
                bool isdef = j < in->defs.len;
                if (!isdef && in->uses.data[j - in->defs.len].is_imm) continue;
                rv_operand *o = isdef ? &in->defs.data[j] : &in->uses.data[j - in->defs.len].op;
                if (o->loc != RAVEL_LOC_NONE && ravel_loc_is_reg(o->loc)) fn(&o->loc, ctx);
                if (o->kind == RAVEL_C_FIXED) {
                    uint32_t r = o->arg;
                    fn(&r, ctx);
                    o->arg = (uint16_t)r;
                }
            }
            bool edit = in->op >= RAVEL_OP_SPILL && in->op <= RAVEL_OP_REMAT;
            if (edit && in->dst != RAVEL_LOC_NONE && ravel_loc_is_reg(in->dst)) fn(&in->dst, ctx);
            if (edit && in->src != RAVEL_LOC_NONE && ravel_loc_is_reg(in->src)) fn(&in->src, ctx);
            for (uint32_t c = 0; c < in->clob.len; c++) fn(&in->clob.data[c], ctx);
        }
}

static void mark_used(uint32_t *r, void *ctx)
{
    bool *used = ctx;
    used[*r] = true;
}

static void remap(uint32_t *r, void *ctx)
{
    const uint32_t *map = ctx;
    *r = map[*r];
}

/* The containment pairs after registers were renumbered by map (a pair
 * with a dropped register goes; what is left still has no cycle). */
static void remap_alias(rd_mach *m, const uint32_t *map)
{
    uint32_t w = 0;
    for (uint32_t k = 0; k + 1 < m->alias.len; k += 2) {
        uint32_t r = map[m->alias.data[k]], s = map[m->alias.data[k + 1]];
        if (r == RAVEL_NONE || s == RAVEL_NONE) continue;
        m->alias.data[w++] = r;
        m->alias.data[w++] = s;
    }
    m->alias.len = w;
}

static bool *regs_used(rd_func *f)
{
    bool *used = rv_xcalloc(f->m.regs.len + 1, sizeof *used);
    for_regs(f, mark_used, used);
    return used;
}

static uint32_t regs_count(const rd_func *f)
{
    bool *used = regs_used((rd_func *)f);
    uint32_t n = 0;
    for (uint32_t r = 0; r < f->m.regs.len; r++) n += !used[r];
    rv_free(used);
    return n;
}

/* Removes the unused registers number lo .. hi-1. */
static bool regs_apply(rd_func *f, uint32_t lo, uint32_t hi)
{
    bool *used = regs_used(f);
    uint32_t *map = rv_xmalloc(sizeof *map * (f->m.regs.len + 1));
    uint32_t item = 0, w = 0;
    for (uint32_t r = 0; r < f->m.regs.len; r++) {
        bool drop = !used[r] && item >= lo && item < hi;
        item += !used[r];
        map[r] = drop ? RAVEL_NONE : w;
        if (!drop) f->m.regs.data[w++] = f->m.regs.data[r];
    }
    bool changed = w != f->m.regs.len;
    f->m.regs.len = w;
    for_regs(f, remap, map);
    uint32_t c = 0;
    for (uint32_t k = 0; k < f->m.clobbers.len; k++)
        if (map[f->m.clobbers.data[k]] != RAVEL_NONE) f->m.clobbers.data[c++] = map[f->m.clobbers.data[k]];
    f->m.clobbers.len = c;
    remap_alias(&f->m, map);
    rv_free(map);
    rv_free(used);
    return changed;
}

const rd_pass rd_pass_regs = {"registers", regs_count, regs_apply};

/* ---- classes ----------------------------------------------------------------------------- */

/* used[c]: class c has a register the function names, or a value it
 * defines. A class that is not used goes with all of its registers. */
static bool *classes_used(rd_func *f)
{
    bool *used = rv_xcalloc(f->m.classes.len + 1, sizeof *used), *rused = regs_used(f);
    for (uint32_t r = 0; r < f->m.regs.len; r++)
        if (rused[r]) used[f->m.regs.data[r].cls] = true;
    for (uint32_t b = 0; b < f->blocks.len; b++) {
        const rd_block *bl = &f->blocks.data[b];
        for (uint32_t k = 0; k < bl->params.len; k++) used[f->vregs.data[bl->params.data[k]].cls] = true;
        for (uint32_t k = 0; k < bl->insts.len; k++)
            for (uint32_t d = 0; d < bl->insts.data[k].defs.len; d++)
                used[f->vregs.data[bl->insts.data[k].defs.data[d].vreg].cls] = true;
    }
    rv_free(rused);
    return used;
}

static uint32_t classes_count(const rd_func *f)
{
    bool *used = classes_used((rd_func *)f);
    uint32_t n = 0;
    for (uint32_t c = 0; c < f->m.classes.len; c++) n += !used[c];
    rv_free(used);
    return n;
}

static bool classes_apply(rd_func *f, uint32_t lo, uint32_t hi)
{
    bool *used = classes_used(f);
    uint32_t map[RV_MAX_CLASSES + 1], item = 0, w = 0;
    bool drop[RV_MAX_CLASSES + 1];
    for (uint32_t c = 0; c < f->m.classes.len; c++) {
        drop[c] = !used[c] && item >= lo && item < hi;
        item += !used[c];
        map[c] = drop[c] ? 0 : w; /* values of a dropped class are not mentioned */
        if (!drop[c]) f->m.classes.data[w++] = f->m.classes.data[c];
    }
    bool changed = w != f->m.classes.len;
    uint32_t nclasses = f->m.classes.len;
    f->m.classes.len = w;
    /* its registers go first (none is named), renumbering the others */
    uint32_t *rmap = rv_xmalloc(sizeof *rmap * (f->m.regs.len + 1)), rw = 0;
    for (uint32_t r = 0; r < f->m.regs.len; r++) {
        uint32_t c = f->m.regs.data[r].cls;
        rmap[r] = c < nclasses && drop[c] ? RAVEL_NONE : rw;
        if (rmap[r] != RAVEL_NONE) {
            f->m.regs.data[rw] = f->m.regs.data[r];
            f->m.regs.data[rw++].cls = (uint8_t)map[c];
        }
    }
    f->m.regs.len = rw;
    for_regs(f, remap, rmap);
    uint32_t k2 = 0;
    for (uint32_t k = 0; k < f->m.clobbers.len; k++)
        if (rmap[f->m.clobbers.data[k]] != RAVEL_NONE) f->m.clobbers.data[k2++] = rmap[f->m.clobbers.data[k]];
    f->m.clobbers.len = k2;
    remap_alias(&f->m, rmap);
    for (uint32_t v = 0; v < f->vregs.len; v++) f->vregs.data[v].cls = (uint8_t)map[f->vregs.data[v].cls];
    rv_free(rmap);
    rv_free(used);
    return changed && w > 0;
}

const rd_pass rd_pass_classes = {"classes", classes_count, classes_apply};

/* ---- the default clobber set ----------------------------------------------------------------- */

static uint32_t clob_count(const rd_func *f) { return f->m.clobbers.len; }

static bool clob_apply(rd_func *f, uint32_t lo, uint32_t hi)
{
    uint32_t w = 0;
    for (uint32_t k = 0; k < f->m.clobbers.len; k++)
        if (k < lo || k >= hi) f->m.clobbers.data[w++] = f->m.clobbers.data[k];
    bool changed = w != f->m.clobbers.len;
    f->m.clobbers.len = w;
    return changed;
}

const rd_pass rd_pass_mach_clobbers = {"machine-clobbers", clob_count, clob_apply};

/* ---- the collector: `gc nonmoving` back to the default -------------------------------------- */

static uint32_t gc_count(const rd_func *f) { return f->m.gc_nonmoving ? 1 : 0; }

static bool gc_apply(rd_func *f, uint32_t lo, uint32_t hi)
{
    (void)lo, (void)hi;
    bool changed = f->m.gc_nonmoving;
    f->m.gc_nonmoving = false;
    return changed;
}

const rd_pass rd_pass_gc = {"gc", gc_count, gc_apply};
