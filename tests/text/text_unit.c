/* text_unit.c - unit tests of the reader and printer that are easier in C
 * than as files: functions built through the C API survive print+parse,
 * limits, positions, error recovery, and robustness on truncated input;
 * and the case-header grammar of every test driver (tests/support/expect.h)
 * on random headers. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "ir/ir.h"
#include "ir/rng.h"
#include "tests/support/expect.h"
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>

/* What the writers write, in a malloc'd string: open with mem_open, finish
 * with mem_close. */
typedef struct mem_text {
    char *buf;
    size_t n;
} mem_text;

static FILE *mem_open(mem_text *t)
{
    t->buf = NULL;
    t->n = 0;
    return open_memstream(&t->buf, &t->n);
}

static char *mem_close(FILE *mem, mem_text *t, size_t *len)
{
    fclose(mem);
    if (len) *len = t->n;
    return t->buf;
}

static char *render_module(const ravel_module *m, size_t *len)
{
    mem_text t;
    FILE *mem = mem_open(&t);
    rv_print_module(mem, m);
    return mem_close(mem, &t, len);
}

static char *render_func(const ravel_machine *mach, const ravel_func *f, size_t *len)
{
    mem_text t;
    FILE *mem = mem_open(&t);
    ravel_print_machine(mem, mach);
    fputc('\n', mem);
    ravel_print_func(mem, f);
    return mem_close(mem, &t, len);
}

static ravel_module *parse_str(const char *s, ravel_diags *d) { return ravel_module_parse(s, strlen(s), "t.ra", d); }

/* First diagnostic's message, or "" */
static const char *first_msg(const ravel_diags *d) { return d->v.len ? d->v.data[0].msg : ""; }

/* Builds the summing loop of docs/format.md section 8 in its allocated form through the API,
 * plus attributes the loop does not have. */
