#!/bin/sh
# decline_calls.sh - one-shot: declines (exit 3) every function with a call,
# allocates the others with `ravel alloc -a linear`.
in=$(cat)
case "$in" in
*" call "*) echo "decline_calls.sh: calls are not supported" >&2; exit 3 ;;
esac
printf '%s\n' "$in" | exec "$RAVEL" alloc -a linear -
