/*
 * emit.c - the two .ra texts of an imported function, and S7's comparison
 * of the allocated function, stripped, with the one built from tag.mir.
 *
 * The machine block is docs/import-mapping.md §5.1's cut down to the
 * registers the function touches (which changes no verdict: a register no
 * operand, edit or clobber names holds nothing the checker follows): a
 * general register's row appears whole when any of its narrower names is
 * named by the MIR (before or after allocation) or by the .ra text, and as
 * its 64-bit name alone otherwise; a vector row appears whole; `eflags`
 * when named. The alias lines are §5.1's among the names present, the
 * clobbers line the widest present name of each row csr_64 does not
 * preserve. rbp's row is `reserved` when R2 reserves it. With
 * rvi_opts.full_machine the block is §5.1's whole. Register order is
 * §5.1's.
 *
 * The allocated text carries, after each op and edit, the MIR line it
 * stands for (and the rule that placed it) as a comment; the unallocated
 * text (what `strip` gives) has no locations, edits or comments.
 */
#include "import/imp.h"
#include "import/textbuf.h"

/* ----- the machine block ----- */
static void touch_loc(bool *t, uint32_t loc)
{
    if (loc != RVI_NONE && !(loc & RVI_SLOT) && loc < X86_NREGS) t[loc] = true;
}

static void touch_mir(bool *t, const mir_func *f)
{
    for (uint32_t i = 0; f && i < f->ops.len; i++)
        if (f->ops.data[i].kind == MO_REG && f->ops.data[i].preg >= 0) t[f->ops.data[i].preg] = true;
}

static void touched(const imp *x, const ra_func *f, bool *t)
{
    touch_mir(t, x->pre);
    touch_mir(t, x->af);
    for (uint32_t i = 0; i < x->pre->liveins.len; i++)
        if (x->pre->liveins.data[i].preg >= 0) t[x->pre->liveins.data[i].preg] = true;
    for (uint32_t i = 0; i < f->defs.len; i++) touch_loc(t, f->defs.data[i].loc), touch_loc(t, f->defs.data[i].cons == CN_FIXED ? f->defs.data[i].arg : RVI_NONE);
    for (uint32_t i = 0; i < f->uses.len; i++)
        if (!f->uses.data[i].imm) touch_loc(t, f->uses.data[i].o.loc), touch_loc(t, f->uses.data[i].o.cons == CN_FIXED ? f->uses.data[i].o.arg : RVI_NONE);
    for (uint32_t i = 0; i < f->insts.len; i++) {
        const ra_inst *in = &f->insts.data[i];
        touch_loc(t, in->dst);
        touch_loc(t, in->src);
        for (unsigned r = 0; r < X86_NREGS; r++)
            if ((in->clob[r / 64] >> (r % 64)) & 1) t[r] = true;
    }
}

/* present[r]: the register is declared by the machine block. */
static void machine_regs(const imp *x, const ra_func *f, bool *present)
{
    bool t[X86_NREGS] = {false};
    if (x->o->full_machine) {
        for (unsigned r = 0; r < X86_NREGS; r++) t[r] = x86_reg_at(r) != NULL;
    } else {
        touched(x, f, t);
    }
    memset(present, 0, X86_NREGS * sizeof *present);
    for (unsigned row = 0; row < X86_NGPR_ROWS; row++) {
        unsigned base = X86_GPR0 + 5 * row;
        bool any = false, narrow = false;
        for (unsigned k = 0; k < 5; k++) {
            any |= t[base + k];
            narrow |= k > 0 && t[base + k];
        }
        if (row == 7 && !x->o->full_machine) continue; /* rsp: never named in the .ra text */
        for (unsigned k = 0; any && k < 5; k++) present[base + k] = x86_reg_at(base + k) && (k == 0 || narrow || x->o->full_machine);
    }
    for (unsigned row = 0; row < X86_NVEC_ROWS; row++) {
        unsigned base = X86_VEC0 + 4 * row;
        bool any = t[base] || t[base + 1] || t[base + 2] || t[base + 3];
        for (unsigned k = 0; k < 4; k++) present[base + k] = any;
    }
    present[X86_EFLAGS] = t[X86_EFLAGS];
    bool gpr_alloc = false;
    for (unsigned r = X86_GPR0; r < X86_VEC0; r++) gpr_alloc |= present[r] && !(x86_reg_at(r)->row == 7 || (x->fp && x86_reg_at(r)->row == 6));
    bool others = present[X86_EFLAGS];
    for (unsigned r = X86_VEC0; r < X86_EFLAGS; r++) others |= present[r];
    bool any_gpr = false;
    for (unsigned r = X86_GPR0; r < X86_VEC0; r++) any_gpr |= present[r];
    if (!gpr_alloc && (any_gpr || !others)) present[X86_GPR0] = true; /* a class needs an allocatable register */
}

