/* extalloc.c - external allocators as processes (extalloc.h, docs/protocol.md).
 *
 * One exchange = one function: the input text (machine + function, the
 * canonical printer's) is written to the child while its stdout and stderr
 * are read, all non-blocking under one poll() loop with the per-function
 * deadline, so neither side can block the other (a child that writes a
 * large answer before reading all its input is fine). Then the answer is
 * parsed and bound to the original machine (take_output).
 *
 * Invariants: every child we fork is reaped by us (waitpid) before the call
 * that created it returns (one-shot) or when its server is stopped
 * (frames); a handle's fds are -1 exactly when no server of this process
 * runs; SIGPIPE is ignored only inside rv_ext_alloc / rv_ext_stop.
 */
#define _GNU_SOURCE /* pipe2, open_memstream */
#include "fuzz/extalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

enum { HEADER_MAX = 64 }; /* a frames reply's first line, "ok N\n" */

typedef struct tail { /* the last RV_EXT_STDERR_KEEP bytes of a stream */
    char buf[2 * RV_EXT_STDERR_KEEP];
    size_t len;
    bool cut; /* bytes were dropped before buf */
} tail;

struct rv_ext {
    char *cmd;
    int protocol;
    double timeout;
    /* the frames server, when owner == getpid() and pid > 0 */
    pid_t owner, pid;
    int fin, fout, ferr; /* its stdin (our write end), stdout, stderr (our read ends) */
    uint64_t starts;
    tail err;
    int last_status; /* the wait status of the last child reaped by an exchange, -1 if none */
};

/* What an exchange came to (the probe and the messages look at it). */
typedef enum xkind {
    XK_OK, XK_DECLINED, XK_ERROR, XK_EXIT, XK_SIGNAL, XK_TIMEOUT, XK_EMPTY, XK_TOOBIG, XK_FRAMING, XK_START
} xkind;

/* ---- small helpers ---------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

static void tail_add(tail *t, const char *p, size_t n)
{
    if (n >= RV_EXT_STDERR_KEEP) {
        t->cut |= t->len > 0 || n > RV_EXT_STDERR_KEEP;
        p += n - RV_EXT_STDERR_KEEP, n = RV_EXT_STDERR_KEEP, t->len = 0;
    }
    if (t->len + n > sizeof t->buf) {
        size_t drop = t->len + n - RV_EXT_STDERR_KEEP;
        memmove(t->buf, t->buf + drop, t->len - drop);
        t->len -= drop;
        t->cut = true;
    }
    memcpy(t->buf + t->len, p, n);
    t->len += n;
}

static const char *signal_name(int s)
{
    static const struct { int sig; const char *name; } names[] = {
        {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
        {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
        {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
        {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"}, {SIGXCPU, "SIGXCPU"},
        {SIGXFSZ, "SIGXFSZ"}, {SIGSYS, "SIGSYS"},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].sig == s) return names[i].name;
    return NULL;
}

/* "exited with status N" / "was killed by signal SIGX" (no colon: see extalloc.h). */
static void describe_status(char *buf, size_t n, int st)
{
    if (WIFSIGNALED(st)) {
        const char *name = signal_name(WTERMSIG(st));
        if (name) snprintf(buf, n, "was killed by signal %s", name);
        else snprintf(buf, n, "was killed by signal %d", WTERMSIG(st));
    } else if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
        snprintf(buf, n, "was not found (exit 127)");
    } else if (WIFEXITED(st) && WEXITSTATUS(st) == 126) {
        snprintf(buf, n, "cannot be executed (exit 126)");
    } else if (WIFEXITED(st) && WEXITSTATUS(st) > 128 && signal_name(WEXITSTATUS(st) - 128)) {
        snprintf(buf, n, "exited with status %d (as a shell reports %s)", WEXITSTATUS(st),
                 signal_name(WEXITSTATUS(st) - 128));
    } else {
        snprintf(buf, n, "exited with status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
}

/* A message: the first line (what happened), optional detail lines, and
 * the child's stderr. malloc'd. */
static char *message(const rv_ext *x, const char *first, const char *detail, const tail *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (!fp) rv_oom();
    fprintf(fp, "%s %s", x->protocol == RV_EXT_FRAMES ? "the frames server" : "the command", first);
    if (detail && *detail) fprintf(fp, "\n%s", detail);
    if (err && err->len) {
        fprintf(fp, "\n--- its stderr%s ---\n%.*s", err->cut ? " (the last 4 KiB)" : "", (int)err->len, err->buf);
        if (err->buf[err->len - 1] == '\n') fflush(fp), len--, buf[len] = 0;
    }
    if (fclose(fp) != 0) rv_oom();
    char *s = rv_xstrdup(buf);
    rv_free(buf);
    return s;
}

/* ---- processes -------------------------------------------------------------------- */

/* from becomes fd to (close-on-exec cleared). */
static bool move_fd(int from, int to)
{
    if (from == to) return fcntl(to, F_SETFD, 0) == 0;
    return dup2(from, to) == to;
}

/* Forks `/bin/sh -c cmd` with its stdin, stdout and stderr on pipes; our
 * ends (fds[0] to write, fds[1], fds[2] to read) are non-blocking and
 * close-on-exec. Returns the pid, or -1 (errno). */
static pid_t spawn(const char *cmd, uint64_t seed, bool with_seed, int fds[3])
{
    int p[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};
    for (int k = 0; k < 3; k++)
        if (pipe2(p[k], O_CLOEXEC) != 0) {
            int e = errno;
            for (int j = 0; j < k; j++) close(p[j][0]), close(p[j][1]);
            errno = e;
            return -1;
        }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0); /* a timeout kills the whole group */
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127);
#else
        (void)parent;
