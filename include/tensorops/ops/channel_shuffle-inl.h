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
        for (size_t w = 0; w < job.dims[2]; ++w) {
          const auto at = [&](const size_t(&stride)[3]) {
            return n * stride[0] + h * stride[1] + w * stride[2];
          };
          const uint8_t* s0 = job.src[0] + at(job.src_stride[0]);
          const uint8_t* s1 = job.src[1] + at(job.src_stride[1]);
          uint8_t* d0 = job.dst[0] + at(job.dst_stride[0]);
          uint8_t* d1 = job.dst[1] + at(job.dst_stride[1]);
          if constexpr (kType == 0) {
            DeinterleaveRows<2, Unit>(s0, {d0, d1}, job.pairs[0]);
            DeinterleaveRows<2, Unit>(s1, {d0 + second, d1 + second}, job.pairs[1]);
          } else {
            InterleaveRows<2, Unit>({s0, s1}, d0, job.pairs[0]);
            InterleaveRows<2, Unit>({s0 + second, s1 + second}, d1, job.pairs[1]);
          }
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
