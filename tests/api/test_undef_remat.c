/*
 * test_undef_remat.c - `undef` and `remat` (docs/format.md sections 14.2,
 * 14.3) through the public API and the reader: the builders and their
 * misuse, the readers, the printed text and its reading back, the
 * validator's shape rules for API-built functions, the unallocated form,
 * structural equality, and (random) remat's K in every spelling the reader
 * takes, modulo 2^64.
 */
#define _GNU_SOURCE
#include "ir/ir.h"
#include "ir/rng.h"
#include "tests/test.h"

#include <stdlib.h>

static ravel_machine *machine(void)
{
    ravel_machine *m = ravel_machine_new();
    int c = ravel_machine_add_class(m, "int");
    ravel_machine_add_reg(m, "r0", c, 0);
    ravel_machine_add_reg(m, "r1", c, 0);
    ravel_machine_add_reg(m, "r2", c, 0);
    ravel_machine_add_reg(m, "sp", c, 1);
    return m;
}

static char *text_of(const ravel_func *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    ravel_print_func(fp, f);
    fclose(fp);
    return buf;
}

/* v0 @r0 = args; v1 any @s2 = undef; r1 = remat K clobbers(r2 r0); s9 = remat -3; ret v0 @r0 */
static ravel_func *build(const ravel_machine *m, int64_t k)
{
    ravel_func *f = ravel_func_new(m, "f");
    uint32_t v0 = ravel_vreg_new(f, 0, 0), v1 = ravel_vreg_new(f, 0, 0);
    ravel_block_begin(f, ravel_block_new(f, "b0"));
    ravel_inst_begin(f, RAVEL_OP_ARGS, NULL);
    ravel_inst_def(f, v0, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, 0);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_UNDEF, NULL);
    ravel_inst_def(f, v1, RAVEL_C_ANY, 0, RAVEL_POS_DEFAULT, ravel_slot(2));
    ravel_inst_end(f);
    uint32_t clob[] = {2, 0, 2};
    CHECK(ravel_remat(f, 1, k, clob, 3) == 2);
    CHECK(ravel_remat(f, ravel_slot(9), -3, NULL, 0) == 3);
    ravel_inst_begin(f, RAVEL_OP_RET, NULL);
    ravel_inst_use(f, v0, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, 0);
    ravel_inst_end(f);
    ravel_func_finish(f);
    return f;
}

TEST(build_read_print)
{
    ravel_machine *m = machine();
    ravel_func *f = build(m, INT64_MIN);
    char *t = text_of(f);
    CHECK_STR(t, "func f\n"
                 "b0:\n"
                 "  v0:int @r0 = args\n"
                 "  v1:int any @s2 = undef\n"
                 "  r1 = remat -9223372036854775808 clobbers(r0 r2)\n"
                 "  s9 = remat -3\n"
                 "  ret v0 @r0\n"
                 "end\n");
    CHECK_EQ_INT(ravel_inst_opcode(f, 1), RAVEL_OP_UNDEF);
    CHECK_EQ_INT(ravel_inst_is_undef(f, 1), 1);
    CHECK_EQ_INT(ravel_inst_is_undef(f, 0), 0);
    CHECK_STR(ravel_opcode_name(RAVEL_OP_UNDEF), "undef");
    CHECK_STR(ravel_opcode_name(RAVEL_OP_REMAT), "remat");
    int64_t k = 0;
    CHECK_EQ_INT(ravel_remat_const(f, 2, &k), RAVEL_OK);
    CHECK(k == INT64_MIN);
    CHECK_EQ_INT(ravel_remat_const(f, 2, NULL), RAVEL_OK);
    CHECK_EQ_INT(ravel_inst_is_edit(f, 2), 1);
    CHECK_EQ_INT(ravel_edit_dst(f, 2), 1);
    CHECK_EQ_INT(ravel_edit_src(f, 2), RAVEL_LOC_NONE);
    CHECK_EQ_INT(ravel_inst_has_clobbers(f, 2), 1);
    CHECK_EQ_INT(ravel_inst_nclobbers(f, 2), 2);
    CHECK_EQ_INT(ravel_inst_clobber(f, 2, 1), 2);
    CHECK_EQ_INT(ravel_inst_nclobbered(f, 2), 2);
    CHECK_EQ_INT(ravel_inst_has_clobbers(f, 3), 0); /* an empty list is none */
    CHECK_EQ_INT(ravel_edit_dst(f, 3), ravel_slot(9));
    CHECK_EQ_INT(ravel_func_nslots(f), 10);
    CHECK_EQ_INT(ravel_func_is_allocated(f), 1);
    CHECK_EQ_INT(ravel_validate(f, 0, NULL), RAVEL_OK);
    CHECK_STR(rv_func_ext_used(f), "undef");
    /* read back: equal; another K or clobber list is not */
    char *mt = NULL;
    size_t ml = 0;
    FILE *fp = open_memstream(&mt, &ml);
    ravel_print_machine(fp, m);
    fprintf(fp, "\n%s", t);
    fclose(fp);
    ravel_diags *d = ravel_diags_new();
    ravel_module *mod = ravel_module_parse(mt, strlen(mt), "t.ra", d);
    CHECK(mod && rv_func_equal(f, ravel_module_func(mod, 0)));
    ravel_func *g = build(m, INT64_MIN + 1);
    CHECK(!rv_func_equal(f, g));
    ravel_func_free(g);
    /* the unallocated form drops remats with the other edits */
    ravel_func *s = rv_func_strip(f);
    CHECK_EQ_INT(ravel_func_ninsts(s), 3);
    CHECK_EQ_INT(ravel_inst_is_undef(s, 1), 1);
    CHECK_EQ_INT(ravel_func_is_allocated(s), 0);
    ravel_func_free(s);
    ravel_module_free(mod);
    ravel_diags_free(d);
    free(mt);
    free(t);
    ravel_func_free(f);
    ravel_machine_free(m);
}

