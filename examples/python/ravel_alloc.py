#!/usr/bin/env python3
"""ravel_alloc.py - a register allocator in Python, driven by ravel.

An example of an allocator outside C, checked by ravel through the one-shot
protocol of `ravel fuzz --alloc-cmd 'python3 ravel_alloc.py'`: ravel writes
one unallocated module (its machine block and one function, in the canonical
text of docs/format.md section 11) on standard input; this program writes the
allocated module on standard output and exits 0.  Exit status 3 means
"declined" (a shape this allocator does not handle; the reason is on stderr),
2 unreadable input; anything else is a failure.  Python 3.8 or later, the
standard library only.

Design: a LOCAL allocator with write-through spilling.
  - Every value has a home slot, and is stored there as soon as it is defined
    (a def in a register is spilled right after its instruction), so the home
    slot holds the value wherever it is live (SSA: its def dominates).
  - Registers are a cache, block by block: a use takes the register that
    already holds its value when there is one (no reload), else the value is
    reloaded from its home.  The cache is emptied at every block start, and
    loses what the checker's rules (docs/format.md section 6) destroy: a
    register written by a def or an edit, a clobbered register, every .ref
    value at a safepoint.
  - Block parameters live in their home slots.  On an edge the arguments'
    homes are copied into the parameters' homes as one parallel copy
    (reload + spill per slot, a temporary slot to break cycles): before a
    `jump`, or at the start of the target for a `br` (every target of a br
    has that br as its only predecessor: no critical edges).
  - A safepoint's stackmap lists the homes of the .ref values live across it
    (liveness computed over the CFG, block arguments being uses at the end of
    their block).
  - The operands of one instruction are placed as the generator's
    satisfiability rules promise is possible (fuzz/gen_func.c, S1-S6): fixed
    operands in their registers; `stack` and `any` operands in their homes;
    then the operands live at both points (late uses, early defs) in
    distinct registers outside the instruction's fixed ones, then the early
    uses, then reuse defs (in their use's register) and the late defs.

Planted bugs (for the tests and the README), chosen by RAVEL_PY_BUG:
  clobber   the cache forgets the clobbers of a `call` that names none of its
            own (the machine's default set): a value cached in a register
            the call destroyed is read after the call without a reload.
  parmove   the copies of an edge are done one after the other in argument
            order, ignoring the parallel-copy hazard (a swap loses a value).
  stackmap  liveness forgets that block arguments are uses: a .ref value
            live only as an argument of a later edge is left out of the
            stackmaps in between.
"""

import os
import re
import sys

EXIT_OK, EXIT_BAD_INPUT, EXIT_DECLINED = 0, 2, 3

BUG = os.environ.get("RAVEL_PY_BUG", "")


class Decline(Exception):
    """A shape this allocator does not handle (exit status 3)."""


class BadInput(Exception):
    """Input that is not ravel's canonical unallocated text (exit status 2)."""


# ---------------------------------------------------------------------------
# Reading

_TOKEN = re.compile(r"\s*(?:(-?(?:0[xX][0-9a-fA-F]+|[0-9]+))|([A-Za-z_][A-Za-z0-9_]*)|(\S))")
_VREG = re.compile(r"v(0|[1-9][0-9]*)$")


def tokenize(text, lineno):
    """The tokens of one line (comment removed): ('int', n), ('id', s), ('p', c)."""
    text = text.split("#", 1)[0]
    toks, pos = [], 0
    while True:
        m = _TOKEN.match(text, pos)
        if not m:
            break
        pos = m.end()
        if m.group(1) is not None:
            toks.append(("int", int(m.group(1), 0)))
        elif m.group(2) is not None:
            toks.append(("id", m.group(2)))
        else:
            toks.append(("p", m.group(3)))
    if text[pos:].strip():
        raise BadInput("line %d: unexpected text '%s'" % (lineno, text[pos:].strip()))
    return toks


