/* test_validate_fast.c - ravel_validate's fast path against its careful path
 * (ir/validate.h). ravel_validate must answer exactly as the careful passes
 * alone: the same status and the same diagnostics (count, order, text,
 * dropped count), with and without RAVEL_VALIDATE_SSA, on
 *   - generated functions (valid: the fast path must accept every one, or it
 *     would be a fast path in name only),
 *   - the same functions given a plausible allocation (locations, stackmaps:
 *     valid allocated functions, also accepted by the fast path),
 *   - the same functions printed and read back (source positions, quoted
 *     source lines),
 *   - the outputs of every built-in allocator (edits, stackmaps),
 *   - thousands of mutants of all of these, one or two random edits each
 *     (vregs, classes, successors, arguments, parameters, constraints,
 *     locations, flags, opcodes, operand counts, instruction order), most of
 *     them invalid.
 * The key property: whenever rv_validate_fast accepts a function, the careful
 * path reports nothing. Counters make sure the mutants do reach both
 * answers (the comparison is not vacuous). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "fuzz/gen.h"
#include "ir/validate.h"
#include "tests/test.h"
#include "ir/rng.h"

#include <stdlib.h>

static uint32_t pick(uint64_t *s, uint32_t n) { return n ? (uint32_t)(rv_rng_next(s) % n) : 0; }

typedef struct outcome {
    int status;
    uint32_t n, dropped;
    char **msgs;
} outcome;

static outcome run(const ravel_func *f, unsigned flags, bool careful, uint32_t max)
{
    ravel_diags *d = ravel_diags_new();
    if (max) d->max = max;
    outcome o = {careful ? rv_validate_careful(f, flags, d) : ravel_validate(f, flags, d), d->v.len, d->dropped, NULL};
    o.msgs = calloc(o.n ? o.n : 1, sizeof *o.msgs);
    for (uint32_t i = 0; i < o.n; i++) {
        const rv_diag *g = &d->v.data[i];
        size_t len = strlen(g->msg) + (g->srcline ? strlen(g->srcline) : 0) + 32;
        o.msgs[i] = malloc(len);
        snprintf(o.msgs[i], len, "%s | %u:%u | %s", g->msg, g->line, g->col, g->srcline ? g->srcline : "-");
    }
    ravel_diags_free(d);
    return o;
}

static void outcome_free(outcome *o)
{
    for (uint32_t i = 0; i < o->n; i++) free(o->msgs[i]);
    free(o->msgs);
}

typedef struct stats {
    unsigned funcs, fast_ok, careful_ok, careful_einval, careful_efail, mismatches;
} stats;

/* Compares both paths in both modes; returns true if they agree. */
static bool same_answers(const ravel_func *f, stats *st, const char *what, uint64_t seed)
{
    bool fast = rv_validate_fast(f), ok = true;
    st->funcs++;
    st->fast_ok += fast;
    for (int mode = 0; mode < 2; mode++) {
        unsigned flags = mode ? RAVEL_VALIDATE_SSA : 0;
        uint32_t max = mode ? 0 : 2; /* also a small limit: the dropped count must match */
        outcome a = run(f, flags, true, max), b = run(f, flags, false, max);
        bool eq = a.status == b.status && a.n == b.n && a.dropped == b.dropped;
        for (uint32_t i = 0; eq && i < a.n; i++) eq = strcmp(a.msgs[i], b.msgs[i]) == 0;
        if (fast && (a.status != RAVEL_OK || a.n || a.dropped)) eq = false; /* fast accepted an invalid function */
        if (mode) {
            st->careful_ok += a.status == RAVEL_OK;
            st->careful_einval += a.status == RAVEL_EINVAL;
            st->careful_efail += a.status == RAVEL_EFAIL;
        }
        if (!eq) {
            ok = false;
            fprintf(stderr, "%s (seed %llu, flags %u, fast %d): careful %d (%u msgs%s%s), ravel_validate %d (%u msgs%s%s)\n",
                    what, (unsigned long long)seed, flags, fast, a.status, a.n, a.n ? ": " : "", a.n ? a.msgs[0] : "",
                    b.status, b.n, b.n ? ": " : "", b.n ? b.msgs[0] : "");
        }
        outcome_free(&a);
        outcome_free(&b);
    }
    st->mismatches += !ok;
    return ok;
}

