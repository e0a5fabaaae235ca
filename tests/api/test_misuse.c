/* test_misuse.c - the misuse rule of include/ravel.h, by value: NULL and
 * out-of-range arguments fail with the documented value, builder failures
 * record a message (ravel_func_error), and a report on a function built
 * through the API names its blocks and instructions. */
#define _POSIX_C_SOURCE 200809L
#include "ravel.h"
#include "tests/checker/report_text.h"
#include "tests/test.h"

#include <stdlib.h>

TEST(null_arguments)
{
    CHECK_EQ_INT(ravel_machine_add_class(NULL, "int"), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_machine_add_reg(NULL, "r0", 0, 0), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_machine_set_clobbers(NULL, NULL, 0), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_machine_find_reg(NULL, "r0"), -1);
    CHECK_EQ_INT(ravel_machine_find_class(NULL, "int"), -1);
    CHECK_EQ_INT(ravel_machine_nregs(NULL), 0);
    CHECK_EQ_INT(ravel_machine_nclasses(NULL), 0);
    CHECK(ravel_machine_reg_name(NULL, 0) == NULL);
    ravel_machine_set_gc_moving(NULL, 1);
    CHECK(ravel_func_new(NULL, "f") == NULL);
    CHECK_EQ_INT(ravel_vreg_new(NULL, 0, 0), RAVEL_NONE);
    CHECK_EQ_INT(ravel_block_new(NULL, NULL), RAVEL_NONE);
    CHECK_EQ_INT(ravel_block_add_param(NULL, 0, 0), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_block_begin(NULL, 0), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_inst_begin(NULL, RAVEL_OP_ADD, NULL), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_inst_def(NULL, 0, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_inst_use(NULL, 0, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_inst_imm(NULL, 1), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_inst_clobbers(NULL, NULL, 0), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_inst_safepoint(NULL), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_inst_stackmap(NULL, NULL, 0), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_inst_succ(NULL, 0, NULL, 0), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_inst_end(NULL), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_edit(NULL, RAVEL_OP_MOVE, 0, 1), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_func_finish(NULL), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_set_loc(NULL, 0, 0, 0), RAVEL_EINVAL);
    CHECK(ravel_func_error(NULL) == NULL);
    CHECK_EQ_INT(ravel_print_func(stdout, NULL), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_print_machine(stdout, NULL), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_validate(NULL, 0, NULL), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_check(NULL, NULL, NULL, NULL), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_checker_options(NULL), 0);
    ravel_checker_set_options(NULL, 1);
    ravel_checker_add_options(NULL, 1);
    ravel_checker_clear_options(NULL, 1);
    ravel_checker_set_max_errors(NULL, 1);
    CHECK_EQ_INT(ravel_report_count(NULL), 0);
    CHECK_EQ_INT(ravel_report_omitted(NULL), 0);
    CHECK(ravel_module_parse(NULL, 10, "x", NULL) == NULL);
    ravel_func *o = (ravel_func *)1;
    CHECK_EQ_INT(ravel_allocate("fast", NULL, 0, &o, NULL), RAVEL_EINVAL);
    CHECK(o == NULL);
}

TEST(null_lists)
{
    ravel_machine *m = ravel_machine_new();
    int c = ravel_machine_add_class(m, "int");
    ravel_machine_add_reg(m, "r0", c, 0);
    CHECK(ravel_machine_error(m) == NULL);
    CHECK_EQ_INT(ravel_machine_set_clobbers(m, NULL, 2), RAVEL_EINVAL);
    CHECK_STR(ravel_machine_error(m), "ravel_machine_set_clobbers: NULL list");
    CHECK_EQ_INT(ravel_machine_add_reg(m, "r9", 7, 0), RAVEL_EINVAL);
    CHECK_STR(ravel_machine_error(m), "ravel_machine_add_reg: bad class id");
    CHECK_EQ_INT(ravel_machine_add_class(m, "int"), RAVEL_EINVAL);
    CHECK_STR(ravel_machine_error(m), "ravel_machine_add_class: a class of that name exists");
    CHECK(ravel_machine_error(NULL) == NULL);
    ravel_func *f = ravel_func_new(m, "f");
    uint32_t b = ravel_block_new(f, NULL);
    CHECK_EQ_INT(ravel_block_begin(f, b), RAVEL_OK);
    CHECK(ravel_inst_begin(f, RAVEL_OP_OTHER, "foo") >= 0);
    CHECK_EQ_INT(ravel_inst_clobbers(f, NULL, 2), RAVEL_EINVAL);
    CHECK_STR(ravel_func_error(f), "clobbers: NULL list");
    CHECK_EQ_INT(ravel_inst_stackmap(f, NULL, 2), RAVEL_EINVAL);
    CHECK_STR(ravel_func_error(f), "stackmap: NULL list");
    CHECK_EQ_INT(ravel_inst_succ(f, b, NULL, 2), RAVEL_EINVAL);
    CHECK_STR(ravel_func_error(f), "succ: NULL argument list");
    ravel_func_free(f);
    ravel_machine_free(m);
}

/* A builder failure says why; a report names blocks and instructions. */
TEST(builder_messages_and_api_report)
{
    ravel_machine *m = ravel_machine_new();
    int c = ravel_machine_add_class(m, "int");
    ravel_machine_add_reg(m, "r0", c, 0);
    ravel_machine_add_reg(m, "r1", c, 0);
    ravel_func *f = ravel_func_new(m, "jit");
    CHECK(ravel_func_error(f) == NULL);
    uint32_t b = ravel_block_new(f, "entry");
    CHECK_EQ_INT(ravel_block_begin(f, 9), RAVEL_EINVAL);
    CHECK_STR(ravel_func_error(f), "ravel_block_begin: bad block id");
    ravel_block_begin(f, b);
    uint32_t v = ravel_vreg_new(f, c, 0);
    ravel_inst_begin(f, RAVEL_OP_CONST, NULL);
    CHECK_EQ_INT(ravel_inst_def(f, 77, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, 0), RAVEL_EINVAL);
    CHECK_STR(ravel_func_error(f), "bad vreg id");
    ravel_inst_def(f, v, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, 0);
    ravel_inst_imm(f, 1);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_OUT, NULL);
    ravel_inst_use(f, v, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, 1); /* wrong: v is in r0 */
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_RET, NULL);
    ravel_inst_end(f);
    CHECK_EQ_INT(ravel_func_finish(f), RAVEL_OK);
    ravel_checker *ck = ravel_checker_new();
    ravel_report *rep = NULL;
    CHECK_EQ_INT(ravel_check(ck, f, NULL, &rep), RAVEL_EFAIL);
    char *buf = report_text(rep);
    CHECK(buf && strstr(buf, "<input>: error[use-unknown]: in func jit, block entry, inst 1, `out v0 @r1`") != NULL);
    CHECK(buf && strstr(buf, "<input>:0") == NULL);
    if (buf) fputs(buf, stdout);
    free(buf);
    ravel_report_free(rep);
    ravel_checker_free(ck);
    ravel_func_free(f);
    /* a function with no blocks: a clean EINVAL, a message naming it */
    f = ravel_func_new(m, "empty");
    ravel_func_finish(f);
    ck = ravel_checker_new();
    CHECK_EQ_INT(ravel_check(ck, f, NULL, &rep), RAVEL_EINVAL);
    CHECK(ravel_report_ndiags(rep) == 1 && strstr(ravel_report_diag(rep, 0), "func empty: function without blocks"));
    ravel_report_free(rep);
    ravel_checker_free(ck);
    ravel_func_free(f);
    ravel_machine_free(m);
}

int main(void)
{
    RUN(null_arguments);
    RUN(null_lists);
    RUN(builder_messages_and_api_report);
    return TEST_SUMMARY();
}
