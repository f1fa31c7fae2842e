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
  template <class DI, class V = hn::Vec<DI>>
  static HWY_INLINE hn::Vec<hn::Repartition<uint8_t, DI>> PackQuad(DI /*di*/, V v0, V v1, V v2,
                                                                   V v3) {
    const hn::Repartition<int16_t, DI> d16;
    const hn::Repartition<uint8_t, DI> du8;
    const hn::Half<decltype(du8)> dh;
    return hn::Combine(du8, hn::DemoteTo(dh, hn::ReorderDemote2To(d16, v2, v3)),
                       hn::DemoteTo(dh, hn::ReorderDemote2To(d16, v0, v1)));
  }

  // Where PackQuad puts each group of four pixels, found by packing pixel
  // numbers: order[m] = the uint32 lane holding pixels 4m .. 4m + 3. False
  // (use the per-vector path) if a target splits the groups.
  template <class DI>
  static bool QuadOrder(DI di, uint32_t* order) {
    const size_t lanes = hn::Lanes(di);
    if (4 * lanes > 256 || lanes % 4 != 0) return false;  // numbers must fit a byte
    const auto number = [&](size_t q) { return hn::Iota(di, static_cast<int32_t>(q * lanes)); };
    HWY_ALIGN uint8_t packed[HWY_MAX_BYTES];
    hn::Store(PackQuad(di, number(0), number(1), number(2), number(3)),
              hn::Repartition<uint8_t, DI>(), packed);
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
  // `chroma`: every pixel pair shares one Cb, Cr. Three vectors out, by
  // reference (SVE vectors cannot be array elements).
  template <class DI, class V = hn::Vec<DI>>
  static HWY_INLINE void ChromaTerms(const YuvFixedPoint& k, DI di, const uint8_t* chroma,
                                     V& uv_r, V& uv_g, V& uv_b) {
    const hn::Rebind<uint8_t, DI> du8;
    const auto pairs = hn::PromoteTo(di, hn::LoadU(du8, chroma));
    const auto u = hn::Sub(hn::DupEven(pairs), hn::Set(di, 128));
    const auto v = hn::Sub(hn::DupOdd(pairs), hn::Set(di, 128));
    const auto half = hn::Set(di, 1 << (kYuvShift - 1));
    // (Highway's MulAdd is for floats; these are int32 multiply + add.)
    uv_r = hn::Add(hn::Mul(hn::Set(di, k.crv), v), half);
    uv_g = hn::Add(hn::Add(hn::Mul(hn::Set(di, k.cgu), u), hn::Mul(hn::Set(di, k.cgv), v)), half);
    uv_b = hn::Add(hn::Mul(hn::Set(di, k.cbu), u), half);
  }

  // The luma part of R, G and B of the pixels over `luma`.
  template <class DI>
  static HWY_INLINE hn::Vec<DI> LumaTerm(const YuvFixedPoint& k, DI di, const uint8_t* luma) {
    const hn::Rebind<uint8_t, DI> du8;
    const auto luma32 = hn::PromoteTo(di, hn::LoadU(du8, luma));
    return hn::Mul(hn::Max(hn::Sub(luma32, hn::Set(di, k.y0)), hn::Zero(di)), hn::Set(di, k.cy));
  }

  // One channel (not yet clamped) from its luma and chroma terms.
  template <class V>
  static HWY_INLINE V Channel(V luma_term, V chroma_term) {
    return hn::ShiftRight<kYuvShift>(hn::Add(luma_term, chroma_term));
  }

  // Pixels [x, x + lanes) of luma rows y and y + 1.
  template <class DI>
  static HWY_INLINE void PixelVector(const Job& job, DI di, const uint8_t* chroma, size_t y,
                                     size_t x) {
    hn::Vec<DI> uv_r, uv_g, uv_b;
    ChromaTerms(job.k, di, chroma, uv_r, uv_g, uv_b);
    for (size_t row = y; row < y + 2; ++row) {
      const auto luma = LumaTerm(job.k, di, job.y_plane + row * job.row_pitch + x);
      Store(job, di, Channel(luma, uv_r), Channel(luma, uv_g), Channel(luma, uv_b), row, x);
    }
  }

  // Pixels [x, x + 4 lanes) of luma rows y and y + 1, interleaved u8 output.
  // `groups` puts PackQuad's groups of four pixels back in order.
  template <class DI, class Groups>
  static HWY_INLINE void PixelQuad(const Job& job, DI di, const Groups& groups,
                                   const uint8_t* chroma, size_t y, size_t x) {
    using V = hn::Vec<DI>;
    const size_t lanes = hn::Lanes(di);
    const hn::Repartition<uint8_t, DI> du8;  // 4 x lanes bytes
    const hn::Repartition<uint32_t, DI> du32;
    // The chroma terms of the four vectors of pixels: red of vector q is rq.
    V r0, g0, b0, r1, g1, b1, r2, g2, b2, r3, g3, b3;
    ChromaTerms(job.k, di, chroma, r0, g0, b0);
    ChromaTerms(job.k, di, chroma + lanes, r1, g1, b1);
    ChromaTerms(job.k, di, chroma + 2 * lanes, r2, g2, b2);
    ChromaTerms(job.k, di, chroma + 3 * lanes, r3, g3, b3);
    for (size_t row = y; row < y + 2; ++row) {
      const uint8_t* luma = job.y_plane + row * job.row_pitch + x;
      const V l0 = LumaTerm(job.k, di, luma), l1 = LumaTerm(job.k, di, luma + lanes);
      const V l2 = LumaTerm(job.k, di, luma + 2 * lanes), l3 = LumaTerm(job.k, di, luma + 3 * lanes);
      // Saturating to [0, 255] is the formula's clamp.
      const auto packed = [&](V c0, V c1, V c2, V c3) {
        const auto quad = PackQuad(di, Channel(l0, c0), Channel(l1, c1), Channel(l2, c2),
                                   Channel(l3, c3));
        return hn::BitCast(du8, hn::TableLookupLanes(hn::BitCast(du32, quad), groups));
      };
      StoreInterleaved(job, du8, packed(r0, r1, r2, r3), packed(g0, g1, g2, g3),
                       packed(b0, b1, b2, b3), row, x);
    }
  }

  // R, G, B of consecutive pixels of one row to interleaved output. The
  // three channels are adjacent; BGR when blue's address comes first.
  template <class D, class V = hn::Vec<D>>
  static HWY_INLINE void StoreInterleaved(const Job& job, D d, V r, V g, V b, size_t row,
                                          size_t x) {
    if (job.dst[2] < job.dst[0]) {
      hn::StoreInterleaved3(b, g, r, d, Out(job, 2, row, x));
    } else {
      hn::StoreInterleaved3(r, g, b, d, Out(job, 0, row, x));
    }
  }

  template <class DI, class V = hn::Vec<DI>>
  static HWY_INLINE void Store(const Job& job, DI di, V r, V g, V b, size_t row, size_t x) {
    const hn::Rebind<T, DI> dt;
    const auto convert = [&](V channel, size_t c) {
      if constexpr (hwy::IsSame<T, uint8_t>()) {
        return hn::DemoteTo(dt, channel);  // saturates to [0, 255]: the formula's clamp
      } else {
        const auto clamped = hn::Min(hn::Max(channel, hn::Zero(di)), hn::Set(di, 255));
        return hn::MulAdd(hn::ConvertTo(dt, clamped), hn::Set(dt, job.scale[c]),
                          hn::Set(dt, job.bias[c]));
      }
    };
    if constexpr (kInterleaved) {
      StoreInterleaved(job, dt, convert(r, 0), convert(g, 1), convert(b, 2), row, x);
    } else {
      hn::StoreU(convert(r, 0), dt, Out(job, 0, row, x));
      hn::StoreU(convert(g, 1), dt, Out(job, 1, row, x));
      hn::StoreU(convert(b, 2), dt, Out(job, 2, row, x));
    }
  }
#endif
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_NV12_TO_RGB_INL_H_