#endif
        if (!move_fd(p[0][0], 0) || !move_fd(p[1][1], 1) || !move_fd(p[2][1], 2)) _exit(127);
        /* dispositions: ignored ones survive exec (a campaign worker ignores SIGINT) */
        signal(SIGPIPE, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (with_seed) {
            char s[32];
            snprintf(s, sizeof s, "0x%016" PRIx64, seed);
            setenv("RAVEL_ALLOC_SEED", s, 1);
        }
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    int e = errno;
    close(p[0][0]), close(p[1][1]), close(p[2][1]);
    if (pid < 0) {
        close(p[0][1]), close(p[1][0]), close(p[2][0]);
        errno = e;
        return -1;
    }
    setpgid(pid, pid); /* also here: no race with a kill of the group */
    fds[0] = p[0][1], fds[1] = p[1][0], fds[2] = p[2][0];
    for (int k = 0; k < 3; k++) fcntl(fds[k], F_SETFL, fcntl(fds[k], F_GETFL) | O_NONBLOCK);
    return pid;
}

/* Waits for pid until deadline (then kills its group); returns the wait
 * status, *killed when it had to be killed. */
static int reap_by(pid_t pid, double deadline, bool *killed)
{
    int st = 0;
    *killed = false;
    for (long ms = 1;; ms = ms < 20 ? ms * 2 : 20) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) return st;
        if (w < 0 && errno != EINTR) return 0;
        if (now_s() >= deadline) break;
        nap_ms(ms);
    }
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    *killed = true;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    return st;
}

