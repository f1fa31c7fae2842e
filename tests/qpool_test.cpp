// QGlobalAveragePool against a scalar reference written from the formula
// (an int64 sum of the plane, the multiplier in float as qpool.h states), on
// every target: uint8 and int8, both layouts, planes of 1 value up to 33 x 31,
// channels shorter than a vector and across several, batch 2, padded pitches,
// zero points at the ends of their range, an exact tie, executors, errors.
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

template <class T>
T RefQuantizedMean(int64_t sum, size_t plane, float sx, float sy, int zy) {
  const float m = sx / (sy * static_cast<float>(plane));
  const double r = static_cast<double>(std::nearbyint(static_cast<float>(sum) * m)) + zy;
  const double lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  return static_cast<T>(r < lo ? lo : r > hi ? hi : r);
}

template <class T, class L>
void Check(size_t n, size_t c, size_t h, size_t w, const Extents& x_pad, const Extents& y_pad, uint64_t seed) {
  INFO("QGlobalAveragePool " << kElementName<T> << (std::is_same_v<L, Nhwc> ? " NHWC" : " NCHW") << " N "
                             << n << " C " << c << " H " << h << " W " << w << " seed " << seed);
  Rng rng(seed);
  TestTensor<T, L> x(InLayout<L>(n, c, h, w), x_pad);
  x.Fill([&](const Extents&) {
    return static_cast<T>(std::numeric_limits<T>::min() + static_cast<int>(rng() % 256));
  });
  const T zx = static_cast<T>(std::numeric_limits<T>::min() + static_cast<int>(rng() % 256));
  const T zy = static_cast<T>(std::numeric_limits<T>::min() + static_cast<int>(rng() % 256));
  const float sx = 0.05f, sy = UniformFloat(rng, 0.02f, 0.2f);
  std::vector<T> want;
  for (size_t in = 0; in < n; ++in) {
    for (size_t ic = 0; ic < c; ++ic) {
      int64_t sum = 0;
      for (size_t ih = 0; ih < h; ++ih) {
        for (size_t iw = 0; iw < w; ++iw) sum += int64_t{x.at(InLayout<L>(in, ic, ih, iw))} - zx;
      }
      want.push_back(RefQuantizedMean<T>(sum, h * w, sx, sy, zy));
    }
  }
  ForEachTarget([&](int64_t) {
    TestTensor<T, L> y(InLayout<L>(n, c, 1, 1), y_pad);
    QGlobalAveragePool{}(x.ConstView(), sx, zx, sy, zy, y.View());
    CHECK(y.OnlyElementsWritten());
    size_t k = 0, failures = 0;
    for (size_t in = 0; in < n; ++in) {
      for (size_t ic = 0; ic < c; ++ic, ++k) {
        const int got = y.at(InLayout<L>(in, ic, 0, 0));
        if (got != int{want[k]} && failures++ < 5) {
          FAIL_CHECK("(" << in << ", " << ic << ") got " << got << " want " << int{want[k]});
        }
      }
    }
    CHECK(failures == 0);
  });
}

TEST_CASE("QGlobalAveragePool: the requantized mean of each plane", "[quant]") {
  uint64_t seed = 1;
  struct Shape {
    size_t n, c, h, w;
  };
  for (const Shape& s : std::vector<Shape>{{1, 1, 1, 1}, {1, 3, 1, 1}, {2, 5, 7, 7}, {1, 17, 3, 5},
                                           {1, 70, 2, 3}, {2, 33, 33, 31}, {1, 1280, 7, 7}}) {
    Check<uint8_t, Nchw>(s.n, s.c, s.h, s.w, {}, {}, seed++);
    Check<uint8_t, Nhwc>(s.n, s.c, s.h, s.w, {}, {}, seed++);
    Check<int8_t, Nchw>(s.n, s.c, s.h, s.w, {0, 1, 2, 3}, {0, 1, 0, 0}, seed++);
    Check<int8_t, Nhwc>(s.n, s.c, s.h, s.w, {0, 1, 0, 5}, {0, 0, 0, 2}, seed++);
  }
}

TEST_CASE("QGlobalAveragePool rounds an exact tie half to even before the zero point", "[quant]") {
  // A plane of 2 summing to 1 with sx = sy: the mean 0.5 rounds to 0, then
  // zy = 7 is added; 3 / 2 = 1.5 rounds to 2.
  const std::vector<uint8_t> x = {0, 1, 1, 2};
  ForEachTarget([&](int64_t) {
    std::vector<uint8_t> y(2, 0);
    QGlobalAveragePool{}(TensorView<const uint8_t, Nchw>(x.data(), {1, 2, 1, 2}), 1.0f, uint8_t{0}, 1.0f,
                         uint8_t{7}, TensorView<uint8_t, Nchw>(y.data(), {1, 2, 1, 1}));
    CHECK(int{y[0]} == 7);
    CHECK(int{y[1]} == 9);
  });
}

TEST_CASE("QGlobalAveragePool with an executor gives the serial result, errors", "[quant]") {
  Rng rng(50);
  TestTensor<uint8_t, Nchw> x({3, 40, 9, 11});
  x.Fill([&](const Extents&) { return static_cast<uint8_t>(rng()); });
  ThreadPool pool(3);
  detail::ScopedMinRangeNs split_small(1.0);
  ForEachTarget([&](int64_t) {
    TestTensor<uint8_t, Nchw> serial({3, 40, 1, 1}), parallel({3, 40, 1, 1});
    QGlobalAveragePool{}(x.ConstView(), 0.1f, uint8_t{128}, 0.05f, uint8_t{3}, serial.View());
    QGlobalAveragePool{}(x.ConstView(), 0.1f, uint8_t{128}, 0.05f, uint8_t{3}, parallel.View(), pool);
    CHECK(serial.Snapshot() == parallel.Snapshot());
  });
  TestTensor<uint8_t, Nchw> y({3, 40, 1, 1});
  const auto before = y.Snapshot();
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] {
          QGlobalAveragePool{}(x.ConstView(), 1.0f, uint8_t{0}, 1.0f, uint8_t{0},
                               TestTensor<uint8_t, Nchw>({3, 40, 2, 1}).View());
        }).find("must be N 3, C 40, H 1, W 1") != std::string::npos);
  for (const float bad : {0.0f, -2.0f, std::numeric_limits<float>::quiet_NaN()}) {
    CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
            QGlobalAveragePool{}(x.ConstView(), bad, uint8_t{0}, 1.0f, uint8_t{0}, y.View());
          }).find("positive and finite") != std::string::npos);
  }
  TestTensor<uint8_t, Nchw> empty({1, 2, 0, 3});
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] {
          QGlobalAveragePool{}(empty.ConstView(), 1.0f, uint8_t{0}, 1.0f, uint8_t{0},
                               TestTensor<uint8_t, Nchw>({1, 2, 1, 1}).View());
        }).find("empty plane") != std::string::npos);
  // A plane too large for an int32 sum (checked before x is read).
  const std::vector<uint8_t> big(3000 * 3000, 0);
  uint8_t one = 5;
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          QGlobalAveragePool{}(TensorView<const uint8_t, Nchw>(big.data(), {1, 1, 3000, 3000}), 1.0f,
                               uint8_t{0}, 1.0f, uint8_t{0}, TensorView<uint8_t, Nchw>(&one, {1, 1, 1, 1}));
        }).find("can overflow") != std::string::npos);
  CHECK(one == 5);
  CHECK(y.Snapshot() == before);
}

}  // namespace
}  // namespace tensorops::test
