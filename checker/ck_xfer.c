/* ck_xfer.c - the transfer function of one block (FORMAT.md section 6).
 * An op, in order: early defs written; early uses checked; stackmap
 * checked, clobbers and the safepoint effect applied; late defs written;
 * late uses checked. Edits copy sets. `copy` makes its def an alias of its
 * source. Errors are recorded only when ck->rep is set.
 * Requires: the state of ck_state.c. */
#include "ck.h"

#include <string.h>

static bool is_ref(const ravel_checker *ck, uint32_t v) { return ck_is_ref(ck, v); }

/* ---- reads (checked when ck->rep is set) ---- */

static bool read_use(ravel_checker *ck, const ck_site *s, const rv_operand *o)
{
    uint32_t li = ck_li(ck, o->loc);
    if (li == CK_NIL) return false; /* structural error, reported by the rules */
    ck_val val = ck_get(ck, li);
    if (ck_val_has(&ck->sets, val, o->vreg)) return true;
    if (ck->rep) {
        const char *kind = val == CK_V_UNKNOWN ? "use-unknown"
                         : val == CK_V_CONFLICT ? "use-conflicted"
                         : val == CK_V_EMPTY ? "use-empty" : "use-wrong-vreg";
        ck_err_value(ck, s, kind, li, o->vreg);
    }
    return false;
}

static void check_stackmap(ravel_checker *ck, ck_site *s, const rv_inst *in)
{
    const ravel_func *f = ck->f;
    for (uint32_t k = 0; k < in->u.smap.n; k++) {
        uint32_t li = ck_li(ck, ravel_slot(f->u32.data[in->u.smap.first + k]));
        if (li == CK_NIL || ck_holds_ref(ck, ck_get(ck, li)) || !ck->rep) continue;
        s->role = "stackmap";
        s->k = (int32_t)k;
        s->op = NULL;
        s->order = 2 * 65536u + k;
        ck_err_value(ck, s, "stackmap-not-ref", li, CK_NIL);
    }
}

/* ---- effects ---- */

/* Step 3's clobbers: the registers become unknown, except (keep_defined)
 * those the instruction defines - the plain transfer writes its late defs
 * right after, which gives the same state without the search. */
static void clobber(ravel_checker *ck, const rv_inst *in, bool keep_defined)
{
    const uint32_t *regs;
    uint32_t n = rv_inst_clobbers(ck->f, in, &regs);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t li = ck_lix(ck, regs[k]);
        if (li != CK_NIL && !(keep_defined && ck_defines_loc(ck->f, in, regs[k]))) ck_set(ck, li, CK_V_UNKNOWN);
    }
}

/* gc moving: every unlisted location loses its .ref vregs, every listed
 * slot its other vregs. gc nonmoving: a .ref vreg held by no listed slot is
 * removed everywhere. */
static void safepoint_effect(ravel_checker *ck, const rv_inst *in)
{
    const ravel_func *f = ck->f;
    uint32_t listed = ck_next_stamp(ck), rooted = 0;
    uint32_t n = (in->flags & RV_IF_STACKMAP) ? in->u.smap.n : 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t li = ck_li(ck, ravel_slot(f->u32.data[in->u.smap.first + k]));
        if (li != CK_NIL) ck->lst3[li] = listed;
    }
    if (f->mach->gc_nonmoving) {
        rooted = ck_next_stamp(ck);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t li = ck_li(ck, ravel_slot(f->u32.data[in->u.smap.first + k]));
            if (li == CK_NIL) continue;
            uint32_t one;
            const uint32_t *m;
            uint32_t nm = ck_val_members(&ck->sets, ck_get(ck, li), &m, &one);
            for (uint32_t i = 0; i < nm; i++) ck->vst[m[i]] = rooted;
        }
    }
    ck_gc_effect(ck, listed, rooted);
    for (uint32_t k = 0; k < n && !f->mach->gc_nonmoving; k++) {
        uint32_t li = ck_li(ck, ravel_slot(f->u32.data[in->u.smap.first + k]));
        if (li != CK_NIL) ck_keep_refs(ck, li);
    }
}

