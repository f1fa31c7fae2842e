// Linear quantization kernels (see quantize.h): one row function each way,
// in float-sized lanes, with the parameters broadcast (per tensor, or an
// axis outside the row) or loaded beside the data (the axis is the row).
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_QUANTIZE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_QUANTIZE_INL_H_
#undef TENSOROPS_OPS_QUANTIZE_INL_H_
#else
#define TENSOROPS_OPS_QUANTIZE_INL_H_
#endif

#include <hwy/highway.h>

#include "tensorops/detail/ieee-inl.h"
#include "tensorops/detail/row-inl.h"
#include "tensorops/detail/storage-inl.h"
#include "tensorops/ops/convert-inl.h"
#include "tensorops/ops/quantize.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using QuantTag = hn::ScalableTag<float>;

// One vector of x quantized: the quotient is rounded before zp is added
// (ONNX's order; rounding x / s + zp moves ties by zp's parity). `lo` and `hi`
// are the output's range less zp: whole numbers, so clamping before rounding
// clamps the rounded value. Adding 1.5 * 2^23 to a value within 2^22 rounds it
// to a whole number, half to even (the sum's unit in the last place is 1), and
// leaves that number in the sum's low mantissa bits, where an integer
// subtraction reads it out with zp added.
template <class Q>
HWY_INLINE hn::Vec<hn::Rebind<Q, QuantTag>> QuantizeLanes(
    hn::Vec<QuantTag> x, hn::Vec<QuantTag> scale, hn::Vec<QuantTag> lo, hn::Vec<QuantTag> hi,
    hn::Vec<hn::Rebind<int32_t, QuantTag>> zero_point) {
  const QuantTag df;
  const hn::Rebind<int32_t, QuantTag> di;
  const hn::Rebind<uint32_t, QuantTag> du;
  constexpr float kRoundingBias = 12582912.0f;  // 1.5 * 2^23
  constexpr int32_t kRoundingBiasBits = 0x4B400000;
  auto q = math::Div(df, x, scale);
  q = hn::IfThenZeroElse(hn::IsNaN(q), q);
  q = hn::Min(hn::Max(q, lo), hi);
  const auto biased = hn::BitCast(di, hn::Add(q, hn::Set(df, kRoundingBias)));
  // U8FromU32 takes 0..255 (some targets saturate), so int8 is offset by 128
  // there and its sign bit flipped back in the byte.
  constexpr int32_t kOffset = hwy::IsSame<Q, int8_t>() ? 128 : 0;
  const auto y = hn::Add(biased, hn::Sub(zero_point, hn::Set(di, kRoundingBiasBits - kOffset)));
  const auto bytes = hn::U8FromU32(hn::BitCast(du, y));
  const hn::Rebind<uint8_t, QuantTag> d8;
  if constexpr (kOffset != 0) {
    return hn::BitCast(hn::Rebind<Q, QuantTag>(), hn::Xor(bytes, hn::Set(d8, uint8_t{0x80})));
  } else {
    return bytes;
  }
}

// Q's range as float, and the zero points of lanes [0, count) of a row whose
// parameters change along it (0 where there are none).
template <class Q>
inline constexpr float kQuantLo = hwy::IsSame<Q, int8_t>() ? -128.0f : 0.0f;
template <class Q>
inline constexpr float kQuantHi = hwy::IsSame<Q, int8_t>() ? 127.0f : 255.0f;

template <class Q>
HWY_INLINE hn::Vec<hn::Rebind<int32_t, QuantTag>> ZeroPointsAt(const Q* zero_point, size_t count) {
  const hn::Rebind<int32_t, QuantTag> di;
  if (zero_point == nullptr) return hn::Zero(di);
  return hn::PromoteTo(di, LoadUpTo(hn::Rebind<Q, QuantTag>(), zero_point, count));
}

