/*
 * test_containment.c - register containment (`alias`, docs/format.md
 * section 14.1) through the public API: the builder (ravel_machine_alias),
 * the readers (containers, contained, contains, overlap, overlapping), the
 * printed machine, misuse, and the reader's whole-block cycle search
 * (rv_alias_first_cycle). A random test compares everything with a plain
 * matrix model: containment as declared, overlap symmetric and not
 * transitive, a pair refused exactly when it would close a cycle, and the
 * reader given the same pairs as alias lines rejects exactly at the first
 * pair that closes one.
 */
#define _GNU_SOURCE
#include "ir/ir.h"
#include "ir/rng.h"
#include "tests/test.h"

#include <stdlib.h>

static ravel_machine *x86ish(void)
{
    ravel_machine *m = ravel_machine_new();
    int c = ravel_machine_add_class(m, "gpr");
    const char *names[] = {"rax", "eax", "ax", "al", "ah", "rcx", "ecx", "cx", "cl", "ch"};
    for (int i = 0; i < 10; i++) ravel_machine_add_reg(m, names[i], c, 0);
    return m;
}

static int R(const ravel_machine *m, const char *name) { return ravel_machine_find_reg(m, name); }

static char *machine_text(const ravel_machine *m)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    ravel_print_machine(fp, m);
    fclose(fp);
    return buf;
}

TEST(not_transitive)
{
    ravel_machine *m = x86ish();
    CHECK_EQ_INT(ravel_machine_alias(m, R(m, "rax"), R(m, "eax")), RAVEL_OK);
    CHECK_EQ_INT(ravel_machine_alias(m, R(m, "eax"), R(m, "al")), RAVEL_OK);
    CHECK_EQ_INT(ravel_machine_alias(m, R(m, "ax"), R(m, "al")), RAVEL_OK);
    CHECK_EQ_INT(ravel_machine_alias(m, R(m, "ax"), R(m, "ah")), RAVEL_OK);
    CHECK_EQ_INT(ravel_machine_contains(m, R(m, "rax"), R(m, "al")), 0); /* never inferred */
    CHECK_EQ_INT(ravel_machine_overlap(m, R(m, "rax"), R(m, "al")), 0);
    CHECK_EQ_INT(ravel_machine_overlap(m, R(m, "al"), R(m, "ah")), 0);   /* both in ax, disjoint */
    CHECK_EQ_INT(ravel_machine_overlap(m, R(m, "al"), R(m, "ax")), 1);   /* symmetric */
    CHECK_EQ_INT(ravel_machine_overlap(m, R(m, "ax"), R(m, "al")), 1);
    CHECK_EQ_INT(ravel_machine_contains(m, R(m, "al"), R(m, "ax")), 0);
    CHECK_EQ_INT(ravel_machine_overlap(m, R(m, "ax"), R(m, "ax")), 0);   /* never itself */
    CHECK_EQ_INT(ravel_machine_overlap(m, R(m, "rcx"), R(m, "rax")), 0);
    /* al overlaps eax and ax, by ascending id */
    CHECK_EQ_INT(ravel_machine_noverlapping(m, R(m, "al")), 2);
    CHECK_EQ_INT(ravel_machine_overlapping(m, R(m, "al"), 0), R(m, "eax"));
    CHECK_EQ_INT(ravel_machine_overlapping(m, R(m, "al"), 1), R(m, "ax"));
    CHECK_EQ_INT(ravel_machine_overlapping(m, R(m, "al"), 2), RAVEL_NONE);
    CHECK_EQ_INT(ravel_machine_noverlapping(m, R(m, "rcx")), 0);
    ravel_machine_free(m);
}

