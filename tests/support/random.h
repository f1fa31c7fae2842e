// Deterministic random values for tests: every run sees the same data, and a
// failure message's seed reproduces it.
#ifndef TENSOROPS_TESTS_SUPPORT_RANDOM_H_
#define TENSOROPS_TESTS_SUPPORT_RANDOM_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>

#include <hwy/base.h>

#include "support/reference_convert.h"

namespace tensorops::test {

using Rng = std::mt19937_64;

// A float uniform in [lo, hi): bit for bit what libstdc++'s
// std::uniform_real_distribution<float>(lo, hi)(rng) gives (one 64-bit draw
// rounded to float and scaled by 2^-64, then unit (hi - lo) + lo), without
// the long double arithmetic it does per draw, which is software on aarch64
// (IEEE quad) and under qemu: 225 ns a draw there against 42.
inline float UniformFloat(Rng& rng, float lo, float hi) {
  float unit = static_cast<float>(rng()) * 0x1p-64f;
  if (unit >= 1.0f) unit = std::nextafter(1.0f, 0.0f);
  return unit * (hi - lo) + lo;
}

// A value of T that exercises conversions and arithmetic: for float types a
// mix of ordinary values, exact ties (k + 0.5), huge/tiny magnitudes and
// arbitrary bit patterns (NaN, Inf, subnormals); for integers the full range.
template <class T>
T RandomValue(Rng& rng) {
  if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<int64_t> dist(std::numeric_limits<T>::min(),
                                                std::numeric_limits<T>::max());
    return static_cast<T>(dist(rng));
  } else {
    const uint64_t kind = rng() % 8;
    float f;
    if (kind < 3) {
      f = UniformFloat(rng, -300.0f, 300.0f);
    } else if (kind == 3) {
      f = static_cast<float>(static_cast<int>(rng() % 600) - 300) + 0.5f;
    } else if (kind == 4) {
      f = UniformFloat(rng, -70000.0f, 70000.0f);
    } else if (kind == 5) {
      f = UniformFloat(rng, -1e-5f, 1e-5f);
    } else {
      const uint32_t bits = static_cast<uint32_t>(rng());
      std::memcpy(&f, &bits, 4);
    }
    if constexpr (std::is_same_v<T, float>) {
      return f;
    } else {
      // Any bit pattern is a valid float16/bfloat16 value.
      uint16_t bits = static_cast<uint16_t>(rng());
      if (kind < 6) {
        bits = std::is_same_v<T, hwy::bfloat16_t> ? RefF32ToBF16Bits(f)
                                                  : RefF32ToF16Bits(f);
      }
      return FromBits16<T>(bits);
    }
  }
}

// Mixed-magnitude data: small and large values side by side, where
// cancellation (a large value added and later subtracted next to a small one)
// shows; data drawn from one range hides it. Every float op's tests use these
// besides their uniform ranges.
//
// Per element: |x| = 10^e with e uniform in [-3, 3] (1e-3 to 1e3), random sign.
template <class T>
T MixedMagnitude(Rng& rng) {
  const float e = UniformFloat(rng, -3.0f, 3.0f);
  const float magnitude = std::pow(10.0f, e);
  return RefConvert<T>(rng() % 2 ? magnitude : -magnitude);
}

// Per channel (or any other index): every value of group g has a magnitude
// within a factor of 4 of 10^(g mod 7 - 3), so neighbouring groups differ by
// a factor of 10 and groups 1e-3 and 1e3 come three apart; random sign.
template <class T>
T GroupMagnitude(Rng& rng, size_t group) {
  const float scale = std::pow(10.0f, static_cast<float>(group % 7) - 3.0f);
  const float magnitude = scale * UniformFloat(rng, 0.25f, 1.0f);
  return RefConvert<T>(rng() % 2 ? magnitude : -magnitude);
}

}  // namespace tensorops::test

#endif  // TENSOROPS_TESTS_SUPPORT_RANDOM_H_
