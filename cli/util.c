/* util.c - helpers shared by the subcommands. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen, fchmod */
#include "cli.h"
#include "fuzz/gen.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* cli_read_file, the reason for a failure written into why instead. */
static char *read_file(const char *path, size_t *len, char *why, size_t whylen)
{
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!fp) {
        snprintf(why, whylen, "ravel: %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    struct stat st;
    if (fp != stdin && fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode)) { /* a file's size is known: refuse or size first */
        if ((uint64_t)st.st_size > RV_MAX_INPUT_BYTES) {
            snprintf(why, whylen, "ravel: %s: input larger than %u MiB, refused", path, RV_MAX_INPUT_BYTES >> 20);
            fclose(fp);
            return NULL;
        }
        if ((size_t)st.st_size + 1 > cap) cap = (size_t)st.st_size + 1; /* one more, to see the end without growing */
    }
    char *buf = rv_xmalloc(cap + 1);
    for (;;) {
        if (n == cap) {
            if (cap >= RV_MAX_INPUT_BYTES) {
                snprintf(why, whylen, "ravel: %s: input larger than %u MiB, refused", path, RV_MAX_INPUT_BYTES >> 20);
                free(buf);
                if (fp != stdin) fclose(fp);
                return NULL;
            }
            cap *= 2;
            if (cap > RV_MAX_INPUT_BYTES) cap = RV_MAX_INPUT_BYTES;
            buf = rv_xrealloc(buf, cap + 1);
        }
        errno = 0;
        size_t k = fread(buf + n, 1, cap - n, fp);
        n += k;
        if (k == 0) break;
    }
    int err = ferror(fp) ? (errno ? errno : EIO) : 0; /* fread's errno (EISDIR for a directory) */
    if (fp != stdin) fclose(fp);
    if (err) {
        snprintf(why, whylen, "ravel: %s: %s", path, strerror(err));
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

char *cli_read_file(const char *path, size_t *len)
{
    char why[512];
    char *text = read_file(path, len, why, sizeof why);
    if (!text) fprintf(stderr, "%s\n", why);
    return text;
}

static void json_bad_input(FILE *json, const char *msg)
{
    fputs("{\"kind\":\"bad-input\",\"message\":", json);
    rv_json_str(json, msg);
    fputs("}\n", json);
}

ravel_module *cli_load_json(const char *path, FILE *json)
{
    size_t len;
    char why[512];
    char *text = read_file(path, &len, why, sizeof why);
    if (!text) {
        fprintf(stderr, "%s\n", why);
        if (json) json_bad_input(json, why);
        return NULL;
    }
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, len, path, d);
    free(text);
    if (!m || ravel_diags_count(d)) {
        ravel_diags_print(stderr, d);
        for (uint32_t i = 0; json && i < d->v.len; i++) json_bad_input(json, d->v.data[i].msg);
        ravel_module_free(m);
        m = NULL;
    }
    ravel_diags_free(d);
    return m;
}

ravel_module *cli_load(const char *path) { return cli_load_json(path, NULL); }

ravel_module *cli_read_machine(const char *cmd, const char *path)
{
    size_t len;
    char why[512];
    char *text = read_file(path, &len, why, sizeof why);
    if (!text) {
        fprintf(stderr, "ravel %s: error: %s\n", cmd, strncmp(why, "ravel: ", 7) ? why : why + 7);
        return NULL;
    }
    /* A file that holds only a machine block is a machine file: the format
     * wants a function after the machine, so a stub is appended (after the
     * last line: positions in the machine stay right). */
    bool has_func = false, has_end = false; /* (no `end`: the reader's own error, at the last line) */
    for (size_t i = 0; i < len && !has_func; i++)
        if (i == 0 || text[i - 1] == '\n') {
            size_t j = i;
            while (j < len && (text[j] == ' ' || text[j] == '\t')) j++;
            has_func = len - j >= 5 && !memcmp(text + j, "func", 4) && (text[j + 4] == ' ' || text[j + 4] == '\t');
            has_end |= len - j >= 3 && !memcmp(text + j, "end", 3) && (len - j == 3 || strchr(" \t\r\n#", text[j + 3]));
        }
    if (!has_func && has_end) {
        static const char stub[] = "\nfunc machine_only\nb0:\n  ret\nend\n";
        char *t = realloc(text, len + sizeof stub);
        if (!t) {
            free(text);
            fprintf(stderr, "ravel %s: error: out of memory\n", cmd);
            return NULL;
        }
        text = t;
        memcpy(text + len, stub, sizeof stub);
        len += sizeof stub - 1;
    }
    ravel_module *m = cli_parse_text(text, len, path);
    free(text);
    return m;
}

ravel_module *cli_parse_text(const char *text, size_t len, const char *file)
{
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, len, file, d);
    if (!m || ravel_diags_count(d)) {
        ravel_diags_print(stderr, d);
        ravel_module_free(m);
        m = NULL;
    }
    ravel_diags_free(d);
    return m;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ravel %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n'ravel %s --help' lists the options\n", cmd);
    return CLI_USAGE;
}

