// GatherND against a scalar reference written from the formula in
// tensorops/ops/gather_nd.h, on every target: batch_dims 0-2, tuple sizes
// 1..r-b, element sizes 1/4/8, both index types, every bounds policy, padded
// views, ONNX's examples and the errors.
#include <cstdint>
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

struct Case {
  Dims data;
  Dims indices;
  size_t batch_dims;
  Extents data_pad, out_pad;
};

Dims OutDims(const Case& c) {
  const size_t q = c.indices.size(), m = c.indices[q - 1], b = c.batch_dims;
  std::vector<size_t> dims(c.indices.begin(), c.indices.begin() + (q - 1));
  dims.insert(dims.end(), c.data.begin() + b + m, c.data.end());
  if (dims.empty()) dims.push_back(1);
  return Extents::FromArray(dims.data(), dims.size());
}

template <class T, class Index>
void CheckCase(const Case& c, Bounds bounds, uint64_t seed) {
  Rng rng(seed);
  const size_t q = c.indices.size(), m = c.indices[q - 1], b = c.batch_dims;
  TestTensor<T, Strided<>> data(c.data, c.data_pad);
  data.Fill([&](const Extents&) { return RandomValue<T>(rng); });
  TestTensor<Index, Strided<>> indices(c.indices, {});
  const bool beyond = bounds == Bounds::kClamp || bounds == Bounds::kZero;
  indices.Fill([&](const Extents& i) {
    const auto s = static_cast<int64_t>(c.data[b + i[q - 1]]);
    const int64_t spread = beyond ? 2 * s + 1 : s;
    return static_cast<Index>(std::uniform_int_distribution<int64_t>(-spread, spread - 1)(rng));
  });
  const Dims out_dims = OutDims(c);
  const bool scalar = q - 1 + c.data.size() - b - m == 0;

  ForEachTarget([&](int64_t) {
    TestTensor<T, Strided<>> out(out_dims, c.out_pad);
    GatherNd<Index>{.batch_dims = b, .bounds = bounds}(data.ConstView(), indices.ConstView(),
                                                        out.View());
    CHECK(out.OnlyElementsWritten());
    size_t mismatches = 0;
    ForEachIndex(out_dims, [&](const Extents& o) {
      std::vector<size_t> from(o.begin(), o.begin() + b);  // batch coordinates
      bool zero = false;
      for (size_t t = 0; t < m; ++t) {
        std::vector<size_t> at(o.begin(), o.begin() + (scalar ? 0 : q - 1));
        at.push_back(t);
        int64_t k = indices.at(Extents::FromArray(at.data(), at.size()));
        const auto s = static_cast<int64_t>(c.data[b + t]);
        if (bounds == Bounds::kClamp) k = std::min(std::max(k, -s), s - 1);
        if (k < -s || k >= s) zero = true;
        from.push_back(static_cast<size_t>(k < 0 ? k + s : k));
      }
      if (!scalar) from.insert(from.end(), o.begin() + (q - 1), o.end());
      const T want = zero ? T{} : data.at(Extents::FromArray(from.data(), from.size()));
      if (!SameValue(out.at(o), want) && mismatches++ < 5) FAIL_CHECK("out" << o << " differs");
    });
    CHECK(mismatches == 0);
  });
}

std::vector<Case> Cases() {
  return {
      {{2, 2}, {2, 2}, 0, {}, {}},              // ONNX gathernd_example_int32
      {{2, 2}, {2, 1}, 0, {}, {}},              // whole rows
      {{2, 2, 2}, {2, 1, 2}, 0, {}, {}},        // ONNX gathernd_example_float32
      {{2, 2, 2}, {2, 1}, 1, {}, {}},           // ONNX batch_dims = 1
      {{5, 7, 33}, {3, 4, 2}, 0, {0, 1, 3}, {0, 0, 2}},
      {{3, 5, 7, 9}, {3, 6, 2}, 1, {0, 0, 1, 0}, {0, 1, 0, 4}},
      {{3, 4, 7, 9}, {3, 4, 5, 1}, 2, {}, {}},
      {{4, 6}, {2}, 0, {}, {}},                 // a scalar result
      {{4, 6}, {0, 2}, 0, {}, {}},              // no tuples
  };
}

template <class T, class Index>
void CheckAllCases() {
  uint64_t seed = 900;
  for (Bounds bounds : {Bounds::kError, Bounds::kUnchecked, Bounds::kClamp, Bounds::kZero}) {
    for (const Case& c : Cases()) {
      INFO(kElementName<T> << " data " << c.data << " indices " << c.indices << " ("
                           << kElementName<Index> << ") batch_dims " << c.batch_dims
                           << " bounds " << BoundsName(bounds));
      CheckCase<T, Index>(c, bounds, seed++);
    }
  }
}

TEST_CASE("GatherND, every element size and index type", "[gather]") {
  CheckAllCases<float, int64_t>();
  CheckAllCases<int32_t, int32_t>();
  CheckAllCases<uint8_t, int64_t>();
  CheckAllCases<int64_t, int32_t>();
}

TEST_CASE("GatherND errors leave the output untouched", "[gather]") {
  TestTensor<float, Strided<>> data({2, 3, 4});
  TestTensor<int64_t, Strided<>> indices({2, 2});
  indices.Fill([](const Extents& i) { return static_cast<int64_t>(i[0] + i[1]); });
  TestTensor<float, Strided<>> out({2, 4});
  const auto before = out.Snapshot();
  const auto run = [&](GatherNd<int64_t> op) {
    return [&, op] { op(data.ConstView(), indices.ConstView(), out.View()); };
  };
  indices.at({1, 0}) = 2;  // data dim 0 has size 2
  CHECK(ErrorOf(ErrorCode::kIndexOutOfRange, run({})).find("index 2 at position (1, 0)") !=
        std::string::npos);
  indices.at({1, 0}) = 1;
  ErrorOf(ErrorCode::kBadArgument, run({.batch_dims = 2}));
  ErrorOf(ErrorCode::kShapeMismatch, run({.batch_dims = 1}));
  CHECK(out.Snapshot() == before);
}

}  // namespace
}  // namespace tensorops::test
