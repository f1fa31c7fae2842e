// LRN across channels against a double-precision reference on every target:
// odd and even sizes (ONNX's asymmetric window), sizes larger than C, both
// layouts, padded pitches and sub-views, the three power paths, float16 and
// bfloat16 storage, Simd's parameterisation, and bad arguments; data of one
// range and of mixed magnitudes (per element, and per channel, where a
// window sum that slid by adding and subtracting squares cancelled).
//
// Tolerance: the bound lrn.h states, in ULP of the double result (float);
// float16/bfloat16 add their storage rounding of the result.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"
#include "support/expect_error.h"
#include "support/random.h"
#include "support/reference_convert.h"
#include "support/reference_unary.h"
#include "support/targets.h"
#include "support/test_tensor.h"

namespace tensorops::test {
namespace {

enum class Data { kUniform, kMixedPerElement, kMixedPerChannel };

const char* DataName(Data data) {
  switch (data) {
    case Data::kUniform: return "uniform [-2, 2]";
    case Data::kMixedPerElement: return "mixed magnitudes per element";
    case Data::kMixedPerChannel: return "mixed magnitudes per channel";
  }
  return "";
}

// lrn.h's bound on |y - exact| in ULP of the exact result, for window
// length n (float storage, bias >= 0).
double BoundUlps(const Lrn& lrn, size_t n, double base) {
  const double beta = std::fabs(static_cast<double>(lrn.beta));
  const double bound = beta * static_cast<double>(n + 2) + 3.0;
  if (lrn.beta == 0.75f || lrn.beta == 0.5f) return bound;
  return bound + 3.0 * beta * std::fabs(std::log(base)) + 2.0;
}

template <class T, class L>
void Check(const Lrn& lrn, const Dims& dims, const Extents& pad, uint64_t seed,
           Data data = Data::kUniform) {
  INFO("Lrn size " << lrn.size << " alpha " << lrn.alpha << " beta " << lrn.beta << " bias "
                   << lrn.bias << " " << kElementName<T> << (std::is_same_v<L, Nhwc> ? " NHWC " : " NCHW ")
                   << dims << " pad " << pad << ", " << DataName(data));
  Rng rng(seed);
  TestTensor<T, L> src(dims, pad);
  src.Fill([&](const Extents& i) {
    switch (data) {
      case Data::kUniform:
        return RefConvert<T>(UniformFloat(rng, -2, 2));
      case Data::kMixedPerElement: return MixedMagnitude<T>(rng);
      case Data::kMixedPerChannel: return GroupMagnitude<T>(rng, i[L::kC]);
    }
    return T{};
  });
  const size_t channels = dims[L::kC];
  const size_t lo = (lrn.size - 1) / 2, hi = lrn.size - 1 - lo;
  // Storing the result in float16/bfloat16 rounds it once more: by 2^-11 or
  // 2^-8 relative, and in float16's subnormal range by up to 2^-25 absolute.
  const double step = std::is_same_v<T, float> ? 0 : std::is_same_v<T, hwy::float16_t> ? 0x1p-11 : 0x1p-8;
  const double step_abs = std::is_same_v<T, hwy::float16_t> ? 0x1p-25 : 0;
  ForEachTarget([&](int64_t) {
    TestTensor<T, L> dst(dims, pad);
    lrn(src.ConstView(), dst.View());
    CHECK(dst.OnlyElementsWritten());
    size_t failures = 0;
    ForEachIndex(dims, [&](const Extents& i) {
      const size_t c = i[L::kC];
      double sum = 0;
      size_t n = 0;
      Extents k = i;
      for (size_t kc = c >= lo ? c - lo : 0; kc <= c + hi && kc < channels; ++kc, ++n) {
        k[L::kC] = kc;
        const double v = RefToFloat(src.at(k));
        sum += v * v;
      }
      const double x = RefToFloat(src.at(i));
      const double base = static_cast<double>(lrn.bias) + static_cast<double>(lrn.alpha) / static_cast<double>(lrn.size) * sum;
      const double want = x * std::pow(base, -static_cast<double>(lrn.beta));
      const double got = RefToFloat(dst.at(i));
      const double ulps = std::fabs(got - want) / FloatSpacing(want);
      const double tol =
          BoundUlps(lrn, n, base) * FloatSpacing(want) + step * std::fabs(want) + step_abs;
      if (!(std::fabs(got - want) <= tol) && failures++ < 5) {
        FAIL_CHECK("index " << i << " x " << x << " got " << got << " want " << want << " ("
                            << ulps << " ULP, bound " << BoundUlps(lrn, n, base) << ")");
      }
    });
    CHECK(failures == 0);
  });
}

template <class T>
void CheckAll(const Lrn& lrn, uint64_t& seed) {
  // dims are in each layout's own order.
  Check<T, Nchw>(lrn, {1, 7, 5, 9}, {}, seed++);
  Check<T, Nchw>(lrn, {2, 16, 3, 17}, {0, 0, 1, 3}, seed++);
  Check<T, Nchw>(lrn, {1, 3, 1, 1}, {}, seed++);
  Check<T, Nchw>(lrn, {1, 33, 4, 4}, {}, seed++);
  Check<T, Nhwc>(lrn, {1, 5, 9, 7}, {}, seed++);
  Check<T, Nhwc>(lrn, {2, 3, 17, 16}, {0, 1, 2, 3}, seed++);
  Check<T, Nhwc>(lrn, {1, 1, 1, 3}, {}, seed++);
  Check<T, Nhwc>(lrn, {1, 2, 3, 67}, {}, seed++);
}

TEST_CASE("Lrn odd and even sizes, both layouts, every power path", "[lrn]") {
  uint64_t seed = 1;
  for (size_t size : {1, 2, 3, 4, 5, 6, 7, 40}) {
    CheckAll<float>(Lrn{.size = size, .alpha = 0.5f, .beta = 0.75f, .bias = 1.0f}, seed);
  }
  CheckAll<float>(Lrn{.size = 5, .alpha = 1e-4f, .beta = 0.75f, .bias = 2.0f}, seed);
  CheckAll<float>(Lrn{.size = 3, .alpha = 0.3f, .beta = 0.5f, .bias = 0.5f}, seed);
  CheckAll<float>(Lrn{.size = 4, .alpha = 2.0f, .beta = 0.6f, .bias = 1.5f}, seed);
  // NCHW runs longer than the kernel's column block (512): a dense plane of
  // 667 (one full block, then a partial one with a partial vector), and
  // padded rows of 600.
  Check<float, Nchw>(Lrn{.size = 5, .alpha = 0.5f}, {1, 6, 23, 29}, {}, seed++);
  Check<float, Nchw>(Lrn{.size = 4, .alpha = 0.5f}, {1, 5, 2, 600}, {0, 0, 0, 3}, seed++,
                     Data::kMixedPerChannel);
  // NHWC with more channels than the kernel's stack buffers hold: the
  // unbuffered path.
  Check<float, Nhwc>(Lrn{.size = 5, .alpha = 0.5f}, {1, 1, 2, 2100}, {}, seed++);
}

// The case an independent ONNX implementation disagreed on: channels of
// magnitude 50-500 next to channels of 0.2-2 (as GroupMagnitude makes them,
// 1e-3 to 1e3), every size from 1 to 8, both layouts, with a strong alpha.
TEST_CASE("Lrn mixed magnitudes: no cancellation at any size, either layout", "[lrn]") {
  uint64_t seed = 300;
  for (size_t size = 1; size <= 8; ++size) {
    for (const float alpha : {1.0f, 1e-4f}) {
      const Lrn lrn{.size = size, .alpha = alpha, .beta = 0.75f, .bias = 1.0f};
      for (const Data data : {Data::kMixedPerChannel, Data::kMixedPerElement}) {
        Check<float, Nchw>(lrn, {1, 17, 3, 11}, {}, seed++, data);
        Check<float, Nchw>(lrn, {2, 9, 2, 37}, {0, 0, 1, 3}, seed++, data);
        Check<float, Nhwc>(lrn, {1, 3, 11, 17}, {}, seed++, data);
        Check<float, Nhwc>(lrn, {1, 2, 5, 70}, {0, 1, 0, 2}, seed++, data);
      }
    }
  }
  // The other power paths.
  for (const Data data : {Data::kMixedPerChannel, Data::kMixedPerElement}) {
    Check<float, Nchw>(Lrn{.size = 3, .alpha = 0.3f, .beta = 0.5f, .bias = 0.5f}, {1, 13, 3, 7}, {},
                       seed++, data);
    Check<float, Nchw>(Lrn{.size = 4, .alpha = 2.0f, .beta = 0.6f, .bias = 1.5f}, {1, 13, 3, 7}, {},
                       seed++, data);
    Check<float, Nhwc>(Lrn{.size = 4, .alpha = 2.0f, .beta = 0.6f, .bias = 1.5f}, {1, 3, 7, 13}, {},
                       seed++, data);
    Check<hwy::float16_t, Nchw>(Lrn{.size = 5, .alpha = 0.5f}, {1, 11, 2, 9}, {}, seed++, data);
    Check<hwy::bfloat16_t, Nhwc>(Lrn{.size = 5, .alpha = 0.5f}, {1, 2, 9, 11}, {}, seed++, data);
  }
}

// b = bias + alpha/size sum outside the positive normal floats: zero (bias 0,
// a window of zeros: 0 * Inf = NaN), denormal, Inf (squares that overflow:
// x * 0, or NaN for x = Inf), NaN. The kernels' fast power (the reciprocal
// square root estimate, NHWC on SSSE3 to AVX-512) hands such vectors to the
// exact form; every lane must come out as IEEE arithmetic in double says,
// next to ordinary lanes in the same vector.
TEST_CASE("Lrn where bias + alpha/size sum is zero, denormal, Inf or NaN", "[lrn]") {
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {0.0f, -0.0f, 1e-20f, -3e-21f, 1e30f, -2e25f, inf, -inf,
                            std::numeric_limits<float>::quiet_NaN(), 1.5f, -0.25f, 7.0f};
  const auto check = [&](const Lrn& lrn, auto layout, const Dims& dims) {
    using L = decltype(layout);
    INFO("Lrn beta " << lrn.beta << " bias " << lrn.bias << (std::is_same_v<L, Nhwc> ? " NHWC " : " NCHW ") << dims);
    TestTensor<float, L> src(dims);
    size_t next = 0;
    // Runs of the same value, so that some windows hold only zeros.
    src.Fill([&](const Extents&) { return specials[(next++ / 3) % std::size(specials)]; });
    ForEachTarget([&](int64_t target) {
      // Where denormals flush (armv7 NEON), every square, product and sum
      // below the smallest normal float is a zero: a window of tiny values
      // with bias 0 gives b = 0, so x * Inf (NaN for x = 0).
      const bool ftz = FlushesDenormals(target);
      const auto flush = [&](double v) { return ftz ? FlushDenormal(v) : v; };
      TestTensor<float, L> dst(dims);
      lrn(src.ConstView(), dst.View());
      size_t failures = 0;
      ForEachIndex(dims, [&](const Extents& i) {
        const size_t c = i[L::kC], channels = dims[L::kC];
        const size_t lo = (lrn.size - 1) / 2, hi = lrn.size - 1 - lo;
        double sum = 0;
        Extents k = i;
        for (size_t kc = c >= lo ? c - lo : 0; kc <= c + hi && kc < channels; ++kc) {
          k[L::kC] = kc;
          // The kernel squares in float: a square beyond FLT_MAX is Inf.
          sum += flush(static_cast<double>(src.at(k) * src.at(k)));
        }
        const double scaled =
            flush(static_cast<double>(lrn.alpha / static_cast<float>(lrn.size)) *
                  static_cast<double>(static_cast<float>(flush(sum))));
        const double base = flush(static_cast<double>(
            static_cast<float>(static_cast<double>(lrn.bias) + scaled)));
        const double want = src.at(i) * std::pow(base, -static_cast<double>(lrn.beta));
        const double got = dst.at(i);
        // A denormal b carries its sum's absolute rounding (size steps of
        // 2^-149), which beta passes on relative to the result.
        const double b_error =
            base > 0 ? static_cast<double>(lrn.beta) * static_cast<double>(lrn.size) * 0x1p-149 / base : 0;
        const double tol = 8 * FloatSpacing(want) + b_error * std::fabs(want);
        const bool same = std::isnan(want) ? std::isnan(got)
                          : std::isinf(want) ? got == want
                                             : std::fabs(got - want) <= tol;
        if (!same && failures++ < 5) {
          FAIL_CHECK("index " << i << " x " << src.at(i) << " b " << base << " got " << got << " want "
                              << want);
        }
      });
      CHECK(failures == 0);
    });
  };
  for (const float beta : {0.75f, 0.5f}) {
    for (const float bias : {0.0f, 1.0f}) {
      const Lrn lrn{.size = 3, .alpha = 3.0f, .beta = beta, .bias = bias};
      check(lrn, Nhwc{}, {1, 3, 2, 37});
      check(lrn, Nchw{}, {1, 37, 2, 3});
    }
  }
}

TEST_CASE("Lrn float16 and bfloat16 storage", "[lrn]") {
  uint64_t seed = 100;
  CheckAll<hwy::float16_t>(Lrn{.size = 5, .alpha = 0.5f}, seed);
  CheckAll<hwy::bfloat16_t>(Lrn{.size = 4, .alpha = 0.5f, .beta = 0.6f}, seed);
}

TEST_CASE("Lrn sub-views of larger tensors", "[lrn]") {
  Rng rng(5);
  TestTensor<float, Nchw> big({2, 9, 6, 21}, {0, 1, 1, 2});
  big.Fill([&](const Extents&) { return UniformFloat(rng, -2, 2); });
  const auto window = big.ConstView().Batch(1).Channels(2, 5).Rows(1, 4);
  const Lrn lrn{.size = 3, .alpha = 0.7f};
  ForEachTarget([&](int64_t) {
    TestTensor<float, Nchw> out({1, 5, 4, 21}, {0, 0, 0, 1});
    lrn(window, out.View());
    CHECK(out.OnlyElementsWritten());
    ForEachIndex(out.dims(), [&](const Extents& i) {
      double sum = 0;
      for (size_t k = i[1] >= 1 ? i[1] - 1 : 0; k <= i[1] + 1 && k < 5; ++k) {
        const double v = big.at({1, k + 2, i[2] + 1, i[3]});
        sum += v * v;
      }
      const double want = big.at({1, i[1] + 2, i[2] + 1, i[3]}) * std::pow(1.0 + 0.7 / 3 * sum, -0.75);
      CHECK(std::fabs(out.at(i) - want) <= 1e-6 * std::fabs(want) + 1e-30);
    });
  });
}

TEST_CASE("Lrn::FromSimd maps half and k0..k2 to size, bias, alpha, beta", "[lrn]") {
  const Lrn lrn = Lrn::FromSimd(2, 1.5f, 0.2f, -0.75f);
  CHECK(lrn.size == 5);
  CHECK(lrn.bias == 1.5f);
  CHECK(lrn.alpha == 1.0f);  // k1 * size
  CHECK(lrn.beta == 0.75f);
}

TEST_CASE("Lrn rejects bad arguments and writes nothing", "[lrn]") {
  TestTensor<float, Nchw> src({1, 4, 3, 3}), dst({1, 4, 3, 3}), wrong({1, 5, 3, 3});
  const auto before = dst.Snapshot();
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] { Lrn{.size = 0}(src.ConstView(), dst.View()); })
            .find("size must be at least 1") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          Lrn{.beta = std::numeric_limits<float>::quiet_NaN()}(src.ConstView(), dst.View());
        }).find("must be finite") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] { Lrn{}(src.ConstView(), wrong.View()); })
            .find("dim[1]") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kAliasing, [&] { Lrn{}(dst.ConstView(), dst.View()); })
            .find("cannot run in place") != std::string::npos);
  CHECK(dst.Snapshot() == before);
}

}  // namespace
}  // namespace tensorops::test
