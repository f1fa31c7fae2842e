// RgbToNv12: uint8 RGB or BGR (NCHW or NHWC, N = 1, C = 3) to an NV12 frame,
// the inverse of Nv12ToRgb for round trips and for producing test frames.
//
//   Y     = clamp(((yr R + yg G + yb B + 2^19) >> 20) + y0, 0, 255)  per pixel
//   Cb/Cr = clamp(((ur R + ug G + ub B + 2^19) >> 20) + 128, 0, 255) with R, G, B
//           the rounded mean of each 2x2 block ((sum + 2) >> 2)
// with the weights of yuv_coefficients.h (RgbFixedPointOf). Scalar code: this
// runs where frames are made (tests, tools), not in an inference loop.
#ifndef TENSOROPS_OPS_RGB_TO_NV12_H_
#define TENSOROPS_OPS_RGB_TO_NV12_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tensorops/detail/checks.h"
#include "tensorops/error.h"
#include "tensorops/layout/layouts.h"
#include "tensorops/layout/nv12_view.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/ops/yuv_coefficients.h"

namespace tensorops {

template <Yuv kYuv = Yuv::kBt601Limited, ChannelOrder kOrder = ChannelOrder::kRgb>
struct RgbToNv12 {
  template <class S, ImageLayout L>
  void operator()(const TensorView<S, L>& rgb, const Nv12View<uint8_t>& frame) const {
    static_assert(std::is_same_v<std::remove_const_t<S>, uint8_t>,
                  "RgbToNv12: src must be a uint8_t view");
    const size_t h = frame.height(), w = frame.width();
    if (rgb.dim(L::kN) != 1 || rgb.dim(L::kC) != 3 || rgb.dim(L::kH) != h || rgb.dim(L::kW) != w) {
      detail::Fail(ErrorCode::kShapeMismatch, "RgbToNv12: src ", L::kName, " ", rgb.dims(),
                   " must be N=1, C=3, H=", h, ", W=", w, " for a ", h, "x", w, " frame");
    }
    if (detail::Overlaps(rgb, frame)) {
      detail::Fail(ErrorCode::kAliasing, "RgbToNv12: src overlaps the frame");
    }
    constexpr RgbFixedPoint k = RgbFixedPointOf(kYuv);
    constexpr int32_t kHalf = 1 << (kYuvShift - 1);
    const size_t red = kOrder == ChannelOrder::kRgb ? 0 : 2, blue = 2 - red;
    const auto* src_begin = reinterpret_cast<const uint8_t*>(rgb.data());
    const auto at = [&](size_t c, size_t y, size_t x) -> int32_t {
      return src_begin[c * rgb.StrideBytes(L::kC) + y * rgb.StrideBytes(L::kH) +
                       x * rgb.StrideBytes(L::kW)];
    };
    const auto clamp = [](int32_t v) {
      return static_cast<uint8_t>(std::min(std::max(v, int32_t{0}), int32_t{255}));
    };
    for (size_t y = 0; y < h; ++y) {
      for (size_t x = 0; x < w; ++x) {
        const int32_t r = at(red, y, x), g = at(1, y, x), b = at(blue, y, x);
        frame.YRow(y)[x] = clamp(((k.yr * r + k.yg * g + k.yb * b + kHalf) >> kYuvShift) + k.y0);
      }
    }
    for (size_t y = 0; y < h; y += 2) {
      uint8_t* chroma = frame.CbCrRow(y / 2);
      for (size_t x = 0; x < w; x += 2) {
        const auto mean = [&](size_t c) {
          return (at(c, y, x) + at(c, y, x + 1) + at(c, y + 1, x) + at(c, y + 1, x + 1) + 2) >> 2;
        };
        const int32_t r = mean(red), g = mean(1), b = mean(blue);
        chroma[x] = clamp(((k.ur * r + k.ug * g + k.ub * b + kHalf) >> kYuvShift) + 128);
        chroma[x + 1] = clamp(((k.vr * r + k.vg * g + k.vb * b + kHalf) >> kYuvShift) + 128);
      }
    }
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_RGB_TO_NV12_H_
