// Composable mode: a TU that runs its own Highway cycle for its own code and
// compiles tensorops' kernels inside it (see tensorops/kernels-inl.h).
#include <cstring>
#include <vector>

#include <tensorops/api.h>

#include "dispatch_shared.h"

#define HWY_TARGET_INCLUDE "composable_kernels-inl.h"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "composable_kernels-inl.h"

#if HWY_ONCE
namespace user_code {
HWY_EXPORT(DoubleAll);

// HWY_DYNAMIC_DISPATCH is used inside the namespace of its HWY_EXPORT: when
// only one target is compiled (e.g. Arm with SVE disabled) it becomes
// N_<TARGET>::DoubleAll, which resolves only from here.
int64_t DispatchDoubleAll(float* values, size_t n) {
  return HWY_DYNAMIC_DISPATCH(DoubleAll)(values, n);
}
}  // namespace user_code

namespace tensorops::test {

ComposableResult RunComposable(const std::vector<float>& in) {
  ComposableResult result;
  std::vector<float> doubled = in;
  result.user_target = user_code::DispatchDoubleAll(doubled.data(), doubled.size());
  std::vector<hwy::bfloat16_t> half(in.size());
  Convert{}(TensorView<const float, Strided<1>>(doubled.data(), {doubled.size()}),
            TensorView<hwy::bfloat16_t, Strided<1>>(half.data(), {half.size()}));
  result.values.resize(in.size());
  Convert{}(TensorView<const hwy::bfloat16_t, Strided<1>>(half.data(), {half.size()}),
            TensorView<float, Strided<1>>(result.values.data(), {result.values.size()}));
  result.tensorops_target = DispatchedTarget();
  return result;
}

}  // namespace tensorops::test
#endif  // HWY_ONCE
