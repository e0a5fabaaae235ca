/*
 * keys.c - rematerialisable definitions (R25) and their keys (R26), and
 * the ties of R14.
 *
 * A definition is `const` when its opcode is in docs/import-mapping.md
 * §5.5, it has no vreg use (counting R16's added use), and a load reads
 * invariant memory (a pool entry, a GOT entry, an immutable fixed-stack
 * object) and an LEA takes $rip or a frame index as its base. Its key names
 * the pair (bits defined, content): bits are the width of the destination's
 * location (a 32- or 64-bit write; an 8- or 16-bit write defines 8 or 16
 * bits; a store into a slot its width), the content is normalised (an
 * immediate by its value in those bits, zero and all-ones vectors, a pool
 * entry by the value post.mir prints and the width read (an entry of all
 * zero or all one bits as the zero or all-ones vector of that width), a GOT load or an
 * LEA by symbol and offset, a fixed-stack load by object, offset and
 * width). The key is the value itself for an immediate that defines 64 bits
 * of a general register, else 0x7fff000000000000 + n in order of first use;
 * a literal equal to a numbered key refuses the function (key-collision).
 *
 * Requires: the readers of the function. Guarantees: equal keys are given
 * to equal pairs only (docs/format.md §14.6, obligation 5).
 */
#include "import/imp.h"

#define KEY_BASE INT64_C(0x7fff000000000000)

static const mir_op *first_def(const mir_func *f, const mir_inst *in)
{
    return in->ndefs >= 1 ? mir_ops(f, in) : NULL;
}

static bool has_vreg_use(const mir_func *f, const mir_inst *in)
{
    for (uint32_t i = 0; i < in->nops; i++) {
        const mir_op *o = &mir_ops(f, in)[i];
        if (o->kind == MO_REG && o->vreg != RVI_NONE && !(o->flags & MOF_DEF) && !(o->flags & MOF_UNDEF)) return true;
    }
    const mir_op *d = first_def(f, in);
    return d && d->vreg != RVI_NONE && d->sub != XS_NONE && !(d->flags & MOF_UNDEF); /* R16's added use */
}

static bool is_rip(const mir_reader *r, const mir_op *o)
{
    return o->kind == MO_REG && o->preg == PR_DROP && o->nlen == 3 && memcmp(r->t.src + o->name, "rip", 3) == 0;
}

static const mir_obj *fixed_obj(const imp *x, int64_t id)
{
    const mir_func *f = x->post ? x->post : x->pre;
    for (uint32_t i = 0; i < f->fixed.len; i++)
        if (f->fixed.data[i].id == id) return &f->fixed.data[i];
    return NULL;
}

/* A frame object's number as llc numbers it after reading tag.mir. */
static int64_t canon_fi(const imp *x, const mir_reader *r, bool fixed, int64_t v)
{
    return r == x->rp ? imp_fi(x, fixed, v) : v;
}

static bool sym_operand(const mir_op *o)
{
    return o->kind == MO_GLOBAL || o->kind == MO_SYM;
}

/* An invariant load: operands def, base, scale, index, disp, segment. */
static bool invariant_load(const imp *x, const mir_reader *r, const mir_func *f, const mir_inst *in)
{
    if (in->nops < 6 || in->nmem != 1) return false;
    const mir_op *o = mir_ops(f, in);
    const mir_mem *m = &f->mems.data[in->mem0];
    if (m->store) return false;
    if (is_rip(r, &o[1]) && o[4].kind == MO_CPI) return m->what == MO_CPI;
    if (is_rip(r, &o[1]) && o[4].kind == MO_GLOBAL) return m->what == MO_GLOBAL || m->invariant; /* got, or invariant */
    if (o[1].kind == MO_FIXED) {
        const mir_obj *ob = fixed_obj(x, canon_fi(x, r, true, o[1].val));
        return ob && ob->immutable && m->what == MO_FIXED;
    }
    return false;
}

