/* test_import.c - unit tests of ravel_import (docs/import.md):
 *   the x86-64 tables against bit ranges computed here independently
 *     (docs/import-mapping.md §3, obligation 1), sub-registers, classes,
 *     spill/reload and remat tables, immediate normalisation;
 *   the MIR line reader on the forms llc-19 prints;
 *   S1 on a small pre.mir (golden text);
 *   bad input: FILE:LINE:COL errors, never a crash;
 *   fastrename.c's window (R27: fast's deleted copies in one register).
 * Usage: test_import (no arguments). */
#include "import/imp.h"
#include "tests/test.h"

#include <stdlib.h>

/* ----- independent bit ranges of every machine name ----- */
typedef struct range {
    char kind; /* 'g', 'v', 'f' */
    int row, lo, hi;
} range;

static bool range_of(const char *n, range *r)
{
    static const char *const g64[] = {"rax", "rcx", "rdx", "rbx", "rsi", "rdi", "rbp", "rsp"};
    static const char *const g32[] = {"eax", "ecx", "edx", "ebx", "esi", "edi", "ebp", "esp"};
    static const char *const g16[] = {"ax", "cx", "dx", "bx", "si", "di", "bp", "sp"};
    static const char *const g8[] = {"al", "cl", "dl", "bl", "sil", "dil", "bpl", "spl"};
    static const char *const g8h[] = {"ah", "ch", "dh", "bh"};
    for (int i = 0; i < 8; i++) {
        if (!strcmp(n, g64[i])) return *r = (range){'g', i, 0, 64}, true;
        if (!strcmp(n, g32[i])) return *r = (range){'g', i, 0, 32}, true;
        if (!strcmp(n, g16[i])) return *r = (range){'g', i, 0, 16}, true;
        if (!strcmp(n, g8[i])) return *r = (range){'g', i, 0, 8}, true;
        if (i < 4 && !strcmp(n, g8h[i])) return *r = (range){'g', i, 8, 16}, true;
    }
    int k;
    char suf[8] = "";
    if (sscanf(n, "r%d%7s", &k, suf) >= 1 && k >= 8 && k <= 15) {
        int w = !suf[0] ? 64 : !strcmp(suf, "d") ? 32 : !strcmp(suf, "w") ? 16 : !strcmp(suf, "b") ? 8 : 0;
        if (w) return *r = (range){'g', k, 0, w}, true;
    }
    static const struct {
        const char *p;
        int w;
    } v[] = {{"ymm", 256}, {"xmm", 128}, {"xd", 64}, {"xs", 32}};
    for (int i = 0; i < 4; i++) {
        size_t pl = strlen(v[i].p);
        if (!strncmp(n, v[i].p, pl) && sscanf(n + pl, "%d", &k) == 1 && k >= 0 && k < 16) return *r = (range){'v', k, 0, v[i].w}, true;
    }
    if (!strcmp(n, "eflags")) return *r = (range){'f', 0, 0, 32}, true;
    return false;
}

TEST(x86_containment_is_bit_ranges)
{
    unsigned names = 0;
    for (unsigned a = 0; a < X86_NREGS; a++) {
        const x86_reg *ra = x86_reg_at(a);
        if (!ra) continue;
        names++;
        range A;
        CHECK(range_of(ra->name, &A));
        CHECK_EQ_INT(x86_reg_find(ra->name, strlen(ra->name)), a);
        for (unsigned b = 0; b < X86_NREGS; b++) {
            const x86_reg *rb = x86_reg_at(b);
            range B;
            if (!rb || !range_of(rb->name, &B)) continue;
            bool same_reg = A.kind == B.kind && A.row == B.row;
            bool inter = same_reg && A.lo < B.hi && B.lo < A.hi && a != b;
            bool incl = same_reg && a != b && A.lo <= B.lo && B.hi <= A.hi;
            if (x86_overlaps(a, b) != inter || x86_contains(a, b) != incl) {
                fprintf(stderr, "  %s vs %s: overlaps %d (want %d), contains %d (want %d)\n", ra->name, rb->name, x86_overlaps(a, b),
                        inter, x86_contains(a, b), incl);
                CHECK(0);
            }
        }
    }
    CHECK_EQ_INT(names, 16 * 4 + 4 + 16 * 4 + 1); /* §5.1: the gpr names, 4 high bytes, 4 per vector register, eflags */
    CHECK(!x86_overlaps(x86_reg_find("al", 2), x86_reg_find("ah", 2)));
}

