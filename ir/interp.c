/* interp.c - the concrete interpreter (docs/format.md section 9; the mnemonics of
 * section 5.4).
 *
 * Requires: a finished function. A valid one (ravel_validate) runs as the
 * format says; on anything else the interpreter stops with RV_RUN_ERROR
 * instead of crashing (missing terminator, undefined successor, bad location).
 * Guarantees: deterministic; the same original instructions execute in the
 * same order in both forms, so the step limit (original instructions, edits
 * not counted), the condition-less `br` counters and the safepoint counter
 * agree between an unallocated function and any allocation of it.
 *
 * Two environments:
 *   unallocated: one value per vreg (+ written flag); block parameters are
 *     bound simultaneously on each edge; edits are skipped;
 *   allocated: one value per register and per slot (+ written flag); jump
 *     arguments and parameters are ignored; edits copy value and flag;
 *     reading a location that holds nothing through an operand is an error.
 * An op executes in the checker's order (docs/format.md section 6):
 *   1. (allocated) early defs make their locations unwritten;
 *   2. every use is read (late uses too: their value must exist already);
 *   3. (allocated) clobbered registers not defined by the op become
 *      unwritten; at a safepoint with opts->moving_gc, .ref values relocate
 *      (unallocated: every written .ref vreg; allocated: every stackmap slot);
 *   4. the defs are computed from the inputs and written;
 *   5. late uses are read again; if one now holds nothing the run fails, if
 *      one changed the defs are recomputed from the new values and written
 *      again (so an allocation that overwrites a late use is observable);
 *   6. `out` appends its final inputs.
 * Section 14 (docs/format.md): a write to a register (def, edit, remat)
 * leaves the registers overlapping it without a value (an in-place copy
 * writes its def register alone); a clobber also clobbers the registers
 * overlapping the clobbered one, sparing the op's def registers. Both forms
 * track which vregs are undefined on this run (an `undef` def, a copy or
 * a branch argument of an undefined vreg); a use of one reads the next
 * draw of the run's undefined stream (rv_run_opts.undef_seed) and not its
 * location, so the two forms draw alike: the same original instructions
 * read the same uses in the same order. */
#include "ir/analysis.h"

#include <stdlib.h>
#include <string.h>

/* ---- the mix function (docs/format.md section 9.1; do not change) ---- */

/* splitmix64's finalizer and increment (ir/rng.h) */
static inline uint64_t mix(uint64_t h, uint64_t x) { return rv_mix64(h ^ rv_mix64(x + RV_RNG_GAMMA)); }
uint64_t rv_mix(uint64_t h, uint64_t x) { return mix(h, x); }

uint64_t rv_mix_str(uint64_t h, const char *s)
{
    uint64_t x = 0xcbf29ce484222325ULL; /* FNV-1a 64 */
    for (; *s; s++) x = (x ^ (unsigned char)*s) * 0x100000001b3ULL;
    return mix(h, x);
}

/* ---- context ---- */

typedef struct ictx {
    const ravel_func *f;
    const rv_run_opts *o;
    rv_run_result *r;
    bool alloc;
    uint32_t nregs, nslots, nvals;
    uint64_t *val;       /* unallocated: per vreg; allocated: registers then slots */
    uint8_t *written;
    uint64_t *uvals;     /* values of the current op's vreg uses */
    uint8_t *uundef;     /* per use of the current op: its vreg was undefined when read */
    uint64_t raw_val;    /* allocated: what the location of an undefined copy source held */
    uint8_t raw_written;
    uint8_t *vundef;     /* per vreg: undefined on this run (both forms) */
    uint8_t *copy_in_u;  /* per instruction: a copy whose use is in U (undefined on
                            every path, rv_undef_build), or NULL: none */
    uint64_t undef_base; /* 0: undefined values read as 0; else the stream's seed */
    uint64_t ndraws;     /* undefined values drawn so far */
    uint64_t *in;        /* inputs: uses with immediates at their positions */
    uint64_t *defs;      /* computed def values */
    uint64_t *brcount;   /* per block: executions of its condition-less br */
    uint64_t *seed;      /* per instruction: op_seed once computed (0: not yet) */
    uint64_t reloc;      /* rv_mix_str(0, "reloc") */
    uint32_t *refs;      /* unallocated: ids of .ref vregs */
    uint32_t nrefs;
    uint64_t nsafepoints;
    uint64_t limit;
    uint64_t out_limit;
    /* slots, densely: the slot numbers used, sorted (NULL: slot n is at
     * nregs + n, when the numbers are dense enough); cost follows the
     * slots used, not their numbers */
    uint32_t *slotnum;
    uint32_t nslotnum;
} ictx;

