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
// (ONNX's order; rounding x / s + zp moves ties by zp's parity).
template <class Q>
HWY_INLINE hn::Vec<hn::Rebind<Q, QuantTag>> QuantizeLanes(hn::Vec<QuantTag> x,
                                                          hn::Vec<QuantTag> scale,
                                                          hn::Vec<QuantTag> zero_point) {
  const QuantTag df;
  constexpr float kLo = hwy::IsSame<Q, int8_t>() ? -128.0f : 0.0f;
  constexpr float kHi = hwy::IsSame<Q, int8_t>() ? 127.0f : 255.0f;
  auto q = math::Div(df, x, scale);
  q = hn::IfThenZeroElse(hn::IsNaN(q), q);
  // Round leaves |q| >= 2^23 as it is (already whole); adding zp to a
  // quotient past 2^24 may round, but such a value saturates either way.
  q = hn::Add(hn::Round(q), zero_point);
  q = hn::Min(hn::Max(q, hn::Set(df, kLo)), hn::Set(df, kHi));
  return hn::DemoteTo(hn::Rebind<Q, QuantTag>(), hn::NearestInt(q));
}

// The zero points of lanes [0, count) of a row whose parameters change along
// it, as float (0 where there are none).
template <class Q>
HWY_INLINE hn::Vec<QuantTag> ZeroPointsAt(const Q* zero_point, size_t count) {
  const QuantTag df;
  if (zero_point == nullptr) return hn::Zero(df);
  return WidenToF32<Q>(df, LoadUpTo(hn::Rebind<Q, QuantTag>(), zero_point, count));
}

template <class X, class Q>
void QuantizeRow(const X* HWY_RESTRICT x, Q* HWY_RESTRICT y, size_t count, const float* scale,
                 const Q* zero_point, bool along_row) {
  const QuantTag df;
  const hn::Rebind<X, QuantTag> dx;
  const hn::Rebind<Q, QuantTag> dq;
  const size_t lanes = hn::Lanes(df);
  if (!along_row) {
    const auto s = hn::Set(df, scale[0]);
    const auto zp = hn::Set(df, zero_point == nullptr ? 0.0f : static_cast<float>(zero_point[0]));
    size_t i = 0;
    for (; i + lanes <= count; i += lanes) {
      hn::StoreU(QuantizeLanes<Q>(WidenToF32<X>(df, hn::LoadU(dx, x + i)), s, zp), dq, y + i);
    }
    if (i < count) {
      const auto v = WidenToF32<X>(df, LoadTail(dx, x + i, count - i));
      StoreTail(QuantizeLanes<Q>(v, s, zp), dq, y + i, count - i);
    }
    return;
  }
  for (size_t i = 0; i < count; i += lanes) {
    const size_t n = HWY_MIN(lanes, count - i);
    // Lanes past n divide by a zero scale; their results are not stored.
    const auto s = LoadUpTo(df, scale + i, n);
    const auto zp = ZeroPointsAt<Q>(zero_point == nullptr ? nullptr : zero_point + i, n);
    const auto v = WidenToF32<X>(df, LoadUpTo(dx, x + i, n));
    StoreUpTo(QuantizeLanes<Q>(v, s, zp), dq, y + i, n);
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

template <class Q, class Y>
void DequantizeRow(const Q* HWY_RESTRICT x, Y* HWY_RESTRICT y, size_t count, const float* scale,
                   const Q* zero_point, bool along_row) {
  const QuantTag df;
  const hn::Rebind<Q, QuantTag> dq;
  const hn::Rebind<Y, QuantTag> dy;
  const hn::Rebind<int32_t, QuantTag> di;
  const size_t lanes = hn::Lanes(df);
  if (!along_row) {
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
    ForEachQuantRow(job, [&](const X* x, Q* y, const float* scale, const Q* zero_point) {
      QuantizeRow<X, Q>(x, y, job.nest.row, scale, zero_point, job.along_row);
    });
  }
};

template <class Q, class Y>
struct Impl<DequantizeKernel<Q, Y>> {
  static void Run(const DequantizeKernel<Q, Y>&, const typename DequantizeKernel<Q, Y>::Job& job) {
    ForEachQuantRow(job, [&](const Q* x, Y* y, const float* scale, const Q* zero_point) {
      DequantizeRow<Q, Y>(x, y, job.nest.row, scale, zero_point, job.along_row);
    });
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
