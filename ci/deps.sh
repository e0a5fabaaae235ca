#!/usr/bin/env bash
# ci/deps.sh [--for main|test|fuzz] [extra packages...] - installs what a
# ravel script needs, only if it is missing. Debian/Ubuntu, as root (or with
# sudo). Safe to run repeatedly.
#   --for main   the main job (ci/main.sh): cmake, ninja-build, gcc
#   --for test   the test command (ci/test.sh): the above, clang, its
#                sanitizer runtime, python3 (the examples' tests), pkg-config
#                (the install check), llvm-19 and clang-19 (import.e2e:
#                `ravel import-mir` on llc-19's output, docs/import.md)
#   --for fuzz   the fuzzing scripts: the above but python3 (the default,
#                when --for is not given, is test)
# The sanitizer and libFuzzer runtime is the package of the installed
# clang's major version (libclang-rt-N-dev), not a fixed one; so is the
# linker an extra package `lld` asks for (lld-N, for AFL++).
set -euo pipefail
what=test
if [ "${1:-}" = "--for" ]; then
  what=${2:-}
  shift 2 || { echo "ci/deps.sh: --for needs main, test or fuzz" >&2; exit 2; }
fi
case "$what" in main|test|fuzz) ;; *) echo "ci/deps.sh: --for needs main, test or fuzz, not '$what'" >&2; exit 2 ;; esac

SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
updated=0
install() { # install PACKAGES...: apt-get install, the package lists read once
  [ $# -gt 0 ] || return 0
  echo "ravel: installing $*" >&2
  export DEBIAN_FRONTEND=noninteractive
  if [ $updated = 0 ]; then $SUDO apt-get update -qq; updated=1; fi
  $SUDO apt-get install -y -qq "$@" >/dev/null
}
have() { command -v "$1" >/dev/null 2>&1; }
clang_major() { # the installed clang's major version, or exit 2
  local major
  major=$(clang -dumpversion 2>/dev/null | cut -d. -f1)
  [ -n "$major" ] || { echo "ci/deps.sh: cannot tell clang's version" >&2; exit 2; }
  echo "$major"
}

need=()
want_lld=0
have cmake || need+=(cmake)
have ninja || need+=(ninja-build)
have gcc || need+=(gcc)
if [ "$what" != main ]; then
  have clang || need+=(clang)
  if [ "$what" = test ]; then
    have python3 || need+=(python3)
    have pkg-config || need+=(pkg-config)
    have llc-19 || need+=(llvm-19)
    have clang-19 || need+=(clang-19)
  fi
fi
for p in "$@"; do
  case "$p" in
    afl++) have afl-clang-fast || need+=(afl++) ;;
    lld) want_lld=1; have clang || need+=(clang) ;; # (after clang: its version)
    zip) have zip || need+=(zip) ;;
    *) dpkg -s "$p" >/dev/null 2>&1 || need+=("$p") ;;
  esac
done
if [ ${#need[@]} -gt 0 ]; then
  mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
  install "${need[@]}"
fi

# clang's sanitizer and libFuzzer runtimes, for the version of clang that is there
if [ "$what" != main ]; then
  rt=$(clang -print-resource-dir 2>/dev/null)/lib/linux
  if ! ls "$rt"/libclang_rt.asan-x86_64.a "$rt"/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
    major=$(clang_major) || exit 2
    install "libclang-rt-$major-dev"
  fi
fi
# lld of the installed clang's version
if [ "$want_lld" = 1 ]; then
  major=$(clang_major) || exit 2
  have "ld.lld-$major" || install "lld-$major"
fi
