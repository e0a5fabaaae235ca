#!/bin/sh
# python_alloc.sh - tests of examples/python/ravel_alloc.py, the Python
# allocator driven by ravel through the one-shot protocol (docs/protocol.md).
#
# usage: python_alloc.sh RAVEL PYTHON ALLOC WORKDIR TEST [ARG]
#   (PYTHON: the interpreter command, may carry options: "python3 -S")
#   protocol        the allocator alone: a generated function allocated,
#                   verified with `ravel check --orig`, printed canonically
#                   (`ravel fmt --check`); a shape it declines
#                   exits 3 with a message; bad input exits 2
#   clean           `ravel fuzz --alloc-cmd --no-alias` over 300 functions
#                   (seed 1): exit 0, no failure, declines under 1%; with
#                   aliased machines (the default) it declines those, and
#                   nothing fails
#   bug KIND        RAVEL_PY_BUG=KIND: the campaign (seed 1, 40 functions)
#                   finds the planted bug: exit 1, a reproducer written
#   reduce KIND MAX RAVEL_PY_BUG=KIND: the first reproducer of the campaign is
#                   cut by `ravel reduce --alloc-cmd` to at most MAX
#                   instructions, and still fails the same way
# Exit 0 = pass; any other status fails, with the reason on stderr.
set -u
RAVEL=$1 PY=$2 ALLOC=$3 WORK=$4 TEST=$5
shift 5
CMD="$PY $ALLOC"
fail() { echo "python_alloc.sh $TEST: FAIL: $*" >&2; exit 1; }

rm -rf "$WORK" && mkdir -p "$WORK" || fail "cannot create $WORK"
cd "$WORK" || fail "cannot enter $WORK"

# The instructions (not labels, edits, comments) of the first function of
# a file of unallocated .ra text.
count_insts() {
    awk '/^func /{f=1; next} f && /^end/{exit}
         f && /^  / && !/= (spill|reload|move) /{n++} END{print n+0}' "$1"
}

case $TEST in
protocol)
    "$RAVEL" gen --seed 7 > orig.ra || fail "ravel gen"
    $CMD < orig.ra > out.ra 2> err.txt || fail "allocator exited $? on gen --seed 7: $(cat err.txt)"
    "$RAVEL" check out.ra --orig orig.ra > check.txt 2>&1 || fail "ravel check rejects it: $(head -5 check.txt)"
    "$RAVEL" fmt --check out.ra || fail "the output is not in canonical form"
    # a reuse of a `stack` use is declined (the generator never writes one)
    printf 'machine\n  class int r0 r1\nend\n\nfunc f\nb0:\n  v0:int = args\n  v1:int reuse(0) = add v0 stack\n  ret v1\nend\n' > odd.ra
    $CMD < odd.ra > /dev/null 2> err.txt
    rc=$?
    [ $rc -eq 3 ] || fail "an odd reuse: exit $rc, want 3 (declined)"
    grep -q "declined: reuse(0)" err.txt || fail "no decline message: $(cat err.txt)"
    printf 'machine\n  class int r0\nend\n\nfunc f\nb0:\n  v0:int @r0 = args\n  ret\nend\n' > alloc.ra
    $CMD < alloc.ra > /dev/null 2> err.txt
    rc=$?
    [ $rc -eq 2 ] || fail "an allocated input: exit $rc, want 2"
    grep -q "error: line 7: the input is already allocated" err.txt || fail "no error message: $(cat err.txt)"
    ;;
clean)
    # machines with alias lines (docs/format.md section 14.1) are declined, never failed
    "$RAVEL" fuzz --alloc-cmd "$CMD" -n 40 -s 1 -j1 -q -o out > summary.txt 2>&1 || fail "aliased: ravel fuzz exited $?: $(cat summary.txt)"
    set -- $(grep '^cmd1 ' summary.txt)
    [ $# -ge 5 ] && [ "$3" -gt 0 ] && [ "$5" -eq 0 ] || fail "aliased machines: want declines and no failure: $(cat summary.txt)"
    "$RAVEL" fuzz --alloc-cmd "$CMD" --no-alias -n 300 -s 1 -j1 -q -o out > summary.txt 2>&1
    rc=$?
    [ $rc -eq 0 ] || fail "ravel fuzz exited $rc: $(cat summary.txt; ls out 2>/dev/null | head -3)"
    # cmd1  FUNCTIONS  DECLINED  INSTRUCTIONS  FAILURES ...
    set -- $(grep '^cmd1 ' summary.txt)
    [ $# -ge 5 ] || fail "no cmd1 line in the summary: $(cat summary.txt)"
    [ "$2" -eq 300 ] || fail "$2 functions, want 300"
    [ "$5" -eq 0 ] || fail "$5 failures"
    [ $(($3 * 100)) -lt "$2" ] || fail "$3 of $2 functions declined (want under 1%)"
    ;;
bug)
    RAVEL_PY_BUG=$1 "$RAVEL" fuzz --alloc-cmd "$CMD" -n 40 -s 1 -j1 -q -o out > summary.txt 2>&1
    rc=$?
    [ $rc -eq 1 ] || fail "RAVEL_PY_BUG=$1: ravel fuzz exited $rc, want 1: $(cat summary.txt)"
    ls out/*.ra > /dev/null 2>&1 || fail "no reproducer written"
    ;;
reduce)
    RAVEL_PY_BUG=$1 "$RAVEL" fuzz --alloc-cmd "$CMD" -n 40 -s 1 -j1 -q --max-files 1 -o out > summary.txt 2>&1
    case=$(ls out/*.ra 2>/dev/null | head -1)
    [ -n "$case" ] || fail "RAVEL_PY_BUG=$1: the campaign found nothing: $(cat summary.txt)"
    sed -n 's/^#| //p' "$case" > big.ra
    RAVEL_PY_BUG=$1 "$RAVEL" reduce --alloc-cmd "$CMD" "$case" -q -o small.ra 2> reduce.txt
    rc=$?
    [ $rc -eq 0 ] || fail "ravel reduce exited $rc: $(tail -5 reduce.txt)"
    sed -n 's/^#| //p' small.ra > small.orig.ra
    [ -s small.orig.ra ] || cp small.ra small.orig.ra
    before=$(count_insts big.ra) after=$(count_insts small.orig.ra)
    echo "RAVEL_PY_BUG=$1: $case: $before instructions reduced to $after"
    [ "$after" -ge 1 ] && [ "$after" -le "$2" ] || fail "reduced to $after instructions, want 1..$2"
    # the reduced case still fails: the allocator's output is rejected
    RAVEL_PY_BUG=$1 $CMD < small.orig.ra > small.out.ra || fail "the allocator fails on the reduced case"
    "$RAVEL" check small.out.ra --orig small.orig.ra > check.txt 2>&1
    [ $? -eq 1 ] || fail "the reduced case is not rejected by ravel check: $(cat check.txt)"
    # and the allocator without the bug allocates it correctly
    $CMD < small.orig.ra > fixed.ra || fail "the allocator without the bug fails on the reduced case"
    "$RAVEL" check fixed.ra --orig small.orig.ra > /dev/null 2>&1 || fail "without the bug, still rejected"
    ;;
*)
    fail "unknown test '$TEST'"
    ;;
esac
exit 0
