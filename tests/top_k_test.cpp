// TopK against a reference sort written from ONNX's definition: every axis
// of ranks 1-3, k from 0 to the axis's size, largest and smallest, ties
// (the lower index first), NaN and infinities (NaN above every number),
// float, float16, int8 and int32, padded pitches; and the errors.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"
#include "support/expect_error.h"
#include "support/random.h"
#include "support/reference_convert.h"
#include "support/test_tensor.h"

namespace tensorops::test {
namespace {

template <class T>
T TopKValue(Rng& rng, int data) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<int>(rng() % 9) - 4);  // many ties
  } else {
    if (data == 0) return MixedMagnitude<T>(rng);
    const uint64_t kind = rng() % 8;
    if (data == 2 && kind == 0) return RefConvert<T>(std::numeric_limits<float>::quiet_NaN());
    if (data == 2 && kind == 1) return RefConvert<T>(std::numeric_limits<float>::infinity());
    if (data == 2 && kind == 2) return RefConvert<T>(-std::numeric_limits<float>::infinity());
    return RefConvert<T>(static_cast<float>(rng() % 5) - 2.0f);  // ties
  }
}

template <class T>
void CheckTopK(const Dims& dims, int axis, size_t k, bool largest, int data, uint64_t seed) {
  const size_t a = static_cast<size_t>(axis < 0 ? axis + static_cast<int>(dims.size()) : axis);
  Dims out_dims = dims;
  out_dims[a] = k;
  INFO("TopK " << kElementName<T> << " dims " << dims << " axis " << axis << " k " << k
               << (largest ? " largest" : " smallest") << " data " << data);
  Rng rng(seed);
  Extents pad = dims;
  for (size_t& p : pad) p = 1;
  TestTensor<T, Strided<>> x(dims, pad);
  x.Fill([&](const Extents&) { return TopKValue<T>(rng, data); });
  TestTensor<T, Strided<>> values(out_dims, pad);
  TestTensor<int64_t, Strided<>> indices(out_dims);
  TopK{.k = k, .axis = axis, .largest = largest}(x.ConstView(), values.View(), indices.View());
  CHECK(values.OnlyElementsWritten());
  CHECK(indices.OnlyElementsWritten());
  size_t failures = 0;
  ForEachIndex(dims, [&](const Extents& i) {
    if (i[a] != 0) return;
    // The row sorted by (NaN first for largest / last for smallest, value, index).
    std::vector<std::tuple<int, double, size_t>> keys;
    Extents at = i;
    for (at[a] = 0; at[a] < dims[a]; ++at[a]) {
      const double v = RefToFloat(x.at(at));
      const bool nan = std::isnan(v);
      keys.emplace_back(largest ? (nan ? 0 : 1) : (nan ? 1 : 0), nan ? 0.0 : (largest ? -v : v), at[a]);
    }
    std::sort(keys.begin(), keys.end());
    for (size_t j = 0; j < k; ++j) {
      at[a] = j;
      const size_t want = std::get<2>(keys[j]);
      Extents src = i;
      src[a] = want;
      const double got_v = RefToFloat(values.at(at)), want_v = RefToFloat(x.at(src));
      const bool ok = indices.at(at) == static_cast<int64_t>(want) &&
                      (got_v == want_v || (std::isnan(got_v) && std::isnan(want_v)));
      if (!ok && failures++ < 5) {
        FAIL_CHECK("row " << i << " place " << j << ": got index " << indices.at(at) << " value " << got_v
                          << ", want " << want << " value " << want_v);
      }
    }
  });
  CHECK(failures == 0);
}

TEST_CASE("TopK: every axis, k, order, ties and NaN", "[reduce][topk]") {
  uint64_t seed = 1;
  const std::vector<Dims> shapes = {{1}, {7}, {1000}, {3, 17}, {4, 1, 6}, {2, 5, 3}};
  for (const Dims& dims : shapes) {
    for (int axis = -static_cast<int>(dims.size()); axis < static_cast<int>(dims.size()); ++axis) {
      const size_t size = dims[static_cast<size_t>(axis < 0 ? axis + static_cast<int>(dims.size()) : axis)];
      for (size_t k : {size_t{0}, size_t{1}, std::min<size_t>(3, size), size}) {
        for (bool largest : {true, false}) {
          for (int data : {0, 1, 2}) {
            CheckTopK<float>(dims, axis, k, largest, data, seed++);
            if (data == 2) CheckTopK<hwy::float16_t>(dims, axis, k, largest, data, seed++);
          }
          CheckTopK<int8_t>(dims, axis, k, largest, 1, seed++);
          CheckTopK<int32_t>(dims, axis, k, largest, 1, seed++);
        }
      }
    }
  }
}

TEST_CASE("TopK rejects bad arguments and writes nothing", "[reduce][topk]") {
  TestTensor<float, Strided<>> x({2, 5}), values({2, 3}), wrong({2, 4});
  TestTensor<int64_t, Strided<>> indices({2, 3});
  const auto before = values.Snapshot();
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          TopK{.k = 6}(x.ConstView(), values.View(), indices.View());
        }).find("k = 6 exceeds the axis's 5") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kBadArgument, [&] {
          TopK{.k = 3, .axis = 2}(x.ConstView(), values.View(), indices.View());
        }).find("axis 2") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] {
          TopK{.k = 3}(x.ConstView(), wrong.View(), indices.View());
        }).find("with dim[1] = k = 3") != std::string::npos);
  CHECK(ErrorOf(ErrorCode::kAliasing, [&] {
          TopK{.k = 3}(x.ConstView(), TensorView<float, Strided<>>(x.View().data(), {2, 3}), indices.View());
        }).find("overlap") != std::string::npos);
  CHECK(values.Snapshot() == before);
}

}  // namespace
}  // namespace tensorops::test
