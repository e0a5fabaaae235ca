/* campaign.h - the fuzzing library (ravel_fuzzlib): the one-input oracles
 * behind every fuzz target, and the multi-process campaign of `ravel fuzz`.
 *
 * Pipeline of one input (fuzz_alloc, `ravel fuzz`):
 *
 *   bytes/seed -> generator -> function -> allocator -> checker -> interpreter
 *                                  |                        |     (differential)
 *                   validator --ssa (bytes only)   validator, only on an output
 *                                                  the checker rejected (fuzzlib_alloc.c)
 *
 * Every oracle returns RV_FUZZ_PASS (nothing wrong), RV_FUZZ_SKIP (the input
 * does not apply, e.g. unparseable text for fuzz_parse) or RV_FUZZ_BUG; on
 * RV_FUZZ_BUG the context holds a complete reproducer: a `.ra` text whose
 * comment header names the target, allocator, seed and verdict (with the
 * checker's report), followed by the machine and the function (the wrong
 * allocation when there is one, else the unallocated function). The fuzz
 * harnesses print it and abort(); the campaign writes it to a file;
 * rv_fuzz_replay_ra() turns such a file back into a regression test.
 *
 * No global state: one rv_fuzz per thread/process holds the reusable checker.
 */
#ifndef RAVEL_FUZZ_CAMPAIGN_H
#define RAVEL_FUZZ_CAMPAIGN_H

#include "allocator/alloc.h"
#include "inject/inject.h"
#include "fuzz/gen.h"
#include "ir/ir.h"

#include <signal.h>

enum { RV_FUZZ_PASS = 0, RV_FUZZ_BUG = 1, RV_FUZZ_SKIP = 2 };

typedef enum rv_fuzz_target {
    RV_FT_ALLOC,        /* generate -> allocate -> validate -> check */
    RV_FT_DIFFERENTIAL, /* the same plus rv_interp_compare on several inputs */
    RV_FT_PARSE,        /* parse -> print -> parse -> print is a fixpoint */
    RV_FT_MOVES,        /* the parallel-move resolver, simulated concretely */
    RV_FT_ORACLE,       /* corrupt a correct allocation: checker accepts => interpreter agrees */
    RV_FT_COUNT_
} rv_fuzz_target;

/* Phases of one execution, timed when rv_fuzz.timing is set (bench_fuzz). */
typedef enum rv_fuzz_phase {
    RV_PH_GENERATE, /* bytes -> function (rv_fuzz_bytes) */
    RV_PH_VALIDATE, /* the validator: the generated function (SSA), an output the checker rejected */
    RV_PH_ALLOCATE, /* the allocator */
    RV_PH_CHECK,    /* the checker */
    RV_PH_COUNT_
} rv_fuzz_phase;

enum { /* rv_fuzz_alloc flags */
    RV_FUZZ_DIFF = 1u,  /* also compare the interpreter on both forms */
    RV_FUZZ_ORACLE = 2u, /* then, if all passed, the checker oracle on the same allocation
                            (rv_fuzz_oracle without allocating and checking again); a
                            checker miss returns RV_FUZZ_BUG with oracle_miss set */
    RV_FUZZ_PATHS = 4u,  /* every checker path must give the reference fixpoint's status and
                            report (rv_anycfg_paths_agree) on the allocation, and with
                            RV_FUZZ_ORACLE on each corrupted one; a difference returns
                            RV_FUZZ_BUG with oracle_miss and paths_diff set (a checker bug) */
};

/* Per-kind counters of the checker oracle (rv_fuzz.oracle_kinds[kind][c]).
 * Every draw of a kind is TRIED; it then found NO_SITE, or changed nothing
 * (UNCHANGED), or changed the allocation, which the checker then REJECTED
 * or ACCEPTED; an accepted one the interpreter shows different is also
 * MISSED (a checker bug). tried = no_site + unchanged + rejected + accepted. */
