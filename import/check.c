/*
 * check.c - what refuses a function before anything is mapped
 * (docs/import-mapping.md §4), and the frame-pointer decision of R2.
 *
 * Requires: the function's pre form, and its dumps and post.mir form when
 * llc produced them. Guarantees: after imp_check without a failure, the
 * function has no inline assembly, statepoint, EH pad or funclet, every
 * register class and every physical register it names is in the model
 * (§5.1, §5.2), every regmask is csr_64 and lists exactly what §5.4 says, it
 * has fewer than 1000 frame objects and pool entries, and x->fp says
 * whether rbp is reserved.
 */
#include "import/imp.h"

static const char *const refused_opcodes[][2] = {
    {"INLINEASM", "inline-asm"}, {"INLINEASM_BR", "inline-asm"}, {"STATEPOINT", "statepoint"},
    {"STACKMAP", "statepoint"},  {"PATCHPOINT", "statepoint"},   {NULL, NULL}};

static bool check_class(imp *x, const char *name, size_t n)
{
    x86_class c = x86_class_find(name, n);
    if (c.rc >= 0) return true;
    char why[96];
    if (c.refuse) snprintf(why, sizeof why, "%s", c.refuse);
    else snprintf(why, sizeof why, "class:%.*s", (int)(n > 60 ? 60 : n), name);
    imp_refuse(x, why, "register class %.*s is outside the model (docs/import-mapping.md §5.2)", (int)n, name);
    return false;
}

static bool check_reg(imp *x, const mir_reader *r, const mir_op *o)
{
    if (o->kind != MO_REG || (o->preg != PR_REFUSE && o->preg != PR_UNKNOWN)) return true;
    const char *s = r->t.src + o->name;
    int id;
    const char *why = NULL;
    char reason[96];
    if (x86_phys_find(s, o->nlen, &id, &why) == XP_REFUSE && why) snprintf(reason, sizeof reason, "%s", why);
    else snprintf(reason, sizeof reason, "register:%.*s", (int)(o->nlen > 60 ? 60 : o->nlen), s);
    imp_refuse(x, reason, "register $%.*s is outside the model (docs/import-mapping.md §5.1)", (int)o->nlen, s);
    return false;
}

static bool check_regmask(imp *x, const mir_reader *r, const mir_op *o)
{
    if (o->kind != MO_REGMASK || o->nlen == 0) return true;
    const char *s = r->t.src + o->name;
    if (o->nlen == 6 && memcmp(s, "csr_64", 6) == 0) return true;
    char reason[96];
    snprintf(reason, sizeof reason, "regmask:%.*s", (int)(o->nlen > 60 ? 60 : o->nlen), s);
    imp_refuse(x, reason, "regmask %.*s is not csr_64 (R19)", (int)o->nlen, s);
    return false;
}

/* docs/import-mapping.md §3, obligation 10: a dump's <regmask $a $b ...>
 * lists what csr_64 preserves. */
static void check_mask_list(imp *x, const mir_reader *r, const mir_op *o)
{
    const char *s = r->t.src + o->pos;
    if (o->len < 9 || memcmp(s, "<regmask", 8) != 0) return;
    if (x->mask.ok && x->mask.len == o->len && memcmp(x->mask.ok, s, o->len) == 0) return; /* as the last call's */
    bool seen[X86_NREGS] = {false};
    for (uint32_t i = 8; i < o->len; i++) {
        if (s[i] != '$') continue;
        uint32_t e = i + 1;
        while (e < o->len && s[e] != ' ' && s[e] != '>') e++;
        int id;
        const char *why;
        if (x86_phys_find(s + i + 1, e - i - 1, &id, &why) == XP_MACHINE) seen[id] = true;
        i = e - 1;
    }
    for (unsigned k = 0; k < X86_NREGS; k++) {
        if (!x86_reg_at(k) || seen[k] == x86_csr64_preserves(k) || x86_reg_at(k)->row == 7) continue;
        if (x86_reg_at(k)->kind == XK_GPR && x86_reg_at(k)->row == 7) continue;
        imp_error(x, "R19", r, o->pos, "the regmask %s %s, which csr_64 (docs/import-mapping.md §5.4) %s", seen[k] ? "preserves" : "does not preserve",
                  x86_reg_at(k)->name, x86_csr64_preserves(k) ? "preserves" : "clobbers");
        return;
    }
    x->mask.ok = s, x->mask.len = o->len;
}