/* ---- plausible allocations ---- */

/* Gives every operand a location the validator accepts (fixed: its
 * register; otherwise a register of its class or a slot) and every
 * safepoint an empty stackmap. */
static void allocate_plainly(ravel_func *f, uint64_t *rs)
{
    const ravel_machine *m = f->mach;
    for (uint32_t i = 0; i < f->insts.len; i++) {
        rv_inst *in = &f->insts.data[i];
        if (rv_is_edit(in)) continue;
        for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) {
            rv_operand *o = &rv_inst_ops(f, in)[k];
            const rv_class *c = &m->classes.data[f->vregs.data[o->vreg].cls];
            if (o->kind == RAVEL_C_FIXED) o->loc = o->arg;
            else if (o->kind == RAVEL_C_STACK || !c->alloc.len || pick(rs, 3) == 0) o->loc = ravel_slot(pick(rs, 4));
            else o->loc = c->alloc.data[pick(rs, c->alloc.len)];
        }
        if ((in->flags & RV_IF_SAFEPOINT) && !rv_is_term(in)) {
            in->flags |= RV_IF_STACKMAP;
            in->u.smap.first = 0;
            in->u.smap.n = 0;
        }
    }
}

/* ---- mutations: each keeps every array index the validator trusts in range ---- */

static rv_inst *some_inst(ravel_func *f, uint64_t *rs) { return &f->insts.data[pick(rs, f->insts.len)]; }

static rv_operand *some_operand(ravel_func *f, uint64_t *rs, bool defs)
{
    for (int tries = 0; tries < 16; tries++) {
        rv_inst *in = some_inst(f, rs);
        uint32_t n = defs ? in->ndefs : in->nuses;
        if (rv_is_edit(in) || !n) continue;
        return &rv_inst_ops(f, in)[(defs ? 0 : in->ndefs) + pick(rs, n)];
    }
    return NULL;
}

/* A term's successor (jump/br only), or NULL. */
static rv_succ *some_succ(ravel_func *f, uint64_t *rs)
{
    for (int tries = 0; tries < 16; tries++) {
        rv_inst *in = some_inst(f, rs);
        uint32_t ns = rv_inst_nsuccs(in);
        if (ns) return &f->succs.data[in->u.succ.first + pick(rs, ns)];
    }
    return NULL;
}

static uint32_t some_vreg(ravel_func *f, uint64_t *rs) { return pick(rs, f->vregs.len + 2); } /* may be out of range */

static ravel_loc some_loc(ravel_func *f, uint64_t *rs)
{
    switch (pick(rs, 5)) {
    case 0: return RAVEL_LOC_NONE;
    case 1: return pick(rs, f->mach->regs.len + 1); /* may be out of range */
    case 2: return ravel_slot(pick(rs, 3));
    case 3: return ravel_slot(RAVEL_MAX_SLOT + pick(rs, 2)); /* the last slot, or beyond */
    default: return f->mach->regs.len ? pick(rs, f->mach->regs.len) : 0;
    }
}

static void swap_insts(ravel_func *f, uint64_t *rs)
{
    uint32_t b = pick(rs, f->layout.len);
    rv_block *bl = &f->blocks.data[b];
    if (bl->ninsts < 2) return;
    uint32_t i = bl->first_inst + pick(rs, bl->ninsts), j = bl->first_inst + pick(rs, bl->ninsts);
    rv_inst t = f->insts.data[i];
    f->insts.data[i] = f->insts.data[j];
    f->insts.data[j] = t;
}

