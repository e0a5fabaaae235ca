/* bench_parse.c - throughput of the .ra reader, alone and followed by the
 * validator.
 *
 * For each size (30, then 10^3 .. 10^6 instructions by default: 1 KB to
 * 37 MB of text) it generates the text
 * of one realistic function: a chain of counted loops, each with a header
 * taking block parameters, a body mixing two register classes (int, float),
 * immediates and a call with fixed registers every other loop, and an exit
 * block (no critical edges, SSA). It then reports, as the median of RUNS
 * runs: the parse time, MB/s and instructions/s, the same for parse +
 * ravel_validate (with SSA checks), and the peak memory per instruction of
 * one parse (ru_maxrss growth, measured in a forked child so that sizes do
 * not mask each other), next to the bytes of text per instruction.
 * Times are CPU time of the process (CLOCK_PROCESS_CPUTIME_ID, user plus
 * system), so that other load on a shared machine does not distort them.
 *
 * Texts under 1 MB are parsed several times per run (about 1 MB in all;
 * the time is per parse), so that the CPU clock can time them.
 *
 * usage: bench_parse [--runs N] [--max INSTS | --sizes N,N...] [--dump INSTS] [--loop INSTS [--file F] [--validate]]
 *   --sizes: these sizes (instructions) instead of 30, 10^3 .. --max;
 *   --dump prints the generated text for that size and exits;
 *   --loop parses the text of that size N times and exits (for perf);
 *   --file F: --loop parses the .ra file F instead;
 *   --validate: --loop validates each module it parses, too.
 * Run it from a Release build: `ninja bench_parse && bench/bench_parse`. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, fork */
#include "ir/ir.h"

#include "bench/bench_util.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = b->cap * 2 + (size_t)n + 64;
        b->p = rv_xrealloc(b->p, b->cap);
    }
}

/* Generates a function with about `target` instructions (terminators
 * included); returns the exact count in *ninsts. */
static char *gen_text(uint64_t target, size_t *len, uint64_t *ninsts)
{
    sbuf b = {rv_xmalloc(1 << 16), 0, 1 << 16};
    sb_printf(&b, "machine\n  class int r0..r15\n  class float f0..f15\n  reserved int sp fp\n"
                  "  clobbers r0..r5 f0..f5\nend\n\nfunc big\nb0:\n");
    sb_printf(&b, "  v0:int fixed(r0), v1:int fixed(r1), v2:float fixed(f0) = args\n  jump h0(v0, v2)\n");
    uint64_t n = 2, v = 3, loop = 0;
    for (; n < target; loop++) {
        uint64_t a = v++, f = v++;
        /* header: 2 instructions */
        sb_printf(&b, "h%llu(v%llu:int, v%llu:float):\n", (unsigned long long)loop, (unsigned long long)a, (unsigned long long)f);
        uint64_t c = v++;
        sb_printf(&b, "  v%llu:int = lt v%llu, v1\n  br v%llu, l%llu, x%llu\n", (unsigned long long)c,
                  (unsigned long long)a, (unsigned long long)c, (unsigned long long)loop, (unsigned long long)loop);
        n += 2;
        /* body: 14 or 15 instructions */
        sb_printf(&b, "l%llu:\n", (unsigned long long)loop);
        uint64_t t1 = v++, t2 = v++, t3 = v++, t4 = v++, t5 = v++, t6 = v++, t7 = v++, t8 = v++;
        sb_printf(&b, "  v%llu:int = mul v%llu, v1\n", (unsigned long long)t1, (unsigned long long)a);
        sb_printf(&b, "  v%llu:float = itof v%llu\n", (unsigned long long)t2, (unsigned long long)t1);
        sb_printf(&b, "  v%llu:float = fadd v%llu, v%llu\n", (unsigned long long)t3, (unsigned long long)f, (unsigned long long)t2);
        sb_printf(&b, "  v%llu:int = xor v%llu, 0x55\n", (unsigned long long)t4, (unsigned long long)t1);
        sb_printf(&b, "  v%llu:int = shl v%llu, 3\n", (unsigned long long)t5, (unsigned long long)t4);
        sb_printf(&b, "  v%llu:int = add v%llu, v%llu\n", (unsigned long long)t6, (unsigned long long)t5, (unsigned long long)a);
        sb_printf(&b, "  v%llu:float = fmul v%llu, v%llu\n", (unsigned long long)t7, (unsigned long long)t3, (unsigned long long)f);
        sb_printf(&b, "  v%llu:int = sub v%llu, -7\n", (unsigned long long)t8, (unsigned long long)t6);
        n += 8;
        uint64_t r = t8;
        if (loop % 2 == 0) {
            r = v++;
            sb_printf(&b, "  v%llu:int fixed(r0) = call f v%llu fixed(r0), v%llu fixed(r1)\n", (unsigned long long)r,
                      (unsigned long long)t8, (unsigned long long)t6);
            n++;
        }
        uint64_t t9 = v++, t10 = v++, t11 = v++, na = v++;
        sb_printf(&b, "  v%llu:int = and v%llu, 255\n", (unsigned long long)t9, (unsigned long long)r);
        sb_printf(&b, "  v%llu:float = fsub v%llu, v%llu\n", (unsigned long long)t10, (unsigned long long)t7, (unsigned long long)t3);
        sb_printf(&b, "  v%llu:int reuse(0) = or v%llu, v%llu\n", (unsigned long long)t11, (unsigned long long)t9, (unsigned long long)t1);
        sb_printf(&b, "  out v%llu\n", (unsigned long long)t11);
        sb_printf(&b, "  v%llu:int = add v%llu, 1\n", (unsigned long long)na, (unsigned long long)a);
        sb_printf(&b, "  jump h%llu(v%llu, v%llu)\n", (unsigned long long)loop, (unsigned long long)na, (unsigned long long)t10);
        n += 6;
        /* exit: 1 instruction */
        sb_printf(&b, "x%llu:\n", (unsigned long long)loop);
        if (n + 1 >= target) sb_printf(&b, "  ret v%llu fixed(r0), v%llu fixed(f0)\n", (unsigned long long)a, (unsigned long long)f);
        else sb_printf(&b, "  jump h%llu(v%llu, v%llu)\n", (unsigned long long)loop + 1, (unsigned long long)a, (unsigned long long)f);
        n++;
    }
    sb_printf(&b, "end\n");
    *len = b.len;
    *ninsts = n;
    return b.p;
}

