/* gen_consumer.c - an installed consumer of ravel::gen (ravel_gen.h): builds
 * a machine with the API (register ids of class int not contiguous),
 * generates functions for it, validates them and allocates them with
 * ravel_allocate. Exit 0 when every function validates and allocates. */
#include <ravel.h>
#include <ravel_gen.h>

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    ravel_machine *m = ravel_machine_new();
    int gpr = ravel_machine_add_class(m, "gpr"), fpr = ravel_machine_add_class(m, "fpr");
    ravel_machine_add_reg(m, "rax", gpr, 0);
    ravel_machine_add_reg(m, "xmm0", fpr, 0);
    ravel_machine_add_reg(m, "rbx", gpr, 0);
    ravel_machine_add_reg(m, "xmm1", fpr, 0);
    ravel_machine_add_reg(m, "rsp", gpr, 1);
    uint32_t clob[] = {0, 1};
    ravel_machine_set_clobbers(m, clob, 2);
    ravel_gen_opts o;
    ravel_gen_opts_default(&o);
    o.machine = m;
    o.max_insts = 60;
    char why[128];
    printf("features honoured: 0x%x (of 0x%x) %s\n", ravel_gen_features(m, RAVEL_GEN_ALL, why, sizeof why),
           (unsigned)RAVEL_GEN_ALL, why);
    int bad = 0;
    for (uint64_t s = 0; s < 50; s++) {
        ravel_module *mod = ravel_gen_from_seed(s, &o);
        ravel_func *f = ravel_module_func(mod, 0), *out = NULL;
        char *err = NULL;
        if (ravel_validate(f, RAVEL_VALIDATE_SSA, NULL) != RAVEL_OK) bad = 1, fprintf(stderr, "seed %d: invalid\n", (int)s);
        if (ravel_allocate(ravel_allocator_name(0), f, s, &out, &err) != RAVEL_OK)
            bad = 1, fprintf(stderr, "seed %d: %s\n", (int)s, err ? err : "not allocated");
        free(err);
        ravel_func_free(out);
        ravel_module_free(mod); /* leaves m: borrowed */
    }
    ravel_machine_free(m);
    puts(bad ? "gen_consumer: FAILED" : "gen_consumer: ok");
    return bad;
}