static void check_insts(imp *x, const mir_reader *r, const mir_func *f, bool dump)
{
    for (uint32_t i = 0; i < f->insts.len && !imp_failed(x); i++) {
        const mir_inst *in = &f->insts.data[i];
        const char *opc = mir_opc(r, in);
        for (size_t k = 0; refused_opcodes[k][0]; k++)
            if (strcmp(opc, refused_opcodes[k][0]) == 0) imp_refuse(x, refused_opcodes[k][1], "%s (docs/import-mapping.md §4)", opc);
        for (uint32_t k = 0; k < in->nops && !imp_failed(x); k++) {
            const mir_op *o = &mir_ops(f, in)[k];
            if (!check_reg(x, r, o) || !check_regmask(x, r, o)) break;
            if (o->kind == MO_REG && o->cls != RVI_NONE) {
                const char *c = rv_sym_str(r->syms, o->cls);
                if (!check_class(x, c, strlen(c))) break;
            }
            if (dump && o->kind == MO_REGMASK) check_mask_list(x, r, o);
        }
    }
}

static void check_blocks(imp *x, const mir_func *f)
{
    for (uint32_t b = 0; b < f->blocks.len; b++)
        if (f->blocks.data[b].ehpad) imp_refuse(x, "eh", "bb.%d is an EH pad", f->blocks.data[b].num);
    if (f->fflags & FF_FUNCLETS) imp_refuse(x, "eh", "the function has EH funclets");
    for (uint32_t i = 0; i < f->liveins.len; i++)
        if (f->liveins.data[i].preg == PR_REFUSE || f->liveins.data[i].preg == PR_UNKNOWN) {
            mir_op o;
            memset(&o, 0, sizeof o);
            o.kind = MO_REG;
            o.preg = f->liveins.data[i].preg;
            o.name = f->liveins.data[i].name;
            o.nlen = f->liveins.data[i].nlen;
            check_reg(x, x->rp, &o);
        }
}

static void check_classes(imp *x)
{
    const mir_func *f = x->pre;
    for (uint32_t v = 0; v < f->vclass.len && !imp_failed(x); v++) {
        if (f->vclass.data[v] == RVI_NONE) continue;
        const char *c = rv_sym_str(x->rp->syms, f->vclass.data[v]);
        check_class(x, c, strlen(c));
    }
}

static void check_slots(imp *x)
{
    const mir_func *f = x->post ? x->post : x->pre;
    if (f->stack.len + f->fixed.len >= RVI_MAX_SLOTS || f->consts.len / 2 >= RVI_MAX_SLOTS || x->pre->stack.len + x->pre->fixed.len >= RVI_MAX_SLOTS)
        imp_refuse(x, "slots", "%u frame objects and %u pool entries: 1000 or more (R7)", f->stack.len + f->fixed.len, f->consts.len / 2);
    for (uint32_t i = 0; i < f->stack.len; i++)
        if (f->stack.data[i].id < 0 || f->stack.data[i].id >= (int32_t)RVI_MAX_SLOTS)
            imp_refuse(x, "slots", "frame object %d: 1000 or more (R7)", f->stack.data[i].id);
}

/* R2: is rbp reserved? */
static bool frame_pointer(imp *x)
{
    const mir_func *f = x->pre;
    size_t n;
    const char *name = imp_name(x, &n);
    const mir_irfunc *irf = mir_module_irfunc(&x->m->tag, name, n);
    if (irf && irf->attr != RVI_NONE) {
        size_t len;
        const char *a = mir_module_attrs(&x->m->tag, irf->attr, &len);
        for (size_t i = 0; a && i + 30 <= len; i++) {
            if (memcmp(a + i, "\"frame-pointer\"=\"all\"", 21) == 0) return true;
            if (memcmp(a + i, "\"frame-pointer\"=\"non-leaf\"", 26) == 0 && (f->fflags & FF_HASCALLS)) return true;
        }
    }
    for (uint32_t i = 0; i < f->stack.len; i++)
        if (f->stack.data[i].varsized) return true;
    unsigned flags = FF_FRAMEADDR | FF_OPAQUESP | FF_STACKMAP | FF_PATCHPOINT | FF_UNWINDINIT | FF_EHRETURN | FF_FUNCLETS;
    return (f->fflags & flags) || f->max_align > 16;
}

void imp_check(imp *x)
{
    if (!x->bf || !x->af) {
        imp_refuse(x, "llc", "llc printed no dump %s the allocator for this function", x->bf ? "after" : "before");
        return;
    }
    if (!x->post || !x->rpost) {
        imp_refuse(x, "llc", "llc wrote no post-allocation MIR for this function");
        return;
    }
    if (!x->pre->blocks.len) {
        imp_error(x, "S4", x->rp, 0, "the function has no blocks");
        return;
    }
    check_blocks(x, x->pre);
    check_classes(x);
    check_insts(x, x->rp, x->pre, false);
    if (!imp_failed(x)) check_insts(x, x->rv, x->bf, true);
    if (!imp_failed(x)) check_insts(x, x->rv, x->af, true);
    if (!imp_failed(x)) check_slots(x);
    x->fp = frame_pointer(x);
}
