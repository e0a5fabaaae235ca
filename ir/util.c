/* util.c - memory, growable arrays, hash map, symbols, diagnostics.
 * Guarantees: no global mutable state (but the two thread-locals below:
 * the recovery region and the tests' failure countdown); every structure is freed by its *_free function; out of
 * memory ends in rv_oom(): RAVEL_ENOMEM from the entry point inside a
 * recovery region, abort() outside one. */
#include "ir.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/* ---- recovery from out of memory ----
 * An entry point of the library (ravel_check, ravel_validate,
 * ravel_allocate, ravel_module_parse) opens a recovery region around its
 * work: rv_recover_enter, then setjmp on the region's jb. Inside it every
 * block rv_x* allocates and rv_free has not freed is noted in the region's
 * set, so that after a failed allocation (rv_oom: longjmp to jb) the entry
 * point can release what its context keeps (by rv_free) and then
 * rv_recover_sweep the rest (temporaries in lost stack frames): no leak,
 * and it returns RAVEL_ENOMEM. The two thread-locals: the current region
 * (a pointer to the entry point's own frame, set and cleared by it), and
 * the tests' failure countdown (rv_fail_alloc_after). Regions do not nest: an entry point called
 * inside another's region works in that region (its failure unwinds to
 * the outermost entry point). Outside a region, out of memory aborts. */
static _Thread_local rv_recover *rv_cur;
static _Thread_local uint64_t rv_fail_countdown;

_Noreturn void rv_oom(void)
{
    if (rv_cur) longjmp(rv_cur->jb, 1);
    fputs("ravel: out of memory\n", stderr);
    abort();
}

void rv_fail_alloc_after(uint64_t n) { rv_fail_countdown = n; }

/* The set's functions are not instrumented for coverage in fuzzing
 * builds: it is hashed by address, so its probe loops run as often as
 * where malloc put the blocks decides, which depends on the executions
 * before in the same process; a coverage-guided engine would count the
 * differences as unstable edges (README "Fuzzing": AFL++ stability). Not
 * inlined, so that the attribute holds. */
#if defined(__clang__) && __clang_major__ >= 13
#define RV_NO_COVERAGE __attribute__((noinline, no_sanitize("coverage")))
#elif defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#define RV_NO_COVERAGE __attribute__((noinline, no_sanitize_coverage))
#else
#define RV_NO_COVERAGE
#endif

/* True if this allocation (or the set's own growth) is to fail (tests:
 * rv_fail_alloc_after). */
static inline bool fail_now(void)
{
    return rv_fail_countdown && rv_cur && --rv_fail_countdown == 0;
}

/* The region's set: open addressing, linear probing, deletion by
 * backward shift (no tombstones); its own table is malloc'd (not noted). */
RV_NO_COVERAGE static size_t rec_slot(const rv_recover *r, uintptr_t p)
{
    return (size_t)(rv_hash64((uint64_t)p) & (r->cap - 1));
}

/* Room for one more block in the set, made before the allocation it is
 * for: a failure here unwinds with every block still where its owner
 * holds it (after a realloc had moved one, its owner would hold a freed
 * pointer). */
RV_NO_COVERAGE static void rec_room(rv_recover *r)
{
    if (2 * (r->n + 1) > r->cap) {
        size_t ncap = r->cap ? 2 * r->cap : 256;
        void **t = fail_now() ? NULL : calloc(ncap, sizeof *t);
        if (!t) longjmp(r->jb, 1);
        void **old = r->tab;
        size_t ocap = r->cap;
        r->tab = t;
        r->cap = ncap;
        for (size_t i = 0; i < ocap; i++)
            if (old[i]) {
                size_t h = rec_slot(r, (uintptr_t)old[i]);
                while (r->tab[h]) h = (h + 1) & (r->cap - 1);
                r->tab[h] = old[i];
            }
        free(old);
    }
}

