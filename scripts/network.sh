#!/bin/sh
# Builds and runs bench/network.cpp: MobileNet v2 and ShuffleNet v2 at
# 1x3x224x224 from tensorops ops alone, checked against a double-precision
# evaluation of the same graph, each layer timed (one thread) beside
# oneDNN's convolution primitives for the same layers; and MobileNet v2 in
# int8 (bench/network_int8.cpp) against the float network.
# Usage: scripts/network.sh [--runs N] [--net mobilenet_v2|shufflenet_v2|mobilenet_v2_int8|all]
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh --bench
cmake -S . -B build/network -DCMAKE_BUILD_TYPE=Release -DTENSOROPS_BUILD_TESTS=OFF \
  -DTENSOROPS_BUILD_EXAMPLES=OFF >/dev/null
cmake --build build/network --target network -j"$(nproc)"
OMP_NUM_THREADS=1 taskset -c 0 build/network/bench/network "$@"