void rv_interp_where(const ravel_func *f, uint32_t inst, char *buf, size_t n)
{
    if (!n) return;
    if (inst >= f->insts.len) {
        snprintf(buf, n, "?");
        return;
    }
    for (uint32_t b = 0; b < f->layout.len; b++) {
        const rv_block *bl = &f->blocks.data[b];
        if (inst < bl->first_inst || inst >= bl->first_inst + bl->ninsts) continue;
        const rv_inst *in = rv_inst_at(f, inst);
        if (in->line)
            snprintf(buf, n, "block %s, inst %u (%s), line %u", rv_block_name(f, b), inst - bl->first_inst,
                     rv_inst_mnemonic(f, in), in->line);
        else
            snprintf(buf, n, "block %s, inst %u (%s)", rv_block_name(f, b), inst - bl->first_inst,
                     rv_inst_mnemonic(f, in));
        return;
    }
    snprintf(buf, n, "inst %u", inst);
}

__attribute__((format(printf, 3, 4)))
static bool fail(ictx *c, uint32_t inst, const char *fmt, ...)
{
    char what[128], where[120]; /* both fit in r->msg */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    rv_interp_where(c->f, inst, where, sizeof where);
    c->r->status = RV_RUN_ERROR;
    c->r->err_inst = inst;
    snprintf(c->r->msg, sizeof c->r->msg, "%s: %s", where, what);
    return false;
}

/* Index of location l in val[], or RAVEL_NONE. */
static uint32_t loc_index(const ictx *c, ravel_loc l)
{
    if (!c->slotnum || !ravel_loc_is_slot(l)) return rv_loc_index(c->nregs, c->nslots, l);
    uint32_t n = ravel_loc_slot(l); /* sparse slot numbers: */
    uint32_t lo = 0, hi = c->nslotnum; /* binary search */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->slotnum[mid] < n) lo = mid + 1;
        else hi = mid;
    }
    return lo < c->nslotnum && c->slotnum[lo] == n ? c->nregs + lo : RAVEL_NONE;
}

static const char *vn(const ictx *c, uint32_t v, char *buf)
{
    snprintf(buf, 32, "v%u", v < c->f->vregs.len ? c->f->vregs.data[v].num : 0);
    return buf;
}

static __attribute__((noinline, cold)) bool op_index_fail(ictx *c, uint32_t inst, const rv_operand *o)
{
    char b[32], lb[32];
    if (!c->alloc) return fail(c, inst, "bad vreg id %u", o->vreg);
    return fail(c, inst, "%s has no usable location (%s)", vn(c, o->vreg, b), rv_loc_str(c->f->mach, o->loc, lb));
}

/* Where operand o lives in val[]: its vreg or its location. */
static inline bool op_index(ictx *c, uint32_t inst, const rv_operand *o, uint32_t *idx)
{
    *idx = !c->alloc ? (o->vreg < c->f->vregs.len ? o->vreg : RAVEL_NONE) : loc_index(c, o->loc);
    return *idx != RAVEL_NONE || op_index_fail(c, inst, o);
}

static __attribute__((noinline, cold)) bool read_fail(ictx *c, uint32_t inst, const rv_operand *o)
{
    char b[32], lb[32];
    if (c->alloc)
        return fail(c, inst, "%s read from %s, which holds no value (never written, or clobbered)", vn(c, o->vreg, b),
                    rv_loc_str(c->f->mach, o->loc, lb));
    return fail(c, inst, "%s read before it was written", vn(c, o->vreg, b));
}

static bool read_op(ictx *c, uint32_t inst, const rv_operand *o, uint64_t *v)
{
    uint32_t idx;
    if (!op_index(c, inst, o, &idx)) return false;
    if (!c->written[idx]) return read_fail(c, inst, o);
    *v = c->val[idx];
    return true;
}

/* (allocated) The registers overlapping cell idx lose their values
 * (docs/format.md section 14.1; nothing for a slot or without alias). */
static void kill_overlaps(ictx *c, uint32_t idx)
{
    const uint32_t *ov;
    uint32_t n = idx < c->nregs ? rv_mach_overlaps(c->f->mach, idx, &ov) : 0;
    for (uint32_t j = 0; j < n; j++) c->written[ov[j]] = 0;
}

/* Writes v into o's vreg or location (and, allocated, empties the
 * registers overlapping it unless keep_overlaps: an in-place copy). */
static bool write_op(ictx *c, uint32_t inst, const rv_operand *o, uint64_t v, uint8_t written, bool keep_overlaps)
{
    uint32_t idx;
    if (!op_index(c, inst, o, &idx)) return false;
    c->val[idx] = v;
    c->written[idx] = written;
    if (c->alloc && !keep_overlaps) kill_overlaps(c, idx);
    return true;
}

/* The next value of the run's undefined stream: 0 without a seed, else
 * mix(mix(mix_str(0, "undef"), seed), n) for the n-th draw (from 0). */
