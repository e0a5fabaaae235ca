/* gen_machine.c - the generator's options, feature names, and the random
 * machine description (the choice source is gen_src.c, the function
 * gen_func.c, the entry points gen_module.c).
 *
 * Requires: nothing of its input; every byte string is accepted.
 * Guarantees: a module with one machine (1-3 classes named int, float, vec;
 * min_regs..max_regs allocatable registers each; sometimes reserved
 * registers; a default clobber set; gc moving or nonmoving) and one
 * function built by gen_func.c. Deterministic in (bytes, options); the
 * same on every platform (multi-byte values are assembled byte by byte or
 * read little-endian explicitly).
 */
#include "fuzz/gen_machine.h"

#include <stdlib.h>
#include <string.h>

/* ---- options and feature names ---- */

void rv_gen_opts_default(rv_gen_opts *o)
{
    memset(o, 0, sizeof *o); /* fields added later default to 0 */
    o->max_insts = 200;
    o->max_blocks = 24;
    o->min_regs = 1;
    o->max_regs = 32;
    o->pressure = 50;
    o->features = RAVEL_GEN_DEFAULT; /* section 14 (RV_GEN_EXT) on: see ravel_gen.h */
}

static const struct { const char *name; unsigned bit; } features[] = {
    {"loops", RV_GEN_LOOPS},       {"multiway", RV_GEN_MULTIWAY},
    {"params", RV_GEN_PARAMS},     {"fixed", RV_GEN_FIXED},
    {"reuse", RV_GEN_REUSE},       {"early-late", RV_GEN_EARLY_LATE},
    {"any-stack", RV_GEN_ANY_STACK}, {"calls", RV_GEN_CALLS},
    {"safepoints", RV_GEN_SAFEPOINTS}, {"copy", RV_GEN_COPY},
    {"classes", RV_GEN_CLASSES},
    {"alias", RV_GEN_ALIAS},       {"undef", RV_GEN_UNDEF},
    {"remat", RV_GEN_REMAT},
};

unsigned rv_gen_feature_bit(const char *name)
{
    for (size_t i = 0; i < sizeof features / sizeof *features; i++)
        if (strcmp(features[i].name, name) == 0) return features[i].bit;
    return 0;
}

const char *rv_gen_feature_name(size_t i)
{
    return i < sizeof features / sizeof *features ? features[i].name : NULL;
}

int rv_gen_cfg_parse(const char *name)
{
    if (strcmp(name, "any") == 0) return RV_GEN_CFG_ANY;
    if (strcmp(name, "structured") == 0) return RV_GEN_CFG_STRUCTURED;
    return -1;
}

rv_gen_opts rv_gen_clamp_opts(const rv_gen_opts *in)
{
    rv_gen_opts o;
    if (in) o = *in; else rv_gen_opts_default(&o);
    if (o.max_insts < 1) o.max_insts = 1;
    if (o.max_insts > RV_MAX_INSTS / 2) o.max_insts = RV_MAX_INSTS / 2;
    if (o.max_blocks < 1) o.max_blocks = 1;
    if (o.max_blocks > o.max_insts) o.max_blocks = o.max_insts;
    if (o.min_insts > o.max_insts) o.min_insts = o.max_insts;
    if (o.min_regs < 1) o.min_regs = 1;
    if (o.max_regs > RV_GEN_MAX_CLASS_REGS) o.max_regs = RV_GEN_MAX_CLASS_REGS;
    if (o.min_regs > RV_GEN_MAX_CLASS_REGS) o.min_regs = RV_GEN_MAX_CLASS_REGS;
    if (o.max_regs < o.min_regs) o.max_regs = o.min_regs;
    if (o.pressure > 100) o.pressure = 100;
    o.features &= RV_GEN_ALL | RV_GEN_EXT;
    if (o.cfg != RV_GEN_CFG_STRUCTURED) o.cfg = RV_GEN_CFG_ANY;
    return o;
}

/* ---- machine ---- */

static const char *const class_names[RV_GEN_MAX_CLASSES] = {"int", "float", "vec"};
static const char class_prefix[RV_GEN_MAX_CLASSES] = {'r', 'f', 'x'};
static const char *const reserved_names[RV_GEN_MAX_CLASSES][RV_GEN_MAX_RESERVED] = {
    {"sp", "fp"}, {"fz", "ft"}, {"xz", "xt"}};

/* Register names r0..r63 (f.., x..) without printf: the prefix letter and
 * the decimal number; returns the length. */
static uint32_t reg_name(char *buf, char prefix, uint32_t n)
{
    char *p = buf;
    *p++ = prefix;
    if (n >= 10) *p++ = (char)('0' + n / 10);
    *p++ = (char)('0' + n % 10);
    *p = 0;
    return (uint32_t)(p - buf);
}