TEST(order_and_print)
{
    ravel_machine *m = x86ish();
    int reserved = ravel_machine_add_reg(m, "rsp", 0, 1);
    uint32_t clob[] = {(uint32_t)R(m, "rax")};
    ravel_machine_set_clobbers(m, clob, 1);
    /* containers in order of first appearance, contained by id */
    CHECK_EQ_INT(ravel_machine_alias(m, R(m, "rcx"), R(m, "cl")), RAVEL_OK);
    CHECK_EQ_INT(ravel_machine_alias(m, R(m, "rax"), R(m, "al")), RAVEL_OK);
    CHECK_EQ_INT(ravel_machine_alias(m, R(m, "rcx"), R(m, "ecx")), RAVEL_OK);
    CHECK_EQ_INT(ravel_machine_alias(m, R(m, "rcx"), R(m, "ecx")), RAVEL_OK); /* twice: no error, one pair */
    CHECK_EQ_INT(ravel_machine_alias(m, (uint32_t)reserved, R(m, "ah")), RAVEL_OK);
    CHECK_EQ_INT(ravel_machine_ncontainers(m), 3);
    CHECK_EQ_INT(ravel_machine_container(m, 0), R(m, "rcx"));
    CHECK_EQ_INT(ravel_machine_container(m, 1), R(m, "rax"));
    CHECK_EQ_INT(ravel_machine_container(m, 2), reserved);
    CHECK_EQ_INT(ravel_machine_container(m, 3), RAVEL_NONE);
    CHECK_EQ_INT(ravel_machine_ncontained(m, R(m, "rcx")), 2);
    CHECK_EQ_INT(ravel_machine_contained(m, R(m, "rcx"), 0), R(m, "ecx"));
    CHECK_EQ_INT(ravel_machine_contained(m, R(m, "rcx"), 1), R(m, "cl"));
    CHECK_EQ_INT(m->ncontain, 4);
    char *t = machine_text(m);
    CHECK_STR(t, "machine\n"
                 "  class gpr rax eax ax al ah rcx ecx cx cl ch\n"
                 "  reserved gpr rsp\n"
                 "  alias rcx ecx cl\n"
                 "  alias rax al\n"
                 "  alias rsp ah\n"
                 "  clobbers rax\n"
                 "end\n");
    free(t);
    ravel_machine_free(m);
}

TEST(cycles_and_misuse)
{
    ravel_machine *m = x86ish();
    uint32_t rax = (uint32_t)R(m, "rax"), eax = (uint32_t)R(m, "eax"), ax = (uint32_t)R(m, "ax");
    CHECK_EQ_INT(ravel_machine_alias(m, rax, eax), RAVEL_OK);
    CHECK_EQ_INT(ravel_machine_alias(m, eax, rax), RAVEL_EINVAL); /* two-cycle */
    CHECK(ravel_machine_error(m) && strstr(ravel_machine_error(m), "cycle"));
    CHECK_EQ_INT(ravel_machine_alias(m, eax, ax), RAVEL_OK);
    CHECK_EQ_INT(ravel_machine_alias(m, ax, rax), RAVEL_EINVAL); /* three-cycle, through eax */
    CHECK_EQ_INT(ravel_machine_alias(m, rax, rax), RAVEL_EINVAL);
    CHECK(strstr(ravel_machine_error(m), "itself"));
    CHECK_EQ_INT(ravel_machine_alias(m, rax, 99), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_machine_alias(m, 99, rax), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_machine_alias(NULL, 0, 1), RAVEL_EINVAL);
    CHECK_EQ_INT(m->ncontain, 2); /* the refused ones left nothing */
    CHECK_EQ_INT(ravel_machine_contains(m, rax, 99), -1);
    CHECK_EQ_INT(ravel_machine_overlap(m, 99, rax), -1);
    CHECK_EQ_INT(ravel_machine_overlap(NULL, 0, 1), -1);
    CHECK_EQ_INT(ravel_machine_ncontainers(NULL), 0);
    CHECK_EQ_INT(ravel_machine_container(NULL, 0), RAVEL_NONE);
    CHECK_EQ_INT(ravel_machine_ncontained(m, 99), 0);
    CHECK_EQ_INT(ravel_machine_contained(m, rax, 5), RAVEL_NONE);
    CHECK_EQ_INT(ravel_machine_noverlapping(NULL, 0), 0);
    CHECK_EQ_INT(ravel_machine_overlapping(m, 99, 0), RAVEL_NONE);
    /* a register added after the containments overlaps nothing */
    int late = ravel_machine_add_reg(m, "r8", 0, 0);
    CHECK_EQ_INT(ravel_machine_noverlapping(m, (uint32_t)late), 0);
    CHECK_EQ_INT(ravel_machine_alias(m, (uint32_t)late, rax), RAVEL_OK);
    CHECK_EQ_INT(ravel_machine_overlapping(m, rax, 1), (uint32_t)late);
    ravel_machine_free(m);
}

