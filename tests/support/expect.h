/* expect.h - the one grammar of test-case headers, and its parser (header
 * only), shared by every test driver (tests/support/README.md):
 *
 *   header line   "# KEY: VALUE" at the start of a line (anywhere in the
 *                 file; VALUE without trailing spaces or CR)
 *   # expect: ITEM[, ITEM]...
 *   ITEM          ok | accept | reject | bad-input | only | exit N
 *               | KIND            an error kind (checker report, injection)
 *               | KIND @LINE      ... at LINE
 *               | LINE:COL: TEXT  a diagnostic at LINE:COL containing TEXT
 *               | error TEXT      a failure whose message contains TEXT
 *   (the last two take the rest of the line: they end the list)
 *
 * A driver accepts the items its kind of test has and rejects the others
 * (ts_expect_only). */
#ifndef RAVEL_TESTS_EXPECT_H
#define RAVEL_TESTS_EXPECT_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum ts_xwhat {
    TS_X_OK, TS_X_ACCEPT, TS_X_REJECT, TS_X_BAD_INPUT, TS_X_ONLY, TS_X_EXIT, TS_X_KIND, TS_X_DIAG, TS_X_ERROR
} ts_xwhat;

typedef struct ts_expect {
    ts_xwhat what;
    int exit;           /* TS_X_EXIT: N */
    unsigned line, col; /* TS_X_KIND: @LINE (0: none); TS_X_DIAG */
    char word[64];      /* TS_X_KIND: the kind */
    char text[256];     /* TS_X_DIAG, TS_X_ERROR (truncated) */
} ts_expect;

/* The value of the next header line "# KEY: VALUE" of text at or after *p
 * (then *p is past it), copied into buf (truncated to n - 1 bytes); false
 * when there is none. */
static inline bool ts_header_next(const char **p, const char *key, char *buf, size_t n)
{
    size_t kl = strlen(key);
    for (const char *s = *p; s && *s;) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len >= kl + 4 && !memcmp(s, "# ", 2) && !memcmp(s + 2, key, kl) && !memcmp(s + 2 + kl, ": ", 2)) {
            size_t off = kl + 4, m = len - off;
            while (m && (s[off + m - 1] == ' ' || s[off + m - 1] == '\r')) m--;
            if (m >= n) m = n - 1;
            memcpy(buf, s + off, m);
            buf[m] = 0;
            *p = e ? e + 1 : s + len;
            return true;
        }
        s = e ? e + 1 : NULL;
    }
    *p = NULL;
    return false;
}

static inline void ts_copy(char *dst, size_t n, const char *src, size_t len)
{
    if (len >= n) len = n - 1;
    memcpy(dst, src, len);
    dst[len] = 0;
}

/* One item at s (no leading space) into *x; returns the end of the item
 * (NULL: bad syntax). */
static inline const char *ts_expect_item(const char *s, ts_expect *x)
{
    static const struct { const char *w; ts_xwhat what; } words[] = {
        {"ok", TS_X_OK}, {"accept", TS_X_ACCEPT}, {"reject", TS_X_REJECT}, {"bad-input", TS_X_BAD_INPUT}, {"only", TS_X_ONLY}};
    int off = 0;
    memset(x, 0, sizeof *x);
    if (sscanf(s, "%u:%u: %n", &x->line, &x->col, &off) == 2 && off > 0) {
        x->what = TS_X_DIAG;
        ts_copy(x->text, sizeof x->text, s + off, strlen(s + off));
        return s + strlen(s);
    }
    if (!strncmp(s, "error ", 6)) {
        x->what = TS_X_ERROR;
        ts_copy(x->text, sizeof x->text, s + 6, strlen(s + 6));
        return s + strlen(s);
    }
    size_t w = strcspn(s, " ,");
    if (!w || w >= sizeof x->word) return NULL;
    ts_copy(x->word, sizeof x->word, s, w);
    const char *e = s + w;
    for (size_t k = 0; k < sizeof words / sizeof *words; k++)
        if (!strcmp(x->word, words[k].w)) {
            x->what = words[k].what;
            return e;
        }
    if (!strcmp(x->word, "exit")) {
        char *end;
        x->what = TS_X_EXIT;
        x->exit = (int)strtol(e, &end, 10);
        return end == e ? NULL : end;
    }
    x->what = TS_X_KIND;
    if (!strncmp(e, " @", 2)) {
        char *end;
        x->line = (unsigned)strtoul(e + 2, &end, 10);
        return end == e + 2 ? NULL : end;
    }
    return e;
}

/* The items of one `# expect:` value into out[0 .. max); their count, or
 * -1 on bad syntax (a message names the value). */
static inline int ts_expect_parse(const char *v, ts_expect *out, int max)
{
    int n = 0;
    for (const char *s = v; *s;) {
        while (*s == ' ') s++;
        ts_expect x;
        const char *e = *s ? ts_expect_item(s, &x) : NULL;
        while (e && *e == ' ') e++;
        if (!e || n == max || (*e && *e != ',')) {
            fprintf(stderr, "bad '# expect:' value: %s\n", v);
            return -1;
        }
        out[n++] = x;
        s = *e ? e + 1 : e;
    }
    return n;
}

/* True if every item of x[0 .. n) is of a kind in allowed (a bit per
 * ts_xwhat); else a message names the value. */
static inline bool ts_expect_only(const ts_expect *x, int n, unsigned allowed, const char *v)
{
    for (int i = 0; i < n; i++)
        if (!(allowed >> x[i].what & 1)) {
            fprintf(stderr, "'# expect: %s': item %d is not for this kind of test\n", v, i + 1);
            return false;
        }
    return true;
}

#endif
