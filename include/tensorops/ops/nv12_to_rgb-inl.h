// Nv12ToRgb kernel: two luma rows per chroma row, a vector of pixels at a
// time in int32 lanes (the 20-bit products need 32 bits). The CbCr bytes under
// a vector of pixels are loaded as they lie (Cb Cr Cb Cr ...) and DupEven /
// DupOdd give every pixel its Cb and Cr. The last vector of a row overlaps
// the previous one instead of running a scalar tail.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_NV12_TO_RGB_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_NV12_TO_RGB_INL_H_
#undef TENSOROPS_OPS_NV12_TO_RGB_INL_H_
#else
#define TENSOROPS_OPS_NV12_TO_RGB_INL_H_
#endif

#include <hwy/highway.h>

#include "tensorops/detail/row-inl.h"
#include "tensorops/ops/nv12_to_rgb.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One pixel, the formula of nv12_to_rgb.h in scalar code (rows narrower than
// a vector, and the scalar target). Writes R, G, B clamped to [0, 255].
HWY_INLINE void Nv12Pixel(const YuvFixedPoint& k, int32_t y, int32_t cb, int32_t cr,
                          int32_t (&rgb)[3]) {
  const int32_t luma = HWY_MAX(y - k.y0, 0) * k.cy + (1 << (kYuvShift - 1));
  const int32_t u = cb - 128, v = cr - 128;
  const int32_t raw[3] = {(luma + k.crv * v) >> kYuvShift,
                          (luma + k.cgu * u + k.cgv * v) >> kYuvShift,
                          (luma + k.cbu * u) >> kYuvShift};
  for (size_t c = 0; c < 3; ++c) rgb[c] = HWY_MIN(HWY_MAX(raw[c], 0), 255);
}

template <class T, bool kInterleaved>
struct Impl<Nv12ToRgbKernel<T, kInterleaved>> {
  using Job = typename Nv12ToRgbKernel<T, kInterleaved>::Job;

  static T* Out(const Job& job, size_t c, size_t y, size_t x) {
    return reinterpret_cast<T*>(reinterpret_cast<uint8_t*>(job.dst[c]) + y * job.dst_row +
                                x * job.dst_pixel);
  }

  static void ScalarPixels(const Job& job, size_t y, size_t x_begin, size_t x_end) {
    const uint8_t* luma = job.y_plane + y * job.row_pitch;
    const uint8_t* chroma = job.cbcr_plane + (y / 2) * job.row_pitch;
    for (size_t x = x_begin; x < x_end; ++x) {
      int32_t rgb[3];
      Nv12Pixel(job.k, luma[x], chroma[x & ~size_t{1}], chroma[x | 1], rgb);
      for (size_t c = 0; c < 3; ++c) {
        if constexpr (hwy::IsSame<T, uint8_t>()) {
          *Out(job, c, y, x) = static_cast<uint8_t>(rgb[c]);
        } else {
          *Out(job, c, y, x) = static_cast<float>(rgb[c]) * job.scale[c] + job.bias[c];
        }
      }
    }
  }

  static void Run(const Nv12ToRgbKernel<T, kInterleaved>&, const Job& job) {
#if HWY_TARGET == HWY_SCALAR
    for (size_t y = 0; y < job.height; ++y) ScalarPixels(job, y, 0, job.width);
#else
    const hn::ScalableTag<int32_t> di;
    const size_t lanes = hn::Lanes(di);
    if (job.width < lanes) {
      for (size_t y = 0; y < job.height; ++y) ScalarPixels(job, y, 0, job.width);
      return;
    }
    for (size_t y = 0; y < job.height; y += 2) {
      const uint8_t* chroma = job.cbcr_plane + (y / 2) * job.row_pitch;
      for (size_t x = 0;; x += lanes) {
        // Lanes is even, width even: the overlapping last vector starts on a pixel pair.
        const size_t at = HWY_MIN(x, job.width - lanes);
        PixelVector(job, di, chroma + at, y, at);
        if (at + lanes == job.width) break;
      }
    }
#endif
  }

#if HWY_TARGET != HWY_SCALAR
  // Pixels [x, x + lanes) of luma rows y and y + 1.
  template <class DI>
  static HWY_INLINE void PixelVector(const Job& job, DI di, const uint8_t* chroma, size_t y,
                                     size_t x) {
    const hn::Rebind<uint8_t, DI> du8;
    const YuvFixedPoint& k = job.k;
    const auto pairs = hn::PromoteTo(di, hn::LoadU(du8, chroma));
    const auto u = hn::Sub(hn::DupEven(pairs), hn::Set(di, 128));
    const auto v = hn::Sub(hn::DupOdd(pairs), hn::Set(di, 128));
    const auto half = hn::Set(di, 1 << (kYuvShift - 1));
    // (Highway's MulAdd is for floats; these are int32 multiply + add.)
    const auto r_uv = hn::Add(hn::Mul(hn::Set(di, k.crv), v), half);
    const auto g_uv = hn::Add(hn::Add(hn::Mul(hn::Set(di, k.cgu), u), hn::Mul(hn::Set(di, k.cgv), v)), half);
    const auto b_uv = hn::Add(hn::Mul(hn::Set(di, k.cbu), u), half);
    for (size_t row = y; row < y + 2; ++row) {
      const auto luma8 = hn::PromoteTo(di, hn::LoadU(du8, job.y_plane + row * job.row_pitch + x));
      const auto luma = hn::Mul(hn::Max(hn::Sub(luma8, hn::Set(di, k.y0)), hn::Zero(di)),
                                hn::Set(di, k.cy));
      const hn::Vec<DI> rgb[3] = {hn::ShiftRight<kYuvShift>(hn::Add(luma, r_uv)),
                                  hn::ShiftRight<kYuvShift>(hn::Add(luma, g_uv)),
                                  hn::ShiftRight<kYuvShift>(hn::Add(luma, b_uv))};
      Store(job, di, rgb, row, x);
    }
  }

  template <class DI>
  static HWY_INLINE void Store(const Job& job, DI di, const hn::Vec<DI> (&rgb)[3], size_t row,
                               size_t x) {
    const hn::Rebind<T, DI> dt;
    hn::Vec<decltype(dt)> out[3];
    for (size_t c = 0; c < 3; ++c) {
      if constexpr (hwy::IsSame<T, uint8_t>()) {
        out[c] = hn::DemoteTo(dt, rgb[c]);  // saturates to [0, 255]: the formula's clamp
      } else {
        const auto clamped = hn::Min(hn::Max(rgb[c], hn::Zero(di)), hn::Set(di, 255));
        out[c] = hn::MulAdd(hn::ConvertTo(dt, clamped), hn::Set(dt, job.scale[c]),
                            hn::Set(dt, job.bias[c]));
      }
    }
    if constexpr (kInterleaved) {
      // The three channels are adjacent; BGR when blue's address comes first.
      const bool bgr = job.dst[2] < job.dst[0];
      hn::StoreInterleaved3(out[bgr ? 2 : 0], out[1], out[bgr ? 0 : 2], dt,
                            Out(job, bgr ? 2 : 0, row, x));
    } else {
      for (size_t c = 0; c < 3; ++c) hn::StoreU(out[c], dt, Out(job, c, row, x));
    }
  }
#endif
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_NV12_TO_RGB_INL_H_
