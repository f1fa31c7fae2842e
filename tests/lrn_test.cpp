// LRN across channels against a double-precision reference on every target:
// odd and even sizes (ONNX's asymmetric window), sizes larger than C, both
// layouts, padded pitches and sub-views, the three power paths, float16 and
// bfloat16 storage, Simd's parameterisation, and bad arguments.
//
// Tolerance: the window sum carries at most C roundings (NCHW slides it) of
// sums of the same magnitude here (inputs in [-2, 2]), the power adds ~3 ULP
// (beta = 0.75: two square roots and a division) or |beta log b| + 2 ULP
// (general beta), the product one more: |got - want| <= 2^-23 (8 + C) |want|.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <tensorops/tensorops.h>

#include "support/catch.h"
#include "support/expect_error.h"
#include "support/random.h"
#include "support/reference_convert.h"
#include "support/targets.h"
#include "support/test_tensor.h"

namespace tensorops::test {
namespace {

template <class T, class L>
void Check(const Lrn& lrn, const Dims& dims, const Extents& pad, uint64_t seed) {
  INFO("Lrn size " << lrn.size << " alpha " << lrn.alpha << " beta " << lrn.beta << " bias "
                   << lrn.bias << " " << kElementName<T> << (std::is_same_v<L, Nhwc> ? " NHWC " : " NCHW ")
                   << dims << " pad " << pad);
  Rng rng(seed);
  TestTensor<T, L> src(dims, pad);
  src.Fill([&](const Extents&) { return RefConvert<T>(std::uniform_real_distribution<float>(-2, 2)(rng)); });
  const size_t channels = dims[L::kC];
  const size_t lo = (lrn.size - 1) / 2, hi = lrn.size - 1 - lo;
  const double step = std::is_same_v<T, float> ? 0 : std::is_same_v<T, hwy::float16_t> ? 0x1p-11 : 0x1p-8;
  ForEachTarget([&](int64_t) {
    TestTensor<T, L> dst(dims, pad);
    lrn(src.ConstView(), dst.View());
    CHECK(dst.OnlyElementsWritten());
    size_t failures = 0;
    ForEachIndex(dims, [&](const Extents& i) {
      const size_t c = i[L::kC];
      double sum = 0;
      Extents k = i;
      for (size_t kc = c >= lo ? c - lo : 0; kc <= c + hi && kc < channels; ++kc) {
        k[L::kC] = kc;
        const double v = RefToFloat(src.at(k));
        sum += v * v;
      }
      const double x = RefToFloat(src.at(i));
      const double base = static_cast<double>(lrn.bias) + static_cast<double>(lrn.alpha) / static_cast<double>(lrn.size) * sum;
      const double want = x * std::pow(base, -static_cast<double>(lrn.beta));
      const double got = RefToFloat(dst.at(i));
      const double tol = 0x1p-23 * (8.0 + static_cast<double>(channels)) +
                         std::fabs(lrn.beta * std::log(base)) * 0x1p-23 + step;
      if (!(std::fabs(got - want) <= tol * std::fabs(want) + 1e-30) && failures++ < 5) {
        FAIL_CHECK("index " << i << " x " << x << " got " << got << " want " << want);
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
  // NHWC with more channels than the kernel's stack buffers hold: the
  // unbuffered path.
  Check<float, Nhwc>(Lrn{.size = 5, .alpha = 0.5f}, {1, 1, 2, 2100}, {}, seed++);
}

TEST_CASE("Lrn float16 and bfloat16 storage", "[lrn]") {
  uint64_t seed = 100;
  CheckAll<hwy::float16_t>(Lrn{.size = 5, .alpha = 0.5f}, seed);
  CheckAll<hwy::bfloat16_t>(Lrn{.size = 4, .alpha = 0.5f, .beta = 0.6f}, seed);
}

TEST_CASE("Lrn sub-views of larger tensors", "[lrn]") {
  Rng rng(5);
  TestTensor<float, Nchw> big({2, 9, 6, 21}, {0, 1, 1, 2});
  big.Fill([&](const Extents&) { return std::uniform_real_distribution<float>(-2, 2)(rng); });
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
