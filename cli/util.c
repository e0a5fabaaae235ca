/* util.c - helpers shared by the subcommands. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

char *cli_read_file(const char *path, size_t *len)
{
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "ravel: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = rv_xmalloc(cap + 1);
    for (;;) {
        if (n == cap) {
            if (cap >= RV_MAX_INPUT_BYTES) {
                fprintf(stderr, "ravel: %s: input larger than %u MiB, refused\n", path, RV_MAX_INPUT_BYTES >> 20);
                free(buf);
                if (fp != stdin) fclose(fp);
                return NULL;
            }
            cap *= 2;
            if (cap > RV_MAX_INPUT_BYTES) cap = RV_MAX_INPUT_BYTES;
            buf = rv_xrealloc(buf, cap + 1);
        }
        size_t k = fread(buf + n, 1, cap - n, fp);
        n += k;
        if (k == 0) break;
    }
    int err = ferror(fp);
    if (fp != stdin) fclose(fp);
    if (err) {
        fprintf(stderr, "ravel: %s: read error\n", path);
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

ravel_module *cli_load(const char *path)
{
    size_t len;
    char *text = cli_read_file(path, &len);
    if (!text) return NULL;
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, len, path, d);
    free(text);
    if (!m || ravel_diags_count(d)) {
        ravel_diags_print(stderr, d);
        ravel_module_free(m);
        m = NULL;
    }
    ravel_diags_free(d);
    return m;
}

int cli_is_help(const char *s) { return strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0; }

int cli_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-') return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end) return -1;
    *out = v;
    return 0;
}