static ravel_func *build_sum(ravel_machine *m)
{
    int ci = ravel_machine_add_class(m, "int");
    int cr = ravel_machine_add_class(m, "ref");
    uint32_t r0 = (uint32_t)ravel_machine_add_reg(m, "r0", ci, 0);
    uint32_t r1 = (uint32_t)ravel_machine_add_reg(m, "r1", ci, 0);
    uint32_t r2 = (uint32_t)ravel_machine_add_reg(m, "r2", ci, 0);
    uint32_t p0 = (uint32_t)ravel_machine_add_reg(m, "p0", cr, 0);
    ravel_machine_add_reg(m, "sp", ci, 1);
    uint32_t clob[] = {r0, r1};
    ravel_machine_set_clobbers(m, clob, 2);
    ravel_func *f = ravel_func_new(m, "sum");
    uint32_t b0 = ravel_block_new(f, NULL), b1 = ravel_block_new(f, "loop"), b3 = ravel_block_new(f, "exit"),
             b2 = ravel_block_new(f, "body");
    uint32_t v0 = ravel_vreg_new(f, ci, 0), v1 = ravel_vreg_new(f, ci, 0), v8 = ravel_vreg_new(f, ci, 0);
    uint32_t v2 = ravel_vreg_new(f, ci, 0), v3 = ravel_vreg_new(f, ci, 0), v4 = ravel_vreg_new(f, ci, 0);
    uint32_t v5 = ravel_vreg_new(f, ci, 0), v6 = ravel_vreg_new(f, ci, 0), vr = ravel_vreg_new(f, cr, 1);
    ravel_block_add_param(f, b1, v2);
    ravel_block_add_param(f, b1, v3);
    ravel_block_begin(f, b0);
    ravel_inst_begin(f, RAVEL_OP_ARGS, NULL);
    ravel_inst_def(f, v0, RAVEL_C_FIXED, r0, RAVEL_POS_DEFAULT, r0);
    ravel_inst_def(f, v1, RAVEL_C_FIXED, r1, RAVEL_POS_DEFAULT, r1);
    ravel_inst_def(f, vr, RAVEL_C_ANY, 0, RAVEL_POS_DEFAULT, p0);
    ravel_inst_end(f);
    ravel_edit(f, RAVEL_OP_SPILL, ravel_slot(0), r1);
    ravel_edit(f, RAVEL_OP_SPILL, ravel_slot(7), p0);
    ravel_inst_begin(f, RAVEL_OP_CONST, NULL);
    ravel_inst_def(f, v8, RAVEL_C_REG, 0, RAVEL_POS_EARLY, r2);
    ravel_inst_imm(f, INT64_MIN);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_CALL, "gc_poll");
    ravel_inst_use(f, v8, RAVEL_C_STACK, 0, RAVEL_POS_LATE, ravel_slot(3));
    ravel_inst_imm(f, -5);
    ravel_inst_safepoint(f);
    uint32_t sm[] = {7, 0, 7};
    ravel_inst_stackmap(f, sm, 3);
    ravel_inst_clobbers(f, NULL, 0);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_JUMP, NULL);
    uint32_t a1[] = {v0, v8};
    ravel_inst_succ(f, b1, a1, 2);
    ravel_inst_end(f);
    ravel_block_begin(f, b1);
    ravel_edit(f, RAVEL_OP_RELOAD, r1, ravel_slot(0));
    ravel_inst_begin(f, RAVEL_OP_LE, NULL);
    ravel_inst_def(f, v4, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, r1);
    ravel_inst_use(f, v2, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, r0);
    ravel_inst_use(f, v1, RAVEL_C_REG, 0, RAVEL_POS_EARLY, r1);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_BR, NULL);
    ravel_inst_use(f, v4, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, r1);
    ravel_inst_succ(f, b2, NULL, 0);
    ravel_inst_succ(f, b3, NULL, 0);
    ravel_inst_end(f);
    ravel_block_begin(f, b2);
    ravel_inst_begin(f, RAVEL_OP_ADD, NULL);
    ravel_inst_def(f, v5, RAVEL_C_REUSE, 0, RAVEL_POS_DEFAULT, r2);
    ravel_inst_use(f, v3, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, r2);
    ravel_inst_use(f, v2, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, r0);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_OTHER, "inc");
    ravel_inst_def(f, v6, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, r0);
    ravel_inst_imm(f, 1);
    ravel_inst_use(f, v2, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, r0);
    ravel_inst_imm(f, 0x7fffffffffffffffLL);
    uint32_t cl[] = {r2, r1, r2};
    ravel_inst_clobbers(f, cl, 3);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_JUMP, NULL);
    uint32_t a2[] = {v6, v5};
    ravel_inst_succ(f, b1, a2, 2);
    ravel_inst_end(f);
    ravel_block_begin(f, b3);
    ravel_edit(f, RAVEL_OP_MOVE, r0, r2);
    ravel_inst_begin(f, RAVEL_OP_RET, NULL);
    ravel_inst_use(f, v3, RAVEL_C_FIXED, r0, RAVEL_POS_DEFAULT, r0);
    ravel_inst_imm(f, 42);
    ravel_inst_end(f);
    ravel_func_finish(f);
    return f;
}

