// tanh, sigmoid, SiLU and GELU's tanh form: functions of exp(-|x|) and one
// division, with the exp's error damped by the division.
//
//   function   max error, all floats (AVX3_DL / no FMA)   special values
//   Tanh       1.35 / 1.31 ULP                            +-0 kept, +-Inf -> +-1
//   Sigmoid    1.97 / 1.87 ULP (denormal results kept)    -Inf -> 0, +Inf -> 1
//   Silu       1.51 / 1.57 ULP (denormal results kept)    -Inf -> -0, +-0 kept
//   GeluTanh   1.12 / 1.55 ULP                            -Inf -> -0, +Inf -> +Inf
// The fast tier (Accuracy::kFast), AVX3_DL over every float / no FMA / armv7
// under qemu, the last two sampled (docs/accuracy.md says how densely):
//   TanhFast     5.63 / 5.57 / 6.57 ULP                   as Tanh
//   SigmoidFast  6.16 / 3.38 / 3.86 ULP                   as Sigmoid
//   SiluFast     6.46 / 3.45 / 4.45 ULP                   as Silu
// NaN passes through. Every function costs the same on every vector: no
// branch depends on how a vector's lanes mix, only on rare lanes (NaN,
// |x| > 87).
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_DETAIL_MATH_SIGMOID_TANH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_DETAIL_MATH_SIGMOID_TANH_INL_H_
#undef TENSOROPS_DETAIL_MATH_SIGMOID_TANH_INL_H_
#else
#define TENSOROPS_DETAIL_MATH_SIGMOID_TANH_INL_H_
#endif

#include <stddef.h>

#include <hwy/highway.h>

#include "tensorops/detail/ieee-inl.h"
#include "tensorops/detail/math/common-inl.h"
#include "tensorops/detail/math/exp_log-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace math {
namespace hn = hwy::HWY_NAMESPACE;

// tanh(x) = x + x^3 T(x^2) for |x| < 0.625; T's error reaches tanh damped by
// x^2, and is fitted for that (degree 4).
template <class D>
HWY_INLINE hn::Vec<D> TanhSmall(D d, hn::Vec<D> x) {
  static constexpr float kT[] = {-0.333332807f, 0.133314416f, -0.0537396967f, 0.0206390396f,
                                 -0.00570493797f};
  const auto x2 = hn::Mul(x, x);
  return hn::MulAdd(hn::Mul(x, x2), Polynomial(d, x2, kT), x);
}

// tanh(x) = 1 - 2 / (exp(2a) + 1) with the sign of x, for a = |x| in
// [0.625, 40] (no cancellation: the quotient is below 0.45).
template <class D>
HWY_INLINE hn::Vec<D> TanhLarge(D d, hn::Vec<D> a, hn::Vec<D> x) {
  const auto one = hn::Set(d, 1.0f);
  const auto e2a = ExpNormalRangeDamped</*kScaleLog2=*/1>(d, a);
  const auto q = Div(d, hn::Set(d, 2.0f), hn::Add(e2a, one));
  return hn::CopySignToAbs(hn::Sub(one, q), x);
}

// tanh(x): TanhSmall below |x| = 0.625, TanhLarge above, both evaluated for
// every vector and blended, so that the cost does not depend on how a
// vector's lanes mix (on random activations they almost always do). |x| is
// clamped at 9.1, where tanh is +-1 in float, so exp(2|x|) is a normal
// float for every lane, infinities included; NaN lanes take TanhSmall,
// which passes NaN through.
template <class D>
HWY_INLINE hn::Vec<D> Tanh(D d, hn::Vec<D> x) {
  const auto a = hn::Abs(x);
  const auto large = TanhLarge(d, hn::Min(a, hn::Set(d, 9.1f)), x);
  // CopySign: TanhSmall's fused step alone would make -0 into +0.
  return hn::IfThenElse(hn::Ge(a, hn::Set(d, 0.625f)), large, hn::CopySign(TanhSmall(d, x), x));
}

