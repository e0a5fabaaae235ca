/* campaign.c - `ravel fuzz`: a fuzzing campaign that needs no engine.
 *
 * Pipeline: iteration i -> seed rv_campaign_iter_seed(seed, i) -> generator
 * -> every selected allocator -> rv_fuzz_alloc (validate, check, optionally
 * the interpreter) -> failures written as .ra files.
 *
 * Processes: the parent forks `jobs` workers; worker w runs iterations
 * w, w + jobs, w + 2*jobs, ... so that the set of (iteration, allocator)
 * cases, and so every verdict, depends only on the seed and the count, never
 * on the number of workers. Workers publish counters in a shared anonymous
 * mapping (one slot each, single writer, relaxed atomics); the parent reads
 * them to draw the progress line, sets `stop` at the deadline or on an
 * interrupt, and notices workers that crash or hang (no new iteration or
 * allocator for o->stall_seconds): it kills a hung one, records the case it
 * was on as a failure (regenerating the function from its seed to write the
 * reproducer) and starts a new worker after it.
 *
 * Requires: POSIX (fork, mmap, waitpid). Library code: no exit() in the
 * parent; workers end with _exit().
 */
#define _GNU_SOURCE
#include "fuzz/campaign.h"
#include "fuzz/extalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { STALL_SECONDS_DEFAULT = 60 };
#define NO_ALLOC UINT32_MAX /* slot.cur_alloc while generating */

typedef struct slot {
    _Atomic uint64_t iters, gen_nanos;
    _Atomic uint64_t funcs[RV_CAMPAIGN_MAX_ALLOCS], insts[RV_CAMPAIGN_MAX_ALLOCS];
    _Atomic uint64_t fails[RV_CAMPAIGN_MAX_ALLOCS], nanos[RV_CAMPAIGN_MAX_ALLOCS];
    _Atomic uint64_t declined[RV_CAMPAIGN_MAX_ALLOCS]; /* RAVEL_EDECLINED (external allocators) */
    _Atomic uint64_t misses[RV_CAMPAIGN_MAX_ALLOCS]; /* --oracle: wrong allocations the checker accepted */
    _Atomic uint64_t otried[RV_CAMPAIGN_MAX_ALLOCS], orejected[RV_CAMPAIGN_MAX_ALLOCS]; /* --oracle's work */
    _Atomic uint64_t oaccepted[RV_CAMPAIGN_MAX_ALLOCS];
    _Atomic uint64_t pathdiffs[RV_CAMPAIGN_MAX_ALLOCS]; /* --paths: checker paths that differed from the reference */
    _Atomic uint64_t kinds[RV_INJ_COUNT_][RV_ORC_COUNT_]; /* --oracle: per injected kind */
    _Atomic uint64_t cur_iter;  /* iteration in progress */
    _Atomic uint32_t cur_alloc; /* allocator index in progress, NO_ALLOC while generating */
    _Atomic uint32_t done;      /* the worker finished its share */
} slot;

typedef struct shared {
    _Atomic int stop;
    _Atomic uint32_t files[RV_CAMPAIGN_MAX_ALLOCS]; /* failure files written, per allocator */
    slot slots[]; /* one per worker */
} shared;

/* Everything the parent and its workers agree on. */
typedef struct campaign {
    const rv_campaign_opts *o;
    unsigned jobs, nalloc;
    const rv_allocator *table;               /* o->table or rv_allocators */
    const rv_allocator *sel[RV_CAMPAIGN_MAX_ALLOCS]; /* the allocators run: into table, or ext */
    rv_allocator ext[RV_CAMPAIGN_MAX_ALLOCS];         /* the --alloc-cmd entries (user: an rv_ext) */
    unsigned next;                                     /* entries of ext */
    shared *sh;
    size_t shsize;
    FILE *log;
    pid_t parent;
    uint64_t stall_nanos;                    /* o->stall_seconds */
    bool made_outdir;                        /* o->outdir did not exist: removed at the end if still empty */
} campaign;

