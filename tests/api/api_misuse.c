/* api_misuse.c - C API misuse cases (NULL and out-of-range arguments,
 * out-of-order builder calls, functions with no blocks ...), each run in a
 * forked child so that a crash in one does not hide the others. Prints one
 * line per case: CASE name: <what the library returned>. The test fails
 * (exit 1) when a case crashes, exits non-zero or gets a sanitizer report
 * (the library's rule, include/ravel.h: an error status, never a crash);
 * test_misuse.c checks the values returned. */
#include <ravel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <fcntl.h>

#define P(...) do { printf(__VA_ARGS__); fflush(stdout); } while (0)

static ravel_machine *mach(int nregs)
{
    ravel_machine *m = ravel_machine_new();
    int c = ravel_machine_add_class(m, "int");
    char nm[16];
    for (int i = 0; i < nregs; i++) { snprintf(nm, sizeof nm, "r%d", i); ravel_machine_add_reg(m, nm, c, 0); }
    return m;
}

/* v0 = args (fixed r0) ; ret v0 fixed(r0), allocated in r0 when alloc */
static ravel_func *simple(const ravel_machine *m, int alloc)
{
    ravel_func *f = ravel_func_new(m, "f");
    uint32_t b = ravel_block_new(f, NULL);
    ravel_block_begin(f, b);
    uint32_t v = ravel_vreg_new(f, 0, 0);
    ravel_inst_begin(f, RAVEL_OP_ARGS, NULL);
    ravel_inst_def(f, v, RAVEL_C_FIXED, 0, RAVEL_POS_DEFAULT, alloc ? 0 : RAVEL_LOC_NONE);
    ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_RET, NULL);
    ravel_inst_use(f, v, RAVEL_C_FIXED, 0, RAVEL_POS_DEFAULT, alloc ? 0 : RAVEL_LOC_NONE);
    ravel_inst_end(f);
    ravel_func_finish(f);
    return f;
}

static const char *st(int s)
{
    static char b[32];
    switch (s) {
    case RAVEL_OK: return "OK"; case RAVEL_EINVAL: return "EINVAL"; case RAVEL_EFAIL: return "EFAIL";
    case RAVEL_ELIMIT: return "ELIMIT"; case RAVEL_ENOMEM: return "ENOMEM";
    }
    snprintf(b, sizeof b, "%d", s);
    return b;
}

/* Full pipeline on f: validate, print, check (alloc=f), allocate. */
static void pipeline(ravel_func *f, const ravel_func *orig)
{
    ravel_diags *d = ravel_diags_new();
    int v = ravel_validate(f, RAVEL_VALIDATE_SSA, d);
    P("validate=%s ndiags=%zu; ", st(v), ravel_diags_count(d));
    ravel_diags_print(stdout, d);
    ravel_diags_free(d);
    FILE *null = fopen("/dev/null", "w");
    P("print=%s; ", st(ravel_print_func(null, f)));
    fclose(null);
    ravel_checker *ck = ravel_checker_new();
    ravel_report *r = NULL;
    int c = ravel_check(ck, f, orig, &r);
    P("check=%s nerr=%zu ndiag=%zu", st(c), r ? ravel_report_count(r) : 0, r ? ravel_report_ndiags(r) : 0);
    if (r && ravel_report_ndiags(r)) P(" diag0='%s'", ravel_report_diag(r, 0));
    if (r && ravel_report_count(r)) P(" err0='%s'", ravel_report_error(r, 0)->message);
    P("; ");
    ravel_report_free(r);
    ravel_checker_free(ck);
    ravel_func *out = NULL;
    char *err = NULL;
    int a = ravel_allocate("linear", f, 0, &out, &err);
    P("allocate=%s err='%s'\n", st(a), err ? err : "");
    free(err);
    ravel_func_free(out);
}

typedef void (*casefn)(void);
#define CASE(name) static void name(void)

/* ---- NULL pointers ---- */
CASE(null_frees) { ravel_machine_free(NULL); ravel_func_free(NULL); ravel_checker_free(NULL); ravel_report_free(NULL);
                   ravel_diags_free(NULL); ravel_module_free(NULL); P("ok\n"); }
CASE(null_machine_add_class) { P("%s\n", st(ravel_machine_add_class(NULL, "int"))); }
CASE(null_name_add_class) { ravel_machine *m = ravel_machine_new(); P("%s\n", st(ravel_machine_add_class(m, NULL))); ravel_machine_free(m); }
CASE(null_name_add_reg) { ravel_machine *m = mach(1); P("%s\n", st(ravel_machine_add_reg(m, NULL, 0, 0))); ravel_machine_free(m); }
CASE(null_find_reg) { ravel_machine *m = mach(1); P("%d\n", ravel_machine_find_reg(m, NULL)); ravel_machine_free(m); }
CASE(null_find_class) { ravel_machine *m = mach(1); P("%d\n", ravel_machine_find_class(m, NULL)); ravel_machine_free(m); }
CASE(null_machine_nregs) { P("%u\n", ravel_machine_nregs(NULL)); }
CASE(null_set_clobbers) { ravel_machine *m = mach(2); P("%s\n", st(ravel_machine_set_clobbers(m, NULL, 2))); ravel_machine_free(m); }
CASE(null_func_new_machine) { ravel_func *f = ravel_func_new(NULL, "f"); P("func=%p ", (void *)f); uint32_t v = ravel_vreg_new(f, 0, 0); P("vreg=%u\n", v); ravel_func_free(f); }
CASE(null_func_new_name) { ravel_machine *m = mach(1); ravel_func *f = ravel_func_new(m, NULL); P("func=%p\n", (void *)f); ravel_func_free(f); ravel_machine_free(m); }
CASE(null_func_vreg_new) { P("%u\n", ravel_vreg_new(NULL, 0, 0)); }
CASE(null_func_block_begin) { P("%s\n", st(ravel_block_begin(NULL, 0))); }
CASE(null_func_finish) { P("%s\n", st(ravel_func_finish(NULL))); }
CASE(null_mnemonic) { ravel_machine *m = mach(1); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL));
                      P("%s\n", st(ravel_inst_begin(f, RAVEL_OP_OTHER, NULL))); ravel_func_free(f); ravel_machine_free(m); }
