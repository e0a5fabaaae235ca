/*
 * align.c - stage S5: which result instruction is which original.
 *
 * Per block (the allocators keep blocks and CFG, checked by S4), the
 * aligned originals are the longest run of result instructions whose
 * tags increase and whose shape matches their pre instruction (ties go to
 * the run with more instructions at the slot index their original had,
 * then to the earliest). A shape matches position by position, or by one
 * of the fold shapes:
 *   (a) a register use against a memory reference to a spill slot or a
 *       pool entry (R30, R32); for TEST r, r the two uses may have been
 *       commuted by the fold: the register left names its value (its
 *       number, or its origin for a split product), and a fold that
 *       cannot be told either way is refused (commuted-fold);
 *   (b) a def, alone or with its tied use, against one memory reference
 *       to a spill slot (R31);
 *   (c) TEST r, r against CMP mem, 0;
 *   (d) an immediate def against a store of that immediate into a slot.
 * Then the originals left over: a COPY of the greedy family folded into a
 * spill-slot load or store sits, untagged, at the slot index the COPY had
 * (R28, R29); a rematerialisable def or an IMPLICIT_DEF was deleted by
 * the allocator (R33), and so was, for fast, an identity COPY or KILL;
 * anything else is an import error. Slot indexes of the input: blocks and
 * non-debug instructions 16 apart from 0B, in order.
 *
 * Requires: imp_join. Guarantees: x->aligned[k] for every pre
 * instruction, rs[i].orig/map/mem for every aligned result instruction,
 * and x->items: each block's positions in order, deleted originals at
 * their place (right after the result instruction of the aligned
 * original before them, or first in the block).
 */
#include "import/imp.h"

static const mir_func *rfunc(const imp *x)
{
    return x->alloc == RVI_FAST ? x->af : x->bf;
}

/* ----- shapes ----- */
static bool name_eq(const imp *x, const mir_op *a, const mir_op *b)
{
    return a->nlen == b->nlen && memcmp(x->rp->t.src + a->name, x->rv->t.src + b->name, a->nlen) == 0;
}

static bool op_like(const imp *x, const mir_op *a, const mir_op *b)
{
    if (a->kind != b->kind) return false;
    switch (a->kind) {
    case MO_REG:
        if ((a->flags & (MOF_DEF | MOF_IMPLICIT)) != (b->flags & (MOF_DEF | MOF_IMPLICIT))) return false;
        if (a->vreg != RVI_NONE) {
            if (x->alloc == RVI_FAST) return b->vreg == RVI_NONE;
            return b->vreg != RVI_NONE && a->sub == b->sub;
        }
        return b->vreg == RVI_NONE && a->preg == b->preg && (a->preg >= 0 || name_eq(x, a, b));
    case MO_IMM:
        return a->val == b->val;
    case MO_BB:
        return imp_block_pos(x, false, a->val) == imp_block_pos(x, true, b->val) && imp_block_pos(x, false, a->val) >= 0;
    case MO_FI: case MO_FIXED:
        return imp_fi(x, a->kind == MO_FIXED, a->val) == b->val && a->off == b->off;
    case MO_CPI: case MO_JTI:
        return a->val == b->val && a->off == b->off;
    case MO_GLOBAL: case MO_SYM:
        return a->off == b->off && name_eq(x, a, b);
    case MO_REGMASK:
        return true;
    case MO_SUBIDX:
        return a->sub == b->sub;
    default:
        return a->len == b->len && memcmp(x->rp->t.src + a->pos, x->rv->t.src + b->pos, a->len) == 0;
    }
}

/* P[pi .. pi+n) against Q[qj .. qj+n), recording the map. */
static bool run_like(const imp *x, const mir_op *P, uint32_t pi, const mir_op *Q, uint32_t qj, uint32_t n, int32_t *map)
{
    for (uint32_t k = 0; k < n; k++) {
        if (!op_like(x, &P[pi + k], &Q[qj + k])) return false;
        map[pi + k] = (int32_t)(qj + k);
    }
    return true;
}

static bool is_vuse(const mir_op *o)
{
    return o->kind == MO_REG && o->vreg != RVI_NONE && !(o->flags & (MOF_DEF | MOF_IMPLICIT));
}

/* A memory reference at operand j of q: a spill slot, or (for a folded
 * use) an invariant entry a rematerialisable load reads. */
static bool memref(const imp *x, const mir_inst *q, uint32_t j, bool spill_only)
{
    int64_t idx;
    int k = imp_memref_at(x, x->rv, rfunc(x), q, j, &idx);
    return spill_only ? k == MR_SPILL : k != MR_NONE;
}

/* Does the map pair a vreg of p with a different vreg of tag.mir? (The
 * allocator keeps a vreg's number or gives a piece of it a new one above
 * tag.mir's; it never renames one into another of tag.mir's.) */
static bool contradicted(const imp *x, const mir_op *P, const mir_op *Q, uint32_t n, const int32_t *map)
{
    if (x->alloc == RVI_FAST || x->pre->max_vreg == RVI_NONE) return false;
    for (uint32_t i = 0; i < n; i++) {
        if (map[i] < 0 || P[i].kind != MO_REG || P[i].vreg == RVI_NONE) continue;
        const mir_op *b = &Q[map[i]];
        if (b->vreg != RVI_NONE && b->vreg <= x->pre->max_vreg && b->vreg != P[i].vreg) return true;
    }
    return false;
}

