/* test_provenance.c - the provenance's words match the code they quote.
 * Generated functions are allocated by every allocator, corrupted with the
 * value bugs of the injection catalogue, printed and read back (so that
 * every instruction has a line), and checked. Every provenance line
 *   "L was spilled|reloaded|moved from S at line N"
 * must quote line N of that text: the edit `L = spill|reload|move S`; and
 * every "L was written with vK by `TEXT` at line N" must quote an
 * instruction of line N that defines vK. A wording or a line that does not
 * match (say "spilled" and "reloaded" swapped) fails here on random
 * reports, not only on a hand-written case. Every "vP is the parameter
 * bound to vA on that edge" after "(coming from Q)" must name, as vA, the
 * argument at vP's own position on Q's edge into vP's block, at every
 * parameter position (counted: positions 0, 1 and 2 must each be seen). */
#define _POSIX_C_SOURCE 200809L
#include "allocator/alloc.h"
#include "inject/inject.h"
#include "checker/ck.h"
#include "fuzz/gen.h"
#include "ir/ir.h"
#include "tests/support/each.h"
#include "tests/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Line n (1-based) of text, trimmed, into out. */
static bool line_of(const char *text, uint32_t n, char *out, size_t cap)
{
    const char *p = text;
    for (uint32_t k = 1; k < n && p; k++) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    if (!p || !*p) return false;
    while (*p == ' ') p++;
    size_t len = strcspn(p, "\n");
    while (len && (p[len - 1] == ' ' || p[len - 1] == '\r')) len--;
    if (len >= cap) len = cap - 1;
    memcpy(out, p, len);
    out[len] = 0;
    char *hash = strstr(out, "  #"); /* (a trailing comment) */
    if (hash) *hash = 0;
    return true;
}

static uint32_t checked, bad;
static uint32_t bound_at[4]; /* parameter bindings checked, per position (3: 3 and more) */

static uint32_t vreg_named(const ravel_func *f, const char *name)
{
    uint32_t num = (uint32_t)strtoul(name + 1, NULL, 10);
    for (uint32_t v = 0; v < f->vregs.len; v++)
        if (f->vregs.data[v].num == num) return v;
    return RAVEL_NONE;
}

/* "P is the parameter bound to A on that edge", after "(coming from Q)":
 * P is parameter p of a block T, and the edge from Q into T carries A at
 * position p. */
static void check_binding(const ravel_func *f, const char *from, const char *pname, const char *aname, const char *ln)
{
    uint32_t P = vreg_named(f, pname), A = vreg_named(f, aname), q = RAVEL_NONE;
    for (uint32_t b = 0; b < f->layout.len && q == RAVEL_NONE; b++)
        if (!strcmp(rv_block_name(f, b), from)) q = b;
    bool ok = false;
    uint32_t pos = 0;
    const rv_inst *t = q == RAVEL_NONE ? NULL : rv_block_term(f, &f->blocks.data[q]);
    for (uint32_t k = 0; t && k < rv_inst_nsuccs(t) && !ok; k++) {
        const rv_succ *e = &rv_inst_succs(f, t)[k];
        const rv_block *T = &f->blocks.data[e->block];
        for (uint32_t p = 0; p < T->nparams && p < e->nargs && !ok; p++)
            if (rv_block_params(f, T)[p] == P) ok = rv_succ_args(f, e)[p] == A, pos = p;
    }
    checked++;
    bound_at[pos < 3 ? pos : 3]++;
    if (!ok) {
        bad++;
        fprintf(stderr, "provenance \"%s\" (coming from %s): not the argument at that parameter's position\n", ln, from);
    }
}