TEST(api_function_round_trips)
{
    ravel_machine *m = ravel_machine_new();
    ravel_func *f = build_sum(m);
    CHECK(rv_func_error(f) == NULL);
    size_t len;
    char *text = render_func(m, f, &len);
    ravel_diags *d = ravel_diags_new();
    ravel_module *mod = ravel_module_parse(text, len, "api.ra", d);
    CHECK(mod != NULL);
    if (!mod) ravel_diags_print(stderr, d);
    if (mod) {
        CHECK_EQ_INT(ravel_module_nfuncs(mod), 1);
        CHECK(rv_func_equal(f, ravel_module_func(mod, 0)));
        CHECK_EQ_INT(ravel_machine_nregs(ravel_module_machine(mod)), ravel_machine_nregs(m));
        for (uint32_t r = 0; r < ravel_machine_nregs(m); r++)
            CHECK_STR(ravel_machine_reg_name(ravel_module_machine(mod), r), ravel_machine_reg_name(m, r));
        size_t len2;
        char *text2 = render_module(mod, &len2);
        CHECK(len == len2 && memcmp(text, text2, len) == 0);
        free(text2);
    }
    /* the expected canonical text of a few instructions */
    CHECK(strstr(text, "  early v2:int @r2 = const -9223372036854775808\n") != NULL);
    CHECK(strstr(text, "  call gc_poll late v2 stack @s3, -5 clobbers() safepoint stackmap(s0 s7)\n") != NULL);
    CHECK(strstr(text, "  v7:int @r0 = inc 1, v3 @r0, 9223372036854775807 clobbers(r1 r2)\n") != NULL);
    CHECK(strstr(text, "  br v5 @r1, body, exit\n") != NULL);
    CHECK(strstr(text, "loop(v3:int, v4:int):\n") != NULL);
    CHECK(strstr(text, "  ret v4 fixed(r0) @r0, 42\n") != NULL);
    CHECK(strstr(text, "  reserved int sp\n") != NULL);
    /* a change is detected by rv_func_equal (the comparison can fail) */
    if (mod) {
        ravel_func *g = ravel_module_func(mod, 0);
        g->imms.data[0].value++;
        CHECK(!rv_func_equal(f, g));
    }
    free(text);
    ravel_module_free(mod);
    ravel_diags_free(d);
    ravel_func_free(f);
    ravel_machine_free(m);
}

TEST(register_ids_survive_interleaved_declarations)
{
    const char *src = "machine\n  class a x0 x1\n  reserved a xs\n  class b y0\n  reserved b ys yt\n  reserved a xt\n"
                      "  clobbers xt y0\nend\nfunc f\nb0:\n  ret\nend\n";
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = parse_str(src, d);
    CHECK(m != NULL);
    if (!m) goto out;
    const ravel_machine *mc = ravel_module_machine(m);
    const char *want[] = {"x0", "x1", "xs", "y0", "ys", "yt", "xt"};
    CHECK_EQ_INT(mc->regs.len, 7);
    for (uint32_t r = 0; r < 7 && r < mc->regs.len; r++) CHECK_STR(mc->regs.data[r].name, want[r]);
    size_t len;
    char *t = render_module(m, &len);
    CHECK_STR(t, "machine\n  class a x0 x1\n  reserved a xs\n  class b y0\n  reserved b ys yt\n  reserved a xt\n"
                 "  clobbers y0 xt\nend\n\nfunc f\nb0:\n  ret\nend\n");
    free(t);
out:
    ravel_module_free(m);
    ravel_diags_free(d);
}

TEST(positions_and_source)
{
    const char *src = "machine\n  class int r0\nend\n\nfunc f\nb0:\n  v0:int = args\n    s0 = spill r0\nb1:\n  ret v0\nend\n";
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = parse_str(src, d);
    CHECK(m != NULL);
    if (!m) goto out;
    ravel_func *f = ravel_module_func(m, 0);
    CHECK(ravel_module_func(m, 1) == NULL);
    CHECK_EQ_INT(f->line, 5);
    CHECK_EQ_INT(f->end_line, 11);
    CHECK_STR(f->file, "t.ra");
    CHECK(f->src == m->src && f->srclen == strlen(src));
    CHECK_EQ_INT(f->blocks.data[0].line, 6);
    CHECK_EQ_INT(f->blocks.data[0].end_line, 9);
    CHECK_EQ_INT(f->blocks.data[1].end_line, 11);
    CHECK_EQ_INT(f->insts.data[0].line, 7);
    CHECK_EQ_INT(f->insts.data[0].col, 3);
    CHECK_EQ_INT(f->insts.data[1].line, 8);
    CHECK_EQ_INT(f->insts.data[1].col, 5);
    CHECK_EQ_INT(f->insts.data[2].line, 10);
    CHECK_EQ_INT(f->nslots, 1);
out:
    ravel_module_free(m);
    ravel_diags_free(d);
}

/* rv_module_take_func: the function leaves the module (which keeps the
 * others, in order), owned by the caller, its pointers into the module's
 * source cleared and its positions kept; both free cleanly (ASan). */
