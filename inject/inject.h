/* inject.h - bug injection: corrupt a correct allocation with one realistic
 * register-allocator bug, to measure the checker kind by kind (mutation
 * testing of the checker; docs/checker.md "Mutation table").
 *
 * rv_inject works on an allocated function (the output of any allocator,
 * allocator/out.c) and edits it in place: operand locations, edits
 * (spill/reload/move instructions) and stackmaps. It never touches the
 * original instructions, so the result still matches the unallocated
 * function (`ravel check --orig` compares them). Each kind is modelled on a
 * bug real allocators have had; its site is picked among all the sites of
 * the function, uniformly from the seed (deterministic).
 *
 * To find realistic sites, injection reads two analyses of the allocated
 * function: which vreg each location holds before every instruction (the
 * checker's reference fixpoint, inject/hold.h; copies left behind by a
 * redefinition are tracked on top as "stale") and which vregs are live
 * after every instruction (ir/analysis.h).
 */
#ifndef RAVEL_INJECT_H
#define RAVEL_INJECT_H

#include "ir/ir.h"

/* The kinds, in the order of inject/kinds.def (the one table of the
 * catalogue: names, summaries, expected errors, families, functions). */
typedef enum rv_inject_kind {
#define RV_INJ_KIND(ID, ...) RV_INJ_##ID,
#define RV_INJ_RAND(ID, ...) RV_INJ_##ID,
#include "inject/kinds.def"
    RV_INJ_COUNT_
} rv_inject_kind;

enum { /* rv_inject_info.flags */
    RV_INJF_RULE = 1,    /* breaks a constraint rule of section 6: the interpreter may not see it */
    RV_INJF_GC = 2,      /* a stackmap/safepoint bug: visible to the interpreter only with the
                            moving-collector model (and to the checker by the safepoint rule) */
    RV_INJF_GENERIC = 4, /* a random corruption, not modelled on one bug */
};

typedef struct rv_inject_info {
    const char *name;    /* "use-reg", ... (ravel alloc --inject NAME) */
    const char *summary; /* one line */
    const char *expect;  /* the checker error kinds it should cause, space-separated ("*": any) */
    unsigned flags;      /* RV_INJF_* */
    const char *family;  /* "values", "constraints", "gc", "cfg", "ext" or "generic" (inject/FAMILY.c) */
} rv_inject_info;

const rv_inject_info *rv_inject_info_of(rv_inject_kind k);
/* The kind named name, or -1. */
int rv_inject_find(const char *name);
/* True if the error kind `kind` (a checker error kind name) is one of k's expected kinds. */
bool rv_inject_expected(rv_inject_kind k, const char *kind);

enum { /* rv_inject_result.status */
    RV_INJ_NO_SITE = 0,   /* the function has no site for this kind: unchanged */
    RV_INJ_UNCHANGED = 1, /* a site was found, but the edit left the function as it was */
    RV_INJ_CHANGED = 2,   /* the function was corrupted */
};

typedef struct rv_inject_result {
    int status;
    uint32_t inst;    /* the instruction changed (index in the corrupted function), or RAVEL_NONE */
    char what[400];   /* what was done, e.g. "block b2 inst 7: use 0 of v3 read from r4 instead of r1" */
} rv_inject_result;

/* Requires: f allocated, valid (ravel_validate) and finished; no other
 * assumption (a wrong allocation is a fine input). Applies kind k at one
 * site drawn from seed; res->status says whether it applied and changed f
 * (decided by comparing f with a copy, never by the kind's own claim).
 * Returns res->status. Never fails on valid input; the function stays
 * structurally well formed (it may break the section-6 rules, which is the
 * point). */
int rv_inject(ravel_func *f, rv_inject_kind k, uint64_t seed, rv_inject_result *res);

/* Several injections into one allocation (the oracle's draws, the
 * mutation table's kinds): rv_inject_with gives what rv_inject gives, byte
 * for byte, but keeps the analyses of the function (its CFG, liveness,
 * the reference's states) for the next call while the function is
 * unchanged (compared with a copy on every call: any function may be
 * passed, a changed or another one is analysed anew), and reuses the
 * reference's checker. Not shared between threads. */
typedef struct rv_injector rv_injector;
rv_injector *rv_injector_new(void);
void rv_injector_free(rv_injector *ij);
/* Drops the analyses kept (the checker's scratch stays): the next call
 * starts as on a new injector, e.g. at each execution of a fuzz target, so
 * that an input run twice takes the same paths. */
void rv_injector_forget(rv_injector *ij);
int rv_inject_with(rv_injector *ij, ravel_func *f, rv_inject_kind k, uint64_t seed, rv_inject_result *res);
/* Tests: the injector's analyses run their plain forms, without the
 * shortcuts that make them cheaper (the same sites, the same results:
 * tests/inject compare the two on generated functions). */
void rv_injector_set_plain(rv_injector *ij, bool plain);

#endif
