/* pmove.c - the parallel-move resolver.
 *
 * Requires / guarantees: see rv_pmove_resolve in alloc.h.
 *
 * Algorithm. Moves with dst == src are dropped; the rest are sorted by dst
 * (which also detects a dst given twice). readers[i] counts the pending
 * moves whose src is move i's dst. A move nobody reads from is "ready":
 * emitting it cannot destroy a value still needed, and it may make the
 * move that wrote its src ready. When no move is ready, the pending moves
 * form disjoint simple cycles (every location has at most one writer and
 * every pending dst still has a reader, so every dst has exactly one). A
 * cycle is broken by saving one member L to a temporary (a scratch
 * register of the value's class, else a slot from new_slot), redirecting
 * L's reader to the temporary, which makes L's writer ready.
 * A slot -> slot copy goes through a scratch register of the class, or,
 * when none is free, through a borrowed register R (spilled to a new_slot
 * slot before and reloaded after). O(n log n) in the number of moves.
 *
 * Fast path (rv_pmove_simple): a small set without cycles and without
 * slot -> slot moves needs no temporary; its moves are emitted in an order
 * where each dst is written once nothing pending reads it. The common
 * 1..4-move shuffles of an allocator take it without sorting, and callers
 * may try it first to skip computing scratch registers. */
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

typedef struct pm_run {
    rv_pmove *pm;
    const ravel_machine *m;
    const uint64_t *scratch;
    uint32_t (*new_slot)(void *);
    void *slot_ctx;
    ravel_loc cycle_slot, borrow_slot; /* from new_slot, RAVEL_LOC_NONE until needed */
    ravel_loc busy_reg;                /* scratch register holding a cycle temp, or NONE */
} pm_run;

static void emit(pm_run *r, ravel_opcode kind, ravel_loc dst, ravel_loc src)
{
    rv_edit e = {(uint8_t)kind, dst, src};
    rv_vec_push(r->pm->out, e);
}

/* A scratch register of class cls other than the busy one, or NONE. */
static ravel_loc scratch_reg(pm_run *r, uint32_t cls)
{
    if (!r->scratch) return RAVEL_LOC_NONE;
    for (uint32_t i = 0; i < r->m->regs.len; i++)
        if (r->m->regs.data[i].cls == cls && i != r->busy_reg && rv_bs_test(r->scratch, i)) return i;
    return RAVEL_LOC_NONE;
}

/* A register of class cls to borrow (allocatable ones first), not the busy one. */
static ravel_loc borrow_reg(pm_run *r, uint32_t cls)
{
    const rv_class *c = cls < r->m->classes.len ? &r->m->classes.data[cls] : NULL;
    for (uint32_t k = 0; c && k < c->alloc.len; k++)
        if (c->alloc.data[k] != r->busy_reg) return c->alloc.data[k];
    for (uint32_t i = 0; i < r->m->regs.len; i++)
        if (r->m->regs.data[i].cls == cls && i != r->busy_reg) return i;
    for (uint32_t i = 0; i < r->m->regs.len; i++)
        if (i != r->busy_reg) return i;
    return RAVEL_LOC_NONE; /* unreachable for a machine with two or more registers */
}

static ravel_loc get_slot(pm_run *r, ravel_loc *cache)
{
    if (*cache == RAVEL_LOC_NONE) *cache = ravel_slot(r->new_slot(r->slot_ctx));
    return *cache;
}

/* dst := src for any pair of locations, never emitting slot -> slot. */
static void emit_copy(pm_run *r, ravel_loc dst, ravel_loc src, uint32_t cls)
{
    if (dst == src) return;
    ravel_opcode k = rv_edit_kind(dst, src);
    if (k != RAVEL_OP_OTHER) {
        emit(r, k, dst, src);
        return;
    }
    ravel_loc t = scratch_reg(r, cls);
    if (t != RAVEL_LOC_NONE) {
        emit(r, RAVEL_OP_RELOAD, t, src);
        emit(r, RAVEL_OP_SPILL, dst, t);
        return;
    }
    ravel_loc b = borrow_reg(r, cls), save = get_slot(r, &r->borrow_slot);
    emit(r, RAVEL_OP_SPILL, save, b);
    emit(r, RAVEL_OP_RELOAD, b, src);
    emit(r, RAVEL_OP_SPILL, dst, b);
    emit(r, RAVEL_OP_RELOAD, b, save);
}

