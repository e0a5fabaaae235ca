/* slotalloc.c - the slot allocator (slotalloc.h), on ravel's public API.
 *
 * Requires: orig unallocated, valid SSA, finished (ravel_alloc_fn).
 * Guarantees: on RAVEL_OK, *out is a new finished function of orig's
 * machine whose original instructions are orig's, with every operand
 * placed, a reload before each register use, a spill after each register
 * def, block arguments copied into their parameters' slots and a stackmap on
 * every safepoint; ravel_check(*out, orig) accepts it (without a planted
 * bug). Slot numbers: s<id> is the home of vreg id; s<nvregs + k> are the
 * temporaries of cyclic block-argument copies. */
#include "slotalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

slotalloc_config slotalloc_config_from_env(void)
{
    slotalloc_config c = {0, 0, 0, NULL};
    const char *bug = getenv("SLOTALLOC_BUG");
    if (!bug || !*bug) return c;
    if (!strcmp(bug, "reload")) c.bug_reload = 1;
    else if (!strcmp(bug, "stackmap")) c.bug_stackmap = 1;
    else if (!strcmp(bug, "clobber")) c.bug_clobber = 1;
    else c.unknown = bug;
    return c;
}

/* A malloc'd copy of text (strdup is POSIX, not C11). */
static char *copy_text(const char *text)
{
    size_t n = strlen(text) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, text, n);
    return p;
}

/* One allocation in progress. */
typedef struct sa {
    const ravel_func *f;
    const ravel_machine *m;
    slotalloc_config cfg;
    ravel_func *out;
    uint32_t nv, nb, nregs;
    uint32_t *newv;     /* orig vreg id -> out vreg id */
    uint32_t *newb;     /* orig block -> out block id */
    uint32_t *npred;    /* incoming edges per block */
    uint32_t *pred_inst; /* the terminator of the single incoming edge (npred == 1) */
    uint32_t *pred_k;   /* and its successor index */
    uint8_t *livein;    /* nb * nv */
    uint8_t *scratch;   /* nv: a working live set */
    uint32_t *cache;    /* register -> vreg it holds for sure, RAVEL_NONE (bug modes) */
    int status;         /* RAVEL_OK, else the result */
    char *msg;          /* malloc'd */
} sa;

enum { MAX_OPS = 64 };

static int fail(sa *s, int status, const char *fmt, ...)
{
    if (s->status != RAVEL_OK) return s->status;
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    s->status = status;
    s->msg = copy_text(buf);
    return status;
}

/* A builder call's result: a failure is a bug of this allocator. */
static int built(sa *s, int rc, const char *what)
{
    if (rc < 0) {
        const char *why = ravel_func_error(s->out);
        return fail(s, RAVEL_EFAIL, "slotalloc: %s: %s", what, why ? why : "failed");
    }
    return RAVEL_OK;
}

static int reload(sa *s, ravel_loc reg, uint32_t slot)
{
    return built(s, ravel_edit(s->out, RAVEL_OP_RELOAD, reg, ravel_slot(slot)), "reload");
}

static int spill(sa *s, uint32_t slot, ravel_loc reg)
{
    return built(s, ravel_edit(s->out, RAVEL_OP_SPILL, ravel_slot(slot), reg), "spill");
}

/* ---- liveness ------------------------------------------------------------ */

/* live = (live - defs(i)) + uses(i), branch arguments included. */
static void step_back(const ravel_func *f, uint32_t i, uint8_t *live)
{
    uint32_t nd = ravel_inst_ndefs(f, i), nu = ravel_inst_nuses(f, i);
    ravel_operand op;
    for (uint32_t k = 0; k < nd; k++)
        if (ravel_inst_operand(f, i, k, &op) == RAVEL_OK) live[op.vreg] = 0;
    for (uint32_t k = 0; k < nu; k++)
        if (ravel_inst_operand(f, i, nd + k, &op) == RAVEL_OK) live[op.vreg] = 1;
    for (uint32_t k = 0; k < ravel_inst_nsuccs(f, i); k++)
        for (uint32_t j = 0; j < ravel_inst_succ_nargs(f, i, k); j++)
            live[ravel_inst_succ_arg(f, i, k, j)] = 1;
}

