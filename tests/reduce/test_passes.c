/* test_passes.c - each reducer pass on a small function: the function
 * after the pass changed the given items, printed canonically, against the
 * expected text (docs/reduce.md, "Passes"). */
#define _DEFAULT_SOURCE
#include "reduce/rd.h"
#include "tests/test.h"

#include <stdlib.h>

/* Applies pass p to items [lo, hi) of the function in text; returns the
 * printed result (machine and function), or NULL if nothing changed. */
static char *after(const char *text, const rd_pass *p, uint32_t lo, uint32_t hi)
{
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, strlen(text), "<test>", d);
    CHECK(m && ravel_diags_count(d) == 0);
    char *buf = NULL;
    size_t len = 0;
    if (m) {
        rd_func r;
        rd_from_func(&r, ravel_module_func(m, 0));
        bool changed = p ? p->apply(&r, lo, hi) : (rd_renumber(&r), true);
        ravel_machine *mach = NULL;
        ravel_func *f = changed ? rd_build(&r, &mach) : NULL;
        if (f) {
            FILE *fp = open_memstream(&buf, &len);
            ravel_print_machine(fp, mach);
            ravel_print_func(fp, f);
            fclose(fp);
        }
        ravel_func_free(f);
        if (mach) ravel_machine_free(mach);
        rd_free(&r);
    }
    ravel_module_free(m);
    ravel_diags_free(d);
    return buf;
}

/* The function part of a printed result (after the machine's `end`). */
static const char *func_part(const char *s)
{
    const char *f = s ? strstr(s, "func ") : NULL;
    return f ? f : "";
}

static void expect(const char *text, const rd_pass *p, uint32_t lo, uint32_t hi, const char *want)
{
    char *got = after(text, p, lo, hi);
    CHECK_STR(func_part(got), want);
    free(got);
}

static const char *const sum =
    "machine\n  class int r0 r1 r2\nend\n"
    "func sum\nb0:\n  v0:int fixed(r0), v1:int fixed(r1) = args\n  v8:int = const 7\n  jump b1(v0, v8)\n"
    "b1(v2:int, v3:int):\n  v4:int = le v2, v1\n  br v4, b2, b3\n"
    "b2:\n  v5:int = add v3, v2\n  v6:int = add v2, 1\n  jump b1(v6, v5)\n"
    "b3:\n  ret v3 fixed(r0)\nend\n";

TEST(cut_blocks)
{
    CHECK_EQ_INT(rd_pass_cut_blocks.count(&(rd_func){0}), 0);
    /* b1's br becomes ret: b2 and b3 go, v5 and v6 with them */
    expect(sum, &rd_pass_cut_blocks, 1, 2,
           "func sum\nb0:\n  v0:int fixed(r0), v1:int fixed(r1) = args\n  v8:int = const 7\n  jump b1(v0, v8)\n"
           "b1(v2:int, v3:int):\n  v4:int = le v2, v1\n  ret\nend\n");
}

TEST(edges)
{
    /* b1 -> b3 goes: the br becomes a jump (condition dropped), b3 goes */
    expect(sum, &rd_pass_edges, 1, 2,
           "func sum\nb0:\n  v0:int fixed(r0), v1:int fixed(r1) = args\n  v8:int = const 7\n  jump b1(v0, v8)\n"
           "b1(v2:int, v3:int):\n  v4:int = le v2, v1\n  jump b2\n"
           "b2:\n  v5:int = add v3, v2\n  v6:int = add v2, 1\n  jump b1(v6, v5)\nend\n");
}

TEST(values)
{
    /* value 3 is v2... in order: v0, v1, v8, v2, v3, v4, v5, v6; item 4 = v3:
     * the parameter, its arguments, its users (v5 = add, ret's value) go */
    expect(sum, &rd_pass_values, 4, 5,
           "func sum\nb0:\n  v0:int fixed(r0), v1:int fixed(r1) = args\n  v8:int = const 7\n  jump b1(v0)\n"
           "b1(v2:int):\n  v4:int = le v2, v1\n  br v4, b2, b3\n"
           "b2:\n  v6:int = add v2, 1\n  jump b1(v6)\n"
           "b3:\n  ret\nend\n");
}

