/* test_cfg.c - unit tests of the CFG analyses (ir/cfg.c): edges with
 * repeats, RPO, immediate dominators, dominance, loop depth, headers and
 * parents, irreducible and unreachable parts, a large generated CFG, and
 * rebuilding into kept storage (rv_cfg_rebuild). */
#include "ir/ir.h"
#include "tests/test.h"

#include <stdlib.h>

#define MACHINE "machine\n  class int r0 r1 r2\nend\n"

typedef struct parsed {
    ravel_module *m;
    const ravel_func *f;
    rv_cfg c;
} parsed;

static bool load(parsed *p, const char *text)
{
    ravel_diags *d = ravel_diags_new();
    p->m = ravel_module_parse(text, strlen(text), "test", d);
    if (!p->m || ravel_diags_count(d)) ravel_diags_print(stderr, d);
    ravel_diags_free(d);
    if (!p->m || ravel_module_nfuncs(p->m) != 1) return false;
    p->f = ravel_module_func(p->m, 0);
    rv_cfg_build(&p->c, p->f);
    return true;
}

static void unload(parsed *p)
{
    rv_cfg_free(&p->c);
    ravel_module_free(p->m);
}

/* b0 -> b1 -> {b2, b3}; b2 -> b1 (loop); b3 returns. */
static const char *sum_text = MACHINE
    "func sum\n"
    "b0:\n  v0:int, v1:int = args\n  v8:int = const 0\n  jump b1(v0, v8)\n"
    "b1(v2:int, v3:int):\n  v4:int = le v2, v1\n  br v4, b2, b3\n"
    "b2:\n  v5:int = add v3, v2\n  v6:int = add v2, 1\n  jump b1(v6, v5)\n"
    "b3:\n  ret v3\n"
    "end\n";

TEST(edges_rpo_idom)
{
    parsed p;
    CHECK(load(&p, sum_text));
    if (!p.m) return;
    const rv_cfg *c = &p.c;
    CHECK_EQ_INT(c->nblocks, 4);
    CHECK_EQ_INT(rv_cfg_nsuccs(c, 1), 2);
    CHECK_EQ_INT(c->succ[c->succ_start[1]], 2);
    CHECK_EQ_INT(c->succ[c->succ_start[1] + 1], 3);
    CHECK_EQ_INT(rv_cfg_npreds(c, 1), 2);
    CHECK_EQ_INT(rv_cfg_npreds(c, 0), 0);
    CHECK_EQ_INT(c->nrpo, 4);
    CHECK_EQ_INT(c->rpo[0], 0);
    CHECK_EQ_INT(c->rpo[1], 1);
    CHECK_EQ_INT(c->idom[0], 0);
    CHECK_EQ_INT(c->idom[1], 0);
    CHECK_EQ_INT(c->idom[2], 1);
    CHECK_EQ_INT(c->idom[3], 1);
    CHECK(rv_cfg_dominates(c, 0, 3));
    CHECK(rv_cfg_dominates(c, 1, 2));
    CHECK(rv_cfg_dominates(c, 2, 2));
    CHECK(!rv_cfg_dominates(c, 2, 3));
    CHECK(!rv_cfg_dominates(c, 2, 1));
    CHECK_EQ_INT(c->loop_depth[0], 0);
    CHECK_EQ_INT(c->loop_depth[1], 1);
    CHECK_EQ_INT(c->loop_depth[2], 1);
    CHECK_EQ_INT(c->loop_depth[3], 0);
    CHECK_EQ_INT(c->loop_header[2], 1);
    CHECK_EQ_INT(c->loop_header[1], 1);
    CHECK_EQ_INT(c->loop_header[3], RAVEL_NONE);
    unload(&p);
}

/* Repeated edges: br v, b1, b1 gives b1 two predecessor edges. */
TEST(repeated_edges)
{
    parsed p;
    CHECK(load(&p, MACHINE "func f\nb0:\n  v0:int = args\n  br v0, b1, b1\nb1:\n  ret v0\nend\n"));
    if (!p.m) return;
    CHECK_EQ_INT(rv_cfg_nsuccs(&p.c, 0), 2);
    CHECK_EQ_INT(rv_cfg_npreds(&p.c, 1), 2);
    CHECK_EQ_INT(p.c.idom[1], 0);
    unload(&p);
}

