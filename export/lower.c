/*
 * lower.c - one `.ra` block as x86-64 MIR in SSA (docs/import.md,
 * "Exporting ravel's functions as MIR", has the table).
 *
 * Requires: xp set up by export.c (mbb numbers, edges, x86 register of
 * every machine register). Guarantees: each op becomes real x86-64
 * opcodes over gr64 vregs, its `fixed` uses and defs pass through their
 * physical register (`$R = COPY %v`, `%t = COPY $R`), a call is
 * CALL64pcrel32 with csr_64 between ADJCALLSTACKDOWN64/UP64, and the
 * terminator is TEST64rr/CMP64ri32 + JCC_1 + JMP_1 (a compare chain of
 * extra blocks for three or more targets) or RET64. Other constraints
 * (reg, any, stack, reuse, early, late) are freedoms or duties of ravel's
 * own allocators: the x86 instruction's own constraints (two-address ties,
 * CL shifts) are what LLVM's allocators get. Anything else is a skip.
 */
#include "export/xp.h"

#include <inttypes.h>
#include <stdarg.h>

#define EFL "implicit-def dead $eflags"

static void vline(xp *x, const char *extra, const char *fmt, va_list ap)
{
    char tmp[1024];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    if (n < 0 || (size_t)n >= sizeof tmp) xp_skip(x, "size", "an instruction too long to print");
    xb_printf(&x->body, "    %s%s\n", tmp, extra);
}
static void line(xp *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(xp *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(x, "", fmt, ap);
    va_end(ap);
}
/* The instruction that computes an op's def: it also carries the op's
 * clobbers(...) as `implicit-def dead $R` (x->extra). */
static void main_line(xp *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void main_line(xp *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(x, x->extra, fmt, ap);
    va_end(ap);
}

/* One input of an op in source order: a vreg operand or an immediate. */
typedef struct xin {
    bool imm;
    int64_t v;
    const rv_operand *op;
} xin;

/* The inputs of in, in the order written (vregs and immediates merged). */
static uint32_t inputs(const ravel_func *f, const rv_inst *in, xin *out, uint32_t max)
{
    uint32_t n = in->nuses + in->nimms, vi = 0, ii = 0;
    if (n > max) return UINT32_MAX;
    const rv_operand *u = rv_uses_of(f, in);
    for (uint32_t p = 0; p < n; p++) {
        if (ii < in->nimms && f->imms.data[in->first_imm + ii].pos == p) {
            out[p] = (xin){true, f->imms.data[in->first_imm + ii].value, NULL};
            ii++;
        } else {
            out[p] = (xin){false, 0, &u[vi++]};
        }
    }
    return n;
}

static bool fits32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

static uint32_t materialize(xp *x, int64_t v)
{
    uint32_t t = xp_new(x);
    line(x, "%%%" PRIu32 ":gr64 = MOV64ri %" PRId64, t, v);
    return t;
}

/* The vreg an op reads for input i: a `fixed(R)` use passes through R. */
static uint32_t in_reg(xp *x, const xin *i)
{
    if (i->imm) return materialize(x, i->v);
    if (i->op->kind != RAVEL_C_FIXED) return i->op->vreg;
    int r = xp_fixed_reg(x, i->op);
    uint32_t t = xp_new(x);
    line(x, "$%s = COPY %%%" PRIu32, xr_name[r], i->op->vreg);
    line(x, "%%%" PRIu32 ":gr64 = COPY $%s", t, xr_name[r]);
    return t;
}

/* Where an op writes def d: d itself, or a temporary that def_done then
 * passes through d's fixed register. */
static uint32_t def_reg(xp *x, const rv_operand *d)
{
    return d->kind == RAVEL_C_FIXED ? xp_new(x) : d->vreg;
}
static void def_done(xp *x, const rv_operand *d, uint32_t t)
{
    if (d->kind != RAVEL_C_FIXED) return;
    int r = xp_fixed_reg(x, d);
    line(x, "$%s = COPY %%%" PRIu32, xr_name[r], t);
    line(x, "%%%" PRIu32 ":gr64 = COPY $%s", d->vreg, xr_name[r]);
}

/* ----- arithmetic ----- */
typedef struct binop {
    uint8_t op;
    const char *rr, *ri; /* ri: `%d = RI %a, imm` (NULL: materialize) */
    bool commutes;
} binop;
static const binop binops[] = {
    {RAVEL_OP_ADD, "ADD64rr", "ADD64ri32", true},  {RAVEL_OP_SUB, "SUB64rr", "SUB64ri32", false},
    {RAVEL_OP_AND, "AND64rr", "AND64ri32", true},  {RAVEL_OP_OR, "OR64rr", "OR64ri32", true},
    {RAVEL_OP_XOR, "XOR64rr", "XOR64ri32", true},  {RAVEL_OP_MUL, "IMUL64rr", "IMUL64rri32", true},
};

static const binop *find_binop(uint8_t op)
{
    for (size_t i = 0; i < sizeof binops / sizeof *binops; i++)
        if (binops[i].op == op) return &binops[i];
    return NULL;
}

/* d = a OP b as two-address x86 (IMUL64rri32 is three-address). */
static void lower_bin(xp *x, const binop *bo, const rv_operand *d, xin a, xin b)
{
    if (a.imm && !b.imm && bo->commutes) {
        xin t = a;
        a = b;
        b = t;
    }
    uint32_t ra = in_reg(x, &a);
    uint32_t t = def_reg(x, d);
    if (b.imm && fits32(b.v)) {
        main_line(x, "%%%" PRIu32 ":gr64 = %s %%%" PRIu32 ", %" PRId64 ", " EFL, t, bo->ri, ra, b.v);
    } else {
        uint32_t rb = in_reg(x, &b);
        main_line(x, "%%%" PRIu32 ":gr64 = %s %%%" PRIu32 ", %%%" PRIu32 ", " EFL, t, bo->rr, ra, rb);
    }
    def_done(x, d, t);
}

/* Shifts: by an immediate (mod 64) or by CL. */
static void lower_shift(xp *x, uint8_t op, const rv_operand *d, xin a, xin b)
{
    const char *base = op == RAVEL_OP_SHL ? "SHL64" : op == RAVEL_OP_SHR ? "SHR64" : "SAR64";
    uint32_t ra = in_reg(x, &a);
    uint32_t t = def_reg(x, d);
    if (b.imm) {
        main_line(x, "%%%" PRIu32 ":gr64 = %sri %%%" PRIu32 ", %" PRId64 ", " EFL, t, base, ra, b.v & 63);
    } else {
        uint32_t rb = in_reg(x, &b);
        line(x, "$rcx = COPY %%%" PRIu32, rb);
        main_line(x, "%%%" PRIu32 ":gr64 = %srCL %%%" PRIu32 ", " EFL ", implicit $cl", t, base, ra);
    }
    def_done(x, d, t);
}

/* eq ne lt le: CMP, SETCC, zero extension to 64 bits. */
static void lower_cmp(xp *x, uint8_t op, const rv_operand *d, xin a, xin b)
{
    int cc = op == RAVEL_OP_EQ ? 4 : op == RAVEL_OP_NE ? 5 : op == RAVEL_OP_LT ? 12 : 14;
    uint32_t ra = in_reg(x, &a);
    if (b.imm && fits32(b.v)) {
        line(x, "CMP64ri32 %%%" PRIu32 ", %" PRId64 ", implicit-def $eflags", ra, b.v);
    } else {
        uint32_t rb = in_reg(x, &b);
        line(x, "CMP64rr %%%" PRIu32 ", %%%" PRIu32 ", implicit-def $eflags", ra, rb);
    }
    uint32_t s = xp_new(x), z = xp_new(x), t = def_reg(x, d);
    line(x, "%%%" PRIu32 ":gr8 = SETCCr %d, implicit $eflags", s, cc);
    main_line(x, "%%%" PRIu32 ":gr32 = MOVZX32rr8 %%%" PRIu32, z, s);
    line(x, "%%%" PRIu32 ":gr64 = SUBREG_TO_REG 0, %%%" PRIu32 ", %%subreg.sub_32bit", t, z);
    def_done(x, d, t);
}

static void lower_const(xp *x, const rv_operand *d, int64_t k)
{
    uint32_t t = def_reg(x, d);
    if (k == 0) {
        uint32_t z = xp_new(x);
        main_line(x, "%%%" PRIu32 ":gr32 = MOV32r0 " EFL, z);
        line(x, "%%%" PRIu32 ":gr64 = SUBREG_TO_REG 0, %%%" PRIu32 ", %%subreg.sub_32bit", t, z);
    } else {
        main_line(x, "%%%" PRIu32 ":gr64 = MOV64ri %" PRId64, t, k);
    }
    def_done(x, d, t);
}

/* An opaque op's def k: the inputs folded by a rotation of ADD, XOR,
 * IMUL, SUB (every input read), plus k so that defs differ. */
static void lower_opaque_def(xp *x, const rv_operand *d, uint32_t k, const xin *in, uint32_t n)
{
    static const binop *const fold[4] = {&binops[0], &binops[4], &binops[5], &binops[1]};
    uint32_t t = def_reg(x, d);
    if (n == 0) {
        main_line(x, "%%%" PRIu32 ":gr64 = MOV64ri %" PRIu32, t, 0x5a17 + k);
        def_done(x, d, t);
        return;
    }
    uint32_t acc = in_reg(x, &in[0]);
    for (uint32_t i = 1; i <= n; i++) {
        uint32_t to = i == n ? t : xp_new(x);
        if (i == n) main_line(x, "%%%" PRIu32 ":gr64 = ADD64ri32 %%%" PRIu32 ", %" PRIu32 ", " EFL, to, acc, k + 1);
        else if (in[i].imm && fits32(in[i].v))
            line(x, "%%%" PRIu32 ":gr64 = %s %%%" PRIu32 ", %" PRId64 ", " EFL, to, fold[i % 4]->ri, acc, in[i].v);
        else {
            uint32_t r = in_reg(x, &in[i]);
            line(x, "%%%" PRIu32 ":gr64 = %s %%%" PRIu32 ", %%%" PRIu32 ", " EFL, to, fold[i % 4]->rr, acc, r);
        }
        acc = to;
    }
    def_done(x, d, t);
}

/* ----- calls ----- */
static const uint8_t arg_order[XR_N] = {5, 4, 2, 1, 6, 7, 0, 8, 9, 3, 10, 11, 12, 13}; /* rdi rsi rdx rcx r8 r9 rax r10 r11 rbx r12.. */
static const uint8_t res_order[XR_N] = {0, 2, 1, 4, 5, 6, 7, 8, 9, 3, 10, 11, 12, 13}; /* rax rdx rcx rsi rdi r8.. */
static const bool caller_saved[XR_N] = {1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0};

/* Registers for a list of operands: fixed ones keep theirs, the others
 * take the first free of order. */
static void assign(xp *x, const rv_operand *ops, const xin *in, uint32_t n, const uint8_t *order, int *reg, const char *what)
{
    bool used[XR_N] = {0};
    for (uint32_t i = 0; i < n; i++) {
        const rv_operand *o = ops ? &ops[i] : in[i].op;
        reg[i] = o && o->kind == RAVEL_C_FIXED ? xp_fixed_reg(x, o) : -1;
        if (reg[i] >= 0) used[reg[i]] = true;
    }
    for (uint32_t i = 0, k = 0; i < n; i++) {
        if (reg[i] >= 0) continue;
        while (k < XR_N && used[order[k]]) k++;
        if (k == XR_N) xp_skip(x, "call-width", "more %s than x86-64 has registers", what);
        reg[i] = order[k];
        used[order[k]] = true;
    }
}

static void note_callee(xp *x, const char *name)
{
    for (uint32_t i = 0; i < x->callees.len; i++)
        if (!strcmp(x->callees.data[i], name)) return;
    rv_vec_push(x->callees, name);
}

/* A call of callee: inputs in registers, defs from registers; clob: the
 * instruction's explicit clobbers (NULL: none beyond csr_64's). */
static void lower_call(xp *x, const char *callee, const xin *in, uint32_t nin, const rv_operand *defs, uint32_t nd,
                       const rv_inst *clob)
{
    int areg[XR_N], rreg[XR_N];
    if (nin > XR_N || nd > XR_N) xp_skip(x, "call-width", "a call with %" PRIu32 " inputs and %" PRIu32 " results", nin, nd);
    assign(x, NULL, in, nin, arg_order, areg, "arguments");
    assign(x, defs, NULL, nd, res_order, rreg, "results");
    uint32_t v[XR_N];
    for (uint32_t i = 0; i < nin; i++) v[i] = in[i].imm ? materialize(x, in[i].v) : in[i].op->vreg;
    note_callee(x, callee);
    x->calls = true;
    line(x, "ADJCALLSTACKDOWN64 0, 0, 0, implicit-def dead $rsp, " EFL ", implicit-def dead $ssp, implicit $rsp, implicit $ssp");
    for (uint32_t i = 0; i < nin; i++) line(x, "$%s = COPY %%%" PRIu32, xr_name[areg[i]], v[i]);
    char ops[1024];
    size_t n = 0;
    bool def[XR_N] = {0};
    for (uint32_t i = 0; i < nin; i++) n += (size_t)snprintf(ops + n, sizeof ops - n, ", implicit $%s", xr_name[areg[i]]);
    n += (size_t)snprintf(ops + n, sizeof ops - n, ", implicit-def $rsp, implicit-def $ssp");
    for (uint32_t i = 0; i < nd; i++) {
        n += (size_t)snprintf(ops + n, sizeof ops - n, ", implicit-def $%s", xr_name[rreg[i]]);
        def[rreg[i]] = true;
    }
    for (uint32_t i = 0; clob && i < clob->nclob; i++) {
        int r = x->xreg[x->f->u32.data[clob->first_clob + i]];
        if (r >= 0 && !caller_saved[r] && !def[r]) n += (size_t)snprintf(ops + n, sizeof ops - n, ", implicit-def dead $%s", xr_name[r]);
    }
    line(x, "CALL64pcrel32 @%s, csr_64, implicit $rsp, implicit $ssp%s", callee, ops);
    line(x, "ADJCALLSTACKUP64 0, 0, implicit-def dead $rsp, " EFL ", implicit-def dead $ssp, implicit $rsp, implicit $ssp");
    for (uint32_t i = 0; i < nd; i++) line(x, "%%%" PRIu32 ":gr64 = COPY $%s", defs[i].vreg, xr_name[rreg[i]]);
}

/* `out` and opaque ops without defs: calls (six inputs at a time, the
 * Linux argument registers; fixed inputs keep their registers). */
static void lower_effect(xp *x, const char *callee, const xin *in, uint32_t n, const rv_inst *op)
{
    if (n == 0) {
        lower_call(x, callee, NULL, 0, NULL, 0, op);
        return;
    }
    for (uint32_t i = 0; i < n; i += 6) lower_call(x, callee, in + i, n - i < 6 ? n - i : 6, NULL, 0, op);
}

/* ----- the entry's arguments ----- */
static void lower_args(xp *x, const rv_inst *in)
{
    int reg[XR_N];
    if (in->ndefs > XR_N) xp_skip(x, "call-width", "%u arguments", in->ndefs);
    const rv_operand *d = rv_defs_of(x->f, in);
    assign(x, d, NULL, in->ndefs, arg_order, reg, "arguments");
    for (uint32_t i = 0; i < in->ndefs; i++) {
        x->livein[reg[i]] = (int)d[i].vreg;
        line(x, "%%%" PRIu32 ":gr64 = COPY $%s", d[i].vreg, xr_name[reg[i]]);
    }
}

/* x->extra: an op's clobbers(...) as implicit defs. */
static void clobber_ops(xp *x, const rv_inst *in)
{
    size_t n = 0;
    for (uint32_t i = 0; i < in->nclob; i++) {
        uint32_t reg = x->f->u32.data[in->first_clob + i];
        if (reg >= x->f->mach->regs.len || x->xreg[reg] < 0)
            xp_skip(x, "register", "clobbers(%s): no x86-64 general register", x->f->mach->regs.data[reg].name);
        n += (size_t)snprintf(x->extra + n, sizeof x->extra - n, ", implicit-def dead $%s", xr_name[(int)x->xreg[reg]]);
    }
}

static const char *callee_name(xp *x, const rv_inst *in)
{
    const char *s = rv_sym_str(&x->f->syms, in->name);
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '.'))
            xp_skip(x, "name", "callee '%s' is no LLVM identifier", s);
    if (!strncmp(s, "ravel_", 6)) xp_skip(x, "name", "callee '%s' is taken", s);
    return s;
}

