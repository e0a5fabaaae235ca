/* bench_check.c - the symbolic checker's cost on generated allocated
 * functions of 10^3 .. 10^6 instructions (rv_gen_from_seed: 16 registers
 * per class, blocks growing with the size, nested loops, calls), allocated
 * by every allocator of the table; for each size:
 *   - allocation time of each allocator (CPU, median of --runs runs),
 *   - checker time on the fastest allocator's output, ns per instruction
 *     (per instruction of the allocated function and per original one),
 *   - the ratio checker / fastest allocator, also without ravel_validate
 *     (RAVEL_CHECK_NO_VALIDATE: the validator's share is not the checker's),
 *   - the checker context's peak scratch memory, bytes per instruction.
 * Realistic pressure: a use drawn for pressure picks among the 32 newest
 * values of its type in scope (rv_gen_opts.window), so that tens of values
 * are live at once at every size; --window 0 lifts that (any value in
 * scope: thousands live at 10^5, and with --safepoints every stackmap lists
 * thousands of references, so the input grows as safepoints x live refs).
 * The last columns: an irreducible function of the same size (the
 * generator's arbitrary control flow, --cfg any, with the row's options:
 * the first seed whose CFG has an irreducible cycle, allocated by `fast`),
 * its check time per instruction and the ratio of that to the reducible
 * function's (the aim: within 2x).
 * --alias adds a column: the same allocation on its machine with a wide
 * reserved register declared around each register (docs/format.md section
 * 14: every write also empties the wide one), its check time per
 * instruction and the ratio to the plain machine's (the aim: within 1.5x).
 * Usage: bench_check [--runs N] [--min N] [--max N] [--check-runs N] [--window N]
 *                    [--safepoints] [--quick] [--small] [--alias]
 * (--small: per-call costs on many small functions, see bench_small;
 * with --min/--max only the sizes 50, 250, 1000 between them)
 * Run it from a Release build; --quick is the smoke run used as a test. */
#define _POSIX_C_SOURCE 200809L
#include "allocator/alloc.h"
#include "checker/ck.h"
#include "fuzz/gen.h"

#include "bench/bench_util.h"
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define MAX_ALLOCS 16

/* Median allocation time of allocator a on f; *out receives one result. */
static double time_alloc(uint32_t a, const ravel_func *f, int runs, ravel_func **out)
{
    double t[64];
    int r;
    *out = NULL;
    for (r = 0; r < runs && r < 64; r++) {
        rv_alloc_opts ao = {1, false, NULL};
        char *err = NULL;
        double t0 = bench_cpu_sec();
        ravel_func *g = rv_allocators[a].run(f, &ao, &err);
        t[r] = bench_cpu_sec() - t0;
        free(err);
        if (!g) return -1;
        if (*out) ravel_func_free(g);
        else *out = g;
        if (t[r] > 20) {
            r++;
            break;
        }
    }
    return bench_median(t, r);
}

static double time_check(ravel_checker *ck, const ravel_func *g, int runs, int *verdict, unsigned opts)
{
    ravel_checker_set_options(ck, opts);
    double t[64];
    int r;
    for (r = 0; r < runs && r < 64; r++) {
        double t0 = bench_cpu_sec();
        *verdict = ravel_check(ck, g, NULL, NULL);
        t[r] = bench_cpu_sec() - t0;
    }
    return bench_median(t, r);
}

static uint32_t count_slots(const ravel_func *g)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->insts.len; i++)
        if (rv_is_edit(&g->insts.data[i])) {
            ravel_loc l = ravel_loc_is_slot(g->insts.data[i].u.edit.dst) ? g->insts.data[i].u.edit.dst : g->insts.data[i].u.edit.src;
            if (ravel_loc_is_slot(l) && ravel_loc_slot(l) + 1 > n) n = ravel_loc_slot(l) + 1;
        }
    return n > g->nslots ? n : g->nslots;
}

/* An irreducible function of the row's size: the generator's arbitrary
 * control flow (RV_GEN_CFG_ANY) with the row's options, the first seed
 * whose CFG has an irreducible cycle, allocated by `fast` (correct, as
 * the reducible row's function); the median time of checking it. *ninsts
 * its allocated size, *verdict the status; -1 if no seed gives one. */
