/* rd_pass_cfg.c - passes on the CFG: cut blocks off (their terminator
 * becomes `ret`, what is no longer reachable goes), remove edges of a `br`,
 * bypass empty blocks, merge a block into its only predecessor.
 *
 * None of them adds an edge out of a block with several successors into a
 * block with several predecessors except bypass, whose candidates the
 * validator rejects when that makes a critical edge; removing edges and
 * blocks never creates one. */
#include "reduce/rd.h"

#include <stdlib.h>

static rd_inst *term(rd_func *f, uint32_t b)
{
    rd_block *bl = &f->blocks.data[b];
    return bl->insts.len ? &bl->insts.data[bl->insts.len - 1] : NULL;
}

/* ---- cut: terminator -> ret ------------------------------------------------ */

static bool cuttable(rd_func *f, uint32_t b)
{
    const rd_inst *t = term(f, b);
    return t && t->op != RAVEL_OP_RET;
}

static uint32_t cut_count(const rd_func *f)
{
    uint32_t n = 0;
    for (uint32_t b = 0; b < f->blocks.len; b++) n += cuttable((rd_func *)f, b);
    return n;
}

static bool cut_apply(rd_func *f, uint32_t lo, uint32_t hi)
{
    uint32_t item = 0;
    bool changed = false;
    for (uint32_t b = 0; b < f->blocks.len; b++) {
        if (!cuttable(f, b)) continue;
        if (item >= lo && item < hi) {
            rd_inst *t = term(f, b);
            rd_inst_free(t);
            memset(t, 0, sizeof *t);
            t->op = RAVEL_OP_RET;
            changed = true;
        }
        item++;
    }
    if (changed) rd_drop_unreachable(f);
    return changed;
}

const rd_pass rd_pass_cut_blocks = {"cut-blocks", cut_count, cut_apply};

/* ---- edges of a br ------------------------------------------------------------ */

static uint32_t edges_count(const rd_func *f)
{
    uint32_t n = 0;
    for (uint32_t b = 0; b < f->blocks.len; b++) {
        const rd_inst *t = term((rd_func *)f, b);
        if (t && t->op == RAVEL_OP_BR) n += t->succs.len;
    }
    return n;
}

static bool edges_apply(rd_func *f, uint32_t lo, uint32_t hi)
{
    uint32_t item = 0;
    bool changed = false;
    for (uint32_t b = 0; b < f->blocks.len; b++) {
        rd_inst *t = term(f, b);
        if (!t || t->op != RAVEL_OP_BR) continue;
        uint32_t first = item, n = t->succs.len;
        item += n;
        for (uint32_t k = n; k-- > 0;) /* from the last edge, so indices stay put */
            if (first + k >= lo && first + k < hi && t->succs.len > 1) {
                rd_remove_edge(t, k);
                changed = true;
            }
    }
    if (changed) rd_drop_unreachable(f);
    return changed;
}

const rd_pass rd_pass_edges = {"edges", edges_count, edges_apply};

/* ---- bypass: a block that only jumps ------------------------------------------------ */

static bool bypassable(rd_func *f, uint32_t b)
{
    const rd_block *bl = &f->blocks.data[b];
    return b != 0 && bl->insts.len == 1 && bl->insts.data[0].op == RAVEL_OP_JUMP && bl->insts.data[0].succs.len == 1 &&
           bl->insts.data[0].succs.data[0].block != b;
}

static uint32_t bypass_count(const rd_func *f)
{
    uint32_t n = 0;
    for (uint32_t b = 0; b < f->blocks.len; b++) n += bypassable((rd_func *)f, b);
    return n;
}

/* Edge e (into b) now goes where b's jump goes; b's parameters in the jump's
 * arguments become e's arguments. */
static void redirect(rd_func *f, rd_succ *e, uint32_t b)
{
    const rd_block *bl = &f->blocks.data[b];
    const rd_succ *j = &bl->insts.data[0].succs.data[0];
    rd_u32s args = {0};
    for (uint32_t a = 0; a < j->args.len; a++) {
        uint32_t v = j->args.data[a];
        for (uint32_t p = 0; p < bl->params.len && p < e->args.len; p++)
            if (bl->params.data[p] == v) v = e->args.data[p];
        rv_vec_push(args, v);
    }
    rv_vec_free(e->args);
    e->args = args;
    e->block = j->block;
}

