/* gc.c - the kinds of stackmaps and safepoints (kinds.def, family gc): a
 * live reference slot left out of a stackmap, a slot without a reference
 * listed, a stackmap not emitted, a reference kept in a register across a
 * safepoint of a moving collector.
 * Requires: the context's analyses (inj.h: c->ok). */
#include "inject/inj.h"

/* ---- smap-missing ---- */

/* Site a = the index in the stackmap of a slot holding a reference;
 * preferred when the reference is live after the safepoint. */
void inj_smap_missing_sites(inj *c)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (!is_sp(in) || !(in->flags & RV_IF_STACKMAP)) continue;
        for (uint32_t k = 0; k < in->u.smap.n; k++) {
            uint32_t h = H(c, i, ravel_slot(c->f->u32.data[in->u.smap.first + k]));
            if (inj_h_valid(h) && is_ref(c, h)) inj_add_site(c, live_after(c, i, h), i, k, 0, 0);
        }
    }
}

void inj_smap_missing_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    uint32_t gone = c->f->u32.data[IN(c, s->i)->u.smap.first + s->a];
    snprintf(buf, n, "s%u (holding reference v%u) left out of the stackmap", gone, vnum(c, H(c, s->i, ravel_slot(gone))));
}

void inj_smap_missing_edit(inj *c, const inj_site *s) { inj_rewrite_smap(c, s->i, s->a, 0); }

/* ---- smap-nonref ---- */

/* Site a = a slot the stackmap does not list; preferred when it holds a
 * value that is no reference. */
void inj_smap_nonref_sites(inj *c)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (!is_sp(in)) continue;
        for (uint32_t s = 0; s < c->nslots; s++) {
            if (inj_smap_lists(c->f, in, s)) continue;
            uint32_t h = H(c, i, ravel_slot(s));
            inj_add_site(c, inj_h_valid(h) && !is_ref(c, h), i, s, 0, 0);
        }
    }
}

void inj_smap_nonref_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    snprintf(buf, n, "s%u, which holds no reference, listed in the stackmap", s->a);
}

void inj_smap_nonref_edit(inj *c, const inj_site *s) { inj_rewrite_smap(c, s->i, RAVEL_NONE, s->a); }

/* ---- ref-in-reg (its sites: values.c) ---- */

void inj_ref_in_reg_sites(inj *c) { inj_keep_across_sites(c, true); }

/* ---- smap-dropped ---- */

/* Every safepoint with a stackmap; preferred when it lists some slot. */
void inj_smap_dropped_sites(inj *c)
{
    for (uint32_t i = 0; i < c->ninsts; i++) {
        const rv_inst *in = IN(c, i);
        if (is_sp(in) && (in->flags & RV_IF_STACKMAP)) inj_add_site(c, in->u.smap.n > 0, i, 0, 0, 0);
    }
}

void inj_smap_dropped_say(const inj *c, const inj_site *s, char *buf, size_t n)
{
    uint32_t k = IN(c, s->i)->u.smap.n;
    snprintf(buf, n, "the stackmap (%u slot%s) not emitted", k, k == 1 ? "" : "s");
}

void inj_smap_dropped_edit(inj *c, const inj_site *s)
{
    rv_inst *in = IN(c, s->i);
    in->flags &= (uint8_t)~RV_IF_STACKMAP;
    in->u.smap.first = in->u.smap.n = 0;
}
