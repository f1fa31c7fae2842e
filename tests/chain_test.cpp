// Chain: every stage list against a double-precision reference of the same
// formula, on every target, over NCHW, NHWC and Strided views with odd sizes,
// tails shorter than a vector, size 1 and padded pitches, with data of mixed
// magnitudes (1e-3 to 1e3); broadcasting, in place, storage types, errors.
//
// Tolerance, carried along the stages: one rounding per arithmetic operation
// (two for the affine stage: GCC on armv7 does not fuse), the activation's
// largest slope (1.5, HardSwish; the others are <= 1.13) times the error it
// receives plus 4 ULP of its own, and half a step of y's format at the end.
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <random>
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

constexpr double kU = 1.0 / (1 << 24);  // float's unit roundoff

// A reference value and a bound on how far a float computation may be from it.
struct Approx {
  double value;
  double error = 0.0;
};

Approx Affine(Approx a, double scale, double shift) {
  const double product = a.value * scale, r = product + shift;
  return {r, a.error * std::abs(scale) + 2 * kU * (std::abs(product) + std::abs(r))};
}

Approx Activation(UnaryKind kind, Approx a, const UnaryParams& params) {
  const double r = RefUnary(kind, a.value, params);
  return {r, 1.5 * a.error + 4 * FloatSpacing(r)};
}

Approx Binary(EltwiseKind kind, Approx a, double v) {
  switch (kind) {
    case EltwiseKind::kSum: return {a.value + v, a.error + 2 * kU * std::abs(a.value + v)};
    case EltwiseKind::kSub: return {a.value - v, a.error + 2 * kU * std::abs(a.value - v)};
    case EltwiseKind::kProduct:
      return {a.value * v, a.error * std::abs(v) + 2 * kU * std::abs(a.value * v)};
    case EltwiseKind::kDiv:
      return {a.value / v, a.error / std::abs(v) + 2 * kU * std::abs(a.value / v)};
    case EltwiseKind::kMax: return {std::max(a.value, v), a.error};
    case EltwiseKind::kMin: return {std::min(a.value, v), a.error};
  }
  return a;
}

template <class T>
constexpr int MantissaBits() {
  if constexpr (std::is_same_v<T, float>) return 23;
  if constexpr (std::is_same_v<T, hwy::float16_t>) return 10;
  return 7;
}

// Runs `call(y)` on a copy of y0 on every target and checks each element of
// y against ref(index) = the reference and its bound, in y's format.
template <class TD, class LD, class Call, class Ref>
void ExpectChain(const TestTensor<TD, LD>& y0, const Call& call, const Ref& ref) {
  ForEachTarget([&](int64_t) {
    TestTensor<TD, LD> y = y0;
    call(y.View());
    CHECK(y.OnlyElementsWritten());
    size_t failures = 0;
    ForEachIndex(y.dims(), [&](const Extents& index) {
      Approx want = ref(index);
      const double bound = want.error + std::ldexp(std::abs(want.value), -MantissaBits<TD>() - 1) +
                           std::ldexp(1.0, -120) +
                           (std::is_same_v<TD, hwy::float16_t> ? std::ldexp(1.0, -25) : 0.0);
      const double got = RefToFloat(y.at(index));
      if (!(std::abs(got - want.value) <= bound) && failures++ < 5) {
        FAIL_CHECK("y" << index << " = " << got << ", want "
                       << want.value << " +- " << bound);
      }
    });
    CHECK(failures == 0);
  });
}

template <class T, class L>
TestTensor<T, L> Mixed(const Dims& dims, const Extents& pad, Rng& rng) {
  TestTensor<T, L> t(dims, pad);
  t.Fill([&](const Extents&) { return MixedMagnitude<T>(rng); });
  return t;
}

// Per-channel values whose magnitudes differ by a factor of 10 between
// neighbouring channels (1e-3 to 1e3).
std::vector<float> PerChannel(size_t channels, Rng& rng) {
  std::vector<float> v(channels);
  for (size_t c = 0; c < channels; ++c) v[c] = GroupMagnitude<float>(rng, c);
  return v;
}

