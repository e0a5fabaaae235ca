/*
 * pipeline.c - docs/import-mapping.md §1.1 as processes: clang to IR,
 * llc to the input of the allocator, S1, llc allocating and rewriting with both
 * printouts; then the texts are read back for the join.
 *
 *   greedy  llc -O L -run-pass=greedy,virtregrewriter -print-before=virtregrewriter
 *           -print-after=virtregrewriter -print-regmask-num-regs=-1
 *   basic   the same with regallocbasic
 *   pbqp    llc -O L -regalloc=pbqp -start-after=machine-scheduler
 *           -stop-after=virtregrewriter (pbqp has no -run-pass name)
 *   fast    llc -O L -run-pass=regallocfast -print-before=regallocfast
 *           -print-after=regallocfast (-regalloc=fast when L > 0)
 *
 * An SSA .mir (ravel export-mir, rvi_pipe_opts.ssa) first goes through
 *           llc -O L -start-before=detect-dead-lanes (L = 0: phi-node-elimination)
 *           -stop-before=greedy (regallocfast for fast)
 *
 * Requires: clang and llc of one LLVM (rvi_llvm_find). Guarantees: every
 * command is run without a shell and under a timeout, written into
 * r->commands as a reproducible line; a failure is reported as bad input
 * (clang, the first llc, S1: the input cannot be compiled or tagged) or as
 * RVI_PIPE_LLC (the allocating llc: every function is then refused with
 * reason `llc`).
 */
#define _POSIX_C_SOURCE 200809L
#include "import/import.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static bool read_all(const char *path, char **out, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return false;
    size_t cap = 1 << 16, n = 0;
    char *b = rv_xmalloc(cap + 1);
    for (;;) {
        if (n == cap) {
            if (cap >= RV_MAX_INPUT_BYTES) break;
            cap *= 2;
            b = rv_xrealloc(b, cap + 1);
        }
        size_t k = fread(b + n, 1, cap - n, fp);
        n += k;
        if (k == 0) break;
    }
    bool ok = !ferror(fp) && n < RV_MAX_INPUT_BYTES;
    fclose(fp);
    if (!ok) {
        rv_free(b);
        return false;
    }
    b[n] = 0;
    *out = b;
    *len = n;
    return true;
}

static bool write_all(const char *path, const char *s, size_t n)
{
    FILE *fp = fopen(path, "wb");
    if (!fp) return false;
    bool ok = fwrite(s, 1, n, fp) == n;
    return fclose(fp) == 0 && ok;
}

/* ----- finding LLVM ----- */
static int tool_version(const char *llc)
{
    char tmp[] = "/tmp/ravel-llcver-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0) return 0;
    close(fd);
    char *argv[] = {(char *)llc, "--version", NULL};
    rvi_proc p = rvi_run(argv, tmp, NULL, 10);
    char *s = NULL;
    size_t n = 0;
    int v = 0;
    if (p.how == RVI_PROC_EXITED && p.code == 0 && read_all(tmp, &s, &n)) {
        const char *at = strstr(s, "LLVM version ");
        if (at) v = atoi(at + 13);
    }
    rv_free(s);
    remove(tmp);
    return v;
}

static bool find_version(int v, rvi_llvm *t)
{
    char llc1[64], llc2[64], cl1[64], cl2[64];
    snprintf(llc1, sizeof llc1, "llc-%d", v);
    snprintf(llc2, sizeof llc2, "/usr/lib/llvm-%d/bin/llc", v);
    snprintf(cl1, sizeof cl1, "clang-%d", v);
    snprintf(cl2, sizeof cl2, "/usr/lib/llvm-%d/bin/clang", v);
    const char *llcs[] = {llc1, llc2, NULL}, *clangs[] = {cl1, cl2, NULL};
    if (!rvi_which(llcs, t->llc, sizeof t->llc)) return false;
    if (!rvi_which(clangs, t->clang, sizeof t->clang)) t->clang[0] = 0;
    t->version = v;
    return true;
}

