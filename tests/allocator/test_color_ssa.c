/* test_color_ssa.c - what the `color` and `ssa` allocators promise beyond
 * correctness (test_allocators checks every allocator of the table on the
 * corpus and generated functions): copies and block parameters coalesced
 * (no moves), values live across a call kept out of its clobbers, a
 * reloaded value read again from its register (assign.c's reload cache),
 * .ref values listed at safepoints, irreducible loops, and a large function
 * allocated. Every allocation is also checked and run. */
#include "allocator/alloc.h"
#include "fuzz/gen.h"
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>

static const char *const NEW_ALLOCS[] = {"color", "ssa"};

/* Allocates the first function of src with allocator name, checks it and
 * compares runs; returns the allocation (NULL on any failure, reported). */
static ravel_func *alloc_checked(const char *name, const ravel_func *f)
{
    const rv_allocator *al = rv_allocator_find(name);
    CHECK(al != NULL);
    if (!al) return NULL;
    rv_alloc_opts o = {1, false, NULL};
    char *err = NULL;
    ravel_func *g = al->run(f, &o, &err);
    if (!g) fprintf(stderr, "[%s] allocation failed: %s\n", name, err ? err : "?");
    free(err);
    CHECK(g != NULL);
    if (!g) return NULL;
    ravel_checker *ck = ravel_checker_new();
    ravel_report *rep = NULL;
    int rc = ravel_check(ck, g, f, &rep);
    if (rc != RAVEL_OK) {
        ravel_print_func(stderr, g);
        ravel_report_print(stderr, rep);
    }
    CHECK_EQ_INT(rc, RAVEL_OK);
    ravel_report_free(rep);
    ravel_checker_free(ck);
    for (int k = 0; k < 4; k++) {
        uint64_t in[4] = {(uint64_t)k, 10, (uint64_t)k * 3, 7};
        rv_run_opts ro;
        memset(&ro, 0, sizeof ro);
        ro.inputs = in;
        ro.ninputs = 4;
        ro.step_limit = 20000;
        ro.moving_gc = k & 1;
        char msg[512];
        bool same = rv_interp_compare(f, g, &ro, msg, sizeof msg);
        if (!same) fprintf(stderr, "[%s] %s\n", name, msg);
        CHECK(same);
    }
    return g;
}

static ravel_module *parse(const char *src)
{
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(src, strlen(src), "test.ra", d);
    ravel_diags_free(d);
    CHECK(m != NULL);
    return m;
}

/* Counts the edits of g by kind and the slots listed by its stackmaps. */
static void count(const ravel_func *g, rv_cost *c, uint32_t *listed)
{
    rv_cost_compute(g, c);
    *listed = 0;
    for (uint32_t i = 0; i < g->insts.len; i++) {
        const rv_inst *in = rv_inst_at(g, i);
        if (!rv_is_edit(in) && (in->flags & RV_IF_STACKMAP)) *listed += in->u.smap.n;
    }
}

/* Runs each new allocator on src; expects at most the given edit counts
 * (UINT32_MAX: any) and at least min_listed stackmap entries. */
static void expect(const char *src, uint32_t max_spills, uint32_t max_reloads, uint32_t max_moves, uint32_t min_listed)
{
    ravel_module *m = parse(src);
    if (!m) return;
    for (size_t a = 0; a < sizeof NEW_ALLOCS / sizeof *NEW_ALLOCS; a++) {
        ravel_func *g = alloc_checked(NEW_ALLOCS[a], ravel_module_func(m, 0));
        if (!g) continue;
        rv_cost c;
        uint32_t listed;
        count(g, &c, &listed);
        bool ok = c.spills <= max_spills && c.reloads <= max_reloads && c.moves <= max_moves && listed >= min_listed;
        if (!ok) {
            fprintf(stderr, "[%s] %llu spills, %llu reloads, %llu moves, %u listed:\n", NEW_ALLOCS[a], (unsigned long long)c.spills,
                    (unsigned long long)c.reloads, (unsigned long long)c.moves, listed);
            ravel_print_func(stderr, g);
        }
        CHECK(ok);
        ravel_func_free(g);
    }
    ravel_module_free(m);
}

TEST(copies_coalesced)
{
    expect("machine\n  class int r0..r3\nend\n"
           "func f\nb0:\n  v0:int = args\n  v1:int = copy v0\n  v2:int = copy v1\n  v3:int = add v2, v2\n  out v3\n  ret\nend\n",
           0, 0, 0, 0);
}

