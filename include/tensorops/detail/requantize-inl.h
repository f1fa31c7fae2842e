// Requantization of int32 sums to uint8/int8 (the store of QGemm, QConv
// and QGlobalAveragePool): saturate(round_half_even(float(sum) * m) + zc).
//
// Included once per target through the kernels' -inl.h headers.
#if defined(TENSOROPS_DETAIL_REQUANTIZE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_DETAIL_REQUANTIZE_INL_H_
#undef TENSOROPS_DETAIL_REQUANTIZE_INL_H_
#else
#define TENSOROPS_DETAIL_REQUANTIZE_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <limits>

#include <hwy/highway.h>

#include "tensorops/detail/ieee-inl.h"
#include "tensorops/detail/row-inl.h"
#include "tensorops/parallel/split.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The lowest value a quantized output may take: the type's, or with ReLU zc
// (real 0) when that is higher.
template <class TC>
HWY_INLINE float QOutputLow(int zc, bool relu) {
  constexpr float kLo = hwy::IsSame<TC, int8_t>() ? -128.0f : 0.0f;
  return relu ? HWY_MAX(kLo, static_cast<float>(zc)) : kLo;
}

// Adding 1.5 * 2^23 to a value within 2^22 rounds it to a whole number,
// half to even (the sum's unit in the last place is 1), and leaves that
// number in the sum's low mantissa bits: the sum's bits are the number plus
// kRoundingBiasBits.
inline constexpr float kRoundingBias = 12582912.0f;  // 1.5 * 2^23
inline constexpr int32_t kRoundingBiasBits = 0x4B400000;

// A requantizing multiplier that overflowed to infinity (sa sb / sc beyond
// the float range) as the largest float: a nonzero sum still saturates, and
// a zero sum gives zc rather than NaN.
template <class DF>
HWY_INLINE hn::Vec<DF> QFiniteMultiplier(DF df, hn::Vec<DF> m) {
  return hn::Min(m, hn::Set(df, std::numeric_limits<float>::max()));
}
inline float QFiniteMultiplier(float m) { return HWY_MIN(m, std::numeric_limits<float>::max()); }

// m[j] = (sa * sb[j]) / sc for j in [0, n), in float as ONNX's reference
// computes it (sb[0] for every j unless per_column). math::Div is IEEE
// division on every target, so each m[j] is bit for bit the scalar value.
HWY_INLINE void QMultipliers(float sa, const float* sb, bool per_column, float sc, size_t n,
                             float* HWY_RESTRICT m) {
  const hn::ScalableTag<float> df;
  const size_t lanes = hn::Lanes(df);
  const auto vsa = hn::Set(df, sa), vsc = hn::Set(df, sc);
  for (size_t j = 0; j < n; j += lanes) {
    const size_t count = HWY_MIN(lanes, n - j);
    const auto vsb = per_column ? LoadUpTo(df, sb + j, count) : hn::Set(df, sb[0]);
    // Lanes past n divide 0 by sc; they are not stored.
    StoreUpTo(QFiniteMultiplier(df, math::Div(df, hn::Mul(vsa, vsb), vsc)), df, m + j, count);
  }
}

// saturate(round_half_even(sum * m) + zc) clamped below at `low`, in TC's
// lanes, from sums in float (exact integers, or float(int32 sums)) and a
// finite m (QFiniteMultiplier), so that sum * m is never NaN. The product is
// clamped to the output's range less zc first (whole numbers, so clamping
// before rounding clamps the rounded value), then rounded by kRoundingBias,
// whose sum holds the whole number in its low bits: an integer subtraction
// reads it out with zc added, and the demotion finds it in range.
template <class TC, class DF>
HWY_INLINE hn::Vec<hn::Rebind<TC, DF>> QRequantize(DF df, hn::Vec<DF> sum, hn::Vec<DF> m, float zc, float low) {
  const hn::Rebind<TC, DF> dc;
  const hn::Rebind<int32_t, DF> di;
  constexpr float kHi = hwy::IsSame<TC, int8_t>() ? 127.0f : 255.0f;
  auto q = hn::Mul(sum, m);
  q = hn::Min(hn::Max(q, hn::Set(df, low - zc)), hn::Set(df, kHi - zc));
  const auto biased = hn::BitCast(di, hn::Add(q, hn::Set(df, kRoundingBias)));
  return hn::DemoteTo(dc,
                      hn::Sub(biased, hn::Set(di, kRoundingBiasBits - static_cast<int32_t>(zc))));
}

// count lanes of v to out, `step` bytes apart.
template <class DC>
HWY_INLINE void QStoreLanes(DC dc, hn::Vec<DC> v, hn::TFromD<DC>* out, size_t step, size_t count) {
  using TC = hn::TFromD<DC>;
  if (step == sizeof(TC)) {
    StoreUpTo(v, dc, out, count);
    return;
  }
  // Outputs apart (NCHW channels): through a buffer of one vector.
  HWY_ALIGN TC lanes[HWY_MAX_BYTES / sizeof(int32_t)];
  hn::Store(v, dc, lanes);
  for (size_t i = 0; i < count; ++i) *detail::AdvanceBytes(out, i * step) = lanes[i];
}

// count outputs, `step` bytes apart, from int32 sums: for a uint8/int8 TC
// saturate(round_half_even(float(sum) * m) + zc) clamped below at `low`;
// for int32 the sums themselves.
template <class TC, class D>
HWY_INLINE void QStoreSums(D d32, hn::Vec<D> sum, hn::Vec<hn::Rebind<float, D>> m, float zc, float low,
                           TC* out, size_t step, size_t count) {
  const hn::Rebind<TC, D> dc;
  if constexpr (hwy::IsSame<TC, int32_t>()) {
    (void)m, (void)zc, (void)low;
    QStoreLanes(dc, sum, out, step, count);
  } else {
    const hn::Rebind<float, D> df;
    QStoreLanes(dc, QRequantize<TC>(df, hn::ConvertTo(df, sum), m, zc, low), out, step, count);
  }
  (void)d32;
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_DETAIL_REQUANTIZE_INL_H_
