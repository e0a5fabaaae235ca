/* test_claims.c - the fixed-register claims (allocator/claims.h): each rule
 * they can break, by an instruction that breaks it and nothing else, is
 * refused by every allocator of the table (RAVEL_EFAIL naming the
 * instruction), with the rule's own text by those that make the claims
 * through claims.h (fast, random, and color and ssa through assign.c's
 * back end; greedy makes them through claims.h too but words them itself:
 * its own text per rule is required; linear words its own). Each case has a twin that differs by
 * one word and is satisfiable: every allocator allocates it, and the
 * checker accepts the result (a rule that refuses too much fails there). */
#include "allocator/alloc.h"
#include "allocator/claims.h"
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>

#define MACH "machine\n  class int r0 r1 r2\n  clobbers r0\nend\n"

typedef struct claim_case {
    const char *name;
    rv_claim_error rule;
    const char *bad, *good; /* the function after MACH: broken, and its satisfiable twin */
} claim_case;

static const claim_case cases[] = {
    {"ref_late", RV_CLAIM_REF_LATE,
     "func f\nb0:\n  v0:int.ref fixed(r1) = args\n  poll late v0 fixed(r1) safepoint\n  ret\nend\n",
     "func f\nb0:\n  v0:int.ref fixed(r1) = args\n  poll v0 fixed(r1) safepoint\n  ret\nend\n"},
    {"two_values", RV_CLAIM_TWO_VALUES,
     "func f\nb0:\n  v0:int fixed(r1), v1:int fixed(r2) = args\n  call f v0 fixed(r1), v1 fixed(r1)\n  ret\nend\n",
     "func f\nb0:\n  v0:int fixed(r1), v1:int fixed(r2) = args\n  call f v0 fixed(r1), v0 fixed(r1)\n  ret\nend\n"},
    {"two_values_second", RV_CLAIM_TWO_VALUES,
     "func f\nb0:\n  v0:int fixed(r1), v1:int fixed(r2) = args\n  call f v0 fixed(r1), v1 fixed(r2), v1 fixed(r1)\n  ret\nend\n",
     "func f\nb0:\n  v0:int fixed(r1), v1:int fixed(r2) = args\n  call f v0 fixed(r1), v1 fixed(r2), v0 fixed(r1)\n  ret\nend\n"},
    {"two_defs", RV_CLAIM_TWO_DEFS,
     "func f\nb0:\n  v0:int fixed(r1) = args\n  v1:int fixed(r1), v2:int fixed(r1) = call f v0\n  ret v1 fixed(r1), v2 fixed(r2)\nend\n",
     "func f\nb0:\n  v0:int fixed(r1) = args\n  v1:int fixed(r1), v2:int fixed(r2) = call f v0\n  ret v1 fixed(r1), v2 fixed(r2)\nend\n"},
    {"reuse_of_fixed", RV_CLAIM_TWO_DEFS,
     "func f\nb0:\n  v0:int fixed(r1), v3:int fixed(r2) = args\n  v1:int reuse(0), v2:int fixed(r1) = add v0 fixed(r1), v3\n"
     "  ret v1 fixed(r1), v2 fixed(r2)\nend\n",
     "func f\nb0:\n  v0:int fixed(r1), v3:int fixed(r2) = args\n  v1:int reuse(0), v2:int fixed(r2) = add v0 fixed(r1), v3\n"
     "  ret v1 fixed(r1), v2 fixed(r2)\nend\n"},
    {"early_def_use", RV_CLAIM_EARLY_DEF_USE,
     "func f\nb0:\n  v0:int fixed(r1) = args\n  early v1:int fixed(r1) = add v0 fixed(r1), 1\n  ret v1 fixed(r1), v0 fixed(r2)\nend\n",
     "func f\nb0:\n  v0:int fixed(r1) = args\n  v1:int fixed(r1) = add v0 fixed(r1), 1\n  ret v1 fixed(r1)\nend\n"},
    {"late_use_clobbered", RV_CLAIM_LATE_USE_WRITTEN,
     "func f\nb0:\n  v0:int fixed(r1) = args\n  call f late v0 fixed(r0)\n  ret v0 fixed(r1)\nend\n",
     "func f\nb0:\n  v0:int fixed(r1) = args\n  call f v0 fixed(r0)\n  ret v0 fixed(r1)\nend\n"},
    {"late_use_written", RV_CLAIM_LATE_USE_WRITTEN,
     "func f\nb0:\n  v0:int fixed(r1) = args\n  v1:int fixed(r2) = add late v0 fixed(r2), 1\n  ret v1 fixed(r1), v0 fixed(r2)\nend\n",
     "func f\nb0:\n  v0:int fixed(r1) = args\n  v1:int fixed(r2) = add v0 fixed(r2), 1\n  ret v1 fixed(r1), v0 fixed(r2)\nend\n"},
};

static ravel_module *parse_case(const char *func)
{
    char text[1024];
    snprintf(text, sizeof text, "%s%s", MACH, func);
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, strlen(text), "<claims>", d);
    ravel_diags_free(d);
    return m;
}

/* The allocators whose claims are claims.h's (linear and greedy word
 * their own). */
