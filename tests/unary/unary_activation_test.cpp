// Unary activations against their formulas in double on every target.
#include <cstring>
#include <vector>

#include "unary/unary_check.h"

namespace tensorops::test {
namespace {

using K = UnaryKind;

TEST_CASE("Unary Sigmoid and Silu: <= 2 ULP, denormal tails kept", "[unary]") {
  CheckFloatAccuracy(Unary<K::kSigmoid>{}, 2.0);
  CheckFloatAccuracy(Unary<K::kSilu>{}, 2.0);
  CheckStorage<hwy::bfloat16_t>(Unary<K::kSigmoid>{}, -30.0f, 30.0f);
  CheckExactSpecialValues(Unary<K::kSigmoid>{});
  CheckExactSpecialValues(Unary<K::kSilu>{});
}

TEST_CASE("Unary Gelu (erf and tanh forms): <= 2 ULP, also in the far left tail", "[unary]") {
  CheckFloatAccuracy(Unary<K::kGelu>{}, 2.0);
  CheckFloatAccuracy(Unary<K::kGeluTanh>{}, 2.0);
  CheckStorage<hwy::float16_t>(Unary<K::kGelu>{}, -8.0f, 8.0f);
  CheckStorage<hwy::bfloat16_t>(Unary<K::kGelu>{}, -20.0f, 20.0f);
  CheckViews(Unary<K::kGelu>{});
  CheckExactSpecialValues(Unary<K::kGelu>{});
  CheckExactSpecialValues(Unary<K::kGeluTanh>{});
}

TEST_CASE("Unary Softplus and Elu: accurate where they cancel", "[unary]") {
  CheckFloatAccuracy(Unary<K::kSoftplus>{}, 2.0);
  CheckFloatAccuracy(Unary<K::kElu>{}, 1.0);
  CheckFloatAccuracy(Unary<K::kElu>{.alpha = 0.3f}, 1.5);
  CheckExactSpecialValues(Unary<K::kSoftplus>{});
  CheckExactSpecialValues(Unary<K::kElu>{});
}

// log(1 + e), e = exp(-|x|), is most sensitive to e's rounding near
// e = 0.28; computed as Log1p(Exp(-|x|)) softplus was 2.11 ULP at x =
// -1.26168227. Every 7th float of [-1.3, -1.2] and every float around that
// point, within 1.8 ULP (1.74 over all floats now).
TEST_CASE("Unary Softplus: exp's rounding does not reach log1p", "[unary]") {
  std::vector<float> in;
  const auto add_range = [&](uint32_t first, uint32_t last, uint32_t step) {
    for (uint32_t bits = first; bits <= last; bits += step) {
      float x;
      std::memcpy(&x, &bits, sizeof(x));
      in.push_back(x);
    }
  };
  add_range(BitsOf(-1.2f), BitsOf(-1.3f), 7);
  add_range(BitsOf(-1.26168227f) - 500, BitsOf(-1.26168227f) + 500, 1);
  CheckFloatAccuracyOf(Unary<K::kSoftplus>{}, in, 1.8, 0.0);
}

TEST_CASE("Unary piecewise-linear activations and Clip", "[unary]") {
  CheckFloatAccuracy(Unary<K::kRelu>{}, 0.0);
  CheckFloatAccuracy(Unary<K::kLeakyRelu>{}, 0.5);
  CheckFloatAccuracy(Unary<K::kLeakyRelu>{.alpha = -0.7f}, 0.5);
  // alpha x + beta cancels to 0 at x = -beta/alpha: there the bound is
  // absolute (targets without FMA round alpha x first, as ONNX's reference).
  CheckFloatAccuracy(Unary<K::kHardSigmoid>{}, 1.0, INFINITY, 1.2e-7);
  CheckFloatAccuracy(Unary<K::kHardSigmoid>{.alpha = 0.5f, .beta = 0.25f}, 1.0, INFINITY, 1.2e-7);
  CheckFloatAccuracy(Unary<K::kHardSwish>{}, 2.0);
  CheckFloatAccuracy(Unary<K::kClip>{.min = -1.5f, .max = 6.0f}, 0.0);
  CheckFloatAccuracy(Unary<K::kClip>{.min = 0.0f}, 0.0);
  CheckFloatAccuracy(Unary<K::kClip>{.min = 3.0f, .max = -2.0f}, 0.0);  // min > max
  CheckFloatAccuracy(Unary<K::kClip>{}, 0.0);
  CheckViews(Unary<K::kRelu>{});
  CheckStorage<hwy::float16_t>(Unary<K::kRelu>{}, -100.0f, 100.0f);
  CheckStorage<hwy::float16_t>(Unary<K::kClip>{.max = 7.0f}, -100.0f, 100.0f);
}

// ONNX's Clip is NumPy's clip: an absent bound is the element type's lowest
// or highest finite value (so Inf is clipped to it), min > max makes every
// element max, NaN stays NaN. Written out against the values ONNX gives.
template <class T>
void CheckClipAsOnnx(float highest) {
  INFO(kElementName<T>);
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {-inf, -1e30f, -3.0f, -0.0f, 0.5f, 4.0f, 1e30f, inf, nan};
  std::vector<T> in;
  for (float v : x) in.push_back(RefConvert<T>(v));
  const size_t n = in.size();
  const auto run = [&](const Unary<K::kClip>& op) {
    std::vector<T> out(n);
    op(TensorView<const T, Strided<1>>(in.data(), {n}), TensorView<T, Strided<1>>(out.data(), {n}));
    std::vector<float> values;
    for (const T& v : out) values.push_back(RefToFloat(v));
    return values;
  };
  const auto same = [](const std::vector<float>& got, const std::vector<float>& want) {
    for (size_t i = 0; i < want.size(); ++i) {
      const bool equal = std::isnan(want[i]) ? std::isnan(got[i]) : got[i] == want[i];
      if (!equal) FAIL_CHECK("element " << i << " got " << got[i] << " want " << want[i]);
    }
  };
  ForEachTarget([&](int64_t) {
    // No bounds: +-Inf become +-highest, everything finite in range stays.
    std::vector<float> want;
    for (const T& v : in) {
      const float f = RefToFloat(v);
      want.push_back(std::isnan(f) ? f : std::min(std::max(f, -highest), highest));
    }
    same(run(Unary<K::kClip>{}), want);
    // Only min: the top is the type's highest.
    const float big = RefToFloat(in[6]);  // 1e30 as stored
    same(run(Unary<K::kClip>{.min = -2.0f}),
         {-2, -2, -2, -0.0f, 0.5f, 4, std::min(big, highest), highest, nan});
    // min > max: every element is max (NaN stays NaN).
    same(run(Unary<K::kClip>{.min = 3.0f, .max = 1.0f}), {1, 1, 1, 1, 1, 1, 1, 1, nan});
  });
}

TEST_CASE("Unary Clip follows ONNX: absent bounds, min > max, NaN", "[unary]") {
  CheckClipAsOnnx<float>(std::numeric_limits<float>::max());
  CheckClipAsOnnx<hwy::float16_t>(65504.0f);
  CheckClipAsOnnx<hwy::bfloat16_t>(3.38953139e38f);
}

}  // namespace
}  // namespace tensorops::test
