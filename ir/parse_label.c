/* parse_label.c - the labels of the function being read: label name ->
 * block, the block created on the label's first mention (as a use or as
 * its definition).
 *
 * Requires: a parser inside a function (parse_func.c), rvp_labels_reset
 * called at each function's start.
 * Guarantees: the same name gives the same block within a function, and
 * blocks are created in the order of first mention (ravel_block_new's
 * order, names interned as it interns them). A name PREFIX N (label_num)
 * goes through a dense table of its prefix when the fast path is on, any
 * other through a hash table keyed by rvp_name_key; the slow reader
 * (rv_module_parse_slow) takes the hash table for every name, and
 * test_parse_fast holds the two equal. Memory: the hash table at most
 * 4/3 of the labels, the dense tables about one byte per input byte. */
#include "parse.h"

#include <string.h>

/* The labels' table (P->ltab), twice as large. */
static void labels_grow(parser *P)
{
    uint32_t cap = P->lcap ? P->lcap * 2 : 64;
    struct label_slot *t = rv_xcalloc(cap, sizeof *t);
    for (uint32_t i = 0; i < P->lcap; i++) {
        if (!P->ltab[i].b1) continue;
        uint32_t k = rvp_key_hash(P->ltab[i].key, P->ltab[i].n);
        while (t[k & (cap - 1)].b1) k++;
        t[k & (cap - 1)] = P->ltab[i];
    }
    rv_free(P->ltab);
    P->ltab = t;
    P->lcap = cap;
}

/* Empties the labels' tables for a new function (a hash table much larger
 * than the last function needed is dropped rather than cleared; the
 * dense tables' entries are cleared one by one). */
void rvp_labels_reset(parser *P)
{
    for (uint32_t i = 0; i < P->dl.touched.len; i++) {
        uint32_t e = P->dl.touched.data[i];
        P->dl.map[e >> 24].data[e & 0xffffff] = 0;
    }
    P->dl.touched.len = 0;
    P->dl.unmapped = RAVEL_NONE;
    P->dl.digit_name = false;
    if (P->lcap > 64 && P->nlabels * 8 < P->lcap) {
        rv_free(P->ltab);
        P->ltab = NULL;
        P->lcap = 0;
    } else if (P->nlabels) {
        memset(P->ltab, 0, sizeof *P->ltab * P->lcap);
    }
    P->nlabels = 0;
}

/* Is the label (s, n) PREFIX N, with a prefix of 1 to 4 bytes that are no
 * digits, N decimal without a leading zero and below P->dl.limit, and the
 * prefix one of the (at most 4) dense tables' (added if there is room)?
 * Then *slot is the prefix's table and *num is N. Whether a name is read
 * so depends on the name alone: prefixes are added, never removed. */
static bool label_num(parser *P, const char *s, uint32_t n, uint32_t *slot, uint32_t *num)
{
    uint32_t k = 0;
    while (k < n && k < 5 && !is_digit(s[k])) k++;
    if (k == 0 || k > 4 || k == n || (s[k] == '0' && k + 1 < n)) return false;
    uint32_t v = 0;
    for (uint32_t i = k; i < n; i++) {
        if (!is_digit(s[i])) return false;
        v = v * 10 + (uint32_t)(s[i] - '0');
        if (v >= P->dl.limit) return false; /* (limit <= 2^24: no overflow) */
    }
    uint32_t key = (uint32_t)rvp_name_key(s, k), i = 0;
    while (i < P->dl.nkeys && P->dl.key[i] != key) i++;
    if (i == P->dl.nkeys) {
        if (i == 4) return false;
        P->dl.key[P->dl.nkeys++] = key;
    }
    *slot = i, *num = v;
    return true;
}

/* A new block named (s, n). */
static uint32_t new_block(ravel_func *f, const char *s, uint32_t n)
{
    rv_block blk;
    memset(&blk, 0, sizeof blk);
    blk.name = rv_sym_intern(&f->syms, s, n);
    blk.first_param = f->u32.len;
    rv_vec_push(f->blocks, blk);
    return f->blocks.len - 1;
}

void rvp_syms_flush(parser *P)
{
    if (P->dl.unmapped == RAVEL_NONE) return;
    rv_sym_index_from(&P->f->syms, P->dl.unmapped);
    P->dl.unmapped = RAVEL_NONE;
}

void rvp_other_name(parser *P, const char *s, uint32_t n)
{
    if (!n || !is_digit(s[n - 1])) return; /* no label of a dense table (label_num) */
    rvp_syms_flush(P);
    P->dl.digit_name = true;
}

/* A new block named by a label of a dense table: its name is new among
 * the labels (the table), and among the other names unless digit_name. */
static uint32_t new_dense_block(parser *P, const char *s, uint32_t n)
{
    ravel_func *f = P->f;
    if (P->dl.digit_name) return new_block(f, s, n);
    rv_block blk;
    memset(&blk, 0, sizeof blk);
    blk.name = rv_sym_push(&f->syms, s, n);
    blk.first_param = f->u32.len;
    rv_vec_push(f->blocks, blk);
    if (P->dl.unmapped == RAVEL_NONE) P->dl.unmapped = blk.name;
    return f->blocks.len - 1;
}

/* rvp_block_ref through a dense table (label_num said the name is one). */
static uint32_t dense_block_ref(parser *P, uint32_t slot, uint32_t num, const char *s, uint32_t n)
{
    rv_idvec *m = &P->dl.map[slot];
    if (num >= m->len) {
        rv_vec_reserve(*m, num + 1 - m->len);
        memset(m->data + m->len, 0, sizeof(uint32_t) * (num + 1 - m->len));
        m->len = num + 1;
    }
    if (m->data[num]) return m->data[num] - 1;
    uint32_t b = new_dense_block(P, s, n);
    m->data[num] = b + 1;
    rv_vec_push(P->dl.touched, slot << 24 | num);
    return b;
}

/* The block a label names, created (ravel_block_new, its name interned)
 * on its first mention. */
uint32_t rvp_block_ref(parser *P, const char *s, uint32_t n)
{
    ravel_func *f = P->f;
    uint32_t slot, num;
    if (P->fast.on && label_num(P, s, n, &slot, &num)) return dense_block_ref(P, slot, num, s, n);
    if (4 * (P->nlabels + 1) > 3 * P->lcap) labels_grow(P);
    uint64_t key = rvp_name_key(s, n);
    uint32_t mask = P->lcap - 1, i = rvp_key_hash(key, n) & mask;
    for (struct label_slot *e; (e = &P->ltab[i])->b1; i = (i + 1) & mask) {
        if (e->key != key || e->n != n) continue;
        if (n <= 8) return e->b1 - 1; /* the key is the name (rvp_name_key) */
        uint32_t sym = f->blocks.data[e->b1 - 1].name;
        if (rvp_same(rv_sym_str(&f->syms, sym), s, n)) return e->b1 - 1;
    }
    uint32_t b = new_block(f, s, n);
    P->ltab[i] = (struct label_slot){key, n, b + 1};
    P->nlabels++;
    return b;
}
