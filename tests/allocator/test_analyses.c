/* test_analyses.c - the allocators' shared analyses, golden-text style:
 *   - the generic dataflow solver (forward/union, backward/intersection, a
 *     loop that needs a second pass, unreachable blocks);
 *   - liveness (live-in/live-out per block, params and jump arguments);
 *   - live intervals (ranges and use positions) of the sum loop of docs/format.md section 8;
 *   - the sparse liveness lists (uncapped, with jump arguments live-out,
 *     capped) against the bitsets, and intervals built from them;
 *   - the per-operand live-after walk (rv_live_after_walk, each option)
 *     against a forward scan of each block;
 *   - the cost model on the allocated sum loop of docs/format.md section 8;
 *   - the output builder's edge anchors and edit order. */
#include "allocator/alloc.h"
#include "fuzz/gen.h"
#include "ir/rng.h"
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>

static const char SUM[] =
    "machine\n  class int r0 r1 r2\nend\n"
    "func sum\n"
    "b0:\n"
    "  v0:int fixed(r0), v1:int fixed(r1) = args\n"
    "  v8:int = const 0\n"
    "  jump b1(v0, v8)\n"
    "b1(v2:int, v3:int):\n"
    "  v4:int = le v2, v1\n"
    "  br v4, b2, b3\n"
    "b2:\n"
    "  v5:int = add v3, v2\n"
    "  v6:int = add v2, 1\n"
    "  jump b1(v6, v5)\n"
    "b3:\n"
    "  ret v3 fixed(r0)\n"
    "end\n";

/* A CFG with a diamond, a loop and an unreachable block:
 * b0 -> b1, b2; b1 -> b3; b2 -> b3; b3 -> b4 (loop b4 <-> b5), b4 -> b6; b7 unreachable -> b6 */
static const char SHAPE[] =
    "machine\n  class int r0\nend\n"
    "func shape\n"
    "b0:\n  v0:int = args\n  br v0, b1, b2\n"
    "b1:\n  jump b3\n"
    "b2:\n  jump b3\n"
    "b3:\n  jump b4\n"
    "b4:\n  br v0, b5, b6\n"
    "b5:\n  jump b4\n"
    "b6:\n  ret\n"
    "b7:\n  jump b6\n"
    "end\n";

static ravel_module *parse(const char *text)
{
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, strlen(text), "<test>", d);
    if (!m) ravel_diags_print(stderr, d);
    ravel_diags_free(d);
    return m;
}

/* Appends "{v1 v2}" for the vregs set in bits. */
static void fmt_set(char *buf, size_t n, const ravel_func *f, const uint64_t *bits, uint32_t nbits)
{
    size_t len = strlen(buf);
    len += (size_t)snprintf(buf + len, n - len, "{");
    bool first = true;
    for (uint32_t v = 0; v < nbits && len < n; v++)
        if (rv_bs_test(bits, v)) {
            len += (size_t)snprintf(buf + len, n - len, "%sv%u", first ? "" : " ", f->vregs.data[v].num);
            first = false;
        }
    if (len < n) snprintf(buf + len, n - len, "}");
}

TEST(liveness_sum)
{
    ravel_module *m = parse(SUM);
    CHECK(m != NULL);
    if (!m) return;
    const ravel_func *f = ravel_module_func(m, 0);
    rv_cfg cfg;
    rv_cfg_build(&cfg, f);
    rv_liveness lv;
    rv_liveness_build(&lv, f, &cfg);
    char buf[1024] = "";
    for (uint32_t b = 0; b < lv.nblocks; b++) {
        size_t len = strlen(buf);
        snprintf(buf + len, sizeof buf - len, "%s in=", rv_block_name(f, b));
        fmt_set(buf, sizeof buf, f, lv.in + (size_t)b * lv.nwords, lv.nvregs);
        len = strlen(buf);
        snprintf(buf + len, sizeof buf - len, " out=");
        fmt_set(buf, sizeof buf, f, lv.out + (size_t)b * lv.nwords, lv.nvregs);
        len = strlen(buf);
        snprintf(buf + len, sizeof buf - len, "\n");
    }
    CHECK_STR(buf, "b0 in={} out={v1}\n"
                   "b1 in={v1} out={v1 v2 v3}\n"
                   "b2 in={v1 v2 v3} out={v1}\n"
                   "b3 in={v3} out={}\n");
    rv_liveness_free(&lv);
    rv_cfg_free(&cfg);
    ravel_module_free(m);
}