static void check_provenance(const ravel_func *f, const char *text, const char *prov)
{
    char from[64] = "";
    for (const char *p = prov; p && *p;) {
        size_t len = strcspn(p, "\n");
        char ln[512], loc[64], word[32], src[64], code[512];
        unsigned line = 0;
        if (len < sizeof ln) {
            memcpy(ln, p, len);
            ln[len] = 0;
            char pn[32], an[32];
            if (sscanf(ln, "(coming from %63[^)])", from) == 1) {
                /* (the edge of the next binding) */
            } else if (strstr(ln, " is the parameter bound to ") && sscanf(ln, "%31s is the parameter bound to %31s on that edge", pn, an) == 2) {
                check_binding(f, from, pn, an, ln);
            } else if (sscanf(ln, "%63s was %31s from %63s at line %u", loc, word, src, &line) == 4 &&
                (!strcmp(word, "spilled") || !strcmp(word, "reloaded") || !strcmp(word, "moved"))) {
                const char *op = !strcmp(word, "spilled") ? "spill" : !strcmp(word, "reloaded") ? "reload" : "move";
                char want[256];
                snprintf(want, sizeof want, "%s = %s %s", loc, op, src);
                checked++;
                if (!line_of(text, line, code, sizeof code) || strcmp(code, want) != 0) {
                    bad++;
                    fprintf(stderr, "provenance \"%s\": line %u is \"%s\", not \"%s\"\n", ln, line, code, want);
                }
            } else {
                char vreg[32];
                const char *by = strstr(ln, "` at line ");
                if (sscanf(ln, "%63s was written with %31s by", loc, vreg) == 2 && by && sscanf(by, "` at line %u", &line) == 1) {
                    checked++;
                    size_t vl = strlen(vreg);
                    const char *eq = NULL;
                    bool defines = false;
                    if (line_of(text, line, code, sizeof code) && (eq = strstr(code, " = ")) != NULL) {
                        for (const char *q = code; q < eq && !defines; q++) /* vK among the defs, before " = " */
                            defines = !strncmp(q, vreg, vl) && (q == code || q[-1] == ' ' || q[-1] == ',') &&
                                      (q[vl] == ':' || q[vl] == ' ' || q[vl] == ',');
                    }
                    if (!defines) {
                        bad++;
                        fprintf(stderr, "provenance \"%s\": line %u is \"%s\", which does not define %s\n", ln, line, code, vreg);
                    }
                }
            }
        }
        p += len;
        if (*p == '\n') p++;
    }
}

/* What a test checks of one error e of ck's report on f (read back from
 * text). */
typedef void (*report_fn)(ravel_checker *ck, const ravel_func *f, const char *text, const ravel_check_error *e);

/* Checks 40 generated functions (seeds base..), allocated by every
 * allocator, with each of twelve kinds of bug injected, printed and read
 * back; fn sees every error of every report. Returns the reports. */
static uint32_t each_report(ravel_checker *ck, uint32_t base, report_fn fn)
{
    static const rv_inject_kind kinds[] = {RV_INJ_DROP_SPILL, RV_INJ_DROP_RELOAD, RV_INJ_RELOAD_SLOT, RV_INJ_SLOT_REUSE,
                                           RV_INJ_MOVE_SWAP,  RV_INJ_EDGE_MOVE,   RV_INJ_SPILL_ONE_PATH, RV_INJ_STALE_LOOP,
                                           RV_INJ_USE_REG,    RV_INJ_CALL_CLOBBER, RV_INJ_RAND_REDIRECT, RV_INJ_RAND_DROP_EDIT};
    uint32_t reports = 0;
    for (uint32_t seed = 0; seed < 40; seed++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = 120;
        ravel_module *m = rv_gen_from_seed(base + seed, &o);
        for (ts_allocs a = ts_allocs_of(ravel_module_func(m, 0), seed); ts_allocs_next(&a);)
            for (ts_injs j = ts_injs_of(a.g, kinds, sizeof kinds / sizeof *kinds, seed, false); ts_injs_next(&j);) {
                char *text;
                size_t len;
                ravel_module *back = ts_reparse(j.h, "p.ra", &text, &len);
                CHECK(back != NULL);
                ravel_report *rep = NULL;
                if (back && ravel_check(ck, ravel_module_func(back, 0), NULL, &rep) == RAVEL_EFAIL) {
                    reports++;
                    for (size_t e = 0; e < ravel_report_count(rep); e++)
                        fn(ck, ravel_module_func(back, 0), text, ravel_report_error(rep, e));
                }
                ravel_report_free(rep);
                ravel_module_free(back);
                free(text);
            }
        ravel_module_free(m);
    }
    return reports;
}

static void quote_provenance(ravel_checker *ck, const ravel_func *f, const char *text, const ravel_check_error *e)
{
    (void)ck;
    check_provenance(f, text, e->provenance);
}

TEST(provenance_quotes_its_lines)
{
    ravel_checker *ck = ravel_checker_new();
    uint32_t reports = each_report(ck, 4200, quote_provenance);
    printf("%u reports, %u provenance lines quoted, %u wrong; parameter bindings at positions 0/1/2/3+: %u/%u/%u/%u\n", reports,
           checked, bad, bound_at[0], bound_at[1], bound_at[2], bound_at[3]);
    CHECK(reports >= 100);
    CHECK(checked >= 500);
    CHECK(bound_at[0] >= 10 && bound_at[1] >= 10 && bound_at[2] >= 5);
    CHECK_EQ_INT(bad, 0);
    ravel_checker_free(ck);
}

