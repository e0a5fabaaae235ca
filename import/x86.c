/*
 * x86.c - docs/import-mapping.md §5 as data: the x86-64 registers with their
 * names, widths and containment (§5.1), LLVM's register classes (§5.2), the
 * spill and reload opcodes (§5.3), csr_64 (§5.4) and the rematerialisable
 * instructions (§5.5).
 *
 * Requires: nothing. Guarantees: every table is constant data; containment
 * is computed from bit ranges of one row (a name contains another exactly
 * when its range includes the other's), so it is complete and true by
 * construction (docs/format.md §14.6, obligation 1;
 * tests/import/test_import.c checks it against the ranges independently).
 */
#include "import/import.h"

#define GPR(a, b, c, d, e, row) \
    {a, XK_GPR, row, 64, 0}, {b, XK_GPR, row, 32, 0}, {c, XK_GPR, row, 16, 0}, {d, XK_GPR, row, 8, 0}, {e, XK_GPR, row, 8, 8}
#define GPRX(a, b, c, d, row) \
    {a, XK_GPR, row, 64, 0}, {b, XK_GPR, row, 32, 0}, {c, XK_GPR, row, 16, 0}, {d, XK_GPR, row, 8, 0}, {NULL, XK_NONE, row, 0, 0}
#define VEC(n) \
    {"ymm" #n, XK_VEC, n, 256, 0}, {"xmm" #n, XK_VEC, n, 128, 0}, {"xd" #n, XK_VEC, n, 64, 0}, {"xs" #n, XK_VEC, n, 32, 0}

/* Register id = X86_GPR0 + 5*row + k (k: 64, 32, 16, low 8, high 8 bits)
 * or X86_VEC0 + 4*N + k (k: ymm, xmm, xd, xs) or X86_EFLAGS. */
static const x86_reg regs[X86_NREGS] = {
    GPR("rax", "eax", "ax", "al", "ah", 0),
    GPR("rcx", "ecx", "cx", "cl", "ch", 1),
    GPR("rdx", "edx", "dx", "dl", "dh", 2),
    GPR("rbx", "ebx", "bx", "bl", "bh", 3),
    GPRX("rsi", "esi", "si", "sil", 4),
    GPRX("rdi", "edi", "di", "dil", 5),
    GPRX("rbp", "ebp", "bp", "bpl", 6),
    GPRX("rsp", "esp", "sp", "spl", 7),
    GPRX("r8", "r8d", "r8w", "r8b", 8),
    GPRX("r9", "r9d", "r9w", "r9b", 9),
    GPRX("r10", "r10d", "r10w", "r10b", 10),
    GPRX("r11", "r11d", "r11w", "r11b", 11),
    GPRX("r12", "r12d", "r12w", "r12b", 12),
    GPRX("r13", "r13d", "r13w", "r13b", 13),
    GPRX("r14", "r14d", "r14w", "r14b", 14),
    GPRX("r15", "r15d", "r15w", "r15b", 15),
    VEC(0), VEC(1), VEC(2), VEC(3), VEC(4), VEC(5), VEC(6), VEC(7),
    VEC(8), VEC(9), VEC(10), VEC(11), VEC(12), VEC(13), VEC(14), VEC(15),
    {"eflags", XK_FLAGS, 0, 32, 0},
};

const x86_reg *x86_reg_at(unsigned id)
{
    return id < X86_NREGS && regs[id].name ? &regs[id] : NULL;
}

static bool name_is(const char *s, size_t n, const char *name)
{
    if (!name || (n && name[0] != s[0])) return false; /* most names differ in their first letter */
    return strlen(name) == n && memcmp(s, name, n) == 0;
}

int x86_reg_find(const char *s, size_t n)
{
    for (unsigned i = 0; i < X86_NREGS; i++)
        if (name_is(s, n, regs[i].name)) return (int)i;
    return -1;
}

bool x86_contains(unsigned a, unsigned b)
{
    const x86_reg *ra = x86_reg_at(a), *rb = x86_reg_at(b);
    if (!ra || !rb || a == b || ra->kind != rb->kind || ra->row != rb->row) return false;
    return ra->lo <= rb->lo && rb->lo + rb->width <= ra->lo + ra->width;
}

bool x86_overlaps(unsigned a, unsigned b)
{
    return x86_contains(a, b) || x86_contains(b, a);
}

int x86_at_width(unsigned id, unsigned width)
{
    const x86_reg *r = x86_reg_at(id);
    if (!r) return -1;
    if (r->kind == XK_FLAGS) return width == 0 || width == 32 ? (int)id : -1;
    unsigned base = r->kind == XK_GPR ? X86_GPR0 + 5u * r->row : X86_VEC0 + 4u * r->row;
    unsigned n = r->kind == XK_GPR ? 4 : 4; /* the high byte is never "from bit 0" */
    for (unsigned k = 0; k < n; k++)
        if (regs[base + k].name && regs[base + k].width == width && regs[base + k].lo == 0) return (int)(base + k);
    return -1;
}

int x86_row_top(unsigned id)
{
    const x86_reg *r = x86_reg_at(id);
    if (!r) return -1;
    if (r->kind == XK_FLAGS) return (int)id;
    return (int)(r->kind == XK_GPR ? X86_GPR0 + 5u * r->row : X86_VEC0 + 4u * r->row);
}

enum x86_rc x86_reg_rc(unsigned id)
{
    const x86_reg *r = x86_reg_at(id);
    return !r || r->kind == XK_GPR ? RC_GPR : r->kind == XK_VEC ? RC_XMM : RC_FLAGS;
}

/* ----- sub-register indexes ----- */
static const struct {
    const char *name;
    enum x86_sub sub;
    unsigned width, lo;
} subs[] = {
    {"sub_8bit", XS_8BIT, 8, 0},   {"sub_8bit_hi", XS_8BIT_HI, 8, 8}, {"sub_16bit", XS_16BIT, 16, 0},
    {"sub_32bit", XS_32BIT, 32, 0}, {"sub_xmm", XS_XMM, 128, 0},
};

enum x86_sub x86_sub_find(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof subs / sizeof *subs; i++)
        if (name_is(s, n, subs[i].name)) return subs[i].sub;
    return XS_OTHER;
}

