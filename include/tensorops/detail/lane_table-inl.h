// Per-lane lookup in a small constant table: lane i gets table[index[i]].
//
// For piecewise approximations whose piece differs from lane to lane: each
// coefficient is looked up once per vector, so a vector whose lanes fall in
// different pieces costs one evaluation, not one per piece (see math/erf_gelu-inl.h,
// Erf).
//
// A table holds up to 8 floats (kLaneTableEntries), stored padded to 16 so
// that a full AVX-512 vector may load it. How it is read depends only on what
// the target's vectors can hold, never on the architecture:
//  - fixed-size vectors of 8 or more lanes (AVX2, AVX-512): one load and one
//    permute across the vector;
//  - vectors that may have only 4 lanes (NEON, every SVE target: their
//    vectors are sizeless and may be 128 bits; SSE4, EMU128): each half of
//    the table is broadcast to every 128-bit block and permuted, and the
//    index's bit 2 selects between them;
//  - one lane (SCALAR): the entry is read directly.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_DETAIL_LANE_TABLE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_DETAIL_LANE_TABLE_INL_H_
#undef TENSOROPS_DETAIL_LANE_TABLE_INL_H_
#else
#define TENSOROPS_DETAIL_LANE_TABLE_INL_H_
#endif

#include <stddef.h>

#include <array>

#include <hwy/highway.h>

#ifndef TENSOROPS_DETAIL_LANE_TABLE_SHARED_
#define TENSOROPS_DETAIL_LANE_TABLE_SHARED_
namespace tensorops::detail {

inline constexpr size_t kLaneTableEntries = 8;

// One table: entries [0, 8) hold values, [8, 16) zeros that only a 16-lane
// load reads. Aligned for that load.
struct alignas(64) LaneTable {
  float entry[16];
};

// The tables of a piecewise polynomial, one per coefficient, from its
// coefficients written piece by piece (row p: piece p's c0, c1, ...), which
// is how tools/fit_math.py prints them. kPieces <= 8.
template <size_t kCoefficients, size_t kPieces>
constexpr std::array<LaneTable, kCoefficients> CoefficientTables(
    const float (&by_piece)[kPieces][kCoefficients]) {
  static_assert(kPieces <= kLaneTableEntries);
  std::array<LaneTable, kCoefficients> tables{};
  for (size_t c = 0; c < kCoefficients; ++c) {
    for (size_t p = 0; p < kPieces; ++p) tables[c].entry[p] = by_piece[p][c];
  }
  return tables;
}

// A table from one value per piece.
template <size_t kPieces>
constexpr LaneTable ValueTable(const float (&by_piece)[kPieces]) {
  static_assert(kPieces <= kLaneTableEntries);
  LaneTable table{};
  for (size_t p = 0; p < kPieces; ++p) table.entry[p] = by_piece[p];
  return table;
}

// The tables of a function by pieces f(c_p + t) = f(c_p) + t Q_p(t) (see
// math::ErfByPieces): Q's coefficients, the centers c_p and the values f(c_p).
template <size_t kCoefficients>
struct PieceTables {
  std::array<LaneTable, kCoefficients> coefficients;
  LaneTable centers;
  LaneTable values;
};

template <size_t kCoefficients, size_t kPieces>
constexpr PieceTables<kCoefficients> MakePieceTables(
    const float (&coefficients)[kPieces][kCoefficients], const float (&centers)[kPieces],
    const float (&values)[kPieces]) {
  return {CoefficientTables(coefficients), ValueTable(centers), ValueTable(values)};
}

}  // namespace tensorops::detail
#endif  // TENSOROPS_DETAIL_LANE_TABLE_SHARED_

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether LookupLanes is a single permute for vectors of D: callers choose
// between a table and more arithmetic by it.
template <class D>
inline constexpr bool kLookupIsOnePermute =
    !HWY_HAVE_SCALABLE && hn::MaxLanes(D()) >= detail::kLaneTableEntries;

// Lane i of the result is table.entry[index[i]], for indices in [0, 8).
// Callers look up several tables with one index; the index conversion and the
// half select below are the same expressions each time, and the compiler
// computes them once.
template <class D>
HWY_INLINE hn::Vec<D> LookupLanes(D d, const detail::LaneTable& table,
                                  hn::Vec<hn::RebindToSigned<D>> index) {
  if constexpr (hn::MaxLanes(d) == 1) {
    return hn::Set(d, table.entry[hn::GetLane(index)]);
  } else if constexpr (kLookupIsOnePermute<D>) {
    return hn::TableLookupLanes(hn::Load(d, table.entry), hn::IndicesFromVec(d, index));
  } else {
    static_assert(HWY_HAVE_SCALABLE || hn::MaxLanes(d) >= 4, "partial vectors need 4 lanes");
    const hn::RebindToSigned<D> di;
    const auto within_half = hn::IndicesFromVec(d, hn::And(index, hn::Set(di, 3)));
    const auto low = hn::TableLookupLanes(hn::LoadDup128(d, table.entry), within_half);
    const auto high = hn::TableLookupLanes(hn::LoadDup128(d, table.entry + 4), within_half);
    const auto in_high = hn::RebindMask(d, hn::Gt(index, hn::Set(di, 3)));
    return hn::IfThenElse(in_high, high, low);
  }
}

// c[f] + t (c[f+1] + t (c[f+2] + ...)) with every coefficient looked up per
// lane (Horner's scheme, unrolled like math::Polynomial).
template <size_t kFirst = 0, class D, size_t kN>
HWY_INLINE hn::Vec<D> PolynomialPerLane(D d, hn::Vec<D> t,
                                        const std::array<detail::LaneTable, kN>& c,
                                        hn::Vec<hn::RebindToSigned<D>> index) {
  static_assert(kN > kFirst);
  const auto coefficient = LookupLanes(d, c[kFirst], index);
  if constexpr (kFirst + 1 == kN) {
    return coefficient;
  } else {
    return hn::MulAdd(PolynomialPerLane<kFirst + 1>(d, t, c, index), t, coefficient);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_DETAIL_LANE_TABLE_INL_H_