#define LD(x) atomic_load_explicit(&(x), memory_order_relaxed)
#define ADD(x, v) atomic_fetch_add_explicit(&(x), (v), memory_order_relaxed)
#define ST(x, v) atomic_store_explicit(&(x), (v), memory_order_relaxed)

static uint64_t clock_nanos(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Wall time (deadlines, progress, exec/s) and a worker's CPU time (the
 * per-phase figures: meaningful on a loaded machine too). */
static uint64_t now_nanos(void) { return clock_nanos(CLOCK_MONOTONIC); }
static uint64_t cpu_nanos(void) { return clock_nanos(CLOCK_PROCESS_CPUTIME_ID); }

void rv_campaign_opts_default(rv_campaign_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seconds = 60;
    o->outdir = "ravel-fuzz-out";
    o->max_files = 20;
    o->stall_seconds = STALL_SECONDS_DEFAULT;
    o->inject_kind = -1;
    o->inject_permille = 1000;
    rv_gen_opts_default(&o->gen);
}

uint64_t rv_campaign_iter_seed(uint64_t seed, uint64_t i)
{
    return rv_hash64(rv_hash64(seed) ^ (i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull));
}

/* ---- failure files ---------------------------------------------------------- */

/* Writes text to OUTDIR/NAME-iITER.ra; returns false (after a note) on error.
 * A case of an external allocator (ext) names its command in the header. */
static bool write_case(const campaign *c, const char *name, uint64_t iter, const char *text, size_t len,
                       const rv_ext *ext)
{
    char *annotated = NULL;
    if (ext) text = annotated = rv_ext_annotate(ext, text, len, &len);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-i%" PRIu64 ".ra", c->o->outdir, name, iter);
    FILE *fp = fopen(path, "wb");
    bool ok = fp && fwrite(text, 1, len, fp) == len;
    if (fp && fclose(fp) != 0) ok = false;
    rv_free(annotated);
    if (c->log)
        fprintf(c->log, "%s%s: iteration %" PRIu64 " failed -> %s%s\n", c->o->tty ? "\r\033[K" : "", name, iter,
                ok ? path : "(could not write ", ok ? "" : ")");
    return ok;
}

/* ---- workers ------------------------------------------------------------------ */

static uint64_t original_insts(const ravel_func *f)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < f->insts.len; i++) n += !rv_is_edit(&f->insts.data[i]);
    return n;
}

/* Runs the selected allocators from index k0 on iteration i's function. */
static void run_iteration(const campaign *c, rv_fuzz *z, slot *s, uint64_t i, unsigned k0)
{
    const rv_campaign_opts *o = c->o;
    uint64_t seed = rv_campaign_iter_seed(o->seed, i);
    ST(s->cur_iter, i);
    ST(s->cur_alloc, NO_ALLOC);
    /* one clock read per phase boundary: the end of one phase starts the next */
    uint64_t t0 = cpu_nanos();
    ravel_module *mod = rv_gen_from_seed(seed, &o->gen);
    uint64_t t1 = cpu_nanos();
    ADD(s->gen_nanos, t1 - t0);
    const ravel_func *f = mod && ravel_module_nfuncs(mod) ? ravel_module_func(mod, 0) : NULL;
    uint64_t n = f ? original_insts(f) : 0;
    for (unsigned k = k0; f && k < c->nalloc; k++) {
        if (LD(c->sh->stop)) break;
        const rv_allocator *a = c->sel[k];
        ST(s->cur_alloc, k);
        uint64_t ot = z->oracle_tried, orj = z->oracle_rejected, oac = z->oracle_accepted;
        int r = rv_fuzz_alloc(z, f, a, seed,
                              (o->differential ? RV_FUZZ_DIFF : 0) | (o->oracle ? RV_FUZZ_ORACLE : 0) | (o->paths ? RV_FUZZ_PATHS : 0));
        ADD(s->otried[k], z->oracle_tried - ot);
        ADD(s->orejected[k], z->oracle_rejected - orj);
        ADD(s->oaccepted[k], z->oracle_accepted - oac);
        ADD(s->funcs[k], 1);
        ADD(s->insts[k], n);
        if (r == RV_FUZZ_SKIP && z->declined) ADD(s->declined[k], 1);
        if (r == RV_FUZZ_BUG && !z->oracle_miss) {
            ADD(s->fails[k], 1);
            if (z->repro && ADD(c->sh->files[k], 1) < o->max_files)
                write_case(c, a->name, i, z->repro, z->repro_len, rv_ext_of(a));
        } else if (r == RV_FUZZ_BUG) { /* a checker bug: the oracle or the paths on the same allocation */
            char name[96];
            snprintf(name, sizeof name, "%s-%s", z->paths_diff ? "checker-paths" : "checker", a->name);
            ADD(*(z->paths_diff ? &s->pathdiffs[k] : &s->misses[k]), 1);
            if (z->repro && ADD(c->sh->files[k], 1) < o->max_files)
                write_case(c, name, i, z->repro, z->repro_len, rv_ext_of(a));
        }
        for (unsigned q = 0; q < RV_INJ_COUNT_; q++) /* publish the oracle's counters, then restart them */
            for (unsigned x = 0; x < RV_ORC_COUNT_; x++)
                if (z->oracle_kinds[q][x]) ADD(s->kinds[q][x], z->oracle_kinds[q][x]), z->oracle_kinds[q][x] = 0;
        t0 = t1;
        t1 = cpu_nanos();
        ADD(s->nanos[k], t1 - t0);
    }
    ravel_module_free(mod);
    ADD(s->iters, 1);
}

