/* rd_pass_attr.c - passes on what decorates instructions: constraints and
 * positions back to the default (`reg`, no early/late), clobber lists and
 * safepoints dropped, stackmap slots removed, immediates shrunk (to 0, then
 * halved). */
#include "reduce/rd.h"

/* Calls visit(o, lo, hi, &item) on every operand; visit counts the items it
 * offers and changes those in [lo, hi). Returns the count (or whether
 * anything changed, by the flag). */
typedef bool (*op_visit)(rv_operand *o, bool def, uint32_t lo, uint32_t hi, uint32_t *item);

static bool for_operands(rd_func *f, op_visit visit, uint32_t lo, uint32_t hi, uint32_t *n)
{
    bool changed = false;
    uint32_t item = 0;
    for (uint32_t b = 0; b < f->blocks.len; b++)
        for (uint32_t k = 0; k < f->blocks.data[b].insts.len; k++) {
            rd_inst *in = &f->blocks.data[b].insts.data[k];
            for (uint32_t d = 0; d < in->defs.len; d++) changed |= visit(&in->defs.data[d], true, lo, hi, &item);
            for (uint32_t u = 0; u < in->uses.len; u++)
                if (!in->uses.data[u].is_imm) changed |= visit(&in->uses.data[u].op, false, lo, hi, &item);
        }
    *n = item;
    return changed;
}

static bool plain(const rv_operand *o) { return o->kind == RAVEL_C_REG && !(o->flags & RV_OPF_EXPLICIT_POS); }

static bool constraint_visit(rv_operand *o, bool def, uint32_t lo, uint32_t hi, uint32_t *item)
{
    if (plain(o)) return false;
    uint32_t i = (*item)++;
    if (i < lo || i >= hi) return false;
    o->kind = RAVEL_C_REG;
    o->arg = 0;
    o->flags = (uint8_t)(def ? (RV_OPF_DEF | RV_OPF_LATE) : 0);
    return true;
}

static uint32_t constraints_count(const rd_func *f)
{
    uint32_t n;
    for_operands((rd_func *)f, constraint_visit, 0, 0, &n);
    return n;
}

static bool constraints_apply(rd_func *f, uint32_t lo, uint32_t hi)
{
    uint32_t n;
    return for_operands(f, constraint_visit, lo, hi, &n);
}

const rd_pass rd_pass_constraints = {"constraints", constraints_count, constraints_apply};

/* ---- instruction attributes: clobbers(...), safepoint + stackmap ------------------ */

static bool has_attr(const rd_inst *in)
{
    return !(in->op >= RAVEL_OP_JUMP && in->op <= RAVEL_OP_RET) && (in->flags & (RV_IF_CLOBBERS | RV_IF_SAFEPOINT));
}

static uint32_t attrs_count(const rd_func *f)
{
    uint32_t n = 0;
    for (uint32_t b = 0; b < f->blocks.len; b++)
        for (uint32_t k = 0; k < f->blocks.data[b].insts.len; k++) n += has_attr(&f->blocks.data[b].insts.data[k]);
    return n;
}

static bool attrs_apply(rd_func *f, uint32_t lo, uint32_t hi)
{
    uint32_t item = 0;
    bool changed = false;
    for (uint32_t b = 0; b < f->blocks.len; b++)
        for (uint32_t k = 0; k < f->blocks.data[b].insts.len; k++) {
            rd_inst *in = &f->blocks.data[b].insts.data[k];
            if (!has_attr(in)) continue;
            if (item >= lo && item < hi) {
                in->flags &= (uint8_t) ~(RV_IF_CLOBBERS | RV_IF_SAFEPOINT | RV_IF_STACKMAP);
                in->clob.len = in->smap.len = 0;
                changed = true;
            }
            item++;
        }
    return changed;
}

const rd_pass rd_pass_attrs = {"attributes", attrs_count, attrs_apply};

