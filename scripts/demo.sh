#!/bin/sh
# Builds and runs the demo (examples/demo.cpp). Usage: scripts/demo.sh
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build/demo -DCMAKE_BUILD_TYPE=Release -DTENSOROPS_BUILD_TESTS=OFF \
  -DTENSOROPS_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build/demo --target demo -j"$(nproc)"
build/demo/examples/demo
