/* test_fuzzlib.c - the fuzzing library: every oracle passes correct code and
 * catches planted bugs (a wrong allocation, a failing allocator, a wrong
 * verdict in a reproducer header, a stackmap bug only the moving-collector
 * model shows); the checker oracle draws and counts every kind of the
 * injection catalogue; the campaign is deterministic across worker counts. */
#define _GNU_SOURCE /* mkdtemp */
#include "fuzz/campaign.h"
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char sum_text[] =
    "machine\n  class int r0 r1 r2\nend\n\nfunc sum\nb0:\n"
    "  v0:int fixed(r0), v1:int fixed(r1) = args\n  v8:int = const 0\n  jump b1(v0, v8)\n"
    "b1(v2:int, v3:int):\n  v4:int = le v2, v1\n  br v4, b2, b3\n"
    "b2:\n  v5:int = add v3, v2\n  v6:int = add v2, 1\n  jump b1(v6, v5)\n"
    "b3:\n  ret v3 fixed(r0)\nend\n";

static const char sum_alloc_text[] =
    "machine\n  class int r0 r1 r2\nend\n\nfunc sum\nb0:\n"
    "  v0:int fixed(r0) @r0, v1:int fixed(r1) @r1 = args\n  s0 = spill r1\n  v8:int @r2 = const 0\n"
    "  jump b1(v0, v8)\nb1(v2:int, v3:int):\n  r1 = reload s0\n  v4:int @r1 = le v2 @r0, v1 @r1\n"
    "  br v4 @r1, b2, b3\nb2:\n  v5:int @r2 = add v3 @r2, v2 @r0\n  v6:int @r0 = add v2 @r0, 1\n"
    "  jump b1(v6, v5)\nb3:\n  r0 = move r2\n  ret v3 fixed(r0) @r0\nend\n";

static ravel_module *parse(const char *text)
{
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, strlen(text), "<test>", d);
    if (ravel_diags_count(d)) ravel_diags_print(stderr, d);
    ravel_diags_free(d);
    return m;
}

static bool has(const rv_fuzz *z, const char *s) { return z->repro && strstr(z->repro, s) != NULL; }

/* Planted bugs: an allocator whose output puts every operand in register 0,
 * and one that always fails. */
static ravel_func *all_in_r0(const ravel_func *f, const rv_alloc_opts *o, char **err)
{
    ravel_func *out = rv_allocators[0].run(f, o, err);
    for (uint32_t i = 0; out && i < out->ops.len; i++) out->ops.data[i].loc = 0;
    return out;
}

static ravel_func *always_fails(const ravel_func *f, const rv_alloc_opts *o, char **err)
{
    (void)f, (void)o;
    *err = strdup("planted failure");
    return NULL;
}

TEST(parse_round_trip)
{
    rv_fuzz *z = rv_fuzz_new();
    CHECK_EQ_INT(rv_fuzz_parse(z, (const uint8_t *)sum_text, strlen(sum_text)), RV_FUZZ_PASS);
    CHECK_EQ_INT(rv_fuzz_parse(z, (const uint8_t *)sum_alloc_text, strlen(sum_alloc_text)), RV_FUZZ_PASS);
    CHECK_EQ_INT(rv_fuzz_parse(z, (const uint8_t *)"func (((", 8), RV_FUZZ_SKIP);
    CHECK_EQ_INT(rv_fuzz_parse(z, (const uint8_t *)"", 0), RV_FUZZ_SKIP);
    rv_fuzz_free(z);
}

TEST(alloc_passes_every_allocator)
{
    ravel_module *m = parse(sum_text);
    CHECK(m != NULL);
    if (!m) return;
    rv_fuzz *z = rv_fuzz_new();
    CHECK(rv_fuzz_nallocators() > 0);
    for (size_t i = 0; rv_allocators[i].name; i++) {
        int r = rv_fuzz_alloc(z, ravel_module_func(m, 0), &rv_allocators[i], 42, RV_FUZZ_DIFF);
        if (r != RV_FUZZ_PASS) fprintf(stderr, "%s:\n%s", rv_allocators[i].name, z->repro ? z->repro : "");
        CHECK_EQ_INT(r, RV_FUZZ_PASS);
    }
    rv_fuzz_free(z);
    ravel_module_free(m);
}