static void close_fd(int *fd)
{
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

/* ---- the exchange loop -------------------------------------------------------------- */

typedef struct xio {
    int fin, fout, ferr;   /* -1 when closed */
    const char *w;         /* to write */
    size_t wlen, woff;
    char *o;               /* read from stdout */
    size_t olen, ocap;
    bool oeof, eeof;
    bool frames;           /* done when a whole reply is in o; else when stdout and stderr end */
    size_t hlen, plen;     /* frames: header length (with its \n), payload length, once parsed */
    int status;            /* frames: 0 ok, 1 declined, 2 error */
    tail *err;
} xio;

enum { PUMP_DONE = 1, PUMP_EOF = 0, PUMP_TIMEOUT = -1, PUMP_TOOBIG = -2, PUMP_FRAMING = -3 };

/* Frames: parses "ok N\n" / "declined N\n" / "error N\n" at the start of
 * o. 1 parsed, 0 need more, -1 framing error. */
static int parse_reply(xio *io)
{
    if (io->hlen) return 1;
    if (io->olen == 0) return 0;
    const char *nl = memchr(io->o, '\n', io->olen < HEADER_MAX ? io->olen : HEADER_MAX);
    if (!nl) return io->olen >= HEADER_MAX ? -1 : 0;
    static const char *const words[] = {"ok ", "declined ", "error "};
    for (int k = 0; k < 3; k++) {
        size_t wl = strlen(words[k]);
        if ((size_t)(nl - io->o) <= wl || memcmp(io->o, words[k], wl) != 0) continue;
        uint64_t n = 0;
        const char *p = io->o + wl;
        for (; p < nl && *p >= '0' && *p <= '9' && n <= RV_MAX_INPUT_BYTES; p++) n = n * 10 + (uint64_t)(*p - '0');
        if (p != nl || p == io->o + wl) return -1;
        if (n > RV_MAX_INPUT_BYTES) return -1;
        io->status = k;
        io->hlen = (size_t)(nl - io->o) + 1;
        io->plen = (size_t)n;
        return 1;
    }
    return -1;
}

static int pump_done(xio *io)
{
    if (!io->frames) return io->oeof && io->eeof ? PUMP_DONE : 0;
    int r = parse_reply(io);
    if (r < 0) return PUMP_FRAMING;
    if (r == 0 || io->olen < io->hlen + io->plen) return 0;
    return io->olen > io->hlen + io->plen ? PUMP_FRAMING : PUMP_DONE; /* more than the reply: broken */
}

/* Runs the exchange until done, end of output, the deadline or an error. */
static int pump(xio *io, double deadline)
{
    char buf[65536];
    for (;;) {
        int d = pump_done(io);
        if (d) return d;
        struct pollfd pf[3];
        int np = 0, iw = -1, io_ = -1, ie = -1;
        if (io->fin >= 0 && io->woff < io->wlen) pf[iw = np++] = (struct pollfd){io->fin, POLLOUT, 0};
        if (!io->oeof) pf[io_ = np++] = (struct pollfd){io->fout, POLLIN, 0};
        if (!io->eeof) pf[ie = np++] = (struct pollfd){io->ferr, POLLIN, 0};
        if (io->oeof && io->frames) return PUMP_EOF; /* the server closed its stdout mid-reply */
        if (np == 0) return PUMP_EOF;
        double left = deadline - now_s();
        if (left <= 0) return PUMP_TIMEOUT;
        int ms = left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
        int pr = poll(pf, (nfds_t)np, ms);
        if (pr < 0 && errno == EINTR) continue;
        if (pr < 0) return PUMP_EOF;
        if (pr == 0) continue; /* the deadline is checked above */
        if (iw >= 0 && pf[iw].revents) {
            ssize_t w = write(io->fin, io->w + io->woff, io->wlen - io->woff);
            if (w > 0) io->woff += (size_t)w;
            else if (w < 0 && errno != EAGAIN && errno != EINTR) io->woff = io->wlen; /* EPIPE: it stopped reading */
            if (io->woff == io->wlen && !io->frames) close_fd(&io->fin); /* one-shot: end of input */
        }
        if (io_ >= 0 && pf[io_].revents) {
            if (io->ocap - io->olen < sizeof buf) {
                io->ocap = io->ocap * 2 + sizeof buf;
                io->o = rv_xrealloc(io->o, io->ocap);
            }
            ssize_t r = read(io->fout, io->o + io->olen, io->ocap - io->olen - 1);
            if (r > 0) io->olen += (size_t)r;
            else if (r == 0 || (errno != EAGAIN && errno != EINTR)) io->oeof = true;
            if (io->olen > RV_MAX_INPUT_BYTES + (size_t)HEADER_MAX) return PUMP_TOOBIG;
        }
        if (ie >= 0 && pf[ie].revents) {
            ssize_t r = read(io->ferr, buf, sizeof buf);
            if (r > 0) tail_add(io->err, buf, (size_t)r);
            else if (r == 0 || (errno != EAGAIN && errno != EINTR)) io->eeof = true;
        }
    }
}

/* ---- the answer --------------------------------------------------------------------- */

/* The diagnostics without their last newline (rv_free it). */
static char *print_diags(const ravel_diags *d)
{
    size_t len;
    char *s = rv_diags_text(d, &len);
    while (len && s[len - 1] == '\n') s[--len] = 0;
    return s;
}

/* The canonical text of a machine (malloc'd). */
static char *machine_text(const ravel_machine *m, size_t *len)
{
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, len);
    if (!fp) rv_oom();
    ravel_print_machine(fp, m);
    if (fclose(fp) != 0) rv_oom();
    return buf;
}