// Inlined into the row loop with along_row fixed: NHWC per channel runs short
// rows (one per pixel), where a call per row would cost as much as the row.
template <class X, class Q, bool kAlongRow>
HWY_INLINE void QuantizeRow(const X* HWY_RESTRICT x, Q* HWY_RESTRICT y, size_t count,
                            const float* scale, const Q* zero_point) {
  const QuantTag df;
  const hn::Rebind<X, QuantTag> dx;
  const hn::Rebind<Q, QuantTag> dq;
  const size_t lanes = hn::Lanes(df);
  if constexpr (!kAlongRow) {
    const hn::Rebind<int32_t, QuantTag> di;
    const auto s = hn::Set(df, scale[0]);
    const int32_t zp0 = zero_point == nullptr ? 0 : zero_point[0];
    const auto zp = hn::Set(di, zp0);
    const auto lo = hn::Set(df, kQuantLo<Q> - static_cast<float>(zp0));
    const auto hi = hn::Set(df, kQuantHi<Q> - static_cast<float>(zp0));
    size_t i = 0;
    for (; i + lanes <= count; i += lanes) {
      const auto v = WidenToF32<X>(df, hn::LoadU(dx, x + i));
      hn::StoreU(QuantizeLanes<Q>(v, s, lo, hi, zp), dq, y + i);
    }
    if (i < count) {
      const auto v = WidenToF32<X>(df, LoadTail(dx, x + i, count - i));
      StoreTail(QuantizeLanes<Q>(v, s, lo, hi, zp), dq, y + i, count - i);
    }
    return;
  }
  for (size_t i = 0; i < count; i += lanes) {
    const size_t n = HWY_MIN(lanes, count - i);
    // Lanes past n divide by a zero scale; their results are not stored.
    const auto s = LoadUpTo(df, scale + i, n);
    const auto zp = ZeroPointsAt<Q>(zero_point == nullptr ? nullptr : zero_point + i, n);
    const auto zp_float = hn::ConvertTo(df, zp);
    const auto lo = hn::Sub(hn::Set(df, kQuantLo<Q>), zp_float);
    const auto hi = hn::Sub(hn::Set(df, kQuantHi<Q>), zp_float);
    const auto v = WidenToF32<X>(df, LoadUpTo(dx, x + i, n));
    StoreUpTo(QuantizeLanes<Q>(v, s, lo, hi, zp), dq, y + i, n);
  }
}

// x - zp exactly in int32 lanes (8-bit x; int32 x has no zero point), then
// one rounding to float and one multiplication.
template <class Q>
HWY_INLINE hn::Vec<QuantTag> DequantizeLanes(hn::Vec<hn::Rebind<Q, QuantTag>> x,
                                             hn::Vec<hn::Rebind<int32_t, QuantTag>> zero_point,
                                             hn::Vec<QuantTag> scale) {
  const QuantTag df;
  const hn::Rebind<int32_t, QuantTag> di;
  if constexpr (hwy::IsSame<Q, int32_t>()) {
    (void)zero_point, (void)di;
    return hn::Mul(hn::ConvertTo(df, x), scale);
  } else {
    return hn::Mul(hn::ConvertTo(df, hn::Sub(hn::PromoteTo(di, x), zero_point)), scale);
  }
}

template <class Q, class Y, bool kAlongRow>
HWY_INLINE void DequantizeRow(const Q* HWY_RESTRICT x, Y* HWY_RESTRICT y, size_t count,
                              const float* scale, const Q* zero_point) {
  const QuantTag df;
  const hn::Rebind<Q, QuantTag> dq;
  const hn::Rebind<Y, QuantTag> dy;
  const hn::Rebind<int32_t, QuantTag> di;
  const size_t lanes = hn::Lanes(df);
  if constexpr (!kAlongRow) {
    const auto s = hn::Set(df, scale[0]);
    const auto zp = hn::Set(di, zero_point == nullptr ? 0 : static_cast<int32_t>(zero_point[0]));
    size_t i = 0;
    for (; i + lanes <= count; i += lanes) {
      hn::StoreU(NarrowFromF32<Y>(df, DequantizeLanes<Q>(hn::LoadU(dq, x + i), zp, s)), dy, y + i);
    }
    if (i < count) {
      const auto v = DequantizeLanes<Q>(LoadTail(dq, x + i, count - i), zp, s);
      StoreTail(NarrowFromF32<Y>(df, v), dy, y + i, count - i);
    }
    return;
  }
  for (size_t i = 0; i < count; i += lanes) {
    const size_t n = HWY_MIN(lanes, count - i);
    const auto s = LoadUpTo(df, scale + i, n);
    auto zp = hn::Zero(di);
    if constexpr (!hwy::IsSame<Q, int32_t>()) {
      if (zero_point != nullptr) zp = hn::PromoteTo(di, LoadUpTo(dq, zero_point + i, n));
    }
    const auto v = DequantizeLanes<Q>(LoadUpTo(dq, x + i, n), zp, s);
    StoreUpTo(NarrowFromF32<Y>(df, v), dy, y + i, n);
  }
}

