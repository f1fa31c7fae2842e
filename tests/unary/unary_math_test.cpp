// Unary transcendentals against double-precision <cmath> on every target.
// Bounds are in ULP of float and hold on every target (the non-FMA targets,
// SSE4 and the scalar fallback, are the worst); the README's accuracy table
// has the exhaustive numbers from tools/ulp_sweep.
#include "unary/unary_check.h"

namespace tensorops::test {
namespace {

using K = UnaryKind;

TEST_CASE("Unary Exp: <= 1 ULP, Inf/0 at the ends, denormal results", "[unary]") {
  CheckFloatAccuracy(Unary<K::kExp>{}, 1.0);
  CheckStorage<hwy::float16_t>(Unary<K::kExp>{}, -20.0f, 12.0f);
  CheckStorage<hwy::bfloat16_t>(Unary<K::kExp>{}, -100.0f, 88.0f);
  CheckViews(Unary<K::kExp>{});
  CheckExactSpecialValues(Unary<K::kExp>{});
}

TEST_CASE("Unary Log: <= 1 ULP, log(0) = -Inf, log(<0) = NaN", "[unary]") {
  CheckFloatAccuracy(Unary<K::kLog>{}, 1.0);
  CheckStorage<hwy::bfloat16_t>(Unary<K::kLog>{}, 0.0f, 1000.0f);
}

TEST_CASE("Unary Tanh: <= 1.4 ULP", "[unary]") {
  CheckFloatAccuracy(Unary<K::kTanh>{}, 1.4);
  CheckStorage<hwy::float16_t>(Unary<K::kTanh>{}, -5.0f, 5.0f);
  CheckExactSpecialValues(Unary<K::kTanh>{});
}

TEST_CASE("Unary Erf: <= 1.0 ULP", "[unary]") {
  CheckFloatAccuracy(Unary<K::kErf>{}, 1.0);
  CheckExactSpecialValues(Unary<K::kErf>{});
}

TEST_CASE("Unary Sin and Cos: <= 2 ULP on |x| <= 1e4, bounded beyond", "[unary]") {
  CheckFloatAccuracy(Unary<K::kSin>{}, 2.0, 1e4);
  CheckFloatAccuracy(Unary<K::kCos>{}, 2.0, 1e4);
  CheckStorage<hwy::float16_t>(Unary<K::kSin>{}, -100.0f, 100.0f);
  // Beyond the documented domain: still in [-1, 1]; Inf gives NaN.
  const std::vector<float> in = {1e5f, -3e6f, 1.2e7f, 1e20f, -3.4e38f, INFINITY, -INFINITY};
  ForEachTarget([&](int64_t) {
    std::vector<float> s(in.size()), c(in.size());
    TensorView<const float, Strided<1>> x(in.data(), {in.size()});
    Unary<K::kSin>{}(x, TensorView<float, Strided<1>>(s.data(), {in.size()}));
    Unary<K::kCos>{}(x, TensorView<float, Strided<1>>(c.data(), {in.size()}));
    for (size_t i = 0; i < in.size(); ++i) {
      INFO("x = " << in[i] << " sin " << s[i] << " cos " << c[i]);
      if (std::isinf(in[i])) {
        CHECK(std::isnan(s[i]));
        CHECK(std::isnan(c[i]));
      } else {
        CHECK(std::fabs(s[i]) <= 1.0f);
        CHECK(std::fabs(c[i]) <= 1.0f);
      }
    }
  });
}

}  // namespace
}  // namespace tensorops::test
