/*
 * test_read_roundtrip.c - the public read API reads everything the builders
 * build: each function is read with the accessors of ravel.h and rebuilt with
 * the builders (rebuild() uses ravel.h alone), and both print byte for byte
 * the same. Run on every .ra file under corpus/, tests/ and reproducers/ that
 * parses (argv[1] = the source dir), on generated functions and on their
 * allocations by every built-in allocator (locations, edits, stackmaps);
 * and each function of a module of many reads as it reads alone.
 * Reports the failing file / seed and the first differing line.
 */
#define _GNU_SOURCE
#include "ravel.h"
#include "fuzz/gen.h"
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the rebuild: public API only ---- */
static int rebuild_inst(ravel_func *g, const ravel_func *f, uint32_t i)
{
    int op = ravel_inst_opcode(f, i);
    if (op == RAVEL_OP_REMAT) {
        int64_t k;
        uint32_t n = ravel_inst_nclobbers(f, i), regs[256];
        if (ravel_remat_const(f, i, &k) != RAVEL_OK || n > 256 || ravel_inst_is_edit(f, i) != 1) return -1;
        for (uint32_t j = 0; j < n; j++) regs[j] = ravel_inst_clobber(f, i, j);
        return ravel_remat(g, ravel_edit_dst(f, i), k, regs, n) < 0 ? -1 : 0;
    }
    if (ravel_inst_is_undef(f, i) != (op == RAVEL_OP_UNDEF)) return -1;
    if (ravel_inst_is_edit(f, i) == 1)
        return ravel_edit(g, (ravel_opcode)op, ravel_edit_dst(f, i), ravel_edit_src(f, i)) < 0 ? -1 : 0;
    if (ravel_inst_begin(g, (ravel_opcode)op, ravel_inst_name(f, i)) < 0) return -1;
    uint32_t nd = ravel_inst_ndefs(f, i), nu = ravel_inst_nuses(f, i), ni = ravel_inst_nimms(f, i);
    ravel_operand o;
    for (uint32_t k = 0; k < nd; k++) {
        if (ravel_inst_operand(f, i, k, &o) != RAVEL_OK) return -1;
        if (ravel_inst_def(g, o.vreg, o.constraint, o.arg, o.pos, o.loc) < 0) return -1;
    }
    uint32_t u = 0, m = 0;
    for (uint32_t p = 0; p < nu + ni; p++) {
        int64_t val;
        uint32_t pos;
        if (m < ni && ravel_inst_imm_at(f, i, m, &val, &pos) == RAVEL_OK && pos == p) {
            if (ravel_inst_imm(g, val) < 0) return -1;
            m++;
            continue;
        }
        if (ravel_inst_operand(f, i, nd + u++, &o) != RAVEL_OK) return -1;
        if (ravel_inst_use(g, o.vreg, o.constraint, o.arg, o.pos, o.loc) < 0) return -1;
    }
    if (ravel_inst_has_clobbers(f, i) == 1) {
        uint32_t n = ravel_inst_nclobbers(f, i), regs[256];
        if (n > 256) return -1;
        for (uint32_t k = 0; k < n; k++) regs[k] = ravel_inst_clobber(f, i, k);
        if (ravel_inst_clobbers(g, regs, n) < 0) return -1;
    }
    if (ravel_inst_is_safepoint(f, i) == 1 && ravel_inst_safepoint(g) < 0) return -1;
    if (ravel_inst_has_stackmap(f, i) == 1) {
        uint32_t n = ravel_inst_stackmap_len(f, i);
        uint32_t *slots = malloc((n + 1) * sizeof *slots);
        for (uint32_t k = 0; k < n; k++) slots[k] = ravel_inst_stackmap_slot(f, i, k);
        int rc = ravel_inst_stackmap(g, slots, n);
        free(slots);
        if (rc < 0) return -1;
    }
    for (uint32_t k = 0; k < ravel_inst_nsuccs(f, i); k++) {
        uint32_t n = ravel_inst_succ_nargs(f, i, k);
        uint32_t *args = malloc((n + 1) * sizeof *args);
        for (uint32_t j = 0; j < n; j++) args[j] = ravel_inst_succ_arg(f, i, k, j);
        int rc = ravel_inst_succ(g, ravel_inst_succ_block(f, i, k), args, n);
        free(args);
        if (rc < 0) return -1;
    }
    return ravel_inst_end(g) < 0 ? -1 : 0;
}

