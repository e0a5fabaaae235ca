/*
 * build.c - stage S7's functions: the allocated function, walked over the
 * result block by block, and its unallocated twin built from tag.mir alone.
 *
 * Allocated, per item of a block (align.c):
 *   an aligned original   its op (ops.c) with the locations of R5: the
 *                         register of its partner operand after allocation
 *                         at the vreg's width (greedy family: the one
 *                         register of the after-allocation vreg, checked),
 *                         `any` at the slot for a fold (R30-R32; a pool
 *                         fold is preceded by `sP = remat K`), with the
 *                         fold widths of R30, R31 and R37 checked;
 *   a folded COPY         R28: the reload, then the copy at its register;
 *                         R29: the copy with its def `any` at the slot;
 *   a deleted original    R33: its def `any` at a fresh slot s(2000+j);
 *                         fast's identity copies at the register their
 *                         neighbours show (fastcopy.c);
 *   an inserted one       an edit (classify.c);
 * then the block's terminator (blocks.c). Identity copies deleted or
 * KILLed by the rewriter stay (R27) and must be in place (R21.2);
 * SUBREG_TO_REG in one register has its claim checked (R22, claims.c).
 * Unallocated: every non-terminator pre instruction's op, then the
 * terminator; no locations, no edits.
 *
 * Requires: imp_align. Guarantees: both functions have the same blocks;
 * every op and edit of the allocated one knows the MIR line it stands for.
 */
#include "import/imp.h"

/* ----- ra_func ----- */
uint32_t ra_add_inst(ra_func *f, uint8_t kind)
{
    ra_inst in;
    memset(&in, 0, sizeof in);
    in.kind = kind;
    in.pre = RVI_NONE;
    in.slot = -1;
    in.dst = in.src = RVI_NONE;
    in.d0 = f->defs.len;
    in.u0 = f->uses.len;
    in.why = "";
    rv_vec_push(f->insts, in);
    return f->insts.len - 1;
}

uint32_t ra_add_label(ra_func *f, const char *name)
{
    rv_vec_push(f->labels, name);
    return f->labels.len - 1;
}

void ra_clob_set(ra_inst *in, unsigned reg)
{
    in->clob[reg / 64] |= UINT64_C(1) << (reg % 64);
}

void ra_func_free(ra_func *f)
{
    rv_arena_free(&f->arena);
    rv_vec_free(f->blocks);
    rv_vec_free(f->labels);
    rv_vec_free(f->insts);
    rv_vec_free(f->defs);
    rv_vec_free(f->uses);
    rv_vec_free(f->u32);
}

static const mir_func *rfunc(const imp *x)
{
    return x->alloc == RVI_FAST ? x->af : x->bf;
}

/* ----- locations of an aligned original ----- */
typedef struct locs {
    uint32_t *loc;
    bool *any;
    op_alloc a;
    uint32_t pool[4]; /* R32: invariant entries read by folds: slot, key */
    int64_t pool_key[4];
    unsigned npool;
} locs;

static void locs_init(imp *x, locs *l, uint32_t n)
{
    l->loc = rv_arena_alloc(&x->arena, (n + 1) * sizeof *l->loc);
    l->any = rv_arena_alloc(&x->arena, (n + 1) * sizeof *l->any);
    for (uint32_t i = 0; i <= n; i++) l->loc[i] = RVI_NONE;
    l->a.locs = l->loc;
    l->a.any = l->any;
    l->a.store_bits = 0;
    l->npool = 0;
}

/* The width of the memory operand of q that a fold of kind/n reads; 0 if
 * q has none (a pool fold may have lost it: then the operand's width,
 * if the entry is that large, decided in docs/import.md). */
static unsigned fold_bits(const imp *x, const mir_func *qf, const mir_inst *q, int kind, int64_t n, unsigned need)
{
    uint8_t what = kind == MR_POOL ? MO_CPI : kind == MR_FIXED ? MO_FIXED : MO_FI;
    for (uint32_t m = 0; m < q->nmem; m++) {
        const mir_mem *mm = &qf->mems.data[q->mem0 + m];
        if (kind == MR_GLOBAL ? !mm->store && (mm->what == MO_GLOBAL || mm->invariant) : mm->what == what && (kind == MR_POOL || mm->index == n))
            return mm->bits;
    }
    if (kind == MR_POOL && q->nmem == 0 && imp_pool_bits(x, n) >= need) return need;
    return 0;
}

