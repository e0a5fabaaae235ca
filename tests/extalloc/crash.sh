#!/bin/sh
# crash.sh - one-shot: reads its input, says why on stderr, exits 1.
cat > /dev/null
echo "crash.sh: internal error: out of spill slots" >&2
exit 1