class Cursor:
    """Reads tokens of one line; errors name the line."""

    def __init__(self, toks, lineno):
        self.toks, self.i, self.lineno = toks, 0, lineno

    def peek(self, k=0):
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else (None, None)

    def at_end(self):
        return self.i >= len(self.toks)

    def next(self):
        if self.at_end():
            self.fail("unexpected end of line")
        t = self.toks[self.i]
        self.i += 1
        return t

    def accept(self, punct):
        if self.peek() == ("p", punct):
            self.i += 1
            return True
        return False

    def expect(self, punct):
        if not self.accept(punct):
            self.fail("expected '%s'" % punct)

    def ident(self):
        kind, val = self.next()
        if kind != "id":
            self.fail("expected a name, got '%s'" % val)
        return val

    def integer(self):
        kind, val = self.next()
        if kind != "int":
            self.fail("expected an integer, got '%s'" % val)
        return val

    def fail(self, msg):
        raise BadInput("line %d: %s" % (self.lineno, msg))


class Machine:
    def __init__(self):
        self.lines = []          # the machine block as read (canonical), for output
        self.reg_class = {}      # register name -> class name
        self.allocatable = {}    # class name -> registers in preference order
        self.reserved = set()
        self.clobbers = []       # a call's default clobbers
        self.gc_moving = True
        self.reg_order = []      # every register, in id order


class Operand:
    """A vreg operand: a def, a use or a br condition."""

    def __init__(self, vreg, is_def):
        self.vreg, self.is_def = vreg, is_def
        self.cls, self.ref = None, False        # class annotation (defs)
        self.late = is_def                      # effective position: defs late, uses early
        self.kind, self.arg = "reg", None       # constraint; fixed: register, reuse: K
        self.loc = None                         # chosen location: register name or slot number

    def early_point(self):
        """Occupies its location at the early point: uses, early defs."""
        return not self.is_def or not self.late

    def late_point(self):
        """Occupies its location at the late point: defs, late uses."""
        return self.is_def or self.late

    def spans(self):
        """Both points: a late use or an early def (S5 of the generator)."""
        return self.early_point() and self.late_point()

    def text(self):
        s = ""
        if self.is_def and not self.late:
            s += "early "
        if not self.is_def and self.late:
            s += "late "
        s += "v%d" % self.vreg
        if self.is_def:
            s += ":" + self.cls + (".ref" if self.ref else "")
        if self.kind in ("any", "stack"):
            s += " " + self.kind
        elif self.kind == "fixed":
            s += " fixed(%s)" % self.arg
        elif self.kind == "reuse":
            s += " reuse(%d)" % self.arg
        if self.loc is not None:
            s += " @" + loc_text(self.loc)
        return s


def loc_text(loc):
    return "s%d" % loc if isinstance(loc, int) else loc


class Inst:
    def __init__(self, kind):
        self.kind = kind        # 'op', 'call', 'jump', 'br', 'ret'
        self.name = None        # mnemonic or callee
        self.defs = []
        self.items = []         # uses and immediates in order (Operand or int)
        self.clobbers = None    # explicit clobbers(...) list, or None
        self.safepoint = False
        self.targets = []       # [(label, [vreg, ...])]
        self.stackmap = None    # slots, set by the allocator

    def uses(self):
        return [x for x in self.items if isinstance(x, Operand)]

    def text(self):
        if self.kind == "jump":
            return "jump " + targets_text(self.targets)
        if self.kind == "br":
            head = "br " + (self.items[0].text() + ", " if self.items else "")
            return head + targets_text(self.targets)
        items = ", ".join(x.text() if isinstance(x, Operand) else str(x) for x in self.items)
        if self.kind == "ret":
            return "ret" + (" " + items if items else "")
        s = ""
        if self.defs:
            s = ", ".join(d.text() for d in self.defs) + " = "
        s += ("call " + self.name) if self.kind == "call" else self.name
        if items:
            s += " " + items
        if self.clobbers is not None:
            s += " clobbers(%s)" % " ".join(self.clobbers)
        if self.safepoint:
            s += " safepoint"
        if self.stackmap is not None:
            s += " stackmap(%s)" % " ".join("s%d" % k for k in sorted(self.stackmap))
        return s


def targets_text(targets):
    out = []
    for label, args in targets:
        out.append(label + ("(%s)" % ", ".join("v%d" % a for a in args) if args else ""))
    return ", ".join(out)


class Block:
    def __init__(self, name, params):
        self.name = name
        self.params = params    # [(vreg, class, ref)]
        self.insts = []

    def label(self):
        if not self.params:
            return self.name + ":"
        ps = ", ".join("v%d:%s%s" % (v, c, ".ref" if r else "") for v, c, r in self.params)
        return "%s(%s):" % (self.name, ps)


