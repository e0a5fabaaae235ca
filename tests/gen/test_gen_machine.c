/* test_gen_machine.c - the generator on a given machine (rv_gen_opts.machine):
 * for each machine file on the command line, COUNT seeds and COUNT random
 * byte strings (all features, and a few feature subsets) give a function
 * that ravel_validate(SSA) accepts, keeps the satisfiability rules
 * (rv_gen_satisfiable), terminates under the interpreter, is deterministic
 * (printed twice, same text), uses the given machine (borrowed: the module
 * does not free it), and every ALLOC_EVERY-th one is allocated by every
 * built-in allocator and ravel_check accepts the allocation.
 * Usage: test_gen_machine COUNT ALLOC_EVERY FILE.ra...  Exit 1 on a failure. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "allocator/alloc.h" /* rv_rng_next */
#include "fuzz/gen.h"

#include <stdlib.h>
#include <string.h>

static char *print_module(const ravel_module *mod)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&buf, &n);
    rv_print_module(mem, mod);
    fclose(mem);
    return buf;
}

static int fail(const char *file, const char *what, uint64_t k, const char *why, const ravel_module *mod)
{
    fprintf(stderr, "%s: input %llu: %s%s%s\n", file, (unsigned long long)k, what, why ? ": " : "", why ? why : "");
    if (mod && getenv("RAVEL_GEN_DUMP")) rv_print_module(stderr, mod);
    return 1;
}

static int alloc_all(const char *file, uint64_t k, const ravel_func *f, ravel_checker *ck, const ravel_module *mod)
{
    int bad = 0;
    for (size_t a = 0; ravel_allocator_name(a); a++) {
        ravel_func *out = NULL;
        char *err = NULL;
        if (ravel_allocate(ravel_allocator_name(a), f, k, &out, &err) != RAVEL_OK) {
            bad |= fail(file, ravel_allocator_name(a), k, err ? err : "refused", mod);
            free(err);
            continue;
        }
        ravel_report *rep = NULL;
        if (ravel_check(ck, out, f, &rep) != RAVEL_OK) {
            bad |= fail(file, ravel_allocator_name(a), k, "checker rejects the allocation", mod);
            if (rep) ravel_report_print(stderr, rep);
        }
        ravel_report_free(rep);
        ravel_func_free(out);
    }
    return bad;
}

/* One generated module: every promise of fuzz/gen.h. */
static int one(const char *file, const ravel_machine *m, uint64_t k, const uint8_t *bytes, size_t n,
               const rv_gen_opts *o, bool alloc, ravel_checker *ck)
{
    ravel_module *a = bytes ? rv_gen_from_bytes(bytes, n, o) : rv_gen_from_seed(k, o);
    ravel_module *b = bytes ? rv_gen_from_bytes(bytes, n, o) : rv_gen_from_seed(k, o);
    int bad = 0;
    if (!a || a->mach != m || a->funcs.len != 1 || a->funcs.data[0]->mach != m) {
        bad = fail(file, "not a module of the given machine", k, NULL, NULL);
        goto out;
    }
    const ravel_func *f = a->funcs.data[0];
    char why[256];
    ravel_diags *d = ravel_diags_new();
    if (ravel_validate(f, RAVEL_VALIDATE_SSA, d) != RAVEL_OK) {
        bad |= fail(file, "invalid", k, NULL, a);
        ravel_diags_print(stderr, d);
    }
    ravel_diags_free(d);
    if (!rv_gen_satisfiable(f, why, sizeof why)) bad |= fail(file, "unsatisfiable", k, why, a);
    char *ta = print_module(a), *tb = print_module(b);
    if (strcmp(ta, tb) != 0) bad |= fail(file, "not deterministic", k, NULL, a);
    /* what an external allocator receives: the printed text, read back, must
     * be the same function (canonical lists: sorted clobbers, ...) */
    ravel_module *back = ravel_module_parse(ta, strlen(ta), "printed", NULL);
    bool text_machine = strcmp(file, "api machine") != 0; /* (API machines may have no text form: no class, ...) */
    if (!back || ravel_module_nfuncs(back) != 1) {
        if (text_machine) bad |= fail(file, "printed text does not read back", k, NULL, a);
    } else {
        ravel_func *g = rv_func_clone(ravel_module_func(back, 0));
        g->mach = f->mach; /* (the same machine text: the same ids) */
        if (!rv_func_equal(f, g)) bad |= fail(file, "read back from its text, not the same function", k, NULL, a);
        ravel_func_free(g);
    }
    ravel_module_free(back);
    free(ta);
    free(tb);
    uint64_t in[3] = {k, 3, 0xfffffffffffffff0ULL};
    rv_run_opts ro = {in, 3, 2000000, true, false, 0};
    rv_run_result r;
    memset(&r, 0, sizeof r);
    int st = rv_interp_run(f, &ro, &r);
    if (st != RV_RUN_OK || r.status != RV_RUN_OK) bad |= fail(file, "does not terminate cleanly", k, r.msg, a);
    rv_run_result_free(&r);
    if (!bad && alloc) bad |= alloc_all(file, k, f, ck, a);
out:
    ravel_module_free(a);
    ravel_module_free(b);
    return bad;
}

