/* test_gen.c - the generator (fuzz/gen*.c):
 *   - validity: every byte string (empty, 1-byte, all-zero, all-0xff,
 *     random, long) and many seeds and option sets give a module that
 *     ravel_validate(--ssa) accepts and whose constraints keep the
 *     satisfiability rules (rv_gen_satisfiable), within the size options;
 *   - coverage: every construct the issue lists occurs in a sample;
 *   - feature switches remove their constructs;
 *   - determinism, print -> parse round trip, termination under the
 *     interpreter, large sizes. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "allocator/alloc.h" /* rv_rng_next (header only) */
#include "fuzz/gen.h"
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */

static char *print_module(const ravel_module *mod)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&buf, &n);
    rv_print_module(mem, mod);
    fclose(mem);
    return buf;
}

static uint32_t count_orig_insts(const ravel_func *f)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->insts.len; i++) n += !rv_is_edit(&f->insts.data[i]);
    return n;
}

/* Validates one generated module; on failure prints why and the module. */
static int good_module(const ravel_module *mod, const rv_gen_opts *o, const char *what)
{
    if (!mod || !mod->mach || mod->funcs.len != 1) {
        fprintf(stderr, "%s: no module\n", what);
        return 0;
    }
    const ravel_func *f = mod->funcs.data[0];
    char why[200];
    int ok = 1;
    ravel_diags *d = ravel_diags_new();
    if (rv_func_error(f)) {
        fprintf(stderr, "%s: builder error: %s\n", what, rv_func_error(f));
        ok = 0;
    }
    if (ravel_validate(f, RAVEL_VALIDATE_SSA, d) != RAVEL_OK) {
        fprintf(stderr, "%s: invalid:\n", what);
        ravel_diags_print(stderr, d);
        ok = 0;
    }
    if (!rv_gen_satisfiable(f, why, sizeof why)) {
        fprintf(stderr, "%s: unsatisfiable: %s\n", what, why);
        ok = 0;
    }
    rv_gen_opts def;
    if (!o) rv_gen_opts_default(&def), o = &def;
    if (count_orig_insts(f) > (o->max_insts ? o->max_insts : 1) || f->layout.len > (o->max_blocks ? o->max_blocks : 1)) {
        fprintf(stderr, "%s: too big: %u insts, %u blocks\n", what, count_orig_insts(f), f->layout.len);
        ok = 0;
    }
    if (!ok) rv_print_module(stderr, mod);
    ravel_diags_free(d);
    return ok;
}

static int check_bytes(const uint8_t *p, size_t n, const rv_gen_opts *o, const char *what)
{
    ravel_module *mod = rv_gen_from_bytes(p, n, o);
    int ok = good_module(mod, o, what);
    ravel_module_free(mod);
    return ok;
}

/* ---- validity ---- */

TEST(valid_tiny_inputs)
{
    uint8_t buf[1024];
    CHECK(check_bytes(NULL, 0, NULL, "NULL"));
    CHECK(check_bytes(buf, 0, NULL, "empty"));
    for (int b = 0; b < 256; b++) {
        buf[0] = (uint8_t)b;
        CHECK(check_bytes(buf, 1, NULL, "1 byte"));
    }
    for (int a = 0; a < 256; a += 7)
        for (int b = 0; b < 256; b += 13) {
            buf[0] = (uint8_t)a;
            buf[1] = (uint8_t)b;
            CHECK(check_bytes(buf, 2, NULL, "2 bytes"));
        }
}

TEST(valid_constant_inputs)
{
    static uint8_t buf[1 << 16];
    const size_t lens[] = {1, 2, 3, 5, 8, 17, 64, 100, 255, 1000, 4096, 1 << 16};
    for (int fill = 0; fill < 3; fill++) {
        memset(buf, fill == 0 ? 0 : fill == 1 ? 0xff : 0x80, sizeof buf);
        for (size_t i = 0; i < sizeof lens / sizeof *lens; i++) CHECK(check_bytes(buf, lens[i], NULL, "constant"));
    }
}

TEST(valid_random_inputs)
{
    static uint8_t buf[1 << 17];
    uint64_t s = 1;
    for (int i = 0; i < 1500; i++) {
        size_t n = rv_rng_next(&s) % (i < 1400 ? 400 : sizeof buf);
        for (size_t k = 0; k < n; k++) buf[k] = (uint8_t)rv_rng_next(&s);
        if (!check_bytes(buf, n, NULL, "random")) {
            CHECK(0);
            return;
        }
    }
}

/* Random option sets: sizes, registers, pressure, feature subsets. */
static rv_gen_opts random_opts(uint64_t *s)
{
    rv_gen_opts o;
    rv_gen_opts_default(&o);
    o.max_insts = 1 + (uint32_t)(rv_rng_next(s) % (rv_rng_next(s) % 2 ? 12 : 400));
    o.max_blocks = 1 + (uint32_t)(rv_rng_next(s) % 40);
    o.min_regs = 1 + (uint32_t)(rv_rng_next(s) % 4);
    o.max_regs = o.min_regs + (uint32_t)(rv_rng_next(s) % 8);
    o.pressure = (uint32_t)(rv_rng_next(s) % 101);
    o.features = rv_rng_next(s) % 3 ? (unsigned)rv_rng_next(s) & RV_GEN_ALL : RV_GEN_ALL;
    o.window = rv_rng_next(s) % 3 ? 0 : (uint32_t)(rv_rng_next(s) % 40);
    return o;
}

TEST(valid_seeds_and_options)
{
    uint64_t s = 7;
    for (uint64_t seed = 0; seed < 2000; seed++) {
        rv_gen_opts o;
        if (seed % 2) o = random_opts(&s); else rv_gen_opts_default(&o);
        ravel_module *mod = rv_gen_from_seed(seed, &o);
        int ok = good_module(mod, &o, "seed");
        ravel_module_free(mod);
        if (!ok) {
            fprintf(stderr, "seed %llu features %#x\n", (unsigned long long)seed, o.features);
            CHECK(0);
            return;
        }
    }
    /* extreme options are clamped, not trusted */
    rv_gen_opts o = {0, 0, 0, 0, 1000, ~0u, 0, ~0u, ~0u, NULL};
    CHECK(check_bytes((const uint8_t *)"x", 1, &o, "zero opts"));
    o = (rv_gen_opts){5, 1000, 500, 100, 100, RV_GEN_ALL, 0, 1, RV_GEN_CFG_ANY, NULL};
    ravel_module *mod = rv_gen_from_seed(3, &o);
    CHECK(mod && mod->mach->classes.data[0].alloc.len <= 64);
    ravel_module_free(mod);
}

