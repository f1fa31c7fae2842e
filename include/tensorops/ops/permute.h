// Permute: the engine under every data-movement op (Transpose, Reorder,
// ChannelShuffle, DepthToSpace, SpaceToDepth).
//
// Each of those ops moves every element once, from a source offset to a
// destination offset that are both linear in a multi-index:
//
//   dst[sum_k i_k * dst_stride_k] = src[sum_k i_k * src_stride_k]
//       for every i with 0 <= i_k < count_k
//
// An op describes its permutation as such a list of axes (count, byte stride
// in src, byte stride in dst); PlanPermute then
//   1. orders the axes by decreasing dst stride (dst is written in order),
//   2. drops size-1 axes and merges neighbours that are dense in both views,
// and the kernel picks one of three shapes for what is left:
//   kCopyRows    the innermost axis is contiguous in both: copy runs of bytes
//   kTranspose   it is contiguous in dst only, and another axis is contiguous
//                in src: 2-D tiles transposed in registers (or interleaved
//                when one side of the tile has 2, 3 or 4 elements)
//   kElements    neither (e.g. a stride-2 gather): one element at a time
// Elements move as bytes of their size (1, 2, 4 or 8), so every element type
// of the same size shares one kernel.
#ifndef TENSOROPS_OPS_PERMUTE_H_
#define TENSOROPS_OPS_PERMUTE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tensorops/dispatch.h"
#include "tensorops/error.h"
#include "tensorops/layout/extents.h"
#include "tensorops/parallel/split.h"

namespace tensorops {

// One axis of a permutation: `count` indices, `src_stride` and `dst_stride`
// bytes apart in the two views.
struct PermuteAxis {
  size_t count = 1;
  size_t src_stride = 0;
  size_t dst_stride = 0;
};

enum class PermuteShape { kCopyRows, kTranspose, kElements };

// The unsigned type that moves an element of kBytes bytes.
template <size_t kBytes>
using MoveUnit = std::conditional_t<
    kBytes == 1, uint8_t,
    std::conditional_t<kBytes == 2, uint16_t,
                       std::conditional_t<kBytes == 4, uint32_t, uint64_t>>>;

template <class Unit>
struct PermuteKernel {
  struct Job {
    const uint8_t* src = nullptr;
    uint8_t* dst = nullptr;
    PermuteShape shape = PermuteShape::kElements;
    // Axes after planning, outermost first; for kCopyRows the last one is the
    // contiguous row, for kTranspose the last one is the tile's dst-contiguous
    // side and `src_inner` indexes the tile's src-contiguous side.
    size_t rank = 0;
    PermuteAxis axes[kMaxRank];
    size_t src_inner = 0;
  };

  // Ranges of one axis: every element is written once, so cutting any axis
  // is exact. The outermost axis with a few blocks to share is cut (dst
  // stays written in long runs); blocks keep whole rows of vectors or whole
  // transposed tiles together where the axis is a row or a tile side.
  static size_t BlockOf(const Job& job, size_t axis) {
    const bool last = axis + 1 == job.rank;
    if (last && job.shape == PermuteShape::kCopyRows) return detail::kRowBlock;
    if (job.shape == PermuteShape::kTranspose && (last || axis == job.src_inner)) return 16;
    return 1;
  }
  static size_t UnitsOf(const Job& job, size_t axis) {
    return (job.axes[axis].count + BlockOf(job, axis) - 1) / BlockOf(job, axis);
  }
  static size_t SplitAxis(const Job& job) {
    size_t best = 0;
    for (size_t axis = 0; axis < job.rank; ++axis) {
      if (UnitsOf(job, axis) >= 4) return axis;
      if (UnitsOf(job, axis) > UnitsOf(job, best)) best = axis;
    }
    return best;
  }
  static WorkSplit Split(const Job& job) {
    size_t elements = 1;
    for (size_t i = 0; i < job.rank; ++i) elements *= job.axes[i].count;
    const double ns = static_cast<double>(elements) * 2 * sizeof(Unit) * detail::kNsPerByte;
    if (ns < 2 * detail::MinRangeNs()) return {1, ns};  // too small to split: skip the planning
    const size_t axis = SplitAxis(job);
    const double per_block =
        static_cast<double>(elements / job.axes[axis].count * BlockOf(job, axis));
    return {UnitsOf(job, axis), per_block * 2 * sizeof(Unit) * detail::kNsPerByte};
  }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    const size_t axis = SplitAxis(job);
    const size_t block = BlockOf(job, axis);
    const size_t first = begin * block;
    Job slice = job;
    slice.axes[axis].count = std::min(end * block, job.axes[axis].count) - first;
    slice.src += first * job.axes[axis].src_stride;
    slice.dst += first * job.axes[axis].dst_stride;
    return slice;
  }
};
// Byte permutes use VBMI on AVX3_DL.
template <>
inline constexpr bool detail::kHasOwnAvx3DlCode<PermuteKernel<uint8_t>> = true;

