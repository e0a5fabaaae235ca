/* test_interp.c - unit tests of the concrete interpreter through the C API:
 * the mix function's reference values, malformed functions (no crash, an
 * error), the default step limit, comparison messages, input vectors. The
 * semantics of each mnemonic are tested by the text cases in run/. */
#include "ir/ir.h"
#include "tests/test.h"

#include <stdlib.h>

/* Reference values computed from the definition in docs/format.md by an
 * independent implementation. */
TEST(mix_reference_values)
{
    CHECK(rv_mix(0, 0) == 0x48218226ff3cd4bfULL);
    CHECK(rv_mix(1, 2) == 0xf2826f98653e9e57ULL);
    CHECK(rv_mix_str(0, "add") == 0x9e1c337ff2bcd71dULL);
    CHECK(rv_mix_str(5, "") == 0xe8eaa058aeaafe01ULL);
    CHECK(rv_mix(1, 2) != rv_mix(2, 1));
}

static ravel_machine *machine(void)
{
    ravel_machine *m = ravel_machine_new();
    ravel_machine_add_class(m, "int");
    ravel_machine_add_reg(m, "r0", 0, 0);
    ravel_machine_add_reg(m, "r1", 0, 0);
    return m;
}

static void add_op(ravel_func *f, ravel_opcode op, uint32_t def, uint32_t use, ravel_loc dl, ravel_loc ul)
{
    ravel_inst_begin(f, op, op == RAVEL_OP_OTHER ? "foo" : NULL);
    if (def != RAVEL_NONE) ravel_inst_def(f, def, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, dl);
    if (use != RAVEL_NONE) ravel_inst_use(f, use, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, ul);
    ravel_inst_end(f);
}

/* A block without a terminator, a branch to a never-started block: errors,
 * never a crash (the interpreter does not require a valid function). */
TEST(malformed_functions)
{
    ravel_machine *m = machine();
    ravel_func *f = ravel_func_new(m, "f");
    uint32_t v0 = ravel_vreg_new(f, 0, 0);
    uint32_t b0 = ravel_block_new(f, NULL);
    ravel_block_begin(f, b0);
    add_op(f, RAVEL_OP_ARGS, v0, RAVEL_NONE, RAVEL_LOC_NONE, RAVEL_LOC_NONE);
    ravel_func_finish(f);
    rv_run_opts o = {0};
    rv_run_result r;
    CHECK_EQ_INT(rv_interp_run(f, &o, &r), RV_RUN_ERROR);
    CHECK(strstr(r.msg, "has no terminator") != NULL);
    rv_run_result_free(&r);
    ravel_func_free(f);

    f = ravel_func_new(m, "g");
    b0 = ravel_block_new(f, NULL);
    uint32_t b9 = ravel_block_new(f, "b9");
    ravel_block_begin(f, b0);
    ravel_inst_begin(f, RAVEL_OP_JUMP, NULL);
    ravel_inst_succ(f, b9, NULL, 0);
    ravel_func_finish(f);
    CHECK_EQ_INT(rv_interp_run(f, &o, &r), RV_RUN_ERROR);
    CHECK(strstr(r.msg, "undefined block") != NULL);
    CHECK_EQ_INT(r.err_inst, 0);
    rv_run_result_free(&r);
    ravel_func_free(f);

    /* an unallocated function run as allocated: no locations */
    f = ravel_func_new(m, "h");
    v0 = ravel_vreg_new(f, 0, 0);
    b0 = ravel_block_new(f, NULL);
    ravel_block_begin(f, b0);
    add_op(f, RAVEL_OP_ARGS, v0, RAVEL_NONE, RAVEL_LOC_NONE, RAVEL_LOC_NONE);
    add_op(f, RAVEL_OP_RET, RAVEL_NONE, v0, RAVEL_LOC_NONE, RAVEL_LOC_NONE);
    ravel_func_finish(f);
    o.allocated = true;
    CHECK_EQ_INT(rv_interp_run(f, &o, &r), RV_RUN_ERROR);
    CHECK(strstr(r.msg, "no usable location") != NULL);
    rv_run_result_free(&r);
    o.allocated = false;
    CHECK_EQ_INT(rv_interp_run(f, &o, &r), RV_RUN_OK);
    CHECK_EQ_INT(r.rets.len, 1);
    CHECK_EQ_INT(r.rets.data[0], 0); /* missing input */
    rv_run_result_free(&r);
    ravel_func_free(f);
    ravel_machine_free(m);
}