static double irreducible_check(ravel_checker *ck, const rv_gen_opts *row, uint32_t size, int runs, uint32_t *ninsts,
                                int *verdict)
{
    rv_gen_opts o = *row;
    o.cfg = RV_GEN_CFG_ANY;
    *ninsts = 0;
    for (uint64_t seed = 7ull * size; seed < 7ull * size + 64; seed++) {
        ravel_module *m = rv_gen_from_seed(seed, &o);
        ravel_func *g = NULL;
        bool irr = false;
        if (ravel_allocate("fast", ravel_module_func(m, 0), 1, &g, NULL) == RAVEL_OK && g) {
            ravel_checker_set_options(ck, 0);
            ravel_check(ck, g, NULL, NULL);
            for (uint32_t b = 0; b < ck->nblocks && !irr; b++) irr = ck->cfg.retreat.data[b] != 0;
        }
        if (!irr) {
            ravel_func_free(g);
            ravel_module_free(m); /* (after g: g uses m's machine) */
            continue;
        }
        *ninsts = g->insts.len;
        double t = time_check(ck, g, runs, verdict, 0);
        if (*verdict == RAVEL_OK && !ck->vn_proven) *verdict = -1; /* (left to the reference: shown) */
        ravel_func_free(g);
        ravel_module_free(m);
        return t;
    }
    return -1;
}

/* --small: per-call cost of checking many small allocated functions (the
 * fuzz pipeline's regime). For each size, NFUNC functions of about that
 * many original instructions (default generator options otherwise, so
 * safepoints included) are allocated by `fast`; each is checked
 * runs x (4000 / size + 1) times.
 * Prints the mean check time per call and per allocated instruction, with
 * and without the validator, and the mean `fast` allocation time. */
#define SMALL_NFUNC 64
/* m with a reserved register "wR" containing each register R (section 14). */
static ravel_machine *wide_machine(const ravel_machine *m)
{
    ravel_machine *a = ravel_machine_new();
    for (uint32_t c = 0; c < ravel_machine_nclasses(m); c++) ravel_machine_add_class(a, ravel_machine_class_name(m, c));
    uint32_t n = ravel_machine_nregs(m);
    for (uint32_t r = 0; r < n; r++)
        ravel_machine_add_reg(a, ravel_machine_reg_name(m, r), ravel_machine_reg_class(m, r), ravel_machine_reg_reserved(m, r));
    uint32_t cl[256], nc = ravel_machine_nclobbers(m) < 256 ? ravel_machine_nclobbers(m) : 256;
    for (uint32_t i = 0; i < nc; i++) cl[i] = ravel_machine_clobber(m, i);
    ravel_machine_set_clobbers(a, cl, nc);
    ravel_machine_set_gc_moving(a, !m->gc_nonmoving);
    for (uint32_t r = 0; r < n; r++) {
        char name[64];
        snprintf(name, sizeof name, "w%s", ravel_machine_reg_name(m, r));
        int w = ravel_machine_add_reg(a, name, ravel_machine_reg_class(m, r), 1);
        if (w >= 0) ravel_machine_alias(a, (uint32_t)w, r);
    }
    return a;
}