TEST(x86_subregs_and_widths)
{
#define R(n) (unsigned)x86_reg_find(n, strlen(n))
    CHECK_EQ_INT(x86_subreg(R("rax"), XS_8BIT_HI), R("ah"));
    CHECK_EQ_INT(x86_subreg(R("rcx"), XS_8BIT), R("cl"));
    CHECK_EQ_INT(x86_subreg(R("r9"), XS_32BIT), R("r9d"));
    CHECK_EQ_INT(x86_subreg(R("rsi"), XS_8BIT_HI), -1);
    CHECK_EQ_INT(x86_subreg(R("ymm3"), XS_XMM), R("xmm3"));
    CHECK_EQ_INT(x86_subreg(R("eax"), XS_32BIT), -1);
    CHECK_EQ_INT(x86_at_width(R("xmm3"), 64), R("xd3"));
    CHECK_EQ_INT(x86_at_width(R("cl"), 64), R("rcx"));
    CHECK_EQ_INT(x86_at_width(R("ah"), 8), R("al"));
    CHECK_EQ_INT(imp_full_reg(R("cl"), XS_8BIT, 64), R("rcx"));
    CHECK_EQ_INT(imp_full_reg(R("cl"), XS_8BIT_HI, 64), -1); /* R5: no register has cl as its high byte */
    CHECK_EQ_INT(imp_full_reg(R("ch"), XS_8BIT_HI, 32), R("ecx"));
    CHECK_EQ_INT(imp_full_reg(R("xmm0"), XS_NONE, 64), R("xd0"));
    CHECK_EQ_INT(imp_full_reg(R("eax"), XS_NONE, 64), -1);
    CHECK(x86_csr64_preserves(R("r12b")) && x86_csr64_preserves(R("bh")) && !x86_csr64_preserves(R("r11")));
    CHECK(!x86_csr64_preserves(R("xs15")) && !x86_csr64_preserves(X86_EFLAGS));
#undef R
}

TEST(x86_mir_names)
{
    int id;
    const char *why;
    CHECK(x86_phys_find("xmm7", 4, &id, &why) == XP_MACHINE && !strcmp(x86_reg_at((unsigned)id)->name, "xmm7"));
    CHECK(x86_phys_find("rsp", 3, &id, &why) == XP_DROP);
    CHECK(x86_phys_find("ssp", 3, &id, &why) == XP_DROP);
    CHECK(x86_phys_find("noreg", 5, &id, &why) == XP_DROP);
    CHECK(x86_phys_find("r12wh", 5, &id, &why) == XP_IGNORE);
    CHECK(x86_phys_find("hax", 3, &id, &why) == XP_IGNORE);
    CHECK(x86_phys_find("xmm17", 5, &id, &why) == XP_REFUSE && !strcmp(why, "avx512"));
    CHECK(x86_phys_find("st0", 3, &id, &why) == XP_REFUSE && !strcmp(why, "x87"));
    CHECK(x86_phys_find("mm3", 3, &id, &why) == XP_REFUSE && !strcmp(why, "mmx"));
    CHECK(x86_phys_find("k2", 2, &id, &why) == XP_REFUSE);
    CHECK(x86_phys_find("tmm1", 4, &id, &why) == XP_REFUSE && !strcmp(why, "amx"));
    CHECK(x86_phys_find("dr7", 3, &id, &why) == XP_UNKNOWN);
}

TEST(x86_classes)
{
    x86_class c = x86_class_find("gr64_with_sub_8bit", 18);
    CHECK(c.rc == RC_GPR && c.width == 64);
    c = x86_class_find("gr8_abcd_h", 10);
    CHECK(c.rc == RC_GPR && c.width == 8);
    c = x86_class_find("fr64", 4);
    CHECK(c.rc == RC_XMM && c.width == 64);
    c = x86_class_find("ccr", 3);
    CHECK(c.rc == RC_FLAGS);
    CHECK(x86_class_find("vr512", 5).rc < 0 && !strcmp(x86_class_find("vr512", 5).refuse, "avx512"));
    CHECK(!strcmp(x86_class_find("fr16", 4).refuse, "fp16"));
    CHECK(!strcmp(x86_class_find("rfp80", 5).refuse, "x87"));
    CHECK(x86_class_find("low32_addr_access", 17).rc < 0 && !x86_class_find("low32_addr_access", 17).refuse);
    CHECK(x86_class_find("gr640", 5).rc < 0); /* a prefix is not a class */
}