TEST(same_containment_by_name)
{
    ravel_machine *a = x86ish(), *b = x86ish();
    CHECK(rv_mach_same_containment(a, b));
    ravel_machine_alias(a, 0, 1);
    CHECK(!rv_mach_same_containment(a, b));
    ravel_machine_alias(b, 0, 2);
    CHECK(!rv_mach_same_containment(a, b));
    ravel_machine_free(b);
    b = ravel_machine_new(); /* other ids, same names */
    int c = ravel_machine_add_class(b, "gpr");
    ravel_machine_add_reg(b, "eax", c, 0);
    ravel_machine_add_reg(b, "rax", c, 0);
    ravel_machine_alias(b, 1, 0);
    CHECK(rv_mach_same_containment(a, b));
    ravel_machine_free(a);
    ravel_machine_free(b);
}

TEST(first_cycle)
{
    /* 0>1, 1>2, 3>0, 2>0 (closes 0>1>2>0 at index 3), 1>0 */
    uint32_t pairs[] = {0, 1, 1, 2, 3, 0, 2, 0, 1, 0}, path[8], plen;
    CHECK_EQ_INT(rv_alias_first_cycle(4, pairs, 5, path, 8, &plen), 3);
    CHECK_EQ_INT(plen, 3); /* 0 contains 1 contains 2: the pair 2>0 closes it */
    CHECK_EQ_INT(path[0], 0);
    CHECK_EQ_INT(path[1], 1);
    CHECK_EQ_INT(path[2], 2);
    CHECK_EQ_INT(rv_alias_first_cycle(4, pairs, 3, path, 8, &plen), RAVEL_NONE);
    CHECK_EQ_INT(rv_alias_first_cycle(4, pairs, 0, path, 8, &plen), RAVEL_NONE);
    uint32_t two[] = {0, 1, 0, 1, 1, 0};
    CHECK_EQ_INT(rv_alias_first_cycle(2, two, 3, path, 1, &plen), 2);
    CHECK_EQ_INT(plen, 2);
    CHECK_EQ_INT(path[0], 0); /* truncated to one */
}

/* ---- random: the builder and the cycle search against a matrix ---- */

enum { NMAX = 24 };

/* Does a contain b through declared pairs (the transitive closure)? */
static bool model_reaches(uint32_t n, bool c[NMAX][NMAX], uint32_t a, uint32_t b)
{
    bool seen[NMAX] = {0};
    uint32_t stk[NMAX], sp = 0;
    stk[sp++] = a;
    seen[a] = true;
    while (sp) {
        uint32_t x = stk[--sp];
        for (uint32_t y = 0; y < n; y++) {
            if (!c[x][y]) continue;
            if (y == b) return true;
            if (!seen[y]) seen[y] = true, stk[sp++] = y;
        }
    }
    return false;
}

/* The same pairs as alias lines, one per pair, read by the reader: with a
 * cycle, its one error is at the contained register of the first pair
 * closing one; without, the machine read equals m (printed the same). */
static void read_back(const ravel_machine *m, uint32_t n, const uint32_t *pairs, uint32_t np, uint32_t firstcyc)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    fputs("machine\n  class c", fp);
    for (uint32_t i = 0; i < n; i++) fprintf(fp, " r%u", i);
    fputc('\n', fp);
    for (uint32_t i = 0; i < np; i++) fprintf(fp, "  alias r%u r%u\n", pairs[2 * i], pairs[2 * i + 1]);
    fputs("end\n\nfunc f\nb0:\n  ret\nend\n", fp);
    fclose(fp);
    ravel_diags *d = ravel_diags_new();
    ravel_module *mod = ravel_module_parse(text, len, "m.ra", d);
    if (firstcyc != RAVEL_NONE) {
        char where[64];
        snprintf(where, sizeof where, "m.ra:%u:%u: error: containment cycle", firstcyc + 3,
                 12 + (pairs[2 * firstcyc] >= 10 ? 1u : 0u)); /* "  alias rA rB": at rB */
        CHECK(!mod && ravel_diags_count(d) == 1 && strncmp(d->v.data[0].msg, where, strlen(where)) == 0);
    } else if (!mod) {
        CHECK(mod != NULL);
    } else { /* the reader's machine: m's containments, in m's order */
        const ravel_machine *r = ravel_module_machine(mod);
        CHECK(rv_mach_same_containment(m, r) && r->alias_order.len == m->alias_order.len &&
              (!m->alias_order.len ||
               !memcmp(r->alias_order.data, m->alias_order.data, m->alias_order.len * sizeof(uint32_t))));
    }
    ravel_module_free(mod);
    ravel_diags_free(d);
    free(text);
}

