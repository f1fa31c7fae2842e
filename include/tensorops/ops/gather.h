// Gather along an axis (ONNX Gather-13; BNNSGather with 1-D indices).
//
// data has rank r, indices rank q >= 1, out rank q + r - 1 with dims
//   data.dims[0, axis) ++ indices.dims ++ data.dims(axis, r)
// and, with s = data.dim(axis),
//   out[o..., j..., i...] = data[o..., k', i...]
//   where k = indices[j...], k' = k < 0 ? k + s : k
// Each index selects a whole slice data[o..., k', ...]; BNNS's 1-D indices are
// q = 1. (BNNS's same-rank, element-wise form is GatherElements.) A scalar
// index (q = 0) is a rank-1 index of one element with that dim of size 1.
// Element type: any, moved as bytes; index type: int32 or int64. Bounds and
// errors as GatherElements (ops/bounds.h). out must not overlap the inputs.
// Kernels (for TENSOROPS_INSTANTIATE): GatherKernel<Index> and, for
// Bounds::kError, IndexRangeKernel<Index>.
#ifndef TENSOROPS_OPS_GATHER_H_
#define TENSOROPS_OPS_GATHER_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tensorops/detail/checks.h"
#include "tensorops/dispatch.h"
#include "tensorops/dtype.h"
#include "tensorops/error.h"
#include "tensorops/layout/loop_nest.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/ops/bounds.h"
#include "tensorops/ops/gather_elements.h"  // CheckIndices, IndexRangeKernel

namespace tensorops {

// The dispatch key. Slices are copied as bytes, so one kernel serves every
// element type.
template <class Index>
struct GatherKernel {
  struct Job {
    const uint8_t* data;
    const uint8_t* indices;
    uint8_t* out;
    // Data dims before the axis: data, out, indices (the indices stride is 0
    // for Gather; GatherElementsConstant uses it for one index row per outer
    // position).
    LoopNest<3> outer;
    LoopNest<2> index;    // indices dims: indices, out; row = last index dim
    LoopNest<2> slice;    // data dims after the axis: data, out; row in bytes
    size_t index_stride;  // bytes between consecutive indices in a row
    size_t out_step;      // out bytes between consecutive slices in a row
    size_t axis_stride;   // data bytes per unit of index
    int64_t axis_size;
    Bounds bounds;
  };

  // Outer positions when there are several, else index rows, else the
  // indices of the one row: each unit writes its own slices of out.
  enum class SplitLevel { kOuter, kIndexRows, kIndices };
  static SplitLevel LevelOf(const Job& job) {
    if (job.outer.outer_rank > 0) return SplitLevel::kOuter;
    return job.index.outer_rank > 0 ? SplitLevel::kIndexRows : SplitLevel::kIndices;
  }
  static WorkSplit Split(const Job& job) {
    const size_t slices = job.outer.ElementCount() * job.index.ElementCount();
    const double slice_ns = static_cast<double>(2 * job.slice.ElementCount() + sizeof(Index)) *
                            detail::kNsPerByte;
    const size_t units = LevelOf(job) == SplitLevel::kOuter       ? job.outer.count[0]
                         : LevelOf(job) == SplitLevel::kIndexRows ? job.index.count[0]
                                                                  : job.index.row;
    return {units, static_cast<double>(slices / units) * slice_ns};
  }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    Job slice = job;
    switch (LevelOf(job)) {
      case SplitLevel::kOuter:
        slice.outer.count[0] = end - begin;
        // An empty axis (zero-fill policy) may come with a null data pointer.
        if (job.axis_size != 0) slice.data += begin * job.outer.stride[0][0];
        slice.out += begin * job.outer.stride[1][0];
        slice.indices += begin * job.outer.stride[2][0];
        break;
      case SplitLevel::kIndexRows:
        slice.index.count[0] = end - begin;
        slice.indices += begin * job.index.stride[0][0];
        slice.out += begin * job.index.stride[1][0];
        break;
      case SplitLevel::kIndices:
        slice.index.row = end - begin;
        slice.indices += begin * job.index_stride;
        slice.out += begin * job.out_step;
        break;
    }
    return slice;
  }
};

template <IndexType Index>
struct Gather {
  int axis = 0;  // negative counts from the last dimension
  Bounds bounds = Bounds::kError;

