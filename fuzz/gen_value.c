/* gen_value.c - values and scopes of the function builder (gen_value.h):
 * saving and restoring a scope; the value lists' slab (the caller's buffer
 * while they fit, then the heap), its growth and release. Draws nothing:
 * where the lists live never changes what is generated. */
#include "fuzz/gen_value.h"

#include <stdlib.h>
#include <string.h>

void gen_scope_save(const gen *g, scope *sc)
{
    for (int t = 0; t < NTYPES; t++) sc->len[t] = g->vals.n[t];
}

void gen_scope_restore(gen *g, const scope *sc)
{
    g->vals.nonempty = 0;
    for (int t = 0; t < NTYPES; t++) {
        g->vals.n[t] = sc->len[t];
        g->vals.nonempty |= (sc->len[t] != 0) << t;
    }
}

void gen_avail_init(gen *g, uint32_t *buf, uint32_t cap)
{
    g->vals.mem = NULL;
    g->vals.owned = false;
    if (!buf || (uint64_t)NTYPES * cap > GEN_VALS_STACK) {
        gen_avail_grow(g, cap);
        return;
    }
    for (int t = 0; t < NTYPES; t++) g->vals.list[t] = buf + (size_t)t * cap;
    g->vals.mem = buf;
    g->vals.cap = cap;
}

void gen_avail_grow(gen *g, uint32_t cap)
{
    uint32_t *mem = rv_xmalloc(sizeof(uint32_t) * NTYPES * cap);
    for (int t = 0; t < NTYPES; t++) {
        if (g->vals.n[t]) memcpy(mem + (size_t)t * cap, g->vals.list[t], sizeof(uint32_t) * g->vals.n[t]);
        g->vals.list[t] = mem + (size_t)t * cap;
    }
    gen_avail_free(g);
    g->vals.mem = mem;
    g->vals.owned = true;
    g->vals.cap = cap;
}

void gen_avail_free(gen *g)
{
    if (g->vals.owned) rv_free(g->vals.mem);
    g->vals.mem = NULL;
    g->vals.owned = false;
}
