// Must not compile: this TU runs its own foreach_target cycle and then
// includes the umbrella, which would start a second one.
#define HWY_TARGET_INCLUDE "composable_kernels-inl.h"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <tensorops/tensorops.h>
