#!/bin/sh
# CMAKE_CROSSCOMPILING_EMULATOR for armv7 builds: runs one binary under
# qemu-user with the CPU named by TENSOROPS_QEMU_CPU (default: cortex-a15,
# NEON with VFPv4). One build then runs on a VFPv3 Cortex-A9 or a CPU without
# NEON by changing the environment only.
exec qemu-arm -cpu "${TENSOROPS_QEMU_CPU:-cortex-a15}" "$@"
