#!/bin/sh
# hang.sh [MARK] - one-shot: never answers (MARK: to find it with pgrep).
cat > /dev/null
sleep 60
