// Data-movement ops, gathers and NV12 on an executor: the serial bytes on
// every target, pools of 1, 2 and 7 workers, odd sizes and padded pitches.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <tensorops/api.h>

#include "parallel/parallel_support.h"
#include "support/catch.h"
#include "support/movement.h"
#include "support/random.h"
#include "support/test_tensor.h"

namespace tensorops::test {
namespace {

template <class T, class L>
TestTensor<T, L> Ids(const Dims& dims, const Extents& pad = {}) {
  TestTensor<T, L> t(dims, pad);
  FillWithIds(t);
  return t;
}

TEST_CASE("Parallel: Transpose and Reorder (tiles, rows, elements)", "[parallel]") {
  // NCHW -> NHWC with N = 1 (the tile axis is split), N = 3 (images split),
  // odd channel counts, padded pitches on both sides.
  for (const Dims& nchw : {Dims{1, 19, 7, 33}, Dims{3, 4, 5, 17}, Dims{1, 2, 3, 1000}}) {
    INFO("NCHW " << nchw);
    auto src = Ids<float, Nchw>(nchw, {0, 1, 0, 3});
    ExpectMatchesSerial([&](auto&& executor) {
      TestTensor<float, Nhwc> dst({nchw[0], nchw[2], nchw[3], nchw[1]}, {0, 0, 1, 2});
      Reorder{}(src.ConstView(), dst.View(), executor);
      return BytesOf(dst);
    });
    auto back = Ids<hwy::float16_t, Nhwc>({nchw[0], nchw[2], nchw[3], nchw[1]});
    ExpectMatchesSerial([&](auto&& executor) {
      TestTensor<hwy::float16_t, Nchw> dst(nchw, {0, 0, 2, 1});
      Reorder{}(back.ConstView(), dst.View(), executor);
      return BytesOf(dst);
    });
  }
  // One long contiguous row (rank 1 after merging) and a stride-2 gather.
  auto row = Ids<uint8_t, Strided<>>({3, 5001});
  ExpectMatchesSerial([&](auto&& executor) {
    TestTensor<uint8_t, Strided<>> dst({3, 5001});
    Transpose{.perm = {0, 1}}(row.ConstView(), dst.View(), executor);
    return BytesOf(dst);
  });
  auto cube = Ids<int64_t, Strided<>>({6, 5, 7});
  ExpectMatchesSerial([&](auto&& executor) {
    TestTensor<int64_t, Strided<>> dst({7, 6, 5}, {0, 1, 0});
    Transpose{.perm = {2, 0, 1}}(cube.ConstView(), dst.View(), executor);
    return BytesOf(dst);
  });
}

template <int kType, class L>
void ShuffleCase(TestTensor<float, L>& s0, TestTensor<float, L>& s1, const Dims& d0,
                 const Dims& d1) {
  ExpectMatchesSerial([&](auto&& executor) {
    TestTensor<float, L> y0(d0), y1(d1, {0, 0, 1, 0});
    ShuffleLayer<kType>{}(s0.ConstView(), s1.ConstView(), y0.View(), y1.View(), executor);
    return BytesOf(y0, y1);
  });
}

TEST_CASE("Parallel: ChannelShuffle, ShuffleLayer, DepthToSpace, SpaceToDepth", "[parallel]") {
  auto nchw = Ids<float, Nchw>({2, 12, 5, 7}, {0, 0, 1, 1});
  auto nhwc = Ids<hwy::float16_t, Nhwc>({1, 9, 5, 12}, {0, 1, 0, 2});
  ExpectMatchesSerial([&](auto&& executor) {
    TestTensor<float, Nchw> dst({2, 12, 5, 7});
    ChannelShuffle{.groups = 3}(nchw.ConstView(), dst.View(), executor);
    return BytesOf(dst);
  });
  ExpectMatchesSerial([&](auto&& executor) {
    TestTensor<hwy::float16_t, Nhwc> dst({1, 9, 5, 12}, {0, 0, 1, 0});
    ChannelShuffle{.groups = 4}(nhwc.ConstView(), dst.View(), executor);
    return BytesOf(dst);
  });
  ExpectMatchesSerial([&](auto&& executor) {
    TestTensor<float, Nchw> dst({2, 3, 10, 14});
    DepthToSpace{.blocksize = 2, .mode = DepthOrder::kCrd}(nchw.ConstView(), dst.View(), executor);
    return BytesOf(dst);
  });
  auto space = Ids<uint8_t, Nhwc>({1, 10, 14, 3});
  ExpectMatchesSerial([&](auto&& executor) {
    TestTensor<uint8_t, Nhwc> dst({1, 5, 7, 12});
    SpaceToDepth{.blocksize = 2}(space.ConstView(), dst.View(), executor);
    return BytesOf(dst);
  });
  // ShuffleLayer, both types and layouts, channel counts 6 + 10.
  for (size_t n : {1, 3}) {
    auto a = Ids<float, Nchw>({n, 6, 5, 9}), b = Ids<float, Nchw>({n, 10, 5, 9}, {0, 0, 0, 1});
    auto an = Ids<float, Nhwc>({n, 5, 9, 6}), bn = Ids<float, Nhwc>({n, 5, 9, 10});
    ShuffleCase<0>(a, b, Dims{n, 8, 5, 9}, Dims{n, 8, 5, 9});
    ShuffleCase<0>(an, bn, Dims{n, 5, 9, 8}, Dims{n, 5, 9, 8});
    auto c = Ids<float, Nchw>({n, 8, 5, 9}), d = Ids<float, Nchw>({n, 8, 5, 9});
    ShuffleCase<1>(c, d, Dims{n, 6, 5, 9}, Dims{n, 10, 5, 9});
    auto cn = Ids<float, Nhwc>({n, 5, 9, 8}), dn = Ids<float, Nhwc>({n, 5, 9, 8});
    ShuffleCase<1>(cn, dn, Dims{n, 5, 9, 6}, Dims{n, 5, 9, 10});
  }
}

TEST_CASE("Parallel: Interleave4x4 and Transpose1xW", "[parallel]") {
  auto a = Ids<float, Strided<2>>({37, 19}, {0, 3});
  ExpectMatchesSerial([&](auto&& executor) {
    TestTensor<float, Strided<2>> out({10, 76});
    Interleave4x4{}(MatrixView<const float>(a.ConstView()), MatrixView<float>(out.View()),
                    executor);
    return BytesOf(out);
  });
  auto b = Ids<hwy::float16_t, Strided<2>>({23, 45});
  ExpectMatchesSerial([&](auto&& executor) {
    TestTensor<hwy::float16_t, Strided<2>> out({6, 8 * 23});
    Transpose1xW{}(MatrixView<const hwy::float16_t>(b.ConstView()), MatrixView<hwy::float16_t>(out.View()),
                   executor);
    return BytesOf(out);
  });
}

// Indices in [-s, s) (negative ones wrap), or with some out of range for the
// clamp and zero policies.
template <class Index>
void FillIndices(TestTensor<Index, Strided<>>& t, int64_t s, bool out_of_range, uint64_t seed) {
  Rng rng(seed);
  const int64_t lo = out_of_range ? -2 * s : -s, hi = out_of_range ? 2 * s : s - 1;
  t.Fill([&](const Extents&) {
    return static_cast<Index>(std::uniform_int_distribution<int64_t>(lo, hi)(rng));
  });
}

TEMPLATE_TEST_CASE("Parallel: Gather, GatherElements, GatherND, constant indices", "[parallel]",
                   int32_t, int64_t) {
  using Index = TestType;
  auto data = Ids<float, Strided<>>({5, 13, 7}, {0, 1, 0});
  for (Bounds bounds : {Bounds::kError, Bounds::kClamp, Bounds::kZero}) {
    INFO("bounds " << static_cast<int>(bounds));
    const bool wild = bounds != Bounds::kError;
    // Gather on axis 1: outer positions split; on axis 0 with 1-D indices the
    // indices split; with 2-D indices the index rows split.
    TestTensor<Index, Strided<>> idx1({9}), idx2({4, 6});
    FillIndices(idx1, 13, wild, 1);
    FillIndices(idx2, 5, wild, 2);
    ExpectMatchesSerial([&](auto&& executor) {
      TestTensor<float, Strided<>> out({5, 9, 7});
      Gather<Index>{.axis = 1, .bounds = bounds}(data.ConstView(), idx1.ConstView(), out.View(),
                                                 executor);
      return BytesOf(out);
    });
    TestTensor<Index, Strided<>> idx0({11});
    FillIndices(idx0, 5, wild, 3);
    ExpectMatchesSerial([&](auto&& executor) {
      TestTensor<float, Strided<>> out({11, 13, 7}, {0, 0, 1});
      Gather<Index>{.axis = 0, .bounds = bounds}(data.ConstView(), idx0.ConstView(), out.View(),
                                                 executor);
      return BytesOf(out);
    });
    ExpectMatchesSerial([&](auto&& executor) {
      TestTensor<float, Strided<>> out({4, 6, 13, 7});
      Gather<Index>{.axis = 0, .bounds = bounds}(data.ConstView(), idx2.ConstView(), out.View(),
                                                 executor);
      return BytesOf(out);
    });
    // GatherElements along the last axis (row split) and the middle one.
    for (int axis : {2, 1}) {
      TestTensor<Index, Strided<>> idx(axis == 2 ? Dims{1, 1, 3001} : Dims{5, 17, 7});
      FillIndices(idx, axis == 2 ? 7 : 13, wild, 4);
      auto wide = Ids<float, Strided<>>(axis == 2 ? Dims{1, 1, 7} : Dims{5, 13, 7});
      ExpectMatchesSerial([&](auto&& executor) {
        TestTensor<float, Strided<>> out(idx.dims(), {0, 0, 1});
        GatherElements<Index>{.axis = axis, .bounds = bounds}(wide.ConstView(), idx.ConstView(),
                                                              out.View(), executor);
        return BytesOf(out);
      });
    }
    // GatherND, tuples of 2 over the first two axes.
    TestTensor<Index, Strided<>> tuples({6, 4, 2});
    FillIndices(tuples, 5, wild, 5);
    ExpectMatchesSerial([&](auto&& executor) {
      TestTensor<float, Strided<>> out({6, 4, 7});
      GatherNd<Index>{.bounds = bounds}(data.ConstView(), tuples.ConstView(), out.View(),
                                        executor);
      return BytesOf(out);
    });
  }
  // Constant indices: the general pattern and the per-slice pattern.
  TestTensor<Index, Strided<>> general({5, 17, 7}), slices({5, 17, 7});
  FillIndices(general, 13, false, 6);
  Rng rng(7);
  std::vector<Index> per_slice(5 * 17);
  for (Index& k : per_slice) k = static_cast<Index>(rng() % 13);
  slices.Fill([&](const Extents& i) { return per_slice[i[0] * 17 + i[1]]; });
  for (auto* indices : {&general, &slices}) {
    const GatherElementsConstant<Index> gather(data.dims(), indices->ConstView(), 1);
    ExpectMatchesSerial([&](auto&& executor) {
      TestTensor<float, Strided<>> out({5, 17, 7});
      gather(data.ConstView(), out.View(), executor);
      return BytesOf(out);
    });
  }
}

TEST_CASE("Parallel: Nv12ToRgb, u8 and normalised f32, planar and interleaved", "[parallel]") {
  for (const auto& size : {std::pair<size_t, size_t>{2, 6}, {18, 38}, {64, 100}}) {
    const size_t h = size.first, w = size.second;
    INFO(h << " x " << w);
    const Pitches pitches = Nv12Pitches(h, w, 16, 64);
    std::vector<uint8_t> bytes(pitches[0]);
    Rng rng(h * w);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    const Nv12View<const uint8_t> frame(bytes.data(), h, w, pitches);
    ExpectMatchesSerial(
        [&](auto&& executor) {
          TestTensor<uint8_t, Nhwc> rgb({1, h, w, 3}, {0, 1, 2, 0});
          Nv12ToRgb<Yuv::kBt601Limited>{}(frame, rgb.View(), executor);
          return BytesOf(rgb);
        },
        h / 2 > 1 ? 2 : 0);
    ExpectMatchesSerial(
        [&](auto&& executor) {
          TestTensor<float, Nchw> rgb({1, 3, h, w}, {0, 0, 0, 1});
          Nv12ToRgb<Yuv::kBt709Full, ChannelOrder::kBgr>{.mean = {0.4f, 0.5f, 0.6f},
                                                         .stddev = {0.2f, 0.3f, 0.25f}}(
              frame, rgb.View(), executor);
          return BytesOf(rgb);
        },
        h / 2 > 1 ? 2 : 0);
  }
}

}  // namespace
}  // namespace tensorops::test
