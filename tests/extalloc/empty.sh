#!/bin/sh
# empty.sh - one-shot: exits 0 without writing anything.
cat > /dev/null
exit 0
