// The fast accuracy tier (Accuracy::kFast) on every target: each kind within
// the bound FastTierBound states, special values as in the accurate tier,
// views and storage types as any Unary.
#include <vector>

#include "unary/unary_check.h"

namespace tensorops::test {
namespace {

using K = UnaryKind;
constexpr auto kFast = Accuracy::kFast;

template <UnaryKind kKind>
void CheckFastTier() {
  constexpr FastBound kBound = FastTierBound(kKind);
  INFO(UnaryName(kKind) << " fast: " << kBound.max_ulp << " ULP from x = " << kBound.relative_from
                        << ", " << kBound.max_abs << " absolute below");
  CheckFloatAccuracy(Unary<kKind, kFast>{}, kBound.max_ulp, INFINITY, 0.0, 65521, kBound);
}

TEST_CASE("Unary fast tier: exp, tanh, erf within their stated bounds", "[unary]") {
  CheckFastTier<K::kExp>();
  CheckFastTier<K::kTanh>();
  CheckFastTier<K::kErf>();
}

TEST_CASE("Unary fast tier: sigmoid, SiLU, GELU within their stated bounds", "[unary]") {
  CheckFastTier<K::kSigmoid>();
  CheckFastTier<K::kSilu>();
  CheckFastTier<K::kGelu>();
}

// NaN, +-Inf, signed zeros and the saturation points (tanh and erf are
// exactly +-1 from their clamps on) exactly as the formulas give them, as in
// the accurate tier (whose kinds are checked where their tests instantiate
// them, unary_math_test.cpp and unary_activation_test.cpp).
TEST_CASE("Unary fast tier: special values exact", "[unary]") {
  CheckExactSpecialValues(Unary<K::kExp, kFast>{});
  CheckExactSpecialValues(Unary<K::kTanh, kFast>{});
  CheckExactSpecialValues(Unary<K::kErf, kFast>{});
  CheckExactSpecialValues(Unary<K::kSigmoid, kFast>{});
  CheckExactSpecialValues(Unary<K::kSilu, kFast>{});
  CheckExactSpecialValues(Unary<K::kGelu, kFast>{});
}

TEST_CASE("Unary fast tier: views, in place and float16/bfloat16 storage", "[unary]") {
  CheckViews(Unary<K::kGelu, kFast>{});
  CheckViews(Unary<K::kTanh, kFast>{});
  CheckStorage<hwy::float16_t>(Unary<K::kSilu, kFast>{}, -30.0f, 30.0f);
  CheckStorage<hwy::bfloat16_t>(Unary<K::kErf, kFast>{}, -5.0f, 5.0f);
}

}  // namespace
}  // namespace tensorops::test