/* Nested loops: b1 outer header, b2 inner header (self loop through b3). */
TEST(nested_loops)
{
    parsed p;
    CHECK(load(&p, MACHINE "func f\n"
                           "b0:\n  v0:int = args\n  jump b1\n"
                           "b1:\n  jump b2\n"
                           "b2:\n  br v0, b3, b4\n"
                           "b3:\n  jump b2\n"
                           "b4:\n  br v0, b5, b6\n"
                           "b5:\n  jump b1\n"
                           "b6:\n  ret\n"
                           "end\n"));
    if (!p.m) return;
    const rv_cfg *c = &p.c;
    CHECK_EQ_INT(c->loop_depth[0], 0);
    CHECK_EQ_INT(c->loop_depth[1], 1);
    CHECK_EQ_INT(c->loop_depth[2], 2);
    CHECK_EQ_INT(c->loop_depth[3], 2);
    CHECK_EQ_INT(c->loop_depth[4], 1);
    CHECK_EQ_INT(c->loop_depth[5], 1);
    CHECK_EQ_INT(c->loop_depth[6], 0);
    CHECK_EQ_INT(c->loop_header[3], 2);
    CHECK_EQ_INT(c->loop_header[2], 2);
    CHECK_EQ_INT(c->loop_header[4], 1);
    CHECK_EQ_INT(c->loop_header[5], 1);
    CHECK_EQ_INT(c->loop_parent[2], 1);          /* the inner loop's parent */
    CHECK_EQ_INT(c->loop_parent[1], RAVEL_NONE); /* outermost */
    CHECK_EQ_INT(c->loop_parent[3], RAVEL_NONE); /* no header */
    CHECK_EQ_INT(c->loop_parent[5], RAVEL_NONE);
    CHECK(c->reducible);
    CHECK_EQ_INT(c->idom[6], 4);
    CHECK_EQ_INT(c->idom[4], 2);
    unload(&p);
}

/* Irreducible: b1 and b2 both entered from b0 and jump to each other. No
 * natural loop; must not crash; both dominated only by b0. */
TEST(irreducible_and_unreachable)
{
    parsed p;
    CHECK(load(&p, MACHINE "func f\n"
                           "b0:\n  v0:int = args\n  br v0, b1, b2\n"
                           "b1:\n  br v0, b2, b3\n"
                           "b2:\n  jump b1\n"
                           "b3:\n  ret\n"
                           "b4:\n  jump b3\n"
                           "end\n"));
    if (!p.m) return;
    const rv_cfg *c = &p.c;
    CHECK_EQ_INT(c->idom[1], 0);
    CHECK_EQ_INT(c->idom[2], 0);
    CHECK_EQ_INT(c->idom[3], 1);
    CHECK_EQ_INT(c->nrpo, 4);
    CHECK_EQ_INT(c->rpo_index[4], RAVEL_NONE);
    CHECK_EQ_INT(c->idom[4], RAVEL_NONE);
    CHECK(!rv_cfg_dominates(c, 0, 4));
    CHECK(!rv_cfg_dominates(c, 4, 4));
    CHECK_EQ_INT(c->loop_depth[1], 0);
    CHECK_EQ_INT(c->loop_depth[4], 0);
    CHECK(!c->reducible);
    /* the dominator tree: b0's children b1, b2 (reverse post-order), b1's b3 */
    CHECK_EQ_INT(c->dom_start[1] - c->dom_start[0], 2);
    CHECK_EQ_INT(c->dom_child[c->dom_start[0]], c->rpo[c->rpo_index[1] < c->rpo_index[2] ? c->rpo_index[1] : c->rpo_index[2]]);
    CHECK_EQ_INT(c->dom_start[2] - c->dom_start[1], 1);
    CHECK_EQ_INT(c->dom_child[c->dom_start[1]], 3);
    CHECK_EQ_INT(c->dom_start[5] - c->dom_start[4], 0);
    unload(&p);
}

/* Large CFGs built through the API, n blocks in a chain b_i -> b_{i+1}.
 * nest = false: each block also branches to itself (n self loops, depth 1).
 * nest = true: blocks i >= n/2 branch back to n-1-i, so the loop of header
 * h = n-1-i spans h .. i and loops nest about n/2 deep. */