// m * sigmoid(t) for t = hi + lo (lo = 0 unless kHasLow), i.e. m / (1 + E)
// with E = exp(-t). Written so every rounding is a small one:
//  - with e = exp(-|t|) = (1 + q) 2^k <= 1, t < 0 gives m e / (1 + e), whose
//    numerator m + m q is one fused step and whose 2^k is applied last (a
//    denormal result is rounded once);
//  - 1 + e is split into its rounded sum and the exact rounding error
//    (Fast2Sum: 1 >= e), which corrects the quotient. The correction is
//    below an ULP of the quotient, so a coarse reciprocal (8 bits on Arm, 14
//    on AVX-512) of the divisor is enough for it: one division per vector.
// When every lane has |hi| < 87, e is a normal float and 2^k a single power
// of two, and no lane is NaN or infinite; otherwise (results near or below
// the denormal range, huge |t|, NaN) the clamped reduction and two-step
// scaling run, and lanes where `input` is NaN return it.
// m must be finite or +-Inf with t of the same sign. kPrecise (SiLU and
// GELU-tanh, whose m = x adds a rounding of its own): exp's degree-7
// polynomial, and the quotient corrected from the division's exact remainder
// and the numerator's rounding error (without, SiLU would exceed 2 ULP);
// sigmoid (here only for vectors reaching |x| = 87 or NaN, see Sigmoid)
// keeps the cheaper correction.
template <bool kHasLow, bool kPrecise, class D>
HWY_INLINE hn::Vec<D> TimesSigmoid(D d, hn::Vec<D> m, hn::Vec<D> hi, hn::Vec<D> lo,
                                   hn::Vec<D> input) {
  // -0 counts as negative: its e is 1, and both branches give the same.
  const auto negative = SignBitSet(d, hi);
  // -|t| in two parts.
  const auto neg_lo = kHasLow ? hn::IfThenElse(negative, lo, hn::Neg(lo)) : lo;
  const auto neg_abs = hn::Or(hi, hn::SignBit(d));
  const auto one = hn::Set(d, 1.0f);
  hn::Vec<D> q;
  ExpScale<D> k;
  const bool all_normal = hn::AllTrue(d, hn::Gt(neg_abs, hn::Set(d, -87.0f)));
  if (HWY_LIKELY(all_normal)) {
    ExpSplitUnclamped<kHasLow, kPrecise>(d, neg_abs, neg_lo, q, k);
  } else {
    ExpSplit<kHasLow, kPrecise>(d, neg_abs, neg_lo, q, k);
  }
  const auto e_full = all_normal ? hn::Mul(ExpMantissa(d, q), Pow2(d, k))
                                 : ScaleByPow2(d, ExpMantissa(d, q), k);
  const auto den = hn::Add(one, e_full);
  const auto den_err = hn::Add(hn::Sub(one, den), e_full);  // exact
  const auto num = hn::IfThenElse(negative, hn::MulAdd(m, q, m), m);
  auto r = Div(d, num, den);
  hn::Vec<D> corrected;
  if constexpr (kPrecise) {
    // r + (num + num_err - r (den + den_err)) / den: the remainder of the
    // division and the numerator's rounding error are exact where MulAdd
    // fuses (num / m = 1 + q is within [1/2, 2], so m - num is exact), which
    // leaves one rounding, the last addition.
    const auto num_err =
        hn::IfThenElse(negative, hn::MulAdd(m, q, hn::Sub(m, num)), hn::Zero(d));
    const auto remainder = hn::NegMulAdd(r, den, num);
    const auto rest = hn::Add(hn::NegMulAdd(r, den_err, remainder), num_err);
    corrected = hn::MulAdd(rest, hn::ApproximateReciprocal(den), r);
  } else {
    // r (1 - den_err / den)
    corrected = hn::NegMulAdd(r, hn::Mul(den_err, hn::ApproximateReciprocal(den)), r);
  }
  if (HWY_LIKELY(all_normal)) {
    return hn::IfThenElse(negative, hn::Mul(corrected, Pow2(d, k)), corrected);
  }
  // m = +-Inf would make the correction Inf * 0.
  r = hn::IfThenElse(hn::IsInf(r), r, corrected);
  r = hn::IfThenElse(negative, ScaleByPow2(d, r, k), r);
  return hn::IfThenElse(hn::IsNaN(input), input, r);
}

