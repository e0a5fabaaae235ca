#!/bin/sh
# slotalloc.sh - tests of examples/slotalloc/slotalloc_server, the C example
# allocator driven by ravel out of process (docs/protocol.md).
#
# usage: slotalloc.sh RAVEL SERVER WORKDIR TEST [ARG...]
#   protocol        the server alone: --oneshot allocates a generated function
#                   (accepted by `ravel check --orig`, canonical form), a
#                   frames session answers two requests, an allocated input is
#                   bad input (exit 2), an unknown SLOTALLOC_BUG is refused
#   clean           `ravel fuzz --alloc-cmd SERVER --alloc-protocol frames -n 200
#                   -s 1 -j1`: exit 0, no failure, declines under 1%
#   bug KIND        SLOTALLOC_BUG=KIND: the same campaign exits 1 and writes
#                   a reproducer
#   reduce KIND MAX SLOTALLOC_BUG=KIND: the campaign's first reproducer is cut
#                   by `ravel reduce --alloc-cmd 'SERVER --oneshot'` to at most
#                   MAX instructions, and still fails the same way
# Exit 0 = pass; any other status fails, with the reason on stderr.
set -u
RAVEL=$1 SERVER=$2 WORK=$3 TEST=$4
shift 4
fail() { echo "slotalloc.sh $TEST: FAIL: $*" >&2; exit 1; }

rm -rf "$WORK" && mkdir -p "$WORK" || fail "cannot create $WORK"
cd "$WORK" || fail "cannot enter $WORK"

# The original instructions of the first function of a .ra file.
count_insts() {
    awk '/^func /{f=1; next} f && /^end/{exit}
         f && /^  / && !/= (spill|reload|move) /{n++} END{print n+0}' "$1"
}

campaign() { # campaign KIND N: SLOTALLOC_BUG=KIND ravel fuzz ... (KIND "" = none)
    SLOTALLOC_BUG=$1 "$RAVEL" fuzz --alloc-cmd "$SERVER" --alloc-protocol frames -n "$2" -s 1 -j1 -q \
        --max-files 1 -o out > summary.txt 2>&1
}

case $TEST in
protocol)
    "$RAVEL" gen --seed 7 > orig.ra || fail "ravel gen"
    "$SERVER" --oneshot < orig.ra > out.ra 2> err.txt || fail "--oneshot exited $? on gen --seed 7: $(cat err.txt)"
    "$RAVEL" check out.ra --orig orig.ra > check.txt 2>&1 || fail "ravel check rejects it: $(head -5 check.txt)"
    "$RAVEL" fmt --check out.ra || fail "the output is not in canonical form"
    n=$(wc -c < orig.ra)
    { printf 'ravel-alloc 1 %s\n' "$n"; cat orig.ra; printf 'ravel-alloc 1 %s\n' "$n"; cat orig.ra; } > req.bin
    "$SERVER" < req.bin > answers.bin 2> err.txt || fail "the frames server exited $?: $(cat err.txt)"
    [ "$(grep -c '^ok [0-9]*$' answers.bin)" -eq 2 ] || fail "want two ok answers: $(head -2 answers.bin)"
    printf 'machine\n  class int r0\nend\n\nfunc f\nb0:\n  v0:int @r0 = args\n  ret\nend\n' > alloc.ra
    "$SERVER" --oneshot < alloc.ra > /dev/null 2> err.txt
    rc=$?
    [ $rc -eq 2 ] || fail "an allocated input: exit $rc, want 2"
    grep -q "unallocated" err.txt || fail "no error message: $(cat err.txt)"
    SLOTALLOC_BUG=nope "$SERVER" --oneshot < orig.ra > /dev/null 2> err.txt
    rc=$?
    [ $rc -eq 2 ] || fail "SLOTALLOC_BUG=nope: exit $rc, want 2"
    grep -q "unknown SLOTALLOC_BUG 'nope'" err.txt || fail "no error message: $(cat err.txt)"
    ;;
clean)
    campaign "" 200
    rc=$?
    [ $rc -eq 0 ] || fail "ravel fuzz exited $rc: $(cat summary.txt; ls out 2>/dev/null | head -3)"
    # cmd1  FUNCTIONS  DECLINED  INSTRUCTIONS  FAILURES ...
    set -- $(grep '^cmd1 ' summary.txt)
    [ $# -ge 5 ] || fail "no cmd1 line in the summary: $(cat summary.txt)"
    [ "$2" -eq 200 ] || fail "$2 functions, want 200"
    [ "$5" -eq 0 ] || fail "$5 failures"
    [ $(($3 * 100)) -lt "$2" ] || fail "$3 of $2 functions declined (want under 1%)"
    ;;
bug)
    campaign "$1" 200
    rc=$?
    [ $rc -eq 1 ] || fail "SLOTALLOC_BUG=$1: ravel fuzz exited $rc, want 1: $(cat summary.txt)"
    ls out/*.ra > /dev/null 2>&1 || fail "no reproducer written"
    ;;
reduce)
    campaign "$1" 200
    case=$(ls out/*.ra 2>/dev/null | head -1)
    [ -n "$case" ] || fail "SLOTALLOC_BUG=$1: the campaign found nothing: $(cat summary.txt)"
    sed -n 's/^#| //p' "$case" > big.ra
    [ -s big.ra ] || cp "$case" big.ra
    SLOTALLOC_BUG=$1 "$RAVEL" reduce --alloc-cmd "$SERVER --oneshot" "$case" -q -o small.ra 2> reduce.txt
    rc=$?
    [ $rc -eq 0 ] || fail "ravel reduce exited $rc: $(tail -5 reduce.txt)"
    sed -n 's/^#| //p' small.ra > small.orig.ra
    [ -s small.orig.ra ] || cp small.ra small.orig.ra
    before=$(count_insts big.ra) after=$(count_insts small.orig.ra)
    echo "SLOTALLOC_BUG=$1: $case: $before instructions reduced to $after"
    [ "$after" -ge 1 ] && [ "$after" -le "$2" ] || fail "reduced to $after instructions, want 1..$2"
    SLOTALLOC_BUG=$1 "$SERVER" --oneshot < small.orig.ra > small.out.ra || fail "the allocator fails on the reduced case"
    "$RAVEL" check small.out.ra --orig small.orig.ra > check.txt 2>&1
    [ $? -eq 1 ] || fail "the reduced case is not rejected by ravel check: $(cat check.txt)"
    "$SERVER" --oneshot < small.orig.ra > fixed.ra || fail "the allocator without the bug fails on the reduced case"
    "$RAVEL" check fixed.ra --orig small.orig.ra > /dev/null 2>&1 || fail "without the bug, still rejected"
    ;;
*)
    fail "unknown test '$TEST'"
    ;;
esac
exit 0
