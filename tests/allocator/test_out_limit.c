/* test_out_limit.c - the output builder refuses stackmaps past
 * RV_MAX_STACKMAP_ENTRIES (an allocated function of bounded size) with a
 * message naming the limit, and builds the function below it. */
#include "allocator/alloc.h"
#include "tests/test.h"

#include <stdlib.h>

static const char text[] = "machine\n  class int r0\nend\nfunc f\nb0:\n  poll safepoint\n  ret\nend\n";

TEST(stackmap_limit)
{
    ravel_module *m = ravel_module_parse(text, sizeof text - 1, "t.ra", NULL);
    CHECK(m != NULL);
    if (!m) return;
    const ravel_func *f = ravel_module_func(m, 0);
    uint32_t half = RV_MAX_STACKMAP_ENTRIES / 2 + 1;
    uint32_t *slots = calloc(half, sizeof *slots);
    /* below the limit: built */
    rv_out o;
    rv_out_init(&o, f);
    rv_out_stackmap(&o, 0, slots, 3);
    ravel_func *g = rv_out_finish(&o);
    CHECK(g != NULL && !o.too_big);
    ravel_func_free(g);
    rv_out_free(&o);
    /* past it: refused, nothing more kept */
    rv_out_init(&o, f);
    rv_out_stackmap(&o, 0, slots, half);
    CHECK(!o.too_big);
    rv_out_stackmap(&o, 0, slots, half);
    CHECK(o.too_big);
    CHECK(o.smap.len == (size_t)half + 2);
    CHECK(rv_out_finish(&o) == NULL);
    char *msg = rv_out_limit_error(&o);
    CHECK(msg && strstr(msg, "too large: the stackmaps would hold more than 33554432 slot entries"));
    free(msg);
    rv_out_free(&o);
    free(slots);
    ravel_module_free(m);
}

int main(void)
{
    RUN(stackmap_limit);
    return TEST_SUMMARY();
}
