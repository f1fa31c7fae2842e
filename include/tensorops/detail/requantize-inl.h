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

// round_half_even(sum * m) + zc in int32 lanes, clamped below at `low`, from
// sums in float (exact integers, or float(int32 sums)) and a finite m
// (QFiniteMultiplier), so that sum * m is never NaN. Adding kRoundingBias to
// the product rounds it and leaves the whole number in the sum's low bits,
// read out (with zc added) by one integer subtraction. Only the lower clamp is
// needed: it keeps the biased sum positive (and applies ReLU's floor); above,
// the sum's bits grow with the product up to infinity without overflowing, so
// the saturating demotion to TC clamps there. The caller sets up `floor`
// (low - zc) and `bias_less_zc` (kRoundingBiasBits - zc) once.
template <class DF>
HWY_INLINE hn::Vec<hn::Rebind<int32_t, DF>> QRequantizedInts(
    DF df, hn::Vec<DF> sum, hn::Vec<DF> m, hn::Vec<DF> floor,
    hn::Vec<hn::Rebind<int32_t, DF>> bias_less_zc) {
  const hn::Rebind<int32_t, DF> di;
  const auto q = hn::Max(hn::Mul(sum, m), floor);
  return hn::Sub(hn::BitCast(di, hn::Add(q, hn::Set(df, kRoundingBias))), bias_less_zc);
}

// The same from zc and low.
template <class DF>
HWY_INLINE hn::Vec<hn::Rebind<int32_t, DF>> QRequantizedInts(DF df, hn::Vec<DF> sum, hn::Vec<DF> m,
                                                             float zc, float low) {
  const hn::Rebind<int32_t, DF> di;
  return QRequantizedInts(df, sum, m, hn::Set(df, low - zc),
                          hn::Set(di, kRoundingBiasBits - static_cast<int32_t>(zc)));
}

// QRequantizedInts' lanes (never negative for a uint8 TC) in TC's, saturated.
// AVX-512 has one instruction for it, where Highway's DemoteTo takes four
// (two packs, a mask and a permutation) to handle negative int32.
template <class TC, class DI>
HWY_INLINE hn::Vec<hn::Rebind<TC, DI>> QDemote(DI di, hn::Vec<DI> v) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  if constexpr (hwy::IsSame<DI, hn::ScalableTag<int32_t>>()) {
    return hn::Vec<hn::Rebind<TC, DI>>{hwy::IsSigned<TC>() ? _mm512_cvtsepi32_epi8(v.raw)
                                                           : _mm512_cvtusepi32_epi8(v.raw)};
  }
#endif
  (void)di;
  return hn::DemoteTo(hn::Rebind<TC, DI>(), v);
}

// saturate(round_half_even(sum * m) + zc) clamped below at `low`, in TC's lanes.
template <class TC, class DF>
HWY_INLINE hn::Vec<hn::Rebind<TC, DF>> QRequantize(DF df, hn::Vec<DF> sum, hn::Vec<DF> m, float zc,
                                                   float low) {
  return QDemote<TC>(hn::Rebind<int32_t, DF>(), QRequantizedInts(df, sum, m, zc, low));
}