TEST(alloc_catches_planted_bugs)
{
    ravel_module *m = parse(sum_text);
    if (!m) return;
    rv_fuzz *z = rv_fuzz_new();
    const rv_allocator bad = {.name = "all_in_r0", .description = "planted bug", .run = all_in_r0};
    CHECK_EQ_INT(rv_fuzz_alloc(z, ravel_module_func(m, 0), &bad, 1, 0), RV_FUZZ_BUG);
    CHECK(has(z, "# allocator: all_in_r0"));
    CHECK(has(z, "# target: alloc"));
    CHECK(has(z, "func sum"));
    CHECK(has(z, "machine"));
    /* the reproducer is itself a readable .ra file with the wrong allocation */
    ravel_module *back = z->repro ? parse(z->repro) : NULL;
    CHECK(back != NULL && ravel_module_nfuncs(back) == 1 && rv_func_is_allocated(ravel_module_func(back, 0)));
    ravel_module_free(back);
    /* and carries the unallocated function as "#| " lines */
    char *orig = calloc(1, z->repro ? z->repro_len + 1 : 1);
    size_t n = 0;
    for (const char *p = z->repro; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len >= 3 && !strncmp(p, "#| ", 3)) {
            memcpy(orig + n, p + 3, len - 3);
            n += len - 3;
            orig[n++] = '\n';
        }
        p += len + (e != NULL);
    }
    ravel_module *um = n ? parse(orig) : NULL;
    CHECK(um != NULL && ravel_module_nfuncs(um) == 1 && !rv_func_is_allocated(ravel_module_func(um, 0)));
    ravel_module_free(um);
    free(orig);
    const rv_allocator fails = {.name = "fails", .description = "planted failure", .run = always_fails};
    CHECK_EQ_INT(rv_fuzz_alloc(z, ravel_module_func(m, 0), &fails, 1, 0), RV_FUZZ_BUG);
    CHECK(has(z, "allocation failed"));
    CHECK(has(z, "planted failure"));
    rv_fuzz_free(z);
    ravel_module_free(m);
}

/* Structurally invalid outputs (the harness validates them only once the
 * checker rejects): each must still be reported as "does not validate" with
 * the validator's message, never as a pass or a mere checker rejection. */
static ravel_func *no_location(const ravel_func *f, const rv_alloc_opts *o, char **err)
{
    ravel_func *out = rv_allocators[0].run(f, o, err);
    if (out && out->ops.len) out->ops.data[out->ops.len - 1].loc = RAVEL_LOC_NONE;
    return out;
}

static ravel_func *reg_out_of_range(const ravel_func *f, const rv_alloc_opts *o, char **err)
{
    ravel_func *out = rv_allocators[0].run(f, o, err);
    if (out && out->ops.len) out->ops.data[0].loc = out->mach->regs.len + 3;
    return out;
}

static ravel_func *slot_to_slot(const ravel_func *f, const rv_alloc_opts *o, char **err)
{
    ravel_func *out = rv_allocators[0].run(f, o, err);
    for (uint32_t i = 0; out && i < out->insts.len; i++)
        if (rv_is_edit(&out->insts.data[i])) {
            out->insts.data[i].op = RAVEL_OP_MOVE;
            out->insts.data[i].u.edit.dst = ravel_slot(0);
            out->insts.data[i].u.edit.src = ravel_slot(1);
            out->nslots = out->nslots > 2 ? out->nslots : 2;
            break;
        }
    return out;
}

TEST(alloc_reports_invalid_output)
{
    ravel_module *m = parse(sum_text);
    if (!m) return;
    const struct { rv_allocator a; const char *msg; } cases[] = {
        {{.name = "no_location", .description = "planted bug", .run = no_location}, "has no location"},
        {{.name = "reg_out_of_range", .description = "planted bug", .run = reg_out_of_range}, "out of range"},
        {{.name = "slot_to_slot", .description = "planted bug", .run = slot_to_slot}, "slot-to-slot move"},
    };
    for (int validate_first = 0; validate_first < 2; validate_first++) {
        rv_fuzz *z = rv_fuzz_new();
        if (validate_first) ravel_checker_set_options(z->ck, RAVEL_CHECK_NO_VALIDATE);
        for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
            CHECK_EQ_INT(rv_fuzz_alloc(z, ravel_module_func(m, 0), &cases[k].a, 1, 0), RV_FUZZ_BUG);
            CHECK(has(z, "# verdict: the allocated function does not validate"));
            if (!has(z, cases[k].msg)) fprintf(stderr, "%s: expected '%s' in:\n%s", cases[k].a.name, cases[k].msg, z->repro ? z->repro : "");
            CHECK(has(z, cases[k].msg));
        }
        /* a correct allocation still passes, and a wrong but well-formed one
         * is the checker's verdict */
        CHECK_EQ_INT(rv_fuzz_alloc(z, ravel_module_func(m, 0), &rv_allocators[0], 1, 0), RV_FUZZ_PASS);
        const rv_allocator bad = {.name = "all_in_r0", .description = "planted bug", .run = all_in_r0};
        CHECK_EQ_INT(rv_fuzz_alloc(z, ravel_module_func(m, 0), &bad, 1, 0), RV_FUZZ_BUG);
        CHECK(has(z, "# verdict: the checker rejects the allocation"));
        rv_fuzz_free(z);
    }
    ravel_module_free(m);
}

/* The premise of validating outputs only after a checker rejection: every
 * output the validator rejects, the checker rejects too. Random structural
 * breaks (seed-driven, so that one seed gives one output) of correct
 * allocations of generated functions: whenever the validator rejects the
 * output, the harness must say "does not validate"; otherwise its verdict is
 * the checker's. */
