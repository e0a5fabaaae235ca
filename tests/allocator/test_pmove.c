/* test_pmove.c - the parallel-move resolver, tested exhaustively.
 *
 * For N = 1..5 locations, every split of them into registers and slots
 * (2^N), every parallel move over them (each location is either not written
 * or written from any of the N locations, itself included: (N+1)^N), with
 * and without a free scratch register: resolve, then simulate the emitted
 * edits on concrete values and check that
 *   - no edit copies slot to slot, every edit kind matches its operands;
 *   - every destination holds its source's original value;
 *   - every other location (untouched locations, the other registers of
 *     the machine, every other slot) keeps its value; only the declared
 *     scratch register and the slots handed out by new_slot may change;
 *   - new_slot is called at most twice.
 * Two machines: six registers (five locations + one scratch), and a single
 * register that is either location 0 or the scratch (or neither), where
 * slot cycles must not monopolise the only register.
 * Plus: a duplicate destination is rejected, and a mixed-class case. */
#include "allocator/alloc.h"
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>

#define NREG 6        /* r0..r4 hold locations, r5 = the scratch register */
#define SCRATCH 5
#define NSLOT 64      /* slots 0..4 hold locations; new_slot hands out 40, 41 */

typedef struct slotgen { uint32_t next, calls; } slotgen;
static uint32_t new_slot(void *ctx)
{
    slotgen *g = ctx;
    g->calls++;
    return g->next++;
}

typedef struct sim {
    uint64_t reg[NREG], slot[NSLOT];
} sim;

static uint64_t *cell(sim *s, ravel_loc l)
{
    return ravel_loc_is_slot(l) ? &s->slot[ravel_loc_slot(l)] : &s->reg[l];
}

static long long cases_run;

/* Runs one case; returns 1 on success. */
static int run_case(ravel_machine *m, rv_pmove *pm, int n, unsigned slotmask, const int *src, int scratch_reg)
{
    int with_scratch = scratch_reg >= 0;
    ravel_loc loc[5];
    for (int i = 0; i < n; i++) loc[i] = (slotmask >> i) & 1 ? ravel_slot((uint32_t)i) : (ravel_loc)i;
    rv_move mv[5];
    uint32_t nm = 0;
    for (int i = 0; i < n; i++)
        if (src[i] >= 0) {
            rv_move x = {loc[i], loc[src[i]], 0};
            mv[nm++] = x;
        }
    uint64_t scratch[1] = {with_scratch ? (uint64_t)1 << scratch_reg : 0};
    slotgen g = {40, 0};
    cases_run++;
    if (rv_pmove_resolve(pm, m, mv, nm, scratch, new_slot, &g) != RAVEL_OK) return 0;
    if (g.calls > 2) return 0;
    sim s, init;
    for (int r = 0; r < NREG; r++) s.reg[r] = 1000 + (uint64_t)r;
    for (int k = 0; k < NSLOT; k++) s.slot[k] = 2000 + (uint64_t)k;
    init = s;
    for (uint32_t k = 0; k < pm->out.len; k++) {
        rv_edit e = pm->out.data[k];
        if (e.kind != rv_edit_kind(e.dst, e.src) || e.kind == RAVEL_OP_OTHER) return 0;
        *cell(&s, e.dst) = *cell(&s, e.src);
    }
    /* expected final state */
    sim want = init;
    for (int i = 0; i < n; i++)
        if (src[i] >= 0) *cell(&want, loc[i]) = *cell(&init, loc[src[i]]);
    for (int r = 0; r < NREG; r++)
        if (s.reg[r] != want.reg[r] && !(with_scratch && r == scratch_reg)) return 0;
    for (int k = 0; k < NSLOT; k++)
        if (s.slot[k] != want.slot[k] && !(k >= 40 && k < 40 + (int)g.calls)) return 0;
    return 1;
}

static ravel_machine *make_machine_n(int nregs)
{
    ravel_machine *m = ravel_machine_new();
    int c = ravel_machine_add_class(m, "int");
    char name[16];
    for (int r = 0; r < nregs; r++) {
        snprintf(name, sizeof name, "r%d", r);
        ravel_machine_add_reg(m, name, c, 0);
    }
    return m;
}

static ravel_machine *make_machine(void) { return make_machine_n(NREG); }

/* tiny: a machine with ONE register r0 (only location 0 may be r0; when
 * it is not a location, r0 is the scratch register or not). */
static void exhaustive(int n, bool tiny, long long *failures)
{
    ravel_machine *m = make_machine_n(tiny ? 1 : NREG);
    rv_pmove pm;
    rv_pmove_init(&pm);
    int src[5];
    long long total = 1;
    for (int i = 0; i < n; i++) total *= n + 1;
    for (unsigned mask = 0; mask < (1u << n); mask++) {
        if (tiny && (mask | 1u) != (1u << n) - 1) continue; /* only location 0 may be a register */
        for (long long code = 0; code < total; code++) {
            long long c = code;
            for (int i = 0; i < n; i++) {
                src[i] = (int)(c % (n + 1)) - 1;
                c /= n + 1;
            }
            for (int sc = 0; sc < 2; sc++) {
                int scratch = !sc ? -1 : tiny ? ((mask & 1) ? 0 : -2) : SCRATCH;
                if (scratch == -2) continue; /* r0 is a location: it cannot be scratch */
                if (!run_case(m, &pm, n, mask, src, scratch)) {
                    if (*failures < 5) {
                        fprintf(stderr, "pmove failure n=%d tiny=%d slots=%#x scratch=%d moves:", n, tiny, mask, scratch);
                        for (int i = 0; i < n; i++) fprintf(stderr, " %d<-%d", i, src[i]);
                        fputc('\n', stderr);
                    }
                    (*failures)++;
                }
            }
        }
    }
    rv_pmove_free(&pm);
    ravel_machine_free(m);
}