CASE(null_clobbers_list) { ravel_machine *m = mach(2); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL));
                      ravel_inst_begin(f, RAVEL_OP_OTHER, "foo"); P("%s\n", st(ravel_inst_clobbers(f, NULL, 2))); ravel_func_free(f); ravel_machine_free(m); }
CASE(null_stackmap_list) { ravel_machine *m = mach(2); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL));
                      ravel_inst_begin(f, RAVEL_OP_OTHER, "foo"); P("%s\n", st(ravel_inst_stackmap(f, NULL, 2))); ravel_func_free(f); ravel_machine_free(m); }
CASE(null_succ_args) { ravel_machine *m = mach(2); ravel_func *f = ravel_func_new(m, "f"); uint32_t b = ravel_block_new(f, NULL); ravel_block_begin(f, b);
                      ravel_inst_begin(f, RAVEL_OP_JUMP, NULL); P("%s\n", st(ravel_inst_succ(f, b, NULL, 2))); ravel_func_free(f); ravel_machine_free(m); }
CASE(null_check_alloc) { ravel_checker *ck = ravel_checker_new(); ravel_report *r = NULL; P("%s\n", st(ravel_check(ck, NULL, NULL, &r))); ravel_report_free(r); ravel_checker_free(ck); }
CASE(null_check_ck) { ravel_machine *m = mach(1); ravel_func *f = simple(m, 1); ravel_report *r = NULL; P("%s\n", st(ravel_check(NULL, f, NULL, &r))); ravel_report_free(r); ravel_func_free(f); ravel_machine_free(m); }
CASE(null_check_report) { ravel_machine *m = mach(1); ravel_func *f = simple(m, 1); ravel_checker *ck = ravel_checker_new(); P("%s\n", st(ravel_check(ck, f, NULL, NULL))); ravel_checker_free(ck); ravel_func_free(f); ravel_machine_free(m); }
CASE(null_check_if_enabled) { ravel_checker *ck = ravel_checker_new(); ravel_report *r = (ravel_report *)0x1; P("%s r=%p\n", st(ravel_check_if_enabled(ck, NULL, NULL, &r)), (void *)r); ravel_checker_free(ck); }
CASE(null_validate_func) { ravel_diags *d = ravel_diags_new(); P("%s\n", st(ravel_validate(NULL, 0, d))); ravel_diags_free(d); }
CASE(null_validate_diags) { ravel_machine *m = mach(1); ravel_func *f = ravel_func_new(m, "f"); P("%s\n", st(ravel_validate(f, 0, NULL))); ravel_func_free(f); ravel_machine_free(m); }
CASE(null_validate_diags_ok) { ravel_machine *m = mach(1); ravel_func *f = simple(m, 0); P("%s\n", st(ravel_validate(f, 0, NULL))); ravel_func_free(f); ravel_machine_free(m); }
CASE(null_parse_text) { ravel_diags *d = ravel_diags_new(); ravel_module *mod = ravel_module_parse(NULL, 0, "x", d); P("mod=%p ndiags=%zu\n", (void *)mod, ravel_diags_count(d)); ravel_diags_print(stdout, d); ravel_module_free(mod); ravel_diags_free(d); }
CASE(null_parse_text_len) { ravel_diags *d = ravel_diags_new(); ravel_module *mod = ravel_module_parse(NULL, 10, "x", d); P("mod=%p ndiags=%zu\n", (void *)mod, ravel_diags_count(d)); ravel_diags_print(stdout, d); ravel_module_free(mod); ravel_diags_free(d); }
CASE(null_parse_diags_filename) { const char *t = "machine\n class int r0\nend\nfunc f\nb0:\n ret\nend\n"; ravel_module *mod = ravel_module_parse(t, strlen(t), NULL, NULL); P("mod=%p\n", (void *)mod); ravel_module_free(mod); }
CASE(null_parse_diags_bad) { const char *t = "machine\n class int r0\nend\nfunc f\nb0:\n ret v\x01\nend\n"; ravel_module *mod = ravel_module_parse(t, strlen(t), NULL, NULL); P("mod=%p\n", (void *)mod); ravel_module_free(mod); }
CASE(null_allocate_name) { ravel_machine *m = mach(1); ravel_func *f = simple(m, 0); ravel_func *o = NULL; char *e = NULL; P("%s err=%s\n", st(ravel_allocate(NULL, f, 0, &o, &e)), e ? e : ""); free(e); ravel_func_free(f); ravel_machine_free(m); }
CASE(null_allocate_func) { ravel_func *o = NULL; char *e = NULL; P("%s err=%s\n", st(ravel_allocate("fast", NULL, 0, &o, &e)), e ? e : ""); free(e); }
CASE(null_allocate_out) { ravel_machine *m = mach(1); ravel_func *f = simple(m, 0); P("%s\n", st(ravel_allocate("fast", f, 0, NULL, NULL))); ravel_func_free(f); ravel_machine_free(m); }
CASE(null_report_queries) { P("count=%zu ", ravel_report_count(NULL)); P("status=%s ", st(ravel_report_status(NULL))); P("ndiags=%zu ", ravel_report_ndiags(NULL)); P("err=%p ", (void *)ravel_report_error(NULL, 0)); ravel_report_print(stdout, NULL); P("printed\n"); }
CASE(null_diags_queries) { P("count=%zu\n", ravel_diags_count(NULL)); ravel_diags_print(stdout, NULL); P("printed\n"); }
CASE(null_checker_opts) { ravel_checker_set_options(NULL, 1); P("ok\n"); }
CASE(null_print_func) { P("%s\n", st(ravel_print_func(stdout, NULL))); }
CASE(null_print_machine) { P("%s\n", st(ravel_print_machine(stdout, NULL))); }
CASE(null_module_queries) { P("nfuncs=%zu ", ravel_module_nfuncs(NULL)); P("mach=%p ", (void *)ravel_module_machine(NULL)); P("func=%p\n", (void *)ravel_module_func(NULL, 0)); }

