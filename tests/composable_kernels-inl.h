// A user's own HWY_TARGET_INCLUDE file in composable mode: their per-target
// code, then tensorops' kernels, all compiled by the user's one cycle.
#if defined(TENSOROPS_TESTS_COMPOSABLE_KERNELS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_TESTS_COMPOSABLE_KERNELS_INL_H_
#undef TENSOROPS_TESTS_COMPOSABLE_KERNELS_INL_H_
#else
#define TENSOROPS_TESTS_COMPOSABLE_KERNELS_INL_H_
#endif

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace user_code {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The user's own kernel: reports its target and doubles n floats.
int64_t DoubleAll(float* values, size_t n) {
  const hn::ScalableTag<float> d;
  size_t i = 0;
  for (; i + hn::Lanes(d) <= n; i += hn::Lanes(d)) {
    hn::StoreU(hn::Add(hn::LoadU(d, values + i), hn::LoadU(d, values + i)), d, values + i);
  }
  for (; i < n; ++i) values[i] *= 2;
  return HWY_TARGET;
}

}  // namespace HWY_NAMESPACE
}  // namespace user_code
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_TESTS_COMPOSABLE_KERNELS_INL_H_

#include <tensorops/kernels-inl.h>
