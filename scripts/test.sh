#!/bin/sh
# Builds everything (library tests, examples, benchmarks, consumer projects)
# with GCC and with clang, and runs the whole test suite for each: GCC's
# Highway fallback target is SCALAR, clang's is EMU128, and both must pass.
# Then builds the tests once more with clang's AddressSanitizer and
# UndefinedBehaviorSanitizer (no recovery: any report fails) and runs them on
# every target again.
# Finally builds the libFuzzer targets (clang, ASan+UBSan) and runs each for
# FUZZ_SECONDS (default 15) from the seed corpus in tests/fuzz/corpus.
# Usage: scripts/test.sh [gcc|clang|sanitize|fuzz]   (default: all four)
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

# Each fuzz target runs from a scratch copy of its seed corpus (new inputs
# stay out of the repository); the ONNX reader also reads real node tests.
fuzz() {
  echo "== fuzz: configure, build, run ${FUZZ_SECONDS:-15} s per target"
  cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ \
    -DTENSOROPS_BUILD_FUZZERS=ON -DTENSOROPS_BUILD_BENCHMARKS=OFF -DTENSOROPS_BUILD_EXAMPLES=OFF \
    >/dev/null || return 1
  targets="fuzz_view fuzz_ops fuzz_gather fuzz_onnx_reader"
  cmake --build build/fuzz -j"$jobs" --target $targets || return 1
  for t in $targets; do
    scratch=$(mktemp -d)
    extra=""
    if [ "$t" = fuzz_onnx_reader ]; then
      extra="/usr/share/libonnx-testdata/data/node/test_gather_0/test_data_set_0"
    fi
    if ! build/fuzz/tests/$t -max_total_time="${FUZZ_SECONDS:-15}" -print_final_stats=1 \
        "$scratch" "tests/fuzz/corpus/$t" $extra >"$scratch.log" 2>&1; then
      tail -40 "$scratch.log"
      return 1
    fi
    echo "   $t: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$scratch.log" | grep -o '[0-9]*$') executions, no failure"
    rm -rf "$scratch" "$scratch.log"
  done
}

case "${1:-all}" in
  gcc | clang | sanitize | fuzz) configs=$1 ;;
  all) configs="gcc clang sanitize fuzz" ;;
  *) echo "usage: $0 [gcc|clang|sanitize|fuzz]" >&2; exit 2 ;;
esac
for c in $configs; do
  if [ "$c" = fuzz ]; then
    if ! fuzz; then
      echo "== FAILED: fuzz" >&2
      exit 1
    fi
    continue
  fi
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