TEST(x86_opcode_tables)
{
    bool vec;
    CHECK_EQ_INT(x86_spill_width("MOVSDmr", &vec), 64);
    CHECK(vec);
    CHECK_EQ_INT(x86_spill_width("MOV8mr_NOREX", &vec), 8);
    CHECK(!vec);
    CHECK_EQ_INT(x86_reload_width("VMOVDQUYrm", &vec), 256);
    CHECK_EQ_INT(x86_reload_width("MOV64mr", &vec), 0);
    CHECK(x86_remat_kind("MOV32r0") == XR_IMM && x86_remat_kind("FsFLD0SD") == XR_VZERO);
    CHECK(x86_remat_kind("AVX2_SETALLONES") == XR_VONES && x86_remat_kind("LEA64_32r") == XR_LEA);
    CHECK(x86_remat_kind("ADD64rr") == XR_NO);
    uint64_t v;
    unsigned bits;
    CHECK(x86_imm_move("MOV32r_1", false, 0, &v, &bits) && v == 0xffffffffu && bits == 32);
    CHECK(x86_imm_move("MOV64ri32", true, -2, &v, &bits) && v == UINT64_C(0xfffffffffffffffe) && bits == 64);
    CHECK(x86_imm_move("MOV8ri", true, -1, &v, &bits) && v == 0xff && bits == 8);
    CHECK(x86_imm_move("MOV32ri64", true, 1, &v, &bits) && v == 1 && bits == 64);
    CHECK(!x86_imm_move("MOV32r0", true, 5, &v, &bits)); /* MOV32r0 has no immediate */
    CHECK_EQ_INT(x86_store_imm_width("MOV64mi32"), 64);
}

/* ----- the MIR line reader ----- */
typedef struct one {
    rv_symtab syms;
    ravel_diags *d;
    mir_reader r;
    mir_func f;
} one;

static bool read_line(one *o, const char *line, bool dump)
{
    memset(o, 0, sizeof *o);
    o->d = ravel_diags_new();
    o->r.t.file = "line.mir";
    o->r.t.src = line;
    o->r.t.len = strlen(line);
    o->r.syms = &o->syms;
    o->r.diags = o->d;
    o->r.dump = dump;
    return mir_read_inst(&o->r, &o->f, 0, (uint32_t)strlen(line), 1);
}

static void one_free(one *o)
{
    mir_func_free(&o->f);
    rv_symtab_free(&o->syms);
    ravel_diags_free(o->d);
}

TEST(mir_reads_defs_flags_ties)
{
    one o;
    CHECK(read_line(&o, "%17.sub_8bit:gr64_with_sub_8bit = SETCCr 4, implicit killed $eflags, debug-location !DILocation(line: 1025, scope: !9); f6.c:25", true));
    const mir_inst *in = &o.f.insts.data[0];
    CHECK(mir_opc_is(&o.r, in, "SETCCr"));
    CHECK_EQ_INT(in->ndefs, 1);
    CHECK_EQ_INT(in->nops, 3);
    CHECK_EQ_INT(in->tag, 1025);
    const mir_op *op = mir_ops(&o.f, in);
    CHECK(op[0].kind == MO_REG && op[0].vreg == 17 && op[0].sub == XS_8BIT && (op[0].flags & MOF_DEF));
    CHECK(!strcmp(rv_sym_str(&o.syms, op[0].cls), "gr64_with_sub_8bit"));
    CHECK(op[1].kind == MO_IMM && op[1].val == 4);
    CHECK(op[2].kind == MO_REG && op[2].preg == X86_EFLAGS && (op[2].flags & MOF_IMPLICIT) && (op[2].flags & MOF_KILLED));
    one_free(&o);
    CHECK(read_line(&o, "renamable $r15 = IMUL64rm killed renamable $r15(tied-def 0), %stack.0, 1, $noreg, 0, $noreg, implicit-def dead $eflags :: (load (s64) from %stack.0)", true));
    in = &o.f.insts.data[0];
    op = mir_ops(&o.f, in);
    CHECK_EQ_INT(in->nops, 8);
    CHECK_EQ_INT(op[1].tied, 0);
    CHECK(op[2].kind == MO_FI && op[2].val == 0);
    CHECK(op[4].kind == MO_REG && op[4].preg == PR_DROP);
    CHECK((op[7].flags & MOF_DEAD) && (op[7].flags & MOF_DEF));
    CHECK_EQ_INT(in->nmem, 1);
    CHECK(o.f.mems.data[0].bits == 64 && o.f.mems.data[0].what == MO_FI && o.f.mems.data[0].index == 0 && !o.f.mems.data[0].store);
    one_free(&o);
}