/* ---- out of range / invalid ids ---- */
CASE(report_index_oob) { ravel_machine *m = mach(2); ravel_func *f = simple(m, 0); ravel_checker *ck = ravel_checker_new(); ravel_report *r = NULL;
                         int s = ravel_check(ck, f, NULL, &r); P("%s count=%zu ", st(s), ravel_report_count(r)); const ravel_check_error *e = ravel_report_error(r, 9999); P("err9999=%p ", (void *)e);
                         P("diag9999=%p\n", (void *)ravel_report_diag(r, 9999)); ravel_report_free(r); ravel_checker_free(ck); ravel_func_free(f); ravel_machine_free(m); }
CASE(module_func_oob) { const char *t = "machine\n class int r0\nend\nfunc f\nb0:\n ret\nend\n"; ravel_module *mod = ravel_module_parse(t, strlen(t), "x", NULL); P("func9=%p\n", (void *)ravel_module_func(mod, 9)); ravel_module_free(mod); }
CASE(vreg_bad_class) { ravel_machine *m = mach(1); ravel_func *f = ravel_func_new(m, "f"); P("cls5=%u cls-1=%u\n", ravel_vreg_new(f, 5, 0), ravel_vreg_new(f, -1, 0)); ravel_func_free(f); ravel_machine_free(m); }
CASE(def_bad_vreg) { ravel_machine *m = mach(1); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL)); ravel_inst_begin(f, RAVEL_OP_ARGS, NULL);
                     P("NONE=%s 7=%s\n", st(ravel_inst_def(f, RAVEL_NONE, 0, 0, 0, RAVEL_LOC_NONE)), st(ravel_inst_def(f, 7, 0, 0, 0, RAVEL_LOC_NONE))); ravel_func_free(f); ravel_machine_free(m); }
CASE(def_bad_constraint_pos) { ravel_machine *m = mach(1); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL)); uint32_t v = ravel_vreg_new(f, 0, 0);
                     ravel_inst_begin(f, RAVEL_OP_ARGS, NULL); P("c99=%s pos7=%s arg70000=%s\n", st(ravel_inst_def(f, v, (ravel_constraint)99, 0, 0, RAVEL_LOC_NONE)),
                     st(ravel_inst_def(f, v, 0, 0, (ravel_pos)7, RAVEL_LOC_NONE)), st(ravel_inst_def(f, v, RAVEL_C_FIXED, 70000, 0, RAVEL_LOC_NONE))); ravel_func_free(f); ravel_machine_free(m); }
CASE(def_bad_loc) { ravel_machine *m = mach(1); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL)); uint32_t v = ravel_vreg_new(f, 0, 0);
                     ravel_inst_begin(f, RAVEL_OP_ARGS, NULL); P("reg5000=%s slotmax+1=%s slotmax=%s\n", st(ravel_inst_def(f, v, 0, 0, 0, 5000)), st(ravel_inst_def(f, v, 0, 0, 0, ravel_slot(RAVEL_MAX_SLOT + 1))),
                     st(ravel_inst_def(f, v, 0, 0, 0, ravel_slot(RAVEL_MAX_SLOT)))); ravel_func_free(f); ravel_machine_free(m); }
CASE(bad_opcode) { ravel_machine *m = mach(1); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL));
                   P("COUNT=%s -1=%s spill=%s\n", st(ravel_inst_begin(f, RAVEL_OP_COUNT_, NULL)), st(ravel_inst_begin(f, (ravel_opcode)-1, NULL)), st(ravel_inst_begin(f, RAVEL_OP_SPILL, NULL))); ravel_func_free(f); ravel_machine_free(m); }
CASE(edit_bad) { ravel_machine *m = mach(2); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL));
                 P("kind=%s none=%s reg99=%s slot2slot=%s same=%s\n", st(ravel_edit(f, RAVEL_OP_ADD, 0, 1)), st(ravel_edit(f, RAVEL_OP_MOVE, RAVEL_LOC_NONE, 0)), st(ravel_edit(f, RAVEL_OP_MOVE, 99, 0)),
                   st(ravel_edit(f, RAVEL_OP_MOVE, ravel_slot(0), ravel_slot(1))), st(ravel_edit(f, RAVEL_OP_MOVE, 0, 0))); ravel_func_free(f); ravel_machine_free(m); }
CASE(set_loc_bad) { ravel_machine *m = mach(1); ravel_func *f = simple(m, 0); P("inst99=%s op99=%s loc99=%s ok=%s\n", st(ravel_set_loc(f, 99, 0, 0)), st(ravel_set_loc(f, 0, 99, 0)), st(ravel_set_loc(f, 0, 0, 99)), st(ravel_set_loc(f, 0, 0, 0)));
                    ravel_func_free(f); ravel_machine_free(m); }
