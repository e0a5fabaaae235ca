/* fuzz_mir.c - any bytes through the MIR readers, S1 and the import
 * (ravel_import, docs/import.md): nothing may crash, leak or hang.
 *
 * Input: an optional first line `# alloc NAME` (greedy, basic, fast,
 * pbqp; greedy by default), then one text, or three separated by lines
 * `~~~~`: tag.mir, the dumps, post.mir. The first text is tagged (S1);
 * with three, every function is imported. Seeds: corpus/fuzz_mir/. */
#include "import/import.h"

#include <stdlib.h>

static enum rvi_alloc header(const char **s, size_t *n)
{
    static const char pre[] = "# alloc ";
    enum rvi_alloc a = RVI_GREEDY;
    if (*n < sizeof pre - 1 || memcmp(*s, pre, sizeof pre - 1) != 0) return a;
    const char *nl = memchr(*s, '\n', *n);
    size_t len = nl ? (size_t)(nl - *s) : *n;
    char name[16] = "";
    size_t k = len - (sizeof pre - 1) < sizeof name - 1 ? len - (sizeof pre - 1) : sizeof name - 1;
    memcpy(name, *s + sizeof pre - 1, k);
    int f = rvi_alloc_find(name);
    if (f >= 0) a = (enum rvi_alloc)f;
    *s += nl ? len + 1 : len;
    *n -= nl ? len + 1 : len;
    return a;
}

/* Splits s on "\n~~~~\n" into at most 3 parts (copies, NUL-terminated). */
static int split(const char *s, size_t n, char *part[3], size_t len[3])
{
    int k = 0;
    size_t start = 0;
    for (size_t i = 0; i + 6 <= n && k < 2; i++)
        if (!memcmp(s + i, "\n~~~~\n", 6)) {
            len[k] = i + 1 - start;
            part[k] = rv_xmalloc(len[k] + 1);
            memcpy(part[k], s + start, len[k]);
            part[k][len[k]] = 0;
            k++;
            start = i + 6;
            i += 5;
        }
    len[k] = n - start;
    part[k] = rv_xmalloc(len[k] + 1);
    memcpy(part[k], s + start, len[k]);
    part[k][len[k]] = 0;
    return k + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    size_t n = size;
    enum rvi_alloc alloc = header(&s, &n);
    char *part[3] = {NULL, NULL, NULL};
    size_t len[3] = {0, 0, 0};
    int np = split(s, n, part, len);
    ravel_diags *d = ravel_diags_new();
    mir_text t0 = {"tag.mir", part[0], len[0]};
    size_t outlen = 0;
    rv_free(rvi_tag(&t0, d, &outlen));
    if (np == 3) {
        rvi_texts t = {{"tag.mir", part[0], len[0]}, {"dumps.txt", part[1], len[1]}, {"post.mir", part[2], len[2]}};
        rvi_module *m = rvi_module_read(&t, d);
        rvi_opts o = {alloc, false, true, NULL};
        for (uint32_t i = 0; m && i < rvi_module_nfuncs(m); i++) {
            rvi_result r;
            rvi_import(m, i, &o, &r);
            rvi_result_free(&r);
        }
        rvi_module_free(m);
    }
    ravel_diags_free(d);
    for (int i = 0; i < 3; i++) rv_free(part[i]);
    return 0;
}
