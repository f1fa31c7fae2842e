# Cross-compiles tensorops for 64-bit Arm Linux with Debian's cross GCC and
# runs the results under qemu-user. Debian packages it expects:
#   g++-aarch64-linux-gnu, qemu-user, and (after `dpkg --add-architecture
#   arm64`) libhwy-dev:arm64 (libgomp1:arm64 for the OpenMP test).
# Use: cmake -S . -B build/aarch64 \
#        -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
#
# Which CPU qemu emulates decides which Highway targets run: set
# TENSOROPS_QEMU_CPU (e.g. "max,sve-default-vector-length=32" for 256-bit SVE,
# "cortex-a72" for NEON only) in the environment of ctest, or at configure
# time. The default, "max", has SVE2 at qemu's default vector length.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(TENSOROPS_CROSS_TRIPLET aarch64-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/debian-multiarch.cmake)

# No `-L /usr/aarch64-linux-gnu`: that mixes the cross toolchain's loader with
# the arm64 multiarch libc (/usr/lib/aarch64-linux-gnu), and every thread
# creation then hangs. binfmt-less qemu finds the multiarch loader itself.
# The CPU comes from the environment at run time so that one build serves
# every emulated CPU; qemu-aarch64.sh beside this file reads it.
set(CMAKE_CROSSCOMPILING_EMULATOR
    ${CMAKE_CURRENT_LIST_DIR}/qemu-aarch64.sh
    CACHE FILEPATH "Runs aarch64 binaries under qemu-user")
