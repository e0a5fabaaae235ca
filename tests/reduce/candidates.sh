#!/bin/sh
# candidates.sh RAVEL DIR - every candidate a --test command sees is valid
# .ra (ravel validate --ssa accepts each one logged), the {} substitution
# and the appended path both work, and --from-fuzz regenerates a fuzz
# target's function from its input bytes.
set -u
ravel=$1 dir=$2
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir/c"
"$ravel" gen --seed 3 --insts 300 > "$dir/in.ra" || fail "gen"
cat > "$dir/test.sh" <<EOT
n=\$(ls "$dir/c" | wc -l); cp "\$1" "$dir/c/\$n.ra"; grep -q ' = mul ' "\$1"
EOT
"$ravel" reduce -q --test "sh $dir/test.sh" "$dir/in.ra" -o "$dir/out.ra"; rc=$?
[ "$rc" = 0 ] || fail "reduce exited $rc"
n=$(ls "$dir/c" | wc -l)
[ "$n" -gt 20 ] || fail "only $n candidates tested"
"$ravel" validate --ssa "$dir"/c/*.ra > "$dir/validate.txt" 2>&1 || { head "$dir/validate.txt"; fail "an invalid candidate was tested"; }
grep -q ' = mul ' "$dir/out.ra" || fail "property lost"
[ "$(grep -c ' = ' "$dir/out.ra")" -le 3 ] || fail "not minimal: $(cat "$dir/out.ra")"
# {} substitution
"$ravel" reduce -q --test "grep -q ' = mul ' {}" "$dir/in.ra" -o "$dir/out2.ra" || fail "{} form"
grep -v '^# verdict' "$dir/out.ra" > "$dir/o1"; grep -v '^# verdict' "$dir/out2.ra" > "$dir/o2"
cmp -s "$dir/o1" "$dir/o2" || fail "the {} and appended forms differ"
# --from-fuzz: the function fuzz_alloc generates from these bytes
printf 'ravel-fuzz-input-bytes-for-the-reducer-0123456789abcdefghijklmnop' > "$dir/crash"
"$ravel" reduce -q --from-fuzz fuzz_alloc "$dir/crash" -o "$dir/fz.ra"; rc=$?
[ "$rc" = 1 ] || fail "--from-fuzz on an input without a bug exited $rc (want 1)"
"$ravel" gen --from "$dir/crash" --skip 1 > "$dir/gen.ra" || fail "gen --from"
grep -q ' = ' "$dir/gen.ra" || fail "gen --from gave nothing"
# the function regenerated is the one `ravel gen --from FILE --skip 1` prints:
# a property only that very text has keeps it whole
"$ravel" reduce -q --from-fuzz fuzz_alloc "$dir/crash" --test "sed -n '/^machine/,\$p' {} | cmp -s - $dir/gen.ra" \
  --time 5 -o "$dir/fz.ra" || fail "--from-fuzz: not the function of gen --from"
sed -n '/^machine/,$p' "$dir/fz.ra" | cmp -s - "$dir/gen.ra" || fail "--from-fuzz regenerated another function"
grep -q '^# target: alloc$' "$dir/fz.ra" && grep -q '^# allocator: ' "$dir/fz.ra" && grep -q '^# seed: 0x' "$dir/fz.ra" \
  || fail "--from-fuzz header: $(head -5 "$dir/fz.ra")"
# usage errors
"$ravel" reduce --keep nope "$dir/in.ra" 2>/dev/null; [ $? = 2 ] || fail "--keep nope"
"$ravel" reduce "$dir/in.ra" 2>/dev/null; [ $? = 2 ] || fail "unallocated input without -a"
"$ravel" alloc -a linear "$dir/in.ra" > "$dir/ok.ra" || fail "alloc"
"$ravel" reduce -q "$dir/ok.ra" 2>"$dir/err.txt"; [ $? = 1 ] || fail "a correct allocation is not a failing case"
grep -q 'does not have the property' "$dir/err.txt" || fail "message: $(cat "$dir/err.txt")"
# --orig: accepted when it is FILE without its allocation; the reduced one is the #| lines
awk '/= reload/ && !done && NR > 150 { done = 1; next } { print }' "$dir/ok.ra" > "$dir/bad-alloc.ra"
if "$ravel" check "$dir/bad-alloc.ra" > /dev/null 2>&1; then :; else
  "$ravel" reduce -q --orig "$dir/in.ra" "$dir/bad-alloc.ra" -o "$dir/orig-out.ra" || fail "--orig (same function)"
  sed -n 's/^#| //p' "$dir/orig-out.ra" > "$dir/orig-red.ra"
  "$ravel" check --orig "$dir/orig-red.ra" "$dir/orig-out.ra" > /dev/null; [ $? = 1 ] || fail "reduced pair not rejected"
  "$ravel" gen --seed 4 --insts 300 > "$dir/other.ra"
  "$ravel" reduce -q --orig "$dir/other.ra" "$dir/bad-alloc.ra" 2>/dev/null; [ $? = 2 ] || fail "--orig of another function accepted"
fi
# -a on a correct allocator: nothing to keep (exit 1); an unknown one: usage (exit 2)
"$ravel" reduce -q -a linear "$dir/in.ra" 2>"$dir/err2.txt"; [ $? = 1 ] || fail "-a linear on a passing input"
grep -q 'its verdict: passes' "$dir/err2.txt" || fail "message: $(cat "$dir/err2.txt")"
"$ravel" reduce -a no-such "$dir/in.ra" 2>/dev/null; [ $? = 2 ] || fail "-a no-such"
# bad input: the validator's FILE:LINE:COL diagnostics, exit 2
sed 's/ret v/ret v999/' "$dir/in.ra" > "$dir/bad.ra"
if grep -q 'ret v999' "$dir/bad.ra"; then
  "$ravel" reduce -a linear "$dir/bad.ra" 2>"$dir/bad.txt"; [ $? = 2 ] || fail "invalid input: exit $?"
  grep -q "bad.ra:[0-9]*:[0-9]*: error:" "$dir/bad.txt" || fail "no FILE:LINE:COL diagnostic: $(cat "$dir/bad.txt")"
fi
echo "candidates: ok ($n candidates, all valid)"
