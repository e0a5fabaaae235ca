/* inject.c - bug injection into an allocated function (inject.h): the
 * catalogue (from kinds.def), the context of one call and its analyses,
 * the helpers the kinds share, and the one epilogue every kind goes
 * through (inj.h): its site, drawn from the seed; the description; the
 * edit. The kinds themselves are in values.c, constraints.c, gc.c, cfg.c
 * and generic.c; the hold analysis in hold.c.
 * Requires (rv_inject): an allocated, valid, finished function.
 * Guarantees: deterministic in (function, kind, seed); the status is
 * decided by comparing the function with a copy, never by the kind. */
#include "inject/inj.h"

#include <string.h>

/* Analyses are skipped (the kinds that need them find no site) beyond this
 * many cells (instructions x locations, instructions x vreg words). */
enum { MAX_CELLS = 1u << 23 };

/* ---- the catalogue ------------------------------------------------------ */

typedef struct kind_def {
    rv_inject_info info;
    void (*sites)(inj *c);           /* modelled kinds */
    bool (*draw)(inj *c, inj_site *s); /* generic kinds */
    void (*say)(const inj *c, const inj_site *s, char *buf, size_t n);
    void (*edit)(inj *c, const inj_site *s);
    bool hold; /* its sites read the hold analysis */
} kind_def;

static const kind_def kinds[RV_INJ_COUNT_] = {
#define RV_INJ_KIND(ID, NAME, FAMILY, HOLD, FLAGS, EXPECT, SUMMARY, SITES, SAY, EDIT) \
    [RV_INJ_##ID] = {{NAME, SUMMARY, EXPECT, FLAGS, #FAMILY}, SITES, NULL, SAY, EDIT, HOLD},
#define RV_INJ_RAND(ID, NAME, FLAGS, SUMMARY, DRAW, SAY, EDIT) \
    [RV_INJ_##ID] = {{NAME, SUMMARY, "*", (FLAGS) | RV_INJF_GENERIC, "generic"}, NULL, DRAW, SAY, EDIT, false},
#include "inject/kinds.def"
};

const rv_inject_info *rv_inject_info_of(rv_inject_kind k)
{
    return (unsigned)k < RV_INJ_COUNT_ ? &kinds[k].info : NULL;
}

int rv_inject_find(const char *name)
{
    for (int k = 0; name && k < RV_INJ_COUNT_; k++)
        if (strcmp(kinds[k].info.name, name) == 0) return k;
    return -1;
}

bool rv_inject_expected(rv_inject_kind k, const char *kind)
{
    if ((unsigned)k >= RV_INJ_COUNT_ || !kind) return false;
    const char *e = kinds[k].info.expect;
    if (strcmp(e, "*") == 0) return true;
    size_t n = strlen(kind);
    for (const char *p = e; *p;) {
        const char *q = strchr(p, ' ');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len == n && memcmp(p, kind, n) == 0) return true;
        p += len + (q != NULL);
    }
    return false;
}

/* ---- the context and its analyses -------------------------------------- */

/* The bits of row (the vregs live after the instruction before in) that
 * rv_live_step_back(in) may have changed, its operands' and its jump
 * arguments' vregs, made those of live (the set after that step). */
static void live_sync(const ravel_func *f, const rv_inst *in, const rv_sset *live, uint64_t *row)
{
    const rv_operand *ops = rv_ops_of(f, in);
    for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) {
        uint32_t v = ops[k].vreg;
        if (rv_sset_has(live, v)) rv_bs_set(row, v);
        else rv_bs_clear(row, v);
    }
    for (uint32_t s = 0; s < rv_inst_nsuccs(in); s++) {
        const rv_succ *sc = &rv_inst_succs(f, in)[s];
        const uint32_t *args = rv_args_of(f, sc);
        for (uint32_t k = 0; k < sc->nargs; k++) {
            if (rv_sset_has(live, args[k])) rv_bs_set(row, args[k]);
            else rv_bs_clear(row, args[k]);
        }
    }
}

