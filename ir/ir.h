/*
 * ir.h - the map of libravel's core: types first, then one banner per source
 * file of ir/ with its prototypes. Every other part of ravel (checker,
 * allocators, generator, CLI) includes this header.
 * Beside it: ir/rng.h (the one PRNG, splitmix64) and ir/analysis.h (the
 * shared analyses: bitsets, the dataflow solver of dataflow.c, liveness and
 * live intervals of live.c).
 *
 * Representation (see docs/architecture.md):
 *   - A function owns all of its memory: growable arrays (insts, ops, ...)
 *     and an arena for strings. ravel_func_free releases everything at once.
 *   - Instructions of a block are contiguous in f->insts, in block layout
 *     order; the last instruction of a finished block is its terminator.
 *     Edits (spill/reload/move) are instructions too, interleaved.
 *   - Operands are packed (12 bytes) in f->ops: an instruction's defs first,
 *     then its vreg uses. Immediates live apart in f->imms with their
 *     position among the uses, so `reuse(K)` counts vreg uses only.
 *   - vregs, blocks, registers and classes are dense ids; names are kept
 *     for printing (vreg number, block name symbol, register name).
 *   - Locations: register id, or RAVEL_SLOT_BIT|slot (ravel.h).
 *
 * No mutable globals anywhere (but util.c's two thread-locals: the
 * recovery region and the tests' allocation-failure countdown).
 * Out of memory: rv_oom() unwinds to the entry point, which returns
 * RAVEL_ENOMEM (the parser also bounds input sizes first, so that bad input
 * does not get there).
 */
#ifndef RAVEL_IR_H
#define RAVEL_IR_H

#include "ravel.h"
#include "ir/rng.h"
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ===== limits (docs/format.md section 12) ===================== */
#define RV_MAX_INPUT_BYTES (256u << 20) /* 256 MiB of text */
#define RV_MAX_INSTS 10000000u          /* instructions per file */
#define RV_MAX_REGS 1024u               /* registers per machine */
#define RV_MAX_CLASSES 64u
#define RV_MAX_OPERANDS 65535u          /* defs or uses per instruction */
#define RV_MAX_VREG_NUM 0x7fffffffu

/* ===== util.c: memory, growable arrays, hashing, symbols, diagnostics ====== */
/* Out of memory: inside a recovery region, unwinds to its entry point
 * (which returns RAVEL_ENOMEM); outside one, aborts. Library code
 * allocates only with rv_x* and frees only with rv_free (tests/text: a
 * plain malloc or free in the library fails the lint), so that a region
 * knows every block it made. */
typedef struct rv_recover {
    jmp_buf jb;
    void **tab;       /* the region's live blocks (a hash set) */
    size_t cap, n;
} rv_recover;
/* Opens r on this thread; false if a region is open already (then the
 * caller works inside that one and must not setjmp or leave). Use:
 *   rv_recover rec; bool own = rv_recover_enter(&rec);
 *   if (own && setjmp(rec.jb)) { release the context by rv_free;
 *       rv_recover_sweep(&rec); return RAVEL_ENOMEM; }
 *   ... work ...; if (own) rv_recover_leave(&rec);
 * (locals changed after setjmp and read after the jump: volatile) */
bool rv_recover_enter(rv_recover *r);
void rv_recover_leave(rv_recover *r);             /* closes r: its blocks live on */
void rv_recover_sweep(rv_recover *r);             /* frees every block of r still noted, closes r */
void rv_recover_keep(void *p);                    /* p outlives the region whatever happens (not swept) */
void rv_fail_alloc_after(uint64_t n);             /* tests: inside a region, the n-th allocation from now fails (0: none) */
_Noreturn void rv_oom(void);
void *rv_xmalloc(size_t n);
void *rv_xcalloc(size_t n, size_t size);
void *rv_xrealloc(void *p, size_t n);
char *rv_xstrdup(const char *s);
void rv_free(void *p);

/* Growable array: RV_VEC(T) v = {0}; rv_vec_push(v, x); v.data[i]; rv_vec_free(v) */
#define RV_VEC(T) struct { T *data; uint32_t len, cap; }
void rv_vec_grow_(void **data, uint32_t *cap, size_t elem, size_t need);
#define rv_vec_reserve(v, n)                                                         \
    do {                                                                             \
        if ((size_t)(v).len + (n) > (v).cap)                                         \
            rv_vec_grow_((void **)&(v).data, &(v).cap, sizeof *(v).data, (size_t)(v).len + (n)); \
    } while (0)
#define rv_vec_push(v, x)                                                            \
    do {                                                                             \
        rv_vec_reserve(v, 1);                                                        \
        (v).data[(v).len++] = (x);                                                   \
    } while (0)
#define rv_vec_free(v) (rv_free((v).data), (v).data = NULL, (v).len = (v).cap = 0)

