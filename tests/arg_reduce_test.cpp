// ArgMax and ArgMin against a reference written from ONNX's definition, on
// every target: every axis of ranks 1-4, keepdims on and off, first and last
// index of ties, NaN (the first or last NaN wins), five element types,
// lengths from 1 to past several vectors, padded pitches and sub-views.
// Indices are exact, so every output is compared for equality.
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

enum class Data { kMixed, kTies, kNaNs };

template <class T>
T Value(Rng& rng, Data data) {
  if constexpr (std::is_integral_v<T>) {
    // Integers: a narrow range, so that ties are common.
    const int64_t v = static_cast<int64_t>(rng() % 7) - 3;
    return static_cast<T>(std::is_signed_v<T> ? v : v + 3);
  } else {
    switch (data) {
      case Data::kMixed: return MixedMagnitude<T>(rng);
      case Data::kTies: return RefConvert<T>(static_cast<float>(rng() % 5) - 2.0f);
      case Data::kNaNs: {
        const uint64_t kind = rng() % 10;
        if (kind == 0) return RefConvert<T>(std::numeric_limits<float>::quiet_NaN());
        if (kind == 1) return RefConvert<T>(std::numeric_limits<float>::infinity());
        if (kind == 2) return RefConvert<T>(-std::numeric_limits<float>::infinity());
        return RefConvert<T>(static_cast<float>(rng() % 5) - 2.0f);
      }
    }
    return T{};
  }
}

template <bool kMax, class T>
void Check(const Dims& dims, const Extents& pad, int axis, bool keepdims, bool last,
           uint64_t seed, Data data) {
  const size_t rank = dims.size();
  const size_t a = static_cast<size_t>(axis < 0 ? axis + static_cast<int>(rank) : axis);
  INFO((kMax ? "ArgMax " : "ArgMin ") << kElementName<T> << " dims " << dims << " pad " << pad
                                      << " axis " << axis << (keepdims ? " keepdims" : "")
                                      << (last ? " select_last_index" : "") << " seed " << seed);
  Rng rng(seed);
  TestTensor<T, Strided<>> x(dims, pad);
  x.Fill([&](const Extents&) { return Value<T>(rng, data); });
  Dims kept = dims;
  kept[a] = 1;
  std::vector<size_t> out_list;
  for (size_t d = 0; d < rank; ++d) {
    if (d != a || keepdims) out_list.push_back(kept[d]);
  }
  if (out_list.empty()) out_list.push_back(1);
  const Dims out_dims = Extents::FromArray(out_list.data(), out_list.size());
  // The reference, from the definition: a scan in index order.
  std::vector<int64_t> want;
  ForEachIndex(kept, [&](const Extents& o) {
    Extents i = o;
    int64_t best = 0;
    i[a] = 0;
    double best_v = RefToFloat(x.at(i));
    for (size_t k = 1; k < dims[a]; ++k) {
      i[a] = k;
      const double v = RefToFloat(x.at(i));
      bool take;
      if (std::isnan(v) || std::isnan(best_v)) {
        take = std::isnan(v) && (last || !std::isnan(best_v));
      } else {
        take = kMax ? (v > best_v || (last && v == best_v)) : (v < best_v || (last && v == best_v));
      }
      if (take) {
        best = static_cast<int64_t>(k);
        best_v = v;
      }
    }
    want.push_back(best);
  });
  ForEachTarget([&](int64_t) {
    TestTensor<int64_t, Strided<>> y(out_dims, Extents{});
    if constexpr (kMax) {
      ArgMax{.axis = axis, .keepdims = keepdims, .select_last_index = last}(x.ConstView(), y.View());
    } else {
      ArgMin{.axis = axis, .keepdims = keepdims, .select_last_index = last}(x.ConstView(), y.View());
    }
    CHECK(y.OnlyElementsWritten());
    size_t k = 0, failures = 0;
    ForEachIndex(out_dims, [&](const Extents& o) {
      if (y.at(o) != want[k] && failures++ < 5) {
        FAIL_CHECK("output " << o << ": got " << y.at(o) << ", want " << want[k]);
      }
      ++k;
    });
    CHECK(failures == 0);
  });
}