/* One parse (and optionally validation) of the text, repeated `reps` times
 * (the modules are freed after the clock stops); returns seconds per
 * parse, or -1 on error. */
static double run_once(const char *text, size_t len, bool validate, int reps)
{
    ravel_diags *d = ravel_diags_new();
    ravel_module **m = rv_xcalloc((size_t)reps, sizeof *m);
    int rc = RAVEL_OK;
    double t0 = bench_cpu_sec();
    for (int r = 0; r < reps && rc == RAVEL_OK; r++) {
        m[r] = ravel_module_parse(text, len, "bench.ra", d);
        rc = m[r] ? RAVEL_OK : RAVEL_EINVAL;
        if (m[r] && validate)
            for (size_t i = 0; i < ravel_module_nfuncs(m[r]) && rc == RAVEL_OK; i++)
                rc = ravel_validate(ravel_module_func(m[r], i), RAVEL_VALIDATE_SSA, d);
    }
    double t = (bench_cpu_sec() - t0) / reps;
    if (rc != RAVEL_OK) ravel_diags_print(stderr, d);
    for (int r = 0; r < reps; r++) ravel_module_free(m[r]);
    rv_free(m);
    ravel_diags_free(d);
    return rc == RAVEL_OK ? t : -1;
}

/* Small texts are parsed several times per timed run (about 1 MB of text
 * in all), so that a run lasts long enough for the CPU clock, as a JIT
 * parsing many small functions would see them (warm caches). */
static int reps_for(size_t len) { return len >= (1u << 20) ? 1 : (int)((1u << 20) / (len + 1)); }

static double median_time(const char *text, size_t len, bool validate, int runs)
{
    double *t = rv_xmalloc(sizeof(double) * (size_t)runs);
    for (int i = 0; i < runs; i++)
        if ((t[i] = run_once(text, len, validate, reps_for(len))) < 0) {
            free(t);
            return -1;
        }
    double m = bench_median(t, (size_t)runs);
    free(t);
    return m;
}