bool imp_is_const(const imp *x, const mir_reader *r, const mir_func *f, const mir_inst *in)
{
    enum x86_remat k = x86_remat_kind(mir_opc(r, in));
    if (k == XR_NO || in->ndefs != 1 || has_vreg_use(f, in)) return false;
    const mir_op *o = mir_ops(f, in);
    if (o[0].kind != MO_REG) return false;
    switch (k) {
    case XR_IMM: {
        uint64_t v;
        unsigned bits;
        bool has_imm = in->nops > 1 && o[1].kind == MO_IMM;
        if (in->nops > 1 && sym_operand(&o[1])) return true; /* MOV32ri64 @g: an address */
        return x86_imm_move(mir_opc(r, in), has_imm, has_imm ? o[1].val : 0, &v, &bits);
    }
    case XR_VZERO: case XR_VONES:
        return true;
    case XR_LOAD:
        return invariant_load(x, r, f, in);
    case XR_LEA:
        return in->nops >= 6 && (is_rip(r, &o[1]) || o[1].kind == MO_FI || o[1].kind == MO_FIXED);
    default:
        return false;
    }
}

/* ----- the key table ----- */
static int64_t key_of(imp *x, const char *name, bool literal, uint64_t value)
{
    for (uint32_t i = 0; i < x->key.names.len; i++)
        if (strcmp(x->key.names.data[i], name) == 0) return (int64_t)x->key.vals.data[i];
    uint64_t k = literal ? value : (uint64_t)(KEY_BASE + ++x->key.next);
    for (uint32_t i = 0; i < x->key.vals.len; i++)
        if (x->key.vals.data[i] == k)
            imp_refuse(x, "key-collision", "the literal key %lld equals a numbered one (R26)", (long long)k);
    rv_vec_push(x->key.names, rv_arena_strndup(&x->arena, name, strlen(name)));
    rv_vec_push(x->key.vals, k);
    return (int64_t)k;
}

static uint64_t mask(uint64_t v, unsigned bits)
{
    return bits >= 64 ? v : v & ((UINT64_C(1) << bits) - 1);
}

/* One scalar element "T V" of a pool value: 0 other, 1 all zero bits, 2
 * all one bits (integers only: a float's all-ones pattern is a NaN that
 * post.mir prints in hex, left as other). */
static int elem_kind(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] != ' ') i++; /* the type */
    bool integer = n > 1 && s[0] == 'i';
    while (i < n && s[i] == ' ') i++;
    const char *v = s + i;
    size_t vn = n - i;
    while (vn > 0 && v[vn - 1] == ' ') vn--;
    if ((vn == 1 && v[0] == '0') || (vn == 12 && !memcmp(v, "0.000000e+00", 12))) return 1;
    if (integer && vn == 2 && !memcmp(v, "-1", 2)) return 2;
    return 0;
}

/* The content of a pool value text ("T V", "<N x T> zeroinitializer",
 * "<N x T> <T V, ...>", maybe quoted): 1 all zero bits, 2 all one bits,
 * 0 anything else. Such an entry is keyed like V_SET0 / V_SETALLONES of
 * the width read, so that a fold of a rematerialised zero or all-ones
 * into a pool load (LLVM makes the entry when it folds one) keeps the
 * value's key (docs/import.md, Decisions). */
static int pool_kind(const char *s, size_t n)
{
    if (n >= 2 && (s[0] == '\'' || s[0] == '"')) s++, n -= 2;
    if (n >= 15 && !memcmp(s + n - 15, "zeroinitializer", 15)) return 1;
    if (n == 0 || s[0] != '<') return elem_kind(s, n);
    const char *lt = memchr(s + 1, '<', n - 1);
    if (!lt || s[n - 1] != '>') return 0;
    const char *e = lt + 1, *end = s + n - 1;
    int kind = -1;
    while (e < end) {
        const char *c = memchr(e, ',', (size_t)(end - e));
        if (!c) c = end;
        while (e < c && *e == ' ') e++;
        int k = elem_kind(e, (size_t)(c - e));
        if (k == 0 || (kind >= 0 && k != kind)) return 0;
        kind = k;
        e = c + 1;
    }
    return kind < 0 ? 0 : kind;
}