static void lower_op(xp *x, const rv_inst *in)
{
    xin v[64];
    uint32_t n = inputs(x->f, in, v, 64);
    if (n == UINT32_MAX) xp_skip(x, "operands", "an op with %u inputs", in->nuses + in->nimms);
    const rv_operand *d = rv_defs_of(x->f, in);
    x->extra[0] = 0;
    if ((in->flags & RV_IF_CLOBBERS) && in->op != RAVEL_OP_CALL) {
        if (in->op == RAVEL_OP_COPY || in->op == RAVEL_OP_UNDEF || in->op == RAVEL_OP_ARGS)
            xp_skip(x, "clobbers", "clobbers on %s", in->op == RAVEL_OP_OTHER ? "an op without defs" : ravel_opcode_name(in->op));
        if (in->ndefs) clobber_ops(x, in); /* without defs: a call, which takes them */
    }
    const binop *bo = find_binop(in->op);
    switch (in->op) {
    case RAVEL_OP_ARGS: lower_args(x, in); return;
    case RAVEL_OP_CONST: lower_const(x, d, v[0].v); return;
    case RAVEL_OP_UNDEF: line(x, "%%%" PRIu32 ":gr64 = IMPLICIT_DEF", d[0].vreg); return;
    case RAVEL_OP_COPY: {
        uint32_t r = in_reg(x, &v[0]), t = def_reg(x, d);
        line(x, "%%%" PRIu32 ":gr64 = COPY %%%" PRIu32, t, r);
        def_done(x, d, t);
        return;
    }
    case RAVEL_OP_OUT: lower_effect(x, "ravel_out", v, n, in); return;
    case RAVEL_OP_CALL: lower_call(x, callee_name(x, in), v, n, d, in->ndefs, in); return;
    case RAVEL_OP_SHL: case RAVEL_OP_SHR: case RAVEL_OP_SAR:
        if (n == 2 && in->ndefs == 1) return lower_shift(x, in->op, d, v[0], v[1]);
        break;
    case RAVEL_OP_EQ: case RAVEL_OP_NE: case RAVEL_OP_LT: case RAVEL_OP_LE:
        if (n == 2 && in->ndefs == 1) return lower_cmp(x, in->op, d, v[0], v[1]);
        break;
    default:
        if (bo && n == 2 && in->ndefs == 1) return lower_bin(x, bo, d, v[0], v[1]);
        break;
    }
    if (in->ndefs == 0) return lower_effect(x, "ravel_op", v, n, in);
    for (uint32_t k = 0; k < in->ndefs; k++) lower_opaque_def(x, &d[k], k, v, n);
}

