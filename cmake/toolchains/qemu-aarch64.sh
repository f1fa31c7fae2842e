#!/bin/sh
# CMAKE_CROSSCOMPILING_EMULATOR for aarch64 builds: runs one binary under
# qemu-user with the CPU named by TENSOROPS_QEMU_CPU (default: "max", every
# feature qemu has, SVE2 at its default vector length). One build then runs
# at every SVE width and on a NEON-only CPU by changing the environment only.
exec qemu-aarch64 -cpu "${TENSOROPS_QEMU_CPU:-max}" "$@"