/* Live-out of block b into live: the successors' live-in minus their params. */
static void live_out(const sa *s, uint32_t b, uint8_t *live)
{
    memset(live, 0, s->nv);
    uint32_t t = ravel_block_first_inst(s->f, b) + ravel_block_ninsts(s->f, b) - 1;
    for (uint32_t k = 0; k < ravel_inst_nsuccs(s->f, t); k++) {
        uint32_t to = ravel_inst_succ_block(s->f, t, k);
        const uint8_t *in = s->livein + (size_t)to * s->nv;
        for (uint32_t v = 0; v < s->nv; v++) live[v] |= in[v];
        for (uint32_t p = 0; p < ravel_block_nparams(s->f, to); p++) live[ravel_block_param(s->f, to, p)] = 0;
    }
}

/* Live-in of every block, to the fixpoint (blocks backwards each round). */
static void liveness(sa *s)
{
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t b = s->nb; b-- > 0;) {
            live_out(s, b, s->scratch);
            uint32_t first = ravel_block_first_inst(s->f, b), n = ravel_block_ninsts(s->f, b);
            for (uint32_t i = first + n; i-- > first;) step_back(s->f, i, s->scratch);
            uint8_t *in = s->livein + (size_t)b * s->nv;
            if (memcmp(in, s->scratch, s->nv)) {
                memcpy(in, s->scratch, s->nv);
                changed = 1;
            }
        }
    }
}

/* The stackmap of safepoint i: the .ref vregs live after i that i does not
 * define (its defs are written after the collector ran), ascending. */
static uint32_t stackmap(sa *s, uint32_t i, uint32_t *slots)
{
    uint32_t b = ravel_inst_block(s->f, i);
    uint32_t first = ravel_block_first_inst(s->f, b), n = ravel_block_ninsts(s->f, b);
    live_out(s, b, s->scratch);
    for (uint32_t j = first + n; j-- > i + 1;) step_back(s->f, j, s->scratch);
    ravel_operand op;
    for (uint32_t k = 0; k < ravel_inst_ndefs(s->f, i); k++)
        if (ravel_inst_operand(s->f, i, k, &op) == RAVEL_OK) s->scratch[op.vreg] = 0;
    uint32_t len = 0;
    for (uint32_t v = 0; v < s->nv; v++)
        if (s->scratch[v] && ravel_vreg_is_ref(s->f, v) == 1) slots[len++] = v;
    if (s->cfg.bug_stackmap && len >= 2) len--; /* planted: the last slot is lost */
    return len;
}

/* ---- operand placement ------------------------------------------------------ */

typedef struct inst_ops {
    uint32_t n, nd;
    ravel_operand op[MAX_OPS];
    ravel_loc loc[MAX_OPS];
} inst_ops;

static int is_early_def(const ravel_operand *o) { return o->is_def && o->pos == RAVEL_POS_EARLY; }
static int is_late_use(const ravel_operand *o) { return !o->is_def && o->pos == RAVEL_POS_LATE; }

/* Takes the next register of class cls not in used; RAVEL_LOC_NONE if none. */
static ravel_loc take(sa *s, uint32_t cls, uint8_t *used)
{
    uint32_t n = ravel_machine_class_nallocatable(s->m, cls);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t r = ravel_machine_class_allocatable(s->m, cls, k);
        if (r < s->nregs && !used[r]) {
            used[r] = 1;
            return r;
        }
    }
    return RAVEL_LOC_NONE;
}

/* Places operand k of the `reg` kind (a register of its vreg's class, not in used). */
static int place_reg(sa *s, inst_ops *io, uint32_t k, uint8_t *used, uint32_t i)
{
    int cls = ravel_vreg_class(s->f, io->op[k].vreg);
    io->loc[k] = cls < 0 ? RAVEL_LOC_NONE : take(s, (uint32_t)cls, used);
    if (io->loc[k] == RAVEL_LOC_NONE)
        return fail(s, RAVEL_EDECLINED, "slotalloc: declined: instruction %u: too few registers for its operands", i);
    return RAVEL_OK;
}

/* The use operand index (in io) of reuse(K), if K names an early non-fixed
 * reg use of the def's class (rule S4), else -1. */
static int reused_use(const sa *s, const inst_ops *io, uint32_t k)
{
    uint32_t u = io->nd + io->op[k].arg;
    if (io->op[k].arg >= io->n - io->nd) return -1;
    const ravel_operand *o = &io->op[u];
    if (o->constraint != RAVEL_C_REG || o->pos != RAVEL_POS_EARLY) return -1;
    if (ravel_vreg_class(s->f, o->vreg) != ravel_vreg_class(s->f, io->op[k].vreg)) return -1;
    return (int)u;
}

