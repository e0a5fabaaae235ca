/*
 * access.c - the public read API (include/ravel.h, "reading a machine and a
 * function"): every accessor follows the misuse rule (NULL or an id out of
 * range -> the documented error value, never a crash) and reads the
 * representation of ir.h without changing it.
 *
 * Requires: for the function accessors, a finished function (ravel_func_finish
 * called, or parsed): block ids follow the layout, so blocks 0..nblocks-1 are
 * the started blocks in layout order and their instructions are contiguous.
 * Guarantees: indexes are dense (instructions 0..n-1 in layout order, edits
 * included); positions are effective ones; clobbers both as written and as
 * effective; stackmaps present-but-empty are distinguished from absent.
 */
#include "ir.h"

/* ---- machine ------------------------------------------------------------ */

const char *ravel_machine_class_name(const ravel_machine *m, uint32_t cls)
{
    return m && cls < m->classes.len ? m->classes.data[cls].name : NULL;
}

int ravel_machine_reg_class(const ravel_machine *m, uint32_t reg)
{
    return m && reg < m->regs.len ? (int)m->regs.data[reg].cls : -1;
}

int ravel_machine_reg_reserved(const ravel_machine *m, uint32_t reg)
{
    return m && reg < m->regs.len ? (m->regs.data[reg].reserved ? 1 : 0) : -1;
}

uint32_t ravel_machine_class_nallocatable(const ravel_machine *m, uint32_t cls)
{
    return m && cls < m->classes.len ? m->classes.data[cls].alloc.len : 0;
}

uint32_t ravel_machine_class_allocatable(const ravel_machine *m, uint32_t cls, uint32_t i)
{
    if (!m || cls >= m->classes.len || i >= m->classes.data[cls].alloc.len) return RAVEL_NONE;
    return m->classes.data[cls].alloc.data[i];
}

uint32_t ravel_machine_nclobbers(const ravel_machine *m) { return m ? m->clobbers.len : 0; }

uint32_t ravel_machine_clobber(const ravel_machine *m, uint32_t i)
{
    return m && i < m->clobbers.len ? m->clobbers.data[i] : RAVEL_NONE;
}

int ravel_machine_gc_moving(const ravel_machine *m) { return m ? (m->gc_nonmoving ? 0 : 1) : -1; }

uint32_t ravel_machine_ncontainers(const ravel_machine *m) { return m ? m->alias_order.len : 0; }

uint32_t ravel_machine_container(const ravel_machine *m, uint32_t i)
{
    return m && i < m->alias_order.len ? m->alias_order.data[i] : RAVEL_NONE;
}

uint32_t ravel_machine_ncontained(const ravel_machine *m, uint32_t reg)
{
    const uint32_t *l;
    return m && reg < m->regs.len ? rv_mach_contained(m, reg, &l) : 0;
}

uint32_t ravel_machine_contained(const ravel_machine *m, uint32_t reg, uint32_t k)
{
    const uint32_t *l;
    return m && reg < m->regs.len && k < rv_mach_contained(m, reg, &l) ? l[k] : RAVEL_NONE;
}

int ravel_machine_contains(const ravel_machine *m, uint32_t r, uint32_t s)
{
    return m && r < m->regs.len && s < m->regs.len ? rv_mach_contains(m, r, s) : -1;
}

int ravel_machine_overlap(const ravel_machine *m, uint32_t r, uint32_t s)
{
    return m && r < m->regs.len && s < m->regs.len ? rv_mach_overlap(m, r, s) : -1;
}

uint32_t ravel_machine_noverlapping(const ravel_machine *m, uint32_t reg)
{
    const uint32_t *l;
    return m && reg < m->regs.len ? rv_mach_overlaps(m, reg, &l) : 0;
}

uint32_t ravel_machine_overlapping(const ravel_machine *m, uint32_t reg, uint32_t k)
{
    const uint32_t *l;
    return m && reg < m->regs.len && k < rv_mach_overlaps(m, reg, &l) ? l[k] : RAVEL_NONE;
}

