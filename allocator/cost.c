/* cost.c - the cost model: reloads 4, spills 1, moves 0.2, each weighted by
 * 10^loop-depth of the block holding the edit (the weights LLVM's regalloc
 * scoring uses). Requires: a finished function (allocated by anyone); the
 * loop depth comes from rv_cfg_build on that function itself. */
#include "alloc.h"

#include <string.h>

void rv_cost_compute(const ravel_func *g, rv_cost *c)
{
    memset(c, 0, sizeof *c);
    rv_cfg cfg;
    rv_cfg_build(&cfg, g);
    for (uint32_t b = 0; b < cfg.nblocks; b++) {
        const rv_block *bl = &g->blocks.data[b];
        double w = 1;
        uint32_t depth = cfg.loop_depth[b] > 10 ? 10 : cfg.loop_depth[b];
        for (uint32_t d = 0; d < depth; d++) w *= 10;
        for (uint32_t j = 0; j < bl->ninsts; j++) {
            const rv_inst *in = rv_inst_at(g, bl->first_inst + j);
            if (in->op == RAVEL_OP_SPILL) {
                c->spills++;
                c->weighted += RV_COST_SPILL * w;
            } else if (in->op == RAVEL_OP_RELOAD) {
                c->reloads++;
                c->weighted += RV_COST_RELOAD * w;
            } else if (in->op == RAVEL_OP_MOVE) {
                c->moves++;
                c->weighted += RV_COST_MOVE * w;
            }
        }
    }
    rv_cfg_free(&cfg);
}