/* "v2: [6,13) | 6D 6u 10u 12u" per vreg (D def, P param, A jump argument). */
static void fmt_intervals(char *buf, size_t n, const ravel_func *f, const rv_intervals *s)
{
    buf[0] = 0;
    size_t len = 0;
    for (uint32_t v = 0; v < s->nvregs; v++) {
        len += (size_t)snprintf(buf + len, n - len, "v%u:", f->vregs.data[v].num);
        for (uint32_t k = 0; k < s->iv[v].nranges; k++)
            len += (size_t)snprintf(buf + len, n - len, " [%u,%u)", rv_iv_ranges(s, v)[k].from, rv_iv_ranges(s, v)[k].to);
        len += (size_t)snprintf(buf + len, n - len, " |");
        for (uint32_t k = 0; k < s->iv[v].nuses; k++) {
            const rv_use_pos *u = &rv_iv_uses(s, v)[k];
            char tag = (u->flags & RV_UP_PARAM) ? 'P' : (u->flags & RV_UP_DEF) ? 'D' : (u->flags & RV_UP_ARG) ? 'A' : 'u';
            len += (size_t)snprintf(buf + len, n - len, " %u%c", u->pos, tag);
        }
        len += (size_t)snprintf(buf + len, n - len, "\n");
    }
}

TEST(intervals_sum)
{
    ravel_module *m = parse(SUM);
    CHECK(m != NULL);
    if (!m) return;
    const ravel_func *f = ravel_module_func(m, 0);
    rv_cfg cfg;
    rv_cfg_build(&cfg, f);
    rv_liveness lv;
    rv_liveness_build(&lv, f, &cfg);
    rv_intervals s;
    rv_intervals_build(&s, f, &cfg, &lv);
    char buf[2048];
    fmt_intervals(buf, sizeof buf, f, &s);
    /* insts: 0 args, 1 const, 2 jump | 3 le, 4 br | 5 add, 6 add, 7 jump | 8 ret;
     * early point 2i, late 2i+1; blocks [0,6) [6,10) [10,16) [16,18) */
    CHECK_STR(buf, "v0: [1,5) | 1D 4A\n"
                   "v1: [1,16) | 1D 6u\n"
                   "v8: [3,5) | 3D 4A\n"
                   "v2: [6,13) | 6P 6u 10u 12u\n"
                   "v3: [6,11) [16,17) | 6P 10u 16u\n"
                   "v4: [7,9) | 7D 8u\n"
                   "v5: [11,15) | 11D 14A\n"
                   "v6: [13,15) | 13D 14A\n");
    /* v3 (id 4 in parse order v0 v1 v8 v2 v3 ...): covered at 10, not at 12, at 16 */
    uint32_t v3 = 4;
    CHECK_EQ_INT(f->vregs.data[v3].num, 3);
    CHECK(rv_iv_covers(&s, v3, 10));
    CHECK(!rv_iv_covers(&s, v3, 12));
    CHECK(rv_iv_covers(&s, v3, 16));
    CHECK(!rv_iv_covers(&s, v3, 17));
    rv_intervals_free(&s);
    rv_liveness_free(&lv);
    rv_cfg_free(&cfg);
    ravel_module_free(m);
}

/* Forward union: each block generates its own bit; out = in | {b}. */
static void fwd_transfer(void *ctx, uint32_t b, uint64_t *dst, const uint64_t *src)
{
    (void)ctx;
    dst[0] = src[0] | ((uint64_t)1 << b);
}

/* Backward intersection ("on every path to the exit, block 4 runs"):
 * in = out | {b}; boundary (exit) = {}. */
static void bwd_transfer(void *ctx, uint32_t b, uint64_t *dst, const uint64_t *src)
{
    (void)ctx;
    dst[0] = src[0] | ((uint64_t)1 << b);
}