/* ---- coverage ---- */

enum {
    F_LOOP, F_MULTIWAY, F_CONDLESS, F_PARAMS, F_BR_ARGS, F_SWAP, F_FIXED, F_FIXED_RESERVED, F_REUSE,
    F_EARLY_DEF, F_LATE_USE, F_ANY, F_STACK, F_CALL_DEFAULT, F_CALL_EXPLICIT, F_CLOBBERS_EMPTY,
    F_SAFEPOINT, F_REF, F_REF_ACROSS_SAFEPOINT, F_COPY, F_CLASSES, F_IMM, F_RET_FIXED, F_EARLY_RET,
    F_TWO_FIXED_REGS, F_ARGS_FIXED, F_OUT, F_RESERVED_MACHINE, F_NONMOVING, F_MOVING, F_PRESSURE,
    F_SPLIT_BLOCK, F_NESTED_LOOP, F_BREAK, F_COUNT_
};
static const char *const fnames[F_COUNT_] = {
    "loop", "multiway br", "condition-less br", "block params", "br args", "param swap", "fixed",
    "fixed reserved", "reuse", "early def", "late use", "any", "stack", "call default clobbers",
    "call explicit clobbers", "empty clobbers", "safepoint", ".ref", ".ref across safepoint", "copy",
    "classes", "immediate", "ret fixed", "early ret", "one vreg two fixed regs", "args fixed", "out",
    "reserved regs", "gc nonmoving", "gc moving", "pressure > registers", "split block",
    "nested loop", "loop break"};

/* Marks which operand-level features one instruction shows. */
static void scan_operands(const ravel_func *f, const rv_inst *in, unsigned char *seen)
{
    const rv_operand *ops = rv_inst_ops(f, in);
    for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) {
        const rv_operand *o = &ops[k];
        bool def = rv_op_is_def(o);
        if (o->kind == RAVEL_C_FIXED) {
            seen[F_FIXED] = 1;
            if (f->mach->regs.data[o->arg].reserved) seen[F_FIXED_RESERVED] = 1;
            if (in->op == RAVEL_OP_RET) seen[F_RET_FIXED] = 1;
            if (in->op == RAVEL_OP_ARGS) seen[F_ARGS_FIXED] = 1;
            for (uint32_t j = k + 1; j < (uint32_t)in->ndefs + in->nuses; j++)
                if (!def && ops[j].kind == RAVEL_C_FIXED && ops[j].vreg == o->vreg && ops[j].arg != o->arg)
                    seen[F_TWO_FIXED_REGS] = 1;
        }
        if (o->kind == RAVEL_C_REUSE) seen[F_REUSE] = 1;
        if (o->kind == RAVEL_C_ANY) seen[F_ANY] = 1;
        if (o->kind == RAVEL_C_STACK) seen[F_STACK] = 1;
        if (def && rv_op_is_early(o)) seen[F_EARLY_DEF] = 1;
        if (!def && rv_op_is_late(o)) seen[F_LATE_USE] = 1;
    }
}

static void scan_term(const ravel_func *f, uint32_t b, const rv_inst *in, unsigned char *seen, uint32_t *nret)
{
    if (in->op == RAVEL_OP_RET) (*nret)++;
    if (in->op == RAVEL_OP_BR) {
        if (rv_inst_nsuccs(in) >= 3) seen[F_MULTIWAY] = 1;
        if (in->nuses == 0) seen[F_CONDLESS] = 1;
    }
    for (uint32_t k = 0; k < rv_inst_nsuccs(in); k++) {
        const rv_succ *s = &rv_inst_succs(f, in)[k];
        const rv_block *t = &f->blocks.data[s->block];
        if (s->block <= b) seen[F_LOOP] = 1;
        if (in->op == RAVEL_OP_BR && s->nargs) seen[F_BR_ARGS] = 1;
        for (uint32_t i = 0; i < s->nargs; i++)
            for (uint32_t j = 0; j < t->nparams; j++)
                if (i != j && rv_succ_args(f, s)[i] == rv_block_params(f, t)[j] &&
                    rv_succ_args(f, s)[j] == rv_block_params(f, t)[i])
                    seen[F_SWAP] = 1;
    }
    /* a block holding only a jump, entered from a multi-successor br */
    const rv_block *bb = &f->blocks.data[b];
    if (in->op == RAVEL_OP_JUMP && bb->ninsts == 1 && b > 0) seen[F_SPLIT_BLOCK] = 1;
}

/* Values live (by layout interval, an under-approximation inside loops)
 * exceed the class's registers somewhere; *maxlive gets the most values
 * live at once over all classes. */