TEST(mir_reads_symbols_pools_masks)
{
    one o;
    CHECK(read_line(&o, "CALL64pcrel32 target-flags(x86-plt) @g, csr_64, implicit $rsp, implicit $ssp, implicit $rdi, implicit-def $rax", false));
    const mir_op *op = mir_ops(&o.f, &o.f.insts.data[0]);
    CHECK(op[0].kind == MO_GLOBAL && op[0].nlen == 1);
    CHECK(op[1].kind == MO_REGMASK && op[1].nlen == 6);
    one_free(&o);
    CHECK(read_line(&o, "%12:fr64 = MOVSDrm_alt $rip, 1, $noreg, %const.1 + 8, $noreg :: (load (s64) from constant-pool)", false));
    op = mir_ops(&o.f, &o.f.insts.data[0]);
    CHECK(op[4].kind == MO_CPI && op[4].val == 1 && op[4].off == 8);
    CHECK(o.f.mems.data[0].what == MO_CPI);
    one_free(&o);
    CHECK(read_line(&o, "%66:gr64 = MOV32ri64 @\"a, b\" + 16", false));
    op = mir_ops(&o.f, &o.f.insts.data[0]);
    CHECK(op[1].kind == MO_GLOBAL && op[1].off == 16 && o.f.insts.data[0].nops == 2);
    one_free(&o);
    CHECK(read_line(&o, "%20:fr64 = FsFLD0SD debug-location !226", false));
    const mir_inst *in = &o.f.insts.data[0];
    CHECK(in->nops == 1 && in->md == 226 && in->dl_first && in->dl_end > in->dl_pos);
    one_free(&o);
    CHECK(read_line(&o, "MOV64mr %stack.3.x, 1, $noreg, 8, $noreg, %5 :: (store (<2 x s32>) into %ir.p), (load (s8) from %fixed-stack.2)", false));
    CHECK(o.f.mems.len == 2 && o.f.mems.data[0].bits == 64 && o.f.mems.data[0].store && o.f.mems.data[1].what == MO_FIXED &&
          o.f.mems.data[1].index == 2);
    CHECK(mir_ops(&o.f, &o.f.insts.data[0])[0].kind == MO_FI && mir_ops(&o.f, &o.f.insts.data[0])[0].val == 3);
    one_free(&o);
}

TEST(mir_bad_lines_are_errors_not_crashes)
{
    static const char *const bad[] = {"%1:gr64 = ", "= COPY", "%x:gr64 = COPY %y", "$rax = COPY %5(tied-def", "%1: = COPY $rax",
                                      "%99999999999 = COPY $rax", "COPY @\"unterminated", "%1 = MOV64rm $rip, 1, target-flags(",
                                      "MOV64mr %stack.x, 1", "%1 = COPY $rax :: load", "killed 5", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        one o;
        bool ok = read_line(&o, bad[i], false);
        if (!ok) {
            CHECK(ravel_diags_count(o.d) > 0);
            CHECK(strstr(o.d->v.data[0].msg, "line.mir:1:") != NULL);
        }
        one_free(&o);
    }
}