/* Whether the parsed answer m (text, len) has the input's machine, whose
 * canonical text is mtext: the same canonical text. An answer that starts
 * with mtext itself (a server that copies the machine block, or prints it
 * canonically) has it without printing m's: the machine block is read up to
 * its `end`, and mtext ends with it. */
static bool same_machine(const ravel_module *m, const char *mtext, size_t mlen, const char *text, size_t len)
{
    if (!m->mach) return false;
    if (len >= mlen && memcmp(text, mtext, mlen) == 0) return true;
    size_t olen = 0;
    char *omach = machine_text(m->mach, &olen);
    bool same = olen == mlen && memcmp(omach, mtext, mlen) == 0;
    rv_free(omach);
    return same;
}

/* Parses the answer text and binds its function to orig's machine (see
 * extalloc.h). RAVEL_OK with *out, or RAVEL_EFAIL with *msg. */
static int take_output(const rv_ext *x, const ravel_func *orig, const char *mtext, size_t mlen, const char *text,
                       size_t len, const tail *err, ravel_func **out, char **msg)
{
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, len, "<alloc-cmd output>", d);
    char first[128] = "", *detail = NULL;
    if (!m || ravel_diags_count(d)) {
        snprintf(first, sizeof first, "wrote output that does not parse");
        detail = print_diags(d);
    } else if (ravel_module_nfuncs(m) != 1) {
        snprintf(first, sizeof first, "wrote %zu functions (exactly one wanted)", ravel_module_nfuncs(m));
    } else {
        const ravel_func *f = ravel_module_func(m, 0);
        if (!same_machine(m, mtext, mlen, text, len)) {
            snprintf(first, sizeof first, "wrote a machine block that differs from its input's");
        } else if (ravel_validate(f, 0, d) == RAVEL_EINVAL) {
            snprintf(first, sizeof first, "wrote a function that does not validate");
            detail = print_diags(d);
        } else {
            /* equal canonical machine text: equal register and class ids,
             * so the function (which owns all its memory) moves over as it is */
            ravel_func *g = rv_module_take_func(m, 0);
            g->mach = orig->mach;
            *out = g;
        }
    }
    ravel_module_free(m);
    ravel_diags_free(d);
    if (*out) return RAVEL_OK;
    *msg = message(x, first, detail, err);
    rv_free(detail);
    return RAVEL_EFAIL;
}

/* The input of an exchange: machine block, a blank line, the function. */
static char *input_text(const ravel_func *f, size_t *len, size_t *mlen, char **mtext)
{
    *mtext = machine_text(f->mach, mlen);
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, len);
    if (!fp) rv_oom();
    fwrite(*mtext, 1, *mlen, fp);
    fputc('\n', fp);
    ravel_print_func(fp, f);
    if (fclose(fp) != 0) rv_oom();
    return buf;
}

