/* inject.c - bug injection into an allocated function (inject.h).
 *
 * One pass per call: the analyses (hold: which vreg each location holds
 * before every instruction; live: which vregs are live after it), then the
 * kind's site search over the whole function, one site drawn from the seed,
 * one edit of the function. Sites a kind prefers (the ones where the bug
 * is most likely to matter: the value overwritten is live, the register
 * picked holds another value, ...) are drawn first; the others only when
 * there is no preferred one.
 *
 * Invariants of the hold analysis (per location, one uint32):
 *   H_TOP      block not reached yet (identity of the meet);
 *   H_UNK      unknown or conflicted (never written on some path, clobbered,
 *              dropped at a safepoint, paths disagree);
 *   v          the current value of vreg v (v < H_STALE);
 *   v|H_STALE  a copy of v left behind by a redefinition of v (a value of
 *              an earlier definition, e.g. of the previous loop iteration).
 * It follows the order of an op in docs/format.md section 6 (early defs,
 * clobbers and the safepoint, late defs; a def makes the other copies of
 * its vreg stale; block arguments substituted on edges).
 */
#include "allocator/inject.h"
#include "allocator/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define H_UNK 0xffffffffu
#define H_TOP 0xfffffffeu
#define H_STALE 0x80000000u
static bool h_valid(uint32_t h) { return h < H_STALE; }
static bool h_stale(uint32_t h) { return h != H_UNK && h != H_TOP && (h & H_STALE); }

/* Analyses are skipped (the kinds that need them find no site) beyond this
 * many cells (instructions x locations, instructions x vreg words). */
enum { MAX_CELLS = 1u << 23 };

static const rv_inject_info infos[RV_INJ_COUNT_] = {
    {"use-reg", "wrong register for a use: an operand reads another register of its class",
     "use-wrong-vreg use-unknown use-conflicted use-empty", 0},
    {"drop-spill", "dropped spill: a spill edit is removed (the slot keeps its old content)",
     "use-wrong-vreg use-unknown use-conflicted use-empty", 0},
    {"drop-reload", "dropped reload: a reload edit is removed (the register keeps its old content)",
     "use-wrong-vreg use-unknown use-conflicted use-empty", 0},
    {"reload-slot", "reload from the wrong slot: a reload reads another slot",
     "use-wrong-vreg use-unknown use-conflicted use-empty", 0},
    {"slot-reuse", "slot reused while still live: two slots merged where a spill overwrites a live value",
     "use-wrong-vreg use-unknown use-conflicted use-empty stackmap-not-ref", 0},
    {"move-swap", "move source and destination swapped (a spill becomes a reload and back)",
     "use-wrong-vreg use-unknown use-conflicted use-empty", 0},
    {"pmove-cycle", "parallel move sequentialised wrongly: a cycle broken without its temporary, or a source "
                    "overwritten before it is read",
     "use-wrong-vreg use-unknown use-conflicted use-empty", 0},
    {"call-clobber", "call clobber ignored: a use after a call reads the clobbered register that held its value",
     "use-wrong-vreg use-unknown use-conflicted use-empty", 0},
    {"fixed", "fixed constraint ignored: an operand of fixed(R) is placed in another register",
     "not-fixed", RV_INJF_RULE},
    {"reuse", "reuse constraint ignored: a reuse(K) def gets its own register (then a move back)",
     "reuse-mismatch", RV_INJF_RULE},
    {"early-def", "early def placed on a use's register (then a move to where it was)",
     "early-def-overlap", RV_INJF_RULE},
    {"edge-move", "resolution move missing on one CFG edge: an edit at an edge into a join or out of a branch "
                  "is removed",
     "use-wrong-vreg use-unknown use-conflicted use-empty", 0},
    {"spill-one-path", "spill on only one path to a join: a spill before a branch is moved into one successor",
     "use-wrong-vreg use-unknown use-conflicted use-empty", 0},
    {"stale-loop", "stale value read after a redefinition: a use in a loop reads a copy of the previous "
                   "iteration's value",
     "use-wrong-vreg use-unknown use-conflicted use-empty", 0},
    {"arg-swap", "block-argument swap mis-ordered: edge moves into a block with parameters reordered or their "
                 "destinations swapped",
     "use-wrong-vreg use-unknown use-conflicted use-empty", 0},
    {"smap-missing", "stackmap missing a live reference slot", "use-wrong-vreg use-unknown use-conflicted use-empty",
     RV_INJF_GC},
    {"smap-nonref", "stackmap listing a slot that holds no reference", "stackmap-not-ref", RV_INJF_GC | RV_INJF_RULE},
    {"ref-in-reg", "reference kept in a register across a safepoint (the moved object is read from a stale "
                   "register)",
     "use-wrong-vreg use-unknown use-conflicted use-empty", RV_INJF_GC},
    {"reg-on-stack", "a reg use read from the slot that holds its value (a memory operand where a register is "
                     "required)",
     "not-reg", RV_INJF_RULE},
    {"stack-in-reg", "a stack use given a register", "not-stack", RV_INJF_RULE},
    {"late-use", "a def placed on a late use's register (then a move to where it was)", "late-use-overwritten",
     RV_INJF_RULE},
    {"defs-one-reg", "two defs of one instruction given the same register", "def-overlap", RV_INJF_RULE},
    {"wrong-class", "a use read from a register of another class (register banks confused)", "bad-class",
     RV_INJF_RULE},
    {"reserved", "a reserved register handed out to a def (then a move to where it was)", "reserved-misuse",
     RV_INJF_RULE},
    {"smap-dropped", "a safepoint's stackmap not emitted", "stackmap-missing", RV_INJF_RULE | RV_INJF_GC},
    {"no-loc", "an operand left without a location", "missing-location", RV_INJF_RULE},
    {"slot-to-slot", "a spill of a value already in another slot turned into a slot-to-slot move", "slot-to-slot",
     RV_INJF_RULE},
    {"rand-loc", "generic: an operand's location changed at random", "*", RV_INJF_GENERIC},
    {"rand-drop-edit", "generic: any edit dropped", "*", RV_INJF_GENERIC},
    {"rand-redirect", "generic: an edit's source or destination changed at random", "*", RV_INJF_GENERIC},
    {"rand-swap-edits", "generic: an edit swapped with its neighbour", "*", RV_INJF_GENERIC},
    {"rand-drop-smap", "generic: any stackmap slot dropped", "*", RV_INJF_GENERIC | RV_INJF_GC},
    {"rand-add-smap", "generic: any slot added to a stackmap", "*", RV_INJF_GENERIC | RV_INJF_GC},
    {"rand-insert-edit", "generic: a random edit inserted before any instruction", "*", RV_INJF_GENERIC},
};

const rv_inject_info *rv_inject_info_of(rv_inject_kind k)
{
    return (unsigned)k < RV_INJ_COUNT_ ? &infos[k] : NULL;
}

int rv_inject_find(const char *name)
{
    for (int k = 0; name && k < RV_INJ_COUNT_; k++)
        if (strcmp(infos[k].name, name) == 0) return k;
    return -1;
}

