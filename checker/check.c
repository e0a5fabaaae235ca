/* check.c - ravel_check: the symbolic checker's entry point and context.
 *
 *   guard -> cfg -> rules (+ orig match) -> value numbering (proves a
 *   correct allocation in one pass) -> if not proven: the reference
 *   fixpoint (decides and records the value errors)
 *   -> report (sorted, one error per operand, provenance, explain)
 *   (the guard of the allocated function also lists the instructions the
 *   rules must visit: one pass over the function for both)
 *
 * The context keeps every scratch buffer between calls, so checking many
 * small functions costs O(size of each) with no per-call memsets beyond it.
 * No global state: one context per thread. */
#include "ck.h"

#include <stdlib.h>
#include <string.h>

ravel_checker *ravel_checker_new(void)
{
    ravel_checker *ck = rv_xcalloc(1, sizeof *ck); /* (outside a region: out of memory aborts) */
    ck->verify = ravel_verify_requested() != 0;
    ck->max_errors = RAVEL_CHECK_DEFAULT_MAX_ERRORS;
    return ck;
}

/* Every phase's scratch released: the context is as new (options kept). */
static void release_scratch(ravel_checker *ck)
{
    ck_guard_free(&ck->guard);
    ck_facts_free(&ck->facts);
    ck_cfg_free(&ck->cfg);
    ck_out_free(&ck->out);
    ck_vn_free(ck);
    ck_ref_free(ck);
    ck_ext_free(&ck->ext);
    ck->f = NULL;
}

void ravel_checker_free(ravel_checker *ck)
{
    if (!ck) return;
    release_scratch(ck);
    rv_free(ck);
}

/* "Verification requested" is a flag of its own: no option call can clear
 * it; RAVEL_CHECK_VERIFY in an option call can only turn it on. */
void ravel_checker_set_options(ravel_checker *ck, unsigned opts)
{
    if (!ck) return;
    if (opts & RAVEL_CHECK_VERIFY) ck->verify = true;
    ck->opts = opts & ~RAVEL_CHECK_VERIFY;
}
void ravel_checker_add_options(ravel_checker *ck, unsigned opts)
{
    if (!ck) return;
    if (opts & RAVEL_CHECK_VERIFY) ck->verify = true;
    ck->opts |= opts & ~RAVEL_CHECK_VERIFY;
}
void ravel_checker_clear_options(ravel_checker *ck, unsigned opts)
{
    if (ck) ck->opts &= ~opts;
}
unsigned ravel_checker_options(const ravel_checker *ck) { return ck ? ck->opts : 0; }
void ravel_checker_set_verify(ravel_checker *ck, int on)
{
    if (ck) ck->verify = on != 0;
}
int ravel_checker_verify(const ravel_checker *ck) { return ck && ck->verify; }
void ravel_checker_set_max_errors(ravel_checker *ck, size_t n)
{
    if (ck) ck->max_errors = n;
}

int ravel_verify_requested(void)
{
    const char *s = getenv("RAVEL_VERIFY");
    return s && *s && strcmp(s, "0") != 0;
}

/* Hands rep to the caller, or (out NULL) frees it, or empties it when it
 * is the context's own (ck_report_quiet). */
static int finish(ravel_checker *ck, ravel_report *rep, ravel_report **out)
{
    int st = rep->status;
    if (out) *out = rep;
    else if (ck && rep == &ck->out.quiet) ck_report_clear(rep);
    else ravel_report_free(rep);
    return st;
}

/* The guard rejected f, read from text (the reader builds consistent
 * structure), for causes that leave that structure intact (ck->guard.gbroken
 * false): ravel_validate's diagnostics, with line and column and each cause
 * once, replace the guard's when it agrees. */
static void precise_bad_input(const ravel_func *f, ravel_report *rep, uint32_t ndiags0)
{
    ravel_diags *d = ravel_diags_new();
    if (ravel_validate(f, 0, d) == RAVEL_EINVAL && d->v.len) {
        ck_truncate_bad_input(rep, ndiags0);
        for (uint32_t i = 0; i < d->v.len; i++) ck_bad_input(rep, "%s", d->v.data[i].msg);
    }
    ravel_diags_free(d);
}

