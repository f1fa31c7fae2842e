// Channel shuffles of ShuffleNet: ChannelShuffle (v1/v2, any group count) and
// Simd's two-tensor ShuffleLayer (types 0 and 1).
//
// ChannelShuffle{groups = G}, C = G * K channels:
//   dst(n, k * G + g, h, w) = src(n, g * K + k, h, w)     g < G, k < K
// i.e. reshape the channels to (G, K), transpose to (K, G), flatten.
//
// ShuffleLayer<0>: src0 has C0 channels, src1 has C1 (both even); the
// concatenation x = concat(src0, src1) of C0 + C1 = 2 C channels is split
// into its even and odd channels:
//   dst0(n, c, h, w) = x(n, 2 c, h, w),  dst1(n, c, h, w) = x(n, 2 c + 1, h, w)
// ShuffleLayer<1> is its inverse: src0 and src1 have C channels each, C0 and
// C1 (even, C0 + C1 = 2 C) are the output channel counts:
//   y(n, 2 c, h, w) = src0(n, c, h, w),  y(n, 2 c + 1, h, w) = src1(n, c, h, w)
//   dst0 = y channels [0, C0),  dst1 = y channels [C0, 2 C)
// This is Simd's SynetShuffleLayerForward (channels0/1 there are C0/C1);
// type 1 followed by type 0 with the same C0, C1 is the identity.
//
// Both layouts (NCHW, NHWC), any element type and pitches; N, H and W agree
// across all views; no output may overlap an input. NCHW moves whole channel
// planes (row copies); NHWC interleaves within each pixel.
#ifndef TENSOROPS_OPS_CHANNEL_SHUFFLE_H_
#define TENSOROPS_OPS_CHANNEL_SHUFFLE_H_

#include <cstddef>
#include <type_traits>

#include "tensorops/detail/checks.h"
#include "tensorops/dispatch.h"
#include "tensorops/error.h"
#include "tensorops/layout/layouts.h"
#include "tensorops/layout/loop_nest.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/ops/permute.h"
#include "tensorops/ops/transpose.h"

namespace tensorops {

struct ChannelShuffle {
  size_t groups = 2;

  template <class S, ImageLayout L, class D, Executor E = SerialExecutor>
  void operator()(const TensorView<S, L>& src, const TensorView<D, L>& dst,
                  E&& executor = {}) const {
    detail::CheckSameDims(src, "ChannelShuffle src", dst, "ChannelShuffle dst");
    const size_t channels = src.dim(L::kC);
    if (groups == 0 || channels % groups != 0) {
      detail::Fail(ErrorCode::kBadArgument, "ChannelShuffle: ", channels,
                   " channels do not split into ", groups, " groups");
    }
    detail::CheckMovable(src, dst, "ChannelShuffle");
    const size_t per_group = channels / groups;
    const size_t sc = src.StrideBytes(L::kC), dc = dst.StrideBytes(L::kC);
    const PermuteAxis axes[5] = {
        {src.dim(L::kN), src.StrideBytes(L::kN), dst.StrideBytes(L::kN)},
        {groups, per_group * sc, dc},            // g
        {per_group, sc, groups * dc},            // k
        {src.dim(L::kH), src.StrideBytes(L::kH), dst.StrideBytes(L::kH)},
        {src.dim(L::kW), src.StrideBytes(L::kW), dst.StrideBytes(L::kW)}};
    detail::RunPermute<kElementSize<S>>(src.data(), dst.data(), axes, 5, executor);
  }
};

// The NHWC kernel of ShuffleLayer: per pixel, (de)interleave channel pairs.
template <class Unit, int kType>
struct ShuffleLayerKernel {
  struct Job {
    const uint8_t* src[2];
    uint8_t* dst[2];
    size_t dims[3];            // N, H, W
    size_t src_stride[2][3];   // bytes per step of N, H, W
    size_t dst_stride[2][3];
    size_t pairs[2];           // type 0: src channels / 2; type 1: dst channels / 2
  };
  // Images when there are several, else rows: every pixel is independent.
  static size_t SplitAxis(const Job& job) { return job.dims[0] > 1 ? 0 : 1; }
  static WorkSplit Split(const Job& job) {
    const size_t axis = SplitAxis(job);
    const double pixels = static_cast<double>(job.dims[0] * job.dims[1] * job.dims[2] / job.dims[axis]);
    const double bytes = pixels * 4.0 * static_cast<double>(job.pairs[0] + job.pairs[1]) * sizeof(Unit);
    return {job.dims[axis], bytes * detail::kNsPerByte};
  }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    const size_t axis = SplitAxis(job);
    Job slice = job;
    slice.dims[axis] = end - begin;
    for (size_t i = 0; i < 2; ++i) {
      slice.src[i] += begin * job.src_stride[i][axis];
      slice.dst[i] += begin * job.dst_stride[i][axis];
    }
    return slice;
  }
};
// Byte interleaves use VBMI on AVX3_DL.
template <int kType>
inline constexpr bool detail::kHasOwnAvx3DlCode<ShuffleLayerKernel<uint8_t, kType>> = true;