static bool live_scan(const ravel_func *f, uint32_t *maxlive)
{
    uint32_t nv = f->vregs.len, ni = f->insts.len;
    uint32_t *first = malloc(sizeof(uint32_t) * (nv + 1)), *last = malloc(sizeof(uint32_t) * (nv + 1));
    int32_t *delta = calloc((size_t)(ni + 1) * RV_MAX_CLASSES, sizeof(int32_t));
    for (uint32_t v = 0; v < nv; v++) first[v] = UINT32_MAX, last[v] = 0;
    for (uint32_t i = 0; i < ni; i++) {
        const rv_inst *in = &f->insts.data[i];
        const rv_operand *ops = rv_inst_ops(f, in);
        for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) {
            uint32_t v = ops[k].vreg;
            if (rv_op_is_def(&ops[k]) && first[v] == UINT32_MAX) first[v] = i;
            else if (!rv_op_is_def(&ops[k])) last[v] = i;
        }
    }
    for (uint32_t v = 0; v < nv; v++)
        if (first[v] != UINT32_MAX && last[v] > first[v]) {
            uint32_t c = f->vregs.data[v].cls;
            delta[(size_t)first[v] * RV_MAX_CLASSES + c]++;
            delta[(size_t)last[v] * RV_MAX_CLASSES + c]--;
        }
    bool over = false;
    int32_t all = 0, most = 0;
    for (uint32_t i = 0; i < ni; i++) {
        for (uint32_t c = 0; c < RV_MAX_CLASSES; c++) all += delta[(size_t)i * RV_MAX_CLASSES + c];
        if (all > most) most = all;
    }
    *maxlive = (uint32_t)most;
    for (uint32_t c = 0; c < f->mach->classes.len; c++) {
        int32_t live = 0;
        for (uint32_t i = 0; i < ni; i++) {
            live += delta[(size_t)i * RV_MAX_CLASSES + c];
            if (live > (int32_t)f->mach->classes.data[c].alloc.len) over = true;
        }
    }
    free(first);
    free(last);
    free(delta);
    return over;
}

/* True if b lies in the natural loop of header h (structured CFGs: the
 * parent of a loop is the loop around its header's immediate dominator). */
static bool in_loop(const rv_cfg *c, uint32_t b, uint32_t h)
{
    for (uint32_t x = c->loop_header[b]; x != RAVEL_NONE; x = c->idom[x] == x ? RAVEL_NONE : c->loop_header[c->idom[x]])
        if (x == h) return true;
    return false;
}

/* A loop left by a `break`: some block X receives two or more jumps from
 * blocks just outside the same loop h (not in it, their immediate
 * dominator in it): the exit split block is one of them, each break
 * another. */
static bool has_break(const ravel_func *f, const rv_cfg *c)
{
    uint32_t *exits = calloc(c->nblocks, sizeof *exits);
    bool found = false;
    for (uint32_t b = 0; b < c->nblocks && !found; b++) {
        const rv_inst *t = rv_block_term(f, &f->blocks.data[b]);
        if (c->rpo_index[b] == RAVEL_NONE || t->op != RAVEL_OP_JUMP) continue;
        uint32_t to = rv_inst_succs(f, t)[0].block;
        for (uint32_t h = c->idom[b]; h != RAVEL_NONE; h = c->idom[h] == h ? RAVEL_NONE : c->idom[h])
            if (c->loop_header[h] == h && in_loop(c, c->idom[b], h) && !in_loop(c, b, h) && !in_loop(c, to, h)) {
                /* two sources just outside the same loop */
                if (exits[to] == h + 1) found = true;
                exits[to] = h + 1;
                break;
            }
    }
    free(exits);
    return found;
}

static void scan_func(const ravel_func *f, unsigned char *seen)
{
    uint32_t nret = 0, last_sp = UINT32_MAX;
    const ravel_machine *m = f->mach;
    if (m->classes.len > 1) seen[F_CLASSES] = 1;
    for (uint32_t r = 0; r < m->regs.len; r++)
        if (m->regs.data[r].reserved) seen[F_RESERVED_MACHINE] = 1;
    seen[m->gc_nonmoving ? F_NONMOVING : F_MOVING] = 1;
    for (uint32_t v = 0; v < f->vregs.len; v++)
        if (f->vregs.data[v].ref) seen[F_REF] = 1;
    uint32_t back_edges = 0;
    for (uint32_t b = 0; b < f->layout.len; b++) {
        const rv_block *bb = &f->blocks.data[b];
        if (bb->nparams) seen[F_PARAMS] = 1;
        for (uint32_t k = 0; k < bb->ninsts; k++) {
            uint32_t idx = bb->first_inst + k;
            const rv_inst *in = &f->insts.data[idx];
            scan_operands(f, in, seen);
            if (in->nimms) seen[F_IMM] = 1;
            if (in->op == RAVEL_OP_COPY) seen[F_COPY] = 1;
            if (in->op == RAVEL_OP_OUT) seen[F_OUT] = 1;
            if (in->op == RAVEL_OP_CALL) seen[(in->flags & RV_IF_CLOBBERS) ? F_CALL_EXPLICIT : F_CALL_DEFAULT] = 1;
            if ((in->flags & RV_IF_CLOBBERS) && in->nclob == 0) seen[F_CLOBBERS_EMPTY] = 1;
            if (in->flags & RV_IF_SAFEPOINT) seen[F_SAFEPOINT] = 1, last_sp = idx;
            /* a .ref use after a safepoint of a .ref defined before it */
            if (last_sp != UINT32_MAX && idx > last_sp)
                for (uint32_t u = 0; u < in->nuses; u++) {
                    const rv_operand *o = &rv_inst_uses(f, in)[u];
                    if (!f->vregs.data[o->vreg].ref) continue;
                    for (uint32_t j = 0; j < last_sp; j++) {
                        const rv_inst *dj = &f->insts.data[j];
                        for (uint32_t d = 0; d < dj->ndefs; d++)
                            if (rv_inst_defs(f, dj)[d].vreg == o->vreg) seen[F_REF_ACROSS_SAFEPOINT] = 1;
                    }
                }
            if (rv_is_term(in)) {
                scan_term(f, b, in, seen, &nret);
                for (uint32_t s = 0; s < rv_inst_nsuccs(in); s++) back_edges += rv_inst_succs(f, in)[s].block <= b;
            }
        }
    }
    if (nret > 1) seen[F_EARLY_RET] = 1;
    if (back_edges > 0) {
        rv_cfg cfg;
        rv_cfg_build(&cfg, f);
        for (uint32_t b = 0; b < cfg.nblocks; b++)
            if (cfg.loop_depth[b] > 1) seen[F_NESTED_LOOP] = 1;
        if (has_break(f, &cfg)) seen[F_BREAK] = 1;
        rv_cfg_free(&cfg);
    }
    uint32_t most;
    if (live_scan(f, &most)) seen[F_PRESSURE] = 1;
}