/* (a) one register use folded into a memory reference. */
static bool fold_use(const imp *x, const mir_inst *p, const mir_inst *q, int32_t *map, int32_t *mem)
{
    const mir_op *P = mir_ops(x->pre, p), *Q = mir_ops(rfunc(x), q);
    if (p->nops + 4 != q->nops) return false;
    for (uint32_t j = 0; j < p->nops; j++) {
        if (!is_vuse(&P[j]) || !memref(x, q, j, false)) continue;
        for (uint32_t i = 0; i < p->nops; i++) map[i] = MAP_NONE;
        if (run_like(x, P, 0, Q, 0, j, map) && run_like(x, P, j + 1, Q, j + 5, p->nops - j - 1, map) &&
            !contradicted(x, P, Q, p->nops, map)) {
            map[j] = MAP_FOLD;
            *mem = (int32_t)j;
            return true;
        }
    }
    return false;
}

/* Opcodes whose two register uses may trade places (a commuted fold). */
static bool commutative(const char *opc)
{
    return x86_is_test_rr(opc);
}

/* (a') the same with the first two uses swapped, for commutative
 * opcodes: each vreg keeps its own location (docs/import-mapping.md S5,
 * R30). */
static bool fold_use_commuted(const imp *x, const mir_inst *p, const mir_inst *q, int32_t *map, int32_t *mem)
{
    if (!commutative(mir_opc(x->rp, p)) || p->nops < 2 || !is_vuse(&mir_ops(x->pre, p)[0]) || !is_vuse(&mir_ops(x->pre, p)[1]))
        return false;
    /* a copy of the instruction's operands with the first two swapped */
    mir_func tmp = *x->pre;
    mir_op *ops = rv_xmalloc((p->nops + 1) * sizeof *ops);
    memcpy(ops, mir_ops(x->pre, p), p->nops * sizeof *ops);
    mir_op t = ops[0];
    ops[0] = ops[1];
    ops[1] = t;
    tmp.ops.data = ops;
    tmp.ops.len = p->nops;
    mir_inst pc = *p;
    pc.op0 = 0;
    imp y = *x;
    y.pre = &tmp;
    bool ok = fold_use(&y, &pc, q, map, mem);
    rv_free(ops);
    if (ok) {
        int32_t m = map[0];
        map[0] = map[1];
        map[1] = m;
    }
    return ok;
}

/* (b) the def (and its tied use) folded into a store to a spill slot. */
static bool fold_def(const imp *x, const mir_inst *p, const mir_inst *q, int32_t *map, int32_t *mem)
{
    const mir_op *P = mir_ops(x->pre, p), *Q = mir_ops(rfunc(x), q);
    if (q->ndefs != 0 || p->ndefs != 1 || P[0].vreg == RVI_NONE || !memref(x, q, 0, true)) return false;
    *mem = 0;
    if (p->nops + 4 == q->nops && run_like(x, P, 1, Q, 5, p->nops - 1, map)) {
        map[0] = MAP_FOLD;
        return true;
    }
    if (p->nops + 3 != q->nops) return false;
    for (uint32_t i = 1; i < p->nops; i++) {
        if (!is_vuse(&P[i]) || P[i].vreg != P[0].vreg) continue;
        if (run_like(x, P, 1, Q, 5, i - 1, map) && run_like(x, P, i + 1, Q, 5 + i - 1, p->nops - i - 1, map)) {
            map[0] = map[i] = MAP_FOLD;
            return true;
        }
    }
    return false;
}

/* (c) TEST r, r read from a slot: CMP mem, 0. */
static bool fold_test(const imp *x, const mir_inst *p, const mir_inst *q, int32_t *map, int32_t *mem)
{
    const mir_op *P = mir_ops(x->pre, p), *Q = mir_ops(rfunc(x), q);
    if (!x86_is_test_rr(mir_opc(x->rp, p)) || !x86_is_cmp_mi0(mir_opc(x->rv, q))) return false;
    if (p->nops < 2 || q->nops != p->nops + 4 || !is_vuse(&P[0]) || !is_vuse(&P[1]) || P[0].vreg != P[1].vreg) return false;
    if (!memref(x, q, 0, false) || Q[5].kind != MO_IMM || Q[5].val != 0) return false;
    if (!run_like(x, P, 2, Q, 6, p->nops - 2, map)) return false;
    map[0] = map[1] = MAP_FOLD;
    *mem = 0;
    return true;
}

/* (d) an immediate def stored straight into its slot (R31). */
static bool fold_imm(const imp *x, const mir_inst *p, const mir_inst *q, int32_t *map, int32_t *mem)
{
    const mir_op *P = mir_ops(x->pre, p), *Q = mir_ops(rfunc(x), q);
    unsigned sw = x86_store_imm_width(mir_opc(x->rv, q));
    if (!sw || p->ndefs != 1 || P[0].vreg == RVI_NONE || q->nops < 6 || !memref(x, q, 0, true) || Q[5].kind != MO_IMM) return false;
    bool has_imm = p->nops > 1 && P[1].kind == MO_IMM;
    uint64_t val;
    unsigned bits;
    if (!x86_imm_move(mir_opc(x->rp, p), has_imm, has_imm ? P[1].val : 0, &val, &bits)) return false;
    uint64_t m = sw >= 64 ? UINT64_MAX : (UINT64_C(1) << sw) - 1;
    if ((val & m) != ((uint64_t)Q[5].val & m)) return false;
    for (uint32_t i = 1; i < p->nops; i++) {
        if (P[i].kind == MO_IMM && i == 1) map[i] = 5;
        else if (P[i].kind == MO_REG && (P[i].flags & MOF_DEAD)) map[i] = MAP_NONE;
        else return false;
    }
    map[0] = MAP_FOLD;
    *mem = 0;
    return true;
}