static ravel_func *rebuild(const ravel_func *f)
{
    ravel_func *g = ravel_func_new(ravel_func_machine(f), ravel_func_name(f));
    for (uint32_t v = 0; v < ravel_func_nvregs(f); v++) {
        int cls = ravel_vreg_class(f, v);
        if (ravel_vreg_new_num(g, ravel_vreg_number(f, v), cls < 0 ? 0 : cls, ravel_vreg_is_ref(f, v)) != v) goto bad;
    }
    uint32_t nb = ravel_func_nblocks(f);
    for (uint32_t b = 0; b < nb; b++)
        if (ravel_block_new(g, ravel_block_name(f, b)) != b) goto bad;
    for (uint32_t b = 0; b < nb; b++) {
        for (uint32_t k = 0; k < ravel_block_nparams(f, b); k++)
            if (ravel_block_add_param(g, b, ravel_block_param(f, b, k)) < 0) goto bad;
        if (ravel_block_begin(g, b) < 0) goto bad;
        uint32_t first = ravel_block_first_inst(f, b), n = ravel_block_ninsts(f, b);
        for (uint32_t i = first; i < first + n && n; i++)
            if (ravel_inst_block(f, i) != b || rebuild_inst(g, f, i) < 0) goto bad;
    }
    if (ravel_func_finish(g) < 0) goto bad;
    return g;
bad:
    fprintf(stderr, "rebuild failed: %s\n", ravel_func_error(g) ? ravel_func_error(g) : "(accessor)");
    ravel_func_free(g);
    return NULL;
}

/* The machine rebuilt from its readers (classes, registers in id order,
 * default clobbers, gc, containments); public API only. */
static ravel_machine *rebuild_machine(const ravel_machine *m)
{
    ravel_machine *n = ravel_machine_new();
    for (uint32_t c = 0; c < ravel_machine_nclasses(m); c++)
        if (ravel_machine_add_class(n, ravel_machine_class_name(m, c)) != (int)c) goto bad;
    for (uint32_t r = 0; r < ravel_machine_nregs(m); r++)
        if (ravel_machine_add_reg(n, ravel_machine_reg_name(m, r), ravel_machine_reg_class(m, r),
                                  ravel_machine_reg_reserved(m, r)) != (int)r) goto bad;
    uint32_t nc = ravel_machine_nclobbers(m), *clob = malloc((nc + 1) * sizeof *clob);
    for (uint32_t k = 0; k < nc; k++) clob[k] = ravel_machine_clobber(m, k);
    int rc = ravel_machine_set_clobbers(n, clob, nc);
    free(clob);
    if (rc < 0) goto bad;
    ravel_machine_set_gc_moving(n, ravel_machine_gc_moving(m));
    for (uint32_t i = 0; i < ravel_machine_ncontainers(m); i++) { /* alias lines, in their order */
        uint32_t r = ravel_machine_container(m, i);
        for (uint32_t k = 0; k < ravel_machine_ncontained(m, r); k++)
            if (ravel_machine_alias(n, r, ravel_machine_contained(m, r, k)) < 0) goto bad;
    }
    return n;
bad:
    fprintf(stderr, "machine rebuild failed: %s\n", ravel_machine_error(n) ? ravel_machine_error(n) : "(accessor)");
    ravel_machine_free(n);
    return NULL;
}

/* ---- comparison ---- */
__attribute__((noinline)) static char *print_str(const ravel_func *f, const ravel_machine *m)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *s = open_memstream(&buf, &len);
    if (f) ravel_print_func(s, f);
    else ravel_print_machine(s, m);
    fclose(s);
    return buf;
}