TEST(every_feature_appears)
{
    unsigned char seen[F_COUNT_] = {0};
    for (uint64_t seed = 0; seed < 400; seed++) {
        ravel_module *mod = rv_gen_from_seed(seed, NULL);
        scan_func(mod->funcs.data[0], seen);
        ravel_module_free(mod);
    }
    for (int i = 0; i < F_COUNT_; i++)
        if (!seen[i]) {
            fprintf(stderr, "feature never generated: %s\n", fnames[i]);
            CHECK(0);
        }
}

/* Turning a feature off removes its constructs. */
TEST(feature_switches)
{
    static const struct { unsigned bit; int f1, f2; } cases[] = {
        {RV_GEN_LOOPS, F_LOOP, F_LOOP},
        {RV_GEN_MULTIWAY, F_MULTIWAY, F_CONDLESS},
        {RV_GEN_PARAMS, F_PARAMS, F_BR_ARGS},
        {RV_GEN_FIXED, F_FIXED, F_RESERVED_MACHINE},
        {RV_GEN_REUSE, F_REUSE, F_REUSE},
        {RV_GEN_EARLY_LATE, F_EARLY_DEF, F_LATE_USE},
        {RV_GEN_ANY_STACK, F_ANY, F_STACK},
        {RV_GEN_CALLS, F_CALL_DEFAULT, F_CALL_EXPLICIT},
        {RV_GEN_SAFEPOINTS, F_SAFEPOINT, F_REF},
        {RV_GEN_COPY, F_COPY, F_COPY},
        {RV_GEN_CLASSES, F_CLASSES, F_CLASSES},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.features = RV_GEN_ALL & ~cases[c].bit;
        unsigned char seen[F_COUNT_] = {0};
        for (uint64_t seed = 0; seed < 120; seed++) {
            ravel_module *mod = rv_gen_from_seed(seed, &o);
            CHECK(good_module(mod, &o, "switch"));
            scan_func(mod->funcs.data[0], seen);
            ravel_module_free(mod);
        }
        if (seen[cases[c].f1] || seen[cases[c].f2]) {
            fprintf(stderr, "--no-%s still generates %s/%s\n", rv_gen_feature_name(c), fnames[cases[c].f1], fnames[cases[c].f2]);
            CHECK(0);
        }
        CHECK(rv_gen_feature_bit(rv_gen_feature_name(c)) == cases[c].bit);
    }
    CHECK(rv_gen_feature_bit("nonsense") == 0);
}

/* The pressure knob changes how many values are live at once. */
TEST(pressure_knob)
{
    double mean[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.pressure = k ? 100 : 0;
        for (uint64_t seed = 0; seed < 100; seed++) {
            ravel_module *mod = rv_gen_from_seed(seed, &o);
            uint32_t most;
            live_scan(mod->funcs.data[0], &most);
            mean[k] += most / 100.0;
            ravel_module_free(mod);
        }
    }
    printf("mean most values live at once: pressure 0: %.1f, pressure 100: %.1f\n", mean[0], mean[1]);
    CHECK(mean[1] > 1.8 * mean[0]);
}

/* rv_gen_opts.window bounds how many values a large function keeps live
 * at once (the checker benchmark's "realistic pressure"); without it the
 * number grows with the size. A window no scope reaches changes nothing. */
TEST(window_knob)
{
    uint32_t most[2][2]; /* [window 0 / 32][size 2000 / 20000] */
    for (int w = 0; w < 2; w++)
        for (int k = 0; k < 2; k++) {
            rv_gen_opts o;
            rv_gen_opts_default(&o);
            o.max_insts = k ? 20000 : 2000;
            o.min_insts = o.max_insts - o.max_insts / 10;
            o.max_blocks = o.max_insts / 40;
            o.min_regs = o.max_regs = 16;
            o.window = w ? 32 : 0;
            ravel_module *mod = rv_gen_from_seed(7 + (uint64_t)k, &o);
            CHECK(good_module(mod, &o, "window"));
            live_scan(mod->funcs.data[0], &most[w][k]);
            ravel_module_free(mod);
        }
    printf("most values live at once, 2000 / 20000 instructions: window 0: %u / %u, window 32: %u / %u\n", most[0][0],
           most[0][1], most[1][0], most[1][1]);
    CHECK(most[0][1] > 2 * most[0][0]); /* grows with the size without a window */
    CHECK(most[1][1] < 2 * most[1][0]); /* flat with one */
    CHECK(most[1][1] * 4 < most[0][1]);
    /* scopes of a 60-instruction function never hold 1000 values of a type */
    for (uint64_t seed = 0; seed < 50; seed++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = 60;
        ravel_module *a = rv_gen_from_seed(seed, &o);
        o.window = 1000;
        ravel_module *b = rv_gen_from_seed(seed, &o);
        char *ta = print_module(a), *tb = print_module(b);
        CHECK(ta && tb && strcmp(ta, tb) == 0);
        free(ta);
        free(tb);
        ravel_module_free(a);
        ravel_module_free(b);
    }
}

/* A large budget spreads over the blocks: straight runs are paced by the
 * instructions left per block left, so no block collects the rest (it used
 * to hold ~90% of a large function). */
TEST(spread_over_blocks)
{
    for (uint64_t seed = 0; seed < 4; seed++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = 20000;
        o.min_insts = 18000;
        o.max_blocks = 500;
        ravel_module *mod = rv_gen_from_seed(seed, &o);
        const ravel_func *f = mod->funcs.data[0];
        uint32_t big = 0;
        for (uint32_t b = 0; b < f->blocks.len; b++)
            if (f->blocks.data[b].ninsts > big) big = f->blocks.data[b].ninsts;
        printf("seed %llu: %u instructions, %u blocks, the largest %u\n", (unsigned long long)seed, f->insts.len,
               f->layout.len, big);
        CHECK(f->layout.len > 400);
        CHECK(big * 4 < f->insts.len);
        ravel_module_free(mod);
    }
}

/* The generator's output does not depend on the compiler: a fuzzer input
 * found by a clang (libFuzzer, AFL++) build must give the same function in
 * a gcc build. Every CI build checks these FNV-1a hashes of the printed
 * modules, so an order of draws left to the compiler (two draws in the
 * arguments of one call: gcc and clang evaluate them in opposite orders)
 * fails in one of them. A deliberate change of the generator updates the
 * table (the test prints the new hashes). */