static ravel_func *build_chain(ravel_machine *m, uint32_t n, bool nest)
{
    ravel_func *f = ravel_func_new(m, "chain");
    uint32_t v = ravel_vreg_new(f, 0, 0);
    for (uint32_t i = 0; i < n; i++) ravel_block_new(f, NULL);
    for (uint32_t i = 0; i < n; i++) {
        ravel_block_begin(f, i);
        if (i == 0) {
            ravel_inst_begin(f, RAVEL_OP_ARGS, NULL);
            ravel_inst_def(f, v, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
            ravel_inst_end(f);
        }
        if (i == n - 1) {
            ravel_inst_begin(f, RAVEL_OP_RET, NULL);
        } else {
            uint32_t other = !nest ? i : i >= n / 2 ? n - 1 - i : i + 1;
            ravel_inst_begin(f, RAVEL_OP_BR, NULL);
            ravel_inst_use(f, v, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
            ravel_inst_succ(f, i + 1, NULL, 0);
            ravel_inst_succ(f, other, NULL, 0);
        }
        ravel_inst_end(f);
    }
    ravel_func_finish(f);
    return f;
}

TEST(large_cfgs)
{
    ravel_machine *m = ravel_machine_new();
    ravel_machine_add_class(m, "int");
    ravel_machine_add_reg(m, "r0", 0, 0);
    uint32_t n = 100000;
    ravel_func *f = build_chain(m, n, false);
    rv_cfg c;
    rv_cfg_build(&c, f);
    CHECK_EQ_INT(c.nrpo, n);
    CHECK_EQ_INT(c.loop_depth[n / 2], 1);
    CHECK_EQ_INT(c.loop_header[n / 2], n / 2);
    CHECK_EQ_INT(c.idom[n - 1], n - 2);
    CHECK(rv_cfg_dominates(&c, 0, n - 1));
    rv_cfg_free(&c);
    ravel_func_free(f);
    /* deep nest: for i >= n/2, block i branches back to n-1-i: the loop of
     * header h = n-1-i contains h .. i, so depth grows to ~n/2 at the middle */
    f = build_chain(m, n, true);
    rv_cfg_build(&c, f);
    CHECK_EQ_INT(c.nrpo, n);
    CHECK_EQ_INT(c.loop_depth[0], 0);
    CHECK_EQ_INT(c.loop_depth[1], 1);
    CHECK_EQ_INT(c.loop_depth[2], 2);
    CHECK_EQ_INT(c.loop_depth[n / 2], n / 2 - 1);
    CHECK_EQ_INT(c.loop_header[n / 2], n / 2 - 1);
    CHECK_EQ_INT(c.loop_header[n - 2], 1);
    CHECK_EQ_INT(c.loop_parent[1], RAVEL_NONE);
    CHECK_EQ_INT(c.loop_parent[2], 1);
    CHECK_EQ_INT(c.loop_parent[n / 2 - 1], n / 2 - 2);
    CHECK_EQ_INT(c.loop_depth[n - 1], 0);
    CHECK_EQ_INT(c.idom[n - 1], n - 2);
    rv_cfg_free(&c);
    ravel_func_free(f);
    ravel_machine_free(m);
}

/* Every result of a equals b's (same function). */
static bool same_cfg(const rv_cfg *a, const rv_cfg *b)
{
    uint32_t n = a->nblocks;
    if (n != b->nblocks || a->nrpo != b->nrpo) return false;
    if (memcmp(a->pred_start, b->pred_start, (n + 1) * sizeof(uint32_t)) ||
        memcmp(a->succ_start, b->succ_start, (n + 1) * sizeof(uint32_t)))
        return false;
    uint32_t ne = a->pred_start[n];
    if (ne && (memcmp(a->pred, b->pred, ne * sizeof(uint32_t)) || memcmp(a->succ, b->succ, ne * sizeof(uint32_t))))
        return false;
    if (a->nrpo && memcmp(a->rpo, b->rpo, a->nrpo * sizeof(uint32_t))) return false;
    const uint32_t *pa[] = {a->rpo_index, a->idom, a->dom_pre, a->dom_post, a->loop_depth, a->loop_header, a->loop_parent, a->dom_start};
    const uint32_t *pb[] = {b->rpo_index, b->idom, b->dom_pre, b->dom_post, b->loop_depth, b->loop_header, b->loop_parent, b->dom_start};
    for (uint32_t k = 0; k < sizeof pa / sizeof *pa; k++)
        if (n && memcmp(pa[k], pb[k], n * sizeof(uint32_t))) return false;
    if (a->dom_start[n] != b->dom_start[n] || a->reducible != b->reducible) return false;
    return !a->dom_start[n] || !memcmp(a->dom_child, b->dom_child, a->dom_start[n] * sizeof(uint32_t));
}

/* rv_cfg_rebuild into one context, small -> large -> small: each result
 * equals a fresh build's, and the large build's storage is kept. */
TEST(rebuild_into_kept_storage)
{
    parsed p, q;
    CHECK(load(&p, sum_text));
    CHECK(load(&q, MACHINE "func f\n"
                           "b0:\n  v0:int = args\n  jump b1\n"
                           "b1:\n  jump b2\n"
                           "b2:\n  br v0, b3, b4\n"
                           "b3:\n  jump b2\n"
                           "b4:\n  br v0, b5, b6\n"
                           "b5:\n  jump b1\n"
                           "b6:\n  ret\n"
                           "end\n"));
    if (!p.m || !q.m) return;
    ravel_machine *m = ravel_machine_new();
    ravel_machine_add_class(m, "int");
    ravel_machine_add_reg(m, "r0", 0, 0);
    ravel_func *big = build_chain(m, 1000, true);
    rv_cfg fresh, r;
    memset(&r, 0, sizeof r);
    rv_cfg_rebuild(&r, p.f);
    CHECK(same_cfg(&r, &p.c));
    rv_cfg_rebuild(&r, big);
    rv_cfg_build(&fresh, big);
    CHECK(same_cfg(&r, &fresh));
    rv_cfg_free(&fresh);
    const uint32_t *base = r.pred_start, *scratch = r.scratch;
    rv_cfg_rebuild(&r, q.f);
    CHECK(same_cfg(&r, &q.c));
    CHECK(r.pred_start == base && r.scratch == scratch); /* no new storage for a smaller function */
    rv_cfg_rebuild(&r, p.f);
    CHECK(same_cfg(&r, &p.c));
    rv_cfg_free(&r);
    ravel_func_free(big);
    ravel_machine_free(m);
    unload(&p);
    unload(&q);
}

int main(void)
{
    RUN(edges_rpo_idom);
    RUN(repeated_edges);
    RUN(nested_loops);
    RUN(irreducible_and_unreachable);
    RUN(large_cfgs);
    RUN(rebuild_into_kept_storage);
    return TEST_SUMMARY();
}