class Func:
    def __init__(self, name):
        self.name = name
        self.blocks = []
        self.vclass = {}        # vreg -> (class, ref)


def parse_vreg(cur):
    kind, val = cur.next()
    m = _VREG.match(val) if kind == "id" else None
    if not m:
        cur.fail("expected a vreg, got '%s'" % val)
    return int(m.group(1))


def parse_class(cur):
    """':' CLASS ['.' 'ref'] after a vreg, or (None, False)."""
    if not cur.accept(":"):
        return None, False
    cls = cur.ident()
    ref = False
    if cur.accept("."):
        if cur.ident() != "ref":
            cur.fail("expected 'ref' after '.'")
        ref = True
    return cls, ref


def starts_operand(cur):
    kind, val = cur.peek()
    if kind == "int":
        return True
    if kind != "id":
        return False
    if _VREG.match(val):
        return True
    return val in ("early", "late") and cur.peek(1)[0] == "id"


def parse_operand(cur, is_def):
    kind, val = cur.peek()
    pos = None
    if kind == "id" and val in ("early", "late") and cur.peek(1)[0] == "id":
        cur.next()
        pos = val
    op = Operand(parse_vreg(cur), is_def)
    if pos is not None:
        op.late = pos == "late"
    op.cls, op.ref = parse_class(cur)
    if is_def and op.cls is None:
        cur.fail("a def needs its class (v%d)" % op.vreg)
    kind, val = cur.peek()
    if kind == "id" and val in ("reg", "any", "stack"):
        cur.next()
        op.kind = val
    elif kind == "id" and val in ("fixed", "reuse") and cur.peek(1) == ("p", "("):
        cur.next()
        cur.expect("(")
        op.kind = val
        op.arg = cur.ident() if val == "fixed" else cur.integer()
        cur.expect(")")
    if cur.accept("@"):
        cur.fail("the input is already allocated (@ on v%d)" % op.vreg)
    return op


def parse_items(cur):
    """Uses and immediates, comma-separated, possibly none."""
    items = []
    if not starts_operand(cur):
        return items
    while True:
        if cur.peek()[0] == "int":
            items.append(cur.integer())
        else:
            items.append(parse_operand(cur, False))
        if not cur.accept(","):
            return items


def parse_attrs(cur, inst, machine):
    while not cur.at_end():
        name = cur.ident()
        if name == "safepoint":
            inst.safepoint = True
        elif name == "clobbers":
            cur.expect("(")
            regs = []
            while not cur.accept(")"):
                r = cur.ident()
                if r not in machine.reg_class:
                    cur.fail("unknown register '%s'" % r)
                regs.append(r)
            order = {r: k for k, r in enumerate(machine.reg_order)}
            inst.clobbers = sorted(set(regs), key=order.get)
        elif name == "stackmap":
            cur.fail("the input is already allocated (stackmap)")
        else:
            cur.fail("unknown attribute '%s'" % name)


def parse_targets(cur):
    targets = []
    while True:
        label = cur.ident()
        args = []
        if cur.accept("("):
            while not cur.accept(")"):
                args.append(parse_vreg(cur))
                parse_class(cur)
                cur.accept(",")
        targets.append((label, args))
        if not cur.accept(","):
            break
    if not cur.at_end():
        cur.fail("unexpected text after the targets")
    return targets


def parse_inst(cur, machine):
    has_defs = ("p", "=") in cur.toks
    kind, val = cur.peek()
    if not has_defs and kind == "id" and val in ("jump", "br", "ret"):
        cur.next()
        inst = Inst(val)
        if val == "ret":
            inst.items = parse_items(cur)
            if not cur.at_end():
                cur.fail("unexpected text after ret")
        elif val == "br":
            k2, v2 = cur.peek()
            if k2 == "id" and (_VREG.match(v2) or v2 in ("early", "late") and cur.peek(1)[0] == "id"):
                inst.items = [parse_operand(cur, False)]
                cur.expect(",")
            inst.targets = parse_targets(cur)
        else:
            inst.targets = parse_targets(cur)
            if len(inst.targets) != 1:
                cur.fail("jump has one target")
        return inst
    defs = []
    if has_defs:
        while True:
            defs.append(parse_operand(cur, True))
            if not cur.accept(","):
                break
        cur.expect("=")
    name = cur.ident()
    if name in ("spill", "reload", "move"):
        cur.fail("the input is already allocated (an edit)")
    inst = Inst("op")
    if name == "call":
        inst.kind = "call"
        name = cur.ident()
    inst.name, inst.defs = name, defs
    inst.items = parse_items(cur)
    parse_attrs(cur, inst, machine)
    return inst


