/* gen_func.c - the generator's function builder: a structured CFG (with
 * rv_gen_opts.cfg == RV_GEN_CFG_ANY, arbitrary control flow mixed in:
 * gen_tangle.c), SSA values drawn from dominating definitions
 * (gen_value.h), and instructions with random but satisfiable constraints
 * (gen_inst.c: the rules S1-S7), written straight into the function's
 * arrays. This file: the function's setup and end, and the region (which
 * construct comes next); gen_build.h maps the other files.
 *
 * Requires: a machine from gen_machine.c (rv_gen_mach) and clamped options.
 * Guarantees (every input):
 *   - valid under ravel_validate(f, RAVEL_VALIDATE_SSA): one terminator per
 *     block, the entry has no params and no preds, every vreg is defined
 *     once and used only where its definition dominates, argument counts
 *     and classes match their parameters, and there are NO CRITICAL EDGES:
 *     a multi-successor `br` only targets fresh blocks with one predecessor
 *     (arms, loop bodies, loop exits, back-edge and exit split blocks,
 *     a tangle's edge blocks, exit split and dispatch blocks); joins, loop
 *     headers, tangle nodes and exits, and the exits of loops left by
 *     `break` are entered by single-successor `jump`s only.
 *   - shapes: straight runs, diamonds and 3-4-way `br` (with or without a
 *     condition, args to arm params), joins with params, top- and
 *     bottom-tested loops (counter or condition-less, carried params with
 *     swaps, nested), early `ret` and `break` (also out of inner loops);
 *     with cfg any also tangles: multi-entry (irreducible) cycles, split
 *     self-loops and critical edges, wide br into cycles, nested in and
 *     around all of the above (about a third of the functions at the
 *     default options are irreducible; tests/gen counts the shapes).
 *   - every block is reachable, every path ends in `ret`.
 *   - termination: loops are bounded. A counter loop's header parameter
 *     starts at 0 and is incremented by one on the only back edge, and the
 *     loop continues only while it is below a small constant K; a
 *     condition-less `br B, X` takes successor (k mod 2) on its k-th
 *     execution, so it exits at least every second time; a tangle's
 *     cycles are bounded by its fuel parameter (gen_tangle.c). The product of
 *     trip bounds of nested loops is capped so that the whole run stays
 *     well under the interpreter's default step limit.
 *   - original instructions <= max_insts, blocks <= max_blocks: mandatory
 *     instructions (terminators and loop control) are reserved when a
 *     construct opens, optional ones are emitted only while room is left.
 */
#include "fuzz/gen_value.h"

#include <stdlib.h>
#include <string.h>

/* The longest straight run to draw now: 8, or twice the instructions left
 * per block left when that is more. Loops and diamonds take blocks, runs
 * take none; with runs of at most 8 a large budget outlived its blocks and
 * the rest piled up in the last one (about 90% of a 10^5-instruction
 * function in one block). Pacing spreads the instructions over the blocks
 * instead, so large functions have loops throughout. */
static uint32_t run_max(const gen *g)
{
    uint32_t per = (uint32_t)((2ull * room(g)) / (block_room(g) + 1u));
    return per > 8 ? per : 8;
}

/* A region: items (straight runs, diamonds, loops) in the open block, which
 * is open again at the end. The top level runs until the budget is spent. */
static void gen_region(gen *g, uint32_t depth)
{
    uint32_t items = depth == 0 ? UINT32_MAX : below(g, 4);
    for (uint32_t i = 0; i < items && room(g) > 0; i++) {
        uint32_t w = below(g, 10);
        bool done = false;
        if (depth < MAX_DEPTH && w < 2) done = gen_loop(g, depth);
        else if (depth < MAX_DEPTH && w < 4) done = gen_diamond(g, depth);
        else if (w < 5 && g->o->cfg == RV_GEN_CFG_ANY) done = gen_tangle(g, depth);
        if (!done) gen_insts(g, 1 + below(g, run_max(g)));
    }
}

/* ---- the function ---- */

/* The result signature: up to 4 values, in distinct registers per class. */
static void pick_signature(gen *g)
{
    uint32_t next[RV_GEN_MAX_CLASSES] = {0};
    g->nret = below(g, MAX_RET + 1);
    for (uint32_t j = 0; j < g->nret; j++) {
        uint32_t c = pick_class(g);
        g->ret_cls[j] = c;
        g->ret_reg[j] = RAVEL_NONE;
        if (has(g, RV_GEN_FIXED) && next[c] < g->gm->nalloc[c] && chance(g, 90)) g->ret_reg[j] = g->gm->alloc[c][next[c]++];
    }
}

