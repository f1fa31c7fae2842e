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
      // NCHW: whole channel planes. Copies `count` planes from `from` (starting
      // at channel from_c, every from_step-th) to `to` (to_c, every to_step-th).
      const auto planes = [&](const auto& from, size_t from_c, size_t from_step,
                              const auto& to, size_t to_c, size_t to_step, size_t count) {
        if (count == 0) return;
        const size_t fc = from.StrideBytes(L::kC), tc = to.StrideBytes(L::kC);
        const PermuteAxis axes[4] = {
            {from.dim(L::kN), from.StrideBytes(L::kN), to.StrideBytes(L::kN)},
            {count, from_step * fc, to_step * tc},
            {from.dim(L::kH), from.StrideBytes(L::kH), to.StrideBytes(L::kH)},
            {from.dim(L::kW), from.StrideBytes(L::kW), to.StrideBytes(L::kW)}};
        detail::RunPermute<kB>(reinterpret_cast<const uint8_t*>(from.data()) + from_c * fc,
                               reinterpret_cast<uint8_t*>(to.data()) + to_c * tc, axes, 4,
                               executor);
      };
      for (size_t s = 0; s < 2; ++s) {
        if constexpr (kType == 0) {  // src_i channel 2c + s -> dst_s
          const auto& half = s == 0 ? dst0 : dst1;
          planes(src0, s, 2, half, 0, 1, c0 / 2);
          planes(src1, s, 2, half, c0 / 2, 1, c1 / 2);
        } else {  // src_s channel c -> y channel 2c + s
          const auto& half = s == 0 ? src0 : src1;
          planes(half, 0, 1, dst0, s, 2, c0 / 2);
          planes(half, c0 / 2, 1, dst1, s, 2, c1 / 2);
        }
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
