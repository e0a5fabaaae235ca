#!/bin/bash -eu
# ClusterFuzzLite build: the same build as OSS-Fuzz's (ci/oss-fuzz/build.sh).
exec bash "$SRC/ravel/ci/oss-fuzz/build.sh"
