/*
 * fastcopy.c - where fast's deleted identity copies go.
 *
 * regallocfast gives a COPY's source and destination one register when it
 * can and then deletes the COPY, together with its tag: the copy executed
 * nothing, and the .ra function keeps it (R27) as a `copy` at that
 * register. Which register, and where among the reloads and spills fast
 * inserted around it, the output does not say; the importer finds out by
 * following the values forward through the block it is building (the
 * checker's own transfer, over the .ra instructions already emitted: defs,
 * copies, edits, clobbers), starting each block with every register empty
 * and each spill slot holding what it holds at the exit of every
 * predecessor (the meet: the vregs common to all of them; a slot the
 * predecessors disagree on holds only what they agree on, maybe nothing).
 * The exits come from earlier builds of the blocks: build.c rebuilds the
 * allocated form until no block's exit changes (a fixpoint; a pass counts
 * a predecessor not built yet as agreeing with everything). A copy
 * waiting in a block is emitted at the first point where its source is in
 * a register (a physical source or destination fixes that register), in
 * the order the copies had; at the next aligned original, every copy still
 * waiting is emitted at the register where the original reads its def, if
 * any (else an import error). The checker then verifies the copy like any
 * other: a wrong guess is a false rejection, never a false acceptance (the
 * copy claims only that its source is in that register).
 *
 * Requires: build.c's allocated walk (fast only). Guarantees: each
 * deleted copy is emitted once, in order, with both operands at one
 * register, or an import error says why not.
 */
#include "import/imp.h"

typedef RV_VEC(uint32_t) u32vec;
typedef struct fc_exit {
    bool known;                  /* built in this or an earlier pass */
    RV_VEC(u32vec) slots;
    u32vec undef;                /* the vregs undefined there */
} fc_exit;

struct fc_state {
    u32vec regs[X86_NREGS];      /* vreg numbers each register holds */
    RV_VEC(u32vec) slots;        /* per slot number */
    u32vec undef;                /* undefined vregs (docs/format.md §14.2's U) */
    RV_VEC(fc_exit) exits;       /* per tblock: its slots at the block's exit */
    bool changed;                /* an exit changed in this pass */
    RV_VEC(uint32_t) pending;    /* pre instructions waiting */
};

fc_state *fc_new(void)
{
    return rv_xcalloc(1, sizeof(fc_state));
}

void fc_free(fc_state *s)
{
    if (!s) return;
    for (unsigned r = 0; r < X86_NREGS; r++) rv_vec_free(s->regs[r]);
    for (uint32_t i = 0; i < s->slots.len; i++) rv_vec_free(s->slots.data[i]);
    for (uint32_t t = 0; t < s->exits.len; t++) {
        for (uint32_t i = 0; i < s->exits.data[t].slots.len; i++) rv_vec_free(s->exits.data[t].slots.data[i]);
        rv_vec_free(s->exits.data[t].slots);
        rv_vec_free(s->exits.data[t].undef);
    }
    rv_vec_free(s->undef);
    rv_vec_free(s->slots);
    rv_vec_free(s->exits);
    rv_vec_free(s->pending);
    rv_free(s);
}

static u32vec *loc_set(fc_state *s, uint32_t loc)
{
    if (!(loc & RVI_SLOT)) return loc < X86_NREGS ? &s->regs[loc] : NULL;
    uint32_t n = loc & ~RVI_SLOT;
    if (n > 4096) return NULL;
    while (s->slots.len <= n) rv_vec_push(s->slots, ((u32vec){0}));
    return &s->slots.data[n];
}

static bool has(const u32vec *v, uint32_t x)
{
    for (uint32_t i = 0; v && i < v->len; i++)
        if (v->data[i] == x) return true;
    return false;
}

static void add(u32vec *v, uint32_t x)
{
    if (v && !has(v, x)) rv_vec_push(*v, x);
}

static void set_to(u32vec *dst, const u32vec *src)
{
    if (!dst) return;
    dst->len = 0;
    for (uint32_t i = 0; src && i < src->len; i++) rv_vec_push(*dst, src->data[i]);
}

static void remove_everywhere(fc_state *s, uint32_t v)
{
    for (unsigned r = 0; r < X86_NREGS; r++)
        for (uint32_t i = 0; i < s->regs[r].len; i++)
            if (s->regs[r].data[i] == v) s->regs[r].data[i--] = s->regs[r].data[--s->regs[r].len];
    for (uint32_t n = 0; n < s->slots.len; n++)
        for (uint32_t i = 0; i < s->slots.data[n].len; i++)
            if (s->slots.data[n].data[i] == v) s->slots.data[n].data[i--] = s->slots.data[n].data[--s->slots.data[n].len];
}

/* A write of loc: the registers overlapping it lose their values. */
static void clear_overlaps(fc_state *s, uint32_t loc)
{
    if (loc & RVI_SLOT) return;
    for (unsigned r = 0; r < X86_NREGS; r++)
        if (x86_overlaps(r, loc)) s->regs[r].len = 0;
}