/* Allocatable register count: half the time anywhere in the range, half the
 * time in its lowest quarter (small machines make pressure interesting). */
static uint32_t pick_nregs(rv_gen_src *s, const rv_gen_opts *o)
{
    uint32_t span = o->max_regs - o->min_regs + 1;
    if (rv_gen_chance(s, 50)) span = (span + 3) / 4;
    return o->min_regs + rv_gen_below(s, span);
}

/* The machine is written straight into its arrays, sized once: what
 * ravel_machine_add_class / add_reg / set_clobbers do (ir/machine.c), without
 * their argument checks, growth and sort (the names here are unique and the
 * clobber list is built in register order). Keeps machine.c's invariants:
 * every name is a symbol of m->names, name_reg / name_class map each symbol
 * to its register / class or -1, a class lists its allocatable registers in
 * order, clobbers are sorted and unique. */
static uint32_t mach_name(ravel_machine *m, const char *name, uint32_t len, int32_t reg, int32_t cls)
{
    uint32_t sym = rv_sym_intern(&m->names, name, len);
    while (m->name_reg.len <= sym) { /* once per name: the names are new */
        m->name_reg.data[m->name_reg.len++] = -1;
        m->name_class.data[m->name_class.len++] = -1;
    }
    if (reg >= 0) m->name_reg.data[sym] = reg;
    if (cls >= 0) m->name_class.data[sym] = cls;
    return sym;
}

static void mach_reg(ravel_machine *m, const char *name, uint32_t len, uint32_t cls, bool reserved)
{
    uint32_t id = m->regs.len;
    uint32_t sym = mach_name(m, name, len, (int32_t)id, -1);
    rv_reg r = {rv_sym_str(&m->names, sym), (uint8_t)cls, reserved};
    m->regs.data[m->regs.len++] = r;
    if (!reserved) m->classes.data[cls].alloc.data[m->classes.data[cls].alloc.len++] = id;
}

/* Class c with n allocatable and nres reserved registers (room reserved). */
static void mach_class(ravel_machine *m, rv_gen_mach *gm, uint32_t c, uint32_t n, uint32_t nres)
{
    char buf[8];
    rv_class k;
    memset(&k, 0, sizeof k);
    uint32_t sym = mach_name(m, class_names[c], (uint32_t)strlen(class_names[c]), -1, (int32_t)c);
    k.name = rv_sym_str(&m->names, sym);
    rv_vec_reserve(k.alloc, n);
    m->classes.data[m->classes.len++] = k;
    gm->nalloc[c] = n;
    for (uint32_t i = 0; i < n; i++) {
        gm->alloc[c][i] = m->regs.len;
        mach_reg(m, buf, reg_name(buf, class_prefix[c], i), c, false);
    }
    gm->nres[c] = nres;
    for (uint32_t i = 0; i < nres; i++) {
        gm->res[c][i] = m->regs.len;
        mach_reg(m, reserved_names[c][i], 2, c, true);
    }
}

/* Default clobbers of `call`: none, all allocatable, a caller-saved prefix
 * of each class, or a random subset (register order: sorted, unique). */
static void pick_clobbers(rv_gen_src *s, ravel_machine *m, rv_gen_mach *gm)
{
    uint32_t mode = rv_gen_below(s, 4), n = 0;
    rv_vec_reserve(m->clobbers, m->regs.len);
    for (uint32_t c = 0; c < gm->ncls; c++) {
        uint32_t prefix = rv_gen_below(s, gm->nalloc[c] + 1);
        uint64_t bits = mode == 3 ? rv_gen_bits(s) : 0;
        for (uint32_t i = 0; i < gm->nalloc[c]; i++) {
            bool in = mode == 1 || (mode == 2 && i < prefix) || (mode == 3 && ((bits >> i) & 1));
            if (in) m->clobbers.data[n++] = gm->alloc[c][i];
        }
    }
    m->clobbers.len = n;
    gm->clob = m->clobbers.data;
    gm->nclob = n;
}

/* ---- register containment (docs/format.md section 14.1) ---- */

/* x86-64's names of its general registers (but rsp and rbp) at 64, 32, 16
 * and 8 bits; the next ones follow r8's pattern from r16 on (rN, rNd, rNw,
 * rNb, as APX's r16..r31). */
#define X86_NAMED 14
static const char *const x86_names[X86_NAMED][4] = {
    {"rax", "eax", "ax", "al"}, {"rcx", "ecx", "cx", "cl"}, {"rdx", "edx", "dx", "dl"},
    {"rbx", "ebx", "bx", "bl"}, {"rsi", "esi", "si", "sil"}, {"rdi", "edi", "di", "dil"},
    {"r8", "r8d", "r8w", "r8b"}, {"r9", "r9d", "r9w", "r9b"}, {"r10", "r10d", "r10w", "r10b"},
    {"r11", "r11d", "r11w", "r11b"}, {"r12", "r12d", "r12w", "r12b"}, {"r13", "r13d", "r13w", "r13b"},
    {"r14", "r14d", "r14w", "r14b"}, {"r15", "r15d", "r15w", "r15b"}};
