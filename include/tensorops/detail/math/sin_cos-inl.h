// sin and cos: 1.49 ULP on |x| <= 1e4 (1.45 without FMA), the reduction by
// pi/2 exact for |x| < 1.3e7; beyond, the result stays in [-1, 1] (no
// Payne-Hanek step). +-Inf -> NaN, NaN passes through.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_DETAIL_MATH_SIN_COS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_DETAIL_MATH_SIN_COS_INL_H_
#undef TENSOROPS_DETAIL_MATH_SIN_COS_INL_H_
#else
#define TENSOROPS_DETAIL_MATH_SIN_COS_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <hwy/highway.h>

#include "tensorops/detail/ieee-inl.h"
#include "tensorops/detail/math/common-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace math {
namespace hn = hwy::HWY_NAMESPACE;

// sin and cos share the reduction x = k pi/2 + r, |r| <= pi/4, done in double:
// k = round(x 2/pi), r = (x - k P1) - k P2, P1 = pi/2 to 30 bits, so for
// |k| < 2^23 (|x| < 1.3e7) k P1 and x - k P1 are exact and r is accurate to
// ~2^-80 of pi/2 even when x is a near multiple of pi/2. Above that the
// result degrades (there is no Payne-Hanek step); it stays in [-1, 1].
// The lanes of d are the lanes of a full double vector. Returns r in
// [-pi/4, pi/4] and k (whose low two bits are the quadrant).
template <class D>
HWY_INLINE void ReduceHalfPi(D d, hn::Vec<D> x, hn::Vec<D>& r_out,
                             hn::Vec<hn::RebindToSigned<D>>& quadrant) {
  const hn::RebindToSigned<D> di;
#if HWY_HAVE_FLOAT64
  const hn::Rebind<double, D> dd;
  const auto xd = hn::PromoteTo(dd, x);
  const auto k = hn::Round(hn::Mul(xd, hn::Set(dd, 0.63661977236758134)));
  auto r = hn::NegMulAdd(k, hn::Set(dd, 1.5707963276654482), xd);
  r = hn::NegMulAdd(k, hn::Set(dd, -8.705515695504166e-10), r);
  const auto big = hn::Set(dd, 2147483647.0);  // DemoteTo needs |k| < 2^31
  const auto k_small = hn::Min(hn::Max(k, hn::Neg(big)), big);
  r_out = hn::DemoteTo(d, r);
  quadrant = hn::DemoteTo(di, k_small);
#else
  // Float-only targets (armv7 NEON): three-part Cody-Waite, the first two
  // parts with 11 and 12 bits, so k P1 and k P2 are exact for |k| < 2^12
  // (|x| < 6433).
  const auto k = hn::Round(hn::Mul(x, hn::Set(d, 0.636619772f)));
  auto r = hn::NegMulAdd(k, hn::Set(d, 1.5703125f), x);
  r = hn::NegMulAdd(k, hn::Set(d, 4.838705062866211e-4f), r);
  r = hn::NegMulAdd(k, hn::Set(d, -4.371138828673793e-08f), r);
  r_out = r;
  quadrant = hn::ConvertTo(di, k);
  if (HWY_UNLIKELY(!hn::AllTrue(d, hn::Lt(hn::Abs(x), hn::Set(d, 6433.0f))))) {
    // Beyond, rare in a network: the double reduction above, lane by lane on
    // the VFP unit (armv7 has double there), for the same results.
    HWY_ALIGN float lanes[HWY_MAX_BYTES / sizeof(float)];
    HWY_ALIGN int32_t quadrants[HWY_MAX_BYTES / sizeof(float)];
    hn::Store(x, d, lanes);
    for (size_t i = 0; i < hn::Lanes(d); ++i) {
      const double xd = lanes[i];
      const double big = 2147483647.0;
      double kd = xd * 0.63661977236758134;
      if (!(kd > -big && kd < big)) {  // huge, Inf or NaN: SinCos's result
        lanes[i] = 0.0f;               // is NaN or not meaningful there
        quadrants[i] = kd > 0 ? 2147483647 : kd < 0 ? -2147483647 : 0;
        continue;
      }
      kd = (kd + 6755399441055744.0) - 6755399441055744.0;  // round to nearest
      const double rd = (xd - kd * 1.5707963276654482) - kd * -8.705515695504166e-10;
      lanes[i] = static_cast<float>(rd);
      quadrants[i] = static_cast<int32_t>(kd);
    }
    r_out = hn::Load(d, lanes);
    quadrant = hn::Load(di, quadrants);
  }
#endif
}

template <class D>
HWY_INLINE hn::Vec<D> SinPoly(D d, hn::Vec<D> r) {
  static constexpr float kS[] = {-0.166666672f, 0.00833333191f, -0.000198400638f,
                                 2.72468696e-06f};
  const auto r2 = hn::Mul(r, r);
  return hn::MulAdd(hn::Mul(r, r2), Polynomial(d, r2, kS), r);
}

template <class D>
HWY_INLINE hn::Vec<D> CosPoly(D d, hn::Vec<D> r) {
  static constexpr float kC[] = {0.0416666679f, -0.00138888881f, 2.48005799e-05f,
                                 -2.72984067e-07f};
  const auto r2 = hn::Mul(r, r);
  const auto one = hn::Set(d, 1.0f);
  // 1 - r^2/2 + r^4 C: the sum of the small terms first, then one add to 1.
  return hn::Add(one, hn::MulAdd(hn::Mul(r2, r2), Polynomial(d, r2, kC),
                                 hn::Mul(r2, hn::Set(d, -0.5f))));
}

// sin(x) for kCos = false, cos(x) = sin(x + pi/2) for kCos = true.
template <bool kCos, class D>
HWY_INLINE hn::Vec<D> SinCos(D d, hn::Vec<D> x) {
  const hn::RebindToSigned<D> di;
  hn::Vec<D> reduced;
  hn::Vec<hn::RebindToSigned<D>> quadrant;
  ReduceHalfPi(d, x, reduced, quadrant);
  const auto q = kCos ? hn::Add(quadrant, hn::Set(di, 1)) : quadrant;
  const auto use_cos = hn::RebindMask(d, hn::Eq(hn::And(q, hn::Set(di, 1)), hn::Set(di, 1)));
  const auto negate = hn::RebindMask(d, hn::Eq(hn::And(q, hn::Set(di, 2)), hn::Set(di, 2)));
  // Beyond the reduction's range r may be anything; clamping keeps the result
  // in [-1, 1] (its value is then not meaningful).
  const auto quarter_pi = hn::Set(d, 0.785398185f);
  const auto r = hn::Min(hn::Max(reduced, hn::Neg(quarter_pi)), quarter_pi);
  const auto v = hn::IfThenElse(use_cos, CosPoly(d, r), SinPoly(d, r));
  // Inf - k pi/2 is NaN, which the clamp may have turned into a number.
  return hn::IfThenElse(hn::IsFinite(x), hn::IfThenElse(negate, hn::Neg(v), v),
                        hn::Sub(x, x));
}

}  // namespace math
}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_DETAIL_MATH_SIN_COS_INL_H_