int64_t imp_key_pool(imp *x, int64_t index, unsigned bits)
{
    char name[512];
    const mir_func *f = x->post;
    const char *val = "?";
    uint32_t n = 1;
    if (f && index >= 0 && (uint64_t)index * 2 + 1 < f->consts.len) {
        val = x->rpost->t.src + f->consts.data[2 * index];
        n = f->consts.data[2 * index + 1];
    }
    int pk = pool_kind(val, n);
    if (pk) snprintf(name, sizeof name, "%u:%s", bits, pk == 1 ? "vzero" : "vones");
    else snprintf(name, sizeof name, "%u:cp:%.*s", bits, (int)(n > 400 ? 400 : n), val);
    return key_of(x, name, false, 0);
}

int64_t imp_key_imm(imp *x, uint64_t value, unsigned bits, bool gpr)
{
    char name[64];
    value = mask(value, bits);
    snprintf(name, sizeof name, "%u:imm:%llx", bits, (unsigned long long)value);
    return key_of(x, name, gpr && bits == 64, value);
}

int64_t imp_key_fixed(imp *x, int64_t index, int64_t disp, unsigned bits, unsigned membits)
{
    char name[128];
    snprintf(name, sizeof name, "%u:fixed:%lld:%lld:%u", bits, (long long)index, (long long)disp, membits);
    return key_of(x, name, false, 0);
}

/* The size of an IR constant's type: double, <4 x i32>, ... (0 unknown). */
static unsigned type_bits(const char *s, size_t n)
{
    static const struct {
        const char *t;
        unsigned b;
    } t[] = {{"double", 64}, {"float", 32}, {"half", 16}, {"bfloat", 16}, {"fp128", 128}, {"x86_fp80", 80}, {"ptr", 64}};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (n >= strlen(t[i].t) && !memcmp(s, t[i].t, strlen(t[i].t))) return t[i].b;
    size_t k = 1;
    int64_t v;
    if (n > 1 && s[0] == 'i' && mir_scan_int(s, n, &k, &v) && v > 0 && v <= 4096) return (unsigned)v;
    k = 1;
    if (n > 1 && s[0] == '<' && mir_scan_int(s, n, &k, &v) && v > 0 && v <= 64 && k + 3 < n && !memcmp(s + k, " x ", 3))
        return (unsigned)v * type_bits(s + k + 3, n - k - 3);
    return 0;
}

unsigned imp_pool_bits(const imp *x, int64_t index)
{
    const mir_func *f = x->post;
    if (!f || index < 0 || (uint64_t)index * 2 + 1 >= f->consts.len) return 0;
    return type_bits(x->rpost->t.src + f->consts.data[2 * index], f->consts.data[2 * index + 1]);
}

static void sym_text(const mir_reader *r, const mir_op *o, char *buf, size_t n)
{
    snprintf(buf, n, "%s%.*s%+lld", o->kind == MO_GLOBAL ? "@" : "&", (int)(o->nlen > 300 ? 300 : o->nlen), r->t.src + o->name,
             (long long)o->off);
}

void imp_global_name(const mir_reader *r, const mir_op *o, char *buf, size_t n)
{
    sym_text(r, o, buf, n);
}

int64_t imp_key_global(imp *x, const mir_reader *r, const mir_op *o, bool got, unsigned bits, unsigned membits)
{
    char name[512], sym[400];
    sym_text(r, o, sym, sizeof sym);
    snprintf(name, sizeof name, "%u:%s:%s:%u", bits, got ? "got" : "glob", sym, membits);
    return key_of(x, name, false, 0);
}

