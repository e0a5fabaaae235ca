#!/usr/bin/env python3
"""docs_check.py SRC RAVEL - the docs stay honest.

1. Every repository path a doc names in backticks (README.md, docs/*.md, the
   READMEs of examples/, reproducers/ and corpus/) exists: a path is a
   backticked word with a '/' whose first part is a folder or file at the
   top of the repository (`ir/parse.c`, `ci/test.sh`, `tests/checker/cases/`).
   Words with placeholders (NAME, KIND, <target>, *, $VAR, BUILD/, PREFIX/)
   are checked up to the placeholder: the folder before it must exist.
2. Every `ravel SUBCOMMAND` and `ravel_replay` named in a code block of the
   README is a real subcommand (`ravel SUBCOMMAND --help` exits 0).
3. The README's quick start block runs: each line that starts with `$R` is
   run from SRC (with `$R` the ravel under test; a `fuzz --time N` is cut to
   a few functions), and must exit as its comment says (0 unless it is
   meant to find something).
Exit status 1 and one line per problem when something is gone.
"""
import os
import re
import subprocess
import sys

src, ravel = sys.argv[1], sys.argv[2]
problems = []
docs = ["README.md", "reproducers/README.md"]
for d in ("docs",):
    docs += [os.path.join(d, f) for f in sorted(os.listdir(os.path.join(src, d))) if f.endswith(".md")]
for d in ("examples",):
    for sub in sorted(os.listdir(os.path.join(src, d))):
        p = os.path.join(d, sub, "README.md")
        if os.path.exists(os.path.join(src, p)):
            docs.append(p)
top = set(os.listdir(src))
PLACEHOLDER = re.compile(r"(NAME|KIND|TARGET|FUNC|ENGINE|<[^>]*>|\*|\$|\{|N\.ra|SEED)")


def check_path(doc, word):
    word = word.rstrip(".,:;)")
    if word.startswith("./"):
        word = word[2:]
    first = word.split("/", 1)[0]
    if first not in top or first in ("build",):
        return
    m = PLACEHOLDER.search(word)
    if m:
        word = word[: m.start()].rsplit("/", 1)[0]
        if not word:
            return
    if not os.path.exists(os.path.join(src, word)):
        problems.append("%s names `%s`, which does not exist" % (doc, word))


for doc in docs:
    text = open(os.path.join(src, doc), encoding="utf-8").read()
    for w in re.findall(r"`([^`\s]+/[^`\s]*)`", text):
        check_path(doc, w)
    for w in re.findall(r"\]\(([^)#\s]+)\)", text):  # markdown links
        if "://" in w:
            continue
        base = os.path.dirname(doc)
        if not os.path.exists(os.path.normpath(os.path.join(src, base, w))):
            problems.append("%s links to %s, which does not exist" % (doc, w))

readme = open(os.path.join(src, "README.md"), encoding="utf-8").read()
blocks, cur, lang = [], None, ""
for line in readme.splitlines():  # fenced blocks, line by line: ```LANG ... ```
    if line.startswith("```"):
        if cur is None:
            cur, lang = [], line[3:].strip()
        else:
            if lang in ("", "sh", "bash", "console"):
                blocks.append("\n".join(cur))
            cur = None
    elif cur is not None:
        cur.append(line)
subs = set()
for b in blocks:
    for line in b.splitlines():
        line = line.strip().lstrip("$ ")
        m = re.match(r"(?:\S*/)?ravel\s+([a-z-]+)", line)
        if m and not line.startswith("ravel_"):
            subs.add(m.group(1))
        m = re.match(r"\$R\s+([a-z-]+)", line)
        if m:
            subs.add(m.group(1))
for s in sorted(subs):
    if subprocess.run([ravel, s, "--help"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
        problems.append("README runs `ravel %s`, which is not a subcommand" % s)

# 3. the quick start
quick = [b for b in blocks if "R=build/cli/ravel" in b]
if not quick:
    problems.append("README: the quick start block (R=build/cli/ravel) is gone")
tmp = os.environ.get("TMPDIR", "/tmp")
for b in quick:
    for line in b.splitlines():
        if not line.startswith("$R "):
            continue
        cmd = line.split("#", 1)[0].strip()
        cmd = re.sub(r"fuzz --time \d+", "fuzz -n 5 -j 1 -q -o %s/ravel-docs-fuzz" % tmp, cmd)
        cmd = cmd.replace("/tmp/", tmp.rstrip("/") + "/")
        r = subprocess.run(cmd.replace("$R", ravel, 1), shell=True, cwd=src, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        if r.returncode != 0:
            problems.append("README quick start: `%s` exits %d:\n%s" % (line.strip(), r.returncode,
                                                                        r.stdout.decode(errors="replace")[-800:]))

for p in problems:
    print("FAIL: " + p)
print("%d docs checked, %d problems" % (len(docs), len(problems)))
sys.exit(1 if problems else 0)