/* Does q read a GOT entry (`(load (s64) from got)`)? */
static bool fold_got(const mir_func *qf, const mir_inst *q)
{
    for (uint32_t m = 0; m < q->nmem; m++)
        if (qf->mems.data[q->mem0 + m].what == MO_GLOBAL) return true;
    return false;
}

static void fold_loc(imp *x, const rinst *ri, uint32_t k, uint32_t i, unsigned w, locs *l)
{
    const mir_inst *q = ri->v ? ri->v : ri->p;
    const mir_op *o = &mir_ops(x->pre, &x->pre->insts.data[k])[i];
    int64_t n;
    int kind = imp_memref_at(x, x->rv, rfunc(x), q, (uint32_t)ri->mem, &n);
    if (kind == MR_NONE) {
        imp_error(x, "S5", x->rv, q->pos, "a fold without its memory reference");
        return;
    }
    bool def = (o->flags & MOF_DEF) != 0;
    unsigned need = def || o->sub == XS_NONE ? w : x86_sub_width((enum x86_sub)o->sub);
    unsigned mb = fold_bits(x, rfunc(x), q, kind, n, need);
    if (mb != need) {
        imp_error(x, def ? "R31" : "R30", x->rv, q->pos, "%%%u (%u bits) is folded into an access of %u bits", o->vreg, need, mb);
        return;
    }
    l->any[i] = true;
    if (kind != MR_SPILL) {
        char gname[512] = "";
        const mir_op *g = kind == MR_GLOBAL ? &mir_ops(rfunc(x), q)[n] : NULL;
        if (g) imp_global_name(x->rv, g, gname, sizeof gname);
        l->loc[i] = imp_invariant_slot(x, kind, n, gname);
        for (unsigned j = 0; j < l->npool; j++)
            if (l->pool[j] == l->loc[i]) return;
        int64_t key = kind == MR_POOL ? imp_key_pool(x, n, mb)
                      : kind == MR_FIXED ? imp_key_fixed(x, n, 0, mb, mb)
                                         : imp_key_global(x, x->rv, g, fold_got(rfunc(x), q), mb, mb);
        if (l->npool < 4) l->pool[l->npool] = l->loc[i], l->pool_key[l->npool++] = key;
        return;
    }
    l->loc[i] = RVI_SLOT | (uint32_t)n;
    if (def) l->a.store_bits = mb;
    imp_slot_width_ok(x, x->rv, q->pos, n, mb, !def);
}

/* R5: the register of pre operand i from its partner operand m. */
static void reg_loc(imp *x, const rinst *ri, uint32_t k, uint32_t i, int32_t m, unsigned w, locs *l)
{
    const mir_op *o = &mir_ops(x->pre, &x->pre->insts.data[k])[i];
    const mir_inst *q = ri->v ? ri->v : ri->p;
    const mir_op *qo = &mir_ops(rfunc(x), q)[m];
    int P = -1, loc = -1;
    if (ri->p) {
        const mir_op *po = &mir_ops(x->af, ri->p)[m];
        if (po->kind != MO_REG || po->preg < 0) {
            imp_error(x, "R12", x->rv, po->pos, "%%%u is placed in $%.*s, outside the machine", o->vreg, (int)po->nlen, x->rv->t.src + po->name);
            return;
        }
        P = po->preg;
        loc = imp_full_reg((unsigned)P, o->sub, w);
        if (loc < 0) {
            imp_error(x, "R5", x->rv, po->pos, "%%%u (%u bits) in $%s: no register of its width has that as its %s", o->vreg, w,
                      x86_reg_at((unsigned)P)->name, o->sub ? "sub-register" : "name");
            return;
        }
    }
    /* deleted by the rewriter: the one register of its vreg (join.c has
     * checked that every operand of that vreg agrees, R5) */
    if (loc < 0 && x->alloc != RVI_FAST && qo->vreg != RVI_NONE && qo->vreg < x->vm.nreg && x->vm.reg[qo->vreg] != RVI_NONE)
        loc = x86_at_width(x->vm.reg[qo->vreg], w);
    if (loc < 0 && !imp_failed(x)) imp_error(x, "R27", x->rv, q->pos, "%%%u has no register here", o->vreg);
    l->loc[i] = (uint32_t)loc;
}

