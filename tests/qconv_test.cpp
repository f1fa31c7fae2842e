// QConv (ConvInteger, QLinearConv) against a scalar reference written from
// the formulas (int64 sums over the taps inside the input; the
// requantization in float as qgemm.h states), on every target: both layouts,
// groups 1, 2, 3, depthwise with and without a channel multiplier, kernels
// 1-5, strides 1-3, dilation 2, pads and auto_pad, batch 2, size-1 planes,
// padded pitches and a channel sub-view, uint8/int8 x and W, int32 and
// requantized y, zero points per tensor and per output channel, bias and
// ReLU, executors (bit-identical), and the errors.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"
#include "support/expect_error.h"
#include "support/random.h"
#include "support/reference_quant.h"
#include "support/reference_window.h"
#include "support/targets.h"
#include "support/test_tensor.h"

namespace tensorops::test {
namespace {

struct Shape {
  size_t n, c, h, w, o, group, kh, kw;
};

// A zero point within 3 of the middle of T's range, as a quantizer picks
// them for centered data, or anywhere in the range.
template <class T>
T ZeroPoint(Rng& rng, bool centered) {
  if (!centered) return RandomQ<T>(rng);
  const int mid = std::is_same_v<T, uint8_t> ? 128 : 0;
  return static_cast<T>(mid - 3 + static_cast<int>(rng() % 7));
}

// Runs QConv on random data of `shape` and compares with the reference on
// every target. TY int32: ConvInteger (+ bias on odd seeds); else
// QLinearConv with bias on even seeds and `relu`.
template <class TX, class TW, class TY, class L>
void Check(const Shape& s, const QConv& conv_in, bool per_channel, bool relu, const Extents& x_pad,
           const Extents& y_pad, uint64_t seed) {
  constexpr bool kRequantize = !std::is_same_v<TY, int32_t>;
  QConv conv = conv_in;
  conv.group = s.group;
  conv.relu = relu;
  const RefAxis ah = RefResolve(s.h, s.kh, conv.strides.h, conv.dilations.h, conv.pads.top,
                                conv.pads.bottom, conv.auto_pad, false);
  const RefAxis aw = RefResolve(s.w, s.kw, conv.strides.w, conv.dilations.w, conv.pads.left,
                                conv.pads.right, conv.auto_pad, false);
  const size_t cg = s.c / s.group, og = s.o / s.group;
  const Dims x_dims = InLayout<L>(s.n, s.c, s.h, s.w);
  const Dims y_dims = InLayout<L>(s.n, s.o, ah.out, aw.out);
  INFO("QConv " << kElementName<TX> << " x " << kElementName<TW> << " -> " << kElementName<TY>
                << (std::is_same_v<L, Nhwc> ? " NHWC" : " NCHW") << " N " << s.n << " C " << s.c
                << " H " << s.h << " W " << s.w << " O " << s.o << " group " << s.group << " kernel "
                << s.kh << "x" << s.kw << " strides " << conv.strides.h << "," << conv.strides.w
                << " dilations " << conv.dilations.h << "," << conv.dilations.w << " pads "
                << conv.pads.top << "," << conv.pads.left << "," << conv.pads.bottom << ","
                << conv.pads.right << " auto_pad " << static_cast<int>(conv.auto_pad)
                << (per_channel ? " per channel" : "") << (relu ? " relu" : "") << " x pad " << x_pad
                << " y pad " << y_pad << " seed " << seed);
  Rng rng(seed);
  const bool centered = kRequantize;  // sums spread around 0, so requantized outputs vary
  TestTensor<TX, L> x(x_dims, x_pad);
  x.Fill([&](const Extents&) { return RandomQ<TX>(rng); });
  TestTensor<TW, Strided<>> w({s.o, cg, s.kh, s.kw}, {0, 1, 0, 1});
  w.Fill([&](const Extents&) { return RandomQ<TW>(rng); });
  const TX zx = ZeroPoint<TX>(rng, centered);
  std::vector<TW> zw;
  std::vector<float> sw;
  for (size_t o = 0; o < (per_channel ? s.o : 1); ++o) {
    zw.push_back(ZeroPoint<TW>(rng, centered));
    sw.push_back(UniformFloat(rng, 0.01f, 0.02f));
  }
  std::vector<int32_t> bias;
  if (kRequantize ? seed % 2 == 0 : seed % 2 == 1) {
    for (size_t o = 0; o < s.o; ++o) bias.push_back(static_cast<int32_t>(rng() % 20001) - 10000);
  }
  conv.bias = bias;
  const float sx = 0.02f;
  // Outputs spread over the range, a few saturating (as qgemm_test.cpp).
  const size_t depth = cg * s.kh * s.kw;
  const float sy = sx * sw[0] * std::sqrt(static_cast<float>(depth)) * 5500.0f / 40.0f;
  const TY zy = kRequantize ? static_cast<TY>(std::is_same_v<TY, uint8_t> ? 100 + seed % 50
                                                                          : -10 + static_cast<int>(seed % 21))
                            : TY{0};

  // x and W without their zero points, dense (n, c, h, w) and (o, c, i, j):
  // the sums below index plain arrays (the test code runs at -O0 in some
  // CI steps, where an Extents per tap was most of the test's time).
  std::vector<int32_t> xd(s.n * s.c * s.h * s.w), wd(s.o * cg * s.kh * s.kw);
  ForEachIndex(x_dims, [&](const Extents& i) {
    xd[((i[L::kN] * s.c + i[L::kC]) * s.h + i[L::kH]) * s.w + i[L::kW]] = x.at(i) - zx;
  });
  ForEachIndex(Dims{s.o, cg, s.kh, s.kw}, [&](const Extents& i) {
    wd[((i[0] * cg + i[1]) * s.kh + i[2]) * s.kw + i[3]] = w.at(i) - zw[per_channel ? i[0] : 0];
  });
  std::vector<TY> want;
  std::vector<bool> summed;  // the window reads at least two inputs
  ForEachIndex(y_dims, [&](const Extents& out) {
    const size_t n = out[L::kN], o = out[L::kC], oh = out[L::kH], ow = out[L::kW];
    const size_t g = o / og;
    int64_t acc = 0;
    size_t taps = 0;
    for (size_t c = 0; c < cg; ++c) {
      const int32_t* xc = xd.data() + (n * s.c + g * cg + c) * s.h * s.w;
      const int32_t* wc = wd.data() + (o * cg + c) * s.kh * s.kw;
      for (size_t i = 0; i < s.kh; ++i) {
        for (size_t j = 0; j < s.kw; ++j) {
          const int64_t ih = static_cast<int64_t>(oh * conv.strides.h + i * conv.dilations.h) -
                             static_cast<int64_t>(ah.pad_begin);
          const int64_t iw = static_cast<int64_t>(ow * conv.strides.w + j * conv.dilations.w) -
                             static_cast<int64_t>(aw.pad_begin);
          if (ih < 0 || iw < 0 || ih >= static_cast<int64_t>(s.h) || iw >= static_cast<int64_t>(s.w)) {
            continue;
          }
          ++taps;
          acc += int64_t{xc[ih * static_cast<int64_t>(s.w) + iw]} * wc[i * s.kw + j];
        }
      }
    }
    summed.push_back(taps >= 2);
    if (!bias.empty()) acc += bias[o];
    if constexpr (kRequantize) {
      want.push_back(RefRequantize<TY>(acc, sx, sw[per_channel ? o : 0], sy, zy, relu));
    } else {
      want.push_back(static_cast<TY>(acc));
    }
  });

  ForEachTargetAndVnniVariant([&](int64_t) {
    const QConvWeights<L, TW> weights(w.ConstView(), sw, zw, s.group);
    const Size2 size = conv.OutputSize(weights, s.h, s.w);
    CHECK((size.h == ah.out && size.w == aw.out));
    TestTensor<TY, L> y(y_dims, y_pad);
    if constexpr (kRequantize) {
      conv(x.ConstView(), sx, zx, weights, sy, zy, y.View());
    } else {
      conv(x.ConstView(), zx, weights, y.View());
    }
    CHECK(y.OnlyElementsWritten());
    size_t k = 0, failures = 0, inside = 0, sums = 0;
    ForEachIndex(y_dims, [&](const Extents& out) {
      const int64_t got = y.at(out);
      sums += summed[k];
      inside += summed[k] && want[k] > (relu ? zy : std::numeric_limits<TY>::min()) &&
                want[k] < std::numeric_limits<TY>::max();
      if (got != static_cast<int64_t>(want[k]) && failures++ < 5) {
        FAIL_CHECK("output " << out << ": got " << got << ", want " << int64_t{want[k]});
      }
      ++k;
    });
    CHECK(failures == 0);
    // Requantized data exercise rounding, not only saturation.
    if (kRequantize && sums >= 64) CHECK(inside * (relu ? 8 : 4) >= sums);
  });
}

// The four type combinations, each with its own parameters.
template <class L>
void CheckTypes(const Shape& s, const QConv& conv, uint64_t seed, const Extents& x_pad = {},
                const Extents& y_pad = {}) {
  Check<uint8_t, uint8_t, int32_t, L>(s, conv, false, false, x_pad, y_pad, seed);
  Check<int8_t, int8_t, int32_t, L>(s, conv, true, false, x_pad, y_pad, seed + 1);
  Check<uint8_t, int8_t, uint8_t, L>(s, conv, true, seed % 3 == 0, x_pad, y_pad, seed + 2);
  Check<int8_t, uint8_t, int8_t, L>(s, conv, false, seed % 3 == 1, x_pad, y_pad, seed + 3);
}

void CheckBothLayouts(const Shape& s, const QConv& conv, uint64_t seed) {
  CheckTypes<Nchw>(s, conv, seed);
  CheckTypes<Nhwc>(s, conv, seed + 4);
}

TEST_CASE("QConv: every kernel, stride, dilation, pad and group, both layouts", "[quant]") {
  uint64_t seed = 1;
  const std::vector<Shape> groupings = {
      {1, 4, 9, 11, 5, 1, 0, 0},   // one group
      {1, 6, 8, 7, 4, 2, 0, 0},    // two groups of 3 -> 2
      {1, 5, 9, 10, 5, 5, 0, 0},   // depthwise
      {1, 3, 8, 9, 6, 3, 0, 0},    // depthwise, multiplier 2
  };
  for (const Shape& base : groupings) {
    for (size_t k : {1, 3, 5}) {
      for (size_t st : {1, 2, 3}) {
        for (size_t dil : {1, 2}) {
          if ((k == 1 && dil == 2) || (k == 5 && st == 3)) continue;
          const size_t extent = dil * (k - 1) + 1;
          if (extent > base.h + 2) continue;
          Shape s = base;
          s.kh = s.kw = k;
          const size_t p = std::min<size_t>(extent - 1, 2);
          CheckBothLayouts(s, QConv{.strides = {st, st}, .dilations = {dil, dil}, .pads = {p, p / 2, p / 2, p}},
                           seed);
          seed += 8;
        }
      }
    }
  }
}

TEST_CASE("QConv: auto_pad, rectangles, odd and size-1 shapes, batches, wide channels", "[quant]") {
  uint64_t seed = 1000;
  for (AutoPad pad : {AutoPad::kSameUpper, AutoPad::kSameLower, AutoPad::kValid}) {
    for (size_t group : {1, 3, 6}) {
      CheckBothLayouts({2, 6, 7, 10, 6, group, 3, 2}, QConv{.strides = {2, 1}, .auto_pad = pad}, seed);
      seed += 8;
    }
  }
  // 1x1 planes and kernels, one channel, rows that cross the register tiles
  // and vector tails, channels across several vectors, a window of padding
  // only (its output is the bias requantized), and depths of K = 1100 (1x1)
  // and 2160 (3x3).
  for (const Shape& s : std::vector<Shape>{{1, 1, 1, 1, 1, 1, 1, 1},
                                           {1, 1100, 2, 3, 21, 1, 1, 1},
                                           {1, 240, 4, 5, 19, 1, 3, 3},
                                           {2, 3, 1, 1, 7, 1, 1, 1},
                                           {1, 1, 5, 6, 1, 1, 3, 3},
                                           {1, 7, 1, 37, 3, 1, 1, 3},
                                           {1, 19, 3, 131, 17, 1, 1, 1},
                                           {1, 33, 5, 21, 70, 1, 3, 3},
                                           {2, 70, 5, 6, 70, 70, 3, 3},
                                           {1, 37, 11, 6, 37, 37, 5, 5}}) {
    CheckBothLayouts(s, QConv{}, seed);
    CheckBothLayouts(s, QConv{.pads = {1, 1, 1, 1}}, seed + 8);
    seed += 16;
  }
  CheckBothLayouts({1, 2, 2, 2, 3, 1, 1, 1}, QConv{.strides = {2, 2}, .pads = {1, 1, 1, 1}}, seed);
}

TEST_CASE("QConv: NHWC depthwise rows run four outputs at a time between the borders", "[quant]") {
  // Rows with several blocks of four interior outputs and a remainder, a
  // channel count that ends in a partial vector, 3x3 and 5x5 at stride 1 and
  // 2, rows with and without vertical padding, a padded x.
  uint64_t seed = 1500;
  for (const Shape& s : std::vector<Shape>{{1, 40, 7, 19, 40, 40, 3, 3}, {1, 21, 8, 23, 21, 21, 5, 5}}) {
    for (size_t st : {1, 2}) {
      const size_t p = s.kw / 2;
      CheckTypes<Nhwc>(s, QConv{.strides = {st, st}, .pads = {p, p, p, p}}, seed, {0, 1, 2, 3});
      seed += 4;
    }
  }
}

TEST_CASE("QConv: a depthwise bias too large for float sums is added as an integer", "[quant]") {
  // 16 channels of ones, 3x3 weights of ones, m = 2^-24 exactly. Middle row,
  // inside: acc = 9, acc + bias = 41943043, which float rounds to 41943044:
  // 2.5000002 -> 3. Adding float(bias) (41943032) to 9 would round to
  // 41943040: 2.5 -> 2. Elsewhere acc is 6 or 4: 2.5 or below -> 2.
  const std::vector<uint8_t> x(3 * 8 * 16, 1);
  const std::vector<int8_t> w(16 * 9, 1);
  const std::vector<int32_t> bias(16, 41943034);
  ForEachTarget([&](int64_t) {  // depthwise: no QGemm tile, nothing VNNI changes
    const QConvWeights<Nhwc, int8_t> weights(TensorView<const int8_t, Strided<>>(w.data(), {16, 1, 3, 3}),
                                             std::vector<float>{0x1p-12f}, std::vector<int8_t>{0}, 16);
    std::vector<uint8_t> y(3 * 8 * 16, 0);
    QConv{.pads = {1, 1, 1, 1}, .group = 16, .bias = bias}(
        TensorView<const uint8_t, Nhwc>(x.data(), {1, 3, 8, 16}), 1.0f, uint8_t{0}, weights, 4096.0f, uint8_t{0},
        TensorView<uint8_t, Nhwc>(y.data(), {1, 3, 8, 16}));
    size_t failures = 0;
    for (size_t oh = 0; oh < 3; ++oh) {
      for (size_t ow = 0; ow < 8; ++ow) {
        const int want = oh == 1 && ow >= 1 && ow <= 6 ? 3 : 2;
        for (size_t c = 0; c < 16; ++c) {
          const int got = y[(oh * 8 + ow) * 16 + c];
          if (got != want && failures++ < 5) FAIL_CHECK("(" << oh << ", " << ow << ", " << c << ") " << got);
        }
      }
    }
    CHECK(failures == 0);
  });
}

TEST_CASE("QConv: padded pitches and sub-views", "[quant]") {
  uint64_t seed = 2000;
  for (const Shape& s : std::vector<Shape>{{2, 5, 9, 13, 7, 1, 3, 3},
                                           {1, 6, 10, 9, 6, 6, 3, 3},
                                           {1, 8, 6, 7, 12, 1, 1, 1},
                                           {1, 4, 11, 12, 8, 2, 3, 3}}) {
    for (size_t st : {1, 2}) {
      const QConv conv{.strides = {st, st}, .pads = {1, 1, 1, 1}};
      CheckTypes<Nchw>(s, conv, seed, {1, 2, 1, 3}, {0, 1, 2, 1});
      CheckTypes<Nhwc>(s, conv, seed + 4, {0, 0, 2, 5}, {0, 1, 0, 3});
      seed += 8;
    }
  }
  // A 1x1 convolution reads x in place: through a channel sub-view too.
  Rng rng(2100);
  TestTensor<uint8_t, Nhwc> big({1, 6, 7, 20});
  big.Fill([&](const Extents&) { return RandomQ<uint8_t>(rng); });
  TestTensor<int8_t, Strided<>> w({5, 8, 1, 1});
  w.Fill([&](const Extents&) { return RandomQ<int8_t>(rng); });
  const auto sub = big.ConstView().Channels(3, 8);
  ForEachTargetAndVnniVariant([&](int64_t) {
    const QConvWeights<Nhwc, int8_t> weights(w.ConstView(), std::vector<float>{1.0f},
                                             std::vector<int8_t>{-3});
    TestTensor<int32_t, Nhwc> y({1, 6, 7, 5});
    QConv{}(sub, uint8_t{130}, weights, y.View());
    size_t failures = 0;
    ForEachIndex(y.dims(), [&](const Extents& i) {
      int64_t sum = 0;
      for (size_t c = 0; c < 8; ++c) {
        sum += (int64_t{sub.at({0, i[1], i[2], c})} - 130) * (int64_t{w.at({i[3], c, 0, 0})} + 3);
      }
      if (y.at(i) != sum && failures++ < 5) FAIL_CHECK("output " << i << ": " << y.at(i) << " vs " << sum);
    });
    CHECK(failures == 0);
  });
}

TEST_CASE("QConv depthwise at the extremes: 255 x -255 over 256 taps, and 289 taps", "[quant]") {
  // (x - 0)(w - 255) = 255 x -255 at every tap: the sum -16646400 over a
  // 16x16 kernel is the largest a depthwise kernel sums in float lanes
  // (2^24 = 16777216); a 17x17 kernel runs as the implicit GEMM. Both
  // layouts, three channels (one of them with zero weights - 255 = 0).
  for (size_t k : {16, 17}) {
    const int64_t taps = static_cast<int64_t>(k * k);
    TestTensor<uint8_t, Strided<>> w({3, 1, k, k});
    w.Fill([](const Extents& i) { return uint8_t{i[0] == 1 ? uint8_t{255} : uint8_t{0}}; });
    const std::vector<uint8_t> zw = {255, 255, 0};
    const int64_t want[3] = {-255 * 255 * taps, 0, 0};
    const auto check = [&](auto layout) {
      using L = decltype(layout);
      TestTensor<uint8_t, L> x(InLayout<L>(1, 3, k, k));
      x.Fill([](const Extents&) { return uint8_t{255}; });
      ForEachTargetAndVnniVariant([&](int64_t) {
        const QConvWeights<L, uint8_t> weights(w.ConstView(), std::vector<float>{1.0f}, zw, 3);
        CHECK(weights.strategy() == (k == 16 ? ConvStrategy::kDepthwise : ConvStrategy::kGemm));
        TestTensor<int32_t, L> y(InLayout<L>(1, 3, 1, 1));
        QConv{.group = 3}(x.ConstView(), uint8_t{0}, weights, y.View());
        for (size_t c = 0; c < 3; ++c) CHECK(y.at(InLayout<L>(0, c, 0, 0)) == want[c]);
      });
    };
    check(Nchw{});
    check(Nhwc{});
  }
}

TEST_CASE("QConv with an executor gives the serial result", "[quant]") {
  Rng rng(3000);
  ThreadPool pool(3);
  detail::ScopedMinRangeNs split_small(1.0);
  for (size_t group : {1, 16}) {
    TestTensor<uint8_t, Nhwc> x({2, 13, 11, 16});
    x.Fill([&](const Extents&) { return RandomQ<uint8_t>(rng); });
    TestTensor<int8_t, Strided<>> w({16, 16 / group, 3, 3});
    w.Fill([&](const Extents&) { return RandomQ<int8_t>(rng); });
    const QConv conv{.pads = {1, 1, 1, 1}, .group = group, .relu = true};
    ForEachTargetAndVnniVariant([&](int64_t) {
      const QConvWeights<Nhwc, int8_t> weights(w.ConstView(), std::vector<float>{0.01f},
                                               std::vector<int8_t>{2}, group);
      TestTensor<uint8_t, Nhwc> serial({2, 13, 11, 16}), parallel({2, 13, 11, 16});
      conv(x.ConstView(), 0.05f, uint8_t{128}, weights, 0.5f, uint8_t{7}, serial.View());
      conv(x.ConstView(), 0.05f, uint8_t{128}, weights, 0.5f, uint8_t{7}, parallel.View(), pool);
      CHECK(serial.Snapshot() == parallel.Snapshot());
    });
  }
}

TEST_CASE("QConv errors name the problem and leave y untouched", "[quant]") {
  TestTensor<uint8_t, Nchw> x({1, 4, 5, 5});
  x.Fill([](const Extents&) { return uint8_t{3}; });
  TestTensor<uint8_t, Strided<>> w({6, 2, 3, 3});
  w.Fill([](const Extents&) { return uint8_t{1}; });
  const std::vector<float> one = {1.0f};
  const std::vector<uint8_t> none;
  const QConvWeights<Nchw, uint8_t> grouped(w.ConstView(), one, none, 2);
  TestTensor<int32_t, Nchw> y({1, 6, 3, 3});
  TestTensor<uint8_t, Nchw> q({1, 6, 3, 3});
  const auto y_before = y.Snapshot();
  const auto q_before = q.Snapshot();
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] { QConv{}(x.ConstView(), uint8_t{0}, grouped, y.View()); })
            .find("group 1 but the weights were prepared for 2") != std::string::npos);
  const QConv conv{.group = 2};
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] {
          conv(x.ConstView(), uint8_t{0}, grouped, TestTensor<int32_t, Nchw>({1, 6, 5, 5}).View());
        }).find("must be N 1, C 6, H 3, W 3") != std::string::npos);
  TestTensor<uint8_t, Nchw> x3({1, 3, 5, 5});
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] { conv(x3.ConstView(), uint8_t{0}, grouped, y.View()); })
            .find("x has 3 channels") != std::string::npos);
  const std::vector<int32_t> bias2 = {1, 2};
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] {
          QConv{.group = 2, .bias = bias2}(x.ConstView(), uint8_t{0}, grouped, y.View());
        }).find("2 biases for 6 output channels") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          QConv{.group = 2, .relu = true}(x.ConstView(), uint8_t{0}, grouped, y.View());
        }).find("relu applies to a requantized y") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          QConv{.kernel = {2, 2}, .group = 2}(x.ConstView(), uint8_t{0}, grouped, y.View());
        }).find("differs from the weights' 3 x 3") != std::string::npos);
  for (const float bad : {0.0f, -1.0f, std::numeric_limits<float>::infinity()}) {
    CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
            conv(x.ConstView(), bad, uint8_t{0}, grouped, 1.0f, uint8_t{0}, q.View());
          }).find("positive and finite") != std::string::npos);
  }
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] {
          QConvWeights<Nchw, uint8_t>(w.ConstView(), std::vector<float>{1, 2}, none, 2);
        }).find("2 scales for 6 output channels") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          QConvWeights<Nchw, uint8_t>(w.ConstView(), one, none, 4);
        }).find("groups 4 must be at least 1 and divide the 6") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kBadRank, [&] {
          QConvWeights<Nchw, uint8_t>(TensorView<const uint8_t, Strided<>>(w.ConstView().data(), {6, 18}),
                                      one, none);
        }).find("rank 2") != std::string::npos);
  // A depth that could overflow the sum cannot be requantized.
  TestTensor<uint8_t, Strided<>> deep({1, 3670, 3, 3});  // 33030 > 33025
  deep.Fill([](const Extents&) { return uint8_t{0}; });
  TestTensor<uint8_t, Nchw> wide({1, 3670, 3, 3});
  wide.Fill([](const Extents&) { return uint8_t{0}; });
  TestTensor<uint8_t, Nchw> one_q({1, 1, 1, 1});
  const auto one_q_before = one_q.Snapshot();
  const QConvWeights<Nchw, uint8_t> deep_w(deep.ConstView(), one, none);
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          QConv{}(wide.ConstView(), 1.0f, uint8_t{0}, deep_w, 1.0f, uint8_t{0}, one_q.View());
        }).find("can overflow") != std::string::npos);
  CHECK(one_q.Snapshot() == one_q_before);
  CHECK(y.Snapshot() == y_before);
  CHECK(q.Snapshot() == q_before);

  // Weights packed for one target's tile refuse another's.
  const auto targets = TargetsUnderTest();
  for (int64_t first : targets) {
    for (int64_t second : targets) {
      std::optional<QConvWeights<Nchw, uint8_t>> packed;
      QGemmTile first_tile;
      {
        ScopedTarget forced(first);
        packed.emplace(w.ConstView(), one, none, 2);
        first_tile = ActiveQGemmTile();
      }
      ScopedTarget forced(second);
      const QGemmTile tile = ActiveQGemmTile();
      if (tile.nr == first_tile.nr && tile.format == first_tile.format) continue;
      CHECK(ErrorOf(ErrorCode::kBadArgument, [&] { conv(x.ConstView(), uint8_t{0}, *packed, y.View()); })
                .find("prepare them again") != std::string::npos);
      CHECK(y.Snapshot() == y_before);
    }
  }
}

}  // namespace
}  // namespace tensorops::test
