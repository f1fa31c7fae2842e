// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear against scalar
// references written from ONNX's formulas, on every target: per tensor and
// per axis (the axis inside the contiguous row and outside it), odd shapes,
// tails, size-1 dims, padded pitches and sub-views; exact ties (k + 0.5) s
// with scales that are and are not powers of two (x * (1 / s), or rounding
// after adding zp, fail them), zero points at both ends of the range, NaN and
// infinities; executors; errors leave y untouched.
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
#include "support/reference_convert.h"
#include "support/targets.h"
#include "support/test_tensor.h"

namespace tensorops::test {
namespace {

// ONNX: saturate(round_half_even(x / s) + zp); NaN as 0 (tensorops' choice).
template <class Q>
Q RefQuantize(float x, float s, int zp) {
  const float q = x / s;  // one IEEE division
  if (std::isnan(q)) return static_cast<Q>(zp);
  const double r = static_cast<double>(std::nearbyint(q)) + zp;
  const double lo = std::numeric_limits<Q>::min(), hi = std::numeric_limits<Q>::max();
  return static_cast<Q>(r < lo ? lo : r > hi ? hi : r);
}

// (x - zp) * s: exact difference, one rounding to float, one product.
template <class Q, class Y>
Y RefDequantize(Q x, float s, int zp) {
  const float diff = static_cast<float>(static_cast<int64_t>(x) - zp);
  return RefConvert<Y>(diff * s);
}

struct Shape {
  Dims dims;
  Extents pad;                // extra elements per dimension; empty = dense
  std::optional<int> axis;    // per-axis parameters along it; none: per tensor
};

std::vector<Shape> Shapes() {
  return {
      {{1}, {}, {}},
      {{17}, {}, {}},
      {{65}, {}, {}},
      {{1000}, {}, {}},
      {{7}, {5}, {}},
      {{2, 3, 5, 7}, {0, 1, 2, 3}, {}},
      {{3, 67}, {0, 1}, 1},            // the axis is the row
      {{2, 5, 3, 33}, {}, 1},          // NCHW channels: outside the row
      {{2, 5, 3, 33}, {0, 0, 1, 2}, 1},
      {{2, 3, 5, 19}, {}, -1},         // NHWC channels, negative axis
      {{1, 4, 3, 131}, {0, 1, 1, 5}, 3},
      {{5, 3, 300}, {0, 1, 7}, 2},     // rows past 256 channels, runs of 3 rows
      {{6, 13}, {}, 0},
      {{3, 9, 1, 1}, {}, 1},           // only size-1 dims after the axis
      {{3, 9, 1, 1}, {0, 2, 0, 0}, 1},
      {{3, 6, 1}, {0, 1, 2}, 1},       // the axis not contiguous: one-element rows
      {{1, 1, 1, 1}, {}, 2},
      {{4, 0, 3}, {}, 1},              // empty: nothing to do
  };
}

size_t ParamCount(const Shape& shape) {
  if (!shape.axis) return 1;
  const int r = static_cast<int>(shape.dims.size());
  return shape.dims[static_cast<size_t>(*shape.axis < 0 ? *shape.axis + r : *shape.axis)];
}

size_t ParamIndex(const Shape& shape, const Extents& index) {
  if (!shape.axis) return 0;
  const int r = static_cast<int>(shape.dims.size());
  return index[static_cast<size_t>(*shape.axis < 0 ? *shape.axis + r : *shape.axis)];
}

// Scales that are not powers of two (3, 0.1, 1/42.5) beside ones that are.
float ScaleFor(size_t i, Rng& rng) {
  static const float kScales[] = {3.0f, 0.1f, 0.0235294122f, 0.25f, 1.0f, 0.0078125f, 7.3f};
  return rng() % 4 == 0 ? kScales[i % 7]
                        : UniformFloat(rng, 0.001f, 10.0f);
}

// x values for scale s: exact ties (k + 0.5) s, mixed magnitudes 1e-3..1e3,
// values that saturate, and (for float x) NaN and infinities.
template <class X>
X QuantInput(Rng& rng, float s) {
  const uint64_t kind = rng() % 10;
  if (kind < 4) {
    const int k = static_cast<int>(rng() % 600) - 300;
    return RefConvert<X>((static_cast<float>(k) + 0.5f) * s);
  }
  if (kind < 7) return MixedMagnitude<X>(rng);
  if (kind < 9) return RefConvert<X>(UniformFloat(rng, -140.0f, 140.0f) * s);
  static const float kSpecial[] = {std::numeric_limits<float>::quiet_NaN(),
                                   std::numeric_limits<float>::infinity(),
                                   -std::numeric_limits<float>::infinity(), 0.0f, -0.0f};
  return RefConvert<X>(kSpecial[rng() % 5]);
}

template <class Q>
Q ZeroPointFor(size_t i, Rng& rng) {
  const int lo = std::numeric_limits<Q>::min(), hi = std::numeric_limits<Q>::max();
  const int ends[] = {lo, hi, 0, (lo + hi + 1) / 2};
  const int64_t span = int64_t{hi} - lo + 1;
  return static_cast<Q>(i < 4 ? ends[i] : lo + static_cast<int>(static_cast<int64_t>(rng() % static_cast<uint64_t>(span))));
}

template <class X, class Q>
void CheckQuantize(const Shape& shape, uint64_t seed, bool with_zero_points) {
  Rng rng(seed);
  std::vector<float> scale(ParamCount(shape));
  std::vector<Q> zero_point(with_zero_points ? scale.size() : 0);
  for (size_t i = 0; i < scale.size(); ++i) scale[i] = ScaleFor(i, rng);
  for (size_t i = 0; i < zero_point.size(); ++i) zero_point[i] = ZeroPointFor<Q>(i, rng);
  TestTensor<X, Strided<>> x(shape.dims, shape.pad);
  x.Fill([&](const Extents& i) { return QuantInput<X>(rng, scale[ParamIndex(shape, i)]); });
  const QuantizeLinear op{.axis = shape.axis.value_or(1)};
  ForEachTarget([&](int64_t) {
    TestTensor<Q, Strided<>> y(shape.dims, shape.pad);
    op(x.ConstView(), scale, zero_point, y.View());
    CHECK(y.OnlyElementsWritten());
    size_t mismatches = 0;
    ForEachIndex(shape.dims, [&](const Extents& i) {
      const size_t p = ParamIndex(shape, i);
      const float in = RefToFloat(x.at(i));
      const Q want = RefQuantize<Q>(in, scale[p], zero_point.empty() ? 0 : zero_point[p]);
      if (y.at(i) != want && mismatches++ < 5) {
        FAIL_CHECK("index " << i << " x " << in << " scale " << scale[p] << " got "
                            << int{y.at(i)} << " want " << int{want});
      }
    });
    CHECK(mismatches == 0);
  });
}

template <class X, class Q>
void CheckQuantizeShapes() {
  INFO(kElementName<X> << " -> " << kElementName<Q>);
  uint64_t seed = 11;
  for (const Shape& shape : Shapes()) {
    INFO("dims " << shape.dims << " pad " << shape.pad << " axis " << shape.axis.value_or(99));
    CheckQuantize<X, Q>(shape, seed++, true);
    CheckQuantize<X, Q>(shape, seed++, false);
  }
}

TEST_CASE("QuantizeLinear rounds x / s half to even, then adds zp and saturates", "[quant]") {
  CheckQuantizeShapes<float, uint8_t>();
  CheckQuantizeShapes<float, int8_t>();
  CheckQuantizeShapes<hwy::float16_t, uint8_t>();
  CheckQuantizeShapes<hwy::bfloat16_t, int8_t>();
}

// QuantizeLinear of a 1-D x with one scale and zero point against RefQuantize,
// on the current target.
void CheckQuantizedPerTensor(const std::vector<float>& x, float s, int zp) {
  std::vector<uint8_t> y(x.size(), 0);
  QuantizeLinear{}(TensorView<const float, Strided<>>(x.data(), {x.size()}), s,
                   static_cast<uint8_t>(zp), TensorView<uint8_t, Strided<>>(y.data(), {y.size()}));
  size_t mismatches = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const uint8_t want = RefQuantize<uint8_t>(x[i], s, zp);
    if (y[i] != want && mismatches++ < 5) {
      FAIL_CHECK("s " << s << " zp " << zp << " x " << x[i] << " got " << int{y[i]} << " want "
                      << int{want});
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("QuantizeLinear at exact ties: a true division, the quotient rounded before zp",
          "[quant]") {
  // Every tie (k + 0.5) s for k in [-300, 300) with odd and even zero points:
  // x * (1 / s) misses 82 of the 600 with s = 1/42.5 (0.0235294122);
  // round(x / s + zp) misses half of them whenever zp is odd.
  for (const float s : {0.1f, 3.0f, 0.0235294122f, 0.25f}) {
    for (const int zp : {0, 1, 127, 128, 255}) {
      std::vector<float> x;
      for (int k = -300; k < 300; ++k) x.push_back((static_cast<float>(k) + 0.5f) * s);
      ForEachTarget([&](int64_t) { CheckQuantizedPerTensor(x, s, zp); });
    }
  }
}

// Within a few units in the last place of a tie x / s lands on either side of
// it, and x * (1 / s) may land on the other: kernels that multiply must catch
// those lanes. Per tensor and per channel along two rows of 3001 (full vectors
// and a tail), with scales at the ends of the range where the reciprocal may
// stand in (2^-64, 2^64) and just past them, and subnormal x; per channel also
// with the first seven scales only, where every vector may take the
// reciprocal (one scale past the ends sends a whole stretch of the row to the
// division).
struct NearTies {
  std::vector<float> x, scale;
  std::vector<uint8_t> zero_point;
};

NearTies NearTiesFor(const std::vector<float>& scales, size_t count) {
  Rng rng(23);
  NearTies t;
  for (size_t i = 0; i < count; ++i) {
    const float s = scales[i % scales.size()];
    const int k = static_cast<int>(rng() % 520) - 260;
    float v = (static_cast<float>(k) + 0.5f) * s;
    for (int step = static_cast<int>(rng() % 9) - 4; step != 0; step += step > 0 ? -1 : 1) {
      v = std::nextafter(v, step > 0 ? std::numeric_limits<float>::infinity()
                                     : -std::numeric_limits<float>::infinity());
    }
    if (i % 97 == 0) v = 0x1p-140f * static_cast<float>(k);  // subnormal (or 0)
    t.x.push_back(v);
    t.scale.push_back(s);
    t.zero_point.push_back(static_cast<uint8_t>(rng()));
  }
  return t;
}

// Two rows of t's channels, the axis innermost, int8 out.
void CheckNearTiesPerChannel(const NearTies& t) {
  std::vector<float> x2(t.x);
  x2.insert(x2.end(), t.x.rbegin(), t.x.rend());
  std::vector<int8_t> y(x2.size(), 0);
  std::vector<int8_t> zero_point(t.zero_point.begin(), t.zero_point.end());
  QuantizeLinear{.axis = 1}(TensorView<const float, Strided<>>(x2.data(), {2, t.x.size()}),
                            t.scale, zero_point,
                            TensorView<int8_t, Strided<>>(y.data(), {2, t.x.size()}));
  size_t mismatches = 0;
  for (size_t i = 0; i < x2.size(); ++i) {
    const size_t c = i % t.x.size();
    const int8_t want = RefQuantize<int8_t>(x2[i], t.scale[c], zero_point[c]);
    if (y[i] != want && mismatches++ < 5) {
      FAIL_CHECK("index " << i << " s " << t.scale[c] << " x " << x2[i] << " got " << int{y[i]}
                          << " want " << int{want});
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("QuantizeLinear next to ties and at the ends of the scale range", "[quant]") {
  const std::vector<float> scales = {0.1f,           3.0f,     0.0235294122f, 7.3f,
                                     0.0039215689f,  0x1p-64f, 0x1p64f,       0x1.fffffep-65f,
                                     0x1.000002p64f, 1e-30f};
  const NearTies all = NearTiesFor(scales, 3001);
  const NearTies in_range = NearTiesFor({scales.begin(), scales.begin() + 7}, 3001);
  ForEachTarget([&](int64_t) {
    for (const float s : scales) {
      for (const int zp : {0, 3, 128}) CheckQuantizedPerTensor(all.x, s, zp);
    }
    CheckNearTiesPerChannel(all);
    CheckNearTiesPerChannel(in_range);
  });
}

// Quotients past 2^22 (where adding 1.5 * 2^23 no longer rounds to a whole
// number), past 2^31 (past int32) and at float's largest, per tensor and per
// channel, uint8 and int8: each saturates toward its sign.
template <class Q>
void CheckHugeQuotients() {
  INFO(kElementName<Q>);
  const std::vector<float> x = {5e6f,  -5e6f, 3e9f,    -3e9f,   3.4e38f, -3.4e38f, 4194303.5f,
                                -4194304.5f, 1e30f, -1e30f, 12582912.0f, 0.5f, -0.5f, 1.5f};
  const std::vector<float> scales = {1.0f, 0.001f, 1e-30f, 0x1p-126f};
  const std::vector<Q> zero_points = {std::numeric_limits<Q>::min(), 0, 1, std::numeric_limits<Q>::max()};
  ForEachTarget([&](int64_t) {
    for (const float s : scales) {
      for (const Q zp : zero_points) {
        std::vector<Q> y(x.size(), Q{42});
        QuantizeLinear{}(TensorView<const float, Strided<>>(x.data(), {x.size()}), s, zp,
                         TensorView<Q, Strided<>>(y.data(), {y.size()}));
        for (size_t i = 0; i < x.size(); ++i) {
          INFO("x " << x[i] << " s " << s << " zp " << int{zp});
          CHECK(int{y[i]} == int{RefQuantize<Q>(x[i], s, zp)});
        }
      }
    }
    // Per channel along the row: each lane its own scale and zero point.
    std::vector<float> row_scales(x.size());
    std::vector<Q> row_zero_points(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      row_scales[i] = scales[i % scales.size()];
      row_zero_points[i] = zero_points[(i / 2) % zero_points.size()];
    }
    std::vector<Q> y(x.size(), Q{42});
    QuantizeLinear{.axis = 0}(TensorView<const float, Strided<>>(x.data(), {x.size()}), row_scales,
                              row_zero_points, TensorView<Q, Strided<>>(y.data(), {y.size()}));
    for (size_t i = 0; i < x.size(); ++i) {
      INFO("x " << x[i] << " s " << row_scales[i] << " zp " << int{row_zero_points[i]});
      CHECK(int{y[i]} == int{RefQuantize<Q>(x[i], row_scales[i], row_zero_points[i])});
    }
  });
}

TEST_CASE("QuantizeLinear saturates quotients past 2^22, past int32 and at float's largest",
          "[quant]") {
  CheckHugeQuotients<uint8_t>();
  CheckHugeQuotients<int8_t>();
}

template <class Q, class Y>
void CheckDequantize(const Shape& shape, uint64_t seed, bool with_zero_points) {
  Rng rng(seed);
  std::vector<float> scale(ParamCount(shape));
  std::vector<Q> zero_point(with_zero_points ? scale.size() : 0);
  for (size_t i = 0; i < scale.size(); ++i) scale[i] = ScaleFor(i, rng) * (i % 3 == 2 ? -1.0f : 1.0f);
  for (size_t i = 0; i < zero_point.size(); ++i) zero_point[i] = ZeroPointFor<Q>(i, rng);
  TestTensor<Q, Strided<>> x(shape.dims, shape.pad);
  x.Fill([&](const Extents&) { return RandomValue<Q>(rng); });
  const DequantizeLinear op{.axis = shape.axis.value_or(1)};
  ForEachTarget([&](int64_t) {
    TestTensor<Y, Strided<>> y(shape.dims, shape.pad);
    op(x.ConstView(), scale, zero_point, y.View());
    CHECK(y.OnlyElementsWritten());
    size_t mismatches = 0;
    ForEachIndex(shape.dims, [&](const Extents& i) {
      const size_t p = ParamIndex(shape, i);
      const Y want = RefDequantize<Q, Y>(x.at(i), scale[p], zero_point.empty() ? 0 : zero_point[p]);
      if (!SameValue(y.at(i), want) && mismatches++ < 5) {
        FAIL_CHECK("index " << i << " x " << int64_t{x.at(i)} << " got " << RefToFloat(y.at(i))
                            << " want " << RefToFloat(want));
      }
    });
    CHECK(mismatches == 0);
  });
}

template <class Q, class Y>
void CheckDequantizeShapes() {
  INFO(kElementName<Q> << " -> " << kElementName<Y>);
  uint64_t seed = 101;
  for (const Shape& shape : Shapes()) {
    INFO("dims " << shape.dims << " pad " << shape.pad << " axis " << shape.axis.value_or(99));
    CheckDequantize<Q, Y>(shape, seed++, !std::is_same_v<Q, int32_t>);
    CheckDequantize<Q, Y>(shape, seed++, false);
  }
}

TEST_CASE("DequantizeLinear is (x - zp) * s with one rounding", "[quant]") {
  CheckDequantizeShapes<uint8_t, float>();
  CheckDequantizeShapes<int8_t, float>();
  CheckDequantizeShapes<int32_t, float>();
  CheckDequantizeShapes<uint8_t, hwy::float16_t>();
  CheckDequantizeShapes<int8_t, hwy::bfloat16_t>();
}

TEST_CASE("Quantize and dequantize sub-views of NCHW and NHWC tensors", "[quant]") {
  Rng rng(7);
  TestTensor<float, Nchw> x({2, 6, 5, 37}, {0, 1, 0, 3});
  x.Fill([&](const Extents&) { return MixedMagnitude<float>(rng); });
  const auto x_window = x.ConstView().Batch(1).Channels(1, 4).Rows(1, 3);
  const std::vector<float> scale = {0.01f, 0.3f, 7.0f, 0.05f};
  const std::vector<int8_t> zero_point = {-128, 0, 127, 5};
  ForEachTarget([&](int64_t) {
    TestTensor<int8_t, Nchw> q({1, 7, 6, 37}, {0, 0, 1, 2});
    q.Fill([](const Extents&) { return int8_t{42}; });
    const auto q_window = q.View().Channels(2, 4).Rows(2, 3);
    QuantizeLinear{.axis = 1}(x_window, scale, zero_point, q_window);
    TestTensor<float, Nchw> y({1, 4, 3, 37});
    DequantizeLinear{.axis = 1}(TensorView<const int8_t, Nchw>(q_window), scale, zero_point, y.View());
    ForEachIndex(q.dims(), [&](const Extents& i) {
      const bool inside = i[1] >= 2 && i[1] < 6 && i[2] >= 2 && i[2] < 5;
      if (!inside) {
        CHECK(int{q.at(i)} == 42);
        return;
      }
      const size_t c = i[1] - 2;
      const float in = x.at({1, c + 1, i[2] - 1, i[3]});
      const int8_t want = RefQuantize<int8_t>(in, scale[c], zero_point[c]);
      CHECK(int{q.at(i)} == int{want});
      CHECK(y.at({0, c, i[2] - 2, i[3]}) == RefDequantize<int8_t, float>(want, scale[c], zero_point[c]));
    });
  });
}

template <class X>
void CheckDynamic(const std::vector<float>& values) {
  std::vector<X> x(values.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = RefConvert<X>(values[i]);
  // ONNX's formulas, in float.
  float lo = 0.0f, hi = 0.0f;
  for (const X v : x) {
    const float f = RefToFloat(v);
    if (std::isnan(f)) continue;
    lo = std::min(lo, f);
    hi = std::max(hi, f);
  }
  float scale = (hi - lo) / 255.0f;
  int zp = 0;
  if (scale > 0.0f) {
    zp = static_cast<int>(std::nearbyint(std::fmin(std::fmax(0.0f - lo / scale, 0.0f), 255.0f)));
  } else {
    scale = 1.0f;
  }
  ForEachTarget([&](int64_t) {
    std::vector<uint8_t> y(x.size(), 0);
    const DynamicQuantization q = DynamicQuantizeLinear{}(
        TensorView<const X, Strided<>>(x.data(), {x.size()}),
        TensorView<uint8_t, Strided<>>(y.data(), {y.size()}));
    CHECK(q.scale == scale);
    CHECK(int{q.zero_point} == zp);
    size_t mismatches = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const uint8_t want = RefQuantize<uint8_t>(RefToFloat(x[i]), scale, zp);
      if (y[i] != want && mismatches++ < 5) {
        FAIL_CHECK("x " << RefToFloat(x[i]) << " got " << int{y[i]} << " want " << int{want});
      }
    }
    CHECK(mismatches == 0);
  });
}

TEST_CASE("DynamicQuantizeLinear takes the range with 0 in it and quantizes to uint8", "[quant]") {
  Rng rng(3);
  for (const size_t n : {1, 3, 17, 64, 1001}) {
    INFO("n " << n);
    std::vector<float> mixed(n), positive(n), negative(n), with_nan(n);
    for (size_t i = 0; i < n; ++i) {
      mixed[i] = MixedMagnitude<float>(rng);
      positive[i] = std::fabs(mixed[i]) + 0.5f;
      negative[i] = -positive[i];
      with_nan[i] = i % 5 == 1 ? std::numeric_limits<float>::quiet_NaN() : mixed[i];
    }
    CheckDynamic<float>(mixed);
    CheckDynamic<float>(positive);
    CheckDynamic<float>(negative);
    CheckDynamic<float>(with_nan);
    CheckDynamic<hwy::float16_t>(mixed);
    CheckDynamic<hwy::bfloat16_t>(negative);
    CheckDynamic<float>(std::vector<float>(n, 0.0f));  // scale 1, zero point 0
  }
}

TEST_CASE("Quantization with an executor gives the serial result", "[quant]") {
  Rng rng(5);
  const Dims dims = {3, 64, 9, 131};
  TestTensor<float, Strided<>> x(dims);
  x.Fill([&](const Extents&) { return MixedMagnitude<float>(rng); });
  ThreadPool pool(3);
  detail::ScopedMinRangeNs split_small(1.0);
  for (const size_t axis : {size_t{1}, size_t{3}}) {  // outside the row, and the row
    std::vector<float> s(dims[axis]);
    std::vector<uint8_t> z(dims[axis]);
    for (size_t i = 0; i < s.size(); ++i) s[i] = ScaleFor(i, rng), z[i] = ZeroPointFor<uint8_t>(i, rng);
    TestTensor<uint8_t, Strided<>> serial(dims), parallel(dims);
    TestTensor<float, Strided<>> back_serial(dims), back_parallel(dims);
    QuantizeLinear{.axis = static_cast<int>(axis)}(x.ConstView(), s, z, serial.View());
    QuantizeLinear{.axis = static_cast<int>(axis)}(x.ConstView(), s, z, parallel.View(), pool);
    CHECK(serial.Snapshot() == parallel.Snapshot());
    DequantizeLinear{.axis = static_cast<int>(axis)}(serial.ConstView(), s, z, back_serial.View());
    DequantizeLinear{.axis = static_cast<int>(axis)}(serial.ConstView(), s, z, back_parallel.View(), pool);
    CHECK(back_serial.Snapshot() == back_parallel.Snapshot());
  }
  TestTensor<uint8_t, Strided<>> serial(dims), parallel(dims);
  const auto a = DynamicQuantizeLinear{}(x.ConstView(), serial.View());
  const auto b = DynamicQuantizeLinear{}(x.ConstView(), parallel.View(), pool);
  CHECK((a.scale == b.scale && a.zero_point == b.zero_point));
  CHECK(serial.Snapshot() == parallel.Snapshot());
}

TEST_CASE("Quantization errors name the problem and leave y untouched", "[quant]") {
  std::vector<float> x(24, 1.0f);
  std::vector<uint8_t> y(24, 7);
  const TensorView<const float, Strided<>> xv(x.data(), {2, 3, 4});
  const TensorView<uint8_t, Strided<>> yv(y.data(), {2, 3, 4});
  const std::vector<uint8_t> before = y;
  const std::vector<float> three = {1.0f, 2.0f, 3.0f};
  const std::vector<uint8_t> two_zp = {1, 2};
  const auto quantize = [&](std::vector<float> s, std::vector<uint8_t> z, int axis = 1) {
    return [=] { QuantizeLinear{.axis = static_cast<int>(axis)}(xv, s, z, yv); };
  };
  CHECK(ErrorOf(ErrorCode::kBadArgument, quantize({}, {})).find("scale is empty") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, quantize(three, {}, 2)).find("3 scales for axis 2 of size 4") !=
        std::string::npos);
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, quantize(three, two_zp)).find("2 zero points for 3") !=
        std::string::npos);
  CHECK(ErrorOf(ErrorCode::kBadArgument, quantize(three, {}, 3)).find("axis 3 is outside") !=
        std::string::npos);
  for (const float bad : {0.0f, -1.0f, std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN()}) {
    CHECK(ErrorOf(ErrorCode::kBadArgument, quantize({1.0f, bad, 1.0f}, {})).find("scale[1]") !=
          std::string::npos);
  }
  // Dequantizing takes any finite scale (0 and negative too), not Inf/NaN.
  std::vector<float> out(24, 5.0f);
  const TensorView<float, Strided<>> outv(out.data(), {2, 3, 4});
  DequantizeLinear{}(TensorView<const uint8_t, Strided<>>(y.data(), {2, 3, 4}), 0.0f, 0, outv);
  CHECK(out == std::vector<float>(24, 0.0f));
  out.assign(24, 5.0f);
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          DequantizeLinear{}(TensorView<const uint8_t, Strided<>>(y.data(), {2, 3, 4}),
                             std::numeric_limits<float>::infinity(), 0, outv);
        }).find("finite") != std::string::npos);
  std::vector<int32_t> acc(24, 3);
  const std::vector<int32_t> nonzero = {0, 4, 0};
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          DequantizeLinear{}(TensorView<const int32_t, Strided<>>(acc.data(), {2, 3, 4}), three,
                             nonzero, outv);
        }).find("int32 x has no zero point") != std::string::npos);
  CHECK(out == std::vector<float>(24, 5.0f));
  // Shapes and overlap.
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] {
    QuantizeLinear{}(xv, 1.0f, 0, TensorView<uint8_t, Strided<>>(y.data(), {2, 3, 3}));
  }).size() > 0);
  CHECK(ErrorOf(ErrorCode::kAliasing, [&] {
    QuantizeLinear{}(xv, 1.0f, 0,
                     TensorView<uint8_t, Strided<>>(reinterpret_cast<uint8_t*>(x.data()), {2, 3, 4}));
  }).find("overlap") != std::string::npos);
  // DynamicQuantizeLinear: an infinity has no finite scale.
  x[5] = -std::numeric_limits<float>::infinity();
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] { DynamicQuantizeLinear{}(xv, yv); })
            .find("-Inf") != std::string::npos);
  CHECK(y == before);
  CHECK(x[0] == 1.0f);
}

}  // namespace
}  // namespace tensorops::test