static void aligned_locs(imp *x, const rinst *ri, uint32_t k, locs *l)
{
    const mir_inst *p = &x->pre->insts.data[k];
    locs_init(x, l, p->nops);
    for (uint32_t i = 0; i < p->nops && !imp_failed(x); i++) {
        const mir_op *o = &mir_ops(x->pre, p)[i];
        if (o->kind != MO_REG || o->vreg == RVI_NONE || (!(o->flags & MOF_DEF) && (o->flags & MOF_UNDEF))) continue;
        uint8_t rc;
        unsigned w = imp_vreg_width(x, o->vreg, &rc);
        if (ri->map[i] == MAP_FOLD) fold_loc(x, ri, k, i, w, l);
        else if (ri->map[i] >= 0) reg_loc(x, ri, k, i, ri->map[i], w, l);
    }
}

static void comment(imp *x, ra_func *f, uint32_t id, const rinst *ri)
{
    if (id == RVI_NONE || id >= f->insts.len) return;
    ra_inst *in = &f->insts.data[id];
    const mir_inst *c = ri->p ? ri->p : ri->v;
    in->ctext = &x->rv->t;
    in->cpos = c->pos;
    in->slot = ri->slot;
    if (!ri->p) in->why = "deleted";
}

static void pool_remats(imp *x, ra_func *f, const locs *l, const rinst *ri)
{
    for (unsigned j = 0; j < l->npool; j++) {
        uint32_t id = ra_add_inst(f, RK_REMAT);
        f->insts.data[id].dst = l->pool[j];
        f->insts.data[id].key = l->pool_key[j];
        f->insts.data[id].why = "R32";
        comment(x, f, id, ri);
    }
}

/* R27, R21.2: a copy the rewriter deleted or made a KILL is in place. */
static void check_identity(imp *x, uint32_t k, const rinst *ri, const locs *l)
{
    bool gone = !ri->p || mir_opc_is(x->rv, ri->p, "KILL");
    if (!gone || !mir_opc_is(x->rp, &x->pre->insts.data[k], "COPY")) return;
    enum copy_kind ck = imp_copy_kind(x, k, &l->a);
    ra_opnd d, s;
    bool hd = imp_operand(x, k, 0, &l->a, &d), hs = imp_operand(x, k, 1, &l->a, &s);
    if (ck == CK_INPLACE || ck == CK_UNDEF || ck == CK_OPAQUE) return; /* an opaque COPY claims nothing (R21.4) */
    if (ck == CK_FULL && hd && hs && d.loc == s.loc) return;
    imp_error(x, ck == CK_FULL ? "R27" : "R21", x->rv, (ri->v ? ri->v : ri->p)->pos,
              "the rewriter %s this COPY, but its destination is not %s", ri->p ? "made a KILL of" : "deleted",
              ck == CK_FULL ? "its source's register" : "the part of its source it reads");
}

/* `%v = COPY undef $R` (or IMPLICIT_DEF) that the rewriter deleted or made
 * a KILL executes nothing: the register keeps its bits. Its `undef` def
 * goes to a fresh slot, `any` (R33's form), where it clears nothing; the
 * vreg, undefined, is accepted wherever it is read (docs/format.md §14.2). */
static bool undef_in_place(imp *x, const rinst *ri, uint32_t k, locs *l)
{
    const mir_inst *p = &x->pre->insts.data[k];
    bool undef = mir_opc_is(x->rp, p, "IMPLICIT_DEF") || (mir_opc_is(x->rp, p, "COPY") && p->nops >= 2 && (mir_ops(x->pre, p)[1].flags & MOF_UNDEF));
    if (!undef || !p->nops || mir_ops(x->pre, p)[0].vreg == RVI_NONE || (ri->p && !mir_opc_is(x->rv, ri->p, "KILL"))) return false;
    l->loc[0] = RVI_SLOT | (2000u + x->bd.fresh_next++);
    l->any[0] = true;
    if (x->bd.fresh_next >= 1000) imp_refuse(x, "slots", "1000 or more deleted definitions (R7)");
    return true;
}