static uint64_t fnv1a(const char *p)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    return h;
}

TEST(golden_output)
{
    static const struct {
        uint64_t seed;
        uint32_t max_insts, min_regs, max_regs, pressure, window, cfg;
        uint64_t hash;
        unsigned features; /* 0: RV_GEN_ALL, the meaning inputs had before section 14 */
    } cases[] = {
        /* structured: the generator's output before rv_gen_opts.cfg, unchanged */
        {1, 200, 1, 32, 50, 0, RV_GEN_CFG_STRUCTURED, 0xe3ddbaeae3548cb5ull, 0},
        {2, 3000, 1, 32, 50, 0, RV_GEN_CFG_STRUCTURED, 0xfe8aa5d6d0acc228ull, 0},
        {3, 40, 1, 3, 50, 0, RV_GEN_CFG_STRUCTURED, 0xd2650f9f942d2578ull, 0},
        {4, 800, 1, 32, 90, 8, RV_GEN_CFG_STRUCTURED, 0x3f357c0ed127681full, 0},
        {5, 1500, 16, 16, 50, 32, RV_GEN_CFG_STRUCTURED, 0x6f603a6acba49193ull, 0},
        /* any (the default) */
        {1, 200, 1, 32, 50, 0, RV_GEN_CFG_ANY, 0x4d334f8fd9907b50ull, 0},
        {2, 3000, 1, 32, 50, 0, RV_GEN_CFG_ANY, 0xcfabc9e176087e5bull, 0},
        {3, 40, 1, 3, 50, 0, RV_GEN_CFG_ANY, 0x7400d00214fab773ull, 0},
        {4, 800, 1, 32, 90, 8, RV_GEN_CFG_ANY, 0x575e45cfd8b5f6f8ull, 0},
        {5, 1500, 16, 16, 50, 32, RV_GEN_CFG_ANY, 0xca2824b9c50e3424ull, 0},
        {6, 200, 2, 4, 50, 0, RV_GEN_CFG_ANY, 0x8071751c6d984cbdull, 0},
        /* the default since section 14 is on (RAVEL_GEN_DEFAULT: a deliberate break of what seeds mean) */
        {1, 200, 1, 32, 50, 0, RV_GEN_CFG_ANY, 0x79fe9be1d6a9577dull, RAVEL_GEN_DEFAULT},
        {2, 3000, 1, 32, 50, 0, RV_GEN_CFG_ANY, 0x3645d7bf2b7563c8ull, RAVEL_GEN_DEFAULT},
        {4, 800, 1, 32, 90, 8, RV_GEN_CFG_STRUCTURED, 0x64b3c107e46b6651ull, RAVEL_GEN_DEFAULT},
        {6, 200, 2, 4, 50, 0, RV_GEN_CFG_ANY, 0x1154cbc58919a749ull, RAVEL_GEN_DEFAULT},
    };
    bool all = true;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = cases[i].max_insts;
        o.min_regs = cases[i].min_regs;
        o.max_regs = cases[i].max_regs;
        o.pressure = cases[i].pressure;
        o.window = cases[i].window;
        o.cfg = cases[i].cfg;
        o.features = cases[i].features ? cases[i].features : RV_GEN_ALL;
        ravel_module *mod = rv_gen_from_seed(cases[i].seed, &o);
        char *text = print_module(mod);
        uint64_t h = text ? fnv1a(text) : 0;
        if (h != cases[i].hash) {
            printf("golden %zu (seed %llu): hash 0x%016llxull, expected 0x%016llxull\n", i,
                   (unsigned long long)cases[i].seed, (unsigned long long)h, (unsigned long long)cases[i].hash);
            all = false;
        }
        free(text);
        ravel_module_free(mod);
    }
    const char in[] = "fuzzer bytes \001\002\003\377 and more bytes to draw from";
    /* [features][cfg]: RV_GEN_ALL (before section 14), the default; any, structured */
    static const uint64_t want[2][2] = {{0x2f0752b5c673caf7ull, 0xcc6a1c6a3b4758c6ull},
                                        {0xa2825b4aa598cf34ull, 0x6e9aa6485de7a213ull}};
    for (uint32_t k = 0; k < 4; k++) {
        uint32_t cfg = k & 1, dflt = k >> 1;
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.cfg = cfg;
        if (!dflt) o.features = RV_GEN_ALL;
        ravel_module *mod = rv_gen_from_bytes((const uint8_t *)in, sizeof in - 1, &o);
        char *text = print_module(mod);
        uint64_t h = text ? fnv1a(text) : 0;
        if (h != want[dflt][cfg]) {
            printf("golden bytes (default %u, cfg %u): hash 0x%016llxull, expected 0x%016llxull\n", dflt, cfg,
                   (unsigned long long)h, (unsigned long long)want[dflt][cfg]);
            all = false;
        }
        free(text);
        ravel_module_free(mod);
    }
    CHECK(all);
}

/* The machine is written straight into its arrays (gen_machine.c), not through
 * ravel_machine_add_*: it must keep machine.c's invariants, so that the
 * public API (names, classes, clobbers) works on it. */
TEST(machine_invariants)
{
    for (uint64_t seed = 0; seed < 300; seed++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        if (seed % 3 == 1) o.min_regs = o.max_regs = 64; /* the largest machines */
        ravel_module *mod = rv_gen_from_seed(seed, &o);
        const ravel_machine *m = mod->mach;
        int ok = m->name_reg.len == m->names.strs.len && m->name_class.len == m->names.strs.len;
        for (uint32_t r = 0; r < m->regs.len; r++) {
            ok &= ravel_machine_find_reg(m, m->regs.data[r].name) == (int)r;
            ok &= ravel_machine_find_class(m, m->regs.data[r].name) == -1;
            ok &= m->regs.data[r].cls < m->classes.len;
        }
        for (uint32_t c = 0; c < m->classes.len; c++) {
            const rv_class *k = &m->classes.data[c];
            uint32_t nalloc = 0;
            ok &= ravel_machine_find_class(m, k->name) == (int)c && ravel_machine_find_reg(m, k->name) == -1;
            for (uint32_t r = 0; r < m->regs.len; r++) nalloc += m->regs.data[r].cls == c && !m->regs.data[r].reserved;
            ok &= k->alloc.len == nalloc && nalloc >= 1;
            for (uint32_t i = 0; i < k->alloc.len; i++)
                ok &= m->regs.data[k->alloc.data[i]].cls == c && !m->regs.data[k->alloc.data[i]].reserved;
        }
        for (uint32_t i = 0; i < m->clobbers.len; i++) /* sorted, unique, real registers */
            ok &= m->clobbers.data[i] < m->regs.len && (i == 0 || m->clobbers.data[i - 1] < m->clobbers.data[i]);
        ravel_module_free(mod);
        if (!ok) {
            fprintf(stderr, "seed %llu: machine breaks an invariant\n", (unsigned long long)seed);
            CHECK(0);
            return;
        }
    }
}

