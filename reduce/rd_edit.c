/* rd_edit.c - edits of an rd_func that keep it consistent: removing values
 * with everything that depended on them, unreachable blocks, edges, and the
 * dense renumbering of the final result. The passes are built from these. */
#include "reduce/rd.h"

#include <stdlib.h>

static void remove_param(rd_func *f, uint32_t b, uint32_t i)
{
    rd_block *bl = &f->blocks.data[b];
    memmove(&bl->params.data[i], &bl->params.data[i + 1], sizeof(uint32_t) * (bl->params.len - i - 1));
    bl->params.len--;
    for (uint32_t p = 0; p < f->blocks.len; p++) {
        rd_block *pb = &f->blocks.data[p];
        if (!pb->insts.len) continue;
        rd_inst *t = &pb->insts.data[pb->insts.len - 1];
        for (uint32_t k = 0; k < t->succs.len; k++) {
            rd_succ *s = &t->succs.data[k];
            if (s->block != b || i >= s->args.len) continue;
            memmove(&s->args.data[i], &s->args.data[i + 1], sizeof(uint32_t) * (s->args.len - i - 1));
            s->args.len--;
        }
    }
}

/* Drops use k of in; reuse(K) constraints naming later uses follow them, one
 * naming use k becomes a plain reg constraint. */
void rd_drop_use(rd_inst *in, uint32_t k)
{
    uint32_t vk = 0; /* index of use k among the vreg uses */
    for (uint32_t j = 0; j < k; j++) vk += !in->uses.data[j].is_imm;
    bool was_vreg = !in->uses.data[k].is_imm;
    memmove(&in->uses.data[k], &in->uses.data[k + 1], sizeof(rd_use) * (in->uses.len - k - 1));
    in->uses.len--;
    if (!was_vreg) return;
    for (uint32_t j = 0; j < in->defs.len + in->uses.len; j++) {
        rv_operand *o = j < in->defs.len ? &in->defs.data[j] : &in->uses.data[j - in->defs.len].op;
        if (j >= in->defs.len && in->uses.data[j - in->defs.len].is_imm) continue;
        if (o->kind != RAVEL_C_REUSE) continue;
        if (o->arg == vk) o->kind = RAVEL_C_REG, o->arg = 0;
        else if (o->arg > vk) o->arg--;
    }
}

static bool uses_dead(const rd_inst *in, const bool *dead)
{
    for (uint32_t k = 0; k < in->uses.len; k++)
        if (!in->uses.data[k].is_imm && dead[in->uses.data[k].op.vreg]) return true;
    return false;
}

/* A terminator: dead condition / return values are dropped; an edge
 * argument that died kills the parameter it feeds. Returns true if a new
 * value died. */
static bool term_kill(rd_func *f, rd_inst *t, bool *dead)
{
    bool more = false;
    for (uint32_t k = t->uses.len; k-- > 0;)
        if (!t->uses.data[k].is_imm && dead[t->uses.data[k].op.vreg]) rd_drop_use(t, k);
    for (uint32_t k = 0; k < t->succs.len; k++) {
        const rd_succ *s = &t->succs.data[k];
        const rd_block *tb = &f->blocks.data[s->block];
        for (uint32_t a = 0; a < s->args.len && a < tb->params.len; a++)
            if (dead[s->args.data[a]] && !dead[tb->params.data[a]]) dead[tb->params.data[a]] = more = true;
    }
    return more;
}

/* One sweep over block b; returns true if a new value died. */
static bool block_kill(rd_func *f, uint32_t b, bool *dead)
{
    rd_block *bl = &f->blocks.data[b];
    bool more = false;
    for (uint32_t i = bl->params.len; i-- > 0;)
        if (dead[bl->params.data[i]]) remove_param(f, b, i);
    for (uint32_t k = 0; k + 1 < bl->insts.len;) {
        rd_inst *in = &bl->insts.data[k];
        if (uses_dead(in, dead)) {
            rd_remove_inst(f, b, k, dead);
            more = true;
            continue;
        }
        for (uint32_t d = in->defs.len; d-- > 0;) {
            if (!dead[in->defs.data[d].vreg]) continue;
            memmove(&in->defs.data[d], &in->defs.data[d + 1], sizeof(rv_operand) * (in->defs.len - d - 1));
            in->defs.len--;
        }
        k++;
    }
    if (bl->insts.len) more |= term_kill(f, &bl->insts.data[bl->insts.len - 1], dead);
    return more;
}

