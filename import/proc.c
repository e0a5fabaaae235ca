/*
 * proc.c - running clang and llc as processes (no shell, no system()).
 *
 * Requires: POSIX (posix_spawnp, waitpid). Guarantees: the program runs
 * with exactly the given arguments (no shell parses them, so paths with
 * spaces or quotes are safe), its standard output and error go to the
 * given files (or /dev/null), and it is killed (SIGKILL) when it runs
 * longer than the timeout; the result says how it ended and the CPU time
 * it took (the children's rusage before and after: one child at a time).
 */
#define _POSIX_C_SOURCE 200809L
#include "import/import.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU seconds (user + system) of the children waited for so far. */
static double children_cpu(void)
{
    struct rusage u;
    if (getrusage(RUSAGE_CHILDREN, &u) != 0) return 0.0;
    return (double)u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + (double)u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

static bool redirect(posix_spawn_file_actions_t *fa, int fd, const char *path)
{
    return posix_spawn_file_actions_addopen(fa, fd, path ? path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0666) == 0;
}

rvi_proc rvi_run(char *const argv[], const char *out, const char *err, double timeout_s)
{
    rvi_proc r = {RVI_PROC_FAILED, -1, 0.0, 0.0};
    double c0 = children_cpu();
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0) return r;
    bool ok = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0) == 0 && redirect(&fa, 1, out) && redirect(&fa, 2, err);
    pid_t pid;
    double t0 = now_s();
    if (!ok || posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        return r;
    }
    posix_spawn_file_actions_destroy(&fa);
    int status = 0;
    long nap = 1000000; /* 1 ms, doubled up to 16 ms: a long llc wakes this process ~60 times a second, not 500 */
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) return r;
        if (timeout_s > 0 && now_s() - t0 > timeout_s) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
            r.how = RVI_PROC_TIMEOUT;
            r.seconds = now_s() - t0;
            r.cpu = children_cpu() - c0;
            return r;
        }
        struct timespec ts = {0, nap};
        nanosleep(&ts, NULL);
        if (nap < 16000000) nap *= 2;
    }
    r.seconds = now_s() - t0;
    r.cpu = children_cpu() - c0;
    if (WIFEXITED(status)) {
        r.how = RVI_PROC_EXITED;
        r.code = WEXITSTATUS(status);
    } else {
        r.how = RVI_PROC_SIGNALED;
        r.code = WIFSIGNALED(status) ? WTERMSIG(status) : -1;
    }
    return r;
}

/* The first name of `names` (NULL-terminated) that is an executable file
 * on PATH or given with a '/', copied into out; false if none. */
bool rvi_which(const char *const *names, char *out, size_t n)
{
    const char *path = getenv("PATH");
    for (size_t i = 0; names[i]; i++) {
        if (strchr(names[i], '/')) {
            if (access(names[i], X_OK) == 0) return snprintf(out, n, "%s", names[i]) < (int)n;
            continue;
        }
        for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
            const char *e = strchr(p, ':');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            char cand[4096];
            if (len && snprintf(cand, sizeof cand, "%.*s/%s", (int)len, p, names[i]) < (int)sizeof cand) {
                struct stat st;
                if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
                    return snprintf(out, n, "%s", cand) < (int)n;
            }
            p = e ? e + 1 : p + len;
        }
    }
    return false;
}
