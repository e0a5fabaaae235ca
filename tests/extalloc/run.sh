#!/bin/sh
# run.sh CASE RAVEL RAVEL_REPLAY DIR - one end-to-end case of external
# allocators (`ravel fuzz --alloc-cmd`, `ravel reduce --alloc-cmd`,
# fuzz/extalloc.c) with the small allocators of this directory. Each case is
# a ctest of its own (extalloc.CASE); all are deterministic (fixed seeds,
# -j 1 where counts depend on the order) and take seconds.
set -u
case_=$1 RAVEL=$2 REPLAY=$3 dir=$4
export RAVEL
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "extalloc.$case_: FAIL: $*"; for f in "$dir"/*.txt; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }
# fuzz NAME ARGS...: ravel fuzz with ARGS, summary in NAME.txt, stderr in NAME.err, status in $st
fuzz() { n=$1; shift; "$RAVEL" fuzz --seed 1 -q "$@" -o "$dir/$n" > "$dir/$n.txt" 2> "$dir/$n.err"; st=$?; }
# json NAME FIELD: the first allocator's FIELD in NAME.txt (a --json summary)
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["allocators"][0][sys.argv[2]])' "$dir/$1.txt" "$2"; }
want_status() { [ "$st" = "$1" ] || fail "exit status $st, want $1"; }
want_in() { grep -q -- "$2" "$1" || fail "'$2' not in $1"; }
first_file() { ls "$dir/$1"/*.ra 2>/dev/null | head -n 1; }

case $case_ in
clean) # a correct one-shot allocator: N functions, nothing declined, no failure
    fuzz a -n 12 -j 2 --json --alloc-cmd "sh $here/linear.sh"
    want_status 0
    [ "$(json a functions)" = 12 ] || fail "functions $(json a functions), want 12"
    [ "$(json a failures)" = 0 ] && [ "$(json a declined)" = 0 ] || fail "failures or declines"
    [ "$(json a command)" = "sh $here/linear.sh" ] || fail "the JSON does not hold the command"
    [ "$(json a protocol)" = oneshot ] || fail "protocol"
    ;;
python) # the same in Python, beside a built-in allocator (-a): both run
    fuzz a -n 8 -j 2 -a fast --alloc-cmd "python3 $here/oneshot.py"
    want_status 0
    want_in "$dir/a.txt" '^fast  *8 '
    want_in "$dir/a.txt" '^cmd1  *8  *0 '
    want_in "$dir/a.txt" "^cmd1 = --alloc-cmd 'python3 $here/oneshot.py' (oneshot; its cpu-us/exec is ravel's side only"
    ;;
decline) # exit 3 on some functions: counted as declined, not failures
    fuzz a -n 12 -j 2 --json --alloc-cmd "python3 $here/oneshot.py --max-insts 100"
    want_status 0
    d=$(json a declined)
    [ "$d" -gt 0 ] && [ "$d" -lt 12 ] || fail "declined $d, want some of 12"
    [ "$(json a failures)" = 0 ] || fail "declines counted as failures"
    fuzz b -n 12 -j 2 --alloc-cmd "python3 $here/oneshot.py --max-insts 100"
    want_in "$dir/b.txt" "^cmd1  *12  *$d "
    ;;
crash) # exit 1 with a message: a failure whose reproducer names the command and holds its stderr
    fuzz a -n 4 -j 2 --alloc-cmd "sh $here/crash.sh"
    want_status 1
    want_in "$dir/a.txt" '^cmd1  *4  *0  *[0-9]*  *4 '
    f=$(first_file a); [ -n "$f" ] || fail "no failure file"
    want_in "$f" "^# alloc-cmd: sh $here/crash.sh$"
    want_in "$f" '^# alloc-protocol: oneshot$'
    want_in "$f" '#   the command exited with status 1$'
    want_in "$f" 'crash.sh: internal error: out of spill slots'
    ;;
signal) # killed by SIGSEGV (exec: the script is the child itself)
    fuzz a -n 2 -j 1 --alloc-cmd "exec sh $here/segv.sh"
    want_status 1
    want_in "$(first_file a)" 'the command was killed by signal SIGSEGV'
    fuzz b -n 2 -j 1 --alloc-cmd "sh $here/segv.sh" # through a shell: its status 139
    want_in "$(first_file b)" 'the command exited with status 139 (as a shell reports SIGSEGV)'
    ;;
timeout) # never answers: killed after --alloc-timeout, no hang, nothing left running
    t0=$(date +%s)
    fuzz a -n 2 -j 1 --alloc-timeout 1 --alloc-cmd "sh $here/hang.sh $dir"
    t1=$(date +%s)
    want_status 1
    [ $((t1 - t0)) -le 10 ] || fail "took $((t1 - t0)) s"
    want_in "$dir/a.txt" '^cmd1  *2  *0  *[0-9]*  *2 '
    want_in "$(first_file a)" 'the command timed out after 1 s (killed)'
    sleep 0.2
    if pgrep -f "hang.sh $dir" > /dev/null; then fail "hang.sh still running"; fi
    ;;
garbage) # output that is not .ra
    fuzz a -n 2 -j 1 --alloc-cmd "sh $here/garbage.sh"
    want_status 1
    want_in "$(first_file a)" 'the command wrote output that does not parse'
    ;;
sigpipe) # exits without reading a large input: a failure, ravel is not killed by SIGPIPE
    fuzz a -n 3 -j 1 --insts 3000 --alloc-cmd "exit 1"
    want_status 1
    want_in "$dir/a.txt" '^cmd1  *3  *0  *[0-9]*  *3 '
    if grep -q 'worker crash' "$dir/a.txt"; then fail "a worker died (SIGPIPE?)"; fi
    want_in "$(first_file a)" 'the command exited with status 1'
    ;;
empty) # exit 0 and no output on every function: a usage error before the campaign, exit 2
    fuzz a -n 50 --alloc-cmd "sh $here/empty.sh"
    want_status 2
    want_in "$dir/a.err" "ravel fuzz: error: --alloc-cmd 'sh $here/empty.sh': command wrote nothing on standard output (exit 0)"
    ;;
notfound) # command not found: exit 2 and a clear message, not thousands of failures
    fuzz a -n 50 --alloc-cmd "no-such-allocator-cmd"
    want_status 2
    want_in "$dir/a.err" "ravel fuzz: error: --alloc-cmd 'no-such-allocator-cmd': command not found (exit 127)"
    fuzz b -n 50 --alloc-protocol frames --alloc-cmd "no-such-allocator-cmd"
    want_status 2
    want_in "$dir/b.err" "command not found (exit 127)"
    "$RAVEL" reduce --alloc-cmd "no-such-allocator-cmd" "$here/../../corpus/ra/$(ls "$here/../../corpus/ra" | head -n 1)" \
        > "$dir/r.txt" 2> "$dir/r.err"
    st=$?; want_status 2
    want_in "$dir/r.err" "ravel reduce: error: --alloc-cmd 'no-such-allocator-cmd': command not found (exit 127)"
    ;;
wrong_reduce) # a wrong allocation (linear, then --inject use-reg): found, then reduced with the command
    fuzz a -n 4 -j 1 --alloc-cmd "sh $here/wrong.sh"
    want_status 1
    f=$(first_file a); [ -n "$f" ] || fail "no failure file"
    want_in "$f" 'error\[use-wrong-vreg\]'
    "$REPLAY" "$f" > "$dir/replay.txt"; st=$?
    want_status 0
    want_in "$dir/replay.txt" '^skip '
    "$RAVEL" reduce -q --alloc-cmd "sh $here/wrong.sh" "$f" -o "$dir/reduced.ra" 2> "$dir/reduce.err"; st=$?
    want_status 0
    want_in "$dir/reduced.ra" "^# alloc-cmd: sh $here/wrong.sh$"
    want_in "$dir/reduced.ra" 'error\[use-wrong-vreg\]'
    n=$(awk '/^func /{on=1} on&&/^  /{n++} /^end/{on=0} END{print n+0}' "$dir/reduced.ra")
    [ "$n" -le 8 ] || fail "the reduced function has $n lines of body"
    ;;
header) # a command's reproducer says only what is true: the commands its header gives run as it says
    # (no ravel_replay, no ravel alloc -a: they know only the built-in allocators)
    # quoted, with a space inside the quotes: the reproduce line must quote it for sh
    cmd="sh -c 'sh $here/wrong.sh'"
    fuzz a -n 2 -j 1 --alloc-cmd "$cmd"
    want_status 1
    f=$(first_file a); [ -n "$f" ] || fail "no failure file"
    cp "$f" "$dir/case.ra"
    fuzz b -n 1 -j 1 --alloc-protocol frames --alloc-timeout 7 --alloc-cmd "python3 $here/frames_server.py --die-after 1"
    g=$(first_file b); [ -n "$g" ] || fail "no failure file (frames)"
    cp "$g" "$dir/unalloc.ra"
    for x in "$dir/case.ra" "$dir/unalloc.ra"; do
        if grep -n 'ravel_replay\|ravel alloc -a\|ALLOCATOR' "$x" > "$dir/bad.txt"; then fail "$x: $(cat "$dir/bad.txt")"; fi
    done
    want_in "$dir/unalloc.ra" '^# the function given to the allocator:$'
    want_in "$dir/unalloc.ra" "^#   ravel reduce --alloc-cmd 'python3 $here/frames_server.py --die-after 1' --alloc-protocol frames --alloc-timeout 7 THIS_FILE$"
    # the header's commands, with THIS_FILE and this build's ravel
    run_line() { sed -n "s/^$2/\\1/p" "$1" | sed "s|THIS_FILE|$1|g; s|ravel |\"\$RAVEL\" |g"; }
    verdict=$(run_line "$dir/case.ra" "# the checker's verdict again: \\(.*\\)")
    [ -n "$verdict" ] || fail "no verdict line"
    (cd "$dir" && sh -c "$verdict") > "$dir/verdict.txt" 2>&1; st=$?
    want_status 1
    want_in "$dir/verdict.txt" 'error\[use-wrong-vreg\]'
    reduce=$(run_line "$dir/case.ra" "#   \\(ravel reduce .*\\)")
    [ -n "$reduce" ] || fail "no reproduce line"
    sh -c "$reduce -q -o '$dir/reduced.ra'" 2> "$dir/reduce.err"; st=$?
    want_status 0
    want_in "$dir/reduced.ra" 'error\[use-wrong-vreg\]'
    want_in "$dir/reduced.ra" "^# alloc-cmd: $cmd$"
    ;;
frames_clean) # a persistent server (Python): one per worker, no failure
    fuzz a -n 16 -j 2 --json --alloc-protocol frames --alloc-cmd "python3 $here/frames_server.py"
    want_status 0
    [ "$(json a functions)" = 16 ] && [ "$(json a failures)" = 0 ] || fail "functions or failures"
    [ "$(json a protocol)" = frames ] || fail "protocol"
    ;;
frames_decline)
    fuzz a -n 12 -j 2 --json --alloc-protocol frames --alloc-cmd "python3 $here/frames_server.py --decline-calls"
    want_status 0
    [ "$(json a declined)" -gt 0 ] && [ "$(json a failures)" = 0 ] || fail "declines"
    ;;
frames_die) # dies on its 3rd function: that one fails (with its stderr), the server is restarted
    fuzz a -n 8 -j 1 --alloc-protocol frames --alloc-cmd "python3 $here/frames_server.py --die-after 3"
    want_status 1
    want_in "$dir/a.txt" '^cmd1  *8  *0  *[0-9]*  *2 ' # functions 3 and 6 (the restarted server's 3rd)
    [ -f "$dir/a/cmd1-i2.ra" ] && [ -f "$dir/a/cmd1-i5.ra" ] || fail "failure files: $(ls "$dir/a")"
    want_in "$dir/a/cmd1-i2.ra" 'the frames server exited with status 1 with this function in flight'
    want_in "$dir/a/cmd1-i2.ra" 'frames_server: dying on function 3 as asked'
    want_in "$dir/a/cmd1-i2.ra" '^# alloc-protocol: frames$'
    ;;
frames_framing) # a malformed reply header on its 3rd function
    fuzz a -n 8 -j 1 --alloc-protocol frames --alloc-cmd "python3 $here/frames_server.py --break-at 3"
    want_status 1
    want_in "$dir/a.txt" '^cmd1  *8  *0  *[0-9]*  *2 '
    want_in "$dir/a/cmd1-i2.ra" "the frames server broke the framing (its answer began with 'this is not a reply."
    ;;
frames_hang) # never answers its 3rd function: killed after the timeout, restarted
    t0=$(date +%s)
    fuzz a -n 5 -j 1 --alloc-timeout 1 --alloc-protocol frames --alloc-cmd "python3 $here/frames_server.py --hang-at 3"
    t1=$(date +%s)
    want_status 1
    [ $((t1 - t0)) -le 12 ] || fail "took $((t1 - t0)) s"
    want_in "$dir/a.txt" '^cmd1  *5  *0  *[0-9]*  *1 '
    want_in "$dir/a/cmd1-i2.ra" 'the frames server timed out after 1 s (killed; restarted for the next function)'
    ;;
frames_reduce) # a wrong frames server found and reduced in persistent mode
    fuzz a -n 3 -j 1 --alloc-protocol frames --alloc-cmd "python3 $here/frames_server.py --inject use-reg"
    want_status 1
    f=$(first_file a); [ -n "$f" ] || fail "no failure file"
    "$RAVEL" reduce -q --alloc-protocol frames --alloc-cmd "python3 $here/frames_server.py --inject use-reg" "$f" \
        -o "$dir/reduced.ra" 2> "$dir/reduce.err"; st=$?
    want_status 0
    want_in "$dir/reduced.ra" '^# alloc-protocol: frames$'
    want_in "$dir/reduced.ra" 'error\[use-wrong-vreg\]'
    ;;
kit) # a fuzzing kit's crash input regenerated (all bytes make the function) and reduced against the command
    python3 -c 'import random,sys; r=random.Random(5); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(3000)))' \
        > "$dir/crash.bin"
    "$RAVEL" reduce -q --from-fuzz kit "$dir/crash.bin" --alloc-cmd "sh $here/wrong.sh" -o "$dir/kit.ra" 2> "$dir/kit.err"
    st=$?; want_status 0
    want_in "$dir/kit.ra" "^# alloc-cmd: sh $here/wrong.sh$"
    want_in "$dir/kit.ra" 'error\[use-wrong-vreg\]'
    "$RAVEL" reduce -q --from-fuzz kit "$dir/crash.bin" > /dev/null 2> "$dir/kit2.err"; st=$?
    want_status 2 # the kit's allocator is the user's: it must be given
    want_in "$dir/kit2.err" 'the allocator is yours'
    ;;
usage) # bad options: exit 2 with a message
    for args in "--alloc-protocol bogus --alloc-cmd true" "--alloc-timeout 0 --alloc-cmd true" \
                "--alloc-protocol frames" "--alloc-cmd="; do
        # shellcheck disable=SC2086
        "$RAVEL" fuzz -n 1 -q $args > "$dir/u.txt" 2> "$dir/u.err"; st=$?
        want_status 2
        want_in "$dir/u.err" 'ravel fuzz: '
    done
    "$RAVEL" reduce --alloc-cmd true -a fast x.ra > "$dir/u.txt" 2> "$dir/u.err"; st=$?
    want_status 2
    want_in "$dir/u.err" 'cannot be combined'
    "$RAVEL" reduce --alloc-timeout 3 x.ra > "$dir/u.txt" 2> "$dir/u.err"; st=$?
    want_status 2
    "$RAVEL" fuzz --help > "$dir/u.txt"; want_in "$dir/u.txt" '--alloc-cmd'
    "$RAVEL" reduce --help > "$dir/u.txt"; want_in "$dir/u.txt" '--alloc-cmd'
    ;;
*) fail "unknown case" ;;
esac
echo "extalloc.$case_: ok"
