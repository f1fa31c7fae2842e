// Gather kernel: for every outer position and every index, copy one slice of
// data (a nest of contiguous byte rows) to out. The bounds policy is a
// template parameter of the loop, so the copy loop carries no branch on it.
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_GATHER_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_GATHER_INL_H_
#undef TENSOROPS_OPS_GATHER_INL_H_
#else
#define TENSOROPS_OPS_GATHER_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "tensorops/detail/row-inl.h"
#include "tensorops/ops/gather.h"
#include "tensorops/ops/gather_elements-inl.h"  // ResolveIndex

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Copies (or zeroes, when from is null) one slice.
HWY_INLINE void CopySlice(const LoopNest<2>& slice, const uint8_t* HWY_RESTRICT from,
                          uint8_t* HWY_RESTRICT to) {
  if (slice.outer_rank == 0) {  // the common case: one contiguous run
    if (from == nullptr) return ZeroBytesRow(to, slice.row);
    return CopyBytesRow(from, to, slice.row);
  }
  ForEachRow(slice, [&](const size_t (&offsets)[2]) {
    if (from == nullptr) return ZeroBytesRow(to + offsets[1], slice.row);
    CopyBytesRow(from + offsets[0], to + offsets[1], slice.row);
  });
}

// How many indices ahead GatherSlices prefetches (measured: see bench).
constexpr size_t kPrefetchDistance = 16;

template <Bounds kBounds, class Index>
HWY_INLINE void GatherSlices(const typename GatherKernel<Index>::Job& job) {
  ForEachRow(job.outer, [&](const size_t (&outer)[3]) {
    const uint8_t* data = job.data + outer[0];
    uint8_t* out = job.out + outer[1];
    ForEachRow(job.index, [&](const size_t (&position)[2]) {
      const uint8_t* indices = job.indices + outer[2] + position[0];
      uint8_t* to = out + position[1];
      for (size_t j = 0; j < job.index.row; ++j) {
        // Slices are read in index order, which is random: ask for the slice
        // a few indices ahead so its lines arrive while this one is copied.
        if (j + kPrefetchDistance < job.index.row) {
          Index ahead;
          hwy::CopySameSize(reinterpret_cast<const Index*>(
                                indices + (j + kPrefetchDistance) * job.index_stride),
                            &ahead);
          int64_t resolved_ahead;
          if (ResolveIndex<Bounds::kClamp>(ahead, job.axis_size, resolved_ahead)) {
            const uint8_t* p = data + static_cast<size_t>(resolved_ahead) * job.axis_stride;
            // The constant bound unrolls this loop; a plain loop to slice.row
            // (4 trips for 256-byte rows) measured 12-15% slower, and asking
            // also for the fifth line a misaligned row touches gained nothing.
            for (size_t line = 0; line < job.slice.row && line < 512; line += 64) {
              hwy::Prefetch(p + line);
            }
          }
        }
        Index k;
        hwy::CopySameSize(reinterpret_cast<const Index*>(indices + j * job.index_stride), &k);
        int64_t resolved;
        const bool valid = ResolveIndex<kBounds>(k, job.axis_size, resolved);
        const uint8_t* from =
            valid ? data + static_cast<size_t>(resolved) * job.axis_stride : nullptr;
        CopySlice(job.slice, from, to + j * job.out_step);
      }
    });
  });
}

template <class Index>
struct Impl<GatherKernel<Index>> {
  static void Run(const GatherKernel<Index>&, const typename GatherKernel<Index>::Job& job) {
    WithBoundsPolicy(job.bounds, [&](auto policy) {
      GatherSlices<decltype(policy)::kValue, Index>(job);
    });
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_GATHER_INL_H_
