#!/bin/sh
# cli_gen.sh RAVEL - end-to-end checks of `ravel gen`: valid output (--ssa),
# determinism, feature switches, sizes, -o DIR, --from FILE, bad usage.
set -u
R="$1"
T="${TMPDIR:-/tmp}/ravel-gen-test.$$"
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for s in 0 1 2 3 17 99 12345; do
  "$R" gen --seed $s > "$T/a.ra" || fail "gen --seed $s"
  "$R" validate --ssa "$T/a.ra" > /dev/null || fail "seed $s: not valid"
  "$R" gen --seed $s > "$T/b.ra"
  cmp -s "$T/a.ra" "$T/b.ra" || fail "seed $s: not deterministic"
done
"$R" gen --seed 1 > "$T/a.ra"; "$R" gen --seed 2 > "$T/b.ra"
cmp -s "$T/a.ra" "$T/b.ra" && fail "seeds 1 and 2 give the same text"

# feature switches
"$R" gen --count 30 --no-calls --no-safepoints --no-fixed --no-classes > "$T/c.ra" || fail "--no-*"
grep -q "call \|safepoint\|fixed(\|class float" "$T/c.ra" && fail "a switched-off feature appears"
grep -q "call " "$T/a.ra" "$T/b.ra" || "$R" gen --count 20 | grep -q "call " || fail "no call with defaults"

# sizes: --insts bounds the instruction count (lines with '=' or a terminator)
"$R" gen --seed 5 --insts 12 --blocks 3 -o "$T/s.ra" || fail "-o FILE"
n=$(awk '/^func /{f=1} f && /^  /' "$T/s.ra" | wc -l) # (the function's lines: not the machine's)
[ "$n" -le 22 ] || fail "--insts 12 gave $n lines"
"$R" validate --ssa "$T/s.ra" > /dev/null || fail "small not valid"
"$R" gen --seed 5 --insts 5000 --blocks 400 --regs 1..2 > "$T/l.ra" || fail "large"
"$R" validate --ssa "$T/l.ra" > /dev/null || fail "large not valid"
# --window: valid, and a change only where scopes outgrow it
"$R" gen --seed 5 --insts 5000 --blocks 400 --regs 1..2 --window 8 > "$T/w.ra" || fail "--window"
"$R" validate --ssa "$T/w.ra" > /dev/null || fail "--window not valid"
cmp -s "$T/l.ra" "$T/w.ra" && fail "--window 8 changed nothing in a large function"
"$R" gen --seed 5 --insts 12 --blocks 3 --window 1000 > "$T/sw.ra" || fail "--window small"
cmp -s "$T/s.ra" "$T/sw.ra" || fail "--window 1000 changed a 12-instruction function"

