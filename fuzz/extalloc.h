/* extalloc.h - external allocators: an allocator that is a process, in any
 * language, reached through "ravel-alloc protocol 1" (docs/protocol.md).
 *
 * An external allocator is an rv_allocator whose fn is rv_ext_alloc and
 * whose user is an rv_ext handle (rv_ext_allocator fills one in):
 *
 *   RV_EXT_ONESHOT  `/bin/sh -c CMD` once per function: the unallocated
 *                   module (machine block + one function, canonical text)
 *                   on its stdin; the allocated module on its stdout, exit
 *                   0; exit 3 = declined (RAVEL_EDECLINED), anything else a
 *                   failure (RAVEL_EFAIL).
 *   RV_EXT_FRAMES   CMD started once (per process using the handle) and
 *                   serving many functions: "ravel-alloc 1 N\n" + N bytes
 *                   in, "ok N\n" / "declined N\n" / "error N\n" + N bytes
 *                   out. A server that dies, hangs or breaks the framing
 *                   fails the function in flight and is restarted for the
 *                   next one.
 *
 * The output must be a module whose printed machine block is byte-equal to
 * the input's and that holds exactly one function, which validates
 * structurally (ravel_validate not RAVEL_EINVAL; an allocation error such
 * as a missing location is left to the checker and the harness). The
 * function returned is a clone of the parsed one rebound to the ORIGINAL
 * machine: the canonical machine text fixes every register and class id,
 * so equal text means equal ids, and the checker sees one machine.
 *
 * Processes: the child runs in its own process group (a timeout kills the
 * whole group: sh and what it started), dies with its parent on Linux
 * (PR_SET_PDEATHSIG), and gets no descriptor of ours but its three pipes
 * (all ours are O_CLOEXEC). Every child is reaped (waitpid), also after a
 * SIGKILL. SIGPIPE is ignored around the exchanges (restored after), so a
 * child that exits early cannot kill ravel; EINTR is retried.
 *
 * Lazy start and fork: a handle starts its frames server on first use and
 * remembers the starting process (getpid()); a handle copied into a forked
 * process (a campaign worker, the reducer's worker) closes the inherited
 * pipes without touching the parent's server and starts its own, so each
 * process has its own server (persistent mode per worker).
 *
 * Bounds: output at most RV_MAX_INPUT_BYTES (256 MiB), the child's stderr
 * kept to its last RV_EXT_STDERR_KEEP bytes (included in failure messages).
 *
 * Failure messages (*msg of rv_ext_alloc): the first line says what
 * happened without a colon ("CMD exited with status 1", "... killed by
 * signal SIGSEGV", "... timed out after 1 s", "... output does not parse");
 * details (diagnostics, the child's stderr) follow on later lines. The
 * reducer keeps "fails the same way" by that first line.
 *
 * Requires: POSIX; the process single-threaded while a handle is used
 * (fork, signal dispositions). Library code: no exit(), rv_x* allocation.
 */
#ifndef RAVEL_FUZZ_EXTALLOC_H
#define RAVEL_FUZZ_EXTALLOC_H

#include "allocator/alloc.h"
#include "fuzz/gen.h"
#include "ir/ir.h"

enum { RV_EXT_ONESHOT = 0, RV_EXT_FRAMES = 1 };
enum { RV_EXT_STDERR_KEEP = 4096 };
#define RV_EXT_TIMEOUT_DEFAULT 10.0 /* seconds per function */

typedef struct rv_ext rv_ext;

/* A handle on CMD (copied); starts nothing. timeout_s <= 0: the default. */
rv_ext *rv_ext_new(const char *cmd, int protocol, double timeout_s);
/* Stops the frames server (stdin closed, a short wait, then SIGKILL) if
 * this process started it, and frees. NULL is fine. */
void rv_ext_free(rv_ext *x);
/* The frames server of this process, if any, stopped as rv_ext_free does;
 * the handle stays usable (the next call starts a new one). */
void rv_ext_stop(rv_ext *x);
/* The ravel_alloc_fn: user is an rv_ext. RAVEL_OK (*out a function over
 * orig's machine), RAVEL_EDECLINED (*msg: the reason, may be NULL) or
 * RAVEL_EFAIL (*msg: what happened, with the child's stderr). */
int rv_ext_alloc(void *user, const ravel_func *orig, uint64_t seed, ravel_func **out, char **msg);

const char *rv_ext_cmd(const rv_ext *x);
int rv_ext_protocol(const rv_ext *x);
double rv_ext_timeout(const rv_ext *x);
const char *rv_ext_protocol_name(int protocol);  /* "oneshot", "frames" */
int rv_ext_protocol_parse(const char *s);        /* RV_EXT_*, or -1 */
/* Counters of this process's use of the handle: frames servers started
 * (restarts included). */
uint64_t rv_ext_starts(const rv_ext *x);

/* An allocator entry for x named name (not copied). */
rv_allocator rv_ext_allocator(rv_ext *x, const char *name);
/* True if a runs through rv_ext_alloc; then its handle. */
rv_ext *rv_ext_of(const rv_allocator *a);

/* Runs x once on a small generated function (gen's machine and features,
 * few instructions) to catch a command that cannot work at all. Returns 0
 * if the command can run (its answer, even a failure on that function, is
 * the campaign's business), else -1 with *msg (malloc'd) saying why in one
 * line: "command not found (exit 127)", "cannot be executed (exit 126)",
 * "wrote nothing on standard output (exit 0)". Stops the server after. */
int rv_ext_probe(rv_ext *x, const rv_gen_opts *gen, char **msg);

/* The reproducer's header lines naming the command: "# alloc-cmd: CMD\n"
 * "# alloc-protocol: P\n" (and the timeout) inserted after the
 * "# allocator:" line of text (or after the first line). Returns a new
 * malloc'd text and its length in *outlen. */
char *rv_ext_annotate(const rv_ext *x, const char *text, size_t len, size_t *outlen);

#endif