static ravel_func *structural_bug(const ravel_func *f, const rv_alloc_opts *o, char **err)
{
    ravel_func *out = rv_allocators[0].run(f, o, err);
    if (!out || !out->ops.len) return out;
    uint64_t h = rv_hash64(o->seed);
    const ravel_machine *m = out->mach;
    rv_operand *op = &out->ops.data[(h >> 8) % out->ops.len];
    uint32_t nregs = m->regs.len;
    switch (h % 6) {
    case 0: op->loc = RAVEL_LOC_NONE; break;
    case 1: op->loc = nregs + (uint32_t)(h >> 40) % 4; break;
    case 2: /* a register of another class, or a reserved one, when there is one */
    case 3:
        for (uint32_t r = 0; r < nregs; r++)
            if (h % 6 == 2 ? m->regs.data[r].cls != out->vregs.data[op->vreg].cls : m->regs.data[r].reserved) {
                op->loc = r;
                break;
            }
        break;
    case 4: /* an edit of the wrong kind */
        for (uint32_t i = 0; i < out->insts.len; i++)
            if (rv_is_edit(&out->insts.data[i])) {
                rv_inst *in = &out->insts.data[i];
                in->op = in->op == RAVEL_OP_SPILL ? RAVEL_OP_RELOAD : RAVEL_OP_SPILL;
                break;
            }
        break;
    default: /* a safepoint without its stackmap */
        for (uint32_t i = 0; i < out->insts.len; i++)
            if (out->insts.data[i].flags & RV_IF_SAFEPOINT) {
                out->insts.data[i].flags &= (uint8_t)~RV_IF_STACKMAP;
                out->insts.data[i].u.smap.n = 0;
                break;
            }
        break;
    }
    return out;
}

TEST(alloc_invalid_output_property)
{
    rv_fuzz *z = rv_fuzz_new();
    ravel_checker *ck = ravel_checker_new();
    const rv_allocator bad = {.name = "structural_bug", .description = "planted bug", .run = structural_bug};
    rv_gen_opts g;
    rv_gen_opts_default(&g);
    g.max_insts = 40;
    unsigned invalid = 0, mismatches = 0;
    for (uint64_t seed = 0; seed < 300; seed++) {
        ravel_module *m = rv_gen_from_seed(seed, &g);
        const ravel_func *f = ravel_module_func(m, 0);
        rv_alloc_opts ao = {.seed = seed};
        char *err = NULL;
        ravel_func *out = structural_bug(f, &ao, &err);
        free(err);
        if (out) {
            ravel_diags *d = ravel_diags_new();
            bool valid = ravel_validate(out, 0, d) == RAVEL_OK;
            ravel_diags_free(d);
            bool accepted = ravel_check(ck, out, f, NULL) == RAVEL_OK;
            int r = rv_fuzz_alloc(z, f, &bad, seed, 0);
            invalid += !valid;
            bool ok = valid ? r == (accepted ? RV_FUZZ_PASS : RV_FUZZ_BUG)
                            : r == RV_FUZZ_BUG && has(z, "# verdict: the allocated function does not validate");
            if (!ok && mismatches++ < 3)
                fprintf(stderr, "seed %llu: valid %d, checker %s, harness %d\n%s", (unsigned long long)seed, valid,
                        accepted ? "accepts" : "rejects", r, r == RV_FUZZ_BUG && z->repro ? z->repro : "");
            CHECK(!(valid == false && accepted)); /* the premise itself */
        }
        ravel_func_free(out);
        ravel_module_free(m);
    }
    CHECK_EQ_INT(mismatches, 0);
    CHECK(invalid > 100); /* most breaks are structural (some find nothing to break) */
    ravel_checker_free(ck);
    rv_fuzz_free(z);
}

TEST(oracle_on_correct_checker)
{
    ravel_module *m = parse(sum_text);
    if (!m) return;
    rv_fuzz *z = rv_fuzz_new();
    for (size_t i = 0; rv_allocators[i].name; i++)
        for (uint64_t s = 0; s < 50; s++) {
            int r = rv_fuzz_oracle(z, ravel_module_func(m, 0), &rv_allocators[i], s);
            if (r == RV_FUZZ_BUG) fprintf(stderr, "%s", z->repro);
            CHECK(r != RV_FUZZ_BUG);
        }
    rv_fuzz_free(z);
    ravel_module_free(m);
}

/* rv_fuzz_alloc with RV_FUZZ_ORACLE (the campaign's --oracle) runs the
 * oracle on its own allocation: the same corruptions and verdicts as
 * rv_fuzz_alloc followed by rv_fuzz_oracle, with one allocation and check
 * fewer. */
