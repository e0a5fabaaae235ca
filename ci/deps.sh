#!/usr/bin/env bash
# ci/deps.sh [extra packages...] - installs what ravel's scripts need, only if missing.
# Debian/Ubuntu, as root (or with sudo). Safe to run repeatedly.
set -euo pipefail
need=()
have() { command -v "$1" >/dev/null 2>&1; }
have cmake || need+=(cmake)
have ninja || need+=(ninja-build)
have gcc || need+=(gcc)
have clang || need+=(clang)
have python3 || need+=(python3)
# clang's sanitizer and libFuzzer runtimes
if have clang; then
  rt=$(clang -print-resource-dir 2>/dev/null)/lib/linux
  ls "$rt"/libclang_rt.asan-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-14-dev)
  ls "$rt"/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-14-dev)
else
  need+=(libclang-rt-14-dev)
fi
for p in "$@"; do
  case "$p" in
    afl++) have afl-clang-fast || need+=(afl++) ;;
    lld-14) have ld.lld-14 || have ld.lld || need+=(lld-14) ;;
    zip) have zip || need+=(zip) ;;
    *) dpkg -s "$p" >/dev/null 2>&1 || need+=("$p") ;;
  esac
done
if [ ${#need[@]} -gt 0 ]; then
  # de-duplicate
  mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
  echo "ravel: installing ${need[*]}" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