typedef enum rv_oracle_count {
    RV_ORC_TRIED, RV_ORC_NO_SITE, RV_ORC_UNCHANGED, RV_ORC_REJECTED, RV_ORC_ACCEPTED, RV_ORC_MISSED, RV_ORC_COUNT_
} rv_oracle_count;
const char *rv_oracle_count_name(rv_oracle_count c); /* "tried", "no_site", ... */

/* The comparison of RV_FUZZ_PATHS: true when every checker path gives the
 * reference fixpoint's status and report on alloc (orig may be NULL);
 * else msg says where they differ. rv_anycfg_paths_agree is the one used
 * unless a test plants another (rv_fuzz.paths_agree). */
typedef bool (*rv_fuzz_paths_fn)(const ravel_func *alloc, const ravel_func *orig, int *ref_status, char *msg,
                                 size_t msglen);

/* The verdicts on one injected bug (rv_fuzz_mutant). */
typedef struct rv_fuzz_mutant {
    int status;        /* rv_inject's RV_INJ_* */
    bool rejected;     /* the checker rejected the corrupted allocation */
    bool expected;     /* ... with at least one error of a kind the bug should cause */
    bool different;    /* the interpreter (with a moving collector when the machine's gc moves) disagrees
                          with the unallocated function on some input vector */
    char first_kind[32]; /* the checker's first error kind, or "" */
    char what[400];    /* rv_inject's description */
} rv_fuzz_mutant;

typedef struct rv_fuzz {
    ravel_checker *ck;
    rv_injector *inj;     /* the oracle's injections (its draws on one allocation share its analyses) */
    char *repro;          /* the last bug's reproducer text (malloc'd), or NULL */
    size_t repro_len;
    uint64_t step_limit;  /* interpreter step limit (default 20,000) */
    unsigned nvectors;    /* input vectors tried by differential oracles (default 4) */
    rv_gen_opts gen;      /* generator options of the byte entry points */
    bool validate_gen;    /* the byte entry points run ravel_validate (SSA) on every generated
                             function and report an invalid one as a bug. Off by default: the
                             generator's functions are valid by construction (fuzz/gen.h), and
                             the test fuzz.gen_valid validates every function of a large sample
                             of inputs under the byte targets' options instead (issue 32) */
    /* checker-oracle statistics: corrupted allocations the checker rejected,
     * and accepted ones (on which the interpreter then agreed, or a bug) */
    uint64_t oracle_tried, oracle_rejected, oracle_accepted; /* tried: oracle runs (a
                                                                 corruption attempted) */
    bool oracle_miss;     /* rv_fuzz_alloc's RV_FUZZ_BUG was a checker bug, not the allocator's
                             (RV_FUZZ_ORACLE miss, or RV_FUZZ_PATHS difference) */
    bool paths_diff;      /* ... and it was a difference between checker paths (RV_FUZZ_PATHS) */
    bool paths;           /* compare the checker's paths (set by rv_fuzz_alloc from RV_FUZZ_PATHS) */
    rv_fuzz_paths_fn paths_agree; /* the comparison (NULL: rv_anycfg_paths_agree; tests plant one) */
    bool declined;        /* the last rv_fuzz_alloc / rv_fuzz_oracle returned RV_FUZZ_SKIP because the
                             allocator declined the function (RAVEL_EDECLINED: a user's allocator) */
    /* The oracle's corruptions: with probability inject_permille/1000 (default
     * 1000) an execution draws a kind of the catalogue (inject/inject.h)
     * uniformly, or always inject_kind when >= 0 (default -1), up to three
     * times until one changes the allocation; counted in oracle_kinds. */
    unsigned inject_permille;
    int inject_kind;
    uint64_t oracle_kinds[RV_INJ_COUNT_][RV_ORC_COUNT_];
    /* Non-SSA redefinitions: with probability redefine_permille/1000
     * (default 250) an oracle run works on a copy of the allocation in
     * which a vreg is defined again (rv_fuzz_redefine), which the checker
     * must accept; such runs are counted in oracle_redefs. */
    unsigned redefine_permille;
    uint64_t oracle_redefs;
    /* With timing set, the oracles add each phase's CPU time (nanoseconds)
     * to phase_nanos (two clock reads per phase: off by default). */
    bool timing;
    uint64_t phase_nanos[RV_PH_COUNT_];
} rv_fuzz;

