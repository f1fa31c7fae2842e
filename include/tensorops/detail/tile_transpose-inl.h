// The in-register transpose of a square tile of vectors, shared by the
// permute engine (NCHW <-> NHWC, rank-N transposes) and GEMM's packing of A.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_DETAIL_TILE_TRANSPOSE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_DETAIL_TILE_TRANSPOSE_INL_H_
#undef TENSOROPS_DETAIL_TILE_TRANSPOSE_INL_H_
#else
#define TENSOROPS_DETAIL_TILE_TRANSPOSE_INL_H_
#endif

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
#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_DETAIL_TILE_TRANSPOSE_INL_H_
