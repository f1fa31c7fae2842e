# Warnings for tensorops' own tests, examples and benchmarks. Never attached to
# the INTERFACE target: users choose their own warning level.
add_library(tensorops_warnings INTERFACE)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(tensorops_warnings INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
    -Wno-unused-function)
endif()