rv_fuzz *rv_fuzz_new(void);
void rv_fuzz_free(rv_fuzz *z);
const char *rv_fuzz_target_name(rv_fuzz_target t);   /* "alloc", "parse", ... */
/* Number of allocators in the table; index of one by name (-1 if none). */
size_t rv_fuzz_nallocators(void);
int rv_fuzz_allocator_index(const char *name);

/* Byte entry points (what LLVMFuzzerTestOneInput calls). alloc: index into
 * the table for the allocator targets, or -1 to take it from the first byte
 * (ALLOC, DIFFERENTIAL and ORACLE). Never crashes; returns RV_FUZZ_*. */
int rv_fuzz_bytes(rv_fuzz *z, rv_fuzz_target t, int alloc, const uint8_t *data, size_t size);
/* The same with allocator a (any: the table's, a user's callback, an
 * external command) for ALLOC, DIFFERENTIAL and ORACLE (else RV_FUZZ_SKIP):
 * ALL the bytes make the function (rv_gen_from_bytes with z->gen) and
 * rv_hash_bytes(data, size) is the allocator's seed, the mapping of the
 * fuzzing kit (fuzz/kit.c) and of `ravel reduce --from-fuzz kit`.
 * A decline: RV_FUZZ_SKIP with z->declined set. */
int rv_fuzz_bytes_alloc(rv_fuzz *z, rv_fuzz_target t, const rv_allocator *a, const uint8_t *data, size_t size);

/* Grows z's reused checker scratch before an engine starts (fuzz_harness.h):
 * runs target t's checks on nfuncs of the largest functions z->gen allows,
 * with allocator alloc (or every one if alloc < 0), so that an execution's
 * paths do not depend on the executions before it. Leaves no reproducer
 * and no oracle counts behind. */
void rv_fuzz_warm_up(rv_fuzz *z, rv_fuzz_target t, int alloc, unsigned nfuncs);
/* The same with allocator a alone (the kit's callback), through
 * rv_fuzz_bytes_alloc; leaves z->declined clear. */
void rv_fuzz_warm_up_alloc(rv_fuzz *z, rv_fuzz_target t, const rv_allocator *a, unsigned nfuncs);
/* nfuncs of the fuzz targets' warm-up (fuzz/fuzz_harness.h) */
#define RV_FUZZ_WARM_UP_FUNCS 8u

/* The oracles on a given function (f unallocated, valid SSA). seed drives
 * the allocator's random choices and the interpreter's input vectors. */
int rv_fuzz_alloc(rv_fuzz *z, const ravel_func *f, const rv_allocator *a, uint64_t seed, unsigned flags);

/* Writes the unallocated form of f (its allocation stripped) as "#| "
 * comment lines, preceded by the line telling how to extract it
 * (sed -n 's/^#| //p' FILE): the reproducers' header, shared with the
 * reducer. */
void rv_fuzz_put_unallocated(FILE *fp, const ravel_func *f);
/* The reproducer's lines before the function f of its body: for an
 * allocated f, rv_fuzz_put_unallocated and how to see the checker's verdict
 * again; for an unallocated one, how to reproduce. With a built-in
 * allocator (a NULL or a->run), ravel check THIS_FILE / ravel alloc -a and
 * ravel_replay; with any other (an external command, the kit's callback:
 * ravel_replay skips or cannot run them) ravel check --orig only (the way
 * to rerun the allocator is the caller's: rv_ext_annotate, the kit). */
