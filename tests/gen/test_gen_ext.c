/* test_gen_ext.c - the generator's section-14 features (docs/format.md
 * section 14; RAVEL_GEN_ALIAS, RAVEL_GEN_UNDEF, RAVEL_GEN_REMAT):
 *   - on by default; with them off no machine has containment, no
 *     function an `undef`;
 *   - alias: about half of the machines get the width names, every pair
 *     declared (rax contains eax ax al ah; eax ax al ah; ax al ah; d0 h0
 *     b0; h0 b0), the parts reserved, no two allocatable registers
 *     overlapping; the function is the one drawn without the feature
 *     (the same structure: the draw comes after every other machine draw);
 *   - undef and remat: `undef` values and constants of the few keys occur;
 *     every function is valid SSA and satisfiable;
 *   - fast and linear allocate functions on the aliased machines and
 *     functions with undefined values, and the interpreter finds both
 *     forms of each allocation agreeing. */
#include "allocator/alloc.h"
#include "fuzz/gen.h"
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>

static uint32_t count_op(const ravel_func *f, ravel_opcode op)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->insts.len; i++) n += f->insts.data[i].op == op;
    return n;
}

static uint32_t reg_named(const ravel_machine *m, const char *s)
{
    for (uint32_t r = 0; r < m->regs.len; r++)
        if (!strcmp(m->regs.data[r].name, s)) return r;
    return RAVEL_NONE;
}

/* On by default; switched off, no alias line and no undef (and the
 * draws of the other features are the ones made before section 14). */
TEST(on_by_default_and_off_when_asked)
{
    rv_gen_opts o;
    rv_gen_opts_default(&o);
    CHECK((o.features & RV_GEN_EXT) == RV_GEN_EXT);
    uint32_t aliased = 0, undefs = 0;
    for (uint64_t seed = 0; seed < 100; seed++) {
        ravel_module *mod = rv_gen_from_seed(seed, &o);
        aliased += rv_mach_has_alias(mod->mach);
        undefs += count_op(mod->funcs.data[0], RAVEL_OP_UNDEF);
        ravel_module_free(mod);
    }
    CHECK(aliased >= 20 && undefs >= 20);
    o.features &= ~(unsigned)RV_GEN_EXT;
    for (uint64_t seed = 0; seed < 100; seed++) {
        ravel_module *mod = rv_gen_from_seed(seed, &o);
        CHECK(!rv_mach_has_alias(mod->mach));
        CHECK_EQ_INT(count_op(mod->funcs.data[0], RAVEL_OP_UNDEF), 0);
        ravel_module_free(mod);
    }
}

/* The containment of an x86-64-like part chain, as declared. */
static void check_x86(const ravel_machine *m, const char *q, const char *d, const char *w, const char *b, const char *h)
{
    uint32_t rq = reg_named(m, q), rd = reg_named(m, d), rw = reg_named(m, w), rb = reg_named(m, b);
    CHECK(rq != RAVEL_NONE && rd != RAVEL_NONE && rw != RAVEL_NONE && rb != RAVEL_NONE);
    if (rq == RAVEL_NONE || rd == RAVEL_NONE || rw == RAVEL_NONE || rb == RAVEL_NONE) return;
    CHECK(!m->regs.data[rq].reserved && m->regs.data[rd].reserved && m->regs.data[rb].reserved);
    CHECK(rv_mach_contains(m, rq, rd) && rv_mach_contains(m, rq, rw) && rv_mach_contains(m, rq, rb));
    CHECK(rv_mach_contains(m, rd, rw) && rv_mach_contains(m, rd, rb) && rv_mach_contains(m, rw, rb));
    CHECK(!rv_mach_contains(m, rd, rq) && !rv_mach_contains(m, rb, rw));
    if (!h) return;
    uint32_t rh = reg_named(m, h);
    CHECK(rh != RAVEL_NONE && rv_mach_contains(m, rw, rh) && rv_mach_contains(m, rq, rh));
    CHECK(!rv_mach_overlap(m, rb, rh)); /* al and ah share no bit */
}

/* Runs f and its allocation by allocator name on a few vectors. */
static bool both_forms_agree(const ravel_func *f, const char *name, uint64_t seed)
{
    const rv_allocator *a = rv_allocator_find(name);
    if (!a) return false;
    char *err = NULL;
    rv_alloc_opts ao;
    memset(&ao, 0, sizeof ao);
    ao.seed = seed;
    ravel_func *out = a->run(f, &ao, &err);
    if (!out) {
        fprintf(stderr, "%s failed: %s\n", name, err ? err : "?");
        rv_free(err);
        return false;
    }
    bool same = true;
    char msg[512];
    for (uint64_t k = 0; k < 4 && same; k++) {
        uint64_t in[3];
        rv_interp_inputs(seed, k, in, 3);
        rv_run_opts ro = {in, 3, 200000, false, true, rv_interp_undef_seed(seed, k)};
        same = rv_interp_compare(f, out, &ro, msg, sizeof msg);
        if (!same) fprintf(stderr, "seed %llu %s: %s\n", (unsigned long long)seed, name, msg);
    }
    ravel_func_free(out);
    return same;
}

