// Transpose and Reorder against the index formula on every target: every
// permutation of ranks 1-4 and some of rank 5-6, element sizes 1, 2, 4 and 8,
// sizes around the 16-lane tile (1, 3, 15, 16, 17, 33, 70), 2-4 channels (the
// interleave paths), padded pitches, sub-views, and bad arguments.
// Movement is exact: every element is compared bit for bit.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"
#include "support/expect_error.h"
#include "support/movement.h"
#include "support/targets.h"
#include "support/test_tensor.h"

namespace tensorops::test {
namespace {

template <class T>
void CheckTranspose(const Dims& src_dims, const Extents& perm, const Extents& src_pad,
                    const Extents& dst_pad) {
  INFO(kElementName<T> << " src dims " << src_dims << " perm " << perm << " src pad "
                       << src_pad << " dst pad " << dst_pad);
  TestTensor<T, Strided<>> src(src_dims, src_pad);
  FillWithIds(src);
  Dims dst_dims = src_dims;
  for (size_t k = 0; k < perm.size(); ++k) dst_dims[k] = src_dims[perm[k]];
  ForEachTarget([&](int64_t) {
    TestTensor<T, Strided<>> dst(dst_dims, dst_pad);
    Transpose{perm}(src.ConstView(), dst.View());
    CHECK(dst.OnlyElementsWritten());
    size_t failures = 0;
    ForEachIndex(dst_dims, [&](const Extents& i) {
      Extents j = src_dims;
      for (size_t k = 0; k < perm.size(); ++k) j[perm[k]] = i[k];
      if (BitsOf(dst.at(i)) != BitsOf(src.at(j)) && failures++ < 5) {
        FAIL_CHECK("dst " << i << " != src " << j);
      }
    });
    CHECK(failures == 0);
  });
}

template <class T>
void CheckEveryPermutation(const Dims& dims, const Extents& src_pad = {},
                           const Extents& dst_pad = {}) {
  std::vector<size_t> perm(dims.size());
  std::iota(perm.begin(), perm.end(), size_t{0});
  do {
    CheckTranspose<T>(dims, Extents::FromArray(perm.data(), perm.size()), src_pad, dst_pad);
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST_CASE("Transpose: every permutation of ranks 1-4, every element size", "[reorder]") {
  CheckEveryPermutation<uint8_t>({7});
  CheckEveryPermutation<float>({17, 33});
  CheckEveryPermutation<uint8_t>({33, 70});
  CheckEveryPermutation<hwy::float16_t>({16, 17});
  CheckEveryPermutation<int64_t>({15, 9});
  CheckEveryPermutation<float>({1, 5});
  CheckEveryPermutation<float>({5, 19, 23});
  CheckEveryPermutation<hwy::float16_t>({3, 2, 40});
  CheckEveryPermutation<int64_t>({4, 3, 17});
  CheckEveryPermutation<float>({2, 3, 17, 18});
  CheckEveryPermutation<uint8_t>({2, 4, 33, 5});
}

TEST_CASE("Transpose: padded pitches on both sides", "[reorder]") {
  CheckEveryPermutation<float>({3, 17, 20}, {0, 1, 3}, {0, 2, 1});
  CheckEveryPermutation<uint8_t>({2, 35, 18}, {1, 0, 5}, {0, 0, 7});
  CheckEveryPermutation<int64_t>({4, 1, 9}, {0, 2, 1}, {1, 1, 1});
}

TEST_CASE("Transpose: ranks 5 and 6, size-1 axes, the default reversed perm", "[reorder]") {
  CheckTranspose<float>({2, 3, 1, 4, 5}, {4, 0, 2, 3, 1}, {}, {});
  CheckTranspose<uint8_t>({2, 3, 2, 4, 3, 2}, {0, 3, 5, 1, 2, 4}, {}, {});
  CheckTranspose<hwy::float16_t>({1, 1, 1}, {2, 0, 1}, {}, {});
  // Empty perm = reversed axes (ONNX's default).
  TestTensor<float, Strided<>> src({3, 4, 5});
  FillWithIds(src);
  TestTensor<float, Strided<>> dst({5, 4, 3});
  Transpose{}(src.ConstView(), dst.View());
  CHECK(BitsOf(dst.at({4, 1, 2})) == BitsOf(src.at({2, 1, 4})));
}

template <class T, class LS, class LD>
void CheckReorder(const Dims& nchw, const Extents& src_pad = {}, const Extents& dst_pad = {}) {
  const auto in_layout = [](const Extents& i, auto layout) {
    return InLayout<decltype(layout)>(i[0], i[1], i[2], i[3]);
  };
  const Dims src_dims = in_layout(nchw, LS{}), dst_dims = in_layout(nchw, LD{});
  INFO(kElementName<T> << " " << LS::kName << " " << src_dims << " -> " << LD::kName << " "
                       << dst_dims << " pads " << src_pad << " " << dst_pad);
  TestTensor<T, LS> src(src_dims, src_pad);
  FillWithIds(src);
  ForEachTarget([&](int64_t) {
    TestTensor<T, LD> dst(dst_dims, dst_pad);
    Reorder{}(src.ConstView(), dst.View());
    CHECK(dst.OnlyElementsWritten());
    size_t failures = 0;
    ForEachIndex(nchw, [&](const Extents& i) {
      if (BitsOf(dst.at(in_layout(i, LD{}))) != BitsOf(src.at(in_layout(i, LS{}))) &&
          failures++ < 5) {
        FAIL_CHECK("element (n, c, h, w) = " << i);
      }
    });
    CHECK(failures == 0);
  });
}

template <class T>
void CheckReorderBothWays(const Dims& nchw, const Extents& pad = {}) {
  CheckReorder<T, Nchw, Nhwc>(nchw, pad, pad);
  CheckReorder<T, Nhwc, Nchw>(nchw, pad, pad);
}

TEST_CASE("Reorder NCHW <-> NHWC: channel counts around the tile and the interleaves",
          "[reorder]") {
  for (size_t c : {1, 2, 3, 4, 5, 15, 16, 17, 40}) {
    CheckReorderBothWays<float>({1, c, 7, 9});
    CheckReorderBothWays<uint8_t>({2, c, 3, 35});
  }
  CheckReorderBothWays<hwy::float16_t>({1, 3, 16, 16});
  CheckReorderBothWays<hwy::bfloat16_t>({1, 24, 5, 5});
  CheckReorderBothWays<int64_t>({1, 9, 4, 6});
  CheckReorderBothWays<int32_t>({3, 1, 1, 1});
  CheckReorderBothWays<float>({1, 64, 1, 1});
}

TEST_CASE("Reorder: padded pitches, a channel sub-view, a re-pitching copy", "[reorder]") {
  CheckReorderBothWays<float>({2, 17, 5, 6}, {0, 1, 2, 3});
  CheckReorderBothWays<uint8_t>({1, 3, 8, 37}, {0, 0, 1, 5});
  CheckReorder<float, Nchw, Nchw>({2, 5, 3, 7}, {0, 1, 0, 2}, {1, 0, 3, 0});
  CheckReorder<hwy::float16_t, Nhwc, Nhwc>({1, 3, 4, 4}, {}, {0, 2, 1, 1});

  // Channels 3..13 of a 20-channel NCHW tensor: a view whose batch stride skips data.
  TestTensor<float, Nchw> big({2, 20, 6, 7});
  FillWithIds(big);
  const auto part = big.ConstView().Channels(3, 10);
  ForEachTarget([&](int64_t) {
    TestTensor<float, Nhwc> dst({2, 6, 7, 10});
    Reorder{}(part, dst.View());
    CHECK(dst.OnlyElementsWritten());
    ForEachIndex({2, 10, 6, 7}, [&](const Extents& i) {
      REQUIRE(BitsOf(dst.at({i[0], i[2], i[3], i[1]})) ==
              BitsOf(part.at({i[0], i[1], i[2], i[3]})));
    });
  });
}

TEST_CASE("Transpose and Reorder reject bad arguments and leave dst untouched",
          "[reorder][errors]") {
  TestTensor<float, Strided<>> src({2, 3, 4}), dst({4, 3, 2}), wrong({4, 2, 3});
  FillWithIds(src);
  const auto before = dst.Snapshot();
  auto msg = ErrorOf(ErrorCode::kBadArgument,
                     [&] { Transpose{{2, 2, 0}}(src.ConstView(), dst.View()); });
  CHECK(msg.find("not a permutation") != std::string::npos);
  msg = ErrorOf(ErrorCode::kBadArgument, [&] { Transpose{{1, 0}}(src.ConstView(), dst.View()); });
  CHECK(msg.find("2 entries") != std::string::npos);
  msg = ErrorOf(ErrorCode::kShapeMismatch,
                [&] { Transpose{{2, 1, 0}}(src.ConstView(), wrong.View()); });
  CHECK(msg.find("dst dim[1] = 2") != std::string::npos);
  CHECK(dst.Snapshot() == before);

  // In place is refused: a transpose cannot run over its own input.
  std::vector<float> buffer(24);
  TensorView<float, Strided<>> a(buffer.data(), {2, 3, 4});
  TensorView<float, Strided<>> b(buffer.data(), {4, 3, 2});
  ErrorOf(ErrorCode::kAliasing, [&] { Transpose{}(TensorView<const float, Strided<>>(a), b); });

  TestTensor<float, Nchw> x({1, 3, 4, 5});
  TestTensor<float, Nhwc> y({1, 4, 5, 2});
  msg = ErrorOf(ErrorCode::kShapeMismatch, [&] { Reorder{}(x.ConstView(), y.View()); });
  CHECK(msg.find("C is 3 in src") != std::string::npos);
}

}  // namespace
}  // namespace tensorops::test
