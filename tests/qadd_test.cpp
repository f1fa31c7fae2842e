// QAdd against a scalar reference written from qadd.h's formula (int64 sums,
// the rounding in double), and against the real-valued sum within the stated
// bound, on every target: uint8 and int8, NCHW and NHWC, rows shorter than a
// vector and across several, size 1, padded pitches, broadcast inputs (a
// [C, 1, 1] tensor, a scalar), in place, ReLU, zero points at the ends of
// their range, exact ties, executors, errors.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"
#include "support/expect_error.h"
#include "support/random.h"
#include "support/targets.h"
#include "support/test_tensor.h"

namespace tensorops::test {
namespace {

// QAdd's fixed point as qadd.h defines it, derived here on its own.
struct Fixed {
  int64_t ma, mb;
  int shift;
};
Fixed RefFixed(float sa, float sb, float sy) {
  const double ra = static_cast<double>(sa) / sy, rb = static_cast<double>(sb) / sy;
  for (int s = 31; s >= 1; --s) {
    const double ma = std::nearbyint(std::ldexp(ra, s)), mb = std::nearbyint(std::ldexp(rb, s));
    if (ma < 0x1p21 && mb < 0x1p21) return {static_cast<int64_t>(ma), static_cast<int64_t>(mb), s};
  }
  return {0, 0, 0};
}

template <class T>
int RefQAdd(int a, int b, int za, int zb, int zy, const Fixed& f, bool relu) {
  const int64_t t = (a - za) * f.ma + (b - zb) * f.mb;
  const double r = std::nearbyint(std::ldexp(static_cast<double>(t), -f.shift)) + zy;  // half to even
  const double lo = relu ? std::max<double>(zy, std::numeric_limits<T>::min()) : std::numeric_limits<T>::min();
  return static_cast<int>(std::clamp(r, lo, static_cast<double>(std::numeric_limits<T>::max())));
}

template <class T>
T RandomByte(Rng& rng) {
  return static_cast<T>(std::numeric_limits<T>::min() + static_cast<int>(rng() % 256));
}

// a (dims) + b (b_dims, broadcast) -> y (dims), all in layout L, with
// padded pitches; compares every element with the reference and the real sum.
template <class T, class L>
void Check(const Dims& dims, const Dims& b_dims, const Extents& pad, bool relu, uint64_t seed) {
  INFO("QAdd " << kElementName<T> << " " << L::kName << " dims " << dims << " b dims " << b_dims
               << (relu ? " relu" : "") << " seed " << seed);
  Rng rng(seed);
  TestTensor<T, L> a(dims, pad), b(b_dims, pad);
  a.Fill([&](const Extents&) { return RandomByte<T>(rng); });
  b.Fill([&](const Extents&) { return RandomByte<T>(rng); });
  const T za = RandomByte<T>(rng), zb = RandomByte<T>(rng), zy = RandomByte<T>(rng);
  const float sa = UniformFloat(rng, 0.005f, 0.1f);
  const float sb = UniformFloat(rng, 0.005f, 0.1f);
  const float sy = UniformFloat(rng, 0.01f, 0.2f);
  const Fixed f = RefFixed(sa, sb, sy);
  // The stated error of the fixed point before rounding: 255 2^-S.
  const double band = 255.0 * std::ldexp(1.0, -f.shift);
  const auto b_index = [&](const Extents& i) {
    Extents j = i;
    for (size_t d = 0; d < j.size(); ++d) {
      if (b_dims[d] == 1) j[d] = 0;
    }
    return j;
  };
  ForEachTarget([&](int64_t) {
    TestTensor<T, L> y(dims, pad);
    QAdd{.relu = relu}(a.ConstView(), sa, za, b.ConstView(), sb, zb, sy, zy, y.View());
    CHECK(y.OnlyElementsWritten());
    size_t failures = 0;
    ForEachIndex(dims, [&](const Extents& i) {
      const int va = a.at(i), vb = b.at(b_index(i)), got = y.at(i);
      const int want = RefQAdd<T>(va, vb, za, zb, zy, f, relu);
      const double real = (static_cast<double>(sa) * (va - za) + static_cast<double>(sb) * (vb - zb)) / sy;
      const double lo = relu ? std::max<double>(zy, std::numeric_limits<T>::min()) : std::numeric_limits<T>::min();
      const double hi = std::numeric_limits<T>::max();
      // Within the band the real value and the fixed point may round apart.
      const bool near_half = std::fabs(real - std::floor(real) - 0.5) <= band;
      const double exact = std::clamp(std::nearbyint(real) + zy, lo, hi);
      if ((got != want || (!near_half && got != exact)) && failures++ < 5) {
        FAIL_CHECK(i << ": a " << va << " b " << vb << " got " << got << " want " << want << " (real "
                     << real << ")");
      }
    });
    CHECK(failures == 0);
  });
}

TEST_CASE("QAdd: the requantized sum, same shapes and broadcast", "[quant]") {
  uint64_t seed = 1;
  for (const bool relu : {false, true}) {
    for (const Dims& d : std::vector<Dims>{{1, 1, 1, 1}, {1, 3, 1, 5}, {2, 5, 7, 7}, {1, 17, 3, 33}, {1, 70, 2, 3}}) {
      Check<uint8_t, Nchw>(d, d, {}, relu, seed++);
      Check<uint8_t, Nhwc>(d, d, {0, 1, 0, 3}, relu, seed++);
      Check<int8_t, Nchw>(d, d, {0, 1, 2, 3}, relu, seed++);
      Check<int8_t, Nhwc>(d, d, {}, relu, seed++);
      // b per channel ([1, C, 1, 1]) and a scalar ([1, 1, 1, 1]) against a.
      Check<uint8_t, Nchw>(d, {1, d[1], 1, 1}, {}, relu, seed++);
      Check<int8_t, Nhwc>(d, {1, 1, 1, 1}, {0, 0, 1, 0}, relu, seed++);
    }
  }
}

TEST_CASE("QAdd rounds exact ties half to even before an odd zero point, saturates, clamps at zy", "[quant]") {
  // sa = sb = sy / 2: (a - za + b - zb) / 2 is exact, ties included.
  const std::vector<uint8_t> a = {1, 3, 5, 0, 255, 0}, b = {0, 0, 0, 1, 255, 0};
  // 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, 0.5 -> 0, 255 -> saturate, 0 -> zy
  ForEachTarget([&](int64_t) {
    std::vector<uint8_t> y(6, 0);
    QAdd{}(TensorView<const uint8_t, Strided<1>>(a.data(), {6}), 0.5f, uint8_t{0},
           TensorView<const uint8_t, Strided<1>>(b.data(), {6}), 0.5f, uint8_t{0}, 1.0f, uint8_t{7},
           TensorView<uint8_t, Strided<1>>(y.data(), {6}));
    CHECK(std::vector<int>(y.begin(), y.end()) == std::vector<int>{7, 9, 9, 7, 255, 7});
    // int8: -0.5 -> 0 (even), -1.5 -> -2; relu clamps at zy = -3.
    const std::vector<int8_t> sa = {-1, -3, -128, -100}, sb = {0, 0, -128, 0};
    std::vector<int8_t> sy(4, 0);
    QAdd{.relu = true}(TensorView<const int8_t, Strided<1>>(sa.data(), {4}), 0.5f, int8_t{0},
                       TensorView<const int8_t, Strided<1>>(sb.data(), {4}), 0.5f, int8_t{0}, 1.0f, int8_t{-3},
                       TensorView<int8_t, Strided<1>>(sy.data(), {4}));
    CHECK(std::vector<int>(sy.begin(), sy.end()) == std::vector<int>{-3, -3, -3, -3});
    QAdd{}(TensorView<const int8_t, Strided<1>>(sa.data(), {4}), 0.5f, int8_t{0},
           TensorView<const int8_t, Strided<1>>(sb.data(), {4}), 0.5f, int8_t{0}, 1.0f, int8_t{-3},
           TensorView<int8_t, Strided<1>>(sy.data(), {4}));
    CHECK(std::vector<int>(sy.begin(), sy.end()) == std::vector<int>{-3, -5, -128, -53});
  });
}

TEST_CASE("QAdd's fixed point: multipliers below 2^21, the largest shift, half a unit of error", "[quant]") {
  for (const auto& s : std::vector<std::array<float, 3>>{{1.0f, 1.0f, 1.0f}, {0.02f, 0.3f, 0.07f},
                                                        {1e-9f, 1.0f, 1.0f}, {1.0f, 3.0f, 1e-5f},
                                                        {5e-12f, 5e-12f, 1.0f}, {1.0f, 1.0f, 1.1e-6f}}) {
    INFO("scales " << s[0] << " " << s[1] << " " << s[2]);
    const QAddFixedPoint f = MakeQAddFixedPoint(s[0], s[1], s[2]);
    const Fixed want = RefFixed(s[0], s[1], s[2]);
    CHECK(f.a_multiplier == want.ma);
    CHECK(f.b_multiplier == want.mb);
    CHECK(f.shift == want.shift);
    CHECK(f.a_multiplier < kQAddMultiplierLimit);
    CHECK(f.b_multiplier < kQAddMultiplierLimit);
    const double ra = static_cast<double>(s[0]) / s[2];
    CHECK(std::fabs(std::ldexp(static_cast<double>(f.a_multiplier), -f.shift) - ra) <= std::ldexp(0.5, -f.shift));
  }
  CHECK(ErrorOf(ErrorCode::kBadArgument, [] { MakeQAddFixedPoint(1.0f, 1.0f, 1e-7f); }).find("2^20") !=
        std::string::npos);
}

TEST_CASE("QAdd in place, with an executor, errors leave y untouched", "[quant]") {
  Rng rng(70);
  TestTensor<uint8_t, Nhwc> a({2, 9, 13, 40}), b({2, 9, 13, 40});
  a.Fill([&](const Extents&) { return static_cast<uint8_t>(rng()); });
  b.Fill([&](const Extents&) { return static_cast<uint8_t>(rng()); });
  ThreadPool pool(3);
  detail::ScopedMinRangeNs split_small(1.0);
  ForEachTarget([&](int64_t) {
    TestTensor<uint8_t, Nhwc> serial({2, 9, 13, 40}), parallel({2, 9, 13, 40}), in_place({2, 9, 13, 40});
    const QAdd add;
    add(a.ConstView(), 0.03f, uint8_t{128}, b.ConstView(), 0.05f, uint8_t{3}, 0.06f, uint8_t{100}, serial.View());
    add(a.ConstView(), 0.03f, uint8_t{128}, b.ConstView(), 0.05f, uint8_t{3}, 0.06f, uint8_t{100}, parallel.View(),
        pool);
    CHECK(serial.Snapshot() == parallel.Snapshot());
    ForEachIndex(a.dims(), [&](const Extents& i) { in_place.at(i) = a.at(i); });
    add(in_place.View(), 0.03f, uint8_t{128}, b.ConstView(), 0.05f, uint8_t{3}, 0.06f, uint8_t{100},
        in_place.View());
    CHECK(serial.Snapshot() == in_place.Snapshot());
  });
  TestTensor<uint8_t, Nhwc> y({2, 9, 13, 40});
  const auto before = y.Snapshot();
  for (const float bad : {0.0f, -2.0f, std::numeric_limits<float>::infinity()}) {
    CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
            QAdd{}(a.ConstView(), 1.0f, uint8_t{0}, b.ConstView(), bad, uint8_t{0}, 1.0f, uint8_t{0}, y.View());
          }).find("positive and finite") != std::string::npos);
  }
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          QAdd{}(a.ConstView(), 2.0f, uint8_t{0}, b.ConstView(), 1.0f, uint8_t{0}, 1e-6f, uint8_t{0}, y.View());
        }).find("2^20") != std::string::npos);
  TestTensor<uint8_t, Nhwc> wrong({2, 9, 13, 39});
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] {
          QAdd{}(a.ConstView(), 1.0f, uint8_t{0}, wrong.ConstView(), 1.0f, uint8_t{0}, 1.0f, uint8_t{0}, y.View());
        }).find("does not broadcast") != std::string::npos);
  // b overlapping y without being y.
  const auto shifted = TensorView<const uint8_t, Nhwc>(y.View().data() + 1, {1, 1, 1, 40});
  CHECK(ErrorOf(ErrorCode::kAliasing, [&] {
          QAdd{}(a.ConstView(), 1.0f, uint8_t{0}, shifted, 1.0f, uint8_t{0}, 1.0f, uint8_t{0}, y.View());
        }).find("overlaps y") != std::string::npos);
  CHECK(y.Snapshot() == before);
}

}  // namespace
}  // namespace tensorops::test
