#!/bin/sh
# mutate.sh PYTHON3 RAVEL FIXTURES TMP [--llvm] - the MIR-level mutation study
# (ci/llvm-mutate.py, docs/import.md "The mutation study") on the checked-in
# llc output of the fixtures, or with --llvm on llc-19's output for the
# fixtures' C files made now (exit 77 without clang-19 and llc-19). Fails if
# a missed mutation changes what the function computes (the interpreter's
# verdict), or if a mutation is never applied, never caught, or (those the
# importer cannot see: remat, call) never caught by the checker.
set -u
py=$1 ravel=$2 fx=$3 tmp=$4
rm -rf "$tmp"
mkdir -p "$tmp"
dirs=
if [ "${5:-}" = --llvm ]; then
  if ! command -v llc-19 > /dev/null 2>&1 || ! command -v clang-19 > /dev/null 2>&1; then
    echo "import.mutate_llvm: skipped: no llc-19/clang-19"; exit 77
  fi
  for c in calls loops pressure floats; do
    for a in greedy fast; do
      lvl=2; [ $a = fast ] && lvl=0
      "$ravel" import-mir run "$fx/$c.c" --llvm 19 --alloc $a -O $lvl --keep -q -o "$tmp/$c.$a" > /dev/null 2>&1 || { echo "import.mutate_llvm: $c $a: run failed"; exit 1; }
      dirs="$dirs $tmp/$c.$a/llvm"
    done
  done
else
  dirs=$(ls -d "$fx"/*.greedy "$fx"/*.basic "$fx"/*.pbqp "$fx"/*.fast)
fi
# shellcheck disable=SC2086
"$py" "$(dirname "$0")/../../ci/llvm-mutate.py" --ravel "$ravel" --json "$tmp/table.json" $dirs
rc=$?
[ $rc = 0 ] || { echo "import.mutate: a missed mutation changed what the function computes"; exit 1; }
"$py" - "$tmp/table.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["table"]
bad = [m for m, r in t.items() if r["applied"] == 0 or r["caught_import"] + r["caught_check"] == 0]
bad += [m + " (checker)" for m in ("remat", "call") if t[m]["caught_check"] == 0]
if bad:
    print("import.mutate: never applied or never caught: " + ", ".join(bad))
    sys.exit(1)
PY