def parse_machine(lines, k):
    """lines[k] is 'machine'; returns (Machine, index after 'end')."""
    m = Machine()
    m.lines.append("machine")
    k += 1
    while k < len(lines):
        lineno, raw = k + 1, lines[k]
        cur = Cursor(tokenize(raw, lineno), lineno)
        k += 1
        if cur.at_end():
            continue
        word = cur.ident()
        if word == "end":
            m.lines.append("end")
            return m, k
        m.lines.append(raw.split("#", 1)[0].rstrip())
        if word == "class":
            cls = cur.ident()
            regs = []
            while not cur.at_end():
                regs.append(cur.ident())
            m.allocatable[cls] = regs
            for r in regs:
                m.reg_class[r] = cls
                m.reg_order.append(r)
        elif word == "reserved":
            cls = cur.ident()
            while not cur.at_end():
                r = cur.ident()
                m.reg_class[r] = cls
                m.reserved.add(r)
                m.reg_order.append(r)
        elif word == "clobbers":
            while not cur.at_end():
                m.clobbers.append(cur.ident())
        elif word == "gc":
            m.gc_moving = cur.ident() != "nonmoving"
        elif word == "alias":
            raise Decline("line %d: register containment (alias lines, docs/format.md section 14.1): "
                          "this allocator does not model registers that share bits" % lineno)
        else:
            cur.fail("unknown machine line '%s'" % word)
    raise BadInput("the machine block has no 'end'")


def parse_module(text):
    lines = text.split("\n")
    machine, funcs, k = None, [], 0
    func, block = None, None
    while k < len(lines):
        lineno, raw = k + 1, lines[k]
        toks = tokenize(raw, lineno)
        cur = Cursor(toks, lineno)
        if not toks:
            k += 1
            continue
        if machine is None:
            if toks[0] != ("id", "machine") or len(toks) != 1:
                cur.fail("expected 'machine'")
            machine, k = parse_machine(lines, k)
            continue
        k += 1
        if func is None:
            if toks[0] != ("id", "func") or len(toks) != 2:
                cur.fail("expected 'func NAME'")
            func = Func(toks[1][1])
            continue
        if toks == [("id", "end")]:
            if not func.blocks:
                cur.fail("a function without blocks")
            funcs.append(func)
            func, block = None, None
            continue
        if toks[0][0] == "id" and (toks[-1] == ("p", ":") and (len(toks) == 2 or toks[1] == ("p", "("))):
            name = cur.ident()
            params = []
            if cur.accept("("):
                while not cur.accept(")"):
                    v = parse_vreg(cur)
                    cls, ref = parse_class(cur)
                    if cls is None:
                        cur.fail("a parameter needs its class")
                    params.append((v, cls, ref))
                    func.vclass[v] = (cls, ref)
                    cur.accept(",")
            cur.expect(":")
            block = Block(name, params)
            func.blocks.append(block)
            continue
        if block is None:
            cur.fail("an instruction before the first label")
        inst = parse_inst(cur, machine)
        for d in inst.defs:
            func.vclass[d.vreg] = (d.cls, d.ref)
        block.insts.append(inst)
    if machine is None:
        raise BadInput("no machine block")
    if func is not None:
        raise BadInput("func %s has no 'end'" % func.name)
    if not funcs:
        raise BadInput("no function")
    return machine, funcs


# ---------------------------------------------------------------------------
# Analyses

def successors(func, index):
    """Block index -> successor indices."""
    succ = []
    for b in func.blocks:
        term = b.insts[-1] if b.insts else None
        if term is None or term.kind not in ("jump", "br", "ret"):
            raise BadInput("block %s has no terminator" % b.name)
        succ.append([index[label] for label, _ in term.targets])
    return succ


