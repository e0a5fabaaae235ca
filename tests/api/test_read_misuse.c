/*
 * test_read_misuse.c - the read API under misuse: NULL, ids and indexes out
 * of range, edit-only readers on non-edits, successor readers on
 * non-terminators. Every call returns its documented error value.
 */
#include "ravel.h"
#include <stdio.h>
#include <string.h>

static int fails;
#define EXPECT(c) do { if (!(c)) { fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #c); fails++; } } while (0)

static void null_args(void)
{
    ravel_operand o;
    int64_t v;
    uint32_t p;
    EXPECT(ravel_machine_class_name(NULL, 0) == NULL);
    EXPECT(ravel_machine_reg_class(NULL, 0) == -1);
    EXPECT(ravel_machine_reg_reserved(NULL, 0) == -1);
    EXPECT(ravel_machine_class_nallocatable(NULL, 0) == 0);
    EXPECT(ravel_machine_class_allocatable(NULL, 0, 0) == RAVEL_NONE);
    EXPECT(ravel_machine_nclobbers(NULL) == 0);
    EXPECT(ravel_machine_clobber(NULL, 0) == RAVEL_NONE);
    EXPECT(ravel_machine_gc_moving(NULL) == -1);
    EXPECT(ravel_machine_ncontainers(NULL) == 0);
    EXPECT(ravel_machine_container(NULL, 0) == RAVEL_NONE);
    EXPECT(ravel_machine_ncontained(NULL, 0) == 0);
    EXPECT(ravel_machine_contained(NULL, 0, 0) == RAVEL_NONE);
    EXPECT(ravel_machine_contains(NULL, 0, 1) == -1);
    EXPECT(ravel_machine_overlap(NULL, 0, 1) == -1);
    EXPECT(ravel_machine_noverlapping(NULL, 0) == 0);
    EXPECT(ravel_machine_overlapping(NULL, 0, 0) == RAVEL_NONE);
    EXPECT(ravel_inst_is_undef(NULL, 0) == -1);
    EXPECT(ravel_remat_const(NULL, 0, &v) == RAVEL_EINVAL);
    EXPECT(ravel_func_machine(NULL) == NULL);
    EXPECT(ravel_func_name(NULL) == NULL);
    EXPECT(ravel_func_nvregs(NULL) == 0);
    EXPECT(ravel_vreg_class(NULL, 0) == -1);
    EXPECT(ravel_vreg_is_ref(NULL, 0) == -1);
    EXPECT(ravel_vreg_number(NULL, 0) == RAVEL_NONE);
    EXPECT(ravel_func_find_vreg(NULL, 0) == RAVEL_NONE);
    EXPECT(ravel_vreg_new_num(NULL, 0, 0, 0) == RAVEL_NONE);
    EXPECT(ravel_func_nblocks(NULL) == 0);
    EXPECT(ravel_block_name(NULL, 0) == NULL);
    EXPECT(ravel_block_nparams(NULL, 0) == 0);
    EXPECT(ravel_block_param(NULL, 0, 0) == RAVEL_NONE);
    EXPECT(ravel_block_first_inst(NULL, 0) == RAVEL_NONE);
    EXPECT(ravel_block_ninsts(NULL, 0) == 0);
    EXPECT(ravel_func_ninsts(NULL) == 0);
    EXPECT(ravel_inst_block(NULL, 0) == RAVEL_NONE);
    EXPECT(ravel_inst_opcode(NULL, 0) == -1);
    EXPECT(ravel_inst_name(NULL, 0) == NULL);
    EXPECT(ravel_inst_ndefs(NULL, 0) == 0);
    EXPECT(ravel_inst_nuses(NULL, 0) == 0);
    EXPECT(ravel_inst_operand(NULL, 0, 0, &o) == RAVEL_EINVAL);
    EXPECT(ravel_inst_nimms(NULL, 0) == 0);
    EXPECT(ravel_inst_imm_at(NULL, 0, 0, &v, &p) == RAVEL_EINVAL);
    EXPECT(ravel_inst_has_clobbers(NULL, 0) == -1);
    EXPECT(ravel_inst_nclobbers(NULL, 0) == 0);
    EXPECT(ravel_inst_clobber(NULL, 0, 0) == RAVEL_NONE);
    EXPECT(ravel_inst_nclobbered(NULL, 0) == 0);
    EXPECT(ravel_inst_clobbered(NULL, 0, 0) == RAVEL_NONE);
    EXPECT(ravel_inst_is_safepoint(NULL, 0) == -1);
    EXPECT(ravel_inst_has_stackmap(NULL, 0) == -1);
    EXPECT(ravel_inst_stackmap_len(NULL, 0) == 0);
    EXPECT(ravel_inst_stackmap_slot(NULL, 0, 0) == RAVEL_NONE);
    EXPECT(ravel_inst_nsuccs(NULL, 0) == 0);
    EXPECT(ravel_inst_succ_block(NULL, 0, 0) == RAVEL_NONE);
    EXPECT(ravel_inst_succ_nargs(NULL, 0, 0) == 0);
    EXPECT(ravel_inst_succ_arg(NULL, 0, 0, 0) == RAVEL_NONE);
    EXPECT(ravel_edit_dst(NULL, 0) == RAVEL_LOC_NONE);
    EXPECT(ravel_edit_src(NULL, 0) == RAVEL_LOC_NONE);
    EXPECT(ravel_inst_is_edit(NULL, 0) == -1);
    EXPECT(ravel_inst_is_terminator(NULL, 0) == -1);
    EXPECT(ravel_func_nslots(NULL) == 0);
    EXPECT(ravel_func_is_allocated(NULL) == -1);
    EXPECT(ravel_opcode_name(-1) == NULL);
    EXPECT(ravel_opcode_name(RAVEL_OP_OTHER) == NULL);
    EXPECT(ravel_opcode_name(RAVEL_OP_COUNT_) == NULL);
    EXPECT(ravel_opcode_name(1000) == NULL);
    /* terminators and edits are named too */
    const char *want[] = {"add", "jump", "br", "ret", "spill", "reload", "move"};
    const int ops[] = {RAVEL_OP_ADD, RAVEL_OP_JUMP, RAVEL_OP_BR, RAVEL_OP_RET, RAVEL_OP_SPILL, RAVEL_OP_RELOAD, RAVEL_OP_MOVE};
    for (unsigned k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        const char *n = ravel_opcode_name(ops[k]);
        EXPECT(n && strcmp(n, want[k]) == 0);
    }
    for (int op = RAVEL_OP_OTHER + 1; op < RAVEL_OP_COUNT_; op++) EXPECT(ravel_opcode_name(op) != NULL);
}