void rv_fuzz_put_how(FILE *fp, const ravel_func *f, const rv_allocator *a);
int rv_fuzz_oracle(rv_fuzz *z, const ravel_func *f, const rv_allocator *a, uint64_t seed);
int rv_fuzz_parse(rv_fuzz *z, const uint8_t *data, size_t size);
/* One injected bug, judged in full: copies alloc (an allocation of f the
 * checker accepts), injects kind k from seed, and, when it changed, checks
 * the result against f (with the report, for m->expected) and always runs
 * the interpreter on both forms (m->different), whatever the verdict.
 * For measuring (bench_mutation, tests); the oracle runs the interpreter
 * only on what the checker accepted. A miss (different, yet accepted)
 * leaves its reproducer in z->repro, as the oracle does (a may be NULL). */
void rv_fuzz_mutant_judge(rv_fuzz *z, const ravel_func *f, const ravel_func *alloc, const rv_allocator *a,
                          rv_inject_kind k, uint64_t seed, rv_fuzz_mutant *m);
int rv_fuzz_moves(rv_fuzz *z, const uint8_t *data, size_t size);
/* Non-SSA redefinitions (fuzzlib_redef.c): copies *f2, *out2 of f (SSA,
 * unallocated) and of out (an allocation of it) in which a vreg w is
 * renamed to another v of its type that is dead wherever w lives (both
 * defined in one block, every use of v before w's def): both forms compute
 * what they did, out2 is as correct for f2 as out was for f, and v is
 * defined twice. False (nothing made) when f has no such pair; draws from
 * seed only. */
bool rv_fuzz_redefine(const ravel_func *f, const ravel_func *out, uint64_t seed, ravel_func **f2, ravel_func **out2);

/* Replays a reproducer (`.ra` text, reproducers/NAME.ra). Header comments:
 *   # allocator: NAME | all     which allocators to re-run (default all)
 *   # expect: reject | accept   for an allocated function: the checker's
 *                               verdict on it as written (default: none)
 * Every function is stripped to its unallocated form, allocated with each
 * named allocator, checked, and compared in the interpreter. Returns
 * RV_FUZZ_PASS, RV_FUZZ_BUG (z->repro says why) or RV_FUZZ_SKIP (the file
 * does not parse or validate, or is an external allocator's reproducer,
 * `# alloc-cmd: CMD`, which is not replayed against the built-in ones:
 * reported in z->repro too; ravel_replay skips the latter). */
int rv_fuzz_replay_ra(rv_fuzz *z, const char *text, size_t len, const char *name);
/* Finds "# KEY: VALUE" among the comment lines of a reproducer; copies the
 * first word of VALUE into out. Also used for `# status: open` (a recorded
 * bug not fixed yet: the replay reports it without failing). */
bool rv_fuzz_header(const char *text, size_t len, const char *key, char *out, size_t outlen);

/* ---- the campaign (`ravel fuzz`) ------------------------------------------ */
#define RV_CAMPAIGN_MAX_ALLOCS 32

/* External allocators of a campaign (fuzz/extalloc.h, docs/protocol.md):
 * each command is an allocator of the campaign, named cmd1, cmd2, ... in the
 * summary (the JSON holds the command). With commands and no `allocator`,
 * only the commands run; with `allocator` too, both. Each is probed once in
 * the parent before the workers start: a command that cannot run at all
 * (not found, not executable, no output) is a bad option (return 2). */
typedef struct rv_campaign_ext {
    const char *const *cmds;
    unsigned ncmds;
    int protocol;             /* RV_EXT_ONESHOT (0, the default) or RV_EXT_FRAMES */
    double timeout;           /* seconds per function (<= 0: 10); the stall timeout is
                                 raised above it */
} rv_campaign_ext;

