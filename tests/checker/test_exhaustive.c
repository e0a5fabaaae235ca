/* test_exhaustive.c - the exhaustive small-scope test of the checker.
 *
 * For tiny unallocated functions (straight line with a call, a diamond with
 * block arguments, a loop, copies, a safepoint with a reference), enumerate
 * every allocation within a bound: every operand location allowed by its
 * constraint among 2 registers and 1 slot, and up to two edits (move,
 * spill, reload over those locations) placed at any program points. Each
 * candidate is checked; whenever the checker accepts, the allocated form
 * must behave exactly like the original (rv_interp_compare) on every tried
 * input vector (and, for the reference program, with a moving collector).
 * A single acceptance of a wrong allocation fails the test: the checker
 * must never look away. Prints, per program, how many allocations were
 * enumerated and accepted, and how many accepted ones the interpreter saw
 * run (so the test cannot pass vacuously).
 * Usage: test_exhaustive [--quick]   (--quick: one edit at most) */
#include "ir/ir.h"

#include <stdlib.h>
#include <string.h>

#define MAXOPS 24
#define MAXPTS 24
#define MAXITEMS (MAXPTS * 8)

typedef struct prog {
    const char *name;
    const char *text;
    bool moving_gc;
    int max_edits; /* 1: one edit; 2: two anywhere, or three at one point */
} prog;

static const char *const machine_text =
    "machine\n"
    "  class int r0 r1\n"
    "  clobbers r0\n"
    "end\n";

static const prog progs[] = {
    {"straight_call",
     "func f\nb0:\n  v0:int, v1:int = args\n  v2:int = add v0, v1\n  v3:int = call g v2\n  out v1\n  ret v3\nend\n", false, 1},
    {"diamond",
     "func f\nb0:\n  v0:int, v1:int = args\n  br v0, b1, b2\nb1:\n  v2:int = add v0, v1\n  jump b3(v2)\nb2:\n"
     "  jump b3(v1)\nb3(v3:int):\n  ret v3\nend\n", false, 1},
    {"loop",
     "func f\nb0:\n  v0:int = args\n  v1:int = const 2\n  jump b1(v1)\nb1(v2:int):\n  v3:int = sub v2, 1\n"
     "  br v3, b2, b3\nb2:\n  out v3\n  jump b1(v3)\nb3:\n  ret v0\nend\n", false, 1},
    {"swap_loop",
     "func f\nb0:\n  v0:int, v1:int = args\n  jump b1(v0, v1)\nb1(v2:int, v3:int):\n  out v2\n  br b2, b3\nb2:\n"
     "  jump b1(v3, v2)\nb3:\n  ret v3\nend\n", false, 2},
    {"copies",
     "func f\nb0:\n  v0:int = args\n  v1:int = copy v0\n  v2:int = add v1, v0\n  out v1\n  ret v2\nend\n", false, 1},
    {"any_ops",
     "func f\nb0:\n  v0:int, v1:int = args\n  v2:int any = mix v0 any, v1\n  out v0 any\n  ret v2\nend\n", false, 1},
    {"safepoint_ref",
     "func f\nb0:\n  v0:int.ref, v1:int = args\n  v2:int = call g v1 clobbers() safepoint\n  out v0\n  ret v2\nend\n", true, 2},
};

/* An edit item: at program point pt (instruction index in the rebuilt
 * order: before original instruction pt), copy src to dst. */
typedef struct item {
    uint32_t pt;
    ravel_loc dst, src;
} item;

typedef struct enumr {
    const ravel_func *u;        /* unallocated */
    uint32_t nops, nsp;         /* operand dimensions, then safepoint dimensions */
    uint32_t opi[MAXOPS + MAXPTS]; /* index into u->ops, or instruction index for a safepoint */
    uint32_t nchoice[MAXOPS + MAXPTS];
    ravel_loc choice[MAXOPS][3];
    item items[MAXITEMS];
    uint32_t nitems;
    uint64_t enumerated, accepted, ran, wrong;
    ravel_checker *ck;
    bool moving_gc;
} enumr;