/* Notes p (rec_room made the room). */
RV_NO_COVERAGE static void rec_add(rv_recover *r, void *p)
{
    size_t h = rec_slot(r, (uintptr_t)p);
    while (r->tab[h]) h = (h + 1) & (r->cap - 1);
    r->tab[h] = p;
    r->n++;
}

/* Removes p from the set; false if it was not there. */
RV_NO_COVERAGE static bool rec_del(rv_recover *r, uintptr_t p)
{
    if (!r->n) return false;
    size_t m = r->cap - 1, h = rec_slot(r, p);
    while ((uintptr_t)r->tab[h] != p) {
        if (!r->tab[h]) return false;
        h = (h + 1) & m;
    }
    r->tab[h] = NULL;
    r->n--;
    for (size_t j = (h + 1) & m; r->tab[j]; j = (j + 1) & m) { /* backward shift */
        size_t want = rec_slot(r, (uintptr_t)r->tab[j]);
        if (((j - want) & m) >= ((j - h) & m)) { /* (its probe passes h) */
            r->tab[h] = r->tab[j];
            r->tab[j] = NULL;
            h = j;
        }
    }
    return true;
}

bool rv_recover_enter(rv_recover *r)
{
    r->tab = NULL;
    r->cap = r->n = 0;
    if (rv_cur) return false;
    rv_cur = r;
    return true;
}

void rv_recover_leave(rv_recover *r)
{
    if (rv_cur == r) rv_cur = NULL;
    free(r->tab);
    r->tab = NULL;
    r->cap = r->n = 0;
}

void rv_recover_keep(void *p)
{
    if (rv_cur && p) rec_del(rv_cur, (uintptr_t)p);
}

void rv_recover_sweep(rv_recover *r)
{
    for (size_t i = 0; i < r->cap; i++) free(r->tab[i]);
    rv_recover_leave(r);
}

void *rv_xmalloc(size_t n)
{
    if (rv_cur) rec_room(rv_cur);
    void *p = fail_now() ? NULL : malloc(n ? n : 1);
    if (!p) rv_oom();
    if (rv_cur) rec_add(rv_cur, p);
    return p;
}

void *rv_xcalloc(size_t n, size_t size)
{
    if (rv_cur) rec_room(rv_cur);
    void *p = fail_now() ? NULL : calloc(n ? n : 1, size ? size : 1);
    if (!p) rv_oom();
    if (rv_cur) rec_add(rv_cur, p);
    return p;
}

void *rv_xrealloc(void *p, size_t n)
{
    if (rv_cur) rec_room(rv_cur);
    if (fail_now()) rv_oom(); /* (p stays as it was, as after a failed realloc) */
    uintptr_t key = (uintptr_t)p;
    void *q = realloc(p, n ? n : 1);
    if (!q) rv_oom();
    /* a block of the region moves; one from before stays its owner's */
    if (rv_cur && (!key || rec_del(rv_cur, key))) rec_add(rv_cur, q);
    return q;
}

char *rv_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(rv_xmalloc(n), s, n);
}

void rv_free(void *p)
{
    if (rv_cur && p) rec_del(rv_cur, (uintptr_t)p);
    free(p);
}

void rv_vec_grow_(void **data, uint32_t *cap, size_t elem, size_t need)
{
    if (need > UINT32_MAX) rv_oom();
    size_t c = *cap ? *cap : (elem < 8 ? 64 / elem : 8); /* at least 8 elements or 64 bytes */
    while (c < need) c *= 2;
    if (c > UINT32_MAX) c = UINT32_MAX;
    *data = rv_xrealloc(*data, c * elem);
    *cap = (uint32_t)c;
}

/* ---- arena ---- */
struct rv_arena_chunk {
    struct rv_arena_chunk *next;
    size_t size;
    _Alignas(8) unsigned char data[];
};