/* Bump arena: many small allocations, one free. */
typedef struct rv_arena {
    struct rv_arena_chunk *head;
    size_t used, cap;
} rv_arena;
void *rv_arena_alloc(rv_arena *a, size_t n); /* 8-byte aligned, zeroed */
char *rv_arena_strndup(rv_arena *a, const char *s, size_t n);
void rv_arena_free(rv_arena *a);

/* Hash map from uint64 keys to uint32 values (open addressing). */
typedef struct rv_map_slot {
    uint64_t key; /* UINT64_MAX: empty */
    uint32_t val;
} rv_map_slot;
typedef struct rv_map {
    rv_map_slot *slots; /* a key and its value in one slot: one cache line per probe */
    uint32_t cap, len;  /* cap is a power of two or 0 */
} rv_map;
uint32_t rv_map_get(const rv_map *m, uint64_t key, uint32_t dflt);
void rv_map_put(rv_map *m, uint64_t key, uint32_t val);
void rv_map_free(rv_map *m);
void rv_map_reserve(rv_map *m, uint32_t n); /* room for n more keys without growing */
uint64_t rv_hash_bytes(const void *p, size_t n);
/* Writes s as a JSON string literal: quotes, backslashes and control
 * characters escaped, each byte that is not part of valid UTF-8 (a file
 * name may hold any bytes) written as \ufffd, so the output always parses. */
void rv_json_str(FILE *out, const char *s);
uint64_t rv_hash64(uint64_t x); /* a good 64-bit finalizer */
/* Eight bytes read little-endian whatever the host: hashes of bytes (and
 * the fuzz seeds derived from them) are the same on every machine. */
static inline uint64_t rv_load_le64(const unsigned char *s)
{
    uint64_t w = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&w, s, 8);
#else
    for (int k = 7; k >= 0; k--) w = w << 8 | s[k];
#endif
    return w;
}

/* A sparse set of ids below a bound fixed by the owner, who provides
 * dense[] and pos[] of that many cells each (pos[] need not be cleared):
 * O(1) membership, insertion, removal and clearing; members in dense[0..n),
 * in insertion order but for removals, which move the last member into the
 * removed one's place. */
typedef struct rv_sset {
    uint32_t *dense, *pos;
    uint32_t n;
} rv_sset;
static inline bool rv_sset_has(const rv_sset *s, uint32_t x) { return s->pos[x] < s->n && s->dense[s->pos[x]] == x; }
/* True if x was not a member (and now is). */
static inline bool rv_sset_add(rv_sset *s, uint32_t x)
{
    if (rv_sset_has(s, x)) return false;
    s->pos[x] = s->n;
    s->dense[s->n++] = x;
    return true;
}
/* True if x was a member (and no longer is). */
static inline bool rv_sset_del(rv_sset *s, uint32_t x)
{
    if (!rv_sset_has(s, x)) return false;
    uint32_t last = s->dense[--s->n];
    s->dense[s->pos[x]] = last;
    s->pos[last] = s->pos[x];
    return true;
}

/* Near misses for "did you mean" hints: the word of `words` (a NULL-
 * terminated list) closest to s[0..n) by edit distance (insertions,
 * deletions, substitutions, adjacent swaps), if it is at most 1 (2 for
 * words of 5 letters or more) and s is not itself in the list; else NULL. */
const char *rv_near_word(const char *s, size_t n, const char *const *words);

/* Symbol table: interned strings, ids from 0. */
typedef struct rv_symtab {
    rv_arena arena;
    RV_VEC(const char *) strs;
    RV_VEC(uint32_t) lens;
    rv_map index; /* hash -> chain head is not needed: key = hash, collisions probed by value */
} rv_symtab;
uint32_t rv_sym_intern(rv_symtab *t, const char *s, size_t n);
uint32_t rv_sym_find(const rv_symtab *t, const char *s, size_t n); /* RAVEL_NONE if absent */
/* A symbol the caller knows is new, appended without entering the map:
 * rv_sym_find and rv_sym_intern do not see it until rv_sym_index_from
 * enters it (the reader's block names, entered in one batch). */
uint32_t rv_sym_push(rv_symtab *t, const char *s, size_t n);
void rv_sym_index_from(rv_symtab *t, uint32_t from); /* enters symbols from.. that are not in the map */
static inline const char *rv_sym_str(const rv_symtab *t, uint32_t id) { return t->strs.data[id]; }
void rv_symtab_free(rv_symtab *t);