static void snapshot_src(ravel_checker *ck, uint32_t li)
{
    uint32_t one;
    const uint32_t *m;
    uint32_t n = ck_val_members(&ck->sets, ck_get(ck, li), &m, &one);
    ck->srcset.len = 0;
    for (uint32_t i = 0; i < n; i++) rv_vec_push(ck->srcset, m[i]);
}

/* alias_def when the source location held u alone (d != u): the set
 * {u, d} is interned once, for d's location and u's other holders. */
static void alias_single(ravel_checker *ck, uint32_t d, uint32_t u, uint32_t ld)
{
    uint32_t m[2] = {u < d ? u : d, u < d ? d : u};
    ck_kill_vreg(ck, d);
    ck_val pair = ck_set_intern(&ck->sets, m, 2);
    ck_alias(ck, d, u, pair);
    if (ld != CK_NIL) ck_set(ck, ld, pair);
}

/* copy d <- u whose read succeeded (source set in ck->srcset): every
 * location holding u also holds d; d's location := source set plus d. */
static void alias_def(ravel_checker *ck, uint32_t d, uint32_t u, uint32_t ld)
{
    if (ck->srcset.len == 1 && ck->srcset.data[0] == u && d != u) {
        alias_single(ck, d, u, ld);
        return;
    }
    ck_kill_vreg(ck, d);
    ck_alias(ck, d, u, CK_NIL);
    if (ld == CK_NIL) return;
    uint32_t w = 0;
    bool has_d = false;
    for (uint32_t i = 0; i < ck->srcset.len; i++) has_d |= ck->srcset.data[i] == d;
    ck->setbuf2.len = 0;
    rv_vec_reserve(ck->setbuf2, ck->srcset.len + 1);
    for (uint32_t i = 0; i < ck->srcset.len; i++) ck->setbuf2.data[w++] = ck->srcset.data[i];
    if (!has_d) ck->setbuf2.data[w++] = d;
    ck_sort_u32(ck->setbuf2.data, w);
    ck_set(ck, ld, ck_set_intern(&ck->sets, ck->setbuf2.data, w));
}

static void defs_at(ravel_checker *ck, const rv_inst *in, bool late, bool copy_ok)
{
    const rv_operand *d = ck_defs(ck->f, in);
    for (uint32_t k = 0; k < in->ndefs; k++) {
        if (rv_op_is_late(&d[k]) != late) continue;
        if (copy_ok && late) alias_def(ck, d[k].vreg, ck_uses(ck->f, in)[0].vreg, ck_li(ck, d[k].loc));
        else ck_write_def(ck, d[k].vreg, ck_li(ck, d[k].loc));
    }
}

static void uses_at(ravel_checker *ck, ck_site *s, const rv_inst *in, bool late, bool *copy_ok)
{
    const rv_operand *u = ck_uses(ck->f, in);
    for (uint32_t k = 0; k < in->nuses; k++) {
        if (rv_op_is_late(&u[k]) != late) continue;
        s->role = "use";
        s->k = (int32_t)k;
        s->op = &u[k];
        s->order = 65536u + k;
        bool ok = read_use(ck, s, &u[k]);
        if (copy_ok && k == 0 && in->op == RAVEL_OP_COPY && in->ndefs == 1 && ok) {
            *copy_ok = true;
            snapshot_src(ck, ck_li(ck, u[k].loc));
        }
    }
}

static void xfer_op(ravel_checker *ck, ck_site *s, const rv_inst *in)
{
    const ravel_func *f = ck->f;
    bool copy_ok = false;
    defs_at(ck, in, false, false);                 /* 1. early defs */
    uses_at(ck, s, in, false, &copy_ok);           /* 2. early uses */
    if (copy_ok && rv_op_is_early(ck_defs(f, in))) {
        alias_def(ck, ck_defs(f, in)->vreg, ck_uses(f, in)->vreg, ck_li(ck, ck_defs(f, in)->loc));
        copy_ok = false;
    }
    if (!rv_is_term(in)) {                         /* 3. stackmap, clobbers, gc */
        if (in->flags & RV_IF_STACKMAP) check_stackmap(ck, s, in);
        clobber(ck, in, true);
        if (in->flags & RV_IF_SAFEPOINT) {
            safepoint_effect(ck, in);
            if (copy_ok) {
                uint32_t w = 0;
                for (uint32_t i = 0; i < ck->srcset.len; i++)
                    if (!is_ref(ck, ck->srcset.data[i])) ck->srcset.data[w++] = ck->srcset.data[i];
                ck->srcset.len = w;
            }
        }
    }
    defs_at(ck, in, true, copy_ok);                /* 4. late defs */
    uses_at(ck, s, in, true, NULL);                /* 5. late uses */
}

