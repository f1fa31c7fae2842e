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
# What a group's TU pays to compile a family's kernels, for balancing the
# groups, in tenths of a second (GCC 12 -O2, aarch64, one target): its
# cluster's shared code once, then a part per kernel. Families that share
# code form one cluster, which stays in one group: every GEMM and convolution
# kernel instantiates the same micro-tiles and blocked loops, about 8 of the
# 9 s a single GEMM kernel takes, which split across groups would be compiled
# once per group. A family not listed is a cluster of its own at 5 + 1 per
# kernel.
set(cluster_fixed_costs "gemm=90" "qgemm=40" "softmax=15" "gather_elements=12" "pool=10" "lrn=5")
set(family_costs  # family=cluster,cost per kernel
  "tensorops::GemmKernel=gemm,2" "tensorops::ConvKernel=gemm,7"
  "tensorops::GemmPackBKernel=gemm,1" "tensorops::GemmBlockingQuery=gemm,1"
  "tensorops::QGemmKernel=qgemm,2" "tensorops::QConvKernel=qgemm,6" "tensorops::QGemmTileQuery=qgemm,1"
  "tensorops::SoftmaxKernel=softmax,3" "tensorops::GatherElementsKernel=gather_elements,2"
  "tensorops::IndexRangeKernel=gather_elements,1" "tensorops::PoolKernel=pool,1"
  "tensorops::LrnKernel=lrn,3")

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

# Clusters: each kernel joins its family's cluster; a cluster costs its
# fixed part once and each of its kernels' part.
set(clusters "")
foreach(kernel IN LISTS needed)
  family_value("${kernel}" family_costs "" cost)
  if(cost MATCHES "^([a-z_]+),([0-9]+)$")
    set(cluster ${CMAKE_MATCH_1})
    set(each ${CMAKE_MATCH_2})
  else()
    string(REGEX REPLACE "<.*" "" family "${kernel}")
    string(MAKE_C_IDENTIFIER "${family}" cluster)
    set(each 1)
  endif()
  if(NOT DEFINED cost_${cluster})
    set(fixed 5)
    foreach(pair IN LISTS cluster_fixed_costs)
      if(pair MATCHES "^${cluster}=([0-9]+)$")
        set(fixed ${CMAKE_MATCH_1})
      endif()
    endforeach()
    list(APPEND clusters ${cluster})
    set(cost_${cluster} ${fixed})
    set(kernels_of_${cluster} "")
  endif()
  math(EXPR cost_${cluster} "${cost_${cluster}} + ${each}")
  list(APPEND kernels_of_${cluster} "${kernel}")
endforeach()

# Groups: the costliest cluster first, each into the group that costs least
# so far (the lowest-numbered of equals), so the groups come out about equal
# and no cluster's shared code is compiled twice.
set(ranked "")
foreach(cluster IN LISTS clusters)
  string(LENGTH "${cost_${cluster}}" digits)
  string(SUBSTRING "0000000000${cost_${cluster}}" ${digits} 10 padded)  # sorts as a number
  list(APPEND ranked "${padded}:${cluster}")
endforeach()
list(SORT ranked ORDER DESCENDING)
math(EXPR last_chunk "${CHUNKS} - 1")
foreach(chunk RANGE ${last_chunk})
  set(kernels_${chunk} "")
  set(headers_${chunk} "")
  set(load_${chunk} 0)
endforeach()
foreach(entry IN LISTS ranked)
  string(REGEX REPLACE "^[0-9]+:" "" cluster "${entry}")
  set(chunk 0)
  foreach(candidate RANGE ${last_chunk})
    if(load_${candidate} LESS load_${chunk})
      set(chunk ${candidate})
    endif()
  endforeach()
  math(EXPR load_${chunk} "${load_${chunk}} + ${cost_${cluster}}")
  list(APPEND kernels_${chunk} ${kernels_of_${cluster}})
endforeach()
foreach(chunk RANGE ${last_chunk})
  list(SORT kernels_${chunk})
  foreach(kernel IN LISTS kernels_${chunk})
    family_value("${kernel}" family_headers tensorops/kernels-inl.h header)
    list(APPEND headers_${chunk} ${header})
  endforeach()
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
