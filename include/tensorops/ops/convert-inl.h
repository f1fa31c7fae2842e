// Convert kernels: one row function per element-type pair, vectorised in
// float-sized lanes (Rebind keeps the lane count when the type narrows or
// widens), walked over the LoopNest that Convert built.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_CONVERT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_CONVERT_INL_H_
#undef TENSOROPS_OPS_CONVERT_INL_H_
#else
#define TENSOROPS_OPS_CONVERT_INL_H_
#endif

#include <hwy/highway.h>

#include "tensorops/detail/row-inl.h"
#include "tensorops/detail/storage-inl.h"
#include "tensorops/ops/convert.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// A vector of From (Lanes(df) of them) as float.
template <class From, class DF>
HWY_INLINE hn::Vec<DF> WidenToF32(DF df, hn::Vec<hn::Rebind<From, DF>> v) {
  if constexpr (kIsFloatElement<From>) {
    return ToF32<From>(df, v);
  } else {
    const hn::RebindToSigned<DF> di;
    if constexpr (sizeof(From) == 4) {
      return hn::ConvertTo(df, v);
    } else {
      return hn::ConvertTo(df, hn::PromoteTo(di, v));
    }
  }
}

// Float lanes as To: round to nearest even; integers saturate and NaN -> 0.
template <class To, class DF>
HWY_INLINE hn::Vec<hn::Rebind<To, DF>> NarrowFromF32(DF df, hn::Vec<DF> v) {
  if constexpr (kIsFloatElement<To>) {
    return FromF32<To>(df, v);
  } else {
    const hn::RebindToSigned<DF> di;
    v = hn::IfThenZeroElse(hn::IsNaN(v), v);
    if constexpr (hwy::IsSame<To, int32_t>()) {
      // 2^31 is not an int32; the largest float below it is 2^31 - 128.
      const auto too_big = hn::Ge(v, hn::Set(df, 2147483648.0f));
      const auto rounded = hn::NearestInt(
          hn::Max(hn::Min(v, hn::Set(df, 2147483520.0f)),
                  hn::Set(df, -2147483648.0f)));
      return hn::IfThenElse(hn::RebindMask(di, too_big),
                            hn::Set(di, 2147483647), rounded);
    } else {
      const float lo = hwy::IsSame<To, int8_t>() ? -128.0f : 0.0f;
      const float hi = hwy::IsSame<To, int8_t>() ? 127.0f : 255.0f;
      const auto clamped = hn::Min(hn::Max(v, hn::Set(df, lo)), hn::Set(df, hi));
      return hn::DemoteTo(hn::Rebind<To, DF>(), hn::NearestInt(clamped));
    }
  }
}

template <class From, class To>
HWY_INLINE void ConvertRow(const From* HWY_RESTRICT src, To* HWY_RESTRICT dst,
                           size_t count) {
  if constexpr (hwy::IsSame<From, To>()) {
    CopyBytesRow(reinterpret_cast<const uint8_t*>(src), reinterpret_cast<uint8_t*>(dst),
                 count * sizeof(From));
  } else {
    const hn::ScalableTag<float> df;
    const hn::Rebind<From, decltype(df)> d_from;
    const hn::Rebind<To, decltype(df)> d_to;
    const size_t lanes = hn::Lanes(df);
    size_t i = 0;
    for (; i + lanes <= count; i += lanes) {
      const auto v = WidenToF32<From>(df, hn::LoadU(d_from, src + i));
      hn::StoreU(NarrowFromF32<To>(df, v), d_to, dst + i);
    }
    if (i < count) {
      const size_t rest = count - i;
      const auto v = WidenToF32<From>(df, LoadTail(d_from, src + i, rest));
      StoreTail(NarrowFromF32<To>(df, v), d_to, dst + i, rest);
    }
  }
}

template <class From, class To>
struct Impl<ConvertKernel<From, To>> {
  static void Run(const ConvertKernel<From, To>&,
                  const typename ConvertKernel<From, To>::Job& job) {
    const auto* src = reinterpret_cast<const uint8_t*>(job.src);
    auto* dst = reinterpret_cast<uint8_t*>(job.dst);
    ForEachRow(job.nest, [&](const size_t (&offsets)[2]) {
      ConvertRow(reinterpret_cast<const From*>(src + offsets[0]),
                 reinterpret_cast<To*>(dst + offsets[1]), job.nest.row);
    });
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_CONVERT_INL_H_