/* ---- arbitrary CFGs (rv_gen_opts.cfg) ---- */

/* Shapes of arbitrary control flow, counted on the CFG (ir/cfg.c). A
 * retreating edge u -> v has rpo(v) <= rpo(u); it is irreducible when v
 * does not dominate u (the cycle is entered elsewhere too). */
enum {
    S_IRRED_FUNC,      /* functions with an irreducible retreating edge */
    S_IRRED_EDGE,      /* irreducible retreating edges */
    S_DOM_HEADER,      /* ... whose u, v common dominator is a natural-loop header */
    S_DOM_IRRED,       /* ... is the target of another irreducible retreating edge */
    S_DOM_IN_LOOP,     /* ... lies in a natural loop's body (not its header) */
    S_IRRED_IN_LOOP,   /* ... whose cycle lies inside a natural loop */
    S_LOOP_IN_IRRED,   /* natural loops whose header lies on an irreducible cycle (not its entry) */
    S_SELF_LOOP,       /* split self-loops: B -> S -> B, S only forwarding */
    S_SPLIT_EDGE,      /* split critical edges: P (2+ succs) -> S -> T (2+ preds), S one pred */
    S_SPLIT_PARAMS,    /* ... with S taking block params */
    S_FAN_IN,          /* blocks with 4+ predecessors */
    S_FAN_OUT,         /* blocks with 4+ successors */
    S_MULTI_INTO_CYCLE,       /* br with 3+ succs (via split blocks) into a cycle it is not on */
    S_MULTI_INTO_CYCLE_NOCOND,/* ... without a condition */
    S_COUNT_
};
static const char *const snames[S_COUNT_] = {
    "irreducible functions", "irreducible retreating edges", "... common dominator a loop header",
    "... common dominator an irreducible target", "... common dominator in a loop body",
    "... inside a natural loop", "natural loops on an irreducible cycle", "split self-loops",
    "split critical edges", "... with params", "blocks with 4+ preds", "blocks with 4+ succs",
    "multiway br into a cycle", "... without a condition"};

typedef struct cfgx {
    const ravel_func *f;
    rv_cfg c;
    uint32_t n;
    unsigned char *reach; /* reach[a * n + b]: a path of 1+ edges from a to b */
} cfgx;

static void cfgx_build(cfgx *x, const ravel_func *f)
{
    x->f = f;
    rv_cfg_build(&x->c, f);
    uint32_t n = x->n = x->c.nblocks;
    x->reach = calloc((size_t)n * n + 1, 1);
    uint32_t *stack = malloc(sizeof(uint32_t) * (n + 1));
    for (uint32_t a = 0; a < n; a++) {
        unsigned char *r = x->reach + (size_t)a * n;
        uint32_t sp = 0;
        for (uint32_t e = x->c.succ_start[a]; e < x->c.succ_start[a + 1]; e++)
            if (!r[x->c.succ[e]]) r[x->c.succ[e]] = 1, stack[sp++] = x->c.succ[e];
        while (sp) {
            uint32_t b = stack[--sp];
            for (uint32_t e = x->c.succ_start[b]; e < x->c.succ_start[b + 1]; e++)
                if (!r[x->c.succ[e]]) r[x->c.succ[e]] = 1, stack[sp++] = x->c.succ[e];
        }
    }
    free(stack);
}
static void cfgx_free(cfgx *x)
{
    rv_cfg_free(&x->c);
    free(x->reach);
}
static bool reaches(const cfgx *x, uint32_t a, uint32_t b) { return x->reach[(size_t)a * x->n + b] != 0; }
static bool retreating(const cfgx *x, uint32_t u, uint32_t v) { return x->c.rpo_index[v] <= x->c.rpo_index[u]; }
static bool irreducible_edge(const cfgx *x, uint32_t u, uint32_t v)
{
    return retreating(x, u, v) && !rv_cfg_dominates(&x->c, v, u);
}
/* A block holding only a jump (a forwarding block), with one predecessor. */
static bool forwarder(const cfgx *x, uint32_t s)
{
    const rv_block *b = &x->f->blocks.data[s];
    return rv_cfg_npreds(&x->c, s) == 1 && rv_cfg_nsuccs(&x->c, s) == 1 && b->ninsts <= 2 &&
           rv_block_term(x->f, b)->op == RAVEL_OP_JUMP;
}
static uint32_t ncd(const cfgx *x, uint32_t a, uint32_t b)
{
    while (!rv_cfg_dominates(&x->c, a, b)) a = x->c.idom[a];
    return a;
}
/* d is the target of a retreating edge that is (natural: d dominates its
 * source) or is not (irreducible). */
static bool retreat_target(const cfgx *x, uint32_t d, bool natural)
{
    for (uint32_t e = x->c.pred_start[d]; e < x->c.pred_start[d + 1]; e++) {
        uint32_t w = x->c.pred[e];
        if (x->c.rpo_index[w] != RAVEL_NONE && retreating(x, w, d) && rv_cfg_dominates(&x->c, d, w) == natural) return true;
    }
    return false;
}
/* b lies in the body of a natural loop of header h != b. */
static bool in_natural_body(const cfgx *x, uint32_t b)
{
    for (uint32_t h = 0; h < x->n; h++)
        if (h != b && retreat_target(x, h, true) && rv_cfg_dominates(&x->c, h, b) && reaches(x, b, h)) return true;
    return false;
}

