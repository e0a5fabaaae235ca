#!/bin/sh
# segv.sh - one-shot: reads its input, then dies of SIGSEGV.
cat > /dev/null
echo "crash.sh: about to crash" >&2
kill -SEGV $$
