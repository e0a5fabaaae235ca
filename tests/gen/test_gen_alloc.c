/* test_gen_alloc.c - smoke check of generated functions against every
 * allocator in the table: each allocation must pass the checker and run
 * like the original (rv_interp_compare). Prints a table per allocator;
 * on a failure prints the seed (reproduce: ravel gen --seed S | ravel alloc
 * -a NAME | ravel check) and the checker's report.
 * Usage: test_gen_alloc [COUNT [MAX_INSTS [irreducible]]]; with
 * "irreducible", only the functions of seeds 0..COUNT-1 that have an
 * irreducible cycle (rv_gen_opts.cfg any) are allocated, on machines of
 * 1-4 registers per class. Exit 1 on any
 * checker rejection, any comparison difference, or an allocator refusing a
 * generated function (all of them promise to allocate any valid SSA
 * function). The comparison runs whatever the checker said: it is the
 * independent oracle on shapes the checker may get wrong. */
#include "fuzz/gen.h"

#include <stdlib.h>
#include <string.h>

typedef struct tally { unsigned ok, refused, rejected, differs, declined; } tally;

static void report_failure(const char *name, uint64_t seed, const char *what, const ravel_func *alloc, ravel_report *rep)
{
    fprintf(stderr, "%s: seed %llu: %s\n", name, (unsigned long long)seed, what);
    if (rep) ravel_report_print(stderr, rep);
    if (alloc && getenv("RAVEL_GEN_DUMP")) ravel_print_func(stderr, alloc);
}

/* Allocates one function with one allocator and judges the result. */
static void one(const char *name, uint64_t seed, const ravel_func *f, ravel_checker *ck, tally *t)
{
    ravel_func *out = NULL;
    char *err = NULL;
    int rc = ravel_allocate(name, f, seed, &out, &err);
    if (rc == RAVEL_EDECLINED) { /* an aliased machine this allocator does not handle: counted */
        t->declined++;
        free(err);
        return;
    }
    if (rc != RAVEL_OK) {
        if (t->refused++ < 3) report_failure(name, seed, err ? err : "refused", NULL, NULL);
        free(err);
        return;
    }
    ravel_report *rep = NULL;
    int st = ravel_check(ck, out, f, &rep);
    if (st != RAVEL_OK && t->rejected++ < 3) report_failure(name, seed, "checker rejects the allocation", out, rep);
    uint64_t in[3] = {seed, 3, 0xfffffffffffffff0ULL};
    rv_run_opts ro = {in, 3, 2000000, true, false, 0};
    char msg[256];
    bool same = rv_interp_compare(f, out, &ro, msg, sizeof msg);
    if (!same && t->differs++ < 3) report_failure(name, seed, msg, out, NULL);
    t->ok += st == RAVEL_OK && same;
    ravel_report_free(rep);
    ravel_func_free(out);
}

/* f has a retreating edge whose target does not dominate its source. */
static bool irreducible(const ravel_func *f)
{
    rv_cfg c;
    rv_cfg_build(&c, f);
    bool found = false;
    for (uint32_t u = 0; u < c.nblocks && !found; u++)
        for (uint32_t e = c.succ_start[u]; e < c.succ_start[u + 1] && c.rpo_index[u] != RAVEL_NONE; e++) {
            uint32_t v = c.succ[e];
            if (c.rpo_index[v] <= c.rpo_index[u] && !rv_cfg_dominates(&c, v, u)) found = true;
        }
    rv_cfg_free(&c);
    return found;
}

int main(int argc, char **argv)
{
    uint64_t count = argc > 1 ? strtoull(argv[1], NULL, 0) : 300;
    rv_gen_opts o;
    rv_gen_opts_default(&o);
    if (argc > 2) o.max_insts = (uint32_t)strtoul(argv[2], NULL, 0);
    bool only_irred = argc > 3 && strcmp(argv[3], "irreducible") == 0;
    if (only_irred) o.max_regs = 4; /* small machines: spills and reloads across the cycles */
    ravel_checker *ck = ravel_checker_new();
    int bad = 0;
    for (size_t a = 0; ravel_allocator_name(a); a++) {
        const char *name = ravel_allocator_name(a);
        tally t = {0, 0, 0, 0, 0};
        unsigned nirred = 0;
        for (uint64_t seed = 0; seed < count; seed++) {
            ravel_module *mod = rv_gen_from_seed(seed, &o);
            bool irred = irreducible(mod->funcs.data[0]);
            nirred += irred;
            if (irred || !only_irred) one(name, seed, mod->funcs.data[0], ck, &t);
            ravel_module_free(mod);
        }
        printf("%-10s ok %u  refused %u  checker-rejected %u  run-differs %u  declined %u  (%u irreducible)\n", name,
               t.ok, t.refused, t.rejected, t.differs, t.declined, nirred);
        if (t.refused || t.rejected || t.differs) bad = 1;
        if (only_irred && nirred < count / 5) bad = 1; /* the irreducible run must not be vacuous */
    }
    ravel_checker_free(ck);
    return bad;
}
