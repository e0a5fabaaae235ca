#!/bin/sh
# wrong.sh - one-shot: allocates with linear, then corrupts the allocation
# with `ravel alloc --inject use-reg` (a wrong register for a use) where it
# can (else the correct allocation).
in=$(cat)
printf '%s\n' "$in" | "$RAVEL" alloc -a linear --inject use-reg:1 - 2>/dev/null && exit 0
printf '%s\n' "$in" | exec "$RAVEL" alloc -a linear -
