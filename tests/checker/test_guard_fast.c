/* test_guard_fast.c - the guard's fast path (ck_guard.c) against the guard
 * without it (CK_OPT_NO_FAST_GUARD: guard_inst on every instruction, the
 * rules on every instruction - the checker before the guard and the rules'
 * operand scan were fused). For generated functions allocated by every
 * allocator, each allocation is mutated harshly: locations (none, past the
 * registers, past RAVEL_MAX_SLOT, slots never used), constraint kinds and
 * arguments, positions, vregs, overlapping operands (one location, or
 * registers that overlap), edit opcodes, opcodes
 * (terminators, edits and bad ones in the middle of a block), attributes,
 * stackmap slots and clobbers. Every mutant is checked with and without
 * the original function, with and without the validator, by both
 * contexts; verdicts and report texts must be identical, and so must the
 * guard's own verdict, diagnostics, slot count and suspicion. Prints how
 * many checks gave each verdict; fails if any differ or a verdict (or a
 * suspect guard) never occurs. Mutated originals (unallocated: the guard's
 * fast path for operands without locations) are compared the same way.
 * Half as many functions again are generated on aliased machines with
 * undef and remat (docs/format.md section 14): there the rules count
 * overlap, which the guard's fast path does not see (ck_rules.c,
 * rules_alias); some of their mutants must have overlapping operands.
 * Usage: test_guard_fast [NFUNCS] [MUTANTS_PER_ALLOCATION] */
#define _POSIX_C_SOURCE 200809L
#include "allocator/alloc.h" /* rv_rng_next */
#include "checker/ck.h"
#include "tests/checker/report_text.h"
#include "fuzz/gen.h"
#include "ir/ir.h"
#include "tests/support/each.h"

#include <stdlib.h>
#include <string.h>

static uint32_t below(uint64_t *s, uint32_t n) { return n ? rv_rng_below(s, n) : 0; } /* 0 for an empty range */

/* Mostly real locations, sometimes none or ones that do not exist. */
static ravel_loc random_loc(const ravel_func *f, uint64_t *s)
{
    uint32_t nslots = f->nslots ? f->nslots : 1;
    switch (below(s, 12)) {
    case 0: return RAVEL_LOC_NONE;
    case 1: return f->mach->regs.len + below(s, 3);
    case 2: return ravel_slot(RAVEL_MAX_SLOT + below(s, 3));
    case 3: return ravel_slot(nslots + below(s, 3));
    case 4: case 5: case 6: return ravel_slot(below(s, nslots));
    default: return below(s, f->mach->regs.len);
    }
}