/* Guarantees: every operand of i has a location meeting its constraint, and
 * together they meet the placement rules of docs/format.md section 6
 * (checked order: S2-S4 of fuzz/gen_inst.c). */
static int place(sa *s, uint32_t i, inst_ops *io)
{
    io->nd = ravel_inst_ndefs(s->f, i);
    io->n = io->nd + ravel_inst_nuses(s->f, i);
    if (io->n > MAX_OPS) return fail(s, RAVEL_EDECLINED, "slotalloc: declined: instruction %u has over %d operands", i, MAX_OPS);
    uint8_t used[512], reused[MAX_OPS] = {0};
    if (s->nregs > sizeof used) return fail(s, RAVEL_EDECLINED, "slotalloc: declined: over 512 registers");
    memset(used, 0, sizeof used);
    for (uint32_t k = 0; k < io->n; k++) ravel_inst_operand(s->f, i, k, &io->op[k]);
    for (uint32_t k = 0; k < io->n; k++) {
        io->loc[k] = RAVEL_LOC_NONE;
        if (ravel_vreg_class(s->f, io->op[k].vreg) < 0)
            return fail(s, RAVEL_EDECLINED, "slotalloc: declined: a vreg of an unknown class");
        switch (io->op[k].constraint) {
        case RAVEL_C_FIXED: io->loc[k] = io->op[k].arg; used[io->op[k].arg] = 1; break;
        case RAVEL_C_ANY: case RAVEL_C_STACK: io->loc[k] = ravel_slot(io->op[k].vreg); break;
        case RAVEL_C_REUSE: {
            int u = reused_use(s, io, k);
            if (u < 0 || reused[u]) return fail(s, RAVEL_EDECLINED, "slotalloc: declined: instruction %u: an odd reuse(%u)", i, io->op[k].arg);
            reused[u] = 1;
            break;
        }
        default: break;
        }
    }
    /* spanning operands (late uses, early defs): both points */
    for (uint32_t k = 0; k < io->n; k++)
        if (io->op[k].constraint == RAVEL_C_REG && (is_late_use(&io->op[k]) || is_early_def(&io->op[k])))
            if (place_reg(s, io, k, used, i)) return s->status;
    /* early uses, the reused ones first; late defs may take their registers
     * back except the reused ones (the reuse defs hold them) */
    uint8_t late[512];
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) memcpy(late, used, sizeof late);
        for (uint32_t k = io->nd; k < io->n; k++)
            if (io->op[k].constraint == RAVEL_C_REG && !is_late_use(&io->op[k]) && reused[k] == !pass)
                if (place_reg(s, io, k, used, i)) return s->status;
    }
    for (uint32_t k = 0; k < io->nd; k++) {
        if (io->op[k].constraint == RAVEL_C_REUSE) io->loc[k] = io->loc[reused_use(s, io, k)];
        else if (io->op[k].constraint == RAVEL_C_REG && !is_early_def(&io->op[k]))
            if (place_reg(s, io, k, late, i)) return s->status;
    }
    return RAVEL_OK;
}

/* ---- the register cache (planted bugs only) --------------------------------- */

static int cache_on(const sa *s) { return s->cfg.bug_reload || s->cfg.bug_clobber; }

static void cache_forget_vreg(sa *s, uint32_t v)
{
    for (uint32_t r = 0; r < s->nregs; r++)
        if (s->cache[r] == v) s->cache[r] = RAVEL_NONE;
}

static void cache_reset(sa *s)
{
    for (uint32_t r = 0; r < s->nregs; r++) s->cache[r] = RAVEL_NONE;
}

/* After op i: its clobbers, its safepoint (.ref copies in registers die),
 * then its defs in registers. */
static void cache_after(sa *s, uint32_t i, const inst_ops *io)
{
    if (!s->cfg.bug_clobber) /* planted (clobber): the clobbers are forgotten */
        for (uint32_t k = 0; k < ravel_inst_nclobbered(s->f, i); k++) {
            uint32_t r = ravel_inst_clobbered(s->f, i, k);
            if (r < s->nregs) s->cache[r] = RAVEL_NONE;
        }
    if (ravel_inst_is_safepoint(s->f, i) == 1)
        for (uint32_t r = 0; r < s->nregs; r++)
            if (s->cache[r] != RAVEL_NONE && ravel_vreg_is_ref(s->f, s->cache[r]) == 1) s->cache[r] = RAVEL_NONE;
    for (uint32_t k = 0; k < io->nd; k++) {
        cache_forget_vreg(s, io->op[k].vreg);
        if (ravel_loc_is_reg(io->loc[k])) s->cache[io->loc[k]] = io->op[k].vreg;
    }
}

