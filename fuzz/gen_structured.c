/* gen_structured.c - structured control flow of the function builder
 * (gen_build.h): diamonds and multi-way branches, top- and bottom-tested
 * loops (counter or condition-less, carried params, nested), `break` out
 * of loops and early `ret`.
 *
 * Requires: an open block, at the current nesting depth < MAX_DEPTH.
 * Guarantees: what gen_func.c promises for these shapes: no critical edge
 * (a multi-successor `br` targets fresh blocks with one predecessor: arms,
 * loop bodies, loop exits, back-edge and exit split blocks; joins, loop
 * headers and the exits of loops left by `break` are entered by `jump`s),
 * loops bounded (a counter loop runs at most its trip bound K; a
 * condition-less one exits at least every second time) with the product of
 * the trip bounds of nested loops capped (g->weight <= g->max_weight), and
 * the blocks and mandatory instructions of a construct reserved when it
 * opens. Nested regions are filled by g->region. */
#include "fuzz/gen_value.h"

#include <string.h>

/* `break`: jump to the exit of the innermost breakable loop, or sometimes
 * of an outer one, with arguments from the current scope. */
static void emit_break(gen *g)
{
    loopctx *l = g->loop;
    while (l->outer && chance(g, 30)) l = l->outer;
    gen_emit_jump(g, l->exitb, l->params, l->n, false);
}

/* Sets up a breakable loop's exit params from the current scope. */
static void loop_breakable(gen *g, loopctx *l, uint32_t exitb)
{
    l->exitb = exitb;
    l->n = has(g, RV_GEN_PARAMS) ? gen_make_params(g, exitb, below(g, 3), l->params) : 0;
    l->outer = g->loop;
    g->loop = l;
}


/* Diamond / multi-way: the open block ends in `br` (condition, or none)
 * to k fresh arm blocks (one predecessor each, sometimes with params fed
 * by the br); each arm is a region ending in `jump J(args)` or, for all
 * but one, sometimes an early `ret`. J continues the open region. */
bool gen_diamond(gen *g, uint32_t depth)
{
    uint32_t k = has(g, RV_GEN_MULTIWAY) && chance(g, 30) ? 3 + below(g, 2) : 2;
    while (k > 2 && (block_room(g) < k + 1 || room(g) < k + 1)) k--;
    if (block_room(g) < k + 1 || room(g) < k + 1) return false;
    uint32_t cond = RAVEL_NONE;
    if (!has(g, RV_GEN_MULTIWAY) || !chance(g, 20)) {
        cond = pick_val(g, -1, -1);
        if (cond == RAVEL_NONE && !has(g, RV_GEN_MULTIWAY)) return false;
    }
    uint32_t arms[4], aparams[4][2], nap[4] = {0}, aargs[4][2];
    for (uint32_t i = 0; i < k; i++) {
        arms[i] = gen_new_block(g);
        if (has(g, RV_GEN_PARAMS) && chance(g, 20)) {
            nap[i] = gen_make_params(g, arms[i], 1 + below(g, 2), aparams[i]);
            gen_pick_args(g, aparams[i], nap[i], aargs[i], false);
        }
    }
    uint32_t join = gen_new_block(g), jparams[MAX_PARAMS], njp = 0;
    if (has(g, RV_GEN_PARAMS)) njp = gen_make_params(g, join, below(g, 2 + g->o->pressure / 25), jparams);
    ginst I;
    gi_init(g, &I, RAVEL_OP_BR, NM_NONE);
    if (cond != RAVEL_NONE) gen_use(g, &I, cond);
    gen_emit_begin(g, &I);
    for (uint32_t i = 0; i < k; i++) gen_add_succ(g->f, arms[i], aargs[i], nap[i]);
    end_inst(g->f);
    g->reserved += k;
    uint32_t must = below(g, k);
    scope sc;
    gen_scope_save(g, &sc);
    for (uint32_t i = 0; i < k; i++) {
        gen_begin_block(g, arms[i], aparams[i], nap[i]);
        g->region(g, depth + 1);
        g->reserved--;
        if (i != must && chance(g, g->exit_pct)) {
            if (g->loop && chance(g, 60)) emit_break(g);
            else gen_emit_ret(g);
        } else {
            gen_emit_jump(g, join, jparams, njp, false);
        }
        gen_scope_restore(g, &sc);
    }
    gen_begin_block(g, join, jparams, njp);
    return true;
}