// count outputs from one vector of int32 sums with multipliers m[0, count),
// floor and bias_less_zc as QRequantizedInts takes them.
template <class TC, class DI>
HWY_INLINE void QStoreRequantized(DI di, hn::Vec<DI> sum, const float* HWY_RESTRICT m, float floor,
                                  int32_t bias_less_zc, TC* HWY_RESTRICT out, size_t count) {
  const hn::Rebind<float, DI> df;
  const auto ints = QRequantizedInts(df, hn::ConvertTo(df, sum), LoadFirst(df, m, count),
                                     hn::Set(df, floor), hn::Set(di, bias_less_zc));
  StoreFirst(QDemote<TC>(di, ints), hn::Rebind<TC, DI>(), out, count);
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSE4
// Two vectors of int16 to bytes with TC's saturation, each 128-bit block
// holding a's half of it then b's (x86's pack instructions).
template <class TC>
HWY_INLINE __m128i PackBlocks16To8(__m128i a, __m128i b) {
  return hwy::IsSigned<TC>() ? _mm_packs_epi16(a, b) : _mm_packus_epi16(a, b);
}
#if HWY_TARGET <= HWY_AVX2
template <class TC>
HWY_INLINE __m256i PackBlocks16To8(__m256i a, __m256i b) {
  return hwy::IsSigned<TC>() ? _mm256_packs_epi16(a, b) : _mm256_packus_epi16(a, b);
}
#endif
#if HWY_TARGET <= HWY_AVX3
template <class TC>
HWY_INLINE __m512i PackBlocks16To8(__m512i a, __m512i b) {
  return hwy::IsSigned<TC>() ? _mm512_packs_epi16(a, b) : _mm512_packus_epi16(a, b);
}
#endif
#endif

// Stores the first `count` (at most 4 vectors' worth) of the int32 lanes of
// v0, v1, v2, v3, in that order, demoted to TC (uint8 or int8) with
// saturation. Four at a time because the narrowing instructions take two
// vectors: x86 packs four in three instructions and one permutation (its
// packs interleave 128-bit blocks), where one vector's DemoteTo takes four;
// NEON narrows joined halves, six instructions for four vectors' eight. SVE
// (whose pairwise narrowing interleaves lanes) and the emulated targets
// demote one vector at a time.
template <class TC, class DI>
HWY_INLINE void StoreDemoted4(DI di, hn::Vec<DI> v0, hn::Vec<DI> v1, hn::Vec<DI> v2, hn::Vec<DI> v3,
                              TC* HWY_RESTRICT out, size_t count) {
  static_assert(sizeof(TC) == 1 && hwy::IsSame<hn::TFromD<DI>, int32_t>());
  const size_t lanes = hn::Lanes(di);
#if (HWY_ARCH_X86 && HWY_TARGET <= HWY_SSE4) || HWY_TARGET == HWY_NEON
  static_assert(hwy::IsSame<DI, hn::ScalableTag<int32_t>>(), "full vectors only");
  const hn::Repartition<int16_t, DI> d16;
  const hn::Repartition<TC, DI> dc;
#if HWY_TARGET == HWY_NEON
  // Halves joined explicitly: ReorderDemote2To puts v1 first on armv7.
  const hn::Half<decltype(d16)> d16h;
  const hn::Half<decltype(dc)> dch;
  const auto pair = [&](hn::Vec<DI> lo, hn::Vec<DI> hi) {
    return hn::DemoteTo(dch, hn::Combine(d16, hn::DemoteTo(d16h, hi), hn::DemoteTo(d16h, lo)));
  };
  const auto bytes = hn::Combine(dc, pair(v2, v3), pair(v0, v1));
#else
  const auto pair01 = hn::ReorderDemote2To(d16, v0, v1);
  const auto pair23 = hn::ReorderDemote2To(d16, v2, v3);
  auto bytes = hn::Vec<decltype(dc)>{PackBlocks16To8<TC>(pair01.raw, pair23.raw)};
  // Block k now holds lanes [4k, 4k + 4) of v0, v1, v2 and v3: gather each
  // vector's four-byte groups (32-bit lanes) back in order.
  if constexpr (HWY_MAX_BYTES == 32) {
    const hn::Repartition<uint32_t, DI> du;
    alignas(32) static constexpr int32_t kOrder[8] = {0, 4, 1, 5, 2, 6, 3, 7};
    bytes = hn::BitCast(
        dc, hn::TableLookupLanes(hn::BitCast(du, bytes), hn::SetTableIndices(du, kOrder)));
  } else if constexpr (HWY_MAX_BYTES == 64) {
    const hn::Repartition<uint32_t, DI> du;
    alignas(64) static constexpr int32_t kOrder[16] = {0, 4, 8,  12, 1, 5, 9,  13,
                                                       2, 6, 10, 14, 3, 7, 11, 15};
    bytes = hn::BitCast(
        dc, hn::TableLookupLanes(hn::BitCast(du, bytes), hn::SetTableIndices(du, kOrder)));
  }
#endif
  StoreUpTo(bytes, dc, out, count);
#else
  const hn::Rebind<TC, DI> dc;
  const auto store = [&](hn::Vec<DI> v, size_t first) {
    if (first < count)
      StoreUpTo(QDemote<TC>(di, v), dc, out + first, HWY_MIN(lanes, count - first));
  };
  store(v0, 0);
  store(v1, lanes);
  store(v2, 2 * lanes);
  store(v3, 3 * lanes);
#endif
  (void)lanes;
}

// A row of `count` requantized outputs (contiguous) from int32 sums, plus
// bias[j] where bias is not null, with multipliers m[j].
template <class TC>
HWY_INLINE void QRequantizeRow(const int32_t* HWY_RESTRICT sums, const int32_t* HWY_RESTRICT bias,
                               const float* HWY_RESTRICT m, float zc, float low,
                               TC* HWY_RESTRICT out, size_t count) {
  const hn::ScalableTag<int32_t> di;
  const hn::Rebind<float, decltype(di)> df;
  const size_t lanes = hn::Lanes(di);
  const auto floor = hn::Set(df, low - zc);
  const auto bias_less_zc = hn::Set(di, kRoundingBiasBits - static_cast<int32_t>(zc));
  for (size_t j = 0; j < count; j += 4 * lanes) {
    const size_t group = HWY_MIN(4 * lanes, count - j);
    // Vectors past the group's end are not stored.
    const auto ints = [&](size_t first) {
      if (first >= group) return hn::Zero(di);
      const size_t n = HWY_MIN(lanes, group - first);
      auto sum = LoadUpTo(di, sums + j + first, n);
      if (bias != nullptr) sum = hn::Add(sum, LoadUpTo(di, bias + j + first, n));
      return QRequantizedInts(df, hn::ConvertTo(df, sum), LoadUpTo(df, m + j + first, n), floor,
                              bias_less_zc);
    };
    StoreDemoted4<TC>(di, ints(0), ints(lanes), ints(2 * lanes), ints(3 * lanes), out + j, group);
  }
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