TEST(misuse)
{
    ravel_machine *m = machine();
    ravel_func *f = ravel_func_new(m, "f");
    uint32_t r0 = 0;
    CHECK_EQ_INT(ravel_remat(f, 0, 1, NULL, 0), RAVEL_EINVAL); /* no block open */
    ravel_block_begin(f, ravel_block_new(f, NULL));
    CHECK_EQ_INT(ravel_remat(NULL, 0, 1, NULL, 0), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_remat(f, RAVEL_LOC_NONE, 1, NULL, 0), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_remat(f, 99, 1, NULL, 0), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_remat(f, ravel_slot(RAVEL_MAX_SLOT + 1), 1, NULL, 0), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_remat(f, 0, 1, NULL, 2), RAVEL_EINVAL);
    uint32_t bad[] = {1, 77};
    CHECK_EQ_INT(ravel_remat(f, 0, 1, bad, 2), RAVEL_EINVAL);
    CHECK(ravel_func_error(f) && strstr(ravel_func_error(f), "ravel_remat"));
    CHECK_EQ_INT(ravel_edit(f, RAVEL_OP_REMAT, 0, 1), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_inst_begin(f, RAVEL_OP_REMAT, NULL), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_func_ninsts(f), 0); /* nothing was added */
    CHECK_EQ_INT(ravel_remat(f, 3, 1, &r0, 1), 0); /* a reserved register is fine, as for every edit */
    CHECK_EQ_INT(ravel_remat_const(f, 5, NULL), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_remat_const(NULL, 0, NULL), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_inst_is_undef(NULL, 0), -1);
    CHECK_EQ_INT(ravel_inst_is_undef(f, 9), -1);
    ravel_inst_begin(f, RAVEL_OP_ARGS, NULL);
    ravel_inst_end(f);
    CHECK_EQ_INT(ravel_remat_const(f, 1, NULL), RAVEL_EINVAL); /* not a remat */
    ravel_func_free(f);
    ravel_machine_free(m);
}

/* An undef built with more than one def, or with anything after it, is bad
 * input for the validator (the builders leave shapes to it). */