static void mutate_op(ravel_func *f, uint64_t *rs)
{
    rv_inst *in = some_inst(f, rs);
    if (rv_is_edit(in)) return;
    static const uint8_t non_term[] = {RAVEL_OP_ADD, RAVEL_OP_COPY, RAVEL_OP_CONST, RAVEL_OP_OUT};
    if (in->op == RAVEL_OP_JUMP || in->op == RAVEL_OP_BR) {
        uint8_t to[] = {RAVEL_OP_JUMP, RAVEL_OP_BR, RAVEL_OP_RET, RAVEL_OP_ADD};
        in->op = to[pick(rs, 4)];
    } else if (in->op == RAVEL_OP_RET) {
        in->op = non_term[pick(rs, 4)];
    } else if (pick(rs, 4) == 0) { /* an instruction becomes an edit: the function becomes allocated */
        in->op = (uint8_t)(RAVEL_OP_SPILL + pick(rs, 3));
        in->u.edit.dst = some_loc(f, rs);
        in->u.edit.src = some_loc(f, rs);
    } else if (in->op != RAVEL_OP_OTHER && in->op != RAVEL_OP_CALL) {
        in->op = non_term[pick(rs, 4)];
    }
}

/* Inserts an edit (mostly of a valid kind) at a random place of a block,
 * the terminator's too (then after it); operands stay in order. */
static void insert_edit(ravel_func *f, uint64_t *rs)
{
    uint32_t b = pick(rs, f->layout.len), p = f->blocks.data[b].first_inst + pick(rs, f->blocks.data[b].ninsts + 1);
    rv_vec_reserve(f->insts, 1);
    rv_inst e = {.op = (uint8_t)(RAVEL_OP_SPILL + pick(rs, 3)), .name = RAVEL_NONE};
    e.first_op = p < f->insts.len ? f->insts.data[p].first_op : f->ops.len;
    bool dslot = e.op == RAVEL_OP_SPILL, sslot = e.op == RAVEL_OP_RELOAD;
    if (pick(rs, 4) == 0) dslot = pick(rs, 2), sslot = pick(rs, 2); /* maybe the wrong kind */
    uint32_t nregs = f->mach->regs.len ? f->mach->regs.len : 1;
    e.u.edit.dst = dslot ? ravel_slot(pick(rs, 3)) : pick(rs, nregs);
    e.u.edit.src = sslot ? ravel_slot(pick(rs, 3)) : pick(rs, nregs);
    if (pick(rs, 8) == 0) e.u.edit.src = some_loc(f, rs);
    memmove(&f->insts.data[p + 1], &f->insts.data[p], sizeof *f->insts.data * (f->insts.len - p));
    f->insts.data[p] = e;
    f->insts.len++;
    for (uint32_t k = 0; k < f->layout.len; k++)
        if (k != b && f->blocks.data[k].first_inst >= p) f->blocks.data[k].first_inst++;
    f->blocks.data[b].ninsts++;
}

/* An operand no instruction reads carries a location: the function is
 * allocated for the careful path (rv_func_is_allocated), so every operand
 * without a location is an error. */
static void orphan_location(ravel_func *f, uint64_t *rs)
{
    rv_inst *in = some_inst(f, rs);
    if (!rv_is_edit(in) && in->nuses && pick(rs, 2)) {
        in->nuses--;
        f->ops.data[in->first_op + in->ndefs + in->nuses].loc = f->mach->regs.len ? 0 : ravel_slot(0);
        return;
    }
    rv_operand o = {.vreg = 0, .loc = ravel_slot(1)};
    rv_vec_push(f->ops, o);
}

/* The terminator takes over the last def of the instruction before it (when
 * their operands are adjacent): a terminator with a def. */
static void term_takes_def(ravel_func *f, uint64_t *rs)
{
    const rv_block *bl = &f->blocks.data[pick(rs, f->layout.len)];
    if (bl->ninsts < 2) return;
    rv_inst *t = &f->insts.data[bl->first_inst + bl->ninsts - 1], *p = t - 1;
    if (!rv_is_term(t) || rv_is_edit(p) || p->ndefs == 0 || p->nuses || p->first_op + p->ndefs != t->first_op) return;
    p->ndefs--;
    t->first_op--;
    t->ndefs++;
}

