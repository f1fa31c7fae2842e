// Functions the dispatch test's translation units define for each other.
#ifndef TENSOROPS_TESTS_DISPATCH_SHARED_H_
#define TENSOROPS_TESTS_DISPATCH_SHARED_H_

#include <cstdint>
#include <vector>

namespace tensorops::test {

// dispatch_second_tu.cpp: converts with its own instantiation of the kernels
// and reports the address of the dispatch table it uses.
std::vector<uint16_t> HalfBitsFromSecondTu(const std::vector<float>& in);
const void* ConvertTableFromSecondTu();

// dispatch_light_tu.cpp: includes only <tensorops/api.h>; its kernels come
// from the explicit instantiations in dispatch_instantiations.cpp.
std::vector<float> U8ToBF16ToFloatFromLightTu(const std::vector<uint8_t>& in);
int64_t ActiveTargetFromLightTu();

// dispatch_composable_tu.cpp: a TU in composable mode doubles `in` with its
// own Highway kernel, then round-trips it through bfloat16 with tensorops.
struct ComposableResult {
  int64_t user_target = 0;
  int64_t tensorops_target = 0;
  std::vector<float> values;
};
ComposableResult RunComposable(const std::vector<float>& in);

}  // namespace tensorops::test

#endif  // TENSOROPS_TESTS_DISPATCH_SHARED_H_
