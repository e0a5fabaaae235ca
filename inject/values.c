/* values.c - the kinds that put a value in the wrong place (kinds.def,
 * family values): a use reading the wrong register, spills and reloads
 * dropped or misdirected, slots merged, a move reversed, a clobbered
 * register trusted, a spill turned into a slot-to-slot move. Their sites
 * come from the hold analysis (what each location holds) and liveness.
 * Requires: the context's analyses (inj.h: c->ok). */
#include "inject/inj.h"

#include <string.h>

/* ---- use-reg ---- */

/* Site a = operand index of the use, b = the register read instead. */
void inj_use_reg_sites(inj *c)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in)) continue;
        for (uint32_t k = 0; k < in->nuses; k++) {
            const rv_operand *o = &OPS(c, i)[in->ndefs + k];
            if (!inj_free_use(c, i, k) || !ravel_loc_is_reg(o->loc) || o->loc >= c->nregs) continue;
            const rv_class *cl = cls_of(c, vcls(c, o->vreg));
            for (uint32_t r = 0; r < cl->alloc.len; r++) {
                uint32_t R = cl->alloc.data[r], h = H(c, i, R);
                if (R != o->loc && h != o->vreg) inj_add_site(c, inj_h_valid(h), i, in->ndefs + k, R, 0);
            }
        }
    }
}

void inj_use_reg_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_operand *o = &OPS(c, s->i)[s->a];
    char a[32], b[32];
    snprintf(buf, n, "use %u of v%u read from %s instead of %s", s->a - IN(c, s->i)->ndefs, vnum(c, o->vreg),
             loc_s(c, s->b, a), loc_s(c, o->loc, b));
}

/* ---- drop-spill, drop-reload ---- */

/* Every edit of kind op; preferred where the value it copies is live after. */
static void drop_sites(inj *c, ravel_opcode op)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (in->op != op) continue;
        uint32_t h = H(c, i, in->u.edit.src);
        inj_add_site(c, inj_h_valid(h) && live_after(c, i, h), i, 0, 0, 0);
    }
}

void inj_drop_spill_sites(inj *c) { drop_sites(c, RAVEL_OP_SPILL); }
void inj_drop_reload_sites(inj *c) { drop_sites(c, RAVEL_OP_RELOAD); }

void inj_drop_edit_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_inst *in = IN(c, s->i);
    char a[32], b[32];
    snprintf(buf, n, "dropped %s = %s %s", loc_s(c, in->u.edit.dst, a), rv_opcode_name(in->op), loc_s(c, in->u.edit.src, b));
}

/* ---- reload-slot ---- */

/* Site a = the slot read instead; preferred: one that holds a value of the
 * reloaded one's class. */
void inj_reload_slot_sites(inj *c)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (in->op != RAVEL_OP_RELOAD) continue;
        uint32_t v = H(c, i, in->u.edit.src);
        for (uint32_t s = 0; s < c->nslots; s++) {
            uint32_t h = H(c, i, ravel_slot(s));
            if (ravel_slot(s) == in->u.edit.src || h == v) continue;
            inj_add_site(c, inj_h_valid(h) && (!inj_h_valid(v) || vcls(c, h) == vcls(c, v)), i, ravel_slot(s), 0, 0);
        }
    }
}

void inj_reload_slot_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    char a[32], b[32];
    snprintf(buf, n, "reload from %s instead of %s", loc_s(c, s->a, a), loc_s(c, IN(c, s->i)->u.edit.src, b));
}

void inj_reload_slot_edit(inj *c, const inj_site *s) { IN(c, s->i)->u.edit.src = s->a; }

/* ---- slot-reuse ---- */

/* Site: a spill; a = another slot (number) holding a value w (b) there;
 * preferred when w is live after the spill. */
void inj_slot_reuse_sites(inj *c)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (in->op != RAVEL_OP_SPILL) continue;
        uint32_t v = H(c, i, in->u.edit.src);
        for (uint32_t s = 0; s < c->nslots; s++) {
            uint32_t w = H(c, i, ravel_slot(s));
            if (ravel_slot(s) == in->u.edit.dst || !inj_h_valid(w) || w == v) continue;
            inj_add_site(c, live_after(c, i, w), i, s, w, 0);
        }
    }
}

void inj_slot_reuse_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    snprintf(buf, n, "slot s%u merged into s%u, where v%u is still live", ravel_loc_slot(IN(c, s->i)->u.edit.dst), s->a,
             vnum(c, s->b));
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
        } else if ((in->flags & RV_IF_STACKMAP) && !rv_is_term(in) && inj_smap_lists(f, in, from)) {
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

void inj_slot_reuse_edit(inj *c, const inj_site *s) { rename_slot(c->f, ravel_loc_slot(IN(c, s->i)->u.edit.dst), s->a); }

/* ---- move-swap ---- */

/* Every edit; preferred: a move whose value is live after it. */
void inj_move_swap_sites(inj *c)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (!rv_is_edit(in) || in->u.edit.dst == in->u.edit.src) continue;
        uint32_t h = H(c, i, in->u.edit.src);
        inj_add_site(c, in->op == RAVEL_OP_MOVE && inj_h_valid(h) && live_after(c, i, h), i, 0, 0, 0);
    }
}

