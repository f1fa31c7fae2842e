#!/bin/sh
# Builds everything (library tests, examples, benchmarks, consumer projects)
# with GCC and runs the whole test suite on the x86 targets from SSE4 up.
# Then builds the tests with clang's AddressSanitizer and
# UndefinedBehaviorSanitizer (no recovery: any report fails), with the
# libFuzzer targets in the same build, and runs them on one target per vector
# width. Then runs each libFuzzer target for FUZZ_SECONDS (default 15) from the
# seed corpus in tests/fuzz/corpus.
# Then cross-builds tests and examples for 64-bit Arm (GCC) and
# runs the suite (but the packaging tests, left to armv7) under qemu-user,
# each Highway target once: SVE at 128, 256 and 512 bits (SVE2_128, SVE and
# NEON with the dot product; SVE_256; SVE2), and the quantized tests on a
# Cortex-A72 (NEON without the dot product).
# Then cross-builds for 32-bit Arm (armhf) with two baselines and runs the
# suite under qemu-arm on a Cortex-A15 and a Cortex-A9 (see armv7 below):
# GCC's fallback target, SCALAR, runs there.
# Then builds Highway 1.2 and Catch2 v3 from Debian trixie's source packages
# and runs the suite against them, built by clang, on the x86 targets new in
# Highway 1.2 and on clang's fallback target, EMU128 (newer-deps).
# Every x86 target runs in at least one step, most in two (see each step).
# Usage: scripts/test.sh [gcc|sanitize|fuzz|aarch64|armv7|newer-deps]   (default: all six)
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc)

# Ninja (scripts/install-deps.sh installs it): it keeps both cores busy
# across targets, where make's per-target steps leave one idle. The
# consumer projects inherit it.
export CMAKE_GENERATOR=Ninja

# configure <build dir> <cmake options...>: a Release configuration of this
# source tree, quietly. A directory configured by make earlier is
# configured afresh (CMake refuses to change a directory's generator).
configure() {
  configure_dir=$1
  shift
  if grep -qs '^CMAKE_GENERATOR:INTERNAL=Unix Makefiles' "$configure_dir/CMakeCache.txt"; then
    rm -rf "$configure_dir/CMakeCache.txt" "$configure_dir/CMakeFiles"
  fi
  cmake -S . -B "$configure_dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
}

# Every step checks its own status: `set -e` does not apply inside a
# function that is part of an && list, so nothing here relies on it.
run() {
  name=$1 cxx=$2
  shift 2
  echo "== $name: configure, build, test"
  configure "build/$name" -DCMAKE_CXX_COMPILER="$cxx" "$@" || return 1
  cmake --build "build/$name" -j"$jobs" || return 1
  (cd "build/$name" && ctest -j"$jobs" --output-on-failure) || return 1
}

# Of the x86 targets, GCC compiles and runs SSE4, AVX2, AVX3 and AVX3_DL:
# SSE4 is the static target (-msse4.2 with the PCLMUL and AES that Highway's
# SSE4 includes), so SSSE3 and SCALAR are not compiled. SSSE3 differs from
# SSE4 only inside Highway's emulation of a few instructions and runs in the
# sanitize step; GCC's SCALAR runs on armv7 (the same code, with 32-bit
# sizes). The benchmarks, the documentation's C++ blocks and the developer
# tools (tools/) are built, and the first two run, in this step only.
gcc() {
  run gcc g++ "-DCMAKE_CXX_FLAGS=-msse4.2 -mpclmul -maes"
}

# The clang steps (sanitize, newer-deps) compile the test files (references,
# Catch's checks; not the kernels, which keep each step's flags) at -O0: a
# third of -O1's build time for about 20 s more of running them. (The gcc
# step keeps the default, GCC's -Og; the Arm steps too, where qemu runs the
# test code as well.)
test_code_args="-DTENSOROPS_TEST_CODE_FLAGS=-O0"

# UBSan's object-size check is left out: it checks accesses against the
# sizes the optimiser can see, which AddressSanitizer checks byte for byte
# already; on Highway's inlined vector code it doubled the kernels' build
# time (AVX3: 91 s instead of 46 s for one kernel file, UBSan alone).
# UBSan's pointer-overflow check is left out of the kernels (the test code
# and the light API keep it, through test_code_args below, and so do the
# fuzzers, whose files compile every kernel they fuzz): it took 30% of the
# kernels' build time, and a pointer that leaves its buffer and is read is
# AddressSanitizer's report anyway.
sanitize_flags="-fsanitize=address,undefined -fno-sanitize=object-size,pointer-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer"