static uint64_t draw_undef(ictx *c)
{
    uint64_t n = c->ndraws++;
    return c->undef_base ? mix(c->undef_base, n) : 0;
}

static bool is_undef(const ictx *c, uint32_t v) { return v < c->f->vregs.len && c->vundef[v]; }

/* Reads use k of the current op: an undefined vreg draws a value and reads
 * no location (allocated: what its location holds is kept in raw_*, for a
 * copy to move). */
static bool read_use(ictx *c, uint32_t inst, const rv_operand *o, uint32_t k)
{
    c->uundef[k] = is_undef(c, o->vreg);
    if (!c->uundef[k]) return read_op(c, inst, o, &c->uvals[k]);
    c->uvals[k] = draw_undef(c);
    uint32_t idx = c->alloc ? loc_index(c, o->loc) : RAVEL_NONE;
    c->raw_val = idx != RAVEL_NONE ? c->val[idx] : 0;
    c->raw_written = idx != RAVEL_NONE ? c->written[idx] : 0;
    return true;
}

/* Inputs of an op: its vreg uses (values in uvals) with the immediates at
 * their positions. Returns the count. */
static uint32_t gather_inputs(const ictx *c, const rv_inst *in)
{
    const rv_imm *im = in->nimms ? &c->f->imms.data[in->first_imm] : NULL;
    uint32_t n = (uint32_t)in->nuses + in->nimms, j = 0, k = 0;
    for (uint32_t p = 0; p < n; p++) {
        if (j < in->nimms && (im[j].pos == p || k >= in->nuses))
            c->in[p] = (uint64_t)im[j++].value;
        else
            c->in[p] = c->uvals[k++];
    }
    return n;
}

/* ---- op semantics ---- */

static uint64_t arith(ravel_opcode op, uint64_t a, uint64_t b)
{
    switch (op) {
    case RAVEL_OP_ADD: return a + b;
    case RAVEL_OP_SUB: return a - b;
    case RAVEL_OP_MUL: return a * b;
    case RAVEL_OP_AND: return a & b;
    case RAVEL_OP_OR: return a | b;
    case RAVEL_OP_XOR: return a ^ b;
    case RAVEL_OP_SHL: return a << (b & 63);
    case RAVEL_OP_SHR: return a >> (b & 63);
    case RAVEL_OP_SAR: { /* arithmetic shift without relying on signed >> */
        unsigned s = (unsigned)(b & 63);
        uint64_t r = a >> s;
        if ((a >> 63) && s) r |= ~(UINT64_MAX >> s);
        return r;
    }
    case RAVEL_OP_EQ: return a == b;
    case RAVEL_OP_NE: return a != b;
    case RAVEL_OP_LT: return (int64_t)a < (int64_t)b;
    case RAVEL_OP_LE: return (int64_t)a <= (int64_t)b;
    default: return 0;
    }
}

static bool is_arith(ravel_opcode op) { return op >= RAVEL_OP_ADD && op <= RAVEL_OP_LE; }

/* mix(seed, k, n, inputs...) for def k of an op whose seed hashes its name. */
static uint64_t mix_def(uint64_t seed, uint32_t k, const uint64_t *in, uint32_t n)
{
    uint64_t h = mix(mix(seed, k), n);
    for (uint32_t p = 0; p < n; p++) h = mix(h, in[p]);
    return h;
}

static uint64_t op_seed(const ictx *c, const rv_inst *in)
{
    if (in->op == RAVEL_OP_CALL)
        return rv_mix_str(rv_mix_str(0, "call"), in->name != RAVEL_NONE ? rv_sym_str(&c->f->syms, in->name) : "");
    return rv_mix_str(0, rv_inst_mnemonic(c->f, in));
}

/* op_seed of instruction i, hashed once per run (ops run many times in loops). */
static uint64_t seed_of(ictx *c, uint32_t i, const rv_inst *in)
{
    if (!c->seed[i]) c->seed[i] = op_seed(c, in); /* (a seed that is 0 is merely hashed again) */
    return c->seed[i];
}

static void compute_defs(ictx *c, uint32_t i, const rv_inst *in, uint32_t n)
{
    ravel_opcode op = (ravel_opcode)in->op;
    uint64_t a = n > 0 ? c->in[0] : 0, b = n > 1 ? c->in[1] : 0;
    for (uint32_t k = 0; k < in->ndefs; k++) {
        if (op == RAVEL_OP_ARGS)
            c->defs[k] = k < c->o->ninputs && c->o->inputs ? c->o->inputs[k] : 0;
        else if (op == RAVEL_OP_UNDEF)
            c->defs[k] = draw_undef(c);
        else if (k == 0 && is_arith(op))
            c->defs[k] = arith(op, a, b);
        else if (k == 0 && (op == RAVEL_OP_CONST || op == RAVEL_OP_COPY))
            c->defs[k] = a;
        else
            c->defs[k] = mix_def(seed_of(c, i, in), k, c->in, n);
    }
}