/* fast's COPYs into vregs are matched by fastcopy.c's rules, but an
 * undef-insert one (`undef %5.sub_32bit = COPY %4.sub_32bit`, R21.4), which
 * fast realises in place as `undef $ecx = COPY $eax, implicit-def $rcx`, is
 * aligned, like a COPY into a machine register (`$esi = COPY $eax,
 * implicit killed $rax`). */
static bool undef_insert(const mir_op *P)
{
    return P[0].kind == MO_REG && P[0].vreg != RVI_NONE && P[0].sub != XS_NONE && (P[0].flags & MOF_UNDEF);
}

/* fast's liveness annotations of a sub-register use or def, appended to
 * the instruction: `implicit killed $eax`, `implicit-def $eax` (the write
 * is the sub-register's: the annotation claims no bits, and is left out). */
static bool fast_extra(const mir_op *Q, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (Q[i].kind != MO_REG || !(Q[i].flags & MOF_IMPLICIT) || Q[i].vreg != RVI_NONE || Q[i].preg < 0) return false;
    return true;
}

/* (a) and (a') both: for a commutative opcode whose two uses differ, a
 * fold that matches both ways with split products (new vreg numbers) in
 * the register left is ambiguous until origins() says which value the
 * register holds; *alt then holds the commuted map. */
static bool fold_either(const imp *x, const mir_inst *p, const mir_inst *q, int32_t *map, int32_t *mem, int32_t **alt)
{
    bool d = fold_use(x, p, q, map, mem);
    if (!commutative(mir_opc(x->rp, p)) || p->nops < 2) return d || fold_use_commuted(x, p, q, map, mem);
    int32_t *cm = rv_xmalloc((p->nops + 1) * sizeof *cm), cmem = -1;
    bool c = fold_use_commuted(x, p, q, cm, &cmem);
    const mir_op *P = mir_ops(x->pre, p);
    if (d && c && P[0].vreg != P[1].vreg && alt) {
        *alt = cm;
        return true;
    }
    if (!d && c) {
        memcpy(map, cm, p->nops * sizeof *map);
        *mem = cmem;
    }
    rv_free(cm);
    return d || c;
}

bool imp_shape(const imp *x, const mir_inst *p, const mir_reader *rr, const mir_inst *q, int32_t *map, int32_t *mem, int32_t **alt)
{
    (void)rr;
    *mem = -1;
    if (alt) *alt = NULL;
    for (uint32_t i = 0; i < p->nops; i++) map[i] = MAP_NONE;
    const mir_op *P = mir_ops(x->pre, p), *Q = mir_ops(rfunc(x), q);
    bool same_opc = p->opc == q->opc;
    if (same_opc && p->nops == q->nops && p->ndefs == q->ndefs && run_like(x, P, 0, Q, 0, p->nops, map)) return true;
    if (same_opc && x->alloc == RVI_FAST && q->nops > p->nops && (!mir_opc_is(x->rp, p, "COPY") || undef_insert(P) || P[0].vreg == RVI_NONE) && p->ndefs == q->ndefs && fast_extra(Q + p->nops, q->nops - p->nops) &&
        run_like(x, P, 0, Q, 0, p->nops, map))
        return true;
    if (same_opc && x->alloc != RVI_FAST) return false;
    if (x->alloc == RVI_FAST) return false; /* fast folds nothing */
    return fold_either(x, p, q, map, mem, alt) || fold_def(x, p, q, map, mem) ||
           fold_test(x, p, q, map, mem) || fold_imm(x, p, q, map, mem);
}

/* ----- the longest increasing run of tags ----- */
typedef struct fw {
    uint32_t len, bonus;
    int32_t who; /* candidate index, -1 */
} fw;

static bool fw_better(fw a, fw b)
{
    return a.len > b.len || (a.len == b.len && a.bonus > b.bonus);
}

static fw fw_query(const fw *t, uint32_t k)
{
    fw best = {0, 0, -1};
    for (; k > 0; k -= k & (0u - k))
        if (fw_better(t[k], best)) best = t[k];
    return best;
}

static void fw_update(fw *t, uint32_t n, uint32_t k, fw v)
{
    for (; k <= n; k += k & (0u - k))
        if (fw_better(v, t[k])) t[k] = v;
}

typedef struct cand {
    uint32_t ri;     /* rinst */
    uint32_t k;      /* pre instruction */
    int32_t *map;
    int32_t mem;
    int32_t *alt;
    int32_t prev;
} cand;
typedef RV_VEC(cand) candvec;