TEST(oracle_flag_matches_oracle)
{
    rv_fuzz *z1 = rv_fuzz_new(), *z2 = rv_fuzz_new();
    rv_gen_opts g;
    rv_gen_opts_default(&g);
    g.max_insts = 60;
    for (uint64_t seed = 0; seed < 60; seed++) {
        ravel_module *m = rv_gen_from_seed(seed, &g);
        const ravel_func *f = ravel_module_func(m, 0);
        const rv_allocator *a = &rv_allocators[seed % rv_fuzz_nallocators()];
        int r1 = rv_fuzz_alloc(z1, f, a, seed, 0);
        if (r1 == RV_FUZZ_PASS) r1 = rv_fuzz_oracle(z1, f, a, seed);
        int r2 = rv_fuzz_alloc(z2, f, a, seed, RV_FUZZ_ORACLE);
        CHECK_EQ_INT(r1 == RV_FUZZ_BUG, r2 == RV_FUZZ_BUG);
        CHECK(!z2->oracle_miss || r2 == RV_FUZZ_BUG);
        ravel_module_free(m);
    }
    CHECK(z1->oracle_rejected + z1->oracle_accepted > 30); /* the oracle ran */
    CHECK_EQ_INT(z1->oracle_rejected, z2->oracle_rejected);
    CHECK_EQ_INT(z1->oracle_accepted, z2->oracle_accepted);
    /* a wrong allocation is an allocation failure, not a checker miss */
    ravel_module *m = parse(sum_text);
    const rv_allocator bad = {.name = "all_in_r0", .description = "planted bug", .run = all_in_r0};
    if (m) CHECK_EQ_INT(rv_fuzz_alloc(z2, ravel_module_func(m, 0), &bad, 1, RV_FUZZ_ORACLE), RV_FUZZ_BUG);
    CHECK(!z2->oracle_miss);
    ravel_module_free(m);
    rv_fuzz_free(z1);
    rv_fuzz_free(z2);
}

/* The checker oracle draws every kind of the injection catalogue and
 * counts every draw: on generated functions each kind is tried, changes
 * some allocation (it is not idle), and tried = no_site + unchanged +
 * rejected + accepted, whose sums are the oracle's totals; the draws are
 * near uniform; a pinned kind (inject_kind) is the only one drawn. */
static void oracle_runs(rv_fuzz *z, uint64_t nfuncs)
{
    rv_gen_opts g;
    rv_gen_opts_default(&g);
    g.max_insts = 100;
    g.features = RV_GEN_ALL; /* (section 14 on a quarter of the runs, below) */
    for (uint64_t seed = 0; seed < nfuncs; seed++) {
        rv_gen_opts h = g;
        if (seed % 4 == 3) h.features |= RV_GEN_ALIAS | RV_GEN_UNDEF | RV_GEN_REMAT; /* (section 14's kinds' ground) */
        ravel_module *m = rv_gen_from_seed(seed, &h);
        const rv_allocator *a = &rv_allocators[seed % rv_fuzz_nallocators()];
        int r = rv_fuzz_oracle(z, ravel_module_func(m, 0), a, seed);
        if (r == RV_FUZZ_BUG) fprintf(stderr, "%s", z->repro);
        CHECK(r != RV_FUZZ_BUG);
        ravel_module_free(m);
    }
}

TEST(oracle_draws_and_counts_every_kind)
{
    rv_fuzz *z = rv_fuzz_new();
    oracle_runs(z, 1000);
    uint64_t tried = 0, rejected = 0, accepted = 0;
    for (int k = 0; k < RV_INJ_COUNT_; k++) {
        const uint64_t *c = z->oracle_kinds[k];
        if (c[RV_ORC_TRIED] == 0 || c[RV_ORC_REJECTED] + c[RV_ORC_ACCEPTED] == 0)
            fprintf(stderr, "kind %s: tried %llu, changed %llu\n", rv_inject_info_of((rv_inject_kind)k)->name,
                    (unsigned long long)c[RV_ORC_TRIED], (unsigned long long)(c[RV_ORC_REJECTED] + c[RV_ORC_ACCEPTED]));
        CHECK(c[RV_ORC_TRIED] > 0);
        /* (the kinds of section 14 need rare shapes: test_inject's ext_kinds shows each applies) */
        if (strcmp(rv_inject_info_of((rv_inject_kind)k)->family, "ext") != 0) CHECK(c[RV_ORC_REJECTED] + c[RV_ORC_ACCEPTED] > 0);
        CHECK_EQ_INT(c[RV_ORC_TRIED], c[RV_ORC_NO_SITE] + c[RV_ORC_UNCHANGED] + c[RV_ORC_REJECTED] + c[RV_ORC_ACCEPTED]);
        CHECK_EQ_INT(c[RV_ORC_MISSED], 0);
        tried += c[RV_ORC_TRIED], rejected += c[RV_ORC_REJECTED], accepted += c[RV_ORC_ACCEPTED];
    }
    CHECK_EQ_INT(rejected, z->oracle_rejected);
    CHECK_EQ_INT(accepted, z->oracle_accepted);
    CHECK(z->oracle_tried <= tried && tried <= 3 * z->oracle_tried); /* up to three draws per run */
    for (int k = 0; k < RV_INJ_COUNT_; k++) /* near uniform: at least a quarter of the mean */
        CHECK(4 * RV_INJ_COUNT_ * z->oracle_kinds[k][RV_ORC_TRIED] >= tried);
    /* a pinned kind is the only one drawn */
    int pin = RV_INJ_COUNT_ - 1;
    rv_fuzz *zp = rv_fuzz_new();
    zp->inject_kind = pin;
    oracle_runs(zp, 40);
    for (int k = 0; k < RV_INJ_COUNT_; k++) CHECK_EQ_INT(zp->oracle_kinds[k][RV_ORC_TRIED] > 0, k == pin);
    rv_fuzz_free(zp);
    rv_fuzz_free(z);
}

