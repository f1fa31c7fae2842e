// exp, expm1, log, log1p and log(1 + exp(-|x|)), and the pieces of exp the
// other families build on (a result split as (1 + q) 2^k, an argument in two
// parts, exp(-z^2) without the rounding of z^2).
//
//   function        domain        max error, all floats (AVX3_DL / no FMA)   special values
//   Exp             every float   0.87 / 0.96 ULP                            -Inf -> 0, +Inf and
//                                 (denormal results rounded once)            overflow -> +Inf
//   Expm1           every float   ELU's 0.94 / 0.88 ULP                      -Inf -> -1
//   Log             every float   0.84 / 0.79 ULP (denormal inputs exact)    0 -> -Inf, < 0 -> NaN
//   Log1p           y > -1        softplus's and log-softmax's               as Log(1 + y)
//   Log1pExpNegAbs  every float   softplus 1.74 / 1.72 ULP                   +-Inf -> 0
//   ExpFast         every float   2.02 / 2.24 ULP (fast tier)                as Exp
// NaN passes through every function.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_DETAIL_MATH_EXP_LOG_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_DETAIL_MATH_EXP_LOG_INL_H_
#undef TENSOROPS_DETAIL_MATH_EXP_LOG_INL_H_
#else
#define TENSOROPS_DETAIL_MATH_EXP_LOG_INL_H_
#endif

#include <stdint.h>

#include <array>
#include <bit>

#include <hwy/highway.h>

#include "tensorops/detail/ieee-inl.h"
#include "tensorops/detail/lane_table-inl.h"
#include "tensorops/detail/math/common-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace math {
namespace hn = hwy::HWY_NAMESPACE;

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
// adds the 1: one step fewer than 1 + (r + r^2 P(r)), and more accurate.
// Without it, that last step would be rounded twice, so those targets keep
// the split form.
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
// 3e-8 of exp's relative error (for callers whose own roundings dominate,
// softmax's sums) and a quartic within 5e-10 (kPrecise: exp itself, sigmoid,
// SiLU; sigmoid needs the quartic to stay within 2 ULP).
// Either is far shorter than the degree 6 and 7 that |r| <= ln2/2 needs,
// and the lookups run beside the reduction, off the chain of dependent
// steps. The factor 2^s folds into the constants exactly. Garbage inputs give
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
// than the polynomial terms they save, and those targets keep
// ExpByPolynomial. Inputs outside the range
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
// k ~ 2a / ln2: at most 3e-9, 0.03 ULP. A shorter chain matters there: an
// exp followed by a division is bound by how many vectors the out-of-order
// window holds. Without fused multiply-add the one-step reduction would round k ln2
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

// The fast tier (Accuracy::kFast). exp(r) on |r| <= ln2/2 by one degree-5
// polynomial (tools/fit_math.py) with exp(0) = 1 exact, no table: 0.8 ULP of
// approximation error, for fewer steps than the accurate tier's forms.
inline constexpr float kExpFastDegree5[] = {1.0f,         0.999999702f,  0.499991506f,
                                            0.166676357f, 0.0418979302f, 0.00829031039f};

// exp(kSign x) for kSign x in (-87.3, 87.3), where the result is a normal
// float: k = round(kSign x / ln2) and 2^k straight into the exponent bits.
// The sign folds into the constants (exp(-x) costs what exp(x) does):
// t = x - kSign k ln2 = kSign r, and the polynomial's odd terms change sign.
// kOneStep: see ReduceByLn2Multiple (a relative error of |k| 1.9e-9, about
// 2 ULP at |x| = 87). Inputs outside the range give garbage, which callers
// replace.
template <int kSign, bool kOneStep = true, class D>
HWY_INLINE hn::Vec<D> ExpFastNormal(D d, hn::Vec<D> x) {
  static_assert(kSign == 1 || kSign == -1);
  static constexpr auto kCoefficients = [] {
    std::array<float, 6> c{};
    for (size_t i = 0; i < c.size(); ++i) {
      c[i] = (kSign < 0 && i % 2 == 1) ? -kExpFastDegree5[i] : kExpFastDegree5[i];
    }
    return c;
  }();
  const hn::RebindToSigned<D> di;
  const auto shifter = hn::Set(d, 12582912.0f);  // see RoundToLn2Multiple
  const auto biased = hn::MulAdd(x, hn::Set(d, static_cast<float>(kSign) * 1.44269504f), shifter);
  // kSign k, exactly, in as many steps as k itself.
  const auto signed_k = kSign > 0 ? hn::Sub(biased, shifter) : hn::Sub(shifter, biased);
  const auto t = ReduceByLn2Multiple</*kScaleLog2=*/0, kOneStep>(d, x, signed_k);
  return ScaleByPow2Normal(d, Polynomial(d, t, kCoefficients), hn::BitCast(di, biased));
}

// exp(x), fast tier: ExpFastNormal wherever every lane's result is a normal
// float (on activations, every vector); other vectors (|x| >= 87.3, NaN)
// take Exp's form with its special values and denormal results.
template <class D>
HWY_INLINE hn::Vec<D> ExpFast(D d, hn::Vec<D> x) {
  if (HWY_LIKELY(hn::AllTrue(d, hn::Lt(hn::Abs(x), hn::Set(d, 87.3f))))) {
    return ExpFastNormal<1, /*kOneStep=*/false>(d, x);
  }
  return Exp</*kPrecise=*/false>(d, x);
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

}  // namespace math
}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_DETAIL_MATH_EXP_LOG_INL_H_
