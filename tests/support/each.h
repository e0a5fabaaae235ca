/* each.h - the loops the random tests share (header only; see
 * tests/support/README.md):
 *   ts_allocs   every built-in allocator's allocation of one function
 *   ts_injs     every kind of a list injected into a clone of an allocation
 *   ts_reparse  a function printed as text and read back
 *
 * Usage:
 *   for (ts_allocs a = ts_allocs_of(f, seed); ts_allocs_next(&a);)
 *       for (ts_injs j = ts_injs_of(a.g, kinds, nkinds, seed, false); ts_injs_next(&j);)
 *           ... j.h (owned by the iterator), j.kind ...
 * An iterator frees what it yielded when it is stepped; a loop left by
 * break or return calls ts_allocs_end / ts_injs_end first.
 */
#ifndef RAVEL_TESTS_EACH_H
#define RAVEL_TESTS_EACH_H

#include "inject/inject.h"
#include "ir/ir.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every built-in allocator, in table order, that allocates f (with
 * seed): name is the allocator's, g its allocation. */
typedef struct ts_allocs {
    const ravel_func *f;
    uint64_t seed;
    size_t next, index; /* (index: the allocator's place in the table) */
    const char *name;
    ravel_func *g;
} ts_allocs;

static inline ts_allocs ts_allocs_of(const ravel_func *f, uint64_t seed)
{
    ts_allocs it = {f, seed, 0, 0, NULL, NULL};
    return it;
}
static inline void ts_allocs_end(ts_allocs *it)
{
    ravel_func_free(it->g);
    it->g = NULL;
}
static inline bool ts_allocs_next(ts_allocs *it)
{
    ts_allocs_end(it);
    while (it->f && (it->name = ravel_allocator_name(it->next)) != NULL) {
        it->index = it->next++;
        if (ravel_allocate(it->name, it->f, it->seed, &it->g, NULL) == RAVEL_OK && it->g) return true;
        ravel_func_free(it->g);
        it->g = NULL;
    }
    return false;
}

/* Each kind of kinds[0..n) that changes a clone of g (rv_inject with
 * seed): h is the corrupted clone, kind its kind, res the injection's
 * result. With plain, one more item comes last: an unchanged clone,
 * injected false. */
typedef struct ts_injs {
    const ravel_func *g;
    const rv_inject_kind *kinds;
    size_t n, next;
    bool plain, injected;
    uint64_t seed;
    rv_inject_kind kind;
    ravel_func *h;
    rv_inject_result res;
} ts_injs;

static inline ts_injs ts_injs_of(const ravel_func *g, const rv_inject_kind *kinds, size_t n, uint64_t seed, bool plain)
{
    ts_injs it;
    memset(&it, 0, sizeof it);
    it.g = g;
    it.kinds = kinds;
    it.n = n;
    it.plain = plain;
    it.seed = seed;
    return it;
}
static inline void ts_injs_end(ts_injs *it)
{
    ravel_func_free(it->h);
    it->h = NULL;
}
static inline bool ts_injs_next(ts_injs *it)
{
    ts_injs_end(it);
    for (; it->next < it->n; it->next++) {
        it->h = rv_func_clone(it->g);
        it->kind = it->kinds[it->next];
        if (rv_inject(it->h, it->kind, it->seed, &it->res) == RV_INJ_CHANGED) {
            it->next++;
            it->injected = true;
            return true;
        }
        ts_injs_end(it);
    }
    if (!it->plain || it->next > it->n) return false;
    it->next++;
    it->injected = false;
    it->h = rv_func_clone(it->g);
    return true;
}

/* f printed (its machine, then itself) as the text *text (malloc'd, *len
 * bytes; free it) and read back as a module named name (NULL if it does
 * not read: the caller's test fails). */
static inline ravel_module *ts_reparse(const ravel_func *f, const char *name, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    FILE *fp = open_memstream(text, len);
    if (!fp) return NULL;
    ravel_print_machine(fp, f->mach);
    ravel_print_func(fp, f);
    fclose(fp);
    return ravel_module_parse(*text, *len, name, NULL);
}

#endif