/* ---- one-shot ---------------------------------------------------------------------------- */

static int oneshot(rv_ext *x, const ravel_func *orig, uint64_t seed, const char *in, size_t inlen, const char *mtext,
                   size_t mlen, ravel_func **out, char **msg, xkind *kind)
{
    int fds[3];
    tail err = {.len = 0};
    pid_t pid = spawn(x->cmd, seed, true, fds);
    if (pid < 0) {
        char b[160];
        snprintf(b, sizeof b, "could not be started (%s)", strerror(errno));
        *kind = XK_START;
        *msg = message(x, b, NULL, NULL);
        return RAVEL_EFAIL;
    }
    double deadline = now_s() + x->timeout;
    xio io = {.fin = fds[0], .fout = fds[1], .ferr = fds[2], .w = in, .wlen = inlen, .err = &err};
    int pr = pump(&io, deadline);
    close_fd(&io.fin), close_fd(&io.fout), close_fd(&io.ferr);
    bool killed;
    int st = reap_by(pid, pr == PUMP_DONE || pr == PUMP_EOF ? deadline : 0, &killed);
    x->last_status = st;
    char first[160];
    int rc = RAVEL_EFAIL;
    if (pr == PUMP_TOOBIG) {
        *kind = XK_TOOBIG;
        snprintf(first, sizeof first, "wrote more than %u MiB (killed)", (unsigned)(RV_MAX_INPUT_BYTES >> 20));
    } else if (pr == PUMP_TIMEOUT || killed) {
        *kind = XK_TIMEOUT;
        snprintf(first, sizeof first, "timed out after %g s (killed)", x->timeout);
    } else if (WIFEXITED(st) && WEXITSTATUS(st) == 3) {
        *kind = XK_DECLINED;
        rc = RAVEL_EDECLINED;
        if (err.len) { /* the reason: its stderr */
            *msg = rv_xmalloc(err.len + 1);
            memcpy(*msg, err.buf, err.len);
            (*msg)[err.len] = 0;
        }
    } else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        *kind = WIFSIGNALED(st) ? XK_SIGNAL : XK_EXIT;
        describe_status(first, sizeof first, st);
    } else if (io.olen == 0) {
        *kind = XK_EMPTY;
        snprintf(first, sizeof first, "wrote nothing on standard output (exit 0)");
    } else {
        rc = take_output(x, orig, mtext, mlen, io.o, io.olen, &err, out, msg);
        *kind = rc == RAVEL_OK ? XK_OK : XK_ERROR;
        rv_free(io.o);
        return rc;
    }
    if (rc == RAVEL_EFAIL) *msg = message(x, first, NULL, &err);
    rv_free(io.o);
    return rc;
}

/* ---- frames ------------------------------------------------------------------------------ */

/* Forgets a server inherited through fork: its pipes are closed here, the
 * server is left to the process that started it. */
static void disown(rv_ext *x)
{
    if (x->owner == getpid()) return;
    close_fd(&x->fin), close_fd(&x->fout), close_fd(&x->ferr);
    x->pid = 0;
    x->owner = getpid();
    x->starts = 0;
}

/* Stops this process's server: EOF on its stdin, a short wait, then
 * SIGKILL (kill_now: at once). Returns its wait status (-1 if none ran). */
static int server_stop(rv_ext *x, bool kill_now, bool *killed)
{
    *killed = false;
    disown(x);
    if (x->pid <= 0) return -1;
    close_fd(&x->fin);
    int st = reap_by(x->pid, kill_now ? 0 : now_s() + 0.5, killed);
    close_fd(&x->fout), close_fd(&x->ferr);
    x->pid = 0;
    return st;
}