/* ----- terminators ----- */
uint32_t xp_block_mbbs(const ravel_func *f, uint32_t b)
{
    const rv_inst *t = rv_block_term(f, &f->blocks.data[b]);
    uint32_t n = rv_inst_nsuccs(t);
    return n >= 3 ? n - 1 : 1;
}

void xp_block_edges(xp *x, uint32_t b)
{
    const rv_inst *t = rv_block_term(x->f, &x->f->blocks.data[b]);
    uint32_t n = rv_inst_nsuccs(t);
    for (uint32_t k = 0; k < n; k++) {
        const rv_succ *s = &rv_inst_succs(x->f, t)[k];
        uint32_t from = x->mbb[b] + (n >= 3 ? (k < n - 1 ? k : n - 2) : 0);
        rv_vec_push(x->edges, ((xedge){from, s->block, s->nargs, rv_args_of(x->f, s)}));
    }
}

static void lower_ret(xp *x, const rv_inst *t)
{
    xin v[XR_N];
    uint32_t n = inputs(x->f, t, v, XR_N);
    if (n == UINT32_MAX) xp_skip(x, "call-width", "a ret of %u values", t->nuses + t->nimms);
    int reg[XR_N];
    assign(x, NULL, v, n, res_order, reg, "results");
    uint32_t r[XR_N];
    for (uint32_t i = 0; i < n; i++) r[i] = v[i].imm ? materialize(x, v[i].v) : v[i].op->vreg;
    char ops[512];
    size_t len = 0;
    ops[0] = 0;
    for (uint32_t i = 0; i < n; i++) {
        line(x, "$%s = COPY %%%" PRIu32, xr_name[reg[i]], r[i]);
        len += (size_t)snprintf(ops + len, sizeof ops - len, "%simplicit $%s", i ? ", " : " ", xr_name[reg[i]]);
    }
    line(x, "RET64%s", ops);
}

