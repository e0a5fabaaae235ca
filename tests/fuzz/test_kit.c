/* test_kit.c - the fuzzing kit (include/ravel_fuzz.h, fuzz/kit.c) through
 * its public API, with in-test callbacks: a correct one (ravel_allocate
 * "linear") finds no bug on random inputs, for the random machine and for a
 * given one; a declining one is counted, never a bug; planted wrong ones
 * (linear, then a corruption of inject/inject.h; a failure) are found
 * within a bounded number of inputs, with a complete reproducer;
 * ravel_fuzz_kit_run aborts with the banner (in a forked child); misuse is
 * an error value.
 *
 *   test_kit                run the unit tests
 *   test_kit --emit DIR     write DIR/random.bin + random.ra (the function the
 *                           kit gave the callback) and machine.bin +
 *                           machine.ra + machine-file.ra (a given machine), for
 *                           kit_reduce.sh: `ravel reduce --from-fuzz kit` must
 *                           regenerate the same functions (the fixed mapping) */
#define _GNU_SOURCE /* open_memstream */
#include "ravel_fuzz.h"

#include "inject/inject.h"
#include "tests/test.h"
#include "ir/rng.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* An x86-64-like machine (the one of examples/slotalloc). */
static const char machine_text[] =
    "machine\n"
    "  class gpr rax rcx rdx rbx rsi rdi r8 r9 r10 r11 r12 r13 r14 r15\n"
    "  reserved gpr rsp rbp\n"
    "  class xmm xmm0 xmm1 xmm2 xmm3 xmm4 xmm5 xmm6 xmm7\n"
    "  clobbers rax rcx rdx rsi rdi r8 r9 r10 r11 xmm0 xmm1 xmm2 xmm3 xmm4 xmm5 xmm6 xmm7\n"
    "end\n"
    "\n# the format wants a function; the kit uses the machine only\n"
    "func unused\nb0:\n  ret\nend\n";

static ravel_module *parse(const char *text)
{
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, strlen(text), "<test>", d);
    if (ravel_diags_count(d)) ravel_diags_print(stderr, d);
    ravel_diags_free(d);
    return m;
}

static size_t random_input(uint64_t *s, uint8_t *buf, size_t cap)
{
    size_t n = rv_rng_next(s) % cap;
    for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)rv_rng_next(s);
    return n;
}

/* ---- callbacks --------------------------------------------------------------------- */

typedef struct cb_state {
    const ravel_machine *want_machine; /* non-NULL: every orig must be of this machine */
    uint64_t calls, wrong_machine;
    char *last_text; /* the last orig as printed (recording callbacks), malloc'd */
    uint64_t last_seed;
} cb_state;

static int linear(void *user, const ravel_func *orig, uint64_t seed, ravel_func **out, char **msg)
{
    cb_state *s = user;
    s->calls++;
    if (s->want_machine && ravel_func_machine(orig) != s->want_machine) s->wrong_machine++;
    return ravel_allocate("linear", orig, seed, out, msg);
}

/* Declines functions with an odd seed, allocates the others. */
static int declines_odd(void *user, const ravel_func *orig, uint64_t seed, ravel_func **out, char **msg)
{
    if (seed & 1) {
        *msg = strdup("odd seed: not mine");
        return RAVEL_EDECLINED;
    }
    return linear(user, orig, seed, out, msg);
}

/* Linear, then one realistic bug: a use read from the wrong register. */
static int wrong_use_reg(void *user, const ravel_func *orig, uint64_t seed, ravel_func **out, char **msg)
{
    int rc = linear(user, orig, seed, out, msg);
    if (rc == RAVEL_OK) {
        rv_inject_result res;
        rv_inject(*out, RV_INJ_USE_REG, seed, &res);
    }
    return rc;
}

/* Fails on functions with more than one block (a "satisfiable" function it
 * cannot do: a bug for the kit). */