int main(void)
{
    null_args();
    ravel_machine *m = ravel_machine_new();
    int c = ravel_machine_add_class(m, "int");
    int r0 = ravel_machine_add_reg(m, "r0", c, 0);
    int r1 = ravel_machine_add_reg(m, "r1", c, 0);
    uint32_t clob[1] = {(uint32_t)r1};
    ravel_machine_set_clobbers(m, clob, 1);
    ravel_func *f = ravel_func_new(m, "f");
    uint32_t v0 = ravel_vreg_new_num(f, 7, c, 0);
    EXPECT(ravel_vreg_new_num(f, 7, c, 0) == RAVEL_NONE); /* number used */
    EXPECT(ravel_vreg_new_num(f, 8, 99, 0) == RAVEL_NONE); /* bad class */
    uint32_t b0 = ravel_block_new(f, "entry"), b1 = ravel_block_new(f, "exit");
    ravel_block_begin(f, b0);
    ravel_inst_begin(f, RAVEL_OP_ARGS, NULL); /* 0 */
    ravel_inst_def(f, v0, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, (ravel_loc)r0);
    ravel_inst_end(f);
    ravel_edit(f, RAVEL_OP_SPILL, ravel_slot(3), (ravel_loc)r0); /* 1 */
    ravel_inst_begin(f, RAVEL_OP_JUMP, NULL); /* 2 */
    ravel_inst_succ(f, b1, NULL, 0);
    ravel_inst_end(f);
    ravel_block_begin(f, b1);
    ravel_inst_begin(f, RAVEL_OP_RET, NULL); /* 3 */
    ravel_inst_use(f, v0, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, (ravel_loc)r0);
    ravel_inst_end(f);
    EXPECT(ravel_func_finish(f) == RAVEL_OK);

    ravel_operand o;
    /* in range: sanity */
    EXPECT(ravel_func_nblocks(f) == 2 && ravel_func_ninsts(f) == 4);
    EXPECT(ravel_func_find_vreg(f, 7) == v0 && ravel_func_find_vreg(f, 8) == RAVEL_NONE);
    EXPECT(ravel_edit_dst(f, 1) == ravel_slot(3) && ravel_edit_src(f, 1) == (ravel_loc)r0);
    EXPECT(ravel_inst_block(f, 3) == 1 && ravel_func_nslots(f) == 4 && ravel_func_is_allocated(f) == 1);
    EXPECT(ravel_machine_gc_moving(m) == 1 && ravel_machine_clobber(m, 0) == (uint32_t)r1);
    /* out of range */
    EXPECT(ravel_machine_class_name(m, 1) == NULL);
    EXPECT(ravel_machine_reg_class(m, 2) == -1);
    EXPECT(ravel_machine_reg_reserved(m, 2) == -1);
    EXPECT(ravel_machine_class_nallocatable(m, 1) == 0);
    EXPECT(ravel_machine_class_allocatable(m, 0, 2) == RAVEL_NONE);
    EXPECT(ravel_machine_clobber(m, 1) == RAVEL_NONE);
    EXPECT(ravel_vreg_class(f, 1) == -1 && ravel_vreg_is_ref(f, 1) == -1 && ravel_vreg_number(f, 1) == RAVEL_NONE);
    EXPECT(ravel_block_name(f, 2) == NULL && ravel_block_nparams(f, 2) == 0 && ravel_block_param(f, 0, 0) == RAVEL_NONE);
    EXPECT(ravel_block_first_inst(f, 2) == RAVEL_NONE && ravel_block_ninsts(f, 2) == 0);
    EXPECT(ravel_inst_block(f, 4) == RAVEL_NONE && ravel_inst_opcode(f, 4) == -1 && ravel_inst_name(f, 4) == NULL);
    EXPECT(ravel_inst_operand(f, 0, 1, &o) == RAVEL_EINVAL && ravel_inst_operand(f, 0, 0, NULL) == RAVEL_EINVAL);
    EXPECT(ravel_inst_operand(f, 4, 0, &o) == RAVEL_EINVAL);
    EXPECT(ravel_inst_imm_at(f, 0, 0, NULL, NULL) == RAVEL_EINVAL);
    EXPECT(ravel_inst_clobber(f, 0, 0) == RAVEL_NONE && ravel_inst_clobbered(f, 0, 0) == RAVEL_NONE);
    EXPECT(ravel_inst_stackmap_slot(f, 0, 0) == RAVEL_NONE && ravel_inst_stackmap_len(f, 4) == 0);
    EXPECT(ravel_inst_is_edit(f, 4) == -1 && ravel_inst_is_terminator(f, 4) == -1);
    EXPECT(ravel_inst_has_stackmap(f, 4) == -1 && ravel_inst_is_safepoint(f, 4) == -1 && ravel_inst_has_clobbers(f, 4) == -1);
    /* edit readers on a non-edit, successor readers on a non-terminator / ret / edit */
    EXPECT(ravel_edit_dst(f, 0) == RAVEL_LOC_NONE && ravel_edit_src(f, 2) == RAVEL_LOC_NONE);
    EXPECT(ravel_inst_nsuccs(f, 0) == 0 && ravel_inst_succ_block(f, 0, 0) == RAVEL_NONE);
    EXPECT(ravel_inst_nsuccs(f, 1) == 0 && ravel_inst_nsuccs(f, 3) == 0);
    EXPECT(ravel_inst_succ_block(f, 2, 0) == 1 && ravel_inst_succ_block(f, 2, 1) == RAVEL_NONE);
    EXPECT(ravel_inst_succ_nargs(f, 2, 1) == 0 && ravel_inst_succ_arg(f, 2, 0, 0) == RAVEL_NONE);
    EXPECT(ravel_inst_is_edit(f, 1) == 1 && ravel_inst_is_edit(f, 2) == 0);
    EXPECT(ravel_inst_is_terminator(f, 2) == 1 && ravel_inst_is_terminator(f, 1) == 0);
    EXPECT(ravel_inst_has_stackmap(f, 1) == 0 && ravel_inst_has_stackmap(f, 2) == 0);
    EXPECT(ravel_inst_ndefs(f, 1) == 0 && ravel_inst_nuses(f, 1) == 0 && ravel_inst_operand(f, 1, 0, &o) == RAVEL_EINVAL);
    EXPECT(ravel_opcode_name(ravel_inst_opcode(f, 1)) != NULL && ravel_inst_name(f, 1) == NULL);
    ravel_func_free(f);

    /* An unfinished function (a block never begun, an open instruction):
     * the readers' answers are unspecified, but none may crash. */
    ravel_func *u = ravel_func_new(m, "u");
    uint32_t w = ravel_vreg_new(u, c, 1), ub1 = ravel_block_new(u, "late");
    ravel_block_begin(u, ravel_block_new(u, "first"));
    ravel_inst_begin(u, RAVEL_OP_ADD, NULL);
    ravel_inst_def(u, w, RAVEL_C_REG, 0, RAVEL_POS_LATE, RAVEL_LOC_NONE);
    ravel_inst_imm(u, 5);
    for (uint32_t b = 0; b < 3; b++) {
        (void)ravel_block_name(u, b);
        (void)ravel_block_first_inst(u, b);
        (void)ravel_block_ninsts(u, b);
        (void)ravel_block_param(u, b, 0);
    }
    for (uint32_t i = 0; i < 2; i++) {
        (void)ravel_inst_block(u, i);
        (void)ravel_inst_operand(u, i, 0, &o);
        (void)ravel_inst_operand(u, i, 1, &o);
        (void)ravel_inst_imm_at(u, i, 0, NULL, NULL);
        (void)ravel_inst_nclobbered(u, i);
        (void)ravel_inst_stackmap_len(u, i);
        (void)ravel_inst_succ_block(u, i, 0);
    }
    (void)ub1;
    ravel_func_free(u);
    ravel_machine_free(m);
    if (fails) fprintf(stderr, "%d failures\n", fails);
    else printf("ok\n");
    return fails ? 1 : 0;
}
