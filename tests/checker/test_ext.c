/* test_ext.c - docs/format.md section 14 (alias, undef, remat) in the
 * checker, on random functions: generated, allocated by every allocator,
 * then rewritten so that they use the section (until the generator makes
 * such functions itself):
 *   - the machine gains containment: a "wide" reserved register around
 *     each register (the allocation stays right: nothing names the wide
 *     ones, writes only empty them), or pairs of registers of one class
 *     (the allocation knew nothing of it: often wrong, in-place copies);
 *   - some `const` ops become `undef`;
 *   - some reloads and moves become `remat K`, K the constant some const
 *     op defines (often right) or another one;
 *   - and, on some, one edit's source moved (a corruption).
 * On each:
 *   - agreement: the checker (value numbering, then the reference) and the
 *     reference alone give the same status and report text;
 *   - value numbering is sound: when it proves a function, the reference
 *     finds no error; it proves the right allocations on wide machines;
 *   - the reference never looks away: every path from the entry (each
 *     block at most twice on a path, the paths bounded) is run with the
 *     section's transfer written once more here, plainly, without any
 *     meet, and every read that fails on a path is an error the
 *     reference reports (same instruction and operand);
 *   - it never cries wolf: on the functions whose paths were all run
 *     (acyclic ones) without undef, every value error it reports fails on
 *     some path;
 *   - the overlap rules report every operand their statement names.
 * Counts of each kind are printed and must be non-zero. */
#define _POSIX_C_SOURCE 200809L
#include "allocator/alloc.h"
#include "checker/ck.h"
#include "fuzz/gen.h"
#include "tests/checker/report_text.h"
#include "tests/support/each.h"
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>

/* ---- rewriting a function to use section 14 ---- */

enum { MACH_WIDE, MACH_PAIRS, MACH_KINDS };

/* A copy of m (same register ids) with containment added (kind). */
static ravel_machine *alias_machine(const ravel_machine *m, int kind, uint32_t seed)
{
    ravel_machine *a = ravel_machine_new();
    for (uint32_t c = 0; c < m->classes.len; c++) ravel_machine_add_class(a, m->classes.data[c].name);
    uint32_t n = m->regs.len;
    for (uint32_t r = 0; r < n; r++) ravel_machine_add_reg(a, m->regs.data[r].name, m->regs.data[r].cls, m->regs.data[r].reserved);
    ravel_machine_set_clobbers(a, m->clobbers.data, m->clobbers.len);
    ravel_machine_set_gc_moving(a, !m->gc_nonmoving);
    if (kind == MACH_WIDE) {
        for (uint32_t r = 0; r < n; r++) {
            char name[64];
            snprintf(name, sizeof name, "w%s", m->regs.data[r].name);
            int w = ravel_machine_add_reg(a, name, m->regs.data[r].cls, 1);
            if (w >= 0) ravel_machine_alias(a, (uint32_t)w, r);
        }
    } else {
        uint32_t prev[64];
        for (uint32_t c = 0; c < 64; c++) prev[c] = CK_NIL;
        for (uint32_t r = 0; r < n; r++) {
            uint32_t c = m->regs.data[r].cls % 64;
            if (prev[c] == CK_NIL) {
                prev[c] = r;
                continue;
            }
            if ((seed >> (r % 8)) & 1) ravel_machine_alias(a, prev[c], r); /* some pairs only */
            prev[c] = CK_NIL;
        }
    }
    return a;
}

/* Copy i of an undefined vreg (def at D) reads it where the next use of
 * its block (vreg w, another vreg of the class) reads w, and that use
 * reads w at D: right only if the copy moved w (it moves nothing).
 * False if there is no such use. */
