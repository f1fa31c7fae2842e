// tensorops: every view, every op and every kernel. Include this in your code.
//
// This header owns the translation unit's Highway foreach_target cycle: it
// compiles tensorops/kernels-inl.h once per target. A TU that runs its own
// cycle must use composable mode instead (see tensorops/kernels-inl.h).
#ifndef TENSOROPS_TENSOROPS_H_
#define TENSOROPS_TENSOROPS_H_

#include "tensorops/api.h"

#if defined(HWY_TARGET_INCLUDE)
#error "tensorops/tensorops.h: this TU already runs a Highway foreach_target cycle (HWY_TARGET_INCLUDE is defined). Use composable mode: include <tensorops/api.h> and add #include <tensorops/kernels-inl.h> to your HWY_TARGET_INCLUDE file."
#endif

#define TENSOROPS_IN_UMBRELLA
#define HWY_TARGET_INCLUDE "tensorops/kernels-inl.h"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "tensorops/kernels-inl.h"
#undef TENSOROPS_IN_UMBRELLA
#define TENSOROPS_UMBRELLA_KERNELS_DONE

#endif  // TENSOROPS_TENSOROPS_H_
