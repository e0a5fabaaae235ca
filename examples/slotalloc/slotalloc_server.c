/* slotalloc_server.c - the slot allocator as a command of the ravel-alloc
 * protocol (docs/protocol.md):
 *
 *   slotalloc_server             persistent (frames): serves "ravel-alloc 1 N"
 *                                requests until end of input, answering
 *                                ok / declined / error
 *   slotalloc_server --oneshot   one module (machine + function) on stdin,
 *                                the allocated module on stdout; exit 0,
 *                                3 (declined), 1 (failed) or 2 (bad input)
 *
 *   ravel fuzz --alloc-cmd ./slotalloc_server --alloc-protocol frames
 *   ravel reduce --alloc-cmd './slotalloc_server --oneshot' FAILURE.ra
 *
 * SLOTALLOC_BUG (slotalloc.h) plants a bug; an unknown name is an error. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "slotalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ANSWER_OK, ANSWER_DECLINED, ANSWER_ERROR, ANSWER_BAD };

/* Allocates the module in text; *answer (malloc'd, *len bytes) is the
 * allocated module, or why it was declined, failed or could not be read. */
static int allocate_text(const slotalloc_config *c, const char *text, size_t n, char **answer, size_t *len)
{
    FILE *fp = open_memstream(answer, len);
    if (!fp) return ANSWER_ERROR;
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, n, "<input>", d);
    int kind = ANSWER_BAD;
    if (!m || ravel_diags_count(d)) {
        ravel_diags_print(fp, d);
    } else if (ravel_module_nfuncs(m) != 1) {
        fprintf(fp, "slotalloc_server: error: %zu functions in the input, want 1\n", ravel_module_nfuncs(m));
    } else if (ravel_validate(ravel_module_func(m, 0), RAVEL_VALIDATE_SSA, d) != RAVEL_OK) {
        ravel_diags_print(fp, d);
    } else {
        ravel_func *out = NULL;
        char *msg = NULL;
        int rc = slotalloc_alloc((void *)c, ravel_module_func(m, 0), 0, &out, &msg);
        if (rc == RAVEL_OK) {
            ravel_print_machine(fp, ravel_module_machine(m));
            fputc('\n', fp);
            ravel_print_func(fp, out);
            ravel_func_free(out);
            kind = ANSWER_OK;
        } else {
            fprintf(fp, "%s\n", msg ? msg : "slotalloc failed");
            kind = rc == RAVEL_EDECLINED ? ANSWER_DECLINED : rc == RAVEL_EINVAL ? ANSWER_BAD : ANSWER_ERROR;
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

static int serve_frames(const slotalloc_config *c)
{
    static const char *const names[] = {"ok", "declined", "error", "error"};
    char head[72];
    while (fgets(head, sizeof head, stdin)) {
        unsigned long n;
        char end;
        if (sscanf(head, "ravel-alloc 1 %lu%c", &n, &end) != 2 || end != '\n') {
            fprintf(stderr, "slotalloc_server: error: bad request header\n");
            return 2;
        }
        char *text = read_n(stdin, n), *answer = NULL;
        if (!text) {
            fprintf(stderr, "slotalloc_server: error: the request ends before its %lu bytes\n", n);
            return 2;
        }
        size_t len = 0;
        int kind = allocate_text(c, text, n, &answer, &len);
        printf("%s %zu\n", names[kind], len);
        fwrite(answer, 1, len, stdout);
        fflush(stdout);
        free(text);
        free(answer);
    }
    return 0;
}

static int one_shot(const slotalloc_config *c)
{
    size_t cap = 1 << 16, n = 0, got;
    char *text = malloc(cap);
    while (text && (got = fread(text + n, 1, cap - n, stdin)) > 0)
        if ((n += got) == cap) {
            char *bigger = realloc(text, cap *= 2);
            if (!bigger) free(text);
            text = bigger;
        }
    if (!text) return 1;
    char *answer = NULL;
    size_t len = 0;
    int kind = allocate_text(c, text, n, &answer, &len);
    fwrite(answer, 1, len, kind == ANSWER_OK ? stdout : stderr);
    free(text);
    free(answer);
    static const int status[] = {0, 3, 1, 2};
    return status[kind];
}

int main(int argc, char **argv)
{
    slotalloc_config c = slotalloc_config_from_env();
    if (c.unknown) {
        fprintf(stderr, "slotalloc_server: error: unknown SLOTALLOC_BUG '%s' (known: reload, stackmap, clobber)\n", c.unknown);
        return 2;
    }
    if (argc == 1) return serve_frames(&c);
    if (argc == 2 && !strcmp(argv[1], "--oneshot")) return one_shot(&c);
    fprintf(stderr, "usage: slotalloc_server [--oneshot]   (ravel-alloc protocol 1, docs/protocol.md;\n"
                    "       default: frames, --oneshot: one module on stdin, the allocation on stdout)\n");
    return 2;
}