/* ----- S1 ----- */
static const char pre_mir[] =
    "--- |\n"
    "  define i64 @f(i64 %0) !dbg !5 {\n"
    "    ret i64 %0\n"
    "  }\n"
    "  !5 = distinct !DISubprogram(name: \"f\", line: 7)\n"
    "  !6 = !DILocation(line: 1234, scope: !5)\n"
    "...\n"
    "---\n"
    "name:            f\n"
    "body:             |\n"
    "  bb.0:\n"
    "    liveins: $rdi\n"
    "  \n"
    "    %0:gr64 = COPY $rdi, debug-location !6\n"
    "    %1:fr64 = FsFLD0SD\n"
    "    DBG_VALUE %0, $noreg, !5, !DIExpression(), debug-location !6\n"
    "    MOV64mr %stack.0, 1, $noreg, 0, $noreg, %0 :: (store (s64) into %ir.x)\n"
    "    $rax = COPY %0\n"
    "    RET 0, $rax\n"
    "...\n";

static const char pre_tagged[] =
    "--- |\n"
    "  define i64 @f(i64 %0) !dbg !5 {\n"
    "    ret i64 %0\n"
    "  }\n"
    "  !5 = distinct !DISubprogram(name: \"f\", line: 7)\n"
    "  !6 = !DILocation(line: 1234, scope: !5)\n"
    "  !7 = !DILocation(line: 2001, scope: !5)\n"
    "  !8 = !DILocation(line: 2002, scope: !5)\n"
    "  !9 = !DILocation(line: 2003, scope: !5)\n"
    "  !10 = !DILocation(line: 2004, scope: !5)\n"
    "  !11 = !DILocation(line: 2005, scope: !5)\n"
    "...\n"
    "---\n"
    "name:            f\n"
    "body:             |\n"
    "  bb.0:\n"
    "    liveins: $rdi\n"
    "  \n"
    "    %0:gr64 = COPY $rdi, debug-location !7\n"
    "    %1:fr64 = FsFLD0SD debug-location !8\n"
    "    DBG_VALUE %0, $noreg, !5, !DIExpression(), debug-location !6\n"
    "    MOV64mr %stack.0, 1, $noreg, 0, $noreg, %0, debug-location !9 :: (store (s64) into %ir.x)\n"
    "    $rax = COPY %0, debug-location !10\n"
    "    RET 0, $rax, debug-location !11\n"
    "...\n";

TEST(tag_golden)
{
    mir_text t = {"pre.mir", pre_mir, sizeof pre_mir - 1};
    ravel_diags *d = ravel_diags_new();
    size_t n = 0;
    char *out = rvi_tag(&t, d, &n);
    CHECK(out != NULL);
    if (out) CHECK_STR(out, pre_tagged);
    rv_free(out);
    ravel_diags_free(d);
}

TEST(tag_needs_a_subprogram)
{
    static const char nodbg[] = "--- |\n  define void @f() {\n    ret void\n  }\n...\n---\nname: f\nbody: |\n  bb.0:\n    RET 0\n...\n";
    mir_text t = {"nodbg.mir", nodbg, sizeof nodbg - 1};
    ravel_diags *d = ravel_diags_new();
    size_t n = 0;
    char *out = rvi_tag(&t, d, &n);
    CHECK(out == NULL);
    CHECK(ravel_diags_count(d) == 1 && strstr(d->v.data[0].msg, "nodbg.mir:") && strstr(d->v.data[0].msg, "DISubprogram"));
    rv_free(out);
    ravel_diags_free(d);
}

/* ----- fastrename.c: fast's deleted copies in one register ----- */
static unsigned reg_id(const char *n)
{
    return (unsigned)x86_reg_find(n, strlen(n));
}

/* An op MNEM with one def (vreg d at register dr; none if !dr) and up to
 * two uses (vregs us at registers ur). */
static uint32_t add_op(ra_func *f, uint8_t kind, uint32_t d, const char *dr, uint32_t u0, const char *ur0, uint32_t u1, const char *ur1)
{
    uint32_t id = ra_add_inst(f, kind);
    f->insts.data[id].mnem = kind == RK_COPY ? "copy" : "OP";
    if (dr) {
        ra_opnd o = {.vreg = d, .loc = reg_id(dr)};
        rv_vec_push(f->defs, o);
        f->insts.data[id].nd = 1;
    }
    const uint32_t uv[2] = {u0, u1};
    const char *ul[2] = {ur0, ur1};
    for (int i = 0; i < 2; i++)
        if (ul[i]) {
            ra_use u = {.o = {.vreg = uv[i], .loc = reg_id(ul[i])}};
            rv_vec_push(f->uses, u);
            f->insts.data[id].nu++;
        }
    return id;
}