static bool server_start(rv_ext *x, char **msg)
{
    int fds[3];
    pid_t pid = spawn(x->cmd, 0, false, fds);
    if (pid < 0) {
        char b[160];
        snprintf(b, sizeof b, "could not be started (%s)", strerror(errno));
        *msg = message(x, b, NULL, NULL);
        return false;
    }
    x->pid = pid;
    x->owner = getpid();
    x->fin = fds[0], x->fout = fds[1], x->ferr = fds[2];
    x->starts++;
    return true;
}

/* Has the idle server said something, or closed its stdout (died)? Then
 * it is not in a state to take a request: restarted first. */
static bool server_unwell(rv_ext *x)
{
    struct pollfd pf = {x->fout, POLLIN, 0};
    return poll(&pf, 1, 0) != 0;
}

static int frames(rv_ext *x, const ravel_func *orig, const char *in, size_t inlen, const char *mtext, size_t mlen,
                  ravel_func **out, char **msg, xkind *kind)
{
    bool killed;
    disown(x);
    if (x->pid > 0 && server_unwell(x)) server_stop(x, true, &killed);
    if (x->pid <= 0 && !server_start(x, msg)) {
        *kind = XK_START;
        return RAVEL_EFAIL;
    }
    x->err.len = 0;
    x->err.cut = false;
    char head[48];
    int hn = snprintf(head, sizeof head, "ravel-alloc 1 %zu\n", inlen);
    char *req = rv_xmalloc((size_t)hn + inlen);
    memcpy(req, head, (size_t)hn);
    memcpy(req + hn, in, inlen);
    xio io = {.fin = x->fin, .fout = x->fout, .ferr = x->ferr, .w = req, .wlen = (size_t)hn + inlen,
              .frames = true, .err = &x->err};
    int pr = pump(&io, now_s() + x->timeout);
    rv_free(req);
    char first[200];
    int rc = RAVEL_EFAIL;
    if (pr == PUMP_DONE && io.status == 0) {
        rc = take_output(x, orig, mtext, mlen, io.o + io.hlen, io.plen, &x->err, out, msg);
        *kind = rc == RAVEL_OK ? XK_OK : XK_ERROR;
        rv_free(io.o);
        return rc;
    }
    if (pr == PUMP_DONE) { /* declined or error: the server's message */
        char *text = rv_xmalloc(io.plen + 1);
        memcpy(text, io.o + io.hlen, io.plen);
        text[io.plen] = 0;
        if (io.status == 1) {
            *kind = XK_DECLINED;
            *msg = text;
            rv_free(io.o);
            return RAVEL_EDECLINED;
        }
        *kind = XK_ERROR;
        *msg = message(x, "answered error", text, &x->err);
        rv_free(text);
        rv_free(io.o);
        return RAVEL_EFAIL;
    }
    /* the server is in no state to go on: stopped now, restarted for the next function */
    int st = server_stop(x, pr != PUMP_EOF, &killed);
    x->last_status = st;
    if (pr == PUMP_TIMEOUT) {
        *kind = XK_TIMEOUT;
        snprintf(first, sizeof first, "timed out after %g s (killed; restarted for the next function)", x->timeout);
    } else if (pr == PUMP_TOOBIG) {
        *kind = XK_TOOBIG;
        snprintf(first, sizeof first, "wrote more than %u MiB (killed)", (unsigned)(RV_MAX_INPUT_BYTES >> 20));
    } else if (pr == PUMP_FRAMING) {
        *kind = XK_FRAMING;
        size_t n = io.olen < 40 ? io.olen : 40;
        char shown[48];
        for (size_t i = 0; i < n; i++) shown[i] = io.o[i] >= 32 && io.o[i] < 127 ? io.o[i] : '.';
        shown[n] = 0;
        snprintf(first, sizeof first, "broke the framing (its answer began with '%s'; killed, restarted for the next function)", shown);
        for (char *p = first; *p; p++) if (*p == ':') *p = '.'; /* no colon in the first line */
    } else {
        char how[80];
        describe_status(how, sizeof how, st);
        *kind = WIFSIGNALED(st) ? XK_SIGNAL : XK_EXIT;
        if (killed) *kind = XK_TIMEOUT;
        snprintf(first, sizeof first, "%s with this function in flight (restarted for the next one)",
                 killed ? "closed its output and hung" : how);
    }
    *msg = message(x, first, NULL, &x->err);
    rv_free(io.o);
    return rc;
}