TEST(dataflow_forward_union)
{
    ravel_module *m = parse(SHAPE);
    CHECK(m != NULL);
    if (!m) return;
    const ravel_func *f = ravel_module_func(m, 0);
    rv_cfg cfg;
    rv_cfg_build(&cfg, f);
    rv_dataflow df;
    memset(&df, 0, sizeof df);
    df.cfg = &cfg;
    df.nbits = 8;
    df.transfer = fwd_transfer;
    rv_dataflow_solve(&df);
    /* blocks that may run before entering each block */
    CHECK_EQ_INT(df.in[0], 0);
    CHECK_EQ_INT(df.in[1], 0x01);
    CHECK_EQ_INT(df.in[3], 0x07);
    CHECK_EQ_INT(df.in[4], 0x3f);  /* b0..b3, and b4 and b5 via the back edge */
    CHECK_EQ_INT(df.in[6], 0xbf);  /* b7 (unreachable) flows in too: every block is solved */
    CHECK_EQ_INT(df.out[7], 0x80);
    CHECK(df.iterations >= cfg.nblocks && df.iterations < 4 * cfg.nblocks);
    rv_dataflow_free(&df);
    rv_cfg_free(&cfg);
    ravel_module_free(m);
}

TEST(dataflow_backward_intersection)
{
    ravel_module *m = parse(SHAPE);
    CHECK(m != NULL);
    if (!m) return;
    const ravel_func *f = ravel_module_func(m, 0);
    rv_cfg cfg;
    rv_cfg_build(&cfg, f);
    rv_dataflow df;
    memset(&df, 0, sizeof df);
    df.cfg = &cfg;
    df.nbits = 8;
    df.backward = true;
    df.meet_and = true;
    df.transfer = bwd_transfer;
    rv_dataflow_solve(&df);
    /* blocks that run on every path from the block's entry to the exit */
    CHECK_EQ_INT(df.in[6], 0x40);
    CHECK_EQ_INT(df.in[4], 0x50);
    CHECK_EQ_INT(df.in[5], 0x70);
    CHECK_EQ_INT(df.in[0], 0x59);  /* b0 b3 b4 b6, not b1/b2 */
    CHECK_EQ_INT(df.in[7], 0xc0);
    rv_dataflow_free(&df);
    rv_cfg_free(&cfg);
    ravel_module_free(m);
}

TEST(cost_model_sum_alloc)
{
    static const char text[] =
        "machine\n  class int r0 r1 r2\nend\n"
        "func sum\n"
        "b0:\n  v0:int fixed(r0) @r0, v1:int fixed(r1) @r1 = args\n  s0 = spill r1\n  v8:int @r2 = const 0\n  jump b1(v0, v8)\n"
        "b1(v2:int, v3:int):\n  r1 = reload s0\n  v4:int @r1 = le v2 @r0, v1 @r1\n  br v4 @r1, b2, b3\n"
        "b2:\n  v5:int @r2 = add v3 @r2, v2 @r0\n  v6:int @r0 = add v2 @r0, 1\n  jump b1(v6, v5)\n"
        "b3:\n  r0 = move r2\n  ret v3 fixed(r0) @r0\nend\n";
    ravel_module *m = parse(text);
    CHECK(m != NULL);
    if (!m) return;
    rv_cost c;
    rv_cost_compute(ravel_module_func(m, 0), &c);
    CHECK_EQ_INT(c.spills, 1);
    CHECK_EQ_INT(c.reloads, 1);
    CHECK_EQ_INT(c.moves, 1);
    /* spill 1 at depth 0, reload 4 * 10 in the loop header, move 0.2 */
    CHECK(c.weighted > 41.19 && c.weighted < 41.21);
    ravel_module_free(m);
}

