#!/usr/bin/env python3
"""shape_lint.py - the shape bars of docs/architecture.md, held by a test.

  python3 shape_lint.py SOURCE_DIR

Over the library and the CLI (ir/ checker/ allocator/ inject/ fuzz/ reduce/
import/ export/ cli/), fails on:
  - a file of more than MAX_FILE lines;
  - a function body of more than MAX_FUNC lines (a body is a '{' in column 0
    to the next '}' in column 0: the house style puts a function's braces
    there, and only there);
  - a struct with more than MAX_FIELDS members at its top level (a member is
    a ';' at depth 1 of a 'struct NAME {' / 'typedef struct NAME {' block that
    opens in column 0; nested sub-structs count as one member).
Prints one FILE:LINE: line per finding and a count.
"""
import os
import sys

MAX_FILE, MAX_FUNC, MAX_FIELDS = 900, 100, 30
DIRS = ("ir", "checker", "allocator", "inject", "fuzz", "reduce", "import", "export", "cli")


def sources(root):
    for d in DIRS:
        for dp, _, names in os.walk(os.path.join(root, d)):
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    yield os.path.join(dp, n)


def struct_fields(lines, start):
    """Members at depth 1 of the struct opening at lines[start]; its end."""
    depth, count = 0, 0
    for i in range(start, len(lines)):
        code = lines[i].split("//")[0]
        for ch in code:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return count, i
            elif ch == ";" and depth == 1:
                count += 1
    return count, len(lines)


def lint(path, rel, out):
    with open(path, encoding="utf-8", errors="replace") as fh:
        lines = fh.read().split("\n")
    if len(lines) - 1 > MAX_FILE:
        out.append(f"{rel}:1: {len(lines) - 1} lines (at most {MAX_FILE})")
    body = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(("struct ", "typedef struct ")) and line.rstrip().endswith("{"):
            n, end = struct_fields(lines, i)
            if n > MAX_FIELDS:
                out.append(f"{rel}:{i + 1}: struct with {n} top-level fields (at most {MAX_FIELDS})")
            i = end + 1
            continue
        if line.startswith("{") and body is None:
            body = i
        elif line.startswith("}") and body is not None:
            if i - body + 1 > MAX_FUNC:
                out.append(f"{rel}:{body + 1}: function body of {i - body + 1} lines (at most {MAX_FUNC})")
            body = None
        i += 1


def main():
    if len(sys.argv) != 2:
        print("usage: shape_lint.py SOURCE_DIR", file=sys.stderr)
        return 2
    root = sys.argv[1]
    out, n = [], 0
    for path in sources(root):
        lint(path, os.path.relpath(path, root), out)
        n += 1
    for line in out:
        print(line)
    print(f"shape_lint: {n} files, {len(out)} over the bars")
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main())
