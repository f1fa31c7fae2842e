// The start of a TU that compiles kernels for one Highway target: the
// TENSOROPS_TARGET_SLOT-th target (0 = best) of those this build compiles
// (HWY_TARGETS). Include it first, then the kernels' -inl.h headers, then
// list the kernels with TENSOROPS_INSTANTIATE_ON_TARGET, all inside
// `#if TENSOROPS_TARGET_SLOT_USED`: a slot past the last target compiles
// nothing. Slots, not target names, so that one set of files serves every
// architecture and Highway version; their dispatch tables are in a TU of
// their own (tensorops/kernel_table.h).
//
// Splitting the targets across TUs lets the build's cores share them, and
// bounds the time and memory of each file.
#ifndef TENSOROPS_KERNEL_TARGET_H_
#define TENSOROPS_KERNEL_TARGET_H_

// Only Highway's target list first: a slot past the last target then costs
// next to nothing to compile.
#include <hwy/detect_targets.h>

#ifndef TENSOROPS_TARGET_SLOT
#error "tensorops/kernel_target.h: define TENSOROPS_TARGET_SLOT (0, 1, ...) first"
#endif
#if defined(HWY_HIGHWAY_INCLUDED) || defined(HWY_TARGET_INCLUDE)
#error "tensorops/kernel_target.h: include it before any Highway header but hwy/base.h and hwy/targets.h"
#endif

// The targets left after dropping the `slot` best ones, and the best of them.
#define TENSOROPS_DROP_BEST(t) ((t) & ((t) - 1))
#define TENSOROPS_SLOT_0 (HWY_TARGETS)
#define TENSOROPS_SLOT_1 TENSOROPS_DROP_BEST(TENSOROPS_SLOT_0)
#define TENSOROPS_SLOT_2 TENSOROPS_DROP_BEST(TENSOROPS_SLOT_1)
#define TENSOROPS_SLOT_3 TENSOROPS_DROP_BEST(TENSOROPS_SLOT_2)
#define TENSOROPS_SLOT_4 TENSOROPS_DROP_BEST(TENSOROPS_SLOT_3)
#define TENSOROPS_SLOT_5 TENSOROPS_DROP_BEST(TENSOROPS_SLOT_4)
#define TENSOROPS_SLOT_6 TENSOROPS_DROP_BEST(TENSOROPS_SLOT_5)
#define TENSOROPS_SLOT_7 TENSOROPS_DROP_BEST(TENSOROPS_SLOT_6)
#define TENSOROPS_SLOT_8 TENSOROPS_DROP_BEST(TENSOROPS_SLOT_7)
#define TENSOROPS_SLOT_9 TENSOROPS_DROP_BEST(TENSOROPS_SLOT_8)
#define TENSOROPS_SLOT_10 TENSOROPS_DROP_BEST(TENSOROPS_SLOT_9)
#define TENSOROPS_SLOT_CAT(n) TENSOROPS_SLOT_##n
#define TENSOROPS_SLOT_REST(n) TENSOROPS_SLOT_CAT(n)
#define TENSOROPS_SLOT_TARGETS TENSOROPS_SLOT_REST(TENSOROPS_TARGET_SLOT)

#if TENSOROPS_SLOT_10 != 0
#error "tensorops/kernel_target.h: this Highway compiles more than 10 targets; add slots here and in TENSOROPS_KERNEL_SLOTS (cmake/TensoropsKernels.cmake)"
#endif

#if TENSOROPS_SLOT_TARGETS != 0
#define TENSOROPS_TARGET_SLOT_USED 1
#include "tensorops/api.h"
#undef HWY_TARGET
#define HWY_TARGET (TENSOROPS_SLOT_TARGETS & -(TENSOROPS_SLOT_TARGETS))
#include <hwy/highway.h>
#include "tensorops/detail/entry-inl.h"
#include "tensorops/detail/row-inl.h"
#else
#define TENSOROPS_TARGET_SLOT_USED 0
#endif

#endif  // TENSOROPS_KERNEL_TARGET_H_