static void aligned_op(imp *x, ra_func *f, uint32_t b, uint32_t it, const rinst *ri)
{
    uint32_t k = ri->orig;
    locs l;
    aligned_locs(x, ri, k, &l);
    if (imp_failed(x)) return;
    pool_remats(x, f, &l, ri);
    bool kept = undef_in_place(x, ri, k, &l);
    uint32_t id = imp_op(x, f, k, &l.a);
    if (kept && id != RVI_NONE) f->insts.data[id].why = "undef, executes nothing";
    comment(x, f, id, ri);
    if (!imp_failed(x)) check_identity(x, k, ri, &l);
    if (!imp_failed(x) && mir_opc_is(x->rp, &x->pre->insts.data[k], "SUBREG_TO_REG")) imp_claim32(x, b, it, k, &l.a);
}

/* R28 / R29: a COPY realised by a reload or a spill. */
static void fold_copy(imp *x, ra_func *f, const rinst *ri)
{
    uint32_t k = ri->orig;
    const mir_inst *p = &x->pre->insts.data[k], *q = ri->v;
    locs l;
    locs_init(x, &l, p->nops);
    bool vec;
    const char *opc = mir_opc(x->rv, q);
    bool store = ri->mem == 0;
    unsigned wm = store ? x86_spill_width(opc, &vec) : x86_reload_width(opc, &vec);
    const mir_op *mo = &mir_ops(x->bf, q)[store ? 0 : 1];
    const mir_op *ro = &mir_ops(x->af, ri->p)[store ? 5 : 0];
    if (!ri->p || ro->kind != MO_REG || ro->preg < 0) {
        imp_error(x, "R12", x->rv, q->pos, "a folded copy without its register");
        return;
    }
    if (!imp_slot_width_ok(x, x->rv, q->pos, mo->val, wm, false)) return;
    int R = x86_at_width((unsigned)ro->preg, wm);
    for (uint32_t i = 0; i < p->nops && i < 2; i++) {
        const mir_op *o = &mir_ops(x->pre, p)[i];
        if (o->kind != MO_REG || o->vreg == RVI_NONE) continue;
        uint8_t rc;
        unsigned w = imp_vreg_width(x, o->vreg, &rc);
        if (store && i == 0) {
            l.any[0] = true;
            l.loc[0] = RVI_SLOT | (uint32_t)mo->val;
            if (w != wm) imp_error(x, "R29", x->rv, q->pos, "a %u-bit store realises a copy into a %u-bit vreg", wm, w);
        } else {
            int r = R >= 0 ? x86_at_width((unsigned)R, o->sub != XS_NONE && i == 1 ? w : w) : -1;
            if (r < 0) imp_error(x, store ? "R29" : "R28", x->rv, q->pos, "no %u-bit name for the copy's register", w);
            l.loc[i] = (uint32_t)r;
        }
    }
    if (imp_failed(x)) return;
    if (!store) {
        uint32_t id = ra_add_inst(f, RK_RELOAD);
        f->insts.data[id].dst = (uint32_t)R;
        f->insts.data[id].src = RVI_SLOT | (uint32_t)mo->val;
        f->insts.data[id].why = "R28";
        comment(x, f, id, ri);
    }
    uint32_t id = imp_op(x, f, k, &l.a);
    comment(x, f, id, ri);
    if (id != RVI_NONE) f->insts.data[id].why = store ? "R29" : "R28";
}

/* A deleted original executes nothing: of its clobbers only EFLAGS (dead
 * there) stays (R33), in both forms. */
static void deleted_clobbers(ra_inst *in)
{
    bool eflags = (in->clob[X86_EFLAGS / 64] >> (X86_EFLAGS % 64)) & 1;
    memset(in->clob, 0, sizeof in->clob);
    if (eflags) ra_clob_set(in, X86_EFLAGS);
    in->has_clob = eflags;
}