bool rv_inject_expected(rv_inject_kind k, const char *kind)
{
    if ((unsigned)k >= RV_INJ_COUNT_ || !kind) return false;
    const char *e = infos[k].expect;
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

/* ---- context ------------------------------------------------------------ */

typedef struct site {
    uint32_t i, a, b, c; /* instruction and kind-specific values */
} site;

typedef struct inj {
    ravel_func *f;
    const ravel_machine *m;
    uint64_t rng;
    uint32_t nregs, nslots, nlocs, ninsts, nblocks;
    uint32_t *blk;  /* instruction -> block */
    uint32_t *hold; /* before each instruction: nlocs cells */
    uint32_t *steady; /* the same in the second and later iterations of loops (stale-loop only) */
    uint32_t lw;    /* words of a vreg bitset */
    uint64_t *live; /* after each instruction: lw words */
    rv_cfg cfg;     /* of the allocated function */
    bool ok;        /* hold and live were built */
    RV_VEC(site) pref, other; /* the sites found, preferred first */
} inj;

static uint32_t below(inj *c, uint32_t n) { return n ? rv_rng_below(&c->rng, n) : 0; }

static uint32_t lix(const inj *c, ravel_loc l) { return rv_loc_index(c->nregs, c->nslots, l); } /* RAVEL_NONE if out of range */
static ravel_loc loc_of(const inj *c, uint32_t x) { return rv_loc_at(c->nregs, x); }

static uint32_t H(const inj *c, uint32_t i, ravel_loc l)
{
    uint32_t x = lix(c, l);
    return x == RAVEL_NONE ? H_UNK : c->hold[(size_t)i * c->nlocs + x];
}
static bool live_after(const inj *c, uint32_t i, uint32_t v)
{
    return v < c->f->vregs.len && rv_bs_test(c->live + (size_t)i * c->lw, v);
}
static bool is_ref(const inj *c, uint32_t v) { return v < c->f->vregs.len && c->f->vregs.data[v].ref; }
static uint32_t vcls(const inj *c, uint32_t v) { return c->f->vregs.data[v].cls; }
static rv_inst *IN(const inj *c, uint32_t i) { return &c->f->insts.data[i]; }
static rv_operand *OPS(const inj *c, uint32_t i) { return &c->f->ops.data[IN(c, i)->first_op]; }
static uint32_t vnum(const inj *c, uint32_t v) { return c->f->vregs.data[v].num; }
static bool is_block_last(const inj *c, uint32_t i)
{
    const rv_block *b = &c->f->blocks.data[c->blk[i]];
    return i + 1 == b->first_inst + b->ninsts;
}

static void add_site(inj *c, bool pref, uint32_t i, uint32_t a, uint32_t b, uint32_t d)
{
    site s = {i, a, b, d};
    if (pref) rv_vec_push(c->pref, s);
    else rv_vec_push(c->other, s);
}

/* Draws a site (preferred ones first); false if there is none. */
static bool pick(inj *c, site *s)
{
    if (c->pref.len) *s = c->pref.data[below(c, c->pref.len)];
    else if (c->other.len) *s = c->other.data[below(c, c->other.len)];
    else return false;
    return true;
}

/* ---- the hold analysis -------------------------------------------------- */

static void h_def(const inj *c, uint32_t *st, uint32_t v, ravel_loc l)
{
    uint32_t x = lix(c, l);
    if (x == RAVEL_NONE) return;
    for (uint32_t k = 0; k < c->nlocs; k++)
        if (st[k] == v) st[k] = v | H_STALE;
    st[x] = v;
}

static bool smap_lists(const ravel_func *f, const rv_inst *in, uint32_t slot)
{
    if (!(in->flags & RV_IF_STACKMAP)) return false;
    for (uint32_t k = 0; k < in->u.smap.n; k++)
        if (f->u32.data[in->u.smap.first + k] == slot) return true;
    return false;
}

static bool defines_loc(const inj *c, uint32_t i, ravel_loc l) { return rv_inst_defines_loc(c->f, IN(c, i), l); }

static bool clobbers(const inj *c, uint32_t i, ravel_loc r)
{
    const rv_inst *in = IN(c, i);
    if ((in->flags & RV_IF_CLOBBERS) && !in->nclob) return false;
    const uint32_t *regs;
    uint32_t n = rv_inst_clobbers(c->f, in, &regs);
    for (uint32_t k = 0; k < n; k++)
        if (regs[k] == r) return true;
    return false;
}

static void h_safepoint(const inj *c, uint32_t *st, const rv_inst *in)
{
    const ravel_func *f = c->f;
    for (uint32_t x = 0; x < c->nlocs; x++) {
        uint32_t h = st[x];
        if (h == H_UNK || h == H_TOP) continue;
        uint32_t v = h & ~H_STALE;
        bool listed = x >= c->nregs && smap_lists(f, in, x - c->nregs);
        if (!f->mach->gc_nonmoving) {
            if ((is_ref(c, v) && !listed) || (listed && !is_ref(c, v))) st[x] = H_UNK;
        } else if (is_ref(c, v)) {
            bool rooted = false;
            for (uint32_t k = 0; k < in->u.smap.n && (in->flags & RV_IF_STACKMAP); k++) {
                uint32_t y = lix(c, ravel_slot(f->u32.data[in->u.smap.first + k]));
                rooted |= y != RAVEL_NONE && st[y] == v;
            }
            if (!rooted) st[x] = H_UNK;
        }
    }
}

static void h_inst(const inj *c, uint32_t *st, uint32_t i)
{
    const rv_inst *in = IN(c, i);
    if (rv_is_edit(in)) {
        uint32_t d = lix(c, in->u.edit.dst), s = lix(c, in->u.edit.src);
        if (d != RAVEL_NONE) st[d] = s == RAVEL_NONE ? H_UNK : st[s];
        return;
    }
    const rv_operand *o = OPS(c, i);
    for (uint32_t k = 0; k < in->ndefs; k++)
        if (rv_op_is_early(&o[k])) h_def(c, st, o[k].vreg, o[k].loc);
    if (!((in->flags & RV_IF_CLOBBERS) && !in->nclob)) {
        const uint32_t *regs;
        uint32_t n = rv_inst_clobbers(c->f, in, &regs);
        for (uint32_t k = 0; k < n; k++)
            if (regs[k] < c->nregs && !defines_loc(c, i, regs[k])) st[regs[k]] = H_UNK;
    }
    if (in->flags & RV_IF_SAFEPOINT) h_safepoint(c, st, in);
    for (uint32_t k = 0; k < in->ndefs; k++)
        if (!rv_op_is_early(&o[k])) h_def(c, st, o[k].vreg, o[k].loc);
}

/* The state on edge s: arguments become parameters, old copies of the
 * parameters become stale. */
static void h_edge(const inj *c, const uint32_t *st, uint32_t *out, const rv_succ *s)
{
    const ravel_func *f = c->f;
    const rv_block *b = &f->blocks.data[s->block];
    const uint32_t *par = rv_block_params(f, b), *arg = rv_succ_args(f, s);
    uint32_t n = s->nargs < b->nparams ? s->nargs : b->nparams;
    for (uint32_t x = 0; x < c->nlocs; x++) {
        uint32_t h = st[x], r = h;
        if (h_valid(h)) {
            bool done = false;
            for (uint32_t k = 0; k < n && !done; k++)
                if (arg[k] == h) r = par[k], done = true;
            for (uint32_t k = 0; k < b->nparams && !done; k++)
                if (par[k] == h) r = h | H_STALE, done = true;
        }
        out[x] = r;
    }
}

static uint32_t h_meet(uint32_t a, uint32_t b)
{
    if (a == H_TOP) return b;
    if (b == H_TOP || a == b) return a;
    return H_UNK;
}

/* A back edge p -> h: h dominates p. */
static bool back_edge(const inj *c, uint32_t p, uint32_t h) { return rv_cfg_dominates(&c->cfg, h, p); }

static bool is_header(const inj *c, uint32_t h)
{
    for (uint32_t k = c->cfg.pred_start[h]; k < c->cfg.pred_start[h + 1]; k++)
        if (back_edge(c, c->cfg.pred[k], h)) return true;
    return false;
}

/* The hold states before every instruction into out. steady == false: the
 * must-analysis over all paths. steady == true: the states of the second
 * and later iterations of every loop: a loop header's entry is the meet
 * over its back edges only, of the states the first analysis (c->hold)
 * gives at the latches' ends; so a copy of v the latch leaves in L is
 * still seen after the next iteration redefines v (stale). */
static void build_hold(inj *c, uint32_t *out, bool steady)
{
    ravel_func *f = c->f;
    uint32_t nl = c->nlocs;
    uint32_t *entry = rv_xmalloc(sizeof *entry * (size_t)c->nblocks * nl);
    uint32_t *st = rv_xmalloc(sizeof *st * nl), *e = rv_xmalloc(sizeof *e * nl);
    for (size_t k = 0; k < (size_t)c->nblocks * nl; k++) entry[k] = H_TOP;
    for (uint32_t k = 0; k < nl && c->nblocks; k++) entry[k] = H_UNK;
    bool *hdr = rv_xcalloc(c->nblocks ? c->nblocks : 1, sizeof *hdr);
    for (uint32_t b = 0; steady && b < c->nblocks; b++) {
        if (c->cfg.rpo_index[b] == RAVEL_NONE || !(hdr[b] = is_header(c, b))) continue;
        for (uint32_t k = c->cfg.pred_start[b]; k < c->cfg.pred_start[b + 1]; k++) {
            uint32_t p = c->cfg.pred[k];
            if (!back_edge(c, p, b)) continue;
            const rv_block *pb = &f->blocks.data[p];
            uint32_t t = pb->first_inst + pb->ninsts - 1;
            memcpy(st, c->hold + (size_t)t * nl, sizeof *st * nl);
            h_inst(c, st, t);
            const rv_inst *T = IN(c, t);
            for (uint32_t q = 0; q < rv_inst_nsuccs(T); q++) {
                const rv_succ *sc = &rv_inst_succs(f, T)[q];
                if (sc->block != b) continue;
                h_edge(c, st, e, sc);
                for (uint32_t x = 0; x < nl; x++) entry[(size_t)b * nl + x] = h_meet(entry[(size_t)b * nl + x], e[x]);
            }
        }
    }
    /* Round-robin in reverse post-order over the blocks whose entry
     * changed (dirty); a block's states are recorded each time it is
     * processed, so the last recording is that of its final entry. */
    bool *dirty = rv_xcalloc(c->nblocks ? c->nblocks : 1, sizeof *dirty), *done = rv_xcalloc(c->nblocks ? c->nblocks : 1, sizeof *done);
    for (uint32_t b = 0; b < c->nblocks; b++) dirty[b] = entry[(size_t)b * nl] != H_TOP;
    bool changed = true;
    for (unsigned round = 0; changed && round < 64; round++) {
        changed = false;
        for (uint32_t r = 0; r < c->cfg.nrpo; r++) {
            uint32_t b = c->cfg.rpo[r];
            const rv_block *bb = &f->blocks.data[b];
            if (!dirty[b] || !bb->ninsts) continue;
            dirty[b] = false;
            done[b] = true;
            memcpy(st, entry + (size_t)b * nl, sizeof *st * nl);
            for (uint32_t x = 0; x < nl; x++)
                if (st[x] == H_TOP) st[x] = H_UNK;
            for (uint32_t i = bb->first_inst; i < bb->first_inst + bb->ninsts; i++) {
                memcpy(out + (size_t)i * nl, st, sizeof *st * nl);
                h_inst(c, st, i);
            }
            const rv_inst *t = rv_block_term(f, bb);
            for (uint32_t k = 0; k < rv_inst_nsuccs(t); k++) {
                const rv_succ *s = &rv_inst_succs(f, t)[k];
                if (hdr[s->block] && !back_edge(c, b, s->block)) continue; /* steady: entry edges ignored */
                h_edge(c, st, e, s);
                uint32_t *d = entry + (size_t)s->block * nl;
                for (uint32_t x = 0; x < nl; x++) {
                    uint32_t m = h_meet(d[x], e[x]);
                    if (m != d[x]) d[x] = m, changed = dirty[s->block] = true;
                }
            }
        }
    }
    for (uint32_t b = 0; b < c->nblocks; b++) { /* never reached: nothing known */
        const rv_block *bb = &f->blocks.data[b];
        if (done[b]) continue;
        for (size_t k = (size_t)bb->first_inst * nl; k < (size_t)(bb->first_inst + bb->ninsts) * nl; k++) out[k] = H_UNK;
    }
    rv_free(dirty);
    rv_free(done);
    rv_free(hdr);
    rv_free(entry);
    rv_free(st);
    rv_free(e);
}

/* Vregs live after each instruction: block liveness (live.c skips edits,
 * so the allocated function gives that of its unallocated form), then a
 * backward walk inside each block. */
static void build_live(inj *c)
{
    rv_liveness lv;
    rv_liveness_build(&lv, c->f, &c->cfg);
    uint64_t *cur = rv_xcalloc(c->lw ? c->lw : 1, sizeof *cur);
    const ravel_func *f = c->f;
    for (uint32_t b = 0; b < c->nblocks && b < lv.nblocks; b++) {
        const rv_block *bb = &f->blocks.data[b];
        memcpy(cur, lv.out + (size_t)b * lv.nwords, sizeof *cur * c->lw);
        for (uint32_t i = bb->first_inst + bb->ninsts; i-- > bb->first_inst;) {
            memcpy(c->live + (size_t)i * c->lw, cur, sizeof *cur * c->lw);
            const rv_inst *in = IN(c, i);
            if (rv_is_edit(in)) continue;
            const rv_operand *o = OPS(c, i);
            for (uint32_t k = 0; k < in->ndefs; k++) rv_bs_clear(cur, o[k].vreg);
            for (uint32_t k = 0; k < in->nuses; k++) rv_bs_set(cur, o[in->ndefs + k].vreg);
            for (uint32_t s = 0; s < rv_inst_nsuccs(in); s++) {
                const rv_succ *sc = &rv_inst_succs(f, in)[s];
                for (uint32_t k = 0; k < sc->nargs; k++) rv_bs_set(cur, rv_succ_args(f, sc)[k]);
            }
        }
    }
    rv_free(cur);
    rv_liveness_free(&lv);
}

static void inj_init(inj *c, ravel_func *f, rv_inject_kind k, uint64_t seed, bool analyses)
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
    if (!analyses || !c->nlocs || (uint64_t)c->ninsts * c->nlocs > MAX_CELLS || (uint64_t)c->ninsts * c->lw > MAX_CELLS || !c->ninsts)
        return;
    c->hold = rv_xmalloc(sizeof *c->hold * ((size_t)c->ninsts * c->nlocs + 1));
    c->live = rv_xcalloc((size_t)c->ninsts * c->lw + 1, sizeof *c->live);
    build_hold(c, c->hold, false);
    build_live(c);
    c->ok = true;
}

