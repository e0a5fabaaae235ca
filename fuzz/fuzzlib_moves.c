/* fuzzlib_moves.c - the parallel-move resolver's oracle (fuzz_moves): a
 * machine and a move set from the bytes, the resolver's edits executed on
 * tokens.
 *
 * Requires: nothing of the bytes.
 * Guarantees: RV_FUZZ_BUG when a destination misses its source, a location
 * outside the destinations and the scratch changes, new_slot is called
 * more than twice, or a duplicate destination is not refused.
 */
#define _GNU_SOURCE /* open_memstream */
#include "fuzz/fuzzlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- the parallel-move resolver ------------------------------------------------------------ */

/* Input bytes, read one at a time; 0 when exhausted. */
typedef struct bytes { const uint8_t *p; size_t n; } bytes;
static uint8_t take(bytes *b) { return b->n ? (b->n--, *b->p++) : 0; }

enum { MV_SLOTS = 8, MV_NEW_SLOT = 100, MV_MAX = 24 };

typedef struct mv_case {
    ravel_machine *m;
    rv_move moves[MV_MAX];
    uint32_t n;
    uint64_t scratch[1]; /* bitset over <= 64 registers */
    uint32_t new_slots;  /* calls of new_slot */
    bool dup;            /* a dst appears twice: the resolver must refuse */
} mv_case;

static uint32_t mv_new_slot(void *ctx)
{
    mv_case *c = ctx;
    return MV_NEW_SLOT + c->new_slots++;
}

/* A register of class cls, the k-th (mod count). */
static ravel_loc mv_reg(const ravel_machine *m, uint32_t cls, uint8_t k)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->regs.len; i++) n += m->regs.data[i].cls == cls;
    k = (uint8_t)(k % n);
    for (uint32_t i = 0; i < m->regs.len; i++)
        if (m->regs.data[i].cls == cls && k-- == 0) return i;
    return 0;
}

static ravel_loc mv_loc(bytes *b, const ravel_machine *m, uint32_t cls)
{
    uint8_t x = take(b);
    return (x & 3) == 0 ? ravel_slot((x >> 2) % MV_SLOTS) : mv_reg(m, cls, (uint8_t)(x >> 2));
}

/* Builds a machine (1-3 classes of 1-6 registers, some reserved) and a move
 * set from the bytes. */
static void mv_build(mv_case *c, bytes *b)
{
    memset(c, 0, sizeof *c);
    c->m = ravel_machine_new();
    uint32_t ncls = 1 + take(b) % 3;
    for (uint32_t k = 0; k < ncls; k++) {
        char name[32];
        snprintf(name, sizeof name, "c%u", k);
        int cls = ravel_machine_add_class(c->m, name);
        uint32_t nregs = 1 + take(b) % 6;
        uint8_t reserved = take(b);
        for (uint32_t r = 0; r < nregs; r++) {
            snprintf(name, sizeof name, "c%ur%u", k, r);
            ravel_machine_add_reg(c->m, name, cls, r > 0 && ((reserved >> r) & 1));
        }
    }
    uint32_t want = take(b) % (MV_MAX + 1);
    bool allow_dup = take(b) % 16 == 0;
    for (uint32_t k = 0; k < want && b->n; k++) {
        rv_move mv = {.cls = take(b) % ncls};
        mv.dst = mv_loc(b, c->m, mv.cls);
        mv.src = mv_loc(b, c->m, mv.cls);
        /* a repeated dst is a duplicate the resolver must refuse when both
         * moves copy something (identity moves are dropped first) */
        bool seen = false, identity = mv.dst == mv.src;
        for (uint32_t j = 0; j < c->n; j++)
            if (c->moves[j].dst == mv.dst) seen = true, identity |= c->moves[j].src == mv.dst;
        if (seen && (!allow_dup || identity)) continue;
        c->dup |= seen;
        c->moves[c->n++] = mv;
    }
    /* scratch: registers named by no move, each kept with probability 1/2 */
    uint64_t used = 0, bits = (uint64_t)take(b) << 8; /* two takes: in this order whatever the compiler */
    bits |= take(b);
    for (uint32_t k = 0; k < c->n; k++) {
        if (ravel_loc_is_reg(c->moves[k].dst)) used |= 1ull << c->moves[k].dst;
        if (ravel_loc_is_reg(c->moves[k].src)) used |= 1ull << c->moves[k].src;
    }
    for (uint32_t r = 0; r < c->m->regs.len; r++)
        if (!((used >> r) & 1) && ((bits >> (r % 16)) & 1)) rv_bs_set(c->scratch, r);
}

/* Location -> index into the simulated state: registers, then slots 0..7,
 * then slots from new_slot. */