bool rvi_llvm_find(int version, rvi_llvm *t, char *why, size_t n)
{
    memset(t, 0, sizeof *t);
    static const int order[] = {19, 16, 14};
    if (version > 0) {
        if (find_version(version, t)) return true;
        snprintf(why, n, "no llc-%d (install the Debian package llvm-%d)", version, version);
        return false;
    }
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        if (find_version(order[i], t)) return true;
    const char *llcs[] = {"llc", NULL}, *clangs[] = {"clang", NULL};
    if (rvi_which(llcs, t->llc, sizeof t->llc)) {
        t->version = tool_version(t->llc);
        if (!rvi_which(clangs, t->clang, sizeof t->clang)) t->clang[0] = 0;
        return true;
    }
    snprintf(why, n, "no LLVM found (install the Debian packages llvm-19 and clang-19)");
    return false;
}

/* ----- the steps ----- */
typedef struct step {
    rvi_pipe *r;
    const rvi_pipe_opts *o;
    char path[6][4096]; /* ll, pre, tag, dumps, post, err */
} step;
enum { P_LL, P_PRE, P_TAG, P_DUMPS, P_POST, P_ERR };

static void note_cmd(rvi_pipe *r, char *const argv[], const char *out, const char *err)
{
    size_t n = r->commands ? strlen(r->commands) : 0, add = 8;
    for (size_t i = 0; argv[i]; i++) add += strlen(argv[i]) + 3;
    add += (out ? strlen(out) : 0) + (err ? strlen(err) : 0) + 16;
    r->commands = rv_xrealloc(r->commands, n + add + 1);
    char *p = r->commands + n;
    for (size_t i = 0; argv[i]; i++) p += sprintf(p, i ? " '%s'" : "'%s'", argv[i]);
    if (out) p += sprintf(p, " > '%s'", out);
    if (err) p += sprintf(p, " 2> '%s'", err);
    sprintf(p, "\n");
}

__attribute__((format(printf, 3, 4))) static void fail(rvi_pipe *r, enum rvi_pipe_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->msg, sizeof r->msg, fmt, ap);
    va_end(ap);
    r->status = st;
}

/* Runs argv; false (and r->status) if it did not exit 0. The first lines
 * of its stderr go into the message. */
static bool run(step *s, char *const argv[], const char *out, const char *err, enum rvi_pipe_status st, double *t)
{
    note_cmd(s->r, argv, out, err);
    rvi_proc p = rvi_run(argv, out, err, s->o->timeout);
    *t += p.cpu;
    if (p.how == RVI_PROC_EXITED && p.code == 0) return true;
    char *e = NULL;
    size_t n = 0;
    if (err) read_all(err, &e, &n);
    const char *what = p.how == RVI_PROC_TIMEOUT ? "timed out" : p.how == RVI_PROC_FAILED ? "could not be started" : "failed";
    fail(s->r, st, "%s %s%s%.600s", argv[0], what, e && n ? ":\n" : "", e ? e : "");
    rv_free(e);
    return false;
}

static int olevel(const rvi_pipe_opts *o)
{
    return o->olevel >= 0 ? o->olevel : o->alloc == RVI_FAST ? 0 : 2;
}

static bool compile_c(step *s, const rvi_llvm *t, const char *input)
{
    char O[16];
    snprintf(O, sizeof O, "-O%d", olevel(s->o));
    if (!t->clang[0]) return fail(s->r, RVI_PIPE_BAD_INPUT, "no clang for %s", t->llc), false;
    size_t nf = 0;
    while (s->o->cflags && s->o->cflags[nf]) nf++;
    char **argv = rv_xcalloc(nf + 10, sizeof *argv);
    size_t k = 0;
    argv[k++] = (char *)t->clang;
    argv[k++] = O;
    argv[k++] = "-gline-tables-only";
    for (size_t i = 0; i < nf; i++) argv[k++] = (char *)s->o->cflags[i];
    argv[k++] = "-S";
    argv[k++] = "-emit-llvm";
    argv[k++] = (char *)input;
    argv[k++] = "-o";
    argv[k++] = s->path[P_LL];
    bool ok = run(s, argv, NULL, s->path[P_ERR], RVI_PIPE_BAD_INPUT, &s->r->t_clang);
    rv_free(argv);
    return ok;
}

