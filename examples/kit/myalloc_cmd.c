/* myalloc_cmd.c - myalloc as a one-shot command of the ravel-alloc protocol
 * (docs/protocol.md): reads one machine + function on stdin, writes the
 * allocation on stdout; exit 0, 3 (declined) or 1 (failure). For
 *   ravel fuzz --machine machine.ra --alloc-cmd ./myalloc_cmd
 *   ravel reduce --machine machine.ra --alloc-cmd ./myalloc_cmd --from-fuzz kit CRASH
 * (the same MYALLOC_BUG as the kit target). */
#include "myalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_all(FILE *fp, size_t *len)
{
    size_t cap = 1 << 16;
    char *buf = malloc(cap);
    *len = 0;
    size_t got;
    while (buf && (got = fread(buf + *len, 1, cap - *len, fp)) > 0) {
        *len += got;
        if (*len == cap) buf = realloc(buf, cap *= 2);
    }
    return buf;
}

int main(void)
{
    myalloc_config c;
    if (myalloc_config_from_env(&c) != 0) return 1;
    size_t len;
    char *text = read_all(stdin, &len);
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = text ? ravel_module_parse(text, len, "<stdin>", d) : NULL;
    free(text);
    if (!m || ravel_diags_count(d) || ravel_module_nfuncs(m) != 1) {
        ravel_diags_print(stderr, d);
        return 1;
    }
    ravel_diags_free(d);
    const char *s = getenv("RAVEL_ALLOC_SEED");
    ravel_func *out = NULL;
    char *msg = NULL;
    int rc = myalloc_alloc(&c, ravel_module_func(m, 0), s ? strtoull(s, NULL, 0) : 0, &out, &msg);
    if (msg) fprintf(stderr, "%s\n", msg);
    free(msg);
    if (rc == RAVEL_OK) {
        ravel_print_machine(stdout, ravel_module_machine(m));
        fputc('\n', stdout);
        ravel_print_func(stdout, out);
        ravel_func_free(out);
    }
    ravel_module_free(m);
    return rc == RAVEL_OK ? 0 : rc == RAVEL_EDECLINED ? 3 : 1;
}
