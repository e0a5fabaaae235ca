#!/usr/bin/env python3
"""docs_check.py SRC RAVEL [TARGETS] - the docs stay honest.

The docs are README.md, docs/*.md and the READMEs of reproducers/ and of
each folder of examples/. Each check gives one line per problem; exit
status 1 if there is any.

1. Paths. Every repository path a doc names exists: in inline code, in a
   markdown link, and in a fenced code block, a word with a '/' whose first
   part is a folder or file at the top of the repository (`ir/parse.c`,
   `ci/test.sh`, `tests/checker/cases/x.ra:21:7`). Words with placeholders
   (NAME, KIND, <target>, *, $VAR, ...) are checked up to the placeholder:
   the folder before it must exist.
2. Bare file names. A file name without a folder (`gen_deep.py`,
   `sum.alloc.ra`) in inline code or a code block, with an extension the
   repository's files have, is the name of some file of the repository;
   except placeholders (an upper-case name: `NAME.ra`, `FAILURE.ra`), files
   the same doc writes (`> orig.ra`, `-o small.ra`) and the user's own
   (`my_alloc.py`, `big.ra`: names that start with "my" or "big").
3. Programs. Every program a doc names (`ravel_replay`, `fuzz_*`,
   `bench_*`, `*_server`, `*_cmd`, `jit_example`; `fuzz_alloc_NAME` stands
   for one per allocator of `ravel alloc --list`) is a target of the build
   (TARGETS: the file the build writes, one target per line; `# bench: off`
   when the benchmarks are not configured, whose names are then not
   checked), or an executable of a stand-alone example project
   (examples/*/CMakeLists.txt, built by ci/test.sh against the install).
4. Subcommands. Every `ravel SUBCOMMAND` named in a code block of the
   README is a real subcommand (`ravel SUBCOMMAND --help` exits 0).
5. Commands. The README's quick start runs: each line that starts with `$R`
   (a `fuzz --time N` cut to a few functions) must exit 0. Every other
   `ravel ...` line of a code block of any doc runs too, when it is safe and
   quick: a real subcommand, every file it reads is in the repository or
   was written by an earlier line of the same block, what it writes has no
   folder, no placeholder, no `fuzz` or `bench`, and it reads a file or is
   `gen` (standard input is empty); it runs in a fresh
   directory that links the repository's top-level entries (so the doc's
   relative paths work and what it writes stays there), with no standard
   input, and must exit 0 or 1 (2 is bad usage or an unreadable file). A
   line shown as `$ ravel ...` with its output below must print exactly
   that output.
6. The map. docs/architecture.md names every library the build defines
   (each add_library / ravel_add_library / ravel_public_library of the
   CMake files outside tests/ and the stand-alone example projects) and
   every thread-local variable of the code (`_Thread_local`).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

PLACEHOLDER = re.compile(r"(NAME|KIND|TARGET|FUNC|ENGINE|<[^>]*>|\*|\$|\{|N\.ra|SEED)")
FILE_EXTS = ("py", "sh", "c", "h", "cmake", "def", "dict", "options", "yaml", "txt", "in", "ra", "md", "pc")
BARE_FILE = re.compile(r"(?<![\w/.$-])([\w+-]+(?:\.[\w+-]+)*\.(?:%s))(?![\w/])" % "|".join(FILE_EXTS))
PROGRAM = re.compile(r"(?<![\w.$-])((?:fuzz|bench)_[A-Za-z0-9_]+|ravel_replay|[a-z0-9]+_(?:server|cmd)|jit_example"
                     r"(?:_shared)?)(?![\w.(/])")
OUTPUT = re.compile(r"(?:>|\s-o|--out)\s*=?\s*([\w.+-]+)")


def doc_list(src):
    docs = ["README.md", "reproducers/README.md"]
    docs += [os.path.join("docs", f) for f in sorted(os.listdir(os.path.join(src, "docs"))) if f.endswith(".md")]
    for sub in sorted(os.listdir(os.path.join(src, "examples"))):
        p = os.path.join("examples", sub, "README.md")
        if os.path.exists(os.path.join(src, p)):
            docs.append(p)
    return docs


def fenced_blocks(text):
    """[(lang, [(line number, line), ...])] of the fenced blocks (``` or indented ```)."""
    blocks, cur, lang = [], None, ""
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            if cur is None:
                cur, lang = [], line.strip()[3:].strip()
            else:
                blocks.append((lang, cur))
                cur = None
        elif cur is not None:
            cur.append((n, line))
    return blocks


def inline_code(text):
    return re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S))


def repo_files(src):
    names = set()
    for root, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if not d.startswith("build") and d != ".git"]
        names.update(files)
    return names


class Checker:
    def __init__(self, src, ravel, targets):
        self.src, self.ravel, self.targets_file = src, ravel, targets
        self.problems = []
        # the repository's top-level entries (not build folders: `build-rel/...` in a doc is the user's)
        self.top = {e for e in os.listdir(src) if not e.startswith("build")}
        self.docs = doc_list(src)
        self.texts = {d: open(os.path.join(src, d), encoding="utf-8").read() for d in self.docs}
        self.subcommands = {}

    def fail(self, msg):
        self.problems.append(msg)

    # ---- 1. paths ----
    def check_path(self, doc, word):
        word = re.sub(r"(:\d+)+$", "", word.rstrip(".,:;)"))
        if word.startswith("./"):
            word = word[2:]
        first = word.split("/", 1)[0]
        if first not in self.top:
            return
        m = PLACEHOLDER.search(word)
        if m:
            word = word[: m.start()].rsplit("/", 1)[0]
            if not word:
                return
        if not os.path.exists(os.path.join(self.src, word)):
            self.fail("%s names `%s`, which does not exist" % (doc, word))

    def paths(self):
        for doc, text in self.texts.items():
            for w in re.findall(r"`([^`\s]+/[^`\s]*)`", text):
                self.check_path(doc, w)
            for _, lines in fenced_blocks(text):
                for _, line in lines:
                    for w in re.findall(r"[^\s'\"`(),=<>|]+/[^\s'\"`(),<>|]*", line):
                        self.check_path(doc, w)
            for w in re.findall(r"\]\(([^)#\s]+)\)", text):  # markdown links
                if "://" in w:
                    continue
                if not os.path.exists(os.path.normpath(os.path.join(self.src, os.path.dirname(doc), w))):
                    self.fail("%s links to %s, which does not exist" % (doc, w))

    # ---- 2. bare file names ----
    def bare_names(self):
        files = repo_files(self.src)
        for doc, text in self.texts.items():
            written = set(OUTPUT.findall(text))
            code = inline_code(text) + [l for _, lines in fenced_blocks(text) for _, l in lines]
            for s in code:
                for w in BARE_FILE.findall(s):
                    stem = w.split(".", 1)[0]
                    if w in files or w in written or re.fullmatch(r"[A-Z_]+", stem) or re.match(r"(my|big)", stem):
                        continue
                    self.fail("%s names the file `%s`, which is nowhere in the repository" % (doc, w))
                    files.add(w)  # once per name

    # ---- 6. the map ----
    def architecture(self):
        arch = open(os.path.join(self.src, "docs", "architecture.md"), encoding="utf-8").read()
        libs, tls = set(), set()
        standalone = {os.path.join(self.src, "examples", "kit")}
        for root, dirs, files in os.walk(self.src):
            rel = os.path.relpath(root, self.src)
            dirs[:] = [d for d in dirs if not d.startswith((".", "build")) and d != "tests"
                       and os.path.join(root, d) not in standalone and not (rel == "." and d == "out")]
            for f in files:
                path = os.path.join(root, f)
                if f == "CMakeLists.txt" or f.endswith(".cmake"):
                    text = re.sub(r"#.*", "", open(path, encoding="utf-8").read())
                    libs.update(re.findall(r"(?:ravel_add_library|ravel_public_library|add_library)\(\s*([A-Za-z]\w*)", text))
                elif f.endswith((".c", ".h")):
                    text = open(path, encoding="utf-8", errors="replace").read()
                    tls.update(re.findall(r"_Thread_local[^;=]*?\b(\w+)\s*[;=]", text))
        for name in sorted(libs):
            if not re.search(r"`%s`" % re.escape(name), arch):
                self.fail("docs/architecture.md does not name the library `%s`" % name)
        for name in sorted(tls):
            if not re.search(r"`%s`" % re.escape(name), arch):
                self.fail("docs/architecture.md does not name the thread-local `%s`" % name)
        self.map_counts = (len(libs), len(tls))

    # ---- 3. programs ----
    def allocators(self):
        r = subprocess.run([self.ravel, "alloc", "--list"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        names = [l.split()[0] for l in r.stdout.decode().splitlines() if l.strip()]
        if not names:
            self.fail("ravel alloc --list lists no allocator")
        return names

    def example_programs(self):
        progs = set()
        for root, dirs, files in os.walk(os.path.join(self.src, "examples")):
            if "CMakeLists.txt" in files:
                text = open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8").read()
                progs.update(re.findall(r"add_executable\(\s*([\w-]+)", text))
        return progs

    def programs(self):
        if not self.targets_file:
            return
        lines = open(self.targets_file, encoding="utf-8").read().splitlines()
        built = {l.strip() for l in lines if l.strip() and not l.startswith("#")}
        bench_off = "# bench: off" in lines
        known = built | self.example_programs()
        allocs = self.allocators()
        for doc, text in self.texts.items():
            code = inline_code(text) + [l for _, lines_ in fenced_blocks(text) for _, l in lines_]
            named = {w for s in code for w in PROGRAM.findall(s)}
            for w in sorted(named):
                if bench_off and w.startswith("bench_"):
                    continue
                want = ["fuzz_alloc_" + a for a in allocs] if w == "fuzz_alloc_NAME" else [w]
                for p in want:
                    if p not in known:
                        self.fail("%s names the program `%s`, which is not built (no such target)" % (doc, p))

    # ---- 4. subcommands ----
    def is_subcommand(self, s):
        if s not in self.subcommands:
            r = subprocess.run([self.ravel, s, "--help"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.subcommands[s] = r.returncode == 0 and not s.startswith("-")
        return self.subcommands[s]

    def readme_subcommands(self):
        subs = set()
        for lang, lines in fenced_blocks(self.texts["README.md"]):
            if lang not in ("", "sh", "bash", "console"):
                continue
            for _, line in lines:
                line = line.strip().lstrip("$ ")
                m = re.match(r"(?:\S*/)?ravel\s+([a-z-]+)", line)
                if m and not line.startswith("ravel_"):
                    subs.add(m.group(1))
                m = re.match(r"\$R\s+([a-z-]+)", line)
                if m:
                    subs.add(m.group(1))
        for s in sorted(subs):
            if not self.is_subcommand(s):
                self.fail("README runs `ravel %s`, which is not a subcommand" % s)

    # ---- 5. commands ----
    def run(self, cmd, cwd):
        try:
            return subprocess.run(cmd, shell=True, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, timeout=120)
        except subprocess.TimeoutExpired:
            return None

    def quick_start(self, tmp):
        quick = [lines for _, lines in fenced_blocks(self.texts["README.md"])
                 if any("R=build/cli/ravel" in l for _, l in lines)]
        if not quick:
            self.fail("README: the quick start block (R=build/cli/ravel) is gone")
        for lines in quick:
            for _, line in lines:
                if not line.startswith("$R "):
                    continue
                cmd = line.split("#", 1)[0].strip()
                cmd = re.sub(r"fuzz --time \d+", "fuzz -n 5 -j 1 -q -o %s/ravel-docs-fuzz" % tmp, cmd)
                cmd = cmd.replace("/tmp/", tmp.rstrip("/") + "/")
                r = self.run(cmd.replace("$R", shlex.quote(self.ravel), 1), self.src)
                if r is None or r.returncode != 0:
                    out = "" if r is None else (r.stdout + r.stderr).decode(errors="replace")[-800:]
                    self.fail("README quick start: `%s` exits %s:\n%s" % (line.strip(), "(timeout)" if r is None
                                                                          else r.returncode, out))

    def runnable(self, words, written):
        """The command line to run for ravel's arguments `words`, or None if
        it is not safe and quick (see the module's comment)."""
        if not words or not self.is_subcommand(words[0]) or words[0] in ("fuzz", "bench"):
            return None
        out, reads, prev = [], 0, ""
        for w in words:
            if w in ("|", "&&", ";", "<") or re.search(r"[A-Z]{3,}|\{\}|crash-|[;()]", w):
                return None
            if prev in (">", "-o", "--out"):
                if "/" in w:
                    return None
                out.append(w)
            elif not w.startswith("-") and ("/" in w or re.search(r"\.\w+$", w)) and not re.fullmatch(r"[\d.,]+", w):
                if not (os.path.exists(os.path.join(self.src, w)) or w in written):
                    return None
                reads += 1
            prev = w
        if not reads and words[0] != "gen":  # (stdin is empty: a command must read a file, or be gen)
            return None
        written.update(out)
        return " ".join([shlex.quote(self.ravel)] + [w if w == ">" else shlex.quote(w) for w in words])

    def block_commands(self, doc, lines):
        """[(line number, words, expected output or None)] of the ravel lines of a block."""
        cmds, k = [], 0
        while k < len(lines):
            n, line = lines[k]
            s = line.strip()
            while s.endswith("\\") and k + 1 < len(lines):
                k += 1
                s = s[:-1] + " " + lines[k][1].strip()
            prompt = s.startswith("$ ")
            s = s[2:] if prompt else s
            expected = None
            if prompt:
                expected = []
                while k + 1 < len(lines) and not lines[k + 1][1].startswith("$ "):
                    k += 1
                    expected.append(lines[k][1].rstrip())
            k += 1
            if not re.match(r"ravel\s", s):
                continue
            try:
                words = shlex.split(s, comments=True)[1:]
            except ValueError:
                continue
            cmds.append((n, words, expected))
        return cmds

    def doc_commands(self, tmp):
        ran = []
        for doc, text in self.texts.items():
            for _, lines in fenced_blocks(text):
                cwd = tempfile.mkdtemp(dir=tmp)
                for e in self.top:
                    os.symlink(os.path.join(self.src, e), os.path.join(cwd, e))
                written = set()
                for n, words, expected in self.block_commands(doc, lines):
                    cmd = self.runnable(words, written)
                    if cmd is None:
                        continue
                    ran.append("%s:%d" % (doc, n))
                    r = self.run(cmd, cwd)
                    where = "%s:%d: `ravel %s`" % (doc, n, " ".join(words))
                    if r is None or r.returncode not in (0, 1):
                        err = "" if r is None else r.stderr.decode(errors="replace")[-600:]
                        self.fail("%s exits %s\n%s" % (where, "(timeout)" if r is None else r.returncode, err))
                    elif expected is not None:
                        got = [l.rstrip() for l in r.stdout.decode(errors="replace").splitlines()]
                        if got != expected:
                            self.fail("%s prints:\n%s\nbut the doc shows:\n%s" % (where, "\n".join(got),
                                                                                    "\n".join(expected)))
        return ran


def main():
    if len(sys.argv) not in (3, 4):
        print("usage: docs_check.py SRC RAVEL [TARGETS]", file=sys.stderr)
        return 2
    c = Checker(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None)
    tmp = tempfile.mkdtemp(prefix="ravel-docs-", dir=os.environ.get("TMPDIR", "/tmp"))
    try:
        c.paths()
        c.architecture()
        c.bare_names()
        c.programs()
        c.readme_subcommands()
        c.quick_start(tmp)
        ran = c.doc_commands(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for p in c.problems:
        print("FAIL: " + p)
    print("%d docs checked, %d of their commands run (%s), %d libraries and %d thread-locals on the map, %d problems"
          % (len(c.docs), len(ran), ", ".join(ran), c.map_counts[0], c.map_counts[1], len(c.problems)))
    return 1 if c.problems else 0


if __name__ == "__main__":
    sys.exit(main())
