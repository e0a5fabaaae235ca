#!/bin/sh
# deterministic.sh RAVEL DIR - `ravel fuzz` with the same seed and count gives
# the same table (functions, instructions, failures per allocator) and the
# same failure files, whatever the number of workers.
set -u
ravel=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir"
"$ravel" fuzz --seed 7 --count 60 -j 1 -q --max-files 100000 -o "$dir/j1" > "$dir/j1.txt"; s1=$?
"$ravel" fuzz --seed 7 --count 60 -j 3 -q --max-files 100000 -o "$dir/j3" > "$dir/j3.txt"; s3=$?
"$ravel" fuzz --seed 8 --count 60 -j 1 -q -o "$dir/s8" > "$dir/s8.txt"
cols() { awk 'NR > 1 && NF >= 6 && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ { $NF = ""; $(NF - 1) = ""; print }' "$1"; } # the counts, not the CPU columns
cols "$dir/j1.txt" > "$dir/j1.cols"; cols "$dir/j3.txt" > "$dir/j3.cols"; cols "$dir/s8.txt" > "$dir/s8.cols"
[ -s "$dir/j1.cols" ] || { echo "no summary table"; cat "$dir/j1.txt"; exit 1; }
[ "$s1" = "$s3" ] || { echo "exit status differs: $s1 vs $s3"; exit 1; }
diff "$dir/j1.cols" "$dir/j3.cols" || { echo "-j 1 and -j 3 differ"; exit 1; }
(cd "$dir/j1" && ls) > "$dir/j1.files"; (cd "$dir/j3" && ls) > "$dir/j3.files"
diff "$dir/j1.files" "$dir/j3.files" || { echo "failure files differ"; exit 1; }
# another seed gives other functions (the instruction totals differ)
if diff -q "$dir/j1.cols" "$dir/s8.cols" >/dev/null; then echo "seeds 7 and 8 gave the same campaign"; exit 1; fi
echo "deterministic: ok"
