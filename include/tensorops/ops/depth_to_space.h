// DepthToSpace and SpaceToDepth (ONNX-13), NCHW or NHWC.
//
// With block size b, a "depth" tensor of C = b*b*C' channels at H x W and a
// "space" tensor of C' channels at (H*b) x (W*b) correspond element by element:
//
//   space(n, c, h*b + i, w*b + j) = depth(n, d, h, w)     i, j < b, c < C'
//   d = (i*b + j)*C' + c     mode kDcr (ONNX default: depth, column, row)
//   d = c*b*b + i*b + j      mode kCrd (column, row, depth; PyTorch PixelShuffle)
//
// DepthToSpace{b, mode} writes space from depth; SpaceToDepth{b} writes depth
// from space (ONNX defines it in the kDcr order only; kCrd is offered too).
// Any element type and pitches; src and dst must not overlap.
#ifndef TENSOROPS_OPS_DEPTH_TO_SPACE_H_
#define TENSOROPS_OPS_DEPTH_TO_SPACE_H_

#include <cstddef>

#include "tensorops/error.h"
#include "tensorops/layout/layouts.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/ops/permute.h"
#include "tensorops/ops/transpose.h"

namespace tensorops {

enum class DepthOrder { kDcr, kCrd };

namespace detail {

// Checks that `space` and `depth` correspond for block size b and fills the
// six axes (n, c, h, i, w, j) with strides {space, depth} in (src, dst) order
// when space_is_dst, else swapped.
template <class SpaceView, class DepthView>
void DepthSpaceAxes(const SpaceView& space, const DepthView& depth, size_t b,
                    DepthOrder order, bool space_is_dst, const char* op,
                    PermuteAxis (&axes)[6]) {
  using L = typename SpaceView::layout_type;
  if (b == 0) Fail(ErrorCode::kBadArgument, op, ": blocksize must be at least 1");
  const size_t n = depth.dim(L::kN), c = depth.dim(L::kC);
  const size_t h = depth.dim(L::kH), w = depth.dim(L::kW);
  const size_t bb = CheckedMul(b, b, "blocksize squared");
  if (c % bb != 0) {
    Fail(ErrorCode::kShapeMismatch, op, ": the depth tensor's ", c,
         " channels are not a multiple of blocksize^2 = ", bb);
  }
  const size_t cs = c / bb;
  const bool match = space.dim(L::kN) == n && space.dim(L::kC) == cs &&
                     space.dim(L::kH) == CheckedMul(h, b, "space height") &&
                     space.dim(L::kW) == CheckedMul(w, b, "space width");
  if (!match) {
    Fail(ErrorCode::kShapeMismatch, op, ": with blocksize ", b, " the depth tensor ",
         depth.dims(), " (", L::kName, ") needs a space tensor of N=", n, " C=", cs,
         " H=", h * b, " W=", w * b, ", got ", space.dims());
  }
  const size_t sn = space.StrideBytes(L::kN), sc = space.StrideBytes(L::kC);
  const size_t sh = space.StrideBytes(L::kH), sw = space.StrideBytes(L::kW);
  const size_t dn = depth.StrideBytes(L::kN), dc = depth.StrideBytes(L::kC);
  const size_t dh = depth.StrideBytes(L::kH), dw = depth.StrideBytes(L::kW);
  const bool dcr = order == DepthOrder::kDcr;
  // {count, space stride, depth stride} per axis.
  const PermuteAxis space_depth[6] = {
      {n, sn, dn},
      {cs, sc, dcr ? dc : bb * dc},
      {h, b * sh, dh},
      {b, sh, dcr ? b * cs * dc : b * dc},  // i
      {w, b * sw, dw},
      {b, sw, dcr ? cs * dc : dc}};         // j
  for (size_t k = 0; k < 6; ++k) {
    const PermuteAxis& a = space_depth[k];
    axes[k] = space_is_dst ? PermuteAxis{a.count, a.dst_stride, a.src_stride} : a;
  }
}

}  // namespace detail

struct DepthToSpace {
  size_t blocksize = 2;
  DepthOrder mode = DepthOrder::kDcr;

  template <class S, ImageLayout L, class D, Executor E = SerialExecutor>
  void operator()(const TensorView<S, L>& depth, const TensorView<D, L>& space,
                  E&& executor = {}) const {
    PermuteAxis axes[6];
    detail::DepthSpaceAxes(space, depth, blocksize, mode, true, "DepthToSpace", axes);
    detail::CheckMovable(depth, space, "DepthToSpace");
    detail::RunPermute<kElementSize<S>>(depth.data(), space.data(), axes, 6, executor);
  }
};

struct SpaceToDepth {
  size_t blocksize = 2;
  DepthOrder mode = DepthOrder::kDcr;

  template <class S, ImageLayout L, class D, Executor E = SerialExecutor>
  void operator()(const TensorView<S, L>& space, const TensorView<D, L>& depth,
                  E&& executor = {}) const {
    PermuteAxis axes[6];
    detail::DepthSpaceAxes(space, depth, blocksize, mode, false, "SpaceToDepth", axes);
    detail::CheckMovable(space, depth, "SpaceToDepth");
    detail::RunPermute<kElementSize<S>>(space.data(), depth.data(), axes, 6, executor);
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_DEPTH_TO_SPACE_H_
