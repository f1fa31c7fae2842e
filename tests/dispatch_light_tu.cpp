// A TU that sees no kernel: it includes the light header only, as users who
// need fast builds do, and links against explicit instantiations.
#include <tensorops/api.h>

#include <cstring>

#include "dispatch_shared.h"

namespace tensorops::test {

std::vector<float> U8ToBF16ToFloatFromLightTu(const std::vector<uint8_t>& in) {
  std::vector<hwy::bfloat16_t> half(in.size());
  std::vector<float> out(in.size());
  Convert{}(TensorView<const uint8_t, Strided<1>>(in.data(), {in.size()}),
            TensorView<hwy::bfloat16_t, Strided<1>>(half.data(), {half.size()}));
  Convert{}(TensorView<const hwy::bfloat16_t, Strided<1>>(half.data(), {half.size()}),
            TensorView<float, Strided<1>>(out.data(), {out.size()}));
  return out;
}

int64_t ActiveTargetFromLightTu() { return DispatchedTarget(); }

}  // namespace tensorops::test