TEST(out_builder_anchors)
{
    ravel_module *m = parse(SUM);
    CHECK(m != NULL);
    if (!m) return;
    const ravel_func *f = ravel_module_func(m, 0);
    rv_cfg cfg;
    rv_cfg_build(&cfg, f);
    bool at_end = false;
    /* b0 -> b1: single successor: before b0's jump (inst 2) */
    CHECK_EQ_INT(rv_edge_anchor(f, &cfg, 0, 0, &at_end), rv_anchor_exit(2));
    CHECK(at_end);
    /* b1 -> b3 (successor 1 of the br): b3 has one predecessor: its entry (inst 8) */
    CHECK_EQ_INT(rv_edge_anchor(f, &cfg, 1, 1, &at_end), rv_anchor_entry(8));
    CHECK(!at_end);
    rv_out o;
    rv_out_init(&o, f);
    for (uint32_t k = 0; k < f->ops.len; k++) rv_out_set_loc(&o, k, 0);
    /* added out of order; must come out ENTRY, BEFORE, EXIT, inst, AFTER */
    rv_out_edit(&o, rv_anchor_exit(2), RAVEL_OP_MOVE, 1, 2);
    rv_out_edit(&o, rv_anchor_after(1), RAVEL_OP_SPILL, ravel_slot(3), 0);
    rv_out_edit(&o, rv_anchor_before(2), RAVEL_OP_RELOAD, 2, ravel_slot(3));
    rv_out_edit(&o, rv_anchor_before(2), RAVEL_OP_MOVE, 0, 2);
    rv_out_edit(&o, rv_anchor_entry(0), RAVEL_OP_MOVE, 2, 1);
    ravel_func *g = rv_out_finish(&o);
    const rv_block *b0 = &g->blocks.data[0];
    static const uint8_t want[] = {RAVEL_OP_MOVE, RAVEL_OP_ARGS, RAVEL_OP_CONST, RAVEL_OP_SPILL, RAVEL_OP_RELOAD,
                                   RAVEL_OP_MOVE, RAVEL_OP_MOVE, RAVEL_OP_JUMP};
    CHECK_EQ_INT(b0->ninsts, sizeof want);
    for (uint32_t k = 0; k < b0->ninsts && k < sizeof want; k++) CHECK_EQ_INT(g->insts.data[b0->first_inst + k].op, want[k]);
    CHECK_EQ_INT(g->insts.data[b0->first_inst + 5].u.edit.dst, 0);
    CHECK_EQ_INT(g->insts.data[b0->first_inst + 6].u.edit.dst, 1);
    CHECK_EQ_INT(g->nslots, 4);
    CHECK_EQ_INT(g->blocks.data[1].first_inst, b0->first_inst + b0->ninsts);
    ravel_func_free(g);
    rv_out_free(&o);
    rv_cfg_free(&cfg);
    ravel_module_free(m);
}

/* Properties of liveness and intervals on generated functions: ranges
 * sorted, disjoint and non-adjacent; every use position covered (defs start
 * a range); a vreg covers a block's first point iff it is live-in there, a
 * parameter of it or an early def of its first instruction, and its last
 * point if it is live-out. */
static bool check_intervals(const ravel_func *f, const rv_cfg *cfg, const rv_liveness *lv, const rv_intervals *s)
{
    for (uint32_t v = 0; v < s->nvregs; v++) {
        const rv_range *r = rv_iv_ranges(s, v);
        for (uint32_t k = 0; k < s->iv[v].nranges; k++) {
            if (r[k].from >= r[k].to) return false;
            if (k && r[k - 1].to >= r[k].from) return false;
        }
        const rv_use_pos *u = rv_iv_uses(s, v);
        for (uint32_t k = 0; k < s->iv[v].nuses; k++) {
            if (k && u[k - 1].pos > u[k].pos) return false;
            if (!rv_iv_covers(s, v, u[k].pos)) return false;
        }
    }
    for (uint32_t b = 0; b < cfg->nblocks; b++) {
        const rv_block *bl = &f->blocks.data[b];
        uint32_t first = rv_point_early(bl->first_inst), last = rv_point_early(bl->first_inst + bl->ninsts) - 1;
        for (uint32_t v = 0; v < s->nvregs; v++) {
            bool param = false; /* or an early def of the first instruction */
            for (uint32_t p = 0; p < bl->nparams; p++) param |= rv_block_params(f, bl)[p] == v;
            const rv_inst *in0 = rv_inst_at(f, bl->first_inst);
            for (uint32_t d = 0; d < in0->ndefs; d++)
                param |= rv_ops_of(f, in0)[d].vreg == v && rv_op_is_early(&rv_ops_of(f, in0)[d]);
            if (rv_iv_covers(s, v, first) != (rv_live_in(lv, b, v) || param)) return false;
            if (rv_live_out(lv, b, v) && !rv_iv_covers(s, v, last)) return false;
        }
    }
    return true;
}