static int bench_small(int runs, uint32_t min, uint32_t max)
{
    static const uint32_t sizes[] = {50, 250, 1000};
    const rv_allocator *fa = rv_allocator_find("fast");
    if (!fa) return 1;
    ravel_checker *ck = ravel_checker_new();
    int bad = 0;
    printf("small functions: %d functions per size, allocated by fast, CPU time per call\n", SMALL_NFUNC);
    printf("%6s %9s %10s %10s %10s %10s %10s %8s\n", "size", "alloc'd", "check us", "ns/inst", "novalid us", "fast us",
           "checks/s", "ratio");
    for (uint32_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        if (sizes[si] < min || sizes[si] > max) continue; /* (--min/--max pick sizes: profiling one) */
        ravel_module *mods[SMALL_NFUNC];
        ravel_func *g[SMALL_NFUNC];
        uint64_t ninst = 0;
        double ta = 0;
        for (uint32_t k = 0; k < SMALL_NFUNC; k++) {
            rv_gen_opts o;
            rv_gen_opts_default(&o);
            o.features = RV_GEN_ALL; /* the figures quoted so far: no section 14 */
            o.cfg = RV_GEN_CFG_STRUCTURED; /* the functions of the figures quoted so far */
            o.max_insts = sizes[si];
            mods[k] = rv_gen_from_seed(1000 * sizes[si] + k, &o);
            rv_alloc_opts ao = {1, false, NULL};
            char *err = NULL;
            double t0 = bench_cpu_sec();
            g[k] = fa->run(ravel_module_func(mods[k], 0), &ao, &err);
            ta += bench_cpu_sec() - t0;
            free(err);
            if (g[k]) ninst += g[k]->insts.len;
        }
        uint32_t reps = (uint32_t)runs * (4000 / sizes[si] + 1);
        double tt[2];
        for (int pass = 0; pass < 2; pass++) {
            ravel_checker_set_options(ck, pass ? RAVEL_CHECK_NO_VALIDATE : 0);
            double t0 = bench_cpu_sec();
            for (uint32_t r = 0; r < reps; r++)
                for (uint32_t k = 0; k < SMALL_NFUNC; k++)
                    if (g[k] && ravel_check(ck, g[k], NULL, NULL) != RAVEL_OK) bad++;
            tt[pass] = (bench_cpu_sec() - t0) / reps;
        }
        double per = tt[0] / SMALL_NFUNC;
        printf("%6u %9.0f %10.2f %10.1f %10.2f %10.2f %10.0f %8.3f\n", sizes[si], (double)ninst / SMALL_NFUNC, per * 1e6,
               tt[0] * 1e9 / (double)ninst, tt[1] / SMALL_NFUNC * 1e6, ta / SMALL_NFUNC * 1e6, 1 / per, tt[0] / ta);
        for (uint32_t k = 0; k < SMALL_NFUNC; k++) {
            ravel_func_free(g[k]);
            ravel_module_free(mods[k]);
        }
    }
    ravel_checker_free(ck);
    return bad != 0;
}

