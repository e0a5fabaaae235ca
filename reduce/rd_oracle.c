/* rd_oracle.c - the properties a reduction keeps: the checker's verdict on
 * an allocated function, the fuzz harness's verdict on what an allocator
 * does with an unallocated one (in a child process: a crash or a hang is a
 * verdict too), or the exit status of a shell command on the candidate file.
 */
#define _DEFAULT_SOURCE
#include "reduce/rd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct rd_oracle {
    rv_reduce_opts o;
    ravel_checker *ck;
    rv_fuzz *z;
    char path[64]; /* COMMAND: the candidate file */
    int fd;
    double budget; /* the reduction's deadline (0: none): a test still running then is stopped */
    pid_t worker;  /* ALLOC: the process running the allocator, 0 if none */
    int sock;      /* its end of the socket pair */
};

static const char *const outcome_names[] = {
    "passes", "checker rejects", "output does not validate", "allocation fails", "interpreter differs",
    "checker misses a wrong allocation", "crash", "hang", "command fails", "command succeeds", "stopped",
};

const char *rd_outcome_name(rd_outcome o) { return outcome_names[o]; }

void rd_result_free(rd_result *r)
{
    rv_free(r->kinds);
    rv_free(r->text);
    rv_free(r->detail);
    memset(r, 0, sizeof *r);
}

static int worker_stop(rd_oracle *q, bool kill_it);
static double now_s(void);

void rd_oracle_set_budget(rd_oracle *q, double deadline) { q->budget = deadline; }

/* When a test started now must end: its timeout, or the budget if sooner
 * (*by_budget then). */
static double test_deadline(const rd_oracle *q, bool *by_budget)
{
    double d = now_s() + q->o.test_timeout;
    *by_budget = q->budget > 0 && q->budget < d;
    return *by_budget ? q->budget : d;
}

rd_oracle *rd_oracle_new(const rv_reduce_opts *o)
{
    rd_oracle *q = rv_xcalloc(1, sizeof *q);
    q->o = *o;
    q->ck = ravel_checker_new();
    q->z = rv_fuzz_new();
    q->fd = -1;
    q->sock = -1;
    return q;
}

void rd_oracle_free(rd_oracle *q)
{
    if (!q) return;
    if (q->worker) worker_stop(q, false);
    if (q->fd >= 0) {
        close(q->fd);
        unlink(q->path);
    }
    ravel_checker_free(q->ck);
    rv_fuzz_free(q->z);
    rv_free(q);
}

/* ---- kinds of checker errors ------------------------------------------------------ */

static void add_kind(rd_result *r, const char *k, size_t n)
{
    if (!r->kind[0]) snprintf(r->kind, sizeof r->kind, "%.*s", (int)n, k);
    size_t old = r->kinds ? strlen(r->kinds) : 0;
    r->kinds = rv_xrealloc(r->kinds, old + n + 2);
    if (old) r->kinds[old++] = ' ';
    memcpy(r->kinds + old, k, n);
    r->kinds[old + n] = 0;
}

/* Every "error[KIND]" of a reproducer's text. */
static void kinds_of_text(rd_result *r, const char *t)
{
    for (const char *p = t ? strstr(t, "error[") : NULL; p; p = strstr(p + 1, "error[")) {
        const char *e = strchr(p + 6, ']');
        if (e) add_kind(r, p + 6, (size_t)(e - p - 6));
    }
}

/* The allocator's message in a harness reproducer: the comment line after
 * the verdict. */
static const char *failure_message(const char *repro)
{
    const char *v = strstr(repro, "# verdict: ");
    const char *nl = v ? strchr(v, '\n') : NULL;
    return nl && !strncmp(nl + 1, "#   ", 4) ? nl + 5 : "";
}

/* The kind of an allocation failure: the message without its position
 * prefix ("func f, block b0, instruction 3 (add, line 9): "), up to its
 * first colon ("unsatisfiable", "unsupported"). */
static void fail_kind(rd_result *r, const char *msg)
{
    const char *eol = strchr(msg, '\n'), *p = msg;
    size_t n = eol ? (size_t)(eol - msg) : strlen(msg);
    for (const char *q = msg; q + 3 <= msg + n; q++)
        if (!memcmp(q, "): ", 3)) p = q + 3;
    const char *colon = memchr(p, ':', (size_t)(msg + n - p));
    snprintf(r->kind, sizeof r->kind, "%.*s", (int)((colon ? colon : msg + n) - p), p);
}

/* ---- CHECK: the checker, or the interpreter, on the allocated function -------------- */