/* Path exploration (rv_liveness_build) gives exactly the iterative
 * solver's sets, on generated functions (loops, irreducible shapes from
 * multiway branches, unreachable blocks) and on the shapes above. */
static bool same_liveness(const ravel_func *f)
{
    rv_cfg cfg;
    rv_cfg_build(&cfg, f);
    rv_liveness a, b;
    rv_liveness_build(&a, f, &cfg);
    rv_liveness_build_dataflow(&b, f, &cfg);
    size_t n = (size_t)a.nblocks * a.nwords;
    bool same = a.nwords == b.nwords && (!n || (memcmp(a.in, b.in, n * sizeof(uint64_t)) == 0 && memcmp(a.out, b.out, n * sizeof(uint64_t)) == 0));
    rv_liveness_free(&a);
    rv_liveness_free(&b);
    rv_cfg_free(&cfg);
    return same;
}

TEST(liveness_path_exploration_equals_dataflow)
{
    const char *texts[] = {SUM, SHAPE};
    for (int k = 0; k < 2; k++) {
        ravel_module *m = parse(texts[k]);
        CHECK(m && same_liveness(ravel_module_func(m, 0)));
        ravel_module_free(m);
    }
    int bad = 0;
    for (uint64_t seed = 1; seed <= 400; seed++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = 40 + (uint32_t)(seed % 7) * 60;
        ravel_module *m = rv_gen_from_seed(seed, &o);
        if (!same_liveness(ravel_module_func(m, 0)) && bad++ < 3)
            fprintf(stderr, "liveness differs from the dataflow solution for gen seed %llu\n", (unsigned long long)seed);
        ravel_module_free(m);
    }
    CHECK_EQ_INT(bad, 0);
}

/* v is in the sorted list l[0..n) (checking the order on the way). */
static bool in_list(const uint32_t *l, uint32_t n, uint32_t v, bool *sorted)
{
    bool found = false;
    for (uint32_t k = 0; k < n; k++) {
        if (k && l[k - 1] >= l[k]) *sorted = false;
        found |= l[k] == v;
    }
    return found;
}

/* v is a jump argument of b's terminator. */
static bool is_arg_of(const ravel_func *f, uint32_t b, uint32_t v)
{
    const rv_block *bl = &f->blocks.data[b];
    if (!bl->ninsts) return false;
    const rv_inst *t = rv_inst_at(f, bl->first_inst + bl->ninsts - 1);
    for (uint32_t s = 0; s < rv_inst_nsuccs(t); s++) {
        const rv_succ *sc = &rv_inst_succs(f, t)[s];
        for (uint32_t a = 0; a < sc->nargs; a++)
            if (rv_succ_args(f, sc)[a] == v) return true;
    }
    return false;
}

/* The sparse lists: without flags exactly the bitsets; with RV_LS_ARGS_OUT
 * the live-outs gain the terminator's arguments; with a cap, exactly the
 * vregs (but the nocap ones) with more than cap marks are capped and left
 * out, the others keep their lists. Intervals from the sparse form equal
 * those from the bitsets; without liveness they have the same uses and no
 * ranges. */
