// MaxPool, AveragePool and the global pools against a reference written
// from ONNX's definitions, on every target: kernels 1-5 with strides 1-3,
// dilations 1-2, explicit pads, every auto_pad, ceil_mode and
// count_include_pad, both layouts, odd sizes, size-1 planes, padded pitches
// and sub-views, float16 / bfloat16 storage and uint8 / int8 maxima.
//
// Tolerances: a maximum is exact (compared bit for bit, NaN as NaN). A mean
// is a float sum of `taps` values times 1/divisor: within (taps + 2) float
// roundings of mean(|x|) of the exact mean (pool.h), plus the storage
// type's rounding of the result.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

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

struct Window {
  Size2 kernel, strides, dilations;
  Pads2 pads;
  AutoPad auto_pad = AutoPad::kNotSet;
  bool ceil_mode = false;
  bool count_include_pad = false;
};

std::string Describe(const Window& w) {
  const char* pad_names[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
  return "kernel " + std::to_string(w.kernel.h) + "x" + std::to_string(w.kernel.w) + " strides " +
         std::to_string(w.strides.h) + "," + std::to_string(w.strides.w) + " dilations " +
         std::to_string(w.dilations.h) + "," + std::to_string(w.dilations.w) + " pads " +
         std::to_string(w.pads.top) + "," + std::to_string(w.pads.left) + "," +
         std::to_string(w.pads.bottom) + "," + std::to_string(w.pads.right) + " auto_pad " +
         pad_names[static_cast<int>(w.auto_pad)] + (w.ceil_mode ? " ceil" : "") +
         (w.count_include_pad ? " count_include_pad" : "");
}

enum class Data { kUniform, kMixed, kNaNs };

template <class T>
T DataValue(Rng& rng, Data data) {
  if constexpr (std::is_integral_v<T>) {
    return RandomValue<T>(rng);
  } else {
    switch (data) {
      case Data::kUniform: return RefConvert<T>(UniformFloat(rng, -4, 4));
      case Data::kMixed: return MixedMagnitude<T>(rng);
      case Data::kNaNs: {
        const uint64_t kind = rng() % 16;
        if (kind == 0) return RefConvert<T>(std::numeric_limits<float>::quiet_NaN());
        if (kind == 1) return RefConvert<T>(-std::numeric_limits<float>::infinity());
        if (kind == 2) return RefConvert<T>(std::numeric_limits<float>::infinity());
        return MixedMagnitude<T>(rng);
      }
    }
    return T{};
  }
}

// Runs op (kMax or kAverage) on src of `dims` (layout L's order) and
// compares with the reference on every target.
template <PoolKind kKind, class T, class L>
void Check(const Window& w, const Dims& dims, const Extents& pad, uint64_t seed,
           Data data = Data::kMixed) {
  const size_t n_dim = dims[L::kN], c_dim = dims[L::kC], h_in = dims[L::kH], w_in = dims[L::kW];
  const RefAxis ah = RefResolve(h_in, w.kernel.h, w.strides.h, w.dilations.h, w.pads.top,
                                w.pads.bottom, w.auto_pad, w.ceil_mode);
  const RefAxis aw = RefResolve(w_in, w.kernel.w, w.strides.w, w.dilations.w, w.pads.left,
                                w.pads.right, w.auto_pad, w.ceil_mode);
  const Dims out_dims = InLayout<L>(n_dim, c_dim, ah.out, aw.out);
  INFO((kKind == PoolKind::kMax ? "MaxPool " : "AveragePool ")
       << kElementName<T> << (std::is_same_v<L, Nhwc> ? " NHWC " : " NCHW ") << dims << " pad "
       << pad << " -> " << out_dims << ", " << Describe(w) << ", seed " << seed);
  Rng rng(seed);
  TestTensor<T, L> src(dims, pad);
  src.Fill([&](const Extents&) { return DataValue<T>(rng, data); });

  const auto run = [&](TestTensor<T, L>& dst) {
    if constexpr (kKind == PoolKind::kMax) {
      const MaxPool op{w.kernel, w.strides, w.dilations, w.pads, w.auto_pad, w.ceil_mode};
      const Size2 size = op.OutputSize(h_in, w_in);
      CHECK((size.h == ah.out && size.w == aw.out));
      op(src.ConstView(), dst.View());
    } else {
      const AveragePool op{w.kernel,   w.strides,   w.dilations,
                           w.pads,     w.auto_pad,  w.ceil_mode, w.count_include_pad};
      const Size2 size = op.OutputSize(h_in, w_in);
      CHECK((size.h == ah.out && size.w == aw.out));
      op(src.ConstView(), dst.View());
    }
  };

  // The reference, once.
  std::vector<double> want;
  std::vector<double> scale;  // mean(|x|) of the window, for the tolerance
  std::vector<size_t> taps;
  ForEachIndex(out_dims, [&](const Extents& o) {
    double best = -std::numeric_limits<double>::infinity(), sum = 0, abs_sum = 0;
    bool nan = false;
    size_t inside = 0, in_padded = 0;
    for (size_t i = 0; i < w.kernel.h; ++i) {
      for (size_t j = 0; j < w.kernel.w; ++j) {
        const int64_t y = static_cast<int64_t>(o[L::kH] * w.strides.h + i * w.dilations.h) -
                          static_cast<int64_t>(ah.pad_begin);
        const int64_t x = static_cast<int64_t>(o[L::kW] * w.strides.w + j * w.dilations.w) -
                          static_cast<int64_t>(aw.pad_begin);
        if (y >= -static_cast<int64_t>(ah.pad_begin) &&
            y < static_cast<int64_t>(h_in + ah.pad_end) &&
            x >= -static_cast<int64_t>(aw.pad_begin) && x < static_cast<int64_t>(w_in + aw.pad_end)) {
          ++in_padded;
        }
        if (y < 0 || x < 0 || y >= static_cast<int64_t>(h_in) || x >= static_cast<int64_t>(w_in)) continue;
        ++inside;
        const double v = RefToFloat(src.at(InLayout<L>(o[L::kN], o[L::kC], static_cast<size_t>(y),
                                                     static_cast<size_t>(x))));
        nan |= std::isnan(v);
        best = std::max(best, v);
        sum += v;
        abs_sum += std::fabs(v);
      }
    }
    REQUIRE(inside > 0);
    const size_t divisor = w.count_include_pad ? in_padded : inside;
    want.push_back(kKind == PoolKind::kMax ? (nan ? std::nan("") : best) : sum / static_cast<double>(divisor));
    scale.push_back(abs_sum / static_cast<double>(divisor));
    taps.push_back(inside);
  });

  const double step = std::is_same_v<T, hwy::float16_t>    ? 0x1p-11
                      : std::is_same_v<T, hwy::bfloat16_t> ? 0x1p-8
                                                           : 0;
  const double step_abs = std::is_same_v<T, hwy::float16_t> ? 0x1p-25 : 0;
  ForEachTarget([&](int64_t) {
    TestTensor<T, L> dst(out_dims, pad);
    run(dst);
    CHECK(dst.OnlyElementsWritten());
    size_t k = 0, failures = 0;
    ForEachIndex(out_dims, [&](const Extents& o) {
      const double got = RefToFloat(dst.at(o));
      const double expected = want[k];
      bool ok;
      if (kKind == PoolKind::kMax) {
        ok = std::isnan(expected) ? std::isnan(got) : got == expected;
      } else {
        const double tol = static_cast<double>(taps[k] + 2) * 0x1p-24 * scale[k] +
                           step * std::fabs(expected) + step_abs;
        ok = std::fabs(got - expected) <= tol;
      }
      if (!ok && failures++ < 5) FAIL_CHECK("output " << o << ": got " << got << ", want " << expected);
      ++k;
    });
    CHECK(failures == 0);
  });
}

// The window grid both pools run through, on one NCHW and one NHWC shape.
std::vector<Window> WindowGrid() {
  std::vector<Window> grid;
  for (size_t k : {1, 2, 3, 5}) {
    for (size_t s : {1, 2, 3}) {
      for (size_t dil : {1, 2}) {
        if (k == 1 && dil == 2) continue;
        const size_t extent = dil * (k - 1) + 1;
        const size_t p = std::min<size_t>(extent - 1, 2);
        grid.push_back({{k, k}, {s, s}, {dil, dil}, {}, AutoPad::kNotSet, false, false});
        grid.push_back({{k, k}, {s, s}, {dil, dil}, {p, p, p, p}, AutoPad::kNotSet, true, false});
        grid.push_back({{k, k}, {s, s}, {dil, dil}, {p, 0, 0, p}, AutoPad::kNotSet, false, true});
        grid.push_back({{k, k}, {s, s}, {dil, dil}, {}, AutoPad::kSameUpper, false, true});
        grid.push_back({{k, k}, {s, s}, {dil, dil}, {}, AutoPad::kSameLower, false, false});
      }
    }
  }
  // Rectangles, unequal strides and pads, VALID with ceil_mode.
  grid.push_back({{3, 2}, {2, 1}, {1, 2}, {1, 0, 2, 1}, AutoPad::kNotSet, true, true});
  grid.push_back({{1, 4}, {1, 3}, {1, 1}, {0, 3, 0, 1}, AutoPad::kNotSet, false, false});
  grid.push_back({{2, 3}, {3, 2}, {2, 1}, {}, AutoPad::kValid, true, false});
  grid.push_back({{4, 4}, {4, 4}, {1, 1}, {}, AutoPad::kSameUpper, false, true});
  return grid;
}

TEST_CASE("MaxPool: every kernel, stride, dilation, pad mode and layout", "[pool]") {
  uint64_t seed = 1;
  for (const Window& w : WindowGrid()) {
    Check<PoolKind::kMax, float, Nchw>(w, {1, 3, 11, 37}, {}, seed++);
    Check<PoolKind::kMax, float, Nhwc>(w, {1, 10, 9, 19}, {}, seed++);
  }
}

TEST_CASE("AveragePool: every kernel, stride, dilation, pad mode and layout", "[pool]") {
  uint64_t seed = 1000;
  for (const Window& w : WindowGrid()) {
    Check<PoolKind::kAverage, float, Nchw>(w, {1, 2, 10, 41}, {}, seed++);
    Check<PoolKind::kAverage, float, Nhwc>(w, {1, 9, 12, 21}, {}, seed++);
  }
}

TEST_CASE("Pooling: odd shapes, size-1 planes, batches, padded pitches", "[pool]") {
  uint64_t seed = 2000;
  const Window k3s2{{3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, AutoPad::kNotSet, false, false};
  const Window k2s1{{2, 2}, {1, 1}, {1, 1}, {}, AutoPad::kSameUpper, false, true};
  const Window k1{{1, 1}, {1, 1}, {1, 1}, {}, AutoPad::kNotSet, false, false};
  for (const Window& w : {k3s2, k2s1, k1}) {
    // NCHW: long rows (several vectors and a tail), a 1x1 plane, one column.
    Check<PoolKind::kMax, float, Nchw>(w, {2, 3, 7, 131}, {0, 1, 2, 5}, seed++);
    Check<PoolKind::kAverage, float, Nchw>(w, {2, 3, 7, 131}, {0, 1, 2, 5}, seed++);
    Check<PoolKind::kMax, float, Nchw>(w, {1, 1, 1, 1}, {}, seed++);
    Check<PoolKind::kAverage, float, Nchw>(w, {3, 2, 9, 1}, {1, 0, 0, 2}, seed++);
    // NHWC: channels of 1, of a tail only, and of several groups of four
    // vectors plus a tail.
    Check<PoolKind::kMax, float, Nhwc>(w, {2, 5, 6, 1}, {}, seed++);
    Check<PoolKind::kAverage, float, Nhwc>(w, {1, 4, 5, 3}, {0, 1, 1, 2}, seed++);
    Check<PoolKind::kMax, float, Nhwc>(w, {1, 5, 4, 133}, {0, 0, 1, 3}, seed++);
    Check<PoolKind::kAverage, float, Nhwc>(w, {2, 3, 3, 70}, {}, seed++);
  }
}

// NCHW rows run through a buffer of 4096 cells: rows wider than it run in
// chunks of outputs, planes taller than a block of slots in several blocks,
// and windows wider than half of it one output at a time.
TEST_CASE("Pooling NCHW: rows in chunks, planes in blocks, windows too wide to buffer", "[pool]") {
  uint64_t seed = 2500;
  const Window k3s1{{3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, AutoPad::kNotSet, false, false};
  const Window k3s2{{3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, AutoPad::kNotSet, true, true};
  for (const Window& w : {k3s1, k3s2}) {
    Check<PoolKind::kMax, float, Nchw>(w, {1, 2, 3, 9000}, {0, 0, 0, 3}, seed++);
    Check<PoolKind::kAverage, float, Nchw>(w, {1, 2, 3, 9000}, {}, seed++);
    Check<PoolKind::kMax, float, Nchw>(w, {1, 2, 150, 5}, {}, seed++);
    Check<PoolKind::kAverage, float, Nchw>(w, {1, 2, 150, 5}, {0, 0, 1, 1}, seed++);
  }
  const Window wide{{2, 3}, {1, 1}, {1, 1100}, {1, 1000, 0, 1000}, AutoPad::kNotSet, false, false};
  Check<PoolKind::kMax, float, Nchw>(wide, {1, 2, 3, 2300}, {}, seed++);
  Check<PoolKind::kAverage, float, Nchw>(wide, {1, 2, 3, 2300}, {}, seed++);
}

TEST_CASE("Pooling: float16 and bfloat16 storage, uint8 and int8 maxima", "[pool]") {
  uint64_t seed = 3000;
  const Window k3s2{{3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, AutoPad::kNotSet, true, false};
  const Window k2s1{{2, 3}, {1, 1}, {2, 1}, {}, AutoPad::kSameLower, false, true};
  for (const Window& w : {k3s2, k2s1}) {
    Check<PoolKind::kMax, hwy::float16_t, Nchw>(w, {1, 3, 9, 45}, {0, 0, 1, 2}, seed++);
    Check<PoolKind::kMax, hwy::bfloat16_t, Nhwc>(w, {1, 7, 6, 35}, {}, seed++);
    Check<PoolKind::kAverage, hwy::float16_t, Nhwc>(w, {1, 7, 6, 35}, {0, 1, 0, 1}, seed++);
    Check<PoolKind::kAverage, hwy::bfloat16_t, Nchw>(w, {2, 2, 9, 45}, {}, seed++);
    Check<PoolKind::kMax, uint8_t, Nchw>(w, {1, 3, 9, 70}, {0, 0, 1, 5}, seed++);
    Check<PoolKind::kMax, uint8_t, Nhwc>(w, {1, 5, 7, 67}, {}, seed++);
    Check<PoolKind::kMax, int8_t, Nchw>(w, {2, 2, 8, 47}, {}, seed++);
    Check<PoolKind::kMax, int8_t, Nhwc>(w, {1, 6, 6, 300}, {0, 0, 0, 3}, seed++);
  }
}

TEST_CASE("MaxPool: a NaN in a window gives NaN, -Inf and Inf are values", "[pool]") {
  uint64_t seed = 4000;
  const Window k3s1{{3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, AutoPad::kNotSet, false, false};
  const Window k2s2{{2, 2}, {2, 2}, {1, 1}, {}, AutoPad::kNotSet, false, false};
  for (const Window& w : {k3s1, k2s2}) {
    Check<PoolKind::kMax, float, Nchw>(w, {1, 3, 12, 67}, {}, seed++, Data::kNaNs);
    Check<PoolKind::kMax, float, Nhwc>(w, {1, 6, 7, 75}, {}, seed++, Data::kNaNs);
    Check<PoolKind::kMax, hwy::float16_t, Nhwc>(w, {1, 6, 7, 19}, {}, seed++, Data::kNaNs);
  }
  // Global: one NaN anywhere in a plane.
  const Window whole{{9, 23}, {1, 1}, {1, 1}, {}, AutoPad::kNotSet, false, false};
  Check<PoolKind::kMax, float, Nchw>(whole, {2, 5, 9, 23}, {}, seed++, Data::kNaNs);
}

// A whole-plane window in NCHW is a plane reduction: the global pools, and
// a kernel equal to the plane (dense and padded rows).
template <class T, class L>
void CheckGlobal(const Dims& dims, const Extents& pad, uint64_t seed, Data data = Data::kMixed,
                 const Extents& out_pad = {}) {
  const size_t h = dims[L::kH], w = dims[L::kW];
  INFO("global pools " << kElementName<T> << (std::is_same_v<L, Nhwc> ? " NHWC " : " NCHW ")
                       << dims << " pad " << pad << " output pad " << out_pad);
  Rng rng(seed);
  TestTensor<T, L> src(dims, pad);
  src.Fill([&](const Extents&) { return DataValue<T>(rng, data); });
  const Dims out_dims = InLayout<L>(dims[L::kN], dims[L::kC], 1, 1);
  ForEachTarget([&](int64_t) {
    TestTensor<T, L> max_out(out_dims, out_pad), mean_out(out_dims, out_pad), max_window(out_dims);
    GlobalMaxPool{}(src.ConstView(), max_out.View());
    GlobalAveragePool{}(src.ConstView(), mean_out.View());
    MaxPool{.kernel = {h, w}}(src.ConstView(), max_window.View());
    ForEachIndex(out_dims, [&](const Extents& o) {
      double best = -std::numeric_limits<double>::infinity(), sum = 0, abs_sum = 0;
      bool nan = false;
      for (size_t y = 0; y < h; ++y) {
        for (size_t x = 0; x < w; ++x) {
          const double v = RefToFloat(src.at(InLayout<L>(o[L::kN], o[L::kC], y, x)));
          nan |= std::isnan(v);
          best = std::max(best, v);
          sum += v;
          abs_sum += std::fabs(v);
        }
      }
      const double n = static_cast<double>(h * w);
      const double got_max = RefToFloat(max_out.at(o));
      if (nan) {
        CHECK(std::isnan(got_max));
      } else {
        CHECK(got_max == best);
      }
      const double got_window = RefToFloat(max_window.at(o));
      CHECK((got_window == got_max || (std::isnan(got_window) && std::isnan(got_max))));
      const double mean = RefToFloat(mean_out.at(o));
      if (!std::isfinite(sum)) {  // NaN, or Inf and -Inf: NaN; one sign of Inf: that Inf
        CHECK((std::isnan(sum) ? std::isnan(mean) : mean == sum));
        return;
      }
      const double step = std::is_same_v<T, float> ? 0 : std::is_same_v<T, hwy::float16_t> ? 0x1p-11 : 0x1p-8;
      const double tol = (n + 2) * 0x1p-24 * abs_sum / n + step * std::fabs(sum / n) +
                         (std::is_same_v<T, hwy::float16_t> ? 0x1p-25 : 0);
      CHECK(std::fabs(mean - sum / n) <= tol);
    });
  });
}

TEST_CASE("GlobalMaxPool and GlobalAveragePool", "[pool]") {
  uint64_t seed = 5000;
  CheckGlobal<float, Nchw>({2, 5, 7, 7}, {}, seed++);
  CheckGlobal<float, Nchw>({1, 3, 13, 29}, {0, 0, 1, 3}, seed++);
  CheckGlobal<float, Nchw>({1, 4, 1, 1}, {}, seed++);
  CheckGlobal<float, Nchw>({1, 2, 56, 56}, {}, seed++);
  CheckGlobal<float, Nhwc>({2, 7, 7, 37}, {}, seed++);
  CheckGlobal<float, Nhwc>({1, 3, 5, 131}, {0, 1, 0, 3}, seed++);
  CheckGlobal<float, Nhwc>({1, 1, 1, 5}, {}, seed++);
  CheckGlobal<hwy::float16_t, Nchw>({1, 3, 9, 11}, {}, seed++);
  CheckGlobal<hwy::bfloat16_t, Nhwc>({1, 4, 3, 40}, {}, seed++);
  CheckGlobal<float, Nchw>({1, 2, 5, 17}, {}, seed++, Data::kNaNs);
  CheckGlobal<float, Nhwc>({1, 5, 3, 17}, {}, seed++, Data::kNaNs);
  // NCHW reduces a vector's worth of planes at a time: whole and partial
  // groups, planes of fewer elements than a vector, rows with padding,
  // outputs apart, and NaN and infinities in some planes of a group.
  CheckGlobal<float, Nchw>({2, 37, 7, 7}, {}, seed++);
  CheckGlobal<float, Nchw>({1, 70, 1, 3}, {}, seed++, Data::kNaNs);
  CheckGlobal<float, Nchw>({1, 33, 2, 2}, {}, seed++, Data::kNaNs, {0, 0, 0, 2});
  CheckGlobal<hwy::float16_t, Nchw>({1, 19, 3, 5}, {0, 0, 1, 2}, seed++);
  CheckGlobal<hwy::bfloat16_t, Nchw>({1, 40, 7, 7}, {}, seed++, Data::kMixed, {0, 1, 0, 0});
  // Dense planes of one to seven whole vectors (unrolled), with and without
  // a last, overlapping one.
  CheckGlobal<float, Nchw>({1, 21, 6, 8}, {}, seed++);
  CheckGlobal<float, Nchw>({1, 18, 4, 15}, {}, seed++);
  CheckGlobal<float, Nchw>({2, 20, 1, 17}, {}, seed++, Data::kNaNs);
  CheckGlobal<float, Nchw>({1, 35, 5, 9}, {}, seed++, Data::kNaNs);
  const Window whole{{7, 7}, {1, 1}, {1, 1}, {}, AutoPad::kNotSet, false, false};
  Check<PoolKind::kMax, uint8_t, Nchw>(whole, {1, 37, 7, 7}, {}, seed++);
  Check<PoolKind::kMax, int8_t, Nchw>(whole, {2, 21, 7, 7}, {0, 0, 0, 3}, seed++);
}

TEST_CASE("Pooling on sub-views: a channel range and a batch of a larger tensor", "[pool]") {
  TestTensor<float, Nchw> whole({3, 8, 9, 20});
  Rng rng(6000);
  whole.Fill([&](const Extents&) { return MixedMagnitude<float>(rng); });
  const auto part = whole.ConstView().Slice(1, 2, 5);  // channels [2, 7)
  ForEachTarget([&](int64_t) {
    TestTensor<float, Nchw> dense_in({3, 5, 9, 20}), dense_out({3, 5, 5, 10}), out({3, 5, 5, 10});
    ForEachIndex(dense_in.dims(), [&](const Extents& i) { dense_in.at(i) = part.at(i); });
    const MaxPool pool{.kernel = {3, 3}, .strides = {2, 2}, .pads = {1, 1, 1, 1}};
    pool(part, out.View());
    pool(dense_in.ConstView(), dense_out.View());
    CHECK(out.Snapshot() == dense_out.Snapshot());
  });
}

TEST_CASE("Pooling rejects bad windows and shapes and writes nothing", "[pool][errors]") {
  TestTensor<float, Nchw> src({1, 2, 6, 6});
  src.Fill([](const Extents& i) { return static_cast<float>(i[2] * 6 + i[3]); });
  TestTensor<float, Nchw> dst({1, 2, 3, 3});
  const auto before = dst.Snapshot();
  const auto expect = [&](ErrorCode code, const auto& call, const char* words) {
    const std::string message = ErrorOf(code, call);
    INFO(message);
    CHECK(message.find(words) != std::string::npos);
    CHECK(dst.Snapshot() == before);
  };
  expect(ErrorCode::kBadArgument, [&] { MaxPool{}(src.ConstView(), dst.View()); },
         "must be set (ONNX kernel_shape)");
  expect(ErrorCode::kBadArgument,
         [&] { MaxPool{.kernel = {2, 2}, .strides = {0, 2}}(src.ConstView(), dst.View()); },
         "must all be at least 1");
  expect(ErrorCode::kBadArgument,
         [&] {
           AveragePool{.kernel = {2, 2}, .pads = {1, 0, 0, 0}, .auto_pad = AutoPad::kSameUpper}(
               src.ConstView(), dst.View());
         },
         "cannot be combined with auto_pad");
  expect(ErrorCode::kBadArgument,
         [&] {
           MaxPool{.kernel = {2, 2}, .strides = {2, 2}, .auto_pad = AutoPad::kSameLower,
                   .ceil_mode = true}(src.ConstView(), dst.View());
         },
         "ceil_mode does not apply");
  expect(ErrorCode::kBadArgument,
         [&] { MaxPool{.kernel = {7, 2}}(src.ConstView(), dst.View()); }, "exceeds the padded input");
  expect(ErrorCode::kBadArgument,
         [&] {
           MaxPool{.kernel = {2, 2}, .strides = {3, 3}, .pads = {2, 2, 2, 2}}(src.ConstView(),
                                                                            dst.View());
         },
         "covers only padding");
  expect(ErrorCode::kShapeMismatch,
         [&] { MaxPool{.kernel = {2, 2}}(src.ConstView(), dst.View()); }, "must be N 1, C 2, H 5, W 5");
  expect(ErrorCode::kShapeMismatch, [&] { GlobalAveragePool{}(src.ConstView(), dst.View()); },
         "H 1, W 1");
  expect(ErrorCode::kBadArgument,
         [&] { MaxPool{.kernel = {size_t{1} << 30, 2}}(src.ConstView(), dst.View()); },
         "exceed the supported range");
  // In place: the window would read outputs.
  TestTensor<float, Nchw> same({1, 2, 6, 6});
  const auto same_before = same.Snapshot();
  CHECK(ErrorOf(ErrorCode::kAliasing, [&] {
          MaxPool{.kernel = {1, 1}}(same.ConstView(), same.View());
        }).find("overlap") != std::string::npos);
  CHECK(same.Snapshot() == same_before);
  TestTensor<float, Nchw> empty_plane({1, 2, 0, 4}), one({1, 2, 1, 1});
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] {
          GlobalMaxPool{}(empty_plane.ConstView(), one.View());
        }).find("empty plane") != std::string::npos);
}

TEST_CASE("Pooling on an executor writes the serial run's bytes", "[pool][parallel]") {
  Rng rng(7000);
  TestTensor<float, Nhwc> nhwc({1, 17, 15, 37});
  nhwc.Fill([&](const Extents&) { return MixedMagnitude<float>(rng); });
  TestTensor<hwy::float16_t, Nchw> nchw({2, 9, 13, 29}, {0, 0, 1, 3});
  nchw.Fill([&](const Extents&) { return MixedMagnitude<hwy::float16_t>(rng); });
  TestTensor<float, Nchw> planes({1, 37, 7, 7});
  planes.Fill([&](const Extents&) { return MixedMagnitude<float>(rng); });
  ForEachTarget([&](int64_t) {
    const detail::ScopedMinRangeNs tiny_ranges(0.0);
    ThreadPool pool(3);
    const MaxPool max{.kernel = {3, 3}, .strides = {2, 2}, .pads = {1, 1, 1, 1}};
    const AveragePool mean{.kernel = {3, 2}, .auto_pad = AutoPad::kSameUpper};
    TestTensor<float, Nhwc> a({1, 9, 8, 37}), b({1, 9, 8, 37});
    max(nhwc.ConstView(), a.View());
    max(nhwc.ConstView(), b.View(), pool);
    CHECK(a.Snapshot() == b.Snapshot());
    TestTensor<hwy::float16_t, Nchw> c({2, 9, 13, 29}), e({2, 9, 13, 29});
    mean(nchw.ConstView(), c.View());
    mean(nchw.ConstView(), e.View(), pool);
    CHECK(c.Snapshot() == e.Snapshot());
    TestTensor<float, Nhwc> g({1, 1, 1, 37}), h({1, 1, 1, 37});
    GlobalAveragePool{}(nhwc.ConstView(), g.View());
    GlobalAveragePool{}(nhwc.ConstView(), h.View(), pool);
    CHECK(g.Snapshot() == h.Snapshot());
    // NCHW splits channels, so a plane's vector group differs from serial's.
    TestTensor<float, Nchw> k({1, 37, 1, 1}), m({1, 37, 1, 1});
    GlobalAveragePool{}(planes.ConstView(), k.View());
    GlobalAveragePool{}(planes.ConstView(), m.View(), pool);
    CHECK(k.Snapshot() == m.Snapshot());
  });
}

}  // namespace
}  // namespace tensorops::test