static void first_diff(const char *a, const char *b)
{
    for (unsigned line = 1;; line++) {
        const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
        size_t la = ea ? (size_t)(ea - a) : strlen(a), lb = eb ? (size_t)(eb - b) : strlen(b);
        if (la != lb || memcmp(a, b, la) != 0 || !ea != !eb) {
            fprintf(stderr, "  line %u:\n  orig:    %.*s\n  rebuilt: %.*s\n", line, (int)la, a, (int)lb, b);
            return;
        }
        if (!ea) return;
        a = ea + 1;
        b = eb + 1;
    }
}

static long nchecked, nskipped;

/* The readers that printing does not show agree with what it does show:
 * effective clobbers, the allocatable registers, slots, allocated or not. */
static int derived_ok(const ravel_func *f, const char *what)
{
    const ravel_machine *m = ravel_func_machine(f);
    uint32_t maxslot = 0, any = 0;
#define NOTE_LOC(l) do { ravel_loc l_ = (l); if (l_ != RAVEL_LOC_NONE) any = 1; \
        if (ravel_loc_is_slot(l_) && ravel_loc_slot(l_) + 1 > maxslot) maxslot = ravel_loc_slot(l_) + 1; } while (0)
    for (uint32_t i = 0; i < ravel_func_ninsts(f); i++) {
        ravel_operand o;
        for (uint32_t k = 0; ravel_inst_operand(f, i, k, &o) == RAVEL_OK; k++) NOTE_LOC(o.loc);
        if (ravel_inst_is_edit(f, i) == 1) {
            NOTE_LOC(ravel_edit_dst(f, i));
            NOTE_LOC(ravel_edit_src(f, i));
        }
        if (ravel_inst_has_stackmap(f, i) == 1) any = 1;
        for (uint32_t k = 0; k < ravel_inst_stackmap_len(f, i); k++) NOTE_LOC(ravel_slot(ravel_inst_stackmap_slot(f, i, k)));
        int expl = ravel_inst_has_clobbers(f, i) == 1, call = ravel_inst_opcode(f, i) == RAVEL_OP_CALL;
        uint32_t n = ravel_inst_nclobbered(f, i);
        uint32_t want = expl ? ravel_inst_nclobbers(f, i) : call ? ravel_machine_nclobbers(m) : 0;
        for (uint32_t k = 0; n == want && k < n; k++)
            if (ravel_inst_clobbered(f, i, k) != (expl ? ravel_inst_clobber(f, i, k) : ravel_machine_clobber(m, k))) want = n + 1;
        if (n != want) {
            fprintf(stderr, "FAIL %s: function %s: instruction %u: effective clobbers disagree\n", what, ravel_func_name(f), i);
            return 1;
        }
    }
#undef NOTE_LOC
    if (ravel_func_nslots(f) < maxslot || ravel_func_is_allocated(f) != (int)any) {
        fprintf(stderr, "FAIL %s: function %s: nslots %u (slots used up to %u), is_allocated %d (expected %u)\n", what,
                ravel_func_name(f), ravel_func_nslots(f), maxslot, ravel_func_is_allocated(f), any);
        return 1;
    }
    for (uint32_t c = 0; c < ravel_machine_nclasses(m); c++) {
        uint32_t k = 0;
        int same = 1;
        for (uint32_t r = 0; r < ravel_machine_nregs(m); r++)
            if (ravel_machine_reg_class(m, r) == (int)c && !ravel_machine_reg_reserved(m, r))
                same &= ravel_machine_class_allocatable(m, c, k++) == r;
        if (!same || k != ravel_machine_class_nallocatable(m, c)) {
            fprintf(stderr, "FAIL %s: class %s: the allocatable registers are not the class's unreserved ones in order\n", what,
                    ravel_machine_class_name(m, c));
            return 1;
        }
    }
    return 0;
}

