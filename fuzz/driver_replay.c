/* driver_replay.c - `ravel_replay FILE|DIR...`: replays reproducers
 * (reproducers/NAME.ra) as regression tests through rv_fuzz_replay_ra: the
 * verdict written in the header, then every named allocator re-run on the
 * function and checked (and compared in the interpreter). Prints one line
 * per file and "N passed, N failed"; exits 1 if any failed. Files marked
 * `# status: open` (recorded bugs not fixed yet) are run and reported but do
 * not fail. A reproducer of an external allocator (`# alloc-cmd: CMD`, from
 * `ravel fuzz --alloc-cmd`) is skipped with a line saying so: its function
 * is not the built-in allocators' business, and the command may not exist
 * where the replay runs (reduce it with `ravel reduce --alloc-cmd CMD`). */
#define _DEFAULT_SOURCE
#include "fuzz/campaign.h"
#include "fuzz/driver_files.h"

typedef struct replay { rv_fuzz *z; unsigned passed, failed, open, skipped; } replay;

static int replay_one(const char *path, const uint8_t *data, size_t size, void *ctx)
{
    replay *r = ctx;
    size_t n = strlen(path);
    if (n < 3 || strcmp(path + n - 3, ".ra") != 0) return 0; /* READMEs and the like */
    char status[16] = "";
    rv_fuzz_header((const char *)data, size, "status", status, sizeof status);
    bool open = strcmp(status, "open") == 0;
    char cmd[4096];
    if (rv_fuzz_header((const char *)data, size, "alloc-cmd", cmd, sizeof cmd)) {
        r->skipped++;
        printf("skip %s (a reproducer of an external allocator, '# alloc-cmd:'; not replayed against the built-in ones)\n",
               path);
        return 0;
    }
    int v = rv_fuzz_replay_ra(r->z, (const char *)data, size, path);
    if (open) { /* a known bug: reported, not failed */
        r->open++;
        printf(v == RV_FUZZ_PASS ? "open %s now passes: remove its '# status: open' line\n"
                                 : "open %s (known bug, still failing)\n",
               path);
    } else if (v == RV_FUZZ_PASS) {
        r->passed++;
        printf("ok   %s\n", path);
    } else {
        r->failed++;
        printf("FAIL %s\n", path);
        fwrite(r->z->repro, 1, r->z->repro_len, stdout);
    }
    return 0;
}

int main(int argc, char **argv)
{
    bool help = argc < 2;
    for (int i = 1; i < argc; i++) help |= !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
    if (help) {
        fprintf(argc < 2 ? stderr : stdout, "usage: %s FILE|DIR...\nReplays reproducers (reproducers/NAME.ra) as "
                "regression tests: one line per file, then 'N passed, N failed'.\n", argv[0]);
        return argc < 2 ? 2 : 0;
    }
    replay r = {rv_fuzz_new(), 0, 0, 0, 0};
    unsigned count = 0;
    int bad = 0;
    for (int i = 1; i < argc; i++) bad |= rv_driver_path(argv[i], replay_one, &r, &count);
    rv_fuzz_free(r.z);
    if (r.open) printf("%u known open bug%s (status: open)\n", r.open, r.open == 1 ? "" : "s");
    if (r.skipped) printf("%u skipped (external allocators' reproducers)\n", r.skipped);
    printf("%u passed, %u failed\n", r.passed, r.failed);
    return r.failed || bad ? 1 : 0;
}
