/* fuzz_slotalloc.c - a libFuzzer / AFL++ / OSS-Fuzz target of ravel's
 * fuzzing kit (include/ravel_fuzz.h) for the slot allocator (slotalloc.h),
 * on an x86-64-like machine built with the API. Every input becomes a
 * function for that machine; slotalloc allocates it; the checker proves
 * the allocation; a wrong one prints a reproducer (banner, machine,
 * "#| " original, allocation, report) on stderr and aborts.
 *
 *   cmake -S examples/slotalloc/consumer -B build-sa -DCMAKE_C_COMPILER=clang -DCMAKE_PREFIX_PATH=PREFIX
 *   cmake --build build-sa
 *   build-sa/fuzz_slotalloc -runs=3000 -seed=1        clean
 *   SLOTALLOC_BUG=clobber build-sa/fuzz_slotalloc     a planted bug: reproducer, abort, crash-HASH
 *   ravel reduce --machine REPRO.ra --alloc-cmd 'build-sa/slotalloc/slotalloc_server' \
 *     --alloc-protocol frames --from-fuzz kit crash-HASH
 * (REPRO.ra: the reproducer as printed, between the banners: its machine
 * block is this machine). */
#include "slotalloc.h"

#include <ravel_fuzz.h>

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ravel_machine *machine; /* borrowed by the kit: kept for the process */
static ravel_fuzz_kit *kit;
static slotalloc_config config;

/* gpr: rax..r15 with rsp and rbp reserved; xmm0..xmm15; calls clobber the
 * System V caller-saved registers. */
static ravel_machine *x86_64(void)
{
    static const char *const gpr[] = {"rax", "rcx", "rdx", "rbx", "rsi", "rdi", "r8",  "r9",
                                      "r10", "r11", "r12", "r13", "r14", "r15"};
    static const char *const caller_saved[] = {"rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"};
    ravel_machine *m = ravel_machine_new();
    int g = ravel_machine_add_class(m, "gpr");
    for (size_t i = 0; i < sizeof gpr / sizeof *gpr; i++) ravel_machine_add_reg(m, gpr[i], g, 0);
    ravel_machine_add_reg(m, "rsp", g, 1);
    ravel_machine_add_reg(m, "rbp", g, 1);
    int x = ravel_machine_add_class(m, "xmm");
    uint32_t clob[32];
    size_t n = 0;
    for (size_t i = 0; i < sizeof caller_saved / sizeof *caller_saved; i++)
        clob[n++] = (uint32_t)ravel_machine_find_reg(m, caller_saved[i]);
    for (int i = 0; i < 16; i++) {
        char name[8];
        snprintf(name, sizeof name, "xmm%d", i);
        clob[n++] = (uint32_t)ravel_machine_add_reg(m, name, x, 0);
    }
    ravel_machine_set_clobbers(m, clob, n);
    const char *err = ravel_machine_error(m);
    if (err) {
        fprintf(stderr, "fuzz_slotalloc: machine: %s\n", err);
        abort();
    }
    return m;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    config = slotalloc_config_from_env();
    if (config.unknown) {
        fprintf(stderr, "fuzz_slotalloc: unknown SLOTALLOC_BUG '%s'\n", config.unknown);
        abort();
    }
    machine = x86_64();
    ravel_fuzz_kit_opts o;
    ravel_fuzz_kit_opts_default(&o);
    o.name = "slotalloc";
    o.alloc = slotalloc_alloc;
    o.user = &config;
    o.gen.machine = machine;
    kit = ravel_fuzz_kit_new(&o);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return ravel_fuzz_kit_run(kit, data, size); }