/* Worker w from iteration `start` (allocators from k0 on it); never returns. */
static void worker(const campaign *c, unsigned w, uint64_t start, unsigned k0)
{
    slot *s = &c->sh->slots[w];
    if (c->o->interrupt) signal(SIGINT, SIG_IGN); /* the parent stops us and still reads our counters */
    rv_fuzz *z = rv_fuzz_new();
    z->inject_kind = c->o->inject_kind;
    z->inject_permille = c->o->inject_permille;
    z->paths_agree = c->o->paths_agree;
    for (uint64_t i = start; !LD(c->sh->stop); i += c->jobs) {
        if (c->o->count && i >= c->o->count) break;
        if (getppid() != c->parent) break; /* orphaned: the parent died */
        run_iteration(c, z, s, i, i == start ? k0 : 0);
    }
    rv_fuzz_free(z);
    for (unsigned k = 0; k < c->nalloc; k++) /* this worker's frames servers */
        if (rv_ext_of(c->sel[k])) rv_ext_stop(rv_ext_of(c->sel[k]));
    ST(s->done, 1);
    if (c->log) fflush(c->log);
    _exit(0);
}

static pid_t spawn(const campaign *c, unsigned w, uint64_t start, unsigned k0)
{
    if (c->log) fflush(c->log);
    pid_t p = fork();
    if (p == 0) worker(c, w, start, k0);
    return p;
}

/* ---- the parent ----------------------------------------------------------------- */

static void totals(const campaign *c, rv_campaign_result *r)
{
    for (unsigned k = 0; k < c->nalloc; k++) r->per[k] = (rv_campaign_stats){0};
    r->iters = r->gen_nanos = 0;
    memset(r->kinds, 0, sizeof r->kinds);
    for (unsigned w = 0; w < c->jobs; w++) {
        slot *s = &c->sh->slots[w];
        for (unsigned q = 0; q < RV_INJ_COUNT_; q++)
            for (unsigned x = 0; x < RV_ORC_COUNT_; x++) r->kinds[q][x] += LD(s->kinds[q][x]);
        r->iters += LD(s->iters);
        r->gen_nanos += LD(s->gen_nanos);
        for (unsigned k = 0; k < c->nalloc; k++) {
            r->per[k].funcs += LD(s->funcs[k]);
            r->per[k].insts += LD(s->insts[k]);
            r->per[k].fails += LD(s->fails[k]);
            r->per[k].declined += LD(s->declined[k]);
            r->per[k].nanos += LD(s->nanos[k]);
            r->per[k].misses += LD(s->misses[k]);
            r->per[k].oracle_tried += LD(s->otried[k]);
            r->per[k].oracle_rejected += LD(s->orejected[k]);
            r->per[k].oracle_accepted += LD(s->oaccepted[k]);
            r->per[k].pathdiffs += LD(s->pathdiffs[k]);
        }
    }
}