// The NCHW kernel of ShuffleLayer: a sequence of channel-plane pairs on one
// side (a source for type 0, a destination for type 1) and two plane
// sequences on the other. Plane pair c: side p (0 or 1) copies the plane at
// src + c * src_pair to dst + c * dst_pair, every row of it. The pairs go in
// order so that the interleaved side is read or written front to back: two
// passes that each skip every other plane ran at 60-70% of memcpy.
struct ShuffleLayerPlanesKernel {
  struct Side {
    const uint8_t* src;
    uint8_t* dst;
    size_t src_image, dst_image;  // bytes per step of N
    size_t src_pair, dst_pair;    // bytes per plane pair
    LoopNest<2> plane;            // the rows of one plane (src, dst)
  };
  struct Job {
    Side side[2];
    size_t images, pairs, element_bytes;
  };
  // Images when there are several, else plane pairs.
  static WorkSplit Split(const Job& job) {
    const size_t units = job.images > 1 ? job.images : job.pairs;
    const double bytes = static_cast<double>(job.images * job.pairs / units) * 4.0 *
                         static_cast<double>(job.side[0].plane.ElementCount() * job.element_bytes);
    return {units, bytes * detail::kNsPerByte};
  }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    Job slice = job;
    const bool by_image = job.images > 1;
    (by_image ? slice.images : slice.pairs) = end - begin;
    for (Side& side : slice.side) {
      side.src += begin * (by_image ? side.src_image : side.src_pair);
      side.dst += begin * (by_image ? side.dst_image : side.dst_pair);
    }
    return slice;
  }
};

template <int kType>
struct ShuffleLayer {
  static_assert(kType == 0 || kType == 1, "ShuffleLayer: type 0 or 1");

  template <class S, ImageLayout L, class D, Executor E = SerialExecutor>
  void operator()(const TensorView<S, L>& src0, const TensorView<S, L>& src1,
                  const TensorView<D, L>& dst0, const TensorView<D, L>& dst1,
                  E&& executor = {}) const {
    Check(src0, src1, dst0, dst1);
    using Unit = MoveUnit<kElementSize<S>>;
    constexpr size_t kB = kElementSize<S>;
    // The side with two tensors of different channel counts.
    const size_t c0 = kType == 0 ? src0.dim(L::kC) : dst0.dim(L::kC);
    const size_t c1 = kType == 0 ? src1.dim(L::kC) : dst1.dim(L::kC);
    if constexpr (L::kC < L::kH) {
      // NCHW: whole channel planes. Segment i is the part of the pair side
      // that belongs to src_i (type 0) or dst_i (type 1): c_i / 2 plane pairs,
      // at channel offset first_i / 2 of the two-tensor side.
      const auto segment = [&](const auto& paired, const auto& side0, const auto& side1,
                               size_t first_pair, size_t pairs) {
        ShuffleLayerPlanesKernel::Job job;
        job.images = paired.dim(L::kN);
        job.pairs = pairs;
        job.element_bytes = kB;
        if (job.images == 0 || pairs == 0) return;
        const auto fill = [](ShuffleLayerPlanesKernel::Side& side, const auto& from,
                             const size_t(&from_steps)[2], const auto& to,
                             const size_t(&to_steps)[2]) {
          side.src = reinterpret_cast<const uint8_t*>(from.data());
          side.dst = reinterpret_cast<uint8_t*>(to.data());
          side.src_image = from_steps[0];
          side.src_pair = from_steps[1];
          side.dst_image = to_steps[0];
          side.dst_pair = to_steps[1];
          side.plane = MakeLoopNest(from.dims(), from, to);
        };
        const std::remove_reference_t<decltype(side0)>* sides[2] = {&side0, &side1};
        for (size_t p = 0; p < 2; ++p) {
          // Plane p of each pair on the pair side (two planes per pair), plane
          // first_pair + c of tensor p on the other.
          const auto pair_plane = paired.Batch(0).Channels(p, 1);
          const auto side_plane = sides[p]->Batch(0).Channels(first_pair, 1);
          const size_t pair_steps[2] = {paired.StrideBytes(L::kN), 2 * paired.StrideBytes(L::kC)};
          const size_t side_steps[2] = {sides[p]->StrideBytes(L::kN),
                                        sides[p]->StrideBytes(L::kC)};
          if constexpr (kType == 0) {
            fill(job.side[p], pair_plane, pair_steps, side_plane, side_steps);
          } else {
            fill(job.side[p], side_plane, side_steps, pair_plane, pair_steps);
          }
        }
        if (job.side[0].plane.row == 0) return;  // H or W is 0
        detail::RunKernelOn(executor, ShuffleLayerPlanesKernel{}, job);
      };
      if constexpr (kType == 0) {
        segment(src0, dst0, dst1, 0, c0 / 2);
        segment(src1, dst0, dst1, c0 / 2, c1 / 2);
      } else {
        segment(dst0, src0, src1, 0, c0 / 2);
        segment(dst1, src0, src1, c0 / 2, c1 / 2);
      }
    } else {
      typename ShuffleLayerKernel<Unit, kType>::Job job;
      const TensorView<S, L>* in[2] = {&src0, &src1};
      const TensorView<D, L>* out[2] = {&dst0, &dst1};
      const size_t dim_index[3] = {L::kN, L::kH, L::kW};
      for (size_t i = 0; i < 2; ++i) {
        job.src[i] = reinterpret_cast<const uint8_t*>(in[i]->data());
        job.dst[i] = reinterpret_cast<uint8_t*>(out[i]->data());
        for (size_t k = 0; k < 3; ++k) {
          job.src_stride[i][k] = in[i]->StrideBytes(dim_index[k]);
          job.dst_stride[i][k] = out[i]->StrideBytes(dim_index[k]);
        }
      }
      for (size_t k = 0; k < 3; ++k) job.dims[k] = src0.dim(dim_index[k]);
      job.pairs[0] = c0 / 2;
      job.pairs[1] = c1 / 2;
      detail::RunKernelOn(executor, ShuffleLayerKernel<Unit, kType>{}, job);
    }
  }

