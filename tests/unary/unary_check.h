// Shared checks for the Unary tests: each kind against the double reference
// (tests/support/reference_unary.h) on every target, with a stated ULP bound.
#ifndef TENSOROPS_TESTS_UNARY_UNARY_CHECK_H_
#define TENSOROPS_TESTS_UNARY_UNARY_CHECK_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <limits>
#include <random>
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"
#include "support/random.h"
#include "support/reference_convert.h"
#include "support/reference_unary.h"
#include "support/targets.h"
#include "support/test_tensor.h"

namespace tensorops::test {

// Values every kind must get right: signed zeros, Inf, NaN, denormals, the
// largest finite values, ties for rounding, integers beyond 2^23, and the
// boundaries between the kernels' pieces.
inline std::vector<float> SpecialValues() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> v = {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(),
                          -std::numeric_limits<float>::quiet_NaN(), 1e-45f, -1e-45f,
                          1.17549435e-38f, -1.17549435e-38f, 3.4028235e38f, -3.4028235e38f,
                          0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 8388607.5f, 8388609.0f,
                          -8388609.0f, 16777217.0f, 1e30f, -1e30f, 88.72f, 88.73f, -87.0f,
                          -103.9f, -104.5f, -150.0f, 0.625f, 0.665f, -0.665f, 0.47f, 2.0f,
                          2.83f, -2.83f, 3.0f, -3.0f, 6.0f, 10.0f, -10.0f, 20.0f, -20.0f,
                          1e4f, -1e4f, 1.5707964f, 3.1415927f, 1.0f, -1.0f};
  return v;
}

// The special values plus every stride-th float bit pattern (all signs and
// exponents), restricted to |x| <= max_abs.
inline std::vector<float> SweepValues(uint32_t stride, double max_abs) {
  std::vector<float> v;
  for (float x : SpecialValues()) {
    if (std::isnan(x) || std::fabs(x) <= max_abs) v.push_back(x);
  }
  for (uint64_t bits = 12345; bits < (uint64_t{1} << 32); bits += stride) {
    const float x = FloatOf(static_cast<uint32_t>(bits));
    if (std::isnan(x) || std::fabs(x) <= max_abs) v.push_back(x);
  }
  return v;
}

template <UnaryKind kKind, Accuracy kAccuracy, class T = float>
UnaryParams ParamsOf(const Unary<kKind, kAccuracy>& op) {
  return op.template ParamsFor<T>();
}

// Every value of `in` within max_ulp (or abs_tol) of the reference, on every
// target; values below tail.relative_from within tail.max_abs instead (the
// fast tier's absolute tails, FastTierBound).
template <UnaryKind kKind, Accuracy kAccuracy>
void CheckFloatAccuracyOf(const Unary<kKind, kAccuracy>& op, const std::vector<float>& in,
                          double max_ulp, double abs_tol, FastBound tail = {}) {
  const size_t n = in.size();
  TensorView<const float, Strided<1>> src(in.data(), {n});
  const auto ref = [&](double x) { return RefUnary(kKind, x, ParamsOf(op)); };
  ForEachTarget([&](int64_t target) {
    std::vector<float> out(n);
    op(src, TensorView<float, Strided<1>>(out.data(), {n}));
    size_t failures = 0;
    for (size_t i = 0; i < n; ++i) {
      const double want = ref(in[i]);
      if (in[i] < tail.relative_from) {
        if (!(std::fabs(out[i] - want) <= tail.max_abs) && failures++ < 5) {
          FAIL_CHECK("x = " << in[i] << " got " << out[i] << " want " << want
                            << ": absolute error above " << tail.max_abs);
        }
        continue;
      }
      const double err = FlushesDenormals(target) ? FlushedUlpError(out[i], in[i], ref, max_ulp)
                                                  : UlpError(out[i], want);
      const bool close = std::isfinite(want) && std::fabs(out[i] - want) <= abs_tol;
      if (!(err <= max_ulp) && !close && failures++ < 5) {
        FAIL_CHECK("x = " << in[i] << " (bits 0x" << std::hex << BitsOf(in[i]) << std::dec
                          << ") got " << out[i] << " want " << want << ": " << err << " ULP");
      }
    }
    CHECK(failures == 0);
  });
}