static void xfer_plain(ravel_checker *ck, uint32_t b, uint32_t ii, const rv_inst *in)
{
    const rv_operand *o = ck_ops(ck->f, in);
    uint32_t nd = in->ndefs, n = nd + in->nuses;
    for (uint32_t k = nd; k < n; k++) {
        uint32_t li = ck_lix(ck, o[k].loc);
        if (li == CK_NIL || ck_val_has(&ck->sets, ck->lval[li], o[k].vreg) || !ck->rep) continue;
        ck_site s = {b, ii, "use", (int32_t)(k - nd), &o[k], 65536u + (k - nd)};
        read_use(ck, &s, &o[k]); /* records the error */
    }
    if ((in->flags & RV_IF_CLOBBERS) || in->op == RAVEL_OP_CALL) clobber(ck, in, false);
    for (uint32_t k = 0; k < nd; k++) ck_write_def(ck, o[k].vreg, ck_lix(ck, o[k].loc));
}

/* The usual copy d <- u (no attributes, late def, early use) whose source
 * location holds u alone: xfer_op's steps without their generality (the
 * read succeeds, nothing is clobbered, then alias_def's usual case). False
 * (nothing done) for any other copy. */
static bool xfer_copy(ravel_checker *ck, const rv_inst *in)
{
    if (in->flags || in->ndefs != 1 || in->nuses != 1) return false;
    const rv_operand *o = ck_ops(ck->f, in);
    uint32_t d = o[0].vreg, u = o[1].vreg, lu = ck_lix(ck, o[1].loc);
    if (!rv_op_is_late(&o[0]) || rv_op_is_late(&o[1]) || lu == CK_NIL || ck->lval[lu] != u || d == u) return false;
    alias_single(ck, d, u, ck_lix(ck, o[0].loc));
    return true;
}

static void xfer(ravel_checker *ck, uint32_t b, uint32_t ii, const rv_inst *in)
{
    if (rv_is_edit(in)) {
        uint32_t dst = ck_lix(ck, in->u.edit.dst), src = ck_lix(ck, in->u.edit.src);
        if (dst == CK_NIL) return;
        if (src == CK_NIL) ck_set(ck, dst, CK_V_UNKNOWN);
        else ck_copy_loc(ck, dst, src);
        return;
    }
    if (ck_op_plain(ck->f, in)) {
        xfer_plain(ck, b, ii, in);
        return;
    }
    if (in->op == RAVEL_OP_COPY && xfer_copy(ck, in)) return;
    ck_site s = {b, ii, NULL, -1, NULL, 0};
    xfer_op(ck, &s, in);
}

/* Runs the instructions of block b on the current state (errors go to
 * ck->rep when set; ck->dump_block == b dumps the state before each). */
void ck_xfer_block(ravel_checker *ck, uint32_t b)
{
    const rv_block *bl = &ck->f->blocks.data[b];
    bool dump = ck->dumping && ck->dump_block == b;
    if (dump) ck->explain.len = ck->explain_base; /* a loop visits b again: the last visit wins */
    for (uint32_t i = 0; i < bl->ninsts; i++) {
        uint32_t ii = bl->first_inst + i;
        if (dump) ck_dump_state(ck, b, ii);
        CK_PREFETCH_AHEAD(rv_inst_at(ck->f, ii), 12); /* the instruction stream, as in the guard */
        xfer(ck, b, ii, rv_inst_at(ck->f, ii));
    }
    if (dump) ck_dump_state(ck, b, CK_NIL);
}