// Shapes with size 1, odd sizes and tails shorter than any vector.
const std::vector<Dims> kImageShapes = {
    {1, 1, 1, 1}, {1, 3, 5, 7}, {2, 5, 3, 17}, {1, 16, 9, 33}, {2, 1, 4, 4}, {1, 4, 1, 67}};

TEST_CASE("Chain: BatchNorm then SiLU into float16 in one pass, NCHW, NHWC and Strided",
          "[chain]") {
  for (const Dims& shape : kImageShapes) {
    for (size_t pad : {0, 3}) {
      const size_t n = shape[0], c = shape[1], h = shape[2], w = shape[3];
      INFO("N C H W " << n << " " << c << " " << h << " " << w << " pad " << pad);
      Rng rng(n * 1000 + c * 100 + h * 10 + w + pad);
      std::vector<float> gamma = PerChannel(c, rng), beta = PerChannel(c, rng);
      std::vector<float> mean = PerChannel(c, rng), var(c), scale(c), shift(c);
      for (float& v : var) v = UniformFloat(rng, 0.01f, 4.0f);
      FoldBatchNorm(gamma, beta, mean, var, 1e-5f, scale, shift);
      const Chain chain{ChannelAffine{scale, shift}, Unary<UnaryKind::kSilu>{}};
      const UnaryParams params = Unary<UnaryKind::kSilu>{}.ParamsFor<hwy::float16_t>();
      const auto ref = [&](float x, size_t channel) {
        return Activation(UnaryKind::kSilu, Affine({x}, scale[channel], shift[channel]), params);
      };
      SECTION("NCHW") {
        auto x = Mixed<float, Nchw>({n, c, h, w}, {0, 0, 0, pad}, rng);
        TestTensor<hwy::float16_t, Nchw> y({n, c, h, w}, {0, pad, 0, pad + 1});
        ExpectChain(y, [&](auto yv) { chain(x.ConstView(), yv); },
                    [&](const Extents& i) { return ref(x.at(i), i[1]); });
      }
      SECTION("NHWC") {
        auto x = Mixed<float, Nhwc>({n, h, w, c}, {0, 0, pad, pad}, rng);
        TestTensor<hwy::float16_t, Nhwc> y({n, h, w, c}, {0, 0, 0, pad});
        ExpectChain(y, [&](auto yv) { chain(x.ConstView(), yv); },
                    [&](const Extents& i) { return ref(x.at(i), i[3]); });
      }
      SECTION("Strided, the channel axis named") {
        auto x = Mixed<float, Strided<4>>({n, c, h, w}, {0, 0, pad, 0}, rng);
        TestTensor<hwy::float16_t, Strided<4>> y({n, c, h, w});
        const Chain named{ChannelAffine{scale, shift, 1}, Unary<UnaryKind::kSilu>{}};
        ExpectChain(y, [&](auto yv) { named(x.ConstView(), yv); },
                    [&](const Extents& i) { return ref(x.at(i), i[1]); });
      }
    }
  }
}

TEST_CASE("Chain: a residual added before ReLU, broadcast by NumPy's rules", "[chain]") {
  const Dims dims = {2, 6, 5, 19};
  Rng rng(7);
  auto x = Mixed<float, Nchw>(dims, {0, 0, 0, 2}, rng);
  TestTensor<float, Nchw> y(dims, {0, 0, 1, 1});
  const auto check = [&](const auto& operand, const auto& value_at) {
    ExpectChain(y, [&](auto yv) { Chain{Add::With(operand), Unary<UnaryKind::kRelu>{}}(x.ConstView(), yv); },
                [&](const Extents& i) {
                  return Activation(UnaryKind::kRelu, Binary(EltwiseKind::kSum, {x.at(i)}, value_at(i)),
                                    {});
                });
  };
  SECTION("the same shape, padded") {
    auto r = Mixed<float, Nchw>(dims, {0, 1, 0, 3}, rng);
    check(r.ConstView(), [&](const Extents& i) { return r.at(i); });
  }
  SECTION("[C, 1, 1], a per-channel tensor of another layout and rank") {
    auto r = Mixed<float, Strided<3>>({6, 1, 1}, {}, rng);
    check(r.ConstView(), [&](const Extents& i) { return r.at({i[1], 0, 0}); });
  }
  SECTION("[W], a row") {
    auto r = Mixed<float, Strided<1>>({19}, {}, rng);
    check(r.View(), [&](const Extents& i) { return r.at({i[3]}); });  // a mutable view too
  }
  SECTION("[1], a scalar") {
    auto r = Mixed<float, Strided<1>>({1}, {}, rng);
    check(r.ConstView(), [&](const Extents&) { return r.at({0}); });
  }
  SECTION("[N, 1, H, 1]") {
    auto r = Mixed<float, Strided<4>>({2, 1, 5, 1}, {}, rng);
    check(r.ConstView(), [&](const Extents& i) { return r.at({i[0], 0, i[2], 0}); });
  }
}