/* ---- non-SSA redefinitions (rv_fuzz_redefine) ---- */

/* Both forms agree on a few input vectors (the moving collector when the
 * machine's moves). */
static bool runs_agree(const ravel_func *f, const ravel_func *a)
{
    for (uint64_t k = 0; k < 3; k++) {
        uint64_t in[8];
        rv_interp_inputs(7, k, in, 8);
        rv_run_opts o = {.inputs = in, .ninputs = 8, .step_limit = 20000, .moving_gc = !f->mach->gc_nonmoving};
        char msg[256];
        if (!rv_interp_compare(f, a, &o, msg, sizeof msg)) return false;
    }
    return true;
}

/* A use that reads a stale copy: in g (a redefinition), the first use of
 * the twice-defined vreg after its second def that reads a register (not a
 * fixed one) is moved to a register where the first value of that vreg was
 * (its def's or a read's) and the second def did not write. False if g has
 * no such use. */
static bool read_stale_copy(ravel_func *g)
{
    for (uint32_t i = 0; i < g->insts.len; i++) {
        const rv_inst *in = rv_inst_at(g, i);
        for (uint32_t d = 0; d < in->ndefs; d++) {
            uint32_t v = rv_inst_defs(g, in)[d].vreg;
            ravel_loc now = rv_inst_defs(g, in)[d].loc, olds[8];
            unsigned nold = 0;
            bool second = false;
            for (uint32_t j = 0; j < i; j++) { /* an earlier def of v; where its value was */
                const rv_inst *p = rv_inst_at(g, j);
                for (uint32_t k = 0; k < p->ndefs + p->nuses; k++) {
                    const rv_operand *o = &rv_inst_ops(g, p)[k];
                    if (o->vreg != v) continue;
                    second |= k < p->ndefs;
                    if (ravel_loc_is_reg(o->loc) && o->loc != now && nold < 8) olds[nold++] = o->loc;
                }
            }
            if (!second || nold == 0) continue;
            for (uint32_t j = i + 1; j < g->insts.len; j++) {
                const rv_inst *u = rv_inst_at(g, j);
                for (uint32_t k = 0; k < u->nuses; k++) {
                    rv_operand *o = &rv_inst_uses(g, u)[k];
                    if (o->vreg != v || o->kind == RAVEL_C_FIXED || !ravel_loc_is_reg(o->loc)) continue;
                    for (unsigned q = 0; q < nold; q++)
                        if (olds[q] != o->loc) {
                            o->loc = olds[q];
                            return true;
                        }
                }
            }
        }
    }
    return false;
}

/* rv_fuzz_redefine makes valid non-SSA functions whose allocation stays
 * correct (the checker accepts it, both forms agree); a read of the first
 * value's stale copy after the second def is rejected or harmless, never
 * accepted and wrong; the checker oracle's runs include redefinitions. */
