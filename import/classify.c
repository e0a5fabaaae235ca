/*
 * classify.c - stage S6: the code the allocator inserted, as edits
 * (docs/import-mapping.md R34 to R40), with the one-width-per-slot check
 * of R37.
 *
 *   KILL, IMPLICIT_DEF, a copy the rewriter deleted        nothing (R34)
 *   a store of a register into a spill slot (§5.3)        sN = spill R (R35)
 *   a load of a register from a spill slot (§5.3)         R = reload sN (R36)
 *   a register COPY (a split copy)                         R2 = move R1 (R38)
 *   a clone of a §5.5 definition                           R = remat K (R39)
 *   a store of an immediate into a spill slot              sN = remat K (R39)
 *   anything else                                          import error (R40)
 *
 * Spills and reloads name the register at the width their opcode moves
 * (for a general register the printed one, which must have that width);
 * moves and remats name it at the width of the vreg they move (its class
 * in the dump). Every access to a slot moves its frame object's size
 * (R37). Requires: imp_join. Guarantees: one edit or none per inserted
 * instruction, or an import error; no edit writes a register of R12.
 */
#include "import/imp.h"

static const mir_func *rfunc(const imp *x)
{
    return x->alloc == RVI_FAST ? x->af : x->bf;
}

static const mir_inst *form(const imp *x, const rinst *ri)
{
    return ri->v ? ri->v : ri->p;
}

/* The size in bits of spill slot n (post.mir), 0 if unknown. */
static unsigned slot_bits(const imp *x, int64_t n)
{
    for (uint32_t i = 0; i < x->post->stack.len; i++)
        if (x->post->stack.data[i].id == n) return (unsigned)(x->post->stack.data[i].size * 8);
    return 0;
}

bool imp_slot_width_ok(imp *x, const mir_reader *r, uint32_t pos, int64_t n, unsigned bits, bool low_part)
{
    unsigned sb = slot_bits(x, n);
    if (sb == bits || (low_part && bits < sb)) return true;
    imp_error(x, "R37", r, pos, "%u bits move through %%stack.%lld, whose frame object has %u", bits, (long long)n, sb);
    return false;
}

/* The register of operand j of the rewriter's line, or -1 after an
 * import error (a register outside the machine, or of R12). */
static int phys_of(imp *x, const rinst *ri, uint32_t j)
{
    const mir_op *o = &mir_ops(x->af, ri->p)[j];
    if (o->kind == MO_REG && o->preg >= 0) return o->preg;
    imp_error(x, "R12", x->rv, o->pos, "an inserted instruction names $%.*s, outside the machine", (int)o->nlen, x->rv->t.src + o->name);
    return -1;
}

static void edit(imp *x, ra_func *f, const rinst *ri, uint8_t kind, uint32_t dst, uint32_t src, const char *why)
{
    uint32_t id = ra_add_inst(f, kind);
    ra_inst *in = &f->insts.data[id];
    in->dst = dst;
    in->src = src;
    in->why = why;
    in->ctext = &x->rv->t;
    in->cpos = form(x, ri)->pos;
    in->slot = ri->slot;
    in->pre = RVI_NONE;
}

static bool spill_or_reload(imp *x, ra_func *f, const rinst *ri, const char *opc)
{
    const mir_inst *q = form(x, ri);
    bool vec;
    int64_t n;
    unsigned w = x86_spill_width(opc, &vec);
    bool store = w && q->ndefs == 0 && q->nops >= 6 && imp_memref_at(x, x->rv, rfunc(x), q, 0, &n) == MR_SPILL;
    if (!store) {
        w = x86_reload_width(opc, &vec);
        if (!w || q->ndefs != 1 || q->nops < 6 || imp_memref_at(x, x->rv, rfunc(x), q, 1, &n) != MR_SPILL) return false;
    }
    int p = phys_of(x, ri, store ? 5 : 0);
    if (p < 0) return true;
    int r = x86_at_width((unsigned)p, w);
    if (r < 0 || (!vec && r != p)) {
        imp_error(x, store ? "R35" : "R36", x->rv, ri->p->pos, "%s moves %u bits but names $%s", opc, w, x86_reg_at((unsigned)p)->name);
        return true;
    }
    if (!imp_slot_width_ok(x, x->rv, q->pos, n, w, false)) return true;
    if (store) edit(x, f, ri, RK_SPILL, RVI_SLOT | (uint32_t)n, (uint32_t)r, "spill");
    else edit(x, f, ri, RK_RELOAD, (uint32_t)r, RVI_SLOT | (uint32_t)n, "reload");
    return true;
}

/* The width a moved or rematerialised vreg has: its class in the dump
 * (greedy family), or the printed register (fast). */
static unsigned vreg_bits(const imp *x, const rinst *ri, uint32_t j)
{
    if (!ri->v) {
        const mir_op *o = &mir_ops(x->af, ri->p)[j];
        return o->preg >= 0 ? x86_reg_at((unsigned)o->preg)->width : 0;
    }
    const mir_op *o = &mir_ops(x->bf, ri->v)[j];
    if (o->cls == RVI_NONE) return 0;
    const char *c = rv_sym_str(x->rv->syms, o->cls);
    x86_class cl = x86_class_find(c, strlen(c));
    return cl.rc == RC_FLAGS ? 32 : cl.width;
}

