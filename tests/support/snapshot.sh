#!/usr/bin/env bash
# snapshot.sh RAVEL OUT.txt [NGEN]
#
# Prints a fingerprint of ravel's observable behaviour: one line per probe,
# "PROBE md5", sorted. Two builds behave the same on these probes exactly
# when their snapshots are equal (diff them). Used to show that a
# restructuring changes no output: every built-in allocator on every .ra
# of the repository and on NGEN generated functions (default 2000), the
# checker's reports (text, --reference, --json, --orig where the file has
# a twin) on every .ra of the repository, and every injection kind on
# generated functions (the corrupted allocation and its report). Paths of
# the repository and of the temporary folder are replaced by ROOT and WORK
# in every output, so two runs of one build give the same snapshot.
set -u
ravel=$(readlink -f "$1"); out=$2; ngen=${3:-2000}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export LC_ALL=C

h() { md5sum | cut -c1-32; }
probe() { # probe NAME CMD... : hash of stdout, stderr and exit status
  local name=$1; shift
  { "$@" 2>"$work/err"; echo "rc=$?"; cat "$work/err"; } | sed "s#$root#ROOT#g; s#$work#WORK#g" | h | sed "s#^#$name #"
}

allocs=$("$ravel" alloc --list | awk '{print $1}')
kinds=$("$ravel" alloc --inject list | awk '{print $1}')

mkdir -p "$work/gen"
"$ravel" gen --seed 1 --count "$ngen" -o "$work/gen" >/dev/null
# a few other shapes: small register files, structured CFGs, large
"$ravel" gen --seed 100000 --count $((ngen / 10)) --regs 1..3 -o "$work/gen" >/dev/null
"$ravel" gen --seed 200000 --count $((ngen / 20)) --cfg structured --insts 600 -o "$work/gen" >/dev/null

{
  for f in "$work"/gen/*.ra; do
    b=gen/$(basename "$f"); cat "$f" | h | sed "s#^#$b.text #"
    for a in $allocs; do probe "$b.$a" "$ravel" alloc -a "$a" --stats "$f"; done
  done
  mapfile -t files < <(cd "$root" && git ls-files '*.ra' | grep -v '\.orig\.ra$')
  for rel in "${files[@]}"; do
    f=$root/$rel
    orig=${f%.ra}.orig.ra
    probe "$rel.check" "$ravel" check "$f"
    probe "$rel.ref" "$ravel" check --reference "$f"
    probe "$rel.json" "$ravel" check --json --explain "$f"
    [ -f "$orig" ] && probe "$rel.orig" "$ravel" check --orig "$orig" "$f"
    for a in $allocs; do probe "$rel.$a" "$ravel" alloc -a "$a" "$f"; done
  done
  i=0
  for f in "$work"/gen/gen-1.ra "$work"/gen/gen-1[0-9].ra "$work"/gen/gen-1000[0-9][0-9].ra; do
    [ -f "$f" ] || continue
    b=gen/$(basename "$f")
    for a in $allocs; do
      for k in $kinds; do
        i=$((i + 1))
        "$ravel" alloc -a "$a" --inject "$k:$i" -o "$work/inj.ra" "$f" >/dev/null 2>"$work/inj.err"
        rc=$?
        { echo "rc=$rc"; cat "$work/inj.err"; [ $rc = 0 ] && cat "$work/inj.ra"; } | sed "s#$work#WORK#g" | h | sed "s#^#$b.$a.$k #"
        [ $rc = 0 ] && probe "$b.$a.$k.check" "$ravel" check --orig "$f" "$work/inj.ra"
        rm -f "$work/inj.ra"
      done
    done
  done
} | sort > "$out"
wc -l < "$out"