static void random_machine(uint64_t seed)
{
    uint64_t s = seed;
    uint32_t n = 2 + (uint32_t)(rv_rng_next(&s) % (NMAX - 1)), tries = (uint32_t)(rv_rng_next(&s) % (3 * n));
    ravel_machine *m = ravel_machine_new();
    ravel_machine_add_class(m, "c");
    for (uint32_t i = 0; i < n; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "r%u", i);
        ravel_machine_add_reg(m, nm, 0, (int)(rv_rng_next(&s) % 4 == 0));
    }
    bool c[NMAX][NMAX] = {{0}};
    uint32_t order[NMAX], norder = 0, pairs[6 * NMAX], npairs = 0, firstcyc = RAVEL_NONE;
    for (uint32_t t = 0; t < tries; t++) {
        uint32_t r = (uint32_t)(rv_rng_next(&s) % n), x = (uint32_t)(rv_rng_next(&s) % n);
        bool cyc = r != x && model_reaches(n, c, x, r), refuse = r == x || cyc;
        if (r != x) {
            if (cyc && firstcyc == RAVEL_NONE) firstcyc = npairs / 2;
            pairs[npairs++] = r, pairs[npairs++] = x;
        }
        int rc = ravel_machine_alias(m, r, x);
        CHECK_EQ_INT(rc, refuse ? RAVEL_EINVAL : RAVEL_OK);
        if (refuse) continue;
        bool container = false;
        for (uint32_t k = 0; k < n; k++) container |= c[r][k];
        if (!container) order[norder++] = r;
        c[r][x] = true;
    }
    uint32_t path[NMAX], plen;
    uint32_t got = rv_alias_first_cycle(n, pairs, npairs / 2, path, NMAX, &plen);
    CHECK_EQ_INT(got, firstcyc);
    if (got != RAVEL_NONE) { /* the chain leads from the pair's contained register to its container */
        CHECK_EQ_INT(path[0], pairs[2 * got + 1]);
        CHECK_EQ_INT(path[plen - 1], pairs[2 * got]);
    }
    read_back(m, n, pairs, npairs / 2, firstcyc);
    CHECK_EQ_INT(ravel_machine_ncontainers(m), norder);
    for (uint32_t i = 0; i < norder; i++) CHECK_EQ_INT(ravel_machine_container(m, i), order[i]);
    for (uint32_t a = 0; a < n; a++) {
        uint32_t ni = 0, no = 0;
        for (uint32_t b = 0; b < n; b++) {
            bool ov = c[a][b] || c[b][a];
            CHECK_EQ_INT(ravel_machine_contains(m, a, b), c[a][b]);
            CHECK_EQ_INT(ravel_machine_overlap(m, a, b), ov);
            if (c[a][b]) CHECK_EQ_INT(ravel_machine_contained(m, a, ni++), b);
            if (ov) CHECK_EQ_INT(ravel_machine_overlapping(m, a, no++), b);
        }
        CHECK_EQ_INT(ravel_machine_ncontained(m, a), ni);
        CHECK_EQ_INT(ravel_machine_noverlapping(m, a), no);
    }
    ravel_machine_free(m);
}

TEST(random_against_matrix)
{
    for (uint64_t seed = 1; seed <= 400 && !test_failed_; seed++) random_machine(seed);
}

int main(void)
{
    RUN(not_transitive);
    RUN(order_and_print);
    RUN(cycles_and_misuse);
    RUN(same_containment_by_name);
    RUN(first_cycle);
    RUN(random_against_matrix);
    return TEST_SUMMARY();
}