TEST(redefinitions)
{
    rv_gen_opts g;
    rv_gen_opts_default(&g);
    g.max_insts = 80;
    ravel_checker *ck = ravel_checker_new();
    unsigned made = 0, stale = 0, rejected = 0;
    for (uint64_t seed = 0; seed < 200; seed++) { /* (aliased machines: 4 of the 6 allocators decline them) */
        ravel_module *m = rv_gen_from_seed(seed, &g);
        const ravel_func *f = ravel_module_func(m, 0);
        ravel_func *out = NULL, *f2 = NULL, *out2 = NULL;
        char *err = NULL;
        rv_alloc_opts ao = {.seed = seed};
        rv_alloc_run(&rv_allocators[seed % rv_fuzz_nallocators()], f, &ao, &out, &err);
        free(err);
        if (out && ravel_check(ck, out, f, NULL) == RAVEL_OK && rv_fuzz_redefine(f, out, seed, &f2, &out2)) {
            made++;
            ravel_diags *d = ravel_diags_new();
            CHECK_EQ_INT(ravel_validate(f2, 0, d), RAVEL_OK);
            CHECK(ravel_validate(f2, RAVEL_VALIDATE_SSA, d) != RAVEL_OK); /* v is defined twice */
            ravel_diags_free(d);
            CHECK_EQ_INT(ravel_check(ck, out2, f2, NULL), RAVEL_OK);
            CHECK(runs_agree(f2, out2));
            if (read_stale_copy(out2)) {
                stale++;
                bool accepted = ravel_check(ck, out2, f2, NULL) == RAVEL_OK;
                rejected += !accepted;
                if (accepted && !runs_agree(f2, out2)) {
                    fprintf(stderr, "seed %llu: a read of a stale copy accepted, and the runs differ\n",
                            (unsigned long long)seed);
                    CHECK(0);
                }
            }
        }
        ravel_func_free(f2);
        ravel_func_free(out2);
        ravel_func_free(out);
        ravel_module_free(m);
    }
    printf("redefinitions: %u made, %u stale reads, %u rejected\n", made, stale, rejected);
    CHECK(made >= 100);
    CHECK(stale >= 20);
    CHECK(rejected >= stale / 2);
    ravel_checker_free(ck);
    /* the oracle's runs: about a quarter on a redefinition (all of them
     * with redefine_permille 1000, none with 0), none rejected */
    rv_fuzz *z = rv_fuzz_new();
    oracle_runs(z, 80);
    CHECK(z->oracle_redefs >= 8 && z->oracle_redefs <= 40);
    uint64_t quarter = z->oracle_redefs;
    z->redefine_permille = 1000;
    oracle_runs(z, 20);
    CHECK(z->oracle_redefs >= quarter + 15);
    z->redefine_permille = 0;
    uint64_t before = z->oracle_redefs;
    oracle_runs(z, 20);
    CHECK_EQ_INT(z->oracle_redefs, before);
    rv_fuzz_free(z);
}

TEST(replay_verdicts)
{
    rv_fuzz *z = rv_fuzz_new();
    char buf[4096];
    snprintf(buf, sizeof buf, "# expect: accept\n%s", sum_alloc_text);
    int r = rv_fuzz_replay_ra(z, buf, strlen(buf), "accept.ra");
    if (r != RV_FUZZ_PASS && z->repro) fprintf(stderr, "%s", z->repro);
    CHECK_EQ_INT(r, RV_FUZZ_PASS);
    snprintf(buf, sizeof buf, "# expect: reject\n%s", sum_alloc_text);
    CHECK_EQ_INT(rv_fuzz_replay_ra(z, buf, strlen(buf), "reject.ra"), RV_FUZZ_BUG);
    CHECK(has(z, "expect: reject"));
    snprintf(buf, sizeof buf, "# allocator: no_such_allocator\n%s", sum_text);
    CHECK_EQ_INT(rv_fuzz_replay_ra(z, buf, strlen(buf), "bad.ra"), RV_FUZZ_BUG);
    CHECK_EQ_INT(rv_fuzz_replay_ra(z, "func (", 6, "broken.ra"), RV_FUZZ_BUG);
    rv_fuzz_free(z);
}

TEST(moves_random_sets)
{
    rv_fuzz *z = rv_fuzz_new();
    uint8_t buf[128];
    uint64_t s = 1;
    int bugs = 0;
    for (int k = 0; k < 3000; k++) {
        for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)((s = s * 6364136223846793005ull + 1442695040888963407ull) >> 56);
        if (rv_fuzz_moves(z, buf, (size_t)(k % (int)sizeof buf)) == RV_FUZZ_BUG && bugs++ == 0)
            fprintf(stderr, "%s", z->repro);
    }
    CHECK_EQ_INT(bugs, 0);
    rv_fuzz_free(z);
}

TEST(bytes_entry_points)
{
    rv_fuzz *z = rv_fuzz_new();
    uint8_t buf[300];
    uint64_t s = 99;
    int bugs = 0;
    for (int k = 0; k < 60; k++) {
        size_t n = (size_t)(k * 5) % sizeof buf;
        for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)((s = s * 6364136223846793005ull + 1442695040888963407ull) >> 56);
        rv_fuzz_target t = (rv_fuzz_target)(k % RV_FT_COUNT_);
        if (rv_fuzz_bytes(z, t, -1, buf, n) == RV_FUZZ_BUG && bugs++ < 2)
            fprintf(stderr, "target %s, input %d:\n%s", rv_fuzz_target_name(t), k, z->repro);
    }
    CHECK_EQ_INT(bugs, 0);
    /* out-of-range allocator index: nothing to do */
    CHECK_EQ_INT(rv_fuzz_bytes(z, RV_FT_ALLOC, 1000, buf, 10), RV_FUZZ_SKIP);
    rv_fuzz_free(z);
}

