#!/bin/sh
# kit_reduce.sh TEST_KIT RAVEL DIR - the kit's fixed mapping (include/ravel_fuzz.h):
# `ravel reduce --from-fuzz kit CRASHFILE` regenerates from a kit input the
# very function (same printed text) and seed the kit gave the callback, for
# the random machine and for a given one (--machine FILE). test_kit --emit
# writes the inputs and what the kit's callback saw; the reducer's --test
# command keeps "the candidate is that text", which holds from the start
# only if the mapping agrees (else exit 1; --time 2: what the reduction
# does after that first test does not matter).
set -u
test_kit=$1 ravel=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir" || exit 1
"$test_kit" --emit "$dir" || { echo "kit_reduce: test_kit --emit failed"; exit 1; }
cat > "$dir/same.sh" <<'SH'
# same.sh CANDIDATE EXPECTED: the same machine and function, comments and blank lines aside
grep -v '^#' "$1" | sed '/^[ \t]*$/d' > "$1.body"
grep -v '^#' "$2" | sed '/^[ \t]*$/d' | cmp -s - "$1.body"
SH
fail=0
# regen CASE EXPECTED [ravel reduce options]: the status of the reduction
regen() {
    c=$1 want=$2
    shift 2
    "$ravel" reduce -q --time 2 "$@" --from-fuzz kit "$dir/$c.bin" --test "sh $dir/same.sh {} $dir/$want.ra" \
        -o "$dir/$c-$want.out" 2> "$dir/$c-$want.err"
}
regen random random; st=$?
[ $st -eq 0 ] || { echo "kit_reduce: random machine: ravel reduce regenerates another function (status $st)"; cat "$dir/random-random.err"; fail=1; }
regen machine machine --machine "$dir/machine-file.ra"; st=$?
[ $st -eq 0 ] || { echo "kit_reduce: given machine: ravel reduce regenerates another function (status $st)"; cat "$dir/machine-machine.err"; fail=1; }
for c in random machine; do
    grep -qxF "$(cat "$dir/$c.seed")" "$dir/$c-$c.out" 2>/dev/null ||
        { echo "kit_reduce: $c: the reduction's seed is not the one the kit gave the callback ($(cat "$dir/$c.seed"))"; fail=1; }
done
# the control: another input's function is not this one (the test can fail)
regen machine random --machine "$dir/machine-file.ra"; st=$?
[ $st -eq 1 ] || { echo "kit_reduce: control: a different function was taken for the same (status $st)"; fail=1; }
[ $fail -eq 0 ] && echo "kit_reduce: ok"
exit $fail