/* ---- function, vregs, blocks -------------------------------------------- */

const ravel_machine *ravel_func_machine(const ravel_func *f) { return f ? f->mach : NULL; }
const char *ravel_func_name(const ravel_func *f) { return f ? rv_func_name(f) : NULL; }
uint32_t ravel_func_nvregs(const ravel_func *f) { return f ? f->vregs.len : 0; }

static const rv_vreg *vreg_at(const ravel_func *f, uint32_t v)
{
    return f && v < f->vregs.len ? &f->vregs.data[v] : NULL;
}

int ravel_vreg_class(const ravel_func *f, uint32_t v)
{
    const rv_vreg *r = vreg_at(f, v);
    return r && r->has_class ? (int)r->cls : -1;
}

int ravel_vreg_is_ref(const ravel_func *f, uint32_t v)
{
    const rv_vreg *r = vreg_at(f, v);
    return r ? (r->ref ? 1 : 0) : -1;
}

uint32_t ravel_vreg_number(const ravel_func *f, uint32_t v)
{
    const rv_vreg *r = vreg_at(f, v);
    return r ? r->num : RAVEL_NONE;
}

uint32_t ravel_func_find_vreg(const ravel_func *f, uint32_t number)
{
    if (!f) return RAVEL_NONE;
    if (f->vmap_built) return rv_map_get(&f->vreg_by_num, number, RAVEL_NONE);
    for (uint32_t i = 0; i < f->vregs.len; i++)
        if (f->vregs.data[i].num == number) return i;
    return RAVEL_NONE;
}

/* Started blocks only: after finish they are 0..layout.len-1; blocks never
 * started (undefined labels, which the validator rejects) are not counted. */
uint32_t ravel_func_nblocks(const ravel_func *f) { return f ? f->layout.len : 0; }

static const rv_block *block_at(const ravel_func *f, uint32_t b)
{
    return f && b < f->layout.len && b < f->blocks.len ? &f->blocks.data[b] : NULL;
}

const char *ravel_block_name(const ravel_func *f, uint32_t b)
{
    return block_at(f, b) ? rv_block_name(f, b) : NULL;
}

uint32_t ravel_block_nparams(const ravel_func *f, uint32_t b)
{
    const rv_block *bl = block_at(f, b);
    return bl ? bl->nparams : 0;
}

uint32_t ravel_block_param(const ravel_func *f, uint32_t b, uint32_t k)
{
    const rv_block *bl = block_at(f, b);
    return bl && k < bl->nparams ? rv_block_params(f, bl)[k] : RAVEL_NONE;
}

uint32_t ravel_block_first_inst(const ravel_func *f, uint32_t b)
{
    const rv_block *bl = block_at(f, b);
    return bl && bl->ninsts ? bl->first_inst : RAVEL_NONE;
}

uint32_t ravel_block_ninsts(const ravel_func *f, uint32_t b)
{
    const rv_block *bl = block_at(f, b);
    return bl ? bl->ninsts : 0;
}

/* ---- instructions ------------------------------------------------------- */

uint32_t ravel_func_ninsts(const ravel_func *f) { return f ? f->insts.len : 0; }

static const rv_inst *inst_at(const ravel_func *f, uint32_t i)
{
    return f && i < f->insts.len ? &f->insts.data[i] : NULL;
}

uint32_t ravel_inst_block(const ravel_func *f, uint32_t i)
{
    if (!inst_at(f, i)) return RAVEL_NONE;
    uint32_t lo = 0, hi = ravel_func_nblocks(f); /* first_inst grows with the layout */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const rv_block *b = &f->blocks.data[mid];
        if (i < b->first_inst) hi = mid;
        else if (i >= b->first_inst + b->ninsts) lo = mid + 1;
        else return mid;
    }
    return RAVEL_NONE;
}

int ravel_inst_opcode(const ravel_func *f, uint32_t i)
{
    const rv_inst *in = inst_at(f, i);
    return in ? (int)in->op : -1;
}