static void human(char *buf, size_t n, double v)
{
    if (v >= 1e9) snprintf(buf, n, "%.2fG", v / 1e9);
    else if (v >= 1e6) snprintf(buf, n, "%.2fM", v / 1e6);
    else if (v >= 1e4) snprintf(buf, n, "%.1fk", v / 1e3);
    else snprintf(buf, n, "%.0f", v);
}

static void progress(const campaign *c, const rv_campaign_result *r, double secs)
{
    uint64_t execs = 0, insts = 0;
    for (unsigned k = 0; k < c->nalloc; k++) execs += r->per[k].funcs, insts += r->per[k].insts;
    char a[32], b[32], d[32];
    human(a, sizeof a, secs > 0 ? execs / secs : 0);
    human(b, sizeof b, (double)r->iters);
    human(d, sizeof d, (double)insts);
    fprintf(c->log, "%s[%6.1fs] %s exec/s, %s functions, %s insts, failures:", c->o->tty ? "\r\033[K" : "", secs, a, b,
            d);
    uint64_t misses = 0, pathdiffs = 0;
    for (unsigned k = 0; k < c->nalloc; k++) {
        fprintf(c->log, " %s %" PRIu64, r->names[k], r->per[k].fails);
        misses += r->per[k].misses;
        pathdiffs += r->per[k].pathdiffs;
    }
    if (c->o->oracle) fprintf(c->log, ", checker misses %" PRIu64, misses);
    if (c->o->paths) fprintf(c->log, ", checker path differences %" PRIu64, pathdiffs);
    if (r->crashes) fprintf(c->log, " (crashes %" PRIu64 ")", r->crashes);
    fputs(c->o->tty ? "" : "\n", c->log);
    fflush(c->log);
}

/* A worker died (signal, bad exit) or hung: the case it was on is a failure.
 * Writes the unallocated function as the reproducer (regenerated from its
 * seed) and returns the (iteration, allocator) to resume from. */
static void record_crash(const campaign *c, rv_campaign_result *r, unsigned w, const char *how, uint64_t *iter,
                         unsigned *k)
{
    slot *s = &c->sh->slots[w];
    uint64_t i = LD(s->cur_iter);
    uint32_t ka = LD(s->cur_alloc);
    uint64_t seed = rv_campaign_iter_seed(c->o->seed, i);
    const char *name = ka == NO_ALLOC ? "generator" : c->sel[ka]->name;
    r->crashes++;
    if (ka != NO_ALLOC) ADD(s->fails[ka], 1), ADD(s->funcs[ka], 1);
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    if (!fp) rv_oom();
    fprintf(fp, "# ravel fuzz reproducer\n# target: alloc\n# allocator: %s\n# seed: 0x%016" PRIx64
                "\n# verdict: %s %s (iteration %" PRIu64 " of ravel fuzz --seed 0x%" PRIx64 ")\n",
            ka == NO_ALLOC ? "all" : name, seed, name, how, i, c->o->seed);
    ravel_module *mod = ka == NO_ALLOC ? NULL : rv_gen_from_seed(seed, &c->o->gen);
    if (mod && ravel_module_nfuncs(mod)) {
        fputc('\n', fp);
        rv_print_module(fp, mod);
    }
    ravel_module_free(mod);
    fclose(fp);
    write_case(c, name, i, text, len, ka == NO_ALLOC ? NULL : rv_ext_of(c->sel[ka]));
    rv_free(text);
    *iter = ka == NO_ALLOC || ka + 1 >= c->nalloc ? i + c->jobs : i;
    *k = ka == NO_ALLOC || ka + 1 >= c->nalloc ? 0 : ka + 1;
    if (*k == 0) ADD(s->iters, 1);
}

typedef struct watch { pid_t pid; uint64_t iter; uint32_t alloc; uint64_t since; } watch;

/* Reaps finished workers; restarts crashed ones after their case. Returns the
 * number still running. */