/* Location choices of operand o: registers of its class, plus s0 when the
 * constraint allows slots (any, stack). fixed/reuse keep what they must. */
static void operand_choices(enumr *e, const rv_operand *o, uint32_t k)
{
    uint32_t n = 0;
    if (o->kind != RAVEL_C_STACK) {
        e->choice[k][n++] = 0;
        e->choice[k][n++] = 1;
    }
    if (o->kind == RAVEL_C_ANY || o->kind == RAVEL_C_STACK) e->choice[k][n++] = ravel_slot(0);
    e->nchoice[k] = n;
}

static void setup(enumr *e, const ravel_func *u)
{
    memset(e, 0, sizeof *e);
    e->u = u;
    for (uint32_t i = 0; i < u->insts.len; i++) {
        const rv_inst *in = &u->insts.data[i];
        for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) {
            operand_choices(e, &u->ops.data[in->first_op + k], e->nops);
            e->opi[e->nops++] = in->first_op + k;
        }
    }
    /* safepoints: stackmap() or stackmap(s0) */
    for (uint32_t i = 0; i < u->insts.len; i++)
        if (u->insts.data[i].flags & RV_IF_SAFEPOINT) {
            e->nchoice[e->nops + e->nsp] = 2;
            e->opi[e->nops + e->nsp++] = i;
        }
    /* program points: before every instruction except the entry's first */
    static const ravel_loc locs[3] = {0, 1, RAVEL_SLOT_BIT | 0};
    for (uint32_t pt = 1; pt < u->insts.len; pt++)
        for (int d = 0; d < 3; d++)
            for (int s = 0; s < 3; s++) {
                if (d == s || (ravel_loc_is_slot(locs[d]) && ravel_loc_is_slot(locs[s]))) continue;
                e->items[e->nitems++] = (item){pt, locs[d], locs[s]};
            }
}

/* The allocated function: u with operand locations and the edits inserted. */
static ravel_func *materialize(const enumr *e, const uint32_t *pick, const item *const *edits, uint32_t nedits)
{
    ravel_func *f = rv_func_clone(e->u);
    for (uint32_t k = 0; k < e->nops; k++) f->ops.data[e->opi[k]].loc = e->choice[k][pick[k]];
    for (uint32_t k = e->nops; k < e->nops + e->nsp; k++) {
        rv_inst *in = &f->insts.data[e->opi[k]];
        in->flags |= RV_IF_STACKMAP;
        in->u.smap.first = f->u32.len;
        in->u.smap.n = pick[k];
        uint32_t zero = 0;
        rv_vec_push(f->u32, zero);
    }
    if (!nedits) return f;
    rv_inst saved[64];
    if (f->insts.len > 64) abort();
    memcpy(saved, f->insts.data, f->insts.len * sizeof *saved);
    f->insts.len = 0;
    uint32_t ei = 0;
    for (uint32_t b = 0; b < e->u->layout.len; b++) {
        const rv_block *ub = &e->u->blocks.data[b];
        rv_block *fb = &f->blocks.data[b];
        fb->first_inst = f->insts.len;
        for (uint32_t i = 0; i < ub->ninsts; i++) {
            uint32_t pt = ub->first_inst + i;
            for (; ei < nedits && edits[ei]->pt == pt; ei++) {
                rv_inst ed;
                memset(&ed, 0, sizeof ed);
                ravel_loc d = edits[ei]->dst, s = edits[ei]->src;
                ed.op = ravel_loc_is_slot(d) ? RAVEL_OP_SPILL : ravel_loc_is_slot(s) ? RAVEL_OP_RELOAD : RAVEL_OP_MOVE;
                ed.u.edit.dst = d;
                ed.u.edit.src = s;
                ed.name = RAVEL_NONE;
                rv_vec_push(f->insts, ed);
            }
            rv_vec_push(f->insts, saved[pt]);
        }
        fb->ninsts = f->insts.len - fb->first_inst;
    }
    f->nslots = 1;
    return f;
}

static const uint64_t inputs[][2] = {{0, 0}, {1, 2}, {7, (uint64_t)-3}, {3, 1}};