# The sanitizer build: tests and examples (the packaging tests rebuild
# without the flags, so they are left out of its run), and the libFuzzer
# targets, which take the same sanitizers: one build serves both steps.
# -mssse3 makes SSSE3 the static target, so Highway's emulated EMU128
# target is not compiled here: with -fsanitize=bounds every lane of its
# array-backed vectors gets a check, which made this build 7x slower. Its
# 4-lane shape stays sanitized through SSSE3 (SSE4 is left out below), and
# EMU128 itself runs the whole suite in the newer-deps step. -O1, as
# sanitizer builds usually are: the build is what takes this step's time,
# and the checks do not depend on the optimisation level. The test files
# themselves compile at -O0, as in every clang step (test_code_args above):
# instrumented, they took 3.5x as long at -O1, and nothing of theirs is
# optimised away at -O0.
# Of the x86 targets, the sanitizers run one per vector width: SSSE3, AVX2 and
# AVX3. SSE4 and AVX3_DL take the same memory paths as SSSE3 and AVX3 (they
# differ in a few arithmetic instructions, which the gcc step runs), so they
# are left out of this build (HWY_SSE4 | HWY_AVX3_DL).
sanitize_args="-DCMAKE_CXX_FLAGS=$sanitize_flags -mssse3 -DHWY_DISABLED_TARGETS=0x880"
sanitize_configure() {
  configure build/sanitize -DCMAKE_CXX_COMPILER=clang++ \
    "$sanitize_args" -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DTENSOROPS_BUILD_BENCHMARKS=OFF -DTENSOROPS_BUILD_TOOLS=OFF -DTENSOROPS_BUILD_FUZZERS=ON \
    -DTENSOROPS_TEST_DOC_SNIPPETS=OFF \
    "$test_code_args -fsanitize=pointer-overflow"
}

sanitize() {
  echo "== sanitize: configure, build (the fuzz targets too), test"
  sanitize_configure || return 1
  cmake --build build/sanitize -j"$jobs" || return 1
  (cd build/sanitize && ctest -j"$jobs" --output-on-failure -LE packaging) || return 1
}

# Each fuzz target runs from a scratch copy of its seed corpus (new inputs
# stay out of the repository); the ONNX reader also reads real node tests.
# The targets come from the sanitizer build (built there already when the
# sanitize step ran first). One target per core at a time: each still has a
# core for its whole FUZZ_SECONDS.
fuzz_one() {
  t=$1 scratch=$(mktemp -d) extra=""
  if [ "$t" = fuzz_onnx_reader ]; then
    extra="/usr/share/libonnx-testdata/data/node/test_gather_0/test_data_set_0"
  fi
  # shellcheck disable=SC2086
  if ! "build/sanitize/tests/$t" -max_total_time="${FUZZ_SECONDS:-15}" -print_final_stats=1 \
      "$scratch" "tests/fuzz/corpus/$t" $extra >"$scratch.log" 2>&1; then
    echo "   $t FAILED:"
    tail -40 "$scratch.log"
    return 1
  fi
  echo "   $t: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$scratch.log" | grep -o '[0-9]*$') executions, no failure"
  rm -rf "$scratch" "$scratch.log"
}

