# Writes the kernel TUs of tensorops_add_kernels (TensoropsKernels.cmake):
# run as cmake -DNM= -DINPUTS= -DDIR= -DCHUNKS= -DSLOTS= -P <this file>.
#
# Every kernel a light TU calls is an undefined detail::RunKernel<Kernel, N>;
# `nm -C` prints it demangled, and the demangled kernel type is valid C++
# (enumerators print as casts, e.g. (tensorops::UnaryKind)22; Arm's `half` is
# respelled). Kernels that some input defines itself (a TU that includes
# <tensorops/tensorops.h>) are left out.

# The -inl.h header of each kernel family; a family not listed here gets
# every kernel header (slower to compile, never wrong).
set(family_headers
  "tensorops::ArgReduceKernel=tensorops/ops/arg_reduce-inl.h"
  "tensorops::ChainKernel=tensorops/ops/chain-inl.h"
  "tensorops::ShuffleLayerKernel=tensorops/ops/channel_shuffle-inl.h"
  "tensorops::ShuffleLayerPlanesKernel=tensorops/ops/channel_shuffle-inl.h"
  "tensorops::ConvertKernel=tensorops/ops/convert-inl.h"
  "tensorops::EltwiseKernel=tensorops/ops/eltwise-inl.h"
  "tensorops::GatherKernel=tensorops/ops/gather-inl.h"
  "tensorops::GatherElementsKernel=tensorops/ops/gather_elements-inl.h"
  "tensorops::IndexRangeKernel=tensorops/ops/gather_elements-inl.h"
  "tensorops::GatherNdKernel=tensorops/ops/gather_nd-inl.h"
  "tensorops::ConvKernel=tensorops/ops/conv-inl.h"
  "tensorops::GemmKernel=tensorops/ops/gemm-inl.h"
  "tensorops::GemmPackBKernel=tensorops/ops/gemm-inl.h"
  "tensorops::GemmBlockingQuery=tensorops/ops/gemm-inl.h"
  "tensorops::LrnKernel=tensorops/ops/lrn-inl.h"
  "tensorops::Nv12ToRgbKernel=tensorops/ops/nv12_to_rgb-inl.h"
  "tensorops::PermuteKernel=tensorops/ops/permute-inl.h"
  "tensorops::PoolKernel=tensorops/ops/pool-inl.h"
  "tensorops::QAddKernel=tensorops/ops/qadd-inl.h"
  "tensorops::QConvKernel=tensorops/ops/qconv-inl.h"
  "tensorops::QGemmKernel=tensorops/ops/qgemm-inl.h"
  "tensorops::QGemmTileQuery=tensorops/ops/qgemm-inl.h"
  "tensorops::QGlobalAveragePoolKernel=tensorops/ops/qpool-inl.h"
  "tensorops::QuantizeKernel=tensorops/ops/quantize-inl.h"
  "tensorops::DequantizeKernel=tensorops/ops/quantize-inl.h"
  "tensorops::QuantRangeKernel=tensorops/ops/quantize-inl.h"
  "tensorops::SoftmaxKernel=tensorops/ops/softmax-inl.h"
  "tensorops::UnaryKernel=tensorops/ops/unary-inl.h"
  "tensorops::detail::TargetProbe=tensorops/detail/row-inl.h")
# Relative compile cost, for grouping (a GEMM kernel is several unary ones).
set(family_weights "tensorops::GemmKernel=4" "tensorops::ConvKernel=4" "tensorops::QConvKernel=2" "tensorops::ChainKernel=2"
                   "tensorops::SoftmaxKernel=2" "tensorops::LrnKernel=2")

file(STRINGS "${INPUTS}" files)
set(output "")
if(files)
  execute_process(COMMAND "${NM}" -C ${files} OUTPUT_VARIABLE output
                  RESULT_VARIABLE status ERROR_VARIABLE errors)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "tensorops_add_kernels: ${NM} failed: ${errors}")
  endif()
endif()
string(REPLACE ";" "\\;" output "${output}")
string(REPLACE "\n" ";" lines "${output}")
set(needed "")
set(defined "")
foreach(line IN LISTS lines)
  if(line MATCHES " ([A-Za-z]) void tensorops::detail::RunKernel<(.+), [0-9]+[a-z]*>\\(")
    if(CMAKE_MATCH_1 STREQUAL "U")
      list(APPEND needed "${CMAKE_MATCH_2}")
    else()
      list(APPEND defined "${CMAKE_MATCH_2}")
    endif()
  endif()