TEST(take_func)
{
    const char *src = "machine\n  class int r0\nend\nfunc f\nb0:\n  ret\nend\nfunc g\nb0:\n  ret\nend\nfunc h\nb0:\n  ret\nend\n";
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = parse_str(src, d);
    CHECK(m != NULL);
    if (!m) goto out;
    ravel_func *g = rv_module_take_func(m, 1);
    CHECK(g != NULL);
    CHECK(rv_module_take_func(m, 2) == NULL);
    CHECK_EQ_INT(ravel_module_nfuncs(m), 2);
    CHECK_STR(ravel_func_name(ravel_module_func(m, 0)), "f");
    CHECK_STR(ravel_func_name(ravel_module_func(m, 1)), "h");
    if (g) {
        CHECK_STR(ravel_func_name(g), "g");
        CHECK(g->src == NULL && g->file == NULL && g->srclen == 0);
        CHECK_EQ_INT(g->line, 8);
        CHECK_EQ_INT(g->insts.data[0].line, 10);
    }
    ravel_module_free(m);
    m = NULL;
    ravel_func_free(g); /* after the module: it owns nothing of it */
out:
    ravel_module_free(m);
    ravel_diags_free(d);
}

TEST(int64_limits)
{
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = parse_str("machine\n  class int r0\nend\nfunc f\nb0:\n  ret -9223372036854775808, 9223372036854775807, "
                                "-0x8000000000000000, 0x7FFFFFFFFFFFFFFF\nend\n", d);
    CHECK(m != NULL);
    if (m) {
        const ravel_func *f = ravel_module_func(m, 0);
        CHECK_EQ_INT(f->imms.len, 4);
        CHECK(f->imms.data[0].value == INT64_MIN && f->imms.data[1].value == INT64_MAX);
        CHECK(f->imms.data[2].value == INT64_MIN && f->imms.data[3].value == INT64_MAX);
    }
    ravel_module_free(m);
    ravel_diags_free(d);
    const char *bad[] = {"9223372036854775808", "-9223372036854775809", "0x8000000000000000", "99999999999999999999999999",
                         "-0x8000000000000001", "0xfffffffffffffffff"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char buf[256];
        snprintf(buf, sizeof buf, "machine\n  class int r0\nend\nfunc f\nb0:\n  ret %s\nend\n", bad[i]);
        d = ravel_diags_new();
        m = parse_str(buf, d);
        CHECK(m == NULL);
        CHECK(strstr(first_msg(d), "t.ra:6:7: error: integer does not fit") != NULL);
        ravel_module_free(m);
        ravel_diags_free(d);
    }
}

TEST(several_errors_are_reported)
{
    const char *src = "machine\n  class int r0\nend\nfunc f\nb0:\n  v0:int = add v1:flt\n  v2 = const 1\n  ret v0 @r5\nend\n";
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = parse_str(src, d);
    CHECK(m == NULL);
    CHECK_EQ_INT(ravel_diags_count(d), 3);
    if (d->v.len == 3) {
        CHECK(strstr(d->v.data[0].msg, "t.ra:6:19: error: unknown class 'flt'") != NULL);
        CHECK(strstr(d->v.data[1].msg, "t.ra:7:3: error: class annotation required") != NULL);
        CHECK(strstr(d->v.data[2].msg, "t.ra:8:11: error: unknown register 'r5'") != NULL);
        CHECK_STR(d->v.data[2].srcline, "  ret v0 @r5");
    }
    ravel_diags_free(d);
    /* a NULL diagnostics sink is allowed */
    CHECK(ravel_module_parse(src, strlen(src), NULL, NULL) == NULL);
}

TEST(empty_and_oversized_input)
{
    ravel_diags *d = ravel_diags_new();
    CHECK(ravel_module_parse("", 0, "e.ra", d) == NULL);
    CHECK(strstr(first_msg(d), "e.ra:1:1: error: expected 'machine'") != NULL);
    ravel_diags_free(d);
    d = ravel_diags_new();
    CHECK(ravel_module_parse(NULL, 0, "e.ra", d) == NULL);
    ravel_diags_free(d);
    /* the size check comes before any byte is read */
    d = ravel_diags_new();
    CHECK(ravel_module_parse("x", (size_t)RV_MAX_INPUT_BYTES + 1, "big.ra", d) == NULL);
    CHECK(strstr(first_msg(d), "big.ra: error: input larger than 256 MiB") != NULL);
    ravel_diags_free(d);
}

