// Gather along an axis against a scalar reference written from the formula in
// tensorops/ops/gather.h, on every target, for element sizes 1, 2, 4 and 8,
// both index types, every bounds policy, index ranks 1-3, padded views, and
// the errors.
#include <cstdint>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "support/bounds_policy.h"
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
  int axis;
  Extents data_pad, indices_pad, out_pad;
};

Dims OutDims(const Dims& data, const Dims& indices, size_t a) {
  std::vector<size_t> dims(data.begin(), data.begin() + a);
  dims.insert(dims.end(), indices.begin(), indices.end());
  dims.insert(dims.end(), data.begin() + a + 1, data.end());
  return Extents::FromArray(dims.data(), dims.size());
}

std::vector<Case> Cases() {
  return {
      {{8}, {5}, 0, {}, {}, {}},
      {{3, 2}, {2, 2}, 0, {}, {}, {}},                      // ONNX gather_0
      {{3, 3}, {1, 2}, 1, {}, {}, {}},                      // ONNX gather_1
      {{100, 64}, {37}, 0, {}, {}, {}},                     // rows of 64 floats
      {{20, 3}, {16}, 0, {}, {}, {}},                       // no slice prefetched ...
      {{20, 3}, {17}, 0, {}, {}, {}},                       // ... one (16 ahead)
      {{2, 40, 3, 5}, {33}, 1, {0, 0, 1, 2}, {}, {0, 3}},   // padded slices, prefetched
      {{5, 17}, {3, 4}, -1, {0, 3}, {0, 1}, {0, 0, 2}},     // scalar slices, padded
      {{2, 7, 3, 5}, {4}, 1, {0, 0, 1, 2}, {3}, {0, 1, 0, 3}},
      {{2, 7, 3, 5}, {2, 3, 2}, 2, {}, {0, 1, 0}, {0, 0, 0, 1, 0, 1}},
      {{1, 9, 1}, {6}, 1, {}, {}, {}},
      {{4, 6}, {0}, 0, {}, {}, {}},                         // empty indices
  };
}

template <class T, class Index>
void CheckCase(const Case& c, Policy policy, uint64_t seed) {
  const Bounds bounds = policy.bounds;
  Rng rng(seed);
  const size_t a = static_cast<size_t>(c.axis < 0 ? c.axis + static_cast<int>(c.data.size()) : c.axis);
  const auto s = static_cast<int64_t>(c.data[a]);
  const size_t q = c.indices.size();
  TestTensor<T, Strided<>> data(c.data, c.data_pad);
  data.Fill([&](const Extents&) { return RandomValue<T>(rng); });
  TestTensor<Index, Strided<>> indices(c.indices, c.indices_pad);
  indices.Fill([&](const Extents&) { return RandomIndex<Index>(rng, s, policy); });
  const Dims out_dims = OutDims(c.data, c.indices, a);

  ForEachTarget([&](int64_t) {
    TestTensor<T, Strided<>> out(out_dims, c.out_pad);
    Gather<Index>{.axis = c.axis, .bounds = bounds}(data.ConstView(), indices.ConstView(),
                                                     out.View());
    CHECK(out.OnlyElementsWritten());
    size_t mismatches = 0;
    ForEachIndex(out_dims, [&](const Extents& o) {
      Extents j = Extents::FromArray(o.begin() + a, q);
      int64_t k = indices.at(j);
      bool zero = false;
      if (bounds == Bounds::kClamp) k = std::min(std::max(k, -s), s - 1);
      if (bounds == Bounds::kZero) zero = k < -s || k >= s;
      std::vector<size_t> from(o.begin(), o.begin() + a);
      from.push_back(static_cast<size_t>(k < 0 ? k + s : k));
      from.insert(from.end(), o.begin() + a + q, o.end());
      const T want = zero ? T{} : data.at(Extents::FromArray(from.data(), from.size()));
      if (!SameValue(out.at(o), want) && mismatches++ < 5) {
        FAIL_CHECK("out" << o << " from index " << indices.at(j) << " differs");
      }
    });
    CHECK(mismatches == 0);
  });
}

template <class T, class Index>
void CheckAllCases() {
  uint64_t seed = 500;
  for (const Policy policy : kPolicies) {
    for (const Case& c : Cases()) {
      INFO(kElementName<T> << " data " << c.data << " indices " << c.indices << " ("
                           << kElementName<Index> << ") axis " << c.axis << " bounds "
                           << PolicyName(policy));
      CheckCase<T, Index>(c, policy, seed++);
    }
  }
}

TEST_CASE("Gather along an axis, every element size and index type", "[gather]") {
  CheckAllCases<float, int64_t>();
  CheckAllCases<float, int32_t>();
  CheckAllCases<uint8_t, int32_t>();
  CheckAllCases<hwy::float16_t, int64_t>();
  CheckAllCases<int64_t, int32_t>();
}

TEST_CASE("Gather errors leave the output untouched", "[gather]") {
  TestTensor<float, Strided<>> data({4, 3});
  data.Fill([](const Extents& i) { return static_cast<float>(i[0] * 10 + i[1]); });
  TestTensor<int64_t, Strided<>> indices({2, 2});
  indices.Fill([](const Extents& i) { return static_cast<int64_t>(i[1]); });
  TestTensor<float, Strided<>> out({2, 2, 3});
  const auto before = out.Snapshot();
  const auto gather = [&](int axis) {
    return [&, axis] { Gather<int64_t>{.axis = axis}(data.ConstView(), indices.ConstView(), out.View()); };
  };
  indices.at({1, 0}) = 4;
  CHECK(ErrorOf(ErrorCode::kIndexOutOfRange, gather(0)).find("index 4 at position (1, 0)") !=
        std::string::npos);
  indices.at({1, 0}) = -5;
  CHECK(ErrorOf(ErrorCode::kIndexOutOfRange, gather(0)).find("outside [-4, 3]") != std::string::npos);
  CHECK(out.Snapshot() == before);
  indices.at({1, 0}) = 0;
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, gather(1)).find("out dim[0] = 2 but data gives 4") !=
        std::string::npos);
  ErrorOf(ErrorCode::kBadArgument, gather(-3));
  TestTensor<float, Strided<>> wrong_rank({2, 3});
  ErrorOf(ErrorCode::kShapeMismatch, [&] {
    Gather<int64_t>{}(data.ConstView(), indices.ConstView(), wrong_rank.View());
  });
  CHECK(out.Snapshot() == before);
  Gather<int64_t>{}(data.ConstView(), indices.ConstView(), out.View());
  CHECK(out.at({1, 1, 2}) == 12.0f);
}

}  // namespace
}  // namespace tensorops::test