/* The register operand j is at, named for its vreg's width (R5). */
static int vreg_reg(imp *x, const rinst *ri, uint32_t j)
{
    int p = phys_of(x, ri, j);
    if (p < 0) return -1;
    unsigned sub = ri->v ? mir_ops(x->bf, ri->v)[j].sub : XS_NONE;
    unsigned w = vreg_bits(x, ri, j);
    int r = w ? imp_full_reg((unsigned)p, sub, w) : p;
    if (r < 0) imp_error(x, "R5", x->rv, ri->p->pos, "$%s is no part of a register of %u bits", x86_reg_at((unsigned)p)->name, w);
    return r;
}

static bool split_copy(imp *x, ra_func *f, const rinst *ri)
{
    const mir_inst *q = form(x, ri);
    if (q->nops < 2 || mir_ops(rfunc(x), q)[0].kind != MO_REG || mir_ops(rfunc(x), q)[1].kind != MO_REG) return false;
    int d = vreg_reg(x, ri, 0);
    int s = d >= 0 ? vreg_reg(x, ri, 1) : -1;
    if (d < 0 || s < 0) return true;
    if (x86_reg_at((unsigned)d)->width != x86_reg_at((unsigned)s)->width) {
        imp_error(x, "R38", x->rv, ri->p->pos, "a split copy from %s to %s", x86_reg_at((unsigned)s)->name, x86_reg_at((unsigned)d)->name);
        return true;
    }
    if (d == s) return true; /* an identity copy left in place (fast's `undef $eax = COPY $eax, implicit-def $rax`):
                                llc's post-RA expansion deletes it, nothing executes */
    edit(x, f, ri, RK_MOVE, (uint32_t)d, (uint32_t)s, "move");
    return true;
}

static bool dead_eflags(const imp *x, const mir_func *qf, const mir_inst *q)
{
    for (uint32_t i = 0; i < q->nops; i++) {
        const mir_op *o = &mir_ops(qf, q)[i];
        if (o->kind == MO_REG && o->preg == X86_EFLAGS && (o->flags & MOF_DEF) && (o->flags & MOF_DEAD)) return true;
    }
    (void)x;
    return false;
}

static bool remat(imp *x, ra_func *f, const rinst *ri)
{
    const mir_inst *q = form(x, ri);
    const mir_func *qf = rfunc(x);
    int64_t n;
    unsigned sw = x86_store_imm_width(mir_opc(x->rv, q));
    if (sw && q->nops >= 6 && imp_memref_at(x, x->rv, qf, q, 0, &n) == MR_SPILL && mir_ops(qf, q)[5].kind == MO_IMM) {
        if (!imp_slot_width_ok(x, x->rv, q->pos, n, sw, false)) return true;
        edit(x, f, ri, RK_REMAT, RVI_SLOT | (uint32_t)n, RVI_NONE, "remat");
        f->insts.data[f->insts.len - 1].key = imp_key_imm(x, (uint64_t)mir_ops(qf, q)[5].val, sw, true);
        return true;
    }
    if (!imp_is_const(x, x->rv, qf, q)) return false;
    int r = vreg_reg(x, ri, 0);
    if (r < 0) return true;
    int64_t key = imp_key(x, x->rv, qf, q, x86_reg_at((unsigned)r)->width, x86_reg_rc((unsigned)r) == RC_GPR);
    edit(x, f, ri, RK_REMAT, (uint32_t)r, RVI_NONE, "remat");
    ra_inst *in = &f->insts.data[f->insts.len - 1];
    in->key = key;
    if (dead_eflags(x, qf, q)) {
        ra_clob_set(in, X86_EFLAGS);
        in->has_clob = true;
    }
    for (uint32_t i = 0; i < q->nops; i++) { /* the rematerialised instruction's other dead defs clobber too */
        const mir_op *o = &mir_ops(qf, q)[i];
        if (o->kind == MO_REG && (o->flags & MOF_DEF) && (o->flags & MOF_DEAD) && o->preg >= 0 && o->preg != X86_EFLAGS &&
            (unsigned)o->preg != (unsigned)r) {
            ra_clob_set(in, (uint32_t)o->preg);
            in->has_clob = true;
        }
    }
    return true;
}

void imp_inserted(imp *x, ra_func *f, const rinst *ri)
{
    const mir_inst *q = form(x, ri);
    const char *opc = mir_opc(x->rv, q);
    if (strcmp(opc, "KILL") == 0 || strcmp(opc, "IMPLICIT_DEF") == 0) return;
    if (!ri->p) {
        if (strcmp(opc, "COPY") != 0) imp_error(x, "S4", x->rv, q->pos, "the rewriter deleted an inserted %s", opc);
        return; /* an identity split copy: nothing executes */
    }
    if (mir_opc_is(x->rv, ri->p, "KILL")) return;
    if (spill_or_reload(x, f, ri, opc) || imp_failed(x)) return;
    if (strcmp(opc, "COPY") == 0 && split_copy(x, f, ri)) return;
    if (imp_failed(x) || remat(x, f, ri) || imp_failed(x)) return;
    imp_error(x, "R40", x->rv, q->pos, "the allocator inserted %s, which is no spill, reload, move or remat", opc);
}
