#!/bin/sh
# Builds everything (library tests, examples, benchmarks, consumer projects)
# with GCC and with clang, and runs the whole test suite for each: GCC's
# Highway fallback target is SCALAR, clang's is EMU128, and both must pass.
# Then builds the tests once more with clang's AddressSanitizer and
# UndefinedBehaviorSanitizer (no recovery: any report fails) and runs them on
# every target again.
# Usage: scripts/test.sh [gcc|clang|sanitize]   (default: all three)
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh --bench
jobs=$(nproc)

# Every step checks its own status: `set -e` does not apply inside a
# function that is part of an && list, so nothing here relies on it.
run() {
  name=$1 cxx=$2
  shift 2
  echo "== $name: configure, build, test"
  cmake -S . -B "build/$name" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" "$@" \
    >/dev/null || return 1
  cmake --build "build/$name" -j"$jobs" || return 1
  (cd "build/$name" && ctest -j"$jobs" --output-on-failure $ctest_args) || return 1
}

sanitize_flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

case "${1:-all}" in
  gcc | clang | sanitize) configs=$1 ;;
  all) configs="gcc clang sanitize" ;;
  *) echo "usage: $0 [gcc|clang|sanitize]" >&2; exit 2 ;;
esac
for c in $configs; do
  ctest_args=""
  case $c in
    gcc) set -- g++ ;;
    clang) set -- clang++ ;;
    sanitize)
      # Tests and examples only; the packaging tests rebuild without the flags.
      set -- clang++ -DCMAKE_CXX_FLAGS="$sanitize_flags" -DTENSOROPS_BUILD_BENCHMARKS=OFF
      ctest_args="-LE packaging"
      ;;
  esac
  if ! run "$c" "$@"; then
    echo "== FAILED: $c" >&2
    exit 1
  fi
done
echo "== all tests passed"