/* ---- the notes' claims against the reference's states ---- */

static uint32_t claims, false_claims, missing_here;

static ravel_loc loc_named(const ravel_machine *m, const char *name)
{
    if (name[0] == 's' && name[1] >= '0' && name[1] <= '9') return ravel_slot((uint32_t)strtoul(name + 1, NULL, 10));
    int r = ravel_machine_find_reg(m, name);
    return r < 0 ? RAVEL_LOC_NONE : (ravel_loc)r;
}

static uint32_t inst_at_line(const ravel_func *f, uint32_t line)
{
    for (uint32_t i = 0; i < f->insts.len; i++)
        if (f->insts.data[i].line == line) return i;
    return RAVEL_NONE;
}

static bool holds_before(ravel_checker *ck, const ravel_func *f, uint32_t inst, uint32_t v, ravel_loc l, uint32_t *n)
{
    ravel_loc locs[512];
    uint32_t k = ck_ref_holders(ck, f, inst, v, locs, 512);
    if (n) *n = k;
    for (uint32_t i = 0; i < k && i < 512; i++)
        if (locs[i] == l) return true;
    return false;
}

/* Does instruction inst define v (in d, when d is not NONE)? */
static bool defines(const ravel_func *f, uint32_t inst, uint32_t v, ravel_loc d)
{
    const rv_inst *in = &f->insts.data[inst];
    for (uint32_t k = 0; k < in->ndefs; k++)
        if (rv_inst_defs(f, in)[k].vreg == v && (d == RAVEL_LOC_NONE || rv_inst_defs(f, in)[k].loc == d)) return true;
    return false;
}

/* Is instruction i's block on a CFG cycle? (its own computation: the
 * successors' closure, with the CFG of ir/cfg.c) */
static bool on_cycle(const ravel_func *f, uint32_t i)
{
    rv_cfg c;
    rv_cfg_build(&c, f);
    uint32_t b = 0;
    while (b + 1 < f->layout.len && f->blocks.data[b + 1].first_inst <= i) b++;
    bool *seen = calloc(c.nblocks + 1, 1), found = false;
    uint32_t *todo = malloc((c.nblocks + 1) * sizeof *todo), n = 0;
    todo[n++] = b;
    while (n) {
        uint32_t x = todo[--n];
        for (uint32_t e = c.succ_start[x]; e < c.succ_start[x + 1]; e++) {
            uint32_t y = c.succ[e];
            if (y == b) found = true;
            if (!seen[y]) seen[y] = true, todo[n++] = y;
        }
    }
    free(seen);
    free(todo);
    rv_cfg_free(&c);
    return found;
}

static void claim(bool ok, const char *line, const char *why)
{
    claims++;
    if (ok) return;
    false_claims++;
    fprintf(stderr, "false note \"%s\": %s\n", line, why);
}

/* Where vreg v is at an early read of instruction inst: the holders before
 * it, less the locations its early defs overwrite. */
static bool held_at_early_read(ravel_checker *ck, const ravel_func *f, uint32_t inst, uint32_t v, ravel_loc l)
{
    const rv_inst *in = &f->insts.data[inst];
    for (uint32_t k = 0; k < in->ndefs; k++)
        if (rv_op_is_early(&rv_inst_defs(f, in)[k]) && rv_inst_defs(f, in)[k].loc == l) return false;
    return holds_before(ck, f, inst, v, l, NULL);
}