static void mutate(ravel_func *f, uint64_t *rs)
{
    rv_operand *o;
    rv_succ *s;
    rv_inst *in;
    rv_block *bl;
    rv_vreg *v;
    switch (pick(rs, 22)) {
    case 0: /* a use reads another vreg */
    case 1:
        if ((o = some_operand(f, rs, false))) o->vreg = some_vreg(f, rs);
        break;
    case 2: /* a def writes another vreg */
        if ((o = some_operand(f, rs, true))) o->vreg = some_vreg(f, rs);
        break;
    case 3: /* an edge passes another vreg */
        if ((s = some_succ(f, rs)) && s->nargs) f->u32.data[s->first_arg + pick(rs, s->nargs)] = some_vreg(f, rs);
        break;
    case 4: /* an edge goes elsewhere (the entry, an undefined label, a join) */
        if ((s = some_succ(f, rs))) s->block = pick(rs, f->layout.len + 1 < f->blocks.len ? f->layout.len + 1 : f->blocks.len);
        break;
    case 5: /* an edge passes one argument fewer */
        if ((s = some_succ(f, rs)) && s->nargs) s->nargs--;
        break;
    case 6: /* a block loses a parameter */
        bl = &f->blocks.data[pick(rs, f->layout.len)];
        if (bl->nparams) bl->nparams--;
        break;
    case 7: /* a parameter is another vreg */
        bl = &f->blocks.data[pick(rs, f->layout.len)];
        if (bl->nparams) f->u32.data[bl->first_param + pick(rs, bl->nparams)] = some_vreg(f, rs);
        break;
    case 8: /* a constraint changes */
        if ((o = some_operand(f, rs, pick(rs, 2)))) {
            o->kind = (uint8_t)pick(rs, 6);
            o->arg = (uint16_t)pick(rs, f->mach->regs.len + 2);
        }
        break;
    case 9: /* a location changes */
        if ((o = some_operand(f, rs, pick(rs, 2)))) o->loc = some_loc(f, rs);
        break;
    case 10: /* a vreg's class changes or is lost; .ref flips */
        if (!f->vregs.len) break;
        v = &f->vregs.data[pick(rs, f->vregs.len)];
        switch (pick(rs, 3)) {
        case 0: v->has_class = false; break;
        case 1: v->cls = (uint8_t)pick(rs, f->mach->classes.len + 1); break;
        default: v->ref = !v->ref; break;
        }
        break;
    case 11: /* safepoint and stackmap flags */
        in = some_inst(f, rs);
        if (!rv_is_edit(in) && !rv_is_term(in)) {
            in->flags ^= pick(rs, 2) ? RV_IF_SAFEPOINT : RV_IF_STACKMAP;
            if (in->flags & RV_IF_STACKMAP) in->u.smap.n = 0;
        }
        break;
    case 12:
        mutate_op(f, rs);
        break;
    case 13: /* two instructions of a block swap (terminator inside, uses before defs) */
        swap_insts(f, rs);
        break;
    case 14: /* a def becomes a use, or the last use goes */
        in = some_inst(f, rs);
        if (rv_is_edit(in)) break;
        if (in->ndefs && pick(rs, 2)) {
            in->ndefs--;
            in->first_op++;
            if (pick(rs, 2)) {
                in->first_op--;
                in->nuses++;
            }
        } else if (in->nuses) {
            in->nuses--;
        }
        break;
    case 15: /* an immediate appears on a jump, br or copy */
        in = some_inst(f, rs);
        if (!rv_is_edit(in) && (in->op == RAVEL_OP_JUMP || in->op == RAVEL_OP_BR || in->op == RAVEL_OP_COPY)) in->nimms++;
        break;
    case 16: /* the function loses its first location (if any) or gains one */
        if ((o = some_operand(f, rs, pick(rs, 2))))
            o->loc = o->loc == RAVEL_LOC_NONE ? (f->mach->regs.len ? 0 : ravel_slot(0)) : RAVEL_LOC_NONE;
        break;
    case 17: /* an instruction becomes a ret (the block ends early) */
        in = some_inst(f, rs);
        if (!rv_is_edit(in) && !rv_is_term(in)) in->op = RAVEL_OP_RET;
        break;
    case 18:
        insert_edit(f, rs);
        break;
    case 19:
        orphan_location(f, rs);
        break;
    case 20:
        term_takes_def(f, rs);
        break;
    default: /* a use of a vreg defined later in the same block, or of its own def */
        in = some_inst(f, rs);
        if (!rv_is_edit(in) && in->ndefs && in->nuses) rv_inst_uses(f, in)[pick(rs, in->nuses)].vreg = rv_inst_defs(f, in)[0].vreg;
        break;
    }
}