/* A moved reference: mix(mix(mix_str(0, "reloc"), counter), v); c->reloc
 * holds the first, constant part. */
static uint64_t reloc(const ictx *c, uint64_t counter, uint64_t v) { return mix(mix(c->reloc, counter), v); }

/* Register r of a clobber list (or overlapping one) loses its value, unless
 * in writes it (a def's location; a remat's destination). */
static void clobber_reg(ictx *c, const rv_inst *in, uint32_t r)
{
    bool written = in->op == RAVEL_OP_REMAT ? in->u.edit.dst == r : rv_inst_defines_loc(c->f, in, r);
    if (!written && r < c->nregs) c->written[r] = 0;
}

/* Step 3: clobbers (allocated) and the moving collector. */
static void clobber_and_collect(ictx *c, const rv_inst *in)
{
    const ravel_func *f = c->f;
    /* an explicit empty clobbers() is skipped: rv_inst_clobbers would index
     * a possibly empty f->u32 */
    if (c->alloc && !((in->flags & RV_IF_CLOBBERS) && !in->nclob)) {
        const uint32_t *regs, *ov;
        uint32_t nc = rv_inst_clobbers(f, in, &regs);
        for (uint32_t j = 0; j < nc; j++) {
            clobber_reg(c, in, regs[j]);
            uint32_t no = regs[j] < c->nregs ? rv_mach_overlaps(f->mach, regs[j], &ov) : 0;
            for (uint32_t k = 0; k < no; k++) clobber_reg(c, in, ov[k]);
        }
    }
    if (!(in->flags & RV_IF_SAFEPOINT)) return;
    uint64_t cnt = c->nsafepoints++;
    if (!c->o->moving_gc) return;
    if (c->alloc) {
        if (!(in->flags & RV_IF_STACKMAP)) return;
        for (uint32_t j = 0; j < in->u.smap.n; j++) {
            uint32_t idx = loc_index(c, ravel_slot(f->u32.data[in->u.smap.first + j]));
            if (idx != RAVEL_NONE && c->written[idx]) c->val[idx] = reloc(c, cnt, c->val[idx]);
        }
    } else {
        for (uint32_t j = 0; j < c->nrefs; j++) /* (an undefined one is not moved) */
            if (c->written[c->refs[j]] && !c->vundef[c->refs[j]])
                c->val[c->refs[j]] = reloc(c, cnt, c->val[c->refs[j]]);
    }
}

/* (allocated) in is a copy whose def register is contained in its use's
 * register: an in-place copy (docs/format.md section 14.1). */
static bool in_place_copy(const ictx *c, const rv_inst *in)
{
    if (!c->alloc || in->op != RAVEL_OP_COPY || in->ndefs != 1 || in->nuses != 1) return false;
    const rv_operand *o = rv_inst_ops(c->f, in);
    return rv_mach_contains(c->f->mach, o[1].loc, o[0].loc);
}

/* Step 4's writes. A copy of an undefined source writes an undefined def:
 * if its use is in U, its location gets the value the copy read (a draw),
 * as an `undef`'s does; else (allocated) whatever the source's location
 * held (a value or none). An in-place copy writes its def register alone,
 * unless its use is in U. */
static bool write_defs(ictx *c, uint32_t i, const rv_inst *in)
{
    bool undef_copy = in->op == RAVEL_OP_COPY && in->nuses && c->uundef[0];
    bool in_u = c->copy_in_u && c->copy_in_u[i];
    bool keep = in_place_copy(c, in) && !in_u;
    for (uint32_t k = 0; k < in->ndefs; k++) {
        const rv_operand *d = &rv_inst_defs(c->f, in)[k];
        bool raw = undef_copy && k == 0 && c->alloc && !in_u;
        if (!write_op(c, i, d, raw ? c->raw_val : c->defs[k], raw ? c->raw_written : 1, keep)) return false;
        if (d->vreg < c->f->vregs.len) c->vundef[d->vreg] = in->op == RAVEL_OP_UNDEF || (undef_copy && k == 0);
    }
    return true;
}

