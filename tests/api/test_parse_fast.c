/*
 * test_parse_fast.c - the reader's fast paths (ir/parse_fast.c, and the
 * dense label tables of ir/parse_func.c) against the reader without them
 * (rv_module_parse_slow): every text is read both ways,
 * and the two must give the same diagnostics (byte for byte: FILE:LINE:COL,
 * message, caret) and, when the text reads, the same module: the printed
 * module and a dump of every array of every function (vreg ids and
 * numbers, blocks, instructions with their line and column, operands,
 * immediates, successors, symbols in id order).
 *
 * Texts: every .ra file under corpus/, tests/ and reproducers/ (argv[1] =
 * the source dir); generated functions and their allocations by every
 * built-in allocator, alone and as modules of many; and mutants of all of
 * these: bytes deleted, inserted or replaced, words replaced by keywords,
 * malformed names and numbers at the edges of what the fast path reads
 * (argv[2] mutants per text, argv[3] generator seeds). Reports the first
 * text that differs and how.
 */
#define _GNU_SOURCE
#include "ir/ir.h"
#include "fuzz/gen.h"
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct text {
    char *s;
    size_t n;
} text;

static long ncompared, nread, fails;

/* ---- what is compared ---- */

static void dump_func(FILE *o, const ravel_func *f)
{
    fprintf(o, "func sym %u line %u col %u end %u nslots %u next %u vmap %d cur %u %u err %s\n", f->name, f->line, f->col,
            f->end_line, f->nslots, f->next_num, f->vmap_built, f->cur_block, f->cur_inst, f->err ? f->err : "-");
    for (uint32_t i = 0; i < f->syms.strs.len; i++) /* each found by its name (the map complete) */
        fprintf(o, "sym %u %.*s found %u\n", i, (int)f->syms.lens.data[i], f->syms.strs.data[i],
                rv_sym_find(&f->syms, f->syms.strs.data[i], f->syms.lens.data[i]));
    for (uint32_t i = 0; i < f->vregs.len; i++) {
        const rv_vreg *v = &f->vregs.data[i];
        fprintf(o, "vreg %u v%u cls %u ref %d has %d\n", i, v->num, v->cls, v->ref, v->has_class);
    }
    for (uint32_t i = 0; i < f->blocks.len; i++) {
        const rv_block *b = &f->blocks.data[i];
        fprintf(o, "block %u sym %u params %u+%u insts %u+%u at %u:%u end %u:%u started %d decl %d\n", i, b->name, b->first_param,
                b->nparams, b->first_inst, b->ninsts, b->line, b->col, b->end_line, b->end_col, b->started, b->has_params_decl);
    }
    for (uint32_t i = 0; i < f->layout.len; i++) fprintf(o, "layout %u\n", f->layout.data[i]);
    for (uint32_t i = 0; i < f->insts.len; i++) {
        const rv_inst *in = &f->insts.data[i];
        uint32_t u[2];
        memcpy(u, &in->u, sizeof u);
        fprintf(o, "inst %u op %u flags %u d %u u %u i %u ops %u imms %u name %u clob %u+%u u %u %u at %u:%u\n", i, in->op,
                in->flags, in->ndefs, in->nuses, in->nimms, in->first_op, in->first_imm, in->name, in->first_clob, in->nclob,
                u[0], u[1], in->line, in->col);
    }
    for (uint32_t i = 0; i < f->ops.len; i++) {
        const rv_operand *p = &f->ops.data[i];
        fprintf(o, "op %u vreg %u loc %u kind %u flags %u arg %u\n", i, p->vreg, (unsigned)p->loc, p->kind, p->flags, p->arg);
    }
    for (uint32_t i = 0; i < f->imms.len; i++) fprintf(o, "imm %lld @%u\n", (long long)f->imms.data[i].value, f->imms.data[i].pos);
    for (uint32_t i = 0; i < f->succs.len; i++) {
        const rv_succ *s = &f->succs.data[i];
        fprintf(o, "succ %u args %u+%u\n", s->block, s->first_arg, s->nargs);
    }
    for (uint32_t i = 0; i < f->u32.len; i++) fprintf(o, "u32 %u\n", f->u32.data[i]);
}

/* Diagnostics, the printed module and the dump of its functions. */
static char *read_all(const text *t, bool fast)
{
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = fast ? ravel_module_parse(t->s, t->n, "t.ra", d) : rv_module_parse_slow(t->s, t->n, "t.ra", d);
    char *out = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&out, &len);
    ravel_diags_print(o, d);
    fprintf(o, "--- %s\n", m ? "read" : "not read");
    if (m) {
        rv_print_module(o, m);
        for (size_t i = 0; i < m->funcs.len; i++) dump_func(o, m->funcs.data[i]);
    }
    fclose(o);
    ravel_module_free(m);
    ravel_diags_free(d);
    return out;
}