/* "machine...\nfunc f\nb0:\n  v0:int = args\n  out v0, v0, ... (n uses)\n  ret\nend\n" */
static char *many_uses(uint32_t n, size_t *len)
{
    const char *head = "machine\n  class int r0\nend\nfunc f\nb0:\n  v0:int = args\n  out v0";
    const char *tail = "\n  ret\nend\n";
    size_t hl = strlen(head), tl = strlen(tail);
    char *s = malloc(hl + (size_t)n * 4 + tl + 1);
    memcpy(s, head, hl);
    size_t p = hl;
    for (uint32_t i = 1; i < n; i++) memcpy(s + p, ", v0", 4), p += 4;
    memcpy(s + p, tail, tl + 1);
    *len = p + tl;
    return s;
}

TEST(operand_limit)
{
    size_t len;
    char *s = many_uses(RV_MAX_OPERANDS, &len);
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(s, len, "ops.ra", d);
    CHECK(m != NULL);
    if (m) CHECK_EQ_INT(ravel_module_func(m, 0)->insts.data[1].nuses, RV_MAX_OPERANDS);
    ravel_module_free(m);
    ravel_diags_free(d);
    free(s);
    s = many_uses(RV_MAX_OPERANDS + 1, &len);
    d = ravel_diags_new();
    m = ravel_module_parse(s, len, "ops.ra", d);
    CHECK(m == NULL);
    CHECK(strstr(first_msg(d), "error: too many operands (limit 65535)") != NULL);
    ravel_module_free(m);
    ravel_diags_free(d);
    free(s);
}

/* Vreg numbers far beyond the input size take the hash-map path of the
 * reader, small ones its dense table; both resolve uses to the def's vreg,
 * and numbers start afresh in each function. */
TEST(vreg_numbers_small_and_large)
{
    const char *src = "machine\n  class int r0\nend\n"
                      "func f\nb0:\n  v2000000000:int, v3:int = args\n  v7:int = add v2000000000, v3\n"
                      "  out v2000000000, v7, v3\n  ret v7\nend\n"
                      "func g\nb0:\n  v3:int.ref, v2000000000:int = args\n  ret v3, v2000000000\nend\n";
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = parse_str(src, d);
    CHECK(m != NULL);
    if (m) {
        const ravel_func *f = ravel_module_func(m, 0), *g = ravel_module_func(m, 1);
        CHECK_EQ_INT(f->vregs.len, 3);
        const rv_inst *add = &f->insts.data[1], *out = &f->insts.data[2];
        CHECK_EQ_INT(rv_inst_uses(f, add)[0].vreg, rv_inst_defs(f, &f->insts.data[0])[0].vreg);
        CHECK_EQ_INT(rv_inst_uses(f, out)[0].vreg, rv_inst_defs(f, &f->insts.data[0])[0].vreg);
        CHECK_EQ_INT(rv_inst_uses(f, out)[2].vreg, rv_inst_defs(f, &f->insts.data[0])[1].vreg);
        CHECK_EQ_INT(f->vregs.data[rv_inst_uses(f, out)[0].vreg].num, 2000000000);
        CHECK_EQ_INT(f->next_num, 2000000001);
        /* the function's map knows every vreg, small or large */
        for (uint32_t i = 0; i < f->vregs.len; i++) CHECK_EQ_INT(rv_map_get(&f->vreg_by_num, f->vregs.data[i].num, RAVEL_NONE), i);
        CHECK_EQ_INT(g->vregs.len, 2);
        CHECK(g->vregs.data[0].ref && g->vregs.data[0].num == 3);
        CHECK_EQ_INT(rv_inst_uses(g, &g->insts.data[1])[1].vreg, 1);
    }
    ravel_module_free(m);
    ravel_diags_free(d);
}