static bool reserved_reg(const imp *x, unsigned r)
{
    const x86_reg *g = x86_reg_at(r);
    return g->kind == XK_GPR && (g->row == 7 || (x->fp && g->row == 6));
}

static void emit_machine(const imp *x, const ra_func *f, rvi_buf *b)
{
    bool present[X86_NREGS];
    machine_regs(x, f, present);
    static const char *const cname[] = {"gpr", "xmm", "flags"};
    rvi_puts(b, "machine\n");
    for (unsigned c = 0; c < RC_N; c++) {
        bool any = false;
        for (unsigned r = 0; r < X86_NREGS; r++) {
            if (!present[r] || x86_reg_rc(r) != c || reserved_reg(x, r)) continue;
            if (!any) rvi_putf(b, "  class %s", cname[c]);
            any = true;
            rvi_putf(b, " %s", x86_reg_at(r)->name);
        }
        if (any) rvi_puts(b, "\n");
    }
    bool res = false;
    for (unsigned r = 0; r < X86_NREGS; r++) {
        if (!present[r] || !reserved_reg(x, r)) continue;
        if (!res) rvi_puts(b, "  reserved gpr");
        res = true;
        rvi_putf(b, " %s", x86_reg_at(r)->name);
    }
    if (res) rvi_puts(b, "\n");
    for (unsigned r = 0; r < X86_NREGS; r++) {
        if (!present[r]) continue;
        bool any = false;
        for (unsigned s = 0; s < X86_NREGS; s++) {
            if (!present[s] || !x86_contains(r, s)) continue;
            if (!any) rvi_putf(b, "  alias %s", x86_reg_at(r)->name);
            any = true;
            rvi_putf(b, " %s", x86_reg_at(s)->name);
        }
        if (any) rvi_puts(b, "\n");
    }
    rvi_puts(b, "  clobbers");
    for (unsigned r = 0; r < X86_NREGS; r++) {
        if (!present[r] || x86_csr64_preserves(r) || reserved_reg(x, r)) continue;
        bool widest = true;
        for (unsigned s = 0; s < X86_NREGS; s++) widest &= !(present[s] && x86_contains(s, r));
        if (widest) rvi_putf(b, " %s", x86_reg_at(r)->name);
    }
    rvi_puts(b, "\nend\n");
}

/* ----- the function ----- */
static void loc_name(rvi_buf *b, uint32_t loc)
{
    if (loc & RVI_SLOT) rvi_putf(b, "s%u", loc & ~RVI_SLOT);
    else rvi_putf(b, "%s", x86_reg_at(loc) ? x86_reg_at(loc)->name : "?");
}

static void opnd(rvi_buf *b, const ra_opnd *o, bool def, bool allocated)
{
    static const char *const cname[] = {"gpr", "xmm", "flags"};
    if (o->early) rvi_puts(b, "early ");
    rvi_putf(b, "v%u", o->vreg);
    if (def) rvi_putf(b, ":%s", cname[o->rc < RC_N ? o->rc : 0]);
    if (o->cons == CN_ANY) rvi_puts(b, " any");
    else if (o->cons == CN_FIXED) rvi_putf(b, " fixed(%s)", x86_reg_at(o->arg)->name);
    else if (o->cons == CN_REUSE) rvi_putf(b, " reuse(%u)", o->arg);
    if (allocated && o->loc != RVI_NONE) {
        rvi_puts(b, " @");
        loc_name(b, o->loc);
    }
}

static void clobbers(rvi_buf *b, const ra_inst *in)
{
    if (!in->has_clob) return;
    rvi_puts(b, " clobbers(");
    bool first = true;
    for (unsigned r = 0; r < X86_NREGS; r++)
        if ((in->clob[r / 64] >> (r % 64)) & 1) {
            rvi_putf(b, "%s%s", first ? "" : " ", x86_reg_at(r)->name);
            first = false;
        }
    rvi_puts(b, ")");
}

