// The fast accuracy tier (Accuracy::kFast) on every target: each kind within
// the bound FastTierBound states, special values as in the accurate tier,
// views and storage types as any Unary.
#include <cstring>
#include <iomanip>
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
  CheckFloatAccuracy(Unary<kKind, kFast>{}, kBound.max_ulp, INFINITY, 0.0, 65521,
                     {kBound.relative_from, kBound.max_abs});
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
// exactly +-1 from their clamps on) exactly as the formulas give them, in
// both tiers.
TEST_CASE("Unary fast and accurate tiers: special values exact", "[unary]") {
  const float inf = INFINITY;
  const std::vector<float> in = {-inf, inf, NAN, -NAN, -0.0f, 0.0f, -100.0f, 100.0f,
                                 -9.5f, 9.5f, 4.0f, -4.0f, 88.0f, -88.0f, 1e-40f, -1e-40f};
  const auto check = [&](auto op) {
    using Op = decltype(op);
    ForEachTarget([&](int64_t target) {
      std::vector<float> got(in.size());
      op(TensorView<const float, Strided<1>>(in.data(), {in.size()}),
         TensorView<float, Strided<1>>(got.data(), {in.size()}));
      for (size_t i = 0; i < in.size(); ++i) {
        const auto want = static_cast<float>(RefUnary(Op::kKindOf, in[i], op.template ParamsFor<float>()));
        // Only the exact values: zeros, +-1, infinities and NaN.
        const bool exact_value = std::isnan(want) || std::isinf(want) || want == 0.0f ||
                                 std::fabs(want) == 1.0f;
        // A flushed denormal input is +-0 on its way in (armv7).
        if (!exact_value || (FlushesDenormals(target) && std::fabs(in[i]) < 1e-38f)) continue;
        INFO(UnaryName(Op::kKindOf) << (Op::kAccuracyOf == kFast ? " fast" : "") << " x = "
                                    << in[i] << ": got " << std::setprecision(9) << got[i]
                                    << ", want " << want);
        const bool same =
            std::isnan(want) ? std::isnan(got[i]) : std::memcmp(&got[i], &want, 4) == 0;
        CHECK(same);
      }
    });
  };
  check(Unary<K::kExp, kFast>{});
  check(Unary<K::kTanh, kFast>{});
  check(Unary<K::kErf, kFast>{});
  check(Unary<K::kSigmoid, kFast>{});
  check(Unary<K::kSilu, kFast>{});
  check(Unary<K::kGelu, kFast>{});
  check(Unary<K::kExp>{});
  check(Unary<K::kTanh>{});
  check(Unary<K::kErf>{});
  check(Unary<K::kSigmoid>{});
  check(Unary<K::kSilu>{});
  check(Unary<K::kGelu>{});
  check(Unary<K::kGeluTanh>{});
  check(Unary<K::kElu>{});
  check(Unary<K::kSoftplus>{});
}

TEST_CASE("Unary fast tier: views, in place and float16/bfloat16 storage", "[unary]") {
  CheckViews(Unary<K::kGelu, kFast>{});
  CheckViews(Unary<K::kTanh, kFast>{});
  CheckStorage<hwy::float16_t>(Unary<K::kSilu, kFast>{}, -30.0f, 30.0f);
  CheckStorage<hwy::bfloat16_t>(Unary<K::kErf, kFast>{}, -5.0f, 5.0f);
}

}  // namespace
}  // namespace tensorops::test