void rd_kill_values(rd_func *f, bool *dead)
{
    bool more = true;
    while (more) {
        more = false;
        for (uint32_t b = 0; b < f->blocks.len; b++) more |= block_kill(f, b, dead);
    }
}

void rd_remove_inst(rd_func *f, uint32_t b, uint32_t k, bool *dead)
{
    rd_block *bl = &f->blocks.data[b];
    rd_inst *in = &bl->insts.data[k];
    for (uint32_t d = 0; d < in->defs.len; d++) dead[in->defs.data[d].vreg] = true;
    rd_inst_free(in);
    memmove(in, in + 1, sizeof(rd_inst) * (bl->insts.len - k - 1));
    bl->insts.len--;
}

void rd_remove_edge(rd_inst *t, uint32_t k)
{
    rv_vec_free(t->succs.data[k].args);
    memmove(&t->succs.data[k], &t->succs.data[k + 1], sizeof(rd_succ) * (t->succs.len - k - 1));
    t->succs.len--;
    if (t->op == RAVEL_OP_BR && t->succs.len == 1) {
        t->op = RAVEL_OP_JUMP;
        t->uses.len = 0;
    }
}

void rd_drop_unreachable(rd_func *f)
{
    uint32_t n = f->blocks.len;
    uint32_t *map = rv_xcalloc(n ? n : 1, sizeof *map), *stack = rv_xmalloc(sizeof *stack * (n ? n : 1));
    bool *dead = rv_xcalloc(f->vregs.len + 1, sizeof *dead);
    for (uint32_t b = 0; b < n; b++) map[b] = RAVEL_NONE;
    uint32_t top = 0;
    if (n) map[0] = 0, stack[top++] = 0;
    while (top) {
        const rd_block *bl = &f->blocks.data[stack[--top]];
        if (!bl->insts.len) continue;
        const rd_inst *t = &bl->insts.data[bl->insts.len - 1];
        for (uint32_t k = 0; k < t->succs.len; k++)
            if (t->succs.data[k].block < n && map[t->succs.data[k].block] == RAVEL_NONE)
                map[t->succs.data[k].block] = 0, stack[top++] = t->succs.data[k].block;
    }
    uint32_t m = 0;
    bool any = false;
    for (uint32_t b = 0; b < n; b++) {
        rd_block *bl = &f->blocks.data[b];
        if (map[b] != RAVEL_NONE) {
            map[b] = m;
            f->blocks.data[m++] = *bl;
            continue;
        }
        any = true;
        for (uint32_t i = 0; i < bl->params.len; i++) dead[bl->params.data[i]] = true;
        for (uint32_t k = 0; k < bl->insts.len; k++)
            for (uint32_t d = 0; d < bl->insts.data[k].defs.len; d++) dead[bl->insts.data[k].defs.data[d].vreg] = true;
        rd_block_free(bl);
    }
    f->blocks.len = m;
    for (uint32_t b = 0; any && b < m; b++) {
        rd_block *bl = &f->blocks.data[b];
        rd_inst *t = bl->insts.len ? &bl->insts.data[bl->insts.len - 1] : NULL;
        for (uint32_t k = 0; t && k < t->succs.len; k++) t->succs.data[k].block = map[t->succs.data[k].block];
    }
    if (any) rd_kill_values(f, dead);
    rv_free(dead);
    rv_free(stack);
    rv_free(map);
}