/* The pre instruction of tag t in block b (binary search), RVI_NONE. */
static uint32_t pre_of_tag(const imp *x, uint32_t b, uint32_t t)
{
    const mir_block *blk = &x->pre->blocks.data[b];
    uint32_t lo = blk->i0, hi = blk->i0 + blk->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2, mt = x->pre_tag[mid];
        uint32_t a = mid;
        while (mt == 0 && a + 1 < hi) mt = x->pre_tag[++a]; /* debug lines have none */
        if (mt == t) return a;
        if (mt == 0 || mt > t) hi = mid;
        else lo = a + 1;
    }
    return RVI_NONE;
}

static void align_block(imp *x, uint32_t b, candvec *cs)
{
    const mir_block *blk = &x->pre->blocks.data[b];
    const rblock *rb = &x->rblocks.data[b];
    cs->len = 0;
    for (uint32_t i = rb->i0; i < rb->i0 + rb->n; i++) {
        rinst *ri = &x->rs.data[i];
        if (!ri->tag) continue;
        uint32_t k = pre_of_tag(x, b, ri->tag);
        if (k == RVI_NONE) continue;
        const mir_inst *p = &x->pre->insts.data[k];
        const mir_inst *q = ri->v ? ri->v : ri->p;
        cand c = {i, k, rv_arena_alloc(&x->arena, (p->nops + 1) * sizeof(int32_t)), -1, NULL, -1};
        int32_t *alt = NULL;
        if (!imp_shape(x, p, x->rv, q, c.map, &c.mem, &alt)) continue;
        if (alt) {
            c.alt = rv_arena_alloc(&x->arena, (p->nops + 1) * sizeof(int32_t));
            memcpy(c.alt, alt, p->nops * sizeof(int32_t));
            rv_free(alt);
        }
        rv_vec_push(*cs, c);
    }
    fw *t = rv_xcalloc(blk->n + 1, sizeof *t);
    for (uint32_t i = 0; i <= blk->n; i++) t[i].who = -1;
    for (uint32_t c = 0; c < cs->len; c++) {
        cand *cd = &cs->data[c];
        uint32_t key = cd->k - blk->i0 + 1;
        fw best = fw_query(t, key - 1);
        bool on_slot = x->rs.data[cd->ri].slot >= 0 && (uint32_t)x->rs.data[cd->ri].slot == x->pre_slot[cd->k];
        fw mine = {best.len + 1, best.bonus + (on_slot ? 1u : 0u), (int32_t)c};
        cd->prev = best.who;
        fw_update(t, blk->n, key, mine);
    }
    fw top = fw_query(t, blk->n);
    rv_free(t);
    for (int32_t c = top.who; c >= 0; c = cs->data[c].prev) {
        cand *cd = &cs->data[c];
        rinst *ri = &x->rs.data[cd->ri];
        ri->orig = cd->k;
        ri->map = cd->map;
        ri->mem = cd->mem;
        ri->alt = cd->alt;
        x->aligned[cd->k] = cd->ri;
    }
}

/* ----- originals left over ----- */
/* Is result instruction ri a spill-slot load (R28) or store (R29) that can
 * realise COPY p: untagged and not aligned; with `same`, its register
 * operand is the COPY's own def (load) or source (store). *store: which. */
static bool copy_fold_shape(const imp *x, const rinst *ri, const mir_inst *p, bool same, bool *store)
{
    if (ri->orig != RVI_NONE || !ri->v || ri->v->tag) return false;
    const char *opc = mir_opc(x->rv, ri->v);
    bool vec;
    *store = x86_spill_width(opc, &vec) && ri->v->ndefs == 0 && memref(x, ri->v, 0, true);
    bool load = x86_reload_width(opc, &vec) && ri->v->ndefs == 1 && memref(x, ri->v, 1, true);
    if (!*store && !load) return false;
    if (!same) return true;
    const mir_op *r = &mir_ops(x->bf, ri->v)[*store ? 5 : 0], *c = &mir_ops(x->pre, p)[*store ? 1 : 0];
    if (r->kind != MO_REG || c->kind != MO_REG) return false;
    if (c->vreg == RVI_NONE) return r->vreg == RVI_NONE && r->preg == c->preg;
    return r->vreg == c->vreg || (r->vreg < x->vm.norigin && x->vm.origin[r->vreg] == c->vreg);
}

/* x->vm.origin: the vreg of tag.mir each vreg of the dump stands for, as the
 * aligned originals pair them (greedy renames a vreg's pieces when it
 * splits it), then through the allocator's own code: a split copy's def
 * stands for its source's vreg, and a reload's def for the vreg that the
 * spills into its slot stand for (when they all agree). */