static bool exec_op(ictx *c, uint32_t i)
{
    const ravel_func *f = c->f;
    const rv_inst *in = rv_inst_at(f, i);
    /* (no pointer arithmetic on f->ops.data when the op has no operands) */
    const rv_operand *defs = rv_defs_of(f, in), *uses = rv_uses_of(f, in);
    uint32_t idx;
    if (c->alloc) /* 1. early defs clobber their locations (and what overlaps them) */
        for (uint32_t k = 0; k < in->ndefs; k++)
            if (rv_op_is_early(&defs[k])) {
                if (!op_index(c, i, &defs[k], &idx)) return false;
                c->written[idx] = 0;
                kill_overlaps(c, idx);
            }
    for (uint32_t k = 0; k < in->nuses; k++) /* 2. read the uses */
        if (!read_use(c, i, &uses[k], k)) return false;
    clobber_and_collect(c, in); /* 3. */
    uint32_t n = gather_inputs(c, in);
    compute_defs(c, i, in, n); /* 4. */
    if (!write_defs(c, i, in)) return false;
    bool changed = false; /* 5. late uses must still hold their values */
    for (uint32_t k = 0; k < in->nuses; k++) {
        if (!rv_op_is_late(&uses[k]) || c->uundef[k]) continue; /* (an undefined use read nothing) */
        uint64_t v;
        if (!read_op(c, i, &uses[k], &v)) return false;
        changed |= v != c->uvals[k];
        c->uvals[k] = v;
    }
    if (changed) {
        n = gather_inputs(c, in);
        compute_defs(c, i, in, n);
        if (!write_defs(c, i, in)) return false;
    }
    if (in->op == RAVEL_OP_OUT && c->r->out.len + (uint64_t)n > c->out_limit) { /* bounded output */
        c->r->status = RV_RUN_STEP_LIMIT;
        c->r->out_limited = true;
        return false;
    }
    if (in->op == RAVEL_OP_OUT) /* 6. */
        for (uint32_t p = 0; p < n; p++) {
            rv_vec_push(c->r->out, c->in[p]);
            rv_vec_push(c->r->out_inst, i);
        }
    return true;
}

/* spill, reload, move: the destination gets the source's value and flag;
 * remat K: its clobbers apply (sparing its destination), then the
 * destination gets K. The registers overlapping the destination lose
 * their values (docs/format.md section 14). */
static bool exec_edit(ictx *c, uint32_t i)
{
    const rv_inst *in = rv_inst_at(c->f, i);
    bool remat = in->op == RAVEL_OP_REMAT;
    uint32_t d = loc_index(c, in->u.edit.dst), s = remat ? 0 : loc_index(c, in->u.edit.src);
    if (d == RAVEL_NONE || s == RAVEL_NONE || (remat && in->nimms != 1)) return fail(c, i, "edit location out of range");
    if (remat) {
        clobber_and_collect(c, in); /* (a remat is no safepoint) */
        c->val[d] = (uint64_t)rv_remat_k(c->f, in);
        c->written[d] = 1;
    } else {
        c->val[d] = c->val[s];
        c->written[d] = c->written[s];
    }
    kill_overlaps(c, d);
    return true;
}

/* Binds the parameters of successor sc, all at once: unallocated, their
 * values; in both forms, which of them are undefined (an undefined
 * argument is not read). */
static bool bind_params(ictx *c, uint32_t i, const rv_succ *sc)
{
    const ravel_func *f = c->f;
    const rv_block *t = &f->blocks.data[sc->block];
    if (sc->nargs != t->nparams) return fail(c, i, "argument count mismatch on the edge to %s", rv_block_name(f, sc->block));
    for (uint32_t k = 0; k < sc->nargs; k++) {
        rv_operand o = {rv_succ_args(f, sc)[k], RAVEL_LOC_NONE, 0, 0, 0};
        c->uundef[k] = is_undef(c, o.vreg);
        c->in[k] = 0;
        if (!c->alloc && !c->uundef[k] && !read_op(c, i, &o, &c->in[k])) return false;
    }
    for (uint32_t k = 0; k < t->nparams; k++) {
        uint32_t p = rv_block_params(f, t)[k];
        if (p >= f->vregs.len) return fail(c, i, "bad vreg id %u", p);
        c->vundef[p] = c->uundef[k];
        rv_operand o = {p, RAVEL_LOC_NONE, 0, 0, 0};
        if (!c->alloc && !write_op(c, i, &o, c->in[k], 1, true)) return false;
    }
    return true;
}

/* Executes terminator i of block b; sets *next to the successor block, or
 * RAVEL_NONE after `ret`. */
static bool exec_term(ictx *c, uint32_t b, uint32_t i, uint32_t *next)
{
    const ravel_func *f = c->f;
    const rv_inst *in = rv_inst_at(f, i);
    for (uint32_t k = 0; k < in->nuses; k++)
        if (!read_use(c, i, &rv_inst_uses(f, in)[k], k)) return false;
    if (in->op == RAVEL_OP_RET) {
        uint32_t n = gather_inputs(c, in);
        for (uint32_t p = 0; p < n; p++) rv_vec_push(c->r->rets, c->in[p]);
        *next = RAVEL_NONE;
        return true;
    }
    uint32_t ns = rv_inst_nsuccs(in), pick = 0;
    if (!ns) return fail(c, i, "branch without successors");
    if (in->op == RAVEL_OP_BR && in->nuses) {
        uint64_t cond = c->uvals[0];
        pick = ns == 2 ? (cond != 0 ? 0 : 1) : (uint32_t)(cond % ns);
    } else if (in->op == RAVEL_OP_BR) {
        pick = (uint32_t)(c->brcount[b]++ % ns);
    }
    const rv_succ *sc = &rv_inst_succs(f, in)[pick];
    if (sc->block >= f->layout.len) return fail(c, i, "branch to an undefined block");
    if (!bind_params(c, i, sc)) return false;
    *next = sc->block;
    return true;
}

