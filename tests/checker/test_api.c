/* test_api.c - the checker as a JIT uses it: build a function and its
 * allocation through include/ravel.h (no text), allocate it by hand, check
 * it; correct and broken variants; options, RAVEL_VERIFY, reports, JSON,
 * bad input, context reuse, and contexts used from two threads. */
#define _POSIX_C_SOURCE 200809L
#include "ravel.h"
#include "tests/test.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct mach {
    ravel_machine *m;
    int cint, r0, r1, r2;
} mach;

static mach mk_machine(void)
{
    mach x;
    x.m = ravel_machine_new();
    x.cint = ravel_machine_add_class(x.m, "int");
    x.r0 = ravel_machine_add_reg(x.m, "r0", x.cint, 0);
    x.r1 = ravel_machine_add_reg(x.m, "r1", x.cint, 0);
    x.r2 = ravel_machine_add_reg(x.m, "r2", x.cint, 0);
    uint32_t clob[] = {(uint32_t)x.r0};
    ravel_machine_set_clobbers(x.m, clob, 1);
    return x;
}

/* v0, v1 = args; spill v0; v2 = add v0, v1 (in r0); reload v0 into r1
 * (or, broken, forget the reload); v3 = call f v2 safepoint; ret v2... */
enum { CORRECT, NO_RELOAD, WRONG_SLOT, NO_TERMINATOR };

static ravel_func *build(const mach *x, int variant)
{
    ravel_func *f = ravel_func_new(x->m, "jitted");
    uint32_t v0 = ravel_vreg_new(f, x->cint, 0), v1 = ravel_vreg_new(f, x->cint, 0);
    uint32_t v2 = ravel_vreg_new(f, x->cint, 0), v3 = ravel_vreg_new(f, x->cint, 0);
    uint32_t b0 = ravel_block_new(f, NULL), b1 = ravel_block_new(f, NULL);
    ravel_block_begin(f, b0);
    ravel_inst_begin(f, RAVEL_OP_ARGS, NULL);
    ravel_inst_def(f, v0, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, (ravel_loc)x->r0);
    ravel_inst_def(f, v1, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, (ravel_loc)x->r1);
    ravel_inst_end(f);
    ravel_edit(f, RAVEL_OP_SPILL, ravel_slot(0), (ravel_loc)x->r0);
    ravel_inst_begin(f, RAVEL_OP_ADD, NULL);
    ravel_inst_def(f, v2, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, (ravel_loc)x->r0);
    ravel_inst_use(f, v0, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, (ravel_loc)x->r0);
    ravel_inst_use(f, v1, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, (ravel_loc)x->r1);
    ravel_inst_end(f);
    if (variant != NO_RELOAD) ravel_edit(f, RAVEL_OP_RELOAD, (ravel_loc)x->r1, ravel_slot(variant == WRONG_SLOT ? 1 : 0));
    ravel_inst_begin(f, RAVEL_OP_JUMP, NULL);
    ravel_inst_succ(f, b1, NULL, 0);
    ravel_inst_end(f);
    ravel_block_begin(f, b1);
    ravel_inst_begin(f, RAVEL_OP_CALL, "g");
    ravel_inst_def(f, v3, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, (ravel_loc)x->r2);
    ravel_inst_use(f, v0, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, (ravel_loc)x->r1);
    ravel_inst_end(f);
    if (variant != NO_TERMINATOR) {
        ravel_inst_begin(f, RAVEL_OP_RET, NULL);
        ravel_inst_use(f, v3, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, (ravel_loc)x->r2);
        ravel_inst_use(f, v2, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, (ravel_loc)x->r0); /* clobbered by the call */
        ravel_inst_end(f);
    }
    ravel_func_finish(f);
    return f;
}

