#!/usr/bin/env bash
# ci/main.sh [ravel fuzz options...] - the main job (README): build ravel
# (release) and fuzz every built-in allocator against the checker for a short
# default time, with a live progress line and a summary table.
# Options are passed to `ravel fuzz` (e.g. --time 300, -a linear, --differential).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/deps.sh
dir=${RAVEL_BUILD_DIR:-build-main}
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRAVEL_BUILD_TESTS=OFF >/dev/null
cmake --build "$dir" -j "$(nproc)" >/dev/null
if [ $# -eq 0 ]; then set -- --time 60; fi
exec "$dir/cli/ravel" fuzz "$@"
