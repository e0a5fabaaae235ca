#!/bin/bash
# llvm-campaign.sh - LLVM's register allocators under a fuzzer (issue 31,
# docs/import.md "The campaign"): csmith programs, compiled by clang at
# -O0..-O3, every function allocated by greedy, basic, fast and pbqp,
# imported by `ravel import-mir run --check`, which judges each function as
# `ravel check FUNC.ra --orig FUNC.orig.ra` would, in its own process
# (at -O0 only fast: llc -O0 allocates with fast whatever is asked).
# With --feeder ravel the programs are ravel's generated functions as SSA
# x86-64 MIR (`ravel export-mir`, one function per seed), run by llc from
# phi elimination on (`import-mir run --ssa`), at -O0 (fast) and -O2
# (greedy, basic, pbqp) by default.
#
#   ci/llvm-campaign.sh [--feeder csmith|ravel] [--ravel PATH] [--seed0 S]
#                       [--seeds N] [--shard K/N] [--time SEC] [--level L]...
#                       [--alloc A]... --out DIR
#   ci/llvm-campaign.sh --summary DIR...
#
#   --feeder F     csmith (the default) or ravel
#   --seed0 S, --seeds N  the seeds S .. S+N-1 (default 1, 1000)
#   --shard K/N    only the seeds s with (s - S) mod N = K - 1 (default 1/1):
#                  shards are disjoint and together cover the seeds, so any
#                  batch engine (a CI matrix, ClusterFuzzLite's batch jobs, a
#                  cluster's array job) can run them; --summary merges them
#   --time SEC     start no new seed after SEC seconds (default: no limit)
#   --level L, --alloc A  restrict the levels (0-3) and allocators
#   --out DIR      results.txt (one line per seed, level and allocator),
#                  refused.txt (allocator and reason per refusal),
#                  retried.txt (runs in which llc failed, run once more: the
#                  second run counts), and rejected/ (kept: see below);
#                  appended to, so a shard can be resumed
#   --summary DIR...  print the merged summary of shard directories
#
# Every rejection or import error is kept in DIR/rejected/sSEED-OL-ALLOC/:
# the csmith program, the exact commands (llvm/*.commands.txt), the LLVM
# and csmith versions, the import log, and FUNC.ra, FUNC.orig.ra and
# FUNC.check (the checker's report) of each rejected function. Reduce it
# with ci/llvm-reduce.sh (cvise: "import + check still fails the same
# way"), then `ravel reduce` on the .ra.
# Exit status: 0 no rejection and no import error, 1 some, 2 bad usage,
# 77 no csmith, clang-19 or llc-19.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
feeder=csmith ravel= seed0=1 seeds=1000 shard=1/1 tlimit=0 out= levels=() allocs=() summary=0 sdirs=()
. "$root/ci/opts.sh"
ci_opts llvm-campaign.sh "--feeder=feeder --ravel=ravel --seed0=seed0 --seeds=seeds --shard=shard --time=tlimit --level+=levels --alloc+=allocs --out=out --summary!summary" "$@"
sdirs=(${CI_ARGS[@]+"${CI_ARGS[@]}"})
[ $summary = 1 ] || [ ${#sdirs[@]} = 0 ] || { echo "llvm-campaign.sh: unexpected ${sdirs[0]}" >&2; exit 2; }

# The summary of result lines (from one shard or many).
summarize() {
  cat "$@" | awk '
    { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      k = v["alloc"] " -O" v["O"]; keys[k] = 1; a = v["alloc"]; alls[a] = 1
      F[k] += v["functions"]; I[k] += v["imported"]; R[k] += v["refused"]; E[k] += v["errors"]; J[k] += v["rejected"]; X[k] += v["failed"]
      F[a] += v["functions"]; I[a] += v["imported"]
      c += v["clang"]; l += v["llc"]; im += v["import"]; ch += v["check"]; n += v["functions"]; runs++
      if (!(v["seed"] in seen)) { seen[v["seed"]] = 1; nseeds++ } }
    END {
      printf "%d seeds, %d runs, %d functions\n", nseeds, runs, n
      for (k in keys) printf "  %-12s %6d functions, %6d imported (%.2f%%), %4d refused, %3d import errors, %3d rejected, %3d runs failed\n", k, F[k], I[k], F[k] ? 100 * I[k] / F[k] : 0, R[k], E[k], J[k], X[k]
      t = c + l + im + ch
      printf "CPU seconds: clang %.1f, llc %.1f, import %.1f, check %.1f (ravel %.1f%%); %.2f functions/s/core\n", c, l, im, ch, (t > 0 ? 100 * (im + ch) / t : 0), (t > 0 ? n / t : 0)
    }' > "${TMPDIR:-/tmp}/.ravel-summary.$$"
  local f="${TMPDIR:-/tmp}/.ravel-summary.$$"
  grep '^[0-9]' "$f"; grep '^  ' "$f" | sort; grep '^CPU' "$f"; rm -f "$f"
}
if [ $summary = 1 ]; then
  [ ${#sdirs[@]} -gt 0 ] || { echo "llvm-campaign.sh: --summary DIR..." >&2; exit 2; }
  res=() ref=()
  for d in "${sdirs[@]}"; do res+=("$d/results.txt"); [ -e "$d/refused.txt" ] && ref+=("$d/refused.txt"); done
  summarize "${res[@]}"
  [ ${#ref[@]} -gt 0 ] && cat "${ref[@]}" | sort | uniq -c | sort -rn | sed 's/^/  refused: /'
  for d in "${sdirs[@]}"; do if [ -e "$d/retried.txt" ]; then cat "$d/retried.txt"; fi; done | awk 'END { if (NR) print "  llc failed, run again: " NR }'
  for d in "${sdirs[@]}"; do [ -e "$d/exported.txt" ] && cat "$d/exported.txt"; done | sort | uniq -c | sort -rn | sed 's/^/  export: /'
  n=$(cat "${res[@]}" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(rejected|errors)=/) { split($i, kv, "="); s += kv[2] } } END { print s + 0 }')
  [ "$n" = 0 ]; exit $?
fi

[ -n "$out" ] || { echo "llvm-campaign.sh: --out DIR is required" >&2; exit 2; }
ci_ravel llvm-campaign.sh
case $feeder in csmith) tools="csmith clang-19 llc-19" ;; ravel) tools=llc-19 ;; *) echo "llvm-campaign.sh: --feeder csmith|ravel" >&2; exit 2 ;; esac
for t in $tools; do command -v $t > /dev/null || { echo "llvm-campaign.sh: $t is not installed: skipped"; exit 77; }; done
k=${shard%/*} n=${shard#*/}
case "$k$n" in *[!0-9]*|'') echo "llvm-campaign.sh: --shard K/N" >&2; exit 2 ;; esac
[ "$k" -ge 1 ] && [ "$k" -le "$n" ] || { echo "llvm-campaign.sh: --shard K/N needs 1 <= K <= N" >&2; exit 2; }
if [ ${#levels[@]} = 0 ]; then if [ $feeder = ravel ]; then levels=(0 2); else levels=(0 1 2 3); fi; fi
[ ${#allocs[@]} -gt 0 ] || allocs=(greedy basic fast pbqp)
csinc=/usr/include/csmith
mkdir -p "$out/rejected"
work=$(mktemp -d "${TMPDIR:-/tmp}/ravel-campaign-XXXXXX")
trap 'rm -rf "$work"' EXIT
versions="$(llc-19 --version | grep -i 'llvm version' | head -1 | sed 's/^ *//'); $(if [ $feeder = csmith ]; then cd "$work" && csmith --version | head -1; else "$ravel" --version 2>/dev/null | head -1 || echo ravel; fi)"

# The import of seed $1 at level $2 by allocator $3 into directory $4;
# its log in $4/import.log; returns ravel's exit status.
import_once() {
  local s=$1 lvl=$2 a=$3 d=$4
  rm -rf "$d"; mkdir -p "$d"
  if [ $feeder = ravel ]; then
    "$ravel" import-mir run --ssa "$work/gen-$s.mir" --llvm 19 --alloc "$a" -O "$lvl" --times --check --keep --timeout 120 \
      -o "$d" > "$d/import.log" 2>&1
  else
    "$ravel" import-mir run "$work/s$s.c" --llvm 19 --alloc "$a" -O "$lvl" --times --check --keep -I "$csinc" \
      --clang-arg -w --timeout 120 -o "$d" > "$d/import.log" 2>&1
  fi
}

# One seed, one level, one allocator: a line of results.txt. A run in which
# llc failed (refusals `llc`: a crash, a kill or a timeout, mostly of a
# loaded machine) is run once more; the seed goes to retried.txt, and the
# second run's figures count.
one() {
  local s=$1 lvl=$2 a=$3 d=$work/run rc
  import_once "$s" "$lvl" "$a" "$d"
  rc=$?
  if grep -q ': refused llc' "$d/import.log"; then
    echo "seed=$s O=$lvl alloc=$a: llc failed, run again" >> "$out/retried.txt"
    echo "seed $s -O$lvl $a: llc failed, run again" >&2
    import_once "$s" "$lvl" "$a" "$d"
    rc=$?
  fi
  local tl fn=0 imp=0 ref=0 err=0 rej=0 failed=0 c=0 l=0 i=0 ck=0
  tl=$(grep '^times: ' "$d/import.log")
  if [ $rc = 2 ] || [ -z "$tl" ]; then failed=1
  else
    set -- $tl; c=$3 l=$5 i=$7 ck=$9
    imp=$(grep -c ': imported' "$d/import.log"); ref=$(grep -c ': refused ' "$d/import.log"); err=$(grep -c ': import error ' "$d/import.log")
    fn=$((imp + ref + err))
    grep ': refused ' "$d/import.log" | sed "s/^[^:]*: refused \([^:]*\):.*/$a \1/" >> "$out/refused.txt"
  fi
  grep ': imported.*, rejected$' "$d/import.log" | sed "s|: imported.*||; s|^|$d/|" > "$d/rejected.list"
  rej=$(wc -l < "$d/rejected.list")
  if [ $rej -gt 0 ] || [ $err -gt 0 ] || [ $failed = 1 ]; then
    local kd=$out/rejected/s$s-O$lvl-$a
    rm -rf "$kd"; mkdir -p "$kd"
    cp -r "$d/llvm" "$kd/" 2>/dev/null; cp "$d/import.log" "$kd/"
    echo "$versions" > "$kd/versions.txt"
    if [ $feeder = ravel ]; then
      cp "$work/gen-$s.mir" "$kd/"
      echo "$ravel export-mir --seed $s -o .; $ravel import-mir run --ssa gen-$s.mir --llvm 19 --alloc $a -O $lvl --check --keep -o OUT" > "$kd/command.txt"
    else
      cp "$work/s$s.c" "$kd/"
      echo "csmith --seed $s $CSMITH_FLAGS > s$s.c; $ravel import-mir run s$s.c --llvm 19 --alloc $a -O $lvl --check --keep -I $csinc --clang-arg -w -o OUT" > "$kd/command.txt"
    fi
    while read -r b; do cp "$b.ra" "$b.orig.ra" "$b.check" "$kd/"; done < "$d/rejected.list"
    echo "seed $s -O$lvl $a: $rej rejected, $err import errors, failed $failed: $kd" >&2
  fi
  echo "seed=$s O=$lvl alloc=$a functions=$fn imported=$imp refused=$ref errors=$err rejected=$rej failed=$failed clang=$c llc=$l import=$i check=$ck"
}

CSMITH_FLAGS=${CSMITH_FLAGS:-}
start=$(date +%s)
done_seeds=0
for ((s = seed0; s < seed0 + seeds; s++)); do
  [ $(((s - seed0) % n)) = $((k - 1)) ] || continue
  if [ "$tlimit" -gt 0 ] && [ $(($(date +%s) - start)) -ge "$tlimit" ]; then break; fi
  if [ $feeder = ravel ]; then
    rm -f "$work/gen-$s.mir"
    "$ravel" export-mir --seed "$s" -o "$work" > "$work/export.log" 2>&1 || { echo "seed $s: export-mir failed" >&2; continue; }
    if [ ! -e "$work/gen-$s.mir" ]; then
      sed -n "s/^gen-$s: skipped \([^:]*\):.*/skipped \1/p" "$work/export.log" >> "$out/exported.txt"
      done_seeds=$((done_seeds + 1)); continue
    fi
    echo exported >> "$out/exported.txt"
  else
    # shellcheck disable=SC2086
    (cd "$work" && csmith --seed "$s" $CSMITH_FLAGS > "s$s.c" 2> /dev/null) || { echo "seed $s: csmith failed" >&2; continue; }
  fi
  for lvl in "${levels[@]}"; do
    for a in "${allocs[@]}"; do
      [ "$lvl" = 0 ] && [ "$a" != fast ] && continue # llc -O0 allocates with fast whatever is asked
      [ $feeder = ravel ] && [ "$lvl" != 0 ] && [ "$a" = fast ] && [ ${#levels[@]} -gt 1 ] && continue # fast at -O0 only, unless asked
      one "$s" "$lvl" "$a" >> "$out/results.txt"
    done
  done
  done_seeds=$((done_seeds + 1))
  echo "seed $s done ($done_seeds seeds, $(($(date +%s) - start)) s)" >&2
done
summarize "$out/results.txt"
[ -e "$out/refused.txt" ] && sort "$out/refused.txt" | uniq -c | sort -rn | sed 's/^/  refused: /'
if [ -e "$out/retried.txt" ]; then awk 'END { print "  llc failed, run again: " NR }' "$out/retried.txt"; fi
[ -e "$out/exported.txt" ] && sort "$out/exported.txt" | uniq -c | sort -rn | sed 's/^/  export: /'
bad=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(rejected|errors)=/) { split($i, kv, "="); s += kv[2] } } END { print s + 0 }' "$out/results.txt")
[ "$bad" = 0 ]
