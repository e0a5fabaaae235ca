#!/bin/sh
# inject.sh RAVEL DIR [KIND...] - `ravel alloc --inject` (the bug catalogue)
# on generated functions of >= 500 instructions, then `ravel reduce`: each
# wrong allocation reduces to <= 5% of its instructions or <= 15, still
# rejected with the input's first error kind. Prints one line per kind and
# the median ratio and time.
set -u
ravel=$1 dir=$2; shift 2
kinds=${*:-use-reg drop-spill drop-reload reload-slot slot-reuse move-swap pmove-cycle call-clobber fixed reuse early-def edge-move spill-one-path stale-loop arg-swap smap-missing smap-nonref ref-in-reg}
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir"
# functions of at least 500 original instructions
n=0
for s in 1 3 4 5 6; do
  "$ravel" gen --seed $s --insts 800 --window 32 > "$dir/g$s.ra" || fail "gen"
  c=$("$ravel" fmt "$dir/g$s.ra" | sed -n '/^func/,$p' | grep -vc '^func\|^end\|^b[0-9_]*.*:$')
  [ "$c" -ge 500 ] && n=$((n + 1)) && eval "f$n=\$dir/g\$s.ra"
done
[ "$n" -ge 2 ] || fail "no function of 500 instructions"
: > "$dir/results"
for k in $kinds; do
  done=0
  for i in $(seq 1 $n); do
    eval "in=\$f$i"
    for a in linear fast; do
      "$ravel" alloc -a $a --inject "$k:1" "$in" > "$dir/$k.ra" 2>/dev/null || continue
      "$ravel" check "$dir/$k.ra" > "$dir/$k.check" 2>&1; [ $? = 1 ] || continue
      first=$(grep -o 'error\[[a-z-]*\]' "$dir/$k.check" | head -1)
      "$ravel" reduce "$dir/$k.ra" -o "$dir/$k.red.ra" 2> "$dir/$k.sum" || fail "$k: reduce exited $?: $(cat "$dir/$k.sum")"
      set -- $(sed -n 's/.* lines, \([0-9]*\) -> \([0-9]*\) instructions .*, \([0-9.]*\) s.*/\1 \2 \3/p' "$dir/$k.sum")
      [ $# = 3 ] || fail "$k: no summary: $(cat "$dir/$k.sum")"
      [ "$2" -le 15 ] || [ $(($2 * 20)) -le "$1" ] || fail "$k: $1 -> $2 instructions"
      "$ravel" check "$dir/$k.red.ra" > "$dir/$k.red.check" 2>&1; [ $? = 1 ] || fail "$k: the reduced case is accepted"
      grep -qF "$first" "$dir/$k.red.check" || fail "$k: lost $first"
      echo "$k $a $1 $2 $3" | tee -a "$dir/results"
      done=1
      break
    done
    [ $done = 1 ] && break
  done
  [ $done = 1 ] || echo "$k: no applicable site in these functions"
done
[ -s "$dir/results" ] || fail "nothing reduced"
awk '{ r[NR] = $4 / $3; t[NR] = $5 } END {
  n = NR; for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) { if (r[j] < r[i]) { x = r[i]; r[i] = r[j]; r[j] = x } if (t[j] < t[i]) { x = t[i]; t[i] = t[j]; t[j] = x } }
  m = int((n + 1) / 2); printf "%d kinds reduced: median ratio %.4f, median time %.2f s\n", n, (n % 2 ? r[m] : (r[m] + r[m + 1]) / 2), (n % 2 ? t[m] : (t[m] + t[m + 1]) / 2) }' "$dir/results"
