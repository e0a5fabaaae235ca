#!/bin/sh
# linear.sh - a one-shot external allocator: `ravel alloc -a linear` on stdin.
exec "$RAVEL" alloc -a linear -