static void uses(rvi_buf *b, const ra_func *f, const ra_inst *in, bool allocated, bool lead)
{
    for (uint32_t j = 0; j < in->nu; j++) {
        const ra_use *u = &f->uses.data[in->u0 + j];
        rvi_puts(b, j || !lead ? ", " : " ");
        if (u->imm) rvi_putf(b, "%lld", (long long)u->val);
        else opnd(b, &u->o, false, allocated);
    }
}

/* The MIR text an instruction stands for, up to its debug location. */
static void mir_comment(rvi_buf *b, const ra_inst *in)
{
    if (!in->ctext) return;
    const char *s = in->ctext->src + in->cpos, *end = in->ctext->src + in->ctext->len;
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
    for (size_t i = 0; i + 16 <= n; i++)
        if (memcmp(s + i, ", debug-location", 16) == 0 || memcmp(s + i, " debug-location", 15) == 0) {
            n = i;
            break;
        }
    for (size_t i = 0; i < n; i++)
        if (s[i] == ';') n = i;
    if (n > 160) n = 160;
    rvi_puts(b, "   #");
    if (in->slot >= 0) rvi_putf(b, " %dB", in->slot);
    rvi_putf(b, " %.*s", (int)n, s);
    if (in->why && *in->why) rvi_putf(b, " (%s)", in->why);
}

static void emit_inst(const ra_func *f, const ra_inst *in, bool allocated, bool comments, rvi_buf *b)
{
    if (!allocated && in->kind >= RK_SPILL && in->kind <= RK_REMAT) return;
    rvi_puts(b, "  ");
    for (uint32_t j = 0; j < in->nd; j++) {
        if (j) rvi_puts(b, ", ");
        opnd(b, &f->defs.data[in->d0 + j], true, allocated);
    }
    if (in->nd) rvi_puts(b, " = ");
    switch (in->kind) {
    case RK_SPILL: loc_name(b, in->dst); rvi_puts(b, " = spill "); loc_name(b, in->src); break;
    case RK_RELOAD: loc_name(b, in->dst); rvi_puts(b, " = reload "); loc_name(b, in->src); break;
    case RK_MOVE: loc_name(b, in->dst); rvi_puts(b, " = move "); loc_name(b, in->src); break;
    case RK_REMAT: loc_name(b, in->dst); rvi_putf(b, " = remat %lld", (long long)in->key); clobbers(b, in); break;
    case RK_JUMP: case RK_BR: case RK_RET:
        rvi_puts(b, in->kind == RK_JUMP ? "jump" : in->kind == RK_BR ? "br" : "ret");
        uses(b, f, in, allocated, true);
        for (uint32_t j = 0; j < in->ns; j++) rvi_putf(b, "%s%s", in->nu || j ? ", " : " ", f->labels.data[f->u32.data[in->s0 + j]]);
        break;
    case RK_CONST: rvi_putf(b, "const %lld", (long long)in->key); clobbers(b, in); break;
    case RK_CALL: rvi_putf(b, "call %s", in->mnem); uses(b, f, in, allocated, true); clobbers(b, in); break;
    default:
        rvi_puts(b, in->kind == RK_COPY ? "copy" : in->kind == RK_UNDEF ? "undef" : in->kind == RK_ARGS ? "args" : in->mnem);
        uses(b, f, in, allocated, true);
        clobbers(b, in);
    }
    if (allocated && comments) mir_comment(b, in);
    rvi_puts(b, "\n");
}

static void func_name(rvi_buf *b, const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9')) rvi_puts(b, "_");
    for (; *s; s++) {
        char c = *s;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        rvi_put(b, ok ? &c : "_", 1);
    }
}

char *imp_emit(imp *x, const ra_func *f, bool allocated, size_t *len)
{
    rvi_buf b = {0};
    if (x->o->header) rvi_putf(&b, "# %s\n", x->o->header);
    emit_machine(x, f, &b);
    rvi_puts(&b, "\nfunc ");
    func_name(&b, f->name);
    rvi_puts(&b, "\n");
    for (uint32_t i = 0; i < f->blocks.len; i++) {
        const ra_block *blk = &f->blocks.data[i];
        rvi_putf(&b, "%s:\n", f->labels.data[blk->label]);
        for (uint32_t k = blk->i0; k < blk->i0 + blk->n; k++) emit_inst(f, &f->insts.data[k], allocated, x->o->comments, &b);
    }
    rvi_puts(&b, "end\n");
    *len = b.len;
    return b.p;
}