/* The machine prints the same once rebuilt from its readers. */
static int machine_roundtrip(const ravel_machine *m, const char *what)
{
    ravel_machine *n = rebuild_machine(m);
    if (!n) {
        fprintf(stderr, "FAIL %s: machine not rebuilt\n", what);
        return 1;
    }
    char *a = print_str(NULL, m), *b = print_str(NULL, n);
    int bad = strcmp(a, b) != 0;
    if (bad) {
        fprintf(stderr, "FAIL %s: the machine prints differently\n", what);
        first_diff(a, b);
    }
    free(a);
    free(b);
    ravel_machine_free(n);
    return bad;
}

/* A successor to a label never defined (invalid: the validator rejects it)
 * is outside 0..nblocks-1 and has no name to rebuild it with. */
static int has_undefined_block(const ravel_func *f)
{
    for (uint32_t i = 0; i < ravel_func_ninsts(f); i++)
        for (uint32_t k = 0; k < ravel_inst_nsuccs(f, i); k++)
            if (ravel_inst_succ_block(f, i, k) >= ravel_func_nblocks(f)) return 1;
    return 0;
}

static int roundtrip(const ravel_func *f, const char *what)
{
    if (has_undefined_block(f)) {
        nskipped++;
        return 0;
    }
    ravel_func *g = rebuild(f);
    if (!g) {
        fprintf(stderr, "FAIL %s: function %s not rebuilt\n", what, ravel_func_name(f));
        return 1;
    }
    char *a = print_str(f, NULL), *b = print_str(g, NULL);
    int bad = strcmp(a, b) != 0;
    if (bad) {
        fprintf(stderr, "FAIL %s: function %s prints differently\n", what, ravel_func_name(f));
        first_diff(a, b);
    }
    free(a);
    free(b);
    ravel_func_free(g);
    nchecked++;
    return bad + derived_ok(f, what);
}

/* ---- inputs ---- */
static int walk(const char *dir, long *nfiles)
{
    int fails = 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) { fails += walk(path, nfiles); continue; }
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 3, ".ra") != 0) continue;
        FILE *fp = fopen(path, "rb");
        if (!fp) continue;
        char *text = malloc((size_t)st.st_size + 1);
        size_t len = fread(text, 1, (size_t)st.st_size, fp);
        fclose(fp);
        ravel_diags *dg = ravel_diags_new();
        ravel_module *mod = ravel_module_parse(text, len, path, dg);
        if (mod) {
            (*nfiles)++;
            fails += machine_roundtrip(ravel_module_machine(mod), path);
            for (size_t k = 0; k < ravel_module_nfuncs(mod); k++) fails += roundtrip(ravel_module_func(mod, k), path);
            ravel_module_free(mod);
        }
        ravel_diags_free(dg);
        free(text);
    }
    closedir(d);
    return fails;
}

static int gen_seeds(uint64_t from, uint64_t to, uint32_t max_insts)
{
    int fails = 0;
    rv_gen_opts o;
    rv_gen_opts_default(&o);
    if (max_insts) o.max_insts = max_insts;
    for (uint64_t s = from; s < to && fails < 5; s++) {
        char what[96];
        ravel_module *mod = rv_gen_from_seed(s, &o);
        if (!mod) continue;
        const ravel_func *f = ravel_module_func(mod, 0);
        snprintf(what, sizeof what, "seed %llu (max_insts %u)", (unsigned long long)s, o.max_insts);
        fails += roundtrip(f, what) + machine_roundtrip(ravel_module_machine(mod), what);
        for (size_t a = 0; ravel_allocator_name(a); a++) {
            ravel_func *out = NULL;
            char *err = NULL;
            if (ravel_allocate(ravel_allocator_name(a), f, s, &out, &err) == RAVEL_OK) {
                char w2[160];
                snprintf(w2, sizeof w2, "%s allocated by %s", what, ravel_allocator_name(a));
                fails += roundtrip(out, w2);
            }
            ravel_func_free(out);
            free(err);
        }
        ravel_module_free(mod);
    }
    return fails;
}

/* Several functions in one module, each numbering its vregs from v0 and
 * its blocks from b0 like the others: each reads as it reads alone in a
 * module of its own (the reader's per-function tables - the dense vreg
 * table, the labels, the pending annotations - are emptied between
 * functions). */
