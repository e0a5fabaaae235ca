/* alloc_util.c - small helpers shared by the allocators: error messages
 * naming an instruction, the event trace, instruction -> block maps. */
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

uint32_t *rv_inst_blocks(const ravel_func *f)
{
    uint32_t *blk = rv_xmalloc(sizeof(uint32_t) * (f->insts.len ? f->insts.len : 1));
    for (uint32_t i = 0; i < f->insts.len; i++) blk[i] = RAVEL_NONE;
    for (uint32_t b = 0; b < f->layout.len; b++) {
        const rv_block *bl = &f->blocks.data[b];
        for (uint32_t j = 0; j < bl->ninsts; j++) blk[bl->first_inst + j] = b;
    }
    return blk;
}

static uint32_t block_of(const ravel_func *f, uint32_t inst)
{
    for (uint32_t b = 0; b < f->layout.len; b++) {
        const rv_block *bl = &f->blocks.data[b];
        if (inst >= bl->first_inst && inst < bl->first_inst + bl->ninsts) return b;
    }
    return RAVEL_NONE;
}

char *rv_alloc_errorf(const ravel_func *f, uint32_t inst, const char *fmt, ...)
{
    char head[512], body[512];
    if (inst < f->insts.len) {
        const rv_inst *in = rv_inst_at(f, inst);
        uint32_t b = block_of(f, inst);
        uint32_t idx = b == RAVEL_NONE ? 0 : inst - f->blocks.data[b].first_inst;
        int n = 0;
        if (f->file && in->line) /* read from text: a compiler-style position first */
            n = snprintf(head, sizeof head, "%s:%u:%u: error: ", f->file, in->line, in->col ? in->col : 1u);
        if (n < 0 || (size_t)n >= sizeof head) n = 0;
        n += snprintf(head + n, sizeof head - (size_t)n, "func %s, block %s, instruction %u (%s", rv_func_name(f),
                         b == RAVEL_NONE ? "?" : rv_block_name(f, b), idx, rv_inst_mnemonic(f, in));
        if (in->line && n > 0 && (size_t)n < sizeof head)
            snprintf(head + n, sizeof head - (size_t)n, ", line %u)", in->line);
        else if (n > 0 && (size_t)n < sizeof head)
            snprintf(head + n, sizeof head - (size_t)n, ")");
    } else {
        snprintf(head, sizeof head, "func %s", rv_func_name(f));
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    size_t len = strlen(head) + strlen(body) + 3;
    char *msg = rv_xmalloc(len);
    snprintf(msg, len, "%s: %s", head, body);
    return msg;
}

void rv_alloc_trace(const rv_alloc_opts *o, const char *name, const char *fmt, ...)
{
    if (!o || !o->trace) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[%s] ", name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Round robin over the classes' preference lists (position 0 of every
 * class, then position 1, ...): a register is a home unless it overlaps a
 * home taken before it (rv_mach_overlaps, docs/format.md section 14.1). */
uint8_t *rv_alloc_homes(const ravel_machine *m)
{
    uint8_t *home = rv_xcalloc(m->regs.len + 1, 1);
    uint32_t most = 0;
    for (uint32_t c = 0; c < m->classes.len; c++)
        if (m->classes.data[c].alloc.len > most) most = m->classes.data[c].alloc.len;
    for (uint32_t k = 0; k < most; k++)
        for (uint32_t c = 0; c < m->classes.len; c++) {
            if (k >= m->classes.data[c].alloc.len) continue;
            uint32_t r = m->classes.data[c].alloc.data[k];
            const uint32_t *ov;
            uint32_t no = rv_mach_overlaps(m, r, &ov), j = 0;
            while (j < no && !home[ov[j]]) j++;
            home[r] = j == no;
        }
    return home;
}

/* A register of m that overlaps another one (a def or a move into it
 * destroys a value held in the other). */
bool rv_alloc_reg_overlaps(const ravel_machine *m, uint32_t r)
{
    const uint32_t *ov;
    return rv_mach_overlaps(m, r, &ov) != 0;
}