int cli_bad_value(const char *cmd, const char *arg, const char *val, const char *want)
{
    int n = arg[1] == '-' ? (int)strcspn(arg, "=") : 2;
    const char *open = want ? " (want " : "", *close = want ? ")" : "";
    if (!val) return cli_usage_error(cmd, "%.*s needs a value%s%s%s", n, arg, open, want ? want : "", close);
    return cli_usage_error(cmd, "bad value '%s' for %.*s%s%s%s", val, n, arg, open, want ? want : "", close);
}

int cli_bad_feature(const char *cmd, const char *arg)
{
    char list[256];
    size_t k = 0;
    list[0] = 0;
    for (size_t i = 0; rv_gen_feature_name(i) && k < sizeof list; i++) {
        int w = snprintf(list + k, sizeof list - k, "%s%s", i ? " " : "", rv_gen_feature_name(i));
        if (w < 0) break;
        k += (size_t)w;
    }
    return cli_usage_error(cmd, "unknown feature in '%s' (features: %s)", arg, list);
}

FILE *cli_out_open(cli_out *o, const char *cmd, const char *path)
{
    o->fp = NULL;
    o->path = path;
    o->tmp = NULL;
    if (!path || strcmp(path, "-") == 0) {
        o->path = NULL;
        return o->fp = stdout;
    }
    size_t n = strlen(path) + 16;
    o->tmp = rv_xmalloc(n);
    snprintf(o->tmp, n, "%s.tmpXXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd >= 0) { /* the mode of the file replaced, else what a new file would get */
        struct stat st;
        mode_t mode;
        if (stat(path, &st) == 0) mode = st.st_mode & 07777;
        else {
            mode_t mask = umask(0);
            umask(mask);
            mode = 0666 & ~mask;
        }
        if (fchmod(fd, mode) != 0) { /* keep mkstemp's 0600 */ }
    }
    if (fd < 0 || !(o->fp = fdopen(fd, "w"))) {
        fprintf(stderr, "ravel %s: cannot write '%s': %s\n", cmd, path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            remove(o->tmp);
        }
        free(o->tmp);
        o->tmp = NULL;
        return NULL;
    }
    return o->fp;
}

int cli_out_commit(cli_out *o, const char *cmd, bool ok)
{
    if (!o->fp) return CLI_USAGE;
    if (!o->path) {
        o->fp = NULL;
        return fflush(stdout) != 0 && ok ? CLI_USAGE : CLI_OK;
    }
    bool written = fflush(o->fp) == 0 && !ferror(o->fp);
    written = fclose(o->fp) == 0 && written;
    o->fp = NULL;
    int rc = CLI_OK;
    if (ok && written && rename(o->tmp, o->path) == 0) {
        /* in place */
    } else {
        if (ok) {
            fprintf(stderr, "ravel %s: cannot write '%s': %s\n", cmd, o->path, strerror(errno));
            rc = CLI_USAGE;
        }
        remove(o->tmp);
    }
    free(o->tmp);
    o->tmp = NULL;
    return rc;
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
