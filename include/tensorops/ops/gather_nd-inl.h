// GatherND kernel: per tuple of coordinates, resolve each against its own
// axis, then copy one slice (shared CopySlice from gather-inl.h).
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_GATHER_ND_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_GATHER_ND_INL_H_
#undef TENSOROPS_OPS_GATHER_ND_INL_H_
#else
#define TENSOROPS_OPS_GATHER_ND_INL_H_
#endif

#include <hwy/highway.h>

#include "tensorops/detail/row-inl.h"
#include "tensorops/ops/gather-inl.h"  // CopySlice, ResolveIndex
#include "tensorops/ops/gather_nd.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <Bounds kBounds, class Index>
HWY_INLINE void GatherNdTuples(const typename GatherNdKernel<Index>::Job& job) {
  ForEachRow(job.tuples, [&](const size_t (&offsets)[3]) {
    const uint8_t* tuple = job.indices + offsets[0];
    const uint8_t* from = job.data + offsets[1];
    for (size_t t = 0; t < job.tuple_size && from != nullptr; ++t) {
      Index k;
      hwy::CopySameSize(reinterpret_cast<const Index*>(tuple + t * job.component_stride), &k);
      int64_t resolved;
      from = ResolveIndex<kBounds>(k, job.axis_size[t], resolved)
                 ? from + static_cast<size_t>(resolved) * job.axis_stride[t]
                 : nullptr;  // kZero: the whole slice becomes zero
    }
    CopySlice(job.slice, from, job.out + offsets[2]);
  });
}

template <class Index>
struct Impl<GatherNdKernel<Index>> {
  static void Run(const GatherNdKernel<Index>&, const typename GatherNdKernel<Index>::Job& job) {
    WithBoundsPolicy(job.bounds, [&](auto policy) {
      GatherNdTuples<decltype(policy)::kValue, Index>(job);
    });
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_GATHER_ND_INL_H_