/* ---- emitting ------------------------------------------------------------------ */

/* Reloads before op i: each register use from its slot (once per register). */
static int reload_uses(sa *s, const inst_ops *io)
{
    for (uint32_t k = io->nd; k < io->n; k++) {
        ravel_loc r = io->loc[k];
        uint32_t v = io->op[k].vreg;
        if (!ravel_loc_is_reg(r)) continue;
        int again = 0;
        for (uint32_t j = io->nd; j < k; j++) again |= io->loc[j] == r;
        if (again || (cache_on(s) && s->cache[r] == v)) continue;
        if (reload(s, r, v)) return s->status;
        s->cache[r] = v;
    }
    return RAVEL_OK;
}

static ravel_pos written_pos(const ravel_operand *o)
{
    if (o->is_def) return o->pos == RAVEL_POS_LATE ? RAVEL_POS_DEFAULT : o->pos;
    return o->pos == RAVEL_POS_EARLY ? RAVEL_POS_DEFAULT : o->pos;
}

/* The uses and immediates of i in written order. */
static int copy_uses(sa *s, uint32_t i, const inst_ops *io)
{
    uint32_t nimm = ravel_inst_nimms(s->f, i), total = io->n - io->nd + nimm, u = io->nd, m = 0;
    for (uint32_t p = 0; p < total; p++) {
        int64_t value = 0;
        uint32_t at = RAVEL_NONE;
        if (m < nimm) ravel_inst_imm_at(s->f, i, m, &value, &at);
        int rc;
        if (at == p) {
            rc = ravel_inst_imm(s->out, value);
            m++;
        } else {
            const ravel_operand *o = &io->op[u];
            rc = ravel_inst_use(s->out, s->newv[o->vreg], o->constraint, o->arg, written_pos(o), io->loc[u]);
            u++;
        }
        if (built(s, rc, "use")) return s->status;
    }
    return RAVEL_OK;
}

/* Op i itself, with its locations and attributes. */
static int copy_inst(sa *s, uint32_t i, const inst_ops *io)
{
    if (built(s, ravel_inst_begin(s->out, (ravel_opcode)ravel_inst_opcode(s->f, i), ravel_inst_name(s->f, i)), "begin"))
        return s->status;
    for (uint32_t k = 0; k < io->nd; k++) {
        const ravel_operand *o = &io->op[k];
        if (built(s, ravel_inst_def(s->out, s->newv[o->vreg], o->constraint, o->arg, written_pos(o), io->loc[k]), "def"))
            return s->status;
    }
    if (copy_uses(s, i, io)) return s->status;
    if (ravel_inst_has_clobbers(s->f, i) == 1) {
        uint32_t regs[512], n = ravel_inst_nclobbers(s->f, i);
        for (uint32_t k = 0; k < n && k < 512; k++) regs[k] = ravel_inst_clobber(s->f, i, k);
        if (built(s, ravel_inst_clobbers(s->out, regs, n < 512 ? n : 512), "clobbers")) return s->status;
    }
    if (ravel_inst_is_safepoint(s->f, i) == 1) {
        uint32_t *slots = malloc(sizeof *slots * (s->nv + 1));
        if (!slots) return fail(s, RAVEL_ENOMEM, "slotalloc: out of memory");
        uint32_t len = stackmap(s, i, slots);
        int rc = ravel_inst_safepoint(s->out);
        if (rc >= 0) rc = ravel_inst_stackmap(s->out, slots, len);
        free(slots);
        if (built(s, rc, "safepoint")) return s->status;
    }
    for (uint32_t k = 0; k < ravel_inst_nsuccs(s->f, i); k++) {
        uint32_t n = ravel_inst_succ_nargs(s->f, i, k), args[MAX_OPS];
        if (n > MAX_OPS) return fail(s, RAVEL_EDECLINED, "slotalloc: declined: over %d block arguments", MAX_OPS);
        for (uint32_t j = 0; j < n; j++) args[j] = s->newv[ravel_inst_succ_arg(s->f, i, k, j)];
        if (built(s, ravel_inst_succ(s->out, s->newb[ravel_inst_succ_block(s->f, i, k)], args, n), "succ")) return s->status;
    }
    return built(s, ravel_inst_end(s->out), "end");
}

