// Matrix transposes by square tiles of vectors transposed in registers,
// shared by the permute engine (NCHW <-> NHWC, rank-N transposes) and GEMM's
// packing of A.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_DETAIL_TILE_TRANSPOSE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_DETAIL_TILE_TRANSPOSE_INL_H_
#undef TENSOROPS_DETAIL_TILE_TRANSPOSE_INL_H_
#else
#define TENSOROPS_DETAIL_TILE_TRANSPOSE_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <utility>

#include <hwy/base.h>
#include <hwy/highway.h>

#include "tensorops/detail/registers-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// A tile of kN x kN elements is kN row vectors, passed from call to call as a
// parameter pack (SVE vectors cannot be array elements). log2(kN) rounds of
// TransposeRoundRow turn rows into columns: each round rotates the bits of
// (row, lane) by one, so log2(kN) rounds swap row and lane.
//
// Two forms of the round. Rows (2i, 2i+1) send their even lanes to row i and
// their odd lanes to row i + kN/2 (ConcatEven/ConcatOdd) on x86 and NEON,
// where a tile of any width up to the vector's works. On SVE, Highway 1.0.3's
// ConcatEven/ConcatOdd act on the whole hardware vector whatever the tag's
// cap, which is wrong for a tile narrower than the vector (a 16-byte tile of
// a 32-byte SVE_256 vector, or any tile at SVE widths above 128 bits). So on
// every SVE target the tile is 128 bits, and rows (i, i + kN/2) are zipped
// into rows 2i and 2i + 1 (InterleaveLower/Upper, exact within one 128-bit
// block, cap or not): the inverse rotation, as many rounds.
#if HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE_256 || \
    HWY_TARGET == HWY_SVE2_128
inline constexpr bool kTileRoundsZip = true;
#else
inline constexpr bool kTileRoundsZip = false;
#endif

#if HWY_TARGET != HWY_SCALAR
// Row kR of the tile after one round.
template <size_t kR, class D, class... V>
HWY_INLINE hn::Vec<D> TransposeRoundRow(D d, V&... v) {
  constexpr size_t kHalf = sizeof...(V) / 2;
  if constexpr (kTileRoundsZip) {
    static_assert(sizeof...(V) * sizeof(hn::TFromD<D>) <= 16, "zip rounds: one block");
    if constexpr (kR % 2 == 0) {
      return hn::InterleaveLower(d, Nth<kR / 2>(v...), Nth<kR / 2 + kHalf>(v...));
    } else {
      return hn::InterleaveUpper(d, Nth<kR / 2>(v...), Nth<kR / 2 + kHalf>(v...));
    }
  } else {
    constexpr size_t kPair = kR % kHalf;
    if constexpr (kR < kHalf) {
      return hn::ConcatEven(d, Nth<2 * kPair + 1>(v...), Nth<2 * kPair>(v...));
    } else {
      return hn::ConcatOdd(d, Nth<2 * kPair + 1>(v...), Nth<2 * kPair>(v...));
    }
  }
}

// Runs kRounds rounds over the rows v, then stores row r at dst + r * dst_row.
template <size_t kRounds, class Unit, class D, size_t... kR, class... V>
HWY_INLINE void TransposeRoundsAndStore(D d, std::index_sequence<kR...> rows, uint8_t* dst,
                                        size_t dst_row, V... v) {
  if constexpr (kRounds == 0) {
    (hn::StoreU(v, d, reinterpret_cast<Unit*>(dst + kR * dst_row)), ...);
  } else {
    TransposeRoundsAndStore<kRounds - 1, Unit>(d, rows, dst, dst_row,
                                               TransposeRoundRow<kR>(d, v...)...);
  }
}

constexpr size_t Log2(size_t n) { return n <= 1 ? 0 : 1 + Log2(n / 2); }