/* Applies one random mutation. */
static void mutate(ravel_func *f, uint64_t *s)
{
    for (int tries = 0; tries < 40; tries++) {
        rv_inst *in = &f->insts.data[below(s, f->insts.len)];
        uint32_t n = (uint32_t)in->ndefs + in->nuses;
        bool plain = !rv_is_edit(in) && !rv_is_term(in);
        bool in_range = (uint64_t)in->first_op + n <= f->ops.len; /* (the mutations themselves break ranges) */
        rv_operand *o = n && !rv_is_edit(in) && in_range ? &f->ops.data[in->first_op + below(s, n)] : NULL;
        switch (below(s, 19)) {
        case 0: case 1:
            if (!o) continue;
            o->loc = random_loc(f, s);
            return;
        case 2:
            if (!rv_is_edit(in)) continue;
            if (below(s, 2)) in->u.edit.src = random_loc(f, s);
            else in->u.edit.dst = random_loc(f, s);
            return;
        case 3:
            if (!rv_is_edit(in)) continue;
            in->op = (uint8_t)(RAVEL_OP_SPILL + below(s, 3));
            return;
        case 4:
            if (!o) continue;
            o->kind = (uint8_t)below(s, 6);
            if (o->kind == RAVEL_C_FIXED) o->arg = (uint16_t)below(s, f->mach->regs.len + 1);
            if (o->kind == RAVEL_C_REUSE) o->arg = (uint16_t)below(s, in->nuses + 1u);
            return;
        case 5:
            if (!o) continue;
            o->flags ^= (uint8_t)(1u << below(s, 2)); /* def / late */
            return;
        case 6:
            if (!o) continue;
            o->vreg = below(s, f->vregs.len + 2); /* sometimes out of range */
            return;
        case 7:
            if (!o) continue;
            o->loc = f->ops.data[in->first_op + below(s, n)].loc; /* overlaps */
            return;
        case 8:
            if (!plain) continue;
            in->flags ^= (uint8_t)(1u << below(s, 3));
            if ((in->flags & RV_IF_STACKMAP) && in->u.smap.first + in->u.smap.n > f->u32.len) in->u.smap.n = 0;
            if ((in->flags & RV_IF_CLOBBERS) && in->first_clob + in->nclob > f->u32.len) in->nclob = 0;
            return;
        case 9:
            if (!plain) continue;
            in->op = (uint8_t)(below(s, 4) ? below(s, RAVEL_OP_JUMP) : below(s, RAVEL_OP_COUNT_ + 1));
            return;
        case 10:
            if (!rv_is_edit(in)) continue;
            in->op = (uint8_t)below(s, RAVEL_OP_COUNT_ + 1);
            if (!rv_is_edit(in)) {
                in->ndefs = in->nuses = in->nimms = 0;
                in->flags = 0;
                in->u.succ.n = 0;
            }
            return;
        case 11:
            if (!plain || !(in->flags & RV_IF_STACKMAP) || !in->u.smap.n || (uint64_t)in->u.smap.first + in->u.smap.n > f->u32.len)
                continue;
            f->u32.data[in->u.smap.first + below(s, in->u.smap.n)] = below(s, 3) ? below(s, f->nslots + 2) : RAVEL_MAX_SLOT + 1;
            return;
        case 12:
            if (!plain || !(in->flags & RV_IF_CLOBBERS) || !in->nclob || (uint64_t)in->first_clob + in->nclob > f->u32.len)
                continue;
            f->u32.data[in->first_clob + below(s, in->nclob)] = below(s, f->mach->regs.len + 2);
            return;
        case 13:
            if (!o) continue;
            o->arg = (uint16_t)below(s, f->mach->regs.len + 2);
            return;
        case 14: /* a successor: its block, an argument, the number of arguments */
            if (rv_inst_nsuccs(in) == 0) continue;
            {
                uint32_t k = in->u.succ.first + below(s, rv_inst_nsuccs(in));
                if (k >= f->succs.len) continue;
                rv_succ *sc = &f->succs.data[k];
                uint32_t w = below(s, 4);
                if (w == 0) sc->block = below(s, f->blocks.len + 1);
                else if (w == 1 && sc->nargs && sc->first_arg + sc->nargs <= f->u32.len)
                    f->u32.data[sc->first_arg + below(s, sc->nargs)] = below(s, f->vregs.len);
                else if (w == 2 && sc->nargs) sc->nargs--;
                else in->u.succ.n = (uint32_t)below(s, 4);
            }
            return;
        case 17: /* an operand's vreg loses its class, or gets one the machine does not have */
            if (!o || o->vreg >= f->vregs.len) continue;
            if (below(s, 2)) f->vregs.data[o->vreg].has_class = false;
            else f->vregs.data[o->vreg].cls = f->mach->classes.len + below(s, 2);
            return;
        case 15: /* a terminator becomes an operation or another terminator */
            if (!rv_is_term(in)) continue;
            in->op = (uint8_t)(below(s, 2) ? below(s, RAVEL_OP_JUMP) : RAVEL_OP_JUMP + below(s, 6)); /* edits too */
            return;
        case 16: /* a range that does not fit */
            switch (below(s, 6)) {
            case 0: in->first_op = f->ops.len - below(s, 2); break;
            case 1: in->first_imm = f->imms.len + below(s, 2); in->nimms = (uint16_t)(in->nimms + 1); break;
            case 2: in->first_clob = f->u32.len - below(s, 2); in->nclob += 1; break;
            case 3: in->u.smap.first = f->u32.len - below(s, 2); break;
            case 4: in->u.succ.first = f->succs.len - below(s, 2); break;
            default: in->first_op = 0xfffffff0u; break;
            }
            return;
        case 18: { /* a def and another operand move to registers that overlap, where the rules forbid it (section 14) */
            if (!o || !in->ndefs || n < 2) continue;
            rv_operand *p = &f->ops.data[in->first_op], *q = &f->ops.data[in->first_op + 1 + below(s, n - 1)];
            const uint32_t *ov = NULL;
            uint32_t r = 0, no = 0;
            for (int t = 0; t < 8 && !no; t++) no = rv_mach_overlaps(f->mach, r = below(s, f->mach->regs.len), &ov);
            if (!no) continue;
            p->loc = r;
            q->loc = ov[below(s, no)];
            if (q - p >= in->ndefs && rv_op_is_late(p)) { /* a use: an early def or a late use */
                if (below(s, 2)) q->flags |= RV_OPF_LATE;
                else p->flags &= (uint8_t)~RV_OPF_LATE;
            }
            return;
        }
        }
    }
}