static bool sparse_ok(const ravel_func *f, uint32_t cap)
{
    rv_cfg cfg;
    rv_cfg_build(&cfg, f);
    rv_liveness lv;
    rv_liveness_build(&lv, f, &cfg);
    uint32_t nv = f->vregs.len;
    uint8_t *nocap = calloc(nv + 1, 1);
    for (uint32_t v = 0; v < nv; v++) nocap[v] = f->vregs.data[v].ref;
    rv_live_sparse ls0, ls1, ls2;
    rv_live_sparse_build(&ls0, f, &cfg, UINT32_MAX, NULL, 0);
    rv_live_sparse_build(&ls1, f, &cfg, UINT32_MAX, NULL, RV_LS_ARGS_OUT);
    rv_live_sparse_build(&ls2, f, &cfg, cap, nocap, RV_LS_ARGS_OUT);
    bool ok = true, sorted = true;
    for (uint32_t v = 0; v < nv && ok; v++) {
        uint32_t marks = 0;
        for (uint32_t b = 0; b < cfg.nblocks; b++)
            for (int out = 0; out < 2; out++) {
                uint32_t n0, n1, n2;
                const uint32_t *l0 = rv_ls_list(&ls0, b, out, &n0), *l1 = rv_ls_list(&ls1, b, out, &n1), *l2 = rv_ls_list(&ls2, b, out, &n2);
                bool bit = out ? rv_live_out(&lv, b, v) : rv_live_in(&lv, b, v);
                bool want1 = bit || (out && is_arg_of(f, b, v));
                bool has1 = in_list(l1, n1, v, &sorted);
                ok &= in_list(l0, n0, v, &sorted) == bit && has1 == want1;
                marks += has1;
                ok &= in_list(l2, n2, v, &sorted) == (has1 && !ls2.capped[v]);
            }
        ok &= !ls0.capped[v] && !ls1.capped[v] && ls2.capped[v] == (marks > cap && !nocap[v]);
    }
    ok &= sorted;
    rv_intervals a, b, c;
    rv_intervals_build(&a, f, &cfg, &lv);
    rv_intervals_build_sparse(&b, f, &cfg, &ls0);
    rv_intervals_build_sparse(&c, f, &cfg, NULL);
    ok &= a.nranges_total == b.nranges_total && a.nuses_total == b.nuses_total && a.nuses_total == c.nuses_total && c.nranges_total == 0;
    if (ok) {
        ok &= memcmp(a.iv, b.iv, sizeof(rv_interval) * nv) == 0;
        ok &= !a.nranges_total || memcmp(a.ranges, b.ranges, sizeof(rv_range) * a.nranges_total) == 0;
        for (uint32_t k = 0; k < a.nuses_total; k++)
            ok &= memcmp(&a.uses[k], &b.uses[k], sizeof(rv_use_pos)) == 0 && memcmp(&a.uses[k], &c.uses[k], sizeof(rv_use_pos)) == 0;
        for (uint32_t v = 0; v < nv; v++) ok &= c.iv[v].first_use == a.iv[v].first_use && c.iv[v].nuses == a.iv[v].nuses && c.iv[v].nranges == 0;
    }
    rv_intervals_free(&a);
    rv_intervals_free(&b);
    rv_intervals_free(&c);
    rv_live_sparse_free(&ls0);
    rv_live_sparse_free(&ls1);
    rv_live_sparse_free(&ls2);
    free(nocap);
    rv_liveness_free(&lv);
    rv_cfg_free(&cfg);
    return ok;
}

TEST(sparse_liveness_equals_bitsets)
{
    const char *texts[] = {SUM, SHAPE};
    for (int k = 0; k < 2; k++) {
        ravel_module *m = parse(texts[k]);
        CHECK(m && sparse_ok(ravel_module_func(m, 0), 2));
        ravel_module_free(m);
    }
    int bad = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = 40 + (uint32_t)(seed % 7) * 60;
        ravel_module *m = rv_gen_from_seed(seed, &o);
        if (!sparse_ok(ravel_module_func(m, 0), (uint32_t)(seed % 13)) && bad++ < 3)
            fprintf(stderr, "sparse liveness differs from the bitsets for gen seed %llu\n", (unsigned long long)seed);
        ravel_module_free(m);
    }
    CHECK_EQ_INT(bad, 0);
}

TEST(intervals_properties_generated)
{
    int bad = 0;
    for (uint64_t seed = 1; seed <= 150; seed++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = 120;
        ravel_module *m = rv_gen_from_seed(seed, &o);
        const ravel_func *f = ravel_module_func(m, 0);
        rv_cfg cfg;
        rv_cfg_build(&cfg, f);
        rv_liveness lv;
        rv_liveness_build(&lv, f, &cfg);
        rv_intervals s;
        rv_intervals_build(&s, f, &cfg, &lv);
        if (!check_intervals(f, &cfg, &lv, &s)) {
            if (bad++ < 3) fprintf(stderr, "interval properties fail for gen seed %llu\n", (unsigned long long)seed);
        }
        rv_intervals_free(&s);
        rv_liveness_free(&lv);
        rv_cfg_free(&cfg);
        ravel_module_free(m);
    }
    CHECK_EQ_INT(bad, 0);
}

