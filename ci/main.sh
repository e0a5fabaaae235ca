#!/usr/bin/env bash
# ci/main.sh [ravel fuzz options...] - the main job (README): build ravel
# (release) and fuzz every built-in allocator against the checker for a short
# default time, with a live progress line and a summary table.
# Options are passed to `ravel fuzz` (e.g. --time 300, -a linear, --differential).
# The build is quiet when it succeeds; when it fails its log is shown.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/deps.sh --for main
dir=${RAVEL_BUILD_DIR:-build-main}
mkdir -p "$dir"
log=$dir.build.log
echo "ci/main.sh: building ravel (Release) in $dir/ (log: $log) ..." >&2
if ! { cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRAVEL_BUILD_TESTS=OFF &&
       cmake --build "$dir" -j "$(nproc)"; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "ci/main.sh: the build failed (log above, also in $log)" >&2
  exit 1
fi
echo "ci/main.sh: built $dir/cli/ravel; fuzzing" >&2
if [ $# -eq 0 ]; then set -- --time 60; fi
exec "$dir/cli/ravel" fuzz "$@"
