/* func.c - functions: the builder (public C API), accessors, clone, strip,
 * structural equality.
 * Builder guarantees: instructions of a block are contiguous; an
 * instruction's defs precede its uses in f->ops; every id stored is in
 * range. The builder does not enforce the format's structural rules (that
 * is ravel_validate's job), only what keeps the representation sound. */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

static const char *const opnames[RAVEL_OP_COUNT_] = {
    [RAVEL_OP_OTHER] = NULL, [RAVEL_OP_ARGS] = "args", [RAVEL_OP_CONST] = "const",
    [RAVEL_OP_COPY] = "copy", [RAVEL_OP_ADD] = "add", [RAVEL_OP_SUB] = "sub",
    [RAVEL_OP_MUL] = "mul", [RAVEL_OP_AND] = "and", [RAVEL_OP_OR] = "or",
    [RAVEL_OP_XOR] = "xor", [RAVEL_OP_SHL] = "shl", [RAVEL_OP_SHR] = "shr",
    [RAVEL_OP_SAR] = "sar", [RAVEL_OP_EQ] = "eq", [RAVEL_OP_NE] = "ne",
    [RAVEL_OP_LT] = "lt", [RAVEL_OP_LE] = "le", [RAVEL_OP_OUT] = "out",
    [RAVEL_OP_CALL] = "call", [RAVEL_OP_JUMP] = "jump", [RAVEL_OP_BR] = "br",
    [RAVEL_OP_RET] = "ret", [RAVEL_OP_SPILL] = "spill", [RAVEL_OP_RELOAD] = "reload",
    [RAVEL_OP_MOVE] = "move", [RAVEL_OP_REMAT] = "remat", [RAVEL_OP_UNDEF] = "undef",
};

const char *rv_opcode_name(ravel_opcode op) { return (unsigned)op < RAVEL_OP_COUNT_ ? opnames[op] : NULL; }

ravel_opcode rv_opcode_from_name(const char *s, size_t n)
{
    if (n == 0) return RAVEL_OP_OTHER;
    for (int op = RAVEL_OP_ARGS; op <= RAVEL_OP_CALL; op++) /* the first byte first: few strlen calls */
        if (opnames[op][0] == s[0] && strlen(opnames[op]) == n && memcmp(opnames[op], s, n) == 0) return (ravel_opcode)op;
    if (n == 5 && memcmp(s, "undef", 5) == 0) return RAVEL_OP_UNDEF;
    return RAVEL_OP_OTHER;
}

const char *rv_inst_mnemonic(const ravel_func *f, const rv_inst *i)
{
    if (i->op == RAVEL_OP_OTHER) return i->name != RAVEL_NONE ? rv_sym_str(&f->syms, i->name) : "?";
    return opnames[i->op];
}

const char *rv_loc_str(const ravel_machine *m, ravel_loc l, char *buf)
{
    if (m && l < m->regs.len) return m->regs.data[l].name; /* whole, whatever its length */
    if (l == RAVEL_LOC_NONE) {
        strcpy(buf, "-");
    } else if (ravel_loc_is_slot(l)) { /* by hand: the printer writes a slot at most operands */
        char t[12];
        uint32_t i = sizeof t, v = ravel_loc_slot(l);
        do t[--i] = (char)('0' + v % 10);
        while (v /= 10);
        buf[0] = 's';
        memcpy(buf + 1, t + i, sizeof t - i);
        buf[1 + sizeof t - i] = 0;
    } else {
        snprintf(buf, 32, "reg#%u", l);
    }
    return buf;
}

uint32_t rv_inst_clobbers(const ravel_func *f, const rv_inst *i, const uint32_t **regs)
{
    if (i->flags & RV_IF_CLOBBERS) {
        *regs = i->nclob ? &f->u32.data[i->first_clob] : NULL;
        return i->nclob;
    }
    if (i->op == RAVEL_OP_CALL) {
        *regs = f->mach->clobbers.data;
        return f->mach->clobbers.len;
    }
    *regs = NULL;
    return 0;
}

/* ---- construction ---- */

static int fail(ravel_func *f, int code, const char *msg)
{
    rv_free(f->err);
    size_t n = strlen(msg);
    f->err = rv_xmalloc(n + 1);
    memcpy(f->err, msg, n + 1);
    return code;
}

const char *rv_func_error(const ravel_func *f) { return f ? f->err : NULL; }
const char *ravel_func_error(const ravel_func *f) { return rv_func_error(f); }

/* Every array gets storage up front, so that accessors such as
 * rv_inst_uses() never form a pointer from NULL (an empty function, an
 * instruction without operands). */
