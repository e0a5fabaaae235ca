/* test_overlap.c - the overlap rules of docs/format.md section 6 at every
 * operand position, on random allocations. Generated functions are
 * allocated by every allocator; then, for each operation, each def that a
 * register may hold and each use k in a register of the def's class, one
 * mutant makes the def early and puts it in use k's register (a move after
 * the operation takes the value to where the def was, as an allocator
 * that forgot the early clobber would leave it), and one mutant makes use
 * k late and puts the def in its register. The checker must report
 * early-def-overlap on that very def, resp. late-use-overwritten on that
 * very use (an operand position it skips - the last use, say - fails
 * here), and
 * whenever `ravel run` (the interpreter) finds the mutant wrong, the
 * checker must have rejected it. Counts per use position are required, so
 * that every position up to the third is exercised.
 * The early mutants are also made in the shape no value error can show:
 * when use k is the only read of its vreg u, the def is renamed u in the
 * original and in the allocation alike (u defined again: docs/format.md
 * section 6 does not require SSA), so the use reads the new u where the
 * early def put it; only the overlap rule rejects that, and `ravel run`
 * fails on it (the old u is gone before the read). */
#define _POSIX_C_SOURCE 200809L
#include "checker/ck.h"
#include "fuzz/gen.h"
#include "ir/ir.h"
#include "tests/support/each.h"
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>

#define MAXPOS 3 /* use positions counted: 0, 1, 2 and more */

typedef struct ostats {
    uint32_t mutants[2][MAXPOS + 1]; /* per rule (early, late), per use position */
    uint32_t last_use[2];            /* of those, at the instruction's last use (with >= 2 uses) */
    uint32_t missed[2], run_wrong, run_wrong_accepted;
    uint32_t redefined, redefined_run_wrong, redefined_accepted; /* the renamed shape; found wrong by the interpreter; accepted */
} ostats;

/* Inserts the edit `dst = op src` right after instruction ii. */
static void insert_edit_after(ravel_func *f, uint32_t ii, uint32_t op, ravel_loc dst, ravel_loc src)
{
    rv_inst e;
    memset(&e, 0, sizeof e);
    e.op = (uint8_t)op;
    e.u.edit.dst = dst;
    e.u.edit.src = src;
    rv_vec_push(f->insts, e);
    memmove(&f->insts.data[ii + 2], &f->insts.data[ii + 1], (f->insts.len - ii - 2) * sizeof(rv_inst));
    f->insts.data[ii + 1] = e;
    for (uint32_t b = 0; b < f->layout.len; b++) {
        rv_block *bl = &f->blocks.data[b];
        if (ii >= bl->first_inst && ii < bl->first_inst + bl->ninsts) bl->ninsts++;
        else if (bl->first_inst > ii) bl->first_inst++;
    }
}

/* True if f and orig agree on a few input vectors. */
static bool run_agrees(const ravel_func *orig, const ravel_func *f)
{
    uint64_t in[16];
    char msg[256];
    uint32_t n = rv_interp_ninputs(orig);
    if (n > 16) n = 16;
    for (uint64_t k = 0; k < 3; k++) {
        rv_interp_inputs(11, k, in, n);
        rv_run_opts o;
        memset(&o, 0, sizeof o);
        o.inputs = in;
        o.ninputs = n;
        o.step_limit = 20000;
        if (!rv_interp_compare(orig, f, &o, msg, sizeof msg)) return false;
    }
    return true;
}

/* Def d of in (operand index d) may be put in register r: a plain def
 * (reg or any) and r a register of its class that is not reserved, where
 * no other def of in is. */
static bool def_may_take(const ravel_func *f, const rv_inst *in, uint32_t d, ravel_loc r)
{
    const rv_operand *o = &f->ops.data[in->first_op];
    if (o[d].kind != RAVEL_C_REG && o[d].kind != RAVEL_C_ANY) return false;
    if (ravel_loc_is_slot(r) || r >= f->mach->regs.len) return false;
    const rv_reg *R = &f->mach->regs.data[r];
    if (R->reserved || R->cls != f->vregs.data[o[d].vreg].cls) return false;
    for (uint32_t j = 0; j < in->ndefs; j++)
        if (j != d && o[j].loc == r) return false;
    return true;
}

/* The checker's report on g has `kind` at instruction ii, operand k of role. */
static bool reported(ravel_checker *ck, const ravel_func *g, uint32_t ii, const char *role, uint32_t k, const char *kind, int *status)
{
    ravel_report *rep = NULL;
    *status = ravel_check(ck, g, NULL, &rep);
    bool found = false;
    for (size_t e = 0; e < ravel_report_count(rep) && !found; e++) {
        const ravel_check_error *x = ravel_report_error(rep, e);
        found = x->inst == ii && x->role && !strcmp(x->role, role) && x->operand == (int)k && !strcmp(x->kind, kind);
    }
    ravel_report_free(rep);
    return found;
}