CASE(block_bad_ids) { ravel_machine *m = mach(1); ravel_func *f = ravel_func_new(m, "f"); P("begin9=%s param=%s\n", st(ravel_block_begin(f, 9)), st(ravel_block_add_param(f, 9, 0))); ravel_func_free(f); ravel_machine_free(m); }
CASE(machine_bad) { ravel_machine *m = mach(1); uint32_t cl[] = {0, 5000}; P("reg_cls9=%s reg_dup=%s class_dup=%s clob_bad=%s regname9=%p class_empty=%s\n", st(ravel_machine_add_reg(m, "x", 9, 0)), st(ravel_machine_add_reg(m, "r0", 0, 0)),
                    st(ravel_machine_add_class(m, "int")), st(ravel_machine_set_clobbers(m, cl, 2)), (void *)ravel_machine_reg_name(m, 9), st(ravel_machine_add_class(m, ""))); ravel_machine_free(m); }
CASE(machine_limits) { ravel_machine *m = ravel_machine_new(); int c = 0, last = 0; for (int i = 0; i < 100; i++) { char nm[16]; snprintf(nm, sizeof nm, "c%d", i); last = ravel_machine_add_class(m, nm); if (last >= 0) c++; }
                       int r = 0, lr = 0; for (int i = 0; i < 1100; i++) { char nm[16]; snprintf(nm, sizeof nm, "x%d", i); lr = ravel_machine_add_reg(m, nm, 0, 0); if (lr >= 0) r++; }
                       P("classes=%d last=%s regs=%d last=%s\n", c, st(last), r, st(lr)); ravel_machine_free(m); }
CASE(machine_names_like_vreg_slot) { ravel_machine *m = mach(0); P("v3=%d s3=%d sp_ace=%d\n", ravel_machine_add_reg(m, "v3", 0, 0), ravel_machine_add_reg(m, "s3", 0, 0), ravel_machine_add_reg(m, "a b", 0, 0)); ravel_print_machine(stdout, m); ravel_machine_free(m); }

/* ---- out-of-order calls ---- */
CASE(def_before_block_begin) { ravel_machine *m = mach(1); ravel_func *f = ravel_func_new(m, "f"); uint32_t v = ravel_vreg_new(f, 0, 0);
                               P("def=%s begin=%s\n", st(ravel_inst_def(f, v, 0, 0, 0, RAVEL_LOC_NONE)), st(ravel_inst_begin(f, RAVEL_OP_ARGS, NULL))); ravel_func_free(f); ravel_machine_free(m); }
CASE(use_before_def_order) { ravel_machine *m = mach(1); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL)); uint32_t v = ravel_vreg_new(f, 0, 0), w = ravel_vreg_new(f, 0, 0);
                             ravel_inst_begin(f, RAVEL_OP_COPY, NULL); ravel_inst_use(f, v, 0, 0, 0, RAVEL_LOC_NONE); P("def_after_use=%s\n", st(ravel_inst_def(f, w, 0, 0, 0, RAVEL_LOC_NONE))); ravel_func_free(f); ravel_machine_free(m); }
CASE(finish_twice) { ravel_machine *m = mach(1); ravel_func *f = simple(m, 1); P("second=%s ", st(ravel_func_finish(f))); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(block_begin_twice) { ravel_machine *m = mach(1); ravel_func *f = ravel_func_new(m, "f"); uint32_t b = ravel_block_new(f, NULL); P("%s %s\n", st(ravel_block_begin(f, b)), st(ravel_block_begin(f, b))); ravel_func_free(f); ravel_machine_free(m); }
CASE(inst_end_without_begin) { ravel_machine *m = mach(1); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL)); P("%s\n", st(ravel_inst_end(f))); ravel_func_free(f); ravel_machine_free(m); }
CASE(begin_while_open) { ravel_machine *m = mach(1); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL)); ravel_inst_begin(f, RAVEL_OP_ARGS, NULL);
                         P("inst=%s edit=%s block=%s\n", st(ravel_inst_begin(f, RAVEL_OP_RET, NULL)), st(ravel_edit(f, RAVEL_OP_MOVE, 0, 0)), st(ravel_block_begin(f, ravel_block_new(f, NULL)))); ravel_func_free(f); ravel_machine_free(m); }
CASE(succ_on_nonterm) { ravel_machine *m = mach(1); ravel_func *f = ravel_func_new(m, "f"); uint32_t b = ravel_block_new(f, NULL); ravel_block_begin(f, b); ravel_inst_begin(f, RAVEL_OP_ADD, NULL);
                        P("succ=%s ", st(ravel_inst_succ(f, b, NULL, 0))); ravel_inst_end(f); ravel_inst_begin(f, RAVEL_OP_RET, NULL); uint32_t v = ravel_vreg_new(f, 0, 0); P("def_on_ret=%s clob_on_ret=%s\n", st(ravel_inst_def(f, v, 0, 0, 0, RAVEL_LOC_NONE)), st(ravel_inst_safepoint(f)));
                        ravel_func_free(f); ravel_machine_free(m); }