// sigmoid(x). A vector with every |x| < 87 (every vector of an activation
// map) takes a shorter form of TimesSigmoid's: e = exp(-|x|) is a normal
// float, so it is scaled at once and the quotient needs no scaling after;
// sigmoid is 1 / (1 + e) for x >= 0 and e / (1 + e) below. The rounding
// error of 1 + e (exact by Fast2Sum) corrects the quotient r as
// r (1 - den_err / den): the term is below an ULP, so a reciprocal estimate
// of den will do, and it runs beside the division rather than after it. e's
// error reaches sigmoid damped by 1 / (1 + e) >= 1/2 only: exp's table form
// needs its quartic here (the cubic exceeds 2 ULP), the polynomial form
// does with degree 6. Other vectors take TimesSigmoid.
template <class D>
HWY_INLINE hn::Vec<D> Sigmoid(D d, hn::Vec<D> x) {
  const auto one = hn::Set(d, 1.0f);
  const auto neg_abs = hn::Or(x, hn::SignBit(d));  // -|x|
  if (HWY_LIKELY(hn::AllTrue(d, hn::Gt(neg_abs, hn::Set(d, -87.0f))))) {  // false for NaN
    const auto negative = SignBitSet(d, x);  // -0 too: the same 1/2
    const auto e = ExpNormalRange</*kPrecise=*/kLookupIsOnePermute<D>>(d, neg_abs);
    const auto den = hn::Add(one, e);
    const auto den_err = hn::Add(hn::Sub(one, den), e);  // exact
    const auto r = Div(d, hn::IfThenElse(negative, e, one), den);
    return hn::NegMulAdd(r, hn::Mul(den_err, hn::ApproximateReciprocal(den)), r);
  }
  return TimesSigmoid</*kHasLow=*/false, /*kPrecise=*/false>(d, one, x, x, x);
}

// x * sigmoid(x). Where multiply-add fuses, a vector with every |x| < 87
// (on activations, every vector) takes one form, whatever the signs of its
// lanes: x / (1 + e) for x > 0 and x e / (1 + e) for x < 0, with e =
// exp(-|x|) a normal float. The quotient r is corrected by the division's
// exact remainder and the exact rounding errors of 1 + e (Fast2Sum) and of
// x e, over a reciprocal estimate (enough for a term below an ULP). e's
// error reaches the result damped by 1 / (1 + e) only, so exp is the precise
// one. The correction of x = -0 sums to +0: the sign is x's in every case.
// Without fused multiply-add those errors are not exact (2.8 ULP), and every
// vector takes TimesSigmoid, whose numerator keeps exp's 1 + q unrounded;
// so do vectors with a lane beyond |x| = 87 or NaN. Below -200 the result
// is -0 (x is clamped there so -Inf does not meet 0).
template <class D>
HWY_INLINE hn::Vec<D> Silu(D d, hn::Vec<D> x) {
  if constexpr (HWY_NATIVE_FMA) {
    const auto neg_abs = hn::Or(x, hn::SignBit(d));  // -|x|
    if (HWY_LIKELY(hn::AllTrue(d, hn::Gt(neg_abs, hn::Set(d, -87.0f))))) {  // false for NaN
      const auto one = hn::Set(d, 1.0f);
      const auto e = ExpNormalRange</*kPrecise=*/true>(d, neg_abs);
      const auto den = hn::Add(one, e);
      const auto den_err = hn::Add(hn::Sub(one, den), e);  // exact
      const auto factor = hn::IfThenElse(SignBitSet(d, x), e, one);
      const auto num = hn::Mul(x, factor);
      const auto num_err = hn::MulSub(x, factor, num);  // exact with FMA
      const auto r = Div(d, num, den);
      const auto remainder = hn::NegMulAdd(r, den, num);  // exact with FMA
      const auto rest = hn::Add(hn::NegMulAdd(r, den_err, remainder), num_err);
      return hn::CopySign(hn::MulAdd(rest, hn::ApproximateReciprocal(den), r), x);
    }
  }
  const auto xc = hn::Max(x, hn::Set(d, -200.0f));
  // The sign is x's (-0 included, which the correction would make +0).
  return hn::CopySign(TimesSigmoid</*kHasLow=*/false, /*kPrecise=*/true>(d, xc, xc, xc, x), x);
}