static void inj_free(inj *c)
{
    rv_cfg_free(&c->cfg);
    rv_free(c->blk);
    rv_free(c->hold);
    rv_free(c->steady);
    rv_free(c->live);
    rv_vec_free(c->pref);
    rv_vec_free(c->other);
}

/* ---- edits of the function ---------------------------------------------- */

/* (ir/edit.c: rv_edit_insert, rv_inst_remove, rv_inst_move_before, rv_inst_swap,
 * rv_inst_set_stackmap, rv_note_slot) */

static char *loc_s(const inj *c, ravel_loc l, char *buf) { return (char *)rv_loc_str(c->m, l, buf); }

static void where(const inj *c, uint32_t i, char *buf, size_t n)
{
    const rv_inst *in = IN(c, i);
    snprintf(buf, n, "block %s inst %u (%s)", rv_block_name(c->f, c->blk[i]), i - c->f->blocks.data[c->blk[i]].first_inst,
             rv_is_edit(in) ? rv_opcode_name(in->op) : rv_inst_mnemonic(c->f, in));
}

#define SAY(res, ...) snprintf((res)->what, sizeof (res)->what, __VA_ARGS__)

/* ---- kinds: uses and registers ----------------------------------------- */

static bool is_reuse_target(const inj *c, uint32_t i, uint32_t k)
{
    const rv_inst *in = IN(c, i);
    for (uint32_t d = 0; d < in->ndefs; d++)
        if (OPS(c, i)[d].kind == RAVEL_C_REUSE && OPS(c, i)[d].arg == k) return true;
    return false;
}

/* A use that an allocator may place anywhere of its kind (not fixed, not
 * tied to a reuse def). */
static bool free_use(const inj *c, uint32_t i, uint32_t k)
{
    const rv_operand *o = &OPS(c, i)[IN(c, i)->ndefs + k];
    return (o->kind == RAVEL_C_REG || o->kind == RAVEL_C_ANY) && !is_reuse_target(c, i, k);
}

static const rv_class *cls_of(const inj *c, uint32_t cls) { return &c->m->classes.data[cls]; }

static bool k_use_reg(inj *c, rv_inject_result *res)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in)) continue;
        for (uint32_t k = 0; k < in->nuses; k++) {
            const rv_operand *o = &OPS(c, i)[in->ndefs + k];
            if (!free_use(c, i, k) || !ravel_loc_is_reg(o->loc) || o->loc >= c->nregs) continue;
            const rv_class *cl = cls_of(c, vcls(c, o->vreg));
            for (uint32_t r = 0; r < cl->alloc.len; r++) {
                uint32_t R = cl->alloc.data[r], h = H(c, i, R);
                if (R != o->loc && h != o->vreg) add_site(c, h_valid(h), i, k, R, 0);
            }
        }
    }
    site s;
    if (!pick(c, &s)) return false;
    rv_operand *o = &OPS(c, s.i)[IN(c, s.i)->ndefs + s.a];
    char w[96], a[32], b[32];
    where(c, s.i, w, sizeof w);
    SAY(res, "%s: use %u of v%u read from %s instead of %s", w, s.a, vnum(c, o->vreg), loc_s(c, s.b, a), loc_s(c, o->loc, b));
    o->loc = s.b;
    res->inst = s.i;
    return true;
}

static bool k_drop_edit(inj *c, rv_inject_result *res, ravel_opcode kind)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (in->op != kind) continue;
        uint32_t h = H(c, i, in->u.edit.src);
        add_site(c, h_valid(h) && live_after(c, i, h), i, 0, 0, 0);
    }
    site s;
    if (!pick(c, &s)) return false;
    char w[96], a[32], b[32];
    where(c, s.i, w, sizeof w);
    SAY(res, "%s: dropped %s = %s %s", w, loc_s(c, IN(c, s.i)->u.edit.dst, a), rv_opcode_name(kind),
        loc_s(c, IN(c, s.i)->u.edit.src, b));
    rv_inst_remove(c->f, s.i);
    res->inst = s.i;
    return true;
}

static bool k_reload_slot(inj *c, rv_inject_result *res)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (in->op != RAVEL_OP_RELOAD) continue;
        uint32_t v = H(c, i, in->u.edit.src);
        for (uint32_t s = 0; s < c->nslots; s++) {
            uint32_t h = H(c, i, ravel_slot(s));
            if (ravel_slot(s) == in->u.edit.src || h == v) continue;
            add_site(c, h_valid(h) && (!h_valid(v) || vcls(c, h) == vcls(c, v)), i, ravel_slot(s), 0, 0);
        }
    }
    site s;
    if (!pick(c, &s)) return false;
    char w[96], a[32], b[32];
    where(c, s.i, w, sizeof w);
    SAY(res, "%s: reload from %s instead of %s", w, loc_s(c, s.a, a), loc_s(c, IN(c, s.i)->u.edit.src, b));
    IN(c, s.i)->u.edit.src = s.a;
    res->inst = s.i;
    return true;
}