static int validate_undef(int defs, int uses, int imm, int clob)
{
    ravel_machine *m = machine();
    ravel_func *f = ravel_func_new(m, "f");
    uint32_t v0 = ravel_vreg_new(f, 0, 0), v1 = ravel_vreg_new(f, 0, 0), v2 = ravel_vreg_new(f, 0, 0);
    ravel_block_begin(f, ravel_block_new(f, NULL));
    ravel_inst_begin(f, RAVEL_OP_ARGS, NULL);
    ravel_inst_def(f, v0, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_UNDEF, NULL);
    if (defs > 0) ravel_inst_def(f, v1, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    if (defs > 1) ravel_inst_def(f, v2, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    if (uses) ravel_inst_use(f, v0, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    if (imm) ravel_inst_imm(f, 4);
    uint32_t r = 0;
    if (clob) ravel_inst_clobbers(f, &r, 1);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_RET, NULL);
    ravel_inst_end(f);
    ravel_func_finish(f);
    ravel_diags *d = ravel_diags_new();
    int rc = ravel_validate(f, 0, d);
    if (rc == RAVEL_EINVAL) CHECK(d->v.len && strstr(d->v.data[0].msg, "undef takes exactly one def"));
    ravel_diags_free(d);
    ravel_func_free(f);
    ravel_machine_free(m);
    return rc;
}

TEST(validator_shapes)
{
    CHECK_EQ_INT(validate_undef(1, 0, 0, 0), RAVEL_OK);
    CHECK_EQ_INT(validate_undef(0, 0, 0, 0), RAVEL_EINVAL);
    CHECK_EQ_INT(validate_undef(2, 0, 0, 0), RAVEL_EINVAL);
    CHECK_EQ_INT(validate_undef(1, 1, 0, 0), RAVEL_EINVAL);
    CHECK_EQ_INT(validate_undef(1, 0, 1, 0), RAVEL_EINVAL);
    CHECK_EQ_INT(validate_undef(1, 0, 0, 1), RAVEL_EINVAL);
}

/* ---- random: remat's K in every spelling, modulo 2^64 ---- */

/* Decimal of hi * 2^64 + lo (hi < 2^32). */
static void dec128(char *buf, uint64_t hi, uint64_t lo)
{
    char t[48];
    int i = sizeof t;
    t[--i] = 0;
    unsigned __int128 x = ((unsigned __int128)hi << 64) | lo;
    do t[--i] = (char)('0' + (int)(x % 10));
    while (x /= 10);
    strcpy(buf, t + i);
}

/* One spelling of a number whose value modulo 2^64 is u. */
static void spell(uint64_t *s, uint64_t u, char *buf)
{
    switch (rv_rng_next(s) % 6) {
    case 0: snprintf(buf, 64, "%llu", (unsigned long long)u); break;
    case 1: snprintf(buf, 64, "0x%llx", (unsigned long long)u); break;
    case 2: snprintf(buf, 64, "-%llu", (unsigned long long)(0 - u)); break;
    case 3: snprintf(buf, 64, "-0X%llX", (unsigned long long)(0 - u)); break;
    case 4: dec128(buf, 1 + rv_rng_next(s) % 1000, u); break; /* u + k * 2^64 */
    default: snprintf(buf, 64, "0x%x%016llx", (unsigned)(1 + rv_rng_next(s) % 0xffff), (unsigned long long)u); break;
    }
}

TEST(random_remat_constants)
{
    uint64_t s = 7;
    for (int it = 0; it < 3000 && !test_failed_; it++) {
        uint64_t u = rv_rng_next(&s);
        if (it % 4 == 1) u = (uint64_t)1 << (rv_rng_next(&s) % 64);            /* powers of two */
        if (it % 4 == 2) u = (rv_rng_next(&s) % 2 ? 0 - u : u) & 0xffffffffull; /* low words */
        char k[64], text[256];
        spell(&s, u, k);
        snprintf(text, sizeof text, "machine\n  class int r0\nend\n\nfunc f\nb0:\n  r0 = remat %s\n  ret\nend\n", k);
        ravel_diags *d = ravel_diags_new();
        ravel_module *mod = ravel_module_parse(text, strlen(text), "k.ra", d);
        int64_t got = 0;
        CHECK(mod && ravel_remat_const(ravel_module_func(mod, 0), 0, &got) == RAVEL_OK);
        if ((uint64_t)got != u) fprintf(stderr, "remat %s: got %lld, want %llu\n", k, (long long)got, (unsigned long long)u);
        CHECK((uint64_t)got == u);
        if (mod) { /* printed in signed decimal, which reads back the same */
            char *t = text_of(ravel_module_func(mod, 0)), want[64];
            snprintf(want, sizeof want, "remat %lld\n", (long long)got);
            CHECK(strstr(t, want) != NULL);
            free(t);
        }
        ravel_module_free(mod);
        ravel_diags_free(d);
    }
}

int main(void)
{
    RUN(build_read_print);
    RUN(misuse);
    RUN(validator_shapes);
    RUN(random_remat_constants);
    return TEST_SUMMARY();
}