void rd_replace_uses(rd_func *f, uint32_t from, uint32_t to)
{
    for (uint32_t b = 0; b < f->blocks.len; b++) {
        rd_block *bl = &f->blocks.data[b];
        for (uint32_t k = 0; k < bl->insts.len; k++) {
            rd_inst *in = &bl->insts.data[k];
            for (uint32_t u = 0; u < in->uses.len; u++)
                if (!in->uses.data[u].is_imm && in->uses.data[u].op.vreg == from) in->uses.data[u].op.vreg = to;
            for (uint32_t s = 0; s < in->succs.len; s++)
                for (uint32_t a = 0; a < in->succs.data[s].args.len; a++)
                    if (in->succs.data[s].args.data[a] == from) in->succs.data[s].args.data[a] = to;
        }
    }
}

/* ---- renumbering ---------------------------------------------------------- */

typedef struct renum {
    uint32_t *vmap;  /* old vreg id -> new id, RAVEL_NONE if not seen yet */
    RV_VEC(rd_vreg) vregs;
    rv_map slots;    /* old slot + 1 -> new slot + 1 */
    uint32_t nslots;
} renum;

static void see_vreg(renum *r, const rd_func *f, uint32_t *v)
{
    if (r->vmap[*v] == RAVEL_NONE) {
        rd_vreg x = f->vregs.data[*v];
        x.num = r->vregs.len;
        r->vmap[*v] = r->vregs.len;
        rv_vec_push(r->vregs, x);
    }
    *v = r->vmap[*v];
}

static void see_loc(renum *r, ravel_loc *l)
{
    if (*l == RAVEL_LOC_NONE || !ravel_loc_is_slot(*l)) return;
    uint32_t s = rv_map_get(&r->slots, (uint64_t)ravel_loc_slot(*l) + 1, 0);
    if (!s) rv_map_put(&r->slots, (uint64_t)ravel_loc_slot(*l) + 1, s = ++r->nslots);
    *l = ravel_slot(s - 1);
}

static void renum_inst(renum *r, const rd_func *f, rd_inst *in)
{
    for (uint32_t k = 0; k < in->defs.len; k++) {
        see_vreg(r, f, &in->defs.data[k].vreg);
        see_loc(r, &in->defs.data[k].loc);
    }
    for (uint32_t k = 0; k < in->uses.len; k++) {
        if (in->uses.data[k].is_imm) continue;
        see_vreg(r, f, &in->uses.data[k].op.vreg);
        see_loc(r, &in->uses.data[k].op.loc);
    }
    for (uint32_t s = 0; s < in->succs.len; s++)
        for (uint32_t a = 0; a < in->succs.data[s].args.len; a++) see_vreg(r, f, &in->succs.data[s].args.data[a]);
    see_loc(r, &in->dst);
    see_loc(r, &in->src);
    for (uint32_t k = 0; k < in->smap.len; k++) {
        ravel_loc l = ravel_slot(in->smap.data[k]);
        see_loc(r, &l);
        in->smap.data[k] = ravel_loc_slot(l);
    }
}

void rd_renumber(rd_func *f)
{
    renum r;
    memset(&r, 0, sizeof r);
    r.vmap = rv_xmalloc(sizeof *r.vmap * (f->vregs.len + 1));
    for (uint32_t v = 0; v < f->vregs.len; v++) r.vmap[v] = RAVEL_NONE;
    for (uint32_t b = 0; b < f->blocks.len; b++) { /* defs in layout order: params, then instructions */
        rd_block *bl = &f->blocks.data[b];
        bl->name = NULL;
        for (uint32_t k = 0; k < bl->params.len; k++) see_vreg(&r, f, &bl->params.data[k]);
        for (uint32_t k = 0; k < bl->insts.len; k++) renum_inst(&r, f, &bl->insts.data[k]);
    }
    rv_vec_free(f->vregs);
    f->vregs.data = r.vregs.data;
    f->vregs.len = r.vregs.len;
    f->vregs.cap = r.vregs.cap;
    rv_map_free(&r.slots);
    rv_free(r.vmap);
}
