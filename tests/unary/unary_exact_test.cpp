// Unary kinds with exact or correctly rounded results, Not on bits, and the
// argument checks.
#include "support/expect_error.h"
#include "unary/unary_check.h"

namespace tensorops::test {
namespace {

using K = UnaryKind;

TEST_CASE("Unary exact kinds: Abs Neg Ceil Floor Round Sign Zero", "[unary]") {
  CheckFloatAccuracy(Unary<K::kAbs>{}, 0.0);
  CheckFloatAccuracy(Unary<K::kNeg>{}, 0.0);
  CheckFloatAccuracy(Unary<K::kCeil>{}, 0.0);
  CheckFloatAccuracy(Unary<K::kFloor>{}, 0.0);
  CheckFloatAccuracy(Unary<K::kRound>{}, 0.0);  // ties to even, |x| >= 2^23 exact
  CheckFloatAccuracy(Unary<K::kSign>{}, 0.0);
  CheckFloatAccuracy(Unary<K::kZero>{}, 0.0);
  CheckStorage<hwy::bfloat16_t>(Unary<K::kRound>{}, -20.0f, 20.0f);
  CheckViews(Unary<K::kRound>{});
}

TEST_CASE("Unary Round: ties go to even", "[unary]") {
  const std::vector<float> in = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 8388607.5f, -8388607.5f};
  const std::vector<float> want = {0.0f, 2.0f, 2.0f, -0.0f, -2.0f, -2.0f, 8388608.0f, -8388608.0f};
  ForEachTarget([&](int64_t) {
    std::vector<float> out(in.size());
    Unary<K::kRound>{}(TensorView<const float, Strided<1>>(in.data(), {in.size()}),
                       TensorView<float, Strided<1>>(out.data(), {in.size()}));
    for (size_t i = 0; i < in.size(); ++i) {
      INFO(in[i]);
      CHECK(BitsOf(out[i]) == BitsOf(want[i]));
    }
  });
}

TEST_CASE("Unary Sqrt and Rcp correctly rounded, Rsqrt within 0.5 ULP", "[unary]") {
  CheckFloatAccuracy(Unary<K::kSqrt>{}, 0.5);
  CheckFloatAccuracy(Unary<K::kRcp>{}, 0.5);
  CheckFloatAccuracy(Unary<K::kRsqrt>{}, 0.5);
  CheckStorage<hwy::float16_t>(Unary<K::kRsqrt>{}, 0.0f, 100.0f);
}

TEST_CASE("Unary Not inverts the stored bits", "[unary]") {
  ForEachTarget([&](int64_t) {
    std::vector<float> in = SweepValues(1000003, INFINITY), out(in.size());
    Unary<K::kNot>{}(TensorView<const float, Strided<1>>(in.data(), {in.size()}),
                     TensorView<float, Strided<1>>(out.data(), {in.size()}));
    size_t bad = 0;
    for (size_t i = 0; i < in.size(); ++i) bad += BitsOf(out[i]) != ~BitsOf(in[i]);
    CHECK(bad == 0);
    std::vector<hwy::float16_t> h(37), g(37);
    for (size_t i = 0; i < h.size(); ++i) h[i] = FromBits16<hwy::float16_t>(static_cast<uint16_t>(i * 1771u));
    Unary<K::kNot>{}(TensorView<const hwy::float16_t, Strided<1>>(h.data(), {h.size()}),
                     TensorView<hwy::float16_t, Strided<1>>(g.data(), {g.size()}));
    for (size_t i = 0; i < h.size(); ++i) CHECK(Bits16(g[i]) == static_cast<uint16_t>(~Bits16(h[i])));
  });
}

TEST_CASE("Unary rejects bad arguments and writes nothing", "[unary]") {
  TestTensor<float, Nchw> src({1, 2, 3, 4});
  TestTensor<float, Nchw> dst({1, 2, 3, 5});
  const auto before = dst.Snapshot();
  const std::string shape = ErrorOf(ErrorCode::kShapeMismatch, [&] {
    Unary<K::kExp>{}(src.ConstView(), dst.View());
  });
  CHECK(shape.find("dim[3] = 4") != std::string::npos);
  const std::string clip = ErrorOf(ErrorCode::kBadArgument, [&] {
    TestTensor<float, Nchw> out({1, 2, 3, 4});
    Unary<K::kClip>{.min = std::numeric_limits<float>::quiet_NaN()}(src.ConstView(), out.View());
  });
  CHECK(clip.find("the min bound must not be NaN") != std::string::npos);
  // A shifted view of the same buffer overlaps without being the same view.
  TestTensor<float, Strided<>> buffer({64});
  TensorView<float, Strided<>> whole = buffer.View();
  const std::string alias = ErrorOf(ErrorCode::kAliasing, [&] {
    Unary<K::kTanh>{}(TensorView<const float, Strided<>>(whole.data(), {32}),
                      TensorView<float, Strided<>>(whole.data() + 1, {32}));
  });
  CHECK(alias.find("overlap") != std::string::npos);
  CHECK(dst.Snapshot() == before);
}

}  // namespace
}  // namespace tensorops::test