TEST(instructions)
{
    /* instruction 0 is `args`: v0 and v1 go; v2 (fed by v0 on the entry
     * edge), v4 and the br's condition, v5, then v3 (fed by v5 on the back
     * edge), v6 and ret's value follow */
    expect(sum, &rd_pass_insts, 0, 1,
           "func sum\nb0:\n  v8:int = const 7\n  jump b1\nb1:\n  br b2, b3\nb2:\n  jump b1\nb3:\n  ret\nend\n");
    char *got;
    /* the immediate `const` alone: v8 goes, so does the parameter v3 it fed */
    got = after(sum, &rd_pass_insts, 1, 2);
    CHECK(got && !strstr(got, "v8") && !strstr(got, "v3") && strstr(got, "b1(v2:int):"));
    free(got);
}

static const char *const chain =
    "machine\n  class int r0 r1\nend\n"
    "func f\nb0:\n  v0:int = args\n  jump b1(v0)\n"
    "b1(v1:int):\n  v2:int = add v1, 1\n  jump b2\n"
    "b2:\n  ret v2\nend\n";

TEST(merge)
{
    /* b0 and b1 become one (v1 replaced by v0); names are kept */
    expect(chain, &rd_pass_merge, 0, 1, "func f\nb0:\n  v0:int = args\n  v2:int = add v0, 1\n  jump b2\nb2:\n  ret v2\nend\n");
    expect(chain, &rd_pass_merge, 0, 2, "func f\nb0:\n  v0:int = args\n  v2:int = add v0, 1\n  ret v2\nend\n");
}

static const char *const diamond =
    "machine\n  class int r0 r1\nend\n"
    "func f\nb0:\n  v0:int = args\n  v1:int = const 0\n  br v0, b1, b2\n"
    "b1:\n  jump b3(v0)\nb2:\n  jump b3(v1)\n"
    "b3(v2:int):\n  ret v2\nend\n";

TEST(bypass)
{
    expect(diamond, &rd_pass_bypass, 0, 1,
           "func f\nb0:\n  v0:int = args\n  v1:int = const 0\n  br v0, b3(v0), b2\n"
           "b2:\n  jump b3(v1)\nb3(v2:int):\n  ret v2\nend\n");
    CHECK_EQ_INT(rd_pass_bypass.count(&(rd_func){0}), 0);
}

static const char *const ops =
    "machine\n  class int r0 r1 r2\nend\n"
    "func f\nb0:\n  v0:int, v1:int = args\n  v2:int reuse(1) = sub v0, 5, v1\n  early v3:int fixed(r2) = foo late v2, 300\n  ret v3\nend\n";

TEST(operands_and_constraints)
{
    /* use 0 (v0) of sub goes: reuse(1) follows v1, now use 0 */
    expect(ops, &rd_pass_operands, 0, 1,
           "func f\nb0:\n  v0:int, v1:int = args\n  v2:int reuse(0) = sub 5, v1\n  early v3:int fixed(r2) = foo late v2, 300\n  ret v3\nend\n");
    /* use 1 (v1) goes: reuse(1) named it, so the def becomes plain */
    expect(ops, &rd_pass_operands, 1, 2,
           "func f\nb0:\n  v0:int, v1:int = args\n  v2:int = sub v0, 5\n  early v3:int fixed(r2) = foo late v2, 300\n  ret v3\nend\n");
    /* constraints and positions back to the default, all at once */
    expect(ops, &rd_pass_constraints, 0, 10,
           "func f\nb0:\n  v0:int, v1:int = args\n  v2:int = sub v0, 5, v1\n  v3:int = foo v2, 300\n  ret v3\nend\n");
    expect(ops, &rd_pass_imm_zero, 1, 2,
           "func f\nb0:\n  v0:int, v1:int = args\n  v2:int reuse(1) = sub v0, 5, v1\n  early v3:int fixed(r2) = foo late v2, 0\n  ret v3\nend\n");
    expect(ops, &rd_pass_imm_halve, 0, 2,
           "func f\nb0:\n  v0:int, v1:int = args\n  v2:int reuse(1) = sub v0, 2, v1\n  early v3:int fixed(r2) = foo late v2, 150\n  ret v3\nend\n");
}

static const char *const alloc =
    "machine\n  class int r0 r1 r2 r3\n  class float f0\n  clobbers r0 r3\nend\n"
    "func f\nb0:\n  v0:int.ref @r2 = args\n  s1 = spill r2\n  call g clobbers(r0 r2) safepoint stackmap(s1)\n"
    "  r3 = reload s1\n  ret v0 @r3\nend\n";