const char *ravel_inst_name(const ravel_func *f, uint32_t i)
{
    const rv_inst *in = inst_at(f, i);
    if (!in || in->name == RAVEL_NONE || (in->op != RAVEL_OP_OTHER && in->op != RAVEL_OP_CALL)) return NULL;
    return rv_sym_str(&f->syms, in->name);
}

const char *ravel_opcode_name(int op)
{
    return op > RAVEL_OP_OTHER && op < RAVEL_OP_COUNT_ ? rv_opcode_name((ravel_opcode)op) : NULL;
}

uint32_t ravel_inst_ndefs(const ravel_func *f, uint32_t i)
{
    const rv_inst *in = inst_at(f, i);
    return in ? in->ndefs : 0;
}

uint32_t ravel_inst_nuses(const ravel_func *f, uint32_t i)
{
    const rv_inst *in = inst_at(f, i);
    return in ? in->nuses : 0;
}

int ravel_inst_operand(const ravel_func *f, uint32_t i, uint32_t k, ravel_operand *out)
{
    const rv_inst *in = inst_at(f, i);
    if (!in || !out || k >= (uint32_t)in->ndefs + in->nuses) return RAVEL_EINVAL;
    const rv_operand *o = &rv_inst_ops(f, in)[k];
    out->vreg = o->vreg;
    out->is_def = rv_op_is_def(o) ? 1 : 0;
    out->constraint = (ravel_constraint)o->kind;
    out->arg = (o->kind == RAVEL_C_FIXED || o->kind == RAVEL_C_REUSE) ? o->arg : 0;
    out->pos = rv_op_is_late(o) ? RAVEL_POS_LATE : RAVEL_POS_EARLY;
    out->loc = o->loc;
    return RAVEL_OK;
}

uint32_t ravel_inst_nimms(const ravel_func *f, uint32_t i)
{
    const rv_inst *in = inst_at(f, i);
    return in ? in->nimms : 0;
}

int ravel_inst_imm_at(const ravel_func *f, uint32_t i, uint32_t k, int64_t *value, uint32_t *use_pos)
{
    const rv_inst *in = inst_at(f, i);
    if (!in || k >= in->nimms) return RAVEL_EINVAL;
    const rv_imm *im = &f->imms.data[in->first_imm + k];
    if (value) *value = im->value;
    if (use_pos) *use_pos = im->pos;
    return RAVEL_OK;
}

int ravel_inst_has_clobbers(const ravel_func *f, uint32_t i)
{
    const rv_inst *in = inst_at(f, i);
    return in ? ((in->flags & RV_IF_CLOBBERS) ? 1 : 0) : -1;
}

uint32_t ravel_inst_nclobbers(const ravel_func *f, uint32_t i)
{
    const rv_inst *in = inst_at(f, i);
    return in && (in->flags & RV_IF_CLOBBERS) ? in->nclob : 0;
}

uint32_t ravel_inst_clobber(const ravel_func *f, uint32_t i, uint32_t k)
{
    const rv_inst *in = inst_at(f, i);
    if (!in || !(in->flags & RV_IF_CLOBBERS) || k >= in->nclob) return RAVEL_NONE;
    return f->u32.data[in->first_clob + k];
}

uint32_t ravel_inst_nclobbered(const ravel_func *f, uint32_t i)
{
    const rv_inst *in = inst_at(f, i);
    const uint32_t *regs;
    return in ? rv_inst_clobbers(f, in, &regs) : 0;
}

uint32_t ravel_inst_clobbered(const ravel_func *f, uint32_t i, uint32_t k)
{
    const rv_inst *in = inst_at(f, i);
    const uint32_t *regs = NULL;
    if (!in) return RAVEL_NONE;
    uint32_t n = rv_inst_clobbers(f, in, &regs);
    return k < n ? regs[k] : RAVEL_NONE;
}

int ravel_inst_is_safepoint(const ravel_func *f, uint32_t i)
{
    const rv_inst *in = inst_at(f, i);
    return in ? ((in->flags & RV_IF_SAFEPOINT) ? 1 : 0) : -1;
}