static ravel_module *load(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    ravel_diags *d = ravel_diags_new();
    ravel_module *mod = ravel_module_parse(buf, n, path, d);
    if (!mod) ravel_diags_print(stderr, d);
    ravel_diags_free(d);
    return mod;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: test_gen_machine COUNT ALLOC_EVERY FILE.ra...\n");
        return 2;
    }
    uint64_t count = strtoull(argv[1], NULL, 0), every = strtoull(argv[2], NULL, 0);
    static const unsigned feats[] = {RV_GEN_ALL, RV_GEN_ALL & ~(unsigned)RV_GEN_CLASSES,
                                     RV_GEN_FIXED | RV_GEN_CALLS, 0};
    ravel_checker *ck = ravel_checker_new();
    int bad = 0;
    for (int i = 3; i < argc; i++) {
        ravel_module *mm = load(argv[i]);
        if (!mm) {
            fprintf(stderr, "%s: cannot load\n", argv[i]);
            return 2;
        }
        const ravel_machine *m = ravel_module_machine(mm);
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.machine = m;
        uint64_t rng = 0x1234 + (uint64_t)i;
        uint8_t bytes[512];
        unsigned nbad = 0;
        for (uint64_t k = 0; k < count && nbad < 5; k++) {
            o.features = feats[k % 4];
            o.max_insts = k % 8 == 7 ? 600 : 80;
            o.cfg = (uint32_t)(k % 3 == 0);
            bool alloc = every && k % every == 0;
            int b1 = one(argv[i], m, k, NULL, 0, &o, alloc, ck);
            size_t n = (size_t)(rv_rng_next(&rng) % sizeof bytes);
            for (size_t j = 0; j < n; j++) bytes[j] = (uint8_t)rv_rng_next(&rng);
            int b2 = one(argv[i], m, k, bytes, n, &o, alloc, ck);
            nbad += (unsigned)(b1 | b2);
        }
        char why[256];
        unsigned got = rv_gen_view_features(m, RV_GEN_ALL, why, sizeof why);
        printf("%s: %llu seeds + %llu byte strings%s, features 0x%x%s%s\n", argv[i], (unsigned long long)count,
               (unsigned long long)count, nbad ? " FAILED" : " ok", got, why[0] ? ": " : "", why);
        bad |= nbad != 0;
        ravel_module_free(mm); /* the machine outlived every generated module */
    }
    /* machines built with the API that the format cannot write: no class at
     * all, and a class 0 without allocatable registers: a plain ret, every
     * feature off; interleaved register ids of one class */
    for (int v = 0; v < 3; v++) {
        ravel_machine *m = ravel_machine_new();
        if (v >= 1) {
            int c0 = ravel_machine_add_class(m, "empty"), c1 = ravel_machine_add_class(m, "gpr");
            ravel_machine_add_reg(m, "z_reserved", c0, 1);
            ravel_machine_add_reg(m, "a", c1, 0);
            if (v == 2) { /* class 0 gets allocatable registers, interleaved with class 1's */
                ravel_machine_add_reg(m, "p0", c0, 0);
                ravel_machine_add_reg(m, "b", c1, 0);
                ravel_machine_add_reg(m, "p1", c0, 0);
            }
        }
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.machine = m;
        char why[256];
        unsigned got = rv_gen_view_features(m, RV_GEN_ALL, why, sizeof why);
        if (v < 2 && (got != 0 || !why[0])) bad |= fail("api machine", "features not all off", (uint64_t)v, why, NULL);
        for (uint64_t k = 0; k < count / 4 + 1; k++) bad |= one("api machine", m, k, NULL, 0, &o, k % 10 == 0, ck);
        printf("api machine %d: features 0x%x %s\n", v, got, why);
        ravel_machine_free(m);
    }
    ravel_checker_free(ck);
    return bad;
}