// float: every value of the sweep within max_ulp of the reference, on every
// target; the input is not modified.
// An error up to abs_tol also passes (for kinds whose formula cancels to 0
// at a point, where relative error is meaningless).
// The sweep runs twice: in order, where a vector's lanes lie close together
// (in one piece of a piecewise kernel), and shuffled, where they do not (the
// path that evaluates several pieces per vector).
template <UnaryKind kKind, Accuracy kAccuracy>
void CheckFloatAccuracy(const Unary<kKind, kAccuracy>& op, double max_ulp,
                        double max_abs = INFINITY, double abs_tol = 0, uint32_t stride = 65521,
                        FastBound tail = {}) {
  INFO(UnaryName(kKind) << ", bound " << max_ulp << " ULP");
  std::vector<float> in = SweepValues(stride, max_abs);
  for (const bool shuffled : {false, true}) {
    INFO((shuffled ? "shuffled" : "in order"));
    if (shuffled) std::shuffle(in.begin(), in.end(), std::mt19937(26));
    CheckFloatAccuracyOf(op, in, max_ulp, abs_tol, tail);
  }
}

// float16/bfloat16 storage: the result is the reference rounded to the
// storage type, within one step of it (the float result is far more precise
// than a float16 step, but may straddle a rounding boundary).
template <class T, UnaryKind kKind, Accuracy kAccuracy>
void CheckStorage(const Unary<kKind, kAccuracy>& op, float lo, float hi) {
  INFO(UnaryName(kKind) << " in " << kElementName<T>);
  Rng rng(7);
  std::vector<T> in;
  for (float x : SpecialValues()) in.push_back(RefConvert<T>(x));
  for (int i = 0; i < 3000; ++i) {
    in.push_back(RefConvert<T>(UniformFloat(rng, lo, hi)));
    in.push_back(MixedMagnitude<T>(rng));
  }
  const size_t n = in.size();
  constexpr bool kHalf = std::is_same_v<T, hwy::float16_t>;
  const int mantissa = kHalf ? 10 : 7;
  const int min_exponent = kHalf ? -14 : -126;
  const double max_value = kHalf ? 65504.0 : 3.3895313892515355e38;
  const auto ref = [&](double x) { return RefUnary(kKind, x, ParamsOf<kKind, kAccuracy, T>(op)); };
  ForEachTarget([&](int64_t target) {
    std::vector<T> out(n);
    op(TensorView<const T, Strided<1>>(in.data(), {n}), TensorView<T, Strided<1>>(out.data(), {n}));
    size_t failures = 0;
    for (size_t i = 0; i < n; ++i) {
      const double x = RefToFloat(in[i]);
      const double want = ref(x);
      const double got = RefToFloat(out[i]);
      // float16 values are all normal floats inside the kernel; bfloat16's
      // smallest ones are float denormals there.
      const double err = FlushesDenormals(target) && !kHalf
                             ? FlushedUlpError(got, x, ref, 1.0, mantissa, min_exponent, max_value)
                             : UlpError(got, want, mantissa, min_exponent, max_value);
      if (!(err <= 1.0) && failures++ < 5) {
        FAIL_CHECK("x = " << x << " got " << got << " want " << want << ": " << err << " ULP");
      }
    }
    CHECK(failures == 0);
  });
}

