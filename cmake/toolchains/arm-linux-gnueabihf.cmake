# Cross-compiles tensorops for 32-bit Arm Linux, hard-float (armv7hf: Axis
# ARTPEC-6/7 cameras, Raspberry Pi OS 32-bit, Debian armhf) with Debian's
# cross GCC and runs the results under qemu-user. Debian packages it expects:
#   g++-arm-linux-gnueabihf, qemu-user, and (after `dpkg --add-architecture
#   armhf`) libhwy-dev:armhf (libgomp1:armhf for the OpenMP test).
# Use: cmake -S . -B build/armv7 \
#        -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-linux-gnueabihf.cmake \
#        [-DTENSOROPS_ARMV7_BASELINE=camera|neon-vfpv4|debian]
#
# The baseline is the code every function may use, what -march/-mfpu say:
#   camera      -march=armv7-a -mfpu=neon -mthumb: NEON with VFPv3, the FPU
#               of Cortex-A9-class cameras (ARTPEC-6/7); the default here.
#               NEON runs on every NEON CPU.
#   neon-vfpv4  -march=armv7-a -mfpu=neon-vfpv4 -mthumb: NEON with VFPv4
#               (fused multiply-add); Cortex-A7/A15 and newer only.
#   debian      no flags: Debian's armhf defaults (-march=armv7-a+fp
#               -mfpu=auto -mthumb, VFPv3-D16 and no NEON), which run on
#               every armhf CPU. tensorops still compiles a NEON copy of every
#               kernel and runs it where the CPU has NEON and VFPv4; other
#               CPUs (Cortex-A9 too) run the scalar copy (see dispatch.h).
#               An explicit -mfpu=vfpv3-d16 would stop the NEON copy from
#               compiling: the FPU must be left to -march (auto).
# -mfp16-format=ieee: Highway uses __fp16 once the FPU converts half floats.
#
# Which CPU qemu emulates decides what runs: set TENSOROPS_QEMU_CPU (e.g.
# "cortex-a9" for NEON with VFPv3, "cortex-a15" for NEON with VFPv4) in the
# environment of ctest. The default is "cortex-a15".
set(CMAKE_SYSTEM_PROCESSOR armv7l)
set(TENSOROPS_CROSS_TRIPLET arm-linux-gnueabihf)
include(${CMAKE_CURRENT_LIST_DIR}/debian-multiarch.cmake)

set(TENSOROPS_ARMV7_BASELINE camera CACHE STRING
    "armv7 baseline flags: camera (NEON, VFPv3), neon-vfpv4, or debian (no NEON)")
set_property(CACHE TENSOROPS_ARMV7_BASELINE PROPERTY STRINGS camera neon-vfpv4 debian)
if(TENSOROPS_ARMV7_BASELINE STREQUAL "camera")
  set(tensorops_armv7_flags "-march=armv7-a -mfpu=neon -mthumb")
elseif(TENSOROPS_ARMV7_BASELINE STREQUAL "neon-vfpv4")
  set(tensorops_armv7_flags "-march=armv7-a -mfpu=neon-vfpv4 -mthumb")
elseif(TENSOROPS_ARMV7_BASELINE STREQUAL "debian")
  set(tensorops_armv7_flags "")
else()
  message(FATAL_ERROR "TENSOROPS_ARMV7_BASELINE must be camera, neon-vfpv4 or debian, "
                      "not '${TENSOROPS_ARMV7_BASELINE}'")
endif()
# -Wno-psabi: GCC notes on every std::vector<int64_t> iterator that GCC 7.1
# changed how such arguments are passed; nothing here mixes such compilers.
set(CMAKE_CXX_FLAGS_INIT "${tensorops_armv7_flags} -mfloat-abi=hard -mfp16-format=ieee -Wno-psabi")
set(CMAKE_C_FLAGS_INIT "${tensorops_armv7_flags} -mfloat-abi=hard")

# Without -L, as in aarch64-linux-gnu.cmake: qemu finds the multiarch loader.
set(CMAKE_CROSSCOMPILING_EMULATOR
    ${CMAKE_CURRENT_LIST_DIR}/qemu-arm.sh
    CACHE FILEPATH "Runs armv7 binaries under qemu-user")
