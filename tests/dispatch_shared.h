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

}  // namespace tensorops::test

#endif  // TENSOROPS_TESTS_DISPATCH_SHARED_H_
