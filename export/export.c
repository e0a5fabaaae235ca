/*
 * export.c - rvx_export: checks what the exporter takes, numbers the MIR
 * blocks, writes the module (an IR part with the debug info `ravel
 * import-mir` tags against, then the MIR function), the PHIs of block
 * parameters, and each block through lower.c.
 *
 * Requires: export.h's. Guarantees: export.h's; a skip frees everything
 * and leaves r->text NULL.
 */
#include "export/xp.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>

const char *const xr_name[XR_N] = {"rax", "rcx", "rdx", "rbx", "rsi", "rdi", "r8",
                                   "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};

static const char *const reasons[] = {
    "register",   /* a machine register that is no x86-64 general register (or two classes) */
    "safepoint",  /* safepoints and stack maps: no MIR form here */
    "allocated",  /* the function has edits or locations: export is before allocation */
    "entry-loop", /* the entry block has a predecessor (a MIR function's liveins) */
    "duplicate-edge", /* one MIR block would branch twice to one block */
    "call-width", /* more arguments or results than registers */
    "operands",   /* an op with more than 64 inputs */
    "clobbers",   /* clobbers(...) on an op that is no call */
    "name",       /* a callee whose name is no LLVM identifier or is taken */
    "size",       /* a line too long */
    NULL,
};
const char *const *rvx_reasons(void) { return reasons; }

const char *rvx_x86_machine(void)
{
    return "machine\n"
           "  class int rax rcx rdx rsi rdi r8 r9 r10 r11 rbx r12 r13 r14 r15\n"
           "  clobbers rax rcx rdx rsi rdi r8 r9 r10 r11\n"
           "end\n";
}

int xr_find(const char *name)
{
    for (int i = 0; i < XR_N; i++)
        if (!strcmp(xr_name[i], name)) return i;
    return -1;
}

void xb_printf(xbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (b->len + (size_t)n + 1 > b->cap) {
        b->cap = (b->len + (size_t)n + 1) * 2;
        b->s = rv_xrealloc(b->s, b->cap);
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void xb_free(xbuf *b)
{
    rv_free(b->s);
    memset(b, 0, sizeof *b);
}

_Noreturn void xp_skip(xp *x, const char *reason, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->msg, sizeof x->msg, fmt, ap);
    va_end(ap);
    x->reason = reason;
    longjmp(x->skip, 1);
}

int xp_fixed_reg(xp *x, const rv_operand *o)
{
    int r = x->xreg[o->arg];
    if (r < 0) xp_skip(x, "register", "fixed(%s) is no x86-64 general register", x->f->mach->regs.data[o->arg].name);
    return r;
}

/* The machine's registers as x86 ones; the function's shape. */
static void check(xp *x)
{
    const ravel_func *f = x->f;
    const ravel_machine *m = f->mach;
    x->xreg = rv_xcalloc(m->regs.len ? m->regs.len : 1, 1);
    for (uint32_t i = 0; i < m->regs.len; i++) x->xreg[i] = (int8_t)xr_find(m->regs.data[i].name);
    if (m->classes.len != 1) xp_skip(x, "register", "%u register classes (x86-64's general registers are one)", m->classes.len);
    for (uint32_t i = 0; i < f->ops.len; i++)
        if (f->ops.data[i].loc != RAVEL_LOC_NONE) xp_skip(x, "allocated", "an operand has a location");
    for (uint32_t b = 0; b < f->blocks.len; b++) {
        const rv_inst *t = rv_block_term(f, &f->blocks.data[b]);
        for (uint32_t k = 0; k < rv_inst_nsuccs(t); k++)
            if (rv_inst_succs(f, t)[k].block == 0) xp_skip(x, "entry-loop", "%s branches to the entry block", rv_block_name(f, b));
    }
}

static void number_blocks(xp *x)
{
    const ravel_func *f = x->f;
    x->mbb = rv_xcalloc(f->blocks.len + 1, sizeof *x->mbb);
    uint32_t m = 0;
    for (uint32_t b = 0; b < f->blocks.len; b++) {
        x->mbb[b] = m;
        m += xp_block_mbbs(f, b);
    }
    x->mbb[f->blocks.len] = m;
    for (uint32_t b = 0; b < f->blocks.len; b++) xp_block_edges(x, b);
    for (uint32_t i = 0; i < x->edges.len; i++)
        for (uint32_t j = 0; j < i; j++)
            if (x->edges.data[i].from_mbb == x->edges.data[j].from_mbb && x->edges.data[i].to_block == x->edges.data[j].to_block)
                xp_skip(x, "duplicate-edge", "%s: two edges to %s", rv_block_name(f, 0), rv_block_name(f, x->edges.data[i].to_block));
}

/* `successors:` of MIR block m: the targets of its branches. */
static void successors(xp *x, uint32_t m)
{
    const char *sep = "    successors: ";
    bool any = false;
    for (uint32_t i = 0; i < x->edges.len; i++) {
        if (x->edges.data[i].from_mbb != m) continue;
        xb_printf(&x->body, "%s%%bb.%" PRIu32, sep, x->mbb[x->edges.data[i].to_block]);
        sep = ", ";
        any = true;
    }
    /* a compare chain's block also falls to the next link */
    for (uint32_t b = 0; b < x->f->blocks.len; b++) {
        uint32_t n = xp_block_mbbs(x->f, b);
        if (n > 1 && m >= x->mbb[b] && m + 1 < x->mbb[b] + n) xb_printf(&x->body, "%s%%bb.%" PRIu32, sep, m + 1), any = true;
    }
    if (any) xb_printf(&x->body, "\n");
}

static void phis(xp *x, uint32_t b)
{
    const rv_block *bl = &x->f->blocks.data[b];
    const uint32_t *p = rv_params_of(x->f, bl);
    for (uint32_t i = 0; i < bl->nparams; i++) {
        xb_printf(&x->body, "    %%%" PRIu32 ":gr64 = PHI", p[i]);
        const char *sep = " ";
        for (uint32_t e = 0; e < x->edges.len; e++) {
            const xedge *ed = &x->edges.data[e];
            if (ed->to_block != b) continue;
            xb_printf(&x->body, "%s%%%" PRIu32 ", %%bb.%" PRIu32, sep, ed->args[i], ed->from_mbb);
            sep = ", ";
        }
        xb_printf(&x->body, "\n");
    }
}

static void body(xp *x)
{
    for (uint32_t b = 0; b < x->f->blocks.len; b++) {
        uint32_t m = x->mbb[b];
        xb_printf(&x->body, "%s  bb.%" PRIu32 ":\n", b ? "\n" : "", m);
        successors(x, m);
        if (b == 0) x->livein_at = x->body.len; /* the liveins go here, known once the block is lowered */
        xb_printf(&x->body, "\n");
        phis(x, b);
        xp_lower_block(x, b);
    }
}

/* A name for LLVM: [A-Za-z0-9_.] kept, anything else `_`. */
static void ident(xbuf *b, const char *s)
{
    for (; *s; s++) {
        char c = *s;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
        xb_printf(b, "%c", ok ? c : '_');
    }
}

static void ir_part(xp *x, xbuf *o, const char *name, const char *source)
{
    xb_printf(o, "# ravel export-mir: SSA x86-64 MIR; run from phi elimination on (ravel import-mir run --ssa)\n"
                 "--- |\n"
                 "  target datalayout = \"e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128\"\n"
                 "  target triple = \"x86_64-pc-linux-gnu\"\n\n  define void @");
    ident(o, name);
    xb_printf(o, "() #0 !dbg !5 {\n    ret void\n  }\n\n");
    for (uint32_t i = 0; i < x->callees.len; i++) {
        if (!strcmp(x->callees.data[i], name)) continue; /* a call of the function itself */
        xb_printf(o, "  declare void @");
        ident(o, x->callees.data[i]);
        xb_printf(o, "()\n");
    }
    xb_printf(o, "\n  attributes #0 = { nounwind \"frame-pointer\"=\"none\" \"target-cpu\"=\"x86-64\" }\n\n"
                 "  !llvm.dbg.cu = !{!0}\n  !llvm.module.flags = !{!3, !4}\n\n"
                 "  !0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: \"ravel export-mir\", "
                 "isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)\n  !1 = !DIFile(filename: \"");
    ident(o, source);
    xb_printf(o, "\", directory: \".\")\n  !2 = !{}\n  !3 = !{i32 7, !\"Dwarf Version\", i32 5}\n"
                 "  !4 = !{i32 2, !\"Debug Info Version\", i32 3}\n  !5 = distinct !DISubprogram(name: \"");
    ident(o, name);
    xb_printf(o, "\", scope: !1, file: !1, line: 1, type: !6, scopeLine: 1, spFlags: DISPFlagDefinition | "
                 "DISPFlagOptimized, unit: !0)\n  !6 = !DISubroutineType(types: !2)\n\n...\n");
}

static void mir_part(xp *x, xbuf *o, const char *name)
{
    xb_printf(o, "---\nname:            ");
    ident(o, name);
    xb_printf(o, "\ntracksRegLiveness: true\n");
    bool any = false;
    for (int r = 0; r < XR_N; r++) any |= x->livein[r] >= 0;
    if (any) xb_printf(o, "liveins:\n");
    for (int r = 0; r < XR_N; r++)
        if (x->livein[r] >= 0) xb_printf(o, "  - { reg: '$%s', virtual-reg: '%%%d' }\n", xr_name[r], x->livein[r]);
    if (x->calls) xb_printf(o, "frameInfo:\n  adjustsStack:    true\n  hasCalls:        true\n");
    xb_printf(o, "body:             |\n");
    xb_printf(o, "%.*s", (int)x->livein_at, x->body.s);
    if (any) {
        const char *sep = "    liveins: ";
        for (int r = 0; r < XR_N; r++)
            if (x->livein[r] >= 0) xb_printf(o, "%s$%s", sep, xr_name[r]), sep = ", ";
        xb_printf(o, "\n");
    }
    xb_printf(o, "%s...\n", x->body.s + x->livein_at);
}

void rvx_export(const ravel_func *f, const char *name, const char *source, rvx_result *r)
{
    memset(r, 0, sizeof *r);
    xp *x = rv_xcalloc(1, sizeof *x);
    x->f = f;
    x->next = f->vregs.len;
    for (int i = 0; i < XR_N; i++) x->livein[i] = -1;
    if (!setjmp(x->skip)) {
        check(x);
        number_blocks(x);
        body(x);
        xbuf o = {0};
        ir_part(x, &o, name, source);
        mir_part(x, &o, name);
        r->text = o.s;
        r->len = o.len;
    } else {
        r->reason = x->reason;
        snprintf(r->msg, sizeof r->msg, "%s", x->msg);
    }
    xb_free(&x->body);
    rv_free(x->mbb);
    rv_free(x->xreg);
    rv_vec_free(x->edges);
    rv_vec_free(x->callees);
    rv_free(x);
}

void rvx_result_free(rvx_result *r)
{
    rv_free(r->text);
    memset(r, 0, sizeof *r);
}
