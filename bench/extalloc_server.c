/* extalloc_server.c - a trivial frames server (ravel-alloc protocol 1,
 * docs/protocol.md) answering with a built-in allocator:
 *
 *   extalloc_server [ALLOCATOR]      (default fast)
 *
 * Reads "ravel-alloc 1 N\n" + N bytes, parses the module, allocates its one
 * function with ravel_allocate, answers "ok N\n" + the printed module (or
 * "error N\n" + the message). bench_extalloc times it against the same
 * allocator in-process: the difference is the protocol's overhead
 * (printing, two pipe transfers, parsing on both sides, the machine check).
 * Ends at end of input. An input that does not start with "ravel-alloc" is
 * a one-shot request (the module itself): answered raw, exit 0 or 1. */
#define _GNU_SOURCE /* open_memstream */
#include "ravel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int oneshot_mode;

static int answer(const char *status, const char *body, size_t n)
{
    if (oneshot_mode) {
        fwrite(body, 1, n, strcmp(status, "ok") ? stderr : stdout);
        return strcmp(status, "ok") ? 1 : 0;
    }
    printf("%s %zu\n", status, n);
    fwrite(body, 1, n, stdout);
    return fflush(stdout) == 0 ? 0 : -1;
}

static int serve(const char *alloc, const char *text, size_t n)
{
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, n, "<request>", d);
    ravel_diags_free(d);
    if (!m || ravel_module_nfuncs(m) != 1) {
        ravel_module_free(m);
        return answer("error", "bad request", 11);
    }
    ravel_func *out = NULL;
    char *err = NULL;
    int rc = ravel_allocate(alloc, ravel_module_func(m, 0), 0, &out, &err);
    int r;
    if (rc == RAVEL_OK) {
        char *buf = NULL;
        size_t len = 0;
        FILE *fp = open_memstream(&buf, &len);
        if (!fp) return -1;
        ravel_print_machine(fp, ravel_module_machine(m));
        fputc('\n', fp);
        ravel_print_func(fp, out);
        fclose(fp);
        r = answer("ok", buf, len);
        free(buf);
    } else {
        r = answer("error", err ? err : "failed", strlen(err ? err : "failed"));
    }
    ravel_func_free(out);
    free(err);
    ravel_module_free(m);
    return r;
}

int main(int argc, char **argv)
{
    const char *alloc = argc > 1 ? argv[1] : "fast";
    char head[128];
    while (fgets(head, sizeof head, stdin)) {
        if (strncmp(head, "ravel-alloc ", 12) != 0) { /* one-shot: the module is the whole input */
            size_t cap = 1 << 16, n = strlen(head);
            char *text = malloc(cap);
            if (!text) return 2;
            memcpy(text, head, n);
            for (size_t r; (r = fread(text + n, 1, cap - n, stdin)) > 0;) {
                n += r;
                if (n == cap && !(text = realloc(text, cap *= 2))) return 2;
            }
            oneshot_mode = 1;
            int rc = serve(alloc, text, n);
            free(text);
            return rc;
        }
        int version = 0;
        size_t n = 0;
        if (sscanf(head, "ravel-alloc %d %zu", &version, &n) != 2 || version != 1) return 2;
        char *text = malloc(n + 1);
        if (!text || fread(text, 1, n, stdin) != n) return 2;
        int r = serve(alloc, text, n);
        free(text);
        if (r) return 1;
    }
    return 0;
}
