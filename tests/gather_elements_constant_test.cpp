// GatherElementsConstant gives GatherElements' results (itself tested against
// the reference) for general and slice-pattern indices, on every target, and
// checks the indices once, at construction.
#include <cstdint>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"
#include "support/random.h"
#include "support/targets.h"
#include "support/test_tensor.h"

namespace tensorops::test {
namespace {

template <class T, class Index>
void CheckAgainstGatherElements(const Dims& data_dims, const Dims& index_dims, int axis,
                                bool slice_pattern, const Extents& out_pad) {
  INFO("data " << data_dims << " indices " << index_dims << " axis " << axis
                << (slice_pattern ? " slices" : " general"));
  Rng rng(42);
  const size_t a = static_cast<size_t>(axis < 0 ? axis + static_cast<int>(data_dims.size()) : axis);
  const auto s = static_cast<int64_t>(data_dims[a]);
  TestTensor<T, Strided<>> data(data_dims, {});
  data.Fill([&](const Extents&) { return RandomValue<T>(rng); });
  TestTensor<Index, Strided<>> indices(index_dims, {});
  std::vector<Index> per_slice(1 << 12);
  for (auto& k : per_slice) k = static_cast<Index>(std::uniform_int_distribution<int64_t>(-s, s - 1)(rng));
  indices.Fill([&](const Extents& i) {
    if (!slice_pattern) return static_cast<Index>(std::uniform_int_distribution<int64_t>(-s, s - 1)(rng));
    size_t slice = 0;  // the same index across the dims after the axis
    for (size_t d = 0; d <= a; ++d) slice = slice * index_dims[d] + i[d];
    return per_slice[slice % per_slice.size()];
  });
  const GatherElementsConstant<Index> gather(data_dims, indices.ConstView(), axis);
  using Pattern = typename GatherElementsConstant<Index>::Pattern;
  CHECK(gather.pattern() == (slice_pattern ? Pattern::kSlices : Pattern::kGeneral));
  // Kept as int32 whatever Index is: the general pattern keeps every index.
  if (!slice_pattern) CHECK(gather.InternalBufferSize() >= indices.ConstView().ElementCount() * sizeof(int32_t));
  CHECK(gather.InternalBufferSize() > 0);
  ForEachTarget([&](int64_t) {
    TestTensor<T, Strided<>> want(index_dims, out_pad), got(index_dims, out_pad);
    GatherElements<Index>{.axis = axis}(data.ConstView(), indices.ConstView(), want.View());
    gather(data.ConstView(), got.View());
    CHECK(got.OnlyElementsWritten());
    size_t mismatches = 0;
    ForEachIndex(index_dims, [&](const Extents& i) {
      if (!SameValue(got.at(i), want.at(i)) && mismatches++ < 3) FAIL_CHECK("out" << i << " differs");
    });
    CHECK(mismatches == 0);
  });
}

TEST_CASE("GatherElementsConstant matches GatherElements", "[gather]") {
  CheckAgainstGatherElements<float, int32_t>({4, 9, 33}, {4, 7, 33}, 1, false, {0, 1, 3});
  CheckAgainstGatherElements<float, int32_t>({4, 9, 33}, {4, 7, 33}, 1, true, {0, 1, 3});
  CheckAgainstGatherElements<int64_t, int64_t>({3, 5, 4, 6}, {2, 5, 4, 5}, 1, true, {});
  CheckAgainstGatherElements<uint8_t, int64_t>({6, 70}, {11, 70}, 0, true, {0, 5});
  CheckAgainstGatherElements<hwy::float16_t, int32_t>({6, 70}, {6, 40}, -1, false, {});
  CheckAgainstGatherElements<float, int64_t>({4, 9, 33}, {4, 7, 33}, 1, false, {0, 1, 3});
  CheckAgainstGatherElements<int64_t, int64_t>({3, 17, 5}, {3, 20, 5}, 1, false, {});
}

TEST_CASE("GatherElementsConstant checks indices once, at construction", "[gather]") {
  const std::vector<int32_t> bad = {0, 1, 5, 2};
  const TensorView<const int32_t, Strided<2>> indices(bad.data(), {2, 2});
  try {
    GatherElementsConstant<int32_t> gather({3, 2}, indices, 0);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kIndexOutOfRange);
    CHECK(std::string(e.what()).find("index 5 at position (1, 0)") != std::string::npos);
  }
  const std::vector<int32_t> good = {0, 1, -1, 2};
  const GatherElementsConstant<int32_t> gather({3, 2}, TensorView<const int32_t, Strided<2>>(good.data(), {2, 2}), 0);
  std::vector<float> data(6), out(4);
  try {
    gather(TensorView<const float, Strided<2>>(data.data(), {2, 3}),
           TensorView<float, Strided<2>>(out.data(), {2, 2}));
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kShapeMismatch);
  }
}

}  // namespace
}  // namespace tensorops::test