static void rv_func_reserve_arrays(ravel_func *f)
{
    rv_vec_reserve(f->vregs, 1);
    rv_vec_reserve(f->blocks, 1);
    rv_vec_reserve(f->layout, 1);
    rv_vec_reserve(f->insts, 1);
    rv_vec_reserve(f->ops, 1);
    rv_vec_reserve(f->imms, 1);
    rv_vec_reserve(f->succs, 1);
    rv_vec_reserve(f->u32, 1);
}

ravel_func *ravel_func_new(const ravel_machine *m, const char *name)
{
    if (!m) return NULL;
    ravel_func *f = rv_xcalloc(1, sizeof *f);
    f->mach = m;
    if (!name) name = "f";
    f->name = rv_sym_intern(&f->syms, name, strlen(name));
    f->cur_block = RAVEL_NONE;
    f->cur_inst = RAVEL_NONE;
    rv_func_reserve_arrays(f);
    return f;
}

void ravel_func_free(ravel_func *f)
{
    if (!f) return;
    rv_symtab_free(&f->syms);
    rv_vec_free(f->vregs);
    rv_vec_free(f->blocks);
    rv_vec_free(f->layout);
    rv_vec_free(f->insts);
    rv_vec_free(f->ops);
    rv_vec_free(f->imms);
    rv_vec_free(f->succs);
    rv_vec_free(f->u32);
    rv_map_free(&f->vreg_by_num);
    rv_free(f->err);
    rv_free(f);
}

static uint32_t push_vreg(ravel_func *f, uint32_t num)
{
    uint32_t id = f->vregs.len;
    rv_vreg v = {num, 0, false, false};
    rv_vec_push(f->vregs, v);
    if (f->vmap_built) rv_map_put(&f->vreg_by_num, num, id);
    if (num >= f->next_num) f->next_num = num + 1;
    return id;
}

/* The number -> id map is only needed for lookups by number (the reader);
 * functions built with ravel_vreg_new never pay for it. */
uint32_t rv_vreg_by_num(ravel_func *f, uint32_t num)
{
    if (!f->vmap_built) {
        for (uint32_t i = 0; i < f->vregs.len; i++) rv_map_put(&f->vreg_by_num, f->vregs.data[i].num, i);
        f->vmap_built = true;
    }
    uint32_t id = rv_map_get(&f->vreg_by_num, num, RAVEL_NONE);
    return id != RAVEL_NONE ? id : push_vreg(f, num);
}

uint32_t ravel_vreg_new(ravel_func *f, int cls, int is_ref)
{
    if (!f) return RAVEL_NONE;
    if (cls < 0 || (uint32_t)cls >= f->mach->classes.len || f->next_num > RV_MAX_VREG_NUM) {
        fail(f, RAVEL_EINVAL, "ravel_vreg_new: bad class or too many vregs");
        return RAVEL_NONE;
    }
    uint32_t id = push_vreg(f, f->next_num); /* a fresh number: no lookup needed */
    f->vregs.data[id].cls = (uint8_t)cls;
    f->vregs.data[id].ref = is_ref != 0;
    f->vregs.data[id].has_class = true;
    return id;
}

uint32_t ravel_vreg_new_num(ravel_func *f, uint32_t number, int cls, int is_ref)
{
    if (!f) return RAVEL_NONE;
    if (cls < 0 || (uint32_t)cls >= f->mach->classes.len || number > RV_MAX_VREG_NUM) {
        fail(f, RAVEL_EINVAL, "ravel_vreg_new_num: bad class or number");
        return RAVEL_NONE;
    }
    if (!f->vmap_built) {
        for (uint32_t i = 0; i < f->vregs.len; i++) rv_map_put(&f->vreg_by_num, f->vregs.data[i].num, i);
        f->vmap_built = true;
    }
    if (rv_map_get(&f->vreg_by_num, number, RAVEL_NONE) != RAVEL_NONE) {
        fail(f, RAVEL_EINVAL, "ravel_vreg_new_num: number already used");
        return RAVEL_NONE;
    }
    uint32_t id = push_vreg(f, number);
    f->vregs.data[id].cls = (uint8_t)cls;
    f->vregs.data[id].ref = is_ref != 0;
    f->vregs.data[id].has_class = true;
    return id;
}

uint32_t ravel_block_new(ravel_func *f, const char *name)
{
    char buf[32];
    if (!f) return RAVEL_NONE;
    uint32_t id = f->blocks.len;
    if (!name) {
        snprintf(buf, sizeof buf, "b%u", id);
        for (uint32_t k = 0; rv_sym_find(&f->syms, buf, strlen(buf)) != RAVEL_NONE; k++)
            snprintf(buf, sizeof buf, "b%u_%u", id, k);
        name = buf;
    }
    rv_block b;
    memset(&b, 0, sizeof b);
    b.name = rv_sym_intern(&f->syms, name, strlen(name));
    b.first_param = f->u32.len;
    rv_vec_push(f->blocks, b);
    return id;
}