/* The trip bound of a new loop: 1..4, capped by the nesting budget. */
static uint32_t pick_trip(gen *g)
{
    uint32_t k = 1 + below(g, 4);
    while (k > 1 && (uint64_t)g->weight * k > g->max_weight) k--;
    return k;
}

/* Loop header params: [counter] + carried values; the preheader (the open
 * block) passes their initial values. Returns the count. */
static uint32_t loop_enter(gen *g, uint32_t head, bool counter, uint32_t *params)
{
    uint32_t n = 0, init[MAX_PARAMS + 1];
    if (counter) {
        init[0] = gen_emit_const(g, 0);
        params[0] = gen_new_vreg(g, 0);
        ravel_block_add_param(g->f, head, params[0]);
        n = 1;
    }
    if (has(g, RV_GEN_PARAMS)) n += gen_make_params(g, head, below(g, 2 + g->o->pressure / 25), params + n);
    gen_pick_args(g, params + counter, n - counter, init + counter, false);
    gen_emit_jump_args(g, head, init, n);
    return n;
}

/* Back edge from the open latch: counter + 1 (already computed in next)
 * and carried values (swapped sometimes). */
static void loop_back(gen *g, uint32_t head, const uint32_t *params, uint32_t n, uint32_t next)
{
    uint32_t args[MAX_PARAMS + 1];
    uint32_t c = next != RAVEL_NONE ? 1 : 0;
    if (c) args[0] = next;
    gen_pick_args(g, params + c, n - c, args + c, true);
    gen_emit_jump_args(g, head, args, n);
}

/* Ends the open block with the loop's exit test: `c = lt cnt, K; br c, stay,
 * leave` (or `eq` with the successors swapped), or condition-less
 * `br stay, leave` when there is no counter. */
static void loop_test(gen *g, uint32_t cnt, uint32_t trip, uint32_t stay, uint32_t leave)
{
    bool swap = false;
    uint32_t c = RAVEL_NONE;
    if (cnt != RAVEL_NONE) {
        swap = chance(g, 50);
        c = gen_emit_binop_imm(g, swap ? RAVEL_OP_EQ : RAVEL_OP_LT, cnt, trip);
    }
    ginst I; /* after the compare: one instruction is built at a time */
    gi_init(g, &I, RAVEL_OP_BR, NM_NONE);
    if (c != RAVEL_NONE) gen_use(g, &I, c);
    gen_emit_begin(g, &I);
    gen_add_succ(g->f, swap ? leave : stay, NULL, 0);
    gen_add_succ(g->f, swap ? stay : leave, NULL, 0);
    end_inst(g->f);
}

/* Top-tested loop: pre -> H(params); H: insts; test; br B, X; B..latch:
 * region; [cnt' = add cnt, 1]; jump H(...). X sees what H defined.
 * Breakable: the test goes to a split block XS -> X(params). */
