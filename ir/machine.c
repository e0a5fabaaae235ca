/* machine.c - machine descriptions: register classes (allocatable registers
 * in preference order), reserved registers, the default clobber set of
 * `call`, and the GC model. */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

ravel_machine *ravel_machine_new(void)
{
    return rv_xcalloc(1, sizeof(ravel_machine));
}

void ravel_machine_free(ravel_machine *m)
{
    if (!m) return;
    for (uint32_t i = 0; i < m->classes.len; i++) rv_vec_free(m->classes.data[i].alloc);
    rv_vec_free(m->classes);
    rv_vec_free(m->regs);
    rv_vec_free(m->clobbers);
    rv_vec_free(m->name_reg);
    rv_vec_free(m->name_class);
    rv_symtab_free(&m->names);
    rv_arena_free(&m->arena);
    rv_free(m);
}

/* A failing call: its message (ravel_machine_error), then its status. */
static int mfail(ravel_machine *m, int code, const char *msg)
{
    if (m) m->err = msg;
    return code;
}

const char *ravel_machine_error(const ravel_machine *m) { return m ? m->err : NULL; }

static uint32_t name_sym(ravel_machine *m, const char *name)
{
    uint32_t id = rv_sym_intern(&m->names, name, strlen(name));
    while (m->name_reg.len <= id) {
        rv_vec_push(m->name_reg, -1);
        rv_vec_push(m->name_class, -1);
    }
    return id;
}

int ravel_machine_add_class(ravel_machine *m, const char *name)
{
    if (!m) return RAVEL_EINVAL;
    if (!name || !*name) return mfail(m, RAVEL_EINVAL, "ravel_machine_add_class: no name");
    if (m->classes.len >= RV_MAX_CLASSES) return mfail(m, RAVEL_ELIMIT, "ravel_machine_add_class: too many classes (64)");
    uint32_t s = name_sym(m, name);
    if (m->name_class.data[s] >= 0) return mfail(m, RAVEL_EINVAL, "ravel_machine_add_class: a class of that name exists");
    rv_class c = {rv_sym_str(&m->names, s), {0}};
    m->name_class.data[s] = (int32_t)m->classes.len;
    rv_vec_push(m->classes, c);
    return (int)m->classes.len - 1;
}

int ravel_machine_add_reg(ravel_machine *m, const char *name, int cls, int reserved)
{
    if (!m) return RAVEL_EINVAL;
    if (!name || !*name) return mfail(m, RAVEL_EINVAL, "ravel_machine_add_reg: no name");
    if (cls < 0 || (uint32_t)cls >= m->classes.len) return mfail(m, RAVEL_EINVAL, "ravel_machine_add_reg: bad class id");
    if (m->regs.len >= RV_MAX_REGS) return mfail(m, RAVEL_ELIMIT, "ravel_machine_add_reg: too many registers (1024)");
    uint32_t s = name_sym(m, name);
    if (m->name_reg.data[s] >= 0) return mfail(m, RAVEL_EINVAL, "ravel_machine_add_reg: a register of that name exists");
    rv_reg r = {rv_sym_str(&m->names, s), (uint8_t)cls, reserved != 0};
    uint32_t id = m->regs.len;
    m->name_reg.data[s] = (int32_t)id;
    rv_vec_push(m->regs, r);
    if (!reserved) rv_vec_push(m->classes.data[cls].alloc, id);
    return (int)id;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int ravel_machine_set_clobbers(ravel_machine *m, const uint32_t *regs, size_t n)
{
    if (!m) return RAVEL_EINVAL;
    if (n && !regs) return mfail(m, RAVEL_EINVAL, "ravel_machine_set_clobbers: NULL list");
    for (size_t i = 0; i < n; i++)
        if (regs[i] >= m->regs.len) return mfail(m, RAVEL_EINVAL, "ravel_machine_set_clobbers: bad register id");
    m->clobbers.len = 0;
    for (size_t i = 0; i < n; i++) rv_vec_push(m->clobbers, regs[i]);
    if (m->clobbers.len) qsort(m->clobbers.data, m->clobbers.len, sizeof(uint32_t), cmp_u32);
    uint32_t w = 0;
    for (uint32_t i = 0; i < m->clobbers.len; i++)
        if (!w || m->clobbers.data[w - 1] != m->clobbers.data[i]) m->clobbers.data[w++] = m->clobbers.data[i];
    m->clobbers.len = w;
    return RAVEL_OK;
}

void ravel_machine_set_gc_moving(ravel_machine *m, int moving)
{
    if (m) m->gc_nonmoving = !moving;
}

int ravel_machine_find_reg(const ravel_machine *m, const char *name)
{
    if (!m || !name) return -1;
    uint32_t s = rv_sym_find(&m->names, name, strlen(name));
    return s == RAVEL_NONE ? -1 : m->name_reg.data[s];
}

int ravel_machine_find_class(const ravel_machine *m, const char *name)
{
    if (!m || !name) return -1;
    uint32_t s = rv_sym_find(&m->names, name, strlen(name));
    return s == RAVEL_NONE ? -1 : m->name_class.data[s];
}

uint32_t ravel_machine_nregs(const ravel_machine *m) { return m ? m->regs.len : 0; }
uint32_t ravel_machine_nclasses(const ravel_machine *m) { return m ? m->classes.len : 0; }
const char *ravel_machine_reg_name(const ravel_machine *m, uint32_t reg)
{
    return m && reg < m->regs.len ? m->regs.data[reg].name : NULL;
}
