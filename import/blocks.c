/*
 * blocks.c - blocks and terminators (docs/import-mapping.md R41 to R46).
 *
 *   bb.N is bN, in layout order; a block `bentry` holding the args op and
 *   `jump b0` comes first when bb.0 has a predecessor (R41);
 *   JCC_1 T, CC + JMP_1 F (or a fall-through into F) is
 *   `br vE fixed(eflags), bT, bF` on the EFLAGS pseudo-vreg (R42); n > 1
 *   JCC_1s are a chain of two-way brs through added blocks bN_j1 ...
 *   (R43); JMP64r / JMP64m are a br on their first vreg use over the
 *   block's successors in `successors:` order (R44); every critical edge
 *   P -> S gets a block P_S holding `jump S` (R45); a block without
 *   successors that neither returns nor tail-calls ends in `ret` (R46);
 *   RET is `ret` of its register operands (R20), a tail call a `call`
 *   followed by `ret` (R19).
 * Blocks added for bN (R43's, then R45's in the order of the edges they
 * split) follow bN.
 *
 * Requires: imp_phys. Guarantees: x->tb.list lists the output blocks in their
 * final order with terminators and targets (label ids in x->tb.tt), so that
 * the allocated and the unallocated function have the same blocks.
 */
#include "import/imp.h"

static bool opc_in(const imp *x, uint32_t k, const char *const *list)
{
    const char *opc = mir_opc(x->rp, &x->pre->insts.data[k]);
    for (size_t i = 0; list[i]; i++)
        if (strcmp(opc, list[i]) == 0) return true;
    return false;
}

static const char *const rets[] = {"RET", "RET32", "RET64", "RETI64", NULL};
static const char *const jts[] = {"JMP64r", "JMP64m", "JMP64r_NT", "JMP64m_NT", NULL};
static const char *const jmps[] = {"JMP_1", "JMP_2", "JMP_4", NULL};

bool imp_is_term(const imp *x, uint32_t k)
{
    static const char *const jcc[] = {"JCC_1", "JCC_2", "JCC_4", NULL};
    return opc_in(x, k, rets) || opc_in(x, k, jts) || opc_in(x, k, jmps) || opc_in(x, k, jcc);
}

static bool is_tail(const imp *x, uint32_t k)
{
    return strncmp(mir_opc(x->rp, &x->pre->insts.data[k]), "TCRETURN", 8) == 0;
}

/* The target block (pre block index) of a JCC_1/JMP_1, -1. */
static int32_t target(const imp *x, uint32_t k)
{
    const mir_inst *p = &x->pre->insts.data[k];
    for (uint32_t i = 0; i < p->nops; i++) {
        const mir_op *o = &mir_ops(x->pre, p)[i];
        if (o->kind != MO_BB) continue;
        for (uint32_t b = 0; b < x->pre->blocks.len; b++)
            if (x->pre->blocks.data[b].num == o->val) return (int32_t)b;
    }
    return -1;
}

static uint32_t add_tb(imp *x, uint32_t label, int32_t pre_block, uint8_t term)
{
    tblock t;
    memset(&t, 0, sizeof t);
    t.label = label;
    t.pre_block = pre_block;
    t.term = term;
    t.cond_k = RVI_NONE;
    t.t0 = x->tb.tt.len;
    rv_vec_push(x->tb.list, t);
    return x->tb.list.len - 1;
}

static void add_target(imp *x, uint32_t tb, uint32_t label)
{
    rv_vec_push(x->tb.tt, label);
    x->tb.list.data[tb].nt++;
}

static char *label_name(imp *x, const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + strlen(a) + (b ? strlen(b) : 0) + 1;
    char *s = rv_arena_alloc(&x->arena, n);
    snprintf(s, n, fmt, a, b ? b : "");
    return s;
}

