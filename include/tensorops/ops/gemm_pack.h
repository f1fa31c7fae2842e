// The two packing steps of Arm Compute Library's GEMM, as public ops.
//
// Shapes are rows x columns of row-major matrices (ACL's documentation gives
// them as [width, height], which reads backwards; here they are never mixed):
//
//   Interleave4x4:  A is M x K  ->  out is ceil(M/4) x 4K
//                   out[r][4k + i] = A[4r + i][k]     (0 where 4r + i >= M)
//   Transpose1xW:   B is K x N  ->  out is ceil(N/W) x W*K,  W = 16 bytes / sizeof(T)
//                   out[j][W*k + c] = B[k][W*j + c]   (0 where W*j + c >= N)
//
// Interleave4x4 puts a 4x4 block of A on one output row, column by column,
// so a kernel reads the 4 values of one k for 4 rows with one load; Transpose1xW
// makes each 16-byte column block of B one contiguous strip along k. Any
// element size of 1, 2, 4 or 8 bytes moves unchanged. The rows that pad the
// last block are zero, as ACL's CPU kernels write (its GLES kernel leaves them
// undefined). Both take pitched views and never write out's padding; src and
// out must not overlap. The SGEMM (gemm.h) packs its panels the same way with
// the tile of the target (MR rows instead of 4, NR columns instead of W).
#ifndef TENSOROPS_OPS_GEMM_PACK_H_
#define TENSOROPS_OPS_GEMM_PACK_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "tensorops/error.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/ops/permute.h"
#include "tensorops/ops/transpose.h"

namespace tensorops {

namespace detail {

inline void CheckPackedShape(const char* op, size_t rows, size_t cols, size_t want_rows,
                             size_t want_cols) {
  if (rows != want_rows || cols != want_cols) {
    Fail(ErrorCode::kShapeMismatch, op, ": out is ", rows, " x ", cols, ", expected ", want_rows,
         " x ", want_cols);
  }
}

// Zeroes `count` runs of `bytes` bytes, `stride` bytes apart (the padding
// lanes of the last packed block; few and short, so plain memset).
inline void ZeroRuns(uint8_t* p, size_t count, size_t stride, size_t bytes) {
  for (size_t i = 0; i < count; ++i) std::memset(p + i * stride, 0, bytes);
}

}  // namespace detail

struct Interleave4x4 {
  template <class S, class D, Executor E = SerialExecutor>
  void operator()(const MatrixView<S>& a, const MatrixView<D>& out, E&& executor = {}) const {
    constexpr size_t kBytes = kElementSize<S>;
    const size_t m = a.dim(0), k = a.dim(1);
    detail::CheckPackedShape("Interleave4x4", out.dim(0), out.dim(1), (m + 3) / 4, 4 * k);
    detail::CheckMovable(a, out, "Interleave4x4");
    if (m == 0 || k == 0) return;
    const size_t lda = a.StrideBytes(0), ldo = out.StrideBytes(0);
    const auto* src = reinterpret_cast<const uint8_t*>(a.data());
    auto* dst = reinterpret_cast<uint8_t*>(out.data());
    const size_t blocks = m / 4, rest = m % 4;
    if (blocks > 0) {
      const PermuteAxis axes[3] = {
          {blocks, 4 * lda, ldo}, {k, kBytes, 4 * kBytes}, {4, lda, kBytes}};
      detail::RunPermute<kBytes>(src, dst, axes, 3, executor);
    }
    if (rest > 0) {
      uint8_t* last = dst + blocks * ldo;
      const PermuteAxis axes[2] = {{k, kBytes, 4 * kBytes}, {rest, lda, kBytes}};
      detail::RunPermute<kBytes>(src + blocks * 4 * lda, last, axes, 2);
      detail::ZeroRuns(last + rest * kBytes, k, 4 * kBytes, (4 - rest) * kBytes);
    }
  }
};

struct Transpose1xW {
  template <class S>
  static constexpr size_t kWidth = 16 / kElementSize<S>;  // W: elements per 16 bytes

  template <class S, class D, Executor E = SerialExecutor>
  void operator()(const MatrixView<S>& b, const MatrixView<D>& out, E&& executor = {}) const {
    constexpr size_t kBytes = kElementSize<S>;
    constexpr size_t kW = kWidth<S>;
    const size_t k = b.dim(0), n = b.dim(1);
    detail::CheckPackedShape("Transpose1xW", out.dim(0), out.dim(1), (n + kW - 1) / kW, kW * k);
    detail::CheckMovable(b, out, "Transpose1xW");
    if (n == 0 || k == 0) return;
    const size_t ldb = b.StrideBytes(0), ldo = out.StrideBytes(0);
    const auto* src = reinterpret_cast<const uint8_t*>(b.data());
    auto* dst = reinterpret_cast<uint8_t*>(out.data());
    const size_t blocks = n / kW, rest = n % kW;
    if (blocks > 0) {
      const PermuteAxis axes[3] = {
          {blocks, kW * kBytes, ldo}, {k, ldb, kW * kBytes}, {kW, kBytes, kBytes}};
      detail::RunPermute<kBytes>(src, dst, axes, 3, executor);
    }
    if (rest > 0) {
      uint8_t* last = dst + blocks * ldo;
      const PermuteAxis axes[2] = {{k, ldb, kW * kBytes}, {rest, kBytes, kBytes}};
      detail::RunPermute<kBytes>(src + blocks * kW * kBytes, last, axes, 2);
      detail::ZeroRuns(last + rest * kBytes, k, kW * kBytes, (kW - rest) * kBytes);
    }
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_GEMM_PACK_H_