int ravel_block_add_param(ravel_func *f, uint32_t block, uint32_t vreg)
{
    if (!f) return RAVEL_EINVAL;
    if (block >= f->blocks.len || vreg >= f->vregs.len) return fail(f, RAVEL_EINVAL, "ravel_block_add_param: bad id");
    rv_block *b = &f->blocks.data[block];
    /* keep params contiguous: move the list to the end if something followed */
    if (b->first_param + b->nparams != f->u32.len) {
        uint32_t nf = f->u32.len;
        rv_vec_reserve(f->u32, b->nparams + 1);
        for (uint32_t i = 0; i < b->nparams; i++) f->u32.data[f->u32.len++] = f->u32.data[b->first_param + i];
        b->first_param = nf;
    }
    rv_vec_push(f->u32, vreg);
    b->nparams++;
    b->has_params_decl = true;
    return RAVEL_OK;
}

int ravel_block_begin(ravel_func *f, uint32_t block)
{
    if (!f) return RAVEL_EINVAL;
    if (block >= f->blocks.len) return fail(f, RAVEL_EINVAL, "ravel_block_begin: bad block id");
    if (f->cur_inst != RAVEL_NONE) return fail(f, RAVEL_EINVAL, "ravel_block_begin: an instruction is open");
    rv_block *b = &f->blocks.data[block];
    if (b->started) return fail(f, RAVEL_EINVAL, "ravel_block_begin: block already started");
    b->started = true;
    b->first_inst = f->insts.len;
    b->ninsts = 0;
    rv_vec_push(f->layout, block);
    f->cur_block = block;
    return RAVEL_OK;
}

static rv_inst *open_inst(ravel_func *f)
{
    return f->cur_inst == RAVEL_NONE ? NULL : &f->insts.data[f->cur_inst];
}

static int append_inst(ravel_func *f, ravel_opcode op)
{
    if (f->cur_block == RAVEL_NONE) return fail(f, RAVEL_EINVAL, "no block is open (call ravel_block_begin)");
    if (f->cur_inst != RAVEL_NONE) return fail(f, RAVEL_EINVAL, "an instruction is open (call ravel_inst_end)");
    if (f->insts.len >= RV_MAX_INSTS * 2u) return fail(f, RAVEL_ELIMIT, "too many instructions");
    rv_inst in;
    memset(&in, 0, sizeof in);
    in.op = (uint8_t)op;
    in.first_op = f->ops.len;
    in.first_imm = f->imms.len;
    in.name = RAVEL_NONE;
    if (op == RAVEL_OP_JUMP || op == RAVEL_OP_BR) in.u.succ.first = f->succs.len;
    rv_vec_push(f->insts, in);
    f->blocks.data[f->cur_block].ninsts++;
    return (int)(f->insts.len - 1);
}

int ravel_inst_begin(ravel_func *f, ravel_opcode op, const char *name)
{
    if (!f) return RAVEL_EINVAL;
    if ((unsigned)op >= RAVEL_OP_COUNT_ || (op >= RAVEL_OP_SPILL && op <= RAVEL_OP_REMAT))
        return fail(f, RAVEL_EINVAL, "ravel_inst_begin: bad opcode (use ravel_edit or ravel_remat for edits)");
    if ((op == RAVEL_OP_OTHER || op == RAVEL_OP_CALL) && (!name || !*name))
        return fail(f, RAVEL_EINVAL, "ravel_inst_begin: mnemonic or callee name required");
    int id = append_inst(f, op);
    if (id < 0) return id;
    if (op == RAVEL_OP_OTHER || op == RAVEL_OP_CALL)
        f->insts.data[id].name = rv_sym_intern(&f->syms, name, strlen(name));
    f->cur_inst = (uint32_t)id;
    f->building_uses = false;
    return id;
}

static void note_loc(ravel_func *f, ravel_loc loc)
{
    if (ravel_loc_is_slot(loc) && ravel_loc_slot(loc) >= f->nslots) f->nslots = ravel_loc_slot(loc) + 1;
}

static int check_loc(ravel_func *f, ravel_loc loc)
{
    if (loc == RAVEL_LOC_NONE) return RAVEL_OK;
    if (ravel_loc_is_slot(loc) ? ravel_loc_slot(loc) > RAVEL_MAX_SLOT : loc >= f->mach->regs.len)
        return fail(f, RAVEL_EINVAL, "bad location");
    return RAVEL_OK;
}