bool rd_differs(const rv_reduce_opts *o, const ravel_func *orig, const ravel_func *alloc, char *msg, size_t len)
{
    uint32_t n = rv_interp_ninputs(orig);
    uint64_t *in = rv_xcalloc(n + 1, sizeof *in);
    bool diff = false;
    for (uint64_t k = 0; k < o->inputs && !diff; k++) {
        rv_interp_inputs(o->seed, k, in, n);
        rv_run_opts ro = {in, n, 100000, o->moving_gc, true, rv_interp_undef_seed(o->seed, k)};
        diff = !rv_interp_compare(orig, alloc, &ro, msg, len);
    }
    rv_free(in);
    return diff;
}

static void run_check(rd_oracle *q, const ravel_func *f, rd_result *r)
{
    ravel_func *orig = rv_func_strip(f);
    char msg[512];
    if (q->o.compare) {
        r->outcome = rd_differs(&q->o, orig, f, msg, sizeof msg) ? RD_DIFFERS : RD_PASS;
    } else {
        ravel_report *rep = NULL;
        int rc = ravel_check(q->ck, f, orig, &rep);
        r->outcome = rc == RAVEL_EFAIL ? RD_REJECT : rc == RAVEL_OK ? RD_PASS : RD_INVALID;
        for (size_t i = 0; rep && i < ravel_report_count(rep); i++) {
            const char *k = ravel_report_error(rep, i)->kind;
            add_kind(r, k, strlen(k));
        }
        ravel_report_free(rep);
    }
    ravel_func_free(orig);
}

/* ---- ALLOC: the harness's oracle, in a child --------------------------------------- */

static rd_outcome classify(const char *repro)
{
    const char *v = repro ? strstr(repro, "# verdict: ") : NULL;
    if (!v) return RD_FAIL;
    v += 11;
    if (!strncmp(v, "allocation failed", 17)) return RD_FAIL;
    if (!strncmp(v, "the allocated function does not validate", 40)) return RD_INVALID;
    if (!strncmp(v, "the checker rejects", 19)) return RD_REJECT;
    if (!strncmp(v, "the checker accepts a wrong", 27)) return RD_MISS;
    if (!strncmp(v, "the checker accepts, but the interpreter", 40)) return RD_DIFFERS;
    return RD_FAIL;
}

static bool write_full(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        c += w, n -= (size_t)w;
    }
    return true;
}

static bool read_full(int fd, void *p, size_t n)
{
    char *c = p;
    while (n) {
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        c += r, n -= (size_t)r;
    }
    return true;
}

/* In the worker: the verdict on f as "OUTCOME\nK" (K: R for a harness
 * reproducer, D for a detail) + the text, as a length-prefixed message. */
static bool worker_answer(rd_oracle *q, const ravel_func *f, int fd)
{
    const rv_reduce_opts *o = &q->o;
    char head[64], msg[512];
    rd_outcome out = RD_PASS;
    const char *text = "";
    size_t len = 0;
    char *err = NULL;
    ravel_func *a = NULL;
    if (o->compare) {
        rv_alloc_opts ao = {.seed = o->seed};
        rv_alloc_run(o->alloc, f, &ao, &a, &err);
        out = !a ? RD_FAIL : rd_differs(o, f, a, msg, sizeof msg) ? RD_DIFFERS : RD_PASS;
        text = out == RD_DIFFERS ? msg : out == RD_FAIL && err ? err : "";
        len = strlen(text);
    } else {
        int rc = o->target == RV_FT_ORACLE ? rv_fuzz_oracle(q->z, f, o->alloc, o->seed)
                                           : rv_fuzz_alloc(q->z, f, o->alloc, o->seed,
                                                           o->target == RV_FT_DIFFERENTIAL ? RV_FUZZ_DIFF : 0);
        if (rc == RV_FUZZ_BUG) {
            out = classify(q->z->repro);
            text = q->z->repro;
            len = q->z->repro_len;
        }
    }
    int n = snprintf(head, sizeof head, "%d\n%c", (int)out, o->compare ? 'D' : 'R');
    uint64_t total = (uint64_t)n + len;
    bool ok = write_full(fd, &total, sizeof total) && write_full(fd, head, (size_t)n) && write_full(fd, text, len);
    ravel_func_free(a);
    rv_free(err);
    return ok;
}

/* In the worker: the replay's result on a reproducer text, as "RESULT\n". */
static bool worker_replay(rd_oracle *q, const char *t, size_t n, int fd)
{
    char head[32];
    int k = snprintf(head, sizeof head, "%d\n", rv_fuzz_replay_ra(q->z, t, n, "<candidate>"));
    uint64_t total = (uint64_t)k;
    return write_full(fd, &total, sizeof total) && write_full(fd, head, (size_t)k);
}

