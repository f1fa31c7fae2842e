// Per-target loads and stores of float storage types as float vectors.
//
// float16 and bfloat16 are storage types: every op loads them as float,
// computes in float and stores back with one round-to-nearest-even. Highway
// 1.0.3's own conversions truncate (bfloat16 everywhere, float16 without F16C)
// and mangle Inf/NaN in its float16 emulation, so the integer versions below
// are used on every target but x86 AVX2/AVX3 and 64-bit Arm, whose F16C and
// fcvt instructions round correctly. All produce the same bits for every
// input (tests/convert_test).
//   float16 NaN  -> sign | 0x7E00 | top 9 payload bits (quiet), as F16C
//   bfloat16 NaN -> top 16 bits with the quiet bit set
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_DETAIL_STORAGE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_DETAIL_STORAGE_INL_H_
#undef TENSOROPS_DETAIL_STORAGE_INL_H_
#else
#define TENSOROPS_DETAIL_STORAGE_INL_H_
#endif

#include <hwy/highway.h>

#include "tensorops/detail/row-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether Highway's own float16 <-> float conversion is a hardware one (F16C
// on AVX2 and up; fcvt on every 64-bit Arm target, NEON and SVE alike). Other
// targets emulate it in Highway, slower than the bit arithmetic below.
#undef TENSOROPS_NATIVE_F16
#if (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2) || HWY_ARCH_ARM_A64
#define TENSOROPS_NATIVE_F16 1
#else
#define TENSOROPS_NATIVE_F16 0
#endif

// Highway 1.0.3 orders unsigned lanes only for some targets; these lanes hold
// values below 2^31, so comparing them as signed is exact.
template <class VU>
HWY_INLINE auto GreaterU31(VU a, VU b) {
  const hn::DFromV<VU> du;
  const hn::RebindToSigned<decltype(du)> di;
  return hn::RebindMask(du, hn::Gt(hn::BitCast(di, a), hn::BitCast(di, b)));
}

// u32 lanes holding float16 bit patterns -> float.
template <class DF>
HWY_INLINE hn::Vec<DF> F16BitsToF32(DF df, hn::Vec<hn::RebindToUnsigned<DF>> h) {
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  const auto sign = hn::ShiftLeft<16>(hn::And(h, hn::Set(du, 0x8000u)));
  const auto magnitude = hn::And(h, hn::Set(du, 0x7FFFu));
  const auto exponent = hn::And(magnitude, hn::Set(du, 0x7C00u));
  const auto shifted = hn::ShiftLeft<13>(magnitude);
  // Normal: rebias the exponent from 15 to 127.
  const auto normal = hn::Add(shifted, hn::Set(du, (127u - 15u) << 23));
  // Inf/NaN: exponent 31 -> 255; NaN gets the quiet bit, as F16C does.
  auto special = hn::Add(shifted, hn::Set(du, (255u - 31u) << 23));
  special = hn::IfThenElse(GreaterU31(magnitude, hn::Set(du, 0x7C00u)),
                           hn::Or(special, hn::Set(du, 0x00400000u)), special);
  // Zero/subnormal: magnitude * 2^-24, exact in float.
  const auto subnormal = hn::BitCast(
      du, hn::Mul(hn::ConvertTo(df, hn::BitCast(di, magnitude)),
                  hn::Set(df, 1.0f / 16777216.0f)));
  auto bits = hn::IfThenElse(hn::Eq(exponent, hn::Set(du, 0x7C00u)), special,
                             normal);
  bits = hn::IfThenElse(hn::Eq(exponent, hn::Zero(du)), subnormal, bits);
  return hn::BitCast(df, hn::Or(bits, sign));
}

// float -> u32 lanes holding float16 bit patterns, round to nearest even.
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> F32ToF16Bits(DF df, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du;
  const auto bits = hn::BitCast(du, v);
  const auto sign = hn::And(bits, hn::Set(du, 0x80000000u));
  const auto a = hn::Xor(bits, sign);  // |v| as bits
  // Normal: rebias, then add 0x0FFF + (lowest kept bit) to round to even;
  // a carry out of the mantissa correctly bumps the exponent (and overflows
  // 65520.. to Inf).
  const auto odd = hn::And(hn::ShiftRight<13>(a), hn::Set(du, 1u));
  const auto normal = hn::ShiftRight<13>(hn::Add(
      hn::Add(a, hn::Set(du, 0x0FFFu - ((127u - 15u) << 23))), odd));
  // Below 2^-14: adding 0.5f lines the float16 subnormal step (2^-24) up with
  // the float's last mantissa bit, so the FPU does the rounding.
  const auto half = hn::Set(du, 0x3F000000u);
  const auto subnormal =
      hn::Sub(hn::BitCast(du, hn::Add(hn::BitCast(df, a), hn::BitCast(df, half))),
              half);
  const auto nan = hn::Or(hn::Set(du, 0x7E00u),
                          hn::And(hn::ShiftRight<13>(a), hn::Set(du, 0x3FFu)));
  auto h = hn::IfThenElse(GreaterU31(hn::Set(du, 0x38800000u), a), subnormal,
                          normal);
  h = hn::IfThenElse(GreaterU31(a, hn::Set(du, 0x477FFFFFu)),
                     hn::Set(du, 0x7C00u), h);  // |v| >= 65536: Inf
  h = hn::IfThenElse(GreaterU31(a, hn::Set(du, 0x7F800000u)), nan, h);
  return hn::Or(h, hn::ShiftRight<16>(sign));
}