/* The jump arguments of instruction in that the walk counts as reads of v
 * (flags: RV_LA_*). */
static bool arg_reads(const ravel_func *f, const rv_inst *in, uint32_t v, unsigned flags, const uint8_t *used)
{
    if (flags & RV_LA_NO_ARGS) return false;
    for (uint32_t s = 0; s < rv_inst_nsuccs(in); s++) {
        const rv_succ *sc = &rv_inst_succs(f, in)[s];
        const rv_block *sb = &f->blocks.data[sc->block];
        for (uint32_t k = 0; k < sc->nargs; k++) {
            bool counts = !(flags & RV_LA_USED_ARGS) || (k < sb->nparams && used[rv_block_params(f, sb)[k]]);
            if (counts && rv_succ_args(f, sc)[k] == v) return true;
        }
    }
    return false;
}

static bool inst_has(const ravel_func *f, const rv_inst *in, uint32_t v, bool defs, uint32_t from)
{
    const rv_operand *ops = rv_ops_of(f, in);
    uint32_t lo = defs ? 0 : in->ndefs, hi = defs ? in->ndefs : (uint32_t)in->ndefs + in->nuses;
    for (uint32_t k = lo > from ? lo : from; k < hi; k++)
        if (ops[k].vreg == v) return true;
    return false;
}

/* The walk's answer for operand k of instruction i of block b, by a forward
 * scan: with RV_LA_NEXT_READ, v is read by a later use operand of i, by a
 * later instruction (jump arguments included) or is in the seed; else the
 * first later event decides (a read: live; a def: dead), instruction by
 * instruction: its uses, then its defs, then its jump arguments (i's own
 * arguments first), and the seed when there is none. */
static bool scan_after(const ravel_func *f, uint32_t b, uint32_t i, uint32_t k, const uint8_t *seed, unsigned flags,
                       const uint8_t *used)
{
    const rv_block *bl = &f->blocks.data[b];
    const rv_inst *in = rv_inst_at(f, i);
    uint32_t v = rv_ops_of(f, in)[k].vreg, end = bl->first_inst + bl->ninsts;
    if (flags & RV_LA_NEXT_READ) {
        if (inst_has(f, in, v, false, k + 1) || arg_reads(f, in, v, flags, used)) return true;
        for (uint32_t j = i + 1; j < end; j++)
            if (inst_has(f, rv_inst_at(f, j), v, false, 0) || arg_reads(f, rv_inst_at(f, j), v, flags, used)) return true;
        return seed[v];
    }
    if (arg_reads(f, in, v, flags, used)) return true;
    for (uint32_t j = i + 1; j < end; j++) {
        const rv_inst *x = rv_inst_at(f, j);
        if (inst_has(f, x, v, false, 0)) return true;
        if (inst_has(f, x, v, true, 0)) return false;
        if (arg_reads(f, x, v, flags, used)) return true;
    }
    return seed[v];
}

/* Every operand of f under the given options, seeded with each block's
 * live-out set. */
static bool walk_ok(const ravel_func *f, unsigned flags, uint64_t rng)
{
    rv_cfg cfg;
    rv_cfg_build(&cfg, f);
    rv_liveness lv;
    rv_liveness_build(&lv, f, &cfg);
    uint32_t nv = f->vregs.len;
    uint8_t *used = calloc(nv + 1, 1), *seed = calloc(nv + 1, 1), *after = calloc(f->ops.len + 1, 1);
    for (uint32_t v = 0; v < nv; v++) used[v] = rv_rng_below(&rng, 2);
    rv_sset live = {calloc(nv + 1, sizeof(uint32_t)), calloc(nv + 1, sizeof(uint32_t)), 0};
    bool ok = true;
    for (uint32_t b = 0; b < cfg.nblocks && ok; b++) {
        const rv_block *bl = &f->blocks.data[b];
        live.n = 0;
        for (uint32_t v = 0; v < nv; v++) {
            seed[v] = rv_live_out(&lv, b, v);
            if (seed[v]) rv_sset_add(&live, v);
        }
        rv_live_after_walk(f, b, &live, after, flags, used);
        for (uint32_t j = 0; j < bl->ninsts; j++) {
            const rv_inst *in = rv_inst_at(f, bl->first_inst + j);
            for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++)
                ok &= after[in->first_op + k] == scan_after(f, b, bl->first_inst + j, k, seed, flags, used);
        }
    }
    free(used);
    free(seed);
    free(after);
    free(live.dense);
    free(live.pos);
    rv_liveness_free(&lv);
    rv_cfg_free(&cfg);
    return ok;
}

