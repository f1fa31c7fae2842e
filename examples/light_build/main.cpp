// The fast-build split, user side: this TU includes only the light header, so
// it compiles in a fraction of the time of one that includes the kernels.
// kernels.cpp instantiates the kernels this program calls.
#include <tensorops/api.h>

#include <cstdio>
#include <vector>

int main() {
  namespace tops = tensorops;
  // A 2x3 image of uint8 pixels with rows padded to 8 bytes (larod pitches).
  const tops::Dims dims = {1, 1, 2, 3};
  const tops::Pitches pitches = tops::AlignedPitches<uint8_t, tops::Nchw>(dims, {.w = 8});
  const std::vector<uint8_t> pixels = {10, 20, 30, 0, 0, 0, 0, 0,
                                       40, 50, 60, 0, 0, 0, 0, 0};
  std::vector<float> out(6);
  tops::Convert{}(tops::TensorView<const uint8_t, tops::Nchw>(pixels.data(), dims, pitches),
                  tops::TensorView<float, tops::Nchw>(out.data(), dims));
  std::printf("light build, target %s:", tops::ActiveTargetName());
  for (float v : out) std::printf(" %g", v);
  std::printf("\n");
  return out[5] == 60.0f ? 0 : 1;
}
