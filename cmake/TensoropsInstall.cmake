# install() + an exported package so that find_package(tensorops) works against
# an install prefix.
include(CMakePackageConfigHelpers)

install(TARGETS tensorops EXPORT tensoropsTargets)
install(DIRECTORY include/tensorops DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(TENSOROPS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tensorops)
install(EXPORT tensoropsTargets
  NAMESPACE tensorops::
  DESTINATION ${TENSOROPS_CMAKE_DIR})

configure_package_config_file(
  ${CMAKE_CURRENT_SOURCE_DIR}/cmake/tensoropsConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/tensoropsConfig.cmake
  INSTALL_DESTINATION ${TENSOROPS_CMAKE_DIR})
# A header-only library has no ABI, but its API may change between minor
# versions until 1.0: accept the same minor version only.
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/tensoropsConfigVersion.cmake
  COMPATIBILITY SameMinorVersion
  ARCH_INDEPENDENT)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/tensoropsConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/tensoropsConfigVersion.cmake
  ${CMAKE_CURRENT_SOURCE_DIR}/cmake/TensoropsKernels.cmake
  ${CMAKE_CURRENT_SOURCE_DIR}/cmake/TensoropsKernelsGenerate.cmake
  DESTINATION ${TENSOROPS_CMAKE_DIR})
