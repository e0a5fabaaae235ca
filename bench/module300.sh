#!/usr/bin/env bash
# module300.sh - the whole-process figure of issue 32: `ravel check FILE` on
# one module of 300 allocated functions (about 75k allocated instructions,
# about 2.4 MB of text; half allocated by linear, half by color; about a
# third have irreducible control flow, gen's default --cfg any).
#
# Requires: a built ravel (argument 1, default build-rel/cli/ravel) and awk.
# Guarantees: the module is built from fixed seeds with ravel's own CLI
# (gen, alloc), so it is the same text on every run and machine with the
# same ravel; it is checked RUNS times (default 7) and the script prints the
# median CPU time (user + sys) per allocated instruction, the whole process.
# Then it prints the read / validate / check split of five processes from a
# profile (perf record, when perf is installed; see step 5).
#
# usage: bench/module300.sh [RAVEL] [--runs N] [--keep DIR]
#   --keep DIR  write the module (and its parts) to DIR and keep it
set -euo pipefail

ravel=build-rel/cli/ravel
runs=7
keep=
while [ $# -gt 0 ]; do
    case "$1" in
    --runs) runs=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) ravel=$1; shift ;;
    esac
done
[ -x "$ravel" ] || { echo "module300.sh: no ravel at $ravel (build it, or pass its path)" >&2; exit 2; }
ravel=$(cd "$(dirname "$ravel")" && pwd)/$(basename "$ravel")

if [ -n "$keep" ]; then
    mkdir -p "$keep"
    dir=$(cd "$keep" && pwd)
else
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
fi
cd "$dir"

# 1. the machine (x86-64-like: 4 allocatable int registers with width
#    aliases, 7 float), then 300 functions for it from seeds 1000..1299
"$ravel" gen --seed 1 --insts 250 --no-alias > machine-src.ra
mkdir -p gen
"$ravel" gen --no-alias --machine machine-src.ra --seed 1000 --count 300 --insts 150 -o gen
# 2. one unallocated module: the machine once, function k named fK
awk '/^end$/ { print; exit } { print }' machine-src.ra > orig.ra
for k in $(seq 0 299); do
    echo
    awk -v k="$k" '/^func / { f = 1; print "func f" k; next } f { print } /^end$/ && f { exit }' "gen/gen-$((1000 + k)).ra"
done >> orig.ra
# 3. allocated twice; even functions from linear, odd ones from color
"$ravel" alloc -a linear -o linear.ra orig.ra
"$ravel" alloc -a color -o color.ra orig.ra
awk '/^end$/ { print; exit } { print }' linear.ra > module.ra
awk 'FNR == 1 { file++ }
     /^func f[0-9]+$/ { k = substr($2, 2) + 0; on = (k % 2 == 0) == (file == 1); if (on) b[k] = "" }
     on { b[k] = b[k] $0 "\n" } /^end$/ { on = 0 }
     END { for (k = 0; k < 300; k++) printf "\n%s", b[k] }' linear.ra color.ra >> module.ra

insts=$(awk '/^func / { f = 1; next } /^end$/ { f = 0 } f && NF && !/:$/' module.ra | wc -l)
bytes=$(wc -c < module.ra)
funcs=$(grep -c '^func ' module.ra)
"$ravel" check module.ra > /dev/null || { echo "module300.sh: ravel check did not verify the module" >&2; exit 1; }

# 4. RUNS timed runs: CPU time of the process (user + sys)
times=()
for _ in $(seq "$runs"); do
    t=$( { TIMEFORMAT='%U %S'; time "$ravel" check module.ra > /dev/null; } 2>&1 | awk '{ printf "%.6f", $1 + $2 }')
    times+=("$t")
done
med=$(printf '%s\n' "${times[@]}" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
echo "module: $funcs functions, $insts allocated instructions, $bytes bytes"
awk -v t="$med" -v n="$insts" -v r="$runs" 'BEGIN { printf "ravel check: median of %d: %.1f ms, %.0f ns per instruction\n", r, t * 1e3, t * 1e9 / n }'

# 5. the split, from a profile of five processes: samples in the symbols of
#    the reader's objects (ir/parse*.c); of the validator's (ir/validate.c,
#    run only on suspect input) and the checker's structural guard
#    (checker/ck_guard*.c, which stands in for it on valid input and is
#    fused with the rules' operand scan); and the rest (the checker, the
#    CLI, libc, the kernel: page faults, process start)
objs=$(dirname "$(dirname "$ravel")")/ir/CMakeFiles/ravel_ir.dir
cobjs=$(dirname "$(dirname "$ravel")")/checker/CMakeFiles/ravel_checker.dir
if command -v perf > /dev/null && [ -f "$objs/parse.c.o" ] &&
    perf record -q -o perf.data -F 20000 -- sh -c 'for i in 1 2 3 4 5; do "$0" check module.ra; done' "$ravel" > /dev/null 2>&1; then
    nm "$objs"/parse*.c.o | awk 'NF == 3 && $2 ~ /[tT]/ { print "read", $3 }' > syms.txt
    nm "$objs"/validate.c.o "$cobjs"/ck_guard*.c.o | awk 'NF == 3 && $2 ~ /[tT]/ { print "validate", $3 }' >> syms.txt
    perf report -i perf.data --no-children --sort sym --stdio 2> /dev/null |
        awk 'NR == FNR { part[$2] = $1; next }
             /^ *[0-9.]+%/ { p = $1 + 0; s = $NF; sub(/\..*/, "", s); t[s in part ? part[s] : "rest"] += p }
             END { printf "split (perf samples): read %.0f%%, validate (guard) %.0f%%, check and the rest %.0f%%\n", t["read"], t["validate"], t["rest"] }' syms.txt -
else
    echo "split: not measured (needs perf and the build's ir/ objects)"
fi