unsigned x86_sub_width(enum x86_sub s)
{
    for (size_t i = 0; i < sizeof subs / sizeof *subs; i++)
        if (subs[i].sub == s) return subs[i].width;
    return 0;
}

int x86_subreg(unsigned id, enum x86_sub s)
{
    const x86_reg *r = x86_reg_at(id);
    if (!r) return -1;
    for (size_t i = 0; i < sizeof subs / sizeof *subs; i++) {
        if (subs[i].sub != s) continue;
        bool vec = s == XS_XMM;
        if ((r->kind == XK_VEC) != vec || r->kind == XK_FLAGS || subs[i].width >= r->width || r->lo) return -1;
        unsigned base = r->kind == XK_GPR ? X86_GPR0 + 5u * r->row : X86_VEC0 + 4u * r->row;
        for (unsigned k = 0; k < 5; k++) {
            if (r->kind == XK_VEC && k == 4) break;
            const x86_reg *c = &regs[base + k];
            if (c->name && c->width == subs[i].width && c->lo == subs[i].lo) return (int)(base + k);
        }
        return -1;
    }
    return -1;
}

/* ----- physical register names as MIR writes them ----- */
static bool num_suffix(const char *s, size_t n, size_t at, unsigned *v)
{
    if (at >= n || n - at > 2) return false;
    unsigned x = 0;
    for (size_t i = at; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        x = x * 10 + (unsigned)(s[i] - '0');
    }
    if (n - at == 2 && s[at] == '0') return false;
    *v = x;
    return true;
}

static bool prefixed(const char *s, size_t n, const char *p, unsigned *v)
{
    size_t k = strlen(p);
    return n > k && memcmp(s, p, k) == 0 && num_suffix(s, n, k, v);
}

static const char *const dropped[] = {"noreg", "rip", "eip", "ip", "ssp", "cs", "ds", "es", "fs", "gs", "ss",
                                      "fs_base", "gs_base", "mxcsr", "fpcw", "fpsw", "df", NULL};
static const char *const halves[] = {"hax", "hbx", "hcx", "hdx", "hsi", "hdi", "hbp", "hsp", "hip",
                                     "sih", "dih", "bph", "sph", NULL};

