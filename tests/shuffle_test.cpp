// ChannelShuffle, ShuffleLayer (Simd types 0 and 1), DepthToSpace and
// SpaceToDepth against references written from the formulas in their
// headers, on every target: both layouts, element sizes 1-8, odd spatial
// sizes, padded pitches, batch > 1, and bad arguments. Exact (bitwise).
#include <cstdint>
#include <string>
#include <vector>

#include <tensorops/api.h>

#include "support/catch.h"
#include "support/expect_error.h"
#include "support/movement.h"
#include "support/targets.h"
#include "support/test_tensor.h"

namespace tensorops::test {
namespace {

template <class T, class L>
void CheckChannelShuffle(size_t n, size_t c, size_t h, size_t w, size_t groups,
                         const Extents& pad = {}) {
  INFO(kElementName<T> << " " << L::kName << " n c h w " << n << " " << c << " " << h << " "
                       << w << " groups " << groups << " pad " << pad);
  TestTensor<T, L> src(InLayout<L>(n, c, h, w), pad);
  FillWithIds(src);
  const size_t per_group = c / groups;
  ForEachTarget([&](int64_t) {
    TestTensor<T, L> dst(InLayout<L>(n, c, h, w), pad);
    ChannelShuffle{groups}(src.ConstView(), dst.View());
    CHECK(dst.OnlyElementsWritten());
    size_t failures = 0;
    ForEachIndex({n, groups, per_group, h * w}, [&](const Extents& i) {
      const size_t y = i[3] / w, x = i[3] % w;
      const auto& want = src.at(InLayout<L>(i[0], i[1] * per_group + i[2], y, x));
      const auto& got = dst.at(InLayout<L>(i[0], i[2] * groups + i[1], y, x));
      if (BitsOf(got) != BitsOf(want) && failures++ < 5) FAIL_CHECK("n g k hw " << i);
    });
    CHECK(failures == 0);
  });
}

TEST_CASE("ChannelShuffle: groups 1-4 and 8, both layouts, element sizes 1-8", "[shuffle]") {
  for (size_t groups : {1, 2, 3, 4, 8}) {
    CheckChannelShuffle<float, Nchw>(2, groups * 5, 3, 7, groups);
    CheckChannelShuffle<float, Nhwc>(2, groups * 5, 3, 7, groups);
    CheckChannelShuffle<uint8_t, Nhwc>(1, groups * 29, 2, 3, groups);
    CheckChannelShuffle<hwy::float16_t, Nchw>(1, groups * 3, 5, 5, groups);
    CheckChannelShuffle<int64_t, Nhwc>(1, groups * 17, 1, 3, groups);
  }
  CheckChannelShuffle<float, Nhwc>(1, 116, 3, 5, 2);  // ShuffleNet v2, 116 channels
  CheckChannelShuffle<float, Nchw>(1, 240, 1, 1, 3);  // ShuffleNet v1, g = 3
  CheckChannelShuffle<float, Nhwc>(1, 12, 4, 5, 2, {0, 1, 2, 3});
  CheckChannelShuffle<uint8_t, Nchw>(2, 12, 4, 5, 4, {1, 1, 2, 3});
}

// Reference ShuffleLayer from the header's formulas, on (n, c, h, w) indices.
template <int kType, class T, class L>
void CheckShuffleLayer(size_t n, size_t c0, size_t c1, size_t h, size_t w,
                       const Extents& pad = {}) {
  INFO("ShuffleLayer<" << kType << "> " << kElementName<T> << " " << L::kName << " C0 " << c0
                       << " C1 " << c1 << " n h w " << n << " " << h << " " << w << " pad "
                       << pad);
  const size_t half = (c0 + c1) / 2;
  const size_t in0 = kType == 0 ? c0 : half, in1 = kType == 0 ? c1 : half;
  const size_t out0 = kType == 0 ? half : c0, out1 = kType == 0 ? half : c1;
  TestTensor<T, L> src0(InLayout<L>(n, in0, h, w), pad), src1(InLayout<L>(n, in1, h, w));
  FillWithIds(src0);
  uint64_t id = uint64_t{1} << 40;  // src1's values differ from src0's
  src1.Fill([&](const Extents&) { return ValueOfId<T>(id++); });
  ForEachTarget([&](int64_t) {
    TestTensor<T, L> dst0(InLayout<L>(n, out0, h, w)), dst1(InLayout<L>(n, out1, h, w), pad);
    ShuffleLayer<kType>{}(src0.ConstView(), src1.ConstView(), dst0.View(), dst1.View());
    CHECK(dst0.OnlyElementsWritten());
    CHECK(dst1.OnlyElementsWritten());
    size_t failures = 0;
    ForEachIndex({n, c0 + c1, h, w}, [&](const Extents& i) {
      // Channel k of the concatenation of the split side.
      const size_t k = i[1];
      const auto split = [&](auto& a, auto& b) -> T& {
        return k < c0 ? a.at(InLayout<L>(i[0], k, i[2], i[3])) : b.at(InLayout<L>(i[0], k - c0, i[2], i[3]));
      };
      // Channel 2c + s of the interleaved side = tensor s, channel c.
      const auto halves = [&](auto& a, auto& b) -> T& {
        auto& t = k % 2 == 0 ? a : b;
        return t.at(InLayout<L>(i[0], k / 2, i[2], i[3]));
      };
      const T& want = kType == 0 ? split(src0, src1) : halves(src0, src1);
      const T& got = kType == 0 ? halves(dst0, dst1) : split(dst0, dst1);
      if (BitsOf(got) != BitsOf(want) && failures++ < 5) FAIL_CHECK("n k h w " << i);
    });
    CHECK(failures == 0);
  });
}

template <int kType>
void CheckShuffleLayerCases() {
  CheckShuffleLayer<kType, float, Nchw>(1, 4, 6, 3, 5);
  CheckShuffleLayer<kType, float, Nhwc>(1, 4, 6, 3, 5);
  CheckShuffleLayer<kType, float, Nhwc>(2, 116, 116, 2, 3);  // ShuffleNet v2 stage 2
  CheckShuffleLayer<kType, float, Nchw>(2, 2, 40, 3, 1);
  CheckShuffleLayer<kType, uint8_t, Nhwc>(1, 66, 2, 2, 2);
  CheckShuffleLayer<kType, hwy::bfloat16_t, Nhwc>(1, 34, 30, 1, 3);
  CheckShuffleLayer<kType, int64_t, Nchw>(1, 6, 2, 2, 3);
  CheckShuffleLayer<kType, int64_t, Nhwc>(1, 18, 0, 2, 3);
  CheckShuffleLayer<kType, float, Nhwc>(1, 20, 12, 3, 4, {0, 1, 2, 3});
  CheckShuffleLayer<kType, float, Nchw>(2, 20, 12, 3, 4, {1, 1, 2, 3});
}

TEST_CASE("ShuffleLayer type 0: concat, then even channels to dst0, odd to dst1",
          "[shuffle]") {
  CheckShuffleLayerCases<0>();
}

TEST_CASE("ShuffleLayer type 1: interleave, then split at C0", "[shuffle]") {
  CheckShuffleLayerCases<1>();
}

// Every pair count from 1 to past two vectors of the widest target's lanes
// (64 bytes: 64 one-byte pairs), so that each per-pixel row runs every tail
// of the (de)interleave: scalar only, half vectors, whole + half, whole +
// half + overlapping half, whole + overlapping half.
template <class T>
void CheckShuffleLayerTails() {
  for (size_t pairs = 1; pairs <= 2 * 64 / sizeof(T) + 3; ++pairs) {
    CheckShuffleLayer<0, T, Nhwc>(1, 2 * pairs, 2, 1, 2);
    CheckShuffleLayer<1, T, Nhwc>(1, 2 * pairs, 2, 1, 2);
  }
}

TEST_CASE("ShuffleLayer NHWC: every tail of the per-pixel (de)interleave", "[shuffle]") {
  CheckShuffleLayerTails<uint8_t>();
  CheckShuffleLayerTails<hwy::float16_t>();
  CheckShuffleLayerTails<float>();
  CheckShuffleLayerTails<int64_t>();
}

TEST_CASE("ShuffleLayer type 1 undoes type 0", "[shuffle]") {
  TestTensor<float, Nhwc> a({1, 3, 5, 10}), b({1, 3, 5, 22});
  FillWithIds(a);
  FillWithIds(b);
  TestTensor<float, Nhwc> x({1, 3, 5, 16}), y({1, 3, 5, 16});
  TestTensor<float, Nhwc> a2({1, 3, 5, 10}), b2({1, 3, 5, 22});
  ShuffleLayer<0>{}(a.ConstView(), b.ConstView(), x.View(), y.View());
  ShuffleLayer<1>{}(x.ConstView(), y.ConstView(), a2.View(), b2.View());
  CHECK(a2.Snapshot() == a.Snapshot());
  CHECK(b2.Snapshot() == b.Snapshot());
}

TEST_CASE("ShuffleLayer writes two channel ranges of one tensor: a concatenation through views",
          "[shuffle]") {
  // ShuffleNet v2's unit output: concat + shuffle + split, written as the
  // two halves of the next activation (their rows interleave, no byte is
  // shared), then compared with the same op into two separate tensors.
  TestTensor<float, Nhwc> a({1, 3, 5, 10}), b({1, 3, 5, 10});
  FillWithIds(a);
  FillWithIds(b);
  TestTensor<float, Nhwc> both({1, 3, 5, 20}), x({1, 3, 5, 10}), y({1, 3, 5, 10});
  ShuffleLayer<1>{}(a.ConstView(), b.ConstView(), both.View().Channels(0, 10), both.View().Channels(10, 10));
  ShuffleLayer<1>{}(a.ConstView(), b.ConstView(), x.View(), y.View());
  size_t failures = 0;
  ForEachIndex(x.dims(), [&](const Extents& i) {
    const Extents j{i[0], i[1], i[2], i[3] + 10};
    if ((both.at(i) != x.at(i) || both.at(j) != y.at(i)) && failures++ < 5) FAIL_CHECK("index " << i);
  });
  CHECK(failures == 0);
  // Channel ranges that share channels still overlap.
  CHECK(ErrorOf(ErrorCode::kAliasing, [&] {
          ShuffleLayer<1>{}(a.ConstView(), b.ConstView(), both.View().Channels(0, 10),
                            both.View().Channels(8, 10));
        }).find("overlaps") != std::string::npos);
}

template <class T, class L>
void CheckDepthSpace(size_t n, size_t cs, size_t h, size_t w, size_t b, DepthOrder order,
                     const Extents& pad = {}) {
  INFO(kElementName<T> << " " << L::kName << " space C " << cs << " depth H W " << h << " " << w
                       << " blocksize " << b << (order == DepthOrder::kDcr ? " DCR" : " CRD")
                       << " pad " << pad);
  TestTensor<T, L> depth(InLayout<L>(n, cs * b * b, h, w), pad);
  FillWithIds(depth);
  const auto depth_channel = [&](size_t c, size_t i, size_t j) {
    return order == DepthOrder::kDcr ? (i * b + j) * cs + c : c * b * b + i * b + j;
  };
  ForEachTarget([&](int64_t) {
    TestTensor<T, L> space(InLayout<L>(n, cs, h * b, w * b), pad);
    DepthToSpace{b, order}(depth.ConstView(), space.View());
    CHECK(space.OnlyElementsWritten());
    size_t failures = 0;
    ForEachIndex({n, cs, h * b, w * b}, [&](const Extents& i) {
      const size_t y = i[2] / b, x = i[3] / b;
      const auto& want = depth.at(InLayout<L>(i[0], depth_channel(i[1], i[2] % b, i[3] % b), y, x));
      if (BitsOf(space.at(InLayout<L>(i[0], i[1], i[2], i[3]))) != BitsOf(want) && failures++ < 5) {
        FAIL_CHECK("space index (n c h w) " << i);
      }
    });
    CHECK(failures == 0);
    // SpaceToDepth is the inverse.
    TestTensor<T, L> back(InLayout<L>(n, cs * b * b, h, w), pad);
    SpaceToDepth{b, order}(space.ConstView(), back.View());
    CHECK(back.Snapshot() == depth.Snapshot());
  });
}

TEST_CASE("DepthToSpace and SpaceToDepth: DCR and CRD, both layouts", "[shuffle]") {
  for (DepthOrder order : {DepthOrder::kDcr, DepthOrder::kCrd}) {
    CheckDepthSpace<float, Nchw>(1, 3, 5, 7, 2, order);
    CheckDepthSpace<float, Nhwc>(2, 3, 5, 7, 2, order);
    CheckDepthSpace<uint8_t, Nchw>(1, 2, 3, 4, 3, order);
    CheckDepthSpace<uint8_t, Nhwc>(1, 5, 2, 3, 4, order);
    CheckDepthSpace<hwy::float16_t, Nchw>(1, 1, 4, 4, 2, order);
    CheckDepthSpace<int64_t, Nhwc>(1, 17, 3, 3, 2, order);
    CheckDepthSpace<float, Nchw>(1, 4, 2, 3, 1, order);
    CheckDepthSpace<float, Nchw>(1, 20, 3, 9, 2, order, {0, 1, 1, 2});
    CheckDepthSpace<float, Nhwc>(1, 20, 3, 9, 2, order, {1, 0, 1, 2});
  }
}

TEST_CASE("Shuffles reject bad arguments and leave outputs untouched", "[shuffle][errors]") {
  TestTensor<float, Nchw> x({1, 6, 2, 2}), y({1, 6, 2, 2}), z({1, 6, 2, 3});
  FillWithIds(x);
  const auto before = y.Snapshot();
  auto msg = ErrorOf(ErrorCode::kBadArgument, [&] { ChannelShuffle{4}(x.ConstView(), y.View()); });
  CHECK(msg.find("6 channels do not split into 4 groups") != std::string::npos);
  ErrorOf(ErrorCode::kBadArgument, [&] { ChannelShuffle{0}(x.ConstView(), y.View()); });
  ErrorOf(ErrorCode::kShapeMismatch, [&] { ChannelShuffle{2}(x.ConstView(), z.View()); });
  ErrorOf(ErrorCode::kAliasing, [&] { ChannelShuffle{2}(x.ConstView(), x.View()); });
  CHECK(y.Snapshot() == before);

  TestTensor<float, Nhwc> a({1, 2, 2, 3}), b({1, 2, 2, 5}), c({1, 2, 2, 4}), d({1, 2, 2, 4});
  msg = ErrorOf(ErrorCode::kShapeMismatch,
                [&] { ShuffleLayer<0>{}(a.ConstView(), b.ConstView(), c.View(), d.View()); });
  CHECK(msg.find("must be even") != std::string::npos);
  TestTensor<float, Nhwc> e({1, 2, 2, 4}), f({1, 2, 2, 2});
  msg = ErrorOf(ErrorCode::kShapeMismatch,
                [&] { ShuffleLayer<0>{}(e.ConstView(), e.ConstView(), c.View(), f.View()); });
  CHECK(msg.find("4 channels each, not 4 and 2") != std::string::npos);
  TestTensor<float, Nhwc> g({1, 3, 2, 4});
  msg = ErrorOf(ErrorCode::kShapeMismatch,
                [&] { ShuffleLayer<1>{}(e.ConstView(), e.ConstView(), c.View(), g.View()); });
  CHECK(msg.find("dst1 has N, H, W = 1, 3, 2") != std::string::npos);
  ErrorOf(ErrorCode::kAliasing,
          [&] { ShuffleLayer<1>{}(e.ConstView(), c.ConstView(), c.View(), d.View()); });

  TestTensor<float, Nchw> depth({1, 8, 2, 2}), space({1, 2, 4, 4}), bad({1, 2, 4, 5});
  msg = ErrorOf(ErrorCode::kShapeMismatch,
                [&] { DepthToSpace{2}(depth.ConstView(), bad.View()); });
  CHECK(msg.find("H=4 W=4") != std::string::npos);
  msg = ErrorOf(ErrorCode::kShapeMismatch,
                [&] { DepthToSpace{3}(depth.ConstView(), space.View()); });
  CHECK(msg.find("not a multiple of blocksize^2 = 9") != std::string::npos);
  ErrorOf(ErrorCode::kBadArgument, [&] { SpaceToDepth{0}(space.ConstView(), depth.View()); });
}

}  // namespace
}  // namespace tensorops::test
