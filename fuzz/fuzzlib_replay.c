/* fuzzlib_replay.c - the replay of a reproducer (ravel_replay,
 * the files of reproducers/): the header's verdict, then every named allocator again
 * on the unallocated form.
 *
 * Requires: a reproducer's text (any text: bad headers are reported).
 * Guarantees: RV_FUZZ_PASS, RV_FUZZ_BUG (z->repro says why) or RV_FUZZ_SKIP
 * (an external allocator's reproducer).
 */
#define _GNU_SOURCE /* open_memstream */
#include "fuzz/fuzzlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- reproducer replay ------------------------------------------------------------------ */

/* Finds "# KEY: VALUE" in the comment lines of text; copies VALUE (one word). */
bool rv_fuzz_header(const char *text, size_t len, const char *key, char *out, size_t outlen)
{
    size_t klen = strlen(key);
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && text[j] != '\n') j++;
        size_t p = i;
        while (p < j && (text[p] == ' ' || text[p] == '\t')) p++;
        if (p < j && text[p] == '#') {
            p++;
            while (p < j && text[p] == ' ') p++;
            if (j - p > klen && memcmp(text + p, key, klen) == 0 && text[p + klen] == ':') {
                p += klen + 1;
                while (p < j && text[p] == ' ') p++;
                size_t q = p;
                while (q < j && text[q] != ' ' && text[q] != '\t' && text[q] != '\r') q++;
                if (q - p >= outlen) return false;
                memcpy(out, text + p, q - p);
                out[q - p] = 0;
                return true;
            }
        }
        i = j + 1;
    }
    return false;
}

static int replay_fail(rv_fuzz *z, const char *name, const char *why, const ravel_diags *d)
{
    FILE *fp = fz_repro_begin(z, RV_FT_ALLOC, NULL, 0);
    fprintf(fp, "# replay of %s: %s\n", name, why);
    if (d) fz_comment_diags(fp, d);
    fz_repro_end(fp);
    return RV_FUZZ_BUG;
}

/* One function of a reproducer: the written verdict, then re-allocation. */
static int replay_func(rv_fuzz *z, const ravel_func *f, const char *name, const char *alloc, const char *expect,
                       uint64_t seed)
{
    ravel_func *orig = rv_func_is_allocated(f) ? rv_func_strip(f) : rv_func_clone(f);
    int result = RV_FUZZ_PASS;
    if (rv_func_is_allocated(f) && *expect) {
        int rc = ravel_check(z->ck, f, orig, NULL);
        bool want_ok = strcmp(expect, "accept") == 0;
        if ((rc == RAVEL_OK) != want_ok) result = replay_fail(z, name, want_ok ? "the checker rejects the allocation (expect: accept)" : "the checker accepts the allocation (expect: reject)", NULL);
    }
    ravel_diags *d = ravel_diags_new();
    bool ssa = ravel_validate(orig, RAVEL_VALIDATE_SSA, d) == RAVEL_OK;
    ravel_diags_free(d);
    for (size_t i = 0; ssa && result == RV_FUZZ_PASS && rv_allocators[i].name; i++)
        if (strcmp(alloc, "all") == 0 || strcmp(alloc, rv_allocators[i].name) == 0)
            result = rv_fuzz_alloc(z, orig, &rv_allocators[i], seed, RV_FUZZ_DIFF);
    ravel_func_free(orig);
    return result;
}

int rv_fuzz_replay_ra(rv_fuzz *z, const char *text, size_t len, const char *name)
{
    char alloc[64] = "all", expect[16] = "", seedtxt[32] = "0";
    rv_fuzz_header(text, len, "allocator", alloc, sizeof alloc);
    rv_fuzz_header(text, len, "expect", expect, sizeof expect);
    rv_fuzz_header(text, len, "seed", seedtxt, sizeof seedtxt);
    uint64_t seed = strtoull(seedtxt, NULL, 0);
    char cmd[4096];
    if (rv_fuzz_header(text, len, "alloc-cmd", cmd, sizeof cmd)) { /* `ravel fuzz --alloc-cmd`'s */
        replay_fail(z, name, "a reproducer of an external allocator (# alloc-cmd:): not replayed against the built-in "
                             "ones (ravel reduce --alloc-cmd CMD reruns the command)", NULL);
        return RV_FUZZ_SKIP;
    }
    if (strcmp(alloc, "all") != 0 && rv_fuzz_allocator_index(alloc) < 0)
        return replay_fail(z, name, "the allocator named in the header does not exist", NULL);
    if (*expect && strcmp(expect, "accept") != 0 && strcmp(expect, "reject") != 0)
        return replay_fail(z, name, "bad 'expect:' (accept or reject)", NULL);
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, len, name, d);
    int result = RV_FUZZ_PASS;
    if (!m || ravel_diags_count(d)) {
        result = replay_fail(z, name, "does not parse", d);
    } else {
        for (size_t i = 0; result == RV_FUZZ_PASS && i < ravel_module_nfuncs(m); i++) {
            const ravel_func *f = ravel_module_func(m, i);
            if (ravel_validate(f, 0, d) == RAVEL_EINVAL) result = replay_fail(z, name, "does not validate", d);
            else result = replay_func(z, f, name, alloc, expect, seed);
        }
    }
    ravel_module_free(m);
    ravel_diags_free(d);
    return result;
}

