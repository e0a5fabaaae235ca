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

/* Vregs live after each instruction: block liveness (live.c skips edits,
 * so the allocated function gives that of its unallocated form), then
 * each block bottom up by the one per-instruction step of analysis.h
 * (rv_live_step_back; edits stepped over), the set before each step
 * recorded. */
static void build_live(inj *c)
{
    const ravel_func *f = c->f;
    rv_liveness lv;
    rv_liveness_build(&lv, f, &c->cfg);
    uint32_t nv = f->vregs.len;
    uint32_t *dense = rv_xmalloc(sizeof *dense * (nv + 1)), *pos = rv_xmalloc(sizeof *pos * (nv + 1));
    rv_sset live = {dense, pos, 0};
    for (uint32_t b = 0; b < c->nblocks && b < lv.nblocks; b++) {
        const rv_block *bb = &f->blocks.data[b];
        live.n = 0;
        for (uint32_t v = 0; v < nv; v++)
            if (rv_bs_test(lv.out + (size_t)b * lv.nwords, v)) rv_sset_add(&live, v);
        for (uint32_t i = bb->first_inst + bb->ninsts; i-- > bb->first_inst;) {
            for (uint32_t k = 0; k < live.n; k++) rv_bs_set(c->live + (size_t)i * c->lw, live.dense[k]);
            if (!rv_is_edit(IN(c, i))) rv_live_step_back(f, IN(c, i), &live, NULL);
        }
    }
    rv_free(dense);
    rv_free(pos);
    rv_liveness_free(&lv);
}

static void inj_init(inj *c, ravel_func *f, rv_inject_kind k, uint64_t seed, bool analyses, bool hold)
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
    c->lw = rv_bs_words(f->vregs.len);
    rv_cfg_build(&c->cfg, f);
    c->blk = rv_xmalloc(sizeof *c->blk * (c->ninsts ? c->ninsts : 1));
    for (uint32_t b = 0; b < c->nblocks; b++)
        for (uint32_t i = 0; i < f->blocks.data[b].ninsts; i++) c->blk[f->blocks.data[b].first_inst + i] = b;
    if (!analyses || !c->nlocs || (uint64_t)c->ninsts * c->nlocs > MAX_CELLS || (uint64_t)c->ninsts * c->lw > MAX_CELLS ||
        !c->ninsts)
        return;
    c->live = rv_xcalloc((size_t)c->ninsts * c->lw + 1, sizeof *c->live);
    build_live(c);
    if (hold) { /* (the reference's run: only for the kinds that read it) */
        c->hold = rv_xmalloc(sizeof *c->hold * ((size_t)c->ninsts * c->nlocs + 1));
        inj_hold_init(&c->hh, f, &c->cfg, c->nregs, c->nslots);
        c->hh.live = c->live, c->hh.lw = c->lw; /* (a set shows a member live there) */
        inj_hold_build(&c->hh, c->hold);
    }
    c->ok = true;
}

static void inj_free(inj *c)
{
    if (c->hh.ck) inj_hold_free(&c->hh);
    rv_cfg_free(&c->cfg);
    rv_free(c->blk);
    rv_free(c->hold);
    rv_free(c->steady);
    rv_free(c->live);
    rv_vec_free(c->pref);
    rv_vec_free(c->other);
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

void inj_add_site(inj *c, bool pref, uint32_t i, uint32_t a, uint32_t b, uint32_t d)
{
    inj_site s = {i, a, b, d};
    if (pref) rv_vec_push(c->pref, s);
    else rv_vec_push(c->other, s);
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

int rv_inject(ravel_func *f, rv_inject_kind k, uint64_t seed, rv_inject_result *res)
{
    memset(res, 0, sizeof *res);
    res->inst = RAVEL_NONE;
    res->status = RV_INJ_NO_SITE;
    if ((unsigned)k >= RV_INJ_COUNT_) return res->status;
    ravel_func *before = rv_func_clone(f);
    inj c;
    inj_init(&c, f, k, seed, kinds[k].sites != NULL, kinds[k].hold);
    bool applied = apply(&c, &kinds[k], res);
    inj_free(&c);
    if (applied) res->status = rv_func_equal(before, f) ? RV_INJ_UNCHANGED : RV_INJ_CHANGED;
    else snprintf(res->what, sizeof res->what, "no site for %s", kinds[k].info.name);
    ravel_func_free(before);
    return res->status;
}
