// A second TU that instantiates the same op as dispatch_test.cpp.
#include <cstring>

#include <tensorops/tensorops.h>

#include "dispatch_shared.h"

namespace tensorops::test {

std::vector<uint16_t> HalfBitsFromSecondTu(const std::vector<float>& in) {
  std::vector<hwy::float16_t> out(in.size());
  Convert{}(TensorView<const float, Strided<1>>(in.data(), {in.size()}),
            TensorView<hwy::float16_t, Strided<1>>(out.data(), {out.size()}));
  std::vector<uint16_t> bits(out.size());
  std::memcpy(bits.data(), out.data(), bits.size() * 2);
  return bits;
}

const void* ConvertTableFromSecondTu() {
  return &detail::DispatchTable<ConvertKernel<float, hwy::float16_t>, HWY_TARGETS>::kTable;
}

}  // namespace tensorops::test