// One kN x kN tile, kN = Lanes(d): dst[b][a] = src[a][b]. The rows are
// loaded one per call, first to last: as a pack of arguments GCC loaded them
// last to first, which the prefetcher follows worse. HWY_INLINE forces it
// into the loops: written as a lambda, GCC left it out of line in GEMM's
// packing.
template <class Unit, size_t kN, class D, class... V>
HWY_INLINE void TransposeTile(D d, const uint8_t* src, size_t src_row, uint8_t* dst,
                              size_t dst_row, V... loaded) {
  if constexpr (sizeof...(V) == kN) {
    TransposeRoundsAndStore<Log2(kN), Unit>(d, std::make_index_sequence<kN>{}, dst, dst_row,
                                            loaded...);
  } else {
    TransposeTile<Unit, kN>(
        d, src, src_row, dst, dst_row, loaded...,
        hn::LoadU(d, reinterpret_cast<const Unit*>(src + sizeof...(V) * src_row)));
  }
}
#endif  // HWY_TARGET != HWY_SCALAR

template <class Unit>
HWY_INLINE Unit LoadUnit(const uint8_t* p) {
  Unit u;
  hwy::CopyBytes<sizeof(Unit)>(p, &u);
  return u;
}
template <class Unit>
HWY_INLINE void StoreUnit(Unit u, uint8_t* p) {
  hwy::CopyBytes<sizeof(Unit)>(&u, p);
}

// dst[b][a] = src[a][b] for a < rows, b < cols, one element at a time. Strides
// in bytes; used for tile edges and the scalar target.
template <class Unit>
HWY_INLINE void TransposeScalar(const uint8_t* src, size_t src_row, uint8_t* dst,
                                size_t dst_row, size_t rows, size_t cols) {
  for (size_t b = 0; b < cols; ++b) {
    for (size_t a = 0; a < rows; ++a) {
      StoreUnit(LoadUnit<Unit>(src + a * src_row + b * sizeof(Unit)),
                dst + b * dst_row + a * sizeof(Unit));
    }
  }
}

// The tile's side: at most kMaxTile lanes (16 by default: 16 row vectors stay
// in registers on AVX-512), and no more than every vector of the target holds,
// so that a tag capped at it has exactly kTile lanes: 128 bits on SVE (where
// the rounds zip, and the width is not known at compile time), MaxLanes
// elsewhere (exact on every fixed-width target).
template <class Unit, size_t kMaxTile>
inline constexpr size_t kTile =
    HWY_MIN(kMaxTile, kTileRoundsZip ? 16 / sizeof(Unit) : hn::MaxLanes(hn::ScalableTag<Unit>()));

// dst[b][a] = src[a][b]: a src matrix of `rows` rows (src_row bytes apart) and
// `cols` contiguous elements to dst with `cols` rows (dst_row bytes apart) of
// `rows` contiguous elements. Callers whose rows come in a fixed small count
// (GEMM's panels of 8) cap the tile at it.
template <class Unit, size_t kMaxTile = 16>
HWY_NOINLINE void TransposeMatrix(const uint8_t* src, size_t src_row, uint8_t* dst,
                                  size_t dst_row, size_t rows, size_t cols) {
#if HWY_TARGET == HWY_SCALAR
  TransposeScalar<Unit>(src, src_row, dst, dst_row, rows, cols);
#else
  constexpr size_t kB = sizeof(Unit);
  constexpr size_t kN = kTile<Unit, kMaxTile>;
  static_assert(kN >= 2 && (kN & (kN - 1)) == 0, "tile lanes: a power of two");
  const hn::CappedTag<Unit, kN> d;
  const size_t full_rows = rows / kN * kN, full_cols = cols / kN * kN;
  // Bands of kN source rows, each walked along its columns: kN sequential
  // read streams, which the hardware prefetcher follows. Walking down the
  // columns instead keeps `rows` streams open (64 for an NCHW -> NHWC of 64
  // channels), too many to prefetch.
  for (size_t a = 0; a < full_rows; a += kN) {
    for (size_t b = 0; b < full_cols; b += kN) {
      TransposeTile<Unit, kN>(d, src + a * src_row + b * kB, src_row, dst + b * dst_row + a * kB,
                              dst_row);
    }
  }
  // Rows past the last whole band, for the columns of whole tiles.
  TransposeScalar<Unit>(src + full_rows * src_row, src_row, dst + full_rows * kB, dst_row,
                        rows - full_rows, full_cols);
  // Columns past the last whole tile, for every row.
  TransposeScalar<Unit>(src + full_cols * kB, src_row, dst + full_cols * dst_row,
                        dst_row, rows, cols - full_cols);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_DETAIL_TILE_TRANSPOSE_INL_H_