/* One mutant of g at instruction ii: def d into use k's register, the def
 * early (late == false) or use k late (late == true). */
static void one_mutant(ravel_checker *ck, const ravel_func *orig, const ravel_func *g, uint32_t ii, uint32_t d, uint32_t k, bool late,
                       ostats *st)
{
    ravel_func *h = rv_func_clone(g);
    rv_inst *in = &h->insts.data[ii];
    rv_operand *o = &h->ops.data[in->first_op];
    ravel_loc was = o[d].loc, r = o[in->ndefs + k].loc;
    o[d].loc = r;
    if (late) o[in->ndefs + k].flags |= RV_OPF_LATE;
    else o[d].flags &= (uint8_t)~RV_OPF_LATE;
    if (was != r) insert_edit_after(h, ii, ravel_loc_is_slot(was) ? RAVEL_OP_SPILL : RAVEL_OP_MOVE, was, r);
    int status;
    const char *kind = late ? "late-use-overwritten" : "early-def-overlap";
    /* (the early def is reported, or the late use it overwrites) */
    if (!reported(ck, h, ii, late ? "use" : "def", late ? k : d, kind, &status) && st->missed[late]++ < 3) {
        fprintf(stderr, "no %s on def %u at inst %u (use %u):\n", kind, d, ii, k);
        ravel_print_machine(stderr, h->mach);
        ravel_print_func(stderr, h);
    }
    st->mutants[late][k < MAXPOS ? k : MAXPOS]++;
    if (k + 1 == in->nuses && in->nuses >= 2) st->last_use[late]++;
    if (!run_agrees(orig, h)) {
        st->run_wrong++;
        if (status == RAVEL_OK && st->run_wrong_accepted++ < 3) {
            fprintf(stderr, "accepted, but ravel run finds it wrong (inst %u, def %u, use %u):\n", ii, d, k);
            ravel_print_func(stderr, h);
        }
    }
    ravel_func_free(h);
}

/* Reads of vreg u in f: uses and branch arguments. */
static uint32_t reads_of(const ravel_func *f, uint32_t u)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->insts.len; i++) {
        const rv_inst *in = &f->insts.data[i];
        if (rv_is_edit(in)) continue;
        for (uint32_t k = 0; k < in->nuses; k++) n += f->ops.data[in->first_op + in->ndefs + k].vreg == u;
        for (uint32_t s = 0; s < rv_inst_nsuccs(in); s++) {
            const rv_succ *e = &rv_inst_succs(f, in)[s];
            for (uint32_t a = 0; a < e->nargs; a++) n += rv_succ_args(f, e)[a] == u;
        }
    }
    return n;
}

/* Every operand, parameter and argument of vreg w in f becomes u. */
static void rename_vreg(ravel_func *f, uint32_t w, uint32_t u)
{
    for (uint32_t i = 0; i < f->ops.len; i++)
        if (f->ops.data[i].vreg == w) f->ops.data[i].vreg = u;
    for (uint32_t b = 0; b < f->layout.len; b++) {
        rv_block *bl = &f->blocks.data[b];
        for (uint32_t p = 0; p < bl->nparams; p++)
            if (f->u32.data[bl->first_param + p] == w) f->u32.data[bl->first_param + p] = u;
    }
    for (uint32_t i = 0; i < f->insts.len; i++) {
        const rv_inst *in = &f->insts.data[i];
        if (rv_is_edit(in)) continue;
        for (uint32_t s = 0; s < rv_inst_nsuccs(in); s++) {
            const rv_succ *e = &rv_inst_succs(f, in)[s];
            for (uint32_t a = 0; a < e->nargs; a++)
                if (f->u32.data[e->first_arg + a] == w) f->u32.data[e->first_arg + a] = u;
        }
    }
}

/* The early mutant at (ii, d, k) in the renamed shape, when use k is the
 * only read of its vreg u and def d's vreg w is of u's kind: w renamed u
 * in orig and in g, then the early def in use k's register. The checker
 * must reject it; the interpreter is asked too. */