namespace detail {

// Orders, simplifies and classifies `axes` (see the top of this file).
// Returns false when there is nothing to move (some count is 0).
template <class Unit>
bool PlanPermute(const PermuteAxis* axes, size_t rank,
                 typename PermuteKernel<Unit>::Job& job) {
  constexpr size_t kBytes = sizeof(Unit);
  PermuteAxis sorted[kMaxRank];
  size_t n = 0;
  for (size_t i = 0; i < rank; ++i) {
    if (axes[i].count == 0) return false;
    if (axes[i].count != 1) sorted[n++] = axes[i];
  }
  std::stable_sort(sorted, sorted + n, [](const PermuteAxis& a, const PermuteAxis& b) {
    return a.dst_stride > b.dst_stride;
  });
  // Merge an axis into its outer neighbour when both views step over it densely.
  job.rank = 0;
  for (size_t i = 0; i < n; ++i) {
    if (job.rank > 0) {
      PermuteAxis& outer = job.axes[job.rank - 1];
      const PermuteAxis& inner = sorted[i];
      if (outer.src_stride == inner.count * inner.src_stride &&
          outer.dst_stride == inner.count * inner.dst_stride) {
        outer.count *= inner.count;
        outer.src_stride = inner.src_stride;
        outer.dst_stride = inner.dst_stride;
        continue;
      }
    }
    job.axes[job.rank++] = sorted[i];
  }
  if (job.rank == 0) {  // a single element
    job.axes[0] = {1, kBytes, kBytes};
    job.rank = 1;
  }
  const PermuteAxis& last = job.axes[job.rank - 1];
  job.shape = PermuteShape::kElements;
  if (last.dst_stride == kBytes && last.src_stride == kBytes) {
    job.shape = PermuteShape::kCopyRows;
  } else if (last.dst_stride == kBytes) {
    for (size_t i = 0; i + 1 < job.rank; ++i) {
      if (job.axes[i].src_stride == kBytes) {
        job.shape = PermuteShape::kTranspose;
        job.src_inner = i;
        break;
      }
    }
  }
  return true;
}

// Moves elements of `element_bytes` bytes along `axes` (see above). The
// caller has checked that both views hold every offset and do not overlap.
template <size_t kElementBytes, class E = SerialExecutor>
void RunPermute(const void* src, void* dst, const PermuteAxis* axes, size_t rank,
                E&& executor = {}) {
  static_assert(kElementBytes == 1 || kElementBytes == 2 || kElementBytes == 4 ||
                    kElementBytes == 8,
                "Permute: elements of 1, 2, 4 or 8 bytes");
  using Unit = MoveUnit<kElementBytes>;
  typename PermuteKernel<Unit>::Job job;
  if (rank > kMaxRank) {
    Fail(ErrorCode::kBadRank, "Permute: ", rank, " axes exceed kMaxRank = ", kMaxRank);
  }
  if (!PlanPermute<Unit>(axes, rank, job)) return;
  job.src = static_cast<const uint8_t*>(src);
  job.dst = static_cast<uint8_t*>(dst);
  RunKernelOn(executor, PermuteKernel<Unit>{}, job);
}

}  // namespace detail
}  // namespace tensorops

#endif  // TENSOROPS_OPS_PERMUTE_H_