/* The chain of block b: its trailing terminators (k0 .. last). */
static void plan_block(imp *x, ra_func *f, uint32_t b)
{
    const mir_block *blk = &x->pre->blocks.data[b];
    int32_t last = -1, first_term = -1;
    for (uint32_t k = blk->i0; k < blk->i0 + blk->n; k++)
        if (!x->pre->insts.data[k].debug) last = (int32_t)k;
    for (int32_t k = last; k >= (int32_t)blk->i0; k--) {
        if (x->pre->insts.data[k].debug) continue;
        if (!imp_is_term(x, (uint32_t)k)) break;
        first_term = k;
    }
    uint32_t main = x->tb.of_pre[b] = add_tb(x, b, (int32_t)b, RK_RET);
    bool fall = b + 1 < x->pre->blocks.len;
    if (last >= 0 && (opc_in(x, (uint32_t)last, rets) || is_tail(x, (uint32_t)last))) {
        x->tb.list.data[main].cond_k = opc_in(x, (uint32_t)last, rets) ? (uint32_t)last : RVI_NONE;
        return;
    }
    if (last >= 0 && opc_in(x, (uint32_t)last, jts)) {
        x->tb.list.data[main].term = RK_BR;
        x->tb.list.data[main].cond_k = (uint32_t)last;
        for (uint32_t s = 0; s < blk->ns; s++) {
            uint32_t num = x->pre->u32.data[blk->s0 + s];
            for (uint32_t c = 0; c < x->pre->blocks.len; c++)
                if ((uint32_t)x->pre->blocks.data[c].num == num) add_target(x, main, c);
        }
        return;
    }
    /* JCC_1 ... [JMP_1 F] or a fall-through */
    int32_t F = -1;
    uint32_t njcc = 0;
    for (int32_t k = first_term; first_term >= 0 && k <= last; k++)
        if (!x->pre->insts.data[k].debug && !opc_in(x, (uint32_t)k, jmps)) njcc++;
    if (last >= 0 && opc_in(x, (uint32_t)last, jmps)) F = target(x, (uint32_t)last);
    else if (blk->ns > 0 && fall) F = (int32_t)b + 1;
    if (njcc == 0) {
        if (F >= 0) {
            x->tb.list.data[main].term = RK_JUMP;
            add_target(x, main, (uint32_t)F);
        }
        return; /* R46: no successor: ret */
    }
    if (F < 0) {
        imp_error(x, "R42", x->rp, x->pre->insts.data[last].pos, "a conditional branch without a fall-through block");
        return;
    }
    uint32_t cur = main, j = 0;
    for (int32_t k = first_term; k <= last; k++) {
        if (x->pre->insts.data[k].debug || opc_in(x, (uint32_t)k, jmps)) continue;
        int32_t T = target(x, (uint32_t)k);
        if (T < 0) {
            imp_error(x, "R42", x->rp, x->pre->insts.data[k].pos, "a branch to no block of the function");
            return;
        }
        x->tb.list.data[cur].term = RK_BR;
        x->tb.list.data[cur].cond_k = (uint32_t)k;
        add_target(x, cur, (uint32_t)T);
        if (++j == njcc) {
            add_target(x, cur, (uint32_t)F);
            break;
        }
        char num[32];
        snprintf(num, sizeof num, "%u", j);
        uint32_t lab = ra_add_label(f, label_name(x, "%s_j%s", f->labels.data[b], num));
        add_target(x, cur, lab);
        cur = add_tb(x, lab, -1, RK_BR);
    }
}

/* R45: the critical edges of the plan, split in place. */
static void split_edges(imp *x, ra_func *f, uint32_t *order, uint32_t *norder, const uint32_t *group_end)
{
    uint32_t nl = f->labels.len;
    uint32_t *preds = rv_xcalloc(nl + 1, sizeof *preds);
    for (uint32_t t = 0; t < x->tb.list.len; t++)
        for (uint32_t i = 0; i < x->tb.list.data[t].nt; i++) preds[x->tb.tt.data[x->tb.list.data[t].t0 + i]]++;
    RV_VEC(uint32_t) out = {0};
    for (uint32_t g = 0, t = 0; t < *norder; g++) {
        uint32_t start = t;
        for (; t < group_end[g]; t++) rv_vec_push(out, order[t]);
        for (uint32_t q = start; q < group_end[g]; q++) {
            uint32_t tb = order[q];
            if (x->tb.list.data[tb].nt < 2) continue;
            for (uint32_t i = 0; i < x->tb.list.data[tb].nt; i++) {
                uint32_t S = x->tb.tt.data[x->tb.list.data[tb].t0 + i];
                if (preds[S] < 2) continue;
                const char *pn = f->labels.data[x->tb.list.data[tb].label];
                uint32_t lab = ra_add_label(f, label_name(x, "%s_%s", pn, f->labels.data[S]));
                uint32_t nb = add_tb(x, lab, -1, RK_JUMP);
                add_target(x, nb, S);
                x->tb.tt.data[x->tb.list.data[tb].t0 + i] = lab;
                rv_vec_push(out, nb);
            }
        }
    }
    if (out.len) memcpy(order, out.data, out.len * sizeof *order);
    *norder = out.len;
    rv_vec_free(out);
    rv_free(preds);
}