static void spread_origins(imp *x, int64_t *slot_of, uint32_t nslots)
{
    for (uint32_t i = 0; i < x->rs.len; i++) {
        const rinst *ri = &x->rs.data[i];
        if (ri->orig != RVI_NONE || !ri->v || ri->v->nops < 2) continue;
        const char *opc = mir_opc(x->rv, ri->v);
        const mir_op *o = mir_ops(x->bf, ri->v);
        bool vec;
        int64_t n;
        if (x86_spill_width(opc, &vec) && ri->v->nops >= 6 && imp_memref_at(x, x->rv, x->bf, ri->v, 0, &n) == MR_SPILL &&
            (uint64_t)n < nslots && o[5].vreg < x->vm.norigin && x->vm.origin[o[5].vreg] != RVI_NONE) {
            int64_t v = x->vm.origin[o[5].vreg];
            slot_of[n] = slot_of[n] == -1 ? v : slot_of[n] == v ? v : -2;
        } else if (x86_reload_width(opc, &vec) && ri->v->nops >= 6 && imp_memref_at(x, x->rv, x->bf, ri->v, 1, &n) == MR_SPILL &&
                   (uint64_t)n < nslots && slot_of[n] >= 0 && o[0].vreg < x->vm.norigin && x->vm.origin[o[0].vreg] == RVI_NONE) {
            x->vm.origin[o[0].vreg] = (uint32_t)slot_of[n];
        } else if (!strcmp(opc, "COPY") && o[0].vreg < x->vm.norigin && o[1].vreg < x->vm.norigin && x->vm.origin[o[0].vreg] == RVI_NONE) {
            x->vm.origin[o[0].vreg] = x->vm.origin[o[1].vreg];
        }
    }
}

static void origins(imp *x)
{
    if (x->alloc == RVI_FAST) return;
    x->vm.norigin = x->vm.nreg;
    x->vm.origin = rv_arena_alloc(&x->arena, (x->vm.norigin + 1) * sizeof *x->vm.origin);
    for (uint32_t v = 0; v <= x->vm.norigin; v++) x->vm.origin[v] = RVI_NONE;
    for (uint32_t i = 0; i < x->rs.len; i++) {
        const rinst *ri = &x->rs.data[i];
        if (ri->orig == RVI_NONE || !ri->v || ri->alt) continue;
        const mir_inst *p = &x->pre->insts.data[ri->orig];
        for (uint32_t j = 0; j < p->nops; j++) {
            if (ri->map[j] < 0) continue;
            const mir_op *po = &mir_ops(x->pre, p)[j], *qo = &mir_ops(x->bf, ri->v)[ri->map[j]];
            if (po->vreg != RVI_NONE && qo->vreg != RVI_NONE && qo->vreg < x->vm.norigin) x->vm.origin[qo->vreg] = po->vreg;
        }
    }
    uint32_t nslots = x->post->stack.len + 1;
    for (uint32_t i = 0; i < x->post->stack.len; i++)
        if ((uint32_t)x->post->stack.data[i].id + 1 > nslots && x->post->stack.data[i].id < (int32_t)RVI_MAX_SLOTS)
            nslots = (uint32_t)x->post->stack.data[i].id + 1;
    int64_t *slot_of = rv_xmalloc(nslots * sizeof *slot_of);
    for (uint32_t i = 0; i < nslots; i++) slot_of[i] = -1;
    for (int pass = 0; pass < 3; pass++) spread_origins(x, slot_of, nslots);
    rv_free(slot_of);
}

/* Does result operand m of ri hold pre vreg v (by number or origin)? */
static bool holds_vreg(const imp *x, const rinst *ri, int32_t m, uint32_t v)
{
    if (m < 0) return false;
    uint32_t q = mir_ops(x->bf, ri->v)[m].vreg;
    return q == v || (q < x->vm.norigin && x->vm.origin[q] == v);
}

/* The ambiguous commutative folds: the register left holds one of the
 * two uses; the map is the one that pairs it with that use. Neither
 * (origins() could not trace the split product): refused, never guessed. */
static void decide_commuted(imp *x)
{
    for (uint32_t i = 0; i < x->rs.len && !imp_failed(x); i++) {
        rinst *ri = &x->rs.data[i];
        if (!ri->alt) continue;
        const mir_inst *p = &x->pre->insts.data[ri->orig];
        const mir_op *P = mir_ops(x->pre, p);
        uint32_t kept = ri->map[0] == MAP_FOLD ? 1 : 0; /* the use the direct map leaves in a register */
        if (holds_vreg(x, ri, ri->map[kept], P[kept].vreg)) {
            ri->alt = NULL;
        } else if (holds_vreg(x, ri, ri->map[kept], P[1 - kept].vreg)) {
            ri->map = ri->alt;
            ri->alt = NULL;
        } else {
            imp_refuse_at(x, "commuted-fold", x->rv, ri->v->pos,
                          "a fold of a commutative instruction whose register operand is a split product of unknown origin: which use was folded is not known");
        }
    }
}

static void take_fold(imp *x, uint32_t i, uint32_t k, bool store)
{
    rinst *ri = &x->rs.data[i];
    ri->orig = k;
    ri->fold_copy = true;
    ri->mem = store ? 0 : 1;
    x->aligned[k] = i;
    x->untagged++;
}

/* Is spill slot n read back, somewhere in the function, as vreg v of
 * tag.mir: a reload into a piece of v, or a fold of v's use? */