static int fails_on_branches(void *user, const ravel_func *orig, uint64_t seed, ravel_func **out, char **msg)
{
    if (ravel_func_nblocks(orig) > 1) {
        *msg = strdup("ran out of registers in my_alloc.c:42");
        return RAVEL_EFAIL;
    }
    return linear(user, orig, seed, out, msg);
}

/* Records the printed orig and the seed, then allocates. */
static int recording(void *user, const ravel_func *orig, uint64_t seed, ravel_func **out, char **msg)
{
    cb_state *s = user;
    free(s->last_text);
    s->last_text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&s->last_text, &len);
    ravel_print_machine(fp, ravel_func_machine(orig));
    fputc('\n', fp);
    ravel_print_func(fp, orig);
    fclose(fp);
    s->last_seed = seed;
    return linear(user, orig, seed, out, msg);
}

static ravel_fuzz_kit *kit_for(ravel_alloc_fn fn, cb_state *s, const ravel_machine *m, unsigned warm_up)
{
    ravel_fuzz_kit_opts o;
    ravel_fuzz_kit_opts_default(&o);
    o.name = "planted";
    o.alloc = fn;
    o.user = s;
    o.gen.machine = m;
    o.warm_up = warm_up;
    return ravel_fuzz_kit_new(&o);
}

/* ---- tests ----------------------------------------------------------------------------- */

TEST(defaults)
{
    ravel_fuzz_kit_opts o;
    memset(&o, 0xab, sizeof o);
    ravel_fuzz_kit_opts_default(&o);
    ravel_gen_opts g;
    ravel_gen_opts_default(&g);
    CHECK_STR(o.name, "user");
    CHECK(o.alloc == NULL && o.user == NULL && o.flags == 0);
    CHECK_EQ_INT(o.warm_up, 8);
    CHECK(memcmp(&o.gen, &g, sizeof g) == 0);
    ravel_fuzz_kit_opts_default(NULL); /* no crash */
}

TEST(misuse)
{
    CHECK(ravel_fuzz_kit_new(NULL) == NULL);
    ravel_fuzz_kit_opts o;
    ravel_fuzz_kit_opts_default(&o);
    CHECK(ravel_fuzz_kit_new(&o) == NULL); /* no allocator */
    CHECK_EQ_INT(ravel_fuzz_kit_check(NULL, (const uint8_t *)"x", 1), RAVEL_EINVAL);
    CHECK(ravel_fuzz_kit_reproducer(NULL, NULL) == NULL);
    CHECK_EQ_INT(ravel_fuzz_kit_executions(NULL), 0);
    CHECK_EQ_INT(ravel_fuzz_kit_declined(NULL), 0);
    CHECK_EQ_INT(ravel_fuzz_kit_bugs(NULL), 0);
    ravel_fuzz_kit_free(NULL);
    cb_state s = {0};
    ravel_fuzz_kit *k = kit_for(linear, &s, NULL, 0);
    CHECK(k != NULL);
    CHECK_EQ_INT(ravel_fuzz_kit_check(k, NULL, 3), RAVEL_EINVAL);
    CHECK_EQ_INT(ravel_fuzz_kit_executions(k), 0);
    CHECK_EQ_INT(ravel_fuzz_kit_check(k, NULL, 0), RAVEL_OK); /* the empty input */
    CHECK_EQ_INT(ravel_fuzz_kit_executions(k), 1);
    size_t len = 7;
    CHECK(ravel_fuzz_kit_reproducer(k, &len) == NULL);
    CHECK_EQ_INT(len, 0);
    ravel_fuzz_kit_free(k);
}

/* A correct allocator: no bug over 2000 random inputs (random machines);
 * the warm-up is not counted. */