/* The union u holds a stackmap only on non-terminator, non-edit instructions. */
static bool has_smap(const rv_inst *in) { return !rv_is_term(in) && !rv_is_edit(in) && (in->flags & RV_IF_STACKMAP); }

int ravel_inst_has_stackmap(const ravel_func *f, uint32_t i)
{
    const rv_inst *in = inst_at(f, i);
    return in ? (has_smap(in) ? 1 : 0) : -1;
}

uint32_t ravel_inst_stackmap_len(const ravel_func *f, uint32_t i)
{
    const rv_inst *in = inst_at(f, i);
    return in && has_smap(in) ? in->u.smap.n : 0;
}

uint32_t ravel_inst_stackmap_slot(const ravel_func *f, uint32_t i, uint32_t k)
{
    const rv_inst *in = inst_at(f, i);
    if (!in || !has_smap(in) || k >= in->u.smap.n) return RAVEL_NONE;
    return f->u32.data[in->u.smap.first + k];
}

uint32_t ravel_inst_nsuccs(const ravel_func *f, uint32_t i)
{
    const rv_inst *in = inst_at(f, i);
    return in ? rv_inst_nsuccs(in) : 0;
}

static const rv_succ *succ_at(const ravel_func *f, uint32_t i, uint32_t k)
{
    const rv_inst *in = inst_at(f, i);
    return in && k < rv_inst_nsuccs(in) ? &rv_inst_succs(f, in)[k] : NULL;
}

uint32_t ravel_inst_succ_block(const ravel_func *f, uint32_t i, uint32_t k)
{
    const rv_succ *s = succ_at(f, i, k);
    return s ? s->block : RAVEL_NONE;
}

uint32_t ravel_inst_succ_nargs(const ravel_func *f, uint32_t i, uint32_t k)
{
    const rv_succ *s = succ_at(f, i, k);
    return s ? s->nargs : 0;
}

uint32_t ravel_inst_succ_arg(const ravel_func *f, uint32_t i, uint32_t k, uint32_t j)
{
    const rv_succ *s = succ_at(f, i, k);
    return s && j < s->nargs ? rv_succ_args(f, s)[j] : RAVEL_NONE;
}

ravel_loc ravel_edit_dst(const ravel_func *f, uint32_t i)
{
    const rv_inst *in = inst_at(f, i);
    return in && rv_is_edit(in) ? in->u.edit.dst : RAVEL_LOC_NONE;
}

ravel_loc ravel_edit_src(const ravel_func *f, uint32_t i)
{
    const rv_inst *in = inst_at(f, i);
    return in && rv_is_edit(in) ? in->u.edit.src : RAVEL_LOC_NONE;
}

int ravel_inst_is_edit(const ravel_func *f, uint32_t i)
{
    const rv_inst *in = inst_at(f, i);
    return in ? (rv_is_edit(in) ? 1 : 0) : -1;
}

int ravel_inst_is_undef(const ravel_func *f, uint32_t i)
{
    const rv_inst *in = inst_at(f, i);
    return in ? (in->op == RAVEL_OP_UNDEF ? 1 : 0) : -1;
}

int ravel_remat_const(const ravel_func *f, uint32_t i, int64_t *k)
{
    const rv_inst *in = inst_at(f, i);
    if (!in || in->op != RAVEL_OP_REMAT || in->nimms != 1) return RAVEL_EINVAL;
    if (k) *k = rv_remat_k(f, in);
    return RAVEL_OK;
}

int ravel_inst_is_terminator(const ravel_func *f, uint32_t i)
{
    const rv_inst *in = inst_at(f, i);
    return in ? (rv_is_term(in) ? 1 : 0) : -1;
}

uint32_t ravel_func_nslots(const ravel_func *f) { return f ? f->nslots : 0; }

int ravel_func_is_allocated(const ravel_func *f) { return f ? (rv_func_is_allocated(f) ? 1 : 0) : -1; }