static bool undef_copy_reader(ravel_func *h, uint32_t i)
{
    rv_inst *c = rv_inst_at(h, i);
    rv_operand *d = &rv_inst_ops(h, c)[0], *u = &rv_inst_ops(h, c)[1];
    const rv_block *bl = NULL;
    for (uint32_t b = 0; b < h->layout.len && !bl; b++)
        if (i >= h->blocks.data[b].first_inst && i < h->blocks.data[b].first_inst + h->blocks.data[b].ninsts) bl = &h->blocks.data[b];
    if (!bl || d->loc >= h->mach->regs.len) return false;
    for (uint32_t j = i + 1; j < bl->first_inst + bl->ninsts; j++) {
        rv_inst *in = rv_inst_at(h, j);
        if (rv_is_edit(in) || in->op == RAVEL_OP_UNDEF) return false; /* (keep it simple: no edit in between) */
        rv_operand *o = rv_inst_ops(h, in);
        for (uint32_t k = in->ndefs; k < (uint32_t)in->ndefs + in->nuses; k++) {
            rv_operand *w = &o[k];
            if (w->vreg == d->vreg || (w->kind != RAVEL_C_ANY && w->kind != RAVEL_C_REG)) continue;
            if (w->loc >= h->mach->regs.len || h->mach->regs.data[w->loc].cls != h->mach->regs.data[d->loc].cls) continue;
            u->loc = w->loc;
            w->loc = d->loc;
            return true;
        }
        for (uint32_t k = 0; k < in->ndefs; k++)
            if (o[k].loc == d->loc) return false; /* D written before any such use */
    }
    return false;
}

/* Some const ops of h become undef (each with probability 1/3). */
static uint32_t make_undefs(ravel_func *h, uint32_t *rng)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < h->insts.len; i++) {
        rv_inst *in = rv_inst_at(h, i);
        if (in->op != RAVEL_OP_CONST || in->ndefs != 1 || in->nuses) continue;
        *rng = *rng * 1103515245u + 12345u;
        if ((*rng >> 16) % 3) continue;
        in->op = RAVEL_OP_UNDEF;
        in->nimms = 0;
        n++;
    }
    /* a copy reading an undefined vreg reads it from anywhere: half of them
     * read it from another register of its class (whatever that holds
     * does not move with it) */
    for (uint32_t i = 0; i < h->insts.len; i++) {
        rv_inst *in = rv_inst_at(h, i);
        if (in->op != RAVEL_OP_COPY || in->ndefs != 1 || in->nuses != 1) continue;
        rv_operand *u = &rv_inst_ops(h, in)[1];
        bool from_undef = false;
        for (uint32_t j = 0; j < h->insts.len && !from_undef; j++) {
            const rv_inst *d = rv_inst_at(h, j);
            from_undef = d->op == RAVEL_OP_UNDEF && d->ndefs == 1 && rv_inst_ops(h, d)[0].vreg == u->vreg;
        }
        *rng = *rng * 1103515245u + 12345u;
        if (!from_undef || u->loc >= h->mach->regs.len || (*rng >> 16) % 2) continue;
        if ((*rng >> 20) % 2 && undef_copy_reader(h, i)) continue;
        for (uint32_t r = 1; r < h->mach->regs.len; r++) {
            uint32_t x = (u->loc + r) % h->mach->regs.len;
            if (h->mach->regs.data[x].cls == h->mach->regs.data[u->loc].cls && !h->mach->regs.data[x].reserved && u->kind != RAVEL_C_FIXED) {
                u->loc = x;
                break;
            }
        }
    }
    return n;
}

/* Some reloads and moves of h become remats of a key some const op defines
 * (or of 12345). */
static uint32_t make_remats(ravel_func *h, uint32_t *rng)
{
    int64_t keys[16];
    uint32_t nk = 0, n = 0;
    for (uint32_t i = 0; i < h->insts.len && nk < 16; i++) {
        const rv_inst *in = rv_inst_at(h, i);
        if (in->op == RAVEL_OP_CONST && in->nimms == 1) keys[nk++] = h->imms.data[in->first_imm].value;
    }
    keys[nk++ % 16] = 12345;
    for (uint32_t i = 0; i < h->insts.len; i++) {
        rv_inst *in = rv_inst_at(h, i);
        if (in->op != RAVEL_OP_RELOAD && in->op != RAVEL_OP_MOVE) continue;
        *rng = *rng * 1103515245u + 12345u;
        if ((*rng >> 16) % 3) continue;
        int64_t k = keys[(*rng >> 8) % nk];
        rv_vec_push(h->imms, ((rv_imm){k, 0}));
        in->op = RAVEL_OP_REMAT;
        in->u.edit.src = RAVEL_LOC_NONE;
        in->first_imm = h->imms.len - 1;
        in->nimms = 1;
        in->flags = 0;
        n++;
    }
    return n;
}

/* ---- the paths: section 14's transfer once more, without a meet ---- */

