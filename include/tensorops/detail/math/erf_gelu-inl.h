// erf and GELU's erf form x Phi(x), by pieces whose coefficients are looked
// up per lane (lane_table-inl.h), so that a vector costs one evaluation
// however its lanes mix.
//
//   function   max error, all floats (AVX3_DL / no FMA)   special values
//   Erf        0.88 / 0.94 ULP                            +-0 kept, +-Inf -> +-1
//   Gelu       1.67 / 1.60 ULP (the left tail to its      -Inf -> -0, +Inf -> +Inf
//              denormal results, relative)
// The fast tier (Accuracy::kFast), AVX3_DL over every float / no FMA / armv7
// under qemu, the last two sampled (docs/accuracy.md says how densely):
//   ErfFast    9.79 / 10.7 / 11.1 ULP                     as Erf
//   GeluFast   4.83 / 5.28 / 6.47 ULP from x = -1;        as Gelu
//              below, 8.95e-7 / 1.08e-6 / 1.08e-6 absolute
// NaN passes through. Where denormals flush (armv7 NEON), results are those
// of the flushed input.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_DETAIL_MATH_ERF_GELU_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_DETAIL_MATH_ERF_GELU_INL_H_
#undef TENSOROPS_DETAIL_MATH_ERF_GELU_INL_H_
#else
#define TENSOROPS_DETAIL_MATH_ERF_GELU_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <hwy/highway.h>

#include "tensorops/detail/ieee-inl.h"
#include "tensorops/detail/lane_table-inl.h"
#include "tensorops/detail/math/common-inl.h"
#include "tensorops/detail/math/exp_log-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace math {
namespace hn = hwy::HWY_NAMESPACE;

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
  hn::Vec<D> r;
  if constexpr (kFlushesDenormals) {  // as in ErfSmall: exact scalings by 2^24
    const auto half_x = hn::Mul(x, hn::Set(d, 8388608.0f));
    r = hn::Mul(hn::MulAdd(hn::Mul(half_x, x), f, half_x), hn::Set(d, 5.96046448e-08f));
  } else {
    const auto half_x = hn::Mul(x, hn::Set(d, 0.5f));
    r = hn::MulAdd(hn::Mul(half_x, x), f, half_x);
  }
  // The sign is x's: the fused step alone would make -0 into +0.
  return hn::CopySign(r, x);
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
  const auto is_far = hn::RebindMask(d, hn::Eq(piece, hn::Set(di, 7)));  // a >= 6
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

// The fast tier (Accuracy::kFast).

// erf(x) = x P(x^2) / Q(x^2), degrees 4 and 5, on |x| <= 3.90739274 (erf is
// 1 within 0.55 ULP beyond): 2.7 ULP of approximation error, one division.
inline constexpr float kErfFastP[] = {1.12837887f, 0.317545265f, 0.0679800063f, 0.00871227868f,
                                      0.000310083735f};
inline constexpr float kErfFastQ[] = {1.0f,          0.614741564f,   0.165204152f,
                                      0.0250378959f, 0.00219547888f, 1.80346306e-05f};
inline constexpr float kErfFastClamp = 3.90739274f;

template <class D>
HWY_INLINE hn::Vec<D> ErfFast(D d, hn::Vec<D> x) {
  return SaturatingOddRational(d, x, kErfFastClamp, kErfFastP, kErfFastQ);
}

// GELU = g (1/2 + erf(x / sqrt2) / 2) with g = x (clamped at -8, below).
// erf(x / sqrt2) / 2 is one rational in x itself, x P(x^2) / Q(x^2) of
// degrees 5 and 5 (0.2 ULP of approximation error; P is the fit of
// erf(x / sqrt2) halved, exactly): neither x / sqrt2 nor x / 2 costs a
// multiply. 1/2 + erf/2 cancels in the left tail, where the error is
// absolute (unary.h states it), and near x = -1 it doubles the rational's
// relative error, which a degree fewer would put above Eigen's. The
// rational is exactly -1/2 from x = -5.53 on, and g is x clamped at -8, so
// that the +0 sum gives -0 for every x down to -Inf.
inline constexpr float kGeluHalfErfP[] = {0.398942262f,   0.0337240025f,   0.00466588093f,
                                          0.00016701041f, 6.29285387e-06f, 2.25599344e-08f};
inline constexpr float kGeluHalfErfQ[] = {1.0f,           0.251199901f,    0.028563071f,
                                          0.00187453243f, 7.28152299e-05f, 1.1875585e-06f};
inline constexpr float kGeluHalfErfClamp = 5.52588892f;

template <class D>
HWY_INLINE hn::Vec<D> GeluFast(D d, hn::Vec<D> x) {
  const auto g = hn::Max(hn::Set(d, -8.0f), x);
  const auto half_erf =
      SaturatingOddRational(d, x, kGeluHalfErfClamp, kGeluHalfErfP, kGeluHalfErfQ, 0.5f);
  return hn::Mul(g, hn::Add(hn::Set(d, 0.5f), half_erf));
}

}  // namespace math
}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_DETAIL_MATH_ERF_GELU_INL_H_