def inst_uses(inst, with_args=True):
    """The vregs an instruction reads (block arguments included for terminators)."""
    vs = [u.vreg for u in inst.uses()]
    if with_args:
        for _, args in inst.targets:
            vs.extend(args)
    return vs


def liveness(func, succ):
    """live_after[b][i]: the vregs live right after instruction i of block b."""
    n = len(func.blocks)
    with_args = BUG != "stackmap"
    live_in = [set() for _ in range(n)]
    changed = True
    while changed:
        changed = False
        for bi in range(n - 1, -1, -1):
            b = func.blocks[bi]
            live = set()
            for s in succ[bi]:
                live |= live_in[s]
            for inst in reversed(b.insts):
                live -= {d.vreg for d in inst.defs}
                live |= set(inst_uses(inst, with_args))
            live -= {p[0] for p in b.params}
            if live != live_in[bi]:
                live_in[bi] = live
                changed = True
    result = []
    for bi, b in enumerate(func.blocks):
        live = set()
        for s in succ[bi]:
            live |= live_in[s]
        after = [None] * len(b.insts)
        for i in range(len(b.insts) - 1, -1, -1):
            after[i] = set(live)
            inst = b.insts[i]
            live -= {d.vreg for d in inst.defs}
            live |= set(inst_uses(inst, with_args))
        result.append(after)
    return result


# ---------------------------------------------------------------------------
# Allocation

