/* fuzz_myalloc.c - a libFuzzer / AFL++ / OSS-Fuzz target for myalloc with
 * ravel's fuzzing kit (include/ravel_fuzz.h): every input becomes a random
 * function for the machine of machine.ra, myalloc allocates it, ravel's
 * checker proves the allocation; a wrong one prints a reproducer and
 * aborts (the engine saves the input).
 *
 *   clang -fsanitize=fuzzer,address,undefined fuzz_myalloc.c myalloc.c \
 *     $(pkg-config --cflags --libs ravel-fuzz)      (or CMakeLists.txt here)
 *   ./fuzz_myalloc -runs=3000 -seed=1               no bug: a clean run
 *   MYALLOC_BUG=sub-use ./fuzz_myalloc              crashes with a reproducer
 *   ravel reduce --machine machine.ra --no-safepoints --alloc-cmd ./myalloc_cmd \
 *     --from-fuzz kit crash-...                     (with MYALLOC_BUG=sub-use) */
#include "machine_ra.h" /* static const char machine_ra[]: machine.ra (CMakeLists.txt) */
#include "myalloc.h"

#include <ravel_fuzz.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Made once, kept for the life of the process (the engine never returns):
 * the machine must outlive the kit, which borrows it. */
static ravel_module *machine;
static ravel_fuzz_kit *kit;
static myalloc_config config;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    ravel_diags *d = ravel_diags_new();
    machine = ravel_module_parse(machine_ra, strlen(machine_ra), "machine.ra", d);
    if (!machine || ravel_diags_count(d)) {
        ravel_diags_print(stderr, d);
        abort();
    }
    ravel_diags_free(d);
    if (myalloc_config_from_env(&config) != 0) abort();
    ravel_fuzz_kit_opts o;
    ravel_fuzz_kit_opts_default(&o);
    o.name = "myalloc";
    o.alloc = myalloc_alloc;
    o.user = &config;
    o.gen.machine = ravel_module_machine(machine);
    /* myalloc declines every function with safepoints: do not generate
     * them (declines are for the rare case; `ravel reduce` then needs
     * --no-safepoints too, as the reproducer's header says) */
    o.gen.features &= ~RAVEL_GEN_SAFEPOINTS;
    kit = ravel_fuzz_kit_new(&o);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return ravel_fuzz_kit_run(kit, data, size); }
