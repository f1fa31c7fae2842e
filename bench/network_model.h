// What the float and the int8 network programs share: MobileNet v2's block
// table, the convolution weights (He-scaled, a random BatchNorm folded in)
// and the clock that times their layers.
#ifndef TENSOROPS_BENCH_NETWORK_MODEL_H_
#define TENSOROPS_BENCH_NETWORK_MODEL_H_

#include <chrono>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include <tensorops/api.h>

namespace tensorops::bench {

// MobileNet v2's inverted residual blocks: (expansion t, channels c,
// repeats n, first stride s); a 3x3 stem to 32 channels before, a 1x1 to
// 1280 after.
inline constexpr size_t kMobileNetV2Blocks[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                                                    {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};

// A convolution's weights (O x Cg x taps, ONNX's order) and bias with a
// BatchNorm of random statistics folded in: w * gamma / sqrt(var + eps),
// bias = beta - mean * that scale; activations stay of order 1.
struct FoldedConv {
  std::vector<float> weights, bias;
};

inline FoldedConv MakeFoldedConv(std::mt19937& rng, size_t cout, size_t cg, size_t taps) {
  FoldedConv conv{std::vector<float>(cout * cg * taps), std::vector<float>(cout)};
  std::normal_distribution<float> he(0.0f, std::sqrt(2.0f / static_cast<float>(cg * taps)));
  for (float& v : conv.weights) v = he(rng);
  std::vector<float> gamma(cout), beta(cout), mean(cout), var(cout), scale(cout);
  std::uniform_real_distribution<float> around_one(0.7f, 1.3f);
  std::normal_distribution<float> small(0.0f, 0.1f);
  for (size_t o = 0; o < cout; ++o) {
    gamma[o] = around_one(rng);
    beta[o] = small(rng);
    mean[o] = small(rng);
    var[o] = around_one(rng);
  }
  FoldBatchNorm(gamma, beta, mean, var, 1e-5f, scale, conv.bias);
  for (size_t o = 0; o < cout; ++o) {
    for (size_t i = 0; i < cg * taps; ++i) conv.weights[o * cg * taps + i] *= scale[o];
  }
  return conv;
}

// A steady clock in nanoseconds, for the per-layer times.
inline double NowNs() {
  return static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace tensorops::bench

#endif  // TENSOROPS_BENCH_NETWORK_MODEL_H_
