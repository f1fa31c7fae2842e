// Colour matrices between Y'CbCr (as in NV12 frames) and R'G'B', in the
// 20-bit fixed point the colour conversions compute with.
//
// A matrix is fixed by the luma weights Kr and Kb (Kg = 1 - Kr - Kb):
//   BT.601: Kr = 0.299,  Kb = 0.114      BT.709: Kr = 0.2126, Kb = 0.0722
// and a range: limited ("video": Y in [16, 235], Cb/Cr in [16, 240]) or full
// (all of [0, 255]). With y = (Y - y0) * ys and u, v = (Cb, Cr - 128) * cs,
//   R = y + 2 (1 - Kr) v
//   G = y - 2 Kb (1 - Kb) / Kg u - 2 Kr (1 - Kr) / Kg v
//   B = y + 2 (1 - Kb) u
// limited: y0 = 16, ys = 255/219, cs = 255/224; full: y0 = 0, ys = cs = 1.
// BT.601 limited uses the published 3-decimal rounding of these numbers
// (1.164, 1.596, 0.391, 0.813, 2.018), as OpenCV and most camera stacks do.
#ifndef TENSOROPS_OPS_YUV_COEFFICIENTS_H_
#define TENSOROPS_OPS_YUV_COEFFICIENTS_H_

#include <cstdint>

namespace tensorops {

enum class Yuv { kBt601Limited, kBt601Full, kBt709Limited, kBt709Full };
enum class ChannelOrder { kRgb, kBgr };

inline constexpr int kYuvShift = 20;

// YCbCr -> RGB: R = (cy * max(Y - y0, 0) + crv * v + 2^19) >> 20, etc.
struct YuvFixedPoint {
  int32_t y0, cy, crv, cgu, cgv, cbu;
};

// RGB -> YCbCr: Y = (yr R + yg G + yb B + 2^19) >> 20 + y0, and Cb/Cr the
// same with their weights, + 128.
struct RgbFixedPoint {
  int32_t y0, yr, yg, yb, ur, ug, ub, vr, vg, vb;
};

namespace detail {

constexpr int32_t ToFixed(double x) {
  const double scaled = x * (1 << kYuvShift);
  return static_cast<int32_t>(scaled < 0 ? scaled - 0.5 : scaled + 0.5);
}

struct YuvMatrix {
  double kr, kb;
  bool limited;
};

constexpr YuvMatrix MatrixOf(Yuv yuv) {
  switch (yuv) {
    case Yuv::kBt601Limited: return {0.299, 0.114, true};
    case Yuv::kBt601Full: return {0.299, 0.114, false};
    case Yuv::kBt709Limited: return {0.2126, 0.0722, true};
    case Yuv::kBt709Full: return {0.2126, 0.0722, false};
  }
  return {0.299, 0.114, true};
}

}  // namespace detail

constexpr YuvFixedPoint YuvFixedPointOf(Yuv yuv) {
  using detail::ToFixed;
  if (yuv == Yuv::kBt601Limited) {
    return {16, ToFixed(1.164), ToFixed(1.596), ToFixed(-0.391), ToFixed(-0.813), ToFixed(2.018)};
  }
  const detail::YuvMatrix m = detail::MatrixOf(yuv);
  const double kg = 1.0 - m.kr - m.kb;
  const double ys = m.limited ? 255.0 / 219.0 : 1.0;
  const double cs = m.limited ? 255.0 / 224.0 : 1.0;
  return {m.limited ? 16 : 0,
          ToFixed(ys),
          ToFixed(2.0 * (1.0 - m.kr) * cs),
          ToFixed(-2.0 * m.kb * (1.0 - m.kb) / kg * cs),
          ToFixed(-2.0 * m.kr * (1.0 - m.kr) / kg * cs),
          ToFixed(2.0 * (1.0 - m.kb) * cs)};
}

constexpr RgbFixedPoint RgbFixedPointOf(Yuv yuv) {
  using detail::ToFixed;
  const detail::YuvMatrix m = detail::MatrixOf(yuv);
  const double kg = 1.0 - m.kr - m.kb;
  const double ys = m.limited ? 219.0 / 255.0 : 1.0;
  const double cs = m.limited ? 224.0 / 255.0 : 1.0;
  const double u = cs / (2.0 * (1.0 - m.kb)), v = cs / (2.0 * (1.0 - m.kr));
  return {m.limited ? 16 : 0,
          ToFixed(m.kr * ys), ToFixed(kg * ys), ToFixed(m.kb * ys),
          ToFixed(-m.kr * u), ToFixed(-kg * u), ToFixed((1.0 - m.kb) * u),
          ToFixed((1.0 - m.kr) * v), ToFixed(-kg * v), ToFixed(-m.kb * v)};
}

}  // namespace tensorops

#endif  // TENSOROPS_OPS_YUV_COEFFICIENTS_H_