void *rv_arena_alloc(rv_arena *a, size_t n)
{
    n = (n + 7) & ~(size_t)7;
    if (!a->head || a->used + n > a->cap) {
        /* chunks grow from 256 bytes to 64 KiB, so that the many small
         * functions of one file (each with its own arena) stay small */
        size_t want = a->head ? a->cap * 2 : 256;
        if (want > 65536) want = 65536;
        size_t sz = n > want ? n : want;
        struct rv_arena_chunk *c = rv_xmalloc(sizeof *c + sz);
        c->next = a->head;
        c->size = sz;
        a->head = c;
        a->used = 0;
        a->cap = sz;
    }
    void *p = a->head->data + a->used;
    a->used += n;
    memset(p, 0, n);
    return p;
}

char *rv_arena_strndup(rv_arena *a, const char *s, size_t n)
{
    size_t m = (n + 8) & ~(size_t)7; /* n + 1 rounded up to 8 */
    if (!a->head || a->used + m > a->cap) return memcpy(rv_arena_alloc(a, n + 1), s, n); /* zeroed: p[n] = 0 */
    char *p = (char *)a->head->data + a->used; /* room in the current chunk: no need to zero it */
    a->used += m;
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void rv_arena_free(rv_arena *a)
{
    struct rv_arena_chunk *c = a->head;
    while (c) {
        struct rv_arena_chunk *n = c->next;
        rv_free(c);
        c = n;
    }
    a->head = NULL;
    a->used = a->cap = 0;
}

/* ---- hashing ---- */
uint64_t rv_hash64(uint64_t x) { return rv_mix64(x); }

/* Eight bytes per step (a fuzz input of a few KiB is hashed on every
 * execution): xor, multiply, fold the high half down so that every input
 * bit reaches every bit of the state; the tail's bytes and the length end it. */
uint64_t rv_hash_bytes(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = 0xcbf29ce484222325ULL;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        h = (h ^ rv_load_le64(s + i)) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 32;
    }
    for (; i < n; i++) h = (h ^ s[i]) * 0x100000001b3ULL;
    return rv_hash64(h ^ n);
}

/* ---- JSON ---- */

/* Length of the valid UTF-8 sequence at p (1..4), or 0. */
static int utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    int n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (n == 0 || (n == 2 && c < 0xc2) || (n == 4 && c > 0xf4)) return 0; /* overlong 2-byte, beyond U+10FFFF */
    for (int k = 1; k < n; k++)
        if ((p[k] & 0xc0) != 0x80) return 0; /* (stops at the NUL too) */
    if (n == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0))) return 0; /* overlong, surrogates */
    if (n == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90))) return 0; /* overlong, beyond U+10FFFF */
    return n;
}

void rv_json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = utf8_len(p);
        if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
        else if (*p == '\n') fputs("\\n", out);
        else if (*p == '\t') fputs("\\t", out);
        else if (*p < 0x20) fprintf(out, "\\u%04x", *p);
        else if (n == 0) fputs("\\ufffd", out);
        else fwrite(p, 1, (size_t)n, out);
        p += n ? n : 1;
    }
    fputc('"', out);
}

/* ---- map: open addressing, key ~0 marks an empty slot ---- */
#define RV_MAP_EMPTY UINT64_MAX

static uint32_t map_slot(const rv_map *m, uint64_t key)
{
    uint32_t mask = m->cap - 1;
    uint32_t i = (uint32_t)rv_hash64(key) & mask;
    while (m->slots[i].key != RV_MAP_EMPTY && m->slots[i].key != key) i = (i + 1) & mask;
    return i;
}

uint32_t rv_map_get(const rv_map *m, uint64_t key, uint32_t dflt)
{
    if (!m->cap || key == RV_MAP_EMPTY) return dflt;
    uint32_t i = map_slot(m, key);
    return m->slots[i].key == key ? m->slots[i].val : dflt;
}