/* count mutants of f (one or two mutations each), each compared. */
static void mutants(const ravel_func *f, uint64_t seed, unsigned count, stats *st, const char *what)
{
    uint64_t rs = seed;
    for (unsigned k = 0; k < count; k++) {
        ravel_func *g = rv_func_clone(f);
        g->file = f->file;
        g->src = f->src;
        g->srclen = f->srclen;
        unsigned edits = 1 + pick(&rs, 2);
        for (unsigned e = 0; e < edits; e++) mutate(g, &rs);
        CHECK(same_answers(g, st, what, seed * 1000 + k));
        ravel_func_free(g);
    }
}

/* Prints f's module and reads it back (source positions and lines). */
static ravel_module *reparse(const ravel_module *mod)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    if (!fp) return NULL;
    rv_print_module(fp, mod);
    fclose(fp);
    ravel_diags *d = ravel_diags_new();
    ravel_module *r = ravel_module_parse(text, len, "gen.ra", d);
    ravel_diags_free(d);
    free(text);
    return r;
}

static void options(rv_gen_opts *o, uint64_t seed)
{
    rv_gen_opts_default(o);
    o->cfg = RV_GEN_CFG_STRUCTURED; /* the fast path declines irreducible CFGs (validate.c), and these
                                       tests require it to take every generated function */
    o->max_insts = 20 + (uint32_t)(seed % 5) * 30;
    if (seed % 7 == 3) o->features &= ~(unsigned)RV_GEN_LOOPS;
    if (seed % 5 == 1) o->features &= ~(unsigned)RV_GEN_PARAMS;
}

TEST(generated_functions_take_the_fast_path)
{
    stats st = {0};
    for (uint64_t seed = 1; seed <= 300; seed++) {
        rv_gen_opts o;
        options(&o, seed);
        ravel_module *m = rv_gen_from_seed(seed, &o);
        const ravel_func *f = ravel_module_func(m, 0);
        CHECK(rv_validate_fast(f));
        CHECK(same_answers(f, &st, "generated", seed));
        ravel_func *g = rv_func_clone(f);
        uint64_t rs = seed;
        allocate_plainly(g, &rs);
        CHECK(rv_validate_fast(g));
        CHECK(same_answers(g, &st, "allocated", seed));
        ravel_func_free(g);
        ravel_module_free(m);
    }
    CHECK_EQ_INT(st.fast_ok, 600);
    CHECK_EQ_INT(st.careful_ok, 600);
    CHECK_EQ_INT(st.mismatches, 0);
}

TEST(mutants_answer_as_the_careful_path)
{
    stats st = {0};
    for (uint64_t seed = 1; seed <= 120; seed++) {
        rv_gen_opts o;
        options(&o, seed);
        ravel_module *m = rv_gen_from_seed(seed, &o);
        const ravel_func *f = ravel_module_func(m, 0);
        mutants(f, seed, 12, &st, "mutant");
        ravel_func *g = rv_func_clone(f);
        uint64_t rs = seed ^ 0xabcdef;
        allocate_plainly(g, &rs);
        mutants(g, seed + 7777, 12, &st, "allocated mutant");
        ravel_func_free(g);
        ravel_module *p = reparse(m);
        CHECK(p && ravel_module_nfuncs(p) == 1);
        if (p && ravel_module_nfuncs(p) == 1) {
            CHECK(ravel_module_func(p, 0)->line != 0); /* positioned messages */
            mutants(ravel_module_func(p, 0), seed + 99999, 6, &st, "parsed mutant");
        }
        ravel_module_free(p);
        ravel_module_free(m);
    }
    fprintf(stderr, "mutants: %u, fast path accepted %u, careful (--ssa): %u ok, %u einval, %u efail\n", st.funcs,
            st.fast_ok, st.careful_ok, st.careful_einval, st.careful_efail);
    CHECK_EQ_INT(st.mismatches, 0);
    /* the mutants exercise every answer, so the comparison is not vacuous */
    CHECK(st.careful_einval > st.funcs / 10);
    CHECK(st.careful_efail > st.funcs / 10);
    CHECK(st.fast_ok > st.funcs / 20);
    CHECK(st.careful_ok >= st.fast_ok);
}