TEST(campaign_deterministic)
{
    char dir[] = "/tmp/ravel-fuzz-test-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    rv_campaign_opts o;
    rv_campaign_opts_default(&o);
    o.seed = 3;
    o.count = 30;
    o.outdir = dir;
    o.gen.max_insts = 60;
    rv_campaign_result a, b;
    o.jobs = 1;
    int ra = rv_campaign_run(&o, &a);
    o.jobs = 2;
    int rb = rv_campaign_run(&o, &b);
    CHECK(ra == 0 || ra == 1);
    CHECK_EQ_INT(ra, rb);
    CHECK_EQ_INT(a.iters, 30);
    CHECK_EQ_INT(b.iters, 30);
    CHECK_EQ_INT(a.nalloc, rv_fuzz_nallocators());
    for (unsigned k = 0; k < a.nalloc; k++) {
        CHECK_EQ_INT(a.per[k].funcs, 30);
        CHECK_EQ_INT(a.per[k].funcs, b.per[k].funcs);
        CHECK_EQ_INT(a.per[k].insts, b.per[k].insts);
        CHECK_EQ_INT(a.per[k].fails, b.per[k].fails);
    }
    o.allocator = "no-such-allocator";
    CHECK_EQ_INT(rv_campaign_run(&o, &a), 2);
    CHECK(rv_campaign_iter_seed(3, 0) != rv_campaign_iter_seed(3, 1));
    CHECK(rv_campaign_iter_seed(3, 0) != rv_campaign_iter_seed(4, 0));
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_EQ_INT(system(cmd), 0);
}

/* A crashing allocator: the campaign survives it, counts the crashes as
 * failures, writes reproducers, and goes on after them. */
static ravel_func *crashes(const ravel_func *f, const rv_alloc_opts *o, char **err)
{
    (void)f, (void)o, (void)err;
    if (o->seed % 4 == 0) abort();
    return rv_allocators[0].run(f, o, err);
}

TEST(campaign_survives_crashes)
{
    char dir[] = "/tmp/ravel-fuzz-test-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    const rv_allocator table[] = {{.name = "crashes", .description = "planted crash", .run = crashes}, {.name = "all_in_r0", .description = "planted bug", .run = all_in_r0},
                                  {.name = NULL}};
    rv_campaign_opts o;
    rv_campaign_opts_default(&o);
    o.table = table;
    o.seed = 5;
    o.count = 24;
    o.jobs = 2;
    o.outdir = dir;
    o.gen.max_insts = 40;
    rv_campaign_result r;
    CHECK_EQ_INT(rv_campaign_run(&o, &r), 1);
    CHECK(r.crashes > 0);
    CHECK_EQ_INT(r.per[0].fails, r.crashes);
    CHECK_EQ_INT(r.per[0].funcs, 24);    /* every case counted, crashed or not */
    CHECK_EQ_INT(r.per[1].funcs, 24);    /* the allocator after a crash still ran on every function */
    CHECK(r.per[1].fails > 0);           /* all_in_r0 is caught (functions with two live values) */
    /* the JSON summary carries the same figures */
    char *json = NULL, want[256];
    size_t len = 0;
    FILE *fp = open_memstream(&json, &len);
    CHECK(fp != NULL);
    rv_campaign_print_json(fp, &r, "out \"dir\"");
    fclose(fp);
    static const char head[] = "{\"seed\":\"0x5\",\"seconds\":";
    CHECK(strncmp(json, head, sizeof head - 1) == 0);
    snprintf(want, sizeof want, "\"functions\":24,\"gen_cpu_us\":");
    CHECK(strstr(json, want) != NULL);
    snprintf(want, sizeof want, "{\"name\":\"crashes\",\"functions\":24,\"instructions\":%llu,\"failures\":%llu,",
             (unsigned long long)r.per[0].insts, (unsigned long long)r.per[0].fails);
    CHECK(strstr(json, want) != NULL);
    snprintf(want, sizeof want, "{\"name\":\"all_in_r0\",\"functions\":24,\"instructions\":%llu,\"failures\":%llu,",
             (unsigned long long)r.per[1].insts, (unsigned long long)r.per[1].fails);
    CHECK(strstr(json, want) != NULL);
    snprintf(want, sizeof want, "],\"crashes\":%llu,\"outdir\":\"out \\\"dir\\\"\"}\n", (unsigned long long)r.crashes);
    CHECK(strstr(json, want) != NULL);
    free(json);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "grep -l 'crashes crashed' '%s'/crashes-i*.ra >/dev/null", dir);
    CHECK_EQ_INT(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_EQ_INT(system(cmd), 0);
}

/* A hanging allocator (on seeds divisible by 4): the campaign takes a worker
 * that makes no progress for --stall-timeout seconds as hung, kills it,
 * counts and writes the case, and goes on with the rest. */
static bool hang_seed(uint64_t seed) { return seed % 4 == 0; }

static ravel_func *hangs(const ravel_func *f, const rv_alloc_opts *o, char **err)
{
    if (hang_seed(o->seed))
        for (;;) sleep(1); /* until the campaign kills the worker */
    return rv_allocators[0].run(f, o, err);
}