/* Starts MIR block m (not the first of a ravel block): its header. */
static void chain_block(xp *x, uint32_t m, uint32_t to, uint32_t next)
{
    xb_printf(&x->body, "\n  bb.%" PRIu32 ":\n    successors: %%bb.%" PRIu32 ", %%bb.%" PRIu32 "\n\n", m, to, next);
}

static void lower_br(xp *x, uint32_t b, const rv_inst *t)
{
    uint32_t n = rv_inst_nsuccs(t), m = x->mbb[b];
    const rv_succ *s = rv_inst_succs(x->f, t);
    uint32_t c;
    if (t->nuses) {
        xin in = {false, 0, rv_uses_of(x->f, t)};
        c = in_reg(x, &in);
    } else {
        c = materialize(x, 0); /* no condition: the same CFG, the first target */
    }
    if (n == 2) {
        line(x, "TEST64rr %%%" PRIu32 ", %%%" PRIu32 ", implicit-def $eflags", c, c);
        line(x, "JCC_1 %%bb.%" PRIu32 ", 5, implicit $eflags", x->mbb[s[0].block]);
        line(x, "JMP_1 %%bb.%" PRIu32, x->mbb[s[1].block]);
        return;
    }
    for (uint32_t k = 0; k + 1 < n; k++) {
        if (k) chain_block(x, m + k, x->mbb[s[k].block], k + 2 < n ? m + k + 1 : x->mbb[s[n - 1].block]);
        line(x, "CMP64ri32 %%%" PRIu32 ", %" PRIu32 ", implicit-def $eflags", c, k);
        line(x, "JCC_1 %%bb.%" PRIu32 ", 4, implicit $eflags", x->mbb[s[k].block]);
        line(x, "JMP_1 %%bb.%" PRIu32, k + 2 < n ? m + k + 1 : x->mbb[s[n - 1].block]);
    }
}

void xp_lower_block(xp *x, uint32_t b)
{
    const rv_block *bl = &x->f->blocks.data[b];
    for (uint32_t i = 0; i < bl->ninsts; i++) {
        const rv_inst *in = &x->f->insts.data[bl->first_inst + i];
        if (in->flags & RV_IF_SAFEPOINT) xp_skip(x, "safepoint", "%s: a safepoint", rv_block_name(x->f, b));
        if (rv_is_edit(in)) xp_skip(x, "allocated", "%s: an edit (the function is allocated)", rv_block_name(x->f, b));
        if (in->op == RAVEL_OP_JUMP) line(x, "JMP_1 %%bb.%" PRIu32, x->mbb[rv_inst_succs(x->f, in)[0].block]);
        else if (in->op == RAVEL_OP_BR) lower_br(x, b, in);
        else if (in->op == RAVEL_OP_RET) lower_ret(x, in);
        else lower_op(x, in);
    }
}