static void map_rehash(rv_map *m, uint32_t ncap)
{
    rv_map n = {rv_xmalloc(sizeof(rv_map_slot) * ncap), ncap, 0};
    memset(n.slots, 0xff, sizeof(rv_map_slot) * ncap); /* every key RV_MAP_EMPTY */
    for (uint32_t i = 0; i < m->cap; i++)
        if (m->slots[i].key != RV_MAP_EMPTY) {
            uint32_t j = map_slot(&n, m->slots[i].key);
            n.slots[j] = m->slots[i];
            n.len++;
        }
    rv_free(m->slots);
    *m = n;
}

void rv_map_put(rv_map *m, uint64_t key, uint32_t val)
{
    if (key == RV_MAP_EMPTY) rv_oom(); /* reserved key; callers never use it */
    if ((m->len + 1) * 4 >= m->cap * 3) map_rehash(m, m->cap ? m->cap * 2 : 64);
    uint32_t i = map_slot(m, key);
    if (m->slots[i].key != key) {
        m->slots[i].key = key;
        m->len++;
    }
    m->slots[i].val = val;
}

void rv_map_reserve(rv_map *m, uint32_t n)
{
    uint64_t want = (uint64_t)m->len + n + 1, cap = m->cap ? m->cap : 64;
    while (want * 4 >= cap * 3) cap *= 2;
    if (cap > UINT32_MAX / 2) rv_oom();
    if (cap != m->cap) map_rehash(m, (uint32_t)cap);
}

void rv_map_free(rv_map *m)
{
    rv_free(m->slots);
    memset(m, 0, sizeof *m);
}

/* ---- symbols: the map goes from a hash to the first symbol with it; ties
 * are resolved by linear probing on (hash + k) keys. ---- */
uint32_t rv_sym_find(const rv_symtab *t, const char *s, size_t n)
{
    uint64_t h = rv_hash_bytes(s, n) >> 1; /* never RV_MAP_EMPTY */
    for (uint64_t k = 0;; k++) {
        uint32_t id = rv_map_get(&t->index, (h + k) & (UINT64_MAX >> 1), RAVEL_NONE);
        if (id == RAVEL_NONE) return RAVEL_NONE;
        if (t->lens.data[id] == n && memcmp(t->strs.data[id], s, n) == 0) return id;
    }
}

/* Same keys as rv_sym_find, but one pass: the map is grown first (so that
 * one more key fits), then each key (h + k) is probed once and the new
 * symbol goes into the empty slot where its key's probe ended. */
uint32_t rv_sym_intern(rv_symtab *t, const char *s, size_t n)
{
    uint64_t h = rv_hash_bytes(s, n) >> 1;
    rv_map *m = &t->index;
    if ((m->len + 1) * 4 >= m->cap * 3) map_rehash(m, m->cap ? m->cap * 2 : 64);
    for (uint64_t k = 0;; k++) {
        uint64_t key = (h + k) & (UINT64_MAX >> 1);
        uint32_t i = map_slot(m, key);
        if (m->slots[i].key == RV_MAP_EMPTY) {
            uint32_t id = t->strs.len;
            rv_vec_push(t->strs, rv_arena_strndup(&t->arena, s, n));
            rv_vec_push(t->lens, (uint32_t)n);
            m->slots[i].key = key;
            m->slots[i].val = id;
            m->len++;
            return id;
        }
        uint32_t id = m->slots[i].val;
        if (t->lens.data[id] == n && memcmp(t->strs.data[id], s, n) == 0) return id;
    }
}

uint32_t rv_sym_push(rv_symtab *t, const char *s, size_t n)
{
    uint32_t id = t->strs.len;
    rv_vec_push(t->strs, rv_arena_strndup(&t->arena, s, n));
    rv_vec_push(t->lens, (uint32_t)n);
    return id;
}

/* The keys of rv_sym_intern; each symbol's first slot is prefetched a few
 * symbols ahead, so that the cache misses of a large map overlap. */