typedef struct pstate {
    uint8_t *hold;  /* nl x nm: location l holds member m (vregs, then tokens) */
    uint8_t *undef; /* per vreg: in U */
    int64_t *cval;  /* per vreg: the constant it is (if iscon) */
    uint8_t *iscon;
} pstate;

typedef struct paths {
    const ravel_func *f;
    ravel_checker *ck; /* its last check was of f: ck->ext, nregs, nslots */
    uint32_t nl, nm, nv;
    uint8_t *err; /* per instruction x operand slot: a failed read on some path */
    uint32_t nslot;
    uint32_t npaths, budget;
    bool truncated;  /* a path was cut (a block twice, the depth, the budget): not every path was run */
    uint8_t *visits; /* per block: on the current path */
} paths;

#define PSLOT 64 /* operand slots per instruction: uses 0..47, stackmap 48.. */

static uint32_t li_of(const paths *P, ravel_loc l) { return rv_loc_index(P->ck->nregs, P->ck->nslots, l); }
static uint8_t *H(const paths *P, pstate *s, uint32_t l, uint32_t m) { return &s->hold[(size_t)l * P->nm + m]; }

static void drop_member(const paths *P, pstate *s, uint32_t m)
{
    for (uint32_t l = 0; l < P->nl; l++) *H(P, s, l, m) = 0;
}
static void clear_loc(const paths *P, pstate *s, uint32_t l) { memset(H(P, s, l, 0), 0, P->nm); }
static void clear_over(const paths *P, pstate *s, uint32_t l)
{
    const uint32_t *o;
    uint32_t n = ck_overlaps(P->ck, l, &o);
    for (uint32_t i = 0; i < n; i++) clear_loc(P, s, o[i]);
}

static uint32_t tok_of(const paths *P, int64_t k)
{
    uint32_t t = ck_token_of(P->ck, k);
    return t == CK_NIL ? CK_NIL : P->nv + (t - P->ck->ext.tok0);
}

/* v is written at l by an op (not a moving copy). */
static void pdef(const paths *P, pstate *s, const rv_inst *in, uint32_t v, uint32_t l, bool over)
{
    drop_member(P, s, v);
    s->undef[v] = 0;
    s->iscon[v] = 0;
    if (l != CK_NIL) {
        clear_loc(P, s, l);
        *H(P, s, l, v) = 1;
        if (over) clear_over(P, s, l);
    }
    if (in->op == RAVEL_OP_UNDEF) s->undef[v] = 1;
    if (in->op == RAVEL_OP_CONST && in->nimms == 1 && !in->nuses && !P->f->vregs.data[v].ref) {
        int64_t k = P->f->imms.data[in->first_imm].value;
        s->iscon[v] = 1;
        s->cval[v] = k;
        uint32_t t = tok_of(P, k);
        for (uint32_t x = 0; t != CK_NIL && x < P->nl; x++)
            if (*H(P, s, x, t)) *H(P, s, x, v) = 1;
    }
}

static void pread(paths *P, pstate *s, uint32_t ii, uint32_t slot, uint32_t v, uint32_t l)
{
    if (l == CK_NIL || s->undef[v] || *H(P, s, l, v)) return;
    P->err[(size_t)ii * PSLOT + slot] = 1;
}

static void pclobber(const paths *P, pstate *s, const rv_inst *in, ravel_loc spare)
{
    const uint32_t *regs;
    uint32_t n = rv_inst_clobbers(P->f, in, &regs);
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t *o;
        uint32_t no = ck_overlaps(P->ck, regs[k], &o);
        for (uint32_t i = 0; i <= no; i++) {
            uint32_t r = i < no ? o[i] : regs[k];
            if (r != spare && !(spare == RAVEL_LOC_NONE && rv_inst_defines_loc(P->f, in, r))) clear_loc(P, s, r);
        }
    }
}

