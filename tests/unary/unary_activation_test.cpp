// Unary activations against their formulas in double on every target.
#include "unary/unary_check.h"

namespace tensorops::test {
namespace {

using K = UnaryKind;

TEST_CASE("Unary Sigmoid and Silu: <= 2 ULP, denormal tails kept", "[unary]") {
  CheckFloatAccuracy(Unary<K::kSigmoid>{}, 2.0);
  CheckFloatAccuracy(Unary<K::kSilu>{}, 2.5);
  CheckStorage<hwy::bfloat16_t>(Unary<K::kSigmoid>{}, -30.0f, 30.0f);
}

TEST_CASE("Unary Gelu (erf and tanh forms): <= 2.5 ULP, also in the far left tail", "[unary]") {
  CheckFloatAccuracy(Unary<K::kGelu>{}, 2.5);
  CheckFloatAccuracy(Unary<K::kGeluTanh>{}, 2.5);
  CheckStorage<hwy::float16_t>(Unary<K::kGelu>{}, -8.0f, 8.0f);
  CheckStorage<hwy::bfloat16_t>(Unary<K::kGelu>{}, -20.0f, 20.0f);
  CheckViews(Unary<K::kGelu>{});
}

TEST_CASE("Unary Softplus and Elu: accurate where they cancel", "[unary]") {
  CheckFloatAccuracy(Unary<K::kSoftplus>{}, 2.0);
  CheckFloatAccuracy(Unary<K::kElu>{}, 1.0);
  CheckFloatAccuracy(Unary<K::kElu>{.alpha = 0.3f}, 1.5);
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
  CheckViews(Unary<K::kRelu>{});
  CheckStorage<hwy::float16_t>(Unary<K::kRelu>{}, -100.0f, 100.0f);
}

}  // namespace
}  // namespace tensorops::test