TEST(alias_machines)
{
    rv_gen_opts o, plain;
    rv_gen_opts_default(&o);
    o.features |= RV_GEN_ALIAS;
    plain = o;
    plain.features &= ~(unsigned)RV_GEN_ALIAS;
    uint32_t aliased = 0, n = 200;
    for (uint64_t seed = 0; seed < n; seed++) {
        ravel_module *mod = rv_gen_from_seed(seed, &o), *ref = rv_gen_from_seed(seed, &plain);
        const ravel_machine *m = mod->mach;
        CHECK_EQ_INT(ravel_validate(mod->funcs.data[0], RAVEL_VALIDATE_SSA, NULL), RAVEL_OK);
        /* the same function, register for register */
        CHECK(rv_func_equal(mod->funcs.data[0], ref->funcs.data[0]));
        /* and the machine drawn without the feature, but for the names and parts */
        CHECK_EQ_INT(m->classes.len, ref->mach->classes.len);
        CHECK(m->gc_nonmoving == ref->mach->gc_nonmoving);
        CHECK(m->clobbers.len == ref->mach->clobbers.len &&
              (!m->clobbers.len || !memcmp(m->clobbers.data, ref->mach->clobbers.data, m->clobbers.len * 4)));
        for (uint32_t c = 0; c < m->classes.len && c < ref->mach->classes.len; c++)
            CHECK(m->classes.data[c].alloc.len == ref->mach->classes.data[c].alloc.len);
        if (rv_mach_has_alias(m)) {
            aliased++;
            if (seed % 3 == 0) { /* fast and linear allocate on it, and both forms agree */
                CHECK(both_forms_agree(mod->funcs.data[0], "fast", seed));
                CHECK(both_forms_agree(mod->funcs.data[0], "linear", seed));
            }
            check_x86(m, "rax", "eax", "ax", "al", "ah");
            if (m->classes.data[0].alloc.len > 4) check_x86(m, "rsi", "esi", "si", "sil", NULL);
            if (m->classes.data[0].alloc.len > 14) check_x86(m, "r16", "r16d", "r16w", "r16b", NULL);
            if (m->classes.len > 1) {
                uint32_t d0 = reg_named(m, "d0"), h0 = reg_named(m, "h0"), b0 = reg_named(m, "b0");
                CHECK(d0 != RAVEL_NONE && rv_mach_contains(m, d0, h0) && rv_mach_contains(m, d0, b0) &&
                      rv_mach_contains(m, h0, b0));
            }
            for (uint32_t c = 0; c < m->classes.len; c++) /* allocatable registers never overlap */
                for (uint32_t i = 0; i < m->classes.data[c].alloc.len; i++)
                    for (uint32_t x = 0; x < m->regs.len; x++)
                        if (!m->regs.data[x].reserved)
                            CHECK(!rv_mach_overlap(m, m->classes.data[c].alloc.data[i], x));
        } else {
            CHECK_EQ_INT(m->regs.len, ref->mach->regs.len);
        }
        ravel_module_free(mod);
        ravel_module_free(ref);
    }
    CHECK(aliased > n / 4 && aliased < 3 * n / 4);
}

TEST(undef_and_remat)
{
    rv_gen_opts o;
    rv_gen_opts_default(&o);
    o.features |= RV_GEN_UNDEF | RV_GEN_REMAT;
    uint32_t undefs = 0, keyed = 0;
    for (uint64_t seed = 0; seed < 120; seed++) {
        ravel_module *mod = rv_gen_from_seed(seed, &o);
        const ravel_func *f = mod->funcs.data[0];
        char why[200];
        CHECK_EQ_INT(ravel_validate(f, RAVEL_VALIDATE_SSA, NULL), RAVEL_OK);
        CHECK(rv_gen_satisfiable(f, why, sizeof why));
        undefs += count_op(f, RAVEL_OP_UNDEF);
        for (uint32_t i = 0; i < f->insts.len; i++) {
            const rv_inst *in = &f->insts.data[i];
            if (in->op == RAVEL_OP_UNDEF) CHECK(in->ndefs == 1 && !in->nuses && !in->nimms &&
                                                !f->vregs.data[rv_inst_defs(f, in)[0].vreg].ref);
            if (in->op == RAVEL_OP_CONST && in->nimms && f->imms.data[in->first_imm].value == 16) keyed++;
        }
        if (seed % 4 == 0) {
            CHECK(both_forms_agree(f, "fast", seed));
            CHECK(both_forms_agree(f, "linear", seed));
        }
        ravel_module_free(mod);
    }
    CHECK(undefs > 20);
    CHECK(keyed > 20);
}

int main(void)
{
    RUN(on_by_default_and_off_when_asked);
    RUN(alias_machines);
    RUN(undef_and_remat);
    return TEST_SUMMARY();
}