static void psafepoint(const paths *P, pstate *s, const rv_inst *in)
{
    bool moving = !P->f->mach->gc_nonmoving;
    uint8_t *rooted = calloc(P->nv + 1, 1);
    uint8_t *listed = calloc(P->nl + 1, 1);
    for (uint32_t k = 0; (in->flags & RV_IF_STACKMAP) && k < in->u.smap.n; k++) {
        uint32_t l = li_of(P, ravel_slot(P->f->u32.data[in->u.smap.first + k]));
        if (l == CK_NIL) continue;
        listed[l] = 1;
        for (uint32_t v = 0; v < P->nv; v++) rooted[v] |= *H(P, s, l, v);
    }
    for (uint32_t l = 0; l < P->nl; l++)
        for (uint32_t m = 0; m < P->nm; m++) {
            bool ref = m < P->nv && P->f->vregs.data[m].ref;
            if (*H(P, s, l, m) && !ck_gc_keeps(moving, ref, listed[l], m < P->nv && rooted[m])) *H(P, s, l, m) = 0;
        }
    free(rooted);
    free(listed);
}

static void pedit(const paths *P, pstate *s, const rv_inst *in)
{
    uint32_t d = li_of(P, in->u.edit.dst);
    if (in->op == RAVEL_OP_REMAT) {
        pclobber(P, s, in, in->u.edit.dst);
        if (d == CK_NIL) return;
        int64_t k = rv_remat_k(P->f, in);
        clear_loc(P, s, d);
        *H(P, s, d, tok_of(P, k)) = 1;
        for (uint32_t v = 0; v < P->nv; v++)
            if (s->iscon[v] && s->cval[v] == k) *H(P, s, d, v) = 1;
    } else {
        uint32_t src = li_of(P, in->u.edit.src);
        if (d == CK_NIL) return;
        if (src == CK_NIL) clear_loc(P, s, d);
        else if (src != d) memcpy(H(P, s, d, 0), H(P, s, src, 0), P->nm);
    }
    clear_over(P, s, d);
}

/* Copy d <- u read from location lu (its set src, its U and constant
 * taken at the read), written at ld. */
static void pcopy(const paths *P, pstate *s, const rv_inst *in, uint32_t d, uint32_t u, uint32_t ld, const uint8_t *src,
                  bool ok, bool uu, bool ucon, int64_t uk)
{
    if (!ok) {
        pdef(P, s, in, d, ld, true);
        return;
    }
    if (uu) {
        pdef(P, s, in, d, ld, true);
        s->undef[d] = 1;
        return;
    }
    if (ck_copy_in_place(P->ck, in)) {
        pdef(P, s, in, d, ld, false);
        return;
    }
    drop_member(P, s, d);
    s->undef[d] = 0;
    s->iscon[d] = 0;
    if (d != u)
        for (uint32_t l = 0; l < P->nl; l++)
            if (*H(P, s, l, u)) *H(P, s, l, d) = 1;
    if (ld != CK_NIL) {
        memcpy(H(P, s, ld, 0), src, P->nm);
        *H(P, s, ld, d) = 1;
        clear_over(P, s, ld);
    }
    if (ucon) {
        s->iscon[d] = 1;
        s->cval[d] = uk;
        uint32_t t = tok_of(P, uk);
        for (uint32_t x = 0; t != CK_NIL && x < P->nl; x++)
            if (*H(P, s, x, t)) *H(P, s, x, d) = 1;
    }
}