static unsigned reap(const campaign *c, rv_campaign_result *r, watch *ws)
{
    unsigned running = 0;
    uint64_t t = now_nanos();
    for (unsigned w = 0; w < c->jobs; w++) {
        if (ws[w].pid <= 0) continue;
        slot *s = &c->sh->slots[w];
        int st;
        pid_t p = waitpid(ws[w].pid, &st, WNOHANG);
        const char *how = NULL;
        char buf[64];
        if (p == ws[w].pid) {
            ws[w].pid = 0;
            if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && LD(s->done)) continue;
            if (WIFSIGNALED(st)) snprintf(buf, sizeof buf, "crashed (signal %d)", WTERMSIG(st));
            else snprintf(buf, sizeof buf, "exited abnormally (status %d)", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
            how = buf;
        } else if (LD(s->cur_iter) != ws[w].iter || LD(s->cur_alloc) != ws[w].alloc) {
            ws[w].iter = LD(s->cur_iter), ws[w].alloc = LD(s->cur_alloc), ws[w].since = t;
        } else if (t - ws[w].since > c->stall_nanos) {
            kill(ws[w].pid, SIGKILL);
            waitpid(ws[w].pid, &st, 0);
            ws[w].pid = 0;
            how = "hung (killed)";
        }
        if (how) {
            uint64_t iter;
            unsigned k;
            record_crash(c, r, w, how, &iter, &k);
            if (!LD(c->sh->stop) && !(c->o->count && iter >= c->o->count)) {
                ws[w] = (watch){spawn(c, w, iter, k), iter, k, t};
            }
        }
        running += ws[w].pid > 0;
    }
    return running;
}

static const char *const cmd_names[RV_CAMPAIGN_MAX_ALLOCS] = {
    "cmd1",  "cmd2",  "cmd3",  "cmd4",  "cmd5",  "cmd6",  "cmd7",  "cmd8",  "cmd9",  "cmd10", "cmd11",
    "cmd12", "cmd13", "cmd14", "cmd15", "cmd16", "cmd17", "cmd18", "cmd19", "cmd20", "cmd21", "cmd22",
    "cmd23", "cmd24", "cmd25", "cmd26", "cmd27", "cmd28", "cmd29", "cmd30", "cmd31", "cmd32",
};

/* The --alloc-cmd entries, each probed once (extalloc.h): 2 if one cannot run at all. */
static int select_commands(campaign *c, rv_campaign_result *r)
{
    const rv_campaign_opts *o = c->o;
    for (unsigned j = 0; j < o->ext.ncmds && c->nalloc < RV_CAMPAIGN_MAX_ALLOCS; j++) {
        rv_ext *x = rv_ext_new(o->ext.cmds[j], o->ext.protocol, o->ext.timeout);
        c->ext[c->next++] = rv_ext_allocator(x, cmd_names[j]);
        char *why = NULL;
        if (rv_ext_probe(x, &o->gen, &why) != 0) {
            fprintf(c->log ? c->log : stderr, "ravel fuzz: error: --alloc-cmd '%s': %s\n", o->ext.cmds[j], why);
            rv_free(why);
            return 2;
        }
        r->cmds[c->nalloc] = o->ext.cmds[j];
        c->sel[c->nalloc++] = &c->ext[c->next - 1];
    }
    return 0;
}

static void free_commands(campaign *c)
{
    for (unsigned j = 0; j < c->next; j++) rv_ext_free(rv_ext_of(&c->ext[j]));
    c->next = 0;
}

static int select_allocators(campaign *c, rv_campaign_result *r)
{
    c->nalloc = 0;
    c->table = c->o->table ? c->o->table : rv_allocators;
    bool builtin = c->o->allocator || !c->o->ext.ncmds; /* commands alone unless -a too */
    for (size_t i = 0; builtin && c->table[i].name && c->nalloc < RV_CAMPAIGN_MAX_ALLOCS; i++)
        if (!c->o->allocator || strcmp(c->o->allocator, c->table[i].name) == 0) c->sel[c->nalloc++] = &c->table[i];
    if (c->nalloc == 0 && builtin) {
        fprintf(c->log ? c->log : stderr, "ravel fuzz: %s\n",
                c->o->allocator ? "unknown allocator (see 'ravel alloc --help')" : "no allocator is built in");
        return 2;
    }
    if (select_commands(c, r)) return 2;
    r->nalloc = c->nalloc;
    r->alloc_protocol = c->o->ext.protocol;
    for (unsigned k = 0; k < c->nalloc; k++) r->names[k] = c->sel[k]->name;
    return 0;
}