static int cmp_dst(const void *a, const void *b)
{
    ravel_loc x = ((const rv_move *)a)->dst, y = ((const rv_move *)b)->dst;
    return (x > y) - (x < y);
}

/* Sorts by dst: insertion sort for the usual handful of moves, else qsort. */
static void sort_by_dst(rv_move *w, uint32_t n)
{
    if (n > 16) {
        qsort(w, n, sizeof *w, cmp_dst);
        return;
    }
    for (uint32_t k = 1; k < n; k++) {
        rv_move x = w[k];
        uint32_t j = k;
        for (; j > 0 && w[j - 1].dst > x.dst; j--) w[j] = w[j - 1];
        w[j] = x;
    }
}

bool rv_pmove_simple(rv_pmove *pm, const rv_move *moves, uint32_t n)
{
    pm->out.len = 0;
    if (n > 12) return false; /* cubic worst case: only for small sets */
    if (n == 1) { /* the usual case */
        ravel_opcode k = rv_edit_kind(moves[0].dst, moves[0].src);
        if (moves[0].dst == moves[0].src) return true;
        if (k == RAVEL_OP_OTHER) return false;
        rv_edit e = {(uint8_t)k, moves[0].dst, moves[0].src};
        rv_vec_push(pm->out, e);
        return true;
    }
    /* the pending moves (dst != src), compacted */
    ravel_loc dst[12], src[12];
    uint32_t np = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (moves[k].dst == moves[k].src) continue;
        if (ravel_loc_is_slot(moves[k].dst) && ravel_loc_is_slot(moves[k].src)) return false;
        dst[np] = moves[k].dst;
        src[np++] = moves[k].src;
    }
    for (uint32_t k = 0; k < n; k++) /* distinct dsts (dst == src moves included) */
        for (uint32_t j = k + 1; j < n; j++)
            if (moves[j].dst == moves[k].dst) return false;
    rv_vec_reserve(pm->out, np);
    while (np) {
        /* emit the first pending move whose dst no other pending move reads
         * (a move never reads its own dst) */
        uint32_t pick = 0;
        for (; pick < np; pick++) {
            uint32_t y = 0;
            while (y < np && src[y] != dst[pick]) y++;
            if (y == np) break;
        }
        if (pick == np) { /* a cycle */
            pm->out.len = 0;
            return false;
        }
        rv_edit e = {(uint8_t)rv_edit_kind(dst[pick], src[pick]), dst[pick], src[pick]};
        pm->out.data[pm->out.len++] = e;
        np--; /* any order of the rest is fine */
        dst[pick] = dst[np];
        src[pick] = src[np];
    }
    return true;
}

/* Index of the move writing loc, or RAVEL_NONE (binary search on dst). */
static uint32_t find_dst(const rv_move *w, uint32_t n, ravel_loc loc)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (w[mid].dst < loc) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && w[lo].dst == loc ? lo : RAVEL_NONE;
}

void rv_pmove_init(rv_pmove *pm) { memset(pm, 0, sizeof *pm); }

void rv_pmove_free(rv_pmove *pm)
{
    rv_vec_free(pm->out);
    rv_vec_free(pm->work);
    rv_vec_free(pm->tmp);
}

/* Emits ready moves (on the stack) until none is left, marking them done. */
static void drain(pm_run *r, rv_move *w, uint32_t n, uint32_t *readers, uint32_t *stack, uint32_t *sp)
{
    while (*sp) {
        uint32_t i = stack[--*sp];
        emit_copy(r, w[i].dst, w[i].src, w[i].cls);
        readers[i] = RAVEL_NONE; /* done */
        if (w[i].src == r->busy_reg) r->busy_reg = RAVEL_LOC_NONE; /* the cycle temp was consumed */
        uint32_t j = find_dst(w, n, w[i].src);
        if (j != RAVEL_NONE && --readers[j] == 0) stack[(*sp)++] = j;
    }
}

