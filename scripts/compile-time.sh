#!/bin/bash
# Measures the CPU time (user + sys) of compiling single TUs, to keep an eye
# on what including tensorops costs. Usage: scripts/compile-time.sh [g++|clang++]
set -euo pipefail
cd "$(dirname "$0")/.."
cxx=${1:-g++}
flags="-std=c++20 -O2 -DHWY_WANT_AVX3_DL -Iinclude -c -o /dev/null"
TIMEFORMAT="%U %S"
measure() {
  local label=$1 file=$2 t
  # shellcheck disable=SC2086
  t=$( { time $cxx $flags "$file" >/dev/null; } 2>&1 )
  awk -v l="$label" -v t="$t" 'BEGIN { split(t, a, " "); printf "%-58s %6.2f s\n", l, a[1] + a[2] }'
}
echo "$cxx, CPU time per TU:"
measure "light: <tensorops/api.h>, calls Convert" examples/light_build/main.cpp
measure "kernels: <tensorops/tensorops.h>, 1 Convert pair" examples/light_build/kernels.cpp
measure "full: <tensorops/tensorops.h>, 2 Convert pairs" tests/consumers/consumer.cpp
