// ArgMax and ArgMin along one axis (ONNX ArgMax / ArgMin, opset 13).
//
//   y[..., 0, ...] = the index k along `axis` of the largest (smallest) x[..., k, ...]
//   ties: the first such k, or the last with select_last_index;
//   NaN: a NaN counts as beyond every number for both ops (NumPy's argmax
//   and argmin return the first NaN), so the first (last) NaN's index.
// y holds int64 indices. With keepdims y has x's dims with the axis' dim 1;
// without, the axis is left out (a rank-1 x then gives a y of dims {1}).
// x: float, float16, bfloat16, uint8 or int8; along the axis at most
// 2^31 - 1 elements (the kernel counts in 32-bit lanes).
//
// The kernel runs along the axis when it is the contiguous run (the
// classifier's scores: lanes hold every L-th element, then one pass over the
// lanes) and across the run of elements after it otherwise (a vector of
// outputs at a time, each lane walking the axis). No allocation.
#ifndef TENSOROPS_OPS_ARG_REDUCE_H_
#define TENSOROPS_OPS_ARG_REDUCE_H_

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

namespace tensorops {

// Independent outputs walked by `nest` (view 0 src, view 1 dst); each reads
// `count` elements axis_stride bytes apart. With along_row the run is the
// axis itself (nest.row = count, one output).
template <class T>
struct ArgReduceJob {
  const T* src;
  int64_t* dst;
  LoopNest<2> nest;
  size_t count;
  size_t axis_stride;  // bytes, in src
  bool along_row;
};

// The dispatch key: element type, max or min, first or last index.
template <class T, bool kMax, bool kLast>
struct ArgReduceKernel {
  using Job = ArgReduceJob<T>;
  static WorkSplit Split(const Job& job) {
    if (job.along_row && job.nest.outer_rank == 0) return {1, 0.0};
    const double per = job.along_row ? 1.0 : static_cast<double>(job.count);
    return detail::NestSplit(job.nest, per * sizeof(T) * detail::kNsPerByte);
  }
  static Job Slice(const Job& job, size_t begin, size_t end) {
    Job slice = job;
    const size_t row_step[2] = {sizeof(T), job.along_row ? 0 : sizeof(int64_t)};
    size_t offset[2];
    slice.nest = detail::SliceNest(job.nest, begin, end, 2, row_step, offset);
    slice.src = detail::AdvanceBytes(job.src, offset[0]);
    slice.dst = detail::AdvanceBytes(job.dst, offset[1]);
    return slice;
  }
};

namespace detail {

template <bool kMax, class S, Layout LS, Layout LD, class E>
void RunArgReduce(const char* name, int axis_arg, bool keepdims, bool select_last_index,
                  const TensorView<S, LS>& src, const TensorView<int64_t, LD>& dst, E&& executor) {
  using T = std::remove_const_t<S>;
  static_assert(kIsFloatElement<T> || std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>,
                "ArgMax/ArgMin: x must be float, float16, bfloat16, uint8 or int8");
  const size_t rank = src.rank();
  const size_t axis = NormalizeAxis(axis_arg, rank, name);
  const size_t count = src.dim(axis);
  if (count == 0) {
    Fail(ErrorCode::kShapeMismatch, name, ": x dims ", src.dims(), " have no element along axis ",
         axis, " to choose");
  }
  if (count > size_t{0x7FFFFFFF}) {
    Fail(ErrorCode::kSizeOverflow, name, ": ", count, " elements along axis ", axis,
         " exceed 2^31 - 1");
  }
  // y's dim and byte stride for each of x's dims (0 for the axis).
  size_t out_dim[kMaxRank] = {}, out_stride[kMaxRank] = {};
  const size_t want_rank = keepdims ? rank : (rank == 1 ? 1 : rank - 1);
  bool dims_ok = dst.rank() == want_rank;
  for (size_t d = 0, o = 0; dims_ok && d < rank; ++d) {
    const bool kept = d != axis || keepdims;
    if (!kept) continue;
    out_dim[d] = dst.dim(o);
    out_stride[d] = d == axis ? 0 : dst.StrideBytes(o);
    dims_ok = out_dim[d] == (d == axis ? 1 : src.dim(d));
    ++o;
  }
  if (rank == 1 && !keepdims) dims_ok = dims_ok && dst.dim(0) == 1;
  if (!dims_ok) {
    Fail(ErrorCode::kShapeMismatch, name, ": y dims ", dst.dims(), " do not match x dims ",
         src.dims(), " with axis ", axis, keepdims ? " kept as 1" : " left out");
  }
  if (Overlaps(src, dst)) Fail(ErrorCode::kAliasing, name, ": x and y overlap");
  for (size_t d : src.dims()) {
    if (d == 0) return;
  }
  ArgReduceJob<T> job{src.data(), dst.data(), {}, count, src.StrideBytes(axis), false};
  LoopNest<2>& nest = job.nest;
  size_t inner = 1;
  for (size_t d = axis + 1; d < rank; ++d) inner *= src.dim(d);
  size_t first_inner = rank;  // dims [first_inner, rank) form the run
  if (inner == 1 && src.StrideBytes(axis) == sizeof(T)) {
    job.along_row = true;
    nest.row = count;
  } else {
    first_inner = rank - 1;
    nest.row = src.dim(rank - 1);
    while (first_inner > axis + 1) {
      const size_t d = first_inner - 1;
      const bool dense = src.StrideBytes(d) == nest.row * sizeof(T) &&
                         out_stride[d] == nest.row * sizeof(int64_t);
      if (!dense && src.dim(d) != 1) break;
      nest.row *= src.dim(d);
      first_inner = d;
    }
  }
  for (size_t d = 0; d < rank; ++d) {
    if (d == axis || d >= first_inner) continue;
    AppendLoop(nest, src.dim(d), {src.StrideBytes(d), out_stride[d]});
  }
  if (select_last_index) {
    RunKernelOn(executor, ArgReduceKernel<T, kMax, true>{}, job);
  } else {
    RunKernelOn(executor, ArgReduceKernel<T, kMax, false>{}, job);
  }
}

}  // namespace detail

struct ArgMax {
  int axis = 0;  // ONNX's default
  bool keepdims = true;
  bool select_last_index = false;

  template <class S, Layout LS, Layout LD, Executor E = SerialExecutor>
  void operator()(const TensorView<S, LS>& x, const TensorView<int64_t, LD>& y,
                  E&& executor = {}) const {
    detail::RunArgReduce<true>("ArgMax", axis, keepdims, select_last_index, x, y, executor);
  }
};

struct ArgMin {
  int axis = 0;
  bool keepdims = true;
  bool select_last_index = false;

  template <class S, Layout LS, Layout LD, Executor E = SerialExecutor>
  void operator()(const TensorView<S, LS>& x, const TensorView<int64_t, LD>& y,
                  E&& executor = {}) const {
    detail::RunArgReduce<false>("ArgMin", axis, keepdims, select_last_index, x, y, executor);
  }
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_ARG_REDUCE_H_
