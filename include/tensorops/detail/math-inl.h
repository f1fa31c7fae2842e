// The project's float transcendentals, written once for every Highway target.
//
// Why not Highway's contrib math: it is 1.7-2.8x slower than Eigen here for
// exp/tanh, has no erf, and loses accuracy where inference needs it (erfc tails
// inside GELU, denormal results of exp). Every function below states how it
// reduces its argument; the polynomial coefficients come from
// tools/fit_math.py and the measured max errors (in ULP, against a double
// reference over all 2^32 floats) are in the README's accuracy table.
//
// Conventions: `d` is a float descriptor; inputs may be any float including
// NaN, +-Inf and denormals, and those propagate as IEEE 754 says. No function
// relies on fused multiply-add where a target lacks it: wherever a product
// must be exact, either its factors are short enough that plain
// multiplication is exact, or the exact error comes from an FMA inside
// `if constexpr (HWY_NATIVE_FMA)` with a split-based path beside it.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_DETAIL_MATH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_DETAIL_MATH_INL_H_
#undef TENSOROPS_DETAIL_MATH_INL_H_
#else
#define TENSOROPS_DETAIL_MATH_INL_H_
#endif

#include <stdint.h>

#include <array>
#include <bit>

#include <hwy/highway.h>

#include "tensorops/detail/ieee-inl.h"
#include "tensorops/detail/lane_table-inl.h"

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
// PolynomialPairs (GELU's degree-9 and 10 pieces: GELU 6% faster on Zen 5),
// the last two steps by Horner, whose single roundings keep GELU at 1.49 ULP
// (pairs down to c[1]: 1.59).
template <class D, size_t N>
HWY_INLINE hn::Vec<D> PolynomialRest(D d, hn::Vec<D> t, const float (&c)[N], float c0_lo) {
  const auto high = PolynomialPairs<2>(d, t, hn::Mul(t, t), c);
  return hn::MulAdd(hn::MulAdd(high, t, hn::Set(d, c[1])), t, hn::Set(d, c0_lo));
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

// IfThenElse(mask, if_true(), if_false()), calling only the side some lane
// needs: piecewise kernels evaluate one piece for the (common) vectors that
// lie in it, both for vectors that straddle the boundary.
template <class D, class IfTrue, class IfFalse>
HWY_INLINE hn::Vec<D> EvaluateWhereNeeded(D d, hn::Mask<D> mask, const IfTrue& if_true,
                                          const IfFalse& if_false) {
  if (hn::AllTrue(d, mask)) return if_true();
  if (hn::AllFalse(d, mask)) return if_false();
  return hn::IfThenElse(mask, if_true(), if_false());
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

// exp(hi + lo) as (1 + q) * 2^k with 1 + q in [0.67, 1.5]: the parts of the
// result before scaling, so callers can multiply by a factor first and round
// a denormal result once. The parts come back through references: a struct
// of two vectors would not compile for SVE, whose vectors are sizeless.
// hi is clamped to [-120, 89]: exp gives 0 and +Inf there after scaling,
// with room below for callers' factors up to e^16. NaN is the caller's to
// restore.
//
// Reduction: k = round((hi + lo) / ln2), r = hi - k*ln2 + lo with ln2 in two
// parts; ln2_hi has 9 significant bits, so k*ln2_hi and
// hi - k*ln2_hi are exact (|k| <= 174 here). exp(r) = 1 + r + r^2 P(r) on
// |r| <= ln2/2 (k comes from hi + lo, so lo does not widen r's range).
template <class D>
using ExpScale = hn::Vec<hn::RebindToSigned<D>>;  // the k of 2^k

// 1 + q, the factor before 2^k.
template <class D>
HWY_INLINE hn::Vec<D> ExpMantissa(D d, hn::Vec<D> q) {
  return hn::Add(hn::Set(d, 1.0f), q);
}

// exp(r) = sum c[i] r^i for |r| <= ln2/2 (+ rounding): 1, 1, 1/2, then
// fitted terms. The degree was chosen by sweeping all floats: degree 6 leaves
// sigmoid, tanh and erf as accurate as degree 7 did, with one multiply-add
// less per vector (their own division and rounding dominate); exp itself
// (0.97 ULP rather than 1.05 then, 0.87 now as one Horner chain; softmax
// through it), expm1 (ELU: 0.88 rather than 1.02), SiLU and GELU keep
// degree 7 (kPrecise).
inline constexpr float kExpDegree6[] = {1.0f, 1.0f, 0.5f, 0.166665733f, 0.0416665487f,
                                        0.0083637666f, 0.00139269186f};
inline constexpr float kExpDegree7[] = {1.0f, 1.0f, 0.5f, 0.166666672f, 0.0416664556f,
                                        0.00833331048f, 0.00139345322f, 0.000198919704f};

// 2^s as a float, for the exp helpers that fold a caller's factor 2^s.
template <int kScaleLog2>
constexpr float kPow2 = kScaleLog2 >= 0 ? float(1 << kScaleLog2) : 1.0f / float(1 << -kScaleLog2);

// c[i] 2^(i s): the coefficients of p(2^s t) for those of p(t), exact;
// with kTimesT, c[i] 2^((i + 1) s), those of 2^s t p(2^s t) / t.
template <int kScaleLog2, size_t N, bool kTimesT = false>
constexpr std::array<float, N> ScaledCoefficients(const float (&c)[N]) {
  std::array<float, N> scaled{};
  float factor = kTimesT ? kPow2<kScaleLog2> : 1.0f;
  for (size_t i = 0; i < N; ++i, factor *= kPow2<kScaleLog2>) scaled[i] = c[i] * factor;
  return scaled;
}

// exp(2^s r) - 1 = 2^s r + (2^s r)^2 P(2^s r), for callers that need
// q = exp(r) - 1 apart (s = 0 but in ExpByPolynomial). P by PolynomialPairs:
// its roundings reach q scaled by r^2 <= 0.12, and the chain is shorter.
template <bool kPrecise = false, int kScaleLog2 = 0, class D>
HWY_INLINE hn::Vec<D> ExpMinus1(D d, hn::Vec<D> r) {
  static constexpr auto k6 = ScaledCoefficients<kScaleLog2>(kExpDegree6);
  static constexpr auto k7 = ScaledCoefficients<kScaleLog2>(kExpDegree7);
  const auto r2 = hn::Mul(r, r);
  const auto p = kPrecise ? PolynomialPairs<2>(d, r, r2, k7) : PolynomialPairs<2>(d, r, r2, k6);
  const auto linear = kScaleLog2 == 0 ? r : hn::Mul(r, hn::Set(d, k6[1]));  // exact
  return hn::MulAdd(r2, p, linear);
}

// k = round(2^s x / ln2) for |2^s x| < 2^21 (s may be negative, or 3 for
// multiples of ln2 / 8), as a float and as the bits of
// 1.5 * 2^23 + k: adding 1.5 * 2^23 leaves no fraction bits, so the sum is
// rounded to an integer (to nearest even, like Round) and that integer sits
// in the low bits of the sum's mantissa. Cheaper than Round + ConvertTo
// (one fused multiply-add and one subtraction) on every target.
template <int kScaleLog2 = 0, class D>
HWY_INLINE hn::Vec<D> RoundToLn2Multiple(D d, hn::Vec<D> x,
                                          hn::Vec<hn::RebindToSigned<D>>& biased_bits) {
  const hn::RebindToSigned<D> di;
  const auto shifter = hn::Set(d, 12582912.0f);
  const auto biased = hn::MulAdd(x, hn::Set(d, 1.44269504f * kPow2<kScaleLog2>), shifter);
  biased_bits = hn::BitCast(di, biased);
  return hn::Sub(biased, shifter);
}

// x - k ln2 / 2^s, for k from RoundToLn2Multiple<s>: ln2 in two parts
// (ln2_hi has 9 significant bits and |k| < 2^11, so k ln2_hi / 2^s and
// x - k ln2_hi / 2^s are exact). kOneStep, where multiply-add fuses: ln2 rounded
// to float, off by k 1.9e-9 / 2^s, for callers whose result damps that
// error or whose argument already carries a larger one.
template <int kScaleLog2, bool kOneStep, class D>
HWY_INLINE hn::Vec<D> ReduceByLn2Multiple(D d, hn::Vec<D> x, hn::Vec<D> k) {
  constexpr float kInvScale = 1.0f / kPow2<kScaleLog2>;
  if constexpr (kOneStep && HWY_NATIVE_FMA) {
    return hn::NegMulAdd(k, hn::Set(d, 0.693147182f * kInvScale), x);
  } else {
    const auto r = hn::NegMulAdd(k, hn::Set(d, 0.693359375f * kInvScale), x);
    return hn::NegMulAdd(k, hn::Set(d, -2.12194440e-4f * kInvScale), r);
  }
}

// q = exp(r) - 1 with |q| < 0.5, and k, for |hi + lo| <= 174 (no clamp).
template <bool kHasLow, bool kPrecise = false, class D>
HWY_INLINE void ExpSplitUnclamped(D d, hn::Vec<D> x, hn::Vec<D> lo, hn::Vec<D>& q,
                                  ExpScale<D>& k) {
  const hn::RebindToSigned<D> di;
  const auto sum = kHasLow ? hn::Add(x, lo) : x;
  ExpScale<D> biased_bits;
  const auto kf = RoundToLn2Multiple(d, sum, biased_bits);
  if constexpr (kHasLow) {
    // ReduceByLn2Multiple's two parts, the low one applied to lo: r = r_hi +
    // r_lo rounded once, and that rounding's error (Fast2Sum) folded into
    // q: exp(r + err) = (1 + q)(1 + err).
    const auto r_hi = hn::NegMulAdd(kf, hn::Set(d, 0.693359375f), x);  // exact
    const auto r_lo = hn::NegMulAdd(kf, hn::Set(d, -2.12194440e-4f), lo);
    const auto r = hn::Add(r_hi, r_lo);
    const auto err = hn::Add(hn::Sub(r_hi, r), r_lo);
    const auto q0 = ExpMinus1<kPrecise>(d, r);
    q = hn::MulAdd(err, hn::Add(hn::Set(d, 1.0f), q0), q0);
  } else {
    q = ExpMinus1<kPrecise>(d, ReduceByLn2Multiple</*kScaleLog2=*/0, /*kOneStep=*/false>(d, x, kf));
  }
  k = hn::Sub(biased_bits, hn::Set(di, 0x4B400000));
}

// The same for any hi (NaN is the caller's to restore).
template <bool kHasLow, bool kPrecise = false, class D>
HWY_INLINE void ExpSplit(D d, hn::Vec<D> hi, hn::Vec<D> lo_in, hn::Vec<D>& q, ExpScale<D>& k) {
  const auto x = hn::Min(hn::Max(hi, hn::Set(d, -120.0f)), hn::Set(d, 89.0f));
  // A clamped hi makes lo meaningless (and it may be large: lo is below
  // half an ULP of hi, not of the clamp).
  const auto lo = kHasLow ? hn::IfThenElse(hn::Eq(x, hi), lo_in, hn::Zero(d)) : lo_in;
  ExpSplitUnclamped<kHasLow, kPrecise>(d, x, lo, q, k);
}

// exp(2^s r) = 1 + q for |2^s r| <= ln2/2, for callers that want 1 + q
// rather than q. With fused multiply-add, one Horner chain whose last step
// adds the 1: one step fewer than 1 + (r + r^2 P(r)), and more accurate (exp
// 0.97 -> 0.85 ULP, every 97th float). Without it, that last step would be
// rounded twice (exp 0.94 -> 1.12 ULP), so those targets keep the split form.
template <bool kPrecise, int kScaleLog2, class D>
HWY_INLINE hn::Vec<D> ExpOfReduced(D d, hn::Vec<D> r) {
  static constexpr auto k6 = ScaledCoefficients<kScaleLog2>(kExpDegree6);
  static constexpr auto k7 = ScaledCoefficients<kScaleLog2>(kExpDegree7);
  if constexpr (HWY_NATIVE_FMA) {
    return kPrecise ? Polynomial(d, r, k7) : Polynomial(d, r, k6);
  } else {
    return hn::Add(hn::Set(d, 1.0f), ExpMinus1<kPrecise, kScaleLog2>(d, r));
  }
}

// ExpNormalRange (below) where a per-lane lookup takes more than one
// permute: exp(y) = 2^k exp(r) with k = round(y / ln2), |r| <= ln2/2, 2^k
// straight into the exponent bits of exp(r)'s polynomial.
template <bool kPrecise, int kScaleLog2, bool kOneStep, class D>
HWY_INLINE hn::Vec<D> ExpByPolynomial(D d, hn::Vec<D> x) {
  ExpScale<D> biased_bits;
  const auto k = RoundToLn2Multiple<kScaleLog2>(d, x, biased_bits);
  const auto r = ReduceByLn2Multiple<kScaleLog2, kOneStep>(d, x, k);  // r / 2^s
  const auto p = ExpOfReduced<kPrecise, kScaleLog2>(d, r);
  // The biased bits are k + 0x4B400000, a multiple of 512 apart from k.
  return ScaleByPow2Normal(d, p, biased_bits);
}

// ExpNormalRange (below) from a table of eight entries:
// exp(y) = 2^(k/8) exp(r) with k = round(8 y / ln2) and |r| <= ln2/16.
// With k = 8 m + j, 2^(k/8) = 2^m T_j, where the float T_j = 2^(j/8)
// (rounded) comes from a per-lane lookup (lane_table-inl.h) and 2^m goes
// straight into its exponent bits. What T_j's rounding left out, its
// relative error c_j, is a second lookup and joins the polynomial as its
// constant term: exp(y) = s + s q with s = 2^m T_j and q = c_j + r U(r)
// (c_j q, below 1.5e-9, is dropped). On |r| <= ln2/16 a cubic q is within
// 3e-8 of exp's relative error (softmax's sums and SiLU's fast path, whose
// own roundings dominate) and a quartic within 5e-10 (kPrecise: exp itself,
// every 97th float 0.85 -> 0.80 ULP; sigmoid 1.87 as before, 2.17 with the
// cubic).
// Either is far shorter than the degree 6 and 7 that |r| <= ln2/2 needed,
// and the lookups run beside the reduction, off the chain of dependent
// steps, which is what bounds these kernels on Zen 5 (see PolynomialPairs).
// bench/ab.py, 1M floats, AVX-512 / AVX2: exp 109 -> 88 / 199 -> 171 us,
// sigmoid 200 -> 182 / 400 -> 359, softmax 1000x1000 144 -> 136 / 245 -> 215.
// The factor 2^s folds into the constants exactly. Garbage inputs give
// garbage, never an index outside the table.
inline constexpr float kExpTableU3[] = {1.0f, 0.5f, 0.166686967f, 0.0416654982f};
inline constexpr float kExpTableU2[] = {1.0f, 0.500067413f, 0.166642025f};

// The table's entries, from tools/fit_math.py: T_j's bits less j << 20 (so
// that adding k << 20 adds m to the exponent) and c_j = (2^(j/8) - T_j) / T_j.
inline constexpr uint32_t kExp2EighthsBits[8] = {0x3f800000u, 0x3f7b95c2u, 0x3f7837f0u,
                                                 0x3f75fed7u, 0x3f7504f3u, 0x3f75672au,
                                                 0x3f7744fdu, 0x3f7ac0c7u};
inline constexpr float kExp2EighthsLow[8] = {0.0f,           -1.19921575e-08f, 3.19341815e-08f,
                                             -3.09907193e-08f, 1.71142709e-08f, 5.23333421e-09f,
                                             -1.47196051e-08f, -6.12825968e-09f};
inline constexpr detail::LaneTable kExp2EighthsBitsTable = [] {
  float as_floats[8] = {};
  for (size_t j = 0; j < 8; ++j) as_floats[j] = std::bit_cast<float>(kExp2EighthsBits[j]);
  return detail::ValueTable(as_floats);
}();
inline constexpr detail::LaneTable kExp2EighthsLowTable = detail::ValueTable(kExp2EighthsLow);

template <bool kPrecise, int kScaleLog2, bool kOneStep, class D>
HWY_INLINE hn::Vec<D> ExpByTable(D d, hn::Vec<D> x) {
  const hn::RebindToSigned<D> di;
  // k = round(8 2^s x / ln2), r / 2^s = x - k ln2 / (8 2^s).
  ExpScale<D> biased_bits;
  const auto k = RoundToLn2Multiple<kScaleLog2 + 3>(d, x, biased_bits);
  const auto r = ReduceByLn2Multiple<kScaleLog2 + 3, kOneStep>(d, x, k);
  // The biased bits are k plus a multiple of 8: their low three bits are j,
  // and shifted by 20 they leave k << 20 = (m << 23) + (j << 20).
  const auto j = hn::And(biased_bits, hn::Set(di, 7));
  const auto table_bits = hn::BitCast(di, LookupLanes(d, kExp2EighthsBitsTable, j));
  const auto scale = hn::BitCast(d, hn::Add(table_bits, hn::ShiftLeft<20>(biased_bits)));
  // q = c_j + 2^s r U(2^s r), 2^s folded into U's coefficients.
  static constexpr auto kU3 = ScaledCoefficients<kScaleLog2, 4, /*kTimesT=*/true>(kExpTableU3);
  static constexpr auto kU2 = ScaledCoefficients<kScaleLog2, 3, /*kTimesT=*/true>(kExpTableU2);
  const auto u = kPrecise ? Polynomial(d, r, kU3) : Polynomial(d, r, kU2);
  const auto q = hn::MulAdd(u, r, LookupLanes(d, kExp2EighthsLowTable, j));
  return hn::MulAdd(scale, q, scale);
}

// exp(2^s x) for |2^s x| < 87.3, where every result is a normal float (no
// clamp, no NaN, no two-step scaling). kPrecise: exp itself and sigmoid;
// without, exp for callers whose own roundings dominate (softmax, SiLU's
// fast path). kOneStep: see ReduceByLn2Multiple. By the table where its
// lookup is one permute (AVX2, AVX-512); elsewhere the two lookups cost more
// than the polynomial terms they save (SSE4: softmax 26% slower with the
// table), and those targets keep ExpByPolynomial. Inputs outside the range
// give garbage, which callers replace.
template <bool kPrecise = false, int kScaleLog2 = 0, bool kOneStep = false, class D>
HWY_INLINE hn::Vec<D> ExpNormalRange(D d, hn::Vec<D> x) {
  if constexpr (kLookupIsOnePermute<D>) {
    return ExpByTable<kPrecise, kScaleLog2, kOneStep>(d, x);
  } else {
    return ExpByPolynomial<kPrecise, kScaleLog2, kOneStep>(d, x);
  }
}

// ExpNormalRange's result in a shorter chain, for callers whose result damps
// exp's error, where multiply-add fuses:
//  - the reduction in one step, with ln2 rounded to float: r is off by
//    k (ln2 - float(ln2)) / 2^s, a relative error of |k| 1.9e-9 in the
//    result (2.2e-7 at |k| = 115);
//  - no table: a degree-6 polynomial by PolynomialPairs (16 cycles deep).
// tanh (1 - 2 / (exp(2a) + 1)) scales that error by about 2 exp(-2a) with
// k ~ 2a / ln2: at most 3e-9, 0.03 ULP, and stays at 1.35 ULP; GELU's right
// tail scales it by tail / result. Both got faster on Zen 5 (tanh 11%):
// their chains (an exp, then a division or a multiply-add with the other
// half) are bound by how many vectors the out-of-order window holds.
// With ExpNormalRange's table and quartic instead, tanh was 2% slower on
// AVX-512 (one lookup more, the same depth), with its cubic 1.41 ULP.
// Without fused multiply-add the one-step reduction would round k ln2
// itself: those targets take ExpNormalRange.
template <int kScaleLog2 = 0, class D>
HWY_INLINE hn::Vec<D> ExpNormalRangeDamped(D d, hn::Vec<D> x) {
  if constexpr (HWY_NATIVE_FMA) {
    ExpScale<D> biased_bits;
    const auto k = RoundToLn2Multiple<kScaleLog2>(d, x, biased_bits);
    const auto r = ReduceByLn2Multiple<kScaleLog2, /*kOneStep=*/true>(d, x, k);
    static constexpr auto kCoefficients = ScaledCoefficients<kScaleLog2>(kExpDegree6);
    const auto p = PolynomialPairs(d, r, hn::Mul(r, r), kCoefficients);
    return ScaleByPow2Normal(d, p, biased_bits);
  } else {
    return ExpNormalRange</*kPrecise=*/false, kScaleLog2>(d, x);
  }
}

template <bool kPrecise = true, class D>
HWY_INLINE hn::Vec<D> Exp(D d, hn::Vec<D> x) {
  if (HWY_LIKELY(hn::AllTrue(d, hn::Lt(hn::Abs(x), hn::Set(d, 87.3f))))) {
    return ExpNormalRange<kPrecise>(d, x);
  }
  hn::Vec<D> q;
  ExpScale<D> k;
  ExpSplit</*kHasLow=*/false, kPrecise>(d, x, x, q, k);
  return hn::IfThenElse(hn::IsNaN(x), x, ScaleByPow2(d, ExpMantissa(d, q), k));
}

// exp(x) - 1 without cancellation: with exp(x) = 2^k (1 + q),
// expm1 = 2^k q + (2^k - 1), where 2^k - 1 is exact for |k| <= 24 and q
// = r + r^2 P(r) carries no rounded 1. Outside that range exp(x) - 1 is
// already exact to the last bit (-1, or exp(x)).
template <class D>
HWY_INLINE hn::Vec<D> Expm1(D d, hn::Vec<D> x) {
  const hn::RebindToSigned<D> di;
  hn::Vec<D> q;
  ExpScale<D> e_k;
  ExpSplit</*kHasLow=*/false, /*kPrecise=*/true>(d, x, x, q, e_k);
  const auto k = hn::Min(hn::Max(e_k, hn::Set(di, -24)), hn::Set(di, 24));
  const auto scale = Pow2(d, k);
  const auto mid = hn::MulAdd(scale, q, hn::Sub(scale, hn::Set(d, 1.0f)));
  const auto far = hn::Sub(ScaleByPow2(d, ExpMantissa(d, q), e_k), hn::Set(d, 1.0f));
  const auto in_range = hn::RebindMask(d, hn::Eq(k, e_k));
  // For |x| < 0.35 (k = 0) this is q itself: r + r^2 P(r), exact in sign.
  return hn::IfThenElse(hn::IsNaN(x), x, hn::IfThenElse(in_range, mid, far));
}

// -factor z^2 (factor a power of two) as hi + lo. With fused multiply-add
// the parts are the rounded product and its exact error; without, z = zh +
// zl with zh holding the top 12 bits, so zh^2 is exact and zl (zh + z) is
// the small rest.
template <class D>
HWY_INLINE void NegScaledSquare(D d, hn::Vec<D> z, float factor, hn::Vec<D>& hi,
                                hn::Vec<D>& lo) {
  if constexpr (HWY_NATIVE_FMA) {
    const auto scaled = hn::Mul(z, hn::Set(d, -factor));  // exact
    hi = hn::Mul(z, scaled);
    lo = hn::MulSub(z, scaled, hi);  // exact
  } else {
    const hn::RebindToUnsigned<D> du;
    const auto zh = hn::BitCast(d, hn::And(hn::BitCast(du, z), hn::Set(du, 0xFFFFF000u)));
    const auto zl = hn::Sub(z, zh);
    const auto f = hn::Set(d, -factor);  // scaling stays exact
    hi = hn::Mul(hn::Mul(zh, zh), f);
    lo = hn::Mul(hn::Mul(zl, hn::Add(zh, z)), f);
  }
}

// exp(-factor z^2) with the argument carried in those two parts, returned
// before scaling like ExpSplit.
template <class D>
HWY_INLINE void ExpNegSquare(D d, hn::Vec<D> z, float factor, hn::Vec<D>& q, ExpScale<D>& k) {
  hn::Vec<D> hi, lo;  // -factor z^2 = hi + lo
  NegScaledSquare(d, z, factor, hi, lo);
  ExpSplit</*kHasLow=*/true, /*kPrecise=*/true>(d, hi, lo, q, k);
}

// log(x). x = 2^e m with m in [sqrt(1/2), sqrt(2)) (denormals are scaled by
// 2^23 first); with f = m - 1 (exact) and s = f / (2 + f),
// log(m) = f - (f^2/2 - s (f^2/2 + s^2 Q(s^2))): the leading f carries no
// rounding, and the rounded s enters only a term ~f^2/2 smaller.
// log(0) = -Inf, log(<0) = NaN, log(+Inf) = +Inf.
// The core: log(m 2^e) from x's bits already moved so that m is in [sqrt(1/2), sqrt(2))
// (see Log); e is the exponent field of those bits.
template <class D>
HWY_INLINE hn::Vec<D> LogOfShifted(D d, hn::Vec<hn::RebindToSigned<D>> bits,
                                   hn::Vec<hn::RebindToSigned<D>> e) {
  const hn::RebindToSigned<D> di;
  static constexpr float kQ[] = {0.666666687f, 0.400001258f, 0.285503983f,
                                 0.233419433f};
  const auto m = hn::BitCast(
      d, hn::Add(hn::And(bits, hn::Set(di, 0x007FFFFF)), hn::Set(di, 0x3F3504F3)));
  const auto f = hn::Sub(m, hn::Set(d, 1.0f));
  const auto s = Div(d, f, hn::Add(f, hn::Set(d, 2.0f)));
  const auto u = hn::Mul(s, s);
  const auto half_f2 = hn::Mul(hn::Mul(f, f), hn::Set(d, 0.5f));
  const auto ef = hn::ConvertTo(d, e);
  const auto tail = hn::MulAdd(s, hn::MulAdd(u, Polynomial(d, u, kQ), half_f2),
                               hn::Mul(ef, hn::Set(d, -2.12194440e-4f)));
  const auto log_m = hn::Sub(f, hn::Sub(half_f2, tail));
  return hn::MulAdd(ef, hn::Set(d, 0.693359375f), log_m);
}

template <class D>
HWY_INLINE hn::Vec<D> Log(D d, hn::Vec<D> x) {
  const hn::RebindToSigned<D> di;
  // Subtracting the bits of sqrt(1/2) puts m's range boundary at an exponent
  // change: e = floor(log2(x / sqrt(1/2))).
  const auto sqrt_half = hn::Set(di, 0x3F3504F3);
  // Fast path: every lane a positive normal finite float, so no scaling
  // and no special values.
  if (HWY_LIKELY(hn::AllTrue(d, IsPositiveNormal(d, x)))) {
    const auto bits = hn::Sub(hn::BitCast(di, x), sqrt_half);
    return LogOfShifted(d, bits, hn::ShiftRight<23>(bits));
  }
  const auto is_denormal = hn::Lt(x, hn::Set(d, 1.17549435e-38f));
  const auto scaled = hn::IfThenElse(is_denormal, hn::Mul(x, hn::Set(d, 8388608.0f)), x);
  const auto bits = hn::Sub(hn::BitCast(di, scaled), sqrt_half);
  auto e = hn::ShiftRight<23>(bits);
  e = hn::IfThenElse(hn::RebindMask(di, is_denormal), hn::Sub(e, hn::Set(di, 23)), e);
  auto result = LogOfShifted(d, bits, e);
  // Special values: +Inf and NaN pass through, 0 -> -Inf, negative -> NaN.
  const auto inf = hn::BitCast(d, hn::Set(di, 0x7F800000));
  result = hn::IfThenElse(hn::Eq(x, inf), x, result);
  result = hn::IfThenElse(hn::Eq(x, hn::Zero(d)), hn::Neg(inf), result);
  const auto nan = hn::BitCast(d, hn::Set(di, 0x7FC00000));
  result = hn::IfThenElse(hn::Lt(x, hn::Zero(d)), nan, result);
  return hn::IfThenElse(hn::IsNaN(x), x, result);
}

// log(1 + y + y_err) for y_err far below an ULP of y (the exact error of a
// rounded y, or 0) and u = 1 + y finite and nonzero. u rounds away part of
// y; the correction (y - (u - 1) + y_err) / u puts it back (Goldberg's
// trick), so small y keep full relative accuracy.
template <class D>
HWY_INLINE hn::Vec<D> Log1pWithError(D d, hn::Vec<D> y, hn::Vec<D> y_err) {
  const auto one = hn::Set(d, 1.0f);
  const auto u = hn::Add(one, y);
  const auto correction = Div(d, hn::Add(hn::Sub(y, hn::Sub(u, one)), y_err), u);
  return hn::Add(Log(d, u), correction);
}

// log(1 + y).
template <class D>
HWY_INLINE hn::Vec<D> Log1p(D d, hn::Vec<D> y) {
  const auto u = hn::Add(hn::Set(d, 1.0f), y);
  // u = +Inf or 0: the correction is NaN; log(u) alone is right.
  const auto finite = hn::And(hn::IsFinite(u), hn::Ne(u, hn::Zero(d)));
  return hn::IfThenElse(finite, Log1pWithError(d, y, hn::Zero(d)), Log(d, u));
}

// log(1 + exp(-|x|)), softplus's and log-sigmoid's tail. As Log1p(Exp(-|x|))
// exp's final rounding reached the result almost whole (at e = exp(-1.26)
// log1p's relative condition e / ((1 + e) log1p(e)) is 0.89): softplus 2.11
// ULP over all floats. So e = 2^k (1 + q) is kept as its rounded value and
// the exact error of 1 + q (Fast2Sum, |q| < 1/2), and log1p's correction
// takes that error too. e <= 1, so 1 + e is in [1, 2]: Log's fast path, no
// Inf or 0; e_err may underflow where e is tiny, and there the result is e.
// NaN passes through.
template <class D>
HWY_INLINE hn::Vec<D> Log1pExpNegAbs(D d, hn::Vec<D> x) {
  hn::Vec<D> q;
  ExpScale<D> k;
  ExpSplit</*kHasLow=*/false, /*kPrecise=*/true>(d, hn::Neg(hn::Abs(x)), x, q, k);
  const auto p = ExpMantissa(d, q);
  const auto p_err = hn::Add(hn::Sub(hn::Set(d, 1.0f), p), q);  // exact
  const auto tail = Log1pWithError(d, ScaleByPow2(d, p, k), ScaleByPow2(d, p_err, k));
  return hn::IfThenElse(hn::IsNaN(x), x, tail);
}

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
  return hn::IfThenElse(hn::Ge(a, hn::Set(d, 0.625f)), large, TanhSmall(d, x));
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
// and the numerator's rounding error (SiLU 2.16 -> ~1.1 ULP for 4 more
// instructions); sigmoid (here only for vectors reaching |x| = 87 or NaN,
// see Sigmoid) keeps the cheaper correction (1.97 ULP).
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

// sigmoid(x). A vector with every |x| < 87 (the common case) takes a shorter
// form of TimesSigmoid's: e = exp(-|x|) is a normal float, so it is scaled
// at once and the quotient needs no scaling after; sigmoid is 1 / (1 + e)
// for x >= 0 and e / (1 + e) below (on AVX-512 8% faster in L1 than
// TimesSigmoid, the same 1.97 ULP over all floats). The rounding error of
// 1 + e (exact by Fast2Sum) corrects the quotient r as r (1 - den_err / den):
// the term is below an ULP, so a reciprocal estimate of den will do, and it
// runs beside the division rather than after it (as 1 / den = r or 1 - r
// did: AVX-512 180 -> 174 us, AVX2 356 -> 334, the same 1.87 ULP on every
// 97th float). e's error reaches sigmoid damped by 1 / (1 + e) >= 1/2 only:
// exp's table form needs its quartic here (the cubic: 2.17 ULP), the
// polynomial form does with degree 6 (1.87 ULP either way; degree 7 made
// SSE4 4% slower). Other vectors take TimesSigmoid.
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
  const auto neg_abs = hn::Or(x, hn::SignBit(d));  // -|x|
  if (HWY_NATIVE_FMA && HWY_LIKELY(hn::AllTrue(d, hn::Gt(neg_abs, hn::Set(d, -87.0f))))) {
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
  const auto xc = hn::Max(x, hn::Set(d, -200.0f));
  return TimesSigmoid</*kHasLow=*/false, /*kPrecise=*/true>(d, xc, xc, xc, x);
}

// erf(z) = z + z E(z^2) for |z| < 0.8 (one fused step; E is small, and
// fitted for the error of erf: degree 5).
inline constexpr float kErfSmallE[] = {0.128379166f,   -0.376126021f,  0.112831131f,
                                       -0.0268208068f, 0.00508512883f, -0.000653522729f};

template <class D>
HWY_INLINE hn::Vec<D> ErfSmall(D d, hn::Vec<D> z) {
  const auto e = Polynomial(d, hn::Mul(z, z), kErfSmallE);
  if constexpr (kFlushesDenormals) {  // z 2^24 and the result 2^-24 are exact
    const auto scaled = hn::Mul(z, hn::Set(d, 16777216.0f));
    return hn::Mul(hn::MulAdd(scaled, e, scaled), hn::Set(d, 5.96046448e-08f));
  }
  return hn::MulAdd(z, e, z);
}

// erf(a) for a in [0, 3.921875] with every lane's piece
// evaluated at once: one polynomial whose coefficients are looked up per lane
// (lane_table-inl.h).
// Piece 0 (a < 0.75) is ErfSmall's erf = a + a E(a^2); pieces 1-7 split
// [0.75, 4.25) into halves, [0.75, 1.25), [1.25, 1.75), ..., and hold
// erf(c + t) = erf(c) + t Q(t) with t = a - c exact (Sterbenz) and c a float
// whose erf is within 0.002 ULP of a float: the constant needs no low part.
// Q is fitted for the result's error (damped by |t|, tools/fit_math.py),
// degree 5 as E. Equal halves make the piece round(2a) - 1, one fused step
// (below); pieces split where a's exponent and first mantissa bit change
// needed degree 6 on [2, 3], one lookup and one multiply-add more per vector.
template <class D>
HWY_INLINE hn::Vec<D> ErfByPieces(D d, hn::Vec<D> a) {
  static constexpr float kCoefficients[8][6] = {
      {0.128379166f, -0.376126021f, 0.112831131f, -0.0268208068f, 0.00508512883f,
       -0.000653522729f},  // ErfSmall's E
      {0.415085018f, -0.41509679f, 0.138327092f, 0.0692214519f, -0.0675588101f,
       0.00375811197f},
      {0.118920647f, -0.178384453f, 0.138762683f, -0.0445889458f, -0.0153653882f,
       0.0190232322f},
      {0.0206680018f, -0.0413357876f, 0.0482362099f, -0.0344548486f, 0.0127209444f,
       0.000672704191f},
      {0.00217933347f, -0.00544807408f, 0.00835164357f, -0.0086268438f, 0.00617565075f,
       -0.00276234583f},
      {0.000139400057f, -0.000418155105f, 0.000788453151f, -0.00104452355f, 0.00106001797f,
       -0.000755881891f},
      {5.20656749e-06f, -1.825037e-05f, 4.07106854e-05f, -6.52477611e-05f, 8.59340507e-05f,
       -8.23797018e-05f},
      {4.70596405e-07f, -1.80367874e-06f, 4.45138812e-06f, -7.93150593e-06f, 1.09517887e-05f,
       -1.16137871e-05f}};
  static constexpr float kCenter[8] = {0.0f,        1.00002754f, 1.5000267f,  1.99998665f,
                                       2.49990487f, 2.99983644f, 3.50523043f, 3.83275986f};
  static constexpr float kValueAtCenter[8] = {0.0f,        0.842712224f, 0.966108322f,
                                              0.995321989f, 0.999592841f, 0.999977887f,
                                              0.999999285f, 0.99999994f};
  static_assert([] {
    for (size_t i = 0; i < 6; ++i) {
      if (kCoefficients[0][i] != kErfSmallE[i]) return false;
    }
    return true;
  }());
  static constexpr auto kTables = detail::MakePieceTables(kCoefficients, kCenter, kValueAtCenter);
  // piece = max(round(2a) - 1, 0): 2a + (1.5 * 2^23 - 2) rounds to the
  // integer 1.5 * 2^23 - 2 + round(2a) (ties to even, and the added constant
  // is even, so ties go as round(2a)'s), whose bits less those of
  // 1.5 * 2^23 - 1 are round(2a) - 1. Exact: a piece's lanes lie in its closed
  // interval, which the fit covers, and piece 0 is exactly a < 0.75 (2a = 1.5
  // rounds to 2).
  const hn::RebindToSigned<D> di;
  const auto rounded = hn::MulAdd(a, hn::Set(d, 2.0f), hn::Set(d, 12582910.0f));
  // NaN (which the caller replaces) must not index past the tables.
  const auto piece = hn::Min(hn::Max(hn::Sub(hn::BitCast(di, rounded), hn::Set(di, 0x4B3FFFFF)),
                                     hn::Zero(di)),
                             hn::Set(di, 7));
  const auto is_small = hn::Lt(a, hn::Set(d, 0.75f));
  const auto shifted = hn::Sub(a, LookupLanes(d, kTables.centers, piece));
  const auto t = hn::IfThenElse(is_small, hn::Mul(a, a), shifted);
  const auto q = PolynomialPerLane(d, t, kTables.coefficients, piece);
  // Piece 0's center is 0, so `shifted` is a itself there: the factor of q
  // in every piece.
  const auto base = hn::IfThenElse(is_small, a, LookupLanes(d, kTables.values, piece));
  return hn::MulAdd(shifted, q, base);
}

// Where denormals flush (armv7 NEON): lanes with |x| < 2^-64, whose result
// is about c x, take small() (which scales x first) instead of a piecewise
// form's a + a q, whose a q would flush to zero. A vector holding such a lane
// is rare; elsewhere this is `result`.
template <class D, class Small>
HWY_INLINE hn::Vec<D> SmallLanesScaled(D d, hn::Vec<D> x, hn::Vec<D> result, const Small& small) {
  if constexpr (kFlushesDenormals) {
    const auto tiny = hn::Lt(hn::Abs(x), hn::Set(d, 5.42101086e-20f));
    if (HWY_UNLIKELY(!hn::AllFalse(d, tiny))) return hn::IfThenElse(tiny, small(), result);
  } else {
    (void)d, (void)x, (void)small;
  }
  return result;
}

// erf(x) = sign(x) erf(|x|), erf(|x|) by ErfByPieces for every vector with
// |x| clamped at 3.921875 (erf is +-1 in float from 3.9192 on): the cost
// does not depend on the data. NaN lanes get x back. The sign: erf(|x|) >= 0
// takes x's sign bit (x ^ |x|) by one three-way exclusive or, which needs no
// sign-mask constant.
template <class D>
HWY_INLINE hn::Vec<D> Erf(D d, hn::Vec<D> x) {
  const auto abs_x = hn::Abs(x);
  const auto clamped = ErfByPieces(d, hn::Min(abs_x, hn::Set(d, 3.921875f)));
  const auto result = hn::IfThenElse(hn::IsNaN(x), x, hn::Xor3(clamped, x, abs_x));
  return SmallLanesScaled(d, x, result, [&] { return ErfSmall(d, x); });
}

// GELU, erf form: x Phi(x) = x/2 erfc(-x / sqrt(2)), evaluated in x itself
// (x / sqrt(2) would be rounded, and in the left tail that error grows with
// x^2). With a = |x|:
//   a < 0.665:  x/2 + (x^2/2) F(x^2)                    (F = erf(x/sqrt2)/x)
//   x <= -0.665: -(a/2) erfc(a/sqrt2) = -exp(-a^2/2) H(a)
//   x >= 0.665: x - exp(-a^2/2) H(a)
// where H is fitted for relative error (on the left the tail is the
// result) and exp(-a^2/2) = (1 + q) 2^k comes from ExpNegSquare. (1 + q) H
// is summed as H's constant + (the rest + q H), so its largest part meets
// one rounding, and 2^k is applied last. Below |x| = 13 (GeluByPieces) H is
// one polynomial with per-lane coefficients; GeluTailH's three pieces (in a
// below 2.83, in 1/a beyond) serve the vectors that reach |x| = 13, where
// results may be denormal and x is clamped at +-20 (the result is x or -0
// in float beyond).
template <class D>
HWY_INLINE void GeluTailH(D d, hn::Vec<D> a, hn::Vec<D>& c0, hn::Vec<D>& rest) {
  static constexpr float kNear[] = {
      0.265237987f, 0.11979717f, -0.0720087662f, 0.0351755768f, -0.0149452453f,
      0.0057151895f, -0.00200725044f, 0.00065689435f, -0.000207947f, 6.05028326e-05f};
  static constexpr float kMid[] = {
      0.340273052f, 0.0388294198f, -0.0178983379f, 0.00688587176f, -0.00235103047f,
      0.000734070374f, -0.000213284467f, 5.82001485e-05f, -1.51596751e-05f,
      4.05445326e-06f, -9.25049562e-07f};
  static constexpr float kFar[] = {
      0.384596527f, -0.129763186f, -0.207082301f, 0.426335454f, -0.18781063f,
      -0.780999064f, 2.10265422f, -1.82224119f, -3.9366374f, 16.2543354f, -19.7372303f};
  const auto near = [&] {
    return PolynomialRest(d, hn::Sub(a, hn::Set(d, 1.03f)), kNear, -1.37531737e-08f);
  };
  const auto mid = [&] {
    return PolynomialRest(d, hn::Sub(a, hn::Set(d, 2.1f)), kMid, -5.88959922e-11f);
  };
  const auto far = [&] {
    const auto t = Div(d, hn::Set(d, 1.0f), a);
    return PolynomialRest(d, hn::Sub(t, hn::Set(d, 0.2f)), kFar, 0.0f);
  };
  // Only the pieces some lane needs.
  const auto is_near = hn::Lt(a, hn::Set(d, 1.4f));
  const auto is_far = hn::Ge(a, hn::Set(d, 2.83f));
  if (hn::AllTrue(d, is_near)) {
    c0 = hn::Set(d, kNear[0]);
    rest = near();
  } else if (hn::AllTrue(d, is_far)) {
    c0 = hn::Set(d, kFar[0]);
    rest = far();
  } else {
    c0 = hn::IfThenElse(is_near, hn::Set(d, kNear[0]), hn::Set(d, kMid[0]));
    rest = hn::AllFalse(d, is_near) ? mid() : hn::IfThenElse(is_near, near(), mid());
    if (!hn::AllFalse(d, is_far)) {
      c0 = hn::IfThenElse(is_far, hn::Set(d, kFar[0]), c0);
      rest = hn::IfThenElse(is_far, far(), rest);
    }
  }
}

// x Phi(x) = x/2 + (x^2/2) F(x^2) for |x| < 0.665; F's error reaches the
// result scaled by |x| / (2 Phi(x)), and is fitted for that (degree 5), with
// its constant fixed to the float sqrt(2/pi): the other terms make up for
// that rounding (a free fit rounded afterwards keeps it, 2.8e-8 of F).
template <class D>
HWY_INLINE hn::Vec<D> GeluMiddle(D d, hn::Vec<D> x) {
  static constexpr float kF[] = {0.797884583f,    -0.132981688f,   0.019958036f,
                                 -0.00242844713f, 0.000347920897f, -0.000111532274f};
  const auto f = Polynomial(d, hn::Mul(x, x), kF);
  if constexpr (kFlushesDenormals) {  // as in ErfSmall: exact scalings by 2^24
    const auto half_x = hn::Mul(x, hn::Set(d, 8388608.0f));
    return hn::Mul(hn::MulAdd(hn::Mul(half_x, x), f, half_x), hn::Set(d, 5.96046448e-08f));
  }
  const auto half_x = hn::Mul(x, hn::Set(d, 0.5f));
  return hn::MulAdd(hn::Mul(half_x, x), f, half_x);
}

// x Phi(x) for |x| in [0.665, 20] where the result may be a denormal:
// -exp(-a^2/2) H(a) for negative x, x - exp(-a^2/2) H(a) for positive.
template <class D>
HWY_INLINE hn::Vec<D> GeluTail(D d, hn::Vec<D> x, hn::Vec<D> a) {
  hn::Vec<D> q;
  ExpScale<D> k;
  ExpNegSquare(d, a, 0.5f, q, k);
  hn::Vec<D> c0, rest;
  GeluTailH(d, a, c0, rest);
  const auto h = hn::Add(c0, rest);
  const auto mantissa = hn::Add(c0, hn::MulAdd(q, h, rest));  // (1 + q) H
  const auto tail = ScaleByPow2(d, mantissa, k);
  return hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Neg(tail), hn::Sub(x, tail));
}

// The piece of a >= 0 for GeluByPieces: 0 below 0.75, then
// a new piece wherever a's exponent or first mantissa bit changes: 1 from
// 0.75 (bits 0x3F400000, so (bits >> 22) - 252 = 1), 2 from 1, 3 from 1.5,
// 4 from 2, 5 from 3, 6 from 4, 7 from 6, and so on.
template <class D>
HWY_INLINE hn::Vec<hn::RebindToSigned<D>> PieceFromBits(D /*d*/, hn::Vec<D> a) {
  const hn::RebindToSigned<D> di;
  const auto bits_index = hn::Sub(hn::ShiftRight<22>(hn::BitCast(di, a)), hn::Set(di, 252));
  return hn::Max(bits_index, hn::Zero(di));
}

// x Phi(x) for |x| < 13 (not NaN), every lane's piece evaluated at once (so
// the cost does not depend on how a vector's lanes mix): x Phi(x) =
// max(x, 0) - T(a), T(a) = (a/2) erfc(a/sqrt2), and T is one expression whose
// coefficients are looked up per lane (as ErfByPieces):
//  - piece 0 (a < 0.75): T = a/2 + a^2 Q(a^2), Q = -F/2 with F as in
//    GeluMiddle (fitted to 0.75 with its constant fixed to the float
//    sqrt(2/pi), so that constant's rounding is made up by the others);
//  - pieces 1-6 (a in [0.75, 6), split where a's exponent or first mantissa
//    bit changes): T = exp(-a^2/2) H(a) with H(c + t) = H(c) + t Q(t), c a
//    float whose H is within 0.002 ULP of a float, Q fitted for H's relative
//    error (the left tail's) damped by |t|;
//  - piece 7 (a in [6, 13)): the same with H as a function of w = 1/a,
//    H(1/(c + t)) = H(1/c) + t Q(t), t = w - c: H approaches 1/sqrt(2 pi) as
//    1 - w^2, which no polynomial in a this wide follows.
// exp(-a^2/2) = (1 + q) 2^k (two-part argument) and (1 + q) H sums as
// H(c) + (t Q + q H), so H(c), the largest part, meets one rounding; in piece
// 0 the same last steps give a/2 + a^2 Q as one fused step (H(c) and q are 0
// there, and k is 0 for every a^2/2 < ln2/2). Below a = 13, T and the result
// are normal floats.
template <class D>
HWY_INLINE hn::Vec<D> GeluByPieces(D d, hn::Vec<D> x, hn::Vec<D> a) {
  static constexpr float kCoefficients[8][7] = {
      {-0.398942292f, 0.0664908811f, -0.0099802101f, 0.0012257495f, -0.000224661839f,
       0.000159748713f, -8.06661992e-05f},
      {0.144886792f, -0.0907447264f, 0.0459747426f, -0.0201906376f, 0.00796003081f,
       -0.00288641034f, 0.000972101523f},
      {0.0926486328f, -0.0525906645f, 0.0244120769f, -0.00990112778f, 0.00362728466f,
       -0.0012384383f, 0.000392121583f},
      {0.0543500111f, -0.027223669f, 0.0112937633f, -0.00413314672f, 0.00137662527f,
       -0.000429176493f, 0.000124740152f},
      {0.0272956081f, -0.0114929583f, 0.00407023169f, -0.00128660444f, 0.000373793708f,
       -0.000104684368f, 2.7057984e-05f},
      {0.0127753923f, -0.00437750155f, 0.00128063071f, -0.000338555896f, 8.30994177e-05f,
       -1.96703077e-05f, 4.35341008e-06f},
      {0.00518967677f, -0.00136916025f, 0.000312795775f, -6.5286913e-05f, 1.27915519e-05f,
       -2.53922099e-06f, 4.60574228e-07f},
      {-0.0884967968f, -0.310775876f, 0.413941473f, 0.336751819f, -1.81787539f, 1.46355748f,
       5.70340109f}};
  static constexpr float kCenter[8] = {0.0f,        0.875047565f, 1.24996996f, 1.75008512f,
                                       2.50003672f, 3.49998999f,  5.00031042f, 0.120375171f};
  static constexpr float kValueAtCenter[8] = {0.0f,        0.244806141f, 0.288447618f,
                                              0.324160039f, 0.353329331f, 0.37220791f,
                                              0.384598136f, 0.393396258f};
  static constexpr auto kTables = detail::MakePieceTables(kCoefficients, kCenter, kValueAtCenter);
  const hn::RebindToSigned<D> di;
  const auto piece = hn::Min(PieceFromBits(d, a), hn::Set(di, 7));
  const auto is_small = hn::Lt(a, hn::Set(d, 0.75f));
  const auto is_far = hn::Ge(a, hn::Set(d, 6.0f));
  hn::Vec<D> neg_half_square, neg_half_square_lo;  // -a^2/2 in two parts
  NegScaledSquare(d, a, 0.5f, neg_half_square, neg_half_square_lo);
  hn::Vec<D> q;
  ExpScale<D> k;
  ExpSplitUnclamped</*kHasLow=*/true, /*kPrecise=*/true>(d, neg_half_square,
                                                         neg_half_square_lo, q, k);
  // a^2 rounded, and the rest of it: with fused multiply-add -2 hi is the
  // rounded square and -2 lo its exact error; without, hi is the square of
  // a's top bits, which t must not be (Q would be evaluated off its point).
  const auto minus_two = hn::Set(d, -2.0f);
  const auto square = hn::Mul(a, a);
  auto square_lo = hn::Mul(neg_half_square_lo, minus_two);
  if constexpr (!HWY_NATIVE_FMA) {
    square_lo = hn::Add(hn::MulAdd(neg_half_square, minus_two, hn::Neg(square)), square_lo);
  }
  const auto variable = hn::IfThenElse(is_far, ReciprocalNewton(d, a), a);
  const auto t = hn::IfThenElse(is_small, square,
                                hn::Sub(variable, LookupLanes(d, kTables.centers, piece)));
  const auto poly = PolynomialPerLane(d, t, kTables.coefficients, piece);
  const auto value = LookupLanes(d, kTables.values, piece);
  // rest = t Q(t) (+ a/2 in piece 0, as one fused step), H = value + rest,
  // (1 + q) H = value + (rest + q H), where q is 0 in piece 0 (no exp).
  const auto half_a = hn::Mul(a, hn::Set(d, 0.5f));
  const auto rest = hn::MulAdd(t, poly, hn::IfThenElseZero(is_small, half_a));
  const auto h = hn::Add(value, rest);
  auto mantissa = hn::Add(value, hn::MulAdd(hn::IfThenZeroElse(is_small, q), h, rest));
  // Piece 0: a/2 - a^2 F/2 cancels up to 2.2x at a = 0.75, which would
  // magnify the rounding of a^2 in t to 1.3 ULP: its rest is added.
  mantissa = hn::MulAdd(hn::IfThenElseZero(is_small, square_lo), poly, mantissa);
  // T > 0: never -0 from the subtraction but for x = -0, whose T is +0.
  return hn::Sub(hn::Max(x, hn::Zero(d)), ScaleByPow2Normal(d, mantissa, k));
}

// x Phi(x): GeluByPieces for every vector with each |x| < 13, which is every
// vector of an activation map; GeluMiddle alone for vectors entirely in
// |x| < 0.665. Vectors with a lane beyond (results near or below the
// denormal range, x itself, NaN) take GeluTail with x clamped at +-20,
// where the result is x or -0 in float.
template <class D>
HWY_INLINE hn::Vec<D> Gelu(D d, hn::Vec<D> x) {
  const auto a = hn::Abs(x);
  const auto is_middle = hn::Lt(a, hn::Set(d, 0.665f));  // false for NaN
  if (hn::AllTrue(d, is_middle)) return GeluMiddle(d, x);
  if (HWY_LIKELY(hn::AllTrue(d, hn::Lt(a, hn::Set(d, 13.0f))))) {  // false for NaN
    return SmallLanesScaled(d, x, GeluByPieces(d, x, a), [&] { return GeluMiddle(d, x); });
  }
  const auto limit = hn::Set(d, 20.0f);
  const auto clamped = hn::Min(hn::Max(x, hn::Neg(limit)), limit);
  auto result = GeluTail(d, clamped, hn::Abs(clamped));
  result = hn::IfThenElse(is_middle, GeluMiddle(d, x), result);
  result = hn::IfThenElse(hn::Ge(x, limit), x, result);
  return hn::IfThenElse(hn::IsNaN(x), x, result);
}

// GELU, tanh form: x/2 (1 + tanh(y)) = x sigmoid(2y), y = sqrt(2/pi)(x +
// 0.044715 x^3). 2y reaches -80 where the result is still a normal float, so
// float rounding of 2y alone would cost ~100 ULP: where double lanes exist, 2y
// is computed in double and handed to the exp as two floats. The lanes of d
// are the lanes of a full double vector there (as for sin/cos); armv7 takes
// each lane through its VFP unit's double instead.
// Below -20 the result is -0; x is clamped there.
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
  return TimesSigmoid</*kHasLow=*/true, /*kPrecise=*/true>(d, x, hi, lo, x_in);
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
  return TimesSigmoid</*kHasLow=*/true, /*kPrecise=*/true>(d, x, hn::Load(d, hi), hn::Load(d, lo),
                                                          x_in);
#else
  const auto two_y = hn::Mul(x, hn::MulAdd(hn::Mul(x, x), hn::Set(d, 0.0713548162f),
                                           hn::Set(d, 1.59576912f)));
  return TimesSigmoid</*kHasLow=*/false, /*kPrecise=*/true>(d, x, two_y, two_y, x_in);
#endif
}

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
  return ByVfpLanes(d, x, x, [](float v, float) {
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
// (three after the estimate for Newton): a form with one more step in the
// chain and as many operations made LRN NHWC 11% slower with AVX-512.
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

#endif  // TENSOROPS_DETAIL_MATH_INL_H_