static void scan_shapes(const ravel_func *f, uint32_t *cnt)
{
    cfgx x;
    cfgx_build(&x, f);
    const rv_cfg *c = &x.c;
    bool irred = false;
    for (uint32_t u = 0; u < x.n; u++) {
        if (c->rpo_index[u] == RAVEL_NONE) continue;
        if (rv_cfg_npreds(c, u) >= 4) cnt[S_FAN_IN]++;
        if (rv_cfg_nsuccs(c, u) >= 4) cnt[S_FAN_OUT]++;
        for (uint32_t e = c->succ_start[u]; e < c->succ_start[u + 1]; e++) {
            uint32_t v = c->succ[e];
            if (irreducible_edge(&x, u, v)) {
                irred = true;
                cnt[S_IRRED_EDGE]++;
                uint32_t d = ncd(&x, u, v);
                if (retreat_target(&x, d, true)) cnt[S_DOM_HEADER]++;
                if (retreat_target(&x, d, false)) cnt[S_DOM_IRRED]++;
                if (in_natural_body(&x, d)) cnt[S_DOM_IN_LOOP]++;
                for (uint32_t h = 0; h < x.n; h++) /* u and v in the body of one natural loop */
                    if (retreat_target(&x, h, true) && rv_cfg_dominates(c, h, u) && rv_cfg_dominates(c, h, v) &&
                        reaches(&x, v, h) && h != v) {
                        cnt[S_IRRED_IN_LOOP]++;
                        break;
                    }
            }
            if (forwarder(&x, v) && c->succ[c->succ_start[v]] == u) cnt[S_SELF_LOOP]++;
            if (rv_cfg_nsuccs(c, u) >= 2 && forwarder(&x, v) && rv_cfg_npreds(c, c->succ[c->succ_start[v]]) >= 2) {
                cnt[S_SPLIT_EDGE]++;
                if (f->blocks.data[v].nparams) cnt[S_SPLIT_PARAMS]++;
            }
        }
        /* a natural-loop header on an irreducible cycle a -> v (not a loop
         * around it: it does not dominate v) */
        if (retreat_target(&x, u, true))
            for (uint32_t a = 0; a < x.n; a++)
                for (uint32_t e = c->succ_start[a]; e < c->succ_start[a + 1]; e++)
                    if (c->rpo_index[a] != RAVEL_NONE && irreducible_edge(&x, a, c->succ[e]) &&
                        !rv_cfg_dominates(c, u, c->succ[e]) && reaches(&x, u, a) && reaches(&x, c->succ[e], u)) {
                        cnt[S_LOOP_IN_IRRED]++;
                        a = x.n - 1;
                        break;
                    }
        /* a br with 3+ successors (through forwarding blocks) into a cycle it is not on */
        const rv_inst *t = rv_block_term(f, &f->blocks.data[u]);
        if (t->op == RAVEL_OP_BR && rv_inst_nsuccs(t) >= 3)
            for (uint32_t e = c->succ_start[u]; e < c->succ_start[u + 1]; e++) {
                uint32_t v = c->succ[e];
                if (forwarder(&x, v)) v = c->succ[c->succ_start[v]];
                if (reaches(&x, v, v) && !reaches(&x, v, u)) {
                    cnt[t->nuses ? S_MULTI_INTO_CYCLE : S_MULTI_INTO_CYCLE_NOCOND]++;
                    break;
                }
            }
    }
    cnt[S_IRRED_FUNC] += irred;
    cfgx_free(&x);
}

/* Every shape appears over 1000 seeds at the default options; about a
 * third of the functions are irreducible. */
TEST(any_cfg_shapes)
{
    uint32_t cnt[S_COUNT_] = {0};
    const uint32_t n = 1000;
    for (uint64_t seed = 0; seed < n; seed++) {
        ravel_module *mod = rv_gen_from_seed(seed, NULL);
        scan_shapes(mod->funcs.data[0], cnt);
        ravel_module_free(mod);
    }
    for (int i = 0; i < S_COUNT_; i++) {
        printf("%-45s %u\n", snames[i], cnt[i]);
        if (!cnt[i]) fprintf(stderr, "shape never generated: %s\n", snames[i]);
        CHECK(cnt[i] > 0);
    }
    CHECK(cnt[S_IRRED_FUNC] >= n / 4 && cnt[S_IRRED_FUNC] <= n / 2 + n / 20); /* "about a third" */
    /* none with cfg structured, nor without loops or params (the tangles' fuel is a param) */
    static const struct { uint32_t cfg; unsigned off; } none[] = {
        {RV_GEN_CFG_STRUCTURED, 0}, {RV_GEN_CFG_ANY, RV_GEN_LOOPS}, {RV_GEN_CFG_ANY, RV_GEN_PARAMS}};
    for (size_t k = 0; k < sizeof none / sizeof *none; k++) {
        uint32_t c2[S_COUNT_] = {0};
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.cfg = none[k].cfg;
        o.features &= ~none[k].off;
        for (uint64_t seed = 0; seed < 300; seed++) {
            ravel_module *mod = rv_gen_from_seed(seed, &o);
            scan_shapes(mod->funcs.data[0], c2);
            ravel_module_free(mod);
        }
        CHECK_EQ_INT(c2[S_IRRED_FUNC], 0);
    }
}

/* ---- determinism, round trip, termination, sizes ---- */

