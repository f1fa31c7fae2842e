# Shared by the cross toolchain files: Debian's multiarch layout for the
# triplet in TENSOROPS_CROSS_TRIPLET. The target's libraries and CMake
# packages live under /usr/lib/<triplet>, architecture-independent ones
# (Catch2's headers) under /usr; the host's x86 libraries must never be
# picked up.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${TENSOROPS_CROSS_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${TENSOROPS_CROSS_TRIPLET}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${TENSOROPS_CROSS_TRIPLET})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(CMAKE_FIND_ROOT_PATH / /usr/${TENSOROPS_CROSS_TRIPLET})