endforeach()
# Arm's native half type (hwy::float16_t there) demangles as `half`, which is
# no C++ name; its spelling is __fp16.
function(respell list_name)
  set(spelled "")
  foreach(kernel IN LISTS ${list_name})
    foreach(pass 1 2)  # twice: two `half` side by side share a separator
      string(REGEX REPLACE "([<, (])half([>, )&])" "\\1__fp16\\2" kernel "${kernel}")
    endforeach()
    list(APPEND spelled "${kernel}")
  endforeach()
  set(${list_name} "${spelled}" PARENT_SCOPE)
endfunction()
respell(needed)
respell(defined)
list(REMOVE_DUPLICATES needed)
if(defined)
  list(REMOVE_ITEM needed ${defined})
endif()
list(SORT needed)

# The value a "family=value" list gives the kernel's family (the kernel type
# up to its template arguments), else `fallback`.
function(family_value kernel pairs fallback out)
  string(REGEX REPLACE "<.*" "" family "${kernel}")
  set(value "${fallback}")
  foreach(pair IN LISTS ${pairs})
    if(pair MATCHES "^${family}=(.+)$")
      set(value "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

# Groups: consecutive in sorted order (a family stays together), of about
# equal weight.
set(total 0)
set(weights "")
foreach(kernel IN LISTS needed)
  family_value("${kernel}" family_weights 1 weight)
  list(APPEND weights ${weight})
  math(EXPR total "${total} + ${weight}")
endforeach()

math(EXPR last_chunk "${CHUNKS} - 1")
foreach(chunk RANGE ${last_chunk})
  set(kernels_${chunk} "")
  set(headers_${chunk} "")
endforeach()
set(before 0)
set(index 0)
foreach(kernel IN LISTS needed)
  list(GET weights ${index} weight)
  math(EXPR chunk "(${before} * ${CHUNKS}) / ${total}")
  math(EXPR before "${before} + ${weight}")
  math(EXPR index "${index} + 1")
  list(APPEND kernels_${chunk} "${kernel}")
  family_value("${kernel}" family_headers tensorops/kernels-inl.h header)
  list(APPEND headers_${chunk} ${header})
endforeach()

# Writes `content` to `path` only if it differs, so that an unchanged list
# recompiles nothing.
function(write_if_changed path content)
  if(EXISTS "${path}")
    file(READ "${path}" old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE "${path}" "${content}")
endfunction()

set(banner "// Written by tensorops_add_kernels (cmake/TensoropsKernelsGenerate.cmake)\n// from the kernels the code calls. Do not edit.\n")
math(EXPR last_slot "${SLOTS} - 1")
foreach(chunk RANGE ${last_chunk})
  set(instantiate "")
  foreach(kernel IN LISTS kernels_${chunk})
    string(APPEND instantiate "TENSOROPS_INSTANTIATE(${kernel});\n")
  endforeach()
  set(tables "${banner}// Dispatch tables of group ${chunk}.\n")
  if(instantiate)
    string(APPEND tables "#include <tensorops/kernel_table.h>\n\n${instantiate}")
  endif()
  write_if_changed("${DIR}/group${chunk}_tables.cpp" "${tables}")

  list(REMOVE_DUPLICATES headers_${chunk})
  set(includes "")
  foreach(header IN LISTS headers_${chunk})
    string(APPEND includes "#include <${header}>\n")
  endforeach()
  string(REPLACE "TENSOROPS_INSTANTIATE(" "TENSOROPS_INSTANTIATE_ON_TARGET(" on_target "${instantiate}")
  foreach(slot RANGE ${last_slot})
    set(content "${banner}// Kernels of group ${chunk} for this build's target ${slot} (0 = best).\n")
    if(kernels_${chunk})
      string(APPEND content "#define TENSOROPS_TARGET_SLOT ${slot}\n#include <tensorops/kernel_target.h>\n#if TENSOROPS_TARGET_SLOT_USED\n${includes}\n${on_target}#endif\n")
    endif()
    write_if_changed("${DIR}/group${chunk}_target${slot}.cpp" "${content}")
  endforeach()
endforeach()
list(LENGTH needed count)
message(STATUS "tensorops: ${count} kernels in ${CHUNKS} groups")