typedef struct rv_campaign_opts {
    uint64_t seed;            /* iteration i uses the function of seed rv_campaign_iter_seed(seed, i) */
    uint64_t count;           /* iterations to run; 0 = run for `seconds` */
    double seconds;           /* time budget when count == 0 */
    unsigned jobs;            /* worker processes (0 = number of online CPUs) */
    const char *allocator;    /* NULL = every allocator of the table */
    const rv_allocator *table; /* NULL = rv_allocators (tests plant broken ones) */
    bool differential;        /* also run the interpreter on both forms */
    bool oracle;              /* also fuzz the checker: corrupt each accepted allocation
                                 (rv_fuzz_oracle); misses are failures too */
    bool paths;               /* also compare every checker path with the reference fixpoint
                                 on each allocation (and corruption); differences are failures */
    rv_fuzz_paths_fn paths_agree; /* --paths: the comparison (NULL: rv_anycfg_paths_agree; tests
                                     plant one that disagrees) */
    int inject_kind;          /* --oracle: only this kind of inject/inject.h (-1, the default: all) */
    unsigned inject_permille; /* --oracle: chance in 1000 that an allocation is corrupted (default 1000) */
    const char *outdir;       /* failing cases go here (created if missing) */
    unsigned max_files;       /* failure files per allocator (default 20); which ones are
                                 written first depends on timing when jobs > 1 */
    rv_gen_opts gen;          /* generator knobs */
    double stall_seconds;     /* a worker that reports no progress (no new iteration or
                                 allocator) for this long is taken as hung: it is killed,
                                 its case recorded as a failure with a reproducer, and a
                                 new worker goes on after it (default 60; <= 0: default) */
    rv_campaign_ext ext;      /* external allocators (below) */
    FILE *progress;           /* progress line and failure notes (NULL = silent) */
    bool tty;                 /* progress is a terminal: redraw one line with \r */
    volatile sig_atomic_t *interrupt; /* set by the caller's SIGINT handler, or NULL */
} rv_campaign_opts;

typedef struct rv_campaign_stats { /* per allocator */
    uint64_t funcs, insts, fails;
    uint64_t declined; /* functions the allocator declined (RAVEL_EDECLINED: counted in funcs,
                          not failures) */
    uint64_t nanos; /* CPU time spent allocating + checking, summed over workers */
    uint64_t misses; /* --oracle: corrupted allocations the checker wrongly accepted */
    /* --oracle: the oracle's work: corruptions tried, those the checker rejected, and
     * those it accepted (the interpreter then agreed, or a miss): "0 misses" with 0
     * tried is an idle oracle */
    uint64_t oracle_tried, oracle_rejected, oracle_accepted;
    uint64_t pathdiffs; /* --paths: allocations on which a checker path differed from the reference */
} rv_campaign_stats;

typedef struct rv_campaign_result {
    unsigned nalloc;
    const char *names[RV_CAMPAIGN_MAX_ALLOCS];
    const char *cmds[RV_CAMPAIGN_MAX_ALLOCS]; /* an external allocator's command (o->ext.cmds), else NULL */
    int alloc_protocol;  /* of the commands */
    rv_campaign_stats per[RV_CAMPAIGN_MAX_ALLOCS];
    uint64_t iters;      /* generated functions */
    uint64_t gen_nanos;  /* CPU time spent generating */
    uint64_t crashes;    /* workers that died (counted as failures too) */
    double seconds;      /* wall time */
    unsigned jobs;
    bool interrupted;
    bool oracle;         /* the campaign ran the checker oracle */
    bool paths;          /* the campaign compared the checker's paths (--paths) */
    uint64_t kinds[RV_INJ_COUNT_][RV_ORC_COUNT_]; /* --oracle: per injected kind (rv_oracle_count) */
    uint64_t seed;       /* the campaign seed */
} rv_campaign_result;

void rv_campaign_opts_default(rv_campaign_opts *o);
uint64_t rv_campaign_iter_seed(uint64_t seed, uint64_t i);
/* Runs the campaign. Returns 0 (no failure), 1 (failures) or 2 (bad
 * options: unknown allocator, cannot create outdir, cannot fork), with a
 * message on o->progress (or stderr). */
int rv_campaign_run(const rv_campaign_opts *o, rv_campaign_result *r);
void rv_campaign_print_summary(FILE *out, const rv_campaign_result *r);
/* The same figures as one JSON object and a newline (`ravel fuzz --json`;
 * fields in the README). outdir: where failing cases went (may be NULL). */
void rv_campaign_print_json(FILE *out, const rv_campaign_result *r, const char *outdir);

#endif