CASE(no_finish_reordered_layout) {
    /* blocks created b0 b1, started b1 first (entry) then b0; no ravel_func_finish */
    ravel_machine *m = mach(2); ravel_func *f = ravel_func_new(m, "f");
    uint32_t x = ravel_block_new(f, "x"), y = ravel_block_new(f, "y"), z = ravel_block_new(f, "z");
    uint32_t v = ravel_vreg_new(f, 0, 0);
    ravel_block_begin(f, z); ravel_inst_begin(f, RAVEL_OP_ARGS, NULL); ravel_inst_def(f, v, RAVEL_C_FIXED, 0, 0, 0); ravel_inst_end(f);
    ravel_inst_begin(f, RAVEL_OP_JUMP, NULL); ravel_inst_succ(f, x, NULL, 0); ravel_inst_end(f);
    ravel_block_begin(f, y); ravel_inst_begin(f, RAVEL_OP_RET, NULL); ravel_inst_use(f, v, RAVEL_C_FIXED, 0, 0, 0); ravel_inst_end(f);
    ravel_block_begin(f, x); ravel_inst_begin(f, RAVEL_OP_JUMP, NULL); ravel_inst_succ(f, y, NULL, 0); ravel_inst_end(f);
    pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(no_finish_open_inst) { ravel_machine *m = mach(1); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL)); uint32_t v = ravel_vreg_new(f, 0, 0);
                            ravel_inst_begin(f, RAVEL_OP_ARGS, NULL); ravel_inst_def(f, v, RAVEL_C_FIXED, 0, 0, 0); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(build_after_finish) { ravel_machine *m = mach(1); ravel_func *f = simple(m, 1); uint32_t b = ravel_block_new(f, "late"); P("begin=%s ", st(ravel_block_begin(f, b)));
                           ravel_inst_begin(f, RAVEL_OP_RET, NULL); ravel_inst_end(f); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(block_never_started_referenced) { ravel_machine *m = mach(1); ravel_func *f = ravel_func_new(m, "f"); uint32_t b0 = ravel_block_new(f, NULL), b1 = ravel_block_new(f, NULL);
                           ravel_block_begin(f, b0); ravel_inst_begin(f, RAVEL_OP_JUMP, NULL); ravel_inst_succ(f, b1, NULL, 0); ravel_inst_end(f); ravel_func_finish(f); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(func_no_blocks) { ravel_machine *m = mach(1); ravel_func *f = ravel_func_new(m, "f"); ravel_func_finish(f); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(func_empty_block) { ravel_machine *m = mach(1); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL)); ravel_func_finish(f); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(machine_no_classes) { ravel_machine *m = ravel_machine_new(); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL)); ravel_inst_begin(f, RAVEL_OP_RET, NULL); ravel_inst_end(f);
                           ravel_func_finish(f); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(machine_zero_regs) { ravel_machine *m = mach(0); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL)); uint32_t v = ravel_vreg_new(f, 0, 0);
                          ravel_inst_begin(f, RAVEL_OP_CONST, NULL); ravel_inst_def(f, v, 0, 0, 0, RAVEL_LOC_NONE); ravel_inst_imm(f, 1); ravel_inst_end(f);
                          ravel_inst_begin(f, RAVEL_OP_RET, NULL); ravel_inst_use(f, v, 0, 0, 0, RAVEL_LOC_NONE); ravel_inst_end(f); ravel_func_finish(f); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(machine_zero_regs_allocated) { ravel_machine *m = mach(0); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL)); uint32_t v = ravel_vreg_new(f, 0, 0);
                          ravel_inst_begin(f, RAVEL_OP_CONST, NULL); ravel_inst_def(f, v, RAVEL_C_STACK, 0, 0, ravel_slot(0)); ravel_inst_imm(f, 1); ravel_inst_end(f);
                          ravel_inst_begin(f, RAVEL_OP_RET, NULL); ravel_inst_use(f, v, RAVEL_C_ANY, 0, 0, ravel_slot(0)); ravel_inst_end(f); ravel_func_finish(f); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(fixed_bad_register_arg) { ravel_machine *m = mach(2); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL)); uint32_t v = ravel_vreg_new(f, 0, 0);
                          ravel_inst_begin(f, RAVEL_OP_ARGS, NULL); ravel_inst_def(f, v, RAVEL_C_FIXED, 9999, 0, RAVEL_LOC_NONE); ravel_inst_end(f);
                          ravel_inst_begin(f, RAVEL_OP_RET, NULL); ravel_inst_use(f, v, RAVEL_C_FIXED, 60000, 0, RAVEL_LOC_NONE); ravel_inst_end(f); ravel_func_finish(f); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(fixed_bad_register_arg_alloc) { ravel_machine *m = mach(2); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL)); uint32_t v = ravel_vreg_new(f, 0, 0);
                          ravel_inst_begin(f, RAVEL_OP_ARGS, NULL); ravel_inst_def(f, v, RAVEL_C_FIXED, 9999, 0, 0); ravel_inst_end(f);
                          ravel_inst_begin(f, RAVEL_OP_RET, NULL); ravel_inst_use(f, v, RAVEL_C_FIXED, 60000, 0, 0); ravel_inst_end(f); ravel_func_finish(f); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(reuse_bad_index) { ravel_machine *m = mach(2); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL)); uint32_t v = ravel_vreg_new(f, 0, 0), w = ravel_vreg_new(f, 0, 0);
                          ravel_inst_begin(f, RAVEL_OP_ARGS, NULL); ravel_inst_def(f, v, 0, 0, 0, RAVEL_LOC_NONE); ravel_inst_end(f);
                          ravel_inst_begin(f, RAVEL_OP_ADD, NULL); ravel_inst_def(f, w, RAVEL_C_REUSE, 500, 0, RAVEL_LOC_NONE); ravel_inst_use(f, v, 0, 0, 0, RAVEL_LOC_NONE); ravel_inst_end(f);
                          ravel_inst_begin(f, RAVEL_OP_RET, NULL); ravel_inst_use(f, w, 0, 0, 0, RAVEL_LOC_NONE); ravel_inst_end(f); ravel_func_finish(f); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(reuse_on_use) { ravel_machine *m = mach(2); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL)); uint32_t v = ravel_vreg_new(f, 0, 0);
                          ravel_inst_begin(f, RAVEL_OP_ARGS, NULL); ravel_inst_def(f, v, 0, 0, 0, RAVEL_LOC_NONE); ravel_inst_end(f);
                          ravel_inst_begin(f, RAVEL_OP_RET, NULL); ravel_inst_use(f, v, RAVEL_C_REUSE, 0, 0, RAVEL_LOC_NONE); ravel_inst_end(f); ravel_func_finish(f); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(early_use_late_def) { ravel_machine *m = mach(2); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL)); uint32_t v = ravel_vreg_new(f, 0, 0), w = ravel_vreg_new(f, 0, 0);
                          ravel_inst_begin(f, RAVEL_OP_ARGS, NULL); ravel_inst_def(f, v, 0, 0, RAVEL_POS_LATE, RAVEL_LOC_NONE); ravel_inst_end(f);
                          ravel_inst_begin(f, RAVEL_OP_COPY, NULL); ravel_inst_def(f, w, 0, 0, 0, RAVEL_LOC_NONE); ravel_inst_use(f, v, 0, 0, RAVEL_POS_EARLY, RAVEL_LOC_NONE); ravel_inst_end(f);
                          ravel_inst_begin(f, RAVEL_OP_RET, NULL); ravel_inst_use(f, w, 0, 0, 0, RAVEL_LOC_NONE); ravel_inst_end(f); ravel_func_finish(f); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(vreg_def_twice) { ravel_machine *m = mach(2); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL)); uint32_t v = ravel_vreg_new(f, 0, 0);
                          for (int k = 0; k < 2; k++) { ravel_inst_begin(f, RAVEL_OP_CONST, NULL); ravel_inst_def(f, v, 0, 0, 0, 0); ravel_inst_imm(f, k); ravel_inst_end(f); }
                          ravel_inst_begin(f, RAVEL_OP_RET, NULL); ravel_inst_use(f, v, 0, 0, 0, 0); ravel_inst_end(f); ravel_func_finish(f); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(param_class_mismatch) { ravel_machine *m = ravel_machine_new(); int a = ravel_machine_add_class(m, "a"), b = ravel_machine_add_class(m, "b"); ravel_machine_add_reg(m, "x0", a, 0); ravel_machine_add_reg(m, "y0", b, 0);
                          ravel_func *f = ravel_func_new(m, "f"); uint32_t b0 = ravel_block_new(f, NULL), b1 = ravel_block_new(f, NULL); uint32_t v = ravel_vreg_new(f, a, 0), p = ravel_vreg_new(f, b, 1);
                          ravel_block_begin(f, b0); ravel_inst_begin(f, RAVEL_OP_ARGS, NULL); ravel_inst_def(f, v, 0, 0, 0, 0); ravel_inst_end(f);
                          ravel_inst_begin(f, RAVEL_OP_JUMP, NULL); ravel_inst_succ(f, b1, &v, 1); ravel_inst_end(f); ravel_block_add_param(f, b1, p); ravel_block_begin(f, b1);
                          ravel_inst_begin(f, RAVEL_OP_RET, NULL); ravel_inst_use(f, p, 0, 0, 0, 1); ravel_inst_end(f); ravel_func_finish(f); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(loc_wrong_class) { ravel_machine *m = ravel_machine_new(); int a = ravel_machine_add_class(m, "a"), b = ravel_machine_add_class(m, "b"); ravel_machine_add_reg(m, "x0", a, 0); ravel_machine_add_reg(m, "y0", b, 0);
                          ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL)); uint32_t v = ravel_vreg_new(f, a, 0);
                          ravel_inst_begin(f, RAVEL_OP_ARGS, NULL); ravel_inst_def(f, v, 0, 0, 0, 1); ravel_inst_end(f);
                          ravel_inst_begin(f, RAVEL_OP_RET, NULL); ravel_inst_use(f, v, 0, 0, 0, 1); ravel_inst_end(f); ravel_func_finish(f); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(succ_count_wrong) { ravel_machine *m = mach(2); ravel_func *f = ravel_func_new(m, "f"); uint32_t b0 = ravel_block_new(f, NULL), b1 = ravel_block_new(f, NULL), b2 = ravel_block_new(f, NULL);
                          ravel_block_begin(f, b0); ravel_inst_begin(f, RAVEL_OP_JUMP, NULL); ravel_inst_succ(f, b1, NULL, 0); ravel_inst_succ(f, b2, NULL, 0); ravel_inst_end(f);
                          ravel_block_begin(f, b1); ravel_inst_begin(f, RAVEL_OP_BR, NULL); ravel_inst_succ(f, b2, NULL, 0); ravel_inst_end(f);
                          ravel_block_begin(f, b2); ravel_inst_begin(f, RAVEL_OP_RET, NULL); ravel_inst_end(f); ravel_func_finish(f); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(br_no_succ) { ravel_machine *m = mach(2); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL)); ravel_inst_begin(f, RAVEL_OP_BR, NULL); ravel_inst_end(f);
                   ravel_func_finish(f); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(succ_args_mismatch) { ravel_machine *m = mach(2); ravel_func *f = ravel_func_new(m, "f"); uint32_t b0 = ravel_block_new(f, NULL), b1 = ravel_block_new(f, NULL); uint32_t v = ravel_vreg_new(f, 0, 0);
                   ravel_block_begin(f, b0); ravel_inst_begin(f, RAVEL_OP_ARGS, NULL); ravel_inst_def(f, v, 0, 0, 0, 0); ravel_inst_end(f);
                   uint32_t args[3] = {v, v, v}; ravel_inst_begin(f, RAVEL_OP_JUMP, NULL); ravel_inst_succ(f, b1, args, 3); ravel_inst_end(f);
                   ravel_block_begin(f, b1); ravel_inst_begin(f, RAVEL_OP_RET, NULL); ravel_inst_use(f, v, 0, 0, 0, 0); ravel_inst_end(f); ravel_func_finish(f); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(orig_other_machine) { ravel_machine *m1 = mach(1), *m2 = mach(8); ravel_func *a = simple(m1, 1), *o = simple(m2, 0); pipeline(a, o); ravel_func_free(a); ravel_func_free(o); ravel_machine_free(m1); ravel_machine_free(m2); }
CASE(orig_is_allocated) { ravel_machine *m = mach(2); ravel_func *a = simple(m, 1); pipeline(a, a); ravel_func_free(a); ravel_machine_free(m); }
CASE(orig_different_shape) { ravel_machine *m = mach(2); ravel_func *a = simple(m, 1); ravel_func *o = ravel_func_new(m, "g"); ravel_block_begin(o, ravel_block_new(o, NULL)); ravel_block_begin(o, ravel_block_new(o, NULL));
                           ravel_func_finish(o); pipeline(a, o); ravel_func_free(a); ravel_func_free(o); ravel_machine_free(m); }
CASE(allocate_allocated) { ravel_machine *m = mach(2); ravel_func *a = simple(m, 1); pipeline(a, NULL); ravel_func_free(a); ravel_machine_free(m); }
CASE(machine_changed_after_build) { ravel_machine *m = mach(2); ravel_func *a = simple(m, 1); ravel_machine_add_class(m, "late"); ravel_machine_add_reg(m, "late0", 1, 0); uint32_t all[] = {0, 1, 2}; ravel_machine_set_clobbers(m, all, 3);
                                    pipeline(a, NULL); ravel_func_free(a); ravel_machine_free(m); }
CASE(checker_reuse_after_einval) { ravel_machine *m = mach(2); ravel_func *bad = ravel_func_new(m, "bad"); ravel_func_finish(bad); ravel_func *good = simple(m, 1); ravel_checker *ck = ravel_checker_new();
                                   ravel_report *r = NULL; int s1 = ravel_check(ck, bad, NULL, &r); ravel_report_free(r); r = NULL; int s2 = ravel_check(ck, good, NULL, &r); ravel_report_free(r);
                                   ravel_checker_set_options(ck, 0xffffffffu); r = NULL; int s3 = ravel_check(ck, good, good, &r); P("bad=%s good=%s allopts=%s\n", st(s1), st(s2), st(s3)); ravel_report_free(r);
                                   ravel_checker_free(ck); ravel_func_free(bad); ravel_func_free(good); ravel_machine_free(m); }
CASE(stackmap_unused_slot_huge) { ravel_machine *m = mach(2); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL)); uint32_t v = ravel_vreg_new(f, 0, 1);
                          ravel_inst_begin(f, RAVEL_OP_ARGS, NULL); ravel_inst_def(f, v, 0, 0, 0, 0); ravel_inst_end(f);
                          ravel_inst_begin(f, RAVEL_OP_OTHER, "poll"); ravel_inst_safepoint(f); uint32_t sl[] = {RAVEL_MAX_SLOT, 0, RAVEL_MAX_SLOT}; ravel_inst_stackmap(f, sl, 3); ravel_inst_end(f);
                          ravel_inst_begin(f, RAVEL_OP_RET, NULL); ravel_inst_use(f, v, 0, 0, 0, 0); ravel_inst_end(f); ravel_func_finish(f); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