/* The register that carries block-argument copies of vreg v: its class's
 * first allocatable register, else any register of its class (edits may
 * use reserved registers), else register 0. */
static ravel_loc scratch_reg(const sa *s, uint32_t v)
{
    int cls = ravel_vreg_class(s->f, v);
    if (ravel_machine_class_nallocatable(s->m, (uint32_t)cls) > 0) return ravel_machine_class_allocatable(s->m, (uint32_t)cls, 0);
    for (uint32_t r = 0; r < s->nregs; r++)
        if (ravel_machine_reg_class(s->m, r) == cls) return r;
    return 0;
}

/* Slot to slot through the scratch register of vreg v. */
static int slot_copy(sa *s, uint32_t v, uint32_t to, uint32_t from, uint32_t held)
{
    ravel_loc r = scratch_reg(s, v);
    if (reload(s, r, from) || spill(s, to, r)) return s->status;
    s->cache[r] = held;
    return RAVEL_OK;
}

/* Before `jump` i: parameter slots := argument slots, all at once (through
 * temporary slots s<nv + k> when an argument is itself a parameter of the
 * target, which a direct copy could overwrite first). */
static int jump_copies(sa *s, uint32_t i)
{
    uint32_t to = ravel_inst_succ_block(s->f, i, 0), n = ravel_inst_succ_nargs(s->f, i, 0);
    int cyclic = 0;
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t j = 0; j < n; j++)
            cyclic |= j != k && ravel_inst_succ_arg(s->f, i, 0, k) == ravel_block_param(s->f, to, j);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t a = ravel_inst_succ_arg(s->f, i, 0, k), p = ravel_block_param(s->f, to, k);
        if (a == p) continue;
        if (slot_copy(s, p, cyclic ? s->nv + k : p, a, a)) return s->status;
    }
    for (uint32_t k = 0; cyclic && k < n; k++) {
        uint32_t a = ravel_inst_succ_arg(s->f, i, 0, k), p = ravel_block_param(s->f, to, k);
        if (a != p && slot_copy(s, p, p, s->nv + k, a)) return s->status;
    }
    return RAVEL_OK;
}

/* At the start of block b entered by one edge of a `br`: the edge bound the
 * params where the arguments are (their slots), copy them home. */
static int entry_copies(sa *s, uint32_t b)
{
    if (s->npred[b] != 1 || ravel_inst_opcode(s->f, s->pred_inst[b]) == RAVEL_OP_JUMP) return RAVEL_OK;
    uint32_t t = s->pred_inst[b], e = s->pred_k[b];
    for (uint32_t k = 0; k < ravel_block_nparams(s->f, b); k++) {
        uint32_t a = ravel_inst_succ_arg(s->f, t, e, k), p = ravel_block_param(s->f, b, k);
        if (a != p && slot_copy(s, p, p, a, p)) return s->status;
    }
    return RAVEL_OK;
}

static int emit_inst(sa *s, uint32_t i)
{
    inst_ops io;
    if (place(s, i, &io) || reload_uses(s, &io)) return s->status;
    if (ravel_inst_opcode(s->f, i) == RAVEL_OP_JUMP && jump_copies(s, i)) return s->status;
    if (copy_inst(s, i, &io)) return s->status;
    cache_after(s, i, &io);
    for (uint32_t k = 0; k < io.nd; k++)
        if (ravel_loc_is_reg(io.loc[k]) && spill(s, io.op[k].vreg, io.loc[k])) return s->status;
    return RAVEL_OK;
}

/* ---- the function ---------------------------------------------------------------- */

/* Predecessor edges; a critical edge (a multi-successor br into a block
 * with several incoming edges) is declined. */
static int count_preds(sa *s)
{
    for (uint32_t b = 0; b < s->nb; b++) {
        uint32_t t = ravel_block_first_inst(s->f, b) + ravel_block_ninsts(s->f, b) - 1;
        for (uint32_t k = 0; k < ravel_inst_nsuccs(s->f, t); k++) {
            uint32_t to = ravel_inst_succ_block(s->f, t, k);
            s->npred[to]++;
            s->pred_inst[to] = t;
            s->pred_k[to] = k;
        }
    }
    for (uint32_t b = 0; b < s->nb; b++) {
        uint32_t t = ravel_block_first_inst(s->f, b) + ravel_block_ninsts(s->f, b) - 1;
        for (uint32_t k = 0; k < ravel_inst_nsuccs(s->f, t); k++)
            if (ravel_inst_nsuccs(s->f, t) > 1 && s->npred[ravel_inst_succ_block(s->f, t, k)] > 1)
                return fail(s, RAVEL_EDECLINED, "slotalloc: declined: a critical edge out of %s", ravel_block_name(s->f, b));
    }
    return RAVEL_OK;
}