static void try_one(enumr *e, const uint32_t *pick, const item *const *edits, uint32_t nedits)
{
    ravel_func *f = materialize(e, pick, edits, nedits);
    e->enumerated++;
    if (ravel_check(e->ck, f, NULL, NULL) == RAVEL_OK) {
        e->accepted++;
        for (size_t v = 0; v < sizeof inputs / sizeof *inputs; v++) {
            rv_run_opts o;
            memset(&o, 0, sizeof o);
            o.inputs = inputs[v];
            o.ninputs = 2;
            o.step_limit = 200;
            o.moving_gc = e->moving_gc;
            char msg[256];
            if (!rv_interp_compare(e->u, f, &o, msg, sizeof msg)) {
                if (e->wrong++ < 3) {
                    fprintf(stderr, "checker accepted a wrong allocation (inputs %llu, %lld): %s\n",
                            (unsigned long long)inputs[v][0], (long long)inputs[v][1], msg);
                    ravel_print_func(stderr, f);
                }
                break;
            }
            e->ran++;
        }
    }
    ravel_func_free(f);
}

/* Every operand-location assignment, for one edit plan. */
static void all_picks(enumr *e, const item *const *edits, uint32_t nedits)
{
    uint32_t pick[MAXOPS + MAXPTS] = {0};
    uint32_t n = e->nops + e->nsp;
    for (;;) {
        try_one(e, pick, edits, nedits);
        uint32_t k = 0;
        while (k < n && ++pick[k] == e->nchoice[k]) pick[k++] = 0;
        if (k == n) break;
    }
}

static bool run_prog(const prog *p, bool quick)
{
    char text[2048];
    snprintf(text, sizeof text, "%s\n%s", machine_text, p->text);
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, strlen(text), p->name, d);
    if (!m || ravel_diags_count(d) || ravel_module_nfuncs(m) != 1) {
        ravel_diags_print(stderr, d);
        ravel_diags_free(d);
        ravel_module_free(m);
        return false;
    }
    ravel_diags_free(d);
    enumr *e = malloc(sizeof *e);
    setup(e, ravel_module_func(m, 0));
    e->ck = ravel_checker_new();
    e->moving_gc = p->moving_gc;
    /* plans: no edit; one edit anywhere; two edits anywhere (in program
     * order); three edits at one point (a swap through the third location) */
    const item *plan[3] = {NULL, NULL, NULL};
    all_picks(e, plan, 0);
    for (uint32_t i = 0; i < e->nitems; i++) {
        plan[0] = &e->items[i];
        all_picks(e, plan, 1);
        for (uint32_t j = 0; !quick && p->max_edits > 1 && j < e->nitems; j++) {
            if (e->items[j].pt < e->items[i].pt) continue;
            plan[1] = &e->items[j];
            all_picks(e, plan, 2);
            for (uint32_t k = 0; k < e->nitems; k++) {
                if (e->items[j].pt != e->items[i].pt || e->items[k].pt != e->items[i].pt) continue;
                plan[2] = &e->items[k];
                all_picks(e, plan, 3);
            }
        }
    }
    printf("%-14s operands %2u, edit items %3u: %8llu allocations enumerated, %6llu accepted, %6llu runs compared, %llu wrong\n",
           p->name, e->nops, e->nitems, (unsigned long long)e->enumerated, (unsigned long long)e->accepted,
           (unsigned long long)e->ran, (unsigned long long)e->wrong);
    bool ok = e->wrong == 0 && e->accepted > 0;
    ravel_checker_free(e->ck);
    free(e);
    ravel_module_free(m);
    return ok;
}

int main(int argc, char **argv)
{
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int bad = 0;
    for (size_t i = 0; i < sizeof progs / sizeof *progs; i++)
        if (!run_prog(&progs[i], quick)) {
            fprintf(stderr, "FAIL %s\n", progs[i].name);
            bad++;
        }
    printf("%d programs, %d failed\n", (int)(sizeof progs / sizeof *progs), bad);
    return bad != 0;
}