 private:
  template <class S, ImageLayout L, class D>
  static void Check(const TensorView<S, L>& src0, const TensorView<S, L>& src1,
                    const TensorView<D, L>& dst0, const TensorView<D, L>& dst1) {
    static_assert(!std::is_const_v<D>, "ShuffleLayer: dst must be mutable views");
    static_assert(std::is_same_v<std::remove_const_t<S>, D>,
                  "ShuffleLayer: src and dst element types must match");
    const char* names[4] = {"src0", "src1", "dst0", "dst1"};
    const size_t n[4] = {src0.dim(L::kN), src1.dim(L::kN), dst0.dim(L::kN), dst1.dim(L::kN)};
    const size_t h[4] = {src0.dim(L::kH), src1.dim(L::kH), dst0.dim(L::kH), dst1.dim(L::kH)};
    const size_t w[4] = {src0.dim(L::kW), src1.dim(L::kW), dst0.dim(L::kW), dst1.dim(L::kW)};
    for (size_t i = 1; i < 4; ++i) {
      if (n[i] != n[0] || h[i] != h[0] || w[i] != w[0]) {
        detail::Fail(ErrorCode::kShapeMismatch, "ShuffleLayer<", kType, ">: ", names[i],
                     " has N, H, W = ", n[i], ", ", h[i], ", ", w[i], " but src0 has ",
                     n[0], ", ", h[0], ", ", w[0]);
      }
    }
    // Type 0: the sources have C0, C1 (even), the outputs (C0 + C1) / 2 each.
    // Type 1: the other way round.
    const size_t c0 = kType == 0 ? src0.dim(L::kC) : dst0.dim(L::kC);
    const size_t c1 = kType == 0 ? src1.dim(L::kC) : dst1.dim(L::kC);
    const size_t half_a = kType == 0 ? dst0.dim(L::kC) : src0.dim(L::kC);
    const size_t half_b = kType == 0 ? dst1.dim(L::kC) : src1.dim(L::kC);
    const char* split = kType == 0 ? "src" : "dst";
    const char* halves = kType == 0 ? "dst" : "src";
    if (c0 % 2 != 0 || c1 % 2 != 0) {
      detail::Fail(ErrorCode::kShapeMismatch, "ShuffleLayer<", kType, ">: ", split,
                   "0 and ", split, "1 channels (", c0, ", ", c1, ") must be even");
    }
    if (half_a != (c0 + c1) / 2 || half_b != (c0 + c1) / 2) {
      detail::Fail(ErrorCode::kShapeMismatch, "ShuffleLayer<", kType, ">: ", halves,
                   "0 and ", halves, "1 must have (", c0, " + ", c1, ") / 2 = ",
                   (c0 + c1) / 2, " channels each, not ", half_a, " and ", half_b);
    }
    if (detail::Overlaps(dst0, dst1) || detail::Overlaps(dst0, src0) ||
        detail::Overlaps(dst0, src1) || detail::Overlaps(dst1, src0) ||
        detail::Overlaps(dst1, src1)) {
      detail::Fail(ErrorCode::kAliasing, "ShuffleLayer<", kType,
                   ">: an output overlaps an input or the other output");
    }
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_CHANNEL_SHUFFLE_H_
