// Where a target's float arithmetic departs from IEEE 754, and division and
// square root rounded as IEEE 754 says on every target.
//
// Every target's hn::Div and hn::Sqrt are correctly rounded but two: armv7's
// Advanced SIMD has neither operation, and Highway 1.0.3 emulates both with
// an estimate and Newton steps (about 1 ULP; sqrt(+Inf) and 1/sqrt(+Inf) come
// out NaN). The VFP unit beside it divides and takes square roots as IEEE
// 754 says, denormals included, so there each lane goes through it. And
// Highway 1.2's EMU128 returns 0 for any division by zero (it guards its C++
// division), where IEEE 754 gives a signed infinity or NaN: there each lane
// is divided here. Kernels call these instead of hn::Div and hn::Sqrt;
// elsewhere they are exactly those.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_DETAIL_IEEE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_DETAIL_IEEE_INL_H_
#undef TENSOROPS_DETAIL_IEEE_INL_H_
#else
#define TENSOROPS_DETAIL_IEEE_INL_H_
#endif

#include <stddef.h>

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace math {
namespace hn = hwy::HWY_NAMESPACE;

// armv7's Advanced SIMD flushes denormal inputs and results to zeros of their
// sign (tensorops::FlushesDenormals). Kernels whose result is about c x near
// 0 scale x by 2^24 first there, so that a normal result does not lose its
// small terms to a flushed intermediate.
inline constexpr bool kFlushesDenormals = HWY_ARCH_ARM_V7 && HWY_TARGET == HWY_NEON;

#if (HWY_ARCH_ARM_V7 && HWY_TARGET == HWY_NEON) || HWY_TARGET == HWY_EMU128
// The lanes of a (at most 128-bit) float vector, one at a time in scalar
// code (on armv7, the VFP unit): f(a[i], b[i]) for every lane.
template <class D, class F>
HWY_INLINE hn::Vec<D> ByScalarLanes(D d, hn::Vec<D> a, hn::Vec<D> b, const F& f) {
  using T = hn::TFromD<D>;
  static_assert(hn::MaxLanes(D()) * sizeof(T) <= 16);
  HWY_ALIGN T la[16 / sizeof(T)];
  HWY_ALIGN T lb[16 / sizeof(T)];
  hn::Store(a, d, la);
  hn::Store(b, d, lb);
  for (size_t i = 0; i < hn::MaxLanes(d); ++i) la[i] = f(la[i], lb[i]);
  return hn::Load(d, la);
}
#endif

template <class D>
HWY_INLINE hn::Vec<D> Div(D d, hn::Vec<D> a, hn::Vec<D> b) {
#if (HWY_ARCH_ARM_V7 && HWY_TARGET == HWY_NEON) || HWY_TARGET == HWY_EMU128
  using T = hn::TFromD<D>;
  return ByScalarLanes(d, a, b, [](T x, T y) { return x / y; });
#else
  (void)d;
  return hn::Div(a, b);
#endif
}

// a / b for the fast tier (Accuracy::kFast), whose bounds take about 1 ULP
// here: hn::Div, which on armv7 is Highway's reciprocal estimate and Newton
// steps (vector operations, where Div divides lane by lane on the VFP unit;
// about 1 ULP, and not always exactly 1 for a == b).
inline constexpr bool kDivFastIsIeee = !(HWY_ARCH_ARM_V7 && HWY_TARGET == HWY_NEON);

template <class D>
HWY_INLINE hn::Vec<D> DivFast(D d, hn::Vec<D> a, hn::Vec<D> b) {
#if HWY_TARGET == HWY_EMU128
  return Div(d, a, b);  // IEEE 754 at division by zero, as the bounds assume
#else
  (void)d;
  return hn::Div(a, b);
#endif
}

template <class D>
HWY_INLINE hn::Vec<D> Sqrt(D d, hn::Vec<D> x) {
#if HWY_ARCH_ARM_V7 && HWY_TARGET == HWY_NEON
  return ByScalarLanes(d, x, x, [](float v, float) { return __builtin_sqrtf(v); });
#else
  (void)d;
  return hn::Sqrt(x);
#endif
}

}  // namespace math
}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_DETAIL_IEEE_INL_H_