static uint32_t mv_index(const mv_case *c, ravel_loc l)
{
    uint32_t nr = c->m->regs.len;
    if (ravel_loc_is_reg(l)) return l < nr ? l : RAVEL_NONE;
    uint32_t s = ravel_loc_slot(l);
    if (s < MV_SLOTS) return nr + s;
    if (s >= MV_NEW_SLOT && s < MV_NEW_SLOT + c->new_slots) return nr + MV_SLOTS + (s - MV_NEW_SLOT);
    return RAVEL_NONE;
}

static void mv_describe(FILE *fp, const mv_case *c, const rv_pmove *pm)
{
    char a[32], b[32];
    fprintf(fp, "#\n# machine:\n");
    for (uint32_t r = 0; r < c->m->regs.len; r++)
        fprintf(fp, "#   %s class %u%s%s\n", c->m->regs.data[r].name, c->m->regs.data[r].cls,
                c->m->regs.data[r].reserved ? " reserved" : "", rv_bs_test(c->scratch, r) ? " scratch" : "");
    fprintf(fp, "# parallel moves:\n");
    for (uint32_t k = 0; k < c->n; k++)
        fprintf(fp, "#   %s := %s (class %u)\n", rv_loc_str(c->m, c->moves[k].dst, a), rv_loc_str(c->m, c->moves[k].src, b),
                c->moves[k].cls);
    fprintf(fp, "# emitted (%u slot%s from new_slot):\n", c->new_slots, c->new_slots == 1 ? "" : "s");
    for (uint32_t k = 0; k < pm->out.len; k++)
        fprintf(fp, "#   %s = %s %s\n", rv_loc_str(c->m, pm->out.data[k].dst, a), rv_opcode_name(pm->out.data[k].kind) ? rv_opcode_name(pm->out.data[k].kind) : "?",
                rv_loc_str(c->m, pm->out.data[k].src, b));
}

/* Executes the emitted edits on a state where every location holds its own
 * token; returns NULL if all is right, else what is wrong. */
static const char *mv_simulate(const mv_case *c, const rv_pmove *pm)
{
    uint32_t nloc = c->m->regs.len + MV_SLOTS + c->new_slots;
    uint32_t *val = rv_xmalloc(sizeof *val * nloc);
    for (uint32_t i = 0; i < nloc; i++) val[i] = i;
    const char *why = NULL;
    for (uint32_t k = 0; !why && k < pm->out.len; k++) {
        const rv_edit *e = &pm->out.data[k];
        uint32_t d = mv_index(c, e->dst), s = mv_index(c, e->src);
        if (d == RAVEL_NONE || s == RAVEL_NONE) why = "an edit names a location that is not a register, a move slot or a new_slot slot";
        else if (e->kind != rv_edit_kind(e->dst, e->src) || e->kind == RAVEL_OP_OTHER) why = "an edit's kind does not match its locations (or copies slot to slot)";
        else val[d] = val[s];
    }
    for (uint32_t k = 0; !why && k < c->n; k++)
        if (val[mv_index(c, c->moves[k].dst)] != mv_index(c, c->moves[k].src)) why = "a destination does not hold its source's value";
    for (uint32_t i = 0; !why && i < c->m->regs.len + MV_SLOTS; i++) {
        bool dst = false;
        for (uint32_t k = 0; k < c->n; k++) dst |= mv_index(c, c->moves[k].dst) == i;
        bool scratch = i < c->m->regs.len && rv_bs_test(c->scratch, i);
        if (!dst && !scratch && val[i] != i) why = "a location that is neither a destination nor scratch was modified";
    }
    if (!why && c->new_slots > 2) why = "new_slot was called more than twice";
    rv_free(val);
    return why;
}

/* Random move sets: the resolver's output, executed, must put every source
 * in its destinations and leave every other location (outside the scratch
 * registers and new_slot slots) as it was; duplicate destinations must be
 * refused. */
int rv_fuzz_moves(rv_fuzz *z, const uint8_t *data, size_t size)
{
    bytes b = {data, size};
    mv_case c;
    mv_build(&c, &b);
    rv_pmove pm;
    rv_pmove_init(&pm);
    int rc = rv_pmove_resolve(&pm, c.m, c.moves, c.n, c.scratch, mv_new_slot, &c);
    const char *why = NULL;
    if (c.dup) why = rc == RAVEL_EINVAL && pm.out.len == 0 ? NULL : "a duplicate destination was not refused";
    else if (rc != RAVEL_OK) why = "the resolver refused a valid move set";
    else why = mv_simulate(&c, &pm);
    if (why) {
        FILE *fp = fz_repro_begin(z, RV_FT_MOVES, NULL, rv_hash_bytes(data, size));
        fprintf(fp, "# verdict: %s\n", why);
        mv_describe(fp, &c, &pm);
        fz_repro_end(fp);
    }
    rv_pmove_free(&pm);
    ravel_machine_free(c.m);
    return why ? RV_FUZZ_BUG : RV_FUZZ_PASS;
}