/* Every occurrence of slot `from` becomes slot `to` (operands, edits,
 * stackmaps): the slot allocator gave both values the same slot. */
static void rename_slot(ravel_func *f, uint32_t from, uint32_t to)
{
    for (uint32_t k = 0; k < f->ops.len; k++)
        if (f->ops.data[k].loc == ravel_slot(from)) f->ops.data[k].loc = ravel_slot(to);
    for (uint32_t i = 0; i < f->insts.len; i++) {
        rv_inst *in = &f->insts.data[i];
        if (rv_is_edit(in)) {
            if (in->u.edit.dst == ravel_slot(from)) in->u.edit.dst = ravel_slot(to);
            if (in->u.edit.src == ravel_slot(from)) in->u.edit.src = ravel_slot(to);
        } else if ((in->flags & RV_IF_STACKMAP) && !rv_is_term(in) && smap_lists(f, in, from)) {
            uint32_t n = in->u.smap.n, *tmp = rv_xmalloc(sizeof *tmp * (n ? n : 1));
            for (uint32_t k = 0; k < n; k++) {
                uint32_t s = f->u32.data[in->u.smap.first + k];
                tmp[k] = s == from ? to : s;
            }
            rv_inst_set_stackmap(f, i, tmp, n);
            rv_free(tmp);
        }
    }
}

static bool k_slot_reuse(inj *c, rv_inject_result *res)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (in->op != RAVEL_OP_SPILL) continue;
        uint32_t v = H(c, i, in->u.edit.src);
        for (uint32_t s = 0; s < c->nslots; s++) {
            uint32_t w = H(c, i, ravel_slot(s));
            if (ravel_slot(s) == in->u.edit.dst || !h_valid(w) || w == v) continue;
            add_site(c, live_after(c, i, w), i, s, w, 0);
        }
    }
    site s;
    if (!pick(c, &s)) return false;
    char w[96];
    where(c, s.i, w, sizeof w);
    uint32_t from = ravel_loc_slot(IN(c, s.i)->u.edit.dst);
    SAY(res, "%s: slot s%u merged into s%u, where v%u is still live", w, from, s.a, vnum(c, s.b));
    rename_slot(c->f, from, s.a);
    res->inst = s.i;
    return true;
}

static bool k_move_swap(inj *c, rv_inject_result *res)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (!rv_is_edit(in) || in->u.edit.dst == in->u.edit.src) continue;
        uint32_t h = H(c, i, in->u.edit.src);
        add_site(c, in->op == RAVEL_OP_MOVE && h_valid(h) && live_after(c, i, h), i, 0, 0, 0);
    }
    site s;
    if (!pick(c, &s)) return false;
    rv_inst *in = IN(c, s.i);
    char w[96], a[32], b[32];
    where(c, s.i, w, sizeof w);
    ravel_loc d = in->u.edit.dst;
    in->u.edit.dst = in->u.edit.src;
    in->u.edit.src = d;
    in->op = (uint8_t)rv_edit_kind(in->u.edit.dst, in->u.edit.src);
    SAY(res, "%s: source and destination swapped (now %s = %s %s)", w, loc_s(c, in->u.edit.dst, a),
        rv_opcode_name(in->op), loc_s(c, in->u.edit.src, b));
    res->inst = s.i;
    return true;
}

/* ---- kinds: parallel moves and edges ----------------------------------- */

/* The end of the run of consecutive edits starting at i (exclusive). */
static uint32_t run_end(const inj *c, uint32_t i)
{
    const rv_block *b = &c->f->blocks.data[c->blk[i]];
    uint32_t e = i;
    while (e < b->first_inst + b->ninsts && rv_is_edit(IN(c, e))) e++;
    return e;
}

static bool writes_between(const inj *c, uint32_t p, uint32_t q, ravel_loc l) /* an edit in (p, q) writes l */
{
    for (uint32_t w = p + 1; w < q; w++)
        if (IN(c, w)->u.edit.dst == l) return true;
    return false;
}

/* Sites in the edit run [a, e): cycles (T <- X ... X <- ... ... Y <- T)
 * as preferred sites with c = 1, read-before-write pairs (Z <- X ... X <- W)
 * as others with c = 0; with pairs_pref the pairs are preferred too. */
static void run_sites(inj *c, uint32_t a, uint32_t e)
{
    for (uint32_t p = a; p < e; p++) {
        const rv_inst *P = IN(c, p);
        ravel_loc T = P->u.edit.dst, X = P->u.edit.src;
        if (T == X) continue;
        for (uint32_t q = p + 1; q < e; q++) {
            const rv_inst *Q = IN(c, q);
            if (Q->u.edit.src == T && Q->u.edit.dst != X && writes_between(c, p, q, X) && !writes_between(c, p, q, T) &&
                rv_edit_kind(Q->u.edit.dst, X) != RAVEL_OP_OTHER)
                add_site(c, true, p, q, 1, 0);
            if (Q->u.edit.dst == X && Q->u.edit.src != X && !writes_between(c, p, q, X)) add_site(c, false, p, q, 0, 0);
        }
    }
}

static bool apply_run_site(inj *c, const site *s, rv_inject_result *res)
{
    char w[96], a[32], b[32], x[32];
    where(c, s->i, w, sizeof w);
    rv_inst *Q = IN(c, s->a);
    if (s->b == 1) { /* cycle: drop the save to T, read X where T was read */
        ravel_loc X = IN(c, s->i)->u.edit.src;
        SAY(res, "%s: cycle broken without its temporary %s (%s now read from %s after it was overwritten)", w,
            loc_s(c, IN(c, s->i)->u.edit.dst, a), loc_s(c, Q->u.edit.dst, b), loc_s(c, X, x));
        Q->u.edit.src = X;
        Q->op = (uint8_t)rv_edit_kind(Q->u.edit.dst, X);
        rv_inst_remove(c->f, s->i);
    } else {
        SAY(res, "%s: %s written before it is read (edits %u and %u reordered)", w, loc_s(c, Q->u.edit.dst, a), s->i,
            s->a);
        rv_inst_move_before(c->f, s->i, s->a);
    }
    res->inst = s->i;
    return true;
}

static bool k_pmove_cycle(inj *c, rv_inject_result *res)
{
    for (uint32_t i = 0; i < c->ninsts;) {
        if (!rv_is_edit(IN(c, i))) {
            i++;
            continue;
        }
        uint32_t e = run_end(c, i);
        run_sites(c, i, e);
        i = e;
    }
    site s;
    return pick(c, &s) && apply_run_site(c, &s, res);
}

/* The edge runs: edits just before a jump into a join, and edits at the
 * start of a block whose single predecessor branches. Calls fn(c, a, e,
 * target block) for each run [a, e). */
static void edge_runs(inj *c, void (*fn)(inj *, uint32_t, uint32_t, uint32_t))
{
    const ravel_func *f = c->f;
    for (uint32_t b = 0; b < c->nblocks; b++) {
        const rv_block *bb = &f->blocks.data[b];
        if (!bb->ninsts) continue;
        uint32_t t = bb->first_inst + bb->ninsts - 1;
        const rv_inst *T = IN(c, t);
        if (T->op == RAVEL_OP_JUMP && rv_inst_nsuccs(T) == 1 && rv_cfg_npreds(&c->cfg, rv_inst_succs(f, T)[0].block) >= 2) {
            uint32_t a = t;
            while (a > bb->first_inst && rv_is_edit(IN(c, a - 1))) a--;
            if (a < t) fn(c, a, t, rv_inst_succs(f, T)[0].block);
        }
        if (rv_cfg_npreds(&c->cfg, b) == 1 && rv_cfg_nsuccs(&c->cfg, c->cfg.pred[c->cfg.pred_start[b]]) >= 2 &&
            rv_is_edit(IN(c, bb->first_inst)))
            fn(c, bb->first_inst, run_end(c, bb->first_inst), b);
    }
}

static void edge_move_sites(inj *c, uint32_t a, uint32_t e, uint32_t target)
{
    (void)target;
    for (uint32_t i = a; i < e; i++) {
        uint32_t h = H(c, i, IN(c, i)->u.edit.src);
        add_site(c, h_valid(h) && live_after(c, i, h), i, 0, 0, 0);
    }
}

static bool k_edge_move(inj *c, rv_inject_result *res)
{
    edge_runs(c, edge_move_sites);
    site s;
    if (!pick(c, &s)) return false;
    char w[96], a[32], b[32];
    where(c, s.i, w, sizeof w);
    SAY(res, "%s: edge edit %s = %s %s dropped", w, loc_s(c, IN(c, s.i)->u.edit.dst, a), rv_opcode_name(IN(c, s.i)->op),
        loc_s(c, IN(c, s.i)->u.edit.src, b));
    rv_inst_remove(c->f, s.i);
    res->inst = s.i;
    return true;
}