TEST_CASE("Chain: four stages, bfloat16 in and out, GELU (tanh form) computing in double",
          "[chain]") {
  for (const Dims& shape : kImageShapes) {
    const size_t n = shape[0], c = shape[1], h = shape[2], w = shape[3];
    INFO("N H W C " << n << " " << h << " " << w << " " << c);
    Rng rng(n + c * 3 + h * 5 + w * 7);
    const std::vector<float> scale = PerChannel(c, rng);
    auto x = Mixed<hwy::bfloat16_t, Nhwc>({n, h, w, c}, {0, 0, 1, 0}, rng);
    auto m = Mixed<hwy::bfloat16_t, Nhwc>({n, h, w, c}, {0, 0, 0, 2}, rng);
    auto floor = Mixed<float, Strided<1>>({c}, {}, rng);  // per channel, innermost
    TestTensor<hwy::bfloat16_t, Nhwc> y({n, h, w, c}, {0, 1, 0, 1});
    const Unary<UnaryKind::kGeluTanh> gelu;
    const Chain chain{ChannelAffine{.scale = scale}, Mul::With(m.ConstView()), gelu,
                      Eltwise<EltwiseKind::kMax>::With(floor.ConstView())};
    ExpectChain(y, [&](auto yv) { chain(x.ConstView(), yv); },
                [&](const Extents& i) {
                  Approx a = Affine({RefToFloat(x.at(i))}, scale[i[3]], 0.0);
                  a = Binary(EltwiseKind::kProduct, a, RefToFloat(m.at(i)));
                  a = Activation(UnaryKind::kGeluTanh, a, gelu.ParamsFor<hwy::bfloat16_t>());
                  return Binary(EltwiseKind::kMax, a, floor.at({i[3]}));
                });
  }
}

TEST_CASE("Chain: Sub, Div and Min operands against a matrix", "[chain]") {
  for (size_t rows : {1, 3, 8}) {
    for (size_t cols : {1, 5, 16, 31}) {
      INFO("M N " << rows << " " << cols);
      Rng rng(rows * 100 + cols);
      auto x = Mixed<float, Strided<2>>({rows, cols}, {0, 3}, rng);
      auto row = Mixed<float, Strided<1>>({cols}, {}, rng);
      TestTensor<float, Strided<2>> column({rows, 1});
      // Divisors of magnitude 0.5 to 2, so the quotient's bound stays small.
      column.Fill([&](const Extents&) {
        const float v = UniformFloat(rng, 0.5f, 2.0f);
        return rng() % 2 ? v : -v;
      });
      auto cap = Mixed<float, Strided<2>>({rows, cols}, {}, rng);
      TestTensor<float, Strided<2>> y({rows, cols}, {0, 1});
      const Chain chain{Sub::With(row.ConstView()), Div::With(column.ConstView()),
                        Eltwise<EltwiseKind::kMin>::With(cap.ConstView())};
      ExpectChain(y, [&](auto yv) { chain(x.ConstView(), yv); },
                  [&](const Extents& i) {
                    Approx a = Binary(EltwiseKind::kSub, {x.at(i)}, row.at({i[1]}));
                    a = Binary(EltwiseKind::kDiv, a, column.at({i[0], 0}));
                    return Binary(EltwiseKind::kMin, a, cap.at(i));
                  });
    }
  }
}