/* The vregs and blocks of out, numbered and named as in orig. */
static int declare(sa *s)
{
    for (uint32_t v = 0; v < s->nv; v++) {
        int cls = ravel_vreg_class(s->f, v);
        if (cls < 0) return fail(s, RAVEL_EDECLINED, "slotalloc: declined: a vreg of an unknown class");
        s->newv[v] = ravel_vreg_new_num(s->out, ravel_vreg_number(s->f, v), cls, ravel_vreg_is_ref(s->f, v) == 1);
        if (s->newv[v] == RAVEL_NONE) return built(s, -1, "vreg");
    }
    for (uint32_t b = 0; b < s->nb; b++) {
        s->newb[b] = ravel_block_new(s->out, ravel_block_name(s->f, b));
        if (s->newb[b] == RAVEL_NONE) return built(s, -1, "block");
        for (uint32_t k = 0; k < ravel_block_nparams(s->f, b); k++)
            if (built(s, ravel_block_add_param(s->out, s->newb[b], s->newv[ravel_block_param(s->f, b, k)]), "param"))
                return s->status;
    }
    return RAVEL_OK;
}

static int run(sa *s)
{
    if (count_preds(s) || declare(s)) return s->status;
    liveness(s);
    cache_reset(s);
    for (uint32_t b = 0; b < s->nb; b++) {
        if (built(s, ravel_block_begin(s->out, s->newb[b]), "block")) return s->status;
        if (!s->cfg.bug_reload) cache_reset(s); /* planted (reload): kept from the layout predecessor */
        if (entry_copies(s, b)) return s->status;
        uint32_t first = ravel_block_first_inst(s->f, b), n = ravel_block_ninsts(s->f, b);
        for (uint32_t i = first; i < first + n; i++)
            if (emit_inst(s, i)) return s->status;
    }
    return built(s, ravel_func_finish(s->out), "finish");
}

int slotalloc_alloc(void *user, const ravel_func *orig, uint64_t seed, ravel_func **out, char **msg)
{
    (void)seed;
    static const slotalloc_config none = {0, 0, 0, NULL};
    sa s;
    memset(&s, 0, sizeof s);
    s.f = orig;
    s.m = ravel_func_machine(orig);
    s.cfg = user ? *(const slotalloc_config *)user : none;
    if (out) *out = NULL;
    if (msg) *msg = NULL;
    if (!orig || !s.m || !out || ravel_func_is_allocated(orig) != 0) {
        if (msg) *msg = copy_text("slotalloc: the input must be an unallocated function");
        return RAVEL_EINVAL;
    }
    s.nv = ravel_func_nvregs(orig);
    s.nb = ravel_func_nblocks(orig);
    s.nregs = ravel_machine_nregs(s.m);
    size_t nv = s.nv + 1, nb = s.nb + 1;
    s.newv = calloc(nv, sizeof *s.newv);
    s.newb = calloc(nb, sizeof *s.newb);
    s.npred = calloc(nb, sizeof *s.npred);
    s.pred_inst = calloc(nb, sizeof *s.pred_inst);
    s.pred_k = calloc(nb, sizeof *s.pred_k);
    s.livein = calloc(nb * nv, 1);
    s.scratch = calloc(nv, 1);
    s.cache = calloc(s.nregs + 1, sizeof *s.cache);
    s.out = ravel_func_new(s.m, ravel_func_name(orig));
    if (!s.newv || !s.newb || !s.npred || !s.pred_inst || !s.pred_k || !s.livein || !s.scratch || !s.cache || !s.out)
        fail(&s, RAVEL_ENOMEM, "slotalloc: out of memory");
    else
        run(&s);
    free(s.newv);
    free(s.newb);
    free(s.npred);
    free(s.pred_inst);
    free(s.pred_k);
    free(s.livein);
    free(s.scratch);
    free(s.cache);
    if (s.status != RAVEL_OK) {
        ravel_func_free(s.out);
        if (msg) *msg = s.msg;
        else free(s.msg);
        return s.status;
    }
    *out = s.out;
    return RAVEL_OK;
}