// The results that are exact values (+-0, +-1, +-Inf, NaN) bit for bit as
// the formula in double gives them, signs of zero included, on every target:
// infinities, NaN of both signs, signed zeros, saturation, denormal inputs.
template <UnaryKind kKind, Accuracy kAccuracy>
void CheckExactSpecialValues(const Unary<kKind, kAccuracy>& op) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> in = {-inf, inf,    nan,   -nan,  -0.0f, 0.0f,   -100.0f, 100.0f,
                                 -9.5f, 9.5f, 4.0f, -4.0f, 88.0f, -88.0f, 1e-40f, -1e-40f};
  ForEachTarget([&](int64_t target) {
    std::vector<float> got(in.size());
    op(TensorView<const float, Strided<1>>(in.data(), {in.size()}),
       TensorView<float, Strided<1>>(got.data(), {in.size()}));
    for (size_t i = 0; i < in.size(); ++i) {
      const auto want = static_cast<float>(RefUnary(kKind, in[i], ParamsOf(op)));
      const bool exact_value =
          std::isnan(want) || std::isinf(want) || want == 0.0f || std::fabs(want) == 1.0f;
      // A flushed denormal input is +-0 on its way in (armv7).
      if (!exact_value || (FlushesDenormals(target) && std::fabs(in[i]) < 1e-38f)) continue;
      INFO(UnaryName(kKind) << (kAccuracy == Accuracy::kFast ? " fast" : "") << " x = " << in[i]
                            << ": got " << std::setprecision(9) << got[i] << ", want " << want);
      CHECK((std::isnan(want) ? std::isnan(got[i]) : BitsOf(got[i]) == BitsOf(want)));
    }
  });
}

// Pitched, non-contiguous and in-place use: a window of a padded NCHW tensor
// into a window of another, elements outside the window untouched; then the
// same op in place on a padded tensor.
template <UnaryKind kKind, Accuracy kAccuracy>
void CheckViews(const Unary<kKind, kAccuracy>& op) {
  INFO(UnaryName(kKind) << " views");
  constexpr FastBound kBound = TierTestBound(kKind, kAccuracy);
  Rng rng(11);
  TestTensor<float, Nchw> src({2, 3, 5, 37}, {0, 1, 2, 3});
  src.Fill([&](const Extents&) { return UniformFloat(rng, -4, 4); });
  const auto window = src.ConstView().Batch(1).Channels(1, 2).Rows(1, 3);
  ForEachTarget([&](int64_t) {
    TestTensor<float, Nchw> dst({1, 2, 4, 37}, {0, 0, 1, 5});
    dst.Fill([](const Extents&) { return 42.0f; });
    op(window, dst.View().Rows(1, 3));
    CHECK(dst.OnlyElementsWritten());
    ForEachIndex(dst.dims(), [&](const Extents& i) {
      const bool inside = i[2] >= 1;
      const float x = src.at({1, i[1] + 1, i[2] - (inside ? 1 : 0) + 1, i[3]});
      const double want = inside ? RefUnary(kKind, x, ParamsOf(op)) : 42.0;
      if (!(inside ? WithinBound(kBound, dst.at(i), want, x) : dst.at(i) == 42.0f)) {
        FAIL_CHECK("index " << i << " got " << dst.at(i) << " want " << want);
      }
    });
    TestTensor<float, Strided<>> inplace({3, 1, 19}, {1, 0, 2});
    inplace.Fill([&](const Extents& i) { return static_cast<float>(i[0] + 1) * 0.37f - static_cast<float>(i[2]) * 0.21f; });
    op(inplace.ConstView(), inplace.View());
    CHECK(inplace.OnlyElementsWritten());
    ForEachIndex(inplace.dims(), [&](const Extents& i) {
      const float x = static_cast<float>(i[0] + 1) * 0.37f - static_cast<float>(i[2]) * 0.21f;
      CHECK(WithinBound(kBound, inplace.at(i), RefUnary(kKind, x, ParamsOf(op)), x));
    });
  });
}

}  // namespace tensorops::test

#endif  // TENSOROPS_TESTS_UNARY_UNARY_CHECK_H_
