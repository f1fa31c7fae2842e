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

#include <hwy/base.h>
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR
// Transposes the N x N tile held in v[0..N) (v[r] = row r) in place, N =
// Lanes(d) a power of two. Each round pairs rows (2i, 2i+1) and sends their
// even lanes to row i and odd lanes to row i + N/2: on the bits of (row,
// lane) this is a rotation by one, so log2(N) rounds swap row and lane.
template <class D>
HWY_INLINE void TransposeTileInRegisters(D d, hn::Vec<D>* v) {
  constexpr size_t kN = hn::MaxLanes(D());
  hn::Vec<D> next[kN];
  for (size_t round = 1; round < kN; round *= 2) {
    for (size_t i = 0; i < kN / 2; ++i) {
      next[i] = hn::ConcatEven(d, v[2 * i + 1], v[2 * i]);
      next[i + kN / 2] = hn::ConcatOdd(d, v[2 * i + 1], v[2 * i]);
    }
    for (size_t i = 0; i < kN; ++i) v[i] = next[i];
  }
}

// One kN x kN tile, kN = Lanes(d): dst[b][a] = src[a][b]. HWY_INLINE forces
// it into the loops: written as a lambda, GCC left it out of line in GEMM's
// packing (6% of a 256^3 call instead of 3.5%).
template <class Unit, class D>
HWY_INLINE void TransposeTile(D d, const uint8_t* src, size_t src_row, uint8_t* dst,
                              size_t dst_row) {
  constexpr size_t kN = hn::MaxLanes(D());
  hn::Vec<D> v[kN];
  for (size_t r = 0; r < kN; ++r) {
    v[r] = hn::LoadU(d, reinterpret_cast<const Unit*>(src + r * src_row));
  }
  TransposeTileInRegisters(d, v);
  for (size_t r = 0; r < kN; ++r) {
    hn::StoreU(v[r], d, reinterpret_cast<Unit*>(dst + r * dst_row));
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

// The tile: at most kMaxTile lanes (16 by default: 16 row vectors stay in
// registers on AVX-512), a whole number of lanes (capped tags have
// compile-time lane counts).
template <class Unit, size_t kMaxTile>
using TileTag = hn::CappedTag<Unit, HWY_MIN(kMaxTile, hn::MaxLanes(hn::ScalableTag<Unit>()))>;

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
  const TileTag<Unit, kMaxTile> d;
  constexpr size_t kN = hn::MaxLanes(TileTag<Unit, kMaxTile>());
  static_assert(kN >= 2 && (kN & (kN - 1)) == 0, "tile lanes: a power of two");
  const size_t full_rows = rows / kN * kN, full_cols = cols / kN * kN;
  // Bands of kN source rows, each walked along its columns: kN sequential
  // read streams, which the hardware prefetcher follows. Walking down the
  // columns instead keeps `rows` streams open (64 for an NCHW -> NHWC of 64
  // channels), too many to prefetch: measured 1.6x slower there.
  for (size_t a = 0; a < full_rows; a += kN) {
    for (size_t b = 0; b < full_cols; b += kN) {
      TransposeTile<Unit>(d, src + a * src_row + b * kB, src_row, dst + b * dst_row + a * kB,
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