TEST(api_correct_and_broken)
{
    mach x = mk_machine();
    ravel_checker *ck = ravel_checker_new();
    ravel_func *f = build(&x, CORRECT);
    ravel_report *rep = NULL;
    /* r0 (v2) is clobbered by the call: one error even in the "correct" build */
    CHECK_EQ_INT(ravel_check(ck, f, NULL, &rep), RAVEL_EFAIL);
    CHECK_EQ_INT(ravel_report_count(rep), 1);
    const ravel_check_error *e = ravel_report_error(rep, 0);
    CHECK(e != NULL);
    if (e) {
        CHECK_STR(e->kind, "use-unknown");
        CHECK_STR(e->block, "b1");
        CHECK_STR(e->role, "use");
        CHECK_EQ_INT(e->operand, 1);
        CHECK_STR(e->loc, "r0");
        CHECK_STR(e->expected, "v2");
        CHECK_STR(e->held, "unknown");
        CHECK(e->provenance && strstr(e->provenance, "clobbered"));
    }
    CHECK(ravel_report_error(rep, 1) == NULL);
    ravel_report_free(rep);
    ravel_func_free(f);

    /* fix it: the call clobbers nothing */
    f = build(&x, CORRECT);
    uint32_t none = 0;
    (void)none;
    ravel_func_free(f);
    ravel_machine_set_clobbers(x.m, NULL, 0);
    f = build(&x, CORRECT);
    CHECK_EQ_INT(ravel_check(ck, f, NULL, &rep), RAVEL_OK);
    CHECK_EQ_INT(ravel_report_count(rep), 0);
    ravel_report_free(rep);
    ravel_func_free(f);

    f = build(&x, NO_RELOAD);
    CHECK_EQ_INT(ravel_check(ck, f, NULL, NULL), RAVEL_EFAIL);
    CHECK_EQ_INT(ravel_check(ck, f, NULL, &rep), RAVEL_EFAIL);
    e = ravel_report_error(rep, 0);
    CHECK(e && strcmp(e->kind, "use-wrong-vreg") == 0 && strcmp(e->held, "{v1}") == 0);
    ravel_report_free(rep);
    /* only the verdict: the same status, the value errors not listed; with
     * EXPLAIN the option is ignored */
    ravel_checker_set_options(ck, RAVEL_CHECK_VERDICT_ONLY);
    CHECK_EQ_INT(ravel_check(ck, f, NULL, NULL), RAVEL_EFAIL);
    CHECK_EQ_INT(ravel_check(ck, f, NULL, &rep), RAVEL_EFAIL);
    CHECK_EQ_INT(ravel_report_status(rep), RAVEL_EFAIL);
    CHECK_EQ_INT(ravel_report_count(rep), 0);
    ravel_report_free(rep);
    ravel_checker_set_options(ck, RAVEL_CHECK_VERDICT_ONLY | RAVEL_CHECK_EXPLAIN);
    CHECK_EQ_INT(ravel_check(ck, f, NULL, &rep), RAVEL_EFAIL);
    CHECK_EQ_INT(ravel_report_count(rep), 1);
    ravel_report_free(rep);
    ravel_checker_set_options(ck, 0);
    ravel_func_free(f);

    f = build(&x, WRONG_SLOT);
    CHECK_EQ_INT(ravel_check(ck, f, NULL, &rep), RAVEL_EFAIL);
    e = ravel_report_error(rep, 0);
    CHECK(e && strcmp(e->kind, "use-unknown") == 0 && e->line == 0 && e->inst != RAVEL_NONE);
    ravel_report_free(rep);
    ravel_func_free(f);

    f = build(&x, NO_TERMINATOR);
    CHECK_EQ_INT(ravel_check(ck, f, NULL, &rep), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_report_status(rep), RAVEL_EINVAL);
    CHECK(ravel_report_ndiags(rep) > 0);
    CHECK_EQ_INT(ravel_report_count(rep), 0);
    ravel_report_free(rep);
    ravel_func_free(f);

    CHECK_EQ_INT(ravel_check(ck, NULL, NULL, NULL), RAVEL_EINVAL);
    ravel_checker_free(ck);
    ravel_machine_free(x.m);
}