TEST(deterministic)
{
    const uint8_t bytes[] = "some fuzzer input \x01\x02\xff";
    for (uint64_t seed = 0; seed < 40; seed++) {
        ravel_module *a = rv_gen_from_seed(seed, NULL), *b = rv_gen_from_seed(seed, NULL);
        ravel_module *c = rv_gen_from_seed(seed + 1000, NULL);
        char *ta = print_module(a), *tb = print_module(b), *tc = print_module(c);
        CHECK_STR(ta, tb);
        CHECK(strcmp(ta, tc) != 0);
        free(ta), free(tb), free(tc);
        ravel_module_free(a), ravel_module_free(b), ravel_module_free(c);
    }
    ravel_module *a = rv_gen_from_bytes(bytes, sizeof bytes, NULL), *b = rv_gen_from_bytes(bytes, sizeof bytes, NULL);
    char *ta = print_module(a), *tb = print_module(b);
    CHECK_STR(ta, tb);
    free(ta), free(tb);
    ravel_module_free(a), ravel_module_free(b);
    /* a mutation in the function's bytes (after the first 16) keeps the
     * machine; one in the machine's bytes changes it */
    uint8_t in[200];
    uint64_t st = 99;
    for (size_t i = 0; i < sizeof in; i++) in[i] = (uint8_t)rv_rng_next(&st);
    ravel_module *m0 = rv_gen_from_bytes(in, sizeof in, NULL);
    in[60] ^= 0x5a;
    ravel_module *m1 = rv_gen_from_bytes(in, sizeof in, NULL);
    in[60] ^= 0x5a;
    in[1] ^= 0xff;
    ravel_module *m2 = rv_gen_from_bytes(in, sizeof in, NULL);
    char *t0 = print_module(m0), *t1 = print_module(m1), *t2 = print_module(m2);
    CHECK(strcmp(t0, t1) != 0);
    CHECK(strncmp(t0, t1, (size_t)(strstr(t0, "func ") - t0)) == 0);
    CHECK(strncmp(t0, t2, (size_t)(strstr(t0, "func ") - t0)) != 0);
    free(t0), free(t1), free(t2);
    ravel_module_free(m0), ravel_module_free(m1), ravel_module_free(m2);
    /* short inputs do not collapse to one shape: 1-byte inputs differ */
    int distinct = 0;
    char *prev = NULL;
    for (int v = 0; v < 16; v++) {
        uint8_t one = (uint8_t)v;
        ravel_module *m = rv_gen_from_bytes(&one, 1, NULL);
        char *t = print_module(m);
        if (!prev || strcmp(prev, t) != 0) distinct++;
        free(prev);
        prev = t;
        ravel_module_free(m);
    }
    free(prev);
    CHECK(distinct == 16);
}

TEST(print_parse_round_trip)
{
    for (uint64_t seed = 0; seed < 300; seed++) {
        ravel_module *mod = rv_gen_from_seed(seed, NULL);
        char *text = print_module(mod);
        ravel_diags *d = ravel_diags_new();
        ravel_module *back = ravel_module_parse(text, strlen(text), "gen.ra", d);
        bool ok = back && ravel_diags_count(d) == 0 && back->funcs.len == 1 &&
                  rv_func_equal(mod->funcs.data[0], back->funcs.data[0]);
        if (!ok) {
            ravel_diags_print(stderr, d);
            fprintf(stderr, "round trip failed for seed %llu:\n%s", (unsigned long long)seed, text);
            CHECK(0);
        }
        if (back) {
            char *again = print_module(back);
            CHECK_STR(text, again);
            free(again);
        }
        free(text);
        ravel_diags_free(d);
        ravel_module_free(back);
        ravel_module_free(mod);
        if (!ok) return;
    }
}

/* True if f has an irreducible retreating edge. */
static bool irreducible(const ravel_func *f)
{
    uint32_t cnt[S_COUNT_] = {0};
    scan_shapes(f, cnt);
    return cnt[S_IRRED_FUNC] != 0;
}

/* Every generated function stops well within the interpreter's step limit,
 * irreducible ones (bounded by their tangles' fuel) included. */
TEST(terminates)
{
    uint64_t inputs[6] = {1, 2, 3, 0xffffffffffffffffULL, 0x8000000000000000ULL, 7};
    uint32_t nirred = 0;
    for (uint64_t seed = 0; seed < 400; seed++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        if (seed % 4 == 3) o.max_insts = 2000, o.max_blocks = 200;
        ravel_module *mod = rv_gen_from_seed(seed, &o);
        nirred += irreducible(mod->funcs.data[0]);
        rv_run_opts ro = {inputs, seed % 6, 2000000, seed % 2 == 0, false, 0}; /* a runaway fails fast */
        rv_run_result r;
        memset(&r, 0, sizeof r);
        int st = rv_interp_run(mod->funcs.data[0], &ro, &r);
        if (st != RV_RUN_OK || r.status != RV_RUN_OK || r.steps > 1000000) {
            fprintf(stderr, "seed %llu: status %d steps %llu %s\n", (unsigned long long)seed, r.status,
                    (unsigned long long)r.steps, r.msg);
            CHECK(0);
        }
        rv_run_result_free(&r);
        ravel_module_free(mod);
    }
    printf("terminates: 400 functions, %u irreducible\n", nirred);
    CHECK(nirred >= 80);
}

TEST(sizes)
{
    const uint32_t sizes[] = {1, 2, 3, 10, 250, 10000, 100000};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = sizes[i];
        o.max_blocks = sizes[i] / 8 + 1;
        uint32_t maxn = 0;
        for (uint64_t seed = 0; seed < (sizes[i] > 1000 ? 3u : 50u); seed++) {
            ravel_module *mod = rv_gen_from_seed(seed, &o);
            const ravel_func *f = mod->funcs.data[0];
            CHECK(good_module(mod, &o, "sizes"));
            uint32_t n = count_orig_insts(f);
            if (n > maxn) maxn = n;
            ravel_module_free(mod);
        }
        CHECK(maxn <= sizes[i]);
        CHECK(maxn * 2 >= sizes[i]); /* the target is reached, not just bounded */
    }
}

int main(void)
{
    RUN(valid_tiny_inputs);
    RUN(valid_constant_inputs);
    RUN(valid_random_inputs);
    RUN(valid_seeds_and_options);
    RUN(every_feature_appears);
    RUN(feature_switches);
    RUN(pressure_knob);
    RUN(window_knob);
    RUN(spread_over_blocks);
    RUN(golden_output);
    RUN(any_cfg_shapes);
    RUN(machine_invariants);
    RUN(deterministic);
    RUN(print_parse_round_trip);
    RUN(terminates);
    RUN(sizes);
    return TEST_SUMMARY();
}