static void pop(paths *P, pstate *s, uint32_t ii, const rv_inst *in, uint8_t *src)
{
    const ravel_func *f = P->f;
    const rv_operand *o = rv_ops_of(f, in);
    uint32_t nd = in->ndefs;
    bool copy = in->op == RAVEL_OP_COPY && nd == 1 && in->nuses >= 1 && !rv_op_is_late(&o[1]);
    bool ok = false, uu = false, ucon = false;
    int64_t uk = 0;
    for (uint32_t k = 0; k < nd; k++)
        if (!rv_op_is_late(&o[k])) pdef(P, s, in, o[k].vreg, li_of(P, o[k].loc), true);
    for (uint32_t k = nd; k < nd + in->nuses; k++) {
        if (rv_op_is_late(&o[k])) continue;
        uint32_t l = li_of(P, o[k].loc), v = o[k].vreg;
        if (copy && k == nd) {
            ok = l != CK_NIL && (s->undef[v] || *H(P, s, l, v));
            uu = s->undef[v];
            ucon = s->iscon[v];
            uk = s->cval[v];
            if (l != CK_NIL) memcpy(src, H(P, s, l, 0), P->nm);
        }
        pread(P, s, ii, k - nd, v, l);
    }
    if (copy && !rv_op_is_late(&o[0])) pcopy(P, s, in, o[0].vreg, o[1].vreg, li_of(P, o[0].loc), src, ok, uu, ucon, uk);
    if (!rv_is_term(in)) {
        for (uint32_t k = 0; (in->flags & RV_IF_STACKMAP) && k < in->u.smap.n; k++) {
            uint32_t l = li_of(P, ravel_slot(f->u32.data[in->u.smap.first + k])), root = 0;
            for (uint32_t v = 0; l != CK_NIL && v < P->nv; v++) root |= *H(P, s, l, v) && f->vregs.data[v].ref && !s->undef[v];
            if (l != CK_NIL && !root) P->err[(size_t)ii * PSLOT + 48 + (k % 16)] = 1;
        }
        pclobber(P, s, in, RAVEL_LOC_NONE);
        if (in->flags & RV_IF_SAFEPOINT) {
            psafepoint(P, s, in);
            if (copy && ok)
                for (uint32_t v = 0; v < P->nv; v++)
                    if (f->vregs.data[v].ref) src[v] = 0;
        }
    }
    for (uint32_t k = 0; k < nd; k++) {
        if (!rv_op_is_late(&o[k])) continue;
        if (copy) pcopy(P, s, in, o[k].vreg, o[1].vreg, li_of(P, o[k].loc), src, ok, uu, ucon, uk);
        else pdef(P, s, in, o[k].vreg, li_of(P, o[k].loc), true);
    }
    for (uint32_t k = nd; k < nd + in->nuses; k++)
        if (rv_op_is_late(&o[k])) pread(P, s, ii, k - nd, o[k].vreg, li_of(P, o[k].loc));
}

static size_t psize(const paths *P) { return (size_t)P->nl * P->nm + 2 * P->nv + 8 * (size_t)P->nv; }

static void pcopy_state(const paths *P, pstate *d, const pstate *s)
{
    memcpy(d->hold, s->hold, (size_t)P->nl * P->nm);
    memcpy(d->undef, s->undef, P->nv);
    memcpy(d->iscon, s->iscon, P->nv);
    memcpy(d->cval, s->cval, 8 * (size_t)P->nv);
}

static pstate palloc(const paths *P)
{
    pstate s;
    s.hold = calloc((size_t)P->nl * P->nm + 1, 1);
    s.undef = calloc(P->nv + 1, 1);
    s.iscon = calloc(P->nv + 1, 1);
    s.cval = calloc(P->nv + 1, 8);
    return s;
}
static void pfree(pstate *s)
{
    free(s->hold);
    free(s->undef);
    free(s->iscon);
    free(s->cval);
}

/* Runs block b from state s (modified), then each successor. */
static void pblock(paths *P, pstate *s, uint32_t b, uint32_t depth)
{
    const ravel_func *f = P->f;
    if (P->npaths >= P->budget || depth > 40 || P->visits[b] >= 2) {
        P->npaths++;
        P->truncated = true;
        return;
    }
    P->visits[b]++;
    const rv_block *bl = &f->blocks.data[b];
    uint8_t *src = calloc(P->nm + 1, 1);
    for (uint32_t i = 0; i < bl->ninsts; i++) {
        uint32_t ii = bl->first_inst + i;
        const rv_inst *in = rv_inst_at(f, ii);
        if (rv_is_edit(in)) pedit(P, s, in);
        else pop(P, s, ii, in, src);
    }
    free(src);
    const rv_inst *t = rv_block_term(f, bl);
    uint32_t ns = rv_inst_nsuccs(t);
    if (!ns) P->npaths++;
    pstate n = palloc(P);
    for (uint32_t k = 0; k < ns; k++) {
        const rv_succ *e = &rv_inst_succs(f, t)[k];
        const rv_block *tb = &f->blocks.data[e->block];
        const uint32_t *params = rv_params_of(f, tb), *args = rv_args_of(f, e);
        pcopy_state(P, &n, s);
        for (uint32_t p = 0; p < tb->nparams; p++) { /* all at once: from s */
            drop_member(P, &n, params[p]);
            n.undef[params[p]] = n.iscon[params[p]] = 0;
        }
        for (uint32_t p = 0; p < tb->nparams; p++) {
            for (uint32_t l = 0; l < P->nl; l++)
                if (*H(P, s, l, args[p])) *H(P, &n, l, params[p]) = 1;
            n.undef[params[p]] |= s->undef[args[p]];
            if (s->iscon[args[p]]) n.iscon[params[p]] = 1, n.cval[params[p]] = s->cval[args[p]];
        }
        pblock(P, &n, e->block, depth + 1);
    }
    pfree(&n);
    P->visits[b]--;
}