TEST(campaign_kills_hung_workers)
{
    char dir[] = "/tmp/ravel-fuzz-test-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    const rv_allocator table[] = {{.name = "hangs", .description = "planted hang", .run = hangs}, {.name = "second", .description = "runs after it", .run = rv_allocators[0].run},
                                  {.name = NULL}};
    rv_campaign_opts o;
    rv_campaign_opts_default(&o);
    CHECK(o.stall_seconds == 60); /* the documented default */
    o.table = table;
    o.count = 8;
    o.jobs = 2;
    o.outdir = dir;
    o.gen.max_insts = 30;
    o.stall_seconds = 2; /* a hang costs ~2 s; margin for a loaded machine */
    /* a campaign seed whose 8 iterations hang exactly once or twice */
    unsigned nhang = 0;
    for (o.seed = 0; o.seed < 1000; o.seed++) {
        nhang = 0;
        for (uint64_t i = 0; i < o.count; i++) nhang += hang_seed(rv_campaign_iter_seed(o.seed, i));
        if (nhang == 1 || nhang == 2) break;
    }
    CHECK(nhang == 1 || nhang == 2);
    rv_campaign_result r;
    CHECK_EQ_INT(rv_campaign_run(&o, &r), 1);
    CHECK_EQ_INT(r.crashes, nhang);          /* each hang found, none invented */
    CHECK_EQ_INT(r.per[0].fails, nhang);
    CHECK_EQ_INT(r.per[0].funcs, o.count);   /* every case counted, hung or not */
    CHECK_EQ_INT(r.per[1].funcs, o.count);   /* the allocator after a hang still ran on every function */
    CHECK_EQ_INT(r.per[1].fails, 0);
    CHECK_EQ_INT(r.iters, o.count);
    CHECK(r.seconds < 30);                    /* the 2 s timeout, not the default 60 s */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "test $(grep -l 'hangs hung (killed)' '%s'/hangs-i*.ra | wc -l) -eq %u", dir, nhang);
    CHECK_EQ_INT(system(cmd), 0);
    /* the reproducer holds the function it hung on */
    snprintf(cmd, sizeof cmd, "grep -l '^func ' '%s'/hangs-i*.ra >/dev/null", dir);
    CHECK_EQ_INT(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK_EQ_INT(system(cmd), 0);
}

/* A stackmap bug that only the moving-collector model can see: v0, a
 * reference, lives in s0 across a safepoint and is reloaded after it. With
 * s0 dropped from the stackmap (inject smap-missing) the checker rejects the
 * allocation (docs/format.md section 6), and the differential oracle must
 * see it too: the unallocated run relocates v0, the allocated one reloads
 * the old bits from s0. Without the model (a safepoint without effect) both
 * runs print the input and the bug is invisible, so compare_runs must run
 * the model whenever the machine's collector moves, and only then. */
static const char gc_alloc_text[] =
    "machine\n  class int r0 r1 r2\n%send\n\nfunc keep\nb0:\n"
    "  v0:int.ref @r0 = args\n  s0 = spill r0\n  v1:int @r1 = foo safepoint stackmap(s0)\n"
    "  r0 = reload s0\n  out v0 @r0\n  ret\nend\n";

TEST(differential_sees_moving_gc_stackmap_bug)
{
    for (int moving = 1; moving >= 0; moving--) {
        char text[512];
        snprintf(text, sizeof text, gc_alloc_text, moving ? "" : "  gc nonmoving\n");
        ravel_module *m = parse(text);
        CHECK(m != NULL);
        if (!m) continue;
        const ravel_func *alloc = ravel_module_func(m, 0);
        ravel_func *orig = rv_func_strip(alloc);
        rv_fuzz *z = rv_fuzz_new();
        CHECK(ravel_check(z->ck, alloc, orig, NULL) == RAVEL_OK); /* the allocation itself is right */
        rv_fuzz_mutant mu;
        rv_fuzz_mutant_judge(z, orig, alloc, NULL, RV_INJ_SMAP_MISSING, 1, &mu);
        CHECK_EQ_INT(mu.status, RV_INJ_CHANGED);
        CHECK(mu.rejected);               /* v0's copy in s0 is stale (moving) or freed (nonmoving) */
        CHECK_EQ_INT(mu.different, moving); /* seen concretely only with the moving model */
        rv_fuzz_free(z);
        ravel_func_free(orig);
        ravel_module_free(m);
    }
}

int main(void)
{
    RUN(parse_round_trip);
    RUN(oracle_draws_and_counts_every_kind);
    RUN(redefinitions);
    RUN(alloc_passes_every_allocator);
    RUN(alloc_catches_planted_bugs);
    RUN(alloc_reports_invalid_output);
    RUN(alloc_invalid_output_property);
    RUN(oracle_on_correct_checker);
    RUN(oracle_flag_matches_oracle);
    RUN(replay_verdicts);
    RUN(differential_sees_moving_gc_stackmap_bug);
    RUN(moves_random_sets);
    RUN(bytes_entry_points);
    RUN(campaign_deterministic);
    RUN(campaign_survives_crashes);
    RUN(campaign_kills_hung_workers);
    return TEST_SUMMARY();
}
