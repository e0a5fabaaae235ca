#!/bin/sh
# cli_check.sh RAVEL CASES_DIR - end-to-end tests of `ravel check`: exit
# status 0 / 1 / 2, text and JSON output, --orig, --func, --explain, --help.
RAVEL=$1
CASES=$2
TMP=${TMPDIR:-/tmp}/ravel-cli-check.$$
fail=0
expect() { # expect STATUS DESCRIPTION -- command...
    want=$1; what=$2; shift 3
    "$@" >"$TMP.out" 2>"$TMP.err"
    got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL: $what: exit $got, want $want"; cat "$TMP.out" "$TMP.err"; fail=1
    fi
}
contains() { # contains FILE TEXT DESCRIPTION
    if ! grep -qF -- "$2" "$1"; then echo "FAIL: $3: no \"$2\" in output"; cat "$1"; fail=1; fi
}
expect 0 "verified" -- "$RAVEL" check "$CASES/use_ok.ra"
contains "$TMP.out" "verified: 1 function" "verified summary"
expect 1 "errors" -- "$RAVEL" check "$CASES/use_wrong_vreg.ra"
contains "$TMP.out" "use_wrong_vreg.ra:15:7: error[use-wrong-vreg]: in func f, block b0: use 0 (v0) expects r0 to hold v0, but r0 holds {v2}" "text report"
contains "$TMP.out" "note: r0 was written with v2" "provenance note"
# the instruction as written, and a caret under the operand (column 7)
[ "$(grep -A1 -F -x -- "    ret v0 @r0  #! use-wrong-vreg" "$TMP.out" | tail -n 1)" = "        ^" ] ||
    { echo "FAIL: source line and caret"; cat "$TMP.out"; fail=1; }
expect 1 "json" -- "$RAVEL" check --json "$CASES/use_wrong_vreg.ra"
contains "$TMP.out" '{"kind":"use-wrong-vreg","file":' "json object"
contains "$TMP.out" '"expected":"v0","held":"{v2}"' "json fields"
expect 1 "explain" -- "$RAVEL" check --explain "$CASES/loop_header_explain.ra"
contains "$TMP.out" "state at every point of b1" "explain dump"
expect 0 "orig ok" -- "$RAVEL" check "$CASES/orig_ok.ra" --orig "$CASES/orig_f.orig"
expect 1 "orig mismatch" -- "$RAVEL" check "$CASES/orig_mismatch.ra" --orig "$CASES/orig_f.orig"
contains "$TMP.out" "error[orig-mismatch]" "orig-mismatch kind"
expect 0 "func filter" -- "$RAVEL" check --func f "$CASES/use_ok.ra"
expect 2 "no such func" -- "$RAVEL" check --func nope "$CASES/use_ok.ra"
expect 2 "bad input" -- "$RAVEL" check "$CASES/bad_input_no_terminator.ra"
expect 2 "missing file" -- "$RAVEL" check "$CASES/does-not-exist.ra"
expect 2 "bad option" -- "$RAVEL" check --bogus "$CASES/use_ok.ra"
expect 2 "no file" -- "$RAVEL" check
expect 0 "help" -- "$RAVEL" check --help
contains "$TMP.out" "usage: ravel check FILE" "help text"
contains "$TMP.out" "--reference" "help text: --reference"
expect 0 "reference ok" -- "$RAVEL" check --reference "$CASES/irreducible_ra2_0266.ra" --orig "$CASES/irreducible_ra2_0266.orig"
expect 1 "reference wrong" -- "$RAVEL" check --reference "$CASES/irreducible_header_lost.ra"
contains "$TMP.out" "irreducible_header_lost.ra:12:20: error[use-conflicted]" "reference first error"
printf 'machine\n  class int r0\nend\nfunc f\nb0:\n  v0:int @r0 = args\n  ret v0 @r0 +\nend\n' >"$TMP.ra"
expect 2 "syntax error" -- "$RAVEL" check "$TMP.ra"
# --json: a file that does not parse or cannot be read is reported as JSON
# bad-input objects too; bytes that are not UTF-8 (a file name) as \ufffd
expect 2 "json syntax error" -- "$RAVEL" check --json "$TMP.ra"
contains "$TMP.out" '{"kind":"bad-input","message":"' "json bad input"
contains "$TMP.out" ':7:14: error: unexpected character"}' "json bad input position"
expect 2 "json missing file" -- "$RAVEL" check --json "$CASES/does-not-exist.ra"
contains "$TMP.out" 'does-not-exist.ra: No such file or directory"}' "json unreadable file"
BAD=$(printf '%s.bad\377name.ra' "$TMP")
cp "$CASES/use_wrong_vreg.ra" "$BAD"
expect 1 "json non-UTF-8 file name" -- "$RAVEL" check --json "$BAD"
contains "$TMP.out" '.bad\ufffdname.ra"' "json file name escaped"
rm -f "$TMP.out" "$TMP.err" "$TMP.ra" "$BAD"
[ $fail = 0 ] && echo "ravel check CLI: all passed"
exit $fail