void imp_plan(imp *x, ra_func *f)
{
    const mir_func *p = x->pre;
    for (uint32_t b = 0; b < p->blocks.len; b++) {
        char num[32];
        snprintf(num, sizeof num, "b%d", p->blocks.data[b].num);
        ra_add_label(f, label_name(x, "%s%s", num, NULL));
    }
    x->tb.of_pre = rv_arena_alloc(&x->arena, (p->blocks.len + 1) * sizeof *x->tb.of_pre);
    uint32_t *group_end = rv_xcalloc(p->blocks.len + 2, sizeof *group_end);
    for (uint32_t b = 0; b < p->blocks.len && !imp_failed(x); b++) {
        plan_block(x, f, b);
        group_end[b] = x->tb.list.len;
    }
    bool entry_pred = false;
    for (uint32_t i = 0; i < x->tb.tt.len; i++) entry_pred |= x->tb.tt.data[i] == 0;
    uint32_t cap = 2 * (x->tb.list.len + x->tb.tt.len) + 4, norder = 0;
    uint32_t *order = rv_xcalloc(cap, sizeof *order);
    uint32_t g0 = 0;
    if (entry_pred && !imp_failed(x)) {
        uint32_t lab = ra_add_label(f, "bentry");
        uint32_t e = add_tb(x, lab, -1, RK_JUMP);
        add_target(x, e, 0);
        x->tb.list.data[e].entry_args = true;
        order[norder++] = e;
        g0 = 1;
    } else if (p->blocks.len) {
        x->tb.list.data[x->tb.of_pre[0]].entry_args = true;
    }
    for (uint32_t t = 0; t < (g0 ? x->tb.list.len - 1 : x->tb.list.len); t++) order[norder++] = t;
    uint32_t *ge = rv_xcalloc(p->blocks.len + 2, sizeof *ge);
    for (uint32_t b = 0; b < p->blocks.len; b++) ge[b] = group_end[b] + g0; /* bentry joins b0's group */
    if (!imp_failed(x)) split_edges(x, f, order, &norder, ge);
    /* x->tb.list in final order */
    RV_VEC(tblock) tbs = {0};
    for (uint32_t i = 0; i < norder; i++) rv_vec_push(tbs, x->tb.list.data[order[i]]);
    for (uint32_t i = 0; i < norder; i++)
        if (tbs.data[i].pre_block >= 0) x->tb.of_pre[tbs.data[i].pre_block] = i;
    rv_vec_free(x->tb.list);
    x->tb.list.data = tbs.data;
    x->tb.list.len = tbs.len;
    x->tb.list.cap = tbs.cap;
    rv_free(order);
    rv_free(group_end);
    rv_free(ge);
}

void imp_term(imp *x, ra_func *f, uint32_t t, const op_alloc *a)
{
    const tblock *tb = &x->tb.list.data[t];
    uint32_t id = ra_add_inst(f, tb->term);
    ra_inst *in = &f->insts.data[id];
    in->u0 = f->uses.len;
    in->pre = tb->cond_k;
    if (tb->cond_k != RVI_NONE) {
        in->ctext = &x->rp->t;
        in->cpos = x->pre->insts.data[tb->cond_k].pos;
        const mir_inst *p = &x->pre->insts.data[tb->cond_k];
        for (uint32_t i = 0; i < p->nops; i++) {
            ra_opnd o;
            if ((mir_ops(x->pre, p)[i].flags & MOF_DEF) || !imp_operand(x, tb->cond_k, i, a, &o)) continue;
            ra_use u;
            memset(&u, 0, sizeof u);
            u.o = o;
            rv_vec_push(f->uses, u);
            f->insts.data[id].nu++;
            if (tb->term == RK_BR) break; /* the condition only */
        }
        in = &f->insts.data[id];
        if (tb->term == RK_BR && in->nu != 1)
            imp_error(x, "R42", x->rp, p->pos, "a branch without a register condition");
    }
    in->s0 = f->u32.len;
    for (uint32_t i = 0; i < tb->nt; i++) rv_vec_push(f->u32, x->tb.tt.data[tb->t0 + i]);
    f->insts.data[id].ns = tb->nt;
}
