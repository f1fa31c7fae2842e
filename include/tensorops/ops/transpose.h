// Transpose (ONNX Transpose) and Reorder (between image layouts).
//
//   Transpose{perm}:  dst[i_0, ..., i_{r-1}] = src[j]  with j[perm[k]] = i_k
//                     dst.dims[k] = src.dims[perm[k]]; an empty perm reverses
//                     the axes (ONNX's default)
//   Reorder:          dst(n, c, h, w) = src(n, c, h, w) where src and dst are
//                     any image layouts (NCHW <-> NHWC, or a re-pitching copy)
//
// Both move elements of any type unchanged (by their byte size), take any
// pitches, and never write dst's padding. src and dst must not overlap.
// The work is done by the Permute engine (permute.h): a contiguous innermost
// axis copies rows, NCHW <-> NHWC runs in-register tile transposes, and 2-4
// channels (RGB, RGBA) use vector (de)interleaves.
#ifndef TENSOROPS_OPS_TRANSPOSE_H_
#define TENSOROPS_OPS_TRANSPOSE_H_

#include <cstddef>
#include <type_traits>

#include "tensorops/detail/checks.h"
#include "tensorops/error.h"
#include "tensorops/layout/extents.h"
#include "tensorops/layout/layouts.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/ops/permute.h"

namespace tensorops {

namespace detail {

template <class S, class D>
void CheckMovable(const S& src, const D& dst, const char* op) {
  using SrcT = typename S::value_type;
  using DstT = typename D::element_type;
  static_assert(std::is_same_v<SrcT, DstT>,
                "data movement keeps the element type: src and dst must match "
                "(use Convert to change it)");
  if (Overlaps(src, dst)) {
    Fail(ErrorCode::kAliasing, op, ": src and dst overlap (it cannot run in place)");
  }
}

}  // namespace detail

struct Transpose {
  Extents perm;  // dst axis k is src axis perm[k]; empty = reversed

  template <class S, Layout LS, class D, Layout LD, Executor E = SerialExecutor>
  void operator()(const TensorView<S, LS>& src, const TensorView<D, LD>& dst,
                  E&& executor = {}) const {
    const size_t rank = src.rank();
    Extents p = perm;
    if (p.size() == 0) {
      size_t reversed[kMaxRank];
      for (size_t k = 0; k < rank; ++k) reversed[k] = rank - 1 - k;
      p = Extents::FromArray(reversed, rank);
    }
    if (p.size() != rank) {
      detail::Fail(ErrorCode::kBadArgument, "Transpose: perm ", p, " has ", p.size(),
                   " entries for a src of rank ", rank);
    }
    bool seen[kMaxRank] = {};
    for (size_t k = 0; k < rank; ++k) {
      if (p[k] >= rank || seen[p[k]]) {
        detail::Fail(ErrorCode::kBadArgument, "Transpose: perm ", p,
                     " is not a permutation of 0..", rank - 1);
      }
      seen[p[k]] = true;
    }
    if (dst.rank() != rank) {
      detail::Fail(ErrorCode::kShapeMismatch, "Transpose: dst has rank ", dst.rank(),
                   ", src has rank ", rank);
    }
    for (size_t k = 0; k < rank; ++k) {
      if (dst.dim(k) != src.dim(p[k])) {
        detail::Fail(ErrorCode::kShapeMismatch, "Transpose: dst dim[", k, "] = ",
                     dst.dim(k), " but src dim[perm[", k, "] = ", p[k], "] = ",
                     src.dim(p[k]), " (src dims ", src.dims(), ", dst dims ",
                     dst.dims(), ", perm ", p, ")");
      }
    }
    detail::CheckMovable(src, dst, "Transpose");
    PermuteAxis axes[kMaxRank];
    for (size_t k = 0; k < rank; ++k) {
      axes[k] = {dst.dim(k), src.StrideBytes(p[k]), dst.StrideBytes(k)};
    }
    detail::RunPermute<kElementSize<S>>(src.data(), dst.data(), axes, rank, executor);
  }
};

struct Reorder {
  template <class S, ImageLayout LS, class D, ImageLayout LD, Executor E = SerialExecutor>
  void operator()(const TensorView<S, LS>& src, const TensorView<D, LD>& dst,
                  E&& executor = {}) const {
    constexpr size_t kSrc[4] = {LS::kN, LS::kC, LS::kH, LS::kW};
    constexpr size_t kDst[4] = {LD::kN, LD::kC, LD::kH, LD::kW};
    constexpr const char* kName[4] = {"N", "C", "H", "W"};
    for (size_t i = 0; i < 4; ++i) {
      if (src.dim(kSrc[i]) != dst.dim(kDst[i])) {
        detail::Fail(ErrorCode::kShapeMismatch, "Reorder: ", kName[i], " is ",
                     src.dim(kSrc[i]), " in src (", LS::kName, " ", src.dims(),
                     ") but ", dst.dim(kDst[i]), " in dst (", LD::kName, " ",
                     dst.dims(), ")");
      }
    }
    detail::CheckMovable(src, dst, "Reorder");
    PermuteAxis axes[4];
    for (size_t i = 0; i < 4; ++i) {
      axes[i] = {src.dim(kSrc[i]), src.StrideBytes(kSrc[i]), dst.StrideBytes(kDst[i])};
    }
    detail::RunPermute<kElementSize<S>>(src.data(), dst.data(), axes, 4, executor);
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_TRANSPOSE_H_