static bool slot_feeds(const imp *x, int64_t n, uint32_t v)
{
    for (uint32_t i = 0; i < x->rs.len; i++) {
        const rinst *ri = &x->rs.data[i];
        int64_t m;
        if (!ri->v) continue;
        bool vec;
        if (ri->orig == RVI_NONE && x86_reload_width(mir_opc(x->rv, ri->v), &vec) && ri->v->ndefs == 1 &&
            imp_memref_at(x, x->rv, x->bf, ri->v, 1, &m) == MR_SPILL && m == n) {
            const mir_op *d = mir_ops(x->bf, ri->v);
            if (d->vreg == v || (d->vreg < x->vm.norigin && x->vm.origin[d->vreg] == v)) return true;
        }
        if (ri->orig == RVI_NONE || ri->fold_copy || ri->mem < 0 || imp_memref_at(x, x->rv, x->bf, ri->v, (uint32_t)ri->mem, &m) != MR_SPILL || m != n)
            continue;
        const mir_inst *p = &x->pre->insts.data[ri->orig];
        for (uint32_t j = 0; j < p->nops; j++)
            if (ri->map[j] == MAP_FOLD && !(mir_ops(x->pre, p)[j].flags & MOF_DEF) && mir_ops(x->pre, p)[j].vreg == v) return true;
    }
    return false;
}

/* Of several stores that could realise COPY p (R29), the one whose slot is
 * read back as the COPY's def; RVI_NONE if not exactly one. */
static uint32_t store_read_back(const imp *x, uint32_t lo, uint32_t hi, const mir_inst *p)
{
    uint32_t pick = RVI_NONE, n = 0;
    uint32_t v = mir_ops(x->pre, p)[0].vreg;
    for (uint32_t i = lo; i < hi && v != RVI_NONE; i++) {
        bool st;
        int64_t slot;
        if (!copy_fold_shape(x, &x->rs.data[i], p, true, &st) || !st) continue;
        imp_memref_at(x, x->rv, x->bf, x->rs.data[i].v, 0, &slot);
        if (slot_feeds(x, slot, v)) pick = i, n++;
    }
    return n == 1 ? pick : RVI_NONE;
}

static bool on_slot(const imp *x, uint32_t k)
{
    uint32_t i = x->aligned[k];
    return i != RVI_NONE && x->rs.data[i].slot >= 0 && (uint32_t)x->rs.data[i].slot == x->pre_slot[k];
}

/* R28, R29: the untagged load or store of a spill slot that realises COPY
 * k: at the slot index the COPY had, between its aligned neighbours. llc
 * renumbers indexes locally when it runs out of room between two, so an
 * instruction at that index is taken on its index alone only where its
 * aligned neighbours kept theirs; otherwise (and first) the candidate must
 * have the COPY's own register operand (its def for a load, its source for
 * a store), and be the only such one between the neighbours. */
static bool folded_copy(imp *x, uint32_t b, uint32_t k)
{
    const rblock *rb = &x->rblocks.data[b];
    const mir_inst *p = &x->pre->insts.data[k];
    const mir_block *blk = &x->pre->blocks.data[b];
    uint32_t lo = rb->i0, hi = rb->i0 + rb->n, first = RVI_NONE, at_slot = RVI_NONE, nsame = 0;
    int32_t prev = -1, next = -1;
    for (uint32_t j = blk->i0; j < k; j++)
        if (x->aligned[j] != RVI_NONE && x->aligned[j] + 1 > lo) lo = x->aligned[j] + 1, prev = (int32_t)j;
    for (uint32_t j = blk->i0 + blk->n; j > k + 1; j--)
        if (x->aligned[j - 1] != RVI_NONE && x->aligned[j - 1] < hi) hi = x->aligned[j - 1], next = (int32_t)j - 1;
    bool store, same_at_slot = false;
    for (uint32_t i = lo; i < hi; i++) {
        const rinst *ri = &x->rs.data[i];
        bool at = ri->slot >= 0 && (uint32_t)ri->slot == x->pre_slot[k] && copy_fold_shape(x, ri, p, false, &store);
        if (at) at_slot = i;
        if (!copy_fold_shape(x, ri, p, true, &store)) continue;
        nsame++;
        if (first == RVI_NONE) first = i;
        same_at_slot |= at;
    }
    bool settled = (prev < 0 || on_slot(x, (uint32_t)prev)) && (next < 0 || on_slot(x, (uint32_t)next));
    uint32_t pick = nsame == 1 ? first : nsame > 1 && same_at_slot && settled ? at_slot : nsame == 0 && settled ? at_slot : RVI_NONE;
    if (pick == RVI_NONE && nsame > 1) pick = store_read_back(x, lo, hi, p);
    if (pick == RVI_NONE) return false;
    copy_fold_shape(x, &x->rs.data[pick], p, false, &store);
    take_fold(x, pick, k, store);
    return true;
}

static bool imp_is_call(const imp *x, const mir_inst *p)
{
    const char *opc = mir_opc(x->rp, p);
    return strncmp(opc, "CALL64", 6) == 0 || strncmp(opc, "TCRETURN", 8) == 0 || strncmp(opc, "ADJCALLSTACK", 12) == 0;
}

static bool deletable_r33(const imp *x, uint32_t k);

/* The vregs that nothing the allocator kept reads (every instruction
 * reading one is deleted, none a call, a memory access or a COPY, which
 * may be realised by a reload, R28): x->drop.erased, by vreg number. A def
 * of a sub-register without `undef` reads its vreg (it keeps the rest);
 * other defs read nothing. */