/* R33: a deleted def, `any` at a fresh slot. */
static void deleted_def(imp *x, ra_func *f, uint32_t k)
{
    const mir_inst *p = &x->pre->insts.data[k];
    locs l;
    locs_init(x, &l, p->nops);
    if (p->nops && mir_ops(x->pre, p)[0].vreg != RVI_NONE) {
        l.loc[0] = RVI_SLOT | (2000u + x->bd.fresh_next++);
        l.any[0] = true;
        if (x->bd.fresh_next >= 1000) imp_refuse(x, "slots", "1000 or more deleted definitions (R7)");
    }
    uint32_t id = imp_op(x, f, k, &l.a);
    if (id == RVI_NONE) return;
    f->insts.data[id].why = "R33";
    deleted_clobbers(&f->insts.data[id]);
}

/* fast: the locations of deleted copy k if its source is in a register
 * now (fastcopy.c); false if not yet. */
static bool fast_copy_locs(imp *x, uint32_t k, uint32_t *loc)
{
    const mir_inst *p = &x->pre->insts.data[k];
    if (p->nops < 2) return false;
    const mir_op *d = &mir_ops(x->pre, p)[0], *s = &mir_ops(x->pre, p)[1];
    const po_info *dp = &x->po[p->op0], *sp = &x->po[p->op0 + 1];
    uint8_t rc;
    unsigned wd = d->vreg != RVI_NONE ? imp_vreg_width(x, d->vreg, &rc) : dp->kind == PO_PDEF ? x86_reg_at(dp->loc)->width : 0;
    unsigned ws = s->vreg != RVI_NONE ? imp_vreg_width(x, s->vreg, &rc) : 0;
    if (!wd || (s->vreg == RVI_NONE && sp->kind != PO_PUSE) || (s->flags & MOF_UNDEF)) return false;
    for (unsigned r = 0; r < X86_NREGS; r++) {
        if (s->vreg != RVI_NONE ? !fc_holds(x->bd.fc, r, s->vreg) || x86_reg_at(r)->width != ws : r != sp->loc) continue;
        int rd = s->sub != XS_NONE ? x86_subreg(r, (enum x86_sub)s->sub) : x86_at_width(r, wd);
        if (rd < 0 || (d->vreg == RVI_NONE && (uint32_t)rd != dp->loc)) continue;
        loc[0] = d->vreg != RVI_NONE ? (uint32_t)rd : RVI_NONE;
        loc[1] = s->vreg != RVI_NONE ? r : RVI_NONE;
        return true;
    }
    return false;
}

/* fast: a deleted full copy at one register R while a register
 * overlapping R holds a value; as a plain write of R it would empty that
 * register (docs/format.md §14.1), so fastrename.c may drop it. */
static void mark_samereg(imp *x, ra_func *f, uint32_t id)
{
    ra_inst *in = &f->insts.data[id];
    if (in->kind != RK_COPY || in->nd != 1 || in->nu != 1 || f->uses.data[in->u0].imm) return;
    const ra_opnd *d = &f->defs.data[in->d0], *u = &f->uses.data[in->u0].o;
    if (d->loc == u->loc && d->loc < X86_NREGS && d->vreg != u->vreg) in->samereg = fc_overlap_held(x->bd.fc, d->loc);
}

/* fast: emits the waiting deleted copies that can go here (all of them
 * before an aligned original: force). */
