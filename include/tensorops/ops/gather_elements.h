// GatherElements (ONNX GatherElements-13; Simd's SynetGatherElements).
//
// data, indices and out have equal rank r; out has the dims of indices, and
// for every d != axis, indices.dim(d) <= data.dim(d). With s = data.dim(axis):
//
//   out[i_0, ..., i_{r-1}] = data[i_0, ..., j, ..., i_{r-1}]   (j at axis)
//   where k = indices[i_0, ..., i_{r-1}], j = k < 0 ? k + s : k
//
// Simd's form (outer, srcCount, inner) is the rank-3 case with axis 1.
// Element type: any (moved as bytes of its size); data and out share it.
// Index type: int32 or int64 (the template parameter). Indices outside
// [-s, s-1] follow `bounds` (ops/bounds.h); with kError every index is checked
// before anything is written. out must not overlap data or indices.
// Kernels (for TENSOROPS_INSTANTIATE): GatherElementsKernel<sizeof(T), Index>
// and, for Bounds::kError, IndexRangeKernel<Index>.
#ifndef TENSOROPS_OPS_GATHER_ELEMENTS_H_
#define TENSOROPS_OPS_GATHER_ELEMENTS_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tensorops/detail/checks.h"
#include "tensorops/dispatch.h"
#include "tensorops/dtype.h"
#include "tensorops/error.h"
#include "tensorops/layout/loop_nest.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/parallel/split.h"
#include "tensorops/ops/bounds.h"

namespace tensorops {

// The dispatch key: elements move as unsigned words of kBytes bytes.
template <size_t kBytes, class Index>
struct GatherElementsKernel {
  struct Job {
    const uint8_t* data;
    const Index* indices;
    uint8_t* out;
    // Outer loops over every dim but the row; view 0 = data (stride 0 along
    // the axis: the index supplies it), 1 = indices, 2 = out.
    LoopNest<3> nest;
    int64_t axis_size;         // s
    ptrdiff_t index_step;      // data elements per unit of index
    ptrdiff_t position_step;   // data elements per step along the row
    Bounds bounds;
  };
  // Outer positions, or blocks of the row (as detail::NestSplit).
  static WorkSplit Split(const Job& job) {
    return detail::NestSplit(job.nest, (2 * kBytes + sizeof(Index)) * detail::kNsPerByte);
  }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    Job slice = job;
    size_t offset[3];
    const size_t row_step[3] = {static_cast<size_t>(job.position_step) * kBytes, sizeof(Index),
                                kBytes};
    slice.nest = detail::SliceNest(job.nest, begin, end, 3, row_step, offset);
    // An empty axis (zero-fill policy) may come with a null data pointer.
    if (job.axis_size != 0) slice.data += offset[0];
    slice.indices = detail::AdvanceBytes(job.indices, offset[1]);
    slice.out += offset[2];
    return slice;
  }
};

// The smallest and largest value of an index view, with zero included (so
// that a check against [-s, s-1], s >= 1, reads each index once, vectorised).
template <class Index>
struct IndexRangeKernel {
  struct Job {
    const Index* indices;
    LoopNest<1> nest;
    int64_t* min;
    int64_t* max;
  };
};

namespace detail {

// The gather family's common checks. An output may not overlap an input;
// an empty data dimension cannot be indexed unless the policy zero-fills.
template <class O, class D, class I>
void CheckGatherNoOverlap(const O& out, const D& data, const I& indices, const char* op) {
  if (Overlaps(out, data) || Overlaps(out, indices)) {
    Fail(ErrorCode::kAliasing, op, ": out overlaps data or indices");
  }
}

inline void CheckCanIndex(size_t dim_size, size_t dim, Bounds bounds, const char* op) {
  if (dim_size == 0 && bounds != Bounds::kZero) {
    Fail(ErrorCode::kIndexOutOfRange, op, ": data dim[", dim, "] is empty, so no index is valid");
  }
}

// Throws kIndexOutOfRange for the first index outside [-s, s-1] (s >= 1),
// naming its position and value. Runs before any write: a vectorised min/max
// pass decides, and only a failing check walks the indices again to find the
// first bad one. Returns the policy the kernel may run: detail::kInRange when
// no index is negative (nothing to wrap), else kUnchecked.
template <class Index, class L>
Bounds CheckIndices(const TensorView<const Index, L>& indices, int64_t s, const char* op) {
  if (indices.IsEmpty()) return kInRange;
  int64_t lowest = 0, highest = 0;
  RunKernel(IndexRangeKernel<Index>{},
            {indices.data(), MakeLoopNest(indices.dims(), indices), &lowest, &highest});
  if (lowest >= -s && highest < s) return lowest >= 0 ? kInRange : Bounds::kUnchecked;
  const size_t rank = indices.rank();
  const size_t row = indices.dim(rank - 1);
  Extents position = ZeroIndex(indices.dims());
  do {
    position[rank - 1] = 0;
    const Index* values = &indices.at(position);
    for (size_t j = 0; j < row; ++j) {
      if (values[j] < -s || values[j] >= s) {
        position[rank - 1] = j;
        Fail(ErrorCode::kIndexOutOfRange, op, ": index ", static_cast<int64_t>(values[j]),
             " at position ", position, " of indices ", indices.dims(), " is outside [", -s,
             ", ", s - 1, "]");
      }
    }
  } while (NextIndex(position, indices.dims(), rank - 1));
  return Bounds::kUnchecked;  // not reached: the min/max said one is bad
}

}  // namespace detail

