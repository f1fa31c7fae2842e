// ShuffleLayer's NHWC kernel: per pixel, split channel pairs into two tensors
// (type 0) or merge two tensors into channel pairs (type 1), with the vector
// (de)interleaves of the Permute engine; its NCHW kernel: plane-pair copies.
// ChannelShuffle runs on the Permute kernels directly.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_CHANNEL_SHUFFLE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_CHANNEL_SHUFFLE_INL_H_
#undef TENSOROPS_OPS_CHANNEL_SHUFFLE_INL_H_
#else
#define TENSOROPS_OPS_CHANNEL_SHUFFLE_INL_H_
#endif

#include <hwy/highway.h>

#include "tensorops/ops/channel_shuffle.h"
#include "tensorops/ops/permute-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {

template <class Unit, int kType>
struct Impl<ShuffleLayerKernel<Unit, kType>> {
  using Job = typename ShuffleLayerKernel<Unit, kType>::Job;

  static void Run(const ShuffleLayerKernel<Unit, kType>&, const Job& job) {
    constexpr size_t kB = sizeof(Unit);
    const size_t second = job.pairs[0] * kB;  // where part 1 starts on the other side
    for (size_t n = 0; n < job.dims[0]; ++n) {
      for (size_t h = 0; h < job.dims[1]; ++h) {
        // Pointers step by W's strides: recomputing n, h, w offsets per
        // pixel took 11% of a 116 + 116 channel shuffle.
        const auto row = [&](auto* base, const size_t(&stride)[3]) {
          return base + n * stride[0] + h * stride[1];
        };
        const uint8_t* s0 = row(job.src[0], job.src_stride[0]);
        const uint8_t* s1 = row(job.src[1], job.src_stride[1]);
        uint8_t* d0 = row(job.dst[0], job.dst_stride[0]);
        uint8_t* d1 = row(job.dst[1], job.dst_stride[1]);
        for (size_t w = 0; w < job.dims[2]; ++w) {
          if constexpr (kType == 0) {
            DeinterleaveRows<2, Unit>(s0, {d0, d1}, job.pairs[0]);
            DeinterleaveRows<2, Unit>(s1, {d0 + second, d1 + second}, job.pairs[1]);
          } else {
            InterleaveRows<2, Unit>({s0, s1}, d0, job.pairs[0]);
            InterleaveRows<2, Unit>({s0 + second, s1 + second}, d1, job.pairs[1]);
          }
          s0 += job.src_stride[0][2];
          s1 += job.src_stride[1][2];
          d0 += job.dst_stride[0][2];
          d1 += job.dst_stride[1][2];
        }
      }
    }
  }
};

template <>
struct Impl<ShuffleLayerPlanesKernel> {
  using Job = ShuffleLayerPlanesKernel::Job;

  static void Run(const ShuffleLayerPlanesKernel&, const Job& job) {
    for (size_t n = 0; n < job.images; ++n) {
      for (size_t c = 0; c < job.pairs; ++c) {
        for (const ShuffleLayerPlanesKernel::Side& side : job.side) {
          const uint8_t* from = side.src + n * side.src_image + c * side.src_pair;
          uint8_t* to = side.dst + n * side.dst_image + c * side.dst_pair;
          ForEachRow(side.plane, [&](const size_t (&offsets)[2]) {
            CopyBytesRow(from + offsets[0], to + offsets[1], side.plane.row * job.element_bytes);
          });
        }
      }
    }
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_CHANNEL_SHUFFLE_INL_H_