static void first_diff(const char *a, const char *b)
{
    size_t i = 0, line = 1, bol = 0;
    for (; a[i] && a[i] == b[i]; i++)
        if (a[i] == '\n') line++, bol = i + 1;
    const char *ea = strchr(a + bol, '\n'), *eb = strchr(b + bol, '\n');
    fprintf(stderr, "  first difference at line %zu of the outputs:\n  fast: %.*s\n  slow: %.*s\n", line,
            (int)(ea ? ea - (a + bol) : (long)strlen(a + bol)), a + bol, (int)(eb ? eb - (b + bol) : (long)strlen(b + bol)), b + bol);
}

static void compare(const text *t, const char *what)
{
    char *a = read_all(t, true), *b = read_all(t, false);
    ncompared++;
    if (strstr(a, "--- read\n")) nread++;
    if (strcmp(a, b) != 0 && fails++ < 5) {
        fprintf(stderr, "FAIL %s: the fast path reads it otherwise\n", what);
        first_diff(a, b);
        fprintf(stderr, "  text (%zu bytes):\n%.*s\n", t->n, (int)(t->n > 2000 ? 2000 : t->n), t->s);
    }
    free(a);
    free(b);
}

/* ---- mutants ---- */

static uint64_t rnd(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ull;
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* What a mutation inserts: punctuation, space, names and numbers at the
 * edges of what the fast path takes. */
static const char *const words[] = {
    " ", ",", ":", "(", ")", "@", "=", "#", "\n", "\t", "\r", ".", "..", "-", "0", "9", "v", "s", "x", "\0", "\xff",
    "spill", "reload", "move", "remat", "early ", "late ", "fixed", "reuse", "reg", "any", "stack", ".ref", "undef",
    "call", "jump", "br", "ret", "end", "func", "machine", "clobbers(r0)", "safepoint", "stackmap(s0)", "v0", "v01",
    "s0", "s01", "v4294967295", "v99999999999", "s99999999999", "0x", "0xffffffffffffffff", "0x7fffffffffffffff",
    "123456789012345678", "1234567890123456789", "-9223372036854775808", "65535", "65536", "reuse(0)", "reuse(65536)",
    "fixed(r0)", "fixed(zz)", "@s1", "@r0", "@zz", ":int", ":float", ":zz", "b0", "b1(v1)", "()", "b0:", "add", "const",
    "gcpoll", "out", "v1:int = ", "r0 = spill r1", "s1 = reload s2", "b01", "b00", "bb1", "b1x", "abcde1", "L9",
    "b4294967296", "b16777216", "b99999",
};
#define NWORDS (sizeof words / sizeof *words)

static bool is_word_byte(char c)
{
    return c == '_' || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c >= '0' && c <= '9');
}

static void mutate(text *m, const text *t, uint64_t *seed)
{
    size_t cap = t->n + 256;
    m->s = malloc(cap + 1);
    memcpy(m->s, t->s, t->n);
    m->n = t->n;
    for (int k = 0, nm = 1 + (int)(rnd(seed) % 3); k < nm && m->n; k++) {
        size_t at = rnd(seed) % m->n, len;
        uint64_t r = rnd(seed) % 8;
        const char *w = words[rnd(seed) % NWORDS];
        len = w[0] ? strlen(w) : 1;
        if (r == 0) { /* delete a byte */
            memmove(m->s + at, m->s + at + 1, m->n - at - 1), m->n--;
        } else if (r == 1) { /* replace a byte */
            m->s[at] = w[0];
        } else if (r == 2 && m->n + len <= cap) { /* replace an identifier or number */
            size_t e = at;
            while (e < m->n && is_word_byte(m->s[e])) e++;
            memmove(m->s + at + len, m->s + e, m->n - e);
            memcpy(m->s + at, w, len);
            m->n = m->n - (e - at) + len;
        } else if (m->n + len <= cap) { /* insert */
            memmove(m->s + at + len, m->s + at, m->n - at);
            memcpy(m->s + at, w, len);
            m->n += len;
        }
    }
    if (rnd(seed) % 16 == 0) m->n = rnd(seed) % (m->n + 1); /* cut */
}

static void compare_with_mutants(const text *t, const char *what, int nmut, uint64_t seed)
{
    compare(t, what);
    for (int i = 0; i < nmut && fails < 5; i++) {
        text m;
        mutate(&m, t, &seed);
        char w[512];
        snprintf(w, sizeof w, "%s, mutant %d", what, i);
        compare(&m, w);
        free(m.s);
    }
}

/* ---- texts ---- */

