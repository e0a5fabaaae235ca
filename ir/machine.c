/* machine.c - machine descriptions: register classes (allocatable registers
 * in preference order), reserved registers, register containment (`alias`
 * lines, docs/format.md section 14.1), the default clobber set of `call`,
 * and the GC model.
 *
 * Containment is kept per register (rv_reg_alias): the registers it
 * contains and the registers it overlaps, both sorted, so that "what does a
 * write to R disturb" is one precomputed list. Guarantees: the relation is
 * acyclic and never relates a register to itself (ravel_machine_alias
 * refuses both; the reader checks the whole block with
 * rv_alias_first_cycle before recording it). */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

ravel_machine *ravel_machine_new(void)
{
    return rv_xcalloc(1, sizeof(ravel_machine));
}

void ravel_machine_free(ravel_machine *m)
{
    if (!m) return;
    for (uint32_t i = 0; i < m->classes.len; i++) rv_vec_free(m->classes.data[i].alloc);
    rv_vec_free(m->classes);
    rv_vec_free(m->regs);
    rv_vec_free(m->clobbers);
    rv_vec_free(m->name_reg);
    rv_vec_free(m->name_class);
    for (uint32_t i = 0; i < m->alias.len; i++) {
        rv_vec_free(m->alias.data[i].in);
        rv_vec_free(m->alias.data[i].over);
    }
    rv_vec_free(m->alias);
    rv_vec_free(m->alias_order);
    rv_symtab_free(&m->names);
    rv_arena_free(&m->arena);
    rv_free(m);
}

/* A failing call: its message (ravel_machine_error), then its status. */
static int mfail(ravel_machine *m, int code, const char *msg)
{
    if (m) m->err = msg;
    return code;
}

const char *ravel_machine_error(const ravel_machine *m) { return m ? m->err : NULL; }

static uint32_t name_sym(ravel_machine *m, const char *name)
{
    uint32_t id = rv_sym_intern(&m->names, name, strlen(name));
    while (m->name_reg.len <= id) {
        rv_vec_push(m->name_reg, -1);
        rv_vec_push(m->name_class, -1);
    }
    return id;
}

int ravel_machine_add_class(ravel_machine *m, const char *name)
{
    if (!m) return RAVEL_EINVAL;
    if (!name || !*name) return mfail(m, RAVEL_EINVAL, "ravel_machine_add_class: no name");
    if (m->classes.len >= RV_MAX_CLASSES) return mfail(m, RAVEL_ELIMIT, "ravel_machine_add_class: too many classes (64)");
    uint32_t s = name_sym(m, name);
    if (m->name_class.data[s] >= 0) return mfail(m, RAVEL_EINVAL, "ravel_machine_add_class: a class of that name exists");
    rv_class c = {rv_sym_str(&m->names, s), {0}};
    m->name_class.data[s] = (int32_t)m->classes.len;
    rv_vec_push(m->classes, c);
    return (int)m->classes.len - 1;
}

