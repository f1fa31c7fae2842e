// Scalar reference conversions, written from the IEEE-754 definitions with
// double arithmetic (not from the kernels' bit tricks), for Convert's tests.
#ifndef TENSOROPS_TESTS_SUPPORT_REFERENCE_CONVERT_H_
#define TENSOROPS_TESTS_SUPPORT_REFERENCE_CONVERT_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include <hwy/base.h>

namespace tensorops::test {

inline uint32_t BitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float FloatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
template <class T>
uint16_t Bits16(T v) {
  uint16_t u;
  std::memcpy(&u, &v, 2);
  return u;
}
template <class T>
T FromBits16(uint16_t u) {
  T v;
  std::memcpy(&v, &u, 2);
  return v;
}

// Rounds |x| (finite, >= 0) to a binary format with `mantissa_bits` stored
// bits and minimum normal exponent `min_exponent`, ties to even; returns the
// (biased exponent << mantissa_bits | mantissa) bits, or the Inf pattern.
inline uint32_t RoundMagnitude(double x, int mantissa_bits, int min_exponent,
                               int max_exponent) {
  const uint32_t inf = static_cast<uint32_t>(max_exponent - min_exponent + 2)
                       << mantissa_bits;
  if (x == 0) return 0;
  int e;
  std::frexp(x, &e);  // x = m * 2^e, m in [0.5, 1)
  int exponent = e - 1;
  if (exponent < min_exponent) {  // subnormal: fixed step 2^(min - mbits)
    const double q = std::nearbyint(std::ldexp(x, mantissa_bits - min_exponent));
    return static_cast<uint32_t>(q);  // may reach the smallest normal: right
  }
  double q = std::nearbyint(std::ldexp(x, mantissa_bits - exponent));  // [2^m, 2^(m+1)]
  if (q == std::ldexp(1.0, mantissa_bits + 1)) {
    q /= 2;
    ++exponent;
  }
  if (exponent > max_exponent) return inf;
  const uint32_t biased = static_cast<uint32_t>(exponent - min_exponent + 1);
  return (biased << mantissa_bits) |
         (static_cast<uint32_t>(q) - (1u << mantissa_bits));
}

inline uint16_t RefF32ToF16Bits(float f) {
  const uint32_t u = BitsOf(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
  if (std::isnan(f)) return sign | 0x7E00 | ((u >> 13) & 0x3FF);
  if (std::isinf(f)) return sign | 0x7C00;
  return sign | static_cast<uint16_t>(RoundMagnitude(std::fabs(f), 10, -14, 15));
}

inline uint16_t RefF32ToBF16Bits(float f) {
  const uint32_t u = BitsOf(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40);
  if (std::isinf(f)) return sign | 0x7F80;
  return sign | static_cast<uint16_t>(RoundMagnitude(std::fabs(f), 7, -126, 127));
}

inline float RefF16BitsToF32(uint16_t h) {
  const bool negative = h & 0x8000;
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  float magnitude;
  if (exponent == 31) {
    if (mantissa == 0) {
      magnitude = std::numeric_limits<float>::infinity();
    } else {  // quiet NaN keeping the payload
      return FloatOf((negative ? 0x80000000u : 0u) | 0x7FC00000u |
                     (static_cast<uint32_t>(mantissa) << 13));
    }
  } else if (exponent == 0) {
    magnitude = static_cast<float>(std::ldexp(mantissa, -24));
  } else {
    magnitude = static_cast<float>(std::ldexp(1024 + mantissa, exponent - 25));
  }
  return negative ? -magnitude : magnitude;
}

inline float RefBF16BitsToF32(uint16_t b) { return FloatOf(static_cast<uint32_t>(b) << 16); }

// Any supported element as float (the value the kernels compute with).
template <class T>
float RefToFloat(T v) {
  if constexpr (std::is_same_v<T, hwy::float16_t>) return RefF16BitsToF32(Bits16(v));
  else if constexpr (std::is_same_v<T, hwy::bfloat16_t>) return RefBF16BitsToF32(Bits16(v));
  else return static_cast<float>(v);
}

// Convert's semantics for one value (see tensorops/ops/convert.h).
template <class To, class From>
To RefConvert(From v) {
  if constexpr (std::is_same_v<From, To>) {
    return v;
  } else if constexpr (std::is_integral_v<From>) {
    // int -> float: exact in double, then one rounding to To.
    const double d = static_cast<double>(v);
    return RefConvert<To>(static_cast<float>(d));  // exact for |v| < 2^24
  } else {
    const float f = RefToFloat(v);
    if constexpr (std::is_same_v<To, float>) {
      return f;
    } else if constexpr (std::is_same_v<To, hwy::float16_t>) {
      return FromBits16<hwy::float16_t>(RefF32ToF16Bits(f));
    } else if constexpr (std::is_same_v<To, hwy::bfloat16_t>) {
      return FromBits16<hwy::bfloat16_t>(RefF32ToBF16Bits(f));
    } else {
      if (std::isnan(f)) return 0;
      const double r = std::nearbyint(static_cast<double>(f));  // ties to even
      const double lo = static_cast<double>(std::numeric_limits<To>::min());
      const double hi = static_cast<double>(std::numeric_limits<To>::max());
      return static_cast<To>(r < lo ? lo : r > hi ? hi : r);
    }
  }
}

// Bitwise equality for floats (NaN == NaN with the same payload), == else.
template <class T>
bool SameValue(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

}  // namespace tensorops::test

#endif  // TENSOROPS_TESTS_SUPPORT_REFERENCE_CONVERT_H_
