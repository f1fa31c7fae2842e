// Softmax and LogSoftmax against a double-precision reference on every
// target: every axis (negative too), inner = 1 rows, inner > 1 blocks, the
// count = 2 path, padded and sub-views, in place, float16/bfloat16, the
// special rows NumPy defines, and bad arguments.
//
// Tolerance: exp is within 1 ULP, and the float sum of `count` terms (in
// per-lane partial sums) within count/2 half-ULPs in the worst case; the
// scaling adds 2; and x - max is rounded in float, a relative error of
// |x - max| 2^-24 after exp (every float softmax has it). So |got - want| <=
// (2^-23 (8 + count/2) + |x - max| 2^-24) |want| for Softmax, and the same
// times (|want| + 1) for LogSoftmax (log(sum) is absolute).
// float16/bfloat16 add one step of the storage type.
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
#include "support/targets.h"
#include "support/test_tensor.h"

namespace tensorops::test {
namespace {

template <class T>
double Step() {
  return std::is_same_v<T, float> ? 0 : std::is_same_v<T, hwy::float16_t> ? 0x1p-11 : 0x1p-8;
}

// Reference along `axis` for every independent row; returns expected values
// in the same index order as ForEachIndex over dims.
template <bool kLog, class T, class L>
void Check(TestTensor<T, L>& src, int axis_arg, const Extents& dst_pad, bool in_place = false) {
  const Dims dims = src.dims();
  const size_t axis = static_cast<size_t>(axis_arg < 0 ? axis_arg + static_cast<int>(dims.size()) : axis_arg);
  const size_t count = dims[axis];
  INFO((kLog ? "LogSoftmax" : "Softmax") << " " << kElementName<T> << " dims " << dims << " axis "
                                         << axis_arg << (in_place ? " in place" : ""));
  // The reference, once for all targets: each row's maximum and sum, then
  // every element's expected value and tolerance in ForEachIndex order.
  struct RowStats {
    double max = -INFINITY;
    double n_max = 0, rest = 0;  // the sum split as n_max (terms equal to 1) + rest, so that
    bool special = false;        // log(sum) keeps rest's digits even in double (log1p)
  };
  const auto row_of = [&](const Extents& i) {
    size_t row = 0;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (d != axis) row = row * dims[d] + i[d];
    }
    return row;
  };
  size_t row_count = 1;
  for (size_t d = 0; d < dims.size(); ++d) row_count *= d == axis ? 1 : dims[d];
  std::vector<RowStats> rows(row_count);
  ForEachIndex(dims, [&](const Extents& i) {
    if (i[axis] != 0) return;
    RowStats& r = rows[row_of(i)];
    Extents k = i;
    for (k[axis] = 0; k[axis] < count; ++k[axis]) r.max = std::fmax(r.max, RefToFloat(src.at(k)));
    r.special = std::isnan(r.max) || r.max == INFINITY;
    for (k[axis] = 0; k[axis] < count; ++k[axis]) {
      const double v = RefToFloat(src.at(k));
      r.special |= std::isnan(v);
      if (v == r.max) {
        r.n_max += 1;
      } else {
        r.rest += std::exp(v - r.max);
      }
    }
  });
  std::vector<double> wants, tols;
  ForEachIndex(dims, [&](const Extents& i) {
    const RowStats& r = rows[row_of(i)];
    const double m = r.max;
    const double x = RefToFloat(src.at(i));
    double want = kLog ? (x - m) - std::log1p(r.n_max - 1 + r.rest) : std::exp(x - m) / (r.n_max + r.rest);
    if (r.special || m == -INFINITY) want = NAN;
    wants.push_back(want);
    tols.push_back(0x1p-23 * (8.0 + static_cast<double>(count) / 2) + std::fabs(x - m) * 0x1p-24 +
                   Step<T>());
  });
  ForEachTarget([&](int64_t) {
    TestTensor<T, L> copy = src;
    TestTensor<T, L> out(dims, dst_pad);
    TestTensor<T, L>& dst = in_place ? copy : out;
    if constexpr (kLog) {
      LogSoftmax{.axis = axis_arg}(in_place ? copy.ConstView() : src.ConstView(), dst.View());
    } else {
      Softmax{.axis = axis_arg}(in_place ? copy.ConstView() : src.ConstView(), dst.View());
    }
    CHECK(dst.OnlyElementsWritten());
    size_t failures = 0, n = 0;
    ForEachIndex(dims, [&](const Extents& i) {
      const double want = wants[n], tol = tols[n];
      ++n;
      const double got = RefToFloat(dst.at(i));
      bool ok;
      if (std::isnan(want)) {
        ok = std::isnan(got);
      } else if (std::isinf(want) || (!kLog && want == 0)) {
        ok = got == want;  // -Inf among finite values: exactly 0 (-Inf for LogSoftmax)
      } else {
        // Below float16's smallest step, rounding is absolute.
        const double floor = std::is_same_v<T, hwy::float16_t> ? 0x1p-25 : 1e-37;
        ok = std::fabs(got - want) <= tol * (kLog ? std::fabs(want) + 1 : std::fabs(want)) + floor;
      }
      if (!ok && failures++ < 5) {
        FAIL_CHECK("index " << i << " x " << RefToFloat(src.at(i)) << " got " << got << " want " << want);
      }
    });
    CHECK(failures == 0);
  });
}

// Uniform in [-scale, scale]; scale kMixed: mixed magnitudes, 1e-3 to 1e3
// side by side (most rows then have one dominant element and many exps that
// underflow, next to rows of near-equal small values).
constexpr float kMixed = 0.0f;

template <class T>
TestTensor<T, Strided<>> Random(const Dims& dims, const Extents& pad, uint64_t seed, float scale) {
  Rng rng(seed);
  TestTensor<T, Strided<>> t(dims, pad);
  t.Fill([&](const Extents&) {
    if (scale == kMixed) return MixedMagnitude<T>(rng);
    return RefConvert<T>(UniformFloat(rng, -scale, scale));
  });
  return t;
}

template <bool kLog, class T>
void CheckShapes() {
  struct Case {
    Dims dims;
    Extents pad;
    int axis;
  };
  const std::vector<Case> cases = {
      {{1}, {}, 0},           {{7}, {}, 0},           {{1000}, {}, -1},
      {{3, 17}, {}, 1},       {{3, 17}, {}, 0},       {{3, 17}, {0, 3}, -2},
      {{2, 3, 5, 7}, {}, 0},  {{2, 3, 5, 7}, {}, 1},  {{2, 3, 5, 7}, {0, 1, 2, 1}, 2},
      {{2, 3, 5, 7}, {}, -1}, {{4, 2, 33}, {}, 1},    {{4, 2, 33}, {0, 1, 5}, 1},
      {{2, 2, 1}, {}, 1},     {{5, 2}, {}, 1},        {{1, 64, 19}, {0, 0, 2}, 1},
      {{3, 1, 4}, {}, 1},
      {{5, 1}, {0, 2}, 0},  // only a 1 after the axis, but rows padded apart (found by fuzz_ops)
  };
  uint64_t seed = 1;
  for (const Case& c : cases) {
    for (float scale : {3.0f, 80.0f, kMixed}) {
      auto src = Random<T>(c.dims, c.pad, seed++, scale);
      Check<kLog>(src, c.axis, c.pad);
    }
  }
  auto big = Random<T>({2, 3, 40}, {}, 99, 10.0f);
  Check<kLog>(big, 1, {}, /*in_place=*/true);
  Check<kLog>(big, 2, {}, /*in_place=*/true);
}

TEST_CASE("Softmax over every axis, layout and storage type", "[softmax]") {
  CheckShapes<false, float>();
  CheckShapes<false, hwy::float16_t>();
  CheckShapes<false, hwy::bfloat16_t>();
}

TEST_CASE("LogSoftmax over every axis, layout and storage type", "[softmax]") {
  CheckShapes<true, float>();
  CheckShapes<true, hwy::bfloat16_t>();
}

TEST_CASE("Softmax special rows follow NumPy", "[softmax]") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Rows (last axis) and the same values down a column (axis 0, inner 3).
  const std::vector<std::vector<float>> rows = {
      {-inf, -inf, -inf}, {1.0f, inf, 2.0f}, {1.0f, nan, 2.0f}, {-inf, 0.0f, 1.0f},
      {1e4f, -1e4f, 1e4f}, {-inf, 5.0f, -inf}, {inf, 1.0f, -inf}};
  for (const auto& row : rows) {
    for (int axis : {0, 1}) {
      const Dims dims = axis == 1 ? Dims{1, row.size()} : Dims{row.size(), 3};
      TestTensor<float, Strided<>> t(dims);
      t.Fill([&](const Extents& i) { return row[axis == 1 ? i[1] : i[0]]; });
      Check<false>(t, axis, {});
      Check<true>(t, axis, {});
    }
  }
  // Rows entirely far below zero, of lengths that leave a partial vector:
  // the lanes past the row's end then hold 0 - max > 87.3, where exp's fast
  // form gives garbage that the kernels must mask out of the sum.
  for (size_t n : {1, 3, 7, 13, 17, 37}) {
    for (int axis : {0, 1}) {
      const Dims dims = axis == 1 ? Dims{2, n} : Dims{n, 5};
      TestTensor<float, Strided<>> t(dims);
      t.Fill([&](const Extents& i) {
        return -1000.0f - 3.0f * static_cast<float>(i[axis == 1 ? 1 : 0]);
      });
      Check<false>(t, axis, {});
      Check<true>(t, axis, {});
    }
  }
  // Two-element columns take the count = 2 path unless a value is not finite.
  TestTensor<float, Strided<>> pair({2, 5});
  const float v[2][5] = {{0.0f, 100.0f, -inf, nan, 3.0f}, {0.0f, -100.0f, 1.0f, 1.0f, inf}};
  pair.Fill([&](const Extents& i) { return v[i[0]][i[1]]; });
  Check<false>(pair, 0, {});
  Check<true>(pair, 0, {});
}

TEST_CASE("Softmax rejects bad arguments and writes nothing", "[softmax]") {
  TestTensor<float, Nchw> src({1, 2, 3, 4}), dst({1, 2, 3, 4}), wrong({1, 2, 3, 5});
  const auto before = dst.Snapshot();
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] { Softmax{.axis = 4}(src.ConstView(), dst.View()); })
            .find("axis 4 is outside [-4, 3]") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] { LogSoftmax{.axis = -5}(src.ConstView(), dst.View()); })
            .find("LogSoftmax: axis -5") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] { Softmax{}(src.ConstView(), wrong.View()); })
            .find("dim[3]") != std::string::npos);
  TestTensor<float, Strided<>> buffer({32});
  CHECK(ErrorOf(ErrorCode::kAliasing, [&] {
          Softmax{}(TensorView<const float, Strided<>>(buffer.View().data(), {16}),
                    TensorView<float, Strided<>>(buffer.View().data() + 2, {16}));
        }).find("overlap") != std::string::npos);
  CHECK(dst.Snapshot() == before);
}

}  // namespace
}  // namespace tensorops::test