/* The value errors of report r that fail on no path of f (when every
 * path was run: *exact), the reference crying wolf. */
static uint32_t paths_extra(const paths *P, const ravel_report *r)
{
    uint32_t extra = 0;
    for (size_t e = 0; e < ravel_report_count(r); e++) {
        const ravel_check_error *x = ravel_report_error(r, e);
        if (strncmp(x->kind, "use-", 4) && strcmp(x->kind, "stackmap-not-ref")) continue;
        uint32_t slot = !strcmp(x->role, "use") ? (uint32_t)x->operand : 48 + (uint32_t)x->operand % 16;
        if (slot < PSLOT && !P->err[(size_t)x->inst * PSLOT + slot]) {
            fprintf(stderr, "extra: func %s inst %u: %s fails on no path\n", rv_func_name(P->f), x->inst, x->kind);
            extra++;
        }
    }
    return extra;
}

/* The failed reads on the paths of f (ck's last check was of f) that the
 * report r does not have; how many paths were run in *np; when every path
 * was run (an acyclic function) and f has no undef (whose joins the
 * reference takes less precisely, on purpose), the errors of r that fail
 * on no path in *extra, and *exact is set. */
static uint32_t paths_missed(ravel_checker *ck, const ravel_func *f, const ravel_report *r, uint32_t *np, uint32_t *extra, bool *exact)
{
    paths P = {.f = f, .ck = ck, .nl = ck->nlocs, .nv = ck->nvregs, .budget = 3000};
    P.nm = P.nv + ck->ext.ntok;
    P.err = calloc((size_t)f->insts.len * PSLOT + 1, 1);
    P.visits = calloc(f->layout.len + 1, 1);
    pstate s = palloc(&P);
    (void)psize;
    pblock(&P, &s, 0, 0);
    pfree(&s);
    uint32_t missed = 0;
    for (uint32_t ii = 0; ii < f->insts.len; ii++)
        for (uint32_t k = 0; k < PSLOT; k++) {
            if (!P.err[(size_t)ii * PSLOT + k]) continue;
            bool found = false;
            for (size_t e = 0; e < ravel_report_count(r) && !found; e++) {
                const ravel_check_error *x = ravel_report_error(r, e);
                found = x->inst == ii && ((k < 48 && !strcmp(x->role, "use") && x->operand == (int)k) ||
                                          (k >= 48 && !strcmp(x->role, "stackmap")));
            }
            if (!found) {
                fprintf(stderr, "missed: func %s inst %u operand slot %u fails on a path\n", rv_func_name(f), ii, k);
                missed++;
            }
        }
    *np = P.npaths;
    *exact = !P.truncated && !ck->ext.undef;
    if (*exact) *extra += paths_extra(&P, r);
    free(P.err);
    free(P.visits);
    return missed;
}

/* ---- the overlap rules, once more ---- */

/* Registers a and b of f's machine are one or overlap. */
static bool clash(const ravel_func *f, ravel_loc a, ravel_loc b)
{
    return a == b || (a < f->mach->regs.len && b < f->mach->regs.len && rv_mach_overlap(f->mach, a, b));
}

/* The operands of f on which an overlap rule fires (two defs, an early
 * def and a use, a late use and a def, counting overlap) whose report r
 * has no error; *nfired: how many fire. */