  template <class S, Layout LD, class I, Layout LI, class O, Layout LO,
            Executor E = SerialExecutor>
  void operator()(const TensorView<S, LD>& data, const TensorView<I, LI>& indices,
                  const TensorView<O, LO>& out, E&& executor = {}) const {
    using T = std::remove_const_t<S>;
    static_assert(std::is_same_v<std::remove_const_t<I>, Index>,
                  "Gather<Index>: the indices view must hold Index");
    static_assert(std::is_same_v<O, T>, "Gather: out must be a mutable view of data's type");
    constexpr const char* kOp = "Gather";
    const size_t r = data.rank(), q = indices.rank();
    const size_t a = detail::NormalizeAxis(axis, r, kOp);
    if (out.rank() != q + r - 1) {
      detail::Fail(ErrorCode::kShapeMismatch, kOp, ": out has rank ", out.rank(),
                   " but data rank ", r, " and indices rank ", q, " need ", q + r - 1);
    }
    // out dims = data.dims[0, a) ++ indices.dims ++ data.dims(a, r)
    for (size_t d = 0; d < out.rank(); ++d) {
      const bool from_indices = d >= a && d < a + q;
      const size_t want = from_indices ? indices.dim(d - a) : data.dim(d < a ? d : d - q + 1);
      if (out.dim(d) != want) {
        detail::Fail(ErrorCode::kShapeMismatch, kOp, ": out dim[", d, "] = ", out.dim(d),
                     " but ", from_indices ? "indices" : "data", " gives ", want,
                     " (out dims ", out.dims(), ", data ", data.dims(), ", indices ",
                     indices.dims(), ", axis ", a, ")");
      }
    }
    detail::CheckGatherNoOverlap(out, data, indices, kOp);
    if (out.IsEmpty()) return;
    detail::CheckCanIndex(data.dim(a), a, bounds, kOp);
    const auto s = static_cast<int64_t>(data.dim(a));
    const TensorView<const Index, LI> checked_indices = indices;
    const Bounds kernel_bounds =
        bounds == Bounds::kError ? detail::CheckIndices(checked_indices, s, kOp) : bounds;

    typename GatherKernel<Index>::Job job{};
    job.data = reinterpret_cast<const uint8_t*>(data.data());
    job.indices = reinterpret_cast<const uint8_t*>(indices.data());
    job.out = reinterpret_cast<uint8_t*>(out.data());
    job.axis_stride = data.StrideBytes(a);
    job.axis_size = s;
    job.bounds = kernel_bounds;
    job.outer.row = 1;  // a nest of outer loops only: one visit per position
    for (size_t d = 0; d < a; ++d) {
      const size_t strides[3] = {data.StrideBytes(d), out.StrideBytes(d), 0};
      AppendLoop(job.outer, data.dim(d), strides);
    }
    job.index.row = indices.dim(q - 1);
    job.index_stride = indices.StrideBytes(q - 1);
    job.out_step = out.StrideBytes(a + q - 1);
    for (size_t d = 0; d + 1 < q; ++d) {
      const size_t strides[2] = {indices.StrideBytes(d), out.StrideBytes(a + d)};
      AppendLoop(job.index, indices.dim(d), strides);
    }
    job.slice = GatherSliceNest(data, a + 1, out, a + q, sizeof(T));
    detail::RunKernelOn(executor, GatherKernel<Index>{}, job);
  }
};

// Loops over a slice: data dims [data_first, r) and the out dims from
// out_first on, extents from out, the innermost dense run as the row, in
// bytes. Shared by Gather, GatherND and GatherElementsConstant.
template <class D, class O>
LoopNest<2> GatherSliceNest(const D& data, size_t data_first, const O& out, size_t out_first,
                            size_t elem) {
  LoopNest<2> nest;
  const size_t r = data.rank();
  size_t row = elem;
  size_t d = r;  // data dims [d, r) are merged into the row
  while (d > data_first) {
    const size_t od = d - 1 - data_first + out_first;
    const bool dense = data.StrideBytes(d - 1) == row && out.StrideBytes(od) == row;
    if (!dense && out.dim(od) != 1) break;
    row *= out.dim(od);
    --d;
  }
  nest.row = row;
  for (size_t dd = data_first; dd < d; ++dd) {
    const size_t od = dd - data_first + out_first;
    const size_t strides[2] = {data.StrideBytes(dd), out.StrideBytes(od)};
    AppendLoop(nest, out.dim(od), strides);
  }
  return nest;
}

}  // namespace tensorops

#endif  // TENSOROPS_OPS_GATHER_H_
