/* test_validate_api.c - the validator on functions built through the C API:
 * no source positions (messages name function, block and instruction),
 * states the text reader cannot produce (a vreg without a class, a location
 * out of range, no blocks), and the return codes. */
#include "ir/ir.h"
#include "tests/test.h"

#include <stdlib.h>

static ravel_machine *machine(void)
{
    ravel_machine *m = ravel_machine_new();
    ravel_machine_add_class(m, "int");
    ravel_machine_add_reg(m, "r0", 0, 0);
    ravel_machine_add_reg(m, "r1", 0, 0);
    return m;
}

/* Runs the validator; returns its status and copies the first message. */
static int validate(const ravel_func *f, unsigned flags, char *first, size_t n, size_t *count)
{
    ravel_diags *d = ravel_diags_new();
    int st = ravel_validate(f, flags, d);
    *count = ravel_diags_count(d);
    snprintf(first, n, "%s", d->v.len ? d->v.data[0].msg : "");
    ravel_diags_free(d);
    return st;
}

/* b0: v0 = args; v1 = add v0, v0; ret v1 (locations optional). */
static ravel_func *small(const ravel_machine *m, bool allocated)
{
    ravel_func *f = ravel_func_new(m, "f");
    uint32_t v0 = ravel_vreg_new(f, 0, 0), v1 = ravel_vreg_new(f, 0, 0);
    ravel_loc r0 = allocated ? 0 : RAVEL_LOC_NONE;
    ravel_block_begin(f, ravel_block_new(f, NULL));
    ravel_inst_begin(f, RAVEL_OP_ARGS, NULL);
    ravel_inst_def(f, v0, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, r0);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_ADD, NULL);
    ravel_inst_def(f, v1, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, r0);
    ravel_inst_use(f, v0, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, r0);
    ravel_inst_use(f, v0, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, r0);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_RET, NULL);
    ravel_inst_use(f, v1, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, r0);
    ravel_inst_end(f);
    ravel_func_finish(f);
    return f;
}

TEST(valid_both_forms)
{
    ravel_machine *m = machine();
    char msg[512];
    size_t n;
    ravel_func *f = small(m, false);
    CHECK_EQ_INT(validate(f, RAVEL_VALIDATE_SSA, msg, sizeof msg, &n), RAVEL_OK);
    CHECK_EQ_INT(n, 0);
    ravel_func_free(f);
    f = small(m, true);
    CHECK_EQ_INT(validate(f, RAVEL_VALIDATE_SSA, msg, sizeof msg, &n), RAVEL_OK);
    ravel_func_free(f);
    CHECK_EQ_INT(ravel_validate(NULL, 0, NULL), RAVEL_EINVAL);
    ravel_machine_free(m);
}

TEST(messages_without_positions)
{
    ravel_machine *m = machine();
    char msg[512];
    size_t n;
    ravel_func *f = small(m, true);
    f->ops.data[1].loc = RAVEL_LOC_NONE; /* add's def: no location */
    CHECK_EQ_INT(validate(f, 0, msg, sizeof msg, &n), RAVEL_EFAIL);
    CHECK_EQ_INT(n, 1);
    CHECK_STR(msg, "<input>: error: func f, block b0, inst 1 (add): def 0 (v1) has no location");
    f->ops.data[1].loc = 77; /* a register that does not exist */
    CHECK_EQ_INT(validate(f, 0, msg, sizeof msg, &n), RAVEL_EFAIL);
    CHECK_STR(msg, "<input>: error: func f, block b0, inst 1 (add): def 0 (v1): location reg#77 out of range");
    ravel_func_free(f);
    ravel_machine_free(m);
}

TEST(vreg_without_class)
{
    ravel_machine *m = machine();
    char msg[512];
    size_t n;
    ravel_func *f = small(m, false);
    f->vregs.data[1].has_class = false; /* v1: defined, class unknown */
    CHECK_EQ_INT(validate(f, 0, msg, sizeof msg, &n), RAVEL_EINVAL);
    CHECK_EQ_INT(n, 1); /* reported once though used twice */
    CHECK(strstr(msg, "v1 has no known class") != NULL);
    f->vregs.data[1].has_class = true;
    f->vregs.data[1].cls = 9; /* no such class */
    CHECK_EQ_INT(validate(f, 0, msg, sizeof msg, &n), RAVEL_EINVAL);
    CHECK(strstr(msg, "v1 has no known class") != NULL);
    ravel_func_free(f);
    ravel_machine_free(m);
}

/* The same on a parsed function (the reader never leaves a vreg without a
 * class): the caret is under the first operand that names the vreg (not
 * SSA: uses before definitions), here a second def, a second successor's
 * argument, a second use, a second parameter. */
