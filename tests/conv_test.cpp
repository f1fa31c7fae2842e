// Conv against a double-precision reference written from ONNX's definition,
// on every target: kernels 1-5, strides 1-3, dilations 1-2, explicit pads and
// every auto_pad, groups 1, 2, 3 and depthwise (with and without a channel
// multiplier), both layouts, batch 2, odd sizes, 1x1 planes, padded pitches,
// float16/bfloat16 storage, epilogues (bias, residual, activation) and
// executors (bit-identical to serial), and the errors.
//
// Tolerance: each output is a float sum of K = Cg kH kW products (by FMAs,
// in blocks); its error is within (K + 2) float roundings of sum |w x|,
// plus the epilogue's additions (|bias| + |residual|) and the storage
// type's rounding of the result.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <hwy/aligned_allocator.h>
#include <tensorops/api.h>

#include "support/catch.h"
#include "support/expect_error.h"
#include "support/random.h"
#include "support/reference_convert.h"
#include "support/reference_window.h"
#include "support/targets.h"
#include "support/test_tensor.h"

namespace tensorops::test {
namespace {

struct Shape {
  size_t n, c, h, w, o, group, kh, kw;
};

std::string Describe(const Shape& s, const Conv& conv) {
  const char* pad_names[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
  return "N " + std::to_string(s.n) + " C " + std::to_string(s.c) + " H " + std::to_string(s.h) +
         " W " + std::to_string(s.w) + " O " + std::to_string(s.o) + " group " +
         std::to_string(s.group) + " kernel " + std::to_string(s.kh) + "x" + std::to_string(s.kw) +
         " strides " + std::to_string(conv.strides.h) + "," + std::to_string(conv.strides.w) +
         " dilations " + std::to_string(conv.dilations.h) + "," +
         std::to_string(conv.dilations.w) + " pads " + std::to_string(conv.pads.top) + "," +
         std::to_string(conv.pads.left) + "," + std::to_string(conv.pads.bottom) + "," +
         std::to_string(conv.pads.right) + " auto_pad " +
         pad_names[static_cast<int>(conv.auto_pad)];
}

// Which epilogue a check runs (each is its own kernel).
enum class Stages { kNone, kBias, kBiasRelu, kBiasResidualRelu };

template <class T>
constexpr double Step() {
  return std::is_same_v<T, hwy::float16_t> ? 0x1p-11 : std::is_same_v<T, hwy::bfloat16_t> ? 0x1p-8 : 0;
}

template <class T>
T Value(Rng& rng, bool mixed) {
  if (mixed) return MixedMagnitude<T>(rng);
  return RefConvert<T>(UniformFloat(rng, -2, 2));
}

// Runs Conv on random x (and W, bias, residual) of `shape` and compares with
// the reference on every target. Mixed magnitudes (1e-3 to 1e3) where the
// output type holds them; float16/bfloat16 outputs get values in [-2, 2].
template <Stages kStages, class TX, class TY, class L>
void Check(const Shape& s, const Conv& conv_in, const Extents& x_pad, const Extents& y_pad,
           uint64_t seed) {
  Conv conv = conv_in;
  conv.group = s.group;
  const RefAxis ah = RefResolve(s.h, s.kh, conv.strides.h, conv.dilations.h, conv.pads.top,
                                conv.pads.bottom, conv.auto_pad, false);
  const RefAxis aw = RefResolve(s.w, s.kw, conv.strides.w, conv.dilations.w, conv.pads.left,
                                conv.pads.right, conv.auto_pad, false);
  const size_t cg = s.c / s.group, og = s.o / s.group;
  const Dims x_dims = InLayout<L>(s.n, s.c, s.h, s.w);
  const Dims y_dims = InLayout<L>(s.n, s.o, ah.out, aw.out);
  INFO("Conv " << kElementName<TX> << " -> " << kElementName<TY>
               << (std::is_same_v<L, Nhwc> ? " NHWC " : " NCHW ") << Describe(s, conv) << " x pad "
               << x_pad << " y pad " << y_pad << " stages " << static_cast<int>(kStages)
               << " seed " << seed);
  const bool mixed = std::is_same_v<TY, float>;
  Rng rng(seed);
  TestTensor<TX, L> x(x_dims, x_pad);
  x.Fill([&](const Extents&) { return Value<TX>(rng, mixed); });
  TestTensor<float, Strided<>> w({s.o, cg, s.kh, s.kw}, {0, 1, 0, 1});
  w.Fill([&](const Extents&) { return Value<float>(rng, mixed); });
  std::vector<float> bias(s.o);
  for (float& b : bias) b = Value<float>(rng, mixed);
  TestTensor<float, L> residual(y_dims, {0, 1, 0, 2});
  residual.Fill([&](const Extents&) { return Value<float>(rng, mixed); });

  // x and W dense, (n, c, h, w) and (o, c, i, j): the sums below index plain
  // arrays (the test code runs at -O0 in some CI steps).
  std::vector<double> xd(s.n * s.c * s.h * s.w), wd(s.o * cg * s.kh * s.kw);
  ForEachIndex(x_dims, [&](const Extents& i) {
    xd[((i[L::kN] * s.c + i[L::kC]) * s.h + i[L::kH]) * s.w + i[L::kW]] = RefToFloat(x.at(i));
  });
  ForEachIndex(Dims{s.o, cg, s.kh, s.kw}, [&](const Extents& i) {
    wd[((i[0] * cg + i[1]) * s.kh + i[2]) * s.kw + i[3]] = w.at(i);
  });
  std::vector<double> want, tol;
  ForEachIndex(y_dims, [&](const Extents& out) {
    const size_t n = out[L::kN], o = out[L::kC], oh = out[L::kH], ow = out[L::kW];
    const size_t g = o / og;
    double sum = 0, abs_sum = 0;
    for (size_t c = 0; c < cg; ++c) {
      const double* xc = xd.data() + (n * s.c + g * cg + c) * s.h * s.w;
      const double* wc = wd.data() + (o * cg + c) * s.kh * s.kw;
      for (size_t i = 0; i < s.kh; ++i) {
        for (size_t j = 0; j < s.kw; ++j) {
          const int64_t ih = static_cast<int64_t>(oh * conv.strides.h + i * conv.dilations.h) -
                             static_cast<int64_t>(ah.pad_begin);
          const int64_t iw = static_cast<int64_t>(ow * conv.strides.w + j * conv.dilations.w) -
                             static_cast<int64_t>(aw.pad_begin);
          if (ih < 0 || iw < 0 || ih >= static_cast<int64_t>(s.h) || iw >= static_cast<int64_t>(s.w)) {
            continue;
          }
          const double term = wc[i * s.kw + j] * xc[ih * static_cast<int64_t>(s.w) + iw];
          sum += term;
          abs_sum += std::fabs(term);
        }
      }
    }
    double extra = 0;
    if (kStages != Stages::kNone) {
      sum += bias[o];
      extra += std::fabs(bias[o]);
    }
    if (kStages == Stages::kBiasRelu) sum = std::max(0.0, sum);
    if (kStages == Stages::kBiasResidualRelu) {
      const double r = residual.at(out);
      sum = std::max(0.0, sum + r);
      extra += std::fabs(r);
    }
    want.push_back(sum);
    tol.push_back(static_cast<double>(cg * s.kh * s.kw + 2) * 0x1p-23 * (abs_sum + extra) +
                  Step<TY>() * std::fabs(sum) + (std::is_same_v<TY, hwy::float16_t> ? 0x1p-24 : 0));
  });

  ForEachTarget([&](int64_t) {
    const ConvWeights<L> weights(w.ConstView(), s.group);
    const Size2 size = conv.OutputSize(weights, s.h, s.w);
    CHECK((size.h == ah.out && size.w == aw.out));
    TestTensor<TY, L> y(y_dims, y_pad);
    if constexpr (kStages == Stages::kNone) {
      conv(x.ConstView(), weights, y.View());
    } else if constexpr (kStages == Stages::kBias) {
      conv(x.ConstView(), weights, y.View(), Epilogue{Bias{bias}});
    } else if constexpr (kStages == Stages::kBiasRelu) {  // finished in the register tiles
      conv(x.ConstView(), weights, y.View(), Epilogue{Bias{bias}, Unary<UnaryKind::kRelu>{}});
    } else {
      // With the caller's scratch, stated by ScratchBytes.
      std::vector<std::byte> scratch(conv.ScratchBytes<TY>(weights, s.h, s.w));
      conv(x.ConstView(), weights, y.View(),
           Epilogue{Bias{bias}, Residual{residual.ConstView()}, Unary<UnaryKind::kRelu>{}},
           std::span<std::byte>(scratch));
    }
    CHECK(y.OnlyElementsWritten());
    size_t k = 0, failures = 0;
    ForEachIndex(y_dims, [&](const Extents& out) {
      const double got = RefToFloat(y.at(out));
      if (!(std::fabs(got - want[k]) <= tol[k]) && failures++ < 5) {
        FAIL_CHECK("output " << out << ": got " << got << ", want " << want[k] << " (tolerance "
                             << tol[k] << ")");
      }
      ++k;
    });
    CHECK(failures == 0);
  });
}

// NCHW with `seed`, NHWC with seed + 1 (NHWC only: the same NHWC data).
template <Stages kStages, class TX, class TY>
void CheckBothLayouts(const Shape& s, const Conv& conv, uint64_t seed, bool nhwc_only = false) {
  if (!nhwc_only) Check<kStages, TX, TY, Nchw>(s, conv, {}, {}, seed);
  Check<kStages, TX, TY, Nhwc>(s, conv, {}, {}, seed + 1);
}

// Every kernel size, stride and dilation with pads around the window's
// extent, for each grouping: 1 (the implicit GEMM), 2 and 3 groups,
// depthwise (direct kernels) and depthwise with a channel multiplier of 2.
TEST_CASE("Conv: every kernel, stride, dilation, pad and group, both layouts", "[conv]") {
  uint64_t seed = 1;
  const std::vector<Shape> groupings = {
      {1, 4, 9, 11, 5, 1, 0, 0},   // one group
      {1, 6, 8, 7, 4, 2, 0, 0},    // two groups of 3 -> 2
      {1, 6, 7, 9, 9, 3, 0, 0},    // three groups of 2 -> 3
      {1, 5, 9, 10, 5, 5, 0, 0},   // depthwise
      {1, 3, 8, 9, 6, 3, 0, 0},    // depthwise, multiplier 2
  };
  for (const Shape& base : groupings) {
    for (size_t k : {1, 2, 3, 5}) {
      for (size_t st : {1, 2, 3}) {
        for (size_t dil : {1, 2}) {
          if (k == 1 && dil == 2) continue;
          const size_t extent = dil * (k - 1) + 1;
          if (extent > base.h + 2) continue;
          Shape s = base;
          s.kh = s.kw = k;
          const size_t p = std::min<size_t>(extent - 1, 2);
          CheckBothLayouts<Stages::kNone, float, float>(
              s, Conv{.strides = {st, st}, .dilations = {dil, dil}, .pads = {p, p / 2, p / 2, p}},
              seed);
          seed += 2;
        }
      }
    }
  }
}

TEST_CASE("Conv: auto_pad, rectangles, odd and size-1 shapes, batches", "[conv]") {
  uint64_t seed = 1000;
  for (AutoPad pad : {AutoPad::kSameUpper, AutoPad::kSameLower, AutoPad::kValid}) {
    for (size_t group : {1, 4}) {
      CheckBothLayouts<Stages::kNone, float, float>({2, 4, 7, 10, 4, group, 3, 2},
                                                    Conv{.strides = {2, 1}, .auto_pad = pad}, seed);
      seed += 2;
    }
  }
  const Conv plain{};
  // 1x1 planes, one channel, a 1x1 kernel on 1x1 input, wide rows that
  // cross the GEMM's register tiles and vector tails, many channels.
  for (const Shape& s : std::vector<Shape>{{1, 1, 1, 1, 1, 1, 1, 1},
                                           {2, 3, 1, 1, 7, 1, 1, 1},
                                           {1, 1, 5, 6, 1, 1, 3, 3},
                                           {1, 7, 1, 37, 3, 1, 1, 3},
                                           {1, 19, 3, 131, 17, 1, 1, 1},
                                           {1, 33, 5, 21, 70, 1, 3, 3},
                                           {2, 130, 5, 6, 130, 130, 3, 3},
                                           {1, 37, 11, 6, 37, 37, 5, 5}}) {
    CheckBothLayouts<Stages::kNone, float, float>(s, plain, seed);
    CheckBothLayouts<Stages::kNone, float, float>(s, Conv{.pads = {1, 1, 1, 1}}, seed + 2);
    seed += 4;
  }
  // A window of padding only: the output is the epilogue of 0.
  CheckBothLayouts<Stages::kBias, float, float>({1, 2, 2, 2, 3, 1, 1, 1},
                                                Conv{.strides = {2, 2}, .pads = {1, 1, 1, 1}}, seed);
}

TEST_CASE("Conv: padded pitches and sub-views", "[conv]") {
  uint64_t seed = 2000;
  for (const Shape& s : std::vector<Shape>{{2, 5, 9, 13, 7, 1, 3, 3},
                                           {1, 6, 10, 9, 6, 6, 3, 3},
                                           {1, 8, 6, 7, 12, 1, 1, 1},
                                           {1, 4, 11, 12, 8, 2, 3, 3}}) {
    for (size_t st : {1, 2}) {
      const Conv conv{.strides = {st, st}, .pads = {1, 1, 1, 1}};
      Check<Stages::kNone, float, float, Nchw>(s, conv, {1, 2, 1, 3}, {0, 1, 2, 1}, seed++);
      Check<Stages::kNone, float, float, Nhwc>(s, conv, {1, 2, 1, 3}, {0, 1, 2, 1}, seed++);
      Check<Stages::kBiasResidualRelu, float, float, Nchw>(s, conv, {0, 0, 0, 5}, {0, 0, 1, 3}, seed++);
      Check<Stages::kBiasResidualRelu, float, float, Nhwc>(s, conv, {0, 0, 2, 0}, {0, 1, 0, 3}, seed++);
    }
  }
  // A 1x1 convolution reads x in place: through a channel sub-view too.
  Rng rng(2100);
  TestTensor<float, Nhwc> big({1, 6, 7, 20});
  big.Fill([&](const Extents&) { return MixedMagnitude<float>(rng); });
  TestTensor<float, Strided<>> w({5, 8, 1, 1});
  w.Fill([&](const Extents&) { return MixedMagnitude<float>(rng); });
  const auto sub = big.ConstView().Channels(3, 8);
  ForEachTarget([&](int64_t) {
    const ConvWeights<Nhwc> weights(w.ConstView());
    TestTensor<float, Nhwc> y({1, 6, 7, 5});
    Conv{}(sub, weights, y.View());
    size_t failures = 0;
    ForEachIndex(y.dims(), [&](const Extents& i) {
      double sum = 0, abs_sum = 0;
      for (size_t c = 0; c < 8; ++c) {
        const double t = static_cast<double>(w.at({i[3], c, 0, 0})) * sub.at({0, i[1], i[2], c});
        sum += t;
        abs_sum += std::fabs(t);
      }
      if (std::fabs(y.at(i) - sum) > 10 * 0x1p-23 * abs_sum && failures++ < 5) {
        FAIL_CHECK("output " << i << ": got " << y.at(i) << ", want " << sum);
      }
    });
    CHECK(failures == 0);
  });
}

// Each shape at strides 1 and 2 with `pads`: bias + residual + ReLU and
// bias + ReLU into float, bias into float16 from float16, bfloat16 x into
// float, both layouts (or NHWC only).
void CheckEpiloguesAndStorage(const std::vector<Shape>& shapes, Pads2 pads, uint64_t seed,
                              bool nhwc_only = false) {
  for (const Shape& s : shapes) {
    for (size_t st : {1, 2}) {
      const Conv conv{.strides = {st, st}, .pads = pads};
      CheckBothLayouts<Stages::kBiasResidualRelu, float, float>(s, conv, seed, nhwc_only);
      CheckBothLayouts<Stages::kBias, hwy::float16_t, hwy::float16_t>(s, conv, seed + 2, nhwc_only);
      CheckBothLayouts<Stages::kNone, hwy::bfloat16_t, float>(s, conv, seed + 4, nhwc_only);
      CheckBothLayouts<Stages::kBiasRelu, float, float>(s, conv, seed + 6, nhwc_only);
      seed += 8;
    }
  }
}

TEST_CASE("Conv: epilogues and float16/bfloat16 storage", "[conv]") {
  CheckEpiloguesAndStorage({{1, 5, 9, 13, 7, 1, 3, 3},
                            {2, 9, 6, 7, 9, 9, 3, 3},
                            {1, 8, 6, 19, 12, 1, 1, 1},
                            {1, 6, 7, 8, 4, 2, 2, 3}},
                           {1, 0, 1, 1}, 3000);
}

// A network's stem (three input channels): in NHWC the register tiles read
// each output's taps from a padded copy of its input rows (direct), in
// tiles of 8 outputs (6 on AVX2 and SSE4), the rest of a row as one more
// tile that overlaps the one before, or as half tiles, or one by one.
TEST_CASE("Conv: few input channels, direct stem-like rows", "[conv]") {
  CheckEpiloguesAndStorage({{1, 3, 9, 45, 32, 1, 3, 3}, {2, 3, 6, 38, 24, 1, 3, 3}}, {1, 1, 1, 1},
                           3300);
}

// Deep kernels (K = 360 and 576) in NHWC: a row wide enough for whole
// register tiles runs direct; a narrow one runs the implicit GEMM on
// patches, whatever the machine's L1.
TEST_CASE("Conv: deep kernels, direct rows and patch blocks", "[conv]") {
  CheckEpiloguesAndStorage({{1, 40, 5, 9, 50, 1, 3, 3}, {1, 64, 4, 5, 20, 1, 3, 3}}, {1, 1, 1, 1},
                           3400);
}

// NHWC rows that split evenly into tiles one row short of the micro-kernel's
// (7 and 14 outputs on 8-row targets, 5 and 10 on 6-row ones, 3 and 6 on
// armv7) run those; every direct tile skips the taps of its first and last
// outputs that lie in the padding (20 channels: a vector's worth or more on
// every target of up to 512 bits). Pads of 1 and 2, uneven ones, and rows of
// 7 where one 5x5 tile reaches both sides.
TEST_CASE("Conv: direct rows in short tiles, border taps skipped", "[conv]") {
  CheckEpiloguesAndStorage({{1, 20, 3, 7, 19, 1, 3, 3},
                            {1, 20, 2, 14, 9, 1, 3, 3},
                            {1, 20, 2, 10, 9, 1, 3, 3},
                            {1, 20, 3, 6, 9, 1, 3, 3},
                            {1, 20, 2, 3, 9, 1, 3, 3}},
                           {1, 1, 1, 1}, 3450, true);
  CheckEpiloguesAndStorage({{1, 20, 3, 7, 9, 1, 5, 5}, {1, 20, 3, 14, 9, 1, 5, 5}}, {2, 2, 2, 2},
                           3490, true);
  CheckEpiloguesAndStorage({{1, 20, 3, 7, 9, 1, 3, 3}, {1, 20, 2, 12, 9, 1, 3, 3}}, {1, 2, 0, 1},
                           3530, true);
}

// Depthwise 3x3 rows with outputs whose windows lie inside x: those run four
// at a time with the weights in registers, in stretches of about twice L1
// (1000 channels: four outputs a stretch, several stretches a row). The
// stretches are NHWC's (channels across lanes); NCHW's rows do not depend on
// the channel count, so the 1000 channels run in NHWC only.
TEST_CASE("Conv: depthwise 3x3 rows inside the input, many channels", "[conv]") {
  CheckEpiloguesAndStorage({{1, 40, 5, 23, 40, 40, 3, 3}}, {1, 1, 1, 1}, 3500);
  CheckEpiloguesAndStorage({{1, 1000, 4, 22, 1000, 1000, 3, 3}}, {1, 1, 1, 1}, 3512, true);
  // Small planes, mostly border: windows with one, two and three rows inside
  // x, and rows with fewer outputs inside than a group of four.
  CheckEpiloguesAndStorage({{1, 40, 1, 9, 40, 40, 3, 3},
                            {1, 40, 2, 6, 40, 40, 3, 3},
                            {2, 48, 7, 7, 48, 48, 3, 3},
                            {1, 33, 3, 2, 33, 33, 3, 3}},
                           {1, 1, 1, 1}, 3524);
  // Stride 2 on an image larger than half of L2 (2.2 MB) runs the per-pixel
  // loop instead of the stretches: the same sums.
  Check<Stages::kBiasResidualRelu, float, float, Nhwc>(
      {1, 40, 120, 115, 40, 40, 3, 3}, Conv{.strides = {2, 2}, .pads = {1, 1, 1, 1}}, {}, {}, 3580);
  // An activation computed in double lanes goes through a row of sums and
  // the epilogue's pass: the same bits as the unfused call and then Unary.
  Rng rng(3600);
  TestTensor<float, Nhwc> x({1, 5, 23, 40});
  x.Fill([&](const Extents&) { return MixedMagnitude<float>(rng); });
  TestTensor<float, Strided<>> w({40, 1, 3, 3});
  w.Fill([&](const Extents&) { return MixedMagnitude<float>(rng); });
  std::vector<float> bias(40);
  for (float& b : bias) b = MixedMagnitude<float>(rng);
  for (size_t st : {1, 2}) {
    const Conv conv{.strides = {st, st}, .pads = {1, 1, 1, 1}, .group = 40};
    ForEachTarget([&](int64_t) {
      const ConvWeights<Nhwc> weights(w.ConstView(), 40);
      const Size2 size = conv.OutputSize(weights, 5, 23);
      TestTensor<float, Nhwc> fused({1, size.h, size.w, 40}), apart({1, size.h, size.w, 40});
      conv(x.ConstView(), weights, fused.View(),
           Epilogue{Bias{bias}, Unary<UnaryKind::kGeluTanh>{}});
      conv(x.ConstView(), weights, apart.View(), Epilogue{Bias{bias}});
      Unary<UnaryKind::kGeluTanh>{}(apart.ConstView(), apart.View());
      size_t differ = 0;
      ForEachIndex(fused.dims(), [&](const Extents& i) {
        if (std::bit_cast<uint32_t>(fused.at(i)) != std::bit_cast<uint32_t>(apart.at(i)) &&
            differ++ < 5) {
          FAIL_CHECK("output " << i << ": fused " << fused.at(i) << ", apart " << apart.at(i));
        }
      });
      CHECK(differ == 0);
    });
  }
}

// Depthwise NHWC lays its vectors of channels out from where x sits
// relative to a cache line (x's loads start on a load's boundary where
// that saves split loads): x at every offset in the first line gives the
// bits x on a line gives, float and float16, stride 1 and 2.
template <class T>
void CheckDepthwiseAtEveryOffset(size_t channels, uint64_t seed) {
  const size_t h = 6, w = 9;
  const size_t count = h * w * channels;
  Rng rng(seed);
  std::vector<T> values(count);
  for (T& v : values) v = MixedMagnitude<T>(rng);
  TestTensor<float, Strided<>> weights_data({channels, 1, 3, 3});
  weights_data.Fill([&](const Extents&) { return MixedMagnitude<float>(rng); });
  std::vector<float> bias(channels);
  for (float& b : bias) b = MixedMagnitude<float>(rng);
  const auto storage = hwy::AllocateAligned<T>(count + 64 / sizeof(T));
  for (size_t st : {1, 2}) {
    const Conv conv{.strides = {st, st}, .pads = {1, 1, 1, 1}, .group = channels};
    ForEachTarget([&](int64_t) {
      const ConvWeights<Nhwc> weights(weights_data.ConstView(), channels);
      const Size2 size = conv.OutputSize(weights, h, w);
      const Dims y_dims{1, size.h, size.w, channels};
      TestTensor<float, Nhwc> on_line(y_dims);
      std::copy(values.begin(), values.end(), storage.get());
      conv(TensorView<const T, Nhwc>(storage.get(), {1, h, w, channels}), weights, on_line.View(),
           Epilogue{Bias{bias}, Unary<UnaryKind::kRelu>{}});
      for (size_t offset = 1; offset < 64 / sizeof(T); ++offset) {
        std::copy(values.begin(), values.end(), storage.get() + offset);
        TestTensor<float, Nhwc> y(y_dims);
        conv(TensorView<const T, Nhwc>(storage.get() + offset, {1, h, w, channels}), weights,
             y.View(), Epilogue{Bias{bias}, Unary<UnaryKind::kRelu>{}});
        size_t differ = 0;
        ForEachIndex(y_dims, [&](const Extents& i) {
          if (std::bit_cast<uint32_t>(y.at(i)) != std::bit_cast<uint32_t>(on_line.at(i)) &&
              differ++ < 5) {
            FAIL_CHECK("x " << offset * sizeof(T) << " bytes past a line, stride " << st
                            << ", channels " << channels << ", output " << i << ": "
                            << y.at(i) << ", on a line " << on_line.at(i));
          }
        });
        CHECK(differ == 0);
      }
    });
  }
}

TEST_CASE("Conv: depthwise NHWC gives the same bits wherever x sits", "[conv]") {
  CheckDepthwiseAtEveryOffset<float>(40, 3700);
  CheckDepthwiseAtEveryOffset<float>(67, 3710);
  CheckDepthwiseAtEveryOffset<hwy::float16_t>(72, 3720);
}

TEST_CASE("Conv on an executor writes the serial run's bytes", "[conv][parallel]") {
  Rng rng(4000);
  TestTensor<float, Nhwc> nhwc({2, 13, 11, 24});
  nhwc.Fill([&](const Extents&) { return MixedMagnitude<float>(rng); });
  TestTensor<float, Nchw> nchw({2, 24, 13, 11});
  nchw.Fill([&](const Extents&) { return MixedMagnitude<float>(rng); });
  TestTensor<float, Strided<>> dense_w({16, 24, 3, 3}), depth_w({24, 1, 3, 3});
  dense_w.Fill([&](const Extents&) { return MixedMagnitude<float>(rng); });
  depth_w.Fill([&](const Extents&) { return MixedMagnitude<float>(rng); });
  std::vector<float> bias(24);
  for (float& b : bias) b = MixedMagnitude<float>(rng);
  ForEachTarget([&](int64_t) {
    const detail::ScopedMinRangeNs tiny_ranges(0.0);
    ThreadPool pool(3);
    const Conv dense{.strides = {2, 1}, .pads = {1, 1, 1, 1}};
    const Conv depthwise{.pads = {1, 1, 1, 1}, .group = 24};
    {
      const ConvWeights<Nhwc> w(dense_w.ConstView());
      TestTensor<float, Nhwc> a({2, 7, 11, 16}), b({2, 7, 11, 16});
      dense(nhwc.ConstView(), w, a.View(), Epilogue{Bias{std::span(bias).first(16)}});
      dense(nhwc.ConstView(), w, b.View(), Epilogue{Bias{std::span(bias).first(16)}}, pool);
      CHECK(a.Snapshot() == b.Snapshot());
    }
    {
      const ConvWeights<Nchw> w(dense_w.ConstView());
      TestTensor<float, Nchw> a({2, 16, 7, 11}), b({2, 16, 7, 11});
      dense(nchw.ConstView(), w, a.View());
      dense(nchw.ConstView(), w, b.View(), pool);
      CHECK(a.Snapshot() == b.Snapshot());
    }
    {
      const ConvWeights<Nhwc> w(depth_w.ConstView(), 24);
      TestTensor<float, Nhwc> a({2, 13, 11, 24}), b({2, 13, 11, 24});
      depthwise(nhwc.ConstView(), w, a.View(), Epilogue{Bias{bias}});
      depthwise(nhwc.ConstView(), w, b.View(), Epilogue{Bias{bias}}, pool);
      CHECK(a.Snapshot() == b.Snapshot());
    }
    {
      const ConvWeights<Nchw> w(depth_w.ConstView(), 24);
      TestTensor<float, Nchw> a({2, 24, 13, 11}), b({2, 24, 13, 11});
      depthwise(nchw.ConstView(), w, a.View());
      depthwise(nchw.ConstView(), w, b.View(), pool);
      CHECK(a.Snapshot() == b.Snapshot());
    }
  });
}

TEST_CASE("Conv rejects bad arguments and writes nothing", "[conv]") {
  TestTensor<float, Nchw> x({1, 4, 6, 6}), y({1, 6, 6, 6}), small({1, 6, 5, 6});
  TestTensor<float, Strided<>> w({6, 2, 3, 3}), w3({6, 2, 3});
  const ConvWeights<Nchw> grouped(w.ConstView(), 2);
  const auto before = y.Snapshot();
  const Conv same{.pads = {1, 1, 1, 1}, .group = 2};
  CHECK(ErrorOf(ErrorCode::kBadRank, [&] { ConvWeights<Nchw>(w3.ConstView()); })
            .find("rank 3") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] { ConvWeights<Nchw>(w.ConstView(), 4); })
            .find("groups 4") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] { Conv{.pads = {1, 1, 1, 1}}(x.ConstView(), grouped, y.View()); })
            .find("prepared for 2 groups") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] { same(x.ConstView(), grouped, small.View()); })
            .find("y dims") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          Conv{.kernel = {2, 2}, .pads = {1, 1, 1, 1}, .group = 2}(x.ConstView(), grouped, y.View());
        }).find("differs from the weights' 3 x 3") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          Conv{.strides = {0, 1}, .group = 2}(x.ConstView(), grouped, y.View());
        }).find("at least 1") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          Conv{.pads = {1, 1, 1, 1}, .auto_pad = AutoPad::kValid, .group = 2}(x.ConstView(), grouped, y.View());
        }).find("auto_pad") != std::string::npos);
  TestTensor<float, Nchw> x5({1, 5, 6, 6});
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] { same(x5.ConstView(), grouped, y.View()); })
            .find("x has 5 channels") != std::string::npos);
  const std::vector<float> bias(5);
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] {
          same(x.ConstView(), grouped, y.View(), Epilogue{Bias{bias}});
        }).find("one value per output channel (6)") != std::string::npos);
  TestTensor<float, Nchw> r_small({1, 6, 6, 5});
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] {
          same(x.ConstView(), grouped, y.View(), Epilogue{Residual{r_small.ConstView()}});
        }).find("the residual is N 1, C 6, H 6, W 5") != std::string::npos);
  TestTensor<float, Strided<>> m({36, 6});
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          same(x.ConstView(), grouped, y.View(),
               Epilogue{Residual{MatrixView<const float>(m.View().data(), {36, 6})}});
        }).find("the residual is a matrix") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kAliasing, [&] {
          same(x.ConstView(), grouped, y.View(), Epilogue{Residual{y.ConstView()}});
        }).find("overlaps y") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kAliasing, [&] {
          same(TensorView<const float, Nchw>(y.View().data(), {1, 4, 6, 6}), grouped, y.View());
        }).find("overlap") != std::string::npos);
  std::vector<std::byte> tiny(16);
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          same(x.ConstView(), grouped, y.View(), Epilogue{}, std::span<std::byte>(tiny));
        }).find("Conv::ScratchBytes") != std::string::npos);
  CHECK(y.Snapshot() == before);
  // Gemm rejects Conv's image residual.
  TestTensor<float, Strided<>> a({2, 2}), c({2, 2});
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          Gemm{}(MatrixView<const float>(a.View().data(), {2, 2}),
                 MatrixView<const float>(a.View().data(), {2, 2}),
                 MatrixView<float>(c.View().data(), {2, 2}), Epilogue{Residual{y.ConstView()}});
        }).find("Conv's form") != std::string::npos);
}

}  // namespace
}  // namespace tensorops::test
