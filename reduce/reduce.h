/*
 * reduce.h - the test-case reducer behind `ravel reduce` (library ravel_reduce).
 *
 * Pipeline (reduce.c drives it):
 *
 *   input func --rd_from_func--> rd_func (a structured, editable copy)
 *        passes (rd_pass_*.c) edit clones of the rd_func, ddmin-style chunks
 *        candidate --rd_build--> ravel_func --print--> text --parse--> func
 *        --validate--> oracle (rd_oracle.c): still interesting?  accept/reject
 *
 * Every candidate goes through the printer and the reader, so what is tested
 * is exactly the canonical text the reducer writes, and it is valid `.ra`
 * (the validator, with SSA when the property needs an allocator) before the
 * property is tested. Results are cached by the hash of that text.
 *
 * The property ("interesting") is one of:
 *   RV_RD_CHECK    an allocated function the checker rejects (error kind kept,
 *                  see rv_rd_keep), or with `compare` one that the
 *                  interpreter shows differs from its unallocated form;
 *   RV_RD_ALLOC    an unallocated function on which an allocator fails the
 *                  fuzz harness's oracle (rv_fuzz_alloc / rv_fuzz_oracle:
 *                  wrong allocation, failure, crash, hang), or with `compare`
 *                  whose allocation differs under `run --compare`; run in a
 *                  worker process, so a crashing allocator is a result;
 *   RV_RD_COMMAND  a shell command on the candidate file exits 0.
 * The outcome class of the input (and the error kind) must be kept.
 *
 * Deterministic: the same input and options give the same output (unless the
 * time budget cuts the search). No global state; never calls exit() (only
 * the forked worker ends with _exit). RV_RD_ALLOC, RV_RD_COMMAND and the
 * replay of reproducer candidates fork: call rv_reduce from a process with
 * one thread (the CLI, a test), as for any fork without exec.
 */
#ifndef RAVEL_REDUCE_H
#define RAVEL_REDUCE_H

#include "allocator/alloc.h"
#include "fuzz/campaign.h"
#include "ir/ir.h"

typedef enum rv_rd_mode { RV_RD_CHECK, RV_RD_ALLOC, RV_RD_COMMAND } rv_rd_mode;

/* What must stay the same as in the input, for checker rejections. */
typedef enum rv_rd_keep {
    RV_KEEP_KIND,  /* some error of the candidate has the kind of the input's first error (default) */
    RV_KEEP_ANY,   /* any rejection (any failure, in RV_RD_ALLOC) */
    RV_KEEP_FIRST, /* the candidate's first error has the kind of the input's first error */
} rv_rd_keep;

typedef struct rv_reduce_opts {
    rv_rd_mode mode;
    rv_rd_keep keep;
    bool compare;                 /* CHECK/ALLOC: the interpreter shows a difference */
    uint64_t inputs;              /* input vectors for compare (default 100) */
    bool moving_gc;               /* compare with the moving collector at safepoints (run --moving-gc) */
    const rv_allocator *alloc;    /* ALLOC: the allocator (tests may pass a planted one) */
    uint64_t seed;                /* ALLOC: the allocator's seed, and compare's input seed */
    rv_fuzz_target target;        /* ALLOC: RV_FT_ALLOC, RV_FT_DIFFERENTIAL or RV_FT_ORACLE */
    const char *command;          /* COMMAND: sh command; {} is the candidate path, else appended */
    double seconds;               /* time budget (0 = none) */
    double test_timeout;          /* per test in the worker or command process (default 10 s) */
    bool progress;                /* progress line on progress_out */
    FILE *progress_out;           /* default stderr */
    bool status_open;             /* add `# status: open` to the header */
} rv_reduce_opts;

void rv_reduce_opts_default(rv_reduce_opts *o);

typedef struct rv_reduce_stats {
    uint32_t lines_before, lines_after;   /* of the printed function (machine + func) */
    uint32_t insts_before, insts_after;   /* instructions, edits and terminators included */
    uint64_t tests;                       /* properties tested (valid candidates) */
    uint64_t invalid;                     /* candidates the validator rejected */
    uint64_t cache_hits;
    uint64_t rounds;                      /* fixpoint rounds over all passes */
    double seconds;
    bool timed_out;
} rv_reduce_stats;

/* Reduces f (one function of a parsed module; allocated for RV_RD_CHECK).
 * header: the input file's text (its `# key: value` header lines are kept),
 * or NULL. On RAVEL_OK, *out is the reduced reproducer text (malloc'd,
 * NUL-terminated). Returns RAVEL_EFAIL when the input itself does not have
 * the property (then *err says why), RAVEL_EINVAL on bad input or options
 * (*err says why; malloc'd). */
int rv_reduce(const ravel_func *f, const char *header, size_t header_len, const rv_reduce_opts *o, char **out,
              rv_reduce_stats *st, char **err);

/* Prints "ravel reduce: L -> L' lines, I -> I' instructions (P%), T tests, ..." */
void rv_reduce_print_summary(FILE *fp, const rv_reduce_stats *st);

#endif