TEST(edits_attrs_machine)
{
    expect(alloc, &rd_pass_edits, 1, 2,
           "func f\nb0:\n  v0:int.ref @r2 = args\n  s1 = spill r2\n  call g clobbers(r0 r2) safepoint stackmap(s1)\n  ret v0 @r3\nend\n");
    expect(alloc, &rd_pass_attrs, 0, 1, "func f\nb0:\n  v0:int.ref @r2 = args\n  s1 = spill r2\n  call g\n  r3 = reload s1\n  ret v0 @r3\nend\n");
    expect(alloc, &rd_pass_smap, 0, 1,
           "func f\nb0:\n  v0:int.ref @r2 = args\n  s1 = spill r2\n  call g clobbers(r0 r2) safepoint stackmap()\n  r3 = reload s1\n  ret v0 @r3\nend\n");
    expect(alloc, &rd_pass_clobber_regs, 0, 1,
           "func f\nb0:\n  v0:int.ref @r2 = args\n  s1 = spill r2\n  call g clobbers(r2) safepoint stackmap(s1)\n  r3 = reload s1\n  ret v0 @r3\nend\n");
    /* r1 is named nowhere: it goes, and ids are renumbered (names kept) */
    char *got = after(alloc, &rd_pass_regs, 0, 1);
    CHECK(got && strstr(got, "class int r0 r2 r3\n") && strstr(got, "@r2 = args") && strstr(got, "r3 = reload s1") &&
          strstr(got, "clobbers r0 r3") && strstr(got, "clobbers(r0 r2)"));
    free(got);
    /* float has no value and no named register: it goes with f0 */
    got = after(alloc, &rd_pass_classes, 0, 1);
    CHECK(got && !strstr(got, "float") && !strstr(got, "f0") && strstr(got, "class int r0 r1 r2 r3\n"));
    free(got);
    got = after(alloc, &rd_pass_mach_clobbers, 0, 2);
    CHECK(got && !strstr(got, "\n  clobbers "));
    free(got);
    /* renumbering: slot s1 is the first mentioned: s0 */
    got = after(alloc, NULL, 0, 0);
    CHECK(got && strstr(got, "s0 = spill r2") && strstr(got, "stackmap(s0)") && strstr(got, "r3 = reload s0"));
    free(got);
}

/* docs/format.md section 14: alias lines, undef and remat (with its
 * clobbers) survive the copy and the passes; the registers pass drops the
 * pairs of the registers it drops and renumbers the others. */
static const char *const ext =
    "machine\n  class gpr rax eax al rcx ecx rdx\n  alias rax eax al\n  alias eax al\n  alias rcx ecx\nend\n"
    "func f\nb0:\n  v0:gpr @rax = args\n  v1:gpr @rcx = undef\n  v2:gpr @al = const 5\n"
    "  rdx = remat 5 clobbers(rcx)\n  ret v2 @rdx, v0 @rax\nend\n";

TEST(section14)
{
    char *got = after(ext, NULL, 0, 0);
    CHECK(got && strstr(got, "  alias rax eax al\n  alias eax al\n  alias rcx ecx\n") &&
          strstr(got, "v1:gpr @rcx = undef\n") && strstr(got, "rdx = remat 5 clobbers(rcx)\n"));
    free(got);
    /* eax and ecx are named nowhere: they go with their pairs */
    got = after(ext, &rd_pass_regs, 0, 2);
    CHECK(got && strstr(got, "class gpr rax al rcx rdx\n") && strstr(got, "  alias rax al\n") && !strstr(got, "eax") &&
          !strstr(got, "ecx") && strstr(got, "rdx = remat 5 clobbers(rcx)"));
    free(got);
    expect(ext, &rd_pass_edits, 0, 1, "func f\nb0:\n  v0:gpr @rax = args\n  v1:gpr @rcx = undef\n  v2:gpr @al = const 5\n"
                                       "  ret v2 @rdx, v0 @rax\nend\n");
}

TEST(renumber)
{
    expect(sum, NULL, 0, 0,
           "func sum\nb0:\n  v0:int fixed(r0), v1:int fixed(r1) = args\n  v2:int = const 7\n  jump b1(v0, v2)\n"
           "b1(v3:int, v4:int):\n  v5:int = le v3, v1\n  br v5, b2, b3\n"
           "b2:\n  v6:int = add v4, v3\n  v7:int = add v3, 1\n  jump b1(v7, v6)\n"
           "b3:\n  ret v4 fixed(r0)\nend\n");
}

int main(void)
{
    RUN(cut_blocks);
    RUN(edges);
    RUN(values);
    RUN(instructions);
    RUN(merge);
    RUN(bypass);
    RUN(operands_and_constraints);
    RUN(edits_attrs_machine);
    RUN(renumber);
    RUN(section14);
    return TEST_SUMMARY();
}
