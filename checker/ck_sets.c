/* ck_sets.c - the lattice of one location: interned vreg sets and the meet.
 * Sets of two or more vregs are hash-consed (one id per distinct sorted
 * member list), so equality is id equality; singletons never reach the
 * table (they are encoded inline as the vreg id). Requires nothing; the
 * table is reset per check in O(sets created). */
#include "ck.h"

#include <stdlib.h>
#include <string.h>

void ck_sort_u32(uint32_t *a, uint32_t n)
{
    /* insertion sort: lists are almost always tiny */
    for (uint32_t i = 1; i < n; i++) {
        uint32_t x = a[i], j = i;
        while (j > 0 && a[j - 1] > x) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

void ck_sets_reset(ck_sets *s)
{
    s->overflow = false;
    s->limit = CK_MAX_SET_POOL;
    for (uint32_t i = 0; i < s->recs.len; i++) s->tab[s->recs.data[i].slot] = 0;
    s->recs.len = 0;
    s->pool.len = 0;
}

void ck_sets_free(ck_sets *s)
{
    rv_vec_free(s->pool);
    rv_vec_free(s->recs);
    rv_free(s->tab);
    s->tab = NULL;
    s->cap = 0;
}

/* Word-wise multiplicative hash of the sorted members (the table's only
 * hash; ids do not depend on it). */
static uint64_t set_hash(const uint32_t *m, uint32_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    for (uint32_t i = 0; i < n; i++) h = (h ^ m[i]) * 0xff51afd7ed558ccdULL;
    return h ^ (h >> 29);
}

static bool set_is(const ck_sets *s, uint32_t id, const uint32_t *m, uint32_t n)
{
    const ck_setrec *r = &s->recs.data[id];
    return r->len == n && memcmp(&s->pool.data[r->start], m, n * sizeof *m) == 0;
}

/* Doubles the table and reinserts every set. */
static void sets_grow(ck_sets *s)
{
    uint32_t ncap = s->cap ? s->cap * 2 : 64;
    rv_free(s->tab);
    s->tab = rv_xcalloc(ncap, sizeof *s->tab);
    s->cap = ncap;
    for (uint32_t id = 0; id < s->recs.len; id++) {
        ck_setrec *r = &s->recs.data[id];
        uint32_t h = (uint32_t)set_hash(&s->pool.data[r->start], r->len) & (ncap - 1);
        while (s->tab[h]) h = (h + 1) & (ncap - 1);
        s->tab[h] = id + 1;
        r->slot = h;
    }
}

ck_val ck_set_intern(ck_sets *s, const uint32_t *m, uint32_t n)
{
    if (n == 0) return CK_V_EMPTY;
    if (n == 1) return m[0];
    if ((s->recs.len + 1) * 2 > s->cap) sets_grow(s);
    uint32_t h = (uint32_t)set_hash(m, n) & (s->cap - 1);
    while (s->tab[h]) {
        if (set_is(s, s->tab[h] - 1, m, n)) return CK_V_SETBIT | (s->tab[h] - 1);
        h = (h + 1) & (s->cap - 1);
    }
    if (s->recs.len >= 0x7ffffff0u) rv_oom();
    if (n > s->limit - s->pool.len) { /* over the limit: the set is not made, its location holds nothing */
        s->overflow = true; /* (fewer facts: a verdict without errors stays sound; errors are not decided) */
        return CK_V_CONFLICT;
    }
    ck_setrec r = {s->pool.len, n, h};
    rv_vec_reserve(s->pool, n);
    memcpy(s->pool.data + s->pool.len, m, n * sizeof *m);
    s->pool.len += n;
    rv_vec_push(s->recs, r);
    s->tab[h] = s->recs.len;
    return CK_V_SETBIT | (s->recs.len - 1);
}


