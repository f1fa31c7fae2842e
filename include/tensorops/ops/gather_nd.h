// GatherND (ONNX GatherND-13 with batch_dims; BNNSGatherND).
//
// data rank r, indices rank q, b = batch_dims, m = indices.dim(q-1) with
// 1 <= m <= r - b; the first b dims of data and indices are equal. out dims:
//   indices.dims[0, q-1) ++ data.dims[b + m, r)
// and each innermost row of indices is a tuple of m coordinates:
//   out[p..., i...] = data[p[0, b)..., k_0', ..., k_{m-1}', i...]
//   where (k_0, ..., k_{m-1}) = indices[p..., :], k_t' = k_t < 0 ? k_t + s_t : k_t,
//   s_t = data.dim(b + t)
// When that leaves out with rank 0 (q = 1, m = r, b = 0), out is a rank-1
// view of one element. Element type: any; index type int32 or int64; bounds
// as GatherElements (ops/bounds.h), checked per coordinate against its own
// s_t. out must not overlap the inputs.
// Kernels (for TENSOROPS_INSTANTIATE): GatherNdKernel<Index>.
#ifndef TENSOROPS_OPS_GATHER_ND_H_
#define TENSOROPS_OPS_GATHER_ND_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tensorops/detail/checks.h"
#include "tensorops/dispatch.h"
#include "tensorops/error.h"
#include "tensorops/layout/loop_nest.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/ops/bounds.h"
#include "tensorops/ops/gather.h"           // GatherSliceNest
#include "tensorops/ops/gather_elements.h"  // CheckGatherNoOverlap, CheckCanIndex

namespace tensorops {

template <class Index>
struct GatherNdKernel {
  struct Job {
    const uint8_t* data;
    const uint8_t* indices;
    uint8_t* out;
    // One visit per tuple, over indices dims [0, q-1): indices, data (batch
    // dims only; 0 for the others), out.
    LoopNest<3> tuples;
    size_t tuple_size;                  // m
    size_t component_stride;            // indices bytes between coordinates
    int64_t axis_size[kMaxRank];        // s_t
    size_t axis_stride[kMaxRank];       // data bytes per unit of k_t
    LoopNest<2> slice;                  // data dims [b + m, r): data, out
    Bounds bounds;
  };
  // The outermost loop over tuples: each tuple writes its own slice of out.
  static WorkSplit Split(const Job& job) {
    if (job.tuples.outer_rank == 0) return {1, 0.0};
    const size_t per = job.tuples.ElementCount() / job.tuples.count[0];
    const double tuple_ns =
        static_cast<double>(2 * job.slice.ElementCount() + job.tuple_size * sizeof(Index)) *
        detail::kNsPerByte;
    return {job.tuples.count[0], static_cast<double>(per) * tuple_ns};
  }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    Job slice = job;
    slice.tuples.count[0] = end - begin;
    slice.indices += begin * job.tuples.stride[0][0];
    // An empty axis (zero-fill policy) may come with a null data pointer.
    if (job.data != nullptr) slice.data += begin * job.tuples.stride[1][0];
    slice.out += begin * job.tuples.stride[2][0];
    return slice;
  }
};

template <IndexType Index>
struct GatherNd {
  size_t batch_dims = 0;
  Bounds bounds = Bounds::kError;