/* docs/format.md's summing loop with three registers: the loop-carried
 * parameters share their arguments' registers; four values are live at
 * the comparison, so the loop bound is spilled once and reloaded once (as
 * in the format's hand-written allocation). */
TEST(loop_parameters_coalesced)
{
    expect("machine\n  class int r0 r1 r2\nend\n"
           "func sum\nb0:\n  v0:int fixed(r0), v1:int fixed(r1) = args\n  v8:int = const 0\n  jump b1(v0, v8)\n"
           "b1(v2:int, v3:int):\n  v4:int = le v2, v1\n  br v4, b2, b3\n"
           "b2:\n  v5:int = add v3, v2\n  v6:int = add v2, 1\n  jump b1(v6, v5)\n"
           "b3:\n  ret v3 fixed(r0)\nend\n",
           1, 1, 2, 0);
}

/* Two values live across a call that clobbers half the registers sit in
 * the other half: nothing is saved around the call. */
TEST(call_clobbers_avoided)
{
    expect("machine\n  class int r0..r7\n  clobbers r0..r3\nend\n"
           "func f\nb0:\n  v0:int = const 1\n  v1:int = const 2\n  call g\n  call g\n  out v0, v1\n  ret\nend\n",
           0, 0, 0, 0);
}

/* One register for three values: the spilled one is reloaded once and
 * read from that register by the next uses in the block. */
TEST(reload_reused)
{
    expect("machine\n  class int r0 r1\nend\n"
           "func f\nb0:\n  v0:int = const 1\n  v1:int = const 2\n  v2:int = const 3\n"
           "  out v0\n  out v0\n  out v0\n  out v0\n  out v1\n  out v2\n  out v0\n  ret\nend\n",
           UINT32_MAX, 3, UINT32_MAX, 0);
}

/* A reference live across a safepoint is listed (in its slot) and comes
 * back from it. */
TEST(refs_listed_at_safepoints)
{
    expect("machine\n  class int r0..r3\nend\n"
           "func f\nb0:\n  v0:int.ref = const 5\n  v1:int = const 6\n  gcpoll safepoint\n  out v0, v1\n  ret\nend\n",
           UINT32_MAX, UINT32_MAX, UINT32_MAX, 1);
}

/* An irreducible loop (two entries, b1 and b2, each reachable from the
 * other) carrying values through parameters. */
TEST(irreducible_loop)
{
    expect("machine\n  class int r0 r1\nend\n"
           "func f\nb0:\n  v0:int, v1:int = args\n  br v0, b3, b4\n"
           "b3:\n  jump b1(v1)\nb4:\n  jump b2(v0)\n"
           "b1(v2:int):\n  v3:int = add v2, 1\n  v4:int = lt v3, 20\n  br v4, b5, b6\n"
           "b5:\n  jump b2(v3)\n"
           "b2(v5:int):\n  v6:int = add v5, v1\n  v7:int = lt v6, 30\n  br v7, b7, b8\n"
           "b7:\n  jump b1(v6)\n"
           "b6:\n  out v3\n  ret\nb8:\n  out v6\n  ret\nend\n",
           UINT32_MAX, UINT32_MAX, UINT32_MAX, 0);
}

/* A generated function of 20000 instructions (tens of values live
 * everywhere) allocates, checks and runs. */
TEST(large_function)
{
    rv_gen_opts o;
    rv_gen_opts_default(&o);
    o.max_insts = 20000;
    o.min_insts = 18000;
    o.max_blocks = 500;
    o.min_regs = o.max_regs = 16;
    o.window = 32;
    ravel_module *m = rv_gen_from_seed(20000, &o);
    for (size_t a = 0; a < sizeof NEW_ALLOCS / sizeof *NEW_ALLOCS; a++) ravel_func_free(alloc_checked(NEW_ALLOCS[a], ravel_module_func(m, 0)));
    ravel_module_free(m);
}

int main(void)
{
    RUN(copies_coalesced);
    RUN(loop_parameters_coalesced);
    RUN(call_clobbers_avoided);
    RUN(reload_reused);
    RUN(refs_listed_at_safepoints);
    RUN(irreducible_loop);
    RUN(large_function);
    return TEST_SUMMARY();
}