static void arg_swap_sites(inj *c, uint32_t a, uint32_t e, uint32_t target)
{
    if (!c->f->blocks.data[target].nparams) return;
    size_t before = c->pref.len + c->other.len;
    for (uint32_t p = a; p < e; p++) /* read-before-write pairs: reordered */
        for (uint32_t q = p + 1; q < e; q++) {
            ravel_loc X = IN(c, p)->u.edit.src;
            if (IN(c, q)->u.edit.dst == X && IN(c, p)->u.edit.dst != X && !writes_between(c, p, q, X))
                add_site(c, true, p, q, 0, 0);
        }
    if (c->pref.len + c->other.len > before) return;
    for (uint32_t p = a; p < e; p++) /* else: two destinations swapped */
        for (uint32_t q = p + 1; q < e; q++) {
            ravel_loc d1 = IN(c, p)->u.edit.dst, d2 = IN(c, q)->u.edit.dst;
            bool same = ravel_loc_is_slot(d1) ? ravel_loc_is_slot(d2)
                                              : ravel_loc_is_reg(d2) && d1 < c->nregs && d2 < c->nregs &&
                                                    c->m->regs.data[d1].cls == c->m->regs.data[d2].cls;
            if (d1 != d2 && same && IN(c, p)->u.edit.src != IN(c, q)->u.edit.src) add_site(c, false, p, q, 2, 0);
        }
}

static bool k_arg_swap(inj *c, rv_inject_result *res)
{
    edge_runs(c, arg_swap_sites);
    site s;
    if (!pick(c, &s)) return false;
    if (s.b != 2) return apply_run_site(c, &s, res);
    char w[96], a[32], b[32];
    where(c, s.i, w, sizeof w);
    rv_inst *P = IN(c, s.i), *Q = IN(c, s.a);
    ravel_loc d = P->u.edit.dst;
    SAY(res, "%s: edge edits into %s and %s swapped their destinations", w, loc_s(c, P->u.edit.dst, a),
        loc_s(c, Q->u.edit.dst, b));
    P->u.edit.dst = Q->u.edit.dst;
    Q->u.edit.dst = d;
    res->inst = s.i;
    return true;
}

static void spill_edge_sites(inj *c, uint32_t a, uint32_t e, uint32_t target)
{
    (void)target;
    for (uint32_t i = a; i < e; i++)
        if (IN(c, i)->op == RAVEL_OP_SPILL) add_site(c, false, i, RAVEL_NONE, 0, 0);
}

/* Preferred: a spill before a branch whose register and slot keep the
 * value to the branch, moved into one successor (site c = successor).
 * Else a spill on an edge into a join, dropped. */
static bool k_spill_one_path(inj *c, rv_inject_result *res)
{
    const ravel_func *f = c->f;
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (in->op != RAVEL_OP_SPILL) continue;
        const rv_block *bb = &f->blocks.data[c->blk[i]];
        uint32_t t = bb->first_inst + bb->ninsts - 1, v = H(c, i, in->u.edit.src);
        const rv_inst *T = IN(c, t);
        if (T->op != RAVEL_OP_BR || rv_inst_nsuccs(T) < 2 || !h_valid(v)) continue;
        bool ok = true;
        for (uint32_t k = 0; k < rv_inst_nsuccs(T); k++) ok &= rv_cfg_npreds(&c->cfg, rv_inst_succs(f, T)[k].block) == 1;
        for (uint32_t m = i + 1; ok && m <= t; m++) ok = H(c, m, in->u.edit.src) == v && H(c, m, in->u.edit.dst) == v;
        for (uint32_t k = 0; ok && k < rv_inst_nsuccs(T); k++) add_site(c, true, i, rv_inst_succs(f, T)[k].block, 0, 0);
    }
    if (!c->pref.len) edge_runs(c, spill_edge_sites);
    site s;
    if (!pick(c, &s)) return false;
    char w[96], a[32], b[32];
    where(c, s.i, w, sizeof w);
    ravel_loc dst = IN(c, s.i)->u.edit.dst, src = IN(c, s.i)->u.edit.src;
    if (s.a == RAVEL_NONE) {
        SAY(res, "%s: spill %s = spill %s on an edge into a join dropped", w, loc_s(c, dst, a), loc_s(c, src, b));
        rv_inst_remove(c->f, s.i);
    } else {
        uint32_t at = c->f->blocks.data[s.a].first_inst;
        SAY(res, "%s: spill %s = spill %s moved into successor %s only", w, loc_s(c, dst, a), loc_s(c, src, b),
            rv_block_name(c->f, s.a));
        rv_edit_insert(c->f, s.a, at, RAVEL_OP_SPILL, dst, src);
        rv_inst_remove(c->f, at < s.i ? s.i + 1 : s.i);
    }
    res->inst = s.i;
    return true;
}

/* ---- kinds: calls, constraints, loops ----------------------------------- */

/* A value v in register r at i (r clobbered by i: calls; or v a reference
 * and i a safepoint of a moving collector: refs) whose next use in the
 * block, at j, reads another location while r was not written since: the
 * use reads r instead. */
static bool k_keep_across(inj *c, rv_inject_result *res, bool refs)
{
    if (refs && c->f->mach->gc_nonmoving) return false;
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in) || (refs && !(in->flags & RV_IF_SAFEPOINT))) continue;
        const rv_block *bb = &c->f->blocks.data[c->blk[i]];
        for (uint32_t r = 0; r < c->nregs; r++) {
            uint32_t v = H(c, i, r);
            if (!h_valid(v) || defines_loc(c, i, r) || vcls(c, v) != c->m->regs.data[r].cls || c->m->regs.data[r].reserved)
                continue;
            if (refs ? (!is_ref(c, v) || clobbers(c, i, r)) : !clobbers(c, i, r)) continue;
            if (!live_after(c, i, v)) continue;
            bool found = false;
            for (uint32_t j = i + 1; !found && j < bb->first_inst + bb->ninsts && H(c, j, r) == H_UNK; j++) {
                const rv_inst *J = IN(c, j);
                if (rv_is_edit(J)) continue;
                for (uint32_t k = 0; k < J->nuses && !found; k++) {
                    const rv_operand *o = &OPS(c, j)[J->ndefs + k];
                    if (o->vreg != v) continue;
                    found = true; /* the first use only */
                    if (o->loc != r && free_use(c, j, k)) add_site(c, true, j, k, r, i);
                }
            }
        }
    }
    site s;
    if (!pick(c, &s)) return false;
    rv_operand *o = &OPS(c, s.i)[IN(c, s.i)->ndefs + s.a];
    char w[96], w2[96], a[32], b[32];
    where(c, s.i, w, sizeof w);
    where(c, s.c, w2, sizeof w2);
    SAY(res, "%s: use %u of v%u reads %s, kept there across %s, instead of %s", w, s.a, vnum(c, o->vreg),
        loc_s(c, s.b, a), w2, loc_s(c, o->loc, b));
    o->loc = s.b;
    res->inst = s.i;
    return true;
}

/* A register of class cls for a def of inst i: not an operand of i, not
 * clobbered by i; preferred if it holds nothing live after i. */
static void def_reg_sites(inj *c, uint32_t i, uint32_t k, uint32_t cls, ravel_loc avoid)
{
    const rv_class *cl = cls_of(c, cls);
    const rv_inst *in = IN(c, i);
    for (uint32_t r = 0; r < cl->alloc.len; r++) {
        uint32_t R = cl->alloc.data[r];
        bool busy = R == avoid || clobbers(c, i, R);
        for (uint32_t q = 0; q < (uint32_t)in->ndefs + in->nuses && !busy; q++) busy = OPS(c, i)[q].loc == R;
        if (busy) continue;
        uint32_t h = H(c, i, R);
        add_site(c, !(h_valid(h) && live_after(c, i, h)), i, k, R, 0);
    }
}

/* Sets def k of i to R and puts the value back where the def was (L) with
 * an edit after i, so that only the constraint is broken. */
static void move_def(inj *c, uint32_t i, uint32_t k, ravel_loc R)
{
    rv_operand *o = &OPS(c, i)[k];
    ravel_loc L = o->loc;
    o->loc = R;
    if (!is_block_last(c, i) && rv_edit_kind(L, R) != RAVEL_OP_OTHER)
        rv_edit_insert(c->f, c->blk[i], i + 1, rv_edit_kind(L, R), L, R);
}

