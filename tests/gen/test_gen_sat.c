/* test_gen_sat.c - rv_gen_satisfiable (fuzz/gen_sat.c), the independent
 * check of the generator's satisfiability rules, on hand-written cases:
 * each rule both ways. A case is a .ra text and the expected verdict ("ok"
 * or the rule tag that must appear in the reason). */
#include "fuzz/gen.h"
#include "tests/test.h"

#include <string.h>

static const char *const machine =
    "machine\n"
    "  class int r0 r1\n"
    "  reserved int sp\n"
    "  class float f0\n"
    "  clobbers r0\n"
    "end\n";

static const struct { const char *name, *body, *expect; } cases[] = {
    /* S3: counts per class */
    {"two reg uses, two regs", "v0:int, v1:int = args\n  v2:int = add v0, v1\n  ret v2", "ok"},
    {"three reg uses, two regs", "v0:int any, v1:int any, v2:int any = args\n  out v0, v1, v2\n  ret", "S3"},
    {"any and stack need no register", "v0:int any, v1:int any, v2:int any = args\n  out v0, v1 any, v2 stack\n  ret", "ok"},
    {"early def and two uses", "v0:int, v1:int = args\n  early v2:int = add v0, v1\n  ret", "S3"},
    {"early def and one use", "v0:int = args\n  early v2:int = add v0, 1\n  ret", "ok"},
    {"late use and two late defs", "v0:int = args\n  v1:int, v2:int = op late v0\n  ret", "S3"},
    {"one float register", "v0:float = args\n  v1:float = add v0, v0\n  ret", "S3"},
    {"reserved fixed does not count", "v0:int any, v1:int any, v2:int any = args\n  out v0, v1, v2 fixed(sp)\n  ret", "ok"},
    {"fixed counts with reg", "v0:int any, v1:int any, v2:int any = args\n  out v0, v1, v2 fixed(r0)\n  ret", "S3"},
    /* S2: fixed registers */
    {"two vregs in r0", "v0:int, v1:int = args\n  out v0 fixed(r0), v1 fixed(r0)\n  ret", "S2"},
    {"one vreg twice in r0", "v0:int = args\n  out v0 fixed(r0), v0 fixed(r0)\n  ret", "ok"},
    {"one vreg in two registers", "v0:int = args\n  out v0 fixed(r0), v0 fixed(r1)\n  ret", "ok"},
    {"use and def in r0", "v0:int = args\n  v1:int fixed(r0) = op v0 fixed(r0)\n  ret", "ok"},
    {"early def and use in r0", "v0:int = args\n  early v1:int fixed(r0) = op v0 fixed(r0)\n  ret", "S2"},
    {"late use and def in r0", "v0:int = args\n  v1:int fixed(r0) = op late v0 fixed(r0)\n  ret", "S2"},
    {"two defs in sp", "v0:int = args\n  v1:int fixed(sp), v2:int fixed(sp) = op v0\n  ret", "S2"},
    /* S4: reuse */
    {"reuse of a reg use", "v0:int = args\n  v1:int reuse(0) = add v0, 1\n  ret", "ok"},
    {"reuse of a fixed use", "v0:int = args\n  v1:int reuse(0) = add v0 fixed(r1), 1\n  ret", "S4"},
    {"reuse of a late use", "v0:int = args\n  v1:int reuse(0) = add late v0, 1\n  ret", "S4"},
    {"one use reused twice", "v0:int = args\n  v1:int reuse(0), v2:int reuse(0) = op v0\n  ret", "S4"},
    /* S5: clobbers and safepoints */
    {"call with fixed args", "v0:int, v1:int = args\n  v2:int fixed(r0) = call f v0 fixed(r0), v1 fixed(r1)\n  ret", "ok"},
    {"late use at a call", "v0:int = args\n  call f late v0\n  ret", "S5"},
    {"early def at a safepoint", "v0:int = args\n  early v1:int.ref = op v0 safepoint\n  ret", "S5"},
    {"late use with empty clobbers", "v0:int = args\n  call f late v0 clobbers()\n  ret", "ok"},
    {"late use with explicit clobbers", "v0:int = args\n  op late v0 clobbers(r1)\n  ret", "S5"},
    /* terminators */
    {"ret in two fixed registers", "v0:int, v1:int = args\n  ret v0 fixed(r0), v1 fixed(r1)", "ok"},
    {"ret of two values in r0", "v0:int, v1:int = args\n  ret v0 fixed(r0), v1 fixed(r0)", "S2"},
};

TEST(rules_both_ways)
{
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[1024];
        snprintf(text, sizeof text, "%sfunc t\nb0:\n  %s\nend\n", machine, cases[i].body);
        ravel_diags *d = ravel_diags_new();
        ravel_module *mod = ravel_module_parse(text, strlen(text), cases[i].name, d);
        if (!mod || ravel_diags_count(d)) {
            ravel_diags_print(stderr, d);
            fprintf(stderr, "case '%s' does not parse\n", cases[i].name);
            CHECK(0);
        } else {
            char why[200];
            bool ok = rv_gen_satisfiable(mod->funcs.data[0], why, sizeof why);
            bool want_ok = strcmp(cases[i].expect, "ok") == 0;
            /* the failing instruction is the one under test, not args (0) */
            if (ok != want_ok || (!ok && (!strstr(why, cases[i].expect) || strstr(why, "instruction 0:")))) {
                fprintf(stderr, "case '%s': expected %s, got %s\n", cases[i].name, cases[i].expect, ok ? "ok" : why);
                CHECK(0);
            }
        }
        ravel_module_free(mod);
        ravel_diags_free(d);
    }
}

int main(void)
{
    RUN(rules_both_ways);
    return TEST_SUMMARY();
}
