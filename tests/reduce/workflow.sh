#!/bin/sh
# workflow.sh RAVEL RAVEL_REPLAY SRCDIR DIR - the reproducer workflow end to
# end (README "Reducing and filing a reproducer"):
#   a failing case as `ravel fuzz` writes it -> ravel reduce --open ->
#   DIR/reproducers/NAME.ra with `# status: open` -> replayed as ctest does
#   (reported, not failed) -> the fix: the line deleted -> the replay guards
#   (a changed verdict now fails it).
set -u
ravel=$1 replay=$2 src=$3 dir=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir/reproducers"
case=$src/reproducers/linear-stale-slot-value.ra  # written by `ravel fuzz` (target differential, allocator linear)
out=$dir/reproducers/linear-stale-slot.ra

# 1. reduce it, marked open
"$ravel" reduce --open -q "$case" -o "$out"; rc=$?
[ "$rc" = 0 ] || fail "ravel reduce exited $rc"
[ ! -e "$out".tmp* ] 2>/dev/null || fail "temporary file left behind"
for line in '# ravel fuzz reproducer' '# target: differential' '# allocator: linear' \
            '# seed: 0x3222dd80e42f749f' '# status: open'; do
  grep -qx "$line" "$out" || fail "header line '$line' missing"
done
grep -q '^# reduced-from: 295 lines, 270 instructions$' "$out" || fail "no reduced-from line"
before=$(grep -vc '^#' "$case"); after=$(grep -vc '^#' "$out")
[ "$after" -lt $((before / 5)) ] || fail "not reduced: $before -> $after lines"
echo "reduced $before -> $after lines"

# 2. the reduced allocation is still rejected, with the input's first kind
"$ravel" check "$out" > "$dir/check.txt"; rc=$?
[ "$rc" = 1 ] || fail "ravel check exited $rc on the reduced case"
grep -q 'error\[use-wrong-vreg\]' "$dir/check.txt" || fail "error kind use-wrong-vreg lost"

# 3. replayed as ctest replays reproducers/: open, reported, not failed
"$replay" "$dir/reproducers" > "$dir/replay1.txt"; rc=$?
cat "$dir/replay1.txt"
[ "$rc" = 0 ] || fail "replay of an open reproducer failed the suite"
grep -q "^open .*linear-stale-slot.ra" "$dir/replay1.txt" || fail "not reported as open"

# 4. fixed: delete the status line; from now on the replay guards
sed -i '/^# status: open$/d' "$out"
"$replay" "$dir/reproducers" > "$dir/replay2.txt"; rc=$?
[ "$rc" = 0 ] && grep -q "^ok .*linear-stale-slot.ra" "$dir/replay2.txt" || fail "replay after the fix: $rc"

# 5. the guard can fail: a reproducer whose verdict no longer holds
sed 's/^# status: open$//; s/^# seed:/# expect: accept\n# seed:/' "$out" > "$dir/reproducers/regressed.ra"
"$replay" "$dir/reproducers" > "$dir/replay3.txt"; rc=$?
[ "$rc" = 1 ] && grep -q "^FAIL .*regressed.ra" "$dir/replay3.txt" || fail "a broken reproducer passed the replay"

# 6. the output replays exactly as the reduced text says: deterministic
"$ravel" reduce --open -q "$case" -o "$dir/again.ra" || fail "second run"
sed -i '/^# status: open$/d' "$dir/again.ra"
cmp -s "$out" "$dir/again.ra" || fail "two runs differ"
# 7. candidates of a reproducer must replay as it does: reduced freely, this
# one becomes an `args` with more register defs than registers, which the
# allocators rightly refuse, and its replay would fail
mkdir -p "$dir/r7"
"$ravel" reduce -q "$src/reproducers/checker-replay-inner-loop-shortcut.ra" -o "$dir/r7/shortcut.ra" || fail "reduce shortcut"
"$replay" "$dir/r7" > "$dir/replay7.txt" || { cat "$dir/replay7.txt"; fail "the reduced reproducer does not replay"; }
echo "workflow: ok"