static bool k_fixed(inj *c, rv_inject_result *res)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in)) continue;
        for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++) {
            const rv_operand *o = &OPS(c, i)[k];
            if (o->kind != RAVEL_C_FIXED || o->loc != o->arg || o->arg >= c->nregs) continue;
            uint32_t cls = c->m->regs.data[o->arg].cls;
            if (k < in->ndefs) {
                def_reg_sites(c, i, k, cls, o->arg);
                continue;
            }
            const rv_class *cl = cls_of(c, cls);
            for (uint32_t r = 0; r < cl->alloc.len; r++)
                if (cl->alloc.data[r] != o->arg) add_site(c, H(c, i, cl->alloc.data[r]) == o->vreg, i, k, cl->alloc.data[r], 0);
        }
    }
    site s;
    if (!pick(c, &s)) return false;
    char w[96], a[32], b[32];
    where(c, s.i, w, sizeof w);
    rv_operand *o = &OPS(c, s.i)[s.a];
    bool def = s.a < IN(c, s.i)->ndefs;
    SAY(res, "%s: %s %u of v%u in %s despite fixed(%s)", w, def ? "def" : "use", def ? s.a : s.a - IN(c, s.i)->ndefs,
        vnum(c, o->vreg), loc_s(c, s.b, a), loc_s(c, o->arg, b));
    if (def) move_def(c, s.i, s.a, s.b);
    else o->loc = s.b;
    res->inst = s.i;
    return true;
}

static bool k_reuse(inj *c, rv_inject_result *res)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in)) continue;
        for (uint32_t k = 0; k < in->ndefs; k++) {
            const rv_operand *o = &OPS(c, i)[k];
            if (o->kind != RAVEL_C_REUSE || o->arg >= in->nuses) continue;
            const rv_operand *u = &OPS(c, i)[in->ndefs + o->arg];
            if (u->loc != o->loc || o->loc == RAVEL_LOC_NONE) continue;
            def_reg_sites(c, i, k, vcls(c, o->vreg), o->loc);
        }
    }
    site s;
    if (!pick(c, &s)) return false;
    char w[96], a[32], b[32];
    where(c, s.i, w, sizeof w);
    rv_operand *o = &OPS(c, s.i)[s.a];
    SAY(res, "%s: def %u (reuse(%u)) of v%u in %s instead of %s, then moved back", w, s.a, o->arg, vnum(c, o->vreg),
        loc_s(c, s.b, a), loc_s(c, o->loc, b));
    move_def(c, s.i, s.a, s.b);
    res->inst = s.i;
    return true;
}

static bool k_early_def(inj *c, rv_inject_result *res)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in)) continue;
        for (uint32_t k = 0; k < in->ndefs; k++) {
            const rv_operand *o = &OPS(c, i)[k];
            if (!rv_op_is_early(o) || o->kind == RAVEL_C_FIXED) continue;
            for (uint32_t u = 0; u < in->nuses; u++) {
                ravel_loc U = OPS(c, i)[in->ndefs + u].loc;
                if (!ravel_loc_is_reg(U) || U >= c->nregs || U == o->loc || c->m->regs.data[U].reserved ||
                    c->m->regs.data[U].cls != vcls(c, o->vreg) || defines_loc(c, i, U))
                    continue;
                add_site(c, true, i, k, U, u);
            }
        }
    }
    site s;
    if (!pick(c, &s)) return false;
    char w[96], a[32], b[32];
    where(c, s.i, w, sizeof w);
    rv_operand *o = &OPS(c, s.i)[s.a];
    SAY(res, "%s: early def %u of v%u placed on %s (use %u) instead of %s", w, s.a, vnum(c, o->vreg), loc_s(c, s.b, a),
        s.c, loc_s(c, o->loc, b));
    move_def(c, s.i, s.a, s.b);
    res->inst = s.i;
    return true;
}

/* May location l serve use k of inst i (by the use's constraint)? */
static bool fits(const inj *c, const rv_operand *o, ravel_loc l)
{
    if (ravel_loc_is_slot(l)) return o->kind == RAVEL_C_ANY || o->kind == RAVEL_C_STACK;
    return (o->kind == RAVEL_C_ANY || o->kind == RAVEL_C_REG) && l < c->nregs && !c->m->regs.data[l].reserved &&
           c->m->regs.data[l].cls == vcls(c, o->vreg);
}

static bool k_stale_loop(inj *c, rv_inject_result *res)
{
    c->steady = rv_xmalloc(sizeof *c->steady * ((size_t)c->ninsts * c->nlocs + 1));
    build_hold(c, c->steady, true);
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        uint32_t b = c->blk[i];
        if (c->cfg.rpo_index[b] == RAVEL_NONE || !c->cfg.loop_depth[b]) continue;
        for (uint32_t x = 0; x < c->nlocs; x++) {
            uint32_t h = c->steady[(size_t)i * c->nlocs + x];
            if (!h_stale(h) || c->hold[(size_t)i * c->nlocs + x] == (h & ~H_STALE)) continue;
            ravel_loc L = loc_of(c, x);
            uint32_t v = h & ~H_STALE;
            if (rv_is_edit(in)) {
                ravel_loc S = in->u.edit.src;
                if (S != L && H(c, i, S) == v && ravel_loc_is_slot(S) == ravel_loc_is_slot(L) &&
                    (ravel_loc_is_slot(L) || (c->m->regs.data[L].cls == vcls(c, v) && !c->m->regs.data[L].reserved)))
                    add_site(c, true, i, RAVEL_NONE, L, 0);
                continue;
            }
            for (uint32_t k = 0; k < in->nuses; k++) {
                const rv_operand *o = &OPS(c, i)[in->ndefs + k];
                if (o->vreg == v && o->loc != L && !is_reuse_target(c, i, k) && fits(c, o, L)) add_site(c, true, i, k, L, 0);
            }
        }
    }
    site s;
    if (!pick(c, &s)) return false;
    char w[96], a[32], b[32];
    where(c, s.i, w, sizeof w);
    rv_inst *in = IN(c, s.i);
    ravel_loc *l = s.a == RAVEL_NONE ? &in->u.edit.src : &OPS(c, s.i)[in->ndefs + s.a].loc;
    SAY(res, "%s: %s reads %s, a copy left from before the redefinition, instead of %s", w,
        s.a == RAVEL_NONE ? "edit" : "use", loc_s(c, s.b, a), loc_s(c, *l, b));
    *l = s.b;
    res->inst = s.i;
    return true;
}

/* ---- kinds: stackmaps and safepoints ------------------------------------ */

static bool is_sp(const rv_inst *in) { return (in->flags & RV_IF_SAFEPOINT) && !rv_is_term(in) && !rv_is_edit(in); }

static bool k_smap_missing(inj *c, rv_inject_result *res)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (!is_sp(in) || !(in->flags & RV_IF_STACKMAP)) continue;
        for (uint32_t k = 0; k < in->u.smap.n; k++) {
            uint32_t h = H(c, i, ravel_slot(c->f->u32.data[in->u.smap.first + k]));
            if (h_valid(h) && is_ref(c, h)) add_site(c, live_after(c, i, h), i, k, 0, 0);
        }
    }
    site s;
    if (!pick(c, &s)) return false;
    rv_inst *in = IN(c, s.i);
    char w[96];
    where(c, s.i, w, sizeof w);
    uint32_t n = in->u.smap.n, *tmp = rv_xmalloc(sizeof *tmp * n), m = 0;
    uint32_t gone = c->f->u32.data[in->u.smap.first + s.a];
    for (uint32_t k = 0; k < n; k++)
        if (k != s.a) tmp[m++] = c->f->u32.data[in->u.smap.first + k];
    rv_inst_set_stackmap(c->f, s.i, tmp, m);
    rv_free(tmp);
    SAY(res, "%s: s%u (holding reference v%u) left out of the stackmap", w, gone, vnum(c, H(c, s.i, ravel_slot(gone))));
    res->inst = s.i;
    return true;
}

static bool k_smap_nonref(inj *c, rv_inject_result *res)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (!is_sp(in)) continue;
        for (uint32_t s = 0; s < c->nslots; s++) {
            if (smap_lists(c->f, in, s)) continue;
            uint32_t h = H(c, i, ravel_slot(s));
            add_site(c, h_valid(h) && !is_ref(c, h), i, s, 0, 0);
        }
    }
    site s;
    if (!pick(c, &s)) return false;
    rv_inst *in = IN(c, s.i);
    char w[96];
    where(c, s.i, w, sizeof w);
    uint32_t n = (in->flags & RV_IF_STACKMAP) ? in->u.smap.n : 0, *tmp = rv_xmalloc(sizeof *tmp * (n + 1));
    for (uint32_t k = 0; k < n; k++) tmp[k] = c->f->u32.data[in->u.smap.first + k];
    tmp[n] = s.a;
    rv_inst_set_stackmap(c->f, s.i, tmp, n + 1);
    rv_free(tmp);
    SAY(res, "%s: s%u, which holds no reference, listed in the stackmap", w, s.a);
    res->inst = s.i;
    return true;
}

/* ---- kinds: one per remaining rule of section 6 -------------------------- */