static int add_operand(ravel_func *f, bool def, uint32_t vreg, ravel_constraint c, uint32_t arg, ravel_pos pos, ravel_loc loc)
{
    if (!f) return RAVEL_EINVAL;
    rv_inst *in = open_inst(f);
    if (!in) return fail(f, RAVEL_EINVAL, "no instruction is open");
    if (rv_is_term(in) && def) return fail(f, RAVEL_EINVAL, "terminators have no defs");
    if (vreg >= f->vregs.len) return fail(f, RAVEL_EINVAL, "bad vreg id");
    if ((unsigned)c > RAVEL_C_REUSE || (unsigned)pos > RAVEL_POS_LATE || arg > 0xffff)
        return fail(f, RAVEL_EINVAL, "bad constraint or position");
    if (def && f->building_uses) return fail(f, RAVEL_EINVAL, "defs must precede uses");
    if ((def ? in->ndefs : in->nuses) >= RV_MAX_OPERANDS) return fail(f, RAVEL_ELIMIT, "too many operands");
    if (check_loc(f, loc)) return RAVEL_EINVAL;
    rv_operand o;
    o.vreg = vreg;
    o.loc = loc;
    o.kind = (uint8_t)c;
    o.arg = (uint16_t)arg;
    o.flags = (uint8_t)((def ? RV_OPF_DEF : 0) | (pos != RAVEL_POS_DEFAULT ? RV_OPF_EXPLICIT_POS : 0));
    bool late = def ? pos != RAVEL_POS_EARLY : pos == RAVEL_POS_LATE;
    if (late) o.flags |= RV_OPF_LATE;
    rv_vec_push(f->ops, o);
    if (def) {
        in->ndefs++;
    } else {
        in->nuses++;
        f->building_uses = true;
    }
    note_loc(f, loc);
    return RAVEL_OK;
}

int ravel_inst_def(ravel_func *f, uint32_t vreg, ravel_constraint c, uint32_t arg, ravel_pos pos, ravel_loc loc)
{
    return add_operand(f, true, vreg, c, arg, pos, loc);
}

int ravel_inst_use(ravel_func *f, uint32_t vreg, ravel_constraint c, uint32_t arg, ravel_pos pos, ravel_loc loc)
{
    return add_operand(f, false, vreg, c, arg, pos, loc);
}

int ravel_inst_imm(ravel_func *f, int64_t value)
{
    if (!f) return RAVEL_EINVAL;
    rv_inst *in = open_inst(f);
    if (!in) return fail(f, RAVEL_EINVAL, "no instruction is open");
    if ((uint32_t)in->nuses + in->nimms >= RV_MAX_OPERANDS) return fail(f, RAVEL_ELIMIT, "too many operands");
    rv_imm im = {value, (uint16_t)(in->nuses + in->nimms)};
    rv_vec_push(f->imms, im);
    in->nimms++;
    f->building_uses = true;
    return RAVEL_OK;
}

/* Appends a sorted, de-duplicated copy of v[0..n) to f->u32; returns count.
 * Lists are short and usually sorted already: insertion sort. */
static uint32_t push_sorted_set(ravel_func *f, const uint32_t *v, size_t n, uint32_t *first)
{
    *first = f->u32.len;
    if (n == 0) return 0;
    rv_vec_reserve(f->u32, n);
    uint32_t *dst = f->u32.data + f->u32.len;
    uint32_t w = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t x = v[i], k = w;
        while (k > 0 && dst[k - 1] > x) k--;
        if (k > 0 && dst[k - 1] == x) continue;
        memmove(dst + k + 1, dst + k, (w - k) * sizeof *dst);
        dst[k] = x;
        w++;
    }
    f->u32.len += w;
    return w;
}

int ravel_inst_clobbers(ravel_func *f, const uint32_t *regs, size_t n)
{
    if (!f) return RAVEL_EINVAL;
    rv_inst *in = open_inst(f);
    if (!in || rv_is_term(in)) return fail(f, RAVEL_EINVAL, "clobbers: no open op");
    if (n && !regs) return fail(f, RAVEL_EINVAL, "clobbers: NULL list");
    for (size_t i = 0; i < n; i++)
        if (regs[i] >= f->mach->regs.len) return fail(f, RAVEL_EINVAL, "clobbers: bad register");
    in->flags |= RV_IF_CLOBBERS;
    in->nclob = push_sorted_set(f, regs, n, &in->first_clob);
    return RAVEL_OK;
}

int ravel_inst_safepoint(ravel_func *f)
{
    if (!f) return RAVEL_EINVAL;
    rv_inst *in = open_inst(f);
    if (!in || rv_is_term(in)) return fail(f, RAVEL_EINVAL, "safepoint: no open op");
    in->flags |= RV_IF_SAFEPOINT;
    return RAVEL_OK;
}

