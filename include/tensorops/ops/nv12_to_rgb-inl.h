// Nv12ToRgb kernel: two luma rows per chroma row, a vector of pixels at a
// time in int32 lanes (the 20-bit products need 32 bits). The CbCr bytes under
// a vector of pixels are loaded as they lie (Cb Cr Cb Cr ...) and DupEven /
// DupOdd give every pixel its Cb and Cr. Interleaved u8 output takes four
// vectors of pixels per step (PixelQuad); the last vector of a row overlaps
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
    const hn::Repartition<uint32_t, decltype(di)> du32;
    HWY_ALIGN uint32_t order[HWY_MAX_BYTES / 4] = {};
    const bool quads = kQuads && QuadOrder(di, order);
    const auto groups = hn::SetTableIndices(du32, order);
    for (size_t y = 0; y < job.height; y += 2) {
      const uint8_t* chroma = job.cbcr_plane + (y / 2) * job.row_pitch;
      size_t x = 0;
      if constexpr (kQuads) {
        for (; quads && x + 4 * lanes <= job.width; x += 4 * lanes) {
          PixelQuad(job, di, groups, chroma + x, y, x);
        }
        if (x == job.width) continue;
      }
      for (;; x += lanes) {
        // Lanes is even, width even: the overlapping last vector starts on a pixel pair.
        const size_t at = HWY_MIN(x, job.width - lanes);
        PixelVector(job, di, chroma + at, y, at);
        if (at + lanes == job.width) break;
      }
    }
#endif
  }