/* b0: jump b0 would be a branch to the entry; loop through b1 instead. */
TEST(default_step_limit)
{
    ravel_machine *m = machine();
    ravel_func *f = ravel_func_new(m, "loop");
    uint32_t b0 = ravel_block_new(f, NULL), b1 = ravel_block_new(f, NULL);
    ravel_block_begin(f, b0);
    ravel_inst_begin(f, RAVEL_OP_JUMP, NULL);
    ravel_inst_succ(f, b1, NULL, 0);
    ravel_inst_end(f);
    ravel_block_begin(f, b1);
    ravel_inst_begin(f, RAVEL_OP_JUMP, NULL);
    ravel_inst_succ(f, b1, NULL, 0);
    ravel_inst_end(f);
    ravel_func_finish(f);
    rv_run_opts o = {0};
    rv_run_result r;
    CHECK_EQ_INT(rv_interp_run(f, &o, &r), RV_RUN_STEP_LIMIT);
    CHECK_EQ_INT(r.steps, 1000000);
    rv_run_result_free(&r);
    o.step_limit = 10;
    CHECK_EQ_INT(rv_interp_run(f, &o, &r), RV_RUN_STEP_LIMIT);
    CHECK_EQ_INT(r.steps, 10);
    rv_run_result_free(&r);
    ravel_func_free(f);
    ravel_machine_free(m);
}

/* orig: v1 = foo v0; out v1. alloc: the same, but out reads r1 (v0) instead
 * of r0 (v1). */
static ravel_func *out_func(const ravel_machine *m, bool allocated, ravel_loc out_loc)
{
    ravel_func *f = ravel_func_new(m, "f");
    uint32_t v0 = ravel_vreg_new(f, 0, 0), v1 = ravel_vreg_new(f, 0, 0);
    uint32_t b0 = ravel_block_new(f, NULL);
    ravel_loc r0 = allocated ? 0 : RAVEL_LOC_NONE, r1 = allocated ? 1 : RAVEL_LOC_NONE;
    ravel_block_begin(f, b0);
    add_op(f, RAVEL_OP_ARGS, v0, RAVEL_NONE, r1, RAVEL_LOC_NONE);
    add_op(f, RAVEL_OP_OTHER, v1, v0, r0, r1);
    add_op(f, RAVEL_OP_OUT, RAVEL_NONE, v1, RAVEL_LOC_NONE, allocated ? out_loc : RAVEL_LOC_NONE);
    ravel_inst_begin(f, RAVEL_OP_RET, NULL);
    ravel_inst_imm(f, -1);
    ravel_inst_end(f);
    ravel_func_finish(f);
    return f;
}

TEST(compare_messages)
{
    ravel_machine *m = machine();
    ravel_func *orig = out_func(m, false, 0), *good = out_func(m, true, 0), *bad = out_func(m, true, 1);
    uint64_t in[1] = {42};
    rv_run_opts o = {in, 1, 0, false, false, 0};
    char msg[512];
    CHECK(rv_interp_compare(orig, good, &o, msg, sizeof msg));
    CHECK_STR(msg, "");
    CHECK(!rv_interp_compare(orig, bad, &o, msg, sizeof msg));
    CHECK(strncmp(msg, "first difference: out #0: orig ", 31) == 0);
    CHECK(strstr(msg, "vs alloc 42 (block b0, inst 2 (out))") != NULL);
    CHECK(!rv_interp_compare(orig, bad, &o, NULL, 0)); /* msg is optional */
    /* the same function in both roles (an allocated one stripped to vregs) */
    ravel_func *stripped = rv_func_strip(good);
    CHECK(rv_interp_compare(stripped, good, &o, msg, sizeof msg));
    rv_run_result r;
    CHECK_EQ_INT(rv_interp_run(good, &(rv_run_opts){in, 1, 0, false, true, 0}, &r), RV_RUN_OK);
    CHECK_EQ_INT(r.rets.len, 1);
    CHECK_EQ_INT((int64_t)r.rets.data[0], -1);
    CHECK_EQ_INT(r.out.len, 1);
    CHECK_EQ_INT(r.out_inst.data[0], 2);
    rv_run_result_free(&r);
    ravel_func_free(stripped);
    ravel_func_free(orig);
    ravel_func_free(good);
    ravel_func_free(bad);
    ravel_machine_free(m);
}

TEST(input_vectors)
{
    uint64_t a[64], b[64];
    rv_interp_inputs(7, 3, a, 64);
    rv_interp_inputs(7, 3, b, 64);
    CHECK(memcmp(a, b, sizeof a) == 0);
    rv_interp_inputs(7, 4, b, 64);
    CHECK(memcmp(a, b, sizeof a) != 0);
    int small = 0, neg = 0, big = 0;
    for (int i = 0; i < 64; i++) {
        small += a[i] <= 10;
        neg += (int64_t)a[i] < 0 && (int64_t)a[i] >= -10;
        big += a[i] > 0xffffffffffULL;
    }
    CHECK(small > 0);
    CHECK(neg > 0);
    CHECK(big > 0);
    ravel_machine *m = machine();
    ravel_func *f = out_func(m, false, 0);
    CHECK_EQ_INT(rv_interp_ninputs(f), 1);
    ravel_func_free(f);
    ravel_machine_free(m);
}

int main(void)
{
    RUN(mix_reference_values);
    RUN(malformed_functions);
    RUN(default_step_limit);
    RUN(compare_messages);
    RUN(input_vectors);
    return TEST_SUMMARY();
}
