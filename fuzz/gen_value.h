/* gen_value.h - values and scopes of the function builder (gen_build.h):
 * the values whose definition dominates the current point, per type
 * (class * 2 + ref), and the picks among them.
 *
 * Requires: g->f's vregs of every value made available; a scope saved
 * (gen_scope_save) at a point that dominates where it is restored.
 * Guarantees: a pick returns a value available now (RAVEL_NONE or NTYPES
 * when there is none of the kind asked for), so every use the builder
 * makes is dominated by its def (SSA). The picks are inline: they run for
 * every operand. */
#ifndef RAVEL_GEN_VALUE_H
#define RAVEL_GEN_VALUE_H

#include "fuzz/gen_build.h"

/* A scope: how many values of each type were available at a point. The
 * lists only grow while code is emitted in the scope of what came before,
 * so restoring the lengths restores the scope. */
typedef struct scope { uint32_t len[NTYPES]; } scope;

void gen_scope_save(const gen *g, scope *sc);
void gen_scope_restore(gen *g, const scope *sc);
/* The value lists, empty, with room for cap values of each type: in buf
 * (GEN_VALS_STACK values, the caller's) when they fit, else (or buf NULL)
 * on the heap. */
void gen_avail_init(gen *g, uint32_t *buf, uint32_t cap);
/* Room for cap values of each type (on the heap; the values are kept). */
void gen_avail_grow(gen *g, uint32_t cap);
/* Frees the lists' slab if it is on the heap. */
void gen_avail_free(gen *g);

static inline uint32_t vtype(const gen *g, uint32_t v)
{
    const rv_vreg *r = &g->f->vregs.data[v];
    return r->cls * 2u + (r->ref ? 1u : 0u);
}
static inline void make_avail_t(gen *g, uint32_t v, uint32_t t)
{
    if (g->vals.n[t] == g->vals.cap) gen_avail_grow(g, 2 * g->vals.cap);
    g->vals.list[t][g->vals.n[t]++] = v;
    g->vals.nonempty |= 1u << t;
}
static inline void make_avail(gen *g, uint32_t v) { make_avail_t(g, v, vtype(g, v)); }

/* n - 1 - near[min(n, 4)][k]: one of the newest values (k random). */
static const uint8_t near_tab[5][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 1, 0, 1}, {0, 1, 2, 0}, {0, 1, 2, 3}};

/* A value of type t: with probability `pressure` anywhere in scope (long
 * live ranges, many values live at once; with a window, anywhere among the
 * newest window values of the type), else one of the newest four.
 * Two bytes decide: the first far or near, the second which value (two
 * more when far and n > 256). */
static inline uint32_t pick_of_type_u(gen *g, uint32_t t, uint32_t u)
{
    uint32_t n = g->vals.n[t];
    const uint32_t *av = g->vals.list[t];
    if (n > g->window) { /* far picks among the newest window values only */
        av += n - g->window;
        n = g->window;
    }
    bool far = (u >> 8) < g->far256; /* a coin toss at pressure 50: selected, not branched on */
    if (n > 256 && far) return av[below(g, n)]; /* n first: rarely true, well predicted */
    uint32_t near = n - 1 - near_tab[n < 4 ? n : 4][u & 3], anywhere = ((u & 255) * n) >> 8;
    return av[near ^ ((near ^ anywhere) & (0u - far))]; /* far ? anywhere : near, by mask */
}
static inline uint32_t pick_of_type(gen *g, uint32_t t) { return pick_of_type_u(g, t, rv_gen_u16(g->s)); }

/* For a set of candidate types (bit t: type t), type_weight[mask] is their
 * total weight (3 per non-reference type, even bits; 1 per reference type,
 * odd bits) and type_at[mask][x], x < type_weight[mask], the type of weight
 * unit x (the types in increasing order, each repeated by its weight): a
 * weighted pick without a data-dependent loop. */