int ravel_inst_stackmap(ravel_func *f, const uint32_t *slots, size_t n)
{
    if (!f) return RAVEL_EINVAL;
    rv_inst *in = open_inst(f);
    if (!in || rv_is_term(in)) return fail(f, RAVEL_EINVAL, "stackmap: no open op");
    if (n && !slots) return fail(f, RAVEL_EINVAL, "stackmap: NULL list");
    for (size_t i = 0; i < n; i++)
        if (slots[i] > RAVEL_MAX_SLOT) return fail(f, RAVEL_EINVAL, "stackmap: bad slot");
    in->flags |= RV_IF_STACKMAP;
    in->u.smap.n = push_sorted_set(f, slots, n, &in->u.smap.first);
    for (uint32_t i = 0; i < in->u.smap.n; i++) note_loc(f, ravel_slot(f->u32.data[in->u.smap.first + i]));
    return RAVEL_OK;
}

int ravel_inst_succ(ravel_func *f, uint32_t block, const uint32_t *args, size_t nargs)
{
    if (!f) return RAVEL_EINVAL;
    if (nargs && !args) return fail(f, RAVEL_EINVAL, "succ: NULL argument list");
    rv_inst *in = open_inst(f);
    if (!in || (in->op != RAVEL_OP_JUMP && in->op != RAVEL_OP_BR)) return fail(f, RAVEL_EINVAL, "succ: no open jump/br");
    if (block >= f->blocks.len) return fail(f, RAVEL_EINVAL, "succ: bad block id");
    if (nargs > RV_MAX_OPERANDS) return fail(f, RAVEL_ELIMIT, "succ: too many arguments");
    for (size_t i = 0; i < nargs; i++)
        if (args[i] >= f->vregs.len) return fail(f, RAVEL_EINVAL, "succ: bad vreg id");
    if (in->u.succ.first + in->u.succ.n != f->succs.len) return fail(f, RAVEL_EINVAL, "succ: not the newest instruction");
    rv_succ s = {block, f->u32.len, (uint32_t)nargs};
    rv_vec_reserve(f->u32, nargs);
    if (nargs) memcpy(f->u32.data + f->u32.len, args, nargs * sizeof *args);
    f->u32.len += (uint32_t)nargs;
    rv_vec_push(f->succs, s);
    in->u.succ.n++;
    return RAVEL_OK;
}

int ravel_inst_end(ravel_func *f)
{
    if (!f) return RAVEL_EINVAL;
    if (f->cur_inst == RAVEL_NONE) return fail(f, RAVEL_EINVAL, "no instruction is open");
    f->cur_inst = RAVEL_NONE;
    f->building_uses = false;
    return RAVEL_OK;
}

int ravel_edit(ravel_func *f, ravel_opcode kind, ravel_loc dst, ravel_loc src)
{
    if (!f) return RAVEL_EINVAL;
    if (kind < RAVEL_OP_SPILL || kind > RAVEL_OP_MOVE)
        return fail(f, RAVEL_EINVAL, "ravel_edit: not spill, reload or move (a remat is built with ravel_remat)");
    if (dst == RAVEL_LOC_NONE || src == RAVEL_LOC_NONE || check_loc(f, dst) || check_loc(f, src))
        return fail(f, RAVEL_EINVAL, "ravel_edit: bad location");
    int id = append_inst(f, kind);
    if (id < 0) return id;
    f->insts.data[id].u.edit.dst = dst;
    f->insts.data[id].u.edit.src = src;
    note_loc(f, dst);
    note_loc(f, src);
    return id;
}

int ravel_remat(ravel_func *f, ravel_loc dst, int64_t k, const uint32_t *clobbers, size_t n)
{
    if (!f) return RAVEL_EINVAL;
    if (dst == RAVEL_LOC_NONE || check_loc(f, dst)) return fail(f, RAVEL_EINVAL, "ravel_remat: bad location");
    if (n && !clobbers) return fail(f, RAVEL_EINVAL, "ravel_remat: NULL clobber list");
    for (size_t i = 0; i < n; i++)
        if (clobbers[i] >= f->mach->regs.len) return fail(f, RAVEL_EINVAL, "ravel_remat: bad clobber register");
    int id = append_inst(f, RAVEL_OP_REMAT);
    if (id < 0) return id;
    rv_inst *in = &f->insts.data[id];
    in->u.edit.dst = dst;
    in->u.edit.src = RAVEL_LOC_NONE;
    rv_imm im = {k, 0};
    rv_vec_push(f->imms, im);
    in->nimms = 1;
    if (n) {
        in->flags |= RV_IF_CLOBBERS;
        in->nclob = push_sorted_set(f, clobbers, n, &in->first_clob);
    }
    note_loc(f, dst);
    return id;
}

