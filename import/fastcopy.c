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
 * and each spill slot holding the vregs fast spilled to it first. A copy
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

struct fc_state {
    u32vec regs[X86_NREGS];      /* vreg numbers each register holds */
    RV_VEC(u32vec) slots;        /* per slot number */
    RV_VEC(u32vec) home;         /* per slot: what fast spilled to it first */
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
    for (uint32_t i = 0; i < s->home.len; i++) rv_vec_free(s->home.data[i]);
    rv_vec_free(s->slots);
    rv_vec_free(s->home);
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

void fc_block_start(fc_state *s)
{
    for (unsigned r = 0; r < X86_NREGS; r++) s->regs[r].len = 0;
    for (uint32_t n = 0; n < s->slots.len; n++) s->slots.data[n].len = 0;
    for (uint32_t n = 0; n < s->home.len && n < s->slots.len; n++) set_to(&s->slots.data[n], &s->home.data[n]);
    s->pending.len = 0;
}

static void learn_home(fc_state *s, uint32_t slot, const u32vec *set)
{
    uint32_t n = slot & ~RVI_SLOT;
    if (n > 4096 || !set || !set->len) return;
    while (s->home.len <= n) rv_vec_push(s->home, ((u32vec){0}));
    if (!s->home.data[n].len) set_to(&s->home.data[n], set);
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

/* The transfer of allocated instruction id (docs/format.md §6, with the
 * overlap rule of §14.1). */
void fc_apply(fc_state *s, const ra_func *f, uint32_t id)
{
    const ra_inst *in = &f->insts.data[id];
    switch (in->kind) {
    case RK_SPILL: case RK_RELOAD: case RK_MOVE: {
        u32vec tmp = {0};
        set_to(&tmp, loc_set(s, in->src));
        clear_overlaps(s, in->dst);
        set_to(loc_set(s, in->dst), &tmp);
        if (in->kind == RK_SPILL) learn_home(s, in->dst, &tmp);
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