/* mkdir -p: creates dir and its missing parents. */
static int make_dirs(const char *dir)
{
    char path[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof path) return errno = ENAMETOOLONG, -1;
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != 0) continue;
        char ch = path[i];
        path[i] = 0;
        if (mkdir(path, 0777) != 0 && errno != EEXIST) return -1;
        path[i] = ch;
    }
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
}

static int setup(campaign *c, rv_campaign_result *r)
{
    if (select_allocators(c, r)) return 2;
    struct stat st;
    c->made_outdir = stat(c->o->outdir, &st) != 0;
    if (make_dirs(c->o->outdir) != 0) {
        fprintf(c->log ? c->log : stderr, "ravel fuzz: cannot create %s: %s\n", c->o->outdir, strerror(errno));
        return 2;
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    c->jobs = c->o->jobs ? c->o->jobs : (unsigned)(ncpu > 0 ? ncpu : 1);
    if (c->jobs > 1024) c->jobs = 1024;
    c->shsize = sizeof(shared) + c->jobs * sizeof(slot);
    void *p = mmap(NULL, c->shsize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(c->log ? c->log : stderr, "ravel fuzz: mmap: %s\n", strerror(errno));
        return 2;
    }
    c->sh = p; /* zero-filled by mmap */
    double stall = c->o->stall_seconds > 0 ? c->o->stall_seconds : STALL_SECONDS_DEFAULT;
    if (c->o->ext.ncmds) { /* a command's own timeout comes first: its failure has the command's stderr */
        double t = c->o->ext.timeout > 0 ? c->o->ext.timeout : RV_EXT_TIMEOUT_DEFAULT;
        if (stall < t * 1.5 + 10) stall = t * 1.5 + 10;
    }
    c->stall_nanos = stall < 1e9 ? (uint64_t)(stall * 1e9) : UINT64_MAX;
    r->jobs = c->jobs;
    r->oracle = c->o->oracle;
    r->paths = c->o->paths;
    r->seed = c->o->seed;
    return 0;
}

int rv_campaign_run(const rv_campaign_opts *o, rv_campaign_result *r)
{
    memset(r, 0, sizeof *r);
    campaign c = {.o = o, .log = o->progress, .parent = getpid()};
    int rc = setup(&c, r);
    if (rc) {
        free_commands(&c);
        return rc;
    }
    watch *ws = rv_xcalloc(c.jobs, sizeof *ws);
    uint64_t t0 = now_nanos(), last_draw = 0;
    for (unsigned w = 0; w < c.jobs; w++) {
        ws[w] = (watch){spawn(&c, w, w, 0), 0, NO_ALLOC, t0};
        if (ws[w].pid < 0) { /* cannot fork: stop the others, report */
            ST(c.sh->stop, 1);
            ws[w].pid = 0;
            rc = 2;
            break;
        }
    }
    const uint64_t tick = 50 * 1000000u, draw_every = (o->tty ? 250u : 5000u) * 1000000ull;
    for (;;) {
        struct timespec ts = {0, (long)tick};
        nanosleep(&ts, NULL);
        uint64_t t = now_nanos();
        double secs = (double)(t - t0) / 1e9;
        if (o->interrupt && *o->interrupt) r->interrupted = true, ST(c.sh->stop, 1);
        if (!o->count && secs >= o->seconds) ST(c.sh->stop, 1);
        unsigned running = reap(&c, r, ws);
        totals(&c, r);
        if (c.log && t - last_draw >= draw_every) {
            progress(&c, r, secs);
            last_draw = t;
        }
        if (!running) break;
    }
    r->seconds = (double)(now_nanos() - t0) / 1e9;
    totals(&c, r);
    if (c.log) {
        progress(&c, r, r->seconds);
        if (o->tty) fputc('\n', c.log);
    }
    rv_free(ws);
    munmap(c.sh, c.shsize);
    free_commands(&c);
    if (c.made_outdir) rmdir(o->outdir); /* nothing failed: no empty folder left behind (fails if not empty) */
    if (rc) return rc;
    for (unsigned k = 0; k < r->nalloc; k++)
        if (r->per[k].fails || r->per[k].misses || r->per[k].pathdiffs) return 1;
    return r->crashes ? 1 : 0;
}

void rv_campaign_print_summary(FILE *out, const rv_campaign_result *r)
{
    /* One speed, on the last line: functions per second of wall clock, all
     * workers together. Per allocator: cpu-us/exec, the CPU time of one
     * allocate + validate + check (an external allocator's own CPU time is
     * its process's, not counted), and cpu-%, its share of the CPU time of
     * the allocators. The declined column is there when an external
     * allocator ran, or some function was declined. */
    bool decl = false;
    for (unsigned k = 0; k < r->nalloc; k++) decl |= r->cmds[k] != NULL || r->per[k].declined > 0;
    fprintf(out, "%-12s %12s", "allocator", "functions");
    if (decl) fprintf(out, " %9s", "declined");
    fprintf(out, " %14s %9s %11s %7s\n", "instructions", "failures", "cpu-us/exec", "cpu-%");
    rv_campaign_stats tot = {0};
    double secs = r->seconds > 0 ? r->seconds : 1e-9, all = 0;
    for (unsigned k = 0; k < r->nalloc; k++) all += (double)r->per[k].nanos;
    for (unsigned k = 0; k <= r->nalloc; k++) {
        const rv_campaign_stats *s = k < r->nalloc ? &r->per[k] : &tot;
        fprintf(out, "%-12s %12" PRIu64, k < r->nalloc ? r->names[k] : "total", s->funcs);
        if (decl) fprintf(out, " %9" PRIu64, s->declined);
        fprintf(out, " %14" PRIu64 " %9" PRIu64 " %11.2f %7.1f\n", s->insts, s->fails,
                s->funcs ? s->nanos / 1e3 / s->funcs : 0.0, all > 0 ? 100.0 * (double)s->nanos / all : 0.0);
        if (k == r->nalloc) break;
        tot.funcs += s->funcs, tot.insts += s->insts, tot.fails += s->fails, tot.nanos += s->nanos;
        tot.declined += s->declined;
    }
    for (unsigned k = 0; k < r->nalloc; k++)
        if (r->cmds[k])
            fprintf(out, "%s = --alloc-cmd '%s' (%s; its cpu-us/exec is ravel's side only, not the command's own CPU)\n",
                    r->names[k], r->cmds[k], rv_ext_protocol_name(r->alloc_protocol));
    fprintf(out, "%" PRIu64 " functions generated from --seed 0x%" PRIx64 " (%.2f cpu-us each), %.1f s on %u worker%s%s\n",
            r->iters, r->seed, r->iters ? r->gen_nanos / 1e3 / r->iters : 0.0, r->seconds, r->jobs, r->jobs == 1 ? "" : "s",
            r->interrupted ? " (interrupted)" : "");
    fprintf(out, "speed: %.0f allocations checked per second (wall clock, all workers)\n", tot.funcs / secs);
    if (r->oracle) {
        uint64_t misses = 0, tried = 0, rej = 0, acc = 0;
        for (unsigned k = 0; k < r->nalloc; k++) {
            misses += r->per[k].misses;
            tried += r->per[k].oracle_tried;
            rej += r->per[k].oracle_rejected;
            acc += r->per[k].oracle_accepted;
        }
        fprintf(out, "checker oracle: %" PRIu64 " corrupted allocation%s accepted by the checker but wrong in the interpreter\n",
                misses, misses == 1 ? "" : "s");
        fprintf(out, "checker oracle work: %" PRIu64 " corruption%s tried, %" PRIu64 " rejected by the checker, %" PRIu64
                " accepted (then run in the interpreter)\n", tried, tried == 1 ? "" : "s", rej, acc);
        fprintf(out, "%-17s %9s %9s %9s %9s %9s %7s\n", "injected kind", "tried", "no-site", "unchanged", "rejected",
                "accepted", "missed");
        for (unsigned q = 0; q < RV_INJ_COUNT_; q++) {
            const uint64_t *n = r->kinds[q];
            fprintf(out, "%-17s %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %7" PRIu64 "\n",
                    rv_inject_info_of((rv_inject_kind)q)->name, n[RV_ORC_TRIED], n[RV_ORC_NO_SITE], n[RV_ORC_UNCHANGED],
                    n[RV_ORC_REJECTED], n[RV_ORC_ACCEPTED], n[RV_ORC_MISSED]);
        }
    }
    if (r->paths) {
        uint64_t d = 0;
        for (unsigned k = 0; k < r->nalloc; k++) d += r->per[k].pathdiffs;
        fprintf(out, "checker paths: %" PRIu64 " allocation%s on which a checker path differed from the reference fixpoint\n", d,
                d == 1 ? "" : "s");
    }
    if (r->crashes) fprintf(out, "%" PRIu64 " worker crash%s or hang%s (counted as failures)\n", r->crashes,
                            r->crashes == 1 ? "" : "es", r->crashes == 1 ? "" : "s");
}

void rv_campaign_print_json(FILE *out, const rv_campaign_result *r, const char *outdir)
{
    fprintf(out, "{\"seed\":\"0x%" PRIx64 "\",\"seconds\":%.3f,\"jobs\":%u,\"interrupted\":%s,\"functions\":%" PRIu64
                 ",\"gen_cpu_us\":%.2f,\"oracle\":%s",
            r->seed, r->seconds, r->jobs, r->interrupted ? "true" : "false", r->iters,
            r->iters ? r->gen_nanos / 1e3 / r->iters : 0.0, r->oracle ? "true" : "false");
    fprintf(out, ",\"paths\":%s", r->paths ? "true" : "false");
    if (r->oracle) { /* "oracle_kinds":{"use-reg":{"tried":N,...},...} */
        fputs(",\"oracle_kinds\":{", out);
        for (unsigned q = 0; q < RV_INJ_COUNT_; q++) {
            fprintf(out, "%s\"%s\":{", q ? "," : "", rv_inject_info_of((rv_inject_kind)q)->name);
            for (unsigned x = 0; x < RV_ORC_COUNT_; x++)
                fprintf(out, "%s\"%s\":%" PRIu64, x ? "," : "", rv_oracle_count_name((rv_oracle_count)x),
                        r->kinds[q][x]);
            fputc('}', out);
        }
        fputc('}', out);
    }
    fputs(",\"allocators\":[", out);
    for (unsigned k = 0; k < r->nalloc; k++) {
        const rv_campaign_stats *s = &r->per[k];
        fprintf(out, "%s{\"name\":", k ? "," : "");
        rv_json_str(out, r->names[k]);
        if (r->cmds[k]) {
            fputs(",\"command\":", out);
            rv_json_str(out, r->cmds[k]);
            fprintf(out, ",\"protocol\":\"%s\"", rv_ext_protocol_name(r->alloc_protocol));
        }
        fprintf(out, ",\"functions\":%" PRIu64 ",\"instructions\":%" PRIu64 ",\"failures\":%" PRIu64
                     ",\"declined\":%" PRIu64 ",\"checker_misses\":%" PRIu64 ",\"checker_path_diffs\":%" PRIu64 ",\"oracle_tried\":%" PRIu64
                     ",\"oracle_rejected\":%" PRIu64 ",\"oracle_accepted\":%" PRIu64 ",\"cpu_us_per_exec\":%.2f}",
                s->funcs, s->insts, s->fails, s->declined, s->misses, s->pathdiffs, s->oracle_tried, s->oracle_rejected,
                s->oracle_accepted, s->funcs ? s->nanos / 1e3 / s->funcs : 0.0);
    }
    fprintf(out, "],\"crashes\":%" PRIu64 ",\"outdir\":", r->crashes);
    if (outdir) rv_json_str(out, outdir);
    else fputs("null", out);
    fputs("}\n", out);
}
