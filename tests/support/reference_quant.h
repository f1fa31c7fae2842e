// Quantized data and ONNX's requantization written from the formula, for the
// tests' references (QGemm, QConv).
#ifndef TENSOROPS_TESTS_SUPPORT_REFERENCE_QUANT_H_
#define TENSOROPS_TESTS_SUPPORT_REFERENCE_QUANT_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "support/random.h"

namespace tensorops::test {

// A uniformly random value of uint8_t or int8_t.
template <class T>
T RandomQ(Rng& rng) {
  return static_cast<T>(std::numeric_limits<T>::min() + static_cast<int>(rng() % 256));
}

// saturate(round_half_even(float(acc) * ((sa * sb) / sc)) + zc); with relu
// at least zc.
template <class T>
T RefRequantize(int64_t acc, float sa, float sb, float sc, int zc, bool relu) {
  const float multiplier = sa * sb / sc;
  const double r = static_cast<double>(std::nearbyint(static_cast<float>(acc) * multiplier)) + zc;
  double lo = std::numeric_limits<T>::min();
  const double hi = std::numeric_limits<T>::max();
  if (relu) lo = std::max<double>(lo, zc);
  return static_cast<T>(r < lo ? lo : r > hi ? hi : r);
}

}  // namespace tensorops::test

#endif  // TENSOROPS_TESTS_SUPPORT_REFERENCE_QUANT_H_
