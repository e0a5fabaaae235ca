#!/usr/bin/env python3
"""oneshot.py - a one-shot external allocator in Python (ravel-alloc protocol 1,
docs/protocol.md): the module on stdin, `$RAVEL alloc -a linear` on it, the
allocated module on stdout; exit 3 (declined) for functions with more than
--max-insts instructions, if given."""
import os
import subprocess
import sys

def main():
    text = sys.stdin.buffer.read()
    if "--max-insts" in sys.argv:
        limit = int(sys.argv[sys.argv.index("--max-insts") + 1])
        body = text.split(b"\nfunc ", 1)[1]
        ninsts = sum(1 for l in body.splitlines() if l.startswith(b"  "))
        if ninsts > limit:
            sys.stderr.write("oneshot.py: %d instructions, more than %d\n" % (ninsts, limit))
            return 3
    p = subprocess.run([os.environ["RAVEL"], "alloc", "-a", "linear", "-"], input=text, capture_output=True)
    sys.stdout.buffer.write(p.stdout)
    sys.stderr.buffer.write(p.stderr)
    return p.returncode

if __name__ == "__main__":
    sys.exit(main())