CASE(imm_on_terminator_and_args) { ravel_machine *m = mach(2); ravel_func *f = ravel_func_new(m, "f"); uint32_t b0 = ravel_block_new(f, NULL), b1 = ravel_block_new(f, NULL);
                          ravel_block_begin(f, b0); ravel_inst_begin(f, RAVEL_OP_JUMP, NULL); P("imm_on_jump=%s ", st(ravel_inst_imm(f, 5))); ravel_inst_succ(f, b1, NULL, 0); ravel_inst_end(f);
                          ravel_block_begin(f, b1); ravel_inst_begin(f, RAVEL_OP_RET, NULL); ravel_inst_end(f); ravel_func_finish(f); pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
/* ---- docs/format.md section 14: alias, undef, remat ---- */
CASE(alias_bad) { ravel_machine *m = mach(3); P("null=%s ", st(ravel_machine_alias(NULL, 0, 1))); P("oob=%s ", st(ravel_machine_alias(m, 0, 7))); P("self=%s ", st(ravel_machine_alias(m, 1, 1)));
                  P("ok=%s ", st(ravel_machine_alias(m, 0, 1))); P("twice=%s ", st(ravel_machine_alias(m, 0, 1))); P("cycle=%s ", st(ravel_machine_alias(m, 1, 0)));
                  P("ok=%s ", st(ravel_machine_alias(m, 1, 2))); P("cycle3=%s ", st(ravel_machine_alias(m, 2, 0)));
                  P("contains99=%d overlap_null=%d noverlap99=%u\n", ravel_machine_contains(m, 0, 99), ravel_machine_overlap(NULL, 0, 1), ravel_machine_noverlapping(m, 99));
                  ravel_print_machine(stdout, m); ravel_machine_free(m); }
CASE(remat_bad) { ravel_machine *m = mach(2); ravel_func *f = ravel_func_new(m, "f"); uint32_t cl[] = {0, 9}; P("noblock=%s ", st(ravel_remat(f, 0, 1, NULL, 0))); ravel_block_begin(f, ravel_block_new(f, NULL));
                  P("null=%s ", st(ravel_remat(NULL, 0, 1, NULL, 0))); P("none=%s ", st(ravel_remat(f, RAVEL_LOC_NONE, 1, NULL, 0))); P("reg99=%s ", st(ravel_remat(f, 99, 1, NULL, 0)));
                  P("slotbig=%s ", st(ravel_remat(f, ravel_slot(RAVEL_MAX_SLOT + 1), 1, NULL, 0))); P("nulllist=%s ", st(ravel_remat(f, 0, 1, NULL, 3))); P("badclob=%s ", st(ravel_remat(f, 0, 1, cl, 2)));
                  P("asedit=%s ", st(ravel_edit(f, RAVEL_OP_REMAT, 0, 1))); P("asop=%s ", st(ravel_inst_begin(f, RAVEL_OP_REMAT, NULL))); P("const_oob=%s\n", st(ravel_remat_const(f, 0, NULL)));
                  ravel_func_free(f); ravel_machine_free(m); }
/* an undef with two defs and a use, a remat; on an aliased machine: every stage refuses, none crashes */
CASE(undef_remat_alias_pipeline) { ravel_machine *m = mach(3); ravel_machine_alias(m, 2, 1); ravel_func *f = ravel_func_new(m, "f"); ravel_block_begin(f, ravel_block_new(f, NULL));
                          uint32_t v = ravel_vreg_new(f, 0, 0), w = ravel_vreg_new(f, 0, 0), x = ravel_vreg_new(f, 0, 0);
                          ravel_inst_begin(f, RAVEL_OP_ARGS, NULL); ravel_inst_def(f, v, 0, 0, 0, 0); ravel_inst_end(f);
                          ravel_inst_begin(f, RAVEL_OP_UNDEF, NULL); ravel_inst_def(f, w, 0, 0, 0, 1); ravel_inst_def(f, x, 0, 0, 0, 2); ravel_inst_use(f, v, 0, 0, 0, 0); ravel_inst_end(f);
                          ravel_remat(f, 1, -1, NULL, 0); ravel_inst_begin(f, RAVEL_OP_RET, NULL); ravel_inst_use(f, v, 0, 0, 0, 0); ravel_inst_end(f); ravel_func_finish(f);
                          pipeline(f, NULL); ravel_func_free(f); ravel_machine_free(m); }
struct { const char *name; casefn fn; } cases[] = {
#define X(n) {#n, n},
X(null_frees) X(null_machine_add_class) X(null_name_add_class) X(null_name_add_reg) X(null_find_reg) X(null_find_class) X(null_machine_nregs) X(null_set_clobbers)
X(null_func_new_machine) X(null_func_new_name) X(null_func_vreg_new) X(null_func_block_begin) X(null_func_finish) X(null_mnemonic) X(null_clobbers_list) X(null_stackmap_list)
X(null_succ_args) X(null_check_alloc) X(null_check_ck) X(null_check_report) X(null_check_if_enabled) X(null_validate_func) X(null_validate_diags) X(null_validate_diags_ok)
X(null_parse_text) X(null_parse_text_len) X(null_parse_diags_filename) X(null_parse_diags_bad) X(null_allocate_name) X(null_allocate_func) X(null_allocate_out) X(null_report_queries)
X(null_diags_queries) X(null_checker_opts) X(null_print_func) X(null_print_machine) X(null_module_queries)
X(report_index_oob) X(module_func_oob) X(vreg_bad_class) X(def_bad_vreg) X(def_bad_constraint_pos) X(def_bad_loc) X(bad_opcode) X(edit_bad) X(set_loc_bad) X(block_bad_ids) X(machine_bad)
X(machine_limits) X(machine_names_like_vreg_slot)
X(def_before_block_begin) X(use_before_def_order) X(finish_twice) X(block_begin_twice) X(inst_end_without_begin) X(begin_while_open) X(succ_on_nonterm) X(no_finish_reordered_layout)
X(no_finish_open_inst) X(build_after_finish) X(block_never_started_referenced) X(func_no_blocks) X(func_empty_block) X(machine_no_classes) X(machine_zero_regs) X(machine_zero_regs_allocated)
X(fixed_bad_register_arg) X(fixed_bad_register_arg_alloc) X(reuse_bad_index) X(reuse_on_use) X(early_use_late_def) X(vreg_def_twice) X(param_class_mismatch) X(loc_wrong_class) X(succ_count_wrong)
X(br_no_succ) X(succ_args_mismatch) X(orig_other_machine) X(orig_is_allocated) X(orig_different_shape) X(allocate_allocated) X(machine_changed_after_build) X(checker_reuse_after_einval)
X(stackmap_unused_slot_huge) X(imm_on_terminator_and_args) X(alias_bad) X(remat_bad) X(undef_remat_alias_pipeline)
};

int main(int argc, char **argv)
{
    size_t n = sizeof cases / sizeof *cases;
    int nfail = 0;
    for (size_t i = 0; i < n; i++) {
        if (argc > 1 && strcmp(argv[1], cases[i].name)) continue;
        char path[256];
        snprintf(path, sizeof path, "capi_%s.err", cases[i].name);
        fflush(stdout);
        pid_t p = fork();
        if (p == 0) {
            int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            dup2(fd, 2);
            close(fd);
            printf("CASE %-34s ", cases[i].name);
            fflush(stdout);
            cases[i].fn();
            fflush(stdout);
            _exit(0);
        }
        int ws;
        waitpid(p, &ws, 0);
        FILE *e = fopen(path, "r");
        char line[400] = "";
        int san = 0, any = 0;
        char first[400] = "";
        while (e && fgets(line, sizeof line, e)) {
            any = 1;
            if (strstr(line, "Sanitizer") || strstr(line, "runtime error")) { if (!san) snprintf(first, sizeof first, "%s", line); san = 1; }
        }
        if (e) fclose(e);
        if (WIFSIGNALED(ws) || san || WEXITSTATUS(ws)) nfail++;
        if (WIFSIGNALED(ws)) printf("\n    -> CRASH signal %d %s", WTERMSIG(ws), first);
        else if (san) printf("\n    -> SANITIZER (exit %d): %s", WEXITSTATUS(ws), first);
        else if (WEXITSTATUS(ws)) printf("\n    -> exit %d\n", WEXITSTATUS(ws));
        else if (any) printf("    (library wrote to stderr: see %s)\n", path);
        fflush(stdout);
        remove(path);
    }
    printf("%d of %zu cases failed\n", nfail, n);
    return nfail != 0;
}