/* Bad input: the checker's own guard, then the validator without SSA,
 * whose EINVAL verdict is authoritative. The guard flags in the same pass
 * every condition under which the validator may say EINVAL, so the
 * validator runs only on such suspect input (for its verdict and its
 * messages), or always with RAVEL_CHECK_FULL_VALIDATE, never with
 * RAVEL_CHECK_NO_VALIDATE. */
static bool input_ok(ravel_checker *ck, const ravel_func *f, ravel_report *rep, uint32_t *nslots, bool record)
{
    bool suspect = false;
    uint32_t ndiags0 = rep->bad_input.len;
    ck->guard.grecord = record; /* the allocated function's guard lists the rules' work (ck->facts.rtodo) */
    bool ok = ck_guard(ck, f, rep, nslots, &suspect);
    ck->guard.grecord = false;
    if (!ok) {
        /* the validator's messages are more precise (a position for every
         * cause, each cause once): they replace the guard's when it can run */
        if (!ck->guard.gbroken && f->file && f->src) precise_bad_input(f, rep, ndiags0);
        return false;
    }
    if (ck->opts & RAVEL_CHECK_NO_VALIDATE) return true;
    if (!suspect && !(ck->opts & RAVEL_CHECK_FULL_VALIDATE)) return true;
    ravel_diags *d = ravel_diags_new();
    int rc = ravel_validate(f, 0, d);
    if (rc == RAVEL_EINVAL) {
        for (uint32_t i = 0; i < d->v.len; i++) ck_bad_input(rep, "%s", d->v.data[i].msg);
        if (!d->v.len) ck_bad_input(rep, "func %s: invalid input", rv_func_name(f));
    }
    ravel_diags_free(d);
    return rc != RAVEL_EINVAL;
}

/* The reference passed CK_MAX_SET_POOL: locations that would have held a new
 * set held nothing. That only removes facts, so no error means the
 * allocation is correct; but value errors may be artefacts, so they are
 * replaced by a bad-input diagnostic (the rules' errors stand). */
static void drop_undecided(ravel_checker *ck, ravel_report *rep, uint32_t limit)
{
    uint32_t nvalue = 0;
    for (uint32_t i = 0; i < rep->errs.len; i++) nvalue += rep->errs.data[i].value;
    if (!nvalue) return;
    ck_drop_value_errors(rep);
    ck_bad_input(rep, "%s: error: func %s: beyond the checker's limit: its vreg sets would hold more than %u members in "
                 "all (a location holding thousands of aliases of one value); %u value error%s not decided",
                 ck->f->file ? ck->f->file : "<input>", rv_func_name(ck->f), limit, nvalue, nvalue == 1 ? "" : "s");
}

/* --explain, once the report is final: replays the reference's transfer
 * of each block with errors (at most CK_MAX_EXPLAIN) from its fixpoint
 * entry state, dumping the state at every point; attached to the block's
 * first error. (The driver runs it, so the report calls no analysis.) */
static void explain(ravel_checker *ck, ravel_report *r)
{
    uint32_t done = 0;
    uint8_t *seen = rv_xcalloc(ck->nblocks, 1);
    ck->out.rep = NULL;
    for (uint32_t i = 0; i < r->errs.len && done < CK_MAX_EXPLAIN; i++) {
        ck_err *e = &r->errs.data[i];
        uint32_t blk = e->block_id;
        if (blk == CK_NIL || !ck_reachable(ck, blk) || seen[blk]) continue;
        seen[blk] = 1;
        ck_bprintf(&ck->out.explain, "state at every point of %s (locations the block names; unknown if not shown otherwise):\n",
                   rv_block_name(ck->f, blk));
        ck->out.explain_base = ck->out.explain.len;
        ck_ref_explain(ck, blk);
        e->pub.explain = ck_bdetach(&ck->out.explain);
        done++;
    }
    rv_free(seen);
    ck->out.rep = r;
}

static int check(ravel_checker *ck, const ravel_func *alloc, const ravel_func *orig, ravel_report **report);

/* Out of memory anywhere in a check: the context's scratch is released
 * (some of it half grown: the context is as new), the report being made
 * and every temporary are freed with the region (ir/util.c), and the status
 * is RAVEL_ENOMEM with no report. */