static void walk(const char *dir, int nmut)
{
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            walk(path, nmut);
            continue;
        }
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 3, ".ra") != 0) continue;
        FILE *fp = fopen(path, "rb");
        if (!fp) continue;
        text t = {malloc((size_t)st.st_size + 1), 0};
        t.n = fread(t.s, 1, (size_t)st.st_size, fp);
        fclose(fp);
        compare_with_mutants(&t, path, nmut, (uint64_t)st.st_size * 131 + n);
        free(t.s);
    }
    closedir(d);
}

static text print_text(const ravel_module *m, const ravel_func *f)
{
    text t = {NULL, 0};
    FILE *o = open_memstream(&t.s, &t.n);
    ravel_print_machine(o, ravel_module_machine(m));
    ravel_print_func(o, f);
    fclose(o);
    return t;
}

/* Generated functions, their allocations, and every 10 seeds a module of
 * all those functions. */
static void generated(uint64_t nseeds, int nmut)
{
    rv_gen_opts o;
    rv_gen_opts_default(&o);
    for (uint64_t s = 1; s <= nseeds && fails < 5; s++) {
        ravel_module *mod = rv_gen_from_seed(s, &o);
        if (!mod) continue;
        const ravel_func *f = ravel_module_func(mod, 0);
        char what[128];
        snprintf(what, sizeof what, "generated seed %llu", (unsigned long long)s);
        text t = print_text(mod, f);
        compare_with_mutants(&t, what, nmut, s);
        char *all = NULL;
        size_t alen = 0;
        FILE *many = open_memstream(&all, &alen);
        fwrite(t.s, 1, t.n, many);
        free(t.s);
        for (size_t a = 0; ravel_allocator_name(a); a++) {
            ravel_func *out = NULL;
            char *err = NULL;
            if (ravel_allocate(ravel_allocator_name(a), f, s, &out, &err) == RAVEL_OK) {
                snprintf(what, sizeof what, "seed %llu allocated by %s", (unsigned long long)s, ravel_allocator_name(a));
                t = print_text(mod, out);
                compare_with_mutants(&t, what, nmut, s * 64 + a);
                fprintf(many, "\nfunc g%zu%s", a, strchr(strstr(t.s, "\nfunc ") + 1, '\n'));
                free(t.s);
            }
            ravel_func_free(out);
            free(err);
        }
        fclose(many);
        t = (text){all, alen};
        snprintf(what, sizeof what, "seed %llu, a module of its allocations", (unsigned long long)s);
        compare_with_mutants(&t, what, nmut / 4, s + 7);
        free(all);
        ravel_module_free(mod);
    }
}

/* Functions whose mnemonics, callees or own name spell their labels (the
 * reader enters labels' names into the symbol map late; a name spelled
 * twice must still be one symbol), and their mutants. */
static void names_like_labels(int nmut)
{
    static const char *const texts[] = {
        "machine\n  class int r0..r3\nend\nfunc f\nb0:\n  v1:int = b1\n  v2:int = call b2 v1\n  jump b1\n"
        "b1:\n  call b3 v1\n  jump b2\nb2:\n  v3:int = b2 v2\n  ret v3\nb3:\n  ret\nend\n",
        "machine\n  class int r0..r3\nend\nfunc b1\nb0:\n  v1:int = args\n  jump b1\nb1:\n  v2:int = h7 v1\n"
        "  br v2, h7, b2\nh7:\n  ret v2\nb2:\n  call b0\n  ret v1\nend\nfunc h7\nh7:\n  v1:int = b1\n  jump b1\n"
        "b1:\n  ret v1\nend\n",
        "machine\n  class int r0..r3\nend\nfunc f\nb0:\n  jump b1\nb1:\n  jump b0\nb1:\n  v1:int = b2\n  ret\n"
        "b2:\n  ret\nend\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        text t = {(char *)texts[i], strlen(texts[i])};
        compare_with_mutants(&t, "a function whose names spell its labels", nmut * 10, 77 + i);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_parse_fast SOURCE_DIR [MUTANTS [SEEDS]]\n");
        return 2;
    }
    int nmut = argc > 2 ? atoi(argv[2]) : 20;
    uint64_t nseeds = argc > 3 ? strtoull(argv[3], NULL, 10) : 200;
    const char *dirs[] = {"corpus", "tests", "reproducers"};
    for (int k = 0; k < 3; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], dirs[k]);
        walk(path, nmut);
    }
    long nfiles = ncompared;
    names_like_labels(nmut);
    generated(nseeds, nmut);
    printf("%ld texts read both ways (%ld from the repository's .ra files and their mutants), %ld of them read; %ld differ\n",
           ncompared, nfiles, nread, fails);
    return fails != 0;
}