static bool in_list(const char *s, size_t n, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (name_is(s, n, list[i])) return true;
    return false;
}

static enum x86_pcat vector_name(const char *s, size_t n, int *id, const char **why)
{
    unsigned v;
    if (prefixed(s, n, "xmm", &v) || prefixed(s, n, "ymm", &v)) {
        if (v < 16) {
            *id = (int)(X86_VEC0 + 4 * v + (s[0] == 'x' ? 1 : 0));
            return XP_MACHINE;
        }
        if (v < 32) return *why = "avx512", XP_REFUSE;
        return XP_UNKNOWN;
    }
    if (prefixed(s, n, "zmm", &v) && v < 32) return *why = "avx512", XP_REFUSE;
    if (prefixed(s, n, "k", &v) && v < 8) return *why = "avx512", XP_REFUSE;
    if (prefixed(s, n, "mm", &v) && v < 8) return *why = "mmx", XP_REFUSE;
    if ((prefixed(s, n, "st", &v) || prefixed(s, n, "fp", &v)) && v < 8) return *why = "x87", XP_REFUSE;
    if (prefixed(s, n, "tmm", &v) && v < 8) return *why = "amx", XP_REFUSE;
    return XP_UNKNOWN;
}

/* r8bh .. r15bh, r8wh .. r15wh: halves of register units. */
static bool rhalf(const char *s, size_t n)
{
    unsigned v;
    if (n < 4 || s[0] != 'r' || s[n - 1] != 'h' || (s[n - 2] != 'b' && s[n - 2] != 'w')) return false;
    return num_suffix(s, n - 2, 1, &v) && v >= 8 && v < 16;
}

enum x86_pcat x86_phys_find(const char *s, size_t n, int *id, const char **why)
{
    *id = -1;
    *why = NULL;
    if (in_list(s, n, dropped)) return XP_DROP;
    if (in_list(s, n, halves) || rhalf(s, n)) return XP_IGNORE;
    if (name_is(s, n, "eflags")) return *id = X86_EFLAGS, XP_MACHINE;
    for (unsigned i = X86_GPR0; i < X86_VEC0; i++) {
        if (!name_is(s, n, regs[i].name)) continue;
        if (regs[i].row == 7) return XP_DROP; /* rsp esp sp spl */
        *id = (int)i;
        return XP_MACHINE;
    }
    return vector_name(s, n, id, why);
}

/* ----- LLVM register classes (§5.2) ----- */
static bool class_prefix(const char *s, size_t n, const char *p)
{
    size_t k = strlen(p);
    return n >= k && memcmp(s, p, k) == 0 && (n == k || s[k] == '_');
}

x86_class x86_class_find(const char *s, size_t n)
{
    x86_class c = {-1, 0, NULL};
    static const struct {
        const char *p;
        int rc;
        unsigned w;
    } ok[] = {{"gr8", RC_GPR, 8},    {"gr16", RC_GPR, 16},   {"gr32", RC_GPR, 32},  {"gr64", RC_GPR, 64},
              {"fr32", RC_XMM, 32},  {"fr64", RC_XMM, 64},   {"vr128", RC_XMM, 128}, {"vr256", RC_XMM, 256},
              {"ccr", RC_FLAGS, 0}};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        if (class_prefix(s, n, ok[i].p)) return c.rc = ok[i].rc, c.width = ok[i].w, c;
    if (name_is(s, n, "vr128l") || name_is(s, n, "vr128h")) return c.rc = RC_XMM, c.width = 128, c;
    if (name_is(s, n, "vr256l") || name_is(s, n, "vr256h")) return c.rc = RC_XMM, c.width = 256, c;
    if (class_prefix(s, n, "rfp32") || class_prefix(s, n, "rfp64") || class_prefix(s, n, "rfp80") ||
        class_prefix(s, n, "rst"))
        c.refuse = "x87";
    else if (class_prefix(s, n, "vr64"))
        c.refuse = "mmx";
    else if (class_prefix(s, n, "fr16") || class_prefix(s, n, "fr16x"))
        c.refuse = "fp16";
    else if (class_prefix(s, n, "tile"))
        c.refuse = "amx";
    else if (class_prefix(s, n, "vr512") || (n >= 2 && s[0] == 'v' && s[1] == 'k') || class_prefix(s, n, "fr32x") ||
             class_prefix(s, n, "fr64x") || class_prefix(s, n, "vr128x") || class_prefix(s, n, "vr256x"))
        c.refuse = "avx512";
    return c;
}