int ravel_check(ravel_checker *ck, const ravel_func *alloc, const ravel_func *orig, ravel_report **report)
{
    if (report) *report = NULL;
    rv_recover rec;
    bool own = rv_recover_enter(&rec);
    if (own && setjmp(rec.jb)) {
        if (ck) release_scratch(ck);
        rv_recover_sweep(&rec);
        if (report) *report = NULL;
        return RAVEL_ENOMEM;
    }
    int rc = check(ck, alloc, orig, report);
    if (own) rv_recover_leave(&rec);
    return rc;
}

static int check(ravel_checker *ck, const ravel_func *alloc, const ravel_func *orig, ravel_report **report)
{
    /* a caller that wants only the status gets no report: the context's
     * own is filled and emptied (a correct allocation allocates nothing) */
    ravel_report *rep = report || !ck ? ck_report_new() : ck_report_quiet(&ck->out);
    uint32_t nslots = 0, onslots = 0;
    if (!ck || !alloc) {
        ck_bad_input(rep, "ravel_check: no checker or no function");
        return finish(ck, rep, report);
    }
    if (!input_ok(ck, alloc, rep, &nslots, true) ||
        (orig && !(ck->opts & RAVEL_CHECK_ORIG_VALID) && !input_ok(ck, orig, rep, &onslots, false)))
        return finish(ck, rep, report);
    ck->f = alloc;
    ck->nregs = alloc->mach->regs.len;
    ck->nslots = nslots;
    ck->nlocs = ck->nregs + nslots;
    ck->nblocks = alloc->layout.len;
    ck->nvregs = alloc->vregs.len;
    ck->out.rep = rep;
    ck_ext_scan(ck);
    ck->nvisits = ck->ref_scans = 0;
    ck_cfg_build(&ck->cfg, alloc, ck->facts.bsucc.data);
    ck_rules(ck);
    if (orig) ck_match_orig(ck, orig);
    ck->diverged = ck->states_over = false;
    ck->ref_decided = false;
    bool verdict_only = (ck->opts & RAVEL_CHECK_VERDICT_ONLY) && !(ck->opts & RAVEL_CHECK_EXPLAIN);
    bool overflow = false;
    uint32_t limit = 0;
    /* the value-numbering verdict proves correct allocations in one pass;
     * whatever it does not prove (and every explain request, whose dumps
     * are the reference's states) the reference decides and reports */
    bool proven = !(ck->opts & (RAVEL_CHECK_REFERENCE | CK_OPT_NO_VN | RAVEL_CHECK_EXPLAIN)) && ck_vn_verdict(ck);
    ck->vn_proven = proven;
    if (!proven) {
        ck->ref_decided = true;
        ck_ref_check(ck, verdict_only, &overflow, &limit);
    }
    if (ck->diverged) ck_bad_input(rep, "func %s: internal error: the analysis did not converge", rv_func_name(alloc));
    if (ck->states_over) { /* (nothing decided: value errors found so far are dropped with the rest) */
        ck_drop_value_errors(rep);
        ck_bad_input(rep,
                     "%s: error: func %s: beyond the checker's limit: the reference's per-block states would hold more "
                     "than %u entries in all (about blocks x locations known in each: a nest of thousands of loops "
                     "each keeping values of its own); not decided",
                     alloc->file ? alloc->file : "<input>", rv_func_name(alloc),
                     ck->state_limit ? ck->state_limit : CK_MAX_STATE_POOL);
    }
    if (overflow) drop_undecided(ck, rep, limit);
    ck_finish_report(ck);
    if ((ck->opts & RAVEL_CHECK_EXPLAIN) && ck->cfg.g.nrpo && rep->errs.len) explain(ck, rep);
    ck->out.rep = NULL;
    ck->f = NULL;
    return finish(ck, rep, report);
}

int ravel_check_if_enabled(ravel_checker *ck, const ravel_func *alloc, const ravel_func *orig, ravel_report **report)
{
    if (report) *report = NULL;
    if (!ck || !ck->verify) return RAVEL_OK;
    return ravel_check(ck, alloc, orig, report);
}

size_t ck_memory(const ravel_checker *ck)
{
    return ck_guard_memory(&ck->guard) + ck_facts_memory(&ck->facts) + ck_cfg_memory(&ck->cfg) + ck_vn_memory(ck) +
           ck_ref_memory(ck) + ck_out_memory(&ck->out);
}
