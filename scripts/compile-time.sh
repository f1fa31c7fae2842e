#!/bin/bash
# Measures the CPU time (user + sys) and peak memory of compiling single TUs,
# to keep an eye on what including tensorops, and each kind of op, costs.
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
echo "$cxx -O2, CPU time and peak memory per TU:"
measure "light: <tensorops/api.h>, calls Convert" examples/light_build/main.cpp
measure "kernels: <tensorops/tensorops.h>, 1 Convert pair" examples/light_build/kernels.cpp
measure "full: <tensorops/tensorops.h>, 2 Convert pairs" tests/consumers/consumer.cpp
measure "one plain Gemm call" scripts/compile-time/gemm_plain.cpp
measure "one Gemm call with Bias + GELU epilogue" scripts/compile-time/gemm_epilogue.cpp
measure "one Chain (ChannelAffine, SiLU, float16 out)" scripts/compile-time/chain.cpp