TEST(vreg_without_class_positioned)
{
    static const char text[] = "machine\n  class int r0 r1\nend\nfunc f\nb0:\n"
                               "  v0:int, v1:int = args\n"            /* line 6: v1 at column 11 */
                               "  v2:int = add v0, v1\n"
                               "  br v0, b1(v0), b2(v0, v6)\n"        /* line 8: v6 at column 25 */
                               "b1(v3:int):\n"
                               "  ret v3, v5\n"                       /* line 10: v5 at column 11 */
                               "b2(v4:int, v7:int):\n"                /* line 11: v7 at column 12 */
                               "  v5:int = add v4, v7\n  v6:int = add v5, v7\n  ret v6\n"
                               "end\n";
    static const struct {
        uint32_t num, line, col;
    } cases[] = {{1, 6, 11}, {6, 8, 25}, {5, 10, 11}, {7, 11, 12}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ravel_diags *pd = ravel_diags_new();
        ravel_module *mod = ravel_module_parse(text, sizeof text - 1, "t.ra", pd);
        CHECK(mod != NULL);
        ravel_diags_free(pd);
        if (!mod) return;
        ravel_func *f = ravel_module_func(mod, 0);
        for (uint32_t v = 0; v < f->vregs.len; v++)
            if (f->vregs.data[v].num == cases[k].num) f->vregs.data[v].has_class = false;
        char msg[512], want[64];
        size_t n;
        CHECK_EQ_INT(validate(f, 0, msg, sizeof msg, &n), RAVEL_EINVAL);
        snprintf(want, sizeof want, "t.ra:%u:%u: error: ", cases[k].line, cases[k].col);
        CHECK(strncmp(msg, want, strlen(want)) == 0);
        CHECK(strstr(msg, "has no known class") != NULL);
        if (strncmp(msg, want, strlen(want)) != 0) fprintf(stderr, "want %s, got %s\n", want, msg);
        ravel_module_free(mod);
    }
}

TEST(no_blocks_and_open_block)
{
    ravel_machine *m = machine();
    char msg[512];
    size_t n;
    ravel_func *f = ravel_func_new(m, "empty");
    ravel_func_finish(f);
    CHECK_EQ_INT(validate(f, RAVEL_VALIDATE_SSA, msg, sizeof msg, &n), RAVEL_EINVAL);
    CHECK(strstr(msg, "function has no blocks") != NULL);
    ravel_func_free(f);
    /* a block started but left empty: no terminator, reported at no position */
    f = ravel_func_new(m, "g");
    ravel_block_begin(f, ravel_block_new(f, "entry"));
    ravel_func_finish(f);
    CHECK_EQ_INT(validate(f, RAVEL_VALIDATE_SSA, msg, sizeof msg, &n), RAVEL_EINVAL);
    CHECK_STR(msg, "<input>: error: func g, block entry: block entry has no terminator");
    ravel_func_free(f);
    ravel_machine_free(m);
}

/* A branch to a block created but never started (an undefined label). */
TEST(undefined_block)
{
    ravel_machine *m = machine();
    char msg[512];
    size_t n;
    ravel_func *f = ravel_func_new(m, "f");
    uint32_t b0 = ravel_block_new(f, NULL), b7 = ravel_block_new(f, "b7");
    ravel_block_begin(f, b0);
    ravel_inst_begin(f, RAVEL_OP_JUMP, NULL);
    ravel_inst_succ(f, b7, NULL, 0);
    ravel_func_finish(f);
    CHECK_EQ_INT(validate(f, RAVEL_VALIDATE_SSA, msg, sizeof msg, &n), RAVEL_EINVAL);
    CHECK_EQ_INT(n, 1);
    CHECK_STR(msg, "<input>: error: func f, block b0, inst 0 (jump): undefined block b7");
    ravel_func_free(f);
    ravel_machine_free(m);
}

/* Terminator shapes the reader rejects: br with an immediate condition, a
 * jump with operands. */
TEST(terminator_shapes)
{
    ravel_machine *m = machine();
    char msg[512];
    size_t n;
    ravel_func *f = ravel_func_new(m, "f");
    uint32_t v0 = ravel_vreg_new(f, 0, 0);
    uint32_t b0 = ravel_block_new(f, NULL), b1 = ravel_block_new(f, NULL), b2 = ravel_block_new(f, NULL);
    ravel_block_begin(f, b0);
    ravel_inst_begin(f, RAVEL_OP_ARGS, NULL);
    ravel_inst_def(f, v0, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_BR, NULL);
    ravel_inst_imm(f, 1);
    ravel_inst_succ(f, b1, NULL, 0);
    ravel_inst_succ(f, b2, NULL, 0);
    ravel_inst_end(f);
    ravel_block_begin(f, b1);
    ravel_inst_begin(f, RAVEL_OP_RET, NULL);
    ravel_inst_end(f);
    ravel_block_begin(f, b2);
    ravel_inst_begin(f, RAVEL_OP_JUMP, NULL);
    ravel_inst_use(f, v0, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_succ(f, b1, NULL, 0);
    ravel_inst_end(f);
    ravel_func_finish(f);
    CHECK_EQ_INT(validate(f, 0, msg, sizeof msg, &n), RAVEL_EINVAL);
    CHECK_EQ_INT(n, 3); /* + "jump takes no operands" + the critical edge b0 -> b1 */
    CHECK_STR(msg, "<input>: error: func f, block b0, inst 1 (br): br condition must be a vreg, not an immediate");
    ravel_func_free(f);
    ravel_machine_free(m);
}

int main(void)
{
    RUN(valid_both_forms);
    RUN(messages_without_positions);
    RUN(vreg_without_class);
    RUN(vreg_without_class_positioned);
    RUN(no_blocks_and_open_block);
    RUN(undefined_block);
    RUN(terminator_shapes);
    return TEST_SUMMARY();
}
