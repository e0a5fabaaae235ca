/* generic.c - the generic corruptions (kinds.def, RV_INJ_RAND rows; the
 * checker oracle's first seven): not modelled on one bug, their site and
 * their new values drawn at random, with no analysis. What a seed draws
 * is fixed by the order of the draws in each DRAW function: one draw per
 * line, in the order written.
 * Requires: a machine with registers (inject.c checks). */
#include "inject/inj.h"

static ravel_loc any_reg(inj *c) { return below(c, c->nregs); }
static ravel_loc any_slot(inj *c) { return ravel_slot(below(c, c->f->nslots + 1)); }

/* One instruction satisfying pred, uniformly (one draw per candidate), or
 * RAVEL_NONE. */
static uint32_t pick_inst(inj *c, bool (*pred)(const rv_inst *))
{
    uint32_t n = 0, p = RAVEL_NONE;
    for (uint32_t i = 0; i < c->f->insts.len; i++)
        if (pred(&c->f->insts.data[i]) && below(c, ++n) == 0) p = i;
    return p;
}
static bool p_edit(const rv_inst *in) { return rv_is_edit(in); }
static bool p_smap(const rv_inst *in) { return is_sp(in) && (in->flags & RV_IF_STACKMAP) && in->u.smap.n; }

/* ---- rand-loc: site a = an index into f->ops, b = its new location (no instruction) ---- */

bool inj_rand_loc_draw(inj *c, inj_site *s)
{
    const ravel_func *f = c->f;
    if (!f->ops.len) return false;
    s->i = RAVEL_NONE;
    s->a = below(c, f->ops.len);
    s->b = below(c, 4) == 0 ? any_slot(c) : any_reg(c);
    return f->ops.data[s->a].loc != RAVEL_LOC_NONE;
}

void inj_rand_loc_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_operand *o = &c->f->ops.data[s->a];
    char a[32], b[32];
    snprintf(buf, n, "an operand of v%u moved from %s to %s", vnum(c, o->vreg), loc_s(c, o->loc, a), loc_s(c, s->b, b));
}

void inj_rand_loc_edit(inj *c, const inj_site *s)
{
    c->f->ops.data[s->a].loc = s->b;
    rv_note_slot(c->f, s->b);
}

/* ---- rand-drop-edit: site i = an edit ---- */

bool inj_rand_drop_edit_draw(inj *c, inj_site *s)
{
    s->i = pick_inst(c, p_edit);
    return s->i != RAVEL_NONE;
}

void inj_rand_drop_edit_say(const inj *c, const inj_site *s, char *buf, size_t n) { snprintf(buf, n, "edit %u dropped", s->i); }

/* ---- rand-redirect: site i = an edit, a = 1 its destination, 0 its source, b = the new location ---- */

bool inj_rand_redirect_draw(inj *c, inj_site *s)
{
    s->i = pick_inst(c, p_edit);
    if (s->i == RAVEL_NONE) return false;
    const rv_inst *in = IN(c, s->i);
    s->a = below(c, 2) != 0;
    s->b = ravel_loc_is_slot(s->a ? in->u.edit.dst : in->u.edit.src) ? any_slot(c) : any_reg(c);
    return true;
}

void inj_rand_redirect_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    const rv_inst *in = IN(c, s->i);
    char a[32], b[32];
    snprintf(buf, n, "edit %u: %s redirected to %s", s->i, loc_s(c, s->a ? in->u.edit.dst : in->u.edit.src, a),
             loc_s(c, s->b, b));
}

void inj_rand_redirect_edit(inj *c, const inj_site *s)
{
    rv_inst *in = IN(c, s->i);
    *(s->a ? &in->u.edit.dst : &in->u.edit.src) = s->b;
    rv_note_slot(c->f, s->b);
}

/* ---- rand-swap-edits: site i = an edit, a = its neighbour in the block (not the terminator) ---- */

bool inj_rand_swap_edits_draw(inj *c, inj_site *s)
{
    s->i = pick_inst(c, p_edit);
    if (s->i == RAVEL_NONE) return false;
    const rv_block *bb = &c->f->blocks.data[c->blk[s->i]];
    uint32_t i = s->i, j = below(c, 2) ? i + 1 : i - 1, end = bb->first_inst + bb->ninsts;
    s->a = j;
    return !(j < bb->first_inst || j + 1 >= end || i + 1 == end);
}

void inj_rand_swap_edits_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    snprintf(buf, n, "instructions %u and %u swapped", s->i, s->a);
}

void inj_rand_swap_edits_edit(inj *c, const inj_site *s) { rv_inst_swap(c->f, s->i, s->a); }

/* ---- rand-drop-smap: site i = a safepoint with a stackmap, a = the index of the slot dropped ---- */

bool inj_rand_drop_smap_draw(inj *c, inj_site *s)
{
    s->i = pick_inst(c, p_smap);
    if (s->i == RAVEL_NONE) return false;
    s->a = below(c, IN(c, s->i)->u.smap.n);
    return true;
}

void inj_rand_drop_smap_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    snprintf(buf, n, "inst %u: s%u dropped from the stackmap", s->i, c->f->u32.data[IN(c, s->i)->u.smap.first + s->a]);
}

void inj_rand_drop_smap_edit(inj *c, const inj_site *s) { inj_rewrite_smap(c, s->i, s->a, 0); }

/* ---- rand-add-smap: site i = a safepoint, a = a slot it does not list ---- */

bool inj_rand_add_smap_draw(inj *c, inj_site *s)
{
    s->i = pick_inst(c, is_sp);
    if (s->i == RAVEL_NONE) return false;
    s->a = below(c, c->f->nslots + 1);
    return !inj_smap_lists(c->f, IN(c, s->i), s->a);
}

void inj_rand_add_smap_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    snprintf(buf, n, "inst %u: s%u added to the stackmap", s->i, s->a);
}

void inj_rand_add_smap_edit(inj *c, const inj_site *s) { inj_rewrite_smap(c, s->i, RAVEL_NONE, s->a); }

/* ---- rand-insert-edit: site i = where, a = the edit's opcode, b its destination, c its source ---- */

bool inj_rand_insert_edit_draw(inj *c, inj_site *s)
{
    if (!c->f->insts.len) return false;
    s->i = below(c, c->f->insts.len);
    switch (below(c, 3)) {
    case 0:
        s->a = RAVEL_OP_MOVE;
        s->c = any_reg(c);
        s->b = any_reg(c);
        break;
    case 1:
        s->a = RAVEL_OP_SPILL;
        s->c = any_reg(c);
        s->b = any_slot(c);
        break;
    default:
        s->a = RAVEL_OP_RELOAD;
        s->c = any_slot(c);
        s->b = any_reg(c);
        break;
    }
    return true;
}

void inj_rand_insert_edit_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    char a[32], b[32];
    snprintf(buf, n, "inst %u: %s = %s %s inserted", s->i, loc_s(c, s->b, a), rv_opcode_name((ravel_opcode)s->a),
             loc_s(c, s->c, b));
}

void inj_rand_insert_edit_edit(inj *c, const inj_site *s)
{
    rv_edit_insert(c->f, c->blk[s->i], s->i, (ravel_opcode)s->a, s->b, s->c);
}