static bool bypass_apply(rd_func *f, uint32_t lo, uint32_t hi)
{
    uint32_t item = 0;
    bool changed = false;
    for (uint32_t b = 0; b < f->blocks.len; b++) {
        if (!bypassable(f, b)) continue;
        if (item >= lo && item < hi) {
            for (uint32_t p = 0; p < f->blocks.len; p++) {
                rd_inst *t = term(f, p);
                for (uint32_t k = 0; t && p != b && k < t->succs.len; k++)
                    if (t->succs.data[k].block == b) redirect(f, &t->succs.data[k], b), changed = true;
            }
        }
        item++;
    }
    if (changed) rd_drop_unreachable(f);
    return changed;
}

const rd_pass rd_pass_bypass = {"bypass", bypass_count, bypass_apply};

/* ---- merge: a block into its only predecessor ------------------------------------ */

/* The successor block b jumps to when b is its only way in, else NONE. */
static uint32_t merge_target(rd_func *f, uint32_t b)
{
    const rd_inst *t = term(f, b);
    if (!t || t->op != RAVEL_OP_JUMP || t->succs.len != 1) return RAVEL_NONE;
    uint32_t s = t->succs.data[0].block, preds = 0;
    if (s == 0 || s == b || s >= f->blocks.len) return RAVEL_NONE;
    for (uint32_t p = 0; p < f->blocks.len; p++) {
        const rd_inst *pt = term(f, p);
        for (uint32_t k = 0; pt && k < pt->succs.len; k++) preds += pt->succs.data[k].block == s;
    }
    return preds == 1 ? s : RAVEL_NONE;
}

static uint32_t merge_count(const rd_func *f)
{
    uint32_t n = 0;
    for (uint32_t b = 0; b < f->blocks.len; b++) n += merge_target((rd_func *)f, b) != RAVEL_NONE;
    return n;
}

/* Appends s to b (s's parameters replaced by b's arguments) and deletes s. */
static void merge(rd_func *f, uint32_t b, uint32_t s)
{
    rd_block *bb = &f->blocks.data[b], *sb = &f->blocks.data[s];
    rd_inst *t = &bb->insts.data[bb->insts.len - 1];
    for (uint32_t p = 0; p < sb->params.len && p < t->succs.data[0].args.len; p++)
        rd_replace_uses(f, sb->params.data[p], t->succs.data[0].args.data[p]);
    rd_inst_free(t);
    bb->insts.len--;
    for (uint32_t k = 0; k < sb->insts.len; k++) rv_vec_push(bb->insts, sb->insts.data[k]);
    rv_vec_free(sb->insts);
    rv_vec_free(sb->params);
    memmove(sb, sb + 1, sizeof *sb * (f->blocks.len - s - 1));
    f->blocks.len--;
    for (uint32_t p = 0; p < f->blocks.len; p++) {
        rd_inst *pt = term(f, p);
        for (uint32_t k = 0; pt && k < pt->succs.len; k++)
            if (pt->succs.data[k].block > s) pt->succs.data[k].block--;
    }
}

/* Merges hi - lo blocks, starting with eligible block number lo (the list is
 * recomputed after each merge, which renumbers blocks). */
static bool merge_apply(rd_func *f, uint32_t lo, uint32_t hi)
{
    bool changed = false;
    for (uint32_t done = 0; done < hi - lo; done++) {
        uint32_t item = 0, b = 0, s = RAVEL_NONE;
        for (; b < f->blocks.len; b++) {
            s = merge_target(f, b);
            if (s == RAVEL_NONE) continue;
            if (item++ == lo) break;
        }
        if (b == f->blocks.len) break;
        merge(f, b, s);
        changed = true;
    }
    return changed;
}

const rd_pass rd_pass_merge = {"merge", merge_count, merge_apply};