// GELU, tanh form: x/2 (1 + tanh(y)) = x sigmoid(2y), y = sqrt(2/pi)(x +
// 0.044715 x^3). 2y reaches -80 where the result is still a normal float, so
// float rounding of 2y alone would cost ~100 ULP: where double lanes exist, 2y
// is computed in double and handed to the exp as two floats. The lanes of d
// are the lanes of a full double vector there (as for sin/cos); armv7 takes
// each lane through its VFP unit's double instead.
// Below -20 the result is -0; x is clamped there. The sign is x's (-0
// included, which the quotient's correction would make +0).
template <class D>
HWY_INLINE hn::Vec<D> GeluTanh(D d, hn::Vec<D> x_in) {
  const auto x = hn::Max(x_in, hn::Set(d, -20.0f));
#if HWY_HAVE_FLOAT64
  const hn::Rebind<double, D> dd;
  const auto xd = hn::PromoteTo(dd, x);
  const auto two_y_d = hn::Mul(xd, hn::MulAdd(hn::Mul(xd, xd), hn::Set(dd, 0.071354816273134),
                                              hn::Set(dd, 1.5957691216057308)));
  const auto hi = hn::DemoteTo(d, two_y_d);
  const auto lo = hn::DemoteTo(d, hn::Sub(two_y_d, hn::PromoteTo(dd, hi)));
  return hn::CopySign(TimesSigmoid</*kHasLow=*/true, /*kPrecise=*/true>(d, x, hi, lo, x_in), x_in);
#elif HWY_ARCH_ARM_V7 && HWY_TARGET == HWY_NEON
  // The same 2y in double, lane by lane on the VFP unit.
  HWY_ALIGN float hi[4];
  HWY_ALIGN float lo[4];
  hn::Store(x, d, hi);
  for (size_t i = 0; i < hn::MaxLanes(d); ++i) {
    const double xd = hi[i];
    const double two_y = xd * (xd * xd * 0.071354816273134 + 1.5957691216057308);
    hi[i] = static_cast<float>(two_y);
    lo[i] = static_cast<float>(two_y - static_cast<double>(hi[i]));
  }
  return hn::CopySign(TimesSigmoid</*kHasLow=*/true, /*kPrecise=*/true>(
                          d, x, hn::Load(d, hi), hn::Load(d, lo), x_in),
                      x_in);
#else
  const auto two_y = hn::Mul(x, hn::MulAdd(hn::Mul(x, x), hn::Set(d, 0.0713548162f),
                                           hn::Set(d, 1.59576912f)));
  return hn::CopySign(TimesSigmoid</*kHasLow=*/false, /*kPrecise=*/true>(d, x, two_y, two_y, x_in),
                      x_in);
#endif
}

// The fast tier (Accuracy::kFast): one formula per kind, no correction
// steps, DivFast.

// tanh(x) = x P(x^2) / Q(x^2), degrees 4 and 4, on |x| <= 9.00000095 (tanh
// is 1 within 0.51 ULP beyond): 0.3 ULP of approximation error, one division
// and no exp. P(0) = 1, so tanh(x) = x for tiny x as it should.
inline constexpr float kTanhFastP[] = {1.0f, 0.133810431f, 0.00349560683f, 2.06093027e-05f,
                                       1.33548141e-08f};
inline constexpr float kTanhFastQ[] = {1.0f, 0.467143595f, 0.0258770585f, 0.000328566151f,
                                       7.77665264e-07f};

template <class D>
HWY_INLINE hn::Vec<D> TanhFast(D d, hn::Vec<D> x) {
  return SaturatingOddRational(d, x, 9.00000095f, kTanhFastP, kTanhFastQ);
}

// sigmoid(x) = 1 / (1 + exp(-x)) by ExpFastNormal and one DivFast; exp's
// error reaches the result damped by exp(-x) / (1 + exp(-x)) < 1. Vectors
// with a lane at |x| >= 87.3 or NaN (never on activations) take Sigmoid.
template <class D>
HWY_INLINE hn::Vec<D> SigmoidFast(D d, hn::Vec<D> x) {
  if (HWY_LIKELY(hn::AllTrue(d, hn::Lt(hn::Abs(x), hn::Set(d, 87.3f))))) {
    const auto one = hn::Set(d, 1.0f);
    return DivFast(d, one, hn::Add(one, ExpFastNormal<-1>(d, x)));
  }
  return Sigmoid(d, x);
}

// x sigmoid(x) = x / (1 + exp(-x)), as SigmoidFast; other vectors take Silu.
template <class D>
HWY_INLINE hn::Vec<D> SiluFast(D d, hn::Vec<D> x) {
  if (HWY_LIKELY(hn::AllTrue(d, hn::Lt(hn::Abs(x), hn::Set(d, 87.3f))))) {
    return DivFast(d, x, hn::Add(hn::Set(d, 1.0f), ExpFastNormal<-1>(d, x)));
  }
  return Silu(d, x);
}

}  // namespace math
}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_DETAIL_MATH_SIGMOID_TANH_INL_H_