static const char *const x86_high[4] = {"ah", "ch", "dh", "bh"};

/* Register id's name no longer names it (before it is renamed). */
static void unname_reg(ravel_machine *m, uint32_t id)
{
    uint32_t old = rv_sym_find(&m->names, m->regs.data[id].name, strlen(m->regs.data[id].name));
    if (old != RAVEL_NONE) m->name_reg.data[old] = -1;
}

/* Gives register id the name s. */
static void rename_reg(ravel_machine *m, uint32_t id, const char *s)
{
    unname_reg(m, id);
    uint32_t sym = mach_name(m, s, (uint32_t)strlen(s), (int32_t)id, -1);
    m->regs.data[id].name = rv_sym_str(&m->names, sym);
}

/* A reserved register of class c named s (after every other register:
 * the view gm does not list it, so no operand is ever fixed to it). */
static uint32_t part_reg(ravel_machine *m, uint32_t c, const char *s)
{
    uint32_t id = m->regs.len;
    mach_reg(m, s, (uint32_t)strlen(s), c, true);
    return id;
}

/* r contains each of in[0..n) (every pair listed: nothing is inferred). */
static void contains(ravel_machine *m, uint32_t r, const uint32_t *in, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) rv_mach_add_containment(m, r, in[k]);
}

/* Class 0 becomes x86-64-like: its allocatable registers take the 64-bit
 * names and contain their 32-, 16- and 8-bit parts (and the first four
 * their high bytes, in the 16-bit part but not in the low byte). */
static void alias_x86(ravel_machine *m, const rv_gen_mach *gm)
{
    char b[4][12];
    for (uint32_t i = 0; i < gm->nalloc[0]; i++) unname_reg(m, gm->alloc[0][i]); /* (r8 may be a new name already) */
    for (uint32_t i = 0; i < gm->nalloc[0]; i++) {
        const char *nm[4];
        for (int w = 0; w < 4; w++) {
            if (i < X86_NAMED) nm[w] = x86_names[i][w];
            else {
                snprintf(b[w], sizeof b[w], "r%u%s", (unsigned)i + 2, w == 0 ? "" : w == 1 ? "d" : w == 2 ? "w" : "b");
                nm[w] = b[w];
            }
        }
        uint32_t r = gm->alloc[0][i], p[4];
        m->regs.data[r].name = rv_sym_str(&m->names, mach_name(m, nm[0], (uint32_t)strlen(nm[0]), (int32_t)r, -1));
        for (int w = 1; w < 4; w++) p[w - 1] = part_reg(m, 0, nm[w]);
        p[3] = i < 4 ? part_reg(m, 0, x86_high[i]) : RAVEL_NONE;
        uint32_t np = i < 4 ? 4 : 3;
        contains(m, r, p, np);        /* rax: eax ax al ah */
        contains(m, p[0], p + 1, np - 1); /* eax: ax al ah */
        contains(m, p[1], p + 2, np - 2); /* ax: al ah */
    }
}

/* Class 1 becomes AArch64-like: its registers are the 64-bit d0, d1, ...
 * and contain their 16-bit (h) and 8-bit (b) parts (not the 32-bit s0:
 * that name reads as a spill slot in the format). */
static void alias_a64(ravel_machine *m, const rv_gen_mach *gm)
{
    char b[12];
    for (uint32_t i = 0; i < gm->nalloc[1]; i++) {
        uint32_t r = gm->alloc[1][i], p[2];
        snprintf(b, sizeof b, "d%u", (unsigned)i);
        rename_reg(m, r, b);
        snprintf(b, sizeof b, "h%u", (unsigned)i);
        p[0] = part_reg(m, 1, b);
        snprintf(b, sizeof b, "b%u", (unsigned)i);
        p[1] = part_reg(m, 1, b);
        contains(m, r, p, 2);
        contains(m, p[0], p + 1, 1);
    }
}

/* The width names of section 14.1, as reserved registers after all the
 * others: the allocatable registers overlap no other allocatable register,
 * and the function (built on gm) names no part; what may write a part is
 * an allocator, an importer or an injected bug. */
