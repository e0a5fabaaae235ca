#!/bin/sh
# export.e2e (label llvm): N generated functions through ravel export-mir,
# llc-19's greedy from phi elimination on, the import and the checker
# (ci/llvm-campaign.sh --feeder ravel). Every exported function must be
# imported, refused or skipped with a reason, and every imported one
# verified: a rejection fails. Skipped (77) without llc-19.
ravel=$1 out=$2 n=${3:-12}
command -v llc-19 > /dev/null || { echo "export.e2e: no llc-19: skipped"; exit 77; }
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$out"
bash "$root/ci/llvm-campaign.sh" --feeder ravel --ravel "$ravel" --seeds "$n" --alloc greedy --level 2 --out "$out" 2> "$out.log"
rc=$?
cat "$out.log" | grep -v ' done (' ; 
rej=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^rejected=/) { split($i, kv, "="); s += kv[2] } } END { print s + 0 }' "$out/results.txt")
imp=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^imported=/) { split($i, kv, "="); s += kv[2] } } END { print s + 0 }' "$out/results.txt")
echo "export.e2e: $imp imported, $rej rejected (campaign exit $rc)"
[ "$rej" = 0 ] && [ "$imp" -gt 0 ]
