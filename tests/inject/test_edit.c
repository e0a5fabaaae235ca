/* test_edit.c - the in-place instruction edits of ir/edit.c (used by
 * injection and by the tests that corrupt allocations): each edit's
 * instruction sequence, block bounds and slot count against the expected
 * ones written out by hand. Injection's own tests only require that a
 * corrupted allocation be rejected, which a lost or duplicated instruction
 * also is: they cannot tell a wrong edit from the intended one. */
#include "ir/ir.h"
#include "tests/test.h"

#include <stdio.h>
#include <string.h>

static const char *text = "machine\n  class int r0 r1\nend\n\nfunc f\nb0:\n"
                          "  v0:int @r0 = args\n  v1:int @r1 = add v0 @r0, v0 @r0\n  jump b1\n"
                          "b1:\n  out v1 @r1\n  ret\nend\n";

/* The mnemonics of f's instructions, blocks separated by " |". */
static const char *seq(const ravel_func *f, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = 0;
    for (uint32_t b = 0; b < f->blocks.len; b++) {
        const rv_block *bl = &f->blocks.data[b];
        for (uint32_t j = 0; j < bl->ninsts; j++)
            o += (size_t)snprintf(buf + o, n - o, "%s%s", o ? " " : "", rv_inst_mnemonic(f, rv_inst_at(f, bl->first_inst + j)));
        if (b + 1 < f->blocks.len) o += (size_t)snprintf(buf + o, n - o, " |");
    }
    return buf;
}

TEST(edits)
{
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, strlen(text), "<edit>", d);
    ravel_diags_free(d);
    CHECK(m != NULL);
    if (!m) return;
    ravel_func *f = (ravel_func *)ravel_module_func(m, 0);
    char buf[256];
    uint32_t ns = f->nslots;
    rv_edit_insert(f, 0, 2, RAVEL_OP_SPILL, ravel_slot(ns + 3), 1); /* before b0's jump, into a new slot */
    CHECK_STR(seq(f, buf, sizeof buf), "args add spill jump | out ret");
    CHECK_EQ_INT(f->nslots, ns + 4);
    CHECK_EQ_INT(f->blocks.data[1].first_inst, 4);
    rv_edit_insert(f, 1, 4, RAVEL_OP_RELOAD, 0, ravel_slot(ns + 3)); /* at b1's first instruction */
    CHECK_STR(seq(f, buf, sizeof buf), "args add spill jump | reload out ret");
    CHECK_EQ_INT(f->blocks.data[1].first_inst, 4);
    CHECK_EQ_INT(f->blocks.data[0].ninsts, 4);
    rv_inst_move_before(f, 1, 2); /* the spill before the add */
    CHECK_STR(seq(f, buf, sizeof buf), "args spill add jump | reload out ret");
    rv_inst_move_before(f, 0, 2); /* three instructions turned */
    CHECK_STR(seq(f, buf, sizeof buf), "add args spill jump | reload out ret");
    rv_inst_swap(f, 0, 1);
    CHECK_STR(seq(f, buf, sizeof buf), "args add spill jump | reload out ret");
    rv_inst_remove(f, 2);
    CHECK_STR(seq(f, buf, sizeof buf), "args add jump | reload out ret");
    CHECK_EQ_INT(f->blocks.data[1].first_inst, 3);
    rv_inst_remove(f, 3);
    CHECK_STR(seq(f, buf, sizeof buf), "args add jump | out ret");
    CHECK_EQ_INT(f->blocks.data[1].first_inst, 3);
    CHECK_EQ_INT(f->insts.len, 5);
    ravel_module_free(m);
}

int main(void)
{
    RUN(edits);
    return TEST_SUMMARY();
}