/* Diagnostics: "FILE:LINE:COL: error: MESSAGE" plus the source line. */
typedef struct rv_diag {
    char *msg;      /* full "FILE:LINE:COL: error: MESSAGE" text, malloc'd */
    char *srcline;  /* the source line without newline, or NULL */
    uint32_t line, col;
} rv_diag;
struct ravel_diags {
    RV_VEC(rv_diag) v;
    uint32_t max; /* stop recording after this many (default 50); count still grows */
    uint32_t dropped;
};
/* Out of memory in an entry point: d back to what it held at the mark. */
uint64_t rv_diags_mark(const ravel_diags *d);
void rv_diags_truncate(ravel_diags *d, uint64_t mark);
/* Records an error. file may be NULL ("<input>"); line/col 0 = unknown;
 * src/srclen: the whole source text (to quote the line) or NULL. */
void rv_diag_error(ravel_diags *d, const char *file, const char *src, size_t srclen,
                   uint32_t line, uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
void rv_diag_verror(ravel_diags *d, const char *file, const char *src, size_t srclen,
                    uint32_t line, uint32_t col, const char *fmt, va_list ap);
/* What ravel_diags_print writes, as a NUL-terminated string (rv_free it);
 * *len (if len) gets its length. d may be NULL (""). */
char *rv_diags_text(const ravel_diags *d, size_t *len);

/* ===== machine.c: machine descriptions ===================================== */
typedef struct rv_reg {
    const char *name;
    uint8_t cls;
    bool reserved;
} rv_reg;

typedef struct rv_class {
    const char *name;
    RV_VEC(uint32_t) alloc; /* allocatable registers, in preference order */
} rv_class;

/* Register containment (`alias` lines, docs/format.md section 14.1) of one
 * register: what it contains, and what it overlaps (contains or is
 * contained by: symmetric, not transitive, never itself). */
typedef RV_VEC(uint32_t) rv_idvec;
typedef struct rv_reg_alias {
    rv_idvec in;   /* registers this one contains, ascending id */
    rv_idvec over; /* registers overlapping this one, ascending id */
} rv_reg_alias;

struct ravel_machine {
    rv_arena arena;
    RV_VEC(rv_reg) regs;
    RV_VEC(rv_class) classes;
    RV_VEC(uint32_t) clobbers; /* default clobber set of `call`, sorted, unique */
    bool gc_nonmoving;
    rv_symtab names; /* register and class names; symbol id -> below */
    RV_VEC(int32_t) name_reg;   /* symbol id -> register id or -1 */
    RV_VEC(int32_t) name_class; /* symbol id -> class id or -1 */
    const char *err;            /* the last failing call's message (a string literal), or NULL */
    /* containment: empty (len 0) in a machine without it; else one entry per
     * register up to the highest one named (a register past alias.len
     * overlaps nothing). The relation is acyclic. */
    RV_VEC(rv_reg_alias) alias;
    RV_VEC(uint32_t) alias_order; /* registers containing another, in order of first appearance */
    uint32_t ncontain;            /* containment pairs (r contains s) */
};
static inline bool rv_mach_is_clobbered_by_default(const ravel_machine *m, uint32_t r)
{
    for (uint32_t i = 0; i < m->clobbers.len; i++)
        if (m->clobbers.data[i] == r) return true;
    return false;
}
/* True if some register contains another (the machine has alias lines). */
static inline bool rv_mach_has_alias(const ravel_machine *m) { return m->ncontain != 0; }
/* The registers overlapping r, ascending id (precomputed): returns their
 * count and sets *list (NULL when 0). */
static inline uint32_t rv_mach_overlaps(const ravel_machine *m, uint32_t r, const uint32_t **list)
{
    if (r >= m->alias.len || !m->alias.data[r].over.len) {
        *list = NULL;
        return 0;
    }
    *list = m->alias.data[r].over.data;
    return m->alias.data[r].over.len;
}
/* The registers r contains, ascending id; as rv_mach_overlaps. */
static inline uint32_t rv_mach_contained(const ravel_machine *m, uint32_t r, const uint32_t **list)
{
    if (r >= m->alias.len || !m->alias.data[r].in.len) {
        *list = NULL;
        return 0;
    }
    *list = m->alias.data[r].in.data;
    return m->alias.data[r].in.len;
}
/* r contains s (as declared: not transitive); r overlaps s (either way).
 * False for ids out of range and for r == s. O(log n). */
bool rv_mach_contains(const ravel_machine *m, uint32_t r, uint32_t s);
bool rv_mach_overlap(const ravel_machine *m, uint32_t r, uint32_t s);
/* Records "r contains s" (r != s, both registers of m) without looking for
 * cycles: the reader checks a whole machine at once (rv_alias_first_cycle),
 * ravel_machine_alias one pair at a time. False if it was recorded already. */
bool rv_mach_add_containment(ravel_machine *m, uint32_t r, uint32_t s);
/* Containment cycles of a list of pairs: pairs[2i] contains pairs[2i+1],
 * i < n, in file order, ids < nregs, no pair of a register with itself.
 * Returns the index of the first pair that closes a cycle with the pairs
 * before it (RAVEL_NONE if none), and then a chain by which that pair's
 * contained register contains its container: path[0] = the contained
 * register, path[k] contains path[k+1], the last is the container; at most
 * maxpath registers are written (*plen counts them all). O((n + nregs)
 * log n) time, O(n + nregs) memory. */
uint32_t rv_alias_first_cycle(uint32_t nregs, const uint32_t *pairs, uint32_t n, uint32_t *path, uint32_t maxpath,
                              uint32_t *plen);
/* The two machines declare the same containments, registers compared by
 * name (`ravel check --orig` compares the machine blocks of its two files). */
bool rv_mach_same_containment(const ravel_machine *a, const ravel_machine *b);

/* ===== func.c: functions and the builder ==================================== */
enum { /* rv_operand.flags */
    RV_OPF_DEF = 1,   /* a def (else a use) */
    RV_OPF_LATE = 2,  /* effective position is late (uses: `late`; defs: default) */
    RV_OPF_EXPLICIT_POS = 4, /* position was written explicitly (printer keeps it only if non-default) */
};

typedef struct rv_operand {
    uint32_t vreg;   /* vreg id */
    ravel_loc loc;   /* RAVEL_LOC_NONE when unallocated */
    uint8_t kind;    /* ravel_constraint */
    uint8_t flags;   /* RV_OPF_* */
    uint16_t arg;    /* register id for FIXED, use index K for REUSE */
} rv_operand;

static inline bool rv_op_is_def(const rv_operand *o) { return o->flags & RV_OPF_DEF; }
static inline bool rv_op_is_late(const rv_operand *o) { return o->flags & RV_OPF_LATE; }
static inline bool rv_op_is_early(const rv_operand *o) { return !(o->flags & RV_OPF_LATE); }

typedef struct rv_imm {
    int64_t value;
    uint16_t pos; /* index among the instruction's use list (vregs and imms) */
} rv_imm;

typedef struct rv_succ {
    uint32_t block;
    uint32_t first_arg, nargs; /* into f->u32 (vreg ids) */
} rv_succ;

enum { /* rv_inst.flags */
    RV_IF_SAFEPOINT = 1,
    RV_IF_CLOBBERS = 2, /* explicit clobbers(...) attribute present */
    RV_IF_STACKMAP = 4, /* stackmap(...) present (possibly empty) */
};

typedef struct rv_inst {
    uint8_t op;       /* ravel_opcode */
    uint8_t flags;    /* RV_IF_* */
    uint16_t ndefs, nuses, nimms; /* nuses counts vreg uses only */
    uint32_t first_op;  /* into f->ops: ndefs defs then nuses uses */
    uint32_t first_imm; /* into f->imms */
    uint32_t name;      /* symbol: mnemonic (OTHER) or callee (CALL); RAVEL_NONE otherwise */
    uint32_t first_clob, nclob; /* into f->u32: explicit clobber registers (sorted, unique) */
    union {
        struct { uint32_t first, n; } smap; /* ops: stackmap slot numbers in f->u32 */
        struct { uint32_t first, n; } succ; /* terminators: successors in f->succs */
        struct { ravel_loc dst, src; } edit; /* edits */
    } u;
    uint32_t line, col; /* source position (0 if built through the API) */
} rv_inst;

static inline bool rv_is_term(const rv_inst *i) { return i->op >= RAVEL_OP_JUMP && i->op <= RAVEL_OP_RET; }
/* Edits: spill, reload, move, remat (a remat has no source: u.edit.src is
 * RAVEL_LOC_NONE; its K is its one immediate, its clobbers are an op's). */
static inline bool rv_is_edit(const rv_inst *i) { return i->op >= RAVEL_OP_SPILL && i->op <= RAVEL_OP_REMAT; }
/* The K of a remat (rv_is_edit, op RAVEL_OP_REMAT). */
static inline int64_t rv_remat_k(const ravel_func *f, const rv_inst *i);

typedef struct rv_block {
    uint32_t name;                  /* symbol */
    uint32_t first_param, nparams;  /* into f->u32 (vreg ids) */
    uint32_t first_inst, ninsts;    /* into f->insts; last is the terminator */
    uint32_t line, col;             /* of the label (0 if built through the API) */
    uint32_t end_line, end_col;     /* where the block was closed (next label or `end`) */
    bool started;                   /* label seen / ravel_block_begin called */
    bool has_params_decl;           /* params list written, for the printer */
} rv_block;

typedef struct rv_vreg {
    uint32_t num;  /* the N of vN */
    uint8_t cls;
    bool ref;
    bool has_class; /* class known (from a def or a parameter) */
} rv_vreg;

struct ravel_func {
    const ravel_machine *mach;
    uint32_t name; /* symbol */
    rv_symtab syms;
    RV_VEC(rv_vreg) vregs;
    RV_VEC(rv_block) blocks;  /* after ravel_func_finish: blocks 0..layout.len-1 in
                                 layout order (block 0 = entry), then blocks never
                                 started (undefined labels; the validator rejects them) */
    RV_VEC(uint32_t) layout;  /* block ids in the order they were started (identity after finish) */
    RV_VEC(rv_inst) insts;
    RV_VEC(rv_operand) ops;
    RV_VEC(rv_imm) imms;
    RV_VEC(rv_succ) succs;
    RV_VEC(uint32_t) u32; /* params, args, stackmaps, clobber lists */
    rv_map vreg_by_num;   /* vreg number -> id; built lazily (vmap_built) on the first lookup */
    bool vmap_built;
    uint32_t nslots;      /* 1 + highest slot number used, 0 if none */
    uint32_t next_num;    /* 1 + highest vreg number, for ravel_vreg_new */
    uint32_t line, col, end_line; /* of `func` and its `end` */
    const char *file;     /* source file name for diagnostics (owned by the module), or NULL */
    const char *src;      /* source text (owned by the module), or NULL */
    size_t srclen;
    /* builder state */
    uint32_t cur_block;   /* RAVEL_NONE when no block is open */
    uint32_t cur_inst;    /* RAVEL_NONE when no instruction is open */
    bool building_uses;   /* a use or imm has been added to cur_inst */
    char *err;            /* last builder error message (malloc'd) */
};

struct ravel_module {
    ravel_machine *mach;
    bool mach_borrowed; /* mach belongs to the caller (generator opts.machine): not freed with the module */
    RV_VEC(ravel_func *) funcs;
    char *filename;    /* for diagnostics */
    char *src;         /* a copy of the source text (for quoting lines) */
    size_t srclen;
};

/* Accessors. */
static inline rv_inst *rv_inst_at(const ravel_func *f, uint32_t i) { return &f->insts.data[i]; }
static inline rv_operand *rv_inst_ops(const ravel_func *f, const rv_inst *i) { return &f->ops.data[i->first_op]; }
static inline rv_operand *rv_inst_defs(const ravel_func *f, const rv_inst *i) { return &f->ops.data[i->first_op]; }
static inline rv_operand *rv_inst_uses(const ravel_func *f, const rv_inst *i) { return &f->ops.data[i->first_op + i->ndefs]; }
static inline rv_succ *rv_inst_succs(const ravel_func *f, const rv_inst *i) { return &f->succs.data[i->u.succ.first]; }
static inline uint32_t rv_inst_nsuccs(const rv_inst *i) { return (i->op == RAVEL_OP_JUMP || i->op == RAVEL_OP_BR) ? i->u.succ.n : 0; }
static inline const uint32_t *rv_succ_args(const ravel_func *f, const rv_succ *s) { return &f->u32.data[s->first_arg]; }
static inline const uint32_t *rv_block_params(const ravel_func *f, const rv_block *b) { return &f->u32.data[b->first_param]; }
static inline rv_inst *rv_block_term(const ravel_func *f, const rv_block *b) { return b->ninsts ? &f->insts.data[b->first_inst + b->ninsts - 1] : NULL; }
static inline const char *rv_block_name(const ravel_func *f, uint32_t b) { return rv_sym_str(&f->syms, f->blocks.data[b].name); }
static inline const char *rv_func_name(const ravel_func *f) { return rv_sym_str(&f->syms, f->name); }
static inline int64_t rv_remat_k(const ravel_func *f, const rv_inst *i) { return f->imms.data[i->first_imm].value; }
/* The same lists, never forming a pointer from the NULL array of a
 * function that has none (undefined behaviour that clang's UBSan reports):
 * rv_ops_of is NULL only when f has no operand at all; the others are NULL
 * when their list is empty. */
static inline const rv_operand *rv_ops_of(const ravel_func *f, const rv_inst *i) { return f->ops.data ? f->ops.data + i->first_op : NULL; }
static inline const rv_operand *rv_defs_of(const ravel_func *f, const rv_inst *i) { return i->ndefs ? &f->ops.data[i->first_op] : NULL; }
static inline const rv_operand *rv_uses_of(const ravel_func *f, const rv_inst *i) { return i->nuses ? &f->ops.data[i->first_op + i->ndefs] : NULL; }
static inline const uint32_t *rv_params_of(const ravel_func *f, const rv_block *b) { return b->nparams ? &f->u32.data[b->first_param] : NULL; }
static inline const uint32_t *rv_args_of(const ravel_func *f, const rv_succ *s) { return s->nargs ? &f->u32.data[s->first_arg] : NULL; }

/* Locations as dense cell indices, the one numbering of every per-location
 * array (the checker's states, injection's hold analysis, the
 * interpreter's environment): register r is cell r (r < nregs), slot s is
 * cell nregs + s (s < nslots). rv_loc_index is RAVEL_NONE for
 * RAVEL_LOC_NONE and for a location out of those ranges; rv_loc_at is its
 * inverse on cells < nregs + nslots. */
static inline uint32_t rv_loc_index(uint32_t nregs, uint32_t nslots, ravel_loc l)
{
    if (l & RAVEL_SLOT_BIT) {
        if (l == RAVEL_LOC_NONE) return RAVEL_NONE;
        uint32_t s = l & ~RAVEL_SLOT_BIT;
        return s < nslots ? nregs + s : RAVEL_NONE;
    }
    return l < nregs ? l : RAVEL_NONE;
}
static inline ravel_loc rv_loc_at(uint32_t nregs, uint32_t cell) { return cell < nregs ? cell : ravel_slot(cell - nregs); }

/* Instruction in has a def in location l (a clobber spares such a register). */
static inline bool rv_inst_defines_loc(const ravel_func *f, const rv_inst *in, ravel_loc l)
{
    const rv_operand *d = rv_defs_of(f, in);
    for (uint32_t k = 0; k < in->ndefs; k++)
        if (d[k].loc == l) return true;
    return false;
}
/* The def (index into ops, in's operands) that reuses use operand u (an
 * index into ops too: u >= in->ndefs), or RAVEL_NONE. */
static inline uint32_t rv_reuser_of(const rv_inst *in, const rv_operand *ops, uint32_t u)
{
    for (uint32_t d = 0; d < in->ndefs; d++)
        if (ops[d].kind == RAVEL_C_REUSE && ops[d].arg == u - in->ndefs) return d;
    return RAVEL_NONE;
}

/* Clobber set of an instruction: explicit list, else the machine default for
 * `call`, else empty. Returns the count and sets *regs. */
uint32_t rv_inst_clobbers(const ravel_func *f, const rv_inst *i, const uint32_t **regs);
/* Mnemonic text of an instruction (e.g. "add", "call", "foo"). */
const char *rv_inst_mnemonic(const ravel_func *f, const rv_inst *i);
const char *rv_opcode_name(ravel_opcode op); /* NULL for OTHER */
ravel_opcode rv_opcode_from_name(const char *s, size_t n); /* OTHER if not a built-in op (edits and terminators excluded) */
/* The text of a location ("r3", "s7", "-"): a register's own name (of any
 * length), else formatted into buf (>= 32 bytes). Use the returned pointer,
 * not buf. */
const char *rv_loc_str(const ravel_machine *m, ravel_loc l, char *buf);
/* Finds or creates a vreg by number (parser). */
uint32_t rv_vreg_by_num(ravel_func *f, uint32_t num);
/* True if the function carries any allocation (a location, edit or stackmap). */
bool rv_func_is_allocated(const ravel_func *f);
/* The first construct of docs/format.md section 14 that f uses: "register
 * containment (alias lines)" if its machine declares any, else "undef" or
 * "remat" for the first such instruction, else NULL. The components that do
 * not implement section 14 yet refuse such a function with it (the
 * checker). O(instructions). */
const char *rv_func_ext_used(const ravel_func *f);
/* Deep copy. */
ravel_func *rv_func_clone(const ravel_func *f);
/* Copy of f with locations, edits and stackmaps removed (unallocated form). */
ravel_func *rv_func_strip(const ravel_func *f);
/* Structural equality of two functions (same machine assumed): names, blocks,
 * params, instructions, operands, locations, edits, attributes. */
bool rv_func_equal(const ravel_func *a, const ravel_func *b);
/* Builder error message of the last failing builder call, or NULL. */
const char *rv_func_error(const ravel_func *f);
/* Source positions for diagnostics (f parsed from text; built functions
 * have no source): line n of f's source without its newline (malloc'd,
 * at most 4096 bytes; O(n) lines are skipped to find it), or NULL; and the
 * column (1-based) of an operand in `line`, the source line of an
 * instruction that starts at column inst_col: role RV_SRC_DEF k-th def,
 * RV_SRC_USE k-th vreg use, RV_SRC_STACKMAP k-th slot of stackmap(...);
 * inst_col when the operand is not found (or line is NULL). */
enum { RV_SRC_DEF, RV_SRC_USE, RV_SRC_STACKMAP };
char *rv_src_line(const ravel_func *f, uint32_t n);
uint32_t rv_src_operand_col(const char *line, uint32_t inst_col, int role, uint32_t k);

/* ===== edit.c: in-place edits of a finished function ========================= */
/* Shift the instructions after the edit and keep the blocks' ranges and
 * f->nslots right; analyses built before no longer describe f. */
void rv_note_slot(ravel_func *f, ravel_loc l);         /* f->nslots covers l (a slot) */
uint32_t rv_block_of_inst(const ravel_func *f, uint32_t i); /* the block holding instruction i, RAVEL_NONE; O(blocks) */
/* Inserts an edit at position i, as part of block b: i is an index of b's
 * range (at most its terminator's, which stays last). */
void rv_edit_insert(ravel_func *f, uint32_t b, uint32_t i, ravel_opcode kind, ravel_loc dst, ravel_loc src);
/* The edit kind for dst := src, or 0 (RAVEL_OP_OTHER) for slot -> slot. */
static inline ravel_opcode rv_edit_kind(ravel_loc dst, ravel_loc src)
{
    if (ravel_loc_is_slot(dst)) return ravel_loc_is_slot(src) ? RAVEL_OP_OTHER : RAVEL_OP_SPILL;
    return ravel_loc_is_slot(src) ? RAVEL_OP_RELOAD : RAVEL_OP_MOVE;
}
void rv_inst_remove(ravel_func *f, uint32_t i);
void rv_inst_move_before(ravel_func *f, uint32_t p, uint32_t q); /* q to position p < q (same block): p..q-1 shift down */
void rv_inst_swap(ravel_func *f, uint32_t i, uint32_t j);         /* (same block) */
/* Replaces the stackmap of instruction i by slots[0..n) (kept sorted and
 * unique, copied to the end of f->u32). */
void rv_inst_set_stackmap(ravel_func *f, uint32_t i, const uint32_t *slots, uint32_t n);

/* ===== parse.c: the .ra reader =============================================== */
/* (ravel_module_parse in ravel.h) */
/* ravel_module_parse without its fast paths (ir/parse_fast.c, and the
 * dense label tables of ir/parse_func.c): every line read token by token,
 * every label through the hash table. The same module and diagnostics; for the test that
 * holds the two equal (tests/api/test_parse_fast.c). */
ravel_module *rv_module_parse_slow(const char *text, size_t len, const char *filename, ravel_diags *d);
/* Takes function i out of mod (mod no longer has it) and returns it, or
 * NULL if there is none: the caller owns it. Its source position fields
 * that point into the module (file, src) are cleared; its instructions keep
 * their line and column numbers. Its machine is still mod's: rebind it. */
ravel_func *rv_module_take_func(ravel_module *mod, size_t i);

/* ===== print.c: the canonical printer ========================================= */
/* (ravel_print_func, ravel_print_machine in ravel.h) */
int rv_print_module(FILE *out, const ravel_module *mod);

/* ===== cfg.c: CFG analyses (RPO, predecessors, dominators, loops) ============ */
typedef struct rv_cfg {
    uint32_t nblocks;
    uint32_t *pred_start; /* CSR: preds of b are pred[pred_start[b] .. pred_start[b+1]) (edges, with repeats) */
    uint32_t *pred;
    uint32_t *succ_start; /* CSR successors (edges, with repeats) */
    uint32_t *succ;
    uint32_t *rpo;        /* reachable blocks in reverse post-order; nrpo of them */
    uint32_t nrpo;
    uint32_t *rpo_index;  /* block -> index in rpo, RAVEL_NONE if unreachable */
    uint32_t *idom;       /* immediate dominator (entry: itself; unreachable: RAVEL_NONE) */
    uint32_t *dom_pre, *dom_post; /* dominator-tree DFS numbers (RAVEL_NONE if unreachable) */
    uint32_t *dom_start, *dom_child; /* CSR: b's dominator-tree children dom_child[dom_start[b] .. dom_start[b+1]), in RPO */
    bool reducible;       /* every retreating edge p -> b has b dominating p */
    uint32_t *loop_depth; /* loop nesting depth (0 outside loops) */
    uint32_t *loop_header;/* innermost loop header containing b, RAVEL_NONE if none */
    uint32_t *loop_parent;/* header h -> header of the innermost enclosing loop (RAVEL_NONE: outermost, or no header) */
    size_t room;          /* words of the results' block (base pred_start) */
    uint32_t *scratch;    /* rv_cfg_rebuild's scratch, kept for the next one (NULL after rv_cfg_build) */
    size_t scratch_room;
} rv_cfg;
/* Requires: a finished function. Valid input is not required: blocks without
 * a terminator have no successors, undefined successors are ignored. */
void rv_cfg_build(rv_cfg *c, const ravel_func *f);
/* The same into c's storage of an earlier build (c zeroed or built before;
 * grows it only when too small). rv_cfg_free frees it. */
void rv_cfg_rebuild(rv_cfg *c, const ravel_func *f);
void rv_cfg_free(rv_cfg *c);
/* The same analyses of a graph given by its successor lists (CSR: block
 * b's successors succ[succ_start[b] .. succ_start[b+1]), entries >= nblocks
 * ignored), for a CFG that is not (yet) a function's; block 0 is the entry. */
void rv_cfg_build_succs(rv_cfg *c, uint32_t nblocks, const uint32_t *succ_start, const uint32_t *succ);
/* The meet step of Cooper, Harvey and Kennedy's dominance algorithm, the
 * one every dominator computation uses: the nearest common dominator of
 * the blocks of RPO indices a and b, given idom[] by RPO index (idom[i] <
 * i for i > 0 reached so far, idom[0] = 0). */
static inline uint32_t rv_dom_meet(const uint32_t *idom, uint32_t a, uint32_t b)
{
    while (a != b) {
        while (a > b) a = idom[a];
        while (b > a) b = idom[b];
    }
    return a;
}
/* True if a dominates b (reflexive); false if either is unreachable. O(1). */
bool rv_cfg_dominates(const rv_cfg *c, uint32_t a, uint32_t b);
static inline uint32_t rv_cfg_npreds(const rv_cfg *c, uint32_t b) { return c->pred_start[b + 1] - c->pred_start[b]; }
static inline uint32_t rv_cfg_nsuccs(const rv_cfg *c, uint32_t b) { return c->succ_start[b + 1] - c->succ_start[b]; }

/* ===== interp.c: the concrete interpreter ==================================== */
/* Runs an unallocated function (vreg environment) or an allocated one
 * (register and slot environment, edits execute) with docs/format.md section 9's
 * semantics. */
typedef struct rv_run_opts {
    const uint64_t *inputs; /* values received by `args`; missing ones are 0 */
    size_t ninputs;
    uint64_t step_limit;    /* original instructions executed; 0 = default (1,000,000) */
    bool moving_gc;         /* model a moving collector at safepoints (section 7) */
    bool allocated;         /* run the allocated form (locations) instead of vregs */
    uint64_t undef_seed;    /* undefined values (docs/format.md section 14.2): 0, each read
                               is 0; else each read draws the next value of a stream
                               seeded by it (rv_interp_undef_seed) */
} rv_run_opts;
/* Values `out` may append in one run: past it the run stops as at the step
 * limit (rv_run_result.out_limited), so output is bounded whatever the
 * step limit. */
#define RV_RUN_OUT_LIMIT 1000000u

enum { RV_RUN_OK = 0, RV_RUN_STEP_LIMIT = 1, RV_RUN_ERROR = 2 };

typedef struct rv_run_result {
    int status;                     /* RV_RUN_* */
    RV_VEC(uint64_t) out;           /* values appended by `out`, in order */
    RV_VEC(uint32_t) out_inst;      /* for each out value, the `out` instruction id */
    RV_VEC(uint64_t) rets;          /* values returned by `ret` */
    uint64_t steps;                 /* original instructions executed */
    bool out_limited;               /* RV_RUN_STEP_LIMIT: stopped by out_limit, not step_limit */
    uint32_t err_inst;              /* RV_RUN_ERROR: instruction id, else RAVEL_NONE */
    char msg[256];                  /* RV_RUN_ERROR: what went wrong */
} rv_run_result;

/* Requires: f finished; valid (ravel_validate) for meaningful results. Never
 * crashes: on malformed input it stops with RV_RUN_ERROR. *r is overwritten
 * (pass a fresh or freed result); free it with rv_run_result_free. Returns
 * r->status. */
int rv_interp_run(const ravel_func *f, const rv_run_opts *o, rv_run_result *r);
void rv_run_result_free(rv_run_result *r);
/* Runs orig (unallocated) and alloc (allocated) on the same inputs; returns
 * true if status, outputs and results agree (a step-limit stop compares the
 * outputs produced so far). On a difference, writes a description into msg. */
bool rv_interp_compare(const ravel_func *orig, const ravel_func *alloc, const rv_run_opts *o, char *msg, size_t msglen);
/* "block b2, inst 3 (add), line 12": where instruction inst is, for messages. */
void rv_interp_where(const ravel_func *f, uint32_t inst, char *buf, size_t n);
/* Number of inputs f reads (the most defs of an `args`). */
uint32_t rv_interp_ninputs(const ravel_func *f);
/* Input vector number k of a deterministic random sequence (small, negative,
 * edge and arbitrary values) for comparing two forms. */
void rv_interp_inputs(uint64_t seed, uint64_t k, uint64_t *out, size_t n);
/* The undef_seed (never 0) that goes with input vector k of seed. */
uint64_t rv_interp_undef_seed(uint64_t seed, uint64_t k);
uint64_t rv_mix(uint64_t h, uint64_t x);   /* the format's 64-bit mix step (docs/format.md section 9.1) */
uint64_t rv_mix_str(uint64_t h, const char *s);

#endif
