// Shared pieces of the float math kernels: polynomial evaluation (Horner's
// scheme, pairs for a shorter chain, a constant term kept apart), scaling by
// powers of two, sign and normal-range masks, and a reciprocal from the
// hardware estimate and Newton steps. Each states what it assumes of its
// inputs; accuracy is the callers' to state.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_DETAIL_MATH_COMMON_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_DETAIL_MATH_COMMON_INL_H_
#undef TENSOROPS_DETAIL_MATH_COMMON_INL_H_
#else
#define TENSOROPS_DETAIL_MATH_COMMON_INL_H_
#endif

#include <stddef.h>

#include <hwy/highway.h>

#include "tensorops/detail/ieee-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace math {
namespace hn = hwy::HWY_NAMESPACE;

// c[f] + t*(c[f+1] + t*(c[f+2] + ...)) for f = kFirst, Horner's scheme; c is
// a float array or std::array. Recursive rather than a loop so that every
// compiler unrolls it (GCC keeps a loop over a static std::array).
template <size_t kFirst = 0, class D, class Coefficients>
HWY_INLINE hn::Vec<D> Polynomial(D d, hn::Vec<D> t, const Coefficients& c) {
  constexpr size_t kN = sizeof(Coefficients) / sizeof(float);
  static_assert(kN > kFirst);
  if constexpr (kFirst + 1 == kN) {
    return hn::Set(d, c[kFirst]);
  } else {
    return hn::MulAdd(Polynomial<kFirst + 1>(d, t, c), t, hn::Set(d, c[kFirst]));
  }
}

// The same sum by second-order Horner: pairs c[f] + c[f+1] t, then Horner in
// t2 = t^2 over the pairs. One multiplication more than Polynomial, and a
// chain of dependent steps about half as long. Where a kernel's chain is long
// (an exp, then a division), its speed is bound by how many vectors the
// out-of-order window holds, i.e. by latency times operations per vector,
// and there the shorter chain pays; Horner's last step also rounds once
// while this one rounds the leading pair first, so each caller is swept.
template <size_t kFirst = 0, class D, class Coefficients>
HWY_INLINE hn::Vec<D> PolynomialPairs(D d, hn::Vec<D> t, hn::Vec<D> t2, const Coefficients& c) {
  constexpr size_t kN = sizeof(Coefficients) / sizeof(float);
  static_assert(kN > kFirst);
  if constexpr (kFirst + 1 == kN) {
    return hn::Set(d, c[kFirst]);
  } else {
    const auto pair = hn::MulAdd(hn::Set(d, c[kFirst + 1]), t, hn::Set(d, c[kFirst]));
    if constexpr (kFirst + 2 == kN) {
      return pair;
    } else {
      return hn::MulAdd(PolynomialPairs<kFirst + 2>(d, t, t2, c), t2, pair);
    }
  }
}

// The polynomial without its constant term: c[1] t + c[2] t^2 + ... + c0_lo,
// for pieces whose value is mostly the constant c[0] (plus the small c0_lo
// the float c[0] leaves out). Callers add c[0] last, so the value's largest
// part carries no rounding of its own. The terms from t^2 on are summed by
// PolynomialPairs (a shorter chain for long polynomials), the last two steps
// by Horner, whose single roundings matter most.
template <class D, size_t N>
HWY_INLINE hn::Vec<D> PolynomialRest(D d, hn::Vec<D> t, const float (&c)[N], float c0_lo) {
  const auto high = PolynomialPairs<2>(d, t, hn::Mul(t, t), c);
  return hn::MulAdd(hn::MulAdd(high, t, hn::Set(d, c[1])), t, hn::Set(d, c0_lo));
}

// x clamped to [lo, hi], NaN kept. x86's MINPS and MAXPS return their second
// operand where either is NaN, so min(hi, max(lo, x)) keeps it; Highway's
// Min and Max elsewhere (Arm's FMINNM and FMAXNM, the emulated targets)
// return the number, so there NaN lanes are put back. (unary-inl.h's
// ClampKeepNaN compares there instead: Clip must keep x = -0 at a bound of 0,
// which FMAXNM makes +0.)
template <class D>
HWY_INLINE hn::Vec<D> ClampKeepingNaN(D d, hn::Vec<D> x, float lo, float hi) {
  const auto clamped = hn::Min(hn::Set(d, hi), hn::Max(hn::Set(d, lo), x));
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
  return clamped;
#else
  return hn::IfThenElse(hn::IsNaN(x), x, clamped);
#endif
}