/* A use before its def and a def its own instruction reads, which the
 * validator allows in an unreachable block (b1): the options differ there. */
static const char UNREACHED[] =
    "machine\n  class int r0 r1\nend\n"
    "func f\n"
    "b0:\n  v0:int = args\n  jump b2(v0, v0)\n"
    "b1:\n  v1:int = add v2, v2\n  v2:int = add v2, v1\n  v3:int = add v2, v2\n  jump b2(v3, v1)\n"
    "b2(v4:int, v5:int):\n  ret v4\n"
    "end\n";

TEST(live_after_walk_equals_scan)
{
    static const unsigned modes[] = {0, RV_LA_NO_ARGS, RV_LA_USED_ARGS, RV_LA_NEXT_READ, RV_LA_NO_ARGS | RV_LA_NEXT_READ,
                                     RV_LA_USED_ARGS | RV_LA_NEXT_READ};
    const char *texts[] = {SUM, SHAPE, UNREACHED};
    for (int k = 0; k < 3; k++) {
        ravel_module *m = parse(texts[k]);
        CHECK(m != NULL);
        for (int x = 0; m && x < 6; x++) CHECK(walk_ok(ravel_module_func(m, 0), modes[x], (uint64_t)x));
        ravel_module_free(m);
    }
    int bad = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = 40 + (uint32_t)(seed % 7) * 60;
        ravel_module *m = rv_gen_from_seed(seed, &o);
        unsigned mode = modes[seed % 6];
        if (!walk_ok(ravel_module_func(m, 0), mode, seed) && bad++ < 3)
            fprintf(stderr, "live-after walk (flags %u) differs from the scan for gen seed %llu\n", mode, (unsigned long long)seed);
        ravel_module_free(m);
    }
    CHECK_EQ_INT(bad, 0);
}

/* The entry set the walk leaves: with RV_LA_NEXT_READ the seed and every
 * read; else the vregs live at the block's entry. On UNREACHED's b1, from
 * an empty seed: {v2} (read before its def), or {v1, v2, v3} (every read). */
TEST(live_after_walk_entry_set)
{
    ravel_module *m = parse(UNREACHED);
    CHECK(m != NULL);
    if (!m) return;
    const ravel_func *f = ravel_module_func(m, 0);
    uint32_t nv = f->vregs.len;
    uint8_t *after = calloc(f->ops.len + 1, 1);
    rv_sset live = {calloc(nv + 1, sizeof(uint32_t)), calloc(nv + 1, sizeof(uint32_t)), 0};
    char got[2][64];
    for (int x = 0; x < 2; x++) {
        live.n = 0;
        rv_live_after_walk(f, 1, &live, after, x ? RV_LA_NEXT_READ : 0, NULL);
        uint64_t bits[1] = {0};
        for (uint32_t k = 0; k < live.n; k++) rv_bs_set(bits, live.dense[k]);
        got[x][0] = 0;
        fmt_set(got[x], sizeof got[x], f, bits, nv);
    }
    CHECK_STR(got[0], "{v2}");
    CHECK_STR(got[1], "{v1 v2 v3}");
    free(after);
    free(live.dense);
    free(live.pos);
    ravel_module_free(m);
}

int main(void)
{
    RUN(liveness_sum);
    RUN(intervals_sum);
    RUN(dataflow_forward_union);
    RUN(dataflow_backward_intersection);
    RUN(cost_model_sum_alloc);
    RUN(out_builder_anchors);
    RUN(liveness_path_exploration_equals_dataflow);
    RUN(intervals_properties_generated);
    RUN(sparse_liveness_equals_bitsets);
    RUN(live_after_walk_equals_scan);
    RUN(live_after_walk_entry_set);
    return TEST_SUMMARY();
}