static void erased_vregs(imp *x)
{
    const mir_func *f = x->pre;
    uint32_t top = 0;
    for (uint32_t i = 0; i < f->ops.len; i++)
        if (f->ops.data[i].vreg != RVI_NONE && f->ops.data[i].vreg + 1 > top) top = f->ops.data[i].vreg + 1;
    x->drop.nerased = top;
    x->drop.erased = rv_arena_alloc(&x->arena, top + 1);
    memset(x->drop.erased, 1, top + 1);
    for (uint32_t k = 0; k < f->insts.len; k++) {
        const mir_inst *p = &f->insts.data[k];
        if (p->debug) continue;
        bool gone = x->aligned[k] == RVI_NONE && !p->nmem && !imp_is_call(x, p) && !mir_opc_is(x->rp, p, "COPY") && !deletable_r33(x, k);
        if (gone) continue;
        for (uint32_t i = 0; i < p->nops; i++) {
            const mir_op *o = &mir_ops(f, p)[i];
            bool def = (o->flags & MOF_DEF) != 0;
            bool reads = def ? o->sub != XS_NONE && !(o->flags & MOF_UNDEF) : !(o->flags & MOF_UNDEF);
            if (o->vreg != RVI_NONE && reads) x->drop.erased[o->vreg] = 0;
        }
    }
}

static bool deletable_r33(const imp *x, uint32_t k);

/* Def of vreg v by pre instruction k is read by nothing the allocator
 * kept: each reader up to the next redefinition in k's block is dropped
 * (a dropped reader's defs are themselves unread, so a redefinition that
 * also reads v ends the search too; a def of a sub-register without
 * `undef` keeps the rest of v, so it reads v), and past the block's end v
 * is read by nothing kept at all. */
static bool def_unread(const imp *x, uint32_t k, uint32_t end, uint32_t v)
{
    const mir_func *f = x->pre;
    for (uint32_t j = k + 1; j < end; j++) {
        const mir_inst *q = &f->insts.data[j];
        bool reads = false, writes = false;
        for (uint32_t i = 0; i < q->nops; i++) {
            const mir_op *o = &mir_ops(f, q)[i];
            if (o->vreg != v || q->debug) continue;
            if (!(o->flags & MOF_DEF)) reads = true;
            else if (writes = true, o->sub != XS_NONE && !(o->flags & MOF_UNDEF)) reads = true;
        }
        if (reads && !x->drop.dropped[j]) return false;
        if (writes) return true;
    }
    return v < x->drop.nerased && x->drop.erased[v];
}

/* R23's KILL without a destination: no op, it reads nothing. */
static bool nop_kill(const imp *x, const mir_inst *q)
{
    return mir_opc_is(x->rp, q, "KILL") && !(q->nops && (mir_ops(x->pre, q)[0].flags & (MOF_IMPLICIT | MOF_DEF)) == MOF_DEF);
}

/* Does q read machine register r (or one overlapping it), and does it
 * write r whole (r or a register containing it)? */
static void phys_access(const imp *x, const mir_inst *q, unsigned r, bool *reads, bool *writes)
{
    *reads = *writes = false;
    for (uint32_t i = 0; i < q->nops; i++) {
        const mir_op *o = &mir_ops(x->pre, q)[i];
        if (o->kind != MO_REG || o->vreg != RVI_NONE || o->preg < 0) continue;
        unsigned p = (unsigned)o->preg;
        if (p != r && !x86_overlaps(p, r)) continue;
        if (!(o->flags & MOF_DEF)) *reads |= !(o->flags & MOF_UNDEF);
        else if (p == r || x86_contains(p, r)) *writes = true;
    }
}

/* Physical def of register r by pre instruction k is read by nothing the
 * allocator kept: every instruction reading r or a register overlapping
 * it, up to the next whole write of r, which must come in k's block, is
 * dropped or a KILL without a destination. */
static bool phys_unread(const imp *x, uint32_t k, uint32_t end, unsigned r)
{
    const mir_func *f = x->pre;
    for (uint32_t j = k + 1; j < end; j++) {
        const mir_inst *q = &f->insts.data[j];
        bool reads, writes;
        if (q->debug) continue;
        phys_access(x, q, r, &reads, &writes);
        if (reads && !x->drop.dropped[j] && !nop_kill(x, q)) return false;
        if (writes) return true;
    }
    return false; /* live out of the block, perhaps: kept */
}

/* R33 extended: a deleted original whose defs nothing kept reads (greedy's
 * dead-def elimination, transitively, through virtual and physical
 * registers), no call and no memory access. It wrote nothing any kept
 * instruction reads; it is dropped from both forms. A COPY among them may
 * have been realised by a reload or a spill (R28, R29): that load or store
 * is then an edit, and nothing kept reads the value either way.
 * Computed per block from its end. */
static bool droppable(const imp *x, uint32_t k, uint32_t end)
{
    const mir_inst *p = &x->pre->insts.data[k];
    if (p->debug || x->aligned[k] != RVI_NONE || p->nmem || imp_is_call(x, p) || deletable_r33(x, k)) return false;
    const mir_op *o = mir_ops(x->pre, p);
    uint32_t ndef = 0;
    for (uint32_t i = 0; i < p->nops; i++) {
        if (o[i].kind != MO_REG || !(o[i].flags & MOF_DEF)) continue;
        if (o[i].vreg != RVI_NONE) {
            if (!(o[i].flags & MOF_DEAD) && !def_unread(x, k, end, o[i].vreg)) return false;
        } else if (o[i].preg < 0 || (!(o[i].flags & MOF_DEAD) && !phys_unread(x, k, end, (unsigned)o[i].preg))) {
            return false;
        }
        ndef++;
    }
    return ndef > 0;
}

