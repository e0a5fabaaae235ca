/*
 * export.h - ravel_export: a function of the `.ra` format (ravel's
 * generator's output, or any SSA function on the x86-64 machine below)
 * written as x86-64 MIR over virtual registers, in SSA, for llc to run from
 * phi elimination to the register allocator and its rewriter
 * (docs/import.md, "Exporting ravel's functions as MIR"). No LLVM headers:
 * the output is text.
 *
 * Requires: a function that passes ravel_validate (SSA), on a machine whose
 * registers are x86-64 general registers by their 64-bit names
 * (rvx_x86_machine: one class, no reserved register). Guarantees: either
 * MIR text that llc-14, 16 and 19 parse (every value a `gr64` vreg,
 * block parameters as PHIs, `fixed` operands as COPYs to and from
 * physical registers, calls with the Linux regmask `csr_64`), or a
 * skip with a reason from a fixed list (rvx_reasons) and a message; never
 * a guess. Deterministic: the same function gives the same text.
 *
 * Memory: the text is allocated through rv_x* and freed by
 * rvx_result_free. No global mutable state.
 */
#ifndef RAVEL_EXPORT_H
#define RAVEL_EXPORT_H

#include "ir/ir.h"

typedef struct rvx_result {
    char *text;          /* the MIR module (one function), NULL when skipped */
    size_t len;
    const char *reason;  /* NULL, or one of rvx_reasons() */
    char msg[256];       /* what was skipped, where (`b3: ...`) */
} rvx_result;

/* The machine block (`.ra` text) of the x86-64 general registers the
 * exporter reads: the 14 allocatable ones (not rsp, rbp), Linux's
 * caller-saved ones as the default clobbers. `ravel export-mir` generates
 * for it. */
const char *rvx_x86_machine(void);
/* Exports f as the MIR function `name` of a module whose debug info names
 * source (a file name, for the DIFile). */
void rvx_export(const ravel_func *f, const char *name, const char *source, rvx_result *r);
void rvx_result_free(rvx_result *r);
/* The skip reasons, NULL-terminated (for summaries and docs). */
const char *const *rvx_reasons(void);

#endif