/* Starts a pass over the ntb tblocks. */
void fc_pass_start(fc_state *s, uint32_t ntb)
{
    while (s->exits.len < ntb) rv_vec_push(s->exits, ((fc_exit){0}));
    s->changed = false;
}

bool fc_pass_changed(const fc_state *s)
{
    return s->changed;
}

/* Keeps in slot set d only what e holds too. */
static void meet_into(u32vec *d, const u32vec *e)
{
    for (uint32_t i = 0; i < d->len; i++)
        if (!has(e, d->data[i])) d->data[i--] = d->data[--d->len];
}

/* Keeps in slot set d (of a predecessor met so far, whose undefined
 * vregs were du) what edge e brings too: on an edge where a vreg is
 * undefined every location counts as holding it (docs/format.md §14.2). */
static void meet_slot(u32vec *d, const u32vec *du, const u32vec *en, const fc_exit *e)
{
    u32vec keep = {0};
    for (uint32_t i = 0; i < d->len; i++)
        if (has(en, d->data[i]) || has(&e->undef, d->data[i])) rv_vec_push(keep, d->data[i]);
    for (uint32_t i = 0; en && i < en->len; i++)
        if (has(du, en->data[i]) && !has(&keep, en->data[i])) rv_vec_push(keep, en->data[i]);
    set_to(d, &keep);
    rv_vec_free(keep);
}

static bool is_pred(const imp *x, uint32_t p, uint32_t t)
{
    const tblock *pb = &x->tb.list.data[p];
    for (uint32_t i = pb->t0; i < pb->t0 + pb->nt; i++)
        if (x->tb.tt.data[i] == x->tb.list.data[t].label) return true;
    return false;
}

/* The slots and undefined vregs at the entry of tblock t: the meet of its
 * built predecessors' exits (x->tb.tt holds the targets' labels); none
 * built (the entry block): nothing. */
static void entry_slots(fc_state *s, const imp *x, uint32_t t)
{
    bool first = true;
    for (uint32_t p = 0; p < x->tb.list.len; p++) {
        if (p >= s->exits.len || !s->exits.data[p].known || !is_pred(x, p, t)) continue;
        const fc_exit *e = &s->exits.data[p];
        for (uint32_t n = 0; n < s->slots.len || n < e->slots.len; n++) {
            u32vec *d = loc_set(s, RVI_SLOT | n);
            const u32vec *en = n < e->slots.len ? &e->slots.data[n] : NULL;
            if (first) set_to(d, en);
            else meet_slot(d, &s->undef, en, e);
        }
        if (first) set_to(&s->undef, &e->undef);
        else meet_into(&s->undef, &e->undef);
        first = false;
    }
}

void fc_block_start(fc_state *s, const imp *x, uint32_t t)
{
    for (unsigned r = 0; r < X86_NREGS; r++) s->regs[r].len = 0;
    for (uint32_t n = 0; n < s->slots.len; n++) s->slots.data[n].len = 0;
    s->undef.len = 0;
    entry_slots(s, x, t);
    s->pending.len = 0;
}

static bool same_set(const u32vec *a, const u32vec *b)
{
    if (a->len != b->len) return false;
    for (uint32_t i = 0; i < a->len; i++)
        if (!has(b, a->data[i])) return false;
    return true;
}

/* Records the slots now as tblock t's exit (ok false: t's build failed,
 * its exit is taken as every slot empty). */
void fc_block_end(fc_state *s, uint32_t t, bool ok)
{
    if (t >= s->exits.len) return;
    fc_exit *e = &s->exits.data[t];
    if (!ok) {
        for (uint32_t n = 0; n < s->slots.len; n++) s->slots.data[n].len = 0;
        s->undef.len = 0;
    }
    while (e->slots.len < s->slots.len) rv_vec_push(e->slots, ((u32vec){0}));
    bool same = e->known;
    for (uint32_t n = 0; n < e->slots.len; n++) {
        u32vec *cur = n < s->slots.len ? &s->slots.data[n] : NULL;
        u32vec empty = {0};
        if (!cur) cur = &empty;
        same = same && same_set(&e->slots.data[n], cur);
        set_to(&e->slots.data[n], cur);
    }
    same = same && same_set(&e->undef, &s->undef);
    set_to(&e->undef, &s->undef);
    e->known = true;
    if (!same) s->changed = true;
}

static void def_at(fc_state *s, uint32_t v, uint32_t loc)
{
    remove_everywhere(s, v);
    clear_overlaps(s, loc);
    u32vec *d = loc_set(s, loc);
    if (d) {
        d->len = 0;
        add(d, v);
    }
}

/* The locations' part of the transfer of instruction id (docs/format.md
 * §6, with the overlap rule of §14.1). */
