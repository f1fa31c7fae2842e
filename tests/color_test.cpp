// Nv12ToRgb and RgbToNv12 on every target:
// - uint8 BT.601 limited output equals OpenCV's cvtColor(COLOR_YUV2RGB_NV12 /
//   COLOR_YUV2BGR_NV12) bit for bit, over a frame that holds every (Y, Cb, Cr)
//   combination, and over random frames with odd widths and padded pitches
//   (when OpenCV is found; the build says so);
// - every matrix equals the fixed-point formula of nv12_to_rgb.h exactly and
//   the real-valued colour matrix within 1 (the 20-bit rounding);
// - float output is the uint8 result normalised, within 2 ULP of double;
// - NCHW and NHWC, RGB and BGR, padded views; bad arguments.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <tensorops/api.h>

#ifdef TENSOROPS_TEST_OPENCV
#include <opencv2/imgproc.hpp>
#endif

#include "support/catch.h"
#include "support/expect_error.h"
#include "support/random.h"
#include "support/targets.h"
#include "support/test_tensor.h"

namespace tensorops::test {
namespace {

// An NV12 frame in its own buffer, with optional row and plane padding.
struct Frame {
  size_t height, width;
  Pitches pitches;
  std::vector<uint8_t> bytes;

  Frame(size_t h, size_t w, size_t row_align = 1, size_t plane_align = 1)
      : height(h), width(w), pitches(Nv12Pitches(h, w, row_align, plane_align)),
        bytes(pitches[0], 0xEE) {}
  Nv12View<uint8_t> View() { return Nv12View<uint8_t>(bytes.data(), height, width, pitches); }
  uint8_t& Y(size_t y, size_t x) { return View().YRow(y)[x]; }
  uint8_t& Cb(size_t y, size_t x) { return View().CbCrRow(y / 2)[x & ~size_t{1}]; }
  uint8_t& Cr(size_t y, size_t x) { return View().CbCrRow(y / 2)[x | 1]; }
};

Frame RandomFrame(size_t h, size_t w, uint64_t seed, size_t row_align = 1, size_t plane_align = 1) {
  Frame f(h, w, row_align, plane_align);
  Rng rng(seed);
  for (size_t y = 0; y < h; ++y) {
    for (size_t x = 0; x < w; ++x) f.Y(y, x) = static_cast<uint8_t>(rng());
    if (y % 2 == 0) {
      for (size_t x = 0; x < w; ++x) f.View().CbCrRow(y / 2)[x] = static_cast<uint8_t>(rng());
    }
  }
  return f;
}

// The header's fixed-point formula, channel c of (R, G, B).
int32_t FixedPointChannel(Yuv yuv, int32_t y, int32_t cb, int32_t cr, size_t c) {
  const YuvFixedPoint k = YuvFixedPointOf(yuv);
  const int64_t luma = int64_t{std::max(y - k.y0, 0)} * k.cy + (1 << 19);
  const int64_t u = cb - 128, v = cr - 128;
  const int64_t raw = c == 0 ? luma + k.crv * v : c == 1 ? luma + k.cgu * u + k.cgv * v : luma + k.cbu * u;
  return static_cast<int32_t>(std::clamp<int64_t>(raw >> 20, 0, 255));
}

// The real-valued matrix from Kr, Kb (yuv_coefficients.h), rounded to nearest.
double ExactChannel(Yuv yuv, int32_t y, int32_t cb, int32_t cr, size_t c) {
  const bool limited = yuv == Yuv::kBt601Limited || yuv == Yuv::kBt709Limited;
  const bool bt601 = yuv == Yuv::kBt601Limited || yuv == Yuv::kBt601Full;
  const double kr = bt601 ? 0.299 : 0.2126, kb = bt601 ? 0.114 : 0.0722, kg = 1 - kr - kb;
  const double ys = limited ? 255.0 / 219.0 : 1.0, cs = limited ? 255.0 / 224.0 : 1.0;
  const double l = ys * std::max(y - (limited ? 16 : 0), 0), u = cs * (cb - 128), v = cs * (cr - 128);
  const double value = c == 0   ? l + 2 * (1 - kr) * v
                       : c == 1 ? l - 2 * kb * (1 - kb) / kg * u - 2 * kr * (1 - kr) / kg * v
                                : l + 2 * (1 - kb) * u;
  return std::clamp(std::nearbyint(value), 0.0, 255.0);
}

template <Yuv kYuv, ChannelOrder kOrder, class T, class L>
void CheckAgainstFormula(Frame& frame, const std::array<float, 3>& mean = {0, 0, 0},
                         const std::array<float, 3>& stddev = {1, 1, 1}, const Extents& pad = {}) {
  const size_t h = frame.height, w = frame.width;
  INFO("yuv " << static_cast<int>(kYuv) << (kOrder == ChannelOrder::kRgb ? " RGB " : " BGR ")
              << kElementName<T> << " " << L::kName << " " << h << "x" << w << " pad " << pad);
  const Dims dims = InLayout<L>(1, 3, h, w);
  const Nv12View<const uint8_t> view = frame.View();
  ForEachTarget([&](int64_t) {
    TestTensor<T, L> dst(dims, pad);
    Nv12ToRgb<kYuv, kOrder>{mean, stddev}(view, dst.View());
    CHECK(dst.OnlyElementsWritten());
    size_t failures = 0;
    for (size_t y = 0; y < h; ++y) {
      for (size_t x = 0; x < w; ++x) {
        for (size_t c = 0; c < 3; ++c) {  // c = output channel
          const size_t rgb = kOrder == ChannelOrder::kRgb ? c : 2 - c;
          const int32_t want = FixedPointChannel(kYuv, frame.Y(y, x), frame.Cb(y, x), frame.Cr(y, x), rgb);
          const double got = static_cast<double>(dst.at(InLayout<L>(0, c, y, x)));
          bool ok;
          if constexpr (std::is_same_v<T, uint8_t>) {
            ok = got == want && std::fabs(want - ExactChannel(kYuv, frame.Y(y, x), frame.Cb(y, x),
                                                              frame.Cr(y, x), rgb)) <= 1;
          } else {
            const double norm = (want / 255.0 - mean[c]) / stddev[c];
            ok = std::fabs(got - norm) <= 0x1p-22 * std::max(std::fabs(norm), 1.0 / stddev[c]);
          }
          if (!ok && failures++ < 5) {
            FAIL_CHECK("pixel (" << y << ", " << x << ") channel " << c << " got " << got << " want "
                                 << want << " (Y Cb Cr " << int{frame.Y(y, x)} << " " << int{frame.Cb(y, x)}
                                 << " " << int{frame.Cr(y, x)} << ")");
          }
        }
      }
    }
    CHECK(failures == 0);
  });
}

TEST_CASE("Nv12ToRgb: every matrix, both layouts and orders, odd widths, padding", "[color]") {
  uint64_t seed = 1;
  for (size_t w : {2, 6, 18, 34, 64, 66, 128, 130}) {  // 64, 128: whole 4-vector steps
    Frame f = RandomFrame(4, w, seed++);
    CheckAgainstFormula<Yuv::kBt601Limited, ChannelOrder::kRgb, uint8_t, Nhwc>(f);
    CheckAgainstFormula<Yuv::kBt601Full, ChannelOrder::kBgr, uint8_t, Nchw>(f);
    CheckAgainstFormula<Yuv::kBt709Limited, ChannelOrder::kRgb, uint8_t, Nchw>(f);
    CheckAgainstFormula<Yuv::kBt709Full, ChannelOrder::kBgr, uint8_t, Nhwc>(f);
  }
  Frame padded = RandomFrame(6, 38, seed++, 64, 256);
  CheckAgainstFormula<Yuv::kBt601Limited, ChannelOrder::kRgb, uint8_t, Nhwc>(padded, {0, 0, 0}, {1, 1, 1},
                                                                           {0, 1, 3, 0});
  CheckAgainstFormula<Yuv::kBt709Limited, ChannelOrder::kBgr, uint8_t, Nchw>(padded, {0, 0, 0}, {1, 1, 1},
                                                                           {0, 1, 2, 5});
}

TEST_CASE("Nv12ToRgb float output: the uint8 result normalised, fused", "[color]") {
  const std::array<float, 3> mean = {0.485f, 0.456f, 0.406f}, stddev = {0.229f, 0.224f, 0.225f};
  Frame f = RandomFrame(8, 50, 99, 32);
  CheckAgainstFormula<Yuv::kBt601Limited, ChannelOrder::kRgb, float, Nchw>(f, mean, stddev);
  CheckAgainstFormula<Yuv::kBt601Limited, ChannelOrder::kBgr, float, Nchw>(f, mean, stddev, {0, 1, 1, 3});
  CheckAgainstFormula<Yuv::kBt709Full, ChannelOrder::kRgb, float, Nhwc>(f, mean, stddev, {0, 0, 2, 0});
  CheckAgainstFormula<Yuv::kBt601Full, ChannelOrder::kRgb, float, Nhwc>(f);
  Frame narrow = RandomFrame(2, 2, 7);
  CheckAgainstFormula<Yuv::kBt601Limited, ChannelOrder::kRgb, float, Nhwc>(narrow, mean, stddev);
}

#ifdef TENSOROPS_TEST_OPENCV
// uint8 NHWC output against OpenCV for the frame f, RGB and BGR.
void CheckOpenCv(Frame& f) {
  INFO("frame " << f.height << "x" << f.width << " row pitch " << f.pitches[2]);
  // OpenCV wants Y and CbCr planes contiguous with one row step: copy.
  cv::Mat packed(static_cast<int>(f.height * 3 / 2), static_cast<int>(f.width), CV_8UC1);
  for (size_t y = 0; y < f.height; ++y) std::copy_n(f.View().YRow(y), f.width, packed.ptr<uint8_t>(int(y)));
  for (size_t y = 0; y < f.height / 2; ++y) {
    std::copy_n(f.View().CbCrRow(y), f.width, packed.ptr<uint8_t>(int(f.height + y)));
  }
  cv::Mat rgb, bgr;
  cv::cvtColor(packed, rgb, cv::COLOR_YUV2RGB_NV12);
  cv::cvtColor(packed, bgr, cv::COLOR_YUV2BGR_NV12);
  ForEachTarget([&](int64_t) {
    std::vector<uint8_t> out(f.height * f.width * 3), out_bgr(out.size());
    const Dims dims{1, f.height, f.width, 3};
    Nv12ToRgb<Yuv::kBt601Limited, ChannelOrder::kRgb>{}(f.View(), TensorView<uint8_t, Nhwc>(out.data(), dims));
    Nv12ToRgb<Yuv::kBt601Limited, ChannelOrder::kBgr>{}(f.View(), TensorView<uint8_t, Nhwc>(out_bgr.data(), dims));
    size_t mismatches = 0, mismatches_bgr = 0;
    for (size_t y = 0; y < f.height; ++y) {
      mismatches += !std::equal(out.begin() + y * f.width * 3, out.begin() + (y + 1) * f.width * 3,
                                rgb.ptr<uint8_t>(int(y)));
      mismatches_bgr += !std::equal(out_bgr.begin() + y * f.width * 3,
                                    out_bgr.begin() + (y + 1) * f.width * 3, bgr.ptr<uint8_t>(int(y)));
    }
    CHECK(mismatches == 0);
    CHECK(mismatches_bgr == 0);
  });
}

TEST_CASE("Nv12ToRgb uint8 BT.601 limited equals OpenCV over every (Y, Cb, Cr)", "[color]") {
  // 4096 x 4096: 2^22 2x2 blocks, 64 per (Cb, Cr) pair, whose 4 pixels take
  // 4 of the 256 luma values each: every combination appears once.
  Frame f(4096, 4096);
  for (size_t by = 0; by < 2048; ++by) {
    for (size_t bx = 0; bx < 2048; ++bx) {
      const size_t block = by * 2048 + bx, uv = block % 65536, quad = block / 65536;
      f.Cb(2 * by, 2 * bx) = static_cast<uint8_t>(uv & 255);
      f.Cr(2 * by, 2 * bx) = static_cast<uint8_t>(uv >> 8);
      for (size_t i = 0; i < 4; ++i) f.Y(2 * by + i / 2, 2 * bx + i % 2) = static_cast<uint8_t>(quad * 4 + i);
    }
  }
  CheckOpenCv(f);
}

TEST_CASE("Nv12ToRgb uint8 equals OpenCV on odd widths and padded frames", "[color]") {
  uint64_t seed = 40;
  for (size_t w : {2, 14, 16, 18, 30, 62, 66, 98, 1922}) {
    Frame f = RandomFrame(6, w, seed++, w % 4 == 2 ? 64 : 1, 4096);
    CheckOpenCv(f);
  }
}
#endif

TEST_CASE("RgbToNv12: the matrix inverse within rounding, a round trip stays close", "[color]") {
  const size_t h = 8, w = 38;
  TestTensor<uint8_t, Nhwc> rgb({1, h, w, 3}, {0, 1, 2, 0});
  // A smooth image: chroma subsampling loses detail, not smooth gradients.
  rgb.Fill([&](const Extents& i) {
    return static_cast<uint8_t>(i[3] == 0 ? 20 + 2 * i[2] : i[3] == 1 ? 40 + 2 * i[1] : 200 - 2 * i[2]);
  });
  Frame f(h, w, 16);
  RgbToNv12<Yuv::kBt601Limited>{}(rgb.ConstView(), f.View());
  // Y against the double formula: within 1.
  for (size_t y = 0; y < h; ++y) {
    for (size_t x = 0; x < w; ++x) {
      const double want = 16 + 219.0 / 255.0 *
                                   (0.299 * rgb.at({0, y, x, 0}) + 0.587 * rgb.at({0, y, x, 1}) +
                                    0.114 * rgb.at({0, y, x, 2}));
      REQUIRE(std::fabs(f.Y(y, x) - want) <= 1.0);
    }
  }
  TestTensor<uint8_t, Nhwc> back({1, h, w, 3});
  Nv12ToRgb<Yuv::kBt601Limited>{}(f.View(), back.View());
  int worst = 0;
  ForEachIndex({1, h, w, 3}, [&](const Extents& i) { worst = std::max(worst, std::abs(back.at(i) - rgb.at(i))); });
  INFO("worst round-trip error " << worst);
  // Each channel changes by 2 per pixel, so the 2x2 chroma mean is off by up
  // to ~1-2 per channel at a pixel (the luma keeps its own value), plus the
  // 8-bit roundings of Y, Cb/Cr and the result: 4 bounds it.
  CHECK(worst <= 4);
}

TEST_CASE("Nv12ToRgb and RgbToNv12 reject bad arguments and write nothing", "[color][errors]") {
  Frame f = RandomFrame(4, 6, 3);
  TestTensor<float, Nchw> wrong({1, 3, 4, 8}), ok({1, 3, 4, 6});
  TestTensor<uint8_t, Nchw> bytes({1, 3, 4, 6});
  const auto before = ok.Snapshot();
  auto msg = ErrorOf(ErrorCode::kShapeMismatch, [&] { Nv12ToRgb<>{}(f.View(), wrong.View()); });
  CHECK(msg.find("W=6") != std::string::npos);
  msg = ErrorOf(ErrorCode::kBadArgument, [&] { Nv12ToRgb<>{{0, 0, 0}, {1, 0, 1}}(f.View(), ok.View()); });
  CHECK(msg.find("stddev must be finite and non-zero") != std::string::npos);
  msg = ErrorOf(ErrorCode::kBadArgument, [&] { Nv12ToRgb<>{{0.5f, 0, 0}}(f.View(), bytes.View()); });
  CHECK(msg.find("uint8_t dst") != std::string::npos);
  CHECK(ok.Snapshot() == before);
  // dst inside the frame's own bytes.
  TensorView<uint8_t, Nchw> inside(f.bytes.data(), {1, 3, 2, 2});
  ErrorOf(ErrorCode::kAliasing, [&] {
    Nv12ToRgb<>{}(Nv12View<const uint8_t>(f.bytes.data(), 2, 2), inside);
  });
  ErrorOf(ErrorCode::kShapeMismatch, [&] { RgbToNv12<>{}(bytes.ConstView(), Frame(4, 8).View()); });
}

}  // namespace
}  // namespace tensorops::test