void inj_move_swap_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_inst *in = IN(c, s->i);
    ravel_loc dst = in->u.edit.src, src = in->u.edit.dst; /* after the swap */
    char a[32], b[32];
    snprintf(buf, n, "source and destination swapped (now %s = %s %s)", loc_s(c, dst, a),
             rv_opcode_name(rv_edit_kind(dst, src)), loc_s(c, src, b));
}

void inj_move_swap_edit(inj *c, const inj_site *s)
{
    rv_inst *in = IN(c, s->i);
    ravel_loc d = in->u.edit.dst;
    in->u.edit.dst = in->u.edit.src;
    in->u.edit.src = d;
    in->op = (uint8_t)rv_edit_kind(in->u.edit.dst, in->u.edit.src);
}

/* ---- call-clobber (and ref-in-reg, gc.c) ---- */

/* The first use of v after instruction i in its block, while register r
 * is not written (H says unknown there), if it reads another location: a
 * site (a = its operand index, b = r, c = i). */
static void first_use_site(inj *c, uint32_t i, ravel_loc r, uint32_t v)
{
    const rv_block *bb = &c->f->blocks.data[c->blk[i]];
    for (uint32_t j = i + 1; j < bb->first_inst + bb->ninsts && H(c, j, r) == INJ_H_UNK; j++) {
        const rv_inst *J = IN(c, j);
        if (rv_is_edit(J)) continue;
        for (uint32_t k = 0; k < J->nuses; k++) {
            const rv_operand *o = &OPS(c, j)[J->ndefs + k];
            if (o->vreg != v) continue;
            if (o->loc != r && inj_free_use(c, j, k)) inj_add_site(c, true, j, J->ndefs + k, r, i);
            return; /* the first use only */
        }
    }
}

/* A value v in register r at i (r clobbered by i: calls; or v a reference
 * and i a safepoint of a moving collector: refs), live after i, whose next
 * use in the block reads another location while r was not written since:
 * the use reads r instead. */
void inj_keep_across_sites(inj *c, bool refs)
{
    if (refs && c->f->mach->gc_nonmoving) return;
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (rv_is_edit(in) || (refs && !(in->flags & RV_IF_SAFEPOINT))) continue;
        for (uint32_t r = 0; r < c->nregs; r++) {
            uint32_t v = H(c, i, r);
            if (!inj_h_valid(v) || defines_loc(c, i, r) || vcls(c, v) != reg_of(c, r)->cls || reg_of(c, r)->reserved) continue;
            if (refs ? (!is_ref(c, v) || inj_clobbers(c, i, r)) : !inj_clobbers(c, i, r)) continue;
            if (live_after(c, i, v)) first_use_site(c, i, r, v);
        }
    }
}

void inj_call_clobber_sites(inj *c) { inj_keep_across_sites(c, false); }

void inj_keep_across_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_operand *o = &OPS(c, s->i)[s->a];
    char w2[96], a[32], b[32];
    inj_where(c, s->c, w2, sizeof w2);
    snprintf(buf, n, "use %u of v%u reads %s, kept there across %s, instead of %s", s->a - IN(c, s->i)->ndefs,
             vnum(c, o->vreg), loc_s(c, s->b, a), w2, loc_s(c, o->loc, b));
}

/* ---- slot-to-slot ---- */

/* Site: a spill of v; a = another slot that holds v already. */
void inj_slot_to_slot_sites(inj *c)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (in->op != RAVEL_OP_SPILL) continue;
        uint32_t v = H(c, i, in->u.edit.src);
        for (uint32_t s = 0; inj_h_valid(v) && s < c->nslots; s++)
            if (ravel_slot(s) != in->u.edit.dst && H(c, i, ravel_slot(s)) == v) inj_add_site(c, true, i, ravel_slot(s), 0, 0);
    }
}

void inj_slot_to_slot_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_inst *in = IN(c, s->i);
    char a[32], b[32], a2[32], b2[32];
    snprintf(buf, n, "%s = spill %s became %s = move %s", loc_s(c, in->u.edit.dst, a), loc_s(c, in->u.edit.src, b),
             loc_s(c, in->u.edit.dst, a2), loc_s(c, s->a, b2));
}

void inj_slot_to_slot_edit(inj *c, const inj_site *s)
{
    rv_inst *in = IN(c, s->i);
    in->op = RAVEL_OP_MOVE;
    in->u.edit.src = s->a;
}