int ravel_machine_add_reg(ravel_machine *m, const char *name, int cls, int reserved)
{
    if (!m) return RAVEL_EINVAL;
    if (!name || !*name) return mfail(m, RAVEL_EINVAL, "ravel_machine_add_reg: no name");
    if (cls < 0 || (uint32_t)cls >= m->classes.len) return mfail(m, RAVEL_EINVAL, "ravel_machine_add_reg: bad class id");
    if (m->regs.len >= RV_MAX_REGS) return mfail(m, RAVEL_ELIMIT, "ravel_machine_add_reg: too many registers (1024)");
    uint32_t s = name_sym(m, name);
    if (m->name_reg.data[s] >= 0) return mfail(m, RAVEL_EINVAL, "ravel_machine_add_reg: a register of that name exists");
    rv_reg r = {rv_sym_str(&m->names, s), (uint8_t)cls, reserved != 0};
    uint32_t id = m->regs.len;
    m->name_reg.data[s] = (int32_t)id;
    rv_vec_push(m->regs, r);
    if (!reserved) rv_vec_push(m->classes.data[cls].alloc, id);
    return (int)id;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int ravel_machine_set_clobbers(ravel_machine *m, const uint32_t *regs, size_t n)
{
    if (!m) return RAVEL_EINVAL;
    if (n && !regs) return mfail(m, RAVEL_EINVAL, "ravel_machine_set_clobbers: NULL list");
    for (size_t i = 0; i < n; i++)
        if (regs[i] >= m->regs.len) return mfail(m, RAVEL_EINVAL, "ravel_machine_set_clobbers: bad register id");
    m->clobbers.len = 0;
    for (size_t i = 0; i < n; i++) rv_vec_push(m->clobbers, regs[i]);
    if (m->clobbers.len) qsort(m->clobbers.data, m->clobbers.len, sizeof(uint32_t), cmp_u32);
    uint32_t w = 0;
    for (uint32_t i = 0; i < m->clobbers.len; i++)
        if (!w || m->clobbers.data[w - 1] != m->clobbers.data[i]) m->clobbers.data[w++] = m->clobbers.data[i];
    m->clobbers.len = w;
    return RAVEL_OK;
}

void ravel_machine_set_gc_moving(ravel_machine *m, int moving)
{
    if (m) m->gc_nonmoving = !moving;
}

int ravel_machine_find_reg(const ravel_machine *m, const char *name)
{
    if (!m || !name) return -1;
    uint32_t s = rv_sym_find(&m->names, name, strlen(name));
    return s == RAVEL_NONE ? -1 : m->name_reg.data[s];
}

int ravel_machine_find_class(const ravel_machine *m, const char *name)
{
    if (!m || !name) return -1;
    uint32_t s = rv_sym_find(&m->names, name, strlen(name));
    return s == RAVEL_NONE ? -1 : m->name_class.data[s];
}

uint32_t ravel_machine_nregs(const ravel_machine *m) { return m ? m->regs.len : 0; }
uint32_t ravel_machine_nclasses(const ravel_machine *m) { return m ? m->classes.len : 0; }
const char *ravel_machine_reg_name(const ravel_machine *m, uint32_t reg)
{
    return m && reg < m->regs.len ? m->regs.data[reg].name : NULL;
}

/* ---- containment ---------------------------------------------------------- */

/* Lower bound of x in the sorted a[0..n): true if found at *at. */
static bool sorted_find(const uint32_t *a, uint32_t n, uint32_t x, uint32_t *at)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (a[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    *at = lo;
    return lo < n && a[lo] == x;
}

static void idvec_insert(rv_idvec *v, uint32_t x)
{
    uint32_t at;
    if (sorted_find(v->data, v->len, x, &at)) return;
    rv_vec_reserve(*v, 1);
    memmove(v->data + at + 1, v->data + at, (size_t)(v->len - at) * sizeof *v->data);
    v->data[at] = x;
    v->len++;
}

bool rv_mach_contains(const ravel_machine *m, uint32_t r, uint32_t s)
{
    uint32_t at;
    return r < m->alias.len && sorted_find(m->alias.data[r].in.data, m->alias.data[r].in.len, s, &at);
}

bool rv_mach_overlap(const ravel_machine *m, uint32_t r, uint32_t s)
{
    uint32_t at;
    return r < m->alias.len && sorted_find(m->alias.data[r].over.data, m->alias.data[r].over.len, s, &at);
}

bool rv_mach_add_containment(ravel_machine *m, uint32_t r, uint32_t s)
{
    if (rv_mach_contains(m, r, s)) return false;
    uint32_t top = r > s ? r : s;
    if (m->alias.len <= top) {
        rv_vec_reserve(m->alias, top + 1 - m->alias.len);
        memset(&m->alias.data[m->alias.len], 0, sizeof *m->alias.data * (top + 1 - m->alias.len));
        m->alias.len = top + 1;
    }
    rv_reg_alias *a = &m->alias.data[r];
    if (!a->in.len) rv_vec_push(m->alias_order, r);
    idvec_insert(&a->in, s);
    idvec_insert(&a->over, s);
    idvec_insert(&m->alias.data[s].over, r);
    m->ncontain++;
    return true;
}

/* Does `from` contain `to`, directly or through other registers? A
 * depth-first walk over the declared containments. */
static bool reaches(const ravel_machine *m, uint32_t from, uint32_t to)
{
    uint32_t n = m->alias.len, sp = 0;
    if (from >= n) return false;
    uint8_t *seen = rv_xcalloc(n, 1);
    uint32_t *stk = rv_xmalloc(sizeof *stk * n);
    bool found = false;
    stk[sp++] = from;
    seen[from] = 1;
    while (sp && !found) {
        const rv_idvec *in = &m->alias.data[stk[--sp]].in;
        for (uint32_t k = 0; k < in->len && !found; k++) {
            uint32_t x = in->data[k];
            found = x == to;
            if (!seen[x]) seen[x] = 1, stk[sp++] = x;
        }
    }
    rv_free(seen);
    rv_free(stk);
    return found;
}

int ravel_machine_alias(ravel_machine *m, uint32_t r, uint32_t s)
{
    if (!m) return RAVEL_EINVAL;
    if (r >= m->regs.len || s >= m->regs.len) return mfail(m, RAVEL_EINVAL, "ravel_machine_alias: bad register id");
    if (r == s) return mfail(m, RAVEL_EINVAL, "ravel_machine_alias: a register does not contain itself");
    if (reaches(m, s, r))
        return mfail(m, RAVEL_EINVAL, "ravel_machine_alias: containment cycle (the second register contains the first)");
    rv_mach_add_containment(m, r, s);
    return RAVEL_OK;
}

/* The first k pairs as adjacency lists: the registers r contains are
 * adj[start[r] .. start[r + 1]). */
static void build_csr(uint32_t nregs, const uint32_t *pairs, uint32_t k, uint32_t *start, uint32_t *adj)
{
    memset(start, 0, sizeof *start * ((size_t)nregs + 1));
    for (uint32_t i = 0; i < k; i++) start[pairs[2 * i] + 1]++;
    for (uint32_t r = 0; r < nregs; r++) start[r + 1] += start[r];
    for (uint32_t i = 0; i < k; i++) adj[start[pairs[2 * i]]++] = pairs[2 * i + 1];
    for (uint32_t r = nregs; r > 0; r--) start[r] = start[r - 1]; /* back to the first of each */
    start[0] = 0;
}

/* Scratch of the cycle search: 3 * nregs + 1 + k words. */
typedef struct cyc_scratch {
    uint32_t *start, *adj, *node, *queue; /* node: in-degree, then parent */
} cyc_scratch;

/* Kahn's algorithm over the first k pairs: true if they close no cycle. */
static bool prefix_acyclic(uint32_t nregs, const uint32_t *pairs, uint32_t k, const cyc_scratch *w)
{
    uint32_t *indeg = w->node, *start = w->start, *adj = w->adj, *queue = w->queue;
    build_csr(nregs, pairs, k, start, adj);
    memset(indeg, 0, sizeof *indeg * nregs);
    for (uint32_t i = 0; i < k; i++) indeg[pairs[2 * i + 1]]++;
    uint32_t head = 0, tail = 0;
    for (uint32_t r = 0; r < nregs; r++)
        if (!indeg[r]) queue[tail++] = r;
    while (head < tail) {
        uint32_t r = queue[head++];
        for (uint32_t e = start[r]; e < start[r + 1]; e++)
            if (--indeg[adj[e]] == 0) queue[tail++] = adj[e];
    }
    return tail == nregs;
}

/* A chain by which `from` contains `to` over the first k pairs (one
 * exists): breadth first with parent links, written from `from`. */
static uint32_t chain(uint32_t nregs, const uint32_t *pairs, uint32_t k, uint32_t from, uint32_t to, const cyc_scratch *w,
                      uint32_t *path, uint32_t maxpath)
{
    uint32_t *parent = w->node, *queue = w->queue, head = 0, tail = 0;
    build_csr(nregs, pairs, k, w->start, w->adj);
    for (uint32_t r = 0; r < nregs; r++) parent[r] = RAVEL_NONE;
    parent[from] = from;
    queue[tail++] = from;
    while (head < tail && parent[to] == RAVEL_NONE) {
        uint32_t r = queue[head++];
        for (uint32_t e = w->start[r]; e < w->start[r + 1]; e++)
            if (parent[w->adj[e]] == RAVEL_NONE) parent[w->adj[e]] = r, queue[tail++] = w->adj[e];
    }
    uint32_t len = 1;
    for (uint32_t x = to; x != from && parent[x] != RAVEL_NONE; x = parent[x]) len++;
    uint32_t i = len;
    for (uint32_t x = to;; x = parent[x]) {
        if (--i < maxpath) path[i] = x;
        if (x == from || parent[x] == RAVEL_NONE) break;
    }
    return len;
}

uint32_t rv_alias_first_cycle(uint32_t nregs, const uint32_t *pairs, uint32_t n, uint32_t *path, uint32_t maxpath,
                              uint32_t *plen)
{
    *plen = 0;
    if (!n) return RAVEL_NONE;
    uint32_t *mem = rv_xmalloc(sizeof *mem * (3 * (size_t)nregs + 1 + n));
    cyc_scratch sw = {mem, mem + nregs + 1, mem + nregs + 1 + n, mem + 2 * (size_t)nregs + 1 + n}, *w = &sw;
    uint32_t found = RAVEL_NONE;
    if (!prefix_acyclic(nregs, pairs, n, w)) {
        uint32_t lo = 1, hi = n; /* the shortest prefix with a cycle */
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (prefix_acyclic(nregs, pairs, mid, w)) lo = mid + 1;
            else hi = mid;
        }
        found = lo - 1;
        *plen = chain(nregs, pairs, found, pairs[2 * found + 1], pairs[2 * found], w, path, maxpath);
    }
    rv_free(mem);
    return found;
}

bool rv_mach_same_containment(const ravel_machine *a, const ravel_machine *b)
{
    if (a->ncontain != b->ncontain) return false;
    for (uint32_t r = 0; r < a->alias.len; r++) {
        const rv_idvec *in = &a->alias.data[r].in;
        int rb = in->len ? ravel_machine_find_reg(b, a->regs.data[r].name) : 0;
        for (uint32_t k = 0; k < in->len; k++) {
            int sb = ravel_machine_find_reg(b, a->regs.data[in->data[k]].name);
            if (rb < 0 || sb < 0 || !rv_mach_contains(b, (uint32_t)rb, (uint32_t)sb)) return false;
        }
    }
    return true;
}