static void check_notes(ravel_checker *ck, const ravel_func *f, const ravel_check_error *e)
{
    const ravel_machine *m = f->mach;
    uint32_t expect = e->expected ? vreg_named(f, e->expected) : RAVEL_NONE;
    bool early = e->position && !strcmp(e->position, "early"), saw_here = false;
    for (const char *p = e->provenance; p && *p;) {
        size_t len = strcspn(p, "\n");
        char ln[512], v[32], l1[64], l2[64], rest[256];
        unsigned line = 0;
        if (len < sizeof ln) {
            memcpy(ln, p, len);
            ln[len] = 0;
            if (sscanf(ln, "%31s is in %255[^\n]", v, rest) == 2 && strlen(rest) > 5 && !strcmp(rest + strlen(rest) - 5, " here")) {
                saw_here = true;
                rest[strlen(rest) - 5] = 0;
                /* "L", "L1 and L2", "L1, L2 and L3" */
                for (char *tok = strtok(rest, ", "); tok; tok = strtok(NULL, ", ")) {
                    if (!strcmp(tok, "and")) continue;
                    ravel_loc l = loc_named(m, tok);
                    uint32_t vr = vreg_named(f, v);
                    bool ok = l != RAVEL_LOC_NONE && vr == expect && e->inst != RAVEL_NONE &&
                              (early ? held_at_early_read(ck, f, e->inst, vr, l)
                                     : holds_before(ck, f, e->inst, vr, l, NULL) || defines(f, e->inst, RAVEL_NONE, RAVEL_LOC_NONE));
                    claim(ok, ln, "the vreg is not there at the read");
                }
            } else if (sscanf(ln, "%31s was redefined at line %u (in %63[^)]): the older copy in %63s is stale", v, &line, l1, l2) == 4) {
                uint32_t i = inst_at_line(f, line), vr = vreg_named(f, v);
                claim(i != RAVEL_NONE && defines(f, i, vr, loc_named(m, l1)) && holds_before(ck, f, i, vr, loc_named(m, l2), NULL), ln,
                      "not a def there, or the location did not hold the older value");
            } else if (strstr(ln, " never held it") && /* (sscanf's count does not see a literal's mismatch) */
                       sscanf(ln, "%31s was defined at line %u in %63[^;]; %63s never held it", v, &line, l1, l2) == 4) {
                uint32_t i = inst_at_line(f, line), vr = vreg_named(f, v), n = 1;
                bool ok = i != RAVEL_NONE && defines(f, i, vr, loc_named(m, l1));
                if (ok) holds_before(ck, f, i, vr, loc_named(m, l2), &n);
                claim(ok && n == 0 && !on_cycle(f, i), ln, "not a def there, the vreg somewhere before it, or the def on a cycle");
            } else if (strstr(ln, " was not given it after that definition") &&
                       sscanf(ln, "%31s was defined at line %u in %63[^;]; %63s was not given it", v, &line, l1, l2) == 4) {
                uint32_t i = inst_at_line(f, line), vr = vreg_named(f, v);
                claim(i != RAVEL_NONE && defines(f, i, vr, loc_named(m, l1)) && !holds_before(ck, f, i, vr, loc_named(m, l2), NULL) &&
                          on_cycle(f, i),
                      ln, "not a def there, the location held the value before it, or the def on no cycle");
            }
        }
        p += len;
        if (*p == '\n') p++;
    }
    /* never looks away: at an early read, a vreg held elsewhere is named */
    if (early && expect != RAVEL_NONE && e->inst != RAVEL_NONE && e->provenance && !saw_here) {
        ravel_loc locs[64];
        uint32_t n = ck_ref_holders(ck, f, e->inst, expect, locs, 64), shown = 0;
        for (uint32_t k = 0; k < n && k < 64; k++) shown += held_at_early_read(ck, f, e->inst, expect, locs[k]);
        if (shown) {
            missing_here++;
            fprintf(stderr, "no 'is in' note for %s at inst %u (%s): held in %u other locations\n", e->expected, e->inst,
                    e->message, shown);
        }
    }
}

/* Every "is in", "defined" and "redefined" note states what the
 * reference's fixpoint holds (ck_ref_holders), on random reports; and an
 * early read whose vreg is held elsewhere always gets its "is in" note. */
static void check_notes_of(ravel_checker *ck, const ravel_func *f, const char *text, const ravel_check_error *e)
{
    (void)text;
    check_notes(ck, f, e);
}

TEST(notes_state_the_truth)
{
    ravel_checker *ck = ravel_checker_new();
    ravel_checker_set_options(ck, RAVEL_CHECK_REFERENCE);
    uint32_t reports = each_report(ck, 5100, check_notes_of);
    printf("%u reports, %u claims of notes checked, %u false, %u missing 'is in' notes\n", reports, claims, false_claims,
           missing_here);
    CHECK(reports >= 100);
    CHECK(claims >= 300);
    CHECK_EQ_INT(false_claims, 0);
    CHECK_EQ_INT(missing_here, 0);
    ravel_checker_free(ck);
}

int main(void)
{
    RUN(provenance_quotes_its_lines);
    RUN(notes_state_the_truth);
    return TEST_SUMMARY();
}