int ravel_set_loc(ravel_func *f, uint32_t inst, uint32_t k, ravel_loc loc)
{
    if (!f) return RAVEL_EINVAL;
    if (inst >= f->insts.len) return fail(f, RAVEL_EINVAL, "ravel_set_loc: bad instruction");
    rv_inst *in = &f->insts.data[inst];
    if (rv_is_edit(in) || k >= (uint32_t)in->ndefs + in->nuses) return fail(f, RAVEL_EINVAL, "ravel_set_loc: bad operand");
    if (check_loc(f, loc)) return RAVEL_EINVAL;
    f->ops.data[in->first_op + k].loc = loc;
    note_loc(f, loc);
    return RAVEL_OK;
}

bool rv_func_is_allocated(const ravel_func *f)
{
    for (uint32_t i = 0; i < f->insts.len; i++) {
        const rv_inst *in = &f->insts.data[i];
        if (rv_is_edit(in) || (in->flags & RV_IF_STACKMAP)) return true;
    }
    for (uint32_t i = 0; i < f->ops.len; i++)
        if (f->ops.data[i].loc != RAVEL_LOC_NONE) return true;
    return false;
}

const char *rv_func_ext_used(const ravel_func *f)
{
    if (rv_mach_has_alias(f->mach)) return "register containment (alias lines)";
    for (uint32_t i = 0; i < f->insts.len; i++) {
        uint8_t op = f->insts.data[i].op;
        if (op == RAVEL_OP_UNDEF || op == RAVEL_OP_REMAT) return op == RAVEL_OP_UNDEF ? "undef" : "remat";
    }
    return NULL;
}

/* ---- copies ---- */

#define COPY_VEC(dst, src)                                                   \
    do {                                                                     \
        (dst).len = 0;                                                       \
        rv_vec_reserve(dst, (src).len);                                      \
        if ((src).len) memcpy((dst).data, (src).data, (src).len * sizeof *(src).data); \
        (dst).len = (src).len;                                               \
    } while (0)

/* Copies a symbol table wholesale into an empty one: the same ids, the
 * strings packed into one arena block, and the hash index verbatim (its keys
 * are hashes of the strings and its values ids, both unchanged by the copy),
 * so nothing is hashed or probed again. Later interning works as on src. */
static void clone_syms(rv_symtab *dst, const rv_symtab *src)
{
    uint32_t n = src->strs.len;
    size_t bytes = 0;
    for (uint32_t i = 0; i < n; i++) bytes += (size_t)src->lens.data[i] + 1;
    char *p = n ? rv_arena_alloc(&dst->arena, bytes) : NULL;
    rv_vec_reserve(dst->strs, n);
    for (uint32_t i = 0; i < n; i++) {
        size_t len = src->lens.data[i];
        memcpy(p, src->strs.data[i], len); /* p[len] is 0: the arena block is zeroed */
        dst->strs.data[i] = p;
        p += len + 1;
    }
    dst->strs.len = n;
    COPY_VEC(dst->lens, src->lens);
    const rv_map *m = &src->index;
    if (m->cap) {
        dst->index.slots = rv_xmalloc(sizeof *m->slots * m->cap);
        memcpy(dst->index.slots, m->slots, sizeof *m->slots * m->cap);
    }
    dst->index.cap = m->cap;
    dst->index.len = m->len;
}

ravel_func *rv_func_clone(const ravel_func *f)
{
    ravel_func *g = rv_xcalloc(1, sizeof *g);
    *g = (ravel_func){0};
    g->mach = f->mach;
    clone_syms(&g->syms, &f->syms);
    g->name = f->name;
    COPY_VEC(g->vregs, f->vregs);
    COPY_VEC(g->blocks, f->blocks);
    COPY_VEC(g->layout, f->layout);
    COPY_VEC(g->insts, f->insts);
    COPY_VEC(g->ops, f->ops);
    COPY_VEC(g->imms, f->imms);
    COPY_VEC(g->succs, f->succs);
    COPY_VEC(g->u32, f->u32);
    g->nslots = f->nslots;
    g->next_num = f->next_num;
    g->line = f->line;
    g->col = f->col;
    g->end_line = f->end_line;
    g->cur_block = f->cur_block;
    g->cur_inst = f->cur_inst;
    g->building_uses = f->building_uses;
    rv_func_reserve_arrays(g);
    return g;
}