static void alias_machine(ravel_machine *m, const rv_gen_mach *gm)
{
    uint32_t nparts = 5 * gm->nalloc[0] + (gm->ncls > 1 ? 3 * gm->nalloc[1] : 0);
    rv_vec_reserve(m->regs, nparts);
    rv_vec_reserve(m->name_reg, nparts);
    rv_vec_reserve(m->name_class, nparts);
    alias_x86(m, gm);
    if (gm->ncls > 1) alias_a64(m, gm);
}

ravel_machine *rv_gen_machine(rv_gen_src *s, const rv_gen_opts *o, rv_gen_mach *gm)
{
    memset(gm, 0, sizeof *gm);
    ravel_machine *m = ravel_machine_new();
    gm->m = m;
    gm->ncls = (o->features & RV_GEN_CLASSES) ? 1 + rv_gen_below(s, RV_GEN_MAX_CLASSES) : 1;
    /* first the sizes (reserved registers: class int often - sp, fp - the others sometimes) */
    uint32_t n[RV_GEN_MAX_CLASSES], nres[RV_GEN_MAX_CLASSES], nregs = 0;
    for (uint32_t c = 0; c < gm->ncls; c++) {
        n[c] = pick_nregs(s, o);
        nres[c] = 0;
        if (o->features & RV_GEN_FIXED) {
            nres[c] = rv_gen_below(s, c == 0 ? 3 : 2);
            if (c == 0 && nres[c] == 0 && rv_gen_chance(s, 50)) nres[c] = 1;
        }
        nregs += n[c] + nres[c];
    }
    rv_vec_reserve(m->classes, gm->ncls);
    rv_vec_reserve(m->regs, nregs);
    rv_vec_reserve(m->name_reg, gm->ncls + nregs);
    rv_vec_reserve(m->name_class, gm->ncls + nregs);
    rv_vec_reserve(m->names.strs, gm->ncls + nregs);
    rv_vec_reserve(m->names.lens, gm->ncls + nregs);
    for (uint32_t c = 0; c < gm->ncls; c++) mach_class(m, gm, c, n[c], nres[c]);
    if (o->features & RV_GEN_CALLS) pick_clobbers(s, m, gm);
    m->gc_nonmoving = !rv_gen_chance(s, 50);
    /* the last draw, so that a machine without containment is the one it was */
    if ((o->features & RV_GEN_ALIAS) && rv_gen_chance(s, 50)) alias_machine(m, gm);
    return m;
}

/* ---- entry points ---- */


unsigned rv_gen_view_machine(const ravel_machine *m, unsigned wanted, rv_gen_mach *gm, char *why, size_t whylen)
{
    memset(gm, 0, sizeof *gm);
    gm->m = m;
    if (why && whylen) why[0] = 0;
    uint32_t k = 0, lim = (wanted & RV_GEN_CLASSES) ? RV_GEN_MAX_CLASSES : 1;
    while (k < lim && k < m->classes.len && m->classes.data[k].alloc.len) k++;
    gm->ncls = k;
    for (uint32_t c = 0; c < k; c++) {
        const rv_class *cl = &m->classes.data[c];
        uint32_t n = cl->alloc.len < RV_GEN_MAX_CLASS_REGS ? cl->alloc.len : RV_GEN_MAX_CLASS_REGS;
        gm->nalloc[c] = n;
        for (uint32_t i = 0; i < n; i++) gm->alloc[c][i] = cl->alloc.data[i];
    }
    for (uint32_t r = 0; r < m->regs.len; r++) {
        uint32_t c = m->regs.data[r].cls;
        if (c < k && m->regs.data[r].reserved && gm->nres[c] < RV_GEN_MAX_RESERVED) gm->res[c][gm->nres[c]++] = r;
    }
    gm->nclob = m->clobbers.len;
    gm->clob = m->clobbers.data;
    unsigned got = wanted & (RV_GEN_ALL | RV_GEN_UNDEF | RV_GEN_REMAT); /* (alias: a drawn machine's) */
    if (k == 0) {
        if (why && whylen && got)
            snprintf(why, whylen, "all features off: %s",
                     m->classes.len ? "class 0 has no allocatable register (the function is a plain ret)"
                                    : "the machine has no class (the function is a plain ret)");
        return 0;
    }
    if ((got & RV_GEN_CLASSES) && k < 2) {
        got &= ~(unsigned)RV_GEN_CLASSES;
        if (why && whylen)
            snprintf(why, whylen, "classes off: %s",
                     m->classes.len < 2 ? "the machine has one class" : "class 1 has no allocatable register");
    }
    return got;
}

unsigned rv_gen_view_features(const ravel_machine *m, unsigned wanted, char *why, size_t whylen)
{
    if (!m) {
        if (why && whylen) why[0] = 0;
        return wanted & (RV_GEN_ALL | RV_GEN_EXT);
    }
    rv_gen_mach gm;
    return rv_gen_view_machine(m, wanted, &gm, why, whylen);
}