static void fast_flush(imp *x, ra_func *f, bool force)
{
    uint32_t n = 0;
    for (; n < fc_npending(x->bd.fc) && !imp_failed(x); n++) {
        uint32_t k = fc_pending(x->bd.fc, n);
        const mir_inst *p = &x->pre->insts.data[k];
        locs l;
        locs_init(x, &l, p->nops);
        if (!fast_copy_locs(x, k, l.loc)) {
            if (!force) break;
            imp_error(x, "R27", x->rp, p->pos, "fast deleted this %s, and no register holds its source where it stood", mir_opc(x->rp, p));
            return;
        }
        uint32_t id = imp_op(x, f, k, &l.a);
        if (id == RVI_NONE) continue;
        f->insts.data[id].why = "deleted by fast";
        mark_samereg(x, f, id);
        if (f->insts.data[id].nd) x->bd.copy_loc[k] = f->defs.data[f->insts.data[id].d0].loc;
        fc_apply(x->bd.fc, f, id);
        rinst gone;
        memset(&gone, 0, sizeof gone);
        gone.orig = k;
        check_identity(x, k, &gone, &l);
    }
    fc_drop(x->bd.fc, n);
}

static bool fast_copy(const imp *x, uint32_t k)
{
    const mir_inst *p = &x->pre->insts.data[k];
    return x->alloc == RVI_FAST && (mir_opc_is(x->rp, p, "COPY") || mir_opc_is(x->rp, p, "KILL"));
}

static void track(imp *x, const ra_func *f, uint32_t from)
{
    if (x->bd.fc)
        for (uint32_t id = from; id < f->insts.len; id++) fc_apply(x->bd.fc, f, id);
}

/* The body of pre block b, allocated; *term: the terminator's locations. */
static void body_alloc(imp *x, ra_func *f, uint32_t b, locs *term)
{
    bool seen_term = false;
    for (uint32_t it = x->item0[b]; it < x->item0[b + 1] && !imp_failed(x); it++) {
        const item *I = &x->items.data[it];
        uint32_t from = f->insts.len;
        if (I->deleted && fast_copy(x, I->idx)) {
            fc_push(x->bd.fc, I->idx);
            continue;
        }
        if (I->deleted && imp_dropped(x, I->idx)) continue;
        if (I->deleted) {
            deleted_def(x, f, I->idx);
            track(x, f, from);
            continue;
        }
        const rinst *ri = &x->rs.data[I->idx];
        if (x->bd.fc) fast_flush(x, f, ri->orig != RVI_NONE);
        from = f->insts.len;
        if (ri->orig != RVI_NONE && imp_is_term(x, ri->orig)) {
            if (!seen_term || mir_opc_is(x->rp, &x->pre->insts.data[ri->orig], "JMP64r")) aligned_locs(x, ri, ri->orig, term);
            seen_term = true;
            continue;
        }
        if (seen_term) {
            imp_error(x, "R43", x->rv, (ri->v ? ri->v : ri->p)->pos, "an instruction between the block's terminators");
            return;
        }
        if (ri->orig == RVI_NONE) imp_inserted(x, f, ri);
        else if (ri->fold_copy) fold_copy(x, f, ri);
        else aligned_op(x, f, b, it, ri);
        track(x, f, from);
    }
    if (x->bd.fc && !imp_failed(x)) fast_flush(x, f, true);
}

static void args_op(imp *x, ra_func *f, bool allocated)
{
    if (!x->liveins.len) return;
    uint32_t id = ra_add_inst(f, RK_ARGS);
    f->insts.data[id].mnem = "args";
    for (uint32_t i = 0; i < x->liveins.len; i++) {
        ra_opnd o;
        memset(&o, 0, sizeof o);
        o.vreg = x->liveins.data[i].vreg;
        o.rc = (uint8_t)x86_reg_rc(x->liveins.data[i].loc);
        o.cons = CN_FIXED;
        o.arg = x->liveins.data[i].loc;
        o.loc = allocated ? o.arg : RVI_NONE;
        rv_vec_push(f->defs, o);
        f->insts.data[id].nd++;
    }
}

