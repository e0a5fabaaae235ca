/* jit_example.c - how a JIT wires ravel in: build a function through the C
 * API, allocate it, and - when verification is requested (RAVEL_VERIFY=1 in
 * the environment, or --verify) - check the allocation before "emitting".
 * --break plants a bug in the allocation first (one use reads the wrong
 * register), to show what a rejection looks like.
 *
 *   machine: class int r0..r3, reserved sp, call clobbers r0 r1
 *   func sum(n):  s = 0; i = 1; while (i <= n) { s += i; i += 1 }; out s; ret s
 */
#include <ravel.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ravel_machine *make_machine(void)
{
    ravel_machine *m = ravel_machine_new();
    int cint = ravel_machine_add_class(m, "int");
    const char *names[] = {"r0", "r1", "r2", "r3"};
    for (int i = 0; i < 4; i++) ravel_machine_add_reg(m, names[i], cint, 0);
    ravel_machine_add_reg(m, "sp", cint, 1);
    uint32_t clob[] = {0, 1};
    ravel_machine_set_clobbers(m, clob, 2);
    return m;
}

static ravel_func *make_sum(const ravel_machine *m)
{
    ravel_func *f = ravel_func_new(m, "sum");
    uint32_t r0 = (uint32_t)ravel_machine_find_reg(m, "r0");
    uint32_t b0 = ravel_block_new(f, "entry"), b1 = ravel_block_new(f, "head");
    uint32_t b2 = ravel_block_new(f, "body"), b3 = ravel_block_new(f, "exit");
    uint32_t n = ravel_vreg_new(f, 0, 0), zero = ravel_vreg_new(f, 0, 0), one = ravel_vreg_new(f, 0, 0);
    uint32_t i = ravel_vreg_new(f, 0, 0), s = ravel_vreg_new(f, 0, 0), c = ravel_vreg_new(f, 0, 0);
    uint32_t s2 = ravel_vreg_new(f, 0, 0), i2 = ravel_vreg_new(f, 0, 0);

    ravel_block_begin(f, b0);
    ravel_inst_begin(f, RAVEL_OP_ARGS, NULL);
    ravel_inst_def(f, n, RAVEL_C_FIXED, r0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_CONST, NULL);
    ravel_inst_def(f, zero, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_imm(f, 0);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_CONST, NULL);
    ravel_inst_def(f, one, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_imm(f, 1);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_JUMP, NULL);
    ravel_inst_succ(f, b1, (uint32_t[]){one, zero}, 2);
    ravel_inst_end(f);

    ravel_block_add_param(f, b1, i);
    ravel_block_add_param(f, b1, s);
    ravel_block_begin(f, b1);
    ravel_inst_begin(f, RAVEL_OP_LE, NULL);
    ravel_inst_def(f, c, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_use(f, i, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_use(f, n, RAVEL_C_ANY, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_BR, NULL);
    ravel_inst_use(f, c, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_succ(f, b2, NULL, 0);
    ravel_inst_succ(f, b3, NULL, 0);
    ravel_inst_end(f);

    ravel_block_begin(f, b2);
    ravel_inst_begin(f, RAVEL_OP_ADD, NULL);
    ravel_inst_def(f, s2, RAVEL_C_REUSE, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_use(f, s, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_use(f, i, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_ADD, NULL);
    ravel_inst_def(f, i2, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_use(f, i, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_imm(f, 1);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_JUMP, NULL);
    ravel_inst_succ(f, b1, (uint32_t[]){i2, s2}, 2);
    ravel_inst_end(f);

    ravel_block_begin(f, b3);
    ravel_inst_begin(f, RAVEL_OP_OUT, NULL);
    ravel_inst_use(f, s, RAVEL_C_ANY, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_RET, NULL);
    ravel_inst_use(f, s, RAVEL_C_FIXED, r0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_end(f);
    ravel_func_finish(f);
    return f;
}

/* A JIT's allocator bug, planted: the last use free to be in any register reads its
 * neighbour instead (r0 <-> r1, r2 <-> r3). */
static void break_allocation(ravel_func *code)
{
    for (uint32_t i = ravel_func_ninsts(code); i-- > 0;) {
        uint32_t nd = ravel_inst_ndefs(code, i), nu = ravel_inst_nuses(code, i);
        for (uint32_t k = nd + nu; k-- > nd;) {
            ravel_operand op;
            if (ravel_inst_operand(code, i, k, &op) != RAVEL_OK || op.constraint != RAVEL_C_REG || op.loc == RAVEL_LOC_NONE ||
                ravel_loc_is_slot(op.loc))
                continue;
            ravel_set_loc(code, i, k, op.loc ^ 1u);
            return;
        }
    }
}

int main(int argc, char **argv)
{
    int verify = ravel_verify_requested(), plant = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--verify") == 0) verify = 1;
        else if (strcmp(argv[a], "--break") == 0) plant = 1;
        else {
            fprintf(stderr, "usage: jit_example [--verify] [--break]\n");
            return 2;
        }
    }
    const char *allocator = getenv("RAVEL_ALLOCATOR") ? getenv("RAVEL_ALLOCATOR") : "linear";
    ravel_machine *m = make_machine();
    ravel_func *f = make_sum(m);
    ravel_diags *d = ravel_diags_new();
    int rc = 1;
    ravel_func *code = NULL;
    char *err = NULL;
    if (ravel_validate(f, RAVEL_VALIDATE_SSA, d) != RAVEL_OK) {
        ravel_diags_print(stderr, d);
        goto out;
    }
    if (ravel_allocate(allocator, f, 1, &code, &err) != RAVEL_OK) {
        fprintf(stderr, "allocation failed: %s\n", err ? err : "?");
        goto out;
    }
    if (plant) break_allocation(code);
    if (verify) {
        ravel_checker *ck = ravel_checker_new();
        ravel_report *rep = NULL;
        int v = ravel_check(ck, code, f, &rep);
        if (v != RAVEL_OK) {
            fprintf(stderr, "ravel: allocation rejected, not emitting code:\n");
            ravel_report_print(stderr, rep);
        }
        ravel_report_free(rep);
        ravel_checker_free(ck);
        if (v != RAVEL_OK) goto out;
        printf("verified\n");
    }
    ravel_print_func(stdout, code); /* stands for "emit" */
    rc = 0;
out:
    free(err);
    ravel_func_free(code);
    ravel_diags_free(d);
    ravel_func_free(f);
    ravel_machine_free(m);
    return rc;
}
