#!/bin/bash
# Measures the CPU time (user + sys) and peak memory of compiling single TUs,
# to keep an eye on what including tensorops, and each kind of op, costs:
# first header-only (one file includes <tensorops/tensorops.h>), then the
# tensorops_add_kernels route (the calling file on <tensorops/api.h>, each
# generated kernel file on its own; docs/targets.md, "Build time").
# Usage: scripts/compile-time.sh [g++|clang++]
set -euo pipefail
cd "$(dirname "$0")/.."
cxx=${1:-g++}
flags="-std=c++20 -O2 -DHWY_WANT_AVX3_DL -Iinclude -c -o /dev/null"
# CPU time (user + sys) and, where GNU time is installed, peak memory.
measure() {
  local label=$1 file=$2 out
  if [ -x /usr/bin/time ]; then
    # shellcheck disable=SC2086
    out=$( { /usr/bin/time -f "%U %S %M" $cxx $flags "$file" >/dev/null; } 2>&1 | tail -1)
  else
    TIMEFORMAT="%U %S -"
    # shellcheck disable=SC2086
    out=$( { time $cxx $flags "$file" >/dev/null; } 2>&1 )
  fi
  awk -v l="$label" -v t="$out" 'BEGIN { split(t, a, " ");
    printf "%-58s %6.1f s %8s MB\n", l, a[1] + a[2], a[3] == "-" ? "-" : int(a[3] / 1024) }'
}
echo "$cxx -O2, CPU time and peak memory per TU, header-only:"
measure "light: <tensorops/api.h>, calls Convert" examples/light_build/main.cpp
measure "kernels: <tensorops/tensorops.h>, 1 Convert pair" examples/light_build/kernels.cpp
measure "full: <tensorops/tensorops.h>, 2 Convert pairs" tests/consumers/consumer.cpp
measure "one plain Gemm call" scripts/compile-time/gemm_plain.cpp
measure "one Gemm call with Bias + GELU epilogue" scripts/compile-time/gemm_epilogue.cpp
measure "one Chain (ChannelAffine, SiLU, float16 out)" scripts/compile-time/chain.cpp
measure "one Unary call (GELU)" scripts/compile-time/unary_gelu.cpp

# The route: a project of one calling file (the Gemm with Bias + GELU above),
# built by CMake with a launcher that logs every compile.
echo
echo "$cxx -O2, the tensorops_add_kernels route for the Gemm with Bias + GELU, per file:"
dir=$(mktemp -d)
log=$dir/times.log
: >"$log"
cmake -S scripts/compile-time/route -B "$dir/build" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
  -DTENSOROPS_SOURCE_DIR="$PWD" -DCMAKE_CXX_COMPILER_LAUNCHER="$PWD/scripts/compile-time/timed-compile.sh" \
  >/dev/null
TENSOROPS_TIME_LOG=$log cmake --build "$dir/build" -j"$(nproc)" >/dev/null
# Files that compile nothing (a target slot past this build's targets) are left out.
awk '{ t = $2 + $3; n = split($1, p, "/"); name = p[n];
       if (t >= 0.3 || name !~ /^group/) printf "%-58s %6.1f s %8d MB\n", name, t, $4 / 1024;
       total += t; if (name ~ /^group/) kernels += t; if (t > worst && name ~ /^group/) worst = t }
     END { printf "%-58s %6.1f s\n%-58s %6.1f s\n", "all kernel files", kernels,
           "slowest kernel file", worst }' "$log"
rm -rf "$dir"