int main(int argc, char **argv)
{
    int runs = 5, check_runs = 0;
    uint32_t max = 1000000, min = 0, window = 32;
    bool safepoints = false, small = false, alias = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--max") == 0 && i + 1 < argc) max = (uint32_t)strtoul(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--min") == 0 && i + 1 < argc) min = (uint32_t)strtoul(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--check-runs") == 0 && i + 1 < argc) check_runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--window") == 0 && i + 1 < argc) window = (uint32_t)strtoul(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--safepoints") == 0) safepoints = true;
        else if (strcmp(argv[i], "--quick") == 0) runs = 1, max = 10000;
        else if (strcmp(argv[i], "--small") == 0) small = true;
        else if (strcmp(argv[i], "--alias") == 0) alias = true;
        else {
            fprintf(stderr, "usage: bench_check [--runs N] [--min N] [--max N] [--check-runs N] [--window N] [--safepoints] [--quick] [--small] [--alias]\n");
            return 2;
        }
    }
    if (runs < 1) runs = 1;
    if (check_runs < 1) check_runs = runs; /* more checks than allocations: profiling the checker */
    if (small) return bench_small(runs, min, max);
    if (min < 1000) min = 1000;
    uint32_t na = 0;
    while (rv_allocators[na].name && na < MAX_ALLOCS) na++;
    printf("checker vs allocators, CPU time, median of %d runs, %s, window %u%s\n", runs,
           safepoints ? "with safepoints" : "no safepoints", window, window ? "" : " (any value in scope)");
    printf("%9s %9s %7s %6s", "orig", "alloc'd", "blocks", "slots");
    for (uint32_t a = 0; a < na; a++) printf(" %9s", rv_allocators[a].name);
    printf(" | %9s %9s %9s %7s %9s %9s %7s  %s | %9s %9s %7s %s\n", "check", "ns/inst", "ns/orig", "ratio", "novalid", "ns/inst", "ratio",
           "B/inst  verdict", "irr insts", "ns/inst", "irr/red", "verdict");
    printf("%9s %9s %7s %6s", "", "insts", "", "");
    for (uint32_t a = 0; a < na; a++) printf(" %9s", "ns/orig");
    printf(" | %9s\n", "ms");
    int bad = 0;
    ravel_checker *ck = ravel_checker_new();
    for (uint32_t size = min; size <= max; size *= 10) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.features = RV_GEN_ALL; /* the figures quoted so far: no section 14 */
        o.cfg = RV_GEN_CFG_STRUCTURED; /* the functions of the figures quoted so far */
        o.max_insts = size;
        o.min_insts = size - size / 10; /* rows of the size they are labelled with */
        o.max_blocks = size / 40 > 24 ? size / 40 : 24;
        o.min_regs = o.max_regs = 16;
        o.window = window;
        if (!safepoints) o.features &= ~(unsigned)RV_GEN_SAFEPOINTS;
        ravel_module *m = rv_gen_from_seed(size, &o);
        const ravel_func *f = ravel_module_func(m, 0);
        uint32_t n = f->insts.len;
        double best = -1;
        ravel_func *fastest = NULL;
        double at[MAX_ALLOCS];
        for (uint32_t a = 0; a < na; a++) {
            ravel_func *g = NULL;
            at[a] = time_alloc(a, f, runs, &g);
            if (g && (best < 0 || at[a] < best)) {
                best = at[a];
                ravel_func_free(fastest);
                fastest = g;
            } else {
                ravel_func_free(g);
            }
        }
        if (!fastest) {
            printf("%9u: every allocator failed\n", n);
            ravel_module_free(m);
            continue;
        }
        uint32_t na_insts = fastest->insts.len;
        printf("%9u %9u %7u %6u", n, na_insts, fastest->layout.len, count_slots(fastest));
        for (uint32_t a = 0; a < na; a++) {
            if (at[a] < 0) printf(" %9s", "failed");
            else printf(" %9.1f", at[a] * 1e9 / n);
        }
        fflush(stdout);
        int verdict = 0;
        double tc = time_check(ck, fastest, check_runs, &verdict, 0);
        int v2 = 0;
        double tn = time_check(ck, fastest, check_runs, &v2, RAVEL_CHECK_NO_VALIDATE);
        size_t mem = ck_memory(ck);
        printf(" | %9.2f %9.1f %9.1f %7.3f %9.2f %9.1f %7.3f %6.1f  %s", tc * 1e3, tc * 1e9 / na_insts, tc * 1e9 / n,
               tc / best, tn * 1e3, tn * 1e9 / na_insts, tn / best, (double)mem / na_insts,
               verdict == RAVEL_OK && v2 == RAVEL_OK ? "verified" : verdict == RAVEL_EFAIL ? "ERRORS" : "bad input");
        fflush(stdout);
        uint32_t irr_n = 0;
        int irr_v = 0;
        double ti = irreducible_check(ck, &o, size, check_runs, &irr_n, &irr_v);
        if (ti < 0 || !irr_n) printf(" | %9s%s", "failed", alias ? "" : "\n");
        else
            printf(" | %9u %9.1f %7.2f %s%s", irr_n, ti * 1e9 / irr_n, (ti * 1e9 / irr_n) / (tc * 1e9 / na_insts),
                   irr_v == RAVEL_OK ? "verified" : irr_v == -1 ? "verified (reference)" : irr_v == RAVEL_EFAIL ? "ERRORS" : "bad input",
                   alias ? "" : "\n");
        if (alias) { /* the same allocation on the wide machine */
            ravel_machine *am = wide_machine(fastest->mach);
            ravel_func *h = rv_func_clone(fastest);
            h->mach = am;
            int va = 0;
            double ta = time_check(ck, h, check_runs, &va, 0);
            printf(" | %9.1f %7.2f %s\n", ta * 1e9 / na_insts, ta / tc, va == RAVEL_OK ? (ck->vn_proven ? "verified" : "verified (reference)") : "ERRORS");
            if (va != RAVEL_OK) bad++;
            ravel_func_free(h);
            ravel_machine_free(am);
        }
        if (ti >= 0 && irr_n && irr_v != RAVEL_OK && irr_v != -1) bad++;
        if (v2 != verdict) bad++;
        if (verdict != RAVEL_OK) bad++;
        ravel_func_free(fastest);
        ravel_module_free(m);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS of the whole process (generator, allocators, checker): %ld MiB\n", ru.ru_maxrss / 1024);
    ravel_checker_free(ck);
    return bad != 0;
}
