/* myalloc_cmd.c - myalloc as a command of the ravel-alloc protocol
 * (docs/protocol.md), for allocators fuzzed out of process:
 *
 *   myalloc_cmd            one-shot: one machine + function on stdin, the
 *                          allocation on stdout; exit 0, 3 (declined) or 1
 *   myalloc_cmd --frames   persistent: serves "ravel-alloc 1 N" requests
 *                          until end of input (answers ok / declined / error)
 *
 *   ravel fuzz --machine machine.ra --alloc-cmd ./myalloc_cmd
 *   ravel fuzz --machine machine.ra --alloc-cmd './myalloc_cmd --frames' --alloc-protocol frames
 *   ravel reduce --machine machine.ra --alloc-cmd ./myalloc_cmd --from-fuzz kit CRASH
 * (MYALLOC_BUG as for the kit target). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "myalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ANSWER_OK, ANSWER_DECLINED, ANSWER_ERROR };

/* Allocates the module in text; *answer is the allocated module or why it
 * was declined or failed (malloc'd, *len bytes). */
static int allocate_text(const myalloc_config *c, uint64_t seed, const char *text, size_t n, char **answer, size_t *len)
{
    FILE *fp = open_memstream(answer, len);
    if (!fp) return ANSWER_ERROR;
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, n, "<input>", d);
    int kind = ANSWER_ERROR;
    if (!m || ravel_diags_count(d) || ravel_module_nfuncs(m) != 1) {
        ravel_diags_print(fp, d);
    } else {
        ravel_func *out = NULL;
        char *msg = NULL;
        int rc = myalloc_alloc((void *)c, ravel_module_func(m, 0), seed, &out, &msg);
        if (rc == RAVEL_OK) {
            ravel_print_machine(fp, ravel_module_machine(m));
            fputc('\n', fp);
            ravel_print_func(fp, out);
            ravel_func_free(out);
            kind = ANSWER_OK;
        } else {
            fprintf(fp, "%s\n", msg ? msg : "myalloc failed");
            kind = rc == RAVEL_EDECLINED ? ANSWER_DECLINED : ANSWER_ERROR;
        }
        free(msg);
    }
    ravel_module_free(m);
    ravel_diags_free(d);
    fclose(fp);
    return kind;
}

static char *read_n(FILE *fp, size_t n)
{
    char *buf = malloc(n + 1);
    if (buf && fread(buf, 1, n, fp) != n) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int serve_frames(const myalloc_config *c)
{
    char head[64];
    unsigned long n;
    while (fgets(head, sizeof head, stdin)) {
        if (sscanf(head, "ravel-alloc 1 %lu", &n) != 1) return 2;
        char *text = read_n(stdin, n), *answer = NULL;
        if (!text) return 2;
        size_t len = 0;
        /* frames carry no seed: the allocator's own (0) */
        int kind = allocate_text(c, 0, text, n, &answer, &len);
        static const char *const names[] = {"ok", "declined", "error"};
        printf("%s %zu\n", names[kind], len);
        fwrite(answer, 1, len, stdout);
        fflush(stdout);
        free(text);
        free(answer);
    }
    return 0;
}

static int one_shot(const myalloc_config *c)
{
    size_t cap = 1 << 16, n = 0, got;
    char *text = malloc(cap);
    while (text && (got = fread(text + n, 1, cap - n, stdin)) > 0)
        if ((n += got) == cap) text = realloc(text, cap *= 2);
    if (!text) return 1;
    const char *s = getenv("RAVEL_ALLOC_SEED");
    char *answer = NULL;
    size_t len = 0;
    int kind = allocate_text(c, s ? strtoull(s, NULL, 0) : 0, text, n, &answer, &len);
    fwrite(answer, 1, len, kind == ANSWER_OK ? stdout : stderr);
    free(text);
    free(answer);
    return kind == ANSWER_OK ? 0 : kind == ANSWER_DECLINED ? 3 : 1;
}

int main(int argc, char **argv)
{
    myalloc_config c;
    if (myalloc_config_from_env(&c) != 0) return 1;
    if (argc == 2 && !strcmp(argv[1], "--frames")) return serve_frames(&c);
    if (argc != 1) {
        fprintf(stderr, "usage: myalloc_cmd [--frames]   (ravel-alloc protocol 1, docs/protocol.md)\n");
        return 2;
    }
    return one_shot(&c);
}