TEST(correct_random_machine)
{
    cb_state s = {0};
    ravel_fuzz_kit *k = kit_for(linear, &s, NULL, 8);
    uint64_t warm_calls = s.calls;
    CHECK(warm_calls > 0); /* the warm-up went through the callback */
    CHECK_EQ_INT(ravel_fuzz_kit_executions(k), 0);
    uint64_t r = 1;
    uint8_t buf[700];
    int bad = 0;
    for (int i = 0; i < 2000; i++) {
        size_t n = random_input(&r, buf, sizeof buf);
        if (ravel_fuzz_kit_check(k, buf, n) != RAVEL_OK && !bad++) fputs(ravel_fuzz_kit_reproducer(k, NULL), stderr);
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(ravel_fuzz_kit_executions(k), 2000);
    CHECK_EQ_INT(ravel_fuzz_kit_bugs(k), 0);
    CHECK_EQ_INT(ravel_fuzz_kit_declined(k), 0);
    CHECK_EQ_INT(s.calls - warm_calls, 2000);
    ravel_fuzz_kit_free(k);
}

/* The same on a given machine: every function the callback sees is of it. */
TEST(correct_given_machine)
{
    ravel_module *mm = parse(machine_text);
    CHECK(mm != NULL);
    if (!mm) return;
    cb_state s = {.want_machine = ravel_module_machine(mm)};
    ravel_fuzz_kit *k = kit_for(linear, &s, ravel_module_machine(mm), 2);
    uint64_t r = 2;
    uint8_t buf[700];
    int bad = 0;
    for (int i = 0; i < 1000; i++) {
        size_t n = random_input(&r, buf, sizeof buf);
        if (ravel_fuzz_kit_check(k, buf, n) != RAVEL_OK && !bad++) fputs(ravel_fuzz_kit_reproducer(k, NULL), stderr);
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(s.wrong_machine, 0);
    CHECK(s.calls > 1000);
    ravel_fuzz_kit_free(k);
    ravel_module_free(mm);
}

/* Declines are counted and never a bug. */
TEST(declines)
{
    cb_state s = {0};
    ravel_fuzz_kit *k = kit_for(declines_odd, &s, NULL, 2);
    CHECK_EQ_INT(ravel_fuzz_kit_declined(k), 0); /* the warm-up's are not counted */
    uint64_t r = 3;
    uint8_t buf[400];
    int bad = 0;
    for (int i = 0; i < 300; i++) {
        size_t n = random_input(&r, buf, sizeof buf);
        bad += ravel_fuzz_kit_check(k, buf, n) != RAVEL_OK;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(ravel_fuzz_kit_bugs(k), 0);
    uint64_t d = ravel_fuzz_kit_declined(k);
    CHECK(d > 100 && d < 200); /* about half the seeds are odd */
    CHECK(ravel_fuzz_kit_reproducer(k, NULL) == NULL);
    ravel_fuzz_kit_free(k);
}

static bool has(const char *text, const char *s) { return text && strstr(text, s) != NULL; }

/* Finds the first input (of a fixed random sequence, at most max) the kit
 * reports as a bug; returns its index or -1. */
static int first_bug(ravel_fuzz_kit *k, uint64_t r, int max)
{
    uint8_t buf[700];
    for (int i = 0; i < max; i++) {
        size_t n = random_input(&r, buf, sizeof buf);
        int rc = ravel_fuzz_kit_check(k, buf, n);
        if (rc == RAVEL_EFAIL) return i;
        if (rc != RAVEL_OK) return -2;
    }
    return -1;
}

/* A wrong allocation is found within 200 inputs, with everything needed
 * to reproduce it in the reproducer. */
TEST(planted_wrong_allocation)
{
    ravel_module *mm = parse(machine_text);
    if (!mm) return;
    cb_state s = {0};
    ravel_fuzz_kit *k = kit_for(wrong_use_reg, &s, ravel_module_machine(mm), 2);
    int at = first_bug(k, 4, 200);
    CHECK(at >= 0);
    size_t len = 0;
    const char *t = ravel_fuzz_kit_reproducer(k, &len);
    CHECK(t != NULL && len == strlen(t));
    CHECK(has(t, "# ravel fuzz reproducer\n# kit: planted (include/ravel_fuzz.h)\n"));
    CHECK(has(t, "# THIS_FILE: this report saved to a file"));
    CHECK(has(t, "ravel reduce --machine THIS_FILE --alloc-cmd 'YOUR_ALLOCATOR_COMMAND' --from-fuzz kit CRASH_INPUT\n"));
    CHECK(has(t, "# allocator: planted\n"));
    CHECK(has(t, "# seed: 0x"));
    CHECK(has(t, "# verdict: the checker rejects the allocation"));
    CHECK(has(t, "#   ")); /* the report, as comment lines */
    CHECK(has(t, "error"));
    CHECK(has(t, "#| machine\n"));               /* the unallocated function ... */
    CHECK(has(t, "#| func "));
    CHECK(has(t, "\nmachine\n  class gpr rax")); /* the machine */
    CHECK(has(t, " @"));                         /* and the allocation */
    CHECK_EQ_INT(ravel_fuzz_kit_bugs(k), 1);
    /* the reproducer parses back into the machine and the wrong allocation,
     * which the checker rejects against its "#| " original */
    ravel_module *rm = parse(t);
    CHECK(rm && ravel_module_nfuncs(rm) == 1 && ravel_func_is_allocated(ravel_module_func(rm, 0)));
    ravel_module_free(rm);
    ravel_fuzz_kit_free(k);
    ravel_module_free(mm);
}

/* A failure on a satisfiable function is a bug, with the callback's message. */
TEST(planted_failure)
{
    cb_state s = {0};
    ravel_fuzz_kit *k = kit_for(fails_on_branches, &s, NULL, 0);
    CHECK(first_bug(k, 5, 100) >= 0);
    const char *t = ravel_fuzz_kit_reproducer(k, NULL);
    CHECK(has(t, "# verdict: allocation failed"));
    CHECK(has(t, "ran out of registers in my_alloc.c:42"));
    CHECK(has(t, "\nfunc "));
    ravel_fuzz_kit_free(k);
}

/* Differential: the interpreter runs too (a correct allocator: no bug);
 * the reproducer names it. */
TEST(differential)
{
    cb_state s = {0};
    ravel_fuzz_kit_opts o;
    ravel_fuzz_kit_opts_default(&o);
    o.alloc = wrong_use_reg;
    o.user = &s;
    o.flags = RAVEL_FUZZ_KIT_DIFFERENTIAL;
    o.warm_up = 0;
    o.gen.max_insts = 60;
    o.gen.features &= ~RAVEL_GEN_LOOPS;
    ravel_fuzz_kit *k = ravel_fuzz_kit_new(&o);
    CHECK(first_bug(k, 6, 200) >= 0);
    const char *t = ravel_fuzz_kit_reproducer(k, NULL);
    CHECK(has(t, "# kit: user (include/ravel_fuzz.h), differential\n"));
    CHECK(has(t, "# target: differential\n"));
    CHECK(has(t, "ravel reduce --insts 60 --no-loops --alloc-cmd"));
    ravel_fuzz_kit_free(k);
    o.alloc = linear;
    k = ravel_fuzz_kit_new(&o);
    CHECK_EQ_INT(first_bug(k, 7, 200), -1);
    ravel_fuzz_kit_free(k);
}

/* ravel_fuzz_kit_run: 0 on right inputs; on a bug the banner, the
 * reproducer and abort() (in a child, its stderr into a pipe). */
TEST(run_aborts)
{
    int fd[2];
    CHECK(pipe(fd) == 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 2);
        close(fd[0]);
        cb_state s = {0};
        ravel_fuzz_kit *k = kit_for(wrong_use_reg, &s, NULL, 0);
        uint64_t r = 4;
        uint8_t buf[700];
        for (int i = 0; i < 500; i++) {
            size_t n = random_input(&r, buf, sizeof buf);
            if (ravel_fuzz_kit_run(k, buf, n) != 0) _exit(3);
        }
        _exit(4); /* no bug found: the test fails */
    }
    close(fd[1]);
    char out[1 << 16];
    size_t len = 0;
    ssize_t got;
    while ((got = read(fd[0], out + len, sizeof out - 1 - len)) > 0) len += (size_t)got;
    out[len] = 0;
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
    CHECK(has(out, "==== ravel: bug found; reproducer follows ====\n# ravel fuzz reproducer\n# kit: planted"));
    CHECK(has(out, "#| func "));
    CHECK(has(out, "==== end of reproducer ====\n"));
    /* a correct allocator: 0 every time */
    cb_state s = {0};
    ravel_fuzz_kit *k = kit_for(linear, &s, NULL, 0);
    uint64_t r = 8;
    uint8_t buf[300];
    for (int i = 0; i < 50; i++) {
        size_t n = random_input(&r, buf, sizeof buf);
        CHECK_EQ_INT(ravel_fuzz_kit_run(k, buf, n), 0);
    }
    ravel_fuzz_kit_free(k);
}

/* The same input gives the same function and seed every time (the kit is a
 * function of its bytes, whatever ran before: what an engine replays). */
TEST(deterministic)
{
    cb_state s = {0};
    ravel_fuzz_kit *k = kit_for(recording, &s, NULL, 2);
    const uint8_t in[] = "some fuzzer input, not random at all";
    ravel_fuzz_kit_check(k, in, sizeof in);
    char *first = s.last_text ? strdup(s.last_text) : NULL;
    uint64_t seed = s.last_seed;
    uint64_t r = 9;
    uint8_t buf[500];
    for (int i = 0; i < 20; i++) ravel_fuzz_kit_check(k, buf, random_input(&r, buf, sizeof buf));
    ravel_fuzz_kit_check(k, in, sizeof in);
    CHECK(first && s.last_text && strcmp(first, s.last_text) == 0);
    CHECK(seed == s.last_seed);
    free(first);
    free(s.last_text);
    ravel_fuzz_kit_free(k);
}

/* ---- --emit DIR (kit_reduce.sh) ------------------------------------------------------------ */

static int write_file(const char *dir, const char *name, const void *data, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(data, 1, len, fp) != len || fclose(fp) != 0) {
        fprintf(stderr, "test_kit: cannot write %s\n", path);
        return 1;
    }
    return 0;
}

/* One input through a recording kit: the input and the function the
 * callback got (plus its seed, as a "# seed:" line). */
static int emit_case(const char *dir, const char *base, const ravel_machine *m, uint64_t r)
{
    cb_state s = {0};
    ravel_fuzz_kit *k = kit_for(recording, &s, m, 0);
    uint8_t buf[400];
    size_t n = 0;
    while (n < 200) n = random_input(&r, buf, sizeof buf); /* a function of some size */
    int rc = ravel_fuzz_kit_check(k, buf, n);
    char name[64], seed[64];
    snprintf(name, sizeof name, "%s.bin", base);
    int bad = rc != RAVEL_OK || !s.last_text || write_file(dir, name, buf, n);
    snprintf(name, sizeof name, "%s.ra", base);
    bad = bad || write_file(dir, name, s.last_text, strlen(s.last_text));
    snprintf(seed, sizeof seed, "# seed: 0x%016llx\n", (unsigned long long)s.last_seed);
    snprintf(name, sizeof name, "%s.seed", base);
    bad = bad || write_file(dir, name, seed, strlen(seed));
    free(s.last_text);
    ravel_fuzz_kit_free(k);
    return bad;
}

static int emit(const char *dir)
{
    ravel_module *mm = parse(machine_text);
    if (!mm) return 1;
    int bad = emit_case(dir, "random", NULL, 11) || emit_case(dir, "machine", ravel_module_machine(mm), 12) ||
              write_file(dir, "machine-file.ra", machine_text, strlen(machine_text));
    ravel_module_free(mm);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--emit")) return emit(argv[2]);
    RUN(defaults);
    RUN(misuse);
    RUN(correct_random_machine);
    RUN(correct_given_machine);
    RUN(declines);
    RUN(planted_wrong_allocation);
    RUN(planted_failure);
    RUN(differential);
    RUN(run_aborts);
    RUN(deterministic);
    return TEST_SUMMARY();
}