static bool set_use_loc(inj *c, const site *s, rv_inject_result *res, const char *why)
{
    rv_operand *o = &OPS(c, s->i)[s->a];
    char w[96], a[32], b[32];
    where(c, s->i, w, sizeof w);
    SAY(res, "%s: operand %u of v%u in %s instead of %s (%s)", w, s->a, vnum(c, o->vreg), loc_s(c, s->b, a),
        loc_s(c, o->loc, b), why);
    o->loc = s->b;
    rv_note_slot(c->f, s->b);
    res->inst = s->i;
    return true;
}

/* Sites: use operands (site a = operand index in the instruction) of
 * constraint kind ck whose value is in location L at the instruction. */
static bool k_reg_on_stack(inj *c, rv_inject_result *res, bool to_stack)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in)) continue;
        for (uint32_t k = 0; k < in->nuses; k++) {
            const rv_operand *o = &OPS(c, i)[in->ndefs + k];
            if (o->kind != (to_stack ? RAVEL_C_REG : RAVEL_C_STACK) || is_reuse_target(c, i, k)) continue;
            if (to_stack) {
                for (uint32_t s = 0; s < c->nslots; s++)
                    if (H(c, i, ravel_slot(s)) == o->vreg) add_site(c, true, i, in->ndefs + k, ravel_slot(s), 0);
            } else {
                const rv_class *cl = cls_of(c, vcls(c, o->vreg));
                for (uint32_t r = 0; r < cl->alloc.len; r++)
                    add_site(c, H(c, i, cl->alloc.data[r]) == o->vreg, i, in->ndefs + k, cl->alloc.data[r], 0);
            }
        }
    }
    site s;
    return pick(c, &s) && set_use_loc(c, &s, res, to_stack ? "constraint reg" : "constraint stack");
}

static bool k_late_use(inj *c, rv_inject_result *res)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in)) continue;
        for (uint32_t u = 0; u < in->nuses; u++) {
            const rv_operand *o = &OPS(c, i)[in->ndefs + u];
            if (!rv_op_is_late(o) || !ravel_loc_is_reg(o->loc) || o->loc >= c->nregs || c->m->regs.data[o->loc].reserved)
                continue;
            for (uint32_t k = 0; k < in->ndefs; k++) {
                const rv_operand *d = &OPS(c, i)[k];
                if ((d->kind != RAVEL_C_REG && d->kind != RAVEL_C_ANY) || d->loc == o->loc || vcls(c, d->vreg) != c->m->regs.data[o->loc].cls ||
                    defines_loc(c, i, o->loc))
                    continue;
                add_site(c, true, i, k, o->loc, u);
            }
        }
    }
    site s;
    if (!pick(c, &s)) return false;
    char w[96], a[32], b[32];
    where(c, s.i, w, sizeof w);
    rv_operand *o = &OPS(c, s.i)[s.a];
    SAY(res, "%s: def %u of v%u placed on %s, read late by use %u, instead of %s", w, s.a, vnum(c, o->vreg),
        loc_s(c, s.b, a), s.c, loc_s(c, o->loc, b));
    move_def(c, s.i, s.a, s.b);
    res->inst = s.i;
    return true;
}

static bool k_defs_one_reg(inj *c, rv_inject_result *res)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in)) continue;
        for (uint32_t k = 0; k < in->ndefs; k++)
            for (uint32_t j = 0; j < in->ndefs; j++) {
                const rv_operand *a = &OPS(c, i)[k], *b = &OPS(c, i)[j];
                if (j != k && a->loc != b->loc && (b->kind == RAVEL_C_REG || b->kind == RAVEL_C_ANY) && ravel_loc_is_reg(a->loc) &&
                    a->loc < c->nregs && c->m->regs.data[a->loc].cls == vcls(c, b->vreg))
                    add_site(c, true, i, j, a->loc, k);
            }
    }
    site s;
    if (!pick(c, &s)) return false;
    char w[96], a[32];
    where(c, s.i, w, sizeof w);
    rv_operand *o = &OPS(c, s.i)[s.a];
    SAY(res, "%s: def %u of v%u given %s, the register of def %u", w, s.a, vnum(c, o->vreg), loc_s(c, s.b, a), s.c);
    o->loc = s.b;
    res->inst = s.i;
    return true;
}

static bool k_wrong_class(inj *c, rv_inject_result *res)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in)) continue;
        for (uint32_t k = 0; k < in->nuses; k++) {
            const rv_operand *o = &OPS(c, i)[in->ndefs + k];
            if (!free_use(c, i, k) || !ravel_loc_is_reg(o->loc)) continue;
            for (uint32_t r = 0; r < c->nregs; r++)
                if (!c->m->regs.data[r].reserved && c->m->regs.data[r].cls != vcls(c, o->vreg))
                    add_site(c, true, i, in->ndefs + k, r, 0);
        }
    }
    site s;
    return pick(c, &s) && set_use_loc(c, &s, res, "a register of another class");
}

static bool k_reserved(inj *c, rv_inject_result *res)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in) || is_block_last(c, i)) continue;
        for (uint32_t k = 0; k < in->ndefs; k++) {
            const rv_operand *o = &OPS(c, i)[k];
            if (o->kind != RAVEL_C_REG && o->kind != RAVEL_C_ANY) continue;
            for (uint32_t r = 0; r < c->nregs; r++) {
                bool busy = !c->m->regs.data[r].reserved || c->m->regs.data[r].cls != vcls(c, o->vreg);
                for (uint32_t q = 0; q < (uint32_t)in->ndefs + in->nuses && !busy; q++) busy = OPS(c, i)[q].loc == r;
                if (!busy) add_site(c, true, i, k, r, 0);
            }
        }
    }
    site s;
    if (!pick(c, &s)) return false;
    char w[96], a[32], b[32];
    where(c, s.i, w, sizeof w);
    rv_operand *o = &OPS(c, s.i)[s.a];
    SAY(res, "%s: def %u of v%u in reserved %s instead of %s, then moved there", w, s.a, vnum(c, o->vreg),
        loc_s(c, s.b, a), loc_s(c, o->loc, b));
    move_def(c, s.i, s.a, s.b);
    res->inst = s.i;
    return true;
}

static bool k_smap_dropped(inj *c, rv_inject_result *res)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (is_sp(in) && (in->flags & RV_IF_STACKMAP))
            add_site(c, in->u.smap.n > 0, i, 0, 0, 0);
    }
    site s;
    if (!pick(c, &s)) return false;
    char w[96];
    where(c, s.i, w, sizeof w);
    rv_inst *in = IN(c, s.i);
    SAY(res, "%s: the stackmap (%u slot%s) not emitted", w, in->u.smap.n, in->u.smap.n == 1 ? "" : "s");
    in->flags &= (uint8_t)~RV_IF_STACKMAP;
    in->u.smap.first = in->u.smap.n = 0;
    res->inst = s.i;
    return true;
}

static bool k_no_loc(inj *c, rv_inject_result *res)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in)) continue;
        for (uint32_t k = 0; k < (uint32_t)in->ndefs + in->nuses; k++)
            if (OPS(c, i)[k].loc != RAVEL_LOC_NONE && OPS(c, i)[k].kind != RAVEL_C_REUSE &&
                (k < in->ndefs || !is_reuse_target(c, i, k - in->ndefs)))
                add_site(c, true, i, k, 0, 0);
    }
    site s;
    if (!pick(c, &s)) return false;
    char w[96], a[32];
    where(c, s.i, w, sizeof w);
    rv_operand *o = &OPS(c, s.i)[s.a];
    SAY(res, "%s: operand %u of v%u left without a location (was %s)", w, s.a, vnum(c, o->vreg), loc_s(c, o->loc, a));
    o->loc = RAVEL_LOC_NONE;
    res->inst = s.i;
    return true;
}

static bool k_slot_to_slot(inj *c, rv_inject_result *res)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (in->op != RAVEL_OP_SPILL) continue;
        uint32_t v = H(c, i, in->u.edit.src);
        for (uint32_t s = 0; h_valid(v) && s < c->nslots; s++)
            if (ravel_slot(s) != in->u.edit.dst && H(c, i, ravel_slot(s)) == v) add_site(c, true, i, ravel_slot(s), 0, 0);
    }
    site s;
    if (!pick(c, &s)) return false;
    char w[96], a[32], b[32];
    where(c, s.i, w, sizeof w);
    rv_inst *in = IN(c, s.i);
    SAY(res, "%s: %s = spill %s became %s = move %s", w, loc_s(c, in->u.edit.dst, a), loc_s(c, in->u.edit.src, b),
        loc_s(c, in->u.edit.dst, a), loc_s(c, s.a, b));
    in->op = RAVEL_OP_MOVE;
    in->u.edit.src = s.a;
    res->inst = s.i;
    return true;
}

/* ---- the generic corruptions (the checker oracle's first seven) --------- */

