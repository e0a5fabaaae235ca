#!/usr/bin/env python3
"""llvm-mutate.py - the MIR-level mutation study of issue 31 (docs/import.md,
"The mutation study"): is the import + check of LLVM's allocations vacuous?

Takes llc's printouts of functions that import and verify (TAG.mir,
DUMPS.txt, POST.mir: what `ravel import-mir run --keep` leaves in DIR/llvm/),
splits them into one unit per function, and applies to each unit, one at a
time, six mutations of the allocation LLVM printed:

  rename   one allocator-assigned register operand (`renamable $X`) names
           another register of the same width
  drop     a spill or a reload (a MOV to or from a spill slot) is deleted
  remat    a rematerialised constant (an immediate MOV the allocator
           inserted) changes by one
  narrow   a spill stores half of its register (MOV64mr -> MOV32mr,
           MOV32mr -> MOV16mr, MOVSDmr -> MOVSSmr)
  swap     two adjacent COPYs trade places
  call     a callee-saved register that holds a value across a call is
           renamed, everywhere in the function, to a caller-saved one the
           function does not use

Each mutation edits the printout after the allocator (the dump after the
rewriter, or after regallocfast, and POST.mir, which print the same
instructions in the same order) and, where the instruction exists there,
the dump before the rewriter (same slot index), so that the texts stay one
consistent allocation. The mutated unit is joined with `ravel import-mir
join --check` and classified:

  caught   an import error (the importer found the allocation inconsistent)
           or a rejection by the checker
  refused  the importer refused the mutated function (not counted as either)
  missed   imported and verified; then `ravel run --compare FUNC.orig.ra
           FUNC.ra` runs both forms on random inputs: "wrong" if they differ
           (a checker or importer bug: the count must be 0), "same" if they
           agree, "no run" if the interpreter cannot run the original

usage:
  llvm-mutate.py [--ravel PATH] [--seed S] [--max N] [--out DIR]
                 [--json FILE] UNITDIR...
  UNITDIR  a directory holding one TAG.mir, DUMPS.txt and POST.mir (the
           fixtures' NAME.ALLOC/, or DIR/llvm/ of `run --keep`); its
           allocator is the nearest path component that is ALLOC or ends
           in .ALLOC or -ALLOC, else --alloc's
  --alloc A   the allocator of directories whose name does not end in one
  --max N     at most N functions (default 1000)
  --seed S    the choice of site per function and mutation (default 1)
  --out DIR   keep every missed mutation (texts, .ra files, verdicts) there
  --json F    the table as JSON
exit status: 0 no missed-and-wrong mutation, 1 some, 2 bad usage
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

ALLOCS = ("greedy", "basic", "pbqp", "fast")
MUTATIONS = ("rename", "drop", "remat", "narrow", "swap", "call")

# x86-64 GPR families: 64, 32, 16, 8-bit low names (and the high byte).
ROWS = [("rax", "eax", "ax", "al", "ah"), ("rcx", "ecx", "cx", "cl", "ch"), ("rdx", "edx", "dx", "dl", "dh"),
        ("rbx", "ebx", "bx", "bl", "bh"), ("rsi", "esi", "si", "sil", None), ("rdi", "edi", "di", "dil", None),
        ("rbp", "ebp", "bp", "bpl", None), ("rsp", "esp", "sp", "spl", None)]
ROWS += [("r%d" % i, "r%dd" % i, "r%dw" % i, "r%db" % i, None) for i in range(8, 16)]
FAMILY = {}
for _r, _row in enumerate(ROWS):
    for _w, _n in enumerate(_row):
        if _n:
            FAMILY[_n] = (_r, _w)
ROWNO = {row[0]: i for i, row in enumerate(ROWS)}
CALLEE_SAVED = ("rbx", "r12", "r13", "r14", "r15")
CALLER_SAVED = ("rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11")
SPILL_MOV = re.compile(r"^V?MOV(8|16|32|64|SS|SD|APS|APD|UPS|UPD|DQA|DQU)(mr|rm)$")
REMAT_MOV = ("MOV32ri", "MOV64ri", "MOV64ri32", "MOV32ri64", "MOV16ri", "MOV8ri")
NARROW = {"MOV64mr": ("MOV32mr", 1, "s32"), "MOV32mr": ("MOV16mr", 2, "s16"), "MOVSDmr": ("MOVSSmr", None, "s32")}
REG = re.compile(r"\$([a-z][a-z0-9]*)\b")


# ----- the texts, split per function -----
def yaml_docs(text):
    """The IR document (up to its '...') and {function name: its document}."""
    lines = text.splitlines(keepends=True)
    end = next(i for i, l in enumerate(lines) if l.startswith("..."))
    head = "".join(lines[:end + 1])
    docs, cur = {}, None
    for l in lines[end + 1:]:
        if l.startswith("---"):
            cur = [l]
            continue
        if cur is None:
            continue
        cur.append(l)
        if l.startswith("..."):
            name = next((re.match(r"name:\s+'?([^'\s]+)", x).group(1) for x in cur if x.startswith("name:")), None)
            if name:
                docs[name] = "".join(cur)
            cur = None
    return head, docs


def dump_sections(text):
    """{function name: [its sections of the dumps, in order]}."""
    out, cur = {}, None
    for l in text.splitlines(keepends=True):
        if l.startswith("# *** IR Dump"):
            cur = [l]
            continue
        if cur is None:
            continue
        if len(cur) == 1:
            m = re.match(r"# Machine code for function ([^:]+):", l)
            out.setdefault(m.group(1) if m else "?", []).append(cur)
        cur.append(l)
    return {k: ["".join(s) for s in v] for k, v in out.items()}


def units_of(d, alloc):
    """The units of a directory: (name, alloc, tag, dumps, post)."""
    files = os.listdir(d)
    pick = lambda suf: next((os.path.join(d, f) for f in sorted(files) if f.endswith(suf)), None)
    tag, dumps, post = pick(".tag.mir"), pick(".dumps.txt"), pick(".post.mir")
    if not (tag and dumps and post):
        return []
    th, tdocs = yaml_docs(open(tag).read())
    ph, pdocs = yaml_docs(open(post).read())
    secs = dump_sections(open(dumps).read())
    out = []
    for name in tdocs:
        if name in pdocs and name in secs and len(secs[name]) == 2:
            out.append((name, alloc, th + tdocs[name], secs[name], ph + pdocs[name]))
    return out


# ----- one unit's instructions -----
DUMP_LINE = re.compile(r"^(\d+B\t)?(  )(\S.*)$", re.S)


def dump_inst(l):
    """(slot or None, prefix, text) of a dump line holding an instruction
    (with a slot index, `1216B\t  ...`, or without, as at -O0: `  ...`),
    else None."""
    m = DUMP_LINE.match(l)
    if not m or re.match(r"(liveins|successors):", m.group(3)):
        return None
    return (int(m.group(1)[:-2]) if m.group(1) else None), (m.group(1) or "") + m.group(2), m.group(3)


def dump_body(lines):
    """The indexes of the instruction lines of a dump section (after its
    first block header: the frame objects above are indented too)."""
    out, body = [], False
    for i, l in enumerate(lines):
        if re.match(r"^(\d+B\t)?bb\.\d+", l):
            body = True
        elif body and dump_inst(l):
            out.append(i)
    return out


def head(text):
    """The operands of an instruction: up to its debug location, memory operands or comment."""
    for stop in (", debug-location", " debug-location", " :: ", ";"):
        k = text.find(stop)
        if k >= 0:
            text = text[:k]
    return text


def opcode(text):
    h = head(text)
    rhs = h.split(" = ", 1)[1] if " = " in h else h
    words = [w for w in rhs.split() if w not in ("nsw", "nuw", "exact", "nofpexcept", "nneg", "disjoint", "contract",
                                                  "afn", "reassoc", "nsz", "arcp", "ninf", "nnan", "fast")]
    return words[0].rstrip(",") if words else ""


class Unit:
    """A function's texts as lines: the dump before (greedy family, or the
    input of fast), the dump after, and POST.mir; the instructions of the
    dump after, each with its line there and in POST.mir."""

    def __init__(self, name, alloc, tag, secs, post):
        self.name, self.alloc, self.tag = name, alloc, tag
        self.before = secs[0].splitlines(keepends=True)
        self.after = secs[1].splitlines(keepends=True)
        self.post = post.splitlines(keepends=True)
        self.insts = []  # (slot, index in after, index in post)
        pin = self.post_insts()
        ain = [(dump_inst(self.after[i])[0], i) for i in dump_body(self.after)]
        self.ok = len(ain) == len(pin)
        if self.ok:
            self.insts = [(s, a, p) for (s, a), p in zip(ain, pin)]
        self.slot_before = {}
        if alloc != "fast":
            for i in dump_body(self.before):
                slot = dump_inst(self.before[i])[0]
                if slot is not None:
                    self.slot_before[slot] = i
        self.spill_slots = set(int(x) for x in re.findall(r"- \{ id: (\d+), name: '', type: spill-slot", post))

    def post_insts(self):
        out, body = [], False
        for i, l in enumerate(self.post):
            if l.startswith("body:"):
                body = True
                continue
            if not body:
                continue
            if l.startswith("..."):
                break
            s = l.strip()
            if l.startswith("    ") and s and not re.match(r"(liveins|successors):", s) and not s.startswith(";"):
                out.append(i)
        return out

    def text(self, where, i):
        lines = self.after if where == "after" else self.post if where == "post" else self.before
        return dump_inst(lines[i])[2] if where != "post" else lines[i].strip()

    def block_of(self, k):
        """The block number of instruction k (the dump after's headers)."""
        a = self.insts[k][1]
        for i in range(a, -1, -1):
            m = re.match(r"^(?:\d+B\t)?bb\.(\d+)", self.after[i])
            if m:
                return int(m.group(1))
        return -1

    def write(self, d):
        os.makedirs(d, exist_ok=True)
        open(os.path.join(d, "u.tag.mir"), "w").write(self.tag)
        open(os.path.join(d, "u.dumps.txt"), "w").write("".join(self.before) + "".join(self.after))
        open(os.path.join(d, "u.post.mir"), "w").write("".join(self.post))


def replace_line(lines, i, old, new):
    l = lines[i]
    k = l.find(old)
    assert k >= 0, (l, old)
    lines[i] = l[:k] + new + l[k + len(old):]


def edit_head(lines, i, fn):
    """Applies fn to the operands part of line i (the rest kept)."""
    l = lines[i]
    pre = l[:len(l) - len(l.lstrip())]
    m = re.match(r"^\d+B\t  ", l)
    if m:
        pre = m.group(0)
    l = l[len(pre):]
    h = head(l)
    lines[i] = pre + fn(h) + l[len(h):]


# ----- the mutations: sites(u) lists where, apply(u, site, rng) edits u -----
def rename_sites(u):
    out = []
    for k, (s, a, p) in enumerate(u.insts):
        h = head(u.text("after", a))
        uses = h.split(" = ", 1)[1] if " = " in h else h
        off = len(h) - len(uses)
        for m in re.finditer(r"renamable \$([a-z0-9]+)", uses):
            if m.group(1) in FAMILY and FAMILY[m.group(1)][1] < 4 and not m.group(1).startswith(("rsp", "esp", "sp")):
                out.append((k, off + m.start(1) - 1, m.group(1)))
    return out


def rename_apply(u, site, rng):
    k, at, reg = site
    s, a, p = u.insts[k]
    h = head(u.text("after", a))
    used = {FAMILY[x][0] for x in REG.findall(h) if x in FAMILY}
    row, w = FAMILY[reg]
    cands = [r for r in range(len(ROWS)) if r not in used and ROWS[r][0] not in ("rsp", "rbp") and ROWS[r][w]]
    if not cands:
        return False
    new = ROWS[rng.choice(cands)][w]
    nth = len(re.findall(r"\$" + reg + r"\b", h[:at]))
    def sub(text):
        ms = list(re.finditer(r"\$" + reg + r"\b", text))
        m = ms[nth]
        return text[:m.start()] + "$" + new + text[m.end():]
    edit_head(u.after, a, sub)
    edit_head(u.post, p, sub)
    return True


def spill_slot(u, text):
    m = re.search(r"%stack\.(\d+)\b", head(text))
    return m and int(m.group(1)) in u.spill_slots


def drop_sites(u):
    return [k for k, (s, a, p) in enumerate(u.insts)
            if SPILL_MOV.match(opcode(u.text("after", a))) and spill_slot(u, u.text("after", a))]


def drop_apply(u, k, rng):
    s, a, p = u.insts[k]
    op = opcode(u.text("after", a))
    b = u.slot_before.get(s)
    if b is not None and opcode(u.text("before", b)) == op:
        del u.before[b]
    del u.after[a]
    del u.post[p]
    return True


def remat_sites(u):
    if u.alloc == "fast":
        return []
    return [k for k, (s, a, p) in enumerate(u.insts)
            if s is not None and s % 16 and opcode(u.text("after", a)) in REMAT_MOV and re.search(r"(-?\d+)\s*$", head(u.text("after", a)))]


def remat_apply(u, k, rng):
    s, a, p = u.insts[k]
    def sub(h):
        m = re.search(r"(-?\d+)(\s*)$", h)
        return h[:m.start(1)] + str(int(m.group(1)) + 1) + m.group(2)
    edit_head(u.after, a, sub)
    edit_head(u.post, p, sub)
    b = u.slot_before.get(s)
    if b is not None and opcode(u.text("before", b)) == opcode(u.text("after", a)):
        edit_head(u.before, b, sub)
    return True


def narrow_sites(u):
    return [k for k, (s, a, p) in enumerate(u.insts)
            if opcode(u.text("after", a)) in NARROW and spill_slot(u, u.text("after", a))]


def narrow_apply(u, k, rng):
    s, a, p = u.insts[k]
    op = opcode(u.text("after", a))
    new, w, mem = NARROW[op]
    def sub(h):
        h = h.replace(op, new, 1)
        if w is not None:  # the stored register, last operand: its narrower name
            m = list(REG.finditer(h))[-1]
            reg = m.group(1)
            if reg in FAMILY:
                h = h[:m.start()] + "$" + ROWS[FAMILY[reg][0]][w] + h[m.end():]
        return h
    def mem_sub(lines, i):
        lines[i] = re.sub(r"\(store \(s\d+\) into", "(store (%s) into" % mem, lines[i], count=1)
    edit_head(u.after, a, sub)
    mem_sub(u.after, a)
    edit_head(u.post, p, sub)
    mem_sub(u.post, p)
    b = u.slot_before.get(s)
    if b is not None and opcode(u.text("before", b)) == op:
        def sub_before(h):
            if REG.search(h) and list(REG.finditer(h))[-1].end() == len(h.rstrip()):
                return sub(h)  # the stored register is physical here too
            h = h.replace(op, new, 1)
            m = list(re.finditer(r"%(\d+)(:[a-z0-9_]+)?\s*$", h))
            if m and w is not None:
                m = m[-1]
                h = h[:m.start()] + "%" + m.group(1) + ".sub_" + ("32bit" if w == 1 else "16bit") + (m.group(2) or "") + h[m.end():]
            return h
        edit_head(u.before, b, sub_before)
        mem_sub(u.before, b)
    return True


def swap_sites(u):
    """Adjacent distinct COPYs; the allocator's own (untagged) first: swapping
    two originals breaks the tags' order, which the importer reports (S5)."""
    out = []
    for k in range(len(u.insts) - 1):
        a1, a2 = u.insts[k][1], u.insts[k + 1][1]
        t1, t2 = u.text("after", a1), u.text("after", a2)
        if a2 == a1 + 1 and opcode(t1) == "COPY" and opcode(t2) == "COPY" and head(t1) != head(t2):
            out.append(k)
    tagged = lambda k: "debug-location" in u.text("after", u.insts[k][1])
    both = [k for k in out if not tagged(k) and not tagged(k + 1)]
    one = [k for k in out if not tagged(k) or not tagged(k + 1)]
    return both or one or out


def swap_lines(lines, i, j, slotted):
    """Swaps two instructions; a dump's lines keep their slot indexes."""
    if slotted:
        _, p1, t1 = dump_inst(lines[i])
        _, p2, t2 = dump_inst(lines[j])
        lines[i], lines[j] = p1 + t2, p2 + t1
    else:
        lines[i], lines[j] = lines[j], lines[i]


def swap_apply(u, k, rng):
    (s1, a1, p1), (s2, a2, p2) = u.insts[k], u.insts[k + 1]
    swap_lines(u.after, a1, a2, True)
    swap_lines(u.post, p1, p2, False)
    b1, b2 = u.slot_before.get(s1), u.slot_before.get(s2)
    if b1 is not None and b2 is not None:
        swap_lines(u.before, b1, b2, True)
    return True


def rows_used(lines):
    used = set()
    for l in lines:
        l = re.sub(r"<regmask[^>]*>", "", l)
        used |= {FAMILY[x][0] for x in REG.findall(l) if x in FAMILY}
    return used


def call_sites(u):
    """(R, block) where callee-saved R appears before and after a call in one block."""
    out = []
    for r in CALLEE_SAVED:
        names = [n for n in ROWS[ROWNO[r]] if n]
        pat = re.compile(r"\$(" + "|".join(names) + r")\b")
        seen = {}
        for k, (s, a, p) in enumerate(u.insts):
            t = re.sub(r"<regmask[^>]*>", "", head(u.text("after", a)))
            blk = u.block_of(k)
            st = seen.setdefault(blk, [False, False, False])  # R seen, call after it, R after the call
            if opcode(t).startswith("CALL") and st[0]:
                st[1] = True
            elif pat.search(t):
                if st[1]:
                    st[2] = True
                st[0] = True
        if any(v[2] for v in seen.values()):
            out.append(r)
    return out


def call_apply(u, r, rng):
    used = rows_used(u.after) | rows_used(u.post[u.post.index(next(l for l in u.post if l.startswith("body:"))):])
    free = [c for c in CALLER_SAVED if ROWNO[c] not in used]
    if not free:
        return False
    c = ROWS[ROWNO[rng.choice(free)]]
    row = ROWS[ROWNO[r]]
    def sub_line(l):
        parts = re.split(r"(<regmask[^>]*>)", l)
        for i in range(0, len(parts), 2):
            parts[i] = re.sub(r"\$([a-z0-9]+)\b", lambda m: "$" + c[row.index(m.group(1))] if m.group(1) in row and c[row.index(m.group(1))] else m.group(0), parts[i])
        return "".join(parts)
    u.after = [sub_line(l) for l in u.after]
    b = next(i for i, l in enumerate(u.post) if l.startswith("body:"))
    u.post = u.post[:b] + [sub_line(l) for l in u.post[b:]]
    return True


SITES = {"rename": rename_sites, "drop": drop_sites, "remat": remat_sites, "narrow": narrow_sites, "swap": swap_sites,
         "call": call_sites}
APPLY = {"rename": rename_apply, "drop": drop_apply, "remat": remat_apply, "narrow": narrow_apply, "swap": swap_apply,
         "call": call_apply}


# ----- import + check, and the interpreter -----
def join(ravel, alloc, d):
    out = os.path.join(d, "out")
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([ravel, "import-mir", "join", "--alloc", alloc, "--check", os.path.join(d, "u.tag.mir"),
                        os.path.join(d, "u.dumps.txt"), os.path.join(d, "u.post.mir"), "-o", out],
                       capture_output=True, text=True)
    text = p.stdout + p.stderr
    m = re.search(r"imported (\d+), refused (\d+), import errors (\d+)", text)
    if not m or p.returncode == 2:
        return "error", text, out
    imp, ref, err = map(int, m.groups())
    if err:
        return "error", text, out
    if ref:
        return "refused", text, out
    return ("verified" if "rejected 0" in text else "rejected"), text, out


def compare(ravel, out):
    orig = next((os.path.join(out, f) for f in os.listdir(out) if f.endswith(".orig.ra")), None)
    if not orig:
        return "no run"
    p = subprocess.run([ravel, "run", "--compare", orig, orig[:-len(".orig.ra")] + ".ra", "--inputs", "20"],
                       capture_output=True, text=True, timeout=120)
    if p.returncode == 0:
        return "same"
    return "wrong" if p.returncode == 1 and re.search(r"differ|mismatch", p.stdout + p.stderr) else "no run"


def main():
    args = sys.argv[1:]
    ravel, seed, nmax, keep, jout, alloc_opt, dirs = None, 1, 1000, None, None, None, []
    while args:
        a = args.pop(0)
        if a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        if a in ("--ravel", "--seed", "--max", "--out", "--json", "--alloc"):
            if not args:
                print("llvm-mutate.py: %s needs a value" % a, file=sys.stderr)
                return 2
            v = args.pop(0)
            if a == "--ravel": ravel = v
            elif a == "--seed": seed = int(v)
            elif a == "--max": nmax = int(v)
            elif a == "--out": keep = v
            elif a == "--json": jout = v
            else: alloc_opt = v
        elif a.startswith("-"):
            print("llvm-mutate.py: unknown option %s" % a, file=sys.stderr)
            return 2
        else:
            dirs.append(a)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ravel = ravel or next((c for c in (root + "/build-rel/cli/ravel", root + "/build/cli/ravel") if os.access(c, os.X_OK)), None)
    if not ravel or not dirs:
        print("llvm-mutate.py: needs a ravel binary (--ravel) and UNITDIRs", file=sys.stderr)
        return 2
    units = []
    for d in dirs:
        comps = d.rstrip("/").split("/")
        alloc = next((x for c in reversed(comps) for x in ALLOCS if c == x or c.endswith("." + x) or c.endswith("-" + x)), alloc_opt)
        if not alloc:
            print("llvm-mutate.py: %s: which allocator? (--alloc)" % d, file=sys.stderr)
            return 2
        units += units_of(d, alloc)
    table = {m: {"applied": 0, "caught_import": 0, "caught_check": 0, "refused": 0, "missed": 0, "missed_same": 0,
                 "missed_wrong": 0, "missed_norun": 0} for m in MUTATIONS}
    rules = {}  # mutation -> {rule of the import error: count}
    rng = random.Random(seed)
    work = tempfile.mkdtemp(prefix="ravel-mutate-")
    nfun = 0
    try:
        for name, alloc, tag, secs, post in units:
            if nfun >= nmax:
                break
            u0 = Unit(name, alloc, tag, secs, post)
            if not u0.ok:
                continue
            d = os.path.join(work, "u")
            shutil.rmtree(d, ignore_errors=True)
            u0.write(d)
            if join(ravel, alloc, d)[0] != "verified":
                continue  # only functions that import and verify unmutated
            nfun += 1
            if nfun % 50 == 0:
                print("llvm-mutate.py: %d functions" % nfun, file=sys.stderr, flush=True)
            for mut in MUTATIONS:
                u = Unit(name, alloc, tag, secs, post)
                sites = SITES[mut](u)
                if not sites or not APPLY[mut](u, rng.choice(sites), rng):
                    continue
                t = table[mut]
                t["applied"] += 1
                shutil.rmtree(d, ignore_errors=True)
                u.write(d)
                verdict, text, out = join(ravel, alloc, d)
                if verdict == "error":
                    t["caught_import"] += 1
                    r = re.search(r"import error (\S+):", text)
                    rules.setdefault(mut, {}).setdefault(r.group(1) if r else "?", 0)
                    rules[mut][r.group(1) if r else "?"] += 1
                elif verdict == "rejected":
                    t["caught_check"] += 1
                elif verdict == "refused":
                    t["refused"] += 1
                else:
                    t["missed"] += 1
                    how = compare(ravel, out)
                    t[{"same": "missed_same", "wrong": "missed_wrong", "no run": "missed_norun"}[how]] += 1
                    if keep:
                        kd = os.path.join(keep, "%s-%s-%s-%s" % (mut, how.replace(" ", ""), alloc, name))
                        shutil.rmtree(kd, ignore_errors=True)
                        shutil.copytree(d, kd)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d functions (imported and verified unmutated), seed %d" % (nfun, seed))
    print("%-8s %8s %8s %8s %8s %8s %8s %8s %8s" % ("mutation", "applied", "caught", "(import", "check)", "refused", "missed",
                                                   "wrong", "no-run"))
    for m in MUTATIONS:
        t = table[m]
        print("%-8s %8d %8d %8d %8d %8d %8d %8d %8d" % (m, t["applied"], t["caught_import"] + t["caught_check"], t["caught_import"],
                                                       t["caught_check"], t["refused"], t["missed"], t["missed_wrong"],
                                                       t["missed_norun"]))
    for m in MUTATIONS:
        if rules.get(m):
            print("  %s: import errors by rule: %s" % (m, ", ".join("%s %d" % kv for kv in sorted(rules[m].items()))))
    if jout:
        json.dump({"functions": nfun, "seed": seed, "table": table, "import_errors": rules}, open(jout, "w"), indent=1)
    return 1 if any(table[m]["missed_wrong"] for m in MUTATIONS) else 0


if __name__ == "__main__":
    sys.exit(main())