// x P(x^2) / Q(x^2) with x clamped to [-c, c], by Horner's scheme and one
// DivFast: the fast tier's odd functions that saturate at +-limit (tanh, erf:
// 1; GELU's erf / 2: 1/2), each fitted as one rational in x^2 on [0, c]
// (tools/fit_math.py), c chosen where the rational evaluates to exactly
// limit with and without fused multiply-add, so that +-Inf give +-limit. That
// takes a correctly rounded quotient; where DivFast is not (armv7), lanes at
// the clamp take +-limit outright.
template <class D, size_t NP, size_t NQ>
HWY_INLINE hn::Vec<D> SaturatingOddRational(D d, hn::Vec<D> x, float c, const float (&p)[NP],
                                            const float (&q)[NQ], float limit = 1.0f) {
  const auto xc = ClampKeepingNaN(d, x, -c, c);
  const auto s = hn::Mul(xc, xc);
  const auto r = DivFast(d, hn::Mul(xc, Polynomial(d, s, p)), Polynomial(d, s, q));
  if constexpr (kDivFastIsIeee) {
    return r;
  } else {
    return hn::IfThenElse(hn::Ge(hn::Abs(x), hn::Set(d, c)), hn::CopySign(hn::Set(d, limit), x), r);
  }
}

// 2^k for integer lanes k in [-126, 127].
template <class D>
HWY_INLINE hn::Vec<D> Pow2(D d, hn::Vec<hn::RebindToSigned<D>> k) {
  const hn::RebindToSigned<D> di;
  return hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(k, hn::Set(di, 127))));
}

// v * 2^k where v and the result are normal floats: k goes straight into the
// exponent bits. Only k's low 9 bits matter, so callers may pass k plus any
// multiple of 512 (e.g. RoundToLn2Multiple's biased bits).
template <class D>
HWY_INLINE hn::Vec<D> ScaleByPow2Normal(D d, hn::Vec<D> v, hn::Vec<hn::RebindToSigned<D>> k) {
  const hn::RebindToSigned<D> di;
  return hn::BitCast(d, hn::Add(hn::BitCast(di, v), hn::ShiftLeft<23>(k)));
}

// v * 2^k for k in [-252, 254]: two exact power-of-two factors, so a result
// in the denormal range is rounded once, by the last multiplication.
template <class D>
HWY_INLINE hn::Vec<D> ScaleByPow2(D d, hn::Vec<D> v, hn::Vec<hn::RebindToSigned<D>> k) {
  const auto half = hn::ShiftRight<1>(k);
  return hn::Mul(hn::Mul(v, Pow2(d, half)), Pow2(d, hn::Sub(k, half)));
}

// Lanes whose sign bit is set (-0 and -NaN too), by an integer compare: on
// AVX2 one instruction fewer than a float compare with zero (GCC adds a
// second compare to turn that mask into blend form), the same elsewhere.
template <class D>
HWY_INLINE hn::Mask<D> SignBitSet(D d, hn::Vec<D> v) {
  const hn::RebindToSigned<D> di;
  return hn::RebindMask(d, hn::Lt(hn::BitCast(di, v), hn::Zero(di)));
}

// Lanes holding a positive normal float (not zero, denormal, Inf or NaN):
// one unsigned compare of the bits moved so that the smallest normal lands
// on 0.
template <class D>
HWY_INLINE hn::Mask<D> IsPositiveNormal(D d, hn::Vec<D> v) {
  const hn::RebindToUnsigned<D> du;
  const auto offset = hn::Sub(hn::BitCast(du, v), hn::Set(du, 0x00800000u));
  return hn::RebindMask(d, hn::Lt(offset, hn::Set(du, 0x7F000000u)));
}

// 1/a to about 2^-23 (relative) from the reciprocal estimate and Newton
// steps: one from AVX-512's 14-bit estimate, two from the 12 bits of other
// x86 targets and the 8 of Arm's. Cheaper than a division where the result
// can take that error; a = 0 gives NaN.
template <class D>
HWY_INLINE hn::Vec<D> ReciprocalNewton(D d, hn::Vec<D> a) {
  const auto one = hn::Set(d, 1.0f);
  auto r = hn::ApproximateReciprocal(a);
  r = hn::MulAdd(r, hn::NegMulAdd(a, r, one), r);
#if !(HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3)
  r = hn::MulAdd(r, hn::NegMulAdd(a, r, one), r);
#endif
  return r;
}

}  // namespace math
}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_DETAIL_MATH_COMMON_INL_H_
