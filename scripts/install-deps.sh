#!/bin/sh
# Installs the Debian packages tensorops needs that are missing, and nothing
# else. Usage: scripts/install-deps.sh [--bench]
#   default  compilers (clang with its sanitizer/libFuzzer runtimes), CMake,
#            Highway, Catch2, Google Benchmark, ONNX test data, OpenCV imgproc
#            (the colour tests' oracle)
#   --bench  also the benchmark peers (oneDNN, OpenBLAS, Eigen) and python3;
#            oneDNN's CMake package requires OpenCL's (Debian's build has the
#            OpenCL GPU runtime), which apt only recommends, so it is named here
set -eu

packages="cmake make g++ clang libclang-rt-dev libhwy-dev catch2 libbenchmark-dev libonnx-testdata
  libopencv-imgproc-dev"
if [ "${1:-}" = "--bench" ]; then
  packages="$packages libdnnl-dev ocl-icd-opencl-dev libopenblas-dev libeigen3-dev python3"
fi

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "Installing:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
