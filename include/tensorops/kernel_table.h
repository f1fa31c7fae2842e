// Dispatch tables without kernels: the TU that includes this lists kernels
// with TENSOROPS_INSTANTIATE and gets, for each, the table that picks the
// CPU's target, pointing at RunOn entries compiled elsewhere, one TU per
// target (tensorops/kernel_target.h). The CMake function tensorops_add_kernels
// writes these TUs from the kernels a program calls; see docs/targets.md.
//
// Owns the TU's Highway foreach_target cycle, over declarations only.
#ifndef TENSOROPS_KERNEL_TABLE_H_
#define TENSOROPS_KERNEL_TABLE_H_

#include "tensorops/api.h"

#if defined(HWY_TARGET_INCLUDE)
#error "tensorops/kernel_table.h: this TU already runs a Highway foreach_target cycle; give the tables a TU of their own"
#endif

#define HWY_TARGET_INCLUDE "tensorops/detail/entry-inl.h"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "tensorops/detail/entry-inl.h"
#include "tensorops/detail/dispatch_table.h"

#endif  // TENSOROPS_KERNEL_TABLE_H_
