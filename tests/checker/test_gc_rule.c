/* test_gc_rule.c - the collector's rule at a safepoint (docs/format.md
 * section 6, "Safepoints"; checker/ck_sem.h: ck_gc_keeps), both ways, on
 * random straight-line allocations under `gc moving` and `gc nonmoving`.
 *
 * Each function has two .ref values and an int in registers, copies some
 * of them into slots (one value per slot), calls a safepoint whose
 * stackmap lists a random subset of the slots that hold a reference, and
 * then reads one value from one location that held it before the call (its
 * register, or a slot through a reload). The test's own statement of the
 * rule decides whether the read is right: an int is untouched (no listed
 * slot holds one); a reference survives under `gc moving` only in a listed
 * slot, and under `gc nonmoving` everywhere exactly when some listed slot
 * holds it (rooted), else nowhere. The checker must agree, by value
 * numbering and by the reference alone. Every shape is required to occur
 * (a rooted reference read from a register and from an unlisted slot
 * under `gc nonmoving`, the reads a rule written with "listed" instead of
 * "rooted" would refuse, included). */
#include "ravel.h"
#include "ir/rng.h"
#include "tests/test.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

enum { NSLOTS = 4, NVALS = 3 }; /* v0, v1: .ref in r0, r1; v2: int in r2 */

typedef struct shape {
    bool nonmoving;
    int slot_val[NSLOTS]; /* the value slot s holds, -1 if none */
    bool listed[NSLOTS];
    int val, from_slot;   /* the read: value val from slot from_slot, or (-1) from its register */
} shape;

enum { K_MOV_OK, K_MOV_BAD, K_NM_ROOTED_REG, K_NM_ROOTED_UNLISTED, K_NM_ROOTED_LISTED, K_NM_UNROOTED, K_INT, K_N };

static void draw(uint64_t *rng, shape *s)
{
    memset(s, 0, sizeof *s);
    s->nonmoving = rv_rng_below(rng, 2);
    for (int k = 0; k < NSLOTS; k++) {
        s->slot_val[k] = (int)rv_rng_below(rng, NVALS + 1) - 1;
        s->listed[k] = s->slot_val[k] >= 0 && s->slot_val[k] < 2 && rv_rng_below(rng, 2);
    }
    s->val = (int)rv_rng_below(rng, NVALS);
    int holders[NSLOTS], n = 0;
    for (int k = 0; k < NSLOTS; k++)
        if (s->slot_val[k] == s->val) holders[n++] = k;
    s->from_slot = n && rv_rng_below(rng, 2) ? holders[rv_rng_below(rng, (uint32_t)n)] : -1;
}

/* The rule, stated here independently of the checker. */
static bool read_ok(const shape *s, int *kind)
{
    bool rooted = false;
    for (int k = 0; k < NSLOTS; k++) rooted |= s->listed[k] && s->slot_val[k] == s->val;
    bool in_listed = s->from_slot >= 0 && s->listed[s->from_slot];
    if (s->val == 2) return *kind = K_INT, true;
    if (!s->nonmoving) return *kind = in_listed ? K_MOV_OK : K_MOV_BAD, in_listed;
    if (!rooted) return *kind = K_NM_UNROOTED, false;
    *kind = s->from_slot < 0 ? K_NM_ROOTED_REG : in_listed ? K_NM_ROOTED_LISTED : K_NM_ROOTED_UNLISTED;
    return true;
}

static void print(const shape *s, char *buf, size_t n)
{
    size_t o = (size_t)snprintf(buf, n, "machine\n  class int r0 r1 r2 r3\n%send\n\nfunc f\nb0:\n"
                                "  v0:int.ref @r0, v1:int.ref @r1, v2:int @r2 = args\n",
                                s->nonmoving ? "  gc nonmoving\n" : "");
    for (int k = 0; k < NSLOTS; k++)
        if (s->slot_val[k] >= 0) o += (size_t)snprintf(buf + o, n - o, "  s%d = spill r%d\n", k, s->slot_val[k]);
    o += (size_t)snprintf(buf + o, n - o, "  call g clobbers() safepoint stackmap(");
    const char *sep = "";
    for (int k = 0; k < NSLOTS; k++)
        if (s->listed[k]) o += (size_t)snprintf(buf + o, n - o, "%ss%d", sep, k), sep = " ";
    o += (size_t)snprintf(buf + o, n - o, ")\n");
    if (s->from_slot >= 0)
        o += (size_t)snprintf(buf + o, n - o, "  r3 = reload s%d\n  out v%d @r3\n", s->from_slot, s->val);
    else o += (size_t)snprintf(buf + o, n - o, "  out v%d @r%d\n", s->val, s->val);
    snprintf(buf + o, n - o, "  ret\nend\n");
}

static bool verified(ravel_checker *ck, const char *text)
{
    ravel_diags *d = ravel_diags_new();
    ravel_module *m = ravel_module_parse(text, strlen(text), "<gc>", d);
    ravel_diags_free(d);
    if (!m) return fprintf(stderr, "parse error:\n%s", text), false;
    bool ok = ravel_check(ck, ravel_module_func(m, 0), NULL, NULL) == RAVEL_OK;
    ravel_module_free(m);
    return ok;
}

TEST(collector_rule_both_ways)
{
    ravel_checker *vn = ravel_checker_new(), *ref = ravel_checker_new();
    ravel_checker_set_options(ref, RAVEL_CHECK_REFERENCE);
    uint64_t rng = 29;
    uint32_t seen[K_N] = {0}, wrong = 0;
    char text[2048];
    for (int i = 0; i < 6000; i++) {
        shape s;
        draw(&rng, &s);
        int kind;
        bool want = read_ok(&s, &kind);
        print(&s, text, sizeof text);
        seen[kind]++;
        bool a = verified(vn, text), b = verified(ref, text);
        if ((a != want || b != want) && wrong++ < 3)
            fprintf(stderr, "want %s, value numbering %s, reference %s:\n%s", want ? "ok" : "error", a ? "ok" : "error",
                    b ? "ok" : "error", text);
    }
    CHECK_EQ_INT(wrong, 0);
    for (int k = 0; k < K_N; k++) {
        if (seen[k] < 40) fprintf(stderr, "shape %d drawn %u times\n", k, seen[k]);
        CHECK(seen[k] >= 40);
    }
    ravel_checker_free(vn);
    ravel_checker_free(ref);
}

int main(void)
{
    RUN(collector_rule_both_ways);
    return TEST_SUMMARY();
}