TEST(pmove_exhaustive)
{
    long long failures = 0;
    for (int n = 1; n <= 5; n++) exhaustive(n, false, &failures);
    for (int n = 1; n <= 5; n++) exhaustive(n, true, &failures);
    printf("pmove: %lld cases, %lld failures\n", cases_run, failures);
    CHECK_EQ_INT(failures, 0);
    CHECK(cases_run > 500000);
}

TEST(pmove_duplicate_dst_rejected)
{
    ravel_machine *m = make_machine();
    rv_pmove pm;
    rv_pmove_init(&pm);
    rv_move mv[2] = {{0, 1, 0}, {0, 2, 0}};
    CHECK_EQ_INT(rv_pmove_resolve(&pm, m, mv, 2, NULL, new_slot, &(slotgen){40, 0}), RAVEL_EINVAL);
    rv_move mv2[2] = {{0, 0, 0}, {0, 2, 0}};
    CHECK_EQ_INT(rv_pmove_resolve(&pm, m, mv2, 2, NULL, new_slot, &(slotgen){40, 0}), RAVEL_EINVAL);
    rv_pmove_free(&pm);
    ravel_machine_free(m);
}

/* A swap of two float registers must use a float temporary, not an int one. */
TEST(pmove_cycle_uses_class_scratch)
{
    ravel_machine *m = ravel_machine_new();
    int ci = ravel_machine_add_class(m, "int"), cf = ravel_machine_add_class(m, "float");
    int r0 = ravel_machine_add_reg(m, "r0", ci, 0);
    int f0 = ravel_machine_add_reg(m, "f0", cf, 0), f1 = ravel_machine_add_reg(m, "f1", cf, 0);
    int f2 = ravel_machine_add_reg(m, "f2", cf, 0);
    rv_pmove pm;
    rv_pmove_init(&pm);
    rv_move mv[2] = {{(ravel_loc)f0, (ravel_loc)f1, (uint32_t)cf}, {(ravel_loc)f1, (ravel_loc)f0, (uint32_t)cf}};
    uint64_t scratch[1] = {((uint64_t)1 << r0) | ((uint64_t)1 << f2)};
    slotgen g = {40, 0};
    CHECK_EQ_INT(rv_pmove_resolve(&pm, m, mv, 2, scratch, new_slot, &g), RAVEL_OK);
    CHECK_EQ_INT(pm.out.len, 3);
    CHECK_EQ_INT(g.calls, 0);
    for (uint32_t k = 0; k < pm.out.len; k++) CHECK(pm.out.data[k].dst != (ravel_loc)r0 && pm.out.data[k].src != (ravel_loc)r0);
    rv_pmove_free(&pm);
    ravel_machine_free(m);
}

/* The fast path: a chain is ordered (each dst written once nothing reads
 * it); a cycle, a slot -> slot move or a duplicate dst is refused. */
TEST(pmove_simple_orders_chains_refuses_cycles)
{
    rv_pmove pm;
    rv_pmove_init(&pm);
    rv_move chain[3] = {{0, 1, 0}, {1, 2, 0}, {ravel_slot(0), 0, 0}};
    CHECK(rv_pmove_simple(&pm, chain, 3));
    CHECK_EQ_INT(pm.out.len, 3);
    if (pm.out.len == 3) {
        CHECK_EQ_INT(pm.out.data[0].kind, RAVEL_OP_SPILL);
        CHECK_EQ_INT(pm.out.data[0].dst, ravel_slot(0));
        CHECK_EQ_INT(pm.out.data[0].src, 0);
        CHECK_EQ_INT(pm.out.data[1].kind, RAVEL_OP_MOVE);
        CHECK_EQ_INT(pm.out.data[1].dst, 0);
        CHECK_EQ_INT(pm.out.data[1].src, 1);
        CHECK_EQ_INT(pm.out.data[2].dst, 1);
        CHECK_EQ_INT(pm.out.data[2].src, 2);
    }
    rv_move nop[2] = {{3, 3, 0}, {ravel_slot(2), 4, 0}};
    CHECK(rv_pmove_simple(&pm, nop, 2));
    CHECK_EQ_INT(pm.out.len, 1);
    rv_move cycle[3] = {{0, 1, 0}, {1, 0, 0}, {2, 3, 0}};
    CHECK(!rv_pmove_simple(&pm, cycle, 3));
    CHECK_EQ_INT(pm.out.len, 0);
    rv_move s2s[1] = {{ravel_slot(1), ravel_slot(2), 0}};
    CHECK(!rv_pmove_simple(&pm, s2s, 1));
    rv_move dup[2] = {{0, 1, 0}, {0, 2, 0}};
    CHECK(!rv_pmove_simple(&pm, dup, 2));
    rv_pmove_free(&pm);
}

int main(void)
{
    RUN(pmove_exhaustive);
    RUN(pmove_duplicate_dst_rejected);
    RUN(pmove_cycle_uses_class_scratch);
    RUN(pmove_simple_orders_chains_refuses_cycles);
    return TEST_SUMMARY();
}