template <bool kMax, class T>
void CheckShapes(uint64_t& seed, Data data) {
  for (const bool last : {false, true}) {
    for (const bool keepdims : {true, false}) {
      // The classifier's case: the last axis, 1 to several vectors long.
      for (size_t n : {1, 2, 7, 16, 33, 1000}) Check<kMax, T>({2, n}, {}, 1, keepdims, last, seed++, data);
      Check<kMax, T>({37}, {}, 0, keepdims, last, seed++, data);
      Check<kMax, T>({37}, {}, -1, keepdims, last, seed++, data);
      // Every axis of a 4-D tensor, padded pitches.
      for (int axis = -4; axis < 4; ++axis) {
        Check<kMax, T>({2, 5, 3, 19}, {0, 1, 0, 2}, axis, keepdims, last, seed++, data);
      }
      Check<kMax, T>({3, 1, 40}, {}, 0, keepdims, last, seed++, data);
      Check<kMax, T>({3, 7, 1}, {1, 0, 0}, 1, keepdims, last, seed++, data);
    }
  }
}

TEST_CASE("ArgMax and ArgMin: every axis, keepdims, first and last index", "[reduce]") {
  uint64_t seed = 1;
  CheckShapes<true, float>(seed, Data::kMixed);
  CheckShapes<false, float>(seed, Data::kMixed);
  CheckShapes<true, float>(seed, Data::kTies);
  CheckShapes<false, float>(seed, Data::kTies);
}

TEST_CASE("ArgMax and ArgMin: NaN wins, the first or the last one", "[reduce]") {
  uint64_t seed = 500;
  CheckShapes<true, float>(seed, Data::kNaNs);
  CheckShapes<false, float>(seed, Data::kNaNs);
  CheckShapes<true, hwy::float16_t>(seed, Data::kNaNs);
}

TEST_CASE("ArgMax and ArgMin: float16, bfloat16, uint8 and int8", "[reduce]") {
  uint64_t seed = 900;
  CheckShapes<true, hwy::float16_t>(seed, Data::kTies);
  CheckShapes<false, hwy::bfloat16_t>(seed, Data::kMixed);
  CheckShapes<true, uint8_t>(seed, Data::kTies);
  CheckShapes<false, int8_t>(seed, Data::kTies);
}

TEST_CASE("ArgMax on a sub-view and on an executor", "[reduce][parallel]") {
  TestTensor<float, Strided<>> whole({4, 9, 50});
  Rng rng(1200);
  whole.Fill([&](const Extents&) { return MixedMagnitude<float>(rng); });
  const auto part = whole.ConstView().Slice(1, 2, 6);  // rows [2, 8)
  ForEachTarget([&](int64_t) {
    const detail::ScopedMinRangeNs tiny_ranges(0.0);
    ThreadPool pool(3);
    for (int axis : {0, 1, 2}) {
      Dims out = part.dims();
      out[static_cast<size_t>(axis)] = 1;
      TestTensor<int64_t, Strided<>> serial(out), parallel(out);
      ArgMax{.axis = axis}(part, serial.View());
      ArgMax{.axis = axis}(part, parallel.View(), pool);
      CHECK(serial.Snapshot() == parallel.Snapshot());
      // Against a dense copy of the sub-view.
      TestTensor<float, Strided<>> dense(part.dims());
      ForEachIndex(part.dims(), [&](const Extents& i) { dense.at(i) = part.at(i); });
      TestTensor<int64_t, Strided<>> from_dense(out);
      ArgMax{.axis = axis}(dense.ConstView(), from_dense.View());
      CHECK(serial.Snapshot() == from_dense.Snapshot());
    }
  });
}

TEST_CASE("ArgMax and ArgMin reject bad axes and shapes and write nothing", "[reduce][errors]") {
  TestTensor<float, Strided<>> x({2, 3, 4});
  x.Fill([](const Extents& i) { return static_cast<float>(i[2]); });
  TestTensor<int64_t, Strided<>> y({2, 1, 4});
  const auto before = y.Snapshot();
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] { ArgMax{.axis = 3}(x.ConstView(), y.View()); })
            .find("axis 3") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] { ArgMax{.axis = 2}(x.ConstView(), y.View()); })
            .find("do not match") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] {
          ArgMin{.axis = 1, .keepdims = false}(x.ConstView(), y.View());
        }).find("left out") != std::string::npos);
  TestTensor<float, Strided<>> empty({2, 0, 4});
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] { ArgMax{.axis = 1}(empty.ConstView(), y.View()); })
            .find("no element along axis 1") != std::string::npos);
  CHECK(y.Snapshot() == before);
}

}  // namespace
}  // namespace tensorops::test