fuzz() {
  echo "== fuzz: build (in build/sanitize), run ${FUZZ_SECONDS:-15} s per target"
  sanitize_configure || return 1
  targets="fuzz_view fuzz_ops fuzz_gather fuzz_onnx_reader fuzz_quant"
  # shellcheck disable=SC2086
  cmake --build build/sanitize -j"$jobs" --target $targets || return 1
  # shellcheck disable=SC2086
  set -- $targets
  failed=0
  while [ $# -gt 0 ]; do
    pids=""
    i=0
    while [ $# -gt 0 ] && [ $i -lt "$jobs" ]; do
      fuzz_one "$1" &
      pids="$pids $!"
      shift
      i=$((i + 1))
    done
    for pid in $pids; do
      wait "$pid" || failed=1
    done
  done
  [ $failed = 0 ]
}

# The "runnable targets: ... (default: X; tests run on: ...)" line the dispatch test prints
# (Catch may wrap it), as one line.
runnable_targets() {
  tr '\n' ' ' | tr -s ' ' |
    sed -n 's/.*runnable targets: \([^(]*(default: [^)]*)\).*/\1/p'
}

# The emulated CPUs (qemu's -cpu) and the targets each runs: every target
# once, and the sizeless SVE code at two lengths (qemu's SVE costs about
# three times as much per test at 256 and 512 bits as at 128, so no target
# runs twice):
#   SVE 128 bits: SVE2_128, SVE (sizeless, at 128) and NEON (with the dot
#                 product, which qemu's max CPU has)
#   SVE 256 bits: SVE_256
#   SVE 512 bits: SVE2 (sizeless, at 512)
#   Cortex-A72:   the quantized tests only, NEON without the dot product
#                 (the one kernel that differs where the CPU lacks it)
# TENSOROPS_TEST_SKIP_TARGETS leaves out what another CPU runs.
arm_cpus="max,sve-default-vector-length=16 max,sve-default-vector-length=32
  max,sve-default-vector-length=64 cortex-a72"

aarch64() {
  echo "== aarch64: cross-build, then the suite under qemu on each CPU"
  scripts/install-deps.sh --aarch64 || return 1
  # No benchmarks: speed under emulation means nothing. -O2, as Debian builds
  # its packages and camera SDKs their applications (and a quarter faster to
  # compile than -O3; the x86 steps test -O3).
  configure build/aarch64 -DTENSOROPS_BUILD_BENCHMARKS=OFF \
    -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake || return 1
  cmake --build build/aarch64 -j"$jobs" || return 1
  # The packaging tests (install, find_package, FetchContent: CMake logic)
  # are left to the gcc, armv7 and newer-deps steps; armv7's build the
  # consumers with a cross toolchain and run them under qemu, as these would.
  skip_packaging="-LE packaging"
  for cpu in $arm_cpus; do
    export TENSOROPS_QEMU_CPU="$cpu"
    only=""
    case $cpu in
      *length=16) export TENSOROPS_TEST_SKIP_TARGETS="SVE2" ;;
      *length=32) export TENSOROPS_TEST_SKIP_TARGETS="NEON SVE SVE2" ;;
      *length=64) export TENSOROPS_TEST_SKIP_TARGETS="NEON SVE" ;;
      *) unset TENSOROPS_TEST_SKIP_TARGETS; only="-L quant" ;;
    esac
    # Which targets this CPU runs, as the dispatch test finds them (every
    # test runs each of them).
    targets=$(cmake/toolchains/qemu-aarch64.sh build/aarch64/tests/dispatch_test \
      "Every compiled target this CPU supports is reached" 2>&1 | runnable_targets)
    echo "-- qemu -cpu $cpu: targets $targets${only:+, the quantized tests only}"
    # The compiler tests run the cross compiler: the first CPU runs them.
    # shellcheck disable=SC2086
    (cd build/aarch64 && ctest -j"$jobs" --output-on-failure $skip_packaging $only) || return 1
    skip_packaging="-LE packaging|compiler"
  done
  unset TENSOROPS_QEMU_CPU
}