/* True if the cycle through pending move i contains a slot -> slot move. */
static bool cycle_has_slot_copy(const rv_move *w, uint32_t n, uint32_t i)
{
    uint32_t k = i;
    for (uint32_t steps = 0; steps <= n; steps++) {
        if (ravel_loc_is_slot(w[k].dst) && ravel_loc_is_slot(w[k].src)) return true;
        uint32_t next = find_dst(w, n, w[k].src);
        if (next == RAVEL_NONE || next == i) return false;
        k = next;
    }
    return false;
}

/* True if a scratch register of class cls other than t exists. */
static bool second_scratch(pm_run *r, uint32_t cls, ravel_loc t)
{
    ravel_loc saved = r->busy_reg;
    r->busy_reg = t;
    ravel_loc u = scratch_reg(r, cls);
    r->busy_reg = saved;
    return u != RAVEL_LOC_NONE;
}

/* Breaks the cycle through pending move i (readers[i] == 1). */
static void break_cycle(pm_run *r, rv_move *w, uint32_t n, uint32_t *readers, uint32_t i, uint32_t *stack, uint32_t *sp)
{
    ravel_loc L = w[i].dst;
    uint32_t rd = RAVEL_NONE; /* the pending reader of L */
    for (uint32_t j = 0; j < n && rd == RAVEL_NONE; j++)
        if (readers[j] != RAVEL_NONE && w[j].src == L) rd = j;
    uint32_t cls = w[rd].cls;
    ravel_loc t = scratch_reg(r, cls);
    if (t != RAVEL_LOC_NONE && cycle_has_slot_copy(w, n, i) && !second_scratch(r, cls, t))
        t = RAVEL_LOC_NONE; /* keep the only scratch register for the slot -> slot copies */
    if (t == RAVEL_LOC_NONE) t = get_slot(r, &r->cycle_slot);
    emit_copy(r, t, L, cls);
    if (ravel_loc_is_reg(t)) r->busy_reg = t;
    w[rd].src = t;
    readers[i] = 0;
    stack[(*sp)++] = i;
}

int rv_pmove_resolve(rv_pmove *pm, const ravel_machine *m, const rv_move *moves, uint32_t n,
                     const uint64_t *scratch_regs, uint32_t (*new_slot)(void *slot_ctx), void *slot_ctx)
{
    pm->out.len = 0;
    pm->work.len = 0;
    if (rv_pmove_simple(pm, moves, n)) return RAVEL_OK;
    for (uint32_t k = 0; k < n; k++)
        if (moves[k].dst != moves[k].src) rv_vec_push(pm->work, moves[k]);
    rv_move *w = pm->work.data;
    uint32_t nw = pm->work.len;
    sort_by_dst(w, nw);
    for (uint32_t k = 1; k < nw; k++)
        if (w[k].dst == w[k - 1].dst) return RAVEL_EINVAL;
    for (uint32_t k = 0; k < n; k++) /* a dst == src move whose dst is also written elsewhere */
        if (moves[k].dst == moves[k].src && find_dst(w, nw, moves[k].dst) != RAVEL_NONE) return RAVEL_EINVAL;
    pm->tmp.len = 0;
    rv_vec_reserve(pm->tmp, 2 * nw + 1);
    uint32_t *readers = pm->tmp.data, *stack = readers + nw, sp = 0;
    memset(readers, 0, sizeof(uint32_t) * nw);
    for (uint32_t k = 0; k < nw; k++) {
        uint32_t j = find_dst(w, nw, w[k].src);
        if (j != RAVEL_NONE) readers[j]++;
    }
    pm_run r = {pm, m, scratch_regs, new_slot, slot_ctx, RAVEL_LOC_NONE, RAVEL_LOC_NONE, RAVEL_LOC_NONE};
    for (uint32_t k = 0; k < nw; k++)
        if (readers[k] == 0) stack[sp++] = k;
    /* done moves get readers = RAVEL_NONE; the first pending index only grows */
    uint32_t cursor = 0;
    for (;;) {
        drain(&r, w, nw, readers, stack, &sp);
        while (cursor < nw && readers[cursor] == RAVEL_NONE) cursor++;
        if (cursor == nw) break;
        break_cycle(&r, w, nw, readers, cursor, stack, &sp);
    }
    return RAVEL_OK;
}