void inj_live_build(const ravel_func *f, const rv_cfg *cfg, bool plain, uint64_t *out, uint32_t lw)
{
    rv_liveness lv;
    rv_liveness_build(&lv, f, cfg);
    uint32_t nv = f->vregs.len;
    uint32_t *dense = rv_xmalloc(sizeof *dense * (nv + 1)), *pos = rv_xmalloc(sizeof *pos * (nv + 1));
    rv_sset live = {dense, pos, 0};
    for (uint32_t b = 0; b < f->layout.len && b < lv.nblocks; b++) {
        const rv_block *bb = &f->blocks.data[b];
        live.n = 0;
        for (uint32_t w = 0; w < lv.nwords && !plain; w++) /* (the live-out set, word by word) */
            for (uint64_t bits = lv.out[(size_t)b * lv.nwords + w]; bits; bits &= bits - 1) {
                uint32_t v = w * 64 + (uint32_t)__builtin_ctzll(bits);
                if (v < nv) rv_sset_add(&live, v);
            }
        for (uint32_t v = 0; v < nv && plain; v++) /* (plain: vreg by vreg) */
            if (rv_bs_test(lv.out + (size_t)b * lv.nwords, v)) rv_sset_add(&live, v);
        for (uint32_t i = bb->first_inst + bb->ninsts; i-- > bb->first_inst;) {
            uint64_t *row = out + (size_t)i * lw;
            const rv_inst *below = i + 1 < bb->first_inst + bb->ninsts ? &f->insts.data[i + 1] : NULL;
            if (below && !plain) {
                memcpy(row, row + lw, sizeof *row * lw);
                if (!rv_is_edit(below)) live_sync(f, below, &live, row);
            } else {
                for (uint32_t k = 0; k < live.n; k++) rv_bs_set(row, live.dense[k]);
            }
            if (!rv_is_edit(&f->insts.data[i])) rv_live_step_back(f, &f->insts.data[i], &live, NULL);
        }
    }
    rv_free(dense);
    rv_free(pos);
    rv_liveness_free(&lv);
}

/* Forgets the analyses (the checker stays, for the next function). */
static void an_clear(inj_an *an)
{
    if (an->base) rv_cfg_free(&an->cfg);
    if (an->hh) inj_hold_free(an->hh);
    rv_free(an->hh);
    rv_free(an->blk);
    rv_free(an->live);
    rv_free(an->hold);
    rv_free(an->steady);
    ravel_func_free(an->of);
    ravel_checker *ck = an->ck;
    bool plain = an->plain;
    inj_sites pref = an->pref, other = an->other;
    memset(an, 0, sizeof *an);
    an->ck = ck, an->plain = plain;
    an->pref = pref, an->other = other; /* (room only: each call empties them) */
}

/* The analyses are of f: kept if the function analysed equals f, else
 * forgotten and f copied. */
static void an_of(inj_an *an, const ravel_func *f)
{
    if (an->of && rv_func_equal(an->of, f)) return;
    an_clear(an);
    an->of = rv_func_clone(f);
}

/* The CFG and the block of each instruction (every kind). */
static void an_base(inj_an *an)
{
    const ravel_func *f = an->of;
    if (an->base) return;
    an->base = true;
    rv_cfg_build(&an->cfg, f);
    an->blk = rv_xmalloc(sizeof *an->blk * (f->insts.len ? f->insts.len : 1));
    for (uint32_t b = 0; b < f->layout.len; b++)
        for (uint32_t i = 0; i < f->blocks.data[b].ninsts; i++) an->blk[f->blocks.data[b].first_inst + i] = b;
}

/* The analyses' size checked (a modelled kind), then liveness and the
 * hold analysis, prepared (a kind whose HOLD column is 1: the others read
 * no cell, so no liveness either): the reference runs at the first cell
 * read. Skipped beyond MAX_CELLS (an->ok false). */