static void drop_dead(imp *x)
{
    const mir_func *f = x->pre;
    x->drop.dropped = rv_arena_alloc(&x->arena, f->insts.len + 1);
    for (uint32_t b = 0; b < f->blocks.len; b++) {
        const mir_block *blk = &f->blocks.data[b];
        for (uint32_t k = blk->i0 + blk->n; k-- > blk->i0;) x->drop.dropped[k] = droppable(x, k, blk->i0 + blk->n);
    }
}

bool imp_dropped(const imp *x, uint32_t k)
{
    return x->drop.dropped && x->drop.dropped[k];
}

static bool deletable(const imp *x, uint32_t k)
{
    return deletable_r33(x, k) || imp_dropped(x, k);
}

static bool deletable_r33(const imp *x, uint32_t k)
{
    const mir_inst *p = &x->pre->insts.data[k];
    if (mir_opc_is(x->rp, p, "IMPLICIT_DEF")) return true;
    if (x->alloc == RVI_FAST && (mir_opc_is(x->rp, p, "COPY") || mir_opc_is(x->rp, p, "KILL"))) return true;
    return imp_is_const(x, x->rp, x->pre, p);
}

static void leftovers(imp *x, uint32_t b)
{
    const mir_block *blk = &x->pre->blocks.data[b];
    for (uint32_t k = blk->i0; k < blk->i0 + blk->n && !imp_failed(x); k++) {
        const mir_inst *p = &x->pre->insts.data[k];
        if (p->debug || x->aligned[k] != RVI_NONE || imp_dropped(x, k)) continue;
        if (x->alloc != RVI_FAST && mir_opc_is(x->rp, p, "COPY") && folded_copy(x, b, k)) continue;
        if (!deletable(x, k))
            imp_error(x, "S5", x->rp, p->pos, "this original (%s) has no matching instruction in the allocator's output",
                      mir_opc(x->rp, p));
    }
}

/* x->items for block b: result instructions in order, deleted originals
 * after the aligned original before them. */
static void block_items(imp *x, uint32_t b)
{
    const mir_block *blk = &x->pre->blocks.data[b];
    const rblock *rb = &x->rblocks.data[b];
    x->item0[b] = x->items.len;
    uint32_t k = blk->i0, end = blk->i0 + blk->n;
    /* deleted originals before the first aligned one */
    for (; k < end && x->aligned[k] == RVI_NONE; k++)
        if (!x->pre->insts.data[k].debug) rv_vec_push(x->items, ((item){true, k}));
    for (uint32_t i = rb->i0; i < rb->i0 + rb->n; i++) {
        rv_vec_push(x->items, ((item){false, i}));
        uint32_t o = x->rs.data[i].orig;
        if (o == RVI_NONE || o < k) continue;
        for (k = o + 1; k < end && x->aligned[k] == RVI_NONE; k++)
            if (!x->pre->insts.data[k].debug) rv_vec_push(x->items, ((item){true, k}));
    }
}

static void pre_slots(imp *x)
{
    const mir_func *f = x->pre;
    x->pre_slot = rv_arena_alloc(&x->arena, (f->insts.len + 1) * sizeof *x->pre_slot);
    uint32_t s = 0;
    for (uint32_t b = 0; b < f->blocks.len; b++) {
        s += 16;
        const mir_block *blk = &f->blocks.data[b];
        for (uint32_t k = 0; k < blk->n; k++) {
            if (mir_block_inst(f, blk, k)->debug) continue;
            x->pre_slot[blk->i0 + k] = s;
            s += 16;
        }
    }
}

static bool tags_ok(imp *x)
{
    uint32_t last = 0;
    for (uint32_t k = 0; k < x->pre->insts.len; k++) {
        const mir_inst *p = &x->pre->insts.data[k];
        if (p->debug) continue;
        if (!x->pre_tag[k] || x->pre_tag[k] <= last) {
            imp_error(x, "S5", x->rp, p->pos, "instructions without unique increasing tags: was the input made by `ravel import-mir tag`?");
            return false;
        }
        last = x->pre_tag[k];
    }
    return true;
}

void imp_align(imp *x)
{
    const mir_func *f = x->pre;
    if (!tags_ok(x)) return;
    pre_slots(x);
    x->aligned = rv_arena_alloc(&x->arena, (f->insts.len + 1) * sizeof *x->aligned);
    for (uint32_t k = 0; k <= f->insts.len; k++) x->aligned[k] = RVI_NONE;
    x->item0 = rv_arena_alloc(&x->arena, (f->blocks.len + 1) * sizeof *x->item0);
    candvec cs = {0};
    for (uint32_t b = 0; b < f->blocks.len && !imp_failed(x); b++) align_block(x, b, &cs);
    rv_vec_free(cs);
    origins(x);
    decide_commuted(x);
    erased_vregs(x);
    drop_dead(x);
    for (uint32_t b = 0; b < f->blocks.len && !imp_failed(x); b++) leftovers(x, b);
    for (uint32_t b = 0; b < f->blocks.len && !imp_failed(x); b++) block_items(x, b);
    x->item0[f->blocks.len] = x->items.len;
}
