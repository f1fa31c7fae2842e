// Scalar references for the unary kinds, in double precision from <cmath>,
// and the error measure in ULP of float that the tests and
// tools/ulp_sweep use.
#ifndef TENSOROPS_TESTS_SUPPORT_REFERENCE_UNARY_H_
#define TENSOROPS_TESTS_SUPPORT_REFERENCE_UNARY_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <tensorops/ops/unary.h>

namespace tensorops::test {

// f(x) in double, written from the formulas in unary.h (kNot has no float
// reference: it is tested on bits).
inline double RefUnary(UnaryKind kind, double x, const UnaryParams& p) {
  using K = UnaryKind;
  // x f(x) with f -> 0: the limit at -Inf is -0 (the formulas give NaN).
  if (x == -INFINITY && (kind == K::kSilu || kind == K::kGelu || kind == K::kGeluTanh)) {
    return -0.0;
  }
  switch (kind) {
    case K::kAbs: return std::fabs(x);
    case K::kNeg: return -x;
    case K::kCeil: return std::ceil(x);
    case K::kFloor: return std::floor(x);
    case K::kRound: return std::nearbyint(x);  // default mode: ties to even
    case K::kZero: return 0.0;
    case K::kSqrt: return std::sqrt(x);
    case K::kRcp: return 1.0 / x;
    case K::kRsqrt: return 1.0 / std::sqrt(x);
    case K::kSign: return x > 0 ? 1.0 : x < 0 ? -1.0 : x;
    case K::kExp: return std::exp(x);
    case K::kLog: return std::log(x);
    case K::kTanh: return std::tanh(x);
    case K::kErf: return std::erf(x);
    case K::kSin: return std::sin(x);
    case K::kCos: return std::cos(x);
    case K::kNot: return std::numeric_limits<double>::quiet_NaN();
    case K::kRelu: return x < 0 ? 0.0 : x;
    case K::kLeakyRelu: return x < 0 ? p.alpha * x : x;
    case K::kElu: return x < 0 ? p.alpha * std::expm1(x) : x;
    case K::kSigmoid: return 1.0 / (1.0 + std::exp(-x));
    case K::kSilu: return x / (1.0 + std::exp(-x));
    case K::kGelu: return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
    case K::kGeluTanh: {
      // 1 + tanh(y) = 2 / (1 + exp(-2y)): the same value, no cancellation.
      const double y = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
      return x / (1.0 + std::exp(-2.0 * y));
    }
    case K::kSoftplus: return std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x)));
    case K::kHardSigmoid: return std::clamp(p.alpha * x + p.beta, 0.0, 1.0);
    case K::kHardSwish: return x * std::clamp(x / 6.0 + 0.5, 0.0, 1.0);
    case K::kClip: return std::isnan(x) ? x : std::clamp<double>(x, p.min, p.max);
  }
  return 0;
}

// The spacing of floats (or of a format with mantissa_bits and min_exponent)
// at v: one ULP there, 2^-149 for float's denormals and zero.
inline double FloatSpacing(double v, int mantissa_bits = 23, int min_exponent = -126) {
  int e;
  std::frexp(v, &e);
  const int exponent = v == 0 ? min_exponent : std::max(e - 1, min_exponent);
  return std::ldexp(1.0, exponent - mantissa_bits);
}

// |got - want| in units of the float spacing at want (2^-149 in the denormal
// range). NaN must meet NaN; a want beyond the float range must give the
// matching Inf. Returns +Inf for a wrong NaN or Inf.
inline double UlpError(double got, double want, int mantissa_bits = 23,
                       int min_exponent = -126, double max_value = 3.4028234663852886e38) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) == std::isnan(got) ? 0 : kInf;
  // want rounds to Inf from half a step above the largest value.
  const double overflow = max_value * (1.0 + std::ldexp(1.0, -mantissa_bits - 1));
  if (std::fabs(want) >= overflow) {
    return std::isinf(got) && (got > 0) == (want > 0) ? 0 : kInf;
  }
  if (std::isinf(got)) return kInf;
  return std::fabs(got - want) / FloatSpacing(want, mantissa_bits, min_exponent);
}

// The error a test allows one activation of a tier where it is not the subject
// of the test (views, the GEMM epilogue): 4 ULP for the accurate tier, whose
// own bounds the sweeps test, and the stated FastTierBound for the fast one.
constexpr FastBound TierTestBound(UnaryKind kind, Accuracy accuracy) {
  return accuracy == Accuracy::kFast ? FastTierBound(kind) : FastBound{4.0};
}

// The error of `got` against `want` for input x under a FastBound: absolute
// below relative_from, in ULP from there on.
inline bool WithinBound(const FastBound& bound, double got, double want, double x) {
  return x < bound.relative_from ? std::fabs(got - want) <= bound.max_abs
                                 : UlpError(got, want) <= bound.max_ulp;
}

// x as a target that flushes denormals (FlushesDenormals) reads it.
inline double FlushDenormal(double x, int min_exponent = -126) {
  return std::fabs(x) < std::ldexp(1.0, min_exponent) ? std::copysign(0.0, x) : x;
}

// The error of `got` for input x against the reference f, on a target that
// flushes denormals: f of the flushed input, and a result below the smallest
// normal (by up to max_ulp, which the kernel may round across) may be the
// zero of its sign. The smaller of that and the IEEE error.
template <class F>
double FlushedUlpError(double got, double x, const F& f, double max_ulp, int mantissa_bits = 23,
                       int min_exponent = -126, double max_value = 3.4028234663852886e38) {
  const double ieee = UlpError(got, f(x), mantissa_bits, min_exponent, max_value);
  const double want = f(FlushDenormal(x, min_exponent));
  const double smallest = std::ldexp(1.0, min_exponent);
  if (got == 0 && std::signbit(got) == std::signbit(want) &&
      std::fabs(want) < smallest * (1.0 + max_ulp * std::ldexp(1.0, -mantissa_bits))) {
    return 0;
  }
  return std::min(ieee, UlpError(got, want, mantissa_bits, min_exponent, max_value));
}

}  // namespace tensorops::test

#endif  // TENSOROPS_TESTS_SUPPORT_REFERENCE_UNARY_H_