static void an_analyses(inj_an *an, bool hold)
{
    const ravel_func *f = an->of;
    uint32_t nregs = f->mach->regs.len, nlocs = nregs + f->nslots, ninsts = f->insts.len;
    if (!an->tried) {
        an->tried = true;
        an->lw = rv_bs_words(f->vregs.len);
        an->ok = nlocs && ninsts && (uint64_t)ninsts * nlocs <= MAX_CELLS && (uint64_t)ninsts * an->lw <= MAX_CELLS;
    }
    if (!an->ok || !hold || an->hh) return;
    an->live = rv_xcalloc((size_t)ninsts * an->lw + 1, sizeof *an->live);
    inj_live_build(f, &an->cfg, an->plain, an->live, an->lw);
    an->hold = rv_xmalloc(sizeof *an->hold * ((size_t)ninsts * nlocs + 1));
    an->hh = rv_xmalloc(sizeof *an->hh);
    inj_hold_prepare(an->hh, f, &an->cfg, nregs, f->nslots);
    if (!an->ck) an->ck = ravel_checker_new();
    an->hh->ck = an->ck, an->hh->ck_shared = true;
    an->hh->live = an->live, an->hh->lw = an->lw; /* (a set shows a member live there) */
    an->hh->steady_plain = an->hh->plain = an->plain;
    inj_hold_table(an->hh, an->hold);
}

bool inj_steady(inj *c)
{
    inj_an *an = c->an;
    if (!an->steady_tried) {
        an->steady_tried = true;
        an->steady = rv_xmalloc(sizeof *an->steady * ((size_t)c->ninsts * c->nlocs + 1));
        an->steady_ok = inj_hold_build_steady(an->hh, an->steady);
    }
    c->steady = an->steady;
    return an->steady_ok;
}

/* The context of one call on f (an->of equal to it): the analyses the
 * kind reads (analyses: a modelled kind; hold: its HOLD column), from an. */
static void inj_init(inj *c, ravel_func *f, rv_inject_kind k, uint64_t seed, inj_an *an, bool analyses, bool hold)
{
    memset(c, 0, sizeof *c);
    c->f = f;
    c->m = f->mach;
    c->rng = rv_hash64(seed ^ (0x1ec7u + (uint64_t)k * 0x9e3779b97f4a7c15ull));
    c->nregs = f->mach->regs.len;
    c->nslots = f->nslots;
    c->nlocs = c->nregs + c->nslots;
    c->ninsts = f->insts.len;
    c->nblocks = f->layout.len;
    c->an = an;
    c->pref = an->pref, c->other = an->other; /* (an's room) */
    c->pref.len = c->other.len = 0;
    an_base(an);
    c->cfg = an->cfg, c->blk = an->blk;
    if (!analyses) return;
    an_analyses(an, hold);
    c->lw = an->lw, c->live = an->live, c->ok = an->ok;
    c->hold = hold ? an->hold : NULL;
}

/* The site lists go back to an, for the next call's sites. */
static void inj_free(inj *c)
{
    c->an->pref = c->pref, c->an->other = c->other;
}

/* ---- what the kinds share (inj.h) --------------------------------------- */

bool inj_clobbers(const inj *c, uint32_t i, ravel_loc r)
{
    const rv_inst *in = IN(c, i);
    if ((in->flags & RV_IF_CLOBBERS) && !in->nclob) return false;
    const uint32_t *regs;
    uint32_t n = rv_inst_clobbers(c->f, in, &regs);
    for (uint32_t k = 0; k < n; k++)
        if (regs[k] == r) return true;
    return false;
}

bool inj_is_reuse_target(const inj *c, uint32_t i, uint32_t k)
{
    const rv_inst *in = IN(c, i);
    for (uint32_t d = 0; d < in->ndefs; d++)
        if (OPS(c, i)[d].kind == RAVEL_C_REUSE && OPS(c, i)[d].arg == k) return true;
    return false;
}

bool inj_free_use(const inj *c, uint32_t i, uint32_t k)
{
    const rv_operand *o = &OPS(c, i)[IN(c, i)->ndefs + k];
    return (o->kind == RAVEL_C_REG || o->kind == RAVEL_C_ANY) && !inj_is_reuse_target(c, i, k);
}


void inj_where(const inj *c, uint32_t i, char *buf, size_t n)
{
    const rv_inst *in = IN(c, i);
    snprintf(buf, n, "block %s inst %u (%s)", rv_block_name(c->f, c->blk[i]), i - c->f->blocks.data[c->blk[i]].first_inst,
             rv_is_edit(in) ? rv_opcode_name(in->op) : rv_inst_mnemonic(c->f, in));
}

void inj_move_def(inj *c, uint32_t i, uint32_t k, ravel_loc R)
{
    rv_operand *o = &OPS(c, i)[k];
    ravel_loc L = o->loc;
    o->loc = R;
    if (!is_block_last(c, i) && rv_edit_kind(L, R) != RAVEL_OP_OTHER)
        rv_edit_insert(c->f, c->blk[i], i + 1, rv_edit_kind(L, R), L, R);
}