ravel_func *rv_func_strip(const ravel_func *f)
{
    ravel_func *g = rv_func_clone(f);
    uint32_t w = 0;
    for (uint32_t li = 0; li < g->layout.len; li++) {
        rv_block *b = &g->blocks.data[g->layout.data[li]];
        uint32_t first = w;
        for (uint32_t k = 0; k < b->ninsts; k++) {
            rv_inst in = f->insts.data[b->first_inst + k];
            if (rv_is_edit(&in)) continue;
            if (!rv_is_term(&in)) {
                in.flags &= (uint8_t)~RV_IF_STACKMAP;
                in.u.smap.first = in.u.smap.n = 0;
            }
            g->insts.data[w++] = in;
        }
        b->first_inst = first;
        b->ninsts = w - first;
    }
    g->insts.len = w;
    for (uint32_t i = 0; i < g->ops.len; i++) g->ops.data[i].loc = RAVEL_LOC_NONE;
    g->nslots = 0;
    if (g->cur_inst != RAVEL_NONE) g->cur_inst = RAVEL_NONE;
    return g;
}

/* ---- equality ---- */

static bool sym_eq(const ravel_func *a, uint32_t x, const ravel_func *b, uint32_t y)
{
    if (x == RAVEL_NONE || y == RAVEL_NONE) return x == y;
    return a->syms.lens.data[x] == b->syms.lens.data[y] && strcmp(rv_sym_str(&a->syms, x), rv_sym_str(&b->syms, y)) == 0;
}

static bool vreg_eq(const ravel_func *a, uint32_t x, const ravel_func *b, uint32_t y)
{
    const rv_vreg *p = &a->vregs.data[x], *q = &b->vregs.data[y];
    return p->num == q->num && p->cls == q->cls && p->ref == q->ref && p->has_class == q->has_class;
}

static bool list_eq(const ravel_func *a, uint32_t fa, const ravel_func *b, uint32_t fb, uint32_t n)
{
    return n == 0 || memcmp(&a->u32.data[fa], &b->u32.data[fb], n * sizeof(uint32_t)) == 0;
}

static bool vlist_eq(const ravel_func *a, uint32_t fa, const ravel_func *b, uint32_t fb, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (!vreg_eq(a, a->u32.data[fa + i], b, b->u32.data[fb + i])) return false;
    return true;
}

static bool inst_eq(const ravel_func *a, const rv_inst *x, const ravel_func *b, const rv_inst *y)
{
    if (x->op != y->op || x->flags != y->flags || x->ndefs != y->ndefs || x->nuses != y->nuses ||
        x->nimms != y->nimms || !sym_eq(a, x->name, b, y->name))
        return false;
    if (rv_is_edit(x) && (x->u.edit.dst != y->u.edit.dst || x->u.edit.src != y->u.edit.src)) return false;
    if (rv_is_edit(x) && x->op != RAVEL_OP_REMAT) return true;
    for (uint32_t k = 0; k < (uint32_t)x->ndefs + x->nuses; k++) {
        const rv_operand *p = &a->ops.data[x->first_op + k], *q = &b->ops.data[y->first_op + k];
        if (!vreg_eq(a, p->vreg, b, q->vreg) || p->loc != q->loc || p->kind != q->kind ||
            (p->flags & ~RV_OPF_EXPLICIT_POS) != (q->flags & ~RV_OPF_EXPLICIT_POS) || p->arg != q->arg)
            return false;
    }
    for (uint32_t k = 0; k < x->nimms; k++) {
        const rv_imm *p = &a->imms.data[x->first_imm + k], *q = &b->imms.data[y->first_imm + k];
        if (p->value != q->value || p->pos != q->pos) return false;
    }
    if ((x->flags & RV_IF_CLOBBERS) && (x->nclob != y->nclob || !list_eq(a, x->first_clob, b, y->first_clob, x->nclob)))
        return false;
    if (rv_is_term(x)) {
        if (rv_inst_nsuccs(x) != rv_inst_nsuccs(y)) return false;
        for (uint32_t k = 0; k < rv_inst_nsuccs(x); k++) {
            const rv_succ *p = &rv_inst_succs(a, x)[k], *q = &rv_inst_succs(b, y)[k];
            if (!sym_eq(a, a->blocks.data[p->block].name, b, b->blocks.data[q->block].name) || p->nargs != q->nargs ||
                !vlist_eq(a, p->first_arg, b, q->first_arg, p->nargs))
                return false;
        }
    } else if ((x->flags & RV_IF_STACKMAP) &&
               (x->u.smap.n != y->u.smap.n || !list_eq(a, x->u.smap.first, b, y->u.smap.first, x->u.smap.n))) {
        return false;
    }
    return true;
}