/* The worker process: reads requests (a kind byte, 'A' for the allocator
 * oracle or 'P' for a replay, then length-prefixed text), answers each,
 * until the socket closes. A crash or a hang ends it; the parent starts
 * another for the next request. */
static void worker_loop(rd_oracle *q, int fd)
{
    for (;;) {
        char kind;
        uint64_t n;
        if (!read_full(fd, &kind, 1) || !read_full(fd, &n, sizeof n)) _exit(0);
        char *t = rv_xmalloc(n + 1);
        if (!read_full(fd, t, n)) _exit(0);
        t[n] = 0;
        bool ok;
        if (kind == 'P') {
            ok = worker_replay(q, t, n, fd);
        } else {
            ravel_diags *d = ravel_diags_new();
            ravel_module *m = ravel_module_parse(t, n, "<candidate>", d);
            ok = m && ravel_module_nfuncs(m) == 1 && worker_answer(q, ravel_module_func(m, 0), fd);
            ravel_module_free(m);
            ravel_diags_free(d);
        }
        rv_free(t);
        if (!ok) _exit(3);
    }
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Reads n bytes from fd before the deadline: 1 done, 0 end of file (the
 * worker died), -1 timeout. */
static int read_by(int fd, void *p, size_t n, double deadline)
{
    char *c = p;
    while (n) {
        double left = deadline - now_s();
        if (left <= 0) return -1;
        struct pollfd pf = {fd, POLLIN, 0};
        int pr = poll(&pf, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR) continue;
        if (pr == 0) continue;
        ssize_t r = pr < 0 ? 0 : read(fd, c, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return 0;
        c += r, n -= (size_t)r;
    }
    return 1;
}

/* Waits for pid (killing it at the deadline); returns its wait status, or -1
 * if it was killed for running too long. */
static int reap(pid_t pid, double deadline)
{
    int st = 0;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) return st;
        if (w < 0 && errno != EINTR) return 0;
        if (now_s() > deadline) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
            return -1;
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

static bool worker_start(rd_oracle *q, char **err)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return *err = rv_xstrdup("cannot create a socket pair"), false;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]), close(sv[1]);
        return *err = rv_xstrdup("cannot fork"), false;
    }
    if (pid == 0) {
        close(sv[0]);
        setpgid(0, 0);
        worker_loop(q, sv[1]);
    }
    close(sv[1]);
    q->worker = pid;
    q->sock = sv[0];
    return true;
}

/* Ends the worker (killed if still running); returns its wait status, -1
 * if it had to be killed. */
static int worker_stop(rd_oracle *q, bool kill_it)
{
    close(q->sock);
    q->sock = -1;
    int st = reap(q->worker, kill_it ? 0 : now_s() + 5);
    q->worker = 0;
    return st;
}

/* One request to the worker (started if needed): 1 answered (*buf), 0 the
 * worker died (*status: its wait status, -1 if killed), -1 it ran past the
 * test timeout (killed), -3 past the budget (killed); -2 it could not be
 * started (*err). */
static int exchange(rd_oracle *q, char kind, const char *text, size_t len, char **buf, int *status, char **err)
{
    if (!q->worker && !worker_start(q, err)) return -2;
    uint64_t n = len;
    bool by_budget;
    double deadline = test_deadline(q, &by_budget);
    bool sent = write_full(q->sock, &kind, 1) && write_full(q->sock, &n, sizeof n) && write_full(q->sock, text, len);
    int got = sent ? read_by(q->sock, &n, sizeof n, deadline) : 0;
    *buf = NULL;
    if (got == 1) {
        *buf = rv_xmalloc(n + 1);
        got = read_by(q->sock, *buf, n, deadline);
        (*buf)[got == 1 ? n : 0] = 0;
    }
    if (got != 1) *status = worker_stop(q, got < 0);
    return got < 0 && by_budget ? -3 : got;
}

int rd_oracle_replay(rd_oracle *q, const char *text, size_t len)
{
    char *buf = NULL, *err = NULL;
    int st = 0, got = exchange(q, 'P', text, len, &buf, &st, &err);
    int r = got == 1 ? atoi(buf) : got == -3 ? -3 : -1;
    rv_free(buf);
    rv_free(err);
    return r;
}

/* The verdict of the persistent worker on the candidate text (allocators
 * run there: a crash or a hang is an outcome, not the reducer's end). */
