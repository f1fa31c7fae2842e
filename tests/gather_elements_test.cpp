// GatherElements against a scalar reference written from the formula in
// tensorops/ops/gather_elements.h, on every target, for element sizes 1, 2, 4
// and 8, both index types, every bounds policy, negative indices, padded and
// windowed views, and the errors.
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
  Dims indices;  // same rank; only the axis may exceed data's dim
  int axis;
  Extents data_pad, indices_pad, out_pad;
};

std::vector<Case> Cases() {
  return {
      {{9}, {4}, 0, {}, {}, {}},
      {{5}, {37}, -1, {}, {}, {}},
      {{3, 3}, {2, 3}, 0, {}, {}, {}},
      {{3, 7}, {3, 19}, 1, {}, {}, {}},
      {{4, 1, 65}, {4, 33, 65}, 1, {}, {}, {}},   // Simd's form, axis size 1
      {{2, 17, 13}, {2, 5, 13}, 1, {0, 0, 3}, {0, 1, 2}, {0, 0, 5}},
      {{3, 6, 5, 7}, {2, 6, 4, 7}, 0, {0, 0, 0, 1}, {}, {0, 1, 0, 2}},
      {{2, 3, 5, 70}, {2, 3, 5, 31}, 3, {0, 0, 1, 2}, {0, 0, 0, 3}, {}},
      {{2, 3, 5, 70}, {1, 2, 4, 66}, -2, {}, {0, 0, 0, 1}, {0, 1, 0, 0}},
      {{4, 4}, {0, 4}, 0, {}, {}, {}},             // empty indices
  };
}

template <class T, class Index>
void CheckCase(const Case& c, Policy policy, uint64_t seed) {
  const Bounds bounds = policy.bounds;
  Rng rng(seed);
  const size_t axis = static_cast<size_t>(c.axis < 0 ? c.axis + static_cast<int>(c.data.size()) : c.axis);
  const auto s = static_cast<int64_t>(c.data[axis]);
  TestTensor<T, Strided<>> data(c.data, c.data_pad);
  data.Fill([&](const Extents&) { return RandomValue<T>(rng); });
  TestTensor<Index, Strided<>> indices(c.indices, c.indices_pad);
  indices.Fill([&](const Extents&) { return RandomIndex<Index>(rng, s, policy); });

  ForEachTarget([&](int64_t) {
    TestTensor<T, Strided<>> out(c.indices, c.out_pad);
    GatherElements<Index>{.axis = c.axis, .bounds = bounds}(data.ConstView(), indices.ConstView(),
                                                             out.View());
    CHECK(out.OnlyElementsWritten());
    size_t mismatches = 0;
    ForEachIndex(c.indices, [&](const Extents& i) {
      int64_t k = indices.at(i);
      bool zero = false;
      if (bounds == Bounds::kClamp) k = std::min(std::max(k, -s), s - 1);
      if (bounds == Bounds::kZero) zero = k < -s || k >= s;
      Extents from = i;
      from[axis] = static_cast<size_t>(k < 0 ? k + s : k);
      const T want = zero ? T{} : data.at(from);
      if (!SameValue(out.at(i), want) && mismatches++ < 5) {
        FAIL_CHECK("out" << i << " from index " << indices.at(i) << " differs");
      }
    });
    CHECK(mismatches == 0);
  });
}

template <class T, class Index>
void CheckAllCases() {
  uint64_t seed = 100;
  for (const Policy policy : kPolicies) {
    for (const Case& c : Cases()) {
      INFO(kElementName<T> << " data " << c.data << " indices " << c.indices << " ("
                           << kElementName<Index> << ") axis " << c.axis << " bounds "
                           << PolicyName(policy));
      CheckCase<T, Index>(c, policy, seed++);
    }
  }
}

TEST_CASE("GatherElements, 4- and 8-byte elements", "[gather]") {
  CheckAllCases<float, int32_t>();
  CheckAllCases<float, int64_t>();
  CheckAllCases<int64_t, int32_t>();
  CheckAllCases<int64_t, int64_t>();
  CheckAllCases<int32_t, int64_t>();
}

TEST_CASE("GatherElements, 1- and 2-byte elements", "[gather]") {
  CheckAllCases<uint8_t, int32_t>();
  CheckAllCases<int8_t, int64_t>();
  CheckAllCases<hwy::float16_t, int32_t>();
  CheckAllCases<hwy::bfloat16_t, int64_t>();
}

