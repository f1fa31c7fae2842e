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

// Copies n bytes, or zeroes them when from is null (a kZero index out of
// range).
HWY_INLINE void CopyOrZeroRow(const uint8_t* HWY_RESTRICT from, uint8_t* HWY_RESTRICT to,
                              size_t n) {
  if (from == nullptr) return ZeroBytesRow(to, n);
  CopyBytesRow(from, to, n);
}

// Copies (or zeroes, when from is null) one slice.
HWY_INLINE void CopySlice(const LoopNest<2>& slice, const uint8_t* HWY_RESTRICT from,
                          uint8_t* HWY_RESTRICT to) {
  if (slice.outer_rank == 0) return CopyOrZeroRow(from, to, slice.row);  // one contiguous run
  ForEachRow(slice, [&](const size_t (&offsets)[2]) {
    CopyOrZeroRow(from == nullptr ? nullptr : from + offsets[0], to + offsets[1], slice.row);
  });
}

// How many indices ahead GatherSlices prefetches (measured: see bench).
constexpr size_t kPrefetchDistance = 16;

// How many cache lines of each slice to prefetch: at most 8 (the first 512
// bytes), since a long slice's later lines are found by the hardware
// prefetcher once its first lines are read in order.
HWY_INLINE size_t PrefetchLines(size_t slice_bytes) {
  const size_t lines = (slice_bytes + 63) / 64;
  return lines < 8 ? lines : 8;
}

// Asks for the first `lines` lines of the slice that index k selects. Only
// the negative wrap is applied, whatever the policy: the address is formed as
// an integer and never dereferenced (a prefetch cannot fault), so an index
// the policy will clamp or zero costs a useless prefetch and nothing else.
// The switch falls through: one predictable jump, where a loop over the
// lines would branch once per line.
template <class Index>
HWY_INLINE void PrefetchSlice(const uint8_t* data, Index k, int64_t axis_size,
                              size_t axis_stride, size_t lines) {
  const auto resolved = static_cast<uint64_t>(k < 0 ? k + axis_size : k);
  // Unsigned arithmetic in the address width (32 bits on armv7): an index
  // that wraps it only aims the prefetch elsewhere.
  const uintptr_t p =
      reinterpret_cast<uintptr_t>(data) + static_cast<uintptr_t>(resolved) * axis_stride;
  const auto line = [p](size_t i) { hwy::Prefetch(reinterpret_cast<const uint8_t*>(p + 64 * i)); };
  switch (lines) {
    case 8: line(7); [[fallthrough]];
    case 7: line(6); [[fallthrough]];
    case 6: line(5); [[fallthrough]];
    case 5: line(4); [[fallthrough]];
    case 4: line(3); [[fallthrough]];
    case 3: line(2); [[fallthrough]];
    case 2: line(1); [[fallthrough]];
    case 1: line(0); [[fallthrough]];
    default: break;
  }
}

// Copies (or, for a kZero index out of range, zeroes) the slice that the
// index at `index` selects. slice_bytes is slice.row, passed as a value.
template <Bounds kBounds, class Index, bool kContiguous>
HWY_INLINE void GatherOneSlice(const uint8_t* data, const uint8_t* index, int64_t axis_size,
                               size_t axis_stride, const LoopNest<2>& slice,
                               size_t slice_bytes, uint8_t* to) {
  Index k;
  hwy::CopySameSize(reinterpret_cast<const Index*>(index), &k);
  int64_t resolved;
  const bool valid = ResolveIndex<kBounds>(k, axis_size, resolved);
  const uint8_t* from = valid ? data + static_cast<size_t>(resolved) * axis_stride : nullptr;
  if constexpr (kContiguous) {
    CopyOrZeroRow(from, to, slice_bytes);
  } else {
    CopySlice(slice, from, to);
  }
}

// Copies the slices one row of `count` indices selects. Everything the loop
// reads is a by-value parameter: the copies store through uint8_t pointers,
// which may alias any object in memory, so values read from the job (or
// through a lambda's captured references) were reloaded for every slice,
// 25-30 instructions per 256-byte row that left fewer rows in flight.
template <Bounds kBounds, class Index, bool kContiguous>
HWY_NOINLINE void GatherIndexRow(const uint8_t* data, const uint8_t* indices,
                                 size_t index_stride, size_t count, int64_t axis_size,
                                 size_t axis_stride, uint8_t* to, size_t out_step,
                                 const LoopNest<2>& slice) {
  const size_t slice_bytes = slice.row;
  const size_t prefetch_lines = PrefetchLines(slice_bytes);
  // Slices are read in index order, which is random: ask for the slice a few
  // indices ahead so its lines arrive while this one is copied. The last
  // kPrefetchDistance slices run in a second loop so neither loop branches
  // on whether to prefetch.
  const size_t prefetched = count > kPrefetchDistance ? count - kPrefetchDistance : 0;
  size_t j = 0;
  for (; j < prefetched; ++j, indices += index_stride, to += out_step) {
    Index ahead;
    hwy::CopySameSize(reinterpret_cast<const Index*>(indices + kPrefetchDistance * index_stride),
                      &ahead);
    PrefetchSlice(data, ahead, axis_size, axis_stride, prefetch_lines);
    GatherOneSlice<kBounds, Index, kContiguous>(data, indices, axis_size, axis_stride, slice,
                                                slice_bytes, to);
  }
  for (; j < count; ++j, indices += index_stride, to += out_step) {
    GatherOneSlice<kBounds, Index, kContiguous>(data, indices, axis_size, axis_stride, slice,
                                                slice_bytes, to);
  }
}

template <Bounds kBounds, class Index>
HWY_INLINE void GatherSlices(const typename GatherKernel<Index>::Job& job) {
  // The common case, one contiguous run per slice, gets its own loop.
  const auto row = job.slice.outer_rank == 0 ? &GatherIndexRow<kBounds, Index, true>
                                             : &GatherIndexRow<kBounds, Index, false>;
  ForEachRow(job.outer, [&](const size_t (&outer)[3]) {
    ForEachRow(job.index, [&](const size_t (&position)[2]) {
      row(job.data + outer[0], job.indices + outer[2] + position[0], job.index_stride,
          job.index.row, job.axis_size, job.axis_stride, job.out + outer[1] + position[1],
          job.out_step, job.slice);
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
