#!/bin/sh
# hardening.sh RAVEL CASES NAME - one end-to-end test of hostile or unlucky
# input (tests/cli/hardening/): the cost and the size of the output are
# bounded by the input, diagnostics have a position, no file is destroyed.
RAVEL=$1
CASES=$2
name=$3
TMP=${TMPDIR:-/tmp}/ravel-hardening.$$
trap 'rm -rf "$TMP" "$TMP".*' EXIT
mkdir -p "$TMP.d"
fail() { echo "FAIL: $name: $*"; [ -f "$TMP.out" ] && head -c 2000 "$TMP.out"; exit 1; }
run() { # run STATUS command...: stdout+stderr in $TMP.out
    want=$1; shift
    "$@" >"$TMP.out" 2>&1
    got=$?
    [ "$got" = "$want" ] || fail "exit $got, want $want: $*"
}
lines() { wc -l <"$TMP.out" | tr -d ' '; }
bytes() { wc -c <"$TMP.out" | tr -d ' '; }
# uses N: one instruction with N uses of v0 in the wrong register r1
uses() {
    printf 'machine\n  class int r0 r1 r2\nend\n\nfunc f\nb0:\n  v0:int @r0 = const 1\n  out v0 @r1'
    i=1; while [ $i -lt "$1" ]; do printf ', v0 @r1'; i=$((i + 1)); done
    printf '\n  ret\nend\n'
}
case $name in
report_cap) # the default cap: 100 errors and one line counting the rest
    run 1 "$RAVEL" check "$CASES/uses_wrongloc_4000.ra"
    [ "$(grep -c 'error\[use-unknown\]' "$TMP.out")" = 100 ] || fail "not 100 errors"
    grep -q 'note: in func f, 3900 more errors not reported' "$TMP.out" || fail "no count of the rest"
    # the instruction's long source line once, not once per error, with a
    # position and a caret under each operand's error
    [ "$(grep -c '^    out v0 @r1, v0' "$TMP.out")" = 1 ] || fail "instruction text not written once"
    grep -q 'uses_wrongloc_4000.ra:8:15: error\[use-unknown\]: in func f, block b0: use 1 (v0)' "$TMP.out" || fail "no column of use 1"
    run 1 "$RAVEL" check --max-errors 7 "$CASES/uses_wrongloc_4000.ra"
    [ "$(grep -c 'error\[' "$TMP.out")" = 7 ] || fail "--max-errors 7"
    grep -q '3993 more errors' "$TMP.out" || fail "--max-errors 7: count of the rest"
    run 1 "$RAVEL" check --max-errors 7 --json "$CASES/uses_wrongloc_4000.ra"
    grep -q '^{"kind":"omitted","count":3993}$' "$TMP.out" || fail "--json: the omitted record"
    run 2 "$RAVEL" check --max-errors x "$CASES/uses_wrongloc_4000.ra"
    ;;
report_linear) # every error reported: the output is linear in the uses
    uses 16000 >"$TMP.ra"
    run 1 "$RAVEL" check --max-errors 0 "$TMP.ra"
    [ "$(grep -c 'error\[use-unknown\]' "$TMP.out")" = 16000 ] || fail "not 16000 errors"
    [ "$(bytes)" -lt 3000000 ] || fail "$(bytes) bytes of report for 16000 uses"
    run 1 "$RAVEL" check --max-errors 0 --json "$TMP.ra"
    [ "$(bytes)" -lt 6000000 ] || fail "$(bytes) bytes of JSON report for 16000 uses"
    ;;
undef_uses) # 8000 uses of an undefined vreg: one error, with a position
    run 2 "$RAVEL" check "$CASES/uses_undef_8000.ra"
    [ "$(grep -c 'error' "$TMP.out")" = 1 ] || fail "not one error"
    grep -q 'uses_undef_8000.ra:8:7: error: .*v5 is used but defined nowhere' "$TMP.out" || fail "no position"
    ;;
undef_block)
    run 2 "$RAVEL" check "$CASES/undef_block.ra"
    grep -q 'undef_block.ra:7:3: error: .*undefined block b99' "$TMP.out" || fail "no line:col"
    ;;
empty_block)
    run 2 "$RAVEL" check "$CASES/func_empty_block.ra"
    grep -q 'func_empty_block.ra:7:1: error: .*block b0 has no terminator' "$TMP.out" || fail "no line:col"
    ;;
run_output) # 3 KB of input writing 333 million values: bounded output, a clear message
    "$RAVEL" run "$CASES/outloop_1000.ra" >"$TMP.values" 2>"$TMP.out"
    [ $? = 1 ] || fail "exit status"
    grep -q 'output limit reached' "$TMP.out" || fail "no output-limit message"
    [ "$(wc -l <"$TMP.values" | tr -d ' ')" = 1000000 ] || fail "not 1000000 values"
    ;;
hislot) # the interpreter's cost follows the slots used, not their numbers
    run 0 "$RAVEL" run --compare "$CASES/one_loslot.ra" "$CASES/one_hislot.ra" --inputs 20000
    grep -q '1 function agrees on 20000 input vectors' "$TMP.out" || fail "no agreement"
    printf 'machine\n  class i r0\nend\nfunc f\nb0:\n  v0:i @r0 = args\n  s1048575 = spill r0\n  s3 = spill r0\n  r0 = reload s3\n  s1048575 = spill r0\n  r0 = reload s1048575\n  ret v0 @r0\nend\n' >"$TMP.ra"
    run 0 "$RAVEL" run "$TMP.ra" --args 42
    grep -q '^ret: 42$' "$TMP.out" || fail "sparse slots: wrong result"
    printf 'machine\n  class i r0\nend\nfunc f\nb0:\n  v0:i @r0 = args\n  s1048575 = spill r0\n  r0 = reload s1048574\n  ret v0 @r0\nend\n' >"$TMP.ra"
    run 1 "$RAVEL" run "$TMP.ra" --args 42
    ;;
