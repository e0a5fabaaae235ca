# opts.sh - sourced by the ci/llvm-*.sh scripts: their option parsing and
# the ravel binary they run, written once. Requires bash; the sourcing
# script's header comment (line 2 up to its `set -u`) is its --help.
#
#   ci_opts NAME SPEC "$@"
#     SPEC lists the options, space-separated:
#       --opt=VAR    takes a value: VAR=VALUE
#       --opt+=ARR   repeatable: ARR+=(VALUE)
#       --opt!VAR    a switch: VAR=1
#     -h/--help prints the header and exits 0; an unknown option or a
#     missing value is "NAME: ..." on stderr and exit 2. The other
#     arguments, in order, are left in the array CI_ARGS.
#   ci_ravel NAME
#     $ravel made absolute; when empty, build-rel/cli/ravel, else
#     build/cli/ravel of the source tree; exit 2 if it is not executable.

ci_opts() {
  local name=$1 spec=$2 item n
  shift 2
  CI_ARGS=()
  while [ $# -gt 0 ]; do
    case $1 in
      -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
      -*)
        n=0
        for item in $spec; do
          case $item in
            "$1="*) n=2; [ $# -ge 2 ] && printf -v "${item#*=}" '%s' "$2" ;;
            "$1+="*) n=2; [ $# -ge 2 ] && eval "${item#*+=}+=(\"\$2\")" ;;
            "$1!"*) n=1; printf -v "${item#*!}" '%s' 1 ;;
          esac
          [ $n = 0 ] || break
        done
        [ $n != 0 ] || { echo "$name: unknown option $1" >&2; exit 2; }
        [ $# -ge $n ] || { echo "$name: $1 needs a value" >&2; exit 2; }
        shift $n ;;
      *) CI_ARGS+=("$1"); shift ;;
    esac
  done
}

ci_ravel() {
  local root c
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  if [ -z "$ravel" ]; then
    for c in "$root/build-rel/cli/ravel" "$root/build/cli/ravel"; do [ -x "$c" ] && { ravel=$c; break; }; done
  fi
  [ -n "$ravel" ] && [ -x "$ravel" ] || { echo "$1: no ravel binary (--ravel PATH)" >&2; exit 2; }
  ravel=$(cd "$(dirname "$ravel")" && pwd)/$(basename "$ravel")
}