static void redefined_mutant(ravel_checker *ck, const ravel_func *orig, const ravel_func *g, uint32_t ii, uint32_t d, uint32_t k,
                             ostats *st)
{
    const rv_inst *in = &g->insts.data[ii];
    const rv_operand *o = &g->ops.data[in->first_op];
    uint32_t w = o[d].vreg, u = o[in->ndefs + k].vreg;
    const rv_vreg *W = &g->vregs.data[w], *U = &g->vregs.data[u];
    if (w == u || W->cls != U->cls || W->ref != U->ref || reads_of(g, u) != 1) return;
    ravel_func *o2 = rv_func_clone(orig), *h = rv_func_clone(g);
    rename_vreg(o2, w, u);
    rename_vreg(h, w, u);
    rv_inst *hi = &h->insts.data[ii];
    rv_operand *ho = &h->ops.data[hi->first_op];
    ravel_loc was = ho[d].loc, r = ho[hi->ndefs + k].loc;
    ho[d].loc = r;
    ho[d].flags &= (uint8_t)~RV_OPF_LATE;
    if (was != r) insert_edit_after(h, ii, ravel_loc_is_slot(was) ? RAVEL_OP_SPILL : RAVEL_OP_MOVE, was, r);
    int status = ravel_check(ck, h, o2, NULL);
    st->redefined++;
    bool wrong = !run_agrees(o2, h);
    st->redefined_run_wrong += wrong;
    st->run_wrong_accepted += wrong && status == RAVEL_OK;
    if (status == RAVEL_OK && st->redefined_accepted++ < 3) {
        fprintf(stderr, "accepted an early def in the register of its redefined vreg's last read (inst %u, def %u, use %u)%s:\n", ii,
                d, k, wrong ? ", which ravel run finds wrong" : "");
        ravel_print_func(stderr, h);
    }
    ravel_func_free(h);
    ravel_func_free(o2);
}

/* Every mutant of g (an allocation of orig the checker accepts). */
static void mutants_of(ravel_checker *ck, const ravel_func *orig, const ravel_func *g, ostats *st)
{
    for (uint32_t ii = 0; ii < g->insts.len; ii++) {
        const rv_inst *in = &g->insts.data[ii];
        if (rv_is_edit(in) || rv_is_term(in) || !in->ndefs || !in->nuses) continue;
        const rv_operand *o = &g->ops.data[in->first_op];
        for (uint32_t d = 0; d < in->ndefs; d++)
            for (uint32_t k = 0; k < in->nuses; k++) {
                if (!def_may_take(g, in, d, o[in->ndefs + k].loc)) continue;
                one_mutant(ck, orig, g, ii, d, k, false, st);
                one_mutant(ck, orig, g, ii, d, k, true, st);
                redefined_mutant(ck, orig, g, ii, d, k, st);
            }
    }
}

TEST(overlap_rules_at_every_position)
{
    ravel_checker *ck = ravel_checker_new();
    ostats st;
    memset(&st, 0, sizeof st);
    for (uint32_t seed = 0; seed < 48; seed++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = 60;
        o.min_regs = 3;
        o.max_regs = 6;
        ravel_module *m = rv_gen_from_seed(7700 + seed, &o);
        const ravel_func *f = ravel_module_func(m, 0);
        for (ts_allocs a = ts_allocs_of(f, seed); ts_allocs_next(&a);)
            if (ravel_check(ck, a.g, f, NULL) == RAVEL_OK) mutants_of(ck, f, a.g, &st);
        ravel_module_free(m);
    }
    for (int late = 0; late < 2; late++)
        printf("%s: mutants at use 0/1/2/3+: %u/%u/%u/%u (%u at the last of >= 2 uses), %u without the error\n",
               late ? "late-use-overwritten" : "early-def-overlap", st.mutants[late][0], st.mutants[late][1], st.mutants[late][2],
               st.mutants[late][3], st.last_use[late], st.missed[late]);
    printf("%u mutants found wrong by the interpreter; %u of the renamed shape, %u of them found wrong, %u accepted; %u found wrong "
           "but accepted\n",
           st.run_wrong, st.redefined, st.redefined_run_wrong, st.redefined_accepted, st.run_wrong_accepted);
    for (int late = 0; late < 2; late++) {
        CHECK(st.mutants[late][0] >= 100 && st.mutants[late][1] >= 100 && st.mutants[late][2] >= 10);
        CHECK(st.last_use[late] >= 100);
        CHECK_EQ_INT(st.missed[late], 0);
    }
    CHECK(st.run_wrong >= 100);
    CHECK(st.redefined >= 50 && st.redefined_run_wrong >= 50);
    CHECK_EQ_INT(st.redefined_accepted, 0);
    CHECK_EQ_INT(st.run_wrong_accepted, 0);
    ravel_checker_free(ck);
}

int main(void)
{
    RUN(overlap_rules_at_every_position);
    return TEST_SUMMARY();
}