void rv_sym_index_from(rv_symtab *t, uint32_t from)
{
    enum { AHEAD = 8 };
    if (from >= t->strs.len) return;
    rv_map *m = &t->index;
    rv_map_reserve(m, t->strs.len - from);
    for (uint32_t id = from; id < t->strs.len; id++) {
        if (id + AHEAD < t->strs.len) {
            uint64_t ha = rv_hash_bytes(t->strs.data[id + AHEAD], t->lens.data[id + AHEAD]) >> 1;
            __builtin_prefetch(&m->slots[rv_hash64(ha) & (m->cap - 1)]);
        }
        uint64_t h = rv_hash_bytes(t->strs.data[id], t->lens.data[id]) >> 1;
        for (uint64_t k = 0;; k++) {
            uint32_t i = map_slot(m, (h + k) & (UINT64_MAX >> 1));
            if (m->slots[i].key == RV_MAP_EMPTY) {
                m->slots[i].key = (h + k) & (UINT64_MAX >> 1);
                m->slots[i].val = id;
                m->len++;
                break;
            }
            if (m->slots[i].val == id) break; /* entered already (by rv_sym_intern) */
        }
    }
}

void rv_symtab_free(rv_symtab *t)
{
    rv_arena_free(&t->arena);
    rv_vec_free(t->strs);
    rv_vec_free(t->lens);
    rv_map_free(&t->index);
}

/* ---- diagnostics ---- */
ravel_diags *ravel_diags_new(void)
{
    ravel_diags *d = rv_xcalloc(1, sizeof *d);
    d->max = 50;
    return d;
}

uint64_t rv_diags_mark(const ravel_diags *d) { return d ? (uint64_t)d->v.len << 32 | d->dropped : 0; }

void rv_diags_truncate(ravel_diags *d, uint64_t mark)
{
    if (!d) return;
    uint32_t n = (uint32_t)(mark >> 32);
    for (uint32_t i = n; i < d->v.len; i++) {
        rv_free(d->v.data[i].msg);
        rv_free(d->v.data[i].srcline);
    }
    if (n < d->v.len) d->v.len = n;
    d->dropped = (uint32_t)mark;
    rv_recover_keep(d->v.data); /* (the caller's: never swept) */
}

void ravel_diags_free(ravel_diags *d)
{
    if (!d) return;
    for (uint32_t i = 0; i < d->v.len; i++) {
        rv_free(d->v.data[i].msg);
        rv_free(d->v.data[i].srcline);
    }
    rv_vec_free(d->v);
    rv_free(d);
}

size_t ravel_diags_count(const ravel_diags *d) { return d ? d->v.len + d->dropped : 0; }

void rv_diag_verror(ravel_diags *d, const char *file, const char *src, size_t srclen,
                    uint32_t line, uint32_t col, const char *fmt, va_list ap)
{
    if (!d) return;
    if (d->v.len >= d->max) {
        d->dropped++;
        return;
    }
    char body[1024];
    vsnprintf(body, sizeof body, fmt, ap);
    char head[512];
    if (!file) file = "<input>";
    if (line && col)
        snprintf(head, sizeof head, "%s:%u:%u: error: ", file, line, col);
    else if (line)
        snprintf(head, sizeof head, "%s:%u: error: ", file, line);
    else
        snprintf(head, sizeof head, "%s: error: ", file);
    size_t hl = strlen(head), bl = strlen(body);
    rv_diag dg = {rv_xmalloc(hl + bl + 1), NULL, line, col};
    memcpy(dg.msg, head, hl);
    memcpy(dg.msg + hl, body, bl + 1);
    if (src && line) {
        /* find the line */
        size_t pos = 0;
        uint32_t ln = 1;
        while (pos < srclen && ln < line) {
            const char *nl = memchr(src + pos, '\n', srclen - pos);
            if (!nl) { pos = srclen; break; }
            pos = (size_t)(nl - src) + 1;
            ln++;
        }
        if (ln == line && pos <= srclen) {
            size_t e = pos;
            while (e < srclen && src[e] != '\n' && src[e] != '\r' && e - pos < 400) e++;
            dg.srcline = rv_xmalloc(e - pos + 1);
            for (size_t k = pos; k < e; k++) {
                unsigned char c = (unsigned char)src[k];
                dg.srcline[k - pos] = (c == '\t' || (c >= 32 && c < 127)) ? (char)c : '?';
            }
            dg.srcline[e - pos] = 0;
        }
    }
    rv_vec_push(d->v, dg);
}