template <IndexType Index>
struct GatherElements {
  int axis = 0;  // negative counts from the last dimension
  Bounds bounds = Bounds::kError;

  template <class S, Layout LD, class I, Layout LI, class O, Layout LO,
            Executor E = SerialExecutor>
  void operator()(const TensorView<S, LD>& data, const TensorView<I, LI>& indices,
                  const TensorView<O, LO>& out, E&& executor = {}) const {
    using T = std::remove_const_t<S>;
    static_assert(std::is_same_v<std::remove_const_t<I>, Index>,
                  "GatherElements<Index>: the indices view must hold Index");
    static_assert(std::is_same_v<O, T>, "GatherElements: out must be a mutable view of data's type");
    constexpr const char* kOp = "GatherElements";
    if (data.rank() != indices.rank()) {
      detail::Fail(ErrorCode::kShapeMismatch, kOp, ": data has rank ", data.rank(),
                   " but indices has rank ", indices.rank());
    }
    detail::CheckSameDims(indices, "indices", out, "out");
    const size_t rank = data.rank();
    const size_t a = detail::NormalizeAxis(axis, rank, kOp);
    for (size_t d = 0; d < rank; ++d) {
      if (d != a && indices.dim(d) > data.dim(d)) {
        detail::Fail(ErrorCode::kShapeMismatch, kOp, ": indices dim[", d, "] = ",
                     indices.dim(d), " exceeds data dim[", d, "] = ", data.dim(d),
                     " (only the axis ", a, " may differ)");
      }
    }
    detail::CheckGatherNoOverlap(out, data, indices, kOp);
    if (out.IsEmpty()) return;
    detail::CheckCanIndex(data.dim(a), a, bounds, kOp);
    const auto s = static_cast<int64_t>(data.dim(a));
    const TensorView<const Index, LI> checked_indices = indices;
    const Bounds kernel_bounds =
        bounds == Bounds::kError ? detail::CheckIndices(checked_indices, s, kOp) : bounds;

    // The row is the last dimension. Along it, the data element of position
    // j and index k is k * index_step + j * position_step.
    const bool axis_is_row = a + 1 == rank;
    const auto elem = static_cast<ptrdiff_t>(sizeof(T));
    typename GatherElementsKernel<sizeof(T), Index>::Job job{};
    job.data = reinterpret_cast<const uint8_t*>(data.data());
    job.indices = indices.data();
    job.out = reinterpret_cast<uint8_t*>(out.data());
    job.axis_size = s;
    job.index_step = static_cast<ptrdiff_t>(data.StrideBytes(a)) / elem;
    job.position_step = axis_is_row ? 0 : 1;
    job.bounds = kernel_bounds;
    // Outer loops: every dim but the last; data's stride along the axis is 0.
    auto& nest = job.nest;
    nest.row = out.dim(rank - 1);
    for (size_t d = 0; d + 1 < rank; ++d) {
      const size_t strides[3] = {d == a ? 0 : data.StrideBytes(d), indices.StrideBytes(d),
                                 out.StrideBytes(d)};
      AppendLoop(nest, out.dim(d), strides);
    }
    detail::RunKernelOn(executor, GatherElementsKernel<sizeof(T), Index>{}, job);
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_GATHER_ELEMENTS_H_
