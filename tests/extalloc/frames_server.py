#!/usr/bin/env python3
"""frames_server.py - a persistent (frames) external allocator for the tests:
ravel-alloc protocol 1 (docs/protocol.md), each function allocated by
`$RAVEL alloc -a linear` in a subprocess.

Misbehaviours on request (K counts functions from 1, in this process):
  --die-after K      exit 1 (with a message on stderr) when function K arrives
  --break-at K       answer function K with a malformed reply header
  --hang-at K        never answer function K
  --decline-calls    answer 'declined' for functions with a call
  --inject KIND      corrupt each allocation with `ravel alloc --inject KIND:1`
                     where it can (a wrong allocator)
"""
import os
import subprocess
import sys
import time

def arg(name):
    if name in sys.argv:
        return int(sys.argv[sys.argv.index(name) + 1])
    return 0

def main():
    ravel = os.environ["RAVEL"]
    die, brk, hang = arg("--die-after"), arg("--break-at"), arg("--hang-at")
    decline_calls = "--decline-calls" in sys.argv
    inject = sys.argv[sys.argv.index("--inject") + 1] if "--inject" in sys.argv else None
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    k = 0
    while True:
        head = inp.readline()
        if not head:
            return 0  # ravel closed our stdin: the end
        magic, version, n = head.split()
        assert magic == b"ravel-alloc" and version == b"1", head
        text = inp.read(int(n))
        k += 1
        if k == die:
            sys.stderr.write("frames_server: dying on function %d as asked\n" % k)
            return 1
        if k == brk:
            out.write(b"this is not a reply\n")
            out.flush()
            continue
        if k == hang:
            time.sleep(3600)
        if decline_calls and b" call " in text:
            status, body = b"declined", b"calls are not supported"
        else:
            p = None
            if inject:
                p = subprocess.run([ravel, "alloc", "-a", "linear", "--inject", inject + ":1", "-"],
                                   input=text, capture_output=True)
            if p is None or p.returncode != 0:
                p = subprocess.run([ravel, "alloc", "-a", "linear", "-"], input=text, capture_output=True)
            status, body = (b"ok", p.stdout) if p.returncode == 0 else (b"error", p.stderr)
        out.write(b"%s %d\n" % (status, len(body)) + body)
        out.flush()

if __name__ == "__main__":
    sys.exit(main())