/* ---- list entries: stackmap slots, explicit clobbers ------------------------------------- */

/* The instruction's list that a list pass shrinks. */
typedef rd_u32s *(*rd_list_of)(rd_inst *in);
static rd_u32s *smap_of(rd_inst *in) { return &in->smap; }
static rd_u32s *clob_of(rd_inst *in) { return &in->clob; }

static uint32_t list_count(const rd_func *f, rd_list_of list)
{
    uint32_t n = 0;
    for (uint32_t b = 0; b < f->blocks.len; b++)
        for (uint32_t k = 0; k < f->blocks.data[b].insts.len; k++) n += list(&f->blocks.data[b].insts.data[k])->len;
    return n;
}

/* Removes entries lo .. hi-1, counted over the whole function (the
 * attribute stays, possibly empty). */
static bool list_apply(rd_func *f, uint32_t lo, uint32_t hi, rd_list_of list)
{
    uint32_t item = 0;
    bool changed = false;
    for (uint32_t b = 0; b < f->blocks.len; b++)
        for (uint32_t k = 0; k < f->blocks.data[b].insts.len; k++) {
            rd_u32s *l = list(&f->blocks.data[b].insts.data[k]);
            uint32_t w = 0;
            for (uint32_t s = 0; s < l->len; s++, item++) {
                if (item >= lo && item < hi) changed = true;
                else l->data[w++] = l->data[s];
            }
            l->len = w;
        }
    return changed;
}

static uint32_t smap_count(const rd_func *f) { return list_count(f, smap_of); }
static bool smap_apply(rd_func *f, uint32_t lo, uint32_t hi) { return list_apply(f, lo, hi, smap_of); }
const rd_pass rd_pass_smap = {"stackmap-slots", smap_count, smap_apply};

static uint32_t clob_count(const rd_func *f) { return list_count(f, clob_of); }
static bool clob_apply(rd_func *f, uint32_t lo, uint32_t hi) { return list_apply(f, lo, hi, clob_of); }
const rd_pass rd_pass_clobber_regs = {"clobber-lists", clob_count, clob_apply};

/* ---- immediates ------------------------------------------------------------------------ */

/* Counts immediates with |value| > floor; with set, changes those in
 * [lo, hi) by shrink. */
static uint32_t walk_imms(rd_func *f, int64_t floor, uint32_t lo, uint32_t hi, bool halve, bool *changed)
{
    uint32_t item = 0;
    for (uint32_t b = 0; b < f->blocks.len; b++)
        for (uint32_t k = 0; k < f->blocks.data[b].insts.len; k++) {
            rd_inst *in = &f->blocks.data[b].insts.data[k];
            for (uint32_t u = 0; u < in->uses.len; u++) {
                rd_use *x = &in->uses.data[u];
                if (!x->is_imm || (x->imm >= -floor && x->imm <= floor)) continue;
                if (changed && item >= lo && item < hi) {
                    x->imm = halve ? x->imm / 2 : 0;
                    *changed = true;
                }
                item++;
            }
        }
    return item;
}

static uint32_t zero_count(const rd_func *f) { return walk_imms((rd_func *)f, 0, 0, 0, false, NULL); }
static bool zero_apply(rd_func *f, uint32_t lo, uint32_t hi)
{
    bool changed = false;
    walk_imms(f, 0, lo, hi, false, &changed);
    return changed;
}
const rd_pass rd_pass_imm_zero = {"immediates-zero", zero_count, zero_apply};

static uint32_t halve_count(const rd_func *f) { return walk_imms((rd_func *)f, 1, 0, 0, true, NULL); }
static bool halve_apply(rd_func *f, uint32_t lo, uint32_t hi)
{
    bool changed = false;
    walk_imms(f, 1, lo, hi, true, &changed);
    return changed;
}
const rd_pass rd_pass_imm_halve = {"immediates-halve", halve_count, halve_apply};