/* ----- §5.3: spills and reloads ----- */
typedef struct opw {
    const char *opc;
    unsigned width;
    bool vec;
} opw;
static const opw stores[] = {
    {"MOV64mr", 64, false},     {"MOV32mr", 32, false},     {"MOV16mr", 16, false},     {"MOV8mr", 8, false},
    {"MOV8mr_NOREX", 8, false}, {"MOVSSmr", 32, true},      {"VMOVSSmr", 32, true},     {"MOVSDmr", 64, true},
    {"VMOVSDmr", 64, true},     {"MOVLPSmr", 64, true},     {"MOVPQI2QImr", 64, true},  {"VMOVPQI2QImr", 64, true},
    {"MOVAPSmr", 128, true},    {"MOVUPSmr", 128, true},    {"MOVAPDmr", 128, true},    {"MOVUPDmr", 128, true},
    {"MOVDQAmr", 128, true},    {"MOVDQUmr", 128, true},    {"VMOVAPSmr", 128, true},   {"VMOVUPSmr", 128, true},
    {"VMOVAPDmr", 128, true},   {"VMOVUPDmr", 128, true},   {"VMOVDQAmr", 128, true},   {"VMOVDQUmr", 128, true},
    {"VMOVAPSYmr", 256, true},  {"VMOVUPSYmr", 256, true},  {"VMOVDQAYmr", 256, true},  {"VMOVDQUYmr", 256, true},
};
static const opw loads[] = {
    {"MOV64rm", 64, false},      {"MOV32rm", 32, false},     {"MOV16rm", 16, false},      {"MOV8rm", 8, false},
    {"MOV8rm_NOREX", 8, false},  {"MOVSSrm", 32, true},      {"MOVSSrm_alt", 32, true},   {"VMOVSSrm", 32, true},
    {"VMOVSSrm_alt", 32, true},  {"MOVSDrm", 64, true},      {"MOVSDrm_alt", 64, true},   {"VMOVSDrm", 64, true},
    {"VMOVSDrm_alt", 64, true},  {"MOVQI2PQIrm", 64, true},  {"VMOVQI2PQIrm", 64, true},  {"MOVAPSrm", 128, true},
    {"MOVUPSrm", 128, true},     {"MOVAPDrm", 128, true},    {"MOVUPDrm", 128, true},     {"MOVDQArm", 128, true},
    {"MOVDQUrm", 128, true},     {"VMOVAPSrm", 128, true},   {"VMOVUPSrm", 128, true},    {"VMOVAPDrm", 128, true},
    {"VMOVUPDrm", 128, true},    {"VMOVDQArm", 128, true},   {"VMOVDQUrm", 128, true},    {"VMOVAPSYrm", 256, true},
    {"VMOVUPSYrm", 256, true},   {"VMOVDQAYrm", 256, true},  {"VMOVDQUYrm", 256, true},
};

static unsigned opw_find(const opw *t, size_t n, const char *opc, bool *vec)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].opc, opc) == 0) {
            if (vec) *vec = t[i].vec;
            return t[i].width;
        }
    return 0;
}

unsigned x86_spill_width(const char *opc, bool *vec)
{
    return opw_find(stores, sizeof stores / sizeof *stores, opc, vec);
}

unsigned x86_reload_width(const char *opc, bool *vec)
{
    return opw_find(loads, sizeof loads / sizeof *loads, opc, vec);
}

/* ----- §5.5: rematerialisable instructions ----- */
static const char *const remat_imm[] = {"MOV8ri",  "MOV16ri",  "MOV32ri",         "MOV64ri",         "MOV64ri32", "MOV32ri64",
                                        "MOV32r0", "MOV32r1",  "MOV32r_1",        "MOV32ImmSExti8", "MOV64ImmSExti8", NULL};