alloc_output) # -o OUT: replaced on success only, never emptied on failure
    mkdir -p "$TMP" && echo precious >"$TMP/out.ra"
    run 1 "$RAVEL" alloc -a linear "$CASES/too_many_fixed_same.ra" -o "$TMP/out.ra"
    [ "$(cat "$TMP/out.ra")" = precious ] || fail "alloc -o destroyed OUT on failure"
    grep -q 'too_many_fixed_same.ra:7:3: error: .*unsatisfiable' "$TMP.out" || fail "no file position"
    run 2 "$RAVEL" fmt -o "$TMP/out.ra" "$CASES/nonexistent.ra"
    [ "$(cat "$TMP/out.ra")" = precious ] || fail "fmt -o destroyed OUT on failure"
    run 0 "$RAVEL" gen --seed 3 -o "$TMP/g.ra"
    run 0 "$RAVEL" alloc -a fast "$TMP/g.ra" -o "$TMP/out.ra"
    run 0 "$RAVEL" check --orig "$TMP/g.ra" "$TMP/out.ra"
    run 0 "$RAVEL" fmt -o "$TMP/out.ra" "$TMP/g.ra"
    cmp -s "$TMP/out.ra" "$TMP/g.ra" || fail "fmt -o did not write OUT"
    [ "$(ls "$TMP" | wc -l | tr -d ' ')" = 2 ] || fail "temporary files left: $(ls "$TMP")"
    ;;
alloc_usage) # no -a: the one-line usage error
    run 2 "$RAVEL" alloc "$CASES/too_many_fixed_same.ra"
    [ "$(lines)" = 2 ] && grep -q "^ravel alloc: no allocator: give -a NAME" "$TMP.out" || fail "not the one-line usage error"
    ;;
fuzz_seed) # a fresh seed on every run, printed; --seed replays it
    run 0 "$RAVEL" fuzz --count 4 -j 1 -q -o "$TMP.d"
    s1=$(sed -n 's/^ravel fuzz: seed \(0x[0-9a-f]*\) (replay with --seed .*/\1/p' "$TMP.out")
    [ -n "$s1" ] || fail "no seed printed"
    grep -q "generated from --seed $s1 " "$TMP.out" || fail "summary does not give the seed $s1"
    awk 'NF == 6 && $1 != "allocator"' "$TMP.out" | cut -c1-40 >"$TMP.t1"
    sleep 0.01
    run 0 "$RAVEL" fuzz --count 4 -j 1 -q -o "$TMP.d"
    s2=$(sed -n 's/^ravel fuzz: seed \(0x[0-9a-f]*\) .*/\1/p' "$TMP.out")
    [ "$s1" != "$s2" ] || fail "the same seed twice: $s1"
    run 0 "$RAVEL" fuzz --count 4 -j 1 -q -o "$TMP.d" --seed "$s1"
    awk 'NF == 6 && $1 != "allocator"' "$TMP.out" | cut -c1-40 >"$TMP.t2"
    cmp -s "$TMP.t1" "$TMP.t2" || fail "--seed $s1 did not replay the campaign"
    ;;
fuzz_oracle_work) # the oracle's work is reported: tried, rejected, accepted
    run 0 "$RAVEL" fuzz --count 6 -j 1 -q --oracle --seed 3 -o "$TMP.d"
    line=$(grep '^checker oracle work: ' "$TMP.out") || fail "no oracle work line"
    set -- $(echo "$line" | tr -cs '0-9' ' ')
    [ "$1" -gt 0 ] || fail "no corruption tried: $line"
    [ $(($2 + $3)) -le "$1" ] && [ "$2" -gt 0 ] || fail "inconsistent: $line"
    run 0 "$RAVEL" fuzz --count 6 -j 1 -q --oracle --seed 3 --json -o "$TMP.d"
    grep -q "\"oracle_tried\":[1-9]" "$TMP.out" || fail "--json: no oracle_tried"
    ;;
fuzz_sigint) # Ctrl-C: the summary, then exit status 130
    "$RAVEL" fuzz --time 60 -j 1 -q --seed 1 -o "$TMP.d" >"$TMP.out" 2>&1 &
    pid=$!
    n=0 # started (the seed line comes just before the handler), then a moment of work
    while ! grep -q '^ravel fuzz: seed' "$TMP.out" && [ $n -lt 200 ]; do sleep 0.1; n=$((n + 1)); done
    sleep 1
    kill -INT $pid
    wait $pid
    st=$?
    [ $st = 130 ] || fail "exit status $st after SIGINT, want 130"
    grep -q '(interrupted)' "$TMP.out" || fail "no summary"
    ;;
fuzz_bad_allocator)
    run 2 "$RAVEL" fuzz -a nosuch
    grep -q "^'ravel fuzz --help' lists the options" "$TMP.out" || fail "no pointer to --help"
    ;;
check_unallocated) # an unallocated function: one line, exit 2
    run 0 "$RAVEL" gen --seed 2 -o "$TMP.ra"
    run 2 "$RAVEL" check "$TMP.ra"
    [ "$(grep -c 'error' "$TMP.out")" = 1 ] || fail "not one error line"
    grep -q "^$TMP.ra:[0-9]*: error: func f is not allocated" "$TMP.out" || fail "does not say it is not allocated"
    ;;
*) fail "unknown test" ;;
esac
exit 0