TEST(api_json_and_text)
{
    mach x = mk_machine();
    ravel_checker *ck = ravel_checker_new();
    ravel_checker_set_options(ck, RAVEL_CHECK_EXPLAIN);
    CHECK_EQ_INT(ravel_checker_options(ck), RAVEL_CHECK_EXPLAIN);
    ravel_func *f = build(&x, NO_RELOAD);
    ravel_report *rep = NULL;
    CHECK_EQ_INT(ravel_check(ck, f, NULL, &rep), RAVEL_EFAIL);
    FILE *tmp = tmpfile();
    CHECK(tmp != NULL);
    if (tmp) {
        ravel_report_print_json(tmp, rep);
        ravel_report_print(tmp, rep);
        long n = ftell(tmp);
        rewind(tmp);
        char *buf = calloc(1, (size_t)n + 1);
        CHECK(fread(buf, 1, (size_t)n, tmp) == (size_t)n);
        CHECK(strstr(buf, "{\"kind\":\"use-wrong-vreg\",") == buf);
        CHECK(strstr(buf, "\"expected\":\"v0\"") != NULL);
        CHECK(strstr(buf, "\"provenance\":\"") != NULL);
        /* no source: the instruction's text, with its locations */
        CHECK(strstr(buf, "error[use-wrong-vreg]: in func jitted, block b1, inst 4, `v3 @r2 = call g v0 @r1`") != NULL);
        CHECK(strstr(buf, "state at every point of b1") != NULL);
        free(buf);
        fclose(tmp);
    }
    ravel_report_free(rep);
    ravel_func_free(f);
    ravel_checker_free(ck);
    ravel_machine_free(x.m);
}

TEST(api_verify_switch)
{
    mach x = mk_machine();
    setenv("RAVEL_VERIFY", "0", 1);
    CHECK_EQ_INT(ravel_verify_requested(), 0);
    ravel_checker *off = ravel_checker_new();
    setenv("RAVEL_VERIFY", "1", 1);
    CHECK(ravel_verify_requested() != 0);
    ravel_checker *on = ravel_checker_new();
    unsetenv("RAVEL_VERIFY");
    CHECK_EQ_INT(ravel_verify_requested(), 0);
    ravel_func *f = build(&x, NO_RELOAD);
    ravel_report *rep = (ravel_report *)1;
    CHECK_EQ_INT(ravel_check_if_enabled(off, f, NULL, &rep), RAVEL_OK);
    CHECK(rep == NULL);
    CHECK_EQ_INT(ravel_check_if_enabled(on, f, NULL, &rep), RAVEL_EFAIL);
    CHECK_EQ_INT(ravel_report_count(rep), 2); /* no reload, and r0 clobbered by the call */
    ravel_report_free(rep);
    ravel_checker_set_options(off, RAVEL_CHECK_VERIFY);
    CHECK_EQ_INT(ravel_check_if_enabled(off, f, NULL, NULL), RAVEL_EFAIL);
    ravel_func_free(f);
    ravel_checker_free(off);
    ravel_checker_free(on);
    ravel_machine_free(x.m);
}

static void *thread_main(void *arg)
{
    const mach *x = arg;
    ravel_checker *ck = ravel_checker_new();
    long bad = 0;
    for (int i = 0; i < 200; i++) {
        ravel_func *f = build(x, i % 2 ? NO_RELOAD : WRONG_SLOT);
        if (ravel_check(ck, f, NULL, NULL) != RAVEL_EFAIL) bad++;
        ravel_func_free(f);
    }
    ravel_checker_free(ck);
    return (void *)bad;
}

TEST(api_threads)
{
    mach x = mk_machine();
    pthread_t t[2];
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&t[i], NULL, thread_main, &x) == 0);
    for (int i = 0; i < 2; i++) {
        void *r = NULL;
        pthread_join(t[i], &r);
        CHECK(r == NULL);
    }
    ravel_machine_free(x.m);
}

int main(void)
{
    RUN(api_correct_and_broken);
    RUN(api_json_and_text);
    RUN(api_verify_switch);
    RUN(api_threads);
    return TEST_SUMMARY();
}