TEST_CASE("Chain: no stage converts, one Unary stage (either tier) is the Unary op", "[chain]") {
  Rng rng(11);
  const Dims dims = {3, 4, 7, 9};
  auto x16 = Mixed<hwy::float16_t, Nchw>(dims, {0, 0, 0, 1}, rng);
  auto x = Mixed<float, Nchw>(dims, {0, 0, 2, 0}, rng);
  ForEachTarget([&](int64_t) {
    TestTensor<float, Nchw> converted(dims, {0, 0, 0, 3});
    Chain{}(x16.ConstView(), converted.View());
    TestTensor<float, Nchw> by_chain(dims), by_unary(dims);
    Chain{Unary<UnaryKind::kRelu>{}}(x.ConstView(), by_chain.View());
    Unary<UnaryKind::kRelu>{}(x.ConstView(), by_unary.View());
    // The fast tier as a stage: the same code as Unary's fast tier.
    TestTensor<float, Nchw> fast_chain(dims), fast_unary(dims);
    Chain{Unary<UnaryKind::kGelu, Accuracy::kFast>{}}(x.ConstView(), fast_chain.View());
    Unary<UnaryKind::kGelu, Accuracy::kFast>{}(x.ConstView(), fast_unary.View());
    size_t wrong = 0;
    ForEachIndex(dims, [&](const Extents& i) {
      wrong += converted.at(i) != RefToFloat(x16.at(i));
      wrong += BitsOf(by_chain.at(i)) != BitsOf(by_unary.at(i));
      wrong += BitsOf(fast_chain.at(i)) != BitsOf(fast_unary.at(i));
    });
    CHECK(wrong == 0);
    CHECK(converted.OnlyElementsWritten());
  });
}

TEST_CASE("Chain: in place, x and an operand being y itself", "[chain]") {
  Rng rng(13);
  const Dims dims = {1, 5, 6, 11};
  auto y0 = Mixed<float, Nchw>(dims, {0, 0, 1, 2}, rng);
  ExpectChain(y0,
              [&](auto yv) {
                Chain{Add::With(yv), Unary<UnaryKind::kRelu>{}}(yv, yv);  // relu(y + y)
              },
              [&](const Extents& i) {
                const double v = y0.at(i);
                return Activation(UnaryKind::kRelu, Binary(EltwiseKind::kSum, {v}, v), {});
              });
}

TEST_CASE("Chain: bad arguments name the problem and leave y untouched", "[chain]") {
  TestTensor<float, Nchw> x({1, 3, 4, 5}), y({1, 3, 4, 5});
  TestTensor<float, Strided<4>> ys({1, 3, 4, 5});
  x.Fill([](const Extents&) { return 1.0f; });
  const auto before = y.Snapshot();
  const std::vector<float> three = {1, 2, 3}, two = {1, 2};
  const Unary<UnaryKind::kRelu> relu;
  std::string message;

  TestTensor<float, Nchw> other({1, 3, 4, 6});
  message = ErrorOf(ErrorCode::kShapeMismatch, [&] { Chain{relu}(x.ConstView(), other.View()); });
  CHECK(message.find("dim[3] = 5") != std::string::npos);

  message = ErrorOf(ErrorCode::kShapeMismatch,
                    [&] { Chain{ChannelAffine{three, two}, relu}(x.ConstView(), y.View()); });
  CHECK(message.find("shift has 2 values but y has 3 channels") != std::string::npos);
  message = ErrorOf(ErrorCode::kBadArgument,
                    [&] { Chain{relu, ChannelAffine{three, three}}(x.ConstView(), ys.View()); });
  CHECK(message.find("stage 1 (ChannelAffine): y's layout (strided) has no channel dimension")
        != std::string::npos);
  message = ErrorOf(ErrorCode::kBadArgument,
                    [&] { Chain{ChannelAffine{three, three, 4}}(x.ConstView(), y.View()); });
  CHECK(message.find("axis 4") != std::string::npos);
  message = ErrorOf(ErrorCode::kBadArgument,
                    [&] { Chain{ChannelAffine{}}(x.ConstView(), y.View()); });
  CHECK(message.find("both empty") != std::string::npos);
  message = ErrorOf(ErrorCode::kBadArgument, [&] {
    Chain{Unary<UnaryKind::kClip>{.min = std::numeric_limits<float>::quiet_NaN()}}(x.ConstView(),
                                                                                 y.View());
  });
  CHECK(message.find("must not be NaN") != std::string::npos);

  TestTensor<float, Strided<1>> wrong_row({4});
  message = ErrorOf(ErrorCode::kShapeMismatch,
                    [&] { Chain{relu, Add::With(wrong_row.ConstView())}(x.ConstView(), y.View()); });
  CHECK(message.find("stage 1 (Sum::With)'s operand dim[0] = 4 does not broadcast to dst dim[3] = 5")
        != std::string::npos);

  // Overlaps: x shifted by one element, an operand inside y, scale inside y.
  const TensorView<float, Nchw> yv = y.View();
  const TensorView<float, Nchw> shifted(yv.data() + 1, {1, 3, 4, 4}, yv.pitches());
  const TensorView<float, Nchw> head(yv.data(), {1, 3, 4, 4}, yv.pitches());
  ErrorOf(ErrorCode::kAliasing, [&] { Chain{relu}(shifted, head); });
  const TensorView<const float, Nchw> x_head(x.ConstView().data(), {1, 3, 4, 4}, x.pitches());
  message = ErrorOf(ErrorCode::kAliasing, [&] { Chain{Add::With(shifted)}(x_head, head); });
  CHECK(message.find("stage 0 (Sum::With): the operand overlaps y") != std::string::npos);
  message = ErrorOf(ErrorCode::kAliasing, [&] {
    Chain{ChannelAffine{std::span<const float>(yv.data(), 3)}}(x.ConstView(), yv);
  });
  CHECK(message.find("scale overlaps y") != std::string::npos);
  TestTensor<hwy::float16_t, Nchw> y16({1, 3, 4, 5});
  // In place needs one element type: float16 x read over a float y is an overlap.
  const TensorView<hwy::float16_t, Nchw> as16(reinterpret_cast<hwy::float16_t*>(yv.data()),
                                              {1, 3, 4, 5}, y16.pitches());
  ErrorOf(ErrorCode::kAliasing, [&] { Chain{}(as16, yv); });

  CHECK(y.Snapshot() == before);
}