/* Runs block b; sets *next (RAVEL_NONE: finished, see status). */
static bool exec_block(ictx *c, uint32_t b, uint32_t *next)
{
    const rv_block *bl = &c->f->blocks.data[b];
    for (uint32_t i = bl->first_inst; i < bl->first_inst + bl->ninsts; i++) {
        const rv_inst *in = rv_inst_at(c->f, i);
        if (rv_is_edit(in)) {
            if (c->alloc && !exec_edit(c, i)) return false;
            continue;
        }
        if (c->r->steps >= c->limit) {
            c->r->status = RV_RUN_STEP_LIMIT;
            *next = RAVEL_NONE;
            return true;
        }
        c->r->steps++;
        if (rv_is_term(in)) return exec_term(c, b, i, next);
        if (!exec_op(c, i)) return false;
    }
    return fail(c, bl->ninsts ? bl->first_inst + bl->ninsts - 1 : RAVEL_NONE, "block %s has no terminator",
                rv_block_name(c->f, b));
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void add_slot(uint32_t *v, uint32_t *n, ravel_loc l)
{
    if (ravel_loc_is_slot(l) && ravel_loc_slot(l) <= RAVEL_MAX_SLOT) v[(*n)++] = ravel_loc_slot(l);
}

/* Sparse slot numbers (s1048575 alone): index the slots used densely. */
static void dense_slots(ictx *c)
{
    const ravel_func *f = c->f;
    uint32_t *v = rv_xmalloc(((size_t)f->ops.len + 2 * (size_t)f->insts.len + 1) * sizeof *v), n = 0;
    for (uint32_t i = 0; i < f->ops.len; i++) add_slot(v, &n, f->ops.data[i].loc);
    for (uint32_t i = 0; i < f->insts.len; i++)
        if (rv_is_edit(&f->insts.data[i])) {
            add_slot(v, &n, f->insts.data[i].u.edit.dst);
            add_slot(v, &n, f->insts.data[i].u.edit.src);
        }
    if (n) qsort(v, n, sizeof *v, cmp_u32);
    uint32_t w = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!w || v[w - 1] != v[i]) v[w++] = v[i];
    if ((uint64_t)c->nslots <= 2 * (uint64_t)w + 64) { /* dense enough: direct */
        rv_free(v);
        return;
    }
    c->slotnum = v;
    c->nslotnum = w;
}

/* copy_in_u: the copies whose use is in U where they stand (none when the
 * analysis is refused for size: every copy of an undefined source then
 * moves its bits, which an allocation the checker accepts cannot tell). */
static void mark_copies_in_u(ictx *c)
{
    const ravel_func *f = c->f;
    rv_cfg cfg;
    rv_undef u;
    rv_cfg_build(&cfg, f);
    if (rv_undef_build(&u, f, &cfg)) {
        c->copy_in_u = rv_xcalloc(f->insts.len + 1, 1);
        uint64_t *s = rv_xcalloc(u.nwords + 1, sizeof *s);
        for (uint32_t r = 0; r < cfg.nrpo; r++) {
            const rv_block *bl = &f->blocks.data[cfg.rpo[r]];
            memcpy(s, u.in + (size_t)cfg.rpo[r] * u.nwords, u.nwords * sizeof *s);
            for (uint32_t i = bl->first_inst; i < bl->first_inst + bl->ninsts; i++) {
                const rv_inst *in = rv_inst_at(f, i);
                if (in->op == RAVEL_OP_COPY && in->ndefs == 1 && in->nuses == 1) {
                    uint32_t v = rv_inst_uses(f, in)[0].vreg;
                    c->copy_in_u[i] = v < f->vregs.len && rv_bs_test(s, v);
                }
                rv_undef_step(f, in, s);
            }
        }
        rv_free(s);
        rv_undef_free(&u);
    }
    rv_cfg_free(&cfg);
}