/* Functions per file are limited (each costs memory even when empty). */
TEST(function_limit)
{
    const char *head = "machine\n  class int r0\nend\n";
    size_t hl = strlen(head), n = 65537, cap = hl + n * 32, len = hl, len_ok = 0;
    char *s = malloc(cap);
    memcpy(s, head, hl);
    for (size_t i = 0; i < n; i++) {
        if (i == n - 1) len_ok = len;
        len += (size_t)snprintf(s + len, cap - len, "func f%zu\nb:\n  ret\nend\n", i);
    }
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(s, len_ok, "fn.ra", d);
    CHECK(m != NULL);
    CHECK_EQ_INT(ravel_module_nfuncs(m), 65536);
    ravel_module_free(m);
    ravel_diags_free(d);
    d = ravel_diags_new();
    m = ravel_module_parse(s, len, "fn.ra", d);
    CHECK(m == NULL);
    CHECK(strstr(first_msg(d), "fn.ra:262148:1: error: too many functions (limit 65536 per file)") != NULL);
    ravel_module_free(m);
    ravel_diags_free(d);
    free(s);
}

/* Every prefix, and every single-byte substitution by a few troublesome
 * bytes, of an allocated file is read or rejected without a crash or leak
 * (the sanitizers watch). */
TEST(truncations_and_mutations_never_crash)
{
    const char *src = "machine\n  class int r0..r2\n  class ref p0\n  reserved int sp\n  clobbers r0\n  gc nonmoving\nend\n\n"
                      "func f\nb0:\n  v0:int fixed(r0) @r0, v1:ref.ref @p0 = args\n  s0 = spill p0\n"
                      "  early v2:int any @r1 = call g v0 @r0, -3 clobbers(r0..r1) safepoint stackmap(s0)\n"
                      "  br v2 @r1, b1(v2), b2\nb1(v3:int):\n  ret v3 reuse(0)\nb2:\n  p0 = reload s0\n  ret 0x1f\nend\n";
    size_t n = strlen(src);
    int parsed = 0, rejected = 0;
    for (size_t k = 0; k <= n; k++) {
        ravel_diags *d = ravel_diags_new();
        ravel_module *m = ravel_module_parse(src, k, "p.ra", d);
        if (m) {
            parsed++;
        } else {
            rejected++;
            CHECK(ravel_diags_count(d) > 0);
        }
        ravel_module_free(m);
        ravel_diags_free(d);
    }
    CHECK(parsed > 0 && rejected > 0);
    char *buf = malloc(n + 1);
    const char subst[] = {0, '\n', '\r', ' ', '(', ')', ',', '.', ':', '@', '=', '#', '-', '9', 'v', 's'};
    for (size_t k = 0; k < n; k++)
        for (size_t j = 0; j < sizeof subst; j++) {
            memcpy(buf, src, n);
            buf[k] = subst[j];
            ravel_diags *d = ravel_diags_new();
            ravel_module *m = ravel_module_parse(buf, n, "p.ra", d);
            if (!m) CHECK(ravel_diags_count(d) > 0);
            ravel_module_free(m);
            ravel_diags_free(d);
        }
    free(buf);
}

TEST(opcodes_and_names)
{
    const char *src = "machine\n  class int r0\nend\nfunc f\nb0:\n  v0:int = args\n  v1:int = copy v0\n"
                      "  v2:int = call copy v1\n  v3:int = frob v2\n  end_ v3\n  ret\nend\n";
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = parse_str(src, d);
    CHECK(m != NULL);
    if (m) {
        const ravel_func *f = ravel_module_func(m, 0);
        CHECK_EQ_INT(f->insts.data[1].op, RAVEL_OP_COPY);
        CHECK_EQ_INT(f->insts.data[2].op, RAVEL_OP_CALL);
        CHECK_STR(rv_sym_str(&f->syms, f->insts.data[2].name), "copy");
        CHECK_EQ_INT(f->insts.data[3].op, RAVEL_OP_OTHER);
        CHECK_STR(rv_inst_mnemonic(f, &f->insts.data[3]), "frob");
        CHECK_STR(rv_inst_mnemonic(f, &f->insts.data[4]), "end_");
        CHECK_EQ_INT(f->insts.data[5].op, RAVEL_OP_RET);
    }
    ravel_module_free(m);
    ravel_diags_free(d);
}