/* llc from `start` (NULL: from IR) up to the allocator, into P_PRE. */
static bool llc_to_allocator(step *s, const rvi_llvm *t, const char *in, const char *start)
{
    char O[16], stop[64];
    snprintf(O, sizeof O, "-O%d", olevel(s->o));
    snprintf(stop, sizeof stop, "-stop-before=%s", s->o->alloc == RVI_FAST ? "regallocfast" : "greedy");
    char *argv[10];
    int k = 0;
    argv[k++] = (char *)t->llc;
    argv[k++] = O;
    if (s->o->alloc == RVI_FAST && olevel(s->o) > 0) argv[k++] = "-regalloc=fast";
    if (start) argv[k++] = (char *)start;
    argv[k++] = stop;
    argv[k++] = (char *)in;
    argv[k++] = "-o";
    argv[k++] = s->path[P_PRE];
    argv[k] = NULL;
    return run(s, argv, NULL, s->path[P_ERR], RVI_PIPE_BAD_INPUT, &s->r->t_llc);
}

static bool stop_before(step *s, const rvi_llvm *t, const char *ll) { return llc_to_allocator(s, t, ll, NULL); }

/* An SSA .mir (o->ssa): llc from where SSA ends to the allocator, as
 * stop_before does from IR: -O0 from phi elimination, above it from
 * detect-dead-lanes (the passes before phi elimination that llc runs on
 * SSA machine code: dead lanes, undef operands, IMPLICIT_DEFs, live
 * variables). */
static bool from_ssa(step *s, const rvi_llvm *t, const char *mir)
{
    return llc_to_allocator(s, t, mir,
                            olevel(s->o) > 0 ? "-start-before=detect-dead-lanes" : "-start-before=phi-node-elimination");
}

static bool tag(step *s)
{
    mir_text pre = {s->path[P_PRE], NULL, 0};
    char *src;
    if (!read_all(s->path[P_PRE], &src, &pre.len)) return fail(s->r, RVI_PIPE_BAD_INPUT, "cannot read %s", s->path[P_PRE]), false;
    pre.src = src;
    ravel_diags *d = ravel_diags_new();
    size_t n = 0;
    char *tagged = rvi_tag(&pre, d, &n);
    if (!tagged) fail(s->r, RVI_PIPE_BAD_INPUT, "%s", ravel_diags_count(d) ? d->v.data[0].msg : "cannot tag");
    ravel_diags_free(d);
    bool ok = tagged && write_all(s->path[P_TAG], tagged, n);
    if (tagged && !ok) fail(s->r, RVI_PIPE_BAD_INPUT, "cannot write %s", s->path[P_TAG]);
    s->r->pre_text = src;
    s->r->pre_len = pre.len;
    rv_free(tagged);
    return ok;
}

/* docs/import-mapping.md §1.4: llc-14's MIR does not carry callsEHReturn,
 * so a function with EH_RETURN64 fails llc-14's verifier when its MIR is
 * read back (rbp undefined); say so before llc's own message. */
static void eh_return_note(rvi_pipe *r, int version)
{
    if (version <= 0 || version > 14 || !r->pre_text || !strstr(r->pre_text, "EH_RETURN")) return;
    char msg[sizeof r->msg];
    snprintf(msg, sizeof msg, "llc-%d's MIR does not keep callsEHReturn, and __builtin_eh_return in this module "
             "breaks the MIR round trip (docs/import-mapping.md §1.4; LLVM 16 and 19 keep it): %.700s", version, r->msg);
    memcpy(r->msg, msg, sizeof msg);
}