static void init_ctx(ictx *c, const ravel_func *f, const rv_run_opts *o, rv_run_result *r)
{
    memset(c, 0, sizeof *c);
    c->f = f;
    c->o = o;
    c->r = r;
    c->alloc = o->allocated;
    c->limit = o->step_limit ? o->step_limit : 1000000u;
    c->nregs = f->mach->regs.len;
    c->nslots = f->nslots;
    for (uint32_t i = 0; i < f->ops.len; i++) /* do not trust nslots alone */
        if (ravel_loc_is_slot(f->ops.data[i].loc) && ravel_loc_slot(f->ops.data[i].loc) <= RAVEL_MAX_SLOT &&
            ravel_loc_slot(f->ops.data[i].loc) >= c->nslots)
            c->nslots = ravel_loc_slot(f->ops.data[i].loc) + 1;
    for (uint32_t i = 0; i < f->insts.len; i++) {
        const rv_inst *in = &f->insts.data[i];
        ravel_loc l[2] = {in->u.edit.dst, in->u.edit.src};
        for (int k = 0; k < 2 && rv_is_edit(in); k++)
            if (ravel_loc_is_slot(l[k]) && ravel_loc_slot(l[k]) <= RAVEL_MAX_SLOT && ravel_loc_slot(l[k]) >= c->nslots)
                c->nslots = ravel_loc_slot(l[k]) + 1;
    }
    c->out_limit = RV_RUN_OUT_LIMIT;
    if (c->alloc) dense_slots(c);
    c->nvals = c->alloc ? c->nregs + (c->slotnum ? c->nslotnum : c->nslots) : f->vregs.len;
    uint32_t maxin = 1, maxdefs = 1;
    for (uint32_t i = 0; i < f->insts.len; i++) {
        const rv_inst *in = &f->insts.data[i];
        if (rv_is_edit(in)) continue;
        if ((uint32_t)in->nuses + in->nimms > maxin) maxin = (uint32_t)in->nuses + in->nimms;
        if (in->ndefs > maxdefs) maxdefs = in->ndefs;
        for (uint32_t k = 0; k < rv_inst_nsuccs(in); k++)
            if (rv_inst_succs(f, in)[k].nargs > maxin) maxin = rv_inst_succs(f, in)[k].nargs;
    }
    c->val = rv_xcalloc(c->nvals + 1, sizeof *c->val);
    c->written = rv_xcalloc(c->nvals + 1, 1);
    c->uvals = rv_xcalloc(maxin, sizeof *c->uvals);
    c->uundef = rv_xcalloc(maxin, 1);
    c->vundef = rv_xcalloc(f->vregs.len + 1, 1);
    c->undef_base = o->undef_seed ? mix(rv_mix_str(0, "undef"), o->undef_seed) : 0;
    if (rv_func_has_undef(f)) mark_copies_in_u(c);
    c->in = rv_xcalloc(maxin, sizeof *c->in);
    c->defs = rv_xcalloc(maxdefs, sizeof *c->defs);
    c->brcount = rv_xcalloc(f->layout.len + 1, sizeof *c->brcount);
    c->seed = rv_xcalloc(f->insts.len + 1, sizeof *c->seed);
    c->reloc = rv_mix_str(0, "reloc");
    if (!c->alloc) {
        c->refs = rv_xcalloc(f->vregs.len + 1, sizeof *c->refs);
        for (uint32_t v = 0; v < f->vregs.len; v++)
            if (f->vregs.data[v].ref) c->refs[c->nrefs++] = v;
    }
}

static void free_ctx(ictx *c)
{
    rv_free(c->val);
    rv_free(c->written);
    rv_free(c->uvals);
    rv_free(c->uundef);
    rv_free(c->vundef);
    rv_free(c->copy_in_u);
    rv_free(c->in);
    rv_free(c->defs);
    rv_free(c->brcount);
    rv_free(c->seed);
    rv_free(c->refs);
    rv_free(c->slotnum);
}

int rv_interp_run(const ravel_func *f, const rv_run_opts *o, rv_run_result *r)
{
    memset(r, 0, sizeof *r);
    r->err_inst = RAVEL_NONE;
    ictx c;
    init_ctx(&c, f, o, r);
    uint32_t b = 0;
    if (!f->layout.len) fail(&c, RAVEL_NONE, "function has no blocks");
    while (r->status == RV_RUN_OK && b != RAVEL_NONE) {
        uint32_t next = RAVEL_NONE;
        if (!exec_block(&c, b, &next)) break;
        b = next;
    }
    free_ctx(&c);
    return r->status;
}

void rv_run_result_free(rv_run_result *r)
{
    rv_vec_free(r->out);
    rv_vec_free(r->out_inst);
    rv_vec_free(r->rets);
}

/* ---- comparison ---- */

static const char *status_name(int s)
{
    return s == RV_RUN_OK ? "ok" : s == RV_RUN_STEP_LIMIT ? "step limit" : "error";
}

