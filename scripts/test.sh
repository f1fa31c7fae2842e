#!/bin/sh
# Builds everything (library tests, examples, benchmarks, consumer projects)
# with GCC and with clang, and runs the whole test suite for each: GCC's
# Highway fallback target is SCALAR, clang's is EMU128, and both must pass.
# Usage: scripts/test.sh [gcc|clang]   (default: both)
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh --bench
jobs=$(nproc)

# Every step checks its own status: `set -e` does not apply inside a
# function that is part of an && list, so nothing here relies on it.
run() {
  name=$1 cxx=$2
  echo "== $name: configure, build, test"
  cmake -S . -B "build/$name" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
    >/dev/null || return 1
  cmake --build "build/$name" -j"$jobs" || return 1
  (cd "build/$name" && ctest -j"$jobs" --output-on-failure) || return 1
}

case "${1:-all}" in
  gcc) compilers="gcc" ;;
  clang) compilers="clang" ;;
  all) compilers="gcc clang" ;;
  *) echo "usage: $0 [gcc|clang]" >&2; exit 2 ;;
esac
for c in $compilers; do
  case $c in
    gcc) cxx=g++ ;;
    clang) cxx=clang++ ;;
  esac
  if ! run "$c" "$cxx"; then
    echo "== FAILED: $c" >&2
    exit 1
  fi
done
echo "== all tests passed"