/* The shape of csmith seed 502: v5 @ecx; v6 @cl = copy v5 @ecx (in place);
 * v7 @cl = copy v6 @cl (marked); s2 = spill ecx; then `mid` (an op between,
 * or none), v7 @cl = DEC v7 @cl unless !redef, MOV v7 @cl; checks
 * what imp_fast_renames leaves. */
static void samereg_case(int mid, bool redef, bool want_drop)
{
    imp x;
    memset(&x, 0, sizeof x);
    ra_func f;
    memset(&f, 0, sizeof f);
    add_op(&f, RK_OP, 5, "ecx", 0, NULL, 0, NULL);
    add_op(&f, RK_COPY, 6, "cl", 5, "ecx", 0, NULL);
    uint32_t c = add_op(&f, RK_COPY, 7, "cl", 6, "cl", 0, NULL);
    f.insts.data[c].samereg = true;
    uint32_t sp = ra_add_inst(&f, RK_SPILL);
    f.insts.data[sp].dst = RVI_SLOT | 2;
    f.insts.data[sp].src = reg_id("ecx");
    if (mid == 1) add_op(&f, RK_OP, 6, "dl", 0, NULL, 0, NULL); /* the source redefined */
    if (mid == 2) add_op(&f, RK_OP, 9, "dl", 7, "cl", 0, NULL); /* a reader before the redefinition */
    uint32_t dec = redef ? add_op(&f, RK_OP, 7, "cl", 7, "cl", 0, NULL) : RVI_NONE;
    add_op(&f, RK_OP, 0, NULL, 7, "cl", 0, NULL);
    add_op(&f, RK_RET, 0, NULL, 0, NULL, 0, NULL);
    ra_block b = {0, 0, f.insts.len};
    rv_vec_push(f.blocks, b);
    uint32_t n0 = f.insts.len;
    imp_fast_renames(&x, &f);
    CHECK(f.blocks.data[0].n == f.insts.len);
    CHECK(f.insts.len == n0 - (want_drop ? 1 : 0));
    unsigned v7_uses = 0, v6_uses = 0;
    for (uint32_t i = 0; i < f.insts.len; i++) {
        const ra_inst *in = &f.insts.data[i];
        for (uint32_t j = in->u0; j < in->u0 + in->nu; j++) {
            v7_uses += f.uses.data[j].o.vreg == 7;
            v6_uses += f.uses.data[j].o.vreg == 6;
        }
        if (in->kind == RK_SPILL) CHECK(in->dst == (RVI_SLOT | 2) && in->src == reg_id("ecx")); /* edits untouched */
    }
    if (want_drop) {
        /* the readers up to and including the redefinition read v6; the last
         * MOV reads the new v7 */
        CHECK(v7_uses == 1);
        CHECK(v6_uses == (unsigned)((mid == 2) + (dec != RVI_NONE)));
    } else {
        CHECK(v6_uses == 1);
        CHECK(v7_uses == (unsigned)(1 + (mid == 2) + redef));
    }
    ra_func_free(&f);
    rv_arena_free(&x.arena);
}

TEST(fast_samereg_copies)
{
    samereg_case(0, true, true);   /* seed 502's shape: dropped, DEC reads v6 */
    samereg_case(2, true, true);   /* every reader up to the redefinition */
    samereg_case(1, true, false);  /* the source redefined in between: kept */
    samereg_case(0, false, false); /* v7 may live out of the block: kept */
}

int main(void)
{
    RUN(x86_containment_is_bit_ranges);
    RUN(x86_subregs_and_widths);
    RUN(x86_mir_names);
    RUN(x86_classes);
    RUN(x86_opcode_tables);
    RUN(mir_reads_defs_flags_ties);
    RUN(mir_reads_symbols_pools_masks);
    RUN(mir_bad_lines_are_errors_not_crashes);
    RUN(tag_golden);
    RUN(tag_needs_a_subprogram);
    RUN(fast_samereg_copies);
    return TEST_SUMMARY();
}