/* Instructions to aim for: usually between half and all of max_insts,
 * sometimes anything from 1 (small functions are good fuzz inputs too);
 * never below min_insts. Straight-line runs fill what structured code leaves,
 * so the target is reached. */
static uint32_t pick_target(gen *g)
{
    uint32_t max = g->o->max_insts, min = g->o->min_insts;
    uint32_t t = chance(g, 25) ? 1 + below(g, max) : max - below(g, max / 2 + 1);
    return t < min ? min : t;
}

/* A new vector's array, of exactly n elements: rv_vec_reserve rounds up to
 * a power of two (up to twice the bytes, which a sanitizer build pays for in
 * poisoning and page faults). Should the estimate fall short, the vector
 * grows as any other. */
#define RESERVE_EXACT(v, n) ((v).data = rv_xmalloc((size_t)(n) * sizeof *(v).data), (v).cap = (uint32_t)(n))

/* The function, its arrays sized once for the target: what ravel_func_new
 * does (ir/func.c), without reserving one element of each first (growing
 * them later would reallocate every one of them). The estimates per
 * instruction, at ~250 instructions: 2.7 operands, 0.95 vregs, 0.3
 * immediates, 1 word of f->u32 (docs/perf-log.md). */
static ravel_func *new_func(gen *g)
{
    ravel_func *f = rv_xcalloc(1, sizeof *f);
    uint32_t n = g->target, nb = (g->o->max_blocks < n ? g->o->max_blocks : n) + 1u;
    f->mach = g->gm->m;
    rv_vec_reserve(f->syms.strs, 1u + nb + NM_COUNT); /* the name, blocks, mnemonics */
    rv_vec_reserve(f->syms.lens, 1u + nb + NM_COUNT);
    f->name = rv_sym_intern(&f->syms, "f", 1);
    f->cur_block = RAVEL_NONE;
    f->cur_inst = RAVEL_NONE;
    RESERVE_EXACT(f->insts, n);
    RESERVE_EXACT(f->ops, n * 3u + GI_DEFS + GI_USES);
    RESERVE_EXACT(f->vregs, n + n / 4u + GI_DEFS);
    RESERVE_EXACT(f->u32, n + n / 2u + g->gm->m->regs.len); /* params, args, clobber lists (the room of clob_room) */
    RESERVE_EXACT(f->imms, n / 2u + GI_IMMS);
    rv_vec_reserve(f->blocks, nb);
    rv_vec_reserve(f->layout, nb);
    rv_vec_reserve(f->succs, 2u * nb);
    return f;
}

ravel_func *rv_gen_func(rv_gen_src *s, const rv_gen_opts *o, const rv_gen_mach *gm)
{
    return rv_gen_func_slab(s, o, gm, true);
}

ravel_func *rv_gen_func_slab(rv_gen_src *s, const rv_gen_opts *o, const rv_gen_mach *gm, bool stack_vals)
{
    gen g;
    memset(&g, 0, sizeof g);
    g.s = s;
    g.o = o;
    g.gm = gm;
    g.feat = o->features;
    g.region = gen_region;
    gen_inst_init(&g);
    g.far256 = o->pressure * 256u / 100u;
    g.window = o->window ? o->window : UINT32_MAX;
    g.target = pick_target(&g);
    g.f = new_func(&g);
    uint32_t vals_buf[GEN_VALS_STACK]; /* the value lists of a small function: no allocation */
    gen_avail_init(&g, stack_vals ? vals_buf : NULL, g.target / 2u + 1u);
    g.weight = 1;
    g.max_weight = 200000u / g.target;
    if (g.max_weight > 64) g.max_weight = 64;
    if (g.max_weight < 1) g.max_weight = 1;
    g.exit_pct = 400u / o->max_blocks;
    if (g.exit_pct > 20) g.exit_pct = 20;
    if (g.exit_pct < 1) g.exit_pct = 1;
    pick_signature(&g);
    bool keep = g.target >= 3 && chance(&g, 80);
    g.reserved = keep ? 2 : 1; /* [the keep-alive out] and the final ret */
    ravel_block_begin(g.f, gen_new_block(&g));
    if (room(&g) > 0 && chance(&g, 85)) gen_args(&g);
    gen_region(&g, 0);
    if (keep) {
        g.reserved--;
        gen_keepalive(&g);
    }
    g.reserved--;
    gen_emit_ret(&g);
    ravel_func_finish(g.f);
    gen_avail_free(&g);
    return g.f;
}