typedef struct stats {
    uint64_t checks, ok, efail, einval, differ, suspect;
    uint64_t opairs; /* checks of a function whose operands overlap (aliased machine) */
} stats;

/* The guard alone (ck_guard, as ravel_check calls it for the allocated
 * function with record, for the original without) by ck and by ref: the
 * same verdict, diagnostics, slot count and suspicion (the validator runs
 * exactly as often). */
static void guard_both(ravel_checker *ck, ravel_checker *ref, const ravel_func *g, bool record, stats *st)
{
    ravel_report *a = ck_report_new(), *b = ck_report_new();
    uint32_t na = 0, nb = 0;
    bool sa = false, sb = false;
    ck->guard.grecord = ref->guard.grecord = record;
    bool oa = ck_guard(ck, g, a, &na, &sa), ob = ck_guard(ref, g, b, &nb, &sb);
    ck->guard.grecord = ref->guard.grecord = false;
    bool same = oa == ob && na == nb && sa == sb && a->bad_input.len == b->bad_input.len;
    for (uint32_t i = 0; same && i < a->bad_input.len; i++) same = strcmp(a->bad_input.data[i], b->bad_input.data[i]) == 0;
    if (oa && sa) st->suspect++;
    if (!same && st->differ++ < 3)
        fprintf(stderr, "guards differ: ok %d/%d, slots %u/%u, suspect %d/%d, %u/%u diagnostics\n", oa, ob, na, nb, sa, sb,
                a->bad_input.len, b->bad_input.len);
    ravel_report_free(a);
    ravel_report_free(b);
}

/* ravel_check by ck and by ref (the same options but no fast guard). */
static void check_both(ravel_checker *ck, ravel_checker *ref, const ravel_func *g, const ravel_func *orig, stats *st)
{
    ravel_report *a = NULL, *b = NULL;
    int rc = ravel_check(ck, g, orig, &a), rr = ravel_check(ref, g, orig, &b);
    char *ta = report_text(a), *tb = report_text(b);
    st->checks++;
    if (rc != RAVEL_EINVAL && ck->ext.opairs) st->opairs++; /* (ext: of this check, when it got past the guard) */
    if (rc == RAVEL_OK) st->ok++;
    else if (rc == RAVEL_EFAIL) st->efail++;
    else if (rc == RAVEL_EINVAL) st->einval++;
    if (rc != rr || !ta || !tb || strcmp(ta, tb) != 0) {
        if (st->differ++ < 3) {
            fprintf(stderr, "fast and plain guards differ (%d vs %d):\n--- fast\n%s--- plain\n%s", rc, rr, ta ? ta : "?", tb ? tb : "?");
            ravel_print_machine(stderr, g->mach);
            ravel_print_func(stderr, g);
        }
    }
    free(ta);
    free(tb);
    ravel_report_free(a);
    ravel_report_free(b);
}