# 32-bit Arm (armhf), two builds run under qemu-arm:
# - camera: NEON (VFPv3) baseline, for Cortex-A9-class cameras, run on a
#   Cortex-A9 (NEON, VFPv3). The binaries must hold no VFPv4 instruction
#   (fused multiply-add), or the Cortex-A9 that the build targets could not
#   run them. (A Cortex-A15 would run the same NEON code again.)
# - debian: the compiler's defaults (no NEON baseline): NEON on a
#   Cortex-A15, the scalar copy on a Cortex-A9 (see dispatch.h).
armv7() {
  echo "== armv7: cross-build, then the suite under qemu on each CPU"
  scripts/install-deps.sh --armv7 || return 1
  for baseline in camera debian; do
    dir=build/armv7-$baseline
    echo "-- baseline $baseline"
    # -O2 as for aarch64. The debian build differs from the camera build only
    # in its flags, which the tests cover: the examples, the packaging tests
    # (the same sources again) and the compiler tests (the same compiler
    # command) are left to the camera build.
    only_tests="" skip=""
    if [ $baseline = debian ]; then
      only_tests="-DTENSOROPS_BUILD_EXAMPLES=OFF" skip="-LE packaging|compiler"
    fi
    configure "$dir" -DTENSOROPS_BUILD_BENCHMARKS=OFF \
      -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" $only_tests \
      -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-linux-gnueabihf.cmake \
      -DTENSOROPS_ARMV7_BASELINE=$baseline || return 1
    cmake --build "$dir" -j"$jobs" || return 1
    if [ $baseline = camera ]; then
      fused=$(for f in "$dir"/tests/*_test "$dir"/examples/*; do
        [ -x "$f" ] && [ -f "$f" ] && arm-linux-gnueabihf-objdump -d "$f"; done |
        grep -cE '\svfn?m[as]\.f(32|64)' || true)
      echo "-- VFPv4 fused multiply-adds in the binaries: $fused"
      [ "$fused" = 0 ] || return 1
    fi
    cpus="cortex-a15 cortex-a9"
    if [ $baseline = camera ]; then cpus=cortex-a9; fi
    for cpu in $cpus; do
      export TENSOROPS_QEMU_CPU=$cpu
      # The debian build's scalar copy runs on the Cortex-A9 (the CPU it
      # exists for); the A15 would run the same code again.
      if [ $baseline = debian ] && [ $cpu = cortex-a15 ]; then
        export TENSOROPS_TEST_SKIP_TARGETS=SCALAR
      else
        unset TENSOROPS_TEST_SKIP_TARGETS
      fi
      targets=$(cmake/toolchains/qemu-arm.sh "$dir/tests/dispatch_test" \
        "Every compiled target this CPU supports is reached" 2>&1 | runnable_targets)
      echo "-- $baseline on qemu -cpu $cpu: targets $targets"
      (cd "$dir" && ctest -j"$jobs" --output-on-failure $skip) || return 1
    done
  done
  unset TENSOROPS_QEMU_CPU TENSOROPS_TEST_SKIP_TARGETS
}

# Highway 1.2 and Catch2 v3, the versions newer distributions (and users who
# vendor Highway) have: built from Debian trixie's source packages, fetched
# with apt-get through a private sources list and lists directory (the
# machine's apt configuration is not touched), installed into a prefix in the
# user's cache directory (TENSOROPS_DEPS_CACHE, default ~/.cache/tensorops),
# reused by later runs and clones while the source tarballs are unchanged;
# then the whole suite against that prefix, built by clang (a distribution's
# Highway is built by GCC, a user's program may well be clang's; and clang
# compiles the suite in about 60% of GCC's time, while the gcc step covers
# GCC). This is also the step that runs the suite built by clang without
# sanitizers, optimised as users build it.
newer_deps() {
  echo "== newer-deps: Highway and Catch2 from Debian trixie's sources, then the suite"
  deps=${TENSOROPS_DEPS_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/tensorops}/newer-deps
  prefix=$deps/prefix
  mkdir -p "$deps/apt/lists/partial" "$deps/download"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
    "http://deb.debian.org/debian trixie main" >"$deps/apt/sources.list"
  apt_private="-o Dir::Etc::SourceList=$deps/apt/sources.list -o Dir::Etc::SourceParts=/dev/null
    -o Dir::State::Lists=$deps/apt/lists"
  # A mirror mid-sync may fail the update; the download below decides.
  # shellcheck disable=SC2086
  apt-get -qq $apt_private update || echo "-- apt-get update failed; trying the download anyway"
  # shellcheck disable=SC2086
  (cd "$deps/download" && apt-get -qq $apt_private source --download-only highway catch2 \
    >/dev/null 2>&1) || return 1
  hwy_tar=$(ls "$deps"/download/highway_*.orig.tar.gz | tail -1)
  catch_tar=$(ls "$deps"/download/catch2_*.orig.tar.gz | tail -1)
  # Catch2 is built at -O1: it only runs the tests' checks, and builds in
  # 43 s instead of 59 at -O3. The flags are part of the stamp.
  catch_flags="-O1 -DNDEBUG"
  stamp=$( (cat "$hwy_tar" "$catch_tar"; echo "$catch_flags") | sha256sum | cut -d' ' -f1)
  if [ "$(cat "$prefix/.stamp" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$prefix" "$deps/build"
    mkdir -p "$deps/build"
    for tar in "$hwy_tar" "$catch_tar"; do
      name=$(basename "$tar" .orig.tar.gz)
      mkdir -p "$deps/build/$name"
      tar -xzf "$tar" -C "$deps/build/$name" --strip-components=1 || return 1
    done
    hwy_src=$(ls -d "$deps"/build/highway_*)
    catch_src=$(ls -d "$deps"/build/catch2_*)
    cmake -S "$hwy_src" -B "$hwy_src/build" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_INSTALL_PREFIX="$prefix" -DBUILD_TESTING=OFF -DHWY_ENABLE_TESTS=OFF \
      -DHWY_ENABLE_EXAMPLES=OFF -DHWY_ENABLE_CONTRIB=OFF -DHWY_ENABLE_INSTALL=ON >/dev/null &&
      cmake --build "$hwy_src/build" -j"$jobs" >/dev/null &&
      cmake --install "$hwy_src/build" >/dev/null || return 1
    cmake -S "$catch_src" -B "$catch_src/build" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CXX_FLAGS_RELEASE="$catch_flags" -DCMAKE_INSTALL_PREFIX="$prefix" \
      -DBUILD_TESTING=OFF -DCATCH_INSTALL_DOCS=OFF >/dev/null &&
      cmake --build "$catch_src/build" -j"$jobs" >/dev/null &&
      cmake --install "$catch_src/build" >/dev/null || return 1
    echo "$stamp" >"$prefix/.stamp"
  fi
  echo "-- using $(basename "$hwy_tar" .orig.tar.gz) and $(basename "$catch_tar" .orig.tar.gz)" \
    "from $prefix"
  # The x86 targets: one per vector width, and those new in Highway 1.2 (its
  # x86 code is one header per width, whose targets differ in a few
  # instructions; tensorops' own per-target code runs on SSE4, AVX3 and
  # AVX3_DL in the gcc step): EMU128 (clang's fallback, which
  # HWY_COMPILE_ALL_ATTAINABLE adds), SSE2 (new), AVX2 and AVX3_SPR (new;
  # the VNNI kernels' clang build; it runs where the CPU has AVX512-FP16).
  # SSSE3, SSE4, AVX3 and AVX3_DL are left out, and AVX3_ZEN4, which
  # HWY_COMPILE_ALL_ATTAINABLE adds but a build compiles only when it asks
  # (HWY_WANT_AVX3_ZEN4; tensorops does not), and which only Zen 4 CPUs run
  # (HWY_SSSE3 | HWY_SSE4 | HWY_AVX3 | HWY_AVX3_DL | HWY_AVX3_ZEN4).
  run newer-deps clang++ -DCMAKE_PREFIX_PATH="$prefix" -DTENSOROPS_BUILD_BENCHMARKS=OFF \
    -DTENSOROPS_BUILD_TOOLS=OFF -DTENSOROPS_TEST_DOC_SNIPPETS=OFF \
    "-DCMAKE_CXX_FLAGS=-DHWY_COMPILE_ALL_ATTAINABLE -DHWY_DISABLED_TARGETS=0x19c0" \
    "$test_code_args" || return 1
  targets=$(build/newer-deps/tests/dispatch_test \
    "Every compiled target this CPU supports is reached" 2>&1 | runnable_targets)
  echo "-- every test ran on: $targets"
}

case "${1:-all}" in
  gcc | sanitize | fuzz | aarch64 | armv7) configs=$1 ;;
  newer-deps) configs=newer_deps ;;
  all) configs="gcc sanitize fuzz aarch64 armv7 newer_deps" ;;
  *) echo "usage: $0 [gcc|sanitize|fuzz|aarch64|armv7|newer-deps]" >&2; exit 2 ;;
esac
case "$configs" in
  aarch64 | armv7) ;;
  *) scripts/install-deps.sh --bench ;;
esac
# Each configuration's wall time, so that CI's budget can be read off a log.
started=$(date +%s)
took() {
  now=$(date +%s)
  echo "== $1 took $((now - started)) s"
  started=$now
}
for c in $configs; do
  if ! $c; then
    echo "== FAILED: $c" >&2
    exit 1
  fi
  took "$c"
done
echo "== all tests passed"
