#!/bin/sh
# Installs the Debian packages tensorops needs that are missing, and nothing
# else. Usage: scripts/install-deps.sh [--bench]
#   default  compilers (clang with its sanitizer/libFuzzer runtimes), CMake,
#            Highway, Catch2, Google Benchmark, ONNX test data, OpenCV imgproc
#            (the colour tests' oracle)
#   --bench  also the benchmark peers (oneDNN, OpenBLAS, Eigen, SLEEF) and python3;
#            oneDNN's CMake package requires OpenCL's (Debian's build has the
#            OpenCL GPU runtime), which apt only recommends, so it is named here
#   --aarch64  the default set plus what cross-building for 64-bit Arm and
#            running it under emulation needs: Debian's arm64 multiarch
#            (added with dpkg if missing), the cross GCC, Highway and the
#            OpenMP runtime for arm64, and qemu-user
set -eu

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

packages="cmake make g++ clang libclang-rt-dev libhwy-dev catch2 libbenchmark-dev libonnx-testdata
  libopencv-imgproc-dev"
case "${1:-}" in
  --bench)
    packages="$packages libdnnl-dev ocl-icd-opencl-dev libopenblas-dev libeigen3-dev libsleef-dev python3" ;;
  --aarch64)
    packages="$packages g++-aarch64-linux-gnu qemu-user libhwy-dev:arm64 libgomp1:arm64"
    if ! dpkg --print-foreign-architectures | grep -qx arm64; then
      # The arm64 package lists arrive with the apt-get update below (the
      # arm64 packages are missing, so it runs).
      $SUDO dpkg --add-architecture arm64
    fi
    ;;
esac

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "Installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