/* ----- S7: strip(allocated) against the unallocated twin ----- */
static bool is_edit(const ra_inst *in)
{
    return in->kind >= RK_SPILL && in->kind <= RK_REMAT;
}

static bool opnd_same(const ra_opnd *a, const ra_opnd *o)
{
    if (a->vreg != o->vreg || a->rc != o->rc || a->early != o->early) return false;
    if (a->cons == o->cons) return a->cons != CN_FIXED && a->cons != CN_REUSE ? true : a->arg == o->arg;
    return a->cons == CN_ANY; /* placed at a slot by R29-R33 (and then without reuse, R31) */
}

static const char *inst_diff(const ra_func *A, const ra_inst *a, const ra_func *O, const ra_inst *o)
{
    bool copyish = (a->kind == RK_COPY || (a->kind == RK_OP && strcmp(a->mnem, "COPY") == 0)) &&
                   (o->kind == RK_COPY || (o->kind == RK_OP && strcmp(o->mnem, "COPY") == 0));
    if (a->kind != o->kind && !copyish) return "kind";
    if (a->kind == RK_OP && o->kind == RK_OP && strcmp(a->mnem, o->mnem) != 0) return "mnemonic";
    if (a->kind == RK_CALL && strcmp(a->mnem, o->mnem) != 0) return "callee";
    if (a->kind == RK_CONST && a->key != o->key) return "constant";
    if (a->nd != o->nd) return "defs";
    for (uint32_t j = 0; j < a->nd; j++)
        if (!opnd_same(&A->defs.data[a->d0 + j], &O->defs.data[o->d0 + j])) return "a def";
    if (a->nu != o->nu && !copyish) return "uses";
    for (uint32_t j = 0; j < a->nu && j < o->nu; j++) {
        const ra_use *u = &A->uses.data[a->u0 + j], *v = &O->uses.data[o->u0 + j];
        if (u->imm != v->imm || (u->imm && u->val != v->val) || (!u->imm && !opnd_same(&u->o, &v->o))) return "a use";
    }
    if (a->has_clob != o->has_clob || memcmp(a->clob, o->clob, sizeof a->clob) != 0) return "clobbers";
    if (a->ns != o->ns) return "successors";
    for (uint32_t j = 0; j < a->ns; j++)
        if (A->u32.data[a->s0 + j] != O->u32.data[o->s0 + j]) return "a successor";
    return NULL;
}

bool imp_same(imp *x, const ra_func *alloc, const ra_func *orig)
{
    if (alloc->blocks.len != orig->blocks.len) {
        imp_error(x, "S7", NULL, 0, "the two unallocated forms have %u and %u blocks", alloc->blocks.len, orig->blocks.len);
        return false;
    }
    for (uint32_t i = 0; i < alloc->blocks.len; i++) {
        const ra_block *ba = &alloc->blocks.data[i], *bo = &orig->blocks.data[i];
        uint32_t ka = ba->i0, ko = bo->i0;
        for (;;) {
            while (ka < ba->i0 + ba->n && is_edit(&alloc->insts.data[ka])) ka++;
            bool ea = ka >= ba->i0 + ba->n, eo = ko >= bo->i0 + bo->n;
            if (ea || eo) {
                if (ea != eo) {
                    imp_error(x, "S7", NULL, 0, "block %s has %s instructions in the form built from tag.mir", alloc->labels.data[ba->label],
                              ea ? "more" : "fewer");
                    return false;
                }
                break;
            }
            const ra_inst *a = &alloc->insts.data[ka], *o = &orig->insts.data[ko];
            const char *d = inst_diff(alloc, a, orig, o);
            if (d) {
                uint32_t pos = o->pre != RVI_NONE ? x->pre->insts.data[o->pre].pos : 0;
                imp_error(x, "S7", o->pre != RVI_NONE ? x->rp : NULL, pos,
                          "the allocated function, stripped, differs from the one built from tag.mir in %s", d);
                return false;
            }
            ka++, ko++;
        }
    }
    return true;
}