TEST_CASE("FoldBatchNorm: ONNX's formula, in double, and its errors", "[chain]") {
  const std::vector<float> gamma = {1.0f, -2.0f, 0.5f}, beta = {0.0f, 1.0f, -3.0f};
  const std::vector<float> mean = {0.25f, -1.0f, 1e3f}, var = {1.0f, 4.0f, 1e-6f};
  std::vector<float> scale(3), shift(3);
  FoldBatchNorm(gamma, beta, mean, var, 1e-5f, scale, shift);
  for (size_t c = 0; c < 3; ++c) {
    const double s = gamma[c] / std::sqrt(static_cast<double>(var[c]) + static_cast<double>(1e-5f));
    CHECK(scale[c] == static_cast<float>(s));
    CHECK(shift[c] == static_cast<float>(beta[c] - mean[c] * s));
  }
  std::vector<float> short_shift(2, 7.0f);
  ErrorOf(ErrorCode::kShapeMismatch,
          [&] { FoldBatchNorm(gamma, beta, mean, var, 1e-5f, scale, short_shift); });
  CHECK(short_shift == std::vector<float>(2, 7.0f));
  ErrorOf(ErrorCode::kBadArgument, [&] { FoldBatchNorm(gamma, beta, mean, var, -1.0f, scale, shift); });
  ErrorOf(ErrorCode::kBadArgument, [&] {
    FoldBatchNorm(gamma, beta, mean, var, std::numeric_limits<float>::quiet_NaN(), scale, shift);
  });
  // A variance that is negative, NaN, or zero with epsilon 0: an error that
  // names the channel, and scale and shift untouched (ONNX's formula would
  // give NaN or Inf scales).
  const std::vector<float> before_scale = scale, before_shift = shift;
  for (const float bad : {-0.5f, std::numeric_limits<float>::quiet_NaN(), 0.0f}) {
    std::vector<float> v = var;
    v[2] = bad;
    const float epsilon = bad == 0.0f ? 0.0f : 1e-5f;
    const std::string message =
        ErrorOf(ErrorCode::kBadArgument, [&] { FoldBatchNorm(gamma, beta, mean, v, epsilon, scale, shift); });
    CHECK(message.find("var[2]") != std::string::npos);
    CHECK(scale == before_scale);
    CHECK(shift == before_shift);
  }
}

}  // namespace
}  // namespace tensorops::test