static void build_block(imp *x, ra_func *f, uint32_t t, bool allocated)
{
    const tblock *tb = &x->tb.list.data[t];
    ra_block blk = {tb->label, f->insts.len, 0};
    if (tb->entry_args) args_op(x, f, allocated);
    if (allocated && x->bd.fc) fc_block_start(x->bd.fc, x, t);
    locs term;
    locs_init(x, &term, tb->cond_k != RVI_NONE ? x->pre->insts.data[tb->cond_k].nops : 0);
    if (tb->pre_block >= 0) {
        const mir_block *pb = &x->pre->blocks.data[tb->pre_block];
        if (allocated) body_alloc(x, f, (uint32_t)tb->pre_block, &term);
        else
            for (uint32_t k = pb->i0; k < pb->i0 + pb->n && !imp_failed(x); k++)
                if (!imp_is_term(x, k) && !imp_dropped(x, k)) {
                    uint32_t id = imp_op(x, f, k, NULL);
                    if (id != RVI_NONE && x->aligned[k] == RVI_NONE) deleted_clobbers(&f->insts.data[id]); /* R33 */
                }
    }
    if (imp_failed(x)) return;
    imp_term(x, f, t, allocated ? &term.a : NULL);
    if (allocated && x->bd.fc) fc_block_end(x->bd.fc, t, !imp_failed(x));
    blk.n = f->insts.len - blk.i0;
    rv_vec_push(f->blocks, blk);
}

/* Empties f back to its first ni instructions (nd defs, nu uses, nx
 * u32s, nb blocks). */
static void truncate_func(ra_func *f, const uint32_t n[5])
{
    f->insts.len = n[0];
    f->defs.len = n[1];
    f->uses.len = n[2];
    f->u32.len = n[3];
    f->blocks.len = n[4];
}

/* fast: builds the allocated form until no block's slot exit changes
 * (fastcopy.c's meet needs the exits of every predecessor, back edges
 * included), keeping no result: a block that fails counts as exiting with
 * every slot empty; the caller then builds it once more for real (the
 * passes leave f, R33's fresh slots and the copies' locations as they
 * were). */
static void fast_fixpoint(imp *x, ra_func *f)
{
    uint32_t n[5] = {f->insts.len, f->defs.len, f->uses.len, f->u32.len, f->blocks.len};
    uint32_t fresh = x->bd.fresh_next, cap = 2 * x->tb.list.len + 8, pass = 0;
    bool changed = true;
    for (; changed && pass < cap; pass++) {
        fc_pass_start(x->bd.fc, x->tb.list.len);
        for (uint32_t t = 0; t < x->tb.list.len; t++) {
            build_block(x, f, t, true);
            if (x->st.failed) {
                fc_block_end(x->bd.fc, t, false);
                rv_free(x->st.msg);
                memset(&x->st, 0, sizeof x->st);
            }
        }
        changed = fc_pass_changed(x->bd.fc);
        truncate_func(f, n);
        x->bd.fresh_next = fresh;
        for (uint32_t k = 0; k <= x->pre->insts.len; k++) x->bd.copy_loc[k] = RVI_NONE; /* claims.c reads them */
    }
    if (changed) imp_error(x, "R27", NULL, 0, "the spill slots' contents at the block entries did not settle in %u passes", cap);
    fc_pass_start(x->bd.fc, x->tb.list.len);
}

void imp_build(imp *x, ra_func *alloc, ra_func *orig)
{
    size_t n;
    const char *name = imp_name(x, &n);
    alloc->name = orig->name = rv_arena_strndup(&x->arena, name, n);
    imp_learn_ties(x);
    if (x->alloc == RVI_FAST) x->bd.fc = fc_new();
    x->bd.copy_loc = rv_arena_alloc(&x->arena, (x->pre->insts.len + 1) * sizeof *x->bd.copy_loc);
    for (uint32_t k = 0; k <= x->pre->insts.len; k++) x->bd.copy_loc[k] = RVI_NONE;
    imp_plan(x, alloc);
    for (uint32_t i = 0; i < alloc->labels.len; i++) rv_vec_push(orig->labels, alloc->labels.data[i]);
    if (x->bd.fc && !imp_failed(x)) fast_fixpoint(x, alloc);
    for (uint32_t t = 0; t < x->tb.list.len && !imp_failed(x); t++) build_block(x, alloc, t, true);
    uint32_t keys = x->key.names.len;
    for (uint32_t t = 0; t < x->tb.list.len && !imp_failed(x); t++) build_block(x, orig, t, false);
    if (!imp_failed(x) && x->key.names.len != keys)
        imp_error(x, "S7", NULL, 0, "the unallocated form has a constant the allocated one has not");
}