TEST_CASE("GatherElements: the Simd example and ONNX's gather_elements_0", "[gather]") {
  // ONNX: data [[1, 2], [3, 4]], indices [[0, 0], [1, 0]], axis 1 -> [[1, 1], [4, 3]]
  const float data[4] = {1, 2, 3, 4};
  const int64_t idx[4] = {0, 0, 1, 0};
  float out[4] = {};
  GatherElements<int64_t>{.axis = 1}(TensorView<const float, Strided<2>>(data, {2, 2}),
                                     TensorView<const int64_t, Strided<2>>(idx, {2, 2}),
                                     TensorView<float, Strided<2>>(out, {2, 2}));
  CHECK(out[0] == 1);
  CHECK(out[1] == 1);
  CHECK(out[2] == 4);
  CHECK(out[3] == 3);
}

TEST_CASE("GatherElements errors leave the output untouched", "[gather]") {
  TestTensor<float, Strided<>> data({3, 4});
  data.Fill([](const Extents& i) { return static_cast<float>(i[0] * 10 + i[1]); });
  TestTensor<int32_t, Strided<>> indices({3, 4});
  indices.Fill([](const Extents& i) { return static_cast<int32_t>(i[1] % 3); });
  TestTensor<float, Strided<>> out({3, 4});
  const auto before = out.Snapshot();
  const auto run = [&](GatherElements<int32_t> op) {
    return [&, op] { op(data.ConstView(), indices.ConstView(), out.View()); };
  };

  indices.at({2, 1}) = 3;  // axis 0 has size 3
  const std::string message = ErrorOf(ErrorCode::kIndexOutOfRange, run({.axis = 0}));
  CHECK(message.find("index 3 at position (2, 1)") != std::string::npos);
  CHECK(message.find("outside [-3, 2]") != std::string::npos);
  indices.at({2, 1}) = -4;
  CHECK(ErrorOf(ErrorCode::kIndexOutOfRange, run({.axis = 0})).find("index -4") != std::string::npos);
  CHECK(out.Snapshot() == before);
  indices.at({2, 1}) = 0;

  CHECK(ErrorOf(ErrorCode::kBadArgument, run({.axis = 2})).find("axis 2 is outside [-2, 1]") !=
        std::string::npos);
  TestTensor<float, Strided<>> wide({3, 5});
  ErrorOf(ErrorCode::kShapeMismatch, [&] {
    GatherElements<int32_t>{.axis = 0}(data.ConstView(), indices.ConstView(), wide.View());
  });
  TestTensor<int32_t, Strided<>> too_wide({2, 5});
  TestTensor<float, Strided<>> out_wide({2, 5});
  CHECK(ErrorOf(ErrorCode::kShapeMismatch, [&] {
          GatherElements<int32_t>{.axis = 0}(data.ConstView(), too_wide.ConstView(),
                                             out_wide.View());
        }).find("indices dim[1] = 5 exceeds data dim[1] = 4") != std::string::npos);
  TestTensor<int32_t, Strided<>> rank3({3, 4, 1});
  ErrorOf(ErrorCode::kShapeMismatch, [&] {
    GatherElements<int32_t>{}(data.ConstView(), rank3.ConstView(), out.View());
  });
  ErrorOf(ErrorCode::kAliasing, [&] {
    auto alias = TensorView<float, Strided<>>(const_cast<float*>(data.ConstView().data()), {3, 4});
    GatherElements<int32_t>{}(data.ConstView(), indices.ConstView(), alias);
  });
  CHECK(out.Snapshot() == before);
}

TEST_CASE("GatherElements from an empty axis", "[gather]") {
  std::vector<float> none;
  const int32_t idx[2] = {0, -1};
  float out[2] = {5, 5};
  const TensorView<const float, Strided<1>> data(none.data(), {0});
  const TensorView<const int32_t, Strided<1>> indices(idx, {2});
  ErrorOf(ErrorCode::kIndexOutOfRange, [&] {
    GatherElements<int32_t>{.bounds = Bounds::kClamp}(data, indices, TensorView<float, Strided<1>>(out, {2}));
  });
  CHECK(out[0] == 5);
  GatherElements<int32_t>{.bounds = Bounds::kZero}(data, indices, TensorView<float, Strided<1>>(out, {2}));
  CHECK(out[0] == 0);
  CHECK(out[1] == 0);
  // Rank 3, a null data pointer, rows at non-zero offsets: the kernel must
  // not form pointers into the empty data (UBSan caught that; fuzz_gather).
  std::vector<int64_t> idx3(12, 1);
  const TensorView<const float, Strided<>> empty(nullptr, {2, 0, 3});
  ForEachTarget([&](int64_t) {
    std::vector<float> out3(12, 5.0f);
    GatherElements<int64_t>{.axis = 1, .bounds = Bounds::kZero}(
        empty, TensorView<const int64_t, Strided<>>(idx3.data(), {2, 2, 3}),
        TensorView<float, Strided<>>(out3.data(), {2, 2, 3}));
    for (float v : out3) CHECK(v == 0.0f);
  });
}

}  // namespace
}  // namespace tensorops::test