void rv_diag_error(ravel_diags *d, const char *file, const char *src, size_t srclen,
                   uint32_t line, uint32_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rv_diag_verror(d, file, src, srclen, line, col, fmt, ap);
    va_end(ap);
}

/* The diagnostics' text, appended to t: each message, then its source line
 * and a caret under the column (tabs kept, so the caret lines up). */
typedef RV_VEC(char) diag_text;
static void text_put(diag_text *t, const char *s, size_t n)
{
    rv_vec_reserve(*t, n + 1);
    memcpy(t->data + t->len, s, n);
    t->len += (uint32_t)n;
    t->data[t->len] = 0;
}
static void text_str(diag_text *t, const char *s) { text_put(t, s, strlen(s)); }

char *rv_diags_text(const ravel_diags *d, size_t *len)
{
    diag_text t = {0};
    text_put(&t, "", 0);
    for (uint32_t i = 0; d && i < d->v.len; i++) {
        const rv_diag *g = &d->v.data[i];
        text_str(&t, g->msg);
        text_str(&t, "\n");
        if (!g->srcline) continue;
        text_str(&t, "  ");
        text_str(&t, g->srcline);
        text_str(&t, "\n");
        if (!g->col) continue;
        text_str(&t, "  ");
        for (uint32_t k = 1; k < g->col && g->srcline[k - 1]; k++)
            text_put(&t, g->srcline[k - 1] == '\t' ? "\t" : " ", 1);
        text_str(&t, "^\n");
    }
    if (d && d->dropped) {
        char more[64];
        snprintf(more, sizeof more, "(%u more errors not shown)\n", d->dropped);
        text_str(&t, more);
    }
    if (len) *len = t.len;
    return t.data;
}

void ravel_diags_print(FILE *out, const ravel_diags *d)
{
    size_t len;
    char *s = rv_diags_text(d, &len);
    fwrite(s, 1, len, out);
    rv_free(s);
}

/* ---- near misses ---- */

/* Optimal string alignment distance of a and b (both at most 31 bytes). */
static uint32_t osa_distance(const char *a, size_t na, const char *b, size_t nb)
{
    uint32_t d[32][32];
    for (size_t i = 0; i <= na; i++) d[i][0] = (uint32_t)i;
    for (size_t j = 0; j <= nb; j++) d[0][j] = (uint32_t)j;
    for (size_t i = 1; i <= na; i++)
        for (size_t j = 1; j <= nb; j++) {
            uint32_t sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]), del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            uint32_t m = sub < del ? sub : del;
            if (ins < m) m = ins;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < m) m = d[i - 2][j - 2] + 1;
            d[i][j] = m;
        }
    return d[na][nb];
}

const char *rv_near_word(const char *s, size_t n, const char *const *words)
{
    const char *best = NULL;
    uint32_t bestd = UINT32_MAX;
    if (!s || n == 0 || n > 31) return NULL;
    for (const char *const *w = words; *w; w++) {
        size_t wn = strlen(*w);
        if (wn > 31) continue;
        if (wn == n && memcmp(*w, s, n) == 0) return NULL;
        uint32_t d = osa_distance(s, n, *w, wn);
        if (d < bestd) bestd = d, best = *w;
    }
    size_t len = best ? strlen(best) : 0;
    return best && (bestd <= 1 || (bestd == 2 && len >= 5 && n >= 4)) ? best : NULL;
}