static bool run_alloc(rd_oracle *q, const char *text, size_t len, bool want_text, rd_result *r, char **err)
{
    char *buf = NULL;
    int st = 0, got = exchange(q, 'A', text, len, &buf, &st, err);
    if (got == -2) return false;
    if (got == -3) {
        r->outcome = RD_STOPPED;
    } else if (got != 1) {
        if (got < 0 || st == -1) {
            r->outcome = RD_HANG;
        } else if (WIFSIGNALED(st)) {
            r->outcome = RD_CRASH;
            snprintf(r->kind, sizeof r->kind, "signal %d", WTERMSIG(st));
        } else {
            r->outcome = RD_CRASH;
            snprintf(r->kind, sizeof r->kind, "exit %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        }
    } else {
        r->outcome = (rd_outcome)atoi(buf);
        const char *t = strchr(buf, '\n');
        t = t && t[1] ? t + 1 : "R";
        bool detail = *t++ == 'D';
        if (r->outcome == RD_REJECT) kinds_of_text(r, t);
        if (r->outcome == RD_FAIL) fail_kind(r, detail ? t : failure_message(t));
        if (want_text && *t) *(detail ? &r->detail : &r->text) = rv_xstrdup(t);
    }
    rv_free(buf);
    return true;
}

/* ---- COMMAND: a shell command on the candidate file --------------------------------- */

static char *command_line(const char *cmd, const char *path)
{
    size_t n = strlen(cmd), pl = strlen(path), cap = n + pl + 8, len = 0;
    char *s = rv_xmalloc(cap);
    bool subst = strstr(cmd, "{}") != NULL;
    for (size_t i = 0; i <= n; i++) {
        if (len + pl + 8 > cap) s = rv_xrealloc(s, cap = cap * 2 + pl);
        if (subst && i + 1 < n && cmd[i] == '{' && cmd[i + 1] == '}') {
            memcpy(s + len, path, pl); /* the path has no shell metacharacters (mkstemps) */
            len += pl;
            i++;
        } else {
            s[len++] = cmd[i];
        }
    }
    if (!subst) {
        s[len - 1] = ' ';
        memcpy(s + len, path, pl + 1);
    }
    return s;
}

static bool run_command(rd_oracle *q, const char *text, size_t len, rd_result *r, char **err)
{
    if (q->fd < 0) {
        const char *dir = getenv("TMPDIR");
        snprintf(q->path, sizeof q->path, "%s/ravel-reduce-XXXXXX.ra", dir && *dir && strlen(dir) < 30 ? dir : "/tmp");
        q->fd = mkstemps(q->path, 3);
        if (q->fd < 0) return *err = rv_xstrdup("cannot create a temporary file"), false;
    }
    if (ftruncate(q->fd, 0) != 0 || pwrite(q->fd, text, len, 0) != (ssize_t)len)
        return *err = rv_xstrdup("cannot write the temporary candidate file"), false;
    char *cmd = command_line(q->o.command, q->path);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        rv_free(cmd);
        return *err = rv_xstrdup("cannot fork"), false;
    }
    if (pid == 0) {
        setpgid(0, 0);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) dup2(null, 0), dup2(null, 1), dup2(null, 2);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    rv_free(cmd);
    bool by_budget;
    int st = reap(pid, test_deadline(q, &by_budget));
    r->outcome = st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? RD_CMD_OK
                 : st == -1 && by_budget                             ? RD_STOPPED
                                                                     : RD_CMD_FAIL;
    return true;
}

bool rd_oracle_run(rd_oracle *q, const ravel_func *f, const char *text, size_t len, bool want_text, rd_result *r,
                   char **err)
{
    memset(r, 0, sizeof *r);
    switch (q->o.mode) {
    case RV_RD_CHECK: run_check(q, f, r); return true;
    case RV_RD_ALLOC: return run_alloc(q, text, len, want_text, r, err);
    case RV_RD_COMMAND: return run_command(q, text, len, r, err);
    }
    return false;
}

bool rd_oracle_keeps(const rv_reduce_opts *o, const rd_result *ref, const rd_result *r)
{
    if (o->mode == RV_RD_COMMAND) return r->outcome == RD_CMD_OK;
    if (o->keep == RV_KEEP_ANY && o->mode == RV_RD_ALLOC) return r->outcome != RD_PASS;
    if (r->outcome != ref->outcome) return false;
    if (o->keep == RV_KEEP_ANY) return true;
    if (r->outcome == RD_REJECT && o->keep == RV_KEEP_KIND) {
        size_t n = strlen(ref->kind);
        for (const char *p = r->kinds ? strstr(r->kinds, ref->kind) : NULL; p; p = strstr(p + 1, ref->kind))
            if ((p == r->kinds || p[-1] == ' ') && (p[n] == 0 || p[n] == ' ')) return true;
        return false;
    }
    return strcmp(r->kind, ref->kind) == 0;
}
