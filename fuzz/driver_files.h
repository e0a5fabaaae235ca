/* driver_files.h - reading fuzz inputs from files and directories, shared by
 * the standalone drivers (driver_standalone.c, driver_replay.c,
 * driver_afl.c). Directories are read one level deep, in sorted order, so a
 * replay is deterministic; names starting with '.' are skipped. */
#ifndef RAVEL_FUZZ_DRIVER_FILES_H
#define RAVEL_FUZZ_DRIVER_FILES_H

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Called with each input; returns 0 to go on, nonzero to stop. */
typedef int (*rv_driver_fn)(const char *path, const uint8_t *data, size_t size, void *ctx);

static uint8_t *rv_driver_read(FILE *fp, size_t *len)
{
    size_t cap = 4096, n = 0, k;
    uint8_t *buf = malloc(cap);
    if (!buf) return NULL;
    while ((k = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += k;
        if (n == cap) {
            uint8_t *nb = cap > (1u << 30) ? NULL : realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                return NULL;
            }
            buf = nb;
        }
    }
    if (ferror(fp)) { /* a short read is not an input */
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

static int rv_driver_file(const char *path, rv_driver_fn fn, void *ctx, unsigned *count)
{
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
        return 1;
    }
    size_t len = 0;
    errno = 0;
    uint8_t *data = rv_driver_read(fp, &len);
    int err = errno;
    if (fp != stdin) fclose(fp);
    if (!data) {
        fprintf(stderr, "%s: cannot read: %s\n", path, err ? strerror(err) : "too large");
        return 1;
    }
    int r = fn(path, data, len, ctx);
    free(data);
    (*count)++;
    return r;
}

static int rv_driver_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Runs fn on a file, or on every file of a directory (sorted). */
static int rv_driver_path(const char *path, rv_driver_fn fn, void *ctx, unsigned *count)
{
    struct stat st;
    if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d) {
            fprintf(stderr, "%s: cannot open directory: %s\n", path, strerror(errno));
            return 1;
        }
        char **names = NULL;
        size_t n = 0, cap = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue;
            if (n == cap) {
                char **nn = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
                if (!nn) break;
                names = nn;
            }
            size_t l = strlen(path) + strlen(e->d_name) + 2;
            names[n] = malloc(l);
            if (!names[n]) break;
            snprintf(names[n++], l, "%s/%s", path, e->d_name);
        }
        closedir(d);
        if (n) qsort(names, n, sizeof *names, rv_driver_cmp);
        int r = 0;
        for (size_t i = 0; i < n; i++) {
            if (!r && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) r = rv_driver_file(names[i], fn, ctx, count);
            free(names[i]);
        }
        free(names);
        return r;
    }
    return rv_driver_file(path, fn, ctx, count);
}

/* Feeds every non-option argument (file or directory) to
 * LLVMFuzzerTestOneInput. Returns the number of paths given (0: none) and
 * sets *bad if one could not be read. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline int rv_driver_run_one(const char *path, const uint8_t *data, size_t size, void *ctx)
{
    (void)path, (void)ctx;
    LLVMFuzzerTestOneInput(data, size);
    return 0;
}

/* --help / -h anywhere: the usage on stdout, returns 1 (exit 0). With no
 * path and stdin a terminal (nothing piped in): the usage on stderr instead
 * of waiting for input, returns 2 (exit 2). Otherwise 0. */
static inline int rv_driver_usage(int argc, char **argv, const char *what)
{
    bool help = false, paths = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") || !strcmp(argv[i], "-help=1")) help = true;
        else if (argv[i][0] != '-' || !argv[i][1]) paths = true;
    }
    if (!help && (paths || !isatty(STDIN_FILENO))) return 0;
    FILE *out = help ? stdout : stderr;
    fprintf(out, "usage: %s [FILE|DIR]...\n%s\n"
                 "With no FILE it reads one input from standard input (piped, not a terminal).\n"
                 "Options starting with '-' (a fuzzing engine's) are ignored.\n",
            argv[0], what);
    return help ? 1 : 2;
}

static inline int rv_driver_args(int argc, char **argv, unsigned *count, int *bad)
{
    int paths = 0;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1]) continue; /* engine options are ignored */
        paths++;
        *bad |= rv_driver_path(argv[i], rv_driver_run_one, NULL, count);
    }
    return paths;
}

#endif