/* rv_json_str (the checker's JSON report, ravel check --json): escapes, and
 * every byte that is not part of valid UTF-8 as \ufffd. */
static char *json_of(const char *s)
{
    mem_text t;
    FILE *mem = mem_open(&t);
    rv_json_str(mem, s);
    return mem_close(mem, &t, NULL);
}

#define CHECK_JSON(in, want)                                                                                           \
    do {                                                                                                               \
        char *got_ = json_of(in);                                                                                      \
        CHECK_STR(got_, want);                                                                                         \
        free(got_);                                                                                                    \
    } while (0)

TEST(json_strings)
{
    CHECK_JSON("", "\"\"");
    CHECK_JSON("a\"b\\c\nd\te\x01", "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
    CHECK_JSON("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""); /* valid: kept */
    CHECK_JSON("x\xffy", "\"x\\ufffdy\"");              /* not UTF-8 at all */
    CHECK_JSON("\xc0\xaf", "\"\\ufffd\\ufffd\"");        /* overlong '/' */
    CHECK_JSON("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""); /* a surrogate */
    CHECK_JSON("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* beyond U+10FFFF */
    CHECK_JSON("ab\xe2\x82", "\"ab\\ufffd\\ufffd\"");    /* cut short at the end */
}

/* The case-header grammar every driver reads (tests/support/expect.h), on
 * random headers: each value comes back without the trailing spaces and
 * CRs a header line may carry, whatever precedes, follows or ends it, and
 * its items parse to what was written. */
TEST(case_headers_trim_and_parse)
{
    static const char *const values[] = {"ok", "reject", "use-unknown @12", "3:7: expected a register", "error no such file",
                                         "exit 2", "use-empty, def-overlap @4"};
    static const ts_xwhat first[] = {TS_X_OK, TS_X_REJECT, TS_X_KIND, TS_X_DIAG, TS_X_ERROR, TS_X_EXIT, TS_X_KIND};
    uint64_t rng = 29;
    unsigned bad = 0, trimmed = 0;
    for (int t = 0; t < 2000; t++) {
        size_t k = rv_rng_below(&rng, sizeof values / sizeof *values);
        char text[512], buf[256];
        int n = snprintf(text, sizeof text, "%s# expect: %s", rv_rng_below(&rng, 2) ? "; a line\n" : "", values[k]);
        uint32_t tail = rv_rng_below(&rng, 4);
        for (uint32_t j = 0; j < tail; j++) text[n++] = rv_rng_below(&rng, 3) ? ' ' : '\r';
        trimmed += tail != 0;
        n += snprintf(text + n, sizeof text - (size_t)n, "%s", rv_rng_below(&rng, 2) ? "\nfunc f\n" : "");
        const char *p = text;
        ts_expect x[4];
        if (!ts_header_next(&p, "expect", buf, sizeof buf) || strcmp(buf, values[k]) || ts_expect_parse(buf, x, 4) < 1 ||
            x[0].what != first[k]) {
            if (bad++ < 5) fprintf(stderr, "header %d: '%s' read as '%s'\n", t, values[k], buf);
        }
    }
    CHECK(trimmed > 1000);
    CHECK_EQ_INT(bad, 0);
}

int main(void)
{
    RUN(json_strings);
    RUN(case_headers_trim_and_parse);
    RUN(api_function_round_trips);
    RUN(register_ids_survive_interleaved_declarations);
    RUN(positions_and_source);
    RUN(take_func);
    RUN(int64_limits);
    RUN(several_errors_are_reported);
    RUN(empty_and_oversized_input);
    RUN(operand_limit);
    RUN(function_limit);
    RUN(vreg_numbers_small_and_large);
    RUN(truncations_and_mutations_never_crash);
    RUN(opcodes_and_names);
    return TEST_SUMMARY();
}