  template <class S, Layout LD, class I, Layout LI, class O, Layout LO,
            Executor E = SerialExecutor>
  void operator()(const TensorView<S, LD>& data, const TensorView<I, LI>& indices,
                  const TensorView<O, LO>& out, E&& executor = {}) const {
    using T = std::remove_const_t<S>;
    static_assert(std::is_same_v<std::remove_const_t<I>, Index>,
                  "GatherNd<Index>: the indices view must hold Index");
    static_assert(std::is_same_v<O, T>, "GatherNd: out must be a mutable view of data's type");
    constexpr const char* kOp = "GatherNd";
    const size_t r = data.rank(), q = indices.rank(), b = batch_dims;
    if (b >= q || b >= r) {
      detail::Fail(ErrorCode::kBadArgument, kOp, ": batch_dims ", b,
                   " must be below the ranks of data (", r, ") and indices (", q, ")");
    }
    const size_t m = indices.dim(q - 1);
    if (m < 1 || m > r - b) {
      detail::Fail(ErrorCode::kShapeMismatch, kOp, ": indices dim[", q - 1, "] = ", m,
                   " must be in [1, ", r - b, "] (data rank ", r, " - batch_dims ", b, ")");
    }
    for (size_t d = 0; d < b; ++d) {
      if (data.dim(d) != indices.dim(d)) {
        detail::Fail(ErrorCode::kShapeMismatch, kOp, ": batch dim[", d, "]: data has ",
                     data.dim(d), ", indices has ", indices.dim(d));
      }
    }
    // out dims = indices.dims[0, q-1) ++ data.dims[b + m, r), or (1) if empty.
    const size_t rank = q - 1 + r - b - m;
    const bool scalar = rank == 0;
    if (out.rank() != (scalar ? 1 : rank)) {
      detail::Fail(ErrorCode::kShapeMismatch, kOp, ": out has rank ", out.rank(), ", expected ",
                   scalar ? 1 : rank);
    }
    for (size_t d = 0; d < out.rank(); ++d) {
      const size_t want = scalar ? 1 : d < q - 1 ? indices.dim(d) : data.dim(d - (q - 1) + b + m);
      if (out.dim(d) != want) {
        detail::Fail(ErrorCode::kShapeMismatch, kOp, ": out dim[", d, "] = ", out.dim(d),
                     ", expected ", want, " (out dims ", out.dims(), ", data ", data.dims(),
                     ", indices ", indices.dims(), ", batch_dims ", b, ")");
      }
    }
    detail::CheckGatherNoOverlap(out, data, indices, kOp);
    if (out.IsEmpty()) return;
    typename GatherNdKernel<Index>::Job job{};
    for (size_t t = 0; t < m; ++t) {
      job.axis_size[t] = static_cast<int64_t>(data.dim(b + t));
      job.axis_stride[t] = data.StrideBytes(b + t);
      detail::CheckCanIndex(data.dim(b + t), b + t, bounds, kOp);
    }
    if (bounds == Bounds::kError) CheckTuples(indices, job.axis_size, kOp);

    job.data = reinterpret_cast<const uint8_t*>(data.data());
    job.indices = reinterpret_cast<const uint8_t*>(indices.data());
    job.out = reinterpret_cast<uint8_t*>(out.data());
    job.tuple_size = m;
    job.component_stride = indices.StrideBytes(q - 1);
    job.bounds = bounds;
    job.tuples.row = 1;  // a nest of outer loops only: one visit per tuple
    for (size_t d = 0; d + 1 < q; ++d) {
      const size_t strides[3] = {indices.StrideBytes(d), d < b ? data.StrideBytes(d) : 0,
                                 out.StrideBytes(d)};
      AppendLoop(job.tuples, indices.dim(d), strides);
    }
    if (scalar) {
      job.slice.row = sizeof(T);
    } else {
      job.slice = GatherSliceNest(data, b + m, out, q - 1, sizeof(T));
    }
    detail::RunKernelOn(executor, GatherNdKernel<Index>{}, job);
  }

 private:
  // Throws for the first coordinate outside [-s_t, s_t - 1], naming it.
  template <class I, Layout LI>
  static void CheckTuples(const TensorView<I, LI>& indices, const int64_t* s, const char* op) {
    const size_t q = indices.rank();
    Extents position = detail::ZeroIndex(indices.dims());
    do {
      const auto k = static_cast<int64_t>(indices.at(position));
      const int64_t st = s[position[q - 1]];
      if (k < -st || k >= st) {
        detail::Fail(ErrorCode::kIndexOutOfRange, op, ": index ", k, " at position ", position,
                     " of indices ", indices.dims(), " is outside [", -st, ", ", st - 1,
                     "] (coordinate ", position[q - 1], ")");
      }
    } while (detail::NextIndex(position, indices.dims(), q));
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_GATHER_ND_H_