static int module_of_many(uint64_t seed, unsigned nfuncs)
{
    rv_gen_opts o;
    rv_gen_opts_default(&o);
    ravel_module *m0 = rv_gen_from_seed(seed, &o);
    o.machine = ravel_module_machine(m0);
    char *mtext = print_str(NULL, o.machine), *all = NULL;
    size_t alen = 0;
    FILE *s = open_memstream(&all, &alen);
    fputs(mtext, s);
    char **alone = calloc(nfuncs, sizeof *alone);
    for (unsigned k = 0; k < nfuncs; k++) {
        ravel_module *g = rv_gen_from_seed(seed + 1 + k, &o);
        char *t = print_str(ravel_module_func(g, 0), NULL);
        const char *body = strchr(t, '\n'); /* after "func NAME" */
        fprintf(s, "\nfunc f%u%s", k, body);
        size_t n = strlen(mtext) + strlen(body) + 32;
        alone[k] = malloc(n);
        snprintf(alone[k], n, "%s\nfunc f%u%s", mtext, k, body);
        free(t);
        ravel_module_free(g);
    }
    fclose(s);
    int fails = 0;
    ravel_diags *dg = ravel_diags_new();
    ravel_module *mod = ravel_module_parse(all, alen, "many.ra", dg);
    if (!mod || ravel_module_nfuncs(mod) != nfuncs) {
        fprintf(stderr, "FAIL module of %u functions from seed %llu: not read\n", nfuncs, (unsigned long long)seed);
        ravel_diags_print(stderr, dg);
        fails++;
    }
    for (unsigned k = 0; mod && k < ravel_module_nfuncs(mod) && fails < 5; k++) {
        ravel_module *one = ravel_module_parse(alone[k], strlen(alone[k]), "one.ra", dg);
        char *a = one ? print_str(ravel_module_func(one, 0), NULL) : NULL;
        char *b = print_str(ravel_module_func(mod, k), NULL);
        const ravel_func *fa = one ? ravel_module_func(one, 0) : NULL, *fb = ravel_module_func(mod, k);
        bool same_ids = fa && ravel_func_nvregs(fa) == ravel_func_nvregs(fb);
        for (uint32_t v = 0; same_ids && v < ravel_func_nvregs(fa); v++)
            same_ids = ravel_vreg_number(fa, v) == ravel_vreg_number(fb, v) && ravel_vreg_class(fa, v) == ravel_vreg_class(fb, v);
        if (!a || strcmp(a, b) != 0 || !same_ids) {
            fprintf(stderr, "FAIL function f%u of a module from seed %llu reads otherwise than alone\n", k, (unsigned long long)seed);
            if (a) first_diff(a, b);
            fails++;
        }
        free(a);
        free(b);
        ravel_module_free(one);
    }
    ravel_module_free(mod);
    ravel_diags_free(dg);
    for (unsigned k = 0; k < nfuncs; k++) free(alone[k]);
    free(alone);
    free(all);
    free(mtext);
    ravel_module_free(m0);
    return fails;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_read_roundtrip SOURCE_DIR [NSEEDS]\n");
        return 2;
    }
    long nseeds = argc > 2 ? atol(argv[2]) : 3000, nfiles = 0;
    int fails = 0;
    const char *dirs[] = {"corpus", "tests", "reproducers"};
    for (int k = 0; k < 3; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], dirs[k]);
        fails += walk(path, &nfiles);
    }
    fails += gen_seeds(1, 1 + (uint64_t)nseeds, 0);
    fails += gen_seeds(100000, 100000 + (uint64_t)nseeds / 30, 1000);
    for (uint64_t seed = 1; seed <= 20; seed++) fails += module_of_many(seed * 1000, 12);
    printf("%ld files, %ld functions round-tripped (%ld with undefined labels skipped), %d failures\n",
           nfiles, nchecked, nskipped, fails);
    return fails ? 1 : 0;
}