#if HWY_TARGET != HWY_SCALAR
  // Interleaved u8 output goes four vectors of pixels at a time: each channel
  // is demoted into one whole u8 vector and the three are interleaved by one
  // full-width StoreInterleaved3, instead of a four-instruction demote to a
  // quarter vector and a 128-bit interleave per vector of pixels (1080p on
  // AVX3_DL: 0.296 -> 0.199 ns per pixel; whole-vector interleave alone 0.254).
  static constexpr bool kQuads = hwy::IsSame<T, uint8_t>() && kInterleaved;

  // Four int32 vectors to one u8 vector, saturated to [0, 255] (through
  // int16, whose saturation keeps the sign and anything above 255), in groups
  // of four pixels whose order is the target's: ReorderDemote2To packs
  // within 128-bit blocks on AVX2 and AVX-512.
  template <class DI>
  static HWY_INLINE hn::Vec<hn::Repartition<uint8_t, DI>> PackQuad(DI /*di*/,
                                                                   const hn::Vec<DI> (&v)[4]) {
    const hn::Repartition<int16_t, DI> d16;
    const hn::Repartition<uint8_t, DI> du8;
    const hn::Half<decltype(du8)> dh;
    return hn::Combine(du8, hn::DemoteTo(dh, hn::ReorderDemote2To(d16, v[2], v[3])),
                       hn::DemoteTo(dh, hn::ReorderDemote2To(d16, v[0], v[1])));
  }

  // Where PackQuad puts each group of four pixels, found by packing pixel
  // numbers: order[m] = the uint32 lane holding pixels 4m .. 4m + 3. False
  // (use the per-vector path) if a target splits the groups.
  template <class DI>
  static bool QuadOrder(DI di, uint32_t* order) {
    const size_t lanes = hn::Lanes(di);
    if (4 * lanes > 256 || lanes % 4 != 0) return false;  // numbers must fit a byte
    hn::Vec<DI> numbers[4];
    for (size_t q = 0; q < 4; ++q) numbers[q] = hn::Iota(di, static_cast<int32_t>(q * lanes));
    HWY_ALIGN uint8_t packed[HWY_MAX_BYTES];
    hn::Store(PackQuad(di, numbers), hn::Repartition<uint8_t, DI>(), packed);
    bool seen[HWY_MAX_BYTES / 4] = {};
    for (size_t lane = 0; lane < lanes; ++lane) {
      const uint8_t* group = packed + 4 * lane;
      if (group[0] % 4 != 0 || seen[group[0] / 4]) return false;
      for (size_t t = 1; t < 4; ++t) {
        if (group[t] != group[0] + t) return false;
      }
      seen[group[0] / 4] = true;
      order[group[0] / 4] = static_cast<uint32_t>(lane);
    }
    return true;
  }

  // The chroma part of R, G, B (with the rounding half) for the pixels over
  // `chroma`: every pixel pair shares one Cb, Cr.
  template <class DI>
  static HWY_INLINE void ChromaTerms(const YuvFixedPoint& k, DI di, const uint8_t* chroma,
                                     hn::Vec<DI> (&uv)[3]) {
    const hn::Rebind<uint8_t, DI> du8;
    const auto pairs = hn::PromoteTo(di, hn::LoadU(du8, chroma));
    const auto u = hn::Sub(hn::DupEven(pairs), hn::Set(di, 128));
    const auto v = hn::Sub(hn::DupOdd(pairs), hn::Set(di, 128));
    const auto half = hn::Set(di, 1 << (kYuvShift - 1));
    // (Highway's MulAdd is for floats; these are int32 multiply + add.)
    uv[0] = hn::Add(hn::Mul(hn::Set(di, k.crv), v), half);
    uv[1] = hn::Add(hn::Add(hn::Mul(hn::Set(di, k.cgu), u), hn::Mul(hn::Set(di, k.cgv), v)), half);
    uv[2] = hn::Add(hn::Mul(hn::Set(di, k.cbu), u), half);
  }

  // R, G, B (not yet clamped) of the pixels over `luma`.
  template <class DI>
  static HWY_INLINE void Rgb(const YuvFixedPoint& k, DI di, const uint8_t* luma,
                             const hn::Vec<DI> (&uv)[3], hn::Vec<DI> (&rgb)[3]) {
    const hn::Rebind<uint8_t, DI> du8;
    const auto luma32 = hn::PromoteTo(di, hn::LoadU(du8, luma));
    const auto scaled = hn::Mul(hn::Max(hn::Sub(luma32, hn::Set(di, k.y0)), hn::Zero(di)),
                                hn::Set(di, k.cy));
    for (size_t c = 0; c < 3; ++c) rgb[c] = hn::ShiftRight<kYuvShift>(hn::Add(scaled, uv[c]));
  }

  // Pixels [x, x + lanes) of luma rows y and y + 1.
  template <class DI>
  static HWY_INLINE void PixelVector(const Job& job, DI di, const uint8_t* chroma, size_t y,
                                     size_t x) {
    hn::Vec<DI> uv[3];
    ChromaTerms(job.k, di, chroma, uv);
    for (size_t row = y; row < y + 2; ++row) {
      hn::Vec<DI> rgb[3];
      Rgb(job.k, di, job.y_plane + row * job.row_pitch + x, uv, rgb);
      Store(job, di, rgb, row, x);
    }
  }

  // Pixels [x, x + 4 lanes) of luma rows y and y + 1, interleaved u8 output.
  // `groups` puts PackQuad's groups of four pixels back in order.
  template <class DI, class Groups>
  static HWY_INLINE void PixelQuad(const Job& job, DI di, const Groups& groups,
                                   const uint8_t* chroma, size_t y, size_t x) {
    const size_t lanes = hn::Lanes(di);
    const hn::Repartition<uint8_t, DI> du8;  // 4 x lanes bytes
    const hn::Repartition<uint32_t, DI> du32;
    hn::Vec<DI> uv[4][3];
    for (size_t q = 0; q < 4; ++q) ChromaTerms(job.k, di, chroma + q * lanes, uv[q]);
    for (size_t row = y; row < y + 2; ++row) {
      const uint8_t* luma = job.y_plane + row * job.row_pitch + x;
      hn::Vec<DI> rgb[3][4];
      for (size_t q = 0; q < 4; ++q) {
        hn::Vec<DI> pixel[3];
        Rgb(job.k, di, luma + q * lanes, uv[q], pixel);
        for (size_t c = 0; c < 3; ++c) rgb[c][q] = pixel[c];
      }
      // Saturating to [0, 255] is the formula's clamp.
      hn::Vec<decltype(du8)> out[3];
      for (size_t c = 0; c < 3; ++c) {
        out[c] = hn::BitCast(du8, hn::TableLookupLanes(hn::BitCast(du32, PackQuad(di, rgb[c])),
                                                       groups));
      }
      StoreInterleaved(job, du8, out, row, x);
    }
  }

  // R, G, B of consecutive pixels of one row to interleaved output. The
  // three channels are adjacent; BGR when blue's address comes first.
  template <class D>
  static HWY_INLINE void StoreInterleaved(const Job& job, D d, const hn::Vec<D> (&rgb)[3],
                                          size_t row, size_t x) {
    const bool bgr = job.dst[2] < job.dst[0];
    hn::StoreInterleaved3(rgb[bgr ? 2 : 0], rgb[1], rgb[bgr ? 0 : 2], d,
                          Out(job, bgr ? 2 : 0, row, x));
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
      StoreInterleaved(job, dt, out, row, x);
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