static const uint8_t type_weight[1u << NTYPES] = {
    0, 3, 1, 4, 3, 6, 4, 7, 1, 4, 2, 5, 4, 7, 5, 8,
    3, 6, 4, 7, 6, 9, 7, 10, 4, 7, 5, 8, 7, 10, 8, 11,
    1, 4, 2, 5, 4, 7, 5, 8, 2, 5, 3, 6, 5, 8, 6, 9,
    4, 7, 5, 8, 7, 10, 8, 11, 5, 8, 6, 9, 8, 11, 9, 12,
};
static const uint8_t type_at[1u << NTYPES][12] = {
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0},
    {2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 2, 2, 2, 0, 0, 0, 0, 0, 0},
    {1, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 2, 2, 2, 0, 0, 0, 0, 0},
    {3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0},
    {1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0},
    {2, 2, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 2, 2, 2, 3, 0, 0, 0, 0, 0},
    {1, 2, 2, 2, 3, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 2, 2, 2, 3, 0, 0, 0, 0},
    {4, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 4, 4, 4, 0, 0, 0, 0, 0, 0},
    {1, 4, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 4, 4, 4, 0, 0, 0, 0, 0},
    {2, 2, 2, 4, 4, 4, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 2, 2, 2, 4, 4, 4, 0, 0, 0},
    {1, 2, 2, 2, 4, 4, 4, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 2, 2, 2, 4, 4, 4, 0, 0},
    {3, 4, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 3, 4, 4, 4, 0, 0, 0, 0, 0},
    {1, 3, 4, 4, 4, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 3, 4, 4, 4, 0, 0, 0, 0},
    {2, 2, 2, 3, 4, 4, 4, 0, 0, 0, 0, 0},
    {0, 0, 0, 2, 2, 2, 3, 4, 4, 4, 0, 0},
    {1, 2, 2, 2, 3, 4, 4, 4, 0, 0, 0, 0},
    {0, 0, 0, 1, 2, 2, 2, 3, 4, 4, 4, 0},
    {5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0},
    {1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0, 0},
    {2, 2, 2, 5, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 2, 2, 2, 5, 0, 0, 0, 0, 0},
    {1, 2, 2, 2, 5, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 2, 2, 2, 5, 0, 0, 0, 0},
    {3, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 3, 5, 0, 0, 0, 0, 0, 0, 0},
    {1, 3, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 3, 5, 0, 0, 0, 0, 0, 0},
    {2, 2, 2, 3, 5, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 2, 2, 2, 3, 5, 0, 0, 0, 0},
    {1, 2, 2, 2, 3, 5, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 2, 2, 2, 3, 5, 0, 0, 0},
    {4, 4, 4, 5, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 4, 4, 4, 5, 0, 0, 0, 0, 0},
    {1, 4, 4, 4, 5, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 4, 4, 4, 5, 0, 0, 0, 0},
    {2, 2, 2, 4, 4, 4, 5, 0, 0, 0, 0, 0},
    {0, 0, 0, 2, 2, 2, 4, 4, 4, 5, 0, 0},
    {1, 2, 2, 2, 4, 4, 4, 5, 0, 0, 0, 0},
    {0, 0, 0, 1, 2, 2, 2, 4, 4, 4, 5, 0},
    {3, 4, 4, 4, 5, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 3, 4, 4, 4, 5, 0, 0, 0, 0},
    {1, 3, 4, 4, 4, 5, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 1, 3, 4, 4, 4, 5, 0, 0, 0},
    {2, 2, 2, 3, 4, 4, 4, 5, 0, 0, 0, 0},
    {0, 0, 0, 2, 2, 2, 3, 4, 4, 4, 5, 0},
    {1, 2, 2, 2, 3, 4, 4, 4, 5, 0, 0, 0},
    {0, 0, 0, 1, 2, 2, 2, 3, 4, 4, 4, 5},
};


/* A type of class cls (-1: any) and ref-ness ref (-1: either) that has a
 * value in scope, or NTYPES when there is none. Non-reference types weigh
 * three times as much as reference types; a single candidate type costs no
 * draw. */
static inline uint32_t type_mask(const gen *g, int cls, int ref)
{
    uint32_t mask = g->vals.nonempty;
    if (cls >= 0) mask &= 3u << (2 * cls);
    if (ref >= 0) mask &= (ref ? 0x2au : 0x15u);
    return mask;
}
static inline uint32_t pick_type(gen *g, int cls, int ref)
{
    uint32_t mask = type_mask(g, cls, ref);
    if (!mask) return NTYPES;
    uint32_t k = mask & (mask - 1) ? below(g, type_weight[mask]) : 0;
    return type_at[mask][k];
}

/* A value of one of the types in mask (not empty) from three random bytes
 * r (the type, far or near, which value); *t gets its type. */
static inline uint32_t pick_in(gen *g, uint32_t mask, uint32_t r, uint32_t *t)
{
    *t = type_at[mask][((r >> 16) * type_weight[mask]) >> 8];
    return pick_of_type_u(g, *t, r & 0xffffu);
}

/* A value of class cls and ref-ness ref (as pick_type), or RAVEL_NONE. */
static inline uint32_t pick_val(gen *g, int cls, int ref)
{
    uint32_t t = pick_type(g, cls, ref);
    return t == NTYPES ? RAVEL_NONE : pick_of_type(g, t);
}

#endif