static void gen_loop_top(gen *g, uint32_t depth, bool counter, bool breakable)
{
    uint32_t trip = counter ? pick_trip(g) : 1;
    uint32_t head = gen_new_block(g), body = gen_new_block(g), exitb = gen_new_block(g);
    uint32_t split = breakable ? gen_new_block(g) : RAVEL_NONE;
    uint32_t params[MAX_PARAMS + 1];
    g->reserved += (counter ? 4 : 2) + (breakable ? 1 : 0); /* [lt] br, [add] jump, [XS jump] */
    uint32_t n = loop_enter(g, head, counter, params);
    gen_begin_block(g, head, params, n);
    gen_insts(g, below(g, 4));
    g->reserved -= counter ? 2 : 1;
    loop_test(g, counter ? params[0] : RAVEL_NONE, trip, body, breakable ? split : exitb);
    scope sc;
    gen_scope_save(g, &sc);
    loopctx lc;
    if (breakable) loop_breakable(g, &lc, exitb);
    gen_begin_block(g, body, NULL, 0);
    g->weight *= trip;
    g->region(g, depth + 1);
    g->reserved -= counter ? 2 : 1;
    uint32_t next = counter ? gen_emit_binop_imm(g, RAVEL_OP_ADD, params[0], 1) : RAVEL_NONE;
    loop_back(g, head, params, n, next);
    g->weight /= trip;
    gen_scope_restore(g, &sc);
    if (breakable) {
        g->loop = lc.outer;
        gen_begin_block(g, split, NULL, 0);
        g->reserved--;
        gen_emit_jump(g, exitb, lc.params, lc.n, false);
        gen_begin_block(g, exitb, lc.params, lc.n);
    } else {
        gen_begin_block(g, exitb, NULL, 0);
    }
}

/* Bottom-tested loop: pre -> H(params); H..latch: region; [cnt' = add cnt,
 * 1; c = lt cnt', K]; br BK, X; BK: jump H(...) (the split block that keeps
 * the back edge from being critical). X sees what the latch sees; if
 * breakable, the test goes to XS -> X(params) and X sees what H saw. */
static void gen_loop_bottom(gen *g, uint32_t depth, bool counter, bool breakable)
{
    uint32_t trip = counter ? pick_trip(g) : 2;
    uint32_t head = gen_new_block(g), back = gen_new_block(g), exitb = gen_new_block(g);
    uint32_t split = breakable ? gen_new_block(g) : RAVEL_NONE;
    uint32_t params[MAX_PARAMS + 1];
    g->reserved += (counter ? 4 : 2) + (breakable ? 1 : 0); /* [add lt] br, jump, [XS jump] */
    uint32_t n = loop_enter(g, head, counter, params);
    gen_begin_block(g, head, params, n);
    scope sc;
    gen_scope_save(g, &sc);
    loopctx lc;
    if (breakable) loop_breakable(g, &lc, exitb);
    g->weight *= trip;
    if (g->o->cfg == RV_GEN_CFG_ANY && chance(g, 25)) gen_tangle(g, depth + 1); /* its E: this loop's header */
    g->region(g, depth + 1);
    g->reserved -= counter ? 3 : 1;
    uint32_t next = counter ? gen_emit_binop_imm(g, RAVEL_OP_ADD, params[0], 1) : RAVEL_NONE;
    loop_test(g, next, trip, back, breakable ? split : exitb);
    gen_begin_block(g, back, NULL, 0);
    g->reserved -= 1;
    loop_back(g, head, params, n, next);
    g->weight /= trip;
    if (breakable) {
        g->loop = lc.outer;
        gen_begin_block(g, split, NULL, 0);
        g->reserved--;
        gen_emit_jump(g, exitb, lc.params, lc.n, false);
        gen_scope_restore(g, &sc);
        gen_begin_block(g, exitb, lc.params, lc.n);
    } else {
        gen_begin_block(g, exitb, NULL, 0);
    }
}

/* A loop if the budgets allow: counter loops need params, condition-less
 * ones need multiway. */
bool gen_loop(gen *g, uint32_t depth)
{
    bool can_counter = has(g, RV_GEN_PARAMS), can_free = has(g, RV_GEN_MULTIWAY);
    if (!has(g, RV_GEN_LOOPS) || (!can_counter && !can_free) || block_room(g) < 3) return false;
    bool counter = can_counter && (!can_free || chance(g, 75));
    bool breakable = block_room(g) >= 4 && chance(g, 40);
    if (room(g) < (counter ? 6u : 3u) + (breakable ? 1u : 0u)) return false;
    bool top = chance(g, 50);
    if (!counter && !top && g->weight * 2 > g->max_weight) return false;
    if (top) gen_loop_top(g, depth, counter, breakable);
    else gen_loop_bottom(g, depth, counter, breakable);
    return true;
}