/* ---- the handle ------------------------------------------------------------------------- */

rv_ext *rv_ext_new(const char *cmd, int protocol, double timeout_s)
{
    rv_ext *x = rv_xcalloc(1, sizeof *x);
    x->cmd = rv_xstrdup(cmd ? cmd : "");
    x->protocol = protocol == RV_EXT_FRAMES ? RV_EXT_FRAMES : RV_EXT_ONESHOT;
    x->timeout = timeout_s > 0 ? timeout_s : RV_EXT_TIMEOUT_DEFAULT;
    x->owner = getpid();
    x->fin = x->fout = x->ferr = -1;
    x->last_status = -1;
    return x;
}

/* Ignores SIGPIPE for the duration of an exchange (see the file's top). */
static void pipe_guard(struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, old);
}

void rv_ext_stop(rv_ext *x)
{
    if (!x) return;
    struct sigaction old;
    pipe_guard(&old);
    bool killed;
    server_stop(x, false, &killed);
    sigaction(SIGPIPE, &old, NULL);
}

void rv_ext_free(rv_ext *x)
{
    if (!x) return;
    rv_ext_stop(x);
    rv_free(x->cmd);
    rv_free(x);
}

static int ext_run(rv_ext *x, const ravel_func *orig, uint64_t seed, ravel_func **out, char **msg, xkind *kind)
{
    *out = NULL;
    *msg = NULL;
    size_t inlen, mlen;
    char *mtext;
    char *in = input_text(orig, &inlen, &mlen, &mtext);
    struct sigaction old;
    pipe_guard(&old);
    x->last_status = -1;
    int rc = x->protocol == RV_EXT_FRAMES ? frames(x, orig, in, inlen, mtext, mlen, out, msg, kind)
                                          : oneshot(x, orig, seed, in, inlen, mtext, mlen, out, msg, kind);
    sigaction(SIGPIPE, &old, NULL);
    rv_free(in);
    rv_free(mtext);
    return rc;
}

int rv_ext_alloc(void *user, const ravel_func *orig, uint64_t seed, ravel_func **out, char **msg)
{
    xkind kind;
    if (!user || !orig || !out || !msg) return RAVEL_EINVAL;
    return ext_run(user, orig, seed, out, msg, &kind);
}

const char *rv_ext_cmd(const rv_ext *x) { return x->cmd; }
int rv_ext_protocol(const rv_ext *x) { return x->protocol; }
double rv_ext_timeout(const rv_ext *x) { return x->timeout; }
uint64_t rv_ext_starts(const rv_ext *x) { return x->owner == getpid() ? x->starts : 0; }
const char *rv_ext_protocol_name(int protocol) { return protocol == RV_EXT_FRAMES ? "frames" : "oneshot"; }

int rv_ext_protocol_parse(const char *s)
{
    if (s && !strcmp(s, "oneshot")) return RV_EXT_ONESHOT;
    if (s && !strcmp(s, "frames")) return RV_EXT_FRAMES;
    return -1;
}

rv_allocator rv_ext_allocator(rv_ext *x, const char *name)
{
    return (rv_allocator){.name = name, .description = x ? x->cmd : "", .fn = rv_ext_alloc, .user = x};
}

rv_ext *rv_ext_of(const rv_allocator *a) { return a && !a->run && a->fn == rv_ext_alloc ? a->user : NULL; }

/* ---- probe and reproducer header ----------------------------------------------------------- */