/* Peak resident memory growth (bytes) of one parse, in a child process. */
static double peak_bytes(const char *text, size_t len)
{
    int fd[2];
    if (pipe(fd) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        close(fd[0]);
        struct rusage r0, r1;
        getrusage(RUSAGE_SELF, &r0);
        ravel_diags *d = ravel_diags_new();
        ravel_module *m = ravel_module_parse(text, len, "bench.ra", d);
        getrusage(RUSAGE_SELF, &r1);
        ravel_module_free(m);
        ravel_diags_free(d);
        double kb = (double)(r1.ru_maxrss - r0.ru_maxrss);
        ssize_t w = write(fd[1], &kb, sizeof kb);
        _exit(w == (ssize_t)sizeof kb ? 0 : 1);
    }
    close(fd[1]);
    double kb = -1;
    if (read(fd[0], &kb, sizeof kb) != (ssize_t)sizeof kb) kb = -1;
    close(fd[0]);
    waitpid(pid, NULL, 0);
    return kb < 0 ? -1 : kb * 1024.0;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    sbuf b = {rv_xmalloc(1 << 16), 0, 1 << 16};
    for (size_t k; (k = fread(b.p + b.len, 1, b.cap - b.len, fp)) > 0;)
        if ((b.len += k) == b.cap) b.p = rv_xrealloc(b.p, b.cap *= 2);
    fclose(fp);
    *len = b.len;
    return b.p;
}

int main(int argc, char **argv)
{
    int runs = 5;
    uint64_t max = 1000000, dump = 0, loop = 0;
    const char *file = NULL, *sizes = NULL;
    bool loop_val = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--max") == 0 && i + 1 < argc) max = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc) dump = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--loop") == 0 && i + 1 < argc) loop = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--file") == 0 && i + 1 < argc) file = argv[++i];
        else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) sizes = argv[++i];
        else if (strcmp(argv[i], "--validate") == 0) loop_val = true;
        else {
            fputs("usage: bench_parse [--runs N] [--max INSTS | --sizes N,N...] [--dump INSTS] [--loop INSTS [--file F] [--validate]]\n", stderr);
            return 2;
        }
    }
    if (runs < 1) runs = 1;
    if (dump) {
        size_t len;
        uint64_t n;
        char *t = gen_text(dump, &len, &n);
        fwrite(t, 1, len, stdout);
        free(t);
        return 0;
    }
    if (loop) {
        size_t len;
        uint64_t n;
        char *t = file ? read_file(file, &len) : gen_text(loop, &len, &n);
        if (!t) return 1;
        for (int i = 0; i < runs; i++)
            if (run_once(t, len, loop_val, 1) < 0) return 1;
        free(t);
        return 0;
    }
    printf("parse = ravel_module_parse; +validate = parse then ravel_validate(SSA); CPU time, median of %d runs\n", runs);
    printf("%9s %8s | %9s %8s %9s | %9s %8s %9s | %9s %9s\n", "insts", "MB", "parse ms", "MB/s", "Minst/s",
           "+val ms", "MB/s", "Minst/s", "peak B/in", "text B/in");
    int rc = 0;
    bool list = sizes != NULL;
    for (uint64_t size = list ? strtoull(sizes, NULL, 10) : 30; list ? size > 0 : size <= max;) {
        size_t len;
        uint64_t n;
        char *text = gen_text(size, &len, &n);
        double tp = median_time(text, len, false, runs);
        double tv = median_time(text, len, true, runs);
        double peak = peak_bytes(text, len);
        if (tp < 0 || tv < 0) {
            fprintf(stderr, "bench_parse: the generated text of size %llu was rejected\n", (unsigned long long)size);
            rc = 1;
        }
        double mb = (double)len / 1e6;
        printf("%9llu %8.3f | %9.3f %8.1f %9.2f | %9.3f %8.1f %9.2f | %9.1f %9.1f\n", (unsigned long long)n, mb, tp * 1e3,
               mb / tp, (double)n / tp / 1e6, tv * 1e3, mb / tv, (double)n / tv / 1e6, peak / (double)n,
               (double)len / (double)n);
        free(text);
        if (!list) {
            size = size == 30 ? 1000 : size * 10;
        } else {
            sizes = strchr(sizes, ',');
            size = sizes ? strtoull(++sizes, NULL, 10) : 0;
        }
    }
    return rc;
}