int64_t imp_key(imp *x, const mir_reader *r, const mir_func *f, const mir_inst *in, unsigned bits, bool gpr)
{
    const char *opc = mir_opc(r, in);
    const mir_op *o = mir_ops(f, in);
    char name[512], sym[400];
    switch (x86_remat_kind(opc)) {
    case XR_IMM: {
        uint64_t v;
        unsigned ob;
        bool has_imm = in->nops > 1 && o[1].kind == MO_IMM;
        if (in->nops > 1 && sym_operand(&o[1])) {
            sym_text(r, &o[1], sym, sizeof sym);
            snprintf(name, sizeof name, "%u:addr:%s", bits, sym);
            return key_of(x, name, false, 0);
        }
        x86_imm_move(opc, has_imm, has_imm ? o[1].val : 0, &v, &ob);
        return imp_key_imm(x, v, ob >= 32 ? bits : ob, gpr);
    }
    case XR_VZERO: case XR_VONES:
        snprintf(name, sizeof name, "%u:%s", bits, x86_remat_kind(opc) == XR_VZERO ? "vzero" : "vones");
        return key_of(x, name, false, 0);
    case XR_LOAD: {
        const mir_mem *m = &f->mems.data[in->mem0];
        if (o[4].kind == MO_CPI) return imp_key_pool(x, o[4].val, m->bits);
        if (o[4].kind == MO_GLOBAL) return imp_key_global(x, r, &o[4], m->what == MO_GLOBAL, bits, m->bits);
        return imp_key_fixed(x, canon_fi(x, r, true, o[1].val), o[4].kind == MO_IMM ? o[4].val : 0, bits, m->bits);
    }
    case XR_LEA:
        if (o[1].kind == MO_FI || o[1].kind == MO_FIXED)
            snprintf(name, sizeof name, "%u:lea:%s%lld:%lld", bits, o[1].kind == MO_FI ? "fi" : "fixed", (long long)canon_fi(x, r, o[1].kind == MO_FIXED, o[1].val),
                     (long long)(o[4].kind == MO_IMM ? o[4].val : 0));
        else {
            if (o[4].kind == MO_GLOBAL || o[4].kind == MO_SYM) sym_text(r, &o[4], sym, sizeof sym);
            else snprintf(sym, sizeof sym, "%.*s", (int)(o[4].len > 300 ? 300 : o[4].len), r->t.src + o[4].pos);
            snprintf(name, sizeof name, "%u:lea:%s", bits, sym);
        }
        return key_of(x, name, false, 0);
    default:
        return key_of(x, "?", false, 0);
    }
}

/* ----- R14: ties, learnt from the dumps in terms of pre operands ----- */
static void add_tie(imp *x, uint32_t opc, uint32_t d, uint32_t u)
{
    for (uint32_t i = 0; i + 2 < x->ties.len; i += 3)
        if (x->ties.data[i] == opc && x->ties.data[i + 1] == d) return;
    rv_vec_push(x->ties, opc);
    rv_vec_push(x->ties, d);
    rv_vec_push(x->ties, u);
}

/* Each tied use of q (the dump's line of original p, operand map `map`,
 * NULL for the identity) as a tie between p's operands. */
static void learn(imp *x, const mir_inst *p, const mir_func *qf, const mir_inst *q, const int32_t *map)
{
    for (uint32_t j = 0; j < q->nops; j++) {
        const mir_op *o = &mir_ops(qf, q)[j];
        if (o->kind != MO_REG || o->tied < 0 || (o->flags & MOF_DEF)) continue;
        int32_t pu = -1, pd = -1;
        for (uint32_t i = 0; i < p->nops; i++) {
            int32_t m = map ? map[i] : (int32_t)i;
            if (m == (int32_t)j) pu = (int32_t)i;
            if (m == o->tied) pd = (int32_t)i;
        }
        if (pu >= 0 && pd >= 0) add_tie(x, p->opc, (uint32_t)pd, (uint32_t)pu);
    }
}

void imp_learn_ties(imp *x)
{
    const mir_func *f = x->pre;
    for (uint32_t k = 0; k < f->insts.len; k++) {
        const mir_inst *p = &f->insts.data[k];
        if (x->alloc == RVI_FAST) {
            if (x->fast_before && x->fast_before[k] && x->fast_before[k]->nops == p->nops) learn(x, p, x->bf, x->fast_before[k], NULL);
            continue;
        }
        uint32_t ri = x->aligned[k];
        if (ri == RVI_NONE || x->rs.data[ri].fold_copy || !x->rs.data[ri].v) continue;
        learn(x, p, x->bf, x->rs.data[ri].v, x->rs.data[ri].map);
    }
}

int imp_tied_use(const imp *x, const mir_inst *p, uint32_t def)
{
    for (uint32_t i = 0; i + 2 < x->ties.len; i += 3)
        if (x->ties.data[i] == p->opc && x->ties.data[i + 1] == def) return (int)x->ties.data[i + 2];
    return -1;
}