int rv_ext_probe(rv_ext *x, const rv_gen_opts *gen, char **msg)
{
    *msg = NULL;
    rv_gen_opts o = *gen;
    o.max_insts = o.min_insts = 6;
    if (o.max_blocks > 2) o.max_blocks = 2;
    ravel_module *m = NULL;
    for (uint64_t s = 1; s < 64 && !(m && ravel_module_nfuncs(m) == 1); s++) {
        ravel_module_free(m);
        m = rv_gen_from_seed(rv_hash64(0x70726f6265ull + s), &o);
    }
    if (!m || ravel_module_nfuncs(m) != 1) {
        ravel_module_free(m);
        return 0; /* nothing to probe with: the campaign will tell */
    }
    ravel_func *out = NULL;
    char *err = NULL;
    xkind kind = XK_OK;
    ext_run(x, ravel_module_func(m, 0), 0, &out, &err, &kind);
    ravel_func_free(out);
    ravel_module_free(m);
    rv_ext_stop(x);
    int st = x->last_status;
    char why[160] = "";
    if (kind == XK_START) snprintf(why, sizeof why, "cannot start /bin/sh");
    else if (kind == XK_EMPTY) snprintf(why, sizeof why, "command wrote nothing on standard output (exit 0)");
    else if (kind == XK_EXIT && st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 127)
        snprintf(why, sizeof why, "command not found (exit 127)");
    else if (kind == XK_EXIT && st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 126)
        snprintf(why, sizeof why, "command cannot be executed (exit 126)");
    if (*why) { /* with the first line of its stderr (sh's "x: not found") */
        const char *se = err ? strstr(err, "--- its stderr") : NULL;
        const char *sl = se ? strchr(se, '\n') : NULL;
        const char *e2 = sl ? strchr(sl + 1, '\n') : NULL;
        char buf[600];
        if (sl) snprintf(buf, sizeof buf, "%s: %.*s", why, (int)(e2 ? e2 - sl - 1 : (long)strlen(sl + 1)), sl + 1);
        else snprintf(buf, sizeof buf, "%s", why);
        *msg = rv_xstrdup(buf);
    }
    bool fatal = *why != 0;
    rv_free(err);
    return fatal ? -1 : 0;
}

char *rv_ext_annotate(const rv_ext *x, const char *text, size_t len, size_t *outlen)
{
    size_t at = 0; /* after the "# allocator:" line, else after the first line */
    const char *a = NULL;
    for (size_t i = 0; i + 13 <= len; i++)
        if ((i == 0 || text[i - 1] == '\n') && !memcmp(text + i, "# allocator: ", 13)) { a = text + i; break; }
    const char *from = a ? a : text;
    const char *nl = memchr(from, '\n', len - (size_t)(from - text));
    at = nl ? (size_t)(nl - text) + 1 : len;
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, outlen);
    if (!fp) rv_oom();
    fwrite(text, 1, at, fp);
    fputs("# alloc-cmd: ", fp);
    for (const char *p = x->cmd; *p; p++) fputc(*p == '\n' ? ' ' : *p, fp); /* one line */
    fprintf(fp, "\n# alloc-protocol: %s\n# alloc-timeout: %g\n", rv_ext_protocol_name(x->protocol), x->timeout);
    fputs("# reproduce (runs the command on the function again, and shrinks the case while it fails the same way):\n"
          "#   ravel reduce --alloc-cmd '", fp);
    for (const char *p = x->cmd; *p; p++) { /* one line, quoted for sh */
        if (*p == '\'') fputs("'\\''", fp);
        else fputc(*p == '\n' ? ' ' : *p, fp);
    }
    fprintf(fp, "' --alloc-protocol %s --alloc-timeout %g THIS_FILE\n", rv_ext_protocol_name(x->protocol), x->timeout);
    fwrite(text + at, 1, len - at, fp);
    if (fclose(fp) != 0) rv_oom();
    char *s = rv_xmalloc(*outlen + 1);
    memcpy(s, buf, *outlen + 1);
    rv_free(buf);
    return s;
}