/* The allocators' outputs (edits, stackmaps, real locations): valid, taken
 * by the fast path, and their mutants answered as by the careful path. */
TEST(allocated_outputs)
{
    stats st = {0};
    unsigned outputs = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        rv_gen_opts o;
        options(&o, seed);
        ravel_module *m = rv_gen_from_seed(seed, &o);
        const ravel_func *f = ravel_module_func(m, 0);
        for (size_t a = 0; ravel_allocator_name(a); a++) {
            ravel_func *out = NULL;
            char *err = NULL;
            if (ravel_allocate(ravel_allocator_name(a), f, seed, &out, &err) == RAVEL_OK && out) {
                outputs++;
                CHECK(rv_validate_fast(out));
                CHECK(same_answers(out, &st, ravel_allocator_name(a), seed));
                mutants(out, seed * 31 + a, 4, &st, "allocator output mutant");
            }
            ravel_func_free(out);
            free(err);
        }
        ravel_module_free(m);
    }
    CHECK(outputs >= 40);
    CHECK_EQ_INT(st.mismatches, 0);
}

/* b0: v0 = args; v1 = add v0, v0; ret v1 - operands 0 | 1 2 3 | 4. */
static ravel_func *small(const ravel_machine *m)
{
    ravel_func *f = ravel_func_new(m, "f");
    uint32_t v0 = ravel_vreg_new(f, 0, 0), v1 = ravel_vreg_new(f, 0, 0);
    ravel_block_begin(f, ravel_block_new(f, NULL));
    ravel_inst_begin(f, RAVEL_OP_ARGS, NULL);
    ravel_inst_def(f, v0, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_ADD, NULL);
    ravel_inst_def(f, v1, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_use(f, v0, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_use(f, v0, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_RET, NULL);
    ravel_inst_use(f, v1, RAVEL_C_REG, 0, RAVEL_POS_DEFAULT, RAVEL_LOC_NONE);
    ravel_inst_end(f);
    ravel_func_finish(f);
    return f;
}

/* Without any location the fast path must know that no operand carries
 * one, even those no instruction reads (the careful path asks
 * rv_func_is_allocated, which scans every operand). */
TEST(unread_operands_with_locations)
{
    ravel_machine *m = ravel_machine_new();
    ravel_machine_add_class(m, "int");
    ravel_machine_add_reg(m, "r0", 0, 0);
    ravel_func *f = small(m);
    stats st = {0};
    CHECK_EQ_INT(f->ops.len, 5);
    CHECK_EQ_INT(f->insts.data[2].first_op, 4);
    CHECK(rv_validate_fast(f));
    /* ret reads operand 3 (v0) instead: operand 4 is read by nobody; the
     * operand counts still add up to ops.len */
    f->insts.data[2].first_op = 3;
    CHECK(rv_validate_fast(f)); /* no location anywhere: valid, and known to be */
    CHECK(same_answers(f, &st, "unread operand", 0));
    f->ops.data[4].loc = 0; /* now allocated, every operand without a location */
    CHECK(!rv_validate_fast(f));
    CHECK_EQ_INT(rv_validate_careful(f, 0, NULL), RAVEL_EFAIL);
    CHECK(same_answers(f, &st, "unread operand with a location", 0));
    f->ops.data[4].loc = RAVEL_LOC_NONE;
    f->insts.data[2].first_op = 4;
    rv_operand extra = {.vreg = 0, .loc = ravel_slot(0)}; /* one more, after the last instruction's */
    rv_vec_push(f->ops, extra);
    CHECK(!rv_validate_fast(f));
    CHECK_EQ_INT(rv_validate_careful(f, 0, NULL), RAVEL_EFAIL);
    CHECK(same_answers(f, &st, "operand after the last with a location", 0));
    CHECK_EQ_INT(st.mismatches, 0);
    ravel_func_free(f);
    ravel_machine_free(m);
}

int main(void)
{
    RUN(unread_operands_with_locations);
    RUN(allocated_outputs);
    RUN(generated_functions_take_the_fast_path);
    RUN(mutants_answer_as_the_careful_path);
    return TEST_SUMMARY();
}
