// The smallest program a user writes: convert four floats to float16 and back.
#include <tensorops/tensorops.h>

#include <cstdio>

int main() {
  namespace tops = tensorops;
  const float in[4] = {1.0f, 0.5f, -2.0f, 65504.0f};
  hwy::float16_t half[4];
  float out[4];
  tops::Convert{}(tops::TensorView<const float, tops::Strided<1>>(in, {4}),
                  tops::TensorView<hwy::float16_t, tops::Strided<1>>(half, {4}));
  tops::Convert{}(tops::TensorView<const hwy::float16_t, tops::Strided<1>>(half, {4}),
                  tops::TensorView<float, tops::Strided<1>>(out, {4}));
  // The Highway this program was compiled against (the packaging tests check
  // it is the one the project itself found).
  std::printf("Highway %d.%d.%d, target %s: %g %g %g %g\n", HWY_MAJOR, HWY_MINOR, HWY_PATCH,
              tops::ActiveTargetName(), out[0], out[1], out[2], out[3]);
  for (int i = 0; i < 4; ++i) {
    if (out[i] != in[i]) return 1;
  }
  return 0;
}