bool rv_func_equal(const ravel_func *a, const ravel_func *b)
{
    if (!sym_eq(a, a->name, b, b->name) || a->layout.len != b->layout.len) return false;
    for (uint32_t li = 0; li < a->layout.len; li++) {
        const rv_block *x = &a->blocks.data[a->layout.data[li]], *y = &b->blocks.data[b->layout.data[li]];
        if (!sym_eq(a, x->name, b, y->name) || x->nparams != y->nparams || x->ninsts != y->ninsts ||
            !vlist_eq(a, x->first_param, b, y->first_param, x->nparams))
            return false;
        for (uint32_t k = 0; k < x->ninsts; k++)
            if (!inst_eq(a, &a->insts.data[x->first_inst + k], b, &b->insts.data[y->first_inst + k])) return false;
    }
    return true;
}

/* ---- finishing ---- */

/* Renumbers blocks so that block id == layout position; blocks never started
 * (referenced but not defined) keep ids after the laid-out ones. */
int ravel_func_finish(ravel_func *f)
{
    if (!f) return RAVEL_EINVAL;
    if (f->cur_inst != RAVEL_NONE) ravel_inst_end(f);
    f->cur_block = RAVEL_NONE;
    uint32_t n = f->blocks.len;
    bool identity = true;
    for (uint32_t i = 0; i < f->layout.len; i++)
        if (f->layout.data[i] != i) identity = false;
    if (identity) return RAVEL_OK;
    uint32_t *newid = rv_xmalloc(sizeof(uint32_t) * (n ? n : 1));
    for (uint32_t i = 0; i < n; i++) newid[i] = RAVEL_NONE;
    uint32_t next = 0;
    for (uint32_t i = 0; i < f->layout.len; i++) newid[f->layout.data[i]] = next++;
    for (uint32_t i = 0; i < n; i++)
        if (newid[i] == RAVEL_NONE) newid[i] = next++;
    rv_block *nb = rv_xmalloc(sizeof(rv_block) * (n ? n : 1));
    for (uint32_t i = 0; i < n; i++) nb[newid[i]] = f->blocks.data[i];
    memcpy(f->blocks.data, nb, sizeof(rv_block) * n);
    rv_free(nb);
    for (uint32_t i = 0; i < f->succs.len; i++) f->succs.data[i].block = newid[f->succs.data[i].block];
    for (uint32_t i = 0; i < f->layout.len; i++) f->layout.data[i] = i;
    rv_free(newid);
    return RAVEL_OK;
}

/* ---- source positions for diagnostics ---- */

char *rv_src_line(const ravel_func *f, uint32_t n)
{
    if (!f->src || !n) return NULL;
    const char *p = f->src, *end = f->src + f->srclen;
    for (uint32_t k = 1; k < n; k++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) return NULL;
        p = nl + 1;
    }
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
    if (len && p[len - 1] == '\r') len--;
    if (len > 4096) len = 4096; /* (a diagnostic quotes at most this much) */
    char *s = rv_xmalloc(len + 1);
    memcpy(s, p, len);
    s[len] = 0;
    return s;
}

static bool src_vreg_at(const char *s, size_t i)
{
    bool boundary = i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t' || s[i - 1] == ',' || s[i - 1] == '(' || s[i - 1] == '=';
    return boundary && s[i] == 'v' && s[i + 1] >= '0' && s[i + 1] <= '9';
}

/* The k-th vreg before the instruction's `=` is def k, the k-th after it
 * use k (register names never look like vregs, docs/format.md section 3;
 * immediates are numbers); the k-th `sN` of stackmap(...) is entry k. */
uint32_t rv_src_operand_col(const char *line, uint32_t inst_col, int role, uint32_t k)
{
    if (!line) return inst_col;
    size_t n = strcspn(line, "#"), start = inst_col ? inst_col - 1 : 0, eq, found = 0;
    if (start > n) start = n;
    for (eq = start; eq < n && line[eq] != '='; eq++) {}
    if (role == RV_SRC_DEF || role == RV_SRC_USE) {
        size_t from = role == RV_SRC_DEF || eq == n ? start : eq + 1, to = role == RV_SRC_DEF ? eq : n;
        for (size_t j = from; j < to && !found; j++)
            if (src_vreg_at(line, j) && k-- == 0) found = j + 1;
    } else if (role == RV_SRC_STACKMAP) {
        const char *sm = strstr(line + start, "stackmap(");
        for (size_t j = sm && (size_t)(sm - line) < n ? (size_t)(sm - line) + 9 : n; j < n && line[j] != ')' && !found; j++)
            if ((line[j - 1] == '(' || line[j - 1] == ' ' || line[j - 1] == ',') && line[j] == 's' && k-- == 0) found = j + 1;
    }
    return found ? (uint32_t)found : inst_col;
}