void inj_rewrite_smap(inj *c, uint32_t i, uint32_t drop, uint32_t add)
{
    const rv_inst *in = IN(c, i);
    uint32_t n = (in->flags & RV_IF_STACKMAP) ? in->u.smap.n : 0, *tmp = rv_xmalloc(sizeof *tmp * (n + 1)), m = 0;
    for (uint32_t k = 0; k < n; k++)
        if (k != drop) tmp[m++] = c->f->u32.data[in->u.smap.first + k];
    if (drop == RAVEL_NONE) tmp[m++] = add;
    rv_inst_set_stackmap(c->f, i, tmp, m);
    rv_free(tmp);
}

void inj_set_loc_edit(inj *c, const inj_site *s)
{
    OPS(c, s->i)[s->a].loc = s->b;
    rv_note_slot(c->f, s->b);
}

void inj_move_def_edit(inj *c, const inj_site *s) { inj_move_def(c, s->i, s->a, s->b); }

void inj_remove_edit(inj *c, const inj_site *s) { rv_inst_remove(c->f, s->i); }

/* ---- the epilogue, once ------------------------------------------------- */

/* Draws one of the sites found (preferred ones first); false if none. */
static bool pick(inj *c, inj_site *s)
{
    if (c->pref.len) *s = c->pref.data[below(c, c->pref.len)];
    else if (c->other.len) *s = c->other.data[below(c, c->other.len)];
    else return false;
    return true;
}

/* The kind's site (its sites found and one drawn, or drawn at random),
 * what is done there (after the place, for a modelled kind), the edit. */
static bool apply(inj *c, const kind_def *k, rv_inject_result *res)
{
    inj_site s;
    size_t at = 0;
    if (k->sites) {
        if (!c->ok) return false;
        k->sites(c);
        if (!pick(c, &s)) return false;
        char w[96];
        inj_where(c, s.i, w, sizeof w);
        at = (size_t)snprintf(res->what, sizeof res->what, "%s: ", w);
    } else if (!c->nregs || !k->draw(c, &s)) {
        return false;
    }
    k->say(c, &s, res->what + at, sizeof res->what - at);
    k->edit(c, &s);
    res->inst = s.i;
    return true;
}

struct rv_injector {
    inj_an an;
};

rv_injector *rv_injector_new(void) { return rv_xcalloc(1, sizeof(rv_injector)); }

void rv_injector_free(rv_injector *ij)
{
    if (!ij) return;
    an_clear(&ij->an);
    if (ij->an.ck) ravel_checker_free(ij->an.ck);
    rv_vec_free(ij->an.pref);
    rv_vec_free(ij->an.other);
    rv_free(ij);
}

void rv_injector_forget(rv_injector *ij) { an_clear(&ij->an); }

void rv_injector_set_plain(rv_injector *ij, bool plain)
{
    an_clear(&ij->an);
    ij->an.plain = plain;
}

int rv_inject_with(rv_injector *ij, ravel_func *f, rv_inject_kind k, uint64_t seed, rv_inject_result *res)
{
    memset(res, 0, sizeof *res);
    res->inst = RAVEL_NONE;
    res->status = RV_INJ_NO_SITE;
    if ((unsigned)k >= RV_INJ_COUNT_) return res->status;
    an_of(&ij->an, f); /* (also the copy the status is decided on) */
    inj c;
    inj_init(&c, f, k, seed, &ij->an, kinds[k].sites != NULL, kinds[k].hold);
    bool applied = apply(&c, &kinds[k], res);
    inj_free(&c);
    if (applied) res->status = rv_func_equal(ij->an.of, f) ? RV_INJ_UNCHANGED : RV_INJ_CHANGED;
    else snprintf(res->what, sizeof res->what, "no site for %s", kinds[k].info.name);
    return res->status;
}

int rv_inject(ravel_func *f, rv_inject_kind k, uint64_t seed, rv_inject_result *res)
{
    rv_injector *ij = rv_injector_new();
    int st = rv_inject_with(ij, f, k, seed, res);
    rv_injector_free(ij);
    return st;
}