static bool allocate(step *s, const rvi_llvm *t)
{
    static const char *const pass[] = {"greedy", "regallocbasic", "regallocfast", "pbqp"};
    char O[16], runp[64], pb[64], pa[64];
    bool fast = s->o->alloc == RVI_FAST;
    snprintf(O, sizeof O, "-O%d", olevel(s->o));
    const char *printed = fast ? "regallocfast" : "virtregrewriter";
    snprintf(pb, sizeof pb, "-print-before=%s", printed);
    snprintf(pa, sizeof pa, "-print-after=%s", printed);
    if (fast) snprintf(runp, sizeof runp, "-run-pass=regallocfast");
    else snprintf(runp, sizeof runp, "-run-pass=%s,virtregrewriter", pass[s->o->alloc]);
    char *argv[16];
    int k = 0;
    argv[k++] = (char *)t->llc;
    argv[k++] = O;
    if (s->o->alloc == RVI_PBQP) {
        argv[k++] = "-regalloc=pbqp";
        argv[k++] = "-start-after=machine-scheduler";
        argv[k++] = "-stop-after=virtregrewriter";
    } else {
        argv[k++] = runp;
    }
    argv[k++] = pb;
    argv[k++] = pa;
    argv[k++] = "-print-regmask-num-regs=-1";
    argv[k++] = s->path[P_TAG];
    argv[k++] = "-o";
    argv[k++] = s->path[P_POST];
    argv[k] = NULL;
    if (run(s, argv, NULL, s->path[P_DUMPS], RVI_PIPE_LLC, &s->r->t_llc)) return true;
    eh_return_note(s->r, t->version);
    return false;
}

static bool load(step *s)
{
    mir_text *t[3] = {&s->r->texts.tag, &s->r->texts.dumps, &s->r->texts.post};
    const char *p[3] = {s->path[P_TAG], s->path[P_DUMPS], s->path[P_POST]};
    for (int i = 0; i < 3; i++) {
        char *src;
        if (!read_all(p[i], &src, &t[i]->len)) return fail(s->r, RVI_PIPE_LLC, "cannot read %s", p[i]), false;
        t[i]->src = src;
        snprintf(s->r->paths[i], sizeof s->r->paths[i], "%s", p[i]);
        t[i]->file = s->r->paths[i];
    }
    return true;
}

static bool ends_with(const char *s, const char *e)
{
    size_t n = strlen(s), m = strlen(e);
    return n >= m && strcmp(s + n - m, e) == 0;
}

void rvi_pipeline(const rvi_llvm *t, const char *input, const rvi_pipe_opts *o, rvi_pipe *r)
{
    memset(r, 0, sizeof *r);
    step s;
    s.r = r;
    s.o = o;
    static const char *const ext[] = {".ll", ".pre.mir", ".tag.mir", ".dumps.txt", ".post.mir", ".err.txt"};
    for (int i = 0; i < 6; i++) snprintf(s.path[i], sizeof s.path[i], "%s/%s%s", o->workdir, o->stem, ext[i]);
    if (o->alloc != RVI_FAST && olevel(o) == 0) {
        fail(r, RVI_PIPE_BAD_INPUT, "%s needs -O1 or higher (llc runs fast at -O0)", rvi_alloc_name(o->alloc));
        return;
    }
    bool ok = true;
    if (ends_with(input, ".mir") && o->ssa) {
        ok = from_ssa(&s, t, input);
    } else if (ends_with(input, ".mir")) {
        snprintf(s.path[P_PRE], sizeof s.path[P_PRE], "%s", input);
    } else if (ends_with(input, ".ll")) {
        ok = stop_before(&s, t, input);
    } else {
        ok = compile_c(&s, t, input) && stop_before(&s, t, s.path[P_LL]);
    }
    ok = ok && tag(&s) && allocate(&s, t) && load(&s);
    (void)ok;
}

void rvi_pipe_free(rvi_pipe *r)
{
    rv_free(r->commands);
    rv_free(r->pre_text);
    rv_free((char *)r->texts.tag.src);
    rv_free((char *)r->texts.dumps.src);
    rv_free((char *)r->texts.post.src);
    memset(r, 0, sizeof *r);
}