// float -> u32 lanes holding bfloat16 bit patterns, round to nearest even.
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> F32ToBF16Bits(DF /*df*/,
                                                           hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du;
  const auto bits = hn::BitCast(du, v);
  const auto odd = hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 1u));
  const auto rounded =
      hn::ShiftRight<16>(hn::Add(hn::Add(bits, hn::Set(du, 0x7FFFu)), odd));
  const auto quiet_nan =
      hn::Or(hn::ShiftRight<16>(bits), hn::Set(du, 0x0040u));
  const auto is_nan = GreaterU31(hn::And(bits, hn::Set(du, 0x7FFFFFFFu)),
                                 hn::Set(du, 0x7F800000u));
  return hn::IfThenElse(is_nan, quiet_nan, rounded);
}

// Lanes of DF hold float; Rebind<T, DF> holds the same number of T.
template <class T, class DF>
HWY_INLINE hn::Vec<DF> ToF32(DF df, hn::Vec<hn::Rebind<T, DF>> v) {
  if constexpr (hwy::IsSame<T, float>()) {
    return v;
  } else if constexpr (hwy::IsSame<T, hwy::bfloat16_t>()) {
    return hn::PromoteTo(df, v);  // exact: a shift
  } else if constexpr (hwy::IsSame<T, hwy::float16_t>()) {
#if TENSOROPS_NATIVE_F16
    return hn::PromoteTo(df, v);
#else
    const hn::RebindToUnsigned<DF> du;
    const hn::Rebind<uint16_t, DF> du16;
    return F16BitsToF32(df, hn::PromoteTo(du, hn::BitCast(du16, v)));
#endif
  } else {
    static_assert(hwy::IsSame<T, float>(), "ToF32: T must be a float type");
  }
}

template <class T, class DF>
HWY_INLINE hn::Vec<hn::Rebind<T, DF>> FromF32(DF df, hn::Vec<DF> v) {
  const hn::Rebind<T, DF> dt;
  if constexpr (hwy::IsSame<T, float>()) {
    return v;
  } else {
    const hn::Rebind<uint16_t, DF> du16;
    if constexpr (hwy::IsSame<T, hwy::float16_t>()) {
#if TENSOROPS_NATIVE_F16
      return hn::DemoteTo(dt, v);
#else
      const hn::RebindToSigned<DF> di;
      return hn::BitCast(dt, hn::DemoteTo(du16, hn::BitCast(di, F32ToF16Bits(df, v))));
#endif
    } else {
      static_assert(hwy::IsSame<T, hwy::bfloat16_t>(), "FromF32: float types only");
      const hn::RebindToSigned<DF> di;
      return hn::BitCast(dt, hn::DemoteTo(du16, hn::BitCast(di, F32ToBF16Bits(df, v))));
    }
  }
}

// Loads Lanes(df) elements of T as float.
template <class T, class DF>
HWY_INLINE hn::Vec<DF> LoadAsF32(DF df, const T* HWY_RESTRICT p) {
  return ToF32<T>(df, hn::LoadU(hn::Rebind<T, DF>(), p));
}
// Loads count < Lanes(df) elements of T as float; other lanes are zero.
template <class T, class DF>
HWY_INLINE hn::Vec<DF> LoadTailAsF32(DF df, const T* HWY_RESTRICT p, size_t count) {
  return ToF32<T>(df, LoadTail(hn::Rebind<T, DF>(), p, count));
}
template <class T, class DF>
HWY_INLINE void StoreFromF32(DF df, hn::Vec<DF> v, T* HWY_RESTRICT p) {
  hn::StoreU(FromF32<T>(df, v), hn::Rebind<T, DF>(), p);
}
template <class T, class DF>
HWY_INLINE void StoreTailFromF32(DF df, hn::Vec<DF> v, T* HWY_RESTRICT p,
                                 size_t count) {
  StoreTail(FromF32<T>(df, v), hn::Rebind<T, DF>(), p, count);
}

// The same for count <= Lanes(df): a full vector, or a tail (loads fill the
// missing lanes with zero), for loops that step in vectors to the very end.
template <class T, class DF>
HWY_INLINE hn::Vec<DF> LoadUpToAsF32(DF df, const T* HWY_RESTRICT p, size_t count) {
  return ToF32<T>(df, LoadUpTo(hn::Rebind<T, DF>(), p, count));
}
template <class T, class DF>
HWY_INLINE void StoreUpToFromF32(DF df, hn::Vec<DF> v, T* HWY_RESTRICT p, size_t count) {
  StoreUpTo(FromF32<T>(df, v), hn::Rebind<T, DF>(), p, count);
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_DETAIL_STORAGE_INL_H_
