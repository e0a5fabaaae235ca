#!/bin/sh
# garbage.sh - one-shot: answers something that is not .ra.
cat > /dev/null
echo "this is not a module {"