template <class In, class Out, class Q, class RowFn>
HWY_INLINE void ForEachQuantRow(const LinearQuantJob<In, Out, Q>& job, const RowFn& row_fn) {
  const auto* src = reinterpret_cast<const uint8_t*>(job.src);
  auto* dst = reinterpret_cast<uint8_t*>(job.dst);
  ForEachRow(job.nest, [&](const size_t (&offsets)[3]) {
    const size_t p = (job.param_bytes + offsets[2]) / 4;
    row_fn(reinterpret_cast<const In*>(src + offsets[0]), reinterpret_cast<Out*>(dst + offsets[1]),
           job.scale + p, job.zero_point == nullptr ? nullptr : job.zero_point + p);
  });
}

template <class X, class Q>
struct Impl<QuantizeKernel<X, Q>> {
  static void Run(const QuantizeKernel<X, Q>&, const typename QuantizeKernel<X, Q>::Job& job) {
    if (job.along_row) {
      ForEachQuantRow(job, [&](const X* x, Q* y, const float* scale, const Q* zero_point) {
        QuantizeRow<X, Q, true>(x, y, job.nest.row, scale, zero_point);
      });
    } else {
      ForEachQuantRow(job, [&](const X* x, Q* y, const float* scale, const Q* zero_point) {
        QuantizeRow<X, Q, false>(x, y, job.nest.row, scale, zero_point);
      });
    }
  }
};

template <class Q, class Y>
struct Impl<DequantizeKernel<Q, Y>> {
  static void Run(const DequantizeKernel<Q, Y>&, const typename DequantizeKernel<Q, Y>::Job& job) {
    if (job.along_row) {
      ForEachQuantRow(job, [&](const Q* x, Y* y, const float* scale, const Q* zero_point) {
        DequantizeRow<Q, Y, true>(x, y, job.nest.row, scale, zero_point);
      });
    } else {
      ForEachQuantRow(job, [&](const Q* x, Y* y, const float* scale, const Q* zero_point) {
        DequantizeRow<Q, Y, false>(x, y, job.nest.row, scale, zero_point);
      });
    }
  }
};

// min(0, min x) and max(0, max x): NaN lanes count as 0, which the range
// holds anyway.
template <class X>
struct Impl<QuantRangeKernel<X>> {
  static void Run(const QuantRangeKernel<X>&, const typename QuantRangeKernel<X>::Job& job) {
    const QuantTag df;
    const hn::Rebind<X, QuantTag> dx;
    const size_t lanes = hn::Lanes(df);
    auto lo = hn::Zero(df);
    auto hi = hn::Zero(df);
    const auto* src = reinterpret_cast<const uint8_t*>(job.src);
    ForEachRow(job.nest, [&](const size_t (&offsets)[1]) {
      const X* x = reinterpret_cast<const X*>(src + offsets[0]);
      for (size_t i = 0; i < job.nest.row; i += lanes) {
        auto v = WidenToF32<X>(df, LoadUpTo(dx, x + i, HWY_MIN(lanes, job.nest.row - i)));
        v = hn::IfThenZeroElse(hn::IsNaN(v), v);
        lo = hn::Min(lo, v);
        hi = hn::Max(hi, v);
      }
    });
    *job.lo = hn::GetLane(hn::MinOfLanes(df, lo));
    *job.hi = hn::GetLane(hn::MaxOfLanes(df, hi));
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_QUANTIZE_INL_H_