# --cfg: any is the default; structured differs; both valid; any terminates in the interpreter
"$R" gen --seed 3 --count 40 > "$T/any.ra" || fail "--count 40"
"$R" gen --seed 3 --count 40 --cfg any > "$T/any2.ra" || fail "--cfg any"
cmp -s "$T/any.ra" "$T/any2.ra" || fail "--cfg any is not the default"
"$R" gen --seed 3 --count 40 --cfg structured > "$T/st.ra" || fail "--cfg structured"
cmp -s "$T/any.ra" "$T/st.ra" && fail "--cfg structured changed nothing in 40 functions"
mkdir "$T/cfg"
"$R" gen --seed 3 --count 40 --cfg any -o "$T/cfg" || fail "--cfg any -o DIR"
"$R" validate --ssa "$T/cfg"/*.ra > /dev/null || fail "--cfg any not valid"
for f in "$T/cfg"/*.ra; do
  "$R" run "$f" --args 1,2,3 > /dev/null || fail "$f: does not terminate in the interpreter"
done
"$R" gen --help | grep -q -- "--cfg any|structured" || fail "--help does not list --cfg"
"$R" fuzz --help | grep -q -- "--cfg any|structured" || fail "fuzz --help does not list --cfg"
"$R" fuzz --cfg structured -n 3 -j 1 -q -o "$T/fz" > /dev/null || fail "fuzz --cfg structured"
"$R" fuzz --cfg nonsense -n 1 > /dev/null 2>&1
[ $? -eq 2 ] || fail "fuzz --cfg nonsense should exit 2"

# -o DIR, --from FILE
mkdir "$T/d"
"$R" gen --seed 10 --count 4 -o "$T/d" || fail "-o DIR"
[ -f "$T/d/gen-13.ra" ] || fail "missing gen-13.ra"
"$R" validate --ssa "$T/d"/*.ra > /dev/null || fail "dir not valid"
printf 'fuzz bytes \001\002\377' > "$T/in.bin"
"$R" gen --from "$T/in.bin" > "$T/f1.ra" || fail "--from"
"$R" gen --from "$T/in.bin" > "$T/f2.ra"
cmp -s "$T/f1.ra" "$T/f2.ra" || fail "--from not deterministic"
printf 'Xfuzz bytes \001\002\377' > "$T/in2.bin"
"$R" gen --from "$T/in2.bin" --skip 1 > "$T/f3.ra" || fail "--skip"
cmp -s "$T/f1.ra" "$T/f3.ra" || fail "--skip 1 does not drop the first byte"
"$R" gen --from "$T/in2.bin" --skip 99 | "$R" validate --ssa - > /dev/null || fail "--skip past the end"
: > "$T/empty.bin"
"$R" gen --from "$T/empty.bin" | "$R" validate --ssa - > /dev/null || fail "--from empty"

# --machine FILE: functions for the user's machine (tests/gen/machines)
M="$(dirname "$0")/machines"
for s in 0 1 2 9; do
  "$R" gen --machine "$M/x86_64.ra" --seed $s > "$T/m.ra" || fail "gen --machine --seed $s"
  "$R" validate --ssa "$T/m.ra" > /dev/null || fail "--machine seed $s: not valid"
  grep -q "class kmask k1" "$T/m.ra" || fail "--machine seed $s: not the given machine"
  "$R" gen --machine "$M/x86_64.ra" --seed $s | cmp -s - "$T/m.ra" || fail "--machine seed $s: not deterministic"
done
"$R" gen --machine "$M/two_regs.ra" --seed 4 2> "$T/note" > /dev/null || fail "gen --machine two_regs"
grep -q "ravel gen: note: classes off" "$T/note" || fail "no note on the features turned off"
"$R" gen --machine "$M/bad.ra" > /dev/null 2> "$T/err"; st=$?
[ $st -eq 2 ] || fail "bad machine file: exit $st, not 2"
grep -q "bad.ra:3:15: error" "$T/err" || fail "bad machine file: no FILE:LINE:COL error"
"$R" gen --machine "$T/no-such.ra" > /dev/null 2> "$T/err"; st=$?
[ $st -eq 2 ] || fail "missing machine file: exit $st, not 2"
grep -q "ravel gen: error: .*no-such.ra" "$T/err" || fail "missing machine file: no error naming it"
"$R" gen --machine "$M/two_regs.ra" --regs 3 > /dev/null 2>&1
[ $? -eq 2 ] || fail "--regs with --machine should exit 2"
"$R" fuzz --machine "$M/fixed_reserved.ra" -n 50 -j1 -q -o "$T/fz" > "$T/fz.out" 2>&1 || { cat "$T/fz.out" >&2; fail "fuzz --machine"; }
"$R" fuzz --machine "$M/bad.ra" -n 5 -j1 -q -o "$T/fz" > /dev/null 2>&1
[ $? -eq 2 ] || fail "fuzz with a bad machine file should exit 2"
# a file with only a machine block (no func) is a machine file; one without `end` is an error at its last line
printf 'machine\n  class int r0 r1\n  reserved int sp\nend\n' > "$T/only.ra"
"$R" gen --machine "$T/only.ra" --seed 2 > "$T/only.out" 2>/dev/null || fail "gen --machine with a machine-only file"
grep -q "reserved int sp" "$T/only.out" || fail "machine-only file: not the given machine"
printf 'machine\n  class int r0 r1\n' > "$T/noend.ra"
"$R" gen --machine "$T/noend.ra" > /dev/null 2> "$T/err"; st=$?
[ $st -eq 2 ] && grep -q "noend.ra:2:18: error: missing 'end' of machine" "$T/err" || fail "machine file without end: exit $st"
"$R" gen --help | grep -q -- "--machine FILE" || fail "--help lacks --machine"

# usage errors exit 2
for bad in "--no-nonsense" "--insts" "--insts 0" "--regs 5..2" "--pressure 101" "--window" "--window x" "--bogus" "--count 2 -o $T/s.ra" "--skip 1" "--cfg" "--cfg both"; do
  "$R" gen $bad > /dev/null 2>&1
  [ $? -eq 2 ] || fail "'$bad' should exit 2"
done
"$R" gen --help | grep -q "usage: ravel gen" || fail "--help"
"$R" gen --help | grep -q -- "--skip 1 for inputs of fuzz_alloc" || fail "--help does not explain --skip 1"
echo "cli_gen: ok"