static ravel_loc any_reg(inj *c) { return below(c, c->nregs); }
static ravel_loc any_slot(inj *c) { return ravel_slot(below(c, c->f->nslots + 1)); }

static uint32_t pick_inst(inj *c, bool (*pred)(const rv_inst *))
{
    uint32_t n = 0, p = RAVEL_NONE;
    for (uint32_t i = 0; i < c->f->insts.len; i++)
        if (pred(&c->f->insts.data[i]) && below(c, ++n) == 0) p = i;
    return p;
}
static bool p_edit(const rv_inst *in) { return rv_is_edit(in); }
static bool p_smap(const rv_inst *in) { return is_sp(in) && (in->flags & RV_IF_STACKMAP) && in->u.smap.n; }

static bool generic(inj *c, rv_inject_kind k, rv_inject_result *res)
{
    ravel_func *f = c->f;
    char a[32], b[32];
    if (!c->nregs) return false;
    switch (k) {
    case RV_INJ_RAND_LOC: {
        if (!f->ops.len) return false;
        rv_operand *o = &f->ops.data[below(c, f->ops.len)];
        ravel_loc l = below(c, 4) == 0 ? any_slot(c) : any_reg(c);
        if (o->loc == RAVEL_LOC_NONE) return false;
        SAY(res, "an operand of v%u moved from %s to %s", vnum(c, o->vreg), loc_s(c, o->loc, a), loc_s(c, l, b));
        o->loc = l;
        rv_note_slot(f, l);
        return true;
    }
    case RV_INJ_RAND_DROP_EDIT: {
        uint32_t i = pick_inst(c, p_edit);
        if (i == RAVEL_NONE) return false;
        SAY(res, "edit %u dropped", i);
        rv_inst_remove(f, i);
        res->inst = i;
        return true;
    }
    case RV_INJ_RAND_REDIRECT: {
        uint32_t i = pick_inst(c, p_edit);
        if (i == RAVEL_NONE) return false;
        rv_inst *in = &f->insts.data[i];
        ravel_loc *l = below(c, 2) ? &in->u.edit.dst : &in->u.edit.src;
        ravel_loc n = ravel_loc_is_slot(*l) ? any_slot(c) : any_reg(c);
        SAY(res, "edit %u: %s redirected to %s", i, loc_s(c, *l, a), loc_s(c, n, b));
        *l = n;
        rv_note_slot(f, n);
        res->inst = i;
        return true;
    }
    case RV_INJ_RAND_SWAP_EDITS: {
        uint32_t i = pick_inst(c, p_edit);
        if (i == RAVEL_NONE) return false;
        const rv_block *bb = &f->blocks.data[c->blk[i]];
        uint32_t j = below(c, 2) ? i + 1 : i - 1;
        if (j < bb->first_inst || j + 1 >= bb->first_inst + bb->ninsts || i + 1 == bb->first_inst + bb->ninsts)
            return false;
        rv_inst_swap(f, i, j);
        SAY(res, "instructions %u and %u swapped", i, j);
        res->inst = i;
        return true;
    }
    case RV_INJ_RAND_DROP_SMAP: {
        uint32_t i = pick_inst(c, p_smap);
        if (i == RAVEL_NONE) return false;
        rv_inst *in = &f->insts.data[i];
        uint32_t n = in->u.smap.n, *tmp = rv_xmalloc(sizeof *tmp * n), m = 0, drop = below(c, n);
        for (uint32_t q = 0; q < n; q++)
            if (q != drop) tmp[m++] = f->u32.data[in->u.smap.first + q];
        SAY(res, "inst %u: s%u dropped from the stackmap", i, f->u32.data[in->u.smap.first + drop]);
        rv_inst_set_stackmap(f, i, tmp, m);
        rv_free(tmp);
        res->inst = i;
        return true;
    }
    case RV_INJ_RAND_ADD_SMAP: {
        uint32_t i = pick_inst(c, is_sp);
        if (i == RAVEL_NONE) return false;
        rv_inst *in = &f->insts.data[i];
        uint32_t slot = below(c, f->nslots + 1), n = (in->flags & RV_IF_STACKMAP) ? in->u.smap.n : 0;
        if (smap_lists(f, in, slot)) return false;
        uint32_t *tmp = rv_xmalloc(sizeof *tmp * (n + 1));
        for (uint32_t q = 0; q < n; q++) tmp[q] = f->u32.data[in->u.smap.first + q];
        tmp[n] = slot;
        rv_inst_set_stackmap(f, i, tmp, n + 1);
        rv_free(tmp);
        SAY(res, "inst %u: s%u added to the stackmap", i, slot);
        res->inst = i;
        return true;
    }
    case RV_INJ_RAND_INSERT_EDIT: {
        if (!f->insts.len) return false;
        uint32_t i = below(c, f->insts.len), bk = c->blk[i];
        switch (below(c, 3)) {
        case 0: rv_edit_insert(f, bk, i, RAVEL_OP_MOVE, any_reg(c), any_reg(c)); break;
        case 1: rv_edit_insert(f, bk, i, RAVEL_OP_SPILL, any_slot(c), any_reg(c)); break;
        default: rv_edit_insert(f, bk, i, RAVEL_OP_RELOAD, any_reg(c), any_slot(c)); break;
        }
        SAY(res, "inst %u: %s = %s %s inserted", i, loc_s(c, f->insts.data[i].u.edit.dst, a),
            rv_opcode_name(f->insts.data[i].op), loc_s(c, f->insts.data[i].u.edit.src, b));
        res->inst = i;
        return true;
    }
    default: return false;
    }
}

/* ---- entry point --------------------------------------------------------- */

static bool apply(inj *c, rv_inject_kind k, rv_inject_result *res)
{
    if (infos[k].flags & RV_INJF_GENERIC) return generic(c, k, res);
    if (!c->ok) return false;
    switch (k) {
    case RV_INJ_USE_REG: return k_use_reg(c, res);
    case RV_INJ_DROP_SPILL: return k_drop_edit(c, res, RAVEL_OP_SPILL);
    case RV_INJ_DROP_RELOAD: return k_drop_edit(c, res, RAVEL_OP_RELOAD);
    case RV_INJ_RELOAD_SLOT: return k_reload_slot(c, res);
    case RV_INJ_SLOT_REUSE: return k_slot_reuse(c, res);
    case RV_INJ_MOVE_SWAP: return k_move_swap(c, res);
    case RV_INJ_PMOVE_CYCLE: return k_pmove_cycle(c, res);
    case RV_INJ_CALL_CLOBBER: return k_keep_across(c, res, false);
    case RV_INJ_FIXED: return k_fixed(c, res);
    case RV_INJ_REUSE: return k_reuse(c, res);
    case RV_INJ_EARLY_DEF: return k_early_def(c, res);
    case RV_INJ_EDGE_MOVE: return k_edge_move(c, res);
    case RV_INJ_SPILL_ONE_PATH: return k_spill_one_path(c, res);
    case RV_INJ_STALE_LOOP: return k_stale_loop(c, res);
    case RV_INJ_ARG_SWAP: return k_arg_swap(c, res);
    case RV_INJ_SMAP_MISSING: return k_smap_missing(c, res);
    case RV_INJ_SMAP_NONREF: return k_smap_nonref(c, res);
    case RV_INJ_REF_IN_REG: return k_keep_across(c, res, true);
    case RV_INJ_REG_ON_STACK: return k_reg_on_stack(c, res, true);
    case RV_INJ_STACK_IN_REG: return k_reg_on_stack(c, res, false);
    case RV_INJ_LATE_USE: return k_late_use(c, res);
    case RV_INJ_DEFS_ONE_REG: return k_defs_one_reg(c, res);
    case RV_INJ_WRONG_CLASS: return k_wrong_class(c, res);
    case RV_INJ_RESERVED: return k_reserved(c, res);
    case RV_INJ_SMAP_DROPPED: return k_smap_dropped(c, res);
    case RV_INJ_NO_LOC: return k_no_loc(c, res);
    case RV_INJ_SLOT_TO_SLOT: return k_slot_to_slot(c, res);
    default: return false;
    }
}

int rv_inject(ravel_func *f, rv_inject_kind k, uint64_t seed, rv_inject_result *res)
{
    memset(res, 0, sizeof *res);
    res->inst = RAVEL_NONE;
    res->status = RV_INJ_NO_SITE;
    if ((unsigned)k >= RV_INJ_COUNT_) return res->status;
    ravel_func *before = rv_func_clone(f);
    inj c;
    inj_init(&c, f, k, seed, !(infos[k].flags & RV_INJF_GENERIC));
    bool applied = apply(&c, k, res);
    inj_free(&c);
    if (applied) res->status = rv_func_equal(before, f) ? RV_INJ_UNCHANGED : RV_INJ_CHANGED;
    else snprintf(res->what, sizeof res->what, "no site for %s", infos[k].name);
    ravel_func_free(before);
    return res->status;
}