static const char *const remat_vzero[] = {"V_SET0", "AVX_SET0", "FsFLD0SS", "FsFLD0SD", NULL};
static const char *const remat_vones[] = {"V_SETALLONES", "AVX1_SETALLONES", "AVX2_SETALLONES", NULL};
static const char *const remat_load[] = {
    "MOV8rm",    "MOV16rm",    "MOV32rm",       "MOV64rm",       "MOVSSrm",   "MOVSSrm_alt", "MOVSDrm",
    "MOVSDrm_alt", "MOVAPSrm", "MOVUPSrm",      "MOVAPDrm",      "MOVUPDrm",  "MOVDQArm",    "MOVDQUrm",
    "VMOVSSrm",  "VMOVSSrm_alt", "VMOVSDrm",    "VMOVSDrm_alt",  "VMOVAPSrm", "VMOVUPSrm",   "VMOVAPDrm",
    "VMOVUPDrm", "VMOVDQArm",  "VMOVDQUrm",     NULL};
static const char *const remat_lea[] = {"LEA64r", "LEA32r", "LEA64_32r", NULL};

static bool str_in(const char *s, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(s, list[i]) == 0) return true;
    return false;
}

enum x86_remat x86_remat_kind(const char *opc)
{
    if (str_in(opc, remat_imm)) return XR_IMM;
    if (str_in(opc, remat_vzero)) return XR_VZERO;
    if (str_in(opc, remat_vones)) return XR_VONES;
    if (str_in(opc, remat_load)) return XR_LOAD;
    if (str_in(opc, remat_lea)) return XR_LEA;
    return XR_NO;
}

static uint64_t mask_bits(uint64_t v, unsigned bits)
{
    return bits >= 64 ? v : v & ((UINT64_C(1) << bits) - 1);
}

bool x86_imm_move(const char *opc, bool has_imm, int64_t imm, uint64_t *val, unsigned *bits)
{
    static const struct {
        const char *opc;
        unsigned bits;
        int fixed; /* -2: the immediate, sign-extended from 32 bits; -1: the immediate; else this value */
        bool needs_imm;
    } t[] = {{"MOV8ri", 8, -1, true},         {"MOV16ri", 16, -1, true},         {"MOV32ri", 32, -1, true},
             {"MOV64ri", 64, -1, true},       {"MOV64ri32", 64, -2, true},       {"MOV32ri64", 64, -1, true},
             {"MOV32r0", 32, 0, false},       {"MOV32r1", 32, 1, false},         {"MOV32r_1", 32, -3, false},
             {"MOV32ImmSExti8", 32, -1, true}, {"MOV64ImmSExti8", 64, -2, true}};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        if (strcmp(t[i].opc, opc) != 0) continue;
        if (t[i].needs_imm != has_imm) return false;
        uint64_t v = t[i].fixed >= 0 ? (uint64_t)t[i].fixed
                     : t[i].fixed == -3 ? UINT64_C(0xffffffff)
                     : t[i].fixed == -2 ? (uint64_t)(int64_t)(int32_t)(uint32_t)(uint64_t)imm
                                        : (uint64_t)imm;
        *bits = t[i].bits;
        *val = mask_bits(v, t[i].bits);
        return true;
    }
    return false;
}

unsigned x86_store_imm_width(const char *opc)
{
    static const opw t[] = {{"MOV8mi", 8, false}, {"MOV16mi", 16, false}, {"MOV32mi", 32, false}, {"MOV64mi32", 64, false}};
    return opw_find(t, sizeof t / sizeof *t, opc, NULL);
}

bool x86_csr64_preserves(unsigned id)
{
    const x86_reg *r = x86_reg_at(id);
    if (!r || r->kind != XK_GPR) return false;
    return r->row == 3 || r->row == 6 || r->row == 7 || (r->row >= 12 && r->row <= 15);
}

bool x86_is_test_rr(const char *opc)
{
    static const char *const t[] = {"TEST8rr", "TEST16rr", "TEST32rr", "TEST64rr", NULL};
    return str_in(opc, t);
}

bool x86_is_cmp_mi0(const char *opc)
{
    static const char *const t[] = {"CMP8mi", "CMP16mi", "CMP16mi8", "CMP32mi", "CMP32mi8", "CMP64mi32", "CMP64mi8", NULL};
    return str_in(opc, t);
}
