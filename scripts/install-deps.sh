#!/bin/sh
# Installs the Debian packages tensorops needs that are missing, and nothing
# else. Usage: scripts/install-deps.sh [--bench|--aarch64|--armv7|--plot]
#   default  compilers (clang with its sanitizer/libFuzzer runtimes), CMake,
#            Ninja, Highway, Catch2, Google Benchmark, ONNX test data, OpenCV
#            imgproc (the colour tests' oracle), python3 (the documentation test)
#   --bench  also the benchmark peers (oneDNN, OpenBLAS, Eigen, SLEEF, XNNPACK);
#            oneDNN's CMake package requires OpenCL's (Debian's build has the
#            OpenCL GPU runtime), which apt only recommends, so it is named here
#   --aarch64  the default set plus what cross-building for 64-bit Arm and
#            running it under emulation needs: Debian's arm64 multiarch
#            (added with dpkg if missing), the cross GCC, Highway and the
#            OpenMP runtime for arm64, and qemu-user
#   --armv7  the same for 32-bit Arm (armhf)
#   --plot   the default set plus matplotlib, for scripts/plot.py
# A Debian mirror can be mid-sync: `apt-get update` then fails for an index
# (often one architecture's) while every package needed is installable. So
# its status is only reported; the install decides, tried three times with
# a fresh update between.
set -eu

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

packages="cmake ninja-build make g++ clang libclang-rt-dev libhwy-dev catch2 libbenchmark-dev libonnx-testdata
  libopencv-imgproc-dev python3"
case "${1:-}" in
  --bench)
    packages="$packages libdnnl-dev ocl-icd-opencl-dev libopenblas-dev libeigen3-dev libsleef-dev
      libxnnpack-dev libpthreadpool-dev" ;;
  --plot)
    packages="$packages python3-matplotlib" ;;
  --aarch64)
    arch=arm64 packages="$packages g++-aarch64-linux-gnu qemu-user libhwy-dev:arm64 libgomp1:arm64" ;;
  --armv7)
    arch=armhf
    packages="$packages g++-arm-linux-gnueabihf qemu-user libhwy-dev:armhf libgomp1:armhf" ;;
esac
if [ -n "${arch:-}" ] && ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
  # Its package lists arrive with the apt-get update below (its packages
  # are missing, so that runs).
  $SUDO dpkg --add-architecture "$arch"
fi

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "Installing:$missing"
export DEBIAN_FRONTEND=noninteractive
for attempt in 1 2 3; do
  $SUDO apt-get update -qq || echo "apt-get update failed (attempt $attempt); trying the install anyway"
  # shellcheck disable=SC2086
  if $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null; then
    exit 0
  fi
  [ "$attempt" -lt 3 ] && sleep 30
done
echo "install-deps: could not install:$missing" >&2
exit 1