static void describe_out(const ravel_func *f, const rv_run_result *r, uint32_t k, char *buf, size_t n)
{
    char where[160];
    if (k >= r->out.len) {
        snprintf(buf, n, "<none> (%s)", status_name(r->status));
        return;
    }
    rv_interp_where(f, r->out_inst.data[k], where, sizeof where);
    snprintf(buf, n, "%lld (%s)", (long long)r->out.data[k], where);
}

/* Writes the first difference into msg; returns true if none. */
static bool first_difference(const ravel_func *fo, const rv_run_result *a, const ravel_func *fa,
                             const rv_run_result *b, char *msg, size_t len)
{
    char x[224], y[224];
    uint32_t n = a->out.len < b->out.len ? a->out.len : b->out.len;
    for (uint32_t k = 0; k < n; k++)
        if (a->out.data[k] != b->out.data[k]) {
            describe_out(fo, a, k, x, sizeof x);
            describe_out(fa, b, k, y, sizeof y);
            snprintf(msg, len, "first difference: out #%u: orig %s vs alloc %s", k, x, y);
            return false;
        }
    if (a->status != b->status) {
        snprintf(msg, len, "first difference: status: orig %s%s%s vs alloc %s%s%s", status_name(a->status),
                 a->status == RV_RUN_ERROR ? ": " : "", a->status == RV_RUN_ERROR ? a->msg : "",
                 status_name(b->status), b->status == RV_RUN_ERROR ? ": " : "", b->status == RV_RUN_ERROR ? b->msg : "");
        return false;
    }
    if (a->out.len != b->out.len) {
        describe_out(fo, a, n, x, sizeof x);
        describe_out(fa, b, n, y, sizeof y);
        snprintf(msg, len, "first difference: out #%u: orig %s vs alloc %s", n, x, y);
        return false;
    }
    n = a->rets.len > b->rets.len ? a->rets.len : b->rets.len;
    for (uint32_t k = 0; k < n; k++) {
        bool ha = k < a->rets.len, hb = k < b->rets.len;
        if (ha && hb && a->rets.data[k] == b->rets.data[k]) continue;
        snprintf(x, sizeof x, ha ? "%lld" : "<none>", ha ? (long long)a->rets.data[k] : 0LL);
        snprintf(y, sizeof y, hb ? "%lld" : "<none>", hb ? (long long)b->rets.data[k] : 0LL);
        snprintf(msg, len, "first difference: ret #%u: orig %s vs alloc %s", k, x, y);
        return false;
    }
    return true;
}

bool rv_interp_compare(const ravel_func *orig, const ravel_func *alloc, const rv_run_opts *o, char *msg, size_t msglen)
{
    rv_run_opts oo = *o, oa = *o;
    rv_run_result ra, rb;
    oo.allocated = false;
    oa.allocated = true;
    rv_interp_run(orig, &oo, &ra);
    rv_interp_run(alloc, &oa, &rb);
    char tmp[8];
    if (!msg || !msglen) {
        msg = tmp;
        msglen = sizeof tmp;
    }
    msg[0] = 0;
    bool same = first_difference(orig, &ra, alloc, &rb, msg, msglen);
    rv_run_result_free(&ra);
    rv_run_result_free(&rb);
    return same;
}

/* ---- input vectors for comparisons ---- */

uint32_t rv_interp_ninputs(const ravel_func *f)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->insts.len; i++)
        if (f->insts.data[i].op == RAVEL_OP_ARGS && f->insts.data[i].ndefs > n) n = f->insts.data[i].ndefs;
    return n;
}

/* Vector k from seed: small non-negative, small negative, edge values and
 * arbitrary 64-bit values, chosen by a splitmix64 stream. */
void rv_interp_inputs(uint64_t seed, uint64_t k, uint64_t *out, size_t n)
{
    static const uint64_t edge[] = {0, 1, UINT64_MAX, 2, 63, 64, 0x7fffffffffffffffULL, 0x8000000000000000ULL,
                                    0xffffffffULL, 0x100000000ULL, 0x7fffffffULL, 0x80000000ULL};
    uint64_t st = mix(mix(seed, k), n);
    for (size_t i = 0; i < n; i++) {
        uint64_t x = rv_rng_next(&st), y = rv_mix64(x);
        switch (x % 4) {
        case 0: out[i] = y % 11; break;                 /* 0 .. 10 */
        case 1: out[i] = (uint64_t)-(int64_t)(1 + y % 10); break; /* -1 .. -10 */
        case 2: out[i] = edge[y % (sizeof edge / sizeof *edge)]; break;
        default: out[i] = y; break;
        }
    }
}

/* The undefined-value seed of input vector k (never 0: undefined values
 * then read as arbitrary values, different at each read). */
uint64_t rv_interp_undef_seed(uint64_t seed, uint64_t k)
{
    uint64_t s = mix(rv_mix_str(seed, "undef"), k);
    return s ? s : 1;
}