class Allocator:
    def __init__(self, machine, func):
        self.m, self.f = machine, func
        self.home = {}          # vreg -> home slot
        for b in func.blocks:
            for v, _, _ in b.params:
                self.slot(v)
            for inst in b.insts:
                for d in inst.defs:
                    self.slot(d.vreg)
        self.ntemp = len(self.home)   # temporaries for parallel copies come after the homes
        self.out = []           # lines of the allocated function

    def slot(self, v):
        if v not in self.home:
            self.home[v] = len(self.home)
        return self.home[v]

    def is_ref(self, v):
        return self.f.vclass[v][1]

    def vcls(self, v):
        if v not in self.f.vclass:
            raise BadInput("v%d is used but defined nowhere" % v)
        return self.f.vclass[v][0]

    def emit(self, text):
        self.out.append("  " + text)

    def scratch(self, v):
        regs = self.m.allocatable.get(self.vcls(v))
        if not regs:
            raise Decline("class %s has no allocatable register" % self.vcls(v))
        return regs[0]

    # -- parallel copies of an edge, slot to slot through a register ------

    def edge_copies(self, pairs, cache):
        """pairs: [(param, arg)]. Copies each arg's home into its param's
        home, all reads before all writes (a temporary slot breaks cycles).
        A value the cache holds in a register is spilled from there.
        Requires: cache exact (register -> the vreg it holds); no operand
        of the block's terminator is still to be read (a jump has none)."""
        self.cache = cache
        moves = []
        for p, a in pairs:
            dst, src = self.slot(p), self.slot(a)
            if dst != src:
                moves.append([dst, src, a])
        if BUG == "parmove":
            for dst, src, a in moves:
                self.copy_slot(dst, src, a)
            return
        while moves:
            srcs = {mv[1] for mv in moves}
            ready = [mv for mv in moves if mv[0] not in srcs]
            if ready:
                mv = ready[0]
                self.copy_slot(mv[0], mv[1], mv[2])
                moves.remove(mv)
                continue
            # every destination is still read: save one of them
            dst, _, _ = moves[0]
            temp = self.ntemp
            self.ntemp += 1
            reader = next(mv for mv in moves if mv[1] == dst)
            self.copy_slot(temp, dst, reader[2])
            for mv in moves:
                if mv[1] == dst:
                    mv[1] = temp

    def copy_slot(self, dst, src, v):
        """Slot src holds the value of v; copies it to slot dst."""
        held = [r for r, w in self.cache.items() if w == v]
        if held:
            r = held[0]
        else:
            r = self.scratch(v)
            self.emit("%s = reload s%d" % (r, src))
            self.cache[r] = v
        self.emit("s%d = spill %s" % (dst, r))

    # -- one instruction ------------------------------------------------

    def clobbered(self, inst):
        if inst.clobbers is not None:
            return list(inst.clobbers)
        if inst.kind == "call" and BUG != "clobber":
            return list(self.m.clobbers)
        return []

    def choose(self, cls, avoid, prefer=()):
        regs = [r for r in self.m.allocatable.get(cls, []) if r not in avoid]
        for r in prefer:
            if r in regs:
                return r
        if not regs:
            raise Decline("no free register of class %s" % cls)
        return regs[0]

    def place(self, inst, cache):
        """Chooses a location for every operand of inst (docs/format.md
        section 6 constraints).  Guarantees: fixed operands in their
        register; reuse defs in the register of their use; no two operands
        of different vregs share a register at the early point (uses, early
        defs) or at the late point (late uses, defs); non-fixed registers
        are allocatable, outside every register the instruction fixes, and
        late uses avoid the clobbered registers."""
        uses, defs = inst.uses(), inst.defs
        ops = uses + defs
        clob = set(self.clobbered(inst))
        for o in ops:
            if o.vreg not in self.f.vclass:
                raise BadInput("v%d is used but defined nowhere" % o.vreg)
        if clob or inst.safepoint:
            # S5 of the generator: no late use or early def here; the ones
            # this allocator can still place are allowed
            for o in ops:
                ref = self.is_ref(o.vreg) and inst.safepoint
                if o.is_def and not o.late and ref and o.kind not in ("any", "stack"):
                    raise Decline("an early .ref def in a register at a safepoint")
                if not o.is_def and o.late and o.kind == "fixed" and o.arg in clob:
                    raise Decline("a late use fixed to a clobbered register")
                if not o.is_def and o.late and ref and self.m.gc_moving and o.kind not in ("any", "stack"):
                    raise Decline("a late .ref use in a register at a moving safepoint")
        reused = {}
        for d in defs:
            if d.kind == "reuse":
                if d.arg >= len(uses) or d.arg in reused:
                    raise BadInput("bad reuse(%d)" % d.arg)
                if uses[d.arg].kind == "stack" or uses[d.arg].late or not d.late:
                    raise Decline("reuse(%d) of a use that cannot share the def's register" % d.arg)
                reused[d.arg] = d
        fixed = set()
        busy_e, busy_l = {}, {}     # register -> vreg occupying it at the early / late point

        def occupy(o, r):
            # only early uses of one vreg may share a register
            for at, busy in ((o.early_point(), busy_e), (o.late_point(), busy_l)):
                if not at:
                    continue
                if r in busy and (busy[r] != o.vreg or o.late_point()):
                    raise Decline("register %s wanted twice at one point" % r)
                busy[r] = o.vreg
            o.loc = r

        # fixed operands, stack and any
        for o in ops:
            if o.kind == "fixed":
                if o.arg not in self.m.reg_class:
                    raise BadInput("unknown register '%s'" % o.arg)
                fixed.add(o.arg)
        for o in ops:
            if o.kind == "fixed":
                occupy(o, o.arg)
            elif o.kind in ("any", "stack") and not (not o.is_def and uses.index(o) in reused):
                o.loc = self.slot(o.vreg)
        # spanning register operands: late uses and early defs
        for o in ops:
            if o.loc is None and o.kind != "reuse" and o.spans():
                avoid = fixed | set(busy_e) | set(busy_l)
                if not o.is_def:
                    avoid |= clob
                prefer = [r for r, v in cache.items() if v == o.vreg] if not o.is_def else []
                occupy(o, self.choose(self.vcls(o.vreg), avoid, prefer))
        # early uses: share a register with an earlier use of the same vreg
        for k, o in enumerate(uses):
            if o.loc is not None:
                continue
            same = [u.loc for u in uses[:k] if u.vreg == o.vreg and not u.late and isinstance(u.loc, str)
                    and u.kind != "fixed" and u.loc not in fixed]
            if same and k not in reused:
                occupy(o, same[0])
                continue
            avoid = fixed | {r for r, v in busy_e.items() if v != o.vreg or k in reused}
            if k in reused:
                avoid |= {u.loc for u in uses if isinstance(u.loc, str)}
            prefer = [r for r, v in cache.items() if v == o.vreg]
            occupy(o, self.choose(self.vcls(o.vreg), avoid, prefer))
        # reuse defs take their use's register; then the late defs
        for k, d in reused.items():
            occupy(d, uses[k].loc)
        for d in defs:
            if d.loc is None:
                avoid = fixed | set(busy_l)
                free = [r for r in self.m.allocatable.get(d.cls, []) if r not in cache]
                occupy(d, self.choose(d.cls, avoid, free))

    def instruction(self, inst, cache, live_after):
        self.place(inst, cache)
        uses, defs = inst.uses(), inst.defs
        # reloads: every use in a register that does not hold its value yet
        for o in uses:
            if isinstance(o.loc, str) and cache.get(o.loc) != o.vreg:
                self.emit("%s = reload s%d" % (o.loc, self.slot(o.vreg)))
                cache[o.loc] = o.vreg
        def_regs = {d.loc for d in defs if isinstance(d.loc, str)}
        # what the instruction destroys (section 6 order: early defs,
        # clobbers, safepoint, late defs)
        for r in self.clobbered(inst):
            if r not in def_regs:
                cache.pop(r, None)
        if inst.safepoint:
            for r in [r for r, v in cache.items() if self.is_ref(v)]:
                del cache[r]
            sm = set()
            late_defs = {d.vreg for d in defs if d.late}
            for v in live_after:
                if self.is_ref(v) and v not in late_defs:
                    sm.add(self.slot(v))
            for o in uses:
                if o.late and self.is_ref(o.vreg):
                    sm.add(self.slot(o.vreg))    # read again after the collector
            for d in defs:
                if not d.late and self.is_ref(d.vreg) and isinstance(d.loc, int):
                    sm.add(d.loc)                # written before it
            inst.stackmap = sm
        for r in def_regs:
            cache.pop(r, None)
        for d in defs:
            if isinstance(d.loc, str):
                cache[d.loc] = d.vreg
        self.emit(inst.text())
        # write-through: every def in a register goes to its home at once
        for d in defs:
            if isinstance(d.loc, str):
                self.emit("s%d = spill %s" % (self.slot(d.vreg), d.loc))

    def run(self):
        f = self.f
        index = {}
        for k, b in enumerate(f.blocks):
            if b.name in index:
                raise BadInput("block %s defined twice" % b.name)
            index[b.name] = k
        for b in f.blocks:
            for inst in b.insts:
                for label, _ in inst.targets:
                    if label not in index:
                        raise BadInput("unknown block '%s'" % label)
        succ = successors(f, index)
        npred = [0] * len(f.blocks)
        for s in succ:
            for t in s:
                npred[t] += 1
        live = liveness(f, succ)
        # the edges into each block that a br enters: copies at its start
        br_in = {}
        for b in f.blocks:
            term = b.insts[-1]
            if term.kind == "br":
                for label, args in term.targets:
                    t = index[label]
                    if npred[t] != 1:
                        raise BadInput("critical edge %s -> %s" % (b.name, label))
                    params = f.blocks[t].params
                    if len(params) != len(args):
                        raise BadInput("argument count of the edge %s -> %s" % (b.name, label))
                    br_in[t] = list(zip([p[0] for p in params], args))
        lines = ["func " + f.name]
        for bi, b in enumerate(f.blocks):
            self.out = []
            cache = {}      # register -> the vreg it is known to hold
            if bi in br_in:
                self.edge_copies(br_in[bi], cache)
            for i, inst in enumerate(b.insts):
                if inst.kind == "jump":
                    label, args = inst.targets[0]
                    params = f.blocks[index[label]].params
                    if len(params) != len(args):
                        raise BadInput("argument count of the edge %s -> %s" % (b.name, label))
                    self.edge_copies(list(zip([p[0] for p in params], args)), cache)
                    self.emit(inst.text())
                else:
                    self.instruction(inst, cache, live[bi][i])
            lines.append(b.label())
            lines.extend(self.out)
        lines.append("end")
        return lines


def allocate_module(text):
    machine, funcs = parse_module(text)
    out = list(machine.lines)
    for f in funcs:
        out.append("")
        out.extend(Allocator(machine, f).run())
    return "\n".join(out) + "\n"


def main():
    text = sys.stdin.read()
    try:
        result = allocate_module(text)
    except Decline as e:
        sys.stderr.write("ravel_alloc.py: declined: %s\n" % e)
        return EXIT_DECLINED
    except BadInput as e:
        sys.stderr.write("ravel_alloc.py: error: %s\n" % e)
        return EXIT_BAD_INPUT
    sys.stdout.write(result)
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