static void apply_locs(fc_state *s, const ra_func *f, uint32_t id)
{
    const ra_inst *in = &f->insts.data[id];
    switch (in->kind) {
    case RK_SPILL: case RK_RELOAD: case RK_MOVE: {
        u32vec tmp = {0};
        set_to(&tmp, loc_set(s, in->src));
        clear_overlaps(s, in->dst);
        set_to(loc_set(s, in->dst), &tmp);
        rv_vec_free(tmp);
        return;
    }
    case RK_REMAT:
        clear_overlaps(s, in->dst);
        if (loc_set(s, in->dst)) loc_set(s, in->dst)->len = 0;
        return;
    default:
        break;
    }
    for (uint32_t j = in->u0; j < in->u0 + in->nu; j++) {
        const ra_use *u = &f->uses.data[j];
        if (!u->imm && u->o.loc != RVI_NONE) add(loc_set(s, u->o.loc), u->o.vreg);
    }
    bool call_default = in->kind == RK_CALL && !in->has_clob;
    for (unsigned r = 0; r < X86_NREGS; r++) {
        bool c = (in->clob[r / 64] >> (r % 64)) & 1;
        if (call_default) c = x86_reg_at(r) && !x86_csr64_preserves(r);
        if (c) s->regs[r].len = 0;
    }
    if (in->kind == RK_COPY && in->nd == 1 && in->nu == 1 && !f->uses.data[in->u0].imm) {
        const ra_opnd *d = &f->defs.data[in->d0];
        const ra_use *u = &f->uses.data[in->u0];
        if (d->loc == u->o.loc && d->loc != RVI_NONE) { /* identity: d joins s wherever s is */
            remove_everywhere(s, d->vreg);
            for (unsigned r = 0; r < X86_NREGS; r++)
                if (has(&s->regs[r], u->o.vreg)) add(&s->regs[r], d->vreg);
            for (uint32_t n = 0; n < s->slots.len; n++)
                if (has(&s->slots.data[n], u->o.vreg)) add(&s->slots.data[n], d->vreg);
            add(loc_set(s, d->loc), d->vreg);
            return;
        }
        if (d->loc != RVI_NONE && u->o.loc != RVI_NONE && !((d->loc | u->o.loc) & RVI_SLOT) && x86_contains(u->o.loc, d->loc)) {
            /* docs/format.md §14.1's in-place copy (an extract fast left
             * where its source was: v591 @cx = copy v574 @ecx): the part
             * holds the def alone, the container and the rest keep theirs */
            remove_everywhere(s, d->vreg);
            u32vec *part = loc_set(s, d->loc);
            part->len = 0;
            add(part, d->vreg);
            return;
        }
    }
    for (uint32_t j = in->d0; j < in->d0 + in->nd; j++)
        if (f->defs.data[j].loc != RVI_NONE) def_at(s, f->defs.data[j].vreg, f->defs.data[j].loc);
}

static void remove_one(u32vec *v, uint32_t x)
{
    for (uint32_t i = 0; i < v->len; i++)
        if (v->data[i] == x) v->data[i--] = v->data[--v->len];
}

/* The transfer of allocated instruction id: the locations, then U
 * (docs/format.md §14.2: an undef def, or a copy of a vreg in U, puts its
 * def in U; any other def takes it out). */
void fc_apply(fc_state *s, const ra_func *f, uint32_t id)
{
    const ra_inst *in = &f->insts.data[id];
    bool und = in->kind == RK_UNDEF;
    if (in->kind == RK_COPY && in->nu == 1 && !f->uses.data[in->u0].imm) und = has(&s->undef, f->uses.data[in->u0].o.vreg);
    apply_locs(s, f, id);
    if (in->kind == RK_SPILL || in->kind == RK_RELOAD || in->kind == RK_MOVE || in->kind == RK_REMAT) return;
    for (uint32_t j = in->d0; j < in->d0 + in->nd; j++) {
        remove_one(&s->undef, f->defs.data[j].vreg);
        if (und) add(&s->undef, f->defs.data[j].vreg);
    }
}

/* The register holding vreg v, preferring `want`; -1. */
int fc_where(const fc_state *s, uint32_t v, int want)
{
    if (want >= 0 && has(&s->regs[want], v)) return want;
    for (unsigned r = 0; r < X86_NREGS; r++)
        if (has(&s->regs[r], v)) return (int)r;
    return -1;
}

bool fc_overlap_held(const fc_state *s, uint32_t reg)
{
    for (unsigned r = 0; r < X86_NREGS; r++)
        if (x86_overlaps(r, reg) && s->regs[r].len) return true;
    return false;
}

bool fc_holds(const fc_state *s, uint32_t reg, uint32_t v)
{
    return reg < X86_NREGS && has(&s->regs[reg], v);
}

void fc_push(fc_state *s, uint32_t k)
{
    rv_vec_push(s->pending, k);
}

uint32_t fc_npending(const fc_state *s)
{
    return s->pending.len;
}

uint32_t fc_pending(const fc_state *s, uint32_t i)
{
    return s->pending.data[i];
}

void fc_drop(fc_state *s, uint32_t n)
{
    if (n == 0) return;
    memmove(s->pending.data, s->pending.data + n, (s->pending.len - n) * sizeof *s->pending.data);
    s->pending.len -= n;
}
