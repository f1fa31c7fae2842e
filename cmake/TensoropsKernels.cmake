# tensorops_add_kernels(<name> FOR <library>... [CHUNKS <n>])
#
# Compiles exactly the tensorops kernels that <library>... call, once, into a
# static library <name>. The calling files include only <tensorops/api.h>;
# each of them then compiles in about a second, and no kernel is compiled
# twice however many files call it.
#
# How: after the libraries' objects are built, `nm` lists the kernels they
# reference and do not define (detail::RunKernel<Kernel>), and
# TensoropsKernelsGenerate.cmake writes, per group of kernels, one TU of
# dispatch tables and one TU per Highway target (tensorops/kernel_target.h),
# so that the build's cores share the targets. The lists are rewritten only
# when they change, so editing a calling file recompiles no kernel unless it
# calls a new one.
#
# Each FOR item is an OBJECT or STATIC library (not an executable: its objects
# would have to exist before the program that links them). Link <name> where
# those libraries end up, e.g.
#   add_library(camera_net STATIC net.cpp preprocess.cpp)
#   target_link_libraries(camera_net PUBLIC tensorops::tensorops)
#   tensorops_add_kernels(camera_kernels FOR camera_net)
#   add_executable(camera main.cpp)
#   target_link_libraries(camera PRIVATE camera_net camera_kernels)
# CHUNKS (default 4) is the number of groups: more groups, smaller files.
# Cache variables, not plain ones: the function is called from other
# directories (a parent project that vendors tensorops), which do not see
# this file's directory scope.
set(TENSOROPS_KERNELS_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/TensoropsKernelsGenerate.cmake
    CACHE INTERNAL "tensorops_add_kernels' generator")
# The per-target slots: one TU per group and slot; a slot past the build's
# last Highway target compiles nothing (see tensorops/kernel_target.h).
set(TENSOROPS_KERNEL_SLOTS 10 CACHE INTERNAL "tensorops_add_kernels' files per group")

function(tensorops_add_kernels name)
  cmake_parse_arguments(ARG "" "CHUNKS" "FOR" ${ARGN})
  if(NOT ARG_FOR)
    message(FATAL_ERROR "tensorops_add_kernels(${name}): name the libraries whose calls "
                        "need kernels: FOR <library>...")
  endif()
  if(NOT ARG_CHUNKS)
    set(ARG_CHUNKS 4)
  endif()
  if(NOT CMAKE_NM)
    message(FATAL_ERROR "tensorops_add_kernels(${name}): CMake found no `nm` for this "
                        "toolchain (CMAKE_NM); it lists the kernels the code calls")
  endif()
  set(inputs "")
  foreach(library ${ARG_FOR})
    if(NOT TARGET ${library})
      message(FATAL_ERROR "tensorops_add_kernels(${name}): ${library} is not a target")
    endif()
    get_target_property(type ${library} TYPE)
    if(type STREQUAL "OBJECT_LIBRARY")
      list(APPEND inputs "$<TARGET_OBJECTS:${library}>")
    elseif(type STREQUAL "STATIC_LIBRARY")
      list(APPEND inputs "$<TARGET_FILE:${library}>")
    else()
      message(FATAL_ERROR "tensorops_add_kernels(${name}): ${library} is a ${type}; FOR "
                          "takes OBJECT or STATIC libraries, built before the kernels "
                          "(put an executable's calling files in one)")
    endif()
  endforeach()

  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${name}_sources)
  file(GENERATE OUTPUT ${dir}/inputs.txt CONTENT "$<JOIN:${inputs},\n>\n")
  set(outputs "")
  math(EXPR last_chunk "${ARG_CHUNKS} - 1")
  math(EXPR last_slot "${TENSOROPS_KERNEL_SLOTS} - 1")
  foreach(chunk RANGE ${last_chunk})
    list(APPEND outputs ${dir}/group${chunk}_tables.cpp)
    foreach(slot RANGE ${last_slot})
      list(APPEND outputs ${dir}/group${chunk}_target${slot}.cpp)
    endforeach()
  endforeach()
  # The files are byproducts, rewritten only when their text changes; the
  # stamp is what says the list is up to date.
  list(LENGTH ARG_FOR count)
  add_custom_command(OUTPUT ${dir}/listed.stamp
    BYPRODUCTS ${outputs}
    COMMAND ${CMAKE_COMMAND} -DNM=${CMAKE_NM} -DINPUTS=${dir}/inputs.txt -DDIR=${dir}
            -DCHUNKS=${ARG_CHUNKS} -DSLOTS=${TENSOROPS_KERNEL_SLOTS}
            -P ${TENSOROPS_KERNELS_SCRIPT}
    COMMAND ${CMAKE_COMMAND} -E touch ${dir}/listed.stamp
    DEPENDS ${inputs} ${TENSOROPS_KERNELS_SCRIPT}
    COMMENT "tensorops: listing the kernels that ${count} libraries call (${name})"
    VERBATIM)
  add_library(${name} STATIC ${dir}/listed.stamp ${outputs})
  target_link_libraries(${name} PUBLIC tensorops::tensorops)
  add_dependencies(${name} ${ARG_FOR})
endfunction()
