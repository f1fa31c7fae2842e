// 1 / sqrt(x): rounded once (Rsqrt: in double where double lanes or a VFP
// unit exist, 0.5 ULP; elsewhere a float sqrt and division, <= 1 ULP), and
// by multiply-adds alone for positive normal floats (ReciprocalSqrtNormal,
// about 1 ULP, for LRN). Rsqrt: +-0 -> +-Inf, +Inf -> 0, x < 0 -> NaN, NaN
// passes through.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_DETAIL_MATH_RSQRT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_DETAIL_MATH_RSQRT_INL_H_
#undef TENSOROPS_DETAIL_MATH_RSQRT_INL_H_
#else
#define TENSOROPS_DETAIL_MATH_RSQRT_INL_H_
#endif

#include <stddef.h>

#include <hwy/highway.h>

#include "tensorops/detail/ieee-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace math {
namespace hn = hwy::HWY_NAMESPACE;

// 1 / sqrt(x), rounded once: in double where double lanes exist (d's lanes
// are those of a double vector then) or a VFP unit does (armv7), else sqrt
// and division in float.
template <class D>
HWY_INLINE hn::Vec<D> Rsqrt(D d, hn::Vec<D> x) {
#if HWY_HAVE_FLOAT64
  const hn::Rebind<double, D> dd;
  const auto r = hn::DemoteTo(d, hn::Div(hn::Set(dd, 1.0), hn::Sqrt(hn::PromoteTo(dd, x))));
  // +-0 -> +-Inf in float (some targets' DemoteTo saturates Inf to the
  // largest float).
  return hn::IfThenElse(hn::Eq(x, hn::Zero(d)), Div(d, hn::Set(d, 1.0f), x), r);
#elif HWY_ARCH_ARM_V7 && HWY_TARGET == HWY_NEON
  // The same in double, lane by lane on the VFP unit.
  return ByScalarLanes(d, x, x, [](float v, float) {
    return v == 0 ? 1.0f / v : static_cast<float>(1.0 / __builtin_sqrt(static_cast<double>(v)));
  });
#else
  return Div(d, hn::Set(d, 1.0f), Sqrt(d, x));
#endif
}

// The relative precision of ApproximateReciprocalSqrt, in bits: AVX-512's
// vrsqrt14ps 14, SSSE3's to AVX2's vrsqrtps 11 (|error| <= 1.5 2^-12);
// NEON's and SVE's frsqrte about 8, Highway's emulated estimate (SCALAR,
// EMU128: a bit trick and one Newton step) about 9. Any target not named
// here is taken to have 8.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
inline constexpr int kRsqrtEstimateBits = 14;
#elif HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
inline constexpr int kRsqrtEstimateBits = 11;
#else
inline constexpr int kRsqrtEstimateBits = 8;
#endif

// Whether ReciprocalSqrtNormal is one refinement step on this target (the
// estimate has 11 bits or more): callers weigh it against a square root and
// a division by that.
inline constexpr bool kRsqrtInOneStep = kRsqrtEstimateBits >= 11;

// 1 / sqrt(v) for v a positive normal float, within about 1 ULP, by
// multiply-adds alone: no square root and no division. Those run on one
// unpipelined unit (Zen 4: a vsqrtps takes as long as 8 multiply-adds, a
// vdivps 5), these on the multiply-add pipes. Zero, denormals, Inf and NaN
// give garbage, which callers replace.
// With e = 1 - v t^2 for the estimate t, 1/sqrt(v) = t (1 - e)^-1/2 =
// t (1 + e/2 + 3e^2/8 + ...). A Newton step keeps e/2 (relative error
// after: 1.5 e^2), Halley's keeps 3e^2/8 too (2.5 e^3 after): one Newton
// step for a 14-bit estimate, one Halley step for 11 bits (one Newton step
// would leave 2^-22.3, up to 3 ULP), two Newton steps below. Each step's own
// rounding: (v/2) t rounded (2^-24 relative, halved in the result) and the
// last multiply-add's. Written for a short chain of dependent operations
// (three after the estimate for Newton): LRN's loop is bound by that chain.
template <bool kHalley, class D>
HWY_INLINE hn::Vec<D> ReciprocalSqrtStep(D d, hn::Vec<D> half_v, hn::Vec<D> t) {
  const auto g = hn::NegMulAdd(hn::Mul(half_v, t), t, hn::Set(d, 0.5f));  // e / 2
  if constexpr (kHalley) {  // t + t g (1 + 1.5 g)
    return hn::MulAdd(hn::Mul(t, g), hn::MulAdd(g, hn::Set(d, 1.5f), hn::Set(d, 1.0f)), t);
  }
  return hn::MulAdd(t, g, t);
}

template <class D>
HWY_INLINE hn::Vec<D> ReciprocalSqrtNormal(D d, hn::Vec<D> v) {
  const auto half_v = hn::Mul(v, hn::Set(d, 0.5f));
  const auto t = hn::ApproximateReciprocalSqrt(v);
  if constexpr (kRsqrtEstimateBits >= 14) return ReciprocalSqrtStep<false>(d, half_v, t);
  if constexpr (kRsqrtEstimateBits >= 11) return ReciprocalSqrtStep<true>(d, half_v, t);
  return ReciprocalSqrtStep<false>(d, half_v, ReciprocalSqrtStep<false>(d, half_v, t));
}

}  // namespace math
}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_DETAIL_MATH_RSQRT_INL_H_