static bool claims_through_h(const char *name)
{
    static const char *const names[] = {"fast", "random", "color", "ssa"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (!strcmp(name, names[k])) return true;
    return false;
}

/* greedy's words for each rule (allocator/greedy_live.c: chk_text). */
static const char *greedy_text(rv_claim_error e)
{
    switch (e) {
    case RV_CLAIM_REF_LATE: return "late use of a reference in a register at a safepoint";
    case RV_CLAIM_TWO_VALUES: return "two values in one fixed register";
    case RV_CLAIM_TWO_DEFS: return "two defs need the same register";
    case RV_CLAIM_EARLY_DEF_USE: return "use in the register of an early def";
    default: return "late use in a defined or clobbered register";
    }
}

/* Allocator name's answer on the broken function: refused, naming
 * instruction 1, and with the rule's text unless it words its own. */
static bool refused(const char *name, const ravel_func *f, rv_claim_error rule)
{
    ravel_func *g = NULL;
    char *err = NULL;
    int rc = ravel_allocate(name, f, 1, &g, &err);
    bool ok = rc == RAVEL_EFAIL && !g && err && strstr(err, "instruction 1 (");
    if (ok && claims_through_h(name)) ok = strstr(err, rv_claim_error_text(rule)) != NULL;
    if (ok && !strcmp(name, "greedy")) ok = strstr(err, greedy_text(rule)) != NULL;
    if (!ok) fprintf(stderr, "  %s: rc %d, %s\n", name, rc, err ? err : "(no message)");
    ravel_func_free(g);
    free(err);
    return ok;
}

static bool allocated(const char *name, const ravel_func *f, ravel_checker *ck)
{
    ravel_func *g = NULL;
    char *err = NULL;
    bool ok = ravel_allocate(name, f, 1, &g, &err) == RAVEL_OK && g && ravel_check(ck, g, f, NULL) == RAVEL_OK;
    if (!ok) fprintf(stderr, "  %s: %s\n", name, err ? err : "allocation rejected by the checker");
    ravel_func_free(g);
    free(err);
    return ok;
}

TEST(every_rule_refused_by_every_allocator)
{
    ravel_checker *ck = ravel_checker_new();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ravel_module *bad = parse_case(cases[c].bad), *good = parse_case(cases[c].good);
        CHECK(bad != NULL && good != NULL);
        for (size_t i = 0; bad && good && ravel_allocator_name(i); i++) {
            const char *name = ravel_allocator_name(i);
            bool r = refused(name, ravel_module_func(bad, 0), cases[c].rule);
            bool a = allocated(name, ravel_module_func(good, 0), ck);
            if (!r || !a) fprintf(stderr, "case %s, allocator %s: %s\n", cases[c].name, name, !r ? "not refused as it should" : "twin not allocated");
            CHECK(r && a);
        }
        ravel_module_free(bad);
        ravel_module_free(good);
    }
    ravel_checker_free(ck);
}

/* The rules alone (rv_claim_conflict, rv_fixed_def_reg). */
TEST(rules)
{
    CHECK_EQ_INT(rv_claim_conflict(RV_CLAIM_DEF_E | RV_CLAIM_USE_L), RV_CLAIM_EARLY_DEF_USE);
    CHECK_EQ_INT(rv_claim_conflict(RV_CLAIM_DEF_E | RV_CLAIM_USE_E), RV_CLAIM_EARLY_DEF_USE);
    CHECK_EQ_INT(rv_claim_conflict(RV_CLAIM_DEF_L | RV_CLAIM_USE_E), RV_CLAIM_OK);
    CHECK_EQ_INT(rv_claim_conflict(RV_CLAIM_CLOB | RV_CLAIM_USE_E), RV_CLAIM_OK);
    CHECK_EQ_INT(rv_claim_conflict(RV_CLAIM_CLOB | RV_CLAIM_USE_L), RV_CLAIM_LATE_USE_WRITTEN);
    CHECK_EQ_INT(rv_claim_conflict(RV_CLAIM_DEF_L | RV_CLAIM_USE_L), RV_CLAIM_LATE_USE_WRITTEN);
    CHECK_EQ_INT(rv_claim_conflict(RV_CLAIM_DEF_E | RV_CLAIM_DEF_L | RV_CLAIM_CLOB), RV_CLAIM_OK);
    ravel_module *m = parse_case(cases[4].bad); /* v1 reuse(0) of v0 fixed(r1), v2 fixed(r1) */
    CHECK(m != NULL);
    if (!m) return;
    const ravel_func *f = ravel_module_func(m, 0);
    const rv_inst *in = rv_inst_at(f, 1);
    const rv_operand *ops = rv_ops_of(f, in);
    CHECK_EQ_INT(rv_fixed_def_reg(in, ops, 0), 1);
    CHECK_EQ_INT(rv_fixed_def_reg(in, ops, 1), 1);
    in = rv_inst_at(f, 0);
    CHECK_EQ_INT(rv_fixed_def_reg(in, rv_ops_of(f, in), 0), 1); /* v0 fixed(r1) = args */
    ravel_module_free(m);
}

int main(void)
{
    RUN(every_rule_refused_by_every_allocator);
    RUN(rules);
    return TEST_SUMMARY();
}