static uint32_t rules_missed(const ravel_func *f, const ravel_report *r, uint32_t *nfired)
{
    uint32_t missed = 0;
    for (uint32_t ii = 0; ii < f->insts.len; ii++) {
        const rv_inst *in = rv_inst_at(f, ii);
        if (rv_is_edit(in)) continue;
        const rv_operand *o = rv_ops_of(f, in);
        uint32_t nd = in->ndefs, n = nd + in->nuses;
        for (uint32_t k = 0; k < n; k++) {
            bool fire = false;
            for (uint32_t j = 0; j < n && !fire; j++) {
                if (j == k || !clash(f, o[j].loc, o[k].loc)) continue;
                if (k < nd) fire = (j < k) || (j >= nd && rv_op_is_early(&o[k]));
                else fire = j < nd && rv_op_is_late(&o[k]);
            }
            if (!fire || o[k].loc == RAVEL_LOC_NONE) continue;
            (*nfired)++;
            bool found = false;
            for (size_t e = 0; e < ravel_report_count(r) && !found; e++) {
                const ravel_check_error *x = ravel_report_error(r, e);
                found = x->inst == ii && !strcmp(x->role, k < nd ? "def" : "use") && x->operand == (int)(k < nd ? k : k - nd);
            }
            if (!found) fprintf(stderr, "missed: an overlap rule on func %s inst %u operand %u\n", rv_func_name(f), ii, k);
            missed += !found;
        }
    }
    return missed;
}

/* ---- the test ---- */

typedef struct tally {
    uint32_t funcs, proven, wide_proven, wide, errs, differ, unsound, missed, paths, undefs, remats, inplace, rules, rmissed;
    uint32_t exact, extra, noted_undef, ext_differ;
} tally;

/* What ck_ext_scan found from the guard's notes (ck) is what its own scan
 * finds (scan: CK_OPT_NEED_SCAN), with the same report. */
static void ext_agrees(ravel_checker *ck, ravel_checker *scan, const ravel_func *h, int rc, const char *ta, tally *t)
{
    ravel_report *c = NULL;
    int rs = ravel_check(scan, h, NULL, &c);
    char *tc = report_text(c);
    const ck_ext *x = &ck->ext, *y = &scan->ext;
    if (rc != rs || !tc || !ta || strcmp(ta, tc) ||
        (rc != RAVEL_EINVAL && (x->undef != y->undef || x->remat != y->remat || x->opairs != y->opairs || x->ntok != y->ntok))) {
        fprintf(stderr, "ck_ext_scan from the guard's notes and by its scan differ (undef %d/%d, remat %d/%d)\n", x->undef,
                y->undef, x->remat, y->remat);
        t->ext_differ++;
    }
    t->noted_undef += rc != RAVEL_EINVAL && x->undef && ck->facts.gxf_ok && !ck->facts.gremat && !x->alias;
    free(tc);
    ravel_report_free(c);
}

static void check_one(ravel_checker *ck, ravel_checker *ref, ravel_checker *scan, const ravel_func *h, int kind, tally *t)
{
    ravel_report *a = NULL, *b = NULL;
    int rc = ravel_check(ck, h, NULL, &a);
    bool proven = ck->vn_proven;
    char *ta0 = report_text(a);
    ext_agrees(ck, scan, h, rc, ta0, t);
    free(ta0);
    int rr = ravel_check(ref, h, NULL, &b);
    char *ta = report_text(a), *tb = report_text(b);
    if (rc != rr || !ta || !tb || strcmp(ta, tb)) {
        fprintf(stderr, "the checker and the reference differ (%d vs %d):\n%s---\n%s", rc, rr, ta ? ta : "?", tb ? tb : "?");
        t->differ++;
    }
    if (proven && rr != RAVEL_OK) {
        fprintf(stderr, "value numbering proved a function the reference rejects:\n%s", tb ? tb : "?");
        t->unsound++;
    }
    if (rr != RAVEL_EINVAL) {
        uint32_t np = 0;
        ref->f = h; /* (the section 14 helpers of ck.h read it) */
        bool exact = false;
        t->missed += paths_missed(ref, h, b, &np, &t->extra, &exact);
        t->exact += exact;
        ref->f = NULL;
        t->paths += np;
    }
    if (rr != RAVEL_EINVAL) t->rmissed += rules_missed(h, b, &t->rules);
    t->funcs++;
    t->proven += proven;
    t->errs += rr == RAVEL_EFAIL;
    if (kind == MACH_WIDE && !ck->ext.undef && !ck->ext.remat) {
        t->wide++;
        t->wide_proven += proven;
        if (!proven && rc == RAVEL_OK) fprintf(stderr, "not proven on a wide machine: %s\n", rv_func_name(h));
    }
    ck->f = h;
    for (uint32_t i = 0; i < h->insts.len; i++) t->inplace += ck->ext.alias && ck_copy_in_place(ck, rv_inst_at(h, i));
    ck->f = NULL;
    free(ta);
    free(tb);
    ravel_report_free(a);
    ravel_report_free(b);
}