int main(int argc, char **argv)
{
    int nfuncs = argc > 1 ? atoi(argv[1]) : 40, nmut = argc > 2 ? atoi(argv[2]) : 30;
    ravel_checker *ck[2], *ref[2];
    for (int v = 0; v < 2; v++) { /* with and without the validator */
        ck[v] = ravel_checker_new();
        ref[v] = ravel_checker_new();
        ravel_checker_set_options(ck[v], v ? RAVEL_CHECK_NO_VALIDATE : 0);
        ravel_checker_set_options(ref[v], (v ? RAVEL_CHECK_NO_VALIDATE : 0) | CK_OPT_NO_FAST_GUARD);
    }
    ravel_checker *trust = ravel_checker_new(); /* RAVEL_CHECK_ORIG_VALID */
    ravel_checker_set_options(trust, RAVEL_CHECK_ORIG_VALID);
    stats st;
    memset(&st, 0, sizeof st);
    for (int i = 0; i < nfuncs + nfuncs / 2; i++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = 30 + (uint32_t)(i % 5) * 30;
        o.max_blocks = 3 + (uint32_t)(i % 7);
        o.min_regs = 2;
        o.max_regs = 6;
        if (i >= nfuncs) o.features |= RV_GEN_ALIAS | RV_GEN_UNDEF | RV_GEN_REMAT; /* section 14: the rules count overlap */
        ravel_module *mod = rv_gen_from_seed(5000 + (uint64_t)i, &o);
        const ravel_func *f = ravel_module_func(mod, 0);
        for (ts_allocs a = ts_allocs_of(f, (uint64_t)i); ts_allocs_next(&a);) {
            ravel_func *g = a.g;
            uint64_t s = (uint64_t)i * 7919 + a.index;
            check_both(ck[0], ref[0], g, f, &st);
            for (int m = 0; m < nmut; m++) {
                ravel_func *h = rv_func_clone(g);
                int k = 1 + (int)below(&s, 3);
                for (int j = 0; j < k; j++) mutate(h, &s);
                check_both(ck[m & 1], ref[m & 1], h, (m & 2) ? f : NULL, &st);
                if (m & 2) check_both(trust, ref[0], h, f, &st); /* f validates: the same report without its guard */
                guard_both(ck[0], ref[0], h, true, &st);
                if (m % 5 == 0) check_both(ck[0], ref[0], f, h, &st); /* the mutant as the original */
                ravel_func_free(h);
                if (m % 3 == 0) { /* a mutated original (unallocated, mostly without locations) */
                    ravel_func *u = rv_func_clone(f);
                    for (int j = 0; j < k; j++) mutate(u, &s);
                    check_both(ck[m & 1], ref[m & 1], g, u, &st);
                    guard_both(ck[0], ref[0], u, false, &st);
                    ravel_func_free(u);
                }
            }
        }
        ravel_module_free(mod);
    }
    printf("%llu checks: %llu verified, %llu with errors, %llu bad input (%llu guards suspect; %llu with overlapping "
           "operands); %llu differ without the fast guard\n",
           (unsigned long long)st.checks, (unsigned long long)st.ok, (unsigned long long)st.efail,
           (unsigned long long)st.einval, (unsigned long long)st.suspect, (unsigned long long)st.opairs,
           (unsigned long long)st.differ);
    for (int v = 0; v < 2; v++) {
        ravel_checker_free(ck[v]);
        ravel_checker_free(ref[v]);
    }
    ravel_checker_free(trust);
    return st.differ != 0 || !st.ok || !st.efail || !st.einval || !st.suspect || (nfuncs >= 2 && !st.opairs);
}
