/* test_provenance.c - the provenance's words match the code they quote.
 * Generated functions are allocated by every allocator, corrupted with the
 * value bugs of the injection catalogue, printed and read back (so that
 * every instruction has a line), and checked. Every provenance line
 *   "L was spilled|reloaded|moved from S at line N"
 * must quote line N of that text: the edit `L = spill|reload|move S`; and
 * every "L was written with vK by `TEXT` at line N" must quote an
 * instruction of line N that defines vK. A wording or a line that does not
 * match (say "spilled" and "reloaded" swapped) fails here on random
 * reports, not only on a hand-written case. */
#define _POSIX_C_SOURCE 200809L
#include "allocator/alloc.h"
#include "allocator/inject.h"
#include "fuzz/gen.h"
#include "ir/ir.h"
#include "tests/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Line n (1-based) of text, trimmed, into out. */
static bool line_of(const char *text, uint32_t n, char *out, size_t cap)
{
    const char *p = text;
    for (uint32_t k = 1; k < n && p; k++) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    if (!p || !*p) return false;
    while (*p == ' ') p++;
    size_t len = strcspn(p, "\n");
    while (len && (p[len - 1] == ' ' || p[len - 1] == '\r')) len--;
    if (len >= cap) len = cap - 1;
    memcpy(out, p, len);
    out[len] = 0;
    char *hash = strstr(out, "  #"); /* (a trailing comment) */
    if (hash) *hash = 0;
    return true;
}

static uint32_t checked, bad;

static void check_provenance(const char *text, const char *prov)
{
    for (const char *p = prov; p && *p;) {
        size_t len = strcspn(p, "\n");
        char ln[512], loc[64], word[32], src[64], code[512];
        unsigned line = 0;
        if (len < sizeof ln) {
            memcpy(ln, p, len);
            ln[len] = 0;
            if (sscanf(ln, "%63s was %31s from %63s at line %u", loc, word, src, &line) == 4 &&
                (!strcmp(word, "spilled") || !strcmp(word, "reloaded") || !strcmp(word, "moved"))) {
                const char *op = !strcmp(word, "spilled") ? "spill" : !strcmp(word, "reloaded") ? "reload" : "move";
                char want[256];
                snprintf(want, sizeof want, "%s = %s %s", loc, op, src);
                checked++;
                if (!line_of(text, line, code, sizeof code) || strcmp(code, want) != 0) {
                    bad++;
                    fprintf(stderr, "provenance \"%s\": line %u is \"%s\", not \"%s\"\n", ln, line, code, want);
                }
            } else {
                char vreg[32];
                const char *by = strstr(ln, "` at line ");
                if (sscanf(ln, "%63s was written with %31s by", loc, vreg) == 2 && by && sscanf(by, "` at line %u", &line) == 1) {
                    checked++;
                    size_t vl = strlen(vreg);
                    const char *eq = NULL;
                    bool defines = false;
                    if (line_of(text, line, code, sizeof code) && (eq = strstr(code, " = ")) != NULL) {
                        for (const char *q = code; q < eq && !defines; q++) /* vK among the defs, before " = " */
                            defines = !strncmp(q, vreg, vl) && (q == code || q[-1] == ' ' || q[-1] == ',') &&
                                      (q[vl] == ':' || q[vl] == ' ' || q[vl] == ',');
                    }
                    if (!defines) {
                        bad++;
                        fprintf(stderr, "provenance \"%s\": line %u is \"%s\", which does not define %s\n", ln, line, code, vreg);
                    }
                }
            }
        }
        p += len;
        if (*p == '\n') p++;
    }
}

TEST(provenance_quotes_its_lines)
{
    static const rv_inject_kind kinds[] = {RV_INJ_DROP_SPILL, RV_INJ_DROP_RELOAD, RV_INJ_RELOAD_SLOT, RV_INJ_SLOT_REUSE,
                                           RV_INJ_MOVE_SWAP,  RV_INJ_EDGE_MOVE,   RV_INJ_SPILL_ONE_PATH, RV_INJ_STALE_LOOP,
                                           RV_INJ_USE_REG,    RV_INJ_CALL_CLOBBER, RV_INJ_RAND_REDIRECT, RV_INJ_RAND_DROP_EDIT};
    ravel_checker *ck = ravel_checker_new();
    uint32_t reports = 0;
    for (uint32_t seed = 0; seed < 40; seed++) {
        rv_gen_opts o;
        rv_gen_opts_default(&o);
        o.max_insts = 120;
        ravel_module *m = rv_gen_from_seed(4200 + seed, &o);
        for (size_t a = 0; ravel_allocator_name(a); a++) {
            ravel_func *g = NULL;
            if (ravel_allocate(ravel_allocator_name(a), ravel_module_func(m, 0), seed, &g, NULL) != RAVEL_OK) continue;
            for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
                ravel_func *h = rv_func_clone(g);
                rv_inject_result res;
                if (rv_inject(h, kinds[k], seed, &res) == RV_INJ_CHANGED) {
                    char *text = NULL;
                    size_t len = 0;
                    FILE *fp = open_memstream(&text, &len);
                    ravel_print_machine(fp, h->mach);
                    ravel_print_func(fp, h);
                    fclose(fp);
                    ravel_module *back = ravel_module_parse(text, len, "p.ra", NULL);
                    CHECK(back != NULL);
                    ravel_report *rep = NULL;
                    if (back && ravel_check(ck, ravel_module_func(back, 0), NULL, &rep) == RAVEL_EFAIL) {
                        reports++;
                        for (size_t e = 0; e < ravel_report_count(rep); e++)
                            check_provenance(text, ravel_report_error(rep, e)->provenance);
                    }
                    ravel_report_free(rep);
                    ravel_module_free(back);
                    free(text);
                }
                ravel_func_free(h);
            }
            ravel_func_free(g);
        }
        ravel_module_free(m);
    }
    printf("%u reports, %u provenance lines quoted, %u wrong\n", reports, checked, bad);
    CHECK(reports >= 100);
    CHECK(checked >= 500);
    CHECK_EQ_INT(bad, 0);
    ravel_checker_free(ck);
}

int main(void)
{
    RUN(provenance_quotes_its_lines);
    return TEST_SUMMARY();
}