static void run(uint32_t size, uint32_t nfuncs, uint32_t seed0, tally *t)
{
    ravel_checker *ck = ravel_checker_new(), *ref = ravel_checker_new(), *scan = ravel_checker_new();
    ravel_checker_set_options(ref, RAVEL_CHECK_REFERENCE);
    ravel_checker_set_options(scan, CK_OPT_NEED_SCAN);
    for (uint32_t k = 0; k < nfuncs; k++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.features = RV_GEN_ALL; /* its own section 14 rewrites start from a function without it */
        if (k % 4 == 3) o.features |= RV_GEN_UNDEF; /* (undef ops made by the generator: blocks in order) */
        o.max_insts = size;
        o.cfg = k % 2 ? RV_GEN_CFG_ANY : RV_GEN_CFG_STRUCTURED;
        ravel_module *m = rv_gen_from_seed(seed0 + k, &o);
        for (ts_allocs a = ts_allocs_of(ravel_module_func(m, 0), k); ts_allocs_next(&a);) {
            ravel_func *g = a.g;
            uint32_t rng = seed0 * 31 + k * 7 + (uint32_t)a.index;
            for (int kind = 0; kind < MACH_KINDS; kind++) {
                ravel_machine *am = alias_machine(g->mach, kind, rng);
                for (int variant = 0; variant < 4; variant++) {
                    ravel_func *h = rv_func_clone(g);
                    h->mach = am;
                    if (variant & 1) t->undefs += make_undefs(h, &rng);
                    if (variant & 2) t->remats += make_remats(h, &rng);
                    check_one(ck, ref, scan, h, kind, t);
                    if ((k + variant) % 3 == 0) { /* one edit's source moved */
                        for (uint32_t i = 0; i < h->insts.len; i++) {
                            rv_inst *e = rv_inst_at(h, i);
                            if (e->op < RAVEL_OP_SPILL || e->op > RAVEL_OP_MOVE) continue;
                            ravel_loc s = e->u.edit.src;
                            e->u.edit.src = (s & RAVEL_SLOT_BIT) ? ravel_slot((s & ~RAVEL_SLOT_BIT) + 1) : (s + 1) % g->mach->regs.len;
                            check_one(ck, ref, scan, h, MACH_KINDS, t);
                            break;
                        }
                    }
                    ravel_func_free(h);
                }
                ravel_machine_free(am);
            }
        }
        ravel_module_free(m);
    }
    ravel_checker_free(ck);
    ravel_checker_free(ref);
    ravel_checker_free(scan);
}

TEST(section14_random)
{
    tally t = {0};
    run(30, 40, 30100, &t);
    run(80, 15, 30500, &t);
    printf("%u functions (%u wide-machine ones, %u of them proven by value numbering), %u proven in all, %u with errors; "
           "%u undefs, %u remats, %u in-place copies made; %u paths run: %u reads missed, %u reports differ, %u unsound proofs; "
           "%u overlap rules fire, %u missed; %u functions with every path run, %u errors on no path\n",
           t.funcs, t.wide, t.wide_proven, t.proven, t.errs, t.undefs, t.remats, t.inplace, t.paths, t.missed, t.differ, t.unsound,
           t.rules, t.rmissed, t.exact, t.extra);
    printf("ck_ext_scan: %u functions with an undef op known from the guard's notes, %u differ from its scan\n", t.noted_undef,
           t.ext_differ);
    CHECK(t.noted_undef > 0);
    CHECK_EQ_INT(t.ext_differ, 0);
    CHECK(t.funcs > 0 && t.errs > 0 && t.undefs > 0 && t.remats > 0 && t.inplace > 0 && t.rules > 0);
    CHECK_EQ_INT(t.missed, 0);
    CHECK_EQ_INT(t.rmissed, 0);
    CHECK(t.exact > 0);
    CHECK_EQ_INT(t.extra, 0);
    CHECK_EQ_INT(t.differ, 0);
    CHECK_EQ_INT(t.unsound, 0);
    CHECK_EQ_INT(t.wide_proven, t.wide);
}

int main(void)
{
    RUN(section14_random);
    return TEST_SUMMARY();
}
